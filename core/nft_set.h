/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_set.h - nf_tables sets and maps: the element store the control plane
 * edits, and the lookup index a generation's frames search.
 *
 * ElemStore is the control-plane copy of a set's elements in arrival order
 * (what a dump lists). It is edited only under the ruleset's control lock.
 *
 * SetIndex is built from an ElemStore when a generation is built and is
 * immutable afterwards: frames read it inside their RCU read section without
 * any lock. Exact sets of a few elements are scanned; exact sets keyed by at
 * most 4 bytes are an open-addressed table of (key word, entry) pairs, one
 * load a probe; other exact sets an open-addressed hash; single-field interval sets
 * a sorted array of boundaries searched by bisection (nft_set_rbtree's
 * semantics: the greatest boundary <= key decides); concatenated interval
 * sets a list of per-field ranges (nft_set_pipapo's semantics) ordered by
 * the first field's start, with the running maximum of its end, so that a
 * lookup bisects to the last start <= key and walks back only while some
 * earlier range can still reach the key.
 * A map's data (a value, or a verdict resolved to the generation's chain)
 * sits beside each key.
 *
 * Ownership: a Set (nft_ruleset.h) owns its ElemStore; a generation owns
 * its SetIndexes and frees them after a grace period.
 */
#ifndef XBRIDGE_CORE_NFT_SET_H
#define XBRIDGE_CORE_NFT_SET_H

#include <stdint.h>

#include "errors.h"
#include "nft_expr.h"
#include "nft_uapi.h"

namespace xb::nft {

constexpr unsigned kSetKeyMax = 64;	/* NFT_DATA_VALUE_MAXLEN */
constexpr unsigned kSetFieldsMax = 16;	/* NFT_REG32_COUNT */

struct ElemExprs;	/* an element's stateful expressions (nft_dynset.h) */

/* One element as the control plane holds it. */
struct ElemView {
	const uint8_t *key;
	const uint8_t *key_end;	/* concatenated intervals: the range's end */
	const uint8_t *data;	/* map data (values), or nullptr */
	int32_t verdict;	/* verdict maps */
	void *chain;		/* verdict maps: jump/goto target (control chain) */
	uint32_t flags;		/* kSetElemF* */
	/* Sets with timeouts: when the element expires (xb_now_ns() time;
	 * 0: never), and its own timeout when it is not the set's (0: the
	 * set's), as NFT_SET_EXT_EXPIRATION and NFT_SET_EXT_TIMEOUT. */
	uint64_t expires_ns;
	uint64_t timeout_ns;
	/* Its stateful expressions (NFT_SET_EXT_EXPRESSIONS), or nullptr;
	 * the ElemStore owns them. */
	ElemExprs *exprs;
	/* NFTA_SET_ELEM_USERDATA as given (nft's comment and flags TLVs),
	 * or nullptr: its length byte, then the bytes. The ElemStore owns
	 * it; frames never read it. */
	const uint8_t *userdata;
};

/* Whether an element that expires at @expires_ns has at @now_ns
 * (nft_set_elem_expired; 0: it never does). */
inline bool elem_expired(uint64_t expires_ns, uint64_t now_ns)
{
	return expires_ns && now_ns >= expires_ns;
}

/* What a set stores per element, fixed at creation. */
struct SetLayout {
	uint32_t key_len;
	uint32_t data_len;	/* 0: a set, not a map */
	bool verdict_map;
	bool interval;
	bool concat;
	bool timeout;		/* elements may expire (NFT_SET_TIMEOUT) */
	uint8_t field_count;	/* concatenation: the fields' lengths */
	uint8_t field_len[kSetFieldsMax];
	bool exprs;		/* slots carry an ElemExprs pointer */
	bool userdata;		/* slots carry a userdata pointer (an ElemStore's) */
};

/*
 * The control-plane element list, in arrival order, with a hash index of
 * the elements' identities (key, key end, the interval-end and catch-all
 * bits) so that adding or finding one costs O(1), not a scan.
 *
 * A batch deletes an element by marking it dead (kDead in its flags): the
 * element stays in place until commit() compacts, so undoing a delete never
 * allocates. find_live() and live_count() skip dead elements; a dump or a
 * SetIndex skips them by their flag.
 */
class ElemStore {
public:
	static constexpr uint32_t kDead = 0x80000000u;

	int init(const SetLayout &layout, Extack *ack);
	void fini();

	uint32_t count() const { return count_; }
	uint32_t live_count() const { return count_ - dead_; }
	ElemView at(uint32_t i) const;

	/* Append; -ENOMEM on failure (nothing changed). */
	int append(const ElemView &e, Extack *ack);
	/* Remove the last element (the undo of an append). */
	void remove_last();
	void mark_dead(uint32_t i);
	void revive(uint32_t i);
	/* The index of the live element with @e's identity, or -1. */
	int64_t find_live(const ElemView &e) const;
	/* Concatenated interval sets: the index of the earliest live element
	 * whose range holds @key in every field, or -1. */
	int64_t find_range(const uint8_t *key) const;
	/* Drop the dead elements (after commit: nothing reads them). */
	void compact();
	/* Drop the elements expired by @now_ns too (after commit). */
	void purge_expired(uint64_t now_ns);

private:
	uint8_t *slot(uint32_t i) const { return items_ + uint64_t(i) * stride_; }
	uint32_t flags_at(uint32_t i) const;
	void set_flags(uint32_t i, uint32_t flags);
	int grow(Extack *ack);
	uint32_t identity_hash(const uint8_t *key, const uint8_t *key_end, uint32_t flags) const;
	bool same_identity(uint32_t i, const ElemView &e) const;
	int rebuild_index(uint32_t slots, Extack *ack);
	bool ranged(uint32_t i) const;
	bool starts_before(uint32_t a, uint32_t b) const;
	void ranges_insert(uint32_t i);
	void ranges_erase(uint32_t i);
	void index_insert(uint32_t i);
	void index_erase(uint32_t i);

	SetLayout layout_{};
	uint32_t stride_ = 0;
	uint32_t count_ = 0;
	uint32_t dead_ = 0;
	uint32_t capacity_ = 0;
	uint8_t *items_ = nullptr;
	uint32_t *index_ = nullptr;	/* element index + 1; 0 empty */
	uint32_t index_mask_ = 0;
	uint32_t seed_ = 0;
	/* Concatenated interval sets: the ranges by first-field start, and
	 * the widest first field seen (big-endian), for find_range(). */
	uint32_t *by_start_ = nullptr;
	uint32_t ranges_ = 0;
	uint8_t span_[kSetKeyMax] = {};
};

struct Chain;	/* a generation's compiled chain (nft_eval.h) */
class DynTable;	/* the elements frames added (nft_dynset.h) */

/* The result of a lookup: a map's data, or its verdict; and the element's
 * stateful expressions (nullptr: none) with the lock of their state. */
struct SetHit {
	const uint8_t *data;
	int32_t verdict;
	const Chain *chain;
	ElemExprs *exprs;
	xb_lock *exprs_lock;
};

/*
 * A generation's lookup index over one set. build() copies the elements
 * (less those with a flag in @skip_flags);
 * @map_chain maps an element's control chain to the generation's compiled
 * chain. lookup() is datapath-safe (no lock, no allocation).
 */
class SetIndex {
public:
	using ChainMapper = const Chain *(*)(void *ctx, void *control_chain);

	static SetIndex *build(const SetLayout &layout, const ElemStore &elems, uint32_t skip_flags,
			       ChainMapper map, void *ctx, Extack *ack);
	static void destroy(SetIndex *index);

	/* Find @key (key_len bytes) among the elements that have not
	 * expired by @now_ns. Fills @hit for maps. The two common kinds
	 * inline, for the evaluator's loop. */
	bool lookup(const uint8_t *key, SetHit &hit, uint64_t now_ns = 0) const
	{
		const uint8_t *e;
		if (kind_ == Kind::Scan)
			e = find_scan(key);
		else if (kind_ == Kind::Word)
			e = find_word(key);
		else
			return lookup_slow(key, hit, now_ns);
		if (e && expired(e, now_ns))
			e = nullptr;
		if (!e) {
			if (xb_unlikely(dyn_) && lookup_dynamic(key, hit, now_ns))
				return true;
			if (!catchall_ || expired(catchall_, now_ns))
				return false;
			e = catchall_;
		}
		fill_hit(e, hit);
		return true;
	}

	/* Only among the control plane's elements, the catch-all aside (what
	 * a set statement finds before it adds). */
	bool lookup_static(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;

	uint32_t size() const { return count_; }

	/* The elements frames added (nft_dynset.h), for a set a set statement
	 * writes: lookups find them after the SetIndex's own. Set when the
	 * generation is built. */
	void attach_dynamic(const DynTable *t) { dyn_ = t; }
	const DynTable *dynamic() const { return dyn_; }
	/* The lock of the set's elements' expressions (SetObj::exprs_lock):
	 * limits and ct counts keep their state under it. */
	void attach_exprs_lock(xb_lock *lock) { exprs_lock_ = lock; }

	/* Exact sets of at most this many elements are scanned. */
	static constexpr uint32_t kScanMax = 4;

private:
	enum class Kind : uint8_t { Scan, Word, Hash, Interval, ConcatRanges };

	const uint8_t *entry(uint32_t i) const { return entries_ + uint64_t(i) * stride_; }
	/* A key's first (up to) 4 bytes as a word (nft_expr.h short_word). */
	static uint32_t key_word(const uint8_t *key, uint32_t len) { return short_word(key, len); }
	/* Equality of keys; the common lengths without a call. */
	static bool key_equal(const uint8_t *a, const uint8_t *b, uint32_t len)
	{
		switch (len) {
		case 2:
		case 4:
			return key_word(a, len) == key_word(b, len);
		case 8: {
			uint64_t x, y;
			__builtin_memcpy(&x, a, 8);
			__builtin_memcpy(&y, b, 8);
			return x == y;
		}
		default:
			return __builtin_memcmp(a, b, len) == 0;
		}
	}
	uint32_t word_slot(uint32_t w) const
	{
		return ((w ^ seed_) * 0x9e3779b1u) >> word_shift_;
	}
	const uint8_t *find_scan(const uint8_t *key) const
	{
		for (uint32_t i = 0; i < count_; i++)
			if (key_equal(entry(i), key, layout_.key_len))
				return entry(i);
		return nullptr;
	}
	const uint8_t *find_word(const uint8_t *key) const
	{
		const uint32_t w = key_word(key, layout_.key_len);
		for (uint32_t h = word_slot(w);; h = (h + 1) & hash_mask_) {
			const uint64_t s = words_[h];
			const uint32_t idx = uint32_t(s >> 32);
			if (!idx)
				return nullptr;
			if (uint32_t(s) == w)
				return entry(idx - 1);
		}
	}
	void fill_hit(const uint8_t *e, SetHit &hit) const
	{
		if (layout_.verdict_map) {
			__builtin_memcpy(&hit.verdict, e + data_off_, 4);
			__builtin_memcpy(&hit.chain, e + data_off_ + 8, sizeof(void *));
			hit.data = nullptr;
		} else {
			hit.data = e + data_off_;
		}
		hit.exprs = nullptr;
		if (xb_unlikely(exprs_off_)) {
			__builtin_memcpy(&hit.exprs, e + exprs_off_, sizeof(hit.exprs));
			hit.exprs_lock = exprs_lock_;
		}
	}
	/* An entry of a set with timeouts that has expired by @now_ns. */
	bool expired(const uint8_t *e, uint64_t now_ns) const
	{
		if (!layout_.timeout)
			return false;
		uint64_t expires;
		__builtin_memcpy(&expires, e + expires_off_, 8);
		return elem_expired(expires, now_ns);
	}
	bool lookup_slow(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;
	bool lookup_dynamic(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;
	bool lookup_hash(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;
	bool lookup_interval(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;
	bool lookup_ranges(const uint8_t *key, SetHit &hit, uint64_t now_ns) const;
	bool starts_before(uint32_t a, uint32_t b) const;
	bool build_ranges();
	bool build_words();

	Kind kind_;
	SetLayout layout_;
	uint32_t stride_;	/* key [+ key_end] [+ flags] + data */
	uint32_t data_off_;
	uint32_t flags_off_;
	uint32_t expires_off_;	/* sets with timeouts */
	uint32_t exprs_off_;	/* an element has expressions: their pointer's
				 * offset in each entry; 0 otherwise */
	uint32_t count_;
	uint32_t hash_mask_;	/* Hash, Word: slots - 1 */
	uint32_t word_shift_;	/* Word: 32 - log2(slots) */
	uint32_t seed_;
	uint32_t *slots_;	/* Hash: entry index + 1, 0 empty */
	uint64_t *words_;	/* Word: key word | (entry index + 1) << 32,
				 * 0 empty */
	uint32_t *order_;	/* ConcatRanges: entries by first field's start */
	uint32_t *reach_;	/* ConcatRanges: the entry of greatest first-field
				 * end among order_[0..j] */
	uint8_t *entries_;
	const uint8_t *catchall_;	/* the `*` element's entry (after the
					 * others), or nullptr */
	const DynTable *dyn_;
	xb_lock *exprs_lock_;
};

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_SET_H */
