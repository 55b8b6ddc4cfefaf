// SPDX-License-Identifier: GPL-2.0
/*
 * bridge_flow.cc - the bridge flowtable's two datapath steps: adding a
 * connection's flow after its forward chains asked for it, and forwarding
 * a frame that hits one. Context and what makes a flow stale as in
 * bridge_flow.h.
 */
#include "bridge_flow.h"

#include "bridge.h"
#include "nft_ruleset.h"

namespace xb {

namespace {

constexpr uint8_t kTcpFin = 0x01;
constexpr uint8_t kTcpRst = 0x04;

/*
 * The key @f arrives with, and its packet as conntrack parses it. False
 * when it cannot have a flow: not TCP or UDP over IPv4/IPv6, a fragment,
 * headers conntrack would not accept.
 */
bool key_of(const RxFrame &f, const L2Info &l2, FlowKey &k, CtPacket &pkt)
{
	if (ct_parse(f.data, f.len, f.oob.present, 0, pkt) != CtParse::Ok || pkt.fragment)
		return false;
	if (pkt.tuple.l4proto != kIpProtoTcp && pkt.tuple.l4proto != kIpProtoUdp)
		return false;
	k = FlowKey{};
	k.tuple = pkt.tuple;
	k.in = f.ingress;
	k.src = l2.src;
	k.dst = l2.dst;
	if (f.oob.present) {
		k.vlan_proto = f.oob.tpid;
		k.vlan_id = f.oob.tci & 0xfff;
	} else if (f.len >= kEthHeaderLen + 4) {
		const uint16_t type = uint16_t(f.data[12] << 8 | f.data[13]);
		if (type == kEthP8021Q || type == kEthP8021AD) {
			k.vlan_proto = type;
			k.vlan_id = uint16_t((f.data[14] << 8 | f.data[15]) & 0xfff);
		}
	}
	return true;
}

uint8_t tcp_flags(const CtPacket &p)
{
	return p.l4_len >= 14 ? p.l3[p.l4_off + 13] : 0;
}

const char *name_of(const Port *p)
{
	const char *n = rcu_deref(p->ifname);
	return n ? n : "";
}

/*
 * Once a second per direction: the flow's timeout, and the sender's FDB
 * entry, as learning on each frame would keep it (where the ingress port
 * learns at all).
 */
void refresh(Bridge &br, FlowDir &d, const L2Info &l2, uint32_t now)
{
	store_once(d.learned, now);
	store_once(d.flow->expires, now + kFlowTimeoutMs);
	Port *in = const_cast<Port *>(d.key.in);
	if (!in->has_flag(kPortLearning))
		return;
	FdbDest dest = FdbDest::to_port(in);
	if (br.vlan_filtering() && load_once(br.opts().fdb_cache_vlan)) {
		PortVlan *pv = in->vlans.find(d.vid);
		if (pv)
			dest = FdbDest::to_vlan(pv);
	}
	br.fdb().learn(dest, l2.src, d.vid, now, 0);
}

} // namespace

bool flow_hit(Bridge &br, FlowTable &flows, uint32_t nft_gen, const RxFrame &f, const L2Info &l2,
	      uint32_t now, Verdict &v)
{
	const BridgeOptions &o = br.opts();
	if (load_once(o.promisc) || load_once(o.vlan_stats))
		return false;
	FlowKey k;
	CtPacket pkt;
	if (!key_of(f, l2, k, pkt))
		return false;
	FlowDir *d = flows.lookup(k);
	if (!d || xb_unlikely(load_once(d->dead)))
		return false;
	if (xb_unlikely(d->stamp != flow_stamp(br.flow_generation(), nft_gen))) {
		flows.teardown(d->flow, FlowTeardown::Stale, now);
		return false;
	}
	if (pkt.tuple.l4proto == kIpProtoTcp && (tcp_flags(pkt) & (kTcpFin | kTcpRst))) {
		flows.teardown(d->flow, FlowTeardown::FinRst, now);
		return false;
	}

	static_cast<VerdictHead &>(v) = VerdictHead();
	v.kind = VerdictKind::Forward;
	v.ingress = f.ingress;
	v.vid = d->vid;
	v.tag_proto = br.vlan_protocol();
	v.pcp_dei = l2.pcp_dei;
	v.ct_state = kCtStateEstablished;
	v.out.port = d->out;
	v.out.tag = TagAction(d->tag);

	store_once(d->packets, load_once(d->packets) + 1);
	store_once(d->bytes, load_once(d->bytes) + pkt.l3_len);
	if (xb_unlikely(now - load_once(d->learned) >= kFlowLearnIntervalMs))
		refresh(br, *d, l2, now);
	counter_add(flows.stats_this_cpu()->hits, 1);
	return true;
}

void flow_offload(Bridge &br, FlowTable &flows, uint32_t nft_gen, const void *flowtable,
		  const RxFrame &f, const L2Info &l2, const CtResult &r, const Verdict &v,
		  uint32_t now)
{
	/* Read first: a change from here on makes the new flow stale. */
	const uint32_t gen = br.flow_generation();
	CtEntry *ct = r.entry;

	/* nft_flow_offload_eval: a confirmed connection, not offloaded yet */
	if (!ct || r.unconfirmed || (ct->status_bits() & (kCtOffload | kCtDying)))
		return;
	if (load_once(br.opts().promisc) || load_once(br.opts().vlan_stats))
		return;
	FlowKey k0;
	CtPacket pkt;
	if (!key_of(f, l2, k0, pkt))
		return;
	if (pkt.tuple.l4proto == kIpProtoTcp &&
	    (ct->tcp_state() != kTcpEstablished || (tcp_flags(pkt) & (kTcpFin | kTcpRst))))
		return;

	Port *in = f.ingress;
	Port *out = v.out.port;
	if (in == out || in->is_host)
		return;
	const auto *ft = static_cast<const nft::FlowtableObj *>(flowtable);
	if (!ft->has_device(name_of(in)) || !ft->has_device(name_of(out)))
		return;

	/* The reply arrives on @out tagged as this copy leaves it... */
	FlowKey k1 = FlowKey{};
	if (!ct_invert_tuple(k0.tuple, k1.tuple))
		return;
	k1.tuple.zone = 0;
	k1.in = out;
	k1.src = l2.dst;
	k1.dst = l2.src;
	switch (v.out.tag) {
	case TagAction::Tag:
		k1.vlan_proto = v.tag_proto;
		k1.vlan_id = v.vid;
		break;
	case TagAction::Untag:
		if (out->vlans.pvid() != v.vid)
			return;	/* untagged, it would be in another VLAN */
		break;
	case TagAction::Keep:
		k1.vlan_proto = k0.vlan_proto;
		k1.vlan_id = k0.vlan_id;
		break;
	}
	/* ...and leaves through @in as the slow path would send it. */
	TagAction back = TagAction::Keep;
	if (in->port_state() != PortState::Forwarding)
		return;
	if ((in->flag_bits() & kPortIsolated) && (out->flag_bits() & kPortIsolated))
		return;
	if (br.vlan_filtering()) {
		PortVlan *pv = in->vlans.find(v.vid);
		if (!pv || PortState(load_once(pv->state)) != PortState::Forwarding)
			return;
		back = (load_once(pv->flags) & kVlanUntagged) ? TagAction::Untag : TagAction::Tag;
	}
	/* Both destinations are what the FDB says, and stay pinned to it. */
	if (!br.fdb().pin_for_flow(l2.dst, v.vid, out) || !br.fdb().pin_for_flow(l2.src, v.vid, in))
		return;

	Flow *fl = flows.alloc();
	if (!fl)
		return;
	fl->d[0].key = k0;
	fl->d[0].out = out;
	fl->d[0].tag = uint8_t(v.out.tag);
	fl->d[0].ct_dir = r.dir;
	fl->d[0].vid = v.vid;
	fl->d[1].key = k1;
	fl->d[1].out = in;
	fl->d[1].tag = uint8_t(back);
	fl->d[1].ct_dir = uint8_t(!r.dir);
	fl->d[1].vid = v.vid;
	fl->ct = ct;
	fl->flowtable = flowtable;
	fl->d[0].stamp = flow_stamp(gen, nft_gen);
	fl->zone = ct->tuple.zone;
	flows.add(fl, now);
}

} // namespace xb
