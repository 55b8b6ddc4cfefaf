// test_nft_events.cc - the rule engine's commit notifications
// (core/nft_ruleset.h CommitSink, core/nft_dump.h fill_event) and what
// `xnft monitor` prints from them (monitor.h): the messages a committed
// batch sends, in batch order, then NEWGEN; nothing for a batch that is
// refused or fails at commit; a message too big for its buffer refused
// (the kernel then drops and counts it). The expected lines are what
// `nft monitor` printed for the same commands on a Linux nf_tables host.
//
// Userspace test code.
#include <catch2/catch.hpp>

#include <cstring>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "engine_load.h"
#include "monitor.h"
#include "nft_dump.h"

namespace {

using xb::nft::CommitEvent;
using xb::nft::CommitSink;
using xb::nft::Ruleset;

/* Every notification of a commit, filled as the kernel fills them. */
struct Recorder {
	struct Msg {
		uint16_t type;
		std::vector<uint8_t> attrs;
		uint16_t flags;
	};
	std::vector<Msg> msgs;
	size_t cap = 65536;	/* the message buffer */
	unsigned too_big = 0;	/* events that did not fit (dropped) */

	static void fn(void *ctx, const Ruleset &rs, const CommitEvent &ev)
	{
		auto *r = static_cast<Recorder *>(ctx);
		std::vector<uint8_t> buf(r->cap);
		xb::nft::AttrWriter w(buf.data(), buf.size());
		if (!xb::nft::fill_event(rs, ev, w, 4242, "nft")) {
			r->too_big++;
			return;
		}
		buf.resize(w.len());
		r->msgs.push_back({ev.type, std::move(buf), ev.flags});
	}
	CommitSink sink() { return CommitSink{fn, this}; }
	std::vector<uint16_t> types() const
	{
		std::vector<uint16_t> t;
		for (const Msg &m : msgs)
			t.push_back(m.type);
		return t;
	}
};

struct Events {
	Ruleset rs;
	xb::nft::Ruleset *p = &rs;
	xnft::Batch scratch;
	xnft::Compiler compiler{scratch};
	Recorder rec;

	Events() { REQUIRE(rs.init(nullptr) == 0); }
	~Events() { rs.fini(); }
	int load(const std::string &text)
	{
		rec.msgs.clear();
		CommitSink s = rec.sink();
		const xnft::LoadResult r = xnft::load_text(rs, compiler, text, &s);
		INFO(r.lang_error << r.msg);
		return r.err;
	}
	/* What `xnft monitor` (options @o, filter @w) prints for the last load. */
	std::string printed(xnft::Monitor &m)
	{
		std::string out;
		for (const auto &msg : rec.msgs)
			out += m.event(msg.type, NFPROTO_BRIDGE, msg.attrs.data(), msg.attrs.size(),
				       msg.flags);
		return out + m.flush();
	}
};

const char *const kRuleset = "table bridge t {\n"
			     "  set s { type ipv4_addr; flags interval; elements = { 10.0.0.0/24, 10.1.0.1 }; }\n"
			     "  map m { type ipv4_addr : verdict; }\n"
			     "  chain c2 { }\n"
			     "  chain c { type filter hook forward priority -5; policy drop;\n"
			     "    ip saddr @s counter accept\n"
			     "    ip daddr 10.0.0.1 jump c2\n"
			     "    meta l4proto { tcp, udp } accept\n"
			     "  }\n"
			     "}\n";

} // namespace

TEST_CASE("nft events: a committed batch notifies its objects, then the generation", "[nft][events]")
{
	Events e;
	REQUIRE(e.load(kRuleset) == 0);
	// nft's batch order (xnft compiles as nft): the table, its chains, its
	// sets (an interval set's elements: nft's leading interval end, then
	// each range's start and end), then the rules with their anonymous sets.
	const std::vector<uint16_t> want = {
		NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWCHAIN, NFT_MSG_NEWSET,
		NFT_MSG_NEWSETELEM, NFT_MSG_NEWSETELEM, NFT_MSG_NEWSETELEM, NFT_MSG_NEWSETELEM,
		NFT_MSG_NEWSETELEM, NFT_MSG_NEWSET, NFT_MSG_NEWRULE, NFT_MSG_NEWRULE, NFT_MSG_NEWSET,
		NFT_MSG_NEWSETELEM, NFT_MSG_NEWSETELEM, NFT_MSG_NEWRULE, NFT_MSG_NEWGEN};
	CHECK(e.rec.types() == want);

	xnft::PrintOptions o;
	xnft::Monitor m(xnft::MonitorWhat{}, o);
	CHECK(e.printed(m) ==
	      "add table bridge t\n"
	      "add chain bridge t c2\n"
	      "add chain bridge t c { type filter hook forward priority -5; policy drop; }\n"
	      "add set bridge t s { type ipv4_addr; flags interval; } \n"
	      "add element bridge t s { 10.0.0.0/24 }\n"
	      "add element bridge t s { 10.1.0.1 }\n"
	      "add map bridge t m { type ipv4_addr : verdict; } \n"
	      "add rule bridge t c ip saddr @s counter packets 0 bytes 0 accept\n"
	      "add rule bridge t c handle 5 ip daddr 10.0.0.1 jump c2\n"
	      "add rule bridge t c meta l4proto { tcp, udp } accept\n"
	      "# new generation 2 by process 4242 (nft)\n");

	// More elements, a flowtable, a policy change (NEWCHAIN), deletes.
	REQUIRE(e.load("add element bridge t m { 10.0.0.9 : jump c2 }\n"
		       "add flowtable bridge t ft { hook ingress priority 0; devices = { lo }; }\n"
		       "delete element bridge t s { 10.1.0.1 }\n") == 0);
	CHECK(e.printed(m) == "add element bridge t m { 10.0.0.9 : jump c2 }\n"
			      "add flowtable bridge t ft { hook ingress priority 0; devices = { lo }; }\n"
			      "delete element bridge t s { 10.1.0.1 }\n"
			      "# new generation 3 by process 4242 (nft)\n");

	// Deleting the table: its rules, sets, flowtables, chains, then it
	// (nft_flush_table's order), each notified; an anonymous set right
	// after the rule bound to it (nf_tables_unbind_set).
	REQUIRE(e.load("delete table bridge t\n") == 0);
	CHECK(e.printed(m) == "delete rule bridge t c handle 5\n"
			      "delete rule bridge t c handle 6\n"
			      "delete rule bridge t c handle 8\n"
			      
			      "delete set bridge t s\n"
			      "delete set bridge t m\n"
			      "delete flowtable bridge t ft\n"
			      "delete chain bridge t c2\n"
			      "delete chain bridge t c\n"
			      "delete table bridge t\n"
			      "# new generation 4 by process 4242 (nft)\n");
}

TEST_CASE("nft events: monitor filters and -a, -j", "[nft][events]")
{
	Events e;
	REQUIRE(e.load("add table bridge t\n"
		       "add chain bridge t c { type filter hook forward priority 0; policy accept; }\n"
		       "add rule bridge t c ip saddr 10.0.0.1 counter accept\n") == 0);
	SECTION("new rules")
	{
		xnft::Monitor m(xnft::parse_monitor_words({"new", "rules"}), xnft::PrintOptions{});
		CHECK(e.printed(m) ==
		      "add rule bridge t c ip saddr 10.0.0.1 counter packets 0 bytes 0 accept\n");
	}
	SECTION("destroy: nothing for a batch that only adds")
	{
		xnft::Monitor m(xnft::parse_monitor_words({"destroy"}), xnft::PrintOptions{});
		CHECK(e.printed(m).empty());
	}
	SECTION("-a: the handles")
	{
		xnft::PrintOptions o;
		o.handles = true;
		xnft::Monitor m(xnft::MonitorWhat{}, o);
		CHECK(e.printed(m) ==
		      "add table bridge t # handle 1\n"
		      "add chain bridge t c { type filter hook forward priority 0; policy accept; } # handle 1\n"
		      "add rule bridge t c ip saddr 10.0.0.1 counter packets 0 bytes 0 accept # handle 2\n"
		      "# new generation 2 by process 4242 (nft)\n");
	}
	SECTION("-j: one object a line")
	{
		xnft::PrintOptions o;
		o.json = true;
		xnft::Monitor m(xnft::parse_monitor_words({"tables"}), o);
		CHECK(e.printed(m) ==
		      R"({"add": {"table": {"family": "bridge", "name": "t", "handle": 1}}})"
		      "\n");
	}
	CHECK_THROWS(xnft::parse_monitor_words({"bogus"}));
	CHECK_THROWS(xnft::parse_monitor_words({"rules", "new"}));
}

TEST_CASE("nft events: an inserted rule is `insert rule`, a counter object's handle in its braces",
	  "[nft][events]")
{
	// nf_tables_rule_notify: NLM_F_APPEND only for an append or a
	// replace; nft monitor prints "insert" without it (compared with nft
	// 1.0.6 on Linux 6.1 by selftests/xbridge_nft.sh nft_monitor)
	Events e;
	xnft::PrintOptions o;
	o.handles = true;
	xnft::Monitor m(xnft::MonitorWhat{}, o);
	xnft::PrintOptions j;
	j.json = true;
	xnft::Monitor mj(xnft::parse_monitor_words({"rules"}), j);
	REQUIRE(e.load("add table bridge t\n"
		       "add chain bridge t c { type filter hook forward priority 0; policy accept; }\n"
		       "add rule bridge t c ip saddr 10.0.0.1 accept\n") == 0);
	e.printed(m);	/* the monitors learn the table */
	e.printed(mj);
	REQUIRE(e.load("insert rule bridge t c ip saddr 10.0.0.2 accept\n"
		       "add rule bridge t c ip saddr 10.0.0.3 accept\n"
		       "replace rule bridge t c handle 2 ip saddr 10.0.0.4 accept\n"
		       "add counter bridge t k\n") == 0);
	CHECK(e.printed(m) ==
	      "insert rule bridge t c ip saddr 10.0.0.2 accept # handle 3\n"
	      "add rule bridge t c ip saddr 10.0.0.3 accept # handle 4\n"
	      "delete rule bridge t c handle 2\n"
	      "add rule bridge t c handle 3 ip saddr 10.0.0.4 accept # handle 2\n"
	      "add counter bridge t k { # handle 5 packets 0 bytes 0 } \n"
	      "# new generation 3 by process 4242 (nft)\n");
	CHECK(e.printed(mj).rfind(R"({"insert": {"rule": )", 0) == 0);
}

TEST_CASE("nft events: a refused or failed batch notifies nothing", "[nft][events]")
{
	Events e;
	REQUIRE(e.load("add table bridge t\n") == 0);
	// A request refused (no such chain): aborted before commit.
	CHECK(e.load("add chain bridge t a\nadd rule bridge t nochain accept\n") != 0);
	CHECK(e.rec.msgs.empty());
	// A batch refused at commit (a jump loop a base chain reaches: EMLINK).
	CHECK(e.load("add chain bridge t a\nadd chain bridge t b\n"
		     "add chain bridge t h { type filter hook input priority 0; }\n"
		     "add rule bridge t h jump a\n"
		     "add rule bridge t a jump b\nadd rule bridge t b jump a\n") == -xb::kEMLINK);
	CHECK(e.rec.msgs.empty());
	/* nf_tables: 1 at the start, 2 after the first commit */
	CHECK(e.rs.generation_id() == 2);
}

TEST_CASE("nft events: a message that does not fit is refused whole", "[nft][events]")
{
	Events e;
	e.rec.cap = 64;	/* a table fits, a rule with its expressions does not */
	REQUIRE(e.load("add table bridge t\n"
		       "add chain bridge t c\n"
		       "add rule bridge t c ip saddr 10.0.0.1 ip daddr 10.0.0.2 tcp dport 22 counter accept\n") == 0);
	CHECK(e.rec.too_big == 1);
	CHECK(e.rec.types() ==
	      std::vector<uint16_t>{NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWGEN});
}

TEST_CASE("nft events: counter objects, as nft monitor prints them", "[nft][events]")
{
	Events e;
	// What `nft monitor` printed on the host (nft 1.0.6, Linux 6.1) for
	// the same commands.
	REQUIRE(e.load("table bridge t {\n"
		       "  counter c1 { packets 5 bytes 100; }\n"
		       "  counter c0 { comment \"hello\"; }\n"
		       "  chain f { type filter hook forward priority 0; counter name c1 accept; }\n"
		       "}\n") == 0);
	const std::vector<uint16_t> want = {NFT_MSG_NEWTABLE, NFT_MSG_NEWCHAIN, NFT_MSG_NEWOBJ,
					    NFT_MSG_NEWOBJ, NFT_MSG_NEWRULE, NFT_MSG_NEWGEN};
	CHECK(e.rec.types() == want);
	xnft::Monitor m(xnft::MonitorWhat{}, xnft::PrintOptions{});
	xnft::PrintOptions j;
	j.json = true;
	xnft::Monitor mj(xnft::MonitorWhat{}, j);
	CHECK(!e.printed(mj).empty());
	CHECK(e.printed(m) ==
	      "add table bridge t\n"
	      "add chain bridge t f { type filter hook forward priority 0; policy accept; }\n"
	      "add counter bridge t c1 { packets 5 bytes 100 } \n"
	      "add counter bridge t c0 { comment \"hello\" packets 0 bytes 0 } \n"
	      "add rule bridge t f counter name \"c1\" accept\n"
	      "# new generation 2 by process 4242 (nft)\n");
	REQUIRE(e.load("delete counter bridge t c0\n") == 0);
	CHECK(e.printed(m) == "delete counter bridge t c0\n"
			      "# new generation 3 by process 4242 (nft)\n");
	CHECK(e.printed(mj) ==
	      R"({"delete": {"counter": {"family": "bridge", "name": "c0", "table": "t", "handle": 3, "packets": 0, "bytes": 0}}})"
	      "\n");
	REQUIRE(e.load("add counter bridge t c2 { packets 1 bytes 2; }\n") == 0);
	CHECK(e.printed(mj) ==
	      R"({"add": {"counter": {"family": "bridge", "name": "c2", "table": "t", "handle": 5, "packets": 1, "bytes": 2}}})"
	      "\n");
	// nft_flush_table: rules, sets, flowtables, objects, chains
	REQUIRE(e.load("delete table bridge t\n") == 0);
	CHECK(e.printed(m) == "delete rule bridge t f handle 4\n"
			      "delete counter bridge t c1\n"
			      "delete counter bridge t c2\n"
			      "delete chain bridge t f\n"
			      "delete table bridge t\n"
			      "# new generation 5 by process 4242 (nft)\n");
}

TEST_CASE("nft events: a deleted rule in -j is printed without its set lookups, as nft -j monitor",
	  "[nft][events]")
{
	// nft 1.0.6's `-j monitor` prints a deleted rule's statements without
	// its lookups (matches, maps, verdict maps): what a lookup read stays
	// in its register, so a map's key is the value and a dependency no
	// match consumes shows; set statements and object maps stay. These
	// lines are what it printed (nf_tables, Linux 6.18 host and the 6.1
	// test kernel) for the same rules.
	Events e;
	xnft::PrintOptions j;
	j.json = true;
	xnft::Monitor mj(xnft::parse_monitor_words({"rules"}), j);
	REQUIRE(e.load("table bridge t {\n"
		       "  set s { type ipv4_addr; }\n"
		       "  set d { type ipv4_addr; flags dynamic; }\n"
		       "  map m { type ipv4_addr : verdict; }\n"
		       "  counter c1 { }\n"
		       "  map om { type ipv4_addr : counter; }\n"
		       "  chain c {\n"
		       "    tcp dport { 22, 80 } counter accept\n"
		       "    ip saddr @s counter\n"
		       "    ip daddr vmap @m\n"
		       "    meta mark set ip daddr map { 1.1.1.1 : 3 }\n"
		       "    update @d { ip saddr counter } accept\n"
		       "    counter name ip saddr map @om\n"
		       "    tcp dport { 22, 23 } ip saddr 1.2.3.4 tcp sport 5 counter\n"
		       "    meta mark set 5 ip saddr @d\n"
		       "  }\n"
		       "}\n") == 0);
	e.printed(mj);	/* the monitor learns the table */
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	const std::string out = e.printed(mj);
	INFO(out);
	const char *const head = R"({"delete": {"rule": {"family": "bridge", "table": "t", "chain": "c", "handle": )";
	const char *const want[] = {
		R"(, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "l4proto"}}, "right": "tcp"}}, {"counter": {"packets": 0, "bytes": 0}}, {"accept": null}]}}})",
		R"(, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "protocol"}}, "right": "ip"}}, {"counter": {"packets": 0, "bytes": 0}}]}}})",
		R"(, "expr": [{"match": {"op": "==", "left": {"meta": {"key": "protocol"}}, "right": "ip"}}]}}})",
		R"(, "expr": [{"mangle": {"key": {"meta": {"key": "mark"}}, "value": {"payload": {"protocol": "ip", "field": "daddr"}}}}]}}})",
		R"(, "expr": [{"set": {"op": "update", "elem": {"payload": {"protocol": "ip", "field": "saddr"}}, "set": "@d", "stmt": [{"counter": null}]}}, {"accept": null}]}}})",
		R"(, "expr": [{"counter": {"map": {"key": {"payload": {"protocol": "ip", "field": "saddr"}}, "data": "@om"}}}]}}})",
		R"(, "expr": [{"match": {"op": "==", "left": {"payload": {"protocol": "ip", "field": "saddr"}}, "right": "1.2.3.4"}}, {"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "sport"}}, "right": 5}}, {"counter": {"packets": 0, "bytes": 0}}]}}})",
		R"(, "expr": [{"mangle": {"key": {"meta": {"key": "mark"}}, "value": 5}}, {"match": {"op": "==", "left": {"meta": {"key": "protocol"}}, "right": "ip"}}]}}})",
	};
	for (const char *w : want) {
		INFO(w);
		const size_t at = out.find(w);
		REQUIRE(at != std::string::npos);
		const size_t line = out.rfind('\n', at);
		CHECK(out.compare(line == std::string::npos ? 0 : line + 1, strlen(head), head) == 0);
	}
}
