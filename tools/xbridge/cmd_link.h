// cmd_link.h - `xbridge link`: set/show for ports, and the bridge options
// that `ip link set BR type bridge ...` sets, on the bridge device.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "args.h"

namespace xbridge {

class Context;

struct LinkSet {
	std::string dev;
	// Port words.
	std::optional<uint8_t> state;
	std::optional<bool> learning, flood, mcast_flood, bcast_flood, hairpin, isolated, locked,
		mab, neigh_suppress;
	// Bridge words.
	std::optional<uint8_t> vlan_filtering, vlan_stats_enabled, vlan_stats_per_port;
	std::optional<uint16_t> vlan_protocol, default_pvid, group_fwd_mask;
	std::optional<uint32_t> ageing_time, fdb_max_learned, conntrack_max;
	std::optional<bool> conntrack;
	bool has_port_words() const;
	bool has_bridge_words() const;
};
LinkSet parse_link_set(Args &a);

struct LinkShow {
	std::string dev;
};
LinkShow parse_link_show(Args &a);

int do_link(Context &c, Args &a);
extern const char link_usage[];

}  // namespace xbridge
