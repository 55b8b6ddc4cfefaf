/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_payload_write.h - payload statements (`ip dscp set cs1`, `tcp dport
 * set 80`, `ether saddr set ...`, `vlan id set 10`, raw `@th,16,16 set 22`):
 * nft_payload_set_eval for the bridge family; and the TCP option
 * statements (`tcp option maxseg size set 1360`, `reset tcp option
 * sack-perm`), which write the frame the same way. The frame's bytes are written
 * in place, with the checksums nft keeps right (the header's own inet
 * checksum, the transport checksum when a pseudo-header field changes,
 * SCTP's CRC32c); a write to the outer VLAN tag that the kernel holds out
 * of band changes Pkt's tag instead of the bytes.
 *
 * Where: at prerouting the frame is still one copy, so a write in place
 * is what every later copy and hook sees, as on Linux, where the clones of
 * a flood are made after prerouting. At the later hooks each copy has its
 * own writes (CopyWrites below).
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

/* The most bytes one record holds; a longer write takes several. */
constexpr uint32_t kCopyWriteMax = 16;

/*
 * What the chains after prerouting wrote into one copy of a frame. Linux
 * writes that copy alone (its clone, made private by skb_ensure_writable);
 * xbridge decides every copy in one call on the one buffer, so a copy's
 * chains write the shared bytes, the writes are recorded here with what
 * they replaced, and copy_writes_end() puts the bytes back before the next
 * copy's chains run. After the decision the environment makes each copy's
 * records on that copy alone.
 *
 * Ownership: the environment's (RxFrame::copy_writes), for one decision
 * and its delivery; the datapath fills it in order, copy by copy.
 */
struct CopyWrite {
	const void *copy;	/* the egress Port; nullptr: the copy that goes up */
	uint16_t offset;	/* from the frame's destination MAC */
	uint8_t len;		/* 1..kCopyWriteMax; 0: the copy's out-of-band tag */
	bool tag_present;	/* len 0: the tag the copy leaves with */
	uint16_t tag_proto;	/* host order */
	uint16_t tag_tci;
	uint8_t before[kCopyWriteMax];
	uint8_t after[kCopyWriteMax];
};

struct CopyWrites {
	CopyWrite *entries;
	uint32_t cap;
	uint32_t count;
};

/*
 * Run one payload statement (@in, Op::PayloadWrite) with the value at
 * @src. False where nft_payload_set_eval breaks: the frame is not
 * writable, the write or a checksum runs past its end, a transport write
 * without a transport header (or in a later fragment), a tag write of a
 * shape the kernel refuses.
 */
bool eval_payload_write(const Insn &in, Pkt &p, const uint32_t *src);

/* What a TCP option statement did to the frame's verdict. */
enum class TcpOptResult : uint8_t { Done, Break, Drop };

/*
 * Run one TCP option statement (@in, Op::TcpOptWrite) with the value at
 * @src, as nft_exthdr_tcp_set_eval and nft_exthdr_tcp_strip_eval: the
 * first option of the kind gets the value (an MSS only ever lowered) or
 * is overwritten with NOPs, the TCP checksum following (left to the
 * device when it finishes it); a frame without the option is left alone.
 * Break: not a whole TCP header, an option running past it, a frame that
 * cannot be written (a reset drops it instead, as Linux does).
 */
TcpOptResult eval_tcpopt_write(const Insn &in, Pkt &p, const uint32_t *src);

/*
 * The chains of one copy (Pkt::copy, recording from entry @first on) are
 * done: each record gets the bytes the copy leaves with and the shared
 * bytes are put back. @keep false (a chain dropped the copy): its records
 * are forgotten. A tag write leaves its record with the copy's final tag.
 */
void copy_writes_end(Pkt &p, uint32_t first, bool keep);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_PAYLOAD_WRITE_H */
