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

#include "../../../core/tests/ct_frames.h"
#include "../../../core/tests/test_util.h"
#include "bridge_ct.h"
#include "engine_load.h"
#include "diagnostics.h"
#include "nft_ruleset.h"
#include "parser.h"
#include "wire.h"

namespace {

using namespace xbt;

int load(xb::nft::Ruleset &rs, const std::string &text)
{
	const xnft::LoadResult r = xnft::load_text(rs, text);
	INFO(r.lang_error << r.msg);
	return r.err;
}

struct NftBridge : BridgeFixture {
	xb::nft::Ruleset rs;

	NftBridge() : BridgeFixture(3)
	{
		REQUIRE(rs.init(nullptr) == 0);
		br->set_port_ifname(br->host(), "xbr0");
		br->set_port_ifname(p(1), "swp1");
		br->set_port_ifname(p(2), "swp2");
		br->set_port_ifname(p(3), "swp3");
		br->set_nft_ruleset(&rs);
	}
	~NftBridge()
	{
		br->set_nft_ruleset(nullptr);
		xb_synchronize_rcu();
		rs.fini();
	}
};

std::vector<uint8_t> tcp_syn(uint16_t dport)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = dport;
	t.flags = 0x02;
	t.win = 1000;
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 7), ctf::v4(10, 0, 0, 8), t));
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
