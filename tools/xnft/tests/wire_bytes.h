// wire_bytes.h - what xnft sends, as bytes a test compares with the bytes
// nft 1.0.6 was recorded sending (nft --debug=mnl): the batch of a text,
// an attribute's payload in hex.
//
// Userspace test code, no state, no locking.
#ifndef XNFT_TESTS_WIRE_BYTES_H
#define XNFT_TESTS_WIRE_BYTES_H

#include <linux/netlink.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler.h"
#include "parser.h"
#include "wire.h"

namespace xnft::test {

inline std::string hex(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;
	for (size_t i = 0; i < n; i++) {
		s += digits[p[i] >> 4];
		s += digits[p[i] & 15];
	}
	return s;
}

// The payload of @m's first attribute of @type, hex ("" when none).
inline std::string attr_hex(const xnft::WireMsg &m, uint16_t type)
{
	const uint8_t *p = m.attrs.data();
	for (size_t off = 0; off + 4 <= m.attrs.size();) {
		uint16_t len, t;
		memcpy(&len, p + off, 2);
		memcpy(&t, p + off + 2, 2);
		if (len < 4 || off + len > m.attrs.size())
			break;
		if ((t & NLA_TYPE_MASK) == type)
			return hex(p + off + 4, len - 4u);
		off += (len + 3u) & ~3u;
	}
	return "";
}

// The messages xnft sends for @text, compiled into @batch.
inline std::vector<xnft::WireMsg> compile(const std::string &text, xnft::Batch &batch)
{
	xnft::Parser parser;
	xnft::Compiler compiler(batch);
	for (auto &cmd : parser.parse_text(text))
		compiler.compile(cmd);
	return xnft::encode_batch(batch);
}

} // namespace xnft::test

#endif
