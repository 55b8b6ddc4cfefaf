/* SPDX-License-Identifier: GPL-2.0 */
/*
 * forward.h - the forwarding decision: frame + ingress port -> verdict.
 *
 * decide() and decide_batch() run in the datapath: the caller holds an RCU
 * read section for as long as it uses the verdict (its ports and VLANs stay
 * valid that long). They allocate nothing and take the FDB lock only to
 * create or roam an entry. They follow the Linux bridge's ingress order
 * (Documentation/design.md): source checks, link-local groups, port state,
 * VLAN ingress, locked port, learning, destination, egress checks.
 *
 * A verdict owns nothing. A Flood verdict lists its ports in flood, a set
 * over the port table the decision read: the caller enumerates them with
 * flood_targets() or for_each_flood_target() in the same read section.
 * The set is decided once, egress checks and the ruleset's forward/output
 * and postrouting chains included, so delivering a flood re-decides
 * nothing.
 */
#ifndef XBRIDGE_CORE_FORWARD_H
#define XBRIDGE_CORE_FORWARD_H

#include <stdint.h>

#include "bridge.h"
#include "frame.h"
#include "port.h"

namespace xb {

enum class VerdictKind : uint8_t {
	Drop,		/* reason says why; counted on the ingress port */
	Local,		/* up the bridge device only */
	Forward,	/* to one port (out), and up the bridge if local_too */
	Flood,		/* to flood_targets(), and up the bridge if local_too */
	PortStack,	/* link-local: up the ingress port's own stack */
};

/* What egress does to the frame's bridge tag. */
enum class TagAction : uint8_t {
	Keep,		/* VLAN filtering off: leave the frame as it arrived */
	Untag,		/* leave without the bridge tag */
	Tag,		/* leave tagged: vid, tag_proto (and pcp_dei) */
};

enum class FloodClass : uint8_t {
	Unicast,
	Multicast,
	Broadcast,
};

struct Egress {
	Port *port;
	TagAction tag;
};

/* The ports a flood leaves through: bits over @table's slots. Only the
 * first @words words are written (the table's count rounded up). */
constexpr unsigned kPortWords = kMaxPorts / 64;
struct FloodSet {
	const PortTable *table;
	uint16_t words;
	bool keep_tags;			/* VLAN filtering off: TagAction::Keep */
	uint64_t pass[kPortWords];	/* slot i takes a copy */
	uint64_t untag[kPortWords];	/* and sends it without the bridge tag */
};

/*
 * The decision. Every field of VerdictHead is reset for every frame; the
 * flood set is written only for a Flood verdict (it is large, and most
 * frames are unicast).
 */
/* VerdictHead::local_pkttype: no chain set the frame's pkt_type. */
constexpr uint8_t kPkttypeKeep = 0xff;

struct VerdictHead {
	VerdictKind kind;
	DropReason reason;	/* Drop */
	FloodClass flood_class;	/* Flood */
	bool local_too;		/* Forward/Flood: a copy goes up the bridge */
	uint16_t vid;		/* the frame's VID inside the bridge; 0 unfiltered */
	uint16_t tag_proto;	/* the bridge's vlan_protocol, for TagAction::Tag */
	uint8_t pcp_dei;	/* PCP and DEI to keep when tagging (TCI >> 12) */
	uint8_t ct_state;	/* conntrack's CtStateBit; 0: not tracked */
	uint32_t mark;		/* skb->mark of the copies that leave through
				 * ports: the arriving mark, or what a chain's
				 * `meta mark set` made of it (0 too) */
	uint32_t local_mark;	/* skb->mark of the copy that goes up */
	uint32_t priority;	/* skb->priority, as mark (meta priority set) */
	uint32_t local_priority;
	uint8_t local_pkttype;	/* skb->pkt_type a prerouting chain set for the
				 * copy that goes up; kPkttypeKeep: none did */
	bool src_isolated;	/* ingress port isolated */
	/* A prerouting payload statement (nft_payload_write.h) changed the
	 * frame's bytes in place (frame_written; the checksums it touched
	 * are right), or its out-of-band tag: every copy leaves with
	 * @rx_tag instead of the tag it came with (rx_tag_written). */
	bool frame_written;
	bool rx_tag_written;
	OobTag rx_tag;
	Port *ingress;
	Egress out;		/* Forward: the port and its tag action */
	Egress local;		/* Local or local_too: host port tag action */
};

struct Verdict : VerdictHead {
	FloodSet flood;		/* Flood only */
};

struct RxFrame {
	const uint8_t *data;
	uint32_t len;
	OobTag oob;
	Port *ingress;		/* the host port: sent by the bridge device */
	bool csum_ok = false;	/* layer-4 checksum known good (conntrack) */
	/* The device finishes the transport checksum (CHECKSUM_PARTIAL):
	 * payload statements leave it alone, as nft_payload_set_eval does. */
	bool csum_partial = false;
	/* @data itself, when the environment made the frame writable for
	 * the ruleset's payload statements (Generation::has_payload_write);
	 * nullptr: they break, as a failed skb_ensure_writable does. */
	uint8_t *writable = nullptr;
	uint32_t mark = 0;	/* skb->mark as the frame arrived */
	uint32_t priority = 0;	/* skb->priority as the frame arrived */
	/* The whole frame's length when only its first @len bytes are
	 * here (a paged skb's headers: flow_fast_path() only); 0: @len. */
	uint32_t wire_len = 0;
	/* Sent by the bridge device's own IP stack (not a packet socket):
	 * conntrack tracks and confirms it before the output chains, as the
	 * IP layer's LOCAL_OUT and POSTROUTING conntrack hooks do on Linux,
	 * which a bridge-family ct rule switches on with nf_conntrack_bridge. */
	bool host_stack = false;
	/* The environment's own handle on the frame (the kernel's skb),
	 * handed back to it by nft's `log` (xb_nft_log). */
	const void *cookie = nullptr;
};

/* Decide one frame. @now is Bridge::now_ticks() read by the caller. */
void decide(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out);

/*
 * The flowtable's hit alone (bridge_flow.h), for a frame of which only the
 * headers may be at hand (@frame.wire_len): true with @out filled if the
 * frame hits a live flow, else false and the caller decides the whole
 * frame with decide(). The shim tries it before it copies a paged skb into
 * one piece, which only the slow path needs.
 */
bool flow_fast_path(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out);

/*
 * Whether a frame to @dest (the frame's start: 8 readable bytes) is a link-local frame the bridge does
 * not forward: decide() sends it up the ingress port's own stack (or drops
 * a pause frame) before any VLAN ingress check, as br_handle_frame does
 * before br_allowed_ingress. The shim then leaves a foreign-TPID tag out of
 * band, where the port's stack expects it. Datapath-safe.
 */
bool link_local_stays_on_port(const Bridge &br, const uint8_t dest[6]);

/* Decide @n frames (up to kBatchMax per call): hashes and prefetches every
 * FDB bucket first, then decides each frame as decide() would. */
constexpr unsigned kBatchMax = 64;
void decide_batch(Bridge &br, const RxFrame *frames, unsigned n, uint32_t now,
		  Verdict *out);

/* Visit the ports a Flood verdict goes to: @fn(const Egress &) for each. */
template <typename Fn> void for_each_flood_target(const Verdict &verdict, Fn fn);

/* The ports a Flood verdict goes to, each with its tag action. Returns the
 * count written to @out (at most @cap). */
unsigned flood_targets(const Bridge &br, const Verdict &verdict, Egress *out, unsigned cap);

/* ---- inline implementation ---------------------------------------------- */

/* The ports of a flood set given by its parts (the kernel glue keeps them
 * in a C struct of its own): @fn(const Egress &) for each. */
template <typename Fn>
void for_each_port_of_set(const PortTable *table, const uint64_t *pass, const uint64_t *untag,
			  unsigned words, bool keep_tags, Fn fn)
{
	for (unsigned w = 0; w < words; w++) {
		uint64_t bits = pass[w];
		while (bits) {
			const unsigned bit = unsigned(__builtin_ctzll(bits));
			bits &= bits - 1;
			Egress e;
			e.port = table->port[w * 64 + bit];
			if (keep_tags)
				e.tag = TagAction::Keep;
			else
				e.tag = (untag[w] >> bit) & 1 ? TagAction::Untag : TagAction::Tag;
			fn(e);
		}
	}
}

template <typename Fn> void for_each_flood_target(const Verdict &verdict, Fn fn)
{
	const FloodSet &set = verdict.flood;
	for_each_port_of_set(set.table, set.pass, set.untag, set.words, set.keep_tags, fn);
}

} // namespace xb

#endif /* XBRIDGE_CORE_FORWARD_H */
