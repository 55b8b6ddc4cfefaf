// set_userdata.h - a set's NFTA_SET_USERDATA as nft 1.0.6 writes and reads
// it: libnftnl's type-length-value records (NFTNL_UDATA_SET_*) giving the
// byte order of the key and of the data, the `typeof` expressions of the
// key and of the data (payload fields by nft's protocol and template ids,
// meta and ct keys, concatenations, verdicts), and the comment; and a set
// element's (its comment, its open interval). The kernel stores the bytes
// and never reads them; `list` prints from them.
//
// Ownership: plain values; no state. Thread-safe.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ast.h"
#include "datatypes.h"

namespace xnft {

// What the compiler knows of a declared set when it writes the record.
struct SetUserdataIn {
	const SetDecl *decl;
	uint32_t key_byteorder;     // nft_byteorder(); 0 for a concatenation
	bool is_map;
	bool verdict_map;
	uint32_t data_byteorder;    // maps; 0 for a verdict or a concatenation
	bool data_concat;           // `type K : A . B` (an empty concatenation record)
	bool objmap = false;        // `type K : counter|quota|limit`: the data's interval
	                            // note, no byte order
};

// The record nft writes for the set @in.decl declares (at most
// NFT_USERDATA_MAXLEN bytes; the compiler refuses a longer comment).
Bytes build_set_userdata(const SetUserdataIn &in);

// One expression of a typeof, as its values are held: bits and byte order.
struct TypeofPart {
	unsigned bits;
	ByteOrder order;
	bool hex = false;   // a raw payload's: nft's xinteger, printed in hexadecimal
};

// The record nft writes for the anonymous object map of an objref
// statement (__objmap%d): the key's byte order, the data's interval note.
Bytes objmap_userdata(uint32_t key_byteorder);

// What `list` prints from a set's record.
struct SetUserdataOut {
	std::string key_typeof;     // "ip saddr . tcp dport"; empty: print `type`
	std::vector<TypeofPart> key_parts;   // each of key_typeof's expressions
	std::string data_typeof;    // "meta mark", "verdict"; empty: print the data type
	std::vector<TypeofPart> data_parts;
	int key_byteorder = -1;     // nft's byte order of a single key (-1: none recorded)
	int data_byteorder = -1;
	bool has_comment = false;
	std::string comment;
};
SetUserdataOut parse_set_userdata(const void *data, uint32_t len);

// A set element's NFTA_SET_ELEM_USERDATA as nft 1.0.6's
// alloc_nftnl_setelem writes it: the comment (NFTNL_UDATA_SET_ELEM_COMMENT,
// NUL-terminated), then the flags (NFTNL_UDATA_SET_ELEM_FLAGS,
// NFTNL_SET_ELEM_F_INTERVAL_OPEN for a range up to the key's maximum);
// empty when it has neither (nft sends no USERDATA then).
Bytes build_elem_userdata(const std::optional<std::string> &comment, bool interval_open);

// What nft's set_elem_parse_udata reads of it: nothing at all when a
// comment is not NUL-terminated or the flags are not 4 bytes (its parse
// fails), the last record of each kind otherwise; the comment up to its
// first NUL.
struct ElemUserdataOut {
	std::optional<std::string> comment;
	uint32_t flags = 0;		// NFTNL_SET_ELEM_F_*
};
ElemUserdataOut parse_elem_userdata(const void *data, uint32_t len);

} // namespace xnft
