// json_input.h - nft's JSON input (libnftables-json(5), nft 1.0.6's
// schema) turned into nft's language: each JSON command becomes one line of
// nft text meaning the same, which the text front end (Parser, Compiler)
// then takes as it takes any other input. Every semantic check, the
// bytecode and the errors after parsing are thus the text path's.
//
// Ownership: plain values; the caller owns the Json read and the text
// returned. The translation keeps, for each line, the index of the JSON
// command it came from, so that errors can name it as nft does
// ("Parsing command array at index N failed.").
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "json.h"

namespace xnft {

// One JSON command as nft text: a single line, no newline in it.
struct JsonCommandText {
	std::string text;
	size_t index;  // in the "nftables" array
};

// Why the JSON was refused, as nft's JSON parser words it: the innermost
// complaint first, then where it was found ("Parsing expr array at index
// 0 failed.", "Parsing command array at index 2 failed.").
class JsonInputError : public std::runtime_error {
public:
	explicit JsonInputError(const std::string &msg) : std::runtime_error(msg), messages{msg} {}
	std::vector<std::string> messages;
};

// The commands of ROOT ({"nftables": [...]}), "metainfo" left out; throws
// JsonInputError.
std::vector<JsonCommandText> json_to_nft_text(const Json &root);

// nft's way of printing JsonInputError: each message as an error at
// "internal:0:0-0", followed by an empty line.
std::string format_json_error(const JsonInputError &e);

} // namespace xnft
