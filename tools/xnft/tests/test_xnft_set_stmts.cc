// test_xnft_set_stmts.cc - statements in set and map declarations and in
// their elements: the NEWSET and the element list xnft sends, byte for
// byte against what nft 1.0.6 sent for the same input (recorded on the
// host from `nft --debug=mnl -c -f`), a rule's limit as nft sends it, and
// a set dumped with its statements listed as nft lists it.
//
// Not recorded here: the NEWSETELEM's own table, set and set id attributes,
// which nft 1.0.6 puts in another order (mnl_nft_setelem_batch); only its
// element list is compared.
//
// Userspace test code: exceptions and the standard library are fine here.
#include <catch2/catch.hpp>

#include <linux/netfilter/nf_tables.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler.h"
#include "parser.h"
#include "printer.h"
#include "ruleset_model.h"
#include "wire.h"
#include "wire_bytes.h"

namespace {

struct Recorded {
	const char *decl;	// inside `table bridge t { ... }`
	const char *newset;	// the NEWSET's attributes, hex ("" when none)
	const char *elems;	// the NEWSETELEM's NFTA_SET_ELEM_LIST_ELEMENTS payload
};

const Recorded kNft[] = {
	// one statement: NFTA_SET_EXPR (a counter without start values: an
	// empty NFTA_EXPR_DATA), an element's own on NFTA_SET_ELEM_EXPR, none
	// for the element without
	{"set s { type ipv4_addr; counter; elements = { 10.0.0.1, 10.0.0.2 counter packets 1 bytes 2 } }",
	 "0600010074000000060002007300000008000300000000000800040000000007080005000000000408000a00000000010a000d000004020000000000140011800c000100636f756e7465720004000280",
	 "100001800c000180080001000a0000013c0002800c000180080001000a0000022c0007800c000100636f756e746572001c0002800c00010000000000000000020c0002000000000000000001"},
	// two: NFTA_SET_EXPRESSIONS and NFT_SET_EXPR in the flags, an
	// element's on NFTA_SET_ELEM_EXPRESSIONS
	{"set s { type ipv4_addr; counter; limit rate 1/second; elements = { 10.0.0.1, 10.0.0.2 counter packets 3 bytes 4 limit rate 1/second } }",
	 "0600010074000000060002007300000008000300000001000800040000000007080005000000000408000a00000000010a000d0000040200000000005c001280140001800c000100636f756e7465720004000280440001800a0001006c696d6974000000340002800c00010000000000000000010c0002000000000000000001080003000000000508000400000000000800050000000000",
	 "100001800c000180080001000a000001840002800c000180080001000a00000274000b802c0001800c000100636f756e746572001c0002800c00010000000000000000040c0002000000000000000003440001800a0001006c696d6974000000340002800c00010000000000000000010c0002000000000000000001080003000000000508000400000000000800050000000000"},
	// a quota's every attribute; a byte limit without a burst sends none
	{"set s { type ipv4_addr; quota over 10 mbytes used 1 kbytes; limit rate over 1 kbytes/second; elements = { 10.0.0.1 } }",
	 "0600010074000000060002007300000008000300000001000800040000000007080005000000000408000a00000000010a000d00000402000000000074001280340001800a00010071756f7461000000240002800c0001000000000000a000000c000400000000000000040008000200000000013c0001800a0001006c696d69740000002c0002800c00010000000000000004000c000200000000000000000108000400000000010800050000000001",
	 "100001800c000180080001000a000001"},
	{"set s { type ipv4_addr; ct count over 5; elements = { 10.0.0.1, 10.0.0.2 ct count 5 } }",
	 "0600010074000000060002007300000008000300000000000800040000000007080005000000000408000a00000000010a000d000004020000000000280011800e000100636f6e6e6c696d69740000001400028008000100000000050800020000000001",
	 "100001800c000180080001000a000001380002800c000180080001000a000002280007800e000100636f6e6e6c696d69740000001400028008000100000000050800020000000000"},
	// an interval's start carries the element's statements, its end none
	{"set s { type ipv4_addr; flags interval; counter; elements = { 10.0.0.0/24 counter packets 3 bytes 4, 10.0.1.1 } }",
	 "0600010074000000060002007300000008000300000000040800040000000007080005000000000408000a00000000010a000d000004020000000000140011800c000100636f756e7465720004000280",
	 "1800018008000300000000010c00018008000100000000003c0002800c000180080001000a0000002c0007800c000100636f756e746572001c0002800c00010000000000000000040c00020000000000000000031800038008000300000000010c000180080001000a000100100004800c000180080001000a0001011800058008000300000000010c000180080001000a000102"},
	// a map's, the statements before the data; a counter's start values
	{"map m { type ipv4_addr : mark; counter packets 5 bytes 6; elements = { 10.0.0.1 : 1, 10.0.0.2 counter : 2 } }",
	 "0600010074000000060002006d0000000800030000000008080004000000000708000500000000040800060000000013080007000000000408000a000000000116000d0000040200000001040100000006040000000000002c0011800c000100636f756e746572001c0002800c00010000000000000000060c0002000000000000000005",
	 "1c0001800c000180080001000a0000010c0002800800010001000000300002800c000180080001000a0000020c0002800800010002000000140007800c000100636f756e7465720004000280"},
	// a dynamic set takes an element's statements without its own
	{"set s { type ipv4_addr; flags dynamic; elements = { 10.0.0.1 counter limit rate 2/minute burst 3 packets } }",
	 "0600010074000000060002007300000008000300000000200800040000000007080005000000000408000a00000000010a000d000004020000000000",
	 "6c0001800c000180080001000a0000015c000b80140001800c000100636f756e7465720004000280440001800a0001006c696d6974000000340002800c00010000000000000000020c000200000000000000003c080003000000000308000400000000000800050000000000"},
};

// A rule's NFTA_RULE_EXPRESSIONS payload, as nft 1.0.6 sent it (but a
// counter's: xnft sends its 0 start values too, for the core's dump).
const struct {
	const char *rule, *exprs;
} kNftRules[] = {
	{"limit rate 1 kbytes/second",
	 "3c0001800a0001006c696d69740000002c0002800c00010000000000000004000c000200000000000000000108000400000000010800050000000000"},
	{"limit rate 3/second",
	 "440001800a0001006c696d6974000000340002800c00010000000000000000030c0002000000000000000001080003000000000508000400000000000800050000000000"},
};

using xnft::test::attr_hex;
using xnft::test::compile;
using xnft::test::hex;

} // namespace

TEST_CASE("xnft: a set's and its elements' statements are what nft 1.0.6 sends", "[xnft][setstmt]")
{
	for (const Recorded &r : kNft) {
		INFO(r.decl);
		xnft::Batch batch;
		std::string newset, elems;
		for (const xnft::WireMsg &m : compile(std::string("table bridge t {\n") + r.decl + "\n}\n", batch)) {
			if (m.type == NFT_MSG_NEWSET)
				newset = hex(m.attrs.data(), m.attrs.size());
			else if (m.type == NFT_MSG_NEWSETELEM)
				elems = attr_hex(m, NFTA_SET_ELEM_LIST_ELEMENTS);
		}
		CHECK(newset == r.newset);
		CHECK(elems == r.elems);
	}
}

TEST_CASE("xnft: a rule's limit sends what nft 1.0.6 sends", "[xnft][setstmt]")
{
	for (const auto &r : kNftRules) {
		INFO(r.rule);
		xnft::Batch batch;
		std::string exprs;
		for (const xnft::WireMsg &m :
		     compile(std::string("table bridge t {\nchain c {\n") + r.rule + "\n}\n}\n", batch))
			if (m.type == NFT_MSG_NEWRULE)
				exprs = attr_hex(m, NFTA_RULE_EXPRESSIONS);
		CHECK(exprs == r.exprs);
	}
}

TEST_CASE("xnft: a dumped set lists its statements, its elements theirs", "[xnft][setstmt]")
{
	// what a kernel dumps: the set with NFTA_SET_EXPRESSIONS, the
	// elements with their own statements or the set's copies (one element
	// a message: libnftnl numbers the element nests it builds, and reads
	// back only NFTA_LIST_ELEM ones, as a kernel dumps them)
	xnft::Batch batch;
	const auto msgs = compile("table bridge t {\n"
				  "set s { type ipv4_addr; counter packets 9 bytes 9; limit rate 1/second; }\n"
				  "}\n"
				  "add element bridge t s { 10.0.0.1 counter packets 1 bytes 2 limit rate 1/second }\n"
				  "add element bridge t s { 10.0.0.2 counter limit rate over 2/minute }\n",
				  batch);
	xnft::RulesetModel model;
	for (const xnft::WireMsg &m : msgs)
		REQUIRE(model.load_dump(m.type, m.family, m.attrs.data(), m.attrs.size()));
	xnft::PrintOptions o;
	CHECK(xnft::print_ruleset(model, o) ==
	      "table bridge t {\n"
	      "\tset s {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\tcounter limit rate 1/second\n"
	      "\t\telements = { 10.0.0.1 counter packets 1 bytes 2 limit rate 1/second, "
	      "10.0.0.2 counter packets 0 bytes 0 limit rate over 2/minute }\n"
	      "\t}\n"
	      "}\n");
	o.json = true;
	o.stateless = true;
	xnft::Parser parser;
	const auto list = parser.parse_text("list ruleset");
	const std::string json = xnft::print_list(model, list.at(0), o);
	CHECK(json.find("\"elem\": [{\"elem\": {\"val\": \"10.0.0.1\", \"counter\": null}}") != std::string::npos);
	CHECK(json.find("\"stmt\": [{\"counter\": null}, {\"limit\": {\"rate\": 1, \"burst\": 5, "
			"\"per\": \"second\"}}]}}") != std::string::npos);
}
