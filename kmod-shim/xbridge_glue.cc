// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_glue.cc - the C entry points the kernel shim calls, mapped onto
 * the C++ core. Compiled with the core (same flags, freestanding). Owns
 * nothing: every object belongs to the core's Bridge. Contexts and locking
 * as documented in xbridge_glue.h.
 */
#include "xbridge_glue.h"

#include "bridge.h"
#include "forward.h"

using namespace xb;


namespace {

Bridge *core(struct xbg_bridge *br)
{
	return reinterpret_cast<Bridge *>(br);
}

const Bridge *core(const struct xbg_bridge *br)
{
	return reinterpret_cast<const Bridge *>(br);
}

Port *core(struct xbg_port *p)
{
	return reinterpret_cast<Port *>(p);
}

struct xbg_port *glue(Port *p)
{
	return reinterpret_cast<struct xbg_port *>(p);
}

const Port *core(const struct xbg_port *p)
{
	return reinterpret_cast<const Port *>(p);
}

/* The sink handed to the core: translate and call the shim's callback. */
struct EventSink {
	xbg_fdb_event_fn fn;
	void *ctx;
};

void entry_of(struct xbg_fdb_entry *out, MacKey mac, uint16_t vid, uint16_t flags, Port *p)
{
	mac_to_bytes(mac, out->mac);
	out->vid = vid;
	out->flags = flags;
	out->is_host = p->is_host;
	out->port_priv = p->priv;
	out->used = 0;
	out->updated = 0;
}

void fill_vlan(struct xbg_vlan_info *out, const Port *p, const PortVlan *v)
{
	VlanStats st = port_vlan_stats(v);
	out->vid = v->vid;
	out->pvid = p->vlans.pvid() == v->vid;
	out->untagged = v->flags & kVlanUntagged;
	out->state = load_once(v->state);
	out->rx_packets = st.rx_packets;
	out->rx_bytes = st.rx_bytes;
	out->tx_packets = st.tx_packets;
	out->tx_bytes = st.tx_bytes;
}

/*
 * The core's sink is {fn, ctx}: ctx is the shim's per-bridge context, and
 * the shim's callback, the same for every bridge, is kept module-wide.
 */
xbg_fdb_event_fn g_event_fn;

void sink_fn(void *ctx, const FdbEvent &ev)
{
	xbg_fdb_event_fn fn = load_once(g_event_fn);
	if (!fn || !ev.port)
		return;
	struct xbg_fdb_entry e;
	entry_of(&e, ev.mac, ev.vid, ev.flags, ev.port);
	fn(ctx, uint8_t(ev.type), uint8_t(ev.reason), &e);
}

} // namespace

extern "C" {

struct xbg_bridge *xbg_bridge_create(const uint8_t addr[6], uint32_t ifindex, void *priv,
				     xbg_fdb_event_fn events, void *events_ctx, int *err)
{
	BridgeSetup setup = {mac_from_bytes(addr), ifindex, priv, {}};
	if (events) {
		store_once(g_event_fn, events);
		setup.fdb_events.fn = sink_fn;
		setup.fdb_events.ctx = events_ctx;
	}
	return reinterpret_cast<struct xbg_bridge *>(Bridge::create(setup, err));
}

void xbg_bridge_destroy(struct xbg_bridge *br)
{
	Bridge::destroy(core(br));
}

int xbg_set_addr(struct xbg_bridge *br, const uint8_t addr[6])
{
	return core(br)->set_addr(mac_from_bytes(addr), nullptr);
}

bool xbg_vlan_filtering(const struct xbg_bridge *br)
{
	return core(br)->vlan_filtering();
}

uint32_t xbg_ageing_ms(const struct xbg_bridge *br)
{
	return core(br)->fdb().ageing_ms();
}

uint16_t xbg_vlan_proto(const struct xbg_bridge *br)
{
	return core(br)->vlan_protocol();
}

int xbg_set_vlan_filtering(struct xbg_bridge *br, bool on)
{
	return core(br)->set_vlan_filtering(on, nullptr);
}

int xbg_set_ageing_ms(struct xbg_bridge *br, uint32_t ms)
{
	return core(br)->set_ageing_time_ms(ms, nullptr);
}

void xbg_set_promisc(struct xbg_bridge *br, bool on)
{
	core(br)->set_promisc(on);
}

struct xbg_port *xbg_host_port(struct xbg_bridge *br)
{
	return glue(core(br)->host());
}

int xbg_port_add(struct xbg_bridge *br, const uint8_t addr[6], uint32_t ifindex, void *priv,
		 struct xbg_port **out)
{
	Port *p = nullptr;
	PortSetup setup = {mac_from_bytes(addr), ifindex, priv};
	int err = core(br)->add_port(setup, &p, nullptr);
	*out = glue(p);
	return err;
}

void xbg_port_remove(struct xbg_bridge *br, struct xbg_port *port)
{
	core(br)->remove_port(core(port));
}

void xbg_port_link(struct xbg_bridge *br, struct xbg_port *port, bool up)
{
	core(br)->port_link_changed(core(port), up);
}

int xbg_vlan_add(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 uint8_t flags, const char **msg)
{
	Extack ack;
	uint8_t f = 0;
	if (flags & XBG_VLAN_PVID)
		f |= kVlanPvid;
	if (flags & XBG_VLAN_UNTAGGED)
		f |= kVlanUntagged;
	int err = core(br)->vlan_add(core(port), start, end, f, &ack);
	*msg = ack.msg;
	return err;
}

int xbg_vlan_del(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 const char **msg)
{
	Extack ack;
	int err = core(br)->vlan_del(core(port), start, end, &ack);
	*msg = ack.msg;
	return err;
}

void xbg_vlan_dump(struct xbg_port *port, xbg_vlan_fn fn, void *ctx)
{
	Port *p = core(port);
	p->vlans.for_each([&](PortVlan *v) {
		fn(ctx, v->vid, p->vlans.pvid() == v->vid, v->flags & kVlanUntagged);
		return true;
	});
}

void xbg_decide(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
		struct xbg_verdict *out)
{
	RxFrame rx;
	rx.data = frame->data;
	rx.len = frame->len;
	rx.oob.present = frame->vlan_present;
	rx.oob.tpid = frame->vlan_proto;
	rx.oob.tci = frame->vlan_tci;
	rx.ingress = core(in);

	Verdict v;
	decide(*core(br), rx, Bridge::now_ticks(), v);
	out->kind = uint8_t(v.kind);
	out->drop_reason = uint8_t(v.reason);
	out->flood_class = uint8_t(v.flood_class);
	out->local_too = v.local_too;
	out->vid = v.vid;
	out->tag_proto = v.tag_proto;
	out->pcp_dei = v.pcp_dei;
	out->src_isolated = v.src_isolated;
	out->out_tag = uint8_t(v.out.tag);
	out->local_tag = uint8_t(v.local.tag);
	out->out_priv = v.out.port ? v.out.port->priv : nullptr;
	out->ingress = in;
}

void xbg_flood(struct xbg_bridge *br, const struct xbg_verdict *gv, xbg_flood_fn fn, void *ctx)
{
	Verdict v = Verdict();
	v.kind = VerdictKind::Flood;
	v.flood_class = FloodClass(gv->flood_class);
	v.vid = gv->vid;
	v.src_isolated = gv->src_isolated;
	v.ingress = core(gv->ingress);
	for_each_flood_target(*core(br), v, [&](const Egress &e) {
		fn(ctx, e.port->priv, uint8_t(e.tag));
	});
}

void xbg_fdb_dump(struct xbg_bridge *br, xbg_fdb_fn fn, void *ctx)
{
	core(br)->fdb().for_each([&](const FdbEntry &e) {
		uint8_t mac[6];
		Port *p = e.destination().port();
		mac_to_bytes(e.mac(), mac);
		fn(ctx, mac, e.vid(), p->priv, p->is_host, e.flag_bits());
		return true;
	});
}

void xbg_bridge_get(const struct xbg_bridge *br, struct xbg_bridge_opts *out)
{
	const Bridge *b = core(br);
	const BridgeOptions &o = b->opts();
	out->vlan_filtering = b->vlan_filtering();
	out->vlan_protocol = b->vlan_protocol();
	out->default_pvid = load_once(o.default_pvid);
	out->ageing_ms = b->fdb().ageing_ms();
	out->fdb_max_learned = b->fdb().max_learned();
	out->group_fwd_mask = load_once(o.group_fwd_mask);
	out->fdb_n_learned = b->fdb().learned_count();
	out->fdb_n_entries = b->fdb().count();
}

int xbg_bridge_set(struct xbg_bridge *br, const struct xbg_bridge_opts *o, uint32_t mask,
		   const char **msg)
{
	Bridge *b = core(br);
	Extack ack;
	const bool pvid_change = (mask & XBG_OPT_DEFAULT_PVID) &&
				 o->default_pvid != b->opts().default_pvid;
	int err;

	*msg = nullptr;
	/* Validate everything first: nothing changes on a failure. */
	if ((mask & XBG_OPT_VLAN_PROTOCOL) && o->vlan_protocol != kEthP8021Q &&
	    o->vlan_protocol != kEthP8021AD) {
		*msg = "vlan_protocol must be 802.1Q or 802.1ad";
		return -kEPROTONOSUPPORT;
	}
	if ((mask & XBG_OPT_DEFAULT_PVID) && o->default_pvid > kVidMax) {
		*msg = "default_pvid must be 0..4094";
		return -kEINVAL;
	}
	if ((mask & XBG_OPT_AGEING) && o->ageing_ms > kFdbMaxAgeingMs) {
		*msg = "ageing_time too large";
		return -kERANGE;
	}
	if ((mask & XBG_OPT_GROUP_FWD_MASK) && (o->group_fwd_mask & kGroupFwdRestricted)) {
		*msg = "group_fwd_mask may not forward 802.1D, pause or LACP frames";
		return -kEINVAL;
	}

	/* Moving the default PVID is the only step that can fail (ENOMEM),
	 * so it goes first. Linux's netlink path moves it whether filtering
	 * is on or not (only its sysfs file refuses with filtering on). */
	if (pvid_change) {
		err = b->set_default_pvid(o->default_pvid, &ack);
		if (err) {
			*msg = ack.msg;
			return err;
		}
	}
	if (mask & XBG_OPT_VLAN_FILTERING)
		b->set_vlan_filtering(o->vlan_filtering, nullptr);
	if (mask & XBG_OPT_VLAN_PROTOCOL)
		b->set_vlan_protocol(o->vlan_protocol, nullptr);
	if (mask & XBG_OPT_AGEING)
		b->set_ageing_time_ms(o->ageing_ms, nullptr);
	if (mask & XBG_OPT_FDB_MAX_LEARNED)
		b->set_fdb_max_learned(o->fdb_max_learned);
	if (mask & XBG_OPT_GROUP_FWD_MASK)
		b->set_group_fwd_mask(o->group_fwd_mask, nullptr);
	return 0;
}

void xbg_port_get(const struct xbg_port *port, struct xbg_port_info *out)
{
	const Port *p = core(port);
	out->flags = p->flag_bits();
	out->state = uint8_t(p->port_state());
	out->n_drops = 0;
	static_assert(kDropReasonCount <= XBG_DROP_REASONS, "room for every drop reason");
	for (unsigned r = 0; r < kDropReasonCount; r++)
		out->drops[r] = port_drops(p, DropReason(r));
	out->n_drops = uint8_t(kDropReasonCount);
}

int xbg_port_set(struct xbg_bridge *br, struct xbg_port *port, uint32_t set, uint32_t clear,
		 int state, const char **msg)
{
	Port *p = core(port);
	Extack ack;
	*msg = nullptr;
	if ((set | clear) & ~kPortFlagsAll) {
		*msg = "unknown port flag";
		return -kEINVAL;
	}
	uint32_t flags = (p->flags | set) & ~clear;
	if ((flags & kPortMab) && (!(flags & kPortLocked) || !(flags & kPortLearning))) {
		*msg = "MAB needs a locked port with learning on";
		return -kEINVAL;
	}
	if (state > int(kPortStateMax)) {
		*msg = "port state must be 0..4";
		return -kEINVAL;
	}
	int err = core(br)->port_set_flags(p, set, clear, &ack);
	if (!err && state >= 0)
		err = core(br)->port_set_state(p, uint8_t(state), &ack);
	*msg = ack.msg;
	return err;
}

bool xbg_vlan_get(const struct xbg_port *port, uint16_t vid, struct xbg_vlan_info *out)
{
	const Port *p = core(port);
	PortVlan *v = p->vlans.find(vid);
	if (!v)
		return false;
	fill_vlan(out, p, v);
	return true;
}

int xbg_vlan_set_state(struct xbg_bridge *br, struct xbg_port *port, uint16_t vid,
		       uint8_t state, const char **msg)
{
	Extack ack;
	int err = core(br)->vlan_set_state(core(port), vid, state, &ack);
	*msg = ack.msg;
	return err;
}

uint16_t xbg_vlan_dump_from(const struct xbg_port *port, uint16_t from_vid,
			    xbg_vlan_info_fn fn, void *ctx)
{
	const Port *p = core(port);
	uint16_t resume = 0;
	p->vlans.for_each([&](PortVlan *v) {
		if (v->vid < from_vid)
			return true;
		struct xbg_vlan_info info;
		fill_vlan(&info, p, v);
		if (!fn(ctx, &info)) {
			resume = v->vid;
			return false;
		}
		return true;
	});
	return resume;
}

int xbg_fdb_add(struct xbg_bridge *br, struct xbg_port *port, const uint8_t mac[6],
		int32_t vid, uint16_t flags, bool create, const char **msg)
{
	Extack ack;
	int err = core(br)->fdb_add(mac_from_bytes(mac), vid, core(port), flags,
				    create ? FdbAddMode::Create : FdbAddMode::Replace, &ack);
	*msg = ack.msg;
	return err;
}

int xbg_fdb_del(struct xbg_bridge *br, struct xbg_port *port, const uint8_t mac[6],
		int32_t vid, const char **msg)
{
	Extack ack;
	int err = core(br)->fdb_del(mac_from_bytes(mac), vid, core(port), &ack);
	*msg = ack.msg;
	return err;
}

int xbg_fdb_get(struct xbg_bridge *br, const uint8_t mac[6], uint16_t vid,
		struct xbg_fdb_entry *out)
{
	RcuReadGuard rcu;
	FdbEntry *e = core(br)->fdb().lookup(mac_from_bytes(mac), vid);
	if (!e)
		return -kENOENT;
	entry_of(out, e->mac(), e->vid(), e->flag_bits(), e->destination().port());
	out->used = load_once(e->used);
	out->updated = load_once(e->updated);
	return 0;
}

unsigned int xbg_fdb_flush(struct xbg_bridge *br, struct xbg_port *port, int32_t vid,
			   uint16_t flags_set, uint16_t flags_clear)
{
	FdbFilter f;
	f.port = port ? core(port) : nullptr;
	f.vid = vid;
	f.flags_set = flags_set;
	f.flags_clear = flags_clear;
	return core(br)->fdb_flush(f);
}

bool xbg_fdb_dump_from(struct xbg_bridge *br, uint32_t *bucket, uint32_t *skip,
		       xbg_fdb_entry_fn fn, void *ctx)
{
	return core(br)->fdb().for_each_from(*bucket, *skip, [&](const FdbEntry &e) {
		struct xbg_fdb_entry out;
		entry_of(&out, e.mac(), e.vid(), e.flag_bits(), e.destination().port());
		out.used = load_once(e.used);
		out.updated = load_once(e.updated);
		return fn(ctx, &out);
	});
}

uint32_t xbg_now_ticks(void)
{
	return Bridge::now_ticks();
}

unsigned int xbg_run_ageing(struct xbg_bridge *br)
{
	return core(br)->run_ageing(Bridge::now_ticks());
}

} // extern "C"
