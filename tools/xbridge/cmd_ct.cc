// cmd_ct.cc - see cmd_ct.h.
#include "cmd_ct.h"

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <cstdio>
#include <cstring>

#include "../../netlink/xbridge.h"
#include "args.h"
#include "context.h"
#include "errors.h"
#include "output.h"

namespace xbridge {

const char ct_usage[] =
	"Usage: xbridge ct { show | list } [ dev BRIDGE ] [ zone ZONE ]\n"
	"       xbridge ct flush [ dev BRIDGE ] [ zone ZONE ] [ mark MARK[/MASK] ]\n"
	"       xbridge ct count [ dev BRIDGE ]\n"
	"       xbridge [ -s ] ct stats [ dev BRIDGE ]\n"
	"The bridge's conntrack option must be on: xbridge link set dev BRIDGE conntrack on\n";

/* ---- decoding ----------------------------------------------------------- */

namespace {

template <typename T> bool get_val(nlattr *a, T &out)
{
	if (!a)
		return true;
	if (nla_len(a) < static_cast<int>(sizeof(T)))
		return false;
	memcpy(&out, nla_data(a), sizeof(T));
	return true;
}

bool get_addr(nlattr *a, std::array<uint8_t, 16> &out)
{
	if (!a)
		return true;
	if (nla_len(a) != 16)
		return false;
	memcpy(out.data(), nla_data(a), 16);
	return true;
}

bool parse_top(nlmsghdr *nlh, nlattr **tb)
{
	return genlmsg_valid_hdr(nlh, 0) && genlmsg_parse(nlh, 0, tb, XBRIDGE_A_MAX, nullptr) == 0;
}

}  // namespace

bool decode_ct(nlmsghdr *nlh, CtRow &r)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *a[XBRIDGE_CT_MAX + 1];
	if (!parse_top(nlh, tb) || !tb[XBRIDGE_A_CT] ||
	    nla_parse_nested(a, XBRIDGE_CT_MAX, tb[XBRIDGE_A_CT], nullptr) != 0)
		return false;
	uint8_t tcp_state = 0, sctp_state = 0, dccp_state = 0;
	bool ok = get_val(tb[XBRIDGE_A_IFINDEX], r.bridge_ifindex) &&
		  get_val(a[XBRIDGE_CT_L3], r.l3) && get_val(a[XBRIDGE_CT_PROTO], r.proto) &&
		  get_val(a[XBRIDGE_CT_ZONE], r.zone) && get_addr(a[XBRIDGE_CT_SRC], r.orig.src) &&
		  get_addr(a[XBRIDGE_CT_DST], r.orig.dst) &&
		  get_val(a[XBRIDGE_CT_SPORT], r.orig.sport) &&
		  get_val(a[XBRIDGE_CT_DPORT], r.orig.dport) &&
		  get_addr(a[XBRIDGE_CT_REPLY_SRC], r.reply.src) &&
		  get_addr(a[XBRIDGE_CT_REPLY_DST], r.reply.dst) &&
		  get_val(a[XBRIDGE_CT_REPLY_SPORT], r.reply.sport) &&
		  get_val(a[XBRIDGE_CT_REPLY_DPORT], r.reply.dport) &&
		  get_val(a[XBRIDGE_CT_STATUS], r.status) &&
		  get_val(a[XBRIDGE_CT_TIMEOUT], r.timeout) && get_val(a[XBRIDGE_CT_MARK], r.mark) &&
		  get_val(a[XBRIDGE_CT_USE], r.use) &&
		  get_val(a[XBRIDGE_CT_TCP_STATE], tcp_state) &&
		  get_val(a[XBRIDGE_CT_SCTP_STATE], sctp_state) &&
		  get_val(a[XBRIDGE_CT_DCCP_STATE], dccp_state) &&
		  get_val(a[XBRIDGE_CT_ORIG_PACKETS], r.packets[0]) &&
		  get_val(a[XBRIDGE_CT_ORIG_BYTES], r.bytes[0]) &&
		  get_val(a[XBRIDGE_CT_REPLY_PACKETS], r.packets[1]) &&
		  get_val(a[XBRIDGE_CT_REPLY_BYTES], r.bytes[1]);
	if (a[XBRIDGE_CT_TCP_STATE])
		r.tcp_state = tcp_state;
	if (a[XBRIDGE_CT_SCTP_STATE])
		r.sctp_state = sctp_state;
	if (a[XBRIDGE_CT_DCCP_STATE])
		r.dccp_state = dccp_state;
	uint8_t teardown = 0;
	if (a[XBRIDGE_CT_FLOW_TEARDOWN]) {
		ok = ok && get_val(a[XBRIDGE_CT_FLOW_TEARDOWN], teardown);
		r.flow_teardown = teardown;
	}
	return ok && (r.l3 == 4 || r.l3 == 6) && a[XBRIDGE_CT_SRC] && a[XBRIDGE_CT_DST];
}

bool decode_ct_stats(nlmsghdr *nlh, CtStatsRow &s)
{
	nlattr *tb[XBRIDGE_A_MAX + 1];
	nlattr *a[XBRIDGE_CT_STATS_MAX + 1];
	if (!parse_top(nlh, tb) || !tb[XBRIDGE_A_CT_STATS] ||
	    nla_parse_nested(a, XBRIDGE_CT_STATS_MAX, tb[XBRIDGE_A_CT_STATS], nullptr) != 0)
		return false;
	// The flowtable's counters are optional (a module without them).
	const struct {
		int type;
		uint64_t *val;
	} flow64[] = {
		{XBRIDGE_CT_STATS_FLOW_HITS, &s.flow_hits},
		{XBRIDGE_CT_STATS_FLOW_ADDS, &s.flow_adds},
		{XBRIDGE_CT_STATS_FLOW_ADD_FAILED, &s.flow_add_failed},
		{XBRIDGE_CT_STATS_FLOW_TEARDOWN_STALE, &s.flow_teardown_stale},
		{XBRIDGE_CT_STATS_FLOW_TEARDOWN_FIN_RST, &s.flow_teardown_fin_rst},
		{XBRIDGE_CT_STATS_FLOW_TEARDOWN_TIMEOUT, &s.flow_teardown_timeout},
		{XBRIDGE_CT_STATS_FLOW_TEARDOWN_CONNTRACK, &s.flow_teardown_conntrack},
	};
	for (const auto &f : flow64)
		if (a[f.type] && !get_val(a[f.type], *f.val))
			return false;
	if (a[XBRIDGE_CT_STATS_FLOWS] && !get_val(a[XBRIDGE_CT_STATS_FLOWS], s.flows))
		return false;
	return get_val(a[XBRIDGE_CT_STATS_COUNT], s.count) &&
	       get_val(a[XBRIDGE_CT_STATS_MAX_ENTRIES], s.max_entries) &&
	       get_val(a[XBRIDGE_CT_STATS_BUCKETS], s.buckets) &&
	       get_val(a[XBRIDGE_CT_STATS_FOUND], s.found) &&
	       get_val(a[XBRIDGE_CT_STATS_INVALID], s.invalid) &&
	       get_val(a[XBRIDGE_CT_STATS_INSERT], s.insert) &&
	       get_val(a[XBRIDGE_CT_STATS_INSERT_FAILED], s.insert_failed) &&
	       get_val(a[XBRIDGE_CT_STATS_DROP], s.drop) &&
	       get_val(a[XBRIDGE_CT_STATS_EARLY_DROP], s.early_drop) &&
	       get_val(a[XBRIDGE_CT_STATS_ERROR], s.error) &&
	       get_val(a[XBRIDGE_CT_STATS_SEARCH_RESTART], s.search_restart) &&
	       get_val(a[XBRIDGE_CT_STATS_CLASH_RESOLVE], s.clash_resolve) &&
	       get_val(a[XBRIDGE_CT_STATS_CHAINTOOLONG], s.chaintoolong);
}

/* ---- formatting (libnetfilter_conntrack's default output) ---------------- */

namespace {

/* The protocol names conntrack prints (libnetfilter_conntrack proto2str). */
const char *proto_name(uint8_t p)
{
	switch (p) {
	case 1: return "icmp";
	case 2: return "igmp";
	case 6: return "tcp";
	case 17: return "udp";
	case 33: return "dccp";
	case 47: return "gre";
	case 58: return "icmpv6";
	case 132: return "sctp";
	case 136: return "udplite";
	default: return "unknown";
	}
}

/* TCP_CONNTRACK_* as conntrack prints them (9, syn_sent2, is "LISTEN"). */
const char *tcp_state_name(uint8_t s)
{
	static const char *const names[] = {"NONE",	  "SYN_SENT", "SYN_RECV",  "ESTABLISHED",
					    "FIN_WAIT",	  "CLOSE_WAIT", "LAST_ACK", "TIME_WAIT",
					    "CLOSE",	  "LISTEN"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : names[0];
}

/* SCTP_CONNTRACK_* as conntrack prints them. */
const char *sctp_state_name(uint8_t s)
{
	static const char *const names[] = {"NONE",	     "CLOSED",		"COOKIE_WAIT",
					    "COOKIE_ECHOED", "ESTABLISHED",	"SHUTDOWN_SENT",
					    "SHUTDOWN_RECD", "SHUTDOWN_ACK_SENT", "HEARTBEAT_SENT",
					    "HEARTBEAT_ACKED"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : names[0];
}

/* CT_DCCP_* as conntrack prints them (dccp_state_names). */
const char *dccp_state_name(uint8_t s)
{
	static const char *const names[] = {"NONE",	"REQUEST", "RESPOND",  "PARTOPEN", "OPEN",
					    "CLOSEREQ", "CLOSING", "TIMEWAIT", "IGNORE",   "INVALID"};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : names[0];
}

std::string addr_str(uint8_t l3, const std::array<uint8_t, 16> &a)
{
	char buf[INET6_ADDRSTRLEN];
	if (!inet_ntop(l3 == 4 ? AF_INET : AF_INET6, a.data(), buf, sizeof(buf)))
		return "?";
	return buf;
}

bool is_icmp(uint8_t proto)
{
	return proto == 1 || proto == 58;
}

bool has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 33 || proto == 132 || proto == 136;
}

/* GRE's keys (PPTP call IDs), printed in hex as conntrack does */
bool has_keys(uint8_t proto)
{
	return proto == 47;
}

std::string hex16(uint16_t v)
{
	char buf[8];
	snprintf(buf, sizeof(buf), "0x%x", v);
	return buf;
}

std::string tuple_str(const CtRow &r, const CtTupleRow &t)
{
	std::string s = "src=" + addr_str(r.l3, t.src) + " dst=" + addr_str(r.l3, t.dst) + " ";
	if (has_ports(r.proto))
		s += "sport=" + std::to_string(t.sport) + " dport=" + std::to_string(t.dport) + " ";
	else if (has_keys(r.proto))
		s += "srckey=" + hex16(t.sport) + " dstkey=" + hex16(t.dport) + " ";
	else if (is_icmp(r.proto))
		s += "type=" + std::to_string(t.dport >> 8) + " code=" +
		     std::to_string(t.dport & 0xff) + " id=" + std::to_string(t.sport) + " ";
	return s;
}

std::string counters_str(uint64_t packets, uint64_t bytes)
{
	return "packets=" + std::to_string(packets) + " bytes=" + std::to_string(bytes) + " ";
}

}  // namespace

/* @live: the timeout and the TCP, SCTP or DCCP state (a destroy event, as ctnetlink's,
 * carries neither). */
static std::string ct_line(const CtRow &r, bool counters, bool live)
{
	char head[32];
	snprintf(head, sizeof(head), "%-8s %u ", proto_name(r.proto), r.proto);
	std::string s = head;
	if (live)
		s += std::to_string(r.timeout) + " ";
	if (live && r.tcp_state)
		s += std::string(tcp_state_name(*r.tcp_state)) + " ";
	else if (live && r.sctp_state)
		s += std::string(sctp_state_name(*r.sctp_state)) + " ";
	else if (live && r.dccp_state)
		s += std::string(dccp_state_name(*r.dccp_state)) + " ";
	s += tuple_str(r, r.orig);
	if (counters)
		s += counters_str(r.packets[0], r.bytes[0]);
	if (!(r.status & XBRIDGE_CT_S_SEEN_REPLY))
		s += "[UNREPLIED] ";
	s += tuple_str(r, r.reply);
	if (counters)
		s += counters_str(r.packets[1], r.bytes[1]);
	if (r.status & XBRIDGE_CT_S_ASSURED)
		s += "[ASSURED] ";
	if (r.status & XBRIDGE_CT_S_OFFLOAD)
		s += "[OFFLOAD] ";
	s += "mark=" + std::to_string(r.mark) + " ";
	/* ctnetlink sends CTA_ZONE only for a zone other than the default. */
	if (r.zone)
		s += "zone=" + std::to_string(r.zone) + " ";
	s += "use=" + std::to_string(r.use);
	return s;
}

std::string format_ct_line(const CtRow &r, bool counters)
{
	return ct_line(r, counters, true);
}

std::string flow_teardown_name(uint8_t cause)
{
	switch (cause) {
	case XBRIDGE_FLOW_TEARDOWN_STALE: return "stale";
	case XBRIDGE_FLOW_TEARDOWN_FIN_RST: return "fin-rst";
	case XBRIDGE_FLOW_TEARDOWN_TIMEOUT: return "timeout";
	case XBRIDGE_FLOW_TEARDOWN_CONNTRACK: return "conntrack";
	case XBRIDGE_FLOW_TEARDOWN_FLUSH: return "flush";
	case XBRIDGE_FLOW_TEARDOWN_RULESET: return "ruleset";
	default: return std::to_string(cause);
	}
}

static const char *event_name(CtEventKind kind)
{
	switch (kind) {
	case CtEventKind::New: return "new";
	case CtEventKind::Update: return "update";
	default: return "destroy";
	}
}

std::string format_ct_event(const CtRow &r, CtEventKind kind, bool counters)
{
	char head[16];
	const char *tag = kind == CtEventKind::New ? "[NEW]" :
			  kind == CtEventKind::Update ? "[UPDATE]" : "[DESTROY]";
	snprintf(head, sizeof(head), "%9s ", tag);
	std::string s = head + ct_line(r, counters, kind != CtEventKind::Destroy);
	if (r.flow_teardown)
		s += " flow-teardown=" + flow_teardown_name(*r.flow_teardown);
	return s;
}

void print_ct_event(Printer &p, const CtRow &r, const std::string &bridge, CtEventKind kind,
		    bool counters)
{
	if (!p.json()) {
		p.text(format_ct_event(r, kind, counters) + "\n");
		return;
	}
	Printer row(true, false);
	print_ct(row, r, bridge, counters);
	std::string obj = row.take();
	/* {"event":"new"|"update"|"destroy", ["flow_teardown":CAUSE,] ...the row's keys} */
	std::string head = std::string("{\"event\":\"") + event_name(kind) + "\",";
	if (r.flow_teardown)
		head += "\"flow_teardown\":\"" + flow_teardown_name(*r.flow_teardown) + "\",";
	p.buf() += head + obj.substr(1);
}

static void print_tuple_json(Printer &p, const char *key, const CtRow &r, const CtTupleRow &t,
			     uint64_t packets, uint64_t bytes, bool counters)
{
	p.open_obj_key(key);
	p.str("src", addr_str(r.l3, t.src), "");
	p.str("dst", addr_str(r.l3, t.dst), "");
	if (has_ports(r.proto)) {
		p.uint("sport", t.sport, "");
		p.uint("dport", t.dport, "");
	} else if (has_keys(r.proto)) {
		p.uint("srckey", t.sport, "");
		p.uint("dstkey", t.dport, "");
	} else if (is_icmp(r.proto)) {
		p.uint("type", t.dport >> 8, "");
		p.uint("code", t.dport & 0xff, "");
		p.uint("id", t.sport, "");
	}
	if (counters) {
		p.uint("packets", packets, "");
		p.uint("bytes", bytes, "");
	}
	p.close_obj();
}

void print_ct(Printer &p, const CtRow &r, const std::string &bridge, bool counters)
{
	if (!p.json()) {
		p.text(format_ct_line(r, counters) + "\n");
		return;
	}
	p.open_obj();
	p.str("ifname", bridge, "");
	p.str("family", r.l3 == 4 ? "ipv4" : "ipv6", "");
	p.str("proto", proto_name(r.proto), "");
	p.uint("protonum", r.proto, "");
	p.uint("timeout", r.timeout, "");
	if (r.tcp_state)
		p.str("state", tcp_state_name(*r.tcp_state), "");
	else if (r.sctp_state)
		p.str("state", sctp_state_name(*r.sctp_state), "");
	else if (r.dccp_state)
		p.str("state", dccp_state_name(*r.dccp_state), "");
	print_tuple_json(p, "orig", r, r.orig, r.packets[0], r.bytes[0], counters);
	print_tuple_json(p, "reply", r, r.reply, r.packets[1], r.bytes[1], counters);
	p.open_arr("flags");
	if (!(r.status & XBRIDGE_CT_S_SEEN_REPLY))
		p.elem("UNREPLIED", "");
	if (r.status & XBRIDGE_CT_S_ASSURED)
		p.elem("ASSURED", "");
	if (r.status & XBRIDGE_CT_S_OFFLOAD)
		p.elem("OFFLOAD", "");
	p.close_arr();
	p.uint("mark", r.mark, "");
	p.uint("zone", r.zone, "");
	p.uint("use", r.use, "");
	p.close_obj();
}

std::string format_flow_stats(const CtStatsRow &s)
{
	char buf[384];
	snprintf(buf, sizeof(buf),
		 "flowtable: flows=%u hits=%llu adds=%llu add_failed=%llu teardown_stale=%llu "
		 "teardown_fin_rst=%llu teardown_timeout=%llu teardown_conntrack=%llu",
		 s.flows, (unsigned long long)s.flow_hits, (unsigned long long)s.flow_adds,
		 (unsigned long long)s.flow_add_failed, (unsigned long long)s.flow_teardown_stale,
		 (unsigned long long)s.flow_teardown_fin_rst,
		 (unsigned long long)s.flow_teardown_timeout,
		 (unsigned long long)s.flow_teardown_conntrack);
	return buf;
}

std::string format_ct_stats(const CtStatsRow &s)
{
	char buf[512];
	snprintf(buf, sizeof(buf),
		 "found=%llu invalid=%llu insert=%llu insert_failed=%llu drop=%llu "
		 "early_drop=%llu error=%llu search_restart=%llu clash_resolve=%llu "
		 "chaintoolong=%llu",
		 (unsigned long long)s.found, (unsigned long long)s.invalid,
		 (unsigned long long)s.insert, (unsigned long long)s.insert_failed,
		 (unsigned long long)s.drop, (unsigned long long)s.early_drop,
		 (unsigned long long)s.error, (unsigned long long)s.search_restart,
		 (unsigned long long)s.clash_resolve, (unsigned long long)s.chaintoolong);
	return buf;
}

/* ---- the command ---------------------------------------------------------- */

CtShow parse_ct_filter(Args &a, const char *what)
{
	CtShow r;
	const bool zone_ok = std::string(what) == "show" || std::string(what) == "flush";
	const bool mark_ok = std::string(what) == "flush";
	parse_keywords(a, ct_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{zone_ok ? "zone" : "", [&](const std::string &w) {
			if (r.zone)
				duparg(w, a.peek());
			r.zone = static_cast<uint16_t>(parse_u32(w, a.value(w), 0xffff));
		}},
		{mark_ok ? "mark" : "", [&](const std::string &w) {
			if (r.mark)
				duparg(w, a.peek());
			const std::string v = a.value(w);
			const size_t slash = v.find('/');
			r.mark = parse_u32(w, v.substr(0, slash), 0xffffffff);
			if (slash != std::string::npos)
				r.mark_mask = parse_u32(w, v.substr(slash + 1), 0xffffffff);
		}},
	});
	return r;
}

static std::vector<uint32_t> ct_bridges(Context &c, const CtShow &s)
{
	if (!s.dev.empty())
		return {c.resolve_bridge(s.dev)};
	return c.bridges();
}

static void put_zone(nl_msg *m, const std::optional<uint16_t> &zone)
{
	if (!zone)
		return;
	nlattr *n = nla_nest_start(m, XBRIDGE_A_CT);
	nla_put_u16(m, XBRIDGE_CT_ZONE, *zone);
	nla_nest_end(m, n);
}

static int ct_show(Context &c, const CtShow &s)
{
	Printer p = c.printer();
	unsigned n = 0;
	p.begin_rows();
	for (uint32_t br : ct_bridges(c, s)) {
		NlMsg m = c.genl().request(XBRIDGE_CMD_CT_GET, NLM_F_DUMP);
		nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
		put_zone(m.get(), s.zone);
		const std::string name = c.name(br);
		c.genl().run(m.get(), [&](nlmsghdr *nlh) {
			CtRow r;
			if (!decode_ct(nlh, r))
				throw Error("Error: malformed conntrack entry in the kernel's reply",
					    EXIT_DUMP);
			print_ct(p, r, name, c.opt.stats > 0);
			n++;
		});
	}
	p.end_rows();
	c.emit(p.take());
	/* conntrack's summary line, on stderr as conntrack prints it */
	if (!c.opt.json)
		fprintf(stderr, "xbridge ct: %u flow entries have been shown.\n", n);
	return 0;
}

static int ct_flush(Context &c, const CtShow &s)
{
	for (uint32_t br : ct_bridges(c, s)) {
		NlMsg m = c.genl().request(XBRIDGE_CMD_CT_FLUSH);
		nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
		if (s.zone || s.mark) {
			nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_CT);
			if (s.zone)
				nla_put_u16(m.get(), XBRIDGE_CT_ZONE, *s.zone);
			if (s.mark) {
				nla_put_u32(m.get(), XBRIDGE_CT_MARK, *s.mark);
				nla_put_u32(m.get(), XBRIDGE_CT_MARK_MASK, s.mark_mask);
			}
			nla_nest_end(m.get(), n);
		}
		c.genl().run(m.get());
	}
	return 0;
}

static CtStatsRow ct_stats_of(Context &c, uint32_t br)
{
	CtStatsRow st;
	NlMsg m = c.genl().request(XBRIDGE_CMD_CT_STATS_GET);
	nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
	c.genl().run(m.get(), [&](nlmsghdr *nlh) {
		if (!decode_ct_stats(nlh, st))
			throw Error("Error: malformed conntrack counters in the kernel's reply",
				    EXIT_DUMP);
	});
	return st;
}

static int ct_count(Context &c, const CtShow &s)
{
	Printer p = c.printer();
	p.begin_rows();
	for (uint32_t br : ct_bridges(c, s)) {
		const CtStatsRow st = ct_stats_of(c, br);
		p.open_obj();
		p.str("ifname", c.name(br), "");
		p.uint("count", st.count, std::to_string(st.count) + "\n");
		p.close_obj();
	}
	p.end_rows();
	c.emit(p.take());
	return 0;
}

static int ct_stats(Context &c, const CtShow &s)
{
	Printer p = c.printer();
	p.begin_rows();
	for (uint32_t br : ct_bridges(c, s)) {
		const CtStatsRow st = ct_stats_of(c, br);
		const std::string name = c.name(br);
		p.open_obj();
		p.str("ifname", name, name + ": ");
		if (p.json()) {
			p.uint("count", st.count, "");
			p.uint("max", st.max_entries, "");
			p.uint("buckets", st.buckets, "");
			p.uint("found", st.found, "");
			p.uint("invalid", st.invalid, "");
			p.uint("insert", st.insert, "");
			p.uint("insert_failed", st.insert_failed, "");
			p.uint("drop", st.drop, "");
			p.uint("early_drop", st.early_drop, "");
			p.uint("error", st.error, "");
			p.uint("search_restart", st.search_restart, "");
			p.uint("clash_resolve", st.clash_resolve, "");
			p.uint("chaintoolong", st.chaintoolong, "");
			p.uint("flows", st.flows, "");
			p.uint("flow_hits", st.flow_hits, "");
			p.uint("flow_adds", st.flow_adds, "");
			p.uint("flow_add_failed", st.flow_add_failed, "");
			p.uint("flow_teardown_stale", st.flow_teardown_stale, "");
			p.uint("flow_teardown_fin_rst", st.flow_teardown_fin_rst, "");
			p.uint("flow_teardown_timeout", st.flow_teardown_timeout, "");
			p.uint("flow_teardown_conntrack", st.flow_teardown_conntrack, "");
		} else {
			p.text("count=" + std::to_string(st.count) +
			       " max=" + std::to_string(st.max_entries) +
			       " buckets=" + std::to_string(st.buckets) + "\n");
			if (c.opt.stats > 0) {
				p.text("    " + format_ct_stats(st) + "\n");
				p.text("    " + format_flow_stats(st) + "\n");
			}
		}
		p.close_obj();
	}
	p.end_rows();
	c.emit(p.take());
	return 0;
}

int do_ct(Context &c, Args &a)
{
	if (a.done())
		return ct_show(c, CtShow{});
	std::string w = a.take();
	if (matches(w, "show") || matches(w, "list"))
		return ct_show(c, parse_ct_filter(a, "show"));
	if (matches(w, "flush"))
		return ct_flush(c, parse_ct_filter(a, "flush"));
	if (matches(w, "count"))
		return ct_count(c, parse_ct_filter(a, "count"));
	if (matches(w, "stats") || matches(w, "statistics"))
		return ct_stats(c, parse_ct_filter(a, "stats"));
	if (matches(w, "help"))
		throw UsageError(ct_usage);
	throw UsageError("Command \"" + w + "\" is unknown, try \"xbridge ct help\".");
}

}  // namespace xbridge
