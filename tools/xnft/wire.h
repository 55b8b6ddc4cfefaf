// wire.h - a Batch as the nf_tables requests it stands for: one message
// type, netlink flags, family and attribute payload per item, in batch
// order, encoded by libnftnl exactly as nft encodes them. This is what xnft
// sends to the xbridge family, and what the rule engine's tests feed to
// the core's ruleset (core/nft_ruleset.h).
//
// Ownership: WireMsg owns its bytes. Stateless; thread-compatible.
#pragma once
#include <cstdint>
#include <vector>

#include "batch.h"

namespace xnft {

struct WireMsg {
	uint16_t type;     // NFT_MSG_*
	uint16_t flags;    // NLM_F_* request flags
	uint32_t family;   // nfgen family
	std::vector<uint8_t> attrs;  // the message's attributes (after nfgenmsg)
};

std::vector<WireMsg> encode_batch(const Batch &batch);

} // namespace xnft
