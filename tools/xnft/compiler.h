// compiler.h - turns parsed Commands into libnftnl objects in a Batch,
// following nft's rules: implied protocol dependencies, byte order, bitwise
// for flag sets and bit fields, ifname padding, interface names resolved to
// ifindexes, anonymous sets and maps, interval segments.
//
// Ownership: the Compiler keeps the names of the tables, chains, sets and
// flowtables the run declares (to check references); the Batch it writes
// to belongs to the caller. Not thread-safe.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ast.h"
#include "batch.h"
#include "datatypes.h"
#include "rule_references.h"

struct nftnl_rule;
struct nftnl_set;

namespace xnft {

class RulesetModel;
struct Element;

// One component of a set key or of a loaded value.
struct KeyPart {
	const DataType *type;
	unsigned bits;     // bits of the value as the user writes it
	ByteOrder order;
	unsigned bytes;    // bytes in the register
	unsigned shift = 0; // bit fields: the value's left shift in the register
};

struct SetInfo {
	std::string name;
	uint32_t flags = 0;
	std::vector<KeyPart> key;
	bool is_map = false;
	bool verdict_map = false;
	KeyPart data{};
	uint32_t id = 0;
	uint64_t timeout_ms = 0;   // the set's default timeout (NFTA_SET_TIMEOUT)
	// An object map (NFT_SET_OBJECT, not a map to the kernel's lookups):
	// the NFT_OBJECT_* its elements name (NFTA_SET_OBJ_TYPE), 0 otherwise.
	uint32_t objtype = 0;
	std::map<Bytes, std::string> objrefs;  // its elements' keys -> the objects they name
	// the kinds of its own statements (`set s { ...; counter; }`), in
	// order, as nft names them: "counter", "limit", "quota", "connlimit"
	std::vector<std::string> stmts;
	// The kernel refuses the set itself: nft's evaluation knows it all
	// the same, the kernel's lookups of it find nothing (ENOENT).
	bool refused = false;
};

struct TableInfo {
	std::map<std::string, uint64_t> chains;  // name -> the kernel's handle (0: added by this batch)
	std::map<std::string, SetInfo> sets;
	std::map<std::string, bool> flowtables;
	std::map<std::string, bool> counters;  // named counter objects
	std::map<std::string, bool> quotas;    // named quota objects
	std::map<std::string, bool> limits;    // named limit objects
	// The names of the objects of an NFT_OBJECT_* type.
	std::map<std::string, bool> &objects(uint32_t type)
	{
		return type == kObjectQuota ? quotas : type == kObjectLimit ? limits : counters;
	}
	// How many elements of named object maps name an object ("TYPE
	// NAME"): the kernel refuses to delete one in use (EBUSY).
	std::map<std::string, int> obj_use;
	static std::string obj_key(uint32_t type, const std::string &name)
	{
		return std::to_string(type) + " " + name;
	}
	// SET's elements ELEMS added (named objects counted once a key).
	void use_objects(SetInfo &set, const std::vector<Element> &elems);
	// All of SET's elements gone (delete or flush of the set).
	void release_objects(SetInfo &set)
	{
		for (auto &[k, name] : set.objrefs)
			obj_use[obj_key(set.objtype, name)]--;
		set.objrefs.clear();
	}
};

// Where evaluation errors go when compiling goes on after them, as nft's
// evaluation does (nft_evaluate): every failing command adds one (a table
// or chain block's chains, objects, sets, flowtables and rules count one
// each, as nft expands them into commands before evaluating), and
// evaluation stops once the count reaches nft's limit. What the kernel
// would refuse is kept apart: nft learns it only from a batch it sends,
// after an evaluation without errors.
struct EvaluationErrors {
	std::vector<LangError> errors;
	// A refusal found here that the kernel would make: the error, and how
	// many batch items came before the command (where the kernel's
	// refusals of the other items fall around it).
	struct KernelRefusal {
		LangError error;
		size_t at_item;
		// A rule the kernel refuses when it validates the rules of its
		// table ("FAMILY TABLE"; "" for any other refusal), which it does
		// only when nothing else in the batch is refused (its commit
		// replays the batch, validating the table as each rule is added:
		// every rule added to the table after this one is refused too)
		std::string validated_table;
	};
	std::vector<KernelRefusal> kernel_refusals;
	size_t items_so_far = 0;  // the batch's items when the command started
	unsigned count = 0;   // nft's nerrs: it starts at the parser's count
	unsigned limit = 10;  // nft's parser_max_errors
	// Notes ERR; false once evaluation must stop.
	bool note(const LangError &err)
	{
		if (is_kernel_refusal(err)) {
			kernel_refusals.push_back({err, items_so_far, {}});
			return true;
		}
		errors.push_back(err);
		return ++count != limit;
	}
};

class Compiler {
public:
	explicit Compiler(Batch &b) : batch_(&b) {}
	// Know the objects of a ruleset that exists already (the kernel's, as
	// nft's cache knows them), so commands may refer to them.
	void learn(const RulesetModel &m);
	// Compile the next commands into @b, keeping what earlier ones declared
	// (the tables, chains and sets a later batch may refer to).
	void retarget(Batch &b) { batch_ = &b; }
	// Learn, before compiling them, where CMDS' rules that name another
	// go (RuleReferences), and which sets CMDS' set statements
	// (`add @s { ... }` without data) update: nft marks every set the
	// input declares and a set statement refers to with NFT_SET_EVAL
	// (`flags dynamic`) before it sends the set (stmt_evaluate_set).
	// compile() learns this of its own command (a table block's sets and
	// rules) by itself.
	void prepare(const std::vector<Command> &cmds);
	// Compiles CMD into the batch; throws LangError with nft's message.
	void compile(const Command &cmd);
	// Compiles CMD into the batch, noting its errors in ERRORS, a block's
	// items each on its own; false once nft would evaluate no further.
	bool compile(const Command &cmd, EvaluationErrors &errors);
	// `get element`: LIT's elements typed as the set CMD names wants
	// them (nft's segments for an interval set), as `delete element`
	// types them; @si gets the set's description. The table and set
	// must be known (learn()).
	std::vector<Element> get_request(const Command &cmd, const Expr &lit, SetInfo &si);
	// The tables as nft's cache holds them after the commands so far.
	const std::map<std::string, TableInfo> &tables() const { return tables_; }

private:
	void table(const Command &cmd);
	void rename_chain(const Command &cmd);
	// Compiles one item of an expanded block: with an EvaluationErrors
	// at hand its error is noted there (StopEvaluation once nft would
	// stop), else thrown.
	template <class Compile> void expanded_item(Compile &&compile_item);
	void chain(const std::string &family, const std::string &table, const ChainDecl &c,
		   Verb verb);
	void set(const std::string &family, const std::string &table, const SetDecl &s, Verb verb);
	void flowtable(const std::string &family, const std::string &table,
		       const FlowtableDecl &f, Verb verb);
	// @cmd_loc: a rule command's whole (where nft points the kernel's
	// complaints), invalid for a block's rules
	void rule(const std::string &family, const std::string &table, const std::string &chain,
		  const Rule &r, Verb verb, const Location &chain_loc, const Location &cmd_loc = {});
	void object(const std::string &family, const std::string &table, const ObjectDecl &c,
		    Verb verb);
	void elements(const std::string &family, const std::string &table, const SetInfo &si,
		      const Expr &lit, bool add, bool exclusive);
	void note_set_statements(const Command &c);
	void locate(const Command &cmd, const Location &name);
	// What the kernel refuses: noted as such when compile(cmd, errors)
	// runs (the kernel answers every message of the batch), else thrown.
	// @validated_table: KernelRefusal's
	void kernel_refusal(const LangError &err, const std::string &validated_table = "");
	TableInfo &table_info(const std::string &family, const std::string &table,
			      const Location &loc);
	// @cmd's table, which nft's evaluation looks up in its cache
	// (table_not_found when it is not there).
	TableInfo &evaluated_table(const Command &cmd);
	// @cmd's table, which only the kernel looks up: its ENOENT as nft
	// words it for a command about @obj named @name.
	TableInfo &kernel_table(const Command &cmd, Obj obj, const std::string &name);
	// The kernel's ENOENT for @cmd's @obj named @name, at @at.
	[[noreturn]] void kernel_enoent(const Command &cmd, Obj obj, const std::string &name,
					const Location &at);

	Batch *batch_;
	std::map<std::string, TableInfo> tables_;  // key: family + " " + name
	std::set<std::string> dynamic_sets_;       // family + " " + table + " " + set
	uint32_t set_id_ = 0;
	RuleReferences references_;  // nft's rule cache: positions, indexes, replaces
	EvaluationErrors *errors_ = nullptr;  // compile(cmd, errors)'s, while it runs
};

uint32_t family_number(const std::string &family);

} // namespace xnft
