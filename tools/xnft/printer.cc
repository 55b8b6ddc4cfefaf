// printer.cc - nft's `list` format (see printer.h).
#include "printer.h"

#include "get_element.h"
#include "not_found.h"
#include "set_userdata.h"

#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter_bridge.h>

#include <algorithm>

#include "compiler.h"
#include "diagnostics.h"

namespace xnft {

static std::string str(const char *s) { return s ? s : ""; }

std::string family_name(uint32_t f)
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

// nft prints a priority as a standard name when it is within 10 of one
// that belongs to the chain's hook (@hook < 0: a flowtable's).
static std::string priority_text(int32_t prio, bool bridge_chain, bool numeric, int hook = -1)
{
	if (numeric)
		return std::to_string(prio);
	struct Std {
		int32_t v;
		const char *n;
		int hook;	/* the one hook it names a priority at; -1: all */
	};
	static const Std bridge[] = {{-300, "dstnat", NF_BR_PRE_ROUTING},
				     {-200, "filter", -1},
				     {100, "out", NF_BR_LOCAL_OUT},
				     {300, "srcnat", NF_BR_POST_ROUTING}};
	static const Std netdev[] = {{0, "filter", -1}};
	const Std *tbl = bridge_chain ? bridge : netdev;
	size_t n = bridge_chain ? 4 : 1;
	for (size_t i = 0; i < n; i++) {
		if (tbl[i].hook >= 0 && tbl[i].hook != hook)
			continue;
		int64_t off = int64_t(prio) - tbl[i].v;	/* prio may be INT32_MAX */
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

// An object map's object type as nft names it (`type K : counter`),
// nullptr for other sets.
static const char *object_map_type(nftnl_set *s)
{
	if (!(nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_OBJECT))
		return nullptr;
	switch (nftnl_set_get_u32(s, NFTNL_SET_OBJ_TYPE)) {
	case NFT_OBJECT_COUNTER: return "counter";
	case NFT_OBJECT_QUOTA: return "quota";
	case NFT_OBJECT_LIMIT: return "limit";
	default: return "unknown";
	}
}

static std::string print_set_block(nftnl_set *s, const PrintOptions &o, const std::vector<std::string> *elements);

// A set's own statements (NFTA_SET_EXPR[ESSIONS]) as nft's set_print_plain
// and set_print_json show them: stateless whatever the options (the
// templates the kernel gives each new element), as text space-joined, as
// JSON the "stmt" array.
static std::string set_stmts_text(nftnl_set *s)
{
	std::string out;
	nftnl_set_expr_foreach(s, [](nftnl_expr *e, void *to) {
		std::string t;
		Json j;
		stateful_print(e, true, t, j);
		std::string &line = *static_cast<std::string *>(to);
		line += (line.empty() ? "" : " ") + t;
		return 0;
	}, &out);
	return out;
}

static Json set_stmts_json(nftnl_set *s)
{
	Json out = Json::array();
	nftnl_set_expr_foreach(s, [](nftnl_expr *e, void *to) {
		std::string t;
		Json j;
		stateful_print(e, true, t, j);
		static_cast<Json *>(to)->push(std::move(j));
		return 0;
	}, &out);
	return out;
}

std::string print_set(nftnl_set *s, const PrintOptions &o)
{
	return print_set_block(s, o, nullptr);
}

std::string print_set(nftnl_set *s, const PrintOptions &o, const std::vector<std::string> &elements)
{
	return print_set_block(s, o, &elements);
}

static std::string print_set_block(nftnl_set *s, const PrintOptions &o, const std::vector<std::string> *elements)
{
	uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	bool is_map = flags & NFT_SET_MAP;
	const char *objtype = object_map_type(s);
	std::string out = "\t" + std::string(is_map || objtype ? "map " : "set ") +
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
			data = datapart_of_set(s);
			type += " : " + std::string(data.type->name);
		}
	}
	if (objtype)
		type += " : " + std::string(objtype);
	uint32_t ulen = 0;
	const void *ud = nftnl_set_is_set(s, NFTNL_SET_USERDATA) ? nftnl_set_get_data(s, NFTNL_SET_USERDATA, &ulen) : nullptr;
	const SetUserdataOut udata = parse_set_userdata(ud, ulen);
	if (elements && !udata.key_typeof.empty()) {
		// `get element`: nft 1.0.6 prints a typeof set's type, a type
		// without a size of its own (integer, string) as its expression
		// (set_print_key)
		auto sizeless = [](const DataType &t) { return t.id == TYPE_INTEGER || t.id == TYPE_STRING; };
		type = keys.size() == 1 && sizeless(*keys[0].type) ? udata.key_typeof : type.substr(0, type.find(" : "));
		if (is_map && !verdict)
			type += " : " + (sizeless(*data.type) && !udata.data_typeof.empty() ? udata.data_typeof
										: std::string(data.type->name));
		else if (verdict)
			type += " : verdict";
		out += "\t\ttype " + type + "\n";
	} else if (!udata.key_typeof.empty()) {
		// nft prints the data's typeof, else the data type, after it.
		std::string data_text = type.substr(type.find(" : ") == std::string::npos ? type.size() : type.find(" : "));
		if (!udata.data_typeof.empty())
			data_text = " : " + udata.data_typeof;
		out += "\t\ttypeof " + udata.key_typeof + (is_map ? data_text : "") + "\n";
	} else {
		out += "\t\ttype " + type + "\n";
	}
	if (!(flags & NFT_SET_CONSTANT)) {
		if (nftnl_set_is_set(s, NFTNL_SET_POLICY) &&
		    nftnl_set_get_u32(s, NFTNL_SET_POLICY) == NFT_SET_POL_MEMORY)
			out += "\t\tpolicy memory\n";
		if (nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE))
			out += "\t\tsize " + std::to_string(nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE)) + "\n";
	}
	// nft 1.0.6 leaves the flags line out when timeout is the only flag
	// and a default timeout says so; otherwise every flag, dynamic before
	// timeout
	const bool has_timeout = nftnl_set_is_set(s, NFTNL_SET_TIMEOUT);
	if ((flags & (NFT_SET_CONSTANT | NFT_SET_INTERVAL | NFT_SET_EVAL)) ||
	    ((flags & NFT_SET_TIMEOUT) && !has_timeout)) {
		std::string fl;
		if (flags & NFT_SET_CONSTANT) fl += ",constant";
		if (flags & NFT_SET_INTERVAL) fl += ",interval";
		if (flags & NFT_SET_EVAL) fl += ",dynamic";
		if (flags & NFT_SET_TIMEOUT) fl += ",timeout";
		out += "\t\tflags " + fl.substr(1) + "\n";
	}
	// the set's statements, not `get element`'s copy of it (nft makes a
	// new set for its answer, without them)
	if (!elements) {
		const std::string stmts = set_stmts_text(s);
		if (!stmts.empty())
			out += "\t\t" + stmts + "\n";
	}
	auto time_text = [&](uint64_t ms) {
		Bytes b(8);
		for (int i = 0; i < 8; i++)
			b[i] = static_cast<uint8_t>(ms >> (8 * i));
		return format_value(datatype(TYPE_TIME), 64, ByteOrder::Host, b, o.numeric);
	};
	if (nftnl_set_is_set(s, NFTNL_SET_TIMEOUT))
		out += "\t\ttimeout " + time_text(nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT)) + "\n";
	if (nftnl_set_is_set(s, NFTNL_SET_GC_INTERVAL) && nftnl_set_get_u32(s, NFTNL_SET_GC_INTERVAL))
		out += "\t\tgc-interval " + time_text(nftnl_set_get_u32(s, NFTNL_SET_GC_INTERVAL)) + "\n";
	if (udata.has_comment)
		out += "\t\tcomment \"" + udata.comment + "\"\n";
	if (elements) {
		// format_elements' layout: a named set wraps its lines
		const unsigned per_line = keys.size() == 1 ? elements_per_line(*keys[0].type) : 1;
		std::string line = "{ ";
		for (size_t i = 0; i < elements->size(); i++) {
			if (i)
				line += i % per_line == 0 ? ",\n\t\t\t     " : ", ";
			line += (*elements)[i];
		}
		if (!elements->empty())
			out += "\t\telements = " + line + " }\n";
		return out + "\t}\n";
	}
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	bool any = nftnl_set_elems_iter_next(it) != nullptr;
	nftnl_set_elems_iter_destroy(it);
	// -t: the declaration alone
	if (any && !o.terse)
		out += "\t\telements = " + format_elements(s, {}, is_map && !verdict ? &data : nullptr, verdict, o.numeric,
								     o.stateless) + "\n";
	return out + "\t}\n";
}

// The devices in the order nft prints them (its dev_array).
static std::vector<std::string> flowtable_devices(nftnl_flowtable *f)
{
	std::vector<std::string> names;
	if (!nftnl_flowtable_is_set(f, NFTNL_FLOWTABLE_DEVICES))
		return names;
	const char *const *devs = nftnl_flowtable_get_array(f, NFTNL_FLOWTABLE_DEVICES);
	for (size_t i = 0; devs && devs[i]; i++)
		names.push_back(devs[i]);
	if (names.size() > 1)
		std::reverse(names.begin(), names.end());
	return names;
}

std::string print_flowtable(nftnl_flowtable *f, const PrintOptions &o)
{
	std::string out = "\tflowtable " + str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME)) + " {" +
			  handle_comment(o, nftnl_flowtable_get_u64(f, NFTNL_FLOWTABLE_HANDLE)) + "\n";
	out += "\t\thook ingress priority " +
	       priority_text(static_cast<int32_t>(nftnl_flowtable_get_u32(f, NFTNL_FLOWTABLE_PRIO)), false,
			     o.numeric || o.numeric_prio) + "\n";
	std::vector<std::string> names = flowtable_devices(f);
	if (!names.empty()) {
		std::string d;
		if (names.size() == 1) {
			d = names[0];
		} else {
			for (auto &n : names)
				d += (d.empty() ? "" : ", ") + n;
			d = "{ " + d + " }";
		}
		out += "\t\tdevices = " + d + "\n";
	}
	if (nftnl_flowtable_get_u32(f, NFTNL_FLOWTABLE_FLAGS) & NFT_FLOWTABLE_COUNTER)
		out += "\t\tcounter\n";
	return out + "\t}\n";
}

// obj_print_declaration of a counter: its comment, then its values (none
// with -s).
std::string print_counter(nftnl_obj *c, const PrintOptions &o)
{
	std::string out = "\tcounter " + str(nftnl_obj_get_str(c, NFTNL_OBJ_NAME)) + " {" +
			  handle_comment(o, nftnl_obj_get_u64(c, NFTNL_OBJ_HANDLE)) + "\n";
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(c, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (!comment.empty())
		out += "\t\tcomment \"" + comment + "\"\n";
	if (!o.stateless)
		out += "\t\tpackets " + std::to_string(nftnl_obj_get_u64(c, NFTNL_OBJ_CTR_PKTS)) +
		       " bytes " + std::to_string(nftnl_obj_get_u64(c, NFTNL_OBJ_CTR_BYTES)) + "\n";
	return out + "\t}\n";
}

// obj_print_declaration of a quota: its comment, then its limit (`over`
// when inverted) and, without -s, what it has used when anything.
std::string print_quota(nftnl_obj *q, const PrintOptions &o)
{
	std::string out = "\tquota " + str(nftnl_obj_get_str(q, NFTNL_OBJ_NAME)) + " {" +
			  handle_comment(o, nftnl_obj_get_u64(q, NFTNL_OBJ_HANDLE)) + "\n";
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(q, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (!comment.empty())
		out += "\t\tcomment \"" + comment + "\"\n";
	std::string unit;
	const uint64_t bytes = data_rate(nftnl_obj_get_u64(q, NFTNL_OBJ_QUOTA_BYTES), unit);
	out += "\t\t" + std::string(nftnl_obj_get_u32(q, NFTNL_OBJ_QUOTA_FLAGS) & NFT_QUOTA_F_INV ? "over " : "") +
	       std::to_string(bytes) + " " + unit;
	const uint64_t used = nftnl_obj_get_u64(q, NFTNL_OBJ_QUOTA_CONSUMED);
	if (used && !o.stateless) {
		const uint64_t u = data_rate(used, unit);
		out += " used " + std::to_string(u) + " " + unit;
	}
	return out + "\n\t}\n";
}

// The rate of a limit object as obj_print_data writes it: [over] N/TIME
// and a packets' burst other than nft's 5, or [over] N UNIT/TIME and a
// burst in bytes when there is one.
static std::string limit_text(nftnl_obj *l)
{
	const uint64_t rate = nftnl_obj_get_u64(l, NFTNL_OBJ_LIMIT_RATE);
	const uint32_t burst = nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_BURST);
	const std::string per = time_unit_name(nftnl_obj_get_u64(l, NFTNL_OBJ_LIMIT_UNIT));
	std::string out = "rate ";
	if (nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_FLAGS) & NFT_LIMIT_F_INV)
		out += "over ";
	if (nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_TYPE) == NFT_LIMIT_PKT_BYTES) {
		std::string unit;
		const uint64_t r = data_rate(rate, unit);
		out += std::to_string(r) + " " + unit + "/" + per;
		if (burst) {
			const uint64_t b = data_rate(burst, unit);
			out += " burst " + std::to_string(b) + " " + unit;
		}
	} else {
		out += std::to_string(rate) + "/" + per;
		if (burst && burst != 5)
			out += " burst " + std::to_string(burst) + " packets";
	}
	return out;
}

// obj_print_declaration of a limit: its comment, then its rate.
std::string print_limit(nftnl_obj *l, const PrintOptions &o)
{
	std::string out = "\tlimit " + str(nftnl_obj_get_str(l, NFTNL_OBJ_NAME)) + " {" +
			  handle_comment(o, nftnl_obj_get_u64(l, NFTNL_OBJ_HANDLE)) + "\n";
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(l, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (!comment.empty())
		out += "\t\tcomment \"" + comment + "\"\n";
	return out + "\t\t" + limit_text(l) + "\n\t}\n";
}

static bool is_counter(nftnl_obj *o)
{
	return nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) == NFT_OBJECT_COUNTER;
}

static bool is_quota(nftnl_obj *o)
{
	return nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) == NFT_OBJECT_QUOTA;
}

static bool is_limit(nftnl_obj *o)
{
	return nftnl_obj_get_u32(o, NFTNL_OBJ_TYPE) == NFT_OBJECT_LIMIT;
}

// The named objects xnft lists: counters, quotas and limits.
static bool is_listed_object(nftnl_obj *o)
{
	return is_counter(o) || is_quota(o) || is_limit(o);
}

std::string print_object(nftnl_obj *ob, const PrintOptions &o)
{
	return is_quota(ob) ? print_quota(ob, o) : is_limit(ob) ? print_limit(ob, o) : print_counter(ob, o);
}

std::string print_chain(nftnl_chain *c, const ModelTable &t, const PrintOptions &o, bool rules)
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
		       priority_text(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO), t.family == NFPROTO_BRIDGE,
				     o.numeric || o.numeric_prio,
				     static_cast<int>(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM))) +
		       "; policy " + (nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY) == NF_DROP ? "drop" : "accept") +
		       ";\n";
	}
	for (auto *r : t.rules) {
		if (!rules || str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) != name)
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
	if (nftnl_table_get_u32(t.table, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT)
		out += "\tflags dormant\n";
	if (!comment.empty())
		out += "\tcomment \"" + comment + "\"\n";
	// table_print: a blank line before the first item after flags
	bool first = !(nftnl_table_get_u32(t.table, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT);
	auto block = [&](const std::string &b) {
		if (!first)
			out += "\n";
		first = false;
		out += b;
	};
	for (auto *c : t.objs)
		if (is_listed_object(c))
			block(print_object(c, o));
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


// ---- plural listings and single objects (rule.c do_list_*) ----

static bool is_anonymous(nftnl_set *s)
{
	return nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS;
}

static bool is_map(nftnl_set *s)
{
	return nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & (NFT_SET_MAP | NFT_SET_OBJECT);
}

static bool family_matches(const ModelTable &t, const std::string &family)
{
	return family.empty() || family_name(t.family) == family;
}

// `table bridge t {`: the header `list chain|set|sets|chains ...` print
// around their objects (no handle, flags or comment).
static std::string table_header(const ModelTable &t)
{
	return "table " + family_name(t.family) + " " + t.name + " {\n";
}

// ---- JSON (json.c) ----

Json table_json(const ModelTable &t)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(t.name));
	j.set("handle", Json::uinteger(t.handle));
	// nft 1.0.6 means to print one flag as a string here (table_flags_json)
	// but prints freed memory; xnft prints the flag.
	if (nftnl_table_get_u32(t.table, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT)
		j.set("flags", Json::string("dormant"));
	return Json::wrap("table", std::move(j));
}

Json chain_json(nftnl_chain *c, const ModelTable &t)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("table", Json::string(t.name));
	j.set("name", Json::string(str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME))));
	j.set("handle", Json::uinteger(nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE)));
	if (nftnl_chain_is_set(c, NFTNL_CHAIN_HOOKNUM)) {
		j.set("type", Json::string(str(nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE))));
		j.set("hook", Json::string(hook_name(nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM))));
		j.set("prio", Json::integer(nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO)));
		j.set("policy", Json::string(nftnl_chain_get_u32(c, NFTNL_CHAIN_POLICY) == NF_DROP ? "drop" : "accept"));
	}
	return Json::wrap("chain", std::move(j));
}

Json set_json(nftnl_set *s, const ModelTable &t, const PrintOptions &o)
{
	uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	bool map = flags & NFT_SET_MAP;
	const char *objtype = object_map_type(s);
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(str(nftnl_set_get_str(s, NFTNL_SET_NAME))));
	j.set("table", Json::string(t.name));
	auto keys = keyparts_of_set(s);
	if (keys.size() == 1) {
		j.set("type", Json::string(keys[0].type->name));
	} else {
		Json types = Json::array();
		for (auto &k : keys)
			types.push(Json::string(k.type->name));
		j.set("type", std::move(types));
	}
	j.set("handle", Json::uinteger(nftnl_set_get_u64(s, NFTNL_SET_HANDLE)));
	uint32_t ulen = 0;
	const void *ud = nftnl_set_is_set(s, NFTNL_SET_USERDATA) ? nftnl_set_get_data(s, NFTNL_SET_USERDATA, &ulen) : nullptr;
	const SetUserdataOut udata = parse_set_userdata(ud, ulen);
	if (udata.has_comment)
		j.set("comment", Json::string(udata.comment));
	KeyPart data{};
	bool verdict = false;
	if (map) {
		uint32_t dt = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
		if (dt == NFT_DATA_VERDICT) {
			verdict = true;
			j.set("map", Json::string("verdict"));
		} else {
			data = datapart_of_set(s);
			j.set("map", Json::string(data.type->name));
		}
	}
	if (objtype)
		j.set("map", Json::string(objtype));
	if (!(flags & NFT_SET_CONSTANT)) {
		if (nftnl_set_is_set(s, NFTNL_SET_POLICY) && nftnl_set_get_u32(s, NFTNL_SET_POLICY) == NFT_SET_POL_MEMORY)
			j.set("policy", Json::string("memory"));
		if (nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE) && nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE))
			j.set("size", Json::uinteger(nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE)));
	}
	// nft 1.0.6 names these three (not dynamic)
	Json fl = Json::array();
	if (flags & NFT_SET_CONSTANT)
		fl.push(Json::string("constant"));
	if (flags & NFT_SET_INTERVAL)
		fl.push(Json::string("interval"));
	if (flags & NFT_SET_TIMEOUT)
		fl.push(Json::string("timeout"));
	if (fl.size())
		j.set("flags", std::move(fl));
	if (nftnl_set_is_set(s, NFTNL_SET_TIMEOUT) && nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT))
		j.set("timeout", Json::uinteger(nftnl_set_get_u64(s, NFTNL_SET_TIMEOUT) / 1000));
	if (nftnl_set_is_set(s, NFTNL_SET_GC_INTERVAL) && nftnl_set_get_u32(s, NFTNL_SET_GC_INTERVAL))
		j.set("gc-interval", Json::uinteger(nftnl_set_get_u32(s, NFTNL_SET_GC_INTERVAL) / 1000));
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	bool any = nftnl_set_elems_iter_next(it) != nullptr;
	nftnl_set_elems_iter_destroy(it);
	if (any && !o.terse)
		j.set("elem", elements_json(s, {}, map && !verdict ? &data : nullptr, verdict, o.numeric,
					    o.stateless));
	Json stmts = set_stmts_json(s);
	if (stmts.size())
		j.set("stmt", std::move(stmts));
	return Json::wrap(map || objtype ? "map" : "set", std::move(j));
}

Json flowtable_json(nftnl_flowtable *f, const ModelTable &t)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME))));
	j.set("table", Json::string(t.name));
	j.set("handle", Json::uinteger(nftnl_flowtable_get_u64(f, NFTNL_FLOWTABLE_HANDLE)));
	j.set("hook", Json::string("ingress"));
	j.set("prio", Json::integer(static_cast<int32_t>(nftnl_flowtable_get_u32(f, NFTNL_FLOWTABLE_PRIO))));
	std::vector<std::string> names = flowtable_devices(f);
	if (names.size() == 1) {
		j.set("dev", Json::string(names[0]));
	} else if (!names.empty()) {
		Json devs = Json::array();
		for (auto &n : names)
			devs.push(Json::string(n));
		j.set("dev", std::move(devs));
	}
	return Json::wrap("flowtable", std::move(j));
}

Json counter_json(nftnl_obj *c, const ModelTable &t, bool with_comment)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(str(nftnl_obj_get_str(c, NFTNL_OBJ_NAME))));
	j.set("table", Json::string(t.name));
	j.set("handle", Json::uinteger(nftnl_obj_get_u64(c, NFTNL_OBJ_HANDLE)));
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(c, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (with_comment && !comment.empty())
		j.set("comment", Json::string(comment));
	// nft 1.0.6 prints the values in JSON with -s too
	j.set("packets", Json::uinteger(nftnl_obj_get_u64(c, NFTNL_OBJ_CTR_PKTS)));
	j.set("bytes", Json::uinteger(nftnl_obj_get_u64(c, NFTNL_OBJ_CTR_BYTES)));
	return Json::wrap("counter", std::move(j));
}

// json.c obj_print_json of a quota: bytes, used (with -s too) and inv.
Json quota_json(nftnl_obj *q, const ModelTable &t, bool with_comment)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(str(nftnl_obj_get_str(q, NFTNL_OBJ_NAME))));
	j.set("table", Json::string(t.name));
	j.set("handle", Json::uinteger(nftnl_obj_get_u64(q, NFTNL_OBJ_HANDLE)));
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(q, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (with_comment && !comment.empty())
		j.set("comment", Json::string(comment));
	j.set("bytes", Json::uinteger(nftnl_obj_get_u64(q, NFTNL_OBJ_QUOTA_BYTES)));
	j.set("used", Json::uinteger(nftnl_obj_get_u64(q, NFTNL_OBJ_QUOTA_CONSUMED)));
	j.set("inv", Json::boolean(nftnl_obj_get_u32(q, NFTNL_OBJ_QUOTA_FLAGS) & NFT_QUOTA_F_INV));
	return Json::wrap("quota", std::move(j));
}

// json.c obj_print_json of a limit: rate and per, inv when set, then a
// byte limit's rate_unit, and the burst (with its unit for bytes) when
// there is one.
Json limit_json(nftnl_obj *l, const ModelTable &t, bool with_comment)
{
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("name", Json::string(str(nftnl_obj_get_str(l, NFTNL_OBJ_NAME))));
	j.set("table", Json::string(t.name));
	j.set("handle", Json::uinteger(nftnl_obj_get_u64(l, NFTNL_OBJ_HANDLE)));
	uint32_t ulen = 0;
	const void *ud = nftnl_obj_get_data(l, NFTNL_OBJ_USERDATA, &ulen);
	std::string comment = userdata_comment(ud, ulen);
	if (with_comment && !comment.empty())
		j.set("comment", Json::string(comment));
	const bool bytes = nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_TYPE) == NFT_LIMIT_PKT_BYTES;
	std::string rate_unit, burst_unit;
	uint64_t rate = nftnl_obj_get_u64(l, NFTNL_OBJ_LIMIT_RATE);
	uint64_t burst = nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_BURST);
	if (bytes) {
		rate = data_rate(rate, rate_unit);
		burst = data_rate(burst, burst_unit);
	}
	j.set("rate", Json::uinteger(rate));
	j.set("per", Json::string(time_unit_name(nftnl_obj_get_u64(l, NFTNL_OBJ_LIMIT_UNIT))));
	if (nftnl_obj_get_u32(l, NFTNL_OBJ_LIMIT_FLAGS) & NFT_LIMIT_F_INV)
		j.set("inv", Json::boolean(true));
	if (bytes)
		j.set("rate_unit", Json::string(rate_unit));
	if (burst) {
		j.set("burst", Json::uinteger(burst));
		if (bytes)
			j.set("burst_unit", Json::string(burst_unit));
	}
	return Json::wrap("limit", std::move(j));
}

Json object_json(nftnl_obj *ob, const ModelTable &t)
{
	return is_quota(ob) ? quota_json(ob, t) : is_limit(ob) ? limit_json(ob, t) : counter_json(ob, t);
}

Json rule_json(nftnl_rule *r, const ModelTable &t, const PrintOptions &o)
{
	DelinearizedRule d = delinearize(r, t, o);
	Json j = Json::object();
	j.set("family", Json::string(family_name(t.family)));
	j.set("table", Json::string(t.name));
	j.set("chain", Json::string(str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN))));
	j.set("handle", Json::uinteger(nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE)));
	if (d.has_comment)
		j.set("comment", Json::string(d.comment));
	if (d.expr.size())
		j.set("expr", std::move(d.expr));
	return Json::wrap("rule", std::move(j));
}

// json.c table_print_json_full as nft 1.0.6 orders it: the table, its
// counters, named sets and maps, flowtables, chains, then every chain's
// rules.
static void table_json_full(const ModelTable &t, const PrintOptions &o, Json &out)
{
	out.push(table_json(t));
	for (auto *c : t.objs)
		if (is_listed_object(c))
			out.push(object_json(c, t));
	for (auto *s : t.sets)
		if (!is_anonymous(s))
			out.push(set_json(s, t, o));
	for (auto *f : t.flowtables)
		out.push(flowtable_json(f, t));
	for (auto *c : t.chains)
		out.push(chain_json(c, t));
	for (auto *c : t.chains) {
		std::string name = str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
		for (auto *r : t.rules)
			if (str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) == name)
				out.push(rule_json(r, t, o));
	}
}

std::string json_document(Json items)
{
	Json meta = Json::object();
	meta.set("version", Json::string(NFT_JSON_VERSION));
	meta.set("release_name", Json::string(NFT_JSON_RELEASE_NAME));
	meta.set("json_schema_version", Json::integer(1));
	Json all = Json::array();
	all.push(Json::wrap("metainfo", std::move(meta)));
	for (auto &i : items.items())
		all.push(i);
	return Json::wrap("nftables", std::move(all)).dump() + "\n";
}

// ---- one `list` command ----

static const ModelTable *find_table(const RulesetModel &m, const Command &c)
{
	for (auto &t : m.tables)
		if (t.name == c.table && family_name(t.family) == (c.family.empty() ? "ip" : c.family))
			return &t;
	return nullptr;
}

template <typename T, typename NameOf>
static T *find_named(const std::vector<T *> &v, const std::string &name, NameOf name_of)
{
	for (T *o : v)
		if (str(name_of(o)) == name)
			return o;
	return nullptr;
}

std::string print_list(const RulesetModel &m, const Command &c, const PrintOptions &o)
{
	if (c.verb == Verb::Get)
		return print_get_element(m, c, o);
	Json items = Json::array();
	std::string out;
	const ModelTable *table = nullptr;
	const bool named_table = !c.table.empty();
	if (named_table) {
		table = find_table(m, c);
		if (!table)
			throw LangError(c.table_loc, table_not_found(CacheNames::of(m), c.table));
	} else if (c.obj == Obj::Table || c.obj == Obj::Chain || c.obj == Obj::Set || c.obj == Obj::Map ||
		   c.obj == Obj::Flowtable || c.obj == Obj::Counter || c.obj == Obj::Quota ||
		   c.obj == Obj::Limit) {
		// `list table handle N` and the like: xnft lists by name only
		throw LangError(c.loc, "Could not process rule: Operation not supported");
	}
	auto chain_name = [](nftnl_chain *ch) { return nftnl_chain_get_str(ch, NFTNL_CHAIN_NAME); };
	auto set_name = [](nftnl_set *st) { return nftnl_set_get_str(st, NFTNL_SET_NAME); };
	auto ft_name = [](nftnl_flowtable *f) { return nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME); };
	switch (c.obj) {
	case Obj::Ruleset:
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family))
				continue;
			if (o.json)
				table_json_full(t, o, items);
			else
				out += print_table(t, o);
		}
		break;
	case Obj::Table:
		if (o.json)
			table_json_full(*table, o, items);
		else
			out += print_table(*table, o);
		break;
	case Obj::Tables:
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family))
				continue;
			if (o.json)
				items.push(table_json(t));
			else
				out += "table " + family_name(t.family) + " " + t.name + "\n";
		}
		break;
	case Obj::Chain: {
		nftnl_chain *ch = find_named(table->chains, c.chain, chain_name);
		if (!ch)
			throw LangError(c.chain_loc, chain_not_found(CacheNames::of(m), c.chain));
		if (o.json) {
			items.push(chain_json(ch, *table));
			for (auto *r : table->rules)
				if (str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) == c.chain)
					items.push(rule_json(r, *table, o));
		} else {
			out += table_header(*table) + print_chain(ch, *table, o) + "}\n";
		}
		break;
	}
	case Obj::Chains:
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family) || (named_table && &t != table))
				continue;
			if (!o.json)
				out += table_header(t);
			for (auto *ch : t.chains) {
				if (o.json)
					items.push(chain_json(ch, t));
				else
					out += print_chain(ch, t, o, false);
			}
			if (!o.json)
				out += "}\n";
		}
		break;
	case Obj::Set:
	case Obj::Map: {
		nftnl_set *st = find_named(table->sets, c.set, set_name);
		// a set of the other kind (or anonymous) is found, and wrong:
		// no suggestion
		if (!st)
			throw LangError(c.name_loc, set_not_found(CacheNames::of(m), c.set));
		if (is_anonymous(st) || is_map(st) != (c.obj == Obj::Map))
			throw LangError(c.name_loc, "No such file or directory");
		if (o.json)
			items.push(set_json(st, *table, o));
		else
			out += table_header(*table) + print_set(st, o) + "}\n";
		break;
	}
	case Obj::Sets:
	case Obj::Maps:
		// do_list_sets: every table of the family, whatever table
		// `list sets table F T` names (it must exist)
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family))
				continue;
			if (!o.json)
				out += table_header(t);
			for (auto *st : t.sets) {
				if (is_anonymous(st) || is_map(st) != (c.obj == Obj::Maps))
					continue;
				if (o.json)
					items.push(set_json(st, t, o));
				else
					out += print_set(st, o);
			}
			if (!o.json)
				out += "}\n";
		}
		break;
	case Obj::Flowtable: {
		nftnl_flowtable *f = find_named(table->flowtables, c.flowtable, ft_name);
		if (!f)
			throw LangError(c.name_loc, flowtable_not_found(CacheNames::of(m), c.flowtable));
		if (o.json)
			items.push(flowtable_json(f, *table));
		else
			out += table_header(*table) + print_flowtable(f, o) + "}\n";
		break;
	}
	case Obj::Flowtables:
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family) || (named_table && &t != table))
				continue;
			if (!o.json)
				out += table_header(t);
			for (auto *f : t.flowtables) {
				if (o.json)
					items.push(flowtable_json(f, t));
				else
					out += print_flowtable(f, o);
			}
			if (!o.json)
				out += "}\n";
		}
		break;
	case Obj::Counter:
	case Obj::Quota:
	case Obj::Limit: {
		const auto of_kind = c.obj == Obj::Quota ? is_quota : c.obj == Obj::Limit ? is_limit : is_counter;
		nftnl_obj *ob = nullptr;
		for (auto *x : table->objs)
			if (of_kind(x) && str(nftnl_obj_get_str(x, NFTNL_OBJ_NAME)) == c.object)
				ob = x;
		// a reset is the kernel's GETOBJ_RESET, its ENOENT nft's
		// "Could not process rule" at the command
		if (!ob && c.verb == Verb::Reset)
			throw LangError(c.whole_loc, "Could not process rule: No such file or directory");
		if (!ob)
			throw LangError(c.name_loc, object_not_found(CacheNames::of(m), c.object));
		if (o.json)
			items.push(object_json(ob, *table));
		else
			out += table_header(*table) + print_object(ob, o) + "}\n";
		break;
	}
	case Obj::Counters:
	case Obj::Quotas:
	case Obj::Limits: {
		// do_list_obj: tables with objects only, each counter or
		// quota (of that name) in it
		for (auto &t : m.tables) {
			if (!family_matches(t, c.family) || (named_table && &t != table))
				continue;
			if (t.objs.empty())
				continue;
			const auto of_kind = c.obj == Obj::Quotas ? is_quota :
					     c.obj == Obj::Limits ? is_limit : is_counter;
			std::string body;
			for (auto *ob : t.objs) {
				if (!of_kind(ob))
					continue;
				if (o.json)
					items.push(object_json(ob, t));
				else
					body += print_object(ob, o);
			}
			if (!o.json)
				out += table_header(t) + body + "}\n";
		}
		break;
	}
	default:
		throw LangError(c.loc, "Could not process rule: Operation not supported");
	}
	return o.json ? json_document(std::move(items)) : out;
}

} // namespace xnft
