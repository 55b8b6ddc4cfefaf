/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_genl.h - the `xbridge` generic netlink family (xbridge_genl.c):
 * registration, and the FDB event sink the bridge device hands the core.
 */
#ifndef XBRIDGE_GENL_H
#define XBRIDGE_GENL_H

#include <linux/netdevice.h>

struct xbg_fdb_entry;
struct xbg_ct_entry;

int xbr_genl_init(void);
void xbr_genl_exit(void);

/* The core's FDB event sink (ctx: the struct xbr). Under the FDB lock,
 * possibly in softirq: allocates atomically, drops on failure. */
void xbr_genl_fdb_event(void *ctx, u8 type, u8 reason, const struct xbg_fdb_entry *e);
/* The core's ct event sink (ctx: the struct xbr): to the `ct` group.
 * Under a core lock or none, possibly in softirq: as the FDB's. */
void xbr_genl_ct_event(void *ctx, u8 type, u8 detail, const struct xbg_ct_entry *e);

/* From xbridge_main.c: is @dev an xbridge device? */
bool xbr_is_bridge_dev(const struct net_device *dev);

/* Point a new bridge at its namespace's nf_tables ruleset (RTNL held). */
struct xbr;
void xbr_nft_bind(struct xbr *br);

#endif /* XBRIDGE_GENL_H */
