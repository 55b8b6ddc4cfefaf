// SPDX-License-Identifier: GPL-2.0
/*
 * nft_dynset.cc - set statements (nft_dynset) and the table of the elements
 * frames add (nft_dynset.h).
 *
 * The table is a fixed array of buckets sized from the set's bound, each an
 * RCU list. Adding and deleting take the table's lock; finding does not.
 * An expired element stays linked until a writer of its bucket, a delete
 * or a commit's collection unlinks it; no reader counts it.
 */
#include "nft_dynset.h"

#include "compiler.h"
#include "jhash.h"
#include "nft_eval.h"

namespace xb::nft {

namespace {

int invalid(Extack *ack, const char *msg)
{
	return fail(ack, kEINVAL, msg);
}

uint32_t round8(uint32_t n)
{
	return (n + 7u) & ~7u;
}

/* Buckets for a table of at most @bound elements: about two elements a
 * bucket when full, between 16 and 64k buckets. */
uint32_t buckets_for(uint32_t bound)
{
	uint32_t n = 16;
	while (n < 65536 && n * 2 < bound)
		n <<= 1;
	return n;
}

/* An element and what its ct count lists hold. */
void free_entry(DynEntry *e)
{
	elem_exprs_release(e->exprs);
	xb_free(e);
}

void free_entry_rcu(xb_rcu_head *head)
{
	free_entry(xb_container_of(head, DynEntry, rcu));
}

/* Whether @e holds a ct count whose list the GC pass at @now_ns leaves
 * empty (nft_connlimit_gc). The table's lock is held. */
bool connlimit_emptied(DynEntry &e, Conntrack *ct, uint64_t now_ns)
{
	bool empty = false;
	for (unsigned i = 0; i < e.exprs.count; i++)
		if (e.exprs.expr[i].kind == ElemExprKind::Connlimit &&
		    conn_list_gc(e.exprs.expr[i].connlimit.list, ct, now_ns))
			empty = true;
	return empty;
}

} // namespace

/*
 * One stateful expression of a set, a set statement or an element
 * (nft_set_elem_expr_alloc): an expression the set's elements carry.
 * nf_tables takes any stateful one; xbridge has counters, limits, quotas
 * and ct counts.
 */
int parse_elem_expr(const Attr &nest, ElemExpr &out, Extack *ack)
{
	Attr et[kExprData + 1];
	if (!parse_nested(nest, et, kExprData) || !et[kExprName].present())
		return invalid(ack, "malformed set statement expression");
	Attr tb[kLimitFlags + 1];
	Attr empty{};
	if (!parse_nested(et[kExprData].present() ? et[kExprData] : empty, tb, kLimitFlags))
		return invalid(ack, "malformed set statement expression");
	const Attr &name = et[kExprName];
	out = ElemExpr{};
	if (attr_equals(name, "counter")) {
		out.kind = ElemExprKind::Counter;
		if ((tb[kCounterPackets].present() &&
		     !attr_be64(tb[kCounterPackets], out.counter.packets)) ||
		    (tb[kCounterBytes].present() && !attr_be64(tb[kCounterBytes], out.counter.bytes)))
			return invalid(ack, "counter values are 64-bit");
		return 0;
	}
	if (attr_equals(name, "limit")) {
		Limit l;
		int err = limit_init(l, tb, ack);
		if (err)
			return err;
		out.kind = ElemExprKind::Limit;
		ElemLimit &e = out.limit;
		e.tokens = l.tokens_max;
		e.last_ns = 0;	/* a new element's bucket starts full */
		e.tokens_max = l.tokens_max;
		e.rate = l.rate;
		e.unit_s = l.unit_s;
		e.nsecs = l.nsecs;
		e.burst = l.burst;
		e.type = l.type;
		e.flags = l.flags;
		limit_fini(l);
		return 0;
	}
	if (attr_equals(name, "quota")) {
		out.kind = ElemExprKind::Quota;
		return quota_init(out.quota, tb, ack);
	}
	if (attr_equals(name, "connlimit")) {
		out.kind = ElemExprKind::Connlimit;
		return connlimit_parse(tb, out.connlimit.limit, out.connlimit.flags, ack);
	}
	static const char *const kStateful[] = {"last", "ct_count", "numgen_state"};
	for (const char *s : kStateful)
		if (attr_equals(name, s))
			return fail(ack, kEOPNOTSUPP,
				    "xbridge keeps counters, limits, quotas and ct counts in set elements");
	/* nft_set_elem_expr_alloc: a known expression that is not stateful
	 * is EOPNOTSUPP; one nf_tables has no module for, ENOENT */
	static const char *const kKnown[] = {
		"immediate", "cmp", "range", "bitwise", "byteorder", "payload", "meta", "lookup",
		"objref", "ct", "flow_offload", "log", "reject", "exthdr", "numgen", "hash",
		"notrack", "dynset",
	};
	for (const char *s : kKnown)
		if (attr_equals(name, s))
			return fail(ack, kEOPNOTSUPP, "only stateful expressions go into set elements");
	return fail(ack, kENOENT, "unknown expression");
}

int parse_elem_expr_list(const Attr &list, const ElemExprs *set, int past_set, ElemExprs &out,
			 Extack *ack)
{
	const bool match = set && set->count;
	AttrWalker w(list);
	uint16_t type;
	Attr a;
	out = ElemExprs{};
	while (w.next(type, a)) {
		if (out.count == kElemExprMax)
			return fail(ack, kE2BIG, "at most two stateful expressions");
		if (match && out.count == set->count)
			return fail(ack, past_set, "more expressions than the set's");
		if (type != kListElem)
			return invalid(ack, "expression list holds a non-element");
		if (int err = parse_elem_expr(a, out.expr[out.count], ack))
			return err;
		if (match && out.expr[out.count].kind != set->expr[out.count].kind)
			return fail(ack, kEOPNOTSUPP, "the expressions are not the set's kinds");
		out.count++;
	}
	if (w.malformed())
		return invalid(ack, "malformed expression list");
	if (match && out.count != set->count)
		return fail(ack, kEOPNOTSUPP, "fewer expressions than the set's");
	return 0;
}

void elem_exprs_instantiate(ElemExprs &dst, const ElemExprs &tmpl, uint64_t now_ns)
{
	dst = tmpl;
	for (unsigned i = 0; i < dst.count; i++) {
		ElemExpr &x = dst.expr[i];
		if (x.kind == ElemExprKind::Limit)
			x.limit.last_ns = now_ns;
		else if (x.kind == ElemExprKind::Connlimit)
			conn_list_init(x.connlimit.list, now_ns);
	}
}

void elem_exprs_release(ElemExprs &x)
{
	for (unsigned i = 0; i < x.count; i++)
		if (x.expr[i].kind == ElemExprKind::Connlimit)
			conn_list_free(x.expr[i].connlimit.list);
	x.count = 0;
}

bool elem_exprs_same_kinds(const ElemExprs &a, const ElemExprs &b)
{
	if (a.count != b.count)
		return false;
	for (unsigned i = 0; i < a.count; i++)
		if (a.expr[i].kind != b.expr[i].kind)
			return false;
	return true;
}

DynsetResult eval_elem_exprs(ElemExprs &exprs, xb_lock *lock, const Pkt &p)
{
	const uint32_t len = p.len - p.nhoff;
	for (unsigned i = 0; i < exprs.count; i++) {
		ElemExpr &x = exprs.expr[i];
		switch (x.kind) {
		case ElemExprKind::Counter:
			__atomic_fetch_add(&x.counter.packets, 1u, __ATOMIC_RELAXED);
			__atomic_fetch_add(&x.counter.bytes, uint64_t(len), __ATOMIC_RELAXED);
			break;
		case ElemExprKind::Limit: {
			ElemLimit &l = x.limit;
			const uint64_t cost = limit_cost(l.nsecs, l.rate, l.type, len);
			bool over;
			{
				LockGuard guard(lock);
				over = limit_bucket_over(l.tokens, l.last_ns, l.tokens_max, cost,
							 p.now_ns);
			}
			if (over != bool(l.flags & kLimitFInv))
				return DynsetResult::Break;
			break;
		}
		case ElemExprKind::Quota: {
			const uint64_t consumed = __atomic_add_fetch(&x.quota.consumed, uint64_t(len),
								     __ATOMIC_RELAXED);
			if ((consumed > x.quota.bytes) != bool(x.quota.flags & kQuotaFInv))
				return DynsetResult::Break;
			break;
		}
		case ElemExprKind::Connlimit: {
			ConnVerdict v;
			{
				LockGuard guard(lock);
				v = connlimit_eval(x.connlimit.list, x.connlimit.limit,
						   x.connlimit.flags, p);
			}
			if (v == ConnVerdict::Drop)
				return DynsetResult::Drop;
			if (v == ConnVerdict::Break)
				return DynsetResult::Break;
			break;
		}
		}
	}
	return DynsetResult::Match;
}

/* ---- the table ---------------------------------------------------------- */

DynTable *DynTable::create(const SetLayout &layout, uint32_t bound, Extack *ack)
{
	DynTable *t = static_cast<DynTable *>(xb_alloc(sizeof(DynTable), XB_ALLOC_SLEEP));
	if (!t)
		return fail(ack, kENOMEM, "out of memory for a dynamic set"), nullptr;
	const uint32_t n = buckets_for(bound);
	t->buckets_ = static_cast<DynEntry **>(xb_alloc(n * sizeof(DynEntry *), XB_ALLOC_SLEEP));
	t->lock_ = xb_lock_create();
	if (!t->buckets_ || !t->lock_) {
		if (t->buckets_)
			xb_free(t->buckets_);
		if (t->lock_)
			xb_lock_destroy(t->lock_);
		xb_free(t);
		return fail(ack, kENOMEM, "out of memory for a dynamic set"), nullptr;
	}
	t->mask_ = n - 1;
	t->seed_ = xb_random_u32();
	t->key_len_ = layout.key_len;
	t->data_len_ = layout.data_len;
	t->count_ = 0;
	return t;
}

void DynTable::destroy(DynTable *t)
{
	if (!t)
		return;
	for (uint32_t b = 0; b <= t->mask_; b++) {
		DynEntry *e = t->buckets_[b];
		while (e) {
			DynEntry *next = e->next;
			free_entry(e);
			e = next;
		}
	}
	xb_free(t->buckets_);
	xb_lock_destroy(t->lock_);
	xb_free(t);
}

uint32_t DynTable::hash_of(const uint8_t *key) const
{
	return jhash(key, key_len_, seed_);
}

bool DynTable::same_key(const DynEntry &e, const uint8_t *key, uint32_t hash) const
{
	return e.hash == hash && __builtin_memcmp(e.key(), key, key_len_) == 0;
}

const DynEntry *DynTable::find(const uint8_t *key, uint64_t now_ns) const
{
	const uint32_t h = hash_of(key);
	for (const DynEntry *e = rcu_deref(buckets_[h & mask_]); e; e = rcu_deref(e->next))
		if (same_key(*e, key, h) && !elem_expired(load_once(e->expires_ns), now_ns))
			return e;
	return nullptr;
}

void DynTable::unlink(DynEntry **link, DynEntry *e)
{
	rcu_publish(*link, e->next);
	__atomic_fetch_sub(&count_, 1u, __ATOMIC_RELAXED);
	xb_call_rcu(&e->rcu, free_entry_rcu);
}

DynEntry *DynTable::find_or_add(const Dynset &d, const uint8_t *key, const uint8_t *data,
				uint32_t static_count, uint64_t now_ns, Conntrack *ct, bool &added)
{
	added = false;
	DynEntry *found = const_cast<DynEntry *>(find(key, now_ns));
	if (found)
		return found;
	/* nft_dynset_new: room in the set's bound (its control-plane elements
	 * count too), then the element. Expired elements count until they
	 * are collected: a full set collects a slice first. */
	if (d.size && count() + static_count >= d.size) {
		collect_slice(kFullSlice, now_ns, ct);
		if (count() + static_count >= d.size)
			return nullptr;
	}
	const uint32_t size = sizeof(DynEntry) + round8(key_len_) + data_len_;
	DynEntry *e = static_cast<DynEntry *>(xb_alloc(size, XB_ALLOC_ATOMIC));
	if (!e)
		return nullptr;
	const uint32_t h = hash_of(key);
	e->hash = h;
	__builtin_memcpy(e->key(), key, key_len_);
	if (d.map)
		__builtin_memcpy(e->key() + round8(key_len_), data, data_len_);
	e->timeout_ns = d.timeout_ns;
	e->expires_ns = d.timeout_ns ? now_ns + d.timeout_ns : 0;
	elem_exprs_instantiate(e->exprs, d.exprs, now_ns);

	LockGuard guard(lock_);
	/* Another CPU may have added the key meanwhile (nft_rhash_update's
	 * race): that one stands. Expired elements of the bucket go. */
	DynEntry **link = &buckets_[h & mask_];
	for (DynEntry *cur = *link; cur; cur = *link) {
		if (elem_expired(load_once(cur->expires_ns), now_ns)) {
			unlink(link, cur);
			continue;
		}
		if (same_key(*cur, key, h)) {
			xb_free(e);
			return cur;
		}
		link = &cur->next;
	}
	collect_locked(kInsertSlice, now_ns, ct);
	if (d.size && count() + static_count >= d.size) {
		xb_free(e);
		return nullptr;
	}
	e->next = buckets_[h & mask_];
	rcu_publish(buckets_[h & mask_], e);
	__atomic_fetch_add(&count_, 1u, __ATOMIC_RELAXED);
	added = true;
	return e;
}

void DynTable::sweep_bucket(uint32_t b, uint64_t now_ns, Conntrack *ct)
{
	DynEntry **link = &buckets_[b & mask_];
	for (DynEntry *cur = *link; cur; cur = *link) {
		if (elem_expired(load_once(cur->expires_ns), now_ns) ||
		    (ct && connlimit_emptied(*cur, ct, now_ns)))
			unlink(link, cur);
		else
			link = &cur->next;
	}
}

void DynTable::collect_locked(uint32_t buckets, uint64_t now_ns, Conntrack *ct)
{
	for (uint32_t i = 0; i < buckets; i++)
		sweep_bucket(gc_cursor_++, now_ns, ct);
}

void DynTable::collect_slice(uint32_t buckets, uint64_t now_ns, Conntrack *ct)
{
	LockGuard guard(lock_);
	collect_locked(buckets, now_ns, ct);
}

bool DynTable::remove(const uint8_t *key, uint64_t now_ns)
{
	const uint32_t h = hash_of(key);
	LockGuard guard(lock_);
	DynEntry **link = &buckets_[h & mask_];
	for (DynEntry *cur = *link; cur; cur = *link) {
		if (same_key(*cur, key, h) && !elem_expired(load_once(cur->expires_ns), now_ns)) {
			unlink(link, cur);
			return true;
		}
		link = &cur->next;
	}
	return false;
}

void DynTable::purge_expired(uint64_t now_ns)
{
	constexpr uint32_t kSlice = 256;
	for (uint32_t b = 0; b <= mask_; b += kSlice) {
		LockGuard guard(lock_);
		for (uint32_t i = b; i < b + kSlice && i <= mask_; i++)
			sweep_bucket(i, now_ns);
	}
}

/* ---- the statement ------------------------------------------------------ */

/* nft_dynset_init's checks, in its order. */
int parse_dynset(const Attr *tb, Resolver &res, Insn &in, ParsedRule &out, Extack *ack)
{
	if (!tb[kDynsetSetName].present() || !tb[kDynsetOp].present() ||
	    !tb[kDynsetSregKey].present())
		return invalid(ack, "a set statement needs a set, an operation and a key register");
	uint32_t flags = 0;
	if (tb[kDynsetFlags].present()) {
		if (!attr_be32(tb[kDynsetFlags], flags))
			return invalid(ack, "set statement flags are a 32-bit value");
		if (flags & ~(kDynsetFInv | kDynsetFExpr))
			return fail(ack, kEOPNOTSUPP, "unknown set statement flags");
	}
	char name[kNameMax];
	if (!attr_string(tb[kDynsetSetName], name, sizeof(name)))
		return invalid(ack, "bad set name");
	uint32_t id;
	const bool has_id = tb[kDynsetSetId].present();
	if (has_id && !attr_be32(tb[kDynsetSetId], id))
		return invalid(ack, "set id is not a 32-bit value");
	void *set = res.set(name, has_id ? &id : nullptr);
	if (!set)
		return fail(ack, kENOENT, "no such set");

	DynsetTarget t{};
	res.dynset_target(set, t);
	const SetLayout &l = *t.layout;
	if (t.flags & kSetFObject)
		return fail(ack, kEOPNOTSUPP, "a set statement cannot write an object map");
	/* only nft_set_rhash has an update operation: no intervals, no
	 * bitmap (keys of 2 bytes at most) or fixed hash (a sized set) unless
	 * the set asked for a dynamic or timeout one */
	const bool rhash = !(t.flags & kSetFInterval) &&
			   ((t.flags & (kSetFEval | kSetFTimeout)) || (!*t.size && l.key_len > 2));
	if (!rhash)
		return fail(ack, kEOPNOTSUPP, "this set's kind cannot be written by a set statement");
	if (t.flags & kSetFConstant)
		return fail(ack, kEBUSY, "the set is constant");

	Dynset *d = static_cast<Dynset *>(xb_alloc(sizeof(Dynset), XB_ALLOC_SLEEP));
	if (!d)
		return fail(ack, kENOMEM, "out of memory for a set statement");
	out.plain[out.count_plain++] = d;	/* freed with the rule from here on */
	uint32_t op;
	if (!attr_be32(tb[kDynsetOp], op))
		return invalid(ack, "set statement operation is a 32-bit value");
	if (op > kDynsetOpDelete)
		return fail(ack, kEOPNOTSUPP, "unknown set statement operation");
	d->op = op;
	d->invert = flags & kDynsetFInv;
	if (tb[kDynsetTimeout].present()) {
		if (!(t.flags & kSetFTimeout))
			return fail(ack, kEOPNOTSUPP, "a timeout needs a set with timeouts");
		int err;
		if ((err = parse_msecs(tb[kDynsetTimeout], d->given_timeout_ns, ack)))
			return err;
	}
	int err;
	if ((err = load_register(tb[kDynsetSregKey], l.key_len, d->sreg_key, ack)))
		return err;
	const bool map = t.flags & kSetFMap;
	if (tb[kDynsetSregData].present()) {
		if (!map)
			return fail(ack, kEOPNOTSUPP, "data for a set, not a map");
		if (l.verdict_map)
			return fail(ack, kEOPNOTSUPP, "a set statement cannot write a verdict map");
		if ((err = load_register(tb[kDynsetSregData], l.data_len, d->sreg_data, ack)))
			return err;
	} else if (map) {
		return invalid(ack, "a map's set statement needs data");
	}
	const bool has_exprs = tb[kDynsetExpr].present() || tb[kDynsetExpressions].present();
	if (has_exprs && !(t.flags & kSetFEval))
		return invalid(ack, "expressions in the elements of a set that is not dynamic");
	/* nft_dynset_init: the statement's expressions are the set's kinds
	 * in the set's order, if the set declares any; a statement that
	 * names none gives its elements the set's */
	const ElemExprs &set_exprs = *t.exprs;
	ElemExprs &ex = d->exprs;
	if (tb[kDynsetExpr].present()) {
		if ((err = parse_elem_expr(tb[kDynsetExpr], ex.expr[0], ack)))
			return err;
		ex.count = 1;
		if (set_exprs.count > 1 ||
		    (set_exprs.count == 1 && set_exprs.expr[0].kind != ex.expr[0].kind))
			return fail(ack, kEOPNOTSUPP, "the statement's expression is not the set's");
	} else if (tb[kDynsetExpressions].present()) {
		if (!(flags & kDynsetFExpr))
			return invalid(ack, "expressions without their flag");
		if ((err = parse_elem_expr_list(tb[kDynsetExpressions], &set_exprs, kEINVAL, ex, ack)))
			return err;
	} else {
		ex = set_exprs;
	}

	/* a ct count in the elements wants conntrack (nf_ct_netns_get); it
	 * collects its elements itself, which nft_dynset_init refuses in a
	 * set whose elements time out (an NFT_EXPR_GC expression) */
	for (unsigned i = 0; i < ex.count; i++) {
		if (ex.expr[i].kind != ElemExprKind::Connlimit)
			continue;
		if (t.flags & kSetFTimeout)
			return fail(ack, kEOPNOTSUPP, "ct count in the elements of a set with timeouts");
		out.has_ct = true;
	}

	/* bound: nf_tables_bind_set, then the default size */
	if (*t.size == 0)
		*t.size = kDynsetDefaultSize;
	if (!*t.table && !(*t.table = DynTable::create(l, *t.size, ack)))
		return -kENOMEM;
	d->set = set;
	d->map = map;
	d->key_len = l.key_len;
	d->data_len = map ? l.data_len : 0;
	d->size = *t.size;
	d->timeout_ns = (t.flags & kSetFTimeout) ? (d->given_timeout_ns ? d->given_timeout_ns
									    : t.timeout_ns)
						 : 0;
	in.op = Op::Dynset;
	in.sreg = d->sreg_key;
	in.flags = d->invert;
	in.len = uint8_t(l.key_len);
	in.dreg = map ? d->sreg_data : 0;
	in.size = uint8_t(d->data_len);
	in.ref = d;
	return 0;
}

DynsetResult eval_dynset(const Insn &in, const SetIndex &index, const uint32_t *regs,
			 const Pkt &p)
{
	constexpr DynsetResult kMatch = DynsetResult::Match, kBreak = DynsetResult::Break;
	const Dynset &d = *static_cast<const Dynset *>(in.ref);
	DynTable *t = const_cast<DynTable *>(index.dynamic());
	const uint8_t *key = reinterpret_cast<const uint8_t *>(&regs[d.sreg_key]);
	if (d.op == kDynsetOpDelete) {
		t->remove(key, p.now_ns);
		return kMatch;	/* nft_dynset_eval: a delete never breaks */
	}
	/* An element the control plane added is found, not added again (its
	 * expressions run; its expiry is the generation's). */
	SetHit hit;
	if (index.lookup_static(key, hit, p.now_ns)) {
		if (hit.exprs) {
			const DynsetResult r = eval_elem_exprs(*hit.exprs, hit.exprs_lock, p);
			if (r != kMatch)
				return r;
		}
		return d.invert ? kBreak : kMatch;
	}
	bool added;
	DynEntry *e = t->find_or_add(d, key, reinterpret_cast<const uint8_t *>(&regs[d.sreg_data]),
				     index.size(), p.now_ns, p.conntrack, added);
	if (!e)
		return d.invert ? kMatch : kBreak;	/* full, or no memory: NFT_BREAK */
	/* nft_dynset_eval: an update restarts an expiring element's clock
	 * with the statement's timeout, else the set's (none: now) */
	if (!added && d.op == kDynsetOpUpdate && load_once(e->expires_ns))
		store_once(e->expires_ns, p.now_ns + d.timeout_ns);
	const DynsetResult r = t->eval_exprs(*e, p);
	if (r != kMatch)
		return r;
	return d.invert ? kBreak : kMatch;
}

} // namespace xb::nft
