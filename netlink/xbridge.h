/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	netlink/xbridge.yaml */
/* by tools/nlgen.py; regenerate with: python3 tools/nlgen.py */

/*
 * Configure xbridge Ethernet bridges: the bridge's options, its ports, FDB
 * entries and VLANs, as iproute2's `bridge` does for the Linux bridge.
 * Requests name the bridge (and the port) by ifindex and act in the
 * caller's network namespace; changes need CAP_NET_ADMIN there. FDB_NEW
 * carries the intent iproute2's `bridge fdb add|replace|append` puts in
 * the nlmsg flags of RTM_NEWNEIGH in its fdb mode attribute (create: EEXIST
 * if the entry exists). Every message is validated strictly: the genetlink
 * header's reserved field and nlmsg flags other than REQUEST, ACK, ECHO and
 * DUMP are refused, as are unknown or read-only attributes.
 */
#ifndef _UAPI_LINUX_XBRIDGE_H
#define _UAPI_LINUX_XBRIDGE_H

#define XBRIDGE_FAMILY_NAME		"xbridge"
#define XBRIDGE_FAMILY_VERSION		1
#define XBRIDGE_MCGRP_MONITOR		"monitor"
#define XBRIDGE_MCGRP_CT		"ct"
#define XBRIDGE_MCGRP_NFT		"nft"

/* The first operation value of the nft objects. */
#define XBRIDGE_CMD_NFT_FIRST	64

/* The first operation value of the conntrack objects (after the nft ones). */
#define XBRIDGE_CMD_CT_FIRST	128

/* Connection status bits, as enum ip_conntrack_status (IPS_*). */
enum xbridge_ct_status {
	XBRIDGE_CT_S_SEEN_REPLY = 0x2,
	XBRIDGE_CT_S_ASSURED = 0x4,
	XBRIDGE_CT_S_CONFIRMED = 0x8,
	XBRIDGE_CT_S_DYING = 0x200,
	XBRIDGE_CT_S_OFFLOAD = 0x4000,
};

/* FDB entry state, as ndm_state (NUD_*); exactly one is set. */
enum xbridge_fdb_state {
	XBRIDGE_FDB_STATE_REACHABLE = 0x2,	/* dynamic (learned or added as dynamic) */
	XBRIDGE_FDB_STATE_NOARP = 0x40,	/* static */
	XBRIDGE_FDB_STATE_PERMANENT = 0x80,	/* local (one of the bridge's addresses; the iproute2 default) */
};

enum xbridge_fdb_flags {
	XBRIDGE_FDB_F_STICKY = 0x1,
	XBRIDGE_FDB_F_EXT_LEARN = 0x2,
	XBRIDGE_FDB_F_LOCKED = 0x4,	/* read-only (MAB) */
	XBRIDGE_FDB_F_ADDED_BY_USER = 0x8,	/* read-only */
};

/* What FDB_NEW does with an entry that exists (the NLM_F_* flags of RTM_NEWNEIGH that `bridge fdb` sends): replace - overwrite it, or create it (NLM_F_CREATE | NLM_F_REPLACE, `bridge fdb replace`); create - fail with EEXIST (NLM_F_CREATE | NLM_F_EXCL, `bridge fdb add`); append - as replace for a bridge (NLM_F_CREATE | NLM_F_APPEND, `bridge fdb append`). */
enum xbridge_fdb_mode {
	XBRIDGE_FDB_MODE_REPLACE = 0,
	XBRIDGE_FDB_MODE_CREATE = 1,
	XBRIDGE_FDB_MODE_APPEND = 2,
};

/* Why an FDB notification was sent. */
enum xbridge_fdb_reason {
	XBRIDGE_FDB_REASON_LEARNED = 0,
	XBRIDGE_FDB_REASON_USER = 1,
	XBRIDGE_FDB_REASON_AGED = 2,
	XBRIDGE_FDB_REASON_FLUSHED = 3,
	XBRIDGE_FDB_REASON_PORT_REMOVED = 4,
	XBRIDGE_FDB_REASON_VLAN_REMOVED = 5,
};

/* Why a flow left the bridge flowtable (the flow-teardown attribute of a ct update event): its cached destination went stale (FDB, port, VLAN or bridge change), a TCP FIN or RST, no hit for the flow timeout, conntrack removed the connection, the flowtable went away (conntrack off, bridge deleted), a ruleset commit. */
enum xbridge_flow_teardown {
	XBRIDGE_FLOW_TEARDOWN_STALE = 0,
	XBRIDGE_FLOW_TEARDOWN_FIN_RST = 1,
	XBRIDGE_FLOW_TEARDOWN_TIMEOUT = 2,
	XBRIDGE_FLOW_TEARDOWN_CONNTRACK = 3,
	XBRIDGE_FLOW_TEARDOWN_FLUSH = 4,
	XBRIDGE_FLOW_TEARDOWN_RULESET = 5,
};

/* The values of BRIDGE_VLAN_INFO_*. */
enum xbridge_vlan_flags {
	XBRIDGE_VLAN_F_PVID = 0x2,
	XBRIDGE_VLAN_F_UNTAGGED = 0x4,
};

enum xbridge_attr {
	XBRIDGE_A_UNSPEC,
	XBRIDGE_A_IFINDEX = 1,	/* u32; The bridge device. */
	XBRIDGE_A_BRIDGE = 2,	/* nest: enum xbridge_bridge_attr */
	XBRIDGE_A_PORT = 3,	/* nest: enum xbridge_port_attr */
	XBRIDGE_A_FDB = 4,	/* nest: enum xbridge_fdb_attr */
	XBRIDGE_A_VLAN = 5,	/* nest: enum xbridge_vlan_attr */
	XBRIDGE_A_FLUSH = 6,	/* nest: enum xbridge_flush_attr */
	XBRIDGE_A_PAD = 7,
	XBRIDGE_A_CT = 8,	/* nest: enum xbridge_ct_attr */
	XBRIDGE_A_CT_STATS = 9,	/* nest: enum xbridge_ct_stats_attr; read-only */
	XBRIDGE_A_NFT_MSG = 10,	/* nest: enum xbridge_nft_attr; One nf_tables message: a request of an NFT_BATCH (repeated, in batch order) or an object of an NFT_GET dump. */
	XBRIDGE_A_NFT_ERROR = 11,	/* nest: enum xbridge_nft_error_attr; read-only; One refused message of an NFT_BATCH (repeated, in batch order), in the reply sent before the batch's error ack. */
	XBRIDGE_A_NFT_CHECK = 12,	/* flag; NFT_BATCH: check the batch (nft --check) - every message applied and the result validated as a commit validates it, then aborted: the answer says whether it would commit, and nothing changes. */

	__XBRIDGE_A_MAX,
	XBRIDGE_A_MAX = __XBRIDGE_A_MAX - 1,
};

/* A message of an NFT_BATCH the ruleset refused, as nfnetlink reports each refused message of a batch: every message is tried, each refusal is reported, and nothing is committed. */
enum xbridge_nft_error_attr {
	XBRIDGE_NFT_ERROR_UNSPEC,
	XBRIDGE_NFT_ERROR_INDEX = 1,	/* u32; The message's position among the request's nft-msg attributes (from 0). */
	XBRIDGE_NFT_ERROR_ERRNO = 2,	/* u32; The positive errno value. */
	XBRIDGE_NFT_ERROR_OFFSET = 3,	/* u32; The offset from the request's netlink header of the attribute at fault, as the extack's NLMSGERR_ATTR_OFFS (the nft-msg itself when nothing inside it was named). */
	XBRIDGE_NFT_ERROR_MSG = 4,	/* string; The extack message. */

	__XBRIDGE_NFT_ERROR_MAX,
	XBRIDGE_NFT_ERROR_MAX = __XBRIDGE_NFT_ERROR_MAX - 1,
};

/* An nf_tables message carried whole: its NFT_MSG_* type, netlink request flags and nfgen family, and its NFTA_* attributes exactly as libnftnl builds them for nf_tables (the core parses and validates them as nf_tables does). */
enum xbridge_nft_attr {
	XBRIDGE_NFT_UNSPEC,
	XBRIDGE_NFT_TYPE = 1,	/* u16; NFT_MSG_* (NEWTABLE ... DELFLOWTABLE; GET* in a dump request). */
	XBRIDGE_NFT_FLAGS = 2,	/* u16; NLM_F_CREATE, NLM_F_EXCL, NLM_F_APPEND, NLM_F_REPLACE, NLM_F_NONREC; NLM_F_ECHO: the notifications of what the message changed are also sent to the requester, with the request's sequence number (nft --echo); the first message's also has NEWGEN sent. In an event, the flags nf_tables gives its notification (a new rule's: NLM_F_APPEND unless it was inserted). */
	XBRIDGE_NFT_FAMILY = 3,	/* u8; The nfgen family (NFPROTO_BRIDGE; 0 in a flush of every table). */
	XBRIDGE_NFT_ATTRS = 4,	/* binary; The message's NFTA_* attributes. */

	__XBRIDGE_NFT_MAX,
	XBRIDGE_NFT_MAX = __XBRIDGE_NFT_MAX - 1,
};

/* Bridge options, as `ip link set BR type bridge ...`. */
enum xbridge_bridge_attr {
	XBRIDGE_BR_UNSPEC,
	XBRIDGE_BR_IFNAME = 1,	/* string; read-only */
	XBRIDGE_BR_ADDRESS = 2,	/* binary; read-only */
	XBRIDGE_BR_VLAN_FILTERING = 3,	/* u8 */
	XBRIDGE_BR_VLAN_PROTOCOL = 4,	/* u16; Host order, 0x8100 or 0x88a8 (else EPROTONOSUPPORT). */
	XBRIDGE_BR_DEFAULT_PVID = 5,	/* u16; Changes with vlan_filtering on or off, as br_changelink does. */
	XBRIDGE_BR_AGEING_TIME = 6,	/* u32; Centiseconds, as iproute2; 0 disables learning. */
	XBRIDGE_BR_FDB_MAX_LEARNED = 7,	/* u32; 0 means no limit. */
	XBRIDGE_BR_GROUP_FWD_MASK = 8,	/* u16; Bits 0-2 (802.1D, pause, LACP) may not be set. */
	XBRIDGE_BR_FDB_N_LEARNED = 9,	/* u32; read-only */
	XBRIDGE_BR_FDB_N_ENTRIES = 10,	/* u32; read-only */
	XBRIDGE_BR_CONNTRACK = 11,	/* u8; Track every frame entering through a port, as nf_conntrack_bridge (default 0). Turning it off frees every entry. */
	XBRIDGE_BR_CONNTRACK_MAX = 12,	/* u32; The connection table's bound, as nf_conntrack_max (default 65536; 0: no bound). Kept while conntrack is off; lowering it removes no entry; above it a new connection early-drops an unreplied one or is dropped. */
	XBRIDGE_BR_VLAN_STATS_ENABLED = 13,	/* u8; Per-VLAN rx/tx counters, as IFLA_BR_VLAN_STATS_ENABLED (default 0). */
	XBRIDGE_BR_VLAN_STATS_PER_PORT = 14,	/* u8; Port VLANs count on their own instead of into the bridge's per-VID counters, as IFLA_BR_VLAN_STATS_PER_PORT (default 0); EBUSY while a port has a VLAN. */

	__XBRIDGE_BR_MAX,
	XBRIDGE_BR_MAX = __XBRIDGE_BR_MAX - 1,
};

/* A port, as `bridge link set dev DEV ...`. Flags are u8 0/1. */
enum xbridge_port_attr {
	XBRIDGE_PORT_UNSPEC,
	XBRIDGE_PORT_IFINDEX = 1,	/* u32 */
	XBRIDGE_PORT_IFNAME = 2,	/* string; read-only */
	XBRIDGE_PORT_STATE = 3,	/* u8; BR_STATE_* (disabled, listening, learning, forwarding, blocking). */
	XBRIDGE_PORT_LEARNING = 4,	/* u8 */
	XBRIDGE_PORT_FLOOD = 5,	/* u8 */
	XBRIDGE_PORT_MCAST_FLOOD = 6,	/* u8 */
	XBRIDGE_PORT_BCAST_FLOOD = 7,	/* u8 */
	XBRIDGE_PORT_HAIRPIN = 8,	/* u8 */
	XBRIDGE_PORT_ISOLATED = 9,	/* u8 */
	XBRIDGE_PORT_LOCKED = 10,	/* u8 */
	XBRIDGE_PORT_MAB = 11,	/* u8; Needs locked and learning. */
	XBRIDGE_PORT_NEIGH_SUPPRESS = 12,	/* u8 */
	XBRIDGE_PORT_DROPS = 13,	/* nest: enum xbridge_port_drop; read-only; one u64 per drop reason (enum port-drop). */

	__XBRIDGE_PORT_MAX,
	XBRIDGE_PORT_MAX = __XBRIDGE_PORT_MAX - 1,
};

enum xbridge_port_drop {
	XBRIDGE_PORT_DROP_PAD = 0,
	XBRIDGE_PORT_DROP_TRUNCATED = 1,	/* u64 */
	XBRIDGE_PORT_DROP_SOURCE_INVALID = 2,	/* u64 */
	XBRIDGE_PORT_DROP_LINK_LOCAL_PAUSE = 3,	/* u64 */
	XBRIDGE_PORT_DROP_PORT_STATE = 4,	/* u64 */
	XBRIDGE_PORT_DROP_LEARNING_ONLY = 5,	/* u64 */
	XBRIDGE_PORT_DROP_NO_PVID = 6,	/* u64 */
	XBRIDGE_PORT_DROP_VLAN_NOT_MEMBER = 7,	/* u64 */
	XBRIDGE_PORT_DROP_VLAN_STATE = 8,	/* u64 */
	XBRIDGE_PORT_DROP_LOCKED_PORT = 9,	/* u64 */
	XBRIDGE_PORT_DROP_NO_EGRESS = 10,	/* u64 */
	XBRIDGE_PORT_DROP_HOST_VLAN = 11,	/* u64 */
	XBRIDGE_PORT_DROP_CONNTRACK = 12,	/* u64 */
	XBRIDGE_PORT_DROP_NETFILTER = 13,	/* u64 */

	__XBRIDGE_PORT_DROP_MAX,
	XBRIDGE_PORT_DROP_MAX = __XBRIDGE_PORT_DROP_MAX - 1,
};

enum xbridge_fdb_attr {
	XBRIDGE_FDB_UNSPEC,
	XBRIDGE_FDB_MAC = 1,	/* binary; Not zero or multicast for FDB_NEW (EINVAL). */
	XBRIDGE_FDB_VLAN = 2,	/* u16; Absent in FDB_NEW/FDB_DEL - VID 0 and every VLAN of the port. */
	XBRIDGE_FDB_PORT_IFINDEX = 3,	/* u32; The port; the bridge itself for its own (permanent) entries. */
	XBRIDGE_FDB_STATE = 4,	/* u16; FDB_NEW default - permanent. */
	XBRIDGE_FDB_FLAGS = 5,	/* u32; FDB_NEW accepts sticky and ext-learn; sticky + permanent is EINVAL. */
	XBRIDGE_FDB_USED = 6,	/* u32; read-only; seconds since last forwarded to. */
	XBRIDGE_FDB_UPDATED = 7,	/* u32; read-only; seconds since last learned or changed. */
	XBRIDGE_FDB_REASON = 8,	/* u8; read-only; notifications only. */
	XBRIDGE_FDB_MODE = 9,	/* u8; FDB_NEW only (default replace); refused elsewhere. */

	__XBRIDGE_FDB_MAX,
	XBRIDGE_FDB_MAX = __XBRIDGE_FDB_MAX - 1,
};

enum xbridge_vlan_attr {
	XBRIDGE_VLAN_UNSPEC,
	XBRIDGE_VLAN_PORT_IFINDEX = 1,	/* u32; The port; the bridge itself for its own ("self") VLANs. */
	XBRIDGE_VLAN_VID = 2,	/* u16 */
	XBRIDGE_VLAN_VID_END = 3,	/* u16; A range vid..vid-end (not before vid; not with pvid). */
	XBRIDGE_VLAN_FLAGS = 4,	/* u16 */
	XBRIDGE_VLAN_STATE = 5,	/* u8 */
	XBRIDGE_VLAN_RX_PACKETS = 6,	/* u64; read-only */
	XBRIDGE_VLAN_RX_BYTES = 7,	/* u64; read-only */
	XBRIDGE_VLAN_TX_PACKETS = 8,	/* u64; read-only */
	XBRIDGE_VLAN_TX_BYTES = 9,	/* u64; read-only */
	XBRIDGE_VLAN_PAD = 10,

	__XBRIDGE_VLAN_MAX,
	XBRIDGE_VLAN_MAX = __XBRIDGE_VLAN_MAX - 1,
};

/* What FDB_FLUSH selects; every given attribute must match. */
enum xbridge_flush_attr {
	XBRIDGE_FLUSH_UNSPEC,
	XBRIDGE_FLUSH_PORT_IFINDEX = 1,	/* u32 */
	XBRIDGE_FLUSH_VLAN = 2,	/* u16 */
	XBRIDGE_FLUSH_STATE = 3,	/* u16; The state bits (of state-mask) that must be set. */
	XBRIDGE_FLUSH_STATE_MASK = 4,	/* u16; Which state bits to compare; absent - those in state. */
	XBRIDGE_FLUSH_FLAGS = 5,	/* u32 */
	XBRIDGE_FLUSH_FLAGS_MASK = 6,	/* u32 */

	__XBRIDGE_FLUSH_MAX,
	XBRIDGE_FLUSH_MAX = __XBRIDGE_FLUSH_MAX - 1,
};

/* A connection (CT_GET, CT_DEL), or the filter of a dump or flush (zone). The tuple is the original direction's; for ICMP/ICMPv6, sport is the identifier and dport is type << 8 | code, as the core keys them. */
enum xbridge_ct_attr {
	XBRIDGE_CT_UNSPEC,
	XBRIDGE_CT_L3 = 1,	/* u8; 4 (IPv4) or 6 (IPv6). */
	XBRIDGE_CT_PROTO = 2,	/* u8; The layer-4 protocol (IPPROTO_*). */
	XBRIDGE_CT_SRC = 3,	/* binary; Network order; an IPv4 address in the first 4 bytes, the rest zero. */
	XBRIDGE_CT_DST = 4,	/* binary */
	XBRIDGE_CT_SPORT = 5,	/* u16; Host order. */
	XBRIDGE_CT_DPORT = 6,	/* u16; Host order. */
	XBRIDGE_CT_ZONE = 7,	/* u16; Default 0 in CT_GET and CT_DEL; absent in a dump or flush - every zone. */
	XBRIDGE_CT_REPLY_SRC = 8,	/* binary; read-only */
	XBRIDGE_CT_REPLY_DST = 9,	/* binary; read-only */
	XBRIDGE_CT_REPLY_SPORT = 10,	/* u16; read-only */
	XBRIDGE_CT_REPLY_DPORT = 11,	/* u16; read-only */
	XBRIDGE_CT_STATUS = 12,	/* u32; read-only */
	XBRIDGE_CT_TCP_STATE = 13,	/* u8; read-only; TCP_CONNTRACK_* (1 syn_sent .. 9 syn_sent2); TCP only. */
	XBRIDGE_CT_TIMEOUT = 14,	/* u32; read-only; Seconds until the entry expires. */
	XBRIDGE_CT_MARK = 15,	/* u32; The connection's mark in dumps and events; in CT_FLUSH, take only the connections whose mark, under mark-mask, equals it (conntrack -D --mark). */
	XBRIDGE_CT_USE = 16,	/* u32; read-only; References, as ctnetlink's CTA_USE (1 for a confirmed entry). */
	XBRIDGE_CT_ORIG_PACKETS = 17,	/* u64; read-only */
	XBRIDGE_CT_ORIG_BYTES = 18,	/* u64; read-only */
	XBRIDGE_CT_REPLY_PACKETS = 19,	/* u64; read-only */
	XBRIDGE_CT_REPLY_BYTES = 20,	/* u64; read-only */
	XBRIDGE_CT_PAD = 21,
	XBRIDGE_CT_FLOW_TEARDOWN = 22,	/* u8; read-only; Events only: the update that reports a flow torn down (the offload flag cleared) carries why. */
	XBRIDGE_CT_MARK_MASK = 23,	/* u32; CT_FLUSH with mark - the bits of the mark compared (default every bit). */
	XBRIDGE_CT_SCTP_STATE = 24,	/* u8; read-only; SCTP_CONNTRACK_* (1 closed .. 8 heartbeat_sent); SCTP only. */
	XBRIDGE_CT_DCCP_STATE = 25,	/* u8; read-only; CT_DCCP_* (0 none .. 7 timewait); DCCP only. */

	__XBRIDGE_CT_MAX,
	XBRIDGE_CT_MAX = __XBRIDGE_CT_MAX - 1,
};

/* The table's counters (`conntrack -S`), summed over the CPUs, and its size; then the bridge flowtable's flows and counters (teardowns by cause). */
enum xbridge_ct_stats_attr {
	XBRIDGE_CT_STATS_UNSPEC,
	XBRIDGE_CT_STATS_COUNT = 1,	/* u32 */
	XBRIDGE_CT_STATS_MAX_ENTRIES = 2,	/* u32 */
	XBRIDGE_CT_STATS_BUCKETS = 3,	/* u32 */
	XBRIDGE_CT_STATS_FOUND = 4,	/* u64 */
	XBRIDGE_CT_STATS_INVALID = 5,	/* u64 */
	XBRIDGE_CT_STATS_INSERT = 6,	/* u64 */
	XBRIDGE_CT_STATS_INSERT_FAILED = 7,	/* u64 */
	XBRIDGE_CT_STATS_DROP = 8,	/* u64 */
	XBRIDGE_CT_STATS_EARLY_DROP = 9,	/* u64 */
	XBRIDGE_CT_STATS_ERROR = 10,	/* u64 */
	XBRIDGE_CT_STATS_SEARCH_RESTART = 11,	/* u64 */
	XBRIDGE_CT_STATS_CLASH_RESOLVE = 12,	/* u64 */
	XBRIDGE_CT_STATS_CHAINTOOLONG = 13,	/* u64 */
	XBRIDGE_CT_STATS_PAD = 14,
	XBRIDGE_CT_STATS_FLOWS = 15,	/* u32; the flowtable's live flows */
	XBRIDGE_CT_STATS_FLOW_HITS = 16,	/* u64 */
	XBRIDGE_CT_STATS_FLOW_ADDS = 17,	/* u64 */
	XBRIDGE_CT_STATS_FLOW_ADD_FAILED = 18,	/* u64 */
	XBRIDGE_CT_STATS_FLOW_TEARDOWN_STALE = 19,	/* u64; stale destination or ruleset commit */
	XBRIDGE_CT_STATS_FLOW_TEARDOWN_FIN_RST = 20,	/* u64 */
	XBRIDGE_CT_STATS_FLOW_TEARDOWN_TIMEOUT = 21,	/* u64 */
	XBRIDGE_CT_STATS_FLOW_TEARDOWN_CONNTRACK = 22,	/* u64 */

	__XBRIDGE_CT_STATS_MAX,
	XBRIDGE_CT_STATS_MAX = __XBRIDGE_CT_STATS_MAX - 1,
};

enum xbridge_cmd {
	XBRIDGE_CMD_UNSPEC,
	XBRIDGE_CMD_BRIDGE_GET = 1,	/* Get a bridge's options and counters; dump every xbridge in the namespace */
	XBRIDGE_CMD_BRIDGE_SET = 2,	/* Change any subset of the options; all are validated before any is applied */
	XBRIDGE_CMD_PORT_GET = 3,	/* Get a port's flags, state and drop counters; dump every port (of one bridge with ifindex) */
	XBRIDGE_CMD_PORT_SET = 4,	/* Change any subset of a port's flags and its state, together or not at all */
	XBRIDGE_CMD_FDB_GET = 5,	/* Get one entry (mac and vlan, default 0), or dump every entry (of one bridge with ifindex; of one port with fdb port-ifindex) */
	XBRIDGE_CMD_FDB_NEW = 6,	/* Add an entry, or replace it (fdb mode; create - fail with EEXIST if it exists) */
	XBRIDGE_CMD_FDB_DEL = 7,	/* Delete an entry (by mac, vlan and port) */
	XBRIDGE_CMD_FDB_FLUSH = 8,	/* Delete every entry matching the filter */
	XBRIDGE_CMD_VLAN_GET = 9,	/* Dump VLANs, one message per port and VID with flags, state and stats (of one bridge with ifindex; of one port with vlan port-ifindex) */
	XBRIDGE_CMD_VLAN_NEW = 10,	/* Add a VID or range to a port, or change its flags (pvid, untagged) */
	XBRIDGE_CMD_VLAN_DEL = 11,	/* Delete a VID or range from a port */
	XBRIDGE_CMD_VLAN_SET = 12,	/* Set the per-VLAN state of a VID or range (every VID must exist) */
	XBRIDGE_CMD_NFT_BATCH = 64,	/* Apply nf_tables messages to the namespace's bridge-family ruleset as one batch, as nfnetlink applies a batch: each validated as nf_tables validates it, and all of them committed together or none (the extack names the message that failed) */
	XBRIDGE_CMD_NFT_GET = 65,	/* Dump the ruleset's objects of one kind (the request's nft-msg type: GETTABLE, GETCHAIN, GETRULE, GETSET, GETSETELEM, GETFLOWTABLE, GETOBJ, GETOBJ_RESET or GETGEN), optionally of one table (its NFTA_*_TABLE in attrs) and, for named objects, of one name (NFTA_OBJ_NAME; GETOBJ_RESET resets the counters it returns), one object a message as nf_tables dumps it */
	XBRIDGE_CMD_CT_GET = 128,	/* Get one connection (by tuple and zone), or dump every connection (of one bridge with ifindex; of one zone with ct zone, the only ct attribute a dump takes) */
	XBRIDGE_CMD_CT_DEL = 129,	/* Delete one connection (by tuple and zone) */
	XBRIDGE_CMD_CT_FLUSH = 130,	/* Delete every connection (of one zone with ct zone, of one mark with ct mark and mark-mask); nothing when conntrack is off */
	XBRIDGE_CMD_CT_STATS_GET = 131,	/* The table's counters summed over the CPUs, its count and bounds (ENOENT when off) */

	__XBRIDGE_CMD_MAX,
	XBRIDGE_CMD_MAX = __XBRIDGE_CMD_MAX - 1,
};

#endif /* _UAPI_LINUX_XBRIDGE_H */
