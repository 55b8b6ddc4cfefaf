// diagnostics.cc - nft-style error formatting (see diagnostics.h).
#include "diagnostics.h"

#include <algorithm>

namespace xnft {

Location span(const Location &a, const Location &b)
{
	Location l = a;
	if (b.valid() && b.line == a.line && b.last_col > a.last_col)
		l.last_col = b.last_col;
	return l;
}

bool is_kernel_refusal(const LangError &err)
{
	return err.from_kernel() || std::string(err.what()).rfind("Could not process rule: ", 0) == 0;
}

std::string format_error(const LangError &err)
{
	std::string out;
	for (const LangError &e : err.earlier())
		out += format_error(e);
	const Location &l = err.where();
	if (!l.valid())
		return out + "Error: " + err.what() + "\n";
	// nft names the place for files only: commands given as words print
	// just the line and the carets
	if (l.file->name.empty())
		out += std::string("Error: ") + err.what() + "\n";
	else
		out += l.file->name + ":" + std::to_string(l.line) + ":" + std::to_string(l.first_col) +
		       "-" + std::to_string(l.last_col) + ": Error: " + err.what() + "\n";
	size_t end = l.file->text.find('\n', l.line_offset);
	if (end == std::string::npos)
		end = l.file->text.size();
	std::string line = l.file->text.substr(l.line_offset, end - l.line_offset);
	out += line + "\n";
	std::string carets;
	const Location &o = err.outer();
	const bool outer = o.valid() && o.line == l.line;
	const unsigned last = outer ? std::max(l.last_col, o.last_col) : l.last_col;
	for (unsigned c = 1; c <= last; c++) {
		if (c >= l.first_col && c <= l.last_col)
			carets += '^';
		else if (outer && c >= o.first_col && c <= o.last_col)
			carets += '~';
		else
			carets += (c - 1 < line.size() && line[c - 1] == '\t') ? '\t' : ' ';
	}
	out += carets + "\n";
	return out;
}

} // namespace xnft
