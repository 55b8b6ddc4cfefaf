// objects.h - the decoded objects of the xbridge family (one netlink
// message each) and the decoders from generic netlink attributes. The
// decoders validate lengths and never trust the kernel's layout.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "args.h"

struct nlmsghdr;

namespace xbridge {

struct FdbEntry {
	Mac mac{};
	uint16_t vlan = 0;           // 0: no VLAN attribute (VID 0)
	uint32_t bridge_ifindex = 0; // top-level XBRIDGE_A_IFINDEX
	uint32_t port_ifindex = 0;
	uint16_t state = 0;
	uint32_t flags = 0;
	std::optional<uint32_t> used, updated;
	std::optional<uint8_t> reason;
	bool deleted = false;        // an FDB_DEL notification
};

struct VlanEntry {
	uint32_t bridge_ifindex = 0;
	uint32_t port_ifindex = 0;
	uint16_t vid = 0, vid_end = 0;
	uint16_t flags = 0;
	std::optional<uint8_t> state;
	uint64_t rx_packets = 0, rx_bytes = 0, tx_packets = 0, tx_bytes = 0;
	bool has_stats = false;
	bool deleted = false;
};

struct PortInfo {
	uint32_t bridge_ifindex = 0;
	uint32_t ifindex = 0;
	std::string ifname;
	std::optional<uint8_t> state;
	std::optional<bool> learning, flood, mcast_flood, bcast_flood, hairpin, isolated,
		locked, mab, neigh_suppress;
};

struct BridgeInfo {
	uint32_t ifindex = 0;
	std::string ifname;
	std::optional<Mac> address;
	std::optional<uint8_t> vlan_filtering;
	std::optional<uint16_t> vlan_protocol, default_pvid, group_fwd_mask;
	std::optional<uint8_t> conntrack, vlan_stats_enabled, vlan_stats_per_port;
	std::optional<uint32_t> ageing_time, fdb_max_learned, fdb_n_learned, fdb_n_entries,
		conntrack_max;
};

// Decoders: return false for a message that is not well formed (missing
// nest, wrong attribute size). CMD is the genl command of the message.
bool decode_fdb(nlmsghdr *nlh, FdbEntry &e);
bool decode_vlan(nlmsghdr *nlh, VlanEntry &v);
bool decode_port(nlmsghdr *nlh, PortInfo &p);
bool decode_bridge(nlmsghdr *nlh, BridgeInfo &b);
uint8_t genl_cmd_of(nlmsghdr *nlh);

}  // namespace xbridge
