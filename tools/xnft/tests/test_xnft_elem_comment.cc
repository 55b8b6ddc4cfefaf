// test_xnft_elem_comment.cc - comments on set and map elements: the
// element lists xnft sends, byte for byte against what nft 1.0.6 sent for
// the same input (recorded on the host from `nft --debug=mnl -c -f`), the
// element USERDATA read back as nft's set_elem_parse_udata reads it, a
// dumped set listed as nft lists it, and nft's parse errors.
//
// Only the NFTA_SET_ELEM_LIST_ELEMENTS payload of a NEWSETELEM or
// DELSETELEM is compared (nft puts the message's table, set and set id in
// another order, see test_xnft_set_stmts.cc).
//
// Userspace test code: exceptions and the standard library are fine here.
#include <catch2/catch.hpp>

#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <cstring>
#include <string>
#include <vector>

#include "compiler.h"
#include "diagnostics.h"
#include "engine_fixture.h"
#include "monitor.h"
#include "parser.h"
#include "printer.h"
#include "ruleset_model.h"
#include "set_userdata.h"
#include "wire.h"
#include "wire_bytes.h"

namespace {

struct Recorded {
	const char *input;	// a whole input file
	uint16_t type;		// NFT_MSG_NEWSETELEM or NFT_MSG_DELSETELEM: its first one
	const char *elems;	// its NFTA_SET_ELEM_LIST_ELEMENTS payload, hex
};

const Recorded kNft[] = {
	// NFTA_SET_ELEM_USERDATA (6): the comment record (0), its length
	// and the string NUL-terminated; an element without none
	{"table bridge t {\n\tset s { type ipv4_addr; elements = { 10.0.0.1 comment \"office\", 10.0.0.2 } }\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "200001800c000180080001000a0000010d00060000076f666669636500000000100002800c000180080001000a000002"},
	// an interval's start carries it, its end none; an open interval's
	// comment comes before its flags record (1: NFTNL_SET_ELEM_F_INTERVAL_OPEN)
	{"table bridge t {\n\tset s { type ipv4_addr; flags interval; elements = { 10.0.0.0/24 comment \"net\", "
	 "10.1.0.0-255.255.255.255 comment \"open\" } }\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "1800018008000300000000010c00018008000100000000001c0002800c000180080001000a0000000a00060000046e6574000000"
	 "1800038008000300000000010c000180080001000a000100240004800c000180080001000a0100001100060000056f70656e0001"
	 "0401000000000000"},
	// with a timeout, a statement and data; an empty comment is one
	{"table bridge t {\n\tmap m { type ipv4_addr : mark; flags timeout; counter; elements = { 10.0.0.1 counter "
	 "timeout 10s comment \"c\" : 1, 10.0.0.2 comment \"\" : 2 } }\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "440001800c00040000000000000027100c000180080001000a0000010c00028008000100010000000800060000026300140007800c"
	 "000100636f756e7465720004000280240002800c000180080001000a0000020c00028008000100020000000700060000010000"},
	// a concatenated interval: KEY and KEY_END, then the comment
	{"table bridge t {\n\tset c { type ipv4_addr . inet_service; flags interval; elements = { 10.0.0.0/24 . 22-25 "
	 "comment \"cc\", 10.0.0.1 . 80 } }\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "30000180100001800c0001000a0000000016000010000a800c0001000a0000ff0019000009000600000363630000000024000280100001"
	 "800c0001000a0000010050000010000a800c0001000a00000100500000"},
	// a rule's anonymous set merges adjacent ranges, the first one's
	// comment kept (nft's automerge)
	{"table bridge t {\n\tchain c {\n\t\tip saddr { 10.0.0.0/24 comment \"a\", 10.0.1.0/24 comment \"b\" } accept\n"
	 "\t}\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "1800018008000300000000010c0001800800010000000000180002800c000180080001000a0000000800060000026100180003800800"
	 "0300000000010c000180080001000a000200"},
	// `delete element` sends the comment it is given
	{"table bridge t {\n\tset s { type ipv4_addr; }\n}\ndelete element bridge t s { 10.0.0.1 comment \"gone\" }\n",
	 NFT_MSG_DELSETELEM, "1c0001800c000180080001000a0000010b0006000005676f6e650000"},
	{"table bridge t {\n\tmap v { type ipv4_addr : verdict; elements = { 10.0.0.1 comment \"ok\" : accept } }\n}\n",
	 NFT_MSG_NEWSETELEM,
	 "2c0001800c000180080001000a000001100002800c00028008000100000000010900060000036f6b00000000"},
};

using xnft::test::attr_hex;
using xnft::test::compile;
using xnft::test::hex;

// @m's element list as a kernel dumps it: libnftnl numbers the element
// nests it builds (1, 2, 3 ...) and reads back only NFTA_LIST_ELEM ones.
xnft::WireMsg as_dumped(xnft::WireMsg m)
{
	if (m.type != NFT_MSG_NEWSETELEM)
		return m;
	uint8_t *p = m.attrs.data();
	for (size_t off = 0; off + 4 <= m.attrs.size();) {
		uint16_t len, t;
		memcpy(&len, p + off, 2);
		memcpy(&t, p + off + 2, 2);
		if (len < 4 || off + len > m.attrs.size())
			break;
		if ((t & NLA_TYPE_MASK) == NFTA_SET_ELEM_LIST_ELEMENTS) {
			for (size_t in = off + 4; in + 4 <= off + len;) {
				uint16_t elen;
				memcpy(&elen, p + in, 2);
				const uint16_t type = NFTA_LIST_ELEM | NLA_F_NESTED;
				memcpy(p + in + 2, &type, 2);
				if (elen < 4)
					break;
				in += (elen + 3u) & ~3u;
			}
		}
		off += (len + 3u) & ~3u;
	}
	return m;
}

// The error parsing @text gives, as "LINE:FIRST-LAST: MESSAGE".
std::string parse_error(const std::string &text)
{
	xnft::Parser parser;
	try {
		parser.parse_text(text);
	} catch (const xnft::LangError &e) {
		return std::to_string(e.where().line) + ":" + std::to_string(e.where().first_col) + "-" +
		       std::to_string(e.where().last_col) + ": " + e.what();
	}
	return "";
}

xnft::ElemUserdataOut parse(const std::vector<uint8_t> &b)
{
	return xnft::parse_elem_userdata(b.data(), static_cast<uint32_t>(b.size()));
}

} // namespace

TEST_CASE("xnft: an element's comment is what nft 1.0.6 sends", "[xnft][elemcomment]")
{
	for (const Recorded &r : kNft) {
		INFO(r.input);
		xnft::Batch batch;
		std::string elems;
		for (const xnft::WireMsg &m : compile(r.input, batch))
			if (m.type == r.type && elems.empty())
				elems = attr_hex(m, NFTA_SET_ELEM_LIST_ELEMENTS);
		CHECK(elems == r.elems);
	}
}

TEST_CASE("xnft: an element's USERDATA read back as nft reads it", "[xnft][elemcomment]")
{
	const auto both = xnft::build_elem_userdata(std::string("x"), true);
	CHECK(both == std::vector<uint8_t>{0, 2, 'x', 0, 1, 4, 1, 0, 0, 0});
	CHECK(xnft::build_elem_userdata(std::nullopt, false).empty());
	auto out = parse(both);
	REQUIRE(out.comment);
	CHECK(*out.comment == "x");
	CHECK(out.flags == 1);
	// up to its first NUL; the last record of a kind
	out = parse({0, 4, 'a', 0, 'b', 0, 0, 3, 'c', 'd', 0});
	REQUIRE(out.comment);
	CHECK(*out.comment == "cd");
	// records of other kinds are skipped
	out = parse({7, 1, 9, 0, 2, 'e', 0});
	REQUIRE(out.comment);
	CHECK(*out.comment == "e");
	// set_elem_parse_udata_cb fails the whole parse: a comment without
	// its NUL, flags not of 4 bytes, a record cut short
	CHECK_FALSE(parse({0, 1, 'x'}).comment);
	out = parse({0, 2, 'x', 0, 1, 2, 1, 0});
	CHECK_FALSE(out.comment);
	CHECK(out.flags == 0);
	CHECK_FALSE(parse({0, 2, 'x', 0, 1, 4, 1}).comment);
}

TEST_CASE("xnft: a dumped set lists its elements' comments", "[xnft][elemcomment]")
{
	xnft::Batch batch;
	const auto msgs = compile("table bridge t {\n"
				  "set s { type ipv4_addr; flags interval,timeout; counter; }\n"
				  "map m { type ipv4_addr : verdict; }\n"
				  "}\n"
				  "add element bridge t s { 10.0.0.0/24 counter packets 1 bytes 2 timeout 1m comment \"net\", "
				  "10.1.0.0-255.255.255.255 counter comment \"open\" }\n"
				  "add element bridge t m { 10.0.0.1 comment \"ok\" : accept, 10.0.0.2 : drop }\n",
				  batch);
	// (what was sent, as dumped: no expiration, no copies of the set's
	// statements, which the kernel would add)
	xnft::RulesetModel model;
	for (const xnft::WireMsg &sent : msgs) {
		const xnft::WireMsg m = as_dumped(sent);
		REQUIRE(model.load_dump(m.type, m.family, m.attrs.data(), m.attrs.size()));
	}
	xnft::PrintOptions o;
	o.stateless = true;
	CHECK(xnft::print_ruleset(model, o) ==
	      "table bridge t {\n"
	      "\tset s {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\tflags interval,timeout\n"
	      "\t\tcounter\n"
	      "\t\telements = { 10.0.0.0/24 counter timeout 1m comment \"net\", "
	      "10.1.0.0-255.255.255.255 counter comment \"open\" }\n"
	      "\t}\n"
	      "\n"
	      "\tmap m {\n"
	      "\t\ttype ipv4_addr : verdict\n"
	      "\t\telements = { 10.0.0.1 comment \"ok\" : accept, 10.0.0.2 : drop }\n"
	      "\t}\n"
	      "}\n");
	o.json = true;
	o.stateless = false;
	xnft::Parser parser;
	const auto list = parser.parse_text("list ruleset");
	const std::string json = xnft::print_list(model, list.at(0), o);
	CHECK(json.find("{\"elem\": {\"val\": {\"prefix\": {\"addr\": \"10.0.0.0\", \"len\": 24}}, \"timeout\": 60, "
			"\"comment\": \"net\", \"counter\": {\"packets\": 1, \"bytes\": 2}}}") !=
	      std::string::npos);
	CHECK(json.find("[{\"elem\": {\"val\": \"10.0.0.1\", \"comment\": \"ok\"}}, {\"accept\": null}]") !=
	      std::string::npos);
}

TEST_CASE("xnft: monitor prints an element's comment as nft 1.0.6 does", "[xnft][elemcomment]")
{
	// what nft 1.0.6's monitor printed on Linux for the same elements: a
	// single field's ranges without their statements but an open one's
	// (netlink_event_range_cache keeps a start as a clone until its end
	// comes, not an open interval's), with their comments
	xnft::Batch batch;
	const auto msgs = compile("table bridge t {\n"
				  "set i { type ipv4_addr; flags interval; counter; elements = { 10.0.0.0/24 counter "
				  "comment \"net\", 10.2.0.0-255.255.255.255 counter comment \"open\" } }\n"
				  "set s { type ipv4_addr; counter; }\n"
				  "}\n"
				  "add element bridge t s { 10.0.0.5 counter comment \"five\" }\n",
				  batch);
	xnft::PrintOptions o;
	xnft::Monitor text(xnft::MonitorWhat{}, o);
	o.json = true;
	xnft::Monitor json(xnft::MonitorWhat{}, o);
	std::string printed, printed_json;
	for (const xnft::WireMsg &sent : msgs) {
		const xnft::WireMsg m = as_dumped(sent);
		printed += text.event(m.type, m.family, m.attrs.data(), m.attrs.size());
		printed_json += json.event(m.type, m.family, m.attrs.data(), m.attrs.size());
	}
	printed += text.flush();
	printed_json += json.flush();
	CHECK(printed.find("add element bridge t i { 10.0.0.0/24 comment \"net\" }\n"
			   "add element bridge t i { 10.2.0.0-255.255.255.255 counter packets 0 bytes 0 "
			   "comment \"open\" }\n") != std::string::npos);
	CHECK(printed.find("add element bridge t s { 10.0.0.5 counter packets 0 bytes 0 comment \"five\" }\n") !=
	      std::string::npos);
	CHECK(printed_json.find("{\"add\": {\"element\": {\"family\": \"bridge\", \"table\": \"t\", "
				"\"name\": \"s\", \"elem\": {\"set\": [{\"elem\": {\"val\": \"10.0.0.5\", "
				"\"comment\": \"five\", \"counter\": {\"packets\": 0, \"bytes\": 0}}}]}}}}") !=
	      std::string::npos);
}

TEST_CASE("xnft: an element's comment is parsed as nft 1.0.6 parses it", "[xnft][elemcomment]")
{
	const std::string head = "table bridge t {\nset s {\ntype ipv4_addr\nelements = { ";
	CHECK(parse_error(head + "10.0.0.1 comment \"a\" timeout 1s comment \"b\" }\n}\n}\n") ==
	      "4:46-56: You can only specify this once. This statement is duplicated.");
	CHECK(parse_error(head + "10.0.0.1 comment \"a\" counter }\n}\n}\n") ==
	      "4:35-41: syntax error, unexpected counter, expecting comma or '}'");
	CHECK(parse_error(head + "10.0.0.1 comment 12 }\n}\n}\n") ==
	      "4:31-32: syntax error, unexpected number, expecting string or quoted string or string with a "
	      "trailing asterisk");
	CHECK(parse_error(head + "10.0.0.1 comment accept }\n}\n}\n") ==
	      "4:31-36: syntax error, unexpected accept, expecting string or quoted string or string with a "
	      "trailing asterisk");
	CHECK(parse_error("define c = \"x\"\n" + head + "10.0.0.1 comment $c }\n}\n}\n") ==
	      "5:31-31: syntax error, unexpected '$', expecting string or quoted string or string with a "
	      "trailing asterisk");
	CHECK(parse_error(head + "10.0.0.1 comment \"" + std::string(129, 'x') + "\" }\n}\n}\n") ==
	      "4:31-161: comment too long, 128 characters maximum allowed");
	CHECK(parse_error(head + "10.0.0.1 comment \"" + std::string(128, 'x') + "\" }\n}\n}\n").empty());
	CHECK(parse_error(head + "10.0.0.1 comment lab }\n}\n}\n").empty());
}

// Through the core: the comments loaded into xb::nft::Ruleset and listed
// from its dumps, as `xnft list` lists them from xbridge (the core keeps an
// element's NFTA_SET_ELEM_USERDATA as it was sent).
TEST_CASE("xnft: element comments listed from the core's dumps", "[xnft][elemcomment]")
{
	xnft::test::Engine e;
	REQUIRE(e.load("table bridge t {\n"
		       "set s { type ipv4_addr; flags interval; elements = { 10.0.0.0/24 comment \"net\", "
		       "10.1.0.0-255.255.255.255 comment \"open\" } }\n"
		       "map m { type ipv4_addr : verdict; elements = { 10.0.0.1 comment \"ok\" : accept } }\n"
		       "}\n") == 0);
	xnft::RulesetModel model;
	xnft::test::dump_into(e.rs, model);
	const std::string listed = xnft::print_ruleset(model, xnft::PrintOptions{});
	CHECK(listed.find("elements = { 10.0.0.0/24 comment \"net\", 10.1.0.0-255.255.255.255 comment \"open\" }") !=
	      std::string::npos);
	CHECK(listed.find("elements = { 10.0.0.1 comment \"ok\" : accept }") != std::string::npos);
}
