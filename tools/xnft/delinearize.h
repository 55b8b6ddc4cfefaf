// delinearize.h - libnftnl rule expressions back to nft's text, as
// nftables' netlink_delinearize.c does: loads and compares become
// relational statements, implied dependencies are dropped again, merged
// payload compares are split, masks become prefixes, bit fields or flag
// lists, lookups of anonymous sets print the set inline.
//
// Ownership: reads the rule and the table's sets; owns nothing. Not
// thread-safe.
#pragma once
#include <string>
#include <vector>

#include "json.h"
#include "ruleset_model.h"

struct nftnl_expr;
struct nftnl_rule;
struct nftnl_set;
struct nftnl_set_elem;

namespace xnft {

struct PrintOptions {
	bool handles = false;    // -a
	bool stateless = false;  // -s
	bool numeric = false;    // -n: symbols as numbers (JSON); priorities as numbers
	bool json = false;       // -j
	bool terse = false;      // -t: named sets and maps without their elements
	bool numeric_prio = false;  // -y: priorities as numbers (-n includes it)
	// a lookup of a set the table does not have prints as nothing (nft's
	// netlink_parse_lookup fails on it: nft monitor, whose cache forgets
	// sets): what it read stays in its register, so a map's key becomes
	// the value; set statements and object maps print as ever
	bool unknown_set_lookups_dropped = false;
};

// nft's get_rate: BYTES in the largest of bytes, kbytes and mbytes it is a
// whole number of; that unit in UNIT.
uint64_t data_rate(uint64_t bytes, std::string &unit);
// nft's get_unit: a limit's unit of time, in seconds, by its name
// ("error" for one nft does not name).
const char *time_unit_name(uint64_t seconds);

// What nft prints of an anonymous counter, quota, limit or connlimit
// (counter_stmt_print, quota_stmt_print, limit_stmt_print,
// connlimit_stmt_print and their JSON): a counter's values and a quota's
// use not with STATELESS.
void stateful_print(nftnl_expr *e, bool stateless, std::string &text, Json &json);

// The rule's statements as nft prints them, space-joined (no handle).
std::string delinearize_rule(nftnl_rule *r, const ModelTable &table, const PrintOptions &o);

// A rule both ways: its text (as delinearize_rule) and its statements as
// `nft -j` prints a rule's "expr" array; the comment separately (JSON puts
// it beside "expr").
struct DelinearizedRule {
	std::string text;
	Json expr;
	std::string comment;
	bool has_comment = false;
};
DelinearizedRule delinearize(nftnl_rule *r, const ModelTable &table, const PrintOptions &o);

// "{ a, b-c, d/8 }" for a set's elements, typed by its key (named sets
// decode the key type from the set; KEYS overrides it for anonymous sets).
struct KeyPart;
// Named sets wrap lines as nft does (elements_per_line); anonymous sets
// print on one line.
// Elements with a timeout or an expiration print them as nft does (no
// `expires` with STATELESS).
std::string format_elements(nftnl_set *s, const std::vector<KeyPart> &keys,
			    const KeyPart *data, bool verdict_map, bool numeric = false,
			    bool stateless = false);
// The same elements as `-j` prints them: values, {"range": [a, b]},
// {"prefix": {...}}, {"concat": [...]}, [key, data] for maps; elements'
// statements without their state with STATELESS.
Json elements_json(nftnl_set *s, const std::vector<KeyPart> &keys, const KeyPart *data, bool verdict_map,
		   bool numeric, bool stateless = false);
// Each element (an interval's start and end joined) as text and as JSON:
// what format_elements and elements_json list.
struct ElementItem {
	std::string text;
	Json json;
};
std::vector<ElementItem> element_items(nftnl_set *s, const std::vector<KeyPart> &keys, const KeyPart *data,
				       bool verdict_map, bool numeric, bool stateless = false);
// What of an element element_items shows beside its key and its data.
enum class ElemShow {
	All,		// its statements, timeout, expires, comment: `list`
	Clone,		// all but its statements, which nft's set_elem_expr_clone
			// drops (`get element`'s single values, an interval map's)
	RangeCache,	// a Clone but for an open interval: nft's monitor keeps a
			// range's start as a clone until its end comes
			// (netlink_event_range_cache), not an open one's
	KeyOnly,	// nothing: `get element` answers a range found in its
			// cache with the range alone (get_set_interval_find)
};
// The same of ELEMS, elements of @s, in place of all of @s's; INTERVAL:
// whether @s is an interval set, whose starts and ends pair (a lone start
// then reaches the key's maximum) unless SINGLES: then each start is one
// value (and its data), its interval end not listed. SHOW: what else of
// each element is shown.
std::vector<ElementItem> element_items(nftnl_set *s, const std::vector<nftnl_set_elem *> &elems, bool interval,
				       const std::vector<KeyPart> &keys, const KeyPart *data, bool verdict_map,
				       bool numeric, bool stateless = false, bool singles = false,
				       ElemShow show = ElemShow::All);
// The key parts a set's KEY_TYPE (concatenation of 6-bit type ids) means,
// each expression's length and byte order taken from its typeof when its
// USERDATA has one (a 12-bit big-endian `vlan id` in an integer key).
std::vector<KeyPart> keyparts_of_set(nftnl_set *s);
// A map's data part (DATA_TYPE, DATA_LEN and USERDATA); not for verdicts.
KeyPart datapart_of_set(nftnl_set *s);

} // namespace xnft
