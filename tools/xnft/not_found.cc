// not_found.cc - see not_found.h.
#include "not_found.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/set.h>
#include <linux/netfilter/nf_tables.h>

#include "printer.h"
#include "ruleset_model.h"

namespace xnft {

namespace {

// nft's misspelling distance (misspell.c): Wagner's string-to-string
// correction, computed as nft computes it, which matters for the
// suggestions it makes: characters compare one place further on (the
// last against the string's end), and the table's rows are one cell
// short, so a row's last cell is the next row's first.
unsigned misspelling_distance(const std::string &a, const std::string &b)
{
	const size_t len_a = a.size(), len_b = b.size();
	std::vector<unsigned> cells((len_a + 1) * (len_b + 1), 0);
	auto cell = [&](size_t i, size_t j) -> unsigned & { return cells[i * len_b + j]; };
	auto at = [](const std::string &s, size_t i) { return i < s.size() ? s[i] : '\0'; };
	for (size_t i = 0; i <= len_a; i++)
		cell(i, 0) = static_cast<unsigned>(i);
	for (size_t j = 0; j <= len_b; j++)
		cell(0, j) = static_cast<unsigned>(j);
	for (size_t i = 1; i <= len_a; i++) {
		for (size_t j = 1; j <= len_b; j++) {
			const unsigned substitution = at(a, i) == at(b, j) ? 0 : 1;
			unsigned d = std::min({cell(i - 1, j) + 1, cell(i, j - 1) + 1,
					       cell(i - 1, j - 1) + substitution});
			if (i > 1 && j > 1 && at(a, i) == at(b, j - 1) && at(a, i - 1) == at(b, j))
				d = std::min(d, cell(i - 2, j - 2) + substitution);
			cell(i, j) = d;
		}
	}
	return cell(len_a, len_b);
}

// Whether nft would take CANDIDATE for a misspelling of WANTED, and how
// far it is (string_misspell_update's threshold).
std::optional<unsigned> misspelling(const std::string &candidate, const std::string &wanted)
{
	const size_t longer = std::max(candidate.size(), wanted.size());
	const size_t shorter = std::min(candidate.size(), wanted.size());
	if (longer <= 1)
		return std::nullopt;
	const size_t threshold = longer - shorter <= 1 ? std::max<size_t>((longer + 2) / 3, 1)
						       : (longer + 2 + 2) / 3;
	const unsigned d = misspelling_distance(candidate, wanted);
	if (d > threshold)
		return std::nullopt;
	return d;
}

// The closest of the names nft's cache lists, in its order, as
// string_misspell_update keeps it: the first of equal distances wins.
struct Closest {
	unsigned distance = ~0u;
	std::string name;	/* the candidate's */
	const CacheNames::Table *table = nullptr;	/* the candidate's */
	bool is_map = false;

	bool consider(const std::string &candidate, const std::string &wanted,
		      const CacheNames::Table &in)
	{
		const std::optional<unsigned> d = misspelling(candidate, wanted);
		if (!d || *d >= distance)
			return false;
		distance = *d;
		name = candidate;
		table = &in;
		return true;
	}
	bool found() const { return table != nullptr; }
};

const char *const kEnoent = "No such file or directory";

Closest closest_table(const CacheNames &cache, const std::string &wanted)
{
	Closest c;
	for (const CacheNames::Table &t : cache.tables)
		c.consider(t.name, wanted, t);
	return c;
}

Closest closest_in(const CacheNames &cache, const std::string &wanted,
		   const std::vector<std::string> CacheNames::Table::*names)
{
	Closest c;
	for (const CacheNames::Table &t : cache.tables)
		for (const std::string &name : t.*names)
			c.consider(name, wanted, t);
	return c;
}

Closest closest_set(const CacheNames &cache, const std::string &wanted)
{
	Closest c;
	for (const CacheNames::Table &t : cache.tables)
		for (const CacheNames::Set &set : t.sets)
			if (c.consider(set.name, wanted, t))
				c.is_map = set.is_map;
	return c;
}

std::string in_table(const Closest &c)
{
	return " in table " + c.table->family + " \u2018" + c.table->name + "\u2019?";
}

std::string did_you_mean(const char *what, const Closest &c)
{
	return std::string(kEnoent) + "; did you mean " + what + " \u2018" + c.name + "\u2019" +
	       in_table(c);
}

std::string did_you_mean_table(const CacheNames::Table &t)
{
	return std::string(kEnoent) + "; did you mean table \u2018" + t.name + "\u2019 in family " +
	       t.family + "?";
}

} // namespace

CacheNames CacheNames::of(const TableMap &tables)
{
	CacheNames cache;
	for (const auto &[key, info] : tables) {
		Table t;
		t.family = key.substr(0, key.find(' '));
		t.name = key.substr(key.find(' ') + 1);
		for (const auto &[name, unused] : info.chains)
			t.chains.push_back(name);
		// the sets in the order they were made
		std::vector<const SetInfo *> sets;
		for (const auto &[name, set] : info.sets)
			sets.push_back(&set);
		std::stable_sort(sets.begin(), sets.end(),
				 [](const SetInfo *x, const SetInfo *y) { return x->id < y->id; });
		for (const SetInfo *set : sets)
			t.sets.push_back({set->name, set->is_map || set->objtype != 0});
		for (const auto *names : {&info.counters, &info.quotas, &info.limits})
			for (const auto &[name, unused] : *names)
				t.objects.push_back(name);
		for (const auto &[name, unused] : info.flowtables)
			t.flowtables.push_back(name);
		cache.tables.push_back(std::move(t));
	}
	return cache;
}

CacheNames CacheNames::of(const RulesetModel &model)
{
	CacheNames cache;
	for (const ModelTable &mt : model.tables) {
		Table t;
		t.family = family_name(mt.family);
		t.name = mt.name;
		for (nftnl_chain *c : mt.chains)
			t.chains.push_back(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
		for (nftnl_set *s : mt.sets) {
			const uint32_t flags = nftnl_set_is_set(s, NFTNL_SET_FLAGS)
						       ? nftnl_set_get_u32(s, NFTNL_SET_FLAGS) : 0;
			if (flags & NFT_SET_ANONYMOUS)
				continue;
			t.sets.push_back({nftnl_set_get_str(s, NFTNL_SET_NAME),
					  (flags & (NFT_SET_MAP | NFT_SET_OBJECT)) != 0});
		}
		for (nftnl_obj *o : mt.objs)
			t.objects.push_back(nftnl_obj_get_str(o, NFTNL_OBJ_NAME));
		for (nftnl_flowtable *f : mt.flowtables)
			t.flowtables.push_back(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME));
		cache.tables.push_back(std::move(t));
	}
	return cache;
}

bool CacheNames::has_table(const std::string &family, const std::string &name) const
{
	for (const Table &t : tables)
		if (t.family == family && t.name == name)
			return true;
	return false;
}

std::string table_not_found(const CacheNames &cache, const std::string &table)
{
	const Closest c = closest_table(cache, table);
	return c.found() ? did_you_mean_table(*c.table) : kEnoent;
}

std::string chain_not_found(const CacheNames &cache, const std::string &chain)
{
	const Closest c = closest_in(cache, chain, &CacheNames::Table::chains);
	return c.found() ? did_you_mean("chain", c) : kEnoent;
}

std::string set_not_found(const CacheNames &cache, const std::string &set)
{
	const Closest c = closest_set(cache, set);
	return c.found() ? did_you_mean(c.is_map ? "map" : "set", c) : kEnoent;
}

std::string object_not_found(const CacheNames &cache, const std::string &object)
{
	const Closest c = closest_in(cache, object, &CacheNames::Table::objects);
	return c.found() ? did_you_mean("obj", c) : kEnoent;
}

std::string flowtable_not_found(const CacheNames &cache, const std::string &flowtable)
{
	const Closest c = closest_in(cache, flowtable, &CacheNames::Table::flowtables);
	return c.found() ? did_you_mean("flowtable", c) : kEnoent;
}

KernelNotFound kernel_not_found(const CacheNames &cache, Obj obj, const std::string &family,
				const std::string &table, const std::string &name)
{
	const std::string refused = std::string("Could not process rule: ") + kEnoent;
	if (obj == Obj::Table) {
		const Closest c = closest_table(cache, table);
		return {c.found() ? did_you_mean_table(*c.table) : refused, false};
	}
	Closest c;
	const char *what = "";
	switch (obj) {
	case Obj::Chain:
	case Obj::Rule:
		c = closest_in(cache, name, &CacheNames::Table::chains);
		what = "chain";
		break;
	case Obj::Set:
	case Obj::Map:
		c = closest_set(cache, name);
		what = c.is_map ? "map" : "set";
		break;
	case Obj::Counter:
	case Obj::Quota:
	case Obj::Limit:
		c = closest_in(cache, name, &CacheNames::Table::objects);
		what = "obj";
		break;
	case Obj::Flowtable:
		c = closest_in(cache, name, &CacheNames::Table::flowtables);
		what = "flowtable";
		break;
	default:
		return {refused, false};
	}
	if (!c.found())
		return {refused, false};
	// the command's table is not there, and the close name is in another
	if (!cache.has_table(family, table) && (c.table->name != table || c.table->family != family))
		return {did_you_mean_table(*c.table), true};
	// a rule's chain that is there: the kernel's ENOENT is about
	// something else
	if (obj == Obj::Rule && c.name == name)
		return {refused, false};
	return {did_you_mean(what, c), false};
}

} // namespace xnft
