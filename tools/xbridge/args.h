// args.h - iproute2-style argument handling: a cursor over argv words,
// prefix matching (`matches`), and the value parsers (MAC, VID, ranges,
// on/off, port states) shared by every object.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xbridge {

using Mac = std::array<uint8_t, 6>;

// iproute2's matches(): true when ARG is a non-empty prefix of WORD.
bool matches(std::string_view arg, std::string_view word);

class Args {
public:
	explicit Args(std::vector<std::string> words) : w_(std::move(words)) {}
	bool done() const { return i_ >= w_.size(); }
	const std::string &peek() const { return w_.at(i_); }
	std::string take() { return w_.at(i_++); }
	// The value after keyword KW; throws a usage error if missing.
	std::string value(const std::string &kw);
	size_t remaining() const { return w_.size() - i_; }

private:
	std::vector<std::string> w_;
	size_t i_ = 0;
};

Mac parse_mac(const std::string &s);
std::string format_mac(const Mac &m);
uint16_t parse_vid(const std::string &s);                  // 1..4094
std::pair<uint16_t, uint16_t> parse_vid_range(const std::string &s);  // VID[-END]
bool parse_on_off(const std::string &kw, const std::string &v);
uint8_t parse_port_state(const std::string &v);            // name or 0..4
const char *port_state_name(unsigned s);                   // "disabled".. or nullptr
uint32_t parse_u32(const std::string &kw, const std::string &v, uint32_t max);

// The value after keyword KW into SLOT, which must still be unset
// (iproute2's duparg otherwise): for keywords that may appear once.
void value_once(Args &a, const std::string &kw, std::string &slot);
void vid_once(Args &a, const std::string &kw, uint16_t &slot);  // 1..4094

// Split a -batch line into words: whitespace separated, "double" and
// 'single' quotes group, '#' starts a comment.
std::vector<std::string> split_line(const std::string &line);

// One keyword of a command: its words ("a|b" are synonyms; "~word" takes
// iproute2's abbreviations, matches()) and what it does with the word
// given, taking the keyword's value from the Args itself.
struct Keyword {
	const char *words;
	std::function<void(const std::string &word)> act;
};

// iproute2's argument loop, the one every command shares: each word left
// in A to the first of KEYWORDS that names it; else "help" throws
// UsageError(USAGE) (unless USAGE is null); else the word goes to OTHER,
// or is garbage when there is none.
void parse_keywords(Args &a, const char *usage, std::initializer_list<Keyword> keywords,
		    const std::function<void(const std::string &word)> &other = {});

// A Keyword's action for a word iproute2 has and xbridge does not.
[[noreturn]] void unsupported_word(const std::string &word);

// iproute2's invarg/duparg/garbage messages.
[[noreturn]] void invarg(const std::string &msg, const std::string &arg);
[[noreturn]] void duparg(const std::string &key, const std::string &arg);
[[noreturn]] void garbage(const std::string &arg);

}  // namespace xbridge
