// test_nft_ipv4_options.cc - IPv4 options in the core's engine (`ip option
// rr exists`, `ip option lsrr addr 1.2.3.4`, ...): the exthdr expression
// of op ipv4 read as nft_exthdr_ipv4_eval reads it, the options checked
// whole as __ip_options_compile checks them without a packet (a malformed
// set: no option there), record route, loose and strict source routes and
// a router alert found, and validated as nft_exthdr_ipv4_init and
// nft_exthdr_select_ops validate it. The expected values are Linux 6.1's,
// read off net/netfilter/nft_exthdr.c and net/ipv4/ip_options.c.
//
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include "engine_fixture.h"
#include "engine_load.h"

#include <cstring>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

using namespace xb::nft;
using namespace xnft::test;

namespace {

constexpr uint8_t kEnd = 0, kNop = 1, kRr = 7, kLsrr = 0x83, kSsrr = 0x89, kRa = 0x94,
		  kTs = 0x44, kCipso = 0x86;

constexpr uint32_t kBroke = 0xdead;	// the mark when the exthdr broke the rule

// A UDP packet from 10.0.0.1 to 10.0.0.2 whose IPv4 header carries
// @opts (a multiple of 4 bytes), its IHL, length and checksum to match.
ctf::Bytes v4_with(const ctf::Bytes &opts, uint16_t frag = 0)
{
	REQUIRE(opts.size() % 4 == 0);
	ctf::Bytes p = ctf::udp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), 1234, 5678, 8);
	p.insert(p.begin() + 20, opts.begin(), opts.end());
	p[0] = uint8_t(0x40 | (20 + opts.size()) / 4);
	ctf::put16(p, 2, uint16_t(p.size()));
	ctf::put16(p, 6, frag);
	ctf::put16(p, 10, 0);
	ctf::put16(p, 10, ctf::fold(ctf::sum16(p.data(), 20 + opts.size())));
	return p;
}

ctf::Bytes framed(const ctf::Bytes &opts)
{
	return ctf::frame(v4_with(opts));
}

// `ip option rr exists` into register 1 unless a test says otherwise.
struct Exthdr : RawExthdr {
	Exthdr()
	{
		type = kRr;
		dreg = true;
		offset = 0;
		len = 1;
		flags = NFT_EXTHDR_F_PRESENT;
		op = NFT_EXTHDR_OP_IPV4;
	}
};

nftnl_expr *mark_from_reg1()
{
	nftnl_expr *x = nftnl_expr_alloc("meta");
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_KEY, NFT_META_MARK);
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_SREG, NFT_REG_1);
	return x;
}

// `exthdr -> reg 1; meta mark set reg 1` on @f: the mark it leaves with,
// kBroke when the exthdr broke the rule.
uint32_t read_into_mark(const Exthdr &a, Frame &f)
{
	Engine e;
	REQUIRE(e.load("table bridge t { chain c { type filter hook forward priority 0; }; }\n") ==
		0);
	REQUIRE(add_raw_rule(e, "t", "c", [&](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_exthdr(a));
		nftnl_rule_add_expr(r, mark_from_reg1());
	}) == 0);
	f.pkt.mark = kBroke;
	e.run(kHookForward, f.pkt);
	return f.pkt.mark;
}

uint32_t read_into_mark(const Exthdr &a, const ctf::Bytes &frame)
{
	Frame f(frame);
	return read_into_mark(a, f);
}

// The presence test for @type (1/0, or kBroke).
uint32_t present(uint8_t type, const ctf::Bytes &frame)
{
	Exthdr a;
	a.type = type;
	return read_into_mark(a, frame);
}

// @len bytes at @offset into the option @type, as the register holds them
// (a host-order word of the first four, zero-padded), or kBroke.
uint32_t field(uint8_t type, uint32_t offset, uint32_t len, const ctf::Bytes &frame)
{
	Exthdr a;
	a.type = type;
	a.offset = offset;
	a.len = len;
	a.flags = -1;
	return read_into_mark(a, frame);
}

// The register word nft_skb_copy_to_reg leaves for @bytes (1..4 of them).
uint32_t word(const ctf::Bytes &bytes)
{
	uint8_t w[4] = {};
	std::memcpy(w, bytes.data(), bytes.size());
	uint32_t v;
	std::memcpy(&v, w, 4);
	return v;
}

// A record route of 11 bytes, one address recorded (its pointer at the
// second, 8), padded with an END.
const ctf::Bytes kRrOpts = {kRr, 11, 8, 192, 0, 2, 1, 0, 0, 0, 0, kEnd};

} // namespace

TEST_CASE("nft ip option: record route, source routes and router alert are found and read",
	  "[nft][ipopt]")
{
	const ctf::Bytes rr = framed(kRrOpts);
	CHECK(present(kRr, rr) == 1);
	CHECK(present(kLsrr, rr) == 0);
	CHECK(present(kSsrr, rr) == 0);
	CHECK(present(kRa, rr) == 0);
	CHECK(field(kRr, 0, 1, rr) == kRr);		// ip option rr type
	CHECK(field(kRr, 1, 1, rr) == 11);		// ... length
	CHECK(field(kRr, 2, 1, rr) == 8);		// ... ptr
	CHECK(field(kRr, 3, 4, rr) == word({192, 0, 2, 1}));	// ... addr
	CHECK(field(kRr, 0, 3, rr) == word({kRr, 11, 8}));	// the last byte zeroed
	// a missing option's bytes break the rule
	CHECK(field(kLsrr, 3, 4, rr) == kBroke);

	// loose and strict source routes are told apart
	const ctf::Bytes lsrr = framed({kLsrr, 7, 4, 198, 51, 100, 7, kEnd});
	CHECK(present(kLsrr, lsrr) == 1);
	CHECK(present(kSsrr, lsrr) == 0);
	CHECK(field(kLsrr, 3, 4, lsrr) == word({198, 51, 100, 7}));
	CHECK(field(kSsrr, 3, 4, lsrr) == kBroke);
	const ctf::Bytes ssrr = framed({kSsrr, 11, 4, 1, 2, 3, 4, 5, 6, 7, 8, kNop});
	CHECK(present(kSsrr, ssrr) == 1);
	CHECK(present(kLsrr, ssrr) == 0);
	CHECK(field(kSsrr, 1, 1, ssrr) == 11);
	CHECK(field(kSsrr, 7, 4, ssrr) == word({5, 6, 7, 8}));	// the second address

	// a router alert whose value is 0 is there; another value is valid
	// but not "there"
	const ctf::Bytes ra = framed({kRa, 4, 0, 0});
	CHECK(present(kRa, ra) == 1);
	CHECK(field(kRa, 2, 2, ra) == 0);	// ip option ra value
	CHECK(field(kRa, 1, 1, ra) == 4);
	const ctf::Bytes ra1 = framed({kRa, 4, 0, 1, kRr, 7, 4, 0, 0, 0, 0, kEnd});
	CHECK(present(kRa, ra1) == 0);
	CHECK(present(kRr, ra1) == 1);
	CHECK(field(kRr, 0, 1, ra1) == kRr);	// found after the alert
	CHECK(field(kRa, 2, 2, ra1) == kBroke);

	// all four in one header
	const ctf::Bytes all = framed({kRa, 4, 0, 0, kLsrr, 7, 4, 1, 1, 1, 1, kRr, 7, 4, 0, 0,
				       0, 0, kNop, kNop});
	CHECK(present(kRa, all) == 1);
	CHECK(present(kLsrr, all) == 1);
	CHECK(present(kRr, all) == 1);
	CHECK(present(kSsrr, all) == 0);
	CHECK(field(kRr, 1, 1, all) == 7);
}

TEST_CASE("nft ip option: NOP and END padding, and what follows an END", "[nft][ipopt]")
{
	// NOPs before the option: it is found where it starts
	const ctf::Bytes nops = framed({kNop, kNop, kRr, 7, 4, 0, 0, 0, 0, kEnd, kEnd, kEnd});
	CHECK(present(kRr, nops) == 1);
	CHECK(field(kRr, 0, 2, nops) == word({kRr, 7}));
	// an END ends the options: an option after it is not there, and
	// garbage after it is not looked at
	const ctf::Bytes after_end = framed({kEnd, kRr, 7, 4, 0, 0, 0, 0});
	CHECK(present(kRr, after_end) == 0);
	const ctf::Bytes garbage = framed({kRr, 7, 4, 0, 0, 0, 0, kEnd, kTs, 1, 0xff, 0xff});
	CHECK(present(kRr, garbage) == 1);
	// ... which, without the END, makes the whole set malformed
	const ctf::Bytes no_end = framed({kRr, 7, 4, 0, 0, 0, 0, kNop, kTs, 1, 0xff, 0xff});
	CHECK(present(kRr, no_end) == 0);
	CHECK(field(kRr, 2, 1, no_end) == kBroke);
	// only padding
	CHECK(present(kRr, framed({kNop, kNop, kNop, kEnd})) == 0);
}

TEST_CASE("nft ip option: a malformed set of options has no option in it", "[nft][ipopt]")
{
	// Each makes the check refuse the whole set: the record route behind
	// (or in) it is not there, and its bytes break the rule.
	const ctf::Bytes rr7 = {kRr, 7, 4, 0, 0, 0, 0};
	auto with_rr = [&](ctf::Bytes before) {
		before.insert(before.end(), rr7.begin(), rr7.end());
		while (before.size() % 4)
			before.push_back(kEnd);
		return framed(before);
	};
	const std::pair<const char *, ctf::Bytes> bad[] = {
		{"an option running past the header", framed({kNop, kRr, 7, 4})},
		{"a length byte past the header", framed({kNop, kNop, kNop, kRr})},
		{"a length below 2", with_rr({kRa, 1, 0, 0})},
		{"a length of 0", framed({kRr, 0, 4, 0})},
		{"record route pointer below 4", framed({kRr, 7, 3, 0, 0, 0, 0, kEnd})},
		{"record route of 2 bytes", framed({kRr, 2, kEnd, kEnd})},
		{"record route, no room at its pointer", framed({kRr, 9, 8, 0, 0, 0, 0, 0, 0, kEnd,
								  kEnd, kEnd})},
		{"two record routes", with_rr(rr7)},
		{"loose source route pointer not 4", with_rr({kLsrr, 7, 8, 1, 1, 1, 1})},
		{"loose source route, no address", with_rr({kLsrr, 3, 4})},
		{"loose source route, a part address", with_rr({kLsrr, 9, 4, 1, 1, 1, 1, 2, 2})},
		{"strict source route pointer below 4", with_rr({kSsrr, 7, 3, 1, 1, 1, 1})},
		{"two source routes", with_rr({kLsrr, 7, 4, 1, 1, 1, 1, kSsrr, 7, 4, 2, 2, 2, 2})},
		{"router alert of 3 bytes", with_rr({kRa, 3, 0})},
		{"timestamp pointer below 5", with_rr({kTs, 8, 4, 0, 0, 0, 0, 0})},
		{"timestamp of 3 bytes", with_rr({kTs, 3, 5})},
		{"timestamp, no room at its pointer", with_rr({kTs, 6, 5, 0, 0, 0})},
		{"timestamp and address, no room", with_rr({kTs, 8, 5, 1, 0, 0, 0, 0})},
		{"full timestamp, overflow at 15", with_rr({kTs, 4, 5, 0xf0})},
		{"two timestamps", with_rr({kTs, 4, 5, 0, kTs, 4, 5, 0})},
		{"a CIPSO option", with_rr({kCipso, 8, 0, 0, 0, 1, 0, 0})},
	};
	for (const auto &[what, frame] : bad) {
		INFO(what);
		CHECK(present(kRr, frame) == 0);
		CHECK(field(kRr, 0, 1, frame) == kBroke);
	}

	// and these pass the check: the record route is there
	const std::pair<const char *, ctf::Bytes> good[] = {
		{"a full record route", framed({kRr, 7, 8, 1, 2, 3, 4, kEnd})},
		{"a timestamp with room", with_rr({kTs, 8, 5, 0, 0, 0, 0, 0})},
		{"a full timestamp, overflow below 15", with_rr({kTs, 4, 5, 0xe0})},
		{"a full prespecified timestamp at 15", with_rr({kTs, 4, 5, 0xf3})},
		{"a timestamp of an unknown flag", with_rr({kTs, 8, 5, 0x02, 0, 0, 0, 0})},
		{"an unknown option", with_rr({0x9e, 4, 0, 0})},
		{"a security option", with_rr({0x82, 4, 0, 0})},
		{"a router alert of 6 bytes", with_rr({kRa, 6, 0, 0, 9, 9})},
	};
	for (const auto &[what, frame] : good) {
		INFO(what);
		CHECK(present(kRr, frame) == 1);
	}
}

TEST_CASE("nft ip option: which frames are IPv4, and the header's bounds", "[nft][ipopt]")
{
	// no options (IHL 5), and an IHL below 5: no option, bytes break
	const ctf::Bytes plain = framed({});
	CHECK(present(kRr, plain) == 0);
	CHECK(field(kRr, 0, 1, plain) == kBroke);
	ctf::Bytes ihl4 = plain;
	ihl4[14] = 0x44;
	CHECK(present(kRr, ihl4) == 0);

	// the header is not checked beyond its IHL: another version, a total
	// length that disagrees, a later fragment - the option is there
	ctf::Bytes v6ver = framed(kRrOpts);
	v6ver[14] = 0x68;
	CHECK(present(kRr, v6ver) == 1);
	ctf::Bytes badlen = framed(kRrOpts);
	badlen[14 + 3] = 200;
	CHECK(present(kRr, badlen) == 1);
	const ctf::Bytes frag = ctf::frame(v4_with(kRrOpts, 0x2000 | 100));
	CHECK(present(kRr, frag) == 1);
	CHECK(field(kRr, 2, 1, frag) == 8);

	// options cut short by the frame's end: malformed
	ctf::Bytes cut = framed(kRrOpts);
	cut.resize(14 + 20 + 6);
	CHECK(present(kRr, cut) == 0);
	// less than an IPv4 header: malformed too
	ctf::Bytes short_header = framed(kRrOpts);
	short_header.resize(14 + 12);
	CHECK(present(kRr, short_header) == 0);

	// bytes past the header are read from the packet (skb_copy_bits reads
	// up to the frame's end): the router alert's next four bytes are the
	// UDP ports; past the frame's end, the rule breaks
	const ctf::Bytes ra = framed({kRa, 4, 0, 0});
	CHECK(field(kRa, 4, 4, ra) == word({0x04, 0xd2, 0x16, 0x2e}));
	CHECK(field(kRa, 255, 1, ra) == kBroke);
	CHECK(field(kRa, 8, 8, ra) == word(ctf::Bytes(ra.begin() + 14 + 28, ra.begin() + 14 + 32)));

	// not IPv4 at all: even a presence test breaks
	ctf::Tcp t;
	t.sport = 1;
	t.dport = 2;
	const ctf::Bytes v6 = ctf::frame(ctf::tcp_packet(ctf::v6(1), ctf::v6(2), t));
	CHECK(present(kRr, v6) == kBroke);
	ctf::Bytes arp = framed(kRrOpts);
	arp[12] = 0x08;
	arp[13] = 0x06;
	CHECK(present(kRr, arp) == kBroke);
	CHECK(field(kRr, 2, 1, arp) == kBroke);
}

TEST_CASE("nft ip option: a VLAN-tagged frame is read after its tag", "[nft][ipopt]")
{
	// the outer tag held out of band (skb->protocol: the inner type)
	ctf::Eth one;
	one.tags = 1;
	Frame tagged(ctf::frame(v4_with(kRrOpts), one), &port_a, &port_b, 10);
	CHECK(read_into_mark(Exthdr{}, tagged) == 1);
	Frame tagged2(ctf::frame(v4_with(kRrOpts), one), &port_a, &port_b, 10);
	Exthdr ptr;
	ptr.offset = 2;
	ptr.flags = -1;
	CHECK(read_into_mark(ptr, tagged2) == 8);

	// two tags: the inner one is in the frame, skb->protocol is 802.1Q
	ctf::Eth two;
	two.tags = 2;
	Frame qinq(ctf::frame(v4_with(kRrOpts), two), &port_a, &port_b, 10);
	CHECK(read_into_mark(Exthdr{}, qinq) == kBroke);
}

TEST_CASE("nft ip option: rules as nft writes them", "[nft][ipopt]")
{
	// nft's rules: the ether type ip dependency, then the exthdr and a cmp.
	Engine e;
	REQUIRE(e.load("table bridge t { chain c { type filter hook forward priority 0;\n"
		       "  ip option rr exists counter\n"
		       "  ip option rr missing counter\n"
		       "  ip option rr ptr 8 counter\n"
		       "  ip option lsrr addr 3325256711 counter\n"
		       "  ip option ssrr exists counter\n"
		       "  ip option ra value 0 counter\n"
		       "}; }\n") == 0);
	const ctf::Bytes frames[] = {
		framed(kRrOpts),
		framed({kLsrr, 7, 4, 198, 51, 100, 7, kEnd}),
		framed({kRa, 4, 0, 0}),
		framed({}),
		framed({kRr, 7, 3, 0, 0, 0, 0, kEnd}),	// malformed
	};
	for (const auto &b : frames) {
		Frame f(b);
		CHECK(e.run(kHookForward, f.pkt) == kNfAccept);
	}
	CHECK(e.packets("t", "c", 0) == 1);	// rr exists
	CHECK(e.packets("t", "c", 1) == 4);	// rr missing
	CHECK(e.packets("t", "c", 2) == 1);	// rr ptr 8
	CHECK(e.packets("t", "c", 3) == 1);	// lsrr addr
	CHECK(e.packets("t", "c", 4) == 0);	// ssrr
	CHECK(e.packets("t", "c", 5) == 1);	// ra value 0
}

TEST_CASE("nft ip option: validated as nft_exthdr_ipv4_init", "[nft][ipopt]")
{
	Engine e;
	REQUIRE(e.load("table bridge t { chain c { type filter hook forward priority 0; }; }\n") ==
		0);
	auto add = [&](const Exthdr &a) {
		return add_raw_rule(e, "t", "c", [&](nftnl_rule *r) { nftnl_rule_add_expr(r, raw_exthdr(a)); });
	};
	// the four types nf_tables can find, as a presence test and a load
	for (uint8_t type : {kRr, kLsrr, kSsrr, kRa}) {
		Exthdr a;
		a.type = type;
		CHECK(add(a) == 0);
		a.flags = -1;
		a.offset = 3;
		a.len = 4;
		CHECK(add(a) == 0);
	}
	CHECK(e.chain("t", "c").rules.size() == 8);

	Exthdr a;
	// other types: not supported (checked after everything else)
	for (uint8_t type : {kTs, kCipso, kEnd, kNop, uint8_t(0x82), uint8_t(0x88), uint8_t(0xff)}) {
		a = {};
		a.type = type;
		CHECK(add(a) == -xb::kEOPNOTSUPP);
	}
	// the presence test is one byte long
	a = {};
	a.len = 4;
	CHECK(add(a) == -xb::kEINVAL);
	a.type = kTs;	// ... before the type is looked at
	CHECK(add(a) == -xb::kEINVAL);
	// unknown flags
	a = {};
	a.flags = 2;
	CHECK(add(a) == -xb::kEINVAL);
	// ranges of offset and length
	a = {};
	a.flags = -1;
	a.offset = 256;
	CHECK(add(a) == -xb::kERANGE);
	a = {};
	a.flags = -1;
	a.len = 256;
	CHECK(add(a) == -xb::kERANGE);
	a.type = kTs;
	CHECK(add(a) == -xb::kERANGE);
	// zero length: the register store refuses it
	a = {};
	a.flags = -1;
	a.len = 0;
	a.type = kTs;
	CHECK(add(a) == -xb::kEINVAL);
	// a load past the last register
	a = {};
	a.flags = -1;
	a.len = 8;
	a.dreg_num = NFT_REG32_15;
	a.type = kTs;
	CHECK(add(a) == -xb::kERANGE);
	// a missing attribute
	a = {};
	a.offset = -1;
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.len = -1;
	CHECK(add(a) == -xb::kEINVAL);
	// no destination, or a source: no such operation
	a = {};
	a.dreg = false;
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a.sreg = true;
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a.dreg = true;
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	CHECK(e.chain("t", "c").rules.size() == 8);

	// the presence test's length holds for every op (nft_exthdr_init)
	a = {};
	a.op = NFT_EXTHDR_OP_TCPOPT;
	a.type = 2;
	a.len = 2;
	CHECK(add(a) == -xb::kEINVAL);
	a.op = NFT_EXTHDR_OP_IPV6;
	a.type = 44;
	CHECK(add(a) == -xb::kEINVAL);
	a.len = 1;
	CHECK(add(a) == 0);
}
