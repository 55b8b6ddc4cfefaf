// SPDX-License-Identifier: GPL-2.0
/*
 * nft_payload_write.cc - payload statements (nft_payload_write.h), as
 * net/netfilter/nft_payload.c's nft_payload_set_eval does them for a
 * bridge-family skb.
 *
 * Checksums are ones' complement sums over big-endian 16-bit words here
 * (the kernel's csum_partial sums host-order words); a ones' complement
 * sum is the same up to byte order either way, and the stored 16-bit
 * field is in network order on both sides.
 *
 * Datapath only: no allocation; the caller owns the frame (see the header).
 */
#include "nft_payload_write.h"

#include "compiler.h"
#include "ct_proto_sctp.h"
#include "ct_tuple.h"
#include "ethernet.h"

namespace xb::nft {

namespace {

/* Offsets in struct vlan_ethhdr: the TPID and the TCI of the outer tag. */
constexpr uint32_t kVlanProtoOffset = 12;
constexpr uint32_t kVlanTciOffset = 14;
constexpr uint32_t kVlanEncapOffset = 16;	/* h_vlan_encapsulated_proto */
constexpr uint32_t kSctpCommonHeaderLen = 12;	/* ports, vtag, checksum */

/* The 16-bit ones' complement sum of @len bytes (csum_partial, seed 0),
 * unfolded: a trailing odd byte is the high half of a last word. */
uint32_t csum_bytes(const uint8_t *b, uint32_t len)
{
	uint64_t sum = 0;
	uint32_t i = 0;
	for (; i + 1 < len; i += 2)
		sum += uint32_t(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += uint32_t(b[len - 1]) << 8;
	sum = (sum & 0xffffffff) + (sum >> 32);
	sum = (sum & 0xffffffff) + (sum >> 32);
	return uint32_t(sum);
}

uint32_t csum_add(uint32_t a, uint32_t b)
{
	const uint32_t r = a + b;
	return r + (r < a);
}

uint32_t csum_sub(uint32_t a, uint32_t b)
{
	return csum_add(a, ~b);
}

/* csum_fold: the 32-bit sum folded to 16 bits and complemented. */
uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return uint16_t(~sum);
}

uint16_t load16(const uint8_t *p)
{
	return uint16_t(p[0] << 8 | p[1]);
}

void store16(uint8_t *p, uint16_t v)
{
	p[0] = uint8_t(v >> 8);
	p[1] = uint8_t(v);
}

/*
 * Every byte a statement changes goes through put(). After prerouting
 * (Pkt::copy_writes) the change is also recorded, with what it replaced,
 * for the copy whose chains made it (copy_writes_end()). False if the
 * record is full; eval_payload_write() checks the room first, so that a
 * statement is made whole or not at all.
 */
bool put(Pkt &p, uint32_t pos, const uint8_t *bytes, uint32_t len)
{
	CopyWrites *w = p.copy_writes;
	while (len) {
		const uint32_t n = len < kCopyWriteMax ? len : kCopyWriteMax;
		if (w) {
			if (w->count == w->cap)
				return false;
			CopyWrite &e = w->entries[w->count++];
			e = CopyWrite{};
			e.copy = p.copy;
			e.offset = uint16_t(pos);
			e.len = uint8_t(n);
			__builtin_memcpy(e.before, p.wframe + pos, n);
		}
		__builtin_memcpy(p.wframe + pos, bytes, n);
		pos += n;
		bytes += n;
		len -= n;
	}
	return true;
}

/* Room for @entries more records (always, at prerouting). */
bool room_for(const Pkt &p, uint32_t entries)
{
	const CopyWrites *w = p.copy_writes;
	return !w || w->cap - w->count >= entries;
}

/* nft_csum_replace: the checksum at @pos with @from's bytes replaced by
 * @to's; a result of zero is stored as CSUM_MANGLED_0. */
void csum_replace(Pkt &p, uint32_t pos, uint32_t from, uint32_t to)
{
	const uint16_t sum = csum_fold(csum_add(csum_sub(~uint32_t(load16(p.wframe + pos)), from), to));
	uint8_t field[2];
	store16(field, sum ? sum : 0xffff);
	put(p, pos, field, 2);
}

/*
 * nft_payload_l4csum_offset: where the transport checksum of @p is, for
 * the protocols whose checksum covers the pseudo-header; false when there
 * is none to fix (a later fragment, UDP without a checksum, another
 * protocol).
 */
bool l4csum_offset(const Pkt &p, uint32_t &off)
{
	if (p.fragoff || !p.tprot_set)
		return false;
	switch (p.l4proto) {
	case kIpProtoTcp:
		off = p.thoff + 16;
		break;
	case kIpProtoUdp:
		/* nft_payload_udp_checksum: zero means no checksum */
		if (uint64_t(p.thoff) + 8 > p.len || !load16(p.frame + p.thoff + 6))
			return false;
		off = p.thoff + 6;
		break;
	case kIpProtoUdplite:
		off = p.thoff + 6;
		break;
	case kIpProtoIcmpv6:
		off = p.thoff + 2;
		break;
	default:
		return false;
	}
	return true;
}

/* nft_payload_l4csum_update: a pseudo-header field changed from @from to
 * @to. False if the checksum is past the frame's end. */
bool l4csum_update(Pkt &p, uint32_t from, uint32_t to)
{
	uint32_t off;
	if (!l4csum_offset(p, off))
		return true;
	if (uint64_t(off) + 2 > p.len)
		return false;
	if (!p.csum_partial) {
		csum_replace(p, off, from, to);
		return true;
	}
	/* CHECKSUM_PARTIAL: the field holds the pseudo-header's sum,
	 * uncomplemented, for the device to finish. */
	uint8_t field[2];
	store16(field, uint16_t(~csum_fold(csum_add(csum_sub(load16(p.wframe + off), from), to))));
	put(p, off, field, 2);
	return true;
}

/* The current copy's tag record (its records are the last ones), or
 * nullptr. */
CopyWrite *tag_record(const Pkt &p)
{
	CopyWrites &w = *p.copy_writes;
	for (uint32_t i = w.count; i-- > 0 && w.entries[i].copy == p.copy;)
		if (!w.entries[i].len)
			return &w.entries[i];
	return nullptr;
}

/*
 * nft_payload_set_vlan: a write to the out-of-band tag's TPID (2 bytes),
 * TPID and TCI (4) or TCI (2). False for any other shape.
 */
bool write_oob_tag(Pkt &p, uint32_t offset, uint32_t len, const uint8_t *src)
{
	if (offset == kVlanProtoOffset && len == 2) {
		p.vlan_proto = load16(src);
	} else if (offset == kVlanProtoOffset && len == 4) {
		p.vlan_proto = load16(src);
		p.vlan_tci = load16(src + 2);
		p.vlan_present = true;
	} else if (offset == kVlanTciOffset && len == 2) {
		p.vlan_tci = load16(src);
	} else {
		return false;
	}
	p.tag_written = true;
	if (p.copy_writes && !p.band_tag_len && !tag_record(p)) {
		/* the copy's tag record, filled in by copy_writes_end() */
		CopyWrite &e = p.copy_writes->entries[p.copy_writes->count++];
		e = CopyWrite{};
		e.copy = p.copy;
	}
	/* A userspace frame carries the tag the kernel would hold out of
	 * band in its bytes (Pkt::band_tag_len): keep them the same. */
	if (p.band_tag_len) {
		uint8_t tag[4];
		store16(tag, p.vlan_proto);
		store16(tag + 2, p.vlan_tci);
		put(p, kVlanProtoOffset, tag, 4);
		p.written = true;
	}
	return true;
}

} // namespace

bool eval_payload_write(const Insn &in, Pkt &p, const uint32_t *src)
{
	const uint8_t *value = reinterpret_cast<const uint8_t *>(src);
	const uint8_t csum_type = in.data[kPwCsumType];
	const uint8_t csum_flags = in.data[kPwCsumFlags];
	int64_t base;

	if (xb_unlikely(!p.wframe))
		return false;	/* skb_ensure_writable failed */
	switch (in.sub) {
	case kPayloadLL:
		base = 0;
		/* nft_payload_need_vlan_adjust: past the MAC addresses */
		if (p.vlan_present && in.offset + in.len > kVlanProtoOffset) {
			if (in.offset < kVlanEncapOffset)
				return room_for(p, 1) &&
				       write_oob_tag(p, in.offset, in.len, value);
			/* the bytes after the tag: the kernel's offset
			 * counts the out-of-band tag's 4 bytes */
			base = int64_t(p.band_tag_len) - kVlanHeaderLen;
		}
		break;
	case kPayloadNetwork:
		base = p.nhoff;
		break;
	default:
		if (!p.tprot_set || p.fragoff)
			return false;
		base = p.thoff;
		break;
	}
	const int64_t offset = base + in.offset;
	const int64_t csum_offset = base + in.data[kPwCsumOffset];
	if (offset < 0 || offset + in.len > p.len)
		return false;
	/* the records a copy's write may need: the bytes, two checksums */
	if (!room_for(p, (in.len + kCopyWriteMax - 1) / kCopyWriteMax + 2))
		return false;

	/* A transport checksum the device will finish is left to it. */
	if ((csum_type == kPayloadCsumInet || csum_flags) &&
	    (in.sub != kPayloadTransport || !p.csum_partial)) {
		const uint32_t from = csum_bytes(p.wframe + offset, in.len);
		const uint32_t to = csum_bytes(value, in.len);
		if (csum_type == kPayloadCsumInet) {
			if (csum_offset < 0 || csum_offset + 2 > p.len)
				return false;
			csum_replace(p, uint32_t(csum_offset), from, to);
		}
		if (csum_flags && !l4csum_update(p, from, to))
			return false;
	}
	put(p, uint32_t(offset), value, in.len);
	p.written = true;

	if (csum_type == kPayloadCsumSctp && p.tprot_set && p.l4proto == kIpProtoSctp &&
	    !p.csum_partial && !p.fragoff) {
		/* nft_payload_csum_sctp: the CRC32c over the whole packet,
		 * stored little-endian (in the room of a checksum above:
		 * nft has no inet checksum for SCTP's fields) */
		if (uint64_t(p.thoff) + kSctpCommonHeaderLen > p.len)
			return false;
		const uint32_t crc = ct_sctp_crc32c(p.frame + p.thoff, p.len - p.thoff);
		uint8_t field[4];
		for (unsigned i = 0; i < 4; i++)
			field[i] = uint8_t(crc >> (8 * i));
		put(p, p.thoff + 8, field, 4);
	}
	return true;
}

namespace {

constexpr uint8_t kTcpOptNop = 1;
constexpr uint8_t kTcpOptMss = 2;
constexpr uint32_t kTcpHeaderMax = 60;	/* sizeof(tcphdr) + MAX_TCP_OPTION_SPACE */

/*
 * inet_proto_csum_replace2/4 without a pseudo-header: the TCP checksum
 * with the words @from replaced by @to (each counted as whole 16-bit
 * words, wherever the option put them, as the kernel counts them), left
 * alone when the device finishes it.
 */
void tcp_csum_replace(Pkt &p, uint32_t from, uint32_t to)
{
	if (p.csum_partial)
		return;
	const uint32_t pos = p.thoff + 16;
	uint8_t field[2];
	store16(field, csum_fold(csum_add(csum_sub(~uint32_t(load16(p.wframe + pos)), from), to)));
	put(p, pos, field, 2);
}

} // namespace

TcpOptResult eval_tcpopt_write(const Insn &in, Pkt &p, const uint32_t *src)
{
	/* nft_tcp_header_pointer: a whole TCP header of a first fragment */
	if (!p.tprot_set || p.l4proto != kIpProtoTcp || p.fragoff ||
	    uint64_t(p.thoff) + 20 > p.len)
		return TcpOptResult::Break;
	const uint32_t hdrlen = (p.frame[p.thoff + 12] >> 4) * 4u;
	if (hdrlen < 20 || hdrlen > kTcpHeaderMax || uint64_t(p.thoff) + hdrlen > p.len)
		return TcpOptResult::Break;
	const bool strip = in.sub == kTcpOptStrip;
	if (!p.wframe)	/* skb_ensure_writable failed */
		return strip ? TcpOptResult::Drop : TcpOptResult::Break;
	/* the records a copy may need: the option's bytes, the checksum */
	if (!room_for(p, (kTcpHeaderMax - 20 + kCopyWriteMax - 1) / kCopyWriteMax + 1))
		return TcpOptResult::Break;

	uint8_t *tcp = p.wframe + p.thoff;
	uint32_t optlen;
	for (uint32_t i = 20; i < hdrlen - 1; i += optlen) {
		optlen = tcp[i] <= kTcpOptNop || tcp[i + 1] == 0 ? 1 : tcp[i + 1];
		if (tcp[i] != in.data[0])
			continue;
		if (strip) {
			/* can't remove it: Linux drops the frame */
			if (i + optlen > hdrlen)
				return TcpOptResult::Drop;
			uint8_t nops[kTcpHeaderMax];
			uint32_t from = 0, to = 0;
			for (uint32_t j = 0; j < optlen; j++) {
				const bool high = (i + j) % 2 == 0;
				from = csum_add(from, high ? uint32_t(tcp[i + j]) << 8 : tcp[i + j]);
				to = csum_add(to, high ? uint32_t(kTcpOptNop) << 8 : kTcpOptNop);
				nops[j] = kTcpOptNop;
			}
			tcp_csum_replace(p, from, to);
			put(p, p.thoff + i, nops, optlen);
			p.written = true;
			return TcpOptResult::Done;
		}
		if (i + optlen > hdrlen || in.len + in.offset > optlen)
			return TcpOptResult::Break;
		const uint32_t at = p.thoff + i + in.offset;
		const uint8_t *value = reinterpret_cast<const uint8_t *>(src);
		/* an MSS is only lowered: a larger one can stall the connection */
		if (in.len == 2 && in.data[0] == kTcpOptMss &&
		    load16(p.wframe + at) <= load16(value))
			return TcpOptResult::Done;
		if (__builtin_memcmp(p.wframe + at, value, in.len) == 0)
			return TcpOptResult::Done;
		tcp_csum_replace(p, csum_bytes(p.wframe + at, in.len), csum_bytes(value, in.len));
		put(p, at, value, in.len);
		p.written = true;
		return TcpOptResult::Done;
	}
	return TcpOptResult::Done;	/* no such option: on to the next */
}

void copy_writes_end(Pkt &p, uint32_t first, bool keep)
{
	CopyWrites &w = *p.copy_writes;
	/* what the copy leaves with, then the bytes as they were */
	for (uint32_t i = first; i < w.count; i++)
		__builtin_memcpy(w.entries[i].after, p.wframe + w.entries[i].offset, w.entries[i].len);
	for (uint32_t i = w.count; i-- > first;)
		__builtin_memcpy(p.wframe + w.entries[i].offset, w.entries[i].before, w.entries[i].len);
	if (!keep) {
		w.count = first;
		return;
	}
	if (CopyWrite *tag = p.tag_written && !p.band_tag_len ? tag_record(p) : nullptr) {
		tag->tag_present = p.vlan_present;
		tag->tag_proto = p.vlan_proto;
		tag->tag_tci = p.vlan_tci;
	}
}

} // namespace xb::nft
