/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_tuple.h - connection tracking tuples and the parse of one frame into
 * the packet view conntrack works on.
 *
 * Values only: no state, no ownership, no locking. ct_parse() reads only
 * [data, data + len) and writes every field of its output for every frame.
 *
 * A CtTuple is the key of the conntrack table: addresses, the layer-4
 * identifiers, the protocols and the zone (part of the key, as in Linux:
 * equal tuples in two zones are two connections). It is 40 bytes with no
 * padding, so it is compared and hashed as five 64-bit words.
 *
 * Layer-4 identifiers, as nf_conntrack_tuple keeps them:
 *   TCP/UDP     sport, dport (host order)
 *   ICMP/ICMPv6 sport = identifier, dport = type << 8 | code
 *   generic     both zero
 *
 * Frames are seen as nf_conntrack_bridge sees them: the outermost VLAN tag
 * (802.1Q or 802.1ad; out of band or the first in-band tag) is not part of
 * the packet (the kernel has moved it into skb->vlan_tci); the ethertype
 * behind it must be IPv4 or IPv6, anything else (ARP, a second tag, ...)
 * is UNTRACKED. The VLAN is not part of the tuple (Linux's is not either):
 * zones separate VLANs that reuse addresses.
 */
#ifndef XBRIDGE_CORE_CT_TUPLE_H
#define XBRIDGE_CORE_CT_TUPLE_H

#include <stdint.h>

#include "compiler.h"
#include "errors.h"

namespace xb {

constexpr uint8_t kIpProtoIcmp = 1;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint8_t kIpProtoDccp = 33;
constexpr uint8_t kIpProtoGre = 47;
constexpr uint8_t kIpProtoIcmpv6 = 58;
constexpr uint8_t kIpProtoSctp = 132;
constexpr uint8_t kIpProtoUdplite = 136;

constexpr uint8_t kCtL3Ipv4 = 4;
constexpr uint8_t kCtL3Ipv6 = 6;

inline uint64_t ct_load64(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

inline uint32_t ct_load32(const void *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

struct CtTuple {
	uint8_t src[16];	/* network order; IPv4 in the first 4 bytes */
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t l3;		/* kCtL3Ipv4 or kCtL3Ipv6 */
	uint8_t l4proto;	/* IPPROTO_* */
	uint16_t zone;

	/* five word loads a side, no memcmp call */
	bool operator==(const CtTuple &o) const
	{
		return ((ct_load64(src) ^ ct_load64(o.src)) |
			(ct_load64(src + 8) ^ ct_load64(o.src + 8)) |
			(ct_load64(dst) ^ ct_load64(o.dst)) |
			(ct_load64(dst + 8) ^ ct_load64(o.dst + 8)) |
			(ct_load64(&sport) ^ ct_load64(&o.sport))) == 0;
	}
};
static_assert(sizeof(CtTuple) == 40, "a tuple is five words, no padding");

/*
 * Whether @key is @orig's reply tuple (ct_invert_tuple(@orig) == @key),
 * compared in place: addresses and ports crossed, the rest equal. The
 * two ports are one 32-bit word; rotating it by 16 swaps them whatever
 * the byte order. ICMP's inverse maps types, so it takes the long way.
 */
bool ct_tuple_is_reply_icmp(const CtTuple &orig, const CtTuple &key);
inline bool ct_tuple_is_reply(const CtTuple &orig, const CtTuple &key)
{
	const uint32_t ports = ct_load32(&key.sport);
	const uint64_t diff = (ct_load64(orig.src) ^ ct_load64(key.dst)) |
			      (ct_load64(orig.src + 8) ^ ct_load64(key.dst + 8)) |
			      (ct_load64(orig.dst) ^ ct_load64(key.src)) |
			      (ct_load64(orig.dst + 8) ^ ct_load64(key.src + 8)) |
			      (ct_load32(&orig.l3) ^ ct_load32(&key.l3));
	if (diff)
		return false;
	if (xb_unlikely(key.l4proto == kIpProtoIcmp || key.l4proto == kIpProtoIcmpv6))
		return ct_tuple_is_reply_icmp(orig, key);
	return ct_load32(&orig.sport) == (ports << 16 | ports >> 16);
}

/*
 * The reply direction's tuple: addresses and ports swapped; ICMP keeps its
 * identifier and maps the request type to its reply type. Returns false
 * for an ICMP type that has no reply (not a request/reply pair): such a
 * packet cannot start a connection (nf_ct_invert_tuple fails).
 */
bool ct_invert_tuple(const CtTuple &t, CtTuple &out);

/*
 * Control: whether @t can name a connection (a ct request's tuple): family
 * IPv4 or IPv6, IPv4 addresses with nothing beyond their 4 bytes, ICMP
 * only for its own family, ports zero for protocols without them. Returns
 * 0 or fail()s with a message naming the problem.
 */
int ct_tuple_check(const CtTuple &t, Extack *ack);

/* 64-bit hash of a tuple with @seed (an odd multiplier). */
inline uint64_t ct_tuple_hash(const CtTuple &t, uint64_t seed)
{
	uint64_t w[5];
	__builtin_memcpy(w, &t, sizeof(w));
	/* five independent multiplies (they overlap in the pipeline), then
	 * one mixing round with the per-table seed */
	uint64_t h = (w[0] ^ seed) * 0x9e3779b97f4a7c15ull;
	h += (w[1] + seed) * 0xc2b2ae3d27d4eb4full;
	h += (w[2] ^ (seed >> 7)) * 0x165667b19e3779f9ull;
	h += (w[3] + (seed << 5)) * 0xd6e8feb86659fd93ull;
	h += (w[4] ^ (seed >> 13)) * 0xff51afd7ed558ccdull;
	h ^= h >> 32;
	h *= seed;
	return h ^ (h >> 29);
}

enum class CtParse : uint8_t {
	Ok = 0,		/* IPv4/IPv6 with a layer-4 view: track it */
	NotIp,		/* not IPv4/IPv6 behind at most one tag: UNTRACKED */
	BadL3,		/* IP header too short or bad lengths: no ct (INVALID) */
	BadL4,		/* non-first fragment, missing or cut layer-4 header:
			 * counted invalid, INVALID */
};

/* One IP packet as conntrack sees it. */
struct CtPacket {
	CtTuple tuple;		/* zone filled from the caller */
	const uint8_t *l3;	/* the IP header */
	uint32_t l3_len;	/* IP total length (the frame trimmed to it) */
	uint32_t l4_off;	/* from l3 */
	uint32_t l4_len;	/* l3_len - l4_off */
	bool fragment;		/* the first fragment of a fragmented packet */
	bool later_fragment;	/* a fragment after the first (BadL4) */
	uint32_t frag_id;	/* a fragment's identification (IPv4: 16 bits) */
};

/*
 * Parse a frame starting at its Ethernet header. @oob_tag: the caller has
 * already removed the outer tag (the kernel's hwaccel tag), so no in-band
 * tag is skipped. Every field of @out is written.
 */
CtParse ct_parse(const uint8_t *data, uint32_t len, bool oob_tag, uint16_t zone,
		 CtPacket &out);

/* Parse an IP packet starting at its network header (the shim's
 * reassembled packets). @ethertype is 0x0800 or 0x86dd. */
CtParse ct_parse_l3(const uint8_t *l3, uint32_t len, uint16_t ethertype, uint16_t zone,
		    CtPacket &out);

/*
 * Parse the packet quoted inside an ICMP error: usually cut short, so its
 * length fields are not checked against @len (nf_ct_get_tuplepr reads only
 * the IP header and the layer-4 identifiers). @l3 is 4 or 6.
 */
CtParse ct_parse_embedded(const uint8_t *l3, uint32_t len, uint8_t l3_family, uint16_t zone,
			  CtPacket &out);

/*
 * Whether the layer-4 checksum of @p is right (nf_checksum): TCP, UDP and
 * ICMPv6 over a pseudo header, ICMP over its message; an IPv4 UDP
 * checksum of zero means none. Other protocols: true.
 */
bool ct_l4_checksum_ok(const CtPacket &p);

/*
 * UDP-Lite's checksum over its first @cscov bytes, verified as Linux's
 * udplite_error verifies it (nf_checksum_partial with IPPROTO_UDP): the
 * pseudo-header carries protocol 17, not UDP-Lite's 136, and for IPv4
 * (nf_ip_checksum_partial passes the protocol and length the other way
 * round, the length as the 8-bit protocol) its length word is
 * 17 + (length mod 256). A checksum RFC 3828 computes therefore fails
 * here, as it fails in the Linux bridge's conntrack, unless the kernel
 * already vouched for it (csum_ok).
 */
bool ct_udplite_checksum_ok_as_linux(const CtPacket &p, uint32_t cscov);

/*
 * The same partial checksum for @proto, as nf_checksum_partial verifies a
 * CHECKSUM_NONE packet: the first @cscov bytes; IPv4's pseudo-header word
 * for length and protocol is @proto + (length mod 256) (the swapped
 * arguments above), IPv6's is right. DCCP's checksum (RFC 4340 9.1) thus
 * passes over IPv4 only while the packet is under 256 bytes.
 */
bool ct_partial_checksum_ok_as_linux(const CtPacket &p, uint8_t proto, uint32_t cscov);

} // namespace xb

#endif /* XBRIDGE_CORE_CT_TUPLE_H */
