/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_proto_tcp.h - the TCP tracker: nf_conntrack_proto_tcp's state table
 * (with syn_sent2 for simultaneous open), window tracking with scaling,
 * the RST checks, mid-stream pickup (nf_conntrack_tcp_loose=1) and the
 * timeout choice.
 *
 * No state of its own. It changes one entry's CtTcp, status and expiry;
 * the caller (ct_track) holds the entry's spin bit for a confirmed entry
 * (an unconfirmed one belongs to the frame alone).
 */
#ifndef XBRIDGE_CORE_CT_PROTO_TCP_H
#define XBRIDGE_CORE_CT_PROTO_TCP_H

#include <stdint.h>

#include "ct_table.h"
#include "ct_tuple.h"
#include "ethernet.h"
#include "kernel_version.h"

namespace xb {

/*
 * The timeout of a RST that leaves an assured connection ESTABLISHED (in
 * window, but not at the exact sequence number: a challenge ACK may
 * follow): Linux 6.12's nf_conntrack_tcp_packet gives it the unack timeout
 * (300 s), 6.1's the close timeout (10 s), as to every RST. See
 * kernel_version.h.
 */
constexpr bool kTcpRstKeptEstablishedUnack = !kLinuxBefore612;

struct CtTcpConfig {
	bool loose = true;		/* nf_conntrack_tcp_loose */
	bool be_liberal = false;	/* nf_conntrack_tcp_be_liberal */
	bool ignore_invalid_rst = false;	/* nf_conntrack_tcp_ignore_invalid_rst */
	uint8_t max_retrans = kCtTcpMaxRetrans;
};

/* What tracking decided for one segment. */
enum class CtL4Verdict : uint8_t {
	Accept,		/* tracked */
	AcceptKill,	/* tracked, then the connection goes (RST with no reply) */
	Invalid,	/* no ct for this packet: INVALID */
	Repeat,		/* reopen of a closed connection: kill, look up again */
	Ignore,		/* tracked, but neither refreshed nor counted (SCTP) */
};

/*
 * tcp_valid_flags: the flag combinations a segment may carry, ECE, CWR and
 * PSH aside (so FIN, SYN, RST, ACK and URG: bits 0-2, 4, 5 of byte 13),
 * as bits of one word: SYN, SYN|URG, SYN|ACK, RST, RST|ACK, FIN|ACK,
 * FIN|ACK|URG, ACK, ACK|URG.
 */
constexpr uint64_t kCtTcpValidFlags =
	1ull << 0x02 | 1ull << 0x22 | 1ull << 0x12 | 1ull << 0x04 | 1ull << 0x14 |
	1ull << 0x11 | 1ull << 0x31 | 1ull << 0x10 | 1ull << 0x30;

/*
 * The fields of a segment's TCP header that the tracker reads: read once
 * per segment by ct_tcp_read() (which is tcp_error too) and handed to
 * ct_tcp_new() and ct_tcp_packet(), so that no step reads the header again.
 */
struct CtTcpSegment {
	const uint8_t *hdr;
	uint32_t hdr_len;	/* doff * 4 */
	uint32_t seq;
	uint32_t ack;
	uint16_t win;
	uint8_t flags;		/* byte 13: FIN 0x01, SYN 0x02, RST 0x04, ACK 0x10 */
	uint32_t end;		/* seq + payload + SYN + FIN */

	bool syn() const { return flags & 0x02; }
	bool ack_set() const { return flags & 0x10; }
	bool fin() const { return flags & 0x01; }
	bool rst() const { return flags & 0x04; }
};

/*
 * tcp_error (truncated header or an invalid flag combination: false) and,
 * when the segment passes, its header into @s. Inline: every TCP frame
 * asks.
 */
inline bool ct_tcp_read(const CtPacket &p, CtTcpSegment &s)
{
	if (p.l4_len < 20)
		return false;
	const uint8_t *h = p.l3 + p.l4_off;
	const uint32_t hdr_len = uint32_t(h[12] >> 4) * 4;
	if (hdr_len < 20 || p.l4_len < hdr_len)
		return false;	/* truncated */
	const uint8_t flags = h[13];
	if (!((kCtTcpValidFlags >> (flags & 0x37)) & 1))
		return false;
	s.hdr = h;
	s.hdr_len = hdr_len;
	s.seq = load_be32(h + 4);
	s.ack = load_be32(h + 8);
	s.win = load_be16(h + 14);
	s.flags = flags;
	s.end = s.seq + (p.l4_len - hdr_len) + (flags & 0x01) + ((flags >> 1) & 0x01);
	return true;
}

/* tcp_error alone. */
inline bool ct_tcp_error(const CtPacket &p)
{
	CtTcpSegment s;
	return !ct_tcp_read(p, s);
}

/* tcp_new: set up a new entry from its first segment; false: invalid. */
bool ct_tcp_new(CtEntry &e, const CtTcpSegment &s, const CtTcpConfig &cfg);

/*
 * nf_conntrack_tcp_packet for a segment in direction @dir (0/1). The most
 * common segment, an ACK to an ESTABLISHED connection, takes a shortcut
 * that skips the state table's special cases; everything else, and every
 * decision the shortcut cannot make alone, goes through the full tracker.
 */
CtL4Verdict ct_tcp_packet(CtEntry &e, const CtTcpSegment &s, unsigned dir, uint32_t now,
			  const CtTcpConfig &cfg);
/* The same without the shortcut, so tests can hold the two side by side. */
CtL4Verdict ct_tcp_packet_full(CtEntry &e, const CtTcpSegment &s, unsigned dir, uint32_t now,
			       const CtTcpConfig &cfg);

/*
 * nf_ct_tcp_fixup: tracking starts again after a spell without it (the
 * ruleset regained a ct expression: nf_ct_netns_get registering the hooks
 * anew). The segments of the gap were not seen, so an ESTABLISHED entry
 * forgets both directions' windows (td_maxwin 0): the next segment of each
 * side is picked up as tcp_in_window picks up a connection mid-stream.
 * Other states keep their windows, as on Linux. True if it forgot them.
 * The caller holds the entry's spin bit.
 */
bool ct_tcp_tracking_resumed(CtEntry &e);

/* Names as /proc/net/nf_conntrack and conntrack -L print them. */
const char *ct_tcp_state_name(uint8_t state);

} // namespace xb

#endif /* XBRIDGE_CORE_CT_PROTO_TCP_H */
