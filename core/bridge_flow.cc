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
 * The key @f arrives with. False when it cannot have a flow: not TCP or
 * UDP over IPv4/IPv6, a fragment, headers conntrack would not accept. The
 * common case - IPv4 without options - is read here directly, as
 * nf_flow_table's hook reads it; anything else goes through conntrack's
 * own parse. Both give the tuple conntrack keys the connection by.
 */
bool key_of(const RxFrame &f, const L2Info &l2, FlowProbe &fp)
{
	FlowKey &k = fp.key;
	k = FlowKey{};
	k.in = f.ingress;
	k.src = l2.src;
	k.dst = l2.dst;
	const uint8_t *p = f.data;
	uint32_t off = 12;
	if (f.oob.present) {
		k.vlan_proto = f.oob.tpid;
		k.vlan_id = f.oob.tci & 0xfff;
	} else if (f.len >= kEthHeaderLen + 4) {
		const uint16_t type = uint16_t(p[12] << 8 | p[13]);
		if (type == kEthP8021Q || type == kEthP8021AD) {
			k.vlan_proto = type;
			k.vlan_id = uint16_t((p[14] << 8 | p[15]) & 0xfff);
			off = 16;
		}
	}
	/* Only the headers may be here (RxFrame::wire_len): the lengths are
	 * checked against the whole frame, the reads against what is here. */
	const uint32_t wire = f.wire_len ? f.wire_len : f.len;
	if (f.len >= off + 2 + 20 && p[off] == 0x08 && p[off + 1] == 0x00 && p[off + 2] == 0x45) {
		const uint8_t *ip = p + off + 2;
		const uint32_t total = uint32_t(ip[2] << 8 | ip[3]);
		const uint8_t proto = ip[9];
		if (total > wire - off - 2 || (ip[6] & 0x3f) || ip[7])
			return false;	/* cut short, or a fragment */
		if (proto == kIpProtoTcp) {
			if (total < 40 || f.len < off + 2 + 34 || (ip[32] >> 4) < 5 ||
			    uint32_t(ip[32] >> 4) * 4 > total - 20)
				return false;
			fp.tcp_flags = ip[33];
		} else if (proto == kIpProtoUdp) {
			if (total < 28 || f.len < off + 2 + 24)
				return false;
			fp.tcp_flags = 0;
		} else {
			return false;
		}
		__builtin_memcpy(k.tuple.src, ip + 12, 4);
		__builtin_memcpy(k.tuple.dst, ip + 16, 4);
		k.tuple.sport = uint16_t(ip[20] << 8 | ip[21]);
		k.tuple.dport = uint16_t(ip[22] << 8 | ip[23]);
		k.tuple.l3 = kCtL3Ipv4;
		k.tuple.l4proto = proto;
		fp.l3_len = total;
		return true;
	}
	CtPacket pkt;
	if (f.wire_len && f.wire_len != f.len)
		return false;	/* conntrack's parse wants the whole packet */
	if (ct_parse(f.data, f.len, f.oob.present, 0, pkt) != CtParse::Ok || pkt.fragment)
		return false;
	if (pkt.tuple.l4proto != kIpProtoTcp && pkt.tuple.l4proto != kIpProtoUdp)
		return false;
	k.tuple = pkt.tuple;
	fp.tcp_flags = pkt.tuple.l4proto == kIpProtoTcp && pkt.l4_len >= 14
			       ? pkt.l3[pkt.l4_off + 13]
			       : 0;
	fp.l3_len = pkt.l3_len;
	return true;
}

const char *name_of(const Port *p)
{
	const char *n = p->ifname.rcu();
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

void flow_probe(const FlowTable &flows, const RxFrame &f, const L2Info &l2, FlowProbe &fp)
{
	fp.keyed = key_of(f, l2, fp);
	if (fp.keyed) {
		fp.bucket = flows.bucket_of(fp.key);
		flows.prefetch_bucket(fp.bucket);
	}
}

bool flow_hit(Bridge &br, FlowTable &flows, uint32_t nft_gen, const RxFrame &f, const L2Info &l2,
	      uint32_t now, const FlowProbe *ahead, Verdict &v)
{
	const BridgeOptions &o = br.opts();
	if (load_once(o.promisc) || load_once(o.vlan_stats))
		return false;
	FlowProbe here;
	if (!ahead) {
		here.keyed = key_of(f, l2, here);
		if (here.keyed)
			here.bucket = flows.bucket_of(here.key);
		ahead = &here;
	}
	if (!ahead->keyed)
		return false;
	FlowDir *d = flows.lookup_in(ahead->key, ahead->bucket);
	if (!d || xb_unlikely(load_once(d->dead)))
		return false;
	const uint64_t stamp = flow_stamp(br.flow_generation(), nft_gen);
	if (xb_unlikely(d->stamp != stamp)) {
		flows.teardown(d->flow, stale_cause(d->stamp, stamp), now);
		return false;
	}
	if (xb_unlikely(ahead->tcp_flags & (kTcpFin | kTcpRst))) {
		flows.teardown(d->flow, FlowTeardown::FinRst, now);
		return false;
	}

	static_cast<VerdictHead &>(v) = VerdictHead();
	v.kind = VerdictKind::Forward;
	v.ingress = f.ingress;
	v.mark = v.local_mark = f.mark;
	v.priority = v.local_priority = f.priority;
	v.local_pkttype = kPkttypeKeep;
	v.vid = d->vid;
	v.tag_proto = br.vlan_protocol();
	v.pcp_dei = l2.pcp_dei;
	v.ct_state = kCtStateEstablished;
	v.out.port = d->out;
	v.out.tag = TagAction(d->tag);

	store_once(d->packets, load_once(d->packets) + 1);
	store_once(d->bytes, load_once(d->bytes) + ahead->l3_len);
	if (xb_unlikely(now - load_once(d->learned) >= kFlowLearnIntervalMs))
		refresh(br, *d, l2, now);
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
	FlowProbe fp;
	if (!key_of(f, l2, fp))
		return;
	const FlowKey &k0 = fp.key;
	if (k0.tuple.l4proto == kIpProtoTcp &&
	    (ct->tcp_state() != kTcpEstablished || (fp.tcp_flags & (kTcpFin | kTcpRst))))
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
