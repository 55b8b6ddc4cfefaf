// SPDX-License-Identifier: GPL-2.0
/*
 * forward.cc - the forwarding decision.
 *
 * Runs in the datapath: the caller holds an RCU read section; nothing here
 * allocates or sleeps, and the FDB lock is taken only inside Fdb::learn()
 * to create or roam an entry. Every VerdictHead field is written for every
 * frame (it starts zeroed) and the flood set for every Flood verdict, so a
 * recycled Verdict never carries the previous frame's decision.
 *
 * The steps mirror the Linux bridge (br_handle_frame, br_handle_frame_finish,
 * br_dev_xmit, br_forward, br_flood): see Documentation/design.md.
 */
#include "forward.h"

#include "batch_groups.h"
#include "bridge_ct.h"
#include "bridge_flow.h"
#include "bridge_nft.h"
#include "nft_ruleset.h"

namespace xb {

namespace {

/* The bridge state a decision reads, loaded once per call (per batch). */
struct Ctx {
	Bridge &br;
	Fdb &fdb;
	Port *host;
	MacKey host_addr;
	uint32_t now;
	uint16_t vlan_proto;
	uint16_t group_fwd_mask;
	bool filtering;
	bool cache_vlan;
	bool promisc;
	bool vlan_stats;
	Conntrack *ct;		/* nullptr: conntrack off */
	FlowTable *flows;	/* the flowtable's flows (with conntrack) */
	NftHooks nft;		/* the ruleset's chains per hook */
};

/*
 * br_recalculate_fwd_mask: an 802.1ad (provider) bridge forwards the link-
 * local groups a customer bridge consumes - 0b, 0c, 0d and 0f (of Linux's
 * BR_GROUPFWD_8021AD, less the bridge's own group 00) - whatever
 * group_fwd_mask says.
 */
constexpr uint16_t kGroupFwd8021adRequired = 0xb800;

uint16_t effective_group_fwd_mask(const Bridge &br, bool filtering, uint16_t proto)
{
	uint16_t fwd_mask = load_once(br.opts().group_fwd_mask);
	if (filtering && proto == kEthP8021AD)
		fwd_mask |= kGroupFwd8021adRequired;
	return fwd_mask;
}

/* Group 0 (STP): xbridge runs no STP, so it is forwarded. */
bool link_local_forwarded(uint8_t group, uint16_t fwd_mask)
{
	return group == 0 || (fwd_mask & (1u << group));
}

Ctx make_ctx(Bridge &br, uint32_t now)
{
	const BridgeOptions &o = br.opts();
	const uint16_t proto = br.vlan_protocol();
	const bool filtering = br.vlan_filtering();
	const uint16_t fwd_mask = effective_group_fwd_mask(br, filtering, proto);
	Conntrack *ct = br.conntrack_active_rcu();
	return Ctx{br,
		   br.fdb(),
		   br.host(),
		   br.addr(),
		   now,
		   proto,
		   fwd_mask,
		   filtering,
		   load_once(o.fdb_cache_vlan),
		   load_once(o.promisc),
		   load_once(o.vlan_stats),
		   ct,
		   ct ? br.flows_rcu() : nullptr,
		   nft_hooks(br)};
}

/* FDB probes prepared ahead (batch), valid if their keys still match. */
struct Probes {
	Fdb::Probe dst;
	Fdb::Probe src;
};

/* What the decision knows about the frame's ingress. */
struct Ingress {
	Port *port;
	PortVlan *vlan;		/* ingress port VLAN (filtering on) */
	uint16_t vid;
	PortState state;	/* port state, or the VLAN's when it overrides */
};

inline void set_drop(Verdict &v, DropReason reason)
{
	v.kind = VerdictKind::Drop;
	v.reason = reason;
}

inline bool vlan_forwarding(const PortVlan *v)
{
	return PortState(load_once(v->state)) == PortState::Forwarding;
}

inline TagAction tag_action(const PortVlan *v)
{
	return (load_once(v->flags) & kVlanUntagged) ? TagAction::Untag : TagAction::Tag;
}

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

inline Fdb::Probe probe_for(const Ctx &c, const Fdb::Probe *ahead, MacKey mac, uint16_t vid)
{
	uint64_t key = fdb_key(mac, vid);
	if (ahead && xb_likely(ahead->key == key))
		return *ahead;
	return c.fdb.probe(key);
}

/*
 * What Linux's per-VLAN byte counters count: skb->len where br_handle_vlan
 * and br_allowed_ingress run, which is the frame without its Ethernet
 * header and without its outer tag (the receive path moved it out of band).
 */
inline uint32_t vlan_stats_len(const RxFrame &f)
{
	uint32_t len = f.wire_len ? f.wire_len : f.len;
	if (len < kEthHeaderLen)
		return 0;
	len -= kEthHeaderLen;
	if (!f.oob.present && f.len >= kEthHeaderLen + 4) {
		const uint16_t type = uint16_t(f.data[12] << 8 | f.data[13]);
		if (type == kEthP8021Q || type == kEthP8021AD)
			len -= 4;
	}
	return len;
}

void count_vlan(PortVlan *v, uint32_t bytes, bool rx)
{
	VlanStats *s = v->stats.this_cpu();
	if (rx) {
		counter_add(s->rx_packets, 1);
		counter_add(s->rx_bytes, bytes);
	} else {
		counter_add(s->tx_packets, 1);
		counter_add(s->tx_bytes, bytes);
	}
}

/*
 * br_allowed_ingress: the frame's VID on @port. Untagged, priority-tagged
 * and foreign-TPID frames take the PVID. With @check_state, the VLAN state
 * replaces a Forwarding port state.
 */
inline bool vlan_ingress(const L2Info &l2, Ingress &in, bool check_state, Verdict &v)
{
	uint16_t vid = l2.vid;
	if (!vid) {
		vid = in.port->vlans.pvid();
		if (xb_unlikely(!vid)) {
			set_drop(v, DropReason::NoPvid);
			return false;
		}
	}
	PortVlan *vlan = in.port->vlans.find(vid);
	if (xb_unlikely(!vlan)) {
		set_drop(v, DropReason::VlanNotMember);
		return false;
	}
	if (check_state && in.state == PortState::Forwarding) {
		in.state = PortState(load_once(vlan->state));
		if (xb_unlikely(!state_accepts_ingress(in.state))) {
			set_drop(v, DropReason::VlanState);
			return false;
		}
	}
	in.vid = vid;
	in.vlan = vlan;
	return true;
}

/*
 * br_pass_frame_up's egress check on the bridge device's own VLANs. A
 * promiscuous bridge device takes every frame (someone may be capturing):
 * a frame in a VID the device is not a member of goes up as it is, tagged.
 */
inline bool host_allowed(const Ctx &c, uint32_t len, Verdict &v)
{
	v.local.port = c.host;
	if (!c.filtering) {
		v.local.tag = TagAction::Keep;
		return true;
	}
	PortVlan *vlan = c.host->vlans.find(v.vid);
	if (xb_unlikely(!vlan || (!c.promisc && !vlan_forwarding(vlan)))) {
		v.local.tag = TagAction::Tag;
		return c.promisc;
	}
	v.local.tag = tag_action(vlan);
	/* br_pass_frame_up -> br_handle_vlan counts the copy going up */
	if (xb_unlikely(c.vlan_stats))
		count_vlan(vlan, len, false);
	return true;
}

inline FdbDest learn_dest(const Ctx &c, const Ingress &in)
{
	if (in.vlan && c.cache_vlan)
		return FdbDest::to_vlan(in.vlan);
	return FdbDest::to_port(in.port);
}

inline void deliver_local_only(const Ctx &c, uint32_t len, Verdict &v)
{
	if (host_allowed(c, len, v))
		v.kind = VerdictKind::Local;
	else
		set_drop(v, DropReason::HostVlan);
}

/* Unicast to an FDB hit that is not local (br_forward). */
inline void forward_to(const Ctx &c, const Ingress &in, FdbEntry *e, bool local_rcv,
		       uint32_t len, Verdict &v)
{
	if (load_once(e->used) != c.now)
		store_once(e->used, c.now);

	DecodedDest d = decode_dest(e->destination());
	PortVlan *cached = c.cache_vlan ? d.vlan : nullptr;
	TagAction tag;
	if (xb_likely(egress_allowed(v, c.filtering, d.port, cached, tag))) {
		v.kind = VerdictKind::Forward;
		v.out.port = d.port;
		v.out.tag = tag;
		if (local_rcv)
			v.local_too = host_allowed(c, len, v);
		if (xb_unlikely(c.vlan_stats) && c.filtering) {
			PortVlan *ev = cached ? cached : d.port->vlans.find(in.vid);
			if (ev)
				count_vlan(ev, len, false);
		}
		return;
	}
	if (local_rcv)
		deliver_local_only(c, len, v);
	else
		set_drop(v, DropReason::NoEgress);
}

inline void flood(const Ctx &c, FloodClass cls, bool local_rcv, uint32_t len, Verdict &v)
{
	v.kind = VerdictKind::Flood;
	v.flood_class = cls;
	if (local_rcv)
		v.local_too = host_allowed(c, len, v);
}

/* A frame the bridge device sends (br_dev_xmit). */
void decide_from_host(const Ctx &c, const L2Info &l2, Ingress &in, const Probes *ahead,
		      uint32_t len, Verdict &v)
{
	/* br_dev_xmit -> br_allowed_ingress: the bridge's own per-VLAN state
	 * (learning or forwarding) applies to what it sends, as a port's. */
	if (c.filtering) {
		if (!vlan_ingress(l2, in, true, v))
			return;
		if (xb_unlikely(c.vlan_stats))
			count_vlan(in.vlan, len, true);
	}
	v.vid = in.vid;

	if (l2.dest_class == DestClass::Broadcast) {
		flood(c, FloodClass::Broadcast, false, len, v);
		return;
	}
	if (l2.dest_class == DestClass::Multicast) {
		flood(c, FloodClass::Multicast, false, len, v);
		return;
	}
	FdbEntry *e = Fdb::lookup_probe(probe_for(c, ahead ? &ahead->dst : nullptr, l2.dst, in.vid));
	if (!e) {
		flood(c, FloodClass::Unicast, false, len, v);
		return;
	}
	if (e->destination().port()->is_host) {
		set_drop(v, DropReason::NoEgress);	/* to ourselves */
		return;
	}
	forward_to(c, in, e, false, len, v);
}

/* Link-local groups that are not forwarded: learn, pass up the port. */
void link_local_to_port(const Ctx &c, const L2Info &l2, Ingress &in, Verdict &v)
{
	v.kind = VerdictKind::PortStack;
	if (!in.port->has_flag(kPortLearning) || !state_accepts_ingress(in.state))
		return;
	if (c.filtering) {
		/* br_should_learn: only in a VLAN the port is a member of (an
		 * untagged, priority-tagged or foreign-TPID frame in the PVID:
		 * l2.vid is 0 for all three) whose per-VLAN state learns. */
		Verdict scratch = v;
		if (!vlan_ingress(l2, in, false, scratch))
			return;
		if (!state_accepts_ingress(PortState(load_once(in.vlan->state))))
			return;
	}
	c.fdb.learn(learn_dest(c, in), l2.src, in.vid, c.now, 0);
}

/* The locked-port checks of br_handle_frame_finish; false: drop. */
bool locked_port_allows(const Ctx &c, const Ingress &in, uint32_t port_flags,
			const Fdb::Probe &src_probe)
{
	FdbEntry *src = Fdb::lookup_probe(src_probe);
	if (!src) {
		if (port_flags & kPortMab)
			c.fdb.learn(src_probe, learn_dest(c, in), c.now, kFdbLocked);
		return false;
	}
	uint16_t sflags = src->flag_bits();
	if (src->destination().port() != in.port || (sflags & kFdbLocal))
		return false;	/* mismatch: drop without roaming */
	if (sflags & kFdbLocked) {
		c.fdb.learn(src_probe, learn_dest(c, in), c.now, kFdbLocked);
		return false;	/* known but not authorised: refresh, drop */
	}
	return true;
}

/*
 * A prerouting chain rewrote the link layer (ether daddr set, vlan id
 * set, ...): what the bridge decides after NF_BR_PRE_ROUTING (VLAN
 * ingress, learning, the FDB) reads the frame as the chain left it, as
 * br_handle_frame_finish reads eth_hdr() and skb->vlan_tci.
 */
void reclassify_after_pre(const Ctx &c, const RxFrame &frame, Verdict &v, L2Info &l2)
{
	const OobTag &tag = v.rx_tag_written ? v.rx_tag : frame.oob;
	classify_l2(frame.data, frame.len, tag, c.host_addr, c.vlan_proto, l2);
	v.pcp_dei = l2.pcp_dei;
}

/*
 * The decision up to the egress ports: @nf is the frame as the ruleset sees
 * it when the generation has chains, @ct its conntrack result when
 * conntrack is on (bridge_ct.h). @l2 is classified again if a prerouting
 * chain rewrote the link layer.
 */
void decide_frame(const Ctx &c, const RxFrame &frame, L2Info &l2, const Probes *ahead,
		  NftFrame *nf, CtResult *ct, Verdict &v)
{
	static_cast<VerdictHead &>(v) = VerdictHead();
	v.ingress = frame.ingress;
	v.mark = v.local_mark = frame.mark;
	v.priority = v.local_priority = frame.priority;
	v.local_pkttype = kPkttypeKeep;
	v.tag_proto = c.vlan_proto;
	v.pcp_dei = l2.pcp_dei;

	if (xb_unlikely(l2.status != FrameStatus::Ok)) {
		set_drop(v, DropReason::Truncated);
		port_count_drop(frame.ingress, v.reason);
		return;
	}

	Ingress in;
	in.port = frame.ingress;
	in.vlan = nullptr;
	in.vid = 0;
	in.state = in.port->port_state();

	if (xb_unlikely(in.port->is_host)) {
		if (xb_unlikely(ct) && frame.host_stack &&
		    !ct_bridge_local_out(*c.ct, frame, c.now, *ct, v)) {
			set_drop(v, DropReason::Conntrack);
			port_count_drop(frame.ingress, v.reason);
			return;
		}
		if (ct && nf) {
			nf->pkt.ct = ct;	/* the output chains' ct expressions */
			nf->pkt.conntrack = c.ct;
		}
		decide_from_host(c, l2, in, ahead, vlan_stats_len(frame), v);
		if (v.kind == VerdictKind::Drop)
			port_count_drop(frame.ingress, v.reason);
		return;
	}

	const uint32_t port_flags = in.port->flag_bits();
	bool local_rcv = c.promisc;
	FloodClass cls = FloodClass::Unicast;
	Fdb::Probe src_probe;

	if (xb_unlikely(!l2.src_valid)) {
		set_drop(v, DropReason::SourceInvalid);
		goto drop;
	}
	if (xb_unlikely(l2.link_local)) {
		uint8_t group = l2.link_local_index;
		if (group == 1) {
			set_drop(v, DropReason::LinkLocalPause);
			goto drop;
		}
		if (!link_local_forwarded(group, c.group_fwd_mask)) {
			link_local_to_port(c, l2, in, v);
			return;
		}
	}
	if (xb_unlikely(!state_accepts_ingress(in.state))) {
		set_drop(v, DropReason::PortState);
		goto drop;
	}
	/* NF_BR_PRE_ROUTING: the ruleset's chains, conntrack at -200. */
	if (xb_unlikely(c.nft.pre)) {
		const NftOutcome o = nft_bridge_pre(*c.nft.pre, *nf, c.ct, frame, c.now, ct, v);
		if (xb_unlikely(o != NftOutcome::Accept)) {
			set_drop(v, o == NftOutcome::Drop ? DropReason::Netfilter : DropReason::Conntrack);
			goto drop;
		}
		if (xb_unlikely(v.frame_written || v.rx_tag_written)) {
			reclassify_after_pre(c, frame, v, l2);
			ahead = nullptr;	/* probed for the old addresses */
		}
	} else if (xb_unlikely(ct)) {
		if (!ct_bridge_pre(*c.ct, frame, c.now, 0, *ct, v)) {
			set_drop(v, DropReason::Conntrack);
			goto drop;
		}
		if (nf) {
			nf->pkt.ct = ct;	/* for the later hooks' ct expressions */
			nf->pkt.conntrack = c.ct;
		}
	}
	if (c.filtering) {
		if (!vlan_ingress(l2, in, true, v))
			goto drop;
		if (xb_unlikely(c.vlan_stats))
			count_vlan(in.vlan, vlan_stats_len(frame), true);
	}
	v.vid = in.vid;

	src_probe = probe_for(c, ahead ? &ahead->src : nullptr, l2.src, in.vid);
	if (xb_unlikely(port_flags & kPortLocked) &&
	    !locked_port_allows(c, in, port_flags, src_probe)) {
		set_drop(v, DropReason::LockedPort);
		goto drop;
	}
	if (xb_likely(port_flags & kPortLearning))
		c.fdb.learn(src_probe, learn_dest(c, in), c.now, 0);

	if (l2.dest_class == DestClass::Broadcast) {
		cls = FloodClass::Broadcast;
		local_rcv = true;
	} else if (l2.dest_class == DestClass::Multicast) {
		cls = FloodClass::Multicast;
		local_rcv = true;	/* no snooping: everyone, us included */
	}

	if (xb_unlikely(in.state == PortState::Learning)) {
		set_drop(v, DropReason::LearningOnly);
		goto drop;
	}
	v.src_isolated = port_flags & kPortIsolated;

	if (cls == FloodClass::Unicast) {
		FdbEntry *e = Fdb::lookup_probe(
			probe_for(c, ahead ? &ahead->dst : nullptr, l2.dst, in.vid));
		if (e) {
			if (xb_unlikely(e->flag_bits() & kFdbLocal))
				deliver_local_only(c, vlan_stats_len(frame), v);
			else
				forward_to(c, in, e, local_rcv, vlan_stats_len(frame), v);
			if (v.kind == VerdictKind::Drop)
				goto drop;
			return;
		}
	}
	flood(c, cls, local_rcv, vlan_stats_len(frame), v);
	return;

drop:
	port_count_drop(in.port, v.reason);
}

/*
 * nf_ct_bridge_post: a copy that passed its postrouting chains confirms
 * its new connection on its way out, before the next copy of a flood
 * meets its chains (br_flood hands the copies out one after the other) and
 * before the copy that goes up meets the input chain: those see it
 * confirmed (`ct status`). False when the insert lost to an equal
 * connection: conntrack drops the frame (ct_bridge_post otherwise).
 */
inline bool confirm_on_egress(const Ctx &c, CtResult *ct)
{
	return !ct || !ct->unconfirmed || c.ct->confirm(*ct, c.now);
}

/* The insert of the frame's connection lost (confirm_on_egress). */
void conntrack_drop(Verdict &v)
{
	set_drop(v, DropReason::Conntrack);
	v.local_too = false;
	port_count_drop(v.ingress, v.reason);
}

/*
 * br_flood: the ports a Flood verdict leaves through - the flood flag of
 * its class, the egress checks and, when @nf, the copy's forward (or
 * output) and postrouting chains, after which the first copy confirms the
 * frame's new connection (@ct, confirm_on_egress). Returns whether there
 * is any; false with @ct->drop set when the confirm lost (no copy leaves).
 */
bool flood_set(const Ctx &c, const NftFrame *nf, uint32_t len, Verdict &v, CtResult *ct = nullptr)
{
	const PortTable *table = c.br.ports_rcu();
	FloodSet &set = v.flood;
	const uint32_t need = flood_flag_needed(v);
	bool any = false;

	set.table = table;
	set.keep_tags = !c.filtering;
	set.words = uint16_t((table->count + 63) / 64);
	for (unsigned w = 0; w < set.words; w++) {
		set.pass[w] = 0;
		set.untag[w] = 0;
	}
	for (uint32_t i = 0; i < table->count; i++) {
		Port *p = table->port[i];
		TagAction tag;
		if ((p->flag_bits() & need) != need)
			continue;
		if (!egress_allowed(v, c.filtering, p, nullptr, tag))
			continue;
		/* br_handle_vlan counts each copy, before its forward chain */
		if (xb_unlikely(c.vlan_stats) && c.filtering) {
			PortVlan *ev = p->vlans.find(v.vid);
			if (ev)
				count_vlan(ev, len, false);
		}
		if (xb_unlikely(nf)) {
			SkbMeta meta;
			if (!nft_bridge_egress(c.nft, *nf, v, p, tag, meta))
				continue;
			if (!confirm_on_egress(c, ct)) {
				for (unsigned w = 0; w < set.words; w++) {
					set.pass[w] = 0;
					set.untag[w] = 0;
				}
				return false;
			}
		}
		set.pass[i / 64] |= uint64_t(1) << (i % 64);
		if (tag == TagAction::Untag)
			set.untag[i / 64] |= uint64_t(1) << (i % 64);
		any = true;
	}
	return any;
}

/* A chain refused the one egress copy (or the local copy, @local). */
void cancel_copy(Verdict &v, bool local)
{
	if (local && v.kind != VerdictKind::Local) {
		v.local_too = false;
		return;
	}
	if (!local && v.local_too) {
		v.kind = VerdictKind::Local;
		v.local_too = false;
		return;
	}
	set_drop(v, DropReason::Netfilter);
	v.local_too = false;
	port_count_drop(v.ingress, v.reason);
}

/*
 * After the decision, with a ruleset: each copy meets the chains of its
 * hooks (bridge_nft.h), forward/output and postrouting for the copies that
 * leave through ports (before the local copy, as br_handle_frame_finish
 * forwards before br_pass_frame_up), input for the one that goes up.
 * Returns whether some copy still leaves through a port.
 */
bool run_copy_hooks(const Ctx &c, const RxFrame &frame, const L2Info &l2, const NftFrame &nf,
		    CtResult *ct, Verdict &v)
{
	const bool egress_chains = c.nft.post || (nf.from_host ? c.nft.output : c.nft.forward);
	bool out_any = false;

	v.local_mark = v.mark;
	v.local_priority = v.priority;
	if (v.kind == VerdictKind::Forward) {
		SkbMeta meta{v.mark, v.priority};
		const void *offload = nullptr;
		if (!egress_chains ||
		    nft_bridge_egress(c.nft, nf, v, v.out.port, v.out.tag, meta, &offload)) {
			v.mark = meta.mark;
			v.priority = meta.priority;
			out_any = true;
			/* `flow add` takes a confirmed connection only: this
			 * frame's is confirmed after it (nf_ct_bridge_post) */
			if (xb_unlikely(offload) && ct && c.flows)
				flow_offload(c.br, *c.flows, c.nft.gen_id, offload, frame, l2, *ct,
					     v, c.now);
			if (!confirm_on_egress(c, ct)) {
				conntrack_drop(v);
				return false;
			}
		} else {
			cancel_copy(v, false);
		}
	} else if (v.kind == VerdictKind::Flood) {
		const bool unconfirmed = ct && ct->unconfirmed;
		out_any = flood_set(c, egress_chains ? &nf : nullptr, vlan_stats_len(frame), v, ct);
		if (unconfirmed && ct->drop) {
			conntrack_drop(v);
			return false;
		}
	}
	const bool local = v.kind == VerdictKind::Local ||
			   ((v.kind == VerdictKind::Forward || v.kind == VerdictKind::Flood) &&
			    v.local_too);
	if (local && c.nft.input) {
		SkbMeta meta;
		if (nft_bridge_input(c.nft, nf, v, meta)) {
			v.local_mark = meta.mark;
			v.local_priority = meta.priority;
		} else {
			cancel_copy(v, true);
		}
	}
	return out_any;
}

/* Whether a frame looks its flow up first (bridge_flow.h). */
inline bool flow_first(const Ctx &c, const RxFrame &frame, const L2Info &l2)
{
	return xb_unlikely(c.flows) && c.flows->count() && l2.status == FrameStatus::Ok &&
	       !frame.ingress->is_host;
}

/* @flow: the frame's flow probe when a batch worked it out, or nullptr. */
void decide_l2(const Ctx &c, const RxFrame &frame, L2Info &l2, const Probes *ahead,
	       const FlowProbe *flow, Verdict &v)
{
	/* The flowtable first, as its ingress hook runs before the bridge. */
	if (flow_first(c, frame, l2) &&
	    flow_hit(c.br, *c.flows, c.nft.gen_id, frame, l2, c.now, flow, v))
		return;
	if (xb_likely(!c.ct && !c.nft.any)) {
		decide_frame(c, frame, l2, ahead, nullptr, nullptr, v);
		if (v.kind == VerdictKind::Flood)
			flood_set(c, nullptr, vlan_stats_len(frame), v);
		return;
	}
	NftFrame nf;
	CtResult ct;
	bool out_any;
	if (c.nft.any)
		nft_frame_init(nf, c.br, frame, l2);
	decide_frame(c, frame, l2, ahead, c.nft.any ? &nf : nullptr, c.ct ? &ct : nullptr, v);
	if (c.nft.any)
		out_any = run_copy_hooks(c, frame, l2, nf, c.ct ? &ct : nullptr, v);
	else if (v.kind == VerdictKind::Flood)
		out_any = flood_set(c, nullptr, vlan_stats_len(frame), v);
	else
		out_any = v.kind == VerdictKind::Forward;
	if (c.ct)
		ct_bridge_post(*c.ct, frame, l2, c.promisc, out_any, c.now, ct, v);
}

/* The VID a frame will most likely be decided in, for probing ahead. */
inline uint16_t expected_vid(const Ctx &c, const RxFrame &f, const L2Info &l2)
{
	if (!c.filtering)
		return 0;
	return l2.vid ? l2.vid : f.ingress->vlans.pvid();
}

/*
 * Batches are decided in groups small enough for a kernel stack. For each
 * group: classify every frame and probe its destination and source buckets
 * (prefetching the bucket slots) and, with @Flows, its flow's bucket; then
 * load each slot and prefetch the first entry of its chain; then (without
 * flows) prefetch the second entry of each destination chain whose first
 * entry is another key; then decide each frame with its probes. The memory
 * of the whole group is in flight before the first decision. The third
 * pass matters for large tables: at 1M entries about a fifth of the hits
 * are not first in their chain, and each was a DRAM miss the decision
 * waited for alone. With flows the group is smaller (a flow probe holds
 * its key) and frames that hit a flow never look at the FDB.
 */
template <unsigned N, bool Flows>
xb_noinline void decide_groups(const Ctx &c, const RxFrame *frames, unsigned n,
					     Verdict *out)
{
	L2Info l2[N];
	Probes probes[N];
	FlowProbe flow[Flows ? N : 1];
	bool keyed[N] = {};

	for (unsigned base = 0; base < n; base += N) {
		const unsigned count = n - base < N ? n - base : N;
		const RxFrame *f = frames + base;

		for (unsigned i = 0; i < count; i++) {
			classify_l2(f[i].data, f[i].len, f[i].oob, c.host_addr, c.vlan_proto, l2[i]);
			uint16_t vid = expected_vid(c, f[i], l2[i]);
			probes[i].dst = c.fdb.probe(fdb_key(l2[i].dst, vid));
			probes[i].src = c.fdb.probe(fdb_key(l2[i].src, vid));
			prefetch(probes[i].dst.slot);
			prefetch(probes[i].src.slot);
			if (Flows) {
				keyed[i] = flow_first(c, f[i], l2[i]);
				if (keyed[i])
					flow_probe(*c.flows, f[i], l2[i], flow[i]);
			}
		}
		for (unsigned i = 0; i < count; i++) {
			prefetch(load_once(*probes[i].dst.slot));
			prefetch(load_once(*probes[i].src.slot));
			if (Flows && keyed[i])
				flow_probe_chain(*c.flows, flow[i]);
		}
		if (!Flows)
			for (unsigned i = 0; i < count; i++)
				Fdb::prefetch_second(probes[i].dst);
		for (unsigned i = 0; i < count; i++)
			decide_l2(c, f[i], l2[i], &probes[i], Flows && keyed[i] ? &flow[i] : nullptr,
				  out[base + i]);
	}
}

/*
 * decide_groups<, false>() over an FDB larger than the caches
 * (Fdb::prefetch_deep()): a software pipeline over groups of kDeepGroup
 * frames, as Conntrack::in_batch_deep. While group g is decided, group
 * g+1's destination chains are looked into for a hit second in its chain,
 * group g+2's first entries are fetched, and group g+3 is classified and
 * its bucket slots fetched: each dependent miss of a lookup (slot, first
 * entry, second entry) has a group's decisions to arrive in, where
 * decide_groups() waits for each once per group. The groups ahead are
 * only classified and probed: a frame is decided against the FDB as it is
 * when its turn comes (probe_for() checks the key; lookup_probe() walks
 * the chain then). Six frames a group (~400 cycles of decisions) measured
 * as well as eight and keep the ring inside the kernel's 2 KB frame
 * warning; four were ~10 cycles a frame slower at 1M entries.
 */
constexpr unsigned kDeepGroup = 6;

xb_noinline void decide_deep(const Ctx &c, const RxFrame *frames, unsigned n, Verdict *out)
{
	constexpr unsigned G = kDeepGroup;
	constexpr unsigned kStages = 4;		/* groups in flight: a ring */
	/* Per frame in flight only what a later stage needs (the kernel's
	 * stack is small): the source's probe is worked out again, from
	 * cached lines, at decision time. */
	L2Info l2[kStages * G];
	Fdb::Probe dst[kStages * G];
	FdbEntry *const *src_slot[kStages * G];
	const unsigned groups = (n + G - 1) / G;

	auto span = [&](unsigned g) { return batch_group(g, n, G, kStages); };

	for (unsigned step = 0; step < groups + kStages - 1; step++) {
		/* stage 0: classify group `step`, fetch its bucket slots */
		if (step < groups) {
			const BatchGroup s = span(step);
			for (unsigned i = s.slot; i < s.slot + s.count; i++) {
				const RxFrame &f = frames[s.first + i - s.slot];
				classify_l2(f.data, f.len, f.oob, c.host_addr, c.vlan_proto, l2[i]);
				const uint16_t vid = expected_vid(c, f, l2[i]);
				dst[i] = c.fdb.probe(fdb_key(l2[i].dst, vid));
				src_slot[i] = c.fdb.probe(fdb_key(l2[i].src, vid)).slot;
				prefetch(dst[i].slot);
				prefetch(src_slot[i]);
			}
		}
		/* stage 1: the first entries of group step - 1 */
		if (step >= 1 && step - 1 < groups) {
			const BatchGroup s = span(step - 1);
			for (unsigned i = s.slot; i < s.slot + s.count; i++) {
				prefetch(load_once(*dst[i].slot));
				prefetch(load_once(*src_slot[i]));
			}
		}
		/* stage 2: the destination entry, when it is second */
		if (step >= 2 && step - 2 < groups) {
			const BatchGroup s = span(step - 2);
			for (unsigned i = s.slot; i < s.slot + s.count; i++)
				Fdb::prefetch_second(dst[i]);
		}
		/* stage 3: decide group step - 3 */
		if (step >= 3) {
			const BatchGroup s = span(step - 3);
			for (unsigned i = s.slot; i < s.slot + s.count; i++) {
				const unsigned f = s.first + i - s.slot;
				const Probes ahead = {
					dst[i],
					c.fdb.probe(fdb_key(l2[i].src, expected_vid(c, frames[f], l2[i]))),
				};
				decide_l2(c, frames[f], l2[i], &ahead, nullptr, out[f]);
			}
		}
	}
}

} // namespace

void decide(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out)
{
	const Ctx c = make_ctx(br, now);
	L2Info l2;
	classify_l2(frame.data, frame.len, frame.oob, c.host_addr, c.vlan_proto, l2);
	decide_l2(c, frame, l2, nullptr, nullptr, out);
}

bool link_local_stays_on_port(const Bridge &br, const uint8_t dest[6])
{
	const MacKey dst = mac_load8(dest);
	if (xb_likely(!mac_is_link_local(dst)))
		return false;
	const bool filtering = br.vlan_filtering();
	const uint16_t fwd_mask = effective_group_fwd_mask(br, filtering, br.vlan_protocol());
	return !link_local_forwarded(mac_link_local_index(dst), fwd_mask);
}

bool flow_fast_path(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out)
{
	FlowTable *flows = br.flows_rcu();
	if (xb_likely(!flows) || !flows->count() || frame.ingress->is_host)
		return false;
	L2Info l2;
	classify_l2(frame.data, frame.len, frame.oob, br.addr(), br.vlan_protocol(), l2);
	if (l2.status != FrameStatus::Ok)
		return false;
	const nft::Generation *g = br.nft_generation_rcu();
	return flow_hit(br, *flows, g ? g->id : 0, frame, l2, now, nullptr, out);
}

void decide_batch(Bridge &br, const RxFrame *frames, unsigned n, uint32_t now, Verdict *out)
{
	const Ctx c = make_ctx(br, now);
	if (n > kBatchMax)
		n = kBatchMax;
	if (xb_unlikely(c.flows) && c.flows->count())
		decide_groups<8, true>(c, frames, n, out);
	else if (xb_unlikely(c.fdb.prefetch_deep()))
		decide_deep(c, frames, n, out);
	else
		decide_groups<16, false>(c, frames, n, out);
}

unsigned flood_targets(const Bridge &, const Verdict &verdict, Egress *out, unsigned cap)
{
	unsigned n = 0;
	for_each_flood_target(verdict, [&](const Egress &e) {
		if (n < cap)
			out[n++] = e;
	});
	return n;
}

} // namespace xb
