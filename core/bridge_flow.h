/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge_flow.h - where a bridge's frames meet its flowtable (flow_table.h):
 * the seed's bridge flowtable, for VLAN-tagged flows too, torn down when
 * their cached destination goes stale.
 *
 *   adding   flow_offload()  after the forward and postrouting chains passed
 *                            the one copy of a unicast frame and a
 *                            `flow offload @ft` asked for it, if the
 *                            connection qualifies as nft_flow_offload_eval
 *                            decides (TCP established without FIN/RST, UDP;
 *                            confirmed; not offloaded yet; both ports are
 *                            devices of @ft): both directions at once, each
 *                            with the port, tag action and VID the slow path
 *                            gives it, checked against the FDB
 *   hitting  flow_hit()      first thing for a frame from a port: a hit
 *                            forwards it without the FDB lookup, learning,
 *                            the ruleset or conntrack's lookup; it updates
 *                            the connection's counters, the flow's timeout
 *                            and, once a second per direction, the sender's
 *                            FDB entry (so that neither endpoint ages out)
 *
 * Back to the slow path, always correct: a TCP FIN or RST tears the flow
 * down on the frame that carries it (that frame and the rest go through
 * conntrack again, liberal, as nf_flow_table hands a flow back); no hit for
 * kFlowTimeoutMs (the GC); and every change that could make a cached
 * decision stale moves the bridge's flow generation, which each hit checks
 * (one load): an FDB entry a flow pinned roaming, changing or going away
 * (ageing, flush, delete: Fdb's notify), a port going down or away, its
 * state or flags, VLAN membership, PVID, untagged or per-VLAN state, VLAN
 * filtering or protocol, the bridge's address; a ruleset commit moves the
 * generation id flows are checked against too. Turning conntrack off or
 * deleting the bridge frees every flow.
 *
 * The hit path is skipped while the bridge device is promiscuous or per-VLAN
 * statistics are on (the slow path then has work a flow does not cache).
 *
 * Context: datapath, inside the caller's RCU read section, which keeps the
 * flow table, the flows it finds and the ruleset generation alive.
 */
#ifndef XBRIDGE_CORE_BRIDGE_FLOW_H
#define XBRIDGE_CORE_BRIDGE_FLOW_H

#include <stdint.h>

#include "ct_track.h"
#include "flow_table.h"
#include "forward.h"

namespace xb {

/* A frame's flow key and what a hit needs of its headers, worked out
 * ahead of its decision in batches. */
struct FlowProbe {
	bool keyed;		/* the frame can have a flow */
	uint8_t tcp_flags;	/* 0 unless TCP */
	uint32_t l3_len;	/* the IP packet's length (conntrack's bytes) */
	uint32_t bucket;
	FlowKey key;
};

/* Datapath (batches): @fp for @f, with its bucket prefetched; then
 * flow_probe_chain() a step later prefetches the chain's first entry. */
void flow_probe(const FlowTable &flows, const RxFrame &f, const L2Info &l2, FlowProbe &fp);
inline void flow_probe_chain(const FlowTable &flows, const FlowProbe &fp)
{
	if (fp.keyed)
		flows.prefetch_chain(fp.bucket);
}

/*
 * Datapath: the frame's live flow, if it has one. True: @v is the verdict,
 * as the slow path decided for the flow's connection. @nft_gen is the
 * ruleset generation's id (0: none); @ahead the frame's probe, or nullptr.
 */
bool flow_hit(Bridge &br, FlowTable &flows, uint32_t nft_gen, const RxFrame &f, const L2Info &l2,
	      uint32_t now, const FlowProbe *ahead, Verdict &v);

/*
 * Datapath: a `flow offload` for @flowtable (the ruleset's FlowtableObj)
 * on the one forwarded copy of a unicast frame (@v a Forward verdict past
 * its chains), whose conntrack result is @r.
 */
void flow_offload(Bridge &br, FlowTable &flows, uint32_t nft_gen, const void *flowtable,
		  const RxFrame &f, const L2Info &l2, const CtResult &r, const Verdict &v,
		  uint32_t now);

} // namespace xb

#endif /* XBRIDGE_CORE_BRIDGE_FLOW_H */
