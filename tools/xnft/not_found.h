// not_found.h - nft's words for a name it cannot find, with the
// misspelling it suggests: its evaluation's (evaluate.c's
// table_not_found, chain_not_found, set_not_found: plain "No such file or
// directory" when nothing is close), and the kernel's ENOENT at an
// attribute nft recorded a place for (cmd.c's nft_cmd_enoent: "Could not
// process rule: ..." when nothing is close).
//
// Values only: each function reads the tables it is given (the
// Compiler's view of nft's cache: the kernel's objects and the batch's)
// and keeps nothing.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ast.h"
#include "compiler.h"

namespace xnft {

class RulesetModel;
using TableMap = std::map<std::string, TableInfo>;  // key: family + " " + name

// The names nft's cache holds, in its order (the kernel's listing, then
// what the batch adds): where the misspellings are looked for.
struct CacheNames {
	struct Set {
		std::string name;
		bool is_map;
	};
	struct Table {
		std::string family, name;
		std::vector<std::string> chains;
		std::vector<Set> sets;
		std::vector<std::string> objects;	/* counters, quotas, limits */
		std::vector<std::string> flowtables;
	};
	std::vector<Table> tables;

	static CacheNames of(const TableMap &tables);
	static CacheNames of(const RulesetModel &model);
	bool has_table(const std::string &family, const std::string &name) const;
};

// The evaluation's complaints.
std::string table_not_found(const CacheNames &cache, const std::string &table);
std::string chain_not_found(const CacheNames &cache, const std::string &chain);
std::string set_not_found(const CacheNames &cache, const std::string &set);
std::string object_not_found(const CacheNames &cache, const std::string &object);
std::string flowtable_not_found(const CacheNames &cache, const std::string &flowtable);

// The kernel answered ENOENT to the command about @obj named @name (a
// chain, set, object or flowtable; the table's for Obj::Table) in
// @table. @at_table: nft points it at the command's table instead (its
// table_fuzzy_check: the table is not there, another close to it is).
struct KernelNotFound {
	std::string message;
	bool at_table = false;
};
KernelNotFound kernel_not_found(const CacheNames &cache, Obj obj, const std::string &family,
				const std::string &table, const std::string &name);

} // namespace xnft
