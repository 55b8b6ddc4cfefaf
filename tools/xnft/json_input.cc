// json_input.cc - libnftables-json(5) commands as nft text (see
// json_input.h). One function per kind of JSON object: a command's object
// (table, chain, rule, set ...), a statement, an expression. Each returns
// the text nft's grammar has for it; what nft's JSON parser refuses before
// evaluation (an unknown key, a value of the wrong JSON type) is refused
// here with nft's words.
#include "json_input.h"

#include <cstdint>
#include <string>
#include <vector>

#include "lexer.h"
#include "protocols.h"

#include <linux/netfilter/nf_tables.h>

namespace xnft {

namespace {

[[noreturn]] void fail(const std::string &msg)
{
	throw JsonInputError(msg);
}

// Runs FN; a JsonInputError from it gets CONTEXT added as the outer
// message (nft's "Parsing expr array at index N failed.").
template <typename Fn>
auto within(const std::string &context, Fn fn) -> decltype(fn())
{
	try {
		return fn();
	} catch (JsonInputError &e) {
		e.messages.push_back(context);
		throw;
	}
}

const char *kind_name(const Json &j)
{
	switch (j.kind()) {
	case Json::Kind::Null: return "null";
	case Json::Kind::Bool: return j.bool_value() ? "true" : "false";
	case Json::Kind::Int: return "integer";
	case Json::Kind::String: return "string";
	case Json::Kind::Array: return "array";
	case Json::Kind::Object: return "object";
	}
	return "?";
}

// An object's one member, as every expression and statement is written:
// {"KEY": VALUE}.
const std::pair<std::string, Json> &single_member(const Json &j, const char *what)
{
	if (!j.is_object() || j.size() != 1)
		fail(std::string("Malformed ") + what + " object (expected object with one key).");
	return j.members()[0];
}

const Json *member(const Json &obj, const char *key)
{
	return obj.is_object() ? obj.get(key) : nullptr;
}

std::string string_member(const Json &obj, const char *key, bool required = true)
{
	const Json *v = member(obj, key);
	if (!v) {
		if (required)
			fail(std::string("Missing '") + key + "' property.");
		return "";
	}
	if (!v->is_string())
		fail(std::string("Expected string, got ") + kind_name(*v) + " for '" + key + "'.");
	return v->str();
}

bool int_member(const Json &obj, const char *key, int64_t &out)
{
	const Json *v = member(obj, key);
	if (!v)
		return false;
	if (!v->is_int())
		fail(std::string("Expected integer, got ") + kind_name(*v) + " for '" + key + "'.");
	out = v->int_value();
	return true;
}

// nft prints its unsigned numbers through jansson's signed integers: -1
// is 2^64 - 1.
std::string unsigned_text(int64_t v)
{
	return std::to_string(static_cast<uint64_t>(v));
}

// JSON strings go into the text as words or as quoted strings, and each
// must stay what it is there: a string that would read as more than one
// word, or that could end its quotes (a quote, a control character), is
// refused - nft's language cannot say it, and the line must not say
// something else (a name "t; flush ruleset" would be two commands).

// Whether the lexer reads S back as exactly the one word S.
bool one_word(const std::string &s)
{
	if (s.empty() || s.find('"') != std::string::npos)
		return false;
	try {
		// followed by a blank, as in the line (a classid "1:2" is one
		// word only before one of the characters nft's scanner wants)
		SourceFile f{"", s + " "};
		auto toks = tokenize(f);
		return toks.size() == 2 && toks[0].kind == Tok::Word && toks[0].text == s;
	} catch (const LangError &) {
		return false;
	}
}

std::string quoted(const std::string &s)
{
	for (unsigned char c : s)
		if (c == '"' || c < 0x20 || c == 0x7f)
			fail("String '" + s + "' cannot be written in nft's language (a quote or a "
			     "control character in it).");
	return "\"" + s + "\"";
}

// A string in nft's grammar: as a word where the lexer reads it back as
// that one word, else quoted. A JSON string is a symbol (nft's
// SYMBOL_VALUE), which an unquoted word is too.
std::string word_or_quoted(const std::string &s)
{
	return one_word(s) ? s : quoted(s);
}

// A keyword, unit, flag or type name, or a set's "@name": one word (or
// "@"/"$" and one word); "" (an optional member left out) as it is.
std::string word(const std::string &s)
{
	if (s.empty())
		return s;
	const std::string rest = s[0] == '@' || s[0] == '$' ? s.substr(1) : s;
	if (!one_word(rest))
		fail("'" + s + "' cannot be written in nft's language (not one word).");
	return s;
}

// A name of a few words (arp's "saddr ip", log's "tcp sequence"): each
// one word, one space between.
std::string words(const std::string &s)
{
	size_t at = 0;
	while (at <= s.size()) {
		const size_t end = s.find(' ', at);
		const std::string w = s.substr(at, end == std::string::npos ? std::string::npos : end - at);
		if (!s.empty() && !one_word(w))
			fail("'" + s + "' cannot be written in nft's language (not words).");
		if (end == std::string::npos)
			break;
		at = end + 1;
	}
	return s;
}

// A table's, chain's, set's name: nft's grammar takes names as words.
std::string name_text(const std::string &s)
{
	if (!one_word(s))
		fail("Name '" + s + "' cannot be written in nft's language (not one word).");
	return s;
}

std::string family_of(const Json &obj)
{
	std::string f = word(string_member(obj, "family", false));
	if (f.empty())
		f = "ip";	// nft's JSON default
	return f;
}

// ---- expressions ----

std::string expr_text(const Json &j);

std::string verdict_text(const std::string &key, const Json &v)
{
	if (key == "jump" || key == "goto") {
		if (!v.is_object())
			fail("Missing target for '" + key + "' verdict.");
		return key + " " + name_text(string_member(v, "target"));
	}
	return key;
}

bool is_verdict(const std::string &key)
{
	return key == "accept" || key == "drop" || key == "continue" || key == "return" ||
	       key == "jump" || key == "goto";
}

// Binary operators: a left-deep chain over one field prints without
// parentheses; a right operand that is itself an operation gets them.
bool is_binop(const std::string &key)
{
	return key == "&" || key == "|" || key == "^" || key == "<<" || key == ">>";
}

// nft's grammar: << and >> bind tighter than &, & than ^, ^ than |.
int binop_precedence(const std::string &op)
{
	if (op == "<<" || op == ">>")
		return 4;
	if (op == "&")
		return 3;
	if (op == "^")
		return 2;
	return 1;
}

// An operand of OUTER (a binary operator, "" for none): a list of flags
// is OR-ed; an operation binding less tightly than OUTER, or any on the
// right, is put in parentheses.
std::string operand_text(const Json &j, const std::string &outer, bool right)
{
	if (j.is_array()) {
		std::string s;
		for (auto &v : j.items())
			s += (s.empty() ? "" : " | ") + expr_text(v);
		return j.size() > 1 ? "(" + s + ")" : s;
	}
	if (j.is_object() && j.size() == 1 && is_binop(j.members()[0].first) && !outer.empty() &&
	    (right || binop_precedence(j.members()[0].first) < binop_precedence(outer)))
		return "(" + expr_text(j) + ")";
	return expr_text(j);
}

std::string seconds_text(int64_t v)
{
	return unsigned_text(v) + "s";
}

std::string stmt_text(const Json &j);

// A set element: a value, or {"elem": {"val": V, "timeout": S, "expires":
// S, "comment": C, "counter": ...}}.
std::string elem_text(const Json &e)
{
	const Json &v = e.get("val") ? *e.get("val") : Json();
	if (!e.get("val"))
		fail("Invalid set elem expression (missing 'val').");
	std::string s = expr_text(v);
	for (auto &m : e.members()) {
		if (m.first == "counter" || m.first == "limit" || m.first == "quota" || m.first == "ct count")
			s += " " + stmt_text(Json::wrap(m.first, m.second));
	}
	int64_t n;
	if (int_member(e, "timeout", n))
		s += " timeout " + seconds_text(n);
	if (int_member(e, "expires", n))
		s += " expires " + seconds_text(n);
	if (e.get("comment"))
		s += " comment " + quoted(string_member(e, "comment"));
	return s;
}

std::string set_literal_text(const Json &items)
{
	std::string s;
	auto one = [&](const Json &item) {
		if (item.is_array()) {
			if (item.size() != 2)
				fail("Invalid set elem at index, expected key and value.");
			return expr_text(item.items()[0]) + " : " + expr_text(item.items()[1]);
		}
		return expr_text(item);
	};
	if (items.is_array()) {
		for (auto &item : items.items())
			s += (s.empty() ? "" : ", ") + one(item);
	} else {
		s = one(items);
	}
	return "{ " + s + " }";
}

std::string expr_text(const Json &j)
{
	switch (j.kind()) {
	case Json::Kind::String:
		if (!j.str().empty() && (j.str()[0] == '@' || j.str()[0] == '$'))
			return j.str()[0] + name_text(j.str().substr(1));
		return word_or_quoted(j.str());
	case Json::Kind::Int:
		return unsigned_text(j.int_value());
	case Json::Kind::Bool:
		return j.bool_value() ? "exists" : "missing";
	case Json::Kind::Array: {
		std::string s;
		for (auto &v : j.items())
			s += (s.empty() ? "" : " | ") + expr_text(v);
		return s;
	}
	case Json::Kind::Null:
		fail("Unexpected null expression.");
	case Json::Kind::Object:
		break;
	}
	const auto &[key, v] = single_member(j, "expression");
	if (is_verdict(key))
		return verdict_text(key, v);
	if (key == "payload") {
		if (v.get("base")) {
			int64_t off = 0, len = 0;
			int_member(v, "offset", off);
			int_member(v, "len", len);
			return "@" + word(string_member(v, "base")) + "," + std::to_string(off) + "," + std::to_string(len);
		}
		return word(string_member(v, "protocol")) + " " + words(string_member(v, "field"));
	}
	if (key == "meta")
		return "meta " + word(string_member(v, "key"));
	if (key == "ct") {
		std::string s = "ct ";
		std::string dir = word(string_member(v, "dir", false));
		if (!dir.empty())
			s += dir + " ";
		std::string fam = word(string_member(v, "family", false));
		if (!fam.empty())
			s += fam + " ";
		return s + word(string_member(v, "key"));
	}
	if (key == "prefix") {
		const Json *addr = v.get("addr");
		if (!addr)
			fail("Missing 'addr' property.");
		int64_t len = 0;
		if (!int_member(v, "len", len))
			fail("Missing 'len' property.");
		// blanks around the operator: a name before it would take it
		// in (nft's scanner reads "echo-reply-redirect" as one name)
		return expr_text(*addr) + " / " + std::to_string(len);
	}
	if (key == "range") {
		if (!v.is_array() || v.size() != 2)
			fail("Invalid range expression, expected array of two values.");
		return expr_text(v.items()[0]) + " - " + expr_text(v.items()[1]);
	}
	if (key == "set")
		return set_literal_text(v);
	if (key == "concat") {
		if (!v.is_array())
			fail("Invalid concat expression, expected array.");
		std::string s;
		for (auto &p : v.items())
			s += (s.empty() ? "" : " . ") + operand_text(p, "", false);
		return s;
	}
	if (key == "elem")
		return elem_text(v);
	if (key == "map") {
		const Json *k = v.get("key"), *d = v.get("data");
		if (!k || !d)
			fail("Invalid map expression, expected 'key' and 'data'.");
		return expr_text(*k) + " map " + expr_text(*d);
	}
	if (is_binop(key)) {
		if (!v.is_array() || v.size() != 2)
			fail("Invalid binary expression, expected array of two values.");
		return operand_text(v.items()[0], key, false) + " " + key + " " + operand_text(v.items()[1], key, true);
	}
	if (key == "numgen") {
		int64_t mod = 0, off = 0;
		int_member(v, "mod", mod);
		std::string s = "numgen " + word(string_member(v, "mode")) + " mod " + std::to_string(mod);
		if (int_member(v, "offset", off))
			s += " offset " + std::to_string(off);
		return s;
	}
	if (key == "jhash" || key == "symhash") {
		int64_t n = 0;
		std::string s = key;
		if (key == "jhash") {
			const Json *e = v.get("expr");
			if (!e)
				fail("Missing 'expr' property.");
			s += " " + expr_text(*e);
		}
		int_member(v, "mod", n);
		s += " mod " + std::to_string(n);
		if (int_member(v, "seed", n))
			s += " seed " + std::to_string(n);
		if (int_member(v, "offset", n))
			s += " offset " + std::to_string(n);
		return s;
	}
	if (key == "tcp option") {
		if (v.get("base")) {
			int64_t base = 0, off = 0, len = 0;
			int_member(v, "base", base);
			int_member(v, "offset", off);
			int_member(v, "len", len);
			return "tcp option @" + std::to_string(base) + "," + std::to_string(off) + "," +
			       std::to_string(len);
		}
		if (!member(v, "name"))
			fail("Invalid tcp option expression properties.");
		std::string field = word(string_member(v, "field", false));
		// xnft lists a field of a kind nft has no template for as
		// "unknown"; nft's JSON parser knows no field of that name
		if (field == "unknown")
			fail("Unknown tcp option field '" + field + "'.");
		return "tcp option " + word(string_member(v, "name")) + (field.empty() ? "" : " " + field);
	}
	// json_unpack_err's words for the name ip option, sctp chunk and
	// exthdr must have
	if ((key == "ip option" || key == "sctp chunk" || key == "exthdr") && !member(v, "name"))
		fail("Object item not found: name");
	if (key == "ip option") {
		std::string field = word(string_member(v, "field", false));
		return "ip option " + word(string_member(v, "name")) + (field.empty() ? "" : " " + field);
	}
	if (key == "sctp chunk") {
		// nft's json_parse_sctp_chunk_expr: a chunk of nft's, a field
		// of that chunk's
		const std::string name = string_member(v, "name");
		if (!find_exthdr(NFT_EXTHDR_OP_SCTP, name, ""))
			fail("Unknown sctp chunk name '" + name + "'.");
		const std::string field = string_member(v, "field", false);
		if (!field.empty() && !find_exthdr(NFT_EXTHDR_OP_SCTP, name, field))
			fail("Unknown sctp chunk field '" + field + "'.");
		return "sctp chunk " + name + (field.empty() ? "" : " " + field);
	}
	if (key == "exthdr") {
		const std::string name = word(string_member(v, "name"));
		const std::string raw_field = string_member(v, "field", false);
		// a routing header's template names an address by its index
		// ("sid[1]"); rt0's reserved word is the template before addr[1]
		const bool known_header = find_exthdr(NFT_EXTHDR_OP_IPV6, name, "") || name == "rt0" ||
					  name == "srh";
		if (known_header && !raw_field.empty() && !find_exthdr(NFT_EXTHDR_OP_IPV6, name, raw_field))
			fail("Unknown " + name + " field " + raw_field + ".");
		if (known_header && (name == "rt0" || name == "srh"))
			return name + " " + (raw_field == "reserved" ? "addr[0]" : raw_field);
		std::string field = word(raw_field);
		return field.empty() ? "exthdr " + name : name + " " + field;
	}
	fail("Unknown expression type '" + key + "'.");
}

// ---- statements ----

std::string match_text(const Json &m)
{
	const Json *l = m.get("left"), *r = m.get("right");
	if (!l || !r)
		fail("Invalid match statement, expected 'left' and 'right'.");
	const std::string op = string_member(m, "op", false);
	std::string left = within("Invalid LHS of relational.", [&] { return expr_text(*l); });
	std::string right;
	// an interface name may be any word, nft's keywords too
	if (r->is_string() && l->is_object() && l->get("meta") && l->get("meta")->get("key")) {
		const std::string k = l->get("meta")->get("key")->is_string() ? l->get("meta")->get("key")->str() : "";
		if (k.find("name") != std::string::npos && r->str()[0] != '@')
			right = quoted(r->str());
	}
	if (right.empty())
		right = within("Invalid RHS of relational.", [&] {
			return r->is_array() ? operand_text(*r, "|", true) : expr_text(*r);
		});
	if (op.empty() || op == "in" || op == "==")
		return op == "==" && !(r->is_object() && (r->get("set") || r->get("range") || r->get("prefix"))) &&
				       !(r->is_string() && r->str()[0] == '@')
			       ? left + " == " + right
			       : left + " " + right;
	if (op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" || op == "!" || op == "&")
		return left + " " + op + " " + right;
	fail("Unknown relational op '" + op + "'.");
}

std::string counter_text(const Json &v)
{
	if (v.is_null())
		return "counter";
	if (v.is_string())
		return "counter name " + quoted(v.str());
	if (v.get("map"))
		return "counter name " + expr_text(Json::wrap("map", *v.get("map")));
	int64_t p = 0, b = 0;
	if (!int_member(v, "packets", p) && !int_member(v, "bytes", b))
		return "counter";
	int_member(v, "bytes", b);
	return "counter packets " + unsigned_text(p) + " bytes " + unsigned_text(b);
}

std::string limit_text(const Json &v)
{
	if (v.is_string())
		return "limit name " + quoted(v.str());
	if (v.get("map"))
		return "limit name " + expr_text(Json::wrap("map", *v.get("map")));
	int64_t rate = 0, burst = 0;
	int_member(v, "rate", rate);
	bool have_burst = int_member(v, "burst", burst);
	const Json *inv = v.get("inv");
	std::string per = word(string_member(v, "per", false));
	if (per.empty())
		per = "second";
	const std::string rate_unit = word(string_member(v, "rate_unit", false));
	const bool bytes = !rate_unit.empty() && rate_unit != "packets";
	std::string s = "limit rate ";
	if (inv && inv->is_bool() && inv->bool_value())
		s += "over ";
	s += unsigned_text(rate) + (bytes ? " " + rate_unit : "") + "/" + per;
	if (have_burst && (burst != 0 || !bytes)) {
		std::string bu = word(string_member(v, "burst_unit", false));
		s += " burst " + unsigned_text(burst) + " " + (bytes ? (bu.empty() ? "bytes" : bu) : "packets");
	}
	return s;
}

std::string quota_text(const Json &v)
{
	if (v.is_string())
		return "quota name " + quoted(v.str());
	if (v.get("map"))
		return "quota name " + expr_text(Json::wrap("map", *v.get("map")));
	int64_t val = 0, used = 0;
	int_member(v, "val", val);
	const Json *inv = v.get("inv");
	std::string s = "quota ";
	if (inv && inv->is_bool() && inv->bool_value())
		s += "over ";
	std::string unit = word(string_member(v, "val_unit", false));
	s += unsigned_text(val) + " " + (unit.empty() ? "bytes" : unit);
	if (int_member(v, "used", used)) {
		std::string uu = word(string_member(v, "used_unit", false));
		s += " used " + unsigned_text(used) + " " + (uu.empty() ? "bytes" : uu);
	}
	return s;
}

std::string log_text(const Json &v)
{
	std::string s = "log";
	if (v.is_null())
		return s;
	if (v.get("prefix"))
		s += " prefix " + quoted(string_member(v, "prefix"));
	int64_t n;
	if (int_member(v, "group", n))
		s += " group " + std::to_string(n);
	if (int_member(v, "snaplen", n))
		s += " snaplen " + std::to_string(n);
	if (int_member(v, "queue-threshold", n))
		s += " queue-threshold " + std::to_string(n);
	if (v.get("level"))
		s += " level " + word(string_member(v, "level"));
	if (const Json *f = v.get("flags")) {
		std::vector<std::string> flags;
		if (f->is_string())
			flags.push_back(words(f->str()));
		else if (f->is_array())
			for (auto &x : f->items())
				flags.push_back(x.is_string() ? words(x.str()) : "");
		std::string list;
		for (auto &x : flags) {
			if (x == "ether")
				x = "ether";
			list += (list.empty() ? "" : ",") + x;
		}
		// nft's words: flags tcp sequence,options / ip options / skuid / ether / all
		std::string tcp;
		std::string out;
		for (auto &x : flags) {
			if (x == "tcp sequence" || x == "tcp options") {
				tcp += (tcp.empty() ? "" : ",") + x.substr(4);
				continue;
			}
			out += " flags " + x;
		}
		if (!tcp.empty())
			out = " flags tcp " + tcp + out;
		s += out;
	}
	return s;
}

std::string reject_text(const Json &v)
{
	if (v.is_null())
		return "reject";
	std::string type = word(string_member(v, "type", false));
	const Json *e = v.get("expr");
	if (type == "tcp reset")
		return "reject with tcp reset";
	if (type.empty())
		return "reject";
	std::string s = "reject with " + type;
	if (e)
		s += " " + expr_text(*e);
	return s;
}

std::string mangle_text(const Json &v)
{
	const Json *k = v.get("key"), *val = v.get("value");
	if (!k || !val)
		fail("Invalid mangle statement, expected 'key' and 'value'.");
	std::string key = within("Invalid mangle statement key", [&] { return expr_text(*k); });
	return key + " set " + within("Invalid mangle statement value", [&] {
		// nft's JSON parser takes a statement's value in its STMT
		// context, where it has no IP options or SCTP chunks
		for (const char *x : {"ip option", "sctp chunk"})
			if (val->is_object() && val->get(x))
				fail(std::string("Expression type ") + x + " not allowed in context (STMT).");
		// nor, as a map's key there, TCP options
		const Json *map = val->is_object() ? val->get("map") : nullptr;
		const Json *map_key = map && map->is_object() ? map->get("key") : nullptr;
		for (const char *x : {"tcp option", "ip option", "sctp chunk"})
			if (map_key && map_key->is_object() && map_key->get(x))
				fail(std::string("Expression type ") + x + " not allowed in context (STMT).");
		return expr_text(*val);
	});
}

std::string set_stmt_text(const Json &v)
{
	const std::string op = word(string_member(v, "op"));
	const Json *e = v.get("elem");
	if (!e)
		fail("Missing 'elem' property.");
	std::string s = op + " " + word(string_member(v, "set")) + " { " + expr_text(*e);
	if (const Json *st = v.get("stmt")) {
		if (!st->is_array())
			fail("Unexpected stmt, expected array.");
		for (auto &x : st->items())
			s += " " + stmt_text(x);
	}
	return s + " }";
}

std::string meter_text(const Json &v)
{
	const Json *k = v.get("key"), *st = v.get("stmt");
	if (!k || !st)
		fail("Invalid meter statement, expected 'key' and 'stmt'.");
	std::string s = "meter " + name_text(string_member(v, "name"));
	int64_t size;
	if (int_member(v, "size", size))
		s += " size " + std::to_string(static_cast<uint32_t>(size));
	return s + " { " + expr_text(*k) + " " + stmt_text(*st) + " }";
}

std::string stmt_text(const Json &j)
{
	if (!j.is_object())
		fail(std::string("Unexpected expr array element of type ") + kind_name(j) + ", expected object.");
	const auto &[key, v] = single_member(j, "statement");
	if (is_verdict(key))
		return verdict_text(key, v);
	if (key == "match")
		return match_text(v);
	if (key == "counter")
		return counter_text(v);
	if (key == "limit")
		return limit_text(v);
	if (key == "quota")
		return quota_text(v);
	if (key == "log")
		return log_text(v);
	if (key == "reject")
		return reject_text(v);
	if (key == "mangle")
		return mangle_text(v);
	if (key == "reset") {
		// nft's optstrip statement: a TCP option, by name or raw kind
		const Json &option = v;	/* (a structured binding: not captured by clang 14) */
		std::string opt = within("Invalid reset statement", [&] { return expr_text(option); });
		if (opt.rfind("tcp option @", 0) == 0)
			opt = "tcp option " + opt.substr(12, opt.find(',') - 12);
		return "reset " + opt;
	}
	if (key == "set")
		return set_stmt_text(v);
	if (key == "meter")
		return meter_text(v);
	if (key == "notrack")
		return "notrack";
	if (key == "vmap") {
		const Json *k = v.get("key"), *d = v.get("data");
		if (!k || !d)
			fail("Invalid vmap statement, expected 'key' and 'data'.");
		// nft's JSON parser reads a vmap's key in no context, where it
		// has no TCP option, IP option or SCTP chunk
		for (const char *x : {"tcp option", "ip option", "sctp chunk"})
			if (k->is_object() && k->get(x))
				fail(std::string("Expression type ") + x + " not allowed in context ().");
		return expr_text(*k) + " vmap " + expr_text(*d);
	}
	if (key == "flow") {
		return "flow " + word(string_member(v, "op")) + " " + word(string_member(v, "flowtable"));
	}
	if (key == "ct count") {
		int64_t n = 0;
		int_member(v, "val", n);
		const Json *inv = v.get("inv");
		return std::string("ct count ") + (inv && inv->is_bool() && inv->bool_value() ? "over " : "") +
		       std::to_string(n);
	}
	static const char *const nft_has[] = {"dup", "fwd", "nat", "snat", "dnat", "masquerade",
					      "redirect", "queue", "xt", "synproxy", "tproxy", "secmark",
					      "ct helper", "ct timeout", "ct expectation", "map", "last"};
	for (const char *k : nft_has)
		if (key == k)
			fail("xnft does not support the '" + key + "' statement (bridge family subset).");
	fail("Unknown statement object '" + key + "'.");
}

// ---- commands ----

std::string rule_text(const std::string &verb, const Json &r)
{
	std::string s = verb + " rule " + family_of(r) + " " + name_text(string_member(r, "table")) + " " +
			name_text(string_member(r, "chain"));
	int64_t handle, index;
	const bool has_handle = int_member(r, "handle", handle);
	if (verb == "replace" || verb == "delete") {
		if (!has_handle)
			fail("Handle is required for " + verb + " rule.");
		s += " handle " + unsigned_text(handle);
		if (verb == "delete")
			return s;
	} else if (int_member(r, "index", index)) {
		s += " index " + unsigned_text(index);
	} else if (has_handle && verb == "insert") {
		// nft 1.0.6: an insert goes before the rule whose handle it
		// names; an add's handle (and "position", for both) is ignored:
		// the rule is appended, as a listing read back must be
		s += " position " + unsigned_text(handle);
	}
	const Json *expr = r.get("expr");
	if (!expr || !expr->is_array())
		fail("Invalid rule, expected 'expr' array.");
	for (size_t i = 0; i < expr->size(); i++)
		s += " " + within("Parsing expr array at index " + std::to_string(i) + " failed.",
				  [&] { return stmt_text(expr->items()[i]); });
	if (r.get("comment"))
		s += " comment " + quoted(string_member(r, "comment"));
	return s;
}

std::string type_text(const Json &t)
{
	if (t.is_string())
		return word(t.str());
	if (t.is_array()) {
		std::string s;
		for (auto &x : t.items()) {
			if (!x.is_string())
				fail("Invalid set type.");
			s += (s.empty() ? "" : " . ") + word(x.str());
		}
		return s;
	}
	fail("Invalid set type.");
}

std::string set_text(const std::string &verb, const std::string &kind, const Json &s)
{
	std::string t = verb + " " + kind + " " + family_of(s) + " " + name_text(string_member(s, "table")) + " " +
			name_text(string_member(s, "name"));
	if (verb == "delete" || verb == "flush" || verb == "list")
		return t;
	const Json *type = s.get("type");
	if (!type)
		fail("Invalid set type.");
	std::string body = "type " + type_text(*type);
	if (kind == "map") {
		const Json *data = s.get("map");
		if (!data)
			fail("Map has no 'map' property.");
		body += " : " + type_text(*data);
	}
	body += "; ";
	if (const Json *f = s.get("flags")) {
		std::string list;
		if (f->is_string())
			list = f->str();
		else if (f->is_array())
			for (auto &x : f->items())
				list += (list.empty() ? "" : ", ") + (x.is_string() ? word(x.str()) : "");
		if (!list.empty())
			body += "flags " + list + "; ";
	}
	int64_t n;
	if (int_member(s, "timeout", n))
		body += "timeout " + seconds_text(n) + "; ";
	if (int_member(s, "gc-interval", n))
		body += "gc-interval " + seconds_text(n) + "; ";
	if (int_member(s, "size", n))
		body += "size " + unsigned_text(n) + "; ";
	if (s.get("policy"))
		body += "policy " + word(string_member(s, "policy")) + "; ";
	if (s.get("comment"))
		body += "comment " + quoted(string_member(s, "comment")) + "; ";
	if (const Json *st = s.get("stmt")) {
		if (!st->is_array())
			fail("Unexpected stmt, expected array.");
		for (auto &x : st->items())
			body += stmt_text(x) + " ";
		body += "; ";
	}
	if (const Json *e = s.get("elem"))
		body += "elements = " + set_literal_text(*e) + "; ";
	return t + " { " + body + "}";
}

std::string element_text(const std::string &verb, const Json &e)
{
	const Json *elem = e.get("elem");
	if (!elem)
		fail("Missing 'elem' property.");
	return verb + " element " + family_of(e) + " " + name_text(string_member(e, "table")) + " " +
	       name_text(string_member(e, "name")) + " " + set_literal_text(*elem);
}

std::string table_text(const std::string &verb, const Json &t)
{
	std::string s = verb + " table " + family_of(t);
	int64_t handle;
	if ((verb == "delete") && !t.get("name") && int_member(t, "handle", handle))
		return s + " handle " + unsigned_text(handle);
	s += " " + name_text(string_member(t, "name"));
	if (verb != "add" && verb != "create")
		return s;
	std::string body;
	if (const Json *f = t.get("flags")) {
		std::string list;
		if (f->is_string())
			list = f->str();
		else if (f->is_array())
			for (auto &x : f->items())
				list += (list.empty() ? "" : ",") + (x.is_string() ? word(x.str()) : "");
		if (!list.empty())
			body += " flags " + list + ";";
	}
	if (t.get("comment"))
		body += " comment " + quoted(string_member(t, "comment")) + ";";
	return body.empty() ? s : s + " {" + body + " }";
}

std::string chain_text(const std::string &verb, const Json &c)
{
	std::string s = verb + " chain " + family_of(c) + " " + name_text(string_member(c, "table"));
	int64_t handle;
	if (verb == "delete" && !c.get("name") && int_member(c, "handle", handle))
		return s + " handle " + unsigned_text(handle);
	s += " " + name_text(string_member(c, "name"));
	if (verb != "add" && verb != "create")
		return s;
	std::string body;
	if (c.get("hook")) {
		int64_t prio = 0;
		if (!int_member(c, "prio", prio))
			fail("Invalid chain, 'prio' is missing.");
		std::string type = word(string_member(c, "type", false));
		body += " type " + (type.empty() ? std::string("filter") : type) + " hook " + word(string_member(c, "hook")) +
			" priority " + std::to_string(prio) + ";";
		if (const Json *dev = c.get("dev")) {
			std::string list;
			if (dev->is_string())
				list = quoted(dev->str());
			else if (dev->is_array())
				for (auto &x : dev->items())
					list += (list.empty() ? "" : ", ") + quoted(x.is_string() ? x.str() : "");
			body += " devices = { " + list + " };";
		}
		if (c.get("policy"))
			body += " policy " + word(string_member(c, "policy")) + ";";
	}
	if (c.get("comment"))
		body += " comment " + quoted(string_member(c, "comment")) + ";";
	return body.empty() ? s : s + " {" + body + " }";
}

std::string flowtable_text(const std::string &verb, const Json &f)
{
	std::string s = verb + " flowtable " + family_of(f) + " " + name_text(string_member(f, "table")) + " " +
			name_text(string_member(f, "name"));
	if (verb != "add" && verb != "create")
		return s;
	int64_t prio = 0;
	int_member(f, "prio", prio);
	std::string body = " hook " + word(string_member(f, "hook")) + " priority " + std::to_string(prio) + ";";
	if (const Json *dev = f.get("dev")) {
		std::string list;
		if (dev->is_string())
			list = quoted(dev->str());
		else if (dev->is_array())
			for (auto &x : dev->items())
				list += (list.empty() ? "" : ", ") + quoted(x.is_string() ? x.str() : "");
		body += " devices = { " + list + " };";
	}
	return s + " {" + body + " }";
}

// Named counters, quotas and limits.
std::string object_text(const std::string &verb, const std::string &kind, const Json &o)
{
	std::string s = verb + " " + kind + " " + family_of(o) + " " + name_text(string_member(o, "table")) + " " +
			name_text(string_member(o, "name"));
	if (verb != "add" && verb != "create")
		return s;
	std::string body;
	int64_t n = 0;
	if (kind == "counter") {
		int64_t p = 0, b = 0;
		int_member(o, "packets", p);
		int_member(o, "bytes", b);
		body += " packets " + unsigned_text(p) + " bytes " + unsigned_text(b) + ";";
	} else if (kind == "quota") {
		const Json *inv = o.get("inv");
		body += std::string(" ") + (inv && inv->is_bool() && inv->bool_value() ? "over " : "");
		int_member(o, "bytes", n);
		body += unsigned_text(n) + " bytes";
		if (int_member(o, "used", n))
			body += " used " + unsigned_text(n) + " bytes";
		body += ";";
	} else {
		// limit: the rule's statement's words after `limit`
		std::string l = limit_text(o);
		body += " " + l.substr(std::string("limit ").size()) + ";";
	}
	if (o.get("comment"))
		body += " comment " + quoted(string_member(o, "comment")) + ";";
	return s + " {" + body + " }";
}

// A list command: {"ruleset": null}, {"tables": null} or {"tables":
// {"family": F}}, {"table": {...}}, ...
std::string list_text(const std::string &verb, const std::string &what, const Json &o)
{
	if (what == "ruleset") {
		std::string f = o.is_object() ? word(string_member(o, "family", false)) : "";
		return verb + " ruleset" + (f.empty() ? "" : " " + f);
	}
	if (what.back() == 's' && what != "flowtables" ? true : what == "flowtables") {
		std::string f = o.is_object() ? word(string_member(o, "family", false)) : "";
		std::string t = o.is_object() ? word(string_member(o, "table", false)) : "";
		return verb + " " + what + (f.empty() ? "" : " " + f) + (t.empty() ? "" : " " + t);
	}
	if (what == "table")
		return verb + " table " + family_of(o) + " " + name_text(string_member(o, "name"));
	return verb + " " + what + " " + family_of(o) + " " + name_text(string_member(o, "table")) + " " +
	       name_text(string_member(o, "name"));
}

// One command: VERB (add, create, insert, replace, delete, flush, list,
// reset) on the object OBJ ({"table": {...}} ...).
std::string command_text(const std::string &verb, const Json &obj)
{
	if (!obj.is_object() || obj.size() != 1)
		fail("Unknown object passed to " + verb + " command.");
	const auto &[what, v] = obj.members()[0];
	if (verb == "list" || verb == "reset") {
		static const char *const listable[] = {"ruleset", "table", "tables", "chain", "chains", "set", "sets",
						       "map", "maps", "flowtable", "flowtables", "counter", "counters",
						       "quota", "quotas", "limit", "limits"};
		for (const char *k : listable)
			if (what == k)
				return list_text(verb, what, v);
		fail("Unknown object passed to " + verb + " command.");
	}
	// nft's json_parse_cmd_rename: a chain, by its name, to "newname"
	if (verb == "rename") {
		if (what != "chain")
			fail("Object item not found: chain");
		if (!v.is_object())
			fail("Unknown object passed to rename command.");
		// json_unpack_err's words for a member it lacks, in its order
		for (const char *key : {"family", "table", "name", "newname"})
			if (!v.get(key))
				fail(std::string("Object item not found: ") + key);
		return "rename chain " + family_of(v) + " " + name_text(string_member(v, "table")) + " " +
		       name_text(string_member(v, "name")) + " " + name_text(string_member(v, "newname"));
	}
	if (what == "ruleset" && verb == "flush")
		return "flush ruleset" + (v.is_object() && v.get("family") ? " " + word(string_member(v, "family")) : "");
	if (!v.is_object())
		fail("Unknown object passed to " + verb + " command.");
	if (what == "table")
		return table_text(verb, v);
	if (what == "chain")
		return chain_text(verb, v);
	if (what == "rule") {
		if (verb == "flush" || verb == "create")
			fail("Unknown object passed to " + verb + " command.");
		return rule_text(verb, v);
	}
	if (what == "set" || what == "map")
		return set_text(verb, what, v);
	if (what == "element")
		return element_text(verb, v);
	if (what == "flowtable")
		return flowtable_text(verb, v);
	if (what == "counter" || what == "quota" || what == "limit")
		return object_text(verb, what, v);
	fail("Unknown object passed to " + verb + " command.");
}

} // namespace

std::vector<JsonCommandText> json_to_nft_text(const Json &root)
{
	const Json *cmds = member(root, "nftables");
	if (!cmds || !cmds->is_array())
		fail("No 'nftables' array found in JSON input.");  // nft: json_parse_cmds' complaint
	std::vector<JsonCommandText> out;
	static const char *const verbs[] = {"add",   "create", "insert", "replace", "delete",
					    "flush", "list",   "reset",  "rename"};
	for (size_t i = 0; i < cmds->size(); i++) {
		const Json &c = cmds->items()[i];
		within("Parsing command array at index " + std::to_string(i) + " failed.", [&] {
			if (!c.is_object())
				fail(std::string("Unexpected command array element of type ") + kind_name(c) +
				     ", expected object.");
			if (c.size() == 1 && c.members()[0].first == "metainfo")
				return 0;
			for (const char *verb : verbs)
				if (c.size() == 1 && c.members()[0].first == verb) {
					out.push_back({command_text(verb, c.members()[0].second), i});
					return 0;
				}
			// a bare object means add
			out.push_back({command_text("add", c), i});
			return 0;
		});
	}
	return out;
}

std::string format_json_error(const JsonInputError &e)
{
	std::string out;
	for (auto &m : e.messages)
		out += "internal:0:0-0: Error: " + m + "\n\n";
	return out;
}

} // namespace xnft
