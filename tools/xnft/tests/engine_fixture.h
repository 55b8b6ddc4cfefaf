// engine_fixture.h - the rule engine's test fixture: an xb::nft::Ruleset
// loaded with nft text through engine_load.h, frames from two bridge ports
// run through one hook of its generation, and the ruleset's objects looked
// up by name. Shared by the engine's tests (test_nft_engine.cc,
// test_nft_concat.cc; test_bridge_nft.cc reads its bridge's counters with
// rule_packets). Userspace test code.
//
// Ownership: an Engine owns its Ruleset and the one Compiler that compiles
// every load (later loads refer to objects of earlier ones, as nft's cache
// of the kernel's ruleset lets them). A Frame owns its bytes; its Pkt points
// into them and at the static ports below. Single-threaded; run() holds the
// RCU read side as the datapath does.
#pragma once
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "../../../core/tests/ct_frames.h"
#include "engine_load.h"
#include "nft_dump.h"
#include "nft_eval.h"
#include "nft_ruleset.h"
#include "ruleset_model.h"

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>

namespace xnft::test {

constexpr uint8_t kPacketOtherhost = 3;

// Two ports of bridge xbr0: frames come in on the first and go out of the
// second unless a test says otherwise.
inline xb::nft::IfInfo port_a{11, "swp1", 1, 0, "xbr0", nullptr};
inline xb::nft::IfInfo port_b{12, "swp2", 1, 0, "xbr0", nullptr};

// A ruleset's objects by name (a test fails without them), and the packets
// counted by the first counter of rule @index of a chain: for any Ruleset,
// an Engine's or a bridge's.
inline const xb::nft::TableObj &table_named(xb::nft::Ruleset &rs, const char *name)
{
	for (const xb::nft::TableObj &t : rs.tables())
		if (!strcmp(t.name, name))
			return t;
	FAIL("no table " << name);
	throw 0;
}

inline const xb::nft::ChainObj &chain_named(xb::nft::Ruleset &rs, const char *table_name,
					    const char *name)
{
	for (const xb::nft::ChainObj &c : table_named(rs, table_name).chains)
		if (!strcmp(c.name, name))
			return c;
	FAIL("no chain " << name);
	throw 0;
}

inline uint64_t rule_packets(xb::nft::Ruleset &rs, const char *t, const char *c, unsigned index)
{
	unsigned i = 0;
	for (const xb::nft::RuleObj &r : chain_named(rs, t, c).rules)
		if (i++ == index) {
			REQUIRE(r.code.count_counters > 0);
			uint64_t pk, by;
			xb::nft::counter_read(*r.code.counters[0], pk, by);
			return pk;
		}
	FAIL("no rule " << index);
	return 0;
}

struct Engine {
	xb::nft::Ruleset rs;
	Batch first;
	Compiler compiler{first};

	Engine() { REQUIRE(rs.init(nullptr) == 0); }
	~Engine() { rs.fini(); }

	// Compile @text and apply it as one batch. Returns 0 or the errno
	// (negative) of the request or commit that failed; @msg gets the
	// extack message (without @msg, a refusal is reported as a warning).
	// With @fresh, a compiler that knows nothing compiles it: xnft then
	// sends what the ruleset itself must refuse (nft's cache would have
	// caught it).
	int load(const std::string &text, std::string *msg = nullptr, bool fresh = false)
	{
		Batch scratch;
		Compiler fresh_compiler(scratch);
		const LoadResult r = load_text(rs, fresh ? fresh_compiler : compiler, text);
		if (!r.lang_error.empty())
			FAIL("xnft refused the ruleset: " << r.lang_error);
		if (msg)
			*msg = r.msg;
		else if (r.err)
			WARN("refused: " << r.err << " " << r.msg);
		return r.err;
	}

	// The verdict of the chains at @hook for @p (accept with no ruleset).
	int32_t run(unsigned hook, xb::nft::Pkt &p)
	{
		xb::RcuReadGuard rcu;
		const xb::nft::Generation *g = rs.generation();
		if (!g)
			return xb::nft::kNfAccept;
		return xb::nft::run_hook(g->hooks[hook], p);
	}

	const xb::nft::TableObj &table(const char *name) { return table_named(rs, name); }
	const xb::nft::ChainObj &chain(const char *table_name, const char *name)
	{
		return chain_named(rs, table_name, name);
	}
	uint64_t packets(const char *t, const char *c, unsigned index)
	{
		return rule_packets(rs, t, c, index);
	}
	// The live elements of set @name in any table, or ~0u if there is none.
	uint32_t set_size(const char *name)
	{
		for (const xb::nft::TableObj &t : rs.tables())
			for (const xb::nft::SetObj &s : t.sets)
				if (!strcmp(s.name, name))
					return s.elems.live_count();
		return ~0u;
	}
};

// A frame as the bridge hands it to a hook: otherhost, from @in to @out,
// with the VLAN tag @vlan (0: none) taken off the frame into the metadata.
struct Frame {
	ctf::Bytes bytes;
	xb::nft::Pkt pkt{};

	explicit Frame(ctf::Bytes b, const xb::nft::IfInfo *in = &port_a,
		       const xb::nft::IfInfo *out = &port_b, uint16_t vlan = 0)
		: bytes(std::move(b))
	{
		pkt.frame = bytes.data();
		pkt.len = uint32_t(bytes.size());
		pkt.in = in;
		pkt.out = out;
		pkt.pkttype = kPacketOtherhost;
		if (vlan) {
			pkt.band_tag_len = 4;
			pkt.vlan_present = true;
			pkt.vlan_proto = 0x8100;
			pkt.vlan_tci = vlan;
		}
		xb::nft::pkt_init(pkt);
	}
};

// The ruleset as the family dumps it: every object's NFTA_* attributes,
// in the order xnft's cache asks for them, from dump_next (what the
// family's dumpit runs) through libnftnl's parsers into a model the
// printer prints.
inline void dump_kind(const xb::nft::Ruleset &rs, uint16_t get_type, xnft::RulesetModel &model, size_t cap)
{
	unsigned long pos[xb::nft::kDumpPosLen] = {};
	std::vector<uint8_t> buf(cap);
	for (;;) {
		xb::nft::AttrWriter w(buf.data(), buf.size());
		uint16_t type = 0;
		const long n = xb::nft::dump_next(rs, get_type, nullptr, pos, w, &type);
		REQUIRE(n >= 0);
		if (n == 0)
			break;
		REQUIRE(model.load_dump(type, xb::nft::kFamilyBridge, buf.data(), size_t(n)));
	}
}

inline void dump_into(const xb::nft::Ruleset &rs, xnft::RulesetModel &model)
{
	dump_kind(rs, xb::nft::kMsgGetTable, model, 1 << 16);
	dump_kind(rs, xb::nft::kMsgGetChain, model, 1 << 16);
	dump_kind(rs, xb::nft::kMsgGetSet, model, 1 << 16);
	dump_kind(rs, xb::nft::kMsgGetSetElem, model, 600);	// the elements come in several parts
	dump_kind(rs, xb::nft::kMsgGetFlowtable, model, 1 << 16);
	dump_kind(rs, xb::nft::kMsgGetObj, model, 1 << 16);
	dump_kind(rs, xb::nft::kMsgGetRule, model, 1 << 16);
}

// Call @fn(et) for each element of set @set of table @table as a
// GETSETELEM dump lists it (@et: its NFTA_SET_ELEM_* attributes), the
// dump in messages of @cap bytes.
template <typename Fn>
void for_each_dumped_elem(const xb::nft::Ruleset &rs, const char *table, const char *set, Fn fn,
			  size_t cap = 1 << 14)
{
	using namespace xb::nft;
	unsigned long pos[kDumpPosLen] = {};
	std::vector<uint8_t> buf(cap);
	for (int guard = 0; guard < 100000; guard++) {
		AttrWriter w(buf.data(), buf.size());
		uint16_t type = 0;
		const long n = dump_next(rs, kMsgGetSetElem, table, pos, w, &type);
		REQUIRE(n >= 0);
		if (n == 0)
			return;
		Attr tb[kSetElemListElements + 1];
		REQUIRE(parse_attrs(buf.data(), size_t(n), tb, kSetElemListElements));
		char name[kNameMax];
		REQUIRE(attr_string(tb[kSetElemListSet], name, sizeof(name)));
		if (strcmp(name, set))
			continue;
		AttrWalker walk(tb[kSetElemListElements]);
		uint16_t t;
		Attr el;
		while (walk.next(t, el)) {
			Attr et[kSetElemExpressions + 1];
			REQUIRE(parse_nested(el, et, kSetElemExpressions));
			fn(et);
		}
	}
	FAIL("the element dump did not end");
}

// One nf_tables message of @type whose nlmsghdr @build fills (header and
// attributes after the nfgenmsg), applied as a batch of its own and
// committed, or aborted when it fails: its error, and extack's message in
// @msg.
inline int apply_raw(xb::nft::Ruleset &rs, uint16_t type,
		     const std::function<void(nlmsghdr *)> &build, std::string *msg = nullptr)
{
	std::vector<uint8_t> buf(8192);
	nlmsghdr *h = reinterpret_cast<nlmsghdr *>(buf.data());
	h->nlmsg_len = NLMSG_LENGTH(sizeof(nfgenmsg));
	build(h);
	const size_t off = NLMSG_LENGTH(sizeof(nfgenmsg));
	xb::Extack ack;
	int err = rs.apply(type, xb::nft::kNlmFCreate | xb::nft::kNlmFAppend,
			   xb::nft::kFamilyBridge, buf.data() + off, h->nlmsg_len - off, &ack);
	if (!err)
		err = rs.commit(&ack);
	else
		rs.abort();
	if (msg)
		*msg = ack.msg ? ack.msg : "";
	return err;
}

inline int apply_raw(Engine &e, uint16_t type, const std::function<void(nlmsghdr *)> &build,
		     std::string *msg = nullptr)
{
	return apply_raw(e.rs, type, build, msg);
}

// A NEWRULE for chain @chain of bridge table @table from libnftnl
// expressions, as a raw netlink client (not nft) may send it.
inline int add_raw_rule(xb::nft::Ruleset &rs, const char *table, const char *chain,
			const std::function<void(nftnl_rule *)> &add_exprs)
{
	return apply_raw(rs, xb::nft::kMsgNewRule, [&](nlmsghdr *h) {
		nftnl_rule *r = nftnl_rule_alloc();
		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, table);
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
		nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_BRIDGE);
		add_exprs(r);
		nftnl_rule_nlmsg_build_payload(h, r);
		nftnl_rule_free(r);
	});
}

inline int add_raw_rule(Engine &e, const char *table, const char *chain,
			const std::function<void(nftnl_rule *)> &add_exprs)
{
	return add_raw_rule(e.rs, table, chain, add_exprs);
}

// An exthdr expression's attributes as a raw netlink client may send them,
// for the tests of the family's validation: the registers and the type
// present or not, the numbers left out when -1.
struct RawExthdr {
	bool has_type = true;
	uint8_t type = 0;
	bool sreg = false, dreg = false;
	uint32_t sreg_num = NFT_REG_1, dreg_num = NFT_REG_1;
	int64_t offset = -1, len = -1, flags = -1, op = -1;
};

// The exthdr as libnftnl builds it from @a (the caller adds it to a rule,
// which frees it).
inline nftnl_expr *raw_exthdr(const RawExthdr &a)
{
	nftnl_expr *x = nftnl_expr_alloc("exthdr");
	if (a.sreg)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_SREG, a.sreg_num);
	if (a.dreg)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_DREG, a.dreg_num);
	if (a.has_type)
		nftnl_expr_set_u8(x, NFTNL_EXPR_EXTHDR_TYPE, a.type);
	if (a.offset >= 0)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OFFSET, uint32_t(a.offset));
	if (a.len >= 0)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_LEN, uint32_t(a.len));
	if (a.flags >= 0)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_FLAGS, uint32_t(a.flags));
	if (a.op >= 0)
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OP, uint32_t(a.op));
	return x;
}

} // namespace xnft::test
