// SPDX-License-Identifier: GPL-2.0
/*
 * flow_table.cc - the bridge flowtable's flows. Ownership and locking as in
 * flow_table.h: one table lock for adding and removing, RCU lookups, flows
 * freed through call_rcu.
 */
#include "flow_table.h"

#include "ct_timeouts.h"

namespace xb {

namespace {

uint32_t roundup_pow2(uint32_t n)
{
	uint32_t p = 16;
	while (p < n)
		p <<= 1;
	return p;
}

/*
 * nf_flow_table's flow_offload_fixup_ct: the connection goes back to
 * conntrack with its TCP windows forgotten (the next segment of each side
 * is picked up as tcp_in_window does mid-stream, liberal until then) and
 * the protocol's timeout less the flow timeout, if that is sooner.
 */
void fixup_ct(CtEntry &e, uint32_t now)
{
	uint32_t timeout = 0;
	if (e.tuple.l4proto == kIpProtoTcp) {
		store_once(e.proto.tcp.seen[0].td_maxwin, uint32_t(0));
		store_once(e.proto.tcp.seen[1].td_maxwin, uint32_t(0));
		const uint8_t state = e.tcp_state();
		timeout = state < kTcpStateCount ? kCtTcpTimeout[state] : 0;
	} else if (e.tuple.l4proto == kIpProtoUdp) {
		timeout = kCtUdpTimeoutStream;
	}
	timeout = timeout > kFlowTimeoutMs ? timeout - kFlowTimeoutMs : 0;
	if (ct_ticks_after(load_once(e.expires), now + timeout))
		store_once(e.expires, now + timeout);
}

/* The flow's conntrack entry, or nullptr once conntrack removed it. */
CtEntry *ct_of(const Flow *f)
{
	return __atomic_load_n(&f->ct, __ATOMIC_ACQUIRE);
}

} // namespace

int FlowTable::init(uint32_t buckets, uint32_t max, Extack *ack)
{
	if (buckets == 0 || buckets > (1u << 22))
		return fail(ack, kERANGE, "flowtable bucket count out of range");
	const uint32_t n = roundup_pow2(buckets);
	xb_lock *lock = xb_lock_create();
	if (!lock)
		return fail(ack, kENOMEM, "no memory for the flowtable lock");
	auto *b = static_cast<FlowDir **>(xb_alloc(sizeof(FlowDir *) * n, XB_ALLOC_SLEEP));
	if (!b) {
		xb_lock_destroy(lock);
		return fail(ack, kENOMEM, "no memory for the flowtable");
	}
	if (!stats_.init(XB_ALLOC_SLEEP)) {
		xb_free(b);
		xb_lock_destroy(lock);
		return fail(ack, kENOMEM, "no memory for the flowtable counters");
	}
	buckets_ = b;
	mask_ = n - 1;
	seed_ = ((uint64_t(xb_random_u32()) << 32) | xb_random_u32()) | 1;
	lock_ = lock;
	max_ = max;
	{
		LockGuard guard(lock_);	/* unshared yet: taken for the checked rule */
		count_ = 0;
		gc_cursor_ = 0;
	}
	return 0;
}

void FlowTable::fini(uint32_t now)
{
	if (!buckets_)
		return;
	for (uint32_t b = 0; b <= mask_; b++) {
		FlowDir *d = buckets_[b];
		while (d) {
			FlowDir *next = d->next;
			Flow *f = d->flow;
			/* each flow is in two chains: free it from the second */
			if (f->dead) {
				xb_free(f);
			} else {
				f->dead = true;
				if (CtEntry *ct = ct_of(f)) {
					ct->flow = nullptr;
					ct->clear_status(kCtOffload);
					fixup_ct(*ct, now);
					sink_(CtEventType::FlowTeardown, *ct,
					      uint8_t(FlowTeardown::Flush));
				}
			}
			d = next;
		}
	}
	xb_free(buckets_);
	buckets_ = nullptr;
	stats_.fini();
	xb_lock_destroy(lock_);
	lock_ = nullptr;
}

/* Independent multiplies over the key's words (they overlap in the
 * pipeline), then one mixing round with the table's seed. */
uint32_t FlowTable::bucket_of(const FlowKey &k) const
{
	uint64_t w[9];
	__builtin_memcpy(w, &k, sizeof(w));
	uint64_t h = (w[0] + seed_) * 0x9e3779b97f4a7c15ull;
	h += w[1] * 0xc2b2ae3d27d4eb4full;
	h += w[2] * 0x165667b19e3779f9ull;
	h += w[3] * 0xd6e8feb86659fd93ull;
	h += w[4] * 0xff51afd7ed558ccdull;
	h += (w[5] ^ w[7]) * 0x94d049bb133111ebull;
	h += (w[6] ^ w[8]) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	h *= seed_;
	return uint32_t(h ^ (h >> 29)) & mask_;
}

FlowDir *FlowTable::lookup_in(const FlowKey &k, uint32_t bucket) const
{
	for (FlowDir *d = rcu_deref(buckets_[bucket]); d; d = rcu_deref(d->next))
		if (d->key == k)
			return d;
	return nullptr;
}

Flow *FlowTable::alloc()
{
	Flow *f = nullptr;
	if (racy(count_) < max_)
		f = static_cast<Flow *>(xb_alloc(sizeof(Flow), XB_ALLOC_ATOMIC));
	if (!f)
		counter_add(stats_.this_cpu()->add_failed, 1);
	return f;
}

bool FlowTable::add(Flow *f, uint32_t now)
{
	{
		LockGuard guard(lock_);
		CtEntry *ct = f->ct;
		/* A flow conntrack detached (ct_removed) still holds its keys
		 * until the GC meets it: it goes now. */
		for (unsigned i = 0; i < 2; i++) {
			FlowDir *d = buckets_[bucket_of(f->d[i].key)];
			while (d && !(d->key == f->d[i].key))
				d = d->next;
			if (d && !ct_of(d->flow))
				remove_locked(d->flow, FlowTeardown::Conntrack, now);
		}
		bool taken = count_ >= max_ || ct->flow || (ct->status_bits() & (kCtOffload | kCtDying));
		for (unsigned i = 0; i < 2 && !taken; i++)
			for (FlowDir *d = buckets_[bucket_of(f->d[i].key)]; d && !taken; d = d->next)
				taken = d->key == f->d[i].key;
		if (!taken) {
			f->expires = now + kFlowTimeoutMs;
			for (unsigned i = 0; i < 2; i++) {
				FlowDir &d = f->d[i];
				d.flow = f;
				d.dir = uint8_t(i);
				d.learned = now;
				d.stamp = f->d[0].stamp;
				FlowDir **head = &buckets_[bucket_of(d.key)];
				d.next = *head;
				rcu_publish(*head, &d);
			}
			store_once(count_, count_ + 1);
			counter_add(stats_.this_cpu()->adds, 1);
			ct->flow = f;
			/*
			 * Against conntrack removing the entry meanwhile (its lock
			 * is not ours): it sets DYING and then looks at OFFLOAD,
			 * we set OFFLOAD and then look at DYING, both sequentially
			 * consistent - so it calls ct_removed() or we see DYING.
			 */
			__atomic_fetch_or(&ct->status, uint16_t(kCtOffload), __ATOMIC_SEQ_CST);
			if (__atomic_load_n(&ct->status, __ATOMIC_SEQ_CST) & kCtDying) {
				remove_locked(f, FlowTeardown::Conntrack, now);
				return false;
			}
			/* nf_ct_offload_timeout: conntrack keeps the entry */
			store_once(ct->expires, now + kFlowCtTimeoutMs);
			return true;
		}
	}
	counter_add(stats_.this_cpu()->add_failed, 1);
	xb_free(f);
	return false;
}

void FlowTable::unlink_locked(FlowDir *d)
{
	FlowDir **pp = &buckets_[bucket_of(d->key)];
	while (*pp && *pp != d)
		pp = &(*pp)->next;
	if (*pp)
		rcu_publish(*pp, d->next);
}

void FlowTable::remove_locked(Flow *f, FlowTeardown why, uint32_t now)
{
	if (f->dead)
		return;
	f->dead = true;
	store_once(f->d[0].dead, uint8_t(1));
	store_once(f->d[1].dead, uint8_t(1));
	unlink_locked(&f->d[0]);
	unlink_locked(&f->d[1]);
	store_once(count_, count_ - 1);
	/* Conntrack may have removed the entry already (ct_removed): then it
	 * is gone from the flow, and was counted there. */
	if (CtEntry *ct = __atomic_exchange_n(&f->ct, static_cast<CtEntry *>(nullptr),
					      __ATOMIC_ACQ_REL)) {
		fold_counters(f, ct);
		if (why != FlowTeardown::Conntrack)
			fixup_ct(*ct, now);
		ct->flow = nullptr;
		ct->clear_status(kCtOffload);
		counter_add(stats_.this_cpu()->teardown[unsigned(why)], 1);
		sink_(CtEventType::FlowTeardown, *ct, uint8_t(why));
	}
	xb_call_rcu(&f->rcu, free_rcu);
}

/* The hits' counters into the conntrack entry and the table's hit count,
 * so that a hit itself writes only its own direction (hits racing with
 * this may lose a count to the reset: the counters are statistics). */
void FlowTable::fold_counters(Flow *f, CtEntry *ct)
{
	for (FlowDir &d : f->d) {
		const uint32_t packets = load_once(d.packets);
		const uint64_t bytes = load_once(d.bytes);
		if (!packets)
			continue;
		store_once(d.packets, uint32_t(0));
		store_once(d.bytes, uint64_t(0));
		__atomic_fetch_add(&ct->packets[d.ct_dir], packets, __ATOMIC_RELAXED);
		__atomic_fetch_add(&ct->bytes[d.ct_dir], bytes, __ATOMIC_RELAXED);
		counter_add(stats_.this_cpu()->hits, packets);
	}
}

void FlowTable::free_rcu(xb_rcu_head *head)
{
	xb_free(xb_container_of(head, Flow, rcu));
}

void FlowTable::teardown(Flow *f, FlowTeardown why, uint32_t now)
{
	LockGuard guard(lock_);
	remove_locked(f, why, now);
}

/*
 * Under conntrack's lock, which is not nested with ours (the platform's
 * locks share one lockdep class): the flow is made unusable - its
 * directions dead, so no hit touches it again, and its entry pointer gone,
 * so nothing else will - and the GC unlinks it later. The entry itself is
 * freed after a grace period, which covers any reader that got it before.
 */
void FlowTable::ct_removed(CtEntry *e)
{
	auto *f = static_cast<Flow *>(__atomic_load_n(&e->flow, __ATOMIC_ACQUIRE));
	if (!f || __atomic_exchange_n(&f->ct, static_cast<CtEntry *>(nullptr), __ATOMIC_ACQ_REL) != e)
		return;
	store_once(f->d[0].dead, uint8_t(1));
	store_once(f->d[1].dead, uint8_t(1));
	fold_counters(f, e);
	e->flow = nullptr;
	e->clear_status(kCtOffload);
	counter_add(stats_.this_cpu()->teardown[unsigned(FlowTeardown::Conntrack)], 1);
	/* under conntrack's lock (not ours); its Destroy follows */
	sink_(CtEventType::FlowTeardown, *e, uint8_t(FlowTeardown::Conntrack));
}

/*
 * Under our lock the flow cannot be freed (call_rcu after unlinking, and
 * the caller is in an RCU read section) nor torn down twice; the entry's
 * flow pointer is checked against the flow's entry pointer, as the
 * entry may have been handed back and offloaded again meanwhile.
 */
void FlowTable::ct_missed(CtEntry *e, uint32_t now)
{
	LockGuard guard(lock_);
	auto *f = static_cast<Flow *>(__atomic_load_n(&e->flow, __ATOMIC_ACQUIRE));
	if (f && ct_of(f) == e)
		remove_locked(f, FlowTeardown::Stale, now);
}

unsigned FlowTable::gc_slice(uint32_t now, uint64_t stamp, uint32_t max_buckets)
{
	unsigned removed = 0;
	LockGuard guard(lock_);
	for (uint32_t i = 0; i < max_buckets && i <= mask_; i++) {
		const uint32_t b = gc_cursor_;
		gc_cursor_ = (gc_cursor_ + 1) & mask_;
		FlowDir *d = buckets_[b];
		while (d) {
			FlowDir *next = d->next;
			Flow *f = d->flow;
			if (d->dir == 0) {
				CtEntry *ct = ct_of(f);
				if (!ct) {
					remove_locked(f, FlowTeardown::Conntrack, now);
					removed++;
				} else if (d->stamp != stamp) {
					remove_locked(f, stale_cause(d->stamp, stamp), now);
					removed++;
				} else if (ct_ticks_after(now, load_once(f->expires))) {
					remove_locked(f, FlowTeardown::Timeout, now);
					removed++;
				} else {
					fold_counters(f, ct);
					if (!ct_ticks_after(load_once(ct->expires),
							    now + kFlowCtTimeoutMs / 2))
						store_once(ct->expires, now + kFlowCtTimeoutMs);
				}
			}
			d = next;
		}
	}
	return removed;
}

FlowStats FlowTable::stats_sum() const
{
	FlowStats sum = {};
	for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++) {
		const FlowStats *s = stats_.cpu(cpu);
		if (!s)
			continue;
		sum.hits += load_once(s->hits);
		sum.adds += load_once(s->adds);
		sum.add_failed += load_once(s->add_failed);
		for (unsigned i = 0; i < kFlowTeardownCount; i++)
			sum.teardown[i] += load_once(s->teardown[i]);
	}
	/* and the hits not folded in yet */
	LockGuard guard(lock_);
	for (uint32_t b = 0; b <= mask_; b++)
		for (FlowDir *d = buckets_[b]; d; d = d->next)
			sum.hits += load_once(d->packets);
	return sum;
}

} // namespace xb
