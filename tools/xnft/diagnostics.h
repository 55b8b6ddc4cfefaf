// diagnostics.h - source locations and the errors the language layer raises.
//
// Ownership: a SourceFile owns its text; Locations point into it by index and
// stay valid while the Diagnostics that registered the file lives (the whole
// run). Not thread-safe; xnft is single-threaded.
//
// Errors print as nft prints them (erec.c): "FILE:LINE:COL1-COL2: Error: MSG",
// the source line, then carets under the offending columns.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace xnft {

struct SourceFile {
	std::string name;   // as given on the command line, or "" for argv input
	std::string text;
};

struct Location {
	const SourceFile *file = nullptr;
	unsigned line = 0;       // 1-based
	unsigned first_col = 0;  // 1-based, inclusive
	unsigned last_col = 0;   // inclusive
	size_t line_offset = 0;  // offset of the line's first character in text
	bool valid() const { return file != nullptr; }
};

// Location spanning from A's first column to B's last (same line assumed).
Location span(const Location &a, const Location &b);

// A user error in the input: the message and where it is.
class LangError : public std::runtime_error {
public:
	LangError(const Location &loc, const std::string &msg)
		: std::runtime_error(msg), loc_(loc) {}
	// An error about LOC within OUTER, which nft marks with '~' around
	// LOC's carets (erec's secondary location, stmt_binary_error).
	LangError(const Location &loc, const std::string &msg, const Location &outer)
		: std::runtime_error(msg), loc_(loc), outer_(outer) {}
	// What the kernel answers, in the words nft gives it (nft_cmd_error
	// may give ENOENT a suggestion instead of "Could not process rule"):
	// kept apart from evaluation errors whatever the words.
	static LangError kernel(const Location &loc, const std::string &msg)
	{
		LangError e(loc, msg);
		e.kernel_ = true;
		return e;
	}
	const Location &where() const { return loc_; }
	const Location &outer() const { return outer_; }
	bool from_kernel() const { return kernel_; }
	// An error nft queues about the same command before this one without
	// stopping its evaluation there (ct_gen_nh_dependency's): printed
	// first, and counted with this one as the command's single failure.
	LangError &after(const LangError &earlier)
	{
		earlier_.push_back(earlier);
		return *this;
	}
	const std::vector<LangError> &earlier() const { return earlier_; }

private:
	Location loc_, outer_;
	bool kernel_ = false;
	std::vector<LangError> earlier_;
};

// Whether ERR is what the kernel would answer to the batch ("Could not
// process rule: ..."), which xnft finds while compiling: nft reports those
// only when the input parsed and evaluated without an error, as only then
// does it send the batch.
bool is_kernel_refusal(const LangError &err);

// Formats ERR as nft does: location line, source line, caret line.
std::string format_error(const LangError &err);

} // namespace xnft
