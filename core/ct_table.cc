// SPDX-License-Identifier: GPL-2.0
/*
 * ct_table.cc - the conntrack table (see ct_table.h for ownership and
 * locking). Writers hold the table lock; readers walk chains under RCU.
 */
#include "ct_table.h"

#include <stddef.h>

namespace xb {

namespace {

/* nf_conntrack_core.c NF_CT_EVICTION_RANGE: buckets early_drop scans. */
constexpr uint32_t kEvictionRange = 8;

/*
 * The entries' object cache, shared by every table (nf_conntrack_cachep):
 * set by the first init(), cleared by destroy_entry_cache(). Tables are
 * published after it is set and gone before it is cleared, so the datapath
 * and the call_rcu frees read it without ordering of their own.
 */
xb_obj_cache *g_entry_cache;

xb_obj_cache *entry_cache()
{
	return load_once(g_entry_cache);
}

/*
 * Control: the cache, created if this is the first table. The kernel
 * creates tables under RTNL; two inits racing elsewhere (userspace) each
 * create one, and the one that loses the exchange destroys its own.
 */
xb_obj_cache *entry_cache_get()
{
	xb_obj_cache *c = __atomic_load_n(&g_entry_cache, __ATOMIC_ACQUIRE);
	if (c)
		return c;
	c = xb_obj_cache_create("xbridge_ct", sizeof(CtEntry));
	if (!c)
		return nullptr;
	xb_obj_cache *cur = nullptr;
	if (__atomic_compare_exchange_n(&g_entry_cache, &cur, c, false, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return c;
	xb_obj_cache_destroy(c);
	return cur;
}

inline void publish_link(uintptr_t &l, uintptr_t v)
{
	__atomic_store_n(&l, v, __ATOMIC_RELEASE);
}

/* The tuple an entry is hashed under in direction @dir. */
CtTuple dir_tuple(const CtEntry &e, unsigned dir)
{
	if (dir == 0)
		return e.tuple;
	CtTuple inv;
	ct_invert_tuple(e.tuple, inv);	/* always invertible: checked at creation */
	return inv;
}

} // namespace

/* Out of line: the lookups off the hit path (ICMP errors, later
 * fragments, connlimit, the control path) share one copy of the walk. */
CtEntry *CtTable::lookup(const CtTuple &key, uint32_t now, uint8_t *dir)
{
	return lookup_in(key, bucket_of(key), now, dir);
}

int CtTable::init(uint32_t buckets, uint32_t max, Extack *ack)
{
	if (buckets == 0 || buckets > kMaxBuckets)
		return fail(ack, kERANGE, "conntrack bucket count out of range");
	const uint32_t n = buckets;
	if (!entry_cache_get())
		return fail(ack, kENOMEM, "no memory for the conntrack entry cache");
	xb_lock *lock = xb_lock_create();
	if (!lock)
		return fail(ack, kENOMEM, "no memory for the conntrack lock");
	auto *b = static_cast<uintptr_t *>(xb_alloc(sizeof(uintptr_t) * n, XB_ALLOC_SLEEP));
	if (!b) {
		xb_lock_destroy(lock);
		return fail(ack, kENOMEM, "no memory for the conntrack table");
	}
	if (!stats_.init(XB_ALLOC_SLEEP)) {
		xb_free(b);
		xb_lock_destroy(lock);
		return fail(ack, kENOMEM, "no memory for the conntrack counters");
	}
	buckets_ = b;
	nbuckets_ = n;
	seed_ = ((uint64_t(xb_random_u32()) << 32) | xb_random_u32()) | 1;
	lock_ = lock;
	count_ = 0;
	max_ = max;
	{
		LockGuard guard(lock_);	/* unshared yet: taken for the checked rule */
		gc_cursor_ = 0;
	}
	return 0;
}

void CtTable::fini()
{
	if (!buckets_)
		return;
	/* Collect first (through the unused rcu heads), free after: a chain
	 * can run through an entry's other link after its own. */
	CtEntry *list = nullptr;
	for (uint32_t b = 0; b < nbuckets_; b++) {
		for (uintptr_t l = buckets_[b]; l; l = link_entry(l)->next[l & 1]) {
			if (l & 1)
				continue;	/* each entry once, from its original link */
			CtEntry *e = link_entry(l);
			static_assert(sizeof(e->rcu) >= sizeof(list), "a list link fits in an rcu head");
			__builtin_memcpy(&e->rcu, &list, sizeof(list));
			list = e;
		}
	}
	xb_obj_cache *cache = entry_cache();
	while (list) {
		CtEntry *next;
		__builtin_memcpy(&next, &list->rcu, sizeof(next));
		xb_obj_cache_free(cache, list);
		list = next;
	}
	xb_free(buckets_);
	buckets_ = nullptr;
	stats_.fini();
	xb_lock_destroy(lock_);
	lock_ = nullptr;
	count_ = 0;
}

void CtTable::destroy_entry_cache()
{
	xb_obj_cache_destroy(__atomic_exchange_n(&g_entry_cache, nullptr, __ATOMIC_ACQ_REL));
}

CtEntry *CtTable::alloc_unconfirmed(const CtTuple &orig, uint32_t now)
{
	const uint32_t n = __atomic_add_fetch(&count_, 1, __ATOMIC_RELAXED);
	const uint32_t max = load_once(max_);
	if (max && xb_unlikely(n > max) && !early_drop(bucket_of(orig), now)) {
		__atomic_sub_fetch(&count_, 1, __ATOMIC_RELAXED);
		return nullptr;
	}
	auto *e = static_cast<CtEntry *>(xb_obj_cache_alloc(entry_cache(), XB_ALLOC_ATOMIC));
	if (!e) {
		__atomic_sub_fetch(&count_, 1, __ATOMIC_RELAXED);
		return nullptr;
	}
	e->tuple = orig;
	return e;
}

void CtTable::free_unconfirmed(CtEntry *e)
{
	__atomic_sub_fetch(&count_, 1, __ATOMIC_RELAXED);
	xb_obj_cache_free(entry_cache(), e);
}

bool CtTable::early_drop(uint32_t bucket, uint32_t now)
{
	RcuReadGuard rcu;
	LockGuard guard(lock_);
	for (uint32_t i = 0; i < kEvictionRange; i++) {
		unsigned drops = 0;
		uintptr_t l = buckets_[(bucket + i) % nbuckets_];
		while (l) {
			CtEntry *e = link_entry(l);
			l = e->next[l & 1];
			const uint16_t st = e->status;
			if (st & kCtDying)
				continue;
			if (ct_expired(*e, now)) {
				remove_locked(e);
				continue;
			}
			if (st & (kCtAssured | kCtOffload))
				continue;
			remove_locked(e);
			drops++;
		}
		if (drops) {
			counter_add(stats_.this_cpu()->early_drop, drops);
			return true;
		}
	}
	return false;
}

bool CtTable::confirm(CtEntry *e, uint32_t now)
{
	const CtTuple t0 = e->tuple;
	const CtTuple t1 = dir_tuple(*e, 1);
	const uint32_t b0 = bucket_of(t0), b1 = bucket_of(t1);
	RcuReadGuard rcu;
	LockGuard guard(lock_);
	/* An equal entry already in (either tuple, either direction)? */
	for (int pass = 0; pass < 2; pass++) {
		const CtTuple &t = pass ? t1 : t0;
		CtTuple inv;
		const bool has_inv = ct_invert_tuple(t, inv);
		uintptr_t l = buckets_[pass ? b1 : b0];
		while (l) {
			CtEntry *x = link_entry(l);
			const unsigned d = l & 1;
			l = x->next[d];
			if (x->status & kCtDying)
				continue;
			if ((d == 0 || has_inv) && x->tuple == (d ? inv : t)) {
				if (ct_expired(*x, now)) {
					remove_locked(x);
					continue;
				}
				CtStats *s = stats_.this_cpu();
				counter_add(s->insert_failed, 1);
				counter_add(s->drop, 1);
				__atomic_sub_fetch(&count_, 1, __ATOMIC_RELAXED);
				xb_obj_cache_free(entry_cache(), e);
				return false;
			}
		}
	}
	e->set_status(kCtConfirmed);
	e->next[0] = buckets_[b0];
	publish_link(buckets_[b0], make_link(e, 0));
	e->next[1] = buckets_[b1];
	publish_link(buckets_[b1], make_link(e, 1));
	counter_add(stats_.this_cpu()->insert, 1);
	sink_(CtEventType::New, *e);
	return true;
}

void CtTable::unlink_locked(CtEntry *e)
{
	for (unsigned d = 0; d < 2; d++) {
		uintptr_t *pp = &buckets_[bucket_of(dir_tuple(*e, d))];
		const uintptr_t me = make_link(e, d);
		while (*pp && *pp != me)
			pp = &link_entry(*pp)->next[*pp & 1];
		if (*pp == me)
			store_once(*pp, e->next[d]);
	}
}

void CtTable::remove_locked(CtEntry *e)
{
	/* DYING first, then OFFLOAD: see FlowTable::add() for the other side. */
	__atomic_fetch_or(&e->status, uint16_t(kCtDying), __ATOMIC_SEQ_CST);
	if ((__atomic_load_n(&e->status, __ATOMIC_SEQ_CST) & kCtOffload) && offload_sink_.fn)
		offload_sink_.fn(offload_sink_.ctx, *e);
	unlink_locked(e);
	__atomic_sub_fetch(&count_, 1, __ATOMIC_RELAXED);
	sink_(CtEventType::Destroy, *e);
	xb_call_rcu(&e->rcu, free_rcu);
}

void CtTable::free_rcu(xb_rcu_head *head)
{
	xb_obj_cache_free(entry_cache(), xb_container_of(head, CtEntry, rcu));
}

void CtTable::kill(CtEntry *e)
{
	LockGuard guard(lock_);
	const uint16_t st = e->status;
	if ((st & kCtConfirmed) && !(st & kCtDying))
		remove_locked(e);
}

unsigned CtTable::gc_slice(uint32_t now, uint32_t max_buckets, bool *wrapped)
{
	unsigned removed = 0;
	bool wrap = false;
	RcuReadGuard rcu;
	LockGuard guard(lock_);
	uint32_t b = gc_cursor_;
	for (uint32_t i = 0; i < max_buckets && i < nbuckets_; i++) {
		uintptr_t l = buckets_[b];
		while (l) {
			CtEntry *e = link_entry(l);
			l = e->next[l & 1];
			if (!(e->status & kCtDying) && ct_expired(*e, now)) {
				remove_locked(e);
				removed++;
			}
		}
		if (++b == nbuckets_) {
			b = 0;
			wrap = true;
		}
	}
	gc_cursor_ = b;
	if (wrapped)
		*wrapped = wrap;
	return removed;
}

static bool filter_matches(const CtEntry &e, const CtFilter &f)
{
	if (f.zone >= 0 && e.tuple.zone != uint16_t(f.zone))
		return false;
	if (f.match_mark && ((load_once(e.mark) & f.mark_mask) != (f.mark & f.mark_mask)))
		return false;
	return true;
}

unsigned CtTable::flush(const CtFilter &f)
{
	unsigned removed = 0;
	RcuReadGuard rcu;
	LockGuard guard(lock_);
	for (uint32_t b = 0; b < nbuckets_; b++) {
		uintptr_t l = buckets_[b];
		while (l) {
			CtEntry *e = link_entry(l);
			l = e->next[l & 1];
			if (!(e->status & kCtDying) && filter_matches(*e, f)) {
				remove_locked(e);
				removed++;
			}
		}
	}
	return removed;
}

int CtTable::del(const CtTuple &t, const CtFilter &f, Extack *ack)
{
	const int err = ct_tuple_check(t, ack);
	if (err)
		return err;
	CtTuple inv;
	const bool has_inv = ct_invert_tuple(t, inv);
	RcuReadGuard rcu;
	LockGuard guard(lock_);
	for (uintptr_t l = buckets_[bucket_of(t)]; l;) {
		CtEntry *e = link_entry(l);
		const unsigned d = l & 1;
		l = e->next[d];
		if ((e->status & kCtDying) || !((d == 0 || has_inv) && e->tuple == (d ? inv : t)))
			continue;
		if (!filter_matches(*e, f))
			return fail(ack, kENOENT, "conntrack entry does not match the filter");
		remove_locked(e);
		return 0;
	}
	return fail(ack, kENOENT, "no such conntrack entry");
}

bool CtTable::stats_cpu(unsigned cpu, CtStats &out) const
{
	const CtStats *s = stats_.cpu(cpu);
	if (!s)
		return false;
	out.found = load_once(s->found);
	out.invalid = load_once(s->invalid);
	out.insert = load_once(s->insert);
	out.insert_failed = load_once(s->insert_failed);
	out.drop = load_once(s->drop);
	out.early_drop = load_once(s->early_drop);
	out.error = load_once(s->error);
	out.search_restart = load_once(s->search_restart);
	out.clash_resolve = load_once(s->clash_resolve);
	out.chaintoolong = load_once(s->chaintoolong);
	return true;
}

CtStats CtTable::stats_sum() const
{
	CtStats sum = {};
	for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++) {
		CtStats s;
		if (!stats_cpu(cpu, s))
			continue;
		sum.found += s.found;
		sum.invalid += s.invalid;
		sum.insert += s.insert;
		sum.insert_failed += s.insert_failed;
		sum.drop += s.drop;
		sum.early_drop += s.early_drop;
		sum.error += s.error;
		sum.search_restart += s.search_restart;
		sum.clash_resolve += s.clash_resolve;
		sum.chaintoolong += s.chaintoolong;
	}
	return sum;
}

} // namespace xb
