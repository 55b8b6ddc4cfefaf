// refusal.h - a batch message the kernel refused, and where nft points its
// complaint in the input.
//
// nf_tables names the attribute at fault in each refusal (NL_SET_BAD_ATTR:
// a table, chain, set or object name, a handle, a rule's position, one
// element of an element list). nft, building each message, records the
// source location of the attributes it puts (cmd_add_loc) and prints a
// refusal at the named attribute's location when it has one, at the
// command's otherwise: "FILE:L:C-C: Error: Could not process rule: ...",
// the line and carets. BatchItem carries those locations; this maps a
// refusal to one of them.
//
// Ownership: plain values. Stateless; thread-compatible.
#pragma once
#include <string>
#include <vector>

#include "batch.h"
#include "diagnostics.h"
#include "not_found.h"
#include "wire.h"

namespace xnft {

struct Refusal {
	int index = -1;        // the message's place in the batch; -1: unknown
	int err = 0;           // positive errno
	int attr_offset = -1;  // the attribute at fault: its offset in the
	                       // message's attributes; -1: the message itself
	std::string msg;       // the kernel's extack message ("" if none)
};

// Where nft points @r's complaint about @item, encoded as @msg; invalid
// when the item records no location at all.
Location refusal_location(const BatchItem &item, const WireMsg &msg, int attr_offset);

// nft's report of @r: "Error: Could not process rule: <strerror>" at its
// location, with the source line and carets; without a location, the bare
// line and the kernel's message under it.
std::string format_refusal(const Refusal &r, const Location &where);

// nft's report of the kernel's @err for @item at @where: as
// format_refusal(), but an ENOENT at an attribute nft recorded a place
// for is worded by nft_cmd_enoent - a close name in @cache (nft's cache,
// or null) suggested instead of "Could not process rule", at the table
// when the suggestion is another table.
std::string report_item_refusal(const BatchItem &item, int err, const Location &where,
				const std::string &kernel_msg, const CacheNames *cache);

// report_item_refusal() of @r, a refusal of @batch sent as @wire (one
// message per item), at refusal_location() of its item when it names one.
std::string report_refusal(const Refusal &r, const Batch &batch, const std::vector<WireMsg> &wire,
			   const CacheNames *cache = nullptr);

} // namespace xnft
