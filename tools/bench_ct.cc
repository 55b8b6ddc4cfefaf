// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ct.cc - the conntrack rows of xbridge-bench (--ct SIZES): the
 * established-TCP hit path (parse, lookup, window check and state update,
 * per-direction counters) at N connections in one zone.
 *
 * Set-up (untimed): N TCP connections through SYN, SYN/ACK and ACK, each
 * confirmed as the bridge would; the table then holds N ASSURED
 * ESTABLISHED entries (N buckets, as nf_conntrack_max = nf_conntrack_buckets by
 * default; no bound).
 * A pool of frames (random connection, random direction, an in-window ACK
 * of what the other side sent) is prepared; the timed loop walks it
 * cyclically in 64-frame chunks bracketed by rdtsc, each chunk one RCU read
 * section (as a NAPI poll), tracking its frames one at a time with
 * Conntrack::in() ("single") or through Conntrack::in_batch() ("batch",
 * buckets and entries prefetched 16 frames ahead), then releasing the
 * results. Chunks above 3x the median chunk are dropped as preemptions
 * (bench.cc's trimming). Every timed result must be
 * ESTABLISHED with an entry, and the table must still hold N ESTABLISHED
 * entries afterwards; anything else counts as a failure.
 *
 * Bytes per connection: allocator bytes (entries plus bucket array) / N.
 * Single-threaded; owns its Conntrack.
 */
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

#include <algorithm>
#include <random>
#include <vector>

#include "bench_ct.h"
#include "ct_track.h"
#include "platform_user.h"

namespace xbench {

namespace {

using namespace xb;

inline uint64_t rdtsc_fenced()
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

constexpr unsigned kFrameLen = 14 + 20 + 20;

void put16(uint8_t *p, uint16_t v)
{
	p[0] = uint8_t(v >> 8);
	p[1] = uint8_t(v);
}

void put32(uint8_t *p, uint32_t v)
{
	put16(p, uint16_t(v >> 16));
	put16(p + 2, uint16_t(v));
}

/* Connection i: 10.<i>.1 -> 10.<i>.2 style addresses, fixed ports. */
void write_segment(uint8_t *f, uint32_t i, bool reply, uint32_t seq, uint32_t ack, uint8_t flags)
{
	memset(f, 0, kFrameLen);
	f[0] = 2;
	f[6] = 2;
	put16(f + 12, 0x0800);
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	put16(ip + 2, 40);
	ip[8] = 64;
	ip[9] = 6;
	uint8_t cli[4] = {10, uint8_t(i >> 16), uint8_t(i >> 8), uint8_t(i)};
	uint8_t srv[4] = {172, 16, uint8_t(i >> 16), 1};
	memcpy(ip + 12, reply ? srv : cli, 4);
	memcpy(ip + 16, reply ? cli : srv, 4);
	uint8_t *tcp = ip + 20;
	const uint16_t cport = uint16_t(1024 + (i & 0x7fff)), sport = 443;
	put16(tcp, reply ? sport : cport);
	put16(tcp + 2, reply ? cport : sport);
	put32(tcp + 4, seq);
	put32(tcp + 8, ack);
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	put16(tcp + 14, 65000);
}

constexpr uint32_t kCliIsn = 1000, kSrvIsn = 900000;

uint8_t track(Conntrack &ct, const uint8_t *f, uint32_t now)
{
	RcuReadGuard rcu;
	CtResult r;
	ct.in(f, kFrameLen, false, 0, now, true, r);
	ct.confirm(r, now);
	const uint8_t s = r.state;
	ct.release(r);
	return s;
}

} // namespace

bool run_ct_row(uint32_t conns, uint64_t frames, unsigned passes, size_t pool_size, double tsc_hz,
		CtBenchRow &row)
{
	row = CtBenchRow();
	row.conns = conns;
	const size_t bytes_before = xb_user_bytes_allocated();
	Conntrack ct;
	if (ct.init(conns, 0, nullptr)) {
		fprintf(stderr, "bench-ct: init failed\n");
		return false;
	}
	const uint32_t now = 1000000;
	uint8_t f[kFrameLen];
	unsigned failures = 0;
	for (uint32_t i = 0; i < conns; i++) {
		write_segment(f, i, false, kCliIsn, 0, 0x02);
		failures += track(ct, f, now) != kCtStateNew;
		write_segment(f, i, true, kSrvIsn, kCliIsn + 1, 0x12);
		failures += track(ct, f, now) != kCtStateEstablished;
		write_segment(f, i, false, kCliIsn + 1, kSrvIsn + 1, 0x10);
		failures += track(ct, f, now) != kCtStateEstablished;
	}
	row.bytes_per_conn = double(xb_user_bytes_allocated() - bytes_before) / conns;
	if (ct.table().count() != conns)
		failures++;

	/* the pool: random connection, random direction, in-window ACK */
	std::mt19937_64 rng(conns);
	std::vector<uint8_t> pool(pool_size * kFrameLen);
	for (size_t k = 0; k < pool_size; k++) {
		const uint32_t i = uint32_t(rng() % conns);
		const bool reply = rng() & 1;
		write_segment(&pool[k * kFrameLen], i, reply, reply ? kSrvIsn + 1 : kCliIsn + 1,
			      reply ? kCliIsn + 1 : kSrvIsn + 1, 0x10);
	}

	const uint64_t n = (frames + 63) / 64 * 64;
	uint64_t established = 0;
	std::vector<const uint8_t *> ptrs(pool_size);
	std::vector<uint32_t> lens(64, kFrameLen);
	for (size_t k = 0; k < pool_size; k++)
		ptrs[k] = &pool[k * kFrameLen];
	for (int batch = 0; batch < 2; batch++) {
		std::vector<uint32_t> chunks;
		for (unsigned pass = 0; pass <= passes; pass++) {	/* pass 0 warms up */
			size_t k = 0;
			for (uint64_t done = 0; done < n; done += 64) {
				unsigned ok = 0;
				CtResult res[64];
				if (k + 64 > pool_size)
					k = 0;
				/* one RCU read section per 64 frames, as a NAPI poll */
				const uint64_t t0 = rdtsc_fenced();
				{
					RcuReadGuard rcu;
					if (batch) {
						for (unsigned j = 0; j < 64;)
							j += ct.in_batch(&ptrs[k + j], lens.data(), 64 - j,
									 false, 0, now, true, &res[j]);
					} else {
						for (unsigned j = 0; j < 64; j++)
							ct.in(ptrs[k + j], kFrameLen, false, 0, now, true,
							      res[j]);
					}
					for (unsigned j = 0; j < 64; j++) {
						ok += res[j].state == kCtStateEstablished && res[j].entry;
						ct.release(res[j]);
					}
				}
				const uint64_t t1 = rdtsc_fenced();
				k += 64;
				if (pass)
					chunks.push_back(uint32_t(t1 - t0));
				established += ok;
				failures += 64 - ok;
			}
		}
		std::vector<uint32_t> sorted = chunks;
		std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
		const double median = sorted[sorted.size() / 2];
		double kept = 0;
		uint64_t nkept = 0;
		for (uint32_t c : chunks)
			if (c <= 3 * median) {
				kept += c;
				nkept++;
			}
		CtBenchMeasure &m = batch ? row.batch : row.single;
		m.cycles_per_frame = kept / double(nkept * 64);
		m.cycles_median = median / 64;
		m.mpps = tsc_hz / m.cycles_per_frame / 1e6;
		row.frames_timed += uint64_t(chunks.size()) * 64;
	}
	for (uint32_t i = 0; i < conns; i += std::max<uint32_t>(1, conns / 1024)) {
		CtTuple t = {};
		t.l3 = kCtL3Ipv4;
		t.l4proto = kIpProtoTcp;
		t.src[0] = 10;
		t.src[1] = uint8_t(i >> 16);
		t.src[2] = uint8_t(i >> 8);
		t.src[3] = uint8_t(i);
		t.dst[0] = 172;
		t.dst[1] = 16;
		t.dst[2] = uint8_t(i >> 16);
		t.dst[3] = 1;
		t.sport = uint16_t(1024 + (i & 0x7fff));
		t.dport = 443;
		RcuReadGuard rcu;
		uint8_t dir;
		CtEntry *e = ct.table().lookup(t, now, &dir);
		if (!e || e->tcp_state() != kTcpEstablished || !(e->status_bits() & kCtAssured))
			failures++;
	}
	row.established = established;
	row.failures = failures;
	xb_rcu_barrier();
	ct.fini();
	return true;
}

} // namespace xbench
