// test_nft_tcpopt_write.cc - TCP option statements in the core's engine
// (core/nft_payload_write.h eval_tcpopt_write): `tcp option maxseg size
// set 1360` (MSS clamping: an MSS only lowered), a 4-byte write, `reset tcp
// option sack-perm` (the option overwritten with NOPs), TCP's checksum kept
// right or left to the device, the breaks and the drop where Linux's
// nft_exthdr_tcp_set_eval and nft_exthdr_tcp_strip_eval have them, and the
// family's validation as nft_exthdr_tcp_set_init and _strip_init. The
// rules are built as nft sends them (libnftnl expressions).
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

constexpr const char *kTable =
	"table bridge t { chain pre { type filter hook prerouting priority 0; policy accept; }; }\n";

constexpr uint8_t kMss = 2, kSackPerm = 4, kTimestamp = 8;

struct OptWrite {
	uint8_t type;
	uint32_t offset, len;
};

// A rule: the value into register 1, the option write, a counter (which
// counts only if the write did not break).
int add_opt_write(Engine &e, const std::vector<uint8_t> &value, const OptWrite &w)
{
	return add_raw_rule(e, "t", "pre", [&](nftnl_rule *r) {
		nftnl_expr *v = nftnl_expr_alloc("immediate");
		nftnl_expr_set_u32(v, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
		nftnl_expr_set(v, NFTNL_EXPR_IMM_DATA, value.data(), uint32_t(value.size()));
		nftnl_rule_add_expr(r, v);
		nftnl_expr *x = nftnl_expr_alloc("exthdr");
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_SREG, NFT_REG_1);
		nftnl_expr_set_u8(x, NFTNL_EXPR_EXTHDR_TYPE, w.type);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OFFSET, w.offset);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_LEN, w.len);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OP, NFT_EXTHDR_OP_TCPOPT);
		nftnl_rule_add_expr(r, x);
		nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
	});
}

// `reset tcp option TYPE`, then a counter.
int add_opt_reset(Engine &e, uint8_t type)
{
	return add_raw_rule(e, "t", "pre", [&](nftnl_rule *r) {
		nftnl_expr *x = nftnl_expr_alloc("exthdr");
		nftnl_expr_set_u8(x, NFTNL_EXPR_EXTHDR_TYPE, type);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OP, NFT_EXTHDR_OP_TCPOPT);
		nftnl_rule_add_expr(r, x);
		nftnl_rule_add_expr(r, nftnl_expr_alloc("counter"));
	});
}

struct WritableFrame : Frame {
	explicit WritableFrame(ctf::Bytes b) : Frame(std::move(b))
	{
		pkt.wframe = bytes.data();
	}
};

// A SYN with the option bytes @options (a multiple of 4) and some payload.
ctf::Bytes syn(const ctf::Bytes &options)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = 443;
	t.seq = 1000;
	t.flags = ctf::SYN;
	t.win = 64240;
	t.options = options;
	t.payload = 9;	// odd: the sum's last byte stands alone
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t));
}

constexpr size_t kOpts = 14 + 20 + 20;	// the first option byte

// TCP's checksum is what a fresh computation gives.
bool tcp_csum_ok(const ctf::Bytes &f)
{
	ctf::Bytes ip(f.begin() + 14, f.end());
	ctf::Bytes again = ip;
	ctf::l4_checksum(again, 16, true);
	return again == ip;
}

} // namespace

TEST_CASE("nft tcp option write: an MSS is clamped, never raised", "[nft][tcpopt]")
{
	Engine e;
	REQUIRE(e.load(kTable) == 0);
	REQUIRE(add_opt_write(e, {0x05, 0x50}, {kMss, 2, 2}) == 0);	// 1360

	WritableFrame f(syn({kMss, 4, 0x05, 0xb4, 1, 1, kSackPerm, 2}));	// 1460
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes[kOpts + 2] == 0x05);
	CHECK(f.bytes[kOpts + 3] == 0x50);
	CHECK(tcp_csum_ok(f.bytes));
	CHECK(f.pkt.written);

	// 1200 stays: a larger MSS would stall the connection
	const ctf::Bytes small = syn({kMss, 4, 0x04, 0xb0, 1, 1, kSackPerm, 2});
	WritableFrame g(small);
	CHECK(e.run(kHookPrerouting, g.pkt) == kNfAccept);
	CHECK(g.bytes == small);
	CHECK_FALSE(g.pkt.written);

	// no MSS option: nothing written, the rule goes on
	const ctf::Bytes none = syn({1, 1, kSackPerm, 2});
	WritableFrame h(none);
	CHECK(e.run(kHookPrerouting, h.pkt) == kNfAccept);
	CHECK(h.bytes == none);
	CHECK(e.packets("t", "pre", 0) == 3);
}

TEST_CASE("nft tcp option write: four bytes, and a checksum the device finishes",
	  "[nft][tcpopt]")
{
	Engine e;
	REQUIRE(e.load(kTable) == 0);
	REQUIRE(add_opt_write(e, {0, 0, 0, 5}, {kTimestamp, 2, 4}) == 0);	// tsval 5
	const ctf::Bytes opts = {1, 1, kTimestamp, 10, 0, 1, 2, 3, 9, 9, 9, 9};
	WritableFrame f(syn(opts));
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes[kOpts + 4] == 0);
	CHECK(f.bytes[kOpts + 7] == 5);
	CHECK(f.bytes[kOpts + 8] == 9);	// tsecr untouched
	CHECK(tcp_csum_ok(f.bytes));

	// CHECKSUM_PARTIAL: the field is the device's to finish, untouched
	const ctf::Bytes orig = syn(opts);
	WritableFrame g(orig);
	g.pkt.csum_partial = true;
	CHECK(e.run(kHookPrerouting, g.pkt) == kNfAccept);
	CHECK(g.bytes[kOpts + 7] == 5);
	CHECK(g.bytes[14 + 20 + 16] == orig[14 + 20 + 16]);
	CHECK(g.bytes[14 + 20 + 17] == orig[14 + 20 + 17]);
}

TEST_CASE("nft tcp option reset: the option becomes NOPs, at any alignment",
	  "[nft][tcpopt]")
{
	Engine e;
	REQUIRE(e.load(kTable) == 0);
	REQUIRE(add_opt_reset(e, kSackPerm) == 0);
	// SACK-permitted at an odd offset (after one NOP), then at an even one
	const std::pair<ctf::Bytes, ctf::Bytes> cases[] = {
		{{1, kSackPerm, 2, 1, kMss, 4, 0x05, 0xb4}, {1, 1, 1, 1, kMss, 4, 0x05, 0xb4}},
		{{kMss, 4, 0x05, 0xb4, kSackPerm, 2, 1, 1}, {kMss, 4, 0x05, 0xb4, 1, 1, 1, 1}},
	};
	for (const auto &[opts, want] : cases) {
		WritableFrame f(syn(opts));
		CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
		CHECK(ctf::Bytes(f.bytes.begin() + kOpts, f.bytes.begin() + kOpts + 8) == want);
		CHECK(tcp_csum_ok(f.bytes));
	}
	CHECK(e.packets("t", "pre", 0) == 2);
}

TEST_CASE("nft tcp option write: breaks and drops where Linux does", "[nft][tcpopt]")
{
	Engine e;
	REQUIRE(e.load(kTable) == 0);
	REQUIRE(add_opt_write(e, {0x05, 0x50}, {kMss, 2, 2}) == 0);
	Engine r;
	REQUIRE(r.load(kTable) == 0);
	REQUIRE(add_opt_reset(r, kMss) == 0);
	const ctf::Bytes ok = syn({kMss, 4, 0x05, 0xb4});

	// not writable (skb_ensure_writable failed): a write breaks, a reset drops
	Frame ro(ok);
	CHECK(e.run(kHookPrerouting, ro.pkt) == kNfAccept);
	CHECK(ro.bytes == ok);
	Frame ro2(ok);
	CHECK(r.run(kHookPrerouting, ro2.pkt) == kNfDrop);

	// an option whose length runs past the header: a write breaks, a
	// reset cannot remove it and drops
	const ctf::Bytes runs = syn({1, 1, kMss, 8});
	WritableFrame w(runs);
	CHECK(e.run(kHookPrerouting, w.pkt) == kNfAccept);
	CHECK(w.bytes == runs);
	WritableFrame w2(runs);
	CHECK(r.run(kHookPrerouting, w2.pkt) == kNfDrop);

	// not TCP at all: both break
	ctf::Bytes udp = ok;
	udp[14 + 9] = 17;
	WritableFrame u(udp), u2(udp);
	CHECK(e.run(kHookPrerouting, u.pkt) == kNfAccept);
	CHECK(r.run(kHookPrerouting, u2.pkt) == kNfAccept);
	CHECK(u2.bytes == udp);
	CHECK(e.packets("t", "pre", 0) == 0);
	CHECK(r.packets("t", "pre", 0) == 0);
}

TEST_CASE("nft tcp option write: the family validates as nft_exthdr_tcp_*_init",
	  "[nft][tcpopt]")
{
	// Which attributes the exthdr carries (-1: left out).
	struct Attrs : RawExthdr {
		Attrs()
		{
			type = kMss;
			sreg = true;
			dreg_num = NFT_REG_2;
			offset = 2;
			len = 2;
			op = NFT_EXTHDR_OP_TCPOPT;
		}
	};
	Engine e;
	REQUIRE(e.load(kTable) == 0);
	auto add = [&](const Attrs &a) {
		return add_raw_rule(e, "t", "pre", [&](nftnl_rule *r) {
			nftnl_expr *v = nftnl_expr_alloc("immediate");
			const uint8_t value[4] = {0, 0, 5, 80};
			nftnl_expr_set_u32(v, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
			nftnl_expr_set(v, NFTNL_EXPR_IMM_DATA, value, 4);
			nftnl_rule_add_expr(r, v);
			nftnl_rule_add_expr(r, raw_exthdr(a));
		});
	};
	Attrs a;
	a.offset = 1;	// inside the kind and length
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a = {};
	a.len = 3;	// neither 2 nor 4 bytes
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a.len = 256;
	CHECK(add(a) == -xb::kERANGE);
	a = {};
	a.flags = 0;	// flags with a source
	CHECK(add(a) == -xb::kEINVAL);
	a = {};
	a.dreg = true;	// a source and a destination
	CHECK(add(a) == -xb::kEOPNOTSUPP);
	a = {};
	a.len = -1;
	CHECK(add(a) == -xb::kEINVAL);
	// a reset takes the type alone
	a = {};
	a.sreg = false;
	CHECK(add(a) == -xb::kEINVAL);
	a.offset = a.len = -1;
	a.has_type = false;
	CHECK(add(a) == -xb::kEINVAL);
	CHECK(e.chain("t", "pre").rules.empty());

	CHECK(add(Attrs{}) == 0);
	a = {};
	a.len = 4;
	CHECK(add(a) == 0);
	a = {};
	a.sreg = false;
	a.offset = a.len = -1;
	CHECK(add(a) == 0);
	CHECK(e.chain("t", "pre").rules.size() == 3);
}
