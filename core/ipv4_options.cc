// SPDX-License-Identifier: GPL-2.0
/*
 * ipv4_options.cc - the IPv4 option check and search nf_tables' `ip
 * option` expression runs (ipv4_options.h). Read-only: Linux checks a copy
 * of the options, which its check rewrites (a source route's first
 * address taken out, a record route's pointer moved on), and none of that
 * changes what it finds or refuses.
 *
 * Context: any; nothing allocates.
 */
#include "ipv4_options.h"

namespace xb {

namespace {

constexpr uint8_t kIpoptEnd = 0;
constexpr uint8_t kIpoptNop = 1;
constexpr uint8_t kIpoptTimestamp = 0x44;
constexpr uint8_t kIpoptCipso = 0x86;

/* IPOPT_TS_* flags, the low nibble of a timestamp's fourth byte. */
constexpr uint8_t kTsTsAndAddr = 1;
constexpr uint8_t kTsPrespec = 3;

constexpr uint32_t kIphLen = 20;	/* sizeof(struct iphdr) */

/* What the check has found so far: each option's start, from the IPv4
 * header (0: none), as struct ip_options keeps them. */
struct Seen {
	uint32_t srr = 0, rr = 0, ts = 0, ra = 0;
	bool strict = false;
};

/*
 * One option of the check (__ip_options_compile's switch, without a
 * packet): @o is the option, @len its length (2..the bytes left), @at
 * where it starts from the header. False refuses the whole set.
 */
bool check_option(const uint8_t *o, uint32_t len, uint32_t at, Seen &s)
{
	switch (o[0]) {
	case kIpoptSsrr:
	case kIpoptLsrr:
		if (len < 3 || o[2] < 4 || s.srr)
			return false;
		/* a packet's own options (no skb): its pointer at the first
		 * address, which must be there, and whole addresses */
		if (o[2] != 4 || len < 7 || ((len - 3) & 3))
			return false;
		s.strict = o[0] == kIpoptSsrr;
		s.srr = at;
		return true;
	case kIpoptRr:
		if (s.rr || len < 3 || o[2] < 4)
			return false;
		/* not full: room for the address the pointer is at */
		if (o[2] <= len && o[2] + 3u > len)
			return false;
		s.rr = at;
		return true;
	case kIpoptTimestamp:
		if (s.ts || len < 4 || o[2] < 5)
			return false;
		if (o[2] <= len) {
			if (o[2] + 3u > len)
				return false;
			const uint8_t flag = o[3] & 0xf;
			if ((flag == kTsTsAndAddr || flag == kTsPrespec) && o[2] + 7u > len)
				return false;
			/* other flags: only with CAP_NET_RAW (ipv4_options.h) */
		} else if ((o[3] & 0xf) != kTsPrespec && (o[3] >> 4) == 15) {
			return false;	/* full, and its overflow count would wrap */
		}
		s.ts = at;
		return true;
	case kIpoptRa:
		if (len < 4)
			return false;
		if (o[2] == 0 && o[3] == 0)
			s.ra = at;
		return true;
	case kIpoptCipso:
		/* cipso_v4_validate: no DOI is configured (ipv4_options.h) */
		return false;
	default:
		/* SEC, SID and unknown types: only with CAP_NET_RAW */
		return true;
	}
}

} // namespace

bool ipv4_option_findable(uint8_t type)
{
	return type == kIpoptSsrr || type == kIpoptLsrr || type == kIpoptRr || type == kIpoptRa;
}

Ipv4OptFind ipv4_find_option(const uint8_t *iph, uint32_t room, uint8_t type,
			     uint32_t &offset)
{
	if (room < kIphLen)
		return Ipv4OptFind::Malformed;
	const uint32_t hdrlen = (iph[0] & 15u) * 4;
	if (hdrlen <= kIphLen)
		return Ipv4OptFind::Absent;
	if (hdrlen > room)
		return Ipv4OptFind::Malformed;

	const uint8_t *opts = iph + kIphLen;
	const uint32_t optlen = hdrlen - kIphLen;
	Seen s;
	for (uint32_t i = 0; i < optlen;) {
		const uint8_t *o = opts + i;
		if (o[0] == kIpoptEnd)
			break;
		if (o[0] == kIpoptNop) {
			i++;
			continue;
		}
		const uint32_t left = optlen - i;
		if (left < 2 || o[1] < 2 || o[1] > left)
			return Ipv4OptFind::Malformed;
		if (!check_option(o, o[1], kIphLen + i, s))
			return Ipv4OptFind::Malformed;
		i += o[1];
	}

	uint32_t at = 0;
	switch (type) {
	case kIpoptSsrr:
	case kIpoptLsrr:
		if (s.srr && s.strict == (type == kIpoptSsrr))
			at = s.srr;
		break;
	case kIpoptRr:
		at = s.rr;
		break;
	case kIpoptRa:
		at = s.ra;
		break;
	default:
		break;
	}
	if (!at)
		return Ipv4OptFind::Absent;
	offset = at;
	return Ipv4OptFind::Found;
}

} // namespace xb
