// test_xnft_json.cc - xnft's JSON printing (json.h) and datatype values
// (value_json): what nft -j prints, where the corpus cannot show it (the
// host kernel refuses the rules, or the strings nft's language cannot write).
//
// Userspace test code.
#include <catch2/catch.hpp>

#include "datatypes.h"
#include "json.h"

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
	CHECK(Json::uinteger(~0ull).dump() == "9223372036854775807");
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
