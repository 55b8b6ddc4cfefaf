// SPDX-License-Identifier: GPL-2.0
/*
 * test_forward.cc - the forwarding decision: ingress order (truncation,
 * source checks, link-local groups and group_fwd_mask, port state),
 * destination classes (broadcast, multicast, known/unknown unicast, local
 * addresses, promisc), flood flags (and their exemption for frames the
 * bridge sends), hairpin, port isolation, locked ports and MAB, drop
 * counters, recycled verdicts and decide_batch() equivalence.
 * Linux: net/bridge/br_input.c (br_handle_frame, br_handle_frame_finish),
 * br_forward.c (should_deliver, br_flood), br_device.c (br_dev_xmit),
 * br_netlink.c (br_setport); selftests bridge_vlan_unaware.sh,
 * bridge_port_isolation.sh, bridge_locked_port.sh.
 */
#include "test_util.h"

using namespace xbt;

namespace {

const MacKey kS1 = host_mac(0x4001);
const MacKey kS2 = host_mac(0x4002);
const MacKey kS3 = host_mac(0x4003);
const MacKey kS4 = host_mac(0x4004);
const MacKey kUnknown = host_mac(0x4fff);

bool same_verdict(const Verdict &a, const Verdict &b)
{
	return a.kind == b.kind && a.reason == b.reason && a.flood_class == b.flood_class &&
	       a.local_too == b.local_too && a.vid == b.vid && a.tag_proto == b.tag_proto &&
	       a.pcp_dei == b.pcp_dei && a.src_isolated == b.src_isolated && a.ingress == b.ingress &&
	       a.out.port == b.out.port && a.out.tag == b.out.tag &&
	       a.local.port == b.local.port && a.local.tag == b.local.tag;
}

std::string dump_verdict(const Verdict &v)
{
	char buf[256];
	snprintf(buf, sizeof(buf),
		 "kind=%d reason=%d fclass=%d local_too=%d vid=%u proto=%04x pcp=%u iso=%d "
		 "in=%p out=%p/%d local=%p/%d",
		 int(v.kind), int(v.reason), int(v.flood_class), int(v.local_too), v.vid,
		 v.tag_proto, v.pcp_dei, int(v.src_isolated), (void *)v.ingress, (void *)v.out.port,
		 int(v.out.tag), (void *)v.local.port, int(v.local.tag));
	return buf;
}

} // namespace

TEST_CASE("ingress order: truncation, source checks, link-local groups", "[forward][ingress]")
{
	BridgeFixture f(3);
	struct Row {
		const char *name;
		std::vector<uint8_t> frame;
		VerdictKind kind;
		DropReason reason;
		FloodClass fclass;
		bool learns;
	};
	std::vector<uint8_t> shorty = make_frame(kBcast, kS1, {}, kEthPIpv4, 0);
	shorty.resize(13);
	std::vector<uint8_t> short_tag = make_frame(kBcast, kS1, {q(10)}, kEthPIpv4, 0);
	short_tag.resize(16);	/* announces a tag it does not carry */
	const std::vector<Row> rows = {
		{"13 bytes", shorty, VerdictKind::Drop, DropReason::Truncated, FloodClass::Unicast, false},
		{"cut VLAN header", short_tag, VerdictKind::Drop, DropReason::Truncated, FloodClass::Unicast, false},
		{"multicast source", make_frame(kBcast, kMcast), VerdictKind::Drop, DropReason::SourceInvalid, FloodClass::Unicast, false},
		{"broadcast source", make_frame(kS2, kBcast), VerdictKind::Drop, DropReason::SourceInvalid, FloodClass::Unicast, false},
		{"zero source", make_frame(kBcast, 0), VerdictKind::Drop, DropReason::SourceInvalid, FloodClass::Unicast, false},
		{"zero source to pause", make_frame(link_local(1), 0), VerdictKind::Drop, DropReason::SourceInvalid, FloodClass::Unicast, false},
		{"pause", make_frame(link_local(1), kS1), VerdictKind::Drop, DropReason::LinkLocalPause, FloodClass::Unicast, false},
		{"STP group 00: forwarded (no STP)", make_frame(link_local(0), kS1), VerdictKind::Flood, DropReason::None, FloodClass::Multicast, true},
		{"LACP 02: port stack", make_frame(link_local(2), kS1), VerdictKind::PortStack, DropReason::None, FloodClass::Unicast, true},
		{"03 (802.1X): port stack", make_frame(link_local(3), kS1), VerdictKind::PortStack, DropReason::None, FloodClass::Unicast, true},
		{"LLDP 0e: port stack", make_frame(link_local(0xe), kS1), VerdictKind::PortStack, DropReason::None, FloodClass::Unicast, true},
		{"0f: port stack", make_frame(link_local(0xf), kS1), VerdictKind::PortStack, DropReason::None, FloodClass::Unicast, true},
		{"01:80:c2:00:00:10 is not link-local", make_frame(mac(0x01, 0x80, 0xc2, 0, 0, 0x10), kS1), VerdictKind::Flood, DropReason::None, FloodClass::Multicast, true},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		f.log.clear();
		uint64_t drops_before = r.kind == VerdictKind::Drop ? port_drops(f.p(1), r.reason) : 0;
		Outcome o = f.send(f.p(1), r.frame);
		CAPTURE(describe(o));
		CHECK(o.v.kind == r.kind);
		if (r.kind == VerdictKind::Drop) {
			CHECK(o.v.reason == r.reason);
			CHECK(port_drops(f.p(1), r.reason) == drops_before + 1);
		}
		if (r.kind == VerdictKind::Flood) {
			CHECK(o.v.flood_class == r.fclass);
			CHECK(o.v.local_too);
			CHECK(o.egress.size() == 2);
		}
		if (r.kind == VerdictKind::PortStack)
			CHECK(o.egress.empty());
		if (r.learns) {
			CHECK(f.has(kS1, 0));
			CHECK(f.entry(kS1, 0).port == f.p(1));
		} else {
			CHECK(f.log.size() == 0);
		}
		FdbFilter dyn;
		dyn.flags_clear = kFdbStatic;
		f.br->fdb_flush(dyn);
	}
}

TEST_CASE("group_fwd_mask", "[forward][ingress]")
{
	BridgeFixture f(3);
	SECTION("bits 0, 1 and 2 are refused")
	{
		for (uint16_t bit : {0, 1, 2}) {
			CAPTURE(bit);
			CHECK(f.br->set_group_fwd_mask(uint16_t(1u << bit), nullptr) == -kEINVAL);
			CHECK(f.br->set_group_fwd_mask(uint16_t((1u << bit) | (1u << 14)), nullptr) == -kEINVAL);
			CHECK(f.br->opts().group_fwd_mask == 0);
		}
	}
	SECTION("a set bit forwards that group; others still go to the port stack")
	{
		REQUIRE(f.br->set_group_fwd_mask(uint16_t(1u << 14 | 1u << 3), nullptr) == 0);
		CHECK(f.br->opts().group_fwd_mask == uint16_t(1u << 14 | 1u << 3));
		for (uint8_t x : {3, 14}) {
			CAPTURE(int(x));
			Outcome o = f.send(f.p(1), make_frame(link_local(x), kS1));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(o.v.flood_class == FloodClass::Multicast);
			CHECK(o.egress.size() == 2);
		}
		Outcome o = f.send(f.p(1), make_frame(link_local(0xd), kS1));
		CHECK(o.v.kind == VerdictKind::PortStack);
		o = f.send(f.p(1), make_frame(link_local(1), kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LinkLocalPause);
		/* a forwarded group still obeys the port state */
		REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Listening), nullptr) == 0);
		o = f.send(f.p(1), make_frame(link_local(14), kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::PortState);
		REQUIRE(f.br->set_group_fwd_mask(0, nullptr) == 0);
	}
}

TEST_CASE("link_local_stays_on_port() agrees with decide() for every group",
	  "[forward][ingress]")
{
	/* The shim leaves a foreign-TPID tag out of band for exactly the
	 * frames decide() sends up the port (or drops as pause). */
	BridgeFixture f(2);
	for (bool ad : {false, true}) {
		REQUIRE(f.br->set_vlan_protocol(ad ? kEthP8021AD : kEthP8021Q, nullptr) == 0);
		for (bool filtering : {false, true}) {
			REQUIRE(f.br->set_vlan_filtering(filtering, nullptr) == 0);
			for (uint16_t mask : {uint16_t(0), uint16_t(1u << 14 | 1u << 3), uint16_t(0xfff8)}) {
				REQUIRE(f.br->set_group_fwd_mask(mask, nullptr) == 0);
				for (uint8_t x = 0; x < 16; x++) {
					CAPTURE(ad, filtering, mask, int(x));
					std::vector<uint8_t> fr = make_frame(link_local(x), kS1);
					Outcome o = f.send(f.p(1), fr);
					bool up = o.v.kind == VerdictKind::PortStack ||
						  (o.v.kind == VerdictKind::Drop &&
						   o.v.reason == DropReason::LinkLocalPause);
					CHECK(link_local_stays_on_port(*f.br, fr.data()) == up);
				}
			}
		}
	}
	std::vector<uint8_t> fr = make_frame(kUnknown, kS1);
	CHECK_FALSE(link_local_stays_on_port(*f.br, fr.data()));
}

TEST_CASE("the host port's ifindex is set once the environment has it", "[bridge]")
{
	BridgeFixture f(1);
	f.br->set_host_ifindex(77);
	CHECK(f.br->host()->ifindex == 77);
}

TEST_CASE("link-local frames reach the port stack whatever the port state",
	  "[forward][ingress][state]")
{
	/* br_handle_frame handles link-local groups before the port state */
	BridgeFixture f(2);
	REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Listening), nullptr) == 0);
	Outcome o = f.send(f.p(1), make_frame(link_local(0xe), kS1));
	CHECK(o.v.kind == VerdictKind::PortStack);
	/* but a listening port does not learn (nbp_state_should_learn) */
	CHECK(!f.has(kS1, 0));
}

TEST_CASE("an 802.1ad bridge forwards the customer link-local groups",
	  "[forward][ingress][vlan]")
{
	/* br_recalculate_fwd_mask: group_fwd_mask_required 0xb800 with
	 * filtering on and vlan_protocol 802.1ad; not when filtering is off */
	BridgeFixture f(3);
	REQUIRE(f.br->set_vlan_protocol(kEthP8021AD, nullptr) == 0);
	for (uint8_t g : {0x0b, 0x0c, 0x0d, 0x0f})
		CHECK(f.send(f.p(1), make_frame(link_local(g), kS1)).v.kind == VerdictKind::PortStack);
	REQUIRE(f.br->set_vlan_filtering(true, nullptr) == 0);
	for (uint8_t g : {0x0b, 0x0c, 0x0d, 0x0f}) {
		CAPTURE(int(g));
		Outcome o = f.send(f.p(1), make_frame(link_local(g), kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.egress.size() == 2);
	}
	for (uint8_t g : {0x02, 0x03, 0x0e})
		CHECK(f.send(f.p(1), make_frame(link_local(g), kS1)).v.kind == VerdictKind::PortStack);
	CHECK(f.send(f.p(1), make_frame(link_local(1), kS1)).v.kind == VerdictKind::Drop);
}

TEST_CASE("frames the bridge sends obey its own per-VLAN state", "[forward][host][vlan]")
{
	/* br_dev_xmit -> br_allowed_ingress with the bridge's VLAN group:
	 * found by the conformance soak (seed 5244) */
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_set_state(f.host(), 1, uint8_t(PortState::Blocking), nullptr) == 0);
	Outcome o = f.send(f.host(), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::VlanState);
	o = f.send(f.host(), make_frame(kBcast, kS1, {q(0, 3)}));	/* priority-tagged */
	CHECK(o.v.kind == VerdictKind::Drop);
	REQUIRE(f.br->vlan_set_state(f.host(), 1, uint8_t(PortState::Learning), nullptr) == 0);
	o = f.send(f.host(), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.egress.size() == 3);
}

TEST_CASE("link-local learning takes the PVID for foreign-TPID frames",
	  "[forward][ingress][vlan]")
{
	/* br_should_learn: a tag that is not the bridge's vlan_protocol makes
	 * the frame untagged, so it is learned in the PVID (found by the
	 * differential conformance harness). */
	BridgeFixture f(2);
	REQUIRE(f.br->set_vlan_filtering(true, nullptr) == 0);
	REQUIRE(f.br->set_vlan_protocol(kEthP8021AD, nullptr) == 0);
	Outcome o = f.send(f.p(1), make_frame(link_local(3), kS1, {q(1)}));
	CHECK(o.v.kind == VerdictKind::PortStack);
	CHECK(f.has(kS1, 1));
	/* a bridge-protocol tag in a VID the port lacks is not learned */
	o = f.send(f.p(1), make_frame(link_local(3), kS2, {ad(30)}));
	CHECK(o.v.kind == VerdictKind::PortStack);
	CHECK(!f.has(kS2, 30));
	CHECK(!f.has(kS2, 1));
	/* nor in a VLAN whose state does not learn (found by the soak: the
	 * PVID's state counts too, br_get_pvid_state) */
	REQUIRE(f.br->vlan_set_state(f.p(1), 1, uint8_t(PortState::Blocking), nullptr) == 0);
	o = f.send(f.p(1), make_frame(link_local(3), kS3, {q(1)}));
	CHECK(o.v.kind == VerdictKind::PortStack);
	CHECK(!f.has(kS3, 1));
	REQUIRE(f.br->vlan_set_state(f.p(1), 1, uint8_t(PortState::Learning), nullptr) == 0);
	o = f.send(f.p(1), make_frame(link_local(3), kS3, {q(1)}));
	CHECK(f.has(kS3, 1));
}

TEST_CASE("port state on ingress and egress", "[forward][state]")
{
	struct Row {
		PortState s;
		VerdictKind kind;
		DropReason reason;
		bool learns;
	};
	const Row rows[] = {
		{PortState::Disabled, VerdictKind::Drop, DropReason::PortState, false},
		{PortState::Listening, VerdictKind::Drop, DropReason::PortState, false},
		{PortState::Learning, VerdictKind::Drop, DropReason::LearningOnly, true},
		{PortState::Forwarding, VerdictKind::Flood, DropReason::None, true},
	};
	for (const Row &r : rows) {
		CAPTURE(int(r.s));
		BridgeFixture f(3);
		REQUIRE(f.br->port_set_state(f.p(1), uint8_t(r.s), nullptr) == 0);
		CHECK(f.p(1)->port_state() == r.s);
		f.learn(f.p(2), kS2);

		/* ingress */
		f.log.clear();
		Outcome o = f.send(f.p(1), make_frame(kS2, kS1));
		CAPTURE(describe(o));
		if (r.kind == VerdictKind::Flood) {
			CHECK(o.v.kind == VerdictKind::Forward);
		} else {
			CHECK(o.v.kind == VerdictKind::Drop);
			CHECK(o.v.reason == r.reason);
			CHECK(port_drops(f.p(1), r.reason) == 1);
		}
		CHECK(f.has(kS1, 0) == r.learns);
		if (r.learns)
			CHECK(f.entry(kS1, 0).port == f.p(1));

		/* egress: flood skips a non-forwarding port; Forward to it drops */
		f.learn(f.p(3), kS3);
		o = f.send(f.p(3), make_frame(kBcast, kS3));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.to(f.p(1)) == (r.s == PortState::Forwarding));
		CHECK(o.to(f.p(2)));
		REQUIRE(f.br->fdb_add(kS4, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		o = f.send(f.p(3), make_frame(kS4, kS3));
		if (r.s == PortState::Forwarding) {
			CHECK(o.v.kind == VerdictKind::Forward);
			CHECK(ports_of(o) == std::vector<Port *>{f.p(1)});
		} else {
			CHECK(o.v.kind == VerdictKind::Drop);
			CHECK(o.v.reason == DropReason::NoEgress);
			CHECK(port_drops(f.p(3), DropReason::NoEgress) == 1);
		}
	}
	BridgeFixture f(1);
	CHECK(f.br->port_set_state(f.p(1), kPortStateMax + 1, nullptr) < 0);
	CHECK(f.p(1)->port_state() == PortState::Forwarding);
}

TEST_CASE("destination classes", "[forward][dest]")
{
	BridgeFixture f(3);
	f.learn(f.p(2), kS2);

	struct Row {
		const char *name;
		MacKey dst;
		VerdictKind kind;
		FloodClass fclass;
		bool local_too;
		std::vector<unsigned> ports;
	};
	const std::vector<Row> rows = {
		{"broadcast", kBcast, VerdictKind::Flood, FloodClass::Broadcast, true, {2, 3}},
		{"multicast", kMcast, VerdictKind::Flood, FloodClass::Multicast, true, {2, 3}},
		{"unknown unicast", kUnknown, VerdictKind::Flood, FloodClass::Unicast, false, {2, 3}},
		{"known unicast", kS2, VerdictKind::Forward, FloodClass::Unicast, false, {2}},
		{"bridge address", kBrAddr, VerdictKind::Local, FloodClass::Unicast, true, {}},
		{"own port address", port_mac(1), VerdictKind::Local, FloodClass::Unicast, true, {}},
		{"other port address", port_mac(3), VerdictKind::Local, FloodClass::Unicast, true, {}},
	};
	for (bool promisc : {false, true}) {
		f.br->set_promisc(promisc);
		for (const Row &r : rows) {
			CAPTURE(r.name, promisc);
			Outcome o = f.send(f.p(1), make_frame(r.dst, kS1));
			CAPTURE(describe(o));
			CHECK(o.v.kind == r.kind);
			CHECK(o.v.ingress == f.p(1));
			if (r.kind == VerdictKind::Flood)
				CHECK(o.v.flood_class == r.fclass);
			if (r.kind != VerdictKind::Local)
				CHECK(o.v.local_too == (r.local_too || promisc));
			CHECK(o.local == (r.local_too || promisc));
			std::vector<Port *> want;
			for (unsigned i : r.ports)
				want.push_back(f.p(i));
			std::sort(want.begin(), want.end());
			std::vector<Port *> got = ports_of(o);
			std::sort(got.begin(), got.end());
			CHECK(got == want);
			for (auto &kv : o.egress)
				CHECK(kv.second == TagAction::Keep);
		}
	}
}

TEST_CASE("flood flags", "[forward][flood]")
{
	struct Row {
		const char *name;
		uint32_t cleared;
		bool unicast, multicast, broadcast;	/* p2 receives? */
	};
	const Row rows[] = {
		{"all on", 0, true, true, true},
		{"flood off", kPortFlood, false, true, true},
		{"mcast_flood off", kPortMcastFlood, true, false, true},
		{"bcast_flood off", kPortBcastFlood, true, true, false},
		{"all off", kPortFlood | kPortMcastFlood | kPortBcastFlood, false, false, false},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		BridgeFixture f(3);
		REQUIRE(f.br->port_set_flags(f.p(2), 0, r.cleared, nullptr) == 0);
		CHECK(f.p(2)->flag_bits() == (kPortFlagsDefault & ~r.cleared));
		f.learn(f.p(2), kS2);

		struct Frame {
			MacKey dst;
			bool want;
			bool want_from_host;
		};
		const Frame frames[] = {
			{kUnknown, r.unicast, r.unicast},	/* flood applies to the bridge's own frames */
			{kMcast, r.multicast, true},	/* mcast_flood does not */
			{kBcast, r.broadcast, true},	/* bcast_flood does not */
		};
		for (const Frame &fr : frames) {
			CAPTURE(mac_str(fr.dst));
			Outcome o = f.send(f.p(1), make_frame(fr.dst, kS1));
			CAPTURE(describe(o));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(o.to(f.p(2)) == fr.want);
			CHECK(o.to(f.p(3)));
			o = f.send(f.host(), make_frame(fr.dst, kBrAddr));
			CAPTURE(describe(o));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(o.to(f.p(2)) == fr.want_from_host);
			CHECK(o.to(f.p(1)));
			CHECK(o.to(f.p(3)));
		}
		/* known unicast ignores the flood flags */
		Outcome o = f.send(f.p(1), make_frame(kS2, kS1));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});
	}
}

TEST_CASE("frames sent by the bridge device", "[forward][host]")
{
	BridgeFixture f(3);
	f.learn(f.p(2), kS2);
	f.log.clear();

	/* not learned, whatever the source (br_dev_xmit does not learn) */
	Outcome o = f.send(f.host(), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.ingress == f.host());
	CHECK(o.egress.size() == 3);
	CHECK(!f.has(kS1, 0));
	CHECK(f.log.size() == 0);
	/* and not looped back up the bridge (br_flood local_rcv=false) */
	CHECK(!o.local);

	o = f.send(f.host(), make_frame(kS2, kBrAddr));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});
	CHECK(!o.local);
	/* the bridge's own address was not moved */
	CHECK(f.entry(kBrAddr, 0).port == f.host());
}

TEST_CASE("hairpin", "[forward][hairpin]")
{
	BridgeFixture f(3);
	f.learn(f.p(1), kS1);
	f.learn(f.p(1), kS3);	/* S1 and S3 both behind p1 */

	Outcome o = f.send(f.p(1), make_frame(kS3, kS1));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::NoEgress);
	o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(!o.to(f.p(1)));

	REQUIRE(f.br->port_set_flags(f.p(1), kPortHairpin, 0, nullptr) == 0);
	o = f.send(f.p(1), make_frame(kS3, kS1));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(ports_of(o) == std::vector<Port *>{f.p(1)});
	o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(o.to(f.p(1)));
	CHECK(o.to(f.p(2)));
	CHECK(o.to(f.p(3)));
	/* hairpin on another port does not reflect p1's frames */
	REQUIRE(f.br->port_set_flags(f.p(1), 0, kPortHairpin, nullptr) == 0);
	REQUIRE(f.br->port_set_flags(f.p(2), kPortHairpin, 0, nullptr) == 0);
	o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(!o.to(f.p(1)));
}

TEST_CASE("port isolation (bridge_port_isolation.sh)", "[forward][isolated]")
{
	BridgeFixture f(4);
	REQUIRE(f.br->port_set_flags(f.p(1), kPortIsolated, 0, nullptr) == 0);
	REQUIRE(f.br->port_set_flags(f.p(2), kPortIsolated, 0, nullptr) == 0);
	f.learn(f.p(1), kS1);
	f.learn(f.p(2), kS2);
	f.learn(f.p(3), kS3);

	struct Row {
		unsigned in;
		MacKey dst;
		VerdictKind kind;
		std::vector<unsigned> ports;
	};
	const std::vector<Row> rows = {
		{1, kBcast, VerdictKind::Flood, {3, 4}},
		{1, kMcast, VerdictKind::Flood, {3, 4}},
		{1, kUnknown, VerdictKind::Flood, {3, 4}},
		{3, kBcast, VerdictKind::Flood, {1, 2, 4}},
		{1, kS2, VerdictKind::Drop, {}},
		{2, kS1, VerdictKind::Drop, {}},
		{1, kS3, VerdictKind::Forward, {3}},
		{3, kS1, VerdictKind::Forward, {1}},
	};
	for (const Row &r : rows) {
		CAPTURE(r.in, mac_str(r.dst));
		Outcome o = f.send(f.p(r.in), make_frame(r.dst, host_mac(0x4100 + r.in)));
		CAPTURE(describe(o));
		CHECK(o.v.kind == r.kind);
		if (r.kind == VerdictKind::Drop)
			CHECK(o.v.reason == DropReason::NoEgress);
		std::vector<Port *> want;
		for (unsigned i : r.ports)
			want.push_back(f.p(i));
		std::sort(want.begin(), want.end());
		std::vector<Port *> got = ports_of(o);
		std::sort(got.begin(), got.end());
		CHECK(got == want);
		if (r.in == 1 && r.dst == kBcast) {
			CHECK(o.v.src_isolated);
			CHECK(o.local);	/* the bridge device still gets it */
		}
	}
	/* the bridge device's own frames reach isolated ports */
	Outcome o = f.send(f.host(), make_frame(kBcast, kBrAddr));
	CHECK(o.egress.size() == 4);
}

TEST_CASE("locked port (bridge_locked_port.sh)", "[forward][locked]")
{
	BridgeFixture f(3);
	REQUIRE(f.br->port_set_flags(f.p(1), kPortLocked, 0, nullptr) == 0);
	f.learn(f.p(2), kS2);
	f.log.clear();

	SECTION("unknown source: dropped, nothing learned")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
		CHECK(port_drops(f.p(1), DropReason::LockedPort) == 1);
		CHECK(!f.has(kS1, 0));
		CHECK(f.log.size() == 0);
	}
	SECTION("authorised by a static entry on the port: forwarded")
	{
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kS2, kS1));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});
		o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		/* deleting the entry locks it out again */
		REQUIRE(f.br->fdb_del(kS1, 0, f.p(1), nullptr) == 0);
		o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
	}
	SECTION("source known on another port: dropped, no roaming")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS2));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
		CHECK(f.entry(kS2, 0).port == f.p(2));
		CHECK(f.log.size() == 0);
	}
	SECTION("a local address as source: dropped")
	{
		Outcome o = f.send(f.p(1), make_frame(kBcast, port_mac(1)));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
	}
	SECTION("unlocking lets traffic through")
	{
		REQUIRE(f.br->port_set_flags(f.p(1), 0, kPortLocked, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(f.entry(kS1, 0).port == f.p(1));
	}
}

TEST_CASE("MAB: locked entries for unknown sources", "[forward][locked][mab]")
{
	BridgeFixture f(3);
	SECTION("MAB needs a locked port with learning (br_setport)")
	{
		CHECK(f.br->port_set_flags(f.p(1), kPortMab, 0, nullptr) == -kEINVAL);
		CHECK(!f.p(1)->has_flag(kPortMab));
		CHECK(f.br->port_set_flags(f.p(1), kPortMab | kPortLocked, kPortLearning, nullptr) == -kEINVAL);
		CHECK(f.p(1)->flag_bits() == kPortFlagsDefault);
	}
	SECTION("miss creates a locked entry; hits refresh it; user add authorises it")
	{
		REQUIRE(f.br->port_set_flags(f.p(1), kPortLocked | kPortMab, 0, nullptr) == 0);
		Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
		FdbSnap e = f.entry(kS1, 0);
		CHECK(e.port == f.p(1));
		CHECK((e.flags & kFdbLocked));
		CHECK(!(e.flags & kFdbStatic));
		REQUIRE(f.log.size() == 1);
		CHECK(f.log.events[0].type == FdbEventType::Created);
		CHECK((f.log.events[0].flags & kFdbLocked));
		f.log.clear();

		f.advance_ms(1000);
		o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
		e = f.entry(kS1, 0);
		CHECK((e.flags & kFdbLocked));
		CHECK(e.updated == f.now());
		CHECK(f.log.size() == 0);

		/* the user authorises it: replace clears the locked flag */
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(1), kFdbStatic, FdbAddMode::Replace, nullptr) == 0);
		e = f.entry(kS1, 0);
		CHECK(!(e.flags & kFdbLocked));
		CHECK((e.flags & kFdbStatic));
		o = f.send(f.p(1), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
	}
	SECTION("a locked entry roams to an unlocked port and loses the flag")
	{
		REQUIRE(f.br->port_set_flags(f.p(1), kPortLocked | kPortMab, 0, nullptr) == 0);
		f.send(f.p(1), make_frame(kBcast, kS1));
		REQUIRE((f.entry(kS1, 0).flags & kFdbLocked));
		f.log.clear();
		Outcome o = f.send(f.p(2), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Flood);
		FdbSnap e = f.entry(kS1, 0);
		CHECK(e.port == f.p(2));
		CHECK(!(e.flags & kFdbLocked));
		CHECK(f.log.count(FdbEventType::Changed) == 1);
	}
	SECTION("a locked entry of another port is not taken over by a locked port")
	{
		REQUIRE(f.br->port_set_flags(f.p(1), kPortLocked | kPortMab, 0, nullptr) == 0);
		REQUIRE(f.br->port_set_flags(f.p(3), kPortLocked | kPortMab, 0, nullptr) == 0);
		f.send(f.p(1), make_frame(kBcast, kS1));
		Outcome o = f.send(f.p(3), make_frame(kBcast, kS1));
		CHECK(o.v.kind == VerdictKind::Drop);
		CHECK(o.v.reason == DropReason::LockedPort);
		CHECK(f.entry(kS1, 0).port == f.p(1));
	}
	SECTION("turning MAB off flushes the port's locked entries")
	{
		REQUIRE(f.br->port_set_flags(f.p(1), kPortLocked | kPortMab, 0, nullptr) == 0);
		f.send(f.p(1), make_frame(kBcast, kS1));
		REQUIRE(f.br->fdb_add(kS3, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		REQUIRE(f.has(kS1, 0));
		REQUIRE(f.br->port_set_flags(f.p(1), 0, kPortMab, nullptr) == 0);
		CHECK(!f.has(kS1, 0));
		CHECK(f.has(kS3, 0));
	}
}

TEST_CASE("recycled verdicts never inherit the previous frame's fields", "[forward][recycle]")
{
	for (bool filtering : {false, true}) {
		CAPTURE(filtering);
		BridgeFixture f(3, filtering);
		f.learn(f.p(2), kS2);
		f.learn(f.p(1), kS1);
		REQUIRE(f.br->port_set_flags(f.p(1), kPortIsolated, 0, nullptr) == 0);

		struct Step {
			const char *name;
			Port *in;
			std::vector<uint8_t> frame;
		};
		const std::vector<Step> steps = {
			{"multicast flood", f.p(1), make_frame(kMcast, kS1)},
			{"unicast to the bridge", f.p(2), make_frame(kBrAddr, kS2)},
			{"broadcast from isolated", f.p(1), make_frame(kBcast, kS1, {q(0, 6)})},
			{"known unicast", f.p(2), make_frame(kS1, kS2)},
			{"drop (pause)", f.p(1), make_frame(link_local(1), kS1)},
			{"unknown unicast", f.p(2), make_frame(kUnknown, kS2)},
			{"port stack", f.p(1), make_frame(link_local(0xe), kS1)},
			{"known unicast again", f.p(1), make_frame(kS2, kS1)},
			{"drop (source)", f.p(2), make_frame(kBcast, kMcast)},
			{"unicast to the bridge again", f.p(1), make_frame(kBrAddr, kS1)},
		};
		Verdict recycled;
		std::memset(&recycled, 0, sizeof(recycled));
		for (const Step &s : steps) {
			CAPTURE(s.name);
			Outcome a = f.send_into(s.in, s.frame, recycled);
			Verdict fresh;
			std::memset(&fresh, 0, sizeof(fresh));
			Outcome b = f.send_into(s.in, s.frame, fresh);
			Verdict junk;
			std::memset(&junk, 0x5a, sizeof(junk));
			Outcome c = f.send_into(s.in, s.frame, junk);
			CAPTURE(dump_verdict(recycled), dump_verdict(fresh), dump_verdict(junk));
			CHECK(same_verdict(recycled, fresh));
			CHECK(same_verdict(junk, fresh));
			CHECK(a.egress == b.egress);
			CHECK(c.egress == b.egress);
			CHECK(a.local == b.local);
		}
		/* and the specific ones are right */
		Verdict v;
		f.send_into(f.p(1), make_frame(kMcast, kS1), v);
		REQUIRE(v.kind == VerdictKind::Flood);
		REQUIRE(v.local_too);
		Outcome o = f.send_into(f.p(2), make_frame(kBrAddr, kS2), v);
		CHECK(v.kind == VerdictKind::Local);
		CHECK(v.ingress == f.p(2));
		CHECK(!v.src_isolated);
		CHECK(o.egress.empty());
		CHECK(o.local_tag == (filtering ? TagAction::Untag : TagAction::Keep));
		o = f.send_into(f.p(2), make_frame(kS1, kS2), v);
		CHECK(v.kind == VerdictKind::Forward);
		CHECK(!v.local_too);
		CHECK(!v.src_isolated);
		CHECK(ports_of(o) == std::vector<Port *>{f.p(1)});
	}
}

TEST_CASE("decide_batch decides as decide() does", "[forward][batch]")
{
	for (bool filtering : {false, true}) {
		CAPTURE(filtering);
		BridgeFixture f(4, filtering);
		REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
		REQUIRE(f.br->vlan_add(f.p(2), 10, 10, kVlanUntagged, nullptr) == 0);
		std::vector<MacKey> macs;
		for (unsigned i = 0; i < 40; i++) {
			MacKey m = host_mac(0x5000 + i);
			macs.push_back(m);
			f.learn(f.p(1 + i % 4), m, i % 2 ? std::vector<Tag>{} : std::vector<Tag>{q(10)});
		}
		std::vector<std::vector<uint8_t>> frames;
		std::vector<Port *> ins;
		for (unsigned i = 0; i < kBatchMax; i++) {
			MacKey dst;
			switch (i % 7) {
			case 0: dst = kBcast; break;
			case 1: dst = kMcast; break;
			case 2: dst = kUnknown; break;
			case 3: dst = kBrAddr; break;
			default: dst = macs[(i * 7) % macs.size()]; break;
			}
			unsigned in = 1 + (i % 4);
			/* the frame's source is already learned on its port, so the
			 * two passes see the same FDB */
			MacKey src = macs[(in - 1)];
			std::vector<Tag> tags;
			if (i % 3 == 0)
				tags = {q(10)};
			if (i == 5)
				src = 0;	/* a drop in the middle */
			frames.push_back(make_frame(dst, src, tags));
			ins.push_back(f.p(in));
		}
		std::vector<RxFrame> rx;
		for (size_t i = 0; i < frames.size(); i++)
			rx.push_back(RxFrame{frames[i].data(), uint32_t(frames[i].size()),
					     OobTag{false, 0, 0}, ins[i]});
		{
			/* warm-up: whatever these frames learn is learned now */
			RcuReadGuard g;
			for (const RxFrame &fr : rx) {
				Verdict v;
				decide(*f.br, fr, f.now(), v);
			}
		}
		for (unsigned n : {1u, 7u, kBatchMax}) {
			CAPTURE(n);
			std::vector<Outcome> single, batch;
			{
				RcuReadGuard g;
				for (unsigned i = 0; i < n; i++) {
					Verdict v;
					decide(*f.br, rx[i], f.now(), v);
					single.push_back(summarize(*f.br, v));
				}
			}
			{
				RcuReadGuard g;
				std::vector<Verdict> vs(n);
				decide_batch(*f.br, rx.data(), n, f.now(), vs.data());
				for (unsigned i = 0; i < n; i++)
					batch.push_back(summarize(*f.br, vs[i]));
			}
			for (unsigned i = 0; i < n; i++) {
				CAPTURE(i, describe(single[i]), describe(batch[i]));
				CHECK(same_verdict(single[i].v, batch[i].v));
				CHECK(single[i].egress == batch[i].egress);
			}
		}
	}
}

/*
 * decide_batch prefetches the second entry of a destination's chain when
 * the first is another key (Fdb::prefetch_second). With the table kept at
 * its 256 starting buckets and thousands of entries, chains are long:
 * every hit position (first, second, further) and misses behind long
 * chains are decided by the batch exactly as one frame at a time, and
 * each hit goes to its entry's port.
 */
TEST_CASE("decide_batch over long FDB chains decides as decide() does",
	  "[forward][batch][fdb]")
{
	BridgeFixture f(4);
	const unsigned kEntries = 4096;
	std::vector<MacKey> macs;
	for (unsigned i = 0; i < kEntries; i++) {
		MacKey m = host_mac(0x10000 + i);
		macs.push_back(m);
		REQUIRE(f.br->fdb_add(m, 0, f.p(1 + i % 4), kFdbStatic, FdbAddMode::Create,
				      nullptr) == 0);
	}
	REQUIRE(f.br->fdb().buckets() == 256);	/* ~16 entries a chain */
	/* the source, learned once so both passes see the same FDB */
	f.learn(f.p(1), kS1, {});

	uint64_t rnd = 0x9e3779b97f4a7c15ull;
	auto next = [&]() {
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		return rnd;
	};
	for (unsigned round = 0; round < 32; round++) {
		CAPTURE(round);
		std::vector<std::vector<uint8_t>> frames;
		std::vector<Port *> want;
		for (unsigned i = 0; i < kBatchMax; i++) {
			bool miss = next() % 8 == 0;
			unsigned k = unsigned(next() % kEntries);
			MacKey dst = miss ? host_mac(0x30000 + unsigned(next() % 4096)) : macs[k];
			frames.push_back(make_frame(dst, kS1));
			want.push_back(miss ? nullptr : f.p(1 + k % 4));
		}
		std::vector<RxFrame> rx;
		for (size_t i = 0; i < frames.size(); i++)
			rx.push_back(RxFrame{frames[i].data(), uint32_t(frames[i].size()),
					     OobTag{false, 0, 0}, f.p(1)});
		std::vector<Outcome> single, batch;
		{
			RcuReadGuard g;
			for (const RxFrame &fr : rx) {
				Verdict v;
				decide(*f.br, fr, f.now(), v);
				single.push_back(summarize(*f.br, v));
			}
			std::vector<Verdict> vs(rx.size());
			decide_batch(*f.br, rx.data(), unsigned(rx.size()), f.now(), vs.data());
			for (const Verdict &v : vs)
				batch.push_back(summarize(*f.br, v));
		}
		for (unsigned i = 0; i < rx.size(); i++) {
			CAPTURE(i, describe(single[i]), describe(batch[i]));
			CHECK(same_verdict(single[i].v, batch[i].v));
			CHECK(single[i].egress == batch[i].egress);
			if (!want[i]) {
				CHECK(batch[i].v.kind == VerdictKind::Flood);
			} else if (want[i] == f.p(1)) {
				/* the ingress port: hairpin off */
				CHECK(batch[i].v.kind == VerdictKind::Drop);
			} else {
				CHECK(batch[i].v.kind == VerdictKind::Forward);
				CHECK(ports_of(batch[i]) == std::vector<Port *>{want[i]});
			}
		}
	}
}

/*
 * Past Fdb::kFdbPrefetchDeepMin entries a batch is decided by a deeper
 * pipeline (forward.cc's decide_deep): frames are classified and probed
 * up to three groups before their decision. Each frame must still be
 * decided against the FDB as it is when its turn comes: a source the
 * batch learns (or moves) is where a later frame of the same batch goes,
 * as one frame at a time would have it.
 */
TEST_CASE("decide_batch over an FDB past the deep-prefetch size decides as decide() does",
	  "[forward][batch][fdb]")
{
	for (bool filtering : {false, true}) {
		CAPTURE(filtering);
		BridgeFixture f(4, filtering);
		const uint16_t vid = filtering ? 10 : 0;
		const std::vector<Tag> tags = filtering ? std::vector<Tag>{q(10)} : std::vector<Tag>{};
		if (filtering)
			for (unsigned p = 1; p <= 4; p++)
				REQUIRE(f.br->vlan_add(f.p(p), 10, 10, 0, nullptr) == 0);
		const unsigned kEntries = Fdb::kFdbPrefetchDeepMin + 1024;
		std::vector<MacKey> macs;
		for (unsigned i = 0; i < kEntries; i++) {
			MacKey m = host_mac(0x100000 + i);
			macs.push_back(m);
			REQUIRE(f.br->fdb_add(m, vid, f.p(1 + i % 4), kFdbStatic, FdbAddMode::Create,
					      nullptr) == 0);
			if (i % 16384 == 0)
				f.br->fdb().resize_if_needed();
		}
		REQUIRE(f.br->fdb().prefetch_deep());

		/* frame 9 brings a new source; later frames of the batch go to it */
		const MacKey kNew = host_mac(0x7000);	/* unknown until frame 9 */
		uint64_t rnd = 0x243f6a8885a308d3ull;
		auto next = [&]() {
			rnd ^= rnd << 13;
			rnd ^= rnd >> 7;
			rnd ^= rnd << 17;
			return rnd;
		};
		std::vector<std::vector<uint8_t>> frames;
		std::vector<Port *> ins;
		for (unsigned i = 0; i < kBatchMax; i++) {
			MacKey dst = macs[next() % kEntries], src = kS1;
			Port *in = f.p(1);
			if (i == 9) {
				src = kNew;	/* learned on port 2 here ... */
				in = f.p(2);
			} else if (i > 9 && i % 5 == 0) {
				dst = kNew;	/* ... and forwarded to by these */
			} else if (i % 11 == 0) {
				dst = host_mac(0x200000 + i);	/* unknown: flood */
			}
			frames.push_back(make_frame(dst, src, tags));
			ins.push_back(in);
		}
		std::vector<RxFrame> rx;
		for (size_t i = 0; i < frames.size(); i++)
			rx.push_back(RxFrame{frames[i].data(), uint32_t(frames[i].size()),
					     OobTag{false, 0, 0}, ins[i]});

		std::vector<Outcome> batch, single;
		{
			RcuReadGuard g;
			std::vector<Verdict> vs(rx.size());
			decide_batch(*f.br, rx.data(), unsigned(rx.size()), f.now(), vs.data());
			for (const Verdict &v : vs)
				batch.push_back(summarize(*f.br, v));
		}
		/* the same frames one at a time, from the FDB the batch met
		 * (kS1 stays learned: it was the same port either way) */
		REQUIRE(f.br->fdb_del(kNew, vid, nullptr, nullptr) == 0);
		{
			RcuReadGuard g;
			for (const RxFrame &fr : rx) {
				Verdict v;
				decide(*f.br, fr, f.now(), v);
				single.push_back(summarize(*f.br, v));
			}
		}
		for (unsigned i = 0; i < rx.size(); i++) {
			CAPTURE(i, describe(single[i]), describe(batch[i]));
			CHECK(same_verdict(single[i].v, batch[i].v));
			CHECK(single[i].egress == batch[i].egress);
			if (i > 9 && i % 5 == 0) {
				CHECK(batch[i].v.kind == VerdictKind::Forward);
				CHECK(ports_of(batch[i]) == std::vector<Port *>{f.p(2)});
			}
		}
	}
}

TEST_CASE("drop counters are per ingress port and per reason", "[forward][stats]")
{
	BridgeFixture f(2);
	for (int i = 0; i < 3; i++)
		f.send(f.p(1), make_frame(kBcast, kMcast));
	f.send(f.p(2), make_frame(link_local(1), kS2));
	CHECK(port_drops(f.p(1), DropReason::SourceInvalid) == 3);
	CHECK(port_drops(f.p(2), DropReason::SourceInvalid) == 0);
	CHECK(port_drops(f.p(2), DropReason::LinkLocalPause) == 1);
	CHECK(port_drops(f.p(1), DropReason::LinkLocalPause) == 0);
	for (unsigned r = 0; r < kDropReasonCount; r++)
		CHECK(drop_reason_name(DropReason(r)) != nullptr);
}

TEST_CASE("link down disables the port; link up restores only a disabled port",
	  "[forward][state][link]")
{
	BridgeFixture f(3);
	REQUIRE(f.br->fdb_add(kS2, 0, f.p(2), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	f.br->port_link_changed(f.p(2), false);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(!o.to(f.p(2)));
	o = f.send(f.p(1), make_frame(kS2, kS1));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::NoEgress);
	o = f.send(f.p(2), make_frame(kBcast, kS2));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::PortState);
	f.br->port_link_changed(f.p(2), true);
	CHECK(f.p(2)->port_state() == PortState::Forwarding);
	o = f.send(f.p(1), make_frame(kS2, kS1));
	CHECK(o.v.kind == VerdictKind::Forward);

	/* br_port_carrier_check enables a port only if it was disabled: a
	 * carrier-up notification must not override a user-set state */
	REQUIRE(f.br->port_set_state(f.p(3), uint8_t(PortState::Listening), nullptr) == 0);
	f.br->port_link_changed(f.p(3), true);
	CHECK(f.p(3)->port_state() == PortState::Listening);
}

TEST_CASE("port state 4 (blocking) becomes forwarding without STP", "[forward][state]")
{
	/* br_set_port_state -> br_port_state_selection -> br_make_forwarding:
	 * with STP off every port is designated, so a port set to blocking is
	 * forwarding at once (the Linux bridge reads back state 3). */
	BridgeFixture f(3);
	REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Blocking), nullptr) == 0);
	CHECK(f.p(1)->port_state() == PortState::Forwarding);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(f.has(kS1, 0));
	/* the per-VLAN state 4 stays: br_vlan_set_state has no selection */
	REQUIRE(f.br->vlan_set_state(f.p(1), 1, uint8_t(PortState::Blocking), nullptr) == 0);
	CHECK(f.pv(f.p(1), 1)->state == uint8_t(PortState::Blocking));
}

TEST_CASE("flood_targets respects the caller's capacity", "[forward][flood]")
{
	BridgeFixture f(5);
	RcuReadGuard g;
	std::vector<uint8_t> fr = make_frame(kBcast, kS1);
	RxFrame rx{fr.data(), uint32_t(fr.size()), OobTag{false, 0, 0}, f.p(1)};
	Verdict v;
	decide(*f.br, rx, f.now(), v);
	REQUIRE(v.kind == VerdictKind::Flood);
	Egress buf[8];
	CHECK(flood_targets(*f.br, v, buf, 8) == 4);
	CHECK(flood_targets(*f.br, v, buf, 2) == 2);
	CHECK(flood_targets(*f.br, v, buf, 0) == 0);
}
