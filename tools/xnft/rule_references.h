// rule_references.h - nft 1.0.6's rule cache, which resolves the references
// one rule command makes to another (evaluate.c: rule_cache_update,
// link_rules).
//
// When an input's `add rule` or `insert rule` names a position (`position
// H`, `handle H`) or an index (`index N`), and no `replace` follows it
// (nft_cache_evaluate sets the cache flags of a replace, not adds them,
// and loses the update flag), nft reads the kernel's rules
// and then keeps, in input order, every chain's rules as the input
// changes them: the rules of chain blocks, appended; each added or
// inserted rule where it goes; a replaced rule's new one in its place.
// Deletes leave this cache alone. Against it nft
//  - turns `index N` into a reference to the chain's N-th rule (from 0):
//    its handle when the rule is the kernel's, else an id the batch gives
//    that rule (NFTA_RULE_ID) and the referring rule names
//    (NFTA_RULE_POSITION_ID);
//  - refuses a position or a replace's handle that none of the cached
//    rules has: rules of this input have no handle yet, so only the
//    kernel's, and a replace's new rule (which takes the old one's), are
//    found. Those are nft's own "Could not process rule: No such file or
//    directory", before anything is sent.
// Without such a command nft keeps no rule cache: an index is ignored (the
// rule is added at the chain's end, inserted at its start), and the kernel
// alone judges positions and handles (RulesetModel does, offline), a
// rule of the same batch included.
//
// Ownership: a RuleReferences keeps pointers to the Rules of the commands
// it resolved; they must outlive it. Not thread-safe.
#pragma once
#include <cstdint>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "ast.h"

namespace xnft {

class RulesetModel;

// Does nft keep a rule cache for CMDS (an add or insert with a position
// or an index)? Then it reads the kernel's rules first.
bool references_rules(const std::vector<Command> &cmds);

class RuleReferences {
public:
	// What a rule's message says of its place, and whether nft refuses it.
	struct Link {
		uint64_t position = 0;     // NFTA_RULE_POSITION: a rule's handle
		uint32_t position_id = 0;  // NFTA_RULE_POSITION_ID: a rule of this batch
		uint32_t rule_id = 0;      // NFTA_RULE_ID: this rule, when another names it
		bool missing = false;      // the rule it names is not in the cache: ENOENT
	};

	// The rules of a ruleset that exists (the kernel's, with handles).
	void learn(const RulesetModel &m);
	// Goes through CMDS as nft evaluates them (nothing unless
	// references_rules(CMDS)).
	void resolve(const std::vector<Command> &cmds);
	// The link of R, one of the rules of the commands resolved; a rule
	// it does not know has none.
	Link link(const Rule &r) const;

private:
	struct CachedRule {
		uint64_t handle = 0;         // 0: added by this input
		const Rule *rule = nullptr;  // nullptr: the kernel's
	};
	using Chain = std::list<CachedRule>;

	void add_block_rules(const std::string &family, const std::string &table, const ChainDecl &c);
	void add_rule(const Command &cmd);
	void forget_table(const std::string &family, const std::string &table);
	// @cached's id, given to it on first use as nft's link_rules does
	uint32_t id_of(const CachedRule &cached);

	std::map<std::string, Chain> chains_;  // key: family, table, chain
	std::map<const Rule *, Link> links_;
	uint32_t last_id_ = 0;
};

} // namespace xnft
