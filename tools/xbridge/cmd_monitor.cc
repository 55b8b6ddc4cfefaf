// cmd_monitor.cc - see cmd_monitor.h.
#include "cmd_monitor.h"

#include <linux/netlink.h>

#include "../../netlink/xbridge.h"
#include "cmd_ct.h"
#include "context.h"
#include "errors.h"
#include "objects.h"

namespace xbridge {

MonitorWhat parse_monitor(Args &a)
{
	MonitorWhat w;
	bool any = false;
	while (!a.done()) {
		std::string x = a.take();
		if (matches(x, "fdb") || matches(x, "neigh"))
			w.fdb = any = true;
		else if (matches(x, "vlan"))
			w.vlan = any = true;
		else if (matches(x, "link"))
			w.link = any = true;
		else if (x == "ct" || matches(x, "conntrack"))
			w.ct = any = true;
		else if (matches(x, "all"))
			w.fdb = w.vlan = w.link = w.ct = w.banner = any = true;
		else if (x == "mdb" || x == "stats")
			throw UsageError("Error: monitoring \"" + x + "\" is not supported by xbridge.");
		else if (matches(x, "help"))
			throw UsageError("Usage: xbridge monitor [file | link | fdb | vlan | ct | all]");
		else
			throw UsageError("Argument \"" + x + "\" is unknown, try \"xbridge monitor help\".");
	}
	if (!any)
		w.fdb = w.vlan = w.link = true;
	return w;
}

int do_monitor(Context &c, Args &a)
{
	MonitorWhat w = parse_monitor(a);
	GenlClient &g = c.genl();
	c.links();
	FdbFormat f;
	f.monitor = true;
	f.stats = c.opt.stats > 0;
	g.monitor([&](nlmsghdr *nlh) {
		Printer p = c.printer();
		switch (genl_cmd_of(nlh)) {
		case XBRIDGE_CMD_FDB_GET:
		case XBRIDGE_CMD_FDB_NEW:
		case XBRIDGE_CMD_FDB_DEL: {
			if (!w.fdb)
				return;
			FdbEntry e;
			if (!decode_fdb(nlh, e)) {
				fprintf(stderr, "xbridge monitor: malformed FDB notification\n");
				return;
			}
			e.deleted = genl_cmd_of(nlh) == XBRIDGE_CMD_FDB_DEL;
			if (w.banner)
				p.text("[NEIGH]");
			print_fdb(p, e, f, c.namer());
			break;
		}
		case XBRIDGE_CMD_VLAN_GET:
		case XBRIDGE_CMD_VLAN_NEW:
		case XBRIDGE_CMD_VLAN_DEL: {
			if (!w.vlan)
				return;
			VlanEntry v;
			if (!decode_vlan(nlh, v)) {
				fprintf(stderr, "xbridge monitor: malformed VLAN notification\n");
				return;
			}
			v.deleted = genl_cmd_of(nlh) == XBRIDGE_CMD_VLAN_DEL;
			if (w.banner)
				p.text("[VLAN]");
			print_vlan_event(p, c.name(v.port_ifindex), v);
			break;
		}
		case XBRIDGE_CMD_PORT_GET:
		case XBRIDGE_CMD_PORT_SET: {
			if (!w.link)
				return;
			PortInfo pi;
			if (!decode_port(nlh, pi) || !pi.ifindex) {
				fprintf(stderr, "xbridge monitor: malformed port notification\n");
				return;
			}
			if (w.banner)
				p.text("[LINK]");
			LinkRow r;
			r.ifindex = pi.ifindex;
			r.ifname = pi.ifname.empty() ? c.name(pi.ifindex) : pi.ifname;
			if (const LinkInfo *l = c.links().by_index(pi.ifindex)) {
				r.flags = l->flags;
				r.mtu = l->mtu;
			}
			if (pi.bridge_ifindex)
				r.master = c.name(pi.bridge_ifindex);
			r.state = pi.state;
			r.port = &pi;
			print_link(p, r, c.opt.details);
			break;
		}
		case XBRIDGE_CMD_CT_GET:
		case XBRIDGE_CMD_CT_DEL: {
			if (!w.ct)
				return;
			CtRow r;
			if (!decode_ct(nlh, r)) {
				fprintf(stderr, "xbridge monitor: malformed conntrack event\n");
				return;
			}
			/* ctnetlink's: a new connection comes with NLM_F_CREATE */
			const CtEventKind kind = genl_cmd_of(nlh) == XBRIDGE_CMD_CT_DEL ?
							 CtEventKind::Destroy :
						 (nlh->nlmsg_flags & NLM_F_CREATE) ? CtEventKind::New :
										     CtEventKind::Update;
			print_ct_event(p, r, c.name(r.bridge_ifindex), kind, c.opt.stats > 0);
			break;
		}
		default:
			return;
		}
		if (p.json())
			p.buf() += '\n';
		c.emit(p.take());
	}, w.fdb || w.vlan || w.link, w.ct);
}

}  // namespace xbridge
