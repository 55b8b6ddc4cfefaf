// SPDX-License-Identifier: GPL-2.0
/*
 * test_lifetime.cc - object lifetimes, meant to run under ASan/UBSan:
 * deleting a port VLAN that FDB entries cache and removing a port that
 * entries point at, then forwarding to those addresses (also with a
 * datapath thread deciding concurrently); destroying a populated bridge
 * without leaks; allocation failure injection for Bridge::create,
 * add_port, vlan_add and fdb_add (error, unchanged state, no leak); FDB
 * growth to 100k entries and shrinking back.
 */
#include "test_util.h"

#include <atomic>
#include <thread>

using namespace xbt;

namespace {

const MacKey kS1 = host_mac(0x6001);

/* Everything a failed control call must leave as it was. */
struct State {
	std::vector<uint32_t> ports;
	std::map<uint32_t, PortVlans> vlans;
	FdbDump fdb;
	uint32_t fdb_count;
	uint32_t learned;

	static State of(const Bridge &br)
	{
		State s;
		s.ports = port_ifindexes(br);
		s.vlans = all_vlans(br);
		s.fdb = fdb_dump(br);
		s.fdb_count = br.fdb().count();
		s.learned = br.fdb().learned_count();
		return s;
	}
	bool operator==(const State &o) const
	{
		return ports == o.ports && vlans == o.vlans && fdb == o.fdb &&
		       fdb_count == o.fdb_count && learned == o.learned;
	}
};

/* Bytes live once deferred frees have run. */
size_t settled_bytes()
{
	xb_rcu_barrier();
	return xb_user_bytes_allocated();
}

size_t settled_allocs()
{
	xb_rcu_barrier();
	return xb_user_allocs_live();
}

/* Run @op with allocation failure after n = 0, 1, ... allocations until it
 * succeeds; every failure must return an error and leave @check true. */
template <typename Op, typename Check>
unsigned inject_until_success(Op op, Check check, unsigned max_n = 2000)
{
	for (unsigned n = 0; n < max_n; n++) {
		xb_user_fail_alloc_after(long(n));
		int err = op();
		xb_user_fail_alloc_after(-1);
		if (err == 0)
			return n;
		CAPTURE(n, err);
		CHECK(err == -kENOMEM);
		check(n);
	}
	FAIL("operation never succeeded");
	return max_n;
}

} // namespace

TEST_CASE("deleting a cached port VLAN, then forwarding to its addresses", "[lifetime][vlan]")
{
	for (bool cache : {true, false}) {
		CAPTURE(cache);
		BridgeFixture f(3, true);
		f.br->set_fdb_cache_vlan(cache);
		for (unsigned i = 1; i <= 3; i++)
			REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
		std::vector<MacKey> dyn, stat;
		for (unsigned i = 0; i < 64; i++) {
			dyn.push_back(host_mac(0x7000 + i));
			f.learn(f.p(2), dyn.back(), {q(10)});
			stat.push_back(host_mac(0x7100 + i));
			REQUIRE(f.br->fdb_add(stat.back(), 10, f.p(2), kFdbStatic, FdbAddMode::Create,
					      nullptr) == 0);
			f.learn(f.p(2), stat.back(), {q(10)});	/* refresh: may promote */
		}
		if (cache)
			CHECK(f.entry(dyn[0], 10).vlan == f.pv(f.p(2), 10));

		REQUIRE(f.br->vlan_del(f.p(2), 10, 10, nullptr) == 0);
		xb_rcu_barrier();	/* the PortVlan is really freed now */

		for (MacKey m : dyn) {
			Outcome o = f.send(f.p(1), make_frame(m, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(ports_of(o) == std::vector<Port *>{f.p(3)});
		}
		for (MacKey m : stat) {
			FdbSnap e = f.entry(m, 10);
			CHECK(e.vlan == nullptr);
			Outcome o = f.send(f.p(1), make_frame(m, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Drop);
			CHECK(o.v.reason == DropReason::NoEgress);
		}
		/* the VLAN comes back: static entries forward again, untagged now */
		REQUIRE(f.br->vlan_add(f.p(2), 10, 10, kVlanUntagged, nullptr) == 0);
		for (MacKey m : stat) {
			Outcome o = f.send(f.p(1), make_frame(m, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Forward);
			CHECK(o.tag_to(f.p(2)) == TagAction::Untag);
		}
	}
}

TEST_CASE("removing a port that entries point at, then forwarding", "[lifetime][port]")
{
	for (bool filtering : {false, true}) {
		CAPTURE(filtering);
		BridgeFixture f(3, filtering);
		for (unsigned i = 1; i <= 3; i++)
			REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
		std::vector<MacKey> macs;
		for (unsigned i = 0; i < 64; i++) {
			macs.push_back(host_mac(0x7200 + i));
			f.learn(f.p(2), macs.back(), {q(10)});
			REQUIRE(f.br->fdb_add(host_mac(0x7300 + i), -1, f.p(2), kFdbStatic | kFdbSticky,
					      FdbAddMode::Create, nullptr) == 0);
			macs.push_back(host_mac(0x7300 + i));
		}
		Port *p2 = f.p(2);
		f.br->remove_port(p2);
		f.ports[1] = nullptr;
		xb_rcu_barrier();	/* the port is really freed now */

		for (MacKey m : macs) {
			for (uint16_t vid : {0, 1, 10})
				CHECK(!f.has(m, vid));
			Outcome o = f.send(f.p(1), make_frame(m, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(ports_of(o) == std::vector<Port *>{f.p(3)});
		}
		for (auto &kv : fdb_dump(*f.br))
			CHECK(kv.second.port != p2);
		/* a new port may reuse the memory; nothing stale points at it */
		Port *p4 = f.add(4);
		REQUIRE(f.br->vlan_add(p4, 10, 10, 0, nullptr) == 0);
		for (MacKey m : macs) {
			Outcome o = f.send(f.p(1), make_frame(m, kS1, {q(10)}));
			CHECK(o.v.kind == VerdictKind::Flood);
			CHECK(o.egress.size() == 2);
		}
	}
}

/*
 * Removal no longer waits for a grace period before flushing: a learner
 * that found the port or port VLAN before it was unpublished can still be
 * running. Play that learner after the removal, inside one read section
 * (so nothing is freed yet): it must make no entry, and promote none, that
 * names what is going.
 */
TEST_CASE("a learner holding a removed port VLAN or port caches neither", "[lifetime][rcu]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	Fdb &fdb = const_cast<Fdb &>(f.br->fdb());
	const uint32_t now = Bridge::now_ticks();
	const MacKey fresh = host_mac(0x7a01), promoted = host_mac(0x7a02);

	SECTION("port VLAN") {
		Port *p2 = f.p(2);
		PortVlan *v = f.pv(p2, 10);
		/* a static entry in the port form, which a learner would promote */
		REQUIRE(f.br->fdb_add(promoted, 10, p2, kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		{
			RcuReadGuard g;
			REQUIRE(f.br->vlan_del(p2, 10, 10, nullptr) == 0);
			CHECK(v->unlinked);
			fdb.learn(FdbDest::to_vlan(v), fresh, 10, now, 0);
			fdb.learn(FdbDest::to_vlan(v), promoted, 10, now, 0);
		}
		CHECK(!f.has(fresh, 10));
		REQUIRE(f.has(promoted, 10));
		CHECK(f.entry(promoted, 10).vlan == nullptr);
		CHECK(f.entry(promoted, 10).port == p2);
		/* a live VLAN of the same port is still learned and promoted */
		REQUIRE(f.br->vlan_add(p2, 10, 10, 0, nullptr) == 0);
		{
			RcuReadGuard g;
			fdb.learn(FdbDest::to_vlan(f.pv(p2, 10)), fresh, 10, now, 0);
			fdb.learn(FdbDest::to_vlan(f.pv(p2, 10)), promoted, 10, now, 0);
		}
		CHECK(f.entry(fresh, 10).vlan == f.pv(p2, 10));
		CHECK(f.entry(promoted, 10).vlan == f.pv(p2, 10));
	}
	SECTION("port") {
		Port *p2 = f.p(2);
		PortVlan *v = f.pv(p2, 10);
		const MacKey roamer = host_mac(0x7a03);
		f.learn(f.p(3), roamer, {q(10)});
		{
			RcuReadGuard g;
			f.br->remove_port(p2);
			f.ports[1] = nullptr;
			CHECK(p2->unlinked);
			fdb.learn(FdbDest::to_port(p2), fresh, 10, now, 0);
			fdb.learn(FdbDest::to_vlan(v), fresh, 10, now, 0);
			fdb.learn(FdbDest::to_port(p2), roamer, 10, now, 0);	/* no roam */
		}
		CHECK(!f.has(fresh, 10));
		REQUIRE(f.has(roamer, 10));
		CHECK(f.entry(roamer, 10).port == f.p(3));
		for (auto &kv : fdb_dump(*f.br))
			CHECK(kv.second.port != p2);
	}
}

/* Removing a port never needs memory: with no allocation possible, the
 * flood table's spare copy is reused after a grace period instead. */
TEST_CASE("removing ports with allocation failing", "[lifetime][port]")
{
	BridgeFixture f(4, false);
	xb_user_fail_alloc_after(0);
	f.br->remove_port(f.p(2));
	f.ports[1] = nullptr;
	f.br->remove_port(f.p(3));
	f.ports[2] = nullptr;
	xb_user_fail_alloc_after(-1);
	CHECK(f.br->ports_rcu()->count == 2);
	Outcome o = f.send(f.p(1), make_frame(kBcast, kS1));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(ports_of(o) == std::vector<Port *>{f.p(4)});
}

TEST_CASE("datapath keeps deciding while VLANs and ports come and go", "[lifetime][rcu]")
{
	BridgeFixture f(3, true);
	for (unsigned i = 1; i <= 3; i++)
		REQUIRE(f.br->vlan_add(f.p(i), 10, 10, 0, nullptr) == 0);
	Port *p1 = f.p(1);
	Bridge *br = f.br;
	std::atomic<bool> stop{false};
	std::atomic<unsigned long> decided{0};

	/* Learns MACs on p1 and forwards to MACs behind the churned ports. */
	std::thread reader([&] {
		std::vector<std::vector<uint8_t>> frames;
		for (unsigned i = 0; i < 32; i++) {
			frames.push_back(make_frame(host_mac(0x7400 + i), host_mac(0x7500 + i), {q(10)}));
			frames.push_back(make_frame(kBcast, host_mac(0x7500 + i), {q(10)}));
		}
		std::vector<Egress> buf(kMaxPorts);
		while (!stop.load(std::memory_order_relaxed)) {
			for (auto &fr : frames) {
				RcuReadGuard g;
				RxFrame rx{fr.data(), uint32_t(fr.size()), OobTag{false, 0, 0}, p1};
				Verdict v;
				decide(*br, rx, Bridge::now_ticks(), v);
				if (v.kind == VerdictKind::Flood)
					flood_targets(*br, v, buf.data(), unsigned(buf.size()));
				if (v.kind == VerdictKind::Forward) {
					/* touch what the verdict points at */
					volatile uint32_t x = v.out.port->ifindex;
					(void)x;
				}
				decided.fetch_add(1, std::memory_order_relaxed);
			}
		}
	});

	/* The churn must overlap the reader: start once it is deciding. */
	while (decided.load() == 0)
		std::this_thread::yield();
	unsigned next_ifindex = 10;
	for (int round = 0; round < 60; round++) {
		/* churn a VLAN that entries cache */
		Port *p2 = f.p(2);
		{
			/* learn the reader's destinations behind p2 in VLAN 10 */
			for (unsigned i = 0; i < 32; i++) {
				std::vector<uint8_t> fr = make_frame(kBcast, host_mac(0x7400 + i), {q(10)});
				RcuReadGuard g;
				RxFrame rx{fr.data(), uint32_t(fr.size()), OobTag{false, 0, 0}, p2};
				Verdict v;
				decide(*br, rx, Bridge::now_ticks(), v);
			}
		}
		REQUIRE(br->vlan_del(p2, 10, 10, nullptr) == 0);
		REQUIRE(br->vlan_add(p2, 10, 10, round % 2 ? kVlanUntagged : 0, nullptr) == 0);
		/* churn a port the entries point at */
		if (round % 3 == 2) {
			br->remove_port(p2);
			f.ports[1] = f.add(next_ifindex++);
			REQUIRE(br->vlan_add(f.ports[1], 10, 10, 0, nullptr) == 0);
		}
		/* and the reader's own VLAN */
		if (round % 5 == 4) {
			REQUIRE(br->vlan_del(p1, 10, 10, nullptr) == 0);
			REQUIRE(br->vlan_add(p1, 10, 10, 0, nullptr) == 0);
		}
	}
	stop = true;
	reader.join();
	CHECK(decided.load() > 0);
}

TEST_CASE("destroying a populated bridge frees everything", "[lifetime][leak]")
{
	xb_user_fail_alloc_after(-1);
	size_t bytes0 = settled_bytes();
	size_t allocs0 = settled_allocs();
	{
		EventLog log;
		BridgeSetup setup{};
		setup.addr = kBrAddr;
		setup.ifindex = kBrIfindex;
		setup.fdb_events = log.sink();
		int err = 0;
		Bridge *br = Bridge::create(setup, &err);
		REQUIRE(br);
		REQUIRE(br->set_vlan_filtering(true, nullptr) == 0);
		std::vector<Port *> ports;
		for (unsigned i = 1; i <= 8; i++) {
			PortSetup ps{port_mac(i), i, nullptr};
			Port *p = nullptr;
			REQUIRE(br->add_port(ps, &p, nullptr) == 0);
			REQUIRE(br->vlan_add(p, 2, 100, 0, nullptr) == 0);
			REQUIRE(br->vlan_add(p, 1000 + i * 100, 1000 + i * 100 + 50, 0, nullptr) == 0);
			ports.push_back(p);
		}
		REQUIRE(br->vlan_add(br->host(), 2, 20, 0, nullptr) == 0);
		/* 10k entries: half learned (VLAN-cached), half static */
		uint32_t now = Bridge::now_ticks();
		for (unsigned i = 0; i < 5000; i++) {
			std::vector<uint8_t> fr =
				make_frame(kBcast, host_mac(0x80000 + i), {q(uint16_t(2 + i % 99))});
			RcuReadGuard g;
			RxFrame rx{fr.data(), uint32_t(fr.size()), OobTag{false, 0, 0}, ports[i % 8]};
			Verdict v;
			decide(*br, rx, now, v);
		}
		for (unsigned i = 0; i < 5000; i++)
			REQUIRE(br->fdb_add(host_mac(0x90000 + i), uint16_t(2 + i % 99), ports[i % 8],
					    kFdbStatic, FdbAddMode::Create, nullptr) == 0);
		CHECK(br->fdb().count() >= 10000);
		br->run_ageing(now);	/* let the table resize */
		/* remove one port and one VLAN on the way, for good measure */
		br->remove_port(ports[7]);
		REQUIRE(br->vlan_del(ports[0], 50, 60, nullptr) == 0);
		Bridge::destroy(br);
	}
	CHECK(settled_bytes() == bytes0);
	CHECK(settled_allocs() == allocs0);
}

TEST_CASE("allocation failure: Bridge::create", "[lifetime][alloc]")
{
	size_t bytes0 = settled_bytes();
	EventLog log;
	BridgeSetup setup{};
	setup.addr = kBrAddr;
	setup.ifindex = kBrIfindex;
	setup.fdb_events = log.sink();
	Bridge *br = nullptr;
	unsigned n = inject_until_success(
		[&] {
			int err = 0;
			br = Bridge::create(setup, &err);
			if (!br)
				return err ? err : -1;
			return 0;
		},
		[&](unsigned) { CHECK(settled_bytes() == bytes0); });
	CHECK(n > 0);
	REQUIRE(br);
	Bridge::destroy(br);
	CHECK(settled_bytes() == bytes0);
}

TEST_CASE("allocation failure: add_port", "[lifetime][alloc]")
{
	size_t bytes0 = settled_bytes();
	for (bool filtering : {false, true}) {
		CAPTURE(filtering);
		{
			BridgeFixture f(2, filtering);
			f.learn(f.p(1), kS1);
			State before = State::of(*f.br);
			size_t bytes = settled_bytes();
			Port *p = nullptr;
			unsigned n = inject_until_success(
				[&] {
					PortSetup ps{port_mac(3), 3, nullptr};
					p = nullptr;
					return f.br->add_port(ps, &p, nullptr);
				},
				[&](unsigned) {
					CHECK(p == nullptr);
					CHECK(State::of(*f.br) == before);
					CHECK(settled_bytes() == bytes);
					CHECK(f.br->find_port(3) == nullptr);
				});
			CHECK(n > 0);
			REQUIRE(p);
			CHECK(f.br->port_count() == 3);
			/* and the new port works */
			Outcome o = f.send(p, make_frame(kS1, host_mac(0x6100)));
			CHECK(o.v.kind == VerdictKind::Forward);
		}
		CHECK(settled_bytes() == bytes0);
	}
}

TEST_CASE("allocation failure: vlan_add", "[lifetime][alloc]")
{
	size_t bytes0 = settled_bytes();
	{
		BridgeFixture f(2, true);
		struct Range {
			const char *name;
			bool host;
			uint16_t lo, hi;
			uint8_t flags;
			bool strict_bytes;	/* no new map chunk: bytes must match exactly */
		};
		const Range ranges[] = {
			{"2-40 (existing chunk)", false, 2, 40, 0, true},
			{"PVID move to 5", false, 5, 5, kVlanPvid | kVlanUntagged, true},
			{"100-300 (new chunks)", false, 100, 300, 0, false},
			{"host 2-20", true, 2, 20, 0, true},
		};
		for (const Range &r : ranges) {
			CAPTURE(r.name);
			Port *p = r.host ? f.host() : f.p(1);
			State before = State::of(*f.br);
			size_t bytes = settled_bytes();
			unsigned n = inject_until_success(
				[&] { return f.br->vlan_add(p, r.lo, r.hi, r.flags, nullptr); },
				[&](unsigned) {
					CHECK(State::of(*f.br) == before);
					if (r.strict_bytes)
						CHECK(settled_bytes() == bytes);
				});
			CAPTURE(n);
			PortVlans vl = vlan_dump(p);
			for (unsigned vid = r.lo; vid <= r.hi; vid++)
				CHECK(vl.vlans.count(uint16_t(vid)));
		}
	}
	CHECK(settled_bytes() == bytes0);
}

TEST_CASE("allocation failure: fdb_add", "[lifetime][alloc]")
{
	size_t bytes0 = settled_bytes();
	{
		BridgeFixture f(2, true);
		REQUIRE(f.br->vlan_add(f.p(1), 10, 13, 0, nullptr) == 0);
		f.learn(f.p(1), kS1);
		struct Req {
			const char *name;
			MacKey mac;
			int32_t vid;
			uint16_t flags;
			FdbAddMode mode;
		};
		const Req reqs[] = {
			{"one static", host_mac(0x6200), 10, kFdbStatic, FdbAddMode::Create},
			{"no VLAN: VID 0 and 1, 10-13", host_mac(0x6201), -1, kFdbStatic, FdbAddMode::Create},
			{"no VLAN, replace over a learned one", kS1, -1, kFdbStatic, FdbAddMode::Replace},
			{"local", host_mac(0x6202), 1, kFdbLocal, FdbAddMode::Create},
		};
		for (const Req &r : reqs) {
			CAPTURE(r.name);
			State before = State::of(*f.br);
			size_t bytes = settled_bytes();
			f.log.clear();
			inject_until_success(
				[&] { return f.br->fdb_add(r.mac, r.vid, f.p(1), r.flags, r.mode, nullptr); },
				[&](unsigned) {
					CHECK(State::of(*f.br) == before);
					CHECK(settled_bytes() == bytes);
				});
			for (uint16_t vid : r.vid < 0 ? std::vector<uint16_t>{0, 1, 10, 11, 12, 13}
						      : std::vector<uint16_t>{uint16_t(r.vid)}) {
				CAPTURE(vid);
				FdbSnap e = f.entry(r.mac, vid);
				CHECK(e.port == f.p(1));
				CHECK((e.flags & r.flags) == r.flags);
			}
		}
	}
	CHECK(settled_bytes() == bytes0);
}

TEST_CASE("FDB growth to 100k entries and back", "[lifetime][fdb][big]")
{
	BridgeFixture f(2);
	const uint32_t N = 100000;
	uint32_t base_count = f.br->fdb().count();
	uint32_t b0 = f.br->fdb().buckets();
	for (uint32_t i = 0; i < N; i++) {
		int err = f.br->fdb_add(host_mac(0x100000 + i), 0, f.p(1 + i % 2), kFdbStatic,
					FdbAddMode::Create, nullptr);
		if (err) {
			CAPTURE(i, err);
			REQUIRE(err == 0);
		}
	}
	f.log.clear();
	CHECK(f.br->fdb().count() == base_count + N);
	f.br->run_ageing(f.now());
	uint32_t grown = f.br->fdb().buckets();
	CHECK(grown > b0);
	CHECK(grown >= N / 4);	/* a sane load factor */
	{
		RcuReadGuard g;
		unsigned found = 0, right_port = 0;
		for (uint32_t i = 0; i < N; i++) {
			FdbEntry *e = f.br->fdb().lookup(host_mac(0x100000 + i), 0);
			found += e != nullptr;
			right_port += e && e->destination().port() == f.p(1 + i % 2);
		}
		CHECK(found == N);
		CHECK(right_port == N);
		CHECK(f.br->fdb().lookup(host_mac(0x100000 + N), 0) == nullptr);
	}
	/* forwarding works at that size */
	Outcome o = f.send(f.p(1), make_frame(host_mac(0x100001), kS1));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(ports_of(o) == std::vector<Port *>{f.p(2)});

	for (uint32_t i = 0; i < N; i++) {
		int err = f.br->fdb_del(host_mac(0x100000 + i), 0, nullptr, nullptr);
		if (err) {
			CAPTURE(i, err);
			REQUIRE(err == 0);
		}
	}
	CHECK(f.log.count(FdbEventType::Deleted, FdbReason::User) == N);
	CHECK(f.br->fdb().count() == base_count + 1);	/* + the learned kS1 */
	{
		RcuReadGuard g;
		unsigned found = 0;
		for (uint32_t i = 0; i < N; i++)
			found += f.br->fdb().lookup(host_mac(0x100000 + i), 0) != nullptr;
		CHECK(found == 0);
	}
	f.br->run_ageing(f.now());
	uint32_t shrunk = f.br->fdb().buckets();
	CHECK(shrunk < grown);
	CHECK(shrunk <= 4 * b0);
	/* still consistent after the shrink */
	CHECK(f.has(port_mac(1), 0));
	CHECK(f.has(kBrAddr, 0));
	CHECK(f.has(kS1, 0));
}

TEST_CASE("allocation failure: set_addr and vlan_del", "[lifetime][alloc]")
{
	BridgeFixture f(2, true);
	REQUIRE(f.br->vlan_add(f.host(), 10, 20, 0, nullptr) == 0);
	REQUIRE(f.br->vlan_add(f.p(1), 10, 20, 0, nullptr) == 0);
	f.learn(f.p(1), kS1, {q(15)});
	SECTION("set_addr")
	{
		State before = State::of(*f.br);
		const MacKey nw = mac(0x02, 0xbb, 0, 0, 0, 0x42);
		inject_until_success([&] { return f.br->set_addr(nw, nullptr); },
				     [&](unsigned) {
					     CHECK(f.br->addr() == kBrAddr);
					     CHECK(State::of(*f.br) == before);
				     });
		CHECK(f.br->addr() == nw);
		CHECK(f.has(nw, 15));
	}
	SECTION("vlan_del")
	{
		State before = State::of(*f.br);
		inject_until_success([&] { return f.br->vlan_del(f.p(1), 12, 18, nullptr); },
				     [&](unsigned) { CHECK(State::of(*f.br) == before); });
		CHECK(f.pv(f.p(1), 15) == nullptr);
		CHECK(!f.has(kS1, 15));
	}
}

/*
 * set_default_pvid moves every port still on the old default (and the bridge
 * itself) to the new one, or none: errors.h's promise, and
 * __br_vlan_set_default_pvid's rollback. Ports with their own PVID, one
 * that already has the new VID, and learned entries in the old default must
 * all be as they were after every injected failure.
 */
TEST_CASE("allocation failure: set_default_pvid", "[lifetime][alloc][vlan]")
{
	BridgeFixture f(4, true);
	REQUIRE(f.br->vlan_add(f.p(2), 30, 30, kVlanPvid, nullptr) == 0);	/* own PVID */
	REQUIRE(f.br->vlan_add(f.p(3), 10, 10, 0, nullptr) == 0);		/* has 10 */
	f.learn(f.p(1), kS1, {q(1)});
	for (uint16_t to : {uint16_t(10), uint16_t(0)}) {
		CAPTURE(to);
		State before = State::of(*f.br);
		const uint16_t old = f.br->opts().default_pvid;
		unsigned n = inject_until_success(
			[&] { return f.br->set_default_pvid(to, nullptr); },
			[&](unsigned) {
				CHECK(f.br->opts().default_pvid == old);
				CHECK(State::of(*f.br) == before);
			});
		CHECK(f.br->opts().default_pvid == to);
		if (to) {
			CHECK(n > 0);	/* it allocates, so failures were injected */
			CHECK(vlan_dump(f.p(1)).pvid == 10);
			CHECK(vlan_dump(f.host()).pvid == 10);
			CHECK(vlan_dump(f.p(2)).pvid == 30);
			CHECK(f.pv(f.p(1), 1) == nullptr);
			CHECK(!f.has(kS1, 1));
		} else {
			CHECK(vlan_dump(f.p(1)).pvid == 0);
			CHECK(f.pv(f.p(1), 10) == nullptr);
		}
	}
}
