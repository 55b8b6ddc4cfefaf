// SPDX-License-Identifier: GPL-2.0
/*
 * forward.cc - the forwarding decision.
 *
 * Runs in the datapath: the caller holds an RCU read section; nothing here
 * allocates or sleeps, and the FDB lock is taken only inside Fdb::learn()
 * to create or roam an entry. Every Verdict field is written for every
 * frame (the verdict starts zeroed), so a recycled Verdict never carries
 * the previous frame's decision.
 *
 * The steps mirror the Linux bridge (br_handle_frame, br_handle_frame_finish,
 * br_dev_xmit, br_forward, br_flood): see Documentation/design.md.
 */
#include "forward.h"

namespace xb {

namespace {

/* What the decision needs to know about a frame besides the frame. */
struct Ingress {
	Port *port;
	PortVlan *vlan;		/* ingress port VLAN (filtering on) */
	uint16_t vid;
	PortState state;	/* port state, or the VLAN's when it overrides */
	bool filtering;
	bool cache_vlan;
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

inline void count_vlan(PortVlan *v, uint32_t bytes, bool rx)
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
inline bool vlan_ingress(const FrameInfo &fi, Ingress &in, bool check_state, Verdict &v)
{
	uint16_t vid = fi.vid;
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
inline bool host_allowed(const Bridge &br, bool filtering, Verdict &v)
{
	Port *host = br.host();
	v.local.port = host;
	if (!filtering) {
		v.local.tag = TagAction::Keep;
		return true;
	}
	PortVlan *vlan = host->vlans.find(v.vid);
	bool promisc = load_once(br.opts().promisc);
	if (xb_unlikely(!vlan || (!promisc && !vlan_forwarding(vlan)))) {
		v.local.tag = TagAction::Tag;
		return promisc;
	}
	v.local.tag = tag_action(vlan);
	return true;
}

inline FdbDest learn_dest(const Ingress &in)
{
	if (in.vlan && in.cache_vlan)
		return FdbDest::to_vlan(in.vlan);
	return FdbDest::to_port(in.port);
}

inline void deliver_local_only(const Bridge &br, const Ingress &in, Verdict &v)
{
	if (host_allowed(br, in.filtering, v))
		v.kind = VerdictKind::Local;
	else
		set_drop(v, DropReason::HostVlan);
}

/* Unicast to an FDB hit that is not local (br_forward). */
inline void forward_to(const Bridge &br, const Ingress &in, FdbEntry *e, uint32_t now,
		       bool local_rcv, uint32_t len, Verdict &v)
{
	if (load_once(e->used) != now)
		store_once(e->used, now);

	DecodedDest d = decode_dest(e->destination());
	PortVlan *cached = in.cache_vlan ? d.vlan : nullptr;
	TagAction tag;
	if (xb_likely(egress_allowed(v, in.filtering, d.port, cached, tag))) {
		v.kind = VerdictKind::Forward;
		v.out.port = d.port;
		v.out.tag = tag;
		if (local_rcv)
			v.local_too = host_allowed(br, in.filtering, v);
		if (xb_unlikely(br.opts().vlan_stats) && in.filtering) {
			PortVlan *ev = cached ? cached : d.port->vlans.find(in.vid);
			if (ev)
				count_vlan(ev, len, false);
		}
		return;
	}
	if (local_rcv)
		deliver_local_only(br, in, v);
	else
		set_drop(v, DropReason::NoEgress);
}

inline void flood(FloodClass cls, bool local_rcv, const Bridge &br, const Ingress &in,
		  Verdict &v)
{
	v.kind = VerdictKind::Flood;
	v.flood_class = cls;
	if (local_rcv)
		v.local_too = host_allowed(br, in.filtering, v);
}

/* A frame the bridge device sends (br_dev_xmit). */
void decide_from_host(Bridge &br, const FrameInfo &fi, Ingress &in, uint32_t now,
		      uint32_t len, Verdict &v)
{
	if (in.filtering && !vlan_ingress(fi, in, false, v))
		return;
	v.vid = in.vid;

	if (fi.dest_class == DestClass::Broadcast) {
		flood(FloodClass::Broadcast, false, br, in, v);
		return;
	}
	if (fi.dest_class == DestClass::Multicast) {
		flood(FloodClass::Multicast, false, br, in, v);
		return;
	}
	FdbEntry *e = br.fdb().lookup(fi.dst, in.vid);
	if (!e) {
		flood(FloodClass::Unicast, false, br, in, v);
		return;
	}
	if (e->destination().port()->is_host) {
		set_drop(v, DropReason::NoEgress);	/* to ourselves */
		return;
	}
	forward_to(br, in, e, now, false, len, v);
}

/* Link-local groups that are not forwarded: learn, pass up the port. */
void link_local_to_port(Bridge &br, const FrameInfo &fi, Ingress &in, uint32_t now,
			Verdict &v)
{
	v.kind = VerdictKind::PortStack;
	if (!in.port->has_flag(kPortLearning) || !state_accepts_ingress(in.state))
		return;
	if (in.filtering) {
		/* br_should_learn: not under a foreign outer tag, and only in a
		 * VLAN the port is a member of. */
		Verdict scratch = v;
		if (fi.n_encap && !fi.bridge_tagged)
			return;
		if (!vlan_ingress(fi, in, false, scratch))
			return;
	}
	br.fdb().learn(learn_dest(in), fi.src, in.vid, now, 0);
}

void decide_classified(Bridge &br, const RxFrame &frame, const FrameInfo &fi, uint32_t now,
		       Verdict &v)
{
	v = Verdict();
	v.ingress = frame.ingress;
	v.tag_proto = br.vlan_protocol();
	v.pcp = fi.pcp;

	if (xb_unlikely(fi.status != FrameStatus::Ok)) {
		set_drop(v, DropReason::Truncated);
		port_count_drop(frame.ingress, v.reason);
		return;
	}

	Ingress in;
	in.port = frame.ingress;
	in.vlan = nullptr;
	in.vid = 0;
	in.state = in.port->port_state();
	in.filtering = br.vlan_filtering();
	in.cache_vlan = load_once(br.opts().fdb_cache_vlan);

	if (xb_unlikely(in.port->is_host)) {
		decide_from_host(br, fi, in, now, frame.len, v);
		if (v.kind == VerdictKind::Drop)
			port_count_drop(frame.ingress, v.reason);
		return;
	}

	const uint32_t port_flags = in.port->flag_bits();
	bool local_rcv = load_once(br.opts().promisc);
	FloodClass cls = FloodClass::Unicast;

	if (xb_unlikely(!fi.src_valid)) {
		set_drop(v, DropReason::SourceInvalid);
		goto drop;
	}
	if (xb_unlikely(fi.link_local)) {
		uint8_t group = fi.link_local_index;
		if (group == 1) {
			set_drop(v, DropReason::LinkLocalPause);
			goto drop;
		}
		/* Group 0 (STP): xbridge runs no STP, so it is forwarded. */
		if (group != 0 && !(load_once(br.opts().group_fwd_mask) & (1u << group))) {
			link_local_to_port(br, fi, in, now, v);
			return;
		}
	}
	if (xb_unlikely(!state_accepts_ingress(in.state))) {
		set_drop(v, DropReason::PortState);
		goto drop;
	}
	if (in.filtering) {
		if (!vlan_ingress(fi, in, true, v))
			goto drop;
		if (xb_unlikely(br.opts().vlan_stats))
			count_vlan(in.vlan, frame.len, true);
	}
	v.vid = in.vid;

	if (xb_unlikely(port_flags & kPortLocked)) {
		FdbEntry *src = br.fdb().lookup(fi.src, in.vid);
		if (!src) {
			if (port_flags & kPortMab)
				br.fdb().learn(learn_dest(in), fi.src, in.vid, now, kFdbLocked);
			set_drop(v, DropReason::LockedPort);
			goto drop;
		}
		uint16_t sflags = src->flag_bits();
		if (src->destination().port() != in.port || (sflags & kFdbLocal)) {
			set_drop(v, DropReason::LockedPort);
			goto drop;
		}
		if (sflags & kFdbLocked) {
			br.fdb().learn(learn_dest(in), fi.src, in.vid, now, kFdbLocked);
			set_drop(v, DropReason::LockedPort);
			goto drop;
		}
	}

	if (xb_likely(port_flags & kPortLearning))
		br.fdb().learn(learn_dest(in), fi.src, in.vid, now, 0);

	if (fi.dest_class == DestClass::Broadcast) {
		cls = FloodClass::Broadcast;
		local_rcv = true;
	} else if (fi.dest_class == DestClass::Multicast) {
		cls = FloodClass::Multicast;
		local_rcv = true;	/* no snooping: everyone, us included */
	}

	if (xb_unlikely(in.state == PortState::Learning)) {
		set_drop(v, DropReason::LearningOnly);
		goto drop;
	}
	v.src_isolated = port_flags & kPortIsolated;

	if (cls == FloodClass::Unicast) {
		FdbEntry *e = br.fdb().lookup(fi.dst, in.vid);
		if (e) {
			if (xb_unlikely(e->flag_bits() & kFdbLocal)) {
				deliver_local_only(br, in, v);
				if (v.kind == VerdictKind::Drop)
					goto drop;
				return;
			}
			forward_to(br, in, e, now, local_rcv, frame.len, v);
			if (v.kind == VerdictKind::Drop)
				goto drop;
			return;
		}
	}
	flood(cls, local_rcv, br, in, v);
	return;

drop:
	port_count_drop(in.port, v.reason);
}

inline ClassifyParams classify_params(const Bridge &br)
{
	ClassifyParams params;
	params.host_addr = br.addr();
	params.vlan_protocol = br.vlan_protocol();
	params.parse_l3 = false;
	return params;
}

} // namespace

void decide(Bridge &br, const RxFrame &frame, uint32_t now, Verdict &out)
{
	FrameInfo fi;
	classify_frame(frame.data, frame.len, frame.oob, classify_params(br), fi);
	decide_classified(br, frame, fi, now, out);
}

/*
 * Batches are decided in groups small enough for a kernel stack: classify
 * every frame of a group and prefetch the FDB buckets its lookups will
 * touch (destination, and source for learning), then decide each frame.
 */
void decide_batch(Bridge &br, const RxFrame *frames, unsigned n, uint32_t now, Verdict *out)
{
	constexpr unsigned kGroup = 16;
	FrameInfo fi[kGroup];
	const ClassifyParams params = classify_params(br);
	const bool filtering = br.vlan_filtering();
	const Fdb &fdb = br.fdb();

	if (n > kBatchMax)
		n = kBatchMax;
	for (unsigned base = 0; base < n; base += kGroup) {
		unsigned count = n - base < kGroup ? n - base : kGroup;

		for (unsigned i = 0; i < count; i++) {
			const RxFrame &f = frames[base + i];
			classify_frame(f.data, f.len, f.oob, params, fi[i]);
			uint16_t vid = 0;
			if (filtering) {
				vid = fi[i].vid;
				if (!vid)
					vid = f.ingress->vlans.pvid();
			}
			prefetch(fdb.bucket_address(fdb_key(fi[i].dst, vid)));
			prefetch(fdb.bucket_address(fdb_key(fi[i].src, vid)));
		}
		for (unsigned i = 0; i < count; i++)
			decide_classified(br, frames[base + i], fi[i], now, out[base + i]);
	}
}

unsigned flood_targets(const Bridge &br, const Verdict &verdict, Egress *out, unsigned cap)
{
	unsigned n = 0;
	for_each_flood_target(br, verdict, [&](const Egress &e) {
		if (n < cap)
			out[n++] = e;
	});
	return n;
}

} // namespace xb
