/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_table.h - the conntrack table: connection entries hashed by both of
 * their tuples, the nf_conntrack_max bound with early drop, per-CPU
 * counters (conntrack -S) and garbage collection in slices.
 *
 * Ownership. The table owns its bucket array, its counters and every
 * entry: confirmed entries (in the hash) and unconfirmed ones (created by
 * the datapath for a frame, not yet in the hash; the frame's CtResult owns
 * them until ct_confirm() inserts or ct_abandon() frees them). Entries
 * come from one object cache that all tables share (xb_obj_cache: in the
 * kernel a kmem_cache, "xbridge_ct" in /proc/slabinfo), which the first
 * init() creates and destroy_entry_cache() destroys.
 *
 * Locking. One table lock (created here; a bottom-half-safe spinlock in
 * the kernel) serialises insertion, removal, GC and flush. Lookups take no
 * lock: they walk a bucket chain inside an RCU read section, and removed
 * entries are freed through call_rcu, so an entry a reader found stays
 * readable until the reader's section ends. Entries are never moved; the
 * bucket array is sized once at init (as nf_conntrack_htable_size without
 * the sysctl). The per-connection tracking state (TCP windows, timeout,
 * status bits) is changed under the entry's own spin bit, which the
 * datapath takes (it runs with bottom halves disabled in the kernel) and
 * the control path only inside the table lock (for_each_locked); other
 * control readers read those fields with load_once and may see a frame's
 * update half done, as `conntrack -L` may.
 *
 * Each entry stores its original tuple once and sits in two chains: the
 * original direction's bucket and the reply direction's (the inverted
 * tuple's). A chain link is the next entry's address with bit 0 naming
 * which of that entry's two links (directions) continues the chain. A
 * lookup compares its key with the entry's tuple on a direction-0 link and
 * the key's inverse with it on a direction-1 link, so the reply tuple is
 * never stored (no NAT: it is always the inverse).
 *
 * Time is 32-bit millisecond ticks (now_ms), compared wrap-safely.
 */
#ifndef XBRIDGE_CORE_CT_TABLE_H
#define XBRIDGE_CORE_CT_TABLE_H

#include <stdint.h>

#include "compiler.h"
#include "ct_timeouts.h"
#include "ct_tuple.h"
#include "errors.h"
#include "percpu.h"
#include "platform.h"

namespace xb {

/* Status bits, numbered as enum ip_conntrack_status. */
enum CtStatusBit : uint16_t {
	kCtSeenReply = 1 << 1,
	kCtAssured = 1 << 2,
	kCtConfirmed = 1 << 3,
	kCtDying = 1 << 9,
	kCtOffload = 1 << 14,	/* a flowtable flow carries it (flow_table.h) */
};

/* TCP window tracking flags (IP_CT_TCP_FLAG_*). */
enum CtTcpFlag : uint8_t {
	kTcpFlagWindowScale = 0x01,
	kTcpFlagSackPerm = 0x02,
	kTcpFlagCloseInit = 0x04,
	kTcpFlagBeLiberal = 0x08,
	kTcpFlagDataUnacked = 0x10,
	kTcpFlagMaxackSet = 0x20,
	kTcpFlagChallengeAck = 0x40,	/* IP_CT_EXP_CHALLENGE_ACK (last_flags) */
	kTcpFlagSimultaneousOpen = 0x80,	/* IP_CT_TCP_SIMULTANEOUS_OPEN */
};

struct CtTcpSeen {
	uint32_t td_end;	/* max of seq + len */
	uint32_t td_maxend;	/* max of ack + max(win, 1) */
	uint32_t td_maxwin;	/* max(win) */
	uint32_t td_maxack;	/* max of ack */
	uint8_t td_scale;
	uint8_t flags;		/* CtTcpFlag */
	uint16_t reserved;
};

struct CtTcp {
	CtTcpSeen seen[2];	/* per direction (the sender's view) */
	uint32_t last_seq;
	uint32_t last_ack;
	uint32_t last_end;
	uint16_t last_win;
	uint8_t state;		/* CtTcpState */
	uint8_t last_dir;
	uint8_t last_index;	/* CtTcpIndex of the last in-window segment */
	uint8_t last_wscale;
	uint8_t last_flags;
	uint8_t retrans;
};

/* nf_conntrack_proto_sctp's ip_ct_sctp. */
struct CtSctp {
	uint32_t vtag[2];	/* verification tag expected per direction
				 * (host order; 0: not known yet) */
	uint8_t state;		/* CtSctpState */
	uint8_t init[2];	/* an INIT was seen from this direction */
	uint8_t flags;		/* kSctpFlagHeartbeatVtagFailed */
	uint8_t last_dir;	/* the direction whose HEARTBEAT failed its vtag */
	uint8_t reserved[3];
};

/* nf_conntrack_proto_dccp's nf_ct_dccp. */
struct CtDccp {
	uint32_t handshake_seq[2];	/* the server's Response sequence number
					 * (48 bits: [0] high, [1] low) */
	uint8_t state;		/* CtDccpState */
	uint8_t role[2];	/* CtDccpRole per direction */
	uint8_t last_dir;	/* direction of the last packet tracked */
	uint8_t last_pkt;	/* its DCCP packet type */
	uint8_t reserved[3];
};

struct CtUdp {
	uint32_t stream_ts;	/* ticks after which a replied flow is a stream */
};

/*
 * An entry is 184 bytes with no padding, from the tables' own object cache
 * (CtTable::init), which packs them 184 bytes apart: an entry starts on
 * any 8-byte boundary. Hottest first: what a lookup reads (links, tuple,
 * expiry, status: 64 bytes), then the tracker's state and the counters;
 * the mark, the rcu head and the flowtable's link last.
 */
struct CtEntry {
	uintptr_t next[2];	/* chain links of the two directions (tagged) */
	CtTuple tuple;		/* original direction; never changes */
	uint32_t expires;	/* ticks; load_once/store_once */
	uint16_t status;	/* CtStatusBit; changed under the entry lock
				 * or (confirm, kill) the table lock */
	uint8_t lock;		/* the entry's spin bit (datapath only) */
	uint8_t reserved;
	union {
		CtTcp tcp;
		CtSctp sctp;
		CtDccp dccp;
		CtUdp udp;
	} proto;
	uint32_t mark;
	uint64_t packets[2];	/* per direction */
	uint64_t bytes[2];	/* per direction (IP length) */
	xb_rcu_head rcu;
	void *flow;		/* the flow carrying it while kCtOffload
				 * (flow_table.h; under the flow table's lock) */

	uint16_t status_bits() const { return __atomic_load_n(&status, __ATOMIC_RELAXED); }
	uint8_t tcp_state() const { return load_once(proto.tcp.state); }
	uint8_t sctp_state() const { return load_once(proto.sctp.state); }
	uint8_t dccp_state() const { return load_once(proto.dccp.state); }
	void set_status(uint16_t bits) { __atomic_fetch_or(&status, bits, __ATOMIC_RELAXED); }
	void clear_status(uint16_t bits) { __atomic_fetch_and(&status, uint16_t(~bits), __ATOMIC_RELAXED); }
};
/* Exactly: no padding, so the cache's objects are 184 bytes (a kmalloc'd
 * entry would take 192). A field added must fit in what is here. */
static_assert(sizeof(CtEntry) == 184, "a connection costs 184 bytes, no padding");

/* The entry's spin bit: the datapath's (bottom halves disabled), and the
 * control path's inside the table lock (CtTable::for_each_locked; the lock
 * disables bottom halves in the kernel). Never take the table lock while
 * holding it. */
class CtEntryLock {
public:
	explicit CtEntryLock(CtEntry &e) : e_(e)
	{
		while (__atomic_exchange_n(&e_.lock, uint8_t(1), __ATOMIC_ACQUIRE))
			while (__atomic_load_n(&e_.lock, __ATOMIC_RELAXED))
				;
	}
	~CtEntryLock() { __atomic_store_n(&e_.lock, uint8_t(0), __ATOMIC_RELEASE); }
	CtEntryLock(const CtEntryLock &) = delete;
	CtEntryLock &operator=(const CtEntryLock &) = delete;

private:
	CtEntry &e_;
};

/* Wrap-safe "tick a is after tick b". */
inline bool ct_ticks_after(uint32_t a, uint32_t b)
{
	return int32_t(b - a) < 0;
}

inline bool ct_expired(const CtEntry &e, uint32_t now)
{
	return !ct_ticks_after(load_once(e.expires), now);
}

/* Counters of `conntrack -S` (Linux 6.1's set), per CPU. */
struct CtStats {
	uint64_t found;		/* NAT's tuple-taken hits; not used without NAT */
	uint64_t invalid;	/* packets that got no ct (INVALID) */
	uint64_t insert;	/* entries confirmed */
	uint64_t insert_failed;	/* confirm lost to an equal entry */
	uint64_t drop;		/* packets dropped: table full, insert failed */
	uint64_t early_drop;	/* unassured entries dropped to make room */
	uint64_t error;		/* ICMP(v6) errors that were not valid */
	uint64_t search_restart;
	uint64_t clash_resolve;
	uint64_t chaintoolong;
};

/*
 * Connection events, as ctnetlink sends them:
 *   New       (IPCT_NEW) an entry was confirmed (inserted); under the table
 *             lock. Changes an unconfirmed entry went through before are
 *             part of it, as nf_conntrack folds cached events into NEW.
 *   Update    a confirmed entry's status or protocol state changed on a
 *             frame (IPCT_REPLY: seen reply, IPCT_ASSURED, IPCT_PROTOINFO:
 *             a TCP state transition); from the datapath after the entry's
 *             spin bit is released, no table lock held.
 *   Destroy   (IPCT_DESTROY) the entry left the table (expired, killed,
 *             early dropped, flushed, deleted); under the table lock.
 *   FlowTeardown  the flowtable handed the connection back (kCtOffload
 *             cleared): an update whose @detail is the FlowTeardown cause
 *             (flow_table.h); under the flowtable's lock or, when
 *             conntrack removes the entry, under the table's.
 * Possibly from the datapath (softirq): must not sleep, and must not take
 * the conntrack or flowtable locks. The entry is readable for the call.
 * @detail is 0 but for FlowTeardown. Freeing the table (fini) reports
 * nothing.
 */
enum class CtEventType : uint8_t {
	New = 0,
	Destroy = 1,
	Update = 2,
	FlowTeardown = 3,
};
struct CtEventSink {
	void (*fn)(void *ctx, CtEventType type, const CtEntry &e, uint8_t detail) = nullptr;
	void *ctx = nullptr;

	void operator()(CtEventType type, const CtEntry &e, uint8_t detail = 0) const
	{
		if (fn)
			fn(ctx, type, e, detail);
	}
};

/*
 * The flowtable's hooks into conntrack. fn: an entry with kCtOffload is
 * being removed (table lock held); the sink unlinks its flow before the
 * entry can be freed. missed: a frame of an entry with kCtOffload reached
 * the tracker (it missed the entry's flows: another port, VLAN or MAC, or
 * its flow was not found stale yet); the sink tears the flows down first
 * (no lock held, RCU read section), so that the frame is tracked with the
 * connection handed back. Neither may sleep.
 */
struct CtOffloadSink {
	void (*fn)(void *ctx, CtEntry &e) = nullptr;
	void (*missed)(void *ctx, CtEntry &e, uint32_t now) = nullptr;
	void *ctx = nullptr;
};

/* Which entries a flush or delete takes; unset fields match anything. */
struct CtFilter {
	int32_t zone = -1;
	bool match_mark = false;
	uint32_t mark = 0;
	uint32_t mark_mask = 0xffffffff;
};

class CtTable {
public:
	static constexpr uint32_t kDefaultMax = 65536;
	static constexpr uint32_t kMaxBuckets = 1u << 24;

	/* Control. @buckets is any count from 1 to kMaxBuckets, as
	 * nf_conntrack_buckets (a bucket is chosen by scaling the hash, not
	 * masking it); @max is nf_conntrack_max (0: no bound). */
	int init(uint32_t buckets, uint32_t max, Extack *ack);
	/* Control, no readers left: free every entry and the table. */
	void fini();
	/*
	 * Control: destroy the object cache every table's entries come from
	 * (one for all tables, as nf_conntrack's kmem_cache; the first init()
	 * creates it). Only with no table left and after xb_rcu_barrier(), so
	 * that the entries' call_rcu frees have run: at the kernel module's
	 * exit. Userspace may leave it to the process's end.
	 */
	static void destroy_entry_cache();

	/*
	 * Datapath, RCU read section. The entry holding @key in either
	 * direction (@dir: 0 original, 1 reply), or nullptr. An expired entry
	 * is removed on the way (as ____nf_conntrack_find does) and not
	 * returned.
	 */
	CtEntry *lookup(const CtTuple &key, uint32_t now, uint8_t *dir);
	/* The same in @key's bucket_of() (the hit path: inline; batches
	 * compute the bucket ahead). */
	CtEntry *lookup_in(const CtTuple &key, uint32_t bucket, uint32_t now, uint8_t *dir);
	/* Datapath: the bucket of a tuple: its hash scaled to the bucket
	 * count, as nf_conntrack's scale_hash (reciprocal_scale), so a table
	 * has any number of buckets for one multiply. */
	uint32_t bucket_of(const CtTuple &t) const
	{
		return uint32_t((uint64_t(uint32_t(ct_tuple_hash(t, seed_))) * nbuckets_) >> 32);
	}
	/* Datapath (batches): prefetch @bucket, then (a later step) the
	 * first entry of its chain. */
	void prefetch_bucket(uint32_t bucket) const { prefetch(&buckets_[bucket]); }
	void prefetch_chain(uint32_t bucket) const
	{
		const uintptr_t l = __atomic_load_n(&buckets_[bucket], __ATOMIC_RELAXED);
		if (l)
			prefetch_entry(link_entry(l));
	}

	/*
	 * Batches over a table larger than the caches (prefetch_deep()), after
	 * prefetch_chain() and some other work: when the chain's first entry
	 * (in cache by then) is plainly not @key's connection, prefetch the
	 * next one too. Each entry sits in two chains, so a full table's
	 * chains hold two entries on average and about half the hits are
	 * second in theirs: a dependent miss the lookup would wait for alone.
	 * A cheap look (the key's source and source port against the entry's
	 * end for that direction) suffices: a wrong guess costs a prefetch,
	 * never a result.
	 */
	static constexpr uint32_t kCtPrefetchDeepMin = 32768;	/* 6 MB of entries */
	bool prefetch_deep() const { return count() >= kCtPrefetchDeepMin; }
	void prefetch_second(const CtTuple &key, uint32_t bucket) const
	{
		const uintptr_t l = __atomic_load_n(&buckets_[bucket], __ATOMIC_RELAXED);
		if (!l)
			return;
		const CtEntry *e = link_entry(l);
		const bool reply = l & 1;
		const uint8_t *addr = reply ? e->tuple.dst : e->tuple.src;
		const uint16_t port = reply ? e->tuple.dport : e->tuple.sport;
		if (port == key.sport && __builtin_memcmp(addr, key.src, 16) == 0)
			return;
		const uintptr_t next = __atomic_load_n(&e->next[reply], __ATOMIC_RELAXED);
		if (next)
			prefetch_entry(link_entry(next));
	}

	/*
	 * Datapath: a zeroed, unconfirmed entry for @orig (whose inverse must
	 * exist). When the table holds max entries, early-drops unassured
	 * entries near @orig's bucket first; nullptr when none could go or
	 * allocation failed (the caller drops the frame and counts it).
	 */
	CtEntry *alloc_unconfirmed(const CtTuple &orig, uint32_t now);
	/* Free an entry alloc_unconfirmed() returned that was never confirmed. */
	void free_unconfirmed(CtEntry *e);
	/*
	 * Datapath: insert an unconfirmed entry in both chains. False when an
	 * entry with either tuple is already there (a race): the entry is
	 * freed and insert_failed counted.
	 */
	bool confirm(CtEntry *e, uint32_t now) XB_EXCLUDES(lock_);
	/* Datapath or control: remove a confirmed entry (idempotent). */
	void kill(CtEntry *e) XB_EXCLUDES(lock_);

	/*
	 * Control: GC. Visit up to @max_buckets buckets from where the last
	 * slice stopped, under the lock, removing expired entries. Returns how
	 * many were removed; *wrapped (if given) says the cursor passed the
	 * end of the table in this slice.
	 */
	unsigned gc_slice(uint32_t now, uint32_t max_buckets, bool *wrapped = nullptr) XB_EXCLUDES(lock_);
	/* Control: remove every matching entry; returns how many. */
	unsigned flush(const CtFilter &f) XB_EXCLUDES(lock_);
	/* Control: remove the entry holding @t (in either direction). */
	int del(const CtTuple &t, const CtFilter &f, Extack *ack) XB_EXCLUDES(lock_);

	/*
	 * Control: resumable walk for dumps (as Fdb::for_each_from), each
	 * confirmed entry once, from its original-direction link. Start with
	 * (0, 0); returns true at the end of the table.
	 *
	 * As an RCU reader, without the table lock: a dump needs no privilege
	 * and must not hold off insertion, GC or the datapath's early drop
	 * (ctnetlink_dump_table takes one bucket lock at a time). @fn sees an
	 * entry as a lookup does (fields with load_once, dying entries
	 * included: it filters them) and must not sleep. The bucket array
	 * never moves, and a removed entry keeps its links until call_rcu
	 * frees it, so a walker standing on one reaches the rest of its chain;
	 * entries inserted or removed between two calls shift the position in
	 * the current chain, so one may then be missed or shown twice, as
	 * with `conntrack -L` under traffic.
	 */
	template <typename Fn> bool for_each_from(uint32_t &bucket, uint32_t &skip, Fn fn) const
	{
		RcuReadGuard rcu;
		for (uint32_t b = bucket; b < nbuckets_; b++) {
			uint32_t n = 0;
			for (uintptr_t l = load_link(buckets_[b]); l;
			     l = load_link(link_entry(l)->next[l & 1])) {
				if (l & 1)
					continue;	/* visited from its original link */
				if (b == bucket && n < skip) {
					n++;
					continue;
				}
				if (!fn(*link_entry(l))) {
					bucket = b;
					skip = n;
					return false;
				}
				n++;
			}
		}
		bucket = nbuckets_;
		skip = 0;
		return true;
	}

	/*
	 * Control: @fn(e) for every confirmed entry, with the entry's spin
	 * bit held (its tracking state may change), the table lock taken for
	 * kWalkSlice buckets at a time, so that insertions and removals wait
	 * for one slice at most (nf_ct_iterate_cleanup_net takes one bucket
	 * lock at a time). @fn must not take the table lock. Entries that
	 * come or go during the walk may be missed. Returns how many @fn
	 * returned true for.
	 */
	static constexpr uint32_t kWalkSlice = 256;
	template <typename Fn> unsigned for_each_locked(Fn fn)
	{
		unsigned n = 0;
		for (uint32_t b = 0; b < nbuckets_;) {
			RcuReadGuard rcu;
			LockGuard guard(lock_);
			for (const uint32_t end = b + kWalkSlice; b < nbuckets_ && b < end; b++) {
				for (uintptr_t l = buckets_[b]; l; l = link_entry(l)->next[l & 1]) {
					CtEntry &e = *link_entry(l);
					if ((l & 1) || (e.status & kCtDying))
						continue;	/* visited from its original link */
					CtEntryLock elock(e);
					n += fn(e) ? 1 : 0;
				}
			}
		}
		return n;
	}

	uint32_t count() const { return __atomic_load_n(&count_, __ATOMIC_RELAXED); }
	uint32_t max() const { return load_once(max_); }
	void set_max(uint32_t max) { store_once(max_, max); }
	uint32_t buckets() const { return nbuckets_; }
	/* Control, before the table is published to the datapath. */
	void set_event_sink(CtEventSink sink) { sink_ = sink; }
	/* Datapath: the sink (Update events are the tracker's, ct_track.cc). */
	const CtEventSink &event_sink() const { return sink_; }
	void set_offload_sink(CtOffloadSink sink) { offload_sink_ = sink; }
	/* Datapath: a frame of @e, offloaded, is about to be tracked. */
	void offload_missed(CtEntry &e, uint32_t now) const
	{
		if (offload_sink_.missed)
			offload_sink_.missed(offload_sink_.ctx, e, now);
	}
	CtStats *stats_this_cpu() const { return stats_.this_cpu(); }
	/* Sum of every CPU's counters. */
	CtStats stats_sum() const;
	/* One CPU's counters (conntrack -S prints a line per CPU); false for
	 * an impossible CPU. */
	bool stats_cpu(unsigned cpu, CtStats &out) const;

private:
	static CtEntry *link_entry(uintptr_t l) { return reinterpret_cast<CtEntry *>(l & ~uintptr_t(1)); }
	/* What a hit touches, up to the counters' end: 160 bytes, on 3 cache
	 * lines, or 4 for the entries that start past a line's 32nd byte. */
	static void prefetch_entry(const CtEntry *e)
	{
		const char *p = reinterpret_cast<const char *>(e);
		prefetch(p);
		prefetch(p + 64);
		prefetch(p + 128);
		prefetch(p + __builtin_offsetof(CtEntry, rcu) - 1);
	}
	/* A chain link as an RCU reader loads it (writers publish with release). */
	static uintptr_t load_link(const uintptr_t &l) { return __atomic_load_n(&l, __ATOMIC_ACQUIRE); }
	static uintptr_t make_link(CtEntry *e, unsigned dir) { return reinterpret_cast<uintptr_t>(e) | dir; }
	void unlink_locked(CtEntry *e) XB_REQUIRES(lock_);
	void remove_locked(CtEntry *e) XB_REQUIRES(lock_);
	bool early_drop(uint32_t bucket, uint32_t now) XB_EXCLUDES(lock_);
	static void free_rcu(xb_rcu_head *head);

	uintptr_t *buckets_ = nullptr;	/* links; rcu_publish'd entries */
	uint32_t nbuckets_ = 0;
	uint64_t seed_ = 0;
	xb_lock *lock_ = nullptr;
	uint32_t count_ = 0;		/* confirmed + unconfirmed */
	uint32_t max_ = 0;
	uint32_t gc_cursor_ XB_GUARDED_BY(lock_) = 0;
	CtEventSink sink_;
	CtOffloadSink offload_sink_;
	PerCpu<CtStats> stats_;
};

/* Inline: the datapath's lookup is a short walk worth no call. Always: an
 * out-of-line copy is a COMDAT section, which the module's link may
 * discard from under another object's __mcount_loc entry. */
xb_always_inline CtEntry *CtTable::lookup_in(const CtTuple &key, uint32_t bucket, uint32_t now, uint8_t *dir)
{
	for (uintptr_t l = load_link(buckets_[bucket]); l;) {
		CtEntry *e = link_entry(l);
		const unsigned d = l & 1;
		const bool match = d == 0 ? e->tuple == key : ct_tuple_is_reply(e->tuple, key);
		if (match && !(e->status_bits() & kCtDying)) {
			if (xb_unlikely(ct_expired(*e, now))) {
				kill(e);
				return nullptr;
			}
			*dir = uint8_t(d);
			return e;
		}
		l = load_link(e->next[d]);
	}
	return nullptr;
}

} // namespace xb

#endif /* XBRIDGE_CORE_CT_TABLE_H */
