// test_nft_getelem.cc - NFT_MSG_GETSETELEM without NLM_F_DUMP (the core's
// get_set_elem, nft_dump.h) and xnft's `get element` over the family's
// dump; nft's operator words and binary operators run by the engine; the
// interval sets whose encoding they brought to light (host-order keys,
// adjacent ranges) looked up by frames.
//
// What get_set_elem must answer is what Linux answered (6.18, nf_tables'
// nf_tables_getsetelem) to the same requests sent over NETLINK_NETFILTER
// for the same ruleset loaded by nft 1.0.6: one NEWSETELEM reply per
// element asked for, the answers before a missing one sent and then
// ENOENT. What xnft prints is what nft 1.0.6 printed
// (tests/corpus/get-element.nft compares many more against nft itself).
// Userspace test code, single-threaded.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "diagnostics.h"
#include "engine_fixture.h"
#include "nft_dump.h"
#include "nft_eval.h"
#include "nft_ruleset.h"
#include "parser.h"
#include "platform_user.h"
#include "printer.h"
#include "ruleset_model.h"

using namespace xb::nft;
using namespace xnft::test;
using Bytes = ctf::Bytes;

namespace {

// One element of a request: its key (and key end), with
// NFT_SET_ELEM_INTERVAL_END or not; or a raw attribute stream as the
// element's body (a malformed one).
struct Req {
	Bytes key, key_end;
	uint32_t flags = 0;
	bool has_flags = false;
	bool no_key = false;
	Bytes raw;          // non-empty: the element's body, bytes as they are
	Bytes raw_key;      // non-empty: the key's body, bytes as they are
};

Req ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d, bool end = false)
{
	Req r;
	r.key = {a, b, c, d};
	if (end) {
		r.flags = kSetElemFIntervalEnd;
		r.has_flags = true;
	}
	return r;
}

// One answer: the element's attributes as the reply carries them.
struct Ans {
	Bytes key, key_end, data;
	uint32_t flags = 0;
	int32_t verdict = 0;
	bool has_verdict = false;
};

struct GetResult {
	int err = 0;          // 0, or the -errno that ended the answers
	std::string msg;      // the extack message with it
	std::vector<Ans> answers;
};

Bytes value_of(const Attr &nest)
{
	Attr v[kDataValue + 1];
	REQUIRE(parse_nested(nest, v, kDataValue));
	REQUIRE(v[kDataValue].present());
	return Bytes(v[kDataValue].data, v[kDataValue].data + v[kDataValue].len);
}

// The request's attributes: table, set (each only when given), then the
// element list (without elements: none at all).
std::vector<uint8_t> request(const char *table, const char *set, const std::vector<Req> &elems,
			     bool with_list = true)
{
	std::vector<uint8_t> buf(4096);
	AttrWriter w(buf.data(), buf.size());
	if (table)
		w.str(kSetElemListTable, table);
	if (set)
		w.str(kSetElemListSet, set);
	if (with_list) {
		const size_t list = w.nest_begin(kSetElemListElements);
		for (const Req &r : elems) {
			if (!r.raw.empty()) {
				w.put(1, r.raw.data(), uint32_t(r.raw.size()));
				continue;
			}
			const size_t el = w.nest_begin(1);	/* NFTA_LIST_ELEM */
			{
				if (!r.raw_key.empty()) {
					w.put(kSetElemKey, r.raw_key.data(), uint32_t(r.raw_key.size()));
				} else if (!r.no_key) {
					const size_t k = w.nest_begin(kSetElemKey);
					w.put(kDataValue, r.key.data(), uint32_t(r.key.size()));
					w.nest_end(k);
				}
				if (!r.key_end.empty()) {
					const size_t k = w.nest_begin(kSetElemKeyEnd);
					w.put(kDataValue, r.key_end.data(), uint32_t(r.key_end.size()));
					w.nest_end(k);
				}
				if (r.has_flags)
					w.be32(kSetElemFlags, r.flags);
			}
			w.nest_end(el);
		}
		w.nest_end(list);
	}
	REQUIRE(!w.full());
	buf.resize(w.len());
	return buf;
}

// Every answer get_set_elem gives to @req, as the family's doit would
// send them, until the end or an error.
GetResult get(const Ruleset &rs, const std::vector<uint8_t> &req, size_t cap = 4096)
{
	GetResult r;
	uint32_t next = 0;
	for (int guard = 0; guard < 100; guard++) {
		std::vector<uint8_t> buf(cap);
		AttrWriter w(buf.data(), buf.size());
		uint16_t type = 0;
		xb::Extack ack;
		const long n = get_set_elem(rs, req.data(), req.size(), next, w, &type, &ack);
		if (n <= 0) {
			r.err = int(n);
			r.msg = ack.msg ? ack.msg : "";
			return r;
		}
		REQUIRE(type == kMsgNewSetElem);
		Attr tb[kSetElemListElements + 1];
		REQUIRE(parse_attrs(buf.data(), size_t(n), tb, kSetElemListElements));
		REQUIRE(tb[kSetElemListTable].present());
		REQUIRE(tb[kSetElemListSet].present());
		AttrWalker walk(tb[kSetElemListElements]);
		uint16_t t;
		Attr el;
		unsigned count = 0;
		while (walk.next(t, el)) {
			Attr et[kSetElemExpressions + 1];
			REQUIRE(parse_nested(el, et, kSetElemExpressions));
			Ans a;
			a.key = value_of(et[kSetElemKey]);
			if (et[kSetElemKeyEnd].present())
				a.key_end = value_of(et[kSetElemKeyEnd]);
			if (et[kSetElemFlags].present())
				REQUIRE(attr_be32(et[kSetElemFlags], a.flags));
			if (et[kSetElemData].present()) {
				Attr d[kDataVerdict + 1];
				REQUIRE(parse_nested(et[kSetElemData], d, kDataVerdict));
				if (d[kDataVerdict].present()) {
					Attr v[kVerdictChain + 1];
					REQUIRE(parse_nested(d[kDataVerdict], v, kVerdictChain));
					uint32_t code = 0;
					REQUIRE(attr_be32(v[kVerdictCode], code));
					a.verdict = int32_t(code);
					a.has_verdict = true;
				} else {
					a.data = value_of(et[kSetElemData]);
				}
			}
			r.answers.push_back(a);
			count++;
		}
		REQUIRE(count == 1);	// one element a reply, as nft_get_set_elem sends it
	}
	FAIL("get_set_elem did not end");
	return r;
}

GetResult get(const Ruleset &rs, const char *set, const std::vector<Req> &elems)
{
	return get(rs, request("t", set, elems));
}

Bytes be(std::initializer_list<uint8_t> b)
{
	return Bytes(b);
}

// A TCP frame from 10.0.0.1 to 10.0.0.2 port 22 with tcp flags @flags.
Bytes tcp_frame_flags(uint8_t flags)
{
	ctf::Tcp t;
	t.sport = 40000;
	t.dport = 22;
	t.flags = flags;
	t.win = 1000;
	return ctf::frame(ctf::tcp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, 2), t));
}

// The ruleset as `list ruleset` prints it from its dump, with the
// generation and the change counter: what "nothing changed" compares.
std::string state(Engine &e)
{
	xnft::RulesetModel m;
	dump_into(e.rs, m);
	return xnft::print_ruleset(m, xnft::PrintOptions{}) + " gen " + std::to_string(e.rs.generation_id()) +
	       " seq " + std::to_string(e.rs.change_seq());
}

const char *kSets =
	"table bridge t {\n"
	"  set s { type ipv4_addr; elements = { 1.2.3.4, 5.6.7.8, 9.9.9.9 }; }\n"
	"  set r { type ipv4_addr; flags interval;\n"
	"    elements = { 10.0.0.0/8, 192.168.1.1-192.168.1.20, 1.1.1.1 }; }\n"
	"  set adj { type ipv4_addr; flags interval; elements = { 1.1.1.1-1.1.1.20, 1.1.1.21-1.1.1.30 }; }\n"
	"  map m { type ipv4_addr : mark; elements = { 1.2.3.4 : 0x1, 5.6.7.8 : 0x2 }; }\n"
	"  map v { type ipv4_addr : verdict; elements = { 1.2.3.4 : accept, 5.6.7.8 : drop }; }\n"
	"  set cr { type ipv4_addr . inet_service; flags interval;\n"
	"    elements = { 10.0.0.0/8 . 20-30, 1.2.3.4 . 22 }; }\n"
	"}\n";

} // namespace

TEST_CASE("nft getsetelem: a set without intervals answers the same key, ENOENT without it", "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	GetResult r = get(e.rs, "s", {ip(1, 2, 3, 4)});
	CHECK(r.err == 0);
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 2, 3, 4}));
	CHECK(r.answers[0].flags == 0);

	r = get(e.rs, "s", {ip(4, 4, 4, 4)});
	CHECK(r.err == -xb::kENOENT);
	CHECK(r.msg == "no such element");
	CHECK(r.answers.empty());

	// one reply a found element, then the error at the missing one: the
	// element after it is not looked at
	r = get(e.rs, "s", {ip(1, 2, 3, 4), ip(4, 4, 4, 4), ip(5, 6, 7, 8)});
	CHECK(r.err == -xb::kENOENT);
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 2, 3, 4}));

	r = get(e.rs, "s", {ip(9, 9, 9, 9), ip(1, 2, 3, 4), ip(1, 2, 3, 4)});
	CHECK(r.err == 0);
	REQUIRE(r.answers.size() == 3);
	CHECK(r.answers[0].key == be({9, 9, 9, 9}));
	CHECK(r.answers[2].key == be({1, 2, 3, 4}));
}

TEST_CASE("nft getsetelem: an interval set answers as nft_set_rbtree does", "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	// a value inside a range: the range's start
	GetResult r = get(e.rs, "r", {ip(192, 168, 1, 5)});
	CHECK(r.err == 0);
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({192, 168, 1, 1}));
	CHECK(r.answers[0].flags == 0);
	// a start itself
	r = get(e.rs, "r", {ip(1, 1, 1, 1)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 1, 1, 1}));
	// the end of a range (its last value + 1) holds nothing: ENOENT, not
	// the range before it
	CHECK(get(e.rs, "r", {ip(192, 168, 1, 21)}).err == -xb::kENOENT);
	CHECK(get(e.rs, "r", {ip(1, 1, 1, 2)}).err == -xb::kENOENT);
	// between ranges, below the first
	CHECK(get(e.rs, "r", {ip(11, 0, 0, 1)}).err == -xb::kENOENT);
	CHECK(get(e.rs, "r", {ip(0, 0, 0, 1)}).err == -xb::kENOENT);
	// an interval end: the end at or above the key that ends a range
	r = get(e.rs, "r", {ip(192, 168, 1, 4, true)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({192, 168, 1, 21}));
	CHECK(r.answers[0].flags == kSetElemFIntervalEnd);
	r = get(e.rs, "r", {ip(10, 0, 0, 0, true)});	// a start stands there: the end above
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({11, 0, 0, 0}));
	r = get(e.rs, "r", {ip(192, 168, 1, 21, true)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({192, 168, 1, 21}));
	CHECK(get(e.rs, "r", {ip(11, 0, 0, 1, true)}).err == -xb::kENOENT);
	CHECK(get(e.rs, "r", {ip(9, 0, 0, 0, true)}).err == -xb::kENOENT);
	// nft's leading interval end at 0 ends nothing
	CHECK(get(e.rs, "r", {ip(0, 0, 0, 0, true)}).err == -xb::kENOENT);
	// a range as nft asks for it: its start, then its end + 1
	r = get(e.rs, "r", {ip(1, 1, 1, 1), ip(1, 1, 1, 2, true)});
	CHECK(r.err == 0);
	REQUIRE(r.answers.size() == 2);
	CHECK(r.answers[0].key == be({1, 1, 1, 1}));
	CHECK(r.answers[1].key == be({1, 1, 1, 2}));
	CHECK(r.answers[1].flags == kSetElemFIntervalEnd);
}

TEST_CASE("nft getsetelem: adjacent ranges, an interval end and a start at one key", "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	GetResult r = get(e.rs, "adj", {ip(1, 1, 1, 21)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 1, 1, 21}));
	CHECK(r.answers[0].flags == 0);
	r = get(e.rs, "adj", {ip(1, 1, 1, 21, true)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 1, 1, 21}));
	CHECK(r.answers[0].flags == kSetElemFIntervalEnd);
	r = get(e.rs, "adj", {ip(1, 1, 1, 20, true)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 1, 1, 21}));
	r = get(e.rs, "adj", {ip(1, 1, 1, 22, true)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({1, 1, 1, 31}));
}

TEST_CASE("nft getsetelem: maps answer with their data, concatenated ranges by holding the key",
	  "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	GetResult r = get(e.rs, "m", {ip(5, 6, 7, 8)});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({5, 6, 7, 8}));
	const uint32_t mark = 2;	// host order
	CHECK(r.answers[0].data == Bytes(reinterpret_cast<const uint8_t *>(&mark),
					 reinterpret_cast<const uint8_t *>(&mark) + 4));
	r = get(e.rs, "v", {ip(5, 6, 7, 8), ip(1, 2, 3, 4)});
	REQUIRE(r.answers.size() == 2);
	CHECK(r.answers[0].has_verdict);
	CHECK(r.answers[0].verdict == kNfDrop);
	CHECK(r.answers[1].verdict == kNfAccept);

	// nft_pipapo_get: the range holding the key in every field; a key end
	// asked for is not looked at
	Req in;
	in.key = be({10, 1, 1, 1, 0, 25, 0, 0});
	r = get(e.rs, "cr", {in});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({10, 0, 0, 0, 0, 20, 0, 0}));
	CHECK(r.answers[0].key_end == be({10, 255, 255, 255, 0, 30, 0, 0}));
	in.key_end = be({11, 0, 0, 0, 0, 21, 0, 0});
	CHECK(get(e.rs, "cr", {in}).answers.size() == 1);
	Req out;
	out.key = be({1, 2, 3, 4, 0, 23, 0, 0});
	CHECK(get(e.rs, "cr", {out}).err == -xb::kENOENT);
	out.key = be({1, 2, 3, 4, 0, 22, 0, 0});
	r = get(e.rs, "cr", {out});
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key_end == out.key);
}

TEST_CASE("nft getsetelem: malformed requests are refused with nf_tables' errno, nothing changes",
	  "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	const std::string before = state(e);
	auto refused = [&](const std::vector<uint8_t> &req, int err, const char *msg) {
		const GetResult r = get(e.rs, req);
		CHECK(r.err == -err);
		CHECK(r.msg == msg);
		CHECK(r.answers.empty());
		CHECK(state(e) == before);
	};
	refused(request(nullptr, "s", {ip(1, 2, 3, 4)}), xb::kEINVAL, "elements need a table");
	refused(request("nosuch", "s", {ip(1, 2, 3, 4)}), xb::kENOENT, "no such table");
	refused(request("t", nullptr, {ip(1, 2, 3, 4)}), xb::kEINVAL, "elements need a set name");
	refused(request("t", "nosuch", {ip(1, 2, 3, 4)}), xb::kENOENT, "no such set");
	refused(request("t", "s", {}, false), xb::kEINVAL, "no elements");
	Req short_key;
	short_key.key = be({1, 2, 3});
	refused(request("t", "s", {short_key}), xb::kEINVAL, "element key length does not match the set");
	Req no_key;
	no_key.no_key = true;
	refused(request("t", "s", {no_key}), xb::kEINVAL, "an element needs a key");
	refused(request("t", "s", {ip(1, 2, 3, 4, true)}), xb::kEINVAL,
		"interval end in a set without intervals");
	Req odd_flags = ip(1, 2, 3, 4);
	odd_flags.flags = 0x4;
	odd_flags.has_flags = true;
	refused(request("t", "s", {odd_flags}), xb::kEOPNOTSUPP, "unknown element flags");
	Req garbage;
	garbage.raw = {0x08, 0x00};	// half an attribute's header
	refused(request("t", "s", {garbage}), xb::kEINVAL, "malformed set element");
	Req garbage_key;
	garbage_key.raw_key = {0xff, 0x00, 0x01, 0x00};	// a value longer than the key's nest
	refused(request("t", "s", {garbage_key}), xb::kEINVAL, "malformed data");
	Req long_end = ip(1, 2, 3, 4);
	long_end.key_end = be({1, 2, 3, 4, 5});
	refused(request("t", "r", {long_end}), xb::kEINVAL, "element key end length does not match the set");
	// and a reply that does not fit its buffer
	const GetResult small = get(e.rs, request("t", "s", {ip(1, 2, 3, 4)}), 16);
	CHECK(small.err == -xb::kEMSGSIZE);
	CHECK(state(e) == before);
	// the answers themselves change nothing either
	CHECK(get(e.rs, "r", {ip(192, 168, 1, 5), ip(4, 4, 4, 4)}).answers.size() == 1);
	CHECK(state(e) == before);
}

TEST_CASE("nft getsetelem: an element frames added is answered", "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  set dyn { type ipv4_addr; flags dynamic; size 16; }\n"
		       "  chain pre { type filter hook prerouting priority 0; add @dyn { ip saddr }; }\n"
		       "}\n") == 0);
	Frame f(ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, 7), ctf::v4(10, 0, 0, 2), 5000, 53, 8)));
	f.pkt.now_ns = xb_now_ns();
	CHECK(e.run(kHookPrerouting, f.pkt) == kNfAccept);
	const GetResult r = get(e.rs, "dyn", {ip(10, 0, 0, 7)});
	CHECK(r.err == 0);
	REQUIRE(r.answers.size() == 1);
	CHECK(r.answers[0].key == be({10, 0, 0, 7}));
	CHECK(get(e.rs, "dyn", {ip(10, 0, 0, 8)}).err == -xb::kENOENT);
}

namespace {

// What `xnft get element ...` prints from the family's dump of @rs (the
// error as xnft prints it, when there is one).
std::string xnft_get(Engine &e, const std::string &command)
{
	xnft::RulesetModel m;
	dump_into(e.rs, m);
	xnft::Parser p;
	try {
		const std::vector<xnft::Command> cmds = p.parse_text(command);
		REQUIRE(cmds.size() == 1);
		return xnft::print_list(m, cmds[0], xnft::PrintOptions{});
	} catch (const xnft::LangError &err) {
		return xnft::format_error(err);
	}
}

} // namespace

TEST_CASE("xnft get element: from the core's dump, as nft 1.0.6 prints it", "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load(kSets) == 0);
	CHECK(xnft_get(e, "get element bridge t s { 9.9.9.9, 1.2.3.4 }") ==
	      "table bridge t {\n"
	      "\tset s {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\telements = { 1.2.3.4, 9.9.9.9 }\n"
	      "\t}\n"
	      "}\n");
	CHECK(xnft_get(e, "get element bridge t r { 192.168.1.5, 10.1.2.3, 1.1.1.1 }") ==
	      "table bridge t {\n"
	      "\tset r {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\tflags interval\n"
	      "\t\telements = { 192.168.1.1-192.168.1.20, 10.0.0.0/8,\n"
	      "\t\t\t     1.1.1.1 }\n"
	      "\t}\n"
	      "}\n");
	CHECK(xnft_get(e, "get element bridge t m { 1.2.3.4 }") ==
	      "table bridge t {\n"
	      "\tmap m {\n"
	      "\t\ttype ipv4_addr : mark\n"
	      "\t\telements = { 1.2.3.4 : 0x00000001 }\n"
	      "\t}\n"
	      "}\n");
	CHECK(xnft_get(e, "get element bridge t adj { 1.1.1.1-1.1.1.20 }") ==
	      "table bridge t {\n"
	      "\tset adj {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\tflags interval\n"
	      "\t\telements = { 1.1.1.1-1.1.1.20 }\n"
	      "\t}\n"
	      "}\n");
	CHECK(xnft_get(e, "get element bridge t s { 4.4.4.4 }") ==
	      "Error: Could not process rule: No such file or directory\n"
	      "get element bridge t s { 4.4.4.4 }\n"
	      "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n");
	CHECK(xnft_get(e, "get element bridge t r { 192.168.1.15-192.168.1.25 }") ==
	      "Error: Could not process rule: No such file or directory\n"
	      "get element bridge t r { 192.168.1.15-192.168.1.25 }\n"
	      "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n");
	CHECK(xnft_get(e, "get element bridge t nosuch { 1.2.3.4 }") ==
	      "Error: No such file or directory\n"
	      "get element bridge t nosuch { 1.2.3.4 }\n"
	      "                     ^^^^^^\n");
}

TEST_CASE("nft engine: interval sets of a host-order key and adjacent ranges, looked up by frames",
	  "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  set marks { type mark; flags interval; elements = { 0x10-0x20, 0x1000-0x1fff }; }\n"
		       "  set adj { type ipv4_addr; flags interval;\n"
		       "    elements = { 10.0.0.1-10.0.0.20, 10.0.0.21-10.0.0.30 }; }\n"
		       "  chain pre { type filter hook prerouting priority 0;\n"
		       "    meta mark { 0x10-0x20, 0x100 } counter\n"
		       "    meta mark @marks counter\n"
		       "    ip daddr @adj counter\n"
		       "  }\n"
		       "}\n") == 0);
	auto run = [&](uint32_t mark, uint8_t dst) {
		Frame f(ctf::frame(ctf::udp_packet(ctf::v4(10, 0, 0, 1), ctf::v4(10, 0, 0, dst), 5000, 53, 8)));
		f.pkt.mark = mark;
		e.run(kHookPrerouting, f.pkt);
	};
	// 0x110 is outside 0x10-0x20 though its low byte is inside (keys
	// compare as numbers, big-endian, not byte by byte in host order)
	for (uint32_t m : {0x10u, 0x15u, 0x20u, 0x100u, 0x110u, 0x21u, 0x1010u, 0x2000u})
		run(m, 99);
	CHECK(e.packets("t", "pre", 0) == 4);	// 0x10, 0x15, 0x20, 0x100
	CHECK(e.packets("t", "pre", 1) == 4);	// 0x10, 0x15, 0x20, 0x1010
	for (uint8_t d : {1, 20, 21, 30, 31})
		run(0, d);
	CHECK(e.packets("t", "pre", 2) == 4);
}

TEST_CASE("nft engine: nft's operator words and binary operators on the mark and tcp flags",
	  "[nft][getelem]")
{
	Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "  chain pre { type filter hook prerouting priority 0;\n"
		       "    meta mark set meta mark and 0xffff00ff or 0x1\n"
		       "    meta mark xor 0x10 eq 0x1 counter\n"
		       "    meta mark set meta mark lshift 4 rshift 1\n"
		       "    meta mark gt 0x80 meta mark lt 0x90 counter\n"
		       "    meta mark and 0xf0 ne 0x80 counter\n"
		       "    tcp flags not syn counter\n"
		       "    tcp flags and (syn or ack) eq syn counter\n"
		       "    meta mark set (meta mark and 0xff) lshift 8 or 0x3\n"
		       "  }\n"
		       "}\n") == 0);
	Frame f(tcp_frame_flags(0x02));
	f.pkt.mark = 0x1210;
	e.run(kHookPrerouting, f.pkt);
	// (0x1210 & 0xffff00ff) | 1 = 0x11; 0x11 ^ 0x10 = 0x1; 0x11 << 4 >> 1 = 0x88
	CHECK(e.packets("t", "pre", 1) == 1);
	CHECK(e.packets("t", "pre", 3) == 1);
	CHECK(e.packets("t", "pre", 4) == 0);
	CHECK(e.packets("t", "pre", 5) == 0);	// a SYN
	CHECK(e.packets("t", "pre", 6) == 1);
	CHECK(f.pkt.mark == ((0x88u << 8) | 0x3u));
	Frame a(tcp_frame_flags(0x10));
	e.run(kHookPrerouting, a.pkt);
	CHECK(e.packets("t", "pre", 5) == 1);	// an ACK: no SYN
	CHECK(e.packets("t", "pre", 6) == 1);
}
