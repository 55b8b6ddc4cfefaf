// ruleset_model.cc - batch -> kernel-like ruleset (see ruleset_model.h).
#include "ruleset_model.h"

#include <algorithm>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace xnft {

namespace {

// One netlink message buffer: objects are built into it and parsed back
// (the parsers copy what they keep). One buffer for all of them: a fresh
// zeroed megabyte per object made applying a 10,000-rule batch take seconds.
// What a message used is zeroed again afterwards: libmnl may leave an
// attribute's padding as it was, and libnftnl puts some strings (objref
// names) without their NUL, so a parser reading one would run into the
// bytes of an earlier message.
struct Msg {
	std::vector<char> &buf = shared();
	~Msg()
	{
		const auto *h = reinterpret_cast<const nlmsghdr *>(buf.data());
		std::fill(buf.begin(), buf.begin() + std::min<size_t>(h->nlmsg_len, buf.size()), 0);
	}
	nlmsghdr *hdr(uint16_t type, uint32_t family)
	{
		return nftnl_nlmsg_build_hdr(buf.data(), type, static_cast<uint16_t>(family), 0, 1);
	}
	static std::vector<char> &shared()
	{
		static thread_local std::vector<char> b(1 << 20);
		return b;
	}
};

nftnl_table *roundtrip(nftnl_table *t, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWTABLE, family);
	nftnl_table_nlmsg_build_payload(h, t);
	nftnl_table *o = nftnl_table_alloc();
	nftnl_table_nlmsg_parse(h, o);
	return o;
}

nftnl_chain *roundtrip(nftnl_chain *c, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWCHAIN, family);
	nftnl_chain_nlmsg_build_payload(h, c);
	nftnl_chain *o = nftnl_chain_alloc();
	nftnl_chain_nlmsg_parse(h, o);
	return o;
}

nftnl_rule *roundtrip(nftnl_rule *r, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWRULE, family);
	nftnl_rule_nlmsg_build_payload(h, r);
	nftnl_rule *o = nftnl_rule_alloc();
	nftnl_rule_nlmsg_parse(h, o);
	return o;
}

nftnl_flowtable *roundtrip(nftnl_flowtable *f, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWFLOWTABLE, family);
	nftnl_flowtable_nlmsg_build_payload(h, f);
	nftnl_flowtable *o = nftnl_flowtable_alloc();
	nftnl_flowtable_nlmsg_parse(h, o);
	return o;
}

nftnl_obj *roundtrip(nftnl_obj *o, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWOBJ, family);
	nftnl_obj_nlmsg_build_payload(h, o);
	nftnl_obj *r = nftnl_obj_alloc();
	nftnl_obj_nlmsg_parse(h, r);
	return r;
}

nftnl_set *roundtrip_header(nftnl_set *s, uint32_t family)
{
	Msg m;
	nlmsghdr *h = m.hdr(NFT_MSG_NEWSET, family);
	nftnl_set_nlmsg_build_payload(h, s);
	nftnl_set *o = nftnl_set_alloc();
	nftnl_set_nlmsg_parse(h, o);
	return o;
}

// libnftnl 1.2.4 declares nftnl_set_elem_clone but does not export it.
// A copy of X, attribute by attribute (an element's counter, limit, quota).
nftnl_expr *clone_expr(nftnl_expr *x)
{
	nftnl_expr *c = nftnl_expr_alloc(nftnl_expr_get_str(x, NFTNL_EXPR_NAME));
	for (uint16_t a = NFTNL_EXPR_BASE; a < 32; a++) {
		uint32_t n = 0;
		const void *d = nftnl_expr_is_set(x, a) ? nftnl_expr_get(x, a, &n) : nullptr;
		if (d)
			nftnl_expr_set(c, a, d, n);
	}
	return c;
}

nftnl_set_elem *clone_elem(nftnl_set_elem *e)
{
	nftnl_set_elem *c = nftnl_set_elem_alloc();
	static const uint16_t attrs[] = {NFTNL_SET_ELEM_KEY, NFTNL_SET_ELEM_KEY_END, NFTNL_SET_ELEM_DATA,
					 NFTNL_SET_ELEM_USERDATA, NFTNL_SET_ELEM_OBJREF};
	for (uint16_t a : attrs) {
		uint32_t n = 0;
		const void *d = nftnl_set_elem_get(e, a, &n);
		if (d && nftnl_set_elem_is_set(e, a))
			nftnl_set_elem_set(c, a, d, n);
	}
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS))
		nftnl_set_elem_set_u32(c, NFTNL_SET_ELEM_FLAGS, nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS));
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT))
		nftnl_set_elem_set_u32(c, NFTNL_SET_ELEM_VERDICT, nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT));
	if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN))
		nftnl_set_elem_set_str(c, NFTNL_SET_ELEM_CHAIN, nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
	for (uint16_t a : {NFTNL_SET_ELEM_TIMEOUT, NFTNL_SET_ELEM_EXPIRATION})
		if (nftnl_set_elem_is_set(e, a))
			nftnl_set_elem_set_u64(c, a, nftnl_set_elem_get_u64(e, a));
	// the element's stateful expressions (NFTA_SET_ELEM_EXPR[ESSIONS])
	nftnl_set_elem_expr_foreach(e, [](nftnl_expr *x, void *to) {
		nftnl_set_elem_add_expr(static_cast<nftnl_set_elem *>(to), clone_expr(x));
		return 0;
	}, c);
	return c;
}

// Elements added by a batch, into SET as the kernel dumps them right
// after (nft_set_elem_init, nf_tables_fill_setelem): in a set with
// timeouts an element's own timeout only when it differs from the set's,
// an expiration (the time left, all of it here) whenever it has a timeout,
// its own or the set's; an interval end takes none. An element the set
// holds already stays as it is (Linux 6.1's nft_add_set_elem without
// NLM_F_EXCL, and the core's; Linux 6.10 and later update its timeout).
void add_elements_as_dumped(nftnl_set *from, nftnl_set *set)
{
	const bool timeouts = nftnl_set_get_u32(set, NFTNL_SET_FLAGS) & NFT_SET_TIMEOUT;
	const uint64_t set_timeout = nftnl_set_is_set(set, NFTNL_SET_TIMEOUT) ?
				     nftnl_set_get_u64(set, NFTNL_SET_TIMEOUT) : 0;
	// an element's identity: its key, its key end and whether it ends an interval
	auto identity = [](nftnl_set_elem *e) {
		std::string id(1, nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS) &&
				  (nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS) & NFT_SET_ELEM_INTERVAL_END) ?
				  'e' : 's');
		for (uint16_t a : {NFTNL_SET_ELEM_KEY, NFTNL_SET_ELEM_KEY_END}) {
			uint32_t n = 0;
			const char *d = static_cast<const char *>(nftnl_set_elem_get(e, a, &n));
			id += std::to_string(n) + ":";
			if (d && nftnl_set_elem_is_set(e, a))
				id.append(d, n);
		}
		return id;
	};
	std::set<std::string> held;
	nftnl_set_elems_iter *hi = nftnl_set_elems_iter_create(set);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(hi); e; e = nftnl_set_elems_iter_next(hi))
		held.insert(identity(e));
	nftnl_set_elems_iter_destroy(hi);
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(from);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it)) {
		if (!held.insert(identity(e)).second)
			continue;
		nftnl_set_elem *c = clone_elem(e);
		const bool end = nftnl_set_elem_is_set(c, NFTNL_SET_ELEM_FLAGS) &&
				 (nftnl_set_elem_get_u32(c, NFTNL_SET_ELEM_FLAGS) & NFT_SET_ELEM_INTERVAL_END);
		uint64_t timeout = timeouts && !end ? set_timeout : 0, expiration = 0;
		if (nftnl_set_elem_is_set(c, NFTNL_SET_ELEM_TIMEOUT))
			timeout = nftnl_set_elem_get_u64(c, NFTNL_SET_ELEM_TIMEOUT);
		if (nftnl_set_elem_is_set(c, NFTNL_SET_ELEM_EXPIRATION))
			expiration = nftnl_set_elem_get_u64(c, NFTNL_SET_ELEM_EXPIRATION);
		nftnl_set_elem_unset(c, NFTNL_SET_ELEM_TIMEOUT);
		nftnl_set_elem_unset(c, NFTNL_SET_ELEM_EXPIRATION);
		// nft_add_set_elem: an element without statements of its own
		// gets clones of the set's (nft_set_elem_expr_clone: a counter's
		// and a quota's state as the set's template holds it), an
		// interval's end none
		bool own = false;
		nftnl_set_elem_expr_foreach(c, [](nftnl_expr *, void *o) {
			*static_cast<bool *>(o) = true;
			return 0;
		}, &own);
		if (!own && !end)
			nftnl_set_expr_foreach(set, [](nftnl_expr *x, void *to) {
				nftnl_set_elem_add_expr(static_cast<nftnl_set_elem *>(to), clone_expr(x));
				return 0;
			}, c);
		if (timeout) {
			if (timeout != set_timeout)
				nftnl_set_elem_set_u64(c, NFTNL_SET_ELEM_TIMEOUT, timeout);
			nftnl_set_elem_set_u64(c, NFTNL_SET_ELEM_EXPIRATION, expiration ? expiration : timeout);
		}
		nftnl_set_elem_add(set, c);
	}
	nftnl_set_elems_iter_destroy(it);
}

void copy_elements(nftnl_set *from, nftnl_set *to)
{
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(from);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it))
		nftnl_set_elem_add(to, clone_elem(e));
	nftnl_set_elems_iter_destroy(it);
}

std::string str(const char *s) { return s ? s : ""; }

// What a rule holds a reference to, as nf_tables counts uses: the chains
// it jumps or goes to, the sets it looks up, updates or maps objects with,
// the objects it names.
struct RuleUses {
	std::vector<std::string> chains, sets;
	std::vector<std::pair<uint32_t, std::string>> objects;  // type, name
};

RuleUses rule_uses(nftnl_rule *r)
{
	RuleUses u;
	nftnl_expr_iter *it = nftnl_expr_iter_create(r);
	for (nftnl_expr *e = nftnl_expr_iter_next(it); e; e = nftnl_expr_iter_next(it)) {
		const std::string name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
		if (name == "immediate" && nftnl_expr_is_set(e, NFTNL_EXPR_IMM_CHAIN))
			u.chains.push_back(nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN));
		else if (name == "lookup" && nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_SET))
			u.sets.push_back(nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET));
		else if (name == "dynset" && nftnl_expr_is_set(e, NFTNL_EXPR_DYNSET_SET_NAME))
			u.sets.push_back(nftnl_expr_get_str(e, NFTNL_EXPR_DYNSET_SET_NAME));
		else if (name == "objref" && nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_SET_NAME))
			u.sets.push_back(nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_SET_NAME));
		else if (name == "objref" && nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_IMM_NAME))
			u.objects.emplace_back(nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE),
					       nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_IMM_NAME));
	}
	nftnl_expr_iter_destroy(it);
	return u;
}

bool holds(const std::vector<std::string> &names, const std::string &name)
{
	return std::find(names.begin(), names.end(), name) != names.end();
}

// The elements of @s (a set the model holds): whether one has @e's key.
bool has_key(nftnl_set *s, nftnl_set_elem *e)
{
	uint32_t len;
	const void *key = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &len);
	bool found = false;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *x = nftnl_set_elems_iter_next(it); x && !found;
	     x = nftnl_set_elems_iter_next(it)) {
		uint32_t xl;
		const void *xk = nftnl_set_elem_get(x, NFTNL_SET_ELEM_KEY, &xl);
		found = xl == len && memcmp(xk, key, len) == 0;
	}
	nftnl_set_elems_iter_destroy(it);
	return found;
}

} // namespace

ReceivedMsg::ReceivedMsg(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len)
	: buf(MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg)) + len + 8)
{
	h = nftnl_nlmsg_build_hdr(buf.data(), type, static_cast<uint16_t>(family), 0, 0);
	if (len)
		memcpy(static_cast<char *>(mnl_nlmsg_get_payload_tail(h)), attrs, len);
	h->nlmsg_len += static_cast<uint32_t>(len);
}

nftnl_set *set_header_copy(nftnl_set *s, uint32_t family)
{
	return roundtrip_header(s, family);
}

void set_elements_copy(nftnl_set *from, nftnl_set *to)
{
	copy_elements(from, to);
}

RulesetModel::~RulesetModel()
{
	for (auto &t : tables)
		clear_table(t);
}

void RulesetModel::clear_table(ModelTable &t)
{
	if (t.table)
		nftnl_table_free(t.table);
	for (auto *c : t.chains)
		nftnl_chain_free(c);
	for (auto *s : t.sets)
		nftnl_set_free(s);
	for (auto *f : t.flowtables)
		nftnl_flowtable_free(f);
	for (auto *o : t.objs)
		nftnl_obj_free(o);
	for (auto *r : t.rules) {
		removed_.erase(r);
		nftnl_rule_free(r);
	}
	t = ModelTable{};
}

bool RulesetModel::load_dump(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len)
{
	ReceivedMsg m(type, family, attrs, len);
	switch (type) {
	case NFT_MSG_NEWTABLE: {
		nftnl_table *t = nftnl_table_alloc();
		if (nftnl_table_nlmsg_parse(m.h, t) < 0) {
			nftnl_table_free(t);
			return false;
		}
		ModelTable mt;
		mt.table = t;
		mt.family = family;
		mt.name = str(nftnl_table_get_str(t, NFTNL_TABLE_NAME));
		mt.handle = nftnl_table_get_u64(t, NFTNL_TABLE_HANDLE);
		tables.push_back(std::move(mt));
		return true;
	}
	case NFT_MSG_NEWCHAIN: {
		nftnl_chain *c = nftnl_chain_alloc();
		ModelTable *t = nullptr;
		if (nftnl_chain_nlmsg_parse(m.h, c) >= 0)
			t = find_table(family, str(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE)));
		if (!t) {
			nftnl_chain_free(c);
			return false;
		}
		t->chains.push_back(c);
		return true;
	}
	case NFT_MSG_NEWRULE: {
		nftnl_rule *r = nftnl_rule_alloc();
		ModelTable *t = nullptr;
		if (nftnl_rule_nlmsg_parse(m.h, r) >= 0)
			t = find_table(family, str(nftnl_rule_get_str(r, NFTNL_RULE_TABLE)));
		if (!t) {
			nftnl_rule_free(r);
			return false;
		}
		t->rules.push_back(r);
		return true;
	}
	case NFT_MSG_NEWSET: {
		nftnl_set *s = nftnl_set_alloc();
		ModelTable *t = nullptr;
		if (nftnl_set_nlmsg_parse(m.h, s) >= 0)
			t = find_table(family, str(nftnl_set_get_str(s, NFTNL_SET_TABLE)));
		if (!t) {
			nftnl_set_free(s);
			return false;
		}
		t->sets.push_back(s);
		return true;
	}
	case NFT_MSG_NEWSETELEM: {
		nftnl_set *es = nftnl_set_alloc();
		ModelTable *t = nullptr;
		if (nftnl_set_elems_nlmsg_parse(m.h, es) >= 0)
			t = find_table(family, str(nftnl_set_get_str(es, NFTNL_SET_TABLE)));
		bool found = false;
		if (t)
			for (auto *s : t->sets)
				if (str(nftnl_set_get_str(s, NFTNL_SET_NAME)) ==
				    str(nftnl_set_get_str(es, NFTNL_SET_NAME))) {
					copy_elements(es, s);
					found = true;
				}
		nftnl_set_free(es);
		return found;
	}
	case NFT_MSG_NEWFLOWTABLE: {
		nftnl_flowtable *f = nftnl_flowtable_alloc();
		ModelTable *t = nullptr;
		if (nftnl_flowtable_nlmsg_parse(m.h, f) >= 0)
			t = find_table(family, str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_TABLE)));
		if (!t) {
			nftnl_flowtable_free(f);
			return false;
		}
		t->flowtables.push_back(f);
		return true;
	}
	case NFT_MSG_NEWOBJ: {
		nftnl_obj *o = nftnl_obj_alloc();
		ModelTable *t = nullptr;
		if (nftnl_obj_nlmsg_parse(m.h, o) >= 0)
			t = find_table(family, str(nftnl_obj_get_str(o, NFTNL_OBJ_TABLE)));
		if (!t) {
			nftnl_obj_free(o);
			return false;
		}
		t->objs.push_back(o);
		return true;
	}
	default:
		return false;
	}
}

void RulesetModel::remove_obj(ModelTable &t, uint32_t type, const std::string &name)
{
	for (auto it = t.objs.begin(); it != t.objs.end(); ++it)
		if (nftnl_obj_get_u32(*it, NFTNL_OBJ_TYPE) == type &&
		    str(nftnl_obj_get_str(*it, NFTNL_OBJ_NAME)) == name) {
			nftnl_obj_free(*it);
			t.objs.erase(it);
			return;
		}
}

void RulesetModel::remove_table(uint32_t family, const std::string &name)
{
	for (auto it = tables.begin(); it != tables.end(); ++it)
		if (it->family == family && it->name == name) {
			clear_table(*it);
			tables.erase(it);
			return;
		}
}

void RulesetModel::remove_set(ModelTable &t, const std::string &name)
{
	for (auto it = t.sets.begin(); it != t.sets.end(); ++it)
		if (str(nftnl_set_get_str(*it, NFTNL_SET_NAME)) == name) {
			nftnl_set_free(*it);
			t.sets.erase(it);
			return;
		}
}

ModelTable *RulesetModel::find_table(uint32_t family, const std::string &name)
{
	for (auto &t : tables)
		if (t.family == family && t.name == name)
			return &t;
	return nullptr;
}

// "__set%d" -> the lowest number not used by a set of that pattern: the
// numbers in use collected in one pass over the table's sets.
static std::string anonymous_name(const ModelTable &t, const std::string &pattern)
{
	const std::string prefix = pattern.substr(0, pattern.size() - 2);
	std::vector<bool> used(t.sets.size() + 1);
	for (auto *s : t.sets) {
		const std::string name = str(nftnl_set_get_str(s, NFTNL_SET_NAME));
		if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
			continue;
		const std::string digits = name.substr(prefix.size());
		if (digits.size() > 9 || (digits.size() > 1 && digits[0] == '0') ||
		    digits.find_first_not_of("0123456789") != std::string::npos)
			continue;
		const size_t n = std::stoul(digits);
		if (n < used.size())
			used[n] = true;
	}
	size_t n = 0;
	while (used[n])
		n++;
	return prefix + std::to_string(n);
}

// nf_tables' use counts, from what the model holds: the rules the batch
// has not removed, and (for chains) the verdict maps' elements.
bool RulesetModel::chain_in_use(ModelTable &t, const std::string &chain) const
{
	for (nftnl_rule *r : t.rules)
		if (!removed_in_batch(r) && str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) != chain &&
		    holds(rule_uses(r).chains, chain))
			return true;
	for (nftnl_set *s : t.sets) {
		bool used = false;
		nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
		for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e && !used;
		     e = nftnl_set_elems_iter_next(it))
			used = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN) &&
			       str(nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN)) == chain;
		nftnl_set_elems_iter_destroy(it);
		if (used)
			return true;
	}
	return false;
}

bool RulesetModel::set_in_use(ModelTable &t, const std::string &set) const
{
	for (nftnl_rule *r : t.rules)
		if (!removed_in_batch(r) && holds(rule_uses(r).sets, set))
			return true;
	return false;
}

bool RulesetModel::obj_in_use(ModelTable &t, uint32_t type, const std::string &name) const
{
	for (nftnl_rule *r : t.rules) {
		if (removed_in_batch(r))
			continue;
		for (const auto &o : rule_uses(r).objects)
			if (o.first == type && o.second == name)
				return true;
	}
	return false;
}

// nft_table_validate: from each base chain, the jumps (rules' and verdict
// maps') may not reach level 16 (NFT_JUMP_STACK_SIZE); a loop they reach
// does. Heights are found once per chain (0 new, 1 on the path, 2 done).
bool RulesetModel::table_valid(ModelTable &t) const
{
	std::map<std::string, std::vector<std::string>> edges;
	std::map<std::string, std::vector<std::string>> map_chains;  // set -> chains
	for (nftnl_set *s : t.sets) {
		auto &to = map_chains[str(nftnl_set_get_str(s, NFTNL_SET_NAME))];
		nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
		for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it))
			if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN))
				to.push_back(nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
		nftnl_set_elems_iter_destroy(it);
	}
	for (nftnl_rule *r : t.rules) {
		if (removed_in_batch(r))
			continue;
		auto &to = edges[str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN))];
		const RuleUses u = rule_uses(r);
		to.insert(to.end(), u.chains.begin(), u.chains.end());
		for (const std::string &set : u.sets) {
			auto m = map_chains.find(set);
			if (m != map_chains.end())
				to.insert(to.end(), m->second.begin(), m->second.end());
		}
	}
	constexpr unsigned kJumpStackSize = 16;
	std::map<std::string, int> color;
	std::map<std::string, unsigned> height;
	std::function<bool(const std::string &)> visit = [&](const std::string &c) {
		int &col = color[c];
		if (col == 1)
			return false;
		if (col == 2)
			return true;
		col = 1;
		unsigned h = 0;
		for (const std::string &next : edges[c]) {
			if (!visit(next))
				return false;
			h = std::max(h, height[next] + 1);
		}
		color[c] = 2;
		height[c] = h;
		return h < kJumpStackSize;
	};
	for (nftnl_chain *c : t.chains)
		if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM) &&
		    !visit(str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME))))
			return false;
	return true;
}

std::vector<RefusedItem> RulesetModel::commit(const Batch &b)
{
	std::vector<RefusedItem> refused = apply(b);
	if (!refused.empty())
		return refused;
	bool valid = true;
	for (ModelTable &t : tables)
		valid = valid && table_valid(t);
	if (valid)
		return refused;
	for (ModelTable &t : tables)
		clear_table(t);
	tables.clear();
	removed_.clear();
	next_table_handle_ = 1;
	validate_each_ = true;
	refused = apply(b);
	validate_each_ = false;
	return refused;
}

// Where nft points a refusal of @i's name: the name, else the command.
static const Location &name_or_command(const BatchItem &i)
{
	return i.name_loc.valid() ? i.name_loc : i.cmd_loc;
}

// Where nft points a refusal of an object @i names by its handle: the
// handle's number, else the command.
static const Location &handle_or_command(const BatchItem &i)
{
	return i.handle_loc.valid() ? i.handle_loc : i.cmd_loc;
}

std::vector<RefusedItem> RulesetModel::apply(const Batch &b)
{
	std::vector<RefusedItem> refused;
	// set id -> kernel name, per batch (lookups name anonymous sets by id)
	std::map<uint32_t, std::string> id_names;
	// rule id -> this batch's rule's handle (NFTA_RULE_POSITION_ID names one)
	std::map<uint32_t, uint64_t> batch_rules;
	// tables whose flags this batch changed (__NFT_TABLE_F_UPDATE)
	std::set<std::pair<uint32_t, std::string>> flags_updated;
	// chains this batch renames, taking their names at its end
	std::vector<ChainRename> renames;
	for (size_t n = 0; n < b.items().size(); n++) {
		const BatchItem &i = b.items()[n];
		switch (i.kind) {
		case ItemKind::FlushRuleset:
			for (auto it = tables.begin(); it != tables.end();) {
				if (i.family == 0 || it->family == i.family) {
					clear_table(*it);
					it = tables.erase(it);
				} else {
					++it;
				}
			}
			break;
		case ItemKind::NewTable: {
			std::string name = str(nftnl_table_get_str(i.table, NFTNL_TABLE_NAME));
			if (ModelTable *old = find_table(i.family, name)) {
				// nf_tables_updtable: the flags given replace the
				// table's (`add table bridge t` wakes a dormant one);
				// its comment stays
				// "No dormant off/on/off/on games in single
				// transaction": a second change is EINVAL
				const uint32_t flags = nftnl_table_get_u32(i.table, NFTNL_TABLE_FLAGS);
				if (!nftnl_table_is_set(i.table, NFTNL_TABLE_FLAGS) ||
				    flags == nftnl_table_get_u32(old->table, NFTNL_TABLE_FLAGS))
					break;
				if (!flags_updated.insert({i.family, name}).second) {
					refused.push_back({n, EINVAL, i.cmd_loc});
					break;
				}
				nftnl_table_set_u32(old->table, NFTNL_TABLE_FLAGS, flags);
				break;
			}
			ModelTable t;
			t.family = i.family;
			t.name = name;
			t.handle = next_table_handle_++;
			t.table = roundtrip(i.table, i.family);
			nftnl_table_set_u64(t.table, NFTNL_TABLE_HANDLE, t.handle);
			tables.push_back(std::move(t));
			break;
		}
		case ItemKind::DelTable: {
			std::string name = str(nftnl_table_get_str(i.table, NFTNL_TABLE_NAME));
			const bool by_handle = !nftnl_table_is_set(i.table, NFTNL_TABLE_NAME);
			const uint64_t handle = by_handle ? nftnl_table_get_u64(i.table, NFTNL_TABLE_HANDLE) : 0;
			bool found = false;
			for (auto it = tables.begin(); it != tables.end(); ++it)
				if (it->family == i.family && (by_handle ? it->handle == handle : it->name == name)) {
					clear_table(*it);
					tables.erase(it);
					found = true;
					break;
				}
			if (!found)
				refused.push_back({n, ENOENT, by_handle ? handle_or_command(i) : name_or_command(i)});
			break;
		}
		case ItemKind::FlushTable: {
			ModelTable *t = find_table(i.family, str(nftnl_table_get_str(i.table, NFTNL_TABLE_NAME)));
			if (t)
				removed_.insert(t->rules.begin(), t->rules.end());
			else if (nftnl_table_is_set(i.table, NFTNL_TABLE_NAME))
				refused.push_back({n, ENOENT, name_or_command(i)});
			break;
		}
		case ItemKind::NewChain: {
			ModelTable *t = find_table(i.family, str(nftnl_chain_get_str(i.chain, NFTNL_CHAIN_TABLE)));
			if (!t)
				break;
			if (nftnl_chain_is_set(i.chain, NFTNL_CHAIN_HANDLE)) {
				if (int err = note_rename(*t, i, renames))
					refused.push_back({n, err, i.cmd_loc});
				break;
			}
			std::string name = str(nftnl_chain_get_str(i.chain, NFTNL_CHAIN_NAME));
			bool exists = false;
			for (auto *c : t->chains)
				if (str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME)) == name)
					exists = true;
			if (exists)
				break;
			nftnl_chain *c = roundtrip(i.chain, i.family);
			nftnl_chain_set_u64(c, NFTNL_CHAIN_HANDLE, t->next_handle++);
			if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM) && !nftnl_chain_is_set(c, NFTNL_CHAIN_POLICY))
				nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
			t->chains.push_back(c);
			break;
		}
		case ItemKind::DelChain:
		case ItemKind::FlushChain: {
			ModelTable *t = find_table(i.family, str(nftnl_chain_get_str(i.chain, NFTNL_CHAIN_TABLE)));
			if (!t)
				break;
			std::string name = str(nftnl_chain_get_str(i.chain, NFTNL_CHAIN_NAME));
			if (!nftnl_chain_is_set(i.chain, NFTNL_CHAIN_NAME)) {
				// `delete chain bridge t handle N`: the chain of
				// that handle, ENOENT when there is none
				const uint64_t h = nftnl_chain_get_u64(i.chain, NFTNL_CHAIN_HANDLE);
				for (auto *c : t->chains)
					if (nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE) == h)
						name = str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
				if (name.empty()) {
					refused.push_back({n, ENOENT, handle_or_command(i)});
					break;
				}
			}
			if (i.kind == ItemKind::DelChain && chain_in_use(*t, name)) {
				refused.push_back({n, EBUSY, name_or_command(i)});
				break;
			}
			// a flushed chain's rules stay until the commit, a deleted
			// chain's go with it
			for (auto it = t->rules.begin(); it != t->rules.end();) {
				if (str(nftnl_rule_get_str(*it, NFTNL_RULE_CHAIN)) != name) {
					++it;
				} else if (i.kind == ItemKind::FlushChain) {
					removed_.insert(*it++);
				} else {
					removed_.erase(*it);
					nftnl_rule_free(*it);
					it = t->rules.erase(it);
				}
			}
			if (i.kind == ItemKind::DelChain)
				for (auto it = t->chains.begin(); it != t->chains.end(); ++it)
					if (str(nftnl_chain_get_str(*it, NFTNL_CHAIN_NAME)) == name) {
						nftnl_chain_free(*it);
						t->chains.erase(it);
						break;
					}
			break;
		}
		case ItemKind::NewSet: {
			ModelTable *t = find_table(i.family, str(nftnl_set_get_str(i.set, NFTNL_SET_TABLE)));
			if (!t)
				break;
			nftnl_set *s = roundtrip_header(i.set, i.family);
			std::string name = str(nftnl_set_get_str(s, NFTNL_SET_NAME));
			if (name.size() > 2 && name.substr(name.size() - 2) == "%d") {
				name = anonymous_name(*t, name);
				nftnl_set_set_str(s, NFTNL_SET_NAME, name.c_str());
			}
			id_names[nftnl_set_get_u32(s, NFTNL_SET_ID)] = name;
			nftnl_set_set_u64(s, NFTNL_SET_HANDLE, t->next_handle++);
			t->sets.push_back(s);
			break;
		}
		case ItemKind::NewSetElems: {
			ModelTable *t = find_table(i.family, str(nftnl_set_get_str(i.set, NFTNL_SET_TABLE)));
			if (!t)
				break;
			std::string name = str(nftnl_set_get_str(i.set, NFTNL_SET_NAME));
			if (nftnl_set_is_set(i.set, NFTNL_SET_ID) && id_names.count(nftnl_set_get_u32(i.set, NFTNL_SET_ID)))
				name = id_names[nftnl_set_get_u32(i.set, NFTNL_SET_ID)];
			for (auto *s : t->sets) {
				if (str(nftnl_set_get_str(s, NFTNL_SET_NAME)) != name)
					continue;
				// `create element`: an element with the same key
				// (intervals are the kernel's to compare)
				if (i.nlflags & NLM_F_EXCL && !(nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_INTERVAL)) {
					size_t k = 0;
					bool exists = false;
					nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(i.set);
					for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e && !exists;
					     e = nftnl_set_elems_iter_next(it), k++)
						exists = has_key(s, e);
					nftnl_set_elems_iter_destroy(it);
					if (exists) {
						k--;
						refused.push_back({n, EEXIST, k < i.elem_locs.size() &&
									    i.elem_locs[k].valid()
									    ? i.elem_locs[k] : i.cmd_loc});
						break;
					}
				}
				add_elements_as_dumped(i.set, s);
				if (validate_each_ && !table_valid(*t))
					refused.push_back({n, EMLINK, i.cmd_loc});
			}
			break;
		}
		case ItemKind::DelSet:
		case ItemKind::FlushSet:
		case ItemKind::DelSetElems: {
			ModelTable *t = find_table(i.family, str(nftnl_set_get_str(i.set, NFTNL_SET_TABLE)));
			if (!t)
				break;
			std::string name = str(nftnl_set_get_str(i.set, NFTNL_SET_NAME));
			for (auto it = t->sets.begin(); it != t->sets.end(); ++it) {
				if (str(nftnl_set_get_str(*it, NFTNL_SET_NAME)) != name)
					continue;
				if (i.kind == ItemKind::DelSet && set_in_use(*t, name)) {
					refused.push_back({n, EBUSY, name_or_command(i)});
					break;
				}
				// `delete element`: each must be there (intervals are
				// the kernel's to compare)
				if (i.kind == ItemKind::DelSetElems &&
				    !(nftnl_set_get_u32(*it, NFTNL_SET_FLAGS) & NFT_SET_INTERVAL)) {
					size_t k = 0;
					bool missing = false;
					nftnl_set_elems_iter *ei = nftnl_set_elems_iter_create(i.set);
					for (nftnl_set_elem *e = nftnl_set_elems_iter_next(ei); e && !missing;
					     e = nftnl_set_elems_iter_next(ei), k++)
						missing = !has_key(*it, e);
					nftnl_set_elems_iter_destroy(ei);
					if (missing) {
						k--;
						refused.push_back({n, ENOENT, k < i.elem_locs.size() &&
									    i.elem_locs[k].valid()
									    ? i.elem_locs[k] : i.cmd_loc});
						break;
					}
				}
				if (i.kind == ItemKind::DelSet) {
					nftnl_set_free(*it);
					t->sets.erase(it);
				} else {
					// rebuild without the (deleted / all) elements
					nftnl_set *fresh = roundtrip_header(*it, i.family);
					nftnl_set_set_u64(fresh, NFTNL_SET_HANDLE, nftnl_set_get_u64(*it, NFTNL_SET_HANDLE));
					if (i.kind == ItemKind::DelSetElems) {
						nftnl_set_elems_iter *ei = nftnl_set_elems_iter_create(*it);
						for (nftnl_set_elem *e = nftnl_set_elems_iter_next(ei); e;
						     e = nftnl_set_elems_iter_next(ei)) {
							uint32_t kl;
							const void *k = nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &kl);
							bool gone = false;
							nftnl_set_elems_iter *di = nftnl_set_elems_iter_create(i.set);
							for (nftnl_set_elem *d = nftnl_set_elems_iter_next(di); d;
							     d = nftnl_set_elems_iter_next(di)) {
								uint32_t dl;
								const void *dk = nftnl_set_elem_get(d, NFTNL_SET_ELEM_KEY, &dl);
								if (dl == kl && memcmp(dk, k, kl) == 0)
									gone = true;
							}
							nftnl_set_elems_iter_destroy(di);
							if (!gone)
								nftnl_set_elem_add(fresh, clone_elem(e));
						}
						nftnl_set_elems_iter_destroy(ei);
					}
					nftnl_set_free(*it);
					*it = fresh;
				}
				break;
			}
			break;
		}
		case ItemKind::NewFlowtable: {
			ModelTable *t = find_table(i.family, str(nftnl_flowtable_get_str(i.flowtable, NFTNL_FLOWTABLE_TABLE)));
			if (!t)
				break;
			nftnl_flowtable *f = roundtrip(i.flowtable, i.family);
			nftnl_flowtable_set_u64(f, NFTNL_FLOWTABLE_HANDLE, t->next_handle++);
			t->flowtables.push_back(f);
			break;
		}
		case ItemKind::DelFlowtable: {
			ModelTable *t = find_table(i.family, str(nftnl_flowtable_get_str(i.flowtable, NFTNL_FLOWTABLE_TABLE)));
			if (!t)
				break;
			std::string name = str(nftnl_flowtable_get_str(i.flowtable, NFTNL_FLOWTABLE_NAME));
			for (auto it = t->flowtables.begin(); it != t->flowtables.end(); ++it)
				if (str(nftnl_flowtable_get_str(*it, NFTNL_FLOWTABLE_NAME)) == name) {
					nftnl_flowtable_free(*it);
					t->flowtables.erase(it);
					break;
				}
			break;
		}
		case ItemKind::NewObj: {
			ModelTable *t = find_table(i.family, str(nftnl_obj_get_str(i.obj, NFTNL_OBJ_TABLE)));
			if (!t)
				break;
			// objects are named per type: a counter and a quota may share one
			std::string name = str(nftnl_obj_get_str(i.obj, NFTNL_OBJ_NAME));
			const uint32_t type = nftnl_obj_get_u32(i.obj, NFTNL_OBJ_TYPE);
			bool exists = false;
			for (auto *o : t->objs)
				exists |= nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) == type &&
					  str(nftnl_obj_get_str(o, NFTNL_OBJ_NAME)) == name;
			if (exists)
				break;
			nftnl_obj *o = roundtrip(i.obj, i.family);
			nftnl_obj_set_u64(o, NFTNL_OBJ_HANDLE, t->next_handle++);
			// nft_limit_init: a packet limit's burst 0 is 5
			if (type == NFT_OBJECT_LIMIT &&
			    nftnl_obj_get_u32(o, NFTNL_OBJ_LIMIT_TYPE) == NFT_LIMIT_PKTS &&
			    nftnl_obj_get_u32(o, NFTNL_OBJ_LIMIT_BURST) == 0)
				nftnl_obj_set_u32(o, NFTNL_OBJ_LIMIT_BURST, 5);
			t->objs.push_back(o);
			break;
		}
		case ItemKind::DelObj: {
			ModelTable *t = find_table(i.family, str(nftnl_obj_get_str(i.obj, NFTNL_OBJ_TABLE)));
			if (!t)
				break;
			if (nftnl_obj_is_set(i.obj, NFTNL_OBJ_NAME)) {
				const uint32_t type = nftnl_obj_get_u32(i.obj, NFTNL_OBJ_TYPE);
				const std::string name = str(nftnl_obj_get_str(i.obj, NFTNL_OBJ_NAME));
				if (obj_in_use(*t, type, name)) {
					refused.push_back({n, EBUSY, name_or_command(i)});
					break;
				}
				remove_obj(*t, type, name);
			} else {
				// the object of that handle and type, ENOENT when
				// there is none
				const uint64_t h = nftnl_obj_get_u64(i.obj, NFTNL_OBJ_HANDLE);
				const uint32_t type = nftnl_obj_get_u32(i.obj, NFTNL_OBJ_TYPE);
				bool found = false;
				for (auto it = t->objs.begin(); it != t->objs.end(); ++it)
					if (nftnl_obj_get_u64(*it, NFTNL_OBJ_HANDLE) == h &&
					    nftnl_obj_get_u32(*it, NFTNL_OBJ_TYPE) == type) {
						const std::string name = str(nftnl_obj_get_str(*it, NFTNL_OBJ_NAME));
						if (obj_in_use(*t, type, name)) {
							refused.push_back({n, EBUSY, name_or_command(i)});
						} else {
							nftnl_obj_free(*it);
							t->objs.erase(it);
						}
						found = true;
						break;
					}
				if (!found)
					refused.push_back({n, ENOENT, name_or_command(i)});
			}
			break;
		}
		case ItemKind::NewRule: {
			ModelTable *t = find_table(i.family, str(nftnl_rule_get_str(i.rule, NFTNL_RULE_TABLE)));
			if (!t)
				break;
			nftnl_rule *r = roundtrip(i.rule, i.family);
			// lookups of this batch's anonymous sets: the kernel binds them by id
			nftnl_expr_iter *it = nftnl_expr_iter_create(r);
			for (nftnl_expr *e = nftnl_expr_iter_next(it); e; e = nftnl_expr_iter_next(it)) {
				if (std::string(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)) == "dynset") {
					// nft_dynset_init: a set bound without a size
					// gets 65535, which it lists from then on
					const std::string set = str(nftnl_expr_get_str(e, NFTNL_EXPR_DYNSET_SET_NAME));
					for (auto *s : t->sets)
						if (str(nftnl_set_get_str(s, NFTNL_SET_NAME)) == set &&
						    (!nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE) ||
						     nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE) == 0))
							nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, 0xffff);
					continue;
				}
				if (std::string(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)) == "objref") {
					// an objref of this batch's anonymous object map
					// (__objmap%d), bound by id likewise
					if (!nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_SET_ID) ||
					    !nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_SET_NAME))
						continue;
					auto n = id_names.find(nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_SET_ID));
					if (n != id_names.end()) {
						// the setter leaks the old name as the lookup's does
						free(const_cast<char *>(
							nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_SET_NAME)));
						nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_SET_NAME, n->second.c_str());
					}
					continue;
				}
				if (std::string(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)) != "lookup")
					continue;
				if (nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_SET_ID)) {
					auto n = id_names.find(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SET_ID));
					if (n != id_names.end()) {
						// libnftnl 1.2.4's lookup setter strdup()s the
						// new name without freeing the old one, which
						// the expression owns: free it first.
						free(const_cast<char *>(
							nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET)));
						nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, n->second.c_str());
					}
				}
			}
			nftnl_expr_iter_destroy(it);
			bool at_reference = false;
			if (int err = place_rule(*t, i, r, batch_rules, at_reference)) {
				nftnl_rule_free(r);
				refused.push_back({n, err, at_reference ? i.ref_loc : i.cmd_loc});
			} else if (validate_each_ && !table_valid(*t)) {
				refused.push_back({n, EMLINK, i.cmd_loc});
			}
			break;
		}
		case ItemKind::DelRule: {
			ModelTable *t = find_table(i.family, str(nftnl_rule_get_str(i.rule, NFTNL_RULE_TABLE)));
			if (!t)
				break;
			bool at_reference = false;
			if (int err = delete_rule(*t, i, at_reference))
				refused.push_back({n, err, at_reference ? i.ref_loc : i.cmd_loc});
			break;
		}
		}
	}
	for (const ChainRename &r : renames)
		apply_rename(r);
	purge_removed_rules();
	return refused;
}

// nf_tables_updchain's rename: the chain of the item's handle (ENOENT
// when none: a chain this batch adds has none yet), refused (EEXIST) when
// a chain of the table has the new name or another rename of the batch
// takes it.
int RulesetModel::note_rename(ModelTable &t, const BatchItem &i, std::vector<ChainRename> &renames)
{
	const uint64_t handle = nftnl_chain_get_u64(i.chain, NFTNL_CHAIN_HANDLE);
	const std::string name = str(nftnl_chain_get_str(i.chain, NFTNL_CHAIN_NAME));
	bool found = false;
	for (nftnl_chain *c : t.chains) {
		found = found || nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE) == handle;
		if (str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME)) == name)
			return EEXIST;
	}
	if (!found)
		return ENOENT;
	for (const ChainRename &r : renames)
		if (r.family == t.family && r.table == t.name && r.name == name)
			return EEXIST;
	renames.push_back({t.family, t.name, handle, name});
	return 0;
}

// A rename taking effect at the commit (nft_chain_commit_update): the
// chain's name, and every rule, jump, goto and verdict map element that
// names it (the kernel's point at the chain itself).
void RulesetModel::apply_rename(const ChainRename &r)
{
	ModelTable *t = find_table(r.family, r.table);
	if (!t)
		return;
	std::string old;
	for (nftnl_chain *c : t->chains)
		if (nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE) == r.handle) {
			old = str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
			nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, r.name.c_str());
		}
	if (old.empty())
		return;	/* deleted later in the batch */
	for (nftnl_rule *rule : t->rules) {
		if (str(nftnl_rule_get_str(rule, NFTNL_RULE_CHAIN)) == old)
			nftnl_rule_set_str(rule, NFTNL_RULE_CHAIN, r.name.c_str());
		nftnl_expr_iter *it = nftnl_expr_iter_create(rule);
		for (nftnl_expr *e = nftnl_expr_iter_next(it); e; e = nftnl_expr_iter_next(it))
			if (std::string(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)) == "immediate" &&
			    nftnl_expr_is_set(e, NFTNL_EXPR_IMM_CHAIN) &&
			    str(nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN)) == old)
				nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, r.name.c_str());
		nftnl_expr_iter_destroy(it);
	}
	for (nftnl_set *s : t->sets) {
		nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
		for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it))
			if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_CHAIN) &&
			    str(nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN)) == old)
				nftnl_set_elem_set_str(e, NFTNL_SET_ELEM_CHAIN, r.name.c_str());
		nftnl_set_elems_iter_destroy(it);
	}
}

std::vector<nftnl_rule *>::iterator RulesetModel::rule_by_handle(ModelTable &t, const std::string &chain,
								 uint64_t handle)
{
	return std::find_if(t.rules.begin(), t.rules.end(), [&](nftnl_rule *r) {
		return nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE) == handle &&
		       str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) == chain;
	});
}

std::vector<nftnl_rule *>::iterator RulesetModel::chain_start(ModelTable &t, const std::string &chain)
{
	auto first = std::find_if(t.rules.begin(), t.rules.end(), [&](nftnl_rule *r) {
		return str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) == chain;
	});
	return first;
}

std::vector<nftnl_rule *>::iterator RulesetModel::chain_end(ModelTable &t, const std::string &chain)
{
	auto last = std::find_if(t.rules.rbegin(), t.rules.rend(), [&](nftnl_rule *r) {
		return str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) == chain;
	});
	return last.base();  // after the chain's last rule; the end when it has none
}

// nf_tables_newrule: @r (item @i's rule, its expressions bound already)
// into @t's chain, or an errno (@at_reference: the kernel names the
// handle attribute; nft points a missing position at the command). @batch_rules: the handles of this
// batch's rules by their NFTA_RULE_ID, for NFTA_RULE_POSITION_ID (a
// handle is the table's, the id the batch's).
int RulesetModel::place_rule(ModelTable &t, const BatchItem &i, nftnl_rule *r,
			     std::map<uint32_t, uint64_t> &batch_rules, bool &at_reference)
{
	const std::string chain = str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN));
	const uint32_t id = nftnl_rule_is_set(r, NFTNL_RULE_ID) ? nftnl_rule_get_u32(r, NFTNL_RULE_ID) : 0;
	const bool has_position_id = nftnl_rule_is_set(r, NFTNL_RULE_POSITION_ID);
	const uint32_t position_id = has_position_id ? nftnl_rule_get_u32(r, NFTNL_RULE_POSITION_ID) : 0;
	const bool has_position = nftnl_rule_is_set(r, NFTNL_RULE_POSITION);
	const uint64_t position = has_position ? nftnl_rule_get_u64(r, NFTNL_RULE_POSITION) : 0;
	// what nf_tables keeps of a rule: no position, no batch id
	nftnl_rule_unset(r, NFTNL_RULE_POSITION);
	nftnl_rule_unset(r, NFTNL_RULE_POSITION_ID);
	nftnl_rule_unset(r, NFTNL_RULE_ID);

	if (nftnl_rule_is_set(i.rule, NFTNL_RULE_HANDLE)) {
		// a replace: the rule it names, which the new one takes the place
		// and the handle of
		const uint64_t handle = nftnl_rule_get_u64(i.rule, NFTNL_RULE_HANDLE);
		auto old = rule_by_handle(t, chain, handle);
		at_reference = old == t.rules.end();
		if (old == t.rules.end() || removed_in_batch(*old))
			return ENOENT;
		if (!(i.nlflags & NLM_F_REPLACE))
			return EOPNOTSUPP;
		nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, handle);
		removed_.insert(*old);
		t.rules.insert(old, r);
	} else {
		// the handle is taken before the position is looked up: a
		// refused rule uses one up
		nftnl_rule_set_u64(r, NFTNL_RULE_HANDLE, t.next_handle++);
		auto ref = t.rules.end();
		if (has_position) {
			ref = rule_by_handle(t, chain, position);
			if (ref == t.rules.end())
				return ENOENT;
		} else if (has_position_id) {
			auto found = batch_rules.find(position_id);
			if (found != batch_rules.end())
				ref = rule_by_handle(t, chain, found->second);
			if (ref == t.rules.end())
				return ENOENT;
		}
		if (i.nlflags & NLM_F_APPEND)
			t.rules.insert(ref != t.rules.end() ? ref + 1 : chain_end(t, chain), r);
		else
			t.rules.insert(ref != t.rules.end() ? ref : chain_start(t, chain), r);
	}
	if (id)
		batch_rules[id] = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
	return 0;
}

// nf_tables_delrule of item @i in @t: 0 or an errno, as place_rule.
int RulesetModel::delete_rule(ModelTable &t, const BatchItem &i, bool &at_reference)
{
	const std::string chain = str(nftnl_rule_get_str(i.rule, NFTNL_RULE_CHAIN));
	auto it = rule_by_handle(t, chain, nftnl_rule_get_u64(i.rule, NFTNL_RULE_HANDLE));
	at_reference = it == t.rules.end();
	if (it == t.rules.end() || removed_in_batch(*it))
		return ENOENT;
	removed_.insert(*it);
	return 0;
}

void RulesetModel::purge_removed_rules()
{
	for (auto &t : tables)
		t.rules.erase(std::remove_if(t.rules.begin(), t.rules.end(), [&](nftnl_rule *r) {
			if (!removed_in_batch(r))
				return false;
			nftnl_rule_free(r);
			return true;
		}), t.rules.end());
	removed_.clear();
}

} // namespace xnft
