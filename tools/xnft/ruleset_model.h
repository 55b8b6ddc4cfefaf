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

class RulesetModel {
public:
	RulesetModel() = default;
	RulesetModel(const RulesetModel &) = delete;
	RulesetModel &operator=(const RulesetModel &) = delete;
	~RulesetModel();

	// Applies a batch as the kernel would commit it.
	void apply(const Batch &b);
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
	uint64_t next_table_handle_ = 1;
};

} // namespace xnft
