/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_proto_sctp.h - the SCTP tracker, deciding what nf_conntrack_proto_sctp
 * decides (Debian's 6.1 and 6.12 build it in): ports, the association's
 * state from its chunks, the verification tags, per-state timeouts and
 * ASSURED once ESTABLISHED.
 *
 * Ownership and locking. No state of its own: it changes one entry's
 * proto.sctp and expiry. The caller (ct_track) holds the entry's lock
 * (CtEntryLock) across ct_sctp_packet, as it does for TCP; an unconfirmed
 * entry is the caller's alone. ct_sctp_error and the CRC read the packet
 * only.
 */
#ifndef XBRIDGE_CORE_CT_PROTO_SCTP_H
#define XBRIDGE_CORE_CT_PROTO_SCTP_H

#include <stdint.h>

#include "ct_proto_tcp.h"
#include "ct_table.h"
#include "ct_tuple.h"

namespace xb {

/* SCTP's CRC32c (RFC 9260 appendix A) over @len bytes, the 4 checksum
 * bytes at offset 8 taken as zero; the value as the header stores it
 * (little-endian on the wire). @len is at least 12. */
uint32_t ct_sctp_crc32c(const uint8_t *sctp, uint32_t len);

/*
 * sctp_error: a packet shorter than the common header, or (@check:
 * prerouting with nf_conntrack_checksum on and no device vouching for the
 * checksum) one whose CRC32c is wrong.
 */
bool ct_sctp_error(const CtPacket &p, bool check);

/*
 * nf_conntrack_sctp_packet after sctp_error: the chunk checks, the
 * refusal of out-of-the-blue ABORT / SHUTDOWN_COMPLETE / COOKIE_ACK and
 * sctp_new for an unconfirmed entry (@confirmed false), the verification
 * tag rules, the state table per chunk, then the state's timeout. Accept,
 * Ignore (an INIT retransmitted in CLOSED or a HEARTBEAT with a new vtag:
 * accepted, neither refreshed nor counted) or Invalid. State changes made
 * before a chunk turned out invalid stay, as in Linux. Caller holds the
 * entry lock.
 */
CtL4Verdict ct_sctp_packet(CtEntry &e, const CtPacket &p, unsigned dir, bool confirmed,
			   uint32_t now);

} // namespace xb

#endif /* XBRIDGE_CORE_CT_PROTO_SCTP_H */
