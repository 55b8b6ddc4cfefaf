// SPDX-License-Identifier: GPL-2.0
/*
 * nft_connlimit.cc - `ct count`: the list of a rule's or an element's
 * connections (nft_connlimit.h), kept as nf_conncount keeps it.
 */
#include "nft_connlimit.h"

#include "ct_track.h"
#include "nft_eval.h"

namespace xb::nft {

namespace {

/* nf_conncount's bounds: at most this many tuples dropped per walk. */
constexpr uint32_t kGcMaxCollect = 64;

uint32_t tick_of(uint64_t now_ns)
{
	return uint32_t(now_ns / kConnTickNs);
}

uint32_t ct_now(uint64_t now_ns)
{
	return uint32_t(now_ns / 1000000u);
}

/* already_closed: a TCP connection in TIME_WAIT or CLOSE no longer counts. */
bool already_closed(const CtEntry &e)
{
	if (e.tuple.l4proto != 6)
		return false;
	const uint8_t s = e.tcp_state();
	return s == kTcpTimeWait || s == kTcpClose;
}

/* Unlink @t (its predecessor's link at @link) and free it. */
void conn_free(ConnList &l, ConnTuple **link, ConnTuple *t)
{
	*link = t->next;
	if (l.tail == &t->next)
		l.tail = link;
	if (!l.head)
		l.tail = nullptr;
	l.count--;
	xb_free(t);
}

enum class Find { Found, Evicted, Again };

/*
 * find_or_evict: the connection of @t in the table (@e), or @t freed when
 * the table holds it no longer (unless another CPU added it less than two
 * ticks ago: it may still be on its way to the table).
 */
Find find_or_evict(ConnList &l, ConnTuple **link, ConnTuple *t, Conntrack *ct, uint64_t now_ns,
		   CtEntry *&e)
{
	uint8_t dir;
	e = ct ? ct->table().lookup(t->tuple, ct_now(now_ns), &dir) : nullptr;
	if (e)
		return Find::Found;
	if (t->cpu == xb_this_cpu_id() || tick_of(now_ns) - t->tick >= 2) {
		conn_free(l, link, t);
		return Find::Evicted;
	}
	return Find::Again;
}

/*
 * __nf_conncount_add for @tuple of a connection that is not assured (or
 * not yet confirmed, @confirmed false): 0, or a negative errno (no memory).
 */
int conn_list_add(ConnList &l, const CtTuple &tuple, bool confirmed, Conntrack *ct,
		  uint64_t now_ns)
{
	const uint32_t tick = tick_of(now_ns);
	/* An unconfirmed connection in the tick of the last walk, with few
	 * tuples added since, is added without a walk. */
	if (confirmed || tick != l.last_gc || l.count - l.last_gc_count >= kGcMaxCollect) {
		uint32_t collect = 0;
		ConnTuple **link = &l.head;
		for (ConnTuple *t = *link; t; t = *link) {
			if (collect > kGcMaxCollect)
				break;
			CtEntry *e;
			const Find f = find_or_evict(l, link, t, ct, now_ns, e);
			if (f == Find::Again) {
				if (t->tuple == tuple)
					return 0;	/* already there */
				link = &t->next;
				continue;
			}
			if (f == Find::Evicted) {
				collect++;
				continue;
			}
			if (t->tuple == tuple)
				return 0;	/* already there */
			if (already_closed(*e)) {
				conn_free(l, link, t);
				collect++;
				continue;
			}
			link = &t->next;
		}
		l.last_gc = tick;
		l.last_gc_count = l.count;
	}
	ConnTuple *t = static_cast<ConnTuple *>(xb_alloc(sizeof(ConnTuple), XB_ALLOC_ATOMIC));
	if (!t)
		return -kENOMEM;
	t->tuple = tuple;
	t->tick = tick;
	t->cpu = xb_this_cpu_id();
	t->next = nullptr;
	if (l.tail)
		*l.tail = t;
	else
		l.head = t;
	l.tail = &t->next;
	l.count++;
	return 0;
}

} // namespace

int connlimit_parse(const Attr *tb, uint32_t &limit, uint32_t &flags, Extack *ack)
{
	if (!tb[kConnlimitCount].present())
		return fail(ack, kEINVAL, "ct count needs its count");
	if (!attr_be32(tb[kConnlimitCount], limit))
		return fail(ack, kEINVAL, "ct count's count is a 32-bit value");
	flags = 0;
	if (tb[kConnlimitFlags].present()) {
		if (!attr_be32(tb[kConnlimitFlags], flags))
			return fail(ack, kEINVAL, "ct count's flags are a 32-bit value");
		if (flags & ~kConnlimitFInv)
			return fail(ack, kEOPNOTSUPP, "unknown ct count flags");
	}
	return 0;
}

ConnLimit *connlimit_create(uint32_t limit, uint32_t flags, Extack *ack)
{
	ConnLimit *c = static_cast<ConnLimit *>(xb_alloc(sizeof(ConnLimit), XB_ALLOC_SLEEP));
	xb_lock *lock = xb_lock_create();
	if (!c || !lock) {
		if (c)
			xb_free(c);
		if (lock)
			xb_lock_destroy(lock);
		return fail(ack, kENOMEM, "out of memory for ct count"), nullptr;
	}
	c->lock = lock;
	c->limit = limit;
	c->flags = flags;
	LockGuard guard(c->lock);
	conn_list_init(c->list, xb_now_ns());
	return c;
}

void connlimit_destroy(ConnLimit *c)
{
	if (!c)
		return;
	{
		LockGuard guard(c->lock);
		conn_list_free(c->list);
	}
	xb_lock_destroy(c->lock);
	xb_free(c);
}

void conn_list_init(ConnList &l, uint64_t now_ns)
{
	l.head = nullptr;
	l.tail = nullptr;
	l.count = 0;
	l.last_gc = tick_of(now_ns);
	l.last_gc_count = 0;
}

void conn_list_free(ConnList &l)
{
	for (ConnTuple *t = l.head; t;) {
		ConnTuple *next = t->next;
		xb_free(t);
		t = next;
	}
	l.head = nullptr;
	l.tail = nullptr;
	store_once(l.count, 0u);
}

bool conn_list_gc(ConnList &l, Conntrack *ct, uint64_t now_ns)
{
	const uint32_t tick = tick_of(now_ns);
	if (tick == l.last_gc)
		return false;	/* walked in this tick already */
	uint32_t collected = 0;
	ConnTuple **link = &l.head;
	for (ConnTuple *t = *link; t; t = *link) {
		CtEntry *e;
		const Find f = find_or_evict(l, link, t, ct, now_ns, e);
		if (f == Find::Evicted) {
			collected++;
			continue;
		}
		if (f == Find::Again) {
			link = &t->next;
			continue;
		}
		if (already_closed(*e)) {
			conn_free(l, link, t);
			collected++;
			continue;
		}
		link = &t->next;
		/* __nf_conncount_gc_list stops only after a live one */
		if (collected > kGcMaxCollect)
			break;
	}
	l.last_gc = tick;
	l.last_gc_count = l.count;
	return l.count == 0;
}

ConnVerdict connlimit_eval(ConnList &l, uint32_t limit, uint32_t flags, const Pkt &p)
{
	/* get_ct_or_tuple_from_skb: the frame's connection, else its tuple
	 * from the headers, which the bridge family cannot read (no layer 3
	 * for NFPROTO_BRIDGE): the frame is dropped */
	const CtResult *r = p.ct;
	if (!r || !r->entry || p.notrack)
		return ConnVerdict::Drop;
	const CtEntry &e = *r->entry;
	const bool confirmed = !r->unconfirmed && (e.status_bits() & kCtConfirmed);
	if (confirmed && (e.status_bits() & kCtAssured))
		conn_list_gc(l, p.conntrack, p.now_ns);	/* -EEXIST: prune what closed */
	else if (conn_list_add(l, e.tuple, confirmed, p.conntrack, p.now_ns))
		return ConnVerdict::Drop;
	const bool over = l.count > limit;
	return over != bool(flags & kConnlimitFInv) ? ConnVerdict::Break : ConnVerdict::Go;
}

} // namespace xb::nft
