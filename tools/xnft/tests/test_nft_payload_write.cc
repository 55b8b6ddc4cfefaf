// test_nft_payload_write.cc - payload statements in the core's engine
// (core/nft_payload_write.h): the bytes written, the checksums kept right
// as nft_payload_set_eval keeps them (the IPv4 header's, TCP's and UDP's
// through the pseudo-header, SCTP's CRC32c, a device-finished checksum
// left alone), the out-of-band VLAN tag, the breaks, the family's
// validation and dump, and the commit's refusal outside prerouting. The
// rules are built as nft sends them (libnftnl expressions), so these tests
// do not depend on xnft's grammar.
//
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include <arpa/inet.h>

#include "../../../core/ct_proto_sctp.h"
#include "engine_fixture.h"
#include "engine_load.h"
#include "nft_payload_write.h"
#include "ruleset_bridge.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

using namespace xb::nft;
using namespace xnft::test;

namespace {

struct Write {
	uint32_t base, offset, len;
	uint32_t csum_type = 0, csum_offset = 0, csum_flags = 0;
};

nftnl_expr *raw_payload_write(const Write &w, uint32_t sreg = NFT_REG_1)
{
	nftnl_expr *x = nftnl_expr_alloc("payload");
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_SREG, sreg);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, w.base);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, w.offset);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, w.len);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_CSUM_TYPE, w.csum_type);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_CSUM_OFFSET, w.csum_offset);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_FLAGS, w.csum_flags);
	return x;
}

nftnl_expr *raw_value(const std::vector<uint8_t> &bytes, uint32_t dreg = NFT_REG_1)
{
	nftnl_expr *x = nftnl_expr_alloc("immediate");
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, dreg);
	nftnl_expr_set(x, NFTNL_EXPR_IMM_DATA, bytes.data(), uint32_t(bytes.size()));
	return x;
}

nftnl_expr *raw_counter()
{
	return nftnl_expr_alloc("counter");
}

constexpr const char *kPrerouting =
	"table bridge t { chain pre { type filter hook prerouting priority 0; policy accept; }; "
	"chain fw { type filter hook forward priority 0; policy accept; }; "
	"chain sub { }; }\n";

// A rule of chain @chain of table t: the value, the write, a counter (which
// counts only if the write did not break).
int add_write(Ruleset &rs, const char *chain, const std::vector<uint8_t> &value, const Write &w)
{
	return add_raw_rule(rs, "t", chain, [&](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_value(value));
		nftnl_rule_add_expr(r, raw_payload_write(w));
		nftnl_rule_add_expr(r, raw_counter());
	});
}

// A frame whose bytes the engine may write.
struct WritableFrame : Frame {
	explicit WritableFrame(ctf::Bytes b, uint16_t vlan = 0)
		: Frame(std::move(b), &port_a, &port_b, vlan)
	{
		pkt.wframe = bytes.data();
	}
};

bool ipv4_header_ok(const ctf::Bytes &f, size_t nh = 14)
{
	return ctf::fold(ctf::sum16(&f[nh], 20)) == 0;
}

// The transport checksum at @csum_off of the IP packet after @nh is what
// a fresh computation gives.
bool l4_ok(const ctf::Bytes &f, size_t csum_off, size_t nh = 14)
{
	ctf::Bytes ip(f.begin() + long(nh), f.end());
	ctf::Bytes again = ip;
	ctf::l4_checksum(again, csum_off, true);
	return again == ip;
}

ctf::Bytes tcp_frame(uint16_t dport = 22)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = dport;
	t.seq = 1000;
	t.flags = ctf::ACK;
	t.win = 512;
	t.payload = 33;	// odd: the sum's last byte stands alone
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t));
}

} // namespace

TEST_CASE("nft payload write: ip dscp set keeps the IPv4 header checksum", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	// nft's `ip dscp set cs1`: load 2 bytes at nh+0, keep version/ihl and
	// ECN, xor in DSCP 8, write back with the header checksum at 10.
	REQUIRE(add_raw_rule(e, "t", "pre", [](nftnl_rule *r) {
		nftnl_expr *load = nftnl_expr_alloc("payload");
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_OFFSET, 0);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_LEN, 2);
		nftnl_rule_add_expr(r, load);
		nftnl_expr *b = nftnl_expr_alloc("bitwise");
		const uint8_t mask[2] = {0xff, 0x03}, x[2] = {0x00, 0x20};
		nftnl_expr_set_u32(b, NFTNL_EXPR_BITWISE_SREG, NFT_REG_1);
		nftnl_expr_set_u32(b, NFTNL_EXPR_BITWISE_DREG, NFT_REG_1);
		nftnl_expr_set_u32(b, NFTNL_EXPR_BITWISE_LEN, 2);
		nftnl_expr_set(b, NFTNL_EXPR_BITWISE_MASK, mask, 2);
		nftnl_expr_set(b, NFTNL_EXPR_BITWISE_XOR, x, 2);
		nftnl_rule_add_expr(r, b);
		nftnl_rule_add_expr(r, raw_payload_write({NFT_PAYLOAD_NETWORK_HEADER, 0, 2, 1, 10, 0}));
		nftnl_rule_add_expr(r, raw_counter());
	}) == 0);
	WritableFrame f(tcp_frame());
	REQUIRE(ipv4_header_ok(f.bytes));
	const ctf::Bytes before = f.bytes;
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes[14] == 0x45);
	CHECK(f.bytes[15] == 0x20);	// DSCP cs1 (8 << 2)
	CHECK(ipv4_header_ok(f.bytes));
	CHECK(l4_ok(f.bytes, 16));
	CHECK(f.pkt.written);
	// nothing else changed but the TOS byte and the header checksum
	for (size_t i = 0; i < f.bytes.size(); i++)
		if (i != 15 && i != 24 && i != 25)
			CHECK(f.bytes[i] == before[i]);
	CHECK(e.packets("t", "pre", 0) == 1);
}

TEST_CASE("nft payload write: an address through the pseudo-header fixes TCP and UDP",
	  "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	// `ip saddr set 192.168.7.9`: 4 bytes at nh+12, header checksum at
	// 10, NFT_PAYLOAD_L4CSUM_PSEUDOHDR.
	REQUIRE(add_write(e.rs, "pre", {192, 168, 7, 9},
			  {NFT_PAYLOAD_NETWORK_HEADER, 12, 4, 1, 10, 1}) == 0);

	WritableFrame t(tcp_frame());
	CHECK(e.run(kHookPrerouting, t.pkt) == kNfAccept);
	CHECK(t.bytes[26] == 192);
	CHECK(t.bytes[29] == 9);
	CHECK(ipv4_header_ok(t.bytes));
	CHECK(l4_ok(t.bytes, 16));

	WritableFrame u(ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), 53, 53, 9)));
	CHECK(e.run(kHookPrerouting, u.pkt) == kNfAccept);
	CHECK(ipv4_header_ok(u.bytes));
	CHECK(l4_ok(u.bytes, 6));

	// UDP without a checksum keeps none (nft_payload_udp_checksum)
	ctf::Bytes no_sum = ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), 53, 53));
	no_sum[14 + 20 + 6] = no_sum[14 + 20 + 7] = 0;
	WritableFrame z(no_sum);
	CHECK(e.run(kHookPrerouting, z.pkt) == kNfAccept);
	CHECK(z.bytes[14 + 20 + 6] == 0);
	CHECK(z.bytes[14 + 20 + 7] == 0);
	CHECK(ipv4_header_ok(z.bytes));
	CHECK(e.packets("t", "pre", 0) == 3);
}

TEST_CASE("nft payload write: a checksum the device finishes holds the pseudo-header sum",
	  "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	REQUIRE(add_write(e.rs, "pre", {192, 168, 7, 9},
			  {NFT_PAYLOAD_NETWORK_HEADER, 12, 4, 1, 10, 1}) == 0);
	// CHECKSUM_PARTIAL: TCP's field holds the folded pseudo-header sum,
	// uncomplemented (~tcp_v4_check(len, saddr, daddr, 0)).
	auto pseudo = [](const ctf::Bytes &f) {
		uint32_t sum = ctf::sum16(&f[26], 8);
		sum += 6;
		sum += uint32_t(f.size() - 34);
		return uint16_t(~ctf::fold(sum));
	};
	ctf::Bytes b = tcp_frame();
	ctf::put16(b, 34 + 16, pseudo(b));
	WritableFrame f(b);
	f.pkt.csum_partial = true;
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(ipv4_header_ok(f.bytes));
	CHECK(uint16_t(f.bytes[50] << 8 | f.bytes[51]) == pseudo(f.bytes));

	// A port is not in the pseudo-header: under CHECKSUM_PARTIAL nft
	// leaves a transport write's checksum to the device.
	Engine e2;
	REQUIRE(e2.load(kPrerouting) == 0);
	REQUIRE(add_write(e2.rs, "pre", {0, 80}, {NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, 1, 16, 0}) == 0);
	ctf::Bytes p = tcp_frame();
	ctf::put16(p, 34 + 16, 0x1234);
	WritableFrame g(p);
	g.pkt.csum_partial = true;
	CHECK(e2.run(kHookPrerouting, g.pkt) == kNfAccept);
	CHECK(g.bytes[36] == 0);
	CHECK(g.bytes[37] == 80);
	CHECK(g.bytes[50] == 0x12);
	CHECK(g.bytes[51] == 0x34);
}

TEST_CASE("nft payload write: tcp dport set keeps TCP's checksum", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	REQUIRE(add_write(e.rs, "pre", {0, 80}, {NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, 1, 16, 0}) == 0);
	WritableFrame f(tcp_frame(22));
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes[36] == 0);
	CHECK(f.bytes[37] == 80);
	CHECK(l4_ok(f.bytes, 16));
	CHECK(ipv4_header_ok(f.bytes));

	// a later fragment has no transport header: the write breaks
	ctf::Bytes frag = tcp_frame(22);
	ctf::put16(frag, 14 + 6, 0x0010);	// fragment offset 16 (x8)
	ctf::put16(frag, 14 + 10, 0);
	ctf::put16(frag, 14 + 10, ctf::fold(ctf::sum16(&frag[14], 20)));
	WritableFrame later(frag);
	CHECK(e.run(kHookPrerouting, later.pkt) == kNfAccept);
	CHECK(later.bytes == frag);
	CHECK(e.packets("t", "pre", 0) == 1);
}

TEST_CASE("nft payload write: SCTP's CRC32c is computed again", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	// `sctp dport set 2905`: NFT_PAYLOAD_CSUM_SCTP at offset 8
	REQUIRE(add_write(e.rs, "pre", {0x0b, 0x59}, {NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, 2, 8, 0}) == 0);
	ctf::Bytes l4(12 + 16, 0);
	ctf::put16(l4, 0, 2905);
	ctf::put16(l4, 2, 36412);
	l4[12] = 1;	// INIT chunk header
	ctf::put16(l4, 14, 16);
	ctf::Bytes f = ctf::frame(ctf::ip_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), 132, l4));
	WritableFrame w(f);
	CHECK(e.run(kHookPrerouting, w.pkt) == kNfAccept);
	CHECK(w.bytes[36] == 0x0b);
	CHECK(w.bytes[37] == 0x59);
	const uint8_t *sh = &w.bytes[34];
	const uint32_t stored = uint32_t(sh[8]) | uint32_t(sh[9]) << 8 | uint32_t(sh[10]) << 16 |
				uint32_t(sh[11]) << 24;
	CHECK(stored == xb::ct_sctp_crc32c(sh, uint32_t(w.bytes.size() - 34)));
	CHECK(stored != 0);
}

TEST_CASE("nft payload write: link-layer writes and the out-of-band tag", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	// `ether saddr set 02:aa:bb:cc:dd:ee`
	REQUIRE(add_write(e.rs, "pre", {2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee},
			  {NFT_PAYLOAD_LL_HEADER, 6, 6}) == 0);
	WritableFrame f(tcp_frame());
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes[6] == 2);
	CHECK(f.bytes[11] == 0xee);
	CHECK_FALSE(f.pkt.tag_written);

	// `vlan id set 20` on a frame whose tag the kernel holds out of band:
	// the TCI changes, the bytes do not (nft_payload_set_vlan).
	Engine v;
	REQUIRE(v.load(kPrerouting) == 0);
	REQUIRE(add_write(v.rs, "pre", {0x00, 0x14}, {NFT_PAYLOAD_LL_HEADER, 14, 2}) == 0);
	ctf::Bytes untagged = tcp_frame();
	WritableFrame t(untagged);
	t.pkt.vlan_present = true;
	t.pkt.vlan_proto = 0x8100;
	t.pkt.vlan_tci = 0x600a;	// PCP 3, VID 10
	CHECK(v.run(kHookPrerouting, t.pkt) == kNfAccept);
	CHECK(t.pkt.vlan_tci == 0x0014);
	CHECK(t.pkt.tag_written);
	CHECK_FALSE(t.pkt.written);
	CHECK(t.bytes == untagged);

	// the same write on an untagged frame writes the bytes at 14 (what
	// nft's `vlan id set` guards with `ether type 8021q`)
	WritableFrame plain(untagged);
	CHECK(v.run(kHookPrerouting, plain.pkt) == kNfAccept);
	CHECK(plain.bytes[14] == 0x00);
	CHECK(plain.bytes[15] == 0x14);

	// a write across the tag of another shape breaks
	Engine across;
	REQUIRE(across.load(kPrerouting) == 0);
	REQUIRE(add_write(across.rs, "pre", {1, 2, 3, 4}, {NFT_PAYLOAD_LL_HEADER, 10, 4}) == 0);
	WritableFrame x(untagged);
	x.pkt.vlan_present = true;
	x.pkt.vlan_proto = 0x8100;
	x.pkt.vlan_tci = 10;
	CHECK(across.run(kHookPrerouting, x.pkt) == kNfAccept);
	CHECK(x.bytes == untagged);
	CHECK(across.packets("t", "pre", 0) == 0);

	// past the tag, the kernel's offset counts the tag's 4 bytes: `@ll,
	// 144, 8` (byte 18) is the first byte after the ether type
	Engine after;
	REQUIRE(after.load(kPrerouting) == 0);
	REQUIRE(add_write(after.rs, "pre", {0x46}, {NFT_PAYLOAD_LL_HEADER, 18, 1}) == 0);
	WritableFrame y(untagged);
	y.pkt.vlan_present = true;
	y.pkt.vlan_proto = 0x8100;
	y.pkt.vlan_tci = 10;
	CHECK(after.run(kHookPrerouting, y.pkt) == kNfAccept);
	CHECK(y.bytes[14] == 0x46);
}

TEST_CASE("nft payload write: breaks where nft_payload_set_eval breaks", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	REQUIRE(add_write(e.rs, "pre", {0, 80}, {NFT_PAYLOAD_TRANSPORT_HEADER, 2, 2, 1, 16, 0}) == 0);
	// not writable (skb_ensure_writable failed): the rule breaks
	Frame ro(tcp_frame());
	const ctf::Bytes before = ro.bytes;
	CHECK(e.run(kHookPrerouting, ro.pkt) == kNfAccept);
	CHECK(ro.bytes == before);
	// past the frame's end
	Engine far;
	REQUIRE(far.load(kPrerouting) == 0);
	REQUIRE(add_write(far.rs, "pre", {1, 2, 3, 4}, {NFT_PAYLOAD_NETWORK_HEADER, 200, 4}) == 0);
	WritableFrame f(tcp_frame());
	const ctf::Bytes orig = f.bytes;
	CHECK(far.run(kHookPrerouting, f.pkt) == kNfAccept);
	CHECK(f.bytes == orig);
	// a header checksum past the end
	Engine csum;
	REQUIRE(csum.load(kPrerouting) == 0);
	REQUIRE(add_write(csum.rs, "pre", {1}, {NFT_PAYLOAD_NETWORK_HEADER, 0, 1, 1, 250, 0}) == 0);
	WritableFrame g(tcp_frame());
	CHECK(csum.run(kHookPrerouting, g.pkt) == kNfAccept);
	CHECK(g.bytes == orig);
	CHECK(e.packets("t", "pre", 0) == 0);
	CHECK(far.packets("t", "pre", 0) == 0);
	CHECK(csum.packets("t", "pre", 0) == 0);
}

TEST_CASE("nft payload write: the family validates as nft_payload_set_init", "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	auto add = [&](const Write &w, bool with_dreg = false) {
		return add_raw_rule(e, "t", "pre", [&](nftnl_rule *r) {
			nftnl_rule_add_expr(r, raw_value({1, 2, 3, 4}));
			nftnl_expr *x = raw_payload_write(w);
			if (with_dreg)
				nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_2);
			nftnl_rule_add_expr(r, x);
		});
	};
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4, 3, 0, 0}) == -xb::kEOPNOTSUPP);	// csum type
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4, 2, 8, 0}) == -xb::kEINVAL);	// SCTP not at L4
	CHECK(add({NFT_PAYLOAD_TRANSPORT_HEADER, 0, 4, 2, 6, 0}) == -xb::kEINVAL);	// SCTP not at 8
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4, 1, 10, 2}) == -xb::kEINVAL);	// flags
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4, 1, 256, 0}) == -xb::kERANGE);	// csum offset
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4}, true) == -xb::kEINVAL);	// sreg and dreg
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 256}) == -xb::kEINVAL);	// length wraps to 0
	CHECK(add({7, 0, 4}) == -xb::kEOPNOTSUPP);	// base
	CHECK(e.chain("t", "pre").rules.empty());
	CHECK(add({NFT_PAYLOAD_NETWORK_HEADER, 0, 4, 1, 10, 1}) == 0);
	CHECK(e.chain("t", "pre").rules.size() == 1);
}

namespace {

using namespace xbt;

// A bridge of three ports in the namespace of a ruleset with a prerouting,
// a forward and an input chain; frames decided with writable bytes and
// room for each copy's writes, as the module hands them over.
struct WriteBridge : RulesetBridge {
	std::vector<CopyWrite> room = std::vector<CopyWrite>(16);
	CopyWrites writes{room.data(), uint32_t(room.size()), 0};

	WriteBridge()
	{
		REQUIRE(load("table bridge t { "
			     "chain pre { type filter hook prerouting priority 0; }; "
			     "chain fw { type filter hook forward priority 0; }; "
			     "chain in { type filter hook input priority 0; }; }\n") == 0);
	}

	Outcome send_writable(Port *in, std::vector<uint8_t> &bytes)
	{
		RcuReadGuard g;
		RxFrame f{bytes.data(), uint32_t(bytes.size()), OobTag{false, 0, 0}, in};
		f.writable = bytes.data();
		f.copy_writes = &writes;
		writes.count = 0;
		Verdict v;
		decide(*br, f, now(), v);
		return summarize(*br, v);
	}

	// The bytes copy @copy leaves with: @frame with its records made.
	std::vector<uint8_t> copy_of(std::vector<uint8_t> frame, const void *copy) const
	{
		for (uint32_t i = 0; i < writes.count; i++)
			if (room[i].copy == copy && room[i].len)
				memcpy(&frame[room[i].offset], room[i].after, room[i].len);
		return frame;
	}
};

nftnl_expr *raw_meta(uint32_t key, uint32_t dreg = NFT_REG_1)
{
	nftnl_expr *x = nftnl_expr_alloc("meta");
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(x, NFTNL_EXPR_META_DREG, dreg);
	return x;
}

nftnl_expr *raw_cmp(const std::vector<uint8_t> &bytes, uint32_t op = NFT_CMP_EQ)
{
	nftnl_expr *x = nftnl_expr_alloc("cmp");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(x, NFTNL_EXPR_CMP_DATA, bytes.data(), uint32_t(bytes.size()));
	return x;
}

std::vector<uint8_t> u32_bytes(uint32_t v)
{
	std::vector<uint8_t> b(4);
	memcpy(b.data(), &v, 4);
	return b;
}

nftnl_expr *raw_drop()
{
	nftnl_expr *x = nftnl_expr_alloc("immediate");
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(x, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
	return x;
}

const std::vector<uint8_t> kNewSrc = {0x02, 0xaa, 0, 0, 0, 0x77};

} // namespace

TEST_CASE("nft payload write: each copy of a flood has its own forward chain's writes",
	  "[nft][payload-write]")
{
	WriteBridge b;
	// copies to swp2 leave from a new source address; a later rule
	// counts the copies whose chain sees it
	REQUIRE(add_raw_rule(b.rs, "t", "fw", [](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_meta(NFT_META_OIF));
		nftnl_rule_add_expr(r, raw_cmp(u32_bytes(2)));
		nftnl_rule_add_expr(r, raw_value(kNewSrc));
		nftnl_rule_add_expr(r, raw_payload_write({NFT_PAYLOAD_LL_HEADER, 6, 6}));
	}) == 0);
	REQUIRE(add_raw_rule(b.rs, "t", "fw", [](nftnl_rule *r) {
		nftnl_expr *load = nftnl_expr_alloc("payload");
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_LL_HEADER);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_OFFSET, 6);
		nftnl_expr_set_u32(load, NFTNL_EXPR_PAYLOAD_LEN, 6);
		nftnl_rule_add_expr(r, load);
		nftnl_rule_add_expr(r, raw_cmp(kNewSrc));
		nftnl_rule_add_expr(r, raw_counter());
	}) == 0);
	{
		RcuReadGuard rcu;
		CHECK(b.rs.generation()->has_payload_write);
	}
	std::vector<uint8_t> f = make_frame(kBcast, host_mac(1));
	const std::vector<uint8_t> sent = f;
	Outcome o = b.send_writable(b.p(1), f);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.to(b.p(2)));
	CHECK(o.to(b.p(3)));
	CHECK(f == sent);	// the shared bytes as prerouting left them
	CHECK(b.writes.count == 1);
	const std::vector<uint8_t> to2 = b.copy_of(f, b.p(2));
	CHECK(std::vector<uint8_t>(to2.begin() + 6, to2.begin() + 12) == kNewSrc);
	CHECK(b.copy_of(f, b.p(3)) == sent);
	CHECK(b.copy_of(f, nullptr) == sent);
	CHECK(rule_packets(b.rs, "t", "fw", 1) == 1);	// swp2's copy alone
	// the learned source is the one the frame came with
	CHECK(b.has(host_mac(1), 0));
}

TEST_CASE("nft payload write: a dropped copy's writes are forgotten, the input chain's kept",
	  "[nft][payload-write]")
{
	WriteBridge b;
	// every forwarded copy gets a new source; swp3's is then dropped
	REQUIRE(add_raw_rule(b.rs, "t", "fw", [](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_value(kNewSrc));
		nftnl_rule_add_expr(r, raw_payload_write({NFT_PAYLOAD_LL_HEADER, 6, 6}));
	}) == 0);
	REQUIRE(add_raw_rule(b.rs, "t", "fw", [](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_meta(NFT_META_OIF));
		nftnl_rule_add_expr(r, raw_cmp(u32_bytes(3)));
		nftnl_rule_add_expr(r, raw_drop());
	}) == 0);
	// the copy that goes up: `ip ttl set 1`-like write with its checksum
	REQUIRE(add_write(b.rs, "in", {1}, {NFT_PAYLOAD_NETWORK_HEADER, 8, 1, 1, 10, 0}) == 0);
	std::vector<uint8_t> f = tcp_frame();
	std::memcpy(&f[0], "\xff\xff\xff\xff\xff\xff", 6);	// broadcast: up too
	const std::vector<uint8_t> sent = f;
	Outcome o = b.send_writable(b.p(1), f);
	REQUIRE(o.v.kind == VerdictKind::Flood);
	CHECK(o.to(b.p(2)));
	CHECK_FALSE(o.to(b.p(3)));
	CHECK(o.local);
	CHECK(f == sent);
	const std::vector<uint8_t> up = b.copy_of(f, nullptr);
	CHECK(up[14 + 8] == 1);
	CHECK(ipv4_header_ok(up));
	CHECK(std::vector<uint8_t>(up.begin() + 6, up.begin() + 12) ==
	      std::vector<uint8_t>(sent.begin() + 6, sent.begin() + 12));
	for (uint32_t i = 0; i < b.writes.count; i++)
		CHECK(b.room[i].copy != static_cast<const void *>(b.p(3)));
	const std::vector<uint8_t> to2 = b.copy_of(f, b.p(2));
	CHECK(std::vector<uint8_t>(to2.begin() + 6, to2.begin() + 12) == kNewSrc);
	CHECK(to2[14 + 8] == sent[14 + 8]);
}

TEST_CASE("nft payload write: prerouting's write is every copy's, and the FDB reads it",
	  "[nft][payload-write]")
{
	WriteBridge b;
	// `ether daddr set` at prerouting: the FDB decides on the new address
	REQUIRE(add_raw_rule(b.rs, "t", "pre", [](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_value({0x02, 0, 0, 0, 0, 0x33}));
		nftnl_rule_add_expr(r, raw_payload_write({NFT_PAYLOAD_LL_HEADER, 0, 6}));
	}) == 0);
	b.send(b.p(3), make_frame(host_mac(1), mac(0x02, 0, 0, 0, 0, 0x33)));
	std::vector<uint8_t> f = make_frame(host_mac(9), host_mac(1));
	Outcome o = b.send_writable(b.p(1), f);
	CHECK(o.v.kind == VerdictKind::Forward);
	CHECK(o.to(b.p(3)));
	CHECK(o.v.frame_written);
	CHECK(f[5] == 0x33);	// in place: every copy has it
	CHECK(b.writes.count == 0);
	// without writable bytes the write breaks: flooded as it came
	std::vector<uint8_t> ro = make_frame(host_mac(9), host_mac(1));
	o = b.send(b.p(1), ro);
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK_FALSE(o.v.frame_written);
}

TEST_CASE("nft payload write: the dump carries every field as the kernel keeps it",
	  "[nft][payload-write]")
{
	Engine e;
	REQUIRE(e.load(kPrerouting) == 0);
	// nft sends no checksum attributes for a plain write; the kernel
	// dumps all of them, and an offset above 255 as the byte it keeps
	REQUIRE(add_raw_rule(e, "t", "pre", [](nftnl_rule *r) {
		nftnl_rule_add_expr(r, raw_value({0, 22}));
		nftnl_expr *x = nftnl_expr_alloc("payload");
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_SREG, NFT_REG_1);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE, NFT_PAYLOAD_TRANSPORT_HEADER);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, 258);
		nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, 2);
		nftnl_rule_add_expr(r, x);
	}) == 0);
	xnft::RulesetModel model;
	dump_into(e.rs, model);
	bool seen = false;
	REQUIRE(model.tables.size() == 1);
	for (nftnl_rule *rule : model.tables[0].rules) {
		nftnl_expr_iter *it = nftnl_expr_iter_create(rule);
		for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it)) {
			if (strcmp(nftnl_expr_get_str(x, NFTNL_EXPR_NAME), "payload"))
				continue;
			seen = true;
			CHECK(nftnl_expr_get_u32(x, NFTNL_EXPR_PAYLOAD_SREG) == NFT_REG_1);
			CHECK(nftnl_expr_get_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET) == 2);
			CHECK(nftnl_expr_get_u32(x, NFTNL_EXPR_PAYLOAD_LEN) == 2);
			CHECK(nftnl_expr_is_set(x, NFTNL_EXPR_PAYLOAD_CSUM_TYPE));
			CHECK(nftnl_expr_get_u32(x, NFTNL_EXPR_PAYLOAD_CSUM_TYPE) == 0);
			CHECK(nftnl_expr_is_set(x, NFTNL_EXPR_PAYLOAD_FLAGS));
		}
		nftnl_expr_iter_destroy(it);
	}
	CHECK(seen);
}

TEST_CASE("nft payload write: a copy's write without room breaks whole", "[nft][payload-write]")
{
	WriteBridge b;
	// `ip ttl set 1` with its header checksum, then a counter
	REQUIRE(add_write(b.rs, "fw", {1}, {NFT_PAYLOAD_NETWORK_HEADER, 8, 1, 1, 10, 0}) == 0);
	std::vector<uint8_t> f = tcp_frame();
	const std::vector<uint8_t> sent = f;
	b.writes.cap = 2;	// a write and two checksums need 3
	Outcome o = b.send_writable(b.p(1), f);
	CHECK(o.v.kind == VerdictKind::Flood);
	CHECK(f == sent);
	CHECK(b.writes.count == 0);
	CHECK(rule_packets(b.rs, "t", "fw", 0) == 0);
	// with room, each of the two copies gets its own records
	b.writes.cap = uint32_t(b.room.size());
	o = b.send_writable(b.p(1), f);
	CHECK(f == sent);
	CHECK(b.writes.count == 4);	// the byte and the checksum, per copy
	for (Port *to : {b.p(2), b.p(3)}) {
		const std::vector<uint8_t> copy = b.copy_of(f, to);
		CHECK(copy[14 + 8] == 1);
		CHECK(ipv4_header_ok(copy));
	}
	CHECK(rule_packets(b.rs, "t", "fw", 0) == 2);
}
