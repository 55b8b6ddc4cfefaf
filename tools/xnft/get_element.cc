// get_element.cc - `get element` (see get_element.h).
#include "get_element.h"
#include "not_found.h"

#include <libnftnl/set.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include <algorithm>
#include <vector>

#include "compiler.h"
#include "linearize.h"
#include "printer.h"

namespace xnft {

namespace {

std::string str(const char *s) { return s ? s : ""; }

// A deep copy of E (a set literal's item), to type it alone.
ExprPtr clone(const Expr &e)
{
	auto c = make_expr(e.kind, e.loc);
	c->text = e.text;
	c->quoted = e.quoted;
	c->proto = e.proto;
	c->chain = e.chain;
	c->modulus = e.modulus;
	c->offset = e.offset;
	c->seed = e.seed;
	c->seed_given = e.seed_given;
	c->exthdr_op = e.exthdr_op;
	c->exthdr_type = e.exthdr_type;
	c->exthdr_offset = e.exthdr_offset;
	c->exthdr_bits = e.exthdr_bits;
	c->exthdr_present = e.exthdr_present;
	c->elem_timeout_ms = e.elem_timeout_ms;
	c->elem_expires_ms = e.elem_expires_ms;
	c->elem_comment = e.elem_comment;
	c->elem_loc = e.elem_loc;
	for (auto &i : e.items)
		c->items.push_back(clone(*i));
	for (auto &d : e.data)
		c->data.push_back(d ? clone(*d) : nullptr);
	return c;
}

// One dumped element: a key, an interval end or not, a concatenated
// range's end.
struct Seg {
	Bytes key, key_end;
	uint32_t flags = 0;
	nftnl_set_elem *e = nullptr;
	bool end() const { return flags & NFT_SET_ELEM_INTERVAL_END; }
};

Bytes elem_bytes(nftnl_set_elem *e, uint16_t attr)
{
	uint32_t n = 0;
	const void *d = nftnl_set_elem_is_set(e, attr) ? nftnl_set_elem_get(e, attr, &n) : nullptr;
	const uint8_t *p = static_cast<const uint8_t *>(d);
	return p ? Bytes(p, p + n) : Bytes();
}

// The set's elements in dump order, but catch-all ones.
std::vector<Seg> segments(nftnl_set *s)
{
	std::vector<Seg> out;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it)) {
		Seg g;
		g.e = e;
		g.key = elem_bytes(e, NFTNL_SET_ELEM_KEY);
		g.key_end = elem_bytes(e, NFTNL_SET_ELEM_KEY_END);
		g.flags = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS) ? nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS) : 0;
		if (!(g.flags & NFT_SET_ELEM_CATCHALL))
			out.push_back(std::move(g));
	}
	nftnl_set_elems_iter_destroy(it);
	return out;
}

bool all_zero(const Bytes &b)
{
	return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

// nft_rbtree_get, as Linux answers it (core/nft_dump.cc rbtree_get): the
// element with @key and the kind asked for; else for a start the nearest
// element below it if that starts a range (not when an interval end
// stands at @key), for an interval end the nearest above it if that ends
// one; never nft's leading end at 0. Keys compare as bytes (nft sends an
// interval set's keys big-endian). -1 if none.
long rbtree_get(const std::vector<Seg> &segs, const Bytes &key, bool want_end)
{
	long near = -1;
	bool end_at_key = false;
	for (size_t i = 0; i < segs.size(); i++) {
		const Seg &g = segs[i];
		if (g.end() && all_zero(g.key))
			continue;
		if (g.key == key) {
			if (g.end() == want_end)
				return long(i);
			end_at_key |= g.end();
			continue;
		}
		if (want_end ? g.key < key : g.key > key)
			continue;
		if (near < 0) {
			near = long(i);
			continue;
		}
		const Seg &n = segs[size_t(near)];
		if ((want_end ? g.key < n.key : g.key > n.key) ||
		    (g.key == n.key && g.end() == want_end && n.end() != want_end))
			near = long(i);
	}
	if (end_at_key || near < 0 || segs[size_t(near)].end() != want_end)
		return -1;
	return near;
}

// A range of nft's cache of an interval set: its start's and end's
// elements (-1: none, the range reaches the key's maximum) and its first
// and last value.
struct Range {
	long start, end;
	Bytes lo, hi;
};

Bytes minus_one(Bytes b)
{
	for (size_t i = b.size(); i-- > 0;)
		if (b[i]-- != 0)
			break;
	return b;
}

// The set's ranges, each start with the element after it in key order
// (an interval end sorts before a start at its key), as a listing pairs
// them.
std::vector<Range> ranges_of(const std::vector<Seg> &segs)
{
	std::vector<size_t> order(segs.size());
	for (size_t i = 0; i < order.size(); i++)
		order[i] = i;
	std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
		if (segs[a].key != segs[b].key)
			return segs[a].key < segs[b].key;
		return segs[a].end() && !segs[b].end();
	});
	std::vector<Range> out;
	for (size_t j = 0; j < order.size(); j++) {
		const Seg &g = segs[order[j]];
		if (g.end())
			continue;
		Range r{long(order[j]), -1, g.key, Bytes(g.key.size(), 0xff)};
		if (j + 1 < order.size()) {
			r.hi = minus_one(segs[order[j + 1]].key);
			if (segs[order[j + 1]].end())
				r.end = long(order[j + 1]);
		}
		out.push_back(std::move(r));
	}
	return out;
}

// Does the concatenated range @g hold @key in every field (each compared
// big-endian over its own length, fields padded to 4 bytes)?
bool range_holds(const Seg &g, const Bytes &key, const std::vector<KeyPart> &parts)
{
	const Bytes &hi = g.key_end.empty() ? g.key : g.key_end;
	size_t at = 0;
	for (const KeyPart &p : parts) {
		const size_t n = p.bytes;
		if (at + n > key.size() || at + n > g.key.size() || at + n > hi.size())
			return false;
		const auto k = key.begin() + long(at);
		if (std::lexicographical_compare(k, k + long(n), g.key.begin() + long(at), g.key.begin() + long(at + n)) ||
		    std::lexicographical_compare(hi.begin() + long(at), hi.begin() + long(at + n), k, k + long(n)))
			return false;
		at += (n + 3) / 4 * 4;
	}
	return true;
}

[[noreturn]] void not_found(const Command &c)
{
	throw LangError(c.loc, "Could not process rule: No such file or directory");
}

} // namespace

std::string print_get_element(const RulesetModel &m, const Command &c, const PrintOptions &o)
{
	const ModelTable *table = nullptr;
	for (auto &t : m.tables)
		if (t.name == c.table && family_name(t.family) == (c.family.empty() ? "ip" : c.family))
			table = &t;
	if (!table)
		throw LangError(c.table_loc, table_not_found(CacheNames::of(m), c.table));
	nftnl_set *s = nullptr;
	for (nftnl_set *x : table->sets)
		if (str(nftnl_set_get_str(x, NFTNL_SET_NAME)) == c.set)
			s = x;
	if (!s)
		throw LangError(c.name_loc, set_not_found(CacheNames::of(m), c.set));

	// the elements as nft sends them: each asked for typed alone, so
	// that none merges with another and their order stays
	Batch scratch;
	Compiler compiler(scratch);
	compiler.learn(m);
	const uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	const bool interval = flags & NFT_SET_INTERVAL;
	const bool is_map = flags & NFT_SET_MAP;
	const std::vector<KeyPart> keys = keyparts_of_set(s);
	const bool concat = keys.size() > 1;
	const bool verdict = is_map && nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE) == NFT_DATA_VERDICT;
	KeyPart data{};
	if (is_map && !verdict)
		data = datapart_of_set(s);

	const std::vector<Seg> segs = segments(s);
	const std::vector<Range> ranges = interval && !concat ? ranges_of(segs) : std::vector<Range>{};
	// what is printed, in order: each a set of elements element_items
	// writes as one (a range's start and end, or one element) and what
	// it shows of them
	std::vector<std::pair<std::vector<nftnl_set_elem *>, ElemShow>> items;
	std::vector<nftnl_set_elem *> found;  // without intervals: listed sorted
	bool as_is = false;                   // interval maps: the start alone
	const Expr &lit = *c.elements;
	for (size_t i = 0; i < lit.items.size(); i++) {
		Expr one;
		one.kind = ExprKind::SetLit;
		one.loc = lit.loc;
		one.items.push_back(clone(*lit.items[i]));
		one.data.push_back(nullptr);  // a map's data asked for is not looked at
		SetInfo si;
		const std::vector<Element> req = compiler.get_request(c, one, si);
		if (!interval) {
			// the same key (a hash's get)
			const Seg *hit = nullptr;
			for (const Seg &g : segs)
				if (!req.empty() && g.key == req[0].key)
					hit = &g;
			if (!hit)
				not_found(c);
			found.push_back(hit->e);
			continue;
		}
		if (concat) {
			// nft_pipapo_get: the first range holding the key
			const Seg *hit = nullptr;
			for (const Seg &g : segs)
				if (!hit && !req.empty() && range_holds(g, req[0].key, keys))
					hit = &g;
			if (!hit)
				not_found(c);
			items.push_back({{hit->e}, ElemShow::All});
			continue;
		}
		// a single-field interval set: what nft sends (a value's start;
		// a range's start and its end + 1, flagged), the kernel's answer
		// to each, then nft's get_set_decompose on the answers
		const Element *start = nullptr, *end = nullptr;
		for (const Element &e : req) {
			if (!start && !(e.flags & NFT_SET_ELEM_INTERVAL_END))
				start = &e;
			else if (start && !end && (e.flags & NFT_SET_ELEM_INTERVAL_END))
				end = &e;
		}
		if (!start)
			not_found(c);
		const bool range_asked = is_interval_value(keys[0], *lit.items[i]);
		std::vector<long> answers;
		answers.push_back(rbtree_get(segs, start->key, false));
		if (range_asked) {
			// a range up to the maximum: nft's end + 1 wraps to 0
			answers.push_back(end ? rbtree_get(segs, end->key, true)
					      : rbtree_get(segs, Bytes(start->key.size(), 0), true));
		}
		for (long a : answers)
			if (a < 0)
				not_found(c);
		const Seg &left = segs[size_t(answers[0])];
		if (answers.size() > 1 && !segs[size_t(answers[1])].end()) {
			// the second answer is no end: nft takes both as starts
			// (cannot happen with the kernel's answers above)
			not_found(c);
		}
		const Range *r = nullptr;
		for (const Range &x : ranges) {
			if (x.lo != left.key || x.lo == x.hi)
				continue;
			if (answers.size() > 1 && x.hi != minus_one(segs[size_t(answers[1])].key))
				continue;
			r = &x;
		}
		if (is_map || !r) {
			// nft's cache has no range for it (a map's never has
			// one): a range asked for is not found, a value is
			// printed as the kernel answered it
			if (answers.size() > 1)
				not_found(c);
			if (is_map) {
				as_is = true;
				items.push_back({{left.e}, ElemShow::Clone});
				continue;
			}
			for (const Range &x : ranges)
				if (x.lo == left.key)
					r = &x;
			if (!r)
				not_found(c);
		}
		std::vector<nftnl_set_elem *> pair{segs[size_t(r->start)].e};
		if (r->end >= 0)
			pair.push_back(segs[size_t(r->end)].e);
		// a range of nft's cache answers as the range alone; a single
		// value is the kernel's answer cloned
		items.push_back({std::move(pair), r->lo == r->hi ? ElemShow::Clone : ElemShow::KeyOnly});
	}

	std::vector<std::string> texts;
	const KeyPart *dp = is_map && !verdict ? &data : nullptr;
	if (!interval) {
		for (auto &it : element_items(s, found, false, keys, dp, verdict, o.numeric, o.stateless))
			texts.push_back(it.text);
	} else {
		// nft's get_set_decompose rebuilds a single field's intervals
		for (auto &[elems, show] : items)
			for (auto &it : element_items(s, elems, interval, keys, dp, verdict, o.numeric, o.stateless,
						      as_is, show))
				texts.push_back(it.text);
	}
	return "table " + family_name(table->family) + " " + table->name + " {\n" + print_set(s, o, texts) + "}\n";
}

} // namespace xnft
