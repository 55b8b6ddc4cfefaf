// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, auto-generated from: */
/*	netlink/xbridge.yaml */
/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "xbridge_nl.h"

#include "xbridge.h"

static struct netlink_range_validation xbridge_br_ageing_time_range = {
	.min	= 0ULL,
	.max	= 100000000ULL,
};

/* Common nested types */
const struct nla_policy xbridge_bridge_nl_policy[XBRIDGE_BR_MAX + 1] = {
	[XBRIDGE_BR_IFNAME] = { .type = NLA_REJECT, .reject_message = "IFNAME is read-only" },
	[XBRIDGE_BR_ADDRESS] = { .type = NLA_REJECT, .reject_message = "ADDRESS is read-only" },
	[XBRIDGE_BR_VLAN_FILTERING] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_BR_VLAN_PROTOCOL] = { .type = NLA_U16 },
	[XBRIDGE_BR_DEFAULT_PVID] = NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_BR_AGEING_TIME] = NLA_POLICY_FULL_RANGE(NLA_U32, &xbridge_br_ageing_time_range),
	[XBRIDGE_BR_FDB_MAX_LEARNED] = { .type = NLA_U32 },
	[XBRIDGE_BR_GROUP_FWD_MASK] = { .type = NLA_U16 },
	[XBRIDGE_BR_FDB_N_LEARNED] = { .type = NLA_REJECT, .reject_message = "FDB_N_LEARNED is read-only" },
	[XBRIDGE_BR_FDB_N_ENTRIES] = { .type = NLA_REJECT, .reject_message = "FDB_N_ENTRIES is read-only" },
	[XBRIDGE_BR_CONNTRACK] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_BR_CONNTRACK_MAX] = { .type = NLA_U32 },
	[XBRIDGE_BR_VLAN_STATS_ENABLED] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_BR_VLAN_STATS_PER_PORT] = NLA_POLICY_MAX(NLA_U8, 1),
};

const struct nla_policy xbridge_port_nl_policy[XBRIDGE_PORT_MAX + 1] = {
	[XBRIDGE_PORT_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_PORT_IFNAME] = { .type = NLA_REJECT, .reject_message = "IFNAME is read-only" },
	[XBRIDGE_PORT_STATE] = NLA_POLICY_MAX(NLA_U8, 4),
	[XBRIDGE_PORT_LEARNING] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_FLOOD] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_MCAST_FLOOD] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_BCAST_FLOOD] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_HAIRPIN] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_ISOLATED] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_LOCKED] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_MAB] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_NEIGH_SUPPRESS] = NLA_POLICY_MAX(NLA_U8, 1),
	[XBRIDGE_PORT_DROPS] = { .type = NLA_REJECT, .reject_message = "DROPS is read-only" },
};

const struct nla_policy xbridge_fdb_nl_policy[XBRIDGE_FDB_MAX + 1] = {
	[XBRIDGE_FDB_MAC] = NLA_POLICY_VALIDATE_FN(NLA_BINARY, xbr_nl_validate_mac),
	[XBRIDGE_FDB_VLAN] = NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_FDB_PORT_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_FDB_STATE] = { .type = NLA_U16 },
	[XBRIDGE_FDB_FLAGS] = { .type = NLA_U32 },
	[XBRIDGE_FDB_USED] = { .type = NLA_REJECT, .reject_message = "USED is read-only" },
	[XBRIDGE_FDB_UPDATED] = { .type = NLA_REJECT, .reject_message = "UPDATED is read-only" },
	[XBRIDGE_FDB_REASON] = { .type = NLA_REJECT, .reject_message = "REASON is read-only" },
	[XBRIDGE_FDB_MODE] = NLA_POLICY_MAX(NLA_U8, 2),
};

const struct nla_policy xbridge_flush_nl_policy[XBRIDGE_FLUSH_MAX + 1] = {
	[XBRIDGE_FLUSH_PORT_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_FLUSH_VLAN] = NLA_POLICY_MAX(NLA_U16, 4094),
	[XBRIDGE_FLUSH_STATE] = { .type = NLA_U16 },
	[XBRIDGE_FLUSH_STATE_MASK] = { .type = NLA_U16 },
	[XBRIDGE_FLUSH_FLAGS] = { .type = NLA_U32 },
	[XBRIDGE_FLUSH_FLAGS_MASK] = { .type = NLA_U32 },
};

const struct nla_policy xbridge_vlan_nl_policy[XBRIDGE_VLAN_MAX + 1] = {
	[XBRIDGE_VLAN_PORT_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_VLAN_VID] = NLA_POLICY_RANGE(NLA_U16, 1, 4094),
	[XBRIDGE_VLAN_VID_END] = NLA_POLICY_RANGE(NLA_U16, 1, 4094),
	[XBRIDGE_VLAN_FLAGS] = { .type = NLA_U16 },
	[XBRIDGE_VLAN_STATE] = NLA_POLICY_MAX(NLA_U8, 4),
	[XBRIDGE_VLAN_RX_PACKETS] = { .type = NLA_REJECT, .reject_message = "RX_PACKETS is read-only" },
	[XBRIDGE_VLAN_RX_BYTES] = { .type = NLA_REJECT, .reject_message = "RX_BYTES is read-only" },
	[XBRIDGE_VLAN_TX_PACKETS] = { .type = NLA_REJECT, .reject_message = "TX_PACKETS is read-only" },
	[XBRIDGE_VLAN_TX_BYTES] = { .type = NLA_REJECT, .reject_message = "TX_BYTES is read-only" },
};

const struct nla_policy xbridge_nft_msg_nl_policy[XBRIDGE_NFT_MAX + 1] = {
	[XBRIDGE_NFT_TYPE] = NLA_POLICY_MAX(NLA_U16, 255),
	[XBRIDGE_NFT_FLAGS] = { .type = NLA_U16 },
	[XBRIDGE_NFT_FAMILY] = { .type = NLA_U8 },
	[XBRIDGE_NFT_ATTRS] = { .type = NLA_BINARY },
};

const struct nla_policy xbridge_ct_nl_policy[XBRIDGE_CT_MAX + 1] = {
	[XBRIDGE_CT_L3] = { .type = NLA_U8 },
	[XBRIDGE_CT_PROTO] = { .type = NLA_U8 },
	[XBRIDGE_CT_SRC] = NLA_POLICY_EXACT_LEN(16),
	[XBRIDGE_CT_DST] = NLA_POLICY_EXACT_LEN(16),
	[XBRIDGE_CT_SPORT] = { .type = NLA_U16 },
	[XBRIDGE_CT_DPORT] = { .type = NLA_U16 },
	[XBRIDGE_CT_ZONE] = { .type = NLA_U16 },
	[XBRIDGE_CT_REPLY_SRC] = { .type = NLA_REJECT, .reject_message = "REPLY_SRC is read-only" },
	[XBRIDGE_CT_REPLY_DST] = { .type = NLA_REJECT, .reject_message = "REPLY_DST is read-only" },
	[XBRIDGE_CT_REPLY_SPORT] = { .type = NLA_REJECT, .reject_message = "REPLY_SPORT is read-only" },
	[XBRIDGE_CT_REPLY_DPORT] = { .type = NLA_REJECT, .reject_message = "REPLY_DPORT is read-only" },
	[XBRIDGE_CT_STATUS] = { .type = NLA_REJECT, .reject_message = "STATUS is read-only" },
	[XBRIDGE_CT_TCP_STATE] = { .type = NLA_REJECT, .reject_message = "TCP_STATE is read-only" },
	[XBRIDGE_CT_TIMEOUT] = { .type = NLA_REJECT, .reject_message = "TIMEOUT is read-only" },
	[XBRIDGE_CT_MARK] = { .type = NLA_U32 },
	[XBRIDGE_CT_USE] = { .type = NLA_REJECT, .reject_message = "USE is read-only" },
	[XBRIDGE_CT_ORIG_PACKETS] = { .type = NLA_REJECT, .reject_message = "ORIG_PACKETS is read-only" },
	[XBRIDGE_CT_ORIG_BYTES] = { .type = NLA_REJECT, .reject_message = "ORIG_BYTES is read-only" },
	[XBRIDGE_CT_REPLY_PACKETS] = { .type = NLA_REJECT, .reject_message = "REPLY_PACKETS is read-only" },
	[XBRIDGE_CT_REPLY_BYTES] = { .type = NLA_REJECT, .reject_message = "REPLY_BYTES is read-only" },
	[XBRIDGE_CT_FLOW_TEARDOWN] = { .type = NLA_REJECT, .reject_message = "FLOW_TEARDOWN is read-only" },
	[XBRIDGE_CT_MARK_MASK] = { .type = NLA_U32 },
	[XBRIDGE_CT_SCTP_STATE] = { .type = NLA_REJECT, .reject_message = "SCTP_STATE is read-only" },
	[XBRIDGE_CT_DCCP_STATE] = { .type = NLA_REJECT, .reject_message = "DCCP_STATE is read-only" },
};

/* XBRIDGE_CMD_BRIDGE_GET - do/dump */
static const struct nla_policy xbridge_bridge_get_nl_policy[XBRIDGE_A_IFINDEX + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
};

/* XBRIDGE_CMD_BRIDGE_SET - do */
static const struct nla_policy xbridge_bridge_set_nl_policy[XBRIDGE_A_BRIDGE + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_BRIDGE] = NLA_POLICY_NESTED(xbridge_bridge_nl_policy),
};

/* XBRIDGE_CMD_PORT_GET - PORT nest */
const struct nla_policy xbridge_port_get_port_nl_policy[XBRIDGE_PORT_IFINDEX + 1] = {
	[XBRIDGE_PORT_IFINDEX] = { .type = NLA_U32 },
};

/* XBRIDGE_CMD_PORT_GET - do/dump */
static const struct nla_policy xbridge_port_get_nl_policy[XBRIDGE_A_PORT + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_PORT] = NLA_POLICY_NESTED(xbridge_port_get_port_nl_policy),
};

/* XBRIDGE_CMD_PORT_SET - do */
static const struct nla_policy xbridge_port_set_nl_policy[XBRIDGE_A_PORT + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_PORT] = NLA_POLICY_NESTED(xbridge_port_nl_policy),
};

/* XBRIDGE_CMD_FDB_GET - do/dump */
static const struct nla_policy xbridge_fdb_get_nl_policy[XBRIDGE_A_FDB + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_FDB] = NLA_POLICY_NESTED(xbridge_fdb_nl_policy),
};

/* XBRIDGE_CMD_FDB_NEW - do */
static const struct nla_policy xbridge_fdb_new_nl_policy[XBRIDGE_A_FDB + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_FDB] = NLA_POLICY_NESTED(xbridge_fdb_nl_policy),
};

/* XBRIDGE_CMD_FDB_DEL - do */
static const struct nla_policy xbridge_fdb_del_nl_policy[XBRIDGE_A_FDB + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_FDB] = NLA_POLICY_NESTED(xbridge_fdb_nl_policy),
};

/* XBRIDGE_CMD_FDB_FLUSH - do */
static const struct nla_policy xbridge_fdb_flush_nl_policy[XBRIDGE_A_FLUSH + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_FLUSH] = NLA_POLICY_NESTED(xbridge_flush_nl_policy),
};

/* XBRIDGE_CMD_VLAN_GET - VLAN nest */
const struct nla_policy xbridge_vlan_get_vlan_nl_policy[XBRIDGE_VLAN_PORT_IFINDEX + 1] = {
	[XBRIDGE_VLAN_PORT_IFINDEX] = { .type = NLA_U32 },
};

/* XBRIDGE_CMD_VLAN_GET - dump */
static const struct nla_policy xbridge_vlan_get_nl_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_VLAN] = NLA_POLICY_NESTED(xbridge_vlan_get_vlan_nl_policy),
};

/* XBRIDGE_CMD_VLAN_NEW - do */
static const struct nla_policy xbridge_vlan_new_nl_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_VLAN] = NLA_POLICY_NESTED(xbridge_vlan_nl_policy),
};

/* XBRIDGE_CMD_VLAN_DEL - do */
static const struct nla_policy xbridge_vlan_del_nl_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_VLAN] = NLA_POLICY_NESTED(xbridge_vlan_nl_policy),
};

/* XBRIDGE_CMD_VLAN_SET - do */
static const struct nla_policy xbridge_vlan_set_nl_policy[XBRIDGE_A_VLAN + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_VLAN] = NLA_POLICY_NESTED(xbridge_vlan_nl_policy),
};

/* XBRIDGE_CMD_NFT_BATCH - do */
static const struct nla_policy xbridge_nft_batch_nl_policy[XBRIDGE_A_NFT_CHECK + 1] = {
	[XBRIDGE_A_NFT_MSG] = NLA_POLICY_NESTED(xbridge_nft_msg_nl_policy),
	[XBRIDGE_A_NFT_CHECK] = { .type = NLA_FLAG },
};

/* XBRIDGE_CMD_NFT_GET - dump */
static const struct nla_policy xbridge_nft_get_nl_policy[XBRIDGE_A_NFT_MSG + 1] = {
	[XBRIDGE_A_NFT_MSG] = NLA_POLICY_NESTED(xbridge_nft_msg_nl_policy),
};

/* XBRIDGE_CMD_CT_GET - do/dump */
static const struct nla_policy xbridge_ct_get_nl_policy[XBRIDGE_A_CT + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_CT] = NLA_POLICY_NESTED(xbridge_ct_nl_policy),
};

/* XBRIDGE_CMD_CT_DEL - do */
static const struct nla_policy xbridge_ct_del_nl_policy[XBRIDGE_A_CT + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_CT] = NLA_POLICY_NESTED(xbridge_ct_nl_policy),
};

/* XBRIDGE_CMD_CT_FLUSH - CT nest */
const struct nla_policy xbridge_ct_flush_ct_nl_policy[XBRIDGE_CT_MARK_MASK + 1] = {
	[XBRIDGE_CT_ZONE] = { .type = NLA_U16 },
	[XBRIDGE_CT_MARK] = { .type = NLA_U32 },
	[XBRIDGE_CT_MARK_MASK] = { .type = NLA_U32 },
};

/* XBRIDGE_CMD_CT_FLUSH - do */
static const struct nla_policy xbridge_ct_flush_nl_policy[XBRIDGE_A_CT + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
	[XBRIDGE_A_CT] = NLA_POLICY_NESTED(xbridge_ct_flush_ct_nl_policy),
};

/* XBRIDGE_CMD_CT_STATS_GET - do */
static const struct nla_policy xbridge_ct_stats_get_nl_policy[XBRIDGE_A_IFINDEX + 1] = {
	[XBRIDGE_A_IFINDEX] = { .type = NLA_U32 },
};

/* Ops table for xbridge */
static const struct genl_ops xbridge_nl_ops[] = {
	{
		.cmd		= XBRIDGE_CMD_BRIDGE_GET,
		.doit		= xbr_nl_bridge_get_doit,
		.dumpit		= xbr_nl_bridge_get_dumpit,
		.policy		= xbridge_bridge_get_nl_policy,
		.maxattr	= XBRIDGE_A_IFINDEX,
	},
	{
		.cmd		= XBRIDGE_CMD_BRIDGE_SET,
		.doit		= xbr_nl_bridge_set_doit,
		.policy		= xbridge_bridge_set_nl_policy,
		.maxattr	= XBRIDGE_A_BRIDGE,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_PORT_GET,
		.doit		= xbr_nl_port_get_doit,
		.dumpit		= xbr_nl_port_get_dumpit,
		.policy		= xbridge_port_get_nl_policy,
		.maxattr	= XBRIDGE_A_PORT,
	},
	{
		.cmd		= XBRIDGE_CMD_PORT_SET,
		.doit		= xbr_nl_port_set_doit,
		.policy		= xbridge_port_set_nl_policy,
		.maxattr	= XBRIDGE_A_PORT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_FDB_GET,
		.doit		= xbr_nl_fdb_get_doit,
		.dumpit		= xbr_nl_fdb_get_dumpit,
		.policy		= xbridge_fdb_get_nl_policy,
		.maxattr	= XBRIDGE_A_FDB,
	},
	{
		.cmd		= XBRIDGE_CMD_FDB_NEW,
		.doit		= xbr_nl_fdb_new_doit,
		.policy		= xbridge_fdb_new_nl_policy,
		.maxattr	= XBRIDGE_A_FDB,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_FDB_DEL,
		.doit		= xbr_nl_fdb_del_doit,
		.policy		= xbridge_fdb_del_nl_policy,
		.maxattr	= XBRIDGE_A_FDB,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_FDB_FLUSH,
		.doit		= xbr_nl_fdb_flush_doit,
		.policy		= xbridge_fdb_flush_nl_policy,
		.maxattr	= XBRIDGE_A_FLUSH,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_VLAN_GET,
		.dumpit		= xbr_nl_vlan_get_dumpit,
		.policy		= xbridge_vlan_get_nl_policy,
		.maxattr	= XBRIDGE_A_VLAN,
	},
	{
		.cmd		= XBRIDGE_CMD_VLAN_NEW,
		.doit		= xbr_nl_vlan_new_doit,
		.policy		= xbridge_vlan_new_nl_policy,
		.maxattr	= XBRIDGE_A_VLAN,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_VLAN_DEL,
		.doit		= xbr_nl_vlan_del_doit,
		.policy		= xbridge_vlan_del_nl_policy,
		.maxattr	= XBRIDGE_A_VLAN,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_VLAN_SET,
		.doit		= xbr_nl_vlan_set_doit,
		.policy		= xbridge_vlan_set_nl_policy,
		.maxattr	= XBRIDGE_A_VLAN,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_NFT_BATCH,
		.doit		= xbr_nl_nft_batch_doit,
		.policy		= xbridge_nft_batch_nl_policy,
		.maxattr	= XBRIDGE_A_NFT_CHECK,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_NFT_GET,
		.dumpit		= xbr_nl_nft_get_dumpit,
		.policy		= xbridge_nft_get_nl_policy,
		.maxattr	= XBRIDGE_A_NFT_MSG,
	},
	{
		.cmd		= XBRIDGE_CMD_CT_GET,
		.doit		= xbr_nl_ct_get_doit,
		.dumpit		= xbr_nl_ct_get_dumpit,
		.policy		= xbridge_ct_get_nl_policy,
		.maxattr	= XBRIDGE_A_CT,
	},
	{
		.cmd		= XBRIDGE_CMD_CT_DEL,
		.doit		= xbr_nl_ct_del_doit,
		.policy		= xbridge_ct_del_nl_policy,
		.maxattr	= XBRIDGE_A_CT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_CT_FLUSH,
		.doit		= xbr_nl_ct_flush_doit,
		.policy		= xbridge_ct_flush_nl_policy,
		.maxattr	= XBRIDGE_A_CT,
		.flags		= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd		= XBRIDGE_CMD_CT_STATS_GET,
		.doit		= xbr_nl_ct_stats_get_doit,
		.policy		= xbridge_ct_stats_get_nl_policy,
		.maxattr	= XBRIDGE_A_IFINDEX,
	},
};

static const struct genl_multicast_group xbridge_nl_mcgrps[] = {
	[XBRIDGE_NLGRP_MONITOR] = { "monitor", },
	[XBRIDGE_NLGRP_CT] = { "ct", },
	[XBRIDGE_NLGRP_NFT] = { "nft", },
};

struct genl_family xbr_nl_family __ro_after_init = {
	.name		= XBRIDGE_FAMILY_NAME,
	.version	= XBRIDGE_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= false,
	.module		= THIS_MODULE,
	.ops		= xbridge_nl_ops,
	.n_ops		= ARRAY_SIZE(xbridge_nl_ops),
	.resv_start_op	= XBRIDGE_CMD_BRIDGE_GET,
	.pre_doit	= xbr_nl_pre_doit,
	.post_doit	= xbr_nl_post_doit,
	.mcgrps		= xbridge_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(xbridge_nl_mcgrps),
};
