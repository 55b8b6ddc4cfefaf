// test_nft_smallset.cc - lookups into small sets (the seed's one-element
// `iif map` and `iif vmap`, nft's anonymous sets): maps, verdict maps,
// lookups and != lookups, keys of 1 to 16 bytes, 1 to 5 elements.
//
// Each case loads one ruleset twice: with the set anonymous (`{ ... }`,
// constant once bound) and as a named set of the same elements (`@s`).
// The same frames, from every port, run through both; the verdicts, marks,
// ct zones and every rule's counter must agree, and both hits and misses
// must occur. (Kept from a lowering of such lookups into compares, which
// was measured and backed out: Documentation/performance.md.)
//
// Userspace test code: exceptions and the standard library are fine here.
#include <catch2/catch.hpp>

#include <net/if.h>

#include <cstring>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "engine_fixture.h"
#include "nft_eval.h"
#include "nft_ruleset.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

namespace {

using namespace xb::nft;
using namespace xnft::test;
using ctf::Bytes;

// Ports beyond the fixture's two (swp1, swp2), and lo (ifindex 1: the
// only name xnft can resolve for `iif`).
IfInfo port_3{13, "swp3", 1, 0, "xbr0", nullptr};
IfInfo port_4{14, "swp4", 1, 0, "xbr0", nullptr};
IfInfo port_5{15, "swp5", 1, 0, "xbr0", nullptr};
IfInfo port_lo{1, "lo", 772, 0, "xbr0", nullptr};

// The lookups (Op::Lookup) of the generation frames run.
unsigned lookups(Ruleset &rs)
{
	unsigned n = 0;
	xb::RcuReadGuard rcu;
	const Generation *g = rs.generation();
	REQUIRE(g);
	for (uint32_t c = 0; c < g->chain_count; c++)
		for (uint32_t r = 0; r < g->chains[c].count; r++) {
			const RuleCode &rc = g->chains[c].rules[r];
			for (uint32_t i = 0; i < rc.count; i++)
				n += rc.insn[i].op == Op::Lookup;
		}
	return n;
}

// Every rule's counter (0 for a rule without one), in table, chain and
// rule order.
std::vector<uint64_t> all_counters(Ruleset &rs)
{
	std::vector<uint64_t> v;
	for (const TableObj &t : rs.tables())
		for (const ChainObj &c : t.chains)
			for (const RuleObj &r : c.rules) {
				uint64_t pk = 0, by = 0;
				if (r.code.count_counters)
					counter_read(*r.code.counters[0], pk, by);
				v.push_back(pk);
			}
	return v;
}

struct Outcome {
	int32_t verdict;
	uint32_t mark;
	uint16_t zone;
	std::vector<uint64_t> counters;

	bool operator==(const Outcome &o) const
	{
		return std::tie(verdict, mark, zone, counters) ==
		       std::tie(o.verdict, o.mark, o.zone, o.counters);
	}
	bool operator<(const Outcome &o) const
	{
		return std::tie(verdict, mark, zone, counters) <
		       std::tie(o.verdict, o.mark, o.zone, o.counters);
	}
};

struct Probe {
	Bytes bytes;
	const IfInfo *in;
	std::string what;
};

Bytes with_ether_saddr(Bytes b, uint8_t last)
{
	b[11] = last;	/* 02:00:00:00:00:<last> */
	return b;
}

// TCP (dports 22, 23, 80), UDP and TCP over IPv6 from sources 1..6
// (10.0.0.x, 2001:db8::x, ether 02:00:00:00:00:0x), into each port.
std::vector<Probe> probes()
{
	std::vector<Probe> v;
	const IfInfo *ports[] = {&port_lo, &port_a, &port_b, &port_3, &port_4, &port_5};
	for (const IfInfo *in : ports)
		for (uint8_t src = 1; src <= 6; src++) {
			for (uint16_t dport : {22, 23, 80}) {
				ctf::Tcp t;
				t.sport = 40000;
				t.dport = dport;
				t.flags = 0x02;
				t.win = 1000;
				v.push_back({with_ether_saddr(ctf::frame(ctf::tcp_packet(
						     ctf::v4(10, 0, 0, src), ctf::v4(10, 0, 0, 2), t)), src),
					     in, std::string(in->name) + " tcp 10.0.0." + std::to_string(src) +
							 " dport " + std::to_string(dport)});
			}
			v.push_back({with_ether_saddr(ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, src),
										  ctf::v4(10, 0, 0, 2), 5000, 53, 8)),
						      src),
				     in, std::string(in->name) + " udp 10.0.0." + std::to_string(src)});
			ctf::Tcp t;
			t.sport = 40000;
			t.dport = 22;
			t.flags = 0x02;
			t.win = 1000;
			v.push_back({with_ether_saddr(ctf::frame(ctf::tcp_packet(ctf::v6(src), ctf::v6(0x99), t)),
						      src),
				     in, std::string(in->name) + " tcp6 2001:db8::" + std::to_string(src)});
		}
	return v;
}

// The frame's verdict, mark and zone, and the rules it counted in.
Outcome run_probe(Engine &e, unsigned hook, const Probe &p)
{
	Frame f(p.bytes, p.in);
	f.pkt.mark = 7;	/* a map's miss leaves it */
	f.pkt.ct_zone = 9;
	std::vector<uint64_t> counted = all_counters(e.rs);
	const int32_t v = e.run(hook, f.pkt);
	const std::vector<uint64_t> after = all_counters(e.rs);
	for (size_t i = 0; i < counted.size(); i++)
		counted[i] = after[i] - counted[i];
	return {v, f.pkt.mark, f.pkt.ct_zone, counted};
}

// One small set in one rule (SET in @rule stands for it), loaded once
// anonymous and once as named set s of @type, then every probe through
// both. Chain c (prerouting, policy accept) runs the rule, then a counter;
// chain web, which verdict maps jump or go to, only counts.
void twin(const std::string &kind, const std::string &type, const std::string &elems,
	  const std::string &rule)
{
	INFO(rule << " with " << elems);
	auto text = [&](bool anonymous) {
		std::string s = "add table bridge t\n"
				"add chain bridge t web\n"
				"add rule bridge t web counter\n"
				"add chain bridge t c { type filter hook prerouting priority 0; policy accept; }\n";
		if (!anonymous)
			s += "add " + kind + " bridge t s { type " + type + "; elements = { " + elems + " } }\n";
		std::string r = rule;
		const size_t at = r.find("SET");
		REQUIRE(at != std::string::npos);
		r.replace(at, 3, anonymous ? "{ " + elems + " }" : "@s");
		s += "add rule bridge t c " + r + "\nadd rule bridge t c counter\n";
		return s;
	};
	Engine anon, named;
	REQUIRE(anon.load(text(true)) == 0);
	REQUIRE(named.load(text(false)) == 0);
	CHECK(lookups(anon.rs) == 1);	/* a set, not a compare */
	CHECK(lookups(named.rs) == 1);

	std::set<Outcome> seen;
	for (const Probe &p : probes()) {
		INFO(p.what);
		const Outcome a = run_probe(anon, kHookPrerouting, p);
		const Outcome n = run_probe(named, kHookPrerouting, p);
		CHECK(a == n);
		seen.insert(a);
	}
	CHECK(seen.size() >= 2);	/* hits and misses */
}

} // namespace

TEST_CASE("nft small sets: maps by key length, 1 to 4 elements, as the set index", "[nft]")
{
	// 1 byte (meta l4proto)
	twin("map", "inet_proto : mark", "6 : 1", "meta mark set meta l4proto map SET counter");
	twin("map", "inet_proto : mark", "6 : 1, 17 : 2", "meta mark set meta l4proto map SET counter");
	// 2 bytes (tcp dport)
	twin("map", "inet_service : mark", "22 : 1, 23 : 2, 80 : 3",
	     "meta mark set tcp dport map SET counter");
	// 4 bytes (ip saddr, iif)
	twin("map", "ipv4_addr : mark", "10.0.0.1 : 1, 10.0.0.2 : 2, 10.0.0.3 : 3, 10.0.0.4 : 4",
	     "meta mark set ip saddr map SET counter");
	twin("map", "iface_index : mark", "\"lo\" : 5", "meta mark set iif map SET counter");
	// 6 bytes (ether saddr)
	twin("map", "ether_addr : mark", "02:00:00:00:00:01 : 1, 02:00:00:00:00:03 : 3",
	     "meta mark set ether saddr map SET counter");
	// 12 bytes, concatenated exact keys
	twin("map", "ipv4_addr . inet_service . ipv4_addr : mark",
	     "10.0.0.1 . 22 . 10.0.0.2 : 1, 10.0.0.2 . 23 . 10.0.0.2 : 2",
	     "meta mark set ip saddr . tcp dport . ip daddr map SET counter");
	// 16 bytes (ip6 saddr, iifname)
	twin("map", "ipv6_addr : mark", "2001:db8::1 : 1, 2001:db8::2 : 2, 2001:db8::6 : 6",
	     "meta mark set ip6 saddr map SET counter");
	twin("map", "ifname : mark", "\"swp1\" : 1, \"swp2\" : 2, \"lo\" : 3, \"swp4\" : 4",
	     "meta mark set iifname map SET counter");
}

TEST_CASE("nft small sets: verdict maps jump, go to, accept, drop, continue and return", "[nft]")
{
	twin("map", "ifname : verdict",
	     "\"swp1\" : jump web, \"swp2\" : goto web, \"swp3\" : accept, \"swp4\" : drop",
	     "iifname vmap SET");
	twin("map", "iface_index : verdict", "\"lo\" : jump web", "meta protocol ip iif vmap SET");
	twin("map", "inet_service : verdict", "22 : continue, 23 : return, 80 : goto web",
	     "tcp dport vmap SET");
	twin("map", "ipv6_addr : verdict", "2001:db8::1 : drop, 2001:db8::3 : jump web",
	     "ip6 saddr vmap SET");
	twin("map", "ether_addr : verdict", "02:00:00:00:00:02 : drop", "ether saddr vmap SET");
}

// nft compiles a one-element anonymous set into a compare (no lookup):
// the sets here have two or more. Maps of one element stay lookups.
TEST_CASE("nft small sets: lookups and != lookups, hit and miss", "[nft]")
{
	twin("set", "ipv4_addr", "10.0.0.1, 10.0.0.6", "ip saddr SET counter accept");
	twin("set", "ipv4_addr", "10.0.0.1, 10.0.0.5", "ip saddr != SET counter drop");
	twin("set", "ether_addr", "02:00:00:00:00:04, 02:00:00:00:00:05", "ether saddr != SET counter");
	twin("set", "ipv6_addr", "2001:db8::2, 2001:db8::4, 2001:db8::5", "ip6 saddr SET counter drop");
	twin("set", "ipv6_addr", "2001:db8::2, 2001:db8::4", "ip6 saddr != SET counter drop");
	twin("set", "ifname", "\"swp1\", \"swp5\"", "iifname SET counter drop");
	twin("set", "ifname", "\"swp1\", \"swp5\", \"lo\", \"swp3\"", "iifname != SET counter drop");
	twin("set", "inet_proto", "17, 1", "meta l4proto SET counter drop");
	twin("set", "inet_service", "22, 80", "tcp dport != SET counter accept");
}

TEST_CASE("nft small sets: five elements and interval sets", "[nft]")
{
	twin("map", "ipv4_addr : mark",
	     "10.0.0.1 : 1, 10.0.0.2 : 2, 10.0.0.3 : 3, 10.0.0.4 : 4, 10.0.0.5 : 5",
	     "meta mark set ip saddr map SET counter");
	twin("map", "ifname : verdict",
	     "\"swp1\" : jump web, \"swp2\" : goto web, \"swp3\" : accept, \"swp4\" : drop, \"swp5\" : return",
	     "iifname vmap SET");
	twin("set", "ipv6_addr", "2001:db8::1, 2001:db8::2, 2001:db8::3, 2001:db8::4, 2001:db8::5",
	     "ip6 saddr != SET counter drop");
	// prefixes and ranges
	twin("set", "ipv4_addr; flags interval", "10.0.0.0/31, 10.0.0.4-10.0.0.5",
	     "ip saddr SET counter drop");
	twin("set", "inet_service; flags interval", "20-22, 80", "tcp dport != SET counter drop");
}

TEST_CASE("nft small sets: the seed's zone map and vmap, listed as loaded", "[nft]")
{
	REQUIRE(if_nametoindex("lo") == 1);
	const std::string text =
		"table bridge firewall {\n"
		"  chain zones { type filter hook prerouting priority -300;\n"
		"    counter ct zone set iif map { \"lo\" : 2 }\n"
		"  }\n"
		"  chain rule-200-ingress {\n"
		"    tcp dport 22 counter accept\n"
		"    counter drop\n"
		"  }\n"
		"  chain rules-all { type filter hook prerouting priority -150;\n"
		"    counter meta protocol ip iif vmap { \"lo\" : jump rule-200-ingress }\n"
		"  }\n"
		"}\n";
	Engine e;
	REQUIRE(e.load(text) == 0);
	CHECK(lookups(e.rs) == 2);
	// The set's elements and the rules list as they were loaded.
	xnft::PrintOptions po;
	po.handles = true;
	xnft::RulesetModel dumped;
	dump_into(e.rs, dumped);
	CHECK(xnft::print_ruleset(dumped, po) == xnft::offline_listing(text, po));

	ctf::Tcp t;
	t.sport = 40000;
	t.dport = 22;
	t.flags = 0x02;
	t.win = 1000;
	const Bytes ssh = ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t));
	t.dport = 23;
	const Bytes telnet = ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t));
	{
		Frame f(ssh, &port_lo);
		CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
		CHECK(f.pkt.ct_zone == 2);
		Frame g(telnet, &port_lo);
		CHECK(e.run(kHookPrerouting, g.pkt) == kNfDrop);
		CHECK(g.pkt.ct_zone == 2);
		// Not lo: no zone, no jump; the policy accepts.
		Frame h(telnet, &port_a);
		CHECK(e.run(kHookPrerouting, h.pkt) == kNfAccept);
		CHECK(h.pkt.ct_zone == 0);
	}
	CHECK(e.packets("firewall", "rule-200-ingress", 0) == 1);
	CHECK(e.packets("firewall", "rule-200-ingress", 1) == 1);
	CHECK(e.packets("firewall", "zones", 0) == 3);
	// The listing's counters are the frames'.
	xnft::RulesetModel after;
	dump_into(e.rs, after);
	const std::string listed = xnft::print_ruleset(after, xnft::PrintOptions{});
	CHECK(listed.find("counter packets 3 bytes 120 ct zone set iif map { \"lo\" : 2 }") !=
	      std::string::npos);

	// A batch that replaces the rule builds a new generation with the
	// new set.
	REQUIRE(e.load("flush chain bridge firewall zones\n"
		       "add rule bridge firewall zones counter ct zone set iif map { \"lo\" : 4 }\n") == 0);
	CHECK(lookups(e.rs) == 2);
	Frame f(ssh, &port_lo);
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.pkt.ct_zone == 4);
}

namespace {

nftnl_expr *raw_payload(uint32_t base, uint32_t offset, uint32_t len)
{
	nftnl_expr *x = nftnl_expr_alloc("payload");
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, offset);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, len);
	return x;
}

nftnl_expr *raw_map(const char *set)
{
	nftnl_expr *x = nftnl_expr_alloc("lookup");
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_1);
	nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, set);
	return x;
}

nftnl_expr *raw_cmp(const std::vector<uint8_t> &value)
{
	nftnl_expr *x = nftnl_expr_alloc("cmp");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_OP, NFT_CMP_EQ);
	nftnl_expr_set(x, NFTNL_EXPR_CMP_DATA, value.data(), uint32_t(value.size()));
	return x;
}

} // namespace

// nft writes at most 4 bytes of map data anywhere (marks, zones); a raw
// rule reads what a lookup wrote: 16 bytes of IPv6 address, 6 of Ethernet
// address and the zeros after them to the word's end (nft_data_copy).
// A constant named map, as an anonymous one, cannot change while bound.
TEST_CASE("nft small sets: map data up to 16 bytes lands in the register as a lookup's", "[nft]")
{
	for (bool constant : {true, false}) {
		INFO("flags constant: " << constant);
		const std::string flags = constant ? "flags constant; " : "";
		Engine e;
		REQUIRE(e.load("add table bridge t\n"
			       "add chain bridge t c { type filter hook prerouting priority 0; policy accept; }\n"
			       "add map bridge t m6 { type ipv6_addr : ipv6_addr; " + flags +
			       "elements = { 2001:db8::1 : 2001:db8::99, 2001:db8::3 : 2001:db8::98 } }\n"
			       "add map bridge t me { type ether_addr : ether_addr; " + flags +
			       "elements = { 02:00:00:00:00:01 : 0a:0b:0c:0d:0e:0f } }\n") == 0);
		std::vector<uint8_t> v6_99(16, 0), v6_98(16, 0);
		v6_99[0] = v6_98[0] = 0x20;
		v6_99[1] = v6_98[1] = 0x01;
		v6_99[2] = v6_98[2] = 0x0d;
		v6_99[3] = v6_98[3] = 0xb8;
		v6_99[15] = 0x99;
		v6_98[15] = 0x98;
		// rules 0, 1: ip6 saddr map @m6 == 2001:db8::99 (::98) counter
		for (const std::vector<uint8_t> &want : {v6_99, v6_98})
			REQUIRE(add_raw_rule(e, "t", "c", [&](nftnl_rule *r) {
				nftnl_rule_add_expr(r, raw_payload(NFT_PAYLOAD_NETWORK_HEADER, 8, 16));
				nftnl_rule_add_expr(r, raw_map("m6"));
				nftnl_rule_add_expr(r, raw_cmp(want));
				nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
			}) == 0);
		// rule 2: ether saddr map @me, 8 bytes of the register compared:
		// the address, then two zero bytes
		REQUIRE(add_raw_rule(e, "t", "c", [&](nftnl_rule *r) {
			nftnl_rule_add_expr(r, raw_payload(NFT_PAYLOAD_LL_HEADER, 6, 6));
			nftnl_rule_add_expr(r, raw_map("me"));
			nftnl_rule_add_expr(r, raw_cmp({0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0, 0}));
			nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
		}) == 0);
		// rule 3: tcp sport and dport loaded as one word, looked up in a
		// set of 2-byte keys: only the key's 2 bytes (the source port)
		// count, as nft_lookup compares the set's key length
		REQUIRE(e.load("add set bridge t ports { type inet_service; " + flags +
			       "elements = { 40000, 1 } }\n") == 0);
		REQUIRE(add_raw_rule(e, "t", "c", [&](nftnl_rule *r) {
			nftnl_rule_add_expr(r, raw_payload(NFT_PAYLOAD_TRANSPORT_HEADER, 0, 4));
			nftnl_expr *x = nftnl_expr_alloc("lookup");
			nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
			nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, "ports");
			nftnl_rule_add_expr(r, x);
			nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
		}) == 0);
		CHECK(lookups(e.rs) == 4);
		unsigned want[4] = {};
		for (const Probe &p : probes()) {
			Frame f(p.bytes, p.in);
			e.run(kHookPrerouting, f.pkt);
			const bool v6 = p.what.find("tcp6") != std::string::npos;
			want[0] += v6 && p.what.find("::1") != std::string::npos;
			want[1] += v6 && p.what.find("::3") != std::string::npos;
			want[2] += p.bytes[11] == 1;
			want[3] += p.what.find("tcp") != std::string::npos;	/* sport 40000 */
		}
		CHECK(e.packets("t", "c", 0) == want[0]);
		CHECK(e.packets("t", "c", 1) == want[1]);
		CHECK(e.packets("t", "c", 2) == want[2]);
		CHECK(e.packets("t", "c", 3) == want[3]);
		CHECK(want[0] > 0);
		CHECK(want[1] > 0);
		// A constant set's elements cannot change while a rule is bound
		// to it (EBUSY); a named set's can, and the next generation finds
		// the new element.
		std::string msg;
		CHECK(e.load("add element bridge t m6 { 2001:db8::4 : 2001:db8::99 }\n", &msg) ==
		      (constant ? -xb::kEBUSY : 0));
		Frame f(ctf::frame(ctf::tcp_packet(ctf::v6(4), ctf::v6(0x99), ctf::Tcp{})), &port_a);
		e.run(kHookPrerouting, f.pkt);
		CHECK(e.packets("t", "c", 0) == want[0] + (constant ? 0 : 1));
	}
}
