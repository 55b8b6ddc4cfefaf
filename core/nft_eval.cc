// SPDX-License-Identifier: GPL-2.0
/*
 * nft_eval.cc - the evaluator: nft_do_chain and each expression's eval, as
 * net/netfilter/nf_tables_core.c and nft_*.c do them for the bridge family.
 *
 * Datapath only: no allocation, no sleeping; runs inside the caller's RCU
 * read section. The register file lives on the stack.
 */
#include "nft_eval.h"

#include "compiler.h"
#include "ipv4_options.h"
#include "jhash.h"
#include "nft_connlimit.h"
#include "nft_dynset.h"
#include "nft_payload_write.h"
#include "nft_ruleset.h"
#include "nft_set.h"

namespace xb::nft {

namespace {

constexpr uint16_t kEthPIp = 0x0800;
constexpr uint16_t kEthPIpv6 = 0x86dd;
constexpr uint8_t kNfprotoBridge = 7;
constexpr uint8_t kNfprotoIpv4 = 2;
constexpr uint8_t kNfprotoIpv6 = 10;

uint16_t be16_at(const uint8_t *p)
{
	return uint16_t(p[0] << 8 | p[1]);
}

/*
 * nft_reg_store8/16: the value in the word's first bytes, the rest zero.
 * Written as one 32-bit store: a byte store after a zeroing store would
 * make the next 32-bit load of the register (every cmp) miss store
 * forwarding and stall.
 */
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

void store8(uint32_t *dst, uint8_t v)
{
	*dst = kLittleEndian ? uint32_t(v) : uint32_t(v) << 24;
}

void store16(uint32_t *dst, uint16_t v)
{
	*dst = kLittleEndian ? uint32_t(v) : uint32_t(v) << 16;
}

/* nft_data_copy: the bytes, then zeros to the end of the last word; a
 * short value is stored as one word. */
void copy_to_reg(uint32_t *dst, const uint8_t *src, uint32_t len)
{
	if (len <= 4) {
		*dst = short_word(src, len);
		return;
	}
	if (len % 4)
		dst[len / 4] = 0;
	__builtin_memcpy(dst, src, len);
}

void copy_name(uint32_t *dst, const char *name)
{
	/* strncpy(dest, name, IFNAMSIZ): NUL padded. */
	char *d = reinterpret_cast<char *>(dst);
	unsigned i = 0;
	for (; i < kIfnameSize && name[i]; i++)
		d[i] = name[i];
	for (; i < kIfnameSize; i++)
		d[i] = 0;
}

/*
 * The link-layer view (nft_payload_copy_vlan): the frame with its outer
 * tag as the kernel would rebuild it at offset 12. Copies @len bytes at
 * @off; false if they run past the frame.
 */
bool copy_link(const Pkt &p, uint32_t off, uint8_t *dst, uint32_t len)
{
	const uint32_t body = p.len - p.band_tag_len;	/* without the in-band tag */
	const uint32_t tag = p.vlan_present ? 4 : 0;
	if (uint64_t(off) + len > uint64_t(body) + tag)
		return false;
	uint8_t hdr[4];
	hdr[0] = uint8_t(p.vlan_proto >> 8);
	hdr[1] = uint8_t(p.vlan_proto);
	hdr[2] = uint8_t(p.vlan_tci >> 8);
	hdr[3] = uint8_t(p.vlan_tci);
	for (uint32_t i = 0; i < len; i++) {
		const uint32_t o = off + i;
		uint8_t b;
		if (o < 12)
			b = p.frame[o];
		else if (o < 12 + tag)
			b = hdr[o - 12];
		else
			b = p.frame[o - tag + p.band_tag_len];
		dst[i] = b;
	}
	return true;
}

/* skb_copy_bits within the frame into a register, its last word zero
 * padded; short loads are one word store (see store8). */
inline bool copy_bytes(const Pkt &p, uint64_t off, uint32_t *dst, uint32_t len)
{
	if (xb_unlikely(off + len > p.len))
		return false;
	const uint8_t *s = p.frame + off;
	if (len <= 4) {
		*dst = short_word(s, len);
		return true;
	}
	if (len % 4)
		dst[len / 4] = 0;
	__builtin_memcpy(dst, s, len);
	return true;
}

bool eval_payload(const Insn &in, const Pkt &p, uint32_t *dst)
{
	switch (in.sub) {
	case kPayloadLL:
		if (!p.vlan_present && !p.band_tag_len)
			return copy_bytes(p, in.offset, dst, in.len);
		if (in.len % 4)
			dst[in.len / 4] = 0;
		return copy_link(p, in.offset, reinterpret_cast<uint8_t *>(dst), in.len);
	case kPayloadNetwork:
		return copy_bytes(p, uint64_t(p.nhoff) + in.offset, dst, in.len);
	default:
		if (!p.tprot_set || p.fragoff)
			return false;
		return copy_bytes(p, uint64_t(p.thoff) + in.offset, dst, in.len);
	}
}

bool eval_meta(const Insn &in, const Pkt &p, uint32_t *dst)
{
	switch (in.sub) {
	case kMetaLen:
		*dst = p.len - p.nhoff;
		return true;
	case kMetaProtocol:
		store16(dst, uint16_t(p.protocol >> 8 | p.protocol << 8));
		return true;
	case kMetaPriority:
		*dst = p.priority;
		return true;
	case kMetaMark:
		*dst = p.mark;
		return true;
	/* nft_meta_store_ifindex/ifname: no device at this hook reads as
	 * ifindex 0 and the empty name, not a break. */
	case kMetaIif:
		*dst = p.in ? p.in->ifindex : 0;
		return true;
	case kMetaOif:
		*dst = p.out ? p.out->ifindex : 0;
		return true;
	case kMetaIifname:
		copy_name(dst, p.in ? p.in->name : "");
		return true;
	case kMetaOifname:
		copy_name(dst, p.out ? p.out->name : "");
		return true;
	case kMetaIiftype:
		if (!p.in)
			return false;
		store16(dst, p.in->type);
		return true;
	case kMetaOiftype:
		if (!p.out)
			return false;
		store16(dst, p.out->type);
		return true;
	case kMetaIifgroup:
		if (!p.in)
			return false;
		*dst = p.in->group;
		return true;
	case kMetaOifgroup:
		if (!p.out)
			return false;
		*dst = p.out->group;
		return true;
	case kMetaNfproto:
		store8(dst, kNfprotoBridge);
		return true;
	case kMetaL4proto:
		if (!p.tprot_set)
			return false;
		store8(dst, p.l4proto);
		return true;
	case kMetaPkttype:
		store8(dst, p.pkttype);
		return true;
	case kMetaPrandom:
		*dst = xb_random_u32();
		return true;
	case kMetaCpu:
		*dst = xb_this_cpu_id();
		return true;
	/* The frame's socket (skuid, skgid, cgroup) or route (rtclassid),
	 * which the environment reads; a frame without one - every
	 * forwarded frame - breaks, as nft_meta_get_eval_skugid does */
	case kMetaSkuid:
	case kMetaSkgid:
	case kMetaCgroup:
	case kMetaRtclassid:
		return xb_nft_frame_meta(p.cookie, in.sub, dst);
	/* `meta ipsec`: whether the skb has a secpath, which only xfrm
	 * input gives; never a frame the bridge sees */
	case kMetaSecpath:
		store8(dst, 0);
		return true;
	/* nft_meta_get_eval_kind: a device without rtnl_link_ops breaks */
	case kMetaIifkind:
		if (!p.in || !p.in->kind)
			return false;
		copy_name(dst, p.in->kind);
		return true;
	case kMetaOifkind:
		if (!p.out || !p.out->kind)
			return false;
		copy_name(dst, p.out->kind);
		return true;
	/* nft_meta_get_eval_sdif: only IPv4 and IPv6 have a slave device;
	 * the bridge family reads 0 and the empty name */
	case kMetaSdif:
		*dst = 0;
		return true;
	case kMetaSdifname:
		copy_name(dst, "");
		return true;
	/* nft_meta_get_eval_time: the wall clock; the weekday in the kernel's
	 * timezone (0: Sunday), the hour as seconds into the UTC day */
	case kMetaTimeNs: {
		const uint64_t ns = xb_realtime_ns();
		__builtin_memcpy(dst, &ns, 8);
		return true;
	}
	case kMetaTimeDay: {
		const int64_t secs = int64_t(xb_realtime_ns() / 1000000000u) -
				     int64_t(xb_tz_minuteswest()) * 60;
		store8(dst, uint8_t((4 + uint64_t(secs) / 86400) % 7));
		return true;
	}
	case kMetaTimeHour:
		*dst = uint32_t(xb_realtime_ns() / 1000000000u % 86400);
		return true;
	/* nft_meta_bridge_get_eval: the empty name where there is no
	 * device or it is no bridge port. */
	case kMetaBriIifname:
		copy_name(dst, p.in && p.in->bridge_name ? p.in->bridge_name : "");
		return true;
	case kMetaBriOifname:
		copy_name(dst, p.out && p.out->bridge_name ? p.out->bridge_name : "");
		return true;
	case kMetaBriIifpvid:
		if (!p.in || !p.in->bridge_name || !p.bridge_vlan_enabled)
			return false;
		store16(dst, p.in_pvid);
		return true;
	case kMetaBriIifvproto:
		if (!p.in || !p.in->bridge_name || !p.bridge_vlan_enabled)
			return false;
		store16(dst, uint16_t(p.bridge_vlan_proto >> 8 | p.bridge_vlan_proto << 8));
		return true;
	default:
		return false;
	}
}

/*
 * nft_notrack_eval: a frame without a connection becomes UNTRACKED - one
 * not tracked yet, or found INVALID (Linux leaves that skb without a ct);
 * one with a connection keeps it. Per copy: each copy of a flood is its
 * own Pkt, as each is its own skb clone on Linux.
 */
void eval_notrack(Pkt &p)
{
	if (!p.ct || !p.ct->entry)
		p.notrack = true;
}

bool eval_ct_get(const Insn &in, const Pkt &p, uint32_t *dst)
{
	const CtResult *r = p.ct;
	if (in.sub == kCtState) {
		*dst = p.notrack ? uint32_t(kCtStateUntracked)
				 : r ? uint32_t(r->state) : uint32_t(kCtStateInvalid);
		return true;
	}
	if (!r || !r->entry)
		return false;
	const CtEntry &e = *r->entry;
	const uint8_t dir = in.size ? uint8_t(in.size - 1) : 2;
	switch (in.sub) {
	case kCtDirectionKey:
		store8(dst, r->dir);
		return true;
	case kCtStatus:
		*dst = e.status_bits();
		return true;
	case kCtMark:
		*dst = load_once(e.mark);
		return true;
	case kCtExpiration: {
		/* nf_ct_expires in ms; an unconfirmed entry's timeout is still
		 * relative in Linux, so it reads 0 there (once jiffies has
		 * grown past it) */
		if (r->unconfirmed) {
			*dst = 0;
			return true;
		}
		const int32_t left = int32_t(load_once(e.expires) - uint32_t(p.now_ns / 1000000));
		*dst = left > 0 ? uint32_t(left) : 0;
		return true;
	}
	case kCtL3protocol:
		store8(dst, e.tuple.l3 == kCtL3Ipv4 ? kNfprotoIpv4 : kNfprotoIpv6);
		return true;
	case kCtProtocol:
		store8(dst, e.tuple.l4proto);
		return true;
	case kCtZone:
		store16(dst, e.tuple.zone);
		return true;
	case kCtId:
		*dst = uint32_t(reinterpret_cast<uintptr_t>(&e) >> 4) ^
		       uint32_t(uint64_t(reinterpret_cast<uintptr_t>(&e)) >> 36);
		return true;
	case kCtPkts:
	case kCtBytes: {
		const uint64_t *v = in.sub == kCtPkts ? e.packets : e.bytes;
		const uint64_t n = dir < 2 ? load_once(v[dir]) : load_once(v[0]) + load_once(v[1]);
		__builtin_memcpy(dst, &n, 8);
		return true;
	}
	case kCtAvgpkt: {
		/* nft_ct_get_eval: bytes over packets, in the direction asked
		 * or both; 0 before the first packet */
		const uint64_t pkts = dir < 2 ? load_once(e.packets[dir])
					      : load_once(e.packets[0]) + load_once(e.packets[1]);
		const uint64_t bytes = dir < 2 ? load_once(e.bytes[dir])
					       : load_once(e.bytes[0]) + load_once(e.bytes[1]);
		const uint64_t avg = pkts ? bytes / pkts : 0;
		__builtin_memcpy(dst, &avg, 8);
		return true;
	}
	default:
		break;
	}
	/* Tuple keys, in the direction asked (the reply swaps the ends). */
	const CtTuple &t = e.tuple;
	const bool src = in.sub == kCtSrcIp || in.sub == kCtSrcIp6 || in.sub == kCtProtoSrc;
	const bool use_src = dir == 1 ? !src : src;
	switch (in.sub) {
	case kCtSrcIp:
	case kCtDstIp:
		if (t.l3 != kCtL3Ipv4)
			return false;
		__builtin_memcpy(dst, use_src ? t.src : t.dst, 4);
		return true;
	case kCtSrcIp6:
	case kCtDstIp6:
		if (t.l3 != kCtL3Ipv6)
			return false;
		__builtin_memcpy(dst, use_src ? t.src : t.dst, 16);
		return true;
	case kCtProtoSrc:
	case kCtProtoDst: {
		const uint16_t port = use_src ? t.sport : t.dport;
		store16(dst, uint16_t(port >> 8 | port << 8));
		return true;
	}
	default:
		return false;
	}
}

void eval_ct_set(const Insn &in, Pkt &p, const uint32_t *src)
{
	if (in.sub == kCtZone) {
		/* nft_ct_set_zone_eval: only before the frame is tracked. */
		if (p.ct)
			return;
		uint16_t zone;
		__builtin_memcpy(&zone, src, 2);
		p.ct_zone = zone;
		return;
	}
	if (!p.ct || !p.ct->entry)
		return;
	if (load_once(p.ct->entry->mark) != *src)
		store_once(p.ct->entry->mark, *src);
}

/*
 * nft_meta_set_eval's pkttype: a change only between the four types
 * skb_pkt_type_ok() allows (host, broadcast, multicast, other host).
 */
void eval_pkttype_set(Pkt &p, uint8_t value)
{
	constexpr uint8_t kPacketOtherhost = 3;
	if (p.pkttype != value && value <= kPacketOtherhost && p.pkttype <= kPacketOtherhost)
		p.pkttype = value;
}

/*
 * nft_reject_bridge_eval: for a unicast IPv4 or IPv6 frame, the reply goes
 * back out of the ingress port (when it forwards); every other frame is
 * only dropped. The verdict is drop either way.
 */
void eval_reject(const Insn &in, const Pkt &p)
{
	/* an IP protocol means a whole Ethernet header (pkt_init) */
	if (p.protocol != kEthPIp && p.protocol != kEthPIpv6)
		return;
	if ((p.frame[0] & 1) || !p.in || !p.in_forwarding)	/* a group address */
		return;
	xb_nft_rejectinfo r{};
	r.tcp_reset = in.sub == kRejectTcpRst;
	r.code = p.protocol == kEthPIp ? in.data[0] : in.data[1];
	r.hook = p.hook;
	r.vlan_present = p.vlan_present;
	r.vlan_proto = p.vlan_proto;
	r.vlan_tci = p.vlan_tci;
	r.l3proto = p.protocol;
	r.nhoff = uint16_t(p.nhoff);
	r.in_ifindex = p.in->ifindex;
	xb_nft_reject(p.cookie, &r);
}

/*
 * nft_quota_do_eval: every frame that reaches the quota consumes its
 * length (skb->len at a bridge hook: from the network header); over the
 * bound it breaks, or with `over` only under it.
 */
bool eval_quota(Quota &q, const Pkt &p)
{
	const uint64_t consumed = __atomic_add_fetch(&q.consumed, uint64_t(p.len - p.nhoff),
						     __ATOMIC_RELAXED);
	const bool over = consumed > q.bytes;
	return over == bool(q.flags & kQuotaFInv);
}

/* nft_ng_inc_eval and nft_ng_random_eval: the next counter value (shared
 * by every CPU, wrapping at the modulus) or a uniform random one, plus the
 * offset. */
uint32_t eval_numgen(const Insn &in)
{
	uint32_t modulus, offset;
	__builtin_memcpy(&modulus, in.data, 4);
	__builtin_memcpy(&offset, in.data + 4, 4);
	if (in.sub == kNgRandom)
		return reciprocal_scale(xb_random_u32(), modulus) + offset;
	uint32_t *counter = static_cast<uint32_t *>(in.ref);
	uint32_t old = __atomic_load_n(counter, __ATOMIC_RELAXED), next;
	do
		next = old + 1 < modulus ? old + 1 : 0;
	while (!__atomic_compare_exchange_n(counter, &old, next, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	return next + offset;
}

/*
 * The flow's symmetric hash (__skb_get_hash_symmetric): the same for both
 * directions of an IPv4/IPv6 flow - its addresses and ports in a fixed
 * order, and its protocol - hashed with the rule's random key, as the
 * kernel's flow hash is keyed at random. Other frames hash their protocol.
 */
uint32_t symmetric_hash(const Pkt &p, uint32_t seed)
{
	uint8_t key[40] = {};
	uint32_t alen = 0;
	if (p.tprot_set)
		alen = p.protocol == kEthPIp ? 4 : 16;
	if (alen) {
		const uint8_t *src = p.frame + p.nhoff + (alen == 4 ? 12 : 8);
		const uint8_t *dst = src + alen;
		uint16_t sport = 0, dport = 0;
		const bool ports = !p.fragoff && (p.l4proto == 6 || p.l4proto == 17 ||
						  p.l4proto == 132 || p.l4proto == 136 ||
						  p.l4proto == 33);
		if (ports && p.thoff + 4 <= p.len) {
			__builtin_memcpy(&sport, p.frame + p.thoff, 2);
			__builtin_memcpy(&dport, p.frame + p.thoff + 2, 2);
		}
		const int order = __builtin_memcmp(src, dst, alen);
		if (order > 0 || (order == 0 && sport > dport)) {
			const uint8_t *t = src;
			src = dst;
			dst = t;
			const uint16_t tp = sport;
			sport = dport;
			dport = tp;
		}
		__builtin_memcpy(key, src, alen);
		__builtin_memcpy(key + 16, dst, alen);
		__builtin_memcpy(key + 32, &sport, 2);
		__builtin_memcpy(key + 34, &dport, 2);
		key[36] = p.l4proto;
	}
	__builtin_memcpy(key + 38, &p.protocol, 2);
	return jhash(key, sizeof(key), seed);
}

/* nft_jhash_eval and nft_symhash_eval: the hash scaled below the modulus,
 * plus the offset. */
uint32_t eval_hash(const Insn &in, const Pkt &p, const uint32_t *src)
{
	uint32_t modulus, offset, seed;
	__builtin_memcpy(&modulus, in.data, 4);
	__builtin_memcpy(&offset, in.data + 4, 4);
	__builtin_memcpy(&seed, in.data + 8, 4);
	const uint32_t h = in.sub == kHashSym
				   ? symmetric_hash(p, seed)
				   : jhash(reinterpret_cast<const uint8_t *>(src), in.len, seed);
	return reciprocal_scale(h, modulus) + offset;
}

/*
 * Where a TCP option of @type starts in the frame (nft_exthdr_tcp_eval's
 * walk: a kind <= NOP or a zero length steps one byte), and its length;
 * false if the frame has no such option or it runs past the header.
 */
bool find_tcp_option(const Pkt &p, uint8_t type, uint32_t &at, uint32_t &optlen)
{
	if (!p.tprot_set || p.l4proto != 6 || p.fragoff || uint64_t(p.thoff) + 20 > p.len)
		return false;
	const uint8_t *tcp = p.frame + p.thoff;
	const uint32_t hdrlen = (tcp[12] >> 4) * 4u;
	if (hdrlen < 20 || p.thoff + hdrlen > p.len)
		return false;
	for (uint32_t i = 20; i < hdrlen - 1; i += optlen) {
		optlen = tcp[i] <= 1 || tcp[i + 1] == 0 ? 1 : tcp[i + 1];
		if (tcp[i] != type)
			continue;
		if (i + optlen > hdrlen)
			return false;
		at = p.thoff + i;
		return true;
	}
	return false;
}

/*
 * ipv6_find_hdr from the IPv6 header: where the header of type @target
 * starts (an upper-layer type ends the walk there too), walking
 * hop-by-hop, routing, fragment (a later fragment ends it), AH and
 * destination options headers. False if it is not there or the frame is
 * no whole IPv6 packet.
 */
bool find_ipv6_header(const Pkt &p, uint8_t target, uint32_t &at)
{
	if (p.protocol != kEthPIpv6 || uint64_t(p.nhoff) + 40 > p.len)
		return false;
	auto is_ext = [](uint8_t h) {
		return h == 0 || h == 43 || h == 44 || h == 51 || h == 59 || h == 60;
	};
	uint8_t next = p.frame[p.nhoff + 6];
	uint32_t start = p.nhoff + 40;
	for (;;) {
		const bool found = next == target;
		if (!is_ext(next) || next == 59) {	/* upper layer, or no next header */
			if (!found)
				return false;
			break;
		}
		/* the header's first two bytes (a fragment header's four) */
		if (uint64_t(start) + (next == 44 ? 4 : 2) > p.len)
			return false;
		const uint8_t *h = p.frame + start;
		/* the target, or a later fragment (nothing follows it) */
		if (found || (next == 44 && ((h[2] << 8 | h[3]) & ~7))) {
			if (!found)
				return false;
			break;
		}
		uint32_t hdrlen;
		if (next == 44) {
			hdrlen = 8;
		} else if (next == 51) {
			hdrlen = (h[1] + 2u) * 4;
		} else {
			hdrlen = (h[1] + 1u) * 8;
		}
		next = h[0];
		start += hdrlen;
	}
	at = start;
	return true;
}

/*
 * nft_exthdr_ipv4_eval: a frame that is not IPv4 (skb->protocol, the
 * ethertype after the outer tag) breaks, even a presence test; options
 * that are cut short or malformed (ipv4_options.h) are an absent option.
 */
bool find_ipv4_option(const Pkt &p, uint8_t type, uint32_t &at)
{
	uint32_t off;
	if (ipv4_find_option(p.frame + p.nhoff, p.len - p.nhoff, type, off) != Ipv4OptFind::Found)
		return false;
	at = p.nhoff + off;
	return true;
}

/*
 * nft_exthdr_sctp_eval: the chunks after the 12-byte common header, each
 * 4-byte aligned past its length, up to the first of @in's type (a chunk
 * header that does not fit or a zero length ends the walk). Whether it is
 * there, or @in.len bytes at @in.offset into it, which must lie within
 * the chunk's length and the chunk within the frame; a frame that is no
 * SCTP (p.l4proto is 0 unless tprot_set), a missing chunk or one whose
 * field does not fit breaks. Like Linux 6.1 and 6.12, a later fragment
 * of an SCTP packet is walked too (its bytes read as chunks).
 */
bool eval_sctp_chunk(const Insn &in, const Pkt &p, uint32_t *dst)
{
	const bool present_only = in.flags & kExthdrFPresent;
	if (p.tprot_set && p.l4proto == 132) {
		uint64_t off = uint64_t(p.thoff) + 12;
		do {
			if (off + 4 > p.len)
				break;
			const uint8_t *ch = p.frame + off;
			const uint32_t chlen = be16_at(ch + 2);
			if (chlen == 0)
				break;
			if (ch[0] == in.data[0]) {
				if (present_only) {
					store8(dst, 1);
					return true;
				}
				if (uint32_t(in.offset) + in.len > chlen || off + chlen > p.len)
					break;
				return copy_bytes(p, off + in.offset, dst, in.len);
			}
			off += (chlen + 3u) & ~3u;
		} while (off < p.len);
	}
	if (present_only) {
		store8(dst, 0);
		return true;
	}
	return false;
}

/* nft_exthdr_tcp_eval, nft_exthdr_ipv6_eval and nft_exthdr_ipv4_eval: the
 * bytes, or whether the header is there (a break only for bytes of a
 * missing one, and for any IPv4 option of a frame that is not IPv4). */
bool eval_exthdr(const Insn &in, const Pkt &p, uint32_t *dst)
{
	const bool present_only = in.flags & kExthdrFPresent;
	uint32_t at = 0, optlen = 0;
	bool found;
	if (in.sub == kExthdrOpSctp)
		return eval_sctp_chunk(in, p, dst);
	if (in.sub == kExthdrOpIpv4) {
		if (p.protocol != kEthPIp)
			return false;
		found = find_ipv4_option(p, in.data[0], at);
		if (present_only) {
			store8(dst, found);
			return true;
		}
	} else if (in.sub == kExthdrOpTcpopt) {
		found = find_tcp_option(p, in.data[0], at, optlen) &&
			in.len + in.offset <= optlen;
		if (present_only) {
			*dst = found ? 1 : 0;
			return true;
		}
	} else {
		found = find_ipv6_header(p, in.data[0], at);
		if (present_only) {
			store8(dst, found);
			return true;
		}
	}
	if (!found)
		return false;
	return copy_bytes(p, uint64_t(at) + in.offset, dst, in.len);
}

bool limit_pass(Limit *l, const Pkt &p)
{
	const uint64_t cost = limit_cost(l->nsecs, l->rate, l->type, p.len - p.nhoff);
	bool over;
	{
		LockGuard guard(l->lock);
		over = limit_bucket_over(l->tokens, l->last_ns, l->tokens_max, cost, p.now_ns);
	}
	/* nft_limit_eval returns "over", inverted by the flag; over breaks. */
	return (over ^ bool(l->flags & kLimitFInv)) == false;
}

void count_frame(Counter &c, const Pkt &p)
{
	CounterCpu *pc = c.cpu.this_cpu();
	counter_add(pc->packets, 1);
	counter_add(pc->bytes, p.len - p.nhoff);
}

/* The same within run_hook(), which notes its CPU once in @run_cpu. */
inline void count_frame(Counter &c, const Pkt &p, unsigned int *run_cpu)
{
	CounterCpu *pc = c.cpu.this_cpu(run_cpu);
	counter_add(pc->packets, 1);
	counter_add(pc->bytes, p.len - p.nhoff);
}

/* nft_objref_map_eval: the object the key maps to (the catch-all's if
 * none), run as its own expression would; no element breaks. */
bool eval_obj_map(const Insn &in, const uint32_t *key, const Pkt &p)
{
	SetHit hit;
	const SetIndex *set = static_cast<const SetIndex *>(in.ref);
	if (!set->lookup(reinterpret_cast<const uint8_t *>(key), hit, p.now_ns) || !hit.data)
		return false;
	ObjObj *o;
	__builtin_memcpy(&o, hit.data, sizeof(o));
	switch (in.sub) {
	case kObjectCounter:
		count_frame(o->counter, p);
		return true;
	case kObjectQuota:
		return eval_quota(o->quota, p);
	default:
		return limit_pass(&o->limit, p);
	}
}

bool eval_cmp(const Insn &in, const uint32_t *reg)
{
	const int d = __builtin_memcmp(reg, in.data, in.len);
	switch (in.sub) {
	case kCmpEq:
		return d == 0;
	case kCmpNeq:
		return d != 0;
	case kCmpLt:
		return d < 0;
	case kCmpLte:
		return d <= 0;
	case kCmpGt:
		return d > 0;
	default:
		return d >= 0;
	}
}

bool eval_cmp_eq(const Insn &in, const uint32_t *reg)
{
	uint32_t value[4], mask[4];
	__builtin_memcpy(value, in.data, 16);
	__builtin_memcpy(mask, in.data + 16, 16);
	uint32_t diff = (reg[0] ^ value[0]) & mask[0];
	if (xb_unlikely(in.len > 4)) {
		const unsigned words = (in.len + 3u) / 4;
		for (unsigned i = 1; i < words; i++)
			diff |= (reg[i] ^ value[i]) & mask[i];
	}
	return (diff == 0) == (in.sub == kCmpEq);
}

bool eval_range(const Insn &in, const uint32_t *reg)
{
	const int d1 = __builtin_memcmp(reg, in.data, in.len);
	const int d2 = __builtin_memcmp(reg, in.data + 16, in.len);
	const bool inside = d1 >= 0 && d2 <= 0;
	return in.sub == kRangeEq ? inside : !inside;
}

void eval_bitwise(const Insn &in, const uint32_t *src, uint32_t *dst)
{
	const unsigned words = (in.len + 3u) / 4;
	uint32_t mask[4], x[4];
	__builtin_memcpy(mask, in.data, 16);
	__builtin_memcpy(x, in.data + 16, 16);
	for (unsigned i = 0; i < words; i++)
		dst[i] = (src[i] & mask[i]) ^ x[i];
}

void eval_shift(const Insn &in, const uint32_t *src, uint32_t *dst)
{
	const unsigned words = (in.len + 3u) / 4;
	const uint32_t shift = in.offset;
	uint32_t carry = 0;
	if (shift == 0) {
		for (unsigned i = 0; i < words; i++)
			dst[i] = src[i];
		return;
	}
	if (in.sub == kBitwiseLshift) {
		for (unsigned i = words; i > 0; i--) {
			const uint32_t s = src[i - 1];
			dst[i - 1] = (s << shift) | carry;
			carry = s >> (32 - shift);
		}
	} else {
		for (unsigned i = 0; i < words; i++) {
			const uint32_t s = src[i];
			dst[i] = carry | (s >> shift);
			carry = s << (32 - shift);
		}
	}
}

void eval_byteorder(const Insn &in, const uint32_t *src, uint32_t *dst)
{
	/* ntoh and hton are the same swap on a little-endian machine and the
	 * identity on a big-endian one. */
	const bool swap = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	uint8_t tmp[kRegDataWords * 4];
	__builtin_memcpy(tmp, src, in.len);
	uint8_t *out = reinterpret_cast<uint8_t *>(dst);
	switch (in.size) {
	case 8:
		for (unsigned i = 0; i < in.len / 8u; i++) {
			/* nft_byteorder steps u32 words for 64-bit elements */
			uint64_t v;
			__builtin_memcpy(&v, tmp + i * 4, 8);
			if (swap)
				v = __builtin_bswap64(v);
			__builtin_memcpy(out + i * 4, &v, 8);
		}
		break;
	case 4:
		for (unsigned i = 0; i < in.len / 4u; i++) {
			uint32_t v;
			__builtin_memcpy(&v, tmp + i * 4, 4);
			if (swap)
				v = __builtin_bswap32(v);
			__builtin_memcpy(out + i * 4, &v, 4);
		}
		break;
	default:
		for (unsigned i = 0; i < in.len / 2u; i++) {
			uint16_t v;
			__builtin_memcpy(&v, tmp + i * 2, 2);
			if (swap)
				v = __builtin_bswap16(v);
			__builtin_memcpy(out + i * 2, &v, 2);
		}
		break;
	}
}

/*
 * The end of a word load, and of any load with a fused compare (nft_expr.h,
 * "Word loads"): @w through the mask and xor into the register, then the
 * compare. Returns false to break.
 */
inline bool word_test(const Insn &in, uint32_t w, uint32_t *reg)
{
	uint32_t value, mask, cmask, x;
	__builtin_memcpy(&value, in.data, 4);
	__builtin_memcpy(&mask, in.data + 4, 4);
	__builtin_memcpy(&cmask, in.data + 16, 4);
	__builtin_memcpy(&x, in.data + 20, 4);
	w = (w & mask) ^ x;
	*reg = w;
	return (((w ^ value) & cmask) == 0) != bool(in.flags & kInsnFCmpNeq);
}

/*
 * @in.len (1..4) bytes at @off of the frame as one word (copy_bytes), or
 * false past its end. When four bytes are there the word is one load;
 * the mask word_test applies (lower_rule folds the length into it) clears
 * what lies past @in.len.
 */
inline bool frame_word(const Pkt &p, uint64_t off, const Insn &in, uint32_t &w)
{
	if (xb_unlikely(off + in.len > p.len))
		return false;
	if (xb_likely(off + 4 <= p.len))
		__builtin_memcpy(&w, p.frame + off, 4);
	else
		w = short_word(p.frame + off, in.len);
	return true;
}

/* A rule's run so far: on to the next expression, or the rule ends with
 * kNftBreak or a verdict code. */
constexpr int32_t kGoOn = INT32_MIN;

/* nft_lookup_eval: the found element's stateful expressions
 * (nft_set_elem_update_expr); a limit or quota past its bound breaks the
 * rule, a ct count without a connection drops the frame. */
xb_noinline int32_t eval_hit_exprs(const SetHit &hit, const Pkt &p)
{
	switch (eval_elem_exprs(*hit.exprs, hit.exprs_lock, p)) {
	case DynsetResult::Match:
		return kGoOn;
	case DynsetResult::Break:
		return kNftBreak;
	default:
		return kNfDrop;
	}
}

/*
 * The expressions a frame seldom meets, out of the evaluator's loop: the
 * loop keeps few values live and spills nothing for the common ones.
 */
xb_noinline int32_t eval_other(const Insn &in, Pkt &p, uint32_t *regs)
{
	uint32_t *dst = &regs[in.dreg == kDregVerdict ? 0 : in.dreg];
	const uint32_t *src = &regs[in.sreg];
	bool ok = true;
	switch (in.op) {
	case Op::Cmp:
		ok = eval_cmp(in, src);
		break;
	case Op::Range:
		ok = eval_range(in, src);
		break;
	case Op::Shift:
		eval_shift(in, src, dst);
		break;
	case Op::Byteorder:
		eval_byteorder(in, src, dst);
		break;
	case Op::PayloadWrite:
		ok = eval_payload_write(in, p, src);
		break;
	case Op::MetaSet:
		if (in.sub == kMetaMark)
			p.mark = *src;
		else if (in.sub == kMetaPriority)
			p.priority = *src;
		else if (in.sub == kMetaPkttype)
			eval_pkttype_set(p, reinterpret_cast<const uint8_t *>(src)[0]);
		break;
	case Op::Limit:
	case Op::ObjLimit:
		ok = limit_pass(static_cast<Limit *>(in.ref), p);
		break;
	case Op::ObjMap:
		ok = eval_obj_map(in, src, p);
		break;
	case Op::Dynset: {
		const SetIndex *set;
		__builtin_memcpy(&set, in.data, sizeof(set));
		const DynsetResult r = eval_dynset(in, *set, regs, p);
		if (xb_unlikely(r == DynsetResult::Drop))
			return kNfDrop;
		ok = r == DynsetResult::Match;
		break;
	}
	case Op::Quota:
	case Op::ObjQuota:
		ok = eval_quota(*static_cast<Quota *>(in.ref), p);
		break;
	case Op::Connlimit: {
		ConnLimit &c = *static_cast<ConnLimit *>(in.ref);
		ConnVerdict v;
		{
			LockGuard guard(c.lock);
			v = connlimit_eval(c.list, c.limit, c.flags, p);
		}
		if (v == ConnVerdict::Drop)
			return kNfDrop;
		ok = v == ConnVerdict::Go;
		break;
	}
	case Op::CtSet:
		eval_ct_set(in, p, src);
		break;
	case Op::Notrack:
		eval_notrack(p);
		break;
	case Op::Exthdr:
		ok = eval_exthdr(in, p, dst);
		break;
	case Op::TcpOptWrite: {
		const TcpOptResult r = eval_tcpopt_write(in, p, src);
		if (xb_unlikely(r == TcpOptResult::Drop))
			return kNfDrop;
		ok = r == TcpOptResult::Done;
		break;
	}
	case Op::Numgen:
		*dst = eval_numgen(in);
		break;
	case Op::Hash:
		*dst = eval_hash(in, p, src);
		break;
	case Op::Reject:
		eval_reject(in, p);
		return kNfDrop;
	case Op::Log: {
		/* level audit goes to the audit log on Linux; here nowhere */
		const Log *l = static_cast<const Log *>(in.ref);
		if (!l->audit)
			xb_nft_log(p.cookie, p.hook, p.in ? p.in->ifindex : 0,
				   p.out ? p.out->ifindex : 0, &l->info);
		break;
	}
	default:	/* the loop's own: not reached */
		break;
	}
	return ok ? kGoOn : kNftBreak;
}

} // namespace

bool rule_reads_unwritten(const Insn *insn, uint32_t count)
{
	uint64_t written = 0;	/* one bit per register word */
	auto words = [](unsigned first, unsigned len) {
		const unsigned n = (len + 3) / 4;
		return ((uint64_t(1) << n) - 1) << first;
	};
	for (uint32_t i = 0; i < count; i++) {
		const Insn &in = insn[i];
		bool reads = false, writes = false;
		unsigned wlen = in.len;
		switch (in.op) {
		case Op::Cmp:
		case Op::CmpEq:
		case Op::Range:
		case Op::MetaSet:
		case Op::CtSet:
		case Op::PayloadWrite:
			reads = true;
			break;
		case Op::TcpOptWrite:
			reads = in.sub == kTcpOptSet;
			break;
		case Op::Bitwise:
		case Op::Shift:
		case Op::Byteorder:
			reads = writes = true;
			break;
		case Op::ObjMap:
			reads = true;
			break;
		case Op::Lookup:
			reads = true;
			writes = in.size && in.dreg != kDregVerdict;
			wlen = in.size;
			break;
		case Op::Dynset:
			/* the key at sreg; a map's data (size bytes) at dreg */
			reads = true;
			if (in.size && (words(in.dreg, in.size) & ~written))
				return true;
			break;
		case Op::Immediate:
		case Op::Payload:
		case Op::Meta:
		case Op::CtGet:
		case Op::Exthdr:
			writes = in.dreg != kDregVerdict;
			break;
		case Op::Numgen:
			writes = true;
			wlen = 4;
			break;
		case Op::Hash:
			reads = in.sub != kHashSym;	/* jhash: @len bytes at sreg */
			writes = true;
			wlen = 4;
			break;
		default:
			break;
		}
		if (reads && (words(in.sreg, in.len) & ~written))
			return true;
		if (writes)
			written |= words(in.dreg, wlen);
	}
	return false;
}

namespace {

/* The mask of a load of @len (1..4) bytes in its word: its bytes, in
 * memory order. */
uint32_t len_mask(uint32_t len)
{
	uint8_t bytes[4] = {0, 0, 0, 0};
	for (uint32_t i = 0; i < len && i < 4; i++)
		bytes[i] = 0xff;
	uint32_t mask;
	__builtin_memcpy(&mask, bytes, 4);
	return mask;
}

/* The word load (nft_expr.h) that runs @in, if there is one. */
bool word_load_op(const Insn &in, Op &op)
{
	if (in.dreg == kDregVerdict || in.len == 0 || in.len > 4)
		return false;
	switch (in.op) {
	case Op::Meta:
		switch (in.sub) {
		case kMetaIif:
			op = Op::LoadIif;
			return true;
		case kMetaOif:
			op = Op::LoadOif;
			return true;
		case kMetaProtocol:
			op = Op::LoadProtocol;
			return true;
		case kMetaL4proto:
			op = Op::LoadL4proto;
			return true;
		case kMetaMark:
			op = Op::LoadMark;
			return true;
		default:
			return false;
		}
	case Op::CtGet:
		if (in.sub == kCtState) {
			op = Op::LoadCtState;
			return true;
		}
		if (in.sub == kCtZone) {
			op = Op::LoadCtZone;
			return true;
		}
		return false;
	case Op::Payload:
		if (in.sub == kPayloadNetwork) {
			op = Op::LoadNetwork;
			return true;
		}
		if (in.sub == kPayloadTransport) {
			op = Op::LoadTransport;
			return true;
		}
		return false;
	default:
		return false;
	}
}

/* Fuse @insn[0], a load, with the CmpEq (and the word Bitwise before it)
 * that tests it; returns how many of the Insns after it it took. */
uint32_t fuse_load(Insn *insn, uint32_t count)
{
	Insn &load = insn[0];
	if (count < 2 || load.dreg == kDregVerdict)
		return 0;
	const Insn &bw = insn[1];
	const bool bitwise = bw.op == Op::Bitwise && bw.len <= 4 && bw.sreg == load.dreg &&
			     bw.dreg == load.dreg && count > 2;
	const Insn &cmp = insn[1 + bitwise];
	if (cmp.op != Op::CmpEq || cmp.sreg != load.dreg || cmp.len > 4)
		return 0;
	__builtin_memcpy(load.data, cmp.data, 4);
	__builtin_memcpy(load.data + 16, cmp.data + 16, 4);
	load.flags = uint8_t(kInsnFCmpNext | (cmp.sub == kCmpEq ? 0 : kInsnFCmpNeq));
	if (bitwise) {
		__builtin_memcpy(load.data + 4, bw.data, 4);
		__builtin_memcpy(load.data + 20, bw.data + 16, 4);
		load.flags |= kInsnFBitwise;
	}
	return 1 + bitwise;
}

} // namespace

uint32_t lower_rule(Insn *insn, uint32_t count)
{
	static_assert(kRuleMaxExprs < 256, "Insn::to_next_rule is a byte");
	uint32_t out = 0;
	for (uint32_t i = 0; i < count; i++) {
		/* a counter and the verdict that ends its rule: one Insn */
		if ((insn[i].op == Op::Counter || insn[i].op == Op::ObjCounter) && i + 1 < count &&
		    insn[i + 1].op == Op::Verdict && insn[i + 1].code != kNftContinue) {
			Insn cv = insn[i];
			const void *chain = insn[i + 1].ref;
			cv.op = Op::CounterVerdict;
			cv.code = insn[i + 1].code;
			__builtin_memcpy(cv.data, &chain, sizeof(chain));
			insn[out++] = cv;
			i++;
			continue;
		}
		if (insn[i].op == Op::CtSet && insn[i].sub == kCtZone) {
			insn[i].op = Op::SetCtZone;
			insn[out++] = insn[i];
			continue;
		}
		uint32_t took = 0;
		if (insn[i].op == Op::Payload || insn[i].op == Op::Meta || insn[i].op == Op::CtGet)
			took = fuse_load(&insn[i], count - i);
		Insn in = insn[i];
		Op op;
		const bool word = word_load_op(in, op);
		/* every word load and every fused load ends in word_test(): its
		 * mask, xor, value and compare mask all set */
		if (word || (in.flags & kInsnFCmpNext)) {
			uint32_t mask = ~0u, x = 0, value = 0, cmask = 0;
			if (in.flags & kInsnFBitwise) {
				__builtin_memcpy(&mask, in.data + 4, 4);
				__builtin_memcpy(&x, in.data + 20, 4);
			}
			if (in.flags & kInsnFCmpNext) {
				__builtin_memcpy(&value, in.data, 4);
				__builtin_memcpy(&cmask, in.data + 16, 4);
			}
			/* a payload's word holds @len bytes (copy_bytes);
			 * the keys' loads write the whole word */
			if (word && (op == Op::LoadNetwork || op == Op::LoadTransport))
				mask &= len_mask(in.len);
			__builtin_memcpy(in.data, &value, 4);
			__builtin_memcpy(in.data + 4, &mask, 4);
			__builtin_memcpy(in.data + 16, &cmask, 4);
			__builtin_memcpy(in.data + 20, &x, 4);
			if (word)
				in.op = op;
		}
		insn[out++] = in;
		i += took;
	}
	for (uint32_t i = 0; i < out; i++)
		insn[i].to_next_rule = uint8_t(out - i);
	return out;
}

void pkt_init(Pkt &p)
{
	p.tprot_set = false;
	p.l4proto = 0;
	p.fragoff = 0;
	p.thoff = 0;
	p.nhoff = 14u + p.band_tag_len;
	if (p.len < p.nhoff) {
		p.nhoff = p.len;
		p.protocol = 0;
		return;
	}
	p.protocol = be16_at(p.frame + p.nhoff - 2);
	const uint8_t *l3 = p.frame + p.nhoff;
	const uint32_t room = p.len - p.nhoff;
	if (p.protocol == kEthPIp) {
		/* nft_set_pktinfo_ipv4_validate */
		if (room < 20 || (l3[0] >> 4) != 4 || (l3[0] & 15) < 5)
			return;
		const uint32_t total = be16_at(l3 + 2);
		const uint32_t thoff = (l3[0] & 15u) * 4;
		if (room < total || total < thoff)
			return;
		p.tprot_set = true;
		p.l4proto = l3[9];
		p.thoff = p.nhoff + thoff;
		p.fragoff = be16_at(l3 + 6) & 0x1fff;
	} else if (p.protocol == kEthPIpv6) {
		/* nft_set_pktinfo_ipv6_validate with ipv6_find_hdr */
		if (room < 40 || (l3[0] >> 4) != 6)
			return;
		if (uint32_t(be16_at(l3 + 4)) + 40 > room)
			return;
		uint8_t next = l3[6];
		uint32_t off = 40;
		uint16_t fragoff = 0;
		for (;;) {
			const bool ext = next == 0 || next == 43 || next == 44 || next == 51 ||
					 next == 60;
			if (!ext)
				break;
			if (off + 8 > room)
				return;
			const uint8_t *h = l3 + off;
			if (next == 44) {
				fragoff = be16_at(h + 2) & 0xfff8;
				if (fragoff) {
					next = h[0];
					break;
				}
				next = h[0];
				off += 8;
				continue;
			}
			const uint32_t hlen = next == 51 ? (h[1] + 2u) * 4 : (h[1] + 1u) * 8;
			next = h[0];
			off += hlen;
		}
		if (off > room || p.nhoff + off > 0xffff)
			return;
		p.tprot_set = true;
		p.l4proto = next;
		p.thoff = p.nhoff + off;
		p.fragoff = fragoff;
	}
}

/*
 * run_hook(): nf_hook_slow over the base chains of a hook with priority in
 * [prio_lo, @prio_hi), each run as nft_do_chain over its code (Chain::code): the
 * rules one after the other, each Insn either going on to the next or
 * ending its rule with a break (on to the next rule, Insn::to_next_rule
 * on) or a verdict. A rule that runs to its end runs into the next one:
 * NFT_CONTINUE. Jumps keep where to come back (the rule after the jumping
 * one) on a stack of 16, as NFT_JUMP_STACK_SIZE. A base chain's verdict
 * (or its policy) ends it: a drop ends the hook, an accept goes on to the
 * next base chain with an empty jump stack, as the next hook entry would.
 * One loop for the whole window, so chains cost no call each; the
 * register file carries over from chain to chain, which only a rule that
 * reads a register before writing it could tell, and then every chain
 * zeroes it (Chain::zero_regs).
 */
namespace {

/* run_hook() of a hook with chains. */
xb_noinline int32_t run_chains(const Hook &hook, Pkt &p, int64_t prio_lo, int64_t prio_hi)
{
	const HookChain *hc = hook.chains;
	const HookChain *const end = hc + hook.count;
	while (hc != end && hc->priority < prio_lo)
		hc++;
	if (hc == end || hc->priority >= prio_hi)
		return kNfAccept;

	const Insn *stack[kJumpStackSize];
	unsigned depth = 0;
	uint32_t regs[kRegDataWords];
	unsigned int run_cpu = XB_CPU_UNNOTED;	/* per-CPU counters */
	const Chain *base = hc->chain;
	if (base->zero_regs)
		__builtin_memset(regs, 0, sizeof(regs));

	const Insn *in = base->code;
	for (;;) {
		/* What ended the rule: kNftBreak or a verdict code. */
		int32_t code;
		const Chain *target = nullptr;
		bool ok;
		switch (in->op) {
		case Op::ChainEnd:
			/* return, or the base chain's policy */
			if (depth) {
				in = stack[--depth];
				continue;
			}
			code = base->policy;
			goto chain_done;
		case Op::LoadIif:
			if (!word_test(*in, p.in ? p.in->ifindex : 0, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		case Op::LoadOif:
			if (!word_test(*in, p.out ? p.out->ifindex : 0, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		case Op::LoadProtocol: {
			const uint16_t be = uint16_t(p.protocol >> 8 | p.protocol << 8);
			if (!word_test(*in, kLittleEndian ? be : uint32_t(be) << 16,
				       &regs[in->dreg]))
				goto next;
			in++;
			continue;
		}
		case Op::LoadL4proto:
			if (!p.tprot_set ||
			    !word_test(*in, kLittleEndian ? p.l4proto : uint32_t(p.l4proto) << 24,
				       &regs[in->dreg]))
				goto next;
			in++;
			continue;
		case Op::LoadMark:
			if (!word_test(*in, p.mark, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		case Op::LoadCtState: {
			const uint32_t state = p.notrack ? uint32_t(kCtStateUntracked)
					       : p.ct ? uint32_t(p.ct->state) : uint32_t(kCtStateInvalid);
			if (!word_test(*in, state, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		}
		case Op::LoadCtZone: {
			const CtResult *r = p.ct;
			if (!r || !r->entry)
				goto next;
			const uint16_t zone = r->entry->tuple.zone;
			if (!word_test(*in, kLittleEndian ? zone : uint32_t(zone) << 16,
				       &regs[in->dreg]))
				goto next;
			in++;
			continue;
		}
		case Op::LoadNetwork: {
			uint32_t w;
			if (!frame_word(p, uint64_t(p.nhoff) + in->offset, *in, w) ||
			    !word_test(*in, w, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		}
		case Op::LoadTransport: {
			uint32_t w;
			if (!p.tprot_set || p.fragoff ||
			    !frame_word(p, uint64_t(p.thoff) + in->offset, *in, w) ||
			    !word_test(*in, w, &regs[in->dreg]))
				goto next;
			in++;
			continue;
		}
		case Op::Meta:
			ok = eval_meta(*in, p, &regs[in->dreg]);
			goto loaded;
		case Op::Payload:
			ok = eval_payload(*in, p, &regs[in->dreg]);
			goto loaded;
		case Op::CtGet:
			ok = eval_ct_get(*in, p, &regs[in->dreg]);
			goto loaded;
		case Op::CmpEq:
			if (!eval_cmp_eq(*in, &regs[in->sreg]))
				goto next;
			in++;
			continue;
		case Op::Bitwise:
			eval_bitwise(*in, &regs[in->sreg], &regs[in->dreg]);
			in++;
			continue;
		case Op::Immediate:
			copy_to_reg(&regs[in->dreg], in->data, in->len);
			in++;
			continue;
		case Op::Counter:
		case Op::ObjCounter:
			count_frame(*static_cast<Counter *>(in->ref), p, &run_cpu);
			in++;
			continue;
		case Op::CounterVerdict:
			count_frame(*static_cast<Counter *>(in->ref), p, &run_cpu);
			code = in->code;
			__builtin_memcpy(&target, in->data, sizeof(target));
			break;
		case Op::SetCtZone:
			/* nft_ct_set_zone_eval: only before the frame is tracked */
			if (!p.ct) {
				uint16_t zone;
				__builtin_memcpy(&zone, &regs[in->sreg], 2);
				p.ct_zone = zone;
			}
			in++;
			continue;
		case Op::Verdict:
			/* nft_do_chain: NFT_CONTINUE goes on to the next one */
			if (in->code == kNftContinue) {
				in++;
				continue;
			}
			code = in->code;
			target = static_cast<const Chain *>(in->ref);
			break;
		case Op::FlowOffload:
			p.offload = in->ref;
			in++;
			continue;
		case Op::Lookup: {
			SetHit hit;
			const SetIndex *set = static_cast<const SetIndex *>(in->ref);
			const bool found = set->lookup(
				reinterpret_cast<const uint8_t *>(&regs[in->sreg]), hit, p.now_ns);
			if (xb_unlikely(in->flags & kLookupFInv)) {
				/* a set's (no map is inverted): matches when absent */
				if (found)
					goto next;
				in++;
				continue;
			}
			if (!found)
				goto next;
			if (xb_unlikely(hit.exprs != nullptr)) {
				code = eval_hit_exprs(hit, p);
				if (code != kGoOn)
					break;
			}
			if (in->size) {
				if (in->dreg != kDregVerdict) {
					copy_to_reg(&regs[in->dreg], hit.data, in->size);
				} else if (hit.verdict != kNftContinue) {
					code = hit.verdict;
					target = hit.chain;
					break;
				}
			}
			in++;
			continue;
		}
		/* Every other opcode, named so that the switch needs no
		 * range check before its table: no other value is made. */
		case Op::Cmp:
		case Op::Range:
		case Op::Shift:
		case Op::Byteorder:
		case Op::PayloadWrite:
		case Op::MetaSet:
		case Op::Limit:
		case Op::CtSet:
		case Op::Notrack:
		case Op::Log:
		case Op::Quota:
		case Op::ObjQuota:
		case Op::ObjLimit:
		case Op::Numgen:
		case Op::Hash:
		case Op::Exthdr:
		case Op::TcpOptWrite:
		case Op::Reject:
		case Op::Dynset:
		case Op::ObjMap:
		case Op::Connlimit:
			code = eval_other(*in, p, regs);
			if (code == kGoOn) {
				in++;
				continue;
			}
			break;
		default:
			__builtin_unreachable();
		}

		/* The rule ended with @code. */
		if (code == kNftBreak)
			goto next;
		if (code == kNfAccept || code == kNfDrop)
			goto chain_done;
		if (code == kNftJump) {
			if (xb_unlikely(depth >= kJumpStackSize))
				return kNfDrop;
			stack[depth++] = in + in->to_next_rule;
		}
		if (code == kNftJump || code == kNftGoto) {
			in = target->code;
			continue;
		}
		/* return */
		if (depth == 0) {
			code = base->policy;
			goto chain_done;
		}
		in = stack[--depth];
		continue;

chain_done:	/* the base chain's verdict, @code: kNfAccept or kNfDrop */
		if (code == kNfDrop)
			return kNfDrop;
		if (++hc == end || hc->priority >= prio_hi)
			return kNfAccept;
		base = hc->chain;
		depth = 0;
		if (base->zero_regs)
			__builtin_memset(regs, 0, sizeof(regs));
		in = base->code;
		continue;

loaded:		/* a load, and the CmpEq fused into it (lower_rule) */
		if (xb_unlikely(!ok))
			goto next;
		if ((in->flags & kInsnFCmpNext) &&
		    !word_test(*in, regs[in->dreg], &regs[in->dreg]))
			goto next;
		in++;
		continue;

next:		/* the rule broke: on to the next one */
		in += in->to_next_rule;
	}
}

} // namespace

/* A hook without chains costs a look: run_chains() saves registers. */
int32_t run_hook(const Hook &hook, Pkt &p, int64_t prio_lo, int64_t prio_hi)
{
	if (hook.count == 0)
		return kNfAccept;
	return run_chains(hook, p, prio_lo, prio_hi);
}

int32_t run_chain(const Chain &base, Pkt &p)
{
	const HookChain one{0, &base, 0};
	return run_hook(Hook{1, &one}, p);
}

} // namespace xb::nft
