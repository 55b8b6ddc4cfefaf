// SPDX-License-Identifier: GPL-2.0
/*
 * nft_expr.cc - NFTA_RULE_EXPRESSIONS to Insns, validated as nf_tables'
 * expression init functions validate (net/netfilter/nft_*.c): the same
 * required attributes, ranges and errno values, so that a rule nf_tables
 * refuses is refused here with the same error.
 *
 * Control context only (allocates with XB_ALLOC_SLEEP).
 */
#include "nft_expr.h"

#include "compiler.h"
#include "ipv4_options.h"
#include "nft_connlimit.h"
#include "nft_dynset.h"
#include "nft_payload_write.h"

namespace xb::nft {

namespace {

constexpr uint32_t kRegsBytes = kRegDataWords * 4;	/* sizeof(nft_regs.data) */
constexpr uint32_t kNftDataSize = 16;			/* sizeof(struct nft_data) */

int invalid(Extack *ack, const char *msg)
{
	return fail(ack, kEINVAL, msg);
}

/* nft_parse_register + nft_validate_register_load */
int load_reg(const Attr &a, uint32_t len, uint8_t &word, Extack *ack)
{
	uint32_t reg;
	if (!attr_be32(a, reg))
		return invalid(ack, "register attribute is not a 32-bit value");
	if (!register_word(reg, word))
		return fail(ack, kERANGE, "register number out of range");
	if (word < 4)
		return invalid(ack, "cannot load from the verdict register");
	if (len == 0)
		return invalid(ack, "zero-length register load");
	if (uint32_t(word) * 4 + len > kRegsBytes)
		return fail(ack, kERANGE, "register load runs past the last register");
	return 0;
}

/* nft_parse_register + nft_validate_register_store for value data */
int store_reg(const Attr &a, uint32_t len, bool verdict, uint8_t &word, Extack *ack)
{
	uint32_t reg;
	if (!attr_be32(a, reg))
		return invalid(ack, "register attribute is not a 32-bit value");
	if (reg == kRegVerdict) {
		if (!verdict)
			return invalid(ack, "only a verdict can be stored in the verdict register");
		word = kDregVerdict;
		return 0;
	}
	if (!register_word(reg, word))
		return fail(ack, kERANGE, "register number out of range");
	if (verdict)
		return invalid(ack, "a verdict can only be stored in the verdict register");
	if (word < 4)
		return invalid(ack, "register number out of range");
	if (len == 0)
		return invalid(ack, "zero-length register store");
	if (uint32_t(word) * 4 + len > kRegsBytes)
		return fail(ack, kERANGE, "register store runs past the last register");
	return 0;
}

/* nft_parse_u32_check */
int u32_check(const Attr &a, uint32_t max, uint32_t &out, Extack *ack)
{
	if (!attr_be32(a, out))
		return invalid(ack, "attribute is not a 32-bit value");
	if (out > max)
		return fail(ack, kERANGE, "attribute value out of range");
	return 0;
}

int parse_value(const Attr &a, uint8_t *out, uint32_t size, uint32_t want_len, uint32_t &len,
		Extack *ack)
{
	int err = parse_data_value(a, out, size, len, ack);
	if (err)
		return err;
	if (want_len && len != want_len)
		return invalid(ack, "value length does not match the operation length");
	return 0;
}

int parse_immediate(const Attr *tb, Resolver &res, Insn &in, ParsedRule &out, Extack *ack)
{
	if (!tb[kImmediateDreg].present() || !tb[kImmediateData].present())
		return invalid(ack, "immediate needs a register and data");
	Attr dt[kDataVerdict + 1];
	if (!parse_nested(tb[kImmediateData], dt, kDataVerdict))
		return invalid(ack, "malformed immediate data");
	if (dt[kDataVerdict].present() && !dt[kDataValue].present()) {
		uint8_t word;
		int err = store_reg(tb[kImmediateDreg], 16, true, word, ack);
		if (err)
			return err;
		in.op = Op::Verdict;
		err = parse_data_verdict(tb[kImmediateData], res, in.code, in.ref, ack);
		if (err)
			return err;
		if (in.code == kNftJump || in.code == kNftGoto)
			out.verdict_refs++;
		return 0;
	}
	uint32_t len;
	int err = parse_value(tb[kImmediateData], in.data, kNftDataSize, 0, len, ack);
	if (err)
		return err;
	in.op = Op::Immediate;
	in.len = uint8_t(len);
	return store_reg(tb[kImmediateDreg], len, false, in.dreg, ack);
}

int parse_cmp(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kCmpSreg].present() || !tb[kCmpOp].present() || !tb[kCmpData].present())
		return invalid(ack, "cmp needs a register, an operator and data");
	uint32_t len, op;
	int err = parse_value(tb[kCmpData], in.data, kNftDataSize, 0, len, ack);
	if (err)
		return err;
	if ((err = load_reg(tb[kCmpSreg], len, in.sreg, ack)))
		return err;
	if (!attr_be32(tb[kCmpOp], op) || op > kCmpGte)
		return invalid(ack, "unknown cmp operator");
	in.op = Op::Cmp;
	in.sub = uint8_t(op);
	in.len = uint8_t(len);
	if (op == kCmpEq || op == kCmpNeq) {
		/* Equality compares whole register words under a mask of the
		 * value's bytes (data[16..31]): no memcmp, no branch a byte. */
		in.op = Op::CmpEq;
		for (uint32_t i = 0; i < 16; i++)
			in.data[16 + i] = i < len ? 0xff : 0;
	}
	return 0;
}

int parse_range(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kRangeSreg].present() || !tb[kRangeOp].present() ||
	    !tb[kRangeFromData].present() || !tb[kRangeToData].present())
		return invalid(ack, "range needs a register, an operator and both bounds");
	uint32_t from_len, to_len, op;
	int err = parse_value(tb[kRangeFromData], in.data, kNftDataSize, 0, from_len, ack);
	if (!err)
		err = parse_value(tb[kRangeToData], in.data + 16, kNftDataSize, 0, to_len, ack);
	if (err)
		return err;
	if (from_len != to_len)
		return invalid(ack, "range bounds differ in length");
	if ((err = load_reg(tb[kRangeSreg], from_len, in.sreg, ack)))
		return err;
	if (!attr_be32(tb[kRangeOp], op))
		return invalid(ack, "range operator is not a 32-bit value");
	if (op > kRangeNeq)
		return fail(ack, kEOPNOTSUPP, "unknown range operator");
	in.op = Op::Range;
	in.sub = uint8_t(op);
	in.len = uint8_t(from_len);
	return 0;
}

int parse_bitwise(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kBitwiseSreg].present() || !tb[kBitwiseDreg].present() ||
	    !tb[kBitwiseLen].present())
		return invalid(ack, "bitwise needs source, destination and length");
	uint32_t len, op = kBitwiseMaskXor;
	int err = u32_check(tb[kBitwiseLen], 255, len, ack);
	if (err)
		return err;
	if ((err = load_reg(tb[kBitwiseSreg], len, in.sreg, ack)) ||
	    (err = store_reg(tb[kBitwiseDreg], len, false, in.dreg, ack)))
		return err;
	if (tb[kBitwiseOp].present() && !attr_be32(tb[kBitwiseOp], op))
		return invalid(ack, "bitwise operator is not a 32-bit value");
	in.len = uint8_t(len);
	switch (op) {
	case kBitwiseMaskXor: {
		if (tb[kBitwiseData].present())
			return invalid(ack, "a mask-and-xor bitwise takes no shift");
		if (!tb[kBitwiseMask].present() || !tb[kBitwiseXor].present())
			return invalid(ack, "a mask-and-xor bitwise needs a mask and a xor");
		uint32_t l;
		if ((err = parse_value(tb[kBitwiseMask], in.data, kNftDataSize, len, l, ack)) ||
		    (err = parse_value(tb[kBitwiseXor], in.data + 16, kNftDataSize, len, l, ack)))
			return err;
		in.op = Op::Bitwise;
		return 0;
	}
	case kBitwiseLshift:
	case kBitwiseRshift: {
		if (tb[kBitwiseMask].present() || tb[kBitwiseXor].present())
			return invalid(ack, "a shift takes no mask or xor");
		if (!tb[kBitwiseData].present())
			return invalid(ack, "a shift needs its amount");
		uint8_t buf[kNftDataSize];
		uint32_t l;
		if ((err = parse_value(tb[kBitwiseData], buf, kNftDataSize, 0, l, ack)))
			return err;
		if (l != 4)
			return invalid(ack, "a shift amount is 32 bits");
		uint32_t shift;
		__builtin_memcpy(&shift, buf, 4);
		if (shift >= 32)
			return invalid(ack, "a shift is less than 32 bits");
		in.op = Op::Shift;
		in.sub = uint8_t(op);
		in.offset = shift;
		return 0;
	}
	default:
		return fail(ack, kEOPNOTSUPP, "unknown bitwise operation");
	}
}

int parse_byteorder(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kByteorderSreg].present() || !tb[kByteorderDreg].present() ||
	    !tb[kByteorderLen].present() || !tb[kByteorderSize].present() ||
	    !tb[kByteorderOp].present())
		return invalid(ack, "byteorder needs registers, operation, length and size");
	uint32_t op, size, len;
	if (!attr_be32(tb[kByteorderOp], op))
		return invalid(ack, "byteorder operation is not a 32-bit value");
	if (op > kByteorderHton)
		return fail(ack, kEOPNOTSUPP, "unknown byteorder operation");
	int err = u32_check(tb[kByteorderSize], 255, size, ack);
	if (err)
		return err;
	if (size != 2 && size != 4 && size != 8)
		return invalid(ack, "byteorder element size is 2, 4 or 8");
	if ((err = u32_check(tb[kByteorderLen], 255, len, ack)))
		return err;
	if ((err = load_reg(tb[kByteorderSreg], len, in.sreg, ack)) ||
	    (err = store_reg(tb[kByteorderDreg], len, false, in.dreg, ack)))
		return err;
	in.op = Op::Byteorder;
	in.sub = uint8_t(op);
	in.size = uint8_t(size);
	in.len = uint8_t(len);
	return 0;
}

/*
 * nft_payload_set_init: a payload statement. The kernel keeps offset and
 * length in a byte each, unchecked, so larger values wrap as they do
 * there; a length of zero is then refused with the register load.
 */
int parse_payload_write(const Attr *tb, uint32_t base, Insn &in, Extack *ack)
{
	uint32_t offset, len, csum_type = kPayloadCsumNone, csum_offset = 0, csum_flags = 0;
	if (!attr_be32(tb[kPayloadOffset], offset) || !attr_be32(tb[kPayloadLen], len))
		return invalid(ack, "payload offset and length are 32-bit values");
	if (tb[kPayloadCsumType].present() && !attr_be32(tb[kPayloadCsumType], csum_type))
		return invalid(ack, "payload checksum type is not a 32-bit value");
	if (tb[kPayloadCsumOffset].present()) {
		const int err = u32_check(tb[kPayloadCsumOffset], 255, csum_offset, ack);
		if (err)
			return err;
	}
	if (tb[kPayloadCsumFlags].present()) {
		if (!attr_be32(tb[kPayloadCsumFlags], csum_flags))
			return invalid(ack, "payload checksum flags are not a 32-bit value");
		if (csum_flags & ~uint32_t(kPayloadL4CsumPseudoHdr))
			return invalid(ack, "unknown payload checksum flags");
	}
	switch (csum_type) {
	case kPayloadCsumNone:
	case kPayloadCsumInet:
		break;
	case kPayloadCsumSctp:
		if (base != kPayloadTransport)
			return invalid(ack, "an SCTP checksum is in the transport header");
		if (csum_offset != 8)
			return invalid(ack, "the SCTP checksum is at offset 8");
		break;
	default:
		return fail(ack, kEOPNOTSUPP, "unknown payload checksum type");
	}
	in.op = Op::PayloadWrite;
	in.sub = uint8_t(base);
	in.offset = uint8_t(offset);
	in.len = uint8_t(len);
	in.data[kPwCsumType] = uint8_t(csum_type);
	in.data[kPwCsumOffset] = uint8_t(csum_offset);
	in.data[kPwCsumFlags] = uint8_t(csum_flags);
	return load_reg(tb[kPayloadSreg], in.len, in.sreg, ack);
}

int parse_payload(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kPayloadBase].present() || !tb[kPayloadOffset].present() ||
	    !tb[kPayloadLen].present())
		return invalid(ack, "payload needs base, offset and length");
	uint32_t base, offset, len;
	if (!attr_be32(tb[kPayloadBase], base))
		return invalid(ack, "payload base is not a 32-bit value");
	if (base > kPayloadTransport)
		return fail(ack, kEOPNOTSUPP, "unsupported payload base");
	if (tb[kPayloadSreg].present()) {
		if (tb[kPayloadDreg].present())
			return invalid(ack, "payload has both a source and a destination register");
		return parse_payload_write(tb, base, in, ack);
	}
	if (!tb[kPayloadDreg].present())
		return invalid(ack, "payload needs a destination register");
	int err = u32_check(tb[kPayloadOffset], 255, offset, ack);
	if (!err)
		err = u32_check(tb[kPayloadLen], 255, len, ack);
	if (!err)
		err = store_reg(tb[kPayloadDreg], len, false, in.dreg, ack);
	if (err)
		return err;
	in.op = Op::Payload;
	in.sub = uint8_t(base);
	in.offset = offset;
	in.len = uint8_t(len);
	return 0;
}

/* The length a meta key loads, or 0 if not supported (bridge family). */
uint32_t meta_len(uint32_t key)
{
	switch (key) {
	case kMetaNfproto:
	case kMetaL4proto:
	case kMetaPkttype:
	case kMetaTimeDay:
	case kMetaSecpath:
		return 1;
	case kMetaProtocol:
	case kMetaIiftype:
	case kMetaOiftype:
	case kMetaBriIifpvid:
	case kMetaBriIifvproto:
		return 2;
	case kMetaLen:
	case kMetaMark:
	case kMetaIif:
	case kMetaOif:
	case kMetaPriority:
	case kMetaIifgroup:
	case kMetaOifgroup:
	case kMetaPrandom:
	case kMetaTimeHour:
	case kMetaCpu:
	case kMetaSdif:
	case kMetaSkuid:
	case kMetaSkgid:
	case kMetaRtclassid:
	case kMetaCgroup:
		return 4;
	case kMetaTimeNs:
		return 8;
	case kMetaIifname:
	case kMetaOifname:
	case kMetaBriIifname:
	case kMetaBriOifname:
	case kMetaIifkind:
	case kMetaOifkind:
	case kMetaSdifname:
		return kIfnameSize;
	default:
		return 0;
	}
}

int parse_meta(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kMetaKey].present())
		return invalid(ack, "meta needs a key");
	uint32_t key;
	if (!attr_be32(tb[kMetaKey], key))
		return invalid(ack, "meta key is not a 32-bit value");
	if (tb[kMetaDreg].present() && tb[kMetaSreg].present())
		return invalid(ack, "meta takes a source or a destination register, not both");
	if (tb[kMetaSreg].present()) {
		/* nft_meta_set_init: mark and priority (4 bytes), pkttype (1
		 * byte; prerouting only, checked at commit); nftrace (1 byte)
		 * marks the frame for nft's trace events, which xbridge does
		 * not send, so it is accepted and has no effect */
		if (key != kMetaMark && key != kMetaPriority && key != kMetaPkttype &&
		    key != kMetaNftrace)
			return fail(ack, kEOPNOTSUPP,
				    "only meta mark, priority, pkttype and nftrace can be set");
		in.op = Op::MetaSet;
		in.sub = uint8_t(key);
		in.len = key == kMetaMark || key == kMetaPriority ? 4 : 1;
		return load_reg(tb[kMetaSreg], in.len, in.sreg, ack);
	}
	if (!tb[kMetaDreg].present())
		return invalid(ack, "meta needs a register");
	const uint32_t len = meta_len(key);
	if (!len)
		return fail(ack, kEOPNOTSUPP, "unsupported meta key");
	in.op = Op::Meta;
	in.sub = uint8_t(key);
	in.len = uint8_t(len);
	return store_reg(tb[kMetaDreg], len, false, in.dreg, ack);
}

int parse_lookup(const Attr *tb, Resolver &res, Insn &in, Extack *ack)
{
	if (!tb[kLookupSet].present() || !tb[kLookupSreg].present())
		return invalid(ack, "lookup needs a set and a register");
	char name[kNameMax];
	if (!attr_string(tb[kLookupSet], name, sizeof(name)))
		return invalid(ack, "bad set name");
	uint32_t id, flags = 0;
	const bool has_id = tb[kLookupSetId].present();
	if (has_id && !attr_be32(tb[kLookupSetId], id))
		return invalid(ack, "set id is not a 32-bit value");
	void *set = res.set(name, has_id ? &id : nullptr);
	if (!set)
		return fail(ack, kENOENT, "no such set");
	if (tb[kLookupFlags].present()) {
		if (!attr_be32(tb[kLookupFlags], flags))
			return invalid(ack, "lookup flags are not a 32-bit value");
		if (flags & ~kLookupFInv)
			return fail(ack, kEOPNOTSUPP, "unknown lookup flags");
	}
	uint32_t klen, dlen;
	bool map, vmap;
	res.set_layout(set, klen, dlen, map, vmap);
	int err = load_reg(tb[kLookupSreg], klen, in.sreg, ack);
	if (err)
		return err;
	in.dreg = 0;
	if (tb[kLookupDreg].present()) {
		if (flags & kLookupFInv)
			return invalid(ack, "an inverted lookup cannot map");
		if (!map)
			return invalid(ack, "a lookup into a set (not a map) takes no destination");
		if ((err = store_reg(tb[kLookupDreg], dlen, vmap, in.dreg, ack)))
			return err;
	} else if (map) {
		return invalid(ack, "a map lookup needs a destination register");
	}
	in.op = Op::Lookup;
	in.flags = uint8_t(flags);
	in.len = uint8_t(klen);
	in.size = uint8_t(dlen);
	in.ref = set;
	return 0;
}

int parse_counter(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	Counter *c = static_cast<Counter *>(xb_alloc(sizeof(Counter), XB_ALLOC_SLEEP));
	if (!c)
		return fail(ack, kENOMEM, "out of memory for a counter");
	int err = counter_init(*c, tb, ack);
	if (err) {
		xb_free(c);
		return err;
	}
	out.counters[out.count_counters++] = c;
	in.op = Op::Counter;
	in.ref = c;
	return 0;
}

/* nft_objref_map_init: the object a key maps to in an object map. */
int parse_objref_map(const Attr *tb, Resolver &res, Insn &in, Extack *ack)
{
	char name[kNameMax] = "";
	if (tb[kObjrefSetName].present() && !attr_string(tb[kObjrefSetName], name, sizeof(name)))
		return invalid(ack, "bad set name");
	uint32_t id;
	const bool has_id = tb[kObjrefSetId].present();
	if (has_id && !attr_be32(tb[kObjrefSetId], id))
		return invalid(ack, "set id is not a 32-bit value");
	void *set = res.set(name, has_id ? &id : nullptr);
	if (!set)
		return fail(ack, kENOENT, "no such set");
	const uint32_t type = res.set_obj_type(set);
	if (!type)
		return invalid(ack, "the set is not an object map");
	uint32_t klen, dlen;
	bool map, vmap;
	res.set_layout(set, klen, dlen, map, vmap);
	int err = load_reg(tb[kObjrefSetSreg], klen, in.sreg, ack);
	if (err)
		return err;
	in.op = Op::ObjMap;
	in.sub = uint8_t(type);
	in.len = uint8_t(klen);
	in.ref = set;
	return 0;
}

/* nft_objref_init: an immediate reference to a named object of the table
 * (xbridge has counters, quotas and limits), or one through a map. */
int parse_objref(const Attr *tb, Resolver &res, Insn &in, ParsedRule &out, Extack *ack)
{
	/* nft_objref_select_ops */
	if (tb[kObjrefSetSreg].present() &&
	    (tb[kObjrefSetName].present() || tb[kObjrefSetId].present()))
		return parse_objref_map(tb, res, in, ack);
	if (!tb[kObjrefImmName].present() || !tb[kObjrefImmType].present())
		return fail(ack, kEOPNOTSUPP, "an object reference needs a type and a name, or a map");
	uint32_t type;
	char name[kNameMax];
	if (!attr_be32(tb[kObjrefImmType], type))
		return invalid(ack, "object type is a 32-bit value");
	if (!attr_string(tb[kObjrefImmName], name, sizeof(name)))
		return fail(ack, kENOENT, "no such object");
	void *obj = res.object(name, type);
	if (!obj)
		return fail(ack, kENOENT, "no such object");
	switch (type) {
	case kObjectCounter:
		in.op = Op::ObjCounter;
		break;
	case kObjectQuota:
		in.op = Op::ObjQuota;
		break;
	case kObjectLimit:
		in.op = Op::ObjLimit;
		break;
	default:
		return fail(ack, kENOENT, "no such object");
	}
	in.ref = obj;
	out.obj_refs++;
	return 0;
}

int parse_limit(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	Limit *l = static_cast<Limit *>(xb_alloc(sizeof(Limit), XB_ALLOC_SLEEP));
	if (!l)
		return fail(ack, kENOMEM, "out of memory for a limit");
	const int err = limit_init(*l, tb, ack);
	if (err) {
		xb_free(l);
		return err;
	}
	out.limits[out.count_limits++] = l;
	in.op = Op::Limit;
	in.flags = uint8_t(l->flags & kLimitFInv);
	in.ref = l;
	return 0;
}

/* nft_ct_get_init's key lengths and direction rules; 0: not supported. */
int ct_get_len(uint32_t key, bool has_dir, uint32_t &len, Extack *ack)
{
	switch (key) {
	case kCtState:
	case kCtDirectionKey:
	case kCtStatus:
	case kCtMark:
	case kCtExpiration:
		if (has_dir)
			return invalid(ack, "this ct key takes no direction");
		len = key == kCtDirectionKey ? 1 : 4;
		return 0;
	case kCtL3protocol:
	case kCtProtocol:
		len = 1;
		return 0;
	case kCtZone:
		len = 2;
		return 0;
	case kCtId:
		len = 4;
		return 0;
	case kCtPkts:
	case kCtBytes:
	case kCtAvgpkt:
		len = 8;
		return 0;
	case kCtSrcIp:
	case kCtDstIp:
	case kCtSrcIp6:
	case kCtDstIp6:
	case kCtProtoSrc:
	case kCtProtoDst:
		if (!has_dir)
			return invalid(ack, "this ct key needs a direction");
		len = key == kCtProtoSrc || key == kCtProtoDst ? 2 :
		      key == kCtSrcIp || key == kCtDstIp ? 4 : 16;
		return 0;
	default:
		return fail(ack, kEOPNOTSUPP, "unsupported ct key");
	}
}

int parse_ct(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	if (!tb[kCtKey].present())
		return invalid(ack, "ct needs a key");
	uint32_t key;
	if (!attr_be32(tb[kCtKey], key))
		return invalid(ack, "ct key is not a 32-bit value");
	const bool has_dir = tb[kCtDirection].present();
	if (has_dir) {
		if (tb[kCtDirection].len != 1 || tb[kCtDirection].data[0] > 1)
			return invalid(ack, "ct direction is original or reply");
		in.size = uint8_t(tb[kCtDirection].data[0] + 1);
	}
	if (tb[kCtDreg].present() == tb[kCtSreg].present())
		return invalid(ack, "ct takes one register: source or destination");
	out.has_ct = true;
	in.sub = uint8_t(key);
	if (tb[kCtSreg].present()) {
		uint32_t len;
		if (key == kCtMark) {
			if (has_dir)
				return invalid(ack, "ct mark takes no direction");
			len = 4;
		} else if (key == kCtZone) {
			len = 2;
		} else {
			return fail(ack, kEOPNOTSUPP, "only ct mark and ct zone can be set");
		}
		in.op = Op::CtSet;
		in.len = uint8_t(len);
		return load_reg(tb[kCtSreg], len, in.sreg, ack);
	}
	uint32_t len;
	int err = ct_get_len(key, has_dir, len, ack);
	if (err)
		return err;
	in.op = Op::CtGet;
	in.len = uint8_t(len);
	return store_reg(tb[kCtDreg], len, false, in.dreg, ack);
}

int parse_flow_offload(const Attr *tb, Resolver &res, Insn &in, ParsedRule &out, Extack *ack)
{
	if (!tb[kFlowTableName].present())
		return invalid(ack, "flow offload needs a flowtable");
	char name[kNameMax];
	if (!attr_string(tb[kFlowTableName], name, sizeof(name)))
		return invalid(ack, "bad flowtable name");
	in.ref = res.flowtable(name);
	if (!in.ref)
		return fail(ack, kENOENT, "no such flowtable");
	in.op = Op::FlowOffload;
	out.has_offload = true;
	out.has_ct = true;
	return 0;
}

/*
 * nft_log_init: level (default warning, at most audit) and flags for a
 * syslog line, or group (with snaplen, qthreshold) for NFLOG, never both;
 * the prefix at most 127 bytes; the bridge family's logger held for the
 * rule's life, ENOENT without one.
 */
int parse_log(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	Log *l = static_cast<Log *>(xb_alloc(sizeof(Log), XB_ALLOC_SLEEP));
	if (!l)
		return fail(ack, kENOMEM, "out of memory for a log statement");
	auto refuse = [&](int err, const char *msg) {
		xb_free(l);
		return fail(ack, err, msg);
	};
	xb_nft_loginfo &li = l->info;
	uint32_t v32;
	uint16_t v16;
	if (tb[kLogLevel].present() && tb[kLogGroup].present())
		return refuse(kEINVAL, "log level and group exclude each other");
	li.type = tb[kLogGroup].present() ? kLogTypeUlog : kLogTypeLog;
	if (li.type == kLogTypeUlog && tb[kLogFlags].present())
		return refuse(kEINVAL, "log flags need a syslog log, not a group");
	if (tb[kLogPrefix].present() && tb[kLogPrefix].len && tb[kLogPrefix].data[0] &&
	    !attr_string(tb[kLogPrefix], li.prefix, sizeof(li.prefix)))
		return refuse(kERANGE, "log prefix longer than 127 bytes");
	if (li.type == kLogTypeLog) {
		v32 = kLogLevelWarning;
		if (tb[kLogLevel].present() && !attr_be32(tb[kLogLevel], v32))
			return refuse(kEINVAL, "log level is a 32-bit value");
		if (v32 > kLogLevelAudit)
			return refuse(kEINVAL, "log level above audit");
		l->audit = v32 == kLogLevelAudit;
		li.level = uint8_t(v32);
		if (tb[kLogFlags].present()) {
			if (!attr_be32(tb[kLogFlags], v32))
				return refuse(kEINVAL, "log flags are a 32-bit value");
			if (v32 & ~kLogFlagsMask)
				return refuse(kEINVAL, "unknown log flags");
			li.logflags = uint8_t(v32);
		}
	} else {
		if (!attr_be16(tb[kLogGroup], li.group))
			return refuse(kEINVAL, "log group is a 16-bit value");
		if (tb[kLogSnaplen].present()) {
			if (!attr_be32(tb[kLogSnaplen], li.copy_len))
				return refuse(kEINVAL, "log snaplen is a 32-bit value");
			li.copy_len_set = 1;
		}
		if (tb[kLogQthreshold].present()) {
			if (!attr_be16(tb[kLogQthreshold], v16))
				return refuse(kEINVAL, "log queue-threshold is a 16-bit value");
			li.qthreshold = v16;
		}
	}
	if (!l->audit) {
		if (xb_nft_logger_get(li.type))
			return refuse(kENOENT, "no packet logger for the bridge family");
		l->logger_held = true;
	}
	out.logs[out.count_logs++] = l;
	in.op = Op::Log;
	in.ref = l;
	return 0;
}

/*
 * nft_reject_init: TCP reset, or an ICMP unreachable with its code (an
 * ICMPX code at most admin-prohibited). The ICMPX code is mapped to each
 * family's at parse time, as nft_reject_icmp_code and
 * nft_reject_icmpv6_code map it per frame; a plain ICMP code is used as
 * given whatever the frame's family, as the bridge's reject does.
 */
int parse_reject(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	/* by NFT_REJECT_ICMPX_*: no-route, port, host, admin-prohibited */
	static constexpr uint8_t kIcmpxToIcmp[] = {0, 3, 1, 13};
	static constexpr uint8_t kIcmpxToIcmpv6[] = {0, 4, 3, 1};
	uint32_t type;
	if (!tb[kRejectType].present())
		return invalid(ack, "reject needs a type");
	if (!attr_be32(tb[kRejectType], type))
		return fail(ack, kERANGE, "reject type is a 32-bit value");
	uint8_t code = 0;
	switch (type) {
	case kRejectIcmpUnreach:
	case kRejectIcmpxUnreach:
		if (!tb[kRejectIcmpCode].present())
			return invalid(ack, "an ICMP reject needs a code");
		if (tb[kRejectIcmpCode].len < 1)
			return fail(ack, kERANGE, "reject ICMP code is an 8-bit value");
		code = tb[kRejectIcmpCode].data[0];
		if (type == kRejectIcmpxUnreach && code > kRejectIcmpxMax)
			return invalid(ack, "unknown ICMPX reject code");
		break;
	case kRejectTcpRst:
		break;
	default:
		return invalid(ack, "unknown reject type");
	}
	in.op = Op::Reject;
	in.sub = uint8_t(type);
	in.data[0] = type == kRejectIcmpxUnreach ? kIcmpxToIcmp[code] : code;
	in.data[1] = type == kRejectIcmpxUnreach ? kIcmpxToIcmpv6[code] : code;
	out.has_reject = true;
	return 0;
}

/* nft_connlimit_do_init: a bound, an empty list, and conntrack on
 * (nf_ct_netns_get). */
int parse_connlimit(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	uint32_t limit, flags;
	int err = connlimit_parse(tb, limit, flags, ack);
	if (err)
		return err;
	ConnLimit *c = connlimit_create(limit, flags, ack);
	if (!c)
		return -kENOMEM;
	out.connlimits[out.count_connlimits++] = c;
	in.op = Op::Connlimit;
	in.flags = uint8_t(flags);
	in.ref = c;
	out.has_ct = true;
	return 0;
}

int parse_quota(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	Quota *q = static_cast<Quota *>(xb_alloc(sizeof(Quota), XB_ALLOC_SLEEP));
	if (!q)
		return fail(ack, kENOMEM, "out of memory for a quota");
	const int err = quota_init(*q, tb, ack);
	if (err) {
		xb_free(q);
		return err;
	}
	out.plain[out.count_plain++] = q;
	in.op = Op::Quota;
	in.ref = q;
	return 0;
}

/* A modulus and offset as nft_ng_*_init and nft_*hash_init check them:
 * a zero modulus ERANGE, a range that wraps EOVERFLOW. */
int parse_modulus(const Attr &modulus_attr, const Attr &offset_attr, Insn &in, Extack *ack)
{
	uint32_t modulus, offset = 0;
	if (!attr_be32(modulus_attr, modulus))
		return fail(ack, kERANGE, "modulus is a 32-bit value");
	if (offset_attr.present() && !attr_be32(offset_attr, offset))
		return fail(ack, kERANGE, "offset is a 32-bit value");
	if (modulus == 0)
		return fail(ack, kERANGE, "modulus must not be zero");
	if (offset + modulus - 1 < offset)
		return fail(ack, kEOVERFLOW, "offset plus modulus overflows 32 bits");
	__builtin_memcpy(in.data, &modulus, 4);
	__builtin_memcpy(in.data + 4, &offset, 4);
	return 0;
}

/* nft_ng_select_ops and nft_ng_*_init: an incremental counter starts so
 * that the first frame reads 0 (+ offset); random reads are uniform. */
int parse_numgen(const Attr *tb, Insn &in, ParsedRule &out, Extack *ack)
{
	if (!tb[kNgDreg].present() || !tb[kNgModulus].present() || !tb[kNgType].present())
		return invalid(ack, "numgen needs a register, a modulus and a type");
	uint32_t type;
	if (!attr_be32(tb[kNgType], type) || (type != kNgIncremental && type != kNgRandom))
		return invalid(ack, "unknown numgen type");
	int err = parse_modulus(tb[kNgModulus], tb[kNgOffset], in, ack);
	if (!err)
		err = store_reg(tb[kNgDreg], 4, false, in.dreg, ack);
	if (err)
		return err;
	in.op = Op::Numgen;
	in.sub = uint8_t(type);
	in.len = 4;
	if (type == kNgIncremental) {
		uint32_t *counter =
			static_cast<uint32_t *>(xb_alloc(sizeof(uint32_t), XB_ALLOC_SLEEP));
		if (!counter)
			return fail(ack, kENOMEM, "out of memory for numgen");
		uint32_t modulus;
		__builtin_memcpy(&modulus, in.data, 4);
		*counter = modulus - 1;
		out.plain[out.count_plain++] = counter;
		in.ref = counter;
	}
	return 0;
}

/* nft_hash_select_ops, nft_jhash_init and nft_symhash_init: jhash of 1 to
 * 255 bytes with the given seed (a random one without), or the flow's
 * symmetric hash. */
int parse_hash(const Attr *tb, Insn &in, Extack *ack)
{
	uint32_t type = kHashJenkins;
	if (tb[kHashType].present() && (!attr_be32(tb[kHashType], type) ||
					(type != kHashJenkins && type != kHashSym)))
		return fail(ack, kEOPNOTSUPP, "unknown hash type");
	in.op = Op::Hash;
	in.sub = uint8_t(type);
	if (type == kHashSym) {
		if (!tb[kHashDreg].present() || !tb[kHashModulus].present())
			return invalid(ack, "symhash needs a register and a modulus");
		/* the flow's hash key: random, as the kernel's flow hash is */
		const uint32_t seed = xb_random_u32();
		__builtin_memcpy(in.data + 8, &seed, 4);
		const int err = parse_modulus(tb[kHashModulus], tb[kHashOffset], in, ack);
		return err ? err : store_reg(tb[kHashDreg], 4, false, in.dreg, ack);
	}
	if (!tb[kHashSreg].present() || !tb[kHashDreg].present() || !tb[kHashLen].present() ||
	    !tb[kHashModulus].present())
		return invalid(ack, "jhash needs registers, a length and a modulus");
	uint32_t len;
	if (!attr_be32(tb[kHashLen], len) || len > 255)
		return fail(ack, kERANGE, "jhash length above 255 bytes");
	if (len == 0)
		return fail(ack, kERANGE, "jhash length must not be zero");
	in.len = uint8_t(len);
	int err = load_reg(tb[kHashSreg], len, in.sreg, ack);
	if (!err)
		err = parse_modulus(tb[kHashModulus], tb[kHashOffset], in, ack);
	if (err)
		return err;
	uint32_t seed;
	if (tb[kHashSeed].present()) {
		if (!attr_be32(tb[kHashSeed], seed))
			return fail(ack, kERANGE, "jhash seed is a 32-bit value");
	} else {
		seed = xb_random_u32();
	}
	__builtin_memcpy(in.data + 8, &seed, 4);
	return store_reg(tb[kHashDreg], 4, false, in.dreg, ack);
}

/*
 * nft_exthdr_tcp_set_init and nft_exthdr_tcp_strip_init: `tcp option
 * maxseg size set 1360` writes 2 or 4 bytes of an option from a register
 * (at offset 2 or more: past its kind and length); `reset tcp option
 * sack-perm` (no register at all) overwrites the whole option with NOPs.
 */
int parse_tcpopt_write(const Attr *tb, Insn &in, Extack *ack)
{
	if (!tb[kExthdrSreg].present()) {
		if (tb[kExthdrDreg].present() || tb[kExthdrFlags].present() ||
		    tb[kExthdrOffset].present() || tb[kExthdrLen].present() ||
		    !tb[kExthdrType].present())
			return invalid(ack, "a TCP option reset takes the option's type alone");
		if (tb[kExthdrType].len < 1)
			return fail(ack, kERANGE, "exthdr type is an 8-bit value");
		in.op = Op::TcpOptWrite;
		in.sub = kTcpOptStrip;
		in.data[0] = tb[kExthdrType].data[0];
		return 0;
	}
	if (!tb[kExthdrType].present() || !tb[kExthdrOffset].present() ||
	    !tb[kExthdrLen].present())
		return invalid(ack, "a TCP option write needs a register, a type, an offset and a length");
	if (tb[kExthdrDreg].present() || tb[kExthdrFlags].present())
		return invalid(ack, "a TCP option write takes no destination or flags");
	uint32_t offset, len;
	int err = u32_check(tb[kExthdrOffset], 255, offset, ack);
	if (!err)
		err = u32_check(tb[kExthdrLen], 255, len, ack);
	if (err)
		return err;
	if (offset < 2)
		return fail(ack, kEOPNOTSUPP, "a TCP option write starts past the kind and length");
	if (len != 2 && len != 4)
		return fail(ack, kEOPNOTSUPP, "a TCP option write is 2 or 4 bytes");
	if (tb[kExthdrType].len < 1)
		return fail(ack, kERANGE, "exthdr type is an 8-bit value");
	in.op = Op::TcpOptWrite;
	in.sub = kTcpOptSet;
	in.data[0] = tb[kExthdrType].data[0];
	in.offset = offset;
	in.len = uint8_t(len);
	return load_reg(tb[kExthdrSreg], len, in.sreg, ack);
}

/*
 * nft_exthdr_select_ops and nft_exthdr_init, read side: a TCP option, an
 * IPv6 extension header (no op: IPv6), an IPv4 option or an SCTP chunk,
 * @len bytes at @offset into it or, with the present flag (and a length
 * of 1), whether it is there; a TCP option with no destination is a
 * write (above), an SCTP chunk takes only a destination. An IPv4 option
 * is one nft_exthdr_ipv4_init takes (record route, loose or strict source
 * route, router alert), its type checked last. DCCP options are not
 * supported by xbridge.
 */
int parse_exthdr(const Attr *tb, Insn &in, Extack *ack)
{
	uint32_t op = kExthdrOpIpv6, offset, len, flags = 0;
	if (tb[kExthdrOp].present()) {
		if (tb[kExthdrSreg].present() && tb[kExthdrDreg].present())
			return fail(ack, kEOPNOTSUPP, "exthdr takes a source or a destination");
		if (!attr_be32(tb[kExthdrOp], op))
			return fail(ack, kERANGE, "exthdr op is a 32-bit value");
		if (op == kExthdrOpTcpopt && !tb[kExthdrDreg].present())
			return parse_tcpopt_write(tb, in, ack);
		if ((op != kExthdrOpTcpopt && op != kExthdrOpIpv6 && op != kExthdrOpIpv4 &&
		     op != kExthdrOpSctp) ||
		    !tb[kExthdrDreg].present())
			return fail(ack, kEOPNOTSUPP, "unsupported exthdr operation");
	}
	if (!tb[kExthdrDreg].present() || !tb[kExthdrType].present() ||
	    !tb[kExthdrOffset].present() || !tb[kExthdrLen].present())
		return invalid(ack, "exthdr needs a register, a type, an offset and a length");
	int err = u32_check(tb[kExthdrOffset], 255, offset, ack);
	if (!err)
		err = u32_check(tb[kExthdrLen], 255, len, ack);
	if (!err && tb[kExthdrFlags].present())
		err = u32_check(tb[kExthdrFlags], 255, flags, ack);
	if (err)
		return err;
	if (flags & ~kExthdrFPresent)
		return invalid(ack, "unknown exthdr flags");
	if ((flags & kExthdrFPresent) && len != 1)
		return invalid(ack, "an exthdr presence test is one byte long");
	if (tb[kExthdrType].len < 1)
		return fail(ack, kERANGE, "exthdr type is an 8-bit value");
	in.op = Op::Exthdr;
	in.sub = uint8_t(op);
	in.data[0] = tb[kExthdrType].data[0];
	in.offset = offset;
	in.len = uint8_t(len);
	in.flags = uint8_t(flags);
	err = store_reg(tb[kExthdrDreg], len, false, in.dreg, ack);
	if (err)
		return err;
	if (op == kExthdrOpIpv4 && !ipv4_option_findable(in.data[0]))
		return fail(ack, kEOPNOTSUPP, "no such IPv4 option can be matched");
	return 0;
}

constexpr unsigned kExprAttrMax = 10;	/* NFTA_DYNSET_MAX */

int parse_one(const Attr &elem, Resolver &res, Insn &in, ParsedRule &out, Extack *ack)
{
	Attr et[kExprData + 1];
	if (!parse_nested(elem, et, kExprData))
		return invalid(ack, "malformed expression");
	if (!et[kExprName].present())
		return invalid(ack, "expression without a name");
	Attr tb[kExprAttrMax + 1];
	Attr empty{};
	if (!parse_nested(et[kExprData].present() ? et[kExprData] : empty, tb, kExprAttrMax))
		return invalid(ack, "malformed expression data");

	const Attr &name = et[kExprName];
	if (attr_equals(name, "immediate"))
		return parse_immediate(tb, res, in, out, ack);
	if (attr_equals(name, "cmp"))
		return parse_cmp(tb, in, ack);
	if (attr_equals(name, "range"))
		return parse_range(tb, in, ack);
	if (attr_equals(name, "bitwise"))
		return parse_bitwise(tb, in, ack);
	if (attr_equals(name, "byteorder"))
		return parse_byteorder(tb, in, ack);
	if (attr_equals(name, "payload")) {
		const int err = parse_payload(tb, in, ack);
		if (!err && in.op == Op::PayloadWrite)
			out.has_payload_write = true;
		return err;
	}
	if (attr_equals(name, "meta")) {
		const int err = parse_meta(tb, in, ack);
		if (!err && in.op == Op::MetaSet && in.sub == kMetaPkttype)
			out.has_pkttype_set = true;
		return err;
	}
	if (attr_equals(name, "lookup"))
		return parse_lookup(tb, res, in, ack);
	if (attr_equals(name, "counter"))
		return parse_counter(tb, in, out, ack);
	if (attr_equals(name, "limit"))
		return parse_limit(tb, in, out, ack);
	if (attr_equals(name, "objref"))
		return parse_objref(tb, res, in, out, ack);
	if (attr_equals(name, "ct"))
		return parse_ct(tb, in, out, ack);
	if (attr_equals(name, "flow_offload"))
		return parse_flow_offload(tb, res, in, out, ack);
	if (attr_equals(name, "log"))
		return parse_log(tb, in, out, ack);
	if (attr_equals(name, "reject"))
		return parse_reject(tb, in, out, ack);
	if (attr_equals(name, "quota"))
		return parse_quota(tb, in, out, ack);
	if (attr_equals(name, "connlimit"))
		return parse_connlimit(tb, in, out, ack);
	if (attr_equals(name, "exthdr")) {
		const int err = parse_exthdr(tb, in, ack);
		if (!err && in.op == Op::TcpOptWrite)
			out.has_payload_write = true;
		return err;
	}
	if (attr_equals(name, "numgen"))
		return parse_numgen(tb, in, out, ack);
	if (attr_equals(name, "hash"))
		return parse_hash(tb, in, ack);
	if (attr_equals(name, "dynset"))
		return parse_dynset(tb, res, in, out, ack);
	if (attr_equals(name, "notrack")) {
		/* nft_notrack: no attributes, and no conntrack user of its own
		 * (it does not switch the bridge's tracking on) */
		in.op = Op::Notrack;
		return 0;
	}
	/* nf_tables answers an expression it has no module for with ENOENT. */
	return fail(ack, kENOENT, "unknown expression");
}

} // namespace

int parse_msecs(const Attr &a, uint64_t &ns, Extack *ack)
{
	uint64_t ms;
	if (!attr_be64(a, ms))
		return invalid(ack, "a timeout is a 64-bit value");
	if (ms >= UINT64_MAX / 1000000u)
		return fail(ack, kERANGE, "timeout too large");
	ns = ms * 1000000u;
	return 0;
}

int load_register(const Attr &a, uint32_t len, uint8_t &word, Extack *ack)
{
	return load_reg(a, len, word, ack);
}

bool register_word(uint32_t reg, uint8_t &word)
{
	if (reg <= kReg4) {
		word = uint8_t(reg * 4);
		return true;
	}
	if (reg >= kReg32_00 && reg <= kReg32_15) {
		word = uint8_t(reg - kReg32_00 + 4);
		return true;
	}
	return false;
}

int parse_data_value(const Attr &nest, uint8_t *out, uint32_t max, uint32_t &len, Extack *ack)
{
	Attr dt[kDataVerdict + 1];
	if (!parse_nested(nest, dt, kDataVerdict))
		return invalid(ack, "malformed data");
	if (!dt[kDataValue].present())
		return invalid(ack, "expected a value");
	len = dt[kDataValue].len;
	if (len == 0)
		return invalid(ack, "empty value");
	if (len > max)
		return fail(ack, kERANGE, "value too long");
	__builtin_memcpy(out, dt[kDataValue].data, len);
	return 0;
}

int parse_data_verdict(const Attr &nest, Resolver &res, int32_t &code, void *&chain,
		       Extack *ack)
{
	Attr dt[kDataVerdict + 1];
	if (!parse_nested(nest, dt, kDataVerdict) || !dt[kDataVerdict].present())
		return invalid(ack, "expected a verdict");
	Attr vt[kVerdictChainId + 1];
	if (!parse_nested(dt[kDataVerdict], vt, kVerdictChainId) || !vt[kVerdictCode].present())
		return invalid(ack, "a verdict needs a code");
	uint32_t raw;
	if (!attr_be32(vt[kVerdictCode], raw))
		return invalid(ack, "verdict code is not a 32-bit value");
	code = int32_t(raw);
	chain = nullptr;
	switch (code) {
	case kNfAccept:
	case kNfDrop:
	case kNftContinue:
	case kNftBreak:
	case kNftReturn:
		return 0;
	case 3:	/* NF_QUEUE */
		return fail(ack, kEOPNOTSUPP, "queue verdicts are not supported");
	case kNftJump:
	case kNftGoto: {
		char name[kNameMax];
		uint32_t id;
		const bool has_id = vt[kVerdictChainId].present();
		if (has_id && !attr_be32(vt[kVerdictChainId], id))
			return invalid(ack, "chain id is not a 32-bit value");
		if (vt[kVerdictChain].present()) {
			if (!attr_string(vt[kVerdictChain], name, sizeof(name)))
				return invalid(ack, "bad chain name");
		} else if (!has_id) {
			return invalid(ack, "jump and goto need a chain");
		} else {
			name[0] = '\0';
		}
		bool base = false;
		chain = res.chain(name, has_id ? &id : nullptr, base);
		if (!chain)
			return fail(ack, kENOENT, "no such chain");
		if (base) {
			chain = nullptr;
			return fail(ack, kEOPNOTSUPP, "a base chain cannot be the target of a jump or goto");
		}
		return 0;
	}
	default:
		return invalid(ack, "unknown verdict");
	}
}

int parse_rule_exprs(const Attr &list, Resolver &res, ParsedRule &out, Extack *ack)
{
	out = ParsedRule{};
	/* Count first: one Insn per expression, one slot per counter or limit. */
	uint32_t n = 0;
	{
		AttrWalker w(list);
		uint16_t type;
		Attr a;
		while (w.next(type, a)) {
			if (type != kListElem)
				return invalid(ack, "expression list holds a non-element");
			n++;
		}
		if (w.malformed())
			return invalid(ack, "malformed expression list");
	}
	if (n > kRuleMaxExprs)
		return invalid(ack, "too many expressions in one rule");
	if (n) {
		out.insn = static_cast<Insn *>(xb_alloc(n * sizeof(Insn), XB_ALLOC_SLEEP));
		out.counters = static_cast<Counter **>(xb_alloc(n * sizeof(Counter *), XB_ALLOC_SLEEP));
		out.limits = static_cast<Limit **>(xb_alloc(n * sizeof(Limit *), XB_ALLOC_SLEEP));
		out.logs = static_cast<Log **>(xb_alloc(n * sizeof(Log *), XB_ALLOC_SLEEP));
		out.connlimits = static_cast<ConnLimit **>(
			xb_alloc(n * sizeof(ConnLimit *), XB_ALLOC_SLEEP));
		out.plain = static_cast<void **>(xb_alloc(n * sizeof(void *), XB_ALLOC_SLEEP));
		if (!out.insn || !out.counters || !out.limits || !out.logs || !out.connlimits ||
		    !out.plain) {
			free_parsed_rule(out);
			return fail(ack, kENOMEM, "out of memory for a rule");
		}
	}
	AttrWalker w(list);
	uint16_t type;
	Attr a;
	while (w.next(type, a)) {
		Insn &in = out.insn[out.count];
		int err = parse_one(a, res, in, out, ack);
		if (err) {
			free_parsed_rule(out);
			return blame_part(ack, err, a.data);	/* NL_SET_BAD_ATTR(tmp) */
		}
		out.count++;
	}
	return 0;
}

void free_parsed_rule(ParsedRule &r)
{
	for (uint32_t i = 0; i < r.count_counters; i++) {
		counter_fini(*r.counters[i]);
		xb_free(r.counters[i]);
	}
	for (uint32_t i = 0; i < r.count_limits; i++) {
		limit_fini(*r.limits[i]);
		xb_free(r.limits[i]);
	}
	for (uint32_t i = 0; i < r.count_logs; i++) {
		if (r.logs[i]->logger_held)
			xb_nft_logger_put(r.logs[i]->info.type);
		xb_free(r.logs[i]);
	}
	if (r.logs)
		xb_free(r.logs);
	for (uint32_t i = 0; i < r.count_connlimits; i++)
		connlimit_destroy(r.connlimits[i]);
	if (r.connlimits)
		xb_free(r.connlimits);
	for (uint32_t i = 0; i < r.count_plain; i++)
		xb_free(r.plain[i]);
	if (r.plain)
		xb_free(r.plain);
	if (r.insn)
		xb_free(r.insn);
	if (r.counters)
		xb_free(r.counters);
	if (r.limits)
		xb_free(r.limits);
	r = ParsedRule{};
}

/*
 * nft_limit_select_ops and nft_limit_init: a packet or byte rate per unit
 * (seconds), a burst (packets: 5 by default), the bucket's size checked
 * for overflow; the bucket starts full.
 */
int limit_init(Limit &l, const Attr *tb, Extack *ack)
{
	l = Limit{};
	uint32_t type = kLimitPkts;
	if (tb[kLimitType].present() && !attr_be32(tb[kLimitType], type))
		return fail(ack, kERANGE, "limit type is a 32-bit value");
	if (type != kLimitPkts && type != kLimitPktBytes)
		return fail(ack, kEOPNOTSUPP, "unknown limit type");
	if (!tb[kLimitRate].present() || !tb[kLimitUnit].present())
		return invalid(ack, "limit needs a rate and a unit");
	uint64_t rate, unit;
	uint32_t burst = 0, flags = 0;
	if (!attr_be64(tb[kLimitRate], rate) || !attr_be64(tb[kLimitUnit], unit))
		return fail(ack, kERANGE, "limit rate and unit are 64-bit");
	if ((tb[kLimitBurst].present() && !attr_be32(tb[kLimitBurst], burst)) ||
	    (tb[kLimitFlags].present() && !attr_be32(tb[kLimitFlags], flags)))
		return fail(ack, kERANGE, "limit burst and flags are 32-bit");
	if (rate == 0)
		return invalid(ack, "limit rate must not be zero");
	constexpr uint64_t kNsPerSec = 1000000000ull;
	uint64_t nsecs;
	if (__builtin_mul_overflow(unit, kNsPerSec, &nsecs))
		return fail(ack, kEOVERFLOW, "limit unit overflows");
	if (type == kLimitPkts && burst == 0)
		burst = 5;	/* NFT_LIMIT_PKT_BURST_DEFAULT */
	uint64_t rate_with_burst, tokens;
	if (__builtin_add_overflow(rate, uint64_t(burst), &rate_with_burst))
		return fail(ack, kEOVERFLOW, "limit rate plus burst overflows");
	if (type == kLimitPkts) {
		if (__builtin_mul_overflow(nsecs / rate, uint64_t(burst), &tokens))
			return fail(ack, kEOVERFLOW, "limit burst overflows");
	} else {
		uint64_t tmp;
		if (__builtin_mul_overflow(nsecs, rate_with_burst, &tmp))
			return fail(ack, kEOVERFLOW, "limit burst overflows");
		tokens = tmp / rate;
	}
	if (flags & ~kLimitFInv)
		return fail(ack, kEOPNOTSUPP, "unknown limit flags");
	l.lock = xb_lock_create();
	if (!l.lock)
		return fail(ack, kENOMEM, "out of memory for a limit");
	l.tokens_max = tokens;
	{
		LockGuard guard(l.lock);	/* unshared yet: taken for the checked rule */
		l.tokens = tokens;
		l.last_ns = xb_now_ns();
	}
	l.rate = rate;
	l.unit_s = unit;
	l.nsecs = nsecs;
	l.burst = burst;
	l.type = type;
	l.flags = flags;
	return 0;
}

void limit_fini(Limit &l)
{
	if (l.lock)
		xb_lock_destroy(l.lock);
	l.lock = nullptr;
}

/* nft_quota_do_init: the bound at most S64_MAX, consumed at most the
 * bound, no flag but `over` (a depleted flag is EINVAL there too). */
int quota_init(Quota &q, const Attr *tb, Extack *ack)
{
	q = Quota{};
	if (!tb[kQuotaBytes].present())
		return invalid(ack, "a quota needs its bytes");
	if (!attr_be64(tb[kQuotaBytes], q.bytes))
		return fail(ack, kERANGE, "quota bytes are a 64-bit value");
	if (q.bytes > uint64_t(INT64_MAX))
		return fail(ack, kEOVERFLOW, "quota above 2^63 - 1 bytes");
	if (tb[kQuotaConsumed].present()) {
		if (!attr_be64(tb[kQuotaConsumed], q.consumed))
			return fail(ack, kERANGE, "quota consumed is a 64-bit value");
		if (q.consumed > q.bytes)
			return invalid(ack, "quota consumed above its bytes");
	}
	if (tb[kQuotaFlags].present()) {
		if (!attr_be32(tb[kQuotaFlags], q.flags))
			return fail(ack, kERANGE, "quota flags are a 32-bit value");
		if (q.flags & ~kQuotaFInv)
			return invalid(ack, "unknown quota flags");
	}
	return 0;
}

void quota_read(const Quota &q, uint64_t &consumed, uint64_t &shown, uint32_t &flags)
{
	consumed = __atomic_load_n(&q.consumed, __ATOMIC_RELAXED);
	shown = consumed;
	flags = q.flags;
	if (consumed >= q.bytes) {
		shown = q.bytes;
		flags |= kQuotaFDepleted;
	}
}

void quota_reset(Quota &q, uint64_t consumed)
{
	__atomic_fetch_sub(&q.consumed, consumed, __ATOMIC_RELAXED);
}

int counter_init(Counter &c, const Attr *tb, Extack *ack)
{
	c.base_packets = c.base_bytes = 0;
	if ((tb[kCounterPackets].present() && !attr_be64(tb[kCounterPackets], c.base_packets)) ||
	    (tb[kCounterBytes].present() && !attr_be64(tb[kCounterBytes], c.base_bytes)))
		return invalid(ack, "counter values are 64-bit");
	if (!c.cpu.init(XB_ALLOC_SLEEP))
		return fail(ack, kENOMEM, "out of memory for a counter");
	return 0;
}

void counter_fini(Counter &c)
{
	c.cpu.fini();
}

void counter_reset(Counter &c, uint64_t packets, uint64_t bytes)
{
	/* modular: base + per-CPU sums - what was read */
	c.base_packets -= packets;
	c.base_bytes -= bytes;
}

void counter_read(const Counter &c, uint64_t &packets, uint64_t &bytes)
{
	packets = c.base_packets;
	bytes = c.base_bytes;
	for (unsigned cpu = 0; cpu < xb_percpu_nr_ids(); cpu++) {
		const CounterCpu *pc = c.cpu.cpu(cpu);
		if (!pc)
			continue;
		packets += load_once(pc->packets);
		bytes += load_once(pc->bytes);
	}
}

} // namespace xb::nft
