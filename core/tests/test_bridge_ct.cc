// SPDX-License-Identifier: GPL-2.0
/*
 * test_bridge_ct.cc - the bridge's `conntrack` option: frames tracked at
 * prerouting and confirmed or released where Linux's bridge confirms, the
 * table's lifetime (on, off, destroy), table-full drops and GC slices.
 */
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "bridge_ct.h"
#include "ct_frames.h"
#include "test_util.h"

using namespace xb;
using namespace xbt;

namespace {

constexpr MacKey kA = host_mac(0xa1);	/* client, behind port 1 */
constexpr MacKey kB = host_mac(0xb2);	/* server, behind port 2 */

const ctf::Ip kIpA = ctf::v4(10, 0, 0, 1);
const ctf::Ip kIpB = ctf::v4(10, 0, 0, 2);

/* An Ethernet frame dst <- src carrying the IP packet @ip. */
std::vector<uint8_t> eth(MacKey dst, MacKey src, const ctf::Bytes &ip)
{
	std::vector<uint8_t> f = ctf::frame(ip);
	mac_to_bytes(dst, f.data());
	mac_to_bytes(src, f.data() + 6);
	return f;
}

std::vector<uint8_t> tcp(MacKey dst, MacKey src, const ctf::Ip &s, const ctf::Ip &d,
			 uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags)
{
	ctf::Tcp t;
	t.sport = sport;
	t.dport = dport;
	t.seq = seq;
	t.ack = ack;
	t.flags = flags;
	t.win = 65535;
	return eth(dst, src, ctf::tcp_packet(s, d, t));
}

/* The three frames of a handshake A:40000 -> B:80. */
std::vector<uint8_t> syn() { return tcp(kB, kA, kIpA, kIpB, 40000, 80, 1000, 0, ctf::SYN); }
std::vector<uint8_t> synack()
{
	return tcp(kA, kB, kIpB, kIpA, 80, 40000, 5000, 1001, ctf::SYN | ctf::ACK);
}
std::vector<uint8_t> ack() { return tcp(kB, kA, kIpA, kIpB, 40000, 80, 1001, 5001, ctf::ACK); }

struct CtFixture : BridgeFixture {
	CtFixture() : BridgeFixture(3)
	{
		REQUIRE(br->set_conntrack(true, nullptr) == 0);
		learn(p(1), kA);
		learn(p(2), kB);
	}
	CtTable &table() { return br->conntrack()->table(); }
	/* The entry of A:40000 -> B:80, or nullptr. */
	CtEntry *entry()
	{
		CtTuple t = {};
		std::memcpy(t.src, kIpA.addr, 4);
		std::memcpy(t.dst, kIpB.addr, 4);
		t.sport = 40000;
		t.dport = 80;
		t.l3 = kCtL3Ipv4;
		t.l4proto = kIpProtoTcp;
		RcuReadGuard g;
		uint8_t dir;
		return table().lookup(t, now(), &dir);
	}
};

} // namespace

TEST_CASE("bridge ct: off by default, frames are not tracked", "[ct][bridge]")
{
	BridgeFixture f(2);
	CHECK_FALSE(f.br->conntrack_on());
	CHECK(f.br->conntrack() == nullptr);
	f.learn(f.p(2), kB);
	Outcome o = f.send(f.p(1), syn());
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == 0);
}

TEST_CASE("bridge ct: a TCP handshake through the bridge is ESTABLISHED and ASSURED", "[ct][bridge]")
{
	CtFixture f;
	CHECK(f.br->conntrack_on());
	CHECK(f.table().count() == 0);

	Outcome o = f.send(f.p(1), syn());
	REQUIRE(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(f.p(2)));
	CHECK(o.v.ct_state == kCtStateNew);
	CHECK(f.table().count() == 1);	/* confirmed at postrouting */
	CtEntry *e = f.entry();
	REQUIRE(e != nullptr);
	CHECK((e->status_bits() & kCtConfirmed) != 0);
	CHECK(e->tcp_state() == kTcpSynSent);

	o = f.send(f.p(2), synack());
	CHECK(o.to(f.p(1)));
	CHECK(o.v.ct_state == kCtStateEstablished);
	CHECK(f.entry()->tcp_state() == kTcpSynRecv);

	o = f.send(f.p(1), ack());
	CHECK(o.v.ct_state == kCtStateEstablished);
	e = f.entry();
	CHECK(e->tcp_state() == kTcpEstablished);
	CHECK((e->status_bits() & (kCtAssured | kCtSeenReply)) == (kCtAssured | kCtSeenReply));
	CHECK(e->packets[0] == 2);
	CHECK(e->packets[1] == 1);
	CHECK(f.table().count() == 1);
	CHECK(f.table().stats_sum().insert == 1);
}

TEST_CASE("bridge ct: frames that do not leave are released, not confirmed", "[ct][bridge]")
{
	CtFixture f;

	SECTION("dropped after prerouting (VLAN ingress)")
	{
		REQUIRE(f.br->set_vlan_filtering(true, nullptr) == 0);
		Outcome o = f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, 40000, 80, 1000, 0, ctf::SYN),
				   OobTag{true, kEthP8021Q, 77});
		CHECK(o.v.reason == DropReason::VlanNotMember);
		CHECK(o.v.ct_state == kCtStateNew);	/* tracked at -200 ... */
		CHECK(f.table().count() == 0);		/* ... and released */
		CHECK(f.table().stats_sum().insert == 0);
	}
	SECTION("a port in the learning state: tracked, learned, dropped, released")
	{
		REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Learning), nullptr) == 0);
		Outcome o = f.send(f.p(1), syn());
		CHECK(o.v.reason == DropReason::LearningOnly);
		CHECK(o.v.ct_state == kCtStateNew);
		CHECK(f.table().count() == 0);
	}
	SECTION("a port that is disabled: never reaches prerouting")
	{
		REQUIRE(f.br->port_set_state(f.p(1), uint8_t(PortState::Disabled), nullptr) == 0);
		Outcome o = f.send(f.p(1), syn());
		CHECK(o.v.reason == DropReason::PortState);
		CHECK(o.v.ct_state == 0);
	}
	SECTION("broadcast up the bridge device only (no other port): released")
	{
		REQUIRE(f.br->port_set_state(f.p(2), uint8_t(PortState::Disabled), nullptr) == 0);
		REQUIRE(f.br->port_set_state(f.p(3), uint8_t(PortState::Disabled), nullptr) == 0);
		Outcome o = f.send(f.p(1), eth(kBcast, kA, ctf::udp_packet(kIpA, kIpB, 68, 67)));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.egress.empty());
		CHECK(o.local);
		CHECK(o.v.ct_state == kCtStateNew);
		CHECK(f.table().count() == 0);
	}
	SECTION("broadcast flooded to a port: confirmed")
	{
		Outcome o = f.send(f.p(1), eth(kBcast, kA, ctf::udp_packet(kIpA, kIpB, 68, 67)));
		CHECK(!o.egress.empty());
		CHECK(f.table().count() == 1);
	}
	SECTION("ARP is untracked")
	{
		std::vector<uint8_t> arp = make_frame(kB, kA);
		arp[12] = 0x08;
		arp[13] = 0x06;
		Outcome o = f.send(f.p(1), arp);
		CHECK(o.v.ct_state == kCtStateUntracked);
		CHECK(f.table().count() == 0);
	}
	SECTION("frames the bridge device sends are not tracked here")
	{
		Outcome o = f.send(f.host(), syn());
		CHECK(o.v.kind == VerdictKind::Forward);
		CHECK(o.v.ct_state == 0);
		CHECK(f.table().count() == 0);
	}
}

TEST_CASE("bridge ct: local input confirms what goes up as PACKET_HOST", "[ct][bridge]")
{
	CtFixture f;
	const std::vector<uint8_t> to_br =
		tcp(kBrAddr, kA, kIpA, kIpB, 40000, 80, 1000, 0, ctf::SYN);

	SECTION("to the bridge's address")
	{
		Outcome o = f.send(f.p(1), to_br);
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(f.table().count() == 1);
	}
	SECTION("to the ingress port's own address")
	{
		Outcome o = f.send(f.p(1),
				   tcp(port_mac(1), kA, kIpA, kIpB, 40000, 80, 1000, 0, ctf::SYN));
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(f.table().count() == 1);
	}
	SECTION("to another port's address: up as other-host, released")
	{
		Outcome o = f.send(f.p(1),
				   tcp(port_mac(2), kA, kIpA, kIpB, 40000, 80, 1000, 0, ctf::SYN));
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(f.table().count() == 0);
	}
	SECTION("a promiscuous bridge device resets the ct of what it takes up")
	{
		f.br->set_promisc(true);
		Outcome o = f.send(f.p(1), to_br);
		CHECK(o.v.kind == VerdictKind::Local);
		CHECK(f.table().count() == 0);
	}
}

TEST_CASE("bridge ct: a full table drops new connections, counted", "[ct][bridge]")
{
	CtFixture f;
	f.send(f.p(1), syn());
	f.send(f.p(2), synack());
	f.send(f.p(1), ack());	/* assured: early drop cannot take it */
	f.table().set_max(1);
	Outcome o = f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, 40001, 80, 1, 0, ctf::SYN));
	CHECK(o.v.kind == VerdictKind::Drop);
	CHECK(o.v.reason == DropReason::Conntrack);
	CHECK(port_drops(f.p(1), DropReason::Conntrack) == 1);
	CHECK(f.table().stats_sum().drop == 1);
	CHECK(f.table().count() == 1);
	/* The established connection still passes. */
	o = f.send(f.p(1), ack());
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.v.ct_state == kCtStateEstablished);
}

TEST_CASE("bridge ct: conntrack_max bounds the live table and the next one", "[ct][bridge]")
{
	CtFixture f;
	CHECK(f.table().max() == kBridgeCtMax);
	f.send(f.p(1), syn());
	f.br->set_conntrack_max(1);		/* applied to the live table */
	CHECK(f.table().max() == 1);
	CHECK(f.table().count() == 1);		/* nothing removed */
	f.send(f.p(2), synack());
	f.send(f.p(1), ack());			/* assured: no early drop */
	Outcome o = f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, 40001, 80, 1, 0, ctf::SYN));
	CHECK(o.v.reason == DropReason::Conntrack);
	REQUIRE(f.br->set_conntrack(false, nullptr) == 0);
	f.br->set_conntrack_max(0);		/* kept while off; 0: no bound */
	REQUIRE(f.br->set_conntrack(true, nullptr) == 0);
	CHECK(f.table().max() == 0);
	CHECK(f.br->opts().conntrack_max == 0);
	for (uint16_t sport = 1; sport <= 10; sport++)
		f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, sport, 80, 1, 0, ctf::SYN));
	CHECK(f.table().count() == 10);
}

TEST_CASE("bridge ct: off frees the table, on starts empty, destroy frees it", "[ct][bridge]")
{
	CtFixture f;
	for (uint16_t sport = 1; sport <= 100; sport++)
		f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, sport, 80, 1, 0, ctf::SYN));
	CHECK(f.table().count() == 100);
	REQUIRE(f.br->set_conntrack(false, nullptr) == 0);
	CHECK_FALSE(f.br->conntrack_on());
	CHECK(f.br->conntrack() == nullptr);
	CHECK(f.send(f.p(1), syn()).v.ct_state == 0);
	CHECK(f.br->run_ct_gc(f.now(), kBridgeCtGcBuckets) == 0);
	REQUIRE(f.br->set_conntrack(false, nullptr) == 0);	/* idempotent */
	REQUIRE(f.br->set_conntrack(true, nullptr) == 0);
	CHECK(f.table().count() == 0);
	f.send(f.p(1), syn());
	CHECK(f.table().count() == 1);
	/* ~CtFixture destroys the bridge with the entry in: the sanitizers'
	 * leak check sees it freed. */
}

TEST_CASE("bridge ct: out of memory turning it on changes nothing", "[ct][bridge]")
{
	BridgeFixture f(2);
	for (int n = 0; n < 16; n++) {
		xb_user_fail_alloc_after(n);
		Extack ack;
		int err = f.br->set_conntrack(true, &ack);
		xb_user_fail_alloc_after(-1);
		if (err == 0) {
			CHECK(f.br->conntrack_on());
			break;
		}
		CHECK(err == -kENOMEM);
		CHECK(ack.msg != nullptr);
		CHECK_FALSE(f.br->conntrack_on());
		CHECK(f.br->conntrack() == nullptr);
	}
	CHECK(f.br->conntrack_on());
}

TEST_CASE("bridge ct: GC removes expired entries in bounded slices", "[ct][bridge]")
{
	CtFixture f;
	for (uint16_t sport = 1; sport <= 50; sport++)
		f.send(f.p(1), eth(kB, kA, ctf::udp_packet(kIpA, kIpB, sport, 53)));
	CHECK(f.table().count() == 50);

	/* Not expired yet: a whole sweep removes nothing. */
	const unsigned slices = kBridgeCtBuckets / kBridgeCtGcBuckets;
	unsigned removed = 0;
	for (unsigned i = 0; i < slices; i++)
		removed += f.br->run_ct_gc(f.now(), kBridgeCtGcBuckets);
	CHECK(removed == 0);

	f.advance_ms(31 * 1000);	/* UDP unreplied: 30 s */
	/* One slice visits a sixteenth of the table. */
	removed = f.br->run_ct_gc(f.now(), kBridgeCtGcBuckets);
	CHECK(removed < 50);
	for (unsigned i = 1; i < slices; i++)
		removed += f.br->run_ct_gc(f.now(), kBridgeCtGcBuckets);
	CHECK(removed == 50);
	CHECK(f.table().count() == 0);
}

TEST_CASE("bridge ct: batches see the entry a previous frame of the batch confirmed", "[ct][bridge]")
{
	CtFixture f;
	const std::vector<std::vector<uint8_t>> frames = {syn(), synack(), ack()};
	std::vector<RxFrame> rx;
	rx.push_back(RxFrame{frames[0].data(), uint32_t(frames[0].size()), OobTag{false, 0, 0}, f.p(1)});
	rx.push_back(RxFrame{frames[1].data(), uint32_t(frames[1].size()), OobTag{false, 0, 0}, f.p(2)});
	rx.push_back(RxFrame{frames[2].data(), uint32_t(frames[2].size()), OobTag{false, 0, 0}, f.p(1)});
	Verdict v[3];
	{
		RcuReadGuard g;
		decide_batch(*f.br, rx.data(), 3, f.now(), v);
	}
	CHECK(v[0].ct_state == kCtStateNew);
	CHECK(v[1].ct_state == kCtStateEstablished);
	CHECK(v[2].ct_state == kCtStateEstablished);
	CHECK(f.entry()->tcp_state() == kTcpEstablished);
	CHECK(f.table().count() == 1);
}

TEST_CASE("bridge ct: new, update and destroy events", "[ct][bridge]")
{
	struct Ev {
		CtEventType type;
		uint16_t sport;
		uint8_t tcp_state;
		uint16_t status;	/* seen reply, assured */
		bool operator==(const Ev &o) const
		{
			return type == o.type && sport == o.sport && tcp_state == o.tcp_state &&
			       status == o.status;
		}
	};
	struct Log {
		std::vector<Ev> ev;
	} log;
	xb_user_fail_alloc_after(-1);
	xb_user_set_time_ns(kT0Ns);
	BridgeSetup setup{};
	setup.addr = kBrAddr;
	setup.ifindex = kBrIfindex;
	setup.ct_events.ctx = &log;
	setup.ct_events.fn = [](void *ctx, CtEventType type, const CtEntry &e, uint8_t detail) {
		CHECK(detail == 0);
		const uint8_t st = e.tuple.l4proto == kIpProtoTcp ? e.tcp_state() : 0;
		static_cast<Log *>(ctx)->ev.push_back(
			{type, e.tuple.sport, st,
			 uint16_t(e.status_bits() & (kCtSeenReply | kCtAssured))});
	};
	int err = 0;
	Bridge *br = Bridge::create(setup, &err);
	REQUIRE(br != nullptr);
	Port *p[2];
	for (unsigned i = 0; i < 2; i++) {
		PortSetup ps{};
		ps.addr = port_mac(i + 1);
		ps.ifindex = i + 1;
		REQUIRE(br->add_port(ps, &p[i], nullptr) == 0);
	}
	REQUIRE(br->set_conntrack(true, nullptr) == 0);
	auto send = [&](Port *in, const std::vector<uint8_t> &f) {
		RcuReadGuard g;
		RxFrame rx{f.data(), uint32_t(f.size()), OobTag{false, 0, 0}, in};
		Verdict v;
		decide(*br, rx, Bridge::now_ticks(), v);
		return v;
	};
	send(p[1], make_frame(kBcast, kB));	/* learn B on port 2 */
	send(p[0], syn());
	REQUIRE(log.ev.size() == 1);		/* one new, at the SYN's confirm */
	CHECK(log.ev[0] == Ev{CtEventType::New, 40000, kTcpSynSent, 0});
	/* A retransmitted SYN changes nothing: no event. */
	send(p[0], syn());
	CHECK(log.ev.size() == 1);
	/* The SYN-ACK: seen reply and SYN_RECV in one update (IPCT_REPLY and
	 * IPCT_PROTOINFO of one frame). */
	send(p[1], synack());
	REQUIRE(log.ev.size() == 2);
	CHECK(log.ev[1] == Ev{CtEventType::Update, 40000, kTcpSynRecv, kCtSeenReply});
	/* The ACK: ESTABLISHED and ASSURED. */
	send(p[0], ack());
	REQUIRE(log.ev.size() == 3);
	CHECK(log.ev[2] ==
	      Ev{CtEventType::Update, 40000, kTcpEstablished, kCtSeenReply | kCtAssured});
	/* Data in an established connection: nothing changes, no event. */
	send(p[0], tcp(kB, kA, kIpA, kIpB, 40000, 80, 1001, 5001, ctf::ACK | ctf::PSH));
	send(p[1], tcp(kA, kB, kIpB, kIpA, 80, 40000, 5001, 1001, ctf::ACK));
	CHECK(log.ev.size() == 3);

	/* A frame that is released (dropped after prerouting) reports nothing. */
	REQUIRE(br->port_set_state(p[0], uint8_t(PortState::Learning), nullptr) == 0);
	send(p[0], tcp(kB, kA, kIpA, kIpB, 40001, 80, 1, 0, ctf::SYN));
	CHECK(log.ev.size() == 3);
	REQUIRE(br->port_set_state(p[0], uint8_t(PortState::Forwarding), nullptr) == 0);

	send(p[0], eth(kB, kA, ctf::udp_packet(kIpA, kIpB, 5000, 53)));
	REQUIRE(log.ev.size() == 4);
	CHECK(log.ev[3] == Ev{CtEventType::New, 5000, 0, 0});
	/* UDP: the reply is an update (seen reply); not assured yet. */
	send(p[1], eth(kA, kB, ctf::udp_packet(kIpB, kIpA, 53, 5000)));
	REQUIRE(log.ev.size() == 5);
	CHECK(log.ev[4] == Ev{CtEventType::Update, 5000, 0, kCtSeenReply});
	/* GC of the expired UDP entry: a destroy. */
	xb_user_advance_time_ns(31ull * 1000 * 1000000);
	for (unsigned i = 0; i < kBridgeCtBuckets / kBridgeCtGcBuckets; i++)
		br->run_ct_gc(Bridge::now_ticks(), kBridgeCtGcBuckets);
	REQUIRE(log.ev.size() == 6);
	CHECK(log.ev[5].type == CtEventType::Destroy);
	CHECK(log.ev[5].sport == 5000);
	/* A flush: a destroy per entry. */
	CtFilter all;
	CHECK(br->conntrack()->table().flush(all) == 1);
	REQUIRE(log.ev.size() == 7);
	CHECK(log.ev[6].type == CtEventType::Destroy);
	CHECK(log.ev[6].sport == 40000);
	Bridge::destroy(br);
	CHECK(log.ev.size() == 7);
}

TEST_CASE("bridge ct: a broadcast copy taken up is tracked again in zone 0 only when its ct is dropped",
	  "[ct][bridge]")
{
	/* nf_ct_bridge_in keeps a confirmed ct on a broadcast or multicast
	 * copy it passes up, and drops it on a promiscuous bridge device (or
	 * when the connection is unconfirmed), after which inet prerouting
	 * tracks the packet once more in the same table. The conformance
	 * harness showed the second pass only once xbr's own copies stopped
	 * reaching the namespace's IPv4 conntrack (corpus 205). */
	CtFixture f;
	f.send(f.p(1), syn());
	f.send(f.p(2), synack());
	f.send(f.p(1), ack());
	REQUIRE(f.entry()->tcp_state() == kTcpEstablished);

	SECTION("a broadcast FIN of a confirmed connection counts once: FIN_WAIT")
	{
		Outcome o = f.send(f.p(1), tcp(kBcast, kA, kIpA, kIpB, 40000, 80, 1001, 5001,
					       ctf::FIN | ctf::ACK));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(o.v.local_too);
		CHECK(f.entry()->tcp_state() == kTcpFinWait);
	}
	SECTION("on a promiscuous bridge device it counts twice: LAST_ACK")
	{
		f.br->set_promisc(true);
		Outcome o = f.send(f.p(1), tcp(kBcast, kA, kIpA, kIpB, 40000, 80, 1001, 5001,
					       ctf::FIN | ctf::ACK));
		CHECK(o.v.kind == VerdictKind::Flood);
		CHECK(f.entry()->tcp_state() == kTcpLastAck);
	}
	SECTION("a unicast FIN counts once")
	{
		f.send(f.p(1), tcp(kB, kA, kIpA, kIpB, 40000, 80, 1001, 5001, ctf::FIN | ctf::ACK));
		CHECK(f.entry()->tcp_state() == kTcpFinWait);
	}
	SECTION("the second pass creates nothing: a new broadcast flow is confirmed once")
	{
		f.send(f.p(1), eth(kBcast, kA, ctf::udp_packet(kIpA, kIpB, 5000, 53)));
		CHECK(f.table().count() == 2);
		CHECK(f.table().stats_sum().insert == 2);
	}
}
