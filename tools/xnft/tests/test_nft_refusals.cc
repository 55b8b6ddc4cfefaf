// test_nft_refusals.cc - a batch the ruleset refuses is reported as nft
// reports it: the core names the attribute at fault in each refusal, as
// nf_tables' NL_SET_BAD_ATTR does (a name, a handle, a position, one
// element of a list), every message of the batch is tried, and xnft points
// each refusal at the place in the input nft points it (refusal.h).
//
// The expected reports are nft 1.0.6's on Linux 6.1, taken from the test
// kernel (selftests/xbridge_nft.sh compares them there too).
//
// Userspace test code: exceptions and the standard library are fine here.
#include <catch2/catch.hpp>

#include <string>

#include "engine_load.h"
#include "refusal.h"

namespace {

using namespace xnft;

const char *const kState = R"(table bridge t {
	set s { type ipv4_addr; elements = { 10.0.0.1 } }
	counter k { }
	chain c { type filter hook forward priority 0; ip saddr @s counter name "k" jump d; }
	chain d { }
}
)";

// @text compiled by a compiler that knows the state (as nft's cache knows
// the kernel's) and applied as the module applies a batch: every message
// tried, each refusal reported as xnft prints it; then aborted. @refused
// counts them.
std::string refusals_of(xb::nft::Ruleset &rs, const std::string &text, int &refused)
{
	Parser state_parser;
	Batch state_batch;
	Compiler state_compiler(state_batch);
	for (auto &cmd : state_parser.parse_text(kState))
		state_compiler.compile(cmd);
	RulesetModel state;
	state.apply(state_batch);

	Parser parser;
	Batch batch;
	Compiler compiler(batch);
	compiler.learn(state);
	for (auto &cmd : parser.parse_text(text))
		compiler.compile(cmd);
	const std::vector<WireMsg> wire = encode_batch(batch);
	REQUIRE(wire.size() == batch.items().size());
	std::string out;
	auto apply_all = [&] {
		refused = 0;
		out.clear();
		for (size_t n = 0; n < wire.size(); n++) {
			const WireMsg &m = wire[n];
			xb::Extack ack;
			const int err = rs.apply(m.type, m.flags, m.family, m.attrs.data(), m.attrs.size(),
						 &ack);
			if (!err)
				continue;
			refused++;
			const auto *attrs = m.attrs.data();
			const auto *bad = static_cast<const uint8_t *>(ack.attr);
			Refusal r{int(n), -err, bad ? int(bad - 4 - attrs) : -1, ack.msg ? ack.msg : ""};
			if (bad)
				CHECK((bad > attrs && bad <= attrs + m.attrs.size()));
			const CacheNames names = CacheNames::of(compiler.tables());
			out += report_refusal(r, batch, wire, &names);
		}
	};
	apply_all();
	xb::Extack ack;
	if (!refused && rs.validate(&ack)) {
		// nf_tables' replay with each request validated (the module's)
		rs.abort();
		rs.validate_each_request();
		apply_all();
	}
	rs.abort();
	return out;
}

} // namespace

TEST_CASE("nft refusals: each at the attribute nf_tables names, where nft points it", "[nft][errors]")
{
	xb::nft::Ruleset rs;
	REQUIRE(rs.init(nullptr) == 0);
	Batch scratch;
	Compiler compiler(scratch);
	REQUIRE(load_text(rs, compiler, kState).err == 0);
	int refused = 0;

	SECTION("a set, a chain and an element in use or missing") {
		CHECK(refusals_of(rs, "delete set bridge t s", refused) ==
		      "Error: Could not process rule: Device or resource busy\n"
		      "delete set bridge t s\n"
		      "                    ^\n");
		CHECK(refusals_of(rs, "delete chain bridge t d", refused) ==
		      "Error: Could not process rule: Device or resource busy\n"
		      "delete chain bridge t d\n"
		      "                      ^\n");
		CHECK(refusals_of(rs, "delete element bridge t s { 10.0.0.1, 10.0.0.9 }",
				  refused) ==
		      "Error: Could not process rule: No such file or directory\n"
		      "delete element bridge t s { 10.0.0.1, 10.0.0.9 }\n"
		      "                                      ^^^^^^^^\n");
		CHECK(refusals_of(rs, "create element bridge t s { 10.0.0.3, 10.0.0.1 }",
				  refused) ==
		      "Error: Could not process rule: File exists\n"
		      "create element bridge t s { 10.0.0.3, 10.0.0.1 }\n"
		      "                                      ^^^^^^^^\n");
		CHECK(refusals_of(rs, "delete table bridge nosuch", refused) ==
		      "Error: Could not process rule: No such file or directory\n"
		      "delete table bridge nosuch\n"
		      "                    ^^^^^^\n");
	}
	SECTION("an ENOENT at a name nft recorded: a close name suggested (nft_cmd_enoent)") {
		// one letter off the state's table t
		CHECK(refusals_of(rs, "delete table bridge tt", refused) ==
		      "Error: No such file or directory; did you mean table \u2018t\u2019 in family "
		      "bridge?\n"
		      "delete table bridge tt\n"
		      "                    ^^\n");
		CHECK(refusals_of(rs, "flush table bridge tt", refused) ==
		      "Error: No such file or directory; did you mean table \u2018t\u2019 in family "
		      "bridge?\n"
		      "flush table bridge tt\n"
		      "                   ^^\n");
		CHECK(refused == 1);
	}
	SECTION("every message is tried: each refusal reported, in batch order") {
		const std::string out = refusals_of(rs,
			"add rule bridge t d meta mark 1 accept\n"
			"delete chain bridge t d\n"
			"add element bridge t s { 10.0.0.2 }\n"
			"create element bridge t s { 10.0.0.3, 10.0.0.1 }\n"
			"delete set bridge t s\n",
			refused);
		CHECK(refused == 3);
		CHECK(out ==
		      "Error: Could not process rule: Device or resource busy\n"
		      "delete chain bridge t d\n"
		      "                      ^\n"
		      "Error: Could not process rule: File exists\n"
		      "create element bridge t s { 10.0.0.3, 10.0.0.1 }\n"
		      "                                      ^^^^^^^^\n"
		      "Error: Could not process rule: Device or resource busy\n"
		      "delete set bridge t s\n"
		      "                    ^\n");
	}
	SECTION("a loop a base chain reaches: at each rule after it, as Linux's replay finds it") {
		// (nft's place for a whole command takes in its newline)
		const std::string out = refusals_of(rs,
			"add chain bridge t a\n"
			"add rule bridge t a jump d\n"
			"add rule bridge t d jump a\n"
			"add rule bridge t d meta mark 1 accept\n"
			"add element bridge t s { 10.0.0.7 }\n",
			refused);
		CHECK(refused == 3);
		CHECK(out ==
		      "Error: Could not process rule: Too many links\n"
		      "add rule bridge t d jump a\n"
		      "^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
		      "Error: Could not process rule: Too many links\n"
		      "add rule bridge t d meta mark 1 accept\n"
		      "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
		      "Error: Could not process rule: Too many links\n"
		      "add element bridge t s { 10.0.0.7 }\n"
		      "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n");
	}
	// nothing a refused batch held is left
	const LoadResult again = load_text(rs, compiler, "add element bridge t s { 10.0.0.2 }");
	CHECK(again.err == 0);
	rs.fini();
}
