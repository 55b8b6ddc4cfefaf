// cmd_vlan.cc - see cmd_vlan.h.
#include "cmd_vlan.h"

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <algorithm>
#include <map>
#include <vector>

#include "../../netlink/xbridge.h"
#include "context.h"
#include "errors.h"
#include "objects.h"

namespace xbridge {

const char vlan_usage[] =
	"Usage: xbridge vlan { add | del } vid VLAN_ID[-VLAN_END] dev DEV\n"
	"                                  [ pvid ] [ untagged ] [ self ] [ master ]\n"
	"       xbridge vlan set vid VLAN_ID[-VLAN_END] dev DEV state STP_STATE\n"
	"       xbridge vlan [ show ] [ dev DEV ] [ vid VLAN_ID ]\n";

static void take_vid(Args &a, const std::string &w, uint16_t &vid, uint16_t &end)
{
	if (vid)
		duparg("vid", a.peek());
	auto r = parse_vid_range(a.value(w));
	vid = r.first;
	end = r.second;
}

VlanModify parse_vlan_modify(bool del, Args &a)
{
	VlanModify r;
	r.del = del;
	parse_keywords(a, vlan_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{"vid", [&](const std::string &w) { take_vid(a, w, r.vid, r.vid_end); }},
		{"self", [&](const std::string &) { r.self = true; }},
		{"master", [&](const std::string &) { r.master = true; }},
		{"pvid", [&](const std::string &) { r.flags |= XBRIDGE_VLAN_F_PVID; }},
		{"untagged", [&](const std::string &) { r.flags |= XBRIDGE_VLAN_F_UNTAGGED; }},
		{"tunnel_info", unsupported_word},
	});
	if (r.dev.empty() || !r.vid)
		throw UsageError("Device and VLAN ID are required arguments.");
	if ((r.flags & XBRIDGE_VLAN_F_PVID) && r.vid != r.vid_end)
		throw UsageError("Error: pvid cannot be set on a VLAN range.");
	return r;
}

VlanSet parse_vlan_set(Args &a)
{
	VlanSet r;
	parse_keywords(a, vlan_usage, {
		{"dev", [&](const std::string &w) { r.dev = a.value(w); }},
		{"vid", [&](const std::string &w) { take_vid(a, w, r.vid, r.vid_end); }},
		{"state", [&](const std::string &w) { r.state = parse_port_state(a.value(w)); }},
		// accepted as by `bridge vlan set`; the device decides
		{"self|master", [](const std::string &) {}},
		{"mcast_router|neigh_suppress", unsupported_word},
	});
	if (r.dev.empty() || !r.vid)
		throw UsageError("Device and VLAN ID are required arguments.");
	if (!r.state)
		throw UsageError("Error: nothing to set: give \"state STP_STATE\".");
	return r;
}

VlanShow parse_vlan_show(Args &a)
{
	VlanShow r;
	parse_keywords(a, vlan_usage, {
		{"dev", [&](const std::string &w) { value_once(a, w, r.dev); }},
		{"vid", [&](const std::string &w) { vid_once(a, w, r.vid); }},
	});
	return r;
}

static void vlan_nest(nl_msg *m, uint32_t port, uint16_t vid, uint16_t end)
{
	nla_put_u32(m, XBRIDGE_VLAN_PORT_IFINDEX, port);
	nla_put_u16(m, XBRIDGE_VLAN_VID, vid);
	if (end != vid)
		nla_put_u16(m, XBRIDGE_VLAN_VID_END, end);
}

static int vlan_modify(Context &c, const VlanModify &r)
{
	PortRef p = c.resolve_port(r.dev);
	NlMsg m = c.genl().request(r.del ? XBRIDGE_CMD_VLAN_DEL : XBRIDGE_CMD_VLAN_NEW);
	nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_VLAN);
	vlan_nest(m.get(), p.port, r.vid, r.vid_end);
	if (!r.del)
		nla_put_u16(m.get(), XBRIDGE_VLAN_FLAGS, r.flags);
	nla_nest_end(m.get(), n);
	c.genl().run(m.get());
	return 0;
}

static int vlan_set(Context &c, const VlanSet &r)
{
	PortRef p = c.resolve_port(r.dev);
	NlMsg m = c.genl().request(XBRIDGE_CMD_VLAN_SET);
	nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, p.bridge);
	nlattr *n = nla_nest_start(m.get(), XBRIDGE_A_VLAN);
	vlan_nest(m.get(), p.port, r.vid, r.vid_end);
	nla_put_u8(m.get(), XBRIDGE_VLAN_STATE, *r.state);
	nla_nest_end(m.get(), n);
	c.genl().run(m.get());
	return 0;
}

static int vlan_show(Context &c, const VlanShow &s)
{
	std::vector<uint32_t> brs;
	uint32_t only = 0;
	if (!s.dev.empty()) {
		PortRef p = c.resolve_port(s.dev);
		brs.push_back(p.bridge);
		only = p.port;
	} else {
		brs = c.bridges();
	}
	std::map<uint32_t, std::vector<VlanEntry>> ports;
	for (uint32_t br : brs) {
		NlMsg m = c.genl().request(XBRIDGE_CMD_VLAN_GET, NLM_F_DUMP);
		nla_put_u32(m.get(), XBRIDGE_A_IFINDEX, br);
		c.genl().run(m.get(), [&](nlmsghdr *nlh) {
			VlanEntry v;
			if (!decode_vlan(nlh, v))
				throw Error("Error: malformed VLAN entry in the kernel's reply", EXIT_DUMP);
			if (v.bridge_ifindex && v.bridge_ifindex != br)
				return;
			if (!v.port_ifindex || (only && v.port_ifindex != only))
				return;
			if (s.vid && (s.vid < v.vid || s.vid > v.vid_end))
				return;
			if (s.vid)
				v.vid = v.vid_end = s.vid;
			ports[v.port_ifindex].push_back(v);
		});
	}
	bool stats = c.opt.stats > 0;
	Printer p = c.printer();
	p.begin_rows();
	print_vlan_header(p, stats);
	for (auto &[port, list] : ports) {
		std::sort(list.begin(), list.end(),
			  [](const VlanEntry &x, const VlanEntry &y) { return x.vid < y.vid; });
		print_vlan_port(p, c.name(port), list, c.opt.compress, stats);
	}
	p.end_rows();
	c.emit(p.take());
	return 0;
}

int do_vlan(Context &c, Args &a)
{
	if (a.done())
		return vlan_show(c, VlanShow{});
	std::string w = a.take();
	if (matches(w, "add"))
		return vlan_modify(c, parse_vlan_modify(false, a));
	if (matches(w, "delete"))
		return vlan_modify(c, parse_vlan_modify(true, a));
	if (matches(w, "show") || matches(w, "lst") || matches(w, "list"))
		return vlan_show(c, parse_vlan_show(a));
	if (matches(w, "set"))
		return vlan_set(c, parse_vlan_set(a));
	if (matches(w, "help"))
		throw UsageError(vlan_usage);
	throw UsageError("Command \"" + w + "\" is unknown, try \"xbridge vlan help\".");
}

}  // namespace xbridge
