// protocols.h - the header fields, meta keys and conntrack keys xnft knows:
// where each lives (payload base, bit offset, bit length, or meta/ct key),
// its data type and the protocol layer it depends on (nftables proto.c,
// meta.c, ct.c).
//
// Ownership: static tables; read-only, thread-safe.
#pragma once
#include <cstdint>
#include <string>

#include "datatypes.h"

namespace xnft {

enum class Layer { None, Link, Network, Transport };

struct PayloadField {
	const char *proto;   // ether, vlan, ip, ip6, tcp, udp, icmp, icmpv6
	const char *name;
	uint32_t base;       // NFT_PAYLOAD_*_HEADER
	unsigned offset;     // bits from the base
	unsigned bits;
	TypeId type;
};

struct MetaKey {
	const char *name;
	uint32_t key;        // NFT_META_*
	TypeId type;
	unsigned bits;
	ByteOrder order;
};

struct CtKey {
	const char *name;
	uint32_t key;        // NFT_CT_*
	TypeId type;
	unsigned bits;
	ByteOrder order;
	bool directional;    // needs original/reply for ip saddr etc.
};

// Every payload field; N receives the count.
const PayloadField *payload_fields_all(size_t &n);
const MetaKey *meta_by_key(uint32_t key);
const CtKey *ct_by_key(uint32_t key);

const PayloadField *find_payload(const std::string &proto, const std::string &field);
const MetaKey *find_meta(const std::string &name);
// L3 is "ip"/"ip6"/"" for saddr/daddr.
const CtKey *find_ct(const std::string &name, const std::string &l3);

// The protocol layer a payload protocol sits on.
Layer proto_layer(const std::string &proto);

} // namespace xnft
