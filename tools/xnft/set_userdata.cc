// set_userdata.cc - a set's USERDATA, as nft 1.0.6 writes and reads it
// (see set_userdata.h). The records were taken from nft's own requests
// (strace of `nft -f`), field by field, for every header field, meta and
// ct key xnft knows; tests/test_set_userdata.cc holds them.
#include "set_userdata.h"

#include <linux/netfilter/nf_tables.h>

#include <cstring>

#include "protocols.h"
#include "raw_payload.h"

namespace xnft {

namespace {

// libnftnl's record types (libnftnl/udata.h, nftables' set udata).
enum : uint8_t {
	kSetKeyByteorder = 0,
	kSetDataByteorder = 1,
	kSetKeyTypeof = 3,
	kSetDataTypeof = 4,
	kSetDataInterval = 6,
	kSetComment = 7,
};
// A set element's records (libnftnl/udata.h).
enum : uint8_t { kElemComment = 0, kElemFlags = 1 };
// Inside a typeof record: the expression's kind and its own data.
enum : uint8_t { kTypeofExpr = 0, kTypeofData = 1 };
// nftables' enum expr_types.
enum : uint32_t { kExprVerdict = 1, kExprPayload = 7, kExprExthdr = 8, kExprMeta = 9, kExprCt = 12,
		  kExprConcat = 13 };
// A payload's data: protocol, template index, length in bits; a raw
// payload's (no protocol, template 0): its base (nft's proto_bases, one
// past NFT_PAYLOAD_*), offset and length in bits.
enum : uint8_t { kPayloadDesc = 0, kPayloadType = 1, kPayloadBase = 2, kPayloadOffset = 3,
		 kPayloadLen = 4 };
// An exthdr's data (nft's NFTNL_UDATA_EXTHDR_*): the header's, option's or
// chunk's id, the field's template index, the op (left out for IPv6).
enum : uint8_t { kExthdrDesc = 0, kExthdrType = 1, kExthdrOp = 2 };
// A meta's data: its key. A ct's: its key and direction.
enum : uint8_t { kMetaKey = 0, kCtKey = 0, kCtDir = 1 };

void put_u32(Bytes &b, uint8_t type, uint32_t v)
{
	b.push_back(type);
	b.push_back(4);
	const size_t at = b.size();
	b.resize(at + 4);
	memcpy(b.data() + at, &v, 4);	// host order, as libnftnl's put_u32
}

void put_nest(Bytes &b, uint8_t type, const Bytes &inner)
{
	b.push_back(type);
	b.push_back(static_cast<uint8_t>(inner.size()));
	b.insert(b.end(), inner.begin(), inner.end());
}

// One expression of a typeof: [kind][data].
Bytes typeof_record(const Expr &e)
{
	Bytes data;
	uint32_t kind;
	switch (e.kind) {
	case ExprKind::Payload: {
		const PayloadField *f = find_payload(e.proto, e.text);
		if (!f)
			throw LangError(e.loc, "syntax error, unexpected " + e.text +
					", unknown " + e.proto + " header field");
		kind = kExprPayload;
		put_u32(data, kPayloadDesc, nft_proto_desc_id(f->proto));
		put_u32(data, kPayloadType, nft_field_index(*f));
		if (f->type == TYPE_INTEGER)
			put_u32(data, kPayloadLen, f->bits);
		break;
	}
	case ExprKind::RawPayload:
		kind = kExprPayload;
		put_u32(data, kPayloadDesc, 0);
		put_u32(data, kPayloadType, 0);
		put_u32(data, kPayloadBase, e.raw_base + 1);
		put_u32(data, kPayloadOffset, e.raw_offset);
		put_u32(data, kPayloadLen, e.raw_bits);
		break;
	case ExprKind::Meta: {
		const MetaKey *m = find_meta(e.text);
		if (!m)
			throw LangError(e.loc, "syntax error, unexpected " + e.text + ", unknown meta key");
		kind = kExprMeta;
		put_u32(data, kMetaKey, m->key);
		break;
	}
	case ExprKind::Ct: {
		const CtKey *k = find_ct(e.text, e.chain);
		if (!k)
			throw LangError(e.loc, "syntax error, unexpected " + e.text + ", unknown ct key");
		kind = kExprCt;
		put_u32(data, kCtKey, k->key);
		put_u32(data, kCtDir, e.proto.empty() ? ~0u : e.proto == "original" ? 0 : 1);
		break;
	}
	case ExprKind::Exthdr: {
		// (the parser made a presence its header's first field, as nft)
		const ExthdrField *f = find_exthdr_at(e.exthdr_op, e.proto, e.exthdr_offset, e.exthdr_bits);
		if (!f)
			throw LangError(e.loc, "syntax error, expected a header field, meta or ct expression");
		kind = kExprExthdr;
		put_u32(data, kExthdrType, exthdr_template_index(*f));
		if (e.exthdr_op != NFT_EXTHDR_OP_IPV6)
			put_u32(data, kExthdrOp, e.exthdr_op);
		put_u32(data, kExthdrDesc, exthdr_desc_id(*f));
		break;
	}
	case ExprKind::Concat:
		kind = kExprConcat;
		for (size_t i = 0; i < e.items.size(); i++)
			put_nest(data, static_cast<uint8_t>(i), typeof_record(*e.items[i]));
		break;
	default:
		throw LangError(e.loc, "syntax error, expected a header field, meta or ct expression");
	}
	Bytes out;
	put_u32(out, kTypeofExpr, kind);
	put_nest(out, kTypeofData, data);
	return out;
}

// The record of an expression nft cannot name: a verdict, or a
// concatenation of types (which nft records as an empty concatenation).
Bytes empty_typeof(uint32_t kind)
{
	Bytes out;
	put_u32(out, kTypeofExpr, kind);
	put_nest(out, kTypeofData, {});
	return out;
}

// Walks the records of @len bytes at @p; false on a truncated one.
template <typename Visit>
bool each_record(const uint8_t *p, size_t len, Visit visit)
{
	size_t at = 0;
	while (at + 2 <= len) {
		const uint8_t type = p[at], l = p[at + 1];
		if (at + 2 + l > len)
			return false;
		visit(type, p + at + 2, l);
		at += 2 + l;
	}
	return at == len;
}

bool get_u32(const uint8_t *v, uint8_t len, uint32_t &out)
{
	if (len != 4)
		return false;
	memcpy(&out, v, 4);
	return true;
}

// The text of a typeof record, or "" when nft would not print it as one;
// each expression's bits and byte order appended to @parts.
std::string typeof_text(const uint8_t *p, size_t len, std::vector<TypeofPart> &parts)
{
	uint32_t kind = 0;
	bool has_kind = false;
	const uint8_t *data = nullptr;
	size_t data_len = 0;
	if (!each_record(p, len, [&](uint8_t t, const uint8_t *v, uint8_t l) {
		    if (t == kTypeofExpr)
			    has_kind = get_u32(v, l, kind);
		    else if (t == kTypeofData) {
			    data = v;
			    data_len = l;
		    }
	    }) || !has_kind)
		return "";
	if (kind == kExprVerdict)
		return "verdict";
	uint32_t a = 0, b = ~0u, op = 0;
	bool has_a = false, has_b = false;
	uint32_t raw[3] = {0, 0, 0};	// a raw payload's base, offset, length
	bool has_raw[3] = {false, false, false};
	std::vector<std::string> texts;
	const bool ok = each_record(data, data_len, [&](uint8_t t, const uint8_t *v, uint8_t l) {
		if (kind == kExprConcat) {
			texts.push_back(typeof_text(v, l, parts));
			return;
		}
		if (t == 0)
			has_a = get_u32(v, l, a);
		else if (t == 1)
			has_b = get_u32(v, l, b);
		else if (kind == kExprExthdr && t == kExthdrOp)
			get_u32(v, l, op);
		else if (t >= kPayloadBase && t <= kPayloadLen)
			has_raw[t - kPayloadBase] = get_u32(v, l, raw[t - kPayloadBase]);
	});
	if (!ok || (!has_a && kind != kExprConcat))
		return "";
	switch (kind) {
	case kExprPayload: {
		if (a == 0 && has_raw[0] && has_raw[1] && has_raw[2] && raw[0] >= 1 && raw[0] <= 4) {
			// a raw payload, as nft prints it
			parts.push_back({raw[2], ByteOrder::Big, true});
			return std::string("@") + raw_payload_base_name(raw[0] - 1) + "," +
			       std::to_string(raw[1]) + "," + std::to_string(raw[2]);
		}
		const PayloadField *f = has_b ? payload_by_nft_id(a, b) : nullptr;
		if (!f)
			return "";
		parts.push_back({f->bits, ByteOrder::Big});
		return std::string(f->proto) + " " + f->name;
	}
	case kExprExthdr: {
		const ExthdrField *f = has_b ? exthdr_by_template(op, a, b) : nullptr;
		if (!f)
			return "";
		parts.push_back({f->bits, ByteOrder::Big});
		switch (op) {
		case NFT_EXTHDR_OP_TCPOPT: {
			// a SACK block after the first is named by its number
			const unsigned block = f->offset >= 16 ? (f->offset - 16) / 64 : 0;
			return std::string("tcp option ") + f->name +
			       (f->type == 5 && block ? std::to_string(block) : "") + " " + f->field;
		}
		case NFT_EXTHDR_OP_IPV4:
			return std::string("ip option ") + f->name + " " + f->field;
		case NFT_EXTHDR_OP_SCTP:
			return std::string("sctp chunk ") + f->name + " " + f->field;
		default:
			return std::string(f->name) + " " + f->field;
		}
	}
	case kExprMeta: {
		const MetaKey *m = meta_by_key(a);
		if (!m)
			return "";
		parts.push_back({m->bits, m->order});
		return meta_expr_text(a);
	}
	case kExprCt: {
		const CtKey *k = ct_by_key(a);
		if (!k)
			return "";
		parts.push_back({k->bits, k->order});
		return ct_expr_text(a, has_b ? static_cast<int32_t>(b) : -1);
	}
	case kExprConcat: {
		std::string text;
		for (const std::string &t : texts) {
			if (t.empty())
				return "";
			text += (text.empty() ? "" : " . ") + t;
		}
		return text;
	}
	default:
		return "";
	}
}

} // namespace

Bytes build_set_userdata(const SetUserdataIn &in)
{
	const SetDecl &d = *in.decl;
	Bytes out;
	put_u32(out, kSetKeyByteorder, in.key_byteorder);
	if (in.is_map)
		put_u32(out, kSetDataByteorder, in.data_byteorder);
	if (d.key_typeof)
		put_nest(out, kSetKeyTypeof, typeof_record(*d.key_typeof));
	else if (d.key_types.size() > 1)
		put_nest(out, kSetKeyTypeof, empty_typeof(kExprConcat));
	if (d.data_typeof)
		put_nest(out, kSetDataTypeof, typeof_record(*d.data_typeof));
	else if (d.key_typeof && in.verdict_map)
		put_nest(out, kSetDataTypeof, empty_typeof(kExprVerdict));
	else if (in.data_concat)
		put_nest(out, kSetDataTypeof, empty_typeof(kExprConcat));
	if (in.is_map || in.objmap)
		put_u32(out, kSetDataInterval, 0);
	if (d.comment) {
		Bytes c(d.comment->begin(), d.comment->end());
		c.push_back(0);
		put_nest(out, kSetComment, c);
	}
	return out;
}

Bytes objmap_userdata(uint32_t key_byteorder)
{
	Bytes out;
	put_u32(out, kSetKeyByteorder, key_byteorder);
	put_u32(out, kSetDataInterval, 0);
	return out;
}

SetUserdataOut parse_set_userdata(const void *data, uint32_t len)
{
	SetUserdataOut out;
	if (!data)
		return out;
	each_record(static_cast<const uint8_t *>(data), len, [&](uint8_t t, const uint8_t *v, uint8_t l) {
		uint32_t order;
		if (t == kSetKeyTypeof)
			out.key_typeof = typeof_text(v, l, out.key_parts);
		else if (t == kSetDataTypeof)
			out.data_typeof = typeof_text(v, l, out.data_parts);
		else if (t == kSetKeyByteorder && get_u32(v, l, order))
			out.key_byteorder = static_cast<int>(order);
		else if (t == kSetDataByteorder && get_u32(v, l, order))
			out.data_byteorder = static_cast<int>(order);
		else if (t == kSetComment && l > 0) {
			out.has_comment = true;
			out.comment.assign(reinterpret_cast<const char *>(v), strnlen(reinterpret_cast<const char *>(v), l));
		}
	});
	// nft prints `typeof` only when the key's record names expressions.
	if (out.key_typeof.empty()) {
		out.key_parts.clear();
		out.data_typeof.clear();
	}
	if (out.data_typeof.empty() || out.data_typeof == "verdict")
		out.data_parts.clear();
	return out;
}

Bytes build_elem_userdata(const std::optional<std::string> &comment, bool interval_open)
{
	Bytes out;
	if (comment) {
		Bytes c(comment->begin(), comment->end());
		c.push_back(0);
		put_nest(out, kElemComment, c);
	}
	if (interval_open)
		put_u32(out, kElemFlags, 1 /* NFTNL_SET_ELEM_F_INTERVAL_OPEN */);
	return out;
}

ElemUserdataOut parse_elem_userdata(const void *data, uint32_t len)
{
	ElemUserdataOut out;
	if (!data)
		return out;
	bool valid = true;
	std::optional<std::string> comment;
	uint32_t flags = 0;
	const bool whole = each_record(static_cast<const uint8_t *>(data), len,
				       [&](uint8_t t, const uint8_t *v, uint8_t l) {
		const char *text = reinterpret_cast<const char *>(v);
		if (t == kElemComment) {
			if (l == 0 || v[l - 1] != 0)
				valid = false;
			else
				comment.emplace(text, strnlen(text, l));
		} else if (t == kElemFlags && !get_u32(v, l, flags)) {
			valid = false;
		}
	});
	if (!whole || !valid)
		return out;
	out.comment = std::move(comment);
	out.flags = flags;
	return out;
}

} // namespace xnft
