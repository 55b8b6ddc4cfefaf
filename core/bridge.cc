// SPDX-License-Identifier: GPL-2.0
/*
 * bridge.cc - bridge lifetime, ports, options, VLAN membership and the
 * FDB rules that tie them together (local entries, "no VLAN" adds, flushes
 * on VLAN and port removal).
 *
 * Ownership and locking as in bridge.h: control methods are serialised by
 * the caller and may sleep (they wait for grace periods); FDB changes take
 * the FDB lock inside Fdb. Objects readers may still hold are freed
 * through call_rcu or after xb_synchronize_rcu().
 */
#include "bridge.h"

#include <new>

#include "scratch.h"

namespace xb {

namespace {

Port *port_of_rcu(xb_rcu_head *head)
{
	return xb_container_of(head, Port, rcu);
}

} // namespace

/* ---- lifetime ---------------------------------------------------------- */

/* xb_alloc starts a block of a cache line or more on a cache line. */
static_assert(alignof(Bridge) <= 64 && sizeof(Bridge) >= 64);

Bridge *Bridge::create(const BridgeSetup &setup, int *err)
{
	void *mem = xb_alloc(sizeof(Bridge), XB_ALLOC_SLEEP);
	if (!mem) {
		*err = -kENOMEM;
		return nullptr;
	}
	Bridge *br = new (mem) Bridge();
	br->addr_ = setup.addr & kMacMask;
	br->ct_events_ = setup.ct_events;
	br->fdb_.set_flow_generation(&br->flow_gen_);

	br->ports_.init(static_cast<PortTable *>(xb_alloc(sizeof(PortTable), XB_ALLOC_SLEEP)));
	br->ports_spare_ = static_cast<PortTable *>(xb_alloc(sizeof(PortTable), XB_ALLOC_SLEEP));
	br->fdb_lock_ = xb_lock_create();
	if (!br->ports_.writer() || !br->ports_spare_ || !br->fdb_lock_ ||
	    br->fdb_.init(br->fdb_lock_, setup.fdb_events, setup.fdb_grow) < 0)
		goto fail;

	br->host_ = br->port_alloc({setup.addr, setup.ifindex, setup.priv}, true);
	if (!br->host_)
		goto fail;
	if (br->add_local_entry(br->host_, 0) < 0)
		goto fail;
	if (br->opts_.default_pvid &&
	    br->vlan_add(br->host_, br->opts_.default_pvid, br->opts_.default_pvid,
			 kVlanPvid | kVlanUntagged, nullptr) < 0)
		goto fail;
	*err = 0;
	return br;

fail:
	destroy(br);
	*err = -kENOMEM;
	return nullptr;
}

void Bridge::destroy(Bridge *br)
{
	br->set_conntrack(false, nullptr);
	while (!br->port_list_.empty())
		br->remove_port(&br->port_list_.front());
	if (br->host_)
		br->port_release_stats(br->host_);

	/* No port is published any more; wait for readers of the last table,
	 * of FDB entries and of the host port (one grace period, as the Linux
	 * bridge's br_vlan_flush), then free without deferral. What is still
	 * queued to call_rcu (ports, port VLANs, entries, port tables) needs
	 * nothing of the bridge; the module's exit waits for it. */
	xb_synchronize_rcu();
	br->fdb_.fini();
	if (br->host_)
		port_free(br->host_);
	br->vlan_stats_.destroy();
	if (br->fdb_lock_)
		xb_lock_destroy(br->fdb_lock_);
	xb_free(br->ports_.writer());
	xb_free(br->ports_spare_);
	br->~Bridge();
	xb_free(br);
}

/* ---- ports --------------------------------------------------------------- */

Port *Bridge::port_alloc(const PortSetup &setup, bool is_host)
{
	void *mem = xb_alloc(sizeof(Port), XB_ALLOC_SLEEP);
	if (!mem)
		return nullptr;
	Port *p = new (mem) Port();
	p->bridge = this;
	p->priv = setup.priv;
	p->ifindex = setup.ifindex;
	p->flags = is_host ? 0 : kPortFlagsDefault;
	p->state = uint8_t(PortState::Forwarding);
	p->is_host = is_host;
	p->index = is_host ? 0 : next_index_++;
	p->addr = setup.addr & kMacMask;
	if (!p->stats.init(XB_ALLOC_SLEEP)) {
		p->~Port();
		xb_free(p);
		return nullptr;
	}
	return p;
}

/* Free a port nobody can reach any more, with its VLANs. */
void Bridge::port_free(Port *port)
{
	port->vlans.destroy();
	port->stats.fini();
	port->~Port();
	xb_free(port);
}

void Bridge::port_free_rcu(xb_rcu_head *head)
{
	port_free(port_of_rcu(head));
}

void Bridge::port_table_free_rcu(xb_rcu_head *head)
{
	xb_free(xb_container_of(head, PortTable, rcu));
}

/* See PortTable: no grace-period wait unless memory is short. */
void Bridge::publish_ports()
{
	PortTable *next = ports_spare_;
	uint32_t n = 0;

	if (!xb_rcu_gp_done(ports_spare_gp_)) {
		auto *fresh = static_cast<PortTable *>(xb_alloc(sizeof(PortTable), XB_ALLOC_SLEEP));
		if (fresh) {
			xb_call_rcu(&next->rcu, port_table_free_rcu);
			next = fresh;
		} else {
			xb_rcu_gp_wait(ports_spare_gp_);
		}
	}
	for (Port &p : port_list_)
		next->port[n++] = &p;
	next->count = n;
	PortTable *old = ports_.writer();
	ports_.publish(next);
	ports_spare_ = old;
	ports_spare_gp_ = xb_rcu_gp_start();
}

Port *Bridge::find_port(uint32_t ifindex) const
{
	for (const Port &p : port_list_)
		if (p.ifindex == ifindex)
			return const_cast<Port *>(&p);
	return nullptr;
}

FdbDest Bridge::dest_for(Port *port, uint16_t vid) const
{
	PortVlan *v = vid ? port->vlans.find(vid) : nullptr;
	if (v && load_once(opts_.fdb_cache_vlan))
		return FdbDest::to_vlan(v);
	return FdbDest::to_port(port);
}

/*
 * A local entry for the port's own address at @vid. An existing local
 * entry (another port with the same address) is kept; a learned one is
 * taken over, as the Linux bridge does.
 */
int Bridge::add_local_entry(Port *port, uint16_t vid)
{
	FdbEntry *e;
	if (!port->addr)
		return 0;	/* a bridge without an address has no local entry */
	{
		RcuReadGuard rcu;
		e = fdb_.lookup(port->addr, vid);
		if (e && (e->flag_bits() & kFdbLocal))
			return 0;
	}
	FdbAddRequest req = {port->addr, vid, FdbDest::to_port(port), kFdbLocal,
			     FdbAddMode::Replace};
	return fdb_.add(req, now_ticks(), nullptr);
}

/*
 * fdb_delete_local for an address @owner no longer has: its local entry
 * at @vid moves to another port (or the bridge) with that address, or
 * goes. An entry the user added stays where it is, as Linux keeps it.
 */
void Bridge::drop_local_entry(Port *owner, MacKey mac, uint16_t vid)
{
	{
		RcuReadGuard rcu;
		FdbEntry *e = fdb_.lookup(mac, vid);
		if (!e || e->destination().port() != owner)
			return;
		if ((e->flag_bits() & (kFdbLocal | kFdbAddedByUser)) != kFdbLocal)
			return;
	}
	Port *to = other_owner(owner, mac, vid);
	if (to) {
		FdbAddRequest req = {mac, vid, FdbDest::to_port(to), kFdbLocal,
				     FdbAddMode::Replace};
		fdb_.add(req, now_ticks(), nullptr);
	} else {
		fdb_.del(mac, vid, owner, FdbReason::User, nullptr);
	}
}

int Bridge::add_port(const PortSetup &setup, Port **out, Extack *ack)
{
	if (port_list_.size() >= kMaxPorts)
		return fail(ack, kENOSPC, "too many ports on the bridge");
	if (find_port(setup.ifindex) || setup.ifindex == host_->ifindex)
		return fail(ack, kEEXIST, "device is already a port of this bridge");

	Port *p = port_alloc(setup, false);
	if (!p)
		return fail(ack, kENOMEM, "out of memory for the port");

	int err = add_local_entry(p, 0);
	if (!err && opts_.default_pvid)
		err = vlan_add(p, opts_.default_pvid, opts_.default_pvid,
			       kVlanPvid | kVlanUntagged, ack);
	if (err) {
		/* Its local entry was visible: readers may hold it. */
		fdb_.mark_unlinked(p);
		FdbFilter all;
		all.port = p;
		fdb_.flush(all, FdbReason::PortRemoved);
		port_release_stats(p);
		xb_call_rcu(&p->rcu, port_free_rcu);
		return fail(ack, -err, "out of memory for the port");
	}

	port_list_.push_back(*p);
	publish_ports();
	if (out)
		*out = p;
	return 0;
}

void Bridge::remove_port(Port *port)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	/* Frames already on their way in see a disabled port and drop. */
	store_once(port->state, uint8_t(PortState::Disabled));
	port_list_.erase(port_list_.iterator_to(*port));
	publish_ports();
	/* Learners that found the port before now make no entry for it. */
	fdb_.mark_unlinked(port);

	/* As fdb_delete_local: a local entry whose address another port (a
	 * member of its VID) or the bridge itself also has moves there. */
	fdb_.rehome_local(port, [&](MacKey mac, uint16_t vid) -> Port * {
		return other_owner(port, mac, vid);
	});
	FdbFilter all;
	all.port = port;
	fdb_.flush(all, FdbReason::PortRemoved);
	port_release_stats(port);
	xb_call_rcu(&port->rcu, port_free_rcu);
}

void Bridge::port_link_changed(Port *port, bool up)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	/* As br_port_carrier_check: carrier only enables a disabled port and
	 * disables an enabled one; a state the user set otherwise stays. */
	PortState state = port->port_state();
	if (up) {
		if (state == PortState::Disabled)
			store_once(port->state, uint8_t(PortState::Forwarding));
		return;
	}
	if (state == PortState::Disabled)
		return;
	store_once(port->state, uint8_t(PortState::Disabled));
	FdbFilter dynamic;
	dynamic.port = port;
	dynamic.flags_clear = kFdbStatic | kFdbExtLearn;
	fdb_.flush(dynamic, FdbReason::Flushed);
}

int Bridge::port_set_flags(Port *port, uint32_t set, uint32_t clear, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if ((set | clear) & ~kPortFlagsAll)
		return fail(ack, kEINVAL, "unknown port flag");
	uint32_t flags = (port->flags | set) & ~clear;
	if ((flags & kPortMab) && (!(flags & kPortLocked) || !(flags & kPortLearning)))
		return fail(ack, kEINVAL, "MAB needs a locked port with learning on");
	uint32_t old = port->flags;
	store_once(port->flags, flags);
	if ((old & kPortMab) && !(flags & kPortMab)) {
		/* Entries MAB created are meaningless without it. */
		FdbFilter locked;
		locked.port = port;
		locked.flags_set = kFdbLocked;
		fdb_.flush(locked, FdbReason::Flushed);
	}
	return 0;
}

int Bridge::port_set_state(Port *port, uint8_t state, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (state > kPortStateMax)
		return fail(ack, kEINVAL, "port state must be 0..4");
	/* br_set_port_state then br_port_state_selection: with no STP every
	 * port is designated and br_make_forwarding moves a blocking one to
	 * forwarding at once, so "state 4" reads back as 3 on Linux too. */
	if (state == uint8_t(PortState::Blocking))
		state = uint8_t(PortState::Forwarding);
	store_once(port->state, state);
	return 0;
}

/* ---- options ------------------------------------------------------------- */

int Bridge::set_vlan_filtering(bool on, Extack *)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	store_once(opts_.vlan_filtering, on);
	return 0;
}

int Bridge::set_vlan_protocol(uint16_t proto, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (proto != kEthP8021Q && proto != kEthP8021AD)
		return fail(ack, kEPROTONOSUPPORT, "vlan_protocol must be 802.1Q or 802.1ad");
	store_once(opts_.vlan_protocol, proto);
	return 0;
}

int Bridge::set_ageing_time_ms(uint32_t ms, Extack *ack)
{
	if (ms > kFdbMaxAgeingMs)
		return fail(ack, kERANGE, "ageing_time too large");
	fdb_.set_ageing_ms(ms);
	return 0;
}

int Bridge::set_group_fwd_mask(uint16_t mask, Extack *ack)
{
	if (mask & kGroupFwdRestricted)
		return fail(ack, kEINVAL, "group_fwd_mask may not forward 802.1D, pause or LACP frames");
	store_once(opts_.group_fwd_mask, mask);
	return 0;
}

bool Bridge::vlan_is_default_pvid(Port *port, uint16_t vid) const
{
	if (!vid || port->vlans.pvid() != vid)
		return false;
	PortVlan *v = port->vlans.find(vid);
	return v && (v->flags & kVlanUntagged);
}

int Bridge::set_default_pvid(uint16_t pvid, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (pvid > kVidMax)
		return fail(ack, kEINVAL, "default_pvid must be 0..4094");
	if (pvid == opts_.default_pvid)
		return 0;
	/* Over netlink (br_changelink -> __br_vlan_set_default_pvid) Linux
	 * changes it with filtering on too; only its sysfs file says EPERM. */
	const uint16_t old = opts_.default_pvid;

	/*
	 * Prepare: list the ports that move, and their PVID, before anything
	 * changes. As __br_vlan_set_default_pvid: a port that already has the
	 * new VID keeps its VLANs, and so does one whose old default the user
	 * changed; with no old default every port gets the new one.
	 */
	struct Move {
		Port *port;
		uint16_t prev_pvid;
	};
	ScratchArray<Move> moves(kMaxPorts + 1u);
	if (!moves.ok())
		return fail(ack, kENOMEM, "out of memory");
	unsigned n = 0;
	auto consider = [&](Port *p) {
		if (pvid && p->vlans.find(pvid))
			return;
		if (old && !vlan_is_default_pvid(p, old))
			return;
		moves[n++] = {p, p->vlans.pvid()};
	};
	consider(host_);
	for (Port &p : port_list_)
		consider(&p);

	/* Add the new default everywhere first: only this allocates, and
	 * undoing it does not (vlan_add itself changes nothing on failure). */
	for (unsigned i = 0; pvid && i < n; i++) {
		int err = vlan_add(moves[i].port, pvid, pvid, kVlanPvid | kVlanUntagged, ack);
		if (!err)
			continue;
		for (unsigned j = 0; j < i; j++) {
			Port *p = moves[j].port;
			PortVlan *added = p->vlans.find(pvid);
			vlans_remove(p, &added, 1);
			p->vlans.set_pvid(moves[j].prev_pvid);
		}
		return err;
	}

	/* Commit: drop the old default, which cannot fail. */
	for (unsigned i = 0; old && i < n; i++) {
		PortVlan *gone = moves[i].port->vlans.find(old);
		if (gone)
			vlans_remove(moves[i].port, &gone, 1);
	}
	opts_.default_pvid = pvid;
	return 0;
}

/* VID 0 and every VLAN of @port, into @vids (kVidCount slots); how many. */
unsigned Bridge::local_vids(Port *port, uint16_t *vids) const
{
	unsigned n = 0;
	vids[n++] = 0;
	port->vlans.for_each([&](PortVlan *v) {
		vids[n++] = v->vid;
		return true;
	});
	return n;
}

/* Another owner of @mac at @vid than @port: a port that is a member of the
 * VID (any for VID 0), or the bridge itself (fdb_delete_local). */
Port *Bridge::other_owner(Port *port, MacKey mac, uint16_t vid)
{
	for (Port &p : port_list_)
		if (&p != port && p.addr == mac && (!vid || p.vlans.find(vid)))
			return &p;
	if (host_ != port && host_->addr == mac && (!vid || host_->vlans.find(vid)))
		return host_;
	return nullptr;
}

int Bridge::set_addr(MacKey addr, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	addr &= kMacMask;
	if (!mac_is_valid_unicast(addr))
		return fail(ack, kEINVAL, "invalid Ethernet address");
	const MacKey old = addr_;
	if (addr == old)
		return 0;
	ScratchArray<uint16_t> vids(kVidCount);
	if (!vids.ok())
		return fail(ack, kENOMEM, "out of memory");
	unsigned n = local_vids(host_, &vids[0]);

	/* Create the new local entries first, so a failure changes nothing. */
	host_->addr = addr;
	for (unsigned i = 0; i < n; i++) {
		if (add_local_entry(host_, vids[i]) == 0)
			continue;
		for (unsigned j = 0; j < i; j++)
			fdb_.del(addr, vids[j], host_, FdbReason::User, nullptr);
		host_->addr = old;
		return fail(ack, kENOMEM, "out of memory for the local FDB entry");
	}
	store_once(addr_, addr);
	for (unsigned i = 0; old && i < n; i++)
		drop_local_entry(host_, old, vids[i]);
	return 0;
}

void Bridge::clear_addr()
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	const MacKey old = addr_;
	if (!old)
		return;
	ScratchArray<uint16_t> vids(kVidCount);
	store_once(addr_, MacKey(0));
	store_once(host_->addr, MacKey(0));
	if (!vids.ok())
		return;
	unsigned n = local_vids(host_, &vids[0]);
	for (unsigned i = 0; i < n; i++)
		fdb_.del(old, vids[i], host_, FdbReason::User, nullptr);
}

void Bridge::set_port_addr(Port *port, MacKey addr)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	addr &= kMacMask;
	const MacKey old = port->addr;
	if (addr == old)
		return;
	ScratchArray<uint16_t> vids(kVidCount);
	store_once(port->addr, addr);
	if (!vids.ok())
		return;
	unsigned n = local_vids(port, &vids[0]);
	for (unsigned i = 0; i < n; i++)
		drop_local_entry(port, old, vids[i]);
	for (unsigned i = 0; mac_is_valid_unicast(addr) && i < n; i++)
		add_local_entry(port, vids[i]);
}

/* ---- VLANs --------------------------------------------------------------- */

void Bridge::vlan_update_flags(Port *port, PortVlan *vlan, uint8_t flags)
{
	if (flags & kVlanPvid)
		port->vlans.set_pvid(vlan->vid);
	else if (port->vlans.pvid() == vlan->vid)
		port->vlans.set_pvid(0);
	store_once(vlan->flags, uint8_t(flags & kVlanUntagged));
}

/*
 * A port VLAN counting where Linux's would (vlan_stats.h): into the
 * bridge's per-VID counters, unless per-port statistics are on and it is
 * not the bridge device's own.
 */
PortVlan *Bridge::vlan_create(Port *port, uint16_t vid, uint8_t flags)
{
	if (!port->is_host && opts_.vlan_stats_per_port)
		return port_vlan_create(port, vid, flags, nullptr);
	PerCpu<VlanStats> shared;
	if (!vlan_stats_.get(vid, &shared))
		return nullptr;
	PortVlan *v = port_vlan_create(port, vid, flags, &shared);
	if (!v)
		vlan_stats_.put(vid);
	return v;
}

void Bridge::vlan_release_stats(const PortVlan *vlan)
{
	if (vlan->shares_stats)
		vlan_stats_.put(vlan->vid);
}

void Bridge::port_release_stats(const Port *port)
{
	port->vlans.for_each([&](PortVlan *v) {
		vlan_release_stats(v);
		return true;
	});
}

int Bridge::set_vlan_stats_per_port(bool on, Extack *ack)
{
	for (const Port &p : port_list_)
		if (p.vlans.count())
			return fail(ack, kEBUSY,
				    "vlan_stats_per_port can change only while no port has a VLAN");
	store_once(opts_.vlan_stats_per_port, on);
	return 0;
}

int Bridge::vlan_add(Port *port, uint16_t vid_start, uint16_t vid_end, uint8_t flags,
		     Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (!vid_is_valid(vid_start) || !vid_is_valid(vid_end))
		return fail(ack, kEINVAL, "VLAN ID must be 1..4094");
	if (vid_end < vid_start)
		return fail(ack, kEINVAL, "VLAN range end is before its start");
	if ((flags & kVlanPvid) && vid_end != vid_start)
		return fail(ack, kEINVAL, "a VLAN range cannot be the PVID");
	if (flags & ~(kVlanPvid | kVlanUntagged))
		return fail(ack, kEINVAL, "unknown VLAN flag");

	const unsigned n = vid_end - vid_start + 1u;
	ScratchArray<PortVlan *> fresh(n);
	if (!fresh.ok())
		return fail(ack, kENOMEM, "out of memory for the VLAN");
	for (unsigned i = 0; i < n; i++)
		fresh[i] = nullptr;
	int err = 0;
	unsigned made = 0;

	/* Allocate everything first, so that a failure changes nothing. */
	for (unsigned i = 0; i < n && !err; i++) {
		uint16_t vid = uint16_t(vid_start + i);
		if (port->vlans.find(vid))
			continue;
		err = port->vlans.prepare(vid);
		if (err)
			break;
		fresh[i] = vlan_create(port, vid, flags);
		if (!fresh[i])
			err = -kENOMEM;
	}
	for (unsigned i = 0; i < n && !err; i++) {
		if (!fresh[i])
			continue;
		err = add_local_entry(port, uint16_t(vid_start + i));
		if (!err)
			made = i + 1;
	}
	if (err) {
		for (unsigned i = 0; i < made; i++)
			if (fresh[i])
				fdb_.del(port->addr, uint16_t(vid_start + i), port,
					 FdbReason::User, nullptr);
		for (unsigned i = 0; i < n; i++) {
			if (!fresh[i])
				continue;
			vlan_release_stats(fresh[i]);
			port_vlan_free_now(fresh[i]);
		}
		return fail(ack, kENOMEM, "out of memory for the VLAN");
	}

	for (unsigned i = 0; i < n; i++) {
		uint16_t vid = uint16_t(vid_start + i);
		if (fresh[i])
			port->vlans.insert(fresh[i]);
		vlan_update_flags(port, port->vlans.find(vid), flags);
	}
	return 0;
}

/*
 * Remove published VLANs: unpublish, mark them unlinked (a learner that
 * still holds one makes no entry caching it), flush the dynamic entries of
 * those VIDs on the port and the port's local entries, rewrite the static
 * entries that cache them to the port form, then free them after a grace
 * period. No wait: Linux's __vlan_del frees through call_rcu too.
 */
void Bridge::vlans_remove(Port *port, PortVlan **vlans, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		port->vlans.remove(vlans[i]->vid);
		fdb_.mark_unlinked(vlans[i]);
	}
	for (unsigned i = 0; i < n; i++) {
		FdbFilter dynamic;
		dynamic.port = port;
		dynamic.vid = vlans[i]->vid;
		dynamic.flags_clear = kFdbStatic | kFdbExtLearn;
		fdb_.flush(dynamic, FdbReason::VlanRemoved);

		RcuReadGuard rcu;
		FdbEntry *local = fdb_.lookup(port->addr, vlans[i]->vid);
		bool ours = local && (local->flag_bits() & kFdbLocal) &&
			    local->destination().port() == port;
		if (ours)
			fdb_.del(port->addr, vlans[i]->vid, port, FdbReason::VlanRemoved, nullptr);

		FdbFilter cached;
		cached.cached_vlan = vlans[i];
		fdb_.rewrite_to_port(cached);
		vlan_release_stats(vlans[i]);
		port_vlan_free_deferred(vlans[i]);
	}
}

int Bridge::vlan_del(Port *port, uint16_t vid_start, uint16_t vid_end, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (!vid_is_valid(vid_start) || !vid_is_valid(vid_end))
		return fail(ack, kEINVAL, "VLAN ID must be 1..4094");
	if (vid_end < vid_start)
		return fail(ack, kEINVAL, "VLAN range end is before its start");

	ScratchArray<PortVlan *> gone(vid_end - vid_start + 1u);
	if (!gone.ok())
		return fail(ack, kENOMEM, "out of memory");
	/* As br_vlan_info's RTM_DELLINK: a VID the port does not have is
	 * skipped, not an error (`bridge vlan del` of a missing VID succeeds). */
	unsigned n = 0;
	for (unsigned vid = vid_start; vid <= vid_end; vid++) {
		PortVlan *v = port->vlans.find(uint16_t(vid));
		if (v)
			gone[n++] = v;
	}
	if (n)
		vlans_remove(port, &gone[0], n);
	return 0;
}

int Bridge::vlan_set_state(Port *port, uint16_t vid, uint8_t state, Extack *ack)
{
	flows_stale();	/* bridge_flow.h: cached decisions may change */
	if (state > kPortStateMax)
		return fail(ack, kEINVAL, "VLAN state must be 0..4");
	PortVlan *v = port->vlans.find(vid);
	if (!v)
		return fail(ack, kENOENT, "VLAN not configured on the port");
	store_once(v->state, state);
	return 0;
}

/* ---- FDB ----------------------------------------------------------------- */

int Bridge::fdb_add(MacKey mac, int32_t vid, Port *port, uint16_t flags, FdbAddMode mode,
		    Extack *ack)
{
	mac &= kMacMask;
	/* br_fdb_add refuses only the zero address: a multicast one is
	 * accepted (and never consulted: multicast frames are flooded). */
	if (!mac)
		return fail(ack, kEINVAL, "invalid Ethernet address (zero)");
	if (vid > kVidMax)
		return fail(ack, kEINVAL, "VLAN ID must be 0..4094");
	if (flags & ~(kFdbLocal | kFdbStatic | kFdbSticky | kFdbExtLearn))
		return fail(ack, kEINVAL, "unsupported FDB flag");
	if (port->is_host && !(flags & kFdbLocal))
		return fail(ack, kEINVAL, "entries on the bridge device must be permanent");
	if (vid > 0 && !port->vlans.find(uint16_t(vid)))
		return fail(ack, kEINVAL, "VLAN not configured on the port");
	if (flags & kFdbExtLearn) {
		/* An external agent's entry (br_fdb_external_learn_add): the
		 * state and sticky words and the create/replace mode do not
		 * apply; it is dynamic-looking but never ages. */
		flags = uint16_t(kFdbExtLearn | (port->is_host ? kFdbLocal : 0));
		mode = FdbAddMode::ExternalLearn;
	} else {
		if ((flags & kFdbSticky) && (flags & kFdbLocal))
			return fail(ack, kEINVAL, "a permanent entry cannot be sticky");
		if (!(flags & (kFdbLocal | kFdbStatic)) &&
		    !state_accepts_ingress(port->port_state()))
			return fail(ack, kEPERM,
				    "the port does not learn: only permanent or static entries");
	}

	ScratchArray<uint16_t> vids(kVidCount);
	if (!vids.ok())
		return fail(ack, kENOMEM, "out of memory");
	unsigned n = 0;
	if (vid >= 0) {
		vids[n++] = uint16_t(vid);
	} else {
		vids[n++] = 0;
		port->vlans.for_each([&](PortVlan *v) {
			vids[n++] = v->vid;
			return true;
		});
	}

	/* Create fails whole if any entry exists, before anything changes. */
	if (mode == FdbAddMode::Create) {
		RcuReadGuard rcu;
		for (unsigned i = 0; i < n; i++)
			if (fdb_.lookup(mac, vids[i]))
				return fail(ack, kEEXIST, "FDB entry already exists");
	}
	/*
	 * Two passes so that a failure changes nothing: first create the
	 * entries that do not exist (only these allocate; on failure they are
	 * deleted again), then overwrite the existing ones (Replace), which
	 * cannot fail.
	 */
	const uint32_t now = now_ticks();
	ScratchArray<bool> created(n);
	if (!created.ok())
		return fail(ack, kENOMEM, "out of memory");
	for (unsigned i = 0; i < n; i++) {
		created[i] = false;
		bool exists;
		{
			RcuReadGuard rcu;
			exists = fdb_.lookup(mac, vids[i]) != nullptr;
		}
		if (exists)
			continue;
		FdbAddRequest req = {mac, vids[i], dest_for(port, vids[i]),
				     uint16_t(flags | kFdbAddedByUser), FdbAddMode::Create};
		if (flags & kFdbLocal)
			req.dest = FdbDest::to_port(port);
		int err = fdb_.add(req, now, ack);
		if (err == -kENOMEM) {
			for (unsigned j = 0; j < i; j++)
				if (created[j])
					fdb_.del(mac, vids[j], port, FdbReason::User, nullptr);
			return err;
		}
		created[i] = err == 0;
	}
	for (unsigned i = 0; i < n; i++) {
		if (created[i])
			continue;
		FdbAddRequest req = {mac, vids[i], dest_for(port, vids[i]),
				     uint16_t(flags | kFdbAddedByUser), mode};
		if (flags & kFdbLocal)
			req.dest = FdbDest::to_port(port);
		int err = fdb_.add(req, now, ack);
		if (err)
			return err;
	}
	return 0;
}

int Bridge::fdb_del(MacKey mac, int32_t vid, Port *port, Extack *ack)
{
	mac &= kMacMask;
	if (vid > kVidMax)
		return fail(ack, kEINVAL, "VLAN ID must be 0..4094");
	if (vid >= 0)
		return fdb_.del(mac, uint16_t(vid), port, FdbReason::User, ack);

	/* No VLAN given: VID 0 and every VLAN of the port; success if any. */
	ScratchArray<uint16_t> vids(kVidCount);
	if (!vids.ok())
		return fail(ack, kENOMEM, "out of memory");
	bool any = fdb_.del(mac, 0, port, FdbReason::User, nullptr) == 0;
	unsigned n = 0;
	port->vlans.for_each([&](PortVlan *v) {
		vids[n++] = v->vid;
		return true;
	});
	for (unsigned i = 0; i < n; i++)
		any |= fdb_.del(mac, vids[i], port, FdbReason::User, nullptr) == 0;
	return any ? 0 : fail(ack, kENOENT, "FDB entry not found");
}

unsigned Bridge::run_ageing(uint32_t now)
{
	unsigned n = fdb_.age(now);
	fdb_.resize_if_needed();
	return n;
}

} // namespace xb
