// wire.cc - Batch items to nf_tables requests (see wire.h).
#include "wire.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

namespace xnft {

namespace {

// A message is built in a buffer of this size: nft's own batch pages are
// as large, and one rule or element list fits.
constexpr size_t kMsgBuf = 1 << 20;

WireMsg finish(const nlmsghdr *h, uint16_t type, uint16_t flags, uint32_t family)
{
	const size_t hdr = NLMSG_HDRLEN + MNL_ALIGN(sizeof(nfgenmsg));
	const auto *p = reinterpret_cast<const uint8_t *>(h);
	WireMsg m{type, flags, family, {}};
	m.attrs.assign(p + hdr, p + h->nlmsg_len);
	return m;
}

// A request of only a table name (and a chain or set name): nft's flushes.
WireMsg names_only(uint16_t type, uint16_t flags, uint32_t family, uint16_t table_attr,
		   const char *table, uint16_t second_attr, const char *second)
{
	std::vector<char> buf(kMsgBuf);
	nlmsghdr *h = nftnl_nlmsg_build_hdr(buf.data(), type, static_cast<uint16_t>(family), flags, 0);
	mnl_attr_put_strz(h, table_attr, table);
	if (second)
		mnl_attr_put_strz(h, second_attr, second);
	return finish(h, type, flags, family);
}

} // namespace

std::vector<WireMsg> encode_batch(const Batch &batch)
{
	std::vector<WireMsg> out;
	std::vector<char> buf(kMsgBuf);
	for (const BatchItem &i : batch.items()) {
		const uint16_t fam = static_cast<uint16_t>(i.family);
		auto hdr = [&](uint16_t type) {
			return nftnl_nlmsg_build_hdr(buf.data(), type, fam, i.nlflags, 0);
		};
		nlmsghdr *h;
		uint16_t type;
		switch (i.kind) {
		case ItemKind::NewTable:
		case ItemKind::DelTable:
			type = i.kind == ItemKind::NewTable ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE;
			h = hdr(type);
			nftnl_table_nlmsg_build_payload(h, i.table);
			break;
		case ItemKind::FlushTable:
			out.push_back(names_only(NFT_MSG_DELRULE, i.nlflags, i.family, NFTA_RULE_TABLE,
						 nftnl_table_get_str(i.table, NFTNL_TABLE_NAME), 0,
						 nullptr));
			continue;
		case ItemKind::NewChain:
		case ItemKind::DelChain:
			type = i.kind == ItemKind::NewChain ? NFT_MSG_NEWCHAIN : NFT_MSG_DELCHAIN;
			h = hdr(type);
			nftnl_chain_nlmsg_build_payload(h, i.chain);
			break;
		case ItemKind::FlushChain:
			out.push_back(names_only(NFT_MSG_DELRULE, i.nlflags, i.family, NFTA_RULE_TABLE,
						 nftnl_chain_get_str(i.chain, NFTNL_CHAIN_TABLE),
						 NFTA_RULE_CHAIN,
						 nftnl_chain_get_str(i.chain, NFTNL_CHAIN_NAME)));
			continue;
		case ItemKind::NewRule:
		case ItemKind::DelRule:
			type = i.kind == ItemKind::NewRule ? NFT_MSG_NEWRULE : NFT_MSG_DELRULE;
			h = hdr(type);
			nftnl_rule_nlmsg_build_payload(h, i.rule);
			break;
		case ItemKind::NewSet:
		case ItemKind::DelSet:
			type = i.kind == ItemKind::NewSet ? NFT_MSG_NEWSET : NFT_MSG_DELSET;
			h = hdr(type);
			nftnl_set_nlmsg_build_payload(h, i.set);
			break;
		case ItemKind::FlushSet:
			out.push_back(names_only(NFT_MSG_DELSETELEM, i.nlflags, i.family,
						 NFTA_SET_ELEM_LIST_TABLE,
						 nftnl_set_get_str(i.set, NFTNL_SET_TABLE),
						 NFTA_SET_ELEM_LIST_SET,
						 nftnl_set_get_str(i.set, NFTNL_SET_NAME)));
			continue;
		case ItemKind::NewSetElems:
		case ItemKind::DelSetElems: {
			// As many messages as the elements need: a netlink attribute
			// (the element list) holds at most 64 KiB, as nft splits them.
			type = i.kind == ItemKind::NewSetElems ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM;
			nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(i.set);
			int more;
			do {
				h = hdr(type);
				more = nftnl_set_elems_nlmsg_build_payload_iter(h, it);
				out.push_back(finish(h, type, i.nlflags, i.family));
			} while (more > 0);
			nftnl_set_elems_iter_destroy(it);
			continue;
		}
		case ItemKind::NewFlowtable:
		case ItemKind::DelFlowtable:
			type = i.kind == ItemKind::NewFlowtable ? NFT_MSG_NEWFLOWTABLE
								: NFT_MSG_DELFLOWTABLE;
			h = hdr(type);
			nftnl_flowtable_nlmsg_build_payload(h, i.flowtable);
			break;
		case ItemKind::FlushRuleset:
			type = NFT_MSG_DELTABLE;
			h = hdr(type);
			break;
		default:
			continue;
		}
		out.push_back(finish(h, type, i.nlflags, i.family));
	}
	return out;
}

} // namespace xnft
