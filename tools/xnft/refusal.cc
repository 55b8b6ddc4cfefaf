// refusal.cc - see refusal.h.
#include "refusal.h"

#include <cstring>
#include <linux/netfilter/nf_tables.h>

namespace xnft {

namespace {

constexpr uint16_t kTypeMask = 0x3fff;  // less NLA_F_NESTED, NLA_F_NET_BYTEORDER

// The attribute of the list at @base (@len bytes) that holds @offset (its
// header or its payload): its type, its place in the list, its payload.
struct Found {
	uint16_t type = 0;
	int place = -1;
	size_t payload = 0, payload_len = 0;
};

Found attribute_at(const uint8_t *base, size_t len, size_t offset)
{
	Found f;
	size_t at = 0;
	for (int place = 0; at + 4 <= len; place++) {
		uint16_t alen, type;
		memcpy(&alen, base + at, 2);
		memcpy(&type, base + at + 2, 2);
		if (alen < 4 || at + alen > len)
			break;
		if (offset >= at && offset < at + alen) {
			f.type = type & kTypeMask;
			f.place = place;
			f.payload = at + 4;
			f.payload_len = alen - 4u;
			return f;
		}
		at += (alen + 3u) & ~3u;
	}
	return f;
}

// The location nft recorded for attribute @type of a message of @msg_type.
const Location *attribute_location(const BatchItem &i, uint16_t msg_type, uint16_t type)
{
	switch (msg_type) {
	case NFT_MSG_NEWTABLE:
	case NFT_MSG_DELTABLE:
		if (type == NFTA_TABLE_NAME)
			return &i.table_loc;
		if (type == NFTA_TABLE_HANDLE)
			return &i.handle_loc;
		break;
	case NFT_MSG_NEWCHAIN:
	case NFT_MSG_DELCHAIN:
		if (type == NFTA_CHAIN_TABLE)
			return &i.table_loc;
		if (type == NFTA_CHAIN_NAME)
			return &i.name_loc;
		if (type == NFTA_CHAIN_HANDLE)
			return &i.handle_loc;
		break;
	case NFT_MSG_NEWRULE:
	case NFT_MSG_DELRULE:
		if (type == NFTA_RULE_TABLE)
			return &i.table_loc;
		if (type == NFTA_RULE_CHAIN)
			return &i.name_loc;
		if (type == NFTA_RULE_HANDLE || type == NFTA_RULE_POSITION ||
		    type == NFTA_RULE_POSITION_ID || type == NFTA_RULE_ID)
			return &i.ref_loc;
		break;
	case NFT_MSG_NEWSET:
	case NFT_MSG_DELSET:
		if (type == NFTA_SET_TABLE)
			return &i.table_loc;
		if (type == NFTA_SET_NAME)
			return &i.name_loc;
		if (type == NFTA_SET_HANDLE)
			return &i.handle_loc;
		break;
	case NFT_MSG_NEWSETELEM:
	case NFT_MSG_DELSETELEM:
		if (type == NFTA_SET_ELEM_LIST_TABLE)
			return &i.table_loc;
		if (type == NFTA_SET_ELEM_LIST_SET)
			return &i.name_loc;
		break;
	case NFT_MSG_NEWFLOWTABLE:
	case NFT_MSG_DELFLOWTABLE:
		if (type == NFTA_FLOWTABLE_TABLE)
			return &i.table_loc;
		if (type == NFTA_FLOWTABLE_NAME)
			return &i.name_loc;
		if (type == NFTA_FLOWTABLE_HANDLE)
			return &i.handle_loc;
		break;
	case NFT_MSG_NEWOBJ:
	case NFT_MSG_DELOBJ:
		if (type == NFTA_OBJ_TABLE)
			return &i.table_loc;
		if (type == NFTA_OBJ_NAME)
			return &i.name_loc;
		if (type == NFTA_OBJ_HANDLE)
			return &i.handle_loc;
		break;
	}
	return nullptr;
}

} // namespace

Location refusal_location(const BatchItem &item, const WireMsg &msg, int attr_offset)
{
	if (attr_offset >= 0) {
		const uint8_t *base = msg.attrs.data();
		const Found top = attribute_at(base, msg.attrs.size(), size_t(attr_offset));
		if (top.place >= 0) {
			const bool elements = (msg.type == NFT_MSG_NEWSETELEM ||
					       msg.type == NFT_MSG_DELSETELEM) &&
					      top.type == NFTA_SET_ELEM_LIST_ELEMENTS;
			if (elements && size_t(attr_offset) >= top.payload) {
				const Found e = attribute_at(base + top.payload, top.payload_len,
							     size_t(attr_offset) - top.payload);
				if (e.place >= 0 && size_t(e.place) < item.elem_locs.size() &&
				    item.elem_locs[size_t(e.place)].valid())
					return item.elem_locs[size_t(e.place)];
			}
			const Location *l = attribute_location(item, msg.type, top.type);
			if (l && l->valid())
				return *l;
		}
	}
	return item.cmd_loc;
}

std::string format_refusal(const Refusal &r, const Location &where)
{
	const std::string what = std::string("Could not process rule: ") + strerror(r.err);
	if (where.valid())
		return format_error(LangError(where, what));
	std::string out = "Error: " + what + "\n";
	if (!r.msg.empty())
		out += "  " + r.msg + "\n";
	return out;
}

std::string report_refusal(const Refusal &r, const Batch &batch, const std::vector<WireMsg> &wire)
{
	const bool known = r.index >= 0 && size_t(r.index) < batch.items().size() &&
			   size_t(r.index) < wire.size();
	return format_refusal(r, known ? refusal_location(batch.items()[size_t(r.index)],
							  wire[size_t(r.index)], r.attr_offset)
				       : Location{});
}

} // namespace xnft
