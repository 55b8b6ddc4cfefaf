// SPDX-License-Identifier: GPL-2.0
/*
 * ct_proto_sctp.cc - SCTP tracking as nf_conntrack_proto_sctp (see
 * ct_proto_sctp.h). Stateless code over one entry, which the caller
 * serialises with the entry lock.
 */
#include "ct_proto_sctp.h"

#include "ethernet.h"

namespace xb {

namespace {

constexpr uint32_t kSctpHeaderLen = 12;	/* ports, vtag, checksum */
constexpr uint32_t kSctpChunkHeaderLen = 4;	/* type, flags, length */
constexpr uint32_t kSctpInitHeaderLen = 16;	/* init tag .. initial TSN */

/* Chunk types (RFC 9260 section 3.2). */
enum SctpChunkType : uint8_t {
	kChunkData = 0,
	kChunkInit = 1,
	kChunkInitAck = 2,
	kChunkSack = 3,
	kChunkHeartbeat = 4,
	kChunkHeartbeatAck = 5,
	kChunkAbort = 6,
	kChunkShutdown = 7,
	kChunkShutdownAck = 8,
	kChunkError = 9,
	kChunkCookieEcho = 10,
	kChunkCookieAck = 11,
	kChunkShutdownComplete = 14,
};

constexpr uint8_t kChunkFlagT = 0x01;	/* ABORT, SHUTDOWN_COMPLETE: the
					 * sender had no TCB (the peer's vtag) */
constexpr uint8_t kSctpFlagHeartbeatVtagFailed = 0x01;

/* The CRC32c table (reflected polynomial 0x82f63b78), built at compile time. */
struct Crc32cTable {
	uint32_t v[256];
	constexpr Crc32cTable() : v()
	{
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = (c >> 1) ^ (c & 1 ? 0x82f63b78u : 0);
			v[i] = c;
		}
	}
};
constexpr Crc32cTable kCrc32c;

inline uint32_t crc32c_update(uint32_t crc, const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		crc = kCrc32c.v[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

/* The chunk types a packet carries (do_basic_checks' map). */
struct ChunkMap {
	uint64_t bits[4] = {};
	void set(uint8_t type) { bits[type >> 6] |= uint64_t(1) << (type & 63); }
	bool has(uint8_t type) const { return bits[type >> 6] & (uint64_t(1) << (type & 63)); }
};

/*
 * Walks the chunks as for_each_sctp_chunk: from the end of the common
 * header while a whole chunk header is inside the packet, each chunk's
 * length rounded up to 4. A chunk whose length runs past the end simply
 * ends the walk. Only used after basic_checks (no zero lengths: progress).
 */
struct ChunkWalk {
	const uint8_t *sctp;
	uint32_t len;
	uint32_t off = kSctpHeaderLen;

	bool valid() const { return off + kSctpChunkHeaderLen <= len; }
	uint8_t type() const { return sctp[off]; }
	uint8_t flags() const { return sctp[off + 1]; }
	uint16_t length() const { return load_be16(sctp + off + 2); }
	void next() { off += (uint32_t(length()) + 3) & ~3u; }
	/* An INIT or INIT_ACK's initiate tag; false if cut short. */
	bool init_tag(uint32_t &tag) const
	{
		if (off + kSctpChunkHeaderLen + kSctpInitHeaderLen > len)
			return false;
		tag = load_be32(sctp + off + kSctpChunkHeaderLen);
		return true;
	}
};

/*
 * do_basic_checks: at least one chunk, none of zero length, COOKIE_ECHO /
 * COOKIE_ACK only first, and INIT / INIT_ACK / SHUTDOWN_COMPLETE alone
 * (nothing may follow them either). Fills @map; false: invalid.
 */
bool basic_checks(const uint8_t *sctp, uint32_t len, ChunkMap &map)
{
	bool must_be_alone = false;
	uint32_t count = 0;
	for (ChunkWalk c{sctp, len}; c.valid(); c.next(), count++) {
		const uint8_t type = c.type();
		if (type == kChunkInit || type == kChunkInitAck || type == kChunkShutdownComplete)
			must_be_alone = true;
		const bool must_be_first = type == kChunkCookieAck || type == kChunkCookieEcho ||
					   must_be_alone;
		if ((must_be_first && count != 0) || c.length() == 0)
			return false;
		map.set(type);
	}
	return count != 0;
}

/* (No transition leads back to NONE: its column label, sNO, needs no name.) */
constexpr uint8_t sCL = kSctpClosed, sCW = kSctpCookieWait,
		  sCE = kSctpCookieEchoed, sES = kSctpEstablished, sSS = kSctpShutdownSent,
		  sSR = kSctpShutdownRecd, sSA = kSctpShutdownAckSent, sHS = kSctpHeartbeatSent,
		  sIV = kSctpStateCount;	/* invalid */

/* The rows of the state table, by chunk type; -1: the chunk does not move
 * the state (DATA, SACK, ...). */
int chunk_row(uint8_t type)
{
	switch (type) {
	case kChunkInit: return 0;
	case kChunkInitAck: return 1;
	case kChunkAbort: return 2;
	case kChunkShutdown: return 3;
	case kChunkShutdownAck: return 4;
	case kChunkError: return 5;
	case kChunkCookieEcho: return 6;
	case kChunkCookieAck: return 7;
	case kChunkShutdownComplete: return 8;
	case kChunkHeartbeat: return 9;
	case kChunkHeartbeatAck: return 10;
	default: return -1;
	}
}

/* Linux's sctp_conntracks: [direction][row][current state]. */
constexpr uint8_t kSctpNextState[2][11][kSctpStateCount] = {
	{	/* original direction */
		/*  sNO  sCL  sCW  sCE  sES  sSS  sSR  sSA  sHS */
		{ sCL, sCL, sCW, sCE, sES, sCL, sCL, sSA, sCW },	/* init */
		{ sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sCL },	/* init_ack */
		{ sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },	/* abort */
		{ sCL, sCL, sCW, sCE, sSS, sSS, sSR, sSA, sCL },	/* shutdown */
		{ sSA, sCL, sCW, sCE, sES, sSA, sSA, sSA, sSA },	/* shutdown_ack */
		{ sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sCL },	/* error */
		{ sCL, sCL, sCE, sCE, sES, sSS, sSR, sSA, sCL },	/* cookie_echo */
		{ sCL, sCL, sCW, sES, sES, sSS, sSR, sSA, sCL },	/* cookie_ack */
		{ sCL, sCL, sCW, sCE, sES, sSS, sSR, sCL, sCL },	/* shutdown_complete */
		{ sHS, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },	/* heartbeat */
		{ sCL, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },	/* heartbeat_ack */
	},
	{	/* reply direction */
		/*  sNO  sCL  sCW  sCE  sES  sSS  sSR  sSA  sHS */
		{ sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sIV },	/* init */
		{ sIV, sCW, sCW, sCE, sES, sSS, sSR, sSA, sIV },	/* init_ack */
		{ sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sIV },	/* abort */
		{ sIV, sCL, sCW, sCE, sSR, sSS, sSR, sSA, sIV },	/* shutdown */
		{ sIV, sCL, sCW, sCE, sES, sSA, sSA, sSA, sIV },	/* shutdown_ack */
		{ sIV, sCL, sCW, sCL, sES, sSS, sSR, sSA, sIV },	/* error */
		{ sIV, sCL, sCE, sCE, sES, sSS, sSR, sSA, sIV },	/* cookie_echo */
		{ sIV, sCL, sCW, sES, sES, sSS, sSR, sSA, sIV },	/* cookie_ack */
		{ sIV, sCL, sCW, sCE, sES, sSS, sSR, sCL, sIV },	/* shutdown_complete */
		{ sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sHS },	/* heartbeat */
		{ sIV, sCL, sCW, sCE, sES, sSS, sSR, sSA, sES },	/* heartbeat_ack */
	},
};

uint8_t next_state(unsigned dir, uint8_t cur, uint8_t type)
{
	const int row = chunk_row(type);
	return row < 0 ? cur : kSctpNextState[dir][row][cur];
}

/*
 * sctp_new: an out-of-the-blue packet may start an entry only if every
 * chunk moves NONE somewhere in the original direction; its INIT (with
 * vtag 0), HEARTBEAT or SHUTDOWN_ACK tells which tag to expect.
 */
bool sctp_new(CtSctp &s, const uint8_t *sctp, uint32_t len)
{
	s = CtSctp();
	const uint32_t vtag = load_be32(sctp + 4);
	for (ChunkWalk c{sctp, len}; c.valid(); c.next()) {
		const uint8_t st = next_state(0, kSctpNone, c.type());
		if (st == kSctpNone || st == sIV)
			return false;
		switch (c.type()) {
		case kChunkInit: {
			uint32_t tag;
			if (vtag != 0 || !c.init_tag(tag))
				return false;
			s.vtag[1] = tag;
			break;
		}
		case kChunkHeartbeat:
			s.vtag[0] = vtag;
			break;
		case kChunkShutdownAck:
			/* answered by SHUTDOWN_COMPLETE or ABORT (8.4 (5), (8)) */
			s.vtag[1] = vtag;
			break;
		default:
			break;
		}
	}
	return true;
}

/* The verification tag an ABORT or SHUTDOWN_COMPLETE must carry: the
 * receiver's own, or with the T bit the sender's (RFC 9260 8.5.1 (B), (C)). */
bool t_bit_vtag_ok(const CtSctp &s, unsigned dir, uint8_t flags, uint32_t vtag)
{
	return vtag == s.vtag[(flags & kChunkFlagT) ? !dir : dir];
}

} // namespace

uint32_t ct_sctp_crc32c(const uint8_t *sctp, uint32_t len)
{
	static const uint8_t zero[4] = {};
	uint32_t crc = crc32c_update(0xffffffffu, sctp, 8);
	crc = crc32c_update(crc, zero, 4);
	crc = crc32c_update(crc, sctp + kSctpHeaderLen, len - kSctpHeaderLen);
	return ~crc;
}

bool ct_sctp_error(const CtPacket &p, bool check)
{
	if (p.l4_len < kSctpHeaderLen)
		return true;	/* short packet */
	if (!check)
		return false;
	const uint8_t *sh = p.l3 + p.l4_off;
	const uint32_t stored = uint32_t(sh[8]) | uint32_t(sh[9]) << 8 | uint32_t(sh[10]) << 16 |
				uint32_t(sh[11]) << 24;
	return stored != ct_sctp_crc32c(sh, p.l4_len);	/* bad CRC */
}

CtL4Verdict ct_sctp_packet(CtEntry &e, const CtPacket &p, unsigned dir, bool confirmed,
			   uint32_t now)
{
	const uint8_t *sh = p.l3 + p.l4_off;
	const uint32_t len = p.l4_len;
	CtSctp &s = e.proto.sctp;
	ChunkMap map;

	if (!basic_checks(sh, len, map))
		return CtL4Verdict::Invalid;
	if (!confirmed) {
		/* out of the blue: discard these (RFC 9260 8.4) */
		if (map.has(kChunkAbort) || map.has(kChunkShutdownComplete) ||
		    map.has(kChunkCookieAck))
			return CtL4Verdict::Invalid;
		if (!sctp_new(s, sh, len))
			return CtL4Verdict::Invalid;
	}

	/* The verification tag (8.5); the chunks exempted here have rules
	 * of their own below. */
	const uint32_t vtag = load_be32(sh + 4);
	if (!map.has(kChunkInit) && !map.has(kChunkShutdownComplete) &&
	    !map.has(kChunkCookieEcho) && !map.has(kChunkAbort) &&
	    !map.has(kChunkShutdownAck) && !map.has(kChunkHeartbeat) &&
	    !map.has(kChunkHeartbeatAck) && vtag != s.vtag[dir])
		return CtL4Verdict::Invalid;

	uint8_t old_state = kSctpNone, new_state = kSctpNone;
	bool ignore = false;
	for (ChunkWalk c{sh, len}; c.valid(); c.next()) {
		const uint8_t type = c.type();
		switch (type) {
		case kChunkInit:
			if (vtag != 0)
				return CtL4Verdict::Invalid;	/* 8.5.1 (A) */
			break;
		case kChunkAbort:
		case kChunkShutdownComplete:
			if (!t_bit_vtag_ok(s, dir, c.flags(), vtag))
				return CtL4Verdict::Invalid;
			break;
		case kChunkCookieEcho:
			if (vtag != s.vtag[dir])
				return CtL4Verdict::Invalid;	/* 8.5.1 (D) */
			break;
		case kChunkCookieAck:
			s.init[0] = s.init[1] = 0;
			break;
		case kChunkHeartbeat:
			if (s.vtag[dir] == 0) {
				s.vtag[dir] = vtag;
			} else if (vtag != s.vtag[dir]) {
				/* perhaps a restarted peer: let one through
				 * unrefreshed and see whether the other side
				 * answers it */
				if (map.has(kChunkData) || ignore)
					return CtL4Verdict::Invalid;
				s.flags |= kSctpFlagHeartbeatVtagFailed;
				s.last_dir = uint8_t(dir);
				ignore = true;
				continue;
			} else {
				s.flags &= uint8_t(~kSctpFlagHeartbeatVtagFailed);
			}
			break;
		case kChunkHeartbeatAck:
			if (s.vtag[dir] == 0) {
				s.vtag[dir] = vtag;
			} else if (vtag != s.vtag[dir]) {
				if (map.has(kChunkData) || ignore)
					return CtL4Verdict::Invalid;
				/* the answer to a heartbeat whose vtag failed,
				 * from the other side: adopt the new tag */
				if (!(s.flags & kSctpFlagHeartbeatVtagFailed) || s.last_dir == dir)
					return CtL4Verdict::Invalid;
				s.flags &= uint8_t(~kSctpFlagHeartbeatVtagFailed);
				s.vtag[dir] = vtag;
				s.vtag[!dir] = 0;
			} else {
				s.flags &= uint8_t(~kSctpFlagHeartbeatVtagFailed);
			}
			break;
		default:
			break;
		}

		old_state = s.state;
		new_state = next_state(dir, old_state, type);
		if (new_state == sIV)
			return CtL4Verdict::Invalid;

		if (type == kChunkInit) {
			uint32_t tag;
			if (!c.init_tag(tag))
				return CtL4Verdict::Invalid;
			/* an INIT bearing the peer's tag is stale or repeated:
			 * not a new initiation */
			if (old_state == kSctpNone || s.vtag[!dir] != tag) {
				if (s.init[dir] && s.init[!dir])
					s.init[!dir] = 0;
				s.init[dir] = 1;
			}
			s.vtag[!dir] = tag;
			/* an INIT repeated in CLOSED does not keep the entry
			 * alive (a reused port, a NAT middlebox) */
			if (new_state == kSctpClosed && old_state == kSctpClosed && confirmed)
				ignore = true;
		} else if (type == kChunkInitAck) {
			uint32_t tag;
			if (!c.init_tag(tag))
				return CtL4Verdict::Invalid;
			const uint32_t known = s.vtag[!dir];
			if (!s.init[!dir] && known && known != tag)
				return CtL4Verdict::Invalid;
			if (s.init[dir] && s.init[!dir] && known != tag)
				return CtL4Verdict::Invalid;	/* collision */
			s.vtag[!dir] = tag;
		}

		store_once(s.state, new_state);
		if (old_state != new_state && new_state == kSctpEstablished &&
		    !(e.status_bits() & kCtAssured))
			e.set_status(kCtAssured);
	}

	if (ignore)
		return CtL4Verdict::Ignore;
	store_once(e.expires, now + kCtSctpTimeout[new_state]);
	return CtL4Verdict::Accept;
}

} // namespace xb
