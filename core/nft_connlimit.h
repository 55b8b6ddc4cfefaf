/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nft_connlimit.h - `ct count [over] N`: how many connections a rule (or a
 * dynamic set's element) has seen that are still alive, as nft_connlimit
 * and nf_conncount keep them.
 *
 * A ConnList holds the original tuple (zone included) of each connection
 * that passed, once. A frame of an assured connection adds nothing and only
 * prunes the list; any other frame walks it (at most 64 evictions), drops
 * the tuples whose connection is gone from the table (or TCP in TIME_WAIT
 * or CLOSE), and adds its own tuple unless it is there. The count is then
 * compared with the bound: `ct count N` goes on while it is at most N,
 * `ct count over N` while it is above. A frame with no connection (not IP,
 * invalid, untracked, or before conntrack at -200) is dropped, as
 * nf_conncount_add_skb fails for the bridge family (nf_ct_get_tuplepr has
 * no bridge layer 3).
 *
 * Time is nf_conncount's jiffies: Debian's kernels run at HZ=250, so a
 * tick is 4 ms. A tuple whose connection the table does not hold is kept
 * for two ticks when another CPU added it (it may still be confirming), as
 * find_or_evict keeps it.
 *
 * Ownership and locking. A rule's ConnLimit owns its lock and its list;
 * an element's list is guarded by its DynTable's lock (nft_dynset.h) and
 * freed with the element. The list's tuples are xb_alloc'd (atomic) under
 * the lock and freed under it: nothing reads them without it. The count is
 * written under the lock and may be read with load_once without it (a
 * dump's or the set GC's view).
 */
#ifndef XBRIDGE_CORE_NFT_CONNLIMIT_H
#define XBRIDGE_CORE_NFT_CONNLIMIT_H

#include <stdint.h>

#include "compiler.h"
#include "ct_tuple.h"
#include "errors.h"
#include "nft_attr.h"
#include "platform.h"

namespace xb {
class Conntrack;
}

namespace xb::nft {

struct Pkt;

/* NFTA_CONNLIMIT_* and its flag */
enum : uint16_t { kConnlimitCount = 1, kConnlimitFlags = 2 };
constexpr uint32_t kConnlimitFInv = 0x1;

/* nf_conncount's jiffy on Debian's kernels (CONFIG_HZ=250). */
constexpr uint64_t kConnTickNs = 4000000;

struct ConnTuple {
	ConnTuple *next;
	CtTuple tuple;		/* the original direction's, zone included */
	uint32_t tick;		/* when it was added */
	uint32_t cpu;		/* which CPU added it */
};

/* nf_conncount_list: the caller's lock guards all of it but @count's reads. */
struct ConnList {
	ConnTuple *head;
	ConnTuple **tail;	/* nullptr while empty */
	uint32_t count;		/* tuples in the list; written under the lock */
	uint32_t last_gc;	/* tick of the last walk */
	uint32_t last_gc_count;	/* @count after it */
};

/* A rule's `ct count`: its bound and its own list. */
struct ConnLimit {
	xb_lock *lock;
	ConnList list XB_GUARDED_BY(lock);
	uint32_t limit;
	uint32_t flags;		/* kConnlimitFInv */
};

/* The bound and flags of NFTA_CONNLIMIT_* in @tb, as nft_connlimit_do_init
 * checks them (no count: EINVAL; unknown flags: EOPNOTSUPP). */
int connlimit_parse(const Attr *tb, uint32_t &limit, uint32_t &flags, Extack *ack);

/* Control: a rule's ConnLimit (@limit, @flags) with an empty list and a
 * lock; connlimit_destroy frees what it holds. */
ConnLimit *connlimit_create(uint32_t limit, uint32_t flags, Extack *ack);
void connlimit_destroy(ConnLimit *c);

/* An empty list at tick @tick (nf_conncount_list_init). */
void conn_list_init(ConnList &l, uint64_t now_ns);
/* Free every tuple of @l; nothing else may use it. */
void conn_list_free(ConnList &l);

/* What a `ct count` does with a frame. */
enum class ConnVerdict : uint8_t { Go, Break, Drop };

/*
 * Datapath, the list's lock held: nft_connlimit_do_eval for the frame @p
 * with @l, a `ct count` of @limit and @flags. The list is updated
 * (nf_conncount_add_skb, then nf_conncount_gc_list when the connection is
 * assured) and its count compared with the bound. Drop: no connection, or
 * no memory for its tuple.
 */
ConnVerdict connlimit_eval(ConnList &l, uint32_t limit, uint32_t flags, const Pkt &p);

/*
 * Datapath, the list's lock held: nf_conncount_gc_list's pass (once a
 * tick) over @l at @now_ns; true when the list is empty after it (a set's
 * element holding it is then collected, as nft_rhash_gc does).
 */
bool conn_list_gc(ConnList &l, Conntrack *ct, uint64_t now_ns);

} // namespace xb::nft

#endif /* XBRIDGE_CORE_NFT_CONNLIMIT_H */
