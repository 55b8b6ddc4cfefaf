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
		  const void *attrs, size_t len, const char **msg, const void **bad_attr)
{
	Extack ack;
	int err = n->rs.apply(type, nlflags, family, static_cast<const uint8_t *>(attrs), len, &ack);
	*msg = msg_of(ack);
	*bad_attr = ack.attr;
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

int xbg_nft_check(struct xbg_nft *n, const char **msg)
{
	Extack ack;
	int err = n->rs.check(&ack);
	*msg = msg_of(ack);
	return err;
}

int xbg_nft_validate(struct xbg_nft *n, const char **msg)
{
	Extack ack;
	int err = n->rs.validate(&ack);
	*msg = msg_of(ack);
	return err;
}

void xbg_nft_validate_each_request(struct xbg_nft *n)
{
	n->rs.validate_each_request();
}

uint16_t xbg_nft_event_type(const struct xbg_nft_event *ev)
{
	return ev->ev->type;
}

uint16_t xbg_nft_event_flags(const struct xbg_nft_event *ev)
{
	return ev->ev->flags;
}

bool xbg_nft_event_report(const struct xbg_nft_event *ev)
{
	return ev->ev->report;
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
		       const char *name, uint32_t obj_filter, unsigned long *pos, void *buf,
		       size_t cap, uint16_t *obj_type)
{
	static_assert(kDumpPosLen == XBG_NFT_DUMP_POS, "the shim keeps the dump's position");
	AttrWriter w(static_cast<uint8_t *>(buf), cap);
	return dump_next(n->rs, get_type, table, pos, w, obj_type, name, obj_filter);
}

int xbg_nft_attach(struct xbg_bridge *br, struct xbg_nft *n)
{
	Bridge *b = reinterpret_cast<Bridge *>(br);
	b->set_nft_ruleset(n ? &n->rs : nullptr);
	return b->nft_ruleset_committed(nullptr);
}

void xbg_nft_port_name(struct xbg_bridge *br, struct xbg_port *port, const char *name,
		       const char *kind)
{
	Bridge *b = reinterpret_cast<Bridge *>(br);
	b->set_port_ifname(reinterpret_cast<Port *>(port), name);
	b->set_port_link_kind(reinterpret_cast<Port *>(port), kind);
}

bool xbg_nft_active(struct xbg_bridge *br)
{
	return nft_hooks(*reinterpret_cast<Bridge *>(br)).any;
}

bool xbg_nft_writes(struct xbg_bridge *br)
{
	const Generation *g = reinterpret_cast<Bridge *>(br)->nft_generation_rcu();
	return g && g->has_payload_write;
}

} // extern "C"
