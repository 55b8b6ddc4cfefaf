/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_genl_priv.h - what the handler files of the `xbridge` family
 * share: the bridge the shared pre_doit found, port lookup, replies,
 * the bridge walk of dumps, and the fill functions the monitor reuses.
 *
 * Locking: every doit runs between xbr_nl_pre_doit() and xbr_nl_post_doit()
 * (xbridge_genl.c), i.e. under RTNL with the bridge already looked up
 * (xbr_nl_bridge()). Dumps walk the bridges through xbr_nl_dump_bridges(),
 * which holds RTNL around the walk. The family is not parallel (genl_mutex).
 */
#ifndef XBRIDGE_GENL_PRIV_H
#define XBRIDGE_GENL_PRIV_H

#include <net/genetlink.h>
#include <net/netlink.h>

#include "xbridge_dev.h"
#include "xbridge_genl.h"
#include "xbridge_glue.h"
#include "xbridge_nl.h"

/* The bridge xbr_nl_pre_doit() found for this request (RTNL held). */
static inline struct xbr *xbr_nl_bridge(const struct genl_info *info)
{
	return info->user_ptr[0];
}

/* ---- the namespace's nf_tables ruleset (xbridge_genl_nft.c) ---- */

struct xbg_nft;
struct xbg_nft *xbr_nft_ruleset(struct net *net);
int xbr_nft_init(void);
void xbr_nft_exit(void);

/* ---- errors (xbridge_genl.c) ---- */

/* A static message that is not a literal (the core's): NL_SET_ERR_MSG's store. */
void xbr_nl_set_msg(struct netlink_ext_ack *extack, const char *msg);
/* A missing attribute @type of @nest (NULL: top level), with @msg;
 * returns -EINVAL. */
int xbr_nl_set_missing(struct netlink_ext_ack *extack, const struct nlattr *nest,
		       unsigned int type, const char *msg);
/* Pass the core's error and message through; returns @err. */
int xbr_nl_core_err(struct netlink_ext_ack *extack, int err, const char *msg);
/* A required nest of the request, parsed with @policy into @tb. */
int xbr_nl_parse_nest(struct genl_info *info, unsigned int type, const char *missing,
		      struct nlattr **tb, int max, const struct nla_policy *policy);

/* ---- lookups (xbridge_genl.c), RTNL held ---- */

struct xbr *xbr_nl_bridge_by_attr(struct net *net, const struct nlattr *attr,
				  struct netlink_ext_ack *extack);
/*
 * The port named by @attr: a port of @br, or @br's own device (its host
 * port) when @self_ok. *@pp is the shim's port (NULL for the host port).
 */
struct xbg_port *xbr_nl_port_by_attr(struct xbr *br, const struct nlattr *attr, bool self_ok,
				     struct xbr_port **pp, struct netlink_ext_ack *extack);
u32 xbr_nl_port_ifindex(const struct xbr *br, bool is_host, void *priv);

/* ---- replies and dumps (xbridge_genl.c) ---- */

/* A reply to @info; NULL on allocation failure. */
struct sk_buff *xbr_nl_reply_new(struct genl_info *info, u8 cmd, void **hdr);
/* Send the reply @fill_err (a fill function's result) allows, or free it. */
int xbr_nl_reply_send(struct sk_buff *skb, void *hdr, struct genl_info *info, int fill_err);
/* Start one message of a dump; NULL when the skb is full. */
void *xbr_nl_dump_put(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd);
/* End it if @fill_err (a fill function's result) is 0, else take it back
 * out: 0 or -EMSGSIZE (the skb is full; the next round resumes there). */
int xbr_nl_dump_end(struct sk_buff *skb, void *hdr, int fill_err);
/* A fill function's start: XBRIDGE_A_IFINDEX (@br) and the object's nest
 * @type, which the caller fills and ends; NULL when the skb is full. */
struct nlattr *xbr_nl_put_object(struct sk_buff *skb, const struct xbr *br, int type);
struct nlattr **xbr_nl_dump_attrs(struct netlink_callback *cb);

/*
 * Dump one bridge, resuming from cb->args[1] and cb->args[2] (the walk
 * clears them between bridges): 0 when the bridge is done, -EMSGSIZE when
 * the skb is full, another error to stop the dump.
 */
typedef int (*xbr_nl_dump_fn)(struct sk_buff *skb, struct netlink_callback *cb,
			      struct xbr *br, void *ctx);
/*
 * Walk the xbridges of the socket's namespace from cb->args[0] under RTNL;
 * with @filter, only the one XBRIDGE_A_IFINDEX names (which must exist).
 * Returns the dumpit result.
 */
int xbr_nl_dump_bridges(struct sk_buff *skb, struct netlink_callback *cb, bool filter,
			xbr_nl_dump_fn fn, void *ctx);

/* ---- fill functions of the objects, 0 or -EMSGSIZE ---- */

int xbr_nl_fill_port(struct sk_buff *skb, struct xbr *br, struct xbr_port *p);	/* _link.c */
/* @now: ticks for USED/UPDATED, 0 to leave them out; @reason < 0: none. */
int xbr_nl_fill_fdb(struct sk_buff *skb, struct xbr *br, const struct xbg_fdb_entry *e,
		    u32 now, int reason);						/* _fdb.c */
size_t xbr_nl_fdb_msg_size(void);						/* _fdb.c */
int xbr_nl_fill_vlan(struct sk_buff *skb, struct xbr *br, u32 port_ifindex,
		     const struct xbg_vlan_info *v);					/* _vlan.c */

/* ---- notifications (xbridge_genl_monitor.c) ---- */

bool xbr_nl_has_listeners(struct net *net);
void xbr_nl_notify_port(struct xbr *br, struct xbr_port *p);
void xbr_nl_notify_vlan(struct xbr *br, u32 port_ifindex, const struct xbg_vlan_info *v, u8 cmd);
long xbr_nl_notify_dropped(void);
long xbr_nl_ct_events_dropped(void);						/* _ct.c */
bool xbr_genl_ct_listening(void *ctx);						/* _ct.c */
long xbr_nl_nft_events_dropped(void);						/* _nft.c */

#endif /* XBRIDGE_GENL_PRIV_H */
