// args.cc - see args.h.
#include "args.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "errors.h"

namespace xbridge {

bool matches(std::string_view arg, std::string_view word)
{
	return !arg.empty() && arg.size() <= word.size() && word.substr(0, arg.size()) == arg;
}

std::string Args::value(const std::string &kw)
{
	if (done())
		throw UsageError("Command line is not complete. Try option \"help\"");
	(void)kw;
	return take();
}

void invarg(const std::string &msg, const std::string &arg)
{
	throw UsageError("Error: argument \"" + arg + "\" is wrong: " + msg);
}

void duparg(const std::string &key, const std::string &arg)
{
	throw UsageError("Error: duplicate \"" + key + "\": \"" + arg +
			 "\" is the second value.");
}

void value_once(Args &a, const std::string &kw, std::string &slot)
{
	if (!slot.empty())
		duparg(kw, a.peek());
	slot = a.value(kw);
}

void vid_once(Args &a, const std::string &kw, uint16_t &slot)
{
	if (slot)
		duparg(kw, a.peek());
	slot = parse_vid(a.value(kw));
}

static bool keyword_names(const char *words, const std::string &w)
{
	std::string_view all(words);
	while (!all.empty()) {
		size_t bar = all.find('|');
		std::string_view one = all.substr(0, bar);
		if (one.front() == '~' ? matches(w, one.substr(1)) : w == one)
			return true;
		if (bar == std::string_view::npos)
			break;
		all.remove_prefix(bar + 1);
	}
	return false;
}

void parse_keywords(Args &a, const char *usage, std::initializer_list<Keyword> keywords,
		    const std::function<void(const std::string &word)> &other)
{
	while (!a.done()) {
		std::string w = a.take();
		const Keyword *k = nullptr;
		for (const Keyword &kw : keywords) {
			if (keyword_names(kw.words, w)) {
				k = &kw;
				break;
			}
		}
		if (k)
			k->act(w);
		else if (usage && w == "help")
			throw UsageError(usage);
		else if (other)
			other(w);
		else
			garbage(w);
	}
}

void unsupported_word(const std::string &word)
{
	throw UsageError("Error: \"" + word + "\" is not supported by xbridge.");
}

void garbage(const std::string &arg)
{
	throw UsageError("Error: \"" + arg + "\" is unknown here (a garbage word).");
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

Mac parse_mac(const std::string &s)
{
	Mac m{};
	size_t p = 0;
	for (size_t i = 0; i < 6; i++) {
		int v = 0, n = 0;
		while (p < s.size() && s[p] != ':' && n < 3) {
			int h = hexval(s[p]);
			if (h < 0)
				throw UsageError("Invalid mac address " + s);
			v = v * 16 + h;
			p++;
			n++;
		}
		if (n == 0 || n > 2)
			throw UsageError("Invalid mac address " + s);
		m[i] = static_cast<uint8_t>(v);
		if (i < 5) {
			if (p >= s.size() || s[p] != ':')
				throw UsageError("Invalid mac address " + s);
			p++;
		}
	}
	if (p != s.size())
		throw UsageError("Invalid mac address " + s);
	return m;
}

std::string format_mac(const Mac &m)
{
	char buf[18];
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		 m[4], m[5]);
	return buf;
}

static bool parse_uint(const std::string &s, unsigned long long max, unsigned long long &out)
{
	if (s.empty())
		return false;
	int base = 10;
	const char *p = s.c_str();
	if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	if (*p == '-' || *p == '+' || *p == ' ')
		return false;
	char *end = nullptr;
	errno = 0;
	unsigned long long v = strtoull(p, &end, base);
	if (errno || *end || v > max)
		return false;
	out = v;
	return true;
}

uint32_t parse_u32(const std::string &kw, const std::string &v, uint32_t max)
{
	unsigned long long x;
	if (!parse_uint(v, max, x))
		invarg("invalid " + kw, v);
	return static_cast<uint32_t>(x);
}

uint16_t parse_vid(const std::string &s)
{
	unsigned long long v;
	if (!parse_uint(s, 0xffff, v))
		throw UsageError("Invalid VLAN ID \"" + s + "\"");
	if (v < 1 || v > 4094)
		throw UsageError("Invalid VLAN ID \"" + s + "\": valid VLAN IDs are 1-4094");
	return static_cast<uint16_t>(v);
}

std::pair<uint16_t, uint16_t> parse_vid_range(const std::string &s)
{
	auto dash = s.find('-');
	if (dash == std::string::npos) {
		uint16_t v = parse_vid(s);
		return {v, v};
	}
	uint16_t a = parse_vid(s.substr(0, dash));
	uint16_t b = parse_vid(s.substr(dash + 1));
	/* The kernel's br_vlan_valid_range refuses an empty range ("10-10")
	 * too, so `bridge vlan add vid 10-10` fails; so does this. */
	if (b <= a)
		throw UsageError("Invalid VLAN range \"" + s +
				 "\": the end must be above the start");
	return {a, b};
}

bool parse_on_off(const std::string &kw, const std::string &v)
{
	if (v == "on")
		return true;
	if (v == "off")
		return false;
	throw UsageError("Error: argument of \"" + kw + "\" must be \"on\" or \"off\", not \"" +
			 v + "\"");
}

static const char *const port_states[] = {"disabled", "listening", "learning", "forwarding",
					  "blocking"};

const char *port_state_name(unsigned s)
{
	return s < 5 ? port_states[s] : nullptr;
}

uint8_t parse_port_state(const std::string &v)
{
	for (unsigned i = 0; i < 5; i++)
		if (v == port_states[i])
			return static_cast<uint8_t>(i);
	unsigned long long x;
	if (!parse_uint(v, 4, x))
		throw UsageError("Error: invalid STP port state \"" + v +
				 "\" (disabled, listening, learning, forwarding, blocking or 0-4)");
	return static_cast<uint8_t>(x);
}

std::vector<std::string> split_line(const std::string &line)
{
	std::vector<std::string> out;
	std::string cur;
	bool have = false;
	char quote = 0;
	for (char c : line) {
		if (quote) {
			if (c == quote)
				quote = 0;
			else
				cur += c;
			continue;
		}
		if (c == '#')
			break;
		if (c == '"' || c == '\'') {
			quote = c;
			have = true;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (have)
				out.push_back(cur);
			cur.clear();
			have = false;
			continue;
		}
		cur += c;
		have = true;
	}
	if (quote)
		throw UsageError("Error: unterminated quoted string");
	if (have)
		out.push_back(cur);
	return out;
}

}  // namespace xbridge
