// diagnostics.cc - nft-style error formatting (see diagnostics.h).
#include "diagnostics.h"

namespace xnft {

Location span(const Location &a, const Location &b)
{
	Location l = a;
	if (b.valid() && b.line == a.line && b.last_col > a.last_col)
		l.last_col = b.last_col;
	return l;
}

std::string format_error(const LangError &err)
{
	const Location &l = err.where();
	std::string out;
	if (!l.valid())
		return std::string("Error: ") + err.what() + "\n";
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
	for (unsigned c = 1; c <= l.last_col; c++) {
		if (c < l.first_col)
			carets += (c - 1 < line.size() && line[c - 1] == '\t') ? '\t' : ' ';
		else
			carets += '^';
	}
	out += carets + "\n";
	return out;
}

} // namespace xnft
