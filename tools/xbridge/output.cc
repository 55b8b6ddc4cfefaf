// output.cc - see output.h.
#include "output.h"

#include <net/if.h>

#include <cstdio>

#include "../../netlink/xbridge.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000
#define IFF_DORMANT 0x20000
#define IFF_ECHO 0x40000
#endif

namespace xbridge {

Printer::Printer(bool json, bool pretty)
{
	if (json)
		jw_ = std::make_unique<JsonWriter>(out_, pretty);
}

std::string Printer::take()
{
	std::string s;
	s.swap(out_);
	return s;
}

void Printer::text(std::string_view s)
{
	if (!jw_)
		out_ += s;
}

void Printer::str(const char *key, std::string_view val, std::string_view txt)
{
	if (jw_) {
		if (key)
			jw_->name(key);
		jw_->string(val);
	} else {
		out_ += txt;
	}
}

void Printer::uint(const char *key, uint64_t val, std::string_view txt)
{
	if (jw_) {
		if (key)
			jw_->name(key);
		jw_->uint(val);
	} else {
		out_ += txt;
	}
}

void Printer::boolean(const char *key, bool val, std::string_view txt)
{
	if (jw_) {
		jw_->name(key);
		jw_->boolean(val);
	} else {
		out_ += txt;
	}
}

void Printer::elem(std::string_view val, std::string_view txt)
{
	str(nullptr, val, txt);
}

void Printer::open_obj()
{
	if (jw_)
		jw_->start_object();
}

void Printer::close_obj()
{
	if (jw_)
		jw_->end_object();
}

void Printer::open_obj_key(const char *key)
{
	if (jw_) {
		jw_->name(key);
		jw_->start_object();
	}
}

void Printer::open_arr(const char *key)
{
	if (jw_) {
		jw_->name(key);
		jw_->start_array();
	}
}

void Printer::close_arr()
{
	if (jw_)
		jw_->end_array();
}

void Printer::begin_rows()
{
	if (jw_)
		jw_->start_array();
}

void Printer::end_rows()
{
	if (jw_) {
		jw_->end_array();
		out_ += '\n';
	}
}

const char *fdb_state_name(uint16_t s)
{
	static char buf[32];
	if (s & XBRIDGE_FDB_STATE_PERMANENT)
		return "permanent";
	if (s & XBRIDGE_FDB_STATE_NOARP)
		return "static";
	if (s & 0x04)  // NUD_STALE
		return "stale";
	if (s & XBRIDGE_FDB_STATE_REACHABLE)
		return "";
	snprintf(buf, sizeof(buf), "state=%#x", s);
	return buf;
}

void print_fdb(Printer &p, const FdbEntry &e, const FdbFormat &f, const NameFn &name)
{
	p.open_obj();
	if (f.monitor && e.deleted)
		p.boolean("deleted", true, "Deleted ");
	std::string mac = format_mac(e.mac);
	p.str("mac", mac, mac + " ");
	if (!f.filter_index && e.port_ifindex) {
		std::string n = name(e.port_ifindex);
		p.str("ifname", n, "dev " + n + " ");
	}
	if (e.vlan)
		p.uint("vlan", e.vlan, "vlan " + std::to_string(e.vlan) + " ");
	if (f.stats && (e.used || e.updated)) {
		uint32_t u = e.used.value_or(0), d = e.updated.value_or(0);
		if (p.json()) {
			p.uint("used", u, "");
			p.uint("updated", d, "");
		} else {
			p.text("used " + std::to_string(u) + "/" + std::to_string(d) + " ");
		}
	}
	p.open_arr("flags");
	if (e.flags & XBRIDGE_FDB_F_EXT_LEARN)
		p.elem("extern_learn", "extern_learn ");
	if (e.flags & XBRIDGE_FDB_F_STICKY)
		p.elem("sticky", "sticky ");
	if (e.flags & XBRIDGE_FDB_F_LOCKED)
		p.elem("locked", "locked ");
	p.close_arr();
	if (e.bridge_ifindex) {
		std::string m = name(e.bridge_ifindex);
		p.str("master", m, "master " + m + " ");
	}
	std::string st = fdb_state_name(e.state);
	p.str("state", st, st + "\n");
	p.close_obj();
}

static std::string pad16(const std::string &s)
{
	std::string r = s;
	if (r.size() < IFNAMSIZ)
		r.append(IFNAMSIZ - r.size(), ' ');
	return r + "  ";
}

void print_vlan_header(Printer &p, bool stats)
{
	// iproute2 6.1: "%-16s  %-9s" for the plain table, "%-16s  vlan-id" with -s.
	p.text(stats ? pad16("port") + "vlan-id\n" : pad16("port") + "vlan-id  \n");
}

static void vlan_flags(Printer &p, uint16_t flags)
{
	if (!(flags & (XBRIDGE_VLAN_F_PVID | XBRIDGE_VLAN_F_UNTAGGED)))
		return;
	p.open_arr("flags");
	if (flags & XBRIDGE_VLAN_F_PVID)
		p.elem("PVID", " PVID");
	if (flags & XBRIDGE_VLAN_F_UNTAGGED)
		p.elem("Egress Untagged", " Egress Untagged");
	p.close_arr();
}

static void vlan_stats(Printer &p, const VlanEntry &v)
{
	p.text(pad16("") + "  ");
	p.uint("rx_bytes", v.rx_bytes, "RX: " + std::to_string(v.rx_bytes) + " bytes");
	p.uint("rx_packets", v.rx_packets, " " + std::to_string(v.rx_packets) + " packets\n");
	p.text(pad16("") + "  ");
	p.uint("tx_bytes", v.tx_bytes, "TX: " + std::to_string(v.tx_bytes) + " bytes");
	p.uint("tx_packets", v.tx_packets, " " + std::to_string(v.tx_packets) + " packets\n");
}

void print_vlan_port(Printer &p, const std::string &ifname, const std::vector<VlanEntry> &entries,
		     bool compress, bool stats)
{
	bool opened = false;
	auto row = [&](const VlanEntry &v, uint16_t start, uint16_t end) {
		if (!opened) {
			p.open_obj();
			p.str("ifname", ifname, pad16(ifname));
			p.open_arr("vlans");
			opened = true;
		} else {
			p.text(pad16(""));
		}
		p.open_obj();
		if (stats) {
			p.uint("vid", start, std::to_string(start));
			vlan_flags(p, v.flags);
			p.text("\n");
			vlan_stats(p, v);
		} else {
			p.uint("vlan", start, std::to_string(start));
			if (end != start)
				p.uint("vlanEnd", end, "-" + std::to_string(end));
			vlan_flags(p, v.flags);
			p.text("\n");
		}
		p.close_obj();
	};
	for (const VlanEntry &v : entries) {
		if (compress && !stats) {
			row(v, v.vid, v.vid_end);
		} else {
			for (unsigned vid = v.vid; vid <= v.vid_end; vid++)
				row(v, static_cast<uint16_t>(vid), static_cast<uint16_t>(vid));
		}
	}
	if (opened) {
		p.close_arr();
		p.close_obj();
	}
}

void print_vlan_event(Printer &p, const std::string &ifname, const VlanEntry &v)
{
	p.open_obj();
	if (v.deleted)
		p.boolean("deleted", true, "Deleted ");
	p.str("ifname", ifname, pad16(ifname));
	p.uint("vlan", v.vid, std::to_string(v.vid));
	if (v.vid_end != v.vid)
		p.uint("vlanEnd", v.vid_end, "-" + std::to_string(v.vid_end));
	vlan_flags(p, v.flags);
	if (v.state && port_state_name(*v.state))
		p.str("state", port_state_name(*v.state),
		      std::string(" state ") + port_state_name(*v.state));
	p.text("\n");
	p.close_obj();
}

void print_link_flags(Printer &p, unsigned flags)
{
	p.open_arr("flags");
	p.text("<");
	bool first = true;
	auto f = [&](const char *n) {
		p.elem(n, std::string(first ? "" : ",") + n);
		first = false;
	};
	if ((flags & IFF_UP) && !(flags & IFF_RUNNING))
		f("NO-CARRIER");
	flags &= ~IFF_RUNNING;
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{IFF_LOOPBACK, "LOOPBACK"}, {IFF_BROADCAST, "BROADCAST"},
		{IFF_POINTOPOINT, "POINTOPOINT"}, {IFF_MULTICAST, "MULTICAST"},
		{IFF_NOARP, "NOARP"}, {IFF_ALLMULTI, "ALLMULTI"}, {IFF_PROMISC, "PROMISC"},
		{IFF_NOTRAILERS, "NOTRAILERS"}, {IFF_DEBUG, "DEBUG"}, {IFF_DYNAMIC, "DYNAMIC"},
		{IFF_AUTOMEDIA, "AUTOMEDIA"}, {IFF_PORTSEL, "PORTSEL"}, {IFF_MASTER, "MASTER"},
		{IFF_SLAVE, "SLAVE"}, {IFF_UP, "UP"}, {IFF_LOWER_UP, "LOWER_UP"},
		{IFF_DORMANT, "DORMANT"}, {IFF_ECHO, "ECHO"},
	};
	for (const auto &n : names) {
		if (flags & n.bit) {
			flags &= ~n.bit;
			f(n.name);
		}
	}
	if (flags) {
		char b[16];
		snprintf(b, sizeof(b), "%x", flags);
		f(b);
	}
	p.text("> ");
	p.close_arr();
}

static void on_off(Printer &p, const char *key, const std::optional<bool> &v)
{
	if (!v)
		return;
	p.boolean(key, *v, std::string(key) + (*v ? " on " : " off "));
}

void print_link(Printer &p, const LinkRow &r, bool details)
{
	p.open_obj();
	if (r.deleted)
		p.boolean("deleted", true, "Deleted ");
	p.uint("ifindex", r.ifindex, std::to_string(r.ifindex) + ": ");
	if (!r.link.empty())
		p.str("link", r.link, "");
	p.str("ifname", r.ifname, r.ifname + (r.link.empty() ? "" : "@" + r.link));
	p.text(": ");
	print_link_flags(p, r.flags);
	if (r.mtu)
		p.uint("mtu", r.mtu, "mtu " + std::to_string(r.mtu) + " ");
	if (!r.master.empty())
		p.str("master", r.master, "master " + r.master + " ");
	if (r.state) {
		const char *s = port_state_name(*r.state);
		std::string sv = s ? s : std::to_string(*r.state);
		p.str("state", sv, "state " + sv + " ");
	}
	p.text("\n");
	if (details && r.port) {
		p.text("    ");
		on_off(p, "hairpin", r.port->hairpin);
		on_off(p, "learning", r.port->learning);
		on_off(p, "flood", r.port->flood);
		on_off(p, "mcast_flood", r.port->mcast_flood);
		on_off(p, "bcast_flood", r.port->bcast_flood);
		on_off(p, "neigh_suppress", r.port->neigh_suppress);
		on_off(p, "isolated", r.port->isolated);
		on_off(p, "locked", r.port->locked);
		on_off(p, "mab", r.port->mab);
		p.text("\n");
	}
	p.close_obj();
}

}  // namespace xbridge
