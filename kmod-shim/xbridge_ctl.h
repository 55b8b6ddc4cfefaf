/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_ctl.h - the shim's shared types, and the temporary sysfs control
 * interface (/sys/class/net/<bridge>/xbridge/) that configures what the
 * selftests need until the xbridge generic netlink family exists.
 */
#ifndef XBRIDGE_CTL_H
#define XBRIDGE_CTL_H

#include <linux/netdevice.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

struct xbg_bridge;
struct xbg_port;

/* The bridge device's private area. Fields change under RTNL. */
struct xbr {
	struct net_device *dev;
	struct xbg_bridge *core;
	struct list_head ports;		/* struct xbr_port, RTNL */
	struct delayed_work gc_work;	/* FDB ageing */
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

extern const struct attribute_group xbr_ctl_group;

#endif /* XBRIDGE_CTL_H */
