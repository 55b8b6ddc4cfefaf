// SPDX-License-Identifier: GPL-2.0
/*
 * nft_set.cc - the element store and the lookup index of nf_tables sets.
 *
 * Slot layout, shared by ElemStore and SetIndex:
 *   key (key_len rounded up to 4) | key_end (concatenated intervals only) |
 *   data (data_len rounded up to 4; verdict maps: code at 0, chain at 8) |
 *   flags (4 bytes) | expires, timeout (sets with timeouts, 8 bytes each) |
 *   the ElemExprs pointer (8 bytes; always in an ElemStore, in a SetIndex
 *   only when one of its elements has expressions) | the userdata pointer
 *   (8 bytes; an ElemStore's only)
 *
 * An element's expressions and userdata are the ElemStore's: allocated when
 * the element is added, freed when it leaves the store (an abort's undo, a
 * commit's compaction after the grace period, the set's end). Generations
 * only point at the expressions.
 *
 * ElemStore: control context (XB_ALLOC_SLEEP), under the ruleset lock.
 * SetIndex: built in control context, then read-only and lock-free.
 */
#include "nft_set.h"

#include "compiler.h"
#include "nft_dynset.h"
#include "platform.h"

namespace xb::nft {

namespace {

uint32_t round4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

struct Offsets {
	uint32_t key_end;
	uint32_t data;
	uint32_t flags;
	uint32_t expires;	/* sets with timeouts: ElemView.expires_ns, */
	uint32_t timeout;	/* ... and .timeout_ns */
	uint32_t exprs;		/* layouts with expressions: ElemView.exprs */
	uint32_t userdata;	/* layouts with userdata: ElemView.userdata */
	uint32_t stride;
};

Offsets offsets_of(const SetLayout &l)
{
	Offsets o;
	const uint32_t key = round4(l.key_len);
	o.key_end = key;
	o.data = key + (l.concat && l.interval ? key : 0);
	const uint32_t data = l.verdict_map ? 16 : round4(l.data_len);
	o.flags = o.data + data;
	o.expires = (o.flags + 4 + 7) & ~7u;
	o.timeout = o.expires + 8;
	o.exprs = l.timeout ? o.timeout + 8 : o.expires;
	o.userdata = l.exprs ? o.exprs + 8 : o.exprs;
	o.stride = l.userdata ? o.userdata + 8 : o.userdata;
	return o;
}

void copy(uint8_t *dst, const uint8_t *src, uint32_t n)
{
	__builtin_memcpy(dst, src, n);
}

void write_slot(uint8_t *s, const SetLayout &l, const Offsets &o, const ElemView &e)
{
	__builtin_memset(s, 0, o.stride);
	copy(s, e.key, l.key_len);
	if (l.concat && l.interval && e.key_end)
		copy(s + o.key_end, e.key_end, l.key_len);
	if (l.verdict_map) {
		copy(s + o.data, reinterpret_cast<const uint8_t *>(&e.verdict), 4);
		copy(s + o.data + 8, reinterpret_cast<const uint8_t *>(&e.chain), sizeof(void *));
	} else if (l.data_len && e.data) {
		copy(s + o.data, e.data, l.data_len);
	}
	copy(s + o.flags, reinterpret_cast<const uint8_t *>(&e.flags), 4);
	if (l.timeout) {
		copy(s + o.expires, reinterpret_cast<const uint8_t *>(&e.expires_ns), 8);
		copy(s + o.timeout, reinterpret_cast<const uint8_t *>(&e.timeout_ns), 8);
	}
	if (l.exprs)
		copy(s + o.exprs, reinterpret_cast<const uint8_t *>(&e.exprs), sizeof(e.exprs));
	if (l.userdata)
		copy(s + o.userdata, reinterpret_cast<const uint8_t *>(&e.userdata), sizeof(e.userdata));
}

/* What an element owns in the ElemStore, freed when it leaves it. */
void free_owned(const ElemView &e)
{
	if (e.exprs) {
		elem_exprs_release(*e.exprs);
		xb_free(e.exprs);
	}
	if (e.userdata)
		xb_free(const_cast<uint8_t *>(e.userdata));
}

uint32_t read_u32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

/* A byte-string hash: four bytes a step, murmur-style mixing. */
uint32_t hash_key(const uint8_t *key, uint32_t len, uint32_t seed)
{
	uint32_t h = seed ^ len;
	uint32_t i = 0;
	for (; i + 4 <= len; i += 4) {
		uint32_t k = read_u32(key + i) * 0xcc9e2d51u;
		k = (k << 15 | k >> 17) * 0x1b873593u;
		h ^= k;
		h = (h << 13 | h >> 19) * 5 + 0xe6546b64u;
	}
	uint32_t tail = 0;
	for (uint32_t s = 0; i < len; i++, s += 8)
		tail |= uint32_t(key[i]) << s;
	h ^= tail * 0xcc9e2d51u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	return h ^ (h >> 16);
}

int memcmp_bytes(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	return __builtin_memcmp(a, b, n);
}

/* Heapsort of @n indices by @before(a, b) (no allocation, O(n log n)). */
template <typename Before>
void heap_sort(uint32_t *o, uint32_t n, Before before)
{
	auto sift = [&](uint32_t root, uint32_t end) {
		for (;;) {
			uint32_t child = 2 * root + 1;
			if (child >= end)
				return;
			if (child + 1 < end && before(o[child], o[child + 1]))
				child++;
			if (!before(o[root], o[child]))
				return;
			const uint32_t t = o[root];
			o[root] = o[child];
			o[child] = t;
			root = child;
		}
	};
	for (uint32_t i = n / 2; i-- > 0;)
		sift(i, n);
	for (uint32_t end = n; end-- > 1;) {
		const uint32_t t = o[0];
		o[0] = o[end];
		o[end] = t;
		sift(0, end);
	}
}

/* @out = @a - @b over @n big-endian bytes, 0 when @b > @a. */
void sub_sat(uint8_t *out, const uint8_t *a, const uint8_t *b, uint32_t n)
{
	if (memcmp_bytes(a, b, n) < 0) {
		__builtin_memset(out, 0, n);
		return;
	}
	unsigned borrow = 0;
	for (uint32_t i = n; i-- > 0;) {
		const int d = int(a[i]) - int(b[i]) - int(borrow);
		borrow = d < 0;
		out[i] = uint8_t(d + (borrow ? 256 : 0));
	}
}

} // namespace

/* ---- ElemStore ---------------------------------------------------------- */

int ElemStore::init(const SetLayout &layout, Extack *ack)
{
	if (layout.key_len == 0 || layout.key_len > kSetKeyMax || layout.data_len > kSetKeyMax)
		return fail(ack, kEINVAL, "set key or data length out of range");
	layout_ = layout;
	layout_.exprs = true;
	layout_.userdata = true;
	stride_ = offsets_of(layout_).stride;
	count_ = dead_ = capacity_ = 0;
	items_ = nullptr;
	index_ = nullptr;
	index_mask_ = 0;
	by_start_ = nullptr;
	ranges_ = 0;
	__builtin_memset(span_, 0, sizeof(span_));
	seed_ = xb_random_u32();
	return 0;
}

void ElemStore::fini()
{
	for (uint32_t i = 0; i < count_; i++)
		free_owned(at(i));
	if (items_)
		xb_free(items_);
	if (index_)
		xb_free(index_);
	if (by_start_)
		xb_free(by_start_);
	items_ = nullptr;
	index_ = nullptr;
	by_start_ = nullptr;
	count_ = dead_ = capacity_ = index_mask_ = ranges_ = 0;
}

ElemView ElemStore::at(uint32_t i) const
{
	const Offsets o = offsets_of(layout_);
	const uint8_t *s = slot(i);
	ElemView e{};
	e.key = s;
	e.key_end = layout_.concat && layout_.interval ? s + o.key_end : nullptr;
	if (layout_.verdict_map) {
		__builtin_memcpy(&e.verdict, s + o.data, 4);
		__builtin_memcpy(&e.chain, s + o.data + 8, sizeof(void *));
	} else if (layout_.data_len) {
		e.data = s + o.data;
	}
	e.flags = read_u32(s + o.flags);
	if (layout_.timeout) {
		__builtin_memcpy(&e.expires_ns, s + o.expires, 8);
		__builtin_memcpy(&e.timeout_ns, s + o.timeout, 8);
	}
	__builtin_memcpy(&e.exprs, s + o.exprs, sizeof(e.exprs));
	__builtin_memcpy(&e.userdata, s + o.userdata, sizeof(e.userdata));
	return e;
}

uint32_t ElemStore::flags_at(uint32_t i) const
{
	return read_u32(slot(i) + offsets_of(layout_).flags);
}

void ElemStore::set_flags(uint32_t i, uint32_t flags)
{
	copy(slot(i) + offsets_of(layout_).flags, reinterpret_cast<const uint8_t *>(&flags), 4);
}

/* An element's identity: what makes two of them the same element. */
constexpr uint32_t kIdentityFlags = kSetElemFIntervalEnd | kSetElemFCatchall;

uint32_t ElemStore::identity_hash(const uint8_t *key, const uint8_t *key_end, uint32_t flags) const
{
	const uint32_t f = flags & kIdentityFlags;
	if (f & kSetElemFCatchall)
		return hash_key(reinterpret_cast<const uint8_t *>(&f), 4, seed_);
	uint32_t h = hash_key(key, layout_.key_len, seed_ ^ f);
	if (layout_.concat && layout_.interval && key_end)
		h ^= hash_key(key_end, layout_.key_len, h);
	return h;
}

bool ElemStore::same_identity(uint32_t i, const ElemView &e) const
{
	const Offsets o = offsets_of(layout_);
	const uint8_t *s = slot(i);
	const uint32_t f = read_u32(s + o.flags);
	if ((f & kIdentityFlags) != (e.flags & kIdentityFlags))
		return false;
	if (f & kSetElemFCatchall)
		return true;
	if (memcmp_bytes(s, e.key, layout_.key_len))
		return false;
	return !(layout_.concat && layout_.interval && e.key_end) ||
	       !memcmp_bytes(s + o.key_end, e.key_end, layout_.key_len);
}

int ElemStore::rebuild_index(uint32_t slots, Extack *ack)
{
	auto *index = static_cast<uint32_t *>(xb_alloc(uint64_t(slots) * 4, XB_ALLOC_SLEEP));
	if (!index)
		return fail(ack, kENOMEM, "out of memory for set elements");
	if (index_)
		xb_free(index_);
	index_ = index;
	index_mask_ = slots - 1;
	for (uint32_t i = 0; i < count_; i++)
		index_insert(i);
	return 0;
}

void ElemStore::index_insert(uint32_t i)
{
	const ElemView e = at(i);
	uint32_t h = identity_hash(e.key, e.key_end, e.flags) & index_mask_;
	while (index_[h])
		h = (h + 1) & index_mask_;
	index_[h] = i + 1;
}

/* Linear probing's deletion: later members of the cluster move back into
 * the hole unless their home lies cyclically between the hole and them. */
void ElemStore::index_erase(uint32_t i)
{
	const ElemView e = at(i);
	uint32_t hole = identity_hash(e.key, e.key_end, e.flags) & index_mask_;
	while (index_[hole] != i + 1)
		hole = (hole + 1) & index_mask_;
	index_[hole] = 0;
	for (uint32_t j = (hole + 1) & index_mask_; index_[j]; j = (j + 1) & index_mask_) {
		const ElemView o = at(index_[j] - 1);
		const uint32_t home = identity_hash(o.key, o.key_end, o.flags) & index_mask_;
		const bool stays = hole < j ? (hole < home && home <= j) : (hole < home || home <= j);
		if (stays)
			continue;
		index_[hole] = index_[j];
		index_[j] = 0;
		hole = j;
	}
}

int64_t ElemStore::find_live(const ElemView &e) const
{
	if (!index_)
		return -1;
	uint32_t h = identity_hash(e.key, e.key_end, e.flags) & index_mask_;
	for (; index_[h]; h = (h + 1) & index_mask_) {
		const uint32_t i = index_[h] - 1;
		if (!(flags_at(i) & kDead) && same_identity(i, e))
			return i;
	}
	return -1;
}

namespace {

/* Does the range at @e (key, then key end at @end_off) hold @key in every
 * field? Fields compare big-endian over their own length (pipapo). */
bool range_holds(const SetLayout &l, const uint8_t *e, uint32_t end_off, const uint8_t *key)
{
	uint32_t off = 0;
	for (unsigned f = 0; f < l.field_count; f++) {
		const uint32_t flen = l.field_len[f];
		if (memcmp_bytes(key + off, e + off, flen) < 0 ||
		    memcmp_bytes(key + off, e + end_off + off, flen) > 0)
			return false;
		off += round4(flen);
	}
	return true;
}

/* The count of @order[0..n) whose entry (at @base + index * @stride)
 * starts, in its first field of @flen bytes, at or below @key: @order is
 * sorted by that start, so this is an upper-bound bisection. */
uint32_t count_starting_at_or_below(const uint32_t *order, uint32_t n,
				    const uint8_t *base, uint32_t stride,
				    const uint8_t *key, uint32_t flen)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp_bytes(base + uint64_t(order[mid]) * stride, key, flen) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

} // namespace

bool ElemStore::starts_before(uint32_t a, uint32_t b) const
{
	const int d = memcmp_bytes(slot(a), slot(b), layout_.field_len[0]);
	return d < 0 || (d == 0 && a < b);
}

/* by_start_[0..ranges_): the ranges (not the catch-all) by first-field
 * start. An element that holds @key starts at or below key's first field
 * and, its first field spanning at most span_, at or above that less
 * span_: only those are looked at. Dead ones stay listed until compact(). */
int64_t ElemStore::find_range(const uint8_t *key) const
{
	if (!(layout_.concat && layout_.interval) || !ranges_)
		return -1;
	const Offsets o = offsets_of(layout_);
	const uint32_t flen = layout_.field_len[0];
	const uint32_t lo = count_starting_at_or_below(by_start_, ranges_, items_, stride_, key, flen);
	uint8_t floor[kSetKeyMax];
	sub_sat(floor, key, span_, flen);
	int64_t found = -1;
	for (uint32_t j = lo; j-- > 0;) {
		const uint32_t i = by_start_[j];
		if (memcmp_bytes(slot(i), floor, flen) < 0)
			break;
		if (!(flags_at(i) & kDead) && range_holds(layout_, slot(i), o.key_end, key) &&
		    (found < 0 || i < found))
			found = i;
	}
	return found;
}

void ElemStore::ranges_insert(uint32_t i)
{
	const uint32_t flen = layout_.field_len[0];
	const uint8_t *s = slot(i);
	uint8_t width[kSetKeyMax];
	sub_sat(width, s + offsets_of(layout_).key_end, s, flen);
	if (memcmp_bytes(width, span_, flen) > 0)
		__builtin_memcpy(span_, width, flen);
	/* after the last entry that starts before it (usually the end) */
	uint32_t lo = 0, hi = ranges_;
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (starts_before(by_start_[mid], i))
			lo = mid + 1;
		else
			hi = mid;
	}
	__builtin_memmove(by_start_ + lo + 1, by_start_ + lo, uint64_t(ranges_ - lo) * 4);
	by_start_[lo] = i;
	ranges_++;
}

void ElemStore::ranges_erase(uint32_t i)
{
	for (uint32_t j = ranges_; j-- > 0;)
		if (by_start_[j] == i) {
			__builtin_memmove(by_start_ + j, by_start_ + j + 1, uint64_t(ranges_ - j - 1) * 4);
			ranges_--;
			return;
		}
}

bool ElemStore::ranged(uint32_t i) const
{
	return layout_.concat && layout_.interval && !(flags_at(i) & kSetElemFCatchall);
}

void ElemStore::mark_dead(uint32_t i)
{
	const uint32_t f = flags_at(i);
	if (!(f & kDead)) {
		set_flags(i, f | kDead);
		dead_++;
	}
}

void ElemStore::revive(uint32_t i)
{
	const uint32_t f = flags_at(i);
	if (f & kDead) {
		set_flags(i, f & ~kDead);
		dead_--;
	}
}

void ElemStore::purge_expired(uint64_t now_ns)
{
	if (!layout_.timeout)
		return;
	const uint32_t off = offsets_of(layout_).expires;
	for (uint32_t i = 0; i < count_; i++) {
		uint64_t expires;
		__builtin_memcpy(&expires, slot(i) + off, 8);
		if (!(flags_at(i) & kDead) && elem_expired(expires, now_ns))
			mark_dead(i);
	}
	compact();
}

void ElemStore::compact()
{
	if (!dead_)
		return;
	uint32_t out = 0;
	for (uint32_t i = 0; i < count_; i++) {
		if (flags_at(i) & kDead) {
			free_owned(at(i));
			continue;
		}
		if (out != i)
			__builtin_memcpy(slot(out), slot(i), stride_);
		out++;
	}
	count_ = out;
	dead_ = 0;
	/* Indexes moved: rebuild in place (same size, so it cannot fail). */
	for (uint32_t k = 0; k <= index_mask_ && index_; k++)
		index_[k] = 0;
	for (uint32_t i = 0; i < count_ && index_; i++)
		index_insert(i);
	if (by_start_) {
		ranges_ = 0;
		for (uint32_t i = 0; i < count_; i++)
			if (ranged(i))
				by_start_[ranges_++] = i;
		heap_sort(by_start_, ranges_, [this](uint32_t a, uint32_t b) { return starts_before(a, b); });
	}
}

int ElemStore::grow(Extack *ack)
{
	if (count_ < capacity_)
		return 0;
	const uint32_t cap = capacity_ ? capacity_ * 2 : 8;
	uint8_t *items = static_cast<uint8_t *>(xb_alloc(uint64_t(cap) * stride_, XB_ALLOC_SLEEP));
	if (!items)
		return fail(ack, kENOMEM, "out of memory for set elements");
	uint32_t *by_start = nullptr;
	if (layout_.concat && layout_.interval) {
		by_start = static_cast<uint32_t *>(xb_alloc(uint64_t(cap) * 4, XB_ALLOC_SLEEP));
		if (!by_start) {
			xb_free(items);
			return fail(ack, kENOMEM, "out of memory for set elements");
		}
		if (by_start_) {
			__builtin_memcpy(by_start, by_start_, uint64_t(ranges_) * 4);
			xb_free(by_start_);
		}
		by_start_ = by_start;
	}
	if (items_) {
		__builtin_memcpy(items, items_, uint64_t(count_) * stride_);
		xb_free(items_);
	}
	items_ = items;
	capacity_ = cap;
	return 0;
}

int ElemStore::append(const ElemView &e, Extack *ack)
{
	/* Room first (items, then an index at most half full), so that a
	 * failure changes nothing. */
	int err = grow(ack);
	if (err)
		return err;
	if (!index_ || uint64_t(count_ + 1) * 2 > uint64_t(index_mask_) + 1) {
		uint32_t slots = 16;
		while (uint64_t(slots) < uint64_t(count_ + 1) * 2)
			slots <<= 1;
		if ((err = rebuild_index(slots, ack)))
			return err;
	}
	write_slot(slot(count_), layout_, offsets_of(layout_), e);
	count_++;
	index_insert(count_ - 1);
	if (ranged(count_ - 1))
		ranges_insert(count_ - 1);
	return 0;
}

void ElemStore::remove_last()
{
	const uint32_t i = count_ - 1;
	index_erase(i);
	if (ranged(i))
		ranges_erase(i);
	if (flags_at(i) & kDead)
		dead_--;
	free_owned(at(i));
	count_--;
}

/* ---- SetIndex ----------------------------------------------------------- */

SetIndex *SetIndex::build(const SetLayout &layout, const ElemStore &elems, uint32_t skip,
			  ChainMapper map, void *ctx, Extack *ack)
{
	SetIndex *ix = static_cast<SetIndex *>(xb_alloc(sizeof(SetIndex), XB_ALLOC_SLEEP));
	if (!ix)
		return fail(ack, kENOMEM, "out of memory for a set index"), nullptr;
	/* Room for the expressions' pointer only if an element has some. */
	SetLayout l = layout;
	l.exprs = false;
	l.userdata = false;
	for (uint32_t i = 0; i < elems.count() && !l.exprs; i++)
		l.exprs = elems.at(i).exprs != nullptr;
	const Offsets o = offsets_of(l);
	ix->layout_ = l;
	ix->stride_ = o.stride;
	ix->exprs_off_ = l.exprs ? o.exprs : 0;
	ix->exprs_lock_ = nullptr;
	ix->data_off_ = o.data;
	ix->flags_off_ = o.flags;
	ix->expires_off_ = o.expires;
	ix->kind_ = !layout.interval ? Kind::Hash : layout.concat ? Kind::ConcatRanges : Kind::Interval;
	ix->seed_ = xb_random_u32();

	const uint32_t n = elems.count();
	ix->entries_ = static_cast<uint8_t *>(xb_alloc(uint64_t(n + 1) * o.stride, XB_ALLOC_SLEEP));
	if (!ix->entries_) {
		xb_free(ix);
		return fail(ack, kENOMEM, "out of memory for a set index"), nullptr;
	}
	uint32_t count = 0;
	bool have_catchall = false;
	uint8_t *catchall = ix->entries_ + uint64_t(n) * o.stride;
	for (uint32_t i = 0; i < n; i++) {
		ElemView e = elems.at(i);
		if (e.flags & skip)
			continue;
		if (layout.verdict_map && e.chain)
			e.chain = const_cast<Chain *>(map(ctx, e.chain));
		if (e.flags & kSetElemFCatchall) {
			write_slot(catchall, l, o, e);
			have_catchall = true;
			continue;
		}
		write_slot(ix->entries_ + uint64_t(count++) * o.stride, l, o, e);
	}
	ix->count_ = count;
	ix->catchall_ = have_catchall ? catchall : nullptr;

	if (ix->kind_ == Kind::Interval) {
		/* Insertion sort by key, an interval end before a start at the
		 * same key (the start then decides, as in the rbtree). Elements
		 * arrive sorted from nft, so this is linear in practice. */
		uint8_t tmp[2 * kSetKeyMax + 48];	/* the widest slot: 160 bytes */
		for (uint32_t i = 1; i < count; i++) {
			__builtin_memcpy(tmp, ix->entries_ + uint64_t(i) * o.stride, o.stride);
			const bool tmp_end = read_u32(tmp + o.flags) & kSetElemFIntervalEnd;
			uint32_t j = i;
			while (j > 0) {
				const uint8_t *prev = ix->entries_ + uint64_t(j - 1) * o.stride;
				int d = memcmp_bytes(prev, tmp, layout.key_len);
				const bool prev_end = read_u32(prev + o.flags) & kSetElemFIntervalEnd;
				if (d < 0 || (d == 0 && (prev_end || !tmp_end)))
					break;
				__builtin_memcpy(ix->entries_ + uint64_t(j) * o.stride, prev, o.stride);
				j--;
			}
			__builtin_memcpy(ix->entries_ + uint64_t(j) * o.stride, tmp, o.stride);
		}
	} else if (ix->kind_ == Kind::ConcatRanges && count) {
		if (!ix->build_ranges()) {
			SetIndex::destroy(ix);
			return fail(ack, kENOMEM, "out of memory for a set index"), nullptr;
		}
	} else if (ix->kind_ == Kind::Hash && count <= kScanMax) {
		ix->kind_ = Kind::Scan;
	} else if (ix->kind_ == Kind::Hash && layout.key_len <= 4) {
		ix->kind_ = Kind::Word;
		if (!ix->build_words()) {
			SetIndex::destroy(ix);
			return fail(ack, kENOMEM, "out of memory for a set index"), nullptr;
		}
	} else if (ix->kind_ == Kind::Hash) {
		uint32_t slots = 8;
		while (slots < count * 2)
			slots <<= 1;
		ix->slots_ = static_cast<uint32_t *>(xb_alloc(uint64_t(slots) * 4, XB_ALLOC_SLEEP));
		if (!ix->slots_) {
			xb_free(ix->entries_);
			xb_free(ix);
			return fail(ack, kENOMEM, "out of memory for a set index"), nullptr;
		}
		ix->hash_mask_ = slots - 1;
		for (uint32_t i = 0; i < count; i++) {
			const uint8_t *key = ix->entry(i);
			uint32_t h = hash_key(key, layout.key_len, ix->seed_) & ix->hash_mask_;
			while (ix->slots_[h])
				h = (h + 1) & ix->hash_mask_;
			ix->slots_[h] = i + 1;
		}
	}
	return ix;
}

/*
 * Keys of at most 4 bytes: a table of (key word, entry) pairs at most half
 * full, indexed by the top bits of a multiplicative hash, so that a probe
 * is one load and only a hit touches the entry. An element's key is
 * unique in an exact set, so a word matches at most one slot.
 */
bool SetIndex::build_words()
{
	uint32_t slots = 8, bits = 3;
	while (slots < count_ * 2) {
		slots <<= 1;
		bits++;
	}
	words_ = static_cast<uint64_t *>(xb_alloc(uint64_t(slots) * 8, XB_ALLOC_SLEEP));
	if (!words_)
		return false;
	hash_mask_ = slots - 1;
	word_shift_ = 32 - bits;
	for (uint32_t i = 0; i < count_; i++) {
		const uint32_t w = key_word(entry(i), layout_.key_len);
		uint32_t h = word_slot(w);
		while (words_[h])
			h = (h + 1) & hash_mask_;
		words_[h] = w | uint64_t(i + 1) << 32;
	}
	return true;
}

/* Does entry @a's first field start before @b's (ties: arrival order)? */
bool SetIndex::starts_before(uint32_t a, uint32_t b) const
{
	const int d = memcmp_bytes(entry(a), entry(b), layout_.field_len[0]);
	return d < 0 || (d == 0 && a < b);
}

bool SetIndex::build_ranges()
{
	order_ = static_cast<uint32_t *>(xb_alloc(uint64_t(count_) * 4, XB_ALLOC_SLEEP));
	reach_ = static_cast<uint32_t *>(xb_alloc(uint64_t(count_) * 4, XB_ALLOC_SLEEP));
	if (!order_ || !reach_)
		return false;
	for (uint32_t i = 0; i < count_; i++)
		order_[i] = i;
	heap_sort(order_, count_, [this](uint32_t a, uint32_t b) { return starts_before(a, b); });
	const uint32_t end_off = round4(layout_.key_len);
	const uint32_t flen = layout_.field_len[0];
	for (uint32_t j = 0; j < count_; j++) {
		reach_[j] = order_[j];
		if (j && memcmp_bytes(entry(reach_[j - 1]) + end_off, entry(order_[j]) + end_off, flen) > 0)
			reach_[j] = reach_[j - 1];
	}
	return true;
}

void SetIndex::destroy(SetIndex *ix)
{
	if (!ix)
		return;
	if (ix->slots_)
		xb_free(ix->slots_);
	if (ix->words_)
		xb_free(ix->words_);
	if (ix->order_)
		xb_free(ix->order_);
	if (ix->reach_)
		xb_free(ix->reach_);
	xb_free(ix->entries_);
	xb_free(ix);
}

bool SetIndex::lookup_hash(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	uint32_t h = hash_key(key, layout_.key_len, seed_) & hash_mask_;
	for (;;) {
		const uint32_t idx = slots_[h];
		if (!idx)
			return false;
		const uint8_t *e = entry(idx - 1);
		if (key_equal(e, key, layout_.key_len)) {
			if (expired(e, now_ns))
				return false;
			fill_hit(e, hit);
			return true;
		}
		h = (h + 1) & hash_mask_;
	}
}

bool SetIndex::lookup_interval(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	/* The last boundary <= key. */
	uint32_t lo = 0, hi = count_;
	while (lo < hi) {
		const uint32_t mid = lo + (hi - lo) / 2;
		if (memcmp_bytes(entry(mid), key, layout_.key_len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	const uint8_t *e = entry(lo - 1);
	if ((read_u32(e + flags_off_) & kSetElemFIntervalEnd) || expired(e, now_ns))
		return false;
	fill_hit(e, hit);
	return true;
}

bool SetIndex::lookup_ranges(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	if (!count_)
		return false;
	const uint32_t end_off = round4(layout_.key_len);
	const uint32_t flen = layout_.field_len[0];
	/* The entries whose first field starts at or below the key's. */
	const uint32_t lo = count_starting_at_or_below(order_, count_, entries_, stride_, key, flen);
	/* Walk back while an earlier first field still reaches the key. Of
	 * several matches the earliest added wins (pipapo's rule order); a
	 * set without data takes any. */
	const bool any = !layout_.data_len && !layout_.verdict_map;
	uint32_t best = count_;
	for (uint32_t j = lo; j-- > 0;) {
		if (memcmp_bytes(entry(reach_[j]) + end_off, key, flen) < 0)
			break;
		const uint32_t i = order_[j];
		if (i < best && range_holds(layout_, entry(i), end_off, key) &&
		    !expired(entry(i), now_ns)) {
			best = i;
			if (any)
				break;
		}
	}
	if (best == count_)
		return false;
	fill_hit(entry(best), hit);
	return true;
}

bool SetIndex::lookup_static(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	const uint8_t *e;
	switch (kind_) {
	case Kind::Scan:
		e = find_scan(key);
		break;
	case Kind::Word:
		e = find_word(key);
		break;
	case Kind::Hash:
		return lookup_hash(key, hit, now_ns);
	case Kind::Interval:
		return lookup_interval(key, hit, now_ns);
	default:
		return lookup_ranges(key, hit, now_ns);
	}
	if (!e || expired(e, now_ns))
		return false;
	fill_hit(e, hit);
	return true;
}

bool SetIndex::lookup_dynamic(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	const DynEntry *e = dyn_->find(key, now_ns);
	if (!e)
		return false;
	hit.data = DynTable::data_of(*dyn_, *e);
	hit.verdict = 0;
	hit.chain = nullptr;
	hit.exprs = e->exprs.count ? &const_cast<DynEntry *>(e)->exprs : nullptr;
	hit.exprs_lock = dyn_->lock();
	return true;
}

bool SetIndex::lookup_slow(const uint8_t *key, SetHit &hit, uint64_t now_ns) const
{
	bool found;
	switch (kind_) {
	case Kind::Hash:
		found = lookup_hash(key, hit, now_ns);
		break;
	case Kind::Interval:
		found = lookup_interval(key, hit, now_ns);
		break;
	default:
		found = lookup_ranges(key, hit, now_ns);
		break;
	}
	if (!found && dyn_)
		found = lookup_dynamic(key, hit, now_ns);
	if (!found && catchall_ && !expired(catchall_, now_ns)) {
		fill_hit(catchall_, hit);
		return true;
	}
	return found;
}

} // namespace xb::nft
