// SPDX-License-Identifier: GPL-2.0
/*
 * port.cc - port counters and names. Ports are created and freed by the
 * bridge (bridge.cc); nothing here owns or locks anything.
 */
#include "port.h"

namespace xb {

uint64_t port_drops(const Port *port, DropReason reason)
{
	uint64_t sum = 0;
	for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++) {
		const PortStats *s = port->stats.cpu(cpu);
		if (s)
			sum += load_once(s->drops[unsigned(reason)]);
	}
	return sum;
}

const char *drop_reason_name(DropReason reason)
{
	switch (reason) {
	case DropReason::None: return "none";
	case DropReason::Truncated: return "truncated";
	case DropReason::SourceInvalid: return "source_invalid";
	case DropReason::LinkLocalPause: return "link_local_pause";
	case DropReason::PortState: return "port_state";
	case DropReason::LearningOnly: return "learning_only";
	case DropReason::NoPvid: return "no_pvid";
	case DropReason::VlanNotMember: return "vlan_not_member";
	case DropReason::VlanState: return "vlan_state";
	case DropReason::LockedPort: return "locked_port";
	case DropReason::NoEgress: return "no_egress";
	case DropReason::HostVlan: return "host_vlan";
	case DropReason::Conntrack: return "conntrack";
	case DropReason::Netfilter: return "netfilter";
	case DropReason::Count: break;
	}
	return "unknown";
}

} // namespace xb
