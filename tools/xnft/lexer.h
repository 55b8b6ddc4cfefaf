// lexer.h - turns nft source text into tokens.
//
// Ownership: the Lexer reads a SourceFile it does not own; Tokens copy their
// text. Words end where nft's scanner ends its tokens: a name keeps its
// '-', '/' and '.' ("rule-200-ingress", "ssh-http"), a word that starts with
// a digit is a number, an address or a time ("10.0.0.0/8" is 10.0.0.0, '/'
// and 8; "1-1024" is 1, '-' and 1024; "00:11:22:33:44:55", "::1" and the
// classid "1:2" are one word each). Newlines are tokens because they end
// commands and statements, as in nft.
#pragma once
#include <string>
#include <vector>

#include "diagnostics.h"

namespace xnft {

enum class Tok {
	Word,      // identifiers, numbers, addresses
	String,    // "quoted" (text without the quotes)
	Variable,  // $name (text without the $)
	Punct,     // { } ( ) ; , = : . @ ! < > & | ^ - / * and == != <= >= << >>;
	           // nft's operator words (and or xor lshift rshift eq ne lt gt
	           // le ge not) are these with the symbol as text
	Newline,
	Junk,      // a character nft's scanner has no token for (its JUNK): a
	           // stray character, the '"' of a string that does not end
	End,
};

struct Token {
	Tok kind;
	std::string text;
	Location loc;
	bool is(const char *p) const { return (kind == Tok::Punct || kind == Tok::Word) && text == p; }
	bool punct(const char *p) const { return kind == Tok::Punct && text == p; }
};

// Splits FILE into tokens; what nft's scanner cannot read is a Junk token
// for the parser to refuse where it stands.
std::vector<Token> tokenize(const SourceFile &file);

} // namespace xnft
