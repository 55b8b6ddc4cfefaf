/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_payload_write.h - payload statements (`ip dscp set cs1`, `tcp dport
 * set 80`, `ether saddr set ...`, `vlan id set 10`, raw `@th,16,16 set 22`):
 * nft_payload_set_eval for the bridge family. The frame's bytes are written
 * in place, with the checksums nft keeps right (the header's own inet
 * checksum, the transport checksum when a pseudo-header field changes,
 * SCTP's CRC32c); a write to the outer VLAN tag that the kernel holds out
 * of band changes Pkt's tag instead of the bytes.
 *
 * Where: prerouting only (the ruleset's commit refuses them elsewhere,
 * nft_ruleset.cc check_graph). There the frame is still one copy, so a
 * write in place is what every later copy and hook sees, as on Linux,
 * where the clones of a flood are made after prerouting.
 *
 * Context: datapath, inside the evaluator (nft_eval.cc). The frame's
 * bytes belong to the caller, who made them writable (Pkt::wframe) for
 * the length of the call; nothing here allocates.
 */
#ifndef XBRIDGE_CORE_NFT_PAYLOAD_WRITE_H
#define XBRIDGE_CORE_NFT_PAYLOAD_WRITE_H

#include <stdint.h>

#include "nft_eval.h"

namespace xb::nft {

/* NFTA_PAYLOAD_CSUM_TYPE and NFTA_PAYLOAD_CSUM_FLAGS values. */
enum : uint8_t { kPayloadCsumNone = 0, kPayloadCsumInet = 1, kPayloadCsumSctp = 2 };
constexpr uint8_t kPayloadL4CsumPseudoHdr = 1;

/* Where a PayloadWrite Insn keeps its checksum fields (Insn::data). */
enum : uint8_t { kPwCsumType = 0, kPwCsumOffset = 1, kPwCsumFlags = 2 };

/*
 * Run one payload statement (@in, Op::PayloadWrite) with the value at
 * @src. False where nft_payload_set_eval breaks: the frame is not
 * writable, the write or a checksum runs past its end, a transport write
 * without a transport header (or in a later fragment), a tag write of a
 * shape the kernel refuses.
 */
bool eval_payload_write(const Insn &in, Pkt &p, const uint32_t *src);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_PAYLOAD_WRITE_H */
