/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge_nft.h - where a bridge's frames meet the nf_tables ruleset of its
 * namespace (nft_ruleset.h), as the Linux bridge runs its netfilter hooks.
 *
 *   prerouting   nft_bridge_pre()   before VLAN ingress, learning and the
 *                                   FDB (br_handle_frame's NF_BR_PRE_ROUTING),
 *                                   chains below -200, conntrack at -200
 *                                   (in the zone `ct zone set` chose), the
 *                                   chains from -200 up
 *
 * The forward, input, output and postrouting hooks are not run yet: their
 * chains are accepted and listed, but frames do not pass through them.
 *
 * Ownership: the Bridge points at the ruleset, owned by the environment
 * (one per namespace, alive while the namespace's bridges are). Locking:
 * datapath only, inside the caller's RCU read section, which keeps the
 * generation it read alive.
 */
#ifndef XBRIDGE_CORE_BRIDGE_NFT_H
#define XBRIDGE_CORE_BRIDGE_NFT_H

#include <stdint.h>

#include "ct_track.h"
#include "nft_eval.h"

namespace xb {

class Bridge;
struct L2Info;
struct RxFrame;
struct Verdict;

enum class NftOutcome : uint8_t {
	Accept,
	Drop,		/* a chain dropped it */
	CtDrop,		/* conntrack dropped it (table full, lost insert) */
};

/*
 * Datapath, prerouting: run @pre's chains on a frame that entered on a
 * port in the learning or forwarding state, with conntrack between them
 * when @ct is on (@r is then the frame's result, as ct_bridge_pre fills it).
 * Sets @v.ct_state and @v.mark.
 */
NftOutcome nft_bridge_pre(const nft::Hook &pre, const Bridge &br, Conntrack *ct,
			  const RxFrame &f, const L2Info &l2, uint32_t now, CtResult *r,
			  Verdict &v);

} // namespace xb

#endif /* XBRIDGE_CORE_BRIDGE_NFT_H */
