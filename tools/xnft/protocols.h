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
	const char *proto;   // ether, vlan, ip, ip6, arp, tcp, udp, icmp, icmpv6, th
	const char *name;    // arp's addresses have two words: "saddr ip"
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

// A field of an IPv6 extension header, an IPv4 option, a TCP option or an
// SCTP chunk (nftables exthdr.c, ipopt.c, tcpopt.c, sctp_chunk.c): where
// the exthdr expression finds it. A TCP option's `kind` and an IP option's
// `type` are what `exists` loads; an IPv6 header's `exists` loads its first
// byte, an SCTP chunk's its type.
struct ExthdrField {
	uint32_t op;         // NFT_EXTHDR_OP_IPV6, _TCPOPT, _IPV4 or _SCTP
	const char *name;    // the header, option or chunk: "frag", "maxseg", "lsrr", "init"
	uint8_t type;        // its protocol number, option kind or type, or chunk type
	const char *field;   // "id", "size", "addr"
	unsigned offset;     // bits from the header's or option's start
	unsigned bits;
	TypeId type_id;
};

// The field FIELD of header or option NAME (its first byte for FIELD "").
const ExthdrField *find_exthdr(uint32_t op, const std::string &name, const std::string &field);
// The field a load of BITS at OFFSET in header or option TYPE reads (null
// if none); exthdr_name names TYPE (null if nft has no name for it).
const ExthdrField *exthdr_at(uint32_t op, uint8_t type, unsigned offset, unsigned bits);
const char *exthdr_name(uint32_t op, uint8_t type);
// The field of header, option or chunk @name at @offset of @bits (null if
// none): a field by its place, where several headers share a type.
const ExthdrField *find_exthdr_at(uint32_t op, const std::string &name, unsigned offset, unsigned bits);
// nft's ids of a header, option or chunk in a set's typeof record
// (exthdr_expr_build_udata): an IPv6 header's exthdr_desc id (hbh 1 ... mh
// 8; srh and rt0 apart from rt), else its type; and of field @f, its index
// among its header's templates (an IP option's and IPv6 header's counted
// from 1, their slot 0 being nft's invalid template).
uint32_t exthdr_desc_id(const ExthdrField &f);
uint32_t exthdr_template_index(const ExthdrField &f);
// The field of template @index of the header, option or chunk @desc_id
// names under @op (null if nft has none there).
const ExthdrField *exthdr_by_template(uint32_t op, uint32_t desc_id, uint32_t index);

// Every payload field; N receives the count.
const PayloadField *payload_fields_all(size_t &n);
const MetaKey *meta_by_key(uint32_t key);
const CtKey *ct_by_key(uint32_t key);

const PayloadField *find_payload(const std::string &proto, const std::string &field);

// The ICMP or ICMPv6 type a field of PROTO ("icmp", "icmpv6") means
// something in (nftables proto.c icmp_dep, payload.c): -1 for none (type,
// code, checksum, and other protocols); kIcmpDepEcho / kIcmp6DepEcho for
// id and sequence (an echo request or reply); else the one type (icmp
// mtu: destination unreachable, gateway: redirect; icmpv6 mtu: packet too
// big, parameter-problem, max-delay: MLD query).
constexpr int kIcmpDepEcho = 8, kIcmp6DepEcho = 128;
int icmp_field_dep(const std::string &proto, const std::string &field);
// Whether a rule that matched the ICMP type TYPE (-1: none yet) may read a
// field whose dependency is DEP.
bool icmp_dep_allows(int dep, int type);
const MetaKey *find_meta(const std::string &name);
// L3 is "ip"/"ip6"/"" for saddr/daddr.
const CtKey *find_ct(const std::string &name, const std::string &l3);

// A meta or ct expression as nft prints it: "meta mark", "iifname"
// (nft's unqualified keys), "ct original ip saddr" (@dir: 0 original, 1
// reply, else none); ct_key_text is the key alone ("ip saddr", "state").
std::string meta_expr_text(uint32_t key);
std::string ct_key_text(uint32_t key);
std::string ct_expr_text(uint32_t key, int dir);

// How nft names a header field in a set's USERDATA (typeof): its
// protocol's proto_desc id (0: none) and the field's 1-based place among
// that protocol's templates; and back (null if unknown).
uint32_t nft_proto_desc_id(const std::string &proto);
unsigned nft_field_index(const PayloadField &f);
const PayloadField *payload_by_nft_id(uint32_t desc, unsigned index);

// What nft's payload statement asks the kernel to fix when it writes F
// (nftables proto.c checksum_key, checksum_type and pseudohdr): the
// protocol's checksum, NFT_PAYLOAD_CSUM_* (NONE for a protocol without
// one) at offset_bytes into its header, and whether F is part of the
// transport's pseudo-header (NFT_PAYLOAD_L4CSUM_PSEUDOHDR).
struct PayloadChecksum {
	uint32_t type = 0;
	unsigned offset_bytes = 0;
	bool pseudohdr = false;
};
PayloadChecksum payload_checksum(const PayloadField &f);

// The protocol layer a payload protocol sits on.
Layer proto_layer(const std::string &proto);

// The transports other than tcp, udp, icmp and icmpv6 that nft names
// (sctp, dccp, udplite, ah, esp, comp): a name's IP protocol number (-1
// if not one of them), and a number's name (null if not one of them).
int other_transport_number(const std::string &name);
const char *other_transport_name(uint8_t number);

} // namespace xnft
