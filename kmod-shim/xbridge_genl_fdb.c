// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_fdb.c - the FDB object of the `xbridge` family (`bridge
 * fdb`): FDB_GET (one entry, or a resumable dump), FDB_NEW, FDB_DEL and
 * FDB_FLUSH. Doits run under RTNL with the bridge found (xbr_nl_pre_doit);
 * the dump walks the core's FDB under its own lock (bh disabled) and only
 * fills the skb it was given. See xbridge_genl.c for validation and locking.
 */
#include <linux/build_bug.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <uapi/linux/neighbour.h>

#include "xbridge_genl_priv.h"

/* ---- the uAPI <-> glue vocabulary of FDB entries, in one place ----------- */

/* The uAPI's states are ndm_state's, as the bridge's RTM_NEWNEIGH. */
static_assert(XBRIDGE_FDB_STATE_REACHABLE == NUD_REACHABLE &&
	      XBRIDGE_FDB_STATE_NOARP == NUD_NOARP &&
	      XBRIDGE_FDB_STATE_PERMANENT == NUD_PERMANENT);
/* Notifications carry the glue's (the core's) reason unmapped. */
static_assert((int)XBRIDGE_FDB_REASON_LEARNED == (int)XBG_FDB_R_LEARNED &&
	      (int)XBRIDGE_FDB_REASON_USER == (int)XBG_FDB_R_USER &&
	      (int)XBRIDGE_FDB_REASON_AGED == (int)XBG_FDB_R_AGED &&
	      (int)XBRIDGE_FDB_REASON_FLUSHED == (int)XBG_FDB_R_FLUSHED &&
	      (int)XBRIDGE_FDB_REASON_PORT_REMOVED == (int)XBG_FDB_R_PORT_REMOVED &&
	      (int)XBRIDGE_FDB_REASON_VLAN_REMOVED == (int)XBG_FDB_R_VLAN_REMOVED);

static u16 xbr_fdb_state(u16 flags)
{
	if (flags & XBG_FDB_LOCAL)
		return XBRIDGE_FDB_STATE_PERMANENT;
	if (flags & XBG_FDB_STATIC)
		return XBRIDGE_FDB_STATE_NOARP;
	return XBRIDGE_FDB_STATE_REACHABLE;
}

static const struct {
	u32 uflag;
	u16 flag;
} xbr_fdb_flag_map[] = {
	{ XBRIDGE_FDB_F_STICKY, XBG_FDB_STICKY },
	{ XBRIDGE_FDB_F_EXT_LEARN, XBG_FDB_EXT_LEARN },
	{ XBRIDGE_FDB_F_LOCKED, XBG_FDB_LOCKED },
	{ XBRIDGE_FDB_F_ADDED_BY_USER, XBG_FDB_ADDED_BY_USER },
};

static u32 xbr_fdb_uflags(u16 flags)
{
	unsigned int i;
	u32 f = 0;

	for (i = 0; i < ARRAY_SIZE(xbr_fdb_flag_map); i++)
		if (flags & xbr_fdb_flag_map[i].flag)
			f |= xbr_fdb_flag_map[i].uflag;
	return f;
}

/* ---- messages ------------------------------------------------------------ */

int xbr_nl_fill_fdb(struct sk_buff *skb, struct xbr *br, const struct xbg_fdb_entry *e,
		    u32 now, int reason)
{
	struct nlattr *nest;

	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_FDB);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, XBRIDGE_FDB_MAC, ETH_ALEN, e->mac) ||
	    (e->vid && nla_put_u16(skb, XBRIDGE_FDB_VLAN, e->vid)) ||
	    nla_put_u32(skb, XBRIDGE_FDB_PORT_IFINDEX,
			xbr_nl_port_ifindex(br, e->is_host, e->port_priv)) ||
	    nla_put_u16(skb, XBRIDGE_FDB_STATE, xbr_fdb_state(e->flags)) ||
	    nla_put_u32(skb, XBRIDGE_FDB_FLAGS, xbr_fdb_uflags(e->flags)))
		goto cancel;
	if (now && (nla_put_u32(skb, XBRIDGE_FDB_USED, (u32)(now - e->used) / 1000) ||
		    nla_put_u32(skb, XBRIDGE_FDB_UPDATED, (u32)(now - e->updated) / 1000)))
		goto cancel;
	if (reason >= 0 && nla_put_u8(skb, XBRIDGE_FDB_REASON, reason))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The most xbr_nl_fill_fdb() writes, so an event needs no page-sized skb. */
size_t xbr_nl_fdb_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* XBRIDGE_A_IFINDEX */
	       nla_total_size(0) +			/* XBRIDGE_A_FDB */
	       nla_total_size(ETH_ALEN) +		/* MAC */
	       nla_total_size(sizeof(u16)) * 2 +	/* VLAN, STATE */
	       nla_total_size(sizeof(u32)) * 4 +	/* PORT_IFINDEX, FLAGS, USED, UPDATED */
	       nla_total_size(sizeof(u8));		/* REASON */
}

/* ---- requests -------------------------------------------------------------- */

/* Split XBRIDGE_A_FDB; the MAC is required. */
static int xbr_fdb_parse(struct genl_info *info, struct nlattr **tb)
{
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_FDB, "missing the FDB entry (XBRIDGE_A_FDB)",
				tb, XBRIDGE_FDB_MAX, xbridge_fdb_nl_policy);
	if (err)
		return err;
	if (!tb[XBRIDGE_FDB_MAC])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB], XBRIDGE_FDB_MAC,
					  "missing the MAC address (XBRIDGE_FDB_MAC)");
	return 0;
}

/* The optional port of an FDB request (NULL: none given). */
static struct xbg_port *xbr_fdb_port(struct genl_info *info, struct nlattr **tb)
{
	if (!tb[XBRIDGE_FDB_PORT_IFINDEX])
		return NULL;
	return xbr_nl_port_by_attr(xbr_nl_bridge(info), tb[XBRIDGE_FDB_PORT_IFINDEX], true, NULL,
				   info->extack);
}

/*
 * The VLAN of an add or delete: -1 when absent (VID 0 and every VLAN of the
 * port, as rtnetlink). An explicit VLAN 0 is refused, as rtnetlink's
 * fdb_vid_parse does for `bridge fdb add|del ... vlan 0`: the entry without
 * VLAN is reached by leaving the attribute out.
 */
static int xbr_fdb_vid(struct genl_info *info, struct nlattr **tb, s32 *vid)
{
	*vid = -1;
	if (!tb[XBRIDGE_FDB_VLAN])
		return 0;
	*vid = nla_get_u16(tb[XBRIDGE_FDB_VLAN]);
	if (*vid)
		return 0;
	NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_FDB_VLAN],
			    "invalid VLAN ID 0 (leave XBRIDGE_FDB_VLAN out for the entry without VLAN)");
	return -EINVAL;
}

int xbr_nl_fdb_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	struct xbg_fdb_entry e;
	struct sk_buff *skb;
	void *hdr;
	u16 vid;
	int err;

	err = xbr_fdb_parse(info, tb);
	if (err)
		return err;
	if (tb[XBRIDGE_FDB_STATE] || tb[XBRIDGE_FDB_FLAGS] || tb[XBRIDGE_FDB_MODE]) {
		NL_SET_ERR_MSG(info->extack, "FDB get takes only MAC, VLAN and PORT_IFINDEX");
		return -EINVAL;
	}
	vid = tb[XBRIDGE_FDB_VLAN] ? nla_get_u16(tb[XBRIDGE_FDB_VLAN]) : 0;
	err = xbg_fdb_get(br->core, nla_data(tb[XBRIDGE_FDB_MAC]), vid, &e);
	if (!err && tb[XBRIDGE_FDB_PORT_IFINDEX] &&
	    nla_get_u32(tb[XBRIDGE_FDB_PORT_IFINDEX]) !=
	    xbr_nl_port_ifindex(br, e.is_host, e.port_priv))
		err = -ENOENT;
	if (err) {
		NL_SET_ERR_MSG(info->extack, "FDB entry not found");
		return err;
	}
	skb = xbr_nl_reply_new(info, XBRIDGE_CMD_FDB_GET, &hdr);
	if (!skb)
		return -ENOMEM;
	return xbr_nl_reply_send(skb, hdr, info,
				 xbr_nl_fill_fdb(skb, br, &e, xbg_now_ticks() ? : 1, -1));
}

struct xbr_fdb_dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct xbr *br;
	u32 now;
	u32 port_ifindex;	/* filter, 0: any */
};

static bool xbr_fdb_dump_one(void *ctx_, const struct xbg_fdb_entry *e)
{
	struct xbr_fdb_dump_ctx *ctx = ctx_;
	void *hdr;

	if (ctx->port_ifindex &&
	    xbr_nl_port_ifindex(ctx->br, e->is_host, e->port_priv) != ctx->port_ifindex)
		return true;
	hdr = xbr_nl_dump_put(ctx->skb, ctx->cb, XBRIDGE_CMD_FDB_GET);
	return hdr && !xbr_nl_dump_end(ctx->skb, hdr,
				       xbr_nl_fill_fdb(ctx->skb, ctx->br, e, ctx->now, -1));
}

/*
 * cb->args[1], [2]: the position in the bridge's FDB (the hash of the first
 * entry not yet sent, low and high 32 bits), so that each round resumes
 * where the last one stopped instead of walking the table from the start.
 * The position survives entries added or deleted and table resizes
 * between rounds: no entry is sent twice, none that stays is missed.
 */
static int xbr_fdb_dump_bridge(struct sk_buff *skb, struct netlink_callback *cb,
			       struct xbr *br, void *ctx_)
{
	struct xbr_fdb_dump_ctx *ctx = ctx_;
	u64 pos = (u64)(u32)cb->args[2] << 32 | (u32)cb->args[1];
	bool done;

	ctx->br = br;
	done = xbg_fdb_dump_from(br->core, &pos, xbr_fdb_dump_one, ctx);
	cb->args[1] = (u32)pos;
	cb->args[2] = (u32)(pos >> 32);
	return done ? 0 : -EMSGSIZE;
}

int xbr_nl_fdb_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_nl_dump_attrs(cb);
	struct xbr_fdb_dump_ctx ctx = { .skb = skb, .cb = cb };
	int err;

	if (attrs[XBRIDGE_A_FDB]) {
		struct nlattr *tb[XBRIDGE_FDB_MAX + 1];

		err = nla_parse_nested(tb, XBRIDGE_FDB_MAX, attrs[XBRIDGE_A_FDB],
				       xbridge_fdb_nl_policy, cb->extack);
		if (err)
			return err;
		if (tb[XBRIDGE_FDB_PORT_IFINDEX])
			ctx.port_ifindex = nla_get_u32(tb[XBRIDGE_FDB_PORT_IFINDEX]);
	}
	ctx.now = xbg_now_ticks();
	return xbr_nl_dump_bridges(skb, cb, true, xbr_fdb_dump_bridge, &ctx);
}

/* Map the uAPI FDB flags a request may set onto the glue's, or -EINVAL for
 * unknown and read-only ones (LOCKED, ADDED_BY_USER). */
static int xbr_fdb_flags_in(u32 uflags, u16 *flags)
{
	const u32 settable = XBRIDGE_FDB_F_STICKY | XBRIDGE_FDB_F_EXT_LEARN;
	unsigned int i;

	if (uflags & ~settable)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(xbr_fdb_flag_map); i++)
		if (uflags & xbr_fdb_flag_map[i].uflag)
			*flags |= xbr_fdb_flag_map[i].flag;
	return 0;
}

int xbr_nl_fdb_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	u16 state = XBRIDGE_FDB_STATE_PERMANENT, flags = 0;
	const char *msg = NULL;
	bool create;
	struct xbg_port *port;
	const u8 *mac;
	s32 vid;
	int err;

	err = xbr_fdb_parse(info, tb);
	if (err)
		return err;
	mac = nla_data(tb[XBRIDGE_FDB_MAC]);
	if (is_zero_ether_addr(mac)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_FDB_MAC],
				    "MAC address must not be zero");
		return -EINVAL;
	}
	if (!tb[XBRIDGE_FDB_PORT_IFINDEX])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB],
					  XBRIDGE_FDB_PORT_IFINDEX,
					  "missing the port (XBRIDGE_FDB_PORT_IFINDEX)");
	if (tb[XBRIDGE_FDB_STATE])
		state = nla_get_u16(tb[XBRIDGE_FDB_STATE]);
	switch (state) {
	case XBRIDGE_FDB_STATE_PERMANENT:
		flags = XBG_FDB_LOCAL;
		break;
	case XBRIDGE_FDB_STATE_NOARP:
		flags = XBG_FDB_STATIC;
		break;
	case XBRIDGE_FDB_STATE_REACHABLE:
		break;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_FDB_STATE],
				    "FDB state must be PERMANENT, NOARP (static) or REACHABLE (dynamic)");
		return -EINVAL;
	}
	if (tb[XBRIDGE_FDB_FLAGS] && xbr_fdb_flags_in(nla_get_u32(tb[XBRIDGE_FDB_FLAGS]), &flags)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_FDB_FLAGS],
				    "unknown or read-only FDB flag (only STICKY and EXT_LEARN)");
		return -EINVAL;
	}
	/* The core refuses a sticky permanent entry, unless EXT_LEARN makes
	 * the state and sticky words moot (br_fdb_external_learn_add). */
	err = xbr_fdb_vid(info, tb, &vid);
	if (err)
		return err;
	port = xbr_fdb_port(info, tb);
	if (IS_ERR(port))
		return PTR_ERR(port);
	/* The intent iproute2 puts in RTM_NEWNEIGH's nlmsg flags: create
	 * (NLM_F_EXCL) fails on an existing entry; replace and append (the
	 * default) overwrite it or create it. */
	create = tb[XBRIDGE_FDB_MODE] &&
		 nla_get_u8(tb[XBRIDGE_FDB_MODE]) == XBRIDGE_FDB_MODE_CREATE;
	err = xbg_fdb_add(br->core, port, mac, vid, flags, create, &msg);
	return xbr_nl_core_err(info->extack, err, msg);
}

int xbr_nl_fdb_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	const char *msg = NULL;
	struct xbg_port *port;
	s32 vid;
	int err;

	err = xbr_fdb_parse(info, tb);
	if (err)
		return err;
	if (tb[XBRIDGE_FDB_STATE] || tb[XBRIDGE_FDB_FLAGS] || tb[XBRIDGE_FDB_MODE]) {
		NL_SET_ERR_MSG(info->extack, "FDB delete takes only MAC, VLAN and PORT_IFINDEX");
		return -EINVAL;
	}
	err = xbr_fdb_vid(info, tb, &vid);
	if (err)
		return err;
	if (vid < 0 && !tb[XBRIDGE_FDB_PORT_IFINDEX])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB],
					  XBRIDGE_FDB_PORT_IFINDEX,
					  "without a VLAN, FDB delete needs the port (XBRIDGE_FDB_PORT_IFINDEX)");
	port = xbr_fdb_port(info, tb);
	if (IS_ERR(port))
		return PTR_ERR(port);
	err = xbg_fdb_del(br->core, port, nla_data(tb[XBRIDGE_FDB_MAC]), vid, &msg);
	return xbr_nl_core_err(info->extack, err, msg);
}

/* NUD state bits -> glue flags: PERMANENT is local, NOARP is static. */
static int xbr_flush_state(u16 state, u16 mask, u16 *set, u16 *clear)
{
	const u16 known = XBRIDGE_FDB_STATE_PERMANENT | XBRIDGE_FDB_STATE_NOARP |
			  XBRIDGE_FDB_STATE_REACHABLE;

	if ((state | mask) & ~known)
		return -EINVAL;
	if (mask & XBRIDGE_FDB_STATE_PERMANENT)
		*(state & XBRIDGE_FDB_STATE_PERMANENT ? set : clear) |= XBG_FDB_LOCAL;
	if (mask & XBRIDGE_FDB_STATE_NOARP)
		*(state & XBRIDGE_FDB_STATE_NOARP ? set : clear) |= XBG_FDB_STATIC;
	/* REACHABLE alone (dynamic): neither static nor local. */
	if ((mask & XBRIDGE_FDB_STATE_REACHABLE) && (state & XBRIDGE_FDB_STATE_REACHABLE))
		*clear |= XBG_FDB_STATIC | XBG_FDB_LOCAL;
	if (*set & *clear)
		return -EINVAL;
	return 0;
}

static int xbr_flush_flags(u32 flags, u32 mask, u16 *set, u16 *clear)
{
	u32 known = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xbr_fdb_flag_map); i++) {
		known |= xbr_fdb_flag_map[i].uflag;
		if (mask & xbr_fdb_flag_map[i].uflag)
			*(flags & xbr_fdb_flag_map[i].uflag ? set : clear) |= xbr_fdb_flag_map[i].flag;
	}
	if ((flags | mask) & ~known)
		return -EINVAL;
	return 0;
}

int xbr_nl_fdb_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_FLUSH_MAX + 1] = {};
	struct xbg_port *port = NULL;
	u16 set = 0, clear = 0;
	s32 vid = -1;
	int err;

	if (info->attrs[XBRIDGE_A_FLUSH]) {
		err = nla_parse_nested(tb, XBRIDGE_FLUSH_MAX, info->attrs[XBRIDGE_A_FLUSH],
				       xbridge_flush_nl_policy, info->extack);
		if (err)
			return err;
	}
	if (tb[XBRIDGE_FLUSH_STATE] || tb[XBRIDGE_FLUSH_STATE_MASK]) {
		u16 state = tb[XBRIDGE_FLUSH_STATE] ? nla_get_u16(tb[XBRIDGE_FLUSH_STATE]) : 0;
		u16 mask = tb[XBRIDGE_FLUSH_STATE_MASK] ?
			   nla_get_u16(tb[XBRIDGE_FLUSH_STATE_MASK]) : state;

		if (xbr_flush_state(state, mask, &set, &clear)) {
			NL_SET_ERR_MSG(info->extack,
				       "flush state must combine PERMANENT, NOARP and REACHABLE consistently");
			return -EINVAL;
		}
	}
	if (tb[XBRIDGE_FLUSH_FLAGS] || tb[XBRIDGE_FLUSH_FLAGS_MASK]) {
		u32 flags = tb[XBRIDGE_FLUSH_FLAGS] ? nla_get_u32(tb[XBRIDGE_FLUSH_FLAGS]) : 0;
		u32 mask = tb[XBRIDGE_FLUSH_FLAGS_MASK] ?
			   nla_get_u32(tb[XBRIDGE_FLUSH_FLAGS_MASK]) : flags;

		if (xbr_flush_flags(flags, mask, &set, &clear)) {
			NL_SET_ERR_MSG(info->extack, "unknown FDB flag in the flush filter");
			return -EINVAL;
		}
	}
	if (tb[XBRIDGE_FLUSH_VLAN])
		vid = nla_get_u16(tb[XBRIDGE_FLUSH_VLAN]);
	if (tb[XBRIDGE_FLUSH_PORT_IFINDEX]) {
		port = xbr_nl_port_by_attr(br, tb[XBRIDGE_FLUSH_PORT_IFINDEX], true, NULL,
					   info->extack);
		if (IS_ERR(port))
			return PTR_ERR(port);
	}
	xbg_fdb_flush(br->core, port, vid, set, clear);
	return 0;
}
