// wire.cc - Batch items to nf_tables requests (see wire.h).
#include "wire.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <algorithm>
#include <cstddef>

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

// The xbridge family carries a message's attributes in one netlink
// attribute (XBRIDGE_NFT_ATTRS inside XBRIDGE_A_NFT_MSG), whose length is
// 16 bits: an element list may fill at most this much of it. libnftnl
// splits element lists only where its own 64 KiB nest would overflow, and
// the table and set names come on top of that.
constexpr size_t kMaxElemAttrs = 60000;

// Append @m to @out, split into several messages of the same non-element
// attributes (table, set, set id) when its element list makes it larger
// than kMaxElemAttrs: each takes as many whole elements as fit.
void push_elems(std::vector<WireMsg> &out, WireMsg m)
{
	if (m.attrs.size() <= kMaxElemAttrs) {
		out.push_back(std::move(m));
		return;
	}
	std::vector<uint8_t> head;
	const uint8_t *elems = nullptr;
	size_t elems_len = 0;
	const uint8_t *p = m.attrs.data(), *end = p + m.attrs.size();
	while (end - p >= static_cast<ptrdiff_t>(sizeof(nlattr))) {
		const auto *a = reinterpret_cast<const nlattr *>(p);
		if (a->nla_len < sizeof(nlattr) || a->nla_len > end - p)
			break;
		const size_t total = std::min<size_t>(MNL_ALIGN(a->nla_len), static_cast<size_t>(end - p));
		if ((a->nla_type & NLA_TYPE_MASK) == NFTA_SET_ELEM_LIST_ELEMENTS) {
			elems = p + MNL_ATTR_HDRLEN;
			elems_len = a->nla_len - MNL_ATTR_HDRLEN;
		} else {
			head.insert(head.end(), p, p + total);
		}
		p += total;
	}
	if (!elems) {
		out.push_back(std::move(m));
		return;
	}
	WireMsg part{m.type, m.flags, m.family, {}};
	auto flush = [&](const uint8_t *from, size_t len) {
		part.attrs = head;
		nlattr nest{static_cast<uint16_t>(MNL_ATTR_HDRLEN + len),
			    static_cast<uint16_t>(NFTA_SET_ELEM_LIST_ELEMENTS | NLA_F_NESTED)};
		const auto *n = reinterpret_cast<const uint8_t *>(&nest);
		part.attrs.insert(part.attrs.end(), n, n + sizeof(nest));
		part.attrs.insert(part.attrs.end(), from, from + len);
		out.push_back(part);
	};
	const uint8_t *start = elems, *q = elems, *stop = elems + elems_len;
	while (stop - q >= static_cast<ptrdiff_t>(sizeof(nlattr))) {
		const auto *a = reinterpret_cast<const nlattr *>(q);
		if (a->nla_len < sizeof(nlattr) || a->nla_len > stop - q)
			break;
		const size_t total = std::min<size_t>(MNL_ALIGN(a->nla_len), static_cast<size_t>(stop - q));
		if (q > start && head.size() + MNL_ATTR_HDRLEN + (q - start) + total > kMaxElemAttrs) {
			flush(start, static_cast<size_t>(q - start));
			start = q;
		}
		q += total;
	}
	flush(start, static_cast<size_t>(stop - start));
}

} // namespace

std::vector<WireMsg> encode_batch(const Batch &batch)
{
	std::vector<WireMsg> out;
	std::vector<char> buf(kMsgBuf);
	const nlmsghdr *last = nullptr;
	for (const BatchItem &i : batch.items()) {
		const uint16_t fam = static_cast<uint16_t>(i.family);
		// The buffer is zeroed again where the previous message was: libmnl
		// leaves an attribute's padding as it finds it, where nft's batch
		// pages hold zeros (a "limit" name's padding would carry the end
		// of an earlier message's attribute).
		auto hdr = [&](uint16_t type) {
			if (last)
				std::fill(buf.begin(), buf.begin() + std::min<size_t>(last->nlmsg_len, buf.size()), 0);
			nlmsghdr *h = nftnl_nlmsg_build_hdr(buf.data(), type, fam, i.nlflags, 0);
			last = h;
			return h;
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
			// (the element list) holds at most 64 KiB, as nft splits them,
			// and the family's carrier a little less (push_elems).
			// None at all for no elements (a meter's empty set),
			// as nft's mnl_nft_setelem_batch sends none then.
			type = i.kind == ItemKind::NewSetElems ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM;
			nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(i.set);
			if (!nftnl_set_elems_iter_cur(it)) {
				nftnl_set_elems_iter_destroy(it);
				continue;
			}
			int more;
			do {
				h = hdr(type);
				more = nftnl_set_elems_nlmsg_build_payload_iter(h, it);
				push_elems(out, finish(h, type, i.nlflags, i.family));
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
		case ItemKind::NewObj:
		case ItemKind::DelObj:
			type = i.kind == ItemKind::NewObj ? NFT_MSG_NEWOBJ : NFT_MSG_DELOBJ;
			h = hdr(type);
			nftnl_obj_nlmsg_build_payload(h, i.obj);
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
