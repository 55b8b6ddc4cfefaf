// json_writer.cc - see json_writer.h; the layout rules are iproute2's.
#include "json_writer.h"

#include <cstdio>

namespace xbridge {

void JsonWriter::indent()
{
	for (int i = 0; i < depth_; i++)
		out_ += "    ";
}

void JsonWriter::eol()
{
	if (!pretty_)
		return;
	out_ += '\n';
	indent();
}

void JsonWriter::eor()
{
	if (sep_ != '\0')
		out_ += sep_;
	sep_ = ',';
}

void JsonWriter::begin(char c)
{
	eor();
	out_ += c;
	++depth_;
	sep_ = '\0';
}

void JsonWriter::end(char c)
{
	--depth_;
	if (sep_ != '\0')
		eol();
	out_ += c;
	sep_ = ',';
}

void JsonWriter::start_array()
{
	begin('[');
	if (pretty_)
		out_ += ' ';
}

void JsonWriter::end_array()
{
	if (pretty_ && sep_)
		out_ += ' ';
	sep_ = '\0';
	end(']');
}

void JsonWriter::puts(std::string_view s)
{
	out_ += '"';
	for (unsigned char c : s) {
		switch (c) {
		case '\t': out_ += "\\t"; break;
		case '\n': out_ += "\\n"; break;
		case '\r': out_ += "\\r"; break;
		case '\f': out_ += "\\f"; break;
		case '\b': out_ += "\\b"; break;
		case '\\': out_ += "\\\\"; break;
		case '"': out_ += "\\\""; break;
		default:
			if (c < 0x20) {
				char b[8];
				snprintf(b, sizeof(b), "\\u%04x", c);
				out_ += b;
			} else {
				out_ += static_cast<char>(c);
			}
		}
	}
	out_ += '"';
}

void JsonWriter::name(std::string_view n)
{
	eor();
	eol();
	sep_ = '\0';
	puts(n);
	out_ += ':';
	if (pretty_)
		out_ += ' ';
}

void JsonWriter::string(std::string_view s)
{
	eor();
	puts(s);
}

void JsonWriter::uint(uint64_t v)
{
	eor();
	out_ += std::to_string(v);
}

void JsonWriter::int_(int64_t v)
{
	eor();
	out_ += std::to_string(v);
}

void JsonWriter::boolean(bool b)
{
	eor();
	out_ += b ? "true" : "false";
}

}  // namespace xbridge
