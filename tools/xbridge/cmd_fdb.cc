// cmd_fdb.cc - see cmd_fdb.h.
#include "cmd_fdb.h"

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "../../netlink/xbridge.h"
#include "context.h"
#include "errors.h"
#include "objects.h"

namespace xbridge {

const char fdb_usage[] =
	"Usage: xbridge fdb { add | append | del | replace } ADDR dev DEV\n"
	"              [ self ] [ master ] [ extern_learn ] [ sticky ]\n"
	"              [ local | permanent | static | dynamic ] [ vlan VID ]\n"
	"       xbridge fdb [ show [ br BRDEV ] [ brport DEV ] [ vlan VID ]\n"
	"              [ state STATE ] [ dynamic ] ]\n"
	"       xbridge fdb get [ to ] LLADDR [ br BRDEV ] { brport | dev } DEV\n"
	"              [ vlan VID ] [ self ] [ master ] [ dynamic ]\n"
	"       xbridge fdb flush dev DEV [ brport DEV ] [ vlan VID ]\n"
	"              [ self ] [ master ] [ [no]permanent | [no]static | [no]dynamic ]\n"
	"              [ [no]added_by_user ] [ [no]extern_learn ] [ [no]sticky ]\n"
	"              [ [no]offloaded ]\n";

static bool unsupported_fdb_word(const std::string &w)
{
	static const char *const words[] = {"dst", "port", "dport", "vni", "via", "src_vni",
					    "nhid", "router", "use", "activity_notify",
					    "norefresh", "inactive"};
	for (const char *x : words)
		if (w == x)
			return true;
	return false;
}

static void set_addr(bool &have, Mac &mac, const std::string &w)
{
	if (have)
		throw UsageError("Error: either \"to\" is duplicate, or \"" + w +
				 "\" is a garbage.");
	mac = parse_mac(w);
	have = true;
}

FdbModify parse_fdb_modify(FdbOp op, Args &a)
{
	FdbModify r;
	r.op = op;
	bool have_addr = false, have_state = false;
	auto set_state = [&](uint16_t state) {
		r.state = state;
		have_state = true;
	};
	parse_keywords(a, fdb_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{"vlan", [&](const std::string &w) { vid_once(a, w, r.vlan); }},
		{"self", [&](const std::string &) { r.self = true; }},
		{"~master", [&](const std::string &) { r.master = true; }},
		{"~local|~permanent", [&](const std::string &) { set_state(XBRIDGE_FDB_STATE_PERMANENT); }},
		{"~temp|~static", [&](const std::string &) { set_state(XBRIDGE_FDB_STATE_NOARP); }},
		{"~dynamic", [&](const std::string &) { set_state(XBRIDGE_FDB_STATE_REACHABLE); }},
		{"sticky", [&](const std::string &) { r.flags |= XBRIDGE_FDB_F_STICKY; }},
		{"extern_learn", [&](const std::string &) { r.flags |= XBRIDGE_FDB_F_EXT_LEARN; }},
		{"to", [&](const std::string &w) { set_addr(have_addr, r.mac, a.value(w)); }},
	}, [&](const std::string &w) {
		if (unsupported_fdb_word(w))
			unsupported_word(w);
		set_addr(have_addr, r.mac, w);
	});
	if (!have_addr || r.dev.empty())
		throw UsageError("Device and address are required arguments.");
	if (!have_state)
		r.state = XBRIDGE_FDB_STATE_PERMANENT;  // iproute2: "Assume permanent"
	// The intent iproute2 sends as RTM_NEWNEIGH's nlmsg flags (NLM_F_CREATE
	// with EXCL, APPEND or REPLACE), as the family's fdb mode attribute.
	switch (op) {
	case FdbOp::Add: r.mode = XBRIDGE_FDB_MODE_CREATE; break;
	case FdbOp::Append: r.mode = XBRIDGE_FDB_MODE_APPEND; break;
	case FdbOp::Replace: r.mode = XBRIDGE_FDB_MODE_REPLACE; break;
	case FdbOp::Del: r.mode = -1; break;
	}
	return r;
}

static uint16_t parse_state_word(const std::string &v)
{
	if (v == "permanent" || v == "local")
		return XBRIDGE_FDB_STATE_PERMANENT;
	if (v == "static" || v == "temp")
		return XBRIDGE_FDB_STATE_NOARP;
	if (v == "dynamic" || v == "reachable")
		return XBRIDGE_FDB_STATE_REACHABLE;
	return static_cast<uint16_t>(parse_u32("state", v, 0xffff));
}

FdbShow parse_fdb_show(Args &a)
{
	FdbShow r;
	parse_keywords(a, fdb_usage, {
		{"br", [&](const std::string &w) { value_once(a, w, r.br); }},
		{"brport|dev", [&](const std::string &w) { value_once(a, w, r.brport); }},
		{"vlan", [&](const std::string &w) { vid_once(a, w, r.vlan); }},
		{"state", [&](const std::string &w) { r.state = parse_state_word(a.value(w)); }},
		{"dynamic", [&](const std::string &) { r.dynamic = true; }},
	});
	return r;
}

FdbGet parse_fdb_get(Args &a)
{
	FdbGet r;
	bool have_addr = false;
	// No "help" here: as iproute2, any other word is the address.
	parse_keywords(a, nullptr, {
		{"br", [&](const std::string &w) { r.br = a.value(w); }},
		{"brport|dev", [&](const std::string &w) { r.dev = a.value(w); }},
		{"vlan", [&](const std::string &w) { r.vlan = parse_vid(a.value(w)); }},
		{"self|master|dynamic", [](const std::string &) {}},
		{"vni", unsupported_word},
		{"to", [&](const std::string &w) { set_addr(have_addr, r.mac, a.value(w)); }},
	}, [&](const std::string &w) { set_addr(have_addr, r.mac, w); });
	if (!have_addr || (r.br.empty() && r.dev.empty()))
		throw UsageError("Device and address are required arguments.");
	return r;
}

FdbFlush parse_fdb_flush(Args &a)
{
	FdbFlush r;
	auto state = [&](uint16_t bit, bool on) {
		r.state_mask |= bit;
		if (on)
			r.state |= bit;
		else
			r.state &= static_cast<uint16_t>(~bit);
	};
	auto flag = [&](uint32_t bit, bool on) {
		r.flags_mask |= bit;
		if (on)
			r.flags |= bit;
		else
			r.flags &= ~bit;
	};
	parse_keywords(a, fdb_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{"brport", [&](const std::string &w) { value_once(a, w, r.brport); }},
		{"vlan", [&](const std::string &w) { vid_once(a, w, r.vlan); }},
		{"self|master", [](const std::string &) {}},
		{"permanent|nopermanent", [&](const std::string &w) {
			state(XBRIDGE_FDB_STATE_PERMANENT, w[0] != 'n');
		}},
		// As iproute2: static, not permanent (local entries are static
		// too and must survive "flush ... static").
		{"static", [&](const std::string &) {
			state(XBRIDGE_FDB_STATE_NOARP, true);
			r.state_mask |= XBRIDGE_FDB_STATE_PERMANENT;
		}},
		{"nostatic", [&](const std::string &) { state(XBRIDGE_FDB_STATE_NOARP, false); }},
		{"dynamic|nodynamic", [&](const std::string &w) {
			state(XBRIDGE_FDB_STATE_REACHABLE, w[0] != 'n');
		}},
		{"added_by_user|noadded_by_user", [&](const std::string &w) {
			flag(XBRIDGE_FDB_F_ADDED_BY_USER, w[0] != 'n');
		}},
		{"extern_learn|noextern_learn", [&](const std::string &w) {
			flag(XBRIDGE_FDB_F_EXT_LEARN, w[0] != 'n');
		}},
		{"sticky|nosticky", [&](const std::string &w) { flag(XBRIDGE_FDB_F_STICKY, w[0] != 'n'); }},
		{"nooffloaded", [](const std::string &) {}},	// nothing is offloaded: every entry
		{"offloaded", [](const std::string &) {
			throw UsageError("Error: \"offloaded\" is not supported by xbridge "
					 "(nothing is offloaded).");
		}},
	});
	if (r.dev.empty())
		throw UsageError("Device is a required argument.");
	return r;
}

static void put_u32(nl_msg *m, int t, uint32_t v) { nla_put_u32(m, t, v); }

static int fdb_modify(Context &c, const FdbModify &r)
{
	PortRef p = c.resolve_port(r.dev);
	uint8_t cmd = r.op == FdbOp::Del ? XBRIDGE_CMD_FDB_DEL : XBRIDGE_CMD_FDB_NEW;
	NlMsg m = c.genl().request(cmd);
	put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_FDB);
	nla_put(m.get(), XBRIDGE_FDB_MAC, 6, r.mac.data());
	if (r.vlan)
		nla_put_u16(m.get(), XBRIDGE_FDB_VLAN, r.vlan);
	put_u32(m.get(), XBRIDGE_FDB_PORT_IFINDEX, p.port);
	if (r.op != FdbOp::Del) {
		nla_put_u16(m.get(), XBRIDGE_FDB_STATE, r.state);
		if (r.flags)
			put_u32(m.get(), XBRIDGE_FDB_FLAGS, r.flags);
		nla_put_u8(m.get(), XBRIDGE_FDB_MODE, uint8_t(r.mode));
	}
	nla_nest_end(m.get(), n);
	c.genl().run(m.get());
	return 0;
}

static bool show_match(const FdbShow &s, uint32_t brport, const FdbEntry &e)
{
	if (brport && e.port_ifindex != brport)
		return false;
	if (s.vlan && e.vlan != s.vlan)
		return false;
	if (s.state && !(e.state & *s.state))
		return false;
	if (s.dynamic && (e.state & (XBRIDGE_FDB_STATE_PERMANENT | XBRIDGE_FDB_STATE_NOARP)))
		return false;
	return true;
}

// One FDB entry of a reply; its bridge is BR unless the kernel names it.
static FdbEntry fdb_from_reply(nlmsghdr *nlh, uint32_t br)
{
	FdbEntry e;
	if (!decode_fdb(nlh, e))
		throw Error("Error: malformed FDB entry in the kernel's reply", EXIT_DUMP);
	if (!e.bridge_ifindex)
		e.bridge_ifindex = br;
	return e;
}

static int fdb_show(Context &c, const FdbShow &s)
{
	std::vector<uint32_t> brs;
	uint32_t brport = 0;
	if (!s.br.empty())
		brs.push_back(c.resolve_bridge(s.br));
	if (!s.brport.empty()) {
		PortRef p = c.resolve_port(s.brport);
		brport = p.port;
		if (brs.empty())
			brs.push_back(p.bridge);
	}
	if (brs.empty())
		brs = c.bridges();
	FdbFormat f;
	f.stats = c.opt.stats > 0;
	f.filter_index = brport;
	Printer p = c.printer();
	p.begin_rows();
	NameFn name = c.namer();
	for (uint32_t br : brs) {
		NlMsg m = c.genl().request(XBRIDGE_CMD_FDB_GET, NLM_F_DUMP);
		put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
		c.genl().run(m.get(), [&](nlmsghdr *nlh) {
			FdbEntry e = fdb_from_reply(nlh, br);
			if (e.bridge_ifindex != br || !show_match(s, brport, e))
				return;
			print_fdb(p, e, f, name);
			if (p.buf().size() > 65536)
				c.emit(p.take());
		});
	}
	p.end_rows();
	c.emit(p.take());
	return 0;
}

static int fdb_get(Context &c, const FdbGet &g)
{
	uint32_t br = 0, port = 0;
	if (!g.dev.empty()) {
		PortRef p = c.resolve_port(g.dev);
		br = p.bridge;
		port = p.port;
	}
	if (!g.br.empty())
		br = c.resolve_bridge(g.br);
	NlMsg m = c.genl().request(XBRIDGE_CMD_FDB_GET);
	put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_FDB);
	nla_put(m.get(), XBRIDGE_FDB_MAC, 6, g.mac.data());
	if (g.vlan)
		nla_put_u16(m.get(), XBRIDGE_FDB_VLAN, g.vlan);
	if (port && port != br)
		put_u32(m.get(), XBRIDGE_FDB_PORT_IFINDEX, port);
	nla_nest_end(m.get(), n);
	Printer p = c.printer();
	FdbFormat f;
	f.stats = c.opt.stats > 0;
	bool got = false;
	c.genl().run(m.get(), [&](nlmsghdr *nlh) {
		print_fdb(p, fdb_from_reply(nlh, br), f, c.namer());
		got = true;
	});
	if (p.json() && got)
		p.buf() += '\n';
	c.emit(p.take());
	return 0;
}

static int fdb_flush(Context &c, const FdbFlush &fl)
{
	PortRef p = c.resolve_port(fl.dev);
	uint32_t port = p.is_bridge() ? 0 : p.port;
	if (!fl.brport.empty()) {
		PortRef bp = c.resolve_port(fl.brport);
		if (bp.bridge != p.bridge)
			throw UsageError("Error: \"" + fl.brport + "\" is not a port of \"" + fl.dev + "\".");
		port = bp.port;
	}
	NlMsg m = c.genl().request(XBRIDGE_CMD_FDB_FLUSH);
	put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_FLUSH);
	if (port)
		put_u32(m.get(), XBRIDGE_FLUSH_PORT_IFINDEX, port);
	if (fl.vlan)
		nla_put_u16(m.get(), XBRIDGE_FLUSH_VLAN, fl.vlan);
	if (fl.state_mask) {
		nla_put_u16(m.get(), XBRIDGE_FLUSH_STATE, fl.state);
		nla_put_u16(m.get(), XBRIDGE_FLUSH_STATE_MASK, fl.state_mask);
	}
	if (fl.flags_mask) {
		put_u32(m.get(), XBRIDGE_FLUSH_FLAGS, fl.flags);
		put_u32(m.get(), XBRIDGE_FLUSH_FLAGS_MASK, fl.flags_mask);
	}
	nla_nest_end(m.get(), n);
	c.genl().run(m.get());
	return 0;
}

int do_fdb(Context &c, Args &a)
{
	if (a.done())
		return fdb_show(c, FdbShow{});
	std::string w = a.take();
	if (matches(w, "add"))
		return fdb_modify(c, parse_fdb_modify(FdbOp::Add, a));
	if (matches(w, "append"))
		return fdb_modify(c, parse_fdb_modify(FdbOp::Append, a));
	if (matches(w, "replace"))
		return fdb_modify(c, parse_fdb_modify(FdbOp::Replace, a));
	if (matches(w, "delete"))
		return fdb_modify(c, parse_fdb_modify(FdbOp::Del, a));
	if (matches(w, "show") || matches(w, "lst") || matches(w, "list"))
		return fdb_show(c, parse_fdb_show(a));
	if (matches(w, "get"))
		return fdb_get(c, parse_fdb_get(a));
	if (matches(w, "flush"))
		return fdb_flush(c, parse_fdb_flush(a));
	if (matches(w, "help"))
		throw UsageError(fdb_usage);
	throw UsageError("Command \"" + w + "\" is unknown, try \"xbridge fdb help\".");
}

}  // namespace xbridge
