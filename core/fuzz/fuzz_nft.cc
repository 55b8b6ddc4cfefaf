// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_nft.cc - libFuzzer target: arbitrary nf_tables requests and
 * expression programs through the rule engine's validator (Ruleset::apply,
 * commit, abort) and arbitrary frames through the generations it commits.
 *
 * Input layout, consumed front to back until it runs out:
 *   op byte, then per op (op % 6):
 *     0    raw request: type byte (an NFT_MSG_* of the table), flags byte
 *          (bits: create, excl, append, replace), length (2 bytes, up to
 *          4096), the attribute bytes (an exact-size heap copy)
 *     1    a rule of fuzzed expressions in table t, chain by byte: count
 *          byte (1..8), then per expression a name byte (the engine's
 *          names and one unknown), an attribute count byte (0..6) and per
 *          attribute a type byte, a length byte (0..20) and its bytes;
 *          nested attributes (data, verdicts) are built from the same bytes;
 *          a dynset mostly gets a well-formed set statement (dynset_attrs)
 *          whose set, operation, registers and expressions are drawn
 *     2    commit
 *     3    abort
 *     4    a frame at a hook: hook byte, flags byte (in/out devices, an
 *          out-of-band tag, a conntrack result, writable bytes for payload
 *          statements, CHECKSUM_PARTIAL), length (2 bytes, up to 1600),
 *          the bytes (an exact-size heap copy); at a hook after
 *          prerouting a copy's writes are recorded and undone, and the
 *          bytes must come back as they were
 *     5    the fixed objects: table t, a base chain at each hook, regular
 *          chains, a set, a map, a verdict map, two dynamic sets (one
 *          a map) and a flowtable (one batch)
 * Checked: a request that fails leaves the batch as it was (the next
 * commit publishes what the successful requests built), an aborted batch
 * leaves the generation id unchanged, and nothing crashes, leaks or reads
 * outside its buffers. A violation aborts (a finding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "ct_track.h"
#include "nft_connlimit.h"
#include "nft_eval.h"
#include "nft_payload_write.h"
#include "nft_ruleset.h"
#include "platform_user.h"

namespace {

using namespace xb;
using namespace xb::nft;

class Input {
public:
	Input(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
	bool more() const { return p_ < end_; }
	uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
	uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
	std::vector<uint8_t> bytes(size_t n)
	{
		std::vector<uint8_t> v;
		while (n-- && p_ < end_)
			v.push_back(*p_++);
		return v;
	}

private:
	const uint8_t *p_;
	const uint8_t *end_;
};

/* A netlink attribute writer for building requests. */
class Msg {
public:
	size_t begin(uint16_t type)
	{
		const size_t at = b_.size();
		put_hdr(0, type | 0x8000);
		return at;
	}
	void end(size_t at)
	{
		const uint16_t len = uint16_t(b_.size() - at);
		memcpy(&b_[at], &len, 2);
	}
	void put(uint16_t type, const void *data, size_t len)
	{
		put_hdr(uint16_t(4 + len), type);
		const uint8_t *d = static_cast<const uint8_t *>(data);
		b_.insert(b_.end(), d, d + len);
		while (b_.size() % 4)
			b_.push_back(0);
	}
	void str(uint16_t type, const char *s) { put(type, s, strlen(s) + 1); }
	void be32(uint16_t type, uint32_t v)
	{
		const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
		put(type, b, 4);
	}
	const std::vector<uint8_t> &bytes() const { return b_; }

private:
	void put_hdr(uint16_t len, uint16_t type)
	{
		uint8_t h[4];
		memcpy(h, &len, 2);
		memcpy(h + 2, &type, 2);
		b_.insert(b_.end(), h, h + 4);
	}
	std::vector<uint8_t> b_;
};

Ruleset *rs;
const uint16_t kTypes[] = {kMsgNewTable, kMsgDelTable, kMsgNewChain, kMsgDelChain,
			   kMsgNewRule,  kMsgDelRule,  kMsgNewSet,   kMsgDelSet,
			   kMsgNewSetElem, kMsgDelSetElem, kMsgNewFlowtable, kMsgDelFlowtable,
			   kMsgNewObj,  kMsgDelObj};
const char *const kExprs[] = {"immediate", "cmp", "range", "bitwise", "byteorder", "payload",
			      "meta", "lookup", "counter", "limit", "ct", "flow_offload",
			      "objref", "log", "notrack", "reject", "quota", "numgen",
			      "hash", "exthdr", "dynset", "connlimit", "nosuch"};
const char *const kChains[] = {"pre", "in", "fwd", "out", "post", "a", "b"};

int apply(uint16_t type, uint16_t flags, const std::vector<uint8_t> &attrs)
{
	/* An exact-size copy, so AddressSanitizer sees any over-read. */
	uint8_t *copy = static_cast<uint8_t *>(malloc(attrs.size() ? attrs.size() : 1));
	if (!attrs.empty())
		memcpy(copy, attrs.data(), attrs.size());
	Extack ack;
	int err = rs->apply(type, flags, kFamilyBridge, copy, attrs.size(), &ack);
	free(copy);
	if (err && !ack.msg)
		abort();	/* every refusal says why */
	return err;
}

void setup()
{
	Msg t;
	t.str(kTableName, "t");
	apply(kMsgNewTable, kNlmFCreate, t.bytes());
	for (unsigned h = 0; h < 7; h++) {
		Msg c;
		c.str(kChainTable, "t");
		c.str(kChainName, kChains[h]);
		if (h < kHookCount) {
			size_t hook = c.begin(kChainHook);
			c.be32(kHookHooknum, h);
			c.be32(kHookPriority, uint32_t(int32_t(h) * 10 - 20));
			c.end(hook);
			c.str(kChainType, "filter");
		}
		apply(kMsgNewChain, kNlmFCreate, c.bytes());
	}
	struct {
		const char *name;
		uint32_t flags, klen, dtype, dlen;
	} sets[] = {
		{"s", 0, 4, 0, 0},
		{"iv", kSetFInterval, 4, 0, 0},
		{"m", kSetFMap, 4, 19, 4},
		{"v", kSetFMap, 2, kDataTypeVerdict, 0},
		{"d", kSetFEval | kSetFTimeout, 4, 0, 0},
		{"dm", kSetFMap | kSetFEval, 4, 19, 4},
		{"c", 0, 4, 0, 0},			/* counter; */
		{"lq", kSetFEval | kSetFExpr, 4, 0, 0},	/* limit ...; quota ...; */
	};
	for (auto &s : sets) {
		Msg m;
		m.str(kSetTable, "t");
		m.str(kSetName, s.name);
		m.be32(kSetFlags, s.flags);
		m.be32(kSetKeyType, 7);
		m.be32(kSetKeyLen, s.klen);
		if (s.flags & kSetFMap) {
			m.be32(kSetDataType, s.dtype);
			m.be32(kSetDataLen, s.dlen);
		}
		if (!strcmp(s.name, "c")) {
			size_t e = m.begin(kSetExpr);
			m.str(kExprName, "counter");
			m.end(e);
		} else if (!strcmp(s.name, "lq")) {
			size_t l = m.begin(kSetExpressions);
			size_t e = m.begin(kListElem);
			m.str(kExprName, "limit");
			size_t d = m.begin(kExprData);
			const uint32_t rate[2] = {0, __builtin_bswap32(3)};
			const uint32_t unit[2] = {0, __builtin_bswap32(1)};
			m.put(kLimitRate, rate, 8);
			m.put(kLimitUnit, unit, 8);
			m.end(d);
			m.end(e);
			e = m.begin(kListElem);
			m.str(kExprName, "quota");
			d = m.begin(kExprData);
			const uint32_t bytes[2] = {0, __builtin_bswap32(600)};
			m.put(kQuotaBytes, bytes, 8);
			m.end(d);
			m.end(e);
			m.end(l);
		}
		apply(kMsgNewSet, kNlmFCreate, m.bytes());
	}
	Msg f;
	f.str(kFlowtableTable, "t");
	f.str(kFlowtableName, "ft");
	size_t hook = f.begin(kFlowtableHook);
	f.be32(kFlowtableHookNum, 0);
	f.be32(kFlowtableHookPriority, 0);
	f.end(hook);
	apply(kMsgNewFlowtable, kNlmFCreate, f.bytes());
}

/* Attributes from the input; a few become nests (data values, verdicts,
 * set element lists) so the nested parsers are reached. */
void fuzzed_attrs(Input &in, Msg &m, unsigned depth)
{
	const unsigned n = in.u8() % 7;
	for (unsigned i = 0; i < n; i++) {
		const uint16_t type = uint16_t(in.u8() % 12);
		const uint8_t kind = in.u8();
		if (depth < 2 && (kind & 0xc0) == 0xc0) {
			size_t nest = m.begin(type);
			fuzzed_attrs(in, m, depth + 1);
			m.end(nest);
			continue;
		}
		const std::vector<uint8_t> v = in.bytes(kind % 21);
		m.put(type, v.data(), v.size());
	}
}

/* @n stateful expressions from the input: one as attribute @one, more in a
 * list @list (a set's, a set statement's or an element's). */
void stateful_exprs(Input &in, Msg &m, unsigned n, uint16_t one, uint16_t list_type)
{
	static const char *const exprs[] = {"counter", "limit", "quota", "connlimit", "cmp",
					    "nosuch"};
	size_t list = 0;
	if (n > 1)
		list = m.begin(list_type);
	for (unsigned i = 0; i < n; i++) {
		size_t e = m.begin(n > 1 ? kListElem : one);
		const char *name = exprs[in.u8() % 6];
		m.str(kExprName, name);
		size_t d = m.begin(kExprData);
		if (!strcmp(name, "limit")) {
			const uint32_t rate[2] = {0, __builtin_bswap32(1u + in.u8())};
			const uint32_t unit[2] = {0, __builtin_bswap32(1)};
			m.put(kLimitRate, rate, 8);
			m.put(kLimitUnit, unit, 8);
			m.be32(kLimitFlags, in.u8() & 1);
		} else if (!strcmp(name, "quota")) {
			const uint32_t bytes[2] = {0, __builtin_bswap32(in.u16())};
			m.put(kQuotaBytes, bytes, 8);
		} else if (!strcmp(name, "connlimit")) {
			m.be32(kConnlimitCount, in.u8() % 4);
			m.be32(kConnlimitFlags, in.u8() & 1);
		} else {
			fuzzed_attrs(in, m, 1);
		}
		m.end(d);
		m.end(e);
	}
	if (list)
		m.end(list);
}

/* A set statement whose set, operation, registers, timeout and element
 * expressions come from the input, so that most reach the datapath. */
void dynset_attrs(Input &in, Msg &m)
{
	static const char *const sets[] = {"s", "iv", "m", "v", "d", "dm", "c", "lq", "nope"};
	const uint8_t how = in.u8();
	m.str(1 /* SET_NAME */, sets[in.u8() % 9]);
	m.be32(3 /* OP */, in.u8() % 4);
	m.be32(4 /* SREG_KEY */, in.u8() % 24);
	if (how & 1)
		m.be32(5 /* SREG_DATA */, in.u8() % 24);
	if (how & 2) {
		const uint32_t ms = in.u8() * 100u;
		const uint32_t v[2] = {0, __builtin_bswap32(ms)};
		m.put(6 /* TIMEOUT */, v, 8);
	}
	if (how & 4)
		m.be32(9 /* FLAGS */, in.u8() % 4);
	stateful_exprs(in, m, (how >> 3) % 4, 7 /* EXPR */, 10 /* EXPRESSIONS */);
}

/* Elements 10.0.0.x of a set, each with stateful expressions of its own
 * or none (then the set's), so that lookups run them. */
void fuzzed_elems(Input &in)
{
	static const char *const sets[] = {"s", "c", "lq", "d", "iv"};
	Msg m;
	m.str(kSetElemListTable, "t");
	m.str(kSetElemListSet, sets[in.u8() % 5]);
	size_t list = m.begin(kSetElemListElements);
	const unsigned count = 1 + in.u8() % 4;
	for (unsigned i = 0; i < count; i++) {
		size_t elem = m.begin(kListElem);
		size_t key = m.begin(kSetElemKey);
		const uint8_t addr[4] = {10, 0, 0, uint8_t(in.u8() % 8)};
		m.put(kDataValue, addr, 4);
		m.end(key);
		stateful_exprs(in, m, in.u8() % 4, kSetElemExpr, kSetElemExpressions);
		m.end(elem);
	}
	m.end(list);
	apply(in.u8() & 1 ? kMsgDelSetElem : kMsgNewSetElem, kNlmFCreate, m.bytes());
}

void fuzzed_rule(Input &in)
{
	Msg m;
	m.str(kRuleTable, "t");
	m.str(kRuleChain, kChains[in.u8() % 7]);
	size_t list = m.begin(kRuleExpressions);
	const unsigned count = 1 + in.u8() % 8;
	for (unsigned e = 0; e < count; e++) {
		size_t elem = m.begin(kListElem);
		const char *name = kExprs[in.u8() % (sizeof(kExprs) / sizeof(kExprs[0]))];
		m.str(kExprName, name);
		size_t data = m.begin(kExprData);
		if (!strcmp(name, "dynset") && (in.u8() & 3))
			dynset_attrs(in, m);
		else
			fuzzed_attrs(in, m, 0);
		m.end(data);
		m.end(elem);
	}
	m.end(list);
	apply(kMsgNewRule, kNlmFCreate | kNlmFAppend, m.bytes());
}

void frame(Input &in, Conntrack &ct)
{
	const unsigned hook = in.u8() % kHookCount;
	const uint8_t flags = in.u8();
	const std::vector<uint8_t> b = in.bytes(in.u16() % 1601);
	uint8_t *copy = static_cast<uint8_t *>(malloc(b.size() ? b.size() : 1));
	if (!b.empty())
		memcpy(copy, b.data(), b.size());
	static const IfInfo in_if{3, "swp1", 1, 0, "xbr0", nullptr};
	static const IfInfo out_if{4, "swp2", 1, 0, "xbr0", nullptr};
	Pkt p{};
	p.frame = copy;
	p.len = uint32_t(b.size());
	p.in = flags & 1 ? &in_if : nullptr;
	p.out = flags & 2 ? &out_if : nullptr;
	p.vlan_present = flags & 4;
	p.band_tag_len = (flags & 8) && p.len >= 18 ? 4 : 0;
	p.vlan_proto = 0x8100;
	p.vlan_tci = uint16_t(flags << 4);
	p.bridge_vlan_enabled = flags & 16;
	p.now_ns = 1000000000ull * (flags & 7);
	p.wframe = flags & 64 ? copy : nullptr;	/* payload statements write it */
	p.csum_partial = flags & 128;
	/* After prerouting a copy's writes are recorded and undone (as
	 * bridge_nft.cc runs each copy's chains): the frame must come back
	 * as it was, and every record must lie inside it. */
	CopyWrite room[8];
	CopyWrites writes{room, 8, 0};
	const bool copy_hook = hook != kHookPrerouting && p.wframe;
	if (copy_hook) {
		p.copy_writes = &writes;
		p.copy = &in_if;
	}
	pkt_init(p);
	CtResult r;
	if (flags & 32) {
		ct.in(copy, p.len, p.band_tag_len == 0, 0, 1, true, r);
		p.ct = &r;
		p.conntrack = &ct;	/* ct count looks its tuples up */
	}
	{
		RcuReadGuard rcu;
		const Generation *g = rs->generation();
		if (g)
			run_hook(g->hooks[hook], p);
	}
	if (copy_hook) {
		copy_writes_end(p, 0, flags & 1);
		if (!b.empty() && memcmp(copy, b.data(), b.size()))
			abort();	/* a copy's writes leaked into the shared bytes */
		for (uint32_t i = 0; i < writes.count; i++)
			if (room[i].len && room[i].offset + room[i].len > b.size())
				abort();
	}
	if (flags & 32) {
		ct.confirm(r, 1);
		ct.release(r);
	}
	free(copy);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	xb_user_log_to_stderr(0);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Ruleset ruleset;
	ruleset.init(nullptr);
	rs = &ruleset;
	Conntrack ct;
	if (ct.init(64, 64, nullptr))
		abort();
	Input in(data, size);
	while (in.more()) {
		switch (in.u8() % 7) {
		case 0: {
			const uint16_t type = kTypes[in.u8() % (sizeof(kTypes) / sizeof(kTypes[0]))];
			const uint8_t f = in.u8();
			const uint16_t flags = uint16_t((f & 1 ? kNlmFCreate : 0) | (f & 2 ? kNlmFExcl : 0) |
						      (f & 4 ? kNlmFAppend : 0) |
						      (f & 8 ? kNlmFReplace : 0));
			const std::vector<uint8_t> attrs = in.bytes(in.u16() % 4097);
			apply(type, flags, attrs);
			break;
		}
		case 1:
			fuzzed_rule(in);
			break;
		case 2: {
			Extack ack;
			const uint32_t before = ruleset.generation_id();
			const bool changes = ruleset.batch_changes();
			const int err = ruleset.commit(&ack);
			const uint32_t want = err || !changes ? before : before + 1;
			if (ruleset.generation_id() != want || ruleset.batch_changes())
				abort();
			break;
		}
		case 3: {
			const uint32_t before = ruleset.generation_id();
			ruleset.abort();
			if (ruleset.generation_id() != before)
				abort();
			break;
		}
		case 4:
			frame(in, ct);
			break;
		case 5:
			setup();
			break;
		case 6:
			fuzzed_elems(in);
			break;
		}
	}
	ruleset.fini();
	ct.fini();
	return 0;
}
