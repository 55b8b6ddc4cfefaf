// protocols.cc - the field tables (see protocols.h).
#include "protocols.h"

#include <linux/netfilter/nf_tables.h>

#include <cstring>

namespace xnft {

#define LL NFT_PAYLOAD_LL_HEADER
#define NH NFT_PAYLOAD_NETWORK_HEADER
#define TH NFT_PAYLOAD_TRANSPORT_HEADER

static const PayloadField payload_fields[] = {
	{"ether", "daddr", LL, 0, 48, TYPE_ETHERADDR},
	{"ether", "saddr", LL, 48, 48, TYPE_ETHERADDR},
	{"ether", "type", LL, 96, 16, TYPE_ETHERTYPE},
	{"vlan", "pcp", LL, 112, 3, TYPE_INTEGER},
	{"vlan", "dei", LL, 115, 1, TYPE_INTEGER},
	{"vlan", "cfi", LL, 115, 1, TYPE_INTEGER},
	{"vlan", "id", LL, 116, 12, TYPE_INTEGER},
	{"vlan", "type", LL, 128, 16, TYPE_ETHERTYPE},
	{"ip", "version", NH, 0, 4, TYPE_INTEGER},
	{"ip", "hdrlength", NH, 4, 4, TYPE_INTEGER},
	{"ip", "dscp", NH, 8, 6, TYPE_DSCP},
	{"ip", "ecn", NH, 14, 2, TYPE_ECN},
	{"ip", "length", NH, 16, 16, TYPE_INTEGER},
	{"ip", "id", NH, 32, 16, TYPE_INTEGER},
	{"ip", "frag-off", NH, 48, 16, TYPE_INTEGER},
	{"ip", "ttl", NH, 64, 8, TYPE_INTEGER},
	{"ip", "protocol", NH, 72, 8, TYPE_INET_PROTOCOL},
	{"ip", "checksum", NH, 80, 16, TYPE_INTEGER},
	{"ip", "saddr", NH, 96, 32, TYPE_IPADDR},
	{"ip", "daddr", NH, 128, 32, TYPE_IPADDR},
	{"ip6", "version", NH, 0, 4, TYPE_INTEGER},
	{"ip6", "dscp", NH, 4, 6, TYPE_DSCP},
	{"ip6", "ecn", NH, 10, 2, TYPE_ECN},
	{"ip6", "flowlabel", NH, 12, 20, TYPE_INTEGER},
	{"ip6", "length", NH, 32, 16, TYPE_INTEGER},
	{"ip6", "nexthdr", NH, 48, 8, TYPE_INET_PROTOCOL},
	{"ip6", "hoplimit", NH, 56, 8, TYPE_INTEGER},
	{"ip6", "saddr", NH, 64, 128, TYPE_IP6ADDR},
	{"ip6", "daddr", NH, 192, 128, TYPE_IP6ADDR},
	{"tcp", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"tcp", "dport", TH, 16, 16, TYPE_INET_SERVICE},
	{"tcp", "sequence", TH, 32, 32, TYPE_INTEGER},
	{"tcp", "ackseq", TH, 64, 32, TYPE_INTEGER},
	{"tcp", "doff", TH, 96, 4, TYPE_INTEGER},
	{"tcp", "reserved", TH, 100, 4, TYPE_INTEGER},
	{"tcp", "flags", TH, 104, 8, TYPE_TCP_FLAG},
	{"tcp", "window", TH, 112, 16, TYPE_INTEGER},
	{"tcp", "checksum", TH, 128, 16, TYPE_INTEGER},
	{"tcp", "urgptr", TH, 144, 16, TYPE_INTEGER},
	{"udp", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"udp", "dport", TH, 16, 16, TYPE_INET_SERVICE},
	{"udp", "length", TH, 32, 16, TYPE_INTEGER},
	{"udp", "checksum", TH, 48, 16, TYPE_INTEGER},
	{"icmp", "type", TH, 0, 8, TYPE_ICMP_TYPE},
	{"icmp", "code", TH, 8, 8, TYPE_ICMP_CODE},
	{"icmp", "checksum", TH, 16, 16, TYPE_INTEGER},
	{"icmp", "id", TH, 32, 16, TYPE_INTEGER},
	{"icmp", "sequence", TH, 48, 16, TYPE_INTEGER},
	{"icmp", "gateway", TH, 32, 32, TYPE_INTEGER},
	{"icmp", "mtu", TH, 48, 16, TYPE_INTEGER},
	{"icmpv6", "type", TH, 0, 8, TYPE_ICMP6_TYPE},
	{"icmpv6", "code", TH, 8, 8, TYPE_ICMPV6_CODE},
	{"icmpv6", "checksum", TH, 16, 16, TYPE_INTEGER},
	{"icmpv6", "parameter-problem", TH, 32, 32, TYPE_INTEGER},
	{"icmpv6", "mtu", TH, 32, 32, TYPE_INTEGER},
	{"icmpv6", "id", TH, 32, 16, TYPE_INTEGER},
	{"icmpv6", "sequence", TH, 48, 16, TYPE_INTEGER},
	{"icmpv6", "max-delay", TH, 32, 16, TYPE_INTEGER},
	// ARP for Ethernet and IPv4 (nftables' proto_arp)
	{"arp", "htype", NH, 0, 16, TYPE_INTEGER},
	{"arp", "ptype", NH, 16, 16, TYPE_ETHERTYPE},
	{"arp", "hlen", NH, 32, 8, TYPE_INTEGER},
	{"arp", "plen", NH, 40, 8, TYPE_INTEGER},
	{"arp", "operation", NH, 48, 16, TYPE_ARPOP},
	{"arp", "saddr ether", NH, 64, 48, TYPE_ETHERADDR},
	{"arp", "daddr ether", NH, 144, 48, TYPE_ETHERADDR},
	{"arp", "saddr ip", NH, 112, 32, TYPE_IPADDR},
	{"arp", "daddr ip", NH, 192, 32, TYPE_IPADDR},
	// the other transports nft names (nftables' proto_sctp, proto_dccp,
	// proto_udplite, proto_ah, proto_esp, proto_comp)
	{"sctp", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"sctp", "dport", TH, 16, 16, TYPE_INET_SERVICE},
	{"sctp", "vtag", TH, 32, 32, TYPE_INTEGER},
	{"sctp", "checksum", TH, 64, 32, TYPE_INTEGER},
	{"dccp", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"dccp", "dport", TH, 16, 16, TYPE_INET_SERVICE},
	{"dccp", "type", TH, 67, 4, TYPE_DCCP_PKTTYPE},
	{"udplite", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"udplite", "dport", TH, 16, 16, TYPE_INET_SERVICE},
	{"udplite", "csumcov", TH, 32, 16, TYPE_INTEGER},
	{"udplite", "checksum", TH, 48, 16, TYPE_INTEGER},
	{"ah", "nexthdr", TH, 0, 8, TYPE_INET_PROTOCOL},
	{"ah", "hdrlength", TH, 8, 8, TYPE_INTEGER},
	{"ah", "reserved", TH, 16, 16, TYPE_INTEGER},
	{"ah", "spi", TH, 32, 32, TYPE_INTEGER},
	{"ah", "sequence", TH, 64, 32, TYPE_INTEGER},
	{"esp", "spi", TH, 0, 32, TYPE_INTEGER},
	{"esp", "sequence", TH, 32, 32, TYPE_INTEGER},
	{"comp", "nexthdr", TH, 0, 8, TYPE_INET_PROTOCOL},
	{"comp", "flags", TH, 8, 8, TYPE_BITMASK},
	{"comp", "cpi", TH, 16, 16, TYPE_INTEGER},
	// the ports of any transport (nftables' proto_th), no dependency
	{"th", "sport", TH, 0, 16, TYPE_INET_SERVICE},
	{"th", "dport", TH, 16, 16, TYPE_INET_SERVICE},
};

static const MetaKey meta_keys[] = {
	{"length", NFT_META_LEN, TYPE_INTEGER, 32, ByteOrder::Host},
	{"protocol", NFT_META_PROTOCOL, TYPE_ETHERTYPE, 16, ByteOrder::Big},
	{"priority", NFT_META_PRIORITY, TYPE_CLASSID, 32, ByteOrder::Host},
	{"mark", NFT_META_MARK, TYPE_MARK, 32, ByteOrder::Host},
	{"iif", NFT_META_IIF, TYPE_IFINDEX, 32, ByteOrder::Host},
	{"oif", NFT_META_OIF, TYPE_IFINDEX, 32, ByteOrder::Host},
	{"iifname", NFT_META_IIFNAME, TYPE_IFNAME, 128, ByteOrder::Host},
	{"oifname", NFT_META_OIFNAME, TYPE_IFNAME, 128, ByteOrder::Host},
	{"iiftype", NFT_META_IIFTYPE, TYPE_ARPHRD, 16, ByteOrder::Host},
	{"oiftype", NFT_META_OIFTYPE, TYPE_ARPHRD, 16, ByteOrder::Host},
	{"skuid", NFT_META_SKUID, TYPE_UID, 32, ByteOrder::Host},
	{"skgid", NFT_META_SKGID, TYPE_GID, 32, ByteOrder::Host},
	{"nftrace", NFT_META_NFTRACE, TYPE_INTEGER, 1, ByteOrder::Host},
	{"rtclassid", NFT_META_RTCLASSID, TYPE_REALM, 32, ByteOrder::Host},
	{"nfproto", NFT_META_NFPROTO, TYPE_NFPROTO, 8, ByteOrder::Host},
	{"l4proto", NFT_META_L4PROTO, TYPE_INET_PROTOCOL, 8, ByteOrder::Host},
	{"ibrname", NFT_META_BRI_IIFNAME, TYPE_IFNAME, 128, ByteOrder::Host},
	{"obrname", NFT_META_BRI_OIFNAME, TYPE_IFNAME, 128, ByteOrder::Host},
	{"pkttype", NFT_META_PKTTYPE, TYPE_PKTTYPE, 8, ByteOrder::Host},
	{"cpu", NFT_META_CPU, TYPE_INTEGER, 32, ByteOrder::Host},
	{"iifgroup", NFT_META_IIFGROUP, TYPE_DEVGROUP, 32, ByteOrder::Host},
	{"oifgroup", NFT_META_OIFGROUP, TYPE_DEVGROUP, 32, ByteOrder::Host},
	{"cgroup", NFT_META_CGROUP, TYPE_INTEGER, 32, ByteOrder::Host},
	{"random", NFT_META_PRANDOM, TYPE_INTEGER, 32, ByteOrder::Big},
	{"ipsec", NFT_META_SECPATH, TYPE_BOOLEAN, 1, ByteOrder::Host},
	{"iifkind", NFT_META_IIFKIND, TYPE_IFNAME, 128, ByteOrder::Host},
	{"oifkind", NFT_META_OIFKIND, TYPE_IFNAME, 128, ByteOrder::Host},
	{"ibrpvid", NFT_META_BRI_IIFPVID, TYPE_INTEGER, 16, ByteOrder::Host},
	{"ibrvproto", NFT_META_BRI_IIFVPROTO, TYPE_ETHERTYPE, 16, ByteOrder::Big},
	{"time", NFT_META_TIME_NS, TYPE_TIME_DATE, 64, ByteOrder::Host},
	{"day", NFT_META_TIME_DAY, TYPE_TIME_DAY, 8, ByteOrder::Host},
	{"hour", NFT_META_TIME_HOUR, TYPE_TIME_HOUR, 32, ByteOrder::Host},
	{"sdif", NFT_META_SDIF, TYPE_IFINDEX, 32, ByteOrder::Host},
	{"sdifname", NFT_META_SDIFNAME, TYPE_IFNAME, 128, ByteOrder::Host},
};

static const CtKey ct_keys[] = {
	{"state", NFT_CT_STATE, TYPE_CT_STATE, 32, ByteOrder::Host, false},
	{"direction", NFT_CT_DIRECTION, TYPE_CT_DIR, 8, ByteOrder::Host, false},
	{"status", NFT_CT_STATUS, TYPE_CT_STATUS, 32, ByteOrder::Host, false},
	{"mark", NFT_CT_MARK, TYPE_MARK, 32, ByteOrder::Host, false},
	{"expiration", NFT_CT_EXPIRATION, TYPE_TIME, 32, ByteOrder::Host, false},
	{"zone", NFT_CT_ZONE, TYPE_INTEGER, 16, ByteOrder::Host, false},
	{"l3proto", NFT_CT_L3PROTOCOL, TYPE_NFPROTO, 8, ByteOrder::Host, true},
	{"protocol", NFT_CT_PROTOCOL, TYPE_INET_PROTOCOL, 8, ByteOrder::Big, true},
	{"proto-src", NFT_CT_PROTO_SRC, TYPE_INTEGER, 16, ByteOrder::Big, true},
	{"proto-dst", NFT_CT_PROTO_DST, TYPE_INTEGER, 16, ByteOrder::Big, true},
	{"packets", NFT_CT_PKTS, TYPE_INTEGER, 64, ByteOrder::Host, true},
	{"bytes", NFT_CT_BYTES, TYPE_INTEGER, 64, ByteOrder::Host, true},
	{"avgpkt", NFT_CT_AVGPKT, TYPE_INTEGER, 64, ByteOrder::Host, true},
	{"id", NFT_CT_ID, TYPE_INTEGER, 32, ByteOrder::Big, false},
};

static const CtKey ct_ip_keys[] = {
	{"saddr", NFT_CT_SRC_IP, TYPE_IPADDR, 32, ByteOrder::Big, true},
	{"daddr", NFT_CT_DST_IP, TYPE_IPADDR, 32, ByteOrder::Big, true},
};
static const CtKey ct_ip6_keys[] = {
	{"saddr", NFT_CT_SRC_IP6, TYPE_IP6ADDR, 128, ByteOrder::Big, true},
	{"daddr", NFT_CT_DST_IP6, TYPE_IP6ADDR, 128, ByteOrder::Big, true},
};

#define IP6 NFT_EXTHDR_OP_IPV6
#define TCPOPT NFT_EXTHDR_OP_TCPOPT
#define IPOPT NFT_EXTHDR_OP_IPV4
#define SCTP NFT_EXTHDR_OP_SCTP

// Each header's or option's fields in the order of nft's templates, so
// that the first matching a load names it, as nft finds it.
static const ExthdrField exthdr_fields[] = {
	{IP6, "hbh", 0, "nexthdr", 0, 8, TYPE_INET_PROTOCOL},
	{IP6, "hbh", 0, "hdrlength", 8, 8, TYPE_INTEGER},
	{IP6, "rt", 43, "nexthdr", 0, 8, TYPE_INET_PROTOCOL},
	{IP6, "rt", 43, "hdrlength", 8, 8, TYPE_INTEGER},
	{IP6, "rt", 43, "type", 16, 8, TYPE_INTEGER},
	{IP6, "rt", 43, "seg-left", 24, 8, TYPE_INTEGER},
	// the routing header's types as nft 1.0.6 knows them, tried after
	// `rt` in its order (exthdr_rt_find: srh, then rt0; rt2's templates
	// are empty there): two addresses each
	{IP6, "srh", 43, "last-entry", 32, 8, TYPE_INTEGER},
	{IP6, "srh", 43, "flags", 40, 8, TYPE_INTEGER},
	{IP6, "srh", 43, "tag", 48, 16, TYPE_INTEGER},
	{IP6, "srh", 43, "sid[1]", 64, 128, TYPE_IP6ADDR},
	{IP6, "srh", 43, "sid[2]", 192, 128, TYPE_IP6ADDR},
	{IP6, "rt0", 43, "reserved", 32, 8, TYPE_INTEGER},
	{IP6, "rt0", 43, "addr[1]", 64, 128, TYPE_IP6ADDR},
	{IP6, "rt0", 43, "addr[2]", 192, 128, TYPE_IP6ADDR},
	{IP6, "frag", 44, "nexthdr", 0, 8, TYPE_INET_PROTOCOL},
	{IP6, "frag", 44, "reserved", 8, 8, TYPE_INTEGER},
	{IP6, "frag", 44, "frag-off", 16, 13, TYPE_INTEGER},
	{IP6, "frag", 44, "reserved2", 29, 2, TYPE_INTEGER},
	{IP6, "frag", 44, "more-fragments", 31, 1, TYPE_INTEGER},
	{IP6, "frag", 44, "id", 32, 32, TYPE_INTEGER},
	{IP6, "dst", 60, "nexthdr", 0, 8, TYPE_INET_PROTOCOL},
	{IP6, "dst", 60, "hdrlength", 8, 8, TYPE_INTEGER},
	{IP6, "mh", 135, "nexthdr", 0, 8, TYPE_INET_PROTOCOL},
	{IP6, "mh", 135, "hdrlength", 8, 8, TYPE_INTEGER},
	{IP6, "mh", 135, "type", 16, 8, TYPE_MH_TYPE},
	{IP6, "mh", 135, "reserved", 24, 8, TYPE_INTEGER},
	{IP6, "mh", 135, "checksum", 32, 16, TYPE_INTEGER},
	{TCPOPT, "eol", 0, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "nop", 1, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "maxseg", 2, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "maxseg", 2, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "maxseg", 2, "size", 16, 16, TYPE_INTEGER},
	{TCPOPT, "window", 3, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "window", 3, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "window", 3, "count", 16, 8, TYPE_INTEGER},
	{TCPOPT, "sack-perm", 4, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "sack-perm", 4, "length", 8, 8, TYPE_INTEGER},
	// sack0..sack3: a block's edges 64 bits after the previous block's
	{TCPOPT, "sack", 5, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "left", 16, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "right", 48, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "left", 80, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "right", 112, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "left", 144, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "right", 176, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "left", 208, 32, TYPE_INTEGER},
	{TCPOPT, "sack", 5, "right", 240, 32, TYPE_INTEGER},
	{TCPOPT, "timestamp", 8, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "timestamp", 8, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "timestamp", 8, "tsval", 16, 32, TYPE_INTEGER},
	{TCPOPT, "timestamp", 8, "tsecr", 48, 32, TYPE_INTEGER},
	{TCPOPT, "md5sig", 19, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "md5sig", 19, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "mptcp", 30, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "mptcp", 30, "length", 8, 8, TYPE_INTEGER},
	{TCPOPT, "mptcp", 30, "subtype", 16, 4, TYPE_INTEGER},
	{TCPOPT, "fastopen", 34, "kind", 0, 8, TYPE_INTEGER},
	{TCPOPT, "fastopen", 34, "length", 8, 8, TYPE_INTEGER},
	{IPOPT, "rr", 7, "type", 0, 8, TYPE_INTEGER},
	{IPOPT, "rr", 7, "length", 8, 8, TYPE_INTEGER},
	{IPOPT, "rr", 7, "ptr", 16, 8, TYPE_INTEGER},
	{IPOPT, "rr", 7, "addr", 24, 32, TYPE_INTEGER},
	{IPOPT, "lsrr", 131, "type", 0, 8, TYPE_INTEGER},
	{IPOPT, "lsrr", 131, "length", 8, 8, TYPE_INTEGER},
	{IPOPT, "lsrr", 131, "ptr", 16, 8, TYPE_INTEGER},
	{IPOPT, "lsrr", 131, "addr", 24, 32, TYPE_INTEGER},
	{IPOPT, "ssrr", 137, "type", 0, 8, TYPE_INTEGER},
	{IPOPT, "ssrr", 137, "length", 8, 8, TYPE_INTEGER},
	{IPOPT, "ssrr", 137, "ptr", 16, 8, TYPE_INTEGER},
	{IPOPT, "ssrr", 137, "addr", 24, 32, TYPE_INTEGER},
	{IPOPT, "ra", 148, "type", 0, 8, TYPE_INTEGER},
	{IPOPT, "ra", 148, "length", 8, 8, TYPE_INTEGER},
	{IPOPT, "ra", 148, "value", 16, 16, TYPE_INTEGER},
	// SCTP chunks (sctp_chunk.c): every chunk's type, flags and length,
	// then its own fields
	{SCTP, "data", 0, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "data", 0, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "data", 0, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "data", 0, "tsn", 32, 32, TYPE_INTEGER},
	{SCTP, "data", 0, "stream", 64, 16, TYPE_INTEGER},
	{SCTP, "data", 0, "ssn", 80, 16, TYPE_INTEGER},
	{SCTP, "data", 0, "ppid", 96, 32, TYPE_INTEGER},
	{SCTP, "init", 1, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "init", 1, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "init", 1, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "init", 1, "init-tag", 32, 32, TYPE_INTEGER},
	{SCTP, "init", 1, "a-rwnd", 64, 32, TYPE_INTEGER},
	{SCTP, "init", 1, "num-outbound-streams", 96, 16, TYPE_INTEGER},
	{SCTP, "init", 1, "num-inbound-streams", 112, 16, TYPE_INTEGER},
	{SCTP, "init", 1, "initial-tsn", 128, 32, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "init-tag", 32, 32, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "a-rwnd", 64, 32, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "num-outbound-streams", 96, 16, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "num-inbound-streams", 112, 16, TYPE_INTEGER},
	{SCTP, "init-ack", 2, "initial-tsn", 128, 32, TYPE_INTEGER},
	{SCTP, "sack", 3, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "sack", 3, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "sack", 3, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "sack", 3, "cum-tsn-ack", 32, 32, TYPE_INTEGER},
	{SCTP, "sack", 3, "a-rwnd", 64, 32, TYPE_INTEGER},
	{SCTP, "sack", 3, "num-gap-ack-blocks", 96, 16, TYPE_INTEGER},
	{SCTP, "sack", 3, "num-dup-tsns", 112, 16, TYPE_INTEGER},
	{SCTP, "heartbeat", 4, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "heartbeat", 4, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "heartbeat", 4, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "heartbeat-ack", 5, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "heartbeat-ack", 5, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "heartbeat-ack", 5, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "abort", 6, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "abort", 6, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "abort", 6, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "shutdown", 7, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "shutdown", 7, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "shutdown", 7, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "shutdown", 7, "cum-tsn-ack", 32, 32, TYPE_INTEGER},
	{SCTP, "shutdown-ack", 8, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "shutdown-ack", 8, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "shutdown-ack", 8, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "error", 9, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "error", 9, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "error", 9, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "cookie-echo", 10, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "cookie-echo", 10, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "cookie-echo", 10, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "cookie-ack", 11, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "cookie-ack", 11, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "cookie-ack", 11, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "ecne", 12, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "ecne", 12, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "ecne", 12, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "ecne", 12, "lowest-tsn", 32, 32, TYPE_INTEGER},
	{SCTP, "cwr", 13, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "cwr", 13, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "cwr", 13, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "cwr", 13, "lowest-tsn", 32, 32, TYPE_INTEGER},
	{SCTP, "shutdown-complete", 14, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "shutdown-complete", 14, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "shutdown-complete", 14, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "asconf-ack", 128, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "asconf-ack", 128, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "asconf-ack", 128, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "asconf-ack", 128, "seqno", 32, 32, TYPE_INTEGER},
	{SCTP, "forward-tsn", 192, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "forward-tsn", 192, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "forward-tsn", 192, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "forward-tsn", 192, "new-cum-tsn", 32, 32, TYPE_INTEGER},
	{SCTP, "asconf", 193, "type", 0, 8, TYPE_INTEGER},
	{SCTP, "asconf", 193, "flags", 8, 8, TYPE_INTEGER},
	{SCTP, "asconf", 193, "length", 16, 16, TYPE_INTEGER},
	{SCTP, "asconf", 193, "seqno", 32, 32, TYPE_INTEGER},
};

#undef IP6
#undef TCPOPT
#undef IPOPT
#undef SCTP

const ExthdrField *find_exthdr(uint32_t op, const std::string &name, const std::string &field)
{
	for (auto &f : exthdr_fields)
		if (f.op == op && name == f.name && (field.empty() ? f.offset == 0 : field == f.field))
			return &f;
	return nullptr;
}

const ExthdrField *exthdr_at(uint32_t op, uint8_t type, unsigned offset, unsigned bits)
{
	for (auto &f : exthdr_fields)
		if (f.op == op && f.type == type && f.offset == offset && f.bits == bits)
			return &f;
	return nullptr;
}

const char *exthdr_name(uint32_t op, uint8_t type)
{
	for (auto &f : exthdr_fields)
		if (f.op == op && f.type == type)
			return f.name;
	return nullptr;
}

const ExthdrField *find_exthdr_at(uint32_t op, const std::string &name, unsigned offset, unsigned bits)
{
	for (auto &f : exthdr_fields)
		if (f.op == op && name == f.name && f.offset == offset && f.bits == bits)
			return &f;
	return nullptr;
}

// nft's IP option templates by index from 1 (every option has the same
// slots, whether it uses them or not)
static const char *const kIpOptionTemplates[] = {"type", "length", "value", "ptr", "addr"};

// nft's enum exthdr_desc_id, in order from 1
static const char *const kIpv6DescNames[] = {"hbh", "rt", "rt0", "rt2", "srh", "frag", "dst", "mh"};

uint32_t exthdr_desc_id(const ExthdrField &f)
{
	if (f.op != NFT_EXTHDR_OP_IPV6)
		return f.type;
	for (uint32_t i = 0; i < sizeof(kIpv6DescNames) / sizeof(kIpv6DescNames[0]); i++)
		if (!strcmp(kIpv6DescNames[i], f.name))
			return i + 1;
	return 0;
}

static uint32_t first_template(uint32_t op)
{
	return op == NFT_EXTHDR_OP_IPV6 || op == NFT_EXTHDR_OP_IPV4 ? 1 : 0;
}

uint32_t exthdr_template_index(const ExthdrField &f)
{
	if (f.op == NFT_EXTHDR_OP_IPV4) {
		for (uint32_t i = 0; i < sizeof(kIpOptionTemplates) / sizeof(kIpOptionTemplates[0]); i++)
			if (!strcmp(kIpOptionTemplates[i], f.field))
				return i + 1;
		return 0;
	}
	uint32_t index = first_template(f.op);
	for (auto &x : exthdr_fields) {
		if (&x == &f)
			break;
		if (x.op == f.op && !strcmp(x.name, f.name))
			index++;
	}
	return index;
}

const ExthdrField *exthdr_by_template(uint32_t op, uint32_t desc_id, uint32_t index)
{
	const char *name = nullptr;
	if (op == NFT_EXTHDR_OP_IPV6) {
		if (desc_id == 0 || desc_id > sizeof(kIpv6DescNames) / sizeof(kIpv6DescNames[0]))
			return nullptr;
		name = kIpv6DescNames[desc_id - 1];
	} else {
		if (desc_id > 255 || !(name = exthdr_name(op, static_cast<uint8_t>(desc_id))))
			return nullptr;
	}
	if (index < first_template(op))
		return nullptr;
	if (op == NFT_EXTHDR_OP_IPV4)
		return index <= sizeof(kIpOptionTemplates) / sizeof(kIpOptionTemplates[0])
			       ? find_exthdr(op, name, kIpOptionTemplates[index - 1])
			       : nullptr;
	uint32_t n = first_template(op);
	for (auto &x : exthdr_fields)
		if (x.op == op && !strcmp(x.name, name) && n++ == index)
			return &x;
	return nullptr;
}

const PayloadField *payload_fields_all(size_t &n)
{
	n = sizeof(payload_fields) / sizeof(payload_fields[0]);
	return payload_fields;
}

const MetaKey *meta_by_key(uint32_t key)
{
	for (auto &m : meta_keys)
		if (m.key == key)
			return &m;
	return nullptr;
}

const CtKey *ct_by_key(uint32_t key)
{
	for (auto &k : ct_keys)
		if (k.key == key)
			return &k;
	for (auto &k : ct_ip_keys)
		if (k.key == key)
			return &k;
	for (auto &k : ct_ip6_keys)
		if (k.key == key)
			return &k;
	return nullptr;
}

const PayloadField *find_payload(const std::string &proto, const std::string &field)
{
	for (auto &f : payload_fields)
		if (proto == f.proto && field == f.name)
			return &f;
	return nullptr;
}

int icmp_field_dep(const std::string &proto, const std::string &field)
{
	if (proto == "icmp") {
		if (field == "id" || field == "sequence")
			return kIcmpDepEcho;
		if (field == "mtu")
			return 3;	/* ICMP_DEST_UNREACH */
		if (field == "gateway")
			return 5;	/* ICMP_REDIRECT */
	} else if (proto == "icmpv6") {
		if (field == "id" || field == "sequence")
			return kIcmp6DepEcho;
		if (field == "mtu")
			return 2;	/* ICMP6_PACKET_TOO_BIG */
		if (field == "parameter-problem")
			return 4;	/* ICMP6_PARAM_PROB */
		if (field == "max-delay")
			return 130;	/* MLD_LISTENER_QUERY */
	}
	return -1;
}

bool icmp_dep_allows(int dep, int type)
{
	if (dep < 0 || type < 0)
		return true;
	if (dep == kIcmpDepEcho)
		return type == 8 || type == 0;		/* echo request, reply */
	if (dep == kIcmp6DepEcho)
		return type == 128 || type == 129;
	return dep == type;
}

const MetaKey *find_meta(const std::string &name)
{
	/* nft's scanner reads `secpath` as `ipsec` (and lists `ipsec`) */
	const std::string &key = name == "secpath" ? std::string("ipsec") : name;
	for (auto &m : meta_keys)
		if (key == m.name)
			return &m;
	return nullptr;
}

const CtKey *find_ct(const std::string &name, const std::string &l3)
{
	if (l3 == "ip") {
		for (auto &k : ct_ip_keys)
			if (name == k.name)
				return &k;
		return nullptr;
	}
	if (l3 == "ip6") {
		for (auto &k : ct_ip6_keys)
			if (name == k.name)
				return &k;
		return nullptr;
	}
	for (auto &k : ct_keys)
		if (name == k.name)
			return &k;
	return nullptr;
}

std::string meta_expr_text(uint32_t key)
{
	static const uint32_t unqualified[] = {NFT_META_IIF, NFT_META_OIF, NFT_META_IIFNAME,
					       NFT_META_OIFNAME, NFT_META_IIFGROUP, NFT_META_OIFGROUP};
	const MetaKey *m = meta_by_key(key);
	std::string n = m ? m->name : "key" + std::to_string(key);
	for (uint32_t k : unqualified)
		if (k == key)
			return n;
	return "meta " + n;
}

std::string ct_key_text(uint32_t key)
{
	const CtKey *k = ct_by_key(key);
	std::string name = k ? k->name : "key" + std::to_string(key);
	if (key == NFT_CT_SRC_IP || key == NFT_CT_DST_IP)
		return "ip " + name;
	if (key == NFT_CT_SRC_IP6 || key == NFT_CT_DST_IP6)
		return "ip6 " + name;
	return name;
}

std::string ct_expr_text(uint32_t key, int dir)
{
	const char *d = dir == 0 ? "original " : dir == 1 ? "reply " : "";
	return "ct " + std::string(d) + ct_key_text(key);
}

// nftables' proto_desc ids (proto.h) of the protocols xnft knows.
static const struct {
	const char *proto;
	uint32_t id;
} nft_proto_descs[] = {
	{"ah", 1}, {"esp", 2}, {"comp", 3}, {"icmp", 4}, {"udp", 6}, {"udplite", 7},
	{"tcp", 8}, {"dccp", 9}, {"sctp", 10}, {"th", 11}, {"ip", 12}, {"ip6", 13},
	{"icmpv6", 14}, {"arp", 15}, {"vlan", 16}, {"ether", 17},
};

uint32_t nft_proto_desc_id(const std::string &proto)
{
	for (auto &d : nft_proto_descs)
		if (proto == d.proto)
			return d.id;
	return 0;
}

// payload_fields lists each protocol's fields in the order of nftables'
// templates, so a field's index is its place among its protocol's.
unsigned nft_field_index(const PayloadField &f)
{
	unsigned index = 0;
	for (auto &g : payload_fields) {
		if (!strcmp(g.proto, f.proto))
			index++;
		if (&g == &f)
			return index;
	}
	return 0;
}

const PayloadField *payload_by_nft_id(uint32_t desc, unsigned index)
{
	const char *proto = nullptr;
	for (auto &d : nft_proto_descs)
		if (d.id == desc)
			proto = d.proto;
	if (!proto)
		return nullptr;
	unsigned at = 0;
	for (auto &f : payload_fields)
		if (!strcmp(f.proto, proto) && ++at == index)
			return &f;
	return nullptr;
}

static const struct {
	const char *name;
	uint8_t number;
} other_transports[] = {
	{"esp", 50}, {"ah", 51}, {"comp", 108}, {"sctp", 132}, {"dccp", 33}, {"udplite", 136},
};

int other_transport_number(const std::string &name)
{
	for (auto &t : other_transports)
		if (name == t.name)
			return t.number;
	return -1;
}

const char *other_transport_name(uint8_t number)
{
	for (auto &t : other_transports)
		if (number == t.number)
			return t.name;
	return nullptr;
}

Layer proto_layer(const std::string &proto)
{
	if (proto == "ether" || proto == "vlan")
		return Layer::Link;
	if (proto == "ip" || proto == "ip6" || proto == "arp")
		return Layer::Network;
	return Layer::Transport;
}

PayloadChecksum payload_checksum(const PayloadField &f)
{
	PayloadChecksum c;
	const std::string proto = f.proto, name = f.name;
	// IPv4 and IPv6 header fields the transport checksums cover
	const bool in_pseudohdr = name == "saddr" || name == "daddr" || name == "length";
	if (proto == "ip") {
		c.type = NFT_PAYLOAD_CSUM_INET;
		c.offset_bytes = 10;
		c.pseudohdr = in_pseudohdr || name == "protocol";
	} else if (proto == "ip6") {
		c.pseudohdr = in_pseudohdr || name == "nexthdr";
	} else if (proto == "tcp") {
		c.type = NFT_PAYLOAD_CSUM_INET;
		c.offset_bytes = 16;
	} else if (proto == "udp") {
		c.type = NFT_PAYLOAD_CSUM_INET;
		c.offset_bytes = 6;
	} else if (proto == "icmp" || proto == "icmpv6") {
		c.type = NFT_PAYLOAD_CSUM_INET;
		c.offset_bytes = 2;
	} else if (proto == "sctp") {
		c.type = NFT_PAYLOAD_CSUM_SCTP;
		c.offset_bytes = 8;
	}
	return c;
}

} // namespace xnft
