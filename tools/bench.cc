// SPDX-License-Identifier: GPL-2.0
/*
 * bench.cc - the forwarding-decision benchmark (Documentation/performance.md).
 *
 * Reproduces the table of the seed patch ("net: bridge: fdb: avoid VLAN
 * lookups in unicast forwarding") on xbridge's core in userspace: 64-byte
 * 802.1Q frames with randomized FDB hits, VIDs x ports matrix, `lookup`
 * (destination is the port, egress looks the VLAN up: "before") against
 * `tagged` (destination caches the port VLAN: "after"), through decide()
 * one frame at a time and decide_batch() 64 at a time. Plus scale rows
 * (4k/64k/1M FDB entries) with bytes per entry from the allocator.
 *
 * Topology of one case "P/D": the bridge has P member ports plus one
 * ingress port (so P+1 ports), every VID 1..V on every port (tagged),
 * VLAN filtering on. The FDB holds N static destination entries
 * (random VID in 1..V) spread round-robin over the first D member ports,
 * and one static source entry per VID on the ingress port for the single
 * source MAC all frames carry (so learning is a refresh). The ports' own
 * local entries (one per port per VID) are in the FDB as well.
 *
 * Frames are prepared before the timed region in a pool (each a random
 * pick of the N destination entries, tagged with that entry's VID) which
 * the timed loop walks cyclically. Verdicts are collected 64 at a time;
 * only the decide()/decide_batch() calls are inside rdtsc brackets, the
 * verdicts are consumed (a checksum of out-port ifindexes) between them.
 * A verification pass (untimed) compares every frame's verdict with the
 * port its entry was installed on; the timed checksum is compared too.
 * Any mismatch: exit status 1.
 *
 * Single-threaded; owns its bridges.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <string>
#include <vector>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#else
#define BENCH_HAVE_CALLGRIND 0
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

#include "bench_ct.h"
#include "bridge.h"
#include "forward.h"
#include "platform_user.h"

namespace {

using namespace xb;

constexpr unsigned kFrameLen = 64;
constexpr unsigned kChunk = kBatchMax;	/* verdicts collected per timed call */
constexpr MacKey kSrcMac = 0x0000010000aa0002ull;	/* 02:00:aa:00:00:01 */

/* ---------------------------------------------------------------- timing */

inline uint64_t tsc_begin()
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

inline uint64_t tsc_end()
{
	/* lfence+rdtsc rather than rdtscp: valgrind does not emulate rdtscp. */
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

uint64_t mono_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

double calibrate_tsc_hz()
{
	/* Three 100 ms windows; keep the median. */
	double hz[3];
	for (double &h : hz) {
		uint64_t n0 = mono_ns(), t0 = __rdtsc();
		uint64_t n1;
		do
			n1 = mono_ns();
		while (n1 - n0 < 100000000u);
		uint64_t t1 = __rdtsc();
		h = double(t1 - t0) * 1e9 / double(n1 - n0);
	}
	std::sort(hz, hz + 3);
	return hz[1];
}

std::string cpu_model()
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	std::string model = "unknown";
	if (!f)
		return model;
	char line[512];
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "model name", 10)) {
			const char *p = strchr(line, ':');
			if (p) {
				p++;
				while (*p == ' ')
					p++;
				model = p;
				while (!model.empty() && (model.back() == '\n' || model.back() == ' '))
					model.pop_back();
			}
			break;
		}
	}
	fclose(f);
	return model;
}

bool cpu_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return false;
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (char *tok = strtok(strchr(line, ':') + 1, " \n"); tok; tok = strtok(nullptr, " \n"))
			if (!strcmp(tok, flag))
				found = true;
		break;
	}
	fclose(f);
	return found;
}

/* ------------------------------------------------------------- the rig */

uint64_t rng_state = 0x9e3779b97f4a7c15ull;
uint64_t rng()
{
	/* splitmix64: fixed seed, so every run draws the same frames. */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

MacKey dst_mac(uint32_t i)
{
	/* 02:00:00:xx:xx:xx unicast, locally administered; MacKey is the
	 * six bytes in memory order, little-endian. */
	uint8_t b[6] = {0x02, 0x00, uint8_t(i >> 24), uint8_t(i >> 16), uint8_t(i >> 8),
			uint8_t(i)};
	MacKey k = 0;
	memcpy(&k, b, 6);
	return k;
}

struct Rig {
	Bridge *br = nullptr;
	Port *ingress = nullptr;
	std::vector<Port *> members;
	unsigned vids = 0, ports = 0, dests = 0, entries = 0;
	std::vector<uint16_t> entry_vid;	/* per destination entry */
	size_t fdb_bytes = 0;			/* allocator bytes for the N entries */

	/* the frame pool */
	std::vector<uint8_t> data;		/* pool * 64 bytes, 64-aligned */
	uint8_t *frames = nullptr;
	std::vector<RxFrame> rx;
	std::vector<Port *> expect;
	uint64_t expect_sum_pool = 0;		/* sum of expected ifindexes */
	std::vector<uint64_t> expect_prefix;	/* prefix sums for partial laps */

	~Rig()
	{
		if (br)
			Bridge::destroy(br);
	}

	bool build(unsigned v, unsigned p, unsigned d, unsigned n, bool cache_vlan)
	{
		int err = 0;
		vids = v;
		ports = p;
		dests = d;
		entries = n;
		BridgeSetup setup = {0x0000010000bb0002ull, 1000, nullptr, {}, {}, {}};
		br = Bridge::create(setup, &err);
		if (!br) {
			fprintf(stderr, "bench: bridge create failed: %d\n", err);
			return false;
		}
		br->set_fdb_cache_vlan(cache_vlan);
		if (br->set_vlan_filtering(true, nullptr))
			return false;
		for (unsigned i = 0; i <= p; i++) {
			Port *port;
			uint8_t b[6] = {0x02, 0xcc, 0, 0, uint8_t(i >> 8), uint8_t(i)};
			MacKey addr = 0;
			memcpy(&addr, b, 6);
			PortSetup ps = {addr, 1 + i, nullptr};
			if (br->add_port(ps, &port, nullptr)) {
				fprintf(stderr, "bench: add_port failed\n");
				return false;
			}
			if (br->vlan_add(port, 1, uint16_t(v), 0, nullptr)) {
				fprintf(stderr, "bench: vlan_add failed\n");
				return false;
			}
			while (br->fdb().resize_if_needed())
				;
			if (i == 0)
				ingress = port;
			else
				members.push_back(port);
		}
		for (unsigned vid = 1; vid <= v; vid++)
			if (br->fdb_add(kSrcMac, int32_t(vid), ingress, kFdbStatic, FdbAddMode::Replace,
					nullptr)) {
				fprintf(stderr, "bench: fdb_add (source) failed\n");
				return false;
			}
		while (br->fdb().resize_if_needed())
			;
		/*
		 * Freed tables (a port table's old copy, an outgrown bucket
		 * array) go through call_rcu; drain them on both sides of the
		 * count so that a callback run in between is not taken off the
		 * entries' bytes.
		 */
		xb_rcu_barrier();
		size_t before = xb_user_bytes_allocated();
		entry_vid.resize(n);
		for (uint32_t i = 0; i < n; i++) {
			entry_vid[i] = uint16_t(1 + rng() % v);
			if (br->fdb_add(dst_mac(i), entry_vid[i], members[i % d], kFdbStatic,
					FdbAddMode::Replace, nullptr)) {
				fprintf(stderr, "bench: fdb_add failed\n");
				return false;
			}
			/* Grow the table as the kernel's periodic work would, so
			 * that inserting a million entries stays linear. */
			if ((i & 4095) == 4095)
				while (br->fdb().resize_if_needed())
					;
		}
		while (br->fdb().resize_if_needed())
			;
		xb_rcu_barrier();
		fdb_bytes = xb_user_bytes_allocated() - before;
		return true;
	}

	/* Switch mode and rewrite every destination (and source) entry so
	 * that they take the new form. */
	bool set_mode(bool cache_vlan)
	{
		br->set_fdb_cache_vlan(cache_vlan);
		for (unsigned vid = 1; vid <= vids; vid++)
			if (br->fdb_add(kSrcMac, int32_t(vid), ingress, kFdbStatic, FdbAddMode::Replace,
					nullptr))
				return false;
		for (uint32_t i = 0; i < entries; i++)
			if (br->fdb_add(dst_mac(i), entry_vid[i], members[i % dests], kFdbStatic,
					FdbAddMode::Replace, nullptr))
				return false;
		/* Check the forms took. */
		bool ok = true;
		RcuReadGuard rcu;
		for (uint32_t i = 0; i < entries && ok; i += 97) {
			FdbEntry *e = br->fdb().lookup(dst_mac(i), entry_vid[i]);
			ok = e && e->destination().has_vlan() == cache_vlan;
		}
		if (!ok)
			fprintf(stderr, "bench: FDB entries did not take the %s form\n",
				cache_vlan ? "tagged" : "lookup");
		return ok;
	}

	void make_pool(size_t pool)
	{
		data.assign(pool * kFrameLen + 64, 0);
		frames = reinterpret_cast<uint8_t *>((uintptr_t(data.data()) + 63) & ~uintptr_t(63));
		rx.resize(pool);
		expect.resize(pool);
		expect_prefix.resize(pool + 1);
		expect_prefix[0] = 0;
		uint8_t src[6];
		mac_to_bytes(kSrcMac, src);
		for (size_t k = 0; k < pool; k++) {
			uint32_t i = uint32_t(rng() % entries);
			uint16_t vid = entry_vid[i];
			uint8_t *f = frames + k * kFrameLen;
			mac_to_bytes(dst_mac(i), f);
			memcpy(f + 6, src, 6);
			f[12] = 0x81;
			f[13] = 0x00;
			f[14] = uint8_t(vid >> 8);
			f[15] = uint8_t(vid);
			f[16] = 0x08;	/* IPv4 */
			f[17] = 0x00;
			for (unsigned b = 18; b < kFrameLen; b++)
				f[b] = uint8_t(k + b);
			rx[k] = RxFrame{f, kFrameLen, {}, ingress};
			expect[k] = members[i % dests];
			expect_prefix[k + 1] = expect_prefix[k] + expect[k]->ifindex;
		}
		expect_sum_pool = expect_prefix[pool];
	}

	/* Untimed: every frame of the pool through both entry points. */
	unsigned verify()
	{
		unsigned bad = 0;
		const size_t pool = rx.size();
		Verdict v[kChunk];
		RcuReadGuard rcu;
		uint32_t now = Bridge::now_ticks();
		for (size_t k = 0; k < pool; k++) {
			decide(*br, rx[k], now, v[0]);
			if (v[0].kind != VerdictKind::Forward || v[0].out.port != expect[k] ||
			    v[0].out.tag != TagAction::Tag)
				bad++;
		}
		for (size_t k = 0; k + kChunk <= pool; k += kChunk) {
			decide_batch(*br, &rx[k], kChunk, now, v);
			for (unsigned j = 0; j < kChunk; j++)
				if (v[j].kind != VerdictKind::Forward || v[j].out.port != expect[k + j] ||
				    v[j].out.tag != TagAction::Tag)
					bad++;
		}
		return bad;
	}

	/* Expected checksum of @n frames walked cyclically from 0. */
	uint64_t expected_sum(uint64_t n) const
	{
		const size_t pool = rx.size();
		return (n / pool) * expect_sum_pool + expect_prefix[n % pool];
	}
};

/* One timed pass: @n frames (a multiple of kChunk). Records the TSC
 * cycles spent inside decide()/decide_batch() for every chunk of 64
 * frames in @chunks and adds the verdicts to @sum. */
template <bool kBatch>
void run_pass(Rig &rig, uint64_t n, uint64_t &sum, std::vector<uint32_t> *chunks)
{
	Bridge &br = *rig.br;
	const RxFrame *rx = rig.rx.data();
	const size_t pool = rig.rx.size();	/* a multiple of kChunk */
	Verdict v[kChunk];
	size_t k = 0;
	RcuReadGuard rcu;
	const uint32_t now = Bridge::now_ticks();

	for (uint64_t done = 0; done < n; done += kChunk) {
		uint64_t t0 = tsc_begin();
		if (kBatch) {
			decide_batch(br, rx + k, kChunk, now, v);
		} else {
			for (unsigned j = 0; j < kChunk; j++)
				decide(br, rx[k + j], now, v[j]);
		}
		uint64_t t1 = tsc_end();
		if (chunks)
			chunks->push_back(uint32_t(std::min<uint64_t>(t1 - t0, UINT32_MAX)));
		for (unsigned j = 0; j < kChunk; j++)
			sum += v[j].out.port ? v[j].out.port->ifindex : 0;
		k += kChunk;
		if (k == pool)
			k = 0;
	}
}

/* ------------------------------------------------------------ results */

struct Measure {
	double cycles = 0;	/* per frame: trimmed mean over every chunk of every pass */
	double cycles_mean = 0;	/* per frame: plain mean, outliers included */
	double cycles_median = 0;	/* per frame: the median chunk */
	double mpps = 0;	/* from `cycles` and the TSC frequency */
	double trimmed = 0;	/* fraction of chunks dropped as outliers */
};

struct Row {
	std::string group;	/* "matrix" or "scale" */
	unsigned vids, ports, dests, entries;
	uint32_t fdb_count;
	double bytes_per_entry;
	Measure m[2][2];	/* [batch][tagged] */
};

struct Options {
	uint64_t frames = 1u << 20;
	unsigned passes = 3;
	size_t pool = 1u << 16;
	bool json = false;
	bool matrix = true;
	bool scale = true;
	bool callgrind = false;
	bool callgrind_child = false;
	std::vector<unsigned> vids = {64, 1024};
	std::vector<std::pair<unsigned, unsigned>> ports = {
		{8, 2}, {8, 4}, {8, 8}, {32, 2}, {32, 16}, {32, 32}, {64, 2}, {64, 32}, {64, 64}};
	std::vector<unsigned> scale_sizes = {4096, 65536, 1u << 20};
	std::vector<unsigned> ct_sizes;	/* --ct: conntrack rows (bench_ct.cc) */
	unsigned entries = 4096;
};

double tsc_hz;
unsigned failures;
std::vector<xbench::CtBenchRow> ct_rows;

/*
 * This machine is shared (2 vCPUs, other jobs building and fuzzing), so a
 * plain mean over a pass mixes in preemptions, interrupts and the other
 * vCPU's cache traffic. Every 64-frame chunk is timed on its own; chunks
 * costing more than 3x the median chunk (a preemption or interrupt landed
 * in them) are dropped and the rest averaged. The plain mean and the
 * median are reported too (JSON).
 */
Measure measure(Rig &rig, bool batch, const Options &o)
{
	uint64_t n = (o.frames + kChunk - 1) / kChunk * kChunk;
	{
		/* Warm-up lap over the pool, not recorded. */
		uint64_t s = 0;
		uint64_t warm = std::min<uint64_t>(rig.rx.size(), n);
		if (batch)
			run_pass<true>(rig, warm, s, nullptr);
		else
			run_pass<false>(rig, warm, s, nullptr);
	}
	std::vector<uint32_t> chunks;
	chunks.reserve(n / kChunk * o.passes);
	for (unsigned p = 0; p < o.passes; p++) {
		uint64_t sum = 0;
		if (batch)
			run_pass<true>(rig, n, sum, &chunks);
		else
			run_pass<false>(rig, n, sum, &chunks);
		if (sum != rig.expected_sum(n)) {
			fprintf(stderr, "bench: checksum mismatch in a timed pass (%llu != %llu)\n",
				(unsigned long long)sum, (unsigned long long)rig.expected_sum(n));
			failures++;
		}
	}
	std::vector<uint32_t> sorted = chunks;
	std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
	const double median = sorted[sorted.size() / 2];
	double all = 0, kept = 0;
	uint64_t nkept = 0;
	for (uint32_t c : chunks) {
		all += c;
		if (c <= 3 * median) {
			kept += c;
			nkept++;
		}
	}
	Measure m;
	m.cycles = kept / double(nkept * kChunk);
	m.cycles_mean = all / double(chunks.size() * kChunk);
	m.cycles_median = median / kChunk;
	m.trimmed = 1.0 - double(nkept) / double(chunks.size());
	m.mpps = tsc_hz / m.cycles / 1e6;
	return m;
}

bool run_case(Row &row, const Options &o, size_t pool)
{
	Rig rig;
	if (!rig.build(row.vids, row.ports, row.dests, row.entries, true))
		return false;
	row.fdb_count = rig.br->fdb().count();
	row.bytes_per_entry = double(rig.fdb_bytes) / double(row.entries);
	rig.make_pool(pool);
	for (int tagged = 0; tagged < 2; tagged++) {
		if (!rig.set_mode(tagged))
			return false;
		unsigned bad = rig.verify();
		if (bad) {
			fprintf(stderr, "bench: %u verdicts went to the wrong port (%s, %u VIDs, %u/%u)\n",
				bad, tagged ? "tagged" : "lookup", row.vids, row.ports, row.dests);
			failures++;
		}
		for (int batch = 0; batch < 2; batch++)
			row.m[batch][tagged] = measure(rig, batch, o);
	}
	return true;
}

size_t pool_for(const Options &o, unsigned entries)
{
	uint64_t n = (o.frames + kChunk - 1) / kChunk * kChunk;
	/* Enough distinct frames that every entry can be hit: at least the
	 * table size for the scale rows, never more frames than a pass. */
	uint64_t p = std::max<uint64_t>(o.pool, entries);
	p = std::min<uint64_t>(p, n);
	p = (p + kChunk - 1) / kChunk * kChunk;
	return size_t(p);
}

void print_table(const std::vector<Row> &rows, const char *group, int batch, const Options &o)
{
	printf("\n%s, %s: 64-byte 802.1Q frames, randomized hits, %llu frames x %u passes "
	       "(trimmed mean)\n",
	       batch ? "decide_batch (64 frames per call)" : "decide (one frame per call)",
	       group, (unsigned long long)o.frames, o.passes);
	printf("   FDB  VIDs  Ports       Mpps                 Gbps             TSC cycles/frame\n");
	printf("                     lookup   tagged   gain  lookup  tagged   lookup  tagged  reduction\n");
	for (const Row &r : rows) {
		if (r.group != group)
			continue;
		const Measure &b = r.m[batch][0], &a = r.m[batch][1];
		char ports[16];
		snprintf(ports, sizeof(ports), "%u/%u", r.ports, r.dests);
		char fdb[16];
		if (r.entries >= (1u << 20))
			snprintf(fdb, sizeof(fdb), "%uM", r.entries >> 20);
		else
			snprintf(fdb, sizeof(fdb), "%uk", r.entries >> 10);
		printf("%6s %5u %6s %8.3f %8.3f %5.1f%% %7.3f %7.3f %8.1f %7.1f %8.1f%%\n", fdb, r.vids,
		       ports, b.mpps, a.mpps, (a.mpps / b.mpps - 1) * 100, b.mpps * 0.512,
		       a.mpps * 0.512, b.cycles, a.cycles, (1 - a.cycles / b.cycles) * 100);
	}
}

void print_json(const std::vector<Row> &rows, const Options &o, const char *tsc_source)
{
	printf("{\n  \"machine\": {\"cpu_model\": \"%s\", \"cpus\": %ld, \"tsc_hz\": %.0f, "
	       "\"tsc_source\": \"%s\", \"constant_tsc\": %s, \"nonstop_tsc\": %s},\n",
	       cpu_model().c_str(), sysconf(_SC_NPROCESSORS_ONLN), tsc_hz, tsc_source,
	       cpu_flag("constant_tsc") ? "true" : "false",
	       cpu_flag("nonstop_tsc") ? "true" : "false");
	printf("  \"config\": {\"frame_len\": %u, \"frames_per_pass\": %llu, \"passes\": %u, "
	       "\"pool\": %zu, \"entries\": %u, \"statistic\": \"per-frame mean over 64-frame "
	       "chunks, chunks above 3x the median chunk dropped\"},\n",
	       kFrameLen, (unsigned long long)o.frames, o.passes, o.pool, o.entries);
	printf("  \"verified\": %s,\n  \"failures\": %u,\n  \"rows\": [", failures ? "false" : "true",
	       failures);
	bool first = true;
	for (const Row &r : rows) {
		printf("%s\n    {\"group\": \"%s\", \"vids\": %u, \"ports\": %u, \"dest_ports\": %u, "
		       "\"entries\": %u, \"fdb_count\": %u, \"bytes_per_entry\": %.1f",
		       first ? "" : ",", r.group.c_str(), r.vids, r.ports, r.dests, r.entries,
		       r.fdb_count, r.bytes_per_entry);
		first = false;
		for (int batch = 0; batch < 2; batch++)
			for (int tagged = 0; tagged < 2; tagged++) {
				const Measure &m = r.m[batch][tagged];
				printf(",\n     \"%s_%s\": {\"cycles_per_frame\": %.2f, \"cycles_mean\": %.2f, "
				       "\"cycles_median_chunk\": %.2f, \"chunks_dropped\": %.4f, "
				       "\"mpps\": %.3f}",
				       batch ? "batch" : "single", tagged ? "tagged" : "lookup", m.cycles,
				       m.cycles_mean, m.cycles_median, m.trimmed, m.mpps);
			}
		for (int batch = 0; batch < 2; batch++)
			printf(",\n     \"%s_tagged_over_lookup\": %.3f", batch ? "batch" : "single",
			       r.m[batch][1].cycles / r.m[batch][0].cycles);
		printf("}");
	}
	printf("\n  ],\n  \"ct_rows\": [");
	first = true;
	for (const xbench::CtBenchRow &c : ct_rows) {
		printf("%s\n    {\"connections\": %u, \"bytes_per_connection\": %.2f, "
		       "\"frames_timed\": %llu, \"failures\": %u",
		       first ? "" : ",", c.conns, c.bytes_per_conn,
		       (unsigned long long)c.frames_timed, c.failures);
		for (int batch = 0; batch < 2; batch++) {
			const xbench::CtBenchMeasure &m = batch ? c.batch : c.single;
			printf(", \"%s\": {\"cycles_per_frame\": %.2f, \"cycles_median_chunk\": %.2f, "
			       "\"mpps\": %.3f}",
			       batch ? "batch" : "single", m.cycles_per_frame, m.cycles_median, m.mpps);
		}
		printf("}");
		first = false;
	}
	printf("\n  ]\n}\n");
}

/* ------------------------------------------------------------ callgrind */

constexpr uint64_t kCgFrames = 1u << 16;

/* Under callgrind: each of the four cases is collected on its own and
 * dumped with its name. The parent reads the dumps. */
int callgrind_child(unsigned entries)
{
	Rig rig;
	if (!rig.build(64, 8, 8, entries, true))
		return 1;
	rig.make_pool(4096);
	static const char *names[2][2] = {{"single-lookup", "single-tagged"},
					  {"batch-lookup", "batch-tagged"}};
	for (int tagged = 0; tagged < 2; tagged++) {
		if (!rig.set_mode(tagged) || rig.verify())
			return 1;
		for (int batch = 0; batch < 2; batch++) {
			uint64_t sum = 0;
			/* warm: learning refresh writes, first touches */
			batch ? run_pass<true>(rig, 4096, sum, nullptr) : run_pass<false>(rig, 4096, sum, nullptr);
			sum = 0;
			CALLGRIND_ZERO_STATS;
			CALLGRIND_TOGGLE_COLLECT;
			batch ? run_pass<true>(rig, kCgFrames, sum, nullptr)
			      : run_pass<false>(rig, kCgFrames, sum, nullptr);
			CALLGRIND_TOGGLE_COLLECT;
			CALLGRIND_DUMP_STATS_AT(names[batch][tagged]);
			if (sum != rig.expected_sum(kCgFrames))
				return 1;
		}
	}
	return 0;
}

uint64_t dump_ir(const std::string &path)
{
	FILE *f = fopen(path.c_str(), "r");
	if (!f)
		return 0;
	char line[1024];
	uint64_t ir = 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7))
			ir = strtoull(strchr(line, ':') + 1, nullptr, 10);
	fclose(f);
	return ir;
}

int callgrind_parent(const char *self, const Options &o)
{
	if (!BENCH_HAVE_CALLGRIND) {
		fprintf(stderr, "bench: built without <valgrind/callgrind.h>\n");
		return 2;
	}
	char dir[] = "/tmp/xbridge-bench-cg.XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	std::string out = std::string(dir) + "/callgrind.out";
	std::string entries = std::to_string(o.entries);
	pid_t pid = fork();
	if (pid == 0) {
		std::string outarg = "--callgrind-out-file=" + out;
		execlp("valgrind", "valgrind", "-q", "--tool=callgrind", "--collect-atstart=no",
		       "--dump-instr=yes", outarg.c_str(), self, "--callgrind-child", "--entries",
		       entries.c_str(), (char *)nullptr);
		perror("exec valgrind");
		_exit(127);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench: callgrind run failed (status %d)\n", status);
		return 1;
	}
	/* Dumps are numbered in order: single-lookup, batch-lookup,
	 * single-tagged, batch-tagged (then a final empty one). */
	static const char *names[4] = {"single-lookup", "batch-lookup", "single-tagged",
				       "batch-tagged"};
	double ipf[4];
	if (!o.json)
		printf("callgrind: instructions per frame, %s FDB entries, 64 VIDs, 8/8 ports, "
		       "%llu frames per case\n",
		       entries.c_str(), (unsigned long long)kCgFrames);
	for (int i = 0; i < 4; i++) {
		std::string path = out + "." + std::to_string(i + 1);
		uint64_t ir = dump_ir(path);
		ipf[i] = double(ir) / double(kCgFrames);
		if (!o.json)
			printf("  %-14s %8.1f  (%s)\n", names[i], ipf[i], path.c_str());
	}
	if (o.json) {
		printf("{\"callgrind\": {\"entries\": %s, \"frames\": %llu", entries.c_str(),
		       (unsigned long long)kCgFrames);
		for (int i = 0; i < 4; i++)
			printf(", \"%s\": %.1f", names[i], ipf[i]);
		printf(", \"dir\": \"%s\"}}\n", dir);
	} else {
		printf("  tagged/lookup: single %.3f, batch %.3f\n", ipf[2] / ipf[0], ipf[3] / ipf[1]);
		printf("  annotate: callgrind_annotate --inclusive=yes %s.<n>\n", out.c_str());
	}
	return 0;
}

/* --------------------------------------------------------------- main */

void usage()
{
	fprintf(stderr,
		"usage: xbridge-bench [options]\n"
		"  --frames N        frames per timed pass (default 1048576)\n"
		"  --passes N        timed passes per case (default 3; median reported)\n"
		"  --seed-passes     the seed's 5M frames x 5 passes\n"
		"  --pool N          distinct prepared frames walked cyclically (default 65536)\n"
		"  --vids A,B        VID counts (default 64,1024)\n"
		"  --ports P/D,...   P member ports, D of them FDB destinations\n"
		"  --entries N       FDB destination entries in the matrix (default 4096)\n"
		"  --scale A,B,...   FDB sizes for the scale rows (default 4096,65536,1048576)\n"
		"  --no-matrix | --no-scale\n"
		"  --ct A,B,...      conntrack rows: established TCP hit path at A, B, ...\n"
		"                    connections (e.g. 1000,100000,1000000; default none)\n"
		"  --json            JSON instead of the text tables\n"
		"  --callgrind       run the 4k/64/8 case under valgrind --tool=callgrind\n"
		"                    and print instructions per frame\n");
}

std::vector<unsigned> parse_list(const char *s)
{
	std::vector<unsigned> v;
	for (const char *p = s; *p;) {
		char *end;
		v.push_back(unsigned(strtoul(p, &end, 0)));
		p = *end ? end + 1 : end;
	}
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	/* FDB entries packed as the kernel's kmalloc-64 slab packs them. */
	xb_user_use_slab(1);
	Options o;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto next = [&]() -> const char * {
			if (i + 1 >= argc) {
				usage();
				exit(2);
			}
			return argv[++i];
		};
		if (a == "--frames")
			o.frames = strtoull(next(), nullptr, 0);
		else if (a == "--passes")
			o.passes = unsigned(strtoul(next(), nullptr, 0));
		else if (a == "--seed-passes") {
			o.frames = 5000000;
			o.passes = 5;
		} else if (a == "--pool")
			o.pool = strtoull(next(), nullptr, 0);
		else if (a == "--vids")
			o.vids = parse_list(next());
		else if (a == "--ports") {
			o.ports.clear();
			std::vector<unsigned> v = parse_list(next());
			for (size_t k = 0; k + 1 < v.size(); k += 2)
				o.ports.push_back({v[k], v[k + 1]});
		} else if (a == "--entries")
			o.entries = unsigned(strtoul(next(), nullptr, 0));
		else if (a == "--scale")
			o.scale_sizes = parse_list(next());
		else if (a == "--no-matrix")
			o.matrix = false;
		else if (a == "--no-scale")
			o.scale = false;
		else if (a == "--ct")
			o.ct_sizes = parse_list(next());
		else if (a == "--json")
			o.json = true;
		else if (a == "--callgrind")
			o.callgrind = true;
		else if (a == "--callgrind-child")
			o.callgrind_child = true;
		else {
			usage();
			return 2;
		}
	}
	if (!o.passes || !o.frames || !o.pool || !o.entries) {
		usage();
		return 2;
	}
	for (auto &pd : o.ports)
		if (!pd.first || !pd.second || pd.second > pd.first || pd.first > 1000) {
			fprintf(stderr, "bench: bad ports %u/%u\n", pd.first, pd.second);
			return 2;
		}
	xb_user_log_to_stderr(0);

	if (o.callgrind_child)
		return callgrind_child(o.entries);
	if (o.callgrind)
		return callgrind_parent(argv[0], o);

	tsc_hz = calibrate_tsc_hz();
	const char *tsc_source = "rdtsc calibrated against CLOCK_MONOTONIC, median of 3 x 100 ms";
	if (!o.json)
		printf("xbridge-bench: %s, TSC %.3f MHz (%s)\n", cpu_model().c_str(), tsc_hz / 1e6,
		       tsc_source);

	std::vector<Row> rows;
	if (o.matrix)
		for (unsigned v : o.vids)
			for (auto &pd : o.ports) {
				Row r{"matrix", v, pd.first, pd.second, o.entries, 0, 0, {}};
				if (!run_case(r, o, pool_for(o, 0)))
					return 1;
				rows.push_back(r);
			}
	if (o.scale)
		for (unsigned n : o.scale_sizes) {
			Row r{"scale", 64, 8, 8, n, 0, 0, {}};
			if (!run_case(r, o, pool_for(o, n)))
				return 1;
			rows.push_back(r);
		}
	for (unsigned n : o.ct_sizes) {
		xbench::CtBenchRow c;
		if (!n || !xbench::run_ct_row(n, o.frames, o.passes, o.pool, tsc_hz, c))
			return 1;
		failures += c.failures;
		ct_rows.push_back(c);
	}

	if (o.json) {
		print_json(rows, o, tsc_source);
	} else {
		for (int batch = 1; batch >= 0; batch--) {
			if (o.matrix)
				print_table(rows, "matrix", batch, o);
			if (o.scale)
				print_table(rows, "scale", batch, o);
		}
		if (o.scale) {
			printf("\nFDB memory (allocator bytes per destination entry, table included):\n");
			for (const Row &r : rows)
				if (r.group == "scale")
					printf("  %8u entries: %.1f bytes/entry (%u entries in the FDB)\n",
					       r.entries, r.bytes_per_entry, r.fdb_count);
		}
		if (!ct_rows.empty()) {
			printf("\nconntrack, established TCP hit path (parse, lookup, window and state "
			       "update, counters), cycles per frame:\n");
			printf("  %10s %10s %10s %10s %10s %12s\n", "conns", "single", "batch",
			       "Mpps(s)", "Mpps(b)", "bytes/conn");
			for (const xbench::CtBenchRow &c : ct_rows)
				printf("  %10u %10.1f %10.1f %10.2f %10.2f %12.2f%s\n", c.conns,
				       c.single.cycles_per_frame, c.batch.cycles_per_frame, c.single.mpps,
				       c.batch.mpps, c.bytes_per_conn, c.failures ? "  FAILED" : "");
		}
		printf("\n%s\n", failures ? "VERIFICATION FAILED" : "verified: every frame reached its FDB port");
	}
	return failures ? 1 : 0;
}
