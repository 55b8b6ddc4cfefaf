// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_link.c - the bridge and port objects of the `xbridge`
 * family: BRIDGE_GET/SET (`ip link ... type bridge` options) and
 * PORT_GET/SET (`bridge link`). Doits run under RTNL with the bridge found
 * (xbr_nl_pre_doit); see xbridge_genl.c for validation and locking.
 */
#include <linux/build_bug.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>

#include "xbridge_genl_priv.h"

/* ---- BRIDGE ----------------------------------------------------------------- */

static int xbr_fill_bridge(struct sk_buff *skb, struct xbr *br)
{
	struct xbg_bridge_opts o;
	struct nlattr *nest;

	xbg_bridge_get(br->core, &o);
	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_BRIDGE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, XBRIDGE_BR_IFNAME, br->dev->name) ||
	    nla_put(skb, XBRIDGE_BR_ADDRESS, ETH_ALEN, br->dev->dev_addr) ||
	    nla_put_u8(skb, XBRIDGE_BR_VLAN_FILTERING, o.vlan_filtering) ||
	    nla_put_u16(skb, XBRIDGE_BR_VLAN_PROTOCOL, o.vlan_protocol) ||
	    nla_put_u16(skb, XBRIDGE_BR_DEFAULT_PVID, o.default_pvid) ||
	    nla_put_u32(skb, XBRIDGE_BR_AGEING_TIME, o.ageing_ms / 10) ||
	    nla_put_u32(skb, XBRIDGE_BR_FDB_MAX_LEARNED, o.fdb_max_learned) ||
	    nla_put_u16(skb, XBRIDGE_BR_GROUP_FWD_MASK, o.group_fwd_mask) ||
	    nla_put_u8(skb, XBRIDGE_BR_CONNTRACK, o.conntrack) ||
	    nla_put_u32(skb, XBRIDGE_BR_CONNTRACK_MAX, o.conntrack_max) ||
	    nla_put_u8(skb, XBRIDGE_BR_VLAN_STATS_ENABLED, o.vlan_stats) ||
	    nla_put_u8(skb, XBRIDGE_BR_VLAN_STATS_PER_PORT, o.vlan_stats_per_port) ||
	    nla_put_u32(skb, XBRIDGE_BR_FDB_N_LEARNED, o.fdb_n_learned) ||
	    nla_put_u32(skb, XBRIDGE_BR_FDB_N_ENTRIES, o.fdb_n_entries)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

int xbr_nl_bridge_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct sk_buff *skb;
	void *hdr;

	skb = xbr_nl_reply_new(info, XBRIDGE_CMD_BRIDGE_GET, &hdr);
	if (!skb)
		return -ENOMEM;
	return xbr_nl_reply_send(skb, hdr, info, xbr_fill_bridge(skb, xbr_nl_bridge(info)));
}

static int xbr_bridge_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			       struct xbr *br, void *ctx)
{
	void *hdr = xbr_nl_dump_put(skb, cb, XBRIDGE_CMD_BRIDGE_GET);

	if (!hdr)
		return -EMSGSIZE;
	return xbr_nl_dump_end(skb, hdr, xbr_fill_bridge(skb, br));
}

/* Every xbridge of the namespace (XBRIDGE_A_IFINDEX does not filter). */
int xbr_nl_bridge_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return xbr_nl_dump_bridges(skb, cb, false, xbr_bridge_dump_one, NULL);
}

int xbr_nl_bridge_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_BR_MAX + 1];
	struct xbg_bridge_opts o = {};
	const char *msg = NULL;
	u32 mask = 0;
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_BRIDGE,
				"missing the bridge options (XBRIDGE_A_BRIDGE)",
				tb, XBRIDGE_BR_MAX, xbridge_bridge_nl_policy);
	if (err)
		return err;
	if (tb[XBRIDGE_BR_VLAN_FILTERING]) {
		o.vlan_filtering = nla_get_u8(tb[XBRIDGE_BR_VLAN_FILTERING]);
		mask |= XBG_OPT_VLAN_FILTERING;
	}
	if (tb[XBRIDGE_BR_VLAN_PROTOCOL]) {
		o.vlan_protocol = nla_get_u16(tb[XBRIDGE_BR_VLAN_PROTOCOL]);
		mask |= XBG_OPT_VLAN_PROTOCOL;
	}
	if (tb[XBRIDGE_BR_DEFAULT_PVID]) {
		o.default_pvid = nla_get_u16(tb[XBRIDGE_BR_DEFAULT_PVID]);
		mask |= XBG_OPT_DEFAULT_PVID;
	}
	if (tb[XBRIDGE_BR_AGEING_TIME]) {
		o.ageing_ms = nla_get_u32(tb[XBRIDGE_BR_AGEING_TIME]) * 10;
		mask |= XBG_OPT_AGEING;
	}
	if (tb[XBRIDGE_BR_FDB_MAX_LEARNED]) {
		o.fdb_max_learned = nla_get_u32(tb[XBRIDGE_BR_FDB_MAX_LEARNED]);
		mask |= XBG_OPT_FDB_MAX_LEARNED;
	}
	if (tb[XBRIDGE_BR_GROUP_FWD_MASK]) {
		o.group_fwd_mask = nla_get_u16(tb[XBRIDGE_BR_GROUP_FWD_MASK]);
		mask |= XBG_OPT_GROUP_FWD_MASK;
	}
	if (tb[XBRIDGE_BR_CONNTRACK]) {
		o.conntrack = nla_get_u8(tb[XBRIDGE_BR_CONNTRACK]);
		mask |= XBG_OPT_CONNTRACK;
	}
	if (tb[XBRIDGE_BR_CONNTRACK_MAX]) {
		o.conntrack_max = nla_get_u32(tb[XBRIDGE_BR_CONNTRACK_MAX]);
		mask |= XBG_OPT_CONNTRACK_MAX;
	}
	if (tb[XBRIDGE_BR_VLAN_STATS_ENABLED]) {
		o.vlan_stats = nla_get_u8(tb[XBRIDGE_BR_VLAN_STATS_ENABLED]);
		mask |= XBG_OPT_VLAN_STATS;
	}
	if (tb[XBRIDGE_BR_VLAN_STATS_PER_PORT]) {
		o.vlan_stats_per_port = nla_get_u8(tb[XBRIDGE_BR_VLAN_STATS_PER_PORT]);
		mask |= XBG_OPT_VLAN_STATS_PER_PORT;
	}
	/* The core validates every option (vlan_protocol, group_fwd_mask, ...)
	 * and changes nothing on failure. */
	err = xbg_bridge_set(br->core, &o, mask, &msg);
	xbr_nl_core_err(info->extack, err, msg);
	/* As br_set_ageing_time: a new ageing time applies now, not at the
	 * next periodic run (ageing_time 0 expires every dynamic entry). */
	if (!err && (mask & XBG_OPT_AGEING))
		mod_delayed_work(system_long_wq, &br->gc_work, 0);
	if (!err && (mask & XBG_OPT_CONNTRACK) && o.conntrack)
		mod_delayed_work(system_long_wq, &br->ct_gc_work,
				 msecs_to_jiffies(XBG_CT_GC_INTERVAL_MS));
	return err;
}

/* ---- PORT -------------------------------------------------------------------- */

/* The uAPI <-> glue vocabulary of port flags, in one place: the flag
 * attribute of each glue flag bit (XBG_PORT_*, the core's PortFlag). */
static const u16 xbr_port_flag_attr[] = {
	[0] = XBRIDGE_PORT_LEARNING,		/* XBG_PORT_LEARNING */
	[1] = XBRIDGE_PORT_FLOOD,
	[2] = XBRIDGE_PORT_MCAST_FLOOD,
	[3] = XBRIDGE_PORT_BCAST_FLOOD,
	[4] = XBRIDGE_PORT_HAIRPIN,
	[5] = XBRIDGE_PORT_ISOLATED,
	[6] = XBRIDGE_PORT_LOCKED,
	[7] = XBRIDGE_PORT_MAB,
	[8] = XBRIDGE_PORT_NEIGH_SUPPRESS,
};
static_assert(XBG_PORT_LEARNING == 1u << 0 && XBG_PORT_FLOOD == 1u << 1 &&
	      XBG_PORT_MCAST_FLOOD == 1u << 2 && XBG_PORT_BCAST_FLOOD == 1u << 3 &&
	      XBG_PORT_HAIRPIN == 1u << 4 && XBG_PORT_ISOLATED == 1u << 5 &&
	      XBG_PORT_LOCKED == 1u << 6 && XBG_PORT_MAB == 1u << 7 &&
	      XBG_PORT_NEIGH_SUPPRESS == 1u << 8 &&
	      XBG_PORT_FLAGS_ALL == (1u << ARRAY_SIZE(xbr_port_flag_attr)) - 1);

int xbr_nl_fill_port(struct sk_buff *skb, struct xbr *br, struct xbr_port *p)
{
	struct xbg_port_info pi;
	struct nlattr *nest, *drops;
	unsigned int i;

	xbg_port_get(p->core, &pi);
	nest = xbr_nl_put_object(skb, br, XBRIDGE_A_PORT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, XBRIDGE_PORT_IFINDEX, p->dev->ifindex) ||
	    nla_put_string(skb, XBRIDGE_PORT_IFNAME, p->dev->name) ||
	    nla_put_u8(skb, XBRIDGE_PORT_STATE, pi.state))
		goto cancel;
	for (i = 0; i < ARRAY_SIZE(xbr_port_flag_attr); i++)
		if (nla_put_u8(skb, xbr_port_flag_attr[i], !!(pi.flags & (1u << i))))
			goto cancel;
	drops = nla_nest_start(skb, XBRIDGE_PORT_DROPS);
	if (!drops)
		goto cancel;
	for (i = 1; i < pi.n_drops; i++)
		if (nla_put_u64_64bit(skb, i, pi.drops[i], XBRIDGE_PORT_DROP_PAD))
			goto cancel;
	nla_nest_end(skb, drops);
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int xbr_nl_port_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_PORT_IFINDEX + 1];
	struct xbg_port *core;
	struct sk_buff *skb;
	struct xbr_port *p;
	void *hdr;
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_PORT, "missing the port (XBRIDGE_A_PORT)",
				tb, XBRIDGE_PORT_IFINDEX, xbridge_port_get_port_nl_policy);
	if (err)
		return err;
	if (!tb[XBRIDGE_PORT_IFINDEX])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_PORT],
					  XBRIDGE_PORT_IFINDEX, "missing the port's ifindex");
	core = xbr_nl_port_by_attr(br, tb[XBRIDGE_PORT_IFINDEX], false, &p, info->extack);
	if (IS_ERR(core))
		return PTR_ERR(core);
	skb = xbr_nl_reply_new(info, XBRIDGE_CMD_PORT_GET, &hdr);
	if (!skb)
		return -ENOMEM;
	return xbr_nl_reply_send(skb, hdr, info, xbr_nl_fill_port(skb, br, p));
}

/* cb->args[1]: ports of the current bridge done. */
static int xbr_port_dump_bridge(struct sk_buff *skb, struct netlink_callback *cb,
				struct xbr *br, void *ctx)
{
	struct xbr_port *p;
	long pidx = 0;

	list_for_each_entry(p, &br->ports, list) {
		void *hdr;

		if (pidx++ < cb->args[1])
			continue;
		hdr = xbr_nl_dump_put(skb, cb, XBRIDGE_CMD_PORT_GET);
		if (!hdr || xbr_nl_dump_end(skb, hdr, xbr_nl_fill_port(skb, br, p)))
			return -EMSGSIZE;
		cb->args[1] = pidx;
	}
	return 0;
}

int xbr_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return xbr_nl_dump_bridges(skb, cb, true, xbr_port_dump_bridge, NULL);
}

int xbr_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br = xbr_nl_bridge(info);
	struct nlattr *tb[XBRIDGE_PORT_MAX + 1];
	u32 set = 0, clear = 0;
	const char *msg = NULL;
	struct xbg_port *core;
	struct xbr_port *p;
	int state = -1;
	unsigned int i;
	int err;

	err = xbr_nl_parse_nest(info, XBRIDGE_A_PORT, "missing the port (XBRIDGE_A_PORT)",
				tb, XBRIDGE_PORT_MAX, xbridge_port_nl_policy);
	if (err)
		return err;
	if (!tb[XBRIDGE_PORT_IFINDEX])
		return xbr_nl_set_missing(info->extack, info->attrs[XBRIDGE_A_PORT],
					  XBRIDGE_PORT_IFINDEX, "missing the port's ifindex");
	for (i = 0; i < ARRAY_SIZE(xbr_port_flag_attr); i++) {
		const struct nlattr *a = tb[xbr_port_flag_attr[i]];

		if (!a)
			continue;
		if (nla_get_u8(a))
			set |= 1u << i;
		else
			clear |= 1u << i;
	}
	if (tb[XBRIDGE_PORT_STATE])
		state = nla_get_u8(tb[XBRIDGE_PORT_STATE]);

	core = xbr_nl_port_by_attr(br, tb[XBRIDGE_PORT_IFINDEX], false, &p, info->extack);
	if (IS_ERR(core))
		return PTR_ERR(core);
	err = xbg_port_set(br->core, core, set, clear, state, &msg);
	xbr_nl_core_err(info->extack, err, msg);
	if (!err && (set || clear || state >= 0))
		xbr_nl_notify_port(br, p);
	return err;
}
