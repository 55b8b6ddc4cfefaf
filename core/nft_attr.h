/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_attr.h - a reader of netlink attributes (struct nlattr streams), as
 * nf_tables objects arrive in them: the rule engine parses the NFTA_*
 * attributes itself so that the shim, the unit tests and the fuzzer hand it
 * the same bytes libnftnl builds.
 *
 * No state, no ownership: an Attr points into the caller's buffer, which
 * must outlive it. Integers in nf_tables attributes are big-endian.
 */
#ifndef XBRIDGE_CORE_NFT_ATTR_H
#define XBRIDGE_CORE_NFT_ATTR_H

#include <stddef.h>
#include <stdint.h>

namespace xb::nft {

struct Attr {
	const uint8_t *data = nullptr;	/* payload; nullptr: absent */
	uint16_t len = 0;		/* payload length */

	bool present() const { return data != nullptr; }
};

constexpr uint16_t kAttrTypeMask = 0x3fff;	/* less NLA_F_NESTED, NLA_F_NET_BYTEORDER */

inline uint32_t align4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

/*
 * Walks a stream of attributes. next() returns false at the end, and sets
 * malformed() when an attribute's length runs past the stream or is shorter
 * than its own header.
 */
class AttrWalker {
public:
	AttrWalker(const uint8_t *data, size_t len) : pos_(data), left_(len) {}
	explicit AttrWalker(const Attr &nest) : pos_(nest.data), left_(nest.len) {}

	bool next(uint16_t &type, Attr &attr)
	{
		if (left_ < 4) {
			bad_ = left_ != 0;
			return false;
		}
		uint16_t alen, atype;	/* host order, as struct nlattr */
		__builtin_memcpy(&alen, pos_, 2);
		__builtin_memcpy(&atype, pos_ + 2, 2);
		if (alen < 4 || alen > left_) {
			bad_ = true;
			return false;
		}
		raw_type_ = atype;
		type = atype & kAttrTypeMask;
		attr.data = pos_ + 4;
		attr.len = uint16_t(alen - 4);
		const size_t step = align4(alen) < left_ ? align4(alen) : left_;
		pos_ += step;
		left_ -= step;
		return true;
	}
	bool malformed() const { return bad_; }
	/* The last attribute's type with its NLA_F_* flag bits. */
	uint16_t raw_type() const { return raw_type_; }

private:
	const uint8_t *pos_;
	size_t left_;
	bool bad_ = false;
	uint16_t raw_type_ = 0;
};

/* Fill tb[0..max] from a stream (the last of a repeated type wins, as
 * nla_parse); attributes above @max are ignored. False if malformed.
 * Always inlined: an out-of-line copy in several objects is a COMDAT
 * section that `ld -r` of the kernel module discards while the -pg build's
 * __mcount_loc still points at it. */
[[gnu::always_inline]] inline bool parse_attrs(const uint8_t *data, size_t len, Attr *tb, unsigned max)
{
	for (unsigned i = 0; i <= max; i++)
		tb[i] = Attr{};
	AttrWalker w(data, len);
	uint16_t type;
	Attr a;
	while (w.next(type, a))
		if (type <= max)
			tb[type] = a;
	return !w.malformed();
}

[[gnu::always_inline]] inline bool parse_nested(const Attr &nest, Attr *tb, unsigned max)
{
	return parse_attrs(nest.data, nest.len, tb, max);
}

inline bool attr_be32(const Attr &a, uint32_t &out)
{
	if (a.len != 4)
		return false;
	out = uint32_t(a.data[0]) << 24 | uint32_t(a.data[1]) << 16 |
	      uint32_t(a.data[2]) << 8 | a.data[3];
	return true;
}

inline bool attr_be16(const Attr &a, uint16_t &out)
{
	if (a.len != 2)
		return false;
	out = uint16_t(a.data[0] << 8 | a.data[1]);
	return true;
}

inline bool attr_be64(const Attr &a, uint64_t &out)
{
	if (a.len != 8)
		return false;
	out = 0;
	for (unsigned i = 0; i < 8; i++)
		out = out << 8 | a.data[i];
	return true;
}

/*
 * A NUL-terminated string attribute into @buf (@size with the NUL). A
 * payload without a NUL is accepted up to size - 1 bytes, as NLA_STRING.
 * False when it does not fit or is empty.
 */
inline bool attr_string(const Attr &a, char *buf, size_t size)
{
	size_t n = 0;
	while (n < a.len && a.data[n])
		n++;
	if (n == 0 || n >= size)
		return false;
	for (size_t i = 0; i < n; i++)
		buf[i] = char(a.data[i]);
	buf[n] = '\0';
	return true;
}

/* Names (NUL-terminated, at most kNameMax with the NUL) without libc: the
 * core may call no string function of its environment. */
inline size_t cstr_len(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

inline bool cstr_equal(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

inline void cstr_copy(char *dst, const char *src)
{
	while ((*dst++ = *src++))
		;
}

/* The attribute's string (up to its NUL) equals @s. */
inline bool attr_equals(const Attr &a, const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (n >= a.len || a.data[n] != uint8_t(s[n]))
			return false;
	return n == a.len || a.data[n] == 0;
}

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_ATTR_H */
