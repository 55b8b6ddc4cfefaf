// cmd_ct.h - `xbridge ct`: the connection tracking table of a bridge whose
// `conntrack` option is on, with conntrack-tools' grammar and output:
// `ct show` prints rows as `conntrack -L`, `ct count` as `conntrack -C`,
// `ct stats` the counters of `conntrack -S` (summed over the CPUs),
// `ct flush` as `conntrack -F`. Decoding and formatting are pure functions
// (the unit tests check their exact output); the command does the I/O.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

struct nlmsghdr;

namespace xbridge {

class Args;
class Context;
class Printer;

// One direction's tuple, as the family sends it.
struct CtTupleRow {
	std::array<uint8_t, 16> src{}, dst{};
	uint16_t sport = 0, dport = 0;  // ICMP: identifier, type << 8 | code
};

struct CtRow {
	uint32_t bridge_ifindex = 0;
	uint8_t l3 = 0, proto = 0;
	uint16_t zone = 0;
	CtTupleRow orig, reply;
	uint32_t status = 0, timeout = 0, mark = 0, use = 0;
	std::optional<uint8_t> tcp_state;
	std::optional<uint8_t> sctp_state;
	std::optional<uint8_t> dccp_state;
	uint64_t packets[2] = {0, 0}, bytes[2] = {0, 0};
	// Events only: the flow of an offloaded connection was torn down
	// (XBRIDGE_FLOW_TEARDOWN_*).
	std::optional<uint8_t> flow_teardown;
};

// What a ct notification says happened (ctnetlink's message types).
enum class CtEventKind { New, Update, Destroy };

struct CtStatsRow {
	uint32_t count = 0, max_entries = 0, buckets = 0;
	uint64_t found = 0, invalid = 0, insert = 0, insert_failed = 0, drop = 0, early_drop = 0,
		 error = 0, search_restart = 0, clash_resolve = 0, chaintoolong = 0;
	// The bridge flowtable: live flows and counters (absent from older modules: 0).
	uint32_t flows = 0;
	uint64_t flow_hits = 0, flow_adds = 0, flow_add_failed = 0, flow_teardown_stale = 0,
		 flow_teardown_fin_rst = 0, flow_teardown_timeout = 0, flow_teardown_conntrack = 0;
};

bool decode_ct(nlmsghdr *nlh, CtRow &r);
bool decode_ct_stats(nlmsghdr *nlh, CtStatsRow &s);
// The flowtable's line of `-s ct stats` (no newline).
std::string format_flow_stats(const CtStatsRow &s);

// One row of `conntrack -L` (no newline); COUNTERS adds packets= bytes=
// after each tuple, as conntrack does with nf_conntrack_acct on.
std::string format_ct_line(const CtRow &r, bool counters);
// The row as text (format_ct_line) or a JSON object.
void print_ct(Printer &p, const CtRow &r, const std::string &bridge, bool counters);
// One event of `xbridge monitor ct` as `conntrack -E` prints it: "[NEW]",
// "[UPDATE]" or "[DESTROY]" right-aligned in 9 columns, then the row (a
// destroyed connection without its timeout and TCP state, as ctnetlink
// sends it). An update that reports a flow torn down ends with
// " flow-teardown=CAUSE" (stale, fin-rst, timeout, conntrack, flush,
// ruleset); conntrack has no such event.
std::string format_ct_event(const CtRow &r, CtEventKind kind, bool counters);
void print_ct_event(Printer &p, const CtRow &r, const std::string &bridge, CtEventKind kind,
		    bool counters);
// The name of an XBRIDGE_FLOW_TEARDOWN_* cause ("fin-rst"), or its number.
std::string flow_teardown_name(uint8_t cause);
// `conntrack -S`'s counters on one line.
std::string format_ct_stats(const CtStatsRow &s);

struct CtShow {
	std::string dev;
	std::optional<uint16_t> zone;
	std::optional<uint32_t> mark;	/* flush: mark M[/MASK], as conntrack -D --mark */
	uint32_t mark_mask = 0xffffffff;
};
CtShow parse_ct_filter(Args &a, const char *what);

int do_ct(Context &c, Args &a);
extern const char ct_usage[];

}  // namespace xbridge
