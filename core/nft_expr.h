/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_expr.h - a rule's expressions in the form the datapath runs.
 *
 * A rule arrives as NFTA_RULE_EXPRESSIONS (the list libnftnl builds and nf_tables
 * parses). parse_rule_exprs() validates it as nf_tables' init functions do
 * (register ranges, lengths, keys, operators) and turns each expression into
 * one fixed-size Insn: an opcode, its registers and its operands inline. The
 * evaluator (nft_eval.h) runs an Insn array with one switch, without virtual
 * calls or allocation.
 *
 * References to other objects (sets, chains, flowtables) are resolved at
 * parse time, through a Resolver the ruleset supplies, to control-plane
 * objects; when a generation is built, each Insn's ref is rewritten to the
 * generation's own object (nft_ruleset.cc).
 *
 * Ownership: a ParsedRule owns its Insn array and its stateful objects
 * (counters, limits), which outlive every generation that runs them (the
 * ruleset frees a rule after a grace period). Control context only, except
 * the state objects' datapath updates (per-CPU counters, a limit's lock).
 */
#ifndef XBRIDGE_CORE_NFT_EXPR_H
#define XBRIDGE_CORE_NFT_EXPR_H

#include <stdint.h>

#include "errors.h"
#include "nft_attr.h"
#include "nft_uapi.h"
#include "percpu.h"
#include "platform.h"

namespace xb::nft {

enum class Op : uint8_t {
	Immediate,	/* bytes -> dreg */
	Verdict,	/* verdict register := code (chain for jump/goto) */
	Cmp,		/* sreg <op> bytes (ordering), else break */
	CmpEq,		/* sreg ==/!= bytes, word-wise under a mask */
	Range,		/* from <= sreg <= to (or not), else break */
	Bitwise,	/* dreg = (sreg & mask) ^ xor */
	Shift,		/* dreg = sreg << or >> n, per 32-bit word */
	Byteorder,	/* dreg = ntoh/hton(sreg) in elements of size */
	Payload,	/* packet bytes at base + offset -> dreg */
	PayloadWrite,	/* sreg -> packet bytes at base + offset (data: the
			 * checksum fields, nft_payload_write.h) */
	Meta,		/* a packet or interface property -> dreg */
	MetaSet,	/* meta mark set sreg */
	Lookup,		/* key at sreg in set (-> dreg data), else break */
	Counter,	/* packets and bytes */
	Limit,		/* token bucket, else break */
	CtGet,		/* a conntrack property -> dreg, else break */
	CtSet,		/* ct mark / ct zone set sreg */
	FlowOffload,	/* flow offload @flowtable */
	ObjCounter,	/* counter name NAME: a named counter object's packets
			 * and bytes (objref); runs as Counter, dumps as objref */
	Notrack,	/* notrack: a frame nothing tracked yet is UNTRACKED */
	Log,		/* log: the frame to the environment's logger (ref: Log) */
	Quota,		/* quota: bytes so far against a bound, else break
			 * (ref: Quota) */
	ObjQuota,	/* quota name NAME: a named quota object (objref);
			 * the object (control), its Quota (generation) */
	ObjLimit,	/* limit name NAME: a named limit object (objref);
			 * the object (control), its Limit (generation) */
	Numgen,		/* numgen: a counter or random number (sub: type) below
			 * a modulus, plus an offset -> dreg (ref: the counter) */
	Hash,		/* jhash of sreg, or the flow's symmetric hash (sub:
			 * type), below a modulus, plus an offset -> dreg */
	Exthdr,		/* a TCP option, IPv6 extension header, IPv4 option
			 * or SCTP chunk (sub: op; data[0]: its type), its bytes or
			 * presence -> dreg */
	TcpOptWrite,	/* a TCP option's bytes at offset := sreg, or the
			 * option reset to NOPs (sub: kTcpOptSet or
			 * kTcpOptStrip; data[0]: its kind) */
	Reject,		/* reject: a reply to the sender (sub: type; data[0],
			 * data[1]: the ICMP and ICMPv6 codes), then drop */
	Dynset,		/* add/update/delete @set: a frame writes a set (ref:
			 * Dynset; data: the generation's SetIndex) */
	ObjMap,		/* counter|quota|limit name KEY map @set: the named
			 * object the key maps to (ref: the set, control, then
			 * the generation's SetIndex; sub: the object type) */
	Connlimit,	/* ct count [over] N: the rule's connections against a
			 * bound, else break; no connection drops (ref:
			 * ConnLimit, nft_connlimit.h) */

	/*
	 * Word loads: never parsed, made by lower_rule() when a generation
	 * is built from the loads rulesets are made of. Each reads a word
	 * of at most 4 bytes from one place known at commit, so the
	 * evaluator needs no second switch on a key or base, and carries
	 * the mask and compare that test it (see "Word loads" below).
	 */
	LoadIif,	/* meta iif: the input's ifindex, 0 without one */
	LoadOif,	/* meta oif */
	LoadProtocol,	/* meta protocol */
	LoadL4proto,	/* meta l4proto, else break */
	LoadMark,	/* meta mark */
	LoadCtState,	/* ct state */
	LoadCtZone,	/* ct zone, else break (no connection) */
	LoadNetwork,	/* @len (1..4) bytes at the network header + offset */
	LoadTransport,	/* ... at the transport header + offset */

	/*
	 * Statements lowered when a generation is built (lower_rule()):
	 * what rules end with, in one Insn where the parsed rule has two.
	 */
	CounterVerdict,	/* a Counter or ObjCounter (ref: its Counter) and the
			 * Verdict after it, which ends the rule: code, and
			 * the chain of a jump or goto at data[0] */
	SetCtZone,	/* ct zone set sreg (CtSet of kCtZone) */

	ChainEnd,	/* made when a generation is built: a chain's end,
			 * return (or the base chain's policy) */
};

/* A counter: per-CPU, summed for dumps. */
struct CounterCpu {
	uint64_t packets;
	uint64_t bytes;
};

struct Counter {
	PerCpu<CounterCpu> cpu;
	uint64_t base_packets;	/* the values the rule was created with */
	uint64_t base_bytes;
};

/* A limit's token bucket, shared by every CPU (nft_limit's spinlock). */
struct Limit {
	xb_lock *lock;
	uint64_t tokens XB_GUARDED_BY(lock);
	uint64_t tokens_max;
	uint64_t last_ns XB_GUARDED_BY(lock);
	uint64_t rate;
	uint64_t unit_s;	/* the unit as given, seconds */
	uint64_t nsecs;		/* unit in ns */
	uint32_t burst;
	uint32_t type;		/* kLimitPkts or kLimitPktBytes */
	uint32_t flags;		/* kLimitFInv */
};

/* nft_limit's cost of one frame of @len bytes (from the network header). */
inline uint64_t limit_cost(uint64_t nsecs, uint64_t rate, uint32_t type, uint32_t len)
{
	return type == kLimitPktBytes ? nsecs * uint64_t(len) / rate : nsecs / rate;
}

/* nft_limit_eval's bucket: refilled by the time since @last_ns (capped at
 * @tokens_max), then @cost taken if it holds that much. Returns whether
 * the frame is over the rate. The caller holds the bucket's lock. */
inline bool limit_bucket_over(uint64_t &tokens, uint64_t &last_ns, uint64_t tokens_max,
			      uint64_t cost, uint64_t now)
{
	uint64_t t = tokens + (now > last_ns ? now - last_ns : 0);
	if (t > tokens_max)
		t = tokens_max;
	last_ns = now > last_ns ? now : last_ns;
	if (t >= cost) {
		tokens = t - cost;
		return false;
	}
	tokens = t;
	return true;
}

/* A quota (nft_quota): the bytes every CPU's frames consumed, in one
 * word they all add to. Over the bound (consumed > bytes) a frame breaks,
 * or with kQuotaFInv (`over`) only a frame under it does. */
struct Quota {
	uint64_t bytes;
	uint64_t consumed;	/* atomic */
	uint32_t flags;		/* kQuotaFInv */
};

/* A log statement: what nf_log is given, and whether the rule holds a
 * logger (not for level audit, which nft_log sends to the audit log). */
struct Log {
	struct xb_nft_loginfo info;
	bool audit;
	bool logger_held;
};

/* What an Insn's ref points at, by opcode. */
struct Insn {
	Op op;
	uint8_t sub;		/* cmp/range op, payload base, meta/ct key,
				 * byteorder op, shift direction */
	uint8_t sreg;		/* register word index (0..19 after the verdict) */
	uint8_t dreg;		/* register word index; kDregVerdict for verdict data */
	uint8_t len;		/* operand length in bytes */
	uint8_t size;		/* byteorder element size; ct direction + 1 (0: none) */
	uint8_t flags;		/* lookup/limit invert */
	uint8_t to_next_rule;	/* in a generation: Insns on to the next rule
				 * (where a break goes); a rule holds at most
				 * kRuleMaxExprs */
	uint32_t offset;	/* payload offset; shift amount */
	int32_t code;		/* Verdict: the code */
	void *ref;		/* Lookup: set; Verdict: chain; Counter; Limit;
				 * FlowOffload: flowtable; ObjCounter: the object
				 * (control), its Counter (generation) */
	uint8_t data[32];	/* Cmp/Immediate: value; CmpEq: value, byte mask
				 * at 16; Range: from, to at 16; Bitwise: mask,
				 * xor at 16 */
};

constexpr uint8_t kDregVerdict = 0xff;

/*
 * The word whose first @len (1..4; more reads 4) bytes in memory are
 * @src's and the rest zero, built with fixed-size loads (a copy of a
 * variable length is a call to memcpy): a short register value, and a
 * set's key word.
 */
inline uint32_t short_word(const uint8_t *src, uint32_t len)
{
	constexpr bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	uint32_t w;
	uint16_t h;
	switch (len) {
	case 1:
		return little ? uint32_t(src[0]) : uint32_t(src[0]) << 24;
	case 2:
		__builtin_memcpy(&h, src, 2);
		return little ? uint32_t(h) : uint32_t(h) << 16;
	case 3:
		__builtin_memcpy(&h, src, 2);
		return little ? uint32_t(h) | uint32_t(src[2]) << 16
			      : uint32_t(h) << 16 | uint32_t(src[2]) << 8;
	default:
		__builtin_memcpy(&w, src, 4);
		return w;
	}
}

/*
 * Fused compare (lower_rule()): a Payload, Meta or CtGet whose result the
 * next Insn, a CmpEq of at most 4 bytes, tests at once carries that test
 * in its own data (value at 0, mask at 16) and flags, and the CmpEq is
 * left out of the generation's copy of the rule. The register is still
 * written, so later reads of it see what they would have seen.
 *
 * A Bitwise of at most 4 bytes between the load and the CmpEq, on the
 * load's own register (ct state & (established|related) != 0: the shape
 * of every flag test), is fused too: its mask at 4 and xor at 20 are
 * applied to the loaded word before it is stored and compared, and both
 * the Bitwise and the CmpEq are left out.
 */
constexpr uint8_t kInsnFCmpNext = 0x80;	/* carries the compare */
constexpr uint8_t kInsnFCmpNeq = 0x40;	/* ... the compare is != */
constexpr uint8_t kInsnFBitwise = 0x20;	/* mask and xor first */

/*
 * Word loads (Op::LoadIif .. Op::LoadTransport), and the first word of any
 * other load with kInsnFCmpNext: the loaded word w, as the register would
 * hold it, goes through w = (w & mask) ^ xor (data at 4 and 20: a fused
 * Bitwise's, else all ones and zero; a payload's length is folded into a
 * word load's mask), is stored in dreg, and the rule breaks unless
 * ((w ^ value) & cmask) == 0 (data at 0 and 16; cmask 0 when no compare
 * was fused), or != 0 with kInsnFCmpNeq. lower_rule() sets all four.
 */

struct DynsetTarget;	/* nft_dynset.h */
struct ConnLimit;	/* nft_connlimit.h */

/* The control-plane objects a rule may name, resolved by the ruleset. */
class Resolver {
public:
	/* A set of the rule's table by name or (for the batch's own sets) id;
	 * nullptr if there is none. */
	virtual void *set(const char *name, const uint32_t *id) = 0;
	/* A chain of the table; @base tells a base chain (which nothing may
	 * jump to). */
	virtual void *chain(const char *name, const uint32_t *id, bool &base) = 0;
	virtual void *flowtable(const char *name) = 0;
	/* A stateful object of the table by name and NFT_OBJECT_* type. */
	virtual void *object(const char *name, uint32_t type) = 0;
	/* Set layout, for lookups: key and data lengths, whether a map and
	 * whether the data is a verdict. */
	virtual void set_layout(void *set, uint32_t &key_len, uint32_t &data_len, bool &map,
				bool &verdict_map) = 0;
	/* An object map's NFT_OBJECT_* type; 0 for any other set. */
	virtual uint32_t set_obj_type(void *set) = 0;
	/* What a set statement needs of the set it writes (nft_dynset_init). */
	virtual void dynset_target(void *set, DynsetTarget &target) = 0;

protected:
	~Resolver() = default;
};

struct ParsedRule {
	Insn *insn = nullptr;
	uint32_t count = 0;
	Counter **counters = nullptr;	/* owned; count_counters entries */
	uint32_t count_counters = 0;
	Limit **limits = nullptr;
	uint32_t count_limits = 0;
	Log **logs = nullptr;		/* owned; count_logs entries */
	uint32_t count_logs = 0;
	ConnLimit **connlimits = nullptr;	/* owned; count_connlimits entries */
	uint32_t count_connlimits = 0;
	/* owned; count_plain entries: state with nothing to release but its
	 * memory (quotas, numgen counters), freed with xb_free */
	void **plain = nullptr;
	uint32_t count_plain = 0;
	bool has_ct = false;		/* reads or sets ct: switches conntrack on */
	bool has_offload = false;
	bool has_reject = false;	/* valid at prerouting and input only */
	bool has_pkttype_set = false;	/* valid at prerouting only */
	bool has_payload_write = false;	/* the frame must be writable */
	uint32_t verdict_refs = 0;	/* jumps and gotos (chain use counts) */
	uint32_t obj_refs = 0;		/* ObjCounter Insns */
};

/* Maximum expressions per rule (nf_tables: NFT_RULE_MAXEXPRS). */
constexpr unsigned kRuleMaxExprs = 128;

/*
 * Parse and validate NFTA_RULE_EXPRESSIONS (@list, a nest of NFTA_LIST_ELEM)
 * into @out. Returns 0 or a negative errno (nf_tables' for the same
 * mistake), with @ack naming it; on error nothing is left allocated.
 */
int parse_rule_exprs(const Attr &list, Resolver &res, ParsedRule &out, Extack *ack);

/* Parse nft_data (NFTA_DATA_VALUE or NFTA_DATA_VERDICT) as a value of at
 * most @max bytes. */
int parse_data_value(const Attr &nest, uint8_t *out, uint32_t max, uint32_t &len, Extack *ack);

/* Parse a verdict (NFTA_DATA_VERDICT nest inside nft_data); jump/goto
 * resolve their chain through @res. */
int parse_data_verdict(const Attr &nest, Resolver &res, int32_t &code, void *&chain,
		       Extack *ack);

void free_parsed_rule(ParsedRule &r);

/* Sum of a counter over all CPUs, plus its base. */
void counter_read(const Counter &c, uint64_t &packets, uint64_t &bytes);

/* A counter's per-CPU storage and its start values (NFTA_COUNTER_PACKETS
 * and _BYTES in @tb, indexed by attribute type, when present), as
 * nft_counter_do_init; counter_fini frees what counter_init allocated. */
int counter_init(Counter &c, const Attr *tb, Extack *ack);
void counter_fini(Counter &c);
/* Subtract @packets and @bytes, values counter_read returned, so that a
 * counter reads from zero again without losing what frames added since
 * (nft_counter_reset). Control context, serialised with other resets. */
void counter_reset(Counter &c, uint64_t packets, uint64_t bytes);

/* A limit's rate, unit, burst, type and flags (NFTA_LIMIT_* in @tb), as
 * nft_limit_init checks them; limit_fini frees what it allocated. */
int limit_init(Limit &l, const Attr *tb, Extack *ack);
void limit_fini(Limit &l);

/* A quota's bound, consumed bytes and flags (NFTA_QUOTA_* in @tb), as
 * nft_quota_do_init checks them. */
int quota_init(Quota &q, const Attr *tb, Extack *ack);
/* What a dump reports (nft_quota_do_dump): @shown is the consumed bytes
 * (@consumed) capped at the bound, which also sets kQuotaFDepleted in
 * @flags. Any context. */
void quota_read(const Quota &q, uint64_t &consumed, uint64_t &shown, uint32_t &flags);
/* Take @consumed, as quota_read read it, away (a dump with reset). */
void quota_reset(Quota &q, uint64_t consumed);

/* nf_msecs_to_jiffies64: a timeout attribute in milliseconds, as
 * nanoseconds; EINVAL if it is no 64-bit value, ERANGE if too large. */
int parse_msecs(const Attr &a, uint64_t &ns, Extack *ack);

/* nft_parse_register_load: register @a, which a load of @len bytes
 * reads, as a word index; 0 or nf_tables' error. */
int load_register(const Attr &a, uint32_t len, uint8_t &word, Extack *ack);

/* nft_parse_register: a register number to its word index; false if out
 * of range. */
bool register_word(uint32_t reg, uint8_t &word);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_EXPR_H */
