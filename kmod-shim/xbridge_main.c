// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_main.c - the xbridge network device.
 *
 * `ip link add xbr0 type xbridge` creates a bridge device; `ip link set
 * veth1 master xbr0` makes veth1 a port: its frames reach
 * xbr_handle_frame() through an rx_handler, the C++ core decides, and this
 * file carries the verdict out on the sk_buff (forward, flood with clones,
 * up the bridge device, up the port's own stack, or drop). Frames the
 * bridge device sends enter the core as from its host port.
 *
 * Ownership: struct xbr lives in the bridge device's priv area and owns the
 * core bridge and its xbr_port list. A struct xbr_port belongs to its
 * bridge and is freed after a grace period once unlinked.
 *
 * Locking: link and port changes, the netdevice notifier and the generic
 * netlink handlers run under RTNL, which serialises the core's control calls.
 * The datapath (rx_handler in softirq; ndo_start_xmit with bh disabled)
 * runs under RCU and never sleeps. The ageing work touches only the FDB,
 * which the core protects with its own bh-safe lock; the conntrack GC work
 * reaches the table through RCU (the core's xbg_ct_gc) and takes its lock.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/netfilter/nf_log.h>
#include <linux/rtnetlink.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <net/rtnetlink.h>
#include <net/sock.h>

#include "xbridge_glue.h"
#include "xbridge_glue_nft.h"
#include "xbridge_dev.h"
#include "xbridge_frag.h"
#include "xbridge_genl.h"

#define XBR_GC_INTERVAL		HZ

static rx_handler_result_t xbr_handle_frame(struct sk_buff **pskb);

bool xbr_is_port_dev(const struct net_device *dev)
{
	return rcu_access_pointer(dev->rx_handler) == xbr_handle_frame;
}

struct xbr_port *xbr_port_of(const struct net_device *dev)
{
	return xbr_is_port_dev(dev) ? rtnl_dereference(dev->rx_handler_data) : NULL;
}

/* ---- datapath ------------------------------------------------------------- */

static void xbr_apply_tag(struct sk_buff *skb, u8 tag, const struct xbg_verdict *v)
{
	switch (tag) {
	case XBG_TAG_UNTAG:
		__vlan_hwaccel_clear_tag(skb);
		break;
	case XBG_TAG_TAG:
		__vlan_hwaccel_put_tag(skb, htons(v->tag_proto),
				       v->vid | (v->pcp_dei << 12));
		break;
	default:
		break;
	}
}

/* Send @skb, ready for @skb->dev (data at the Ethernet header, tag set). */
static void xbr_xmit_ready(struct sk_buff *skb, void *forwarded)
{
	if (unlikely(!is_skb_forwardable(skb->dev, skb))) {
		kfree_skb(skb);
		return;
	}
	if (*(const bool *)forwarded)
		skb_forward_csum(skb);
	/*
	 * A receive timestamp, or a transmit time meant for the bridge
	 * device, is not a departure time on the port: an fq qdisc would read
	 * it as one. br_forward_finish clears it for forwarded frames and for
	 * the bridge's own alike (a delivery time the stack set is kept).
	 */
	skb_clear_tstamp(skb);
	dev_queue_xmit(skb);
}

/*
 * Transmit on a port. @skb->data is at the Ethernet header. A packet
 * conntrack reassembled leaves as fragments again (xbridge_frag.h), each
 * checked against the port's MTU, as br_dev_queue_push_xmit checks what
 * nf_conntrack_bridge's postrouting hands it.
 */
/*
 * The writes this copy's own chains made (forward or output, postrouting;
 * input for the copy that goes up, @copy NULL), after its egress tagging as
 * on Linux: on its bytes alone, made private first as skb_ensure_writable
 * does in nft_payload_set_eval. Non-zero if that failed.
 */
static int xbr_write_copy(struct sk_buff *skb, const struct xbg_copy_writes *w,
			  const void *copy)
{
	bool bytes = false;
	u32 i;

	for (i = 0; i < w->count; i++) {
		const struct xbg_copy_write *e = &w->entries[i];

		if (e->copy != copy)
			continue;
		if (!e->len) {
			if (e->tag_present)
				__vlan_hwaccel_put_tag(skb, htons(e->tag_proto), e->tag_tci);
			else
				__vlan_hwaccel_clear_tag(skb);
			continue;
		}
		if (skb_ensure_writable(skb, e->offset + e->len))
			return -ENOMEM;
		memcpy(skb->data + e->offset, e->after, e->len);
		bytes = true;
	}
	/* the device's sum no longer covers the bytes */
	if (bytes && skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
	return 0;
}

static void xbr_xmit_port(struct sk_buff *skb, struct xbr_port *to, u8 tag,
			  const struct xbg_verdict *v, bool forwarded)
{
	xbr_apply_tag(skb, tag, v);
	if (unlikely(v->copy_writes) && xbr_write_copy(skb, v->copy_writes, to->core)) {
		dev_core_stats_tx_dropped_inc(to->dev);
		kfree_skb(skb);
		return;
	}
	skb->dev = to->dev;
	if (unlikely(xbr_skb_cb(skb)->frag_max_size))
		xbr_refrag(skb, xbr_xmit_ready, &forwarded);
	else
		xbr_xmit_ready(skb, &forwarded);
}

/*
 * Up the bridge device. @skb->data is at the Ethernet header; @skb->dev is
 * still the ingress port.
 *
 * The packet type is decided afresh, never inherited (eth_type_trans leaves
 * it alone for a frame to the device's own address, and the port set
 * PACKET_OTHERHOST for it): host for the bridge's address (br_handle_frame)
 * or the ingress port's own (which its eth_type_trans called host), multicast
 * or broadcast by the group bit, else other-host (a promiscuous bridge).
 */
static void xbr_pass_up(struct xbr *br, struct sk_buff *skb, const struct xbg_verdict *v)
{
	struct net_device *dev = br->dev;
	const struct net_device *in = skb->dev;
	const u8 *dest = ((const struct ethhdr *)skb->data)->h_dest;
	bool to_port = ether_addr_equal(dest, in->dev_addr);

	xbr_apply_tag(skb, v->local_tag, v);
	if (unlikely(v->copy_writes) && xbr_write_copy(skb, v->copy_writes, NULL)) {
		dev_core_stats_rx_dropped_inc(dev);
		kfree_skb(skb);
		return;
	}
	if (unlikely(skb->mark != v->local_mark))
		skb->mark = v->local_mark;	/* meta mark set, up to input */
	if (unlikely(skb->priority != v->local_priority))
		skb->priority = v->local_priority;
	skb->dev = dev;
	skb->pkt_type = PACKET_HOST;
	skb->protocol = eth_type_trans(skb, dev);
	if (skb->pkt_type == PACKET_OTHERHOST && to_port)
		skb->pkt_type = PACKET_HOST;
	if (unlikely(v->local_pkttype != XBG_PKTTYPE_KEEP))
		skb->pkt_type = v->local_pkttype;	/* meta pkttype set */
	dev_sw_netstats_rx_add(dev, skb->len);
	netif_receive_skb(skb);
}

struct xbr_flood_ctx {
	struct sk_buff *skb;
	const struct xbg_verdict *v;
	struct xbr_port *prev;
	u8 prev_tag;
	bool forwarded;
};

/* Deliver a clone to the previous target, remember this one (br_flood). */
static void xbr_flood_one(void *ctx_, void *port_priv, u8 tag)
{
	struct xbr_flood_ctx *ctx = ctx_;

	if (ctx->prev) {
		struct sk_buff *clone = skb_clone(ctx->skb, GFP_ATOMIC);

		if (clone)
			xbr_xmit_port(clone, ctx->prev, ctx->prev_tag, ctx->v, ctx->forwarded);
		else
			dev_core_stats_tx_dropped_inc(ctx->prev->dev);
	}
	ctx->prev = port_priv;
	ctx->prev_tag = tag;
}

/* Carry out a forward or flood verdict; consumes @skb (at the MAC header). */
static void xbr_deliver(struct xbr *br, struct sk_buff *skb, const struct xbg_verdict *v,
			bool forwarded)
{
	struct sk_buff *local = NULL;

	if (v->local_too) {
		local = skb_clone(skb, GFP_ATOMIC);
		if (!local)
			dev_core_stats_rx_dropped_inc(br->dev);
	}
	if (unlikely(skb->mark != v->mark))
		skb->mark = v->mark;	/* meta mark set, up to postrouting */
	if (unlikely(skb->priority != v->priority))
		skb->priority = v->priority;

	if (v->kind == XBG_FORWARD) {
		xbr_xmit_port(skb, v->out_priv, v->out_tag, v, forwarded);
	} else {
		struct xbr_flood_ctx ctx = {
			.skb = skb, .v = v, .forwarded = forwarded,
		};

		xbg_flood(v, xbr_flood_one, &ctx);
		if (ctx.prev)
			xbr_xmit_port(skb, ctx.prev, ctx.prev_tag, v, forwarded);
		else
			consume_skb(skb);
	}

	if (local)
		xbr_pass_up(br, local, v);
}

/*
 * A hwaccel tag whose protocol is not the bridge's is payload for the
 * bridge (br_allowed_ingress): put it back into the frame first. Not for a
 * link-local frame that goes up the port unforwarded: Linux decides those
 * before br_allowed_ingress, and the port's stack expects the tag out of
 * band (vlan_do_receive, or cleared with skb->data at the payload).
 */
static struct sk_buff *xbr_foreign_tag_to_payload(struct xbr *br, struct sk_buff *skb)
{
	if (!skb_vlan_tag_present(skb) || !xbg_vlan_filtering(br->core) ||
	    ntohs(skb->vlan_proto) == xbg_vlan_proto(br->core))
		return skb;
	if (unlikely(xbg_link_local_to_port(br->core, skb->data)))
		return skb;
	skb = vlan_insert_tag_set_proto(skb, skb->vlan_proto, skb_vlan_tag_get(skb));
	if (skb)
		__vlan_hwaccel_clear_tag(skb);
	return skb;
}

static void xbr_frame_of(struct sk_buff *skb, struct xbg_frame *f)
{
	f->data = skb->data;
	f->len = skb_headlen(skb);
	f->vlan_present = skb_vlan_tag_present(skb);
	f->vlan_proto = ntohs(skb->vlan_proto);
	f->vlan_tci = skb_vlan_tag_get(skb);
	f->csum_ok = skb->ip_summed == CHECKSUM_UNNECESSARY ||
		     skb->ip_summed == CHECKSUM_PARTIAL;
	f->csum_partial = skb->ip_summed == CHECKSUM_PARTIAL;
	f->writable = NULL;
	f->copy_writes = NULL;
	f->mark = skb->mark;
	f->priority = skb->priority;
	f->wire_len = skb->len;	/* a paged skb: more than its linear part */
	f->host_stack = false;
	f->skb = skb;
}

/*
 * Whether the bridge device's IP stack sent @skb (a socket of its own, or
 * the kernel's replies without one), as opposed to a packet socket writing
 * whole frames: only the former passes the IP layer's conntrack hooks on
 * Linux.
 */
static bool xbr_from_host_stack(const struct sk_buff *skb)
{
	const struct sock *sk = skb->sk;

	if (sk && sk_fullsock(sk) && sk->sk_family == AF_PACKET)
		return false;
	return skb->protocol == htons(ETH_P_IP) || skb->protocol == htons(ETH_P_IPV6);
}

/*
 * Conntrack and the ruleset's chains read the whole packet from the core's
 * linear view (length checks, checksums, payload): a paged skb (GSO from a
 * local socket) is made linear first, only when one of them will read it.
 * Non-zero if that failed.
 */
static int xbr_linearize_for_core(struct xbr *br, struct sk_buff *skb)
{
	if (likely(!skb_is_nonlinear(skb)))
		return 0;
	if (!xbg_conntrack_on(br->core) && !xbg_nft_active(br->core))
		return 0;
	return skb_linearize(skb);
}

/* Ethernet, a VLAN tag, IPv4 and TCP headers with options: what a flow hit reads. */
#define XBR_FLOW_HEADERS	(ETH_HLEN + VLAN_HLEN + 60 + 60)

/*
 * A paged skb of an offloaded connection needs no copy: the flowtable
 * reads only its headers. Pull those and try the flow; true if it hit
 * (@v is its verdict).
 */
static bool xbr_flow_fast_path(struct xbr *br, struct xbr_port *p, struct sk_buff *skb,
			       struct xbg_verdict *v)
{
	struct xbg_frame frame;

	/*
	 * Nor a reassembled packet: a flowtable at ingress sees its fragments,
	 * which never hit, and pulling its headers would merge the fragments
	 * it leaves as (xbr_refrag).
	 */
	if (likely(!skb_is_nonlinear(skb)) || !xbg_conntrack_on(br->core) ||
	    xbr_skb_cb(skb)->frag_max_size ||
	    !pskb_may_pull(skb, min_t(unsigned int, skb->len, XBR_FLOW_HEADERS)))
		return false;
	xbr_frame_of(skb, &frame);
	frame.wire_len = skb->len;
	return xbg_flow_fast_path(br->core, p->core, &frame, v);
}

/*
 * A reassembled packet is decided on a linear copy: the packet itself keeps
 * its fragments' geometry, so that it leaves as the fragments it came in
 * (xbr_refrag). Non-zero if the copy could not be made.
 */
static int xbr_decide_reassembled(struct xbr *br, struct xbr_port *p, struct sk_buff *skb,
				  struct xbg_verdict *v)
{
	struct sk_buff *linear = skb_copy(skb, GFP_ATOMIC);
	struct xbg_frame frame;

	if (!linear)
		return -ENOMEM;
	xbr_frame_of(linear, &frame);
	xbg_decide(br->core, p->core, &frame, v);
	consume_skb(linear);
	return 0;
}

/*
 * A ruleset whose chains write frames (payload statements) has the skb's
 * bytes made private and linear first, as nft_payload_set_eval's
 * skb_ensure_writable does; if that fails the writes break, as there.
 * Prerouting writes them in place; the later hooks' writes into each copy
 * are recorded in @writes for xbr_write_copy().
 */
static void xbr_writable_for_core(struct sk_buff *skb, struct xbg_frame *frame,
				  struct xbg_copy_writes *writes)
{
	if (skb_ensure_writable(skb, skb->len))
		return;
	xbr_frame_of(skb, frame);
	frame->writable = skb->data;
	frame->copy_writes = writes;
}

/* What prerouting's payload statements changed besides the bytes. */
static void xbr_apply_writes(struct sk_buff *skb, const struct xbg_verdict *v)
{
	if (v->rx_tag_written) {
		if (v->rx_tag_present)
			__vlan_hwaccel_put_tag(skb, htons(v->rx_tag_proto), v->rx_tag_tci);
		else
			__vlan_hwaccel_clear_tag(skb);
	}
	/* the device's sum no longer covers the bytes */
	if (v->frame_written && skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
}

/*
 * The rest of xbr_handle_frame() for a frame that is not a flow's: decide
 * it and carry the verdict out. @writes: room for the copies' writes when
 * the ruleset has payload statements, else NULL.
 */
static __always_inline rx_handler_result_t
xbr_decide_deliver(struct xbr *br, struct xbr_port *p, struct sk_buff **pskb,
		   struct sk_buff *skb, struct xbg_copy_writes *writes)
{
	struct xbg_frame frame;
	struct xbg_verdict v;

	if (unlikely(xbr_skb_cb(skb)->frag_max_size)) {
		if (xbr_decide_reassembled(br, p, skb, &v)) {
			kfree_skb(skb);
			return RX_HANDLER_CONSUMED;
		}
	} else {
		if (unlikely(xbr_linearize_for_core(br, skb))) {
			kfree_skb(skb);
			return RX_HANDLER_CONSUMED;
		}
		xbr_frame_of(skb, &frame);
		if (writes)
			xbr_writable_for_core(skb, &frame, writes);
		xbg_decide(br->core, p->core, &frame, &v);
	}
	if (unlikely(v.frame_written || v.rx_tag_written))
		xbr_apply_writes(skb, &v);

	switch (v.kind) {
	case XBG_PORT_STACK:
		skb_pull(skb, ETH_HLEN);
		*pskb = skb;
		return RX_HANDLER_PASS;
	case XBG_LOCAL:
		xbr_pass_up(br, skb, &v);
		return RX_HANDLER_CONSUMED;
	case XBG_FORWARD:
	case XBG_FLOOD:
		xbr_deliver(br, skb, &v, true);
		return RX_HANDLER_CONSUMED;
	default:
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
}

/*
 * Room for the copies' writes (a write of up to 16 bytes and each checksum
 * it fixes take one record), for a frame whose ruleset has payload
 * statements. Without memory for it, the copies' writes break (as a
 * failed skb_ensure_writable does); prerouting's need none.
 */
#define XBR_COPY_WRITES		64

static void xbr_copy_writes_alloc(struct xbg_copy_writes *w)
{
	w->entries = kmalloc_array(XBR_COPY_WRITES, sizeof(*w->entries), GFP_ATOMIC);
	w->cap = w->entries ? XBR_COPY_WRITES : 0;
	w->count = 0;
}

static noinline rx_handler_result_t
xbr_decide_deliver_writes(struct xbr *br, struct xbr_port *p, struct sk_buff **pskb,
			  struct sk_buff *skb)
{
	struct xbg_copy_writes writes;
	rx_handler_result_t res;

	xbr_copy_writes_alloc(&writes);
	res = xbr_decide_deliver(br, p, pskb, skb, &writes);
	kfree(writes.entries);
	return res;
}

static rx_handler_result_t xbr_handle_frame(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct xbr_port *p;
	struct xbr *br;
	struct xbg_verdict v;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	p = rcu_dereference(skb->dev->rx_handler_data);
	if (unlikely(!p))
		return RX_HANDLER_PASS;
	br = p->br;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return RX_HANDLER_CONSUMED;

	/*
	 * Conntrack sees whole IP packets: trimmed to their length and
	 * reassembled from fragments, before anything else reads them
	 * (nf_conntrack_bridge's prerouting). Every frame's control block is
	 * set here, fragment or not.
	 */
	xbr_skb_cb(skb)->frag_max_size = 0;
	if (xbg_conntrack_tracking(br->core) && xbr_defrag(skb))
		return RX_HANDLER_CONSUMED;

	/* The core sees the frame from its Ethernet header. */
	skb_push(skb, ETH_HLEN);
	skb = xbr_foreign_tag_to_payload(br, skb);
	if (!skb)
		return RX_HANDLER_CONSUMED;
	if (unlikely(xbr_flow_fast_path(br, p, skb, &v))) {
		xbr_deliver(br, skb, &v, true);
		return RX_HANDLER_CONSUMED;
	}
	if (unlikely(xbg_nft_writes(br->core)))
		return xbr_decide_deliver_writes(br, p, pskb, skb);
	return xbr_decide_deliver(br, p, pskb, skb, NULL);
}

/*
 * A frame the stack sends with the bridge's VLAN tag in its payload (a VLAN
 * device without tx offload, a packet socket) has the tag moved out of band
 * first, as br_allowed_ingress does: egress then pops or rewrites it like
 * any other. Returns NULL if the skb was freed.
 */
static struct sk_buff *xbr_host_tag_to_hwaccel(struct xbr *br, struct sk_buff *skb)
{
	if (skb_vlan_tag_present(skb) || !xbg_vlan_filtering(br->core) ||
	    ntohs(eth_hdr(skb)->h_proto) != xbg_vlan_proto(br->core))
		return skb;
	skb->protocol = eth_hdr(skb)->h_proto;
	skb_pull(skb, ETH_HLEN);
	skb = skb_vlan_untag(skb);
	if (!skb)
		return NULL;
	skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	return skb;
}

/* Decide a frame the bridge device sends and carry the verdict out
 * (@writes as for xbr_decide_deliver()). */
static __always_inline void xbr_dev_decide_deliver(struct xbr *br, struct sk_buff *skb,
						   struct xbg_copy_writes *writes)
{
	struct xbg_frame frame;
	struct xbg_verdict v;

	if (unlikely(xbr_linearize_for_core(br, skb))) {
		kfree_skb(skb);
		return;
	}
	xbr_frame_of(skb, &frame);
	if (writes)
		xbr_writable_for_core(skb, &frame, writes);
	frame.host_stack = xbr_from_host_stack(skb);
	xbg_decide(br->core, xbg_host_port(br->core), &frame, &v);
	if (v.kind == XBG_FORWARD || v.kind == XBG_FLOOD) {
		v.local_too = false;
		xbr_deliver(br, skb, &v, false);
	} else {
		kfree_skb(skb);
	}
}

static noinline void xbr_dev_decide_deliver_writes(struct xbr *br, struct sk_buff *skb)
{
	struct xbg_copy_writes writes;

	xbr_copy_writes_alloc(&writes);
	xbr_dev_decide_deliver(br, skb, &writes);
	kfree(writes.entries);
}

static netdev_tx_t xbr_dev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct xbr *br = netdev_priv(dev);

	dev_sw_netstats_tx_add(dev, 1, skb->len);
	xbr_skb_cb(skb)->frag_max_size = 0;	/* the IP stack fragmented it */
	skb_reset_mac_header(skb);
	skb = xbr_host_tag_to_hwaccel(br, skb);
	if (!skb)
		return NETDEV_TX_OK;

	rcu_read_lock();
	if (unlikely(xbg_nft_writes(br->core)))
		xbr_dev_decide_deliver_writes(br, skb);
	else
		xbr_dev_decide_deliver(br, skb, NULL);
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

/* ---- ports ------------------------------------------------------------------ */

/* A port forwards while it and the bridge are up (br_dev_open/br_dev_stop). */
static bool xbr_port_up(const struct xbr_port *p)
{
	return netif_running(p->br->dev) && netif_running(p->dev) && netif_oper_up(p->dev);
}

/* As the Linux bridge: carrier while some port is up (br_port_state_selection). */
static void xbr_sync_carrier(struct xbr *br)
{
	struct xbr_port *p;

	list_for_each_entry(p, &br->ports, list) {
		if (xbr_port_up(p)) {
			netif_carrier_on(br->dev);
			return;
		}
	}
	netif_carrier_off(br->dev);
}

/*
 * What the bridge device offers its own stack (br_dev_setup's
 * COMMON_FEATURES): scatter-gather, checksum offload and GSO, so that what
 * the host sends through the bridge is segmented and checksummed by the
 * port that sends it, or in software at the last moment, as on a Linux
 * bridge. xbr_fix_features narrows them to what every port offers.
 */
#define XBR_COMMON_FEATURES	(NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_HIGHDMA | \
				 NETIF_F_GSO_MASK | NETIF_F_HW_CSUM)

/* As br_features_recompute. RTNL. */
static netdev_features_t xbr_fix_features(struct net_device *dev, netdev_features_t features)
{
	struct xbr *br = netdev_priv(dev);
	netdev_features_t mask = features;
	struct xbr_port *p;

	if (list_empty(&br->ports))
		return features;
	features &= ~NETIF_F_ONE_FOR_ALL;
	list_for_each_entry(p, &br->ports, list)
		features = netdev_increment_features(features, p->dev->features, mask);
	return netdev_add_tso_features(features, mask);
}

/* As br_set_gso_limits: no GSO packet larger than a port can take. RTNL. */
static void xbr_sync_gso_limits(struct xbr *br)
{
	unsigned int tso_max_size = TSO_MAX_SIZE;
	u16 tso_max_segs = TSO_MAX_SEGS;
	struct xbr_port *p;

	list_for_each_entry(p, &br->ports, list) {
		tso_max_size = min(tso_max_size, p->dev->tso_max_size);
		tso_max_segs = min(tso_max_segs, p->dev->tso_max_segs);
	}
	netif_set_tso_max_size(br->dev, tso_max_size);
	netif_set_tso_max_segs(br->dev, tso_max_segs);
}

/* As br_mtu_auto_adjust: the bridge takes the smallest port MTU. */
static void xbr_sync_mtu(struct xbr *br)
{
	unsigned int mtu = ETH_DATA_LEN;
	struct xbr_port *p;
	bool any = false;

	list_for_each_entry(p, &br->ports, list) {
		if (!any || p->dev->mtu < mtu)
			mtu = p->dev->mtu;
		any = true;
	}
	if (any && br->dev->mtu != mtu)
		dev_set_mtu(br->dev, mtu);
}

/*
 * As br_stp_recalculate_bridge_id: unless the user set the bridge's address
 * (NET_ADDR_SET), it is the smallest of its ports' addresses, or
 * 00:00:00:00:00:00 once the last port has left; the bridge's local FDB
 * entries follow it. Listeners hear of a change (NETDEV_CHANGEADDR).
 */
static void xbr_sync_addr(struct xbr *br)
{
	static const u8 none[ETH_ALEN];
	const u8 *addr = none;
	struct xbr_port *p;

	if (br->dev->addr_assign_type == NET_ADDR_SET)
		return;
	list_for_each_entry(p, &br->ports, list) {
		if (addr == none || memcmp(p->dev->dev_addr, addr, ETH_ALEN) < 0)
			addr = p->dev->dev_addr;
	}
	if (ether_addr_equal(br->dev->dev_addr, addr))
		return;
	if (addr == none)
		xbg_clear_addr(br->core);
	else if (xbg_set_addr(br->core, addr))
		return;	/* out of memory for the local entries: keep the old one */
	eth_hw_addr_set(br->dev, addr);
	call_netdevice_notifiers(NETDEV_CHANGEADDR, br->dev);
}

static void xbr_port_sync_link(struct xbr_port *p)
{
	xbg_port_link(p->br->core, p->core, xbr_port_up(p));
	xbr_sync_carrier(p->br);
}

static int xbr_add_slave(struct net_device *dev, struct net_device *slave,
			 struct netlink_ext_ack *extack)
{
	struct xbr *br = netdev_priv(dev);
	struct xbr_port *p;
	int err;

	if ((slave->flags & IFF_LOOPBACK) || slave->type != ARPHRD_ETHER ||
	    slave->addr_len != ETH_ALEN || !is_valid_ether_addr(slave->dev_addr)) {
		NL_SET_ERR_MSG(extack, "xbridge ports must be Ethernet devices");
		return -EINVAL;
	}
	if (slave->netdev_ops == dev->netdev_ops) {
		NL_SET_ERR_MSG(extack, "cannot make an xbridge a port of an xbridge");
		return -ELOOP;
	}
	if (netdev_master_upper_dev_get(slave)) {
		NL_SET_ERR_MSG(extack, "device already has a master");
		return -EBUSY;
	}

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->br = br;
	p->dev = slave;
	netdev_hold(slave, &p->dev_tracker, GFP_KERNEL);

	err = xbg_port_add(br->core, slave->dev_addr, slave->ifindex, p, &p->core);
	if (err)
		goto err_free;
	xbg_nft_port_name(br->core, p->core, slave->name,
			  slave->rtnl_link_ops ? slave->rtnl_link_ops->kind : NULL);
	err = netdev_rx_handler_register(slave, xbr_handle_frame, p);
	if (err)
		goto err_core;
	err = netdev_master_upper_dev_link(slave, dev, NULL, NULL, extack);
	if (err)
		goto err_rx;
	err = dev_set_promiscuity(slave, 1);
	if (err)
		goto err_upper;
	/* The port's address may become the bridge's: ask the bridge's upper
	 * devices now, even if it does not (br_add_if). */
	if (dev->addr_assign_type != NET_ADDR_SET) {
		err = dev_pre_changeaddr_notify(dev, slave->dev_addr, extack);
		if (err)
			goto err_promisc;
	}
	/* Frames are forwarded as received: no aggregation (br_add_if). */
	dev_disable_lro(slave);

	list_add_tail(&p->list, &br->ports);
	xbr_port_sync_link(p);
	xbr_sync_mtu(br);
	xbr_sync_addr(br);
	xbr_sync_gso_limits(br);
	netdev_update_features(dev);
	return 0;

err_promisc:
	dev_set_promiscuity(slave, -1);
err_upper:
	netdev_upper_dev_unlink(slave, dev);
err_rx:
	netdev_rx_handler_unregister(slave);
err_core:
	xbg_port_remove(br->core, p->core);
err_free:
	netdev_put(slave, &p->dev_tracker);
	kfree(p);
	return err;
}

static void xbr_port_remove(struct xbr_port *p)
{
	struct xbr *br = p->br;

	list_del(&p->list);
	/* Waits for readers: no frame of this port is in the core after it. */
	netdev_rx_handler_unregister(p->dev);
	netdev_upper_dev_unlink(p->dev, br->dev);
	dev_set_promiscuity(p->dev, -1);
	xbg_port_remove(br->core, p->core);
	netdev_put(p->dev, &p->dev_tracker);
	/* Flooding readers may still hold p through the core's port table. */
	kfree_rcu(p, rcu);
	if (br->dev->reg_state == NETREG_REGISTERED) {
		xbr_sync_carrier(br);
		xbr_sync_mtu(br);
		xbr_sync_addr(br);
		xbr_sync_gso_limits(br);
		netdev_update_features(br->dev);
	}
}

static int xbr_del_slave(struct net_device *dev, struct net_device *slave)
{
	struct xbr_port *p = xbr_port_of(slave);

	if (!p || p->br != netdev_priv(dev))
		return -EINVAL;
	xbr_port_remove(p);
	return 0;
}

/* Events of a bridge device itself. */
static void xbr_bridge_event(struct net_device *dev, unsigned long event)
{
	struct xbr *br = netdev_priv(dev);

	if (event == NETDEV_REGISTER && br->core)
		xbg_set_host_ifindex(br->core, dev->ifindex);
}

static int xbr_port_event(struct notifier_block *nb, unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct xbr_port *p;

	ASSERT_RTNL();
	if (xbr_is_bridge_dev(dev)) {
		xbr_bridge_event(dev, event);
		return NOTIFY_DONE;
	}
	p = xbr_port_of(dev);
	if (!p)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		xbr_port_remove(p);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		xbr_port_sync_link(p);
		break;
	case NETDEV_CHANGEMTU:
		xbr_sync_mtu(p->br);
		break;
	case NETDEV_FEAT_CHANGE:
		netdev_update_features(p->br->dev);
		break;
	case NETDEV_PRE_CHANGEADDR:
		/* As br_device_event: the new address may become the
		 * bridge's, so the bridge's upper devices may refuse it. */
		if (p->br->dev->addr_assign_type != NET_ADDR_SET) {
			struct netdev_notifier_pre_changeaddr_info *info = ptr;
			int err;

			err = dev_pre_changeaddr_notify(p->br->dev, info->dev_addr,
							netdev_notifier_info_to_extack(ptr));
			if (err)
				return notifier_from_errno(err);
		}
		break;
	case NETDEV_CHANGEADDR:
		/* br_fdb_changeaddr: the port's local entries follow. */
		xbg_port_set_addr(p->br->core, p->core, dev->dev_addr);
		xbr_sync_addr(p->br);
		break;
	case NETDEV_PRE_TYPE_CHANGE:
		/* A port stays Ethernet while it is one (a bond taking a
		 * non-Ethernet slave is refused), as on Linux. */
		return NOTIFY_BAD;
	}
	return NOTIFY_DONE;
}

static struct notifier_block xbr_notifier = {
	.notifier_call = xbr_port_event,
};

/* ---- the bridge device -------------------------------------------------------- */

/*
 * The ageing work runs every second, or every ageing_time when that is
 * shorter, but at most every 10 ms: an entry outlives its ageing time by
 * less than that. Linux's br_fdb_cleanup runs at the next expiry (also at
 * least 10 ms apart), so with ageing_time 0 a dynamic entry lives ~10 ms
 * on both bridges.
 */
static unsigned long xbr_gc_delay(struct xbr *br)
{
	unsigned long delay = msecs_to_jiffies(xbg_ageing_ms(br->core));

	return clamp(delay, msecs_to_jiffies(10), (unsigned long)XBR_GC_INTERVAL);
}

static void xbr_gc_work(struct work_struct *work)
{
	struct xbr *br = container_of(work, struct xbr, gc_work.work);

	xbg_run_ageing(br->core);
	queue_delayed_work(system_long_wq, &br->gc_work, xbr_gc_delay(br));
}

/* The FDB outgrew its table (softirq, FDB lock held): resize it now rather
 * than at the next ageing run. */
static void xbr_fdb_grow(void *ctx)
{
	struct xbr *br = ctx;

	mod_delayed_work(system_long_wq, &br->gc_work, 0);
}

/* One GC slice of the conntrack table per run, while conntrack is on; the
 * BRIDGE_SET handler starts it again when conntrack is turned on. */
static void xbr_ct_gc_work(struct work_struct *work)
{
	struct xbr *br = container_of(work, struct xbr, ct_gc_work.work);

	if (xbg_ct_gc(br->core))
		queue_delayed_work(system_long_wq, &br->ct_gc_work,
				   msecs_to_jiffies(XBG_CT_GC_INTERVAL_MS));
}

static int xbr_dev_init(struct net_device *dev)
{
	struct xbr *br = netdev_priv(dev);
	int err;

	br->dev = dev;
	INIT_LIST_HEAD(&br->ports);
	INIT_DELAYED_WORK(&br->gc_work, xbr_gc_work);
	INIT_DELAYED_WORK(&br->ct_gc_work, xbr_ct_gc_work);
	dev->tstats = netdev_alloc_pcpu_stats(struct pcpu_sw_netstats);
	if (!dev->tstats)
		return -ENOMEM;
	/* No ifindex yet (register_netdevice assigns it after ndo_init):
	 * NETDEV_REGISTER hands it to the core (xbr_bridge_event). */
	br->core = xbg_bridge_create(dev->dev_addr, 0, br, xbr_genl_fdb_event,
				     xbr_genl_ct_event, xbr_fdb_grow, br, &err);
	if (!br->core) {
		free_percpu(dev->tstats);
		dev->tstats = NULL;
		return err;
	}
	queue_delayed_work(system_long_wq, &br->gc_work, XBR_GC_INTERVAL);
	xbg_nft_port_name(br->core, xbg_host_port(br->core), dev->name,
			  dev->rtnl_link_ops ? dev->rtnl_link_ops->kind : NULL);
	xbr_nft_bind(br);
	netif_carrier_off(dev);	/* no port yet */
	return 0;
}

static void xbr_dev_uninit(struct net_device *dev)
{
	struct xbr *br = netdev_priv(dev);
	struct xbr_port *p, *n;

	/*
	 * Conntrack's GC first: removing the ports moves the bridge's flow
	 * generation, and a GC slice between the removals would tear the
	 * offloaded flows down as stale; the bridge going away tears them
	 * down as a flush (FlowTable::fini). Only RTNL holders queue it.
	 * The FDB's work goes after the ports: a frame may queue it until
	 * the last port is gone (xbr_fdb_grow).
	 */
	cancel_delayed_work_sync(&br->ct_gc_work);
	list_for_each_entry_safe(p, n, &br->ports, list)
		xbr_port_remove(p);
	cancel_delayed_work_sync(&br->gc_work);
	if (br->core)
		xbg_bridge_destroy(br->core);
	br->core = NULL;
	free_percpu(dev->tstats);
	dev->tstats = NULL;
}

/* Enable or disable every port as the bridge goes up or down (br_stp_enable_bridge). */
static void xbr_sync_ports(struct xbr *br)
{
	struct xbr_port *p;

	list_for_each_entry(p, &br->ports, list)
		xbg_port_link(br->core, p->core, xbr_port_up(p));
	xbr_sync_carrier(br);
}

static int xbr_dev_open(struct net_device *dev)
{
	xbr_sync_ports(netdev_priv(dev));
	netif_start_queue(dev);
	return 0;
}

/* Called with netif_running() already false. */
static int xbr_dev_stop(struct net_device *dev)
{
	xbr_sync_ports(netdev_priv(dev));
	netif_stop_queue(dev);
	return 0;
}

static int xbr_set_mac_address(struct net_device *dev, void *addr)
{
	struct xbr *br = netdev_priv(dev);
	struct sockaddr *sa = addr;
	int err;

	if (!is_valid_ether_addr(sa->sa_data))
		return -EADDRNOTAVAIL;
	err = xbg_set_addr(br->core, (const u8 *)sa->sa_data);
	if (err)
		return err;
	eth_hw_addr_set(dev, sa->sa_data);
	return 0;
}

static void xbr_change_rx_flags(struct net_device *dev, int change)
{
	struct xbr *br = netdev_priv(dev);

	if (change & IFF_PROMISC)
		xbg_set_promisc(br->core, dev->flags & IFF_PROMISC);
}

static const struct net_device_ops xbr_netdev_ops = {
	.ndo_init		= xbr_dev_init,
	.ndo_uninit		= xbr_dev_uninit,
	.ndo_open		= xbr_dev_open,
	.ndo_stop		= xbr_dev_stop,
	.ndo_start_xmit		= xbr_dev_xmit,
	.ndo_get_stats64	= dev_get_tstats64,
	.ndo_set_mac_address	= xbr_set_mac_address,
	.ndo_change_rx_flags	= xbr_change_rx_flags,
	.ndo_fix_features	= xbr_fix_features,
	.ndo_features_check	= passthru_features_check,
	.ndo_add_slave		= xbr_add_slave,
	.ndo_del_slave		= xbr_del_slave,
};

bool xbr_is_bridge_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &xbr_netdev_ops;
}

static void xbr_setup(struct net_device *dev)
{
	ether_setup(dev);
	eth_hw_addr_random(dev);
	dev->netdev_ops = &xbr_netdev_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_NO_QUEUE;
	/*
	 * What the host sends keeps its route through the bridge, as on
	 * Linux's bridge (br_dev_setup sets priv_flags without
	 * IFF_XMIT_DST_RELEASE): the output chains read it (meta rtclassid),
	 * and the ports' own transmit releases it.
	 */
	netif_keep_dst(dev);
	/* Ports stay in their namespace: so does the bridge (br_dev_setup). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	dev->lltx = true;
#ifdef XBR_HAVE_NETNS_IMMUTABLE
	dev->netns_immutable = true;
#else
	dev->netns_local = true;
#endif
#else
	dev->features |= NETIF_F_LLTX | NETIF_F_NETNS_LOCAL;
#endif
	dev->features |= XBR_COMMON_FEATURES | NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_STAG_TX;
	dev->hw_features = XBR_COMMON_FEATURES | NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_STAG_TX;
	dev->vlan_features = XBR_COMMON_FEATURES;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = ETH_MAX_MTU;
}

static struct rtnl_link_ops xbr_link_ops __read_mostly = {
	.kind		= "xbridge",
	.priv_size	= sizeof(struct xbr),
	.setup		= xbr_setup,
};

static int __init xbr_init(void)
{
	int err;

	err = xbr_genl_init();
	if (err)
		return err;
	err = register_netdevice_notifier(&xbr_notifier);
	if (err)
		goto err_genl;
	err = rtnl_link_register(&xbr_link_ops);
	if (err)
		goto err_notifier;
	/* nft's log needs the bridge family's loggers (nf_log_syslog, and
	 * nfnetlink_log for a group), which nf_tables loads on demand; a rule
	 * is parsed under RTNL, where waiting for modprobe is not safe, so ask
	 * for them now, without waiting: a log rule without one fails with
	 * ENOENT. */
	request_module_nowait("nf-logger-%u-%u", NFPROTO_BRIDGE, NF_LOG_TYPE_LOG);
	request_module_nowait("nf-logger-%u-%u", NFPROTO_BRIDGE, NF_LOG_TYPE_ULOG);
	return 0;

err_notifier:
	unregister_netdevice_notifier(&xbr_notifier);
err_genl:
	xbr_genl_exit();
	return err;
}

static void __exit xbr_exit(void)
{
	rtnl_link_unregister(&xbr_link_ops);
	unregister_netdevice_notifier(&xbr_notifier);
	xbr_genl_exit();
	/* The core frees ports, VLANs, FDB and conntrack entries from RCU
	 * callbacks; then the entries' cache can go. */
	rcu_barrier();
	xbg_module_exit();
}

module_init(xbr_init);
module_exit(xbr_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xbridge: an Ethernet bridge with a C++ forwarding core");
MODULE_ALIAS_RTNL_LINK("xbridge");
