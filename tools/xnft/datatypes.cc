// datatypes.cc - value encoding for nft's data types (see datatypes.h).
#include "datatypes.h"

#include <algorithm>

#include <arpa/inet.h>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <ctime>
#include <grp.h>
#include <pwd.h>
#include <vector>
#include <net/if.h>
#include <netdb.h>

namespace xnft {

static const DataType types[] = {
	{TYPE_VERDICT, "verdict", "netfilter verdict", 32, ByteOrder::Host, false},
	{TYPE_NFPROTO, "nf_proto", "netfilter protocol", 8, ByteOrder::Host, false},
	{TYPE_BITMASK, "bitmask", "bitmask", 0, ByteOrder::Host, false},
	{TYPE_INTEGER, "integer", "integer", 32, ByteOrder::Host, false},
	{TYPE_STRING, "string", "string", 0, ByteOrder::Host, false},
	{TYPE_IPADDR, "ipv4_addr", "IPv4 address", 32, ByteOrder::Big, false},
	{TYPE_IP6ADDR, "ipv6_addr", "IPv6 address", 128, ByteOrder::Big, false},
	{TYPE_ETHERADDR, "ether_addr", "Ethernet address", 48, ByteOrder::Big, false},
	{TYPE_ETHERTYPE, "ether_type", "Ethernet protocol", 16, ByteOrder::Big, false},
	{TYPE_ARPOP, "arp_op", "ARP operation", 16, ByteOrder::Big, false},
	{TYPE_INET_PROTOCOL, "inet_proto", "Internet protocol", 8, ByteOrder::Big, false},
	{TYPE_INET_SERVICE, "inet_service", "internet network service", 16, ByteOrder::Big, false},
	{TYPE_ICMP_TYPE, "icmp_type", "ICMP type", 8, ByteOrder::Big, false},
	{TYPE_TCP_FLAG, "tcp_flag", "TCP flag", 8, ByteOrder::Big, true},
	{TYPE_DCCP_PKTTYPE, "dccp_pkttype", "DCCP packet type", 4, ByteOrder::Big, false},
	{TYPE_MH_TYPE, "mh_type", "Mobility Header Type", 8, ByteOrder::Big, false},
	{TYPE_MARK, "mark", "packet mark", 32, ByteOrder::Host, false},
	{TYPE_TIME, "time", "relative time", 32, ByteOrder::Host, false},
	{TYPE_IFINDEX, "iface_index", "network interface index", 32, ByteOrder::Host, false},
	{TYPE_ARPHRD, "iface_type", "network interface type", 16, ByteOrder::Host, false},
	{TYPE_REALM, "realm", "routing realm", 32, ByteOrder::Host, false},
	{TYPE_CLASSID, "classid", "TC classid", 32, ByteOrder::Host, false},
	{TYPE_UID, "uid", "user ID", 32, ByteOrder::Host, false},
	{TYPE_GID, "gid", "group ID", 32, ByteOrder::Host, false},
	{TYPE_CT_STATE, "ct_state", "conntrack state", 32, ByteOrder::Host, true},
	{TYPE_CT_DIR, "ct_dir", "conntrack direction", 8, ByteOrder::Host, false},
	{TYPE_CT_STATUS, "ct_status", "conntrack status", 32, ByteOrder::Host, true},
	{TYPE_ICMP6_TYPE, "icmpv6_type", "ICMPv6 type", 8, ByteOrder::Big, false},
	{TYPE_PKTTYPE, "pkt_type", "packet type", 8, ByteOrder::Host, false},
	{TYPE_ICMP_CODE, "icmp_code", "icmp code", 8, ByteOrder::Big, false},
	{TYPE_ICMPV6_CODE, "icmpv6_code", "icmpv6 code", 8, ByteOrder::Big, false},
	{TYPE_ICMPX_CODE, "icmpx_code", "icmpx code", 8, ByteOrder::Big, false},
	{TYPE_DEVGROUP, "devgroup", "devgroup name", 32, ByteOrder::Host, false},
	{TYPE_DSCP, "dscp", "Differentiated Services Code Point", 6, ByteOrder::Big, false},
	{TYPE_ECN, "ecn", "Explicit Congestion Notification", 2, ByteOrder::Big, false},
	{TYPE_BOOLEAN, "boolean", "boolean type", 1, ByteOrder::Host, false},
	{TYPE_IFNAME, "ifname", "network interface name", 128, ByteOrder::Host, false},
	// meta time, day, hour (nft's date_type is named "time" too; `type
	// time` finds the relative time above first, as in nft)
	{TYPE_TIME_DATE, "time", "Relative time of packet reception", 64, ByteOrder::Host, false},
	{TYPE_TIME_HOUR, "hour", "Hour of day of packet reception", 32, ByteOrder::Host, false},
	{TYPE_TIME_DAY, "day", "Day of week of packet reception", 8, ByteOrder::Host, false},
};

const DataType &datatype(TypeId id)
{
	for (auto &t : types)
		if (t.id == id)
			return t;
	return types[2];
}

const DataType &xinteger_type()
{
	static const DataType t{TYPE_INTEGER, "integer", "integer", 32, ByteOrder::Big, false, true};
	return t;
}

// An xinteger's hexadecimal digits: no leading zeros, "0x0" for zero.
static std::string hex_text(const Bytes &b, ByteOrder order)
{
	Bytes be = b;
	if (order == ByteOrder::Host)
		std::reverse(be.begin(), be.end());
	std::string out;
	char buf[4];
	for (uint8_t x : be) {
		snprintf(buf, sizeof buf, out.empty() ? "%x" : "%02x", x);
		if (!out.empty() || x)
			out += buf;
	}
	return "0x" + (out.empty() ? std::string("0") : out);
}

uint32_t nft_byteorder(const DataType &t)
{
	switch (t.id) {
	case TYPE_INET_PROTOCOL:
	case TYPE_NFPROTO:
	case TYPE_CT_DIR:
	case TYPE_BOOLEAN:
		return 0;
	default:
		return t.order == ByteOrder::Big ? 2 : 1;
	}
}

const DataType *datatype_by_name(const std::string &name)
{
	for (auto &t : types)
		if (name == t.name)
			return &t;
	return nullptr;
}

struct Sym {
	const char *name;
	uint64_t value;
};

static const Sym ethertype_syms[] = {
	{"ip", 0x0800}, {"arp", 0x0806}, {"ip6", 0x86dd}, {"vlan", 0x8100},
	{"8021q", 0x8100}, {"8021ad", 0x88a8},
};
static const Sym arpop_syms[] = {
	{"request", 1}, {"reply", 2}, {"rrequest", 3}, {"rreply", 4},
	{"inrequest", 8}, {"inreply", 9}, {"nak", 10},
};
// nft's arphrd symbols (meta iiftype, oiftype)
static const Sym arphrd_syms[] = {
	{"ether", 1}, {"ppp", 512}, {"ipip", 768}, {"ipip6", 769}, {"loopback", 772},
	{"sit", 776}, {"ipgre", 778},
};
static const Sym proto_syms[] = {
	{"icmp", 1}, {"igmp", 2}, {"tcp", 6}, {"udp", 17}, {"ipv6", 41},
	{"gre", 47}, {"esp", 50}, {"ah", 51}, {"icmpv6", 58}, {"ipv6-icmp", 58},
	{"sctp", 132}, {"udplite", 136}, {"dccp", 33},
};
static const Sym ct_state_syms[] = {
	{"invalid", 1}, {"established", 2}, {"related", 4}, {"new", 8},
	{"untracked", 64},
};
static const Sym ct_status_syms[] = {
	{"expected", 1}, {"seen-reply", 2}, {"assured", 4}, {"confirmed", 8},
	{"snat", 16}, {"dnat", 32}, {"dying", 512},
};
static const Sym ct_dir_syms[] = {{"original", 0}, {"reply", 1}};
static const Sym pkttype_syms[] = {
	{"host", 0}, {"unicast", 0}, {"broadcast", 1}, {"multicast", 2}, {"other", 3},
};
static const Sym icmp_syms[] = {
	{"echo-reply", 0}, {"destination-unreachable", 3}, {"source-quench", 4},
	{"redirect", 5}, {"echo-request", 8}, {"router-advertisement", 9},
	{"router-solicitation", 10}, {"time-exceeded", 11}, {"parameter-problem", 12},
	{"timestamp-request", 13}, {"timestamp-reply", 14}, {"info-request", 15},
	{"info-reply", 16}, {"address-mask-request", 17}, {"address-mask-reply", 18},
};
static const Sym icmp6_syms[] = {
	{"destination-unreachable", 1}, {"packet-too-big", 2}, {"time-exceeded", 3},
	{"parameter-problem", 4}, {"echo-request", 128}, {"echo-reply", 129},
	{"mld-listener-query", 130}, {"mld-listener-report", 131},
	{"mld-listener-done", 132}, {"mld-listener-reduction", 132},
	{"nd-router-solicit", 133}, {"nd-router-advert", 134},
	{"nd-neighbor-solicit", 135}, {"nd-neighbor-advert", 136}, {"nd-redirect", 137},
	{"router-renumbering", 138}, {"ind-neighbor-solicit", 141},
	{"ind-neighbor-advert", 142}, {"mld2-listener-report", 143},
};
static const Sym icmp_code_syms[] = {
	{"net-unreachable", 0}, {"host-unreachable", 1}, {"prot-unreachable", 2},
	{"port-unreachable", 3}, {"frag-needed", 4}, {"net-prohibited", 9},
	{"host-prohibited", 10}, {"admin-prohibited", 13},
};
static const Sym icmpv6_code_syms[] = {
	{"no-route", 0}, {"admin-prohibited", 1}, {"addr-unreachable", 3},
	{"port-unreachable", 4}, {"policy-fail", 5}, {"reject-route", 6},
};
static const Sym icmpx_code_syms[] = {
	{"port-unreachable", 1}, {"admin-prohibited", 3}, {"no-route", 0}, {"host-unreachable", 2},
};
static const Sym devgroup_syms[] = {{"default", 0}};
// /etc/iproute2/rt_realms as iproute2 installs it (nft's realm_tbl)
static const Sym realm_syms[] = {{"cosmos", 0}};
static const Sym day_syms[] = {
	{"Sunday", 0}, {"Monday", 1}, {"Tuesday", 2}, {"Wednesday", 3}, {"Thursday", 4},
	{"Friday", 5}, {"Saturday", 6},
};
static const Sym tcp_flag_syms[] = {
	{"fin", 1}, {"syn", 2}, {"rst", 4}, {"psh", 8}, {"ack", 16}, {"urg", 32},
	{"ecn", 64}, {"cwr", 128},
};
static const Sym dscp_syms[] = {
	{"cs0", 0}, {"cs1", 8}, {"cs2", 16}, {"cs3", 24}, {"cs4", 32}, {"cs5", 40},
	{"cs6", 48}, {"cs7", 56}, {"df", 0}, {"be", 0}, {"lephb", 1}, {"af11", 10},
	{"af12", 12}, {"af13", 14}, {"af21", 18}, {"af22", 20}, {"af23", 22},
	{"af31", 26}, {"af32", 28}, {"af33", 30}, {"af41", 34}, {"af42", 36},
	{"af43", 38}, {"va", 44}, {"ef", 46},
};
static const Sym ecn_syms[] = {{"not-ect", 0}, {"ect1", 1}, {"ect0", 2}, {"ce", 3}};
static const Sym nfproto_syms[] = {{"ipv4", 2}, {"ipv6", 10}};
static const Sym bool_syms[] = {{"exists", 1}, {"missing", 0}};
// DCCP's packet types (RFC 4340, 5.1), as nft names them
static const Sym dccp_pkttype_syms[] = {
	{"request", 0}, {"response", 1}, {"data", 2}, {"ack", 3}, {"dataack", 4},
	{"closereq", 5}, {"close", 6}, {"reset", 7}, {"sync", 8}, {"syncack", 9},
};
static const Sym mh_type_syms[] = {
	{"binding-refresh-request", 0}, {"home-test-init", 1}, {"careof-test-init", 2},
	{"home-test", 3}, {"careof-test", 4}, {"binding-update", 5},
	{"binding-acknowledgement", 6}, {"binding-error", 7}, {"fast-binding-update", 8},
	{"fast-binding-acknowledgement", 9}, {"fast-binding-advertisement", 10},
	{"experimental-mobility-header", 11}, {"home-agent-switch-message", 12},
};

template <size_t N>
static bool lookup(const Sym (&table)[N], const std::string &w, uint64_t &v)
{
	for (auto &s : table)
		if (w == s.name) {
			v = s.value;
			return true;
		}
	return false;
}

static bool parse_number(const std::string &w, uint64_t &v)
{
	if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0])))
		return false;
	try {
		size_t used;
		v = std::stoull(w, &used, 0);
		return used == w.size();
	} catch (const std::logic_error &) {
		return false;
	}
}

// integer_type_parse: the symbol read as GMP's mpz_set_str reads it in
// base 0 (blanks anywhere after the first digit ignored, a leading '-',
// 0x hex, 0b binary, 0 octal), any size. Returns false when it is no
// number; else V is its magnitude cut to BITS bits (a negative number
// goes to the bytes as its magnitude, as nft exports it), and COMPLAINT
// the range check's error for a positive one past BITS bits.
static bool integer_value(const std::string &id, unsigned bits, uint64_t &v, std::string &complaint)
{
	complaint.clear();
	auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
	size_t i = 0;
	while (i < id.size() && space(id[i]))
		i++;
	bool negative = false;
	if (i < id.size() && id[i] == '-') {
		negative = true;
		i++;
	}
	auto digit = [](char c) {
		if (c >= '0' && c <= '9')
			return c - '0';
		if (std::isalpha(static_cast<unsigned char>(c)))
			return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
		return 99;
	};
	if (i >= id.size() || digit(id[i]) >= 10)
		return false;
	unsigned base = 10;
	if (id[i] == '0') {
		base = 8;
		i++;
		if (i < id.size() && (id[i] == 'x' || id[i] == 'X'))
			base = 16, i++;
		else if (i < id.size() && (id[i] == 'b' || id[i] == 'B'))
			base = 2, i++;
	}
	// the value in base 1e9 limbs (least significant first), for the
	// decimal a complaint prints
	std::vector<uint32_t> limbs{0};
	for (; i < id.size(); i++) {
		if (space(id[i]))
			continue;
		const int d = digit(id[i]);
		if (d >= static_cast<int>(base))
			return false;
		uint64_t carry = static_cast<uint64_t>(d);
		for (auto &l : limbs) {
			const uint64_t x = static_cast<uint64_t>(l) * base + carry;
			l = static_cast<uint32_t>(x % 1000000000);
			carry = x / 1000000000;
		}
		if (carry)
			limbs.push_back(static_cast<uint32_t>(carry));
	}
	// the low 64 bits, and whether anything is above them or above BITS
	uint64_t low = 0;
	bool wide = false;
	{
		std::vector<uint32_t> n = limbs;	// divided by 2^32 twice
		for (int word = 0; word < 2; word++) {
			uint64_t rem = 0;
			for (size_t k = n.size(); k-- > 0;) {
				const uint64_t x = rem * 1000000000 + n[k];
				n[k] = static_cast<uint32_t>(x >> 32);
				rem = x & 0xffffffff;
			}
			low |= rem << (32 * word);
		}
		// what is left (over 1e9 limbs, not normalised) must be zero
		wide = std::any_of(n.begin(), n.end(), [](uint32_t x) { return x != 0; });
	}
	const bool too_big = wide || (bits < 64 && low >> bits);
	v = bits < 64 ? low & ((1ull << bits) - 1) : low;
	if (too_big && !negative) {
		std::string dec = std::to_string(limbs.back());
		for (size_t k = limbs.size() - 1; k-- > 0;) {
			char buf[16];
			snprintf(buf, sizeof buf, "%09u", limbs[k]);
			dec += buf;
		}
		complaint = "Value " + dec + " exceeds valid range 0-" +
			    std::to_string(bits >= 64 ? ~0ull : (1ull << bits) - 1);
	}
	return true;
}

// @id whole as strtoumax reads it (blanks first, a sign): Whole::Number
// with @v, Whole::TooBig past @max, Whole::None for anything else.
enum class Whole { Number, TooBig, None };
static Whole whole_number(const std::string &id, uint64_t max, uint64_t &v)
{
	errno = 0;
	char *end = nullptr;
	const uintmax_t n = strtoumax(id.c_str(), &end, 0);
	if (end == id.c_str() || *end != '\0')
		return Whole::None;
	if (errno == ERANGE || n > max)
		return Whole::TooBig;
	v = n;
	return Whole::Number;
}

// inet_protocol_type_parse: a number as strtoumax reads it, else a
// protocol name (/etc/protocols). Returns its complaint, or "" with V.
static std::string protocol_value(const std::string &id, uint64_t &v)
{
	switch (whole_number(id, 0xff, v)) {
	case Whole::Number:
		return "";
	case Whole::TooBig:
		return "Protocol out of range";
	case Whole::None:
		break;
	}
	if (lookup(proto_syms, id, v))
		return "";
	const protoent *p = getprotobyname(id.c_str());
	if (!p)
		return "Could not resolve protocol name";
	v = static_cast<uint64_t>(p->p_proto);
	return "";
}

// inet_service_type_parse: a number as strtoumax reads it (blanks first,
// a sign), else a service name through getaddrinfo. Returns its complaint,
// or "" with V the port.
static std::string service_value(const std::string &id, uint64_t &v)
{
	switch (whole_number(id, 0xffff, v)) {
	case Whole::Number:
		return "";
	case Whole::TooBig:
		return "Service out of range";
	case Whole::None:
		break;
	}
	addrinfo *ai = nullptr;
	const int err = getaddrinfo(nullptr, id.c_str(), nullptr, &ai);
	if (err != 0)
		return std::string("Could not resolve service: ") + gai_strerror(err);
	v = ntohs(reinterpret_cast<const sockaddr_in *>(ai->ai_addr)->sin_port);
	freeaddrinfo(ai);
	return "";
}

static Bytes int_bytes(uint64_t v, unsigned bits, ByteOrder order)
{
	unsigned n = (bits + 7) / 8;
	Bytes b(n);
	for (unsigned i = 0; i < n; i++) {
		// a value wider than 64 bits (a raw payload's) has zeros above
		uint8_t byte = i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : 0;
		if (order == ByteOrder::Big)
			b[n - 1 - i] = byte;
		else
			b[i] = byte;
	}
	return b;
}

// A hexadecimal number wider than 64 bits (nft reads integers with GMP) in
// the big-endian bytes of BITS bits; false if W is none or does not fit.
static bool wide_hex(const std::string &w, unsigned bits, Bytes &out)
{
	if (w.size() <= 2 || w[0] != '0' || (w[1] != 'x' && w[1] != 'X'))
		return false;
	const std::string digits = w.substr(w.find_first_not_of('0', 2) == std::string::npos
						    ? w.size() : w.find_first_not_of('0', 2));
	if (digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos ||
	    w.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos)
		return false;
	if (digits.size() * 4 > bits + 3)
		return false;
	out.assign((bits + 7) / 8, 0);
	for (size_t i = 0; i < digits.size(); i++) {
		const char c = digits[digits.size() - 1 - i];
		const unsigned x = static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
							 : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
		if (i / 2 >= out.size() || (i * 4 >= bits && x) || (i * 4 + 4 > bits && (x >> (bits - i * 4))))
			return false;
		out[out.size() - 1 - i / 2] |= static_cast<uint8_t>(i % 2 ? x << 4 : x);
	}
	return true;
}

static bool symbolic(const DataType &t, const std::string &w, uint64_t &v)
{
	switch (t.id) {
	case TYPE_ETHERTYPE: return lookup(ethertype_syms, w, v);
	case TYPE_ARPOP: return lookup(arpop_syms, w, v);
	case TYPE_ARPHRD: return lookup(arphrd_syms, w, v);
	case TYPE_INET_PROTOCOL: {
		if (lookup(proto_syms, w, v))
			return true;
		const protoent *p = getprotobyname(w.c_str());
		if (p) {
			v = static_cast<uint64_t>(p->p_proto);
			return true;
		}
		return false;
	}
	case TYPE_INET_SERVICE: {
		const servent *s = getservbyname(w.c_str(), "tcp");
		if (!s)
			s = getservbyname(w.c_str(), "udp");
		if (s) {
			v = ntohs(static_cast<uint16_t>(s->s_port));
			return true;
		}
		return false;
	}
	case TYPE_CT_STATE: return lookup(ct_state_syms, w, v);
	case TYPE_CT_STATUS: return lookup(ct_status_syms, w, v);
	case TYPE_CT_DIR: return lookup(ct_dir_syms, w, v);
	case TYPE_PKTTYPE: return lookup(pkttype_syms, w, v);
	case TYPE_ICMP_TYPE: return lookup(icmp_syms, w, v);
	case TYPE_ICMP6_TYPE: return lookup(icmp6_syms, w, v);
	case TYPE_ICMP_CODE: return lookup(icmp_code_syms, w, v);
	case TYPE_ICMPV6_CODE: return lookup(icmpv6_code_syms, w, v);
	case TYPE_ICMPX_CODE: return lookup(icmpx_code_syms, w, v);
	case TYPE_DEVGROUP: return lookup(devgroup_syms, w, v);
	case TYPE_REALM: return lookup(realm_syms, w, v);
	case TYPE_TCP_FLAG: return lookup(tcp_flag_syms, w, v);
	case TYPE_DSCP: return lookup(dscp_syms, w, v);
	case TYPE_ECN: return lookup(ecn_syms, w, v);
	case TYPE_NFPROTO: return lookup(nfproto_syms, w, v);
	case TYPE_BOOLEAN: return lookup(bool_syms, w, v);
	case TYPE_MH_TYPE: return lookup(mh_type_syms, w, v);
	case TYPE_DCCP_PKTTYPE: return lookup(dccp_pkttype_syms, w, v);
	default: return false;
	}
}

// ---- meta day, hour and time (nft's meta.c) ----
//
// nft reads and prints hours and dates in the local time zone: an hour is
// sent as seconds since midnight UTC, a date as nanoseconds since the
// epoch; both shift by the zone's offset from UTC (tm_gmtoff) -- an hour's
// by the offset now, a date's by the offset at that date.

static long utc_offset_at(time_t t)
{
	struct tm tm;
	return localtime_r(&t, &tm) ? tm.tm_gmtoff : 0;
}

// An unsigned decimal number filling W (strtoul's, as nft reads them).
static bool decimal_word(const std::string &w, uint64_t &v)
{
	if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0])))
		return false;
	char *end = nullptr;
	v = strtoull(w.c_str(), &end, 10);
	return *end == '\0';
}

// "" when W reads as a value of the day, hour or date type T (into V),
// else nft's error for it.
static std::string time_value(const DataType &t, const std::string &w, uint64_t &v)
{
	if (t.id == TYPE_TIME_DAY) {
		if (lookup(day_syms, w, v))
			return "";
		if (parse_number(w, v))
			return v > 6 ? "Value " + w + " exceeds valid range 0-6" : "";
		return std::string("Could not parse ") + t.desc;
	}
	if (t.id == TYPE_TIME_DATE) {
		// "%F %T", "%F %R" or "%F" (what follows is not looked at), in
		// local time; else seconds since the epoch
		struct tm tm;
		memset(&tm, 0, sizeof tm);
		if (strptime(w.c_str(), "%F %T", &tm) || strptime(w.c_str(), "%F %R", &tm) ||
		    strptime(w.c_str(), "%F", &tm)) {
			time_t ts = timegm(&tm);
			if (ts != static_cast<time_t>(-1))
				ts -= utc_offset_at(ts);
			v = static_cast<uint64_t>(ts) * 1000000000ull;
			return "";
		}
		if (decimal_word(w, v)) {
			v *= 1000000000ull;
			return "";
		}
		return "Cannot parse date";
	}
	// hour: seconds as they are; "%T" or "%R", or a time ("1h30m"), in
	// local time
	if (decimal_word(w, v))
		return "";
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *end = strptime(w.c_str(), "%T", &tm);
	uint64_t seconds = 0;
	if (!end || *end) {
		end = strptime(w.c_str(), "%R", &tm);
		if (end && *end)
			return "Can't parse trailing input: \"" + std::string(end) + "\"";
		if (!end) {
			Bytes ms;
			if (!try_encode(datatype(TYPE_TIME), 64, ByteOrder::Host, w, false, ms))
				return "wrong time format";
			seconds = bytes_value(ms, ByteOrder::Host) / 1000;
		}
	}
	if (!seconds)
		seconds = static_cast<uint64_t>(tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec);
	const long off = utc_offset_at(time(nullptr));
	uint32_t result = static_cast<uint32_t>(seconds);
	if (static_cast<long>(result) >= off)
		result = static_cast<uint32_t>((result - off) % 86400);
	else
		result = static_cast<uint32_t>(86400 - off + result);
	v = result;
	return "";
}

// How nft prints them: a day's name, an hour "HH:MM[:SS]" and a date
// "YYYY-MM-DD HH:MM:SS", each quoted, in local time.
static std::string time_text(const DataType &t, uint64_t v)
{
	char buf[64];
	if (t.id == TYPE_TIME_DAY) {
		const char *n = nullptr;
		for (auto &s : day_syms)
			if (s.value == v)
				n = s.name;
		return n ? "\"" + std::string(n) + "\"" : std::to_string(v);
	}
	if (t.id == TYPE_TIME_DATE) {
		time_t ts = static_cast<time_t>(v / 1000000000ull);
		ts += utc_offset_at(ts);
		struct tm tm;
		if (!gmtime_r(&ts, &tm) || !strftime(buf, sizeof buf, "%F %T", &tm))
			return "Error converting timestamp to printed time";
		return "\"" + std::string(buf) + "\"";
	}
	uint32_t seconds = static_cast<uint32_t>(v);
	seconds = static_cast<uint32_t>((seconds + utc_offset_at(time(nullptr))) % 86400);
	const uint32_t minutes = seconds / 60 % 60, hours = seconds / 3600;
	seconds %= 60;
	if (seconds)
		snprintf(buf, sizeof buf, "\"%02u:%02u:%02u\"", hours, minutes, seconds);
	else
		snprintf(buf, sizeof buf, "\"%02u:%02u\"", hours, minutes);
	return buf;
}

// The word nft's parser hands a type's parse function: its scanner turns
// a number (decimal, 0x hex, 0 octal, all of the word) into NUM, and the
// grammar makes a NUM a symbol of its decimal digits; any other word, and
// a quoted string's contents, as written.
static std::string nft_identifier(const std::string &w, bool quoted)
{
	uint64_t v;
	if (!quoted && parse_number(w, v))
		return std::to_string(v);
	return w;
}

static bool is_number_token(const std::string &w)
{
	uint64_t v;
	return parse_number(w, v);
}

// nft's scanner's ip4addr: four groups of one to three digits.
static bool is_ip4addr_token(const std::string &w)
{
	unsigned groups = 0, digits = 0;
	for (char c : w) {
		if (std::isdigit(static_cast<unsigned char>(c))) {
			if (++digits > 3)
				return false;
		} else if (c == '.' && digits) {
			groups++;
			digits = 0;
		} else {
			return false;
		}
	}
	return groups == 3 && digits;
}

// lladdr_type_parse: hex bytes of at most 0xff, each after any one
// separator, a number of as many bytes as were written: `1` is
// 00:00:00:00:00:01 and `1:2` 00:00:00:00:01:02. Returns nft's complaint,
// or "" with @out the @bits-wide value.
static std::string parse_lladdr(const std::string &id, unsigned bits, Bytes &out)
{
	Bytes raw;
	const char *s = id.c_str();
	for (;;) {
		char *end;
		const unsigned long n = strtoul(s, &end, 16);
		if (end == s || n > 0xff)
			return "Invalid LL address";
		raw.push_back(static_cast<uint8_t>(n));
		if (*end == '\0')
			break;
		s = end + 1;
	}
	const size_t width = bits / 8;
	size_t lead = 0;
	while (lead < raw.size() && raw[lead] == 0)
		lead++;
	if (raw.size() - lead > width) {
		// constant_expr's range check, for the values it can print
		if (raw.size() - lead > 8)
			return "Invalid LL address";
		uint64_t v = 0;
		for (size_t i = lead; i < raw.size(); i++)
			v = v << 8 | raw[i];
		return "Value " + std::to_string(v) + " exceeds valid range 0-" +
		       std::to_string((1ull << bits) - 1);
	}
	out.assign(width, 0);
	std::copy(raw.begin() + static_cast<long>(lead), raw.end(),
		  out.end() - static_cast<long>(raw.size() - lead));
	return "";
}

// ipaddr_type_parse, ip6addr_type_parse: getaddrinfo of the word, a name
// too (/etc/hosts, DNS), as nft resolves it. Returns nft's complaint, or
// "" with @out the address.
static std::string resolve_address(const DataType &t, const std::string &id, Bytes &out)
{
	addrinfo hints{};
	hints.ai_family = t.id == TYPE_IPADDR ? AF_INET : AF_INET6;
	hints.ai_socktype = SOCK_DGRAM;
	addrinfo *ai = nullptr;
	const int err = getaddrinfo(id.c_str(), nullptr, &hints, &ai);
	if (err != 0)
		return std::string("Could not resolve hostname: ") + gai_strerror(err);
	std::string complaint;
	if (ai->ai_next) {
		complaint = "Hostname resolves to multiple addresses";
	} else if (t.id == TYPE_IPADDR) {
		const auto *sin = reinterpret_cast<const sockaddr_in *>(ai->ai_addr);
		const auto *b = reinterpret_cast<const uint8_t *>(&sin->sin_addr);
		out.assign(b, b + 4);
	} else {
		const auto *sin6 = reinterpret_cast<const sockaddr_in6 *>(ai->ai_addr);
		out.assign(sin6->sin6_addr.s6_addr, sin6->sin6_addr.s6_addr + 16);
	}
	freeaddrinfo(ai);
	return complaint;
}

// expr_evaluate_string: W with its terminating zero must fit BITS; not
// empty, not the wildcard alone. Returns nft's complaint or "".
static std::string string_complaint(const std::string &w, unsigned bits)
{
	if (w.size() + 1 > bits / 8)
		return "String exceeds maximum length of " + std::to_string(bits / 8);
	if (w.empty())
		return "Empty string is not allowed";
	if (w == "*")
		return "All-wildcard strings are not supported";
	return "";
}

// uid_type_parse, gid_type_parse: a user or group name, else a decimal
// number of at most 32 bits. Returns nft's complaint or "" with V.
static std::string id_complaint(const DataType &t, const std::string &id, uint64_t &v)
{
	if (t.id == TYPE_UID) {
		if (const passwd *pw = getpwnam(id.c_str())) {
			v = pw->pw_uid;
			return "";
		}
	} else if (const group *gr = getgrnam(id.c_str())) {
		v = gr->gr_gid;
		return "";
	}
	errno = 0;
	char *end = nullptr;
	const unsigned long long n = strtoull(id.c_str(), &end, 10);
	if (n > 0xffffffffull)
		return "Value too large";
	if (*end || errno)
		return t.id == TYPE_UID ? "User does not exist" : "Group does not exist";
	v = n;
	return "";
}

bool try_encode(const DataType &t, unsigned bits, ByteOrder order, const std::string &w,
		bool quoted, Bytes &out)
{
	uint64_t v;
	switch (t.id) {
	case TYPE_TIME_DAY:
	case TYPE_TIME_HOUR:
	case TYPE_TIME_DATE:
		if (!time_value(t, w, v).empty())
			return false;
		break;
	case TYPE_IPADDR: {
		// the numeric forms of getaddrinfo (inet_aton: "1", "0x0a000001",
		// "012.1.1.1"); names are resolved only once nothing else
		// parses (resolve_address), never for a guess at a range
		in_addr a;
		if (!quoted && !is_number_token(w) && !is_ip4addr_token(w) &&
		    inet_pton(AF_INET, w.c_str(), &a) != 1)
			return false;
		if (inet_aton(nft_identifier(w, quoted).c_str(), &a) == 0)
			return false;
		out.assign(reinterpret_cast<uint8_t *>(&a), reinterpret_cast<uint8_t *>(&a) + 4);
		return true;
	}
	case TYPE_IP6ADDR: {
		in6_addr a;
		if (inet_pton(AF_INET6, w.c_str(), &a) != 1)
			return false;
		out.assign(a.s6_addr, a.s6_addr + 16);
		return true;
	}
	case TYPE_ETHERADDR:
	case TYPE_LLADDR:
		if (!quoted && std::isdigit(static_cast<unsigned char>(w[0])) &&
		    w.find_first_of("-./") != std::string::npos)
			return false;	/* nft's scanner splits it: a range, a prefix */
		return parse_lladdr(nft_identifier(w, quoted), bits, out).empty();
	case TYPE_IFNAME:
	case TYPE_STRING: {
		if (!string_complaint(w, bits).empty())
			return false;
		const unsigned n = bits / 8;
		std::string s = w;
		if (s.back() == '*' && s[s.size() - 2] != '\\') {
			// wildcard: prefix match, no terminating zero
			s.pop_back();
			out.assign(s.begin(), s.end());
			return true;
		}
		if (s.back() == '*')	// "eth\*": every backslash dropped, an exact match
			s.erase(std::remove(s.begin(), s.end(), '\\'), s.end());
		out.assign(n, 0);
		std::memcpy(out.data(), s.data(), std::min<size_t>(s.size(), n));
		return true;
	}
	case TYPE_UID:
	case TYPE_GID:
		if (!id_complaint(t, nft_identifier(w, quoted), v).empty())
			return false;
		break;
	case TYPE_TIME: {
		// 1d2h3m4s5ms; a bare number is seconds
		if (quoted || w.empty())
			return false;
		uint64_t total = 0;
		size_t i = 0;
		while (i < w.size()) {
			size_t j = i;
			while (j < w.size() && std::isdigit(static_cast<unsigned char>(w[j])))
				j++;
			if (j == i)
				return false;
			uint64_t n = std::stoull(w.substr(i, j - i));
			size_t k = j;
			while (k < w.size() && std::isalpha(static_cast<unsigned char>(w[k])))
				k++;
			std::string unit = w.substr(j, k - j);
			uint64_t mult;
			if (unit == "d") mult = 86400000;
			else if (unit == "h") mult = 3600000;
			else if (unit == "m") mult = 60000;
			else if (unit == "s" || unit.empty()) mult = 1000;
			else if (unit == "ms") mult = 1;
			else return false;
			total += n * mult;
			i = k;
		}
		v = total;
		break;
	}
	case TYPE_CLASSID: {
		// tchandle_type_parse: root, none, MAJ:MIN in hex (a quoted one
		// any length, cut to 32 bits; unquoted nft's scanner takes one to
		// four digits each), else strtoull's number, 0 for no number
		if (w == "root") {
			v = 0xffffffff;
		} else if (w == "none") {
			v = 0;
		} else if (w.find(':') != std::string::npos) {
			const size_t c = w.find(':');
			auto hex = [](const std::string &x) {
				return x.size() >= 1 && x.size() <= 4 &&
				       x.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
			};
			if (!quoted && (!hex(w.substr(0, c)) || !hex(w.substr(c + 1))))
				return false;
			v = static_cast<uint32_t>(std::strtoull(w.substr(0, c).c_str(), nullptr, 16) << 16);
			if (c + 1 < w.size())
				v |= static_cast<uint32_t>(std::strtoull(w.c_str() + c + 1, nullptr, 16));
		} else {
			v = static_cast<uint32_t>(std::strtoull(w.c_str(), nullptr, 0));
		}
		break;
	}
	case TYPE_IFINDEX: {
		if (!quoted && parse_number(w, v))
			break;
		unsigned idx = if_nametoindex(w.c_str());
		if (idx == 0)
			return false;
		v = idx;
		break;
	}
	default: {
		// the type's parse of nft's symbol: a quoted string's contents
		// or the word, a number's decimal digits; numbers first where the
		// names come from the system's databases (/etc/services and
		// /etc/protocols are read on every look-up)
		const std::string id = nft_identifier(w, quoted);
		if (t.id == TYPE_INET_SERVICE)
			return service_value(id, v).empty() && (out = int_bytes(v, bits, order), true);
		if (t.id == TYPE_INET_PROTOCOL)
			return protocol_value(id, v).empty() && (out = int_bytes(v, bits, order), true);
		if (t.id == TYPE_INTEGER && bits > 64 && order == ByteOrder::Big && wide_hex(w, bits, out))
			return true;
		if (symbolic(t, id, v))
			break;
		// the integer base type's parse, its range check
		std::string complaint;
		if (!integer_value(id, bits, v, complaint) || !complaint.empty())
			return false;
		out = int_bytes(v, bits, order);
		return true;
	}
	}
	if (bits < 64 && v >> bits)
		return false;
	out = int_bytes(v, bits, order);
	return true;
}

uint64_t bytes_value(const Bytes &b, ByteOrder order)
{
	uint64_t v = 0;
	if (order == ByteOrder::Big) {
		for (uint8_t x : b)
			v = (v << 8) | x;
	} else {
		for (size_t i = b.size(); i-- > 0;)
			v = (v << 8) | b[i];
	}
	return v;
}

template <size_t N>
static const char *name_of(const Sym (&table)[N], uint64_t v)
{
	for (auto &s : table)
		if (s.value == v)
			return s.name;
	return nullptr;
}

template <size_t N>
static std::string flag_names(const Sym (&table)[N], uint64_t v)
{
	std::string out;
	for (auto &s : table) {
		if (v & s.value) {
			out += (out.empty() ? "" : ",") + std::string(s.name);
			v &= ~s.value;
		}
	}
	if (v) {
		char buf[32];
		snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
		out += (out.empty() ? "" : ",") + std::string(buf);
	}
	return out;
}

// -n: what nft prints for a symbolic type's value, numerically
static bool format_numeric(const DataType &t, uint64_t v, std::string &out)
{
	char buf[32];
	switch (t.id) {
	case TYPE_ETHERTYPE:
		snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
		break;
	case TYPE_DSCP:
		snprintf(buf, sizeof buf, "0x%02llx", static_cast<unsigned long long>(v));
		break;
	case TYPE_ECN:
		snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
		break;
	case TYPE_CT_STATE:
	case TYPE_CT_STATUS:
	case TYPE_TCP_FLAG: {
		// every flag on its own, in hex
		if (!v) {
			out = "0x0";
			return true;
		}
		out.clear();
		for (unsigned bit = 0; bit < 64; bit++)
			if (v & (1ull << bit)) {
				snprintf(buf, sizeof buf, "0x%llx", 1ull << bit);
				out += (out.empty() ? "" : ",") + std::string(buf);
			}
		return true;
	}
	case TYPE_INET_PROTOCOL:
	case TYPE_ARPOP:
	case TYPE_ARPHRD:
	case TYPE_CT_DIR:
	case TYPE_PKTTYPE:
	case TYPE_ICMP_TYPE:
	case TYPE_ICMP6_TYPE:
	case TYPE_ICMP_CODE:
	case TYPE_ICMPV6_CODE:
	case TYPE_ICMPX_CODE:
	case TYPE_DEVGROUP:
	case TYPE_REALM:
	case TYPE_NFPROTO:
	case TYPE_TIME_DAY:
	case TYPE_MH_TYPE:
	case TYPE_DCCP_PKTTYPE:
	case TYPE_BOOLEAN:
		snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
		break;
	case TYPE_TIME:
		// -n includes numeric time: whole seconds
		snprintf(buf, sizeof buf, "%llus", static_cast<unsigned long long>(v / 1000));
		break;
	default:
		return false;
	}
	out = buf;
	return true;
}

std::string format_range_end(const DataType &t, unsigned bits, ByteOrder order, const Bytes &b)
{
	if (t.bitmask && b.size() <= 8) {
		char buf[32];
		snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(bytes_value(b, order)));
		return buf;
	}
	return format_value(t, bits, order, b, true);
}

OutputFlags &output_flags()
{
	static OutputFlags flags;
	return flags;
}

// -S, -N, -u: a port's service name ("ssh", quoted), an address's host
// name (getnameinfo, unquoted), a user's or group's name (quoted), as
// inet_service_type_print, ipaddr_type_print, ip6addr_type_print,
// uid_type_print and gid_type_print print them; false when there is none.
static bool format_name(const DataType &t, const Bytes &b, uint64_t v, std::string &out)
{
	const OutputFlags &of = output_flags();
	char host[NI_MAXHOST];
	if (t.id == TYPE_INET_SERVICE && of.service && b.size() == 2) {
		const servent *s = getservbyport(htons(static_cast<uint16_t>(v)), nullptr);
		if (!s)
			return false;
		out = "\"" + std::string(s->s_name) + "\"";
		return true;
	}
	if ((t.id == TYPE_IPADDR && b.size() == 4) || (t.id == TYPE_IP6ADDR && b.size() == 16)) {
		if (!of.reversedns)
			return false;
		sockaddr_in sin = {};
		sockaddr_in6 sin6 = {};
		sin.sin_family = AF_INET;
		sin6.sin6_family = AF_INET6;
		const bool v4 = t.id == TYPE_IPADDR;
		memcpy(v4 ? static_cast<void *>(&sin.sin_addr) : static_cast<void *>(&sin6.sin6_addr), b.data(), b.size());
		if (getnameinfo(v4 ? reinterpret_cast<sockaddr *>(&sin) : reinterpret_cast<sockaddr *>(&sin6),
				v4 ? sizeof sin : sizeof sin6, host, sizeof host, nullptr, 0, 0) != 0)
			return false;
		out = host;
		return true;
	}
	if ((t.id == TYPE_UID || t.id == TYPE_GID) && of.guid) {
		if (t.id == TYPE_UID) {
			const passwd *pw = getpwuid(static_cast<uid_t>(v));
			if (!pw)
				return false;
			out = "\"" + std::string(pw->pw_name) + "\"";
		} else {
			const group *gr = getgrgid(static_cast<gid_t>(v));
			if (!gr)
				return false;
			out = "\"" + std::string(gr->gr_name) + "\"";
		}
		return true;
	}
	return false;
}

std::string format_value(const DataType &t, unsigned bits, ByteOrder order, const Bytes &b, bool numeric)
{
	char buf[INET6_ADDRSTRLEN + 8];
	if (t.hex)
		return hex_text(b, order);
	uint64_t v = (b.size() <= 8) ? bytes_value(b, order) : 0;
	(void)bits;
	const char *n = nullptr;
	std::string num;
	if (numeric && b.size() <= 8 && format_numeric(t, v, num))
		return num;
	// -T and -p alone: times in seconds, protocols as numbers
	if (!numeric && t.id == TYPE_TIME && output_flags().numeric_time)
		return std::to_string(v / 1000) + "s";
	if (!numeric && t.id == TYPE_INET_PROTOCOL && output_flags().numeric_proto)
		return std::to_string(v);
	// a range's ends (NUMERIC) print numbers, as range_expr_print has them
	if (!numeric && format_name(t, b, v, num))
		return num;
	switch (t.id) {
	case TYPE_TIME_DAY:
	case TYPE_TIME_HOUR:
	case TYPE_TIME_DATE:
		return time_text(t, v);
	case TYPE_IPADDR:
		if (b.size() == 4 && inet_ntop(AF_INET, b.data(), buf, sizeof buf))
			return buf;
		break;
	case TYPE_IP6ADDR:
		if (b.size() == 16 && inet_ntop(AF_INET6, b.data(), buf, sizeof buf))
			return buf;
		break;
	case TYPE_ETHERADDR: {
		std::string out;
		for (size_t i = 0; i < b.size(); i++) {
			snprintf(buf, sizeof buf, "%s%02x", i ? ":" : "", b[i]);
			out += buf;
		}
		return out;
	}
	case TYPE_IFNAME:
	case TYPE_STRING: {
		std::string s(b.begin(), b.end());
		size_t z = s.find('\0');
		bool wildcard = z == std::string::npos && b.size() < bits / 8;
		if (z != std::string::npos)
			s.resize(z);
		// an exact name that ends in '*' prints it escaped, as written
		if (!wildcard && !s.empty() && s.back() == '*')
			s.insert(s.size() - 1, "\\");
		return "\"" + s + (wildcard ? "*" : "") + "\"";
	}
	case TYPE_IFINDEX: {
		char name[IF_NAMESIZE];
		if (if_indextoname(static_cast<unsigned>(v), name))
			return "\"" + std::string(name) + "\"";
		return std::to_string(v);
	}
	case TYPE_ETHERTYPE:
		if (v == 0x0800) return "ip";
		if (v == 0x0806) return "arp";
		if (v == 0x86dd) return "ip6";
		if (v == 0x8100) return "8021q";
		if (v == 0x88a8) return "8021ad";
		snprintf(buf, sizeof buf, "0x%04llx", static_cast<unsigned long long>(v));
		return buf;
	case TYPE_INET_PROTOCOL: {
		// getprotobynumber() reads /etc/protocols on every call (over 9p
		// in the test kernel, slowly): each number is looked up once.
		static std::string names[256];
		static bool known[256];
		if (v > 255)
			return std::to_string(v);
		if (!known[v]) {
			const protoent *p = getprotobynumber(static_cast<int>(v));
			names[v] = p ? p->p_name : std::to_string(v);
			known[v] = true;
		}
		return names[v];
	}
	case TYPE_MARK:
		snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
		return buf;
	case TYPE_BITMASK:	/* nft's bitmask_type: hexadecimal, -n or not */
		snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
		return buf;
	case TYPE_CLASSID:
		// tchandle_type_print, -n or not
		if (v == 0xffffffff)
			return "root";
		if (v == 0)
			return "none";
		snprintf(buf, sizeof buf, "%llx:%llx", static_cast<unsigned long long>(v >> 16),
			 static_cast<unsigned long long>(v & 0xffff));
		return buf;
	case TYPE_CT_STATE: return flag_names(ct_state_syms, v);
	case TYPE_CT_STATUS: return flag_names(ct_status_syms, v);
	case TYPE_TCP_FLAG: return flag_names(tcp_flag_syms, v);
	case TYPE_CT_DIR: n = name_of(ct_dir_syms, v); break;
	case TYPE_ARPOP: n = name_of(arpop_syms, v); break;
	case TYPE_ARPHRD: n = name_of(arphrd_syms, v); break;
	case TYPE_PKTTYPE: n = name_of(pkttype_syms, v); break;
	case TYPE_ICMP_TYPE: n = name_of(icmp_syms, v); break;
	case TYPE_ICMP6_TYPE: n = name_of(icmp6_syms, v); break;
	case TYPE_ICMP_CODE: n = name_of(icmp_code_syms, v); break;
	case TYPE_ICMPV6_CODE: n = name_of(icmpv6_code_syms, v); break;
	case TYPE_ICMPX_CODE: n = name_of(icmpx_code_syms, v); break;
	case TYPE_MH_TYPE: n = name_of(mh_type_syms, v); break;
	case TYPE_DCCP_PKTTYPE: n = name_of(dccp_pkttype_syms, v); break;
	case TYPE_BOOLEAN: n = name_of(bool_syms, v); break;
	case TYPE_DEVGROUP:
		if (v == 0)
			return "\"default\"";
		break;
	case TYPE_REALM:
		if (v == 0)
			return "\"cosmos\"";
		break;
	case TYPE_DSCP: n = name_of(dscp_syms, v); break;
	case TYPE_ECN: n = name_of(ecn_syms, v); break;
	case TYPE_NFPROTO: n = name_of(nfproto_syms, v); break;
	case TYPE_TIME: {
		uint64_t ms = v;
		std::string out;
		const struct { uint64_t ms; const char *u; } units[] = {
			{86400000, "d"}, {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
		for (auto &u : units)
			if (ms >= u.ms) {
				out += std::to_string(ms / u.ms) + u.u;
				ms %= u.ms;
			}
		return out.empty() ? "0s" : out;
	}
	default:
		break;
	}
	if (n)
		return n;
	// an unnamed value in hex, as many digits as the type's bits take
	// (nft's integer print of the basetype): 0x03 for a DSCP, 0x1 for ECN
	if (t.id == TYPE_DSCP || t.id == TYPE_ECN) {
		snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>((t.bits + 3) / 4),
			 static_cast<unsigned long long>(v));
		return buf;
	}
	return std::to_string(v);
}

static bool is_symbol_name(const std::string &t)
{
	if (t.empty() || t.rfind("0x", 0) == 0)
		return false;
	for (char c : t)
		if (c < '0' || c > '9')
			return true;
	return false;
}

static std::string unquoted(const std::string &t)
{
	if (t.size() >= 2 && t.front() == '"' && t.back() == '"')
		return t.substr(1, t.size() - 2);
	return t;
}

Json value_json(const DataType &t, unsigned bits, ByteOrder order, const Bytes &b, bool numeric)
{
	if (t.hex && b.size() > 8) {
		// jansson's integers end at 64 bits: a wider value that
		// needs them is a string
		Bytes be = b;
		if (order == ByteOrder::Host)
			std::reverse(be.begin(), be.end());
		if (std::any_of(be.begin(), be.end() - 8, [](uint8_t x) { return x != 0; }))
			return Json::string(hex_text(b, order));
		return Json::uinteger(bytes_value(Bytes(be.end() - 8, be.end()), ByteOrder::Big));
	}
	uint64_t v = (b.size() <= 8) ? bytes_value(b, order) : 0;
	switch (t.id) {
	case TYPE_IPADDR:
	case TYPE_IP6ADDR:
	case TYPE_ETHERADDR:
	case TYPE_LLADDR:
	case TYPE_IFNAME:
	case TYPE_STRING:
	case TYPE_IFINDEX:
		return Json::string(unquoted(format_value(t, bits, order, b)));
	case TYPE_TIME:
		return Json::uinteger(v / 1000);
	case TYPE_TIME_HOUR:
	case TYPE_TIME_DATE:
		return Json::string(unquoted(format_value(t, bits, order, b)));
	case TYPE_TIME_DAY: {
		const std::string s = unquoted(format_value(t, bits, order, b));
		return numeric || !is_symbol_name(s) ? Json::uinteger(v) : Json::string(s);
	}
	case TYPE_BOOLEAN:
		return Json::boolean(v != 0);
	case TYPE_INET_SERVICE:
	case TYPE_UID:
	case TYPE_GID: {
		// -S, -u: a name when there is one
		std::string s;
		if (!numeric && format_name(t, b, v, s))
			return Json::string(unquoted(s));
		return Json::uinteger(v);
	}
	case TYPE_INET_PROTOCOL: {
		std::string s = format_value(t, bits, order, b);
		if (!numeric && !output_flags().numeric_proto && is_symbol_name(s))
			return Json::string(s);
		return Json::uinteger(v);
	}
	case TYPE_CLASSID:
		// json.c prints it as text, -n or not
		return Json::string(format_value(t, bits, order, b));
	case TYPE_REALM:
		// a string too, its name or its number ("cosmos", "1"; -n "0")
		return Json::string(numeric ? std::to_string(v) : unquoted(format_value(t, bits, order, b)));
	case TYPE_ETHERTYPE:
	case TYPE_ARPOP:
	case TYPE_ARPHRD:
	case TYPE_CT_STATE:
	case TYPE_CT_STATUS:
	case TYPE_TCP_FLAG:
	case TYPE_CT_DIR:
	case TYPE_PKTTYPE:
	case TYPE_ICMP_TYPE:
	case TYPE_ICMP6_TYPE:
	case TYPE_ICMP_CODE:
	case TYPE_ICMPV6_CODE:
	case TYPE_ICMPX_CODE:
	case TYPE_DEVGROUP:
	case TYPE_DSCP:
	case TYPE_ECN:
	case TYPE_MH_TYPE:
	case TYPE_DCCP_PKTTYPE:
	case TYPE_NFPROTO: {
		std::string s = unquoted(format_value(t, bits, order, b));
		if (!is_symbol_name(s) || s.find(',') != std::string::npos)
			return Json::uinteger(v);
		if (!numeric)
			return Json::string(s);
		// json.c symbolic_constant_json exports the value, in its own
		// byte order, into the first (bits+7)/8 bytes of a host integer
		size_t nb = std::min(b.size(), static_cast<size_t>((bits + 7) / 8));
		Bytes low = order == ByteOrder::Big ? Bytes(b.end() - static_cast<long>(nb), b.end())
						    : Bytes(b.begin(), b.begin() + static_cast<long>(nb));
		return Json::uinteger(bytes_value(low, ByteOrder::Host));
	}
	default:
		return Json::uinteger(v);
	}
}

Json flags_json(const DataType &t, ByteOrder order, const Bytes &b, bool numeric)
{
	uint64_t v = bytes_value(b, order);
	unsigned n = 0;
	for (uint64_t x = v; x; x &= x - 1)
		n++;
	if (n <= 1)
		return value_json(t, t.bits, order, b, numeric);
	Json out = Json::array();
	std::string names = format_value(t, t.bits, order, b);
	if (numeric) {
		// the flags' values, in the order the names print
		for (unsigned bit = 0; bit < 64; bit++)
			if (v & (1ull << bit))
				out.push(Json::uinteger(1ull << bit));
		return out;
	}
	size_t at = 0;
	while (at <= names.size()) {
		size_t comma = names.find(',', at);
		std::string one = names.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
		if (is_symbol_name(one))
			out.push(Json::string(one));
		else
			out.push(Json::uinteger(std::stoull(one, nullptr, 0)));
		if (comma == std::string::npos)
			break;
		at = comma + 1;
	}
	return out;
}

unsigned elements_per_line(const DataType &t)
{
	switch (t.id) {
	case TYPE_NFPROTO: case TYPE_INTEGER: case TYPE_ARPOP: case TYPE_INET_PROTOCOL: case TYPE_INET_SERVICE:
	case TYPE_TCP_FLAG: case TYPE_MARK: case TYPE_IFINDEX: case TYPE_CLASSID: case TYPE_UID:
	case TYPE_GID: case TYPE_CT_DIR:
		return 5;
	case TYPE_IPADDR: case TYPE_CT_STATE: case TYPE_CT_STATUS: case TYPE_PKTTYPE:
		return 2;
	default:
		return 1;
	}
}

Bytes encode_value(const DataType &t, unsigned bits, ByteOrder order, const Expr &e)
{
	Bytes out;
	if (try_encode(t, bits, order, e.text, e.quoted, out))
		return out;
	if (t.id == TYPE_TIME_DAY || t.id == TYPE_TIME_HOUR || t.id == TYPE_TIME_DATE) {
		uint64_t v;
		throw LangError(e.loc, time_value(t, e.text, v));
	}
	if (t.id == TYPE_IFINDEX)
		throw LangError(e.loc, "Interface does not exist");
	if (t.id == TYPE_CLASSID) {
		// nft's scanner takes a classid of one to four hex digits a
		// side and stops at the colon after it, or at the first one
		const std::string &w = e.text;
		size_t at = w.find(':');
		const size_t two = w.find(':', at + 1);
		if (two != std::string::npos && two - at - 1 >= 1 && two - at - 1 <= 4 && at >= 1 && at <= 4)
			at = two;
		Location l = e.loc;
		l.first_col = l.last_col = e.loc.first_col + static_cast<unsigned>(at);
		throw LangError(l, kPriorityColonError);
	}
	if (t.id == TYPE_IPADDR || t.id == TYPE_IP6ADDR) {
		// a word of digits and dots nft's scanner does not take whole
		// ("10.1") is its syntax error: not resolved here
		const bool scanned = e.quoted || e.text.find('.') == std::string::npos ||
				     is_ip4addr_token(e.text) ||
				     e.text.find_first_not_of("0123456789.") != std::string::npos;
		if (!scanned)
			throw LangError(e.loc, std::string("Could not parse ") + t.name + " expression: " +
					"'" + e.text + "' is not a valid " + t.name);
		Bytes addr;
		const std::string complaint = resolve_address(t, nft_identifier(e.text, e.quoted), addr);
		if (!complaint.empty())
			throw LangError(e.loc, complaint);
		return addr;
	}
	if (t.id == TYPE_ETHERADDR || t.id == TYPE_LLADDR) {
		Bytes addr;
		const std::string complaint = parse_lladdr(nft_identifier(e.text, e.quoted), bits, addr);
		throw LangError(e.loc, complaint.empty() ? "Invalid LL address" : complaint);
	}
	uint64_t v;
	const std::string id = nft_identifier(e.text, e.quoted);
	if (t.id == TYPE_INET_SERVICE)
		throw LangError(e.loc, service_value(id, v));
	if (t.id == TYPE_INET_PROTOCOL)
		throw LangError(e.loc, protocol_value(id, v));
	if (t.id == TYPE_UID || t.id == TYPE_GID)
		throw LangError(e.loc, id_complaint(t, id, v));
	std::string complaint;
	if (t.id != TYPE_IFNAME && t.id != TYPE_STRING && integer_value(id, bits, v, complaint) &&
	    !complaint.empty())
		throw LangError(e.loc, complaint);
	if (t.id == TYPE_IFNAME || t.id == TYPE_STRING)
		throw LangError(e.loc, string_complaint(e.text, bits));

	// integer_type_parse, symbolic_constant_parse
	throw LangError(e.loc, std::string("Could not parse ") + t.desc);
}

} // namespace xnft
