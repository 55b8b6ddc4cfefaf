// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_platform.c - the core's platform interface (core/platform.h)
 * implemented with kernel primitives.
 *
 * Memory: XB_ALLOC_ATOMIC maps to GFP_ATOMIC (datapath learning, under the
 * FDB spinlock); XB_ALLOC_SLEEP to kvzalloc(GFP_KERNEL) (control paths,
 * large FDB tables). Everything is freed with kvfree(), which is also
 * safe from RCU callbacks. Object caches are kmem_caches. The writer lock
 * is a bh-safe spinlock, so the control path excludes learning in softirq
 * on the same CPU.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/time.h>

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include <net/netfilter/nf_log.h>
#include <net/cls_cgroup.h>
#include <net/dst.h>
#include <net/sock.h>
#include <linux/netfilter/nf_tables.h>

#include "platform.h"

void *xb_alloc(size_t size, enum xb_alloc_ctx ctx)
{
	if (ctx == XB_ALLOC_ATOMIC)
		return kzalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	return kvzalloc(size, GFP_KERNEL);
}

void xb_free(void *ptr)
{
	kvfree(ptr);
}

/*
 * An xb_obj_cache is a kmem_cache (the struct is never defined: only the
 * pointer is passed). No SLAB_HWCACHE_ALIGN: it would round a 184-byte
 * object up to 192. Not merged with another cache of the size where the
 * kernel can say so (SLAB_NO_MERGE, 6.5), so that /proc/slabinfo counts
 * the cache's own objects; 6.1 may merge it into one of the same size
 * (/sys/kernel/slab/NAME is then a link to that one).
 */
#ifdef SLAB_NO_MERGE
#define XB_OBJ_CACHE_FLAGS SLAB_NO_MERGE
#else
#define XB_OBJ_CACHE_FLAGS 0
#endif

struct xb_obj_cache *xb_obj_cache_create(const char *name, size_t size)
{
	if (!size || size > UINT_MAX)
		return NULL;
	return (struct xb_obj_cache *)kmem_cache_create(name, size, 0, XB_OBJ_CACHE_FLAGS, NULL);
}

void xb_obj_cache_destroy(struct xb_obj_cache *cache)
{
	kmem_cache_destroy((struct kmem_cache *)cache);
}

void *xb_obj_cache_alloc(struct xb_obj_cache *cache, enum xb_alloc_ctx ctx)
{
	gfp_t gfp = ctx == XB_ALLOC_ATOMIC ? GFP_ATOMIC | __GFP_NOWARN : GFP_KERNEL;

	return kmem_cache_zalloc((struct kmem_cache *)cache, gfp);
}

void xb_obj_cache_free(struct xb_obj_cache *cache, void *obj)
{
	if (obj)
		kmem_cache_free((struct kmem_cache *)cache, obj);
}

void *xb_percpu_alloc(size_t size, size_t align, enum xb_alloc_ctx ctx)
{
	gfp_t gfp = ctx == XB_ALLOC_ATOMIC ? GFP_ATOMIC : GFP_KERNEL;

	return __alloc_percpu_gfp(size, align, gfp);
}

void xb_percpu_free(void *pcpu)
{
	free_percpu((void __percpu *)pcpu);
}

void *xb_percpu_this(void *pcpu)
{
	return this_cpu_ptr((void __percpu *)pcpu);
}

/* this_cpu_ptr is one add of this CPU's offset: no note is kept. */
void *xb_percpu_this_noted(void *pcpu, unsigned int *run_cpu)
{
	(void)run_cpu;
	return this_cpu_ptr((void __percpu *)pcpu);
}

void *xb_percpu_cpu(void *pcpu, unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return NULL;
	return per_cpu_ptr((void __percpu *)pcpu, cpu);
}

unsigned int xb_percpu_nr_ids(void)
{
	return nr_cpu_ids;
}

unsigned int xb_this_cpu_id(void)
{
	return raw_smp_processor_id();
}

uint64_t xb_now_ns(void)
{
	/* Jiffy resolution is all the FDB needs, at a fraction of the cost. */
	return ktime_get_coarse_ns();
}

uint32_t xb_random_u32(void)
{
	return get_random_u32();
}

uint64_t xb_realtime_ns(void)
{
	return ktime_get_real_ns();
}

int32_t xb_tz_minuteswest(void)
{
	return sys_tz.tz_minuteswest;
}

void xb_rcu_read_lock(void)
{
	rcu_read_lock();
}

void xb_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

/*
 * As synchronize_net: an expedited grace period while RTNL is held, so that
 * configuration does not hold RTNL across a normal one, nor behind a
 * backlog of RCU callbacks (a debug kernel under churn kept a bridge
 * deletion in synchronize_rcu for minutes, every RTNL user waiting).
 */
void xb_synchronize_rcu(void)
{
	synchronize_net();
}

/* xb_rcu_head is struct rcu_head and xb_rcu_callback is rcu_callback_t. */
void xb_call_rcu(xb_rcu_head *head, xb_rcu_callback fn)
{
	call_rcu(head, fn);
}

void xb_rcu_barrier(void)
{
	rcu_barrier();
}

void xb_cond_resched(void)
{
	cond_resched();
}

xb_rcu_gp xb_rcu_gp_start(void)
{
	return start_poll_synchronize_rcu();
}

int xb_rcu_gp_done(xb_rcu_gp gp)
{
	return poll_state_synchronize_rcu(gp);
}

void xb_rcu_gp_wait(xb_rcu_gp gp)
{
	if (rtnl_is_locked())
		cond_synchronize_rcu_expedited(gp);
	else
		cond_synchronize_rcu(gp);
}

struct xb_lock {
	spinlock_t lock;
};

struct xb_lock *xb_lock_create(void)
{
	struct xb_lock *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (l)
		spin_lock_init(&l->lock);
	return l;
}

void xb_lock_destroy(struct xb_lock *lock)
{
	kfree(lock);
}

void xb_lock_acquire(struct xb_lock *lock)
{
	spin_lock_bh(&lock->lock);
}

void xb_lock_release(struct xb_lock *lock)
{
	spin_unlock_bh(&lock->lock);
}

void xb_warn_once(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	WARN_ONCE(1, "%pV", &vaf);
	va_end(args);
}

void xb_log(enum xb_log_level level, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	switch (level) {
	case XB_LOG_ERR:
		pr_err_ratelimited("%pV", &vaf);
		break;
	case XB_LOG_WARN:
		pr_warn_ratelimited("%pV", &vaf);
		break;
	case XB_LOG_INFO:
		pr_info_ratelimited("%pV", &vaf);
		break;
	default:
		pr_debug("%pV", &vaf);
		break;
	}
	va_end(args);
}

/* ---- nft's log: nf_log for the bridge family ------------------------------ */

int xb_nft_logger_get(uint8_t type)
{
	return nf_logger_find_get(NFPROTO_BRIDGE, type) ? -ENOENT : 0;
}

void xb_nft_logger_put(uint8_t type)
{
	nf_logger_put(NFPROTO_BRIDGE, type);
}

/* Datapath, under RCU: as nft_log_eval on the Linux bridge. */
void xb_nft_log(const void *frame_cookie, unsigned int hook, uint32_t in_ifindex,
		uint32_t out_ifindex, const struct xb_nft_loginfo *log)
{
	const struct sk_buff *skb = frame_cookie;
	struct net_device *in = NULL, *out = NULL;
	struct nf_loginfo li = { .type = log->type };
	struct net *net;

	if (!skb)
		return;
	net = dev_net(skb->dev);
	if (in_ifindex)
		in = dev_get_by_index_rcu(net, in_ifindex);
	if (out_ifindex)
		out = dev_get_by_index_rcu(net, out_ifindex);
	if (log->type == NF_LOG_TYPE_LOG) {
		li.u.log.level = log->level;
		li.u.log.logflags = log->logflags;
	} else {
		li.u.ulog.group = log->group;
		li.u.ulog.qthreshold = log->qthreshold;
		li.u.ulog.copy_len = log->copy_len;
		if (log->copy_len_set)
			li.u.ulog.flags |= NF_LOG_F_COPY_LEN;
	}
	nf_log_packet(net, NFPROTO_BRIDGE, hook, skb, in, out, &li, "%s", log->prefix);
}

/* ---- nft's meta keys of the skb's socket and route ----------------------- */

/*
 * Datapath, under RCU: as nft_meta_get_eval_skugid, _cgroup and
 * _rtclassid. The bridge's namespace is its ports' (skb->dev's).
 */
bool xb_nft_frame_meta(const void *frame_cookie, unsigned int key, uint32_t *value)
{
	const struct sk_buff *skb = frame_cookie;
	struct socket *sock;
	struct sock *sk;
	bool ok = true;

	if (!skb)
		return false;
	if (key == NFT_META_RTCLASSID) {
#ifdef CONFIG_IP_ROUTE_CLASSID
		const struct dst_entry *dst = skb_dst(skb);

		if (!dst)
			return false;
		*value = dst->tclassid;
		return true;
#else
		return false;
#endif
	}
	sk = skb_to_full_sk(skb);
	if (!sk || !sk_fullsock(sk) || !net_eq(dev_net(skb->dev), sock_net(sk)))
		return false;
	if (key == NFT_META_CGROUP) {
#ifdef CONFIG_CGROUP_NET_CLASSID
		*value = sock_cgroup_classid(&sk->sk_cgrp_data);
		return true;
#else
		return false;
#endif
	}
	read_lock_bh(&sk->sk_callback_lock);
	sock = sk->sk_socket;
	if (!sock || !sock->file)
		ok = false;
	else if (key == NFT_META_SKUID)
		*value = from_kuid_munged(sock_net(sk)->user_ns, sock->file->f_cred->fsuid);
	else
		*value = from_kgid_munged(sock_net(sk)->user_ns, sock->file->f_cred->fsgid);
	read_unlock_bh(&sk->sk_callback_lock);
	return ok;
}

/* ---- nft's reject: nf_reject's replies, sent back out of the port -------- */

/*
 * The reply nf_reject builds for @skb, whose data starts at its IP header:
 * NULL where it builds none (a reset to a reset, a fragment, an ICMP
 * error, a bad checksum) or memory ran out.
 */
static struct sk_buff *xb_reject_reply(struct net *net, struct sk_buff *skb,
				       const struct xb_nft_rejectinfo *r)
{
	if (r->l3proto == ETH_P_IP)
		return r->tcp_reset ? nf_reject_skb_v4_tcp_reset(net, skb, NULL, r->hook) :
				      nf_reject_skb_v4_unreach(net, skb, NULL, r->hook, r->code);
	return r->tcp_reset ? nf_reject_skb_v6_tcp_reset(net, skb, NULL, r->hook) :
			      nf_reject_skb_v6_unreach(net, skb, NULL, r->hook, r->code);
}

/*
 * Datapath, under RCU: as nft_reject_bridge_eval. The frame itself is left
 * as it is (the core drops it): nf_reject reads, pulls and trims a clone,
 * whose data is moved to the IP header it expects. The reply gets the
 * frame's addresses swapped and its out-of-band tag, and leaves through the
 * ingress port; Linux's br_forward would also run the bridge's output and
 * postrouting chains on it, which xbridge does not (Documentation/nft.md).
 */
void xb_nft_reject(const void *frame_cookie, const struct xb_nft_rejectinfo *r)
{
	const struct sk_buff *skb = frame_cookie;
	struct sk_buff *clone, *reply;
	struct net_device *dev;
	struct ethhdr *eth;
	u8 dest[ETH_ALEN], source[ETH_ALEN];
	struct net *net;

	if (!skb || skb_headlen(skb) < ETH_HLEN)
		return;
	net = dev_net(skb->dev);
	dev = dev_get_by_index_rcu(net, r->in_ifindex);
	if (!dev)
		return;
	ether_addr_copy(dest, skb->data);
	ether_addr_copy(source, skb->data + ETH_ALEN);
	clone = skb_clone((struct sk_buff *)skb, GFP_ATOMIC);
	if (!clone)
		return;
	if (!pskb_may_pull(clone, r->nhoff)) {
		kfree_skb(clone);
		return;
	}
	__skb_pull(clone, r->nhoff);
	skb_reset_network_header(clone);
	reply = xb_reject_reply(net, clone, r);
	consume_skb(clone);
	if (!reply)
		return;
	eth = skb_push(reply, ETH_HLEN);
	skb_reset_mac_header(reply);
	ether_addr_copy(eth->h_dest, source);
	ether_addr_copy(eth->h_source, dest);
	eth->h_proto = htons(r->l3proto);
	reply->protocol = eth->h_proto;
	if (r->vlan_present)
		__vlan_hwaccel_put_tag(reply, htons(r->vlan_proto), r->vlan_tci);
	reply->dev = dev;
	dev_queue_xmit(reply);
}
