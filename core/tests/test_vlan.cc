// SPDX-License-Identifier: GPL-2.0
/*
 * test_vlan.cc - VLAN configuration and the VLAN rules of the datapath:
 * bridge/port defaults, vlan_add/vlan_del (ranges, flags, PVID, local FDB
 * entries), default_pvid and vlan_protocol options, VLAN ingress (PVID,
 * priority tags, membership, other TPIDs, per-VLAN state), VLAN egress
 * (membership, per-VLAN state, untagged/tagged), local delivery through
 * the host port's VLANs. Linux: net/bridge/br_vlan.c (__allowed_ingress,
 * br_allowed_egress, __vlan_add), selftests bridge_vlan_aware.sh and
 * bridge_vlan_unaware.sh.
 */
#include "test_util.h"

using namespace xbt;

namespace {

const MacKey kS1 = host_mac(0x1001);
const MacKey kS2 = host_mac(0x1002);

} // namespace

TEST_CASE("bridge create: host port, local entry, default VLAN 1", "[vlan][bridge]")
{
	BridgeFixture f(0);
	Port *h = f.host();
	REQUIRE(h != nullptr);
	CHECK(h->is_host);
	CHECK(h->addr == kBrAddr);
	CHECK(f.br->addr() == kBrAddr);
	CHECK(f.br->port_count() == 0);
	CHECK(!f.br->vlan_filtering());
	CHECK(f.br->vlan_protocol() == kEthP8021Q);
	CHECK(f.br->opts().default_pvid == 1);

	FdbSnap e = f.entry(kBrAddr, 0);
	CHECK((e.flags & kFdbLocal));
	CHECK((e.flags & kFdbStatic));
	CHECK(e.port == h);

	PortVlans vl = vlan_dump(h);
	CHECK(vl.pvid == 1);
	REQUIRE(vl.vlans.size() == 1);
	REQUIRE(vl.vlans.count(1));
	CHECK((vl.vlans[1].flags & kVlanUntagged));
}

TEST_CASE("add_port: default flags, state, VLAN and local entries", "[vlan][bridge]")
{
	BridgeFixture f(2);
	for (unsigned i = 1; i <= 2; i++) {
		Port *p = f.p(i);
		CAPTURE(i);
		CHECK(!p->is_host);
		CHECK(p->bridge == f.br);
		CHECK(p->ifindex == i);
		CHECK(p->addr == port_mac(i));
		CHECK(p->flag_bits() == kPortFlagsDefault);
		CHECK(p->port_state() == PortState::Forwarding);
		CHECK(f.br->find_port(i) == p);

		PortVlans vl = vlan_dump(p);
		CHECK(vl.pvid == 1);
		REQUIRE(vl.vlans.size() == 1);
		CHECK(vl.vlans[1].flags == kVlanUntagged);
		CHECK(PortState(vl.vlans[1].state) == PortState::Forwarding);

		for (uint16_t vid : {0, 1}) {
			CAPTURE(vid);
			FdbSnap e = f.entry(port_mac(i), vid);
			CHECK((e.flags & kFdbLocal));
			CHECK(e.port == p);
		}
	}
	CHECK(f.br->port_count() == 2);
	CHECK(f.br->find_port(99) == nullptr);
	CHECK(port_ifindexes(*f.br) == std::vector<uint32_t>{1, 2});
}

TEST_CASE("add_port: duplicate ifindex is refused", "[vlan][bridge]")
{
	BridgeFixture f(1);
	PortSetup ps{};
	ps.addr = port_mac(9);
	ps.ifindex = 1;
	Port *p = nullptr;
	CHECK(f.br->add_port(ps, &p, nullptr) < 0);
	CHECK(f.br->port_count() == 1);
}

TEST_CASE("vlan_add: ranges, flags, PVID moves, local entries", "[vlan]")
{
	BridgeFixture f(2);
	Port *p = f.p(1);

	REQUIRE(f.br->vlan_add(p, 10, 20, 0, nullptr) == 0);
	PortVlans vl = vlan_dump(p);
	CHECK(vl.pvid == 1);
	CHECK(vl.vlans.size() == 12);
	CHECK(p->vlans.count() == 12);
	for (uint16_t vid = 10; vid <= 20; vid++) {
		CAPTURE(vid);
		REQUIRE(vl.vlans.count(vid));
		CHECK(vl.vlans[vid].flags == 0);
		CHECK(PortState(vl.vlans[vid].state) == PortState::Forwarding);
		PortVlan *v = f.pv(p, vid);
		REQUIRE(v != nullptr);
		CHECK(v->vid == vid);
		CHECK(v->port == p);
		/* the port's address is local in each of its VLANs */
		FdbSnap e = f.entry(port_mac(1), vid);
		CHECK((e.flags & kFdbLocal));
		CHECK(e.port == p);
	}
	CHECK(f.pv(p, 9) == nullptr);
	CHECK(f.pv(p, 21) == nullptr);
	CHECK(!f.has(port_mac(1), 21));
	/* the other port is untouched */
	CHECK(vlan_dump(f.p(2)).vlans.size() == 1);

	SECTION("PVID moves to a VLAN given the pvid flag")
	{
		REQUIRE(f.br->vlan_add(p, 15, 15, kVlanPvid | kVlanUntagged, nullptr) == 0);
		vl = vlan_dump(p);
		CHECK(vl.pvid == 15);
		CHECK(vl.vlans[15].flags == kVlanUntagged);
		CHECK(vl.vlans.count(1));	/* VLAN 1 stays, no longer PVID */

		SECTION("re-adding an existing VID replaces its flags (bridge vlan add)")
		{
			REQUIRE(f.br->vlan_add(p, 15, 15, 0, nullptr) == 0);
			vl = vlan_dump(p);
			CHECK(vl.vlans[15].flags == 0);
			CHECK(vl.pvid == 0);	/* __vlan_add_flags: no pvid flag -> not PVID */
			CHECK(vl.vlans.size() == 12);
		}
		SECTION("deleting the PVID VLAN leaves no PVID")
		{
			REQUIRE(f.br->vlan_del(p, 15, 15, nullptr) == 0);
			CHECK(vlan_dump(p).pvid == 0);
			CHECK(f.pv(p, 15) == nullptr);
		}
	}

	SECTION("vlan_del of a range removes the VLANs and their local entries")
	{
		REQUIRE(f.br->vlan_del(p, 12, 18, nullptr) == 0);
		vl = vlan_dump(p);
		CHECK(vl.vlans.size() == 5);
		for (uint16_t vid = 10; vid <= 20; vid++) {
			CAPTURE(vid);
			bool kept = vid < 12 || vid > 18;
			CHECK((f.pv(p, vid) != nullptr) == kept);
			CHECK(f.has(port_mac(1), vid) == kept);
		}
		CHECK(f.has(port_mac(1), 0));
		CHECK(f.has(port_mac(1), 1));
	}

	SECTION("vlan_del skips VIDs the port does not have (br_vlan_info)")
	{
		/* `bridge vlan del` of a missing VID succeeds on Linux. */
		FdbDump before = fdb_dump(*f.br);
		auto vbefore = all_vlans(*f.br);
		CHECK(f.br->vlan_del(p, 30, 30, nullptr) == 0);
		CHECK(all_vlans(*f.br) == vbefore);
		CHECK(fdb_dump(*f.br) == before);
		/* a range with holes deletes what is there */
		CHECK(f.br->vlan_del(p, 19, 25, nullptr) == 0);
		CHECK(f.pv(p, 19) == nullptr);
		CHECK(f.pv(p, 20) == nullptr);
		CHECK(f.pv(p, 18) != nullptr);
		CHECK(!f.has(port_mac(1), 20));
	}

	SECTION("invalid VIDs and ranges are refused and change nothing")
	{
		FdbDump before = fdb_dump(*f.br);
		auto vbefore = all_vlans(*f.br);
		CHECK(f.br->vlan_add(p, 0, 0, 0, nullptr) == -kEINVAL);
		CHECK(f.br->vlan_add(p, 4095, 4095, 0, nullptr) == -kEINVAL);
		CHECK(f.br->vlan_add(p, 4000, 4095, 0, nullptr) == -kEINVAL);
		CHECK(f.br->vlan_add(p, 0, 5, 0, nullptr) == -kEINVAL);
		CHECK(f.br->vlan_add(p, 30, 25, 0, nullptr) == -kEINVAL);
		CHECK(f.br->vlan_del(p, 0, 0, nullptr) < 0);
		CHECK(all_vlans(*f.br) == vbefore);
		CHECK(fdb_dump(*f.br) == before);
	}

	SECTION("VLAN state: valid states accepted, others refused")
	{
		for (uint8_t s = 0; s <= kPortStateMax; s++) {
			CAPTURE(int(s));
			CHECK(f.br->vlan_set_state(p, 10, s, nullptr) == 0);
			CHECK(f.pv(p, 10)->state == s);
		}
		CHECK(f.br->vlan_set_state(p, 10, kPortStateMax + 1, nullptr) < 0);
		CHECK(f.br->vlan_set_state(p, 30, uint8_t(PortState::Forwarding), nullptr) < 0);
	}
}

TEST_CASE("bridge VLANs live on the host port", "[vlan]")
{
	BridgeFixture f(1);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
	CHECK(f.pv(f.host(), 10) != nullptr);
	CHECK(f.pv(f.host(), 10)->port == f.host());
	/* not on the other ports */
	CHECK(f.pv(f.p(1), 10) == nullptr);
	/* the bridge address becomes local in the bridge's VLAN (__vlan_add) */
	FdbSnap e = f.entry(kBrAddr, 10);
	CHECK((e.flags & kFdbLocal));
	CHECK(e.port == f.host());
}

TEST_CASE("default_pvid", "[vlan][options]")
{
	BridgeFixture f(1);
	SECTION("changed with filtering off: new ports get it as PVID+untagged")
	{
		REQUIRE(f.br->set_default_pvid(10, nullptr) == 0);
		CHECK(f.br->opts().default_pvid == 10);
		Port *p = f.add(2);
		PortVlans vl = vlan_dump(p);
		CHECK(vl.pvid == 10);
		REQUIRE(vl.vlans.count(10));
		CHECK(vl.vlans[10].flags == kVlanUntagged);
		CHECK(!vl.vlans.count(1));
		CHECK(f.has(port_mac(2), 10));
	}
	SECTION("0: new ports get no VLAN")
	{
		REQUIRE(f.br->set_default_pvid(0, nullptr) == 0);
		Port *p = f.add(2);
		PortVlans vl = vlan_dump(p);
		CHECK(vl.pvid == 0);
		CHECK(vl.vlans.empty());
		CHECK(f.has(port_mac(2), 0));	/* vid 0 local entry is always there */
	}
	SECTION("changed while filtering too (netlink: __br_vlan_set_default_pvid)")
	{
		REQUIRE(f.br->set_vlan_filtering(true, nullptr) == 0);
		CHECK(f.br->set_default_pvid(10, nullptr) == 0);
		CHECK(f.br->opts().default_pvid == 10);
		CHECK(vlan_dump(f.p(1)).pvid == 10);
		CHECK(f.pv(f.p(1), 1) == nullptr);
	}
	SECTION("invalid VIDs refused")
	{
		CHECK(f.br->set_default_pvid(4095, nullptr) < 0);
		CHECK(f.br->set_default_pvid(5000, nullptr) < 0);
		CHECK(f.br->opts().default_pvid == 1);
	}
}

TEST_CASE("vlan_protocol accepts only 802.1Q and 802.1ad", "[vlan][options]")
{
	BridgeFixture f(1);
	CHECK(f.br->set_vlan_protocol(kEthP8021AD, nullptr) == 0);
	CHECK(f.br->vlan_protocol() == kEthP8021AD);
	CHECK(f.br->set_vlan_protocol(kEthPIpv4, nullptr) < 0);
	CHECK(f.br->vlan_protocol() == kEthP8021AD);
	CHECK(f.br->set_vlan_protocol(kEthP8021Q, nullptr) == 0);
	CHECK(f.br->vlan_protocol() == kEthP8021Q);
}

/*
 * Ingress port membership used by the ingress table:
 *   p1: 1 PVID untagged, 10 tagged
 *   p2: 1 PVID untagged, 10 tagged
 *   p3: 10 PVID untagged (VLAN 1 deleted)
 *   p4: no VLAN at all (no PVID)
 */
static void setup_ingress_ports(BridgeFixture &f)
{
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_del(f.p(3), 1, 1, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(3), 10, 10, kVlanPvid | kVlanUntagged, nullptr) == 0);
	REQUIRE(f.br->vlan_del(f.p(4), 1, 1, nullptr) == 0);
}

TEST_CASE("VLAN ingress classification (filtering on, 802.1Q bridge)", "[vlan][ingress]")
{
	BridgeFixture f(4, true);
	setup_ingress_ports(f);

	struct Row {
		const char *name;
		unsigned in;
		std::vector<Tag> tags;
		VerdictKind kind;
		DropReason reason;
		uint16_t vid;
	};
	const std::vector<Row> rows = {
		{"untagged takes PVID", 1, {}, VerdictKind::Flood, DropReason::None, 1},
		{"priority tag takes PVID", 1, {q(0, 3)}, VerdictKind::Flood, DropReason::None, 1},
		{"tagged with PCP", 1, {q(10, 5)}, VerdictKind::Flood, DropReason::None, 10},
		{"tagged member VID", 1, {q(10)}, VerdictKind::Flood, DropReason::None, 10},
		{"tagged non-member VID", 1, {q(30)}, VerdictKind::Drop, DropReason::VlanNotMember, 0},
		{"tagged VID 1 member", 1, {q(1)}, VerdictKind::Flood, DropReason::None, 1},
		{"802.1ad tag is payload: PVID", 1, {ad(10)}, VerdictKind::Flood, DropReason::None, 1},
		{"802.1ad non-member VID is payload", 1, {ad(30)}, VerdictKind::Flood, DropReason::None, 1},
		{"other PVID", 3, {}, VerdictKind::Flood, DropReason::None, 10},
		{"VID 1 on port without VLAN 1", 3, {q(1)}, VerdictKind::Drop, DropReason::VlanNotMember, 0},
		{"untagged without PVID", 4, {}, VerdictKind::Drop, DropReason::NoPvid, 0},
		{"priority tag without PVID", 4, {q(0)}, VerdictKind::Drop, DropReason::NoPvid, 0},
		{"802.1ad without PVID", 4, {ad(10)}, VerdictKind::Drop, DropReason::NoPvid, 0},
		{"tagged on port without VLANs", 4, {q(10)}, VerdictKind::Drop, DropReason::VlanNotMember, 0},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		f.log.clear();
		std::vector<uint8_t> fr = make_frame(kBcast, kS1, r.tags);
		Outcome o = f.send(f.p(r.in), fr);
		CAPTURE(describe(o));
		CHECK(o.v.kind == r.kind);
		if (r.kind == VerdictKind::Drop) {
			CHECK(o.v.reason == r.reason);
			CHECK(f.log.size() == 0);	/* nothing learned */
		} else {
			CHECK(o.v.vid == r.vid);
			/* PCP is kept, also for priority-tagged frames (__allowed_ingress) */
			CHECK(o.v.pcp_dei == (r.tags.empty() || r.tags[0].tpid != kEthP8021Q ? 0 : r.tags[0].pcp << 1));
			/* learned in the classified VLAN, on the ingress port */
			CHECK(f.entry(kS1, r.vid).port == f.p(r.in));
			FdbFilter dyn;
			dyn.flags_clear = kFdbStatic;
			CHECK(f.br->fdb_flush(dyn) == 1);
			CHECK(!f.has(kS1, r.vid));
		}
	}
}

TEST_CASE("VLAN ingress: out-of-band tag", "[vlan][ingress]")
{
	BridgeFixture f(4, true);
	setup_ingress_ports(f);
	std::vector<uint8_t> fr = make_frame(kBcast, kS1);
	Outcome o = f.send(f.p(1), fr, OobTag{true, kEthP8021Q, 10});
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 10);
	o = f.send(f.p(1), fr, OobTag{true, kEthP8021Q, 30});
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::VlanNotMember);
	/* another TPID out of band: untagged for the bridge -> PVID */
	o = f.send(f.p(1), fr, OobTag{true, kEthP8021AD, 30});
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 1);
}

TEST_CASE("VLAN ingress with an 802.1ad bridge (other_tpid)", "[vlan][ingress]")
{
	BridgeFixture f(4, true);
	setup_ingress_ports(f);
	REQUIRE(f.br->set_vlan_protocol(kEthP8021AD, nullptr) == 0);

	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {ad(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 10);
	CHECK(o.v.tag_proto == kEthP8021AD);
	REQUIRE(o.to(f.p(2)));
	CHECK(o.tag_to(f.p(2)) == TagAction::Tag);
	CHECK(o.tag_to(f.p(3)) == TagAction::Untag);

	/* an 802.1Q tag is payload now: the frame takes the PVID */
	o = f.send(f.p(1), make_frame(kBcast, kS2, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 1);
	CHECK(o.to(f.p(2)));
	CHECK(o.tag_to(f.p(2)) == TagAction::Untag);
	CHECK(!o.to(f.p(3)));
}

TEST_CASE("per-VLAN state overrides a forwarding port", "[vlan][ingress][state]")
{
	struct Row {
		PortState vstate;
		VerdictKind kind;
		DropReason reason;
		bool learns;
	};
	const Row rows[] = {
		{PortState::Forwarding, VerdictKind::Flood, DropReason::None, true},
		{PortState::Learning, VerdictKind::Drop, DropReason::LearningOnly, true},
		{PortState::Listening, VerdictKind::Drop, DropReason::VlanState, false},
		{PortState::Blocking, VerdictKind::Drop, DropReason::VlanState, false},
		{PortState::Disabled, VerdictKind::Drop, DropReason::VlanState, false},
	};
	for (const Row &r : rows) {
		for (bool pvid_path : {false, true}) {
			CAPTURE(int(r.vstate), pvid_path);
			BridgeFixture f(3, true);
			REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
			REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
			uint16_t vid = pvid_path ? 1 : 10;
			REQUIRE(f.br->vlan_set_state(f.p(1), vid, uint8_t(r.vstate), nullptr) == 0);
			f.log.clear();
			std::vector<uint8_t> fr = pvid_path ? make_frame(kBcast, kS1)
							    : make_frame(kBcast, kS1, {q(10)});
			Outcome o = f.send(f.p(1), fr);
			CAPTURE(describe(o));
			CHECK(o.v.kind == r.kind);
			if (r.kind == VerdictKind::Drop)
				CHECK(o.v.reason == r.reason);
			CHECK(f.has(kS1, vid) == r.learns);
			if (r.learns) {
				CHECK(f.entry(kS1, vid).port == f.p(1));
				CHECK(f.log.count(FdbEventType::Created, FdbReason::Learned) == 1);
			} else {
				CHECK(f.log.size() == 0);
			}
			/* the other VLAN of the port is unaffected */
			uint16_t other = pvid_path ? 10 : 1;
			std::vector<uint8_t> fr2 = pvid_path ? make_frame(kBcast, kS2, {q(10)})
							     : make_frame(kBcast, kS2);
			o = f.send(f.p(1), fr2);
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(o.v.vid == other);
		}
	}
}

TEST_CASE("VLAN egress: membership, state and tagging", "[vlan][egress]")
{
	BridgeFixture f(4, true);
	/* p1: 1 PVID U, 10 T; p2: 1 PVID U, 10 T; p3: 1 PVID U, 10 U; p4: 1 PVID U */
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(3), 10, 10, kVlanUntagged, nullptr) == 0);

	SECTION("flood in VLAN 10 reaches members only, tagged or untagged")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10, 5)}));
		CAPTURE(describe(o));
		REQUIRE(o.v.kind == VerdictKind::Flood);
		CHECK(o.v.vid == 10);
		CHECK(o.v.tag_proto == kEthP8021Q);
		CHECK(o.v.pcp_dei == 5 << 1);
		CHECK(o.egress.size() == 2);
		CHECK(o.tag_to(f.p(2)) == TagAction::Tag);
		CHECK(o.tag_to(f.p(3)) == TagAction::Untag);
		CHECK(!o.to(f.p(4)));
		CHECK(!o.to(f.p(1)));
		/* the DEI bit is kept with the PCP (found by the conformance
		 * harness: Linux keeps the whole TCI) */
		std::vector<uint8_t> fr = make_frame(kBcast, kS1, {q(10, 5)});
		fr[14] |= 0x10;
		o = f.send(f.p(1), fr);
		CHECK(o.v.pcp_dei == ((5 << 1) | 1));
	}
	SECTION("flood in VLAN 1 from an untagged frame")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CAPTURE(describe(o));
		REQUIRE(o.v.kind == VerdictKind::Flood);
		CHECK(o.v.vid == 1);
		CHECK(o.egress.size() == 3);
		for (unsigned i : {2u, 3u, 4u})
			CHECK(o.tag_to(f.p(i)) == TagAction::Untag);
	}
	SECTION("VLAN 1 made tagged on p4")
	{
		REQUIRE(f.br->vlan_add(f.p(4), 1, 1, kVlanPvid, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.tag_to(f.p(4)) == TagAction::Tag);
		CHECK(o.v.tag_proto == kEthP8021Q);
	}
	SECTION("per-VLAN egress state other than forwarding excludes the port")
	{
		for (PortState s : {PortState::Learning, PortState::Blocking, PortState::Listening,
				    PortState::Disabled}) {
			CAPTURE(int(s));
			REQUIRE(f.br->vlan_set_state(f.p(2), 10, uint8_t(s), nullptr) == 0);
			Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(!o.to(f.p(2)));
			CHECK(o.to(f.p(3)));
			/* VLAN 1 on p2 is still forwarding */
			o = f.send(f.p(1), make_frame(kBcast, kS1));
			CHECK(o.to(f.p(2)));
		}
	}
	SECTION("known unicast to a port whose VLAN is not forwarding: NoEgress")
	{
		f.learn(f.p(2), kS2, {q(10)});
		REQUIRE(f.entry(kS2, 10).port == f.p(2));
		Outcome o = f.send(f.p(1), make_frame(kS2, kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(o.tag_to(f.p(2)) == TagAction::Tag);
		REQUIRE(f.br->vlan_set_state(f.p(2), 10, uint8_t(PortState::Blocking), nullptr) == 0);
		o = f.send(f.p(1), make_frame(kS2, kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::NoEgress);
	}
	SECTION("known unicast to a port that left the VLAN: NoEgress")
	{
		/* a static entry survives the VLAN deletion in port form */
		REQUIRE(f.br->fdb_add(kS2, 10, f.p(3), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kS2, kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(o.tag_to(f.p(3)) == TagAction::Untag);
		REQUIRE(f.br->vlan_del(f.p(3), 10, 10, nullptr) == 0);
		o = f.send(f.p(1), make_frame(kS2, kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::NoEgress);
	}
}

TEST_CASE("VLAN filtering off: VID 0 everywhere, tags kept", "[vlan][unaware]")
{
	BridgeFixture f(3, false);
	/* membership is irrelevant without filtering */
	REQUIRE(f.br->vlan_del(f.p(3), 1, 1, nullptr) == 0);
	for (auto tags : {std::vector<Tag>{}, std::vector<Tag>{q(10)}, std::vector<Tag>{ad(20)},
			  std::vector<Tag>{q(0)}}) {
		CAPTURE(tags.size());
		std::vector<uint8_t> fr = make_frame(kBcast, kS1, tags);
		Outcome o = f.send(f.p(1), fr);
		CAPTURE(describe(o));
		REQUIRE(o.v.kind == VerdictKind::Flood);
		CHECK(o.v.vid == 0);
		CHECK(o.egress.size() == 2);
		CHECK(o.tag_to(f.p(2)) == TagAction::Keep);
		CHECK(o.tag_to(f.p(3)) == TagAction::Keep);
		CHECK(o.local);
		CHECK(o.local_tag == TagAction::Keep);
		CHECK(f.entry(kS1, 0).port == f.p(1));
		CHECK(!f.has(kS1, 10));
	}
	/* unicast learned at vid 0 is found whatever the tag */
	f.learn(f.p(2), kS2, {q(7)});
	Outcome o = f.send(f.p(1), make_frame(kS2, kS1, {q(99)}));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.tag_to(f.p(2)) == TagAction::Keep);
}

TEST_CASE("local delivery follows the host port's VLANs", "[vlan][local]")
{
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);

	SECTION("broadcast in the host's VLAN 1: local copy untagged")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.local);
		CHECK(o.local_tag == TagAction::Untag);
	}
	SECTION("broadcast in VLAN 10, host not a member: no local copy")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.to(f.p(2)));
		CHECK(!o.local);
	}
	SECTION("broadcast in VLAN 10 once the host is a tagged member")
	{
		REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
		CHECK(o.local);
		CHECK(o.local_tag == TagAction::Tag);
		CHECK(o.v.vid == 10);
	}
	SECTION("unicast to the bridge address in VLAN 1: Local, untagged")
	{
		Outcome o = f.send(f.p(1), make_frame(kBrAddr, kS1));
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(o.local_tag == TagAction::Untag);
		CHECK(o.egress.empty());
	}
	SECTION("unicast to a port address in a VLAN the host lacks: HostVlan")
	{
		/* p2 is in VLAN 10, so port_mac(2)@10 is local; the host is not */
		REQUIRE(f.has(port_mac(2), 10));
		Outcome o = f.send(f.p(1), make_frame(port_mac(2), kS1, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::HostVlan);
		/* and the same address in VLAN 1 is delivered */
		o = f.send(f.p(1), make_frame(port_mac(2), kS1));
		CHECK(o.v.kind == VerdictKind::Local);
	}
	SECTION("host VLAN 1 not forwarding: no local delivery")
	{
		REQUIRE(f.br->vlan_set_state(f.host(), 1, uint8_t(PortState::Blocking), nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(!o.local);
		o = f.send(f.p(1), make_frame(kBrAddr, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::HostVlan);
	}
}

TEST_CASE("frames from the bridge device use the host port's VLANs", "[vlan][host]")
{
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);

	Outcome o = f.send(f.host(), make_frame(kBcast, kBrAddr));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 1);
	CHECK(o.egress.size() == 3);

	o = f.send(f.host(), make_frame(kBcast, kBrAddr, {q(10)}));
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 10);
	CHECK(o.egress.size() == 1);
	CHECK(o.tag_to(f.p(1)) == TagAction::Tag);

	o = f.send(f.host(), make_frame(kBcast, kBrAddr, {q(20)}));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::VlanNotMember);
}

TEST_CASE("vlan_filtering toggles the datapath at once", "[vlan][options]")
{
	BridgeFixture f(2, false);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.vid == 0);
	REQUIRE(f.br->set_vlan_filtering(true, nullptr) == 0);
	CHECK(f.br->vlan_filtering());
	o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::VlanNotMember);
	REQUIRE(f.br->set_vlan_filtering(false, nullptr) == 0);
	o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
}

TEST_CASE("default_pvid change moves ports still on the old default", "[vlan][options]")
{
	/* __br_vlan_set_default_pvid: only ports whose PVID is the old default
	 * (untagged) and that do not already have the new VID */
	BridgeFixture f(3);
	REQUIRE(f.br->vlan_add(f.p(2), 5, 5, kVlanPvid | kVlanUntagged, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(3), 10, 10, 0, nullptr) == 0);
	PortVlans p2 = vlan_dump(f.p(2)), p3 = vlan_dump(f.p(3));
	REQUIRE(f.br->set_default_pvid(10, nullptr) == 0);

	for (Port *p : {f.host(), f.p(1)}) {
		CAPTURE(p->ifindex);
		PortVlans vl = vlan_dump(p);
		CHECK(vl.pvid == 10);
		CHECK(vl.vlans.size() == 1);
		REQUIRE(vl.vlans.count(10));
		CHECK(vl.vlans[10].flags == kVlanUntagged);
	}
	CHECK(vlan_dump(f.p(2)) == p2);
	CHECK(vlan_dump(f.p(3)) == p3);
	CHECK(!f.has(port_mac(1), 1));
	CHECK(f.has(port_mac(1), 10));
	CHECK(f.has(kBrAddr, 10));
	CHECK(!f.has(kBrAddr, 1));
}

TEST_CASE("default_pvid from 0 gives the new PVID to ports lacking it", "[vlan][options]")
{
	/* __br_vlan_set_default_pvid with old_pvid 0: every port (and the
	 * bridge) without the new VID gets it as PVID+untagged */
	BridgeFixture f(0);
	REQUIRE(f.br->set_default_pvid(0, nullptr) == 0);
	f.add(1);
	f.add(2);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	REQUIRE(vlan_dump(f.p(1)).vlans.empty());
	PortVlans p2 = vlan_dump(f.p(2));
	REQUIRE(f.br->set_default_pvid(10, nullptr) == 0);
	PortVlans vl = vlan_dump(f.p(1));
	CHECK(vl.pvid == 10);
	CHECK(vl.vlans.count(10));
	CHECK(vlan_dump(f.p(2)) == p2);	/* already had VLAN 10: left alone */
}

TEST_CASE("promiscuous bridge: local copies ignore the host's VLANs", "[vlan][local][promisc]")
{
	/* br_pass_frame_up: "the packet is allowed except in promisc mode";
	 * br_handle_vlan passes it as is then */
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	f.br->set_promisc(true);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.local);
	o = f.send(f.p(1), make_frame(port_mac(2), kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Local);
}

TEST_CASE("per-VLAN rx counters", "[vlan][stats]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(port_vlan_stats(f.pv(f.p(1), 10)).rx_packets == 0);	/* off by default */
	f.br->set_vlan_stats(true);
	for (int i = 0; i < 3; i++)
		f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(port_vlan_stats(f.pv(f.p(1), 10)).rx_packets == 3);
	CHECK(port_vlan_stats(f.pv(f.p(1), 10)).rx_bytes > 0);
	CHECK(port_vlan_stats(f.pv(f.p(1), 1)).rx_packets == 1);
	/* vlan_stats_per_port 0 (Linux's default): one set per VID, which
	 * every member shows, the bridge device too */
	CHECK(port_vlan_stats(f.pv(f.p(2), 10)).rx_packets == 3);
	CHECK(f.pv(f.p(1), 10)->shares_stats);
}

TEST_CASE("per-VLAN tx counters and bytes as Linux counts them", "[vlan][stats]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.br->host(), 10, 10, 0, nullptr) == 0);
	f.br->set_vlan_stats(true);
	std::vector<uint8_t> fr = make_frame(kBcast, kS1, {q(10)});
	const uint64_t payload = fr.size() - 14 - 4;	/* no Ethernet header, tag out of band */
	Outcome o = f.send(f.p(1), fr);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	REQUIRE(o.local);
	/* one rx (p1), a tx per copy: p2, p3 and the bridge device */
	VlanStats st = port_vlan_stats(f.pv(f.p(1), 10));
	CHECK(st.rx_packets == 1);
	CHECK(st.rx_bytes == payload);
	CHECK(st.tx_packets == 3);
	CHECK(st.tx_bytes == 3 * payload);
	/* unicast to a learned address: one more rx and one tx */
	f.learn(f.p(2), host_mac(0x7b01), {q(10)});
	o = f.send(f.p(1), make_frame(host_mac(0x7b01), kS1, {q(10)}));
	REQUIRE(o.v.kind == VerdictKind::Forward);
	st = port_vlan_stats(f.pv(f.p(3), 10));	/* shared: any member's view */
	CHECK(st.rx_packets == 3);
	CHECK(st.tx_packets == 3 + 3 + 1);	/* the learning broadcast: p1, p3 and up */
}

TEST_CASE("per-port VLAN counters: vlan_stats_per_port", "[vlan][stats]")
{
	BridgeFixture f(2, true);
	/* ports carry the default PVID's VLAN: Linux refuses too (EBUSY) */
	Extack ack;
	CHECK(f.br->set_vlan_stats_per_port(true, &ack) == -kEBUSY);
	CHECK(ack.msg);
	CHECK(!f.br->opts().vlan_stats_per_port);
	for (unsigned i = 1; i <= 2; i++)
		REQUIRE(f.br->vlan_del(f.p(i), 1, 1, nullptr) == 0);
	REQUIRE(f.br->set_vlan_stats_per_port(true, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.br->host(), 10, 10, 0, nullptr) == 0);
	CHECK(!f.pv(f.p(1), 10)->shares_stats);
	CHECK(f.pv(f.br->host(), 10)->shares_stats);	/* the bridge's own */
	f.br->set_vlan_stats(true);
	for (int i = 0; i < 3; i++)
		f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	CHECK(port_vlan_stats(f.pv(f.p(1), 10)).rx_packets == 3);
	CHECK(port_vlan_stats(f.pv(f.p(2), 10)).rx_packets == 0);
	/* and back, once no port has a VLAN */
	CHECK(f.br->set_vlan_stats_per_port(false, nullptr) == -kEBUSY);
	REQUIRE(f.br->vlan_del(f.p(1), 10, 10, nullptr) == 0);
	REQUIRE(f.br->vlan_del(f.p(2), 10, 10, nullptr) == 0);
	CHECK(f.br->set_vlan_stats_per_port(false, nullptr) == 0);
}

TEST_CASE("shared VLAN counters live while a member does, and start afresh", "[vlan][stats]")
{
	BridgeFixture f(2, true);
	f.br->set_vlan_stats(true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	REQUIRE(f.br->vlan_del(f.p(1), 10, 10, nullptr) == 0);
	CHECK(port_vlan_stats(f.pv(f.p(2), 10)).rx_packets == 1);	/* p2 still holds them */
	REQUIRE(f.br->vlan_del(f.p(2), 10, 10, nullptr) == 0);
	xb_rcu_barrier();	/* the last reference went: freed */
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	CHECK(port_vlan_stats(f.pv(f.p(2), 10)).rx_packets == 0);
	/* a port leaving releases its references */
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	f.send(f.p(1), make_frame(kBcast, kS1, {q(10)}));
	f.br->remove_port(f.p(1));
	f.ports[0] = nullptr;
	CHECK(port_vlan_stats(f.pv(f.p(2), 10)).rx_packets == 1);
}
