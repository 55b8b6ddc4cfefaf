/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fdb.h - the forwarding database: (MAC, VID) -> tagged destination.
 *
 * Ownership. The Fdb owns its entries and its hash table. Entries point at
 * ports and port VLANs (their destination) but own neither: the bridge
 * flushes or rewrites the entries of a port or port VLAN before freeing it.
 *
 * Locking. One writer lock (the bridge's FDB lock, a bottom-half-safe
 * spinlock in the kernel) serialises every change to the table and to an
 * entry's flags. Readers take no lock: lookup() walks a bucket chain inside
 * an RCU read section. Entries are freed through call_rcu after they are
 * unlinked. The datapath writes two fields without the lock, `used` and
 * `updated` (plain timestamps, load_once/store_once); everything else a
 * learner changes (creating, roaming, promoting an entry to its port-VLAN
 * form) it changes under the lock, after checking there that the port or
 * port VLAN it names is not being removed (dest_unlinked).
 *
 * Resizing. Each entry has two chain links; a table uses one of them. A
 * resize (control context only) links every entry into a new table through
 * the other link, publishes the new table, waits for a grace period, then
 * frees the old table. Readers on the old table keep a consistent chain
 * throughout; no reader ever needs to retry.
 *
 * Times are 32-bit millisecond ticks with wrap-safe comparisons (as 32-bit
 * jiffies); ageing_time is therefore capped at kFdbMaxAgeingMs.
 */
#ifndef XBRIDGE_CORE_FDB_H
#define XBRIDGE_CORE_FDB_H

#include <stdint.h>

#include "compiler.h"
#include "errors.h"
#include "ethernet.h"
#include "fdb_dest.h"
#include "platform.h"

namespace xb {

struct Port;

enum FdbFlag : uint16_t {
	kFdbLocal = 1 << 0,		/* one of our addresses: deliver up */
	kFdbStatic = 1 << 1,		/* never aged */
	kFdbSticky = 1 << 2,		/* never roams */
	kFdbAddedByUser = 1 << 3,
	kFdbExtLearn = 1 << 4,		/* learned by an external agent */
	kFdbLocked = 1 << 5,		/* MAB: known but not authorised */
	kFdbDynamicLearned = 1 << 6,	/* counts against fdb_max_learned */
};

/* Fdb's own: set under the lock when an entry is unlinked (readers may
 * still hold it); never visible in events or dumps. */
constexpr uint16_t kFdbUnlinked = 1u << 15;

constexpr uint32_t kFdbDefaultAgeingMs = 300 * 1000;
constexpr uint32_t kFdbMaxAgeingMs = 1000u * 1000 * 1000;	/* ~11.6 days */

/* Pack (mac, vid) into the 64-bit key the table hashes and compares. */
inline uint64_t fdb_key(MacKey mac, uint16_t vid)
{
	return (mac & kMacMask) | (uint64_t(vid) << 48);
}

/* Wrap-safe "a is after b" for 32-bit tick counts. */
inline bool ticks_after(uint32_t a, uint32_t b)
{
	return int32_t(b - a) < 0;
}

inline uint32_t ticks_from_ns(uint64_t ns)
{
	return uint32_t(ns / 1000000u);
}

struct alignas(64) FdbEntry {
	FdbEntry *chain[2];	/* bucket chains of the two table generations */
	uint64_t key;		/* fdb_key(mac, vid); never changes */
	uintptr_t dest;		/* FdbDest word; see fdb_dest.h */
	uint32_t used;		/* last forwarded to (ticks) */
	uint32_t updated;	/* last learned/refreshed (ticks) */
	uint16_t flags;		/* FdbFlag; changed under the lock */
	uint8_t flow_pinned;	/* a flowtable flow caches this entry's port:
				 * a change or delete makes flows stale (set
				 * under the lock, never cleared) */
	uint8_t reserved;
	uint32_t reserved2;
	xb_rcu_head rcu;

	MacKey mac() const { return key & kMacMask; }
	uint16_t vid() const { return uint16_t(key >> 48); }
	FdbDest destination() const { return FdbDest::from_word(load_dep(dest)); }
	uint16_t flag_bits() const { return load_once(flags); }
};
static_assert(sizeof(FdbEntry) == 64, "an FDB entry is one cache line");

enum class FdbEventType : uint8_t {
	Created,
	Changed,	/* destination (roam) or flags changed */
	Deleted,
};

enum class FdbReason : uint8_t {
	Learned,	/* created or roamed by the datapath */
	User,		/* control-plane add/replace/delete */
	Aged,
	Flushed,	/* flush request */
	PortRemoved,
	VlanRemoved,
};

struct FdbEvent {
	FdbEventType type;
	FdbReason reason;
	MacKey mac;
	uint16_t vid;
	uint16_t flags;
	Port *port;		/* the destination port after the change */
	Port *old_port;		/* Changed: the port before; else nullptr */
};

/* Called under the FDB lock, possibly from the datapath: must not sleep. */
struct FdbEventSink {
	void (*fn)(void *ctx, const FdbEvent &event) = nullptr;
	void *ctx = nullptr;
};

/*
 * Called when inserts have outgrown the table (more entries than twice its
 * buckets), from the datapath under the FDB lock, at most once until the
 * next resize: the environment schedules its maintenance work (which calls
 * resize_if_needed()) soon. Must not sleep.
 */
struct FdbGrowSink {
	void (*fn)(void *ctx) = nullptr;
	void *ctx = nullptr;
};

enum class FdbAddMode : uint8_t {
	Create,		/* -EEXIST if the entry exists (bridge fdb add) */
	Replace,	/* create or overwrite (bridge fdb replace/append) */
	ExternalLearn,	/* br_fdb_external_learn_add: create, or move the entry
			 * here keeping its other flags (`extern_learn`) */
};

struct FdbAddRequest {
	MacKey mac;
	uint16_t vid;
	FdbDest dest;		/* port (the host port for the bridge itself)
				 * or port-VLAN form */
	uint16_t flags;		/* kFdbLocal, kFdbStatic, kFdbSticky, kFdbExtLearn,
				 * kFdbAddedByUser (a user's request; the
				 * bridge's own local entries have it clear) */
	FdbAddMode mode;
};

/* An entry matches when every field set here matches. */
struct FdbFilter {
	Port *port = nullptr;		/* nullptr: any port */
	int32_t vid = -1;		/* -1: any VID */
	uint16_t flags_set = 0;		/* these flags must be set */
	uint16_t flags_clear = 0;	/* these flags must be clear */
	PortVlan *cached_vlan = nullptr;	/* entries caching this port VLAN */
};

class Fdb {
public:
	/* Control. @lock is the bridge's FDB lock (not owned). */
	int init(xb_lock *lock, FdbEventSink sink, FdbGrowSink grow = {});
	/* Control, after a grace period with no readers left: free everything. */
	void fini();

	/*
	 * Datapath (RCU read section). A Probe is a key with its bucket,
	 * located once (hash and table load) and used later in the same read
	 * section: batch decisions probe and prefetch every frame's buckets
	 * before deciding. A table resized in between stays valid and
	 * consistent for the rest of the read section (see above).
	 */
	struct Probe {
		uint64_t key;
		FdbEntry *const *slot;
		uint8_t link;
	};
	Probe probe(uint64_t key) const
	{
		const Table *t = table_.rcu();
		return {key, &t->bucket[bucket_of(t, key)], t->link};
	}
	static FdbEntry *lookup_probe(const Probe &p)
	{
		for (FdbEntry *e = rcu_deref(*p.slot); e; e = rcu_deref(e->chain[p.link]))
			if (e->key == p.key)
				return e;
		return nullptr;
	}
	/*
	 * Prefetch the entry after the chain's first when the first (already
	 * in cache: prefetched earlier) is not the probe's key, so a hit in
	 * second place is not a dependent miss at decision time.
	 */
	static void prefetch_second(const Probe &p)
	{
		FdbEntry *e = rcu_deref(*p.slot);
		if (e && e->key != p.key) {
			FdbEntry *next = rcu_deref(e->chain[p.link]);
			if (next)
				prefetch(next);
		}
	}
	/*
	 * Batches over a table larger than the caches pipeline their probes
	 * deeper (forward.cc's decide_deep). 262,144 entries are 16 MB of
	 * entry lines, half of a server's L3: measured on this bench, the
	 * deeper pipeline costs ~11 cycles a frame at 64k entries (the table
	 * in L3), breaks even at 256k and saves ~30 at 1M. count() is a racy
	 * read; a batch that picks the other way is as correct, only slower.
	 */
	static constexpr uint32_t kFdbPrefetchDeepMin = 262144;
	bool prefetch_deep() const { return count() >= kFdbPrefetchDeepMin; }
	FdbEntry *lookup(MacKey mac, uint16_t vid) const
	{
		return lookup_probe(probe(fdb_key(mac, vid)));
	}
	FdbEntry *lookup_key(uint64_t key) const { return lookup_probe(probe(key)); }

	/*
	 * Datapath: learn the probe's (mac, vid) with destination @dest (port
	 * or port-VLAN form). @extra_flags may be kFdbLocked (MAB). A refresh
	 * of an entry that already points here is inline; creating, roaming
	 * (unless sticky or local) and promoting go out of line.
	 */
	void learn(const Probe &p, FdbDest dest, uint32_t now, uint16_t extra_flags)
	{
		if (xb_unlikely(ageing_ms() == 0))
			return;	/* ageing_time 0: "always flood", learn nothing */
		FdbEntry *e = lookup_probe(p);
		if (xb_likely(e) && xb_likely(load_once(e->dest) == dest.word()) &&
		    xb_likely(!(e->flag_bits() & kFdbLocal))) {
			if (load_once(e->updated) != now)
				store_once(e->updated, now);
			return;
		}
		learn_slow(e, p.key, dest, now, extra_flags);
	}
	void learn(FdbDest dest, MacKey mac, uint16_t vid, uint32_t now, uint16_t extra_flags)
	{
		learn(probe(fdb_key(mac, vid)), dest, now, extra_flags);
	}

	/* Control. */
	int add(const FdbAddRequest &req, uint32_t now, Extack *ack) XB_EXCLUDES(lock_);
	/* Delete (mac, vid); if @port is set the entry must point to it. */
	int del(MacKey mac, uint16_t vid, Port *port, FdbReason reason, Extack *ack) XB_EXCLUDES(lock_);
	/* Delete every matching entry; returns how many. */
	unsigned flush(const FdbFilter &filter, FdbReason reason) XB_EXCLUDES(lock_);
	/* Before a port or port VLAN's entries are flushed or rewritten for
	 * its removal: from here on no learner makes an entry that names it. */
	void mark_unlinked(Port *port) XB_EXCLUDES(lock_);
	void mark_unlinked(PortVlan *vlan) XB_EXCLUDES(lock_);
	/* Rewrite matching entries to the plain port form; returns how many. */
	unsigned rewrite_to_port(const FdbFilter &filter) XB_EXCLUDES(lock_);
	/*
	 * fdb_delete_local's first half: each local entry on @from for which
	 * @new_home(mac, vid) names another owner of the address (a Port *,
	 * or nullptr for none) moves there instead of being deleted later.
	 * @new_home runs under the FDB lock: it must not sleep or change the
	 * FDB. Returns how many moved.
	 */
	template <typename Fn> unsigned rehome_local(Port *from, Fn new_home)
	{
		unsigned n = 0;
		LockGuard guard(lock_);
		Table *t = table_.writer();
		for (uint32_t b = 0; b <= t->mask; b++)
			for (FdbEntry *e = t->bucket[b]; e; e = e->chain[t->link]) {
				if (!(e->flags & kFdbLocal) || e->destination().port() != from)
					continue;
				Port *to = new_home(e->mac(), e->vid());
				if (!to)
					continue;
				store_publish(e->dest, FdbDest::to_port(to).word());
				notify(FdbEventType::Changed, FdbReason::PortRemoved, e, from);
				n++;
			}
		return n;
	}
	/* Delete dynamic entries not refreshed within the ageing time: an RCU
	 * walk that takes the lock per expired entry (control context). */
	unsigned age(uint32_t now) XB_EXCLUDES(lock_);
	/* Grow or shrink the table to the entry count (may sleep). */
	bool resize_if_needed() XB_EXCLUDES(lock_);

	/* Control: visit entries under the lock; @fn must not sleep or
	 * change the FDB. Stops when @fn returns false. */
	template <typename Fn> void for_each(Fn fn) const
	{
		LockGuard guard(lock_);
		const Table *t = table_.writer();
		for (uint32_t b = 0; b <= t->mask; b++)
			for (FdbEntry *e = t->bucket[b]; e; e = e->chain[t->link])
				if (!fn(*e))
					return;
	}

	/*
	 * Control: a resumable walk for dumps that span several rounds. As an
	 * RCU reader, without the lock (br_fdb_dump: a dump, which needs no
	 * privilege, never holds off learning or ageing), visit entries in
	 * the order of their hash from position @pos on, until @fn returns
	 * false; the entry @fn refused is not consumed. On return @pos names
	 * the first entry not consumed, so the next call resumes there; start
	 * with FdbCursor{}. Returns true when the walk reached the end of the
	 * table (and from then on).
	 * @fn must not sleep or change the FDB; it sees an entry as a reader
	 * does (fields with load_once), and not one already deleted.
	 *
	 * The position is an entry's hash, key * seed: a bijection of the key
	 * (the seed is odd), and the table keeps its seed across resizes, so a
	 * bucket is a range of hashes that a resize only splits or merges.
	 * Whatever changes between two calls, no entry is visited twice and
	 * none that stays in the table is missed; one added or deleted
	 * meanwhile may or may not be visited. Within a bucket the entries are
	 * taken smallest hash first, each by a scan of the chain (chains are
	 * about as long as the load factor, two at most on average).
	 */
	struct Cursor {
		uint64_t hash = 0;	/* the first position not consumed */
		bool end = false;
	};
	template <typename Fn> bool for_each_from(Cursor &pos, Fn fn) const
	{
		if (pos.end)
			return true;
		RcuReadGuard rcu;
		const Table *t = table_.rcu();
		uint64_t from = pos.hash;
		for (uint64_t b = from >> t->shift; b <= t->mask; b++) {
			for (;;) {
				const FdbEntry *next = nullptr;
				uint64_t next_hash = 0;
				for (FdbEntry *e = rcu_deref(t->bucket[b]); e;
				     e = rcu_deref(e->chain[t->link])) {
					const uint64_t h = e->key * t->seed;
					if (h < from || (e->flag_bits() & kFdbUnlinked))
						continue;
					if (!next || h < next_hash) {
						next = e;
						next_hash = h;
					}
				}
				if (!next)
					break;
				if (!fn(*next)) {
					pos.hash = next_hash;
					return false;
				}
				if (next_hash == UINT64_MAX)
					break;	/* the last position there is */
				from = next_hash + 1;
			}
		}
		pos.end = true;
		return true;
	}

	/*
	 * The bridge's flow generation (bridge_flow.h): a change to or the
	 * deletion of an entry a flow pinned bumps it. Control, once, before
	 * the datapath runs.
	 */
	void set_flow_generation(uint32_t *gen) { flow_gen_ = gen; }
	/* Datapath: pin the entry (@mac, @vid) for a flow that sends to @port:
	 * true if it exists, is not being deleted, is on @port and is an
	 * ordinary forwarding entry (not local, not locked). */
	bool pin_for_flow(MacKey mac, uint16_t vid, const Port *port) XB_EXCLUDES(lock_);

	void set_ageing_ms(uint32_t ms) { store_once(ageing_ms_, ms); }
	uint32_t ageing_ms() const { return load_once(ageing_ms_); }
	void set_max_learned(uint32_t n) { store_once(max_learned_, n); }
	uint32_t max_learned() const { return load_once(max_learned_); }
	uint32_t count() const { return racy(count_); }
	uint32_t learned_count() const { return racy(n_learned_); }
	uint32_t buckets() const { return table_.writer()->mask + 1; }

private:
	struct Table {
		uint32_t mask;		/* buckets - 1 */
		uint8_t link;		/* which FdbEntry::chain this table uses */
		uint8_t shift;		/* 64 - log2(buckets) */
		uint64_t seed;		/* odd multiplier */
		FdbEntry *bucket[];
	};

	static Table *table_alloc(uint32_t buckets, uint8_t link, xb_alloc_ctx ctx);
	static uint32_t bucket_of(const Table *t, uint64_t key)
	{
		return uint32_t((key * t->seed) >> t->shift);
	}
	FdbEntry *find_locked(uint64_t key) const XB_REQUIRES(lock_);
	FdbEntry *create_locked(uint64_t key, FdbDest dest, uint16_t flags, uint32_t now)
		XB_REQUIRES(lock_);
	void unlink_locked(FdbEntry *e) XB_REQUIRES(lock_);
	void delete_locked(FdbEntry *e, FdbReason reason) XB_REQUIRES(lock_);
	void set_flags_locked(FdbEntry *e, uint16_t flags) XB_REQUIRES(lock_);
	void notify(FdbEventType type, FdbReason reason, const FdbEntry *e, Port *old_port) const;
	void roam(FdbEntry *e, FdbDest dest, Port *old_port) XB_EXCLUDES(lock_);
	void learn_slow(FdbEntry *e, uint64_t key, FdbDest dest, uint32_t now,
			uint16_t extra_flags) XB_EXCLUDES(lock_);
	static bool matches(const FdbEntry *e, const FdbFilter &f);
	bool dest_unlinked(FdbDest dest) const XB_REQUIRES(lock_);
	static void free_entry_rcu(xb_rcu_head *head);

	/* Read by every frame, written only by configuration. */
	RcuPtr<Table> table_;
	xb_lock *lock_ = nullptr;
	uint32_t ageing_ms_ = kFdbDefaultAgeingMs;
	uint32_t max_learned_ = 0;	/* 0: no limit */
	uint32_t *flow_gen_ = nullptr;	/* the bridge's; bumped atomically */

	/* Written on every create and delete (a flood of new sources: many
	 * thousands a second, from every CPU), so on cache lines of their
	 * own: they must not evict the fields above from the other CPUs.
	 * count_ and n_learned_ are written under lock_ (store_once) and read
	 * anywhere through racy(). */
	alignas(64) uint32_t count_ XB_GUARDED_BY(lock_) = 0;
	uint32_t n_learned_ XB_GUARDED_BY(lock_) = 0;
	bool resizing_ XB_GUARDED_BY(lock_) = false;
	bool grow_asked_ XB_GUARDED_BY(lock_) = false;	/* reset by a resize */
	FdbEventSink sink_;
	FdbGrowSink grow_;
};

} // namespace xb

#endif /* XBRIDGE_CORE_FDB_H */
