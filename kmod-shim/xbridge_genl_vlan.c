// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_vlan.c - the VLAN object of the `xbridge` family (`bridge
 * vlan`): VLAN_GET (dump, per port and VID), VLAN_NEW, VLAN_DEL and
 * VLAN_SET (per-VLAN state). Doits run under RTNL with the bridge found
 * (xbr_nl_pre_doit); the core checks what a VLAN request means (VID range,
 * a PVID range, flags, state). See xbridge_genl.c for locking.
 */
#include <linux/bitmap.h>
#include <linux/build_bug.h>
#include <linux/netdevice.h>
#include <uapi/linux/if_bridge.h>

#include "xbridge_genl_priv.h"

/* The uAPI's VLAN flags are BRIDGE_VLAN_INFO_*; xbr_vlan_flags_in() maps
 * them onto the glue's (the core's VlanFlag). */
static_assert(XBRIDGE_VLAN_F_PVID == BRIDGE_VLAN_INFO_PVID &&
	      XBRIDGE_VLAN_F_UNTAGGED == BRIDGE_VLAN_INFO_UNTAGGED);

static int xbr_vlan_flags_in(u16 uflags, u8 *flags)
{
	if (uflags & ~(XBRIDGE_VLAN_F_PVID | XBRIDGE_VLAN_F_UNTAGGED))
		return -EINVAL;
	*flags = (uflags & XBRIDGE_VLAN_F_PVID ? XBG_VLAN_PVID : 0) |
		 (uflags & XBRIDGE_VLAN_F_UNTAGGED ? XBG_VLAN_UNTAGGED : 0);
	return 0;
}

int xbr_nl_fill_vlan(struct sk_buff *skb, struct xbr *br, u32 port_ifindex,
		     const struct xbg_vlan_info *v)
{
	struct nlattr *nest;
	u16 flags = (v->pvid ? XBRIDGE_VLAN_F_PVID : 0) |
		    (v->untagged ? XBRIDGE_VLAN_F_UNTAGGED : 0);

	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_VLAN);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XBRIDGE_VLAN_PORT_IFINDEX, port_ifindex) ||
	    nla_put_u16(skb, XBRIDGE_VLAN_VID, v->vid) ||
	    nla_put_u16(skb, XBRIDGE_VLAN_FLAGS, flags) ||
	    nla_put_u8(skb, XBRIDGE_VLAN_STATE, v->state) ||
	    nla_put_u64_64bit(skb, XBRIDGE_VLAN_RX_PACKETS, v->rx_packets, XBRIDGE_VLAN_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_VLAN_RX_BYTES, v->rx_bytes, XBRIDGE_VLAN_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_VLAN_TX_PACKETS, v->tx_packets, XBRIDGE_VLAN_PAD) ||
	    nla_put_u64_64bit(skb, XBRIDGE_VLAN_TX_BYTES, v->tx_bytes, XBRIDGE_VLAN_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* ---- dump -------------------------------------------------------------------- */

struct xbr_vlan_dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct xbr *br;
	u32 port_ifindex;
	u32 only_port;		/* filter, 0: any */
};

static bool xbr_vlan_dump_one(void *ctx_, const struct xbg_vlan_info *v)
{
	struct xbr_vlan_dump_ctx *ctx = ctx_;
	void *hdr = xbr_nl_dump_put(ctx->skb, ctx->cb, XBRIDGE_CMD_VLAN_GET);

	return hdr && !xbr_nl_dump_end(ctx->skb, hdr,
				       xbr_nl_fill_vlan(ctx->skb, ctx->br, ctx->port_ifindex, v));
}

/*
 * Dump one port's VLANs from cb->args[2] on. Returns true when the port is
 * done (or filtered out), false when the skb filled up (cb->args[2] then
 * holds the VID to resume at).
 */
static bool xbr_vlan_dump_port(struct xbr_vlan_dump_ctx *ctx, struct xbg_port *port,
			       u32 ifindex)
{
	u16 resume;

	if (ctx->only_port && ctx->only_port != ifindex)
		return true;
	ctx->port_ifindex = ifindex;
	resume = xbg_vlan_dump_from(port, ctx->cb->args[2], xbr_vlan_dump_one, ctx);
	if (resume) {
		ctx->cb->args[2] = resume;
		return false;
	}
	ctx->cb->args[2] = 0;
	return true;
}

/* cb->args: [1] ports done (0: the bridge itself), [2] next VID. */
static int xbr_vlan_dump_bridge(struct sk_buff *skb, struct netlink_callback *cb,
				struct xbr *br, void *ctx_)
{
	struct xbr_vlan_dump_ctx *ctx = ctx_;
	struct xbr_port *p;
	long pidx = 1;

	ctx->br = br;
	if (cb->args[1] == 0) {
		if (!xbr_vlan_dump_port(ctx, xbg_host_port(br->core), br->dev->ifindex))
			return -EMSGSIZE;
		cb->args[1] = 1;
	}
	list_for_each_entry(p, &br->ports, list) {
		if (pidx++ < cb->args[1])
			continue;
		if (!xbr_vlan_dump_port(ctx, p->core, p->dev->ifindex))
			return -EMSGSIZE;
		cb->args[1] = pidx;
	}
	return 0;
}

int xbr_nl_vlan_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_nl_dump_attrs(cb);
	struct xbr_vlan_dump_ctx ctx = { .skb = skb, .cb = cb };
	int err;

	if (attrs[XBRIDGE_A_VLAN]) {
		struct nlattr *tb[XBRIDGE_VLAN_PORT_IFINDEX + 1];

		err = nla_parse_nested(tb, XBRIDGE_VLAN_PORT_IFINDEX, attrs[XBRIDGE_A_VLAN],
				       xbridge_vlan_get_vlan_nl_policy, cb->extack);
		if (err)
			return err;
		if (tb[XBRIDGE_VLAN_PORT_IFINDEX])
			ctx.only_port = nla_get_u32(tb[XBRIDGE_VLAN_PORT_IFINDEX]);
	}
	return xbr_nl_dump_bridges(skb, cb, true, xbr_vlan_dump_bridge, &ctx);
}

/* ---- changes --------------------------------------------------------------- */

struct xbr_vlan_req {
	struct nlattr *tb[XBRIDGE_VLAN_MAX + 1];
	struct xbr *br;
	struct xbg_port *port;
	u32 port_ifindex;
	u16 start, end;
};

/* Split a VLAN request and find its port. */
static int xbr_vlan_req(struct genl_info *info, struct xbr_vlan_req *r)
{
	struct nlattr **tb = r->tb;
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_VLAN, "missing the VLAN (XBRIDGE_A_VLAN)",
				tb, XBRIDGE_VLAN_MAX, xbridge_vlan_nl_policy);
	if (err)
		return err;
	if (!tb[XBRIDGE_VLAN_PORT_IFINDEX])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN],
					  XBRIDGE_VLAN_PORT_IFINDEX,
					  "missing the port (XBRIDGE_VLAN_PORT_IFINDEX)");
	if (!tb[XBRIDGE_VLAN_VID])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN],
					  XBRIDGE_VLAN_VID, "missing the VLAN ID (XBRIDGE_VLAN_VID)");
	r->start = nla_get_u16(tb[XBRIDGE_VLAN_VID]);
	r->end = tb[XBRIDGE_VLAN_VID_END] ? nla_get_u16(tb[XBRIDGE_VLAN_VID_END]) : r->start;
	/* As br_vlan_valid_range: a range must have at least two VIDs. */
	if (tb[XBRIDGE_VLAN_VID_END] && r->end <= r->start) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_VLAN_VID_END],
				    "VLAN range end must be above its start");
		return -EINVAL;
	}
	r->br = xbr_nl_bridge(info);
	r->port = xbr_nl_port_by_attr(r->br, tb[XBRIDGE_VLAN_PORT_IFINDEX], true, NULL,
				      info->extack);
	if (IS_ERR(r->port))
		return PTR_ERR(r->port);
	r->port_ifindex = nla_get_u32(tb[XBRIDGE_VLAN_PORT_IFINDEX]);
	return 0;
}

/*
 * Notify the VIDs of the range the port has (after an add or a state
 * change), or, for a delete, those of @gone: the VIDs it had before, as
 * br_vlan_info's deletes report only what existed.
 */
static void xbr_vlan_notify_range(struct xbr_vlan_req *r, u8 cmd, const unsigned long *gone)
{
	struct xbg_vlan_info v;
	unsigned int vid;

	if (!xbr_nl_has_listeners(dev_net(r->br->dev)))
		return;
	for (vid = r->start; vid <= r->end; vid++) {
		if (cmd == XBRIDGE_CMD_VLAN_DEL) {
			if (!test_bit(vid - r->start, gone))
				continue;
			memset(&v, 0, sizeof(v));
			v.vid = vid;
		} else if (!xbg_vlan_get(r->port, vid, &v)) {
			continue;
		}
		xbr_nl_notify_vlan(r->br, r->port_ifindex, &v, cmd);
	}
}

int xbr_nl_vlan_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr_vlan_req r;
	const char *msg = NULL;
	u8 flags = 0;
	u16 uflags = 0;
	int err;

	err = xbr_vlan_req(info, &r);
	if (err)
		return err;
	if (r.tb[XBRIDGE_VLAN_STATE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, r.tb[XBRIDGE_VLAN_STATE],
				    "VLAN state is changed with VLAN_SET");
		return -EINVAL;
	}
	if (r.tb[XBRIDGE_VLAN_FLAGS])
		uflags = nla_get_u16(r.tb[XBRIDGE_VLAN_FLAGS]);
	if (xbr_vlan_flags_in(uflags, &flags)) {
		NL_SET_ERR_MSG_ATTR(info->extack, r.tb[XBRIDGE_VLAN_FLAGS],
				    "unknown VLAN flag (only PVID and UNTAGGED)");
		return -EINVAL;
	}
	/* The core refuses a PVID range ("a VLAN range cannot be the PVID"). */
	err = xbg_vlan_add(r.br->core, r.port, r.start, r.end, flags, &msg);
	xbr_nl_core_err(info->extack, err, msg);
	if (!err)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_GET, NULL);
	return err;
}

int xbr_nl_vlan_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbg_vlan_info v;
	struct xbr_vlan_req r;
	const char *msg = NULL;
	unsigned long *gone = NULL;
	unsigned int vid;
	int err;

	err = xbr_vlan_req(info, &r);
	if (err)
		return err;
	if (r.tb[XBRIDGE_VLAN_FLAGS] || r.tb[XBRIDGE_VLAN_STATE]) {
		NL_SET_ERR_MSG(info->extack, "VLAN delete takes only PORT_IFINDEX, VID and VID_END");
		return -EINVAL;
	}
	/* Which VIDs of the range exist, for the notifications (RTNL holds them). */
	if (xbr_nl_has_listeners(dev_net(r.br->dev))) {
		gone = bitmap_zalloc(r.end - r.start + 1, GFP_KERNEL);
		if (!gone)
			return -ENOMEM;
		for (vid = r.start; vid <= r.end; vid++)
			if (xbg_vlan_get(r.port, vid, &v))
				__set_bit(vid - r.start, gone);
	}
	err = xbg_vlan_del(r.br->core, r.port, r.start, r.end, &msg);
	xbr_nl_core_err(info->extack, err, msg);
	if (!err && gone)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_DEL, gone);
	bitmap_free(gone);
	return err;
}

int xbr_nl_vlan_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbg_vlan_info v;
	struct xbr_vlan_req r;
	const char *msg = NULL;
	unsigned int vid;
	u8 state;
	int err;

	err = xbr_vlan_req(info, &r);
	if (err)
		return err;
	if (r.tb[XBRIDGE_VLAN_FLAGS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, r.tb[XBRIDGE_VLAN_FLAGS],
				    "VLAN flags are changed with VLAN_NEW");
		return -EINVAL;
	}
	if (!r.tb[XBRIDGE_VLAN_STATE])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN],
					  XBRIDGE_VLAN_STATE,
					  "missing the VLAN state (XBRIDGE_VLAN_STATE)");
	state = nla_get_u8(r.tb[XBRIDGE_VLAN_STATE]);
	/* All or nothing: every VID of the range must exist first. */
	for (vid = r.start; vid <= r.end; vid++) {
		if (!xbg_vlan_get(r.port, vid, &v)) {
			NL_SET_ERR_MSG(info->extack, "VLAN not configured on the port");
			return -ENOENT;
		}
	}
	for (vid = r.start; vid <= r.end && !err; vid++) {
		err = xbg_vlan_set_state(r.br->core, r.port, vid, state, &msg);
		xbr_nl_core_err(info->extack, err, msg);
	}
	if (!err)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_GET, NULL);
	return err;
}
