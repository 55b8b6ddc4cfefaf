/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_timeouts.h - conntrack's default timeouts and the TCP and SCTP tracking
 * states.
 * Constants only; no state.
 *
 * The values are Linux's defaults (nf_conntrack_proto_tcp.c tcp_timeouts,
 * nf_conntrack_proto_udp.c, _icmp.c, _icmpv6.c, _generic.c, _gre.c, _sctp.c,
 * _dccp.c), in
 * milliseconds: the tracker keeps 32-bit millisecond ticks with wrap-safe
 * comparisons, and 5 days (the longest) is 432,000,000 ms, well inside the
 * 2^31 that a wrap-safe comparison allows.
 */
#ifndef XBRIDGE_CORE_CT_TIMEOUTS_H
#define XBRIDGE_CORE_CT_TIMEOUTS_H

#include <stdint.h>

namespace xb {

/* TCP tracking states, numbered as enum tcp_conntrack. */
enum CtTcpState : uint8_t {
	kTcpNone = 0,
	kTcpSynSent = 1,
	kTcpSynRecv = 2,
	kTcpEstablished = 3,
	kTcpFinWait = 4,
	kTcpCloseWait = 5,
	kTcpLastAck = 6,
	kTcpTimeWait = 7,
	kTcpClose = 8,
	kTcpSynSent2 = 9,
	kTcpStateCount = 10,
};

constexpr uint32_t kCtSecond = 1000;	/* ticks per second */

/* Indexed by CtTcpState (kTcpNone unused). */
constexpr uint32_t kCtTcpTimeout[kTcpStateCount] = {
	0,			/* none */
	120 * kCtSecond,	/* syn_sent */
	60 * kCtSecond,		/* syn_recv */
	432000 * kCtSecond,	/* established: 5 days */
	120 * kCtSecond,	/* fin_wait */
	60 * kCtSecond,		/* close_wait */
	30 * kCtSecond,		/* last_ack */
	120 * kCtSecond,	/* time_wait */
	10 * kCtSecond,		/* close */
	120 * kCtSecond,	/* syn_sent2 */
};
constexpr uint32_t kCtTcpTimeoutRetrans = 300 * kCtSecond;	/* 5 min */
constexpr uint32_t kCtTcpTimeoutUnack = 300 * kCtSecond;	/* 5 min */
constexpr uint8_t kCtTcpMaxRetrans = 3;		/* nf_conntrack_tcp_max_retrans */

constexpr uint32_t kCtUdpTimeout = 30 * kCtSecond;		/* unreplied */
constexpr uint32_t kCtUdpTimeoutStream = 120 * kCtSecond;	/* replied */
constexpr uint32_t kCtUdpStreamDelay = 2 * kCtSecond;		/* stream after 2 s */
constexpr uint32_t kCtIcmpTimeout = 30 * kCtSecond;
constexpr uint32_t kCtIcmpv6Timeout = 30 * kCtSecond;
constexpr uint32_t kCtGenericTimeout = 600 * kCtSecond;
constexpr uint32_t kCtGreTimeout = 30 * kCtSecond;		/* unreplied */
constexpr uint32_t kCtGreTimeoutStream = 180 * kCtSecond;	/* replied */

/* SCTP tracking states, numbered as enum sctp_conntrack (9, HEARTBEAT_ACKED,
 * is no longer used by Linux and never entered here). */
enum CtSctpState : uint8_t {
	kSctpNone = 0,
	kSctpClosed = 1,
	kSctpCookieWait = 2,
	kSctpCookieEchoed = 3,
	kSctpEstablished = 4,
	kSctpShutdownSent = 5,
	kSctpShutdownRecd = 6,
	kSctpShutdownAckSent = 7,
	kSctpHeartbeatSent = 8,
	kSctpStateCount = 9,
};

/* Indexed by CtSctpState (nf_conntrack_proto_sctp.c sctp_timeouts; NONE
 * takes CLOSED's, as nf_conntrack_sctp_init_net sets timeouts[0]). */
constexpr uint32_t kCtSctpTimeout[kSctpStateCount] = {
	10 * kCtSecond,		/* none */
	10 * kCtSecond,		/* closed */
	3 * kCtSecond,		/* cookie_wait */
	3 * kCtSecond,		/* cookie_echoed */
	210 * kCtSecond,	/* established */
	3 * kCtSecond,		/* shutdown_sent */
	3 * kCtSecond,		/* shutdown_recd */
	3 * kCtSecond,		/* shutdown_ack_sent */
	30 * kCtSecond,		/* heartbeat_sent */
};

/* DCCP tracking states, numbered as enum ct_dccp_state (IGNORE and
 * INVALID are results of the state table, never an entry's state). */
enum CtDccpState : uint8_t {
	kDccpNone = 0,
	kDccpRequest = 1,
	kDccpRespond = 2,
	kDccpPartOpen = 3,
	kDccpOpen = 4,
	kDccpCloseReq = 5,
	kDccpClosing = 6,
	kDccpTimeWait = 7,
	kDccpStateCount = 8,
	kDccpIgnore = 8,
	kDccpInvalid = 9,
};

/* Indexed by CtDccpState (nf_conntrack_dccp_init_net; DCCP_MSL is 2
 * minutes, NONE takes REQUEST's). */
constexpr uint32_t kCtDccpTimeout[kDccpStateCount] = {
	240 * kCtSecond,	/* none */
	240 * kCtSecond,	/* request: 2 MSL */
	480 * kCtSecond,	/* respond: 4 MSL */
	480 * kCtSecond,	/* partopen: 4 MSL */
	43200 * kCtSecond,	/* open: 12 hours */
	64 * kCtSecond,		/* closereq */
	64 * kCtSecond,		/* closing */
	240 * kCtSecond,	/* timewait: 2 MSL */
};

} // namespace xb

#endif /* XBRIDGE_CORE_CT_TIMEOUTS_H */
