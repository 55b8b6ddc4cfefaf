// SPDX-License-Identifier: GPL-2.0
/*
 * ct_track.cc - ct_in / ct_confirm / ct_release (see ct_track.h for
 * ownership and locking). The order of checks is nf_conntrack_in's:
 * header sanity, the ICMP error pass, lookup or creation, the protocol
 * tracker, then SEEN_REPLY.
 */
#include "ct_track.h"

#include "batch_groups.h"
#include "ct_proto_dccp.h"
#include "ct_proto_other.h"
#include "ct_proto_sctp.h"

namespace xb {

int Conntrack::init(uint32_t buckets, uint32_t max, Extack *ack)
{
	config = CtConfig();
	if (!host_datagram_.init(XB_ALLOC_SLEEP))
		return fail(ack, kENOMEM, "out of memory for conntrack");
	const int err = table_.init(buckets, max, ack);
	if (err)
		host_datagram_.fini();
	return err;
}

void Conntrack::fini()
{
	table_.fini();
	host_datagram_.fini();
}

void Conntrack::invalid(CtResult &out)
{
	counter_add(table_.stats_this_cpu()->invalid, 1);
	out.state = kCtStateInvalid;
}

void Conntrack::in(const uint8_t *frame, uint32_t len, bool oob_tag, uint16_t zone,
		   uint32_t now, bool csum_ok, CtResult &out)
{
	CtPacket p;
	const CtParse parse = ct_parse(frame, len, oob_tag, zone, p);
	in_packet(parse, p, now, csum_ok, out);
}

bool Conntrack::same_datagram(const HostDatagram &d, const CtPacket &p)
{
	const CtTuple &t = p.tuple;
	return d.tuple.l3 == t.l3 && d.frag_id == p.frag_id &&
	       (t.l3 != kCtL3Ipv4 || d.tuple.l4proto == t.l4proto) &&
	       __builtin_memcmp(d.tuple.src, t.src, sizeof(t.src)) == 0 &&
	       __builtin_memcmp(d.tuple.dst, t.dst, sizeof(t.dst)) == 0;
}

void Conntrack::in_host(const uint8_t *frame, uint32_t len, bool oob_tag, uint32_t now,
			CtResult &out)
{
	CtPacket p;
	const CtParse parse = ct_parse(frame, len, oob_tag, 0, p);
	HostDatagram *d = host_datagram_.this_cpu();

	if (xb_likely(!p.later_fragment)) {
		in_packet(parse, p, now, true, out);
		if (xb_unlikely(p.fragment) && out.entry) {
			d->tuple = p.tuple;
			d->frag_id = p.frag_id;
			d->state = out.state;
		}
		return;
	}
	out = CtResult();
	uint8_t dir = 0;
	CtEntry *e = same_datagram(*d, p) ? table_.lookup(d->tuple, now, &dir) : nullptr;
	if (!e) {
		invalid(out);	/* nf_ct_get_tuple: no layer-4 header */
		return;
	}
	out.entry = e;
	out.dir = dir;
	out.state = d->state;
}

/* nf_conntrack_inet_error: find the connection an ICMP error quotes. */
void Conntrack::track_icmp_error(const CtPacket &p, uint32_t inner_off, uint32_t now,
				 CtResult &out)
{
	CtStats *stats = table_.stats_this_cpu();
	const uint8_t *inner_l3 = p.l3 + p.l4_off + inner_off;
	CtPacket inner;
	CtTuple key;
	uint8_t dir = 0;
	CtEntry *e = nullptr;
	if (ct_parse_embedded(inner_l3, p.l4_len - inner_off, p.tuple.l3, p.tuple.zone, inner) ==
		    CtParse::Ok &&
	    ct_invert_tuple(inner.tuple, key))
		e = table_.lookup(key, now, &dir);
	if (e) {
		/* the error must go where that direction's packets go */
		const uint8_t *want = dir == 0 ? e->tuple.dst : e->tuple.src;
		const uint32_t alen = p.tuple.l3 == kCtL3Ipv4 ? 4 : 16;
		if (__builtin_memcmp(want, p.tuple.dst, alen) != 0)
			e = nullptr;
	}
	if (!e) {
		counter_add(stats->error, 1);
		out.state = kCtStateInvalid;
		return;
	}
	out.entry = e;
	out.dir = dir;
	out.state = kCtStateRelated;
}

unsigned Conntrack::in_batch(const uint8_t *const *frames, const uint32_t *lens, unsigned n,
			     bool oob_tag, uint16_t zone, uint32_t now, bool csum_ok,
			     CtResult *out)
{
	if (table_.prefetch_deep())
		return in_batch_deep(frames, lens, n, oob_tag, zone, now, csum_ok, out);

	CtPacket pkt[kCtBatch];
	CtParse parse[kCtBatch];
	uint32_t bucket[kCtBatch];
	for (unsigned base = 0; base < n; base += kCtBatch) {
		const unsigned m = n - base < kCtBatch ? n - base : kCtBatch;
		for (unsigned i = 0; i < m; i++) {
			parse[i] = ct_parse(frames[base + i], lens[base + i], oob_tag, zone, pkt[i]);
			bucket[i] = parse[i] == CtParse::Ok ? table_.bucket_of(pkt[i].tuple) : 0;
			table_.prefetch_bucket(bucket[i]);
		}
		for (unsigned i = 0; i < m; i++)
			if (parse[i] == CtParse::Ok)
				table_.prefetch_chain(bucket[i]);
		for (unsigned i = 0; i < m; i++) {
			in_bucket(parse[i], pkt[i], bucket[i], now, csum_ok, out[base + i]);
			if (out[base + i].unconfirmed)
				return base + i + 1;
		}
	}
	return n;
}

/*
 * in_batch() over a table larger than the caches: a software pipeline over
 * groups of kCtDeepGroup frames. While group g is tracked, group g+1's
 * chains are looked into for a hit second in its chain
 * (CtTable::prefetch_second), group g+2's first entries are fetched and
 * group g+3 is parsed and its buckets fetched: each of the dependent misses
 * of a hit (bucket, first entry, second entry) has a group's tracking
 * (four frames, ~500 cycles) to arrive in, where the plain batch waits
 * for each once per batch. The
 * groups ahead are only parsed and prefetched: a frame is tracked against
 * the table as it is when its turn comes.
 */
unsigned Conntrack::in_batch_deep(const uint8_t *const *frames, const uint32_t *lens, unsigned n,
				  bool oob_tag, uint16_t zone, uint32_t now, bool csum_ok,
				  CtResult *out)
{
	constexpr unsigned G = kCtDeepGroup;
	constexpr unsigned kStages = 4;		/* groups in flight: a ring */
	CtPacket pkt[kStages * G];
	CtParse parse[kStages * G];
	uint32_t bucket[kStages * G];
	const unsigned groups = (n + G - 1) / G;

	auto span = [&](unsigned g) { return batch_group(g, n, G, kStages); };

	for (unsigned step = 0; step < groups + kStages - 1; step++) {
		/* stage 0: parse group `step`, fetch its buckets */
		if (step < groups) {
			const BatchGroup s = span(step);
			for (unsigned i = s.slot; i < s.slot + s.count; i++) {
				const unsigned f = s.first + i - s.slot;
				parse[i] = ct_parse(frames[f], lens[f], oob_tag, zone, pkt[i]);
				bucket[i] = parse[i] == CtParse::Ok ? table_.bucket_of(pkt[i].tuple) : 0;
				table_.prefetch_bucket(bucket[i]);
			}
		}
		/* stage 1: the first entries of group step - 1 */
		if (step >= 1 && step - 1 < groups) {
			const BatchGroup s = span(step - 1);
			for (unsigned i = s.slot; i < s.slot + s.count; i++)
				if (parse[i] == CtParse::Ok)
					table_.prefetch_chain(bucket[i]);
		}
		/* stage 2: the entry wanted, when it is second */
		if (step >= 2 && step - 2 < groups) {
			const BatchGroup s = span(step - 2);
			for (unsigned i = s.slot; i < s.slot + s.count; i++)
				if (parse[i] == CtParse::Ok)
					table_.prefetch_second(pkt[i].tuple, bucket[i]);
		}
		/* stage 3: track group step - 3 */
		if (step >= 3) {
			const BatchGroup s = span(step - 3);
			for (unsigned i = s.slot; i < s.slot + s.count; i++) {
				CtResult &res = out[s.first + i - s.slot];
				in_bucket(parse[i], pkt[i], bucket[i], now, csum_ok, res);
				if (res.unconfirmed)
					return s.first + i - s.slot + 1;
			}
		}
	}
	return n;
}

void Conntrack::in_bucket(CtParse parse, const CtPacket &p, uint32_t bucket, uint32_t now,
			  bool csum_ok, CtResult &out)
{
	out = CtResult();
	/* A first fragment's checksum covers bytes it does not carry. */
	const bool check = config.checksum && !csum_ok && !p.fragment;
	const uint8_t proto = p.tuple.l4proto;

	/* TCP first, the bulk of the traffic: its header is read once here
	 * (tcp_error) for every step after. */
	if (xb_likely(parse == CtParse::Ok && proto == kIpProtoTcp)) {
		CtTcpSegment seg;
		if (!ct_tcp_read(p, seg) || (check && !ct_l4_checksum_ok(p))) {
			invalid(out);
			return;
		}
		track(p, &seg, kIpProtoTcp, bucket, now, out);
		return;
	}

	switch (parse) {
	case CtParse::Ok:
		break;
	case CtParse::NotIp:
		out.state = kCtStateUntracked;
		return;
	case CtParse::BadL3:
		out.state = kCtStateInvalid;	/* nf_ct_br_ip_check: not counted */
		return;
	case CtParse::BadL4:
		invalid(out);
		return;
	}

	if ((proto == kIpProtoIcmp && p.tuple.l3 != kCtL3Ipv4) ||
	    (proto == kIpProtoIcmpv6 && p.tuple.l3 != kCtL3Ipv6)) {
		invalid(out);	/* icmp(v6)_packet refuses the other family */
		return;
	}
	if (proto == kIpProtoIcmp || proto == kIpProtoIcmpv6) {
		uint32_t inner_off;
		CtIcmpClass c = ct_icmp_classify(p, inner_off);
		if (c != CtIcmpClass::Invalid && check && !ct_l4_checksum_ok(p))
			c = CtIcmpClass::Invalid;
		switch (c) {
		case CtIcmpClass::Invalid:
			counter_add(table_.stats_this_cpu()->error, 1);
			out.state = kCtStateInvalid;
			return;
		case CtIcmpClass::Untracked:
			out.state = kCtStateUntracked;
			return;
		case CtIcmpClass::Error:
			track_icmp_error(p, inner_off, now, out);
			return;
		case CtIcmpClass::Track:
			break;
		}
	}

	/* Protocol errors are checked before the connection is resolved in
	 * effect (Linux checks them in the tracker, after creating an
	 * unconfirmed entry it then frees: same outcome). */
	if (proto == kIpProtoUdp) {
		const uint8_t *uh = p.l3 + p.l4_off;
		if (ct_udp_error(p) || (check && (uh[6] | uh[7]) && !ct_l4_checksum_ok(p))) {
			invalid(out);
			return;
		}
	} else if (proto == kIpProtoUdplite) {
		if (ct_udplite_error(p, check)) {
			invalid(out);
			return;
		}
	} else if (proto == kIpProtoSctp) {
		if (ct_sctp_error(p, check)) {
			invalid(out);
			return;
		}
	} else if (proto == kIpProtoDccp) {
		const CtDccpError err = ct_dccp_error(p, check);
		if (err == CtDccpError::Short && config.dccp_short_drops) {
			/* NF_DROP from the tracker: invalid and drop */
			counter_add(table_.stats_this_cpu()->drop, 1);
			invalid(out);
			out.drop = true;
			return;
		}
		if (err != CtDccpError::Ok) {
			invalid(out);
			return;
		}
	}
	track(p, nullptr, proto, bucket, now, out);
}

/*
 * The connection of a packet that passed its protocol's error checks:
 * looked up (or created), tracked by its protocol, SEEN_REPLY, the result
 * and the Update event. @seg: a TCP packet's header (ct_tcp_read), for
 * TCP only. Inlined twice: with TCP, a constant that leaves only TCP's
 * code (the hit path), and with any other protocol.
 */
xb_always_inline void Conntrack::track(const CtPacket &p, const CtTcpSegment *seg, uint8_t proto,
				       uint32_t bucket, uint32_t now, CtResult &out)
{
	for (int attempt = 0; attempt < 2; attempt++) {
		uint8_t dir = 0;
		CtEntry *e = table_.lookup_in(p.tuple, bucket, now, &dir);
		bool confirmed = e != nullptr;
		/* Conntrack has not seen the segments the flows carried: hand
		 * the connection back before tracking this one (bridge_flow.h). */
		if (e && xb_unlikely(e->status_bits() & kCtOffload))
			table_.offload_missed(*e, now);
		if (xb_unlikely(!e)) {
			CtTuple reply;
			if (!ct_invert_tuple(p.tuple, reply)) {
				invalid(out);	/* an ICMP reply type with no request */
				return;
			}
			e = table_.alloc_unconfirmed(p.tuple, now);
			if (!e) {
				counter_add(table_.stats_this_cpu()->drop, 1);
				out.state = kCtStateInvalid;
				out.drop = true;
				return;
			}
		}

		/* What an Update event compares against (a confirmed entry). */
		const uint16_t was_status = confirmed ? e->status_bits() : 0;
		const uint8_t was_tcp = confirmed && proto == kIpProtoTcp ? e->tcp_state() : 0;
		const uint8_t was_sctp = confirmed && proto == kIpProtoSctp ? e->sctp_state() : 0;
		const uint8_t was_dccp = confirmed && proto == kIpProtoDccp ? e->dccp_state() : 0;

		CtL4Verdict v;
		switch (proto) {
		case kIpProtoTcp: {
			if (!confirmed && !ct_tcp_new(*e, *seg, config.tcp)) {
				v = CtL4Verdict::Invalid;
				break;
			}
			CtEntryLock lock(*e);
			v = ct_tcp_packet(*e, *seg, dir, now, config.tcp);
			if (v == CtL4Verdict::Accept || v == CtL4Verdict::AcceptKill) {
				e->packets[dir]++;
				e->bytes[dir] += p.l3_len;
			}
			break;
		}
		case kIpProtoUdp:
			v = ct_udp_packet(*e, confirmed, now);
			break;
		case kIpProtoIcmp:
		case kIpProtoIcmpv6:
			v = ct_icmp_packet(*e, confirmed, now);
			break;
		case kIpProtoGre:
			v = ct_gre_packet(*e, now);
			break;
		case kIpProtoUdplite:
			v = ct_udplite_packet(*e, now);
			break;
		case kIpProtoSctp: {
			CtEntryLock lock(*e);
			v = ct_sctp_packet(*e, p, dir, confirmed, now);
			break;
		}
		case kIpProtoDccp: {
			CtEntryLock lock(*e);
			v = ct_dccp_packet(*e, p, dir, confirmed, now);
			break;
		}
		default:
			v = ct_generic_packet(*e, now);
			break;
		}
		/* (DCCP's Reset before a reply is counted, then kills: nf_ct_kill_acct) */
		if (proto != kIpProtoTcp && (v == CtL4Verdict::Accept || v == CtL4Verdict::AcceptKill)) {
			__atomic_fetch_add(&e->packets[dir], 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&e->bytes[dir], p.l3_len, __ATOMIC_RELAXED);
		}

		if (xb_unlikely(v == CtL4Verdict::Repeat)) {
			table_.kill(e);	/* a SYN reopening a closed connection */
			continue;
		}
		if (xb_unlikely(v == CtL4Verdict::Invalid)) {
			if (!confirmed)
				table_.free_unconfirmed(e);
			invalid(out);
			return;
		}
		const uint16_t st = e->status_bits();
		if (dir == 1 && !(st & kCtSeenReply))
			e->set_status(kCtSeenReply);
		out.entry = e;
		out.dir = dir;
		out.unconfirmed = !confirmed;
		out.state = (dir == 1 || (st & kCtSeenReply)) ? kCtStateEstablished : kCtStateNew;
		if (xb_unlikely(v == CtL4Verdict::AcceptKill)) {
			table_.kill(e);	/* stays readable for this frame (RCU) */
			return;
		}
		/* IPCT_REPLY, IPCT_ASSURED, IPCT_PROTOINFO: an Update once the
		 * entry is confirmed (before, New carries them). */
		if (confirmed && table_.event_sink().fn) {
			constexpr uint16_t kWatched = kCtSeenReply | kCtAssured;
			if (((e->status_bits() ^ was_status) & kWatched) ||
			    (proto == kIpProtoTcp && e->tcp_state() != was_tcp) ||
			    (proto == kIpProtoSctp && e->sctp_state() != was_sctp) ||
			    (proto == kIpProtoDccp && e->dccp_state() != was_dccp))
				table_.event_sink()(CtEventType::Update, *e);
		}
		return;
	}
	invalid(out);	/* reopened twice in a row: cannot happen */
}

unsigned Conntrack::tracking_resumed()
{
	return table_.for_each_locked([](CtEntry &e) { return ct_tcp_tracking_resumed(e); });
}

bool Conntrack::confirm(CtResult &r, uint32_t now)
{
	if (!r.entry || !r.unconfirmed)
		return true;
	CtEntry *e = r.entry;
	r.unconfirmed = false;
	if (!table_.confirm(e, now)) {
		r.entry = nullptr;	/* freed by the table */
		r.drop = true;
		return false;
	}
	return true;
}

} // namespace xb
