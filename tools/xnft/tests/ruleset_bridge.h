// ruleset_bridge.h - a core bridge of three ports in the namespace of an
// nf_tables ruleset, as the module sets one up: the bridge device xbr0 and
// ports swp1..swp3 named for the meta keys, the ruleset the bridge's
// generation comes from. Shared by the tests that decide frames through a
// ruleset (test_bridge_nft.cc, test_bridge_flow.cc,
// test_nft_payload_write.cc).
//
// Ownership: a RulesetBridge owns its Ruleset; the bridge is detached from
// it and a grace period passes before the ruleset is torn down.
// Single-threaded userspace test code.
#pragma once
#include <catch2/catch.hpp>

#include <string>

#include "../../../core/tests/test_util.h"
#include "engine_load.h"
#include "nft_ruleset.h"

namespace xnft::test {

struct RulesetBridge : xbt::BridgeFixture {
	xb::nft::Ruleset rs;

	explicit RulesetBridge(bool filtering = false) : BridgeFixture(3, filtering)
	{
		REQUIRE(rs.init(nullptr) == 0);
		br->set_port_ifname(br->host(), "xbr0");
		br->set_port_ifname(p(1), "swp1");
		br->set_port_ifname(p(2), "swp2");
		br->set_port_ifname(p(3), "swp3");
		br->set_nft_ruleset(&rs);
	}
	~RulesetBridge()
	{
		br->set_nft_ruleset(nullptr);
		xb_synchronize_rcu();
		rs.fini();
	}

	// Compile @text with xnft and apply it as one batch: 0 or the errno.
	int load(const std::string &text)
	{
		const xnft::LoadResult r = xnft::load_text(rs, text);
		INFO(r.lang_error << r.msg);
		return r.err;
	}
};

} // namespace xnft::test
