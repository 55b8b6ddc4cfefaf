// SPDX-License-Identifier: GPL-2.0
/*
 * test_fdb.cc - the forwarding database through the bridge: learning
 * (create, refresh, roam, local and sticky entries, static roaming, the
 * learning flag, fdb_max_learned accounting, ageing_time 0), fdb_add /
 * fdb_del rules and events, flush filters, ageing, link down, port
 * removal, port VLAN deletion, and the tagged destinations (port-VLAN
 * cached in the entry, promotion, fdb_cache_vlan on/off equivalence).
 * Linux: net/bridge/br_fdb.c (br_fdb_update, fdb_create, fdb_add_entry,
 * br_fdb_add, br_fdb_cleanup, br_fdb_delete_by_port), selftests
 * bridge_sticky_fdb.sh, bridge_fdb_learning_limit.sh, fdb_flush.sh,
 * bridge_vlan_aware.sh (learning, vlan_deletion).
 */
#include "test_util.h"

using namespace xbt;

namespace {

const MacKey kS1 = host_mac(0x2001);
const MacKey kS2 = host_mac(0x2002);
const MacKey kS3 = host_mac(0x2003);
const MacKey kS4 = host_mac(0x2004);

FdbFilter dynamic_only(Port *p = nullptr, int32_t vid = -1)
{
	FdbFilter fl;
	fl.port = p;
	fl.vid = vid;
	fl.flags_clear = kFdbStatic;
	return fl;
}

} // namespace

TEST_CASE("learning: create, refresh, roam and their events", "[fdb][learn]")
{
	BridgeFixture f(3);
	uint32_t t0 = f.now();
	f.learn(f.p(1), kS1);

	FdbSnap e = f.entry(kS1, 0);
	CHECK(e.port == f.p(1));
	CHECK(e.vlan == nullptr);	/* filtering off: port form */
	CHECK((e.flags & (kFdbLocal | kFdbStatic | kFdbSticky | kFdbAddedByUser | kFdbLocked)) == 0);
	CHECK((e.flags & kFdbDynamicLearned));
	CHECK(e.updated == t0);
	CHECK(f.br->fdb().learned_count() == 1);

	REQUIRE(f.log.size() == 1);
	const FdbEvent &c = f.log.events[0];
	CHECK(c.type == FdbEventType::Created);
	CHECK(c.reason == FdbReason::Learned);
	CHECK(c.mac == kS1);
	CHECK(c.vid == 0);
	CHECK(c.port == f.p(1));
	CHECK(c.old_port == nullptr);
	f.log.clear();

	SECTION("refresh on the same port: updated moves, no event")
	{
		f.advance_ms(5000);
		f.learn(f.p(1), kS1);
		CHECK(f.log.size() == 0);
		e = f.entry(kS1, 0);
		CHECK(e.port == f.p(1));
		CHECK(e.updated == t0 + 5000);
		CHECK(f.br->fdb().count() == fdb_dump(*f.br).size());
	}
	SECTION("roam to another port: Changed with old_port")
	{
		f.learn(f.p(2), kS1);
		CHECK(f.entry(kS1, 0).port == f.p(2));
		REQUIRE(f.log.size() == 1);
		const FdbEvent &ch = f.log.events[0];
		CHECK(ch.type == FdbEventType::Changed);
		CHECK(ch.reason == FdbReason::Learned);
		CHECK(ch.mac == kS1);
		CHECK(ch.port == f.p(2));
		CHECK(ch.old_port == f.p(1));
		CHECK(f.br->fdb().learned_count() == 1);
		/* and traffic follows it */
		Outcome o = f.send(f.p(3), make_frame(kS1, kS3));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});
	}
	SECTION("a second address is a second entry")
	{
		f.learn(f.p(1), kS2);
		CHECK(f.entry(kS2, 0).port == f.p(1));
		CHECK(f.br->fdb().learned_count() == 2);
		CHECK(f.log.count(FdbEventType::Created, FdbReason::Learned) == 1);
	}
}

TEST_CASE("learning off on a port: nothing learned, frames still forwarded", "[fdb][learn]")
{
	BridgeFixture f(2);
	REQUIRE(f.br->port_set_flags(f.p(1), 0, kPortLearning, nullptr) == 0);
	CHECK(!f.p(1)->has_flag(kPortLearning));
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(!f.has(kS1, 0));
	CHECK(f.log.size() == 0);
}

TEST_CASE("ageing_time 0 disables learning", "[fdb][learn]")
{
	BridgeFixture f(2);
	REQUIRE(f.br->set_ageing_time_ms(0, nullptr) == 0);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(!f.has(kS1, 0));
	/* so unicast to it floods */
	o = f.send(f.p(2), make_frame(kS1, kS2));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.v.flood_class == FloodClass::Unicast);
	CHECK(f.log.size() == 0);
}

TEST_CASE("a local entry never moves", "[fdb][learn]")
{
	BridgeFixture f(2);
	FdbDump before = fdb_dump(*f.br);
	/* p2's own address and the bridge address arriving on p1 */
	for (MacKey src : {port_mac(2), kBrAddr}) {
		CAPTURE(mac_str(src));
		f.send(f.p(1), make_frame(kBcast, src));
	}
	CHECK(fdb_dump(*f.br) == before);
	CHECK(f.log.size() == 0);
	CHECK(f.entry(port_mac(2), 0).port == f.p(2));
	CHECK(f.entry(kBrAddr, 0).port == f.host());
}

TEST_CASE("sticky entries never roam; static non-sticky ones do", "[fdb][learn][sticky]")
{
	struct Row {
		const char *name;
		uint16_t flags;
		bool roams;
	};
	const Row rows[] = {
		{"static sticky", kFdbStatic | kFdbSticky, false},
		{"dynamic sticky", kFdbSticky, false},
		{"static", kFdbStatic, true},
		{"dynamic user", 0, true},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		BridgeFixture f(3);
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(1), r.flags, FdbAddMode::Create, nullptr) == 0);
		uint16_t flags_before = f.entry(kS1, 0).flags;
		CHECK((flags_before & kFdbAddedByUser));
		f.log.clear();

		f.learn(f.p(2), kS1);
		FdbSnap e = f.entry(kS1, 0);
		if (r.roams) {
			CHECK(e.port == f.p(2));
			REQUIRE(f.log.size() == 1);
			CHECK(f.log.events[0].type == FdbEventType::Changed);
			CHECK(f.log.events[0].old_port == f.p(1));
			CHECK(f.log.events[0].port == f.p(2));
		} else {
			CHECK(e.port == f.p(1));
			CHECK(f.log.size() == 0);
		}
		/* the entry keeps its kind: static stays static */
		CHECK((e.flags & (kFdbStatic | kFdbSticky | kFdbAddedByUser)) ==
		      (flags_before & (kFdbStatic | kFdbSticky | kFdbAddedByUser)));
		CHECK(f.br->fdb().learned_count() == 0);

		/* forwarding follows the entry */
		Outcome o = f.send(f.p(3), make_frame(kS1, kS3));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(ports_of(o) == std::vector<Port *>{r.roams ? f.p(2) : f.p(1)});
	}
}

TEST_CASE("fdb_max_learned caps learned entries only", "[fdb][learn][limit]")
{
	BridgeFixture f(3);
	f.br->set_fdb_max_learned(3);
	for (uint32_t i = 0; i < 6; i++)
		f.learn(f.p(1), host_mac(0x3000 + i));
	CHECK(f.br->fdb().learned_count() == 3);
	unsigned present = 0;
	for (uint32_t i = 0; i < 6; i++)
		present += f.has(host_mac(0x3000 + i), 0);
	CHECK(present == 3);
	CHECK(f.log.count(FdbEventType::Created) == 3);
	/* an address over the limit is flooded to, not forwarded */
	Outcome o = f.send(f.p(2), make_frame(host_mac(0x3005), kS2));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(!f.has(kS2, 0));

	SECTION("user entries are added at the limit and are not counted")
	{
		struct Row {
			const char *name;
			MacKey mac;
			Port *port;
			uint16_t flags;
		};
		const Row rows[] = {
			{"static", host_mac(0x3100), f.p(2), kFdbStatic},
			{"user dynamic", host_mac(0x3101), f.p(2), 0},
			{"local on port", host_mac(0x3102), f.p(2), kFdbLocal},
			{"local on bridge", host_mac(0x3103), f.host(), kFdbLocal},
		};
		for (const Row &r : rows) {
			CAPTURE(r.name);
			CHECK(f.br->fdb_add(r.mac, 0, r.port, r.flags, FdbAddMode::Create, nullptr) == 0);
			CHECK(f.has(r.mac, 0));
			CHECK(f.br->fdb().learned_count() == 3);
		}
	}
	SECTION("roaming a learned entry keeps the count")
	{
		f.learn(f.p(2), host_mac(0x3000));
		CHECK(f.entry(host_mac(0x3000), 0).port == f.p(2));
		CHECK(f.br->fdb().learned_count() == 3);
	}
	SECTION("deleting a learned entry frees a slot")
	{
		REQUIRE(f.br->fdb_del(host_mac(0x3000), 0, nullptr, nullptr) == 0);
		CHECK(f.br->fdb().learned_count() == 2);
		f.learn(f.p(1), kS4);
		CHECK(f.has(kS4, 0));
		CHECK(f.br->fdb().learned_count() == 3);
	}
	SECTION("flushing frees every slot")
	{
		CHECK(f.br->fdb_flush(dynamic_only()) == 3);
		CHECK(f.br->fdb().learned_count() == 0);
	}
	SECTION("limit 0 means no limit")
	{
		f.br->set_fdb_max_learned(0);
		f.learn(f.p(1), kS4);
		CHECK(f.has(kS4, 0));
		CHECK(f.br->fdb().learned_count() == 4);
	}
}

TEST_CASE("fdb_max_learned accounting when user entries override learned ones",
	  "[fdb][learn][limit]")
{
	/* bridge_fdb_learning_limit.sh check_accounting_one_type */
	struct Row {
		const char *name;
		uint16_t flags;
		bool on_host;
	};
	const Row rows[] = {
		{"static", kFdbStatic, false},
		{"user dynamic", 0, false},
		{"local", kFdbLocal, false},
		{"local on bridge", kFdbLocal, true},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		BridgeFixture f(2);
		f.learn(f.p(1), kS1);
		REQUIRE(f.br->fdb().learned_count() == 1);
		Port *to = r.on_host ? f.host() : f.p(1);
		/* Create on an existing entry fails and changes nothing */
		CHECK(f.br->fdb_add(kS1, 0, to, r.flags, FdbAddMode::Create, nullptr) == -kEEXIST);
		CHECK(f.br->fdb().learned_count() == 1);
		CHECK(f.br->fdb_add(kS1, 0, to, r.flags, FdbAddMode::Replace, nullptr) == 0);
		CHECK(f.br->fdb().learned_count() == 0);
		FdbSnap e = f.entry(kS1, 0);
		CHECK((e.flags & kFdbAddedByUser));
		CHECK(!(e.flags & kFdbDynamicLearned));
		CHECK(e.port == to);
		REQUIRE(f.br->fdb_del(kS1, 0, nullptr, nullptr) == 0);
		CHECK(f.br->fdb().learned_count() == 0);
	}
}

TEST_CASE("fdb_add: validation", "[fdb][user]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 11, 0, nullptr) == 0);
	f.log.clear();
	FdbDump before = fdb_dump(*f.br);

	struct Row {
		const char *name;
		MacKey mac;
		int32_t vid;
		bool host;
		uint16_t flags;
		int err;
	};
	const Row rows[] = {
		{"zero address", 0, 0, false, kFdbStatic, -kEINVAL},
		{"sticky local", kS1, 0, false, kFdbLocal | kFdbSticky, -kEINVAL},
		{"VID not on the port", kS1, 30, false, kFdbStatic, -kEINVAL},
		{"VID out of range", kS1, 4095, false, kFdbStatic, -kEINVAL},
		{"static on the bridge device", kS1, 0, true, kFdbStatic, -kEINVAL},
		{"dynamic on the bridge device", kS1, 0, true, 0, -kEINVAL},
		{"sticky on the bridge device", kS1, 0, true, kFdbSticky, -kEINVAL},
	};
	for (const Row &r : rows) {
		CAPTURE(r.name);
		Extack ack;
		Port *to = r.host ? f.host() : f.p(1);
		CHECK(f.br->fdb_add(r.mac, r.vid, to, r.flags, FdbAddMode::Create, &ack) == r.err);
		CHECK(f.br->fdb_add(r.mac, r.vid, to, r.flags, FdbAddMode::Replace, &ack) == r.err);
		CHECK(fdb_dump(*f.br) == before);
		CHECK(f.log.size() == 0);
	}
}

TEST_CASE("fdb_add: multicast addresses are accepted, as br_fdb_add", "[fdb][user]")
{
	/* Linux refuses only the zero address; a multicast entry is stored
	 * and shown but multicast frames are still flooded. */
	BridgeFixture f(3);
	REQUIRE(f.br->fdb_add(kMcast, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kBcast, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	CHECK(f.has(kMcast, 0));
	CHECK(f.has(kBcast, 0));
	Outcome o = f.send(f.p(2), make_frame(kMcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.egress.size() == 2);
	o = f.send(f.p(2), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
}

TEST_CASE("fdb_add: extern_learn (br_fdb_external_learn_add)", "[fdb][user]")
{
	BridgeFixture f(3);
	FdbSnap s;
	SECTION("creates a never-ageing entry whatever the state words say")
	{
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(1), kFdbExtLearn | kFdbStatic | kFdbSticky,
				      FdbAddMode::Create, nullptr) == 0);
		REQUIRE(f.has(kS1, 0, &s));
		CHECK(s.flags == (kFdbExtLearn | kFdbAddedByUser));
		/* the create mode does not apply: no EEXIST */
		CHECK(f.br->fdb_add(kS1, 0, f.p(1), kFdbExtLearn, FdbAddMode::Create, nullptr) == 0);
		f.advance_ms(kFdbDefaultAgeingMs * 2);
		f.br->run_ageing(f.now());
		CHECK(f.has(kS1, 0));
	}
	SECTION("moves an existing entry, even a static sticky one, keeping its kind")
	{
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(1), kFdbStatic | kFdbSticky, FdbAddMode::Create,
				      nullptr) == 0);
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(2), kFdbExtLearn, FdbAddMode::Create, nullptr) == 0);
		REQUIRE(f.has(kS1, 0, &s));
		CHECK(s.port == f.p(2));
		CHECK(s.flags == (kFdbStatic | kFdbSticky | kFdbExtLearn | kFdbAddedByUser));
		/* a later user replace keeps the external flag (fdb_add_entry) */
		REQUIRE(f.br->fdb_add(kS1, 0, f.p(2), kFdbStatic, FdbAddMode::Replace, nullptr) == 0);
		REQUIRE(f.has(kS1, 0, &s));
		CHECK(s.flags == (kFdbStatic | kFdbExtLearn | kFdbAddedByUser));
	}
	SECTION("on the bridge device it must be permanent and becomes local")
	{
		CHECK(f.br->fdb_add(kS1, 0, f.host(), kFdbExtLearn, FdbAddMode::Create, nullptr) ==
		      -kEINVAL);
		REQUIRE(f.br->fdb_add(kS1, 0, f.host(), kFdbExtLearn | kFdbLocal,
				      FdbAddMode::Create, nullptr) == 0);
		REQUIRE(f.has(kS1, 0, &s));
		CHECK((s.flags & kFdbLocal));
	}
}

TEST_CASE("fdb_add: kinds, modes and events", "[fdb][user]")
{
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 11, 0, nullptr) == 0);
	f.log.clear();

	SECTION("static entry: Created/User, static + added_by_user, forwards")
	{
		REQUIRE(f.br->fdb_add(kS1, 10, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		FdbSnap e = f.entry(kS1, 10);
		CHECK(e.port == f.p(1));
		CHECK((e.flags & kFdbStatic));
		CHECK((e.flags & kFdbAddedByUser));
		CHECK(!(e.flags & (kFdbLocal | kFdbSticky | kFdbDynamicLearned)));
		REQUIRE(f.log.size() == 1);
		CHECK(f.log.events[0].type == FdbEventType::Created);
		CHECK(f.log.events[0].reason == FdbReason::User);
		CHECK(f.log.events[0].port == f.p(1));
		CHECK(f.log.events[0].vid == 10);
		f.log.clear();

		CHECK(f.br->fdb_add(kS1, 10, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == -kEEXIST);
		CHECK(f.log.size() == 0);

		/* Replace with identical content changes nothing and says nothing */
		CHECK(f.br->fdb_add(kS1, 10, f.p(1), kFdbStatic, FdbAddMode::Replace, nullptr) == 0);
		CHECK(f.log.size() == 0);

		/* Replace moves it: Changed/User with old_port */
		REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
		f.log.clear();
		CHECK(f.br->fdb_add(kS1, 10, f.p(2), kFdbStatic, FdbAddMode::Replace, nullptr) == 0);
		CHECK(f.entry(kS1, 10).port == f.p(2));
		REQUIRE(f.log.size() == 1);
		CHECK(f.log.events[0].type == FdbEventType::Changed);
		CHECK(f.log.events[0].reason == FdbReason::User);
		CHECK(f.log.events[0].old_port == f.p(1));
		CHECK(f.log.events[0].port == f.p(2));
		f.log.clear();

		/* Replace changes the kind: static -> dynamic */
		CHECK(f.br->fdb_add(kS1, 10, f.p(2), 0, FdbAddMode::Replace, nullptr) == 0);
		e = f.entry(kS1, 10);
		CHECK(!(e.flags & kFdbStatic));
		CHECK((e.flags & kFdbAddedByUser));
		CHECK(f.log.count(FdbEventType::Changed, FdbReason::User) == 1);

		Outcome o = f.send(f.p(1), make_frame(kS1, kS2, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});
	}
	SECTION("local entry: implies static, delivered up")
	{
		REQUIRE(f.br->fdb_add(kS1, 10, f.p(1), kFdbLocal, FdbAddMode::Create, nullptr) == 0);
		FdbSnap e = f.entry(kS1, 10);
		CHECK((e.flags & kFdbLocal));
		CHECK((e.flags & kFdbStatic));
		REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
		Outcome o = f.send(f.p(2), make_frame(kS1, kS2, {}));
		/* p2 is in VLAN 1 only; the entry is in VLAN 10: unknown unicast */
		CHECK(o.v.kind == VerdictKind::Flood);
		REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
		o = f.send(f.p(2), make_frame(kS1, kS2, {q(10)}));
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(o.local_tag == TagAction::Tag);
	}
	SECTION("local entry on the bridge device")
	{
		REQUIRE(f.br->fdb_add(kS1, 1, f.host(), kFdbLocal, FdbAddMode::Create, nullptr) == 0);
		CHECK(f.entry(kS1, 1).port == f.host());
		Outcome o = f.send(f.p(2), make_frame(kS1, kS2));
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(o.local_tag == TagAction::Untag);
	}
	SECTION("no VLAN given: VID 0 and every VLAN of the port")
	{
		REQUIRE(f.br->fdb_add(kS1, -1, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		for (uint16_t vid : {0, 1, 10, 11}) {
			CAPTURE(vid);
			FdbSnap e = f.entry(kS1, vid);
			CHECK(e.port == f.p(1));
			CHECK((e.flags & kFdbStatic));
		}
		CHECK(!f.has(kS1, 12));
		CHECK(f.log.count(FdbEventType::Created, FdbReason::User) == 4);
		f.log.clear();

		SECTION("fdb_del without VLAN deletes them all")
		{
			REQUIRE(f.br->fdb_del(kS1, -1, f.p(1), nullptr) == 0);
			for (uint16_t vid : {0, 1, 10, 11})
				CHECK(!f.has(kS1, vid));
			CHECK(f.log.count(FdbEventType::Deleted, FdbReason::User) == 4);
		}
		SECTION("fdb_del of one VID")
		{
			REQUIRE(f.br->fdb_del(kS1, 10, f.p(1), nullptr) == 0);
			CHECK(!f.has(kS1, 10));
			CHECK(f.has(kS1, 11));
			CHECK(f.has(kS1, 0));
			REQUIRE(f.log.size() == 1);
			CHECK(f.log.events[0].type == FdbEventType::Deleted);
			CHECK(f.log.events[0].reason == FdbReason::User);
			CHECK(f.log.events[0].mac == kS1);
			CHECK(f.log.events[0].vid == 10);
		}
	}
	SECTION("dynamic user entry ages; static does not")
	{
		REQUIRE(f.br->set_ageing_time_ms(10000, nullptr) == 0);
		REQUIRE(f.br->fdb_add(kS1, 1, f.p(1), 0, FdbAddMode::Create, nullptr) == 0);
		REQUIRE(f.br->fdb_add(kS2, 1, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		f.advance_ms(20000);
		f.br->run_ageing(f.now());
		CHECK(!f.has(kS1, 1));
		CHECK(f.has(kS2, 1));
	}
}

TEST_CASE("fdb_del", "[fdb][user]")
{
	BridgeFixture f(2);
	f.learn(f.p(1), kS1);
	f.log.clear();
	CHECK(f.br->fdb_del(kS2, 0, nullptr, nullptr) == -kENOENT);
	/* the entry must point to the given port */
	CHECK(f.br->fdb_del(kS1, 0, f.p(2), nullptr) < 0);
	CHECK(f.has(kS1, 0));
	CHECK(f.log.size() == 0);
	CHECK(f.br->fdb_del(kS1, 0, f.p(1), nullptr) == 0);
	CHECK(!f.has(kS1, 0));
	REQUIRE(f.log.size() == 1);
	CHECK(f.log.events[0].type == FdbEventType::Deleted);
	CHECK(f.log.events[0].reason == FdbReason::User);
	CHECK(f.log.events[0].port == f.p(1));
	CHECK(f.br->fdb().learned_count() == 0);
	/* a deleted destination floods again */
	Outcome o = f.send(f.p(2), make_frame(kS1, kS2));
	CHECK(o.v.kind == VerdictKind::Flood);
}

TEST_CASE("fdb_flush filters (fdb_flush.sh)", "[fdb][flush]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	/* dynamic learned: S1@1 p1, S1@10 p1, S2@1 p2; static: S3@1 p1, S3@10 p2;
	 * sticky static S4@1 p1 */
	f.learn(f.p(1), kS1);
	f.learn(f.p(1), kS1, {q(10)});
	f.learn(f.p(2), kS2);
	REQUIRE(f.br->fdb_add(kS3, 1, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS3, 10, f.p(2), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS4, 1, f.p(1), kFdbStatic | kFdbSticky, FdbAddMode::Create,
			      nullptr) == 0);
	f.log.clear();

	using K = FdbKey;
	const std::vector<K> all = {{kS1, 1}, {kS1, 10}, {kS2, 1}, {kS3, 1}, {kS3, 10}, {kS4, 1}};
	struct Row {
		const char *name;
		FdbFilter filter;
		std::vector<K> gone;
	};
	auto mk = [](Port *p, int32_t vid, uint16_t set, uint16_t clear) {
		FdbFilter fl;
		fl.port = p;
		fl.vid = vid;
		fl.flags_set = set;
		fl.flags_clear = clear;
		return fl;
	};
	const std::vector<Row> rows = {
		{"dynamic of p1", mk(f.p(1), -1, 0, kFdbStatic), {{kS1, 1}, {kS1, 10}}},
		{"dynamic everywhere", mk(nullptr, -1, 0, kFdbStatic), {{kS1, 1}, {kS1, 10}, {kS2, 1}}},
		{"dynamic in VLAN 10", mk(nullptr, 10, 0, kFdbStatic), {{kS1, 10}}},
		{"static non-local of p1", mk(f.p(1), -1, kFdbStatic, kFdbLocal), {{kS3, 1}, {kS4, 1}}},
		{"sticky", mk(nullptr, -1, kFdbSticky, 0), {{kS4, 1}}},
		{"p2 in VLAN 10, non-local", mk(f.p(2), 10, 0, kFdbLocal), {{kS3, 10}}},
		{"p3 dynamic", mk(f.p(3), -1, 0, kFdbStatic), {}},
	};
	for (const Row &r : rows) {
		SECTION(r.name)
		{
			unsigned n = f.br->fdb_flush(r.filter);
			CHECK(n == r.gone.size());
			for (const K &k : all) {
				bool gone = std::find(r.gone.begin(), r.gone.end(), k) != r.gone.end();
				CAPTURE(mac_str(k.first), k.second);
				CHECK(f.has(k.first, k.second) == !gone);
			}
			CHECK(f.log.size() == r.gone.size());
			CHECK(f.log.count(FdbEventType::Deleted, FdbReason::Flushed) == r.gone.size());
			/* local entries are untouched by these filters */
			for (unsigned i = 1; i <= 3; i++) {
				CHECK(f.has(port_mac(i), 0));
				CHECK(f.has(port_mac(i), 10));
			}
			CHECK(f.has(kBrAddr, 0));
		}
	}
}

TEST_CASE("ageing", "[fdb][ageing]")
{
	BridgeFixture f(2);
	CHECK(f.br->fdb().ageing_ms() == kFdbDefaultAgeingMs);
	const uint32_t age = 10000;
	REQUIRE(f.br->set_ageing_time_ms(age, nullptr) == 0);
	CHECK(f.br->fdb().ageing_ms() == age);
	CHECK(f.br->set_ageing_time_ms(kFdbMaxAgeingMs + 1, nullptr) < 0);
	CHECK(f.br->fdb().ageing_ms() == age);

	f.learn(f.p(1), kS1);
	f.learn(f.p(1), kS2);
	REQUIRE(f.br->fdb_add(kS3, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	f.log.clear();

	f.advance_ms(age / 2);
	f.learn(f.p(1), kS2);	/* refresh S2 */
	f.advance_ms(age / 2 - 1);
	f.br->run_ageing(f.now());
	CHECK(f.has(kS1, 0));
	CHECK(f.log.size() == 0);

	f.advance_ms(2);
	f.br->run_ageing(f.now());
	CHECK(!f.has(kS1, 0));
	CHECK(f.has(kS2, 0));	/* refreshed half-way */
	REQUIRE(f.log.size() == 1);
	CHECK(f.log.events[0].type == FdbEventType::Deleted);
	CHECK(f.log.events[0].reason == FdbReason::Aged);
	CHECK(f.log.events[0].mac == kS1);
	CHECK(f.br->fdb().learned_count() == 1);

	/* forwarding to an entry does not refresh it (only learning does) */
	f.advance_ms(age / 2 - 10);
	f.send(f.p(2), make_frame(kS2, kS4));
	f.advance_ms(20);
	f.br->run_ageing(f.now());
	CHECK(!f.has(kS2, 0));

	/* static and local entries never age */
	f.advance_ms(uint64_t(age) * 100);
	f.br->run_ageing(f.now());
	CHECK(f.has(kS3, 0));
	CHECK(f.has(port_mac(1), 0));
	CHECK(f.has(port_mac(1), 1));
	CHECK(f.has(kBrAddr, 0));
	CHECK(f.has(port_mac(2), 0));
}

TEST_CASE("port link down flushes the port's dynamic entries", "[fdb][port]")
{
	BridgeFixture f(2);
	f.learn(f.p(1), kS1);
	f.learn(f.p(2), kS2);
	REQUIRE(f.br->fdb_add(kS3, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS4, 0, f.p(1), 0, FdbAddMode::Create, nullptr) == 0);
	f.log.clear();
	f.br->port_link_changed(f.p(1), false);
	CHECK(!f.has(kS1, 0));
	CHECK(!f.has(kS4, 0));	/* user-added dynamic */
	CHECK(f.has(kS2, 0));
	CHECK(f.has(kS3, 0));
	CHECK(f.has(port_mac(1), 0));
	CHECK(f.log.count(FdbEventType::Deleted) == 2);
	CHECK(f.log.size() == 2);
	f.log.clear();
	f.br->port_link_changed(f.p(1), true);
	CHECK(f.log.size() == 0);
	CHECK(f.has(kS3, 0));
}

TEST_CASE("removing a port hands a shared local address to its other owner",
	  "[fdb][port]")
{
	/* fdb_delete_local: found by the conformance soak (seed 1776), where
	 * the bridge's address appended on a port went away with the port. */
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 20, 20, 0, nullptr) == 0);
	/* the bridge's address, re-pointed at p1 in VID 10 (fdb append) */
	REQUIRE(f.br->fdb_add(kBrAddr, 10, f.p(1), kFdbLocal, FdbAddMode::Replace, nullptr) == 0);
	/* p2's address on p1 in VID 1 and 20; p2 has VID 1 but not VID 30 */
	REQUIRE(f.br->fdb_add(port_mac(2), 1, f.p(1), kFdbLocal, FdbAddMode::Replace, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 30, 30, 0, nullptr) == 0);
	REQUIRE(f.br->fdb_add(port_mac(2), 30, f.p(1), kFdbLocal, FdbAddMode::Create, nullptr) == 0);
	Port *p1 = f.p(1);
	f.br->remove_port(p1);
	f.ports[0] = nullptr;
	FdbSnap s;
	REQUIRE(f.has(kBrAddr, 10, &s));
	CHECK(s.port == f.host());
	CHECK((s.flags & kFdbLocal));
	REQUIRE(f.has(port_mac(2), 1, &s));
	CHECK(s.port == f.p(2));
	CHECK(!f.has(port_mac(2), 30));	/* p2 is not in VID 30: deleted */
	CHECK(!f.has(port_mac(1), 0));
}

TEST_CASE("removing a port deletes all its entries", "[fdb][port]")
{
	BridgeFixture f(3);
	Port *p1 = f.p(1);
	f.learn(p1, kS1);
	f.learn(f.p(2), kS2);
	REQUIRE(f.br->fdb_add(kS3, 0, p1, kFdbStatic | kFdbSticky, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS4, 0, p1, kFdbLocal, FdbAddMode::Create, nullptr) == 0);
	f.log.clear();
	f.br->remove_port(p1);
	f.ports[0] = nullptr;
	CHECK(f.br->port_count() == 2);
	CHECK(f.br->find_port(1) == nullptr);
	for (MacKey m : {kS1, kS3, kS4, port_mac(1)}) {
		CAPTURE(mac_str(m));
		CHECK(!f.has(m, 0));
	}
	CHECK(!f.has(port_mac(1), 1));
	CHECK(f.has(kS2, 0));
	CHECK(f.has(port_mac(2), 0));
	/* kS1, kS3, kS4, port_mac(1)@0, port_mac(1)@1 */
	CHECK(f.log.count(FdbEventType::Deleted, FdbReason::PortRemoved) == 5);
	CHECK(f.log.size() == 5);
	for (const FdbEvent &e : f.log.events)
		CHECK(e.port == p1);
	/* no entry points at the removed port any more */
	for (auto &kv : fdb_dump(*f.br))
		CHECK(kv.second.port != p1);
	Outcome o = f.send(f.p(2), make_frame(kS1, kS2));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(o.egress.size() == 1);
	CHECK(o.to(f.p(3)));
}

TEST_CASE("deleting a port VLAN flushes its dynamic entries, keeps static ones in port form",
	  "[fdb][vlan]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	f.learn(f.p(1), kS1, {q(10)});	/* dynamic on p1 @10: goes */
	REQUIRE(f.br->fdb_add(kS2, 10, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	f.learn(f.p(1), kS3);		/* dynamic on p1 @1: stays */
	f.learn(f.p(2), kS4, {q(10)});	/* dynamic on p2 @10: stays */
	PortVlan *p2v10 = f.pv(f.p(2), 10);
	CHECK(f.entry(kS1, 10).vlan == f.pv(f.p(1), 10));
	f.log.clear();

	REQUIRE(f.br->vlan_del(f.p(1), 10, 10, nullptr) == 0);
	CHECK(f.pv(f.p(1), 10) == nullptr);
	CHECK(!f.has(kS1, 10));
	CHECK(!f.has(port_mac(1), 10));
	FdbSnap s2 = f.entry(kS2, 10);
	CHECK(s2.port == f.p(1));
	CHECK(s2.vlan == nullptr);
	CHECK((s2.flags & kFdbStatic));
	CHECK(f.entry(kS3, 1).port == f.p(1));
	FdbSnap s4 = f.entry(kS4, 10);
	CHECK(s4.port == f.p(2));
	CHECK(s4.vlan == p2v10);
	CHECK(f.has(port_mac(2), 10));
	CHECK(f.log.count(FdbEventType::Deleted, FdbReason::VlanRemoved) >= 1);
	for (const FdbEvent &e : f.log.about(kS1, 10)) {
		CHECK(e.type == FdbEventType::Deleted);
		CHECK(e.reason == FdbReason::VlanRemoved);
	}
	CHECK(f.log.about(kS2, 10).empty());
	CHECK(f.log.about(kS4, 10).empty());
	/* no entry caches a port VLAN of p1 at VID 10 any more */
	for (auto &kv : fdb_dump(*f.br))
		if (kv.second.vlan)
			CHECK(!(kv.second.vlan->port == f.p(1) && kv.second.vlan->vid == 10));

	/* the static entry now points at a port outside the VLAN: NoEgress */
	Outcome o = f.send(f.p(3), make_frame(kS2, kS4, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::NoEgress);
	/* re-adding the VLAN makes it forward again (looked up on egress) */
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, kVlanUntagged, nullptr) == 0);
	o = f.send(f.p(3), make_frame(kS2, kS4, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.tag_to(f.p(1)) == TagAction::Untag);
}

TEST_CASE("tagged destinations: learned entries cache the port VLAN", "[fdb][tagged]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	CHECK(f.br->opts().fdb_cache_vlan);

	f.learn(f.p(1), kS1, {q(10)});
	FdbSnap e = f.entry(kS1, 10);
	CHECK(e.port == f.p(1));
	REQUIRE(e.vlan != nullptr);
	CHECK(e.vlan == f.pv(f.p(1), 10));
	CHECK(e.vlan->port == f.p(1));
	CHECK(e.vlan->vid == 10);
	{
		RcuReadGuard g;
		FdbEntry *fe = f.br->fdb().lookup(kS1, 10);
		REQUIRE(fe);
		FdbDest d = fe->destination();
		CHECK(d.has_vlan());
		DecodedDest dd = decode_dest(d);
		CHECK(dd.port == f.p(1));
		CHECK(dd.vlan == f.pv(f.p(1), 10));
	}

	SECTION("roam re-targets the cached VLAN")
	{
		f.log.clear();
		f.learn(f.p(2), kS1, {q(10)});
		e = f.entry(kS1, 10);
		CHECK(e.port == f.p(2));
		CHECK(e.vlan == f.pv(f.p(2), 10));
		CHECK(f.log.count(FdbEventType::Changed, FdbReason::Learned) == 1);
	}
	SECTION("cache off: new and refreshed entries use the port form")
	{
		f.br->set_fdb_cache_vlan(false);
		f.learn(f.p(2), kS2, {q(10)});
		e = f.entry(kS2, 10);
		CHECK(e.port == f.p(2));
		CHECK(e.vlan == nullptr);
		f.advance_ms(10);
		f.learn(f.p(1), kS1, {q(10)});
		e = f.entry(kS1, 10);
		CHECK(e.port == f.p(1));
		CHECK(e.vlan == nullptr);

		SECTION("turning the cache on promotes silently on the next frame")
		{
			f.br->set_fdb_cache_vlan(true);
			f.log.clear();
			f.advance_ms(10);
			f.learn(f.p(2), kS2, {q(10)});
			e = f.entry(kS2, 10);
			CHECK(e.port == f.p(2));
			CHECK(e.vlan == f.pv(f.p(2), 10));
			CHECK(f.log.size() == 0);
		}
	}
	SECTION("promotion happens even within the same tick")
	{
		f.br->set_fdb_cache_vlan(false);
		f.learn(f.p(2), kS2, {q(10)});
		REQUIRE(f.entry(kS2, 10).vlan == nullptr);
		f.br->set_fdb_cache_vlan(true);
		f.log.clear();
		f.learn(f.p(2), kS2, {q(10)});
		CHECK(f.entry(kS2, 10).vlan == f.pv(f.p(2), 10));
		CHECK(f.log.size() == 0);
	}
	SECTION("filtering off: port form")
	{
		REQUIRE(f.br->set_vlan_filtering(false, nullptr) == 0);
		f.learn(f.p(1), kS3, {q(10)});
		e = f.entry(kS3, 0);
		CHECK(e.port == f.p(1));
		CHECK(e.vlan == nullptr);
	}
}

namespace {

/* One scenario run with the VLAN cache on or off; returns outcome strings. */
std::vector<std::string> cache_scenario(bool cache)
{
	std::vector<std::string> out;
	BridgeFixture f(4, true);
	f.br->set_fdb_cache_vlan(cache);
	/* p1: 1U, 10T, 20T; p2: 1U, 10T; p3: 1U, 10U, 20T; p4: 1U */
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 20, 20, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(3), 10, 10, kVlanUntagged, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(3), 20, 20, 0, nullptr) == 0);

	f.learn(f.p(2), kS2, {q(10)});
	f.learn(f.p(3), kS3, {});	/* S3@1 (p3's PVID is 1) */
	f.learn(f.p(3), kS3, {q(20)});	/* S3@20 */
	f.learn(f.p(3), kS3, {q(10)});	/* S3@10 */
	f.learn(f.p(4), kS4, {});	/* S4@1 */

	auto run = [&](const char *what, Port *in, MacKey dst, std::vector<Tag> tags) {
		Outcome o = f.send(in, make_frame(dst, kS1, tags));
		out.push_back(std::string(what) + ": " + describe(o));
	};
	auto all = [&](const char *phase) {
		std::string p(phase);
		run((p + " S2@10").c_str(), f.p(1), kS2, {q(10)});
		run((p + " S3@10").c_str(), f.p(1), kS3, {q(10)});
		run((p + " S3@20").c_str(), f.p(1), kS3, {q(20)});
		run((p + " S3@1").c_str(), f.p(1), kS3, {});
		run((p + " S4@1").c_str(), f.p(1), kS4, {});
		run((p + " S4@10").c_str(), f.p(1), kS4, {q(10)});
	};
	all("initial");
	/* VLAN flags change in place: untagged on p2 VLAN 10 */
	REQUIRE(f.br->vlan_add(f.p(2), 10, 10, kVlanUntagged, nullptr) == 0);
	all("p2-10-untagged");
	/* per-VLAN state blocks p3's VLAN 10 */
	REQUIRE(f.br->vlan_set_state(f.p(3), 10, uint8_t(PortState::Blocking), nullptr) == 0);
	all("p3-10-blocking");
	REQUIRE(f.br->vlan_set_state(f.p(3), 10, uint8_t(PortState::Forwarding), nullptr) == 0);
	/* p3 leaves VLAN 20: its learned S3@20 goes */
	REQUIRE(f.br->vlan_del(f.p(3), 20, 20, nullptr) == 0);
	all("p3-left-20");
	/* port state of p2 */
	REQUIRE(f.br->port_set_state(f.p(2), uint8_t(PortState::Listening), nullptr) == 0);
	all("p2-listening");
	return out;
}

} // namespace

TEST_CASE("tagged destinations: forwarding identical with the VLAN cache on and off",
	  "[fdb][tagged][forward]")
{
	std::vector<std::string> on = cache_scenario(true);
	std::vector<std::string> off = cache_scenario(false);
	REQUIRE(on.size() == off.size());
	for (size_t i = 0; i < on.size(); i++) {
		CAPTURE(i);
		CHECK(on[i] == off[i]);
	}
	/* and a few of the outcomes are what Linux does */
	auto find = [&](const std::string &prefix) {
		for (auto &s : on)
			if (s.compare(0, prefix.size(), prefix) == 0)
				return s;
		return std::string();
	};
	CHECK(find("initial S2@10:").find("Forward") != std::string::npos);
	CHECK(find("initial S2@10:").find("2:Tag") != std::string::npos);
	CHECK(find("initial S3@10:").find("3:Untag") != std::string::npos);
	CHECK(find("initial S3@20:").find("3:Tag") != std::string::npos);
	CHECK(find("p2-10-untagged S2@10:").find("2:Untag") != std::string::npos);
	CHECK(find("p3-10-blocking S3@10:").find("no_egress") != std::string::npos);
	/* S3@20 was flushed with p3's VLAN 20: nobody left to flood to */
	CHECK(find("p3-left-20 S3@20:").find("Forward") == std::string::npos);
	CHECK(find("p3-left-20 S3@20:").find("egress={}") != std::string::npos);
	CHECK(find("p2-listening S2@10:").find("no_egress") != std::string::npos);
}

TEST_CASE("ageing boundary: an entry ages exactly ageing_time after its update",
	  "[fdb][ageing]")
{
	/* br_fdb_cleanup: kept while updated + delay is after now */
	BridgeFixture f(2);
	REQUIRE(f.br->set_ageing_time_ms(10000, nullptr) == 0);
	f.learn(f.p(1), kS1);
	uint32_t t = f.entry(kS1, 0).updated;
	f.br->run_ageing(t + 9999);
	CHECK(f.has(kS1, 0));
	f.br->run_ageing(t + 10000);
	CHECK(!f.has(kS1, 0));
}

TEST_CASE("ageing across the 32-bit tick wrap", "[fdb][ageing]")
{
	BridgeFixture f(2);
	REQUIRE(f.br->set_ageing_time_ms(10000, nullptr) == 0);
	/* put the clock 5 s before the wrap of the ms tick counter */
	xb_user_set_time_ns((uint64_t(1) << 32) * 1000000ull - 5000ull * 1000000ull);
	f.learn(f.p(1), kS1);
	f.advance_ms(9000);	/* past the wrap, not aged */
	f.br->run_ageing(f.now());
	CHECK(f.has(kS1, 0));
	f.advance_ms(2000);
	f.br->run_ageing(f.now());
	CHECK(!f.has(kS1, 0));
}

TEST_CASE("externally learned entries roam but do not age (bridge_vlan_aware.sh extern_learn)",
	  "[fdb][ageing]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->set_ageing_time_ms(10000, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS1, 1, f.p(1), kFdbExtLearn, FdbAddMode::Create, nullptr) == 0);
	CHECK((f.entry(kS1, 1).flags & kFdbExtLearn));
	CHECK(f.br->fdb().learned_count() == 0);
	f.advance_ms(20000);
	f.br->run_ageing(f.now());
	REQUIRE(f.has(kS1, 1));
	f.learn(f.p(2), kS1);
	FdbSnap e = f.entry(kS1, 1);
	CHECK(e.port == f.p(2));
	CHECK(!(e.flags & kFdbExtLearn));	/* taken over: ages from now on */
	f.advance_ms(20000);
	f.br->run_ageing(f.now());
	CHECK(!f.has(kS1, 1));
}

TEST_CASE("fdb_add: a port that does not learn takes only static entries", "[fdb][user]")
{
	/* fdb_add_entry: -EPERM for dynamic entries on a non-learning port */
	BridgeFixture f(2);
	REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Listening), nullptr) == 0);
	CHECK(f.br->fdb_add(kS1, 0, f.p(1), 0, FdbAddMode::Create, nullptr) < 0);
	CHECK(!f.has(kS1, 0));
	CHECK(f.br->fdb_add(kS1, 0, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	CHECK(f.br->fdb_add(kS2, 0, f.p(1), kFdbLocal, FdbAddMode::Create, nullptr) == 0);
}

TEST_CASE("set_addr moves the bridge's local entries", "[fdb][bridge]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	const MacKey nw = mac(0x02, 0xbb, 0, 0, 0, 0x99);
	CHECK(f.br->set_addr(kMcast, nullptr) == -kEINVAL);
	CHECK(f.br->set_addr(0, nullptr) == -kEINVAL);
	CHECK(f.br->addr() == kBrAddr);
	REQUIRE(f.br->set_addr(nw, nullptr) == 0);
	CHECK(f.br->addr() == nw);
	for (uint16_t vid : {0, 1, 10}) {
		CAPTURE(vid);
		CHECK(!f.has(kBrAddr, vid));
		FdbSnap e = f.entry(nw, vid);
		CHECK((e.flags & kFdbLocal));
		CHECK(e.port == f.host());
	}
	Outcome o = f.send(f.p(1), make_frame(nw, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Local);
	o = f.send(f.p(1), make_frame(kBrAddr, kS1, {q(10)}));
	CHECK(o.v.kind == VerdictKind::Flood);
}

TEST_CASE("a port's address change moves its local entries", "[fdb][bridge]")
{
	/* br_fdb_changeaddr: VID 0 and every VLAN of the port */
	BridgeFixture f(3, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	const MacKey old = port_mac(1);
	const MacKey nw = mac(0x02, 0xcc, 0, 0, 0, 0x01);
	f.br->set_port_addr(f.p(1), nw);
	for (uint16_t vid : {0, 1, 10}) {
		CAPTURE(vid);
		CHECK(!f.has(old, vid));
		FdbSnap e = f.entry(nw, vid);
		CHECK((e.flags & kFdbLocal));
		CHECK(e.port == f.p(1));
	}
	Outcome o = f.send(f.p(2), make_frame(nw, kS1, {}));
	CHECK(o.v.kind == VerdictKind::Local);
}

TEST_CASE("a port's old address another port owns moves there", "[fdb][bridge]")
{
	/* fdb_delete_local: the entry stays, on the other owner */
	BridgeFixture f(3, true);
	const MacKey shared = port_mac(1);
	f.br->set_port_addr(f.p(2), shared);	/* p2 takes p1's address: p1's entry stays */
	FdbSnap e = f.entry(shared, 0);
	CHECK(e.port == f.p(1));
	f.br->set_port_addr(f.p(1), mac(0x02, 0xcc, 0, 0, 0, 0x02));
	e = f.entry(shared, 0);
	CHECK((e.flags & kFdbLocal));
	CHECK(e.port == f.p(2));
	CHECK(f.entry(mac(0x02, 0xcc, 0, 0, 0, 0x02), 0).port == f.p(1));
}

TEST_CASE("a local entry the user added at a port's old address stays", "[fdb][bridge]")
{
	/* br_fdb_changeaddr skips BR_FDB_ADDED_BY_USER entries */
	BridgeFixture f(3, true);
	const MacKey old = port_mac(1);
	REQUIRE(f.br->fdb_add(old, 0, f.p(1), kFdbLocal, FdbAddMode::Replace, nullptr) == 0);
	CHECK((f.entry(old, 0).flags & kFdbAddedByUser));
	CHECK(!(f.entry(old, 1).flags & kFdbAddedByUser));	/* the bridge's own */
	const MacKey nw = mac(0x02, 0xcc, 0, 0, 0, 0x03);
	f.br->set_port_addr(f.p(1), nw);
	FdbSnap e = f.entry(old, 0);
	CHECK((e.flags & kFdbLocal));
	CHECK(e.port == f.p(1));
	CHECK(!f.has(old, 1));
	CHECK(f.entry(nw, 0).port == f.p(1));
	CHECK(!(f.entry(nw, 0).flags & kFdbAddedByUser));
}

TEST_CASE("the bridge's old address a port also has moves to the port", "[fdb][bridge]")
{
	/* br_fdb_change_mac_address -> fdb_delete_local: another owner */
	BridgeFixture f(3, true);
	const MacKey shared = mac(0x02, 0xcc, 0, 0, 0, 0x04);
	REQUIRE(f.br->set_addr(shared, nullptr) == 0);
	f.br->set_port_addr(f.p(2), shared);	/* the bridge's entry stays the bridge's */
	CHECK(f.entry(shared, 0).port == f.host());
	REQUIRE(f.br->set_addr(mac(0x02, 0xcc, 0, 0, 0, 0x05), nullptr) == 0);
	FdbSnap e = f.entry(shared, 0);
	CHECK((e.flags & kFdbLocal));
	CHECK(e.port == f.p(2));
}

TEST_CASE("clear_addr: the bridge without an address has no local entry", "[fdb][bridge]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
	f.br->clear_addr();
	CHECK(f.br->addr() == 0);
	for (uint16_t vid : {0, 1, 10}) {
		CAPTURE(vid);
		CHECK(!f.has(kBrAddr, vid));
		CHECK(!f.has(0, vid));
	}
	REQUIRE(f.br->vlan_add(f.host(), 20, 20, 0, nullptr) == 0);
	CHECK(!f.has(0, 20));
	const MacKey nw = mac(0x02, 0xbb, 0, 0, 0, 0x98);
	REQUIRE(f.br->set_addr(nw, nullptr) == 0);
	for (uint16_t vid : {0, 1, 10, 20}) {
		CAPTURE(vid);
		CHECK(f.entry(nw, vid).port == f.host());
	}
}

TEST_CASE("deleting a bridge VLAN removes the bridge's local entry in it", "[fdb][vlan]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.host(), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.has(kBrAddr, 10));
	REQUIRE(f.br->vlan_del(f.host(), 10, 10, nullptr) == 0);
	CHECK(!f.has(kBrAddr, 10));
	CHECK(f.has(kBrAddr, 0));
	CHECK(f.has(kBrAddr, 1));
}

TEST_CASE("a static entry rewritten to port form is promoted when its VLAN returns",
	  "[fdb][tagged]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(f.br->fdb_add(kS1, 10, f.p(1), kFdbStatic, FdbAddMode::Create, nullptr) == 0);
	REQUIRE(f.br->vlan_del(f.p(1), 10, 10, nullptr) == 0);
	REQUIRE(f.entry(kS1, 10).vlan == nullptr);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 10, 0, nullptr) == 0);
	f.log.clear();
	f.learn(f.p(1), kS1, {q(10)});	/* same port: refresh, promotion */
	FdbSnap e = f.entry(kS1, 10);
	CHECK(e.port == f.p(1));
	CHECK(e.vlan == f.pv(f.p(1), 10));
	CHECK((e.flags & kFdbStatic));
	CHECK(f.log.size() == 0);
}

TEST_CASE("for_each_from: a walk resumed in slices visits every entry once", "[fdb][walk]")
{
	BridgeFixture f(2, true);
	const uint32_t kN = 10000;
	for (uint32_t i = 0; i < kN; i++)
		REQUIRE(f.br->fdb_add(host_mac(0x100000 + i), 0, f.p(1 + (i & 1)), kFdbStatic,
				      FdbAddMode::Create, nullptr) == 0);
	const Fdb &fdb = f.br->fdb();
	const uint32_t total = fdb.count();
	REQUIRE(total >= kN);

	/* Long chains first, then after the resize to about one per bucket. */
	for (int phase = 0; phase < 2; phase++)
	for (uint32_t k : {1u, 7u, 1000u}) {
		CAPTURE(phase, k, fdb.buckets());
		if (phase == 1 && k == 1) {
			uint32_t before = fdb.buckets();
			f.br->run_ageing(0);	/* grows the table */
			REQUIRE(fdb.buckets() > before);
		}
		std::map<uint64_t, int> seen;
		Fdb::Cursor pos;
		uint32_t calls = 0;
		bool done = false;
		while (!done) {
			uint32_t taken = 0;
			done = fdb.for_each_from(pos, [&](const FdbEntry &e) {
				if (taken == k)
					return false;
				taken++;
				seen[e.key]++;
				return true;
			});
			REQUIRE(taken <= k);
			if (!done)
				REQUIRE(taken == k);
			REQUIRE(++calls <= total / k + 2);
		}
		CHECK(seen.size() == total);
		bool once = true;
		for (const auto &kv : seen)
			once &= kv.second == 1;
		CHECK(once);
		for (uint32_t i = 0; i < kN; i += 997)
			CHECK(seen.count(fdb_key(host_mac(0x100000 + i), 0)) == 1);
		/* A finished walk stays finished. */
		CHECK(fdb.for_each_from(pos, [](const FdbEntry &) { return false; }));
	}

	SECTION("refusing at once consumes nothing")
	{
		Fdb::Cursor pos;
		CHECK_FALSE(fdb.for_each_from(pos, [](const FdbEntry &) { return false; }));
		uint32_t n = 0;
		CHECK(fdb.for_each_from(pos, [&](const FdbEntry &) { return ++n, true; }));
		CHECK(n == total);
	}
}

/*
 * A dump spans many rounds while the table changes: the position is an
 * entry's hash, which a resize does not move, so entries that stay are each
 * visited exactly once however the table grows or shrinks in between and
 * whatever else is added or deleted (a flood's dump used to repeat entries
 * while the table grew: 1,084,948 lines for 1,048,586 entries).
 */
TEST_CASE("for_each_from: resizes, adds and deletes between slices repeat nothing and lose no entry that stays",
	  "[fdb][walk]")
{
	BridgeFixture f(2, true);
	const Fdb &fdb = f.br->fdb();
	auto add = [&](uint32_t i) {
		return f.br->fdb_add(host_mac(0x200000 + i), 0, f.p(1 + (i & 1)), kFdbStatic,
				     FdbAddMode::Create, nullptr);
	};
	auto del = [&](uint32_t i) { return f.br->fdb_del(host_mac(0x200000 + i), 0, nullptr, nullptr); };
	const uint32_t kStay = 3000;
	for (uint32_t i = 0; i < kStay; i++)
		REQUIRE(add(i) == 0);
	f.br->run_ageing(0);

	std::map<uint64_t, int> seen;
	Fdb::Cursor pos;
	uint32_t round = 0, extra = 0, resizes = 0;
	bool done = false;
	while (!done) {
		uint32_t taken = 0;
		done = fdb.for_each_from(pos, [&](const FdbEntry &e) {
			if (taken == 50)
				return false;
			taken++;
			seen[e.key]++;
			return true;
		});
		/* Between rounds: grow the table with a burst of others, then
		 * delete them again and let it shrink. */
		const uint32_t before = fdb.buckets();
		if (round % 6 < 3) {
			for (uint32_t k = 0; k < 4000; k++)
				add(kStay + extra++);
		} else {
			while (extra)
				del(kStay + --extra);
		}
		f.br->run_ageing(0);	/* resizes to the count */
		resizes += fdb.buckets() != before;
		round++;
	}
	CHECK(resizes >= 2);	/* grown and shrunk again */
	bool once = true;
	for (const auto &kv : seen)
		once &= kv.second == 1;
	CHECK(once);
	for (uint32_t i = 0; i < kStay; i++)
		if (!seen.count(fdb_key(host_mac(0x200000 + i), 0))) {
			FAIL_CHECK("entry " << i << " that stayed was missed");
			break;
		}
}

TEST_CASE("a flood of new sources asks for the resize at once; ageing then frees them",
	  "[fdb][walk][ageing]")
{
	struct Kicks {
		unsigned n = 0;
		static void fn(void *ctx) { static_cast<Kicks *>(ctx)->n++; }
	} kicks;
	xb_lock *lock = xb_lock_create();
	REQUIRE(lock);
	Fdb fdb;
	REQUIRE(fdb.init(lock, FdbEventSink{}, FdbGrowSink{Kicks::fn, &kicks}) == 0);
	const uint32_t b0 = fdb.buckets();
	Port port{};
	{
		RcuReadGuard rcu;
		for (uint32_t i = 0; i < 2 * b0; i++)
			fdb.learn(FdbDest::to_port(&port), host_mac(0x200000 + i), 0, 1000, 0);
		CHECK(kicks.n == 0);	/* twice the buckets: not yet */
		for (uint32_t i = 2 * b0; i < 8 * b0; i++)
			fdb.learn(FdbDest::to_port(&port), host_mac(0x200000 + i), 0, 1000, 0);
	}
	CHECK(kicks.n == 1);		/* asked once, not once per insert */
	REQUIRE(fdb.resize_if_needed());
	CHECK(fdb.buckets() >= 8 * b0);
	{
		RcuReadGuard rcu;	/* the bigger table asks again only when outgrown */
		fdb.learn(FdbDest::to_port(&port), host_mac(0x300000), 0, 1000, 0);
	}
	CHECK(kicks.n == 1);
	/* Every learned entry ages out through the RCU walk. */
	CHECK(fdb.age(1000 + fdb.ageing_ms() + 1) == 8 * b0 + 1);
	CHECK(fdb.count() == 0);
	xb_synchronize_rcu();
	fdb.fini();
	xb_lock_destroy(lock);
}
