// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_frag.c - fragments around the bridge's conntrack (see
 * xbridge_frag.h for ownership and context).
 *
 * What nf_conntrack_bridge does while bridge conntrack is in use, and so
 * what this does while the bridge's conntrack is on:
 *  - at prerouting, every IPv4/IPv6 packet is trimmed to its IP length
 *    (the link layer's padding goes), then fragments are queued in the
 *    kernel's own reassembly (ip_defrag, nf_ct_frag6_gather; user "bridge
 *    in", zone 0) and the datagram goes on whole, so that conntrack and the
 *    rules see one packet; the largest fragment's size is kept with it;
 *  - at postrouting, a packet that carries that size is sent as fragments
 *    again: its original fragments when its geometry survived (nothing
 *    cloned or shared it), else fragments of at most that size. IPv4 keeps
 *    the datagram's identification; IPv6 gets a new one (ipv6_select_ident),
 *    as on Linux. A fragment larger than the egress MTU drops the packet.
 * The copy that goes up the bridge device stays whole, as on Linux.
 */
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_frag.h>
#if IS_ENABLED(CONFIG_NF_DEFRAG_IPV6)
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>
#endif

#include "xbridge_frag.h"

/* What each fragment needs back in front of its network header. */
struct xbr_l2 {
	u8 mac[ETH_HLEN];
	bool vlan_present;
	__be16 vlan_proto;
	u16 vlan_tci;
};

typedef void (*xbr_xmit_fn)(struct sk_buff *skb, void *ctx);

static int xbr_defrag4(struct sk_buff *skb)
{
	const struct iphdr *iph;
	u16 frag_max;
	u32 len;
	int err;

	if (!pskb_may_pull(skb, sizeof(*iph)))
		return 0;
	len = ntohs(ip_hdr(skb)->tot_len);
	if (pskb_trim_rcsum(skb, len))
		return 0;
	iph = ip_hdr(skb);
	/* A bad header is conntrack's to judge (invalid), whole. */
	if (iph->ihl < 5 || iph->version != 4 || len < iph->ihl * 4 ||
	    skb->len < skb_network_offset(skb) + len)
		return 0;
	if (!ip_is_fragment(iph))
		return 0;

	memset(skb->cb, 0, sizeof(struct inet_skb_parm));	/* ip_defrag's IPCB */
	local_bh_disable();
	err = ip_defrag(dev_net(skb->dev), skb, IP_DEFRAG_CONNTRACK_BRIDGE_IN);
	local_bh_enable();
	if (err)
		return err;		/* queued, or freed */
	frag_max = IPCB(skb)->frag_max_size;
	memset(skb->cb, 0, sizeof(struct xbr_skb_cb));
	xbr_skb_cb(skb)->frag_max_size = frag_max;
	skb->ignore_df = 1;
	return 0;
}

static int xbr_defrag6(struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_NF_DEFRAG_IPV6)
	u16 frag_max;
	u32 len;
	int err;

	if (!pskb_may_pull(skb, sizeof(struct ipv6hdr)))
		return 0;
	len = sizeof(struct ipv6hdr) + ntohs(ipv6_hdr(skb)->payload_len);
	if (pskb_trim_rcsum(skb, len))
		return 0;
	if (ipv6_hdr(skb)->version != 6 || skb->len < skb_network_offset(skb) + len)
		return 0;

	memset(skb->cb, 0, sizeof(struct inet6_skb_parm));	/* IP6CB */
	err = nf_ct_frag6_gather(dev_net(skb->dev), skb, IP6_DEFRAG_CONNTRACK_BRIDGE_IN);
	if (err == -EINPROGRESS)
		return err;		/* queued */
	frag_max = IP6CB(skb)->frag_max_size;
	memset(skb->cb, 0, sizeof(struct xbr_skb_cb));
	if (err) {
		kfree_skb(skb);		/* nf_conntrack_bridge: NF_DROP */
		return err;
	}
	xbr_skb_cb(skb)->frag_max_size = frag_max;
	return 0;
#else
	return 0;
#endif
}

int xbr_defrag(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct xbr_skb_cb) > sizeof_field(struct sk_buff, cb));

	switch (skb->protocol) {
	case htons(ETH_P_IP):
		return xbr_defrag4(skb);
	case htons(ETH_P_IPV6):
		return xbr_defrag6(skb);
	default:
		return 0;
	}
}

/* Put the link layer back on a fragment (data at its network header) and send it. */
static void xbr_frag_out(struct sk_buff *frag, const struct xbr_l2 *l2, xbr_xmit_fn xmit, void *ctx)
{
	if (skb_cow_head(frag, ETH_HLEN)) {
		kfree_skb(frag);
		return;
	}
	if (l2->vlan_present)
		__vlan_hwaccel_put_tag(frag, l2->vlan_proto, l2->vlan_tci);
	else
		__vlan_hwaccel_clear_tag(frag);
	__skb_push(frag, ETH_HLEN);
	skb_copy_to_linear_data(frag, l2->mac, ETH_HLEN);
	skb_reset_mac_header(frag);
	xmit(frag, ctx);
}

/* Whether @skb's frag_list fragments can go out as they came in. */
static bool xbr_frag_list_reusable(struct sk_buff *skb, unsigned int hlen,
				   unsigned int headroom, unsigned int mtu, bool *too_big)
{
	struct sk_buff *frag;

	*too_big = skb_pagelen(skb) - hlen > mtu;
	if (*too_big || skb_cloned(skb) || skb_headroom(skb) < headroom)
		return false;
	skb_walk_frags(skb, frag) {
		if (frag->len > mtu) {
			*too_big = true;
			return false;
		}
		if (skb_shared(frag) || skb_headroom(frag) < hlen + headroom)
			return false;
	}
	return true;
}

static void xbr_refrag4(struct sk_buff *skb, unsigned int frag_max, const struct xbr_l2 *l2,
			xbr_xmit_fn xmit, void *ctx)
{
	unsigned int hlen, ll_rs, mtu;
	struct ip_frag_state state;
	bool too_big;

	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		goto drop;
	hlen = ip_hdr(skb)->ihl * 4;
	if (frag_max < hlen + 8)
		goto drop;
	ll_rs = LL_RESERVED_SPACE(skb->dev);
	mtu = skb->dev->mtu;

	if (skb_has_frag_list(skb)) {
		struct ip_fraglist_iter iter;

		if (xbr_frag_list_reusable(skb, hlen, ll_rs, mtu, &too_big)) {
			ip_fraglist_init(skb, ip_hdr(skb), hlen, &iter);
			for (;;) {
				struct sk_buff *next_skb;

				if (iter.frag)
					ip_fraglist_prepare(skb, &iter);
				next_skb = iter.frag ? ip_fraglist_next(&iter) : NULL;
				xbr_frag_out(skb, l2, xmit, ctx);
				if (!next_skb)
					return;
				skb = next_skb;
			}
		}
		if (too_big)
			goto drop;
	}

	/* Linear, cloned or shared: new fragments of at most frag_max bytes. */
	ip_frag_init(skb, hlen, ll_rs, frag_max - hlen, false, &state);
	while (state.left > 0) {
		struct sk_buff *frag = ip_frag_next(skb, &state);

		if (IS_ERR(frag))
			goto drop;
		xbr_frag_out(frag, l2, xmit, ctx);
	}
	consume_skb(skb);
	return;
drop:
	kfree_skb(skb);
}

static void xbr_refrag6(struct sk_buff *skb, unsigned int frag_max, const struct xbr_l2 *l2,
			xbr_xmit_fn xmit, void *ctx)
{
	unsigned int hlen, mtu, hroom, nexthdr_offset;
	struct ip6_frag_state state;
	u8 *prevhdr, nexthdr;
	__be32 frag_id;
	bool too_big;
	int err;

	err = ip6_find_1stfragopt(skb, &prevhdr);
	if (err < 0)
		goto drop;
	hlen = err;
	nexthdr = *prevhdr;
	nexthdr_offset = prevhdr - skb_network_header(skb);

	if (frag_max > skb->dev->mtu || frag_max < IPV6_MIN_MTU ||
	    frag_max < hlen + sizeof(struct frag_hdr) + 8)
		goto drop;
	mtu = frag_max - hlen - sizeof(struct frag_hdr);
	frag_id = ipv6_select_ident(dev_net(skb->dev), &ipv6_hdr(skb)->daddr,
				    &ipv6_hdr(skb)->saddr);
	if (skb->ip_summed == CHECKSUM_PARTIAL && skb_checksum_help(skb))
		goto drop;
	prevhdr = skb_network_header(skb) + nexthdr_offset;	/* after a copy */
	hroom = LL_RESERVED_SPACE(skb->dev);

	if (skb_has_frag_list(skb)) {
		struct ip6_fraglist_iter iter;

		if (xbr_frag_list_reusable(skb, hlen, hroom + sizeof(struct frag_hdr), mtu,
					   &too_big)) {
			if (ip6_fraglist_init(skb, hlen, prevhdr, nexthdr, frag_id, &iter) < 0)
				goto drop;
			for (;;) {
				struct sk_buff *next_skb;

				if (iter.frag)
					ip6_fraglist_prepare(skb, &iter);
				next_skb = iter.frag ? ip6_fraglist_next(&iter) : NULL;
				xbr_frag_out(skb, l2, xmit, ctx);
				if (!next_skb)
					break;
				skb = next_skb;
			}
			kfree(iter.tmp_hdr);
			return;
		}
		if (too_big)
			goto drop;
	}

	ip6_frag_init(skb, hlen, mtu, skb->dev->needed_tailroom, hroom, prevhdr, nexthdr,
		      frag_id, &state);
	while (state.left > 0) {
		struct sk_buff *frag = ip6_frag_next(skb, &state);

		if (IS_ERR(frag))
			goto drop;
		xbr_frag_out(frag, l2, xmit, ctx);
	}
	consume_skb(skb);
	return;
drop:
	kfree_skb(skb);
}

void xbr_refrag(struct sk_buff *skb, xbr_xmit_fn xmit, void *ctx)
{
	unsigned int frag_max = xbr_skb_cb(skb)->frag_max_size;
	struct xbr_l2 l2;

	/*
	 * Only a packet whose network header follows the Ethernet header (its
	 * tag, if any, out of band) is refragmented, as Linux's postrouting
	 * looks at skb->protocol.
	 */
	if (skb_network_offset(skb) != ETH_HLEN ||
	    (skb->protocol != htons(ETH_P_IP) && skb->protocol != htons(ETH_P_IPV6))) {
		xmit(skb, ctx);
		return;
	}
	memcpy(l2.mac, skb->data, ETH_HLEN);
	l2.vlan_present = skb_vlan_tag_present(skb);
	l2.vlan_proto = skb->vlan_proto;
	l2.vlan_tci = skb_vlan_tag_get(skb);
	__skb_pull(skb, ETH_HLEN);
	if (skb->protocol == htons(ETH_P_IP))
		xbr_refrag4(skb, frag_max, &l2, xmit, ctx);
	else
		xbr_refrag6(skb, frag_max, &l2, xmit, ctx);
}
