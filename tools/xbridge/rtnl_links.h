// rtnl_links.h - the network devices of the current namespace from one
// RTM_GETLINK dump over rtnetlink: name <-> ifindex, master, MTU, flags,
// peer link. Used to resolve DEV words and to print names.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace xbridge {

struct LinkInfo {
	uint32_t ifindex = 0;
	std::string name;
	uint32_t master = 0;
	uint32_t mtu = 0;
	unsigned flags = 0;
	int32_t link = 0;            // IFLA_LINK, 0 when absent
	bool link_netns = false;     // IFLA_LINK_NETNSID present
	std::string kind;            // IFLA_INFO_KIND: "xbridge" for an xbridge
};

class LinkTable {
public:
	void load();                 // dump via rtnetlink
	const LinkInfo *by_index(uint32_t ifindex) const;
	const LinkInfo *by_name(const std::string &name) const;
	// ll_index_to_name(): the name, or "ifN" when unknown.
	std::string name(uint32_t ifindex) const;
	// The ifindex of DEV; throws `Cannot find device "DEV"` (iproute2's nodev).
	uint32_t index(const std::string &dev) const;
	const std::map<uint32_t, LinkInfo> &all() const { return links_; }

private:
	std::map<uint32_t, LinkInfo> links_;
};

}  // namespace xbridge
