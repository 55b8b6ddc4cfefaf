/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ct_track.h - the conntrack entry points of the bridge's hook pipeline:
 * ct_in at prerouting priority -200 (nf_ct_bridge_pre + nf_conntrack_in)
 * and ct_confirm where Linux confirms (postrouting, and local input for
 * frames to the bridge's own address), and the ct state nft sees.
 *
 * Ownership. A Conntrack owns its CtTable. A CtResult belongs to one frame:
 * it names the frame's connection (a confirmed entry, readable until the
 * frame's RCU read section ends) or owns an unconfirmed one, which
 * ct_confirm() inserts or ct_release() frees; every frame that went
 * through ct_in() must end with ct_release().
 *
 * Locking. Datapath functions run inside an RCU read section with bottom
 * halves disabled (kernel) and take the entry's spin bit for TCP state and
 * the table lock for insertion and removal (see ct_table.h). The config is
 * read with plain loads; change it from the control path only while no
 * frame is in flight, or accept that a frame sees the old value. The note
 * of the last datagram the host sent in fragments (in_host) is per CPU and
 * touched only by that CPU's frames, with bottom halves off in the kernel;
 * in userspace two threads may share a CPU's note, which costs a later
 * fragment its state (INVALID), never memory safety: the note is only a
 * key to look the connection up again.
 */
#ifndef XBRIDGE_CORE_CT_TRACK_H
#define XBRIDGE_CORE_CT_TRACK_H

#include <stdint.h>

#include "ct_proto_dccp.h"
#include "ct_proto_tcp.h"
#include "ct_table.h"
#include "ct_tuple.h"
#include "errors.h"
#include "percpu.h"

namespace xb {

/* ct state bits as nft's `ct state` reads them (NF_CT_STATE_*_BIT). */
enum CtStateBit : uint8_t {
	kCtStateInvalid = 1,
	kCtStateEstablished = 2,
	kCtStateRelated = 4,
	kCtStateNew = 8,
	kCtStateUntracked = 64,
};

struct CtResult {
	CtEntry *entry = nullptr;	/* nullptr: INVALID or UNTRACKED */
	uint8_t dir = 0;		/* 0 original, 1 reply */
	uint8_t state = kCtStateInvalid;	/* one CtStateBit */
	bool unconfirmed = false;	/* this result owns @entry */
	bool drop = false;		/* conntrack drops the frame (table full,
					 * insert lost) */
};

struct CtConfig {
	CtTcpConfig tcp;
	bool checksum = true;		/* nf_conntrack_checksum */
	bool dccp_short_drops = kDccpShortDrops;	/* ct_proto_dccp.h */
};

class Conntrack {
public:
	/* Control. */
	int init(uint32_t buckets, uint32_t max, Extack *ack);
	void fini();

	/*
	 * Datapath: track one frame (from its Ethernet header; @oob_tag: the
	 * outer VLAN tag was removed by the caller) in @zone. @csum_ok: the
	 * layer-4 checksum is already known good (the kernel's
	 * CHECKSUM_UNNECESSARY), so it is not computed. Fills @out.
	 */
	void in(const uint8_t *frame, uint32_t len, bool oob_tag, uint16_t zone, uint32_t now,
		bool csum_ok, CtResult &out);
	/*
	 * Datapath: a packet the bridge device's own IP stack sends, which the
	 * IP layer's conntrack would have seen whole, before fragmenting it:
	 * zone 0, checksums not verified. A first fragment is tracked as its
	 * datagram; the later fragments of that datagram, which the stack
	 * sends right behind it from the same CPU, take its result, as on
	 * Linux each fragment carries the datagram's ct. A later fragment of
	 * another datagram is INVALID.
	 */
	void in_host(const uint8_t *frame, uint32_t len, bool oob_tag, uint32_t now,
		     CtResult &out);
	/* Same, for a packet already parsed (reassembled by the shim). */
	void in_packet(CtParse parse, const CtPacket &p, uint32_t now, bool csum_ok,
		       CtResult &out)
	{
		in_bucket(parse, p, parse == CtParse::Ok ? table_.bucket_of(p.tuple) : 0, now,
			  csum_ok, out);
	}

	/*
	 * Datapath: track up to @n frames in order, deciding as in() does,
	 * with the hash buckets and first entries of up to kCtBatch frames
	 * prefetched before any of them is tracked. Stops after the first
	 * frame that starts a new connection (an unconfirmed result): the
	 * caller takes that frame to confirm (or drop) before the frames
	 * behind it are tracked, so that a connection's second frame finds
	 * the entry its first created, as with one frame at a time. Returns
	 * how many frames were tracked (>= 1 when n >= 1); @out[i] is frame
	 * i's result.
	 */
	static constexpr unsigned kCtBatch = 16;
	static constexpr unsigned kCtDeepGroup = 4;
	unsigned in_batch(const uint8_t *const *frames, const uint32_t *lens, unsigned n,
			  bool oob_tag, uint16_t zone, uint32_t now, bool csum_ok, CtResult *out);

	/*
	 * Datapath: confirm the frame's new connection (no-op if there is
	 * none or it is confirmed). False when the insert lost to an equal
	 * entry: the frame must be dropped (@r.drop is set).
	 */
	bool confirm(CtResult &r, uint32_t now);
	/* Datapath: end of the frame; frees an unconfirmed entry. */
	void release(CtResult &r)
	{
		if (xb_unlikely(r.entry && r.unconfirmed))
			table_.free_unconfirmed(r.entry);
		r.entry = nullptr;
		r.unconfirmed = false;
	}

	/*
	 * Control: tracking starts again after a spell without it (the
	 * environment stopped calling in() and now calls it again): every
	 * ESTABLISHED TCP connection forgets its windows, as
	 * nf_ct_netns_get's nf_ct_tcp_fixup does when it registers the hooks
	 * anew (ct_tcp_tracking_resumed). Returns how many did.
	 */
	unsigned tracking_resumed();

	CtTable &table() { return table_; }
	const CtTable &table() const { return table_; }
	CtConfig config;

private:
	/* its own frame: 16 parsed packets, as in_batch()'s (kernel stacks) */
	xb_noinline unsigned in_batch_deep(const uint8_t *const *frames, const uint32_t *lens, unsigned n,
			       bool oob_tag, uint16_t zone, uint32_t now, bool csum_ok,
			       CtResult *out);
	void in_bucket(CtParse parse, const CtPacket &p, uint32_t bucket, uint32_t now, bool csum_ok,
		       CtResult &out);
	void track(const CtPacket &p, const CtTcpSegment *seg, uint8_t proto, uint32_t bucket,
		   uint32_t now, CtResult &out);
	void track_icmp_error(const CtPacket &p, uint32_t inner_off, uint32_t now, CtResult &out);
	void invalid(CtResult &out);

	/* The datagram a CPU's host-sent fragments belong to (in_host). */
	struct HostDatagram {
		CtTuple tuple;		/* the first fragment's (l3 0: none yet);
					 * its addresses and, for IPv4, its
					 * protocol key the later fragments */
		uint32_t frag_id;
		uint8_t state;		/* the datagram's ct state */
	};
	static bool same_datagram(const HostDatagram &d, const CtPacket &p);

	CtTable table_;
	PerCpu<HostDatagram> host_datagram_;
};

} // namespace xb

#endif /* XBRIDGE_CORE_CT_TRACK_H */
