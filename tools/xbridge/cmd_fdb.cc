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
	while (!a.done()) {
		std::string w = a.take();
		if (w == "dev") {
			value_once(a, w, r.dev);
		} else if (w == "vlan") {
			vid_once(a, w, r.vlan);
		} else if (w == "self") {
			r.self = true;
		} else if (matches(w, "master")) {
			r.master = true;
		} else if (matches(w, "local") || matches(w, "permanent")) {
			r.state = XBRIDGE_FDB_STATE_PERMANENT;
			have_state = true;
		} else if (matches(w, "temp") || matches(w, "static")) {
			r.state = XBRIDGE_FDB_STATE_NOARP;
			have_state = true;
		} else if (matches(w, "dynamic")) {
			r.state = XBRIDGE_FDB_STATE_REACHABLE;
			have_state = true;
		} else if (w == "sticky") {
			r.flags |= XBRIDGE_FDB_F_STICKY;
		} else if (w == "extern_learn") {
			r.flags |= XBRIDGE_FDB_F_EXT_LEARN;
		} else if (unsupported_fdb_word(w)) {
			throw UsageError("Error: \"" + w + "\" is not supported by xbridge.");
		} else if (w == "help") {
			throw UsageError(fdb_usage);
		} else if (w == "to") {
			set_addr(have_addr, r.mac, a.value(w));
		} else {
			set_addr(have_addr, r.mac, w);
		}
	}
	if (!have_addr || r.dev.empty())
		throw UsageError("Device and address are required arguments.");
	if (!have_state)
		r.state = XBRIDGE_FDB_STATE_PERMANENT;  // iproute2: "Assume permanent"
	switch (op) {
	case FdbOp::Add: r.nlflags = NLM_F_CREATE | NLM_F_EXCL; break;
	case FdbOp::Append: r.nlflags = NLM_F_CREATE | NLM_F_APPEND; break;
	case FdbOp::Replace: r.nlflags = NLM_F_CREATE | NLM_F_REPLACE; break;
	case FdbOp::Del: r.nlflags = 0; break;
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
	while (!a.done()) {
		std::string w = a.take();
		if (w == "br" || w == "brport" || w == "dev") {
			value_once(a, w, w == "br" ? r.br : r.brport);
		} else if (w == "vlan") {
			vid_once(a, w, r.vlan);
		} else if (w == "state") {
			r.state = parse_state_word(a.value(w));
		} else if (w == "dynamic") {
			r.dynamic = true;
		} else if (w == "help") {
			throw UsageError(fdb_usage);
		} else {
			garbage(w);
		}
	}
	return r;
}

FdbGet parse_fdb_get(Args &a)
{
	FdbGet r;
	bool have_addr = false;
	while (!a.done()) {
		std::string w = a.take();
		if (w == "br") {
			r.br = a.value(w);
		} else if (w == "brport" || w == "dev") {
			r.dev = a.value(w);
		} else if (w == "vlan") {
			r.vlan = parse_vid(a.value(w));
		} else if (w == "self" || w == "master" || w == "dynamic") {
		} else if (w == "vni") {
			throw UsageError("Error: \"vni\" is not supported by xbridge.");
		} else if (w == "to") {
			set_addr(have_addr, r.mac, a.value(w));
		} else {
			set_addr(have_addr, r.mac, w);
		}
	}
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
	while (!a.done()) {
		std::string w = a.take();
		if (w == "dev") {
			value_once(a, w, r.dev);
		} else if (w == "brport") {
			value_once(a, w, r.brport);
		} else if (w == "vlan") {
			vid_once(a, w, r.vlan);
		} else if (w == "self" || w == "master") {
		} else if (w == "permanent" || w == "nopermanent") {
			state(XBRIDGE_FDB_STATE_PERMANENT, w[0] != 'n');
		} else if (w == "static") {
			// As iproute2: static, not permanent (local entries are
			// static too and must survive "flush ... static").
			state(XBRIDGE_FDB_STATE_NOARP, true);
			r.state_mask |= XBRIDGE_FDB_STATE_PERMANENT;
		} else if (w == "nostatic") {
			state(XBRIDGE_FDB_STATE_NOARP, false);
		} else if (w == "dynamic" || w == "nodynamic") {
			state(XBRIDGE_FDB_STATE_REACHABLE, w[0] != 'n');
		} else if (w == "added_by_user" || w == "noadded_by_user") {
			flag(XBRIDGE_FDB_F_ADDED_BY_USER, w[0] != 'n');
		} else if (w == "extern_learn" || w == "noextern_learn") {
			flag(XBRIDGE_FDB_F_EXT_LEARN, w[0] != 'n');
		} else if (w == "sticky" || w == "nosticky") {
			flag(XBRIDGE_FDB_F_STICKY, w[0] != 'n');
		} else if (w == "nooffloaded") {
			// nothing is offloaded: matches every entry
		} else if (w == "offloaded") {
			throw UsageError("Error: \"offloaded\" is not supported by xbridge (nothing is offloaded).");
		} else if (w == "help") {
			throw UsageError(fdb_usage);
		} else {
			garbage(w);
		}
	}
	if (r.dev.empty())
		throw UsageError("Device is a required argument.");
	return r;
}

static void put_u32(nl_msg *m, int t, uint32_t v) { nla_put_u32(m, t, v); }

static int fdb_modify(Context &c, const FdbModify &r)
{
	PortRef p = c.resolve_port(r.dev);
	uint8_t cmd = r.op == FdbOp::Del ? XBRIDGE_CMD_FDB_DEL : XBRIDGE_CMD_FDB_NEW;
	NlMsg m = c.genl().request(cmd, r.nlflags);
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
			FdbEntry e;
			if (!decode_fdb(nlh, e))
				throw Error("Error: malformed FDB entry in the kernel's reply", EXIT_DUMP);
			if (!e.bridge_ifindex)
				e.bridge_ifindex = br;
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
		FdbEntry e;
		if (!decode_fdb(nlh, e))
			throw Error("Error: malformed FDB entry in the kernel's reply", EXIT_DUMP);
		if (!e.bridge_ifindex)
			e.bridge_ifindex = br;
		print_fdb(p, e, f, c.namer());
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
