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

} // namespace

extern "C" {

struct xbg_bridge *xbg_bridge_create(const uint8_t addr[6], uint32_t ifindex, void *priv,
				     int *err)
{
	BridgeSetup setup = {mac_from_bytes(addr), ifindex, priv, {}};
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
	out->pcp = v.pcp;
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

unsigned int xbg_run_ageing(struct xbg_bridge *br)
{
	return core(br)->run_ageing(Bridge::now_ticks());
}

} // extern "C"
