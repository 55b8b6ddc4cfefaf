// SPDX-License-Identifier: GPL-2.0
/*
 * bridge_ct.cc - the bridge's `conntrack` option (its table's lifetime and
 * GC) and the two hooks of the frame path. Ownership and locking as in
 * bridge_ct.h: the Bridge owns the Conntrack, published with rcu_publish;
 * the control methods run serialised (RTNL) in process context; the hooks
 * and the GC run inside RCU read sections.
 */
#include "bridge_ct.h"

#include <new>

#include "bridge.h"
#include "flow_table.h"
#include "forward.h"
#include "nft_ruleset.h"

namespace xb {

/* ---- the option (control) ------------------------------------------------- */

namespace {

void ct_removed_offloaded(void *ctx, CtEntry &e)
{
	static_cast<FlowTable *>(ctx)->ct_removed(&e);
}

void ct_missed_offloaded(void *ctx, CtEntry &e, uint32_t now)
{
	static_cast<FlowTable *>(ctx)->ct_missed(&e, now);
}

} // namespace

int Bridge::set_conntrack(bool on, Extack *ack)
{
	const int err = create_or_free_conntrack(on, ack);
	if (!err)
		store_once(opts_.conntrack_user, on);
	sync_ct_tracking();
	return err;
}

int Bridge::nft_ruleset_committed(Extack *ack)
{
	int ret = 0;
	if (!conntrack_on()) {
		bool uses_ct;
		{
			RcuReadGuard rcu;
			const nft::Generation *g = nft_generation_rcu();
			uses_ct = g && g->uses_ct;
		}
		if (uses_ct)
			ret = conntrack_for_ruleset(ack);
	}
	sync_ct_tracking();
	return ret;
}

/*
 * Linux registers the bridge's conntrack hooks when the namespace's first
 * ct user comes and unregisters them when the last goes; registering them
 * again runs nf_ct_tcp_fixup over the table, so that connections whose
 * segments went by untracked are picked up again mid-stream instead of
 * failing the window checks (ACK above the upper bound: data not seen).
 * Here the same moment is the control path's first look after tracking
 * turned back on. Frames tracked between the new ruleset's publication and
 * this walk still meet the old windows, as frames between Linux's hook
 * registration and its fixup do.
 */
void Bridge::sync_ct_tracking()
{
	bool active;
	{
		RcuReadGuard rcu;
		active = conntrack_active_rcu() != nullptr;
	}
	if (active && !ct_tracking_)
		ct_.writer()->tracking_resumed();
	ct_tracking_ = active;
}

int Bridge::conntrack_for_ruleset(Extack *ack)
{
	if (ct_.writer())
		return 0;
	const int err = create_or_free_conntrack(true, ack);
	sync_ct_tracking();
	return err ? err : 1;
}

Conntrack *Bridge::conntrack_active_rcu() const
{
	Conntrack *ct = ct_.rcu();
	if (!ct || load_once(opts_.conntrack_user))
		return ct;
	/* Linux's bridge stops tracking when the last ct expression goes
	 * (nf_ct_netns_put); the table and its entries stay, and age. */
	const nft::Generation *g = nft_generation_rcu();
	return g && g->uses_ct ? ct : nullptr;
}

int Bridge::create_or_free_conntrack(bool on, Extack *ack)
{
	if (on == (ct_.writer() != nullptr))
		return 0;
	if (on) {
		void *mem = xb_alloc(sizeof(Conntrack), XB_ALLOC_SLEEP);
		void *fmem = xb_alloc(sizeof(FlowTable), XB_ALLOC_SLEEP);
		if (!mem || !fmem) {
			xb_free(mem);
			xb_free(fmem);
			return fail(ack, kENOMEM, "no memory for the conntrack table");
		}
		Conntrack *ct = new (mem) Conntrack();
		FlowTable *flows = new (fmem) FlowTable();
		int err = ct->init(kBridgeCtBuckets, load_once(opts_.conntrack_max), ack);
		if (!err) {
			err = flows->init(FlowTable::kDefaultBuckets, FlowTable::kDefaultMax, ack);
			if (err)
				ct->fini();
		}
		if (err) {
			ct->~Conntrack();
			flows->~FlowTable();
			xb_free(ct);
			xb_free(flows);
			return err;
		}
		ct->table().set_event_sink(ct_events_);
		ct->table().set_offload_sink({ct_removed_offloaded, ct_missed_offloaded, flows});
		flows->set_event_sink(ct_events_);
		flows_.publish(flows);
		ct_.publish(ct);
		store_once(opts_.conntrack, true);
		return 0;
	}
	Conntrack *ct = ct_.writer();
	FlowTable *flows = flows_.writer();
	store_once(opts_.conntrack, false);
	ct_.publish(nullptr);
	flows_.publish(nullptr);
	/* No frame and no GC slice can reach the tables after this; frames
	 * never keep an unconfirmed entry past their decide(). The flows go
	 * first: they point at the entries. */
	xb_synchronize_rcu();
	flows->fini(now_ticks());
	flows->~FlowTable();
	xb_free(flows);
	ct->fini();
	ct->~Conntrack();
	xb_free(ct);
	return 0;
}

static_assert(BridgeOptions().conntrack_max == kBridgeCtMax, "one default bound");

void Bridge::set_conntrack_max(uint32_t max)
{
	store_once(opts_.conntrack_max, max);
	if (Conntrack *ct = ct_.writer())
		ct->table().set_max(max);	/* entries above it stay; new ones wait */
}

unsigned Bridge::run_ct_gc(uint32_t now, uint32_t max_buckets)
{
	RcuReadGuard rcu;
	Conntrack *ct = ct_.rcu();
	FlowTable *flows = flows_.rcu();
	if (!ct)
		return 0;
	/* The flows first: a live flow keeps its entry from expiring. */
	if (flows && flows->count()) {
		const nft::Generation *g = nft_generation_rcu();
		flows->gc_slice(now, flow_stamp(flow_generation(), g ? g->id : 0),
				max_buckets * FlowTable::kDefaultBuckets / kBridgeCtBuckets);
	}
	return ct->table().gc_slice(now, max_buckets);
}

/* ---- the hooks (datapath) ------------------------------------------------- */

bool ct_bridge_pre(Conntrack &ct, const RxFrame &f, uint32_t now, uint16_t zone, CtResult &r,
		   Verdict &v)
{
	ct.in(f.data, f.len, f.oob.present, zone, now, f.csum_ok, r);
	v.ct_state = r.state;
	return !r.drop;
}

bool ct_bridge_local_out(Conntrack &ct, const RxFrame &f, uint32_t now, CtResult &r, Verdict &v)
{
	/* nf_conntrack verifies checksums at PRE_ROUTING only. */
	ct.in_host(f.data, f.len, f.oob.present, now, r);
	v.ct_state = r.state;
	if (r.drop)
		return false;
	return !r.unconfirmed || ct.confirm(r, now);
}

/*
 * The copy a bridge takes up as broadcast or multicast keeps its ct when
 * the connection is confirmed by then (nf_ct_bridge_in, in Linux 6.1's
 * stable updates and later), and IPv4 prerouting leaves it alone. It
 * loses it ("let inet prerouting call conntrack again") when the bridge
 * device is promiscuous or the connection went up unconfirmed (no port
 * took a copy), and an invalid packet carries none; IPv4 prerouting then
 * tracks the packet a second time - in zone 0, as no template rides
 * along - in the same per-namespace table: an existing connection of zone
 * 0 moves on twice (a FIN counts twice, FIN_WAIT becomes LAST_ACK), one of
 * another zone is looked up in zone 0.
 * Only an untagged IPv4 frame reaches ip_rcv that way (a tagged copy is
 * other-host on the bridge device; IPv6 is left out, as it depends on the
 * bridge device's IPv6 being on). A new connection of that pass is
 * released: the IP stack confirms it only if it delivers the packet
 * locally, which the core cannot know.
 */
static void ct_local_group_pass(Conntrack &ct, const RxFrame &f, uint32_t now)
{
	if (f.oob.present || f.len < 14 + 20 || load_be16(f.data + 12) != 0x0800)
		return;
	CtResult again;
	ct.in(f.data, f.len, false, 0, now, f.csum_ok, again);
	ct.release(again);
}

void ct_bridge_post(Conntrack &ct, const RxFrame &f, const L2Info &l2, bool promisc, bool out_any,
		    uint32_t now, CtResult &r, Verdict &v)
{
	const bool up = v.kind == VerdictKind::Local ||
			((v.kind == VerdictKind::Forward || v.kind == VerdictKind::Flood) &&
			 v.local_too);
	const bool host = !promisc && (l2.dest_class == DestClass::Host ||
				       (l2.dest_class == DestClass::OtherHost &&
					l2.dst == f.ingress->addr));
	const bool group_up = up && (l2.dest_class == DestClass::Broadcast ||
				     l2.dest_class == DestClass::Multicast);
	bool went_up_unconfirmed = false;
	if (r.unconfirmed) {
		if (!out_any && !(up && host)) {
			ct.release(r);
			went_up_unconfirmed = true;
		} else if (!ct.confirm(r, now)) {
			v.kind = VerdictKind::Drop;
			v.reason = DropReason::Conntrack;
			v.local_too = false;
			port_count_drop(f.ingress, v.reason);
			return;
		}
	}
	/* The copies through the ports went first (br_flood before
	 * br_pass_frame_up) and confirmed what they carried; the copy taken
	 * up is tracked again where it reaches IPv4 prerouting without a
	 * ct: the device is promiscuous, the connection is unconfirmed, or
	 * the packet was invalid (nf_conntrack_in keeps no ct on those). */
	const bool no_ct_up = promisc || went_up_unconfirmed || r.state == kCtStateInvalid;
	if (group_up && r.state != kCtStateUntracked && no_ct_up)
		ct_local_group_pass(ct, f, now);
}

} // namespace xb
