// lexer.cc - the tokenizer (see lexer.h).
#include "lexer.h"

#include <cctype>

namespace xnft {

static bool word_start(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// nft's scanner reads these words as the operators they name, wherever
// they stand (src/scanner.l: "and" is AMPERSAND as "&" is ...): they are
// those tokens here too, so they work as the operators and are no names.
static const char *word_operator(const std::string &w)
{
	static const struct { const char *word, *op; } ops[] = {
		{"and", "&"}, {"or", "|"}, {"xor", "^"}, {"lshift", "<<"}, {"rshift", ">>"},
		{"eq", "=="}, {"ne", "!="}, {"lt", "<"}, {"gt", ">"}, {"le", "<="}, {"ge", ">="},
		{"not", "!"},
	};
	for (auto &o : ops)
		if (w == o.word)
			return o.op;
	return nullptr;
}

static bool word_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
	       c == ':' || c == '/' || c == '-' || c == '*';
}

std::vector<Token> tokenize(const SourceFile &file)
{
	std::vector<Token> out;
	const std::string &s = file.text;
	size_t i = 0, line_start = 0;
	unsigned line = 1;
	auto loc_at = [&](size_t from, size_t to) {
		Location l;
		l.file = &file;
		l.line = line;
		l.line_offset = line_start;
		l.first_col = static_cast<unsigned>(from - line_start + 1);
		l.last_col = static_cast<unsigned>(to - line_start);
		if (l.last_col < l.first_col)
			l.last_col = l.first_col;
		return l;
	};
	auto push = [&](Tok k, std::string text, size_t from, size_t to) {
		out.push_back(Token{k, std::move(text), loc_at(from, to)});
	};
	while (i < s.size()) {
		char c = s[i];
		if (c == '\n') {
			push(Tok::Newline, "\n", i, i + 1);
			i++;
			line++;
			line_start = i;
			continue;
		}
		if (c == '\\' && i + 1 < s.size() && s[i + 1] == '\n') {
			i += 2;
			line++;
			line_start = i;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#') {
			while (i < s.size() && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '"') {
			size_t j = i + 1;
			while (j < s.size() && s[j] != '"' && s[j] != '\n')
				j++;
			if (j >= s.size() || s[j] != '"') {
				// nft's scanner: the quote alone is junk, what follows
				// is scanned on
				push(Tok::Junk, "\"", i, i + 1);
				i++;
				continue;
			}
			push(Tok::String, s.substr(i + 1, j - i - 1), i, j + 1);
			i = j + 1;
			continue;
		}
		if (c == '$') {
			size_t j = i + 1;
			while (j < s.size() && (word_start(s[j]) || s[j] == '-'))
				j++;
			if (j == i + 1)
				throw LangError(loc_at(i, i + 1), "syntax error, unexpected $");
			push(Tok::Variable, s.substr(i + 1, j - i - 1), i, j);
			i = j;
			continue;
		}
		bool ipv6_start = c == ':' && i + 1 < s.size() && s[i + 1] == ':';
		if (word_start(c) || ipv6_start) {
			size_t j = i;
			while (j < s.size() && word_char(s[j]))
				j++;
			// "22:" before a value: the colon is the map separator,
			// unless the word is an address ending in "::".
			while (j > i + 1 && s[j - 1] == ':' && s[j - 2] != ':')
				j--;
			// A trailing '-' or '.' belongs to the next token.
			while (j > i + 1 && (s[j - 1] == '-' || s[j - 1] == '.'))
				j--;
			std::string w = s.substr(i, j - i);
			if (const char *op = word_operator(w))
				push(Tok::Punct, op, i, j);
			else
				push(Tok::Word, std::move(w), i, j);
			i = j;
			continue;
		}
		if (i + 1 < s.size()) {
			std::string two = s.substr(i, 2);
			if (two == "==" || two == "!=" || two == "<=" || two == ">=" ||
			    two == "<<" || two == ">>") {
				push(Tok::Punct, two, i, i + 2);
				i += 2;
				continue;
			}
		}
		if (std::string("{}();,=:.@!<>&|^-/*+").find(c) != std::string::npos) {
			push(Tok::Punct, std::string(1, c), i, i + 1);
			i++;
			continue;
		}
		push(Tok::Junk, std::string(1, c), i, i + 1);
		i++;
	}
	push(Tok::End, "", i, i);
	// nft shows the end of a file that ends a line with the line before
	// (its scanner has not moved on to the empty line yet)
	if (line_start == s.size() && !s.empty()) {
		const size_t newline = s.rfind('\n', s.size() - 2);
		out.back().loc.line_offset = s.size() < 2 || newline == std::string::npos ? 0 : newline + 1;
	}
	return out;
}

} // namespace xnft
