/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge_ct.h - a bridge's connection tracking: where the frame path calls
 * the conntrack engine (ct_track.h) when the bridge's `conntrack` option
 * is on, as nf_conntrack_bridge hooks the Linux bridge.
 *
 *   prerouting, priority -200  ct_bridge_pre()   (nf_ct_bridge_pre)
 *   sent by the host's stack   ct_bridge_local_out() (the IP layer's
 *                              LOCAL_OUT tracking and POSTROUTING confirm)
 *   postrouting / local input  ct_bridge_post()  (nf_ct_bridge_post,
 *                              nf_ct_bridge_in, and the IP stack's confirm
 *                              for a frame that goes up as PACKET_HOST)
 *
 * Ownership. The Bridge owns its Conntrack (and so the table) while the
 * option is on: Bridge::set_conntrack() creates it and publishes it with
 * rcu_publish; turning it off (or destroying the bridge) unpublishes it,
 * waits for a grace period and frees every entry. A frame's CtResult lives
 * on the stack of decide() and never outlives it: ct_bridge_post() always
 * confirms or releases it, so after the grace period no frame holds an
 * unconfirmed entry.
 *
 * Locking. Both hooks are datapath calls: inside the caller's RCU read
 * section, which also keeps the Conntrack it read with conntrack_rcu()
 * alive. The table takes its own lock (ct_table.h).
 */
#ifndef XBRIDGE_CORE_BRIDGE_CT_H
#define XBRIDGE_CORE_BRIDGE_CT_H

#include <stdint.h>

#include "ct_track.h"

namespace xb {

class Bridge;
struct L2Info;
struct RxFrame;
struct Verdict;

/*
 * The table a bridge's `conntrack on` creates: Linux's defaults for a
 * machine of about 1 GiB (nf_conntrack_htable_size 16384, nf_conntrack_max
 * 65536), and the GC budget of one slice (buckets per call of the
 * environment's deferred GC, every kBridgeCtGcIntervalMs).
 */
constexpr uint32_t kBridgeCtBuckets = 16384;
constexpr uint32_t kBridgeCtMax = CtTable::kDefaultMax;
constexpr uint32_t kBridgeCtGcBuckets = 1024;
constexpr uint32_t kBridgeCtGcIntervalMs = 100;

/*
 * Datapath, prerouting: track a frame that entered on a port in the
 * learning or forwarding state, in @zone (0, or what `ct zone set` chose
 * in a chain below -200). Sets
 * @v.ct_state. False when conntrack drops the frame (table full).
 */
bool ct_bridge_pre(Conntrack &ct, const RxFrame &f, uint32_t now, uint16_t zone, CtResult &r,
		   Verdict &v);

/*
 * Datapath, a frame the bridge device's IP stack sends (RxFrame::host_stack):
 * tracked in zone 0 without checksum verification and confirmed at once,
 * as the IP layer's conntrack does at LOCAL_OUT and POSTROUTING before the
 * frame reaches the bridge (nf_ct_netns_get for the bridge family switches
 * those on too). A chain that drops the frame later leaves the entry, as
 * on Linux. Sets @v.ct_state; false when conntrack drops the frame.
 */
bool ct_bridge_local_out(Conntrack &ct, const RxFrame &f, uint32_t now, CtResult &r, Verdict &v);

/*
 * Datapath, after the decision and the ruleset's later hooks: confirm the
 * frame's new connection where Linux does - some copy leaves through a
 * port (@out_any: past the postrouting chains, where nf_ct_bridge_post
 * confirms), or a copy goes up the bridge device as PACKET_HOST (to the
 * bridge's or the ingress port's address, bridge not promiscuous) - and
 * release it otherwise (dropped, or only delivered up as broadcast,
 * multicast or promiscuous copy). A confirm that loses the insert race
 * turns the verdict into a Conntrack drop, counted on the ingress port.
 */
void ct_bridge_post(Conntrack &ct, const RxFrame &f, const L2Info &l2, bool promisc, bool out_any,
		    uint32_t now, CtResult &r, Verdict &v);

} // namespace xb

#endif /* XBRIDGE_CORE_BRIDGE_CT_H */
