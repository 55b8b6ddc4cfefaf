// compiler.cc - commands to libnftnl objects (see compiler.h).
#include "compiler.h"
#include "delinearize.h"
#include "ruleset_model.h"

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <libnftnl/udata.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netlink.h>

#include <algorithm>
#include <optional>

#include "linearize.h"
#include "not_found.h"
#include "set_userdata.h"

#ifndef NFT_USERDATA_MAXLEN
#define NFT_USERDATA_MAXLEN 256
#endif

namespace xnft {

uint32_t family_number(const std::string &f)
{
	if (f == "ip") return NFPROTO_IPV4;
	if (f == "ip6") return NFPROTO_IPV6;
	if (f == "inet") return NFPROTO_INET;
	if (f == "arp") return NFPROTO_ARP;
	if (f == "bridge") return NFPROTO_BRIDGE;
	if (f == "netdev") return NFPROTO_NETDEV;
	return NFPROTO_UNSPEC;
}

static void require_bridge(const std::string &family, const Location &loc)
{
	if (family != "bridge")
		throw LangError(loc, "xnft compiles the bridge family only, not " + family);
}

static uint16_t add_flags(Verb v)
{
	switch (v) {
	case Verb::Create: return NLM_F_CREATE | NLM_F_EXCL;
	case Verb::Insert: return NLM_F_CREATE;
	case Verb::Replace: return NLM_F_REPLACE;
	case Verb::Add: return NLM_F_CREATE | NLM_F_APPEND;
	default: return 0;
	}
}

void TableInfo::use_objects(SetInfo &set, const std::vector<Element> &elems)
{
	for (const Element &e : elems)
		if (!e.objref.empty() && set.objrefs.emplace(e.key, e.objref).second)
			obj_use[obj_key(set.objtype, e.objref)]++;
}

void Compiler::learn(const RulesetModel &m)
{
	references_.learn(m);
	for (const ModelTable &t : m.tables) {
		if (t.family != NFPROTO_BRIDGE)
			continue;
		TableInfo &ti = tables_["bridge " + t.name];
		for (nftnl_chain *c : t.chains)
			ti.chains[nftnl_chain_get_str(c, NFTNL_CHAIN_NAME)] =
				nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE);
		for (nftnl_flowtable *f : t.flowtables)
			ti.flowtables[nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME)] = true;
		for (nftnl_obj *o : t.objs) {
			const uint32_t type = nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE);
			if (type == NFT_OBJECT_COUNTER)
				ti.counters[nftnl_obj_get_str(o, NFTNL_OBJ_NAME)] = true;
			else if (type == NFT_OBJECT_QUOTA)
				ti.quotas[nftnl_obj_get_str(o, NFTNL_OBJ_NAME)] = true;
			else if (type == NFT_OBJECT_LIMIT)
				ti.limits[nftnl_obj_get_str(o, NFTNL_OBJ_NAME)] = true;
		}
		for (nftnl_set *s : t.sets) {
			SetInfo si;
			si.name = nftnl_set_get_str(s, NFTNL_SET_NAME);
			si.flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
			si.key = keyparts_of_set(s);
			si.is_map = si.flags & NFT_SET_MAP;
			if ((si.flags & NFT_SET_OBJECT) && nftnl_set_is_set(s, NFTNL_SET_OBJ_TYPE))
				si.objtype = nftnl_set_get_u32(s, NFTNL_SET_OBJ_TYPE);
			// the objects its elements name, in use
			nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
			for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it)) {
				if (!si.objtype || !nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_OBJREF))
					continue;
				uint32_t n = 0;
				const auto *k = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &n));
				Element el;
				el.key.assign(k, k + n);
				el.objref = nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_OBJREF);
				ti.use_objects(si, {el});
			}
			nftnl_set_elems_iter_destroy(it);
			if (nftnl_set_is_set(s, NFTNL_SET_TIMEOUT))
				si.timeout_ms = nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT);
			// its statements, as nft's cache knows them from the dump
			nftnl_set_expr_foreach(s, [](nftnl_expr *e, void *to) {
				static_cast<SetInfo *>(to)->stmts.push_back(nftnl_expr_get_str(e, NFTNL_EXPR_NAME));
				return 0;
			}, &si);
			if (si.is_map) {
				const uint32_t dt = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
				si.verdict_map = dt == NFT_DATA_VERDICT;
				if (!si.verdict_map)
					si.data = datapart_of_set(s);
			}
			ti.sets[si.name] = si;
		}
	}
}

void Compiler::note_set_statements(const Command &c)
{
	auto note = [&](const Rule &r) {
		for (const Stmt &s : r.stmts)
			if (s.kind == StmtKind::SetElem && !s.rhs)
				dynamic_sets_.insert(c.family + " " + c.table + " " + s.key);
	};
	if (c.obj == Obj::Table)
		for (const ChainDecl &ch : c.table_decl.chains)
			for (const Rule &r : ch.rules)
				note(r);
	if (c.chain_decl)
		for (const Rule &r : c.chain_decl->rules)
			note(r);
	if (c.rule)
		note(*c.rule);
}

void Compiler::prepare(const std::vector<Command> &cmds)
{
	references_.resolve(cmds);
	for (const Command &c : cmds)
		note_set_statements(c);
}

TableInfo &Compiler::table_info(const std::string &family, const std::string &table,
				const Location &loc)
{
	auto it = tables_.find(family + " " + table);
	if (it == tables_.end())
		throw LangError(loc, "Could not process rule: No such file or directory");
	return it->second;
}

TableInfo &Compiler::evaluated_table(const Command &cmd)
{
	auto it = tables_.find(cmd.family + " " + cmd.table);
	if (it == tables_.end())
		throw LangError(cmd.table_loc, table_not_found(CacheNames::of(tables_), cmd.table));
	return it->second;
}

void Compiler::kernel_enoent(const Command &cmd, Obj obj, const std::string &name, const Location &at)
{
	const KernelNotFound k = kernel_not_found(CacheNames::of(tables_), obj, cmd.family, cmd.table, name);
	throw LangError::kernel(k.at_table ? cmd.table_loc : at, k.message);
}

TableInfo &Compiler::kernel_table(const Command &cmd, Obj obj, const std::string &name)
{
	auto it = tables_.find(cmd.family + " " + cmd.table);
	if (it == tables_.end())
		kernel_enoent(cmd, obj, name, cmd.table_loc);
	return it->second;
}

namespace {
// Thrown through compile(cmd, errors) when nft stops evaluating.
struct StopEvaluation {};
} // namespace

bool Compiler::compile(const Command &cmd, EvaluationErrors &errors)
{
	errors_ = &errors;
	errors.items_so_far = batch_->items().size();
	bool go_on = true;
	try {
		compile(cmd);
	} catch (const LangError &e) {
		go_on = errors.note(e);
	} catch (const StopEvaluation &) {
		go_on = false;
	}
	errors_ = nullptr;
	return go_on;
}

template <class Compile> void Compiler::expanded_item(Compile &&compile_item)
{
	if (!errors_) {
		compile_item();
		return;
	}
	try {
		errors_->items_so_far = batch_->items().size();
		compile_item();
	} catch (const LangError &e) {
		if (!errors_->note(e))
			throw StopEvaluation{};
	}
}

void Compiler::kernel_refusal(const LangError &err, const std::string &validated_table)
{
	if (!errors_)
		throw err;
	errors_->kernel_refusals.push_back({err, batch_->items().size(), validated_table});
}

void Compiler::compile(const Command &cmd)
{
	note_set_statements(cmd);
	switch (cmd.obj) {
	case Obj::Ruleset:
		if (cmd.verb == Verb::Flush) {
			if (cmd.family.empty())
				tables_.clear();
			else
				for (auto it = tables_.begin(); it != tables_.end();)
					it = it->first.rfind(cmd.family + " ", 0) == 0 ? tables_.erase(it) : std::next(it);
			batch_->add_flush_ruleset(family_number(cmd.family));
			return;
		}
		throw LangError(cmd.loc, "list/reset are not batch commands");
	case Obj::Table:
		table(cmd);
		return;
	case Obj::Chain: {
		require_bridge(cmd.family, cmd.loc);
		if (cmd.verb == Verb::Rename) {
			rename_chain(cmd);
			return;
		}
		const bool removes = cmd.verb == Verb::Delete ||
				     cmd.verb == Verb::Flush;
		TableInfo &t = removes ? kernel_table(cmd, Obj::Chain, cmd.chain) : evaluated_table(cmd);
		if (removes) {
			nftnl_chain *c = nftnl_chain_alloc();
			nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, family_number(cmd.family));
			if (cmd.has_handle)
				nftnl_chain_set_u64(c, NFTNL_CHAIN_HANDLE, cmd.handle);
			else if (!t.chains.count(cmd.chain))
				kernel_enoent(cmd, Obj::Chain, cmd.chain, cmd.chain_loc);
			if (cmd.verb != Verb::Flush)
				t.chains.erase(cmd.chain);
			batch_->add_chain(cmd.verb == Verb::Flush ? ItemKind::FlushChain : ItemKind::DelChain, c,
					 family_number(cmd.family), 0, cmd.table, cmd.chain, -1);
			locate(cmd, cmd.chain_loc);
			return;
		}
		expanded_item([&] { chain(cmd.family, cmd.table, *cmd.chain_decl, cmd.verb); });
		for (auto &r : cmd.chain_decl->rules)
			expanded_item([&] { rule(cmd.family, cmd.table, cmd.chain, r, Verb::Add, cmd.chain_loc); });
		return;
	}
	case Obj::Rule: {
		require_bridge(cmd.family, cmd.loc);
		TableInfo &t = kernel_table(cmd, Obj::Rule, cmd.chain);
		if (!t.chains.count(cmd.chain))
			kernel_enoent(cmd, Obj::Rule, cmd.chain, cmd.chain_loc);
		if (cmd.verb == Verb::Delete) {
			nftnl_rule *r = nftnl_rule_alloc();
			nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, family_number(cmd.family));
			nftnl_rule_set_str(r, NFTNL_RULE_TABLE, cmd.table.c_str());
			nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, cmd.chain.c_str());
			nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, cmd.handle);
			batch_->add_rule(ItemKind::DelRule, r, family_number(cmd.family), 0, cmd.whole_loc,
					 cmd.handle_loc);
			locate(cmd, cmd.chain_loc);
			return;
		}
		rule(cmd.family, cmd.table, cmd.chain, *cmd.rule, cmd.verb, cmd.chain_loc, cmd.whole_loc);
		return;
	}
	case Obj::Set:
	case Obj::Map: {
		require_bridge(cmd.family, cmd.loc);
		// nft's evaluation looks a set to add or flush up; the kernel
		// one to delete
		const bool deletes = cmd.verb == Verb::Delete;
		TableInfo &t = deletes ? kernel_table(cmd, cmd.obj, cmd.set) : evaluated_table(cmd);
		if (deletes || cmd.verb == Verb::Flush) {
			auto it = t.sets.find(cmd.set);
			if (it == t.sets.end() && cmd.verb == Verb::Flush)
				throw LangError(cmd.name_loc, set_not_found(CacheNames::of(tables_), cmd.set));
			if (it == t.sets.end())
				kernel_enoent(cmd, cmd.obj, cmd.set, cmd.name_loc);
			nftnl_set *s = nftnl_set_alloc();
			nftnl_set_set_u32(s, NFTNL_SET_FAMILY, family_number(cmd.family));
			nftnl_set_set_str(s, NFTNL_SET_TABLE, cmd.table.c_str());
			nftnl_set_set_str(s, NFTNL_SET_NAME, cmd.set.c_str());
			if (it != t.sets.end())
				t.release_objects(it->second);
			if (cmd.verb != Verb::Flush)
				t.sets.erase(cmd.set);
			batch_->add_set(cmd.verb == Verb::Flush ? ItemKind::FlushSet : ItemKind::DelSet, s,
				       family_number(cmd.family), 0);
			locate(cmd, cmd.name_loc);
			return;
		}
		if (!cmd.set_decl)
			throw LangError(cmd.loc, "syntax error, expecting '{'");
		set(cmd.family, cmd.table, *cmd.set_decl, cmd.verb);
		return;
	}
	case Obj::Element: {
		require_bridge(cmd.family, cmd.loc);
		TableInfo &t = evaluated_table(cmd);
		auto it = t.sets.find(cmd.set);
		if (it == t.sets.end())
			throw LangError(cmd.name_loc, set_not_found(CacheNames::of(tables_), cmd.set));
		elements(cmd.family, cmd.table, it->second, *cmd.elements,
			 cmd.verb != Verb::Delete,
			 cmd.verb == Verb::Create);
		locate(cmd, cmd.name_loc);
		return;
	}
	case Obj::Flowtable: {
		require_bridge(cmd.family, cmd.loc);
		const bool deletes = cmd.verb == Verb::Delete;
		TableInfo &t = deletes ? kernel_table(cmd, Obj::Flowtable, cmd.flowtable)
				       : evaluated_table(cmd);
		if (deletes) {
			nftnl_flowtable *f = nftnl_flowtable_alloc();
			nftnl_flowtable_set_u32(f, NFTNL_FLOWTABLE_FAMILY, family_number(cmd.family));
			t.flowtables.erase(cmd.flowtable);
			batch_->add_flowtable(ItemKind::DelFlowtable, f, family_number(cmd.family), 0,
					     cmd.table, cmd.flowtable);
			locate(cmd, cmd.name_loc);
			return;
		}
		if (!cmd.ft_decl)
			throw LangError(cmd.loc, "syntax error, expecting '{'");
		flowtable(cmd.family, cmd.table, *cmd.ft_decl, cmd.verb);
		return;
	}
	case Obj::Counter:
	case Obj::Quota:
	case Obj::Limit: {
		require_bridge(cmd.family, cmd.loc);
		const bool deletes = cmd.verb == Verb::Delete;
		TableInfo &t = deletes ? kernel_table(cmd, cmd.obj, cmd.object) : evaluated_table(cmd);
		const uint32_t type = cmd.obj == Obj::Quota ? NFT_OBJECT_QUOTA :
				      cmd.obj == Obj::Limit ? NFT_OBJECT_LIMIT : NFT_OBJECT_COUNTER;
		std::map<std::string, bool> &names = t.objects(type);
		if (deletes) {
			if (!cmd.has_handle && cmd.verb == Verb::Delete && !names.count(cmd.object))
				kernel_enoent(cmd, cmd.obj, cmd.object, cmd.name_loc);
			// an object a map's element names stays (nf_tables_delobj)
			if (!cmd.has_handle && names.count(cmd.object) &&
			    t.obj_use[TableInfo::obj_key(type, cmd.object)] > 0)
				throw LangError(cmd.name_loc, "Could not process rule: Device or resource busy");
			nftnl_obj *o = nftnl_obj_alloc();
			nftnl_obj_set_u32(o, NFTNL_OBJ_FAMILY, family_number(cmd.family));
			nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, type);
			if (cmd.has_handle)
				nftnl_obj_set_u64(o, NFTNL_OBJ_HANDLE, cmd.handle);
			else
				names.erase(cmd.object);
			batch_->add_obj(ItemKind::DelObj, o, family_number(cmd.family), 0, cmd.table,
					cmd.has_handle ? "" : cmd.object);
			locate(cmd, cmd.name_loc);
			return;
		}
		if (!cmd.object_decl)
			throw LangError(cmd.loc, "list/reset are not batch commands");
		object(cmd.family, cmd.table, *cmd.object_decl, cmd.verb);
		return;
	}
	default:
		throw LangError(cmd.loc, "list commands are not part of a batch");
	}
}

// Where nft points the kernel's complaints about the item added last, for
// a command that names its object: @name (the object's name, or a rule's
// chain), the table, the handle, else the whole command. A command that
// the compiler turned into several items locates the last.
void Compiler::locate(const Command &cmd, const Location &name)
{
	BatchItem &i = batch_->last();
	i.table_loc = cmd.table_loc;
	i.name_loc = name;
	if (cmd.has_handle)
		i.handle_loc = cmd.handle_loc;
	if (!i.cmd_loc.valid())
		i.cmd_loc = cmd.whole_loc;
}

/*
 * `rename chain TABLE CHAIN NAME`: nft's evaluation finds the chain in its
 * cache (its table and chain not found: the evaluation's words), then
 * sends a NEWCHAIN naming the chain by its handle and carrying the new
 * name (mnl_nft_chain_rename). A chain this batch adds has no handle yet:
 * nft sends 0, which the kernel refuses (ENOENT). nft's cache keeps the
 * old name, as does the kernel's until the commit.
 */
void Compiler::rename_chain(const Command &cmd)
{
	TableInfo &t = evaluated_table(cmd);
	auto it = t.chains.find(cmd.chain);
	if (it == t.chains.end())
		throw LangError(cmd.chain_loc, chain_not_found(CacheNames::of(tables_), cmd.chain));
	nftnl_chain *c = nftnl_chain_alloc();
	nftnl_chain_set_u32(c, NFTNL_CHAIN_FAMILY, family_number(cmd.family));
	nftnl_chain_set_u64(c, NFTNL_CHAIN_HANDLE, it->second);
	// set before add_chain, whose --debug=netlink line prints them as nft does
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, cmd.table.c_str());
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, cmd.new_name.c_str());
	batch_->add_chain(ItemKind::NewChain, c, family_number(cmd.family), 0, cmd.table,
			 cmd.new_name, -1);
	// the kernel's complaints (EEXIST at the name, ENOENT at the handle)
	// point at the whole command: nft records no place for either
	BatchItem &i = batch_->last();
	i.table_loc = cmd.table_loc;
	i.cmd_loc = cmd.whole_loc;
}

void Compiler::table(const Command &cmd)
{
	const std::string key = cmd.family + " " + cmd.table;
	uint32_t fam = family_number(cmd.family);
	if (cmd.verb == Verb::Delete || cmd.verb == Verb::Flush) {
		nftnl_table *t = nftnl_table_alloc();
		nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, fam);
		if (!cmd.table.empty())
			nftnl_table_set_str(t, NFTNL_TABLE_NAME, cmd.table.c_str());
		if (cmd.has_handle)
			nftnl_table_set_u64(t, NFTNL_TABLE_HANDLE, cmd.handle);
		if (cmd.verb == Verb::Flush) {
			auto it = tables_.find(key);
			if (it != tables_.end())
				for (auto &s : it->second.sets)
					it->second.release_objects(s.second);
		} else {
			tables_.erase(key);
		}
		batch_->add_table(cmd.verb == Verb::Flush ? ItemKind::FlushTable : ItemKind::DelTable, t, fam, 0);
		locate(cmd, cmd.table_loc);
		return;
	}
	require_bridge(cmd.family, cmd.loc);
	const TableDecl &d = cmd.table_decl;
	if (cmd.verb == Verb::Create && tables_.count(key))
		throw LangError(cmd.table_loc, "Could not process rule: File exists");
	tables_[key];
	nftnl_table *t = nftnl_table_alloc();
	nftnl_table_set_u32(t, NFTNL_TABLE_FAMILY, fam);
	nftnl_table_set_u32(t, NFTNL_TABLE_FLAGS, d.flags);
	if (d.comment) {
		nftnl_udata_buf *ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
		nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_TABLE_COMMENT */, d.comment->c_str());
		nftnl_table_set_data(t, NFTNL_TABLE_USERDATA, nftnl_udata_buf_data(ud),
				     nftnl_udata_buf_len(ud));
		nftnl_udata_buf_free(ud);
	}
	nftnl_table_set_str(t, NFTNL_TABLE_NAME, cmd.table.c_str());
	batch_->add_table(ItemKind::NewTable, t, fam,
			 cmd.verb == Verb::Create ? NLM_F_CREATE | NLM_F_EXCL : NLM_F_CREATE);
	locate(cmd, cmd.table_loc);
	// nft_cmd_expand order: chains, objects (counters, quotas, limits), sets, flowtables,
	// then every chain's rules. Names are known up front so rules may jump
	// to later chains.
	TableInfo &ti = tables_[key];
	for (auto &c : d.chains)
		ti.chains.emplace(c.name, 0);
	// Each is a command of its own to nft's evaluation (an error in one
	// does not stop the others).
	for (auto &c : d.chains)
		expanded_item([&] { chain(cmd.family, cmd.table, c, Verb::Add); });
	for (auto &c : d.objects)
		expanded_item([&] { object(cmd.family, cmd.table, c, Verb::Add); });
	for (auto &s : d.sets)
		expanded_item([&] { set(cmd.family, cmd.table, s, Verb::Add); });
	for (auto &f : d.flowtables)
		expanded_item([&] { flowtable(cmd.family, cmd.table, f, Verb::Add); });
	for (auto &c : d.chains)
		for (auto &r : c.rules)
			expanded_item([&] { rule(cmd.family, cmd.table, c.name, r, Verb::Add, c.loc); });
}

static uint32_t bridge_hook(const std::string &h, const Location &loc)
{
	if (h == "prerouting") return NF_BR_PRE_ROUTING;
	if (h == "input") return NF_BR_LOCAL_IN;
	if (h == "forward") return NF_BR_FORWARD;
	if (h == "output") return NF_BR_LOCAL_OUT;
	if (h == "postrouting") return NF_BR_POST_ROUTING;
	throw LangError(loc, "unknown chain hook");
}

void Compiler::chain(const std::string &family, const std::string &table, const ChainDecl &c,
		     Verb verb)
{
	TableInfo &t = table_info(family, table, c.loc);
	if (verb == Verb::Create && t.chains.count(c.name))
		throw LangError(c.loc, "Could not process rule: File exists");
	t.chains.emplace(c.name, 0);
	uint32_t fam = family_number(family);
	nftnl_chain *ch = nftnl_chain_alloc();
	nftnl_chain_set_u32(ch, NFTNL_CHAIN_FAMILY, fam);
	int policy = -1;
	if (c.base) {
		if (c.type != "filter")
			throw LangError(c.type_loc, "Could not process rule: Operation not supported");
		nftnl_chain_set_u32(ch, NFTNL_CHAIN_HOOKNUM, bridge_hook(c.hook, c.hook_loc));
		nftnl_chain_set_s32(ch, NFTNL_CHAIN_PRIO, c.prio);
		nftnl_chain_set_str(ch, NFTNL_CHAIN_TYPE, c.type.c_str());
	}
	if (c.policy) {
		if (!c.base)
			throw LangError(c.loc, "policy is only valid in a base chain");
		policy = *c.policy == "accept" ? NF_ACCEPT : NF_DROP;
	}
	if (c.comment) {
		nftnl_udata_buf *ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
		nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_CHAIN_COMMENT */, c.comment->c_str());
		nftnl_chain_set_data(ch, NFTNL_CHAIN_USERDATA, nftnl_udata_buf_data(ud),
				     nftnl_udata_buf_len(ud));
		nftnl_udata_buf_free(ud);
	}
	batch_->add_chain(ItemKind::NewChain, ch, fam, add_flags(verb == Verb::Create ? verb : Verb::Insert),
			 table, c.name, policy);
	batch_->last().name_loc = c.loc;
	batch_->last().cmd_loc = c.loc;
}

// A `type NAME` of a set's key or a map's data, as nft types it: a
// qualified type of its natural size (integer and string need typeof).
static KeyPart declared_part(const std::string &name, const SetDecl &d, const char *what)
{
	const DataType *dt = datatype_by_name(name);
	if (!dt)
		throw LangError(d.type_loc, "unknown datatype " + name);
	if (dt->id == TYPE_INTEGER || dt->id == TYPE_STRING)
		throw LangError(d.loc, "unqualified type " + name + " specified in " + what +
				" definition. Try \"typeof expression\" instead of \"type datatype\".");
	return keypart_of_type(*dt, d.type_loc);
}

// The parts of `typeof EXPR [. EXPR ...]`: each expression's type and
// length. A set holds a bit field's value as written (unshifted); a lookup
// shifts the packet's down to it.
static std::vector<KeyPart> typeof_parts(const Expr &e)
{
	std::vector<KeyPart> parts;
	auto add = [&](const Expr &x) {
		KeyPart p = keypart_of_expr(x);
		p.shift = 0;
		p.bytes = (p.bits + 7) / 8;	/* ip6 dscp: 1 byte, loaded as 2 */
		parts.push_back(p);
	};
	if (e.kind == ExprKind::Concat)
		for (auto &i : e.items)
			add(*i);
	else
		add(e);
	return parts;
}

void Compiler::set(const std::string &family, const std::string &table, const SetDecl &d, Verb verb)
{
	TableInfo &t = table_info(family, table, d.loc);
	if (verb == Verb::Create && t.sets.count(d.name))
		throw LangError(d.loc, "Could not process rule: File exists");
	if (d.key_types.empty() && !d.key_typeof)
		throw LangError(d.loc, "set definition does not specify key");
	SetInfo si;
	si.name = d.name;
	// an object map is NFT_SET_OBJECT, no NFT_SET_MAP: the kernel's
	// lookups take it as a set
	si.objtype = d.obj_type;
	si.is_map = d.is_map && !d.obj_type;
	si.flags = d.flags;
	if (si.is_map)
		si.flags |= NFT_SET_MAP;
	if (si.objtype)
		si.flags |= NFT_SET_OBJECT;
	if (d.timeout_ms)
		si.flags |= NFT_SET_TIMEOUT;
	si.timeout_ms = d.timeout_ms;
	// USERDATA's byte orders: a typeof expression's own, a type's, none
	// for a concatenation or a verdict.
	uint32_t key_byteorder = 0, data_byteorder = 0;
	if (d.key_typeof) {
		si.key = typeof_parts(*d.key_typeof);
		if (si.key.size() == 1)
			key_byteorder = si.key[0].order == ByteOrder::Big ? 2 : 1;
	} else {
		for (auto &k : d.key_types)
			si.key.push_back(declared_part(k, d, d.is_map ? "map" : "set"));
		if (si.key.size() == 1)
			key_byteorder = nft_byteorder(*si.key[0].type);
	}
	uint32_t key_type = 0, key_len = 0;
	for (const KeyPart &p : si.key) {
		key_type = (key_type << 6) | p.type->id;
		key_len += si.key.size() > 1 ? (p.bytes + 3) / 4 * 4 : p.bytes;
	}
	if (d.data_typeof) {
		std::vector<KeyPart> data = typeof_parts(*d.data_typeof);
		if (data.size() > 1)
			throw LangError(d.data_typeof->loc, "xnft does not support concatenated map data");
		si.data = data[0];
		data_byteorder = si.data.order == ByteOrder::Big ? 2 : 1;
	} else if (si.is_map) {
		const DataType *dt = datatype_by_name(d.data_type);
		if (dt && dt->id == TYPE_VERDICT) {
			si.verdict_map = true;
		} else {
			si.data = declared_part(d.data_type, d, "map");
			data_byteorder = nft_byteorder(*si.data.type);
		}
	}
	if (si.key.size() > 1 && (si.flags & NFT_SET_INTERVAL))
		si.flags |= NFT_SET_CONCAT;
	for (const Stmt &st : d.stmts)
		si.stmts.push_back(stateful_name(st));
	// set_evaluate: more than one statement makes the set NFT_SET_EXPR
	// (the kernel wants it with NFTA_SET_EXPRESSIONS)
	if (d.stmts.size() > 1)
		si.flags |= NFT_SET_EXPR;
	si.id = ++set_id_;
	// its elements typed as nft evaluates the declaration, before the
	// rules that make the set dynamic
	std::vector<Element> elems;
	// what the kernel would refuse of the elements (a separate message:
	// the set is made all the same)
	std::optional<LangError> elements_refusal;
	if (d.elements) {
		try {
			elems = type_elements(si, *d.elements, false, t);
		} catch (const LangError &e) {
			if (!is_kernel_refusal(e))
				throw;
			elements_refusal = e;
		}
	}
	// the first of the kernel's objections to the set (nf_tables_newset)
	std::optional<LangError> refusal;
	auto refuse = [&](const char *err) {
		if (!refusal)
			refusal = LangError(d.cmd_loc, std::string("Could not process rule: ") + err);
	};
	if (dynamic_sets_.count(family + " " + table + " " + d.name)) {
		// a set statement updates it; the kernel has no interval set
		// that the packet path may update
		si.flags |= NFT_SET_EVAL;
		if (si.flags & NFT_SET_INTERVAL)
			refuse("Operation not supported");
	}
	// nf_tables_newset: no timeouts in a constant set; a default timeout
	// and a GC interval only with the timeout flag, which nft sets for a
	// timeout alone, not for a GC interval
	if ((si.flags & (NFT_SET_CONSTANT | NFT_SET_TIMEOUT)) == (NFT_SET_CONSTANT | NFT_SET_TIMEOUT))
		refuse("Operation not supported");
	if (d.gc_interval_ms && !(si.flags & NFT_SET_TIMEOUT))
		refuse("Invalid argument");
	if (d.timeout_ms >= kMaxTimeoutMs)
		refuse("Numerical result out of range");
	// its statements as nf_tables_newset takes them (nft_set_elem_expr_alloc):
	// at most NFT_SET_EXPR_MAX, each as the kernel's init takes it, no
	// ct count (it collects garbage) in a set with timeouts
	for (size_t i = 0; i < d.stmts.size(); i++) {
		if (i == 2) {
			refuse("Argument list too long");
			break;
		}
		const std::string err = stateful_kernel_error(d.stmts[i]);
		if (!err.empty())
			refuse(err.c_str());
		if (d.stmts[i].kind == StmtKind::Connlimit && (si.flags & NFT_SET_TIMEOUT))
			refuse("Operation not supported");
	}
	check_new_elements(si, elems);
	if (refusal) {
		// the set is not made, its elements are not added to it; rules
		// find no set (SetInfo::refused)
		si.refused = true;
		t.sets[d.name] = si;
		kernel_refusal(*refusal);
		if (!elems.empty() || elements_refusal)
			kernel_refusal(LangError(d.cmd_loc, "Could not process rule: No such file or directory"));
		return;
	}
	uint32_t fam = family_number(family);
	nftnl_set *s = nftnl_set_alloc();
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, fam);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, table.c_str());
	nftnl_set_set_str(s, NFTNL_SET_NAME, d.name.c_str());
	nftnl_set_set_u32(s, NFTNL_SET_ID, si.id);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, si.flags);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, key_type);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, key_len);
	if (si.is_map) {
		nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, si.verdict_map ? uint32_t(NFT_DATA_VERDICT) : uint32_t(si.data.type->id));
		nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, si.verdict_map ? 0 : si.data.bytes);
	}
	if (si.objtype)
		nftnl_set_set_u32(s, NFTNL_SET_OBJ_TYPE, si.objtype);
	if (d.timeout_ms)
		nftnl_set_set_u64(s, NFTNL_SET_TIMEOUT, d.timeout_ms);
	if (d.gc_interval_ms)
		nftnl_set_set_u32(s, NFTNL_SET_GC_INTERVAL, static_cast<uint32_t>(d.gc_interval_ms));
	if (d.policy && *d.policy == "memory")
		nftnl_set_set_u32(s, NFTNL_SET_POLICY, NFT_SET_POL_MEMORY);
	if (d.size)
		nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, d.size);
	else if ((si.flags & NFT_SET_CONSTANT) && !elems.empty())
		// a constant set is sized by its elements, as anonymous ones are
		nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, (si.flags & NFT_SET_INTERVAL) ?
				  interval_desc_size(elems) : static_cast<uint32_t>(elems.size()));
	set_concat_desc(s, si);
	// mnl_nft_set_add: one statement as NFTA_SET_EXPR, more in
	// NFTA_SET_EXPRESSIONS (libnftnl picks by their number)
	for (const Stmt &st : d.stmts)
		nftnl_set_add_expr(s, anonymous_stateful_expr(st));
	const Bytes ud = build_set_userdata({&d, key_byteorder, si.is_map, si.verdict_map, data_byteorder, false,
					     si.objtype != 0});
	nftnl_set_set_data(s, NFTNL_SET_USERDATA, ud.data(), static_cast<uint32_t>(ud.size()));
	// an existing set keeps its elements (and what they name)
	if (auto old = t.sets.find(d.name); old != t.sets.end())
		si.objrefs = old->second.objrefs;
	t.use_objects(si, elems);
	t.sets[d.name] = si;
	batch_->add_set(ItemKind::NewSet, s, fam, add_flags(verb == Verb::Create ? verb : Verb::Insert));
	batch_->last().name_loc = d.loc;
	batch_->last().cmd_loc = d.cmd_loc;
	if (!elems.empty()) {
		nftnl_set *es = nftnl_set_alloc();
		nftnl_set_set_u32(es, NFTNL_SET_FAMILY, fam);
		nftnl_set_set_str(es, NFTNL_SET_TABLE, table.c_str());
		nftnl_set_set_str(es, NFTNL_SET_NAME, d.name.c_str());
		nftnl_set_set_u32(es, NFTNL_SET_ID, si.id);
		add_elements(es, elems);
		batch_->add_set(ItemKind::NewSetElems, es, fam, NLM_F_CREATE);
		batch_->last().name_loc = d.loc;
		batch_->last().cmd_loc = d.cmd_loc;
		for (const Element &e : elems)
			batch_->last().elem_locs.push_back(e.loc);
	}
	if (elements_refusal)
		kernel_refusal(*elements_refusal);
}

void Compiler::elements(const std::string &family, const std::string &table, const SetInfo &si_in,
			const Expr &lit, bool add, bool exclusive)
{
	TableInfo &t = table_info(family, table, lit.loc);
	SetInfo si = si_in;
	std::vector<Element> elems = type_elements(si, lit, false, t, !add);
	if (add)
		check_new_elements(si, elems);
	// what the object map's elements name, in use from now on or no more
	if (auto named = t.sets.find(si.name); named != t.sets.end() && si.objtype) {
		if (add) {
			t.use_objects(named->second, elems);
		} else {
			for (const Element &e : elems) {
				auto ref = named->second.objrefs.find(e.key);
				if (ref == named->second.objrefs.end())
					continue;
				t.obj_use[TableInfo::obj_key(si.objtype, ref->second)]--;
				named->second.objrefs.erase(ref);
			}
		}
	}
	// nft deletes a single value of a concatenated interval set by its
	// KEY alone (it adds it with KEY_END = KEY).
	if (!add)
		for (Element &e : elems)
			if (e.key_end == e.key)
				e.key_end.clear();
	uint32_t fam = family_number(family);
	nftnl_set *es = nftnl_set_alloc();
	nftnl_set_set_u32(es, NFTNL_SET_FAMILY, fam);
	nftnl_set_set_str(es, NFTNL_SET_TABLE, table.c_str());
	nftnl_set_set_str(es, NFTNL_SET_NAME, si.name.c_str());
	nftnl_set_set_u32(es, NFTNL_SET_ID, si.id);
	add_elements(es, elems);
	// `create element` fails on an existing element, as nft asks with EXCL.
	batch_->add_set(add ? ItemKind::NewSetElems : ItemKind::DelSetElems, es, fam,
		       add ? NLM_F_CREATE | (exclusive ? NLM_F_EXCL : 0) : 0);
	for (const Element &e : elems)
		batch_->last().elem_locs.push_back(e.loc);
}

std::vector<Element> Compiler::get_request(const Command &cmd, const Expr &lit, SetInfo &si)
{
	TableInfo &t = table_info(cmd.family, cmd.table, cmd.table_loc);
	auto it = t.sets.find(cmd.set);
	if (it == t.sets.end())
		throw LangError(cmd.name_loc, "No such file or directory");
	si = it->second;
	// the keys alone: nft looks a map's up by key, whatever data is given
	SetInfo keys = si;
	keys.is_map = keys.verdict_map = false;
	keys.objtype = 0;
	return type_elements(keys, lit, false, t, true);
}

static uint32_t flowtable_hook(const std::string &h, const Location &loc)
{
	if (h == "ingress")
		return NF_NETDEV_INGRESS;
	throw LangError(loc, "Flowtable hook must be ingress");
}

void Compiler::flowtable(const std::string &family, const std::string &table,
			 const FlowtableDecl &f, Verb verb)
{
	TableInfo &t = table_info(family, table, f.loc);
	if (verb == Verb::Create && t.flowtables.count(f.name))
		throw LangError(f.loc, "Could not process rule: File exists");
	t.flowtables[f.name] = true;
	uint32_t fam = family_number(family);
	nftnl_flowtable *ft = nftnl_flowtable_alloc();
	nftnl_flowtable_set_u32(ft, NFTNL_FLOWTABLE_FAMILY, fam);
	if (!f.hook.empty()) {
		nftnl_flowtable_set_u32(ft, NFTNL_FLOWTABLE_HOOKNUM, flowtable_hook(f.hook, f.loc));
		nftnl_flowtable_set_s32(ft, NFTNL_FLOWTABLE_PRIO, f.prio);
	}
	if (!f.devices.empty()) {
		// nft hands the kernel the devices last-declared first.
		std::vector<const char *> devs;
		for (auto it = f.devices.rbegin(); it != f.devices.rend(); ++it)
			devs.push_back(it->c_str());
		devs.push_back(nullptr);
		nftnl_flowtable_set_data(ft, NFTNL_FLOWTABLE_DEVICES, devs.data(),
					 static_cast<uint32_t>(devs.size() * sizeof(char *)));
	}
	nftnl_flowtable_set_u32(ft, NFTNL_FLOWTABLE_FLAGS, f.counter ? NFT_FLOWTABLE_COUNTER : 0);
	batch_->add_flowtable(ItemKind::NewFlowtable, ft, fam,
			     add_flags(verb == Verb::Create ? verb : Verb::Insert), table, f.name);
	batch_->last().name_loc = f.loc;
	batch_->last().cmd_loc = f.loc;
}

// A new limit object as the kernel checks it (an existing one that `add`
// meets is kept as it is, its values unread); its complaint points at the
// object's name in a table block, at the whole command otherwise.
static void check_limit(const ObjectDecl &c)
{
	const std::string err = limit_kernel_error(c.limit_rate, c.limit_unit, c.limit_burst, c.limit_bytes);
	if (!err.empty())
		throw LangError(c.cmd_loc, "Could not process rule: " + err);
}

// nft's counter, quota and limit objects: NFT_MSG_NEWOBJ of their type
// with their values (a counter's start values; a quota's limit, flags and
// what it has used; a limit's rate, unit, burst, type and flags) and
// comment (NFTNL_UDATA_OBJ_COMMENT); `create` fails when it exists, `add`
// keeps an existing one.
void Compiler::object(const std::string &family, const std::string &table, const ObjectDecl &c,
		      Verb verb)
{
	TableInfo &t = table_info(family, table, c.loc);
	std::map<std::string, bool> &names = t.objects(c.type);
	if (verb == Verb::Create && names.count(c.name))
		throw LangError(c.loc, "Could not process rule: File exists");
	if (c.type == kObjectLimit && !names.count(c.name))
		check_limit(c);
	names[c.name] = true;
	const uint32_t fam = family_number(family);
	nftnl_obj *o = nftnl_obj_alloc();
	nftnl_obj_set_u32(o, NFTNL_OBJ_FAMILY, fam);
	nftnl_obj_set_u32(o, NFTNL_OBJ_TYPE, c.type);
	if (c.type == kObjectQuota) {
		nftnl_obj_set_u64(o, NFTNL_OBJ_QUOTA_BYTES, c.quota_bytes);
		nftnl_obj_set_u64(o, NFTNL_OBJ_QUOTA_CONSUMED, c.quota_used);
		nftnl_obj_set_u32(o, NFTNL_OBJ_QUOTA_FLAGS, c.quota_flags);
	} else if (c.type == kObjectLimit) {
		nftnl_obj_set_u64(o, NFTNL_OBJ_LIMIT_RATE, c.limit_rate);
		nftnl_obj_set_u64(o, NFTNL_OBJ_LIMIT_UNIT, c.limit_unit);
		nftnl_obj_set_u32(o, NFTNL_OBJ_LIMIT_BURST, static_cast<uint32_t>(c.limit_burst));
		nftnl_obj_set_u32(o, NFTNL_OBJ_LIMIT_TYPE, c.limit_bytes ? NFT_LIMIT_PKT_BYTES : NFT_LIMIT_PKTS);
		nftnl_obj_set_u32(o, NFTNL_OBJ_LIMIT_FLAGS, c.limit_over ? NFT_LIMIT_F_INV : 0);
	} else {
		nftnl_obj_set_u64(o, NFTNL_OBJ_CTR_PKTS, c.packets);
		nftnl_obj_set_u64(o, NFTNL_OBJ_CTR_BYTES, c.bytes);
	}
	if (c.comment) {
		nftnl_udata_buf *ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
		nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_OBJ_COMMENT */, c.comment->c_str());
		nftnl_obj_set_data(o, NFTNL_OBJ_USERDATA, nftnl_udata_buf_data(ud),
				   nftnl_udata_buf_len(ud));
		nftnl_udata_buf_free(ud);
	}
	batch_->add_obj(ItemKind::NewObj, o, fam,
			verb == Verb::Create ? NLM_F_CREATE | NLM_F_EXCL : NLM_F_CREATE, table, c.name);
	batch_->last().name_loc = c.loc;
	batch_->last().cmd_loc = c.cmd_loc;
}

void Compiler::rule(const std::string &family, const std::string &table, const std::string &chain,
		    const Rule &r, Verb verb, const Location &chain_loc, const Location &cmd_loc)
{
	TableInfo &t = table_info(family, table, chain_loc);
	uint32_t fam = family_number(family);
	nftnl_rule *nr = nftnl_rule_alloc();
	nftnl_rule_set_u32(nr, NFTNL_RULE_FAMILY, fam);
	nftnl_rule_set_str(nr, NFTNL_RULE_TABLE, table.c_str());
	nftnl_rule_set_str(nr, NFTNL_RULE_CHAIN, chain.c_str());
	const RuleReferences::Link link = references_.link(r);
	if (r.handle)
		nftnl_rule_set_u64(nr, verb == Verb::Replace ? NFTNL_RULE_HANDLE : NFTNL_RULE_POSITION, r.handle);
	else if (link.position)
		nftnl_rule_set_u64(nr, NFTNL_RULE_POSITION, link.position);
	if (link.rule_id)
		nftnl_rule_set_u32(nr, NFTNL_RULE_ID, link.rule_id);
	if (link.position_id)
		nftnl_rule_set_u32(nr, NFTNL_RULE_POSITION_ID, link.position_id);
	// what the kernel refuses of the rule's foreign parts (foreign.h)
	std::optional<LangError> refusal;
	bool at_validation = false;
	try {
		Linearizer lin(nr, t, table, fam, set_id_, [&](nftnl_set *s, nftnl_set *es) {
			batch_->add_set(ItemKind::NewSet, s, fam, NLM_F_CREATE);
			batch_->add_set(ItemKind::NewSetElems, es, fam, NLM_F_CREATE);
		});
		lin.all_tables = &tables_;
		lin.rule_loc = cmd_loc.valid() ? cmd_loc : r.loc;
		for (auto &s : r.stmts)
			lin.statement(s);
		// nft's rule cache has no rule the position, index or handle
		// names (rule_cache_update, after the statements' evaluation)
		if (link.missing)
			throw LangError(r.ref_loc, "Could not process rule: No such file or directory");
		refusal = lin.refusal();
		at_validation = lin.refused_at_validation();
	} catch (const LangError &e) {
		nftnl_rule_free(nr);
		// a priority's second colon is where nft's scanner ends the
		// value: its grammar wants the rule to end there, a rule
		// command's (@cmd_loc) perhaps with the file
		if (std::string(e.what()) == kPriorityColonError)
			throw LangError(e.where(), std::string(kPriorityColonError) +
						   (cmd_loc.valid() ? ", expecting end of file or newline or semicolon"
								    : ", expecting newline or semicolon"));
		throw;
	} catch (...) {
		nftnl_rule_free(nr);
		throw;
	}
	if (refusal) {
		nftnl_rule_free(nr);
		kernel_refusal(*refusal, at_validation ? family + " " + table : "");
		return;
	}
	if (r.comment) {
		nftnl_udata_buf *ud = nftnl_udata_buf_alloc(NFT_USERDATA_MAXLEN);
		nftnl_udata_put_strz(ud, 0 /* NFTNL_UDATA_RULE_COMMENT */, r.comment->c_str());
		nftnl_rule_set_data(nr, NFTNL_RULE_USERDATA, nftnl_udata_buf_data(ud),
				    nftnl_udata_buf_len(ud));
		nftnl_udata_buf_free(ud);
	}
	uint16_t flags = verb == Verb::Insert ? NLM_F_CREATE :
			 verb == Verb::Replace ? NLM_F_REPLACE : NLM_F_CREATE | NLM_F_APPEND;
	batch_->add_rule(ItemKind::NewRule, nr, fam, flags, cmd_loc, r.ref_loc);
	batch_->last().name_loc = chain_loc;
}

} // namespace xnft
