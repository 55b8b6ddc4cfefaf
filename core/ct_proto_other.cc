// SPDX-License-Identifier: GPL-2.0
/*
 * ct_proto_other.cc - UDP, UDP-Lite, ICMP/ICMPv6, GRE and generic tracking (see
 * ct_proto_other.h). Stateless code over one entry.
 */
#include "ct_proto_other.h"

#include "ethernet.h"

namespace xb {

bool ct_udp_error(const CtPacket &p)
{
	if (p.l4_len < 8)
		return true;	/* short packet */
	const uint32_t ulen = load_be16(p.l3 + p.l4_off + 4);
	if (p.fragment)		/* the datagram's length: this part at least */
		return ulen < p.l4_len || ulen < 8;
	return ulen > p.l4_len || ulen < 8;	/* truncated/malformed */
}

CtL4Verdict ct_udp_packet(CtEntry &e, bool confirmed, uint32_t now)
{
	if (!confirmed)
		e.proto.udp.stream_ts = now + kCtUdpStreamDelay;
	if (e.status_bits() & kCtSeenReply) {
		/* replied, and still alive after two seconds: a stream */
		const bool stream = ct_ticks_after(now, e.proto.udp.stream_ts);
		store_once(e.expires, now + (stream ? kCtUdpTimeoutStream : kCtUdpTimeout));
		if (stream && !(e.status_bits() & kCtAssured))
			e.set_status(kCtAssured);
	} else {
		store_once(e.expires, now + kCtUdpTimeout);
	}
	return CtL4Verdict::Accept;
}

CtIcmpClass ct_icmp_classify(const CtPacket &p, uint32_t &inner_off)
{
	inner_off = 0;
	if (p.l4_len < 8)
		return CtIcmpClass::Invalid;	/* short packet */
	const uint8_t *h = p.l3 + p.l4_off;
	const uint8_t type = h[0];
	if (p.tuple.l4proto == kIpProtoIcmp) {
		if (type > 18)
			return CtIcmpClass::Invalid;	/* beyond NR_ICMP_TYPES */
		switch (type) {
		case 3:		/* destination unreachable */
		case 4:		/* source quench */
		case 5:		/* redirect */
		case 11:	/* time exceeded */
		case 12:	/* parameter problem */
			inner_off = 8;
			return CtIcmpClass::Error;
		default:
			return CtIcmpClass::Track;
		}
	}
	switch (type) {
	case 130: case 131: case 132:	/* MLD query, report, done */
	case 133: case 134:		/* router solicitation, advertisement */
	case 135: case 136:		/* neighbour solicitation, advertisement */
	case 143:			/* MLDv2 report */
		return CtIcmpClass::Untracked;
	case 137: {			/* redirect */
		if (p.l4_len < 40)
			return CtIcmpClass::Invalid;	/* short redirect */
		if (h[1] != 0)
			return CtIcmpClass::Track;
		const uint8_t hop_limit = p.l3[7];
		const uint8_t *src = p.l3 + 8;
		if (hop_limit != 255 || src[0] != 0xfe || (src[1] & 0xc0) != 0x80)
			return CtIcmpClass::Invalid;
		if (p.l4_len < 42 || h[41] == 0)
			return CtIcmpClass::Invalid;	/* redirect without options */
		if (h[40] != 4)
			return CtIcmpClass::Track;	/* not a redirected header */
		inner_off = 48;
		return CtIcmpClass::Error;
	}
	default:
		if (type >= 128)
			return CtIcmpClass::Track;
		inner_off = 8;
		return CtIcmpClass::Error;
	}
}

CtL4Verdict ct_icmp_packet(CtEntry &e, bool confirmed, uint32_t now)
{
	const uint8_t type = uint8_t(e.tuple.dport >> 8);
	bool may_start;
	if (e.tuple.l4proto == kIpProtoIcmp) {
		/* checked on every packet, as icmp_packet does */
		may_start = type == 8 || type == 13 || type == 15 || type == 17;
	} else {
		may_start = confirmed || type == 128 || type == 139;
	}
	if (!may_start)
		return CtL4Verdict::Invalid;
	store_once(e.expires, now + (e.tuple.l4proto == kIpProtoIcmp ? kCtIcmpTimeout
								 : kCtIcmpv6Timeout));
	return CtL4Verdict::Accept;
}

bool ct_udplite_error(const CtPacket &p, bool check)
{
	if (p.l4_len < 8)
		return true;	/* short packet */
	const uint8_t *uh = p.l3 + p.l4_off;
	uint32_t cscov = load_be16(uh + 4);
	if (cscov == 0)
		cscov = p.l4_len;	/* the whole datagram */
	else if (cscov < 8 || (cscov > p.l4_len && !p.fragment))
		return true;	/* invalid checksum coverage */
	if (!(uh[6] | uh[7]))
		return true;	/* UDP-Lite mandates checksums */
	/* a first fragment (never checked) may cover bytes it lacks */
	return check && cscov <= p.l4_len && !ct_udplite_checksum_ok_as_linux(p, cscov);
}

namespace {

/* UDP-Lite's and GRE's rule: the unreplied timeout until the reply was
 * seen, then the replied one and ASSURED on every packet after it. */
CtL4Verdict refresh_assured_once_replied(CtEntry &e, uint32_t now, uint32_t unreplied,
					 uint32_t replied)
{
	if (e.status_bits() & kCtSeenReply) {
		store_once(e.expires, now + replied);
		if (!(e.status_bits() & kCtAssured))
			e.set_status(kCtAssured);
	} else {
		store_once(e.expires, now + unreplied);
	}
	return CtL4Verdict::Accept;
}

} // namespace

CtL4Verdict ct_udplite_packet(CtEntry &e, uint32_t now)
{
	return refresh_assured_once_replied(e, now, kCtUdpTimeout, kCtUdpTimeoutStream);
}

CtL4Verdict ct_gre_packet(CtEntry &e, uint32_t now)
{
	return refresh_assured_once_replied(e, now, kCtGreTimeout, kCtGreTimeoutStream);
}

CtL4Verdict ct_generic_packet(CtEntry &e, uint32_t now)
{
	store_once(e.expires, now + kCtGenericTimeout);
	return CtL4Verdict::Accept;
}

} // namespace xb
