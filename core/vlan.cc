// SPDX-License-Identifier: GPL-2.0
/*
 * vlan.cc - PortVlan lifetime and the VlanSet radix map.
 *
 * Ownership and locking as in vlan.h: writers are serialised by the
 * bridge's control path; readers use find() under RCU.
 */
#include "vlan.h"

#include <new>

#include "errors.h"

namespace xb {

PortVlan *port_vlan_create(Port *port, uint16_t vid, uint8_t flags,
			   const PerCpu<VlanStats> *shared)
{
	void *mem = xb_alloc(sizeof(PortVlan), XB_ALLOC_SLEEP);
	if (!mem)
		return nullptr;
	auto *v = new (mem) PortVlan();
	v->port = port;
	v->vid = vid;
	v->flags = flags & kVlanUntagged;
	v->state = uint8_t(PortState::Forwarding);
	if (shared) {
		v->stats = *shared;
		v->shares_stats = true;
	} else if (!v->stats.init(XB_ALLOC_SLEEP)) {
		v->~PortVlan();
		xb_free(v);
		return nullptr;
	}
	return v;
}

void port_vlan_free_now(PortVlan *vlan)
{
	if (!vlan->shares_stats)
		vlan->stats.fini();
	vlan->~PortVlan();
	xb_free(vlan);
}

static void port_vlan_free_rcu(xb_rcu_head *head)
{
	port_vlan_free_now(xb_container_of(head, PortVlan, rcu));
}

void port_vlan_free_deferred(PortVlan *vlan)
{
	xb_call_rcu(&vlan->rcu, port_vlan_free_rcu);
}

VlanStats port_vlan_stats(const PortVlan *vlan)
{
	VlanStats sum = {};
	for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++) {
		const VlanStats *s = vlan->stats.cpu(cpu);
		if (!s)
			continue;
		sum.rx_packets += load_once(s->rx_packets);
		sum.rx_bytes += load_once(s->rx_bytes);
		sum.tx_packets += load_once(s->tx_packets);
		sum.tx_bytes += load_once(s->tx_bytes);
	}
	return sum;
}

int VlanSet::prepare(uint16_t vid)
{
	unsigned c = (vid >> kChunkBits) & (kChunks - 1);
	if (chunks_[c])
		return 0;
	auto *chunk = static_cast<Chunk *>(xb_alloc(sizeof(Chunk), XB_ALLOC_SLEEP));
	if (!chunk)
		return -kENOMEM;
	rcu_publish(chunks_[c], chunk);
	return 0;
}

int VlanSet::insert(PortVlan *vlan)
{
	int err = prepare(vlan->vid);
	if (err)
		return err;
	Chunk *chunk = chunks_[vlan->vid >> kChunkBits];
	rcu_publish(chunk->slot[vlan->vid & (kChunkSlots - 1)], vlan);
	count_++;
	return 0;
}

PortVlan *VlanSet::remove(uint16_t vid)
{
	Chunk *chunk = chunks_[(vid >> kChunkBits) & (kChunks - 1)];
	if (!chunk)
		return nullptr;
	PortVlan *&slot = chunk->slot[vid & (kChunkSlots - 1)];
	PortVlan *v = slot;
	if (!v)
		return nullptr;
	rcu_publish(slot, static_cast<PortVlan *>(nullptr));
	if (pvid_ == vid)
		set_pvid(0);
	count_--;
	return v;
}

void VlanSet::destroy()
{
	for (unsigned c = 0; c < kChunks; c++) {
		Chunk *chunk = chunks_[c];
		if (!chunk)
			continue;
		for (unsigned s = 0; s < kChunkSlots; s++)
			if (chunk->slot[s])
				port_vlan_free_now(chunk->slot[s]);
		xb_free(chunk);
		chunks_[c] = nullptr;
	}
	pvid_ = 0;
	count_ = 0;
}

} // namespace xb
