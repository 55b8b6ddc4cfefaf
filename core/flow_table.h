/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow_table.h - the bridge flowtable's flows: established connections
 * whose frames skip the FDB, the ruleset and conntrack (bridge_flow.h says
 * when a flow is added, hit and torn down).
 *
 * A Flow holds, for each direction of one connection, the key its frames
 * arrive with and what the slow path decided for them: the egress port,
 * its tag action and the VID. The key is what nf_flow_table keys a flow by
 * - the conntrack tuple (without the zone, which is not known before the
 * prerouting chains run), the ingress port and the outer VLAN tag as
 * received - plus the two MAC addresses, because a bridge decides by them:
 * a frame of the same connection to another destination MAC must not take
 * the cached port.
 *
 * Validity is a generation: the bridge bumps its flow generation on every
 * change that could make a cached decision stale (bridge_flow.h lists
 * them), and a flow added under another generation is torn down on its
 * next hit or by the GC.
 *
 * Ownership. The table owns its buckets and its flows. A flow points at its
 * conntrack entry, which points back (CtEntry::flow) while kCtOffload is
 * set: conntrack removing an offloaded entry detaches its flow first
 * (ct_removed(), under the conntrack table's lock), so a flow never points
 * at a freed entry; the GC then unlinks the flow.
 *
 * Locking. One table lock (bottom-half safe in the kernel) serialises
 * adding and removing flows; it never nests with the conntrack table's
 * (ct_removed() takes none, and works with atomics against add() and
 * remove). Lookups walk a bucket chain
 * under RCU; removed flows are freed through call_rcu, so a flow a reader
 * found stays readable for its read section. A flow handing its
 * connection back is reported to conntrack's event sink from where it
 * happens - under this lock, or under conntrack's in ct_removed() - and the
 * sink takes neither lock (it only builds and sends a message), so the
 * report adds no lock nesting. The datapath writes a flow's
 * expiry and learning stamps with store_once, only when they change.
 */
#ifndef XBRIDGE_CORE_FLOW_TABLE_H
#define XBRIDGE_CORE_FLOW_TABLE_H

#include <stdint.h>

#include "ct_table.h"
#include "ethernet.h"
#include "percpu.h"
#include "platform.h"

namespace xb {

struct Port;

/* nf_flow_table's default flow timeout, refreshed by every hit. */
constexpr uint32_t kFlowTimeoutMs = 30 * 1000;
/* While offloaded, conntrack's entry is kept alive this long
 * (nf_ct_offload_timeout's NF_CT_DAY), refreshed at half of it. */
constexpr uint32_t kFlowCtTimeoutMs = 86400u * 1000;
/* The learning refresh a direction's hits give its source address. */
constexpr uint32_t kFlowLearnIntervalMs = 1000;

struct FlowKey {
	CtTuple tuple;		/* zone 0 */
	const Port *in;		/* the ingress port */
	MacKey src;
	MacKey dst;
	uint16_t vlan_proto;	/* the outer tag as received; 0: none */
	uint16_t vlan_id;
	uint32_t pad;

	uint64_t word(unsigned i) const
	{
		uint64_t w;
		__builtin_memcpy(&w, reinterpret_cast<const char *>(this) + 8 * i, 8);
		return w;
	}
	/* Word by word, no branch until the end (straight-line loads). */
	bool operator==(const FlowKey &o) const
	{
		return ((word(0) ^ o.word(0)) | (word(1) ^ o.word(1)) | (word(2) ^ o.word(2)) |
			(word(3) ^ o.word(3)) | (word(4) ^ o.word(4)) | (word(5) ^ o.word(5)) |
			(word(6) ^ o.word(6)) | (word(7) ^ o.word(7)) | (word(8) ^ o.word(8))) == 0;
	}
};
static_assert(sizeof(FlowKey) == 72, "a flow key is nine words, no padding");

struct Flow;

/*
 * One direction: everything a hit reads and writes is here, in two cache
 * lines (the kernel allocates a Flow from a 512-byte, 512-aligned slab)
 * - the key, the decision, the validity stamp and the counters the
 * GC folds into conntrack's entry (so a hit touches no other memory).
 */
struct FlowDir {
	FlowDir *next;		/* bucket chain (rcu_publish / rcu_deref) */
	Flow *flow;
	FlowKey key;
	Port *out;		/* the egress port */
	uint64_t stamp;		/* flow_stamp() when added */
	uint64_t bytes;		/* not yet folded into conntrack (IP length) */
	uint32_t packets;	/* not yet folded into conntrack */
	uint32_t learned;	/* tick of the last refresh (learning, expiry) */
	uint16_t vid;		/* the VID inside the bridge (0: no filtering) */
	uint8_t tag;		/* TagAction */
	uint8_t dir;		/* its index in Flow::d (0: the frame that added it) */
	uint8_t ct_dir;		/* its conntrack direction (0 original, 1 reply) */
	uint8_t dead;		/* unlinked (set under the lock) */
	uint16_t pad;
};
static_assert(sizeof(FlowDir) == 128, "a flow direction is two cache lines");

/* What a flow is valid under: the bridge's flow generation and the
 * ruleset generation's id. */
inline uint64_t flow_stamp(uint32_t bridge_gen, uint32_t nft_gen)
{
	return uint64_t(nft_gen) << 32 | bridge_gen;
}

/* Why a flow left the table (numbered as enum xbridge_flow_teardown). */
enum class FlowTeardown : uint8_t {
	Stale,		/* the bridge's flow generation moved (bridge_flow.h) */
	FinRst,		/* a FIN or RST: back to conntrack */
	Timeout,	/* no hit for kFlowTimeoutMs */
	Conntrack,	/* conntrack removed the entry (flush, delete) */
	Flush,		/* the table went away (conntrack off, bridge deleted) */
	Ruleset,	/* a ruleset commit (the generation id moved) */
	Count,
};
constexpr unsigned kFlowTeardownCount = unsigned(FlowTeardown::Count);

/* Which of a stamp's two generations moved: the ruleset's or the bridge's. */
inline FlowTeardown stale_cause(uint64_t flow_stamp_was, uint64_t stamp_now)
{
	return (flow_stamp_was >> 32) != (stamp_now >> 32) ? FlowTeardown::Ruleset
							   : FlowTeardown::Stale;
}
struct Flow {
	FlowDir d[2];
	CtEntry *ct;		/* atomic: nullptr once conntrack removed it */
	const void *flowtable;	/* the ruleset's flowtable object that asked */
	uint32_t expires;	/* ticks; refreshed once a second by hits */
	uint16_t zone;
	bool dead;		/* unlinked (under the lock) */
	xb_rcu_head rcu;
};

struct FlowStats {
	uint64_t hits;		/* folded in from the flows by the GC and teardowns */
	uint64_t adds;
	uint64_t add_failed;	/* no memory, table full, lost a race */
	uint64_t teardown[kFlowTeardownCount];
};

class FlowTable {
public:
	static constexpr uint32_t kDefaultBuckets = 131072;	/* kDefaultMax flows, two directions each */
	static constexpr uint32_t kDefaultMax = 65536;

	/* Control. */
	int init(uint32_t buckets, uint32_t max, Extack *ack);
	/* Control, no readers left: free every flow, handing each connection
	 * back to conntrack. */
	void fini(uint32_t now);

	/* Datapath, RCU read section: the direction whose key is @k. */
	FlowDir *lookup(const FlowKey &k) const { return lookup_in(k, bucket_of(k)); }
	/* The same in @k's bucket_of() (batches compute it ahead). */
	FlowDir *lookup_in(const FlowKey &k, uint32_t bucket) const;
	uint32_t bucket_of(const FlowKey &k) const;
	/* Datapath (batches): prefetch a bucket, then (a later step) the
	 * first direction in it, both of its lines. */
	void prefetch_bucket(uint32_t bucket) const { prefetch(&buckets_[bucket]); }
	void prefetch_chain(uint32_t bucket) const
	{
		const FlowDir *d = __atomic_load_n(&buckets_[bucket], __ATOMIC_RELAXED);
		if (d) {
			prefetch(d);
			prefetch(reinterpret_cast<const char *>(d) + 64);
		}
	}

	/* Datapath: a zeroed flow, or nullptr (full, no memory: counted). */
	Flow *alloc();
	/*
	 * Datapath: link @f (both directions filled) and its conntrack entry.
	 * False, freeing @f, when either key is taken or the entry is
	 * already offloaded (a race) - counted.
	 */
	bool add(Flow *f, uint32_t now) XB_EXCLUDES(lock_);
	/* Datapath or control: unlink @f (idempotent) and hand its
	 * connection back to conntrack (nf_flow_table's fixup: liberal TCP
	 * windows, the protocol's timeout). */
	void teardown(Flow *f, FlowTeardown why, uint32_t now) XB_EXCLUDES(lock_);
	/* Conntrack's offload sink: @e is being removed (its table lock held). */
	void ct_removed(CtEntry *e);
	/* Conntrack's offload sink, datapath: a frame of @e missed its flows
	 * and is about to be tracked; tear them down (counted stale). */
	void ct_missed(CtEntry *e, uint32_t now);

	/*
	 * Deferred context, RCU read section: visit up to @max_buckets
	 * buckets from where the last slice stopped; tear down flows that
	 * timed out or whose stamp is not @stamp, fold the live ones'
	 * counters into their conntrack entries and keep those from
	 * expiring. Returns the flows torn down.
	 */
	unsigned gc_slice(uint32_t now, uint64_t stamp, uint32_t max_buckets) XB_EXCLUDES(lock_);

	/* Control: visit every flow (under the lock) until @fn returns false. */
	template <typename Fn> void for_each(Fn fn) const
	{
		LockGuard guard(lock_);
		for (uint32_t b = 0; b <= mask_; b++)
			for (FlowDir *d = buckets_[b]; d; d = d->next)
				if (d->dir == 0 && !fn(*d->flow))
					return;
	}

	/*
	 * Control, before the table is published: conntrack's event sink, told
	 * (CtEventType::FlowTeardown, the cause as detail) when a flow hands
	 * its connection back - under this table's lock (teardown, GC, add's
	 * races), under conntrack's (ct_removed, never both), or from fini.
	 */
	void set_event_sink(CtEventSink sink) { sink_ = sink; }

	uint32_t count() const { return racy(count_); }
	FlowStats *stats_this_cpu() const { return stats_.this_cpu(); }
	/* Control: every CPU's counters, with the hits not folded in yet. */
	FlowStats stats_sum() const XB_EXCLUDES(lock_);

private:
	void unlink_locked(FlowDir *d) XB_REQUIRES(lock_);
	void remove_locked(Flow *f, FlowTeardown why, uint32_t now) XB_REQUIRES(lock_);
	static void free_rcu(xb_rcu_head *head);
	void fold_counters(Flow *f, CtEntry *ct);

	FlowDir **buckets_ = nullptr;
	uint32_t mask_ = 0;
	uint64_t seed_ = 0;
	uint32_t count_ XB_GUARDED_BY(lock_) = 0;	/* read anywhere through racy() */
	uint32_t max_ = 0;
	uint32_t gc_cursor_ XB_GUARDED_BY(lock_) = 0;
	xb_lock *lock_ = nullptr;
	CtEventSink sink_;
	PerCpu<FlowStats> stats_;
};

} // namespace xb

#endif /* XBRIDGE_CORE_FLOW_TABLE_H */
