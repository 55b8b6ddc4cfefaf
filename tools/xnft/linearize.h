// linearize.h - one rule's statements to libnftnl expressions, as nftables'
// evaluate.c + netlink_linearize.c do for the bridge family: protocol
// dependencies from a per-rule protocol context, loads, bitwise masks,
// comparisons, lookups in anonymous or named sets, verdicts, counters,
// limits, ct/meta set, payload writes, flow offload.
//
// Ownership: the Linearizer appends to a rule it does not own and hands
// anonymous sets to the caller's sink before the rule is added. Not
// thread-safe.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ast.h"
#include "compiler.h"

struct nftnl_expr;
struct nftnl_rule;
struct nftnl_set;

namespace xnft {

// nft_limit_init's checks of a limit (a statement's or a new object's),
// as nft reports the kernel's answer: "" when it takes it, "Invalid
// argument" for a rate of 0, "Value too large for defined data type" when
// the bucket overflows. @burst as sent (a packet limit's 0 is 5 there).
std::string limit_kernel_error(uint64_t rate, uint64_t unit, uint64_t burst, bool bytes);

// An anonymous counter, quota, limit or `ct count` statement (a rule's,
// a set's or an element's) as nft 1.0.6 sends it (netlink_gen_stmt_stateful:
// a counter's start values and a limit's burst only when not 0).
nftnl_expr *anonymous_stateful_expr(const Stmt &s);
// nft's name of its kind, as its errors and libnftnl name it: "counter",
// "quota", "limit", "connlimit".
const char *stateful_name(const Stmt &s);
// What the kernel's init of S refuses, as nft reports it ("" when it takes
// it): a limit's rate and burst (limit_kernel_error).
std::string stateful_kernel_error(const Stmt &s);

// A set element after typing: key bytes, flags, and the data it maps to.
struct Element {
	Bytes key;
	Bytes key_end;           // concatenated intervals: the range's last key (KEY_END)
	uint32_t flags = 0;      // NFT_SET_ELEM_INTERVAL_END
	bool has_data = false;
	Bytes data;
	std::string verdict;     // verdict maps: accept, drop, jump ...
	std::string chain;
	bool interval_open = false;  // a range up to the key's maximum (no end element)
	std::string objref;      // object maps: the object's name (NFTA_SET_ELEM_OBJREF)
	// `timeout T`, `expires T` (ms, 0: not sent); where the kernel's
	// complaints about them point: the key, a map element's key and options
	uint64_t timeout_ms = 0, expiration_ms = 0;
	Location loc;
	// its own stateful statements (NFTA_SET_ELEM_EXPR[ESSIONS]); an
	// interval's end has none
	std::vector<const Stmt *> stmts;
	// its comment, in NFTA_SET_ELEM_USERDATA; an interval's end has none
	std::optional<std::string> comment;
};

// The size nft declares for a constant interval set: every segment counts
// its start and its end, even when the end is dropped (adjacent ranges, a
// range reaching the maximum), plus the leading zero end. A concatenated
// interval element (KEY and KEY_END in one) counts once.
uint32_t interval_desc_size(const std::vector<Element> &elems);

// nf_msecs_to_jiffies64's limit: a timeout this long or longer is ERANGE.
constexpr uint64_t kMaxTimeoutMs = UINT64_MAX / 1000000u;

// nft_add_set_elem's checks of new elements in SI, element by element:
// timeouts and expirations (nft sends neither when 0): both need a set
// with timeouts (EINVAL), an expiration needs a timeout, the element's or
// the set's (EOPNOTSUPP), no longer than it (ERANGE, as Linux checks since
// 6.11); then its statements (nft_set_elem_expr_alloc): at most two
// (E2BIG), no ct count in a set with timeouts (EOPNOTSUPP), a limit the
// kernel takes. Throws the kernel's error at the element.
void check_new_elements(const SetInfo &si, const std::vector<Element> &elems);

// Types the elements of LIT (a SetLit) against SI's key and data; interval
// sets get nft's segment form. Sets SI.flags |= NFT_SET_INTERVAL when an
// element is a range or prefix and ALLOW_INTERVAL_FLAG. Concatenated
// interval sets (nft_set_pipapo) get one element per entry instead, in the
// order written, with KEY the fields' starts and KEY_END their ends (equal
// for a single value), no flags: nft 1.0.6 neither sorts nor merges them.
// SI.flags gains NFT_SET_CONCAT then.
// An object map's elements name objects of its type in TABLE (the
// kernel's ENOENT at the key otherwise); DELETING ones need no name and
// are sent with the name they are given, unchecked.
std::vector<Element> type_elements(SetInfo &si, const Expr &lit, bool allow_interval_flag,
				   const TableInfo &table, bool deleting = false);
// Attaches ELEMS to the libnftnl set S.
void add_elements(nftnl_set *s, const std::vector<Element> &elems);

// Whether E, a value of P, is a range or a prefix (`1-5`, `10.0.0.0/8`)
// rather than one value.
bool is_interval_value(const KeyPart &p, const Expr &e);

KeyPart keypart_of_type(const DataType &t, const Location &loc);
// What a header field, meta or ct expression loads into a register: its
// type, bits, byte order, bytes and (bit fields) left shift, as
// Linearizer::load types it. Throws LangError for anything else.
KeyPart keypart_of_expr(const Expr &e);

// NFTA_SET_DESC_CONCAT of a concatenated interval set: each field's length
// in bytes (before its padding to 4), on S.
void set_concat_desc(nftnl_set *s, const SetInfo &si);

class Linearizer {
public:
	using SetSink = std::function<void(nftnl_set *set, nftnl_set *elems)>;
	Linearizer(nftnl_rule *r, TableInfo &t, const std::string &table, uint32_t family,
		   uint32_t &set_id, SetSink sink)
		: rule_(r), table_(t), table_name_(table), family_(family), set_id_(set_id),
		  sink_(std::move(sink)) {}
	void statement(const Stmt &s);
	// Every table the run knows, for the suggestion in an unknown set's
	// error (set_not_found); none when null.
	const std::map<std::string, TableInfo> *all_tables = nullptr;
	// Where nft points the kernel's complaints about the rule as a whole:
	// a rule command's whole, a block's rule.
	Location rule_loc;
	// What the kernel would refuse of the rule's foreign expressions and
	// statements (foreign.h), once all its statements are through.
	const std::optional<LangError> &refusal() const { return refusal_; }
	// whether the kernel finds it validating the rule, not at its init
	bool refused_at_validation() const { return refusal_ && !refusal_at_expression_; }

private:
	// The error for a set NAME the table does not hold.
	std::string unknown_set(const std::string &name) const;
	struct Load;
	Load load(const Expr &e, unsigned reg);
	void load_generated(const Expr &e, unsigned reg);
	void dependency(const Expr &key);
	void match(const Stmt &s);
	void boolean_against_field(const Expr &lhs, const Expr &rhs);
	bool ct_address_without_version(const Expr &e) const;
	[[noreturn]] void ct_address_match(const Expr &lhs, const Expr &rhs);
	void match_masked(const Expr &lhs, Op op, const Expr &rhs);
	// @pre: the value already encoded (a transferred one), not RHS's
	void match_value(Op op, const Expr &rhs, const Load &l, const Bytes *pre = nullptr);
	struct Chain;
	// A field's operators (`meta mark | 1 ^ 2`, `meta mark << 1`): the
	// field loaded into register 1, then its first COUNT operators as
	// nft's netlink_gen_binop emits them; the part the register holds
	// after each operator in @parts (parts[0] the field's).
	// STMT_BITS: a set statement's target's bits (nft's stmt_len).
	Chain chain_of(const Expr &e, unsigned stmt_bits);
	void emit_chain(const Chain &c, size_t count);
	void match_chain(const Expr &lhs, Op op, const Expr &rhs);
	void match_neg(const Expr &lhs, const Expr &rhs);
	// nft's binop_transfer: a match's last ^ or << moved to its value(s);
	// the transform of an encoded value, or empty when nothing moves.
	std::function<void(Bytes &)> transfer(Chain &c, Op op, const Expr &rhs, const Expr &lhs);
	void merge_payloads();
	bool merge_last_payloads();
	void merge_first_payloads();
	bool merge_payloads_at(size_t at);
	void exthdr_dependency(const Expr &e);
	void icmp_dependency(const Expr &e);
	void exthdr_set(const Stmt &s);
	void payload_set(const Stmt &s);
	void payload_set_value(const Stmt &s, const KeyPart &tp);
	// A lookup of LHS in SET (a map's with DATA or VERDICT); with
	// OBJTYPE (NFT_OBJECT_*) the objref of an object map instead.
	void lookup(const Expr &lhs, const Expr &set, unsigned dreg, bool invert,
		    const KeyPart *data, bool verdict, uint32_t objtype = 0);
	void objref_map(const Stmt &s);
	std::string anonymous_set(SetInfo &si, const Expr &lit);
	void learn_context(const Load &l, Op op, const Bytes &value);
	void emit_cmp(unsigned reg, uint32_t op, const Bytes &data);
	void emit_bitwise(unsigned reg, const Bytes &mask, const Bytes &x);
	void emit_rshift(unsigned reg, unsigned bytes, unsigned shift);
	void emit_shift(unsigned reg, unsigned bytes, uint32_t op, unsigned shift);
	void emit_ntoh(unsigned reg, unsigned bytes);
	void emit_meta_load(uint32_t key, unsigned reg);
	void emit_payload_load(uint32_t base, unsigned off, unsigned len, unsigned reg);
	void emit_immediate_data(unsigned reg, const Bytes &d);
	void emit_verdict(const std::string &v, const std::string &chain, const Location &loc);
	// foreign.cc
	void foreign_evaluation(const Expr &e);
	void foreign_refused(const std::string &kind, const Location &expr_loc);
	void foreign_match(const Stmt &s);
	void foreign_value(const Expr &v);
	void foreign_stmt(const Stmt &s);
	void set_stmt(const Stmt &s);
	void ct_secmark_value(const Stmt &s);
	void dynset(const Stmt &s);
	void emit_dynset(const Stmt &s, const SetInfo &si, const std::vector<const Expr *> &parts,
			 uint32_t op);
	void meter(const Stmt &s);
	nftnl_expr *stateful_expr(const Stmt &s);
	void reject(const Stmt &s);
	void prepend(const std::function<void()> &emit);
	void emit_dep_eq_payload(uint32_t base, unsigned off, unsigned len, const Bytes &v);
	void emit_dep_eq_meta(uint32_t key, const Bytes &v);
	void emit_hton(unsigned reg, const KeyPart &p);
	size_t expr_count() const;
	void hton_host_parts(const std::vector<KeyPart> &parts, const std::vector<size_t> &load_end);

	nftnl_rule *rule_;
	TableInfo &table_;
	std::string table_name_;
	uint32_t family_;
	uint32_t &set_id_;
	SetSink sink_;
	// protocol context
	std::string link_ = "ether", net_, l4_;
	// the payload expressions that told net_ and l4_ (nft's protocol
	// context locations, marked '~' in errors about them)
	Location net_loc_, l4_loc_;
	int icmp_type_ = -1;     // the ICMP/ICMPv6 type matched so far (-1: none)
	bool merge_ok_ = false;  // the previous statement was a match
	bool terminal_ = false;  // a verdict or reject came before: nothing may follow
	Location terminal_loc_;  // where that verdict or reject stands
	Location stmt_loc_;      // the statement being linearized: where the kernel's
				 // complaints about its expressions point
	// an anonymous set's keys after typing, when a match's operator moved
	// to them (binop_transfer); empty otherwise
	std::function<void(Bytes &)> key_transfer_;
	std::optional<LangError> refusal_;
	bool refusal_at_expression_ = false;
};

} // namespace xnft
