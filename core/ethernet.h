/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ethernet.h - Ethernet addresses and constants. Values only; no state.
 *
 * A MAC address is carried as a 48-bit integer (MacKey) in the low bits of
 * a uint64_t, in wire order when read as little-endian bytes. Frames are
 * at least 14 bytes long when their addresses are read, so an address is
 * loaded with one 8-byte load and a mask: building the key from a 6-byte
 * copy costs a store-forwarding stall on every frame.
 */
#ifndef XBRIDGE_CORE_ETHERNET_H
#define XBRIDGE_CORE_ETHERNET_H

#include <stdint.h>

namespace xb {

using MacKey = uint64_t;

constexpr uint16_t kEthHeaderLen = 14;
constexpr uint16_t kVlanHeaderLen = 4;
constexpr uint16_t kEthPIpv4 = 0x0800;
constexpr uint16_t kEthPArp = 0x0806;
constexpr uint16_t kEthP8021Q = 0x8100;
constexpr uint16_t kEthP8021AD = 0x88a8;
constexpr uint16_t kEthPIpv6 = 0x86dd;

constexpr uint16_t kVidMask = 0x0fff;
constexpr uint16_t kVidMin = 1;
constexpr uint16_t kVidMax = 4094;
constexpr uint16_t kVidCount = 4096;

constexpr MacKey kMacMask = 0xffffffffffffULL;
constexpr MacKey kMacBroadcast = kMacMask;

inline uint16_t load_be16(const uint8_t *p)
{
	return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

inline uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
	       (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

/* Address at @p, which must have 8 readable bytes. */
inline MacKey mac_load8(const uint8_t *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v & kMacMask;
}

/* Address at @p, which may have only 6 readable bytes (control plane). */
inline MacKey mac_from_bytes(const uint8_t p[6])
{
	MacKey k = 0;
	for (int i = 5; i >= 0; i--)
		k = (k << 8) | p[i];
	return k;
}

inline void mac_to_bytes(MacKey k, uint8_t out[6])
{
	for (int i = 0; i < 6; i++)
		out[i] = static_cast<uint8_t>(k >> (8 * i));
}

/* Group bit: the least significant bit of the first octet. */
inline bool mac_is_multicast(MacKey k)
{
	return k & 1;
}

inline bool mac_is_zero(MacKey k)
{
	return k == 0;
}

/* A valid station address: neither zero nor a group address. */
inline bool mac_is_valid_unicast(MacKey k)
{
	return !mac_is_zero(k) && !mac_is_multicast(k);
}

/* 01:80:c2:00:00:0X, X = 0..15. */
inline bool mac_is_link_local(MacKey k)
{
	return (k & 0xf0ffffffffffULL) == 0x000000c28001ULL;
}

inline uint8_t mac_link_local_index(MacKey k)
{
	return static_cast<uint8_t>((k >> 40) & 0x0f);
}

inline bool vid_is_valid(uint16_t vid)
{
	return vid >= kVidMin && vid <= kVidMax;
}

} // namespace xb

#endif /* XBRIDGE_CORE_ETHERNET_H */
