// SPDX-License-Identifier: GPL-2.0
/*
 * ct_proto_dccp.cc - DCCP tracking as nf_conntrack_proto_dccp (see
 * ct_proto_dccp.h). Stateless code over one entry, which the caller
 * serialises with the entry lock.
 */
#include "ct_proto_dccp.h"

#include "ethernet.h"

namespace xb {

namespace {

constexpr uint32_t kDccpHeaderLen = 12;		/* struct dccp_hdr */
constexpr uint32_t kDccpHeaderExtLen = 4;	/* the low 32 sequence bits */

/* Packet types (RFC 4340 5.1). */
enum DccpType : uint8_t {
	kPktRequest = 0,
	kPktResponse = 1,
	kPktData = 2,
	kPktAck = 3,
	kPktDataAck = 4,
	kPktCloseReq = 5,
	kPktClose = 6,
	kPktReset = 7,
	kPktSync = 8,
	kPktSyncAck = 9,
	kPktTypeCount = 10,	/* DCCP_PKT_INVALID: 10..15 are reserved */
};

/* The types that must carry 48-bit sequence numbers (X set). */
constexpr uint16_t kRequireSeq48 = 1u << kPktRequest | 1u << kPktResponse |
				   1u << kPktCloseReq | 1u << kPktClose | 1u << kPktReset |
				   1u << kPktSync | 1u << kPktSyncAck;

/* The header's fields. */
inline uint8_t doff(const uint8_t *dh) { return dh[4]; }
inline uint8_t cscov(const uint8_t *dh) { return dh[5] & 0x0f; }
inline bool x_bit(const uint8_t *dh) { return dh[8] & 0x01; }
inline uint8_t type(const uint8_t *dh) { return (dh[8] >> 1) & 0x0f; }

/* __dccp_basic_hdr_len */
inline uint32_t basic_len(const uint8_t *dh)
{
	return kDccpHeaderLen + (x_bit(dh) ? kDccpHeaderExtLen : 0);
}

/* __dccp_hdr_len: the basic header and the type's own part
 * (dccp_packet_hdr_len: acknowledgement bits 8, Request's service code 4,
 * Response's bits and service code 12, Reset's bits and code 12). */
uint32_t header_len(const uint8_t *dh)
{
	uint32_t n;
	switch (type(dh)) {
	case kPktData: n = 0; break;
	case kPktAck:
	case kPktDataAck:
	case kPktSync:
	case kPktSyncAck:
	case kPktClose:
	case kPktCloseReq: n = 8; break;
	case kPktRequest: n = 4; break;
	default: n = 12; break;	/* Response, Reset */
	}
	return basic_len(dh) + n;
}

/* dccp_hdr_seq: with X, the 16 bits at 10 then the 32 after the header
 * (byte 9 is reserved then); without, 24 bits at 9. */
uint64_t seq(const uint8_t *dh)
{
	const uint64_t s = load_be16(dh + 10);
	if (x_bit(dh))
		return (s << 32) + load_be32(dh + kDccpHeaderLen);
	return s + (uint64_t(dh[9]) << 16);
}

/* dccp_ack_seq: the acknowledgement bits after the basic header, read as
 * the 48-bit form whatever X says. */
uint64_t ack_seq(const uint8_t *dh)
{
	const uint8_t *ack = dh + basic_len(dh);
	return (uint64_t(load_be16(ack + 2)) << 32) + load_be32(ack + 4);
}

/* (No transition leads back to NONE: its column label, sNO, needs no name.) */
constexpr uint8_t sRQ = kDccpRequest, sRS = kDccpRespond,
		  sPO = kDccpPartOpen, sOP = kDccpOpen, sCR = kDccpCloseReq,
		  sCG = kDccpClosing, sTW = kDccpTimeWait, sIG = kDccpIgnore,
		  sIV = kDccpInvalid;

/* Linux's dccp_state_table: [role][packet type][current state]. */
constexpr uint8_t kDccpNextState[2][kPktTypeCount][kDccpStateCount] = {
	{	/* client */
		/*  sNO  sRQ  sRS  sPO  sOP  sCR  sCG  sTW */
		{ sRQ, sRQ, sRS, sIG, sIG, sIG, sIG, sRQ },	/* request */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIV },	/* response */
		{ sIV, sIV, sIV, sIV, sOP, sCR, sCG, sIV },	/* data */
		{ sIV, sIV, sPO, sPO, sOP, sCR, sCG, sIV },	/* ack */
		{ sIV, sIV, sPO, sPO, sOP, sCR, sCG, sIV },	/* dataack */
		{ sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },	/* closereq */
		{ sIV, sIV, sIV, sCG, sCG, sCG, sIV, sIV },	/* close */
		{ sIV, sTW, sTW, sTW, sTW, sTW, sTW, sIG },	/* reset */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIG },	/* sync */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIG },	/* syncack */
	},
	{	/* server */
		/*  sNO  sRQ  sRS  sPO  sOP  sCR  sCG  sTW */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sRQ },	/* request */
		{ sIV, sRS, sRS, sIG, sIG, sIG, sIG, sIV },	/* response */
		{ sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },	/* data */
		{ sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },	/* ack */
		{ sIV, sIV, sIV, sOP, sOP, sIV, sCG, sIV },	/* dataack */
		{ sIV, sIV, sIV, sCR, sCR, sCR, sCR, sIV },	/* closereq */
		{ sIV, sIV, sIV, sCG, sCG, sIV, sCG, sIV },	/* close */
		/* Linux's row has a ninth entry, sIG, in the IGNORE column
		 * no entry is ever in: a server's Reset in TIMEWAIT goes to
		 * TIMEWAIT again and refreshes it (a client's is ignored). */
		{ sIV, sTW, sTW, sTW, sTW, sTW, sTW, sTW },	/* reset */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIG },	/* sync */
		{ sIV, sIG, sIG, sIG, sIG, sIG, sIG, sIG },	/* syncack */
	},
};

void set_handshake_seq(CtDccp &d, uint64_t s)
{
	d.handshake_seq[0] = uint32_t(s >> 32);
	d.handshake_seq[1] = uint32_t(s);
}

uint64_t handshake_seq(const CtDccp &d)
{
	return uint64_t(d.handshake_seq[0]) << 32 | d.handshake_seq[1];
}

} // namespace

CtDccpError ct_dccp_error(const CtPacket &p, bool check)
{
	const uint8_t *dh = p.l3 + p.l4_off;
	const uint32_t len = p.l4_len;

	if (len < kDccpHeaderLen)
		return CtDccpError::Short;	/* skb_header_pointer fails */
	/* a first fragment (never checked) is part of a longer datagram */
	if (doff(dh) * 4u < kDccpHeaderLen || (doff(dh) * 4u > len && !p.fragment))
		return CtDccpError::Invalid;	/* truncated/malformed */
	uint32_t cov = len;
	if (cscov(dh)) {
		cov = (cscov(dh) - 1u) * 4;
		if (cov > len && !p.fragment)
			return CtDccpError::Invalid;	/* bad checksum coverage */
	}
	if (check && cov <= len && !ct_partial_checksum_ok_as_linux(p, kIpProtoDccp, cov))
		return CtDccpError::Invalid;	/* bad checksum */
	const uint8_t t = type(dh);
	if (t >= kPktTypeCount)
		return CtDccpError::Invalid;	/* reserved packet type */
	if ((kRequireSeq48 >> t) & 1 && !x_bit(dh))
		return CtDccpError::Invalid;	/* type lacks 48-bit sequence numbers */
	if (header_len(dh) > len)
		return CtDccpError::Short;	/* dccp_header_pointer fails */
	return CtDccpError::Ok;
}

CtL4Verdict ct_dccp_packet(CtEntry &e, const CtPacket &p, unsigned dir, bool confirmed,
			   uint32_t now)
{
	const uint8_t *dh = p.l3 + p.l4_off;
	const uint8_t t = type(dh);
	CtDccp &d = e.proto.dccp;

	if (!confirmed) {
		/* dccp_new: from NONE only a client's Request leads anywhere
		 * but INVALID, so nf_conntrack_dccp_loose never comes into
		 * it */
		if (kDccpNextState[kDccpRoleClient][t][kDccpNone] != kDccpRequest)
			return CtL4Verdict::Invalid;
		d = CtDccp();
		d.role[0] = kDccpRoleClient;
		d.role[1] = kDccpRoleServer;
		d.state = kDccpNone;
		d.last_pkt = kPktRequest;
		d.last_dir = 0;
	}

	/* a Reset as the only answer: torn down at once, counted */
	if (t == kPktReset && !(e.status_bits() & kCtSeenReply))
		return CtL4Verdict::AcceptKill;

	const uint8_t role = d.role[dir];
	const uint8_t old_state = d.state;
	uint8_t new_state = kDccpNextState[role][t][old_state];

	switch (new_state) {
	case kDccpRequest:
		if (old_state == kDccpTimeWait && role == kDccpRoleServer) {
			/* reincarnation the other way round: swap the roles */
			d.role[dir] = kDccpRoleClient;
			d.role[!dir] = kDccpRoleServer;
		}
		break;
	case kDccpRespond:
		if (old_state == kDccpRequest)
			set_handshake_seq(d, seq(dh));
		break;
	case kDccpPartOpen:
		if (old_state == kDccpRespond && t == kPktAck &&
		    ack_seq(dh) == handshake_seq(d) && !(e.status_bits() & kCtAssured))
			e.set_status(kCtAssured);
		break;
	case kDccpIgnore:
		/* perhaps out of sync: a Response to a Request this entry
		 * ignored resynchronises it, with the roles that pair says */
		if (d.last_dir == !dir && d.last_pkt == kPktRequest && t == kPktResponse) {
			d.role[!dir] = kDccpRoleClient;
			d.role[dir] = kDccpRoleServer;
			set_handshake_seq(d, seq(dh));
			new_state = kDccpRespond;
			break;
		}
		d.last_dir = uint8_t(dir);
		d.last_pkt = t;
		return CtL4Verdict::Ignore;
	case kDccpInvalid:
		return CtL4Verdict::Invalid;
	default:
		break;
	}

	d.last_dir = uint8_t(dir);
	d.last_pkt = t;
	store_once(d.state, new_state);
	store_once(e.expires, now + kCtDccpTimeout[new_state]);
	return CtL4Verdict::Accept;
}

} // namespace xb
