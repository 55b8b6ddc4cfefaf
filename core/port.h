/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port.h - a bridge port: flags, STP state, VLAN membership, counters.
 *
 * Ownership. The Bridge owns its ports (created by Bridge::add_port, freed
 * by Bridge::remove_port after a grace period). One port per bridge, the
 * host port, stands for the bridge device itself: frames the bridge sends
 * enter through it, frames for the bridge's own stack leave through it,
 * and its VlanSet is the bridge's "self" VLAN set.
 *
 * Locking. The datapath reads flags and state with load_once inside an RCU
 * read section. Control changes are serialised by the caller (RTNL in the
 * kernel) and written with store_once.
 */
#ifndef XBRIDGE_CORE_PORT_H
#define XBRIDGE_CORE_PORT_H

#include <stdint.h>

#include "ethernet.h"
#include "intrusive.h"
#include "percpu.h"
#include "port_state.h"
#include "vlan.h"

namespace xb {

class Bridge;

/* Port flags, as `bridge link set dev X <flag> on|off`. */
enum PortFlag : uint32_t {
	kPortLearning = 1u << 0,
	kPortFlood = 1u << 1,		/* unknown unicast */
	kPortMcastFlood = 1u << 2,
	kPortBcastFlood = 1u << 3,
	kPortHairpin = 1u << 4,
	kPortIsolated = 1u << 5,
	kPortLocked = 1u << 6,
	kPortMab = 1u << 7,
	kPortNeighSuppress = 1u << 8,
};

constexpr uint32_t kPortFlagsAll = (1u << 9) - 1;
constexpr uint32_t kPortFlagsDefault =
	kPortLearning | kPortFlood | kPortMcastFlood | kPortBcastFlood;

/* Why a frame was dropped; counted per ingress port. */
enum class DropReason : uint8_t {
	None = 0,
	Truncated,		/* shorter than its L2 headers */
	SourceInvalid,		/* multicast or zero source address */
	LinkLocalPause,		/* 01:80:c2:00:00:01 */
	PortState,		/* ingress port not learning/forwarding */
	LearningOnly,		/* port or VLAN in LEARNING state */
	NoPvid,			/* untagged/priority-tagged, no PVID */
	VlanNotMember,		/* VID not configured on the ingress port */
	VlanState,		/* VLAN state does not accept frames */
	LockedPort,		/* source not authorised on a locked port */
	NoEgress,		/* the one destination may not take the frame */
	HostVlan,		/* bridge device not a member of the VID */
	Conntrack,		/* conntrack dropped it (table full, lost insert) */
	Netfilter,		/* a chain of the nf_tables ruleset dropped it */
	Count,
};

constexpr unsigned kDropReasonCount = unsigned(DropReason::Count);

struct PortStats {
	uint64_t drops[kDropReasonCount];
};

struct Port {
	Bridge *bridge;
	void *priv;		/* the environment's handle (net_device) */
	uint32_t ifindex;	/* the environment's id */
	uint32_t flags;		/* PortFlag */
	uint8_t state;		/* PortState */
	bool is_host;		/* the bridge device itself */
	/* Leaving the bridge: set under the FDB lock, which learners check
	 * it under, so no entry is made for a port being removed (Fdb). */
	bool unlinked;
	uint16_t index;		/* slot in the bridge's port table */
	MacKey addr;
	RcuPtr<const char> ifname;	/* the environment's name for it (nft's
					 * iifname); it keeps it valid; may be nullptr */
	RcuPtr<const char> link_kind;	/* its device's kind (nft's iifkind:
					 * rtnl_link_ops->kind), as ifname;
					 * nullptr: a device without one */
	VlanSet vlans;
	PerCpu<PortStats> stats;
	ListHook list_hook;	/* Bridge::ports_ (control) */
	xb_rcu_head rcu;

	uint32_t flag_bits() const { return load_once(flags); }
	bool has_flag(PortFlag f) const { return load_once(flags) & f; }
	PortState port_state() const { return PortState(load_once(state)); }
};

/* Count one drop on this CPU. */
inline void port_count_drop(Port *port, DropReason reason)
{
	PortStats *s = port->stats.this_cpu();
	counter_add(s->drops[unsigned(reason)], 1);
}

/* Sum of the per-CPU drop counters for @reason. */
uint64_t port_drops(const Port *port, DropReason reason);

const char *drop_reason_name(DropReason reason);

} // namespace xb

#endif /* XBRIDGE_CORE_PORT_H */
