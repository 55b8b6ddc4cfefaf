// objects.cc - see objects.h.
#include "objects.h"

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstring>

#include "../../netlink/xbridge.h"

namespace xbridge {

uint8_t genl_cmd_of(nlmsghdr *nlh)
{
	if (!genlmsg_valid_hdr(nlh, 0))
		return 0;
	return static_cast<genlmsghdr *>(nlmsg_data(nlh))->cmd;
}

// Parse the top level without a policy (unknown attributes are skipped,
// as newer kernels may add some), then check sizes by hand.
static bool top(nlmsghdr *nlh, nlattr **tb)
{
	if (!genlmsg_valid_hdr(nlh, 0))
		return false;
	return genlmsg_parse(nlh, 0, tb, XBRIDGE_A_MAX, nullptr) == 0;
}

static bool nest(nlattr *a, nlattr **tb, int max)
{
	if (!a)
		return false;
	return nla_parse_nested(tb, max, a, nullptr) == 0;
}

template <typename T>
static bool get(nlattr *a, std::optional<T> &out)
{
	if (!a)
		return true;
	if (nla_len(a) < static_cast<int>(sizeof(T)))
		return false;
	T v;
	memcpy(&v, nla_data(a), sizeof(T));
	out = v;
	return true;
}

template <typename T>
static bool get(nlattr *a, T &out)
{
	std::optional<T> o;
	if (!get(a, o))
		return false;
	if (o)
		out = *o;
	return true;
}

static bool get_flag(nlattr *a, std::optional<bool> &out)
{
	std::optional<uint8_t> v;
	if (!get(a, v))
		return false;
	if (v)
		out = *v != 0;
	return true;
}

static bool get_str(nlattr *a, std::string &out)
{
	if (!a)
		return true;
	const char *p = static_cast<const char *>(nla_data(a));
	out.assign(p, strnlen(p, nla_len(a)));
	return true;
}

bool decode_fdb(nlmsghdr *nlh, FdbEntry &e)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *f[XBRIDGE_FDB_MAX + 1];
	if (!top(nlh, tb) || !nest(tb[XBRIDGE_A_FDB], f, XBRIDGE_FDB_MAX))
		return false;
	if (!f[XBRIDGE_FDB_MAC] || nla_len(f[XBRIDGE_FDB_MAC]) != 6)
		return false;
	memcpy(e.mac.data(), nla_data(f[XBRIDGE_FDB_MAC]), 6);
	return get(tb[XBRIDGE_A_IFINDEX], e.bridge_ifindex) && get(f[XBRIDGE_FDB_VLAN], e.vlan) &&
	       get(f[XBRIDGE_FDB_PORT_IFINDEX], e.port_ifindex) &&
	       get(f[XBRIDGE_FDB_STATE], e.state) && get(f[XBRIDGE_FDB_FLAGS], e.flags) &&
	       get(f[XBRIDGE_FDB_USED], e.used) && get(f[XBRIDGE_FDB_UPDATED], e.updated) &&
	       get(f[XBRIDGE_FDB_REASON], e.reason);
}

bool decode_vlan(nlmsghdr *nlh, VlanEntry &v)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *a[XBRIDGE_VLAN_MAX + 1];
	if (!top(nlh, tb) || !nest(tb[XBRIDGE_A_VLAN], a, XBRIDGE_VLAN_MAX))
		return false;
	if (!a[XBRIDGE_VLAN_VID])
		return false;
	bool ok = get(tb[XBRIDGE_A_IFINDEX], v.bridge_ifindex) &&
		  get(a[XBRIDGE_VLAN_PORT_IFINDEX], v.port_ifindex) &&
		  get(a[XBRIDGE_VLAN_VID], v.vid) && get(a[XBRIDGE_VLAN_FLAGS], v.flags) &&
		  get(a[XBRIDGE_VLAN_STATE], v.state);
	if (!ok)
		return false;
	v.vid_end = v.vid;
	if (!get(a[XBRIDGE_VLAN_VID_END], v.vid_end) || v.vid_end < v.vid)
		return false;
	v.has_stats = a[XBRIDGE_VLAN_RX_PACKETS] || a[XBRIDGE_VLAN_RX_BYTES] ||
		      a[XBRIDGE_VLAN_TX_PACKETS] || a[XBRIDGE_VLAN_TX_BYTES];
	return get(a[XBRIDGE_VLAN_RX_PACKETS], v.rx_packets) &&
	       get(a[XBRIDGE_VLAN_RX_BYTES], v.rx_bytes) &&
	       get(a[XBRIDGE_VLAN_TX_PACKETS], v.tx_packets) &&
	       get(a[XBRIDGE_VLAN_TX_BYTES], v.tx_bytes);
}

bool decode_port(nlmsghdr *nlh, PortInfo &p)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *a[XBRIDGE_PORT_MAX + 1];
	if (!top(nlh, tb) || !nest(tb[XBRIDGE_A_PORT], a, XBRIDGE_PORT_MAX))
		return false;
	return get(tb[XBRIDGE_A_IFINDEX], p.bridge_ifindex) &&
	       get(a[XBRIDGE_PORT_IFINDEX], p.ifindex) && get_str(a[XBRIDGE_PORT_IFNAME], p.ifname) &&
	       get(a[XBRIDGE_PORT_STATE], p.state) && get_flag(a[XBRIDGE_PORT_LEARNING], p.learning) &&
	       get_flag(a[XBRIDGE_PORT_FLOOD], p.flood) &&
	       get_flag(a[XBRIDGE_PORT_MCAST_FLOOD], p.mcast_flood) &&
	       get_flag(a[XBRIDGE_PORT_BCAST_FLOOD], p.bcast_flood) &&
	       get_flag(a[XBRIDGE_PORT_HAIRPIN], p.hairpin) &&
	       get_flag(a[XBRIDGE_PORT_ISOLATED], p.isolated) &&
	       get_flag(a[XBRIDGE_PORT_LOCKED], p.locked) && get_flag(a[XBRIDGE_PORT_MAB], p.mab) &&
	       get_flag(a[XBRIDGE_PORT_NEIGH_SUPPRESS], p.neigh_suppress);
}

bool decode_bridge(nlmsghdr *nlh, BridgeInfo &b)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *a[XBRIDGE_BR_MAX + 1];
	if (!top(nlh, tb))
		return false;
	if (!get(tb[XBRIDGE_A_IFINDEX], b.ifindex))
		return false;
	if (!tb[XBRIDGE_A_BRIDGE])
		return b.ifindex != 0;
	if (!nest(tb[XBRIDGE_A_BRIDGE], a, XBRIDGE_BR_MAX))
		return false;
	if (a[XBRIDGE_BR_ADDRESS]) {
		if (nla_len(a[XBRIDGE_BR_ADDRESS]) != 6)
			return false;
		Mac m;
		memcpy(m.data(), nla_data(a[XBRIDGE_BR_ADDRESS]), 6);
		b.address = m;
	}
	return get_str(a[XBRIDGE_BR_IFNAME], b.ifname) &&
	       get(a[XBRIDGE_BR_VLAN_FILTERING], b.vlan_filtering) &&
	       get(a[XBRIDGE_BR_VLAN_PROTOCOL], b.vlan_protocol) &&
	       get(a[XBRIDGE_BR_DEFAULT_PVID], b.default_pvid) &&
	       get(a[XBRIDGE_BR_AGEING_TIME], b.ageing_time) &&
	       get(a[XBRIDGE_BR_FDB_MAX_LEARNED], b.fdb_max_learned) &&
	       get(a[XBRIDGE_BR_GROUP_FWD_MASK], b.group_fwd_mask) &&
	       get(a[XBRIDGE_BR_CONNTRACK], b.conntrack) &&
	       get(a[XBRIDGE_BR_CONNTRACK_MAX], b.conntrack_max) &&
	       get(a[XBRIDGE_BR_VLAN_STATS_ENABLED], b.vlan_stats_enabled) &&
	       get(a[XBRIDGE_BR_VLAN_STATS_PER_PORT], b.vlan_stats_per_port) &&
	       get(a[XBRIDGE_BR_FDB_N_LEARNED], b.fdb_n_learned) &&
	       get(a[XBRIDGE_BR_FDB_N_ENTRIES], b.fdb_n_entries) && b.ifindex != 0;
}

}  // namespace xbridge
