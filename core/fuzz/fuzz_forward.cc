// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_forward.cc - libFuzzer target: arbitrary bytes as frames and as
 * configuration changes, through classification, the forwarding decision
 * and flood enumeration of one long-lived bridge.
 *
 * Input layout, consumed front to back until it runs out:
 *   op byte, then per op:
 *     0..3   frame: ingress selector byte, OOB selector byte, length byte N,
 *            N frame bytes (placed at the end of an exact-size heap copy,
 *            so AddressSanitizer sees any over-read)
 *     4      VLAN add: port byte, vid (2 bytes), flags byte
 *     5      VLAN del: port byte, vid (2 bytes)
 *     6      port flags: port byte, set (2 bytes), clear (2 bytes)
 *     7      port/VLAN state: port byte, vid (2), state byte
 *     8      bridge options: byte of bits (filtering, proto, cache_vlan,
 *            promisc), group_fwd_mask (2 bytes)
 *     9      FDB add: port byte, vid (2), flags byte, 6 MAC bytes
 *     10     FDB flush / ageing: selector byte
 * Every verdict is checked for internal consistency; a violated invariant
 * aborts (a finding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "bridge_ct.h"
#include "forward.h"
#include "frame.h"
#include "platform_user.h"

namespace {

constexpr unsigned kPorts = 4;

struct Rig {
	xb::Bridge *br;
	xb::Port *port[kPorts];
	xb::Egress egress[xb::kMaxPorts];
	uint32_t now;
};

Rig *rig;

class Input {
public:
	Input(const uint8_t *data, size_t size) : p_(data), end_(data + size) {}
	bool more() const { return p_ < end_; }
	uint8_t u8() { return p_ < end_ ? *p_++ : 0; }
	uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
	size_t take(size_t n, const uint8_t **out)
	{
		size_t have = size_t(end_ - p_);
		if (n > have)
			n = have;
		*out = p_;
		p_ += n;
		return n;
	}

private:
	const uint8_t *p_;
	const uint8_t *end_;
};

void check(bool ok)
{
	if (!ok)
		abort();
}

xb::Port *pick_port(uint8_t sel)
{
	if (sel % (kPorts + 1) == kPorts)
		return rig->br->host();
	return rig->port[sel % (kPorts + 1)];
}

void run_frame(Input &in)
{
	xb::Port *ingress = pick_port(in.u8());
	uint8_t oob_sel = in.u8();
	size_t want = in.u8();
	const uint8_t *bytes;
	size_t len = in.take(want, &bytes);

	uint8_t *copy = static_cast<uint8_t *>(malloc(len ? len : 1));
	memcpy(copy, bytes, len);
	xb::RxFrame frame = {copy, uint32_t(len), {}, ingress};
	if (oob_sel & 1) {
		frame.oob.present = true;
		frame.oob.tpid = (oob_sel & 2) ? xb::kEthP8021AD : xb::kEthP8021Q;
		frame.oob.tci = uint16_t((oob_sel >> 2) * 67);
	}

	/* The datapath's L2-only classifier agrees with the full one. */
	xb::ClassifyParams params = {rig->br->addr(), rig->br->vlan_protocol(), true};
	xb::FrameInfo fi;
	xb::L2Info l2;
	memset(&l2, 0x5a, sizeof(l2));
	xb::classify_frame(copy, uint32_t(len), frame.oob, params, fi);
	xb::classify_l2(copy, uint32_t(len), frame.oob, params.host_addr, params.vlan_protocol, l2);
	if (fi.status == xb::FrameStatus::Ok) {
		check(l2.status == xb::FrameStatus::Ok);
		check(l2.dst == fi.dst && l2.src == fi.src && l2.dest_class == fi.dest_class);
		check(l2.src_valid == fi.src_valid && l2.link_local == fi.link_local &&
		      l2.link_local_index == fi.link_local_index);
		check(l2.bridge_tagged == fi.bridge_tagged && l2.vid == fi.vid);
		check(l2.pcp_dei == (fi.bridge_tagged ? fi.encap[0].tci >> 12 : 0));
		check(!fi.bridge_tagged || fi.pcp == l2.pcp_dei >> 1);
		check(l2.foreign_tagged == (fi.n_encap > 0 && !fi.bridge_tagged));
	} else if (len < xb::kEthHeaderLen) {
		check(l2.status == xb::FrameStatus::Truncated);
	}

	xb::Verdict v;
	memset(&v, 0xa5, sizeof(v));	/* a recycled verdict */
	{
		xb::RcuReadGuard rcu;
		xb::decide(*rig->br, frame, rig->now, v);
		check(v.ingress == ingress);
		switch (v.kind) {
		case xb::VerdictKind::Drop:
			check(v.reason != xb::DropReason::None &&
			      v.reason < xb::DropReason::Count);
			break;
		case xb::VerdictKind::Forward:
			check(v.out.port != nullptr && !v.out.port->is_host);
			check(v.out.port != ingress || v.out.port->has_flag(xb::kPortHairpin));
			break;
		case xb::VerdictKind::Flood: {
			unsigned n = xb::flood_targets(*rig->br, v, rig->egress, xb::kMaxPorts);
			check(n <= kPorts);
			for (unsigned i = 0; i < n; i++)
				check(rig->egress[i].port != ingress ||
				      ingress->has_flag(xb::kPortHairpin));
			break;
		}
		case xb::VerdictKind::Local:
		case xb::VerdictKind::PortStack:
			break;
		default:
			check(false);
		}
		if (v.kind == xb::VerdictKind::Local || v.local_too)
			check(v.local.port == rig->br->host());
	}
	/* The batch path must agree with the single-frame path. */
	xb::Verdict b;
	{
		xb::RcuReadGuard rcu;
		xb::decide_batch(*rig->br, &frame, 1, rig->now, &b);
	}
	check(b.kind == v.kind || b.kind == xb::VerdictKind::Forward ||
	      v.kind == xb::VerdictKind::Flood);	/* learning may have filled the FDB */
	free(copy);
}

void run_config(uint8_t op, Input &in)
{
	xb::Bridge *br = rig->br;
	switch (op) {
	case 4: {
		xb::Port *p = pick_port(in.u8());
		uint16_t vid = in.u16() & 0xfff;
		br->vlan_add(p, vid, vid, uint8_t(in.u8() & 3), nullptr);
		break;
	}
	case 5: {
		xb::Port *p = pick_port(in.u8());
		uint16_t vid = in.u16() & 0xfff;
		br->vlan_del(p, vid, vid, nullptr);
		break;
	}
	case 6: {
		xb::Port *p = pick_port(in.u8());
		uint16_t set = in.u16(), clear = in.u16();
		if (!p->is_host)
			br->port_set_flags(p, set & xb::kPortFlagsAll, clear & xb::kPortFlagsAll,
					   nullptr);
		break;
	}
	case 7: {
		xb::Port *p = pick_port(in.u8());
		uint16_t vid = in.u16();
		uint8_t state = in.u8() % 6;
		if (vid & 0x8000)
			br->vlan_set_state(p, vid & 0xfff, state, nullptr);
		else if (!p->is_host)
			br->port_set_state(p, state, nullptr);
		break;
	}
	case 8: {
		uint8_t bits = in.u8();
		br->set_vlan_filtering(bits & 1, nullptr);
		br->set_vlan_protocol((bits & 2) ? xb::kEthP8021AD : xb::kEthP8021Q, nullptr);
		br->set_fdb_cache_vlan(bits & 4);
		br->set_promisc(bits & 8);
		br->set_group_fwd_mask(in.u16(), nullptr);
		/* Rarely (each switch waits for a grace period): conntrack
		 * off or on again, with whatever the table holds. */
		if ((bits & 0x30) == 0x30)
			br->set_conntrack(!br->conntrack_on(), nullptr);
		break;
	}
	case 9: {
		xb::Port *p = pick_port(in.u8());
		int32_t vid = int32_t(in.u16() % 4100) - 2;
		uint8_t flags = in.u8();
		uint8_t mac[6];
		for (uint8_t &b : mac)
			b = in.u8();
		br->fdb_add(xb::mac_from_bytes(mac), vid, p, flags & 0x1f,
			    (flags & 0x80) ? xb::FdbAddMode::Replace : xb::FdbAddMode::Create,
			    nullptr);
		break;
	}
	default: {
		uint8_t sel = in.u8();
		if (sel & 1) {
			xb::FdbFilter f;
			f.port = pick_port(sel >> 1);
			br->fdb_flush(f);
		} else {
			rig->now += uint32_t(sel) * 10000;
			br->run_ageing(rig->now);
		}
		break;
	}
	}
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	xb_user_log_to_stderr(0);
	rig = new Rig();
	int err;
	xb::BridgeSetup setup = {0x0000a0b0c0d0e002ull, 100, nullptr, {}, {}, {}};
	rig->br = xb::Bridge::create(setup, &err);
	check(rig->br != nullptr);
	for (unsigned i = 0; i < kPorts; i++) {
		xb::PortSetup ps = {0x000011223344a0ull + i * 0x10000000000ull, 1 + i, nullptr};
		check(rig->br->add_port(ps, &rig->port[i], nullptr) == 0);
	}
	/* Frames go through the bridge's conntrack hooks too. */
	check(rig->br->set_conntrack(true, nullptr) == 0);
	rig->now = 1000;
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input in(data, size);
	while (in.more()) {
		uint8_t op = in.u8() % 11;
		if (op < 4)
			run_frame(in);
		else
			run_config(op, in);
	}
	/* Keep the FDB from growing without bound across inputs. */
	xb::FdbFilter all;
	all.flags_clear = xb::kFdbLocal;
	rig->br->fdb_flush(all);
	if (xb::Conntrack *ct = rig->br->conntrack())
		ct->table().flush(xb::CtFilter());
	return 0;
}
