// test_nft_dynset.cc - set statements (nft_dynset): frames adding, updating
// and deleting elements of a set, their timeouts and stateful expressions,
// the control plane seeing and deleting what frames added, and the errors
// nft_dynset_init gives. The statements are built with libnftnl as nft
// sends them (`add @s { ip saddr }` and so on), the sets with xnft.
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "engine_fixture.h"
#include "nft_dump.h"
#include "nft_dynset.h"
#include "nft_eval.h"
#include "nft_ruleset.h"
#include "platform_user.h"

#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

using namespace xb::nft;
using namespace xnft::test;
using Bytes = ctf::Bytes;

namespace {


// A UDP frame from 10.0.0.@src to 10.0.0.2.
Bytes from(uint8_t src)
{
	return ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, src), ctf::v4(10, 0, 0, 2), 5000, 53, 8));
}

int32_t send(Engine &e, uint8_t src, unsigned hook = kHookForward)
{
	Frame f(from(src));
	f.pkt.now_ns = xb_now_ns();
	return e.run(hook, f.pkt);
}

// A rule in chain t/c from libnftnl expressions.
int add_rule(Engine &e, const std::vector<nftnl_expr *> &exprs, std::string *msg = nullptr)
{
	return apply_raw(e, kMsgNewRule, [&](nlmsghdr *h) {
		nftnl_rule *r = nftnl_rule_alloc();
		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, "t");
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, "c");
		nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_BRIDGE);
		for (nftnl_expr *x : exprs)
			nftnl_rule_add_expr(r, x);
		nftnl_rule_nlmsg_build_payload(h, r);
		nftnl_rule_free(r);
	}, msg);
}

// ip saddr -> reg 1 (nft's own load)
nftnl_expr *load_saddr(uint32_t dreg = NFT_REG_1)
{
	nftnl_expr *x = nftnl_expr_alloc("payload");
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, dreg);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, 12);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, 4);
	return x;
}

nftnl_expr *imm_u32(uint32_t dreg, uint32_t v)
{
	nftnl_expr *x = nftnl_expr_alloc("immediate");
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, dreg);
	nftnl_expr_set(x, NFTNL_EXPR_IMM_DATA, &v, sizeof(v));
	return x;
}

nftnl_expr *verdict(int32_t code)
{
	nftnl_expr *x = nftnl_expr_alloc("immediate");
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, uint32_t(code));
	return x;
}

nftnl_expr *counter()
{
	return nftnl_expr_alloc("counter");
}

nftnl_expr *limit(uint64_t rate, uint32_t burst, bool over)
{
	nftnl_expr *x = nftnl_expr_alloc("limit");
	nftnl_expr_set_u64(x, NFTNL_EXPR_LIMIT_RATE, rate);
	nftnl_expr_set_u64(x, NFTNL_EXPR_LIMIT_UNIT, 1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LIMIT_BURST, burst);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LIMIT_FLAGS, over ? NFT_LIMIT_F_INV : 0);
	return x;
}

nftnl_expr *lookup(const char *set, bool inv = false)
{
	nftnl_expr *x = nftnl_expr_alloc("lookup");
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
	nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, set);
	if (inv)
		nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	return x;
}

// `OP @set { reg 1 [: reg 2] [timeout T] [exprs] }`
nftnl_expr *dynset(uint32_t op, const char *set, uint64_t timeout_ms = 0,
		   std::vector<nftnl_expr *> exprs = {}, bool data = false)
{
	nftnl_expr *x = nftnl_expr_alloc("dynset");
	nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_OP, op);
	nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_SREG_KEY, NFT_REG_1);
	if (data)
		nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_SREG_DATA, NFT_REG_2);
	nftnl_expr_set_str(x, NFTNL_EXPR_DYNSET_SET_NAME, set);
	if (timeout_ms)
		nftnl_expr_set_u64(x, NFTNL_EXPR_DYNSET_TIMEOUT, timeout_ms);
	for (nftnl_expr *e : exprs)
		nftnl_expr_add_expr(x, NFTNL_EXPR_DYNSET_EXPRESSIONS, e);
	if (exprs.size() > 1)	/* as nft does: the list needs its flag */
		nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_FLAGS, NFT_DYNSET_F_EXPR);
	return x;
}

const SetObj &set_named(Engine &e, const char *name)
{
	for (const SetObj &s : e.table("t").sets)
		if (!strcmp(s.name, name))
			return s;
	FAIL("no set " << name);
	throw 0;
}

// What a dump of set @name lists: last octet of the key -> its attributes.
struct Listed {
	uint64_t timeout_ms = 0, expires_ms = 0;
	bool has_timeout = false, has_expires = false;
	uint32_t data = 0;
	std::vector<std::string> exprs;	// "counter 3 252", "limit", "quota"
};

std::map<uint8_t, Listed> dumped(Engine &e, const char *name)
{
	std::map<uint8_t, Listed> out;
	// small messages: a dump of several parts
	for_each_dumped_elem(e.rs, "t", name, [&](const Attr *et) {
		Attr kt[2], dt[2];
		REQUIRE(parse_nested(et[kSetElemKey], kt, 1));
		Listed l;
		if ((l.has_timeout = et[kSetElemTimeout].present()))
			REQUIRE(attr_be64(et[kSetElemTimeout], l.timeout_ms));
		if ((l.has_expires = et[kSetElemExpiration].present()))
			REQUIRE(attr_be64(et[kSetElemExpiration], l.expires_ms));
		if (et[kSetElemData].present()) {
			REQUIRE(parse_nested(et[kSetElemData], dt, 1));
			memcpy(&l.data, dt[1].data, 4);
		}
		auto one = [&](const Attr &x) {
			Attr xt[kExprData + 1], ct[kCounterPackets + 1];
			REQUIRE(parse_nested(x, xt, kExprData));
			char nm[32];
			REQUIRE(attr_string(xt[kExprName], nm, sizeof(nm)));
			std::string s = nm;
			if (s == "counter") {
				uint64_t pk = 0, by = 0;
				REQUIRE(parse_nested(xt[kExprData], ct, kCounterPackets));
				REQUIRE(attr_be64(ct[kCounterPackets], pk));
				REQUIRE(attr_be64(ct[kCounterBytes], by));
				s += " " + std::to_string(pk) + " " + std::to_string(by);
			}
			l.exprs.push_back(s);
		};
		if (et[kSetElemExpr].present())
			one(et[kSetElemExpr]);
		if (et[kSetElemExpressions].present()) {
			AttrWalker xw(et[kSetElemExpressions]);
			uint16_t xt;
			Attr x;
			while (xw.next(xt, x))
				one(x);
		}
		REQUIRE(out.count(kt[1].data[3]) == 0);	// listed once
		out[kt[1].data[3]] = l;
	}, 512);
	return out;
}

// Delete element 10.0.0.@last of set @name, or flush it (@last 0).
int del_elem(Engine &e, const char *name, uint8_t last)
{
	return apply_raw(e, kMsgDelSetElem, [&](nlmsghdr *h) {
		nftnl_set *s = nftnl_set_alloc();
		nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(s, NFTNL_SET_NAME, name);
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		if (last) {
			nftnl_set_elem *el = nftnl_set_elem_alloc();
			const uint8_t key[4] = {10, 0, 0, last};
			nftnl_set_elem_set(el, NFTNL_SET_ELEM_KEY, key, 4);
			nftnl_set_elem_add(s, el);
		}
		nftnl_set_elems_nlmsg_build_payload(h, s);
		nftnl_set_free(s);
	});
}

struct Clock {
	Clock() { xb_user_set_time_ns(1000000000ull); }
	~Clock() { xb_user_use_real_time(); }
};

const char *const kTables =
	"table bridge t {\n"
	"  set s { type ipv4_addr; flags dynamic; }\n"
	"  set st { type ipv4_addr; flags dynamic,timeout; timeout 10s; }\n"
	"  set plain { type ipv4_addr; }\n"
	"  set small { type ipv4_addr; size 2; flags dynamic; }\n"
	"  set iv { type ipv4_addr; flags interval; }\n"
	"  set k { type ipv4_addr; flags constant; elements = { 10.0.0.9 }; }\n"
	"  map m { type ipv4_addr : mark; flags dynamic; }\n"
	"  chain c { type filter hook forward priority 0; }\n"
	"}\n";

} // namespace

TEST_CASE("nft dynset: add @set fills a set that later rules look up", "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	CHECK(set_named(e, "s").size == 0);
	// ip saddr @s counter drop; add @s { ip saddr }: the first frame of a
	// source passes (not yet in the set), the next ones are dropped
	REQUIRE(add_rule(e, {load_saddr(), lookup("s"), counter(), verdict(NF_DROP)}) == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s")}) == 0);
	// binding the set gave it nft_dynset_init's default bound
	CHECK(set_named(e, "s").size == kDynsetDefaultSize);
	CHECK(send(e, 1) == kNfAccept);
	CHECK(send(e, 1) == kNfDrop);
	CHECK(send(e, 3) == kNfAccept);
	CHECK(send(e, 3) == kNfDrop);
	CHECK(send(e, 1) == kNfDrop);
	CHECK(e.packets("t", "c", 0) == 3);
	auto listed = dumped(e, "s");
	REQUIRE(listed.size() == 2);
	CHECK(listed.count(1) == 1);
	CHECK(listed.count(3) == 1);
	CHECK_FALSE(listed[1].has_timeout);
	CHECK_FALSE(listed[1].has_expires);
	// a later commit keeps what frames added
	REQUIRE(e.load("add rule bridge t c counter\n") == 0);
	CHECK(send(e, 3) == kNfDrop);
	CHECK(dumped(e, "s").size() == 2);
	// nft names an element frames added, and deletes it
	CHECK(del_elem(e, "s", 3) == 0);
	CHECK(send(e, 3) == kNfAccept);	// gone: added back
	CHECK(del_elem(e, "s", 4) == -xb::kENOENT);
	// adding it from the control plane: it exists (EEXIST only with EXCL)
	CHECK(e.load("add element bridge t s { 10.0.0.3 }\n") == 0);
	std::string msg;
	CHECK(e.load("create element bridge t s { 10.0.0.1 }\n", &msg) == -xb::kEEXIST);
	// flush: everything frames added goes too
	CHECK(e.load("flush set bridge t s\n") == 0);
	CHECK(dumped(e, "s").empty());
	CHECK(send(e, 1) == kNfAccept);
	CHECK(send(e, 3) == kNfAccept);
	CHECK(dumped(e, "s").size() == 2);
	// a set a set statement writes is in use
	CHECK(e.load("delete set bridge t s\n", &msg) == -xb::kEBUSY);
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	CHECK(apply_raw(e, kMsgDelSet, [](nlmsghdr *h) {
		nftnl_set *st = nftnl_set_alloc();
		nftnl_set_set_str(st, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(st, NFTNL_SET_NAME, "s");
		nftnl_set_set_u32(st, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		nftnl_set_nlmsg_build_payload(h, st);
		nftnl_set_free(st);
	}) == 0);
}

TEST_CASE("nft dynset: update restarts the timeout, add does not; expired elements go",
	  "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	REQUIRE(add_rule(e, {load_saddr(), imm_u32(NFT_REG_2, 1), dynset(NFT_DYNSET_OP_UPDATE, "st")}) == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "st", 30000)}) == 0);
	CHECK(send(e, 5) == kNfAccept);
	auto l = dumped(e, "st");
	REQUIRE(l.count(5));
	// the set's default: not dumped as the element's own timeout (Linux
	// 6.12's nf_tables_fill_setelem; the module built for 6.1 dumps it)
	CHECK_FALSE(l[5].has_timeout);
	CHECK(l[5].expires_ms == 10000);
	xb_user_advance_time_ns(6000000000ull);
	CHECK(send(e, 5) == kNfAccept);	// update: 10 s again
	l = dumped(e, "st");
	CHECK(l[5].expires_ms == 10000);
	xb_user_advance_time_ns(10000000001ull);
	CHECK(dumped(e, "st").empty());	// expired: not listed
	CHECK(del_elem(e, "st", 5) == -xb::kENOENT);
	CHECK(send(e, 5) == kNfAccept);	// added again
	CHECK(dumped(e, "st").size() == 1);
}

TEST_CASE("nft dynset: delete @set, and maps get their data", "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	// add @m { ip saddr : 0x2a }, then meta mark set ip saddr map @m
	REQUIRE(add_rule(e, {load_saddr(), imm_u32(NFT_REG_2, 42),
			     dynset(NFT_DYNSET_OP_ADD, "m", 0, {}, true)}) == 0);
	CHECK(send(e, 7) == kNfAccept);
	auto l = dumped(e, "m");
	REQUIRE(l.count(7));
	CHECK(l[7].data == 42);
	{
		// the map's lookup finds the data frames wrote
		const uint8_t key[4] = {10, 0, 0, 7};
		xb::RcuReadGuard rcu;
		const Generation *g = e.rs.generation();
		SetHit hit{};
		bool found = false;
		for (uint32_t i = 0; i < g->set_count; i++)
			if (g->sets[i]->dynamic() && g->sets[i]->lookup(key, hit, xb_now_ns()) &&
			    hit.data) {
				uint32_t v;
				memcpy(&v, hit.data, 4);
				found = v == 42;
			}
		CHECK(found);
	}
	// delete @s { ip saddr } in the next rule removes what add put in
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s")}) == 0);
	CHECK(send(e, 8) == kNfAccept);
	CHECK(dumped(e, "s").size() == 1);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_DELETE, "s")}) == 0);
	CHECK(send(e, 8) == kNfAccept);
	CHECK(dumped(e, "s").empty());
}

TEST_CASE("nft dynset: per-element counters and limits (nft's meter)", "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	// update @s { ip saddr limit rate over 1/second burst 2 packets } drop
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_UPDATE, "s", 0, {limit(1, 2, true)}),
			     verdict(NF_DROP)}) == 0);
	// per source: the burst (2) passes, then one a second
	for (uint8_t src : {1, 2}) {
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfDrop);
		CHECK(send(e, src) == kNfDrop);
	}
	xb_user_advance_time_ns(1000000000ull);
	CHECK(send(e, 1) == kNfAccept);
	CHECK(send(e, 1) == kNfDrop);
	auto l = dumped(e, "s");
	REQUIRE(l.size() == 2);
	REQUIRE(l[1].exprs.size() == 1);
	CHECK(l[1].exprs[0] == "limit");

	// add @s { ip saddr counter }: each element counts its frames
	REQUIRE(e.load("flush chain bridge t c\nflush set bridge t s\n") == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s", 0, {counter()})}) == 0);
	const uint32_t len = uint32_t(from(1).size()) - 14;
	for (int i = 0; i < 3; i++)
		send(e, 1);
	send(e, 2);
	l = dumped(e, "s");
	REQUIRE(l[1].exprs.size() == 1);
	CHECK(l[1].exprs[0] == "counter 3 " + std::to_string(3 * len));
	CHECK(l[2].exprs[0] == "counter 1 " + std::to_string(len));
	// two expressions: NFTA_SET_ELEM_EXPRESSIONS
	REQUIRE(e.load("flush chain bridge t c\nflush set bridge t s\n") == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s", 0,
						     {counter(), limit(10, 5, false)})}) == 0);
	send(e, 4);
	l = dumped(e, "s");
	REQUIRE(l[4].exprs.size() == 2);
	CHECK(l[4].exprs[0] == "counter 1 " + std::to_string(len));
	CHECK(l[4].exprs[1] == "limit");
}

TEST_CASE("nft dynset: a full set adds nothing and the statement breaks", "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	// add @small { ip saddr } accept: size 2
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "small"), counter()}) == 0);
	send(e, 1);
	send(e, 2);
	send(e, 3);	// no room: breaks before the counter
	send(e, 1);	// there: goes on
	CHECK(e.packets("t", "c", 0) == 3);
	CHECK(dumped(e, "small").size() == 2);
	CHECK(set_named(e, "small").size == 2);
	// the control plane sees it full too
	std::string msg;
	CHECK(e.load("add element bridge t small { 10.0.0.9 }\n", &msg) == -xb::kENFILE);
}

TEST_CASE("nft dynset: nft_dynset_init's errors, nothing added", "[nft][dynset]")
{
	Engine e;
	REQUIRE(e.load(kTables) == 0);
	auto refused = [&](std::vector<nftnl_expr *> x) {
		std::string msg;
		const int err = add_rule(e, x, &msg);
		CHECK_FALSE(msg.empty());
		return err;
	};
	// a timeout needs a set with timeouts
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s", 1000)}) == -xb::kEOPNOTSUPP);
	// no update on an interval set, nor on a constant one (nft gives it
	// its size, so nf_tables picks a fixed hash without one)
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "iv")}) == -xb::kEOPNOTSUPP);
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "k")}) == -xb::kEOPNOTSUPP);
	// a map needs data, a set takes none
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "m")}) == -xb::kEINVAL);
	CHECK(refused({load_saddr(), imm_u32(NFT_REG_2, 1),
		       dynset(NFT_DYNSET_OP_ADD, "s", 0, {}, true)}) == -xb::kEOPNOTSUPP);
	// expressions only in a dynamic set's elements, stateful ones only
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "plain", 0, {counter()})}) ==
	      -xb::kEINVAL);
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s", 0, {imm_u32(NFT_REG_3, 1)})}) ==
	      -xb::kEOPNOTSUPP);
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "s", 0,
					    {counter(), counter(), counter()})}) == -xb::kE2BIG);
	// unknown operation and set
	CHECK(refused({load_saddr(), dynset(3, "s")}) == -xb::kEOPNOTSUPP);
	CHECK(refused({load_saddr(), dynset(NFT_DYNSET_OP_ADD, "nope")}) == -xb::kENOENT);
	CHECK(e.chain("t", "c").rules.empty());
	// a plain set (no flags) of 4-byte keys: nft_set_rhash, it works
	CHECK(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "plain")}) == 0);
	CHECK(send(e, 1) == kNfAccept);
	CHECK(dumped(e, "plain").size() == 1);
}

TEST_CASE("nft dynset: xnft's set statements list back as they were loaded", "[nft][dynset]")
{
	Clock clock;
	const std::string text =
		"table bridge t {\n"
		"  set flood { type ipv4_addr; flags dynamic,timeout; timeout 1m; }\n"
		"  set seen { type ipv4_addr . inet_service; }\n"
		"  map marks { type ipv4_addr : mark; }\n"
		"  chain c { type filter hook forward priority filter;\n"
		"    update @flood { ip saddr timeout 30s limit rate over 10/second } counter drop\n"
		"    add @seen { ip saddr . udp dport }\n"
		"    update @marks { ip saddr : meta mark }\n"
		"    delete @flood { ip daddr }\n"
		"  }\n"
		"}\n";
	Engine e;
	REQUIRE(e.load(text) == 0);
	xnft::PrintOptions po;
	po.handles = true;
	const std::string want = xnft::offline_listing(text, po);
	xnft::RulesetModel dumped_model;
	dump_into(e.rs, dumped_model);
	CHECK(xnft::print_ruleset(dumped_model, po) == want);
	CHECK(want.find("update @flood { ip saddr timeout 30s limit rate over 10/second }") !=
	      std::string::npos);
	CHECK(want.find("size 65535") != std::string::npos);
	// frames fill them; the listing shows the elements as nft does
	CHECK(send(e, 1) == kNfAccept);
	xnft::RulesetModel after;
	dump_into(e.rs, after);
	const std::string listed = xnft::print_ruleset(after, xnft::PrintOptions{});
	CHECK(listed.find("10.0.0.1 limit rate over 10/second timeout 30s expires 30s") !=
	      std::string::npos);
	CHECK(listed.find("10.0.0.1 . 53") != std::string::npos);
	CHECK(listed.find("10.0.0.1 : 0x00000000") != std::string::npos);
}

TEST_CASE("nft dynset: xnft's meters load, limit per key and list back as nft lists them",
	  "[nft][dynset]")
{
	Clock clock;
	// an anonymous set named for the meter (flags 0x21), no element
	// message, a dynset on it. (With a key timeout nft sends flags 0x31,
	// which Linux takes, as it takes a timeout in an anonymous set with
	// NFT_SET_EVAL; core/ does not yet.)
	const std::string text =
		"table bridge t {\n"
		"  chain c { type filter hook forward priority filter;\n"
		"    meter flood size 128 { ip saddr limit rate over 1/second burst 2 packets } drop\n"
		"    meter seen { ip saddr . ip daddr counter }\n"
		"  }\n"
		"}\n";
	Engine e;
	REQUIRE(e.load(text) == 0);
	xnft::PrintOptions po;
	po.handles = true;
	const std::string want = xnft::offline_listing(text, po);
	xnft::RulesetModel dumped_model;
	dump_into(e.rs, dumped_model);
	CHECK(xnft::print_ruleset(dumped_model, po) == want);
	CHECK(want.find("meter flood size 128 { ip saddr limit rate over 1/second burst 2 packets } drop") !=
	      std::string::npos);
	CHECK(want.find("meter seen size 65535 { ip saddr . ip daddr counter }") !=
	      std::string::npos);
	// per source: the burst passes, then the meter's limit drops
	for (uint8_t src : {1, 2}) {
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfDrop);
	}
	// the rules go, and their meters with them
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	xnft::RulesetModel flushed;
	dump_into(e.rs, flushed);
	CHECK(xnft::print_ruleset(flushed, po).find("meter") == std::string::npos);
	REQUIRE(flushed.tables.size() == 1);
	CHECK(flushed.tables[0].sets.empty());
}

TEST_CASE("nft dynset: a dump of many elements frames added comes whole, in parts", "[nft][dynset]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  set recent { typeof ip saddr . udp dport; size 1000; flags dynamic,timeout; timeout 2s; }\n"
		       "  chain c { type filter hook forward priority 0;\n"
		       "    update @recent { ip saddr . udp dport } counter\n"
		       "  }\n"
		       "}\n") == 0);
	for (unsigned i = 0; i < 1200; i++) {
		Frame f(ctf::frame(ctf::udp_packet(ctf::v4(10, 0, uint8_t(i >> 8), uint8_t(i)),
						   ctf::v4(10, 0, 0, 2), 5000, uint16_t(i), 8)));
		f.pkt.now_ns = xb_now_ns();
		e.run(kHookForward, f.pkt);
	}
	CHECK(e.packets("t", "c", 0) == 1000);	// full: the statement broke
	xnft::RulesetModel model;
	dump_into(e.rs, model);
	const std::string listed = xnft::print_ruleset(model, xnft::PrintOptions{});
	size_t n = 0;
	for (size_t at = listed.find(" . "); at != std::string::npos; at = listed.find(" . ", at + 1))
		n++;
	CHECK(n == 1000 + 2);	// and the typeof line and the rule's
	xb_user_advance_time_ns(2000000001ull);
	xnft::RulesetModel later;
	dump_into(e.rs, later);
	CHECK(xnft::print_ruleset(later, xnft::PrintOptions{}).find("elements") == std::string::npos);
	// expired, they make room again, collected by the writers (no commit)
	for (unsigned i = 0; i < 1200; i++) {
		Frame f(ctf::frame(ctf::udp_packet(ctf::v4(10, 1, uint8_t(i >> 8), uint8_t(i)),
						   ctf::v4(10, 0, 0, 2), 5000, uint16_t(i), 8)));
		f.pkt.now_ns = xb_now_ns();
		e.run(kHookForward, f.pkt);
	}
	CHECK(e.packets("t", "c", 0) == 2000);
}

// ---- the set's own expressions and its elements' (NFTA_SET_EXPR[ESSIONS],
// NFTA_SET_ELEM_EXPR[ESSIONS]) ----

namespace {

// A set of ipv4_addr @name with @flags and the expressions @exprs
// (libnftnl sends one as NFTA_SET_EXPR, more as NFTA_SET_EXPRESSIONS).
int new_set(Engine &e, const char *name, uint32_t flags, std::vector<nftnl_expr *> exprs,
	    std::string *msg = nullptr)
{
	return apply_raw(e, kMsgNewSet, [&](nlmsghdr *h) {
		nftnl_set *s = nftnl_set_alloc();
		nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(s, NFTNL_SET_NAME, name);
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, 7);	/* ipv4_addr */
		nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 4);
		nftnl_set_set_u32(s, NFTNL_SET_ID, 1);
		if (flags)
			nftnl_set_set_u32(s, NFTNL_SET_FLAGS, flags);
		for (nftnl_expr *x : exprs)
			nftnl_set_add_expr(s, x);
		nftnl_set_nlmsg_build_payload(h, s);
		nftnl_set_free(s);
	}, msg);
}

// Elements 10.0.0.@last of set @name, each with @exprs of its own.
int add_elems(Engine &e, const char *name, std::vector<uint8_t> lasts,
	      std::function<std::vector<nftnl_expr *>()> exprs = {}, std::string *msg = nullptr)
{
	return apply_raw(e, kMsgNewSetElem, [&](nlmsghdr *h) {
		nftnl_set *s = nftnl_set_alloc();
		nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(s, NFTNL_SET_NAME, name);
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		for (uint8_t last : lasts) {
			nftnl_set_elem *el = nftnl_set_elem_alloc();
			const uint8_t key[4] = {10, 0, 0, last};
			nftnl_set_elem_set(el, NFTNL_SET_ELEM_KEY, key, 4);
			if (exprs)
				for (nftnl_expr *x : exprs())
					nftnl_set_elem_add_expr(el, x);
			nftnl_set_elem_add(s, el);
		}
		nftnl_set_elems_nlmsg_build_payload(h, s);
		nftnl_set_free(s);
	}, msg);
}

nftnl_expr *counter_at(uint64_t packets, uint64_t bytes)
{
	nftnl_expr *x = nftnl_expr_alloc("counter");
	nftnl_expr_set_u64(x, NFTNL_EXPR_CTR_PACKETS, packets);
	nftnl_expr_set_u64(x, NFTNL_EXPR_CTR_BYTES, bytes);
	return x;
}

nftnl_expr *quota(uint64_t bytes)
{
	nftnl_expr *x = nftnl_expr_alloc("quota");
	nftnl_expr_set_u64(x, NFTNL_EXPR_QUOTA_BYTES, bytes);
	return x;
}

const char *const kEmptyTable =
	"table bridge t {\n"
	"  chain c { type filter hook forward priority 0; }\n"
	"}\n";

} // namespace

TEST_CASE("nft set expressions: elements count the lookups that find them", "[nft][setexpr]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kEmptyTable) == 0);
	// set s { type ipv4_addr; counter; elements = { 10.0.0.1, 10.0.0.2,
	// 10.0.0.3 counter packets 5 bytes 7 } }; ip saddr @s accept
	REQUIRE(new_set(e, "s", 0, {counter()}) == 0);
	REQUIRE(add_elems(e, "s", {1, 2}) == 0);
	REQUIRE(add_elems(e, "s", {3}, [] { return std::vector<nftnl_expr *>{counter_at(5, 7)}; }) == 0);
	REQUIRE(add_rule(e, {load_saddr(), lookup("s"), counter(), verdict(NF_ACCEPT)}) == 0);
	const uint32_t len = uint32_t(from(1).size()) - 14;
	send(e, 1);
	send(e, 1);
	send(e, 3);
	send(e, 4);	// not in the set
	CHECK(e.packets("t", "c", 0) == 3);	// the rule goes on after the lookup
	// the rule's counter came without start values (nft sends them only
	// when not 0): its dump still carries both, as nft_counter_do_dump's
	xnft::RulesetModel model;
	dump_into(e.rs, model);
	CHECK(xnft::print_ruleset(model, xnft::PrintOptions{}).find(
		      "@s counter packets 3 bytes " + std::to_string(3 * len) + " accept") !=
	      std::string::npos);
	auto l = dumped(e, "s");
	REQUIRE(l.size() == 3);
	REQUIRE(l[1].exprs.size() == 1);
	CHECK(l[1].exprs[0] == "counter 2 " + std::to_string(2 * len));
	CHECK(l[2].exprs[0] == "counter 0 0");
	CHECK(l[3].exprs[0] == "counter 6 " + std::to_string(7 + len));
	// an inverted lookup that finds the element does not count it (the
	// rule after it does)
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	REQUIRE(add_rule(e, {load_saddr(), lookup("s", true), counter()}) == 0);
	REQUIRE(add_rule(e, {load_saddr(), lookup("s"), verdict(NF_ACCEPT)}) == 0);
	send(e, 2);
	CHECK(e.packets("t", "c", 0) == 0);
	CHECK(dumped(e, "s")[2].exprs[0] == "counter 1 " + std::to_string(len));

	// the counters live across commits that rebuild the set's index, and
	// deleting an element (then the set's end) frees them
	REQUIRE(add_elems(e, "s", {9}) == 0);
	REQUIRE(del_elem(e, "s", 1) == 0);
	send(e, 3);
	l = dumped(e, "s");
	CHECK(l.size() == 3);
	CHECK(l[3].exprs[0] == "counter 7 " + std::to_string(7 + 2 * len));
	CHECK(l[9].exprs[0] == "counter 0 0");
}

TEST_CASE("nft set expressions: a limit or quota in the element breaks the rule", "[nft][setexpr]")
{
	Clock clock;
	Engine e;
	REQUIRE(e.load(kEmptyTable) == 0);
	// set s { type ipv4_addr; limit rate 1/second burst 2 packets; quota ... }
	REQUIRE(new_set(e, "s", NFT_SET_EXPR, {limit(1, 2, false), quota(1000000)}) == 0);
	REQUIRE(add_elems(e, "s", {1, 2}) == 0);
	// ip saddr @s counter; then a rule that counts the others
	REQUIRE(add_rule(e, {load_saddr(), lookup("s"), counter(), verdict(NF_ACCEPT)}) == 0);
	REQUIRE(add_rule(e, {counter(), verdict(NF_DROP)}) == 0);
	for (uint8_t src : {1, 2}) {
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfAccept);
		CHECK(send(e, src) == kNfDrop);	// over the element's own rate
	}
	CHECK(e.packets("t", "c", 0) == 4);
	xb_user_advance_time_ns(1000000000ull);
	CHECK(send(e, 1) == kNfAccept);
	auto l = dumped(e, "s");
	REQUIRE(l[1].exprs.size() == 2);
	CHECK(l[1].exprs[0] == "limit");
	CHECK(l[1].exprs[1] == "quota");

	// a statement that adds to a set with expressions gives its elements
	// the set's: update @d { ip saddr } on set d { ...; flags dynamic;
	// counter; }
	REQUIRE(new_set(e, "d", NFT_SET_EVAL, {counter()}) == 0);
	REQUIRE(e.load("flush chain bridge t c\n") == 0);
	REQUIRE(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_UPDATE, "d")}) == 0);
	send(e, 7);
	send(e, 7);
	const uint32_t len = uint32_t(from(1).size()) - 14;
	l = dumped(e, "d");
	REQUIRE(l[7].exprs.size() == 1);
	CHECK(l[7].exprs[0] == "counter 2 " + std::to_string(2 * len));
}

TEST_CASE("nft set expressions: nf_tables' errors, nothing added", "[nft][setexpr]")
{
	Engine e;
	REQUIRE(e.load(kEmptyTable) == 0);
	std::string msg;
	// NFTA_SET_EXPRESSIONS wants NFT_SET_EXPR; at most two; stateful only
	CHECK(new_set(e, "a", 0, {counter(), quota(5)}, &msg) == -xb::kEINVAL);
	CHECK_FALSE(msg.empty());
	CHECK(new_set(e, "a", NFT_SET_EXPR, {counter(), quota(5), counter()}) == -xb::kE2BIG);
	CHECK(new_set(e, "a", 0, {load_saddr()}) == -xb::kEOPNOTSUPP);
	// a ct count: not where elements time out, nor in a fixed-size kind
	nftnl_expr *cc = nftnl_expr_alloc("connlimit");
	nftnl_expr_set_u32(cc, NFTNL_EXPR_CONNLIMIT_COUNT, 2);
	CHECK(new_set(e, "a", NFT_SET_TIMEOUT, {cc}) == -xb::kEOPNOTSUPP);
	CHECK(e.table("t").sets.empty());

	REQUIRE(new_set(e, "s", 0, {counter()}) == 0);
	// an element's expression of another kind than the set's, or more
	CHECK(add_elems(e, "s", {1}, [] { return std::vector<nftnl_expr *>{quota(5)}; }, &msg) ==
	      -xb::kEOPNOTSUPP);
	CHECK_FALSE(msg.empty());
	CHECK(add_elems(e, "s", {1}, [] {
		return std::vector<nftnl_expr *>{counter(), counter()};
	}) == -xb::kE2BIG);
	// a batch that fails whole adds none (the first element and its
	// counter were made, and are freed with it)
	int call = 0;
	CHECK(add_elems(e, "s", {1, 2}, [&] {
		return std::vector<nftnl_expr *>{call++ ? quota(5) : counter()};
	}) == -xb::kEOPNOTSUPP);
	CHECK(call == 2);
	CHECK(dumped(e, "s").empty());
	// the same set again needs the same expressions (nft_set_is_same)
	CHECK(new_set(e, "s", 0, {quota(5)}) == -xb::kEEXIST);
	CHECK(new_set(e, "s", 0, {counter()}) == 0);
	// a statement's expressions are the set's
	REQUIRE(new_set(e, "d", NFT_SET_EVAL, {counter()}) == 0);
	CHECK(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "d", 0, {limit(1, 1, false)})}) ==
	      -xb::kEOPNOTSUPP);
	CHECK(add_rule(e, {load_saddr(), dynset(NFT_DYNSET_OP_ADD, "d", 0, {counter(), counter()})}) ==
	      -xb::kEINVAL);
	CHECK(e.chain("t", "c").rules.empty());
}

namespace {

// Element 10.0.0.@last of set @name with @udata as NFTA_SET_ELEM_USERDATA
// (and @flags).
int add_elem_udata(Engine &e, const char *name, uint8_t last, const std::string &udata,
		   uint32_t flags = 0)
{
	return apply_raw(e, kMsgNewSetElem, [&](nlmsghdr *h) {
		nftnl_set *s = nftnl_set_alloc();
		nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(s, NFTNL_SET_NAME, name);
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		nftnl_set_elem *el = nftnl_set_elem_alloc();
		const uint8_t key[4] = {10, 0, 0, last};
		nftnl_set_elem_set(el, NFTNL_SET_ELEM_KEY, key, 4);
		nftnl_set_elem_set(el, NFTNL_SET_ELEM_USERDATA, udata.data(), uint32_t(udata.size()));
		if (flags)
			nftnl_set_elem_set_u32(el, NFTNL_SET_ELEM_FLAGS, flags);
		nftnl_set_elem_add(s, el);
		nftnl_set_elems_nlmsg_build_payload(h, s);
		nftnl_set_free(s);
	});
}

// The NFTA_SET_ELEM_USERDATA of each element a dump of set @name lists:
// last octet of the key -> the bytes.
std::map<uint8_t, std::string> dumped_udata(Engine &e, const char *name)
{
	std::map<uint8_t, std::string> out;
	for_each_dumped_elem(e.rs, "t", name, [&](const Attr *et) {
		Attr kt[2];
		REQUIRE(parse_nested(et[kSetElemKey], kt, 1));
		if (et[kSetElemUserdata].present())
			out[kt[1].data[3]] = std::string(reinterpret_cast<const char *>(
								 et[kSetElemUserdata].data),
							 et[kSetElemUserdata].len);
	});
	return out;
}

} // namespace

// nft keeps an element's comment (and an open interval's flag) in its
// userdata; nf_tables stores it as given and dumps it back.
TEST_CASE("nft set elements: userdata kept as given, within nf_tables' bounds", "[nft][setexpr]")
{
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  set s { type ipv4_addr; }\n"
		       "  set iv { type ipv4_addr; flags interval; }\n"
		       "  chain c { type filter hook forward priority 0; }\n"
		       "}\n") == 0);
	const std::string comment("\x00\x07office\x00", 9);	// NFTNL_UDATA_SET_ELEM_COMMENT
	REQUIRE(add_elem_udata(e, "s", 1, comment) == 0);
	REQUIRE(add_elem_udata(e, "s", 2, std::string(254, 'x')) == 0);
	// NFT_USERDATA_MAXLEN is the policy's bound; the extension's length
	// byte makes 255 bytes the most an element holds
	CHECK(add_elem_udata(e, "s", 3, std::string(255, 'x')) == -xb::kEINVAL);
	CHECK(add_elem_udata(e, "s", 3, std::string(257, 'x')) == -xb::kERANGE);
	// an interval's end carries nothing but its key
	CHECK(add_elem_udata(e, "iv", 4, comment, NFT_SET_ELEM_INTERVAL_END) == -xb::kEINVAL);
	auto u = dumped_udata(e, "s");
	REQUIRE(u.size() == 2);
	CHECK(u[1] == comment);
	CHECK(u[2] == std::string(254, 'x'));
	CHECK(dumped(e, "s").size() == 2);
	// freed with the element (ASan)
	REQUIRE(del_elem(e, "s", 1) == 0);
	CHECK(dumped_udata(e, "s").size() == 1);
}
