// test_xnft_json.cc - xnft's JSON printing (json.h) and datatype values
// (value_json): what nft -j prints, where the corpus cannot show it (the
// host kernel refuses the rules, or the strings nft's language cannot write);
// and set elements with stateful expressions, which only packets create.
//
// Userspace test code.
#include <catch2/catch.hpp>

#include <libmnl/libmnl.h>
#include <libnftnl/expr.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <vector>

#include "compiler.h"
#include "datatypes.h"
#include "delinearize.h"
#include "json.h"
#include "printer.h"
#include "ruleset_model.h"

using xnft::Json;

TEST_CASE("xnft JSON prints as jansson's compact dump", "[xnft][json]")
{
	Json o = Json::object();
	o.set("a", Json::integer(-3));
	o.set("b", Json());
	Json arr = Json::array();
	arr.push(Json::boolean(true)).push(Json::string("x"));
	o.set("c", arr);
	o.set("a", Json::integer(4));  // replaced in place
	CHECK(o.dump() == R"({"a": 4, "b": null, "c": [true, "x"]})");
	CHECK(Json::array().dump() == "[]");
	CHECK(Json::object().dump() == "{}");
}

TEST_CASE("xnft JSON escapes strings as jansson does", "[xnft][json]")
{
	CHECK(Json::string("q\"b\\s/").dump() == R"("q\"b\\s/")");
	CHECK(Json::string("\t\n\r\b\f").dump() == R"("\t\n\r\b\f")");
	CHECK(Json::string(std::string("\x01\x1f", 2)).dump() == R"("\u0001\u001F")");
	CHECK(Json::string("caf\xc3\xa9").dump() == "\"caf\xc3\xa9\"");  // UTF-8 as is
	// nft -j lists `counter packets 18446744073709551615` as -1: jansson's
	// integers are signed and nft hands them its u64 as it is
	CHECK(Json::uinteger(~0ull).dump() == "-1");
	CHECK(Json::uinteger(uint64_t(INT64_MAX)).dump() == "9223372036854775807");
}

TEST_CASE("xnft values print as nft -j prints them", "[xnft][json]")
{
	using namespace xnft;
	const Bytes ct_est_rel = {6, 0, 0, 0};
	CHECK(flags_json(datatype(TYPE_CT_STATE), ByteOrder::Host, ct_est_rel, false).dump() ==
	      R"(["established", "related"])");
	CHECK(flags_json(datatype(TYPE_CT_STATE), ByteOrder::Host, ct_est_rel, true).dump() == "[2, 4]");
	CHECK(value_json(datatype(TYPE_CT_STATE), 32, ByteOrder::Host, {8, 0, 0, 0}, false).dump() == R"("new")");
	// ether types: names; -n prints what nft 1.0.6 prints, the value read
	// in host byte order
	CHECK(value_json(datatype(TYPE_ETHERTYPE), 16, ByteOrder::Big, {0x08, 0x06}, false).dump() == R"("arp")");
	CHECK(value_json(datatype(TYPE_ETHERTYPE), 16, ByteOrder::Big, {0x08, 0x06}, true).dump() == "1544");
	CHECK(value_json(datatype(TYPE_ETHERTYPE), 16, ByteOrder::Big, {0x12, 0x34}, false).dump() == "4660");
	CHECK(value_json(datatype(TYPE_MARK), 32, ByteOrder::Host, {0xff, 0, 0, 0}, false).dump() == "255");
	CHECK(value_json(datatype(TYPE_TIME), 64, ByteOrder::Host, {0x10, 0x27, 0, 0, 0, 0, 0, 0}, false).dump() ==
	      "10");
	CHECK(value_json(datatype(TYPE_IFNAME), 128, ByteOrder::Host, {'e', 't', 'h'}, false).dump() ==
	      R"("eth*")");
	CHECK(value_json(datatype(TYPE_INET_SERVICE), 16, ByteOrder::Big, {0, 22}, false).dump() == "22");
}

namespace {

// An element of key 127.0.0.1 as the kernel dumps one a set statement
// added (`update @s { ip daddr timeout 30s counter limit rate over
// 10/second }`): its counter's values, the limit, its timeout and what is
// left of it.
nftnl_set_elem *dynset_element(uint64_t timeout, uint64_t expires, bool limit)
{
	nftnl_set_elem *e = nftnl_set_elem_alloc();
	const uint8_t key[] = {127, 0, 0, 1};
	nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, sizeof(key));
	nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_TIMEOUT, timeout);
	nftnl_set_elem_set_u64(e, NFTNL_SET_ELEM_EXPIRATION, expires);
	nftnl_expr *c = nftnl_expr_alloc("counter");
	nftnl_expr_set_u64(c, NFTNL_EXPR_CTR_PACKETS, 5);
	nftnl_expr_set_u64(c, NFTNL_EXPR_CTR_BYTES, 420);
	nftnl_set_elem_add_expr(e, c);
	if (limit) {
		nftnl_expr *l = nftnl_expr_alloc("limit");
		nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_RATE, 10);
		nftnl_expr_set_u64(l, NFTNL_EXPR_LIMIT_UNIT, 1);
		nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_BURST, 5);
		nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_TYPE, NFT_LIMIT_PKTS);
		nftnl_expr_set_u32(l, NFTNL_EXPR_LIMIT_FLAGS, NFT_LIMIT_F_INV);
		nftnl_set_elem_add_expr(e, l);
	}
	return e;
}

nftnl_set *ipv4_set(bool map)
{
	nftnl_set *s = nftnl_set_alloc();
	nftnl_set_set_str(s, NFTNL_SET_NAME, map ? "m" : "s");
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_EVAL | NFT_SET_TIMEOUT | (map ? NFT_SET_MAP : 0));
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, xnft::TYPE_IPADDR);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 4);
	if (map) {
		nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, xnft::TYPE_MARK);
		nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, 4);
	}
	return s;
}

} // namespace

// What nft 1.0.6 listed of such elements on Linux 6.18 (list set, -s, -j).
TEST_CASE("xnft lists set elements' stateful expressions as nft 1.0.6", "[xnft][json]")
{
	using namespace xnft;
	nftnl_set *s = ipv4_set(false);
	nftnl_set_elem_add(s, dynset_element(30000, 29992, true));
	auto items = element_items(s, keyparts_of_set(s), nullptr, false, false);
	REQUIRE(items.size() == 1);
	CHECK(items[0].text == "127.0.0.1 counter packets 5 bytes 420 limit rate over 10/second "
			       "timeout 30s expires 29s992ms");
	// JSON: the first statement only
	CHECK(items[0].json.dump() == R"({"elem": {"val": "127.0.0.1", "timeout": 30, "expires": 29, )"
				      R"("counter": {"packets": 5, "bytes": 420}}})");
	items = element_items(s, keyparts_of_set(s), nullptr, false, false, true);
	CHECK(items[0].text == "127.0.0.1 counter limit rate over 10/second timeout 30s");
	CHECK(items[0].json.dump() == R"({"elem": {"val": "127.0.0.1", "timeout": 30, "expires": 29, )"
				      R"("counter": null}})");
	nftnl_set_free(s);

	nftnl_set *m = ipv4_set(true);
	nftnl_set_elem *e = dynset_element(60000, 59764, false);
	const uint8_t mark[] = {0, 0, 0, 0};
	nftnl_set_elem_set(e, NFTNL_SET_ELEM_DATA, mark, sizeof(mark));
	nftnl_set_elem_add(m, e);
	const KeyPart data = datapart_of_set(m);
	items = element_items(m, keyparts_of_set(m), &data, false, false);
	REQUIRE(items.size() == 1);
	CHECK(items[0].text == "127.0.0.1 counter packets 5 bytes 420 timeout 1m expires 59s764ms : 0x00000000");
	CHECK(items[0].json.dump() == R"([{"elem": {"val": "127.0.0.1", "timeout": 60, "expires": 59, )"
				      R"("counter": {"packets": 5, "bytes": 420}}}, 0])");
	nftnl_set_free(m);
}

// Elements with a connlimit (`add @s { ip saddr ct count over 2 }`, or a
// set's `elements = { 10.0.0.1 ct count over 2, 10.0.0.2 ct count 3 }`
// loaded into Linux): nft 1.0.6 listed them (family ip) as `10.0.0.1 ct
// count over 2, 10.0.0.2 ct count 3` and -j as {"elem": {"val":
// "10.0.0.1", "ct count": {"val": 2, "inv": true}}}: the member named
// "ct count", not as the expression.
TEST_CASE("xnft lists set elements' connlimits as nft 1.0.6", "[xnft][json]")
{
	using namespace xnft;
	nftnl_set *s = nftnl_set_alloc();
	nftnl_set_set_str(s, NFTNL_SET_NAME, "s");
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, NFT_SET_EVAL);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, TYPE_IPADDR);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, 4);
	auto element = [&](uint8_t last, uint32_t count, uint32_t flags, bool counter) {
		nftnl_set_elem *e = nftnl_set_elem_alloc();
		const uint8_t key[] = {10, 0, 0, last};
		nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, key, sizeof(key));
		if (counter) {
			nftnl_expr *c = nftnl_expr_alloc("counter");
			nftnl_expr_set_u64(c, NFTNL_EXPR_CTR_PACKETS, 5);
			nftnl_expr_set_u64(c, NFTNL_EXPR_CTR_BYTES, 420);
			nftnl_set_elem_add_expr(e, c);
		}
		nftnl_expr *l = nftnl_expr_alloc("connlimit");
		nftnl_expr_set_u32(l, NFTNL_EXPR_CONNLIMIT_COUNT, count);
		nftnl_expr_set_u32(l, NFTNL_EXPR_CONNLIMIT_FLAGS, flags);
		nftnl_set_elem_add_expr(e, l);
		nftnl_set_elem_add(s, e);
	};
	element(1, 2, NFT_CONNLIMIT_F_INV, false);
	element(2, 3, 0, false);
	element(3, 4294967295u, NFT_CONNLIMIT_F_INV, true);
	auto items = element_items(s, keyparts_of_set(s), nullptr, false, false);
	REQUIRE(items.size() == 3);
	CHECK(items[0].text == "10.0.0.1 ct count over 2");
	CHECK(items[0].json.dump() == R"({"elem": {"val": "10.0.0.1", "ct count": {"val": 2, "inv": true}}})");
	CHECK(items[1].text == "10.0.0.2 ct count 3");
	CHECK(items[1].json.dump() == R"({"elem": {"val": "10.0.0.2", "ct count": {"val": 3}}})");
	// JSON: the first statement only
	CHECK(items[2].text == "10.0.0.3 counter packets 5 bytes 420 ct count over 4294967295");
	CHECK(items[2].json.dump() == R"({"elem": {"val": "10.0.0.3", "counter": {"packets": 5, "bytes": 420}}})");
	// -s: a connlimit has nothing to leave out
	items = element_items(s, keyparts_of_set(s), nullptr, false, false, true);
	CHECK(items[0].text == "10.0.0.1 ct count over 2");
	CHECK(items[2].text == "10.0.0.3 counter ct count over 4294967295");
	nftnl_set_free(s);
}

// The same elements from a dump (NEWTABLE, NEWSET, NEWSETELEM as the
// kernel sends them): the model keeps their expressions.
TEST_CASE("xnft keeps dumped set elements' stateful expressions", "[xnft][json]")
{
	using namespace xnft;
	RulesetModel model;
	std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
	auto load = [&](uint16_t type, auto build) {
		nlmsghdr *h = nftnl_nlmsg_build_hdr(buf.data(), type, NFPROTO_BRIDGE, 0, 0);
		build(h);
		const auto *attrs = static_cast<const uint8_t *>(mnl_nlmsg_get_payload_offset(h, sizeof(nfgenmsg)));
		return model.load_dump(type, NFPROTO_BRIDGE, attrs,
				       h->nlmsg_len - static_cast<size_t>(attrs - reinterpret_cast<uint8_t *>(h)));
	};
	nftnl_table *t = nftnl_table_alloc();
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, "t");
	REQUIRE(load(NFT_MSG_NEWTABLE, [&](nlmsghdr *h) { nftnl_table_nlmsg_build_payload(h, t); }));
	nftnl_table_free(t);
	nftnl_set *s = ipv4_set(false);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, "t");
	nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, 65535);
	REQUIRE(load(NFT_MSG_NEWSET, [&](nlmsghdr *h) { nftnl_set_nlmsg_build_payload(h, s); }));
	nftnl_set_elem_add(s, dynset_element(30000, 29992, true));
	REQUIRE(load(NFT_MSG_NEWSETELEM, [&](nlmsghdr *h) { nftnl_set_elems_nlmsg_build_payload(h, s); }));
	nftnl_set_free(s);
	REQUIRE(model.tables.size() == 1);
	REQUIRE(model.tables[0].sets.size() == 1);
	CHECK(print_set(model.tables[0].sets[0], PrintOptions{}) ==
	      "\tset s {\n"
	      "\t\ttype ipv4_addr\n"
	      "\t\tsize 65535\n"
	      "\t\tflags dynamic,timeout\n"
	      "\t\telements = { 127.0.0.1 counter packets 5 bytes 420 limit rate over 10/second "
	      "timeout 30s expires 29s992ms }\n"
	      "\t}\n");
}
