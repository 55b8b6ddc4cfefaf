// printer.h - `list` output from libnftnl objects, as nft 1.0.6 prints it:
// text (rule.c: table_print, chain_print, set_print, flowtable_print and
// the do_list_* commands) and `-j` JSON (json.c), rules through the
// delinearizer.
//
// Ownership: reads the model; owns nothing. Not thread-safe.
#pragma once
#include <string>
#include <vector>

#include "ast.h"
#include "delinearize.h"
#include "json.h"
#include "ruleset_model.h"

namespace xnft {

std::string print_table(const ModelTable &t, const PrintOptions &o);

// The pieces `list` prints (also what `monitor` prints, on one line):
// "bridge" for NFPROTO_BRIDGE; a set, flowtable or chain block as it
// appears inside its table (tab-indented lines; a chain with its rules
// or without); one object as `-j` prints it ({"table": {...}}, ...).
std::string family_name(uint32_t f);
std::string print_set(nftnl_set *s, const PrintOptions &o);
// The same block with ELEMENTS (each as element_items writes one) in its
// `elements = { ... }` line instead of @s's own, in this order.
std::string print_set(nftnl_set *s, const PrintOptions &o, const std::vector<std::string> &elements);
std::string print_flowtable(nftnl_flowtable *f, const PrintOptions &o);
std::string print_counter(nftnl_obj *c, const PrintOptions &o);
std::string print_quota(nftnl_obj *q, const PrintOptions &o);
std::string print_limit(nftnl_obj *l, const PrintOptions &o);
std::string print_object(nftnl_obj *ob, const PrintOptions &o);  // a counter, quota or limit
std::string print_chain(nftnl_chain *c, const ModelTable &t, const PrintOptions &o, bool rules = true);
Json table_json(const ModelTable &t);
Json chain_json(nftnl_chain *c, const ModelTable &t);
Json set_json(nftnl_set *s, const ModelTable &t, const PrintOptions &o);
Json flowtable_json(nftnl_flowtable *f, const ModelTable &t);
// @comment false: without the comment (a monitor's delete line).
Json counter_json(nftnl_obj *c, const ModelTable &t, bool comment = true);
Json quota_json(nftnl_obj *q, const ModelTable &t, bool comment = true);
Json limit_json(nftnl_obj *l, const ModelTable &t, bool comment = true);
Json object_json(nftnl_obj *ob, const ModelTable &t);  // a counter, quota or limit
Json rule_json(nftnl_rule *r, const ModelTable &t, const PrintOptions &o);
std::string print_ruleset(const RulesetModel &m, const PrintOptions &o);

// The metainfo nft 1.0.6 opens every JSON document with: its own version
// and release name, so that xnft's output equals nft's byte for byte.
#define NFT_JSON_VERSION "1.0.6"
#define NFT_JSON_RELEASE_NAME "Lester Gooch #5"

// {"nftables": [{"metainfo": ...}, ITEMS...]} on one line, as nft -j
// prints a `list` command's answer.
std::string json_document(Json items);

// What one `list` command (ruleset, table, tables, chain, chains, set,
// sets, map, maps, flowtable, flowtables) prints from M, as nft 1.0.6
// prints it: text, or with o.json the JSON document. A table, chain, set,
// map or flowtable that does not exist throws LangError("No such file or
// directory") at its name, as nft reports it.
std::string print_list(const RulesetModel &m, const Command &c, const PrintOptions &o);
// `get element` (get_element.h), as print_list answers a listing.

} // namespace xnft
