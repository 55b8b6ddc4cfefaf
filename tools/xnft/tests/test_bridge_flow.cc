// test_bridge_flow.cc - the bridge flowtable (core/bridge_flow.h): a
// connection a forward chain offloads with `flow offload @ft` is forwarded
// by its flow, in both directions, exactly as the slow path forwarded it
// (port, tag, VID), without the rules; and every change that could make
// the cached decision stale sends it back to the slow path.
//
// Userspace test code.
#include <catch2/catch.hpp>

#include "../../../core/tests/ct_frames.h"
#include "../../../core/tests/test_util.h"
#include "bridge_ct.h"
#include "engine_load.h"
#include "flow_table.h"
#include "nft_ruleset.h"
#include "ruleset_bridge.h"

namespace {

using namespace xbt;
using xb::FlowTeardown;

constexpr MacKey kA = mac(0x02, 0, 0, 0, 0, 0x0a);
constexpr MacKey kB = mac(0x02, 0, 0, 0, 0, 0x0b);
const ctf::Ip kIpA = ctf::v4(10, 0, 0, 1);
const ctf::Ip kIpB = ctf::v4(10, 0, 0, 2);

std::vector<uint8_t> eth(MacKey dst, MacKey src, const std::vector<uint8_t> &ip,
			 const std::vector<Tag> &tags = {})
{
	std::vector<uint8_t> f = make_frame(dst, src, tags);
	f.resize(12 + 4 * tags.size());
	f.push_back(ip[0] >> 4 == 4 ? 0x08 : 0x86);
	f.push_back(ip[0] >> 4 == 4 ? 0x00 : 0xdd);
	f.insert(f.end(), ip.begin(), ip.end());
	return f;
}

const char *const kRuleset = "table bridge f {\n"
			     "  flowtable ft { hook ingress priority 0; devices = { swp1, swp2 }; }\n"
			     "  chain forward { type filter hook forward priority 0;\n"
			     "    ip protocol { tcp, udp } flow offload @ft\n"
			     "    counter\n"
			     "  }\n"
			     "}\n";

struct FlowBridge : xnft::test::RulesetBridge {
	uint32_t seq_a = 1000, seq_b = 5000;

	explicit FlowBridge(bool filtering = false) : RulesetBridge(filtering)
	{
		REQUIRE(br->set_conntrack(true, nullptr) == 0);
		REQUIRE(load(kRuleset) == 0);
	}
	xb::FlowTable &flows() { return *br->flows(); }
	xb::CtTable &table() { return br->conntrack()->table(); }
	uint64_t teardowns(FlowTeardown why) { return flows().stats_sum().teardown[unsigned(why)]; }

	std::vector<uint8_t> a_to_b(uint8_t flags, uint32_t payload = 0, const std::vector<Tag> &tags = {})
	{
		ctf::Tcp t;
		t.sport = 40000;
		t.dport = 80;
		t.seq = seq_a;
		t.ack = seq_b;
		t.flags = flags;
		t.win = 65535;
		t.payload = payload;
		seq_a += payload + ((flags & (ctf::SYN | ctf::FIN)) ? 1 : 0);
		return eth(kB, kA, ctf::tcp_packet(kIpA, kIpB, t), tags);
	}
	std::vector<uint8_t> b_to_a(uint8_t flags, uint32_t payload = 0, const std::vector<Tag> &tags = {})
	{
		ctf::Tcp t;
		t.sport = 80;
		t.dport = 40000;
		t.seq = seq_b;
		t.ack = seq_a;
		t.flags = flags;
		t.win = 65535;
		t.payload = payload;
		seq_b += payload + ((flags & (ctf::SYN | ctf::FIN)) ? 1 : 0);
		return eth(kA, kB, ctf::tcp_packet(kIpB, kIpA, t), tags);
	}
	/* A on swp1, B on swp2: the handshake; the third segment is offloaded. */
	void establish(const std::vector<Tag> &ta = {}, const std::vector<Tag> &tb = {})
	{
		Outcome o = send(p(1), a_to_b(ctf::SYN, 0, ta));
		REQUIRE(o.v.kind != VerdictKind::Drop);
		o = send(p(2), b_to_a(ctf::SYN | ctf::ACK, 0, tb));
		REQUIRE(o.v.kind == VerdictKind::Forward);
		REQUIRE(flows().count() == 0);
		o = send(p(1), a_to_b(ctf::ACK, 0, ta));
		REQUIRE(o.v.kind == VerdictKind::Forward);
		REQUIRE(flows().count() == 1);
	}
	uint64_t hits() { return flows().stats_sum().hits; }
	/* Packets the forward chain's `counter` rule counted. */
	uint64_t slow_path_packets()
	{
		uint64_t n = 0;
		for (const auto &t : rs.tables())
			for (const auto &c : t.chains)
				for (const auto &r : c.rules)
					for (uint32_t i = 0; i < r.code.count_counters; i++)
						for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++)
							if (auto *cc = r.code.counters[i]->cpu.cpu(cpu))
								n += cc->packets;
		return n;
	}
};

} // namespace

TEST_CASE("bridge flowtable: an offloaded connection forwards as the slow path did", "[flow]")
{
	FlowBridge b;
	b.establish();
	xb::CtEntry *ct = nullptr;
	b.flows().for_each([&](const xb::Flow &f) {
		ct = f.ct;
		return true;
	});
	REQUIRE(ct != nullptr);
	CHECK((ct->status_bits() & xb::kCtOffload));
	const uint64_t pkts = ct->packets[0] + ct->packets[1];
	const uint64_t slow = b.slow_path_packets();
	CHECK(slow == 4);	// the handshake went through the chain (the SYN flooded to two ports)

	// Both directions hit: the same port and tag as the slow path, no rules.
	Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 100));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(2)));
	CHECK(o.tag_to(b.p(2)) == TagAction::Keep);
	CHECK(!o.local);
	o = b.send(b.p(2), b.b_to_a(ctf::ACK, 200));
	CHECK(o.to(b.p(1)));
	CHECK(b.hits() == 2);
	// The hits' counters reach conntrack's entry at the next GC pass.
	b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
	CHECK(ct->packets[0] + ct->packets[1] == pkts + 2);
	CHECK(b.slow_path_packets() == slow);	// the chain did not see them
	// A FIN goes back to conntrack: the flow is torn down on that frame,
	// which takes the slow path (and the forward chain).
	o = b.send(b.p(1), b.a_to_b(ctf::FIN | ctf::ACK));
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(2)));
	CHECK(b.flows().count() == 0);
	CHECK(b.teardowns(FlowTeardown::FinRst) == 1);
	CHECK(!(ct->status_bits() & xb::kCtOffload));
	CHECK(b.hits() == 2);
	CHECK(b.slow_path_packets() == slow + 1);
	// Conntrack tracks the rest of the teardown itself.
	o = b.send(b.p(2), b.b_to_a(ctf::FIN | ctf::ACK));
	CHECK(o.to(b.p(1)));
	CHECK(b.flows().count() == 0);
}

TEST_CASE("bridge flowtable: every stale destination goes back to the slow path", "[flow]")
{
	FlowBridge b;
	b.establish();
	REQUIRE(b.send(b.p(1), b.a_to_b(ctf::ACK, 10)).to(b.p(2)));
	REQUIRE(b.hits() == 1);

	SECTION("B roams to swp3")
	{
		b.learn(b.p(3), kB);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(o.to(b.p(3)));
		CHECK(!o.to(b.p(2)));
		CHECK(b.teardowns(FlowTeardown::Stale) == 1);
	}
	SECTION("B's entry is deleted: unknown again, flooded")
	{
		REQUIRE(b.br->fdb_del(kB, 0, nullptr, nullptr) == 0);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(o.v.kind == VerdictKind::Flood);
	}
	SECTION("A's entry ages out (the reply's destination)")
	{
		REQUIRE(b.br->fdb_del(kA, 0, nullptr, nullptr) == 0);
		Outcome o = b.send(b.p(2), b.b_to_a(ctf::ACK, 10));
		CHECK(o.v.kind == VerdictKind::Flood);
	}
	SECTION("swp2 goes down")
	{
		b.br->port_link_changed(b.p(2), false);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(!o.to(b.p(2)));
		CHECK(b.hits() == 1);
	}
	SECTION("swp2 stops forwarding (port state)")
	{
		REQUIRE(b.br->port_set_state(b.p(2), uint8_t(PortState::Learning), nullptr) == 0);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(o.drop());
		CHECK(b.hits() == 1);
	}
	SECTION("both ports isolated")
	{
		REQUIRE(b.br->port_set_flags(b.p(1), kPortIsolated, 0, nullptr) == 0);
		REQUIRE(b.br->port_set_flags(b.p(2), kPortIsolated, 0, nullptr) == 0);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(o.drop());
		CHECK(b.hits() == 1);
	}
	SECTION("VLAN filtering turned on")
	{
		REQUIRE(b.br->set_vlan_filtering(true, nullptr) == 0);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(b.hits() == 1);
		CHECK(o.v.vid == 1);
	}
	SECTION("a ruleset commit")
	{
		REQUIRE(b.load("add table bridge other\n") == 0);
		b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(b.hits() == 1);
		CHECK(b.teardowns(FlowTeardown::Ruleset) == 1);
		CHECK(b.teardowns(FlowTeardown::Stale) == 0);
	}
	SECTION("conntrack flushes the connection")
	{
		CHECK(b.table().flush(xb::CtFilter()) == 1);
		CHECK(b.teardowns(FlowTeardown::Conntrack) == 1);
		// Detached at once (no hit touches it), unlinked by the GC.
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(b.hits() == 1);
		CHECK(o.to(b.p(2)));
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(b.flows().count() == 0);
		CHECK(b.teardowns(FlowTeardown::Conntrack) == 1);
	}
	SECTION("conntrack flushes it, conntrack picks it up again, it is offloaded again at once")
	{
		CHECK(b.table().flush(xb::CtFilter()) == 1);
		// Mid-stream pickup (nf_conntrack_tcp_loose): the first segment
		// creates the entry, the reply finds it established and confirmed
		// and offloads it, replacing the detached flow's keys (no GC yet).
		b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		b.send(b.p(2), b.b_to_a(ctf::ACK, 10));
		CHECK(b.flows().count() == 1);
		CHECK(b.flows().stats_sum().add_failed == 0);
		CHECK(b.hits() == 1);
		CHECK(b.send(b.p(1), b.a_to_b(ctf::ACK, 10)).to(b.p(2)));
		CHECK(b.send(b.p(2), b.b_to_a(ctf::ACK, 10)).to(b.p(1)));
		CHECK(b.hits() == 3);
	}
	SECTION("no hit for 30 s: the GC times it out, conntrack keeps the entry")
	{
		b.advance_ms(31 * 1000);
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(b.flows().count() == 0);
		CHECK(b.teardowns(FlowTeardown::Timeout) == 1);
		CHECK(b.table().count() == 1);
	}
	SECTION("conntrack turned off frees the flows")
	{
		REQUIRE(b.br->set_conntrack(false, nullptr) == 0);
		CHECK(b.br->flows() == nullptr);
		Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(o.to(b.p(2)));
	}
}

/* The flowtable's events: one FlowTeardown per flow that hands its
 * connection back, with the cause, the entry's OFFLOAD flag cleared. */
struct TeardownLog {
	struct Ev {
		xb::CtEventType type;
		uint8_t why;
		bool offload;	/* kCtOffload still set in the entry (must not be) */
		uint16_t sport;
	};
	std::vector<Ev> ev;
	static void fn(void *ctx, xb::CtEventType type, const xb::CtEntry &e, uint8_t detail)
	{
		static_cast<TeardownLog *>(ctx)->ev.push_back(
			{type, detail, (e.status_bits() & xb::kCtOffload) != 0, e.tuple.sport});
	}
	/* Exactly one teardown event, for the connection, with @why. */
	bool one(FlowTeardown why) const
	{
		return ev.size() == 1 && ev[0].type == xb::CtEventType::FlowTeardown &&
		       ev[0].why == uint8_t(why) && !ev[0].offload && ev[0].sport == 40000;
	}
};

TEST_CASE("bridge flowtable: a teardown event per flow and cause", "[flow][events]")
{
	TeardownLog log;	// outlives the bridge (its fini reports)
	FlowBridge b;
	b.flows().set_event_sink({TeardownLog::fn, &log});
	b.establish();
	CHECK(log.ev.empty());	// adding a flow is not an event
	REQUIRE(b.send(b.p(1), b.a_to_b(ctf::ACK, 10)).to(b.p(2)));
	CHECK(log.ev.empty());	// nor is a hit

	SECTION("FIN")
	{
		b.send(b.p(1), b.a_to_b(ctf::FIN | ctf::ACK));
		CHECK(log.one(FlowTeardown::FinRst));
	}
	SECTION("RST")
	{
		b.send(b.p(2), b.b_to_a(ctf::RST));
		CHECK(log.one(FlowTeardown::FinRst));
	}
	SECTION("a stale destination (B roams), on the next hit")
	{
		b.learn(b.p(3), kB);
		b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
		CHECK(log.one(FlowTeardown::Stale));
	}
	SECTION("a stale destination found by the GC")
	{
		b.br->port_link_changed(b.p(2), false);
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(log.one(FlowTeardown::Stale));
	}
	SECTION("a ruleset commit")
	{
		REQUIRE(b.load("add table bridge other\n") == 0);
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(log.one(FlowTeardown::Ruleset));
	}
	SECTION("timeout")
	{
		b.advance_ms(31 * 1000);
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(log.one(FlowTeardown::Timeout));
	}
	SECTION("conntrack removes the connection: once, not again at the GC")
	{
		CHECK(b.table().flush(xb::CtFilter()) == 1);
		CHECK(log.one(FlowTeardown::Conntrack));
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(log.ev.size() == 1);
	}
	SECTION("conntrack turned off (as when the bridge is deleted)")
	{
		REQUIRE(b.br->set_conntrack(false, nullptr) == 0);
		CHECK(log.one(FlowTeardown::Flush));
	}
	SECTION("a flow torn down is reported once; later frames report nothing")
	{
		b.send(b.p(1), b.a_to_b(ctf::FIN | ctf::ACK));
		b.send(b.p(2), b.b_to_a(ctf::FIN | ctf::ACK));
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
		CHECK(log.one(FlowTeardown::FinRst));
	}
}

TEST_CASE("bridge flowtable: a torn-down connection is offloaded again", "[flow]")
{
	FlowBridge b;
	b.establish();
	b.learn(b.p(3), kB);	// B roams to swp3 (not a device): stale
	Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
	CHECK(o.to(b.p(3)));
	CHECK(b.flows().count() == 0);
	b.learn(b.p(2), kB);	// back to swp2
	o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));	// slow path, offloaded again
	CHECK(o.to(b.p(2)));
	CHECK(b.flows().count() == 1);
	o = b.send(b.p(2), b.b_to_a(ctf::ACK, 10));
	CHECK(b.hits() == 1);
	CHECK(o.to(b.p(1)));
}

TEST_CASE("bridge flowtable: VLAN-tagged flows keep their tags, both ways", "[flow]")
{
	FlowBridge b(true);
	// VID 10: tagged on swp1, the PVID untagged on swp2.
	REQUIRE(b.br->vlan_add(b.p(1), 10, 10, 0, nullptr) == 0);
	REQUIRE(b.br->vlan_add(b.p(2), 10, 10, kVlanPvid | kVlanUntagged, nullptr) == 0);
	b.establish({q(10)}, {});
	// The slow path's decisions, for comparison, were on the handshake;
	// the hits must match them byte for byte in what they decide.
	Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10, {q(10, 5)}));
	CHECK(b.hits() == 1);
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(2)));
	CHECK(o.tag_to(b.p(2)) == TagAction::Untag);
	CHECK(o.v.vid == 10);
	o = b.send(b.p(2), b.b_to_a(ctf::ACK, 10));
	CHECK(b.hits() == 2);
	CHECK(o.to(b.p(1)));
	CHECK(o.tag_to(b.p(1)) == TagAction::Tag);
	CHECK(o.v.vid == 10);
	CHECK(o.v.tag_proto == kEthP8021Q);
	CHECK(o.v.pcp_dei == 0);
	// The same tag out of band (the kernel's case) is the same key.
	const std::vector<uint8_t> seg = b.a_to_b(ctf::ACK, 10);
	o = b.send(b.p(1), seg, OobTag{true, kEthP8021Q, 10 | 5 << 13});
	CHECK(b.hits() == 3);
	CHECK(o.v.pcp_dei == 5 << 1);
	// A tag of another VLAN is another key: the slow path decides.
	o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10, {q(11)}));
	CHECK(b.hits() == 3);
	CHECK(o.drop());
	// Removing the VLAN from swp2 makes the flow stale.
	REQUIRE(b.br->vlan_del(b.p(2), 10, 10, nullptr) == 0);
	o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10, {q(10)}));
	CHECK(b.hits() == 3);
	CHECK(!o.to(b.p(2)));
}

TEST_CASE("bridge flowtable: only connections between its devices, UDP once confirmed", "[flow]")
{
	FlowBridge b;
	const ctf::Ip kIpC = ctf::v4(10, 0, 0, 3);
	constexpr MacKey kC = mac(0x02, 0, 0, 0, 0, 0x0c);
	b.learn(b.p(3), kC);
	b.learn(b.p(1), kA);
	// swp3 is not a device of the flowtable.
	for (int i = 0; i < 3; i++)
		b.send(b.p(1), eth(kC, kA, ctf::udp_packet(kIpA, kIpC, 5000, 53)));
	CHECK(b.flows().count() == 0);
	// swp1 -> swp2: the first datagram creates the connection, the second
	// (confirmed) is offloaded, the third hits.
	b.learn(b.p(2), kB);
	const std::vector<uint8_t> d = eth(kB, kA, ctf::udp_packet(kIpA, kIpB, 5000, 53));
	b.send(b.p(1), d);
	CHECK(b.flows().count() == 0);
	b.send(b.p(1), d);
	CHECK(b.flows().count() == 1);
	Outcome o = b.send(b.p(1), d);
	CHECK(b.hits() == 1);
	CHECK(o.to(b.p(2)));
	// The reply hits too.
	o = b.send(b.p(2), eth(kA, kB, ctf::udp_packet(kIpB, kIpA, 53, 5000)));
	CHECK(b.hits() == 2);
	CHECK(o.to(b.p(1)));
}

TEST_CASE("bridge flowtable: a long offloaded flow keeps both endpoints learned", "[flow]")
{
	FlowBridge b;
	REQUIRE(b.br->set_ageing_time_ms(10 * 1000, nullptr) == 0);
	b.establish();
	for (int i = 0; i < 40; i++) {
		b.advance_ms(500);
		REQUIRE(b.send(b.p(1), b.a_to_b(ctf::ACK, 10)).to(b.p(2)));
		REQUIRE(b.send(b.p(2), b.b_to_a(ctf::ACK, 10)).to(b.p(1)));
		b.br->run_ageing(b.now());
		b.br->run_ct_gc(b.now(), xb::kBridgeCtBuckets);
	}
	CHECK(b.hits() == 80);
	CHECK(b.has(kA, 0));
	CHECK(b.has(kB, 0));
	CHECK(b.flows().count() == 1);
	// Conntrack keeps the offloaded entry alive.
	CHECK(b.table().count() == 1);
	// Silence: the endpoints age out, and that makes the flow stale.
	b.advance_ms(11 * 1000);
	b.br->run_ageing(b.now());
	CHECK(!b.has(kB, 0));
	Outcome o = b.send(b.p(1), b.a_to_b(ctf::ACK, 10));
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(b.hits() == 80);
}

TEST_CASE("bridge flowtable: a hit needs only the headers (a paged skb's)", "[flow]")
{
	FlowBridge b;
	b.establish();
	const std::vector<uint8_t> seg = b.a_to_b(ctf::ACK, 1000);
	xb::Verdict v;
	{
		xb::RcuReadGuard g;
		// 14 + 20 + 20 bytes at hand, the rest of the 1,054 elsewhere.
		xb::RxFrame rx{seg.data(), 54, xb::OobTag{false, 0, 0}, b.p(1)};
		rx.wire_len = uint32_t(seg.size());
		REQUIRE(xb::flow_fast_path(*b.br, rx, b.now(), v));
		CHECK(v.kind == VerdictKind::Forward);
		CHECK(v.out.port == b.p(2));
		// Not even the TCP flags at hand: no hit, the caller decides.
		rx.len = 40;
		CHECK(!xb::flow_fast_path(*b.br, rx, b.now(), v));
		// The whole frame shorter than its IP header says: no hit.
		rx.len = 54;
		rx.wire_len = 60;
		CHECK(!xb::flow_fast_path(*b.br, rx, b.now(), v));
	}
	CHECK(b.hits() == 1);
	// No flows (conntrack off): no hit.
	REQUIRE(b.br->set_conntrack(false, nullptr) == 0);
	xb::RcuReadGuard g;
	xb::RxFrame rx{seg.data(), uint32_t(seg.size()), xb::OobTag{false, 0, 0}, b.p(1)};
	CHECK(!xb::flow_fast_path(*b.br, rx, b.now(), v));
}

// The conformance harness's offload mode (corpus 183): B roams while the
// connection is offloaded, and its first segment from the new port is the
// one that moves its FDB entry - so it misses the flow (keyed by the old
// ingress port) and reaches conntrack before anything made the flow stale.
// Conntrack has not seen the offloaded segments: with the windows it had,
// the segment is out of window, ct state invalid, and a ruleset that drops
// invalid drops it, where the Linux bridge (no flowtable) forwards it. A
// segment of an offloaded connection that misses its flows tears them
// down first, so that conntrack takes the connection back liberal, as
// after any teardown.
TEST_CASE("bridge flowtable: a segment that misses its offloaded connection's flow is tracked as "
	  "without a flowtable", "[flow]")
{
	FlowBridge b;
	REQUIRE(b.load("flush ruleset\n"
		       "table bridge f {\n"
		       "  flowtable ft { hook ingress priority 0; devices = { swp1, swp2, swp3 }; }\n"
		       "  chain forward_c { type filter hook forward priority 0;\n"
		       "    ct state invalid drop\n"
		       "    ip protocol { tcp, udp } flow offload @ft\n"
		       "  }\n"
		       "}\n") == 0);
	b.establish();
	// Far past the windows conntrack last saw (65535 each way).
	for (int i = 0; i < 60; i++) {
		REQUIRE(b.send(b.p(1), b.a_to_b(ctf::ACK, 1400)).to(b.p(2)));
		REQUIRE(b.send(b.p(2), b.b_to_a(ctf::ACK, 1400)).to(b.p(1)));
	}
	REQUIRE(b.hits() == 120);

	SECTION("B speaks first from swp3")
	{
		Outcome o = b.send(b.p(3), b.b_to_a(ctf::ACK, 100));
		CHECK(o.to(b.p(1)));
		CHECK(b.teardowns(FlowTeardown::Stale) == 1);
		// Offloaded again by that segment, now between swp1 and swp3.
		CHECK(b.flows().count() == 1);
		o = b.send(b.p(1), b.a_to_b(ctf::ACK, 100));
		CHECK(o.to(b.p(3)));
		o = b.send(b.p(3), b.b_to_a(ctf::ACK, 100));
		CHECK(o.to(b.p(1)));
		CHECK(b.hits() == 122);
	}
	SECTION("A's segment to another MAC of B's")
	{
		constexpr MacKey kB2 = mac(0x02, 0, 0, 0, 0, 0x0c);
		b.learn(b.p(2), kB2);
		std::vector<uint8_t> f = b.a_to_b(ctf::ACK, 100);
		for (int i = 0; i < 6; i++)
			f[i] = uint8_t(kB2 >> (8 * i));
		Outcome o = b.send(b.p(1), f);
		CHECK(o.to(b.p(2)));
		CHECK(b.teardowns(FlowTeardown::Stale) == 1);
		// The connection goes on (offloaded again after one slow frame).
		CHECK(b.send(b.p(2), b.b_to_a(ctf::ACK, 100)).to(b.p(1)));
		CHECK(b.send(b.p(1), b.a_to_b(ctf::ACK, 100)).to(b.p(2)));
	}
}
