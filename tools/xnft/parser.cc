// parser.cc - recursive-descent parser for nft's language (see parser.h).
#include "parser.h"
#include "protocols.h"
#include "raw_payload.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <linux/netfilter/nf_tables.h>
#include <set>
#include <sstream>

namespace xnft {

ExprPtr make_expr(ExprKind k, const Location &loc)
{
	auto e = std::make_unique<Expr>();
	e->kind = k;
	e->loc = loc;
	return e;
}

static const std::set<std::string> payload_protos = {
	"ether", "vlan", "ip", "ip6", "tcp", "udp", "icmp", "icmpv6", "arp", "th",
	"sctp", "dccp", "udplite", "ah", "esp", "comp",
};
// Whether WORD after PROTO names one of its fields (`ip saddr`, `arp
// saddr ip`, `ip option`): the two are a header field, not a value.
static bool names_field(const std::string &proto, const std::string &word)
{
	if (proto == "ip" && word == "option")
		return true;
	size_t n;
	const PayloadField *all = payload_fields_all(n);
	for (size_t i = 0; i < n; i++) {
		const std::string name = all[i].name;
		if (all[i].proto == proto && (name == word || name.rfind(word + " ", 0) == 0))
			return true;
	}
	return false;
}
// What nft 1.0.6's grammar expects after a protocol's keyword, as bison
// words it: the fields in token order when there are at most four (its
// verbose error lists no more), nothing otherwise.
static std::string field_expectation(const std::string &proto)
{
	static const std::map<std::string, const char *> few = {
		{"ether", "saddr or daddr or type"},
		{"udp", "length or checksum or sport or dport"},
		{"udplite", "checksum or sport or dport or csumcov"},
		{"th", "sport or dport"},
		{"dccp", "type or sport or dport"},
		{"esp", "seq or spi"},
		{"comp", "nexthdr or flags or cpi"},
	};
	auto it = few.find(proto);
	return it == few.end() ? "" : std::string(", expecting ") + it->second;
}
// A word nft's scanner reads as a NUM: decimal or 0x hex digits.
static bool is_number_word(const std::string &w)
{
	size_t at = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') ? 2 : 0;
	if (at == w.size())
		return false;
	for (size_t i = at; i < w.size(); i++)
		if (!(at ? isxdigit(static_cast<unsigned char>(w[i])) : isdigit(static_cast<unsigned char>(w[i]))))
			return false;
	return true;
}
// Meta keys nft accepts without the `meta` keyword.
static const std::set<std::string> bare_meta_keys = {
	"mark", "iif", "iifname", "iiftype", "oif", "oifname", "oiftype",
	"skuid", "skgid", "nftrace", "rtclassid", "ibriport", "obriport",
	"ibrname", "obrname", "pkttype", "cpu", "iifgroup", "oifgroup", "cgroup",
	"time", "day", "hour",
};
// nft 1.0.6's meta keys (meta_templates, in its order) and the old
// names it still takes. A word its scanner has no token for is a string
// to its grammar (META STRING), which meta_key_parse() looks up here.
static const char *const kNftMetaKeys[] = {
	"length", "protocol", "priority", "mark", "iif", "oif", "iifname", "oifname", "iiftype",
	"oiftype", "skuid", "skgid", "nftrace", "rtclassid", "secmark", "nfproto", "l4proto",
	"ibrname", "obrname", "pkttype", "cpu", "iifgroup", "oifgroup", "cgroup", "random", "ipsec",
	"iifkind", "oifkind", "ibrpvid", "ibrvproto", "time", "day", "hour", "sdif", "sdifname",
};
// Whether `meta WORD` names a key for nft 1.0.6; a word its scanner makes
// a keyword of is its grammar's business (a plain syntax error), not
// meta_key_parse()'s, and so is a number.
static bool nft_meta_key(const std::string &w);
// meta_key_parse()'s error for WORD: the keys it knows.
static std::string unknown_meta_key(const std::string &w)
{
	std::string known;
	for (const char *k : kNftMetaKeys)
		known += (known.empty() ? "" : ", ") + std::string(k);
	return "syntax error, unexpected " + w + ", known keys are " + known;
}
static const std::set<std::string> families = {
	"ip", "ip6", "inet", "arp", "bridge", "netdev",
};

const SourceFile &Parser::add_source(std::string name, std::string text)
{
	files_.push_back(SourceFile{std::move(name), std::move(text)});
	return files_.back();
}

std::vector<Command> Parser::parse_file(const std::string &path)
{
	std::string text;
	if (path == "-") {
		text.assign(std::istreambuf_iterator<char>(std::cin), {});
	} else {
		std::ifstream in(path);
		if (!in)
			throw LangError(Location{}, "Could not process rule: No such file or directory\n"
					"  unable to open " + path);
		text.assign(std::istreambuf_iterator<char>(in), {});
	}
	include_stack_.push_back(path);
	return parse_source(add_source(path, text));
}

std::vector<Command> Parser::parse_text(const std::string &text)
{
	return parse_source(add_source("", text));
}

std::vector<Command> Parser::parse_named_text(const std::string &name, const std::string &text)
{
	return parse_source(add_source(name, text));
}

namespace {
// Ends the parse as bison's YYABORT does: the end of the input was reached
// while recovering, or too many errors.
struct ParseAborted {};
} // namespace

std::vector<Command> Parser::parse_source(const SourceFile &f)
{
	auto toks = tokenize(f);
	toks_.assign(toks.begin(), toks.end());
	end_tok_ = toks_.back();
	errors_.clear();
	recovered_ = 0;
	std::vector<Command> out;
	try {
		while (true) {
			skip_separators();
			if (peek().kind == Tok::End)
				break;
			try {
				parse_line(out);
			} catch (const LangError &e) {
				recover(e);
			}
		}
	} catch (const ParseAborted &) {
	}
	if (!keep_errors && !errors_.empty())
		throw errors_.front();
	return out;
}

void Parser::recover(const LangError &err)
{
	errors_.push_back(err);
	stmt_expr_ = false;
	// The token the error is about was bison's lookahead: when the parser
	// took it already and it is a separator, recovery ends right there.
	const Location &at = err.where();
	const bool lookahead_taken = last_taken_.loc.file == at.file && last_taken_.loc.line == at.line &&
				     last_taken_.loc.first_col == at.first_col;
	if (!(lookahead_taken && (last_taken_.kind == Tok::Newline || last_taken_.punct(";")))) {
		while (true) {
			// raw tokens: a $variable dropped is not looked up
			if (toks_.empty() || toks_.front().kind == Tok::End)
				throw ParseAborted{};
			const Token t = toks_.front();
			toks_.pop_front();
			if (t.kind == Tok::Newline || t.punct(";"))
				break;
		}
	}
	last_taken_ = Token{Tok::End, "", {}};
	if (++recovered_ == kMaxErrors)
		throw ParseAborted{};
}

static constexpr const char *kSeparator = "newline or semicolon";

template <class Body> void Parser::parse_block_rest(Body &&body)
{
	while (true) {
		body();
		expect("}", "'}'");
		if (peek().kind == Tok::Newline || peek().punct(";") || peek().kind == Tok::End)
			return;
		try {
			unexpected(peek(), kSeparator);
		} catch (const LangError &e) {
			recover(e);
		}
	}
}

template <class ParseItem> void Parser::parse_block_items(ParseItem &&parse_item)
{
	while (true) {
		skip_separators();
		if (peek().punct("}"))
			return;
		try {
			if (peek().kind == Tok::End)
				unexpected(peek());	// too many expectations to list
			const char *separator = parse_item();
			if (separator && peek().kind != Tok::Newline && !peek().punct(";"))
				unexpected(peek(), separator);
		} catch (const LangError &e) {
			recover(e);
		}
	}
}

// ---- token stream ----

void Parser::expand_variable()
{
	while (!toks_.empty() && toks_.front().kind == Tok::Variable) {
		Token v = toks_.front();
		auto it = vars_.find(v.text);
		if (it == vars_.end()) {
			Location l = v.loc;
			l.first_col++;  // nft points past the '$'
			throw LangError(l, "unknown identifier '" + v.text + "'");
		}
		toks_.pop_front();
		for (auto r = it->second.rbegin(); r != it->second.rend(); ++r) {
			Token t = *r;
			t.loc = v.loc;  // errors point at the use, as nft does
			toks_.push_front(t);
		}
	}
}

const Token &Parser::peek(size_t ahead)
{
	expand_variable();
	if (ahead >= toks_.size())
		return end_tok_;
	if (ahead > 0 && toks_[ahead].kind == Tok::Variable) {
		// Look-ahead across a variable: expand lazily only at the front;
		// report the variable itself.
		return toks_[ahead];
	}
	return toks_[ahead];
}

Token Parser::take()
{
	peek();
	if (toks_.empty())
		return end_tok_;
	Token t = toks_.front();
	if (t.kind != Tok::End)
		toks_.pop_front();
	last_loc_ = t.loc;
	last_taken_ = t;
	return t;
}

bool Parser::accept(const char *p)
{
	const Token &t = peek();
	if ((t.kind == Tok::Punct || t.kind == Tok::Word) && t.text == p) {
		take();
		return true;
	}
	return false;
}

// The words nft 1.0.6's scanner turns into keywords wherever a table,
// chain, set, flowtable or counter name stands (its `identifier` is a
// plain STRING token): nft refuses them there, unquoted or not, as it
// refuses any quoted name. Found by trying each word of nft's scanner as
// a chain name with nft 1.0.6 (`nft -c`). Its operator words (and, or,
// eq, not ...) are operators to the lexer already.
static const std::set<std::string> kReservedNames = {
	"accept", "add", "ah", "all", "arp", "auto-merge", "bridge", "cgroup", "chain", "comment",
	"comp", "constant", "continue", "counter", "cpu", "create", "ct", "day", "dccp", "define",
	"delete", "describe", "device", "devices", "dnat", "drop", "dst", "dup", "dynamic", "ecn",
	"element", "elements", "esp", "ether", "exists", "expires", "export", "exthdr", "fib",
	"flags", "flow", "flowtable", "flush", "frag", "fwd", "gc-interval", "get", "goto",
	"handle", "hbh", "hook", "hour", "ibriport", "ibrname", "icmp", "icmpv6", "igmp", "iif",
	"iifgroup", "iifname", "iiftype", "import", "include", "index", "inet", "insert",
	"interval", "ip", "ip6", "ipsec", "jhash", "jump", "limit", "list", "log", "map", "mark",
	"masquerade", "meta", "meter", "mh", "missing", "monitor", "netdev", "nftrace", "notrack",
	"numgen", "obriport", "obrname", "offload", "oif", "oifgroup", "oifname", "oiftype", "osf",
	"pkttype", "policy", "position", "priority", "queue", "quota", "random", "redefine",
	"redirect", "reject", "rename", "replace", "reset", "return", "rt", "rt0", "rt2",
	"rtclassid", "rule", "ruleset", "sctp", "secmark", "set", "size", "skgid", "skuid", "snat",
	"socket", "srh", "symhash", "synproxy", "table", "tcp", "th", "time", "timeout", "tproxy",
	"type", "typeof", "udp", "udplite", "undefine", "update", "vlan", "vmap", "xt"
};

// The other words nft 1.0.6's scanner makes keywords, in some scanner
// state or in all (scanner.l): an error about one names it, an error
// about any other word calls it a string (describe()).
static const std::set<std::string> kOtherScannerKeywords = {
	"a-rwnd", "abort", "ackseq", "addr", "asconf", "asconf-ack", "avgpkt", "burst", "bypass",
	"bytes", "cfi", "cgroupv2", "chains", "checksum", "chunk", "classid", "code",
	"cookie-ack", "cookie-echo", "count", "counters", "cpi", "cum-tsn-ack", "cwr", "daddr",
	"data", "dei", "direction", "doff", "dport", "dscp", "echo", "ecne", "eol", "error",
	"event", "expectation", "expiration", "fanout", "fastopen", "flowlabel", "flowtables",
	"forward-tsn", "frag-off", "fully-random", "gateway", "group", "hdrlength", "heartbeat",
	"heartbeat-ack", "helper", "helpers", "hlen", "hooks", "hoplimit", "htype", "icmpx", "id",
	"in", "inc", "init", "init-ack", "init-tag", "initial-tsn", "json", "l3proto", "label",
	"last-entry", "left", "length", "level", "limits", "ll", "lowest-tsn", "lsrr", "maps",
	"max-delay", "maxseg", "md5sig", "memory", "meters", "minute", "mod", "more-fragments",
	"mptcp", "mrt", "mss", "mtu", "name", "new-cum-tsn", "nexthdr", "nexthop", "nh", "noop",
	"nop", "num", "num-dup-tsns", "num-gap-ack-blocks", "num-inbound-streams",
	"num-outbound-streams", "offset", "operation", "option", "options", "original", "out",
	"over", "packets", "param-problem", "pcp", "performance", "persistent", "plen", "port",
	"ppid", "prefix", "proto-dst", "proto-src", "protocol", "ptr", "ptype", "queue-threshold",
	"quotas", "ra", "rate", "reply", "reqid", "reserved", "reserved2", "right", "rr", "rules",
	"sack", "sack-perm", "sack-permitted", "sack0", "sack1", "sack2", "sack3", "saddr",
	"secmarks", "second", "seed", "seg-left", "seqno", "sequence", "sets", "shutdown",
	"shutdown-ack", "shutdown-complete", "sid", "snaplen", "spi", "spnum", "sport", "ssn",
	"ssrr", "state", "status", "stream", "subtype", "synproxys", "tables", "tag", "timestamp",
	"to", "trace", "transparent", "tsecr", "tsn", "tsval", "ttl", "until", "urgptr", "used",
	"value", "version", "vm", "vtag", "week", "wildcard", "window", "with", "wscale", "xml",
	"zone"
};

static bool nft_meta_key(const std::string &w)
{
	if (kReservedNames.count(w) || kOtherScannerKeywords.count(w) || is_number_word(w) ||
	    w == "ibriport" || w == "obriport" || w == "secpath")
		return true;
	return std::find(std::begin(kNftMetaKeys), std::end(kNftMetaKeys), w) != std::end(kNftMetaKeys);
}

static std::string describe(const Token &t)
{
	switch (t.kind) {
	case Tok::End: return "end of file";
	case Tok::Newline: return "newline";
	case Tok::Junk: return "junk";
	case Tok::String: return "quoted string";
	case Tok::Variable: return "variable";
	// bison names a character token quoted
	case Tok::Punct:
		if (t.text == "|" || t.text == "{" || t.text == "}" || t.text == "(" || t.text == ")" ||
		    t.text == "=" || t.text == "$" || t.text == "[" || t.text == "]")
			return "'" + t.text + "'";
		// nft's SEMICOLON, COMMA and COLON tokens; the others are
		// named as written
		if (t.text == ";")
			return "semicolon";
		if (t.text == ",")
			return "comma";
		if (t.text == ":")
			return "colon";
		return t.text;
	case Tok::Word:
		// nft's scanner: a keyword is its own token, any other word
		// a number or a plain string
		if (is_number_word(t.text))
			return "number";
		return kReservedNames.count(t.text) || kOtherScannerKeywords.count(t.text) ? t.text : "string";
	default: return t.text;
	}
}

// How many tokens EXPECTING names ("a, b or c": 3).
static size_t expected_tokens(const std::string &expecting)
{
	size_t n = 1;
	for (size_t at = 0; (at = expecting.find_first_of(",", at)) != std::string::npos; at++)
		n++;
	for (size_t at = 0; (at = expecting.find(" or ", at)) != std::string::npos; at += 4)
		n++;
	return n;
}

void Parser::unexpected(const Token &t, const std::string &expecting)
{
	std::string msg = "syntax error, unexpected " + describe(t);
	// bison names four expected tokens at most, none when there are more
	if (!expecting.empty() && expected_tokens(expecting) <= 4)
		msg += ", expecting " + expecting;
	throw LangError(t.loc, msg);
}

Token Parser::expect(const char *p, const char *what)
{
	const Token &t = peek();
	if ((t.kind == Tok::Punct || t.kind == Tok::Word) && t.text == p)
		return take();
	unexpected(t, what);
}

std::string Parser::expect_name(const char *what)
{
	const Token &t = peek();
	if (t.kind == Tok::Word || t.kind == Tok::String)
		return take().text;
	unexpected(t, what);
}

// A table, chain, set, flowtable or counter name: nft's `identifier`, an
// unquoted word that is no keyword.
std::string Parser::expect_identifier(const char *expecting)
{
	const Token &t = peek();
	if (t.kind == Tok::Word && kReservedNames.count(t.text))
		throw LangError(t.loc, "syntax error, unexpected " + t.text + ", expecting " + expecting);
	if (t.kind == Tok::Word)
		return take().text;
	unexpected(t, expecting);
}

bool Parser::at_end_of_stmt()
{
	const Token &t = peek();
	return t.kind == Tok::Newline || t.kind == Tok::End || t.punct(";") || t.punct("}");
}

void Parser::skip_separators()
{
	while (peek().kind == Tok::Newline || peek().punct(";"))
		take();
}

// ---- commands ----

std::string Parser::parse_family_opt()
{
	const Token &t = peek();
	// a family is a keyword, never a name: `add table bridge` lacks the name
	if (t.kind == Tok::Word && families.count(t.text))
		return take().text;
	return "ip";
}

void Parser::parse_define()
{
	std::string name = expect_name("string");
	expect("=", "'='");
	std::vector<Token> body;
	int depth = 0;
	while (true) {
		const Token &t = peek();
		if (t.kind == Tok::End)
			break;
		if (depth == 0 && (t.kind == Tok::Newline || t.punct(";")))
			break;
		if (t.punct("{"))
			depth++;
		if (t.punct("}"))
			depth--;
		body.push_back(take());
	}
	if (body.empty())
		unexpected(peek(), "expression");
	vars_[name] = std::move(body);
}

void Parser::parse_include()
{
	Token t = take();
	if (t.kind != Tok::String)
		unexpected(t, "quoted string");
	std::string path = t.text;
	std::string full = path;
	if (!path.empty() && path[0] != '/') {
		std::string dir;
		const std::string &cur = t.loc.file ? t.loc.file->name : "";
		size_t slash = cur.rfind('/');
		if (slash != std::string::npos)
			dir = cur.substr(0, slash + 1);
		full = dir + path;
		std::ifstream probe(full);
		if (!probe) {
			for (auto &d : include_dirs) {
				std::string cand = d + "/" + path;
				if (std::ifstream(cand)) {
					full = cand;
					break;
				}
			}
		}
	}
	std::ifstream in(full);
	if (!in)
		throw LangError(t.loc, "File not found: " + path);
	for (auto &s : include_stack_)
		if (s == full)
			throw LangError(t.loc, "Include nested too deeply, max 16 levels");
	if (include_stack_.size() > 16)
		throw LangError(t.loc, "Include nested too deeply, max 16 levels");
	std::string text((std::istreambuf_iterator<char>(in)), {});
	const SourceFile &f = add_source(full, text);
	auto toks = tokenize(f);
	toks.pop_back();  // End
	toks_.insert(toks_.begin(), toks.begin(), toks.end());
}

static Verb verb_of(const std::string &w, bool &ok)
{
	ok = true;
	if (w == "add") return Verb::Add;
	if (w == "create") return Verb::Create;
	if (w == "insert") return Verb::Insert;
	if (w == "replace") return Verb::Replace;
	if (w == "delete") return Verb::Delete;
	if (w == "flush") return Verb::Flush;
	if (w == "list") return Verb::List;
	if (w == "reset") return Verb::Reset;
	if (w == "rename") return Verb::Rename;
	if (w == "get") return Verb::Get;
	ok = false;
	return Verb::Add;
}

void Parser::parse_line(std::vector<Command> &out)
{
	Token first = peek();
	if (first.kind != Tok::Word)
		unexpected(first);
	if (first.text == "define" || first.text == "redefine") {
		take();
		parse_define();
		return;
	}
	if (first.text == "undefine") {
		take();
		vars_.erase(expect_name("string"));
		return;
	}
	if (first.text == "include") {
		take();
		parse_include();
		return;
	}
	Command cmd;
	cmd.loc = first.loc;
	bool is_verb;
	cmd.verb = verb_of(first.text, is_verb);
	// nft's base_cmd takes an add_cmd without `add`: an object word, or a
	// rule (`bridge t c counter`, `t c counter`: its rule_position), so
	// a line's first word that is neither is a table's name (nft 1.0.6
	// has no `destroy` either: `destroy table ...` is a rule's table)
	bool implicit_rule = false;
	if (is_verb)
		take();
	else if (first.text != "table" && first.text != "chain" && first.text != "rule" &&
		 first.text != "set" && first.text != "map" && first.text != "flowtable" &&
		 first.text != "element" && first.text != "counter" && first.text != "quota" &&
		 first.text != "limit")
		implicit_rule = true;
	// a keyword is no table's name: nothing was expected of it
	if (implicit_rule && !families.count(first.text) && kReservedNames.count(first.text))
		unexpected(first);
	Token objt = implicit_rule ? first : take();
	if (implicit_rule)
		objt.text = "rule";
	// nft's add_cmd takes a rule without the word `rule` (`add bridge t c
	// counter`); insert and replace do not
	if (is_verb && objt.kind == Tok::Word && families.count(objt.text)) {
		if (cmd.verb == Verb::Insert || cmd.verb == Verb::Replace)
			unexpected(objt, "rule");
		if (cmd.verb == Verb::Add) {
			toks_.push_front(objt);
			objt.text = "rule";
		}
	}
	const std::string &o = objt.text;
	// nft's get_cmd: `get element` only; its rename_cmd: `rename chain`
	if (cmd.verb == Verb::Get && !objt.is("element"))
		unexpected(objt, "element");
	if (cmd.verb == Verb::Rename && !objt.is("chain"))
		unexpected(objt, "chain");
	if (objt.kind != Tok::Word)
		unexpected(objt, "table, chain, rule, set, map, element or flowtable");
	if (o == "ruleset") {
		cmd.obj = Obj::Ruleset;
		if (peek().kind == Tok::Word && families.count(peek().text))
			cmd.family = take().text;
		else
			cmd.family = "";
	} else if (o == "tables" || o == "chains" || o == "sets" || o == "maps" || o == "flowtables" ||
		   o == "counters" || o == "quotas" || o == "limits") {
		cmd.obj = o == "tables" ? Obj::Tables : o == "chains" ? Obj::Chains :
			  o == "sets" ? Obj::Sets : o == "maps" ? Obj::Maps :
			  o == "counters" ? Obj::Counters : o == "quotas" ? Obj::Quotas :
			  o == "limits" ? Obj::Limits : Obj::Flowtables;
		// nft 1.0.6 resets counters and quotas, not limits
		if (cmd.verb == Verb::Reset && cmd.obj == Obj::Limits)
			throw LangError(objt.loc, "syntax error, unexpected string, expecting counter or "
						  "counters or quotas or quota");
		if (peek().kind == Tok::Word && families.count(peek().text))
			cmd.family = take().text;
		else
			cmd.family = "";
		// nft's list_cmd and reset_cmd take `table` after these only
		const bool of_table = cmd.obj == Obj::Sets || cmd.obj == Obj::Counters ||
				      cmd.obj == Obj::Quotas || cmd.obj == Obj::Limits;
		if (peek().kind == Tok::Word && of_table && peek().text == "table") {
			take();
			cmd.family = parse_family_opt();
			cmd.table_loc = peek().loc;
			cmd.table = expect_identifier();
		}
	} else if (o == "table") {
		cmd.obj = Obj::Table;
		cmd.family = parse_family_opt();
		// a handle names a table to delete only (table_or_id_spec)
		if (cmd.verb == Verb::Delete && accept("handle")) {
			cmd.handle_loc = peek().loc;
			cmd.handle = std::stoull(expect_name("number"));
			cmd.has_handle = true;
		} else {
			cmd.table_loc = peek().loc;
			cmd.table = expect_identifier();
		}
		cmd.table_decl.loc = cmd.loc;
		cmd.table_decl.family = cmd.family;
		cmd.table_decl.name = cmd.table;
		if (accept("{")) {
			cmd.table_decl.has_body = true;
			parse_table_body(cmd.table_decl);
			expect("}", "'}'");
		}
	} else if (o == "chain") {
		cmd.obj = Obj::Chain;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		if (cmd.verb == Verb::Delete && accept("handle")) {
			cmd.handle_loc = peek().loc;
			cmd.handle = std::stoull(expect_name("number"));
			cmd.has_handle = true;
		} else {
			cmd.chain_loc = peek().loc;
			cmd.chain = expect_identifier(cmd.verb == Verb::Delete
						      ? "handle or string" : "string");
		}
		if (cmd.verb == Verb::Rename) {
			cmd.new_name_loc = peek().loc;
			cmd.new_name = expect_identifier("string");
		} else {
			ChainDecl c;
			c.loc = cmd.chain_loc;
			c.name = cmd.chain;
			if (accept("{")) {
				parse_chain_body(c);
				expect("}", "'}'");
			}
			cmd.chain_decl = std::move(c);
		}
	} else if (o == "rule") {
		cmd.obj = Obj::Rule;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		cmd.chain_loc = peek().loc;
		cmd.chain = expect_identifier();
		uint64_t handle = 0, index = 0;
		bool has_index = false;
		Location ref_loc;
		if (peek().is("position") || peek().is("handle")) {
			const Token keyword = take();
			cmd.handle_loc = peek().loc;
			handle = std::stoull(expect_name("number"));
			cmd.has_handle = true;
			ref_loc = keyword.is("position") ? span(keyword.loc, last_loc_) : cmd.handle_loc;
		} else if (peek().is("index")) {
			const Token keyword = take();
			index = std::stoull(expect_name("number"));
			has_index = true;
			ref_loc = span(keyword.loc, last_loc_);
		}
		cmd.handle = handle;
		if (cmd.verb == Verb::Delete || cmd.verb == Verb::Reset) {
			if (!cmd.has_handle)
				unexpected(peek(), "handle");
		} else {
			Rule r = parse_rule("end of file or newline or semicolon");
			r.handle = handle;
			r.index = index;
			r.has_index = has_index;
			r.ref_loc = ref_loc;
			cmd.rule = std::move(r);
		}
		// up to its newline, semicolon or the end, as nft's location of it
		cmd.whole_loc = span(cmd.loc, last_loc_);
		if (peek().kind == Tok::Newline || peek().kind == Tok::End || peek().punct(";"))
			cmd.whole_loc = span(cmd.whole_loc, peek().loc);
	} else if (o == "set" || o == "map") {
		cmd.obj = o == "set" ? Obj::Set : Obj::Map;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		cmd.name_loc = peek().loc;
		cmd.set = expect_identifier();
		if (peek().punct("{")) {
			take();
			SetDecl s;
			s.loc = cmd.name_loc;
			s.name = cmd.set;
			s.is_map = o == "map";
			parse_set_body(s);
			expect("}", "'}'");
			// the whole command, up to its newline or semicolon
			s.cmd_loc = span(cmd.loc, last_loc_);
			if (peek().kind == Tok::Newline || peek().punct(";"))
				s.cmd_loc = span(cmd.loc, peek().loc);
			cmd.set_decl = std::move(s);
		}
	} else if (o == "element") {
		cmd.obj = Obj::Element;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		cmd.name_loc = peek().loc;
		cmd.set = expect_identifier();
		if (!peek().punct("{"))
			unexpected(peek(), "'{'");
		cmd.elements = parse_set_literal(true);
		// nft points a get's kernel error at the whole command
		if (cmd.verb == Verb::Get) {
			cmd.loc = span(cmd.loc, last_loc_);
			// up to its newline, semicolon or the end
			if (peek().kind == Tok::Newline || peek().kind == Tok::End || peek().punct(";"))
				cmd.loc = span(cmd.loc, peek().loc);
		}
	} else if (o == "flowtable") {
		cmd.obj = Obj::Flowtable;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		cmd.name_loc = peek().loc;
		cmd.flowtable = expect_identifier();
		if (accept("{")) {
			FlowtableDecl f;
			f.loc = cmd.loc;
			f.name = cmd.flowtable;
			parse_flowtable_body(f);
			expect("}", "'}'");
			cmd.ft_decl = std::move(f);
		}
	} else if (o == "counter" || o == "quota" || o == "limit") {
		if (cmd.verb == Verb::Reset && o == "limit")
			throw LangError(objt.loc, "syntax error, unexpected limit, expecting counter or "
						  "counters or quotas or quota");
		cmd.obj = o == "counter" ? Obj::Counter : o == "quota" ? Obj::Quota : Obj::Limit;
		cmd.family = parse_family_opt();
		cmd.table_loc = peek().loc;
		cmd.table = expect_identifier();
		if ((cmd.verb == Verb::Delete) && accept("handle")) {
			cmd.name_loc = peek().loc;
			cmd.handle = std::stoull(expect_name("number"));
			cmd.has_handle = true;
		} else {
			cmd.name_loc = peek().loc;
			cmd.object = expect_identifier();
		}
		if (cmd.verb == Verb::Add || cmd.verb == Verb::Create) {
			ObjectDecl c;
			c.loc = cmd.name_loc;
			c.type = o == "counter" ? kObjectCounter : o == "quota" ? kObjectQuota : kObjectLimit;
			c.name = cmd.object;
			// nft 1.0.6 takes `add quota ... { 1 mbytes }` or without
			// the braces, but `create quota` only without them; the
			// same for limits
			if (c.type == kObjectQuota && cmd.verb == Verb::Create && peek().punct("{"))
				unexpected(peek(), "number");
			if (c.type == kObjectLimit && cmd.verb == Verb::Create && peek().punct("{"))
				throw LangError(peek().loc, "syntax error, unexpected '{', expecting rate");
			if (c.type == kObjectLimit && !peek().punct("{") && !peek().is("rate"))
				unexpected(peek(), "rate or '{'");
			if (peek().punct("{")) {
				parse_object_body(c, take().loc);
				expect("}", "'}'");
			} else if (c.type == kObjectQuota) {
				parse_quota_value(c.quota_bytes, c.quota_flags, c.quota_used, peek().loc);
			} else if (c.type == kObjectLimit) {
				take();
				parse_limit_object_rate(c);
			}
			// the kernel's complaints about the object point at the
			// whole command, up to its newline or semicolon
			c.cmd_loc = span(cmd.loc, last_loc_);
			if (peek().kind == Tok::Newline || peek().punct(";"))
				c.cmd_loc = span(cmd.loc, peek().loc);
			cmd.object_decl = std::move(c);
		}
	} else {
		unexpected(objt, "table, chain, rule, set, map, element or flowtable");
	}
	// nft's line: the command, then a newline, a ';' or the file's end
	if (peek().kind != Tok::Newline && peek().kind != Tok::End && !peek().punct(";"))
		unexpected(peek(), "end of file or newline or semicolon");
	// the whole command, up to its newline or semicolon: where nft points
	// a kernel's complaint that names no attribute of it
	if (!cmd.whole_loc.valid())
		cmd.whole_loc = span(span(cmd.loc, last_loc_), peek().loc);
	out.push_back(std::move(cmd));
}

void Parser::parse_table_body(TableDecl &t)
{
	parse_block_items([&]() -> const char * {
		const Token &tk = peek();
		if (tk.kind != Tok::Word)
			unexpected(tk, "chain, set, map, flowtable, flags or comment");
		Token w = take();
		if (w.text == "chain") {
			ChainDecl c;
			c.loc = peek().loc;
			c.name = expect_identifier();
			expect("{", "'{'");
			parse_block_rest([&] { parse_chain_body(c); });
			t.chains.push_back(std::move(c));
		} else if (w.text == "set" || w.text == "map") {
			SetDecl s;
			s.loc = s.cmd_loc = peek().loc;
			s.name = expect_identifier();
			s.is_map = w.text == "map";
			expect("{", "'{'");
			parse_block_rest([&] { parse_set_body(s); });
			t.sets.push_back(std::move(s));
		} else if (w.text == "flowtable") {
			FlowtableDecl f;
			f.loc = peek().loc;
			f.name = expect_identifier();
			expect("{", "'{'");
			parse_block_rest([&] { parse_flowtable_body(f); });
			t.flowtables.push_back(std::move(f));
		} else if (w.text == "counter" || w.text == "quota" || w.text == "limit") {
			ObjectDecl c;
			c.loc = c.cmd_loc = peek().loc;
			c.type = w.text == "counter" ? kObjectCounter :
				 w.text == "quota" ? kObjectQuota : kObjectLimit;
			c.name = expect_identifier();
			const Location open = expect("{", "'{'").loc;
			parse_block_rest([&] { parse_object_body(c, open); });
			t.objects.push_back(std::move(c));
		} else if (w.text == "flags") {
			Token f = take();
			if (f.text == "dormant")
				t.flags |= 1;
			else
				throw LangError(f.loc, "unknown table option " + f.text);
		} else if (w.text == "comment") {
			t.comment = comment_string();
		} else {
			unexpected(w, "chain, set, map, flowtable, flags or comment");
		}
		return kSeparator;
	});
}

int32_t Parser::parse_priority(const std::string &family, bool flowtable, Location &loc,
				const std::string &hook, const Location &keyword)
{
	loc = peek().loc;
	bool neg = false;
	if (accept("-"))
		neg = true;
	Token t = take();
	if (t.kind != Tok::Word && t.kind != Tok::String)
		unexpected(t, "priority");
	loc = span(loc, t.loc);
	int64_t base;
	const std::string &s = t.text;
	if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) {
		try {
			size_t used;
			base = std::stoll(s, &used, 0);
			if (used != s.size())
				throw LangError(t.loc, "invalid priority expression value " + s);
		} catch (const std::logic_error &) {
			throw LangError(t.loc, "invalid priority expression value " + s);
		}
		return static_cast<int32_t>(neg ? -base : base);
	}
	if (neg)
		unexpected(t, "number");
	// Standard priority names (nftables rule.c std_prios / bridge_std_prios).
	// A bridge name other than filter belongs to one hook
	// (std_prio_family_hook_compat); elsewhere nft refuses the expression.
	bool wrong_hook = false;
	if (family == "bridge" && !flowtable) {
		if (s == "dstnat") base = -300, wrong_hook = hook != "prerouting";
		else if (s == "filter") base = -200;
		else if (s == "out") base = 100, wrong_hook = hook != "output";
		else if (s == "srcnat") base = 300, wrong_hook = hook != "postrouting";
		else throw LangError(t.loc, "'" + s + "' is invalid priority in this context.");
	} else {
		if (s == "raw") base = -300;
		else if (s == "mangle") base = -150;
		else if (s == "dstnat") base = -100;
		else if (s == "filter") base = 0;
		else if (s == "security") base = 50;
		else if (s == "srcnat") base = 100;
		else throw LangError(t.loc, "'" + s + "' is invalid priority in this context.");
	}
	if (peek().punct("+") || peek().punct("-")) {
		bool minus = take().text == "-";
		Token n = take();
		int64_t off;
		try {
			off = std::stoll(n.text, nullptr, 0);
		} catch (const std::logic_error &) {
			unexpected(n, "number");
		}
		loc = span(loc, n.loc);
		base += minus ? -off : off;
	}
	if (wrong_hook)
		throw LangError(span(keyword, loc), "invalid priority expression value in this context.");
	return static_cast<int32_t>(base);
}

std::vector<std::string> Parser::parse_devices()
{
	std::vector<std::string> devs;
	if (accept("{")) {
		while (true) {
			skip_separators();
			devs.push_back(expect_name("device name"));
			skip_separators();
			if (accept("}"))
				break;
			expect(",", "',' or '}'");
		}
	} else {
		devs.push_back(expect_name("device name"));
	}
	return devs;
}

void Parser::parse_chain_body(ChainDecl &c)
{
	parse_block_items([&]() -> const char * {
		const Token &t = peek();
		if (t.is("type")) {
			take();
			c.base = true;
			c.type_loc = peek().loc;
			if (peek().kind == Tok::Word && kReservedNames.count(peek().text))
				unexpected(peek(), "string");	// nft's hook_spec: TYPE STRING
			c.type = expect_name("chain type");
			expect("hook", "hook");
			c.hook_loc = peek().loc;
			if (peek().kind == Tok::Word && kReservedNames.count(peek().text))
				unexpected(peek(), "string");	// HOOK STRING
			c.hook = expect_name("hook name");
			if (accept("device")) {
				c.devices = parse_devices();
			} else if (accept("devices")) {
				expect("=", "'='");
				c.devices = parse_devices();
			}
			const Location prio_kw = peek().loc;
			expect("priority", "priority");
			c.prio = parse_priority("bridge", false, c.prio_loc, c.hook, prio_kw);
			return kSeparator;
		}
		if (t.is("policy")) {
			take();
			Token p = take();
			if (p.text != "accept" && p.text != "drop")
				throw LangError(p.loc, "syntax error, unexpected " + describe(p) +
						   ", expecting accept or drop");
			c.policy = p.text;
			return kSeparator;
		}
		if (t.is("comment")) {	// a rule's comment ends it, never starts it
			take();
			c.comment = comment_string();
			return kSeparator;
		}
		Rule r = parse_rule();
		// bison takes the rule into the chain with its separator only
		if (peek().kind != Tok::Newline && !peek().punct(";"))
			unexpected(peek(), kSeparator);
		c.rules.push_back(std::move(r));
		return kSeparator;
	});
}

static uint32_t set_flag(const Token &t)
{
	if (t.text == "constant") return NFT_SET_CONSTANT;
	if (t.text == "interval") return NFT_SET_INTERVAL;
	if (t.text == "timeout") return NFT_SET_TIMEOUT;
	if (t.text == "dynamic") return NFT_SET_EVAL;
	throw LangError(t.loc, "syntax error, unexpected " + t.text +
			", expecting constant, interval, timeout or dynamic");
}

// nft's time_parse on a string token: numbers each followed by d, h, m,
// s or ms (`ms` only at the end), in any order, each unit once; a unit
// without a number counts 0; digits without a unit are seconds.
static uint64_t time_string_ms(const std::string &s, const Location &loc)
{
	static const char *const twice[] = {"Day", "Hour", "Minute", "Second", "Millisecond"};
	static const uint64_t unit_ms[] = {86400000, 3600000, 60000, 1000, 1};
	uint64_t total = 0;
	unsigned seen = 0;
	size_t digits = 0;
	for (size_t i = 0; i < s.size(); i++) {
		const char c = s[i];
		if (std::isdigit(static_cast<unsigned char>(c))) {
			if (digits++ >= 8)
				throw LangError(loc, "value too large");
			continue;
		}
		int u;
		if (c == 'd') u = 0;
		else if (c == 'h') u = 1;
		else if (c == 'm' && s.compare(i, std::string::npos, "ms") == 0) u = 4;
		else if (c == 'm') u = 2;
		else if (c == 's') u = 3;
		else throw LangError(loc, "wrong time format");
		if (seen & (1u << u))
			throw LangError(loc, std::string(twice[u]) + " has been specified twice");
		seen |= 1u << u;
		const uint64_t n = digits ? std::stoull(s.substr(i - digits, digits)) : 0;
		total += n * unit_ms[u];
		digits = 0;
		if (u == 4)
			break;
	}
	if (!seen)
		return std::stoull("0" + s) * 1000;
	return total;
}

// How much of S, from AT, nft's scanner takes as a `timestring`
// ([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?: the longest match.
static size_t timestring_prefix(const std::string &s, size_t at = 0, int unit = 0)
{
	static const char *const units[] = {"d", "h", "m", "s", "ms"};
	size_t best = at;
	for (int u = unit; u < 5; u++) {
		size_t j = at;
		while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
			j++;
		if (j == at || s.compare(j, std::strlen(units[u]), units[u]) != 0)
			continue;
		best = std::max(best, timestring_prefix(s, j + std::strlen(units[u]), u + 1));
	}
	return best;
}

// The length of the token nft's scanner reads at the start of S: a
// number or a timestring, whichever is longer; a string from a letter on.
static size_t scanner_token_len(const std::string &s, bool &is_number)
{
	size_t digits = 0;
	while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits])))
		digits++;
	const size_t ts = timestring_prefix(s);
	is_number = digits > 0 && digits >= ts;
	if (digits == 0 && ts == 0)
		return s.size();
	return std::max(digits, ts);
}

// nft's time_spec: a string token, which time_parse reads. A word such
// as `5` or `5x` starts with a number, which nft's grammar refuses; one
// such as `5s5s` is a timestring followed by another token, refused as
// what follows the time (@expecting: what nft expects there). A variable
// is no string token.
uint64_t Parser::parse_time_spec(const char *expecting)
{
	// not a $variable either: nft's grammar wants the string token itself
	if (!toks_.empty() && toks_.front().kind == Tok::Variable) {
		Location dollar = toks_.front().loc;
		dollar.last_col = dollar.first_col;
		throw LangError(dollar, "syntax error, unexpected '$', expecting string");
	}
	Token t = take();
	if (t.kind != Tok::Word)
		unexpected(t, "string");
	const std::string &w = t.text;
	if (std::isdigit(static_cast<unsigned char>(w[0]))) {
		bool number;
		const size_t len = scanner_token_len(w, number);
		Location first = t.loc;
		first.last_col = first.first_col + static_cast<unsigned>(len) - 1;
		if (number)
			throw LangError(first, "syntax error, unexpected number, expecting string");
		if (len < w.size()) {
			const std::string rest = w.substr(len);
			bool rest_number;
			const size_t rlen = scanner_token_len(rest, rest_number);
			Location r = t.loc;
			r.first_col = t.loc.first_col + static_cast<unsigned>(len);
			r.last_col = r.first_col + static_cast<unsigned>(rlen) - 1;
			throw LangError(r, std::string("syntax error, unexpected ") +
					   (rest_number ? "number" : "string") + ", expecting " + expecting);
		}
	}
	return time_string_ms(w, t.loc);
}

static bool is_number_word(const std::string &w);

// nft's comment_spec: COMMENT string, its `string` a quoted string or a
// word that is no keyword (nor a number, nor a `$variable`: nft's
// grammar takes none there), at most 128 characters (NFTNL_UDATA_COMMENT_MAXLEN).
std::string Parser::comment_string()
{
	static const char *const kExpecting =
		"string or quoted string or string with a trailing asterisk";
	if (!toks_.empty() && toks_.front().kind == Tok::Variable) {
		// nft's scanner hands its grammar the '$' alone
		Location at = toks_.front().loc;
		at.last_col = at.first_col;
		throw LangError(at, std::string("syntax error, unexpected '$', expecting ") + kExpecting);
	}
	const Token &t = peek();
	if (t.kind == Tok::Word && is_number_word(t.text))
		throw LangError(t.loc, std::string("syntax error, unexpected number, expecting ") + kExpecting);
	if ((t.kind != Tok::String && t.kind != Tok::Word) || kReservedNames.count(t.text))
		unexpected(t, kExpecting);
	Token c = take();
	if (c.text.size() > 128)
		throw LangError(c.loc, "comment too long, 128 characters maximum allowed");
	return c.text;
}

// An object map's data (`: counter`): its NFT_OBJECT_* type, 0 for
// anything else.
static uint32_t object_type(const std::string &w)
{
	return w == "counter" ? kObjectCounter : w == "quota" ? kObjectQuota : w == "limit" ? kObjectLimit : 0;
}

// nft's stateful_stmt: counter, limit, quota, ct count.
bool Parser::stateful_start()
{
	const Token &t = peek();
	return t.is("counter") || t.is("limit") || t.is("quota") || (t.is("ct") && peek(1).is("count"));
}

// A set or map block's stateful_stmt_list: one or more counters, limits,
// quotas and ct counts, each as a rule's (counter_args in any order, a
// limit's burst as the rule's limit takes it), up to the block's next
// separator. Named objects parse too (`counter name "c"`), which nft 1.0.6
// then aborts on (netlink_gen_stmt_stateful's "BUG: unknown stateful
// statement type objref"): xnft refuses them here.
void Parser::parse_set_stmts(std::vector<Stmt> &out)
{
	while (stateful_start()) {
		Rule one;
		parse_statement(one);
		Stmt &st = one.stmts.back();
		if (!st.key.empty() || st.rhs)
			throw LangError(span(st.loc, last_loc_), "nft 1.0.6 aborts on a named object in a "
					"set declaration (BUG: unknown stateful statement type objref)");
		out.push_back(std::move(st));
	}
}

// nft's set_elem_stmt_list after an element's key, before its options
// (timeout, expires) and its data: `counter [packets N bytes N]`, `limit
// rate ...`, `ct count [over] N`, as many as given. A quota or a named
// object is a syntax error there, and so is a counter's `bytes N` alone.
// A limit's burst must be above 0: nft 1.0.6 takes a byte limit's missing
// burst as 0 there, and reports it at the token before the burst would
// stand (an empty rule's location).
void Parser::parse_elem_stmts(Expr &key)
{
	for (;;) {
		const Token &t = peek();
		Stmt s;
		s.loc = t.loc;
		if (t.is("counter")) {
			take();
			s.kind = StmtKind::Counter;
			if (accept("packets")) {
				s.counter_packets = parse_number_u64();
				expect("bytes", "bytes");
				s.counter_bytes = parse_number_u64();
			}
		} else if (t.is("limit")) {
			take();
			s.kind = StmtKind::Limit;
			expect("rate", "rate");
			Location burst_loc;
			parse_limit_rate(s.rate, s.unit, s.limit_bytes, s.limit_over, s.burst, s.burst_given,
					 &burst_loc);
			if (!s.limit_bytes && s.burst_given && s.burst == 0)
				throw LangError(span(burst_loc, last_loc_), "limit burst must be > 0");
			if (s.limit_bytes && s.burst == 0) {
				Location at = last_loc_;
				at.first_col = at.last_col;
				throw LangError(at, "limit burst must be > 0");
			}
		} else if (t.is("ct") && peek(1).is("count")) {
			parse_connlimit_stmt(s);
		} else {
			return;
		}
		s.loc = span(s.loc, last_loc_);
		key.elem_stmts.push_back(std::move(s));
	}
}

void Parser::parse_set_body(SetDecl &s)
{
	parse_block_items([&]() -> const char * {
		const char *separator = kSeparator;
		if (stateful_start()) {
			parse_set_stmts(s.stmts);
			return "";		// bison lists no expectation there
		}
		Token w = take();
		if (w.text == "typeof" || w.text == "type")
			separator = "newline or semicolon or .";	// a concatenation may go on
		if (w.text == "typeof" || w.text == "type") {
			// bison takes the item whole or not at all: one with an
			// error leaves the key and data as they were
			const Location type_loc = s.type_loc;
			const size_t key_types = s.key_types.size();
			const bool key_typeof = s.key_typeof != nullptr, data_typeof = s.data_typeof != nullptr;
			const std::string data_type = s.data_type;
			const uint32_t obj_type = s.obj_type;
			try {
				if (w.text == "typeof") {
					s.type_loc = peek().loc;
					s.key_typeof = parse_set_typeof();
					s.type_loc = s.key_typeof->loc;
					if (s.is_map) {
						expect(":", "':'");
						// nft 1.0.6 has no typeof for object maps
						if (peek().kind == Tok::Word && object_type(peek().text))
							throw LangError(peek().loc, "syntax error, unexpected " + peek().text);
						if (peek().text == "verdict")
							s.data_type = take().text;
						else
							s.data_typeof = parse_set_typeof();
						separator = kSeparator;	// typeof data: a primary expression
					} else if (peek().punct(":")) {
						throw LangError(peek().loc, "syntax error, unexpected colon, expecting newline or semicolon");
					}
				} else if (w.text == "type") {
					s.type_loc = peek().loc;
					s.key_types.push_back(expect_name("data type"));
					while (accept("."))
						s.key_types.push_back(expect_name("data type"));
					s.type_loc = span(s.type_loc, toks_.empty() ? s.type_loc : s.type_loc);
					if (s.is_map) {
						expect(":", "colon or .");	// the key may go on with a '.'
						if (peek().kind == Tok::Word && object_type(peek().text))
							s.obj_type = object_type(take().text);
						else
							s.data_type = expect_name("data type");
					} else if (peek().punct(":")) {
						// a set's type may go on with a '.'
						throw LangError(peek().loc, "syntax error, unexpected colon, "
									    "expecting newline or semicolon or .");
					}
				}
			} catch (const LangError &) {
				s.type_loc = type_loc;
				s.key_types.resize(key_types);
				if (!key_typeof)
					s.key_typeof.reset();
				if (!data_typeof)
					s.data_typeof.reset();
				s.data_type = data_type;
				s.obj_type = obj_type;
				throw;
			}
		} else if (w.text == "flags") {
			s.flags_given = true;
			s.flags |= set_flag(take());
			while (accept(","))
				s.flags |= set_flag(take());
			separator = "newline or semicolon or comma";
		} else if (w.text == "elements") {
			expect("=", "'='");
			if (!peek().punct("{"))
				unexpected(peek(), "'{'");
			s.elements = parse_set_literal(s.is_map);
			separator = nullptr;	/* set_block ELEMENTS '=' set_block_expr */
		} else if (w.text == "size") {
			Token n = take();
			try {
				s.size = static_cast<uint32_t>(std::stoul(n.text));
			} catch (const std::logic_error &) {
				unexpected(n, "number");
			}
		} else if (w.text == "timeout") {
			s.timeout_ms = parse_time_spec("newline or semicolon");
		} else if (w.text == "gc-interval") {
			// nft 1.0.6's map block has no gc-interval
			if (s.is_map)
				throw LangError(w.loc, "syntax error, unexpected gc-interval");
			s.gc_interval_ms = parse_time_spec("newline or semicolon");
		} else if (w.text == "policy") {
			Token p = take();
			if (p.text != "performance" && p.text != "memory")
				unexpected(p, "performance or memory");
			s.policy = p.text;
		} else if (w.text == "comment") {
			s.comment = comment_string();
		} else {
			unexpected(w, "type, flags, elements, size, timeout, gc-interval, policy or comment");
		}
		return separator;
	});
}

void Parser::parse_flowtable_body(FlowtableDecl &f)
{
	parse_block_items([&]() -> const char * {
		const char *separator = kSeparator;
		Token w = take();
		if (w.text == "hook") {
			f.hook = expect_name("hook name");
			expect("priority", "priority");
			Location l;
			f.prio = parse_priority("netdev", true, l, "", l);
		} else if (w.text == "devices") {
			expect("=", "'='");
			f.devices = parse_devices();
		} else if (w.text == "counter") {
			f.counter = true;
			separator = nullptr;
		} else {
			unexpected(w, "hook, devices or counter");
		}
		return separator;
	});
}

static uint64_t parse_u64(const Token &t);

// The body of a counter object: `packets N bytes N` and a comment, each
// optional, as nft's counter_block; a quota's: its limit and a comment
// (quota_block); a limit's: `rate ...` (the last one given; none at all
// leaves everything 0, for the kernel to refuse) and a comment
// (limit_block).
void Parser::parse_object_body(ObjectDecl &c, const Location &open)
{
	bool quota_given = false;
	parse_block_items([&]() -> const char * {
		if (c.type == kObjectLimit) {
			Token w = take();
			if (w.is("rate"))
				parse_limit_object_rate(c);
			else if (w.is("comment"))
				c.comment = comment_string();
			else
				unexpected(w, "rate or comment");
			return nullptr;
		}
		if (c.type == kObjectQuota && !peek().is("comment")) {
			// nft's error for a unit spans from the block's brace
			parse_quota_value(c.quota_bytes, c.quota_flags, c.quota_used, open);
			quota_given = true;
			return nullptr;
		}
		Token w = take();
		if (w.text == "packets") {
			Token n = take();
			c.packets = parse_u64(n);
			expect("bytes", "bytes");
			Token b = take();
			c.bytes = parse_u64(b);
		} else if (w.text == "comment") {
			c.comment = comment_string();
		} else {
			unexpected(w, "packets or comment");
		}
		return nullptr;
	});
	if (c.type == kObjectQuota && !quota_given)
		unexpected(peek(), "number");
}

// ---- rules ----

Rule Parser::parse_rule(const char *end)
{
	Rule r;
	r.loc = peek().loc;
	while (!at_end_of_stmt()) {
		if (peek().kind == Tok::Junk && !r.stmts.empty())
			unexpected(peek(), end);
		if (peek().is("comment") && peek(1).kind == Tok::String) {
			take();
			r.comment = comment_string();
			continue;
		}
		if (!r.stmts.empty()) {
			// after a whole statement, a token no statement starts
			// with is where bison ends the rule: it expects END there
			const Location start = peek().loc;
			try {
				parse_statement(r);
			} catch (const LangError &e) {
				const std::string what = e.what();
				const Location &at = e.where();
				if (at.file == start.file && at.line == start.line && at.first_col == start.first_col &&
				    what.rfind("syntax error, unexpected ", 0) == 0 && what.find(", expecting") == std::string::npos)
					throw LangError(at, what + ", expecting " + end);
				throw;
			}
			continue;
		}
		parse_statement(r);
	}
	if (r.stmts.empty() && !r.comment)
		unexpected(peek());
	return r;
}

// nft's relational_op; its words (eq, ne, lt, gt, le, ge, not) are these
// tokens already.
static bool is_op(const Token &t, Op &op)
{
	if (t.kind == Tok::Punct) {
		if (t.text == "==") { op = Op::Eq; return true; }
		if (t.text == "!=") { op = Op::Neq; return true; }
		if (t.text == "<") { op = Op::Lt; return true; }
		if (t.text == ">") { op = Op::Gt; return true; }
		if (t.text == "<=") { op = Op::Lte; return true; }
		if (t.text == ">=") { op = Op::Gte; return true; }
		if (t.text == "!") { op = Op::Neg; return true; }
	}
	return false;
}

static bool is_verdict_word(const std::string &w)
{
	return w == "accept" || w == "drop" || w == "continue" || w == "return" ||
	       w == "jump" || w == "goto";
}

ExprPtr Parser::parse_verdict_expr()
{
	Token t = take();
	if (t.kind != Tok::Word || !is_verdict_word(t.text))
		unexpected(t, "verdict");
	auto e = make_expr(ExprKind::Verdict, t.loc);
	e->text = t.text;
	if (t.text == "jump" || t.text == "goto") {
		Token c = take();
		// what nft 1.0.6's grammar lists there (its chain names are
		// no number)
		if (c.kind == Tok::Word && is_number_word(c.text))
			throw LangError(c.loc, "syntax error, unexpected number, expecting '{'");
		if (c.kind != Tok::Word && c.kind != Tok::String)
			unexpected(c, "'{'");
		e->chain = c.text;
		e->loc = c.loc;  // errors point at the chain name, as nft's do
	}
	return e;
}

// Whether T (then NEXT) starts an expression foreign.h is about: `rt`
// starts one with a key of its own, an IPv6 routing header's field else.
static bool starts_foreign(const Token &t, const Token &next)
{
	static const std::set<std::string> rt_keys = {"classid", "nexthop", "mtu", "ipsec", "ip", "ip6"};
	// `ipsec` alone is meta's secpath key
	return t.is("fib") || t.is("osf") || t.is("socket") ||
	       (t.is("ipsec") && (next.is("in") || next.is("out"))) ||
	       (t.is("rt") && next.kind == Tok::Word && rt_keys.count(next.text));
}

ExprPtr Parser::parse_primary_lhs()
{
	Token t = peek();
	if (t.punct("(")) {
		// nft's primary_expr: '(' basic_expr ')'
		take();
		auto e = parse_lhs();
		expect(")", "')'");
		return e;
	}
	if (t.kind != Tok::Word && !t.punct("@"))
		unexpected(t);
	static const std::set<std::string> ipv6_headers = {"hbh", "rt", "rt0", "rt2", "srh",
							   "frag", "dst", "mh"};
	if (t.punct("@"))
		return parse_raw_payload();
	if (starts_foreign(t, peek(1)))
		return parse_foreign_expr();
	if (((t.text == "tcp" || t.text == "ip") && peek(1).is("option")) ||
	    (t.text == "sctp" && peek(1).is("chunk")) || t.text == "exthdr" ||
	    ipv6_headers.count(t.text))
		return parse_exthdr();
	if (payload_protos.count(t.text)) {
		take();
		Token f = take();
		// anything but one of the protocol's fields: bison names what it
		// expects when there are at most four fields (field_expectation)
		if (f.kind != Tok::Word || !names_field(t.text, f.text))
			throw LangError(f.loc, "syntax error, unexpected " + describe(f) +
					       field_expectation(t.text));
		auto e = make_expr(ExprKind::Payload, span(t.loc, f.loc));
		e->proto = t.text;
		e->text = f.text;
		// arp's addresses: `arp saddr ether`, `arp daddr ip`
		if (t.text == "arp" && (f.text == "saddr" || f.text == "daddr")) {
			Token k = take();
			if (k.kind == Tok::Word && !k.is("ether") && !k.is("ip") && !kReservedNames.count(k.text))
				k.text = is_number_word(k.text) ? "number" : "string";
			if (!k.is("ether") && !k.is("ip"))
				unexpected(k, "ether or ip");
			e->text += " " + k.text;
			e->loc = span(t.loc, k.loc);
		}
		return e;
	}
	if (t.text == "meta") {
		take();
		Token k = take();
		if (k.kind != Tok::Word)
			unexpected(k, "meta key");
		auto e = make_expr(ExprKind::Meta, span(t.loc, k.loc));
		e->text = k.text;
		// a set statement's: its value first (the error spans it)
		if (!nft_meta_key(k.text) && !peek().is("set"))
			throw LangError(e->loc, unknown_meta_key(k.text));
		return e;
	}
	if (bare_meta_keys.count(t.text)) {
		take();
		auto e = make_expr(ExprKind::Meta, t.loc);
		e->text = t.text;
		return e;
	}
	if (t.text == "numgen" || t.text == "jhash" || t.text == "symhash")
		return parse_generated();
	if (t.text == "ct") {
		take();
		auto e = make_expr(ExprKind::Ct, t.loc);
		Token k = take();
		if (k.text == "original" || k.text == "reply") {
			e->proto = k.text;
			k = take();
			if (k.text == "ip" || k.text == "ip6") {
				e->chain = k.text;  // l3 protocol of saddr/daddr
				k = take();
			}
		}
		if (k.kind != Tok::Word)
			unexpected(k, "ct key");
		e->text = k.text;
		e->loc = span(t.loc, k.loc);
		return e;
	}
	// a word that is no keyword is a symbol to nft's grammar, which may
	// start a match (`foo bar`): its evaluation refuses it (Linearizer)
	if (t.kind == Tok::Word && !kReservedNames.count(t.text)) {
		take();
		auto e = make_expr(ExprKind::Value, t.loc);
		e->text = t.text;
		return e;
	}
	unexpected(t);
}

// A number nft's grammar wants as a NUM (a modulus, an offset, a seed):
// at most 32 bits.
static uint32_t parse_u32_word(const Token &t, const char *what)
{
	try {
		size_t used;
		const unsigned long long v = std::stoull(t.text, &used, 0);
		if (t.kind == Tok::Word && used == t.text.size() && v <= 0xffffffffull)
			return static_cast<uint32_t>(v);
	} catch (const std::logic_error &) {
	}
	throw LangError(t.loc, "syntax error, unexpected " + (t.kind == Tok::Word ? t.text : std::string("newline")) +
			       ", expecting " + what);
}

// Values the rule makes up: `numgen inc|random mod N [offset N]`,
// `jhash EXPR mod N [seed N] [offset N]`, `symhash mod N [offset N]`.
ExprPtr Parser::parse_generated()
{
	Token t = take();
	const bool numgen = t.text == "numgen";
	auto e = make_expr(numgen ? ExprKind::Numgen : ExprKind::Hash, t.loc);
	e->text = t.text;
	if (numgen) {
		Token m = take();
		// a word that is no keyword of nft's is its scanner's string
		if (m.kind == Tok::Word && !m.is("inc") && !m.is("random") && !kReservedNames.count(m.text))
			m.text = "string";
		if (!m.is("inc") && !m.is("random"))
			unexpected(m, "random or inc");
		e->text = m.text;
	} else if (t.text == "jhash") {
		e->items.push_back(parse_typeof_expr());
	}
	expect("mod", "mod");
	Token n = take();
	e->modulus = parse_u32_word(n, "number");
	Location end = n.loc;
	if (t.text == "jhash" && accept("seed")) {
		Token s = take();
		e->seed = parse_u32_word(s, "number");
		e->seed_given = true;
		end = s.loc;
	}
	if (accept("offset")) {
		Token o = take();
		e->offset = parse_u32_word(o, "number");
		end = o.loc;
	}
	e->loc = span(t.loc, end);
	return e;
}

// The words nft's scanner knows as the fields of extension headers and
// options.
static bool exthdr_field_word(const std::string &w)
{
	static const std::set<std::string> words = {
		"nexthdr", "hdrlength", "type", "seg-left", "reserved", "frag-off", "reserved2",
		"more-fragments", "id", "checksum", "kind", "length", "size", "count", "left", "right",
		"tsval", "tsecr", "subtype", "ptr", "addr", "value"};
	return words.count(w) > 0;
}

// nft's names of TCP options (tcp_hdr_option_type): the kind each means.
static int tcp_option_kind(const std::string &w)
{
	static const std::map<std::string, int> kinds = {
		{"eol", 0}, {"nop", 1}, {"noop", 1}, {"maxseg", 2}, {"mss", 2}, {"window", 3},
		{"sack-perm", 4}, {"sack-permitted", 4}, {"sack", 5}, {"sack0", 5}, {"sack1", 5},
		{"sack2", 5}, {"sack3", 5}, {"timestamp", 8}, {"echo", 8}, {"md5sig", 19},
		{"mptcp", 30}, {"fastopen", 34},
	};
	auto it = kinds.find(w);
	return it == kinds.end() ? -1 : it->second;
}

int Parser::tcp_option_kind_token(const Token &k)
{
	int kind = tcp_option_kind(k.text);
	if (kind < 0 && k.kind == Tok::Word && is_number_word(k.text)) {
		const unsigned long long v = std::stoull(k.text, nullptr, 0);
		if (v > 255)
			throw LangError(k.loc, "value too large");
		kind = static_cast<int>(v);
	}
	if (kind < 0)
		unexpected(k);
	return kind;
}

// The routing header's types (nft's rt0_hdr_expr, rt2_hdr_expr and
// rt4_hdr_expr, `srh`): `rt0 addr[N]`, `rt2 addr`, `srh last-entry|flags|tag`
// and `srh sid[N]`. nft takes N as an index into its templates: 1 and 2
// name the two addresses it has, 0 the field before them (rt0's reserved
// word, srh's tag); a template it leaves empty, as every rt2 field, has no
// type to read the value with.
void Parser::routing_header_field(const Token &t, const Token &f, Expr &e)
{
	static const std::map<std::string, std::set<std::string>> words = {
		{"rt0", {"addr"}}, {"rt2", {"addr"}}, {"srh", {"last-entry", "flags", "tag", "sid"}}};
	if (!words.at(t.text).count(f.text)) {
		// nft's scanner knows the routing header's words there (rt's,
		// srh's and addr) and its keywords of every state; the other
		// headers' and options' field words are strings there
		static const std::set<std::string> routing_words = {
			"nexthdr", "hdrlength", "type", "seg-left", "addr", "sid", "tag", "flags", "last-entry",
			"size"};
		Token g = f;
		const bool keyword = routing_words.count(g.text) ||
				     ((kReservedNames.count(g.text) || kOtherScannerKeywords.count(g.text)) &&
				      !exthdr_field_word(g.text));
		if (g.kind == Tok::Word && !keyword)
			g.text = "string";
		unexpected(g, t.text == "srh" ? "flags or last-entry or tag or sid" : "addr");
	}
	std::string field = f.text;
	Location end = f.loc;
	if ((t.text == "rt0" && f.text == "addr") || (t.text == "srh" && f.text == "sid")) {
		expect("[", "'['");
		Token n = take();
		const uint32_t index = parse_u32_word(n, "number");
		end = expect("]", "']'").loc;
		if (index == 0)
			field = t.text == "rt0" ? "reserved" : "tag";
		else
			field += "[" + std::to_string(index) + "]";
	}
	e.exthdr_op = NFT_EXTHDR_OP_IPV6;
	e.proto = t.text;
	e.loc = span(t.loc, end);
	const ExthdrField *x = find_exthdr(NFT_EXTHDR_OP_IPV6, t.text, field);
	if (!x)
		return;	// no bits: the value it is compared with cannot be read
	e.exthdr_type = x->type;
	e.text = x->field;
	e.exthdr_offset = x->offset;
	e.exthdr_bits = x->bits;
}

// Extension headers, options and SCTP chunks (nft's exthdr_expr, tcp
// option, ip option and sctp chunk): `tcp option NAME|KIND [FIELD]`, `tcp
// option @KIND,OFF,LEN`, `ip option NAME [FIELD]`, `sctp chunk NAME
// [FIELD]`, `exthdr NAME`, `hbh|rt|frag|dst|mh FIELD`. Without a field the
// option's, header's or chunk's presence is loaded, to be compared with
// exists or missing.
ExprPtr Parser::parse_exthdr()
{
	Token t = take();
	auto e = make_expr(ExprKind::Exthdr, t.loc);
	Location end = t.loc;
	// what is loaded: the field @x names, or whether the header is there
	auto load_field = [&](const ExthdrField &x) {
		e->text = x.field;
		e->exthdr_offset = x.offset;
		e->exthdr_bits = x.bits;
	};
	auto load_presence = [&] {
		e->exthdr_bits = 8;
		e->exthdr_present = true;
	};
	auto field_of = [&](const std::string &name, const Token &f) {
		const ExthdrField *x = find_exthdr(e->exthdr_op, name, f.text);
		if (!x && f.kind == Tok::Word && !kReservedNames.count(f.text) && !exthdr_field_word(f.text))
			throw LangError(f.loc, "syntax error, unexpected string");  // no keyword of nft's
		if (!x)
			unexpected(f);
		return x;
	};
	if (t.text == "tcp") {
		take();  // option
		e->exthdr_op = NFT_EXTHDR_OP_TCPOPT;
		if (accept("@")) {
			// raw: the option's kind, then the field's offset and length in bits
			e->exthdr_type = static_cast<uint8_t>(tcp_option_kind_token(take()));
			expect(",", "comma");
			e->exthdr_offset = parse_u32_word(take(), "number");
			expect(",", "comma");
			Token len = take();
			e->exthdr_bits = parse_u32_word(len, "number");
			const char *name = exthdr_name(e->exthdr_op, e->exthdr_type);
			e->proto = name ? name : "";
			e->loc = span(t.loc, len.loc);
			return e;
		}
		Token k = take();
		e->exthdr_type = static_cast<uint8_t>(tcp_option_kind_token(k));
		end = k.loc;
		const char *name = exthdr_name(e->exthdr_op, e->exthdr_type);
		e->proto = name ? name : "";
		// the fields nft's grammar allows each option's word (a number
		// or another name of it takes length only)
		static const std::map<std::string, std::set<std::string>> fields = {
			{"maxseg", {"length", "size"}}, {"mss", {"length", "size"}},
			{"window", {"length", "count"}}, {"sack", {"length", "left", "right"}},
			{"sack0", {"length", "left", "right"}}, {"sack1", {"length", "left", "right"}},
			{"sack2", {"length", "left", "right"}}, {"sack3", {"length", "left", "right"}},
			{"timestamp", {"length", "tsval", "tsecr"}}, {"mptcp", {"length", "subtype"}},
		};
		static const std::set<std::string> all = {"length", "size", "count", "left", "right",
							  "tsval", "tsecr", "subtype"};
		const Token &f = peek();
		if (f.kind == Tok::Word && all.count(f.text)) {
			auto it = fields.find(k.text);
			if (it == fields.end() ? f.text != "length" : !it->second.count(f.text))
				unexpected(f);
			if (e->proto.empty() || e->proto == "eol" || e->proto == "nop")
				throw LangError(f.loc, "Could not find a tcp option template");
			const ExthdrField *x = field_of(e->proto, f);
			load_field(*x);
			// sack1..sack3: the blocks after the first
			if (k.text.size() == 5 && k.text.rfind("sack", 0) == 0 && x->offset >= 16)
				e->exthdr_offset += 64 * unsigned(k.text[4] - '0');
			end = take().loc;
		} else {
			load_presence();
		}
		e->loc = span(t.loc, end);
		return e;
	}
	if (t.text == "ip") {
		take();  // option
		e->exthdr_op = NFT_EXTHDR_OP_IPV4;
		Token n = take();
		static const std::map<std::string, uint8_t> types = {
			{"lsrr", 131}, {"rr", 7}, {"ssrr", 137}, {"ra", 148}};
		auto it = types.find(n.text);
		if (n.kind != Tok::Word || it == types.end())
			unexpected(n);
		e->exthdr_type = it->second;
		e->proto = n.text;
		end = n.loc;
		static const std::set<std::string> all = {"type", "length", "value", "ptr", "addr"};
		const Token &f = peek();
		if (f.kind == Tok::Word && all.count(f.text)) {
			const ExthdrField *x = find_exthdr(e->exthdr_op, e->proto, f.text);
			if (!x)
				throw LangError(t.loc, "unknown ip option type/field");
			load_field(*x);
			end = take().loc;
		} else {
			load_presence();
		}
		e->loc = span(t.loc, end);
		return e;
	}
	if (t.text == "sctp") {
		// nft's sctp_chunk_alloc: a chunk's name (a keyword each), then
		// one of the fields its grammar gives that chunk, or nothing
		take();  // chunk
		e->exthdr_op = NFT_EXTHDR_OP_SCTP;
		Token n = take();
		const ExthdrField *c = n.kind == Tok::Word ? find_exthdr(e->exthdr_op, n.text, "") : nullptr;
		if (!c)
			unexpected(n);
		e->proto = n.text;
		e->exthdr_type = c->type;
		end = n.loc;
		// every chunk field word of nft's scanner: one the chunk has not
		// is a syntax error there
		static const std::set<std::string> all = {
			"type", "flags", "length", "tsn", "stream", "ssn", "ppid", "init-tag", "a-rwnd",
			"num-outbound-streams", "num-inbound-streams", "initial-tsn", "cum-tsn-ack",
			"num-gap-ack-blocks", "num-dup-tsns", "lowest-tsn", "seqno", "new-cum-tsn"};
		const Token &f = peek();
		if (f.kind == Tok::Word && all.count(f.text)) {
			const ExthdrField *x = find_exthdr(e->exthdr_op, e->proto, f.text);
			if (!x)
				unexpected(f);
			load_field(*x);
			end = take().loc;
		} else {
			load_presence();
		}
		e->loc = span(n.loc, end);	// nft places a chunk at its name
		return e;
	}
	e->exthdr_op = NFT_EXTHDR_OP_IPV6;
	if (t.text == "exthdr") {
		Token n = take();
		const ExthdrField *x = find_exthdr(e->exthdr_op, n.text, "");
		if (n.kind != Tok::Word || !x)
			unexpected(n);
		e->proto = n.text;
		e->exthdr_type = x->type;
		load_presence();
		e->loc = span(t.loc, n.loc);
		return e;
	}
	Token f = take();
	if (f.kind != Tok::Word)
		unexpected(f);
	if (t.text == "rt0" || t.text == "rt2" || t.text == "srh") {
		routing_header_field(t, f, *e);
		return e;
	}
	const ExthdrField *x = field_of(t.text, f);
	e->proto = t.text;
	e->exthdr_type = x->type;
	load_field(*x);
	e->loc = span(t.loc, f.loc);
	return e;
}

// nft's raw payload: `@BASE,OFFSET,LENGTH`, BASE ll, nh, th (keywords) or
// ih (a string nft's grammar checks by hand), OFFSET and LENGTH numbers
// of bits that nft keeps in 32 bits. nft names the 16 bits at transport
// offset 0 and 16 `th sport` and `th dport`: those become the named field.
ExprPtr Parser::parse_raw_payload()
{
	// bison names a NUM token "number"
	auto refuse = [&](const Token &t, const char *expecting) {
		if (t.kind == Tok::Word && is_number_word(t.text))
			throw LangError(t.loc, std::string("syntax error, unexpected number, expecting ") + expecting);
		unexpected(t, expecting);
	};
	Token at = take();
	Token b = take();
	const int base = raw_payload_base(b.text);
	if (b.kind == Tok::Word && base < 0 && !is_number_word(b.text))
		throw LangError(b.loc, "unknown raw payload base");
	if (b.kind != Tok::Word || base < 0)
		refuse(b, "string or ll or nh or th");
	auto number = [&]() {
		if (!peek().punct(","))
			refuse(peek(), "comma");
		take();
		Token n = take();
		if (n.kind != Tok::Word || !is_number_word(n.text))
			refuse(n, "number");
		return static_cast<uint32_t>(parse_u64(n));
	};
	const uint32_t offset = number();
	const uint32_t bits = number();
	const Location loc = span(at.loc, last_loc_);
	if (const char *field = raw_payload_th_field(static_cast<uint32_t>(base), offset, bits)) {
		auto e = make_expr(ExprKind::Payload, loc);
		e->proto = "th";
		e->text = field;
		return e;
	}
	auto e = make_expr(ExprKind::RawPayload, loc);
	e->raw_base = static_cast<uint32_t>(base);
	e->raw_offset = offset;
	e->raw_bits = bits;
	return e;
}

// Header fields, meta and ct keys, concatenated: typeof's expressions, and
// a match's left side before any bitwise operator.
// nft types a header's, option's or chunk's presence in a typeof as its
// first template: `typeof exthdr frag` is `typeof frag nexthdr`.
static ExprPtr typeof_item(ExprPtr e)
{
	if (e->kind != ExprKind::Exthdr || !e->exthdr_present)
		return e;
	const ExthdrField *first = find_exthdr(e->exthdr_op, e->proto, "");
	if (!first)
		return e;
	e->exthdr_present = false;
	e->text = first->field;
	e->exthdr_offset = first->offset;
	e->exthdr_bits = first->bits;
	return e;
}

// A set's or map's `typeof`.
ExprPtr Parser::parse_set_typeof()
{
	auto e = parse_typeof_expr();
	if (e->kind != ExprKind::Concat)
		return typeof_item(std::move(e));
	for (auto &item : e->items)
		item = typeof_item(std::move(item));
	return e;
}

ExprPtr Parser::parse_typeof_expr()
{
	auto e = parse_primary_lhs();
	if (!peek().punct("."))
		return e;
	auto c = make_expr(ExprKind::Concat, e->loc);
	c->items.push_back(std::move(e));
	while (accept("."))
		c->items.push_back(parse_primary_lhs());
	c->loc = span(c->items.front()->loc, c->items.back()->loc);
	return c;
}

// nft's binary operators by precedence, loosest first (its grammar's
// inclusive_or, exclusive_or, and, shift expressions); 0 for no operator.
static int binop_precedence(const Token &t)
{
	if (t.kind != Tok::Punct)
		return 0;
	if (t.text == "|") return 1;
	if (t.text == "^") return 2;
	if (t.text == "&") return 3;
	if (t.text == "<<" || t.text == ">>") return 4;
	return 0;
}

// LEFT followed by operators binding at least as tightly as MIN, each
// with its right operand: values (nft's *_rhs_expr), whose own operators
// bind more tightly (`meta mark | 1 ^ 2` is `meta mark | (1 ^ 2)`); a
// shift's is a single value. Left-associative.
ExprPtr Parser::parse_binop_tail(ExprPtr left, int min)
{
	for (;;) {
		const int prec = binop_precedence(peek());
		if (!prec || prec < min)
			return left;
		Token op = take();
		const Token &r = peek();
		if (r.is("meta") || r.is("ct") || r.is("numgen") || r.is("jhash") || r.is("symhash")) {
			// a field is no value: nft's grammar refuses it in a match;
			// a set statement's takes it and its evaluation refuses it
			if (!stmt_expr_)
				unexpected(r);
			auto field = parse_typeof_expr();
			throw LangError(field->loc, "Right hand side of binary operation (" + op.text +
						    ") must be constant", span(left->loc, field->loc));
		}
		ExprPtr right = prec == 4 ? parse_rhs_primary() : parse_binop_tail(parse_rhs_primary(), prec + 1);
		auto b = make_expr(ExprKind::Binop, op.loc);
		b->text = op.text;
		b->items.push_back(std::move(left));
		b->items.push_back(std::move(right));
		b->loc = span(b->items[0]->loc, b->items[1]->loc);
		left = std::move(b);
	}
}

ExprPtr Parser::parse_lhs()
{
	return parse_binop_tail(parse_typeof_expr(), 1);
}

// One value with its operators: `a | b`, `a & b ^ c`, `a << 2` ...
ExprPtr Parser::parse_rhs_atom()
{
	return parse_binop_tail(parse_rhs_primary(), 1);
}

// nft's keywords that its grammar takes as values (primary_rhs_expr:
// keyword_expr, boolean_expr, the protocols, `redirect`); any other
// keyword where a value stands is its syntax error (`meta mark counter`).
static bool keyword_refused_as_value(const Token &t)
{
	static const std::set<std::string> values = {
		"ah", "arp", "comp", "dccp", "dnat", "ecn", "esp", "ether", "exists", "icmp", "icmpv6",
		"igmp", "ip", "ip6", "missing", "redirect", "reset", "sctp", "snat", "tcp", "udp",
		"udplite", "vlan",
	};
	return t.kind == Tok::Word && kReservedNames.count(t.text) && !values.count(t.text);
}

// One value: word, string, (expr), a - b, a / len
ExprPtr Parser::parse_rhs_primary()
{
	Token t = peek();
	ExprPtr e;
	if (t.punct("(")) {
		take();
		e = parse_rhs(false);
		expect(")", "')'");
	} else if (t.kind == Tok::Word || t.kind == Tok::String) {
		if (keyword_refused_as_value(t))
			unexpected(t);
		take();
		e = make_expr(ExprKind::Value, t.loc);
		e->text = t.text;
		e->quoted = t.kind == Tok::String;
	} else {
		unexpected(t);	// bison lists no expectations: too many
	}
	if (peek().punct("-") && (peek(1).kind == Tok::Word || peek(1).kind == Tok::String)) {
		take();
		if (keyword_refused_as_value(peek()))
			unexpected(peek());
		Token hi = take();
		auto r = make_expr(ExprKind::Range, span(e->loc, hi.loc));
		auto h = make_expr(ExprKind::Value, hi.loc);
		h->text = hi.text;
		h->quoted = hi.kind == Tok::String;
		r->items.push_back(std::move(e));
		r->items.push_back(std::move(h));
		e = std::move(r);
	}
	// `addr / 24` is a prefix; `syn / syn,ack` is a flag comparison, which
	// the match statement takes (nft's scanner makes the length a NUM).
	if (peek().punct("/") && peek(1).kind == Tok::Word && is_number_word(peek(1).text)) {
		take();
		Token len = take();
		auto p = make_expr(ExprKind::Prefix, span(e->loc, len.loc));
		auto l = make_expr(ExprKind::Value, len.loc);
		l->text = len.text;
		p->items.push_back(std::move(e));
		p->items.push_back(std::move(l));
		e = std::move(p);
	}
	return e;
}

ExprPtr Parser::parse_rhs(bool allow_list)
{
	if (peek().punct("{"))
		return parse_set_literal(false);
	if (peek().punct("@")) {
		Token at = take();
		const Token &name = peek();
		// nft's set reference names an identifier: no keyword
		if (name.kind == Tok::Word && kReservedNames.count(name.text))
			expect_identifier();
		Token n = take();
		if (n.kind != Tok::Word && n.kind != Tok::String)
			unexpected(n, "set name");
		auto e = make_expr(ExprKind::SetRef, span(at.loc, n.loc));
		e->text = n.text;
		return e;
	}
	auto e = parse_rhs_atom();
	if (peek().punct(".")) {
		auto c = make_expr(ExprKind::Concat, e->loc);
		c->items.push_back(std::move(e));
		while (accept("."))
			c->items.push_back(parse_rhs_atom());
		c->loc = span(c->items.front()->loc, c->items.back()->loc);
		e = std::move(c);
	}
	if (allow_list && peek().punct(",")) {
		auto l = make_expr(ExprKind::List, e->loc);
		l->items.push_back(std::move(e));
		while (accept(","))
			l->items.push_back(parse_rhs_atom());
		l->loc = span(l->items.front()->loc, l->items.back()->loc);
		e = std::move(l);
	}
	return e;
}

ExprPtr Parser::parse_set_literal(bool allow_map, bool verdicts_only)
{
	Token open = expect("{", "'{'");
	auto s = make_expr(ExprKind::SetLit, open.loc);
	while (true) {
		skip_separators();
		if (peek().punct("}"))
			break;
		auto key = parse_rhs(false);
		parse_elem_stmts(*key);
		// set_elem_expr_options: timeout T, expires T and comment "..."
		// in any order after the statements, the last timeout or
		// expiration given, one comment (set_elem_expr_option's
		// already_set, after comment_spec's length check)
		key->elem_loc = key->elem_stmts.empty() ? key->loc : span(key->loc, last_loc_);
		for (;;) {
			if (peek().is("timeout") || peek().is("expires")) {
				const bool timeout = take().text == "timeout";
				(timeout ? key->elem_timeout_ms : key->elem_expires_ms) =
					parse_time_spec("comma or '}'");
			} else if (peek().is("comment")) {
				const Location kw = take().loc;
				std::string text = comment_string();
				if (key->elem_comment)
					throw LangError(span(kw, last_loc_), "You can only specify this once. "
							"This statement is duplicated.");
				key->elem_comment = std::move(text);
			} else {
				break;
			}
			key->elem_loc = span(key->loc, last_loc_);
		}
		ExprPtr data;
		if (accept(":")) {
			// a verdict map's element (verdict_map_list_member_expr)
			// maps to a verdict: nothing else is nft's grammar there
			const Token &d = peek();
			if (verdicts_only && d.kind == Tok::Word && !is_verdict_word(d.text)) {
				const bool number = std::all_of(d.text.begin(), d.text.end(),
								[](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
				throw LangError(d.loc, "syntax error, unexpected " +
						       std::string(number ? "number" : kReservedNames.count(d.text) ? d.text : "string"));
			}
			if (peek().kind == Tok::Word && is_verdict_word(peek().text))
				data = parse_verdict_expr();
			else
				data = parse_rhs(false);
		}
		s->items.push_back(std::move(key));
		s->data.push_back(std::move(data));
		skip_separators();
		if (accept(","))
			continue;
		skip_separators();
		if (!peek().punct("}"))
			unexpected(peek(), "comma or '}'");
	}
	Token close = take();
	s->loc = span(open.loc, close.loc);
	bool any_data = false, all_data = true;
	for (auto &d : s->data) {
		any_data |= d != nullptr;
		all_data &= d != nullptr;
	}
	if (any_data && !all_data)
		throw LangError(s->loc, "syntax error, mixing set elements and map elements");
	(void)allow_map;
	return s;
}

static uint64_t parse_u64(const Token &t)
{
	try {
		size_t used;
		uint64_t v = std::stoull(t.text, &used, 0);
		if (used == t.text.size())
			return v;
	} catch (const std::logic_error &) {
	}
	throw LangError(t.loc, "syntax error, unexpected " + t.text + ", expecting number");
}

// A NUM token's value (`counter packets NUM bytes NUM` in an element):
// anything else is a syntax error expecting a number.
uint64_t Parser::parse_number_u64()
{
	const Token &t = peek();
	if (t.kind != Tok::Word || !is_number_word(t.text))
		unexpected(t, "number");
	return parse_u64(take());
}

// After `limit rate` (a statement's or an object's): [over] N/TIME or
// N BYTES/TIME (BYTES bytes, kbytes or mbytes; `N BYTES / TIME` too),
// then [burst N packets] or [burst N BYTES]. A bytes word nft does not
// know is its "Wrong rate format", spanning the number and the word.
void Parser::parse_limit_rate(uint64_t &rate, uint64_t &unit, bool &bytes, bool &over,
			      uint64_t &burst, bool &burst_given, Location *burst_loc)
{
	if (accept("over"))
		over = true;
	auto data_mult = [](const std::string &w) -> uint64_t {
		return w == "bytes" ? 1 : w == "kbytes" ? 1024 : w == "mbytes" ? 1024 * 1024 : 0;
	};
	auto time_unit = [](const std::string &w) -> uint64_t {
		return w == "second" ? 1 : w == "minute" ? 60 : w == "hour" ? 3600 :
		       w == "day" ? 86400 : w == "week" ? 604800 : 0;
	};
	// N/unit | N bytes/unit | N kbytes/unit
	Token n = take();
	std::string num = n.text, tunit;
	Location tunit_loc = n.loc;
	size_t slash = num.find('/');
	if (slash != std::string::npos) {
		tunit = num.substr(slash + 1);
		num = num.substr(0, slash);
		tunit_loc.first_col += static_cast<unsigned>(slash + 1);
	}
	uint64_t v;
	try {
		size_t used;
		v = std::stoull(num, &used);
		if (used != num.size())
			throw std::invalid_argument("");
	} catch (const std::logic_error &) {
		unexpected(n, "number");
	}
	if (slash == std::string::npos) {
		if (peek().kind == Tok::Word && !kReservedNames.count(peek().text)) {
			// nft's NUM STRING (rate_parse) or NUM bytes_unit / TIME
			Token b = take();
			const size_t sl = b.text.find('/');
			const uint64_t mult = data_mult(b.text.substr(0, sl));
			if (sl == std::string::npos && mult) {
				expect("/", "'/'");
				tunit_loc = peek().loc;
				tunit = expect_name("time unit");
			} else {
				if (!mult || sl == std::string::npos || !time_unit(b.text.substr(sl + 1)))
					throw LangError(span(n.loc, b.loc), "Wrong rate format");
				tunit = b.text.substr(sl + 1);
			}
			v *= mult;
			bytes = true;
		} else {
			expect("/", "'/'");
			tunit_loc = peek().loc;
			tunit = expect_name("time unit");
		}
	}
	unit = time_unit(tunit);
	if (!unit)
		throw LangError(tunit_loc, kReservedNames.count(tunit)
					   ? "syntax error, unexpected " + tunit
					   : std::string("syntax error, unexpected string"));
	rate = v;
	if (burst_loc)
		*burst_loc = peek().loc;
	if (accept("burst")) {
		Token b = take();
		burst = parse_u64(b);
		burst_given = true;
		if (bytes) {
			const Token &u = peek();
			if (u.kind == Tok::Word && data_mult(u.text)) {
				burst *= data_mult(take().text);
			} else if (u.kind == Tok::Word && !kReservedNames.count(u.text) && u.text != "packets") {
				throw LangError(span(b.loc, u.loc), "Wrong rate format");
			} else {
				unexpected(u, "string or bytes");
			}
		} else {
			expect("packets", "packets");
		}
	}
}

// nft's set_stmt and map_stmt: `add|update|delete @SET { KEY [timeout T]
// [expires T] [STATEFUL ...] [: DATA] }`, the key and the data each a
// concatenation of packet expressions and values (set_elem_expr_stmt).
// nft ignores an `expires`; a comment on the key it refuses. The stateful
// statements are nft's stateful_stmt_list: counter, limit, quota and
// `ct count`, none named ("statement must be stateful").
void Parser::parse_set_stmt(Stmt &s)
{
	Token op = take();
	s.kind = StmtKind::SetElem;
	s.set_op = op.is("add") ? kDynsetAdd : op.is("update") ? kDynsetUpdate : kDynsetDelete;
	Token at = take();
	Token n = take();
	if (n.kind != Tok::Word && n.kind != Tok::String)
		unexpected(n, "string");
	s.key = n.text;
	s.name_loc = span(at.loc, n.loc);
	expect("{", "'{'");
	s.lhs = parse_set_stmt_expr();
	for (;;) {
		if (accept("timeout")) {
			s.set_timeout_ms = parse_time_spec("'}'");
		} else if (accept("expires")) {
			parse_time_spec("'}'");
		} else if (peek().is("comment")) {
			throw LangError(s.lhs->loc, "Key expression comments are not supported");
		} else {
			break;
		}
	}
	while (peek().is("counter") || peek().is("limit") || peek().is("quota") ||
	       (peek().is("ct") && peek(1).is("count"))) {
		Rule one;
		const Location start = peek().loc;
		parse_statement(one);
		Stmt &st = one.stmts.back();
		if (!st.key.empty())
			throw LangError(span(start, last_loc_), "statement must be stateful");
		s.stateful.push_back(std::move(st));
	}
	if (accept(":")) {
		if (peek().kind == Tok::Word && is_verdict_word(peek().text))
			unexpected(peek());
		s.rhs = parse_set_stmt_expr();
		expect("}", "'}'");
	} else if (!accept("}")) {
		unexpected(peek());
	}
	s.loc = span(op.loc, last_loc_);
}

// nft's meter_stmt: `meter NAME [size N] { KEY [timeout T] [expires T]
// [comment "..."] STMT }`, KEY as a set statement's (nft's concat_expr),
// STMT any one statement: that it is an anonymous counter, limit or quota,
// that KEY is no value and has no comment, nft checks when it evaluates
// the rule (the linearizer). A size beyond 32 bits is cut to them, as
// nft stores it.
void Parser::parse_meter_stmt(Stmt &s)
{
	Token m = take();
	s.kind = StmtKind::Meter;
	const Token &n = peek();
	if (n.kind != Tok::Word || kReservedNames.count(n.text))
		unexpected(n, "string");
	s.name_loc = n.loc;
	s.key = take().text;
	if (accept("size")) {
		Token z = take();
		if (z.kind != Tok::Word || !is_number_word(z.text))
			unexpected(z, "number");
		s.meter_size = static_cast<uint32_t>(parse_u64(z));
	}
	expect("{", "'{'");
	s.lhs = parse_set_stmt_expr();
	for (;;) {
		if (accept("timeout")) {
			s.set_timeout_ms = parse_time_spec("'}'");
		} else if (accept("expires")) {
			parse_time_spec("'}'");
		} else if (accept("comment")) {
			Token c = take();
			if (c.kind != Tok::String && c.kind != Tok::Word)
				unexpected(c, "string");
			s.key_comment_loc = span(s.lhs->loc, c.loc);
		} else {
			break;
		}
	}
	Rule one;
	const Location start = peek().loc;
	if (peek().punct("}"))
		unexpected(peek());
	parse_statement(one);
	s.inner_loc = span(start, last_loc_);
	s.stateful.push_back(std::move(one.stmts.back()));
	expect("}", "'}'");
	s.loc = span(m.loc, last_loc_);
}

// nft's connlimit_stmt: `ct count [over] NUM`. NUM is the scanner's
// number, strtoull's with base 0 of the whole word (`0x10` is 16, `010`
// 8; `08`, or one beyond 64 bits, is a string to it), kept in 32 bits as
// nft keeps it (4294967296 is 0). Anything else is nft's syntax error at
// it, "expecting number or over" (after `over`, "expecting number"): a
// keyword by its name, another word as "string", a variable as '$'.
void Parser::parse_connlimit_stmt(Stmt &s)
{
	Token ct = take();
	take();	// count
	s.kind = StmtKind::Connlimit;
	// (before peek() expands it)
	auto no_variable = [&](const std::string &expecting) {
		if (!toks_.empty() && toks_.front().kind == Tok::Variable) {
			Location dollar = toks_.front().loc;
			dollar.last_col = dollar.first_col;
			throw LangError(dollar, "syntax error, unexpected '$', expecting " + expecting);
		}
	};
	no_variable("number or over");
	const bool over = accept("over");
	const std::string expecting = over ? "number" : "number or over";
	no_variable(expecting);
	Token n = take();
	if (n.kind != Tok::Word)
		unexpected(n, expecting);
	errno = 0;
	char *end = nullptr;
	const unsigned long long v = std::strtoull(n.text.c_str(), &end, 0);
	if (!is_number_word(n.text) || *end || errno == ERANGE) {
		const bool keyword = kReservedNames.count(n.text) || n.text == "over" || n.text == "packets" ||
				     n.text == "bytes";
		throw LangError(n.loc, "syntax error, unexpected " + (keyword ? n.text : std::string("string")) +
					       ", expecting " + expecting);
	}
	s.connlimit_count = static_cast<uint32_t>(v);
	s.connlimit_flags = over ? kConnlimitInvert : 0;
	s.loc = span(ct.loc, n.loc);
}

// After `counter|quota|limit name`: the object's NAME (in key, where it
// stands in name_loc), or an object map: EXPR map @m|{ KEY : "NAME", ... }
// (in rhs; an expression without `map` in rhs as it is, which nft refuses
// for its type).
void Parser::parse_object_name(Stmt &s)
{
	static const std::set<std::string> starts = {"meta", "ct", "numgen", "jhash", "symhash"};
	const Token &t = peek();
	if (t.punct("@") || (t.kind == Tok::Word && (payload_protos.count(t.text) ||
						     bare_meta_keys.count(t.text) || starts.count(t.text)))) {
		auto key = parse_set_stmt_expr();
		if (!peek().is("map")) {
			s.rhs = std::move(key);
			return;
		}
		take();
		auto mp = make_expr(ExprKind::Map, key->loc);
		mp->items.push_back(std::move(key));
		if (peek().punct("{"))
			mp->items.push_back(parse_set_literal(true));
		else
			mp->items.push_back(parse_rhs(false));
		mp->loc = span(mp->items[0]->loc, mp->items[1]->loc);
		s.rhs = std::move(mp);
		return;
	}
	s.name_loc = t.loc;
	if (t.kind == Tok::Word && kReservedNames.count(t.text))
		throw LangError(t.loc, "syntax error, unexpected " + t.text);
	s.key = expect_name("string");
}

// One side of a set statement's element: packet expressions (payload,
// meta, ct, numgen, hashes, options) and values, `.`-concatenated.
ExprPtr Parser::parse_set_stmt_expr()
{
	static const std::set<std::string> starts = {"meta", "ct", "numgen", "jhash", "symhash",
						     "exthdr", "hbh", "rt", "frag", "dst", "mh"};
	auto part = [&]() -> ExprPtr {
		const Token &t = peek();
		if (t.punct("@") || (t.kind == Tok::Word && (payload_protos.count(t.text) ||
							     bare_meta_keys.count(t.text) || starts.count(t.text))))
			return parse_primary_lhs();
		if (t.kind != Tok::Word && t.kind != Tok::String)
			unexpected(t);
		Token v = take();
		auto e = make_expr(ExprKind::Value, v.loc);
		e->text = v.text;
		e->quoted = v.kind == Tok::String;
		return e;
	};
	auto e = part();
	if (!peek().punct("."))
		return e;
	auto c = make_expr(ExprKind::Concat, e->loc);
	c->items.push_back(std::move(e));
	while (accept("."))
		c->items.push_back(part());
	c->loc = span(c->items.front()->loc, c->items.back()->loc);
	return c;
}

// A limit object's `rate ...` (after the word): what nft's limit_config
// sends, the packets' burst 5 unless given.
void Parser::parse_limit_object_rate(ObjectDecl &c)
{
	uint64_t rate = 0, unit = 1, burst = 0;
	bool bytes = false, over = false, burst_given = false;
	parse_limit_rate(rate, unit, bytes, over, burst, burst_given);
	c.limit_rate = rate;
	c.limit_unit = unit;
	c.limit_bytes = bytes;
	c.limit_over = over;
	c.limit_burst = burst_given ? burst : bytes ? 0 : 5;
}

bool Parser::parse_statement(Rule &r)
{
	Token t = peek();
	Stmt s;
	s.loc = t.loc;
	if (t.kind == Tok::Word && is_verdict_word(t.text)) {
		auto v = parse_verdict_expr();
		s.kind = StmtKind::Verdict;
		s.key = v->text;
		s.chain = v->chain;
		s.loc = v->loc;
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (parse_foreign_stmt(s)) {
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("counter")) {
		take();
		s.kind = StmtKind::Counter;
		// counter name NAME: the table's counter object (objref)
		if (peek().is("name")) {
			take();
			parse_object_name(s);
			r.stmts.push_back(std::move(s));
			return true;
		}
		// nft's counter_args: `packets N`, `bytes N`, the values it
		// starts from, in any order, each optional (the last one given
		// counts)
		while (peek().is("packets") || peek().is("bytes")) {
			const bool packets = take().text == "packets";
			(packets ? s.counter_packets : s.counter_bytes) = parse_u64(take());
		}
		s.loc = span(t.loc, last_loc_);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("notrack")) {
		take();
		s.kind = StmtKind::Notrack;
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("reset") && peek(1).is("tcp") && peek(2).is("option")) {
		// nft's optstrip_stmt: `reset tcp option NAME|KIND`, no field
		take();
		s.kind = StmtKind::ExthdrReset;
		auto opt = make_expr(ExprKind::Exthdr, peek().loc);
		take();
		take();
		Token k = take();
		const int kind = tcp_option_kind_token(k);
		opt->exthdr_op = NFT_EXTHDR_OP_TCPOPT;
		opt->exthdr_type = static_cast<uint8_t>(kind);
		opt->loc = span(opt->loc, k.loc);
		s.loc = span(t.loc, k.loc);
		s.lhs = std::move(opt);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("quota")) {
		take();
		s.kind = StmtKind::Quota;
		// quota name NAME: the table's quota object (objref)
		if (peek().is("name")) {
			take();
			parse_object_name(s);
		} else {
			parse_quota_value(s.quota_bytes, s.quota_flags, s.quota_used, t.loc);
		}
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("reject")) {
		take();
		s.kind = StmtKind::Reject;
		parse_reject_options(s);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("limit")) {
		take();
		s.kind = StmtKind::Limit;
		// limit name NAME: the table's limit object (objref)
		if (peek().is("name")) {
			take();
			parse_object_name(s);
			r.stmts.push_back(std::move(s));
			return true;
		}
		expect("rate", "rate");
		Location burst_loc;
		parse_limit_rate(s.rate, s.unit, s.limit_bytes, s.limit_over, s.burst, s.burst_given,
				 &burst_loc);
		// nft's limit statement (not the object) refuses a packet burst 0
		if (s.burst_given && !s.limit_bytes && s.burst == 0)
			throw LangError(span(burst_loc, last_loc_), "packet limit burst must be > 0");
		// the kernel's complaints point at the whole statement
		s.loc = span(t.loc, last_loc_);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("log")) {
		take();
		s.kind = StmtKind::Log;
		parse_log_options(s);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("flow")) {
		take();
		if (!accept("offload") && !accept("add"))
			unexpected(peek(), "offload or add");
		expect("@", "'@'");
		s.kind = StmtKind::FlowOffload;
		s.key = expect_identifier();
		// the kernel's ENOENT for a flowtable it lacks points at the
		// whole statement (nft records its location for the expression)
		s.loc = span(t.loc, last_loc_);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("meter")) {
		parse_meter_stmt(s);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (t.is("ct") && peek(1).is("count")) {
		parse_connlimit_stmt(s);
		r.stmts.push_back(std::move(s));
		return true;
	}
	if ((t.is("add") || t.is("update") || t.is("delete")) && peek(1).punct("@")) {
		parse_set_stmt(s);
		r.stmts.push_back(std::move(s));
		return true;
	}
	// Expressions: ct/meta set, vmap, relational.
	auto lhs = parse_lhs();
	if (peek().is("set") && lhs->kind == ExprKind::Exthdr) {
		// nft's grammar sets TCP options and SCTP chunks' fields only
		// (nf_tables writes no SCTP chunk: the kernel refuses that)
		if ((lhs->exthdr_op != NFT_EXTHDR_OP_TCPOPT && lhs->exthdr_op != NFT_EXTHDR_OP_SCTP) ||
		    lhs->exthdr_present)
			unexpected(peek());
		take();
		s.kind = StmtKind::ExthdrSet;
		s.lhs = std::move(lhs);
		if ((peek().is("tcp") && peek(1).is("option")) || (peek().is("sctp") && peek(1).is("chunk")))
			s.rhs = parse_exthdr();
		else if (starts_foreign(peek(), peek(1)))
			s.rhs = parse_foreign_expr();
		else
			s.rhs = parse_rhs(false);
		s.loc = span(s.lhs->loc, s.rhs->loc);
		r.stmts.push_back(std::move(s));
		return true;
	}
	// ct/meta set, and nft's payload statement (`ip dscp set cs1`,
	// `@nh,8,8 set 4`): the same grammar for the value
	if (peek().is("set") && (lhs->kind == ExprKind::Ct || lhs->kind == ExprKind::Meta ||
				 lhs->kind == ExprKind::Payload || lhs->kind == ExprKind::RawPayload)) {
		take();
		s.kind = lhs->kind == ExprKind::Ct ? StmtKind::CtSet :
			 lhs->kind == ExprKind::Meta ? StmtKind::MetaSet : StmtKind::PayloadSet;
		if (s.kind != StmtKind::PayloadSet)
			s.key = lhs->text;
		s.lhs = std::move(lhs);
		// a payload's flags may be a list of names (`tcp flags set
		// syn,ack`; nft's list_stmt_expr)
		s.rhs = parse_stmt_value(s.kind == StmtKind::PayloadSet && !is_number_word(peek().text));
		// meta_key_parse()'s complaint about a key nft does not know
		// comes once the statement is read (META STRING SET stmt_expr)
		if (s.kind == StmtKind::MetaSet && !nft_meta_key(s.lhs->text))
			throw LangError(span(s.lhs->loc, s.rhs->loc), unknown_meta_key(s.lhs->text));
		r.stmts.push_back(std::move(s));
		return true;
	}
	if (peek().is("vmap")) {
		take();
		s.kind = StmtKind::VerdictMap;
		s.lhs = std::move(lhs);
		if (peek().punct("{")) {
			s.rhs = parse_set_literal(true, true);
		} else {
			// nft's grammar: VMAP set_ref_expr ('@' or '$') or a set
			if (!peek().punct("@") && peek().kind != Tok::Variable)
				unexpected(peek(), "@ or '{' or '$'");
			s.rhs = parse_rhs(false);
			if (s.rhs->kind != ExprKind::SetRef)
				throw LangError(s.rhs->loc, "syntax error, expecting '{' or '@'");
		}
		r.stmts.push_back(std::move(s));
		return true;
	}
	s.kind = StmtKind::Match;
	Op op = Op::Implicit;
	if (is_op(peek(), op))
		take();
	s.op = op;
	if (at_end_of_stmt())
		unexpected(peek());	// too many expectations for bison to list
	s.lhs = std::move(lhs);
	s.rhs = parse_rhs(true);
	if (peek().punct("/"))
		take_flag_mask(s);
	s.loc = span(s.lhs->loc, s.rhs->loc);
	r.stmts.push_back(std::move(s));
	return true;
}

ExprPtr Parser::parse_stmt_value(bool allow_list)
{
	static const std::set<std::string> generated = {"numgen", "jhash", "symhash"};
	static const std::set<std::string> foreign = {"rt", "fib", "osf", "socket", "ipsec"};
	// nft's set statement's expression: a field's operators may
	// name a field (refused when evaluated)
	stmt_expr_ = true;
	struct Reset {
		bool &b;
		~Reset() { b = false; }
	} reset{stmt_expr_};
	// nft's keyword_expr: `ether`, `vlan`, `arp`, `ip`, `ip6` not
	// followed by one of their fields are values (`ether type set ip6`)
	static const std::set<std::string> keywords = {"ether", "vlan", "arp", "ip", "ip6"};
	const bool keyword_value = peek().kind == Tok::Word && keywords.count(peek().text) &&
				   !(peek(1).kind == Tok::Word && names_field(peek().text, peek(1).text));
	if (keyword_value || peek().kind == Tok::String ||
	    (peek().kind == Tok::Word && !bare_meta_keys.count(peek().text) &&
	     peek().text != "meta" && peek().text != "ct" && !payload_protos.count(peek().text) &&
	     !generated.count(peek().text) && !foreign.count(peek().text)))
		return parse_rhs(allow_list);
	auto src = parse_lhs();
	if (!peek().is("map"))
		return src;
	Token m = take();
	auto mp = make_expr(ExprKind::Map, m.loc);
	mp->items.push_back(std::move(src));
	mp->items.push_back(parse_rhs(false));
	mp->loc = span(mp->items[0]->loc, mp->items[1]->loc);
	return mp;
}

// nft 1.0.6's expressions of other families and other parts of nf_tables,
// as its grammar reads them:
//   rt [ip|ip6] classid|nexthop|mtu|ipsec
//   fib FLAG[.FLAG...] oif|oifname|type   (FLAG: saddr daddr mark iif oif)
//   osf [ttl loose|skip] name|version
//   socket transparent|mark|wildcard
//   ipsec in|out [spnum N] spi|reqid | ipsec in|out [spnum N] ip|ip6 saddr|daddr
ExprPtr Parser::parse_foreign_expr()
{
	Token t = take();
	auto e = make_expr(ExprKind::Foreign, t.loc);
	e->text = t.text;
	// one of WORDS, or bison's error with what it expects (EXPECTING,
	// "" when it lists nothing)
	auto word = [&](std::initializer_list<const char *> words, const char *expecting = "") {
		Token k = take();
		for (const char *w : words)
			if (k.is(w))
				return k;
		unexpected(k, expecting);
	};
	if (t.text == "rt") {
		if (peek().is("ip") || peek().is("ip6"))
			e->chain = take().text;
		e->proto = word({"classid", "nexthop", "mtu", "ipsec"}, "mtu or classid or nexthop or ipsec").text;
	} else if (t.text == "fib") {
		// the tuple's flags, checked as its grammar action checks them
		const Location first = peek().loc;
		std::set<std::string> flags;
		do
			flags.insert(word({"saddr", "daddr", "mark", "iif", "oif"}).text);
		while (accept("."));
		const Location tuple = span(first, last_loc_);
		Token r = take();
		if (!r.is("oif") && !r.is("oifname") && !r.is("type"))
			throw LangError(r.loc, "syntax error, unexpected " + describe(r) +
					       ", expecting type or oif or oifname");
		e->proto = r.text;
		if (!flags.count("saddr") && !flags.count("daddr"))
			throw LangError(tuple, "fib: need either saddr or daddr");
		if (flags.count("saddr") && flags.count("daddr"))
			throw LangError(tuple, "fib: saddr and daddr are mutually exclusive");
		if (flags.count("iif") && flags.count("oif"))
			throw LangError(tuple, "fib: iif and oif are mutually exclusive");
	} else if (t.text == "osf") {
		// the ttl's option is a string to nft's grammar, checked by its action
		if (accept("ttl")) {
			Token o = take();
			if (o.kind == Tok::Word && !o.is("loose") && !o.is("skip") && !kReservedNames.count(o.text) &&
			    !kOtherScannerKeywords.count(o.text) && !is_number_word(o.text))
				throw LangError(o.loc, "invalid ttl option");
			if (!o.is("loose") && !o.is("skip"))
				unexpected(o, "string");
		}
		e->proto = word({"name", "version"}).text;
	} else if (t.text == "socket") {
		e->proto = word({"transparent", "mark", "wildcard"},
				"transparent or wildcard or cgroupv2 or mark").text;
	} else {
		e->proto = word({"in", "out"}).text;
		if (peek().is("spnum")) {
			const Location at = take().loc;
			Token n = take();
			if (n.kind != Tok::Word || !is_number_word(n.text))
				unexpected(n, "number");
			if (parse_u64(n) > 255)
				throw LangError(span(at, n.loc), "value too large");
		}
		if (peek().is("ip") || peek().is("ip6")) {
			e->chain = take().text;
			e->proto = word({"saddr", "daddr"}).text;
		} else {
			e->proto = word({"spi", "reqid"}, "ip or ip6 or spi or reqid").text;
		}
	}
	e->loc = span(t.loc, last_loc_);
	return e;
}

// nft 1.0.6's statements for other families and other parts of nf_tables:
//   synproxy [mss N | wscale N | timestamp | sack-perm]...
//   queue [num N[-M] | bypass | fanout [, ...]]... | queue [flags F[,F]] to EXPR |
//   queue flags F[,F] num N[-M]
//   dup to EXPR [device EXPR] | fwd to EXPR | fwd ip|ip6 to EXPR device EXPR
//   xt WORD WORD (iptables-nft's compat expressions, which nft refuses)
bool Parser::parse_foreign_stmt(Stmt &s)
{
	const Token t = peek();
	if (t.kind != Tok::Word)
		return false;
	auto number = [&] {
		Token n = take();
		if (n.kind != Tok::Word || !is_number_word(n.text))
			unexpected(n, "number");
		return n;
	};
	if (t.is("xt")) {
		take();
		Token a = take(), b = take();
		if (a.kind != Tok::Word || kReservedNames.count(a.text) || kOtherScannerKeywords.count(a.text))
			unexpected(a, "string");
		if (b.kind != Tok::Word || kReservedNames.count(b.text) || kOtherScannerKeywords.count(b.text))
			unexpected(b, "string");
		throw LangError(span(t.loc, b.loc),
				"unsupported xtables compat expression, use iptables-nft with this ruleset");
	}
	if (t.is("synproxy")) {
		take();
		for (;;) {
			if (accept("mss") || accept("wscale"))
				number();
			else if (!accept("timestamp") && !accept("sack-perm"))
				break;
		}
	} else if (t.is("queue")) {
		take();
		// a value of 16 bits or a range of them (queue_stmt_expr_simple,
		// which takes a variable too)
		auto simple = [&] {
			Token n = take();
			if (n.kind != Tok::Word || !is_number_word(n.text))
				unexpected(n, "number or '$'");
			auto v = make_expr(ExprKind::Value, n.loc);
			v->text = n.text;
			if (!peek().punct("-"))
				return v;
			take();
			Token m = take();
			if (m.kind != Tok::Word || !is_number_word(m.text))
				unexpected(m, "number or '$'");
			auto hi = make_expr(ExprKind::Value, m.loc);
			hi->text = m.text;
			auto r = make_expr(ExprKind::Range, span(n.loc, m.loc));
			r->items.push_back(std::move(v));
			r->items.push_back(std::move(hi));
			return r;
		};
		// bypass or fanout, or both with a comma
		auto flags = [&] {
			for (;;) {
				Token f = take();
				if (!f.is("bypass") && !f.is("fanout"))
					unexpected(f);
				s.queue_flags |= f.is("bypass") ? NFT_QUEUE_FLAG_BYPASS : NFT_QUEUE_FLAG_CPU_FANOUT;
				if (!accept(","))
					return;
			}
		};
		const bool flags_first = accept("flags");
		if (flags_first) {
			if (!peek().is("bypass") && !peek().is("fanout"))
				unexpected(peek());
			flags();
		}
		if (accept("to")) {
			s.rhs = parse_stmt_value(false);
		} else if (flags_first) {
			expect("num", "to or num");
			s.rhs = simple();
		} else {
			for (;;) {
				if (peek().is("num")) {
					// nft points at `num N` (queue_stmt_arg)
					const Location at = take().loc;
					s.rhs = simple();
					s.rhs->loc = span(at, s.rhs->loc);
				} else if (peek().is("bypass") || peek().is("fanout"))
					flags();
				else
					break;
			}
		}
	} else if (t.is("dup") || t.is("fwd")) {
		take();
		if (t.is("fwd") && (peek().is("ip") || peek().is("ip6"))) {
			take();
			expect("to", "to");
			parse_stmt_value(false);
			expect("device", "device");
			parse_stmt_value(false);
		} else {
			expect("to", "to");
			parse_stmt_value(false);
			if (t.is("dup") && accept("device"))
				parse_stmt_value(false);
		}
	} else {
		return false;
	}
	s.kind = StmtKind::Foreign;
	s.key = t.text;
	s.loc = span(t.loc, last_loc_);
	return true;
}

// nft's log options, in any order: prefix "...", level emerg..debug|audit,
// flags tcp sequence,options | ip options | skuid | ether | all (repeatable),
// group N, snaplen N, queue-threshold N.
void Parser::parse_log_options(Stmt &s)
{
	auto number = [&](const char *what) {
		Token n = take();
		uint64_t v;
		if (n.kind != Tok::Word || !is_number_word(n.text) || (v = parse_u64(n)) > 0xffffffffull)
			unexpected(n, what);
		return static_cast<int64_t>(v);
	};
	for (;;) {
		if (accept("prefix")) {
			Token p = take();
			// nft's string: a quoted one or a word that is no keyword
			if (p.kind != Tok::String && (p.kind != Tok::Word || kReservedNames.count(p.text)))
				unexpected(p, "string or quoted string or string with a trailing asterisk");
			s.prefix = p.text;
			s.has_prefix = true;
		} else if (peek().is("level")) {
			take();
			Token l = take();
			s.log_level = -1;
			for (int i = 0; i < int(std::size(kLogLevelNames)); i++)
				if (l.is(kLogLevelNames[i]))
					s.log_level = i;
			if (s.log_level < 0)
				throw LangError(l.loc, "invalid log level");
		} else if (accept("flags")) {
			if (accept("tcp")) {
				do {
					if (accept("sequence"))
						s.log_flags |= kLogTcpSeq;
					else if (accept("options"))
						s.log_flags |= kLogTcpOpt;
					else
						unexpected(peek(), "sequence or options");
				} while (accept(","));
			} else if (accept("ip")) {
				expect("options", "options");
				s.log_flags |= kLogIpOpt;
			} else if (accept("skuid")) {
				s.log_flags |= kLogUid;
			} else if (accept("ether")) {
				s.log_flags |= kLogMacDecode;
			} else if (accept("all")) {
				s.log_flags |= kLogAll;
			} else {
				unexpected(peek(), "tcp, ip, skuid, ether or all");
			}
		} else if (peek().is("group")) {
			take();
			s.log_group = number("group number");
		} else if (peek().is("snaplen")) {
			take();
			s.log_snaplen = number("snaplen");
		} else if (peek().is("queue-threshold")) {
			take();
			s.log_qthreshold = number("queue threshold");
		} else {
			return;
		}
	}
}

// nft's data units (datatype.c data_unit_parse): the multiplier of a
// quota's bytes; 0 for a word it does not know.
static uint64_t data_unit(const std::string &w)
{
	if (w == "bytes") return 1;
	if (w == "kbytes") return 1024;
	if (w == "mbytes") return 1024 * 1024;
	return 0;
}

void Parser::parse_quota_value(uint64_t &bytes, uint32_t &flags, uint64_t &used, const Location &start)
{
	if (accept("over"))
		flags |= kQuotaInvert;
	else
		accept("until");
	auto amount = [&](Token &unit) {
		Token n = take();
		if (n.kind != Tok::Word)
			unexpected(n, "number");
		const uint64_t v = parse_u64(n);
		unit = take();
		if (unit.kind != Tok::Word)
			unexpected(unit, "string or bytes");
		return v;
	};
	Token unit{}, used_unit{};
	const uint64_t n = amount(unit);
	uint64_t u = 0;
	bool has_used = false;
	Location end = unit.loc;
	if (peek().is("used")) {
		const Location used_at = take().loc;
		u = amount(used_unit);
		has_used = true;
		end = used_unit.loc;
		// nft checks each unit once its part is read: the error spans it
		if (!data_unit(used_unit.text))
			throw LangError(span(used_at, end), "Wrong rate format");
	}
	if (!data_unit(unit.text))
		throw LangError(span(start, end), "Wrong rate format");
	bytes = n * data_unit(unit.text);
	used = has_used ? u * data_unit(used_unit.text) : 0;
}

// After `reject`: nothing, `with tcp reset`, or `with icmp|icmpv6|icmpx
// [type] CODE` (nft 1.0.6 takes `type` or leaves it out); the code is a
// name or a number, typed when the rule is compiled.
void Parser::parse_reject_options(Stmt &s)
{
	if (!accept("with"))
		return;
	Token w = take();
	if (w.is("tcp")) {
		expect("reset", "reset");
		s.reject_with = "tcp";
		return;
	}
	if (!w.is("icmp") && !w.is("icmpv6") && !w.is("icmpx"))
		unexpected(w, "icmp or icmpv6 or tcp or icmpx");
	s.reject_with = w.text;
	accept("type");
	Token code = take();
	if (code.kind != Tok::Word)
		unexpected(code, "number or string");
	s.key = code.text;
	s.name_loc = code.loc;
}

// Flags joined by `|`: what `syn,ack` means on either side of nft's `/`.
static ExprPtr flags_ored(ExprPtr e)
{
	if (e->kind != ExprKind::List)
		return e;
	ExprPtr acc = std::move(e->items[0]);
	for (size_t i = 1; i < e->items.size(); i++) {
		auto b = make_expr(ExprKind::Binop, span(acc->loc, e->items[i]->loc));
		b->text = "|";
		b->items.push_back(std::move(acc));
		b->items.push_back(std::move(e->items[i]));
		acc = std::move(b);
	}
	return acc;
}

// `LHS [==|!=] VALUE / MASK`, nft's flag comparison: (LHS & MASK) OP VALUE.
// VALUE is flags (`syn`, `syn|ack`, `syn,ack`); MASK is a list of two or
// more (`syn,ack`; nft's grammar wants the comma). The statement becomes
// the `&` form it stands for, so it compiles and lists as that does.
void Parser::take_flag_mask(Stmt &s)
{
	take();
	auto is_flags = [](const Expr &e) {
		return e.kind == ExprKind::Value || e.kind == ExprKind::List ||
		       (e.kind == ExprKind::Binop && e.text == "|");
	};
	if (!is_flags(*s.rhs))
		throw LangError(s.rhs->loc, "syntax error, a flag comparison compares flags");
	auto first = parse_rhs_atom();
	if (!peek().punct(","))
		unexpected(peek(), "comma");
	auto mask = make_expr(ExprKind::List, first->loc);
	mask->items.push_back(std::move(first));
	while (accept(","))
		mask->items.push_back(parse_rhs_atom());
	mask->loc = span(mask->items.front()->loc, mask->items.back()->loc);
	if (s.op != Op::Implicit && s.op != Op::Eq && s.op != Op::Neq)
		throw LangError(span(s.lhs->loc, mask->loc), "either == or != is allowed");
	auto masked = make_expr(ExprKind::Binop, span(s.lhs->loc, mask->loc));
	masked->text = "&";
	masked->items.push_back(std::move(s.lhs));
	masked->items.push_back(flags_ored(std::move(mask)));
	s.lhs = std::move(masked);
	s.rhs = flags_ored(std::move(s.rhs));
	if (s.op == Op::Implicit)
		s.op = Op::Eq;
}

} // namespace xnft
