// cmd_monitor.h - `xbridge monitor [fdb|vlan|link|all]`: print the family's
// notifications as `bridge monitor` prints neighbour/VLAN/link events.
#pragma once
#include "args.h"

namespace xbridge {

class Context;

struct MonitorWhat {
	bool fdb = false, vlan = false, link = false, ct = false, banner = false;
};
MonitorWhat parse_monitor(Args &a);
int do_monitor(Context &c, Args &a);

}  // namespace xbridge
