/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench_ct.h - the conntrack rows of xbridge-bench (tools/bench_ct.cc).
 * No shared state; each row owns its Conntrack while it runs.
 */
#ifndef XBRIDGE_TOOLS_BENCH_CT_H
#define XBRIDGE_TOOLS_BENCH_CT_H

#include <stddef.h>
#include <stdint.h>

namespace xbench {

struct CtBenchMeasure {
	double cycles_per_frame = 0;	/* trimmed mean over 64-frame chunks */
	double cycles_median = 0;	/* the median chunk, per frame */
	double mpps = 0;
};

struct CtBenchRow {
	uint32_t conns = 0;
	double bytes_per_conn = 0;	/* allocator bytes / connection, table included */
	CtBenchMeasure single;		/* Conntrack::in() per frame */
	CtBenchMeasure batch;		/* Conntrack::in_batch() */
	uint64_t frames_timed = 0;
	uint64_t established = 0;	/* frames tracked ESTABLISHED (all passes) */
	unsigned failures = 0;		/* anything not as expected */
};

/* Set up @conns established TCP connections and time the hit path. */
bool run_ct_row(uint32_t conns, uint64_t frames, unsigned passes, size_t pool_size,
		double tsc_hz, CtBenchRow &row);

} // namespace xbench

#endif /* XBRIDGE_TOOLS_BENCH_CT_H */
