// get_element.h - `get element FAMILY TABLE SET { ELEMENT, ... }`, as nft
// 1.0.6 answers it: the set's block, as `list set` prints it, with only the
// elements that hold those asked for.
//
// nft sends NFT_MSG_GETSETELEM (without NLM_F_DUMP) with each element as it
// would delete it (a range as its start and, flagged interval end, its end
// + 1), the kernel answers each with the set's element that holds it
// (nft_get_set_elem; core/nft_dump.h get_set_elem is xbridge's), and nft
// turns the answers of an interval set back into the ranges of its cache
// (get_set_decompose). xnft answers from the ruleset it read (the family's
// dumps, or --list-offline's model) the same way: the kernel's choice
// (set->ops->get) made on the dumped elements, then nft's.
//
// What nft 1.0.6 prints (checked against nft 1.0.6 on Linux 6.18):
// - a set without intervals: the elements with the keys asked for, sorted
//   as a listing sorts them, once for each time one was asked for;
// - a single-field interval set: for each element asked for, in that
//   order, the range that holds it (a single value when the set holds
//   it alone); a range asked for must be one of the set's ranges exactly,
//   else no element holds it;
// - an interval map: the element starting the range that holds a value
//   asked for, as `START : DATA` (nft finds no range in a map's cache); a
//   range asked for is not found;
// - a concatenated interval set: the element holding each key asked for
//   (the start of a range asked for; its end is not looked at);
// - maps with their data, elements with their timeouts and expirations.
// An element nothing holds is nft's "Could not process rule: No such file
// or directory" at the whole command; a missing table or set "No such file
// or directory" at its name. With -j nft 1.0.6 prints the same text.
//
// Ownership: reads the model; owns nothing it returns. Not thread-safe.
#pragma once
#include <string>

#include "ast.h"
#include "delinearize.h"
#include "ruleset_model.h"

namespace xnft {

// The answer to C (Verb::Get, Obj::Element) from M; throws LangError with
// nft's message when there is none.
std::string print_get_element(const RulesetModel &m, const Command &c, const PrintOptions &o);

} // namespace xnft
