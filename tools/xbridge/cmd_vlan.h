// cmd_vlan.h - `xbridge vlan`: add/del/set/show.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "args.h"

namespace xbridge {

class Context;

struct VlanModify {
	bool del = false;
	uint16_t vid = 0, vid_end = 0;
	std::string dev;
	uint16_t flags = 0;  // XBRIDGE_VLAN_F_*
	bool self = false, master = false;
};
VlanModify parse_vlan_modify(bool del, Args &a);

struct VlanSet {
	std::string dev;
	uint16_t vid = 0, vid_end = 0;
	std::optional<uint8_t> state;
};
VlanSet parse_vlan_set(Args &a);

struct VlanShow {
	std::string dev;
	uint16_t vid = 0;
};
VlanShow parse_vlan_show(Args &a);

int do_vlan(Context &c, Args &a);
extern const char vlan_usage[];

}  // namespace xbridge
