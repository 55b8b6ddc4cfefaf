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
 * A verdict owns nothing. A Flood verdict does not list its ports: the
 * caller enumerates them with flood_targets() in the same read section,
 * into a buffer it owns (kMaxPorts entries always suffice).
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

struct Verdict {
	VerdictKind kind;
	DropReason reason;	/* Drop */
	FloodClass flood_class;	/* Flood */
	bool local_too;		/* Forward/Flood: a copy goes up the bridge */
	uint16_t vid;		/* the frame's VID inside the bridge; 0 unfiltered */
	uint16_t tag_proto;	/* the bridge's vlan_protocol, for TagAction::Tag */
	uint8_t pcp_dei;	/* PCP and DEI to keep when tagging (TCI >> 12) */
	uint8_t ct_state;	/* conntrack's CtStateBit; 0: not tracked */
	uint32_t mark;		/* skb->mark the ruleset set (meta mark set); 0: none */
	bool src_isolated;	/* ingress port isolated (for flood_targets) */
	Port *ingress;
	Egress out;		/* Forward: the port and its tag action */
	Egress local;		/* Local or local_too: host port tag action */
};

struct RxFrame {
	const uint8_t *data;
	uint32_t len;
	OobTag oob;
	Port *ingress;		/* the host port: sent by the bridge device */
	bool csum_ok = false;	/* layer-4 checksum known good (conntrack) */
};

/* Decide one frame. @now is Bridge::now_ticks() read by the caller. */
void decide(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out);

/* Decide @n frames (up to kBatchMax per call): hashes and prefetches every
 * FDB bucket first, then decides each frame as decide() would. */
constexpr unsigned kBatchMax = 64;
void decide_batch(Bridge &br, const RxFrame *frames, unsigned n, uint32_t now,
		  Verdict *out);

/* Visit the ports a Flood verdict goes to: @fn(const Egress &) for each. */
template <typename Fn> void for_each_flood_target(const Bridge &br, const Verdict &verdict, Fn fn);

/* The ports a Flood verdict goes to, each with its tag action. Returns the
 * count written to @out (at most @cap). */
unsigned flood_targets(const Bridge &br, const Verdict &verdict, Egress *out, unsigned cap);

/* ---- inline implementation ---------------------------------------------- */

/* should_deliver + br_allowed_egress for one egress port. @vlan is the
 * cached port VLAN from the FDB destination, or nullptr to look it up. */
inline bool egress_allowed(const Verdict &v, bool filtering, Port *p, PortVlan *vlan,
			   TagAction &tag)
{
	if (xb_unlikely(p == v.ingress) && !p->has_flag(kPortHairpin))
		return false;
	if (xb_unlikely(p->port_state() != PortState::Forwarding))
		return false;
	if (xb_unlikely(v.src_isolated) && p->has_flag(kPortIsolated))
		return false;
	if (!filtering) {
		tag = TagAction::Keep;
		return true;
	}
	if (!vlan)
		vlan = p->vlans.find(v.vid);
	if (xb_unlikely(!vlan || PortState(load_once(vlan->state)) != PortState::Forwarding))
		return false;
	tag = (load_once(vlan->flags) & kVlanUntagged) ? TagAction::Untag : TagAction::Tag;
	return true;
}

/* The port flag a flood class needs; frames the bridge sends ignore the
 * multicast and broadcast ones (br_flood's local_orig). */
inline uint32_t flood_flag_needed(const Verdict &v)
{
	const bool from_host = v.ingress && v.ingress->is_host;
	switch (v.flood_class) {
	case FloodClass::Unicast:
		return kPortFlood;
	case FloodClass::Multicast:
		return from_host ? 0u : uint32_t(kPortMcastFlood);
	default:
		return from_host ? 0u : uint32_t(kPortBcastFlood);
	}
}

template <typename Fn> void for_each_flood_target(const Bridge &br, const Verdict &verdict, Fn fn)
{
	const PortTable *table = br.ports_rcu();
	const bool filtering = br.vlan_filtering();
	const uint32_t need = flood_flag_needed(verdict);

	for (uint32_t i = 0; i < table->count; i++) {
		Port *p = table->port[i];
		if ((p->flag_bits() & need) != need)
			continue;
		Egress e;
		if (!egress_allowed(verdict, filtering, p, nullptr, e.tag))
			continue;
		e.port = p;
		fn(e);
	}
}

} // namespace xb

#endif /* XBRIDGE_CORE_FORWARD_H */
