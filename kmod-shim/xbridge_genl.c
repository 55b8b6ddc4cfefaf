// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl.c - the `xbridge` generic netlink family (netlink/xbridge.h,
 * netlink/xbridge.yaml): bridge options, ports, FDB and VLANs, and the
 * `monitor` multicast group.
 *
 * Validation is strict: every operation has its own policy, unknown and
 * read-only attributes are rejected, and errors carry an extended ack that
 * names the problem (the core's messages are passed through). Changes need
 * CAP_NET_ADMIN in the caller's network namespace (GENL_UNS_ADMIN_PERM).
 *
 * Locking: the family is not parallel (genl_mutex), and every handler that
 * touches a bridge takes RTNL, which serialises the core's control calls
 * and keeps the devices and ports it looks up alive. Dumps resume from
 * positions kept in cb->args; the FDB walk runs under the core's FDB lock
 * (bh disabled) and only fills the skb it was given.
 *
 * Notifications go to the monitor group in the bridge's namespace. FDB
 * events come from the core's event sink, under the FDB lock and possibly
 * in softirq: they allocate atomically and are dropped (and counted) when
 * that fails.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/version.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "xbridge.h"
#include "xbridge_dev.h"
#include "xbridge_genl.h"
#include "xbridge_glue.h"

static struct genl_family xbr_genl_family;

enum xbr_mcgrp {
	XBR_MCGRP_MONITOR_ID,
};

static const struct genl_multicast_group xbr_mcgrps[] = {
	[XBR_MCGRP_MONITOR_ID] = { .name = XBRIDGE_MCGRP_MONITOR },
};

/* Notifications lost to allocation failures or a full skb. */
static atomic_long_t xbr_genl_dropped = ATOMIC_LONG_INIT(0);

/* ageing_time in centiseconds: at most the core's ~11.6 days. */
#define XBR_AGEING_MAX_CS	100000000u

/* ---- policies ----------------------------------------------------------- */

static int xbr_validate_mac(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (nla_len(attr) != ETH_ALEN) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "MAC address must be 6 bytes");
		return -EINVAL;
	}
	return 0;
}

#define XBR_MAC_POLICY		NLA_POLICY_VALIDATE_FN(NLA_BINARY, xbr_validate_mac)
#define XBR_RO(what)		{ .type = NLA_REJECT, .reject_message = what " is read-only" }
#define XBR_FLAG		NLA_POLICY_MAX(NLA_U8, 1)

static struct netlink_range_validation xbr_ageing_range = {
	.min = 0,
	.max = XBR_AGEING_MAX_CS,
};

static const struct nla_policy xbr_bridge_set_nl_policy[XBRIDGE_BR_MAX + 1] = {
	[XBRIDGE_BR_IFNAME]		= XBR_RO("IFNAME"),
	[XBRIDGE_BR_ADDRESS]		= XBR_RO("ADDRESS"),
	[XBRIDGE_BR_VLAN_FILTERING]	= XBR_FLAG,
	[XBRIDGE_BR_VLAN_PROTOCOL]	= { .type = NLA_U16 },
	[XBRIDGE_BR_DEFAULT_PVID]	= NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_BR_AGEING_TIME]	= NLA_POLICY_FULL_RANGE(NLA_U32, &xbr_ageing_range),
	[XBRIDGE_BR_FDB_MAX_LEARNED]	= { .type = NLA_U32 },
	[XBRIDGE_BR_GROUP_FWD_MASK]	= { .type = NLA_U16 },
	[XBRIDGE_BR_FDB_N_LEARNED]	= XBR_RO("FDB_N_LEARNED"),
	[XBRIDGE_BR_FDB_N_ENTRIES]	= XBR_RO("FDB_N_ENTRIES"),
};

static const struct nla_policy xbr_port_get_nl_policy[XBRIDGE_PORT_IFINDEX + 1] = {
	[XBRIDGE_PORT_IFINDEX]		= { .type = NLA_U32 },
};

static const struct nla_policy xbr_port_set_nl_policy[XBRIDGE_PORT_MAX + 1] = {
	[XBRIDGE_PORT_IFINDEX]		= { .type = NLA_U32 },
	[XBRIDGE_PORT_IFNAME]		= XBR_RO("IFNAME"),
	[XBRIDGE_PORT_STATE]		= NLA_POLICY_MAX(NLA_U8, 4),
	[XBRIDGE_PORT_LEARNING]		= XBR_FLAG,
	[XBRIDGE_PORT_FLOOD]		= XBR_FLAG,
	[XBRIDGE_PORT_MCAST_FLOOD]	= XBR_FLAG,
	[XBRIDGE_PORT_BCAST_FLOOD]	= XBR_FLAG,
	[XBRIDGE_PORT_HAIRPIN]		= XBR_FLAG,
	[XBRIDGE_PORT_ISOLATED]		= XBR_FLAG,
	[XBRIDGE_PORT_LOCKED]		= XBR_FLAG,
	[XBRIDGE_PORT_MAB]		= XBR_FLAG,
	[XBRIDGE_PORT_NEIGH_SUPPRESS]	= XBR_FLAG,
	[XBRIDGE_PORT_DROPS]		= XBR_RO("DROPS"),
};

static const struct nla_policy xbr_fdb_nl_policy[XBRIDGE_FDB_MAX + 1] = {
	[XBRIDGE_FDB_MAC]		= XBR_MAC_POLICY,
	[XBRIDGE_FDB_VLAN]		= NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_FDB_PORT_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_FDB_STATE]		= { .type = NLA_U16 },
	[XBRIDGE_FDB_FLAGS]		= { .type = NLA_U32 },
	[XBRIDGE_FDB_USED]		= XBR_RO("USED"),
	[XBRIDGE_FDB_UPDATED]		= XBR_RO("UPDATED"),
	[XBRIDGE_FDB_REASON]		= XBR_RO("REASON"),
};

static const struct nla_policy xbr_flush_nl_policy[XBRIDGE_FLUSH_MAX + 1] = {
	[XBRIDGE_FLUSH_PORT_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_FLUSH_VLAN]		= NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_FLUSH_STATE]		= { .type = NLA_U16 },
	[XBRIDGE_FLUSH_STATE_MASK]	= { .type = NLA_U16 },
	[XBRIDGE_FLUSH_FLAGS]		= { .type = NLA_U32 },
	[XBRIDGE_FLUSH_FLAGS_MASK]	= { .type = NLA_U32 },
};

static const struct nla_policy xbr_vlan_get_nl_policy[XBRIDGE_VLAN_PORT_IFINDEX + 1] = {
	[XBRIDGE_VLAN_PORT_IFINDEX]	= { .type = NLA_U32 },
};

static const struct nla_policy xbr_vlan_nl_policy[XBRIDGE_VLAN_MAX + 1] = {
	[XBRIDGE_VLAN_PORT_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_VLAN_VID]		= NLA_POLICY_RANGE(NLA_U16, 1, 4094),
	[XBRIDGE_VLAN_VID_END]		= NLA_POLICY_RANGE(NLA_U16, 1, 4094),
	[XBRIDGE_VLAN_FLAGS]		= { .type = NLA_U16 },
	[XBRIDGE_VLAN_STATE]		= NLA_POLICY_MAX(NLA_U8, 4),
	[XBRIDGE_VLAN_RX_PACKETS]	= XBR_RO("RX_PACKETS"),
	[XBRIDGE_VLAN_RX_BYTES]		= XBR_RO("RX_BYTES"),
	[XBRIDGE_VLAN_TX_PACKETS]	= XBR_RO("TX_PACKETS"),
	[XBRIDGE_VLAN_TX_BYTES]		= XBR_RO("TX_BYTES"),
};

/* Top-level policies, one per operation. */
static const struct nla_policy xbr_bridge_get_policy[XBRIDGE_A_IFINDEX + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
};

static const struct nla_policy xbr_bridge_set_policy[XBRIDGE_A_BRIDGE + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_BRIDGE]	= NLA_POLICY_NESTED(xbr_bridge_set_nl_policy),
};

static const struct nla_policy xbr_port_get_policy[XBRIDGE_A_PORT + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_PORT]	= NLA_POLICY_NESTED(xbr_port_get_nl_policy),
};

static const struct nla_policy xbr_port_set_policy[XBRIDGE_A_PORT + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_PORT]	= NLA_POLICY_NESTED(xbr_port_set_nl_policy),
};

static const struct nla_policy xbr_fdb_policy[XBRIDGE_A_FDB + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_FDB]		= NLA_POLICY_NESTED(xbr_fdb_nl_policy),
};

static const struct nla_policy xbr_flush_policy[XBRIDGE_A_FLUSH + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_FLUSH]	= NLA_POLICY_NESTED(xbr_flush_nl_policy),
};

static const struct nla_policy xbr_vlan_get_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_VLAN]	= NLA_POLICY_NESTED(xbr_vlan_get_nl_policy),
};

static const struct nla_policy xbr_vlan_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX]	= { .type = NLA_U32 },
	[XBRIDGE_A_VLAN]	= NLA_POLICY_NESTED(xbr_vlan_nl_policy),
};

/* ---- helpers ------------------------------------------------------------ */

static struct nlattr **xbr_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* A static message that is not a literal (the core's): NL_SET_ERR_MSG's store. */
static void xbr_set_msg(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

static void xbr_set_missing(struct netlink_ext_ack *extack, const struct nlattr *nest,
			    unsigned int type, const char *msg)
{
	xbr_set_msg(extack, msg);
	NL_SET_ERR_ATTR_MISS(extack, nest, type);
}

/* Parse a nest that the policy has already validated. */
static int xbr_parse_nest(struct nlattr **tb, int max, const struct nlattr *nest,
			  const struct nla_policy *policy, struct netlink_ext_ack *extack)
{
	return nla_parse_nested(tb, max, nest, policy, extack);
}

/* The xbridge named by @attr in @net (RTNL held). */
static struct xbr *xbr_bridge_by_attr(struct net *net, const struct nlattr *attr,
				      struct netlink_ext_ack *extack)
{
	struct net_device *dev;
	struct xbr *br;

	dev = __dev_get_by_index(net, nla_get_u32(attr));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such device");
		return ERR_PTR(-ENODEV);
	}
	if (!xbr_is_bridge_dev(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "device is not an xbridge");
		return ERR_PTR(-EINVAL);
	}
	br = netdev_priv(dev);
	if (!br->core) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "bridge is going away");
		return ERR_PTR(-ENODEV);
	}
	return br;
}

static struct xbr *xbr_bridge_of(struct genl_info *info)
{
	if (!info->attrs[XBRIDGE_A_IFINDEX]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_IFINDEX,
				"missing the bridge (XBRIDGE_A_IFINDEX)");
		return ERR_PTR(-EINVAL);
	}
	return xbr_bridge_by_attr(genl_info_net(info), info->attrs[XBRIDGE_A_IFINDEX],
				  info->extack);
}

/*
 * The port named by @attr: a port of @br, or @br's own device (its host
 * port) when @self_ok. *@pp is the shim's port (NULL for the host port).
 */
static struct xbg_port *xbr_port_by_attr(struct xbr *br, const struct nlattr *attr,
					 bool self_ok, struct xbr_port **pp,
					 struct netlink_ext_ack *extack)
{
	struct net_device *dev = __dev_get_by_index(dev_net(br->dev), nla_get_u32(attr));
	struct xbr_port *p;

	if (pp)
		*pp = NULL;
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such port device");
		return ERR_PTR(-ENODEV);
	}
	if (dev == br->dev) {
		if (!self_ok) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "the bridge itself is not a port here");
			return ERR_PTR(-EINVAL);
		}
		return xbg_host_port(br->core);
	}
	p = xbr_port_of(dev);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "device is not a bridge port");
		return ERR_PTR(-EINVAL);
	}
	if (p->br != br) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "device is a port of another bridge");
		return ERR_PTR(-EINVAL);
	}
	if (pp)
		*pp = p;
	return p->core;
}

static int xbr_core_err(struct netlink_ext_ack *extack, int err, const char *msg)
{
	if (err && msg)
		xbr_set_msg(extack, msg);
	return err;
}

static u32 xbr_port_ifindex(struct xbr *br, bool is_host, void *priv)
{
	return is_host ? br->dev->ifindex : ((struct xbr_port *)priv)->dev->ifindex;
}

static void xbr_notify(struct net *net, struct sk_buff *skb, gfp_t gfp)
{
	genlmsg_multicast_netns(&xbr_genl_family, net, skb, 0, XBR_MCGRP_MONITOR_ID, gfp);
}

static bool xbr_has_listeners(struct net *net)
{
	return genl_has_listeners(&xbr_genl_family, net, XBR_MCGRP_MONITOR_ID);
}

/* ---- messages ------------------------------------------------------------ */

static int xbr_fill_bridge(struct sk_buff *skb, struct xbr *br)
{
	struct xbg_bridge_opts o;
	struct nlattr *nest;

	xbg_bridge_get(br->core, &o);
	if (nla_put_u32(skb, XBRIDGE_A_IFINDEX, br->dev->ifindex))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, XBRIDGE_A_BRIDGE);
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
	    nla_put_u32(skb, XBRIDGE_BR_FDB_N_LEARNED, o.fdb_n_learned) ||
	    nla_put_u32(skb, XBRIDGE_BR_FDB_N_ENTRIES, o.fdb_n_entries)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

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

static int xbr_fill_port(struct sk_buff *skb, struct xbr *br, struct xbr_port *p)
{
	struct xbg_port_info pi;
	struct nlattr *nest, *drops;
	unsigned int i;

	xbg_port_get(p->core, &pi);
	if (nla_put_u32(skb, XBRIDGE_A_IFINDEX, br->dev->ifindex))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, XBRIDGE_A_PORT);
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

static u16 xbr_fdb_state(u16 flags)
{
	if (flags & XBG_FDB_LOCAL)
		return XBRIDGE_FDB_STATE_PERMANENT;
	if (flags & XBG_FDB_STATIC)
		return XBRIDGE_FDB_STATE_NOARP;
	return XBRIDGE_FDB_STATE_REACHABLE;
}

static u32 xbr_fdb_uflags(u16 flags)
{
	u32 f = 0;

	if (flags & XBG_FDB_STICKY)
		f |= XBRIDGE_FDB_F_STICKY;
	if (flags & XBG_FDB_EXT_LEARN)
		f |= XBRIDGE_FDB_F_EXT_LEARN;
	if (flags & XBG_FDB_LOCKED)
		f |= XBRIDGE_FDB_F_LOCKED;
	if (flags & XBG_FDB_ADDED_BY_USER)
		f |= XBRIDGE_FDB_F_ADDED_BY_USER;
	return f;
}

/* @now: ticks for USED/UPDATED, or 0 to leave them out; @reason < 0: none. */
static int xbr_fill_fdb(struct sk_buff *skb, struct xbr *br, const struct xbg_fdb_entry *e,
			u32 now, int reason)
{
	struct nlattr *nest;

	if (nla_put_u32(skb, XBRIDGE_A_IFINDEX, br->dev->ifindex))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, XBRIDGE_A_FDB);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put(skb, XBRIDGE_FDB_MAC, ETH_ALEN, e->mac) ||
	    (e->vid && nla_put_u16(skb, XBRIDGE_FDB_VLAN, e->vid)) ||
	    nla_put_u32(skb, XBRIDGE_FDB_PORT_IFINDEX,
			xbr_port_ifindex(br, e->is_host, e->port_priv)) ||
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

/* The most xbr_fill_fdb() writes, so an event needs no page-sized skb. */
static size_t xbr_fdb_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* XBRIDGE_A_IFINDEX */
	       nla_total_size(0) +			/* XBRIDGE_A_FDB */
	       nla_total_size(ETH_ALEN) +		/* MAC */
	       nla_total_size(sizeof(u16)) * 2 +	/* VLAN, STATE */
	       nla_total_size(sizeof(u32)) * 4 +	/* PORT_IFINDEX, FLAGS, USED, UPDATED */
	       nla_total_size(sizeof(u8));		/* REASON */
}

static int xbr_fill_vlan(struct sk_buff *skb, struct xbr *br, u32 port_ifindex,
			 const struct xbg_vlan_info *v)
{
	struct nlattr *nest;
	u16 flags = (v->pvid ? XBRIDGE_VLAN_F_PVID : 0) |
		    (v->untagged ? XBRIDGE_VLAN_F_UNTAGGED : 0);

	if (nla_put_u32(skb, XBRIDGE_A_IFINDEX, br->dev->ifindex))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, XBRIDGE_A_VLAN);
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

/* Start a dump message; NULL when the skb is full. */
static void *xbr_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &xbr_genl_family, NLM_F_MULTI, cmd);
}

/* A reply to @info with one object; @fill returns 0 or -EMSGSIZE. */
static struct sk_buff *xbr_reply_new(struct genl_info *info, u8 cmd, void **hdr)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put_reply(skb, info, &xbr_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

/* ---- notifications -------------------------------------------------------- */

void xbr_genl_fdb_event(void *ctx, u8 type, u8 reason, const struct xbg_fdb_entry *e)
{
	struct xbr *br = ctx;
	struct net *net;
	struct sk_buff *skb;
	void *hdr;
	u8 cmd = type == XBG_FDB_EV_DELETED ? XBRIDGE_CMD_FDB_DEL : XBRIDGE_CMD_FDB_GET;

	/* Events while the device registers or unregisters have no ifindex
	 * worth reporting (and the core's own setup adds local entries). */
	if (!br->dev || br->dev->reg_state != NETREG_REGISTERED)
		return;
	net = dev_net(br->dev);
	if (!xbr_has_listeners(net))
		return;
	skb = genlmsg_new(xbr_fdb_msg_size(), GFP_ATOMIC);
	if (!skb)
		goto drop;
	hdr = genlmsg_put(skb, 0, 0, &xbr_genl_family, 0, cmd);
	if (!hdr || xbr_fill_fdb(skb, br, e, 0, reason)) {
		nlmsg_free(skb);
		goto drop;
	}
	genlmsg_end(skb, hdr);
	xbr_notify(net, skb, GFP_ATOMIC);
	return;
drop:
	atomic_long_inc(&xbr_genl_dropped);
}

static void xbr_notify_vlan(struct xbr *br, u32 port_ifindex, const struct xbg_vlan_info *v,
			    u8 cmd)
{
	struct net *net = dev_net(br->dev);
	struct sk_buff *skb;
	void *hdr;

	if (!xbr_has_listeners(net))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		goto drop;
	hdr = genlmsg_put(skb, 0, 0, &xbr_genl_family, 0, cmd);
	if (!hdr || xbr_fill_vlan(skb, br, port_ifindex, v)) {
		nlmsg_free(skb);
		goto drop;
	}
	genlmsg_end(skb, hdr);
	xbr_notify(net, skb, GFP_KERNEL);
	return;
drop:
	atomic_long_inc(&xbr_genl_dropped);
}

static void xbr_notify_port(struct xbr *br, struct xbr_port *p)
{
	struct net *net = dev_net(br->dev);
	struct sk_buff *skb;
	void *hdr;

	if (!xbr_has_listeners(net))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		goto drop;
	hdr = genlmsg_put(skb, 0, 0, &xbr_genl_family, 0, XBRIDGE_CMD_PORT_GET);
	if (!hdr || xbr_fill_port(skb, br, p)) {
		nlmsg_free(skb);
		goto drop;
	}
	genlmsg_end(skb, hdr);
	xbr_notify(net, skb, GFP_KERNEL);
	return;
drop:
	atomic_long_inc(&xbr_genl_dropped);
}

/* ---- BRIDGE ----------------------------------------------------------------- */

static int xbr_bridge_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct sk_buff *skb;
	struct xbr *br;
	void *hdr;
	int err;

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	err = -ENOMEM;
	skb = xbr_reply_new(info, XBRIDGE_CMD_BRIDGE_GET, &hdr);
	if (!skb)
		goto out;
	err = xbr_fill_bridge(skb, br);
	if (err) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_end(skb, hdr);
	rtnl_unlock();
	return genlmsg_reply(skb, info);
out:
	rtnl_unlock();
	return err;
}

static int xbr_bridge_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	long idx = 0;
	void *hdr;

	rtnl_lock();
	for_each_netdev(net, dev) {
		struct xbr *br;

		if (!xbr_is_bridge_dev(dev))
			continue;
		br = netdev_priv(dev);
		if (idx++ < cb->args[0] || !br->core)
			continue;
		hdr = xbr_dump_put(skb, cb, XBRIDGE_CMD_BRIDGE_GET);
		if (!hdr)
			break;
		if (xbr_fill_bridge(skb, br)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = idx;
	}
	rtnl_unlock();
	return skb->len;
}

static int xbr_bridge_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_BR_MAX + 1];
	struct xbg_bridge_opts o = {};
	const char *msg = NULL;
	u32 mask = 0;
	struct xbr *br;
	int err;

	if (!info->attrs[XBRIDGE_A_BRIDGE]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_BRIDGE,
				"missing the bridge options (XBRIDGE_A_BRIDGE)");
		return -EINVAL;
	}
	err = xbr_parse_nest(tb, XBRIDGE_BR_MAX, info->attrs[XBRIDGE_A_BRIDGE],
			     xbr_bridge_set_nl_policy, info->extack);
	if (err)
		return err;
	if (tb[XBRIDGE_BR_VLAN_FILTERING]) {
		o.vlan_filtering = nla_get_u8(tb[XBRIDGE_BR_VLAN_FILTERING]);
		mask |= XBG_OPT_VLAN_FILTERING;
	}
	if (tb[XBRIDGE_BR_VLAN_PROTOCOL]) {
		o.vlan_protocol = nla_get_u16(tb[XBRIDGE_BR_VLAN_PROTOCOL]);
		if (o.vlan_protocol != ETH_P_8021Q && o.vlan_protocol != ETH_P_8021AD) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_BR_VLAN_PROTOCOL],
					    "vlan_protocol must be 802.1Q (0x8100) or 802.1ad (0x88a8)");
			return -EPROTONOSUPPORT;
		}
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
		if (o.group_fwd_mask & 0x0007) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_BR_GROUP_FWD_MASK],
					    "group_fwd_mask may not forward 802.1D, pause or LACP frames (bits 0-2)");
			return -EINVAL;
		}
		mask |= XBG_OPT_GROUP_FWD_MASK;
	}

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	err = xbg_bridge_set(br->core, &o, mask, &msg);
	xbr_core_err(info->extack, err, msg);
	/* As br_set_ageing_time: a new ageing time applies now, not at the
	 * next periodic run (ageing_time 0 expires every dynamic entry). */
	if (!err && (mask & XBG_OPT_AGEING))
		mod_delayed_work(system_long_wq, &br->gc_work, 0);
out:
	rtnl_unlock();
	return err;
}

/* ---- PORT -------------------------------------------------------------------- */

static int xbr_port_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_PORT_IFINDEX + 1];
	struct xbr_port *p;
	struct sk_buff *skb;
	struct xbg_port *core;
	struct xbr *br;
	void *hdr;
	int err;

	if (!info->attrs[XBRIDGE_A_PORT]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_PORT, "missing the port (XBRIDGE_A_PORT)");
		return -EINVAL;
	}
	err = xbr_parse_nest(tb, XBRIDGE_PORT_IFINDEX, info->attrs[XBRIDGE_A_PORT],
			     xbr_port_get_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[XBRIDGE_PORT_IFINDEX]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_PORT], XBRIDGE_PORT_IFINDEX,
				"missing the port's ifindex");
		return -EINVAL;
	}
	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	core = xbr_port_by_attr(br, tb[XBRIDGE_PORT_IFINDEX], false, &p, info->extack);
	if (IS_ERR(core)) {
		err = PTR_ERR(core);
		goto out;
	}
	err = -ENOMEM;
	skb = xbr_reply_new(info, XBRIDGE_CMD_PORT_GET, &hdr);
	if (!skb)
		goto out;
	err = xbr_fill_port(skb, br, p);
	if (err) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_end(skb, hdr);
	rtnl_unlock();
	return genlmsg_reply(skb, info);
out:
	rtnl_unlock();
	return err;
}

/* cb->args: [0] bridges done, [1] ports of the current bridge done. */
static int xbr_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	u32 only = attrs[XBRIDGE_A_IFINDEX] ? nla_get_u32(attrs[XBRIDGE_A_IFINDEX]) : 0;
	struct net_device *dev;
	long idx = 0;

	rtnl_lock();
	for_each_netdev(net, dev) {
		struct xbr_port *p;
		struct xbr *br;
		long pidx = 0;

		if (!xbr_is_bridge_dev(dev) || (only && dev->ifindex != only))
			continue;
		br = netdev_priv(dev);
		if (idx < cb->args[0] || !br->core) {
			idx++;
			continue;
		}
		list_for_each_entry(p, &br->ports, list) {
			void *hdr;

			if (pidx++ < cb->args[1])
				continue;
			hdr = xbr_dump_put(skb, cb, XBRIDGE_CMD_PORT_GET);
			if (!hdr)
				goto full;
			if (xbr_fill_port(skb, br, p)) {
				genlmsg_cancel(skb, hdr);
				goto full;
			}
			genlmsg_end(skb, hdr);
			cb->args[1] = pidx;
		}
		idx++;
		cb->args[0] = idx;
		cb->args[1] = 0;
	}
full:
	rtnl_unlock();
	return skb->len;
}

static int xbr_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_PORT_MAX + 1];
	u32 set = 0, clear = 0;
	const char *msg = NULL;
	struct xbg_port *core;
	struct xbr_port *p;
	struct xbr *br;
	int state = -1;
	unsigned int i;
	int err;

	if (!info->attrs[XBRIDGE_A_PORT]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_PORT, "missing the port (XBRIDGE_A_PORT)");
		return -EINVAL;
	}
	err = xbr_parse_nest(tb, XBRIDGE_PORT_MAX, info->attrs[XBRIDGE_A_PORT],
			     xbr_port_set_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[XBRIDGE_PORT_IFINDEX]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_PORT], XBRIDGE_PORT_IFINDEX,
				"missing the port's ifindex");
		return -EINVAL;
	}
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

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	core = xbr_port_by_attr(br, tb[XBRIDGE_PORT_IFINDEX], false, &p, info->extack);
	if (IS_ERR(core)) {
		err = PTR_ERR(core);
		goto out;
	}
	err = xbg_port_set(br->core, core, set, clear, state, &msg);
	xbr_core_err(info->extack, err, msg);
	if (!err && (set || clear || state >= 0))
		xbr_notify_port(br, p);
out:
	rtnl_unlock();
	return err;
}

/* ---- FDB --------------------------------------------------------------------- */

/* Parse XBRIDGE_A_FDB; the MAC is required and checked when @need_mac. */
static int xbr_fdb_parse(struct genl_info *info, struct nlattr **tb)
{
	int err;

	if (!info->attrs[XBRIDGE_A_FDB]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_FDB, "missing the FDB entry (XBRIDGE_A_FDB)");
		return -EINVAL;
	}
	err = xbr_parse_nest(tb, XBRIDGE_FDB_MAX, info->attrs[XBRIDGE_A_FDB], xbr_fdb_nl_policy,
			     info->extack);
	if (err)
		return err;
	if (!tb[XBRIDGE_FDB_MAC]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB], XBRIDGE_FDB_MAC,
				"missing the MAC address (XBRIDGE_FDB_MAC)");
		return -EINVAL;
	}
	return 0;
}

static int xbr_fdb_get_doit(struct sk_buff *skb_in, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	struct xbg_fdb_entry e;
	struct sk_buff *skb;
	struct xbr *br;
	void *hdr;
	u16 vid;
	int err;

	err = xbr_fdb_parse(info, tb);
	if (err)
		return err;
	if (tb[XBRIDGE_FDB_STATE] || tb[XBRIDGE_FDB_FLAGS]) {
		NL_SET_ERR_MSG(info->extack, "FDB get takes only MAC, VLAN and PORT_IFINDEX");
		return -EINVAL;
	}
	vid = tb[XBRIDGE_FDB_VLAN] ? nla_get_u16(tb[XBRIDGE_FDB_VLAN]) : 0;
	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	err = xbg_fdb_get(br->core, nla_data(tb[XBRIDGE_FDB_MAC]), vid, &e);
	if (!err && tb[XBRIDGE_FDB_PORT_IFINDEX] &&
	    nla_get_u32(tb[XBRIDGE_FDB_PORT_IFINDEX]) != xbr_port_ifindex(br, e.is_host, e.port_priv))
		err = -ENOENT;
	if (err) {
		NL_SET_ERR_MSG(info->extack, "FDB entry not found");
		goto out;
	}
	err = -ENOMEM;
	skb = xbr_reply_new(info, XBRIDGE_CMD_FDB_GET, &hdr);
	if (!skb)
		goto out;
	err = xbr_fill_fdb(skb, br, &e, xbg_now_ticks() ? : 1, -1);
	if (err) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_end(skb, hdr);
	rtnl_unlock();
	return genlmsg_reply(skb, info);
out:
	rtnl_unlock();
	return err;
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
	    xbr_port_ifindex(ctx->br, e->is_host, e->port_priv) != ctx->port_ifindex)
		return true;
	hdr = xbr_dump_put(ctx->skb, ctx->cb, XBRIDGE_CMD_FDB_GET);
	if (!hdr)
		return false;
	if (xbr_fill_fdb(ctx->skb, ctx->br, e, ctx->now, -1)) {
		genlmsg_cancel(ctx->skb, hdr);
		return false;
	}
	genlmsg_end(ctx->skb, hdr);
	return true;
}

/*
 * cb->args: [0] bridges done; [1], [2] the cursor in the current bridge's
 * FDB (hash bucket, entries of its chain already sent), so that each round
 * resumes where the last one stopped instead of walking the table from the
 * start. Entries added or deleted between two rounds, or a table resize
 * (which renumbers the buckets), may shift the position: an entry can then
 * be missed or repeated, as with rtnetlink's FDB dump.
 */
static int xbr_fdb_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	u32 only = attrs[XBRIDGE_A_IFINDEX] ? nla_get_u32(attrs[XBRIDGE_A_IFINDEX]) : 0;
	struct xbr_fdb_dump_ctx ctx = { .skb = skb, .cb = cb };
	struct net_device *dev;
	long idx = 0;
	int err = 0;

	if (attrs[XBRIDGE_A_FDB]) {
		struct nlattr *tb[XBRIDGE_FDB_MAX + 1];

		err = nla_parse_nested(tb, XBRIDGE_FDB_MAX, attrs[XBRIDGE_A_FDB],
				       xbr_fdb_nl_policy, cb->extack);
		if (err)
			return err;
		if (tb[XBRIDGE_FDB_PORT_IFINDEX])
			ctx.port_ifindex = nla_get_u32(tb[XBRIDGE_FDB_PORT_IFINDEX]);
	}
	ctx.now = xbg_now_ticks();
	rtnl_lock();
	if (only) {
		struct xbr *br = xbr_bridge_by_attr(net, attrs[XBRIDGE_A_IFINDEX], cb->extack);

		if (IS_ERR(br)) {
			err = PTR_ERR(br);
			goto out;
		}
	}
	for_each_netdev(net, dev) {
		u32 bucket, chain_skip;
		bool done;

		if (!xbr_is_bridge_dev(dev) || (only && dev->ifindex != only))
			continue;
		ctx.br = netdev_priv(dev);
		if (idx < cb->args[0] || !ctx.br->core) {
			idx++;
			continue;
		}
		bucket = cb->args[1];
		chain_skip = cb->args[2];
		done = xbg_fdb_dump_from(ctx.br->core, &bucket, &chain_skip, xbr_fdb_dump_one,
					 &ctx);
		cb->args[1] = bucket;
		cb->args[2] = chain_skip;
		if (!done) {
			/* Nothing fit into an empty skb: cannot make progress. */
			if (!skb->len)
				err = -EMSGSIZE;
			goto out;
		}
		idx++;
		cb->args[0] = idx;
		cb->args[1] = 0;
		cb->args[2] = 0;
	}
out:
	rtnl_unlock();
	return err ? err : skb->len;
}

/* Map uAPI FDB flags onto the core's, or -EINVAL for unknown/read-only ones. */
static int xbr_fdb_flags_in(u32 uflags, u16 *flags)
{
	if (uflags & ~(XBRIDGE_FDB_F_STICKY | XBRIDGE_FDB_F_EXT_LEARN))
		return -EINVAL;
	if (uflags & XBRIDGE_FDB_F_STICKY)
		*flags |= XBG_FDB_STICKY;
	if (uflags & XBRIDGE_FDB_F_EXT_LEARN)
		*flags |= XBG_FDB_EXT_LEARN;
	return 0;
}

/*
 * An explicit VLAN 0 in an add or delete is refused, as rtnetlink's
 * fdb_vid_parse does for `bridge fdb add|del ... vlan 0`: the entry without
 * VLAN is reached by leaving the attribute out.
 */
static bool xbr_fdb_vid0(struct genl_info *info, struct nlattr **tb)
{
	if (nla_get_u16(tb[XBRIDGE_FDB_VLAN]))
		return false;
	NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_FDB_VLAN],
			    "invalid VLAN ID 0 (leave XBRIDGE_FDB_VLAN out for the entry without VLAN)");
	return true;
}

static int xbr_fdb_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	u16 state = XBRIDGE_FDB_STATE_PERMANENT, flags = 0;
	const char *msg = NULL;
	struct xbg_port *port;
	const u8 *mac;
	struct xbr *br;
	s32 vid = -1;
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
	if (!tb[XBRIDGE_FDB_PORT_IFINDEX]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB], XBRIDGE_FDB_PORT_IFINDEX,
				"missing the port (XBRIDGE_FDB_PORT_IFINDEX)");
		return -EINVAL;
	}
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
	if (tb[XBRIDGE_FDB_VLAN]) {
		vid = nla_get_u16(tb[XBRIDGE_FDB_VLAN]);
		if (xbr_fdb_vid0(info, tb))
			return -EINVAL;
	}

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	port = xbr_port_by_attr(br, tb[XBRIDGE_FDB_PORT_IFINDEX], true, NULL, info->extack);
	if (IS_ERR(port)) {
		err = PTR_ERR(port);
		goto out;
	}
	err = xbg_fdb_add(br->core, port, mac, vid, flags,
			  info->nlhdr->nlmsg_flags & NLM_F_EXCL, &msg);
	xbr_core_err(info->extack, err, msg);
out:
	rtnl_unlock();
	return err;
}

static int xbr_fdb_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_FDB_MAX + 1];
	struct xbg_port *port = NULL;
	const char *msg = NULL;
	struct xbr *br;
	s32 vid = -1;
	int err;

	err = xbr_fdb_parse(info, tb);
	if (err)
		return err;
	if (tb[XBRIDGE_FDB_STATE] || tb[XBRIDGE_FDB_FLAGS]) {
		NL_SET_ERR_MSG(info->extack, "FDB delete takes only MAC, VLAN and PORT_IFINDEX");
		return -EINVAL;
	}
	if (tb[XBRIDGE_FDB_VLAN]) {
		vid = nla_get_u16(tb[XBRIDGE_FDB_VLAN]);
		if (xbr_fdb_vid0(info, tb))
			return -EINVAL;
	}
	if (vid < 0 && !tb[XBRIDGE_FDB_PORT_IFINDEX]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_FDB], XBRIDGE_FDB_PORT_IFINDEX,
				"without a VLAN, FDB delete needs the port (XBRIDGE_FDB_PORT_IFINDEX)");
		return -EINVAL;
	}

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	if (tb[XBRIDGE_FDB_PORT_IFINDEX]) {
		port = xbr_port_by_attr(br, tb[XBRIDGE_FDB_PORT_IFINDEX], true, NULL, info->extack);
		if (IS_ERR(port)) {
			err = PTR_ERR(port);
			goto out;
		}
	}
	err = xbg_fdb_del(br->core, port, nla_data(tb[XBRIDGE_FDB_MAC]), vid, &msg);
	xbr_core_err(info->extack, err, msg);
out:
	rtnl_unlock();
	return err;
}

/* NUD state bits -> core flags: PERMANENT is local, NOARP is static. */
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
	static const struct { u32 uflag; u16 flag; } map[] = {
		{ XBRIDGE_FDB_F_STICKY, XBG_FDB_STICKY },
		{ XBRIDGE_FDB_F_EXT_LEARN, XBG_FDB_EXT_LEARN },
		{ XBRIDGE_FDB_F_LOCKED, XBG_FDB_LOCKED },
		{ XBRIDGE_FDB_F_ADDED_BY_USER, XBG_FDB_ADDED_BY_USER },
	};
	u32 known = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		known |= map[i].uflag;
		if (mask & map[i].uflag)
			*(flags & map[i].uflag ? set : clear) |= map[i].flag;
	}
	if ((flags | mask) & ~known)
		return -EINVAL;
	return 0;
}

static int xbr_fdb_flush_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[XBRIDGE_FLUSH_MAX + 1] = {};
	struct xbg_port *port = NULL;
	u16 set = 0, clear = 0;
	struct xbr *br;
	s32 vid = -1;
	int err;

	if (info->attrs[XBRIDGE_A_FLUSH]) {
		err = xbr_parse_nest(tb, XBRIDGE_FLUSH_MAX, info->attrs[XBRIDGE_A_FLUSH],
				     xbr_flush_nl_policy, info->extack);
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

	rtnl_lock();
	br = xbr_bridge_of(info);
	if (IS_ERR(br)) {
		err = PTR_ERR(br);
		goto out;
	}
	if (tb[XBRIDGE_FLUSH_PORT_IFINDEX]) {
		port = xbr_port_by_attr(br, tb[XBRIDGE_FLUSH_PORT_IFINDEX], true, NULL,
					info->extack);
		if (IS_ERR(port)) {
			err = PTR_ERR(port);
			goto out;
		}
	}
	xbg_fdb_flush(br->core, port, vid, set, clear);
	err = 0;
out:
	rtnl_unlock();
	return err;
}

/* ---- VLAN -------------------------------------------------------------------- */

struct xbr_vlan_dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct xbr *br;
	u32 port_ifindex;
};

static bool xbr_vlan_dump_one(void *ctx_, const struct xbg_vlan_info *v)
{
	struct xbr_vlan_dump_ctx *ctx = ctx_;
	void *hdr = xbr_dump_put(ctx->skb, ctx->cb, XBRIDGE_CMD_VLAN_GET);

	if (!hdr)
		return false;
	if (xbr_fill_vlan(ctx->skb, ctx->br, ctx->port_ifindex, v)) {
		genlmsg_cancel(ctx->skb, hdr);
		return false;
	}
	genlmsg_end(ctx->skb, hdr);
	return true;
}

/*
 * Dump one port's VLANs from cb->args[2] on. Returns true when the port is
 * done, false when the skb filled up (cb->args[2] then holds the VID to
 * resume at).
 */
static bool xbr_vlan_dump_port(struct xbr_vlan_dump_ctx *ctx, struct xbg_port *port,
			       u32 ifindex)
{
	u16 resume;

	ctx->port_ifindex = ifindex;
	resume = xbg_vlan_dump_from(port, ctx->cb->args[2], xbr_vlan_dump_one, ctx);
	if (resume) {
		ctx->cb->args[2] = resume;
		return false;
	}
	ctx->cb->args[2] = 0;
	return true;
}

/* cb->args: [0] bridges done, [1] ports done (0: the bridge itself), [2] next VID. */
static int xbr_vlan_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = xbr_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	u32 only = attrs[XBRIDGE_A_IFINDEX] ? nla_get_u32(attrs[XBRIDGE_A_IFINDEX]) : 0;
	struct xbr_vlan_dump_ctx ctx = { .skb = skb, .cb = cb };
	u32 only_port = 0;
	struct net_device *dev;
	long idx = 0;
	int err = 0;

	if (attrs[XBRIDGE_A_VLAN]) {
		struct nlattr *tb[XBRIDGE_VLAN_PORT_IFINDEX + 1];

		err = nla_parse_nested(tb, XBRIDGE_VLAN_PORT_IFINDEX, attrs[XBRIDGE_A_VLAN],
				       xbr_vlan_get_nl_policy, cb->extack);
		if (err)
			return err;
		if (tb[XBRIDGE_VLAN_PORT_IFINDEX])
			only_port = nla_get_u32(tb[XBRIDGE_VLAN_PORT_IFINDEX]);
	}
	rtnl_lock();
	if (only) {
		struct xbr *br = xbr_bridge_by_attr(net, attrs[XBRIDGE_A_IFINDEX], cb->extack);

		if (IS_ERR(br)) {
			err = PTR_ERR(br);
			goto out;
		}
	}
	for_each_netdev(net, dev) {
		struct xbr_port *p;
		long pidx = 0;

		if (!xbr_is_bridge_dev(dev) || (only && dev->ifindex != only))
			continue;
		ctx.br = netdev_priv(dev);
		if (idx < cb->args[0] || !ctx.br->core) {
			idx++;
			continue;
		}
		if (cb->args[1] == 0 && (!only_port || only_port == (u32)dev->ifindex)) {
			if (!xbr_vlan_dump_port(&ctx, xbg_host_port(ctx.br->core), dev->ifindex))
				goto full;
		}
		if (cb->args[1] == 0)
			cb->args[1] = 1;
		pidx = 1;
		list_for_each_entry(p, &ctx.br->ports, list) {
			if (pidx++ < cb->args[1])
				continue;
			if (!only_port || only_port == (u32)p->dev->ifindex) {
				if (!xbr_vlan_dump_port(&ctx, p->core, p->dev->ifindex))
					goto full;
			}
			cb->args[1] = pidx;
		}
		idx++;
		cb->args[0] = idx;
		cb->args[1] = 0;
	}
full:
	if (!err && !skb->len && cb->args[2])
		err = -EMSGSIZE;
out:
	rtnl_unlock();
	return err ? err : skb->len;
}

struct xbr_vlan_req {
	struct nlattr *tb[XBRIDGE_VLAN_MAX + 1];
	struct xbr *br;
	struct xbg_port *port;
	u32 port_ifindex;
	u16 start, end;
};

/* Parse and look up a VLAN request; returns with RTNL held on success. */
static int xbr_vlan_req(struct genl_info *info, struct xbr_vlan_req *r)
{
	struct nlattr **tb = r->tb;
	int err;

	if (!info->attrs[XBRIDGE_A_VLAN]) {
		xbr_set_missing(info->extack, NULL, XBRIDGE_A_VLAN, "missing the VLAN (XBRIDGE_A_VLAN)");
		return -EINVAL;
	}
	err = xbr_parse_nest(tb, XBRIDGE_VLAN_MAX, info->attrs[XBRIDGE_A_VLAN],
			     xbr_vlan_nl_policy, info->extack);
	if (err)
		return err;
	if (!tb[XBRIDGE_VLAN_PORT_IFINDEX]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN], XBRIDGE_VLAN_PORT_IFINDEX,
				"missing the port (XBRIDGE_VLAN_PORT_IFINDEX)");
		return -EINVAL;
	}
	if (!tb[XBRIDGE_VLAN_VID]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN], XBRIDGE_VLAN_VID,
				"missing the VLAN ID (XBRIDGE_VLAN_VID)");
		return -EINVAL;
	}
	r->start = nla_get_u16(tb[XBRIDGE_VLAN_VID]);
	r->end = tb[XBRIDGE_VLAN_VID_END] ? nla_get_u16(tb[XBRIDGE_VLAN_VID_END]) : r->start;
	/* As br_vlan_valid_range: a range must have at least two VIDs. */
	if (tb[XBRIDGE_VLAN_VID_END] && r->end <= r->start) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[XBRIDGE_VLAN_VID_END],
				    "VLAN range end must be above its start");
		return -EINVAL;
	}
	rtnl_lock();
	r->br = xbr_bridge_of(info);
	if (IS_ERR(r->br)) {
		err = PTR_ERR(r->br);
		goto fail;
	}
	r->port = xbr_port_by_attr(r->br, tb[XBRIDGE_VLAN_PORT_IFINDEX], true, NULL, info->extack);
	if (IS_ERR(r->port)) {
		err = PTR_ERR(r->port);
		goto fail;
	}
	r->port_ifindex = nla_get_u32(tb[XBRIDGE_VLAN_PORT_IFINDEX]);
	return 0;
fail:
	rtnl_unlock();
	return err;
}

static void xbr_vlan_notify_range(struct xbr_vlan_req *r, u8 cmd)
{
	struct xbg_vlan_info v;
	unsigned int vid;

	if (!xbr_has_listeners(dev_net(r->br->dev)))
		return;
	for (vid = r->start; vid <= r->end; vid++) {
		if (cmd == XBRIDGE_CMD_VLAN_DEL) {
			memset(&v, 0, sizeof(v));
			v.vid = vid;
		} else if (!xbg_vlan_get(r->port, vid, &v)) {
			continue;
		}
		xbr_notify_vlan(r->br, r->port_ifindex, &v, cmd);
	}
}

static int xbr_vlan_new_doit(struct sk_buff *skb, struct genl_info *info)
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
		err = -EINVAL;
		goto out;
	}
	if (r.tb[XBRIDGE_VLAN_FLAGS])
		uflags = nla_get_u16(r.tb[XBRIDGE_VLAN_FLAGS]);
	if (uflags & ~(XBRIDGE_VLAN_F_PVID | XBRIDGE_VLAN_F_UNTAGGED)) {
		NL_SET_ERR_MSG_ATTR(info->extack, r.tb[XBRIDGE_VLAN_FLAGS],
				    "unknown VLAN flag (only PVID and UNTAGGED)");
		err = -EINVAL;
		goto out;
	}
	if ((uflags & XBRIDGE_VLAN_F_PVID) && r.end != r.start) {
		NL_SET_ERR_MSG_ATTR(info->extack, r.tb[XBRIDGE_VLAN_VID_END],
				    "a VLAN range cannot be the PVID");
		err = -EINVAL;
		goto out;
	}
	if (uflags & XBRIDGE_VLAN_F_PVID)
		flags |= XBG_VLAN_PVID;
	if (uflags & XBRIDGE_VLAN_F_UNTAGGED)
		flags |= XBG_VLAN_UNTAGGED;
	err = xbg_vlan_add(r.br->core, r.port, r.start, r.end, flags, &msg);
	xbr_core_err(info->extack, err, msg);
	if (!err)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_GET);
out:
	rtnl_unlock();
	return err;
}

static int xbr_vlan_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct xbr_vlan_req r;
	const char *msg = NULL;
	int err;

	err = xbr_vlan_req(info, &r);
	if (err)
		return err;
	if (r.tb[XBRIDGE_VLAN_FLAGS] || r.tb[XBRIDGE_VLAN_STATE]) {
		NL_SET_ERR_MSG(info->extack, "VLAN delete takes only PORT_IFINDEX, VID and VID_END");
		err = -EINVAL;
		goto out;
	}
	err = xbg_vlan_del(r.br->core, r.port, r.start, r.end, &msg);
	xbr_core_err(info->extack, err, msg);
	if (!err)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_DEL);
out:
	rtnl_unlock();
	return err;
}

static int xbr_vlan_set_doit(struct sk_buff *skb, struct genl_info *info)
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
		err = -EINVAL;
		goto out;
	}
	if (!r.tb[XBRIDGE_VLAN_STATE]) {
		xbr_set_missing(info->extack, info->attrs[XBRIDGE_A_VLAN], XBRIDGE_VLAN_STATE,
				"missing the VLAN state (XBRIDGE_VLAN_STATE)");
		err = -EINVAL;
		goto out;
	}
	state = nla_get_u8(r.tb[XBRIDGE_VLAN_STATE]);
	/* All or nothing: every VID of the range must exist first. */
	for (vid = r.start; vid <= r.end; vid++) {
		if (!xbg_vlan_get(r.port, vid, &v)) {
			NL_SET_ERR_MSG(info->extack, "VLAN not configured on the port");
			err = -ENOENT;
			goto out;
		}
	}
	for (vid = r.start; vid <= r.end && !err; vid++) {
		err = xbg_vlan_set_state(r.br->core, r.port, vid, state, &msg);
		xbr_core_err(info->extack, err, msg);
	}
	if (!err)
		xbr_vlan_notify_range(&r, XBRIDGE_CMD_VLAN_GET);
out:
	rtnl_unlock();
	return err;
}

/* ---- the family ----------------------------------------------------------- */

static const struct genl_ops xbr_genl_ops[] = {
	{
		.cmd = XBRIDGE_CMD_BRIDGE_GET,
		.doit = xbr_bridge_get_doit,
		.dumpit = xbr_bridge_get_dumpit,
		.policy = xbr_bridge_get_policy,
		.maxattr = ARRAY_SIZE(xbr_bridge_get_policy) - 1,
	},
	{
		.cmd = XBRIDGE_CMD_BRIDGE_SET,
		.doit = xbr_bridge_set_doit,
		.policy = xbr_bridge_set_policy,
		.maxattr = ARRAY_SIZE(xbr_bridge_set_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_PORT_GET,
		.doit = xbr_port_get_doit,
		.dumpit = xbr_port_get_dumpit,
		.policy = xbr_port_get_policy,
		.maxattr = ARRAY_SIZE(xbr_port_get_policy) - 1,
	},
	{
		.cmd = XBRIDGE_CMD_PORT_SET,
		.doit = xbr_port_set_doit,
		.policy = xbr_port_set_policy,
		.maxattr = ARRAY_SIZE(xbr_port_set_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_FDB_GET,
		.doit = xbr_fdb_get_doit,
		.dumpit = xbr_fdb_get_dumpit,
		.policy = xbr_fdb_policy,
		.maxattr = ARRAY_SIZE(xbr_fdb_policy) - 1,
	},
	{
		.cmd = XBRIDGE_CMD_FDB_NEW,
		.doit = xbr_fdb_new_doit,
		.policy = xbr_fdb_policy,
		.maxattr = ARRAY_SIZE(xbr_fdb_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_FDB_DEL,
		.doit = xbr_fdb_del_doit,
		.policy = xbr_fdb_policy,
		.maxattr = ARRAY_SIZE(xbr_fdb_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_FDB_FLUSH,
		.doit = xbr_fdb_flush_doit,
		.policy = xbr_flush_policy,
		.maxattr = ARRAY_SIZE(xbr_flush_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_VLAN_GET,
		.dumpit = xbr_vlan_get_dumpit,
		.policy = xbr_vlan_get_policy,
		.maxattr = ARRAY_SIZE(xbr_vlan_get_policy) - 1,
	},
	{
		.cmd = XBRIDGE_CMD_VLAN_NEW,
		.doit = xbr_vlan_new_doit,
		.policy = xbr_vlan_policy,
		.maxattr = ARRAY_SIZE(xbr_vlan_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_VLAN_DEL,
		.doit = xbr_vlan_del_doit,
		.policy = xbr_vlan_policy,
		.maxattr = ARRAY_SIZE(xbr_vlan_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = XBRIDGE_CMD_VLAN_SET,
		.doit = xbr_vlan_set_doit,
		.policy = xbr_vlan_policy,
		.maxattr = ARRAY_SIZE(xbr_vlan_policy) - 1,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family xbr_genl_family __ro_after_init = {
	.name		= XBRIDGE_FAMILY_NAME,
	.version	= XBRIDGE_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= false,
	.module		= THIS_MODULE,
	.ops		= xbr_genl_ops,
	.n_ops		= ARRAY_SIZE(xbr_genl_ops),
	/*
	 * Attributes are validated strictly for every op (each has a policy
	 * and no GENL_DONT_VALIDATE_* flag). resv_start_op additionally
	 * rejects the legacy nlmsg_flags (NLM_F_CREATE, NLM_F_EXCL, ...) and
	 * a non-zero reserved header field; FDB_NEW and VLAN_NEW honour those
	 * flags as RTM_NEWNEIGH does, so only the commands after the current
	 * ones (the nft objects) get that check.
	 */
	.resv_start_op	= __XBRIDGE_CMD_MAX,
	.mcgrps		= xbr_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(xbr_mcgrps),
};

int __init xbr_genl_init(void)
{
	return genl_register_family(&xbr_genl_family);
}

void xbr_genl_exit(void)
{
	genl_unregister_family(&xbr_genl_family);
	if (atomic_long_read(&xbr_genl_dropped))
		pr_info("xbridge: %ld monitor notifications dropped\n",
			atomic_long_read(&xbr_genl_dropped));
}
