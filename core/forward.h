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
	Tag,		/* leave tagged: vid, tag_proto (and pcp) */
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
	uint8_t pcp;		/* priority to keep when tagging */
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
};

/* Decide one frame. @now is Bridge::now_ticks() read by the caller. */
void decide(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out);

/* Decide @n frames (up to kBatchMax per call): hashes and prefetches every
 * FDB bucket first, then decides each frame as decide() would. */
constexpr unsigned kBatchMax = 64;
void decide_batch(Bridge &br, const RxFrame *frames, unsigned n, uint32_t now,
		  Verdict *out);

/* The ports a Flood verdict goes to, each with its tag action. Returns the
 * count written to @out (at most @cap). */
unsigned flood_targets(const Bridge &br, const Verdict &verdict, Egress *out, unsigned cap);

} // namespace xb

#endif /* XBRIDGE_CORE_FORWARD_H */
