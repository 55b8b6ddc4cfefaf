// json.cc - JSON values and jansson's compact printing (see json.h).
#include "json.h"

#include <cstdio>

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
