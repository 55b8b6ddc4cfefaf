// SPDX-License-Identifier: GPL-2.0
/*
 * bridge_nft.cc - the bridge's nf_tables hooks (bridge_nft.h): the frame as
 * nf_tables sees it at each hook (nft_do_chain_bridge's pktinfo), and the
 * chains run around conntrack at prerouting.
 *
 * Datapath only (inside the caller's RCU read section), except
 * nft_generation_rcu(), which is the datapath's read of the ruleset.
 */
#include "bridge_nft.h"

#include "bridge.h"
#include "bridge_ct.h"
#include "forward.h"
#include "nft_ruleset.h"

namespace xb {

namespace {

constexpr uint16_t kArphrdEther = 1;
/* NF_IP_PRI_CONNTRACK: where conntrack sits among a hook's chains. */
constexpr int64_t kCtPriority = -200;

enum : uint8_t { kPacketHost = 0, kPacketBroadcast = 1, kPacketMulticast = 2, kPacketOtherhost = 3 };

/*
 * skb->pkt_type at the bridge's hooks: eth_type_trans() on the ingress
 * port (relative to the port's address), then br_handle_frame's
 * PACKET_HOST for the bridge's own address. A frame the bridge device
 * sends keeps the stack's PACKET_HOST (0).
 */
uint8_t pkttype_of(const L2Info &l2, const Port *in)
{
	if (in->is_host)
		return kPacketHost;
	switch (l2.dest_class) {
	case DestClass::Host:
		return kPacketHost;
	case DestClass::Broadcast:
		return kPacketBroadcast;
	case DestClass::Multicast:
		return kPacketMulticast;
	default:
		return l2.dst == in->addr ? kPacketHost : kPacketOtherhost;
	}
}

const char *name_of(const Port *p)
{
	const char *n = p ? p->ifname.rcu() : nullptr;
	return n ? n : "";
}

/*
 * The frame with its outer tag where the kernel keeps it: out of band (the
 * shim hands the skb's hwaccel tag over as RxFrame.oob), or still in the
 * bytes (userspace callers; the kernel's receive path always moves an
 * 802.1Q/802.1ad outer tag out of band before the bridge).
 */
void pkt_frame(const RxFrame &f, nft::Pkt &p)
{
	p.frame = f.data;
	p.len = f.len;
	if (f.oob.present) {
		p.vlan_present = true;
		p.vlan_proto = f.oob.tpid;
		p.vlan_tci = f.oob.tci;
		return;
	}
	if (f.len >= kEthHeaderLen + 4) {
		const uint16_t type = uint16_t(f.data[12] << 8 | f.data[13]);
		if (type == kEthP8021Q || type == kEthP8021AD) {
			p.band_tag_len = 4;
			p.vlan_present = true;
			p.vlan_proto = type;
			p.vlan_tci = uint16_t(f.data[14] << 8 | f.data[15]);
		}
	}
}

/*
 * What prerouting's payload statements changed, for the bridge's decision
 * after the hook and for the environment: the bytes (in place already) and
 * the out-of-band tag. The later hooks read the frame as they left it.
 */
void note_payload_writes(nft::Pkt &p, Verdict &v)
{
	v.frame_written = p.written;
	if (p.tag_written && !p.band_tag_len) {
		v.rx_tag_written = true;
		v.rx_tag = OobTag{p.vlan_present, p.vlan_proto, p.vlan_tci};
	}
	p.written = p.tag_written = false;
}

} // namespace

const nft::Generation *Bridge::nft_generation_rcu() const
{
	const nft::Ruleset *rs = nft_.rcu();
	return rs ? rs->generation() : nullptr;
}

NftHooks nft_hooks(const Bridge &br)
{
	NftHooks h{};
	const nft::Generation *g = br.nft_generation_rcu();
	if (xb_likely(!g))
		return h;
	auto hook = [g](uint32_t n) -> const nft::Hook * {
		return g->hooks[n].count ? &g->hooks[n] : nullptr;
	};
	h.pre = hook(nft::kHookPrerouting);
	h.input = hook(nft::kHookInput);
	h.forward = hook(nft::kHookForward);
	h.output = hook(nft::kHookOutput);
	h.post = hook(nft::kHookPostrouting);
	h.gen_id = g->id;
	h.any = h.pre || h.input || h.forward || h.output || h.post;
	return h;
}

void nft_frame_init(NftFrame &nf, const Bridge &br, const RxFrame &f, const L2Info &l2)
{
	const Port *in = f.ingress;
	nf.bridge_name = name_of(br.host());
	nf.from_host = in->is_host;
	nf.in_if = nft::IfInfo{in->ifindex, name_of(in), kArphrdEther, 0, nf.bridge_name,
			       in->link_kind.rcu()};
	nft::Pkt &p = nf.pkt;
	p = nft::Pkt{};
	pkt_frame(f, p);
	nf.rx_tag_is_bridge_tag = p.band_tag_len && l2.bridge_tagged;
	p.pkttype = pkttype_of(l2, in);
	p.in = nf.from_host ? nullptr : &nf.in_if;
	p.bridge_vlan_enabled = br.vlan_filtering();
	p.in_pvid = in->vlans.pvid();
	p.bridge_vlan_proto = br.vlan_protocol();
	p.mark = f.mark;
	p.priority = f.priority;
	p.now_ns = xb_now_ns();
	p.cookie = f.cookie;
	p.in_forwarding = in->port_state() == PortState::Forwarding;
	p.csum_partial = f.csum_partial;
	nf.writable = f.writable;
	nf.copy_writes = f.writable ? f.copy_writes : nullptr;
	nft::pkt_init(p);
}

NftOutcome nft_bridge_pre(const nft::Hook &pre, NftFrame &nf, Conntrack *ct, const RxFrame &f,
			  uint32_t now, CtResult *r, Verdict &v)
{
	nft::Pkt &p = nf.pkt;
	const uint8_t arrived_pkttype = p.pkttype;
	p.hook = nft::kHookPrerouting;
	p.wframe = nf.writable;		/* in place: the frame is one copy yet */
	if (nft::run_hook(pre, p, INT64_MIN, kCtPriority) == nft::kNfDrop) {
		v.mark = p.mark;
		v.priority = p.priority;
		return NftOutcome::Drop;
	}
	if (ct && r) {
		if (xb_unlikely(p.notrack)) {
			/* nf_conntrack_in passes an UNTRACKED skb by */
			r->state = kCtStateUntracked;
			v.ct_state = kCtStateUntracked;
		} else if (!ct_bridge_pre(*ct, f, now, p.ct_zone, *r, v)) {
			return NftOutcome::CtDrop;
		}
		p.ct = r;
		p.conntrack = ct;
	}
	const int32_t verdict = nft::run_hook(pre, p, kCtPriority, INT64_MAX);
	v.mark = p.mark;
	v.priority = p.priority;
	if (xb_unlikely(p.pkttype != arrived_pkttype))	/* meta pkttype set */
		v.local_pkttype = p.pkttype;
	if (xb_unlikely(p.written || p.tag_written))
		note_payload_writes(p, v);
	return verdict == nft::kNfDrop ? NftOutcome::Drop : NftOutcome::Accept;
}

namespace {

/*
 * The copy's link layer after br_handle_vlan: with VLAN filtering, the
 * bridge's tag is out of band (or gone, for an untagged egress) and an
 * in-band tag of another TPID is payload; without it, the frame as it came.
 */
void egress_view(const NftFrame &nf, const Verdict &v, TagAction tag, nft::Pkt &p)
{
	if (tag == TagAction::Keep)
		return;
	p.band_tag_len = nf.rx_tag_is_bridge_tag ? 4 : 0;
	p.vlan_present = tag == TagAction::Tag;
	p.vlan_proto = v.tag_proto;
	p.vlan_tci = uint16_t(v.vid | v.pcp_dei << 12);
	nft::pkt_init(p);
}

/*
 * A copy's chains may write its bytes (payload statements): on the shared
 * bytes, recorded for @copy (nft_payload_write.h). Returns where its
 * records start.
 */
uint32_t copy_writes_begin(const NftFrame &nf, const Port *copy, nft::Pkt &p)
{
	p.wframe = nf.copy_writes ? nf.writable : nullptr;
	p.copy_writes = nf.copy_writes;
	p.copy = copy;
	p.written = p.tag_written = false;
	return nf.copy_writes ? nf.copy_writes->count : 0;
}

/* The copy's chains are done (@pass: none dropped it): the shared bytes
 * as prerouting left them again. */
bool copy_writes_done(nft::Pkt &p, uint32_t first, bool pass)
{
	if (xb_unlikely(p.copy_writes && p.copy_writes->count > first))
		nft::copy_writes_end(p, first, pass);
	return pass;
}

} // namespace

bool nft_bridge_egress(const NftHooks &h, const NftFrame &nf, const Verdict &v, const Port *out,
		       TagAction tag, SkbMeta &meta, const void **offload)
{
	const nft::Hook *first = nf.from_host ? h.output : h.forward;
	const nft::IfInfo out_if{out->ifindex, name_of(out), kArphrdEther, 0, nf.bridge_name,
				 out->link_kind.rcu()};
	nft::Pkt p = nf.pkt;
	egress_view(nf, v, tag, p);
	p.out = &out_if;
	p.hook = uint8_t(nf.from_host ? nft::kHookOutput : nft::kHookForward);
	const uint32_t writes = copy_writes_begin(nf, out, p);
	if (first && nft::run_hook(*first, p) == nft::kNfDrop)
		return copy_writes_done(p, writes, false);
	if (h.post) {
		p.in = nullptr;		/* br_forward_finish: NF_HOOK(..., NULL, skb->dev) */
		p.hook = nft::kHookPostrouting;
		if (nft::run_hook(*h.post, p) == nft::kNfDrop)
			return copy_writes_done(p, writes, false);
	}
	meta = SkbMeta{p.mark, p.priority};
	if (offload)
		*offload = p.offload;
	return copy_writes_done(p, writes, true);
}

bool nft_bridge_input(const NftHooks &h, const NftFrame &nf, const Verdict &v, SkbMeta &meta)
{
	nft::Pkt p = nf.pkt;
	egress_view(nf, v, v.local.tag, p);
	p.hook = nft::kHookInput;
	const uint32_t writes = copy_writes_begin(nf, nullptr, p);
	if (h.input && nft::run_hook(*h.input, p) == nft::kNfDrop)
		return copy_writes_done(p, writes, false);
	meta = SkbMeta{p.mark, p.priority};
	return copy_writes_done(p, writes, true);
}

} // namespace xb
