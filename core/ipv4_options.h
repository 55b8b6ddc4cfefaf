/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ipv4_options.h - finding an IPv4 option for `ip option rr exists`, `ip
 * option lsrr addr 1.2.3.4` and the like, as nf_tables' ipv4_find_option
 * (net/netfilter/nft_exthdr.c) finds it: the header's options are first
 * checked whole, as __ip_options_compile checks them when it is given no
 * packet (net/ipv4/ip_options.c), and only a valid set of options is
 * searched.
 *
 * What the check refuses (the whole set, whichever option is asked for):
 * an option other than END or NOP whose length byte is missing, below 2
 * or past the options; a second source route or record route, a second
 * timestamp; a source route (LSRR, SSRR) shorter than 7 bytes, whose
 * length is not 3 plus whole addresses, or whose pointer is not 4; a
 * record route shorter than 3 bytes, whose pointer is below 4, or whose
 * pointer leaves less than an address before the end; a timestamp shorter
 * than 4 bytes, whose pointer is below 5, whose pointer leaves no room for
 * its entry, or that is full with its overflow counter at 15; a router
 * alert shorter than 4 bytes; any CIPSO option. Everything after an END is
 * ignored; unknown options are skipped by their length.
 *
 * Two things of Linux's depend on the machine and are fixed here as they
 * are for the frames a bridge forwards: unknown options, SEC, SID and
 * timestamps of unknown flags pass the check only with CAP_NET_RAW in the
 * netns's user namespace, which nf_tables asks of the task the packet
 * interrupted (in practice root's, or a kernel thread's: it has it); and
 * CIPSO passes only against a NetLabel DOI configured on the host, which
 * xbridge has none of.
 *
 * The found offsets: a source route's and a record route's options are
 * found whatever their pointer says; a router alert only when its value
 * is 0 (the last such one; others are valid but not "there").
 *
 * Context: any. Pure functions of the bytes given; nothing allocates.
 */
#ifndef XBRIDGE_CORE_IPV4_OPTIONS_H
#define XBRIDGE_CORE_IPV4_OPTIONS_H

#include <stdint.h>

namespace xb {

/* IPOPT_* option types (include/uapi/linux/ip.h) nf_tables can find. */
enum : uint8_t {
	kIpoptLsrr = 0x83,
	kIpoptRr = 0x07,
	kIpoptSsrr = 0x89,
	kIpoptRa = 0x94,
};

/* Whether nf_tables can look for an option of @type (the types
 * nft_exthdr_ipv4_init takes; others are EOPNOTSUPP). */
bool ipv4_option_findable(uint8_t type);

enum class Ipv4OptFind : uint8_t {
	Found,
	Absent,		/* no options, or valid ones without it (-ENOENT) */
	Malformed,	/* header or options cut short, or refused (-EBADMSG) */
};

/*
 * Look for the option of @type (ipv4_option_findable) in the IPv4 header at
 * @iph, of which @room bytes are in the frame. Found: @offset is where the
 * option starts, from @iph. The header's version and total length are not
 * looked at, as ipv4_find_option does not look at them.
 */
Ipv4OptFind ipv4_find_option(const uint8_t *iph, uint32_t room, uint8_t type,
			     uint32_t &offset);

} // namespace xb

#endif
