// bench_nft.cc - xnft-bench: what the core's rule engine costs per frame,
// in TSC cycles, on rulesets compiled by xnft exactly as nft compiles them.
//
// Rows (Documentation/performance.md, "Rule engine"):
//   empty      a hook with no chain (the cost every frame pays without rules)
//   seed       the seed's firewall (../shared/seeds/bridge-flowtable-thread.txt)
//              for an established zone-2 TCP frame: the prerouting chains
//              (zone map, vmap jump, ct state accept) and the forward chain
//              (ct zone, ip protocol, flow offload); conntrack's own lookup
//              is not in it (the frame carries its result)
//   set1000    `ip daddr @s accept` against a 1,000-element set, random hits
//   dynset1000 `update @m { ip daddr counter } accept`: a set statement
//              finding (and counting in) one of 1,000 elements frames added
//   linearN    N non-matching `tcp dport` rules before an accept: the cost
//              per rule is (linearN - linear0) / N
//
// Each row runs its frames in chunks of 64 and prints the median chunk's
// cycles per frame (TCG and frequency noise stay out of the median). Not a
// test: the figures are printed, nothing is asserted but correctness (every
// frame's verdict is checked once before timing).
#include <net/if.h>
#include <time.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../core/tests/ct_frames.h"
#include "bench_flow.h"
#include "compiler.h"
#include "tests/engine_load.h"
#include "ct_track.h"
#include "diagnostics.h"
#include "nft_eval.h"
#include "nft_ruleset.h"
#include "parser.h"
#include "wire.h"

using namespace xb::nft;

namespace {

constexpr unsigned kChunk = 64;

double tsc_hz()
{
	timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	const uint64_t t0 = __rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 2e8);
	const uint64_t t1 = __rdtsc();
	return double(t1 - t0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
}

bool load(Ruleset &rs, const std::string &text)
{
	const xnft::LoadResult r = xnft::load_text(rs, text);
	if (r.err)
		fprintf(stderr, "xnft-bench: refused: %s%s\n", r.lang_error.c_str(), r.msg.c_str());
	return r.err == 0;
}

struct Frames {
	std::vector<ctf::Bytes> bytes;
	std::vector<Pkt> pkts;
};

IfInfo g_in{1, "lo", 772, 0, "xbr0", nullptr};
IfInfo g_out{2, "swp2", 1, 0, "xbr0", nullptr};

void add_frame(Frames &f, ctf::Bytes b)
{
	f.bytes.push_back(std::move(b));
}

void finish(Frames &f)
{
	f.pkts.resize(f.bytes.size());
	for (size_t i = 0; i < f.bytes.size(); i++) {
		Pkt &p = f.pkts[i];
		p = Pkt{};
		p.frame = f.bytes[i].data();
		p.len = uint32_t(f.bytes[i].size());
		p.in = &g_in;
		p.out = &g_out;
		p.pkttype = 3;
		pkt_init(p);
	}
}

ctf::Bytes tcp_to(uint8_t c, uint8_t d, uint16_t dport)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = dport;
	t.flags = 0x10;
	t.win = 1000;
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, c, d), t));
}

// 4,096 TCP frames to 10.0.k/250.k%250, k random below 1,000: random hits
// in the 1,000 addresses the set rows hold.
void random_hits_1000(Frames &f)
{
	uint32_t seed = 7;
	for (int i = 0; i < 4096; i++) {
		seed = seed * 1103515245 + 12345;
		const int k = int((seed >> 8) % 1000);
		add_frame(f, tcp_to(uint8_t(k / 250), uint8_t(k % 250), 22));
	}
	finish(f);
}

// Runs @hooks over every frame; returns the median chunk's cycles/frame.
// @expect: the verdict every frame must get (checked once, untimed).
double measure(Ruleset &rs, Frames &f, const std::vector<unsigned> &hooks, int32_t expect,
	       unsigned passes, bool &ok)
{
	xb::RcuReadGuard rcu;
	const Generation *g = rs.generation();
	static const Hook kNoHook{0, nullptr};
	auto run = [&](Pkt &p) {
		int32_t v = kNfAccept;
		for (unsigned h : hooks)
			if (v == kNfAccept)
				v = run_hook(g ? g->hooks[h] : kNoHook, p);
		return v;
	};
	for (Pkt &p : f.pkts) {
		Pkt copy = p;
		if (run(copy) != expect)
			ok = false;
	}
	std::vector<double> chunks;
	const size_t n = f.pkts.size();
	for (unsigned pass = 0; pass < passes; pass++)
		for (size_t base = 0; base + kChunk <= n; base += kChunk) {
			const uint64_t t0 = __rdtsc();
			int32_t sink = 0;
			for (unsigned i = 0; i < kChunk; i++)
				sink += run(f.pkts[base + i]);
			const uint64_t t1 = __rdtsc();
			asm volatile("" : : "r"(sink));
			chunks.push_back(double(t1 - t0) / kChunk);
		}
	std::sort(chunks.begin(), chunks.end());
	return chunks.empty() ? 0 : chunks[chunks.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
	unsigned passes = 20;
	uint32_t flow_scale = 60000;
	bool flow_only = false;
	bool rules_only = false;
	bool json = false;
	const char *only = nullptr;	/* one row (or row family) alone */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--passes") && i + 1 < argc)
			passes = unsigned(atoi(argv[++i]));
		else if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--flows") && i + 1 < argc)
			flow_scale = uint32_t(atoi(argv[++i]));
		else if (!strcmp(argv[i], "--flow-only"))
			flow_only = true;
		else if (!strcmp(argv[i], "--rules-only"))
			rules_only = true;	/* the rule rows alone (profiling) */
		else if (!strcmp(argv[i], "--row") && i + 1 < argc) {
			only = argv[++i];	/* e.g. seed, linear: that row alone */
			rules_only = true;
		}
		else {
			fprintf(stderr, "usage: xnft-bench [--passes N] [--flows N] [--flow-only] [--rules-only] [--row NAME] [--json]\n");
			return 2;
		}
	}
	if (if_nametoindex("lo") != 1) {
		fprintf(stderr, "xnft-bench: needs lo as ifindex 1 (the seed's iif maps name it)\n");
		return 1;
	}
	const double hz = tsc_hz();
	bool ok = true;
	if (flow_only) {	/* the flowtable rows alone (profiling) */
		for (uint32_t conns : {1000u, flow_scale}) {
			xnft_bench::FlowRow r;
			ok &= xnft_bench::run_flow_rows(conns, passes, r);
			printf("%u connections: plain %.1f/%.1f slow %.1f/%.1f hit %.1f/%.1f\n", conns,
			       r.plain.single, r.plain.batch, r.slow.single, r.slow.batch, r.hit.single,
			       r.hit.batch);
		}
		return ok ? 0 : 1;
	}
	struct Row {
		std::string name;
		double cycles;
	};
	std::vector<Row> rows;
	auto want = [&](const char *name) { return !only || !strcmp(only, name); };
	auto row = [&](const char *name) {
		for (const Row &r : rows)
			if (r.name == name)
				return r.cycles;
		return -1.0;
	};

	// empty: a hook without chains.
	if (want("empty")) {
		Ruleset rs;
		rs.init(nullptr);
		Frames f;
		for (int i = 0; i < 4096; i++)
			add_frame(f, tcp_to(0, uint8_t(i), 22));
		finish(f);
		rows.push_back({"empty", measure(rs, f, {kHookPrerouting, kHookForward}, kNfAccept,
						   passes, ok)});
		rs.fini();
	}

	// seed: established zone-2 TCP, prerouting and forward.
	if (want("seed")) {
		Ruleset rs;
		rs.init(nullptr);
		ok &= load(rs,
			"add table bridge firewall\n"
			"add chain bridge firewall zones { type filter hook prerouting priority - 300 ; }\n"
			"add rule bridge firewall zones counter ct zone set iif map { \"lo\" : 2 }\n"
			"add chain bridge firewall rule-200-ingress\n"
			"add rule bridge firewall rule-200-ingress ct zone 2 ct state established,related counter accept\n"
			"add rule bridge firewall rule-200-ingress ct zone 2 ct state invalid counter drop\n"
			"add rule bridge firewall rule-200-ingress ct zone 2 tcp dport 23 ct state new counter accept\n"
			"add rule bridge firewall rule-200-ingress counter drop\n"
			"add chain bridge firewall rule-200-egress\n"
			"add rule bridge firewall rule-200-egress ct zone 2 ct state established,related counter accept\n"
			"add chain bridge firewall rules-all { type filter hook prerouting priority - 150 ; }\n"
			"add rule bridge firewall rules-all counter meta protocol ip iif vmap { \"lo\" : jump rule-200-ingress }\n"
			"add flowtable bridge firewall fb2 { hook ingress priority 0 ; devices = { lo } ; }\n"
			"add chain bridge firewall ftb-all {type filter hook forward priority 0 ; policy accept ; }\n"
			"add rule bridge firewall ftb-all counter ct zone 2 ip protocol tcp flow offload @fb2\n");
		xb::Conntrack ct;
		ok &= ct.init(1024, 4096, nullptr) == 0;
		Frames f;
		for (int i = 0; i < 4096; i++)
			add_frame(f, tcp_to(0, uint8_t(i), 22));
		finish(f);
		// One established entry in zone 2 stands for every frame's result.
		ctf::Tcp syn;
		syn.sport = 40000;
		syn.dport = 22;
		syn.flags = 0x02;
		syn.win = 1000;
		ctf::Bytes b = ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 0), syn));
		xb::CtResult r;
		ct.in(b.data(), uint32_t(b.size()), false, 2, 1, true, r);
		ct.confirm(r, 1);
		xb::CtResult est = r;
		est.state = xb::kCtStateEstablished;
		est.unconfirmed = false;
		for (Pkt &p : f.pkts) {
			p.ct = &est;
			p.ct_zone = 2;
		}
		rows.push_back({"seed", measure(rs, f, {kHookPrerouting, kHookForward}, kNfAccept,
						  passes, ok)});
		rs.fini();
		ct.fini();
	}

	// set1000: random hits in a 1,000-element set.
	if (want("set1000")) {
		Ruleset rs;
		rs.init(nullptr);
		std::string text = "table bridge t {\n  set s { type ipv4_addr; elements = { ";
		for (int i = 0; i < 1000; i++)
			text += (i ? ", " : "") + std::string("10.0.") + std::to_string(i / 250) + "." +
				std::to_string(i % 250);
		text += " } }\n  chain forward { type filter hook forward priority 0; policy drop; "
			"ip daddr @s accept; }\n}\n";
		ok &= load(rs, text);
		Frames f;
		random_hits_1000(f);
		rows.push_back({"set1000", measure(rs, f, {kHookForward}, kNfAccept, passes, ok)});
		rs.fini();
	}

	// dynset1000: `update @m { ip daddr counter }` over 1,000 destinations,
	// every element there after the untimed first pass (a set statement
	// finding its element and counting: nft's per-address meter).
	if (want("dynset1000")) {
		Ruleset rs;
		rs.init(nullptr);
		ok &= load(rs, "table bridge t {\n  set m { type ipv4_addr; flags dynamic; }\n"
			       "  chain forward { type filter hook forward priority 0; policy drop; "
			       "update @m { ip daddr counter } accept; }\n}\n");
		Frames f;
		random_hits_1000(f);
		rows.push_back({"dynset1000", measure(rs, f, {kHookForward}, kNfAccept, passes, ok)});
		rs.fini();
	}

	// linearN: N rules that do not match, then the accept.
	double linear0 = 0, linear100 = 0;
	for (unsigned n : {0u, 10u, 100u}) {
		if (!want("linear"))
			break;
		Ruleset rs;
		rs.init(nullptr);
		std::string text = "table bridge t {\n  chain forward { type filter hook forward priority 0; "
				   "policy drop;\n";
		for (unsigned i = 0; i < n; i++)
			text += "    tcp dport " + std::to_string(1000 + i) + " drop\n";
		text += "    tcp dport 22 accept\n  }\n}\n";
		ok &= load(rs, text);
		Frames f;
		for (int i = 0; i < 4096; i++)
			add_frame(f, tcp_to(0, uint8_t(i), 22));
		finish(f);
		const double c = measure(rs, f, {kHookForward}, kNfAccept, passes, ok);
		rows.push_back({"linear" + std::to_string(n), c});
		if (n == 0)
			linear0 = c;
		if (n == 100)
			linear100 = c;
		rs.fini();
	}
	const double per_rule = want("linear") ? (linear100 - linear0) / 100 : 0;

	// concatN: random hits in a concatenated interval set of N elements
	// (`ip daddr . tcp dport`, each an address range . a port range): the
	// core scans such sets (nft_set_pipapo's semantics, not its layout).
	for (unsigned n : {100u, 1000u}) {
		if (!want("concat"))
			break;
		Ruleset rs;
		rs.init(nullptr);
		std::string text = "table bridge t {\n  set s { type ipv4_addr . inet_service; flags interval; "
				   "elements = { ";
		for (unsigned i = 0; i < n; i++) {
			const std::string net = "10.0." + std::to_string(i % 250) + ".";
			const unsigned lo = (i / 250) * 50;
			text += (i ? ", " : "") + net + std::to_string(lo) + "-" + net + std::to_string(lo + 49) +
				" . 22-23";
		}
		text += " } }\n  chain forward { type filter hook forward priority 0; policy drop; "
			"ip daddr . tcp dport @s accept; }\n}\n";
		ok &= load(rs, text);
		Frames f;
		uint32_t seed = 11;
		for (int i = 0; i < 4096; i++) {
			seed = seed * 1103515245 + 12345;
			const unsigned k = (seed >> 8) % n;
			add_frame(f, tcp_to(uint8_t(k % 250), uint8_t((k / 250) * 50 + (seed >> 20) % 50), 22));
		}
		finish(f);
		rows.push_back({"concat" + std::to_string(n), measure(rs, f, {kHookForward}, kNfAccept, passes, ok)});
		rs.fini();
	}

	// Commit: what applying and committing a large batch costs the core
	// (the part of `xnft -f` the kernel does), wall time.
	auto commit_ms = [&](const std::string &text) {
		xnft::Parser parser;
		xnft::Batch batch;
		xnft::Compiler compiler(batch);
		for (auto &cmd : parser.parse_text(text))
			compiler.compile(cmd);
		const auto msgs = xnft::encode_batch(batch);
		Ruleset rs;
		rs.init(nullptr);
		timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (const xnft::WireMsg &m : msgs) {
			xb::Extack ack;
			if (rs.apply(m.type, m.flags, m.family, m.attrs.data(), m.attrs.size(), &ack))
				ok = false;
		}
		xb::Extack ack;
		if (rs.commit(&ack))
			ok = false;
		clock_gettime(CLOCK_MONOTONIC, &b);
		rs.fini();
		return (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	};
	std::string rules = "table bridge t {\n chain c { type filter hook forward priority 0;\n";
	for (int i = 0; i < (rules_only ? 0 : 10000); i++)
		rules += "  ip saddr 10." + std::to_string(i / 250) + "." + std::to_string(i % 250) +
			 ".1 tcp dport " + std::to_string(1000 + i % 5000) + " counter accept\n";
	rules += " }\n}\n";
	std::string set = "table bridge t {\n set s { type ipv4_addr; elements = { ";
	for (int i = 0; i < (rules_only ? 0 : 100000); i++)
		set += (i ? ", " : "") + std::string("10.") + std::to_string(i / 65536) + "." +
		       std::to_string((i / 256) % 256) + "." + std::to_string(i % 256);
	set += " } }\n}\n";
	const double rules_ms = rules_only ? 0 : commit_ms(rules);
	const double set_ms = rules_only ? 0 : commit_ms(set);

	// The flowtable: plain forward, the seed's slow path, the seed offloaded.
	std::vector<xnft_bench::FlowRow> flow_rows;
	for (uint32_t conns : {1000u, flow_scale}) {
		if (rules_only)
			break;
		xnft_bench::FlowRow r;
		if (!xnft_bench::run_flow_rows(conns, passes, r)) {
			fprintf(stderr, "xnft-bench: the flowtable rows at %u connections failed\n", conns);
			ok = false;
		}
		flow_rows.push_back(r);
	}

	if (json) {
		printf("{\"tsc_hz\": %.0f, \"ok\": %s, \"rows\": {", hz, ok ? "true" : "false");
		for (size_t i = 0; i < rows.size(); i++)
			printf("%s\"%s\": %.1f", i ? ", " : "", rows[i].name.c_str(), rows[i].cycles);
		printf("}, \"cycles_per_rule\": %.2f, \"commit_10k_rules_ms\": %.1f, "
		       "\"commit_100k_elements_ms\": %.1f, \"flowtable\": [", per_rule, rules_ms, set_ms);
		for (size_t i = 0; i < flow_rows.size(); i++) {
			const xnft_bench::FlowRow &r = flow_rows[i];
			printf("%s{\"connections\": %u, \"plain\": [%.1f, %.1f], \"slow\": [%.1f, %.1f], "
			       "\"hit\": [%.1f, %.1f], \"hit_ratio\": %.4f}", i ? ", " : "", r.conns,
			       r.plain.single, r.plain.batch, r.slow.single, r.slow.batch, r.hit.single,
			       r.hit.batch, r.hit.hit_ratio);
		}
		printf("]}\n");
	} else {
		printf("xnft-bench: TSC %.2f GHz, %u passes, median of 64-frame chunks\n", hz / 1e9,
		       passes);
		printf("%-10s %10s\n", "row", "cycles/frame");
		for (const Row &r : rows)
			printf("%-10s %10.1f\n", r.name.c_str(), r.cycles);
		if (want("linear"))
			printf("per rule (linear100 - linear0) / 100: %.2f cycles\n", per_rule);
		if (!only)
			printf("seed over empty: %.1f cycles; set1000 over linear0's one rule: %.1f cycles\n",
			       row("seed") - row("empty"), row("set1000") - row("linear0"));
		if (!rules_only) {
			printf("apply + commit in the core: 10,000 rules %.1f ms, 100,000 set elements %.1f ms\n",
			       rules_ms, set_ms);
			printf("\nflowtable: an established TCP segment through the seed's bridge, cycles/frame\n"
			       "(single: decide(); batch: decide_batch() of 64)\n");
			printf("%-12s %14s %14s %14s %10s\n", "connections", "plain fwd", "seed, no ft",
			       "seed + ft hit", "hit/plain");
			for (const xnft_bench::FlowRow &r : flow_rows) {
				printf("%-12u %6.1f / %5.1f %6.1f / %5.1f %6.1f / %5.1f %4.2f/%4.2f\n", r.conns,
				       r.plain.single, r.plain.batch, r.slow.single, r.slow.batch, r.hit.single,
				       r.hit.batch, r.hit.single / r.plain.single, r.hit.batch / r.plain.batch);
			}
		}
	}
	if (!ok)
		fprintf(stderr, "xnft-bench: a frame got a verdict it should not have\n");
	return ok ? 0 : 1;
}
