// SPDX-License-Identifier: GPL-2.0
/*
 * ct_proto_tcp.cc - the TCP tracker (see ct_proto_tcp.h). Stateless code
 * over one entry; the caller serialises access to that entry.
 *
 * The state table and the window rules are Linux's (6.1
 * nf_conntrack_proto_tcp.c); the window notation follows its comment:
 * for the sender, td_end = max(seq + len), td_maxend = max(ack + max(win, 1))
 * seen from the receiver, td_maxwin = max(win) (scaled). A segment is in
 * window when seq <= sender.td_maxend, ack <= receiver.td_end, the segment
 * end >= sender.td_end - receiver.td_maxwin, and ack >= receiver.td_end -
 * max(sender.td_maxwin, 66000).
 */
#include "ct_proto_tcp.h"

#include "ethernet.h"

namespace xb {

namespace {

/* Flag bits of the TCP header's 14th byte that the tracker reads (the
 * valid combinations are kCtTcpValidFlags, ct_proto_tcp.h). */
constexpr uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kAck = 0x10;

/* Segment classes, the table's middle index (enum tcp_bit_set). */
enum TcpIndex : uint8_t { kSynSet, kSynAckSet, kFinSet, kAckSet, kRstSet, kNoneSet };

constexpr uint8_t sSS = kTcpSynSent, sSR = kTcpSynRecv,
		  sES = kTcpEstablished, sFW = kTcpFinWait, sCW = kTcpCloseWait,
		  sLA = kTcpLastAck, sTW = kTcpTimeWait, sCL = kTcpClose,
		  sS2 = kTcpSynSent2;
constexpr uint8_t sIV = kTcpStateCount;		/* invalid */
constexpr uint8_t sIG = kTcpStateCount + 1;	/* ignore */

/* [direction][segment class][old state] -> new state. */
constexpr uint8_t kTransitions[2][6][kTcpStateCount] = {
	{
		/* original   sNO  sSS  sSR  sES  sFW  sCW  sLA  sTW  sCL  sS2 */
		/* syn    */ { sSS, sSS, sIG, sIG, sIG, sIG, sIG, sSS, sSS, sS2 },
		/* synack */ { sIV, sIV, sSR, sIV, sIV, sIV, sIV, sIV, sIV, sSR },
		/* fin    */ { sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV },
		/* ack    */ { sES, sIV, sES, sES, sCW, sCW, sTW, sTW, sCL, sIV },
		/* rst    */ { sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },
		/* none   */ { sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },
	},
	{
		/* reply      sNO  sSS  sSR  sES  sFW  sCW  sLA  sTW  sCL  sS2 */
		/* syn    */ { sIV, sS2, sIV, sIV, sIV, sIV, sIV, sSS, sIV, sS2 },
		/* synack */ { sIV, sSR, sIG, sIG, sIG, sIG, sIG, sIG, sIG, sSR },
		/* fin    */ { sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV },
		/* ack    */ { sIV, sIG, sSR, sES, sCW, sCW, sTW, sTW, sCL, sIG },
		/* rst    */ { sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL },
		/* none   */ { sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV },
	},
};

constexpr uint32_t kMaxAckWindowConst = 66000;
constexpr uint8_t kMaxWscale = 14;

enum class WindowResult : uint8_t { Accept, Ignore, Invalid };

inline bool before(uint32_t a, uint32_t b)
{
	return int32_t(a - b) < 0;
}

inline bool after(uint32_t a, uint32_t b)
{
	return before(b, a);
}

using Segment = CtTcpSegment;

uint8_t segment_index(const Segment &s)
{
	if (s.rst())
		return kRstSet;
	if (s.syn())
		return s.ack_set() ? kSynAckSet : kSynSet;
	if (s.fin())
		return kFinSet;
	if (s.ack_set())
		return kAckSet;
	return kNoneSet;
}

/* Walk the options; @fn(kind, body, body_len) for each whole option. */
template <typename Fn> void for_each_option(const Segment &s, Fn fn)
{
	const uint8_t *p = s.hdr + 20;
	int32_t left = int32_t(s.hdr_len) - 20;
	while (left > 0) {
		const uint8_t kind = *p;
		if (kind == 0)		/* end of options */
			return;
		if (kind == 1) {	/* no-op */
			p++;
			left--;
			continue;
		}
		if (left < 2)
			return;
		const uint8_t size = p[1];
		if (size < 2 || size > left)
			return;	/* silly or partial option */
		if (!fn(kind, p + 2, uint32_t(size - 2)))
			return;
		p += size;
		left -= size;
	}
}

/* tcp_options: window scale and SACK-permitted into @seen. */
void read_options(const Segment &s, CtTcpSeen &seen)
{
	if (s.hdr_len <= 20)
		return;
	seen.td_scale = 0;
	seen.flags &= kTcpFlagBeLiberal;
	for_each_option(s, [&](uint8_t kind, const uint8_t *body, uint32_t len) {
		if (kind == 4 && len == 0) {			/* SACK permitted */
			seen.flags |= kTcpFlagSackPerm;
		} else if (kind == 3 && len == 1) {		/* window scale */
			seen.td_scale = body[0] > kMaxWscale ? kMaxWscale : body[0];
			seen.flags |= kTcpFlagWindowScale;
		}
		return true;
	});
}

/* tcp_sack: the highest right edge of the SACK blocks, if above @sack. */
void read_sack(const Segment &s, uint32_t &sack)
{
	if (s.hdr_len <= 20)
		return;
	/* timestamps alone (NOP NOP TS): nothing to find */
	if (s.hdr_len - 20 == 12 && load_be32(s.hdr + 20) == 0x0101080a)
		return;
	for_each_option(s, [&](uint8_t kind, const uint8_t *body, uint32_t len) {
		if (kind != 5 || len < 8 || len % 8)
			return true;
		for (uint32_t i = 0; i < len; i += 8) {
			const uint32_t right = load_be32(body + i + 4);
			if (after(right, sack))
				sack = right;
		}
		return false;
	});
}

/* tcp_init_sender: the first SYN or SYN/ACK seen from this side. */
void init_sender(CtTcpSeen &sender, CtTcpSeen &receiver, const Segment &s, unsigned dir)
{
	sender.td_end = sender.td_maxend = s.end;
	sender.td_maxwin = s.win == 0 ? 1 : s.win;
	read_options(s, sender);
	/* RFC 1323: scaling only when both sides offered it */
	if (dir == 1 && !((sender.flags & kTcpFlagWindowScale) &&
			  (receiver.flags & kTcpFlagWindowScale))) {
		sender.td_scale = 0;
		receiver.td_scale = 0;
	}
}

WindowResult window_verdict(const CtTcpSeen &sender, const CtTcpConfig &cfg, WindowResult r)
{
	if ((sender.flags & kTcpFlagBeLiberal) || cfg.be_liberal)
		return WindowResult::Accept;
	return r;
}

/*
 * The body of tcp_in_window once the segment's seq, ack, highest SACK edge
 * and end are settled: the four window checks, then on acceptance the
 * window updates and the retransmission count. Inlined into the full path
 * and the shortcut (ct_tcp_packet), which settle those values differently.
 */
xb_always_inline WindowResult check_window(CtTcp &st, unsigned dir, uint8_t index,
					   const Segment &s, uint32_t seq, uint32_t ack,
					   uint32_t sack, uint32_t end, const CtTcpConfig &cfg)
{
	CtTcpSeen &sender = st.seen[dir];
	CtTcpSeen &receiver = st.seen[!dir];
	uint32_t win = s.win;

	const uint32_t max_ack_window =
		sender.td_maxwin > kMaxAckWindowConst ? sender.td_maxwin : kMaxAckWindowConst;

	if (xb_unlikely(!before(seq, sender.td_maxend + 1))) {
		const uint32_t overshot = end - sender.td_maxend + 1;
		const bool ack_ok = after(sack, receiver.td_end - max_ack_window - 1);
		const bool in_recv_win = receiver.td_maxwin &&
					 after(end, sender.td_end - receiver.td_maxwin - 1);
		if (in_recv_win && ack_ok && overshot <= receiver.td_maxwin &&
		    before(sack, receiver.td_end + 1)) {
			/* more data than the window allows: remember it, so
			 * that its ACK does not look like acking unseen data */
			sender.td_end = end;
			sender.flags |= kTcpFlagDataUnacked;
			return window_verdict(sender, cfg, WindowResult::Ignore);
		}
		return window_verdict(sender, cfg, WindowResult::Invalid);	/* SEQ over upper bound */
	}
	if (xb_unlikely(!before(sack, receiver.td_end + 1)))
		return window_verdict(sender, cfg, WindowResult::Invalid);	/* ACK of unseen data */
	if (xb_unlikely(receiver.td_maxwin && !after(end, sender.td_end - receiver.td_maxwin - 1)))
		return window_verdict(sender, cfg, WindowResult::Ignore);	/* old retransmission */
	if (xb_unlikely(!after(sack, receiver.td_end - max_ack_window - 1)))
		return window_verdict(sender, cfg, WindowResult::Ignore);	/* ACK far too old */

	if (!s.syn())
		win <<= sender.td_scale;

	const uint32_t swin = win + (sack - ack);
	if (sender.td_maxwin < swin)
		sender.td_maxwin = swin;
	if (after(end, sender.td_end)) {
		sender.td_end = end;
		sender.flags |= kTcpFlagDataUnacked;
	}
	if (s.ack_set()) {
		if (!(sender.flags & kTcpFlagMaxackSet)) {
			sender.td_maxack = ack;
			sender.flags |= kTcpFlagMaxackSet;
		} else if (after(ack, sender.td_maxack)) {
			sender.td_maxack = ack;
		}
	}

	if (receiver.td_maxwin != 0 && after(end, sender.td_maxend))
		receiver.td_maxwin += end - sender.td_maxend;
	if (after(sack + win, receiver.td_maxend - 1)) {
		receiver.td_maxend = sack + win;
		if (win == 0)
			receiver.td_maxend++;
	}
	if (ack == receiver.td_end)
		receiver.flags &= ~kTcpFlagDataUnacked;

	if (index == kAckSet) {
		if (st.last_dir == dir && st.last_seq == seq && st.last_ack == ack &&
		    st.last_end == end && st.last_win == s.win) {
			if (st.retrans < 255)
				st.retrans++;
		} else {
			st.last_dir = uint8_t(dir);
			st.last_seq = seq;
			st.last_ack = ack;
			st.last_end = end;
			st.last_win = s.win;
			st.retrans = 0;
		}
	}
	return WindowResult::Accept;
}

/* tcp_in_window: the special cases first (a side's first segment, a
 * reinitialised SYN, segments without a usable ack), then the checks. */
WindowResult in_window(CtTcp &st, unsigned dir, uint8_t index, const Segment &s,
		       const CtTcpConfig &cfg)
{
	CtTcpSeen &sender = st.seen[dir];
	CtTcpSeen &receiver = st.seen[!dir];
	uint32_t seq = s.seq, ack = s.ack, sack = s.ack, end = s.end;

	if (receiver.flags & kTcpFlagSackPerm)
		read_sack(s, sack);

	if (sender.td_maxwin == 0) {
		if (s.syn()) {
			init_sender(sender, receiver, s, dir);
			if (!s.ack_set())
				return WindowResult::Accept;	/* simultaneous open */
		} else {
			/* picked up mid-stream: take what the segment says */
			sender.td_end = end;
			const uint32_t swin = uint32_t(s.win) << sender.td_scale;
			sender.td_maxwin = swin == 0 ? 1 : swin;
			sender.td_maxend = end + sender.td_maxwin;
			if (receiver.td_maxwin == 0)
				receiver.td_end = receiver.td_maxend = sack;
			else if (sack == receiver.td_end + 1)
				receiver.td_end++;	/* keepalive reply */
		}
	} else if (s.syn() && after(end, sender.td_end) &&
		   (st.state == kTcpSynSent || st.state == kTcpSynRecv)) {
		/* a reinitialised SYN (RFC 793): start this side again */
		init_sender(sender, receiver, s, dir);
		if (dir == 1 && !s.ack_set())
			return WindowResult::Accept;
	}

	if (!s.ack_set()) {
		ack = sack = receiver.td_end;	/* pretend it acked what we saw */
	} else if ((s.flags & (kAck | kRst)) == (kAck | kRst) && s.ack == 0) {
		ack = sack = receiver.td_end;	/* broken stacks: RST+ACK ack 0 */
	}

	if (s.rst() && seq == 0 && st.state == kTcpSynSent)
		seq = end = sender.td_end;	/* RST answering a SYN */

	return check_window(st, dir, index, s, seq, ack, sack, end, cfg);
}

bool can_early_drop_state(uint8_t state)
{
	return state == kTcpFinWait || state == kTcpLastAck || state == kTcpTimeWait ||
	       state == kTcpClose || state == kTcpCloseWait;
}

/* nf_tcp_handle_invalid: an out-of-window FIN/RST answering the other
 * side's FIN/RST shortens an assured connection's life to the unack
 * timeout. */
void handle_invalid(CtEntry &e, unsigned dir, uint8_t index, uint32_t now)
{
	CtTcp &st = e.proto.tcp;
	if (!(e.status_bits() & kCtAssured))
		return;
	if (index != kRstSet && index != kFinSet)
		return;
	if (st.last_dir != dir && (st.last_index == kFinSet || st.last_index == kRstSet)) {
		const uint32_t left = load_once(e.expires) - now;
		if (int32_t(left) < int32_t(120 * kCtSecond))
			return;
		if (left > kCtTcpTimeoutUnack)
			store_once(e.expires, now + kCtTcpTimeoutUnack);
	} else {
		st.last_index = index;
		st.last_dir = uint8_t(dir);
	}
}

/* nf_conntrack_tcp_established */
bool established(const CtEntry &e)
{
	return e.proto.tcp.state == kTcpEstablished && (e.status_bits() & kCtAssured);
}

/*
 * The end of tcp_packet for an accepted segment: the new state's timeout
 * (shortened while data is unacknowledged, the window is closed or
 * retransmissions pile up; the unack timeout until the connection has a
 * reply), ASSURED on the ack that completes the handshake, the new expiry.
 */
xb_always_inline CtL4Verdict refresh(CtEntry &e, const Segment &s, uint8_t index,
				     uint8_t old_state, uint8_t new_state, uint16_t status,
				     uint32_t now, const CtTcpConfig &cfg)
{
	const CtTcp &st = e.proto.tcp;
	const uint32_t state_timeout = kCtTcpTimeout[new_state];
	uint32_t timeout;
	if (st.retrans >= cfg.max_retrans && state_timeout > kCtTcpTimeoutRetrans)
		timeout = kCtTcpTimeoutRetrans;
	else if (index == kRstSet && kTcpRstKeptEstablishedUnack &&
		 new_state == kTcpEstablished && state_timeout > kCtTcpTimeoutUnack)
		timeout = kCtTcpTimeoutUnack;	/* 6.12: a challenge ACK may follow */
	else if (index == kRstSet)
		timeout = kCtTcpTimeout[kTcpClose];
	else if (((st.seen[0].flags | st.seen[1].flags) & kTcpFlagDataUnacked) &&
		 state_timeout > kCtTcpTimeoutUnack)
		timeout = kCtTcpTimeoutUnack;
	else if (st.last_win == 0 && state_timeout > kCtTcpTimeoutRetrans)
		timeout = kCtTcpTimeoutRetrans;
	else
		timeout = state_timeout;

	if (!(status & kCtSeenReply)) {
		/* only a RST answered: no connection, drop the entry now */
		if (s.rst())
			return CtL4Verdict::AcceptKill;
		/* a retransmitted SYN does not extend the entry's life */
		if (index == kSynSet && old_state == kTcpSynSent)
			return CtL4Verdict::Accept;
		/* picked up and unanswered: no 5-day timeout yet */
		if (new_state == kTcpEstablished && timeout > kCtTcpTimeoutUnack)
			timeout = kCtTcpTimeoutUnack;
	} else if (!(status & kCtAssured) &&
		   (old_state == kTcpSynRecv || old_state == kTcpEstablished) &&
		   new_state == kTcpEstablished) {
		e.set_status(kCtAssured);
	}
	store_once(e.expires, now + timeout);
	return CtL4Verdict::Accept;
}

/* nf_conntrack_tcp_packet, every case. */
xb_noinline CtL4Verdict packet_full(CtEntry &e, const Segment &s, uint8_t index, unsigned dir,
				    uint32_t now, const CtTcpConfig &cfg)
{
	CtTcp &st = e.proto.tcp;
	uint8_t old_state = st.state;
	uint8_t new_state = kTransitions[dir][index][old_state];
	const uint16_t status = e.status_bits();
	bool skip_window = false;

	switch (new_state) {
	case kTcpSynSent:
		if (old_state < kTcpTimeWait)
			break;
		/* a SYN reopening a closed or aborted connection: start over */
		if (((st.seen[dir].flags | st.seen[!dir].flags) & kTcpFlagCloseInit) ||
		    (st.last_dir == dir && st.last_index == kRstSet))
			return CtL4Verdict::Repeat;
		[[fallthrough]];
	case sIG:
		if (index == kSynAckSet && st.last_index == kSynSet && st.last_dir != dir &&
		    s.ack == st.last_end) {
			/* this SYN/ACK answers a SYN we ignored: the ends are in
			 * sync and we are not; resync from what we noted */
			CtTcpSeen &other = st.seen[st.last_dir];
			old_state = kTcpSynSent;
			new_state = kTcpSynRecv;
			other.td_end = st.last_end;
			other.td_maxend = st.last_end;
			other.td_maxwin = st.last_win == 0 ? 1 : st.last_win;
			other.td_scale = st.last_wscale;
			st.last_flags &= ~kTcpFlagChallengeAck;
			other.flags = st.last_flags;
			CtTcpSeen &mine = st.seen[dir];
			mine.td_end = mine.td_maxend = mine.td_maxwin = mine.td_maxack = 0;
			mine.td_scale = 0;
			mine.flags &= kTcpFlagBeLiberal;
			break;
		}
		st.last_index = index;
		st.last_dir = uint8_t(dir);
		st.last_seq = s.seq;
		st.last_end = s.end;
		st.last_win = s.win;
		if (index == kSynSet && dir == 0) {
			/* note the SYN's options for a resync by its SYN/ACK */
			CtTcpSeen seen = {};
			read_options(s, seen);
			st.last_flags = 0;
			st.last_wscale = 0;
			if (seen.flags & kTcpFlagWindowScale) {
				st.last_flags |= kTcpFlagWindowScale;
				st.last_wscale = seen.td_scale;
			}
			if (seen.flags & kTcpFlagSackPerm)
				st.last_flags |= kTcpFlagSackPerm;
			if (old_state == kTcpLastAck)
				st.last_flags |= kTcpFlagChallengeAck;
		}
		if (old_state == kTcpSynSent && index == kAckSet && dir == 1)
			st.last_ack = s.ack;	/* possible challenge ACK */
		return CtL4Verdict::Accept;	/* ignored: no state change, no refresh */
	case sIV:
		return CtL4Verdict::Invalid;
	case kTcpTimeWait:
		if (old_state == kTcpLastAck && index == kAckSet && st.last_dir != dir &&
		    st.last_index == kSynSet && (st.last_flags & kTcpFlagChallengeAck)) {
			/* RFC 5961 challenge ACK, not the last ACK */
			st.last_flags &= ~kTcpFlagChallengeAck;
			return CtL4Verdict::Accept;
		}
		break;
	case kTcpSynSent2:
		st.last_flags |= kTcpFlagSimultaneousOpen;
		break;
	case kTcpSynRecv:
		if (dir == 1 && index == kAckSet && (st.last_flags & kTcpFlagSimultaneousOpen))
			new_state = kTcpEstablished;
		break;
	case kTcpClose:
		if (index != kRstSet)
			break;
		if (can_early_drop_state(st.state)) {
			skip_window = true;	/* closing: the tuple may be reused */
			break;
		}
		if ((st.seen[!dir].flags & kTcpFlagMaxackSet) && st.last_index != kSynSet) {
			const uint32_t maxack = st.seen[!dir].td_maxack;
			if (s.seq == 0 && !established(e))
				break;	/* likely the answer to a SYN we let by */
			if (before(s.seq, maxack) && !cfg.ignore_invalid_rst)
				return CtL4Verdict::Invalid;	/* RST below acked data */
			if (!established(e) || s.seq == maxack)
				break;
			if (st.last_index == kAckSet && st.last_dir == dir && s.seq == st.last_end)
				break;	/* RST ending a train of data */
			new_state = old_state;	/* inexact: allow a challenge ACK */
		}
		/* a RST answering a SYN of the other side, or an ACK we
		 * ignored on a half-open connection: its ack may cover
		 * segments we ignored, so no window check */
		if ((((status & kCtSeenReply) && st.last_index == kSynSet &&
		      st.last_dir != dir) ||
		     (!(status & kCtAssured) && st.last_index == kAckSet)) &&
		    s.ack == st.last_end) {
			skip_window = true;
			break;
		}
		if (old_state == kTcpSynSent && st.last_index == kAckSet && st.last_dir == 1 &&
		    s.seq == st.last_ack)
			skip_window = true;	/* RST answering a challenge ACK */
		break;
	default:
		break;
	}

	if (!skip_window) {
		switch (in_window(st, dir, index, s, cfg)) {
		case WindowResult::Ignore:
			return CtL4Verdict::Accept;
		case WindowResult::Invalid:
			handle_invalid(e, dir, index, now);
			return CtL4Verdict::Invalid;
		case WindowResult::Accept:
			break;
		}
	}

	st.last_index = index;
	st.last_dir = uint8_t(dir);
	st.state = new_state;
	if (old_state != new_state && new_state == kTcpFinWait)
		st.seen[dir].flags |= kTcpFlagCloseInit;

	return refresh(e, s, index, old_state, new_state, status, now, cfg);
}

} // namespace

bool ct_tcp_tracking_resumed(CtEntry &e)
{
	CtTcp &st = e.proto.tcp;
	if (e.tuple.l4proto != kIpProtoTcp || st.state != kTcpEstablished)
		return false;
	st.seen[0].td_maxwin = 0;
	st.seen[1].td_maxwin = 0;
	return true;
}

const char *ct_tcp_state_name(uint8_t state)
{
	static const char *const names[kTcpStateCount] = {
		"NONE", "SYN_SENT", "SYN_RECV", "ESTABLISHED", "FIN_WAIT",
		"CLOSE_WAIT", "LAST_ACK", "TIME_WAIT", "CLOSE", "SYN_SENT2",
	};
	return state < kTcpStateCount ? names[state] : "UNKNOWN";
}

bool ct_tcp_new(CtEntry &e, const CtTcpSegment &s, const CtTcpConfig &cfg)
{
	const uint8_t next = kTransitions[0][segment_index(s)][kTcpNone];
	if (next >= kTcpStateCount)
		return false;
	CtTcp &st = e.proto.tcp;
	__builtin_memset(&st, 0, sizeof(st));
	CtTcpSeen &orig = st.seen[0];
	orig.td_end = s.end;
	orig.td_maxwin = s.win == 0 ? 1 : s.win;
	if (next == kTcpSynSent) {
		orig.td_maxend = s.end;
		read_options(s, orig);
	} else {
		if (!cfg.loose)
			return false;
		/* mid-stream: assume SACK and be liberal (scaling unknown) */
		orig.td_maxend = s.end + orig.td_maxwin;
		st.seen[0].flags = st.seen[1].flags = kTcpFlagSackPerm | kTcpFlagBeLiberal;
	}
	st.last_index = kNoneSet;
	return true;
}

CtL4Verdict ct_tcp_packet(CtEntry &e, const CtTcpSegment &s, unsigned dir, uint32_t now,
			  const CtTcpConfig &cfg)
{
	CtTcp &st = e.proto.tcp;
	if (xb_unlikely((s.flags & (kSyn | kFin | kRst | kAck)) != kAck ||
			st.state != kTcpEstablished || st.seen[dir].td_maxwin == 0))
		return ct_tcp_packet_full(e, s, dir, now, cfg);

	/*
	 * The shortcut, as tcp_rcv_established's header prediction: an ACK
	 * without SYN, FIN or RST to an ESTABLISHED connection whose sender
	 * has a window. The state table keeps it ESTABLISHED in both
	 * directions, tcp_in_window's special cases do not apply (no SYN, an
	 * ack that counts, no RST), and an invalid ACK changes nothing
	 * (nf_tcp_handle_invalid looks at FIN and RST only): what is left is
	 * check_window() and refresh(), the same code packet_full() runs.
	 */
	uint32_t sack = s.ack;
	if (st.seen[!dir].flags & kTcpFlagSackPerm)
		read_sack(s, sack);
	switch (check_window(st, dir, kAckSet, s, s.seq, s.ack, sack, s.end, cfg)) {
	case WindowResult::Ignore:
		return CtL4Verdict::Accept;
	case WindowResult::Invalid:
		return CtL4Verdict::Invalid;
	case WindowResult::Accept:
		break;
	}
	st.last_index = kAckSet;
	st.last_dir = uint8_t(dir);
	return refresh(e, s, kAckSet, kTcpEstablished, kTcpEstablished, e.status_bits(), now, cfg);
}

CtL4Verdict ct_tcp_packet_full(CtEntry &e, const CtTcpSegment &s, unsigned dir, uint32_t now,
			       const CtTcpConfig &cfg)
{
	return packet_full(e, s, segment_index(s), dir, now, cfg);
}

} // namespace xb
