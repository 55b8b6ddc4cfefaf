/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jhash.h - Bob Jenkins' lookup3 hash as the kernel's jhash() computes it
 * (include/linux/jhash.h): the same words read in CPU byte order, the same
 * initial value, so that nft's `jhash` puts a frame in the bucket it would
 * have on Linux. Pure functions; any context.
 */
#ifndef XBRIDGE_CORE_JHASH_H
#define XBRIDGE_CORE_JHASH_H

#include <stdint.h>

namespace xb {

namespace jhash_detail {

constexpr uint32_t kInitval = 0xdeadbeef;	/* JHASH_INITVAL */

inline uint32_t rol32(uint32_t w, unsigned s)
{
	return w << s | w >> (32 - s);
}

/* Three words in, three words mixed (lookup3's mix()). */
inline void mix(uint32_t &a, uint32_t &b, uint32_t &c)
{
	a -= c; a ^= rol32(c, 4);  c += b;
	b -= a; b ^= rol32(a, 6);  a += c;
	c -= b; c ^= rol32(b, 8);  b += a;
	a -= c; a ^= rol32(c, 16); c += b;
	b -= a; b ^= rol32(a, 19); a += c;
	c -= b; c ^= rol32(b, 4);  b += a;
}

/* The last words folded into c (lookup3's final()). */
inline void final_mix(uint32_t &a, uint32_t &b, uint32_t &c)
{
	c ^= b; c -= rol32(b, 14);
	a ^= c; a -= rol32(c, 11);
	b ^= a; b -= rol32(a, 25);
	c ^= b; c -= rol32(b, 16);
	a ^= c; a -= rol32(c, 4);
	b ^= a; b -= rol32(a, 14);
	c ^= b; c -= rol32(b, 24);
}

inline uint32_t word_at(const uint8_t *p)
{
	uint32_t w;
	__builtin_memcpy(&w, p, 4);	/* CPU order, unaligned */
	return w;
}

} // namespace jhash_detail

/* jhash(key, length, initval): @len bytes at @key. */
[[gnu::always_inline]] inline uint32_t jhash(const uint8_t *key, uint32_t len, uint32_t initval)
{
	using namespace jhash_detail;
	uint32_t a, b, c;
	a = b = c = kInitval + len + initval;
	while (len > 12) {
		a += word_at(key);
		b += word_at(key + 4);
		c += word_at(key + 8);
		mix(a, b, c);
		len -= 12;
		key += 12;
	}
	if (len == 0)
		return c;
	/* the last 1..12 bytes, little-end first whatever the CPU */
	uint32_t tail[3] = {0, 0, 0};
	for (uint32_t i = 0; i < len; i++)
		tail[i / 4] += uint32_t(key[i]) << (8 * (i % 4));
	a += tail[0];
	b += tail[1];
	c += tail[2];
	final_mix(a, b, c);
	return c;
}

/* reciprocal_scale(): @val scaled into [0, @ep_ro). */
[[gnu::always_inline]] inline uint32_t reciprocal_scale(uint32_t val, uint32_t ep_ro)
{
	return uint32_t((uint64_t(val) * ep_ro) >> 32);
}

} // namespace xb

#endif /* XBRIDGE_CORE_JHASH_H */
