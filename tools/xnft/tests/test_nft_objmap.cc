// test_nft_objmap.cc - object maps loaded as nft text through xnft into
// the core's ruleset: counters, quotas and limits named by a map's
// elements (named maps, interval and concatenated ones, anonymous
// __objmap%d) counting and limiting the frames whose key names them,
// elements added and deleted by commands, an object an element names
// staying (EBUSY), and the ruleset listing back as xnft compiled it.
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "../../../core/tests/ct_frames.h"
#include "engine_fixture.h"
#include "engine_load.h"
#include "compiler.h"
#include "nft_eval.h"
#include "parser.h"
#include "nft_expr.h"
#include "nft_ruleset.h"
#include "platform_user.h"
#include "printer.h"
#include "ruleset_model.h"

#include <linux/netfilter.h>

using namespace xnft::test;
using Bytes = ctf::Bytes;

namespace {

constexpr unsigned kForward = xb::nft::kHookForward;

// A TCP frame from 10.0.0.@src to 10.0.0.2, port @dport: 40 bytes of IPv4.
Bytes tcp_from(uint8_t src, uint16_t dport = 80)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = dport;
	t.flags = 0x02;
	t.win = 1000;
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, src), ctf::v4(10, 0, 0, 2), t));
}

int32_t send(Engine &e, Bytes b)
{
	Frame f(std::move(b));
	f.pkt.now_ns = xb_now_ns();
	return e.run(kForward, f.pkt);
}

const xb::nft::ObjObj &object(Engine &e, uint32_t type, const char *name)
{
	for (const xb::nft::ObjObj &o : e.table("t").objs)
		if (o.type == type && !strcmp(o.name, name))
			return o;
	FAIL("no object " << name);
	throw 0;
}

uint64_t counted(Engine &e, const char *name)
{
	uint64_t packets = 0, bytes = 0;
	xb::nft::counter_read(object(e, xb::nft::kObjectCounter, name).counter, packets, bytes);
	return packets;
}

uint64_t quota_used(Engine &e, const char *name)
{
	uint64_t consumed = 0, shown = 0;
	uint32_t flags = 0;
	xb::nft::quota_read(object(e, xb::nft::kObjectQuota, name).quota, consumed, shown, flags);
	return consumed;
}

// TEXT applied by a compiler that knows the ruleset KNOWN declares (and
// nothing of the core's): what xnft would refuse itself reaches the core.
int load_knowing(Engine &e, const std::string &known, const std::string &text)
{
	xnft::Batch kb;
	xnft::Compiler kc(kb);
	xnft::Parser kp;
	for (auto &cmd : kp.parse_text(known))
		kc.compile(cmd);
	xnft::RulesetModel model;
	model.apply(kb);
	xnft::Batch b;
	xnft::Compiler c(b);
	c.learn(model);
	const xnft::LoadResult r = xnft::load_text(e.rs, c, text);
	REQUIRE(r.lang_error.empty());
	return r.err;
}

// The ruleset as the core dumps it, listed by xnft, equals what xnft
// lists offline from TEXT.
void lists_back(Engine &e, const std::string &text)
{
	xnft::PrintOptions po;
	po.handles = true;
	xnft::RulesetModel dumped;
	dump_into(e.rs, dumped);
	CHECK(xnft::print_ruleset(dumped, po) == xnft::offline_listing(text, po));
	po.json = true;
	CHECK(xnft::print_ruleset(dumped, po) == xnft::offline_listing(text, po));
}

} // namespace

TEST_CASE("xnft objmap: counters named by a map count the frames whose key names them", "[nft]")
{
	const std::string text =
		"table bridge t {\n"
		"  counter c1 { }\n  counter c2 { }\n  counter c3 { }\n"
		"  map m { type ipv4_addr : counter; elements = { 10.0.0.1 : \"c1\", 10.0.0.3 : \"c2\" }; }\n"
		"  chain c { type filter hook forward priority 0;\n"
		"    counter name ip saddr map @m\n"
		"    counter name tcp dport map { 22 : \"c3\", 80 : \"c1\" }\n"
		"  }\n"
		"}\n";
	Engine e;
	REQUIRE(e.load(text) == 0);
	lists_back(e, text);
	CHECK(send(e, tcp_from(1)) == NF_ACCEPT);	// c1 (saddr) and c1 (port 80)
	CHECK(send(e, tcp_from(3, 22)) == NF_ACCEPT);	// c2, c3
	CHECK(send(e, tcp_from(3, 23)) == NF_ACCEPT);	// c2, no port element
	CHECK(send(e, tcp_from(4, 443)) == NF_ACCEPT);	// neither
	CHECK(counted(e, "c1") == 2);
	CHECK(counted(e, "c2") == 2);
	CHECK(counted(e, "c3") == 1);
	// a missing key breaks the rule: what follows it is not reached
	REQUIRE(e.load("add rule bridge t c counter name ip saddr map @m drop\n") == 0);
	CHECK(send(e, tcp_from(4)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(1)) == NF_DROP);

	// elements by command: 10.0.0.4 names c3 now, 10.0.0.3 nothing
	REQUIRE(e.load("add element bridge t m { 10.0.0.4 : \"c3\" }\n"
		       "delete element bridge t m { 10.0.0.3 }\n") == 0);
	const uint64_t c2 = counted(e, "c2"), c3 = counted(e, "c3");
	CHECK(send(e, tcp_from(4, 443)) == NF_DROP);	// c3 twice: rules 1 and 3
	CHECK(send(e, tcp_from(3, 443)) == NF_ACCEPT);	// no rule counts
	CHECK(counted(e, "c3") == c3 + 2);
	CHECK(counted(e, "c2") == c2);
	xnft::RulesetModel dumped;
	dump_into(e.rs, dumped);
	const std::string listed = xnft::print_ruleset(dumped, xnft::PrintOptions{});
	CHECK(listed.find("elements = { 10.0.0.1 : \"c1\", 10.0.0.4 : \"c3\" }") != std::string::npos);
	CHECK(listed.find("counter name ip saddr map @m drop") != std::string::npos);
	CHECK(listed.find("counter name tcp dport map { 22 : \"c3\", 80 : \"c1\" }") != std::string::npos);

	// c2 no element names any more: it may go; c1 stays (EBUSY), as xnft
	// knows from the kernel's ruleset and, sent regardless, the core says
	CHECK(e.load("delete counter bridge t c2\n") == 0);
	xnft::Batch b;
	xnft::Compiler dumped_compiler(b);
	xnft::RulesetModel model;
	dump_into(e.rs, model);
	dumped_compiler.learn(model);
	xnft::Parser p;
	auto cmds = p.parse_text("delete counter bridge t c1");
	CHECK_THROWS_WITH(dumped_compiler.compile(cmds.front()), "Could not process rule: Device or resource busy");
	CHECK(load_knowing(e, "table bridge t { counter c1 { }; }\n", "delete counter bridge t c1\n") ==
	      -xb::kEBUSY);
	CHECK(counted(e, "c1") > 0);
}

TEST_CASE("xnft objmap: quotas and limits named by interval and concatenated maps", "[nft]")
{
	const std::string text =
		"table bridge t {\n"
		"  quota q1 { over 100 bytes }\n  quota q2 { over 1000 bytes }\n"
		"  limit l1 { rate over 1/minute burst 2 packets }\n"
		"  map mq { type ipv4_addr : quota; flags interval;\n"
		"    elements = { 10.0.0.0-10.0.0.9 : \"q1\", 10.0.0.16/28 : \"q2\" }; }\n"
		"  map ml { type ipv4_addr . inet_service : limit; flags interval;\n"
		"    elements = { 10.0.0.0/24 . 20-30 : \"l1\" }; }\n"
		"  chain c { type filter hook forward priority 0;\n"
		"    quota name ip saddr map @mq drop\n"
		"    limit name ip saddr . tcp dport map @ml drop\n"
		"  }\n"
		"}\n";
	Engine e;
	REQUIRE(e.load(text) == 0);
	lists_back(e, text);
	// 40-byte frames: q1 is over on the third from 10.0.0.1..9
	CHECK(send(e, tcp_from(1)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(9)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(5)) == NF_DROP);
	CHECK(quota_used(e, "q1") == 120);
	// 10.0.0.20 uses q2, 10.0.0.12 no quota at all
	CHECK(send(e, tcp_from(20)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(12)) == NF_ACCEPT);
	CHECK(quota_used(e, "q2") == 40);
	// port 22 from 10.0.0.12: l1's burst of two, then over it
	CHECK(send(e, tcp_from(12, 22)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(12, 25)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(12, 30)) == NF_DROP);
	CHECK(send(e, tcp_from(12, 31)) == NF_ACCEPT);	// no element: no limit
}

TEST_CASE("xnft objmap: a statement's map type decides, refusals as nft reports them", "[nft]")
{
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  quota q1 { over 50 bytes }\n  counter c1 { }\n"
		       "  map mq { type ipv4_addr : quota; elements = { 10.0.0.1 : q1 }; }\n"
		       "  chain c { type filter hook forward priority 0;\n"
		       "    counter name ip saddr map @mq drop\n"
		       "  }\n"
		       "}\n") == 0);
	// `counter name` on a quota map: the quota counts (nft and the kernel
	// take it), and nft lists it as the quota statement it is
	CHECK(send(e, tcp_from(1)) == NF_ACCEPT);
	CHECK(send(e, tcp_from(1)) == NF_DROP);
	xnft::RulesetModel dumped;
	dump_into(e.rs, dumped);
	CHECK(xnft::print_ruleset(dumped, xnft::PrintOptions{}).find("quota name ip saddr map @mq drop") !=
	      std::string::npos);
	// an element naming no object of the map's type: the core's ENOENT
	const std::string known = "table bridge t { quota c1 { 1 bytes }\n quota nope { 1 bytes }\n"
				  " map mq { type ipv4_addr : quota; }; }\n";
	CHECK(load_knowing(e, known, "add element bridge t mq { 10.0.0.2 : \"c1\" }\n") == -xb::kENOENT);
	CHECK(load_knowing(e, known, "add element bridge t mq { 10.0.0.2 : \"nope\" }\n") == -xb::kENOENT);
	REQUIRE(e.load("add element bridge t mq { 10.0.0.2 : \"q1\" }\n") == 0);
}
