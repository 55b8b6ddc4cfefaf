// rtnl_links.cc - see rtnl_links.h.
#include "rtnl_links.h"

#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <cstring>

#include "errors.h"
#include "genl_client.h"

namespace xbridge {

void LinkTable::load()
{
	links_.clear();
	NlSock sk = open_nl_socket(NETLINK_ROUTE);
	NlMsg m(nlmsg_alloc_simple(RTM_GETLINK, NLM_F_DUMP));
	ifinfomsg ifi{};
	ifi.ifi_family = AF_UNSPEC;
	if (!m || nlmsg_append(m.get(), &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0)
		throw Error("Cannot allocate a netlink message");
	nl_transact(sk.get(), m.get(), [this](nlmsghdr *nlh) {
		if (nlh->nlmsg_type != RTM_NEWLINK || !nlmsg_valid_hdr(nlh, sizeof(ifinfomsg)))
			return;
		auto *i = static_cast<ifinfomsg *>(nlmsg_data(nlh));
		nlattr *tb[IFLA_MAX + 1];
		if (nlmsg_parse(nlh, sizeof(ifinfomsg), tb, IFLA_MAX, nullptr) < 0)
			return;
		LinkInfo l;
		l.ifindex = static_cast<uint32_t>(i->ifi_index);
		l.flags = i->ifi_flags;
		if (tb[IFLA_IFNAME]) {
			const char *s = static_cast<const char *>(nla_data(tb[IFLA_IFNAME]));
			l.name.assign(s, strnlen(s, nla_len(tb[IFLA_IFNAME])));
		}
		if (tb[IFLA_MASTER] && nla_len(tb[IFLA_MASTER]) >= 4)
			l.master = nla_get_u32(tb[IFLA_MASTER]);
		if (tb[IFLA_MTU] && nla_len(tb[IFLA_MTU]) >= 4)
			l.mtu = nla_get_u32(tb[IFLA_MTU]);
		if (tb[IFLA_LINK] && nla_len(tb[IFLA_LINK]) >= 4)
			l.link = static_cast<int32_t>(nla_get_u32(tb[IFLA_LINK]));
		l.link_netns = tb[IFLA_LINK_NETNSID] != nullptr;
		nlattr *li[IFLA_INFO_MAX + 1];
		if (tb[IFLA_LINKINFO] &&
		    nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], nullptr) == 0 &&
		    li[IFLA_INFO_KIND]) {
			const char *s = static_cast<const char *>(nla_data(li[IFLA_INFO_KIND]));
			l.kind.assign(s, strnlen(s, nla_len(li[IFLA_INFO_KIND])));
		}
		links_[l.ifindex] = l;
	});
}

const LinkInfo *LinkTable::by_index(uint32_t ifindex) const
{
	auto it = links_.find(ifindex);
	return it == links_.end() ? nullptr : &it->second;
}

const LinkInfo *LinkTable::by_name(const std::string &name) const
{
	for (const auto &[i, l] : links_)
		if (l.name == name)
			return &l;
	return nullptr;
}

std::string LinkTable::name(uint32_t ifindex) const
{
	const LinkInfo *l = by_index(ifindex);
	return l ? l->name : "if" + std::to_string(ifindex);
}

uint32_t LinkTable::index(const std::string &dev) const
{
	const LinkInfo *l = by_name(dev);
	if (!l)
		throw UsageError("Cannot find device \"" + dev + "\"");
	return l->ifindex;
}

}  // namespace xbridge
