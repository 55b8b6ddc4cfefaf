// batch.cc - batch items and their --debug=netlink dump (see batch.h).
#include "batch.h"

#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netlink.h>

namespace xnft {

Batch::~Batch()
{
	for (auto &i : items_) {
		if (i.table)
			nftnl_table_free(i.table);
		if (i.chain)
			nftnl_chain_free(i.chain);
		if (i.rule)
			nftnl_rule_free(i.rule);
		if (i.set)
			nftnl_set_free(i.set);
		if (i.flowtable)
			nftnl_flowtable_free(i.flowtable);
		if (i.obj)
			nftnl_obj_free(i.obj);
	}
}

void Batch::add_table(ItemKind k, nftnl_table *t, uint32_t family, uint16_t flags)
{
	BatchItem i{k, flags, family};
	i.table = t;
	items_.push_back(i);
}

void Batch::add_chain(ItemKind k, nftnl_chain *c, uint32_t family, uint16_t flags,
		      const std::string &table, const std::string &name, int policy)
{
	if (debug && k == ItemKind::NewChain) {
		nftnl_chain_fprintf(debug, c, 0, 0);
		fprintf(debug, "\n");
	}
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, table.c_str());
	if (!name.empty())
		nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name.c_str());
	if (policy >= 0)
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, static_cast<uint32_t>(policy));
	BatchItem i{k, flags, family};
	i.chain = c;
	items_.push_back(i);
}

void Batch::add_rule(ItemKind k, nftnl_rule *r, uint32_t family, uint16_t flags,
		     const Location &cmd_loc, const Location &ref_loc)
{
	if (debug && k == ItemKind::NewRule) {
		// nft puts a replace's handle straight into the message
		// (mnl_nft_rule_replace): its dump has none
		const bool replace = (flags & NLM_F_REPLACE) && nftnl_rule_is_set(r, NFTNL_RULE_HANDLE);
		const uint64_t handle = replace ? nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE) : 0;
		if (replace)
			nftnl_rule_unset(r, NFTNL_RULE_HANDLE);
		nftnl_rule_fprintf(debug, r, 0, 0);
		fprintf(debug, "\n");
		if (replace)
			nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
	}
	BatchItem i{k, flags, family};
	i.rule = r;
	i.cmd_loc = cmd_loc;
	i.ref_loc = ref_loc;
	items_.push_back(i);
}

void Batch::add_set(ItemKind k, nftnl_set *s, uint32_t family, uint16_t flags)
{
	if (debug && (k == ItemKind::NewSet || k == ItemKind::NewSetElems || k == ItemKind::DelSetElems)) {
		nftnl_set_fprintf(debug, s, 0, 0);
		fprintf(debug, "\n");
	}
	BatchItem i{k, flags, family};
	i.set = s;
	items_.push_back(i);
}

void Batch::add_flowtable(ItemKind k, nftnl_flowtable *f, uint32_t family, uint16_t flags,
			  const std::string &table, const std::string &name)
{
	if (debug && k == ItemKind::NewFlowtable) {
		nftnl_flowtable_fprintf(debug, f, 0, 0);
		fprintf(debug, "\n");
	}
	nftnl_flowtable_set_str(f, NFTNL_FLOWTABLE_TABLE, table.c_str());
	nftnl_flowtable_set_str(f, NFTNL_FLOWTABLE_NAME, name.c_str());
	BatchItem i{k, flags, family};
	i.flowtable = f;
	items_.push_back(i);
}

void Batch::add_obj(ItemKind k, nftnl_obj *o, uint32_t family, uint16_t flags,
		    const std::string &table, const std::string &name)
{
	if (debug && k == ItemKind::NewObj) {
		nftnl_obj_fprintf(debug, o, 0, 0);
		fprintf(debug, "\n");
	}
	nftnl_obj_set_str(o, NFTNL_OBJ_TABLE, table.c_str());
	if (!name.empty())
		nftnl_obj_set_str(o, NFTNL_OBJ_NAME, name.c_str());
	BatchItem i{k, flags, family};
	i.obj = o;
	items_.push_back(i);
}

void Batch::add_flush_ruleset(uint32_t family)
{
	BatchItem i{ItemKind::FlushRuleset, 0, family};
	items_.push_back(i);
}

} // namespace xnft
