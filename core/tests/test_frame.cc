// SPDX-License-Identifier: GPL-2.0
/*
 * test_frame.cc - unit tests of classify_frame() (core/frame.cc).
 *
 * Frames are built with the small helpers below and always classified by
 * classify(), which copies the frame into a heap buffer of exactly its
 * length (so ASan reports any read past the end) and classifies it three
 * times, into FrameInfos pre-filled with 0x00, 0xff and 0xa5 bytes: the
 * three results must agree field by field, which checks on every frame
 * that classify_frame() writes every field.
 */
#include <catch2/catch.hpp>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>
#include <memory>
#include <ostream>
#include <vector>

#include "frame.h"

namespace xb {

std::ostream &operator<<(std::ostream &os, DestClass c)
{
	static const char *const names[] = { "Host", "Broadcast", "Multicast",
					     "OtherHost" };
	unsigned i = static_cast<unsigned>(c);
	return os << (i < 4 ? names[i] : "DestClass(?)") << "(" << i << ")";
}

std::ostream &operator<<(std::ostream &os, FrameStatus s)
{
	unsigned i = static_cast<unsigned>(s);
	return os << (i == 0 ? "Ok" : i == 1 ? "Truncated" : "Status(?)")
		  << "(" << i << ")";
}

} // namespace xb

using namespace xb;

namespace {

using Bytes = std::vector<uint8_t>;

struct Mac {
	uint8_t b[6];
};

struct Tag {
	uint16_t tpid;
	uint16_t tci;
};

constexpr uint8_t kTcp = 6;
constexpr uint8_t kUdp = 17;
constexpr uint8_t kIcmp = 1;
constexpr uint8_t kIcmpv6 = 58;
constexpr uint8_t kHopOpts = 0;
constexpr uint8_t kRouting = 43;
constexpr uint8_t kFragment = 44;
constexpr uint8_t kDstOpts = 60;
constexpr uint8_t kNoNext = 59;
constexpr uint8_t kGre = 47;

Mac mac(const char *s)
{
	unsigned v[6];
	Mac m;

	/* Also used for file-scope constants: no Catch assertion here. */
	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) != 6)
		abort();
	for (int i = 0; i < 6; i++)
		m.b[i] = static_cast<uint8_t>(v[i]);
	return m;
}

MacKey key(const Mac &m)
{
	return mac_from_bytes(m.b);
}

const Mac kHost = mac("02:00:00:00:00:01");
const Mac kPeer = mac("02:00:00:00:00:02");
const Mac kOther = mac("02:00:00:00:00:99");
const Mac kBcast = mac("ff:ff:ff:ff:ff:ff");
const Mac kMcast6 = mac("33:33:00:00:00:01");

constexpr uint8_t kIp4Src[4] = { 192, 0, 2, 1 };
constexpr uint8_t kIp4Dst[4] = { 198, 51, 100, 7 };
constexpr uint8_t kIp6Src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 0x01 };
constexpr uint8_t kIp6Dst[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0x01, 0x23 };

void put8(Bytes &b, uint8_t v)
{
	b.push_back(v);
}

void put16(Bytes &b, uint16_t v)
{
	b.push_back(static_cast<uint8_t>(v >> 8));
	b.push_back(static_cast<uint8_t>(v));
}

void put32(Bytes &b, uint32_t v)
{
	put16(b, static_cast<uint16_t>(v >> 16));
	put16(b, static_cast<uint16_t>(v));
}

void put(Bytes &b, const uint8_t *p, size_t n)
{
	b.insert(b.end(), p, p + n);
}

void put(Bytes &b, const Bytes &more)
{
	b.insert(b.end(), more.begin(), more.end());
}

void set16(Bytes &b, size_t off, uint16_t v)
{
	b.at(off) = static_cast<uint8_t>(v >> 8);
	b.at(off + 1) = static_cast<uint8_t>(v);
}

uint16_t tci(uint8_t pcp, bool dei, uint16_t vid)
{
	return static_cast<uint16_t>(pcp << 13 | (dei ? 1 << 12 : 0) | vid);
}

/* Ethernet header, in-band tags outermost first, type, payload. */
Bytes frame(const Mac &dst, const Mac &src, std::initializer_list<Tag> tags,
	    uint16_t type, const Bytes &payload = {})
{
	Bytes b;

	put(b, dst.b, 6);
	put(b, src.b, 6);
	for (const Tag &t : tags) {
		put16(b, t.tpid);
		put16(b, t.tci);
	}
	put16(b, type);
	put(b, payload);
	return b;
}

Bytes tcp(uint16_t sport, uint16_t dport, uint8_t doff_words = 5,
	  size_t payload = 0)
{
	Bytes b;

	put16(b, sport);
	put16(b, dport);
	put32(b, 1000);			/* seq */
	put32(b, 0);			/* ack */
	put8(b, static_cast<uint8_t>(doff_words << 4));
	put8(b, 0x02);			/* SYN */
	put16(b, 65535);		/* window */
	put16(b, 0);			/* checksum */
	put16(b, 0);			/* urgent */
	while (b.size() < size_t(doff_words) * 4 && b.size() < 60)
		put8(b, 1);		/* NOP options */
	b.resize(b.size() + payload, 0xee);
	return b;
}

Bytes udp(uint16_t sport, uint16_t dport, size_t payload = 0)
{
	Bytes b;

	put16(b, sport);
	put16(b, dport);
	put16(b, static_cast<uint16_t>(8 + payload));
	put16(b, 0);
	b.resize(b.size() + payload, 0xdd);
	return b;
}

Bytes icmp(uint8_t type, uint8_t code, uint16_t id, uint16_t seq)
{
	Bytes b;

	put8(b, type);
	put8(b, code);
	put16(b, 0);
	put16(b, id);
	put16(b, seq);
	return b;
}

/* IPv4 header (+ @opt_words of options) followed by @l4. */
Bytes ipv4(uint8_t proto, const Bytes &l4, uint16_t frag = 0,
	   uint8_t opt_words = 0)
{
	Bytes b;
	uint8_t ihl = static_cast<uint8_t>(5 + opt_words);

	put8(b, static_cast<uint8_t>(0x40 | ihl));
	put8(b, 0);
	put16(b, static_cast<uint16_t>(ihl * 4 + l4.size()));
	put16(b, 0x1234);		/* id */
	put16(b, frag);
	put8(b, 64);
	put8(b, proto);
	put16(b, 0);			/* checksum */
	put(b, kIp4Src, 4);
	put(b, kIp4Dst, 4);
	for (int i = 0; i < opt_words; i++)
		put32(b, 0x01010101);	/* NOP options */
	put(b, l4);
	return b;
}

/* IPv6 header followed by @rest (extension headers and L4). */
Bytes ipv6(uint8_t nh, const Bytes &rest)
{
	Bytes b;

	put32(b, 0x60000000);
	put16(b, static_cast<uint16_t>(rest.size()));
	put8(b, nh);
	put8(b, 64);
	put(b, kIp6Src, 16);
	put(b, kIp6Dst, 16);
	put(b, rest);
	return b;
}

/* Hop-by-hop/routing/destination options header of (@len8 + 1) * 8 bytes. */
Bytes ext(uint8_t nh, uint8_t len8)
{
	Bytes b;

	put8(b, nh);
	put8(b, len8);
	b.resize((size_t(len8) + 1) * 8, 0);
	if (b.size() > 2)
		b[2] = 1;		/* PadN */
	if (b.size() > 3)
		b[3] = static_cast<uint8_t>(b.size() - 4);
	return b;
}

Bytes frag6(uint8_t nh, uint16_t offset8, bool more)
{
	Bytes b;

	put8(b, nh);
	put8(b, 0);
	put16(b, static_cast<uint16_t>(offset8 << 3 | (more ? 1 : 0)));
	put32(b, 0xabcdef01);
	return b;
}

Bytes cat(std::initializer_list<Bytes> parts)
{
	Bytes b;

	for (const Bytes &p : parts)
		put(b, p);
	return b;
}

ClassifyParams params(uint16_t vlan_protocol = kEthP8021Q, bool parse_l3 = true)
{
	ClassifyParams p;

	p.host_addr = key(kHost);
	p.vlan_protocol = vlan_protocol;
	p.parse_l3 = parse_l3;
	return p;
}

const OobTag kNoOob = { false, 0, 0 };

OobTag oob(uint16_t tpid, uint16_t tci)
{
	return OobTag{ true, tpid, tci };
}

/* Every field of @a and @b, one check each. */
void require_same(const FrameInfo &a, const FrameInfo &b)
{
	CHECK(a.status == b.status);
	CHECK(a.dest_class == b.dest_class);
	CHECK(a.dst == b.dst);
	CHECK(a.src == b.src);
	CHECK(a.src_valid == b.src_valid);
	CHECK(a.link_local == b.link_local);
	CHECK(a.link_local_index == b.link_local_index);
	CHECK(a.bridge_tagged == b.bridge_tagged);
	CHECK(a.bridge_tag_in_band == b.bridge_tag_in_band);
	CHECK(a.vid == b.vid);
	CHECK(a.pcp == b.pcp);
	CHECK(a.n_encap == b.n_encap);
	for (int i = 0; i < 2; i++) {
		CHECK(a.encap[i].tpid == b.encap[i].tpid);
		CHECK(a.encap[i].tci == b.encap[i].tci);
	}
	CHECK(a.too_many_tags == b.too_many_tags);
	CHECK(a.ethertype == b.ethertype);
	CHECK(a.l3_offset == b.l3_offset);
	CHECK(a.l4_offset == b.l4_offset);
	CHECK(a.l3_truncated == b.l3_truncated);
	CHECK(a.is_fragment == b.is_fragment);
	CHECK(a.tuple_valid == b.tuple_valid);
	CHECK(a.tuple.l3proto == b.tuple.l3proto);
	CHECK(a.tuple.l4proto == b.tuple.l4proto);
	CHECK(a.tuple.sport == b.tuple.sport);
	CHECK(a.tuple.dport == b.tuple.dport);
	CHECK(memcmp(a.tuple.src, b.tuple.src, 16) == 0);
	CHECK(memcmp(a.tuple.dst, b.tuple.dst, 16) == 0);
}

/* Classify @len bytes of @f, placed at the end of a heap buffer of @len bytes. */
FrameInfo classify_into(const Bytes &f, size_t len, const OobTag &o,
			const ClassifyParams &p, uint8_t fill)
{
	REQUIRE(len <= f.size());
	std::unique_ptr<uint8_t[]> buf(new uint8_t[len]);
	if (len)
		memcpy(buf.get(), f.data(), len);

	alignas(FrameInfo) unsigned char raw[sizeof(FrameInfo)];
	memset(raw, fill, sizeof(raw));
	FrameInfo *info = reinterpret_cast<FrameInfo *>(raw);
	bool ok = classify_frame(buf.get(), static_cast<uint32_t>(len), o, p,
				 *info);
	CHECK(ok == (info->status == FrameStatus::Ok));
	return *info;
}

FrameInfo classify(const Bytes &f, size_t len, const OobTag &o = kNoOob,
		   const ClassifyParams &p = params())
{
	FrameInfo a = classify_into(f, len, o, p, 0x00);
	FrameInfo b = classify_into(f, len, o, p, 0xff);
	FrameInfo c = classify_into(f, len, o, p, 0xa5);

	require_same(a, b);
	require_same(a, c);
	return a;
}

FrameInfo classify(const Bytes &f, const OobTag &o = kNoOob,
		   const ClassifyParams &p = params())
{
	return classify(f, f.size(), o, p);
}

FrameInfo classify(const Bytes &f, const ClassifyParams &p)
{
	return classify(f, f.size(), kNoOob, p);
}

void check_no_tuple(const FlowTuple &t)
{
	static const uint8_t zero[16] = {};

	CHECK(t.l3proto == 0);
	CHECK(t.l4proto == 0);
	CHECK(t.sport == 0);
	CHECK(t.dport == 0);
	CHECK(memcmp(t.src, zero, 16) == 0);
	CHECK(memcmp(t.dst, zero, 16) == 0);
}

/* No L3 information at all. */
void check_no_l3(const FrameInfo &fi)
{
	CHECK(fi.l3_offset == 0);
	CHECK(fi.l4_offset == 0);
	CHECK_FALSE(fi.l3_truncated);
	CHECK_FALSE(fi.is_fragment);
	CHECK_FALSE(fi.tuple_valid);
	check_no_tuple(fi.tuple);
}

void check_untagged(const FrameInfo &fi)
{
	CHECK_FALSE(fi.bridge_tagged);
	CHECK_FALSE(fi.bridge_tag_in_band);
	CHECK(fi.vid == 0);
	CHECK(fi.pcp == 0);
}

void check_ip4_addrs(const FlowTuple &t)
{
	uint8_t src[16] = {}, dst[16] = {};

	memcpy(src, kIp4Src, 4);
	memcpy(dst, kIp4Dst, 4);
	CHECK(t.l3proto == 4);
	CHECK(memcmp(t.src, src, 16) == 0);
	CHECK(memcmp(t.dst, dst, 16) == 0);
}

void check_ip6_addrs(const FlowTuple &t)
{
	CHECK(t.l3proto == 6);
	CHECK(memcmp(t.src, kIp6Src, 16) == 0);
	CHECK(memcmp(t.dst, kIp6Dst, 16) == 0);
}

Bytes arp_payload()
{
	Bytes b;

	put16(b, 1);		/* Ethernet */
	put16(b, kEthPIpv4);
	put8(b, 6);
	put8(b, 4);
	put16(b, 1);		/* request */
	put(b, kPeer.b, 6);
	put(b, kIp4Src, 4);
	b.resize(b.size() + 6, 0);
	put(b, kIp4Dst, 4);
	return b;
}

} // namespace

/* ------------------------------------------------------------------ L2 */

TEST_CASE("frame: destination class, our address checked first", "[frame]")
{
	struct Row {
		const char *dst;
		const char *host;
		DestClass want;
	};
	const Row rows[] = {
		{ "02:00:00:00:00:01", "02:00:00:00:00:01", DestClass::Host },
		{ "ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01", DestClass::Broadcast },
		{ "01:00:5e:00:00:fb", "02:00:00:00:00:01", DestClass::Multicast },
		{ "33:33:00:00:00:01", "02:00:00:00:00:01", DestClass::Multicast },
		{ "ff:ff:ff:ff:ff:fe", "02:00:00:00:00:01", DestClass::Multicast },
		{ "01:80:c2:00:00:00", "02:00:00:00:00:01", DestClass::Multicast },
		{ "02:00:00:00:00:02", "02:00:00:00:00:01", DestClass::OtherHost },
		/* Differs from the host only in the last or first octet. */
		{ "02:00:00:00:00:81", "02:00:00:00:00:01", DestClass::OtherHost },
		{ "06:00:00:00:00:01", "02:00:00:00:00:01", DestClass::OtherHost },
		{ "00:00:00:00:00:00", "02:00:00:00:00:01", DestClass::OtherHost },
		/* Not realistic, but shows the order: host before group bit. */
		{ "01:00:5e:00:00:01", "01:00:5e:00:00:01", DestClass::Host },
		{ "ff:ff:ff:ff:ff:ff", "ff:ff:ff:ff:ff:ff", DestClass::Host },
	};

	for (const Row &r : rows) {
		INFO("dst " << r.dst << " host " << r.host);
		ClassifyParams p = params();
		p.host_addr = key(mac(r.host));
		Bytes f = frame(mac(r.dst), kPeer, {}, kEthPArp, arp_payload());
		FrameInfo fi = classify(f, p);

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.dest_class == r.want);
		CHECK(fi.dst == key(mac(r.dst)));
		CHECK(fi.src == key(kPeer));
	}
}

TEST_CASE("frame: source address validity", "[frame]")
{
	struct Row {
		const char *src;
		bool valid;
	};
	const Row rows[] = {
		{ "02:00:00:00:00:02", true },
		{ "00:1b:21:3c:4d:5e", true },
		{ "fe:ff:ff:ff:ff:ff", true },
		{ "00:00:00:00:00:00", false },
		{ "00:00:00:00:00:01", true },
		{ "01:00:5e:00:00:01", false },
		{ "33:33:00:00:00:01", false },
		{ "03:00:00:00:00:00", false },
		{ "ff:ff:ff:ff:ff:ff", false },
	};

	for (const Row &r : rows) {
		INFO("src " << r.src);
		FrameInfo fi = classify(frame(kHost, mac(r.src), {}, kEthPArp,
					      arp_payload()));

		CHECK(fi.src == key(mac(r.src)));
		CHECK(fi.src_valid == r.valid);
		CHECK(fi.dest_class == DestClass::Host);
	}
}

TEST_CASE("frame: link-local destinations", "[frame]")
{
	for (uint8_t x = 0; x < 16; x++) {
		Mac d = mac("01:80:c2:00:00:00");
		d.b[5] = x;
		INFO("index " << int(x));
		FrameInfo fi = classify(frame(d, kPeer, {}, 0x0026, Bytes(46)));

		CHECK(fi.link_local);
		CHECK(fi.link_local_index == x);
		CHECK(fi.dest_class == DestClass::Multicast);
	}

	const char *const near_misses[] = {
		"01:80:c2:00:01:00", "01:80:c2:00:00:10", "01:80:c2:00:00:20",
		"01:80:c2:00:00:f0", "01:80:c2:01:00:00", "01:80:c3:00:00:00",
		"01:81:c2:00:00:00", "03:80:c2:00:00:00", "00:80:c2:00:00:00",
		"01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff", "02:00:00:00:00:01",
	};
	for (const char *s : near_misses) {
		INFO("dst " << s);
		FrameInfo fi = classify(frame(mac(s), kPeer, {}, 0x0026, Bytes(46)));

		CHECK_FALSE(fi.link_local);
		CHECK(fi.link_local_index == 0);
	}
}

TEST_CASE("frame: untagged", "[frame]")
{
	Bytes f = frame(kOther, kPeer, {}, kEthPIpv4, ipv4(kUdp, udp(1, 2)));
	FrameInfo fi = classify(f);

	CHECK(fi.status == FrameStatus::Ok);
	CHECK(fi.dest_class == DestClass::OtherHost);
	CHECK(fi.src_valid);
	CHECK_FALSE(fi.link_local);
	check_untagged(fi);
	CHECK(fi.n_encap == 0);
	CHECK(fi.encap[0].tpid == 0);
	CHECK(fi.encap[0].tci == 0);
	CHECK_FALSE(fi.too_many_tags);
	CHECK(fi.ethertype == kEthPIpv4);
	CHECK(fi.l3_offset == 14);
	CHECK(fi.l4_offset == 34);
	CHECK(fi.tuple_valid);
}

TEST_CASE("frame: non-IP frames carry no L3 information", "[frame]")
{
	const uint16_t types[] = { kEthPArp, 0x88cc /* LLDP */, 0x0026 /* 802.3 */,
				   0x8847 /* MPLS */ };

	for (uint16_t t : types) {
		INFO("ethertype " << t);
		FrameInfo fi = classify(frame(kHost, kPeer, { { kEthP8021Q, 7 } },
					      t, arp_payload()));

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.ethertype == t);
		CHECK(fi.bridge_tagged);
		CHECK(fi.vid == 7);
		check_no_l3(fi);
	}
}

TEST_CASE("frame: 802.1Q in-band tag", "[frame][vlan]")
{
	uint16_t t = tci(5, true, 100);
	Bytes f = frame(kOther, kPeer, { { kEthP8021Q, t } }, kEthPIpv4,
			ipv4(kTcp, tcp(40000, 443)));

	SECTION("bridge protocol 802.1Q: the tag is the bridge tag")
	{
		FrameInfo fi = classify(f, params(kEthP8021Q));

		CHECK(fi.bridge_tagged);
		CHECK(fi.bridge_tag_in_band);
		CHECK(fi.vid == 100);
		CHECK(fi.pcp == 5);
		CHECK(fi.n_encap == 1);
		CHECK(fi.encap[0].tpid == kEthP8021Q);
		CHECK(fi.encap[0].tci == t);
		CHECK(fi.encap[1].tpid == 0);
		CHECK(fi.encap[1].tci == 0);
		CHECK(fi.ethertype == kEthPIpv4);
		CHECK(fi.l3_offset == 18);
		CHECK(fi.l4_offset == 38);
		CHECK(fi.tuple_valid);
		CHECK(fi.tuple.sport == 40000);
		CHECK(fi.tuple.dport == 443);
	}
	SECTION("bridge protocol 802.1ad: the tag is payload")
	{
		FrameInfo fi = classify(f, params(kEthP8021AD));

		check_untagged(fi);
		CHECK(fi.n_encap == 1);
		CHECK(fi.encap[0].tpid == kEthP8021Q);
		CHECK(fi.encap[0].tci == t);
		CHECK(fi.ethertype == kEthPIpv4);
		CHECK(fi.l3_offset == 18);
		CHECK(fi.tuple_valid);
	}
	SECTION("VID 4095 and every PCP are reported as found")
	{
		for (uint8_t pcp = 0; pcp < 8; pcp++) {
			Bytes g = frame(kOther, kPeer,
					{ { kEthP8021Q, tci(pcp, false, 4095) } },
					kEthPArp, arp_payload());
			FrameInfo fi = classify(g);

			CHECK(fi.bridge_tagged);
			CHECK(fi.vid == 4095);
			CHECK(fi.pcp == pcp);
		}
	}
}

TEST_CASE("frame: QinQ, 802.1ad outer and 802.1Q inner", "[frame][vlan]")
{
	uint16_t outer = tci(3, false, 10);
	uint16_t inner = tci(1, false, 200);
	Bytes f = frame(kBcast, kPeer, { { kEthP8021AD, outer }, { kEthP8021Q, inner } },
			kEthPIpv6, ipv6(kUdp, udp(5353, 5353, 4)));

	auto common = [&](const FrameInfo &fi) {
		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.dest_class == DestClass::Broadcast);
		CHECK(fi.n_encap == 2);
		CHECK(fi.encap[0].tpid == kEthP8021AD);
		CHECK(fi.encap[0].tci == outer);
		CHECK(fi.encap[1].tpid == kEthP8021Q);
		CHECK(fi.encap[1].tci == inner);
		CHECK_FALSE(fi.too_many_tags);
		CHECK(fi.ethertype == kEthPIpv6);
		CHECK(fi.l3_offset == 22);
		CHECK(fi.l4_offset == 62);
		CHECK(fi.tuple_valid);
		CHECK(fi.tuple.l4proto == kUdp);
		CHECK(fi.tuple.sport == 5353);
	};

	SECTION("bridge protocol 802.1ad: the outer tag is the bridge tag")
	{
		FrameInfo fi = classify(f, params(kEthP8021AD));

		common(fi);
		CHECK(fi.bridge_tagged);
		CHECK(fi.bridge_tag_in_band);
		CHECK(fi.vid == 10);
		CHECK(fi.pcp == 3);
	}
	SECTION("bridge protocol 802.1Q: a foreign outer tag leaves it untagged")
	{
		FrameInfo fi = classify(f, params(kEthP8021Q));

		common(fi);
		check_untagged(fi);
	}
}

TEST_CASE("frame: priority tag", "[frame][vlan]")
{
	uint16_t t = tci(6, false, 0);
	FrameInfo fi = classify(frame(kHost, kPeer, { { kEthP8021Q, t } },
				      kEthPIpv4, ipv4(kUdp, udp(1, 2))));

	CHECK(fi.bridge_tagged);
	CHECK(fi.bridge_tag_in_band);
	CHECK(fi.vid == 0);
	CHECK(fi.pcp == 6);
	CHECK(fi.n_encap == 1);
	CHECK(fi.encap[0].tci == t);
	CHECK(fi.ethertype == kEthPIpv4);
	CHECK(fi.tuple_valid);
}

TEST_CASE("frame: out-of-band tag", "[frame][vlan]")
{
	uint16_t ot = tci(2, false, 300);
	uint16_t it = tci(4, false, 400);

	SECTION("OOB tag only")
	{
		Bytes f = frame(kOther, kPeer, {}, kEthPIpv4,
				ipv4(kTcp, tcp(1000, 22)));
		FrameInfo fi = classify(f, oob(kEthP8021Q, ot));

		CHECK(fi.bridge_tagged);
		CHECK_FALSE(fi.bridge_tag_in_band);
		CHECK(fi.vid == 300);
		CHECK(fi.pcp == 2);
		CHECK(fi.n_encap == 1);
		CHECK(fi.encap[0].tpid == kEthP8021Q);
		CHECK(fi.encap[0].tci == ot);
		CHECK(fi.ethertype == kEthPIpv4);
		CHECK(fi.l3_offset == 14);
		CHECK(fi.tuple_valid);
		CHECK(fi.tuple.dport == 22);
	}
	SECTION("OOB tag with an in-band tag behind it")
	{
		Bytes f = frame(kOther, kPeer, { { kEthP8021Q, it } }, kEthPIpv4,
				ipv4(kTcp, tcp(1000, 22)));
		FrameInfo fi = classify(f, oob(kEthP8021Q, ot));

		CHECK(fi.bridge_tagged);
		CHECK_FALSE(fi.bridge_tag_in_band);
		CHECK(fi.vid == 300);
		CHECK(fi.pcp == 2);
		CHECK(fi.n_encap == 2);
		CHECK(fi.encap[0].tpid == kEthP8021Q);
		CHECK(fi.encap[0].tci == ot);
		CHECK(fi.encap[1].tpid == kEthP8021Q);
		CHECK(fi.encap[1].tci == it);
		CHECK_FALSE(fi.too_many_tags);
		CHECK(fi.ethertype == kEthPIpv4);
		CHECK(fi.l3_offset == 18);
		CHECK(fi.tuple_valid);
	}
	SECTION("foreign OOB tag before a bridge-protocol in-band tag")
	{
		Bytes f = frame(kOther, kPeer, { { kEthP8021Q, it } }, kEthPIpv4,
				ipv4(kTcp, tcp(1000, 22)));
		FrameInfo fi = classify(f, oob(kEthP8021AD, ot));

		check_untagged(fi);
		CHECK(fi.n_encap == 2);
		CHECK(fi.encap[0].tpid == kEthP8021AD);
		CHECK(fi.encap[1].tci == it);
		CHECK(fi.tuple_valid);
	}
	SECTION("OOB tag plus two in-band tags is one too many")
	{
		Bytes f = frame(kOther, kPeer,
				{ { kEthP8021AD, it }, { kEthP8021Q, 5 } },
				kEthPIpv4, ipv4(kTcp, tcp(1000, 22)));
		FrameInfo fi = classify(f, oob(kEthP8021Q, ot));

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.too_many_tags);
		CHECK(fi.n_encap == 2);
		CHECK(fi.encap[1].tpid == kEthP8021AD);
		CHECK(fi.ethertype == kEthP8021Q);
		CHECK(fi.vid == 300);
		check_no_l3(fi);
	}
	SECTION("OOB tag, in-band tag cut short")
	{
		Bytes f = frame(kOther, kPeer, { { kEthP8021Q, it } }, kEthPIpv4);
		FrameInfo fi = classify(f, 16, oob(kEthP8021Q, ot));

		CHECK(fi.status == FrameStatus::Truncated);
		CHECK(fi.n_encap == 1);
		CHECK(fi.vid == 300);
		check_no_l3(fi);
	}
}

TEST_CASE("frame: three tags", "[frame][vlan]")
{
	Bytes f = frame(kOther, kPeer,
			{ { kEthP8021AD, 1 }, { kEthP8021Q, 2 }, { kEthP8021Q, 3 } },
			kEthPIpv4, ipv4(kTcp, tcp(1, 2)));

	SECTION("whole frame")
	{
		FrameInfo fi = classify(f);

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.too_many_tags);
		CHECK(fi.n_encap == 2);
		CHECK(fi.encap[0].tpid == kEthP8021AD);
		CHECK(fi.encap[0].tci == 1);
		CHECK(fi.encap[1].tpid == kEthP8021Q);
		CHECK(fi.encap[1].tci == 2);
		CHECK(fi.ethertype == kEthP8021Q);
		check_untagged(fi);
		check_no_l3(fi);
	}
	SECTION("the third tag need not be complete")
	{
		FrameInfo fi = classify(f, 22);	/* ends with the third TPID */

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.too_many_tags);
		CHECK(fi.ethertype == kEthP8021Q);
		check_no_l3(fi);
	}
	SECTION("third tag with the bridge protocol of the outer")
	{
		FrameInfo fi = classify(f, params(kEthP8021AD));

		CHECK(fi.too_many_tags);
		CHECK(fi.bridge_tagged);
		CHECK(fi.vid == 1);
	}
}

/* ----------------------------------------------------------- truncation */

TEST_CASE("frame: every truncation of a tagged TCP/IPv4 frame", "[frame][truncation]")
{
	uint16_t t = tci(0, false, 42);
	/* IPv4 with 4 bytes of options, TCP with 4 bytes of options, 4 of data. */
	Bytes full = frame(kOther, kPeer, { { kEthP8021Q, t } }, kEthPIpv4,
			   ipv4(kTcp, tcp(12345, 80, 6, 4), 0, 1));
	const size_t l3 = 18, l4 = l3 + 24, l4_end = l4 + 24;

	REQUIRE(full.size() == l4_end + 4);

	for (bool patch : { false, true }) {
		for (size_t len = 0; len <= full.size(); len++) {
			INFO("len " << len << (patch ? " tot_len patched" : ""));
			Bytes f = full;
			/* Patched: the IP length agrees with the cut frame. */
			if (patch && len >= l3 + 4)
				set16(f, l3 + 2, static_cast<uint16_t>(len - l3));
			FrameInfo fi = classify(f, len);

			if (len < 14) {
				CHECK(fi.status == FrameStatus::Truncated);
				CHECK(fi.dest_class == DestClass::OtherHost);
				CHECK(fi.dst == 0);
				CHECK(fi.src == 0);
				CHECK_FALSE(fi.src_valid);
				CHECK(fi.n_encap == 0);
				CHECK(fi.ethertype == 0);
				check_untagged(fi);
				check_no_l3(fi);
				continue;
			}
			CHECK(fi.dst == key(kOther));
			CHECK(fi.src == key(kPeer));
			CHECK(fi.dest_class == DestClass::OtherHost);
			if (len < l3) {
				CHECK(fi.status == FrameStatus::Truncated);
				CHECK(fi.n_encap == 0);
				CHECK(fi.ethertype == kEthP8021Q);
				check_untagged(fi);
				check_no_l3(fi);
				continue;
			}
			CHECK(fi.status == FrameStatus::Ok);
			CHECK(fi.bridge_tagged);
			CHECK(fi.vid == 42);
			CHECK(fi.n_encap == 1);
			CHECK(fi.ethertype == kEthPIpv4);
			CHECK(fi.l3_offset == l3);
			CHECK_FALSE(fi.is_fragment);

			bool l3_ok = patch ? len >= l4 : len == full.size();
			CHECK(fi.l3_truncated == !l3_ok);
			if (!l3_ok) {
				CHECK(fi.l4_offset == 0);
				CHECK_FALSE(fi.tuple_valid);
				check_no_tuple(fi.tuple);
				continue;
			}
			CHECK(fi.l4_offset == l4);
			check_ip4_addrs(fi.tuple);
			CHECK(fi.tuple.l4proto == kTcp);
			bool l4_ok = len >= l4_end;
			CHECK(fi.tuple_valid == l4_ok);
			CHECK(fi.tuple.sport == (l4_ok ? 12345 : 0));
			CHECK(fi.tuple.dport == (l4_ok ? 80 : 0));
		}
	}
}

TEST_CASE("frame: every truncation of a TCP/IPv6 frame with extension headers",
	  "[frame][truncation]")
{
	/* HBH of 16 bytes, destination options of 8, TCP of 20, 3 of data. */
	Bytes full = frame(kMcast6, kPeer, { { kEthP8021Q, tci(1, false, 7) } },
			   kEthPIpv6,
			   ipv6(kHopOpts, cat({ ext(kDstOpts, 1), ext(kTcp, 0),
						 tcp(443, 50000, 5, 3) })));
	const size_t l3 = 18, ext_start = l3 + 40, l4 = ext_start + 24;
	const size_t l4_end = l4 + 20;

	REQUIRE(full.size() == l4_end + 3);

	for (bool patch : { false, true }) {
		for (size_t len = 0; len <= full.size(); len++) {
			INFO("len " << len << (patch ? " payload_len patched" : ""));
			Bytes f = full;
			if (patch && len >= ext_start)
				set16(f, l3 + 4, static_cast<uint16_t>(len - ext_start));
			FrameInfo fi = classify(f, len);

			if (len < 14) {
				CHECK(fi.status == FrameStatus::Truncated);
				CHECK(fi.dest_class == DestClass::OtherHost);
				CHECK(fi.dst == 0);
				check_no_l3(fi);
				continue;
			}
			CHECK(fi.dest_class == DestClass::Multicast);
			if (len < l3) {
				CHECK(fi.status == FrameStatus::Truncated);
				CHECK_FALSE(fi.bridge_tagged);
				check_no_l3(fi);
				continue;
			}
			CHECK(fi.status == FrameStatus::Ok);
			CHECK(fi.bridge_tagged);
			CHECK(fi.vid == 7);
			CHECK(fi.pcp == 1);
			CHECK(fi.ethertype == kEthPIpv6);
			CHECK(fi.l3_offset == l3);
			CHECK_FALSE(fi.is_fragment);

			bool l3_ok = patch ? len >= l4 : len == full.size();
			CHECK(fi.l3_truncated == !l3_ok);
			if (!l3_ok) {
				CHECK(fi.l4_offset == 0);
				CHECK_FALSE(fi.tuple_valid);
				check_no_tuple(fi.tuple);
				continue;
			}
			CHECK(fi.l4_offset == l4);
			check_ip6_addrs(fi.tuple);
			CHECK(fi.tuple.l4proto == kTcp);
			bool l4_ok = len >= l4_end;
			CHECK(fi.tuple_valid == l4_ok);
			CHECK(fi.tuple.sport == (l4_ok ? 443 : 0));
			CHECK(fi.tuple.dport == (l4_ok ? 50000 : 0));
		}
	}
}

TEST_CASE("frame: truncated second in-band tag", "[frame][truncation]")
{
	Bytes f = frame(kOther, kPeer, { { kEthP8021AD, tci(0, false, 9) },
					 { kEthP8021Q, 2 } },
			kEthPIpv4, ipv4(kUdp, udp(1, 2)));

	for (size_t len = 18; len < 22; len++) {
		INFO("len " << len);
		FrameInfo fi = classify(f, len, kNoOob, params(kEthP8021AD));

		CHECK(fi.status == FrameStatus::Truncated);
		CHECK(fi.n_encap == 1);
		CHECK(fi.encap[0].tpid == kEthP8021AD);
		CHECK(fi.bridge_tagged);
		CHECK(fi.vid == 9);
		CHECK(fi.ethertype == kEthP8021Q);
		check_no_l3(fi);
	}
	FrameInfo fi = classify(f, 22, kNoOob, params(kEthP8021AD));
	CHECK(fi.status == FrameStatus::Ok);
	CHECK(fi.n_encap == 2);
	CHECK(fi.ethertype == kEthPIpv4);
	CHECK(fi.l3_truncated);
}

/* ------------------------------------------------------------ IPv4 / L4 */

TEST_CASE("frame: IPv4 tuples", "[frame][ipv4]")
{
	struct Row {
		const char *what;
		uint8_t proto;
		Bytes l4;
		uint16_t sport, dport;
	};
	const Row rows[] = {
		{ "tcp", kTcp, tcp(12345, 80), 12345, 80 },
		{ "tcp with options", kTcp, tcp(1, 65535, 15), 1, 65535 },
		{ "udp", kUdp, udp(53000, 53, 20), 53000, 53 },
		{ "udp, no payload", kUdp, udp(0, 0), 0, 0 },
		{ "icmp echo request", kIcmp, icmp(8, 0, 0x1234, 1), 0x1234, 0x0800 },
		{ "icmp echo reply", kIcmp, icmp(0, 0, 0xbeef, 2), 0xbeef, 0x0000 },
		{ "icmp port unreachable", kIcmp, icmp(3, 3, 0x5555, 0), 0, 0x0303 },
		{ "icmp time exceeded", kIcmp, icmp(11, 1, 0x7777, 0), 0, 0x0b01 },
	};

	for (const Row &r : rows) {
		for (uint8_t opts : { 0, 2 }) {
			INFO(r.what << ", " << int(opts) << " option words");
			Bytes f = frame(kHost, kPeer, {}, kEthPIpv4,
					ipv4(r.proto, r.l4, 0, opts));
			FrameInfo fi = classify(f);

			CHECK(fi.status == FrameStatus::Ok);
			CHECK(fi.l3_offset == 14);
			CHECK(fi.l4_offset == 34 + 4 * opts);
			CHECK_FALSE(fi.l3_truncated);
			CHECK_FALSE(fi.is_fragment);
			CHECK(fi.tuple_valid);
			check_ip4_addrs(fi.tuple);
			CHECK(fi.tuple.l4proto == r.proto);
			CHECK(fi.tuple.sport == r.sport);
			CHECK(fi.tuple.dport == r.dport);
		}
	}
}

TEST_CASE("frame: IPv4 transport header incomplete or unknown", "[frame][ipv4]")
{
	struct Row {
		const char *what;
		uint8_t proto;
		Bytes l4;
	};
	Bytes short_tcp = tcp(1, 2);
	short_tcp.resize(19);
	Bytes doff4 = tcp(1, 2);
	doff4[12] = 4 << 4;
	Bytes doff_long = tcp(1, 2, 5, 8);
	doff_long[12] = 8 << 4;		/* 32 bytes claimed, 28 present */
	Bytes short_udp = udp(1, 2);
	short_udp.resize(7);
	Bytes short_icmp = icmp(8, 0, 1, 1);
	short_icmp.resize(7);
	const Row rows[] = {
		{ "tcp 19 bytes", kTcp, short_tcp },
		{ "tcp data offset 4", kTcp, doff4 },
		{ "tcp data offset beyond datagram", kTcp, doff_long },
		{ "udp 7 bytes", kUdp, short_udp },
		{ "icmp 7 bytes", kIcmp, short_icmp },
		{ "no transport bytes", kTcp, {} },
		{ "gre", kGre, Bytes(24, 0) },
		{ "icmpv6 inside ipv4", kIcmpv6, icmp(128, 0, 1, 1) },
	};

	for (const Row &r : rows) {
		INFO(r.what);
		FrameInfo fi = classify(frame(kHost, kPeer, {}, kEthPIpv4,
					      ipv4(r.proto, r.l4)));

		CHECK(fi.status == FrameStatus::Ok);
		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.l4_offset == 34);
		CHECK_FALSE(fi.tuple_valid);
		check_ip4_addrs(fi.tuple);
		CHECK(fi.tuple.l4proto == r.proto);
		CHECK(fi.tuple.sport == 0);
		CHECK(fi.tuple.dport == 0);
	}
}

TEST_CASE("frame: IPv4 datagram ends before the Ethernet padding", "[frame][ipv4]")
{
	/* A minimum-size frame: 28 bytes of IP/UDP, 18 bytes of padding. */
	Bytes f = frame(kHost, kPeer, {}, kEthPIpv4, ipv4(kUdp, udp(7, 9)));
	f.resize(60, 0);

	FrameInfo fi = classify(f);
	CHECK(fi.tuple_valid);
	CHECK(fi.tuple.sport == 7);
	CHECK(fi.tuple.dport == 9);

	/* The same, but the protocol says TCP: 8 bytes are not a TCP header
	 * even though the padding would cover 20. */
	f[14 + 9] = kTcp;
	fi = classify(f);
	CHECK_FALSE(fi.l3_truncated);
	CHECK(fi.l4_offset == 34);
	CHECK_FALSE(fi.tuple_valid);
	CHECK(fi.tuple.l4proto == kTcp);
	CHECK(fi.tuple.sport == 0);
}

TEST_CASE("frame: malformed IPv4 headers", "[frame][ipv4]")
{
	Bytes good = frame(kHost, kPeer, {}, kEthPIpv4, ipv4(kTcp, tcp(1, 2)));
	const size_t l3 = 14;

	/* Version/IHL byte and tot_len; the IP datagram holds 40 bytes. */
	struct Row {
		const char *what;
		uint8_t ver_ihl;
		uint16_t tot_len;
	};
	const Row rows[] = {
		{ "version 5", 0x55, 40 },
		{ "version 6", 0x65, 40 },
		{ "version 0", 0x05, 40 },
		{ "ihl 4", 0x44, 40 },
		{ "ihl 0", 0x40, 40 },
		{ "ihl 15, beyond the frame", 0x4f, 40 },
		{ "ihl 11, beyond the frame", 0x4b, 40 },
		{ "ihl 6 beyond tot_len 22", 0x46, 22 },
		{ "tot_len 19", 0x45, 19 },
		{ "tot_len 0", 0x45, 0 },
		{ "tot_len beyond the frame", 0x45, 41 },
		{ "tot_len 65535", 0x45, 65535 },
	};

	for (const Row &r : rows) {
		INFO(r.what);
		Bytes f = good;
		f[l3] = r.ver_ihl;
		set16(f, l3 + 2, r.tot_len);
		FrameInfo fi = classify(f);

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.ethertype == kEthPIpv4);
		CHECK(fi.l3_offset == l3);
		CHECK(fi.l3_truncated);
		CHECK(fi.l4_offset == 0);
		CHECK_FALSE(fi.is_fragment);
		CHECK_FALSE(fi.tuple_valid);
		check_no_tuple(fi.tuple);
	}

	SECTION("a sane header of exactly tot_len")
	{
		Bytes f = good;
		f[l3 + 2] = 0;
		f[l3 + 3] = 20;		/* no transport bytes */
		FrameInfo fi = classify(f);

		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.l4_offset == 34);
		CHECK_FALSE(fi.tuple_valid);
	}
}

TEST_CASE("frame: IPv4 fragments", "[frame][ipv4]")
{
	struct Row {
		const char *what;
		uint16_t frag;
		bool fragment;
	};
	const Row rows[] = {
		{ "not fragmented", 0x0000, false },
		{ "DF", 0x4000, false },
		{ "first fragment (MF, offset 0)", 0x2000, false },
		{ "middle fragment", 0x2000 | 185, true },
		{ "last fragment", 185, true },
		{ "last fragment, offset 1", 1, true },
		{ "largest offset", 0x1fff, true },
		{ "reserved bit only", 0x8000, false },
	};

	for (uint8_t proto : { kUdp, kTcp }) {
		Bytes l4 = proto == kUdp ? udp(4789, 4789, 16) : tcp(5001, 5002);
		for (const Row &r : rows) {
			INFO(r.what << " proto " << int(proto));
			Bytes f = frame(kOther, kPeer, { { kEthP8021Q, 5 } },
					kEthPIpv4, ipv4(proto, l4, r.frag));
			FrameInfo fi = classify(f);

			CHECK(fi.status == FrameStatus::Ok);
			CHECK_FALSE(fi.l3_truncated);
			CHECK(fi.is_fragment == r.fragment);
			check_ip4_addrs(fi.tuple);
			CHECK(fi.tuple.l4proto == proto);
			CHECK(fi.tuple_valid == !r.fragment);
			CHECK(fi.l4_offset == (r.fragment ? 0 : 38));
			if (r.fragment) {
				CHECK(fi.tuple.sport == 0);
				CHECK(fi.tuple.dport == 0);
			} else {
				CHECK(fi.tuple.sport == (proto == kUdp ? 4789 : 5001));
			}
		}
	}
}

/* ----------------------------------------------------------------- IPv6 */

TEST_CASE("frame: IPv6 tuples", "[frame][ipv6]")
{
	struct Row {
		const char *what;
		uint8_t nh;
		Bytes rest;
		uint8_t l4proto;
		size_t l4_off;
		uint16_t sport, dport;
	};
	const Row rows[] = {
		{ "tcp", kTcp, tcp(33000, 22), kTcp, 54, 33000, 22 },
		{ "udp", kUdp, udp(546, 547, 30), kUdp, 54, 546, 547 },
		{ "icmpv6 echo request", kIcmpv6, icmp(128, 0, 0x4321, 1),
		  kIcmpv6, 54, 0x4321, 0x8000 },
		{ "icmpv6 echo reply", kIcmpv6, icmp(129, 0, 0x0102, 9),
		  kIcmpv6, 54, 0x0102, 0x8100 },
		{ "icmpv6 neighbour solicitation", kIcmpv6, icmp(135, 0, 0xffff, 0),
		  kIcmpv6, 54, 0, 0x8700 },
		{ "icmpv6 destination unreachable", kIcmpv6, icmp(1, 4, 0x1111, 0),
		  kIcmpv6, 54, 0, 0x0104 },
		{ "hop-by-hop + icmpv6 (MLD)", kHopOpts,
		  cat({ ext(kIcmpv6, 0), icmp(143, 0, 0, 1) }), kIcmpv6, 62, 0, 0x8f00 },
		{ "routing + udp", kRouting, cat({ ext(kUdp, 2), udp(1, 2) }),
		  kUdp, 78, 1, 2 },
		{ "destination options + tcp", kDstOpts,
		  cat({ ext(kTcp, 0), tcp(3, 4) }), kTcp, 62, 3, 4 },
		{ "hbh + routing + dstopts + tcp", kHopOpts,
		  cat({ ext(kRouting, 0), ext(kDstOpts, 1), ext(kTcp, 0), tcp(5, 6) }),
		  kTcp, 86, 5, 6 },
		{ "first fragment + udp", kFragment,
		  cat({ frag6(kUdp, 0, true), udp(7, 8, 100) }), kUdp, 62, 7, 8 },
		{ "atomic fragment + tcp", kFragment,
		  cat({ frag6(kTcp, 0, false), tcp(9, 10) }), kTcp, 62, 9, 10 },
		{ "dstopts + first fragment + icmpv6", kDstOpts,
		  cat({ ext(kFragment, 0), frag6(kIcmpv6, 0, true),
			icmp(128, 0, 77, 1) }), kIcmpv6, 70, 77, 0x8000 },
	};

	for (const Row &r : rows) {
		INFO(r.what);
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6, ipv6(r.nh, r.rest));
		FrameInfo fi = classify(f);

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.ethertype == kEthPIpv6);
		CHECK(fi.l3_offset == 14);
		CHECK(fi.l4_offset == r.l4_off);
		CHECK_FALSE(fi.l3_truncated);
		CHECK_FALSE(fi.is_fragment);
		CHECK(fi.tuple_valid);
		check_ip6_addrs(fi.tuple);
		CHECK(fi.tuple.l4proto == r.l4proto);
		CHECK(fi.tuple.sport == r.sport);
		CHECK(fi.tuple.dport == r.dport);
	}
}

TEST_CASE("frame: IPv6 non-first fragments", "[frame][ipv6]")
{
	for (uint16_t off8 : { 1, 185, 8191 }) {
		for (bool more : { false, true }) {
			INFO("offset " << off8 << " more " << more);
			Bytes f = frame(kOther, kPeer, {}, kEthPIpv6,
					ipv6(kDstOpts, cat({ ext(kFragment, 0),
							     frag6(kUdp, off8, more),
							     udp(1, 2, 40) })));
			FrameInfo fi = classify(f);

			CHECK(fi.status == FrameStatus::Ok);
			CHECK_FALSE(fi.l3_truncated);
			CHECK(fi.is_fragment);
			CHECK_FALSE(fi.tuple_valid);
			CHECK(fi.l4_offset == 0);
			check_ip6_addrs(fi.tuple);
			CHECK(fi.tuple.l4proto == kUdp);
			CHECK(fi.tuple.sport == 0);
			CHECK(fi.tuple.dport == 0);
		}
	}
}

TEST_CASE("frame: IPv6 headers that end the walk", "[frame][ipv6]")
{
	SECTION("no next header")
	{
		FrameInfo fi = classify(frame(kHost, kPeer, {}, kEthPIpv6,
					      ipv6(kNoNext, Bytes(8, 0))));

		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.tuple.l4proto == kNoNext);
		CHECK(fi.l4_offset == 54);
		CHECK_FALSE(fi.tuple_valid);
		check_ip6_addrs(fi.tuple);
	}
	SECTION("eight extension headers are walked")
	{
		Bytes rest;
		for (int i = 0; i < 7; i++)
			put(rest, ext(kDstOpts, 0));
		put(rest, ext(kUdp, 0));
		put(rest, udp(11, 12));
		FrameInfo fi = classify(frame(kHost, kPeer, {}, kEthPIpv6,
					      ipv6(kDstOpts, rest)));

		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.l4_offset == 54 + 64);
		CHECK(fi.tuple_valid);
		CHECK(fi.tuple.sport == 11);
	}
	SECTION("a ninth extension header is too many")
	{
		Bytes rest;
		for (int i = 0; i < 8; i++)
			put(rest, ext(kDstOpts, 0));
		put(rest, ext(kUdp, 0));
		put(rest, udp(11, 12));
		FrameInfo fi = classify(frame(kHost, kPeer, {}, kEthPIpv6,
					      ipv6(kDstOpts, rest)));

		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.l3_offset == 14);
		CHECK(fi.l3_truncated);
		CHECK(fi.l4_offset == 0);
		CHECK_FALSE(fi.tuple_valid);
		check_no_tuple(fi.tuple);
	}
}

TEST_CASE("frame: malformed IPv6 headers", "[frame][ipv6]")
{
	const size_t l3 = 14;

	auto check_bad = [&](const FrameInfo &fi) {
		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.ethertype == kEthPIpv6);
		CHECK(fi.l3_offset == l3);
		CHECK(fi.l3_truncated);
		CHECK(fi.l4_offset == 0);
		CHECK_FALSE(fi.is_fragment);
		CHECK_FALSE(fi.tuple_valid);
		check_no_tuple(fi.tuple);
	};

	SECTION("version 4")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6, ipv6(kUdp, udp(1, 2)));
		f[l3] = 0x40;
		check_bad(classify(f));
	}
	SECTION("payload length beyond the frame")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6, ipv6(kUdp, udp(1, 2)));
		set16(f, l3 + 4, 9);
		check_bad(classify(f));
	}
	SECTION("extension header longer than the payload")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6,
				ipv6(kRouting, cat({ ext(kUdp, 0), udp(1, 2) })));
		f[l3 + 40 + 1] = 2;	/* 24 bytes claimed, 16 present */
		check_bad(classify(f));
	}
	SECTION("extension header beyond payload length, within the frame")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6,
				ipv6(kDstOpts, cat({ ext(kUdp, 0), udp(1, 2) })));
		set16(f, l3 + 4, 4);	/* the padding holds the rest */
		check_bad(classify(f));
	}
	SECTION("fragment header cut short")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6,
				ipv6(kFragment, frag6(kUdp, 5, false)));
		f.resize(f.size() - 1);
		set16(f, l3 + 4, 7);
		check_bad(classify(f));
	}
}

TEST_CASE("frame: IPv6 payload length zero", "[frame][ipv6]")
{
	SECTION("jumbogram: hop-by-hop first, the frame length bounds it")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6,
				ipv6(kHopOpts, cat({ ext(kTcp, 0), tcp(80, 8080) })));
		set16(f, 14 + 4, 0);
		FrameInfo fi = classify(f);

		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.tuple_valid);
		CHECK(fi.tuple.sport == 80);
		CHECK(fi.tuple.dport == 8080);
	}
	SECTION("no hop-by-hop: an empty payload, whatever follows")
	{
		Bytes f = frame(kHost, kPeer, {}, kEthPIpv6, ipv6(kTcp, tcp(80, 8080)));
		set16(f, 14 + 4, 0);
		FrameInfo fi = classify(f);

		CHECK_FALSE(fi.l3_truncated);
		CHECK(fi.l4_offset == 54);
		CHECK(fi.tuple.l4proto == kTcp);
		CHECK_FALSE(fi.tuple_valid);
		CHECK(fi.tuple.sport == 0);
	}
}

/* ------------------------------------------------------------ parse_l3 */

TEST_CASE("frame: parse_l3 false leaves L3 fields zero", "[frame]")
{
	const Bytes frames[] = {
		frame(kHost, kPeer, { { kEthP8021Q, 10 } }, kEthPIpv4,
		      ipv4(kTcp, tcp(1, 2))),
		frame(kHost, kPeer, {}, kEthPIpv6, ipv6(kUdp, udp(3, 4))),
		frame(kHost, kPeer, {}, kEthPIpv4, ipv4(kUdp, udp(1, 2), 185)),
		frame(kHost, kPeer, {}, kEthPIpv4, Bytes(10, 0x45)),
	};

	for (const Bytes &f : frames) {
		FrameInfo with = classify(f, params(kEthP8021Q, true));
		FrameInfo fi = classify(f, params(kEthP8021Q, false));

		CHECK(with.l3_offset != 0);
		CHECK(fi.status == FrameStatus::Ok);
		CHECK(fi.ethertype == with.ethertype);
		CHECK(fi.vid == with.vid);
		CHECK(fi.n_encap == with.n_encap);
		CHECK(fi.dest_class == DestClass::Host);
		check_no_l3(fi);
	}
}

/* ------------------------------------------------------ recycled buffer */

TEST_CASE("frame: a recycled FrameInfo never inherits the previous frame",
	  "[frame]")
{
	/* Frame 1: multicast, 802.1Q-tagged, IPv6 UDP with a full tuple. */
	Bytes first = frame(kMcast6, kPeer,
			    { { kEthP8021Q, tci(7, true, 4000) } }, kEthPIpv6,
			    ipv6(kHopOpts, cat({ ext(kUdp, 0), udp(5683, 5683, 8) })));
	/* Frame 2: unicast to us, untagged ARP. */
	Bytes second = frame(kHost, kPeer, {}, kEthPArp, arp_payload());
	const ClassifyParams p = params();
	FrameInfo recycled;

	REQUIRE(classify_frame(first.data(), uint32_t(first.size()), kNoOob, p,
			       recycled));
	REQUIRE(recycled.dest_class == DestClass::Multicast);
	REQUIRE(recycled.bridge_tagged);
	REQUIRE(recycled.tuple_valid);
	REQUIRE(recycled.l4_offset != 0);

	REQUIRE(classify_frame(second.data(), uint32_t(second.size()), kNoOob, p,
			       recycled));

	FrameInfo zeroed;
	memset(&zeroed, 0, sizeof(zeroed));
	REQUIRE(classify_frame(second.data(), uint32_t(second.size()), kNoOob, p,
			       zeroed));

	alignas(FrameInfo) unsigned char raw[sizeof(FrameInfo)];
	memset(raw, 0xff, sizeof(raw));
	FrameInfo &garbage = *reinterpret_cast<FrameInfo *>(raw);
	REQUIRE(classify_frame(second.data(), uint32_t(second.size()), kNoOob, p,
			       garbage));

	require_same(recycled, zeroed);
	require_same(recycled, garbage);

	/* And the values themselves. */
	CHECK(recycled.dest_class == DestClass::Host);
	CHECK(recycled.ethertype == kEthPArp);
	check_untagged(recycled);
	CHECK(recycled.n_encap == 0);
	CHECK(recycled.encap[0].tpid == 0);
	check_no_l3(recycled);

	/* Then a truncated frame through the same object. */
	REQUIRE_FALSE(classify_frame(first.data(), 13, kNoOob, p, recycled));
	CHECK(recycled.status == FrameStatus::Truncated);
	CHECK(recycled.dest_class == DestClass::OtherHost);
	CHECK(recycled.dst == 0);
	CHECK_FALSE(recycled.src_valid);
	CHECK(recycled.ethertype == 0);
	check_untagged(recycled);
	check_no_l3(recycled);
}
