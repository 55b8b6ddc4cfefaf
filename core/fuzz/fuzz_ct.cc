// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_ct.cc - libFuzzer target: arbitrary frames and well-formed TCP/UDP/
 * ICMP/GRE/UDP-Lite/SCTP/DCCP packets with fuzzed fields through connection
 * tracking, on one
 * long-lived conntrack table small enough that early drop, expiry and GC
 * run all the time.
 *
 * Input layout, consumed front to back until it runs out:
 *   op byte, then per op (op % 8):
 *     0    raw frame: flags byte (bit 0 OOB tag, bit 1 checksum known
 *          good, bits 2-3 zone), length (2 bytes, up to 2048), the bytes
 *          (placed at the end of an exact-size heap copy, so
 *          AddressSanitizer sees any over-read)
 *     1    a batch: count byte (1..8), then that many length-prefixed
 *          (2 bytes) raw frames, through Conntrack::in_batch()
 *     2,3  TCP segment: endpoints byte, flags byte, seq and ack (4 bytes
 *          each, as offsets from per-endpoint bases), window (2), payload
 *          length byte, option byte (window scale / SACK-permitted)
 *     4    UDP, ICMP echo, GRE or UDP-Lite: endpoints byte (bits 4-5:
 *          which: 0/1 UDP or echo by the kind byte's bit 0, 2 GRE, 3
 *          UDP-Lite), kind byte; with the endpoints byte's bits 6-7 both
 *          set, SCTP instead: the kind byte (bits 0-1 the vtag of four,
 *          bits 2-3 one to four chunks, bit 7 the checksum not vouched
 *          for), then per chunk type, flags (bits 6-7 an INIT's tag) and
 *          length bytes; with bits 6-7 at 2, DCCP: the kind byte (bits
 *          0-3 the type, bit 4 X, bit 7 the checksum not vouched for),
 *          then the data offset byte, a byte of checksum coverage (bits
 *          0-3) and sequence / acknowledgement numbers of four (bits 4-5,
 *          6-7), and the layer-4 length byte (up to 40)
 *     5    ICMP error quoting a TCP segment built as in op 2: the quoted
 *          length byte, then the op-2 fields
 *     6    time: advance by a byte x 500 ms, then a GC slice
 *     7    control: selector byte (flush a zone, delete a tuple, dump,
 *          toggle loose/liberal/checksum, change the bound)
 * Checked after every frame: the state is exactly one ct state bit; a
 * NEW/ESTABLISHED/RELATED frame has an entry, an INVALID/UNTRACKED one
 * none; the table never holds more than its bound once the frame is done;
 * a dump sees exactly count() entries. A violation aborts (a finding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ct_table.h"
#include "ct_track.h"
#include "platform_user.h"

namespace {

using namespace xb;

xb::Conntrack *ct;
uint32_t now = 1000000;

class Input {
public:
	Input(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
	bool more() const { return p_ < end_; }
	uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
	uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
	uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
	size_t take(size_t n, const uint8_t **out)
	{
		size_t have = size_t(end_ - p_);
		if (n > have)
			n = have;
		*out = p_;
		p_ += n;
		return n;
	}

private:
	const uint8_t *p_;
	const uint8_t *end_;
};

void put16(uint8_t *p, uint16_t v)
{
	p[0] = uint8_t(v >> 8);
	p[1] = uint8_t(v);
}

void put32(uint8_t *p, uint32_t v)
{
	put16(p, uint16_t(v >> 16));
	put16(p + 2, uint16_t(v));
}

void check(bool ok, const char *what)
{
	if (!ok) {
		__builtin_printf("fuzz-ct: invariant violated: %s\n", what);
		abort();
	}
}

void check_result(const CtResult &r);

void feed(const uint8_t *frame, uint32_t len, bool oob, uint16_t zone, bool csum_ok)
{
	/* exact-size heap copy so reads past the end are caught */
	const uint32_t before = ct->table().count();
	uint8_t *copy = static_cast<uint8_t *>(malloc(len ? len : 1));
	memcpy(copy, frame, len);
	{
		RcuReadGuard rcu;
		CtResult r;
		ct->in(copy, len, oob, zone, now, csum_ok, r);
		check_result(r);
		ct->confirm(r, now);
		ct->release(r);
	}
	free(copy);
	const uint32_t max = ct->table().max();
	const uint32_t after = ct->table().count();
	/* a lowered bound is not enforced on what is there, only on growth */
	check(!max || after <= max || after <= before, "count within the bound");
}

void check_result(const CtResult &r)
{
	const uint8_t s = r.state;
	check(s == kCtStateInvalid || s == kCtStateEstablished || s == kCtStateRelated ||
		      s == kCtStateNew || s == kCtStateUntracked,
	      "one state bit");
	const bool has = r.entry != nullptr;
	check(has == (s == kCtStateNew || s == kCtStateEstablished || s == kCtStateRelated),
	      "an entry exactly for tracked states");
	check(!r.unconfirmed || s == kCtStateNew, "only a new connection is unconfirmed");
	if (r.drop)
		check(!has, "a dropped frame has no entry");
}

void op_batch(Input &in)
{
	constexpr unsigned kMax = 8;
	const unsigned n = 1 + in.u8() % kMax;
	uint8_t *copies[kMax];
	const uint8_t *frames[kMax];
	uint32_t lens[kMax];
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *bytes;
		const size_t len = in.take(in.u16() % 2049, &bytes);
		copies[i] = static_cast<uint8_t *>(malloc(len ? len : 1));
		memcpy(copies[i], bytes, len);
		frames[i] = copies[i];
		lens[i] = uint32_t(len);
	}
	{
		RcuReadGuard rcu;
		CtResult res[kMax];
		for (unsigned i = 0; i < n;) {
			const unsigned done = ct->in_batch(&frames[i], &lens[i], n - i, false, 0, now,
							   false, &res[i]);
			check(done >= 1 && done <= n - i, "a batch makes progress");
			for (unsigned j = i; j < i + done; j++) {
				check_result(res[j]);
				check(!res[j].unconfirmed || j == i + done - 1,
				      "a batch stops at a new connection");
				ct->confirm(res[j], now);
				ct->release(res[j]);
			}
			i += done;
		}
	}
	for (unsigned i = 0; i < n; i++)
		free(copies[i]);
}

/* A zeroed @size-byte frame: Ethernet, then an IPv4 header of protocol
 * @proto from endpoint @a to @b (10.0.0.a+1 -> 10.0.0.b+1) without its
 * length; returns the IP header. */
uint8_t *put_eth_ipv4(uint8_t *buf, size_t size, uint8_t proto, unsigned a, unsigned b)
{
	memset(buf, 0, size);
	buf[0] = 2;
	buf[6] = 2;
	put16(buf + 12, 0x0800);
	uint8_t *ip = buf + 14;
	ip[0] = 0x45;
	ip[9] = proto;
	ip[12] = 10;
	ip[15] = uint8_t(a + 1);
	ip[16] = 10;
	ip[19] = uint8_t(b + 1);
	return ip;
}

/* Ethernet + IPv4 + TCP between two of four endpoints. */
uint32_t build_tcp(Input &in, uint8_t *buf, uint32_t quoted_len = 0)
{
	const uint8_t ends = in.u8();
	const uint8_t flags = in.u8();
	const uint32_t seq = in.u32();
	const uint32_t ack = in.u32();
	const uint16_t win = in.u16();
	const uint8_t payload = in.u8() & 0x3f;
	const uint8_t opt = in.u8();
	const unsigned a = ends & 3, b = (ends >> 2) & 3;
	const bool six = ends & 0x80;
	uint8_t *ip = buf + 14;
	memset(buf, 0, 14);
	buf[0] = 2;
	buf[6] = 2;
	const uint32_t ip_len = six ? 40 : 20;
	uint8_t *tcp = ip + ip_len;
	const uint32_t opt_len = (opt & 3) ? 8 : 0;
	const uint32_t tcp_len = 20 + opt_len + payload;
	memset(ip, 0, ip_len + tcp_len);
	if (six) {
		put16(buf + 12, 0x86dd);
		ip[0] = 0x60;
		put16(ip + 4, uint16_t(tcp_len));
		ip[6] = 6;
		ip[7] = 64;
		ip[8] = 0x20;
		ip[23] = uint8_t(a + 1);
		ip[24] = 0x20;
		ip[39] = uint8_t(b + 1);
	} else {
		put16(buf + 12, 0x0800);
		ip[0] = 0x45;
		put16(ip + 2, uint16_t(20 + tcp_len));
		ip[8] = 64;
		ip[9] = 6;
		ip[12] = 10;
		ip[15] = uint8_t(a + 1);
		ip[16] = 10;
		ip[19] = uint8_t(b + 1);
	}
	put16(tcp, uint16_t(1000 + a));
	put16(tcp + 2, uint16_t(1000 + b));
	/* small offsets from fixed bases keep segments near the windows */
	put32(tcp + 4, 0x10000000u * (a + 1) + (seq & 0x8000000f ? seq : seq & 0xffff));
	put32(tcp + 8, 0x10000000u * (b + 1) + (ack & 0x8000000f ? ack : ack & 0xffff));
	tcp[12] = uint8_t(((20 + opt_len) / 4) << 4);
	tcp[13] = flags;
	put16(tcp + 14, win);
	if (opt_len) {
		tcp[20] = 1;
		tcp[21] = 3;
		tcp[22] = 3;
		tcp[23] = uint8_t(opt >> 2);
		tcp[24] = 1;
		tcp[25] = 1;
		tcp[26] = (opt & 2) ? 4 : 1;
		tcp[27] = (opt & 2) ? 2 : 1;
	}
	const uint32_t total = 14 + ip_len + tcp_len;
	if (quoted_len && quoted_len < ip_len + tcp_len)
		return 14 + quoted_len;
	return total;
}

void op_icmp_error(Input &in)
{
	uint8_t inner[14 + 40 + 20 + 8 + 64];
	const uint8_t quote = in.u8();
	const uint32_t inner_len = build_tcp(in, inner, quote) - 14;
	const bool six = inner[12] == 0x86;
	uint8_t buf[14 + 40 + 8 + sizeof(inner)];
	memset(buf, 0, sizeof(buf));
	buf[0] = 2;
	buf[6] = 2;
	uint8_t *ip = buf + 14;
	const uint32_t ip_len = six ? 40 : 20;
	uint8_t *icmp = ip + ip_len;
	const uint32_t l4_len = 8 + inner_len;
	if (six) {
		put16(buf + 12, 0x86dd);
		ip[0] = 0x60;
		put16(ip + 4, uint16_t(l4_len));
		ip[6] = 58;
		/* outer: from the quoted destination back to its source */
		memcpy(ip + 8, inner + 14 + 24, 16);
		memcpy(ip + 24, inner + 14 + 8, 16);
		icmp[0] = 1;
	} else {
		put16(buf + 12, 0x0800);
		ip[0] = 0x45;
		put16(ip + 2, uint16_t(20 + l4_len));
		ip[9] = 1;
		memcpy(ip + 12, inner + 14 + 16, 4);
		memcpy(ip + 16, inner + 14 + 12, 4);
		icmp[0] = 3;
		icmp[1] = 3;
	}
	memcpy(icmp + 8, inner + 14, inner_len);
	feed(buf, 14 + ip_len + l4_len, false, 0, true);
}

/* SCTP between endpoints @a and @b: chunks of 24 bytes whose type, flags
 * and length field come from the input (a length may run past the packet
 * or be zero), tags from four so that associations can progress. */
void op_sctp(Input &in, unsigned a, unsigned b, uint8_t kind)
{
	static const uint32_t tags[4] = {0, 0x1111, 0x2222, 0x3333};
	constexpr uint32_t kChunk = 24;
	uint8_t buf[14 + 20 + 12 + 4 * kChunk];
	uint8_t *ip = put_eth_ipv4(buf, sizeof(buf), 132, a, b);
	uint8_t *l4 = ip + 20;
	put16(l4, uint16_t(3000 + a));
	put16(l4 + 2, uint16_t(3000 + b));
	put32(l4 + 4, tags[kind & 3]);
	uint32_t l4_len = 12;
	const unsigned chunks = 1 + ((kind >> 2) & 3);
	for (unsigned i = 0; i < chunks; i++, l4_len += kChunk) {
		uint8_t *c = l4 + l4_len;
		c[0] = in.u8() % 16;
		c[1] = in.u8();
		put16(c + 2, in.u8());
		put32(c + 4, tags[c[1] >> 6]);	/* INIT / INIT_ACK: initiate tag */
	}
	put16(ip + 2, uint16_t(20 + l4_len));
	feed(buf, 14 + 20 + l4_len, false, 0, !(kind & 0x80));
}

/* DCCP between endpoints @a and @b: type, X, data offset, coverage and
 * length from the input (headers cut short and offsets past the packet
 * included), sequence and acknowledgement numbers from four so that
 * handshakes can complete. */
void op_dccp(Input &in, unsigned a, unsigned b, uint8_t kind)
{
	static const uint64_t nums[4] = {0, 1, 0x100, 0x10000000001ull};
	constexpr uint32_t kMax = 40;
	uint8_t buf[14 + 20 + kMax];
	uint8_t *ip = put_eth_ipv4(buf, sizeof(buf), 33, a, b);
	uint8_t *l4 = ip + 20;
	put16(l4, uint16_t(3000 + a));
	put16(l4 + 2, uint16_t(3000 + b));
	l4[4] = in.u8();
	const uint8_t sel = in.u8();
	l4[5] = sel & 0x0f;
	const bool x = kind & 0x10;
	l4[8] = uint8_t((kind & 0x0f) << 1 | (x ? 1 : 0));
	const uint64_t seq = nums[(sel >> 4) & 3], ack = nums[sel >> 6];
	if (x) {
		put16(l4 + 10, uint16_t(seq >> 32));
		put32(l4 + 12, uint32_t(seq));
	} else {
		put16(l4 + 10, uint16_t(seq));
	}
	const uint32_t basic = x ? 16 : 12;
	put16(l4 + basic + 2, uint16_t(ack >> 32));
	put32(l4 + basic + 4, uint32_t(ack));
	const uint32_t l4_len = in.u8() % (kMax + 1);
	put16(ip + 2, uint16_t(20 + l4_len));
	feed(buf, 14 + 20 + l4_len, false, 0, !(kind & 0x80));
}

void op_udp_or_echo(Input &in)
{
	const uint8_t ends = in.u8();
	const uint8_t kind = in.u8();
	const unsigned a = ends & 3, b = (ends >> 2) & 3;
	if ((ends >> 6) == 3) {
		op_sctp(in, a, b, kind);
		return;
	}
	if ((ends >> 6) == 2) {
		op_dccp(in, a, b, kind);
		return;
	}
	uint8_t buf[14 + 20 + 16];
	uint8_t *ip = put_eth_ipv4(buf, sizeof(buf), 0, a, b);
	put16(ip + 2, 36);
	uint8_t *l4 = ip + 20;
	const unsigned which = (ends >> 4) & 3;
	if (which == 2) {
		/* GRE: version 0, or 1 with PPP or another protocol, and a
		 * call ID; kind bit 7 cuts the header short */
		ip[9] = 47;
		put16(l4, (kind & 2) ? 0x2001 : 0x0000);
		put16(l4 + 2, (kind & 4) ? 0x880b : 0x0800);
		put16(l4 + 6, uint16_t((kind >> 3) & 7));
		if (kind & 0x80)
			put16(ip + 2, 20 + 2);
	} else if (which == 3) {
		/* UDP-Lite: coverage 0, 4, 8 or beyond; a checksum or none */
		static const uint16_t cscov[4] = {0, 4, 8, 40};
		ip[9] = 136;
		put16(l4, uint16_t(2000 + a));
		put16(l4 + 2, uint16_t(2000 + b));
		put16(l4 + 4, cscov[(kind >> 1) & 3]);
		put16(l4 + 6, uint16_t(kind >> 3));
	} else if (kind & 1) {
		ip[9] = 17;
		put16(l4, uint16_t(2000 + a));
		put16(l4 + 2, uint16_t(2000 + b));
		put16(l4 + 4, 16);
	} else {
		ip[9] = 1;
		l4[0] = (kind & 2) ? 0 : 8;	/* echo reply / request */
		put16(l4 + 4, uint16_t(kind >> 2));
	}
	feed(buf, sizeof(buf), false, uint16_t((kind >> 6) & 1), true);
}

void op_control(Input &in)
{
	const uint8_t sel = in.u8();
	switch (sel % 6) {
	case 0: {
		CtFilter f;
		f.zone = sel >> 4;
		ct->table().flush(f);
		break;
	}
	case 1: {
		CtTuple t = {};
		t.l3 = kCtL3Ipv4;
		t.l4proto = kIpProtoTcp;
		t.src[0] = 10;
		t.src[3] = uint8_t(1 + ((sel >> 3) & 3));
		t.dst[0] = 10;
		t.dst[3] = uint8_t(1 + ((sel >> 5) & 3));
		t.sport = uint16_t(1000 + ((sel >> 3) & 3));
		t.dport = uint16_t(1000 + ((sel >> 5) & 3));
		ct->table().del(t, CtFilter(), nullptr);
		break;
	}
	case 2: {
		/* three entries per round; a refused entry is not consumed */
		uint32_t bucket = 0, skip = 0, seen = 0;
		bool done = false;
		while (!done) {
			unsigned budget = 3;
			done = ct->table().for_each_from(bucket, skip, [&](const CtEntry &) {
				if (budget == 0)
					return false;
				budget--;
				seen++;
				return true;
			});
		}
		check(seen == ct->table().count(), "a dump sees every entry once");
		break;
	}
	case 3:
		ct->config.tcp.loose = !ct->config.tcp.loose;
		break;
	case 4:
		ct->config.tcp.be_liberal = !ct->config.tcp.be_liberal;
		break;
	case 5:
		ct->table().set_max(sel >> 3 ? uint32_t(sel >> 3) : 64);
		break;
	}
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	xb_user_log_to_stderr(0);
	ct = new xb::Conntrack;
	if (ct->init(32, 64, nullptr))
		abort();
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	while (in.more()) {
		const uint8_t op = in.u8() % 8;
		switch (op) {
		case 1:
			op_batch(in);
			break;
		case 0: {
			const uint8_t flags = in.u8();
			uint16_t len = in.u16() % 2049;
			const uint8_t *bytes;
			len = uint16_t(in.take(len, &bytes));
			feed(bytes, len, flags & 1, uint16_t((flags >> 2) & 3), flags & 2);
			break;
		}
		case 2:
		case 3: {
			uint8_t buf[14 + 40 + 28 + 64];
			const uint32_t len = build_tcp(in, buf);
			feed(buf, len, false, 0, true);
			break;
		}
		case 4:
			op_udp_or_echo(in);
			break;
		case 5:
			op_icmp_error(in);
			break;
		case 6:
			now += uint32_t(in.u8()) * 500;
			ct->table().gc_slice(now, 8);
			break;
		case 7:
			op_control(in);
			break;
		}
	}
	return 0;
}
