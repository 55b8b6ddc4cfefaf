// test_nft_sctp_chunk.cc - SCTP chunk matching in the core's engine
// (core/nft_eval.cc eval_sctp_chunk): `sctp chunk NAME exists|missing` and
// `sctp chunk NAME FIELD VALUE` over frames with several chunks, as Linux
// 6.1's nft_exthdr_sctp_eval walks them (each chunk 4-byte aligned past
// its length; a zero length or a chunk header past the frame ends the
// walk; a field must lie within its chunk and the chunk within the frame),
// non-SCTP and IPv6 frames, and the validation of nft_exthdr_select_ops
// and nft_exthdr_init for op sctp. Rules are compiled by xnft from nft
// text, or built raw with libnftnl where nft would not send them.
//
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include "engine_fixture.h"
#include "engine_load.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

using namespace xb::nft;
using namespace xnft::test;

namespace {

constexpr uint8_t kData = 0, kInit = 1, kSack = 3, kHeartbeat = 4, kAsconf = 0xc1;

// A chunk: its type, flags, the value of its length field and its body
// (padded to 4 bytes in the packet, whatever the length field says).
struct Chunk {
	uint8_t type, flags;
	uint16_t length;
	ctf::Bytes body;
};

Chunk chunk(uint8_t type, const ctf::Bytes &body, uint8_t flags = 0)
{
	return Chunk{type, flags, uint16_t(4 + body.size()), body};
}

ctf::Bytes be32(uint32_t v)
{
	return {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
}

ctf::Bytes cat(std::initializer_list<ctf::Bytes> parts)
{
	ctf::Bytes out;
	for (const ctf::Bytes &p : parts)
		out.insert(out.end(), p.begin(), p.end());
	return out;
}

// DATA: tsn, stream, ssn, ppid, then @payload bytes of user data.
Chunk data_chunk(uint32_t tsn, uint16_t stream, uint16_t ssn, uint32_t ppid, size_t payload = 3)
{
	ctf::Bytes b = cat({be32(tsn), {uint8_t(stream >> 8), uint8_t(stream), uint8_t(ssn >> 8), uint8_t(ssn)},
			    be32(ppid)});
	b.resize(b.size() + payload, 0xab);
	return chunk(kData, b, 0x03);
}

Chunk init_chunk(uint32_t tag, uint32_t rwnd, uint16_t os, uint16_t is, uint32_t tsn)
{
	return chunk(kInit, cat({be32(tag), be32(rwnd), {uint8_t(os >> 8), uint8_t(os), uint8_t(is >> 8), uint8_t(is)},
				 be32(tsn)}));
}

Chunk sack_chunk(uint32_t cum, uint32_t rwnd)
{
	return chunk(kSack, cat({be32(cum), be32(rwnd), {0, 0, 0, 0}}));
}

// An SCTP packet from 5000 to 6000 carrying @chunks, then @trailer bytes.
ctf::Bytes sctp_l4(const std::vector<Chunk> &chunks, const ctf::Bytes &trailer = {})
{
	ctf::Bytes b = {0x13, 0x88, 0x17, 0x70, 0, 0, 0, 1, 0, 0, 0, 0};
	for (const Chunk &c : chunks) {
		b.push_back(c.type);
		b.push_back(c.flags);
		b.push_back(uint8_t(c.length >> 8));
		b.push_back(uint8_t(c.length));
		b.insert(b.end(), c.body.begin(), c.body.end());
		while (b.size() % 4)
			b.push_back(0);
	}
	b.insert(b.end(), trailer.begin(), trailer.end());
	return b;
}

ctf::Bytes sctp4(const std::vector<Chunk> &chunks, const ctf::Bytes &trailer = {}, uint8_t proto = 132,
		 uint16_t frag = 0)
{
	return ctf::frame(ctf::ip_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), proto,
					 sctp_l4(chunks, trailer), frag));
}

ctf::Bytes sctp6(const std::vector<Chunk> &chunks)
{
	return ctf::frame(ctf::ip_packet(ctf::v6(1), ctf::v6(2), 132, sctp_l4(chunks)));
}

// The rules each count what they match: @rules one per line.
std::string table_with(const std::string &rules)
{
	return "table bridge t { chain c { type filter hook prerouting priority 0; policy accept;\n" + rules +
	       "\n}; }\n";
}

// Which rules (by index) counted @frame.
std::vector<unsigned> matched(Engine &e, unsigned nrules, const ctf::Bytes &frame)
{
	std::vector<uint64_t> before(nrules);
	for (unsigned i = 0; i < nrules; i++)
		before[i] = e.packets("t", "c", i);
	Frame f(frame);
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	std::vector<unsigned> out;
	for (unsigned i = 0; i < nrules; i++)
		if (e.packets("t", "c", i) != before[i])
			out.push_back(i);
	return out;
}

using V = std::vector<unsigned>;

} // namespace

TEST_CASE("nft sctp chunk: presence and fields over several chunks", "[nft][sctp]")
{
	Engine e;
	const char *rules[] = {
		"sctp chunk data exists counter",		  // 0
		"sctp chunk data missing counter",		  // 1
		"sctp chunk init exists counter",		  // 2
		"sctp chunk sack exists counter",		  // 3
		"sctp chunk data tsn 0x01020304 counter",	  // 4
		"sctp chunk data stream 7 counter",		  // 5
		"sctp chunk data ssn 9 counter",		  // 6
		"sctp chunk data ppid 46 counter",		  // 7
		"sctp chunk data flags 3 counter",		  // 8
		"sctp chunk data length 19 counter",		  // 9
		"sctp chunk init init-tag 0xdeadbeef counter",	  // 10
		"sctp chunk init a-rwnd 65536 counter",		  // 11
		"sctp chunk init num-outbound-streams 10 counter", // 12
		"sctp chunk init num-inbound-streams 11 counter", // 13
		"sctp chunk init initial-tsn 100 counter",	  // 14
		"sctp chunk sack cum-tsn-ack { 5, 6 } counter",	  // 15
		"sctp chunk sack a-rwnd 1000-2000 counter",	  // 16
		"sctp chunk data type 0 counter",		  // 17
		"sctp chunk asconf missing counter",		  // 18
	};
	std::string text;
	for (const char *r : rules)
		text += std::string(r) + "\n";
	REQUIRE(e.load(table_with(text)) == 0);
	const unsigned n = sizeof(rules) / sizeof(rules[0]);

	// DATA (length 19: padded to 20), then SACK: the walk steps over the
	// padding; the first chunk of a type is the one matched
	const ctf::Bytes ds = sctp4({data_chunk(0x01020304, 7, 9, 46), sack_chunk(6, 1500),
				     data_chunk(1, 1, 1, 1)});
	CHECK(matched(e, n, ds) == V{0, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 18});

	// INIT alone
	const ctf::Bytes in = sctp4({init_chunk(0xdeadbeef, 65536, 10, 11, 100)});
	CHECK(matched(e, n, in) == V{1, 2, 10, 11, 12, 13, 14, 18});

	// a HEARTBEAT before the DATA: found past it; over IPv6 alike
	const ctf::Bytes hb = sctp4({chunk(kHeartbeat, {1, 2, 3, 4, 5}), data_chunk(0x01020304, 7, 9, 46)});
	CHECK(matched(e, n, hb) == V{0, 4, 5, 6, 7, 8, 9, 17, 18});
	CHECK(matched(e, n, sctp6({chunk(kHeartbeat, {1, 2, 3, 4, 5}), data_chunk(0x01020304, 7, 9, 46)})) ==
	      V{0, 4, 5, 6, 7, 8, 9, 17, 18});
	CHECK(matched(e, n, sctp6({init_chunk(0xdeadbeef, 65536, 10, 11, 100)})) == V{1, 2, 10, 11, 12, 13, 14, 18});

	// an ASCONF (type 0xc1): no longer missing
	CHECK(matched(e, n, sctp4({chunk(kAsconf, be32(1))})) == V{1});
}

TEST_CASE("nft sctp chunk: where the walk ends, as nft_exthdr_sctp_eval's", "[nft][sctp]")
{
	Engine e;
	REQUIRE(e.load(table_with("sctp chunk data exists counter\n"
				  "sctp chunk data missing counter\n"
				  "sctp chunk data ppid 46 counter\n"
				  "sctp chunk data tsn 5 counter\n"
				  "sctp chunk init exists counter\n"
				  "sctp chunk data length 19 counter\n")) == 0);
	const unsigned n = 6;

	// a zero-length chunk before the DATA ends the walk: missing, no field
	Chunk zero = chunk(kHeartbeat, {1, 2, 3, 4});
	zero.length = 0;
	CHECK(matched(e, n, sctp4({zero, data_chunk(5, 1, 1, 46)})) == V{1});

	// a DATA whose length says less than its field's end: present, but
	// the field breaks (tsn at 4..8 fits a length of 8, ppid at 12..16 not)
	Chunk shortd = data_chunk(5, 1, 1, 46);
	shortd.length = 8;
	CHECK(matched(e, n, sctp4({shortd})) == V{0, 3});

	// a DATA whose length runs past the frame: present, every field breaks
	Chunk longd = data_chunk(5, 1, 1, 46);
	longd.length = 200;
	CHECK(matched(e, n, sctp4({longd})) == V{0});

	// a length that skips past the end: the INIT after it is never reached
	Chunk skip = chunk(kHeartbeat, {1, 2, 3, 4});
	skip.length = 400;
	CHECK(matched(e, n, sctp4({skip, init_chunk(1, 2, 3, 4, 5)})) == V{1});

	// a chunk header cut short by the frame's end: missing
	CHECK(matched(e, n, sctp4({chunk(kHeartbeat, {1, 2, 3, 4})}, {kData, 0})) == V{1});

	// a common header and nothing after it
	CHECK(matched(e, n, sctp4({})) == V{1});

	// the chunk's length is read as it stands, odd lengths padded: a DATA
	// of 19 bytes then an INIT 20 bytes in
	CHECK(matched(e, n, sctp4({data_chunk(5, 1, 1, 46), init_chunk(1, 2, 3, 4, 5)})) == V{0, 2, 3, 4, 5});
}

TEST_CASE("nft sctp chunk: frames that are no SCTP", "[nft][sctp]")
{
	Engine e;
	REQUIRE(e.load(table_with("sctp chunk data exists counter\n"
				  "sctp chunk data missing counter\n"
				  "sctp chunk data tsn 5 counter\n")) == 0);
	const unsigned n = 3;
	const std::vector<Chunk> d = {data_chunk(5, 1, 1, 46)};
	CHECK(matched(e, n, sctp4(d)) == V{0, 2});
	// the same bytes as UDP: missing, fields break
	CHECK(matched(e, n, sctp4(d, {}, 17)) == V{1});
	// ARP: missing
	ctf::Bytes arp = sctp4(d);
	arp[12] = 0x08;
	arp[13] = 0x06;
	CHECK(matched(e, n, arp) == V{1});
	// an IPv4 header that does not validate (total length past the frame)
	ctf::Bytes bad = sctp4(d);
	bad[14 + 2] = 0x40;
	CHECK(matched(e, n, bad) == V{1});
	// a later fragment of an SCTP packet: Linux 6.1 walks its bytes as
	// chunks (it checks the protocol, not the fragment offset)
	CHECK(matched(e, n, sctp4(d, {}, 132, 0x0010)) == V{0, 2});
}

TEST_CASE("nft sctp chunk: the family validates as nft_exthdr_init", "[nft][sctp]")
{
	// `sctp chunk data tsn` into register 1 unless a check says otherwise
	struct Attrs : RawExthdr {
		Attrs()
		{
			type = kData;
			dreg = true;
			offset = 4;
			len = 4;
			flags = 0;
			op = NFT_EXTHDR_OP_SCTP;
		}
	};
	Engine e;
	REQUIRE(e.load(table_with("")) == 0);
	auto add = [&](const Attrs &a) {
		return add_raw_rule(e, "t", "c",
				    [&](nftnl_rule *r) { nftnl_rule_add_expr(r, raw_exthdr(a)); });
	};
	Attrs a;
	a.sreg = true;	// a write: nf_tables has none for SCTP
	a.dreg = false;
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a.dreg = true;	// a source and a destination
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a = {};
	a.dreg = false;	// neither
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a = {};
	a.len = -1;
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.has_type = false;
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.offset = 256;
	CHECK(add(a) == -xb::kERANGE);
	a = {};
	a.flags = 2;	// unknown flag
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.flags = NFT_EXTHDR_F_PRESENT;	// a presence of 4 bytes
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.op = 4;	// DCCP: not supported by xbridge
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a = {};
	a.len = 0;	// nothing to store
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.len = 65;	// past the registers
	CHECK(add(a) == -xb::kERANGE);
	CHECK(e.chain("t", "c").rules.empty());

	CHECK(add(Attrs{}) == 0);
	a = {};
	a.flags = NFT_EXTHDR_F_PRESENT;
	a.len = 1;
	a.offset = 0;
	CHECK(add(a) == 0);
	a = {};
	a.flags = -1;	// no flags attribute: a field
	a.offset = 255;
	CHECK(add(a) == 0);
	CHECK(e.chain("t", "c").rules.size() == 3);
}

TEST_CASE("nft sctp chunk: a field set is refused (nf_tables writes no chunk)", "[nft][sctp]")
{
	Engine e;
	REQUIRE(e.load(table_with("")) == 0);
	std::string msg;
	CHECK(e.load("add rule bridge t c sctp chunk data tsn set 1\n", &msg) == -xb::kEOPNOTSUPP);
	CHECK(e.chain("t", "c").rules.empty());
}
