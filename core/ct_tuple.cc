// SPDX-License-Identifier: GPL-2.0
/*
 * ct_tuple.cc - frame parse and tuple helpers for conntrack. Pure functions:
 * no state, no locking, no allocation; safe in any context.
 *
 * The checks follow nf_conntrack_bridge (nf_ct_br_ip_check,
 * nf_ct_br_ipv6_check: a bad IP header leaves the packet without a ct)
 * and nf_conntrack_core's get_l4proto/nf_ct_get_tuple (a non-first
 * fragment, a missing layer-4 protocol or identifiers: counted invalid).
 * Reassembly is not done here; see Documentation/conntrack.md.
 */
#include "ct_tuple.h"

#include "compiler.h"
#include "ethernet.h"

namespace xb {

namespace {

constexpr uint8_t kV6Hop = 0, kV6Routing = 43, kV6Fragment = 44, kV6Auth = 51,
		  kV6None = 59, kV6Dest = 60;
/* GRE: the version bits of the first word, and PPTP's payload type */
constexpr uint16_t kGreVersionMask = 0x0007, kGreProtoPpp = 0x880b;

/* ICMP request <-> reply types; 0xff: no inverse. */
uint8_t icmp_inverse_type(uint8_t type)
{
	switch (type) {
	case 8: return 0;	/* echo -> echo reply */
	case 0: return 8;
	case 13: return 14;	/* timestamp */
	case 14: return 13;
	case 15: return 16;	/* information request */
	case 16: return 15;
	case 17: return 18;	/* address mask */
	case 18: return 17;
	default: return 0xff;
	}
}

uint8_t icmpv6_inverse_type(uint8_t type)
{
	switch (type) {
	case 128: return 129;	/* echo request -> echo reply */
	case 129: return 128;
	case 139: return 140;	/* node information query */
	case 140: return 139;
	default: return 0xff;
	}
}

xb_always_inline void clear(CtPacket &out, uint16_t zone)
{
	__builtin_memset(&out.tuple, 0, sizeof(out.tuple));
	out.tuple.zone = zone;
	out.l3 = nullptr;
	out.l3_len = 0;
	out.l4_off = 0;
	out.l4_len = 0;
	out.fragment = false;
	out.later_fragment = false;
	out.frag_id = 0;
}

/* The layer-4 identifiers at @l4 (@avail bytes readable). */
xb_always_inline CtParse read_l4_ids(const uint8_t *l4, uint32_t avail, CtTuple &t)
{
	if (xb_likely(t.l4proto == kIpProtoTcp)) {	/* the bulk of the traffic */
		if (avail < 4)
			return CtParse::BadL4;
		t.sport = load_be16(l4);
		t.dport = load_be16(l4 + 2);
		return CtParse::Ok;
	}
	switch (t.l4proto) {
	case kIpProtoUdp:
	case kIpProtoUdplite:
	case kIpProtoSctp:
	case kIpProtoDccp:
		if (avail < 4)
			return CtParse::BadL4;
		t.sport = load_be16(l4);
		t.dport = load_be16(l4 + 2);
		return CtParse::Ok;
	case kIpProtoIcmp:
	case kIpProtoIcmpv6:
		if (avail < 8)
			return CtParse::BadL4;
		t.dport = uint16_t(l4[0] << 8 | l4[1]);	/* type, code */
		t.sport = load_be16(l4 + 4);		/* identifier */
		return CtParse::Ok;
	case kIpProtoGre:
		/* gre_pkt_to_tuple: keys only for PPTP's enhanced GRE
		 * (version 1), whose call ID is the destination key; the
		 * source key would come from the PPTP helper's keymap (none
		 * here: 0). Any other GRE, or a header too short to tell,
		 * has no keys. Version 1 carrying anything but PPP has no
		 * tuple at all. */
		if (avail < 4 || (load_be16(l4) & kGreVersionMask) != 1 || avail < 8)
			return CtParse::Ok;
		if (load_be16(l4 + 2) != kGreProtoPpp)
			return CtParse::BadL4;
		t.dport = load_be16(l4 + 6);
		return CtParse::Ok;
	default:
		return CtParse::Ok;
	}
}

/*
 * IPv4 at @l3 with @len readable bytes. @outer: check the lengths as
 * nf_ct_br_ip_check does and trim to tot_len; else (an ICMP-quoted
 * packet) read only the header and the identifiers. Writes every field
 * of @out (the packet in zone @zone): cleared when the header is refused,
 * else each once, without clearing first.
 */
xb_always_inline CtParse parse_ipv4(const uint8_t *l3, uint32_t len, bool outer, uint16_t zone,
				    CtPacket &out)
{
	if (len < 20) {
		clear(out, zone);
		return CtParse::BadL3;
	}
	const uint8_t ihl = l3[0] & 0x0f;
	if ((l3[0] >> 4) != 4 || ihl < 5) {
		clear(out, zone);
		return CtParse::BadL3;
	}
	const uint32_t hlen = uint32_t(ihl) * 4;
	uint32_t total = load_be16(l3 + 2);
	if (outer) {
		if (len < total || total < hlen) {
			clear(out, zone);
			return CtParse::BadL3;
		}
	} else {
		if (len < hlen) {
			clear(out, zone);
			return CtParse::BadL4;
		}
		total = len;
	}
	CtTuple &t = out.tuple;
	__builtin_memcpy(t.src, l3 + 12, 4);
	__builtin_memset(t.src + 4, 0, 12);
	__builtin_memcpy(t.dst, l3 + 16, 4);
	__builtin_memset(t.dst + 4, 0, 12);
	t.sport = 0;
	t.dport = 0;
	t.l3 = kCtL3Ipv4;
	t.l4proto = l3[9];
	t.zone = zone;
	out.l3 = l3;
	out.l3_len = total;
	out.l4_off = hlen;
	out.l4_len = total - hlen;
	const uint16_t frag = load_be16(l3 + 6);
	out.frag_id = load_be16(l3 + 4);
	out.later_fragment = (frag & 0x1fff) != 0;
	out.fragment = !out.later_fragment && (frag & 0x2000);
	if (out.later_fragment)
		return CtParse::BadL4;	/* not the first fragment */
	return read_l4_ids(l3 + hlen, total - hlen, t);
}

CtParse parse_ipv6(const uint8_t *l3, uint32_t len, bool outer, CtPacket &out)
{
	if (len < 40)
		return CtParse::BadL3;
	if ((l3[0] >> 4) != 6)
		return CtParse::BadL3;
	uint32_t total = 40u + load_be16(l3 + 4);
	if (outer) {
		if (total > len)
			return CtParse::BadL3;	/* nf_ct_br_ipv6_check */
	} else {
		total = len;
	}
	CtTuple &t = out.tuple;
	t.l3 = kCtL3Ipv6;
	__builtin_memcpy(t.src, l3 + 8, 16);
	__builtin_memcpy(t.dst, l3 + 24, 16);
	out.l3 = l3;
	out.l3_len = total;

	/* ipv6_skip_exthdr */
	uint8_t next = l3[6];
	uint32_t off = 40;
	for (;;) {
		if (next != kV6Hop && next != kV6Routing && next != kV6Fragment &&
		    next != kV6Auth && next != kV6None && next != kV6Dest)
			break;
		if (next == kV6None)
			return CtParse::BadL4;
		if (off + 8 > total)
			return CtParse::BadL4;
		const uint8_t *h = l3 + off;
		uint32_t hlen;
		if (next == kV6Fragment) {
			const uint16_t frag = load_be16(h + 2);
			out.frag_id = uint32_t(load_be16(h + 4)) << 16 | load_be16(h + 6);
			if (frag & ~0x7u) {
				out.later_fragment = true;
				return CtParse::BadL4;	/* not the first fragment */
			}
			out.fragment = true;
			hlen = 8;
		} else if (next == kV6Auth) {
			hlen = (uint32_t(h[1]) + 2) << 2;
		} else {
			hlen = (uint32_t(h[1]) + 1) << 3;
		}
		next = h[0];
		off += hlen;
	}
	if (off > total)
		return CtParse::BadL4;
	t.l4proto = next;
	out.l4_off = off;
	out.l4_len = total - off;
	return read_l4_ids(l3 + off, total - off, t);
}

/* An outer IP packet of @ethertype at @l3 (ct_parse_l3, and ct_parse's
 * copy, where IPv4's checks inline into the frame's). */
xb_always_inline CtParse parse_l3(const uint8_t *l3, uint32_t len, uint16_t ethertype,
				  uint16_t zone, CtPacket &out)
{
	if (xb_likely(ethertype == kEthPIpv4))
		return parse_ipv4(l3, len, true, zone, out);
	clear(out, zone);
	if (ethertype == kEthPIpv6)
		return parse_ipv6(l3, len, true, out);
	return CtParse::NotIp;
}

} // namespace

bool ct_invert_tuple(const CtTuple &t, CtTuple &out)
{
	__builtin_memcpy(out.src, t.dst, 16);
	__builtin_memcpy(out.dst, t.src, 16);
	out.l3 = t.l3;
	out.l4proto = t.l4proto;
	out.zone = t.zone;
	if (t.l4proto == kIpProtoIcmp || t.l4proto == kIpProtoIcmpv6) {
		const uint8_t type = uint8_t(t.dport >> 8);
		const uint8_t inv = t.l4proto == kIpProtoIcmp ? icmp_inverse_type(type)
							       : icmpv6_inverse_type(type);
		out.sport = t.sport;
		out.dport = uint16_t(inv << 8 | (t.dport & 0xff));
		return inv != 0xff;
	}
	out.sport = t.dport;
	out.dport = t.sport;
	return true;
}

bool ct_tuple_is_reply_icmp(const CtTuple &orig, const CtTuple &key)
{
	CtTuple inv;
	return ct_invert_tuple(key, inv) && inv == orig;
}

int ct_tuple_check(const CtTuple &t, Extack *ack)
{
	if (t.l3 != kCtL3Ipv4 && t.l3 != kCtL3Ipv6)
		return fail(ack, kEINVAL, "conntrack tuple: family must be IPv4 or IPv6");
	if (t.l3 == kCtL3Ipv4)
		for (int i = 4; i < 16; i++)
			if (t.src[i] || t.dst[i])
				return fail(ack, kEINVAL, "conntrack tuple: IPv4 address longer than 4 bytes");
	if ((t.l4proto == kIpProtoIcmp && t.l3 != kCtL3Ipv4) ||
	    (t.l4proto == kIpProtoIcmpv6 && t.l3 != kCtL3Ipv6))
		return fail(ack, kEINVAL, "conntrack tuple: ICMP protocol of the other family");
	const bool has_ids = t.l4proto == kIpProtoTcp || t.l4proto == kIpProtoUdp ||
			     t.l4proto == kIpProtoIcmp || t.l4proto == kIpProtoIcmpv6 ||
			     t.l4proto == kIpProtoUdplite || t.l4proto == kIpProtoSctp ||
			     t.l4proto == kIpProtoDccp || t.l4proto == kIpProtoGre;
	if (!has_ids && (t.sport || t.dport))
		return fail(ack, kEINVAL, "conntrack tuple: ports given for a protocol without ports");
	return 0;
}

CtParse ct_parse_l3(const uint8_t *l3, uint32_t len, uint16_t ethertype, uint16_t zone,
		    CtPacket &out)
{
	return parse_l3(l3, len, ethertype, zone, out);
}

CtParse ct_parse_embedded(const uint8_t *l3, uint32_t len, uint8_t l3_family, uint16_t zone,
			  CtPacket &out)
{
	if (l3_family == kCtL3Ipv4)
		return parse_ipv4(l3, len, false, zone, out);
	clear(out, zone);
	return parse_ipv6(l3, len, false, out);
}

static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t sum)
{
	uint64_t acc = sum;
	uint32_t i = 0;
	for (; i + 1 < len; i += 2)
		acc += uint32_t(p[i] << 8 | p[i + 1]);
	if (i < len)
		acc += uint32_t(p[i] << 8);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return uint32_t(acc);
}

bool ct_l4_checksum_ok(const CtPacket &p)
{
	const uint8_t proto = p.tuple.l4proto;
	const uint8_t *l4 = p.l3 + p.l4_off;
	if (proto != kIpProtoTcp && proto != kIpProtoUdp && proto != kIpProtoIcmp &&
	    proto != kIpProtoIcmpv6)
		return true;
	if (proto == kIpProtoUdp && p.tuple.l3 == kCtL3Ipv4 && p.l4_len >= 8 &&
	    l4[6] == 0 && l4[7] == 0)
		return true;
	uint32_t sum = 0;
	if (proto != kIpProtoIcmp) {
		const uint32_t alen = p.tuple.l3 == kCtL3Ipv4 ? 4 : 16;
		sum = sum16(p.tuple.src, alen, sum);
		sum = sum16(p.tuple.dst, alen, sum);
		sum += proto;
		sum += p.l4_len & 0xffff;
		sum += p.l4_len >> 16;
	}
	sum = sum16(l4, p.l4_len, sum);
	return sum == 0xffff;
}

bool ct_partial_checksum_ok_as_linux(const CtPacket &p, uint8_t proto, uint32_t cscov)
{
	const uint32_t alen = p.tuple.l3 == kCtL3Ipv4 ? 4 : 16;
	uint32_t sum = sum16(p.tuple.src, alen, 0);
	sum = sum16(p.tuple.dst, alen, sum);
	if (p.tuple.l3 == kCtL3Ipv4) {
		sum += proto + (p.l4_len & 0xff);
	} else {
		sum += proto;
		sum += p.l4_len & 0xffff;
		sum += p.l4_len >> 16;
	}
	sum = sum16(p.l3 + p.l4_off, cscov, sum);
	return sum == 0xffff;
}

bool ct_udplite_checksum_ok_as_linux(const CtPacket &p, uint32_t cscov)
{
	return ct_partial_checksum_ok_as_linux(p, kIpProtoUdp, cscov);
}

CtParse ct_parse(const uint8_t *data, uint32_t len, bool oob_tag, uint16_t zone, CtPacket &out)
{
	if (len < kEthHeaderLen) {
		clear(out, zone);
		return CtParse::NotIp;
	}
	uint32_t off = 12;
	uint16_t type = load_be16(data + off);
	if (!oob_tag && (type == kEthP8021Q || type == kEthP8021AD)) {
		/* the kernel moves this tag out of band before the bridge */
		if (len < kEthHeaderLen + kVlanHeaderLen) {
			clear(out, zone);
			return CtParse::NotIp;
		}
		off += kVlanHeaderLen;
		type = load_be16(data + off);
	}
	off += 2;
	return parse_l3(data + off, len - off, type, zone, out);
}

} // namespace xb
