// test_nft_connlimit.cc - `ct count` (core/nft_connlimit.h) through the
// bridge: a rule's connection list and a dynamic set element's, as
// nft_connlimit and nf_conncount keep them. Userspace, single-threaded; the
// fake clock moves time.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "../../../core/tests/test_util.h"
#include "engine_fixture.h"
#include "nft_dynset.h"
#include "nft_ruleset.h"
#include "ruleset_bridge.h"

#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

using namespace xb;
using namespace xbt;

namespace {

using NftBridge = xnft::test::RulesetBridge;

constexpr MacKey kA = mac(0x02, 0, 0, 0, 0, 0x01);	// ctf::frame's source
constexpr MacKey kB = mac(0x02, 0, 0, 0, 0, 0x02);	// and destination

// A UDP frame from 10.0.0.@host:@sport to 10.0.0.8:53, or its reply.
std::vector<uint8_t> udp(uint8_t host, uint16_t sport, bool reply = false)
{
	const ctf::Ip a = ctf::v4(10, 0, 0, host), b = ctf::v4(10, 0, 0, 8);
	std::vector<uint8_t> f = ctf::frame(reply ? ctf::udp_packet(b, a, 53, sport)
						  : ctf::udp_packet(a, b, sport, 53));
	if (reply)
		for (int i = 0; i < 6; i++)
			std::swap(f[i], f[6 + i]);
	return f;
}

struct CountBridge : NftBridge {
	CountBridge()
	{
		learn(p(1), kA);
		learn(p(2), kB);
	}
	// Load @text, then switch tracking on for its ct count, as the glue
	// does after a commit.
	void apply(const std::string &text)
	{
		REQUIRE(load(text) == 0);
		REQUIRE(br->nft_ruleset_committed(nullptr) == 1);
	}
	bool passes(const std::vector<uint8_t> &f, Port *in)
	{
		advance_ms(10);		// frames 2.5 of nf_conncount's ticks apart
		return !send(in, f).drop();
	}
	unsigned connections() { return br->conntrack()->table().count(); }
};

} // namespace

// A rule's own list: two UDP connections pass `ct count over 2`, a third
// is dropped and its tuple, never confirmed, is pruned by the next walk; a
// later frame of a counted connection adds nothing; once the connections
// have timed out, their tuples go and new ones pass. A frame with no
// connection (ARP) is dropped by `ct count` itself.
TEST_CASE("nft ct count: a rule's connections against its bound", "[nft][ct]")
{
	CountBridge b;
	b.apply("table bridge t {\n"
		"  chain f { type filter hook forward priority 0;\n"
		"    meta protocol arp counter ct count 100 counter\n"
		"    ip protocol udp ct count over 2 counter drop\n"
		"    ip protocol udp ct count 2 counter\n"
		"  }\n"
		"}\n");
	CHECK(b.passes(udp(7, 1000), b.p(1)));
	CHECK(b.passes(udp(7, 1000, true), b.p(2)));	// confirmed: no new tuple
	CHECK(b.passes(udp(7, 1001), b.p(1)));
	CHECK_FALSE(b.passes(udp(7, 1002), b.p(1)));
	CHECK_FALSE(b.passes(udp(7, 1003), b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 1) == 2);
	CHECK(b.connections() == 2);		// the dropped ones never confirmed
	// A frame of a counted connection ends its walk where it finds its
	// own tuple (__nf_conncount_add's "already exists"), so the dropped
	// 1003's tuple behind it still counts: three, over the bound.
	CHECK_FALSE(b.passes(udp(7, 1001), b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 1) == 3);
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 2) == 3);

	// UDP's 30 s timeout: both connections go, so do their tuples
	b.advance_ms(31000);
	CHECK(b.passes(udp(7, 1004), b.p(1)));
	CHECK(b.passes(udp(7, 1005), b.p(1)));
	CHECK_FALSE(b.passes(udp(7, 1006), b.p(1)));

	std::vector<uint8_t> arp = make_frame(kB, kA, {}, 0x0806);
	CHECK_FALSE(b.passes(arp, b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 0) == 1);
}

// An element's list: `add @perhost { ip saddr ct count over 1 }` limits
// each source to one connection; a source's list empties as its
// connections time out, and its next connection passes.
TEST_CASE("nft ct count: a per-source limit in a dynamic set's elements", "[nft][ct]")
{
	CountBridge b;
	b.apply("table bridge t {\n"
		"  set perhost { type ipv4_addr; flags dynamic; }\n"
		"  chain f { type filter hook forward priority 0;\n"
		"    ct state new add @perhost { ip saddr ct count over 1 } counter drop\n"
		"  }\n"
		"}\n");
	CHECK(b.passes(udp(7, 1000), b.p(1)));
	CHECK_FALSE(b.passes(udp(7, 1001), b.p(1)));
	CHECK(b.passes(udp(9, 1000), b.p(1)));	// another source, its own list
	CHECK_FALSE(b.passes(udp(9, 1001), b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 0) == 2);
	// 10.0.0.7's own connection, still new (no reply yet): its walk stops
	// at its own tuple, so the dropped 1001's, behind it, still counts
	CHECK_FALSE(b.passes(udp(7, 1000), b.p(1)));
	// its reply is not new: the statement does not run
	CHECK(b.passes(udp(7, 1000, true), b.p(2)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 0) == 3);

	b.advance_ms(31000);
	CHECK(b.passes(udp(7, 1002), b.p(1)));	// the list has emptied
	CHECK_FALSE(b.passes(udp(7, 1003), b.p(1)));
}

// A `ct count` before conntrack (prerouting below -200) sees no
// connection: every frame is dropped, as nf_conncount_add_skb fails.
TEST_CASE("nft ct count: before conntrack there is no connection to count", "[nft][ct]")
{
	CountBridge b;
	b.apply("table bridge t {\n"
		"  chain pre { type filter hook prerouting priority -300;\n"
		"    ct count 1000 counter\n"
		"  }\n"
		"}\n");
	CHECK_FALSE(b.passes(udp(7, 1000), b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "pre", 0) == 0);
	CHECK(b.connections() == 0);
}

// A ct count the set declares (NFTA_SET_EXPR): `add @perhost { ip saddr }`
// names no expression, so each element it adds gets the set's `ct count
// over 1`, as nft_dynset_init clones the set's expressions.
TEST_CASE("nft ct count: a per-source limit the set declares", "[nft][ct]")
{
	CountBridge b;
	REQUIRE(b.load("table bridge t {\n"
		       "  chain f { type filter hook forward priority 0; }\n"
		       "}\n") == 0);
	REQUIRE(xnft::test::apply_raw(b.rs, nft::kMsgNewSet, [](nlmsghdr *h) {
		nftnl_set *s = nftnl_set_alloc();
		nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
		nftnl_set_set_str(s, NFTNL_SET_NAME, "perhost");
		nftnl_set_set_u32(s, NFTNL_SET_FAMILY, NFPROTO_BRIDGE);
		nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, 7);	/* ipv4_addr */
		nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 4);
		nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_EVAL);
		nftnl_expr *x = nftnl_expr_alloc("connlimit");
		nftnl_expr_set_u32(x, NFTNL_EXPR_CONNLIMIT_COUNT, 1);
		nftnl_expr_set_u32(x, NFTNL_EXPR_CONNLIMIT_FLAGS, NFT_CONNLIMIT_F_INV);
		nftnl_set_add_expr(s, x);
		nftnl_set_nlmsg_build_payload(h, s);
		nftnl_set_free(s);
	}) == 0);
	// add @perhost { ip saddr } counter drop
	REQUIRE(xnft::test::apply_raw(b.rs, nft::kMsgNewRule, [](nlmsghdr *h) {
		nftnl_rule *r = nftnl_rule_alloc();
		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, "t");
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, "f");
		nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_BRIDGE);
		nftnl_expr *x = nftnl_expr_alloc("payload");
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, 12);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, 4);
		nftnl_rule_add_expr(r, x);
		x = nftnl_expr_alloc("dynset");
		nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_OP, NFT_DYNSET_OP_ADD);
		nftnl_expr_set_u32(x, NFTNL_EXPR_DYNSET_SREG_KEY, NFT_REG_1);
		nftnl_expr_set_str(x, NFTNL_EXPR_DYNSET_SET_NAME, "perhost");
		nftnl_rule_add_expr(r, x);
		nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
		x = nftnl_expr_alloc("immediate");
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
		nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
		nftnl_rule_add_expr(r, x);
		nftnl_rule_nlmsg_build_payload(h, r);
		nftnl_rule_free(r);
	}) == 0);
	REQUIRE(b.br->nft_ruleset_committed(nullptr) == 1);
	CHECK(b.passes(udp(7, 1000), b.p(1)));
	CHECK_FALSE(b.passes(udp(7, 1001), b.p(1)));
	CHECK(b.passes(udp(9, 1000), b.p(1)));
	CHECK(xnft::test::rule_packets(b.rs, "t", "f", 0) == 1);
}
