// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl.c - the hand-written frame of the `xbridge` generic netlink
 * family: the shared pre_doit/post_doit, lookups, replies, the bridge walk
 * of dumps, registration. The policies, the ops table and the family are
 * generated from netlink/xbridge.yaml into xbridge_nl.c (tools/nlgen.py);
 * the handlers live one file per object: xbridge_genl_link.c (bridge and
 * port), xbridge_genl_fdb.c, xbridge_genl_vlan.c, xbridge_genl_nft.c (the
 * namespace's nf_tables ruleset), and the notifications in
 * xbridge_genl_monitor.c.
 *
 * Validation: the generated policies check the shape of every attribute
 * strictly (types, ranges, read-only attributes, unknown ones). The meaning
 * is the core's to check: its error and extack message are passed through.
 * Changes need CAP_NET_ADMIN in the caller's network namespace
 * (GENL_UNS_ADMIN_PERM).
 *
 * Locking: the family is not parallel (genl_mutex). Every doit runs under
 * RTNL, taken by xbr_nl_pre_doit() and released by xbr_nl_post_doit(): it
 * serialises the core's control calls and keeps the devices and ports the
 * handler looks up alive. Dumps take RTNL in xbr_nl_dump_bridges() and
 * resume from positions kept in cb->args.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/version.h>
#include <net/sock.h>

#include "xbridge_genl_priv.h"

/* ---- errors -------------------------------------------------------------- */

void xbr_nl_set_msg(struct netlink_ext_ack *extack, const char *msg)
{
	if (extack)
		extack->_msg = msg;
}

int xbr_nl_set_missing(struct netlink_ext_ack *extack, const struct nlattr *nest,
		       unsigned int type, const char *msg)
{
	xbr_nl_set_msg(extack, msg);
	NL_SET_ERR_ATTR_MISS(extack, nest, type);
	return -EINVAL;
}

int xbr_nl_core_err(struct netlink_ext_ack *extack, int err, const char *msg)
{
	if (err && msg)
		xbr_nl_set_msg(extack, msg);
	return err;
}

int xbr_nl_parse_nest(struct genl_info *info, unsigned int type, const char *missing,
		      struct nlattr **tb, int max, const struct nla_policy *policy)
{
	if (!info->attrs[type])
		return xbr_nl_set_missing(info->extack, NULL, type, missing);
	/* The policy already validated the nest: this only splits it. */
	return nla_parse_nested(tb, max, info->attrs[type], policy, info->extack);
}

/* The MAC check of the generated policies (display-hint: mac). */
int xbr_nl_validate_mac(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	if (nla_len(attr) != ETH_ALEN) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "MAC address must be 6 bytes");
		return -EINVAL;
	}
	return 0;
}

/* ---- lookups ------------------------------------------------------------- */

struct xbr *xbr_nl_bridge_by_attr(struct net *net, const struct nlattr *attr,
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

struct xbg_port *xbr_nl_port_by_attr(struct xbr *br, const struct nlattr *attr, bool self_ok,
				     struct xbr_port **pp, struct netlink_ext_ack *extack)
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

u32 xbr_nl_port_ifindex(const struct xbr *br, bool is_host, void *priv)
{
	return is_host ? br->dev->ifindex : ((struct xbr_port *)priv)->dev->ifindex;
}

/* ---- the shared pre/post of every doit ------------------------------------ */

/* Take RTNL and find the bridge the request names; the handler gets it
 * from xbr_nl_bridge(). On failure RTNL is released (no post_doit). */
int xbr_nl_pre_doit(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info)
{
	struct xbr *br;

	/* The nft objects belong to the namespace, not to one bridge. */
	if (ops->cmd >= XBRIDGE_CMD_NFT_FIRST && ops->cmd < XBRIDGE_CMD_CT_FIRST) {
		rtnl_lock();
		info->user_ptr[0] = NULL;
		return 0;
	}
	if (!info->attrs[XBRIDGE_A_IFINDEX])
		return xbr_nl_set_missing(info->extack, NULL, XBRIDGE_A_IFINDEX,
					  "missing the bridge (XBRIDGE_A_IFINDEX)");
	rtnl_lock();
	br = xbr_nl_bridge_by_attr(genl_info_net(info), info->attrs[XBRIDGE_A_IFINDEX],
				   info->extack);
	if (IS_ERR(br)) {
		rtnl_unlock();
		return PTR_ERR(br);
	}
	info->user_ptr[0] = br;
	return 0;
}

void xbr_nl_post_doit(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info)
{
	rtnl_unlock();
}

/* ---- replies and dumps ---------------------------------------------------- */

struct sk_buff *xbr_nl_reply_new(struct genl_info *info, u8 cmd, void **hdr)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (!skb)
		return NULL;
	*hdr = genlmsg_put_reply(skb, info, &xbr_nl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

int xbr_nl_reply_send(struct sk_buff *skb, void *hdr, struct genl_info *info, int fill_err)
{
	if (fill_err) {
		nlmsg_free(skb);
		return fill_err;
	}
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

void *xbr_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &xbr_nl_family, NLM_F_MULTI, cmd);
}

int xbr_nl_dump_end(struct sk_buff *skb, void *hdr, int fill_err)
{
	if (fill_err) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

struct nlattr *xbr_nl_put_object(struct sk_buff *skb, const struct xbr *br, int type)
{
	if (nla_put_u32(skb, XBRIDGE_A_IFINDEX, br->dev->ifindex))
		return NULL;
	return nla_nest_start(skb, type);
}

struct nlattr **xbr_nl_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* cb->args: [0] bridges done; [1], [2] the position inside the current one. */
int xbr_nl_dump_bridges(struct sk_buff *skb, struct netlink_callback *cb, bool filter,
			xbr_nl_dump_fn fn, void *ctx)
{
	struct nlattr *only = filter ? xbr_nl_dump_attrs(cb)[XBRIDGE_A_IFINDEX] : NULL;
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	long idx = 0;
	int err = 0;

	rtnl_lock();
	if (only) {
		struct xbr *br = xbr_nl_bridge_by_attr(net, only, cb->extack);

		if (IS_ERR(br)) {
			err = PTR_ERR(br);
			goto out;
		}
	}
	for_each_netdev(net, dev) {
		struct xbr *br;

		if (!xbr_is_bridge_dev(dev) || (only && dev->ifindex != nla_get_u32(only)))
			continue;
		br = netdev_priv(dev);
		if (idx++ < cb->args[0] || !br->core)
			continue;
		err = fn(skb, cb, br, ctx);
		if (err)
			break;
		cb->args[0] = idx;
		cb->args[1] = 0;
		cb->args[2] = 0;
	}
	/* A full skb ends this round; nothing fit into an empty one: no progress. */
	if (err == -EMSGSIZE && skb->len)
		err = 0;
out:
	rtnl_unlock();
	return err ? err : skb->len;
}

/* ---- registration ---------------------------------------------------------- */

int __init xbr_genl_init(void)
{
	int err = xbr_nft_init();

	if (err)
		return err;
	xbg_set_ct_listening(xbr_genl_ct_listening);
	err = genl_register_family(&xbr_nl_family);
	if (err)
		xbr_nft_exit();
	return err;
}

void xbr_genl_exit(void)
{
	genl_unregister_family(&xbr_nl_family);
	xbr_nft_exit();
	if (xbr_nl_notify_dropped())
		pr_info("xbridge: %ld monitor notifications dropped\n", xbr_nl_notify_dropped());
	if (xbr_nl_ct_events_dropped())
		pr_info("xbridge: %ld ct events dropped\n", xbr_nl_ct_events_dropped());
	if (xbr_nl_nft_events_dropped())
		pr_info("xbridge: %ld nft events dropped\n", xbr_nl_nft_events_dropped());
}
