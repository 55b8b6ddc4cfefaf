// SPDX-License-Identifier: GPL-2.0
/*
 * ct_frames.h - builders of real IPv4/IPv6 frames for the conntrack tests
 * and the benchmark: Ethernet (optionally one 802.1Q/802.1ad tag or two),
 * IPv4/IPv6, TCP with options, UDP, ICMP/ICMPv6 echo and errors quoting
 * another packet. Checksums are computed, so a frame is valid unless a
 * test breaks it on purpose.
 *
 * Userspace test code: it may use the C++ standard library.
 */
#ifndef XBRIDGE_CORE_TESTS_CT_FRAMES_H
#define XBRIDGE_CORE_TESTS_CT_FRAMES_H

#include <stdint.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace ctf {

using Bytes = std::vector<uint8_t>;

struct Ip {
	uint8_t family = 4;
	uint8_t addr[16] = {};
};

inline Ip v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	Ip ip;
	ip.family = 4;
	ip.addr[0] = a;
	ip.addr[1] = b;
	ip.addr[2] = c;
	ip.addr[3] = d;
	return ip;
}

/* 2001:db8::x */
inline Ip v6(uint16_t x)
{
	Ip ip;
	ip.family = 6;
	ip.addr[0] = 0x20;
	ip.addr[1] = 0x01;
	ip.addr[2] = 0x0d;
	ip.addr[3] = 0xb8;
	ip.addr[14] = uint8_t(x >> 8);
	ip.addr[15] = uint8_t(x);
	return ip;
}

/* fe80::x */
inline Ip v6_link_local(uint16_t x)
{
	Ip ip;
	ip.family = 6;
	ip.addr[0] = 0xfe;
	ip.addr[1] = 0x80;
	ip.addr[14] = uint8_t(x >> 8);
	ip.addr[15] = uint8_t(x);
	return ip;
}

inline void put16(Bytes &b, size_t off, uint16_t v)
{
	b[off] = uint8_t(v >> 8);
	b[off + 1] = uint8_t(v);
}

inline void put32(Bytes &b, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[off + i] = uint8_t(v >> (24 - 8 * i));
}

inline uint32_t sum16(const uint8_t *p, size_t n, uint32_t sum = 0)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += uint32_t(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += uint32_t(p[n - 1] << 8);
	return sum;
}

inline uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return uint16_t(~sum);
}

enum TcpFlags : uint8_t { FIN = 1, SYN = 2, RST = 4, PSH = 8, ACK = 16, URG = 32 };

struct Tcp {
	uint16_t sport = 0, dport = 0;
	uint32_t seq = 0, ack = 0;
	uint8_t flags = 0;
	uint16_t win = 0;
	int wscale = -1;	/* >= 0: add a window-scale option */
	bool sack_perm = false;
	Bytes options;		/* more option bytes, after those (a multiple of 4) */
	uint32_t payload = 0;
};

/* An IP packet (no Ethernet header) carrying @l4 of protocol @proto. */
inline Bytes ip_packet(const Ip &src, const Ip &dst, uint8_t proto, const Bytes &l4,
		       uint16_t frag = 0)
{
	Bytes b;
	if (src.family == 4) {
		b.assign(20, 0);
		b[0] = 0x45;
		put16(b, 2, uint16_t(20 + l4.size()));
		put16(b, 6, frag);
		b[8] = 64;
		b[9] = proto;
		std::memcpy(&b[12], src.addr, 4);
		std::memcpy(&b[16], dst.addr, 4);
		put16(b, 10, fold(sum16(b.data(), 20)));
	} else {
		b.assign(40, 0);
		b[0] = 0x60;
		put16(b, 4, uint16_t(l4.size()));
		b[6] = proto;
		b[7] = 64;
		std::memcpy(&b[8], src.addr, 16);
		std::memcpy(&b[24], dst.addr, 16);
	}
	b.insert(b.end(), l4.begin(), l4.end());
	return b;
}

/* Fill the checksum at @csum_off of the layer-4 part of an IP packet. */
inline void l4_checksum(Bytes &pkt, size_t csum_off, bool pseudo)
{
	const bool is4 = (pkt[0] >> 4) == 4;
	const size_t l4 = is4 ? size_t(pkt[0] & 15) * 4 : 40;
	const size_t len = pkt.size() - l4;
	pkt[l4 + csum_off] = pkt[l4 + csum_off + 1] = 0;
	uint32_t sum = 0;
	if (pseudo) {
		const size_t alen = is4 ? 4 : 16;
		sum = sum16(&pkt[is4 ? 12 : 8], alen, sum);
		sum = sum16(&pkt[is4 ? 16 : 24], alen, sum);
		sum += is4 ? pkt[9] : pkt[6];
		sum += uint32_t(len);
	}
	sum = sum16(&pkt[l4], len, sum);
	uint16_t c = fold(sum);
	if (c == 0 && pseudo && is4 && pkt[9] == 17)
		c = 0xffff;
	put16(pkt, l4 + csum_off, c);
}

inline Bytes tcp_packet(const Ip &src, const Ip &dst, const Tcp &t)
{
	Bytes opt;
	if (t.wscale >= 0) {
		opt.push_back(1);	/* NOP */
		opt.push_back(3);
		opt.push_back(3);
		opt.push_back(uint8_t(t.wscale));
	}
	if (t.sack_perm) {
		opt.push_back(1);
		opt.push_back(1);
		opt.push_back(4);
		opt.push_back(2);
	}
	opt.insert(opt.end(), t.options.begin(), t.options.end());
	Bytes l4(20 + opt.size() + t.payload, 0);
	put16(l4, 0, t.sport);
	put16(l4, 2, t.dport);
	put32(l4, 4, t.seq);
	put32(l4, 8, t.ack);
	l4[12] = uint8_t(((20 + opt.size()) / 4) << 4);
	l4[13] = t.flags;
	put16(l4, 14, t.win);
	if (!opt.empty())
		std::memcpy(&l4[20], opt.data(), opt.size());
	for (uint32_t i = 0; i < t.payload; i++)
		l4[20 + opt.size() + i] = uint8_t(i);
	Bytes p = ip_packet(src, dst, 6, l4);
	l4_checksum(p, 16, true);
	return p;
}

inline Bytes udp_packet(const Ip &src, const Ip &dst, uint16_t sport, uint16_t dport,
			uint32_t payload = 8)
{
	Bytes l4(8 + payload, 0x5a);
	put16(l4, 0, sport);
	put16(l4, 2, dport);
	put16(l4, 4, uint16_t(8 + payload));
	put16(l4, 6, 0);
	Bytes p = ip_packet(src, dst, 17, l4);
	l4_checksum(p, 6, true);
	return p;
}

/* ICMP (IPv4) or ICMPv6 message: type, code, 4 bytes of rest, body. */
inline Bytes icmp_packet(const Ip &src, const Ip &dst, uint8_t type, uint8_t code,
			 uint32_t rest, const Bytes &body)
{
	Bytes l4(8, 0);
	l4[0] = type;
	l4[1] = code;
	put32(l4, 4, rest);
	l4.insert(l4.end(), body.begin(), body.end());
	const bool is4 = src.family == 4;
	Bytes p = ip_packet(src, dst, is4 ? 1 : 58, l4);
	l4_checksum(p, 2, !is4);
	return p;
}

inline Bytes echo(const Ip &src, const Ip &dst, uint16_t id, bool reply, uint16_t seq = 1)
{
	const bool is4 = src.family == 4;
	const uint8_t type = is4 ? (reply ? 0 : 8) : (reply ? 129 : 128);
	return icmp_packet(src, dst, type, 0, uint32_t(id) << 16 | seq, Bytes(16, 0xab));
}

/* An ICMP error (dest unreachable / ICMPv6 dest unreachable) quoting the
 * first @quote bytes of @quoted (an IP packet). */
inline Bytes icmp_error(const Ip &src, const Ip &dst, const Bytes &quoted, size_t quote = 28)
{
	const bool is4 = src.family == 4;
	if (!is4 && quote == 28)
		quote = 48;
	Bytes body(quoted.begin(), quoted.begin() + std::min(quote, quoted.size()));
	return icmp_packet(src, dst, is4 ? 3 : 1, is4 ? 3 : 4, 0, body);
}

struct Eth {
	int tags = 0;			/* 0, 1 or 2 in-band tags */
	uint16_t tpid = 0x8100;		/* the outer tag's */
	uint16_t vid = 10;
};

inline Bytes frame(const Bytes &ip, const Eth &eth = Eth())
{
	Bytes b = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1};
	if (eth.tags >= 1) {
		b.push_back(uint8_t(eth.tpid >> 8));
		b.push_back(uint8_t(eth.tpid));
		b.push_back(uint8_t(eth.vid >> 8));
		b.push_back(uint8_t(eth.vid));
	}
	if (eth.tags >= 2) {
		b.push_back(0x81);
		b.push_back(0x00);
		b.push_back(0);
		b.push_back(20);
	}
	const bool is4 = (ip[0] >> 4) == 4;
	b.push_back(is4 ? 0x08 : 0x86);
	b.push_back(is4 ? 0x00 : 0xdd);
	b.insert(b.end(), ip.begin(), ip.end());
	return b;
}

} // namespace ctf

#endif /* XBRIDGE_CORE_TESTS_CT_FRAMES_H */
