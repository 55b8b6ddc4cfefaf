/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge_nft.h - where a bridge's frames meet the nf_tables ruleset of its
 * namespace (nft_ruleset.h), as the Linux bridge runs its netfilter hooks.
 *
 *   prerouting   nft_bridge_pre()     before VLAN ingress, learning and the
 *                                     FDB (br_handle_frame's NF_BR_PRE_ROUTING),
 *                                     chains below -200, conntrack at -200
 *                                     (in the zone `ct zone set` chose), the
 *                                     chains from -200 up
 *   forward      nft_bridge_egress()  per copy that leaves through a port,
 *   (output)                          after the egress VLAN tagging
 *   postrouting                       (__br_forward's NF_BR_FORWARD, or
 *                                     NF_BR_LOCAL_OUT for a frame the bridge
 *                                     device sends; then br_forward_finish's
 *                                     NF_BR_POST_ROUTING)
 *   input        nft_bridge_input()   for the copy that goes up the bridge
 *                                     device (br_pass_frame_up's NF_BR_LOCAL_IN)
 *
 * Each hook sees the frame as Linux's does there: the devices (in: the
 * ingress port at prerouting, forward and input, none at output and
 * postrouting; out: the egress port at forward, output and postrouting),
 * the VLAN tag as the bridge has left it at that point, and the mark,
 * bytes and conntrack result prerouting left. A chain's changes to the
 * mark or the bytes at a later hook belong to that copy only.
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
#include "forward.h"
#include "nft_eval.h"
#include "nft_payload_write.h"

namespace xb {

enum class NftOutcome : uint8_t {
	Accept,
	Drop,		/* a chain dropped it */
	CtDrop,		/* conntrack dropped it (table full, lost insert) */
};

/* The generation's chains at each bridge hook, read once per frame (or
 * batch): nullptr where a hook has none. */
struct NftHooks {
	const nft::Hook *pre;
	const nft::Hook *input;
	const nft::Hook *forward;
	const nft::Hook *output;
	const nft::Hook *post;
	uint32_t gen_id;	/* the generation's id; 0: no ruleset */
	bool any;
};

/* Datapath: the hooks of the bridge's current generation. */
NftHooks nft_hooks(const Bridge &br);

/*
 * The frame as nf_tables sees it, built once for a frame that meets a
 * chain. Prerouting runs on @pkt itself; the later hooks each run on a
 * copy of what prerouting left.
 */
struct NftFrame {
	nft::Pkt pkt;
	nft::IfInfo in_if;	/* the ingress port (unused for host frames) */
	const char *bridge_name;
	bool from_host;		/* sent by the bridge device */
	bool rx_tag_is_bridge_tag;	/* the in-band outer tag is the bridge's */
	/* The later hooks' payload statements (RxFrame::writable and
	 * ::copy_writes): each copy's chains write the bytes, and what
	 * they wrote is recorded for that copy. */
	uint8_t *writable;
	nft::CopyWrites *copy_writes;
};

/* Build @nf for a frame entering the bridge (through a port or from the
 * bridge device). */
void nft_frame_init(NftFrame &nf, const Bridge &br, const RxFrame &f, const L2Info &l2);

/*
 * Datapath, prerouting: run @pre's chains on a frame that entered on a
 * port in the learning or forwarding state, with conntrack between them
 * when @ct is on (@r is then the frame's result, as ct_bridge_pre fills it).
 * Sets @v.ct_state, @v.mark and @v.priority; @nf keeps the frame's mark,
 * priority and @r.
 */
NftOutcome nft_bridge_pre(const nft::Hook &pre, NftFrame &nf, Conntrack *ct, const RxFrame &f,
			  uint32_t now, CtResult *r, Verdict &v);

/* The skb fields a chain writes (meta mark set, meta priority set), as
 * one copy leaves the chains. */
struct SkbMeta {
	uint32_t mark;
	uint32_t priority;
};

/*
 * Datapath, the copy that leaves through @out with @tag: the forward (or,
 * for a frame the bridge device sends, output) chains, then postrouting.
 * True if none dropped it; @meta is the copy's mark and priority as they
 * left them and *@offload (if @offload) the flowtable a `flow offload`
 * asked for, or nullptr.
 */
bool nft_bridge_egress(const NftHooks &h, const NftFrame &nf, const Verdict &v, const Port *out,
		       TagAction tag, SkbMeta &meta, const void **offload = nullptr);

/* Datapath, the copy that goes up the bridge device: the input chains.
 * True if none dropped it; @meta as for nft_bridge_egress(). */
bool nft_bridge_input(const NftHooks &h, const NftFrame &nf, const Verdict &v, SkbMeta &meta);

} // namespace xb

#endif /* XBRIDGE_CORE_BRIDGE_NFT_H */
