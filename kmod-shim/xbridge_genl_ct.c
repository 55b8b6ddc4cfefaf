// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_ct.c - the conntrack objects of the `xbridge` family:
 * CT_GET (one connection, or a dump), CT_DEL, CT_FLUSH and CT_STATS_GET,
 * over the table a bridge has while its `conntrack` option is on.
 *
 * Doits run under RTNL with the bridge found (xbr_nl_pre_doit), which also
 * serialises them with turning conntrack off (the table cannot go away
 * under a handler). Dumps hold RTNL through xbr_nl_dump_bridges(); the
 * core walks the table under its own lock (bottom halves off) while one
 * skb is filled, and resumes from the cursor in cb->args[1], [2]. Only
 * shape is checked here; what a tuple means is the core's to check.
 *
 * Events go to the `ct` group from the core's sink, as ctnetlink's: a
 * connection confirmed (CT_GET with NLM_F_CREATE | NLM_F_EXCL, [NEW]), its
 * status or TCP state changed or its flow torn down (CT_GET without them,
 * [UPDATE]; a teardown carries XBRIDGE_CT_FLOW_TEARDOWN), removed (CT_DEL,
 * [DESTROY]). They come under the conntrack or flowtable lock, or from the
 * datapath with none, possibly in softirq: allocated atomically, only when
 * someone listens, dropped and counted when that fails (reported at module
 * unload). The sink takes no lock of the core's.
 */
#include <linux/build_bug.h>
#include <linux/netfilter/nf_conntrack_tcp.h>

#include "xbridge_genl_priv.h"

/* The glue's TCP states are TCP_CONNTRACK_*, as ctnetlink sends them. */
static_assert(TCP_CONNTRACK_SYN_SENT == 1 && TCP_CONNTRACK_ESTABLISHED == 3 &&
	      TCP_CONNTRACK_TIME_WAIT == 7 && TCP_CONNTRACK_SYN_SENT2 == 9);

/* ---- fill ------------------------------------------------------------------ */

/* @teardown: the flow-teardown cause of an event, or -1. */
static int xbr_fill_ct_ev(struct sk_buff *skb, struct xbr *br, const struct xbg_ct_entry *e,
			  int teardown)
{
	struct nlattr *nest;

	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_CT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(skb, XBRIDGE_CT_L3, e->orig.l3) ||
	    nla_put_u8(skb, XBRIDGE_CT_PROTO, e->orig.proto) ||
	    nla_put(skb, XBRIDGE_CT_SRC, sizeof(e->orig.src), e->orig.src) ||
	    nla_put(skb, XBRIDGE_CT_DST, sizeof(e->orig.dst), e->orig.dst) ||
	    nla_put_u16(skb, XBRIDGE_CT_SPORT, e->orig.sport) ||
	    nla_put_u16(skb, XBRIDGE_CT_DPORT, e->orig.dport) ||
	    nla_put_u16(skb, XBRIDGE_CT_ZONE, e->orig.zone) ||
	    nla_put(skb, XBRIDGE_CT_REPLY_SRC, sizeof(e->reply.src), e->reply.src) ||
	    nla_put(skb, XBRIDGE_CT_REPLY_DST, sizeof(e->reply.dst), e->reply.dst) ||
	    nla_put_u16(skb, XBRIDGE_CT_REPLY_SPORT, e->reply.sport) ||
	    nla_put_u16(skb, XBRIDGE_CT_REPLY_DPORT, e->reply.dport) ||
	    nla_put_u32(skb, XBRIDGE_CT_STATUS, e->status) ||
	    (e->orig.proto == IPPROTO_TCP &&
	     nla_put_u8(skb, XBRIDGE_CT_TCP_STATE, e->tcp_state)) ||
	    (e->orig.proto == IPPROTO_SCTP &&
	     nla_put_u8(skb, XBRIDGE_CT_SCTP_STATE, e->sctp_state)) ||
	    (e->orig.proto == IPPROTO_DCCP &&
	     nla_put_u8(skb, XBRIDGE_CT_DCCP_STATE, e->dccp_state)) ||
	    nla_put_u32(skb, XBRIDGE_CT_TIMEOUT, e->timeout_s) ||
	    nla_put_u32(skb, XBRIDGE_CT_MARK, e->mark) ||
	    nla_put_u32(skb, XBRIDGE_CT_USE, 1) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_ORIG_PACKETS, e->packets[0], XBRIDGE_CT_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_ORIG_BYTES, e->bytes[0], XBRIDGE_CT_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_REPLY_PACKETS, e->packets[1], XBRIDGE_CT_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_REPLY_BYTES, e->bytes[1], XBRIDGE_CT_PAD) ||
	    (teardown >= 0 && nla_put_u8(skb, XBRIDGE_CT_FLOW_TEARDOWN, teardown))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int xbr_fill_ct(struct sk_buff *skb, struct xbr *br, const struct xbg_ct_entry *e)
{
	return xbr_fill_ct_ev(skb, br, e, -1);
}

/* ---- request parsing --------------------------------------------------------- */

/*
 * A tuple request (the CT nest is required): l3, proto, src and dst are
 * required; ports default to 0 (the core refuses ports where the protocol
 * has none and checks the family, the addresses and ICMP's family), zone
 * to 0.
 */
static int xbr_ct_tuple(struct genl_info *info, struct xbg_ct_tuple *t)
{
	struct nlattr *tb[XBRIDGE_CT_MAX + 1];
	static const struct {
		unsigned int type;
		const char *msg;
	} required[] = {
		{ XBRIDGE_CT_L3, "missing the family (XBRIDGE_CT_L3)" },
		{ XBRIDGE_CT_PROTO, "missing the protocol (XBRIDGE_CT_PROTO)" },
		{ XBRIDGE_CT_SRC, "missing the source address (XBRIDGE_CT_SRC)" },
		{ XBRIDGE_CT_DST, "missing the destination address (XBRIDGE_CT_DST)" },
	};
	static const unsigned int flush_only[] = { XBRIDGE_CT_MARK, XBRIDGE_CT_MARK_MASK };
	unsigned int i;
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_CT, "missing the connection (XBRIDGE_A_CT)",
				tb, XBRIDGE_CT_MAX, xbridge_ct_nl_policy);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(required); i++) {
		if (!tb[required[i].type])
			return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_CT],
						  required[i].type, required[i].msg);
	}
	/* A mark selects connections in CT_FLUSH only. */
	for (i = 0; i < ARRAY_SIZE(flush_only); i++) {
		if (tb[flush_only[i]]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[flush_only[i]],
					    "a connection is named by its tuple and zone (a mark selects in a flush)");
			return -EINVAL;
		}
	}
	memset(t, 0, sizeof(*t));
	t->l3 = nla_get_u8(tb[XBRIDGE_CT_L3]);
	t->proto = nla_get_u8(tb[XBRIDGE_CT_PROTO]);
	nla_memcpy(t->src, tb[XBRIDGE_CT_SRC], sizeof(t->src));
	nla_memcpy(t->dst, tb[XBRIDGE_CT_DST], sizeof(t->dst));
	if (tb[XBRIDGE_CT_SPORT])
		t->sport = nla_get_u16(tb[XBRIDGE_CT_SPORT]);
	if (tb[XBRIDGE_CT_DPORT])
		t->dport = nla_get_u16(tb[XBRIDGE_CT_DPORT]);
	if (tb[XBRIDGE_CT_ZONE])
		t->zone = nla_get_u16(tb[XBRIDGE_CT_ZONE]);
	return 0;
}

/* ---- CT_GET ------------------------------------------------------------------- */

int xbr_nl_ct_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct xbg_ct_tuple t;
	struct xbg_ct_entry e;
	const char *msg = NULL;
	struct sk_buff *skb;
	void *hdr;
	int err;

	err = xbr_ct_tuple(info, &t);
	if (err)
		return err;
	err = xbg_ct_get(br->core, &t, &e, &msg);
	if (err)
		return xbr_nl_core_err(info->extack, err, msg);
	skb = xbr_nl_reply_new(info, XBRIDGE_CMD_CT_GET, &hdr);
	if (!skb)
		return -ENOMEM;
	return xbr_nl_reply_send(skb, hdr, info, xbr_fill_ct(skb, br, &e));
}

struct xbr_ct_dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct xbr *br;
	s32 zone;		/* filter, < 0: any */
};

static bool xbr_ct_dump_one(void *ctx_, const struct xbg_ct_entry *e)
{
	struct xbr_ct_dump_ctx *ctx = ctx_;
	void *hdr = xbr_nl_dump_put(ctx->skb, ctx->cb, XBRIDGE_CMD_CT_GET);

	return hdr && !xbr_nl_dump_end(ctx->skb, hdr, xbr_fill_ct(ctx->skb, ctx->br, e));
}

/* cb->args[1], [2]: the cursor in the table (bucket, entries of its chain
 * already visited), as the FDB dump's, with the same caveat: entries added
 * or removed between two rounds may shift it (a miss or a repeat). */
static int xbr_ct_dump_bridge(struct sk_buff *skb, struct netlink_callback *cb,
			      struct xbr *br, void *ctx_)
{
	struct xbr_ct_dump_ctx *ctx = ctx_;
	u32 bucket = cb->args[1], skip = cb->args[2];
	bool done;

	ctx->br = br;
	done = xbg_ct_dump_from(br->core, ctx->zone, &bucket, &skip, xbr_ct_dump_one, ctx);
	cb->args[1] = bucket;
	cb->args[2] = skip;
	return done ? 0 : -EMSGSIZE;
}

int xbr_nl_ct_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_nl_dump_attrs(cb);
	struct xbr_ct_dump_ctx ctx = { .skb = skb, .cb = cb, .zone = -1 };
	int err;

	if (attrs[XBRIDGE_A_CT]) {
		struct nlattr *tb[XBRIDGE_CT_MAX + 1];
		unsigned int i;

		err = nla_parse_nested(tb, XBRIDGE_CT_MAX, attrs[XBRIDGE_A_CT],
				       xbridge_ct_nl_policy, cb->extack);
		if (err)
			return err;
		for (i = 0; i <= XBRIDGE_CT_MAX; i++) {
			if (tb[i] && i != XBRIDGE_CT_ZONE) {
				NL_SET_ERR_MSG_ATTR(cb->extack, tb[i],
						    "a conntrack dump filters by zone only");
				return -EINVAL;
			}
		}
		if (tb[XBRIDGE_CT_ZONE])
			ctx.zone = nla_get_u16(tb[XBRIDGE_CT_ZONE]);
	}
	return xbr_nl_dump_bridges(skb, cb, true, xbr_ct_dump_bridge, &ctx);
}

/* ---- CT_DEL, CT_FLUSH ------------------------------------------------------------ */

int xbr_nl_ct_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbg_ct_tuple t;
	const char *msg = NULL;
	int err;

	err = xbr_ct_tuple(info, &t);
	if (err)
		return err;
	err = xbg_ct_del(xbr_nl_bridge(info)->core, &t, &msg);
	return xbr_nl_core_err(info->extack, err, msg);
}

int xbr_nl_ct_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_CT_MARK_MASK + 1];
	u32 mark = 0, mark_mask = U32_MAX;
	bool match_mark = false;
	s32 zone = -1;
	int err;

	/* The CT nest is optional here: no nest, every connection. */
	if (info->attrs[XBRIDGE_A_CT]) {
		err = nla_parse_nested(tb, XBRIDGE_CT_MARK_MASK, info->attrs[XBRIDGE_A_CT],
				       xbridge_ct_flush_ct_nl_policy, info->extack);
		if (err)
			return err;
		if (tb[XBRIDGE_CT_ZONE])
			zone = nla_get_u16(tb[XBRIDGE_CT_ZONE]);
		if (tb[XBRIDGE_CT_MARK_MASK] && !tb[XBRIDGE_CT_MARK]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_CT_MARK_MASK],
					    "a mark mask without a mark");
			return -EINVAL;
		}
		if (tb[XBRIDGE_CT_MARK]) {
			match_mark = true;
			mark = nla_get_u32(tb[XBRIDGE_CT_MARK]);
			if (tb[XBRIDGE_CT_MARK_MASK])
				mark_mask = nla_get_u32(tb[XBRIDGE_CT_MARK_MASK]);
		}
	}
	xbg_ct_flush(xbr_nl_bridge(info)->core, zone, match_mark, mark, mark_mask);
	return 0;
}

/* ---- CT_STATS_GET --------------------------------------------------------------- */

static int xbr_fill_ct_stats(struct sk_buff *skb, struct xbr *br, const struct xbg_ct_stats *s)
{
	struct nlattr *nest;

	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_CT_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XBRIDGE_CT_STATS_COUNT, s->count) ||
	    nla_put_u32(skb, XBRIDGE_CT_STATS_MAX_ENTRIES, s->max) ||
	    nla_put_u32(skb, XBRIDGE_CT_STATS_BUCKETS, s->buckets) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FOUND, s->found, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_INVALID, s->invalid, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_INSERT, s->insert, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_INSERT_FAILED, s->insert_failed,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_DROP, s->drop, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_EARLY_DROP, s->early_drop,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_ERROR, s->error, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_SEARCH_RESTART, s->search_restart,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_CLASH_RESOLVE, s->clash_resolve,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_CHAINTOOLONG, s->chaintoolong,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u32(skb, XBRIDGE_CT_STATS_FLOWS, s->flows) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_HITS, s->flow_hits, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_ADDS, s->flow_adds, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_ADD_FAILED, s->flow_add_failed,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_TEARDOWN_STALE, s->flow_teardown_stale,
			      XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_TEARDOWN_FIN_RST,
			      s->flow_teardown_fin_rst, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_TEARDOWN_TIMEOUT,
			      s->flow_teardown_timeout, XBRIDGE_CT_STATS_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_CT_STATS_FLOW_TEARDOWN_CONNTRACK,
			      s->flow_teardown_conntrack, XBRIDGE_CT_STATS_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int xbr_nl_ct_stats_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct xbg_ct_stats s;
	const char *msg = NULL;
	struct sk_buff *skb;
	void *hdr;
	int err;

	err = xbg_ct_stats(br->core, &s, &msg);
	if (err)
		return xbr_nl_core_err(info->extack, err, msg);
	skb = xbr_nl_reply_new(info, XBRIDGE_CMD_CT_STATS_GET, &hdr);
	if (!skb)
		return -ENOMEM;
	return xbr_nl_reply_send(skb, hdr, info, xbr_fill_ct_stats(skb, br, &s));
}

/* ---- events ------------------------------------------------------------------- */

static atomic_long_t xbr_ct_events_dropped = ATOMIC_LONG_INIT(0);

long xbr_nl_ct_events_dropped(void)
{
	return atomic_long_read(&xbr_ct_events_dropped);
}

bool xbr_genl_ct_listening(void *ctx)
{
	struct xbr *br = ctx;

	return genl_has_listeners(&xbr_nl_family, dev_net(br->dev), XBRIDGE_NLGRP_CT);
}

void xbr_genl_ct_event(void *ctx, u8 type, u8 detail, const struct xbg_ct_entry *e)
{
	struct xbr *br = ctx;
	struct net *net = dev_net(br->dev);
	struct sk_buff *skb;
	int flags = 0;
	void *hdr;

	if (!genl_has_listeners(&xbr_nl_family, net, XBRIDGE_NLGRP_CT))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		goto drop;
	if (type == XBG_CT_EV_NEW)
		flags = NLM_F_CREATE | NLM_F_EXCL;
	hdr = genlmsg_put(skb, 0, 0, &xbr_nl_family, flags,
			  type == XBG_CT_EV_DESTROY ? XBRIDGE_CMD_CT_DEL : XBRIDGE_CMD_CT_GET);
	if (!hdr || xbr_fill_ct_ev(skb, br, e, type == XBG_CT_EV_FLOW_TEARDOWN ? detail : -1)) {
		nlmsg_free(skb);
		goto drop;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&xbr_nl_family, net, skb, 0, XBRIDGE_NLGRP_CT, GFP_ATOMIC);
	return;
drop:
	atomic_long_inc(&xbr_ct_events_dropped);
}
