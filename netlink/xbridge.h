/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * xbridge.h - the uAPI of the `xbridge` generic netlink family, shared by
 * the kernel module (kmod-shim/) and the tools (tools/xbridge). Generated
 * by hand from netlink/xbridge.yaml, which is the source of truth: keep the
 * two in step.
 *
 * Objects mirror iproute2's `bridge`: the bridge's options, its ports, FDB
 * entries and VLANs. Requests name the bridge and the port by ifindex and
 * act in the caller's network namespace. Changes need CAP_NET_ADMIN in the
 * namespace's user namespace. NEW requests honour NLM_F_CREATE, NLM_F_EXCL,
 * NLM_F_REPLACE and NLM_F_APPEND as RTM_NEWNEIGH does for the bridge.
 *
 * Command numbers 64 and above are reserved for the nftables objects of the
 * bridge family (tables, chains, rules, sets, set elements, flowtables).
 */
#ifndef _UAPI_LINUX_XBRIDGE_H
#define _UAPI_LINUX_XBRIDGE_H

#define XBRIDGE_FAMILY_NAME		"xbridge"
#define XBRIDGE_FAMILY_VERSION		1
#define XBRIDGE_MCGRP_MONITOR		"monitor"

enum xbridge_cmd {
	XBRIDGE_CMD_UNSPEC,
	XBRIDGE_CMD_BRIDGE_GET,		/* do/dump: XBRIDGE_A_BRIDGE */
	XBRIDGE_CMD_BRIDGE_SET,		/* do: options in XBRIDGE_A_BRIDGE */
	XBRIDGE_CMD_PORT_GET,		/* do/dump: XBRIDGE_A_PORT; also a notification */
	XBRIDGE_CMD_PORT_SET,		/* do: flags/state in XBRIDGE_A_PORT */
	XBRIDGE_CMD_FDB_GET,		/* do (one entry) / dump; notification of create/change */
	XBRIDGE_CMD_FDB_NEW,		/* do: add/replace an entry */
	XBRIDGE_CMD_FDB_DEL,		/* do: delete; notification of delete */
	XBRIDGE_CMD_FDB_FLUSH,		/* do: flush entries matching XBRIDGE_A_FLUSH */
	XBRIDGE_CMD_VLAN_GET,		/* dump; notification of create/change */
	XBRIDGE_CMD_VLAN_NEW,		/* do: add a VID or range, or change flags */
	XBRIDGE_CMD_VLAN_DEL,		/* do: delete a VID or range; notification */
	XBRIDGE_CMD_VLAN_SET,		/* do: per-VLAN state */

	__XBRIDGE_CMD_MAX,
	XBRIDGE_CMD_MAX = __XBRIDGE_CMD_MAX - 1,

	XBRIDGE_CMD_NFT_FIRST = 64,	/* reserved for the nft objects */
};

/* Top-level attributes of every command. */
enum xbridge_attr {
	XBRIDGE_A_UNSPEC,
	XBRIDGE_A_IFINDEX,		/* u32: the bridge device */
	XBRIDGE_A_BRIDGE,		/* nest: enum xbridge_bridge_attr */
	XBRIDGE_A_PORT,			/* nest: enum xbridge_port_attr */
	XBRIDGE_A_FDB,			/* nest: enum xbridge_fdb_attr */
	XBRIDGE_A_VLAN,			/* nest: enum xbridge_vlan_attr */
	XBRIDGE_A_FLUSH,		/* nest: enum xbridge_flush_attr */
	XBRIDGE_A_PAD,

	__XBRIDGE_A_MAX,
	XBRIDGE_A_MAX = __XBRIDGE_A_MAX - 1,
};

/* Bridge options, as `ip link set BR type bridge ...`. */
enum xbridge_bridge_attr {
	XBRIDGE_BR_UNSPEC,
	XBRIDGE_BR_IFNAME,		/* string, read-only */
	XBRIDGE_BR_ADDRESS,		/* binary[6], read-only */
	XBRIDGE_BR_VLAN_FILTERING,	/* u8 0/1 */
	XBRIDGE_BR_VLAN_PROTOCOL,	/* u16, host order: 0x8100 or 0x88a8 */
	XBRIDGE_BR_DEFAULT_PVID,	/* u16 0..4094 */
	XBRIDGE_BR_AGEING_TIME,		/* u32 centiseconds, as iproute2 */
	XBRIDGE_BR_FDB_MAX_LEARNED,	/* u32, 0: no limit */
	XBRIDGE_BR_GROUP_FWD_MASK,	/* u16, bits 0-2 may not be set */
	XBRIDGE_BR_FDB_N_LEARNED,	/* u32, read-only */
	XBRIDGE_BR_FDB_N_ENTRIES,	/* u32, read-only */

	__XBRIDGE_BR_MAX,
	XBRIDGE_BR_MAX = __XBRIDGE_BR_MAX - 1,
};

/* A port, as `bridge link set dev DEV ...`. Flags are u8 0/1. */
enum xbridge_port_attr {
	XBRIDGE_PORT_UNSPEC,
	XBRIDGE_PORT_IFINDEX,		/* u32 */
	XBRIDGE_PORT_IFNAME,		/* string, read-only */
	XBRIDGE_PORT_STATE,		/* u8 0..4 (BR_STATE_*) */
	XBRIDGE_PORT_LEARNING,
	XBRIDGE_PORT_FLOOD,
	XBRIDGE_PORT_MCAST_FLOOD,
	XBRIDGE_PORT_BCAST_FLOOD,
	XBRIDGE_PORT_HAIRPIN,
	XBRIDGE_PORT_ISOLATED,
	XBRIDGE_PORT_LOCKED,
	XBRIDGE_PORT_MAB,
	XBRIDGE_PORT_NEIGH_SUPPRESS,
	XBRIDGE_PORT_DROPS,		/* nest of u64, one per drop reason, read-only */

	__XBRIDGE_PORT_MAX,
	XBRIDGE_PORT_MAX = __XBRIDGE_PORT_MAX - 1,
};

/* The attributes of XBRIDGE_PORT_DROPS: frames dropped on ingress, by reason. */
enum xbridge_port_drop {
	XBRIDGE_PORT_DROP_PAD,		/* padding for the u64s */
	XBRIDGE_PORT_DROP_TRUNCATED,	/* shorter than its L2 headers */
	XBRIDGE_PORT_DROP_SOURCE_INVALID,	/* multicast or zero source MAC */
	XBRIDGE_PORT_DROP_LINK_LOCAL_PAUSE,	/* 01:80:c2:00:00:01 */
	XBRIDGE_PORT_DROP_PORT_STATE,	/* port not learning/forwarding */
	XBRIDGE_PORT_DROP_LEARNING_ONLY,	/* port or VLAN in LEARNING state */
	XBRIDGE_PORT_DROP_NO_PVID,	/* untagged/priority-tagged, no PVID */
	XBRIDGE_PORT_DROP_VLAN_NOT_MEMBER,	/* VID not configured on the port */
	XBRIDGE_PORT_DROP_VLAN_STATE,	/* VLAN state does not accept frames */
	XBRIDGE_PORT_DROP_LOCKED_PORT,	/* source not authorised on a locked port */
	XBRIDGE_PORT_DROP_NO_EGRESS,	/* the one destination may not take it */
	XBRIDGE_PORT_DROP_HOST_VLAN,	/* bridge device not a member of the VID */

	__XBRIDGE_PORT_DROP_MAX,
	XBRIDGE_PORT_DROP_MAX = __XBRIDGE_PORT_DROP_MAX - 1,
};

/* FDB entry state, as ndm_state (NUD_*). */
#define XBRIDGE_FDB_STATE_REACHABLE	0x02	/* dynamic */
#define XBRIDGE_FDB_STATE_NOARP		0x40	/* static */
#define XBRIDGE_FDB_STATE_PERMANENT	0x80	/* local */

/* FDB entry flags. */
#define XBRIDGE_FDB_F_STICKY		(1U << 0)
#define XBRIDGE_FDB_F_EXT_LEARN		(1U << 1)
#define XBRIDGE_FDB_F_LOCKED		(1U << 2)	/* read-only */
#define XBRIDGE_FDB_F_ADDED_BY_USER	(1U << 3)	/* read-only */

/* Why a notification was sent. */
enum xbridge_fdb_reason {
	XBRIDGE_FDB_REASON_LEARNED,
	XBRIDGE_FDB_REASON_USER,
	XBRIDGE_FDB_REASON_AGED,
	XBRIDGE_FDB_REASON_FLUSHED,
	XBRIDGE_FDB_REASON_PORT_REMOVED,
	XBRIDGE_FDB_REASON_VLAN_REMOVED,
};

enum xbridge_fdb_attr {
	XBRIDGE_FDB_UNSPEC,
	XBRIDGE_FDB_MAC,		/* binary[6] */
	XBRIDGE_FDB_VLAN,		/* u16: 0 (no VLAN) in dumps and FDB_GET; 1..4094
					 * in FDB_NEW/FDB_DEL, where absent means VID 0
					 * and every port VLAN (as rtnetlink) */
	XBRIDGE_FDB_PORT_IFINDEX,	/* u32; the bridge itself for its own entries */
	XBRIDGE_FDB_STATE,		/* u16 XBRIDGE_FDB_STATE_* */
	XBRIDGE_FDB_FLAGS,		/* u32 XBRIDGE_FDB_F_* */
	XBRIDGE_FDB_USED,		/* u32 seconds since last forwarded to, read-only */
	XBRIDGE_FDB_UPDATED,		/* u32 seconds since last learned, read-only */
	XBRIDGE_FDB_REASON,		/* u8 enum xbridge_fdb_reason, notifications */

	__XBRIDGE_FDB_MAX,
	XBRIDGE_FDB_MAX = __XBRIDGE_FDB_MAX - 1,
};

/* VLAN flags, the values of BRIDGE_VLAN_INFO_*. */
#define XBRIDGE_VLAN_F_PVID		(1U << 1)
#define XBRIDGE_VLAN_F_UNTAGGED		(1U << 2)

enum xbridge_vlan_attr {
	XBRIDGE_VLAN_UNSPEC,
	XBRIDGE_VLAN_PORT_IFINDEX,	/* u32; the bridge itself: its own ("self") VLANs */
	XBRIDGE_VLAN_VID,		/* u16 1..4094 */
	XBRIDGE_VLAN_VID_END,		/* u16: a range VID..VID_END */
	XBRIDGE_VLAN_FLAGS,		/* u16 XBRIDGE_VLAN_F_* */
	XBRIDGE_VLAN_STATE,		/* u8 0..4 */
	XBRIDGE_VLAN_RX_PACKETS,	/* u64, read-only */
	XBRIDGE_VLAN_RX_BYTES,
	XBRIDGE_VLAN_TX_PACKETS,
	XBRIDGE_VLAN_TX_BYTES,
	XBRIDGE_VLAN_PAD,

	__XBRIDGE_VLAN_MAX,
	XBRIDGE_VLAN_MAX = __XBRIDGE_VLAN_MAX - 1,
};

/* What `bridge fdb flush` selects; every given attribute must match. */
enum xbridge_flush_attr {
	XBRIDGE_FLUSH_UNSPEC,
	XBRIDGE_FLUSH_PORT_IFINDEX,	/* u32 */
	XBRIDGE_FLUSH_VLAN,		/* u16 */
	XBRIDGE_FLUSH_STATE,		/* u16 state that must match (dynamic: REACHABLE) */
	XBRIDGE_FLUSH_STATE_MASK,	/* u16 which state bits to compare */
	XBRIDGE_FLUSH_FLAGS,		/* u32 XBRIDGE_FDB_F_* that must match */
	XBRIDGE_FLUSH_FLAGS_MASK,	/* u32 */

	__XBRIDGE_FLUSH_MAX,
	XBRIDGE_FLUSH_MAX = __XBRIDGE_FLUSH_MAX - 1,
};

#endif /* _UAPI_LINUX_XBRIDGE_H */
