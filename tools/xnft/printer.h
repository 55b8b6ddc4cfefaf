// printer.h - `list ruleset` / `list table` text from libnftnl objects, as
// nft 1.0.6 prints it (rule.c: table_print, chain_print, set_print,
// flowtable_print), rules through the delinearizer.
//
// Ownership: reads the model; owns nothing. Not thread-safe.
#pragma once
#include <string>

#include "delinearize.h"
#include "ruleset_model.h"

namespace xnft {

std::string print_table(const ModelTable &t, const PrintOptions &o);
std::string print_ruleset(const RulesetModel &m, const PrintOptions &o);

} // namespace xnft
