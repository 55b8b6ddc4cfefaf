// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_nft.c - the nf_tables objects of the `xbridge` family:
 * NFT_BATCH (a batch of nf_tables requests, applied whole or not at all)
 * and NFT_GET (dumps of tables, chains, rules, sets, elements, flowtables,
 * named objects - GETOBJ_RESET resets the counters it returns - and the
 * generation), and the namespace's ruleset they act on.
 *
 * Each namespace has one bridge-family ruleset (as nf_tables keeps its
 * tables per namespace): bridge tables hook every xbridge there. It is
 * created with the namespace (pernet) and freed when the namespace goes,
 * after its bridges are gone.
 *
 * The messages are nf_tables' own, carried in XBRIDGE_A_NFT_MSG: the core
 * parses and validates their NFTA_* attributes (core/nft_ruleset.cc); the
 * generated policy checks only the carrier's shape.
 *
 * Locking: as every doit of the family, NFT_BATCH runs under RTNL
 * (xbr_nl_pre_doit); the dump takes RTNL around each round. The core's
 * commit sleeps in synchronize_rcu, which RTNL allows.
 *
 * Events: after a batch is committed (never when it fails or aborts), and
 * only when the `nft` group has listeners, each object of the batch goes
 * to the group as nf_tables_commit notifies it, then NEWGEN with the
 * committer's pid and comm: NFT_GET messages shaped as the dump's. The
 * events of a request with NLM_F_ECHO also go to the requester (nft
 * --echo), with its sequence number, before the batch's ack. They
 * are sent from the committing process (RTNL held, GFP_KERNEL). One that
 * does not fit even a 64 KiB message (a huge rule) is dropped and counted
 * (reported at module unload), as one whose allocation fails.
 */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/rtnetlink.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "xbridge_genl_priv.h"
#include "xbridge_glue_nft.h"

static unsigned int xbr_nft_net_id __read_mostly;

struct xbr_nft_net {
	struct xbg_nft *ruleset;	/* RTNL for control, RCU inside the core */
};

struct xbg_nft *xbr_nft_ruleset(struct net *net)
{
	struct xbr_nft_net *nn = net_generic(net, xbr_nft_net_id);

	return nn->ruleset;
}

static int __net_init xbr_nft_net_init(struct net *net)
{
	struct xbr_nft_net *nn = net_generic(net, xbr_nft_net_id);

	nn->ruleset = xbg_nft_create();
	return nn->ruleset ? 0 : -ENOMEM;
}

static void __net_exit xbr_nft_net_exit(struct net *net)
{
	struct xbr_nft_net *nn = net_generic(net, xbr_nft_net_id);

	xbg_nft_destroy(nn->ruleset);
	nn->ruleset = NULL;
}

static struct pernet_operations xbr_nft_net_ops = {
	.init = xbr_nft_net_init,
	.exit = xbr_nft_net_exit,
	.id = &xbr_nft_net_id,
	.size = sizeof(struct xbr_nft_net),
};

int __init xbr_nft_init(void)
{
	return register_pernet_subsys(&xbr_nft_net_ops);
}

void xbr_nft_exit(void)
{
	unregister_pernet_subsys(&xbr_nft_net_ops);
}

/*
 * Point @br's frames at its namespace's ruleset; a ruleset whose rules use
 * ct turns the bridge's conntrack on (as nf_ct_netns_get), with its GC.
 * RTNL held: at bridge creation and after every commit.
 */
void xbr_nft_bind(struct xbr *br)
{
	if (xbg_nft_attach(br->core, xbr_nft_ruleset(dev_net(br->dev))) > 0)
		mod_delayed_work(system_long_wq, &br->ct_gc_work,
				 msecs_to_jiffies(XBG_CT_GC_INTERVAL_MS));
}

/* ---- events ----------------------------------------------------------------- */

static atomic_long_t xbr_nft_events_dropped = ATOMIC_LONG_INIT(0);

long xbr_nl_nft_events_dropped(void)
{
	return atomic_long_read(&xbr_nft_events_dropped);
}

/*
 * Where a commit's events go: the `nft` group when it has listeners, and
 * the requester for the events of a request with NLM_F_ECHO (nft --echo),
 * as nfnetlink_send() reports them to ctx->portid with its sequence.
 */
struct xbr_nft_notify {
	struct net *net;
	bool listeners;
	u32 portid, seq;	/* the requester's, for echoed events */
};

/*
 * One event in an skb of @size bytes, multicast to the group (@to_group)
 * or unicast to the requester: 0, -EMSGSIZE (too small), -ENOMEM.
 */
static int xbr_nft_event_try(const struct xbr_nft_notify *nn,
			     const struct xbg_nft_event *ev, size_t size, bool to_group)
{
	struct nlattr *nest, *data;
	struct sk_buff *skb;
	char comm[TASK_COMM_LEN];
	size_t room;
	long len;
	void *hdr;

	skb = genlmsg_new(size, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put(skb, to_group ? 0 : nn->portid, to_group ? 0 : nn->seq,
			  &xbr_nl_family, 0, XBRIDGE_CMD_NFT_GET);
	if (!hdr)
		goto too_big;
	nest = nla_nest_start(skb, XBRIDGE_A_NFT_MSG);
	if (!nest || nla_put_u16(skb, XBRIDGE_NFT_TYPE, xbg_nft_event_type(ev)) ||
	    nla_put_u16(skb, XBRIDGE_NFT_FLAGS, xbg_nft_event_flags(ev)) ||
	    nla_put_u8(skb, XBRIDGE_NFT_FAMILY, NFPROTO_BRIDGE))
		goto too_big;
	/* What the nest's 16-bit length leaves for ATTRS. */
	room = skb_tailroom(skb);
	room = room > NLA_HDRLEN + 8 ? min_t(size_t, room - NLA_HDRLEN - 8, 0xff00) : 0;
	data = room ? nla_reserve(skb, XBRIDGE_NFT_ATTRS, room) : NULL;
	if (!data)
		goto too_big;
	get_task_comm(comm, current);
	len = xbg_nft_event_fill(ev, task_pid_nr(current), comm, nla_data(data), room);
	if (len < 0)
		goto too_big;
	data->nla_len = nla_attr_size(len);
	skb_trim(skb, (unsigned char *)data + nla_total_size(len) - skb->data);
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	if (to_group)
		genlmsg_multicast_netns(&xbr_nl_family, nn->net, skb, 0, XBRIDGE_NLGRP_NFT,
					GFP_KERNEL);
	else	/* a full receive buffer drops it; the requester sees ENOBUFS */
		genlmsg_unicast(nn->net, skb, nn->portid);
	return 0;
too_big:
	nlmsg_free(skb);
	return -EMSGSIZE;
}

static void xbr_nft_event_send(const struct xbr_nft_notify *nn,
			       const struct xbg_nft_event *ev, bool to_group)
{
	int err;

	err = xbr_nft_event_try(nn, ev, NLMSG_GOODSIZE, to_group);
	if (err == -EMSGSIZE)	/* a big rule or set: the largest message */
		err = xbr_nft_event_try(nn, ev, 0xffff - NLMSG_HDRLEN, to_group);
	if (err)
		atomic_long_inc(&xbr_nft_events_dropped);
}

static void xbr_nft_event(void *ctx, const struct xbg_nft_event *ev)
{
	const struct xbr_nft_notify *nn = ctx;

	if (nn->listeners)
		xbr_nft_event_send(nn, ev, true);
	if (xbg_nft_event_report(ev))
		xbr_nft_event_send(nn, ev, false);
}

/* ---- NFT_BATCH ------------------------------------------------------------ */

/* One XBRIDGE_A_NFT_MSG of a request, its fields parsed. */
struct xbr_nft_msg {
	u16 type;
	u16 flags;
	u8 family;
	const void *attrs;
	size_t len;
};

static int xbr_nft_msg_parse(const struct nlattr *nest, struct xbr_nft_msg *m,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[XBRIDGE_NFT_MAX + 1];
	int err;

	err = nla_parse_nested(tb, XBRIDGE_NFT_MAX, nest, xbridge_nft_msg_nl_policy, extack);
	if (err)
		return err;
	if (!tb[XBRIDGE_NFT_TYPE])
		return xbr_nl_set_missing(extack, nest, XBRIDGE_NFT_TYPE,
					  "an nft message needs its type");
	m->type = nla_get_u16(tb[XBRIDGE_NFT_TYPE]);
	m->flags = tb[XBRIDGE_NFT_FLAGS] ? nla_get_u16(tb[XBRIDGE_NFT_FLAGS]) : 0;
	m->family = tb[XBRIDGE_NFT_FAMILY] ? nla_get_u8(tb[XBRIDGE_NFT_FAMILY]) : 0;
	m->attrs = tb[XBRIDGE_NFT_ATTRS] ? nla_data(tb[XBRIDGE_NFT_ATTRS]) : NULL;
	m->len = tb[XBRIDGE_NFT_ATTRS] ? nla_len(tb[XBRIDGE_NFT_ATTRS]) : 0;
	return 0;
}

/*
 * The refusals of one batch, as nfnetlink collects them (nfnl_err_add):
 * each goes into one reply, sent before the error ack. A refusal that no
 * longer fits is left out of the reply; the ack still names the first.
 */
struct xbr_nft_refusals {
	struct sk_buff *skb;	/* NULL: none yet, or no memory for the reply */
	void *hdr;
	unsigned int count;
	bool no_room;
};

static void xbr_nft_refusal_add(struct xbr_nft_refusals *r, struct genl_info *info,
				unsigned int index, int err, const struct nlattr *bad,
				const char *msg)
{
	struct nlattr *nest;

	if (!r->count++)
		r->skb = xbr_nl_reply_new(info, XBRIDGE_CMD_NFT_BATCH, &r->hdr);
	if (!r->skb || r->no_room)
		return;
	nest = nla_nest_start(r->skb, XBRIDGE_A_NFT_ERROR);
	if (!nest ||
	    nla_put_u32(r->skb, XBRIDGE_NFT_ERROR_INDEX, index) ||
	    nla_put_u32(r->skb, XBRIDGE_NFT_ERROR_ERRNO, -err) ||
	    nla_put_u32(r->skb, XBRIDGE_NFT_ERROR_OFFSET,
			(const u8 *)bad - (const u8 *)info->nlhdr) ||
	    (msg && nla_put_string(r->skb, XBRIDGE_NFT_ERROR_MSG, msg))) {
		if (nest)
			nla_nest_cancel(r->skb, nest);
		r->no_room = true;
		return;
	}
	nla_nest_end(r->skb, nest);
}

/*
 * Apply every message of the request in order; each refusal goes to
 * @refused, the first also to @first_*. A refused message leaves the
 * batch as it was before it (core Ruleset::apply), so the rest are still
 * tried against the batch so far, as nfnetlink_rcv_batch tries them.
 * Returns a malformed request's error (which stops it), else 0; *@n counts
 * the messages.
 */
static int xbr_nft_apply_all(struct xbg_nft *rs, struct genl_info *info,
			     struct xbr_nft_refusals *refused, int *first_err,
			     const struct nlattr **first_bad, const char **first_msg,
			     unsigned int *n)
{
	const struct nlattr *a;
	int rem, err;

	*n = 0;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		const struct nlattr *bad;
		const void *bad_attr;
		struct xbr_nft_msg m;
		const char *msg;

		if (nla_type(a) != XBRIDGE_A_NFT_MSG)
			continue;
		(*n)++;
		err = xbr_nft_msg_parse(a, &m, info->extack);
		if (err)
			return err;	/* a malformed request, not a refusal: stop */
		err = xbg_nft_apply(rs, m.type, m.flags, m.family, m.attrs, m.len, &msg, &bad_attr);
		if (!err)
			continue;
		bad = bad_attr ? (const struct nlattr *)((const u8 *)bad_attr - NLA_HDRLEN) : a;
		xbr_nft_refusal_add(refused, info, *n - 1, err, bad, msg);
		if (!*first_err) {
			*first_err = err;
			*first_bad = bad;
			*first_msg = msg;
		}
	}
	return 0;
}

/*
 * Every message is applied and every refusal reported (above); then the
 * batch is aborted, and the error ack names the first refusal: its errno,
 * its message and the attribute at fault. A batch nothing refused is
 * validated first (nf_tables_validate); when that fails, it is aborted and
 * applied once more with each NEWRULE/NEWSETELEM validating its table, as
 * nf_tables replays it (validate state DO), so the refusals are the
 * messages Linux refuses. With NFT_CHECK (nft --check) a batch that passes
 * is aborted too.
 */
int xbr_nl_nft_batch_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbg_nft *rs = xbr_nft_ruleset(genl_info_net(info));
	struct xbr_nft_refusals refused = {};
	struct xbr_nft_notify notify;
	const struct nlattr *first_bad = NULL;
	const char *msg = NULL, *first_msg = NULL;
	int err, first_err = 0;
	unsigned int n;

	err = xbr_nft_apply_all(rs, info, &refused, &first_err, &first_bad, &first_msg, &n);
	if (!err && !first_err && n) {
		int invalid = xbg_nft_validate(rs, &msg);

		if (invalid) {
			const char *why = msg;

			xbg_nft_abort(rs);
			xbg_nft_validate_each_request(rs);
			err = xbr_nft_apply_all(rs, info, &refused, &first_err, &first_bad,
						&first_msg, &n);
			if (!err && !first_err) {
				/* no message to name: the validation's error */
				xbg_nft_abort(rs);
				return xbr_nl_core_err(info->extack, invalid, why);
			}
		}
	}
	if (err || first_err) {
		xbg_nft_abort(rs);
		if (refused.skb) {
			if (!err)
				xbr_nl_reply_send(refused.skb, refused.hdr, info, 0);
			else
				nlmsg_free(refused.skb);
		}
		if (err)
			return err;
		NL_SET_BAD_ATTR(info->extack, first_bad);
		return xbr_nl_core_err(info->extack, first_err, first_msg);
	}
	if (!n)
		return xbr_nl_set_missing(info->extack, NULL, XBRIDGE_A_NFT_MSG, "an empty batch");
	if (info->attrs[XBRIDGE_A_NFT_CHECK])
		return xbr_nl_core_err(info->extack, xbg_nft_check(rs, &msg), msg);
	/* Messages only for listeners and echoes: a commit without a
	 * monitor or nft --echo builds none. */
	notify.net = genl_info_net(info);
	notify.listeners = genl_has_listeners(&xbr_nl_family, notify.net, XBRIDGE_NLGRP_NFT);
	notify.portid = info->snd_portid;
	notify.seq = info->snd_seq;
	err = xbg_nft_commit(rs, xbr_nft_event, &notify, &msg);
	if (!err) {
		struct net_device *dev;

		for_each_netdev(genl_info_net(info), dev)
			if (xbr_is_bridge_dev(dev) && ((struct xbr *)netdev_priv(dev))->core)
				xbr_nft_bind(netdev_priv(dev));
	}
	return xbr_nl_core_err(info->extack, err, msg);
}

/* ---- NFT_GET ---------------------------------------------------------------- */

/*
 * cb->args: [0..4] the core's dump position (XBG_NFT_DUMP_POS words); [5]
 * done. Each object is one
 * message: XBRIDGE_A_NFT_MSG { TYPE (NFT_MSG_NEW*), FAMILY, ATTRS }.
 */
int xbr_nl_nft_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_nl_dump_attrs(cb);
	struct xbg_nft *rs = xbr_nft_ruleset(sock_net(skb->sk));
	char table[256] = "", name[256] = "";
	struct xbr_nft_msg req;
	u32 obj_filter = 0;
	int err = 0;

	BUILD_BUG_ON(XBG_NFT_DUMP_POS + 1 > ARRAY_SIZE(cb->args));
	if (cb->args[XBG_NFT_DUMP_POS])
		return 0;
	if (!attrs[XBRIDGE_A_NFT_MSG]) {
		NL_SET_ERR_MSG(cb->extack, "a dump names what to list (XBRIDGE_A_NFT_MSG)");
		return -EINVAL;
	}
	err = xbr_nft_msg_parse(attrs[XBRIDGE_A_NFT_MSG], &req, cb->extack);
	if (err)
		return err;
	if (req.len) {
		/* The filter: the request's NFTA_*_TABLE (attribute 1 of every
		 * nf_tables object but the table, whose name is also 1). */
		const struct nlattr *t = nla_find(req.attrs, req.len, 1);

		if (t && nla_len(t) > 1)
			nla_strscpy(table, t, sizeof(table));
		/* NFT_MSG_GETOBJ(_RESET) of one object: NFTA_OBJ_NAME (2). */
		t = nla_find(req.attrs, req.len, 2);
		if ((req.type == NFT_MSG_GETOBJ || req.type == NFT_MSG_GETOBJ_RESET) &&
		    t && nla_len(t) > 1)
			nla_strscpy(name, t, sizeof(name));
		/* ... and of one type: NFTA_OBJ_TYPE (3), nf_tables_dump_obj's filter */
		t = nla_find(req.attrs, req.len, NFTA_OBJ_TYPE);
		if ((req.type == NFT_MSG_GETOBJ || req.type == NFT_MSG_GETOBJ_RESET) &&
		    t && nla_len(t) >= sizeof(u32))
			obj_filter = ntohl(nla_get_be32(t));
	}

	rtnl_lock();
	for (;;) {
		struct nlattr *nest, *type_attr, *data;
		size_t room;
		u16 obj_type = 0;
		long len;
		void *hdr;

		hdr = xbr_nl_dump_put(skb, cb, XBRIDGE_CMD_NFT_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		nest = nla_nest_start(skb, XBRIDGE_A_NFT_MSG);
		/* the type is known once the core has written the object */
		type_attr = (struct nlattr *)skb_tail_pointer(skb);
		if (!nest || nla_put_u16(skb, XBRIDGE_NFT_TYPE, 0) ||
		    nla_put_u8(skb, XBRIDGE_NFT_FAMILY, NFPROTO_BRIDGE)) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		/* The core writes the object straight into the skb's tailroom. */
		room = skb_tailroom(skb);
		room = room > NLA_HDRLEN + 8 ? min_t(size_t, room - NLA_HDRLEN - 8, 0xfff0) : 0;
		data = room ? nla_reserve(skb, XBRIDGE_NFT_ATTRS, room) : NULL;
		if (!data) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		len = xbg_nft_dump_next(rs, req.type, table[0] ? table : NULL,
					name[0] ? name : NULL, obj_filter, (unsigned long *)cb->args,
					nla_data(data), room, &obj_type);
		if (len <= 0) {
			genlmsg_cancel(skb, hdr);
			if (len == 0)
				cb->args[XBG_NFT_DUMP_POS] = 1;
			err = (int)len;
			break;
		}
		/* Shrink the reserved attribute to what was written. */
		data->nla_len = nla_attr_size(len);
		skb_trim(skb, (unsigned char *)data + nla_total_size(len) - skb->data);
		*(u16 *)nla_data(type_attr) = obj_type;
		nla_nest_end(skb, nest);
		genlmsg_end(skb, hdr);
	}
	rtnl_unlock();
	/* A full skb ends this round; nothing fit into an empty one: no progress. */
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ? err : skb->len;
}
