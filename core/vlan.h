/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vlan.h - per-port VLAN membership: PortVlan entries and the VlanSet that
 * maps a VID to its entry.
 *
 * Ownership. A Port owns its VlanSet; the VlanSet owns its PortVlan entries
 * and the chunks of its map. The bridge device's own ("self") VLANs live in
 * the VlanSet of the bridge's host port.
 *
 * Locking. Readers (the datapath) call find() and pvid() inside an RCU read
 * section, without locks. Writers are serialised by the caller (the
 * bridge's control path: RTNL in the kernel). A PortVlan is published
 * fully initialised (release store); removal unpublishes it, marks it
 * unlinked under the FDB lock, rewrites the FDB entries that cache it and
 * frees it through call_rcu, because in-flight readers may still point at
 * it (see Documentation/design.md, "Tagged destinations").
 *
 * The map is a two-level radix table: 64 chunks of 64 slots. A lookup is
 * two dependent loads; chunks are allocated on first use and kept until
 * the set is destroyed, so readers never see a chunk freed.
 */
#ifndef XBRIDGE_CORE_VLAN_H
#define XBRIDGE_CORE_VLAN_H

#include <stdint.h>

#include "compiler.h"
#include "ethernet.h"
#include "percpu.h"
#include "platform.h"
#include "port_state.h"

namespace xb {

struct Port;

/* Flags of a port VLAN, as `bridge vlan add ... [pvid] [untagged]`. */
enum VlanFlag : uint8_t {
	kVlanPvid = 1 << 0,
	kVlanUntagged = 1 << 1,
};

struct VlanStats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
};

struct PortVlan {
	Port *port;		/* owner; never changes */
	uint16_t vid;		/* never changes */
	uint8_t flags;		/* kVlanUntagged (PVID is VlanSet::pvid) */
	uint8_t state;		/* PortState; load_once in the datapath */
	/* Unpublished: set under the FDB lock, which learners check it under,
	 * so no FDB entry caches it once the removal's flush has run (Fdb). */
	bool unlinked;
	/* Its own counters, or the bridge's for the VID (vlan_stats.h). */
	PerCpu<VlanStats> stats;
	bool shares_stats;	/* never changes */
	xb_rcu_head rcu;
};

/* Allocate a PortVlan (control context) counting into @shared, or into
 * counters of its own when @shared is nullptr. nullptr on failure. */
PortVlan *port_vlan_create(Port *port, uint16_t vid, uint8_t flags,
			   const PerCpu<VlanStats> *shared);
/* Free after a grace period: the caller has unpublished it. */
void port_vlan_free_deferred(PortVlan *vlan);
/* Free now: nobody can reach it any more (set teardown after a grace period). */
void port_vlan_free_now(PortVlan *vlan);
/* Sum of the per-CPU counters (shared ones: every member's). */
VlanStats port_vlan_stats(const PortVlan *vlan);

class VlanSet {
public:
	static constexpr unsigned kChunkBits = 6;
	static constexpr unsigned kChunkSlots = 1u << kChunkBits;
	static constexpr unsigned kChunks = kVidCount / kChunkSlots;

	/* Datapath: the entry for @vid, or nullptr. RCU read section held. */
	PortVlan *find(uint16_t vid) const
	{
		Chunk *chunk = rcu_deref(chunks_[(vid >> kChunkBits) & (kChunks - 1)]);
		if (!chunk)
			return nullptr;
		return rcu_deref(chunk->slot[vid & (kChunkSlots - 1)]);
	}

	/* Datapath: the PVID, 0 when none. */
	uint16_t pvid() const { return load_once(pvid_); }

	/* Control. Publish @vlan (its VID must be free). -ENOMEM when a chunk
	 * cannot be allocated; nothing changes then. */
	int insert(PortVlan *vlan);
	/* Control. Make sure the chunk for @vid exists, so that a later
	 * insert() of @vid cannot fail. An empty chunk is harmless. */
	int prepare(uint16_t vid);
	/* Control. Unpublish the entry for @vid and return it (caller frees it
	 * after a grace period), or nullptr. Clears the PVID if it was @vid. */
	PortVlan *remove(uint16_t vid);
	void set_pvid(uint16_t vid) { store_once(pvid_, vid); }
	unsigned count() const { return count_; }

	/* Control. Visit entries in VID order; stop early when @fn returns false. */
	template <typename Fn> void for_each(Fn fn) const
	{
		for (unsigned c = 0; c < kChunks; c++) {
			Chunk *chunk = chunks_[c];
			if (!chunk)
				continue;
			for (unsigned s = 0; s < kChunkSlots; s++) {
				PortVlan *v = chunk->slot[s];
				if (v && !fn(v))
					return;
			}
		}
	}

	/* Control, after a grace period following the last remove()/unpublish
	 * of the owning port: free every entry and chunk. */
	void destroy();

private:
	struct Chunk {
		PortVlan *slot[kChunkSlots];
	};
	Chunk *chunks_[kChunks] = {};
	uint16_t pvid_ = 0;
	uint16_t count_ = 0;
};

} // namespace xb

#endif /* XBRIDGE_CORE_VLAN_H */
