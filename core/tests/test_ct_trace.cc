// SPDX-License-Identifier: GPL-2.0
/*
 * test_ct_trace.cc - a randomized trace through the whole tracker
 * (Conntrack::in and in_batch), folded into one digest that was recorded
 * from the tracker before its established-TCP hit path was restructured
 * (branch ctfast, at the commit that added this file): any change in what
 * the tracker decides for any frame of the trace changes the digest.
 *
 * The trace: a few TCP connections (IPv4 and IPv6, two zones) driven by
 * random segments whose sequence and acknowledgement numbers are drawn
 * around the entry's own window edges (so that in-window, edge and
 * out-of-window segments all occur), with random flags (mostly ACK, every
 * other class and invalid combinations too), payload, options (timestamps,
 * SACK blocks, window scale, SACK-permitted, malformed), bad data offsets
 * and truncated headers, IP lengths that do not match, first and later
 * fragments, VLAN tags in band or out of band, bad checksums with and
 * without csum_ok and nf_conntrack_checksum, the TCP sysctls toggled, time
 * jumping past timeouts, windows forgotten (tracking_resumed), entries
 * marked offloaded, and an event sink. A little UDP and ICMP is mixed in.
 * Per frame the digest takes the result (state, direction, drop, whether
 * it has an entry and owns it) and the entry's tracking state, status,
 * expiry and counters; at the end the counters of `conntrack -S` and the
 * events.
 *
 * Userspace test code: it may use the C++ standard library.
 */
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "ct_frames.h"
#include "ct_proto_tcp.h"
#include "ct_table.h"
#include "ct_track.h"
#include "ct_tuple.h"
#include "platform.h"
#include "platform_user.h"

using namespace xb;
using namespace ctf;

namespace {

struct Digest {
	uint64_t h = 0xcbf29ce484222325ull;

	void add(const void *p, size_t n)
	{
		const uint8_t *b = static_cast<const uint8_t *>(p);
		for (size_t i = 0; i < n; i++) {
			h ^= b[i];
			h *= 0x100000001b3ull;
		}
	}
	void add64(uint64_t v) { add(&v, sizeof(v)); }
};

struct Events {
	Digest d;
	unsigned updates = 0;
	unsigned offload_missed = 0;
};

void on_event(void *ctx, CtEventType type, const CtEntry &e, uint8_t detail)
{
	Events *ev = static_cast<Events *>(ctx);
	ev->d.add64(uint64_t(type) << 8 | detail);
	ev->d.add(&e.tuple, sizeof(e.tuple));
	ev->d.add64(e.status_bits());
	if (e.tuple.l4proto == kIpProtoTcp)
		ev->d.add64(e.tcp_state());
	if (type == CtEventType::Update)
		ev->updates++;
}

void on_offload_missed(void *ctx, CtEntry &e, uint32_t)
{
	Events *ev = static_cast<Events *>(ctx);
	ev->offload_missed++;
	e.clear_status(kCtOffload);
}

void on_offload_removed(void *, CtEntry &) {}

struct Endpoint {
	Ip cli, srv;
	uint16_t cport, sport;
	uint16_t zone;
};

struct Counts {
	unsigned frames = 0;
	unsigned est_ack = 0;		/* ACK-only to an ESTABLISHED, confirmed entry */
	unsigned est_ack_ok = 0;	/* ... that was not INVALID */
	unsigned states[256] = {};
};

class Trace {
public:
	explicit Trace(uint32_t seed) : rng_(seed) {}

	uint32_t below(uint32_t n) { return uint32_t(rng_() % n); }

	void run(unsigned steps, Digest &out, Counts &counts, Events &ev)
	{
		Conntrack ct;
		REQUIRE(ct.init(64, 0, nullptr) == 0);
		ct.table().set_event_sink({on_event, &ev});
		ct.table().set_offload_sink({on_offload_removed, on_offload_missed, &ev});
		now_ = 7000000;

		std::vector<Endpoint> eps;
		for (unsigned i = 0; i < 6; i++) {
			Endpoint e;
			const bool six = i >= 4;
			e.cli = six ? v6(uint16_t(0x100 + i)) : v4(10, 0, uint8_t(i), 1);
			e.srv = six ? v6(uint16_t(0x200 + i)) : v4(10, 1, uint8_t(i), 2);
			e.cport = uint16_t(40000 + i);
			e.sport = 443;
			e.zone = uint16_t(i == 3 ? 7 : 0);
			eps.push_back(e);
		}

		std::vector<Bytes> frames;
		std::vector<bool> oob;
		std::vector<uint16_t> zones;
		for (unsigned step = 0; step < steps;) {
			/* time goes on: mostly a little, sometimes past timeouts */
			const uint32_t r = below(1000);
			now_ += r < 900 ? below(50) : r < 990 ? below(200000) : below(700000000);
			switch (below(200)) {
			case 0:
				ct.tracking_resumed();
				break;
			case 1:
				ct.config.tcp.be_liberal = !ct.config.tcp.be_liberal;
				break;
			case 2:
				ct.config.tcp.loose = !ct.config.tcp.loose;
				break;
			case 3:
				ct.config.tcp.ignore_invalid_rst = !ct.config.tcp.ignore_invalid_rst;
				break;
			case 4:
				ct.config.checksum = !ct.config.checksum;
				break;
			case 5:
				mark_offloaded(ct, eps[below(uint32_t(eps.size()))]);
				break;
			default:
				break;
			}
			/* a run of frames, through in() or one in_batch() */
			const unsigned n = below(4) ? 1 : 1 + below(24);
			const bool csum_ok = below(4) != 0;
			frames.clear();
			oob.clear();
			zones.clear();
			const bool batch_oob = below(8) == 0;
			for (unsigned i = 0; i < n; i++) {
				const Endpoint &ep = eps[below(uint32_t(eps.size()))];
				frames.push_back(make_frame(ct, ep, batch_oob, counts));
				oob.push_back(batch_oob);
				zones.push_back(ep.zone);
			}
			if (n == 1) {
				RcuReadGuard rcu;
				CtResult res;
				ct.in(frames[0].data(), uint32_t(frames[0].size()), oob[0], zones[0], now_,
				      csum_ok, res);
				finish(ct, res, out, counts);
			} else {
				/* one zone for the batch: the first frame's */
				std::vector<const uint8_t *> ptrs;
				std::vector<uint32_t> lens;
				for (const Bytes &f : frames) {
					ptrs.push_back(f.data());
					lens.push_back(uint32_t(f.size()));
				}
				std::vector<CtResult> res(n);
				RcuReadGuard rcu;
				for (unsigned j = 0; j < n;) {
					const unsigned k = ct.in_batch(&ptrs[j], &lens[j], n - j, batch_oob,
								      zones[0], now_, csum_ok, &res[j]);
					REQUIRE(k >= 1);
					for (unsigned m = j; m < j + k; m++)
						finish(ct, res[m], out, counts);
					j += k;
				}
			}
			step += n;
		}
		const CtStats s = ct.table().stats_sum();
		out.add64(s.invalid);
		out.add64(s.insert);
		out.add64(s.insert_failed);
		out.add64(s.drop);
		out.add64(s.early_drop);
		out.add64(s.error);
		out.add64(ct.table().count());
		xb_rcu_barrier();
		ct.fini();
	}

private:
	std::mt19937 rng_;
	uint32_t now_ = 0;

	CtEntry *find(Conntrack &ct, const Endpoint &ep, uint8_t *dir)
	{
		CtTuple t = {};
		std::memcpy(t.src, ep.cli.addr, ep.cli.family == 4 ? 4 : 16);
		std::memcpy(t.dst, ep.srv.addr, ep.srv.family == 4 ? 4 : 16);
		t.sport = ep.cport;
		t.dport = ep.sport;
		t.l3 = ep.cli.family;
		t.l4proto = kIpProtoTcp;
		t.zone = ep.zone;
		return ct.table().lookup(t, now_, dir);
	}

	void mark_offloaded(Conntrack &ct, const Endpoint &ep)
	{
		RcuReadGuard rcu;
		uint8_t dir;
		CtEntry *e = find(ct, ep, &dir);
		if (e)
			e->set_status(kCtOffload);
	}

	uint32_t near(uint32_t base)
	{
		switch (below(20)) {
		case 0:
			return uint32_t(rng_());
		case 1:
			return base + below(140000) - 70000;
		case 2:
			return base + below(8) - 4;
		case 3:
			return base + 65535 + below(8) - 4;
		case 4:
			return base - 66000 + below(8) - 4;
		default:
			return base + below(41) - 20;
		}
	}

	uint8_t pick_flags()
	{
		static const uint8_t kFlags[] = {
			ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK, ACK | PSH, ACK | PSH, ACK | URG, ACK | 0x40,
			ACK | 0x80, ACK | 0xc0 | PSH, FIN | ACK, FIN | ACK | PSH, RST, RST | ACK,
			SYN, SYN | ACK, FIN, 0, SYN | FIN, SYN | RST, FIN | RST | ACK, ACK | SYN | URG,
		};
		if (below(30) == 0)
			return uint8_t(rng_());
		return kFlags[below(sizeof(kFlags))];
	}

	Bytes options(uint32_t ack, uint8_t flags)
	{
		Bytes o;
		switch (below(12)) {
		case 0:
		case 1:	/* timestamps alone */
			o = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2};
			break;
		case 2:
		case 3: {	/* SACK blocks around the ack */
			const unsigned blocks = 1 + below(3);
			o = {1, 1, 5, uint8_t(2 + 8 * blocks)};
			for (unsigned b = 0; b < blocks; b++) {
				const uint32_t left = ack + below(6000) - 1000;
				const uint32_t right = left + below(3000);
				for (uint32_t v : {left, right})
					for (int sh = 24; sh >= 0; sh -= 8)
						o.push_back(uint8_t(v >> sh));
			}
			break;
		}
		case 4:	/* window scale and SACK permitted (as a SYN sends) */
			o = {1, 3, 3, uint8_t(below(16)), 1, 1, 4, 2};
			break;
		case 5:	/* malformed: a silly size, or one running off the end */
			o = {5, uint8_t(below(3)), 0, 0, 3, 9, 0, 0};
			break;
		case 6:	/* SACK with a bad length, then the end */
			o = {1, 1, 5, 7, 0, 0, 0, 0, 0, 0, 0, 0};
			break;
		default:
			if (flags & SYN) {
				if (below(2))
					o = {1, 3, 3, uint8_t(below(16))};
				if (below(2))
					o.insert(o.end(), {1, 1, 4, 2});
			}
			break;
		}
		return o;
	}

	Bytes make_frame(Conntrack &ct, const Endpoint &ep, bool oob, Counts &counts)
	{
		if (below(40) == 0) {	/* some UDP and ICMP between the same hosts */
			const Bytes ip = below(2) ? udp_packet(ep.cli, ep.srv, ep.cport, 53)
						  : echo(ep.cli, ep.srv, ep.cport, below(2));
			return frame(ip);
		}
		const bool reply = below(2);
		uint8_t dir = 0;
		uint32_t seq_base = uint32_t(rng_()), ack_base = uint32_t(rng_());
		bool est = false;
		{
			RcuReadGuard rcu;
			CtEntry *e = find(ct, ep, &dir);
			if (e) {
				const unsigned d = reply ? 1 : 0;
				seq_base = e->proto.tcp.seen[d].td_end;
				ack_base = e->proto.tcp.seen[!d].td_end;
				est = e->proto.tcp.state == kTcpEstablished;
			}
		}
		Tcp t;
		t.sport = reply ? ep.sport : ep.cport;
		t.dport = reply ? ep.cport : ep.sport;
		t.seq = near(seq_base);
		t.ack = near(ack_base);
		t.flags = pick_flags();
		const uint32_t w = below(6);
		t.win = uint16_t(w == 0 ? 0 : w == 1 ? 1 : w == 2 ? 65535 : rng_());
		t.payload = below(3) ? 0 : below(3) ? below(100) : below(1400);
		t.options = options(t.ack, t.flags);
		while (t.options.size() % 4)
			t.options.push_back(0);
		const Ip &src = reply ? ep.srv : ep.cli;
		const Ip &dst = reply ? ep.cli : ep.srv;
		Bytes ip = tcp_packet(src, dst, t);
		const size_t l4 = src.family == 4 ? 20 : 40;

		bool plain = true;
		switch (below(40)) {
		case 0:	/* bad data offset */
			ip[l4 + 12] = uint8_t((below(16) << 4) | (ip[l4 + 12] & 0x0f));
			plain = false;
			break;
		case 1:	/* cut: the IP length shrinks with it */
			ip.resize(l4 + below(uint32_t(ip.size() - l4)));
			if (src.family == 4)
				put16(ip, 2, uint16_t(ip.size()));
			else
				put16(ip, 4, uint16_t(ip.size() - 40));
			plain = false;
			break;
		case 2:	/* IP length beyond the frame, or short of it */
			if (src.family == 4)
				put16(ip, 2, uint16_t(ip.size() + below(8) - 4));
			else
				put16(ip, 4, uint16_t(ip.size() - 40 + below(8) - 4));
			plain = false;
			break;
		case 3:	/* a fragment: first (MF) or later */
			if (src.family == 4) {
				put16(ip, 6, below(2) ? 0x2000 : uint16_t(0x2000 | (1 + below(100))));
				plain = false;
			}
			break;
		case 4:
		case 5:	/* bad checksum */
			ip[l4 + 16] ^= uint8_t(1 + below(255));
			plain = false;
			break;
		case 6:	/* trailing bytes behind the IP packet */
			ip.insert(ip.end(), below(6) + 1, 0xee);
			break;
		default:
			break;
		}
		Eth eth;
		if (!oob) {
			const uint32_t tags = below(10);
			eth.tags = tags < 7 ? 0 : tags < 9 ? 1 : 2;
			eth.tpid = below(2) ? 0x8100 : 0x88a8;
		}
		if (est && plain && (t.flags & (SYN | FIN | RST | ACK)) == ACK)
			counts.est_ack++;
		return frame(ip, eth);
	}

	void finish(Conntrack &ct, CtResult &res, Digest &out, Counts &counts)
	{
		counts.frames++;
		counts.states[res.state]++;
		out.add64(uint64_t(res.state) | uint64_t(res.dir) << 8 | uint64_t(res.drop) << 16 |
			  uint64_t(res.unconfirmed) << 24 | uint64_t(res.entry != nullptr) << 32);
		if (res.entry) {
			const CtEntry &e = *res.entry;
			out.add(&e.tuple, sizeof(e.tuple));
			out.add(&e.proto, sizeof(e.proto));
			out.add64(e.status_bits() & ~kCtConfirmed);
			out.add64(e.expires);
			out.add(e.packets, sizeof(e.packets));
			out.add(e.bytes, sizeof(e.bytes));
		}
		const bool ok = ct.confirm(res, now_);
		out.add64(ok);
		ct.release(res);
	}
};

/* Recorded from the tracker before the hit path was restructured. */
constexpr uint64_t kTraceDigest = 0x9f5dee2dd33dc711ull;

} // namespace

TEST_CASE("ct: a random trace decides as the tracker did before its hit path was "
	  "restructured", "[ct][tcp][trace]")
{
	Digest d;
	Counts counts;
	Events ev;
	Trace trace(20261206);
	trace.run(300000, d, counts, ev);
	d.add64(ev.d.h);
	d.add64(ev.updates);
	d.add64(ev.offload_missed);
	INFO("digest 0x" << std::hex << d.h << std::dec << ", frames " << counts.frames
			 << ", established ACKs " << counts.est_ack << ", updates " << ev.updates
			 << ", offload missed " << ev.offload_missed << ", established "
			 << counts.states[kCtStateEstablished] << ", new " << counts.states[kCtStateNew]
			 << ", invalid " << counts.states[kCtStateInvalid] << ", untracked "
			 << counts.states[kCtStateUntracked]);
	/* the trace covers the hit path and its fallbacks */
	CHECK(counts.est_ack > 40000);
	CHECK(counts.states[kCtStateEstablished] > 50000);
	CHECK(counts.states[kCtStateInvalid] > 20000);
	CHECK(counts.states[kCtStateNew] > 1000);
	CHECK(ev.updates > 1000);
	CHECK(ev.offload_missed > 10);
	CHECK(d.h == kTraceDigest);
}
