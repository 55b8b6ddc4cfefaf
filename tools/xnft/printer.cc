// printer.cc - nft's `list` format (see printer.h).
#include "printer.h"

#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge.h>

#include "compiler.h"

namespace xnft {

static std::string str(const char *s) { return s ? s : ""; }

static std::string family_name(uint32_t f)
{
	switch (f) {
	case NFPROTO_IPV4: return "ip";
	case NFPROTO_IPV6: return "ip6";
	case NFPROTO_INET: return "inet";
	case NFPROTO_ARP: return "arp";
	case NFPROTO_BRIDGE: return "bridge";
	case NFPROTO_NETDEV: return "netdev";
	default: return "unknown";
	}
}

static std::string handle_comment(const PrintOptions &o, uint64_t h)
{
	return o.handles ? " # handle " + std::to_string(h) : "";
}

static std::string userdata_comment(const void *ud, uint32_t len)
{
	const uint8_t *u = static_cast<const uint8_t *>(ud);
	size_t at = 0;
	while (u && at + 2 <= len) {
		uint8_t type = u[at], l = u[at + 1];
		if (at + 2 + l > len)
			break;
		if (type == 0 && l > 0)
			return std::string(reinterpret_cast<const char *>(u + at + 2), l - 1);
		at += 2 + l;
	}
	return "";
}

// nft prints a priority as a standard name when it is within 10 of one.
static std::string priority_text(int32_t prio, bool bridge_chain)
{
	struct Std {
		int32_t v;
		const char *n;
	};
	static const Std bridge[] = {{-300, "dstnat"}, {-200, "filter"}, {100, "out"}, {300, "srcnat"}};
	static const Std netdev[] = {{0, "filter"}};
	const Std *tbl = bridge_chain ? bridge : netdev;
	size_t n = bridge_chain ? 4 : 1;
	for (size_t i = 0; i < n; i++) {
		int32_t off = prio - tbl[i].v;
		if (off == 0)
			return tbl[i].n;
		if (off > 0 && off <= 10)
			return std::string(tbl[i].n) + " + " + std::to_string(off);
		if (off < 0 && off >= -10)
			return std::string(tbl[i].n) + " - " + std::to_string(-off);
	}
	return std::to_string(prio);
}

static std::string hook_name(uint32_t h)
{
	switch (h) {
	case NF_BR_PRE_ROUTING: return "prerouting";
	case NF_BR_LOCAL_IN: return "input";
	case NF_BR_FORWARD: return "forward";
	case NF_BR_LOCAL_OUT: return "output";
	case NF_BR_POST_ROUTING: return "postrouting";
	default: return std::to_string(h);
	}
}

static std::string print_set(nftnl_set *s, const PrintOptions &o)
{
	uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	bool is_map = flags & NFT_SET_MAP;
	std::string out = "\t" + std::string(is_map ? "map " : "set ") +
			  str(nftnl_set_get_str(s, NFTNL_SET_NAME)) + " {" +
			  handle_comment(o, nftnl_set_get_u64(s, NFTNL_SET_HANDLE)) + "\n";
	auto keys = keyparts_of_set(s);
	std::string type;
	for (auto &k : keys)
		type += (type.empty() ? "" : " . ") + std::string(k.type->name);
	KeyPart data{};
	bool verdict = false;
	if (is_map) {
		uint32_t dt = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
		if (dt == NFT_DATA_VERDICT) {
			verdict = true;
			type += " : verdict";
		} else {
			const DataType &d = datatype(static_cast<TypeId>(dt));
			uint32_t dl = nftnl_set_get_u32(s, NFTNL_SET_DATA_LEN);
			data = KeyPart{&d, dl * 8, d.order, dl};
			type += " : " + std::string(d.name);
		}
	}
	out += "\t\ttype " + type + "\n";
	std::string fl;
	if (flags & NFT_SET_CONSTANT) fl += ",constant";
	if (flags & NFT_SET_INTERVAL) fl += ",interval";
	if ((flags & NFT_SET_TIMEOUT) && !nftnl_set_is_set(s, NFTNL_SET_TIMEOUT)) fl += ",timeout";
	if (flags & NFT_SET_EVAL) fl += ",dynamic";
	if (!fl.empty())
		out += "\t\tflags " + fl.substr(1) + "\n";
	if (nftnl_set_is_set(s, NFTNL_SET_TIMEOUT))
		out += "\t\ttimeout " + format_value(datatype(TYPE_TIME), 64, ByteOrder::Host,
						     [&] {
							     uint64_t v = nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT);
							     Bytes b(8);
							     for (int i = 0; i < 8; i++)
								     b[i] = static_cast<uint8_t>(v >> (8 * i));
							     return b;
						     }()) + "\n";
	if (nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE) && !(flags & NFT_SET_CONSTANT))
		out += "\t\tsize " + std::to_string(nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE)) + "\n";
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	bool any = nftnl_set_elems_iter_next(it) != nullptr;
	nftnl_set_elems_iter_destroy(it);
	if (any)
		out += "\t\telements = " + format_elements(s, {}, is_map && !verdict ? &data : nullptr, verdict) + "\n";
	return out + "\t}\n";
}

static std::string print_flowtable(nftnl_flowtable *f, const PrintOptions &o)
{
	std::string out = "\tflowtable " + str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME)) + " {" +
			  handle_comment(o, nftnl_flowtable_get_u64(f, NFTNL_FLOWTABLE_HANDLE)) + "\n";
	out += "\t\thook ingress priority " +
	       priority_text(static_cast<int32_t>(nftnl_flowtable_get_u32(f, NFTNL_FLOWTABLE_PRIO)), false) + "\n";
	if (nftnl_flowtable_is_set(f, NFTNL_FLOWTABLE_DEVICES)) {
		const char *const *devs = nftnl_flowtable_get_array(f, NFTNL_FLOWTABLE_DEVICES);
		std::vector<std::string> names;
		for (size_t i = 0; devs && devs[i]; i++)
			names.push_back(devs[i]);
		std::string d;
		if (names.size() == 1) {
			d = names[0];
		} else {
			for (auto it = names.rbegin(); it != names.rend(); ++it)
				d += (d.empty() ? "" : ", ") + *it;
			d = "{ " + d + " }";
		}
		out += "\t\tdevices = " + d + "\n";
	}
	if (nftnl_flowtable_get_u32(f, NFTNL_FLOWTABLE_FLAGS) & NFT_FLOWTABLE_COUNTER)
		out += "\t\tcounter\n";
	return out + "\t}\n";
}

static std::string print_chain(nftnl_chain *c, const ModelTable &t, const PrintOptions &o)
{
	std::string name = str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
	std::string out = "\tchain " + name + " {" + handle_comment(o, nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE)) + "\n";
	uint32_t ulen = 0;
	const void *ud = nftnl_chain_get_data(c, NFTNL_CHAIN_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (!comment.empty())
		out += "\t\tcomment \"" + comment + "\"\n";
	if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM)) {
		out += "\t\ttype " + str(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE)) + " hook " +
		       hook_name(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM)) + " priority " +
		       priority_text(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO), t.family == NFPROTO_BRIDGE) +
		       "; policy " + (nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY) == NF_DROP ? "drop" : "accept") +
		       ";\n";
	}
	for (auto *r : t.rules) {
		if (str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) != name)
			continue;
		out += "\t\t" + delinearize_rule(r, t, o) +
		       handle_comment(o, nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE)) + "\n";
	}
	return out + "\t}\n";
}

std::string print_table(const ModelTable &t, const PrintOptions &o)
{
	std::string out = "table " + family_name(t.family) + " " + t.name + " {" + handle_comment(o, t.handle) + "\n";
	uint32_t ulen = 0;
	const void *ud = nftnl_table_get_data(t.table, NFTNL_TABLE_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (!comment.empty())
		out += "\tcomment \"" + comment + "\"\n";
	if (nftnl_table_get_u32(t.table, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT)
		out += "\tflags dormant\n";
	bool first = true;
	auto block = [&](const std::string &b) {
		if (!first)
			out += "\n";
		first = false;
		out += b;
	};
	for (auto *s : t.sets)
		if (!(nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS))
			block(print_set(s, o));
	for (auto *f : t.flowtables)
		block(print_flowtable(f, o));
	for (auto *c : t.chains)
		block(print_chain(c, t, o));
	return out + "}\n";
}

std::string print_ruleset(const RulesetModel &m, const PrintOptions &o)
{
	std::string out;
	for (auto &t : m.tables)
		out += print_table(t, o);
	return out;
}

} // namespace xnft
