// test_nft_lower.cc - lower_rule() (core/nft_eval.h) changes nothing a frame
// sees: randomized rules of loads, word Bitwises and compares, run once as
// parsed and once lowered (fused, compacted, word loads), on random frames
// and packet states; the verdicts and the registers (read back through
// `meta mark set`) must be equal, and the lowering must actually happen.
// The rules end in the statements lowered too: a counter before the
// verdict (one CounterVerdict Insn; the counters of both runs must agree),
// `ct zone set` from the register (SetCtZone; the zone must agree), and
// verdicts of every kind - accept, drop, continue, return, and a jump or
// goto to a chain that lands another register in the mark.
//
// Userspace test code: exceptions and the standard library are fine here.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "nft_eval.h"
#include "nft_expr.h"

namespace {

using namespace xb::nft;
using ctf::Bytes;

// What parse_rule_exprs makes of the expressions (nft_expr.cc), by hand.
Insn load_insn(Op op, uint8_t sub, uint8_t len, uint32_t offset, uint8_t dreg)
{
	Insn in{};
	in.op = op;
	in.sub = sub;
	in.len = len;
	in.offset = offset;
	in.dreg = dreg;
	return in;
}

// nft_data's value and the byte mask a CmpEq or Bitwise keeps beside it.
void put_word(Insn &in, unsigned at, uint32_t w)
{
	std::memcpy(in.data + at, &w, 4);
}

uint32_t byte_mask(unsigned len)
{
	uint8_t b[4] = {0, 0, 0, 0};
	for (unsigned i = 0; i < len && i < 4; i++)
		b[i] = 0xff;
	uint32_t m;
	std::memcpy(&m, b, 4);
	return m;
}

Insn cmp_eq(uint8_t sreg, uint8_t len, uint32_t value, bool neq)
{
	Insn in{};
	in.op = Op::CmpEq;
	in.sub = neq ? kCmpNeq : kCmpEq;
	in.sreg = sreg;
	in.len = len;
	put_word(in, 0, value & byte_mask(len));
	put_word(in, 16, byte_mask(len));
	return in;
}

Insn bitwise(uint8_t reg, uint8_t len, uint32_t mask, uint32_t x)
{
	Insn in{};
	in.op = Op::Bitwise;
	in.sreg = reg;
	in.dreg = reg;
	in.len = len;
	put_word(in, 0, mask & byte_mask(len));
	put_word(in, 16, x & byte_mask(len));
	return in;
}

Insn verdict(int32_t code)
{
	Insn in{};
	in.op = Op::Verdict;
	in.code = code;
	return in;
}

Insn counter_insn(xb::nft::Counter *c, bool obj)
{
	Insn in{};
	in.op = obj ? Op::ObjCounter : Op::Counter;
	in.ref = c;
	return in;
}

Insn ct_zone_from(uint8_t sreg)
{
	Insn in{};
	in.op = Op::CtSet;
	in.sub = kCtZone;
	in.sreg = sreg;
	in.len = 2;
	return in;
}

Insn mark_from(uint8_t sreg)
{
	Insn in{};
	in.op = Op::MetaSet;
	in.sub = kMetaMark;
	in.sreg = sreg;
	in.len = 4;
	return in;
}

// The frames: IPv4 and IPv6 TCP and UDP, a later fragment, truncated ones,
// ARP-sized junk.
std::vector<Bytes> frames()
{
	std::vector<Bytes> v;
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = 23;
	t.flags = 0x12;
	t.win = 512;
	v.push_back(ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t)));
	const uint32_t payload = 12;
	v.push_back(ctf::frame(ctf::udp_packet(ctf::v4(192, 168, 1, 1), ctf::v4(10, 9, 8, 7), 53,
					       1024, payload)));
	v.push_back(ctf::frame(ctf::tcp_packet(ctf::v6(1), ctf::v6(2), t)));
	v.push_back(ctf::frame(ctf::udp_packet(ctf::v6(3), ctf::v6(4), 53, 1024, payload)));
	Bytes frag = v[1];
	frag[14 + 6] = 0x00;
	frag[14 + 7] = 0x10;	/* fragment offset 16 */
	v.push_back(frag);
	for (size_t cut : {15u, 20u, 34u, 36u, 40u, 55u}) {
		Bytes b = v[0];
		b.resize(cut);
		v.push_back(b);
	}
	v.push_back(Bytes(42, 0x5a));
	return v;
}

struct Rule {
	std::vector<Insn> insn;
};

// What a rule's tail may use: a counter (the parsed rule's; the lowered
// copy's is put in its place), and the chain a jump or goto goes to.
struct Tail {
	Counter *counter;
	const Chain *callee;
};

// One random rule: a load, maybe a Bitwise on its register, maybe a compare,
// maybe another compare, then the register into the mark (rule 2 of the
// chain reads it back), maybe into the ct zone, maybe a counter, and a
// verdict.
std::vector<Insn> random_rule(std::mt19937 &rng, const Bytes &sample, const Tail &tail)
{
	auto pick = [&](unsigned n) { return unsigned(rng() % n); };
	const uint8_t reg = uint8_t(4 * pick(4));	/* NFT_REG_1..4 as words */
	std::vector<Insn> r;
	Insn load{};
	switch (pick(12)) {
	case 0: load = load_insn(Op::Meta, kMetaIif, 4, 0, reg); break;
	case 1: load = load_insn(Op::Meta, kMetaOif, 4, 0, reg); break;
	case 2: load = load_insn(Op::Meta, kMetaProtocol, 2, 0, reg); break;
	case 3: load = load_insn(Op::Meta, kMetaL4proto, 1, 0, reg); break;
	case 4: load = load_insn(Op::Meta, kMetaMark, 4, 0, reg); break;
	case 5: load = load_insn(Op::CtGet, kCtState, 4, 0, reg); break;
	case 6: load = load_insn(Op::CtGet, kCtZone, 2, 0, reg); break;
	case 7: load = load_insn(Op::Meta, kMetaPkttype, 1, 0, reg); break;
	case 8:
	case 9:
		load = load_insn(Op::Payload, kPayloadNetwork, uint8_t(1 + pick(4)), pick(48), reg);
		break;
	default:
		load = load_insn(Op::Payload, kPayloadTransport, uint8_t(1 + pick(4)), pick(24),
				 reg);
		break;
	}
	r.push_back(load);
	const uint8_t len = load.len;
	// Values that sometimes match: a word of the frame, small numbers,
	// the ifindexes, the zone.
	auto value = [&]() -> uint32_t {
		switch (pick(4)) {
		case 0: {
			uint32_t w = 0;
			const size_t off = pick(uint32_t(sample.size() > 4 ? sample.size() - 4 : 1));
			if (sample.size() >= off + 4)
				std::memcpy(&w, sample.data() + off, 4);
			return w;
		}
		case 1: return pick(8);
		case 2: return 0x0008 + (pick(2) ? 0 : 0xdd86 - 0x0008);	/* ip, ip6 */
		default: return uint32_t(rng());
		}
	};
	if (pick(2))
		r.push_back(bitwise(reg, len, pick(3) ? uint32_t(rng()) : ~0u, pick(2) ? 0 : value()));
	if (pick(4))
		r.push_back(cmp_eq(reg, uint8_t(1 + pick(len)), value(), pick(3) == 0));
	if (pick(3) == 0)
		r.push_back(cmp_eq(reg, len, value(), pick(2)));
	r.push_back(mark_from(reg));
	if (pick(3) == 0)
		r.push_back(ct_zone_from(reg));
	if (pick(2))
		r.push_back(counter_insn(tail.counter, pick(2)));
	static const int32_t codes[] = {kNfAccept, kNfDrop, kNftContinue, kNftReturn, kNftJump,
					kNftGoto};
	Insn v = verdict(codes[pick(6)]);
	if (v.code == kNftJump || v.code == kNftGoto)
		v.ref = const_cast<Chain *>(tail.callee);
	r.push_back(v);
	return r;
}

// The parsed rule with its counter swapped for @c: the lowered run counts
// in a counter of its own.
std::vector<Insn> with_counter(std::vector<Insn> r, Counter *c)
{
	for (Insn &in : r)
		if (in.op == Op::Counter || in.op == Op::ObjCounter)
			in.ref = c;
	return r;
}

uint64_t packets(const Counter &c)
{
	uint64_t n, bytes;
	counter_read(c, n, bytes);
	return n;
}

// A chain's code as a generation holds it (Chain::code): the rules one
// after the other, each Insn knowing where the next rule starts, then a
// ChainEnd.
std::vector<Insn> chain_code(const std::vector<std::vector<Insn>> &rules)
{
	std::vector<Insn> code;
	for (const std::vector<Insn> &r : rules) {
		for (size_t i = 0; i < r.size(); i++) {
			code.push_back(r[i]);
			code.back().to_next_rule = uint8_t(r.size() - i);
		}
	}
	Insn end{};
	end.op = Op::ChainEnd;
	code.push_back(end);
	return code;
}

} // namespace

TEST_CASE("nft lower: lowered rules decide and load what the parsed ones do", "[nft]")
{
	std::mt19937 rng(20261206);
	const std::vector<Bytes> fs = frames();
	IfInfo in{7, "swp1", 1, 0, "xbr0", nullptr};
	IfInfo out{9, "swp2", 1, 0, "xbr0", nullptr};
	xb::CtEntry entry;
	std::memset(static_cast<void *>(&entry), 0, sizeof(entry));
	unsigned word_loads = 0, fused = 0, accepted = 0, broke = 0;
	unsigned counter_verdicts = 0, zone_sets = 0;

	// Each rule's counter in the parsed run (a) and the lowered one (b).
	Counter counters[4];
	for (Counter &c : counters) {
		c.base_packets = c.base_bytes = 0;
		REQUIRE(c.cpu.init(XB_ALLOC_SLEEP));
	}
	// The chain jumps and gotos go to: register 8 into the mark, then its
	// end returns (or, after a goto, ends the base chain).
	const std::vector<Insn> callee_code = chain_code({{mark_from(8)}});
	const Chain callee{callee_code.data(), nullptr, 1, kNfAccept, true};

	for (int round = 0; round < 4000; round++) {
		const Bytes &sample = fs[rng() % fs.size()];
		// Two rules: the random one, and a second that also lands the
		// register in the mark after the first one fell through.
		std::vector<Insn> parsed = random_rule(rng, sample, Tail{&counters[0], &callee});
		std::vector<Insn> second = random_rule(rng, sample, Tail{&counters[1], &callee});
		std::vector<Insn> lowered = with_counter(parsed, &counters[2]);
		std::vector<Insn> lowered2 = with_counter(second, &counters[3]);
		const uint32_t n1 = lower_rule(lowered.data(), uint32_t(lowered.size()));
		const uint32_t n2 = lower_rule(lowered2.data(), uint32_t(lowered2.size()));
		REQUIRE(n1 <= parsed.size());
		REQUIRE(n2 <= second.size());
		fused += unsigned(parsed.size() - n1);
		word_loads += lowered[0].op >= Op::LoadIif && lowered[0].op <= Op::LoadTransport;
		for (uint32_t i = 0; i < n1; i++) {
			counter_verdicts += lowered[i].op == Op::CounterVerdict;
			zone_sets += lowered[i].op == Op::SetCtZone;
		}

		lowered.resize(n1);
		lowered2.resize(n2);
		const std::vector<Insn> code_a = chain_code({parsed, second});
		const std::vector<Insn> code_b = chain_code({lowered, lowered2});
		const Chain ca{code_a.data(), nullptr, 2, kNfDrop, true};
		const Chain cb{code_b.data(), nullptr, 2, kNfDrop, true};

		for (const Bytes &f : fs) {
			Pkt p{};
			p.frame = f.data();
			p.len = uint32_t(f.size());
			p.in = rng() % 4 ? &in : nullptr;
			p.out = rng() % 2 ? &out : nullptr;
			p.mark = rng() % 2 ? uint32_t(rng()) : 0;
			p.pkttype = uint8_t(rng() % 4);
			entry.tuple.zone = uint16_t(rng() % 4);
			xb::CtResult ct;
			ct.entry = rng() % 3 ? &entry : nullptr;
			ct.state = uint8_t(1u << (rng() % 7));
			p.ct = rng() % 4 ? &ct : nullptr;
			p.notrack = rng() % 8 == 0;
			p.ct_zone = uint16_t(rng() % 3);
			pkt_init(p);
			Pkt q = p;
			const int32_t va = run_chain(ca, p);
			const int32_t vb = run_chain(cb, q);
			INFO("round " << round << " frame of " << f.size() << " bytes");
			REQUIRE(va == vb);
			REQUIRE(p.mark == q.mark);
			REQUIRE(p.ct_zone == q.ct_zone);
			REQUIRE(packets(counters[0]) == packets(counters[2]));
			REQUIRE(packets(counters[1]) == packets(counters[3]));
			accepted += va == kNfAccept;
			broke += va == kNfDrop;
		}
	}
	for (Counter &c : counters)
		c.cpu.fini();
	// The cases happened: word loads, fused compares, both verdicts, the
	// lowered statements.
	CHECK(word_loads > 2500);
	CHECK(fused > 2000);
	CHECK(accepted > 1000);
	CHECK(broke > 1000);
	CHECK(counter_verdicts > 1000);
	CHECK(zone_sets > 800);
}
