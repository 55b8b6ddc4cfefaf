// json_writer.h - a JSON writer that reproduces iproute2's json_writer.c
// byte for byte (compact for -j, its pretty layout for -j -p), into a
// std::string so the formatters can be unit-tested.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace xbridge {

class JsonWriter {
public:
	JsonWriter(std::string &out, bool pretty) : out_(out), pretty_(pretty) {}
	void name(std::string_view n);
	void start_object() { begin('{'); }
	void end_object() { end('}'); }
	void start_array();
	void end_array();
	void string(std::string_view s);
	void uint(uint64_t v);
	void int_(int64_t v);
	void boolean(bool b);
	int depth() const { return depth_; }

private:
	void indent();
	void eol();
	void eor();
	void begin(char c);
	void end(char c);
	void puts(std::string_view s);

	std::string &out_;
	bool pretty_;
	int depth_ = 0;
	char sep_ = '\0';
};

}  // namespace xbridge
