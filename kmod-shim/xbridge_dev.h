/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_dev.h - the shim's shared types: the bridge device's private
 * area and its ports.
 */
#ifndef XBRIDGE_DEV_H
#define XBRIDGE_DEV_H

#include <linux/netdevice.h>
#include <linux/workqueue.h>

struct xbg_bridge;
struct xbg_port;

/* The bridge device's private area. Fields change under RTNL. */
struct xbr {
	struct net_device *dev;
	struct xbg_bridge *core;
	struct list_head ports;		/* struct xbr_port, RTNL */
	struct delayed_work gc_work;	/* FDB ageing */
	struct delayed_work ct_gc_work;	/* conntrack GC slices, while on */
};

/* A port: the enslaved device and its core port. Freed after a grace period. */
struct xbr_port {
	struct list_head list;		/* xbr::ports, RTNL */
	struct xbr *br;
	struct net_device *dev;
	netdevice_tracker dev_tracker;
	struct xbg_port *core;
	struct rcu_head rcu;
};

bool xbr_is_port_dev(const struct net_device *dev);
struct xbr_port *xbr_port_of(const struct net_device *dev);

#endif /* XBRIDGE_DEV_H */
