// lexer.cc - the tokenizer (see lexer.h).
#include "lexer.h"

#include <algorithm>
#include <cctype>
#include <cstring>

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

// ---- where nft's scanner ends a token ----
//
// nft's scanner (src/scanner.l) takes the longest token it can at each
// place: a name (a letter, '_' or '.' first, then letters, digits and
// "/-_."), a number (decimal, or 0x and hex digits), an address (Ethernet,
// IPv4 as four dotted numbers of up to three digits, IPv6), a time
// ("1h30m"), a classid "hex:hex" when a blank, ':', '-', '}' or ',' follows.
// A name keeps its '-', '/' and '.' ("ssh-http" is one name); a token that
// starts with a digit ends where its number, address or time does
// ("22-ssh" is 22, '-' and ssh; "1e3" is 1 and the name e3).

static bool is_hex(char c)
{
	return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

// W is SEP-separated groups, COUNT of them, each MIN..MAX chars of PRED
// (COUNT 0: any number of groups, at least one).
template <typename Pred>
static bool groups(const std::string &w, char sep, size_t count, size_t min, size_t max, Pred pred,
		   size_t *found = nullptr)
{
	size_t n = 0, len = 0;
	for (size_t i = 0; i <= w.size(); i++) {
		if (i == w.size() || w[i] == sep) {
			if (len < min || len > max)
				return false;
			n++;
			len = 0;
			continue;
		}
		if (!pred(w[i]))
			return false;
		len++;
	}
	if (found)
		*found = n;
	return count == 0 || n == count;
}

static bool is_ip4_token(const std::string &w)
{
	return groups(w, '.', 4, 1, 3, is_digit);
}

static bool is_mac_token(const std::string &w)
{
	return groups(w, ':', 6, 1, 2, is_hex);
}

// eight groups of 1-4 hex digits, or fewer around one "::"; "::" alone;
// "::" or "::ffff:" before an IPv4 address (RFC 4291's two forms)
static bool is_ip6_token(const std::string &w)
{
	if (w == "::")
		return true;
	if (w.compare(0, 2, "::") == 0) {
		if (is_ip4_token(w.substr(2)))
			return true;
		if (w.size() > 7 && w[6] == ':' && std::all_of(w.begin() + 2, w.begin() + 6,
							       [](char c) { return c == 'f' || c == 'F'; }) &&
		    is_ip4_token(w.substr(7)))
			return true;
	}
	const size_t dc = w.find("::");
	if (dc == std::string::npos)
		return groups(w, ':', 8, 1, 4, is_hex);
	const std::string left = w.substr(0, dc), right = w.substr(dc + 2);
	size_t a = 0, b = 0;
	if (!left.empty() && !groups(left, ':', 0, 1, 4, is_hex, &a))
		return false;
	if (!right.empty() && !groups(right, ':', 0, 1, 4, is_hex, &b))
		return false;
	return a + b >= 1 && a + b <= 7;
}

// ([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?, not empty
static bool is_time_token(const std::string &w)
{
	static const char *const units[] = {"d", "h", "m", "s", "ms"};
	size_t i = 0, u = 0;
	while (i < w.size()) {
		size_t j = i;
		while (j < w.size() && is_digit(w[j]))
			j++;
		if (j == i)
			return false;
		bool found = false;
		for (; u < 5 && !found; u++) {
			const size_t n = std::strlen(units[u]);
			// "5m" is minutes only when no 's' follows ("5ms")
			if (w.compare(j, n, units[u]) == 0 && !(u == 2 && w.compare(j, 2, "ms") == 0))
				found = true, j += n;
		}
		if (!found)
			return false;
		i = j;
	}
	return !w.empty();
}

static bool is_classid_token(const std::string &w)
{
	return groups(w, ':', 2, 1, 4, is_hex);
}

// The length of nft's token at S[I] within the word S[I, END): the longest
// match, a classid's following character counted (flex's trailing context).
static size_t nft_token_length(const std::string &s, size_t i, size_t end)
{
	size_t best = 0;
	const char c = s[i];
	if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
		size_t j = i + 1;
		while (j < end && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '/' ||
				   s[j] == '-' || s[j] == '_' || s[j] == '.'))
			j++;
		if (j < end && s[j] == '*')	// an interface name's wildcard
			j++;
		best = j - i;
	}
	if (is_digit(c)) {
		size_t j = i + 1;
		if (c == '0' && i + 2 < end && (s[i + 1] == 'x' || s[i + 1] == 'X') && is_hex(s[i + 2])) {
			j = i + 2;
			while (j < end && is_hex(s[j]))
				j++;
		} else {
			while (j < end && is_digit(s[j]))
				j++;
		}
		best = j - i;
		for (const char *kw : {"8021ad", "8021q"})
			if (end - i >= std::strlen(kw) && s.compare(i, std::strlen(kw), kw) == 0)
				best = std::max(best, std::strlen(kw));
	}
	const size_t limit = std::min(end - i, static_cast<size_t>(64));
	for (size_t len = limit; len > best; len--) {
		const std::string w = s.substr(i, len);
		if (is_mac_token(w) || is_ip4_token(w) || is_ip6_token(w) || is_time_token(w)) {
			best = len;
			break;
		}
	}
	for (size_t len = std::min(limit, static_cast<size_t>(9)); len >= 3 && len + 1 > best; len--) {
		const char next = i + len < s.size() ? s[i + len] : '\0';
		if (next != '\0' && std::strchr(" \t\n:-},", next) && is_classid_token(s.substr(i, len)))
			return len;
	}
	return best;
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
		const bool dot_name = c == '.' && i + 1 < s.size() &&
				      (std::isalnum(static_cast<unsigned char>(s[i + 1])) ||
				       std::strchr("/-_.", s[i + 1]));
		if (word_start(c) || ipv6_start || dot_name) {
			size_t j = i;
			while (j < s.size() && word_char(s[j]))
				j++;
			const size_t len = nft_token_length(s, i, j);
			if (len == 0) {	// a ':' that starts no IPv6 address
				push(Tok::Punct, ":", i, i + 1);
				i++;
				continue;
			}
			j = i + len;
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
		if (std::string("{}()[];,=:.@!<>&|^-/*+").find(c) != std::string::npos) {
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
