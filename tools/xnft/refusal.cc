// refusal.cc - see refusal.h.
#include "refusal.h"

#include <cerrno>
#include <cstring>
#include <linux/netfilter/nf_tables.h>
#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>

#include "printer.h"

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

namespace {

bool same_place(const Location &a, const Location &b)
{
	return a.file == b.file && a.line == b.line && a.first_col == b.first_col &&
	       a.last_col == b.last_col;
}

std::string nul_safe(const char *s)
{
	return s ? s : "";
}

} // namespace

std::string report_item_refusal(const BatchItem &item, int err, const Location &where,
				const std::string &kernel_msg, const CacheNames *cache)
{
	// nft_cmd_error: an ENOENT at an attribute it recorded (not the
	// command's own place) goes to nft_cmd_enoent
	if (err != ENOENT || !cache || !where.valid() || same_place(where, item.cmd_loc))
		return format_refusal({-1, err, -1, kernel_msg}, where);
	Obj obj;
	std::string table, name;
	switch (item.kind) {
	case ItemKind::NewTable:
	case ItemKind::DelTable:
	case ItemKind::FlushTable:
		obj = Obj::Table;
		table = nul_safe(nftnl_table_get_str(item.table, NFTNL_TABLE_NAME));
		break;
	case ItemKind::NewChain:
	case ItemKind::DelChain:
	case ItemKind::FlushChain:
		obj = Obj::Chain;
		table = nul_safe(nftnl_chain_get_str(item.chain, NFTNL_CHAIN_TABLE));
		name = nul_safe(nftnl_chain_get_str(item.chain, NFTNL_CHAIN_NAME));
		break;
	case ItemKind::NewRule:
	case ItemKind::DelRule:
		obj = Obj::Rule;
		table = nul_safe(nftnl_rule_get_str(item.rule, NFTNL_RULE_TABLE));
		name = nul_safe(nftnl_rule_get_str(item.rule, NFTNL_RULE_CHAIN));
		break;
	case ItemKind::NewSet:
	case ItemKind::DelSet:
	case ItemKind::FlushSet:
		obj = Obj::Set;
		table = nul_safe(nftnl_set_get_str(item.set, NFTNL_SET_TABLE));
		name = nul_safe(nftnl_set_get_str(item.set, NFTNL_SET_NAME));
		break;
	case ItemKind::NewObj:
	case ItemKind::DelObj:
		obj = Obj::Counter;
		table = nul_safe(nftnl_obj_get_str(item.obj, NFTNL_OBJ_TABLE));
		name = nul_safe(nftnl_obj_get_str(item.obj, NFTNL_OBJ_NAME));
		break;
	case ItemKind::NewFlowtable:
	case ItemKind::DelFlowtable:
		obj = Obj::Flowtable;
		table = nul_safe(nftnl_flowtable_get_str(item.flowtable, NFTNL_FLOWTABLE_TABLE));
		name = nul_safe(nftnl_flowtable_get_str(item.flowtable, NFTNL_FLOWTABLE_NAME));
		break;
	default:	/* elements: nft_cmd_enoent has no words of its own */
		return format_refusal({-1, err, -1, kernel_msg}, where);
	}
	if (obj == Obj::Table ? table.empty() : name.empty())
		return format_refusal({-1, err, -1, kernel_msg}, where);
	const KernelNotFound k = kernel_not_found(*cache, obj, family_name(item.family), table, name);
	return format_error(LangError(k.at_table && item.table_loc.valid() ? item.table_loc : where,
				      k.message));
}

std::string report_refusal(const Refusal &r, const Batch &batch, const std::vector<WireMsg> &wire,
			   const CacheNames *cache)
{
	const bool known = r.index >= 0 && size_t(r.index) < batch.items().size() &&
			   size_t(r.index) < wire.size();
	if (!known)
		return format_refusal(r, Location{});
	const BatchItem &item = batch.items()[size_t(r.index)];
	return report_item_refusal(item, r.err,
				   refusal_location(item, wire[size_t(r.index)], r.attr_offset), r.msg,
				   cache);
}

} // namespace xnft
