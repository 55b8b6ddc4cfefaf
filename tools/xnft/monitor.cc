// monitor.cc - `nft monitor`'s output for the xbridge family's commit
// notifications (see monitor.h).
#include "monitor.h"

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/object.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>

#include <cstring>
#include <stdexcept>

#include "compiler.h"
#include "printer.h"

namespace xnft {

namespace {

std::string str(const char *s) { return s ? s : ""; }

// nft's monitor prints an object's listing block on one line: no tabs,
// statements ended by "; " ("{ type filter hook forward priority 0;
// policy accept; }"). What follows the header's "{" (a handle comment)
// stays first. Empty when the block has no body.
std::string one_line(const std::string &block)
{
	std::vector<std::string> lines;
	size_t at = 0;
	while (at < block.size()) {
		size_t nl = block.find('\n', at);
		if (nl == std::string::npos)
			nl = block.size();
		std::string l = block.substr(at, nl - at);
		at = nl + 1;
		size_t b = l.find_first_not_of('\t');
		if (b != std::string::npos)
			lines.push_back(l.substr(b));
	}
	if (lines.size() < 3)
		return "";
	const std::string &head = lines.front();
	size_t brace = head.find('{');
	std::string out = "{" + (brace == std::string::npos ? "" : head.substr(brace + 1));
	for (size_t i = 1; i + 1 < lines.size(); i++) {
		std::string l = lines[i];
		if (l.empty() || l.back() != ';')
			l += ';';
		out += " " + l;
	}
	return out + " }";
}

std::string handle_comment(const PrintOptions &o, uint64_t h)
{
	return o.handles ? " # handle " + std::to_string(h) : "";
}

uint32_t be32_of(const nlattr *a)
{
	const auto *p = static_cast<const uint8_t *>(mnl_attr_get_payload(a));
	return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

bool is_anonymous(nftnl_set *s)
{
	return nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS;
}

} // namespace

MonitorWhat parse_monitor_words(const std::vector<std::string> &words)
{
	MonitorWhat w;
	bool event_seen = false, object_seen = false;
	for (const std::string &x : words) {
		if (!event_seen && !object_seen && (x == "new" || x == "destroy")) {
			event_seen = true;
			w.add = x == "new";
			w.del = x == "destroy";
			w.generations = false;
		} else if (!object_seen && (x == "tables" || x == "chains" || x == "rules" ||
					    x == "sets" || x == "elements" || x == "flowtables" ||
					    x == "ruleset")) {
			object_seen = true;
			w.generations = false;
			if (x != "ruleset") {
				w.tables = x == "tables";
				w.chains = x == "chains";
				w.rules = x == "rules";
				w.sets = x == "sets";
				w.elements = x == "elements";
				w.flowtables = x == "flowtables";
				w.objects = false;
			}
		} else if (x == "trace") {
			throw std::invalid_argument("monitor trace is not supported by xnft");
		} else {
			throw std::invalid_argument("invalid event " + x);
		}
	}
	return w;
}

Monitor::~Monitor()
{
	if (held_)
		nftnl_set_free(held_);
}

ModelTable *Monitor::table(uint32_t family, const std::string &name)
{
	for (auto &t : model_.tables)
		if (t.family == family && t.name == name)
			return &t;
	return nullptr;
}

int Monitor::cached_copies(const ModelTable &t, const std::string &set) const
{
	auto it = copies_.find({t.family, t.name, set});
	if (it != copies_.end())
		return it->second;
	for (auto *x : t.sets)
		if (str(nftnl_set_get_str(x, NFTNL_SET_NAME)) == set)
			return 1;
	return 0;
}

void Monitor::forget_copy(const ModelTable &t, const std::string &set)
{
	const int n = cached_copies(t, set);
	copies_[{t.family, t.name, set}] = n > 0 ? n - 1 : 0;
}

// @t with only the sets nft's cache still holds.
ModelTable Monitor::cached_view(const ModelTable &t) const
{
	ModelTable view = t;	// the model's objects, not copies of them
	view.sets.clear();
	for (auto *x : t.sets)
		if (cached_copies(t, str(nftnl_set_get_str(x, NFTNL_SET_NAME))) > 0)
			view.sets.push_back(x);
	return view;
}

std::string Monitor::line(bool add, const std::string &text, Json json, bool insert)
{
	const char *verb = insert ? "insert" : !add ? "delete" : create_ ? "create" : "add";
	if (o_.json)
		return Json::wrap(verb, std::move(json)).dump() + "\n";
	return verb + (" " + text) + "\n";
}

std::string Monitor::event(uint16_t type, uint32_t family, const uint8_t *attrs, size_t len,
			   uint16_t flags)
{
	std::string out;
	if (held_ && type != NFT_MSG_NEWSETELEM && type != NFT_MSG_DELSETELEM)
		out = flush();
	// nf_tables gives a notification its request's NLM_F_EXCL: nft
	// prints an object added by `create` as "create"
	create_ = type != NFT_MSG_NEWRULE && (flags & NLM_F_EXCL);
	switch (type) {
	case NFT_MSG_NEWTABLE:
	case NFT_MSG_DELTABLE:
		return out + table_event(type == NFT_MSG_NEWTABLE, family, attrs, len);
	case NFT_MSG_NEWCHAIN:
	case NFT_MSG_DELCHAIN:
		return out + chain_event(type == NFT_MSG_NEWCHAIN, family, attrs, len);
	case NFT_MSG_NEWRULE:
	case NFT_MSG_DELRULE:
		return out + rule_event(type == NFT_MSG_NEWRULE,
					type == NFT_MSG_NEWRULE && !(flags & NLM_F_APPEND), family, attrs,
					len);
	case NFT_MSG_NEWSET:
	case NFT_MSG_DELSET:
		return out + set_event(type == NFT_MSG_NEWSET, family, attrs, len);
	case NFT_MSG_NEWSETELEM:
	case NFT_MSG_DELSETELEM:
		return out + elem_event(type == NFT_MSG_NEWSETELEM, family, attrs, len);
	case NFT_MSG_NEWFLOWTABLE:
	case NFT_MSG_DELFLOWTABLE:
		return out + flowtable_event(type == NFT_MSG_NEWFLOWTABLE, family, attrs, len);
	case NFT_MSG_NEWOBJ:
	case NFT_MSG_DELOBJ:
		return out + obj_event(type == NFT_MSG_NEWOBJ, family, attrs, len);
	case NFT_MSG_NEWGEN:
		return out + gen_event(attrs, len);
	default:
		return out;
	}
}

std::string Monitor::table_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	ReceivedMsg m(add ? NFT_MSG_NEWTABLE : NFT_MSG_DELTABLE, family, attrs, len);
	nftnl_table *t = nftnl_table_alloc();
	if (nftnl_table_nlmsg_parse(m.h, t) < 0) {
		nftnl_table_free(t);
		return "";
	}
	const std::string name = str(nftnl_table_get_str(t, NFTNL_TABLE_NAME));
	ModelTable view;
	view.table = t;
	view.family = family;
	view.name = name;
	view.handle = nftnl_table_get_u64(t, NFTNL_TABLE_HANDLE);
	std::string out;
	if ((add ? what_.add : what_.del) && what_.tables) {
		std::string text = "table " + family_name(family) + " " + name;
		if (add && (nftnl_table_get_u32(t, NFTNL_TABLE_FLAGS) & NFT_TABLE_F_DORMANT))
			text += " { flags dormant; }";
		out = line(add, text + handle_comment(o_, view.handle), table_json(view));
	}
	nftnl_table_free(t);
	if (add && !table(family, name))
		model_.load_dump(NFT_MSG_NEWTABLE, family, attrs, len);
	else if (!add) {
		model_.remove_table(family, name);
		for (auto it = copies_.begin(); it != copies_.end();)
			it = std::get<0>(it->first) == family && std::get<1>(it->first) == name
				     ? copies_.erase(it) : std::next(it);
	}
	return out;
}

std::string Monitor::chain_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	if (!(add ? what_.add : what_.del) || !what_.chains)
		return "";
	ReceivedMsg m(add ? NFT_MSG_NEWCHAIN : NFT_MSG_DELCHAIN, family, attrs, len);
	nftnl_chain *c = nftnl_chain_alloc();
	std::string out;
	ModelTable *t = nullptr;
	if (nftnl_chain_nlmsg_parse(m.h, c) >= 0)
		t = table(family, str(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE)));
	if (t) {
		std::string text = "chain " + family_name(family) + " " + t->name + " " +
				   str(nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
		if (add) {
			PrintOptions plain = o_;
			plain.handles = false;
			const std::string body = one_line(print_chain(c, *t, plain, false));
			if (!body.empty())
				text += " " + body;
			text += handle_comment(o_, nftnl_chain_get_u64(c, NFTNL_CHAIN_HANDLE));
		}
		out = line(add, text, chain_json(c, *t));
	}
	nftnl_chain_free(c);
	return out;
}

std::string Monitor::rule_event(bool add, bool insert, uint32_t family, const uint8_t *attrs,
			       size_t len)
{
	if (!(add ? what_.add : what_.del) || !what_.rules)
		return "";
	ReceivedMsg m(add ? NFT_MSG_NEWRULE : NFT_MSG_DELRULE, family, attrs, len);
	nftnl_rule *r = nftnl_rule_alloc();
	std::string out;
	ModelTable *t = nullptr;
	if (nftnl_rule_nlmsg_parse(m.h, r) >= 0)
		t = table(family, str(nftnl_rule_get_str(r, NFTNL_RULE_TABLE)));
	if (t && !add) {
		// nft forgets a copy of every set the deleted rule looks up
		// before it prints the rule (netlink_events_cache_delsets)
		nftnl_expr_iter *it = nftnl_expr_iter_create(r);
		for (nftnl_expr *e = it ? nftnl_expr_iter_next(it) : nullptr; e; e = nftnl_expr_iter_next(it))
			if (str(nftnl_expr_get_str(e, NFTNL_EXPR_NAME)) == "lookup")
				forget_copy(*t, str(nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET)));
		if (it)
			nftnl_expr_iter_destroy(it);
	}
	if (t) {
		const uint64_t handle = nftnl_rule_get_u64(r, NFTNL_RULE_HANDLE);
		const ModelTable cached = cached_view(*t);
		PrintOptions printing = o_;
		printing.unknown_set_lookups_dropped = true;
		std::string text = "rule " + family_name(family) + " " + t->name + " " +
				   str(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN)) + " ";
		if (add) {
			// nft prints a rule's position (the rule before it) so
			if (nftnl_rule_is_set(r, NFTNL_RULE_POSITION))
				text += "handle " +
					std::to_string(nftnl_rule_get_u64(r, NFTNL_RULE_POSITION)) + " ";
			text += delinearize_rule(r, cached, printing) + handle_comment(o_, handle);
		} else {
			text += "handle " + std::to_string(handle);
		}
		out = line(add, text, rule_json(r, cached, printing), insert);
	}
	nftnl_rule_free(r);
	return out;
}

std::string Monitor::set_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	ReceivedMsg m(add ? NFT_MSG_NEWSET : NFT_MSG_DELSET, family, attrs, len);
	nftnl_set *s = nftnl_set_alloc();
	std::string out;
	ModelTable *t = nullptr;
	if (nftnl_set_nlmsg_parse(m.h, s) >= 0)
		t = table(family, str(nftnl_set_get_str(s, NFTNL_SET_TABLE)));
	const std::string name = str(nftnl_set_get_str(s, NFTNL_SET_NAME));
	// nft shows no anonymous set, added or deleted (its flags say so in
	// both: Linux 6.1's DELSET carries the whole set)
	if (t && (add ? what_.add : what_.del) && what_.sets && !is_anonymous(s)) {
		const bool map = nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & (NFT_SET_MAP | NFT_SET_OBJECT);
		std::string text = (add && map ? "map " : "set ") + family_name(family) + " " +
				   t->name + " " + name;
		if (add)
			text += " " + one_line(print_set(s, o_)) + " ";
		out = line(add, text, set_json(s, *t, o_));
	}
	nftnl_set_free(s);
	if (t && add) {
		const int copies = cached_copies(*t, name);
		model_.load_dump(NFT_MSG_NEWSET, family, attrs, len);
		copies_[{family, t->name, name}] = copies + 1;
	} else if (t) {
		forget_copy(*t, name);
		model_.remove_set(*t, name);
	}
	return out;
}

std::string Monitor::elem_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	ReceivedMsg m(add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM, family, attrs, len);
	nftnl_set *es = nftnl_set_alloc();
	std::string out;
	ModelTable *t = nullptr;
	nftnl_set *s = nullptr;
	if (nftnl_set_elems_nlmsg_parse(m.h, es) >= 0)
		t = table(family, str(nftnl_set_get_str(es, NFTNL_SET_TABLE)));
	const std::string name = str(nftnl_set_get_str(es, NFTNL_SET_NAME));
	if (t)
		for (auto *x : t->sets)
			if (str(nftnl_set_get_str(x, NFTNL_SET_NAME)) == name)
				s = x;
	if (s && add)
		set_elements_copy(es, s);  // rules print anonymous sets from the model
	// a set nft's cache no longer holds: it cannot cache the elements
	// and does not print the event (netlink_events_cache_addsetelem,
	// netlink_events_setelem_cb), and says so on stderr
	const bool forgotten = s && cached_copies(*t, name) == 0;
	if (forgotten && add)
		warnings_ += "W: Unable to cache set_elem. Set not found.\n";
	if (forgotten && (add ? what_.add : what_.del) && what_.elements)
		warnings_ += "W: Received event for an unknown set.\n";
	if (s && !forgotten && !is_anonymous(s) && (add ? what_.add : what_.del) && what_.elements) {
		const bool same = held_ && held_add_ == add && held_family_ == family &&
				  held_table_ == t->name &&
				  str(nftnl_set_get_str(held_, NFTNL_SET_NAME)) == name;
		if (held_ && !same)
			out = flush();
		if (!held_) {
			held_ = set_header_copy(s, family);
			held_add_ = add;
			held_create_ = create_;
			held_family_ = family;
			held_table_ = t->name;
		}
		set_elements_copy(es, held_);
		// Only an interval's two ends need holding: others print now.
		if (!(nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_INTERVAL))
			out += flush();
	}
	nftnl_set_free(es);
	return out;
}

std::string Monitor::flush()
{
	if (!held_)
		return "";
	nftnl_set *s = held_;
	held_ = nullptr;
	const bool create_now = create_;
	create_ = held_create_;
	const uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	bool verdict = false;
	KeyPart data{};
	if (flags & NFT_SET_MAP) {
		const uint32_t dt = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
		if (dt == NFT_DATA_VERDICT) {
			verdict = true;
		} else {
			data = datapart_of_set(s);
		}
	}
	const bool has_data = (flags & NFT_SET_MAP) && !verdict;
	const std::string name = str(nftnl_set_get_str(s, NFTNL_SET_NAME));
	std::string out;
	// nft 1.0.6's monitor rebuilds a single field's intervals without the
	// elements' statements (but an open interval's); other elements keep
	// theirs
	const std::vector<KeyPart> keys = keyparts_of_set(s);
	std::vector<nftnl_set_elem *> elems;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it))
		elems.push_back(e);
	nftnl_set_elems_iter_destroy(it);
	const bool interval = flags & NFT_SET_INTERVAL;
	for (auto &item : element_items(s, elems, interval, keys, has_data ? &data : nullptr, verdict,
					 o_.numeric, false, false,
					 interval && keys.size() == 1 ? ElemShow::RangeCache : ElemShow::All)) {
		Json j = Json::object();
		j.set("family", Json::string(family_name(held_family_)));
		j.set("table", Json::string(held_table_));
		j.set("name", Json::string(name));
		Json set = Json::array();
		set.push(std::move(item.json));
		j.set("elem", Json::wrap("set", std::move(set)));
		out += line(held_add_,
			    "element " + family_name(held_family_) + " " + held_table_ + " " + name +
				    " { " + item.text + " }",
			    Json::wrap("element", std::move(j)));
	}
	nftnl_set_free(s);
	create_ = create_now;
	return out;
}

std::string Monitor::flowtable_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	if (!(add ? what_.add : what_.del) || !what_.flowtables)
		return "";
	ReceivedMsg m(add ? NFT_MSG_NEWFLOWTABLE : NFT_MSG_DELFLOWTABLE, family, attrs, len);
	nftnl_flowtable *f = nftnl_flowtable_alloc();
	std::string out;
	ModelTable *t = nullptr;
	if (nftnl_flowtable_nlmsg_parse(m.h, f) >= 0)
		t = table(family, str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_TABLE)));
	if (t) {
		std::string text = "flowtable " + family_name(family) + " " + t->name + " " +
				   str(nftnl_flowtable_get_str(f, NFTNL_FLOWTABLE_NAME));
		if (add) {
			// nft's monitor prints a flowtable's priority as a number
			PrintOptions numeric = o_;
			numeric.numeric = true;
			std::string body = one_line(print_flowtable(f, numeric));
			// and its devices always in braces ("devices = { lo };")
			const std::string key = "devices = ";
			const size_t at = body.find(key);
			if (at != std::string::npos && body.compare(at + key.size(), 1, "{") != 0) {
				const size_t end = body.find(';', at);
				body.insert(end, " }");
				body.insert(at + key.size(), "{ ");
			}
			text += " " + body;
		}
		out = line(add, text, flowtable_json(f, *t));
	}
	nftnl_flowtable_free(f);
	return out;
}

// A counter, quota or limit object as nft's monitor prints it: added with
// its body on one line (and, as a set, a trailing space; a quota's or
// limit's comment before its values, as listed), deleted by name.
std::string Monitor::obj_event(bool add, uint32_t family, const uint8_t *attrs, size_t len)
{
	ReceivedMsg m(add ? NFT_MSG_NEWOBJ : NFT_MSG_DELOBJ, family, attrs, len);
	nftnl_obj *ob = nftnl_obj_alloc();
	std::string out;
	ModelTable *t = nullptr;
	uint32_t type = 0;
	if (nftnl_obj_nlmsg_parse(m.h, ob) >= 0) {
		type = nftnl_obj_get_u32(ob, NFTNL_OBJ_TYPE);
		if (type == NFT_OBJECT_COUNTER || type == NFT_OBJECT_QUOTA || type == NFT_OBJECT_LIMIT)
			t = table(family, str(nftnl_obj_get_str(ob, NFTNL_OBJ_TABLE)));
	}
	const bool quota = type == NFT_OBJECT_QUOTA, limit = type == NFT_OBJECT_LIMIT;
	if (t && (add ? what_.add : what_.del) && what_.objects) {
		const std::string name = str(nftnl_obj_get_str(ob, NFTNL_OBJ_NAME));
		std::string text = (quota ? "quota " : limit ? "limit " : "counter ") + family_name(family) +
				   " " + t->name + " " + name;
		if (add) {
			PrintOptions plain = o_;
			plain.handles = false;
			std::string body = print_object(ob, plain);
			std::string flat;
			for (size_t at = body.find('\n'); at != std::string::npos;) {
				const size_t nl = body.find('\n', at + 1);
				if (nl == std::string::npos)
					break;
				std::string l = body.substr(at + 1, nl - at - 1);
				const size_t b = l.find_first_not_of('\t');
				if (b != std::string::npos && l.substr(b) != "}")
					flat += l.substr(b) + " ";
				at = nl;
			}
			// with -a, the handle inside the braces, as nft prints it
			// ("{ # handle 15 packets 0 bytes 0 }")
			const std::string handle = o_.handles
				? "# handle " + std::to_string(nftnl_obj_get_u64(ob, NFTNL_OBJ_HANDLE)) + " "
				: "";
			text += " { " + handle + flat + "} ";
		}
		out = line(add, text, quota ? quota_json(ob, *t, add) : limit ? limit_json(ob, *t, add)
									: counter_json(ob, *t, add));
	}
	if (t && add)
		t->objs.push_back(ob);
	else {
		if (t)
			model_.remove_obj(*t, type, str(nftnl_obj_get_str(ob, NFTNL_OBJ_NAME)));
		nftnl_obj_free(ob);
	}
	return out;
}

std::string Monitor::gen_event(const uint8_t *attrs, size_t len)
{
	if (!what_.generations || o_.json)
		return "";
	uint32_t id = 0, pid = 0;
	std::string comm;
	for (const auto *a = reinterpret_cast<const nlattr *>(attrs);
	     mnl_attr_ok(a, static_cast<int>(attrs + len - reinterpret_cast<const uint8_t *>(a)));
	     a = mnl_attr_next(a)) {
		switch (mnl_attr_get_type(a)) {
		case NFTA_GEN_ID:
			id = be32_of(a);
			break;
		case NFTA_GEN_PROC_PID:
			pid = be32_of(a);
			break;
		case NFTA_GEN_PROC_NAME:
			comm = mnl_attr_get_str(a);
			break;
		}
	}
	std::string out = "# new generation " + std::to_string(id);
	if (!comm.empty())
		out += " by process " + std::to_string(pid) + " (" + comm + ")";
	return out + "\n";
}

} // namespace xnft
