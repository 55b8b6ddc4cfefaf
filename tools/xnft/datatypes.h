// datatypes.h - nft's data types for the values xnft compiles: how a word
// becomes bytes (byte order, length, symbolic names), as nftables'
// datatype.c does for the types a bridge firewall uses.
//
// Ownership: static tables; no state. Thread-safe (read-only).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ast.h"
#include "json.h"

namespace xnft {

enum class ByteOrder { Big, Host };

// Type ids are nftables' enum datatypes (datatype.h): they go to the kernel
// as set key/data types.
enum TypeId : uint32_t {
	TYPE_INVALID = 0, TYPE_VERDICT = 1, TYPE_NFPROTO = 2, TYPE_BITMASK = 3,
	TYPE_INTEGER = 4, TYPE_STRING = 5, TYPE_LLADDR = 6, TYPE_IPADDR = 7,
	TYPE_IP6ADDR = 8, TYPE_ETHERADDR = 9, TYPE_ETHERTYPE = 10, TYPE_ARPOP = 11,
	TYPE_INET_PROTOCOL = 12, TYPE_INET_SERVICE = 13, TYPE_ICMP_TYPE = 14,
	TYPE_TCP_FLAG = 15, TYPE_DCCP_PKTTYPE = 16, TYPE_MH_TYPE = 17, TYPE_TIME = 18, TYPE_MARK = 19, TYPE_IFINDEX = 20, TYPE_ARPHRD = 21,
	TYPE_REALM = 22, TYPE_CLASSID = 23, TYPE_UID = 24, TYPE_GID = 25, TYPE_CT_STATE = 26, TYPE_CT_DIR = 27,
	TYPE_CT_STATUS = 28, TYPE_ICMP6_TYPE = 29, TYPE_PKTTYPE = 31, TYPE_ICMP_CODE = 32, TYPE_ICMPV6_CODE = 33,
	TYPE_ICMPX_CODE = 34,
	TYPE_DEVGROUP = 35, TYPE_DSCP = 36, TYPE_ECN = 37, TYPE_BOOLEAN = 39,
	TYPE_IFNAME = 41, TYPE_TIME_DATE = 43, TYPE_TIME_HOUR = 44, TYPE_TIME_DAY = 45,
};

struct DataType {
	TypeId id;
	const char *name;     // as written in `type NAME`
	const char *desc;     // as nft's messages name it ("IPv4 address")
	unsigned bits;        // natural size
	ByteOrder order;
	bool bitmask;         // flag type: implicit match is (x & v) != 0
	bool hex = false;     // nft's xinteger: an integer printed in hexadecimal
};

const DataType &datatype(TypeId id);
// nft's xinteger, a raw payload's type: an integer (TYPE_INTEGER to the
// kernel) that `list` prints in hexadecimal (0x1f), and -j as a number
// (a string "0x..." past 64 bits).
const DataType &xinteger_type();
// nft's byte order of a type, as set USERDATA records it (nftables'
// enum byteorder: 0 none, 1 host, 2 big endian): one-byte types whose
// order nft leaves unset (inet_proto, nf_proto, ct_dir, boolean) have none.
uint32_t nft_byteorder(const DataType &t);

// Looks a `type` name up; null if unknown.
const DataType *datatype_by_name(const std::string &name);

using Bytes = std::vector<uint8_t>;

// Encodes the word E (a Value expr) as TYPE in BITS bits with ORDER; the
// result has (bits+7)/8 bytes. Throws LangError naming the type on failure.
Bytes encode_value(const DataType &type, unsigned bits, ByteOrder order, const Expr &e);
// As encode_value, returning false instead of throwing.
bool try_encode(const DataType &type, unsigned bits, ByteOrder order, const std::string &word,
		bool quoted, Bytes &out);

// nft's output flags that reach the printing of values (its output_ctx),
// set once from the command line: -T (times in seconds), -p (protocols as
// numbers), -S (ports as service names), -N (addresses as host names) and
// -u (user and group ids as names). -n includes -T and -p, and is passed
// to the functions below as NUMERIC.
struct OutputFlags {
	bool numeric_time = false, numeric_proto = false;
	bool service = false, reversedns = false, guid = false;
};
OutputFlags &output_flags();

// Formats BYTES (a value of TYPE, BITS wide, in ORDER) as nft's `list`
// prints it: names for symbolic types, comma lists for flag types, quoted
// interface names, 0x%08x marks, decimal integers.
// NUMERIC (-n): symbols as numbers, as nft 1.0.6's -n prints them (flags
// and ether types in hex, protocols, ICMP types and the like in decimal).
std::string format_value(const DataType &type, unsigned bits, ByteOrder order, const Bytes &bytes,
			 bool numeric = false);
// An end of a range, as nft prints it (range_expr_print: numerically, a
// flag type's value as one hex number): `icmp type 1-5`, `tcp flags 0x1-0x5`.
std::string format_range_end(const DataType &type, unsigned bits, ByteOrder order, const Bytes &bytes);
// BYTES as nft's `-j` output prints a value of TYPE (json.c datatype_json):
// addresses and interface names as strings, symbolic types by name (a
// number when the value has none), integers, marks and ports as numbers,
// times in seconds. NUMERIC (-n) prints symbols as numbers, as nft 1.0.6
// does: big-endian ones (ether type) read in host byte order.
Json value_json(const DataType &type, unsigned bits, ByteOrder order, const Bytes &bytes, bool numeric);
// The names (or, NUMERIC, the values) of the flags set in BYTES, a value of
// flag TYPE, in nft's order: ["established", "related"].
Json flags_json(const DataType &type, ByteOrder order, const Bytes &bytes, bool numeric);
// The numeric value of BYTES in ORDER.
uint64_t bytes_value(const Bytes &bytes, ByteOrder order);
// How many elements nft prints per line in a named set of TYPE.
unsigned elements_per_line(const DataType &type);

// What encoding a priority ("1:2:3") with a colon too many throws: nft's
// scanner ends the value at it, so it is a syntax error there (the rule
// compiler adds what nft's grammar expects instead).
inline constexpr const char *kPriorityColonError = "syntax error, unexpected colon";

// Interface names are resolved to ifindex when TYPE_IFINDEX values are
// encoded, as nft does (if_nametoindex); an unknown name is an error.
} // namespace xnft
