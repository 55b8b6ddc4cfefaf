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

/* eth_type_trans() on the ingress port: relative to the port's address. */
uint8_t pkttype_at_port(const L2Info &l2, const Port *in)
{
	if (l2.dest_class == DestClass::Broadcast)
		return kPacketBroadcast;
	if (l2.dest_class == DestClass::Multicast)
		return kPacketMulticast;
	return l2.dst == in->addr ? kPacketHost : kPacketOtherhost;
}

const char *name_of(const Port *p)
{
	const char *n = p ? rcu_deref(p->ifname) : nullptr;
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

} // namespace

const nft::Generation *Bridge::nft_generation_rcu() const
{
	const nft::Ruleset *rs = rcu_deref(nft_);
	return rs ? rs->generation() : nullptr;
}

NftOutcome nft_bridge_pre(const nft::Hook &pre, const Bridge &br, Conntrack *ct,
			  const RxFrame &f, const L2Info &l2, uint32_t now, CtResult *r,
			  Verdict &v)
{
	const Port *in = f.ingress;
	const nft::IfInfo in_if{in->ifindex, name_of(in), kArphrdEther, 0, name_of(br.host())};
	nft::Pkt p{};
	pkt_frame(f, p);
	p.pkttype = pkttype_at_port(l2, in);
	p.in = &in_if;
	p.bridge_vlan_enabled = br.vlan_filtering();
	p.in_pvid = in->vlans.pvid();
	p.bridge_vlan_proto = br.vlan_protocol();
	p.now_ns = xb_now_ns();
	nft::pkt_init(p);

	if (nft::run_hook(pre, p, INT64_MIN, kCtPriority) == nft::kNfDrop) {
		v.mark = p.mark;
		return NftOutcome::Drop;
	}
	if (ct && r) {
		if (!ct_bridge_pre(*ct, f, now, p.ct_zone, *r, v))
			return NftOutcome::CtDrop;
		p.ct = r;
	}
	const int32_t verdict = nft::run_hook(pre, p, kCtPriority, INT64_MAX);
	v.mark = p.mark;
	return verdict == nft::kNfDrop ? NftOutcome::Drop : NftOutcome::Accept;
}

} // namespace xb
