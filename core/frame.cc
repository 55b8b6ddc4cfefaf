// SPDX-License-Identifier: GPL-2.0
/*
 * frame.cc - classification of one received Ethernet frame.
 *
 * Ownership and locking: none. classify_frame() reads the caller's frame
 * bytes and writes the caller's FrameInfo; it keeps no state, takes no lock,
 * allocates nothing and calls nothing but compiler builtins, so it may run
 * in any context (softirq included) on any number of CPUs at once.
 *
 * Bounds. Every read is checked against the end of the region it belongs
 * to: the frame (len), then the IP datagram (IPv4 tot_len, IPv6
 * payload_len) once its header is known to be sane. Offsets are uint32_t
 * and bounded by small header sizes, so the sums cannot wrap.
 *
 * Every field of FrameInfo is written on every call: the structure is
 * zeroed first and the fields that are not zero by default are set
 * explicitly, so a FrameInfo recycled from a previous frame never carries
 * that frame's state (seeds/eth-type-trans-thread.txt).
 *
 * Field conventions beyond frame.h:
 *  - Truncated at the Ethernet header: addresses zero, dest_class OtherHost.
 *    Truncated at a VLAN header: addresses and the tags read in full are
 *    reported, ethertype is the TPID of the cut tag, no L3.
 *  - l3_offset is set whenever an IPv4/IPv6 header is announced and L3
 *    parsing is on, even when that header is cut short (l3_truncated).
 *  - l3_truncated: the IP header chain (IPv4 header, or IPv6 header plus
 *    extension headers) is cut short, malformed, longer than
 *    kMaxIpv6ExtHeaders, or its length field claims more bytes than the
 *    frame holds. The tuple is then all zero and l4_offset is 0.
 *  - l4_offset is set when the transport header's position is known (sane
 *    IP header, not a non-first fragment), whatever the protocol and even
 *    when the transport header itself is cut short (tuple_valid false).
 *  - tuple.l4proto is the upper-layer protocol also for non-first
 *    fragments (IPv6: the fragment header's next header).
 *  - Ports are written only when tuple_valid; otherwise they are zero.
 *  - A first fragment (IPv4 MF with offset 0, IPv6 fragment header with
 *    offset 0) is not is_fragment and has its ports; the frame alone does
 *    not say it is part of a fragmented datagram.
 *  - IPv6 payload length 0 after a hop-by-hop header is a jumbogram, bounded
 *    by len (as ipv6_rcv()); otherwise it means an empty payload.
 *
 * @len must be the whole frame, not a linear prefix of it: an IP length
 * field larger than what @len leaves is taken as truncation.
 */
#include "frame.h"

#include "compiler.h"

namespace xb {

namespace {

constexpr uint8_t kIpProtoHopOpts = 0;
constexpr uint8_t kIpProtoIcmp = 1;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint8_t kIpProtoUdp = 17;
constexpr uint8_t kIpProtoRouting = 43;
constexpr uint8_t kIpProtoFragment = 44;
constexpr uint8_t kIpProtoIcmpv6 = 58;
constexpr uint8_t kIpProtoDstOpts = 60;

constexpr uint32_t kIpv4MinHeaderLen = 20;
constexpr uint32_t kIpv6HeaderLen = 40;
constexpr uint32_t kIpv6FragHeaderLen = 8;
constexpr uint32_t kTcpMinHeaderLen = 20;
constexpr uint32_t kUdpHeaderLen = 8;
constexpr uint32_t kIcmpHeaderLen = 8;

constexpr uint16_t kIpv4FragOffsetMask = 0x1fff;
constexpr uint16_t kIpv6FragOffsetMask = 0xfff8;

constexpr uint8_t kIcmpEchoReply = 0;
constexpr uint8_t kIcmpEchoRequest = 8;
constexpr uint8_t kIcmpv6EchoRequest = 128;
constexpr uint8_t kIcmpv6EchoReply = 129;

/* Extension headers walked before giving up on an IPv6 packet. */
constexpr unsigned kMaxIpv6ExtHeaders = 8;

inline bool is_vlan_tpid(uint16_t type)
{
	return type == kEthP8021Q || type == kEthP8021AD;
}

/* Our address first: the common case costs one compare. */
inline DestClass classify_dest(MacKey dst, MacKey host)
{
	if (dst == host)
		return DestClass::Host;
	if (mac_is_multicast(dst))
		return dst == kMacBroadcast ? DestClass::Broadcast :
					      DestClass::Multicast;
	return DestClass::OtherHost;
}

void classify_addresses(const uint8_t *data, const ClassifyParams &params,
			FrameInfo &out)
{
	MacKey dst = mac_load8(data);
	MacKey src = mac_load8(data + 6);

	out.dst = dst;
	out.src = src;
	out.dest_class = classify_dest(dst, params.host_addr);
	out.src_valid = mac_is_valid_unicast(src);
	if (xb_unlikely(mac_is_link_local(dst))) {
		out.link_local = true;
		out.link_local_index = mac_link_local_index(dst);
	}
}

/* Record tag @n; the outermost one is the bridge tag if its TPID matches. */
void record_tag(FrameInfo &out, unsigned n, uint16_t tpid, uint16_t tci,
		bool in_band, const ClassifyParams &params)
{
	out.encap[n].tpid = tpid;
	out.encap[n].tci = tci;
	if (n != 0 || tpid != params.vlan_protocol)
		return;
	out.bridge_tagged = true;
	out.bridge_tag_in_band = in_band;
	out.vid = tci & kVidMask;
	out.pcp = static_cast<uint8_t>(tci >> 13);
}

/*
 * Walk the OOB tag and up to two tags in total. On success *l3_off is the
 * offset just past the final type field. Returns false when an announced
 * in-band tag is cut short.
 */
bool parse_tags(const uint8_t *data, uint32_t len, const OobTag &oob,
		const ClassifyParams &params, FrameInfo &out, uint32_t *l3_off)
{
	uint32_t type_off = 12;
	uint16_t type = load_be16(data + type_off);
	unsigned n = 0;

	if (oob.present)
		record_tag(out, n++, oob.tpid, oob.tci, false, params);

	while (is_vlan_tpid(type)) {
		if (n == 2) {
			out.too_many_tags = true;
			break;
		}
		/* TPID already read; TCI and the next type field follow. */
		if (len < type_off + 2 + kVlanHeaderLen) {
			out.n_encap = static_cast<uint8_t>(n);
			out.ethertype = type;
			return false;
		}
		record_tag(out, n++, type, load_be16(data + type_off + 2), true,
			   params);
		type_off += kVlanHeaderLen;
		type = load_be16(data + type_off);
	}
	out.n_encap = static_cast<uint8_t>(n);
	out.ethertype = type;
	*l3_off = type_off + 2;
	return true;
}

/* ICMP and ICMPv6: echo identifier as sport, type << 8 | code as dport. */
void icmp_ports(const uint8_t *p, uint8_t echo_a, uint8_t echo_b,
		FlowTuple &t)
{
	uint8_t type = p[0];

	t.sport = (type == echo_a || type == echo_b) ? load_be16(p + 4) : 0;
	t.dport = static_cast<uint16_t>(type << 8 | p[1]);
}

/* Transport header at @off, the datagram ending at @end (<= len). */
void parse_l4(const uint8_t *data, uint32_t off, uint32_t end, FrameInfo &out)
{
	const uint8_t *p = data + off;
	uint32_t avail = end - off;
	FlowTuple &t = out.tuple;

	out.l4_offset = static_cast<uint16_t>(off);
	switch (t.l4proto) {
	case kIpProtoTcp: {
		if (avail < kTcpMinHeaderLen)
			return;
		uint32_t doff = uint32_t(p[12] >> 4) * 4;
		if (doff < kTcpMinHeaderLen || doff > avail)
			return;
		t.sport = load_be16(p);
		t.dport = load_be16(p + 2);
		break;
	}
	case kIpProtoUdp:
		if (avail < kUdpHeaderLen)
			return;
		t.sport = load_be16(p);
		t.dport = load_be16(p + 2);
		break;
	case kIpProtoIcmp:
		if (t.l3proto != 4 || avail < kIcmpHeaderLen)
			return;
		icmp_ports(p, kIcmpEchoRequest, kIcmpEchoReply, t);
		break;
	case kIpProtoIcmpv6:
		if (t.l3proto != 6 || avail < kIcmpHeaderLen)
			return;
		icmp_ports(p, kIcmpv6EchoRequest, kIcmpv6EchoReply, t);
		break;
	default:
		return;
	}
	out.tuple_valid = true;
}

/* Returns false when the header is cut short or malformed (l3_truncated). */
bool parse_ipv4(const uint8_t *data, uint32_t len, uint32_t off,
		FrameInfo &out)
{
	const uint8_t *p = data + off;
	uint32_t avail = len - off;

	if (avail < kIpv4MinHeaderLen || (p[0] >> 4) != 4)
		return false;

	uint32_t ihl = uint32_t(p[0] & 0x0f) * 4;
	uint32_t tot_len = load_be16(p + 2);

	if (ihl < kIpv4MinHeaderLen || ihl > avail || tot_len < ihl ||
	    tot_len > avail)
		return false;

	FlowTuple &t = out.tuple;
	t.l3proto = 4;
	t.l4proto = p[9];
	__builtin_memcpy(t.src, p + 12, 4);
	__builtin_memcpy(t.dst, p + 16, 4);
	if (load_be16(p + 6) & kIpv4FragOffsetMask)
		out.is_fragment = true;
	else
		parse_l4(data, off + ihl, off + tot_len, out);
	return true;
}

/* An extension header walked as a (next header, length) pair. */
inline bool is_ipv6_ext(uint8_t nh)
{
	return nh == kIpProtoHopOpts || nh == kIpProtoRouting ||
	       nh == kIpProtoDstOpts || nh == kIpProtoFragment;
}

/*
 * Walk IPv6 extension headers from @off. Returns false when the chain is
 * cut short or too long. Otherwise *nh and *off are the upper-layer protocol
 * and its header; *fragment is set for a non-first fragment (then *off is
 * meaningless).
 */
bool walk_ipv6_ext(const uint8_t *data, uint32_t end, uint8_t *nh,
		   uint32_t *off, bool *fragment)
{
	for (unsigned i = 0; is_ipv6_ext(*nh); i++) {
		const uint8_t *p = data + *off;
		uint32_t avail = end - *off;
		uint32_t hlen;

		if (i == kMaxIpv6ExtHeaders || avail < 8)
			return false;
		if (*nh == kIpProtoFragment) {
			hlen = kIpv6FragHeaderLen;
			if (load_be16(p + 2) & kIpv6FragOffsetMask) {
				*nh = p[0];
				*fragment = true;
				return true;
			}
		} else {
			hlen = (uint32_t(p[1]) + 1) * 8;
			if (hlen > avail)
				return false;
		}
		*nh = p[0];
		*off += hlen;
	}
	return true;
}

/* Returns false when the header chain is cut short or malformed. */
bool parse_ipv6(const uint8_t *data, uint32_t len, uint32_t off,
		FrameInfo &out)
{
	const uint8_t *p = data + off;
	uint32_t avail = len - off;

	if (avail < kIpv6HeaderLen || (p[0] >> 4) != 6)
		return false;

	uint32_t plen = load_be16(p + 4);
	uint8_t nh = p[6];
	uint32_t end = len;
	uint32_t l4_off = off + kIpv6HeaderLen;
	bool fragment = false;

	/* As ipv6_rcv(): a zero length is a jumbogram only after HBH. */
	if (plen != 0 || nh != kIpProtoHopOpts) {
		if (plen > avail - kIpv6HeaderLen)
			return false;
		end = off + kIpv6HeaderLen + plen;
	}
	if (!walk_ipv6_ext(data, end, &nh, &l4_off, &fragment))
		return false;

	FlowTuple &t = out.tuple;
	t.l3proto = 6;
	t.l4proto = nh;
	__builtin_memcpy(t.src, p + 8, 16);
	__builtin_memcpy(t.dst, p + 24, 16);
	if (fragment)
		out.is_fragment = true;
	else
		parse_l4(data, l4_off, end, out);
	return true;
}

void parse_l3(const uint8_t *data, uint32_t len, uint32_t off, FrameInfo &out)
{
	bool ok;

	if (out.ethertype == kEthPIpv4)
		ok = parse_ipv4(data, len, off, out);
	else if (out.ethertype == kEthPIpv6)
		ok = parse_ipv6(data, len, off, out);
	else
		return;
	out.l3_offset = static_cast<uint16_t>(off);
	out.l3_truncated = !ok;
}

} // namespace

bool classify_frame(const uint8_t *data, uint32_t len, const OobTag &oob,
		    const ClassifyParams &params, FrameInfo &out)
{
	uint32_t l3_off = 0;

	__builtin_memset(&out, 0, sizeof(out));
	if (xb_unlikely(len < kEthHeaderLen)) {
		out.status = FrameStatus::Truncated;
		out.dest_class = DestClass::OtherHost;
		return false;
	}
	classify_addresses(data, params, out);
	if (xb_unlikely(!parse_tags(data, len, oob, params, out, &l3_off))) {
		out.status = FrameStatus::Truncated;
		return false;
	}
	out.status = FrameStatus::Ok;
	if (params.parse_l3 && !out.too_many_tags)
		parse_l3(data, len, l3_off, out);
	return true;
}

} // namespace xb
