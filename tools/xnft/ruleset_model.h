// ruleset_model.h - the ruleset as the kernel would hold it after a batch:
// tables with their chains, sets (elements attached), flowtables and rules,
// each a libnftnl object that went through a netlink message and back (as
// objects returned by a dump do). Handles and anonymous set names are
// assigned as nf_tables does (a per-table handle counter, "__set%d" ->
// lowest free number). This is what `xnft --list-offline` prints and what
// the xbridge family will return once it exists.
//
// Ownership: the model owns every object in it. Not thread-safe.
#pragma once
#include <linux/netlink.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "batch.h"

namespace xnft {

// A netlink message of @type around nf_tables attributes received from the
// kernel (a dump's or an event's), as libnftnl's nlmsg parsers want it.
struct ReceivedMsg {
	std::vector<char> buf;
	nlmsghdr *h;
	ReceivedMsg(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len);
};

struct ModelTable {
	nftnl_table *table = nullptr;
	std::string name;
	uint32_t family = 0;
	uint64_t handle = 0;
	uint64_t next_handle = 1;
	std::vector<nftnl_chain *> chains;
	std::vector<nftnl_set *> sets;
	std::vector<nftnl_flowtable *> flowtables;
	std::vector<nftnl_obj *> objs;    // named objects (counters, quotas, limits), in handle order
	std::vector<nftnl_rule *> rules;  // all chains, in chain order then position
};

// A new set with @s's attributes and no elements (the caller frees it);
// @s's elements appended to @to.
nftnl_set *set_header_copy(nftnl_set *s, uint32_t family);
void set_elements_copy(nftnl_set *from, nftnl_set *to);

// A batch item nf_tables refuses: its index in the batch's items, the
// errno, and where nft points its "Could not process rule: ..." (the
// item's command, or its handle or position when the kernel names that
// attribute).
struct RefusedItem {
	size_t item;
	int err;
	Location where;
};

// A chain a batch renames (`rename chain`), by its table and handle.
struct ChainRename {
	uint32_t family;
	std::string table;
	uint64_t handle;
	std::string name;	// the new one
};

class RulesetModel {
public:
	RulesetModel() = default;
	RulesetModel(const RulesetModel &) = delete;
	RulesetModel &operator=(const RulesetModel &) = delete;
	~RulesetModel();

	// Applies a batch as the kernel would commit it, and returns what the
	// kernel would refuse in it (every such item, as nfnetlink reports
	// each). When something is refused the kernel commits nothing, but
	// the model is left as the batch made it: the caller discards it.
	//
	// Rules as nf_tables places them (nf_tables_newrule): an add after
	// the rule its position (NFTA_RULE_POSITION, a handle, or
	// NFTA_RULE_POSITION_ID, a rule of this batch) names, else at the
	// chain's end; an insert before it, else at the chain's start; a
	// replace (NLM_F_REPLACE with a handle) in its rule's place, keeping
	// its handle. A rule deleted by the batch stays in its chain until the
	// commit, as in the kernel: a position may still name it, a delete or
	// replace of it is ENOENT.
	std::vector<RefusedItem> apply(const Batch &b);
	// apply() as nf_tables commits: when nothing is refused, the result
	// is validated (nf_tables_validate: jumps from a base chain may not
	// nest 16 deep, so a loop one reaches is EMLINK); when that fails the
	// batch is applied again to an empty model, as nf_tables replays it,
	// each rule and element item then validating its table and keeping
	// what it applied, so that the rule closing a loop and every later
	// rule or element item of its table are refused. For a model that
	// starts empty (--list-offline).
	std::vector<RefusedItem> commit(const Batch &b);
	// Adds one object of a dump (a NEWTABLE, NEWCHAIN, NEWRULE, NEWSET,
	// NEWSETELEM, NEWFLOWTABLE or NEWOBJ message's attributes, as nf_tables or the
	// xbridge family sends them), in dump order: tables first, then each
	// table's objects. False if libnftnl cannot parse it or its table is
	// unknown.
	bool load_dump(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len);
	// A table, or one set of a table, deleted (a monitor's notification).
	void remove_table(uint32_t family, const std::string &name);
	void remove_set(ModelTable &t, const std::string &name);
	void remove_obj(ModelTable &t, uint32_t type, const std::string &name);
	std::vector<ModelTable> tables;

private:
	ModelTable *find_table(uint32_t family, const std::string &name);
	void clear_table(ModelTable &t);
	// A rule command of a batch (NEWRULE, DELRULE) applied to @t.
	int place_rule(ModelTable &t, const BatchItem &i, nftnl_rule *r,
		       std::map<uint32_t, uint64_t> &batch_rules, bool &at_reference);
	int delete_rule(ModelTable &t, const BatchItem &i, bool &at_reference);
	int note_rename(ModelTable &t, const BatchItem &i, std::vector<ChainRename> &renames);
	void apply_rename(const ChainRename &r);
	// The first rule of @chain with @handle, deleted by this batch or not.
	std::vector<nftnl_rule *>::iterator rule_by_handle(ModelTable &t, const std::string &chain,
							   uint64_t handle);
	std::vector<nftnl_rule *>::iterator chain_start(ModelTable &t, const std::string &chain);
	std::vector<nftnl_rule *>::iterator chain_end(ModelTable &t, const std::string &chain);
	bool removed_in_batch(const nftnl_rule *r) const { return removed_.count(r) != 0; }
	bool chain_in_use(ModelTable &t, const std::string &chain) const;
	bool table_valid(ModelTable &t) const;
	bool validate_each_ = false;  // commit()'s replay
	bool set_in_use(ModelTable &t, const std::string &set) const;
	bool obj_in_use(ModelTable &t, uint32_t type, const std::string &name) const;
	// Frees the rules this batch deleted (at its end, as the commit does).
	void purge_removed_rules();
	uint64_t next_table_handle_ = 1;
	std::set<const nftnl_rule *> removed_;  // rules deleted by the batch being applied
};

} // namespace xnft
