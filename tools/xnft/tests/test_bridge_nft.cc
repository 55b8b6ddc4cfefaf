// test_bridge_nft.cc - a bridge's frames through its namespace's nf_tables
// ruleset at prerouting (core/bridge_nft.h): rulesets compiled by xnft,
// frames decided by the core's decide(), the outcomes Linux's bridge gives
// with the same ruleset (the chain runs before VLAN ingress and learning;
// `ct zone set` below -200 chooses the zone conntrack tracks in; a drop is
// counted as a netfilter drop; the mark set travels with the verdict).
//
// Userspace test code.
#include <catch2/catch.hpp>

#include <net/if.h>

#include <set>

#include "../../../core/tests/ct_frames.h"
#include "../../../core/tests/test_util.h"
#include "bridge_ct.h"
#include "engine_fixture.h"
#include "engine_load.h"
#include "diagnostics.h"
#include "nft_ruleset.h"
#include "parser.h"
#include "platform_user.h"
#include "ruleset_bridge.h"
#include "wire.h"

namespace {

using namespace xbt;

int load(xb::nft::Ruleset &rs, const std::string &text)
{
	const xnft::LoadResult r = xnft::load_text(rs, text);
	INFO(r.lang_error << r.msg);
	return r.err;
}

using NftBridge = xnft::test::RulesetBridge;

std::vector<uint8_t> tcp_syn(uint16_t dport)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = dport;
	t.flags = 0x02;
	t.win = 1000;
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 7), ctf::v4(10, 0, 0, 8), t));
}

// The ports a decision sends copies to, in any order.
std::set<Port *> egress_ports(const Outcome &o)
{
	std::set<Port *> s;
	for (auto &kv : o.egress)
		s.insert(kv.first);
	return s;
}

} // namespace

TEST_CASE("bridge nft: prerouting chains run before learning, drop and mark", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0;\n"
			   "    meta iifname \"swp2\" counter drop\n"
			   "    ether saddr 02:00:00:00:00:99 drop\n"
			   "    meta mark set 7\n"
			   "  }\n"
			   "}\n") == 0);
	Outcome o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.mark == 7);
	CHECK(b.has(host_mac(1), 0));
	// A prerouting drop comes before learning (br_handle_frame order).
	o = b.send(b.p(2), make_frame(kBcast, host_mac(2)));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
	CHECK(!b.has(host_mac(2), 0));
	CHECK(port_drops(b.p(2), DropReason::Netfilter) == 1);
	o = b.send(b.p(3), make_frame(kBcast, mac(0x02, 0, 0, 0, 0, 0x99)));
	CHECK(o.drop());
	// A new generation applies to the next frame; no ruleset: no rules.
	REQUIRE(load(b.rs, "flush ruleset\n") == 0);
	o = b.send(b.p(2), make_frame(kBcast, host_mac(2)));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.mark == 0);
	CHECK(b.has(host_mac(2), 0));
}

TEST_CASE("bridge nft: VLAN-tagged frames are seen with their tag, before VLAN ingress", "[nft]")
{
	NftBridge b;
	REQUIRE(b.br->set_vlan_filtering(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0; vlan id 30 drop; }\n"
			   "}\n") == 0);
	// VID 30 is not a member: Linux's chain sees (and drops) it first.
	Outcome o = b.send(b.p(1), make_frame(kBcast, host_mac(1), {q(30)}));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1), {q(31)}));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::VlanNotMember);
	// The same tag out of band (the kernel's case).
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)), OobTag{true, 0x8100, 30});
	CHECK(o.v.reason == DropReason::Netfilter);
}

TEST_CASE("bridge nft: ct zone set below -200 is the zone conntrack tracks in", "[nft]")
{
	REQUIRE(if_nametoindex("lo") == 1);	// port 1 has ifindex 1: `iif "lo"` names it
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge fw {\n"
			   "  chain zones { type filter hook prerouting priority -300;\n"
			   "    ct zone set iif map { \"lo\" : 2 }\n"
			   "  }\n"
			   "  chain rules { type filter hook prerouting priority -150;\n"
			   "    ct zone 2 ct state new tcp dport 23 counter drop\n"
			   "    ct zone 2 ct state new counter accept\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
	Outcome o = b.send(b.p(1), tcp_syn(23));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
	CHECK(b.br->conntrack()->table().count() == 0);	// dropped: never confirmed
	o = b.send(b.p(1), tcp_syn(22));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == xb::kCtStateNew);
	REQUIRE(b.br->conntrack()->table().count() == 1);
	uint32_t bucket = 0, skip = 0;
	int zones_seen = -1;
	b.br->conntrack()->table().for_each_from(bucket, skip, [&](const CtEntry &e) {
		zones_seen = e.tuple.zone;
		return true;
	});
	CHECK(zones_seen == 2);
	// From another port: zone 0, the zone-2 rules do not match.
	o = b.send(b.p(3), tcp_syn(23));
	CHECK(o.v.kind == VerdictKind::Forward);
}

// ---- the later hooks: forward, input, output, postrouting -------------------

TEST_CASE("bridge nft: forward chains see each copy that leaves through a port", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain forward { type filter hook forward priority 0;\n"
			   "    oifname \"swp2\" counter drop\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), host_mac(2));
	// Unicast to swp2: the decision is made (and the source learned), then
	// the forward chain drops the one copy.
	Outcome o = b.send(b.p(1), make_frame(host_mac(2), host_mac(1)));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
	CHECK(port_drops(b.p(1), DropReason::Netfilter) == 1);
	CHECK(b.has(host_mac(1), 0));
	// A flood loses only the copy to swp2; the local copy is not forwarded.
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(egress_ports(o) == std::set<Port *>{b.p(3)});
	CHECK(o.local);
	// Unicast to swp3 and from swp2 pass.
	b.learn(b.p(3), host_mac(3));
	o = b.send(b.p(1), make_frame(host_mac(3), host_mac(1)));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(3)));
	o = b.send(b.p(2), make_frame(host_mac(3), host_mac(2)));
	CHECK(o.to(b.p(3)));
	// A unicast to a local entry goes up: no forward chain on the way.
	o = b.send(b.p(1), make_frame(kBrAddr, host_mac(1)));
	CHECK(o.v.kind == VerdictKind::Local);
}

TEST_CASE("bridge nft: input chains see the copy that goes up, with its ingress port", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain in { type filter hook input priority 0;\n"
			   "    iifname \"swp1\" counter drop\n"
			   "  }\n"
			   "  chain post { type filter hook postrouting priority 0;\n"
			   "    iifname \"swp1\" counter drop\n"	// no input device here
			   "  }\n"
			   "}\n") == 0);
	Outcome o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(egress_ports(o) == std::set<Port *>{b.p(2), b.p(3)});
	CHECK(!o.local);
	o = b.send(b.p(2), make_frame(kBcast, host_mac(2)));
	CHECK(o.local);
	CHECK(egress_ports(o) == std::set<Port *>{b.p(1), b.p(3)});
	// Only up: dropping that copy drops the frame.
	o = b.send(b.p(1), make_frame(kBrAddr, host_mac(1)));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
	o = b.send(b.p(2), make_frame(kBrAddr, host_mac(2)));
	CHECK(o.v.kind == VerdictKind::Local);
	// Forwarded with a local copy (promiscuous bridge): the forward stays.
	b.br->set_promisc(true);
	o = b.send(b.p(1), make_frame(host_mac(2), host_mac(1)));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(2)));
	CHECK(!o.local);
}

TEST_CASE("bridge nft: output chains see what the bridge device sends; forward does not", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain forward { type filter hook forward priority 0; policy drop; }\n"
			   "  chain out { type filter hook output priority 0;\n"
			   "    iifname \"xbr0\" drop\n"	// no input device at output
			   "    oifname \"swp3\" counter drop\n"
			   "  }\n"
			   "}\n") == 0);
	Outcome o = b.send(b.host(), make_frame(kBcast, kBrAddr));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(egress_ports(o) == std::set<Port *>{b.p(1), b.p(2)});
	// Frames between ports meet the forward policy; their local copy does not.
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.egress.empty());
	CHECK(o.local);
	o = b.send(b.host(), make_frame(host_mac(1), kBrAddr));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(1)));
	b.learn(b.p(3), host_mac(3));	// (its flood is dropped at forward)
	o = b.send(b.host(), make_frame(host_mac(3), kBrAddr));
	CHECK(o.drop());
	CHECK(o.v.reason == DropReason::Netfilter);
}

TEST_CASE("bridge nft: forward and postrouting see the egress VLAN tag", "[nft]")
{
	NftBridge b;
	REQUIRE(b.br->set_vlan_filtering(true, nullptr) == 0);
	// VID 10: tagged on swp1 and swp3, PVID untagged on swp2.
	REQUIRE(b.br->vlan_add(b.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(b.br->vlan_add(b.p(2), 10, 10, kVlanPvid | kVlanUntagged, nullptr) == 0);
	REQUIRE(b.br->vlan_add(b.p(3), 10, 10, 0, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0;\n"
			   "    vlan id 10 counter meta mark set 1\n"
			   "  }\n"
			   "  chain forward { type filter hook forward priority 0;\n"
			   "    vlan id 10 oifname \"swp2\" drop\n"	// swp2 sends it untagged
			   "    vlan id 10 oifname \"swp1\" meta mark set 5\n"
			   "  }\n"
			   "  chain post { type filter hook postrouting priority 0;\n"
			   "    meta mark 5 vlan id 10 vlan pcp 3 drop\n"
			   "  }\n"
			   "}\n") == 0);
	// Untagged in on swp2 (PVID 10): prerouting sees no tag (mark stays 0),
	// the forward chain sees the egress tag 10 towards swp1 and swp3.
	Outcome o = b.send(b.p(2), make_frame(kBcast, host_mac(2)));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(egress_ports(o) == std::set<Port *>{b.p(1), b.p(3)});
	CHECK(o.v.mark == 0);
	// Tagged in on swp1: swp2's copy leaves untagged, so it is not dropped.
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1), {q(10)}));
	CHECK(egress_ports(o) == std::set<Port *>{b.p(2), b.p(3)});
	CHECK(o.v.mark == 1);
	// Unicast to swp1 with PCP 3: forward marks it 5, postrouting drops it;
	// with PCP 0 it leaves, and its mark is the one the forward chain set.
	b.learn(b.p(1), host_mac(1), {q(10)});
	o = b.send(b.p(3), make_frame(host_mac(1), host_mac(3), {q(10, 3)}));
	CHECK(o.drop());
	o = b.send(b.p(3), make_frame(host_mac(1), host_mac(3), {q(10)}));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.mark == 5);
	// The same frame with its tag out of band (the kernel's case).
	o = b.send(b.p(3), make_frame(host_mac(1), host_mac(3)), OobTag{true, 0x8100, 10 | 3 << 13});
	CHECK(o.drop());
}

// skb->mark leaves as it came unless a chain sets it, and `meta mark set 0`
// clears it (nft_meta_set_eval writes skb->mark whatever the value).
TEST_CASE("bridge nft: an arriving mark stays unless a chain sets it, to 0 too", "[nft]")
{
	NftBridge b;
	b.br->set_promisc(true);
	Outcome o = b.send_marked(b.p(1), make_frame(kBcast, host_mac(1)), 9);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.mark == 9);
	CHECK(o.v.local_mark == 9);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0; meta mark 9 meta mark set 0; }\n"
			   "  chain in { type filter hook input priority 0; meta mark 5 meta mark set 0; }\n"
			   "}\n") == 0);
	o = b.send_marked(b.p(1), make_frame(kBcast, host_mac(1)), 9);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.mark == 0);
	CHECK(o.v.local_mark == 0);
	// 5 passes prerouting as it is; only the copy that goes up is cleared.
	o = b.send_marked(b.p(1), make_frame(kBcast, host_mac(1)), 5);
	CHECK(o.v.mark == 5);
	CHECK(o.v.local_mark == 0);
	b.learn(b.p(2), host_mac(2));
	o = b.send_marked(b.p(1), make_frame(host_mac(2), host_mac(1)), 7);
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.mark == 7);
}

// skb->priority as skb->mark: kept as it came, set by `meta priority set`
// in any hook, read back by `meta priority`; the copy that goes up has its
// own after the input chains.
TEST_CASE("bridge nft: meta priority set travels with the copies as the mark does", "[nft]")
{
	NftBridge b;
	b.br->set_promisc(true);
	b.learn(b.p(2), host_mac(2));
	Outcome o = b.send_marked(b.p(1), make_frame(host_mac(2), host_mac(1)), 0, 0x00010001);
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.priority == 0x00010001);
	CHECK(o.v.local_priority == 0x00010001);
	// a classid is one token of nft's scanner only before a blank, ":", "-",
	// "}" or ",": not before ";"
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0; meta priority 1:1 meta priority set 1:2 ; }\n"
			   "  chain forward { type filter hook forward priority 0; meta priority 1:2 meta priority set 2:1 ; }\n"
			   "  chain in { type filter hook input priority 0; meta priority set 3:3 ; }\n"
			   "}\n") == 0);
	o = b.send_marked(b.p(1), make_frame(host_mac(2), host_mac(1)), 0, 0x00010001);
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.local);
	CHECK(o.v.priority == 0x00020001);
	CHECK(o.v.local_priority == 0x00030003);
	// Another arriving priority: prerouting and forward leave it alone.
	o = b.send_marked(b.p(1), make_frame(host_mac(2), host_mac(1)), 0, 7);
	CHECK(o.v.priority == 7);
	CHECK(o.v.local_priority == 0x00030003);
}

// meta pkttype set at prerouting: the copy that goes up gets that pkt_type
// (br_pass_frame_up keeps skb->pkt_type); later chains read it.
TEST_CASE("bridge nft: meta pkttype set reaches the copy that goes up", "[nft]")
{
	NftBridge b;
	b.br->set_promisc(true);
	b.learn(b.p(2), host_mac(2));
	Outcome o = b.send(b.p(1), make_frame(host_mac(2), host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.local);
	CHECK(o.v.local_pkttype == xb::kPkttypeKeep);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0; meta pkttype other meta pkttype set host; }\n"
			   "  chain forward { type filter hook forward priority 0; meta pkttype host meta mark set 4; }\n"
			   "}\n") == 0);
	o = b.send(b.p(1), make_frame(host_mac(2), host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.local_pkttype == 0);
	CHECK(o.v.mark == 4);
	// A broadcast is no other-host frame: nothing set.
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	CHECK(o.v.local_pkttype == xb::kPkttypeKeep);
	CHECK(o.v.mark == 0);
}

TEST_CASE("bridge nft: the local copy's mark is its own", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0; meta mark set 1; }\n"
			   "  chain forward { type filter hook forward priority 0; meta mark set 2; }\n"
			   "  chain in { type filter hook input priority 0; meta mark 1 meta mark set 3; }\n"
			   "}\n") == 0);
	b.br->set_promisc(true);
	b.learn(b.p(2), host_mac(2));
	Outcome o = b.send(b.p(1), make_frame(host_mac(2), host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.local);
	CHECK(o.v.mark == 2);
	CHECK(o.v.local_mark == 3);
}

TEST_CASE("bridge nft: conntrack confirms only what passes the later hooks", "[nft]")
{
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain forward { type filter hook forward priority 0;\n"
			   "    ct state new oifname \"swp2\" drop\n"
			   "  }\n"
			   "  chain post { type filter hook postrouting priority 0;\n"
			   "    ct state new tcp dport 25 drop\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
	Outcome o = b.send(b.p(1), tcp_syn(22));
	CHECK(o.drop());
	CHECK(b.br->conntrack()->table().count() == 0);
	b.learn(b.p(3), mac(0x02, 0, 0, 0, 0, 0x02));	// roams to swp3
	o = b.send(b.p(1), tcp_syn(25));
	CHECK(o.drop());
	CHECK(b.br->conntrack()->table().count() == 0);
	o = b.send(b.p(1), tcp_syn(22));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(b.br->conntrack()->table().count() == 1);
}

// nf_ct_bridge_post confirms a new connection on the way out of the first
// copy of a flood that passes its chains, so the next copy's forward and
// postrouting chains, and the input chain of the copy that goes up, see
// it confirmed (`ct status confirmed`); the first copy's chains do not.
TEST_CASE("bridge nft: a flood's later copies see the connection its first copy confirmed",
	  "[nft][ct]")
{
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain forward { type filter hook forward priority 0;\n"
			   "    ct status confirmed counter\n"
			   "  }\n"
			   "  chain post { type filter hook postrouting priority 0;\n"
			   "    ct status confirmed counter\n"
			   "  }\n"
			   "  chain input { type filter hook input priority 0;\n"
			   "    ct status confirmed counter\n"
			   "  }\n"
			   "}\n") == 0);
	// unknown unicast: two copies, to swp2 and swp3
	Outcome o = b.send(b.p(1), tcp_syn(22));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(egress_ports(o).size() == 2);
	CHECK(xnft::test::rule_packets(b.rs, "f", "forward", 0) == 1);
	CHECK(xnft::test::rule_packets(b.rs, "f", "post", 0) == 1);
	CHECK(b.br->conntrack()->table().count() == 1);
	// a broadcast: two copies and one up, of a new connection
	std::vector<uint8_t> bc = tcp_syn(23);
	std::fill(bc.begin(), bc.begin() + 6, uint8_t(0xff));
	o = b.send(b.p(1), bc);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.local);
	CHECK(xnft::test::rule_packets(b.rs, "f", "forward", 0) == 2);
	CHECK(xnft::test::rule_packets(b.rs, "f", "post", 0) == 2);
	CHECK(xnft::test::rule_packets(b.rs, "f", "input", 0) == 1);
	CHECK(b.br->conntrack()->table().count() == 2);
}

// notrack below -200 keeps the frame out of the table (ct state untracked,
// nothing confirmed); after conntrack it changes nothing for a tracked
// frame; a frame conntrack found INVALID becomes UNTRACKED (Linux leaves
// that skb without a ct); notrack alone does not switch tracking on.
TEST_CASE("bridge nft: notrack", "[nft][ct]")
{
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain raw { type filter hook prerouting priority -300;\n"
			   "    tcp dport 23 notrack\n"
			   "  }\n"
			   "  chain late { type filter hook prerouting priority 0;\n"
			   "    tcp dport 25 notrack\n"
			   "  }\n"
			   "  chain forward { type filter hook forward priority 0;\n"
			   "    ct state untracked counter accept\n"
			   "    ct state new counter accept\n"
			   "    ct state invalid notrack ct state untracked counter accept\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
	// The learning frame is a broken IPv4 packet flooded to two ports: each
	// copy is INVALID and untracked by its own notrack, as each skb clone
	// is on Linux (the second copy does not see the first one's).
	auto count = [&](unsigned rule) {
		return xnft::test::rule_packets(b.rs, "f", "forward", rule);
	};
	const uint64_t untracked = count(0), invalid = count(2);
	CHECK(untracked == 0);
	CHECK(invalid == 2);
	Outcome o = b.send(b.p(1), tcp_syn(23));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == xb::kCtStateUntracked);
	CHECK(b.br->conntrack()->table().count() == 0);
	CHECK(count(0) == untracked + 1);
	o = b.send(b.p(1), tcp_syn(25));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == xb::kCtStateNew);
	CHECK(b.br->conntrack()->table().count() == 1);
	CHECK(count(1) == 1);
	// SYN|FIN: tcp_error's INVALID, then untracked by the forward chain
	ctf::Tcp t;
	t.sport = 40001;
	t.dport = 80;
	t.flags = 0x03;
	t.win = 1000;
	o = b.send(b.p(1), ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 7), ctf::v4(10, 0, 0, 8), t)));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == xb::kCtStateInvalid);
	CHECK(count(2) == invalid + 1);
	CHECK(count(0) == untracked + 1);
	CHECK(b.br->conntrack()->table().count() == 1);

	NftBridge quiet;
	REQUIRE(load(quiet.rs, "table bridge f {\n"
			       "  chain raw { type filter hook prerouting priority -300; notrack; }\n"
			       "}\n") == 0);
	CHECK(quiet.br->conntrack() == nullptr);
}

// log: each rule holds the bridge family's logger while it lives (none:
// ENOENT, nothing added); a frame is handed to it at its hook with the
// devices of that hook and the statement's options, as nft_log_eval does.
TEST_CASE("bridge nft: log", "[nft]")
{
	xb_user_nft_log_clear();
	const long held = xb_user_nft_loggers_held();
	{
		NftBridge b;
		REQUIRE(load(b.rs, "table bridge f {\n"
				   "  chain pre { type filter hook prerouting priority 0;\n"
				   "    tcp dport 22 log prefix \"pre \" level info flags tcp sequence\n"
				   "  }\n"
				   "  chain forward { type filter hook forward priority 0;\n"
				   "    tcp dport 22 log group 5 snaplen 64\n"
				   "    tcp dport 22 log level audit\n"
				   "  }\n"
				   "}\n") == 0);
		CHECK(xb_user_nft_loggers_held() == held + 2);	// audit holds none
		b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
		xb_user_nft_log_clear();
		Outcome o = b.send(b.p(1), tcp_syn(22));
		CHECK(o.v.kind == VerdictKind::Forward);
		REQUIRE(xb_user_nft_log_count() == 2);
		xb_user_nft_log_record r;
		REQUIRE(xb_user_nft_log_get(0, &r) == 0);
		CHECK(r.hook == xb::nft::kHookPrerouting);
		CHECK(r.in_ifindex == b.p(1)->ifindex);
		CHECK(r.out_ifindex == 0);
		CHECK(std::string(r.log.prefix) == "pre ");
		CHECK(r.log.type == 0);
		CHECK(r.log.level == 6);
		CHECK(r.log.logflags == 0x01);
		REQUIRE(xb_user_nft_log_get(1, &r) == 0);
		CHECK(r.hook == xb::nft::kHookForward);
		CHECK(r.in_ifindex == b.p(1)->ifindex);
		CHECK(r.out_ifindex == b.p(2)->ifindex);
		CHECK(r.log.type == 1);
		CHECK(r.log.group == 5);
		CHECK(r.log.copy_len_set == 1);
		CHECK(r.log.copy_len == 64);
		CHECK(std::string(r.log.prefix).empty());
		xb_user_nft_log_clear();
		b.send(b.p(1), tcp_syn(23));
		CHECK(xb_user_nft_log_count() == 0);

		// No logger: the rule is refused and the ruleset stays as it was.
		xb_user_set_nft_logger(0);
		CHECK(load(b.rs, "table bridge g {\n"
				 "  chain c { type filter hook forward priority 0; counter; log; }\n"
				 "}\n") == -2);
		size_t tables = 0;
		for (const xb::nft::TableObj &t : b.rs.tables())
			tables += !strcmp(t.name, "g");
		CHECK(tables == 0);
		xb_user_set_nft_logger(1);
		CHECK(xb_user_nft_loggers_held() == held + 2);
	}
	CHECK(xb_user_nft_loggers_held() == held);	// freed with the rules
}

// The IP stack's own frames are tracked before the bridge's output chains
// (the IP layer's LOCAL_OUT conntrack, which a bridge-family ct rule turns
// on) and confirmed whatever the bridge then does; a packet socket's frames
// are not tracked at all (ct state invalid), as on Linux.
TEST_CASE("bridge nft: the host stack's frames are tracked before the output chains", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain out { type filter hook output priority 0;\n"
			   "    ct state invalid drop\n"
			   "    ct state new tcp dport 25 drop\n"
			   "  }\n"
			   "  chain in { type filter hook input priority 0;\n"
			   "    ct state established accept\n"
			   "    drop\n"
			   "  }\n"
			   "}\n") == 0);
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);	// as a ct rule does
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination

	Outcome o = b.send(b.host(), tcp_syn(22));	// a packet socket's frame
	CHECK(o.drop());
	CHECK(b.br->conntrack()->table().count() == 0);

	o = b.send_host_stack(tcp_syn(22));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(b.br->conntrack()->table().count() == 1);
	// Dropped by the output chain, yet confirmed before it, as on Linux.
	o = b.send_host_stack(tcp_syn(25));
	CHECK(o.drop());
	CHECK(b.br->conntrack()->table().count() == 2);

	// The reply comes in through a port and goes up as established.
	ctf::Tcp t;
	t.sport = 22;
	t.dport = 40000;
	t.flags = 0x12;
	t.win = 1000;
	std::vector<uint8_t> reply =
		ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 8), ctf::v4(10, 0, 0, 7), t));
	mac_to_bytes(kBrAddr, reply.data());			// to us
	mac_to_bytes(mac(0x02, 0, 0, 0, 0, 0x02), reply.data() + 6);
	o = b.send(b.p(2), reply);
	CHECK(o.v.kind == VerdictKind::Local);
	// Without the host's entry the same reply would be new, and dropped.
	REQUIRE(b.br->conntrack()->table().count() == 2);
}

// nf_ct_netns_get/put: a ruleset's ct expressions switch tracking on; when
// the last one goes, frames are no longer tracked, while the table and its
// entries stay (and age), as the namespace's table does on Linux. The
// user's `conntrack on` tracks whatever the ruleset.
TEST_CASE("bridge nft: tracking follows the ruleset's ct expressions", "[nft]")
{
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0;\n"
			   "    ct state new counter\n"
			   "  }\n"
			   "}\n") == 0);
	REQUIRE(b.br->nft_ruleset_committed(nullptr) == 1);	// as the glue does
	CHECK_FALSE(b.br->opts().conntrack_user);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
	Outcome o = b.send(b.p(1), tcp_syn(22));
	CHECK(o.v.ct_state == xb::kCtStateNew);
	CHECK(b.br->conntrack()->table().count() == 1);

	REQUIRE(load(b.rs, "flush ruleset\n"
			   "table bridge f {\n"
			   "  chain pre { type filter hook prerouting priority 0;\n"
			   "    counter\n"
			   "  }\n"
			   "}\n") == 0);
	REQUIRE(b.br->nft_ruleset_committed(nullptr) == 0);
	o = b.send(b.p(1), tcp_syn(25));
	CHECK(o.v.ct_state == 0);			// not tracked
	REQUIRE(b.br->conntrack() != nullptr);		// the table stays,
	CHECK(b.br->conntrack()->table().count() == 1);	// with its entry

	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);	// the user's option
	o = b.send(b.p(1), tcp_syn(25));
	CHECK(o.v.ct_state == xb::kCtStateNew);
	CHECK(b.br->conntrack()->table().count() == 2);
}

namespace {

// A TCP connection 10.0.0.1:40000 (behind swp1) <-> 10.0.0.2:80 (behind
// swp2) whose sequence numbers follow what each side sent, 8-byte segments.
struct TcpConn {
	NftBridge &b;
	uint32_t cseq = 1000, sseq = 5000;

	static std::vector<uint8_t> seg(MacKey dst, MacKey src, const ctf::Ip &s, const ctf::Ip &d,
					uint16_t sp, uint16_t dp, uint32_t seq, uint32_t ack,
					uint8_t flags, uint32_t payload)
	{
		ctf::Tcp t;
		t.sport = sp;
		t.dport = dp;
		t.seq = seq;
		t.ack = ack;
		t.flags = flags;
		t.win = 64240;
		t.payload = payload;
		std::vector<uint8_t> f = ctf::frame(ctf::tcp_packet(s, d, t));
		mac_to_bytes(dst, f.data());
		mac_to_bytes(src, f.data() + 6);
		return f;
	}
	// Sent through the bridge (tracked or not, as the ruleset says);
	// returns the frame's ct state.
	uint8_t c(uint8_t flags, uint32_t payload = 0)
	{
		auto f = seg(host_mac(0xb2), host_mac(0xa1), ctf::v4(10, 0, 0, 1),
			     ctf::v4(10, 0, 0, 2), 40000, 80, cseq,
			     (flags & ctf::ACK) ? sseq : 0, flags, payload);
		cseq += payload + ((flags & (ctf::SYN | ctf::FIN)) ? 1 : 0);
		return b.send(b.p(1), f).v.ct_state;
	}
	uint8_t s(uint8_t flags, uint32_t payload = 0)
	{
		auto f = seg(host_mac(0xa1), host_mac(0xb2), ctf::v4(10, 0, 0, 2),
			     ctf::v4(10, 0, 0, 1), 80, 40000, sseq,
			     (flags & ctf::ACK) ? cseq : 0, flags, payload);
		sseq += payload + ((flags & (ctf::SYN | ctf::FIN)) ? 1 : 0);
		return b.send(b.p(2), f).v.ct_state;
	}
	// Both ways, @n times: the ct states seen, client's then server's.
	std::vector<uint8_t> exchange(int n)
	{
		std::vector<uint8_t> st;
		for (int i = 0; i < n; i++) {
			st.push_back(c(ctf::ACK | ctf::PSH, 8));
			st.push_back(s(ctf::ACK | ctf::PSH, 8));
		}
		return st;
	}
};

const char *kCtRules = "table bridge t {\n"
		       "  chain f { type filter hook forward priority 0;\n"
		       "    ct state established counter accept\n"
		       "  }\n"
		       "}\n";
const char *kNoCtRules = "flush ruleset\n"
			 "table bridge t {\n"
			 "  chain f { type filter hook forward priority 0;\n"
			 "    counter\n"
			 "  }\n"
			 "}\n";

} // namespace

// Conformance corpus 192: an established connection goes on while the
// ruleset has no ct expression (untracked), then a ct rule comes back.
// Linux's nf_ct_netns_get registers the hooks again and runs
// nf_ct_tcp_fixup: the connection forgets its windows and is picked up
// mid-stream, ESTABLISHED; without that its segments would ack data
// conntrack never saw and be INVALID.
TEST_CASE("bridge nft: tracking resumed after a gap picks established TCP up again", "[nft][ct]")
{
	NftBridge b;
	b.learn(b.p(1), host_mac(0xa1));
	b.learn(b.p(2), host_mac(0xb2));
	TcpConn k{b};
	const std::vector<uint8_t> est(2, xb::kCtStateEstablished);

	REQUIRE(load(b.rs, kCtRules) == 0);
	REQUIRE(b.br->nft_ruleset_committed(nullptr) == 1);
	REQUIRE(k.c(ctf::SYN) == xb::kCtStateNew);
	REQUIRE(k.s(ctf::SYN | ctf::ACK) == xb::kCtStateEstablished);
	REQUIRE(k.c(ctf::ACK) == xb::kCtStateEstablished);
	REQUIRE(k.exchange(2) == std::vector<uint8_t>(4, xb::kCtStateEstablished));

	SECTION("the ruleset loses its ct expression, then regains it")
	{
		REQUIRE(load(b.rs, kNoCtRules) == 0);
		REQUIRE(b.br->nft_ruleset_committed(nullptr) == 0);
		CHECK(k.exchange(3) == std::vector<uint8_t>(6, 0));	// untracked
		REQUIRE(load(b.rs, kCtRules) == 0);
		REQUIRE(b.br->nft_ruleset_committed(nullptr) == 0);	// the table stayed
		CHECK(k.exchange(3) == std::vector<uint8_t>(6, xb::kCtStateEstablished));
		CHECK(b.br->conntrack()->table().stats_sum().invalid == 0);
	}
	SECTION("the user's option resumes tracking too")
	{
		REQUIRE(load(b.rs, kNoCtRules) == 0);
		REQUIRE(b.br->nft_ruleset_committed(nullptr) == 0);
		CHECK(k.exchange(3) == std::vector<uint8_t>(6, 0));
		REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
		CHECK(k.exchange(3) == std::vector<uint8_t>(6, xb::kCtStateEstablished));
		CHECK(b.br->conntrack()->table().stats_sum().invalid == 0);
	}
	SECTION("no gap, no fixup: a commit that keeps ct keeps the windows")
	{
		REQUIRE(load(b.rs, kCtRules) == 0);	// the same rule once more
		REQUIRE(b.br->nft_ruleset_committed(nullptr) == 0);
		uint32_t bucket = 0, skip = 0;
		unsigned n = 0;
		b.br->conntrack()->table().for_each_from(bucket, skip, [&](const xb::CtEntry &e) {
			CHECK(e.proto.tcp.seen[0].td_maxwin != 0);
			CHECK(e.proto.tcp.seen[1].td_maxwin != 0);
			n++;
			return true;
		});
		CHECK(n == 1);
		// and so a segment acking unseen data stays INVALID
		k.sseq += 100000;
		CHECK(k.c(ctf::ACK) == xb::kCtStateInvalid);
	}
	SECTION("a gap the control path did not see end: still INVALID")
	{
		// The glue calls nft_ruleset_committed after every commit; a
		// gap it never heard of leaves the windows as they were, which
		// shows what the fixup is for.
		REQUIRE(load(b.rs, kNoCtRules) == 0);
		CHECK(k.exchange(3) == std::vector<uint8_t>(6, 0));
		REQUIRE(load(b.rs, kCtRules) == 0);
		CHECK(k.c(ctf::ACK | ctf::PSH, 8) == xb::kCtStateInvalid);
	}
}

TEST_CASE("bridge nft: a hook without a device reads ifindex 0 and the empty name", "[nft]")
{
	// nft_meta_store_ifindex/ifname and nft_meta_bridge_get_eval: no break,
	// so a negated match on the missing device matches. (nft refuses the
	// empty string itself, `meta ibrname ""`: the bridge's own name, xbr0,
	// is what the negated wildcard tells apart.)
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge f {\n"
			   "  chain post { type filter hook postrouting priority 0;\n"
			   "    iifname != \"swp1\" oifname \"swp2\" drop\n"
			   "    meta ibrname != \"xbr*\" oifname \"swp3\" drop\n"
			   "  }\n"
			   "}\n") == 0);
	Outcome o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.egress.empty());
}

TEST_CASE("bridge nft: base chains of equal priority run newest first", "[nft]")
{
	// nf_hook_entries_grow puts a new hook before the first one whose
	// priority is not lower: the chain registered last runs first (the
	// conformance harness's corpus 126 shows Linux doing it).
	NftBridge b;
	REQUIRE(load(b.rs, "table bridge t {\n"
			   "  chain c1 { type filter hook forward priority 0; meta mark set 1; }\n"
			   "  chain c2 { type filter hook forward priority 0; meta mark 1 drop; }\n"
			   "}\n") == 0);
	Outcome o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	CHECK(egress_ports(o) == std::set<Port *>{b.p(2), b.p(3)});	// c2 first: mark 0
	REQUIRE(load(b.rs, "table bridge u {\n"
			   "  chain c3 { type filter hook forward priority 0; meta mark 1 drop; }\n"
			   "}\n") == 0);
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	CHECK(egress_ports(o) == std::set<Port *>{b.p(2), b.p(3)});	// c3, c2, then c1
	REQUIRE(load(b.rs, "table bridge v {\n"
			   "  chain c0 { type filter hook forward priority 0; meta mark set 1; }\n"
			   "}\n") == 0);
	o = b.send(b.p(1), make_frame(kBcast, host_mac(1)));
	CHECK(o.egress.empty());	// c0 marks first, then c3 drops
}

// ct avgpkt (nft_ct_get_eval's NFT_CT_AVGPKT): the connection's bytes over
// its packets, both directions or the one asked, counted by conntrack at
// prerouting, so the first packet's own length by the forward hook.
TEST_CASE("bridge nft: ct avgpkt is the connection's bytes per packet", "[nft][ct]")
{
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge fw {\n"
			   "  chain f { type filter hook forward priority 0;\n"
			   "    ct avgpkt 0 counter\n"
			   "    ct avgpkt 40 counter\n"
			   "    ct original avgpkt 1-100 counter\n"
			   "    ct reply avgpkt 0 counter\n"
			   "    ct avgpkt > 40 counter\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));	// ctf::frame's destination
	const std::vector<uint8_t> syn = tcp_syn(22);
	REQUIRE(syn.size() == 14 + 40);	// an IPv4 SYN without options
	Outcome o = b.send(b.p(1), syn);
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == xb::kCtStateNew);
	CHECK(xnft::test::rule_packets(b.rs, "fw", "f", 0) == 0);
	CHECK(xnft::test::rule_packets(b.rs, "fw", "f", 1) == 1);
	CHECK(xnft::test::rule_packets(b.rs, "fw", "f", 2) == 1);
	CHECK(xnft::test::rule_packets(b.rs, "fw", "f", 3) == 1);	// nothing replied yet
	CHECK(xnft::test::rule_packets(b.rs, "fw", "f", 4) == 0);
}

// A byte-aligned prefix on a conntrack address: nft compares only the
// prefix's bytes of the 4-byte register (a cmp shorter than the load, no
// bitwise), and the engine must take the short compare as nf_tables does.
TEST_CASE("bridge nft: a ct address prefix compares the prefix's bytes", "[nft][ct]")
{
	NftBridge b;
	REQUIRE(b.br->set_conntrack(true, nullptr) == 0);
	REQUIRE(load(b.rs, "table bridge fw {\n"
			   "  chain f { type filter hook forward priority 0;\n"
			   "    ct original ip saddr 10.0.0.0/8 counter\n"
			   "    ct original ip saddr 10.0.0.0/16 counter\n"
			   "    ct original ip saddr 10.0.0.0/24 counter\n"
			   "    ct original ip saddr 10.1.0.0/16 counter\n"
			   "    ct original ip saddr 11.0.0.0/8 counter\n"
			   "    ct original ip saddr != 10.0.1.0/24 counter\n"
			   "    ct reply ip saddr 10.0.0.0/24 counter\n"
			   "  }\n"
			   "}\n") == 0);
	b.learn(b.p(2), mac(0x02, 0, 0, 0, 0, 0x02));
	Outcome o = b.send(b.p(1), tcp_syn(22));	// 10.0.0.7 -> 10.0.0.8
	REQUIRE(o.v.kind == VerdictKind::Forward);
	const int want[] = {1, 1, 1, 0, 0, 1, 1};
	for (int i = 0; i < 7; i++) {
		INFO("rule " << i);
		CHECK(xnft::test::rule_packets(b.rs, "fw", "f", i) == uint64_t(want[i]));
	}
}
