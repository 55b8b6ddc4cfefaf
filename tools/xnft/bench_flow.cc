// bench_flow.cc - the flowtable rows of xnft-bench: what the core's
// decision costs for an established TCP segment through the seed's bridge
// (two ports, VLAN 200 PVID untagged, filtering on), in TSC cycles per
// frame, three ways over the same frames:
//
//   plain  no ruleset, no conntrack: the FDB forward decision alone
//   slow   the seed's firewall with conntrack, no flowtable: prerouting
//          chains, conntrack's lookup and state update, the forward chain
//   hit    the same with the flowtable offloading the connections: the
//          flow lookup and its refreshes instead of all of that
//
// at 1,000 and 60,000 connections (the bridge's conntrack holds 65,536),
// one frame per decide() and 64 per decide_batch(). Frames are data
// segments of distinct connections, walked in a shuffled order.
//
// Userspace benchmark code; each row owns its Bridge and Ruleset.
#include "bench_flow.h"

#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "../../core/tests/ct_frames.h"
#include "bridge.h"
#include "bridge_ct.h"
#include "flow_table.h"
#include "forward.h"
#include "nft_ruleset.h"
#include "tests/engine_load.h"

namespace xnft_bench {

namespace {

using namespace xb;

constexpr unsigned kChunk = 64;
constexpr uint8_t kMacA[6] = {0x02, 0, 0, 0, 0x21, 0x07};
constexpr uint8_t kMacB[6] = {0x02, 0, 0, 0, 0x21, 0x08};

const char *const kSeed =
	"add table bridge firewall\n"
	"add chain bridge firewall zones { type filter hook prerouting priority - 300 ; }\n"
	"add rule bridge firewall zones counter ct zone set 2\n"
	"add chain bridge firewall rule-200-ingress\n"
	"add rule bridge firewall rule-200-ingress ct zone 2 ct state established,related counter accept\n"
	"add rule bridge firewall rule-200-ingress ct zone 2 ct state invalid counter drop\n"
	"add rule bridge firewall rule-200-ingress ct zone 2 tcp dport 23 ct state new counter accept\n"
	"add rule bridge firewall rule-200-ingress counter drop\n"
	"add chain bridge firewall rule-200-egress\n"
	"add rule bridge firewall rule-200-egress ct zone 2 ct state established,related counter accept\n"
	"add rule bridge firewall rule-200-egress ct zone 2 ct state invalid counter drop\n"
	"add rule bridge firewall rule-200-egress ct zone 2 tcp dport 23 ct state new counter drop\n"
	"add rule bridge firewall rule-200-egress counter accept\n"
	"add chain bridge firewall rules-all { type filter hook prerouting priority - 150 ; }\n"
	"add rule bridge firewall rules-all counter meta protocol ip iifname vmap { \"veth22\" : jump rule-200-ingress, \"veth21\" : jump rule-200-egress }\n"
	"add chain bridge firewall ftb-all {type filter hook forward priority 0 ; policy accept ; }\n";
const char *const kOffload =
	"add flowtable bridge firewall fb2 { hook ingress priority 0 ; devices = { veth21, veth22 } ; }\n"
	"add rule bridge firewall ftb-all counter ct zone 2 ip protocol tcp flow offload @fb2\n";

/* A segment of connection @conn (10.1.x.y:port <-> 10.0.0.8:22), from A
 * or (@reply) from B. */
ctf::Bytes segment(uint32_t conn, bool reply, uint8_t flags)
{
	ctf::Tcp t;
	const uint16_t port = uint16_t(1024 + conn % 60000);
	t.sport = reply ? 22 : port;
	t.dport = reply ? port : 22;
	t.seq = reply ? 5000 : ((flags & ctf::SYN) ? 1000 : 1001);
	t.ack = reply ? 1001 : ((flags & ctf::SYN) ? 0 : 5001);
	t.flags = flags;
	t.win = 65535;
	const ctf::Ip a = ctf::v4(10, 1, uint8_t(conn / 60000 >> 8), uint8_t(conn / 60000));
	const ctf::Ip b = ctf::v4(10, 0, 0, 8);
	const ctf::Bytes ip = reply ? ctf::tcp_packet(b, a, t) : ctf::tcp_packet(a, b, t);
	const uint8_t *dst = reply ? kMacA : kMacB, *src = reply ? kMacB : kMacA;
	ctf::Bytes f;
	for (int i = 0; i < 6; i++)
		f.push_back(dst[i]);
	for (int i = 0; i < 6; i++)
		f.push_back(src[i]);
	f.push_back(0x08);
	f.push_back(0x00);
	f.insert(f.end(), ip.begin(), ip.end());
	return f;
}

struct Rig {
	Bridge *br = nullptr;
	nft::Ruleset rs;
	Port *p1 = nullptr, *p2 = nullptr;

	bool up(bool ruleset, bool offload)
	{
		BridgeSetup s{};
		s.addr = 0x0000'0001'bb00'0002ull;
		s.ifindex = 100;
		int err = 0;
		br = Bridge::create(s, &err);
		if (!br || rs.init(nullptr))
			return false;
		PortSetup ps{};
		ps.addr = 0x0000'0101'0000'0002ull;
		ps.ifindex = 1;	/* "lo" for the seed's iif map (ifindex 1) */
		if (br->add_port(ps, &p1, nullptr))
			return false;
		ps.addr = 0x0000'0201'0000'0002ull;
		ps.ifindex = 2;
		if (br->add_port(ps, &p2, nullptr))
			return false;
		br->set_port_ifname(p1, "veth21");
		br->set_port_ifname(p2, "veth22");
		if (br->set_vlan_filtering(true, nullptr) ||
		    br->vlan_add(p1, 200, 200, kVlanPvid | kVlanUntagged, nullptr) ||
		    br->vlan_add(p2, 200, 200, kVlanPvid | kVlanUntagged, nullptr))
			return false;
		if (ruleset) {
			br->set_nft_ruleset(&rs);
			if (br->set_conntrack(true, nullptr))
				return false;
			std::string text = kSeed;
			if (offload)
				text += kOffload;
			if (xnft::load_text(rs, text).err)
				return false;
		}
		return true;
	}
	void down()
	{
		if (br) {
			br->set_nft_ruleset(nullptr);
			xb_synchronize_rcu();
			Bridge::destroy(br);
		}
		rs.fini();
	}
	Verdict decide(Port *in, const ctf::Bytes &f)
	{
		RcuReadGuard g;
		RxFrame rx{f.data(), uint32_t(f.size()), OobTag{false, 0, 0}, in};
		Verdict v;
		xb::decide(*br, rx, Bridge::now_ticks(), v);
		return v;
	}
};

/* Median chunk's cycles per frame over @passes walks of @frames. */
double time_frames(Rig &rig, const std::vector<RxFrame> &frames, bool batch, unsigned passes,
		   bool &ok)
{
	std::vector<double> chunks;
	Verdict v[kChunk];
	for (unsigned pass = 0; pass < passes; pass++)
		for (size_t base = 0; base + kChunk <= frames.size(); base += kChunk) {
			RcuReadGuard g;
			const uint32_t now = Bridge::now_ticks();
			/* A received frame's headers are in cache (the driver
			 * and eth_type_trans read them): so are these. */
			uint32_t touch = 0;
			for (unsigned i = 0; i < kChunk; i++)
				touch += frames[base + i].data[0] + frames[base + i].data[40];
			asm volatile("" : : "r"(touch));
			const uint64_t t0 = __rdtsc();
			if (batch) {
				decide_batch(*rig.br, &frames[base], kChunk, now, v);
			} else {
				for (unsigned i = 0; i < kChunk; i++)
					xb::decide(*rig.br, frames[base + i], now, v[i]);
			}
			const uint64_t t1 = __rdtsc();
			for (unsigned i = 0; i < kChunk; i++)
				if (v[i].kind != VerdictKind::Forward || v[i].out.port != rig.p2)
					ok = false;
			chunks.push_back(double(t1 - t0) / kChunk);
		}
	std::sort(chunks.begin(), chunks.end());
	return chunks.empty() ? 0 : chunks[chunks.size() / 2];
}

/* One configuration: @conns connections established, their data segments
 * timed. */
bool run_case(uint32_t conns, bool ruleset, bool offload, unsigned passes, FlowCase &out)
{
	Rig rig;
	bool ok = rig.up(ruleset, offload);
	std::vector<ctf::Bytes> data;
	if (ok) {
		/* learn both hosts, then the handshakes */
		rig.decide(rig.p1, segment(0, false, ctf::ACK));
		rig.decide(rig.p2, segment(0, true, ctf::ACK));
		if (ruleset)
			rig.br->conntrack()->table().flush(CtFilter());
		for (uint32_t c = 0; c < conns && ruleset; c++) {
			rig.decide(rig.p1, segment(c, false, ctf::SYN));
			rig.decide(rig.p2, segment(c, true, ctf::SYN | ctf::ACK));
			rig.decide(rig.p1, segment(c, false, ctf::ACK));
		}
		for (uint32_t c = 0; c < conns; c++)
			data.push_back(segment(c, false, ctf::ACK));
		std::vector<uint32_t> order(conns);
		for (uint32_t i = 0; i < conns; i++)
			order[i] = i;
		uint32_t seed = 12345;
		for (uint32_t i = conns; i > 1; i--) {
			seed = seed * 1103515245 + 12345;
			std::swap(order[i - 1], order[(seed >> 8) % i]);
		}
		std::vector<RxFrame> frames;
		for (uint32_t i : order)
			frames.push_back(RxFrame{data[i].data(), uint32_t(data[i].size()),
						 OobTag{false, 0, 0}, rig.p1});
		const uint64_t hits0 = offload ? rig.br->flows()->stats_sum().hits : 0;
		out.single = time_frames(rig, frames, false, passes, ok);
		out.batch = time_frames(rig, frames, true, passes, ok);
		if (offload) {
			out.flows = rig.br->flows()->count();
			out.hit_ratio = double(rig.br->flows()->stats_sum().hits - hits0) /
					double(2 * passes * (frames.size() / kChunk) * kChunk);
		}
		if (ruleset)
			out.connections = rig.br->conntrack()->table().count();
	}
	rig.down();
	return ok;
}

} // namespace

bool run_flow_rows(uint32_t conns, unsigned passes, FlowRow &row)
{
	row.conns = conns;
	bool ok = run_case(conns, false, false, passes, row.plain);
	ok &= run_case(conns, true, false, passes, row.slow);
	ok &= run_case(conns, true, true, passes, row.hit);
	ok &= row.hit.flows == conns && row.hit.hit_ratio > 0.999;
	return ok;
}

} // namespace xnft_bench
