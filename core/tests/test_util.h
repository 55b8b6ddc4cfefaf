// SPDX-License-Identifier: GPL-2.0
/*
 * test_util.h - helpers shared by the core's unit tests: MAC literals, a
 * frame builder (Ethernet, 802.1Q, 802.1ad), a fixture that owns a Bridge
 * with N ports and records its FDB events, and outcome summaries of a
 * forwarding decision (which ports get the frame, with which tag action).
 *
 * Userspace test code: it may use the C++ standard library and exceptions.
 */
#ifndef XBRIDGE_CORE_TESTS_TEST_UTIL_H
#define XBRIDGE_CORE_TESTS_TEST_UTIL_H

#include <catch2/catch.hpp>

#include <stdint.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bridge.h"
#include "compiler.h"
#include "ethernet.h"
#include "fdb.h"
#include "fdb_dest.h"
#include "forward.h"
#include "platform.h"
#include "platform_user.h"
#include "port.h"
#include "vlan.h"

namespace xbt {

using namespace xb;

/* ---- addresses ------------------------------------------------------ */

/* aa:bb:cc:dd:ee:ff as a MacKey. */
constexpr MacKey mac(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t e, uint8_t f)
{
	return MacKey(a) | (MacKey(b) << 8) | (MacKey(c) << 16) | (MacKey(d) << 24) |
	       (MacKey(e) << 32) | (MacKey(f) << 40);
}

/* A locally administered unicast station address numbered @n. */
constexpr MacKey host_mac(uint32_t n)
{
	return mac(0x02, 0x00, uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n));
}

constexpr MacKey kBrAddr = mac(0x02, 0xbb, 0x00, 0x00, 0x00, 0x01);
constexpr MacKey kBcast = kMacBroadcast;
constexpr MacKey kMcast = mac(0x01, 0x00, 0x5e, 0x01, 0x02, 0x03);

/* 01:80:c2:00:00:0X */
constexpr MacKey link_local(uint8_t x)
{
	return mac(0x01, 0x80, 0xc2, 0x00, 0x00, x);
}

/* The address the fixture gives port number @i (1-based). */
constexpr MacKey port_mac(unsigned i)
{
	return mac(0x02, 0xaa, 0x00, 0x00, 0x00, uint8_t(i));
}

inline std::string mac_str(MacKey k)
{
	uint8_t b[6];
	mac_to_bytes(k, b);
	char buf[32];
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3],
		 b[4], b[5]);
	return buf;
}

/* ---- frames ---------------------------------------------------------- */

struct Tag {
	uint16_t tpid;
	uint16_t vid;
	uint8_t pcp = 0;
};

inline Tag q(uint16_t vid, uint8_t pcp = 0)
{
	return Tag{kEthP8021Q, vid, pcp};
}

inline Tag ad(uint16_t vid, uint8_t pcp = 0)
{
	return Tag{kEthP8021AD, vid, pcp};
}

/* dst, src, in-band tags (outermost first), ethertype, payload bytes. */
inline std::vector<uint8_t> make_frame(MacKey dst, MacKey src, const std::vector<Tag> &tags = {},
				       uint16_t ethertype = kEthPIpv4, size_t payload = 46)
{
	std::vector<uint8_t> f(12);
	mac_to_bytes(dst, f.data());
	mac_to_bytes(src, f.data() + 6);
	for (const Tag &t : tags) {
		uint16_t tci = uint16_t((t.pcp & 7) << 13) | (t.vid & kVidMask);
		f.push_back(uint8_t(t.tpid >> 8));
		f.push_back(uint8_t(t.tpid));
		f.push_back(uint8_t(tci >> 8));
		f.push_back(uint8_t(tci));
	}
	f.push_back(uint8_t(ethertype >> 8));
	f.push_back(uint8_t(ethertype));
	f.resize(f.size() + payload, 0x5a);
	return f;
}

/* ---- FDB events ------------------------------------------------------ */

struct EventLog {
	std::vector<FdbEvent> events;

	static void record(void *ctx, const FdbEvent &e)
	{
		static_cast<EventLog *>(ctx)->events.push_back(e);
	}
	FdbEventSink sink() { return FdbEventSink{&EventLog::record, this}; }
	void clear() { events.clear(); }
	size_t size() const { return events.size(); }
	size_t count(FdbEventType type) const
	{
		return size_t(std::count_if(events.begin(), events.end(),
					    [&](const FdbEvent &e) { return e.type == type; }));
	}
	size_t count(FdbEventType type, FdbReason reason) const
	{
		return size_t(std::count_if(events.begin(), events.end(), [&](const FdbEvent &e) {
			return e.type == type && e.reason == reason;
		}));
	}
	/* Events about (mac, vid). */
	std::vector<FdbEvent> about(MacKey m, uint16_t vid) const
	{
		std::vector<FdbEvent> r;
		for (const FdbEvent &e : events)
			if (e.mac == m && e.vid == vid)
				r.push_back(e);
		return r;
	}
};

/* ---- FDB snapshots ----------------------------------------------------- */

struct FdbSnap {
	uint16_t flags;
	Port *port;
	PortVlan *vlan;		/* the cached port VLAN, or nullptr */
	uint32_t updated;

	bool operator==(const FdbSnap &o) const
	{
		return flags == o.flags && port == o.port && vlan == o.vlan;
	}
};

using FdbKey = std::pair<MacKey, uint16_t>;
using FdbDump = std::map<FdbKey, FdbSnap>;

inline FdbDump fdb_dump(const Bridge &br)
{
	FdbDump d;
	br.fdb().for_each([&](const FdbEntry &e) {
		FdbDest dest = e.destination();
		d[{e.mac(), e.vid()}] = FdbSnap{e.flag_bits(), dest.port(), dest.vlan(), e.updated};
		return true;
	});
	return d;
}

/* Entry (mac, vid) through the datapath lookup, as a snapshot. */
inline bool fdb_get(const Bridge &br, MacKey m, uint16_t vid, FdbSnap *out = nullptr)
{
	RcuReadGuard g;
	FdbEntry *e = br.fdb().lookup(m, vid);
	if (!e)
		return false;
	if (out) {
		FdbDest dest = e->destination();
		*out = FdbSnap{e->flag_bits(), dest.port(), dest.vlan(), load_once(e->updated)};
	}
	return true;
}

/* ---- VLAN snapshots ---------------------------------------------------- */

struct VlanSnap {
	uint8_t flags;
	uint8_t state;
	bool operator==(const VlanSnap &o) const { return flags == o.flags && state == o.state; }
};

struct PortVlans {
	uint16_t pvid;
	std::map<uint16_t, VlanSnap> vlans;
	bool operator==(const PortVlans &o) const { return pvid == o.pvid && vlans == o.vlans; }
};

inline PortVlans vlan_dump(const Port *p)
{
	PortVlans r;
	r.pvid = p->vlans.pvid();
	p->vlans.for_each([&](PortVlan *v) {
		r.vlans[v->vid] = VlanSnap{v->flags, v->state};
		return true;
	});
	return r;
}

/* Every port's (including the host's) VLANs, keyed by ifindex. */
inline std::map<uint32_t, PortVlans> all_vlans(const Bridge &br)
{
	std::map<uint32_t, PortVlans> r;
	r[br.host()->ifindex] = vlan_dump(br.host());
	br.for_each_port([&](Port *p) {
		r[p->ifindex] = vlan_dump(p);
		return true;
	});
	return r;
}

inline std::vector<uint32_t> port_ifindexes(const Bridge &br)
{
	std::vector<uint32_t> r;
	br.for_each_port([&](Port *p) {
		r.push_back(p->ifindex);
		return true;
	});
	std::sort(r.begin(), r.end());
	return r;
}

/* ---- decisions ----------------------------------------------------------- */

/* A decision and everything it implies, gathered in one read section. */
struct Outcome {
	Verdict v;
	/* The ports the frame leaves through (Forward: out; Flood: targets). */
	std::map<Port *, TagAction> egress;
	/* Whether a copy goes up the bridge device, and its tag action. */
	bool local = false;
	TagAction local_tag = TagAction::Keep;

	bool drop() const { return v.kind == VerdictKind::Drop; }
	bool to(Port *p) const { return egress.count(p) != 0; }
	TagAction tag_to(Port *p) const { return egress.at(p); }
};

inline Outcome summarize(const Bridge &br, const Verdict &v)
{
	Outcome o;
	o.v = v;
	if (v.kind == VerdictKind::Forward)
		o.egress[v.out.port] = v.out.tag;
	if (v.kind == VerdictKind::Flood) {
		std::vector<Egress> buf(kMaxPorts + 1);
		unsigned n = flood_targets(br, v, buf.data(), unsigned(buf.size()));
		for (unsigned i = 0; i < n; i++) {
			INFO("flood target listed twice");
			CHECK(o.egress.count(buf[i].port) == 0);
			o.egress[buf[i].port] = buf[i].tag;
		}
	}
	if (v.kind == VerdictKind::Local ||
	    ((v.kind == VerdictKind::Forward || v.kind == VerdictKind::Flood) && v.local_too)) {
		o.local = true;
		o.local_tag = v.local.tag;
	}
	return o;
}

inline const char *kind_name(VerdictKind k)
{
	switch (k) {
	case VerdictKind::Drop: return "Drop";
	case VerdictKind::Local: return "Local";
	case VerdictKind::Forward: return "Forward";
	case VerdictKind::Flood: return "Flood";
	case VerdictKind::PortStack: return "PortStack";
	}
	return "?";
}

inline const char *tag_name(TagAction t)
{
	switch (t) {
	case TagAction::Keep: return "Keep";
	case TagAction::Untag: return "Untag";
	case TagAction::Tag: return "Tag";
	}
	return "?";
}

inline std::string describe(const Outcome &o)
{
	std::string s = kind_name(o.v.kind);
	if (o.v.kind == VerdictKind::Drop) {
		s += " reason=";
		s += drop_reason_name(o.v.reason);
	}
	s += " vid=" + std::to_string(o.v.vid);
	s += " egress={";
	/* In ifindex order: the map's order is the ports' addresses, which
	 * differ between runs. */
	std::map<uint32_t, TagAction> by_ifindex;
	for (auto &kv : o.egress)
		by_ifindex[kv.first->ifindex] = kv.second;
	for (auto &kv : by_ifindex)
		s += std::to_string(kv.first) + ":" + tag_name(kv.second) + " ";
	s += "} local=" + std::string(o.local ? "yes/" : "no/") + tag_name(o.local_tag);
	return s;
}

/* ---- the fixture ---------------------------------------------------------- */

constexpr uint32_t kBrIfindex = 100;
constexpr uint64_t kT0Ns = 1000ull * 1000 * 1000 * 1000;	/* 1000 s */

/*
 * A bridge with @nports ports (ifindex 1..N, addresses port_mac(i)), FDB
 * events recorded in `log`. Uses the platform's fake clock, starting at
 * kT0Ns; now() is the tick count decisions and ageing use.
 */
struct BridgeFixture {
	EventLog log;
	Bridge *br = nullptr;
	std::vector<Port *> ports;	/* ports[0] is port 1 */

	explicit BridgeFixture(unsigned nports = 4, bool filtering = false)
	{
		xb_user_fail_alloc_after(-1);
		xb_user_set_time_ns(kT0Ns);
		BridgeSetup setup{};
		setup.addr = kBrAddr;
		setup.ifindex = kBrIfindex;
		setup.priv = nullptr;
		setup.fdb_events = log.sink();
		int err = 0;
		br = Bridge::create(setup, &err);
		REQUIRE(br != nullptr);
		REQUIRE(err == 0);
		for (unsigned i = 1; i <= nports; i++)
			add(i);
		if (filtering)
			REQUIRE(br->set_vlan_filtering(true, nullptr) == 0);
		log.clear();
	}
	~BridgeFixture()
	{
		if (br)
			Bridge::destroy(br);
	}
	BridgeFixture(const BridgeFixture &) = delete;
	BridgeFixture &operator=(const BridgeFixture &) = delete;

	Port *add(unsigned i)
	{
		PortSetup ps{};
		ps.addr = port_mac(i);
		ps.ifindex = i;
		ps.priv = nullptr;
		Port *p = nullptr;
		Extack ack;
		int err = br->add_port(ps, &p, &ack);
		INFO("add_port " << i << ": " << (ack.msg ? ack.msg : ""));
		REQUIRE(err == 0);
		REQUIRE(p != nullptr);
		ports.push_back(p);
		return p;
	}

	/* Port number i (1-based). */
	Port *p(unsigned i) const { return ports.at(i - 1); }
	Port *host() const { return br->host(); }

	uint32_t now() const { return Bridge::now_ticks(); }
	void advance_ms(uint64_t ms) { xb_user_advance_time_ns(ms * 1000000ull); }

	Outcome send(Port *in, const std::vector<uint8_t> &bytes, OobTag oob = OobTag{false, 0, 0})
	{
		RcuReadGuard g;
		RxFrame f{bytes.data(), uint32_t(bytes.size()), oob, in};
		Verdict v;
		std::memset(&v, 0xa5, sizeof(v));	/* stale garbage must not leak */
		decide(*br, f, now(), v);
		return summarize(*br, v);
	}

	/* A frame that arrives with skb->mark @mark and skb->priority
	 * @priority (RxFrame::mark, ::priority). */
	Outcome send_marked(Port *in, const std::vector<uint8_t> &bytes, uint32_t mark,
			    uint32_t priority = 0)
	{
		RcuReadGuard g;
		RxFrame f{bytes.data(), uint32_t(bytes.size()), OobTag{false, 0, 0}, in};
		f.mark = mark;
		f.priority = priority;
		Verdict v;
		std::memset(&v, 0xa5, sizeof(v));
		decide(*br, f, now(), v);
		return summarize(*br, v);
	}

	/* A frame the bridge device's IP stack sends (RxFrame::host_stack). */
	Outcome send_host_stack(const std::vector<uint8_t> &bytes)
	{
		RcuReadGuard g;
		RxFrame f{bytes.data(), uint32_t(bytes.size()), OobTag{false, 0, 0}, br->host()};
		f.host_stack = true;
		Verdict v;
		decide(*br, f, now(), v);
		return summarize(*br, v);
	}

	/* Decide into a caller-owned verdict (to test recycling). */
	Outcome send_into(Port *in, const std::vector<uint8_t> &bytes, Verdict &v)
	{
		RcuReadGuard g;
		RxFrame f{bytes.data(), uint32_t(bytes.size()), OobTag{false, 0, 0}, in};
		decide(*br, f, now(), v);
		return summarize(*br, v);
	}

	/* A frame from @src into @in, to teach the FDB (src, vid) -> in. */
	void learn(Port *in, MacKey src, const std::vector<Tag> &tags = {})
	{
		send(in, make_frame(kBcast, src, tags));
	}

	bool has(MacKey m, uint16_t vid, FdbSnap *out = nullptr) const
	{
		return fdb_get(*br, m, vid, out);
	}
	FdbSnap entry(MacKey m, uint16_t vid) const
	{
		FdbSnap s{};
		INFO("FDB entry " << mac_str(m) << " vid " << vid);
		REQUIRE(fdb_get(*br, m, vid, &s));
		return s;
	}
	PortVlan *pv(Port *port, uint16_t vid) const
	{
		RcuReadGuard g;
		return port->vlans.find(vid);
	}
};

inline std::vector<Port *> ports_of(const Outcome &o)
{
	std::vector<Port *> r;
	for (auto &kv : o.egress)
		r.push_back(kv.first);
	return r;
}

} // namespace xbt

#endif /* XBRIDGE_CORE_TESTS_TEST_UTIL_H */
