/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_frag.h - IPv4/IPv6 fragments around the bridge's conntrack:
 * reassembled on the way in, fragmented again on the way out, as
 * nf_conntrack_bridge does (net/bridge/netfilter/nf_conntrack_bridge.c).
 *
 * Ownership: the sk_buff's control block carries, from ingress to each
 * port's transmit, the largest fragment size a reassembled packet arrived
 * in (0 for every other frame); the ingress path sets it for every frame, so
 * nothing is inherited from whatever last used the buffer.
 *
 * Context: datapath (softirq, or the bridge device's xmit with bottom
 * halves off), under RCU; nothing here sleeps.
 */
#ifndef XBRIDGE_FRAG_H
#define XBRIDGE_FRAG_H

#include <linux/skbuff.h>

struct xbr_skb_cb {
	u16 frag_max_size;	/* reassembled from fragments of at most this size */
};

static inline struct xbr_skb_cb *xbr_skb_cb(struct sk_buff *skb)
{
	return (struct xbr_skb_cb *)skb->cb;
}

/*
 * Before conntrack: @skb->data at the network header. Trims the link-layer
 * padding off an IPv4/IPv6 packet and reassembles fragments. Returns 0 when
 * @skb goes on (whole, perhaps reassembled, with its frag_max_size set), or
 * non-zero when it was consumed (queued until its datagram is complete, or
 * dropped).
 */
int xbr_defrag(struct sk_buff *skb);

/*
 * Transmit @skb (data at the Ethernet header, the egress device and tag
 * set) through @xmit, as the fragments it was reassembled from: the
 * original ones when its geometry is intact, else fragments of at most its
 * frag_max_size. @xmit consumes each fragment. Consumes @skb.
 */
void xbr_refrag(struct sk_buff *skb, void (*xmit)(struct sk_buff *skb, void *ctx), void *ctx);

#endif /* XBRIDGE_FRAG_H */
