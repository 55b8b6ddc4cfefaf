// SPDX-License-Identifier: GPL-2.0
/*
 * fdb.cc - the forwarding database.
 *
 * Ownership and locking as in fdb.h: one writer lock, lock-free RCU readers,
 * entries freed by call_rcu, resizes in control context through the
 * second chain link. Every change to an entry's flags, its linkage, or (on
 * roam and user change) its destination happens under the lock; the
 * datapath writes only the two timestamps and promotes the destination by
 * compare-and-swap.
 */
#include "fdb.h"

#include <new>

#include "port.h"

namespace xb {

namespace {

constexpr uint32_t kMinBuckets = 256;
constexpr uint32_t kMaxBuckets = 1u << 22;

uint32_t roundup_pow2(uint32_t n)
{
	if (n <= 1)
		return 1;
	return 1u << (32 - __builtin_clz(n - 1));
}

FdbEntry *entry_of(xb_rcu_head *head)
{
	return xb_container_of(head, FdbEntry, rcu);
}

} // namespace

Fdb::Table *Fdb::table_alloc(uint32_t buckets, uint8_t link, xb_alloc_ctx ctx)
{
	size_t size = sizeof(Table) + size_t(buckets) * sizeof(FdbEntry *);
	auto *t = static_cast<Table *>(xb_alloc(size, ctx));
	if (!t)
		return nullptr;
	t->mask = buckets - 1;
	t->link = link;
	t->shift = uint8_t(64 - __builtin_ctz(buckets));
	t->seed = ((uint64_t(xb_random_u32()) << 32) | xb_random_u32()) | 1;
	return t;
}

int Fdb::init(xb_lock *lock, FdbEventSink sink, FdbGrowSink grow)
{
	grow_ = grow;
	table_.init(table_alloc(kMinBuckets, 0, XB_ALLOC_SLEEP));
	if (!table_.writer())
		return -kENOMEM;
	lock_ = lock;
	sink_ = sink;
	return 0;
}

void Fdb::fini()
{
	Table *t = table_.writer();
	if (!t)
		return;
	for (uint32_t b = 0; b <= t->mask; b++) {
		FdbEntry *e = t->bucket[b];
		while (e) {
			FdbEntry *next = e->chain[t->link];
			e->~FdbEntry();
			xb_free(e);
			e = next;
		}
	}
	xb_free(t);
	table_.init(nullptr);
	LockGuard guard(lock_);	/* no other user left: taken for the checked rule */
	count_ = 0;
	n_learned_ = 0;
}

FdbEntry *Fdb::find_locked(uint64_t key) const
{
	const Table *t = table_.writer();
	for (FdbEntry *e = t->bucket[bucket_of(t, key)]; e; e = e->chain[t->link])
		if (e->key == key)
			return e;
	return nullptr;
}

void Fdb::notify(FdbEventType type, FdbReason reason, const FdbEntry *e,
		 Port *old_port) const
{
	/* Every change and delete is notified (under the lock): a flow that
	 * cached this entry's port is stale from here on. */
	if (xb_unlikely(e->flow_pinned) && type != FdbEventType::Created && flow_gen_)
		__atomic_fetch_add(flow_gen_, 1, __ATOMIC_RELAXED);
	if (!sink_.fn)
		return;
	FdbEvent ev;
	ev.type = type;
	ev.reason = reason;
	ev.mac = e->mac();
	ev.vid = e->vid();
	ev.flags = uint16_t(e->flags & ~kFdbUnlinked);
	ev.port = e->destination().port();
	ev.old_port = old_port;
	sink_.fn(sink_.ctx, ev);
}

FdbEntry *Fdb::create_locked(uint64_t key, FdbDest dest, uint16_t flags, uint32_t now)
{
	void *mem = xb_alloc(sizeof(FdbEntry), XB_ALLOC_ATOMIC);
	if (!mem)
		return nullptr;
	auto *e = new (mem) FdbEntry();
	e->key = key;
	e->dest = dest.word();
	e->used = now;
	e->updated = now;
	e->flags = flags;

	Table *t = table_.writer();
	uint32_t b = bucket_of(t, key);
	e->chain[t->link] = t->bucket[b];
	rcu_publish(t->bucket[b], e);
	store_once(count_, count_ + 1);
	if (flags & kFdbDynamicLearned)
		store_once(n_learned_, n_learned_ + 1);
	/* A flood of new sources must not pile into the buckets until the
	 * next ageing run: ask for the resize now. */
	if (xb_unlikely(count_ > 2 * (t->mask + 1)) && t->mask + 1 < kMaxBuckets &&
	    !grow_asked_ && grow_.fn) {
		grow_asked_ = true;
		grow_.fn(grow_.ctx);
	}
	return e;
}

void Fdb::set_flags_locked(FdbEntry *e, uint16_t flags)
{
	if ((e->flags & kFdbDynamicLearned) && !(flags & kFdbDynamicLearned))
		store_once(n_learned_, n_learned_ - 1);
	else if (!(e->flags & kFdbDynamicLearned) && (flags & kFdbDynamicLearned))
		store_once(n_learned_, n_learned_ + 1);
	store_once(e->flags, flags);
}

void Fdb::unlink_locked(FdbEntry *e)
{
	Table *t = table_.writer();
	FdbEntry **pp = &t->bucket[bucket_of(t, e->key)];

	while (*pp && *pp != e)
		pp = &(*pp)->chain[t->link];
	if (*pp)
		rcu_publish(*pp, e->chain[t->link]);
}

void Fdb::free_entry_rcu(xb_rcu_head *head)
{
	FdbEntry *e = entry_of(head);
	e->~FdbEntry();
	xb_free(e);
}

void Fdb::delete_locked(FdbEntry *e, FdbReason reason)
{
	unlink_locked(e);
	store_once(count_, count_ - 1);
	if (e->flags & kFdbDynamicLearned)
		store_once(n_learned_, n_learned_ - 1);
	notify(FdbEventType::Deleted, reason, e, nullptr);
	store_once(e->flags, uint16_t(e->flags | kFdbUnlinked));
	xb_call_rcu(&e->rcu, free_entry_rcu);
}

bool Fdb::pin_for_flow(MacKey mac, uint16_t vid, const Port *port)
{
	LockGuard guard(lock_);
	FdbEntry *e = find_locked(fdb_key(mac, vid));
	if (!e || (e->flags & (kFdbUnlinked | kFdbLocal | kFdbLocked)) ||
	    e->destination().port() != port)
		return false;
	store_once(e->flow_pinned, uint8_t(1));
	return true;
}

/*
 * A learner's destination may belong to a port or port VLAN that is being
 * removed: it looked it up before the removal unpublished it. The removal
 * marks it unlinked under this lock before flushing and rewriting the
 * entries that point at it, so checking under the lock is enough: an entry
 * made before the mark is flushed, none is made after it.
 */
bool Fdb::dest_unlinked(FdbDest dest) const
{
	PortVlan *v = dest.vlan();
	if (v && load_once(v->unlinked))
		return true;
	return load_once(dest.port()->unlinked);
}

void Fdb::mark_unlinked(Port *port)
{
	LockGuard guard(lock_);
	store_once(port->unlinked, true);
}

void Fdb::mark_unlinked(PortVlan *vlan)
{
	LockGuard guard(lock_);
	store_once(vlan->unlinked, true);
}

void Fdb::roam(FdbEntry *e, FdbDest dest, Port *old_port)
{
	LockGuard guard(lock_);
	uint16_t flags = e->flags;

	/* Re-check: the entry may have been deleted, made sticky or local,
	 * or already roamed here since the lock-free look. */
	if (flags & (kFdbUnlinked | kFdbSticky | kFdbLocal))
		return;
	if (dest_unlinked(dest))
		return;
	Port *cur = e->destination().port();
	store_publish(e->dest, dest.word());
	if (cur == dest.port())
		return;
	set_flags_locked(e, uint16_t(flags & ~(kFdbExtLearn | kFdbLocked)));
	notify(FdbEventType::Changed, FdbReason::Learned, e, old_port);
}

/* The cases learn() does not handle inline. @e is the lookup's result. */
void Fdb::learn_slow(FdbEntry *e, uint64_t key, FdbDest dest, uint32_t now,
		     uint16_t extra_flags)
{
	if (e) {
		uint16_t flags = e->flag_bits();
		if (flags & kFdbLocal)
			return;	/* our own address seen as a source: never moves */
		if (load_once(e->updated) != now)
			store_once(e->updated, now);
		uintptr_t cur = load_dep(e->dest);
		if (cur == dest.word())
			return;
		Port *cur_port = FdbDest::from_word(cur).port();
		if (cur_port == dest.port()) {
			/* Same port, other VLAN form: promote silently, under
			 * the lock (rare: once per entry), so that a port VLAN
			 * being removed is never cached again. */
			LockGuard guard(lock_);
			if (!(e->flags & kFdbUnlinked) && load_dep(e->dest) == cur &&
			    !dest_unlinked(dest))
				store_publish(e->dest, dest.word());
			return;
		}
		if (flags & kFdbSticky)
			return;
		roam(e, dest, cur_port);
		return;
	}

	uint32_t max = max_learned();
	if (xb_unlikely(max && learned_count() >= max))
		return;

	LockGuard guard(lock_);
	if (find_locked(key))
		return;	/* lost a race with another learner */
	if (max && n_learned_ >= max)
		return;
	if (dest_unlinked(dest))
		return;
	e = create_locked(key, dest, uint16_t(kFdbDynamicLearned | extra_flags), now);
	if (e)
		notify(FdbEventType::Created, FdbReason::Learned, e, nullptr);
}

int Fdb::add(const FdbAddRequest &req, uint32_t now, Extack *ack)
{
	const uint64_t key = fdb_key(req.mac, req.vid);
	uint16_t want = uint16_t(req.flags & (kFdbLocal | kFdbStatic | kFdbSticky | kFdbExtLearn |
					      kFdbAddedByUser));
	if (want & kFdbLocal)
		want |= kFdbStatic;
	/* Whether the user asked for an entry is no change anyone sees. */
	constexpr uint16_t kUnseen = kFdbDynamicLearned | kFdbAddedByUser;
	FdbDest dest = req.dest;

	LockGuard guard(lock_);
	FdbEntry *e = find_locked(key);
	if (!e) {
		e = create_locked(key, dest, want, now);
		if (!e)
			return fail(ack, kENOMEM, "out of memory for the FDB entry");
		notify(FdbEventType::Created, FdbReason::User, e, nullptr);
		return 0;
	}
	if (req.mode == FdbAddMode::Create)
		return fail(ack, kEEXIST, "FDB entry already exists");

	Port *old_port = e->destination().port();
	if (req.mode == FdbAddMode::ExternalLearn) {
		/* Any entry, even a local or sticky one, moves to the agent's
		 * port and keeps its kind; it is refreshed either way. */
		uint16_t flags = uint16_t((e->flags & ~kFdbDynamicLearned) | want);
		bool changed = old_port != dest.port() || ((flags ^ e->flags) & ~kUnseen);
		store_publish(e->dest, dest.word());
		set_flags_locked(e, flags);
		store_once(e->updated, now);
		store_once(e->used, now);
		if (changed)
			notify(FdbEventType::Changed, FdbReason::User, e,
			       old_port != dest.port() ? old_port : nullptr);
		return 0;
	}
	/* fdb_add_entry sets the kind and stickiness but never clears
	 * "added by an external agent". */
	want |= uint16_t(e->flags & kFdbExtLearn);
	bool changed = old_port != dest.port() || ((e->flags ^ want) & ~kUnseen);
	store_publish(e->dest, dest.word());
	set_flags_locked(e, want);
	store_once(e->used, now);
	if (changed) {
		store_once(e->updated, now);
		notify(FdbEventType::Changed, FdbReason::User, e,
		       old_port != dest.port() ? old_port : nullptr);
	}
	return 0;
}

int Fdb::del(MacKey mac, uint16_t vid, Port *port, FdbReason reason, Extack *ack)
{
	LockGuard guard(lock_);
	FdbEntry *e = find_locked(fdb_key(mac, vid));
	if (!e || (port && e->destination().port() != port))
		return fail(ack, kENOENT, "FDB entry not found");
	delete_locked(e, reason);
	return 0;
}

bool Fdb::matches(const FdbEntry *e, const FdbFilter &f)
{
	FdbDest d = e->destination();
	if (f.port && d.port() != f.port)
		return false;
	if (f.vid >= 0 && e->vid() != uint16_t(f.vid))
		return false;
	if ((e->flags & f.flags_set) != f.flags_set)
		return false;
	if (e->flags & f.flags_clear)
		return false;
	if (f.cached_vlan && d.vlan() != f.cached_vlan)
		return false;
	return true;
}

unsigned Fdb::flush(const FdbFilter &filter, FdbReason reason)
{
	unsigned n = 0;
	LockGuard guard(lock_);
	Table *t = table_.writer();
	for (uint32_t b = 0; b <= t->mask; b++) {
		FdbEntry *e = t->bucket[b];
		while (e) {
			FdbEntry *next = e->chain[t->link];
			if (matches(e, filter)) {
				delete_locked(e, reason);
				n++;
			}
			e = next;
		}
	}
	return n;
}

unsigned Fdb::rewrite_to_port(const FdbFilter &filter)
{
	unsigned n = 0;
	LockGuard guard(lock_);
	Table *t = table_.writer();
	for (uint32_t b = 0; b <= t->mask; b++)
		for (FdbEntry *e = t->bucket[b]; e; e = e->chain[t->link]) {
			FdbDest d = e->destination();
			if (!d.has_vlan() || !matches(e, filter))
				continue;
			store_publish(e->dest, FdbDest::to_port(d.port()).word());
			n++;
		}
	return n;
}

/*
 * br_fdb_cleanup: the walk is an RCU reader, as the datapath's lookups are,
 * and the lock is taken only for an entry that has expired (and checked
 * again under it), so a large table ages without holding off the softirq
 * learners. An entry deleted meanwhile is still readable, links included,
 * until the grace period after its read section; the table walked stays
 * valid for the section (a resize frees it only after a grace period).
 *
 * Unlike br_fdb_cleanup, the walk goes kAgeSlice buckets per read section
 * and offers the CPU between them: a million entries took the worker's
 * CPU for seconds at a time under emulation (other tasks' ping RTT up to
 * 380 ms). A resize between two slices renumbers the buckets: an entry may
 * then be skipped until the next run, or looked at twice.
 */
unsigned Fdb::age(uint32_t now)
{
	constexpr uint32_t kAgeSlice = 1024;
	unsigned n = 0;
	const uint32_t ageing = ageing_ms();
	auto expired = [&](const FdbEntry *e) {
		return !(e->flag_bits() & (kFdbStatic | kFdbExtLearn | kFdbUnlinked)) &&
		       !ticks_after(load_once(e->updated) + ageing, now);
	};
	for (uint32_t start = 0;; start += kAgeSlice) {
		{
			RcuReadGuard rcu;
			const Table *t = table_.rcu();
			if (start > t->mask)
				break;
			const uint32_t end = start + kAgeSlice - 1 < t->mask ? start + kAgeSlice - 1
									     : t->mask;
			for (uint32_t b = start; b <= end; b++) {
				for (FdbEntry *e = rcu_deref(t->bucket[b]); e;
				     e = rcu_deref(e->chain[t->link])) {
					if (!expired(e))
						continue;
					LockGuard guard(lock_);
					if (expired(e)) {
						delete_locked(e, FdbReason::Aged);
						n++;
					}
				}
			}
		}
		xb_cond_resched();
	}
	return n;
}

bool Fdb::resize_if_needed()
{
	uint32_t want;
	{
		LockGuard guard(lock_);
		uint32_t n = count_;
		uint32_t buckets = table_.writer()->mask + 1;

		want = buckets;
		if (n > buckets && buckets < kMaxBuckets)
			want = roundup_pow2(n);
		else if (n < buckets / 8 && buckets > kMinBuckets)
			want = roundup_pow2(n * 2);
		if (want < kMinBuckets)
			want = kMinBuckets;
		if (want > kMaxBuckets)
			want = kMaxBuckets;
		if (want == buckets || resizing_) {
			if (!resizing_)
				grow_asked_ = false;
			return false;
		}
		resizing_ = true;
	}

	Table *next = table_alloc(want, 0, XB_ALLOC_SLEEP);
	Table *old;
	{
		LockGuard guard(lock_);
		if (!next) {
			resizing_ = false;
			return false;
		}
		old = table_.writer();
		next->link = uint8_t(old->link ^ 1);
		next->seed = old->seed;	/* the dumps' positions (for_each_from) */
		for (uint32_t b = 0; b <= old->mask; b++)
			for (FdbEntry *e = old->bucket[b]; e; e = e->chain[old->link]) {
				uint32_t nb = bucket_of(next, e->key);
				e->chain[next->link] = next->bucket[nb];
				next->bucket[nb] = e;
			}
		table_.publish(next);
		grow_asked_ = false;
	}

	/* Readers still on the old table follow the old links, which nobody
	 * writes until the next resize; wait for them before freeing it. */
	xb_synchronize_rcu();
	xb_free(old);

	LockGuard guard(lock_);
	resizing_ = false;
	return true;
}

} // namespace xb
