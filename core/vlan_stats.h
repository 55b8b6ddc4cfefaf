/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlan_stats.h - per-VLAN counters: who owns them, who shares them.
 *
 * As the Linux bridge: unless per-port VLAN statistics are on
 * (vlan_stats_per_port), every port VLAN of a VID counts into one set of
 * per-CPU counters, the bridge's for that VID (Linux keeps them in the
 * master VLAN), which the bridge device's own VLAN of that VID uses too; so
 * `bridge -s vlan show` prints the same figures on every member. With it on,
 * each port VLAN made from then on counts into its own; the bridge
 * device's VLANs still use the shared ones.
 *
 * Ownership. A bridge's VlanStatsTable owns the shared counters; each is
 * referenced by the port VLANs that count into it and freed through
 * call_rcu when the last of them is released (its readers reach it only
 * through a port VLAN, whose own removal came first).
 *
 * Locking. Control path only, serialised by the caller (the bridge's
 * control methods). The datapath never looks a VID up here: it adds to the
 * counters its PortVlan holds.
 */
#ifndef XBRIDGE_CORE_VLAN_STATS_H
#define XBRIDGE_CORE_VLAN_STATS_H

#include <stdint.h>

#include "ethernet.h"
#include "percpu.h"
#include "platform.h"
#include "vlan.h"

namespace xb {

class VlanStatsTable {
public:
	/* Control: a reference to @vid's shared counters in @out, made on
	 * first use. False when memory is short; nothing changes then. */
	bool get(uint16_t vid, PerCpu<VlanStats> *out);
	/* Control: drop a reference get() gave. */
	void put(uint16_t vid);
	/* Control, once no reader is left: free what is still referenced. */
	void destroy();

private:
	struct Shared {
		PerCpu<VlanStats> stats;
		uint32_t refs;
		xb_rcu_head rcu;
	};
	static constexpr unsigned kChunkBits = 6;
	static constexpr unsigned kChunkSlots = 1u << kChunkBits;
	static constexpr unsigned kChunks = kVidCount / kChunkSlots;
	struct Chunk {
		Shared *slot[kChunkSlots];
	};

	Shared **slot_of(uint16_t vid, bool make);
	static void free_rcu(xb_rcu_head *head);

	Chunk *chunks_[kChunks] = {};
};

} // namespace xb

#endif /* XBRIDGE_CORE_VLAN_STATS_H */
