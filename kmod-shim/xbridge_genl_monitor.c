// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_genl_monitor.c - the notifications of the `xbridge` family to
 * its `monitor` group (`bridge monitor`), in the bridge's namespace: FDB
 * events from the core's event sink, VLAN and port changes from the
 * handlers.
 *
 * Contexts: FDB events come under the core's FDB lock, possibly in softirq:
 * they allocate atomically. VLAN and port notifications come from doits
 * (RTNL, process context). A notification that cannot be allocated or
 * filled is dropped and counted (reported at module unload).
 */
#include <linux/netdevice.h>

#include "xbridge_genl_priv.h"

/* Notifications lost to allocation failures or a full skb. */
static atomic_long_t xbr_nl_dropped = ATOMIC_LONG_INIT(0);

long xbr_nl_notify_dropped(void)
{
	return atomic_long_read(&xbr_nl_dropped);
}

bool xbr_nl_has_listeners(struct net *net)
{
	return genl_has_listeners(&xbr_nl_family, net, XBRIDGE_NLGRP_MONITOR);
}

/* A notification of @size bytes to @net's monitor group; NULL when nobody
 * listens, or (counted as dropped) on failure. */
static struct sk_buff *xbr_event_new(struct net *net, size_t size, gfp_t gfp, u8 cmd,
				     void **hdr)
{
	struct sk_buff *skb;

	if (!xbr_nl_has_listeners(net))
		return NULL;
	skb = genlmsg_new(size, gfp);
	if (!skb)
		goto drop;
	*hdr = genlmsg_put(skb, 0, 0, &xbr_nl_family, 0, cmd);
	if (*hdr)
		return skb;
	nlmsg_free(skb);
drop:
	atomic_long_inc(&xbr_nl_dropped);
	return NULL;
}

/* Send what @fill_err (a fill function's result) allows, or drop it. */
static void xbr_event_send(struct net *net, struct sk_buff *skb, void *hdr, int fill_err,
			   gfp_t gfp)
{
	if (fill_err) {
		nlmsg_free(skb);
		atomic_long_inc(&xbr_nl_dropped);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&xbr_nl_family, net, skb, 0, XBRIDGE_NLGRP_MONITOR, gfp);
}

void xbr_genl_fdb_event(void *ctx, u8 type, u8 reason, const struct xbg_fdb_entry *e)
{
	u8 cmd = type == XBG_FDB_EV_DELETED ? XBRIDGE_CMD_FDB_DEL : XBRIDGE_CMD_FDB_GET;
	struct xbr *br = ctx;
	struct sk_buff *skb;
	struct net *net;
	void *hdr;

	/* Events while the device registers or unregisters have no ifindex
	 * worth reporting (and the core's own setup adds local entries). */
	if (!br->dev || br->dev->reg_state != NETREG_REGISTERED)
		return;
	net = dev_net(br->dev);
	skb = xbr_event_new(net, xbr_nl_fdb_msg_size(), GFP_ATOMIC, cmd, &hdr);
	if (skb)
		xbr_event_send(net, skb, hdr, xbr_nl_fill_fdb(skb, br, e, 0, reason), GFP_ATOMIC);
}

void xbr_nl_notify_vlan(struct xbr *br, u32 port_ifindex, const struct xbg_vlan_info *v, u8 cmd)
{
	struct net *net = dev_net(br->dev);
	struct sk_buff *skb;
	void *hdr;

	skb = xbr_event_new(net, NLMSG_GOODSIZE, GFP_KERNEL, cmd, &hdr);
	if (skb)
		xbr_event_send(net, skb, hdr, xbr_nl_fill_vlan(skb, br, port_ifindex, v),
			       GFP_KERNEL);
}

void xbr_nl_notify_port(struct xbr *br, struct xbr_port *p)
{
	struct net *net = dev_net(br->dev);
	struct sk_buff *skb;
	void *hdr;

	skb = xbr_event_new(net, NLMSG_GOODSIZE, GFP_KERNEL, XBRIDGE_CMD_PORT_GET, &hdr);
	if (skb)
		xbr_event_send(net, skb, hdr, xbr_nl_fill_port(skb, br, p), GFP_KERNEL);
}
