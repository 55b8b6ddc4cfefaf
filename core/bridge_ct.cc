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
#include "forward.h"

namespace xb {

/* ---- the option (control) ------------------------------------------------- */

int Bridge::set_conntrack(bool on, Extack *ack)
{
	if (on == (ct_ != nullptr))
		return 0;
	if (on) {
		void *mem = xb_alloc(sizeof(Conntrack), XB_ALLOC_SLEEP);
		if (!mem)
			return fail(ack, kENOMEM, "no memory for the conntrack table");
		Conntrack *ct = new (mem) Conntrack();
		const int err = ct->init(kBridgeCtBuckets, kBridgeCtMax, ack);
		if (err) {
			ct->~Conntrack();
			xb_free(ct);
			return err;
		}
		ct->table().set_event_sink(ct_events_);
		rcu_publish(ct_, ct);
		store_once(opts_.conntrack, true);
		return 0;
	}
	Conntrack *ct = ct_;
	store_once(opts_.conntrack, false);
	rcu_publish(ct_, static_cast<Conntrack *>(nullptr));
	/* No frame and no GC slice can reach the table after this; frames
	 * never keep an unconfirmed entry past their decide(). */
	xb_synchronize_rcu();
	ct->fini();
	ct->~Conntrack();
	xb_free(ct);
	return 0;
}

unsigned Bridge::run_ct_gc(uint32_t now, uint32_t max_buckets)
{
	RcuReadGuard rcu;
	Conntrack *ct = rcu_deref(ct_);
	return ct ? ct->table().gc_slice(now, max_buckets) : 0;
}

/* ---- the hooks (datapath) ------------------------------------------------- */

bool ct_bridge_pre(Conntrack &ct, const RxFrame &f, uint32_t now, uint16_t zone, CtResult &r,
		   Verdict &v)
{
	ct.in(f.data, f.len, f.oob.present, zone, now, f.csum_ok, r);
	v.ct_state = r.state;
	return !r.drop;
}

void ct_bridge_post(Conntrack &ct, const RxFrame &f, const L2Info &l2, bool promisc, bool out_any,
		    uint32_t now, CtResult &r, Verdict &v)
{
	if (!r.unconfirmed)
		return;	/* nothing new to insert (or nothing tracked) */
	const bool up = v.kind == VerdictKind::Local ||
			((v.kind == VerdictKind::Forward || v.kind == VerdictKind::Flood) &&
			 v.local_too);
	const bool host = !promisc && (l2.dest_class == DestClass::Host ||
				       (l2.dest_class == DestClass::OtherHost &&
					l2.dst == f.ingress->addr));
	if (!out_any && !(up && host)) {
		ct.release(r);
		return;
	}
	if (!ct.confirm(r, now)) {
		v.kind = VerdictKind::Drop;
		v.reason = DropReason::Conntrack;
		v.local_too = false;
		port_count_drop(f.ingress, v.reason);
	}
}

} // namespace xb
