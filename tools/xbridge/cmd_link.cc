// cmd_link.cc - see cmd_link.h.
#include "cmd_link.h"

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <strings.h>

#include <cstdio>
#include <map>

#include "../../netlink/xbridge.h"
#include "context.h"
#include "errors.h"
#include "objects.h"

namespace xbridge {

const char link_usage[] =
	"Usage: xbridge link set dev DEV [ state STATE ] [ learning {on | off} ]\n"
	"                               [ flood {on | off} ] [ mcast_flood {on | off} ]\n"
	"                               [ bcast_flood {on | off} ] [ hairpin {on | off} ]\n"
	"                               [ isolated {on | off} ] [ locked {on | off} ]\n"
	"                               [ mab {on | off} ] [ neigh_suppress {on | off} ]\n"
	"       xbridge link set dev BRIDGE [ vlan_filtering {0 | 1} ]\n"
	"                               [ vlan_protocol {802.1Q | 802.1ad} ]\n"
	"                               [ vlan_default_pvid VID ] [ ageing_time CENTISECONDS ]\n"
	"                               [ fdb_max_learned N ] [ group_fwd_mask MASK ]\n"
	"                               [ conntrack {on | off} ] [ conntrack_max N ]\n"
	"                               [ vlan_stats_enabled {0 | 1} ]\n"
	"                               [ vlan_stats_per_port {0 | 1} ]\n"
	"       xbridge link [ show ] [ dev DEV ]\n";

bool LinkSet::has_port_words() const
{
	return state || learning || flood || mcast_flood || bcast_flood || hairpin || isolated ||
	       locked || mab || neigh_suppress;
}

bool LinkSet::has_bridge_words() const
{
	return vlan_filtering || vlan_protocol || default_pvid || group_fwd_mask || ageing_time ||
	       fdb_max_learned || conntrack || conntrack_max || vlan_stats_enabled ||
	       vlan_stats_per_port;
}

static uint16_t parse_proto(const std::string &v)
{
	if (!strcasecmp(v.c_str(), "802.1Q") || v == "0x8100")
		return 0x8100;
	if (!strcasecmp(v.c_str(), "802.1ad") || v == "0x88a8" || v == "0x88A8")
		return 0x88a8;
	invarg("invalid vlan_protocol (802.1Q or 802.1ad)", v);
}

LinkSet parse_link_set(Args &a)
{
	LinkSet r;
	struct Flag {
		const char *word;
		std::optional<bool> LinkSet::*field;
	};
	static const Flag flags[] = {
		{"learning", &LinkSet::learning},     {"flood", &LinkSet::flood},
		{"mcast_flood", &LinkSet::mcast_flood}, {"bcast_flood", &LinkSet::bcast_flood},
		{"hairpin", &LinkSet::hairpin},       {"isolated", &LinkSet::isolated},
		{"locked", &LinkSet::locked},         {"mab", &LinkSet::mab},
		{"neigh_suppress", &LinkSet::neigh_suppress},
	};
	static const char *const unsupported[] = {
		"guard", "root_block", "fastleave", "cost", "priority", "mcast_router",
		"mcast_to_unicast", "vlan_tunnel", "backup_port", "nobackup_port",
		"neigh_vlan_suppress", "mcast_max_groups", "backup_nhid", "hwmode", "self"};
	parse_keywords(a, link_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{"state", [&](const std::string &w) { r.state = parse_port_state(a.value(w)); }},
		{"master", [](const std::string &) {}},
		{"vlan_filtering", [&](const std::string &w) {
			r.vlan_filtering = static_cast<uint8_t>(parse_u32(w, a.value(w), 1));
		}},
		{"vlan_protocol", [&](const std::string &w) { r.vlan_protocol = parse_proto(a.value(w)); }},
		// ip link's word, and the sysfs file's
		{"vlan_default_pvid|default_pvid", [&](const std::string &w) {
			r.default_pvid = static_cast<uint16_t>(parse_u32(w, a.value(w), 4094));
		}},
		{"ageing_time", [&](const std::string &w) {
			r.ageing_time = parse_u32(w, a.value(w), 0xffffffffu);
		}},
		{"fdb_max_learned", [&](const std::string &w) {
			r.fdb_max_learned = parse_u32(w, a.value(w), 0xffffffffu);
		}},
		{"group_fwd_mask", [&](const std::string &w) {
			r.group_fwd_mask = static_cast<uint16_t>(parse_u32(w, a.value(w), 0xffff));
		}},
		{"conntrack", [&](const std::string &w) { r.conntrack = parse_on_off(w, a.value(w)); }},
		{"conntrack_max", [&](const std::string &w) {
			r.conntrack_max = parse_u32(w, a.value(w), 0xffffffffu);
		}},
		{"vlan_stats_enabled", [&](const std::string &w) {
			r.vlan_stats_enabled = static_cast<uint8_t>(parse_u32(w, a.value(w), 1));
		}},
		{"vlan_stats_per_port", [&](const std::string &w) {
			r.vlan_stats_per_port = static_cast<uint8_t>(parse_u32(w, a.value(w), 1));
		}},
	}, [&](const std::string &w) {
		// The port flags (on/off each), then the words xbridge does not have.
		for (const Flag &f : flags) {
			if (w == f.word) {
				r.*(f.field) = parse_on_off(w, a.value(w));
				return;
			}
		}
		for (const char *u : unsupported)
			if (w == u)
				unsupported_word(w);
		garbage(w);
	});
	if (r.dev.empty())
		throw UsageError("Device is a required argument.");
	if (r.has_port_words() && r.has_bridge_words())
		throw UsageError("Error: port options and bridge options cannot be mixed: "
				 "a device is either a port or a bridge.");
	return r;
}

LinkShow parse_link_show(Args &a)
{
	LinkShow r;
	parse_keywords(a, link_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
	}, [&](const std::string &w) { r.dev = w; });  // iproute2 accepts a bare DEV
	return r;
}

static int link_set(Context &c, const LinkSet &r)
{
	PortRef p = c.resolve_port(r.dev);
	if (p.is_bridge()) {
		if (r.has_port_words())
			throw UsageError("Error: \"" + r.dev +
					 "\" is a bridge: port options apply to its ports.");
		NlMsg m = c.genl().request(XBRIDGE_CMD_BRIDGE_SET);
		nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
		nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_BRIDGE);
		if (r.vlan_filtering)
			nla_put_u8(m.get(), XBRIDGE_BR_VLAN_FILTERING, *r.vlan_filtering);
		if (r.vlan_protocol)
			nla_put_u16(m.get(), XBRIDGE_BR_VLAN_PROTOCOL, *r.vlan_protocol);
		if (r.default_pvid)
			nla_put_u16(m.get(), XBRIDGE_BR_DEFAULT_PVID, *r.default_pvid);
		if (r.ageing_time)
			nla_put_u32(m.get(), XBRIDGE_BR_AGEING_TIME, *r.ageing_time);
		if (r.fdb_max_learned)
			nla_put_u32(m.get(), XBRIDGE_BR_FDB_MAX_LEARNED, *r.fdb_max_learned);
		if (r.group_fwd_mask)
			nla_put_u16(m.get(), XBRIDGE_BR_GROUP_FWD_MASK, *r.group_fwd_mask);
		if (r.conntrack)
			nla_put_u8(m.get(), XBRIDGE_BR_CONNTRACK, *r.conntrack ? 1 : 0);
		if (r.conntrack_max)
			nla_put_u32(m.get(), XBRIDGE_BR_CONNTRACK_MAX, *r.conntrack_max);
		if (r.vlan_stats_enabled)
			nla_put_u8(m.get(), XBRIDGE_BR_VLAN_STATS_ENABLED, *r.vlan_stats_enabled);
		if (r.vlan_stats_per_port)
			nla_put_u8(m.get(), XBRIDGE_BR_VLAN_STATS_PER_PORT, *r.vlan_stats_per_port);
		nla_nest_end(m.get(), n);
		c.genl().run(m.get());
		return 0;
	}
	if (r.has_bridge_words())
		throw UsageError("Error: \"" + r.dev + "\" is a port: bridge options apply to its bridge.");
	NlMsg m = c.genl().request(XBRIDGE_CMD_PORT_SET);
	nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_PORT);
	nla_put_u32(m.get(), XBRIDGE_PORT_IFINDEX, p.port);
	if (r.state)
		nla_put_u8(m.get(), XBRIDGE_PORT_STATE, *r.state);
	auto flag = [&](int t, const std::optional<bool> &v) {
		if (v)
			nla_put_u8(m.get(), t, *v ? 1 : 0);
	};
	flag(XBRIDGE_PORT_LEARNING, r.learning);
	flag(XBRIDGE_PORT_FLOOD, r.flood);
	flag(XBRIDGE_PORT_MCAST_FLOOD, r.mcast_flood);
	flag(XBRIDGE_PORT_BCAST_FLOOD, r.bcast_flood);
	flag(XBRIDGE_PORT_HAIRPIN, r.hairpin);
	flag(XBRIDGE_PORT_ISOLATED, r.isolated);
	flag(XBRIDGE_PORT_LOCKED, r.locked);
	flag(XBRIDGE_PORT_MAB, r.mab);
	flag(XBRIDGE_PORT_NEIGH_SUPPRESS, r.neigh_suppress);
	nla_nest_end(m.get(), n);
	c.genl().run(m.get());
	return 0;
}

static LinkRow row_for(Context &c, uint32_t ifindex)
{
	LinkRow r;
	r.ifindex = ifindex;
	r.ifname = c.name(ifindex);
	if (const LinkInfo *l = c.links().by_index(ifindex)) {
		r.flags = l->flags;
		r.mtu = l->mtu;
		if (l->master)
			r.master = c.name(l->master);
		if (l->link && static_cast<uint32_t>(l->link) != ifindex)
			r.link = l->link_netns ? "if" + std::to_string(l->link) : c.name(l->link);
	}
	return r;
}

static void print_bridge(Context &c, Printer &p, const BridgeInfo &b)
{
	LinkRow r = row_for(c, b.ifindex);
	p.open_obj();
	p.uint("ifindex", r.ifindex, std::to_string(r.ifindex) + ": ");
	p.str("ifname", r.ifname, r.ifname + ": ");
	print_link_flags(p, r.flags);
	if (r.mtu)
		p.uint("mtu", r.mtu, "mtu " + std::to_string(r.mtu) + " ");
	auto u = [&](const char *k, const auto &v) {
		if (v)
			p.uint(k, *v, std::string(k) + " " + std::to_string(*v) + " ");
	};
	u("vlan_filtering", b.vlan_filtering);
	if (b.vlan_protocol) {
		const char *s = *b.vlan_protocol == 0x88a8 ? "802.1ad" : "802.1Q";
		p.str("vlan_protocol", s, std::string("vlan_protocol ") + s + " ");
	}
	u("default_pvid", b.default_pvid);
	u("ageing_time", b.ageing_time);
	u("fdb_max_learned", b.fdb_max_learned);
	if (b.group_fwd_mask) {
		char buf[16];
		snprintf(buf, sizeof(buf), "%#x", *b.group_fwd_mask);
		p.str("group_fwd_mask", buf, std::string("group_fwd_mask ") + buf + " ");
	}
	u("conntrack", b.conntrack);
	u("conntrack_max", b.conntrack_max);
	u("vlan_stats_enabled", b.vlan_stats_enabled);
	u("vlan_stats_per_port", b.vlan_stats_per_port);
	u("fdb_n_learned", b.fdb_n_learned);
	u("fdb_n_entries", b.fdb_n_entries);
	p.text("\n");
	p.close_obj();
}

static int link_show(Context &c, const LinkShow &s)
{
	std::vector<uint32_t> brs;
	uint32_t only = 0;
	bool bridge_only = false;
	if (!s.dev.empty()) {
		PortRef pr = c.resolve_port(s.dev);
		brs.push_back(pr.bridge);
		only = pr.port;
		bridge_only = pr.is_bridge();
	} else {
		brs = c.bridges();
	}
	Printer p = c.printer();
	p.begin_rows();
	for (uint32_t br : brs) {
		if (bridge_only) {
			NlMsg m = c.genl().request(XBRIDGE_CMD_BRIDGE_GET);
			nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
			c.genl().run(m.get(), [&](nlmsghdr *nlh) {
				BridgeInfo b;
				if (!decode_bridge(nlh, b))
					throw Error("Error: malformed bridge in the kernel's reply", EXIT_DUMP);
				print_bridge(c, p, b);
			});
			continue;
		}
		std::map<uint32_t, PortInfo> ports;
		NlMsg m = c.genl().request(XBRIDGE_CMD_PORT_GET, NLM_F_DUMP);
		nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
		c.genl().run(m.get(), [&](nlmsghdr *nlh) {
			PortInfo pi;
			if (!decode_port(nlh, pi) || !pi.ifindex)
				throw Error("Error: malformed port in the kernel's reply", EXIT_DUMP);
			if ((pi.bridge_ifindex && pi.bridge_ifindex != br) || (only && pi.ifindex != only))
				return;
			ports[pi.ifindex] = pi;
		});
		for (auto &[i, pi] : ports) {
			LinkRow r = row_for(c, i);
			if (r.master.empty())
				r.master = c.name(br);
			r.state = pi.state;
			r.port = &pi;
			print_link(p, r, c.opt.details);
		}
	}
	p.end_rows();
	c.emit(p.take());
	return 0;
}

int do_link(Context &c, Args &a)
{
	if (a.done())
		return link_show(c, LinkShow{});
	std::string w = a.take();
	if (matches(w, "set") || matches(w, "change"))
		return link_set(c, parse_link_set(a));
	if (matches(w, "show") || matches(w, "lst") || matches(w, "list"))
		return link_show(c, parse_link_show(a));
	if (matches(w, "help"))
		throw UsageError(link_usage);
	throw UsageError("Command \"" + w + "\" is unknown, try \"xbridge link help\".");
}

}  // namespace xbridge
