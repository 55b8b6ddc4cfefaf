// rule_references.cc - nft's rule cache for rule references (see
// rule_references.h).
#include "rule_references.h"

#include <libnftnl/rule.h>
#include <linux/netfilter.h>

#include "ruleset_model.h"

namespace xnft {

static std::string chain_key(const std::string &family, const std::string &table,
			     const std::string &chain)
{
	return family + " " + table + " " + chain;
}

// nft_cache_evaluate's NFT_CACHE_UPDATE: an add or insert with a position
// or an index sets it, and a replace (which sets the flags to
// NFT_CACHE_FULL, not or-ing them) clears what came before it.
bool references_rules(const std::vector<Command> &cmds)
{
	bool update = false;
	for (const Command &c : cmds) {
		if (c.verb == Verb::Replace)
			update = false;
		else if (c.obj == Obj::Rule && (c.verb == Verb::Add || c.verb == Verb::Insert) && c.rule &&
			 (c.rule->handle || c.rule->has_index))
			update = true;
	}
	return update;
}

void RuleReferences::learn(const RulesetModel &m)
{
	for (const ModelTable &t : m.tables) {
		if (t.family != NFPROTO_BRIDGE)
			continue;
		for (nftnl_rule *r : t.rules) {
			CachedRule cached;
			cached.handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
			chains_[chain_key("bridge", t.name, nftnl_rule_get_str(r, NFTNL_RULE_CHAIN))].push_back(cached);
		}
	}
}

void RuleReferences::resolve(const std::vector<Command> &cmds)
{
	if (!references_rules(cmds))
		return;
	for (const Command &cmd : cmds) {
		const bool adds = cmd.verb == Verb::Add || cmd.verb == Verb::Create;
		switch (cmd.obj) {
		case Obj::Ruleset:
			if (cmd.verb == Verb::Flush)
				forget_table(cmd.family, "");
			break;
		case Obj::Table:
			if (cmd.verb == Verb::Delete)
				forget_table(cmd.family, cmd.table);
			else if (adds)
				for (const ChainDecl &c : cmd.table_decl.chains)
					add_block_rules(cmd.family, cmd.table, c);
			break;
		case Obj::Chain:
			if (cmd.verb == Verb::Delete)
				chains_.erase(chain_key(cmd.family, cmd.table, cmd.chain));
			else if (adds && cmd.chain_decl)
				add_block_rules(cmd.family, cmd.table, *cmd.chain_decl);
			break;
		case Obj::Rule:
			if (cmd.rule && (cmd.verb == Verb::Add || cmd.verb == Verb::Insert ||
					 cmd.verb == Verb::Replace))
				add_rule(cmd);
			break;
		default:
			break;
		}
	}
}

RuleReferences::Link RuleReferences::link(const Rule &r) const
{
	auto it = links_.find(&r);
	return it == links_.end() ? Link{} : it->second;
}

void RuleReferences::add_block_rules(const std::string &family, const std::string &table,
				     const ChainDecl &c)
{
	Chain &chain = chains_[chain_key(family, table, c.name)];
	for (const Rule &r : c.rules) {
		CachedRule cached;
		cached.rule = &r;
		chain.push_back(cached);
	}
}

void RuleReferences::forget_table(const std::string &family, const std::string &table)
{
	const std::string prefix = family.empty() ? "" : table.empty() ? family + " " : family + " " + table + " ";
	for (auto it = chains_.begin(); it != chains_.end();)
		it = it->first.rfind(prefix, 0) == 0 ? chains_.erase(it) : std::next(it);
}

uint32_t RuleReferences::id_of(const CachedRule &cached)
{
	Link &l = links_[cached.rule];
	if (!l.rule_id)
		l.rule_id = ++last_id_;
	return l.rule_id;
}

// One add, insert or replace command, as rule_cache_update takes it.
void RuleReferences::add_rule(const Command &cmd)
{
	const Rule &r = *cmd.rule;
	Chain &chain = chains_[chain_key(cmd.family, cmd.table, cmd.chain)];
	Link &link = links_[&r];
	auto ref = chain.end();
	if (r.has_index) {
		// the index-th rule, counted from 0
		ref = chain.begin();
		for (uint64_t n = 0; ref != chain.end() && n < r.index; n++)
			++ref;
	} else if (r.handle) {
		for (ref = chain.begin(); ref != chain.end(); ++ref)
			if (ref->handle == r.handle)
				break;
	}
	const bool names_rule = r.has_index || r.handle;
	if (names_rule && ref == chain.end()) {
		link.missing = true;
		return;
	}
	if (r.has_index) {
		if (ref->handle)
			link.position = ref->handle;
		else
			link.position_id = id_of(*ref);
	}
	CachedRule self;
	self.rule = &r;
	if (cmd.verb == Verb::Replace) {
		// the new rule takes the old one's place and handle
		self.handle = r.handle;
		chain.insert(std::next(ref), self);
		chain.erase(ref);
	} else if (cmd.verb == Verb::Insert) {
		chain.insert(names_rule ? ref : chain.begin(), self);
	} else {
		chain.insert(names_rule ? std::next(ref) : chain.end(), self);
	}
}

} // namespace xnft
