// bench_flow.h - the flowtable rows of xnft-bench (bench_flow.cc).
// Userspace benchmark code; no shared state.
#pragma once
#include <stdint.h>

namespace xnft_bench {

struct FlowCase {
	double single = 0;	// TSC cycles per frame, decide()
	double batch = 0;	// decide_batch(), 64 frames
	uint32_t connections = 0;	// conntrack entries after the run
	uint32_t flows = 0;	// offloaded flows (the hit case)
	double hit_ratio = 0;	// timed frames that hit a flow
};

struct FlowRow {
	uint32_t conns = 0;
	FlowCase plain;	// no ruleset, no conntrack
	FlowCase slow;	// the seed's firewall and conntrack, no flowtable
	FlowCase hit;	// the same, offloaded
};

// Establish @conns TCP connections through the seed's bridge and time their
// data segments three ways; false if any frame was not forwarded as
// expected or not every connection was offloaded.
bool run_flow_rows(uint32_t conns, unsigned passes, FlowRow &row);

} // namespace xnft_bench
