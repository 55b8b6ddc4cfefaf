// SPDX-License-Identifier: GPL-2.0
/*
 * demo.cc - a walk through the forwarding core in userspace: a VLAN-aware
 * bridge with two access ports and a trunk, frames between hosts, and the
 * verdicts and FDB that result. Single-threaded; owns its bridge.
 *
 * Until the kernel module exists this is the README's main job.
 */
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "bridge.h"
#include "forward.h"

namespace {

using namespace xb;

std::string mac_str(MacKey k)
{
	uint8_t b[6];
	char s[18];
	mac_to_bytes(k, b);
	snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
	return s;
}

const char *tag_str(TagAction t)
{
	switch (t) {
	case TagAction::Keep: return "as-is";
	case TagAction::Untag: return "untagged";
	case TagAction::Tag: return "tagged";
	}
	return "?";
}

std::vector<uint8_t> frame(MacKey dst, MacKey src, int vid)
{
	std::vector<uint8_t> f(64, 0);
	mac_to_bytes(dst, &f[0]);
	mac_to_bytes(src, &f[6]);
	size_t off = 12;
	if (vid >= 0) {
		f[off++] = 0x81;
		f[off++] = 0x00;
		f[off++] = uint8_t(vid >> 8);
		f[off++] = uint8_t(vid);
	}
	f[off++] = 0x08;
	f[off++] = 0x00;
	return f;
}

struct Demo {
	Bridge *br;
	Port *ports[3];
	const char *names[3] = {"veth1", "veth2", "trunk0"};

	const char *name(const Port *p)
	{
		if (p == br->host())
			return "xbr0";
		for (int i = 0; i < 3; i++)
			if (ports[i] == p)
				return names[i];
		return "?";
	}

	void send(const char *what, Port *in, MacKey dst, MacKey src, int vid)
	{
		std::vector<uint8_t> f = frame(dst, src, vid);
		RxFrame rx = {f.data(), uint32_t(f.size()), {}, in};
		Verdict v;
		Egress out[kMaxPorts];
		RcuReadGuard rcu;
		decide(*br, rx, Bridge::now_ticks(), v);
		printf("  %-34s in %-6s -> ", what, name(in));
		switch (v.kind) {
		case VerdictKind::Drop:
			printf("drop (%s)", drop_reason_name(v.reason));
			break;
		case VerdictKind::Local:
			printf("up to xbr0");
			break;
		case VerdictKind::PortStack:
			printf("up to %s's own stack", name(in));
			break;
		case VerdictKind::Forward:
			printf("forward to %s (%s, vid %u)", name(v.out.port), tag_str(v.out.tag), v.vid);
			break;
		case VerdictKind::Flood: {
			unsigned n = flood_targets(*br, v, out, kMaxPorts);
			printf("flood vid %u to", v.vid);
			for (unsigned i = 0; i < n; i++)
				printf(" %s(%s)", name(out[i].port), tag_str(out[i].tag));
			if (!n)
				printf(" nobody");
			break;
		}
		}
		if (v.local_too)
			printf(" + up to xbr0");
		printf("\n");
	}

	void show_fdb()
	{
		printf("\n  FDB (xbridge fdb show):\n");
		br->fdb().for_each([&](const FdbEntry &e) {
			uint16_t f = e.flag_bits();
			FdbDest d = e.destination();
			printf("    %s dev %s", mac_str(e.mac()).c_str(), name(d.port()));
			if (e.vid())
				printf(" vlan %u", e.vid());
			printf(" master xbr0 %s%s%s\n",
			       (f & kFdbLocal) ? "permanent" : (f & kFdbStatic) ? "static" : "",
			       (f & kFdbSticky) ? " sticky" : "",
			       d.has_vlan() ? "   [dest caches port-VLAN]" : "");
			return true;
		});
	}
};

} // namespace

int main()
{
	int err;
	Demo d;
	BridgeSetup setup = {0x0000020000aabb02ull, 10, nullptr, {}, {}, {}};
	d.br = Bridge::create(setup, &err);
	if (!d.br) {
		fprintf(stderr, "bridge create failed: %d\n", err);
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		PortSetup ps = {0x0000020000000002ull + (uint64_t(i + 1) << 40), uint32_t(i + 1), nullptr};
		if (d.br->add_port(ps, &d.ports[i], nullptr)) {
			fprintf(stderr, "add port failed\n");
			return 1;
		}
	}

	Extack ack;
	Bridge &br = *d.br;
	br.set_vlan_filtering(true, &ack);
	/* veth1: access VLAN 10; veth2: access VLAN 20; trunk0: tagged 10, 20. */
	br.vlan_del(d.ports[0], 1, 1, &ack);
	br.vlan_del(d.ports[1], 1, 1, &ack);
	br.vlan_add(d.ports[0], 10, 10, kVlanPvid | kVlanUntagged, &ack);
	br.vlan_add(d.ports[1], 20, 20, kVlanPvid | kVlanUntagged, &ack);
	br.vlan_add(d.ports[2], 10, 20, 0, &ack);
	/* The bridge device itself is a member of VLAN 10, untagged. */
	br.vlan_add(br.host(), 10, 10, kVlanUntagged, &ack);

	const MacKey h1 = 0x0000110000000002ull, h2 = 0x0000220000000002ull,
		     h3 = 0x0000330000000002ull;

	printf("xbridge core demo: xbr0 with vlan_filtering 1\n");
	printf("  veth1: vid 10 pvid untagged | veth2: vid 20 pvid untagged | trunk0: vids 10-20 tagged\n\n");
	d.send("h1 -> h3 (unknown unicast)", d.ports[0], h3, h1, -1);
	d.send("h3 -> h1 tagged 10 (learned)", d.ports[2], h1, h3, 10);
	d.send("h1 -> h3 (now known)", d.ports[0], h3, h1, -1);
	d.send("h2 -> broadcast (vid 20)", d.ports[1], kMacBroadcast, h2, -1);
	d.send("h3 -> h2 tagged 10 (wrong VLAN)", d.ports[2], h2, h3, 10);
	d.send("h3 tagged 30 (not a member)", d.ports[2], h1, h3, 30);
	d.send("h1 -> xbr0's address", d.ports[0], br.addr(), h1, -1);
	d.send("h1 -> 01:80:c2:00:00:0e (LLDP)", d.ports[0], 0x00000e0000c28001ull, h1, -1);
	d.send("h1 -> 01:80:c2:00:00:01 (pause)", d.ports[0], 0x0000010000c28001ull, h1, -1);
	d.show_fdb();

	printf("\n  sizeof(FdbEntry) = %zu, sizeof(PortVlan) = %zu\n", sizeof(FdbEntry),
	       sizeof(PortVlan));
	Bridge::destroy(d.br);
	return 0;
}
