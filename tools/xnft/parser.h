// parser.h - nft's grammar (the subset of nft(8) that xnft knows) turned
// into Commands: tables and their block bodies, chains, rules, sets, maps,
// flowtables, elements, `define`, `include`, `flush ruleset`, list/delete.
//
// Ownership: the Parser owns every SourceFile it reads (the command line,
// -f files, includes) for its whole life, so Locations stay valid.
// Variables (`define`) are expanded at the token level, as nft's scanner
// would see the definition's text in place of $name.
//
// Errors: like nft's bison parser, a syntax error does not end the parse.
// The block the error happened in (the file's top level, a table, chain,
// set, map, flowtable or object block: nft's `common_block: error
// stmt_separator`) drops the item it was reading and every token up to the
// next newline or ';', and goes on; the end of the file while dropping, or
// the tenth recovered error, ends the parse (YYABORT). The errors, in the
// order found, and the commands read whole stay for the caller.
#pragma once
#include <deque>
#include <list>
#include <map>
#include <string>
#include <vector>

#include "ast.h"
#include "lexer.h"

namespace xnft {

class Parser {
public:
	// Parses the file at PATH ("-" for stdin); throws LangError.
	std::vector<Command> parse_file(const std::string &path);
	// Parses TEXT given on the command line.
	std::vector<Command> parse_text(const std::string &text);
	// Parses TEXT read from elsewhere, errors naming it NAME.
	std::vector<Command> parse_named_text(const std::string &name, const std::string &text);
	std::vector<std::string> include_dirs;
	// When false (the default) the parse functions throw the first syntax
	// error, after reading on as nft does; when true they return the
	// commands read whole and leave the errors in syntax_errors().
	bool keep_errors = false;
	const std::vector<LangError> &syntax_errors() const { return errors_; }
	// nft's parser error count (state->nerrs): the errors recovered from,
	// which is one fewer than those reported when the file ended while
	// dropping tokens. nft's evaluation counts on from it.
	unsigned recovered_errors() const { return recovered_; }
	// nft's parser_max_errors: the parse and the evaluation stop at it.
	static constexpr unsigned kMaxErrors = 10;

private:
	std::vector<Command> parse_source(const SourceFile &f);
	const SourceFile &add_source(std::string name, std::string text);

	// token stream
	const Token &peek(size_t ahead = 0);
	Token take();
	bool accept(const char *p);
	Token expect(const char *p, const char *what);
	std::string expect_name(const char *what);
	std::string expect_identifier(const char *expecting = "string");
	bool at_end_of_stmt();
	void skip_separators();
	// Reads the items of a { } block up to its closing brace (left for
	// the caller): PARSE_ITEM reads one and returns what bison would
	// expect after it when no newline or ';' follows (nullptr: nothing
	// needed; "": nft names no expectation). An error within an item is
	// recovered from in this block (see recover()).
	template <class ParseItem> void parse_block_items(ParseItem &&parse_item);
	// The rest of a table block's item after its '{': BODY reads the
	// block's items; then its '}' and the newline or ';' that must follow
	// it. Another token there is an error bison recovers from inside the
	// block just closed (the item's grammar rule ends with the separator,
	// so the block's state is still on bison's stack): its items go on
	// after the next newline or ';', up to another '}'.
	template <class Body> void parse_block_rest(Body &&body);
	// Notes ERR and drops tokens up to and including the next newline or
	// ';' (nft's error recovery); throws ParseAborted at the end of the
	// input or at the kMaxErrors-th error.
	void recover(const LangError &err);
	[[noreturn]] void unexpected(const Token &t, const std::string &expecting = "");
	void expand_variable();

	// commands and objects
	void parse_line(std::vector<Command> &out);
	void parse_define();
	void parse_include();
	std::string parse_family_opt();
	void parse_table_body(TableDecl &t);
	void parse_chain_body(ChainDecl &c);
	void parse_set_body(SetDecl &s);
	void parse_flowtable_body(FlowtableDecl &f);
	void parse_object_body(ObjectDecl &c, const Location &open);
	// [over|until] N UNIT [used N UNIT]; a unit nft does not know is an
	// error spanning from @start to it.
	void parse_quota_value(uint64_t &bytes, uint32_t &flags, uint64_t &used, const Location &start);
	// After `limit rate`: [over] N[ UNIT]/TIME [burst N packets|UNIT].
	// @burst_loc (if given): where `burst` stands.
	void parse_limit_rate(uint64_t &rate, uint64_t &unit, bool &bytes, bool &over,
			      uint64_t &burst, bool &burst_given, Location *burst_loc = nullptr);
	void parse_limit_object_rate(ObjectDecl &c);
	// @hook: the chain's hook (standard bridge names belong to one hook
	// each); @keyword: where `priority` stands, for the error's caret.
	int32_t parse_priority(const std::string &family, bool flowtable, Location &loc,
			       const std::string &hook, const Location &keyword);
	std::vector<std::string> parse_devices();

	// rules
	// @end: what nft's grammar expects after a whole statement, where a
	// token no statement starts with stands (a block's rule: newline or
	// semicolon; a rule command's: the end of the file too)
	Rule parse_rule(const char *end = "newline or semicolon");
	bool parse_statement(Rule &r);
	ExprPtr parse_primary_lhs();
	ExprPtr parse_lhs();
	ExprPtr parse_typeof_expr();
	ExprPtr parse_set_typeof();
	ExprPtr parse_generated();
	ExprPtr parse_exthdr();
	void routing_header_field(const Token &t, const Token &f, Expr &e);
	// A TCP option's kind, by nft's name for it or as a number (0-255).
	int tcp_option_kind_token(const Token &k);
	ExprPtr parse_raw_payload();
	// nft 1.0.6's rt, fib, osf, socket and ipsec expressions (foreign.h)
	ExprPtr parse_foreign_expr();
	// its synproxy, queue, dup, fwd and xt statements; false for none
	bool parse_foreign_stmt(Stmt &s);
	// nft's stmt_expr: a set statement's value, a dup's address
	ExprPtr parse_stmt_value(bool allow_list);
	std::string comment_string();
	// nft's time_spec in milliseconds; @expecting: what nft's grammar
	// wants after it, for a word that goes on beyond the time.
	uint64_t parse_time_spec(const char *expecting);
	ExprPtr parse_rhs(bool allow_list);
	ExprPtr parse_rhs_atom();
	ExprPtr parse_rhs_primary();
	ExprPtr parse_binop_tail(ExprPtr left, int min);
	void take_flag_mask(Stmt &s);
	void parse_log_options(Stmt &s);
	void parse_reject_options(Stmt &s);
	void parse_set_stmt(Stmt &s);
	void parse_object_name(Stmt &s);
	void parse_meter_stmt(Stmt &s);
	void parse_connlimit_stmt(Stmt &s);
	bool stateful_start();
	void parse_set_stmts(std::vector<Stmt> &out);
	void parse_elem_stmts(Expr &key);
	uint64_t parse_number_u64();
	ExprPtr parse_set_stmt_expr();
	// @verdicts_only: a verdict map's literal, whose data are verdicts
	ExprPtr parse_set_literal(bool allow_map, bool verdicts_only = false);
	ExprPtr parse_verdict_expr();

	std::list<SourceFile> files_;
	std::deque<Token> toks_;
	std::map<std::string, std::vector<Token>> vars_;
	std::vector<std::string> include_stack_;
	Token end_tok_;
	Location last_loc_;   // the last token taken (a command's end)
	bool stmt_expr_ = false;  // parsing a meta/ct set statement's value
	Token last_taken_{Tok::End, "", {}};  // the last token taken: an error's lookahead
	std::vector<LangError> errors_;
	unsigned recovered_ = 0;
};

} // namespace xnft
