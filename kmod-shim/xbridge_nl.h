/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, auto-generated from: */
/*	netlink/xbridge.yaml */
/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */

#ifndef XBRIDGE_NL_H
#define XBRIDGE_NL_H

#include <linux/version.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "xbridge.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define XBR_NL_OPS_T struct genl_split_ops
#else
#define XBR_NL_OPS_T struct genl_ops
#endif

/* Common nested types */
extern const struct nla_policy xbridge_bridge_nl_policy[XBRIDGE_BR_MAX + 1];
extern const struct nla_policy xbridge_port_nl_policy[XBRIDGE_PORT_MAX + 1];
extern const struct nla_policy xbridge_fdb_nl_policy[XBRIDGE_FDB_MAX + 1];
extern const struct nla_policy xbridge_flush_nl_policy[XBRIDGE_FLUSH_MAX + 1];
extern const struct nla_policy xbridge_vlan_nl_policy[XBRIDGE_VLAN_MAX + 1];
extern const struct nla_policy xbridge_nft_msg_nl_policy[XBRIDGE_NFT_MAX + 1];
extern const struct nla_policy xbridge_ct_nl_policy[XBRIDGE_CT_MAX + 1];
extern const struct nla_policy xbridge_port_get_port_nl_policy[XBRIDGE_PORT_IFINDEX + 1];
extern const struct nla_policy xbridge_vlan_get_vlan_nl_policy[XBRIDGE_VLAN_PORT_IFINDEX + 1];
extern const struct nla_policy xbridge_ct_flush_ct_nl_policy[XBRIDGE_CT_MARK_MASK + 1];

/* Hand-written: the shared pre/post of every doit, the MAC check. */
int xbr_nl_pre_doit(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info);
void xbr_nl_post_doit(const XBR_NL_OPS_T *ops, struct sk_buff *skb, struct genl_info *info);
int xbr_nl_validate_mac(const struct nlattr *attr, struct netlink_ext_ack *extack);

/* Hand-written handlers, one file per object (xbridge_genl_*.c). */
int xbr_nl_bridge_get_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_bridge_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_bridge_set_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_port_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_fdb_get_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_fdb_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_fdb_new_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_fdb_del_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_fdb_flush_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_vlan_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_vlan_new_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_vlan_del_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_vlan_set_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_nft_batch_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_nft_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_ct_get_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_ct_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int xbr_nl_ct_del_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_ct_flush_doit(struct sk_buff *skb, struct genl_info *info);
int xbr_nl_ct_stats_get_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	XBRIDGE_NLGRP_MONITOR,
	XBRIDGE_NLGRP_CT,
	XBRIDGE_NLGRP_NFT,
};

extern struct genl_family xbr_nl_family;

#endif /* XBRIDGE_NL_H */
