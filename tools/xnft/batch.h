// batch.h - the libnftnl objects one xnft run produces, in the order nft
// would put them in its netlink batch, and nft's --debug=netlink dump of
// each (what `nft --debug=netlink` prints as it builds the batch).
//
// Ownership: a Batch owns its libnftnl objects and frees them on
// destruction. Not thread-safe.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "diagnostics.h"

struct nftnl_table;
struct nftnl_chain;
struct nftnl_rule;
struct nftnl_set;
struct nftnl_flowtable;
struct nftnl_obj;

namespace xnft {

enum class ItemKind {
	NewTable, DelTable, FlushTable,
	NewChain, DelChain, FlushChain,
	NewRule, DelRule,
	NewSet, DelSet, FlushSet,
	NewSetElems, DelSetElems,
	NewFlowtable, DelFlowtable,
	NewObj, DelObj,
	FlushRuleset,
};

struct BatchItem {
	ItemKind kind;
	uint16_t nlflags = 0;   // NLM_F_CREATE / NLM_F_EXCL / NLM_F_APPEND / NLM_F_REPLACE
	uint32_t family = 0;
	nftnl_table *table = nullptr;
	nftnl_chain *chain = nullptr;
	nftnl_rule *rule = nullptr;
	nftnl_set *set = nullptr;
	nftnl_flowtable *flowtable = nullptr;
	nftnl_obj *obj = nullptr;
	// Where nft points the kernel's complaints (tools/xnft/refusal.h):
	// at the attribute the kernel names, where nft recorded one for it
	// (cmd_add_loc) - the item's table, its name (a rule's: its chain),
	// its handle, a rule's handle or position (ref_loc), each element in
	// message order - and else at the command (cmd_loc). Invalid: none.
	Location cmd_loc{}, ref_loc{};
	Location table_loc{}, name_loc{}, handle_loc{};
	std::vector<Location> elem_locs{};
};

class Batch {
public:
	Batch() = default;
	Batch(const Batch &) = delete;
	Batch &operator=(const Batch &) = delete;
	~Batch();

	// When DEBUG is set, each object is dumped to it as it is added,
	// exactly as nft's netlink_dump_* functions print it.
	FILE *debug = nullptr;

	void add_table(ItemKind k, nftnl_table *t, uint32_t family, uint16_t flags);
	// The chain is dumped before TABLE, NAME and POLICY are attached (nft
	// puts those straight into the netlink message).
	void add_chain(ItemKind k, nftnl_chain *c, uint32_t family, uint16_t flags,
		       const std::string &table, const std::string &name, int policy);
	void add_rule(ItemKind k, nftnl_rule *r, uint32_t family, uint16_t flags,
		      const Location &cmd_loc = {}, const Location &ref_loc = {});
	void add_set(ItemKind k, nftnl_set *s, uint32_t family, uint16_t flags);
	void add_flowtable(ItemKind k, nftnl_flowtable *f, uint32_t family, uint16_t flags,
			   const std::string &table, const std::string &name);
	// A named object (counter); dumped before TABLE and NAME are set, as
	// nft's netlink_dump_obj prints it.
	void add_obj(ItemKind k, nftnl_obj *o, uint32_t family, uint16_t flags,
		     const std::string &table, const std::string &name);
	void add_flush_ruleset(uint32_t family);

	const std::vector<BatchItem> &items() const { return items_; }
	// The item added last, to record where its parts stand.
	BatchItem &last() { return items_.back(); }

private:
	std::vector<BatchItem> items_;
};

} // namespace xnft
