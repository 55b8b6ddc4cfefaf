// json.h - the JSON values xnft's `-j` output is made of, printed as
// nft's libnftables prints them with jansson (json_dumpf, flags 0): one
// line, ", " between items, ": " after keys, object keys in insertion
// order, strings escaped as jansson escapes them. Json::parse reads JSON
// text back into values (`xnft -j -f FILE`, RFC 8259 as jansson takes it).
//
// Ownership: a Json owns its children (values, copied). Not thread-safe.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace xnft {

// Json::parse's complaint: what is wrong and the byte offset it is at.
class JsonSyntaxError : public std::runtime_error {
public:
	JsonSyntaxError(const std::string &msg, size_t offset)
		: std::runtime_error(msg), offset(offset) {}
	size_t offset;
};

class Json {
public:
	enum class Kind { Null, Bool, Int, String, Array, Object };

	Json() = default;  // null
	static Json null() { return Json(); }
	static Json boolean(bool b);
	static Json integer(int64_t v);
	static Json uinteger(uint64_t v);  // as nft prints it: two's complement (jansson's are signed)
	static Json string(const std::string &s);
	static Json array();
	static Json object();
	// {"KEY": VALUE}
	static Json wrap(const std::string &key, Json value);

	// The value TEXT holds (one value, white space around it); throws
	// JsonSyntaxError. Numbers must be integers (nft's schema has no other).
	static Json parse(const std::string &text);

	Kind kind() const { return kind_; }
	bool is_null() const { return kind_ == Kind::Null; }
	bool is_bool() const { return kind_ == Kind::Bool; }
	bool is_int() const { return kind_ == Kind::Int; }
	bool is_array() const { return kind_ == Kind::Array; }
	bool is_object() const { return kind_ == Kind::Object; }
	bool is_string() const { return kind_ == Kind::String; }
	const std::string &str() const { return s_; }
	int64_t int_value() const { return i_; }
	bool bool_value() const { return b_; }
	const std::vector<std::pair<std::string, Json>> &members() const { return members_; }
	size_t size() const { return kind_ == Kind::Array ? items_.size() : members_.size(); }

	// Arrays.
	Json &push(Json v);
	const std::vector<Json> &items() const { return items_; }
	// Objects: adds KEY (or replaces its value, keeping its place).
	Json &set(const std::string &key, Json v);
	const Json *get(const std::string &key) const;

	std::string dump() const;

private:
	void dump_to(std::string &out) const;
	Kind kind_ = Kind::Null;
	bool b_ = false;
	int64_t i_ = 0;
	std::string s_;
	std::vector<Json> items_;
	std::vector<std::pair<std::string, Json>> members_;
};

} // namespace xnft
