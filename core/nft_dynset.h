/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_dynset.h - sets that frames write: nft's `add @set { ... }`,
 * `update @set { ... }` and `delete @set { ... }` (nft_dynset), and the
 * table that holds the elements frames added.
 *
 * A set's elements are in two places. What the control plane added sits in
 * its ElemStore and, per generation, in an immutable SetIndex
 * (nft_set.h). What frames added sits in the set's DynTable: one table per
 * set, shared by every generation, written from the datapath. A lookup
 * tries the SetIndex, then the DynTable; a set statement adds to the
 * DynTable only a key the SetIndex does not hold, so a key is in at most
 * one of them (nft_rhash_update's "the live element, or a new one").
 *
 * Locking: a DynTable's buckets are RCU-published singly linked lists.
 * Readers (lookups, set statements finding an element, dumps) walk them
 * inside an RCU read section without a lock. Writers (a frame adding or
 * deleting, the control plane deleting, flushing or collecting expired
 * elements) hold the table's lock, a bh-safe spinlock, and free what they
 * unlink after a grace period (xb_call_rcu). An element's expiry is written
 * by `update` without the lock (one 64-bit word, load_once/store_once); its
 * counters and quotas are atomics; its limits' buckets and ct count lists
 * are guarded by the table's lock. The elements the control plane added
 * keep their expressions (ElemExprs) in the set's ElemStore, their limits
 * and ct counts guarded by the set's own lock (SetObj::exprs_lock).
 *
 * Ownership: the SetObj (nft_ruleset.h) owns its DynTable and destroys it
 * when the set is freed, after every generation that could reach it. A
 * rule's Dynset (the statement's parameters) is owned by its ParsedRule.
 */
#ifndef XBRIDGE_CORE_NFT_DYNSET_H
#define XBRIDGE_CORE_NFT_DYNSET_H

#include <stdint.h>

#include "compiler.h"
#include "errors.h"
#include "nft_connlimit.h"
#include "nft_expr.h"
#include "nft_set.h"
#include "platform.h"

namespace xb::nft {

struct Pkt;

/* What a set statement did with a frame: go on, break the rule, or drop
 * the frame (a `ct count` in the element that cannot count it). */
enum class DynsetResult : uint8_t { Match, Break, Drop };

constexpr unsigned kElemExprMax = 2;	/* NFT_SET_EXPR_MAX */
/* NFTA_DYNSET_* and nft_dynset_ops */
enum : uint16_t {
	kDynsetSetName = 1, kDynsetSetId = 2, kDynsetOp = 3, kDynsetSregKey = 4,
	kDynsetSregData = 5, kDynsetTimeout = 6, kDynsetExpr = 7, kDynsetFlags = 9,
	kDynsetExpressions = 10,
};
enum : uint32_t { kDynsetOpAdd = 0, kDynsetOpUpdate = 1, kDynsetOpDelete = 2 };
constexpr uint32_t kDynsetFInv = 0x1;
constexpr uint32_t kDynsetFExpr = 0x2;
/* What nft_dynset_init gives a set that a set statement binds without a
 * size of its own (and what its dumps report from then on). */
constexpr uint32_t kDynsetDefaultSize = 0xffff;

/*
 * One stateful expression of an element (nft_set_elem_expr): counter,
 * limit, quota or ct count, its parameters and its state by value, so that
 * an element outlives the rule that made it and still dumps what it holds.
 * A ct count's list of connections is the element's own (the statement's
 * template holds an empty one). "The element's lock" below is its
 * DynTable's lock, or for an element the control plane added its set's
 * exprs_lock.
 */
enum class ElemExprKind : uint8_t { Counter, Limit, Quota, Connlimit };

struct ElemLimit {
	uint64_t tokens;	/* guarded by the element's lock */
	uint64_t last_ns;	/* guarded by the element's lock */
	uint64_t tokens_max;
	uint64_t rate;
	uint64_t unit_s;
	uint64_t nsecs;
	uint32_t burst;
	uint32_t type;
	uint32_t flags;
};

struct ElemExpr {
	ElemExprKind kind;
	union {
		struct {
			uint64_t packets;	/* atomic */
			uint64_t bytes;		/* atomic */
		} counter;
		ElemLimit limit;
		Quota quota;
		struct {
			ConnList list;	/* guarded by the element's lock */
			uint32_t limit;
			uint32_t flags;	/* kConnlimitFInv */
		} connlimit;
	};
};

/*
 * An element's stateful expressions (NFT_SET_EXT_EXPRESSIONS), in order:
 * what a frame's lookup or set statement that finds the element runs
 * (nft_set_elem_update_expr), and what a set or a set statement declares
 * for the elements it makes (templates, their state zero).
 */
struct ElemExprs {
	uint8_t count;
	ElemExpr expr[kElemExprMax];
};

/* Control: parse one stateful expression (an NFTA_LIST_ELEM or
 * NFTA_*_EXPR nest) as nft_set_elem_expr_alloc does. */
int parse_elem_expr(const Attr &nest, ElemExpr &out, Extack *ack);
/* Control: parse a list of them (NFTA_*_EXPRESSIONS): NFTA_LIST_ELEMs, at
 * most NFT_SET_EXPR_MAX (E2BIG). With @set (a set's own; none if its
 * count is 0) the list must be the set's kinds in the set's order
 * (EOPNOTSUPP), and one past the set's count fails with @past_set, the
 * error nf_tables gives there. */
int parse_elem_expr_list(const Attr &list, const ElemExprs *set, int past_set, ElemExprs &out,
			 Extack *ack);
/* Control: a new element's expressions from @tmpl: the parameters and
 * zero state (a limit's bucket full from @now_ns, an empty ct count). */
void elem_exprs_instantiate(ElemExprs &dst, const ElemExprs &tmpl, uint64_t now_ns);
/* What @x holds besides itself (a ct count's list), freed. */
void elem_exprs_release(ElemExprs &x);
/* The same expressions, kind for kind (nft_set_is_same's ops compare). */
bool elem_exprs_same_kinds(const ElemExprs &a, const ElemExprs &b);
/* Run @x for one frame (nft_set_elem_update_expr): Break if one of them
 * breaks (a limit over its rate, a quota past its bound, a ct count past
 * its own), Drop if a ct count drops the frame (no connection). @lock
 * guards the limits' buckets and the ct counts' lists. */
DynsetResult eval_elem_exprs(ElemExprs &x, xb_lock *lock, const Pkt &p);

/* An element a frame added. The key and then the map data follow it. */
struct DynEntry {
	DynEntry *next;		/* RCU: the bucket's next element */
	xb_rcu_head rcu;
	uint64_t expires_ns;	/* 0: never; `update` rewrites it (store_once) */
	uint64_t timeout_ns;	/* 0: none */
	uint32_t hash;
	ElemExprs exprs;

	uint8_t *key() { return reinterpret_cast<uint8_t *>(this + 1); }
	const uint8_t *key() const { return reinterpret_cast<const uint8_t *>(this + 1); }
};

/* A set statement's parameters (nft_dynset), fixed when its rule is added. */
struct Dynset {
	void *set;		/* the control SetObj */
	uint32_t op;		/* kDynsetOp* */
	bool invert;
	bool map;		/* sreg_data holds the element's data */
	uint8_t sreg_key;	/* register word indexes */
	uint8_t sreg_data;
	uint32_t key_len;
	uint32_t data_len;
	uint32_t size;		/* the set's bound: at most this many elements */
	/* The element's timeout: the statement's, else the set's; 0: the
	 * element never expires. */
	uint64_t timeout_ns;
	uint64_t given_timeout_ns;	/* NFTA_DYNSET_TIMEOUT as given (0: none) */
	ElemExprs exprs;	/* templates: a new element copies them */
};

class DynTable {
public:
	/* Control: an empty table for a set of @layout that holds at most
	 * @bound elements; nullptr without memory. */
	static DynTable *create(const SetLayout &layout, uint32_t bound, Extack *ack);
	/* Control: free the table and every element; no frame can reach it. */
	static void destroy(DynTable *t);

	/* ---- datapath (inside an RCU read section) ---- */

	/* The element with @key that has not expired by @now_ns. */
	const DynEntry *find(const uint8_t *key, uint64_t now_ns) const;
	/* nft_rhash_update: the live element with @key, or a new one made
	 * from @d (data from @data for maps) if the set has room for it
	 * beside @static_count elements; nullptr if it had none or no memory.
	 * @added tells which. */
	DynEntry *find_or_add(const Dynset &d, const uint8_t *key, const uint8_t *data,
			      uint32_t static_count, uint64_t now_ns, Conntrack *ct,
			      bool &added);
	/* nft_rhash_delete: unlink the element with @key; false if none. */
	bool remove(const uint8_t *key, uint64_t now_ns);

	/* An element's stateful expressions for one frame
	 * (eval_elem_exprs under the table's lock). */
	DynsetResult eval_exprs(DynEntry &e, const Pkt &p) { return eval_elem_exprs(e.exprs, lock_, p); }
	xb_lock *lock() const { return lock_; }

	/* ---- control (the ruleset's lock held) ---- */

	/* Elements, expired ones too. */
	uint32_t count() const { return __atomic_load_n(&count_, __ATOMIC_RELAXED); }
	/* Call @fn(const DynEntry &) for each element live at @now_ns, in
	 * bucket order (inside an RCU read section). */
	template <typename Fn> void for_each_live(uint64_t now_ns, Fn fn) const
	{
		for (uint32_t b = 0; b <= mask_; b++)
			for (const DynEntry *e = rcu_deref(buckets_[b]); e; e = rcu_deref(e->next))
				if (!elem_expired(load_once(e->expires_ns), now_ns))
					fn(*e);
	}
	/* Unlink the elements expired by @now_ns, a slice of buckets per
	 * lock hold (the datapath waits for one slice at most). */
	void purge_expired(uint64_t now_ns);

	uint32_t key_len() const { return key_len_; }
	uint32_t data_len() const { return data_len_; }
	/* The map data of @e (data_len() bytes). */
	static const uint8_t *data_of(const DynTable &t, const DynEntry &e)
	{
		return e.key() + ((t.key_len_ + 7u) & ~7u);
	}

private:
	uint32_t hash_of(const uint8_t *key) const;
	bool same_key(const DynEntry &e, const uint8_t *key, uint32_t hash) const;
	/* Unlink @e (its predecessor's link at @link) and free it after a
	 * grace period. Lock held. */
	void unlink(DynEntry **link, DynEntry *e) XB_REQUIRES(lock_);
	/* The garbage collection in slices (nft_rhash_gc's work, done by the
	 * writers): the expired elements of the next @buckets buckets go. */
	void collect_locked(uint32_t buckets, uint64_t now_ns, Conntrack *ct = nullptr)
		XB_REQUIRES(lock_);
	/* Unlink the expired elements of bucket @b (masked), and with @ct
	 * (a frame's tracker) those whose ct count lists have emptied
	 * (nft_rhash_gc asks nft_connlimit_gc). */
	void sweep_bucket(uint32_t b, uint64_t now_ns, Conntrack *ct = nullptr)
		XB_REQUIRES(lock_);
	void collect_slice(uint32_t buckets, uint64_t now_ns, Conntrack *ct = nullptr);

	/* Buckets each insert collects (the whole table every few thousand
	 * inserts), and what a full set collects before it gives up. */
	static constexpr uint32_t kInsertSlice = 2;
	static constexpr uint32_t kFullSlice = 64;

	xb_lock *lock_;
	DynEntry **buckets_;	/* RCU-published chain heads */
	uint32_t mask_;
	uint32_t seed_;
	uint32_t key_len_;
	uint32_t data_len_;
	uint32_t count_;	/* atomic; changed under the lock */
	uint32_t gc_cursor_;	/* the next bucket to collect; under the lock */
};

/*
 * Control: what the rule parser needs of the set a statement names, from
 * the ruleset (Resolver::dynset_target).
 */
struct DynsetTarget {
	uint32_t flags;		/* NFTA_SET_FLAGS */
	const SetLayout *layout;
	uint64_t timeout_ns;	/* the set's default */
	uint32_t *size;		/* the set's bound, 0 unbounded: binding a
				 * statement sets the default */
	DynTable **table;	/* the set's table: made when a statement first
				 * binds the set */
	const ElemExprs *exprs;	/* the set's own (NFTA_SET_EXPR[ESSIONS]) */
};

/* Parse NFTA_DYNSET_* (@tb, up to kDynsetExpressions) into @in (Op::Dynset,
 * ref: a Dynset in @out.plain). */
int parse_dynset(const Attr *tb, Resolver &res, Insn &in, ParsedRule &out, Extack *ack);

/* Run a set statement. @index is the generation's SetIndex of the set. */
DynsetResult eval_dynset(const Insn &in, const SetIndex &index, const uint32_t *regs,
			 const Pkt &p);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_DYNSET_H */
