/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_eval.h - running a generation's chains on one frame.
 *
 * A generation (nft_ruleset.h) holds, per bridge hook, its base chains in
 * priority order; each Chain is an array of rules, each rule an array of
 * Insns (nft_expr.h). run_hook() is nf_hook_slow over those chains, each
 * run as nft_do_chain: the register file, the jump stack (16 deep),
 * break/continue/return/jump/goto, the base chain's policy; one loop for
 * the whole hook. run_chain() is one base chain alone.
 *
 * Context: datapath. The caller holds the RCU read section in which it
 * read the generation pointer, for as long as it runs it. Nothing here
 * allocates or sleeps; counters are per CPU, a limit takes its own lock.
 *
 * Pkt is the frame as nf_tables sees it at a bridge hook: the outer VLAN
 * tag out of band (skb->vlan_tci) as the kernel keeps it, the network
 * header after it, the devices and the bridge's properties the meta keys
 * read, and the frame's conntrack result.
 */
#ifndef XBRIDGE_CORE_NFT_EVAL_H
#define XBRIDGE_CORE_NFT_EVAL_H

#include <stdint.h>

#include "ct_track.h"
#include "nft_expr.h"

namespace xb::nft {

struct RuleCode {
	const Insn *insn;
	uint32_t count;
};

/*
 * A chain as the evaluator runs it: @code is its rules' Insns one rule
 * after the other, each Insn knowing how far the next rule starts
 * (Insn::to_next_rule), then an Op::ChainEnd. @rules and @count describe
 * the same rules one by one.
 */
struct Chain {
	const Insn *code;
	const RuleCode *rules;
	uint32_t count;
	int32_t policy;		/* base chains: kNfAccept or kNfDrop */
	/* Some rule of the generation may read a register before writing
	 * it: the register file starts zeroed, as nft_do_chain's does. */
	bool zero_regs;
};

struct HookChain {
	int32_t priority;
	const Chain *chain;
	uint64_t seq;		/* registration order (the build's tie-break) */
};

struct Hook {
	uint32_t count;
	const HookChain *chains;	/* ascending priority */
};

/* An interface as the meta keys see it. */
struct IfInfo {
	uint32_t ifindex;
	const char *name;	/* IFNAMSIZ bytes at most, NUL-terminated */
	uint16_t type;		/* ARPHRD_* (1: Ethernet) */
	uint32_t group;
	const char *bridge_name;	/* the bridge it is a port of, or nullptr */
	const char *kind;	/* its rtnl_link_ops kind ("veth"), or nullptr */
};

struct Pkt {
	/* The frame from its destination MAC; @band_tag_len bytes of an
	 * outer VLAN tag at offset 12 are in @frame (0 or 4). */
	const uint8_t *frame;
	uint32_t len;
	uint8_t band_tag_len;
	/* The outer tag as the kernel holds it out of band at this hook. */
	bool vlan_present;
	uint16_t vlan_proto;	/* host order */
	uint16_t vlan_tci;
	uint8_t pkttype;	/* PACKET_HOST 0, BROADCAST 1, MULTICAST 2, OTHERHOST 3 */
	const IfInfo *in;	/* nullptr: none at this hook */
	const IfInfo *out;
	bool bridge_vlan_enabled;
	uint16_t in_pvid;	/* meta ibrpvid: the ingress port's PVID */
	uint16_t bridge_vlan_proto;	/* meta ibrvproto, host order */
	uint32_t mark;		/* skb->mark: read and written */
	uint32_t priority;
	uint64_t now_ns;
	/* Conntrack: the frame's result once tracked (nullptr before, and
	 * when conntrack is off); the zone `ct zone set` chose for it. */
	CtResult *ct;
	uint16_t ct_zone;
	/* The tracker @ct came from: `ct count` looks its connections up. */
	Conntrack *conntrack;
	/* `notrack` ran while the frame had no connection: it is UNTRACKED
	 * (Linux's IP_CT_UNTRACKED), and conntrack at -200 leaves it alone. */
	bool notrack;
	/* Out: the flowtable a `flow offload` asked for. */
	void *offload;
	/* For `log`: the environment's frame (RxFrame::cookie) and the hook
	 * the chains run at (kHook*). */
	const void *cookie;
	uint8_t hook;
	/* `reject` may send its reply back through the ingress port: it is
	 * in forwarding state, as br_forward's should_deliver asks. */
	bool in_forwarding;
	/* Payload statements (nft_payload_write.h): the frame's bytes to
	 * write, or nullptr where they cannot be (a write then breaks, as a
	 * failed skb_ensure_writable does); whether the device finishes the
	 * transport checksum (CHECKSUM_PARTIAL). Out: a statement changed
	 * the bytes, or the out-of-band tag. */
	uint8_t *wframe;
	bool csum_partial;
	bool written;
	bool tag_written;
	/* After prerouting: where a copy's writes are recorded (nullptr:
	 * none can be, and a write breaks), and the copy (its Port; nullptr
	 * for the one that goes up). */
	struct CopyWrites *copy_writes;
	const void *copy;

	/* Derived by pkt_init(): nft_set_pktinfo for the bridge family. */
	uint16_t protocol;	/* skb->protocol, host order */
	uint32_t nhoff;		/* network header, in @frame */
	uint32_t thoff;		/* transport header, in @frame */
	uint16_t fragoff;
	uint8_t l4proto;
	bool tprot_set;
};

/*
 * Control, when a generation is built: whether a rule reads a register
 * word it has not written itself first (only what a raw netlink rule can
 * do: nft always loads before it compares). Such a generation's chains
 * zero their register file (Chain::zero_regs).
 */
bool rule_reads_unwritten(const Insn *insn, uint32_t count);

/*
 * Control, when a generation is built: lower a rule's Insns, in place, into
 * the form the evaluator runs fastest. Each load is fused with the CmpEq
 * (and the word Bitwise before it) that tests it (nft_expr.h, "Fused
 * compare"), which leave the array; the loads rulesets are made of become
 * word loads (nft_expr.h, "Word loads"). Returns the rule's new count.
 * Each Insn's to_next_rule is set. What a frame sees - verdicts,
 * registers, counters - is unchanged.
 */
uint32_t lower_rule(Insn *insn, uint32_t count);

/* Fill the derived fields (nft_do_chain_bridge's pktinfo). */
void pkt_init(Pkt &p);

/* Run one base chain (as run_hook() of a hook of one chain); returns
 * kNfAccept or kNfDrop. */
int32_t run_chain(const Chain &base, Pkt &p);

/*
 * Run the chains of @hook with priority in [@prio_lo, @prio_hi) in order;
 * stops at the first drop. Returns kNfAccept or kNfDrop. The per-CPU
 * counters of the run find this CPU's copies through one note of the CPU
 * (xb_percpu_this_noted): the caller does not migrate during the call.
 */
int32_t run_hook(const Hook &hook, Pkt &p, int64_t prio_lo = INT64_MIN,
		 int64_t prio_hi = INT64_MAX);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_EVAL_H */
