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

#include "ruleset_model.h"

struct nftnl_rule;
struct nftnl_set;

namespace xnft {

struct PrintOptions {
	bool handles = false;    // -a
	bool stateless = false;  // -s
	bool numeric = false;    // -n (accepted; nft 1.0.6 prints ports numerically anyway)
};

// The rule's statements as nft prints them, space-joined (no handle).
std::string delinearize_rule(nftnl_rule *r, const ModelTable &table, const PrintOptions &o);

// "{ a, b-c, d/8 }" for a set's elements, typed by its key (named sets
// decode the key type from the set; KEYS overrides it for anonymous sets).
struct KeyPart;
// Named sets wrap lines as nft does (elements_per_line); anonymous sets
// print on one line.
std::string format_elements(nftnl_set *s, const std::vector<KeyPart> &keys,
			    const KeyPart *data, bool verdict_map);
// The key parts a set's KEY_TYPE (concatenation of 6-bit type ids) means.
std::vector<KeyPart> keyparts_of_set(nftnl_set *s);

} // namespace xnft
