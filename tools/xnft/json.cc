// json.cc - JSON values and jansson's compact printing (see json.h).
#include "json.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace xnft {

Json Json::boolean(bool b)
{
	Json j;
	j.kind_ = Kind::Bool;
	j.b_ = b;
	return j;
}

Json Json::integer(int64_t v)
{
	Json j;
	j.kind_ = Kind::Int;
	j.i_ = v;
	return j;
}

Json Json::uinteger(uint64_t v)
{
	// nft hands a u64 to jansson's json_integer (json_int_t, signed):
	// values past INT64_MAX come out negative, UINT64_MAX as -1
	return integer(static_cast<int64_t>(v));
}

Json Json::string(const std::string &s)
{
	Json j;
	j.kind_ = Kind::String;
	j.s_ = s;
	return j;
}

Json Json::array()
{
	Json j;
	j.kind_ = Kind::Array;
	return j;
}

Json Json::object()
{
	Json j;
	j.kind_ = Kind::Object;
	return j;
}

Json Json::wrap(const std::string &key, Json value)
{
	Json j = object();
	j.set(key, std::move(value));
	return j;
}

Json &Json::push(Json v)
{
	items_.push_back(std::move(v));
	return *this;
}

Json &Json::set(const std::string &key, Json v)
{
	for (auto &m : members_)
		if (m.first == key) {
			m.second = std::move(v);
			return *this;
		}
	members_.emplace_back(key, std::move(v));
	return *this;
}

const Json *Json::get(const std::string &key) const
{
	for (auto &m : members_)
		if (m.first == key)
			return &m.second;
	return nullptr;
}

// jansson's dump_string without JSON_ENSURE_ASCII / JSON_ESCAPE_SLASH:
// quote, backslash and control characters are escaped, the rest (UTF-8
// included) is copied.
static void dump_string(const std::string &s, std::string &out)
{
	out += '"';
	for (unsigned char c : s) {
		switch (c) {
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		case '\b': out += "\\b"; break;
		case '\f': out += "\\f"; break;
		case '\n': out += "\\n"; break;
		case '\r': out += "\\r"; break;
		case '\t': out += "\\t"; break;
		default:
			if (c < 0x20) {
				char buf[8];
				snprintf(buf, sizeof buf, "\\u%04X", c);
				out += buf;
			} else {
				out += static_cast<char>(c);
			}
		}
	}
	out += '"';
}

void Json::dump_to(std::string &out) const
{
	switch (kind_) {
	case Kind::Null: out += "null"; break;
	case Kind::Bool: out += b_ ? "true" : "false"; break;
	case Kind::Int: out += std::to_string(i_); break;
	case Kind::String: dump_string(s_, out); break;
	case Kind::Array:
		out += '[';
		for (size_t i = 0; i < items_.size(); i++) {
			if (i)
				out += ", ";
			items_[i].dump_to(out);
		}
		out += ']';
		break;
	case Kind::Object:
		out += '{';
		for (size_t i = 0; i < members_.size(); i++) {
			if (i)
				out += ", ";
			dump_string(members_[i].first, out);
			out += ": ";
			members_[i].second.dump_to(out);
		}
		out += '}';
		break;
	}
}

std::string Json::dump() const
{
	std::string out;
	dump_to(out);
	return out;
}

} // namespace xnft

namespace xnft {

// A recursive descent over RFC 8259's grammar. Duplicate keys keep the
// last value (as jansson does), in the first one's place.
class JsonReader {
public:
	explicit JsonReader(const std::string &text) : t_(text) {}

	Json document()
	{
		Json v = value(0);
		skip_space();
		if (pos_ != t_.size())
			fail("end of file expected");
		return v;
	}

private:
	[[noreturn]] void fail(const std::string &msg) const { throw JsonSyntaxError(msg, pos_); }

	void skip_space()
	{
		while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' ||
					    t_[pos_] == '\r'))
			pos_++;
	}

	bool take(char c)
	{
		skip_space();
		if (pos_ < t_.size() && t_[pos_] == c) {
			pos_++;
			return true;
		}
		return false;
	}

	void expect(char c, const char *what)
	{
		if (!take(c))
			fail(std::string("'") + c + "' expected " + what);
	}

	bool word(const char *w)
	{
		size_t n = strlen(w);
		if (t_.compare(pos_, n, w) != 0)
			return false;
		pos_ += n;
		return true;
	}

	Json value(int depth)
	{
		if (depth > 2048)
			fail("too big recursion");
		skip_space();
		if (pos_ >= t_.size())
			fail("unexpected end of file");
		char c = t_[pos_];
		if (c == '{')
			return object(depth);
		if (c == '[')
			return array(depth);
		if (c == '"')
			return Json::string(string());
		if (c == '-' || (c >= '0' && c <= '9'))
			return number();
		if (word("true"))
			return Json::boolean(true);
		if (word("false"))
			return Json::boolean(false);
		if (word("null"))
			return Json();
		fail("invalid token");
	}

	Json object(int depth)
	{
		pos_++;  // '{'
		Json o = Json::object();
		if (take('}'))
			return o;
		do {
			skip_space();
			if (pos_ >= t_.size() || t_[pos_] != '"')
				fail("string or '}' expected");
			std::string key = string();
			expect(':', "after an object key");
			o.set(key, value(depth + 1));
		} while (take(','));
		expect('}', "to close an object");
		return o;
	}

	Json array(int depth)
	{
		pos_++;  // '['
		Json a = Json::array();
		if (take(']'))
			return a;
		do
			a.push(value(depth + 1));
		while (take(','));
		expect(']', "to close an array");
		return a;
	}

	Json number()
	{
		size_t start = pos_;
		if (t_[pos_] == '-')
			pos_++;
		if (pos_ >= t_.size() || !isdigit(static_cast<unsigned char>(t_[pos_])))
			fail("invalid token");
		if (t_[pos_] == '0' && pos_ + 1 < t_.size() && isdigit(static_cast<unsigned char>(t_[pos_ + 1])))
			fail("invalid token");
		while (pos_ < t_.size() && isdigit(static_cast<unsigned char>(t_[pos_])))
			pos_++;
		if (pos_ < t_.size() && (t_[pos_] == '.' || t_[pos_] == 'e' || t_[pos_] == 'E'))
			fail("real numbers have no place in nft's JSON");
		const std::string digits = t_.substr(start, pos_ - start);
		errno = 0;
		long long v = strtoll(digits.c_str(), nullptr, 10);
		if (errno == ERANGE) {
			pos_ = start;
			fail("too big integer");
		}
		return Json::integer(v);
	}

	static void put_utf8(std::string &out, uint32_t cp)
	{
		if (cp < 0x80) {
			out += static_cast<char>(cp);
		} else if (cp < 0x800) {
			out += static_cast<char>(0xc0 | (cp >> 6));
			out += static_cast<char>(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			out += static_cast<char>(0xe0 | (cp >> 12));
			out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
			out += static_cast<char>(0x80 | (cp & 0x3f));
		} else {
			out += static_cast<char>(0xf0 | (cp >> 18));
			out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
			out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
			out += static_cast<char>(0x80 | (cp & 0x3f));
		}
	}

	uint32_t hex4()
	{
		if (pos_ + 4 > t_.size())
			fail("invalid escape");
		uint32_t v = 0;
		for (int i = 0; i < 4; i++) {
			char c = t_[pos_++];
			v <<= 4;
			if (c >= '0' && c <= '9') v |= c - '0';
			else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
			else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
			else fail("invalid escape");
		}
		return v;
	}

	std::string string()
	{
		pos_++;  // '"'
		std::string out;
		for (;;) {
			if (pos_ >= t_.size())
				fail("premature end of input");
			unsigned char c = t_[pos_++];
			if (c == '"')
				return out;
			if (c < 0x20) {
				pos_--;
				fail("control character in string");
			}
			if (c != '\\') {
				out += static_cast<char>(c);
				continue;
			}
			if (pos_ >= t_.size())
				fail("premature end of input");
			switch (t_[pos_++]) {
			case '"': out += '"'; break;
			case '\\': out += '\\'; break;
			case '/': out += '/'; break;
			case 'b': out += '\b'; break;
			case 'f': out += '\f'; break;
			case 'n': out += '\n'; break;
			case 'r': out += '\r'; break;
			case 't': out += '\t'; break;
			case 'u': {
				uint32_t cp = hex4();
				if (cp >= 0xd800 && cp < 0xdc00 && t_.compare(pos_, 2, "\\u") == 0) {
					pos_ += 2;
					uint32_t lo = hex4();
					if (lo < 0xdc00 || lo > 0xdfff)
						fail("invalid Unicode surrogate pair");
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				if (cp == 0)
					fail("\\u0000 is not allowed");
				put_utf8(out, cp);
				break;
			}
			default:
				pos_--;
				fail("invalid escape");
			}
		}
	}

	const std::string &t_;
	size_t pos_ = 0;
};

Json Json::parse(const std::string &text)
{
	return JsonReader(text).document();
}

} // namespace xnft
