// ast.h - the parsed form of an nft script: commands, objects, rules,
// statements and expressions, before any type checking.
//
// Ownership: plain value trees (std::vector / std::unique_ptr); a Command owns
// everything below it. Locations point into SourceFiles kept by the Parser.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"

namespace xnft {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct Stmt;

enum class ExprKind {
	Value,    // a word or string constant, typed later by its context
	Payload,  // proto.field: ether saddr, tcp dport ...
	Meta,     // meta KEY
	Ct,       // ct [DIR] KEY
	Concat,   // a . b . c
	Range,    // lo - hi
	Prefix,   // addr / len
	List,     // a, b, c (flag values)
	SetLit,   // { elem, elem } or { k : v, ... }
	SetRef,   // @name
	Binop,    // a & b, a | b, a ^ b, a << b, a >> b (text the operator): a
		  // match's or a set statement's expression is a left-deep chain
		  // over one field whose right operands are values
	Map,      // lhs map { ... } | lhs map @m
	Verdict,  // accept, drop, jump x ... (as map data)
	Numgen,   // numgen inc|random mod N [offset N]: text is the mode
	Hash,     // jhash EXPR mod N [seed N] [offset N] | symhash mod N [offset N]: text
		  // "jhash" (items[0] the hashed expression) or "symhash"
	Exthdr,   // tcp option NAME [FIELD] | tcp option @KIND,OFF,LEN | ip option NAME [FIELD] |
		  // exthdr NAME | NAME FIELD (IPv6 headers): proto the header's or option's
		  // name ("" for a kind nft has no name for), text the field ("" for exists)
	RawPayload, // @ll|nh|th|ih,OFFSET,LENGTH: nft's raw payload, LENGTH bits OFFSET
		    // bits into a header (raw_base, raw_offset, raw_bits)
	Foreign,    // an expression of nf_tables xbridge has no counterpart for
		    // (foreign.h): text its kind (rt, fib, osf, socket, ipsec), proto
		    // its key or result (mtu, type, name, transparent, reqid ...),
		    // chain the protocol given with it (`rt ip nexthop`: "ip")
};

struct Expr {
	ExprKind kind;
	Location loc;
	std::string text;      // Value: the word; Payload/Meta/Ct: key; SetRef: name; Verdict: kind; Binop: op
	bool quoted = false;   // Value came from a "string"
	std::string proto;     // Payload: protocol; Ct: "original"/"reply" or ""; Ct l3 proto ("ip")
	std::string chain;     // Verdict jump/goto target
	std::vector<ExprPtr> items;      // Concat/List/SetLit keys/Binop operands/Range/Prefix/Map(lhs, set)
	std::vector<ExprPtr> data;       // SetLit map data (parallel to items)
	uint32_t modulus = 0, offset = 0;  // Numgen, Hash
	uint32_t seed = 0;                 // Hash (jhash)
	bool seed_given = false;
	// Exthdr: NFT_EXTHDR_OP_*, the header's protocol number or the
	// option's kind or type, the field's offset and length in bits, and
	// whether only its presence is loaded (NFT_EXTHDR_F_PRESENT)
	uint32_t exthdr_op = 0;
	uint8_t exthdr_type = 0;
	unsigned exthdr_offset = 0, exthdr_bits = 0;
	bool exthdr_present = false;
	// RawPayload: NFT_PAYLOAD_*_HEADER, the offset and length in bits
	// (nft keeps both in 32 bits: larger numbers wrap, as they do there)
	uint32_t raw_base = 0, raw_offset = 0, raw_bits = 0;
	// A set element's options (a key in a SetLit): `timeout T`, `expires
	// T` in milliseconds, 0 when not given (as nft sends neither then);
	// elem_loc spans the key and its options, where nft points a map
	// element's kernel errors.
	uint64_t elem_timeout_ms = 0, elem_expires_ms = 0;
	Location elem_loc;
	// `comment "..."` among its options: what nft sends in the element's
	// NFTA_SET_ELEM_USERDATA (NFTNL_UDATA_SET_ELEM_COMMENT); "" is one
	std::optional<std::string> elem_comment;
	// A set element's stateful statements (`10.0.0.1 counter limit rate
	// 1/second`): anonymous counters, limits and `ct count`s, in order.
	std::vector<Stmt> elem_stmts;
};

ExprPtr make_expr(ExprKind k, const Location &loc);

// Neg: `!` (`not`), nft's OP_NEG: none of the flags set.
enum class Op { Implicit, Eq, Neq, Lt, Gt, Lte, Gte, Neg };

enum class StmtKind {
	Match,      // lhs op rhs
	Counter,
	Limit,
	Verdict,    // accept/drop/continue/return/jump/goto
	VerdictMap, // lhs vmap { } | @m
	CtSet,      // ct KEY set EXPR
	MetaSet,    // meta KEY set EXPR
	FlowOffload,
	Log,
	Notrack,
	Quota,      // quota [over|until] N UNIT [used N UNIT] | quota name NAME
		    // (Counter, Quota, Limit: `name EXPR map @m|{ ... }`, an object
		    // map, leaves key empty and puts the Map expression in rhs)
	Reject,     // reject [with icmp|icmpv6|icmpx [type] CODE | with tcp reset]
	ExthdrSet,  // tcp option NAME FIELD set VALUE (lhs the option's field)
	ExthdrReset, // reset tcp option NAME|KIND: nft's optstrip statement, the
		    // option overwritten with NOPs (lhs the option, no field)
	PayloadSet, // FIELD set EXPR: nft's payload statement, which writes the
		    // packet (lhs a Payload or RawPayload, rhs the value)
	SetElem,    // add|update|delete @SET { KEY [timeout T] [STATEFUL...] [: DATA] }:
		    // nft's set and map statements (the kernel's dynset); lhs the
		    // key, rhs the data (null for a set statement), key the set's
		    // name (where it stands in name_loc)
	Meter,      // meter NAME [size N] { KEY [timeout T] STMT }: nft's meter, a
		    // set statement on an anonymous set of its own named NAME
		    // (key; name_loc), the key in lhs, STMT in stateful[0]
	Connlimit,  // ct count [over] N: nft's connlimit statement (stateful, as
		    // counter, limit and quota are: also a set statement's)
	Foreign,    // a statement of nf_tables xbridge has no counterpart for
		    // (foreign.h): key its kind (synproxy, queue, dup, fwd); queue's
		    // number or expression in rhs, with its flags in queue_flags
};

// A set statement's operation: NFT_DYNSET_OP_ADD, _UPDATE, _DELETE.
constexpr uint32_t kDynsetAdd = 0, kDynsetUpdate = 1, kDynsetDelete = 2;

// NFT_CONNLIMIT_F_INV: `ct count over N`.
constexpr uint32_t kConnlimitInvert = 1;

// The log statement's words for nf_log's values: levels 0 (emerg) to 8
// (audit), as nft names them, and the NF_LOG_* flags.
inline constexpr const char *kLogLevelNames[] = {"emerg", "alert", "crit", "err", "warn",
						 "notice", "info", "debug", "audit"};
constexpr uint32_t kLogLevelWarn = 4;	// nft's default: not sent, not listed
constexpr uint32_t kLogTcpSeq = 0x01, kLogTcpOpt = 0x02, kLogIpOpt = 0x04, kLogUid = 0x08,
		   kLogMacDecode = 0x20, kLogAll = 0x2f;

struct Stmt {
	StmtKind kind;
	Location loc;
	Op op = Op::Implicit;
	ExprPtr lhs, rhs;
	std::string key;          // CtSet/MetaSet key; Verdict kind; FlowOffload flowtable;
	                          // Counter, Quota, Limit: a named object ("" anonymous)
	Location name_loc;        // Counter, Quota, Limit: where the object's name stands
	std::string chain;        // Verdict jump/goto target
	// Limit (`limit name NAME`: the object's name in key)
	uint64_t rate = 0, burst = 0;
	uint64_t unit = 1;        // seconds
	bool limit_bytes = false, limit_over = false, burst_given = false;
	// Log (-1: not given)
	std::string prefix;
	bool has_prefix = false;
	int log_level = -1;       // 0 emerg .. 7 debug, 8 audit
	uint32_t log_flags = 0;   // NF_LOG_* (0: none given)
	int64_t log_group = -1, log_snaplen = -1, log_qthreshold = -1;
	// Counter: `counter packets N bytes N`, the values it starts from
	// (what `nft list ruleset` printed, so a saved ruleset restores them)
	uint64_t counter_packets = 0, counter_bytes = 0;
	// Quota
	uint64_t quota_bytes = 0, quota_used = 0;
	uint32_t quota_flags = 0;
	// Connlimit: NFTA_CONNLIMIT_COUNT and _FLAGS (kConnlimitInvert for `over`)
	uint32_t connlimit_count = 0, connlimit_flags = 0;
	// Reject: "" (nft picks), "tcp", "icmp", "icmpv6" or "icmpx"; the
	// code's word in key, where it stands in name_loc
	std::string reject_with;
	// SetElem: kDynset*, the element's `timeout T` (ms, 0: none), its
	// stateful statements (anonymous counters, limits, quotas) in order
	uint32_t set_op = kDynsetAdd;
	uint64_t set_timeout_ms = 0;
	std::vector<Stmt> stateful;
	// Meter: `size N` (0: none given), where a comment on the key stands
	// (nft refuses it when it evaluates the statement), where the inner
	// statement stands (nft's "meter statement must be stateful")
	uint32_t meter_size = 0;
	Location key_comment_loc, inner_loc;
	// Foreign queue: NFT_QUEUE_FLAG_BYPASS, _CPU_FANOUT
	uint32_t queue_flags = 0;
};

struct Rule {
	Location loc;
	std::vector<Stmt> stmts;
	std::optional<std::string> comment;
	uint64_t handle = 0;  // insert/add: the position; replace: the rule replaced
	uint64_t index = 0;
	bool has_index = false;
	// Where nft points a missing reference's ENOENT: `position N` and
	// `index N` whole, the number alone after `handle`.
	Location ref_loc;
};

struct ChainDecl {
	Location loc;
	std::string name;
	bool base = false;
	std::string type, hook;
	Location hook_loc, prio_loc, type_loc;
	int32_t prio = 0;
	std::optional<std::string> policy;
	std::vector<std::string> devices;
	std::optional<std::string> comment;
	std::vector<Rule> rules;
};

struct SetDecl {
	Location loc;                        // the name, where nft points EEXIST
	Location cmd_loc;                    // where the kernel's other complaints point: the
	                                     // name in a table block, the whole `add set` command
	std::string name;
	bool is_map = false;
	std::vector<std::string> key_types;  // concatenation of type names
	std::string data_type;               // maps: a type name ("verdict" with typeof too)
	uint32_t obj_type = 0;               // object maps (`type K : counter|quota|limit`):
	                                     // NFT_OBJECT_*, the map is NFT_SET_OBJECT then
	ExprPtr key_typeof;                  // `typeof EXPR [. EXPR ...]`: the key's expressions
	ExprPtr data_typeof;                 // maps: `typeof K : EXPR` (null for `: verdict`)
	Location type_loc;
	uint32_t flags = 0;                  // NFT_SET_* from the flags list
	bool flags_given = false;
	uint32_t size = 0;
	uint64_t timeout_ms = 0;             // `timeout T` (0: none, as nft sends none)
	uint64_t gc_interval_ms = 0;         // `gc-interval T` (0: none)
	std::optional<std::string> comment;
	std::optional<std::string> policy;
	ExprPtr elements;                    // SetLit or null
	// `counter`, `limit rate ...`, `quota ...`, `ct count N` in the
	// block: the statements every element gets (nft's set->stmt_list)
	std::vector<Stmt> stmts;
};

struct FlowtableDecl {
	Location loc;
	std::string name;
	std::string hook;
	int32_t prio = 0;
	std::vector<std::string> devices;
	bool counter = false;
};

// A named stateful object: `counter NAME { packets N bytes N; comment
// "..." }`, `quota NAME { [over|until] N UNIT [used N UNIT]; comment
// "..." }` or `limit NAME { rate [over] N[ UNIT]/TIME [burst N UNIT];
// comment "..." }`.
constexpr uint32_t kObjectCounter = 1, kObjectQuota = 2, kObjectLimit = 4;  // NFT_OBJECT_*
constexpr uint32_t kQuotaInvert = 1;                      // NFT_QUOTA_F_INV (`over`)
struct ObjectDecl {
	Location loc;             // the name
	Location cmd_loc;         // where the kernel's complaints point: the name in a
	                          // table block, the whole `add limit` command
	uint32_t type = kObjectCounter;
	std::string name;
	uint64_t packets = 0, bytes = 0;     // counter
	uint64_t quota_bytes = 0, quota_used = 0;
	uint32_t quota_flags = 0;            // kQuotaInvert
	// limit: nft's limit_config (no `rate` at all: everything 0)
	uint64_t limit_rate = 0, limit_unit = 0, limit_burst = 0;
	bool limit_bytes = false, limit_over = false;
	std::optional<std::string> comment;
};

struct TableDecl {
	Location loc;
	std::string family, name;
	uint32_t flags = 0;
	std::optional<std::string> comment;
	std::vector<ChainDecl> chains;
	std::vector<SetDecl> sets;
	std::vector<FlowtableDecl> flowtables;
	std::vector<ObjectDecl> objects;   // counters, quotas and limits, as declared
	bool has_body = false;
};

// Get: `get element FAMILY TABLE SET { ... }`, answered as a listing.
enum class Verb { Add, Create, Insert, Replace, Delete, Flush, List, Reset, Rename, Get };
enum class Obj { Ruleset, Table, Chain, Rule, Set, Map, Element, Flowtable, Tables, Chains, Sets, Maps, Flowtables,
		 Counter, Counters, Quota, Quotas, Limit, Limits };

struct Command {
	Location loc;
	Verb verb = Verb::Add;
	Obj obj = Obj::Table;
	std::string family = "ip";
	std::string table, chain, set, flowtable, object;  // object: a counter's, quota's or limit's name
	Location table_loc, chain_loc;
	Location name_loc;                    // set, map, flowtable, counter, quota or limit name
	uint64_t handle = 0;
	bool has_handle = false;
	// Rule commands: the handle's number (where nft points the kernel's
	// complaint about it), and the command up to its last token (where
	// it points a complaint about the command).
	Location handle_loc, whole_loc;
	std::string new_name;                 // rename chain: the chain's new name
	Location new_name_loc;
	TableDecl table_decl;                 // Table
	std::optional<ChainDecl> chain_decl;  // Chain
	std::optional<Rule> rule;             // Rule
	std::optional<SetDecl> set_decl;      // Set/Map
	std::optional<FlowtableDecl> ft_decl; // Flowtable
	std::optional<ObjectDecl> object_decl;   // Counter, Quota, Limit (add/create)
	ExprPtr elements;                     // Element
};

} // namespace xnft
