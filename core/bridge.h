/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bridge.h - a bridge: its options, ports, VLANs and FDB.
 *
 * Ownership. A Bridge owns its ports (including the host port that stands
 * for the bridge device), their VLAN sets, its FDB and, while the
 * `conntrack` option is on, its conntrack table (bridge_ct.h). Bridge::destroy()
 * frees everything after the readers are gone.
 *
 * Locking. Control methods (everything not marked "datapath") must be
 * serialised by the caller (RTNL in the kernel, one control thread in
 * userspace) and run in process context: some wait for a grace period.
 * They take the FDB lock themselves where FDB state changes. The datapath
 * (forward.h) reads options with load_once and ports through the
 * RCU-published port table, inside an RCU read section.
 */
#ifndef XBRIDGE_CORE_BRIDGE_H
#define XBRIDGE_CORE_BRIDGE_H

#include <stdint.h>

#include "errors.h"
#include "ethernet.h"
#include "ct_table.h"
#include "fdb.h"
#include "intrusive.h"
#include "port.h"
#include "vlan_stats.h"

namespace xb {

class Conntrack;
class FlowTable;
namespace nft {
class Ruleset;
struct Generation;
}

constexpr uint16_t kMaxPorts = 1024;
/* Link-local groups that may never be forwarded: 802.1D, pause, LACP. */
constexpr uint16_t kGroupFwdRestricted = 0x0007;

struct BridgeOptions {
	bool vlan_filtering = false;
	uint16_t vlan_protocol = kEthP8021Q;
	uint16_t default_pvid = 1;	/* 0: new ports get no VLAN */
	uint16_t group_fwd_mask = 0;
	bool promisc = false;		/* bridge device promiscuous */
	bool vlan_stats = false;	/* per-VLAN rx/tx counters */
	/* Port VLANs made from now on count on their own, not into the
	 * bridge's per-VID counters (vlan_stats.h); changes only while no
	 * port has a VLAN, as Linux's br_vlan_set_stats_per_port. */
	bool vlan_stats_per_port = false;
	/* FDB destinations carry the port VLAN (the seed's design). Off: the
	 * destination is only the port and egress looks the VLAN up, as
	 * Linux did before; kept switchable for the benchmark's ablation. */
	bool fdb_cache_vlan = true;
	/* The table exists (bridge_ct.h): the user's option, or a ruleset with
	 * a ct expression created it. */
	bool conntrack = false;
	/* The user's `conntrack on`: track every frame entering through a port
	 * whatever the ruleset. Off, frames are tracked only while the ruleset
	 * has a ct expression (nf_ct_netns_get/put). */
	bool conntrack_user = false;
	/* The connection table's bound, as nf_conntrack_max (0: none); kept
	 * while conntrack is off (bridge_ct.h kBridgeCtMax). */
	uint32_t conntrack_max = 65536;
};

struct BridgeSetup {
	MacKey addr;			/* the bridge device's address */
	uint32_t ifindex;		/* the bridge device's id */
	void *priv;			/* the environment's handle */
	FdbEventSink fdb_events;
	CtEventSink ct_events;		/* for the table `conntrack on` creates */
	FdbGrowSink fdb_grow;		/* schedule run_ageing() soon (fdb.h) */
};

struct PortSetup {
	MacKey addr;
	uint32_t ifindex;
	void *priv;
};

/*
 * The ports flooding visits. Two copies alternate: the control path fills
 * the unpublished one and publishes it; the one it replaced becomes the
 * spare. The spare is rewritten only once a grace period has passed since
 * it was unpublished; if none has, a fresh copy is allocated and the spare
 * freed through call_rcu, so adding or removing a port waits for no grace
 * period (only when that allocation fails, removal waits instead: it never
 * needs memory).
 */
struct PortTable {
	uint32_t count;
	xb_rcu_head rcu;
	Port *port[kMaxPorts];
};

class Bridge {
public:
	/* Control. nullptr and *err on failure. */
	static Bridge *create(const BridgeSetup &setup, int *err);
	/* Control: remove every port, wait for readers, free everything. */
	static void destroy(Bridge *br);

	/* Ports (control). */
	int add_port(const PortSetup &setup, Port **out, Extack *ack);
	void remove_port(Port *port);
	Port *host() const { return host_; }
	/* The bridge device's id, once the environment has one (Linux assigns
	 * it after ndo_init, where the bridge is created). */
	void set_host_ifindex(uint32_t ifindex) { host_->ifindex = ifindex; }
	Port *find_port(uint32_t ifindex) const;
	unsigned port_count() const { return port_list_.size(); }
	template <typename Fn> void for_each_port(Fn fn) const
	{
		for (const Port &p : port_list_)
			if (!fn(const_cast<Port *>(&p)))
				return;
	}
	/* Carrier/admin state from the environment: down flushes dynamic
	 * entries (as the Linux bridge's br_stp_disable_port). */
	void port_link_changed(Port *port, bool up);
	int port_set_flags(Port *port, uint32_t set, uint32_t clear, Extack *ack);
	int port_set_state(Port *port, uint8_t state, Extack *ack);
	/* Datapath: the RCU-published table of non-host ports. */
	const PortTable *ports_rcu() const { return ports_.rcu(); }

	/* Options (control setters; datapath reads opts()). */
	const BridgeOptions &opts() const { return opts_; }
	bool vlan_filtering() const { return load_once(opts_.vlan_filtering); }
	uint16_t vlan_protocol() const { return load_once(opts_.vlan_protocol); }
	MacKey addr() const { return load_once(addr_); }
	int set_vlan_filtering(bool on, Extack *ack);
	int set_vlan_protocol(uint16_t proto, Extack *ack);
	int set_default_pvid(uint16_t pvid, Extack *ack);
	int set_ageing_time_ms(uint32_t ms, Extack *ack);
	void set_fdb_max_learned(uint32_t n) { fdb_.set_max_learned(n); }
	int set_group_fwd_mask(uint16_t mask, Extack *ack);
	void set_promisc(bool on) { store_once(opts_.promisc, on); }
	void set_vlan_stats(bool on) { store_once(opts_.vlan_stats, on); }
	int set_vlan_stats_per_port(bool on, Extack *ack);
	void set_fdb_cache_vlan(bool on) { store_once(opts_.fdb_cache_vlan, on); }
	/* Change the bridge device's address (moves its local entries). */
	int set_addr(MacKey addr, Extack *ack);
	/* The bridge device has no address (00:00:00:00:00:00, as a Linux
	 * bridge whose last port left): its local entries go. */
	void clear_addr();
	/*
	 * A port's address changed (br_fdb_changeaddr): its local entries
	 * follow, at VID 0 and at each of its VLANs. An old one that another
	 * port or the bridge also owns moves there, the others go, except
	 * one the user added (or replaced), which stays as Linux keeps it.
	 * Best effort, as on Linux: the device already has the address.
	 */
	void set_port_addr(Port *port, MacKey addr);

	/* VLANs (control). [vid_start, vid_end] inclusive; flags kVlanPvid,
	 * kVlanUntagged. Adding an existing VID updates its flags as iproute2's
	 * `bridge vlan add` does. A failed range changes nothing. */
	int vlan_add(Port *port, uint16_t vid_start, uint16_t vid_end, uint8_t flags,
		     Extack *ack);
	int vlan_del(Port *port, uint16_t vid_start, uint16_t vid_end, Extack *ack);
	int vlan_set_state(Port *port, uint16_t vid, uint8_t state, Extack *ack);

	/* FDB (control). @vid < 0 means "no VLAN given": VID 0 and every VLAN
	 * of the port (iproute2 `bridge fdb add` without `vlan`). */
	int fdb_add(MacKey mac, int32_t vid, Port *port, uint16_t flags, FdbAddMode mode,
		    Extack *ack);
	int fdb_del(MacKey mac, int32_t vid, Port *port, Extack *ack);
	unsigned fdb_flush(const FdbFilter &filter) { return fdb_.flush(filter, FdbReason::Flushed); }
	/* Periodic maintenance: ageing and table resizing. */
	unsigned run_ageing(uint32_t now);
	Fdb &fdb() { return fdb_; }
	const Fdb &fdb() const { return fdb_; }

	/* Conntrack (bridge_ct.cc). set_conntrack(false) waits for readers
	 * and frees every entry. The table is conntrack() for the control
	 * path (serialised with set_conntrack), conntrack_rcu() for the
	 * datapath and deferred GC (RCU read section); nullptr when off. */
	int set_conntrack(bool on, Extack *ack);
	/* Control: a ruleset with a ct expression needs the table (created if
	 * missing, the user's option untouched). Returns 1 if it created it. */
	int conntrack_for_ruleset(Extack *ack);
	/*
	 * Control (RTNL), after every commit of the ruleset set_nft_ruleset()
	 * named (and once it is set): a ruleset with a ct expression gets the
	 * table (conntrack_for_ruleset), and if frames are tracked again after
	 * a spell without tracking, its established TCP connections forget
	 * their windows (Conntrack::tracking_resumed, nf_ct_netns_get's
	 * fixup). Returns 1 if it created the table, else 0 or an error.
	 */
	int nft_ruleset_committed(Extack *ack);
	/* Datapath (RCU): the table frames are tracked in now - nullptr unless
	 * the user's option is on or the ruleset has a ct expression. */
	Conntrack *conntrack_active_rcu() const;
	bool conntrack_on() const { return load_once(opts_.conntrack); }
	Conntrack *conntrack() const { return ct_.writer(); }
	/* Control: the table's bound, now and for a table created later. */
	void set_conntrack_max(uint32_t max);
	Conntrack *conntrack_rcu() const { return ct_.rcu(); }
	/* Deferred context: one GC slice of @max_buckets buckets. */
	unsigned run_ct_gc(uint32_t now, uint32_t max_buckets);

	/*
	 * The flowtable's flows (bridge_flow.h): created and freed with the
	 * conntrack table, whose entries they carry. flows_rcu() for the
	 * datapath (RCU read section), nullptr when conntrack is off.
	 * flows_stale() makes every flow stale (control, or the FDB under
	 * its lock); flow_generation() is what a live flow was added under.
	 */
	FlowTable *flows_rcu() const { return flows_.rcu(); }
	FlowTable *flows() const { return flows_.writer(); }
	void flows_stale() { __atomic_fetch_add(&flow_gen_, 1, __ATOMIC_RELAXED); }
	uint32_t flow_generation() const { return __atomic_load_n(&flow_gen_, __ATOMIC_RELAXED); }

	/* nf_tables (bridge_nft.h): the ruleset whose bridge chains run on
	 * this bridge's frames - its namespace's, which outlives the bridge.
	 * Control sets it; the datapath reads its generation (RCU). */
	void set_nft_ruleset(const nft::Ruleset *rs) { nft_.publish(rs); }
	const nft::Generation *nft_generation_rcu() const;
	/* The name nft's iifname/oifname read for a port (control; the
	 * environment keeps the string valid while the port exists). */
	void set_port_ifname(Port *port, const char *name) { port->ifname.publish(name); }
	void set_port_link_kind(Port *port, const char *kind) { port->link_kind.publish(kind); }

	/* The time the bridge uses for learning: 32-bit ms ticks. */
	static uint32_t now_ticks() { return ticks_from_ns(xb_now_ns()); }

private:
	int create_or_free_conntrack(bool on, Extack *ack);
	void sync_ct_tracking();
	Bridge() = default;
	using PortList = boost::intrusive::list<
		Port, boost::intrusive::member_hook<Port, ListHook, &Port::list_hook>>;

	Port *port_alloc(const PortSetup &setup, bool is_host);
	static void port_free(Port *port);
	static void port_free_rcu(xb_rcu_head *head);
	static void port_table_free_rcu(xb_rcu_head *head);
	void publish_ports();
	int add_local_entry(Port *port, uint16_t vid);
	void drop_local_entry(Port *owner, MacKey mac, uint16_t vid);
	unsigned local_vids(Port *port, uint16_t *vids) const;
	Port *other_owner(Port *port, MacKey mac, uint16_t vid);
	void vlan_update_flags(Port *port, PortVlan *vlan, uint8_t flags);
	PortVlan *vlan_create(Port *port, uint16_t vid, uint8_t flags);
	void vlan_release_stats(const PortVlan *vlan);
	void port_release_stats(const Port *port);
	void vlans_remove(Port *port, PortVlan **vlans, unsigned n);
	FdbDest dest_for(Port *port, uint16_t vid) const;
	bool vlan_is_default_pvid(Port *port, uint16_t vid) const;

	BridgeOptions opts_;
	MacKey addr_ = 0;
	xb_lock *fdb_lock_ = nullptr;
	Fdb fdb_;
	Port *host_ = nullptr;
	RcuPtr<PortTable> ports_;
	PortTable *ports_spare_ = nullptr;	/* the unpublished copy */
	xb_rcu_gp ports_spare_gp_ = 0;	/* since it was unpublished */
	PortList port_list_;		/* non-host ports, control only */
	VlanStatsTable vlan_stats_;	/* control only */
	RcuPtr<Conntrack> ct_;		/* owned */
	RcuPtr<FlowTable> flows_;	/* owned, with ct_ */
	/* Control: frames were tracked (conntrack_active_rcu) when the control
	 * path last looked (sync_ct_tracking). */
	bool ct_tracking_ = false;
	uint32_t flow_gen_ = 0;		/* atomic; see flows_stale() */
	RcuPtr<const nft::Ruleset> nft_;	/* not owned */
	CtEventSink ct_events_;
	uint16_t next_index_ = 1;
};

} // namespace xb

#endif /* XBRIDGE_CORE_BRIDGE_H */
