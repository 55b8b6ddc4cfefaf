// SPDX-License-Identifier: GPL-2.0
/*
 * xbridge_glue.cc - the C entry points the kernel shim calls, mapped onto
 * the C++ core. Compiled with the core (same flags, freestanding). Owns
 * nothing: every object belongs to the core's Bridge. Contexts and locking
 * as documented in xbridge_glue.h.
 */
#include "xbridge_glue.h"

#include "bridge.h"
#include "bridge_ct.h"
#include "flow_table.h"
#include "forward.h"
#include "nft_payload_write.h"
#include "xbridge.h"	/* the uAPI, for the drop-counter attribute types */

using namespace xb;

/*
 * The glue's vocabularies are the core's values, passed through unmapped:
 * these asserts are the one place that says so.
 */
static_assert(XBG_FDB_LOCAL == kFdbLocal && XBG_FDB_STATIC == kFdbStatic &&
	      XBG_FDB_STICKY == kFdbSticky && XBG_FDB_ADDED_BY_USER == kFdbAddedByUser &&
	      XBG_FDB_EXT_LEARN == kFdbExtLearn && XBG_FDB_LOCKED == kFdbLocked &&
	      XBG_FDB_DYNAMIC_LEARNED == kFdbDynamicLearned, "XBG_FDB_* are FdbFlag");
static_assert(XBG_FDB_EV_CREATED == unsigned(FdbEventType::Created) &&
	      XBG_FDB_EV_CHANGED == unsigned(FdbEventType::Changed) &&
	      XBG_FDB_EV_DELETED == unsigned(FdbEventType::Deleted), "xbg_fdb_event_type is FdbEventType");
static_assert(XBG_FDB_R_LEARNED == unsigned(FdbReason::Learned) &&
	      XBG_FDB_R_USER == unsigned(FdbReason::User) &&
	      XBG_FDB_R_AGED == unsigned(FdbReason::Aged) &&
	      XBG_FDB_R_FLUSHED == unsigned(FdbReason::Flushed) &&
	      XBG_FDB_R_PORT_REMOVED == unsigned(FdbReason::PortRemoved) &&
	      XBG_FDB_R_VLAN_REMOVED == unsigned(FdbReason::VlanRemoved), "xbg_fdb_reason is FdbReason");
static_assert(XBG_PORT_LEARNING == kPortLearning && XBG_PORT_FLOOD == kPortFlood &&
	      XBG_PORT_MCAST_FLOOD == kPortMcastFlood && XBG_PORT_BCAST_FLOOD == kPortBcastFlood &&
	      XBG_PORT_HAIRPIN == kPortHairpin && XBG_PORT_ISOLATED == kPortIsolated &&
	      XBG_PORT_LOCKED == kPortLocked && XBG_PORT_MAB == kPortMab &&
	      XBG_PORT_NEIGH_SUPPRESS == kPortNeighSuppress && XBG_PORT_FLAGS_ALL == kPortFlagsAll,
	      "XBG_PORT_* are PortFlag");
static_assert(XBG_PKTTYPE_KEEP == kPkttypeKeep, "the verdict's pkt_type sentinel");
static_assert(XBG_VLAN_PVID == kVlanPvid && XBG_VLAN_UNTAGGED == kVlanUntagged,
	      "XBG_VLAN_* are VlanFlag");
/* xbg_port_info.drops[] is indexed by DropReason, which the family sends
 * as the attribute type of each counter (enum xbridge_port_drop). */
static_assert(kDropReasonCount <= XBG_DROP_REASONS, "room for every drop reason");
static_assert(XBRIDGE_PORT_DROP_MAX + 1 == kDropReasonCount &&
	      XBRIDGE_PORT_DROP_TRUNCATED == unsigned(DropReason::Truncated) &&
	      XBRIDGE_PORT_DROP_SOURCE_INVALID == unsigned(DropReason::SourceInvalid) &&
	      XBRIDGE_PORT_DROP_LINK_LOCAL_PAUSE == unsigned(DropReason::LinkLocalPause) &&
	      XBRIDGE_PORT_DROP_PORT_STATE == unsigned(DropReason::PortState) &&
	      XBRIDGE_PORT_DROP_LEARNING_ONLY == unsigned(DropReason::LearningOnly) &&
	      XBRIDGE_PORT_DROP_NO_PVID == unsigned(DropReason::NoPvid) &&
	      XBRIDGE_PORT_DROP_VLAN_NOT_MEMBER == unsigned(DropReason::VlanNotMember) &&
	      XBRIDGE_PORT_DROP_VLAN_STATE == unsigned(DropReason::VlanState) &&
	      XBRIDGE_PORT_DROP_LOCKED_PORT == unsigned(DropReason::LockedPort) &&
	      XBRIDGE_PORT_DROP_NO_EGRESS == unsigned(DropReason::NoEgress) &&
	      XBRIDGE_PORT_DROP_HOST_VLAN == unsigned(DropReason::HostVlan) &&
	      XBRIDGE_PORT_DROP_CONNTRACK == unsigned(DropReason::Conntrack) &&
	      XBRIDGE_PORT_DROP_NETFILTER == unsigned(DropReason::Netfilter),
	      "enum xbridge_port_drop is DropReason");
static_assert(XBG_CT_GC_INTERVAL_MS == kBridgeCtGcIntervalMs, "the GC period is the core's");
static_assert(XBG_CT_EV_NEW == unsigned(CtEventType::New) &&
	      XBG_CT_EV_DESTROY == unsigned(CtEventType::Destroy) &&
	      XBG_CT_EV_UPDATE == unsigned(CtEventType::Update) &&
	      XBG_CT_EV_FLOW_TEARDOWN == unsigned(CtEventType::FlowTeardown),
	      "xbg_ct_event_type is CtEventType");
static_assert(XBRIDGE_FLOW_TEARDOWN_STALE == unsigned(FlowTeardown::Stale) &&
	      XBRIDGE_FLOW_TEARDOWN_FIN_RST == unsigned(FlowTeardown::FinRst) &&
	      XBRIDGE_FLOW_TEARDOWN_TIMEOUT == unsigned(FlowTeardown::Timeout) &&
	      XBRIDGE_FLOW_TEARDOWN_CONNTRACK == unsigned(FlowTeardown::Conntrack) &&
	      XBRIDGE_FLOW_TEARDOWN_FLUSH == unsigned(FlowTeardown::Flush) &&
	      XBRIDGE_FLOW_TEARDOWN_RULESET == unsigned(FlowTeardown::Ruleset),
	      "enum xbridge_flow_teardown is FlowTeardown");
static_assert(unsigned(XBRIDGE_CT_S_SEEN_REPLY) == kCtSeenReply &&
	      unsigned(XBRIDGE_CT_S_ASSURED) == kCtAssured &&
	      unsigned(XBRIDGE_CT_S_CONFIRMED) == kCtConfirmed &&
	      unsigned(XBRIDGE_CT_S_DYING) == kCtDying &&
	      unsigned(XBRIDGE_CT_S_OFFLOAD) == kCtOffload, "enum xbridge_ct_status is CtStatusBit");

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

void entry_to_glue(const CtEntry &e, uint32_t now, struct xbg_ct_entry *out);

xbg_ct_event_fn g_ct_event_fn;
xbg_ct_listening_fn g_ct_listening_fn;

void ct_sink_fn(void *ctx, CtEventType type, const CtEntry &e, uint8_t detail)
{
	xbg_ct_event_fn fn = load_once(g_ct_event_fn);
	xbg_ct_listening_fn listening = load_once(g_ct_listening_fn);
	if (!fn || (listening && !listening(ctx)))
		return;
	struct xbg_ct_entry out;
	entry_to_glue(e, Bridge::now_ticks(), &out);
	fn(ctx, uint8_t(type), detail, &out);
}

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

void xbg_set_ct_listening(xbg_ct_listening_fn fn)
{
	store_once(g_ct_listening_fn, fn);
}

void xbg_module_exit(void)
{
	CtTable::destroy_entry_cache();
}

struct xbg_bridge *xbg_bridge_create(const uint8_t addr[6], uint32_t ifindex, void *priv,
				     xbg_fdb_event_fn events, xbg_ct_event_fn ct_events,
				     xbg_fdb_grow_fn fdb_grow, void *events_ctx, int *err)
{
	BridgeSetup setup = {mac_from_bytes(addr), ifindex, priv, {}, {}, {}};
	setup.fdb_grow.fn = fdb_grow;
	setup.fdb_grow.ctx = events_ctx;
	if (events) {
		store_once(g_event_fn, events);
		setup.fdb_events.fn = sink_fn;
		setup.fdb_events.ctx = events_ctx;
	}
	if (ct_events) {
		store_once(g_ct_event_fn, ct_events);
		setup.ct_events.fn = ct_sink_fn;
		setup.ct_events.ctx = events_ctx;
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

void xbg_clear_addr(struct xbg_bridge *br)
{
	core(br)->clear_addr();
}

void xbg_port_set_addr(struct xbg_bridge *br, struct xbg_port *port, const uint8_t addr[6])
{
	core(br)->set_port_addr(core(port), mac_from_bytes(addr));
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

void xbg_set_promisc(struct xbg_bridge *br, bool on)
{
	core(br)->set_promisc(on);
}

void xbg_set_host_ifindex(struct xbg_bridge *br, uint32_t ifindex)
{
	core(br)->set_host_ifindex(ifindex);
}

bool xbg_link_local_to_port(const struct xbg_bridge *br, const uint8_t dest[6])
{
	return link_local_stays_on_port(*core(br), dest);
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
	int err = core(br)->vlan_add(core(port), start, end, flags, &ack);
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

static_assert(XBG_PORT_WORDS == kPortWords, "xbg_flood_set holds a FloodSet");

/* xbg_copy_write is the core's CopyWrite, handed over as it is. */
static_assert(sizeof(xbg_copy_write) == sizeof(nft::CopyWrite), "xbg_copy_write layout");
static_assert(__builtin_offsetof(xbg_copy_write, copy) == __builtin_offsetof(nft::CopyWrite, copy), "copy");
static_assert(__builtin_offsetof(xbg_copy_write, offset) == __builtin_offsetof(nft::CopyWrite, offset), "offset");
static_assert(__builtin_offsetof(xbg_copy_write, len) == __builtin_offsetof(nft::CopyWrite, len), "len");
static_assert(__builtin_offsetof(xbg_copy_write, tag_present) == __builtin_offsetof(nft::CopyWrite, tag_present),
	      "tag_present");
static_assert(__builtin_offsetof(xbg_copy_write, tag_proto) == __builtin_offsetof(nft::CopyWrite, tag_proto),
	      "tag_proto");
static_assert(__builtin_offsetof(xbg_copy_write, tag_tci) == __builtin_offsetof(nft::CopyWrite, tag_tci), "tag_tci");
static_assert(__builtin_offsetof(xbg_copy_write, before) == __builtin_offsetof(nft::CopyWrite, before), "before");
static_assert(__builtin_offsetof(xbg_copy_write, after) == __builtin_offsetof(nft::CopyWrite, after), "after");
static_assert(XBG_COPY_WRITE_MAX == nft::kCopyWriteMax, "record size");
static_assert(sizeof(xbg_copy_writes) == sizeof(nft::CopyWrites), "xbg_copy_writes layout");
static_assert(__builtin_offsetof(xbg_copy_writes, entries) == __builtin_offsetof(nft::CopyWrites, entries), "entries");
static_assert(__builtin_offsetof(xbg_copy_writes, cap) == __builtin_offsetof(nft::CopyWrites, cap), "cap");
static_assert(__builtin_offsetof(xbg_copy_writes, count) == __builtin_offsetof(nft::CopyWrites, count), "count");

static RxFrame rx_frame(struct xbg_port *in, const struct xbg_frame *frame)
{
	RxFrame rx;
	rx.data = frame->data;
	rx.len = frame->len;
	rx.oob.present = frame->vlan_present;
	rx.oob.tpid = frame->vlan_proto;
	rx.oob.tci = frame->vlan_tci;
	rx.ingress = core(in);
	rx.csum_ok = frame->csum_ok;
	rx.csum_partial = frame->csum_partial;
	rx.writable = frame->writable;
	rx.copy_writes = reinterpret_cast<nft::CopyWrites *>(frame->copy_writes);
	rx.mark = frame->mark;
	rx.priority = frame->priority;
	rx.host_stack = frame->host_stack;
	rx.wire_len = frame->wire_len;
	rx.cookie = frame->skb;
	return rx;
}

static void verdict_out(const Verdict &v, struct xbg_port *in, struct xbg_verdict *out);

void xbg_decide(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
		struct xbg_verdict *out)
{
	RxFrame rx = rx_frame(in, frame);
	Verdict v;
	decide(*core(br), rx, Bridge::now_ticks(), v);
	verdict_out(v, in, out);
	out->copy_writes = frame->copy_writes;
}

bool xbg_flow_fast_path(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
			struct xbg_verdict *out)
{
	Verdict v;
	if (!flow_fast_path(*core(br), rx_frame(in, frame), Bridge::now_ticks(), v))
		return false;
	verdict_out(v, in, out);
	out->copy_writes = nullptr;	/* a flow's frames meet no chain */
	return true;
}

static void verdict_out(const Verdict &v, struct xbg_port *in, struct xbg_verdict *out)
{
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
	out->mark = v.mark;
	out->local_mark = v.local_mark;
	out->priority = v.priority;
	out->local_priority = v.local_priority;
	out->local_pkttype = v.local_pkttype;
	out->frame_written = v.frame_written;
	out->rx_tag_written = v.rx_tag_written;
	out->rx_tag_present = v.rx_tag.present;
	out->rx_tag_proto = v.rx_tag.tpid;
	out->rx_tag_tci = v.rx_tag.tci;
	if (v.kind == VerdictKind::Flood) {
		xbg_flood_set &f = out->flood;
		f.table = v.flood.table;
		f.words = v.flood.words;
		f.keep_tags = v.flood.keep_tags;
		for (unsigned w = 0; w < v.flood.words; w++) {
			f.pass[w] = v.flood.pass[w];
			f.untag[w] = v.flood.untag[w];
		}
	}
}

void xbg_flood(const struct xbg_verdict *v, xbg_flood_fn fn, void *ctx)
{
	const xbg_flood_set &f = v->flood;
	for_each_port_of_set(static_cast<const PortTable *>(f.table), f.pass, f.untag, f.words,
			     f.keep_tags, [&](const Egress &e) { fn(ctx, e.port->priv, uint8_t(e.tag)); });
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
	out->conntrack = b->conntrack_on();
	out->conntrack_max = load_once(o.conntrack_max);
	out->vlan_stats = load_once(o.vlan_stats);
	out->vlan_stats_per_port = load_once(o.vlan_stats_per_port);
	out->fdb_n_learned = b->fdb().learned_count();
	out->fdb_n_entries = b->fdb().count();
}

/*
 * The core validates each option and changes nothing when it refuses one;
 * the options applied before it are put back (their old values were
 * valid), so a refused request changes nothing. The default PVID goes last
 * of those that can fail: it is the one whose undo could itself fail
 * (ENOMEM). The options that cannot fail follow.
 */
int xbg_bridge_set(struct xbg_bridge *br, const struct xbg_bridge_opts *o, uint32_t mask,
		   const char **msg)
{
	Bridge *b = core(br);
	const uint16_t old_proto = b->vlan_protocol();
	const uint16_t old_fwd_mask = load_once(b->opts().group_fwd_mask);
	const uint32_t old_ageing_ms = b->fdb().ageing_ms();
	const bool old_conntrack = b->conntrack_on();
	const bool old_per_port = load_once(b->opts().vlan_stats_per_port);
	Extack ack;
	int err = 0;

	if (mask & XBG_OPT_VLAN_PROTOCOL)
		err = b->set_vlan_protocol(o->vlan_protocol, &ack);
	if (!err && (mask & XBG_OPT_VLAN_STATS_PER_PORT))
		err = b->set_vlan_stats_per_port(o->vlan_stats_per_port, &ack);
	if (!err && (mask & XBG_OPT_GROUP_FWD_MASK))
		err = b->set_group_fwd_mask(o->group_fwd_mask, &ack);
	if (!err && (mask & XBG_OPT_AGEING))
		err = b->set_ageing_time_ms(o->ageing_ms, &ack);
	/* Turning conntrack on can fail (ENOMEM); turning it back off cannot. */
	if (!err && (mask & XBG_OPT_CONNTRACK))
		err = b->set_conntrack(o->conntrack, &ack);
	/* Linux's netlink path moves the default PVID whether filtering is on
	 * or not (only its sysfs file refuses with filtering on). */
	if (!err && (mask & XBG_OPT_DEFAULT_PVID))
		err = b->set_default_pvid(o->default_pvid, &ack);
	*msg = ack.msg;
	if (err) {
		b->set_vlan_protocol(old_proto, nullptr);
		if (mask & XBG_OPT_VLAN_STATS_PER_PORT)
			b->set_vlan_stats_per_port(old_per_port, nullptr);
		b->set_group_fwd_mask(old_fwd_mask, nullptr);
		b->set_ageing_time_ms(old_ageing_ms, nullptr);
		if (!old_conntrack)
			b->set_conntrack(false, nullptr);
		return err;
	}
	if (mask & XBG_OPT_VLAN_FILTERING)
		b->set_vlan_filtering(o->vlan_filtering, nullptr);
	if (mask & XBG_OPT_FDB_MAX_LEARNED)
		b->set_fdb_max_learned(o->fdb_max_learned);
	if (mask & XBG_OPT_CONNTRACK_MAX)
		b->set_conntrack_max(o->conntrack_max);
	if (mask & XBG_OPT_VLAN_STATS)
		b->set_vlan_stats(o->vlan_stats);
	return 0;
}

void xbg_port_get(const struct xbg_port *port, struct xbg_port_info *out)
{
	const Port *p = core(port);
	out->flags = p->flag_bits();
	out->state = uint8_t(p->port_state());
	out->n_drops = 0;
	for (unsigned r = 0; r < kDropReasonCount; r++)
		out->drops[r] = port_drops(p, DropReason(r));
	out->n_drops = uint8_t(kDropReasonCount);
}

/* Flags and state together or not at all: the core validates both (the
 * flags' rules, MAB's included, and the state's range). */
int xbg_port_set(struct xbg_bridge *br, struct xbg_port *port, uint32_t set, uint32_t clear,
		 int state, const char **msg)
{
	Port *p = core(port);
	const uint32_t old_flags = p->flags;
	Extack ack;
	int err = core(br)->port_set_flags(p, set, clear, &ack);

	if (!err && state >= 0) {
		err = core(br)->port_set_state(p, state > 255 ? 255 : uint8_t(state), &ack);
		if (err)
			core(br)->port_set_flags(p, old_flags, kPortFlagsAll & ~old_flags, nullptr);
	}
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

bool xbg_fdb_dump_from(struct xbg_bridge *br, uint64_t *pos, xbg_fdb_entry_fn fn, void *ctx)
{
	Fdb::Cursor cursor{*pos, false};
	const bool done = core(br)->fdb().for_each_from(cursor, [&](const FdbEntry &e) {
		struct xbg_fdb_entry out;
		entry_of(&out, e.mac(), e.vid(), e.flag_bits(), e.destination().port());
		out.used = load_once(e.used);
		out.updated = load_once(e.updated);
		return fn(ctx, &out);
	});
	*pos = cursor.hash;
	return done;
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

/* ---- conntrack ------------------------------------------------------------ */

namespace {

void tuple_to_glue(const CtTuple &t, struct xbg_ct_tuple *out)
{
	out->l3 = t.l3;
	out->proto = t.l4proto;
	out->zone = t.zone;
	out->sport = t.sport;
	out->dport = t.dport;
	__builtin_memcpy(out->src, t.src, sizeof(out->src));
	__builtin_memcpy(out->dst, t.dst, sizeof(out->dst));
}

CtTuple tuple_from_glue(const struct xbg_ct_tuple *t)
{
	CtTuple out;
	__builtin_memset(&out, 0, sizeof(out));
	out.l3 = t->l3;
	out.l4proto = t->proto;
	out.zone = t->zone;
	out.sport = t->sport;
	out.dport = t->dport;
	__builtin_memcpy(out.src, t->src, sizeof(out.src));
	__builtin_memcpy(out.dst, t->dst, sizeof(out.dst));
	return out;
}

void entry_to_glue(const CtEntry &e, uint32_t now, struct xbg_ct_entry *out)
{
	CtTuple reply;
	tuple_to_glue(e.tuple, &out->orig);
	if (!ct_invert_tuple(e.tuple, reply))
		reply = e.tuple;	/* cannot happen: checked at creation */
	tuple_to_glue(reply, &out->reply);
	out->status = e.status_bits();
	out->tcp_state = e.tuple.l4proto == kIpProtoTcp ? e.tcp_state() : 0;
	out->sctp_state = e.tuple.l4proto == kIpProtoSctp ? e.sctp_state() : 0;
	out->dccp_state = e.tuple.l4proto == kIpProtoDccp ? e.dccp_state() : 0;
	const uint32_t expires = load_once(e.expires);
	out->timeout_s = ct_ticks_after(expires, now) ? (expires - now) / 1000 : 0;
	out->mark = load_once(e.mark);
	for (unsigned d = 0; d < 2; d++) {
		out->packets[d] = __atomic_load_n(&e.packets[d], __ATOMIC_RELAXED);
		out->bytes[d] = __atomic_load_n(&e.bytes[d], __ATOMIC_RELAXED);
	}
}

const char *const kCtOff = "conntrack is off on this bridge";

} // namespace

extern "C" {

bool xbg_conntrack_on(const struct xbg_bridge *br)
{
	return core(br)->conntrack_on();
}

bool xbg_conntrack_tracking(const struct xbg_bridge *br)
{
	return core(br)->conntrack_active_rcu() != nullptr;
}

bool xbg_ct_gc(struct xbg_bridge *br)
{
	if (!core(br)->conntrack_on())
		return false;
	core(br)->run_ct_gc(Bridge::now_ticks(), kBridgeCtGcBuckets);
	return true;
}

int xbg_ct_get(struct xbg_bridge *br, const struct xbg_ct_tuple *t, struct xbg_ct_entry *out,
	       const char **msg)
{
	Conntrack *ct = core(br)->conntrack();
	Extack ack;
	*msg = nullptr;
	if (!ct) {
		*msg = kCtOff;
		return -kENOENT;
	}
	const CtTuple key = tuple_from_glue(t);
	int err = ct_tuple_check(key, &ack);
	if (err) {
		*msg = ack.msg;
		return err;
	}
	const uint32_t now = Bridge::now_ticks();
	RcuReadGuard rcu;
	uint8_t dir;
	CtEntry *e = ct->table().lookup(key, now, &dir);
	if (!e) {
		*msg = "no such conntrack entry";
		return -kENOENT;
	}
	entry_to_glue(*e, now, out);
	return 0;
}

int xbg_ct_del(struct xbg_bridge *br, const struct xbg_ct_tuple *t, const char **msg)
{
	Conntrack *ct = core(br)->conntrack();
	Extack ack;
	*msg = nullptr;
	if (!ct) {
		*msg = kCtOff;
		return -kENOENT;
	}
	int err = ct->table().del(tuple_from_glue(t), CtFilter(), &ack);
	*msg = ack.msg;
	return err;
}

unsigned int xbg_ct_flush(struct xbg_bridge *br, int32_t zone, bool match_mark, uint32_t mark,
			  uint32_t mark_mask)
{
	Conntrack *ct = core(br)->conntrack();
	if (!ct)
		return 0;
	CtFilter f;
	f.zone = zone;
	f.match_mark = match_mark;
	f.mark = mark;
	f.mark_mask = mark_mask;
	return ct->table().flush(f);
}

int xbg_ct_stats(const struct xbg_bridge *br, struct xbg_ct_stats *out, const char **msg)
{
	const Conntrack *ct = core(br)->conntrack();
	*msg = nullptr;
	if (!ct) {
		*msg = kCtOff;
		return -kENOENT;
	}
	const CtTable &t = ct->table();
	const CtStats s = t.stats_sum();
	out->count = t.count();
	out->max = t.max();
	out->buckets = t.buckets();
	out->found = s.found;
	out->invalid = s.invalid;
	out->insert = s.insert;
	out->insert_failed = s.insert_failed;
	out->drop = s.drop;
	out->early_drop = s.early_drop;
	out->error = s.error;
	out->search_restart = s.search_restart;
	out->clash_resolve = s.clash_resolve;
	out->chaintoolong = s.chaintoolong;
	const FlowTable *flows = core(br)->flows();
	const FlowStats f = flows ? flows->stats_sum() : FlowStats{};
	out->flows = flows ? flows->count() : 0;
	out->flow_hits = f.hits;
	out->flow_adds = f.adds;
	out->flow_add_failed = f.add_failed;
	/* a ruleset commit makes flows stale too */
	out->flow_teardown_stale = f.teardown[unsigned(FlowTeardown::Stale)] +
				   f.teardown[unsigned(FlowTeardown::Ruleset)];
	out->flow_teardown_fin_rst = f.teardown[unsigned(FlowTeardown::FinRst)];
	out->flow_teardown_timeout = f.teardown[unsigned(FlowTeardown::Timeout)];
	out->flow_teardown_conntrack = f.teardown[unsigned(FlowTeardown::Conntrack)];
	return 0;
}

bool xbg_ct_dump_from(struct xbg_bridge *br, int32_t zone, uint32_t *bucket, uint32_t *skip,
		      xbg_ct_entry_fn fn, void *ctx)
{
	const Conntrack *ct = core(br)->conntrack();
	if (!ct)
		return true;
	const uint32_t now = Bridge::now_ticks();
	return ct->table().for_each_from(*bucket, *skip, [&](const CtEntry &e) {
		/* Expired or dying entries are not shown (ctnetlink skips them). */
		if ((e.status_bits() & kCtDying) || ct_expired(e, now) ||
		    (zone >= 0 && e.tuple.zone != uint16_t(zone)))
			return true;
		struct xbg_ct_entry out;
		entry_to_glue(e, now, &out);
		return fn(ctx, &out);
	});
}

} // extern "C"
