/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frame.h - classification of one received Ethernet frame.
 *
 * classify_frame() reads a frame and fills a FrameInfo. It owns nothing,
 * takes no lock and allocates nothing; it is safe in any context. It never
 * reads outside [data, data + len). It writes every field of FrameInfo for
 * every frame, whatever the frame is, so a FrameInfo recycled from the
 * previous frame never leaks state into the next (the napi_reuse_skb
 * pkt_type bug in seeds/eth-type-trans-thread.txt).
 *
 * Destination class order: "unicast to our address" is tested first (one
 * 48-bit compare), then the group bit (broadcast, else multicast), else
 * other-host.
 *
 * VLAN tags. The outermost tag is the out-of-band tag when the caller has
 * one (the kernel's hwaccel tag), else the first in-band tag. It is the
 * bridge tag only if its TPID equals the bridge's vlan_protocol; a tag with
 * another TPID leaves the frame untagged as far as the bridge is concerned
 * (it is payload). Up to two tags of either TPID (0x8100, 0x88a8) are
 * skipped to find the network header, for conntrack and the flowtable.
 */
#ifndef XBRIDGE_CORE_FRAME_H
#define XBRIDGE_CORE_FRAME_H

#include <stdint.h>

#include "ethernet.h"

namespace xb {

enum class DestClass : uint8_t {
	Host = 0,	/* unicast to the bridge's own address */
	Broadcast = 1,
	Multicast = 2,
	OtherHost = 3,	/* unicast to someone else */
};

enum class FrameStatus : uint8_t {
	Ok = 0,
	Truncated = 1,	/* shorter than its Ethernet or VLAN headers */
};

/* Out-of-band VLAN tag, as the kernel's skb->vlan_proto/vlan_tci. */
struct OobTag {
	bool present;
	uint16_t tpid;	/* host order, e.g. 0x8100 */
	uint16_t tci;	/* PCP:3 DEI:1 VID:12 */
};

struct VlanEncap {
	uint16_t tpid;	/* host order */
	uint16_t tci;
};

/* The 5-tuple, addresses in network byte order, ports in host order. */
struct FlowTuple {
	uint8_t l3proto;	/* 4, 6, or 0 when there is no IP header */
	uint8_t l4proto;	/* IPPROTO_*, 0 when unknown */
	uint16_t sport;		/* TCP/UDP port; ICMP: identifier (echo) or 0 */
	uint16_t dport;		/* TCP/UDP port; ICMP: type << 8 | code */
	uint8_t src[16];	/* IPv4 uses the first 4 bytes, rest zero */
	uint8_t dst[16];
};

struct FrameInfo {
	FrameStatus status;
	DestClass dest_class;
	MacKey dst;
	MacKey src;
	bool src_valid;		/* neither multicast nor all-zero */
	bool link_local;	/* dst is 01:80:c2:00:00:0X */
	uint8_t link_local_index;	/* X when link_local, else 0 */

	/* The bridge tag: the outermost tag when its TPID is the bridge's. */
	bool bridge_tagged;
	bool bridge_tag_in_band;	/* the tag is in the frame, not OOB */
	uint16_t vid;			/* 0 when untagged or priority-tagged */
	uint8_t pcp;

	/* All tags seen, outermost first (OOB tag counts), at most two. */
	uint8_t n_encap;
	VlanEncap encap[2];
	bool too_many_tags;	/* a third tag: no L3 parse */

	uint16_t ethertype;	/* after the skipped tags, host order */
	uint16_t l3_offset;	/* from data; 0 when no L3 */
	uint16_t l4_offset;	/* from data; 0 when no L4 */
	bool l3_truncated;	/* IP header present but cut short/bad */
	bool is_fragment;	/* IPv4/IPv6 non-first fragment: no L4 ports */
	bool tuple_valid;	/* tuple holds a full TCP/UDP/ICMP 5-tuple */
	FlowTuple tuple;
};

struct ClassifyParams {
	MacKey host_addr;	/* the bridge device's own address */
	uint16_t vlan_protocol;	/* 0x8100 or 0x88a8 */
	bool parse_l3;		/* false: L2 only; L3/L4 fields are zeroed */
};

/*
 * What the forwarding decision needs of a frame: addresses, destination
 * class and the bridge tag. classify_l2() writes every field, reads only the
 * Ethernet header and the outermost in-band tag, and is inline so that the
 * datapath pays for nothing else. Its fields agree with classify_frame()'s
 * of the same names; a frame whose *inner* tag is cut short is Truncated for
 * classify_frame() but not here (the bridge never reads past the outer tag,
 * as the Linux bridge does not).
 */
struct L2Info {
	MacKey dst;
	MacKey src;
	FrameStatus status;
	DestClass dest_class;
	bool src_valid;
	bool link_local;
	uint8_t link_local_index;
	bool bridge_tagged;	/* outermost tag has the bridge's TPID */
	bool foreign_tagged;	/* outermost tag has the other TPID */
	uint8_t pcp_dei;	/* the bridge tag's PCP and DEI (TCI >> 12) */
	uint16_t vid;		/* 0 unless bridge_tagged */
};

inline bool classify_l2(const uint8_t *data, uint32_t len, const OobTag &oob, MacKey host_addr,
			uint16_t vlan_protocol, L2Info &out)
{
	if (__builtin_expect(len < kEthHeaderLen, 0)) {
		out = L2Info();
		out.status = FrameStatus::Truncated;
		out.dest_class = DestClass::OtherHost;
		return false;
	}
	const MacKey dst = mac_load8(data);
	const MacKey src = mac_load8(data + 6);
	out.dst = dst;
	out.src = src;
	/* Our address first: the common case costs one compare. */
	if (dst == host_addr)
		out.dest_class = DestClass::Host;
	else if (mac_is_multicast(dst))
		out.dest_class = dst == kMacBroadcast ? DestClass::Broadcast : DestClass::Multicast;
	else
		out.dest_class = DestClass::OtherHost;
	out.src_valid = mac_is_valid_unicast(src);
	out.link_local = mac_is_link_local(dst);
	out.link_local_index = out.link_local ? mac_link_local_index(dst) : 0;

	uint16_t tpid = 0, tci = 0;
	bool tagged = oob.present;
	out.status = FrameStatus::Ok;
	if (tagged) {
		tpid = oob.tpid;
		tci = oob.tci;
	} else {
		uint16_t type = load_be16(data + 12);
		if (type == kEthP8021Q || type == kEthP8021AD) {
			tagged = true;
			if (__builtin_expect(len < kEthHeaderLen + kVlanHeaderLen, 0))
				out.status = FrameStatus::Truncated;
			else
				tci = load_be16(data + 14);
			tpid = type;
		}
	}
	const bool bridge_tagged = tagged && tpid == vlan_protocol &&
				   out.status == FrameStatus::Ok;
	out.bridge_tagged = bridge_tagged;
	out.foreign_tagged = tagged && tpid != vlan_protocol;
	out.vid = bridge_tagged ? uint16_t(tci & kVidMask) : 0;
	out.pcp_dei = bridge_tagged ? uint8_t(tci >> 12) : 0;
	return out.status == FrameStatus::Ok;
}

/*
 * Classify @len bytes at @data. Returns false (and status Truncated) when
 * the frame is too short for the Ethernet header or a VLAN header it
 * announces; every field is still written.
 */
bool classify_frame(const uint8_t *data, uint32_t len, const OobTag &oob,
		    const ClassifyParams &params, FrameInfo &out);

} // namespace xb

#endif /* XBRIDGE_CORE_FRAME_H */
