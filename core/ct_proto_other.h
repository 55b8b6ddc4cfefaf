/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_proto_other.h - the UDP, UDP-Lite, ICMP/ICMPv6, GRE and generic trackers, and the
 * ICMP error classification that makes an error RELATED to the connection
 * it quotes.
 *
 * No state of its own; like the TCP tracker it changes one entry, which
 * the caller (ct_track) serialises.
 */
#ifndef XBRIDGE_CORE_CT_PROTO_OTHER_H
#define XBRIDGE_CORE_CT_PROTO_OTHER_H

#include <stdint.h>

#include "ct_proto_tcp.h"
#include "ct_table.h"
#include "ct_tuple.h"

namespace xb {

/* udp_error: short header, a length field beyond the packet or below 8. */
bool ct_udp_error(const CtPacket &p);
/* nf_conntrack_udp_packet (after the error check). */
CtL4Verdict ct_udp_packet(CtEntry &e, bool confirmed, uint32_t now);

/* What the ICMP(v6) error pass makes of a packet before tracking. */
enum class CtIcmpClass : uint8_t {
	Track,		/* an echo, timestamp, ...: tracked as its own flow */
	Error,		/* an error quoting a packet: look for its connection */
	Untracked,	/* ICMPv6 neighbour discovery / MLD: UNTRACKED */
	Invalid,	/* short, unknown type, bad redirect: counted error */
};

/*
 * nf_conntrack_icmpv4_error / icmpv6_error without the checksum (the
 * caller checks it). For Error, @inner_off is where the quoted packet
 * starts (from the ICMP header).
 */
CtIcmpClass ct_icmp_classify(const CtPacket &p, uint32_t &inner_off);

/* icmp(v6)_packet: only requests may start a connection; refresh. */
CtL4Verdict ct_icmp_packet(CtEntry &e, bool confirmed, uint32_t now);

/*
 * udplite_error: a short header, a checksum coverage below the header or
 * beyond the packet, a missing checksum, or (@check: prerouting with
 * nf_conntrack_checksum on and the checksum not known good) a checksum
 * that fails as Linux verifies it (ct_udplite_checksum_ok_as_linux).
 */
bool ct_udplite_error(const CtPacket &p, bool check);
/* nf_conntrack_udplite_packet: once the reply was seen, the replied
 * timeout and ASSURED at once (no two-second stream rule as UDP's). */
CtL4Verdict ct_udplite_packet(CtEntry &e, uint32_t now);

/* nf_conntrack_gre_packet (no PPTP helper, so the default timeouts):
 * once the reply was seen, the stream timeout and ASSURED. */
CtL4Verdict ct_gre_packet(CtEntry &e, uint32_t now);

/* generic_packet: refresh with the generic timeout. */
CtL4Verdict ct_generic_packet(CtEntry &e, uint32_t now);

} // namespace xb

#endif /* XBRIDGE_CORE_CT_PROTO_OTHER_H */
