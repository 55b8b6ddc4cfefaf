// raw_payload.h - nft's raw payload expression, @BASE,OFFSET,LENGTH: LENGTH
// bits found OFFSET bits into the link (ll), network (nh), transport (th)
// or inner (ih) header, with no protocol of its own (no dependency, no
// protocol context). nft types it as a hexadecimal integer, but for the
// 16 bits at transport offset 0 and 16, which are its `th sport` and `th
// dport` (payload_init_raw): the parser turns those into the named field.
//
// Ownership: static tables; no state. Thread-safe.
#pragma once
#include <cstdint>
#include <string>

#include "ast.h"
#include "compiler.h"

namespace xnft {

// The NFT_PAYLOAD_*_HEADER a base's word names; -1 for none.
int raw_payload_base(const std::string &word);
// The word of NFT_PAYLOAD_*_HEADER BASE ("ll", "nh", "th", "ih").
const char *raw_payload_base_name(uint32_t base);
// The named field nft makes of a raw payload (`th sport`, `th dport`);
// null for any other.
const char *raw_payload_th_field(uint32_t base, uint32_t offset, uint32_t bits);

// What the load of E (a RawPayload) yields: an integer of its bits in
// big-endian order, in the bytes its bits touch, shifted left as a header
// bit field is. Throws LangError for a length nft cannot load (0, or a bit
// field's mask past a register: nft 1.0.6 aborts on an assertion there).
KeyPart raw_payload_part(const Expr &e);

} // namespace xnft
