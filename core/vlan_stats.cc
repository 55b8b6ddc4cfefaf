// SPDX-License-Identifier: GPL-2.0
/*
 * vlan_stats.cc - the bridge's shared per-VID counters.
 *
 * Ownership and locking as in vlan_stats.h: control path only; a shared
 * set is freed through call_rcu after its last port VLAN released it.
 */
#include "vlan_stats.h"

#include <new>

namespace xb {

VlanStatsTable::Shared **VlanStatsTable::slot_of(uint16_t vid, bool make)
{
	Chunk *&chunk = chunks_[(vid >> kChunkBits) & (kChunks - 1)];
	if (!chunk) {
		if (!make)
			return nullptr;
		chunk = static_cast<Chunk *>(xb_alloc(sizeof(Chunk), XB_ALLOC_SLEEP));
		if (!chunk)
			return nullptr;
		for (Shared *&s : chunk->slot)
			s = nullptr;
	}
	return &chunk->slot[vid & (kChunkSlots - 1)];
}

bool VlanStatsTable::get(uint16_t vid, PerCpu<VlanStats> *out)
{
	Shared **slot = slot_of(vid, true);
	if (!slot)
		return false;
	if (!*slot) {
		void *mem = xb_alloc(sizeof(Shared), XB_ALLOC_SLEEP);
		if (!mem)
			return false;
		auto *s = new (mem) Shared();
		if (!s->stats.init(XB_ALLOC_SLEEP)) {
			s->~Shared();
			xb_free(s);
			return false;
		}
		*slot = s;
	}
	(*slot)->refs++;
	*out = (*slot)->stats;
	return true;
}

void VlanStatsTable::free_rcu(xb_rcu_head *head)
{
	Shared *s = xb_container_of(head, Shared, rcu);
	s->stats.fini();
	s->~Shared();
	xb_free(s);
}

void VlanStatsTable::put(uint16_t vid)
{
	Shared **slot = slot_of(vid, false);
	if (!slot || !*slot)
		return;
	Shared *s = *slot;
	if (--s->refs)
		return;
	*slot = nullptr;
	xb_call_rcu(&s->rcu, free_rcu);
}

void VlanStatsTable::destroy()
{
	for (Chunk *&chunk : chunks_) {
		if (!chunk)
			continue;
		for (Shared *s : chunk->slot) {
			if (!s)
				continue;
			s->stats.fini();
			s->~Shared();
			xb_free(s);
		}
		xb_free(chunk);
		chunk = nullptr;
	}
}

} // namespace xb
