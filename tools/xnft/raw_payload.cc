// raw_payload.cc - nft's raw payload expression (see raw_payload.h).
#include "raw_payload.h"

#include <linux/netfilter/nf_tables.h>

#include "datatypes.h"

namespace xnft {

namespace {

// The bases in NFT_PAYLOAD_* order.
constexpr const char *kBaseNames[] = {"ll", "nh", "th", "ih"};

} // namespace

int raw_payload_base(const std::string &word)
{
	for (unsigned i = 0; i < std::size(kBaseNames); i++)
		if (word == kBaseNames[i])
			return static_cast<int>(i);
	return -1;
}

const char *raw_payload_base_name(uint32_t base)
{
	return base < std::size(kBaseNames) ? kBaseNames[base] : "ll";
}

const char *raw_payload_th_field(uint32_t base, uint32_t offset, uint32_t bits)
{
	if (base != NFT_PAYLOAD_TRANSPORT_HEADER || bits != 16)
		return nullptr;
	return offset == 0 ? "sport" : offset == 16 ? "dport" : nullptr;
}

KeyPart raw_payload_part(const Expr &e)
{
	const unsigned bit_off = e.raw_offset % 8;
	const bool bit_field = bit_off || e.raw_bits % 8;
	// nft 1.0.6 fails an assertion on an empty value and on a bit field's
	// mask wider than a register (it aborts): refused here with an error
	// of our own wording
	if (e.raw_bits == 0)
		throw LangError(e.loc, "raw payload length cannot be 0");
	if (bit_field && bit_off + e.raw_bits > 128)
		throw LangError(e.loc, "raw payload length " + std::to_string(e.raw_bits) +
					       " exceeds upper limit of 128 for a bit field");
	const unsigned bytes = (bit_off + e.raw_bits + 7) / 8;
	KeyPart p{&datatype(TYPE_INTEGER), e.raw_bits, ByteOrder::Big, bytes};
	if (bit_field)
		p.shift = bytes * 8 - bit_off - e.raw_bits;
	return p;
}

} // namespace xnft
