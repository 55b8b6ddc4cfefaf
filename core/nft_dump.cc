// SPDX-License-Identifier: GPL-2.0
/*
 * nft_dump.cc - NFTA_* attributes of the ruleset's objects, in the order
 * and with the optional parts nf_tables_api.c's fill functions write.
 *
 * Control context; no allocation (the rule's expressions are copied into
 * the output buffer and their counters patched there).
 */
#include "nft_dump.h"

#include "kernel_version.h"
#include "nft_connlimit.h"
#include "nft_dynset.h"
#include "nft_payload_write.h"

namespace xb::nft {

namespace {

constexpr uint16_t kNested = 0x8000;	/* NLA_F_NESTED */

void put_hdr(uint8_t *p, uint16_t len, uint16_t type)
{
	__builtin_memcpy(p, &len, 2);
	__builtin_memcpy(p + 2, &type, 2);
}

void put_value(AttrWriter &w, uint16_t type, const uint8_t *v, uint32_t len)
{
	const size_t nest = w.nest_begin(type);
	w.put(kDataValue, v, len);
	w.nest_end(nest);
}

void put_verdict(AttrWriter &w, uint16_t type, int32_t code, const ChainObj *chain)
{
	const size_t data = w.nest_begin(type);
	const size_t verdict = w.nest_begin(kDataVerdict);
	w.be32(kVerdictCode, uint32_t(code));
	if (chain && (code == kNftJump || code == kNftGoto))
		w.str(kVerdictChain, chain->name);
	w.nest_end(verdict);
	w.nest_end(data);
}

/* nft_quota_do_dump: the bound, what was consumed (capped at the bound:
 * then also the depleted flag) and the flags. */
uint64_t put_quota(const Quota &q, AttrWriter &w)
{
	uint64_t consumed, shown;
	uint32_t flags;
	quota_read(q, consumed, shown, flags);
	w.be64(kQuotaBytes, q.bytes);
	w.be64(kQuotaConsumed, shown);
	w.be32(kQuotaFlags, flags);
	return consumed;
}

/* nft_payload_set_dump: the register as received, then every field as
 * the kernel keeps it (offset and length a byte each), defaults too. */
void put_payload_write(const Insn &in, const Attr &data, AttrWriter &w)
{
	AttrWalker walk(data);
	uint16_t type;
	Attr a;
	while (walk.next(type, a))
		if (type == kPayloadSreg)
			w.put(walk.raw_type(), a.data, a.len);
	w.be32(kPayloadBase, in.sub);
	w.be32(kPayloadOffset, in.offset);
	w.be32(kPayloadLen, in.len);
	w.be32(kPayloadCsumType, in.data[kPwCsumType]);
	w.be32(kPayloadCsumOffset, in.data[kPwCsumOffset]);
	w.be32(kPayloadCsumFlags, in.data[kPwCsumFlags]);
}

/* nft_connlimit_do_dump: the bound, and the flags only for `over`. */
void put_connlimit(uint32_t limit, uint32_t flags, AttrWriter &w)
{
	w.be32(kConnlimitCount, limit);
	if (flags & kConnlimitFInv)
		w.be32(kConnlimitFlags, kConnlimitFInv);
}

/* nft_immediate_dump of a jump or goto: the register as received, then
 * the verdict's code and the chain by the name it has now (a rename
 * changes it), never by the batch's NFTA_VERDICT_CHAIN_ID. */
void put_jump(const Insn &in, const Attr &data, AttrWriter &w)
{
	AttrWalker walk(data);
	uint16_t type;
	Attr a;
	while (walk.next(type, a))
		if (type != kImmediateData)
			w.put(walk.raw_type(), a.data, a.len);
	const size_t d = w.nest_begin(kImmediateData);
	const size_t v = w.nest_begin(kDataVerdict);
	w.be32(kVerdictCode, uint32_t(in.code));
	w.str(kVerdictChain, static_cast<const ChainObj *>(in.ref)->name);
	w.nest_end(v);
	w.nest_end(d);
}

/* One expression's data as received, but with the counter's live values,
 * the lookup's set by the name it was given (not the batch's id or
 * "__set%d") and an objref's name NUL-terminated, as nf_tables' dump
 * functions write them; a jump's chain by its name now. */
void put_expr_data(const Insn &in, const Attr &data, AttrWriter &w)
{
	if (in.op == Op::Quota) {
		put_quota(*static_cast<const Quota *>(in.ref), w);
		return;
	}
	if (in.op == Op::PayloadWrite) {
		put_payload_write(in, data, w);
		return;
	}
	if (in.op == Op::Connlimit) {
		put_connlimit(static_cast<const ConnLimit *>(in.ref)->limit,
			      static_cast<const ConnLimit *>(in.ref)->flags, w);
		return;
	}
	if (in.op == Op::Verdict && in.ref) {
		put_jump(in, data, w);
		return;
	}
	if (in.op == Op::Counter) {
		/* nft_counter_do_dump: both values, whether or not the rule
		 * gave start values (nft sends them only when not 0) */
		uint64_t packets = 0, bytes = 0;
		counter_read(*static_cast<const Counter *>(in.ref), packets, bytes);
		w.be64(kCounterBytes, bytes);
		w.be64(kCounterPackets, packets);
		return;
	}
	AttrWalker walk(data);
	uint16_t type;
	Attr a;
	while (walk.next(type, a)) {
		if (in.op == Op::Lookup && type == kLookupSetId)
			continue;
		if (in.op == Op::Dynset && type == kDynsetSetId)
			continue;
		if (in.op == Op::ObjMap && type == kObjrefSetId)
			continue;
		if (in.op == Op::ObjMap && type == kObjrefSetName) {
			w.str(type, static_cast<const SetObj *>(in.ref)->name);
			continue;
		}
		if (in.op == Op::Dynset && type == kDynsetSetName) {
			w.str(type, static_cast<const SetObj *>(
					    static_cast<const Dynset *>(in.ref)->set)->name);
			continue;
		}
		/* nft_objref_dump: the name as a NUL-terminated string (libnftnl
		 * sends it without the NUL) */
		if ((in.op == Op::ObjCounter || in.op == Op::ObjQuota || in.op == Op::ObjLimit) &&
		    type == kObjrefImmName) {
			w.str(type, static_cast<const ObjObj *>(in.ref)->name);
			continue;
		}
		if (in.op == Op::Lookup && type == kLookupSet) {
			w.str(type, static_cast<const SetObj *>(in.ref)->name);
			continue;
		}
		w.put(walk.raw_type(), a.data, a.len);	/* as received, flags kept */
	}
}

void put_exprs(const RuleObj &r, AttrWriter &w)
{
	const size_t list = w.nest_begin(kRuleExpressions);
	AttrWalker walk(r.exprs.data, r.exprs.len);
	uint16_t type;
	Attr elem;
	uint32_t i = 0;
	while (walk.next(type, elem) && i < r.code.count) {
		Attr et[kExprData + 1];
		if (!parse_nested(elem, et, kExprData))
			break;
		const size_t e = w.nest_begin(kListElem);
		w.put(kExprName, et[kExprName].data, et[kExprName].len);
		/* one Insn per expression, in order (parse_rule_exprs); the
		 * stateful ones dump their state even if they came without
		 * data */
		const Op op = r.code.insn[i].op;
		if (et[kExprData].present() || op == Op::Counter || op == Op::Quota ||
		    op == Op::Connlimit) {
			const size_t d = w.nest_begin(kExprData);
			put_expr_data(r.code.insn[i], et[kExprData], w);
			w.nest_end(d);
		}
		w.nest_end(e);
		i++;
	}
	w.nest_end(list);
}

} // namespace

/* ---- AttrWriter --------------------------------------------------------- */

bool AttrWriter::reserve(size_t n)
{
	if (full_ || len_ + n > cap_) {
		full_ = true;
		return false;
	}
	return true;
}

size_t AttrWriter::nest_begin(uint16_t type)
{
	const size_t at = len_;
	if (reserve(4)) {
		put_hdr(buf_ + len_, 4, uint16_t(type | kNested));
		len_ += 4;
	}
	return at;
}

void AttrWriter::nest_end(size_t at)
{
	if (full_)
		return;
	const size_t n = len_ - at;
	if (n > 0xffff) {
		full_ = true;
		return;
	}
	const uint16_t len = uint16_t(n);
	__builtin_memcpy(buf_ + at, &len, 2);
}

void AttrWriter::put(uint16_t type, const void *data, size_t len)
{
	const size_t total = align4(uint32_t(4 + len));
	if (len > 0xffff - 4 || !reserve(total))
		return;
	put_hdr(buf_ + len_, uint16_t(4 + len), type);
	if (len)
		__builtin_memcpy(buf_ + len_ + 4, data, len);
	for (size_t i = 4 + len; i < total; i++)
		buf_[len_ + i] = 0;
	len_ += total;
}

void AttrWriter::str(uint16_t type, const char *s)
{
	put(type, s, cstr_len(s) + 1);
}

void AttrWriter::be32(uint16_t type, uint32_t v)
{
	const uint8_t b[4] = {uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
	put(type, b, 4);
}

void AttrWriter::be64(uint16_t type, uint64_t v)
{
	uint8_t b[8];
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = uint8_t(v);
	put(type, b, 8);
}

/* ---- objects ------------------------------------------------------------ */

bool fill_table(const TableObj &t, AttrWriter &w)
{
	w.str(kTableName, t.name);
	w.be32(kTableFlags, t.flags);
	/* table->use: one per chain, set and flowtable */
	w.be32(kTableUse, uint32_t(t.chains.size() + t.sets.size() + t.flowtables.size()));
	w.be64(kTableHandle, t.handle);
	if (t.userdata.len)
		w.put(kTableUserdata, t.userdata.data, t.userdata.len);
	return !w.full();
}

bool fill_chain(const ChainObj &c, AttrWriter &w)
{
	w.str(kChainTable, c.table->name);
	w.str(kChainName, c.name);
	w.be64(kChainHandle, c.handle);
	if (c.base) {
		const size_t hook = w.nest_begin(kChainHook);
		w.be32(kHookHooknum, c.hooknum);
		w.be32(kHookPriority, uint32_t(c.priority));
		w.nest_end(hook);
		w.be32(kChainPolicy, uint32_t(c.policy));
		w.str(kChainType, "filter");
	}
	if (c.flags)
		w.be32(kChainFlags, c.flags);
	w.be32(kChainUse, uint32_t(c.rules.size()));
	if (c.userdata.len)
		w.put(kChainUserdata, c.userdata.data, c.userdata.len);
	return !w.full();
}

bool fill_rule(const RuleObj &r, const RuleObj *prev, AttrWriter &w)
{
	w.str(kRuleTable, r.chain->table->name);
	w.str(kRuleChain, r.chain->name);
	w.be64(kRuleHandle, r.handle);
	if (r.exprs.len)
		put_exprs(r, w);
	if (prev)
		w.be64(kRulePosition, prev->handle);
	if (r.userdata.len)
		w.put(kRuleUserdata, r.userdata.data, r.userdata.len);
	return !w.full();
}

static void put_elem_expr(const ElemExpr &x, uint16_t type, AttrWriter &w);

bool fill_set(const SetObj &s, AttrWriter &w)
{
	w.str(kSetTable, s.table->name);
	w.str(kSetName, s.name);
	w.be64(kSetHandle, s.handle);
	if (s.flags)
		w.be32(kSetFlags, s.flags);
	w.be32(kSetKeyType, s.key_type);
	w.be32(kSetKeyLen, s.layout.key_len);
	if (s.flags & kSetFMap) {
		w.be32(kSetDataType, s.data_type);
		w.be32(kSetDataLen, s.layout.verdict_map ? 16 : s.layout.data_len);
	}
	if (s.timeout_ns)
		w.be64(kSetTimeout, s.timeout_ns / 1000000u);
	if (s.gc_interval)
		w.be32(kSetGcInterval, s.gc_interval);
	if (s.policy)
		w.be32(kSetPolicy, s.policy);
	if (s.obj_type)
		w.be32(kSetObjType, s.obj_type);
	if (s.userdata.len)
		w.put(kSetUserdata, s.userdata.data, s.userdata.len);
	if (s.size || s.layout.field_count) {
		const size_t desc = w.nest_begin(kSetDesc);
		if (s.size)
			w.be32(kSetDescSize, s.size);
		if (s.layout.field_count) {
			const size_t concat = w.nest_begin(kSetDescConcat);
			for (unsigned i = 0; i < s.layout.field_count; i++) {
				const size_t f = w.nest_begin(kListElem);
				w.be32(kSetFieldLen, s.layout.field_len[i]);
				w.nest_end(f);
			}
			w.nest_end(concat);
		}
		w.nest_end(desc);
	}
	/* nf_tables_fill_set: the set's expressions, one as NFTA_SET_EXPR,
	 * more as NFTA_SET_EXPRESSIONS */
	if (s.exprs.count == 1) {
		put_elem_expr(s.exprs.expr[0], kSetExpr, w);
	} else if (s.exprs.count > 1) {
		const size_t list = w.nest_begin(kSetExpressions);
		for (unsigned i = 0; i < s.exprs.count; i++)
			put_elem_expr(s.exprs.expr[i], kListElem, w);
		w.nest_end(list);
	}
	return !w.full();
}

/* nft_limit_dump of an element's limit. */
static void put_elem_limit(const ElemLimit &l, AttrWriter &w)
{
	w.be64(kLimitRate, l.rate);
	w.be64(kLimitUnit, l.unit_s);
	w.be32(kLimitBurst, l.burst);
	w.be32(kLimitType, l.type);
	w.be32(kLimitFlags, l.flags);
}

/* One stateful expression of an element, as nft_expr_dump writes it. */
static void put_elem_expr(const ElemExpr &x, uint16_t type, AttrWriter &w)
{
	static const char *const kNames[] = {"counter", "limit", "quota", "connlimit"};
	const size_t e = w.nest_begin(type);
	w.str(kExprName, kNames[unsigned(x.kind)]);
	const size_t d = w.nest_begin(kExprData);
	switch (x.kind) {
	case ElemExprKind::Counter:
		w.be64(kCounterBytes, __atomic_load_n(&x.counter.bytes, __ATOMIC_RELAXED));
		w.be64(kCounterPackets, __atomic_load_n(&x.counter.packets, __ATOMIC_RELAXED));
		break;
	case ElemExprKind::Limit:
		put_elem_limit(x.limit, w);
		break;
	case ElemExprKind::Quota:
		put_quota(x.quota, w);
		break;
	case ElemExprKind::Connlimit:
		put_connlimit(x.connlimit.limit, x.connlimit.flags, w);
		break;
	}
	w.nest_end(d);
	w.nest_end(e);
}

/* nft_set_elem_expr_dump: one expression as NFTA_SET_ELEM_EXPR, more as
 * NFTA_SET_ELEM_EXPRESSIONS. */
static void put_elem_exprs(const ElemExprs &x, AttrWriter &w)
{
	if (x.count == 1) {
		put_elem_expr(x.expr[0], kSetElemExpr, w);
	} else if (x.count > 1) {
		const size_t list = w.nest_begin(kSetElemExpressions);
		for (unsigned i = 0; i < x.count; i++)
			put_elem_expr(x.expr[i], kListElem, w);
		w.nest_end(list);
	}
}

/* One element's NFTA_LIST_ELEM nest; @dyn: the element frames added it
 * is, with its expressions. */
static void put_elem(const SetObj &s, const ElemView &e, AttrWriter &w,
		     const DynEntry *dyn = nullptr)
{
	const SetLayout &l = s.layout;
	const uint32_t flags = e.flags & ~ElemStore::kDead;
	const size_t elem = w.nest_begin(kListElem);
	if (!(flags & kSetElemFCatchall))
		put_value(w, kSetElemKey, e.key, l.key_len);
	if (e.key_end && l.concat && l.interval && !(flags & kSetElemFCatchall))
		put_value(w, kSetElemKeyEnd, e.key_end, l.key_len);
	if ((s.flags & kSetFMap) && !(flags & kSetElemFIntervalEnd)) {
		if (l.verdict_map)
			put_verdict(w, kSetElemData, e.verdict, static_cast<const ChainObj *>(e.chain));
		else if (e.data)
			put_value(w, kSetElemData, e.data, l.data_len);
	}
	if (dyn)
		put_elem_exprs(dyn->exprs, w);
	else if (e.exprs)
		put_elem_exprs(*e.exprs, w);
	if (s.obj_type && e.data && !(flags & kSetElemFIntervalEnd)) {
		const ObjObj *o;
		__builtin_memcpy(&o, e.data, sizeof(o));
		w.str(kSetElemObjref, o->name);
	}
	if (flags)
		w.be32(kSetElemFlags, flags);
	/* nf_tables_fill_setelem: the element's own timeout, and the time
	 * left, in milliseconds */
	if (e.timeout_ns)
		w.be64(kSetElemTimeout, e.timeout_ns / 1000000u);
	if (e.expires_ns) {
		const uint64_t now = xb_now_ns();
		w.be64(kSetElemExpiration, now < e.expires_ns ? (e.expires_ns - now) / 1000000u : 0);
	}
	if (e.userdata)
		w.put(kSetElemUserdata, e.userdata + 1, e.userdata[0]);
	w.nest_end(elem);
}

/*
 * nf_tables_fill_setelem and an element's own timeout: a set statement's
 * elements always carry one (NFT_SET_EXT_TIMEOUT). Linux before 6.12 dumps
 * it whenever it is there; 6.12 (4201f3938914, "set element timeout
 * update support") only when it is not the set's. See kernel_version.h.
 */
constexpr bool kDumpSetsOwnTimeout = kLinuxBefore612;

/* An element frames added, as the control plane views elements. */
static ElemView dyn_view(const SetObj &s, const uint8_t *key, const uint8_t *data,
			 uint64_t timeout_ns, uint64_t expires_ns)
{
	ElemView e{};
	e.key = key;
	e.data = s.layout.data_len ? data : nullptr;
	e.timeout_ns = kDumpSetsOwnTimeout || timeout_ns != s.timeout_ns ? timeout_ns : 0;
	e.expires_ns = expires_ns;
	return e;
}

bool fill_set_elem(const SetObj &s, uint32_t index, AttrWriter &w, const DynElemCopy *dyn)
{
	if (!dyn && index >= s.elems.count())
		return false;
	w.str(kSetElemListTable, s.table->name);
	w.str(kSetElemListSet, s.name);
	const size_t list = w.nest_begin(kSetElemListElements);
	if (w.full())
		return false;
	if (dyn)
		put_elem(s, dyn_view(s, dyn->key, dyn->data, dyn->timeout_ns, dyn->expires_ns), w);
	else
		put_elem(s, s.elems.at(index), w);
	w.nest_end(list);
	return !w.full();
}

bool fill_set_elems(const SetObj &s, uint32_t &from, AttrWriter &w)
{
	w.str(kSetElemListTable, s.table->name);
	w.str(kSetElemListSet, s.name);
	const size_t list = w.nest_begin(kSetElemListElements);
	if (w.full())
		return false;
	uint32_t written = 0;
	const uint64_t now = xb_now_ns();
	for (; from < s.elems.count(); from++) {
		const ElemView e = s.elems.at(from);
		if (e.flags & ElemStore::kDead)
			continue;	/* deleted by a batch not yet committed */
		if (elem_expired(e.expires_ns, now))
			continue;	/* gone, for a dump too */
		const size_t mark = w.len();
		put_elem(s, e, w);
		if (w.full()) {
			w.rewind(mark);
			break;
		}
		written++;
	}
	if (from >= s.elems.count() && !w.full() && s.dyn) {
		/* then the elements frames added, in bucket order: position
		 * count() + k is the k-th of them still live */
		uint32_t skip = from - s.elems.count();
		bool stopped = false;
		RcuReadGuard rcu;
		s.dyn->for_each_live(now, [&](const DynEntry &d) {
			if (stopped)
				return;
			if (skip) {
				skip--;
				return;
			}
			const size_t mark = w.len();
			put_elem(s,
				 dyn_view(s, d.key(), DynTable::data_of(*s.dyn, d), d.timeout_ns,
					  load_once(d.expires_ns)),
				 w, &d);
			if (w.full()) {
				w.rewind(mark);
				stopped = true;
				return;
			}
			written++;
			from++;
		});
		if (!stopped)
			from = kElemsDumped;
	} else if (from >= s.elems.count()) {
		from = kElemsDumped;
	}
	w.nest_end(list);
	return written > 0 || from == kElemsDumped;
}

bool fill_flowtable(const FlowtableObj &f, AttrWriter &w)
{
	w.str(kFlowtableTable, f.table->name);
	w.str(kFlowtableName, f.name);
	w.be64(kFlowtableHandle, f.handle);
	w.be32(kFlowtableUse, 0);
	w.be32(kFlowtableFlags, f.flags);
	if (f.hook.len) {
		const size_t start = w.len();
		w.put(kFlowtableHook, f.hook.data, f.hook.len);
		if (!w.full()) {
			uint8_t *hdr = w.data() + start;
			uint16_t type = kFlowtableHook | kNested;
			__builtin_memcpy(hdr + 2, &type, 2);
		}
	}
	return !w.full();
}

bool fill_obj(const ObjObj &o, AttrWriter &w, bool reset)
{
	uint64_t packets = 0, bytes = 0, consumed = 0;
	w.str(kObjTable, o.table->name);
	w.str(kObjName, o.name);
	w.be32(kObjType, o.type);
	w.be32(kObjUse, o.rule_uses);
	const size_t data = w.nest_begin(kObjData);
	if (o.type == kObjectCounter) {
		counter_read(o.counter, packets, bytes);
		w.be64(kCounterBytes, bytes);
		w.be64(kCounterPackets, packets);
	} else if (o.type == kObjectQuota) {
		consumed = put_quota(o.quota, w);
	} else {
		/* nft_limit_dump: the unit in seconds, the burst as defaulted */
		w.be64(kLimitRate, o.limit.rate);
		w.be64(kLimitUnit, o.limit.unit_s);
		w.be32(kLimitBurst, o.limit.burst);
		w.be32(kLimitType, o.limit.type);
		w.be32(kLimitFlags, o.limit.flags & kLimitFInv);
	}
	w.nest_end(data);
	w.be64(kObjHandle, o.handle);
	if (o.userdata.len)
		w.put(kObjUserdata, o.userdata.data, o.userdata.len);
	if (w.full())
		return false;
	/* nft_counter_obj_dump and nft_quota_obj_dump with reset: the values
	 * sent are taken away; they are runtime state, not the object's
	 * definition. */
	if (reset && o.type == kObjectCounter)
		counter_reset(const_cast<Counter &>(o.counter), packets, bytes);
	else if (reset)
		quota_reset(const_cast<Quota &>(o.quota), consumed);
	return true;
}

bool fill_gen(const Ruleset &rs, AttrWriter &w, uint32_t pid, const char *comm)
{
	w.be32(kGenId, rs.generation_id());
	if (comm) {
		w.be32(kGenProcPid, pid);
		w.str(kGenProcName, comm);
	}
	return !w.full();
}

/* ---- dumps ------------------------------------------------------------- */

namespace {

/* The object at index @n of @list, or nullptr: the walk a resumed dump
 * does when its saved object may be stale. */
template <typename List> auto *nth(const List &list, unsigned long n)
{
	decltype(&*list.begin()) found = nullptr;
	for (auto &o : list) {
		if (n-- == 0) {
			found = &o;
			break;
		}
	}
	return found;
}

/* The object after @o in @list, or nullptr. */
template <typename List, typename T> const T *after(const List &list, const T *o)
{
	auto it = list.iterator_to(*o);
	++it;
	return it == list.end() ? nullptr : &*it;
}

/* The first rule of @c or of a chain after it in its table, or nullptr. */
const RuleObj *first_rule_from(const TableObj &t, const ChainObj *c)
{
	for (; c; c = after(t.chains, c))
		if (!c->rules.empty())
			return &c->rules.front();
	return nullptr;
}

/* The rule at flat index @k of @t (its chains' rules in order). */
const RuleObj *nth_rule(const TableObj &t, unsigned long k)
{
	for (const ChainObj &c : t.chains)
		for (const RuleObj &r : c.rules)
			if (k-- == 0)
				return &r;
	return nullptr;
}

struct Cursor {
	const Ruleset &rs;
	unsigned long *pos;
	const char *name;	/* GetObj*: only objects of this name */
	uint32_t obj_filter;	/* GetObj*: only objects of this type (0: all) */

	/* Is the saved object (or nullptr: the table's end) still good? */
	bool valid() const { return pos[4] == rs.change_seq() + 1; }
	const void *saved() const { return reinterpret_cast<const void *>(pos[3]); }
	void save(const void *next)
	{
		pos[3] = reinterpret_cast<unsigned long>(next);
		pos[4] = static_cast<unsigned long>(rs.change_seq() + 1);
	}
	void drop() { pos[3] = pos[4] = 0; }
};

/* One object of @t at @pos; see dump_next. */
long dump_in_table(const TableObj &t, uint16_t get_type, Cursor &cur, AttrWriter &w,
		   uint16_t *obj_type)
{
	unsigned long *pos = cur.pos;
	bool ok;
	switch (get_type) {
	case kMsgGetTable:
		if (pos[1])
			return 0;
		*obj_type = kMsgNewTable;
		ok = fill_table(t, w);
		if (ok)
			pos[1]++;
		return ok ? long(w.len()) : -kEMSGSIZE;
	case kMsgGetChain: {
		const ChainObj *c = cur.valid() ? static_cast<const ChainObj *>(cur.saved())
						: nth(t.chains, pos[1]);
		if (!c)
			return 0;
		*obj_type = kMsgNewChain;
		if (!fill_chain(*c, w))
			return -kEMSGSIZE;
		cur.save(after(t.chains, c));
		break;
	}
	case kMsgGetSet: {
		const SetObj *s = cur.valid() ? static_cast<const SetObj *>(cur.saved())
					      : nth(t.sets, pos[1]);
		if (!s)
			return 0;
		*obj_type = kMsgNewSet;
		if (!fill_set(*s, w))
			return -kEMSGSIZE;
		cur.save(after(t.sets, s));
		break;
	}
	case kMsgGetSetElem: {
		/* one message per part of each set's elements; the cursor is
		 * the set at pos[1] */
		const SetObj *s = cur.valid() ? static_cast<const SetObj *>(cur.saved())
					      : nth(t.sets, pos[1]);
		for (; s; s = after(t.sets, s), pos[1]++, pos[2] = 0) {
			if (pos[2] == kElemsDumped ||
			    (pos[2] >= s->elems.count() && !(s->dyn && s->dyn->count())))
				continue;
			uint32_t from = uint32_t(pos[2]);
			*obj_type = kMsgNewSetElem;
			if (!fill_set_elems(*s, from, w) || from == pos[2]) {
				cur.save(s);
				return -kEMSGSIZE;
			}
			pos[2] = from;
			cur.save(s);
			return long(w.len());
		}
		cur.save(nullptr);
		return 0;
	}
	case kMsgGetObj:
	case kMsgGetObjReset: {
		const ObjObj *o = cur.valid() ? static_cast<const ObjObj *>(cur.saved())
					      : nth(t.objs, pos[1]);
		while (o && ((cur.name && !cstr_equal(o->name, cur.name)) ||
			     (cur.obj_filter && o->type != cur.obj_filter))) {
			o = after(t.objs, o);
			pos[1]++;
		}
		if (!o)
			return 0;
		*obj_type = kMsgNewObj;
		if (!fill_obj(*o, w, get_type == kMsgGetObjReset))
			return -kEMSGSIZE;
		cur.save(after(t.objs, o));
		break;
	}
	case kMsgGetFlowtable: {
		const FlowtableObj *f = cur.valid() ? static_cast<const FlowtableObj *>(cur.saved())
						    : nth(t.flowtables, pos[1]);
		if (!f)
			return 0;
		*obj_type = kMsgNewFlowtable;
		if (!fill_flowtable(*f, w))
			return -kEMSGSIZE;
		cur.save(after(t.flowtables, f));
		break;
	}
	case kMsgGetRule: {
		/* pos[1] counts the table's rules, chain by chain */
		const RuleObj *rule = cur.valid() ? static_cast<const RuleObj *>(cur.saved())
						  : nth_rule(t, pos[1]);
		if (!rule)
			return 0;
		const auto &rules = rule->chain->rules;
		auto it = rules.iterator_to(*rule);
		const RuleObj *prev = it == rules.begin() ? nullptr : &*--it;
		*obj_type = kMsgNewRule;
		if (!fill_rule(*rule, prev, w))
			return -kEMSGSIZE;
		const RuleObj *next = after(rules, rule);
		if (!next)
			next = first_rule_from(t, after(t.chains, rule->chain));
		cur.save(next);
		break;
	}
	default:
		return -kEOPNOTSUPP;
	}
	pos[1]++;
	return long(w.len());
}

} // namespace

long dump_next(const Ruleset &rs, uint16_t get_type, const char *table, unsigned long *pos,
	       AttrWriter &w, uint16_t *obj_type, const char *name, uint32_t obj_filter)
{
	if (get_type == kMsgGetGen) {
		if (pos[0])
			return 0;
		*obj_type = kMsgNewGen;
		if (!fill_gen(rs, w))
			return -kEMSGSIZE;
		pos[0] = 1;
		return long(w.len());
	}
	Cursor cur{rs, pos, name, obj_filter};
	for (;; pos[0]++, pos[1] = pos[2] = 0, cur.drop()) {
		const TableObj *t = nth(rs.tables(), pos[0]);
		if (!t)
			return 0;
		if (table && !cstr_equal(t->name, table))
			continue;
		const long r = dump_in_table(*t, get_type, cur, w, obj_type);
		if (r)
			return r;
	}
}

namespace {

/* An element nft_get_set_elem can answer with: live, not expired. */
bool elem_gettable(const ElemView &e, uint64_t now)
{
	return !(e.flags & ElemStore::kDead) && !elem_expired(e.expires_ns, now);
}

bool all_zero(const uint8_t *b, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * nft_rbtree_get, as Linux answers it (checked against 6.18): the element
 * with @key and the kind @want_end asks for; else for a start the nearest
 * element below @key if it starts a range (not when an interval end
 * stands at @key: the range before ends there), for an interval end the
 * nearest above it if it ends one (at one key a start and an end may both
 * stand: the kind asked for counts). nft's leading interval end at key 0
 * ends nothing and is never an answer. -1 if none.
 */
int64_t rbtree_get(const SetObj &s, const uint8_t *key, bool want_end, uint64_t now)
{
	const uint32_t klen = s.layout.key_len;
	int64_t near = -1;
	bool near_end = false, end_at_key = false;
	const uint8_t *near_key = nullptr;
	for (uint32_t i = 0; i < s.elems.count(); i++) {
		const ElemView e = s.elems.at(i);
		if (!elem_gettable(e, now) || (e.flags & kSetElemFCatchall))
			continue;
		const bool end = e.flags & kSetElemFIntervalEnd;
		if (end && all_zero(e.key, klen))
			continue;
		const int d = __builtin_memcmp(e.key, key, klen);
		if (d == 0) {
			if (end == want_end)
				return i;
			end_at_key |= end;
			continue;
		}
		/* below the key for a start, above it for an end */
		if (want_end ? d < 0 : d > 0)
			continue;
		const int c = near_key ? __builtin_memcmp(e.key, near_key, klen) : 0;
		const bool closer = !near_key || (want_end ? c < 0 : c > 0) ||
				    (c == 0 && end == want_end && near_end != want_end);
		if (closer) {
			near = i;
			near_end = end;
			near_key = e.key;
		}
	}
	if (end_at_key)
		return -1;
	return near >= 0 && near_end == want_end ? near : -1;
}

const TableObj *table_named(const Ruleset &rs, const Attr &name)
{
	for (const TableObj &t : rs.tables())
		if (attr_equals(name, t.name))
			return &t;
	return nullptr;
}

/* nft_get_set_elem for one requested element @elem of @s: its answer
 * written to @w, or an errno. */
long get_one_elem(const SetObj &s, const Attr &elem, AttrWriter &w, Extack *ack)
{
	Attr et[kSetElemExpressions + 1];
	if (!parse_nested(elem, et, kSetElemExpressions))
		return fail(ack, kEINVAL, "malformed set element");
	uint32_t flags = 0;
	if (et[kSetElemFlags].present() && !attr_be32(et[kSetElemFlags], flags))
		return fail(ack, kEINVAL, "element flags are a 32-bit value");
	if (flags & ~(kSetElemFIntervalEnd | kSetElemFCatchall))
		return fail(ack, kEOPNOTSUPP, "unknown element flags");
	if ((flags & kSetElemFIntervalEnd) && !(s.flags & kSetFInterval))
		return fail(ack, kEINVAL, "interval end in a set without intervals");
	const bool catchall = flags & kSetElemFCatchall;
	if (!et[kSetElemKey].present() && !catchall)
		return fail(ack, kEINVAL, "an element needs a key");
	const SetLayout &l = s.layout;
	uint8_t key[kSetKeyMax] = {}, key_end[kSetKeyMax] = {};
	uint32_t len;
	if (et[kSetElemKey].present()) {
		int err = parse_data_value(et[kSetElemKey], key, kSetKeyMax, len, ack);
		if (err)
			return err;
		if (len != l.key_len)
			return fail(ack, kEINVAL, "element key length does not match the set");
	}
	if (et[kSetElemKeyEnd].present()) {
		int err = parse_data_value(et[kSetElemKeyEnd], key_end, kSetKeyMax, len, ack);
		if (err)
			return err;
		if (len != l.key_len)
			return fail(ack, kEINVAL, "element key end length does not match the set");
	}
	const uint64_t now = xb_now_ns();
	int64_t at;
	if (catchall) {
		ElemView want{};
		want.flags = kSetElemFCatchall;
		at = s.elems.find_live(want);
	} else if (l.concat && l.interval) {
		/* nft_pipapo_get: the range holding the key */
		at = s.elems.find_range(key);
	} else if (l.interval) {
		at = rbtree_get(s, key, flags & kSetElemFIntervalEnd, now);
	} else {
		ElemView want{};
		want.key = key;
		at = s.elems.find_live(want);
	}
	if (at >= 0 && elem_gettable(s.elems.at(uint32_t(at)), now)) {
		if (!fill_set_elem(s, uint32_t(at), w))
			return -kEMSGSIZE;
		return long(w.len());
	}
	/* an element frames added (nft_dynset.h) is as much the set's */
	if (!catchall && !l.interval && s.dyn) {
		DynElemCopy found;
		bool there = false;
		{
			RcuReadGuard rcu;
			if (const DynEntry *d = s.dyn->find(key, now)) {
				__builtin_memcpy(found.key, d->key(), l.key_len);
				if (l.data_len)
					__builtin_memcpy(found.data, DynTable::data_of(*s.dyn, *d), l.data_len);
				found.timeout_ns = d->timeout_ns;
				found.expires_ns = load_once(d->expires_ns);
				there = true;
			}
		}
		if (there) {
			if (!fill_set_elem(s, 0, w, &found))
				return -kEMSGSIZE;
			return long(w.len());
		}
	}
	return fail(ack, kENOENT, "no such element");
}

} // namespace

long get_set_elem(const Ruleset &rs, const uint8_t *attrs, size_t len, uint32_t &next,
		  AttrWriter &w, uint16_t *obj_type, Extack *ack)
{
	Attr tb[kSetElemListSetId + 1];
	if (!parse_attrs(attrs, len, tb, kSetElemListSetId))
		return fail(ack, kEINVAL, "malformed request");
	if (!tb[kSetElemListTable].present())
		return fail(ack, kEINVAL, "elements need a table");
	const TableObj *t = table_named(rs, tb[kSetElemListTable]);
	if (!t)
		return fail(ack, kENOENT, "no such table");
	/* nft_set_lookup: by name only */
	if (!tb[kSetElemListSet].present())
		return fail(ack, kEINVAL, "elements need a set name");
	const SetObj *s = nullptr;
	for (const SetObj &o : t->sets)
		if (attr_equals(tb[kSetElemListSet], o.name))
			s = &o;
	if (!s)
		return fail(ack, kENOENT, "no such set");
	if (!tb[kSetElemListElements].present())
		return fail(ack, kEINVAL, "no elements");
	AttrWalker walk(tb[kSetElemListElements]);
	uint16_t type;
	Attr a;
	for (uint32_t i = 0; walk.next(type, a); i++) {
		if (i < next)
			continue;
		*obj_type = kMsgNewSetElem;
		const long r = get_one_elem(*s, a, w, ack);
		if (r > 0)
			next = i + 1;
		return r;
	}
	return walk.malformed() ? fail(ack, kEINVAL, "malformed element list") : 0;
}

bool fill_event(const Ruleset &rs, const CommitEvent &ev, AttrWriter &w, uint32_t pid,
		const char *comm)
{
	switch (ev.type) {
	case kMsgNewTable:
	case kMsgDelTable:
		return fill_table(*static_cast<const TableObj *>(ev.obj), w);
	case kMsgNewChain:
	case kMsgDelChain:
		return fill_chain(*static_cast<const ChainObj *>(ev.obj), w);
	case kMsgNewRule: {
		/* nf_tables_rule_notify: a new rule between two others names
		 * the one before it (NFTA_RULE_POSITION) */
		const auto &r = *static_cast<const RuleObj *>(ev.obj);
		const RuleObj *prev = nullptr;
		if (r.link.is_linked()) {
			const auto &list = r.chain->rules;
			auto it = list.iterator_to(r);
			auto next = it;
			++next;
			if (it != list.begin() && next != list.end())
				prev = &*--it;
		}
		return fill_rule(r, prev, w);
	}
	case kMsgDelRule:
		return fill_rule(*static_cast<const RuleObj *>(ev.obj), nullptr, w);
	case kMsgNewSet:
	case kMsgDelSet:
		return fill_set(*static_cast<const SetObj *>(ev.obj), w);
	case kMsgNewSetElem:
	case kMsgDelSetElem:
		return fill_set_elem(*static_cast<const SetObj *>(ev.obj), ev.elem, w, ev.dyn);
	case kMsgNewFlowtable:
	case kMsgDelFlowtable:
		return fill_flowtable(*static_cast<const FlowtableObj *>(ev.obj), w);
	case kMsgNewObj:
	case kMsgDelObj:
		return fill_obj(*static_cast<const ObjObj *>(ev.obj), w);
	case kMsgNewGen:
		return fill_gen(rs, w, pid, comm);
	default:
		return false;
	}
}

} // namespace xb::nft
