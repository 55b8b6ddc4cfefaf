// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_ctl.c - temporary sysfs control for the selftests, until the
 * xbridge generic netlink family replaces it:
 *
 *   /sys/class/net/BR/xbridge/control  (write, CAP_NET_ADMIN)
 *       vlan_filtering 0|1
 *       ageing_time CENTISECONDS
 *       vlan add|del vid VID[-END] dev DEV [pvid] [untagged]
 *           (DEV may be the bridge itself: its "self" VLANs)
 *   /sys/class/net/BR/xbridge/fdb      (read: one `bridge fdb show` line each)
 *   /sys/class/net/BR/xbridge/vlans    (read: "DEV VID [PVID] [Egress Untagged]")
 *
 * Writes take RTNL (trylock and restart, as bonding's sysfs does, so a
 * concurrent unregister cannot deadlock on the sysfs file). Reads of the
 * FDB run under the core's FDB lock and fill at most one page.
 */
#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/kernel.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>

#include "xbridge_glue.h"
#include "xbridge_ctl.h"

static struct xbr *xbr_of_kobj_dev(struct device *d)
{
	return netdev_priv(to_net_dev(d));
}

/* The core port for DEV: a port of @br, or @br's own device (self). */
static struct xbg_port *xbr_ctl_port(struct xbr *br, const char *name)
{
	struct net_device *dev = __dev_get_by_name(dev_net(br->dev), name);
	struct xbr_port *p;

	if (!dev)
		return NULL;
	if (dev == br->dev)
		return xbg_host_port(br->core);
	p = xbr_port_of(dev);
	return p && p->br == br ? p->core : NULL;
}

static int xbr_ctl_parse_vids(const char *s, u16 *start, u16 *end)
{
	char buf[16];
	char *dash;

	strscpy(buf, s, sizeof(buf));
	dash = strchr(buf, '-');
	if (dash)
		*dash++ = '\0';
	if (kstrtou16(buf, 10, start))
		return -EINVAL;
	if (!dash) {
		*end = *start;
		return 0;
	}
	return kstrtou16(dash, 10, end) ? -EINVAL : 0;
}

static int xbr_ctl_vlan(struct xbr *br, char **words, int n)
{
	const char *dev = NULL, *vids = NULL, *msg = NULL;
	bool add = !strcmp(words[1], "add");
	u8 flags = 0;
	u16 start, end;
	struct xbg_port *port;
	int i, err;

	if (!add && strcmp(words[1], "del"))
		return -EINVAL;
	for (i = 2; i < n; i++) {
		if (!strcmp(words[i], "vid") && i + 1 < n)
			vids = words[++i];
		else if (!strcmp(words[i], "dev") && i + 1 < n)
			dev = words[++i];
		else if (!strcmp(words[i], "pvid"))
			flags |= XBG_VLAN_PVID;
		else if (!strcmp(words[i], "untagged"))
			flags |= XBG_VLAN_UNTAGGED;
		else
			return -EINVAL;
	}
	if (!dev || !vids || xbr_ctl_parse_vids(vids, &start, &end))
		return -EINVAL;
	port = xbr_ctl_port(br, dev);
	if (!port)
		return -ENODEV;
	if (add)
		err = xbg_vlan_add(br->core, port, start, end, flags, &msg);
	else
		err = xbg_vlan_del(br->core, port, start, end, &msg);
	if (err && msg)
		netdev_info(br->dev, "vlan %s: %s\n", words[1], msg);
	return err;
}

static int xbr_ctl_run(struct xbr *br, char *line)
{
	char *words[12];
	int n = 0;
	char *w;
	unsigned int val;

	while ((w = strsep(&line, " \t\n")) != NULL) {
		if (!*w)
			continue;
		if (n == ARRAY_SIZE(words))
			return -E2BIG;
		words[n++] = w;
	}
	if (n == 2 && !strcmp(words[0], "vlan_filtering")) {
		if (kstrtouint(words[1], 10, &val) || val > 1)
			return -EINVAL;
		return xbg_set_vlan_filtering(br->core, val);
	}
	if (n == 2 && !strcmp(words[0], "ageing_time")) {
		if (kstrtouint(words[1], 10, &val) || val > 100000000)
			return -EINVAL;
		return xbg_set_ageing_ms(br->core, val * 10);
	}
	if (n >= 2 && !strcmp(words[0], "vlan"))
		return xbr_ctl_vlan(br, words, n);
	return -EINVAL;
}

static ssize_t control_store(struct device *d, struct device_attribute *attr,
			     const char *buf, size_t len)
{
	struct xbr *br = xbr_of_kobj_dev(d);
	char line[128];
	int err;

	if (!ns_capable(dev_net(br->dev)->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (len >= sizeof(line))
		return -E2BIG;
	memcpy(line, buf, len);
	line[len] = '\0';
	if (!rtnl_trylock())
		return restart_syscall();
	err = br->core ? xbr_ctl_run(br, line) : -ENODEV;
	rtnl_unlock();
	return err ? err : len;
}
static DEVICE_ATTR_WO(control);

struct xbr_show_ctx {
	struct xbr *br;
	char *buf;
	int len;
};

static void xbr_fdb_line(void *ctx_, const u8 mac[6], u16 vid, void *port_priv, bool is_host,
			 u16 flags)
{
	struct xbr_show_ctx *ctx = ctx_;
	const char *dev = is_host ? ctx->br->dev->name :
				    ((struct xbr_port *)port_priv)->dev->name;
	char vlan[16] = "";

	if (vid)
		snprintf(vlan, sizeof(vlan), " vlan %u", vid);
	ctx->len += scnprintf(ctx->buf + ctx->len, PAGE_SIZE - ctx->len,
			      "%pM dev %s%s master %s%s%s\n", mac, dev, vlan,
			      ctx->br->dev->name,
			      (flags & XBG_FDB_LOCAL) ? " permanent" :
			      (flags & XBG_FDB_STATIC) ? " static" : "",
			      (flags & XBG_FDB_STICKY) ? " sticky" : "");
}

static ssize_t fdb_show(struct device *d, struct device_attribute *attr, char *buf)
{
	struct xbr_show_ctx ctx = { .br = xbr_of_kobj_dev(d), .buf = buf };

	if (!rtnl_trylock())
		return restart_syscall();
	if (ctx.br->core)
		xbg_fdb_dump(ctx.br->core, xbr_fdb_line, &ctx);
	rtnl_unlock();
	return ctx.len;
}
static DEVICE_ATTR_RO(fdb);

struct xbr_vlan_ctx {
	struct xbr_show_ctx *show;
	const char *dev;
};

static void xbr_vlan_line(void *ctx_, u16 vid, bool pvid, bool untagged)
{
	struct xbr_vlan_ctx *ctx = ctx_;
	struct xbr_show_ctx *s = ctx->show;

	s->len += scnprintf(s->buf + s->len, PAGE_SIZE - s->len, "%s %u%s%s\n", ctx->dev, vid,
			    pvid ? " PVID" : "", untagged ? " Egress Untagged" : "");
}

static ssize_t vlans_show(struct device *d, struct device_attribute *attr, char *buf)
{
	struct xbr_show_ctx show = { .br = xbr_of_kobj_dev(d), .buf = buf };
	struct xbr_vlan_ctx ctx = { .show = &show };
	struct xbr_port *p;

	if (!rtnl_trylock())
		return restart_syscall();
	if (show.br->core) {
		ctx.dev = show.br->dev->name;
		xbg_vlan_dump(xbg_host_port(show.br->core), xbr_vlan_line, &ctx);
		list_for_each_entry(p, &show.br->ports, list) {
			ctx.dev = p->dev->name;
			xbg_vlan_dump(p->core, xbr_vlan_line, &ctx);
		}
	}
	rtnl_unlock();
	return show.len;
}
static DEVICE_ATTR_RO(vlans);

static struct attribute *xbr_ctl_attrs[] = {
	&dev_attr_control.attr,
	&dev_attr_fdb.attr,
	&dev_attr_vlans.attr,
	NULL,
};

const struct attribute_group xbr_ctl_group = {
	.name = "xbridge",
	.attrs = xbr_ctl_attrs,
};
