// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_glue_nft.cc - xbridge_glue_nft.h over core/nft_ruleset.h and
 * core/nft_dump.h. Compiled with the core (C++, freestanding).
 *
 * Ownership: an xbg_nft is a Ruleset; the shim owns it (one per namespace).
 * Locking: the shim calls everything under RTNL.
 */
#include "xbridge_glue_nft.h"

#include <new>

#include "bridge.h"
#include "bridge_nft.h"
#include "nft_dump.h"
#include "nft_ruleset.h"
#include "platform.h"

using namespace xb;
using namespace xb::nft;

struct xbg_nft {
	Ruleset rs;
};

struct xbg_nft_event {
	const Ruleset *rs;
	const CommitEvent *ev;
};

namespace {

const char *msg_of(const Extack &ack)
{
	return ack.msg;
}

/* The next object of @pos: tables, then per table its chains, sets (with
 * elements: GETSETELEM), flowtables or rules. pos[0] table index, pos[1]
 * object index in it, pos[2] element index (GETSETELEM). */
template <typename List> auto *nth(List &list, unsigned long n)
{
	decltype(&*list.begin()) found = nullptr;
	for (auto &o : list) {
		if (n-- == 0) {
			found = &o;
			break;
		}
	}
	return found;
}

bool table_matches(const TableObj &t, const char *table)
{
	return !table || cstr_equal(t.name, table);
}

/* The next object of table @t at @pos (see xbg_nft_dump_next): its length,
 * 0 when the table has no more, or a negative errno. */
long dump_in_table(const TableObj &t, uint16_t get_type, unsigned long *pos, AttrWriter &w,
		   uint16_t *obj_type)
{
	bool ok;
	switch (get_type) {
	case kMsgGetTable:
		if (pos[1])
			return 0;
		*obj_type = kMsgNewTable;
		ok = fill_table(t, w);
		break;
	case kMsgGetChain: {
		const ChainObj *c = nth(t.chains, pos[1]);
		if (!c)
			return 0;
		*obj_type = kMsgNewChain;
		ok = fill_chain(*c, w);
		break;
	}
	case kMsgGetSet: {
		const SetObj *s = nth(t.sets, pos[1]);
		if (!s)
			return 0;
		*obj_type = kMsgNewSet;
		ok = fill_set(*s, w);
		break;
	}
	case kMsgGetSetElem:
		/* one message per part of each set's elements */
		for (;; pos[1]++, pos[2] = 0) {
			const SetObj *s = nth(t.sets, pos[1]);
			if (!s)
				return 0;
			if (pos[2] >= s->elems.count())
				continue;
			uint32_t from = uint32_t(pos[2]);
			*obj_type = kMsgNewSetElem;
			if (!fill_set_elems(*s, from, w) || from == pos[2])
				return -kEMSGSIZE;
			pos[2] = from;
			return long(w.len());
		}
	case kMsgGetFlowtable: {
		const FlowtableObj *f = nth(t.flowtables, pos[1]);
		if (!f)
			return 0;
		*obj_type = kMsgNewFlowtable;
		ok = fill_flowtable(*f, w);
		break;
	}
	case kMsgGetRule: {
		/* pos[1] counts the table's rules, chain by chain */
		unsigned long k = pos[1];
		const RuleObj *rule = nullptr, *prev = nullptr;
		for (const ChainObj &c : t.chains) {
			prev = nullptr;
			for (const RuleObj &r : c.rules) {
				if (k-- == 0) {
					rule = &r;
					break;
				}
				prev = &r;
			}
			if (rule)
				break;
		}
		if (!rule)
			return 0;
		*obj_type = kMsgNewRule;
		ok = fill_rule(*rule, prev, w);
		break;
	}
	default:
		return -kEOPNOTSUPP;
	}
	if (!ok)
		return -kEMSGSIZE;
	pos[1]++;
	return long(w.len());
}

} // namespace

extern "C" {

struct xbg_nft *xbg_nft_create(void)
{
	void *mem = xb_alloc(sizeof(xbg_nft), XB_ALLOC_SLEEP);
	if (!mem)
		return nullptr;
	xbg_nft *n = new (mem) xbg_nft();
	n->rs.init(nullptr);
	return n;
}

void xbg_nft_destroy(struct xbg_nft *n)
{
	if (!n)
		return;
	n->rs.fini();
	n->~xbg_nft();
	xb_free(n);
}

int xbg_nft_apply(struct xbg_nft *n, uint16_t type, uint16_t nlflags, uint32_t family,
		  const void *attrs, size_t len, const char **msg)
{
	Extack ack;
	int err = n->rs.apply(type, nlflags, family, static_cast<const uint8_t *>(attrs), len, &ack);
	*msg = msg_of(ack);
	return err;
}

namespace {

struct EventCtx {
	xbg_nft_event_fn fn;
	void *ctx;
};

void event_thunk(void *ctx, const Ruleset &rs, const CommitEvent &ev)
{
	const auto *c = static_cast<const EventCtx *>(ctx);
	const xbg_nft_event e{&rs, &ev};
	c->fn(c->ctx, &e);
}

} // namespace

int xbg_nft_commit(struct xbg_nft *n, xbg_nft_event_fn events, void *ctx, const char **msg)
{
	Extack ack;
	EventCtx ec{events, ctx};
	CommitSink sink;
	if (events) {
		sink.fn = event_thunk;
		sink.ctx = &ec;
	}
	int err = n->rs.commit(&ack, events ? &sink : nullptr);
	*msg = msg_of(ack);
	return err;
}

uint16_t xbg_nft_event_type(const struct xbg_nft_event *ev)
{
	return ev->ev->type;
}

long xbg_nft_event_fill(const struct xbg_nft_event *ev, uint32_t pid, const char *comm,
			void *buf, size_t cap)
{
	AttrWriter w(static_cast<uint8_t *>(buf), cap);
	if (!fill_event(*ev->rs, *ev->ev, w, pid, comm))
		return -kEMSGSIZE;
	return long(w.len());
}

void xbg_nft_abort(struct xbg_nft *n)
{
	n->rs.abort();
}

uint32_t xbg_nft_generation(const struct xbg_nft *n)
{
	return n->rs.generation_id();
}

long xbg_nft_dump_next(struct xbg_nft *n, uint16_t get_type, const char *table,
		       unsigned long *pos, void *buf, size_t cap, uint16_t *obj_type)
{
	AttrWriter w(static_cast<uint8_t *>(buf), cap);
	if (get_type == kMsgGetGen) {
		if (pos[0])
			return 0;
		*obj_type = kMsgNewGen;
		if (!fill_gen(n->rs, w))
			return -kEMSGSIZE;
		pos[0] = 1;
		return long(w.len());
	}
	for (;; pos[0]++, pos[1] = pos[2] = 0) {
		const TableObj *t = nth(n->rs.tables(), pos[0]);
		if (!t)
			return 0;
		if (!table_matches(*t, table))
			continue;
		const long r = dump_in_table(*t, get_type, pos, w, obj_type);
		if (r)
			return r;
	}
}

int xbg_nft_attach(struct xbg_bridge *br, struct xbg_nft *n)
{
	Bridge *b = reinterpret_cast<Bridge *>(br);
	b->set_nft_ruleset(n ? &n->rs : nullptr);
	if (!n || b->conntrack_on())
		return 0;
	bool uses_ct;
	{
		RcuReadGuard rcu;
		const Generation *g = n->rs.generation();
		uses_ct = g && g->uses_ct;
	}
	if (!uses_ct)
		return 0;
	const int err = b->set_conntrack(true, nullptr);
	return err ? err : 1;
}

void xbg_nft_port_name(struct xbg_bridge *br, struct xbg_port *port, const char *name)
{
	reinterpret_cast<Bridge *>(br)->set_port_ifname(reinterpret_cast<Port *>(port), name);
}

bool xbg_nft_active(struct xbg_bridge *br)
{
	return nft_hooks(*reinterpret_cast<Bridge *>(br)).any;
}

} // extern "C"
