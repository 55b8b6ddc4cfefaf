/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_proto_dccp.h - the DCCP tracker, deciding what nf_conntrack_proto_dccp
 * decides (Debian's 6.1 and 6.12 build it in): ports, the connection's
 * state from its packet types with client and server roles, per-state
 * timeouts and ASSURED once the client acknowledges the server's Response.
 *
 * Ownership and locking. No state of its own: it changes one entry's
 * proto.dccp and expiry. The caller (ct_track) holds the entry's lock
 * (CtEntryLock) across ct_dccp_packet, as it does for TCP and SCTP; an
 * unconfirmed entry is the caller's alone. ct_dccp_error reads the packet
 * only.
 */
#ifndef XBRIDGE_CORE_CT_PROTO_DCCP_H
#define XBRIDGE_CORE_CT_PROTO_DCCP_H

#include <stdint.h>

#include "ct_proto_tcp.h"
#include "ct_table.h"
#include "ct_tuple.h"
#include "kernel_version.h"

namespace xb {

/* DCCP roles (enum ct_dccp_roles). */
enum CtDccpRole : uint8_t {
	kDccpRoleClient = 0,
	kDccpRoleServer = 1,
};

/*
 * What a DCCP packet too short for its header gets: Linux 6.1's
 * nf_conntrack_dccp_packet returns NF_DROP, 6.12's -NF_ACCEPT (invalid,
 * passed on). See kernel_version.h.
 */
constexpr bool kDccpShortDrops = kLinuxBefore612;

enum class CtDccpError : uint8_t {
	Ok,
	Invalid,	/* dccp_error: counted invalid, no ct */
	Short,		/* the header (with its 48-bit sequence number and
			 * the type's own part) is not all there: Linux 6.1
			 * drops the packet (NF_DROP), 6.12 treats it as
			 * invalid (-NF_ACCEPT) */
};

/*
 * nf_conntrack_dccp_packet's checks before the state: the basic header
 * (12 bytes), dccp_error (data offset, checksum coverage, the checksum
 * when @check: prerouting with nf_conntrack_checksum on and no device
 * vouching, a reserved type, a type that needs the 48-bit sequence number
 * without it), then the whole header dccp_header_pointer reads.
 */
CtDccpError ct_dccp_error(const CtPacket &p, bool check);

/*
 * The rest of nf_conntrack_dccp_packet, after ct_dccp_error: dccp_new for
 * an unconfirmed entry (@confirmed false: only a Request starts one; with
 * nf_conntrack_dccp_loose at 1, its default, the same holds, as every
 * other type is INVALID from NONE), a Reset before any reply kills the
 * entry (AcceptKill), then the state table by the sender's role. Accept,
 * AcceptKill, Ignore (accepted, neither refreshed nor counted) or
 * Invalid. Caller holds the entry lock.
 */
CtL4Verdict ct_dccp_packet(CtEntry &e, const CtPacket &p, unsigned dir, bool confirmed,
			   uint32_t now);

} // namespace xb

#endif /* XBRIDGE_CORE_CT_PROTO_DCCP_H */
