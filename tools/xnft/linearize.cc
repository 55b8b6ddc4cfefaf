// linearize.cc - rule statements to libnftnl expressions (see linearize.h).
#include "linearize.h"
#include "not_found.h"

#include <algorithm>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>


#include "protocols.h"
#include "raw_payload.h"
#include "set_userdata.h"

namespace xnft {

// nft numbers registers in 32-bit units internally and converts to the old
// 128-bit numbering when the register is aligned (netlink_put_register).
static uint32_t nft_reg(unsigned internal)
{
	unsigned r = internal - 1;
	if (r % 4 == 0)
		return NFT_REG_1 + r / 4;
	return NFT_REG32_00 + r;
}

struct Linearizer::Load {
	KeyPart part{};
	unsigned shift = 0;
	Bytes mask;          // non-empty for bit fields
	std::string proto, field;
	bool is_meta = false, is_ct = false, is_payload = false;
	// ct proto-src/proto-dst with no transport protocol matched before
	// it: nft has no type for it (ct_expr_update_type), so no value parses
	bool untyped = false;
	uint32_t key = 0;
};

KeyPart keypart_of_type(const DataType &t, const Location &loc)
{
	if (t.id == TYPE_VERDICT || t.bits == 0)
		throw LangError(loc, std::string("invalid key type ") + t.name);
	return KeyPart{&t, t.bits, t.order, (t.bits + 7) / 8};
}

// ---- byte helpers ----

static uint64_t bytes_to_u64_be(const Bytes &b)
{
	uint64_t v = 0;
	for (uint8_t x : b)
		v = (v << 8) | x;
	return v;
}

static Bytes u64_to_bytes_be(uint64_t v, unsigned n)
{
	Bytes b(n);
	for (unsigned i = 0; i < n; i++)
		b[n - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
	return b;
}

// BITS ones shifted left by SHIFT in N big-endian bytes: a bit field's
// mask, which a raw payload's may make wider than 64 bits.
static Bytes bit_field_mask(unsigned bits, unsigned shift, unsigned n)
{
	Bytes b(n);
	for (unsigned i = shift; i < shift + bits && i < n * 8; i++)
		b[n - 1 - i / 8] |= static_cast<uint8_t>(1u << (i % 8));
	return b;
}

static bool increment(Bytes &b)  // big-endian +1; false on overflow
{
	for (size_t i = b.size(); i-- > 0;) {
		if (++b[i] != 0)
			return true;
	}
	return false;
}

static bool all_zero(const Bytes &b)
{
	return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

// Encodes V as the part; bit fields shifted into place.
static Bytes encode_part(const KeyPart &p, const Expr &v, int shift_override = -1)
{
	unsigned shift = shift_override >= 0 ? static_cast<unsigned>(shift_override) : p.shift;
	if (shift == 0 && p.bits % 8 == 0)
		return encode_value(*p.type, p.bits, p.order, v);
	Bytes b = encode_value(*p.type, p.bits, ByteOrder::Big, v);
	// shifted bit by bit: a raw payload's field may be wider than 64 bits
	Bytes out(p.bytes);
	for (unsigned i = 0; i < b.size() * 8; i++)
		if (b[b.size() - 1 - i / 8] & (1u << (i % 8)) && i + shift < p.bytes * 8)
			out[p.bytes - 1 - (i + shift) / 8] |= static_cast<uint8_t>(1u << ((i + shift) % 8));
	return out;
}

// A value of P: a word, or values joined by operators, folded as nft's
// constant folding does (`1 | 2` is 3, `0xff & 0xf` 0xf): OR of flag values
// (a list or a | b) for bitmask types. nft 1.0.6 fails an assertion on a
// shifted value (`1 << 2`): refused.
static Bytes flags_value(const KeyPart &p, const Expr &e, unsigned shift)
{
	if (e.kind == ExprKind::List || (e.kind == ExprKind::Binop && e.text == "|")) {
		Bytes acc;
		for (auto &i : e.items) {
			Bytes b = flags_value(p, *i, shift);
			if (acc.empty())
				acc = b;
			else
				for (size_t k = 0; k < acc.size(); k++)
					acc[k] |= b[k];
		}
		return acc;
	}
	if (e.kind == ExprKind::Binop && (e.text == "&" || e.text == "^")) {
		Bytes acc = flags_value(p, *e.items[0], shift);
		const Bytes b = flags_value(p, *e.items[1], shift);
		for (size_t k = 0; k < acc.size() && k < b.size(); k++)
			acc[k] = e.text == "&" ? acc[k] & b[k] : acc[k] ^ b[k];
		return acc;
	}
	if (e.kind == ExprKind::Binop)
		throw LangError(e.loc, "xnft: a shifted value is not supported "
				       "(nft 1.0.6 fails an assertion on it)");
	return encode_part(p, e, shift);
}

struct Interval {
	Bytes lo, hi;
	bool range = false;
	bool prefix = false;  // written as a/len (nft's error names it so)
	bool inverted = false;  // an hour range past midnight, turned round
};

static Bytes reversed(Bytes b)
{
	std::reverse(b.begin(), b.end());
	return b;
}

static Bytes prefix_mask(unsigned bytes, unsigned len)
{
	Bytes m(bytes, 0);
	for (unsigned i = 0; i < len && i < bytes * 8; i++)
		m[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
	return m;
}

static Interval encode_interval(const KeyPart &p, const Expr &e)
{
	Interval iv;
	if (e.kind == ExprKind::Range) {
		iv.lo = encode_part(p, *e.items[0]);
		iv.hi = encode_part(p, *e.items[1]);
		iv.range = true;
		// compared as numbers: a host-order value's bytes reversed
		Bytes lo = iv.lo, hi = iv.hi;
		if (p.order == ByteOrder::Host) {
			std::reverse(lo.begin(), lo.end());
			std::reverse(hi.begin(), hi.end());
		}
		if (std::lexicographical_compare(hi.begin(), hi.end(), lo.begin(), lo.end())) {
			// nft matches "23:00"-"01:00" as != "01:00"-"23:00"
			if (p.type->id != TYPE_TIME_HOUR)
				throw LangError(e.loc, "Range has zero or negative size");
			std::swap(iv.lo, iv.hi);
			iv.inverted = true;
		}
		return iv;
	}
	if (e.kind == ExprKind::Prefix) {
		Bytes base = encode_part(p, *e.items[0]);
		unsigned len;
		try {
			len = static_cast<unsigned>(std::stoul(e.items[1]->text));
		} catch (const std::logic_error &) {
			throw LangError(e.items[1]->loc, "invalid prefix length");
		}
		// expr_evaluate_prefix: against the field's width (a bit field's too)
		if (len > p.bits)
			throw LangError(e.loc, "Prefix length " + std::to_string(len) +
					" is invalid for type of " + std::to_string(p.bits) + " bits width");
		Bytes m = prefix_mask(static_cast<unsigned>(base.size()), len);
		if (p.order == ByteOrder::Host)
			m = reversed(m);	// the value's leading bits: `meta mark 0x10000/16`
		iv.lo = base;
		iv.hi = base;
		for (size_t i = 0; i < base.size(); i++) {
			iv.lo[i] &= m[i];
			iv.hi[i] |= static_cast<uint8_t>(~m[i]);
		}
		iv.range = true;
		iv.prefix = true;
		return iv;
	}
	if (e.kind == ExprKind::Binop) {
		// one element of several flags: `{ syn, syn | ack }`; values
		// with operators folded (`{ 1 | 2 }`)
		iv.lo = iv.hi = flags_value(p, e, p.shift);
		return iv;
	}
	if (e.kind != ExprKind::Value)
		throw LangError(e.loc, "syntax error, unexpected expression, expecting value");
	Bytes out;
	if (try_encode(*p.type, p.bits, p.order, e.text, e.quoted, out)) {
		if (p.shift || p.bits % 8)
			out = encode_part(p, e);
		iv.lo = iv.hi = out;
		return iv;
	}
	// the type's own parse: a host name resolved, or its error
	iv.lo = iv.hi = encode_part(p, e);
	return iv;
}

bool is_interval_value(const KeyPart &p, const Expr &e)
{
	return encode_interval(p, e).range;
}

// ---- set elements ----

// nft's __expr_evaluate_set_elem: an element's statements are the set's,
// as many and of the same kinds in the same order; a set declaring none
// takes them only when it is dynamic (declared so: nft evaluates a set
// before the rules that make it dynamic). The errors point at the key for
// a count, at the element's statement otherwise. nft 1.0.6 checks named
// sets and maps and anonymous maps (`vmap { ... }`, `map { ... }`), not a
// rule's anonymous sets.
static void check_elem_stmts(const SetInfo &si, const Expr &k)
{
	if (k.elem_stmts.empty())
		return;
	const bool map = si.is_map || si.objtype;
	if ((si.flags & NFT_SET_ANONYMOUS) && !map)
		return;
	const char *what = map ? "map" : "set";
	if (si.stmts.empty()) {
		if (!(si.flags & NFT_SET_EVAL))
			throw LangError(k.elem_stmts[0].loc, std::string("missing statement in ") + what +
					" declaration");
		return;
	}
	if (k.elem_stmts.size() != si.stmts.size())
		throw LangError(k.loc, "number of statements mismatch, set expects " +
				std::to_string(si.stmts.size()) + " but element has " +
				std::to_string(k.elem_stmts.size()));
	for (size_t i = 0; i < k.elem_stmts.size(); i++)
		if (stateful_name(k.elem_stmts[i]) != si.stmts[i])
			throw LangError(k.elem_stmts[i].loc, std::string("statement mismatch, element expects ") +
					stateful_name(k.elem_stmts[i]) + ", but " + what + " has type " +
					si.stmts[i]);
}

std::vector<Element> type_elements(SetInfo &si, const Expr &lit, bool allow_interval_flag,
				   const TableInfo &table, bool deleting)
{
	struct Raw {
		Interval iv;
		Element el;
		const Expr *loc;
	};
	std::vector<Raw> raw;
	bool any_range = false;
	for (size_t i = 0; i < lit.items.size(); i++) {
		const Expr &k = *lit.items[i];
		const Expr *d = lit.data[i].get();
		Raw r;
		r.loc = &k;
		check_elem_stmts(si, k);
		for (const Stmt &st : k.elem_stmts)
			r.el.stmts.push_back(&st);
		r.el.timeout_ms = k.elem_timeout_ms;
		r.el.expiration_ms = k.elem_expires_ms;
		r.el.comment = k.elem_comment;
		r.el.loc = si.is_map ? k.elem_loc : k.loc;
		if (si.key.size() > 1) {
			if (k.kind != ExprKind::Concat || k.items.size() != si.key.size())
				throw LangError(k.loc, "datatype mismatch, expected concatenation of " +
						std::to_string(si.key.size()) + " values");
			// Each field padded to 4 bytes, as in the registers.
			for (size_t j = 0; j < si.key.size(); j++) {
				Interval p = encode_interval(si.key[j], *k.items[j]);
				const size_t pad = (p.lo.size() + 3) / 4 * 4;
				p.lo.resize(pad, 0);
				p.hi.resize(pad, 0);
				r.iv.lo.insert(r.iv.lo.end(), p.lo.begin(), p.lo.end());
				r.iv.hi.insert(r.iv.hi.end(), p.hi.begin(), p.hi.end());
				if (p.range && !(si.flags & NFT_SET_INTERVAL) && !allow_interval_flag)
					throw LangError(k.items[j]->loc, std::string("You must add 'flags interval' to your "
							"set declaration if you want to add ") +
							(p.prefix ? "prefix" : "range") + " elements");
				r.iv.range |= p.range;
			}
			any_range |= r.iv.range;
		} else {
			if (k.kind == ExprKind::Concat)
				throw LangError(k.loc, "datatype mismatch, set key is not a concatenation");
			r.iv = encode_interval(si.key[0], k);
			if (r.iv.range && !(si.flags & NFT_SET_INTERVAL) && !allow_interval_flag)
				throw LangError(k.loc, std::string("You must add 'flags interval' to your ") +
						(si.is_map || si.objtype ? "map" : "set") +
						" declaration if you want to add " +
						(r.iv.prefix ? "prefix" : "range") + " elements");
			any_range |= r.iv.range;
		}
		if (si.objtype) {
			// an object map names an object of its type, which the
			// kernel looks up (ENOENT at the element's key)
			// (nft sends an element without one, EINVAL, and any
			// word as a name: `accept` is ENOENT too)
			if (!d && !deleting)
				throw LangError(k.loc, "Could not process rule: Invalid argument");
			if (d)
				r.el.objref = d->text;
			auto &names = const_cast<TableInfo &>(table).objects(si.objtype);
			if (d && !deleting && !names.count(d->text))
				throw LangError(k.loc, "Could not process rule: No such file or directory");
		} else if (si.is_map) {
			if (!d)
				throw LangError(k.loc, "syntax error, map element needs a value");
			r.el.has_data = true;
			if (si.verdict_map) {
				if (d->kind != ExprKind::Verdict)
					throw LangError(d->loc, "datatype mismatch, expected verdict, expression has type " +
							std::string(d->kind == ExprKind::Value ? "integer" : "expression"));
				r.el.verdict = d->text;
				r.el.chain = d->chain;
				if (!d->chain.empty() && !table.chains.count(d->chain))
					throw LangError(d->loc, "Could not process rule: No such file or directory");
			} else {
				if (d->kind == ExprKind::Verdict)
					throw LangError(d->loc, std::string("datatype mismatch, expected ") +
							si.data.type->name + ", expression has type verdict");
				r.el.data = encode_part(si.data, *d);
			}
		} else if (d) {
			throw LangError(d->loc, "syntax error, set elements take no value (this is not a map)");
		}
		raw.push_back(std::move(r));
	}
	if (any_range && !(si.flags & NFT_SET_INTERVAL)) {
		if (!allow_interval_flag)
			throw LangError(lit.loc, "Set member cannot be range, missing interval flag on declaration");
		si.flags |= NFT_SET_INTERVAL;
	}
	std::vector<Element> out;
	// A single host-order field goes big-endian in an interval set too
	// (nft converts it, and a byteorder hton the packet's value), so that
	// the set orders it as a number.
	if (si.key.size() == 1 && (si.flags & NFT_SET_INTERVAL) && si.key[0].order == ByteOrder::Host &&
	    si.key[0].bytes > 1)
		for (auto &r : raw) {
			std::reverse(r.iv.lo.begin(), r.iv.lo.end());
			std::reverse(r.iv.hi.begin(), r.iv.hi.end());
		}
	if (si.key.size() > 1 && (si.flags & NFT_SET_INTERVAL)) {
		// nft_set_pipapo's form: one element per entry, as written.
		// Host-order fields go big-endian (nft converts them, and the
		// rule's byteorder does the same to the packet's value), so
		// that pipapo's byte-wise ranges order them as numbers.
		si.flags |= NFT_SET_CONCAT;
		for (auto &r : raw) {
			size_t at = 0;
			for (const KeyPart &p : si.key) {
				if (p.order == ByteOrder::Host && p.bytes > 1 && at + p.bytes <= r.iv.lo.size()) {
					std::reverse(r.iv.lo.begin() + long(at), r.iv.lo.begin() + long(at + p.bytes));
					std::reverse(r.iv.hi.begin() + long(at), r.iv.hi.begin() + long(at + p.bytes));
				}
				at += (p.bytes + 3) / 4 * 4;
			}
			r.el.key = r.iv.lo;
			r.el.key_end = r.iv.hi;
			out.push_back(r.el);
		}
		return out;
	}
	if (!(si.flags & NFT_SET_INTERVAL)) {
		for (auto &r : raw) {
			r.el.key = r.iv.lo;
			out.push_back(r.el);
		}
		return out;
	}
	std::stable_sort(raw.begin(), raw.end(), [](const Raw &a, const Raw &b) {
		return a.iv.lo < b.iv.lo;
	});
	if (allow_interval_flag && !si.is_map && !si.objtype) {
		// anonymous sets merge overlapping and adjacent ranges (nft's automerge)
		std::vector<Raw> merged;
		for (auto &r : raw) {
			if (!merged.empty()) {
				Bytes next = merged.back().iv.hi;
				bool ok = increment(next);
				if (!ok || !(next < r.iv.lo)) {
					if (merged.back().iv.hi < r.iv.hi)
						merged.back().iv.hi = r.iv.hi;
					continue;
				}
			}
			merged.push_back(std::move(r));
		}
		raw = std::move(merged);
	}
	for (size_t i = 1; i < raw.size(); i++)
		if (!(raw[i - 1].iv.hi < raw[i].iv.lo))
			throw LangError(raw[i].loc->loc, "conflicting intervals specified", raw[i - 1].loc->loc);
	if (!raw.empty() && !all_zero(raw[0].iv.lo)) {
		Element z;
		z.key = Bytes(raw[0].iv.lo.size(), 0);
		z.flags = NFT_SET_ELEM_INTERVAL_END;
		out.push_back(z);
	}
	for (size_t i = 0; i < raw.size(); i++) {
		Element s = raw[i].el;
		s.key = raw[i].iv.lo;
		out.push_back(s);
		Bytes end = raw[i].iv.hi;
		if (!increment(end)) {
			out.back().interval_open = true;
			continue;
		}
		// an end where the next range starts: an anonymous set's
		// is left out, a named set's sent too (nft 1.0.6)
		if (allow_interval_flag && i + 1 < raw.size() && raw[i + 1].iv.lo == end)
			continue;
		Element e;
		e.key = end;
		e.flags = NFT_SET_ELEM_INTERVAL_END;
		out.push_back(e);
	}
	return out;
}

// nft_add_set_elem's checks of a new element's timeout and expiration.
static void check_element_timeouts(const SetInfo &si, const Element &e)
{
	if (!e.timeout_ms && !e.expiration_ms)
		return;
	if (!(si.flags & NFT_SET_TIMEOUT))
		throw LangError(e.loc, "Could not process rule: Invalid argument");
	if (e.timeout_ms >= kMaxTimeoutMs)
		throw LangError(e.loc, "Could not process rule: Numerical result out of range");
	const uint64_t timeout = e.timeout_ms ? e.timeout_ms : si.timeout_ms;
	if (!e.expiration_ms)
		return;
	if (!timeout)
		throw LangError(e.loc, "Could not process rule: Operation not supported");
	if (e.expiration_ms >= kMaxTimeoutMs || e.expiration_ms > timeout)
		throw LangError(e.loc, "Could not process rule: Numerical result out of range");
}

void check_new_elements(const SetInfo &si, const std::vector<Element> &elems)
{
	for (const Element &e : elems) {
		check_element_timeouts(si, e);
		// its statements as nft_set_elem_expr_alloc takes them: at most
		// NFT_SET_EXPR_MAX, none that collects garbage (ct count) in a
		// set with timeouts, each as the kernel's init of it takes it
		for (size_t i = 0; i < e.stmts.size(); i++) {
			if (i == 2)
				throw LangError(e.loc, "Could not process rule: Argument list too long");
			const std::string err = stateful_kernel_error(*e.stmts[i]);
			if (!err.empty())
				throw LangError(e.loc, "Could not process rule: " + err);
			if (e.stmts[i]->kind == StmtKind::Connlimit && (si.flags & NFT_SET_TIMEOUT))
				throw LangError(e.loc, "Could not process rule: Operation not supported");
		}
	}
}

static uint32_t verdict_code(const std::string &v)
{
	if (v == "accept") return NF_ACCEPT;
	if (v == "drop") return NF_DROP;
	if (v == "continue") return static_cast<uint32_t>(NFT_CONTINUE);
	if (v == "return") return static_cast<uint32_t>(NFT_RETURN);
	if (v == "jump") return static_cast<uint32_t>(NFT_JUMP);
	return static_cast<uint32_t>(NFT_GOTO);
}

void add_elements(nftnl_set *s, const std::vector<Element> &elems)
{
	for (auto &e : elems) {
		nftnl_set_elem *se = nftnl_set_elem_alloc();
		nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY, e.key.data(), static_cast<uint32_t>(e.key.size()));
		if (!e.key_end.empty())
			nftnl_set_elem_set(se, NFTNL_SET_ELEM_KEY_END, e.key_end.data(),
					   static_cast<uint32_t>(e.key_end.size()));
		if (e.flags)
			nftnl_set_elem_set_u32(se, NFTNL_SET_ELEM_FLAGS, e.flags);
		if (e.has_data) {
			if (!e.verdict.empty()) {
				nftnl_set_elem_set_u32(se, NFTNL_SET_ELEM_VERDICT, verdict_code(e.verdict));
				if (!e.chain.empty())
					nftnl_set_elem_set_str(se, NFTNL_SET_ELEM_CHAIN, e.chain.c_str());
			} else {
				nftnl_set_elem_set(se, NFTNL_SET_ELEM_DATA, e.data.data(),
						   static_cast<uint32_t>(e.data.size()));
			}
		}
		if (!e.objref.empty())
			nftnl_set_elem_set_str(se, NFTNL_SET_ELEM_OBJREF, e.objref.c_str());
		if (e.timeout_ms)
			nftnl_set_elem_set_u64(se, NFTNL_SET_ELEM_TIMEOUT, e.timeout_ms);
		if (e.expiration_ms)
			nftnl_set_elem_set_u64(se, NFTNL_SET_ELEM_EXPIRATION, e.expiration_ms);
		// nft's alloc_nftnl_setelem: one as NFTA_SET_ELEM_EXPR, more in
		// NFTA_SET_ELEM_EXPRESSIONS (libnftnl picks by their number)
		for (const Stmt *st : e.stmts)
			nftnl_set_elem_add_expr(se, anonymous_stateful_expr(*st));
		const Bytes ud = build_elem_userdata(e.comment, e.interval_open);
		if (!ud.empty())
			nftnl_set_elem_set(se, NFTNL_SET_ELEM_USERDATA, ud.data(), static_cast<uint32_t>(ud.size()));
		nftnl_set_elem_add(s, se);
	}
}

uint32_t interval_desc_size(const std::vector<Element> &elems)
{
	uint32_t n = 0;
	for (size_t i = 0; i < elems.size(); i++) {
		if (!elems[i].key_end.empty())
			n += 1;
		else if (elems[i].flags & NFT_SET_ELEM_INTERVAL_END)
			n += i == 0 ? 1 : 0;
		else
			n += 2;
	}
	return n;
}

void set_concat_desc(nftnl_set *s, const SetInfo &si)
{
	if (si.key.size() < 2 || !(si.flags & NFT_SET_INTERVAL))
		return;
	uint8_t field_len[NFT_REG32_COUNT] = {};
	for (size_t i = 0; i < si.key.size() && i < NFT_REG32_COUNT; i++)
		field_len[i] = static_cast<uint8_t>(si.key[i].bytes);
	nftnl_set_set_data(s, NFTNL_SET_DESC_CONCAT, field_len,
			   static_cast<uint32_t>(std::min<size_t>(si.key.size(), NFT_REG32_COUNT)));
}

// ---- expression emission ----

static nftnl_expr *new_expr(const char *name)
{
	nftnl_expr *e = nftnl_expr_alloc(name);
	if (!e)
		throw std::bad_alloc();
	return e;
}

void Linearizer::emit_cmp(unsigned reg, uint32_t op, const Bytes &data)
{
	// nft_cmp_init takes at most a register's 16 bytes (a raw payload
	// may load more): the kernel's EOVERFLOW, at the statement
	if (data.size() > 16)
		throw LangError(stmt_loc_, "Could not process rule: Value too large for defined data type");
	nftnl_expr *e = new_expr("cmp");
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data.data(), static_cast<uint32_t>(data.size()));
	nftnl_rule_add_expr(rule_, e);
}

void Linearizer::emit_bitwise(unsigned reg, const Bytes &mask, const Bytes &x)
{
	nftnl_expr *e = new_expr("bitwise");
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_OP, NFT_BITWISE_BOOL);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, static_cast<uint32_t>(mask.size()));
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_MASK, mask.data(), static_cast<uint32_t>(mask.size()));
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_XOR, x.data(), static_cast<uint32_t>(x.size()));
	nftnl_rule_add_expr(rule_, e);
}

void Linearizer::emit_rshift(unsigned reg, unsigned bytes, unsigned shift)
{
	emit_shift(reg, bytes, NFT_BITWISE_RSHIFT, shift);
}

void Linearizer::emit_shift(unsigned reg, unsigned bytes, uint32_t op, unsigned shift)
{
	nftnl_expr *e = new_expr("bitwise");
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_SREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_DREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_OP, op);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BITWISE_LEN, bytes);
	const uint32_t amount = shift;
	nftnl_expr_set(e, NFTNL_EXPR_BITWISE_DATA, &amount, sizeof(amount));
	nftnl_rule_add_expr(rule_, e);
}

// nft shifts in host byte order: a network-order field is turned first.
void Linearizer::emit_ntoh(unsigned reg, unsigned bytes)
{
	nftnl_expr *e = new_expr("byteorder");
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_NTOH);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, bytes);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, bytes);
	nftnl_rule_add_expr(rule_, e);
}

// A key's type as nft's messages give it: "IPv4 address", or
// "concatenation of (IPv4 address, internet network service)".
static std::string type_text(const std::vector<KeyPart> &key)
{
	if (key.size() == 1)
		return key[0].type->desc;
	std::string t;
	for (const KeyPart &p : key)
		t += (t.empty() ? "" : ", ") + std::string(p.type->desc);
	return "concatenation of (" + t + ")";
}

void Linearizer::emit_meta_load(uint32_t key, unsigned reg)
{
	nftnl_expr *e = new_expr("meta");
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_DREG, nft_reg(reg));
	nftnl_rule_add_expr(rule_, e);
}

void Linearizer::emit_payload_load(uint32_t base, unsigned off, unsigned len, unsigned reg)
{
	nftnl_expr *e = new_expr("payload");
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, len);
	nftnl_rule_add_expr(rule_, e);
}

void Linearizer::emit_immediate_data(unsigned reg, const Bytes &d)
{
	nftnl_expr *e = new_expr("immediate");
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, nft_reg(reg));
	nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, d.data(), static_cast<uint32_t>(d.size()));
	nftnl_rule_add_expr(rule_, e);
}

void Linearizer::emit_verdict(const std::string &v, const std::string &chain, const Location &loc)
{
	if (!chain.empty() && !table_.chains.count(chain))
		throw LangError(loc, "Could not process rule: No such file or directory");
	nftnl_expr *e = new_expr("immediate");
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, verdict_code(v));
	if (!chain.empty())
		nftnl_expr_set_str(e, NFTNL_EXPR_IMM_CHAIN, chain.c_str());
	nftnl_rule_add_expr(rule_, e);
}

// nft compares host-order values in network order for ranges and < >
// (a byteorder hton first).
void Linearizer::emit_hton(unsigned reg, const KeyPart &p)
{
	nftnl_expr *e = new_expr("byteorder");
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, nft_reg(reg));
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, p.bytes);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, p.bytes);
	nftnl_rule_add_expr(rule_, e);
}

size_t Linearizer::expr_count() const
{
	size_t n = 0;
	nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
	for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
		n++;
	nftnl_expr_iter_destroy(it);
	return n;
}

// A concatenated interval set holds host-order fields big-endian: as nft
// does, each such field's load (ending at expression LOAD_END[i]) is
// followed by a byteorder hton of its register. The expressions after the
// first such load are taken off the rule and put back with them.
void Linearizer::hton_host_parts(const std::vector<KeyPart> &parts, const std::vector<size_t> &load_end)
{
	size_t first = 0;
	bool any = false;
	for (size_t i = 0; i < parts.size() && !any; i++)
		if (parts[i].order == ByteOrder::Host && parts[i].bytes > 1) {
			first = load_end[i];
			any = true;
		}
	if (!any)
		return;
	std::vector<nftnl_expr *> tail;
	size_t n = 0;
	nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
	for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
		if (n++ >= first)
			tail.push_back(x);
	nftnl_expr_iter_destroy(it);
	for (nftnl_expr *x : tail)
		nftnl_rule_del_expr(x);
	unsigned reg = 1;
	size_t at = first;  // index of tail[0] in the rule
	size_t k = 0;
	for (size_t i = 0; i < parts.size(); i++) {
		for (; k < tail.size() && at + k < load_end[i]; k++)
			nftnl_rule_add_expr(rule_, tail[k]);
		if (load_end[i] >= first && parts[i].order == ByteOrder::Host && parts[i].bytes > 1)
			emit_hton(reg, parts[i]);
		reg += (parts[i].bytes + 3) / 4;
	}
	for (; k < tail.size(); k++)
		nftnl_rule_add_expr(rule_, tail[k]);
}

void Linearizer::emit_dep_eq_payload(uint32_t base, unsigned off, unsigned len, const Bytes &v)
{
	emit_payload_load(base, off, len, 1);
	emit_cmp(1, NFT_CMP_EQ, v);
}

void Linearizer::emit_dep_eq_meta(uint32_t key, const Bytes &v)
{
	emit_meta_load(key, 1);
	emit_cmp(1, NFT_CMP_EQ, v);
}

static Bytes be16(uint16_t v) { return u64_to_bytes_be(v, 2); }

static uint16_t ethertype_of(const std::string &net)
{
	if (net == "ip") return 0x0800;
	if (net == "ip6") return 0x86dd;
	return 0x0806;
}

// Implied dependencies (nftables payload_gen_dependency, bridge family).
void Linearizer::dependency(const Expr &e)
{
	if (e.kind == ExprKind::Hash || e.kind == ExprKind::Concat) {
		// what jhash hashes: each field's
		for (auto &i : e.items)
			dependency(*i);
		return;
	}
	if (e.kind == ExprKind::Exthdr) {
		exthdr_dependency(e);
		return;
	}
	if (e.kind != ExprKind::Payload)
		return;
	const std::string &p = e.proto;
	auto network = [&](const std::string &want, bool via_ether_type) {
		if (net_ == want)
			return;
		if (!net_.empty())
			throw LangError(e.loc, "conflicting protocols specified: " + net_ + " vs. " + want);
		if (link_ == "vlan")
			emit_dep_eq_payload(NFT_PAYLOAD_LL_HEADER, 16, 2, be16(ethertype_of(want)));
		else if (via_ether_type)
			emit_dep_eq_payload(NFT_PAYLOAD_LL_HEADER, 12, 2, be16(ethertype_of(want)));
		else
			emit_dep_eq_meta(NFT_META_PROTOCOL, be16(ethertype_of(want)));
		net_ = want;
		net_loc_ = e.loc;
	};
	auto transport = [&](const std::string &want, uint8_t proto) {
		if (l4_ == want)
			return;
		if (!l4_.empty())
			throw LangError(e.loc, "conflicting protocols specified: " + l4_ + " vs. " + want);
		emit_dep_eq_meta(NFT_META_L4PROTO, Bytes{proto});
		l4_ = want;
		l4_loc_ = e.loc;
	};
	if (p == "ether") {
		return;
	} else if (p == "vlan") {
		if (link_ != "vlan") {
			/* the ether type is already known to be another protocol */
			if (!net_.empty())
				throw LangError(e.loc, "conflicting protocols specified: ether vs. vlan");
			emit_dep_eq_payload(NFT_PAYLOAD_LL_HEADER, 12, 2, be16(0x8100));
			link_ = "vlan";
		}
	} else if (p == "ip" || p == "ip6") {
		network(p, false);
	} else if (p == "arp") {
		network(p, true);	// nft tests arp's ether type, not meta protocol
	} else if (p == "tcp") {
		transport("tcp", 6);
	} else if (p == "udp") {
		transport("udp", 17);
	} else if (const int number = other_transport_number(p); number >= 0) {
		transport(p, uint8_t(number));
	} else if (p == "icmp") {
		if (l4_ != "icmp") {
			network("ip", true);
			transport("icmp", 1);
		}
		icmp_dependency(e);
	} else if (p == "icmpv6") {
		if (l4_ != "icmpv6") {
			network("ip6", true);
			transport("icmpv6", 58);
		}
		icmp_dependency(e);
	}
}

// nft's ICMP type dependency (payload_gen_icmp_dependency): a field that
// means something in some types only is read after a match on the type,
// unless the rule matched a type it allows already: `icmp id` after
// `icmp type { echo-reply, echo-request }`, `icmp mtu` after `icmp type
// destination-unreachable`. A type the field does not allow is refused.
void Linearizer::icmp_dependency(const Expr &e)
{
	const int dep = icmp_field_dep(e.proto, e.text);
	if (dep < 0)
		return;
	if (icmp_type_ >= 0) {
		if (!icmp_dep_allows(dep, icmp_type_))
			throw LangError(e.loc, "incompatible icmp match: rule has " + std::to_string(icmp_type_) +
					", need " + std::to_string(dep));
		return;
	}
	icmp_type_ = dep;
	if (dep != kIcmpDepEcho && dep != kIcmp6DepEcho) {
		emit_dep_eq_payload(NFT_PAYLOAD_TRANSPORT_HEADER, 0, 1, Bytes{static_cast<uint8_t>(dep)});
		return;
	}
	auto type = make_expr(ExprKind::Payload, e.loc);
	type->proto = e.proto;
	type->text = "type";
	auto set = make_expr(ExprKind::SetLit, e.loc);
	for (const char *v : {"echo-request", "echo-reply"}) {
		auto x = make_expr(ExprKind::Value, e.loc);
		x->text = v;
		set->items.push_back(std::move(x));
		set->data.push_back(nullptr);
	}
	lookup(*type, *set, 0, false, nullptr, false, 0);
}

// nft's exthdr dependency (evaluate.c expr_evaluate_exthdr): none for a
// TCP option or an SCTP chunk (the kernel checks the protocol itself); an
// IP option or IPv6 header needs that network protocol,
// refused after another; without one yet, the link layer's type (the
// ether type, a vlan's type after a vlan match) is matched first in the
// rule, where it may merge with a link-layer match there.
void Linearizer::exthdr_dependency(const Expr &e)
{
	if (e.exthdr_op == NFT_EXTHDR_OP_TCPOPT || e.exthdr_op == NFT_EXTHDR_OP_SCTP)
		return;
	const std::string want = e.exthdr_op == NFT_EXTHDR_OP_IPV4 ? "ip" : "ip6";
	if (net_ == want)
		return;
	if (!net_.empty())
		throw LangError(e.loc, "cannot use exthdr with " + net_);
	const unsigned at = link_ == "vlan" ? 16 : 12;
	prepend([&] { emit_dep_eq_payload(NFT_PAYLOAD_LL_HEADER, at, 2, be16(ethertype_of(want))); });
	net_ = want;
	merge_first_payloads();
}

KeyPart keypart_of_expr(const Expr &e)
{
	// matched against a value or a set, or a set statement's value
	// (foreign.h), not loaded
	if (e.kind == ExprKind::Foreign)
		throw LangError(e.loc, "xnft: " + e.text + " expressions are matched against values or sets only");
	if (e.kind == ExprKind::Payload) {
		const PayloadField *f = find_payload(e.proto, e.text);
		if (!f)
			throw LangError(e.loc, "syntax error, unexpected " + e.text +
					", unknown " + e.proto + " header field");
		const unsigned bit_off = f->offset % 8;
		const unsigned len = (bit_off + f->bits + 7) / 8;
		KeyPart p{&datatype(f->type), f->bits, ByteOrder::Big, len};
		if (bit_off || f->bits % 8)
			p.shift = len * 8 - bit_off - f->bits;
		return p;
	}
	if (e.kind == ExprKind::Meta) {
		const MetaKey *m = find_meta(e.text);
		if (!m)
			throw LangError(e.loc, "syntax error, unexpected " + e.text + ", unknown meta key");
		return KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8};
	}
	if (e.kind == ExprKind::Ct) {
		const CtKey *k = find_ct(e.text, e.chain);
		if (!k)
			throw LangError(e.loc, "syntax error, unexpected " + e.text + ", unknown ct key");
		if (!e.chain.empty() && e.proto.empty())
			throw LangError(e.loc, "ct " + e.chain + " " + e.text + " needs a direction (original or reply)");
		return KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8};
	}
	if (e.kind == ExprKind::Numgen || e.kind == ExprKind::Hash)
		return KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
	if (e.kind == ExprKind::RawPayload)
		return raw_payload_part(e);
	if (e.kind == ExprKind::Exthdr) {
		// a presence is a boolean in one byte; a field is typed by its
		// template (an integer when none matches), placed as a header field
		if (e.exthdr_present)
			return KeyPart{&datatype(TYPE_BOOLEAN), 8, ByteOrder::Big, 1};
		const ExthdrField *f = exthdr_at(e.exthdr_op, e.exthdr_type, e.exthdr_offset, e.exthdr_bits);
		const unsigned bit_off = e.exthdr_offset % 8;
		const unsigned len = (bit_off + e.exthdr_bits + 7) / 8;
		if (e.exthdr_bits == 0 || len > 16)
			throw LangError(e.loc, "syntax error, invalid option length");
		KeyPart p{&datatype(f ? f->type_id : TYPE_INTEGER), e.exthdr_bits, ByteOrder::Big, len};
		if (bit_off || e.exthdr_bits % 8)
			p.shift = len * 8 - bit_off - e.exthdr_bits;
		return p;
	}
	throw LangError(e.loc, "syntax error, expected a header field, meta or ct expression");
}

// numgen, and jhash/symhash with what jhash hashes loaded first into the
// next 128-bit register (nft's get_register), its fields one after another.
void Linearizer::load_generated(const Expr &e, unsigned reg)
{
	if (e.kind == ExprKind::Numgen) {
		nftnl_expr *x = new_expr("numgen");
		nftnl_expr_set_u32(x, NFTNL_EXPR_NG_DREG, nft_reg(reg));
		nftnl_expr_set_u32(x, NFTNL_EXPR_NG_TYPE, e.text == "inc" ? NFT_NG_INCREMENTAL : NFT_NG_RANDOM);
		nftnl_expr_set_u32(x, NFTNL_EXPR_NG_MODULUS, e.modulus);
		nftnl_expr_set_u32(x, NFTNL_EXPR_NG_OFFSET, e.offset);
		nftnl_rule_add_expr(rule_, x);
		return;
	}
	const unsigned sreg = (reg - 1) / 4 * 4 + 5;
	unsigned len = 0;
	if (!e.items.empty()) {
		const Expr &key = *e.items[0];
		std::vector<const Expr *> parts;
		if (key.kind == ExprKind::Concat)
			for (auto &i : key.items)
				parts.push_back(i.get());
		else
			parts.push_back(&key);
		unsigned at = sreg;
		for (const Expr *p : parts) {
			if (p->kind == ExprKind::Numgen || p->kind == ExprKind::Hash || p->kind == ExprKind::Concat)
				throw LangError(p->loc, "syntax error, jhash hashes header fields, meta or ct keys");
			const Load l = load(*p, at);
			// a concatenation's fields take whole registers each
			len += parts.size() > 1 ? (l.part.bytes + 3) / 4 * 4 : l.part.bytes;
			at += (l.part.bytes + 3) / 4;
		}
	}
	nftnl_expr *x = new_expr("hash");
	if (!e.items.empty()) {
		nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_SREG, nft_reg(sreg));
		nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_LEN, len);
	}
	nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_DREG, nft_reg(reg));
	nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_MODULUS, e.modulus);
	if (e.seed_given)
		nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_SEED, e.seed);
	nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_OFFSET, e.offset);
	nftnl_expr_set_u32(x, NFTNL_EXPR_HASH_TYPE, e.text == "jhash" ? NFT_HASH_JENKINS : NFT_HASH_SYM);
	nftnl_rule_add_expr(rule_, x);
}

Linearizer::Load Linearizer::load(const Expr &e, unsigned reg)
{
	Load l;
	l.part = keypart_of_expr(e);
	l.field = e.text;
	if (e.kind == ExprKind::Numgen || e.kind == ExprKind::Hash) {
		l.field = "";
		load_generated(e, reg);
		return l;
	}
	if (e.kind == ExprKind::Payload) {
		const PayloadField *f = find_payload(e.proto, e.text);
		l.is_payload = true;
		l.proto = e.proto;
		emit_payload_load(f->base, f->offset / 8, l.part.bytes, reg);
		if (l.part.shift || f->bits % 8) {
			l.shift = l.part.shift;
			uint64_t m = ((f->bits >= 64 ? ~0ull : (1ull << f->bits) - 1)) << l.shift;
			l.mask = u64_to_bytes_be(m, l.part.bytes);
			emit_bitwise(reg, l.mask, Bytes(l.part.bytes, 0));
		}
		return l;
	}
	if (e.kind == ExprKind::RawPayload) {
		// a load like a header field's, but of no protocol: it teaches
		// the rule nothing (proto stays empty)
		l.field = "";
		l.is_payload = true;
		// nft_payload_init takes offsets up to 65535 bytes: the
		// kernel's ERANGE, at the load
		if (e.raw_offset / 8 > 0xffff)
			throw LangError(e.loc, "Could not process rule: Numerical result out of range");
		emit_payload_load(e.raw_base, e.raw_offset / 8, l.part.bytes, reg);
		if (l.part.shift || e.raw_bits % 8) {
			l.shift = l.part.shift;
			l.mask = bit_field_mask(e.raw_bits, l.shift, l.part.bytes);
			emit_bitwise(reg, l.mask, Bytes(l.part.bytes, 0));
		}
		return l;
	}
	if (e.kind == ExprKind::Exthdr) {
		nftnl_expr *x = new_expr("exthdr");
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_DREG, nft_reg(reg));
		nftnl_expr_set_u8(x, NFTNL_EXPR_EXTHDR_TYPE, e.exthdr_type);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OFFSET, e.exthdr_offset / 8);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_LEN, l.part.bytes);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_FLAGS, e.exthdr_present ? NFT_EXTHDR_F_PRESENT : 0);
		nftnl_expr_set_u32(x, NFTNL_EXPR_EXTHDR_OP, e.exthdr_op);
		nftnl_rule_add_expr(rule_, x);
		if (l.part.shift || (!e.exthdr_present && e.exthdr_bits % 8)) {
			l.shift = l.part.shift;
			const uint64_t m = ((e.exthdr_bits >= 64 ? ~0ull : (1ull << e.exthdr_bits) - 1)) << l.shift;
			l.mask = u64_to_bytes_be(m, l.part.bytes);
			emit_bitwise(reg, l.mask, Bytes(l.part.bytes, 0));
		}
		return l;
	}
	if (e.kind == ExprKind::Meta) {
		const MetaKey *m = find_meta(e.text);
		// nft: a protocol expression that only tells inet's two apart
		if (m->key == NFT_META_NFPROTO && family_ != NFPROTO_INET)
			throw LangError(e.loc, "meta nfproto is only useful in the inet family");
		l.is_meta = true;
		l.key = m->key;
		emit_meta_load(m->key, reg);
		return l;
	}
	const CtKey *k = find_ct(e.text, e.chain);
	l.is_ct = true;
	l.key = k->key;
	if (k->key == NFT_CT_PROTO_SRC || k->key == NFT_CT_PROTO_DST) {
		// a port of the transport the rule matched: inet_service (`ssh`)
		if (l4_.empty())
			l.untyped = true;
		else
			l.part.type = &datatype(TYPE_INET_SERVICE);
	}
	nftnl_expr *x = new_expr("ct");
	nftnl_expr_set_u32(x, NFTNL_EXPR_CT_KEY, k->key);
	nftnl_expr_set_u32(x, NFTNL_EXPR_CT_DREG, nft_reg(reg));
	if (!e.proto.empty())
		nftnl_expr_set_u8(x, NFTNL_EXPR_CT_DIR, e.proto == "original" ? 0 : 1);
	nftnl_rule_add_expr(rule_, x);
	return l;
}

void Linearizer::learn_context(const Load &l, Op op, const Bytes &v)
{
	if (op != Op::Implicit && op != Op::Eq)
		return;
	auto net_of = [&](uint64_t t) -> std::string {
		if (t == 0x0800) return "ip";
		if (t == 0x86dd) return "ip6";
		if (t == 0x0806) return "arp";
		return "";
	};
	auto l4_of = [&](uint64_t p) -> std::string {
		switch (p) {
		case 6: return "tcp";
		case 17: return "udp";
		case 1: return "icmp";
		case 58: return "icmpv6";
		default: {
			const char *name = other_transport_name(uint8_t(p));
			return name ? name : "other-" + std::to_string(p);
		}
		}
	};
	uint64_t x = bytes_to_u64_be(v);
	// the match statement tells the context (nft: the relational's location)
	if ((l.is_meta && l.key == NFT_META_PROTOCOL) ||
	    (l.is_payload && l.proto == "vlan" && l.field == "type")) {
		net_ = net_of(x);
		net_loc_ = stmt_loc_;
	} else if (l.is_payload && l.proto == "ether" && l.field == "type") {
		if (x == 0x8100) {
			link_ = "vlan";
		} else {
			net_ = net_of(x);
			net_loc_ = stmt_loc_;
		}
	} else if (l.is_payload && (l.proto == "icmp" || l.proto == "icmpv6") && l.field == "type") {
		icmp_type_ = static_cast<int>(x);
	} else if ((l.is_meta && l.key == NFT_META_L4PROTO) ||
		   (l.is_payload && ((l.proto == "ip" && l.field == "protocol") ||
				     (l.proto == "ip6" && l.field == "nexthdr")))) {
		l4_ = l4_of(x);
		l4_loc_ = stmt_loc_;
	}
}

static uint32_t cmp_op(Op op)
{
	switch (op) {
	case Op::Neq: return NFT_CMP_NEQ;
	case Op::Lt: return NFT_CMP_LT;
	case Op::Gt: return NFT_CMP_GT;
	case Op::Lte: return NFT_CMP_LTE;
	case Op::Gte: return NFT_CMP_GTE;
	default: return NFT_CMP_EQ;
	}
}

void Linearizer::match_value(Op op, const Expr &rhs, const Load &l, const Bytes *pre)
{
	if (l.untyped)
		throw LangError(rhs.loc, "Can't parse symbolic invalid expressions");
	const KeyPart &p = l.part;
	// one value compared
	auto single = [&](Bytes v) {
		if (p.type->bitmask && op == Op::Implicit) {
			emit_bitwise(1, v, Bytes(v.size(), 0));
			emit_cmp(1, NFT_CMP_NEQ, Bytes(v.size(), 0));
			return;
		}
		bool ordered = op == Op::Lt || op == Op::Gt || op == Op::Lte || op == Op::Gte;
		if (ordered && p.order == ByteOrder::Host && p.bytes > 1) {
			emit_hton(1, p);
			v = reversed(v);
		}
		emit_cmp(1, cmp_op(op), v);
		learn_context(l, op, v);
	};
	if (pre) {
		single(*pre);
		return;
	}
	if (rhs.kind == ExprKind::Binop && !p.type->bitmask) {
		// values with operators, folded (`meta mark 1 | 2` is 3)
		single(flags_value(p, rhs, l.shift));
		return;
	}
	if (rhs.kind == ExprKind::List || (rhs.kind == ExprKind::Binop && rhs.text == "|")) {
		if (!p.type->bitmask)
			throw LangError(rhs.loc, std::string("List of values is not supported for ") +
					p.type->name + ", use a set: { a, b }");
		Bytes v = flags_value(p, rhs, l.shift);
		if (op == Op::Eq || op == Op::Neq) {
			emit_cmp(1, cmp_op(op), v);
			return;
		}
		emit_bitwise(1, v, Bytes(v.size(), 0));
		emit_cmp(1, NFT_CMP_NEQ, Bytes(v.size(), 0));
		return;
	}
	Interval iv = encode_interval(p, rhs);
	if (!iv.range) {
		single(l.shift ? encode_part(p, rhs, l.shift) : iv.lo);
		return;
	}
	if (op != Op::Implicit && op != Op::Eq && op != Op::Neq)
		throw LangError(rhs.loc, "Relational expression with a range or prefix needs == or !=");
	if (iv.inverted)
		op = op == Op::Neq ? Op::Eq : Op::Neq;
	bool is_prefix = rhs.kind == ExprKind::Prefix ||
			 (rhs.kind == ExprKind::Value && rhs.text.find('/') != std::string::npos);
	if (is_prefix) {
		// the prefix length: leading bits where lo and hi agree (of the
		// value: a host-order type's leading bits are its last bytes)
		const bool host = p.order == ByteOrder::Host && iv.lo.size() > 1;
		const Bytes lo_be = host ? reversed(iv.lo) : iv.lo;
		const Bytes hi_be = host ? reversed(iv.hi) : iv.hi;
		size_t n = iv.lo.size();
		unsigned plen = 0;
		for (size_t i = 0; i < n * 8; i++) {
			uint8_t bit = static_cast<uint8_t>(0x80 >> (i % 8));
			if ((lo_be[i / 8] ^ hi_be[i / 8]) & bit)
				break;
			plen++;
		}
		uint32_t cmp = op == Op::Neq ? NFT_CMP_NEQ : NFT_CMP_EQ;
		if (plen % 8 == 0 && l.is_payload && plen > 0 && l.mask.empty()) {
			// nft shortens the load to the prefix's bytes
			nftnl_expr *last = nullptr;
			nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
			for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
				last = x;
			nftnl_expr_iter_destroy(it);
			if (last)
				nftnl_expr_set_u32(last, NFTNL_EXPR_PAYLOAD_LEN, plen / 8);
			emit_cmp(1, cmp, Bytes(iv.lo.begin(), iv.lo.begin() + plen / 8));
			return;
		}
		if (plen % 8 == 0 && plen > 0 && l.mask.empty() && p.order == ByteOrder::Big) {
			// any other load of a big-endian value (`ct original ip
			// saddr 10.0.0.0/8`; strings are host order): nft compares
			// the prefix's bytes, the load as it is
			// (netlink_gen_relational)
			emit_cmp(1, cmp, Bytes(iv.lo.begin(), iv.lo.begin() + plen / 8));
			return;
		}
		Bytes m = prefix_mask(static_cast<unsigned>(n), plen);
		emit_bitwise(1, host ? reversed(m) : m, Bytes(n, 0));
		emit_cmp(1, cmp, iv.lo);
		return;
	}
	if (p.order == ByteOrder::Host && p.bytes > 1) {
		emit_hton(1, p);
		iv.lo = reversed(iv.lo);
		iv.hi = reversed(iv.hi);
	}
	if (op == Op::Neq) {
		nftnl_expr *e = new_expr("range");
		nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_SREG, nft_reg(1));
		nftnl_expr_set_u32(e, NFTNL_EXPR_RANGE_OP, NFT_RANGE_NEQ);
		nftnl_expr_set(e, NFTNL_EXPR_RANGE_FROM_DATA, iv.lo.data(), static_cast<uint32_t>(iv.lo.size()));
		nftnl_expr_set(e, NFTNL_EXPR_RANGE_TO_DATA, iv.hi.data(), static_cast<uint32_t>(iv.hi.size()));
		nftnl_rule_add_expr(rule_, e);
		return;
	}
	emit_cmp(1, NFT_CMP_GTE, iv.lo);
	emit_cmp(1, NFT_CMP_LTE, iv.hi);
}

// ---- operators on a field ----

struct Linearizer::Chain {
	const Expr *base = nullptr;  // the field
	struct Step {
		std::string op;          // & | ^ << >>
		const Expr *value;       // the right operand
		const Expr *node;        // the operator's Binop
		Bytes operand;           // & | ^: the value, encoded as the part before it
		unsigned amount = 0;     // << >>
	};
	std::vector<Step> steps;
	// parts[i]: what the register holds before steps[i]; parts.back()
	// after the last
	std::vector<KeyPart> parts;
};

// A number nft's scanner reads as a NUM (decimal or 0x hex).
static bool number_value(const Expr &e, uint64_t &v)
{
	if (e.kind != ExprKind::Value || e.quoted || e.text.empty())
		return false;
	const bool hex = e.text.size() > 2 && e.text[0] == '0' && (e.text[1] == 'x' || e.text[1] == 'X');
	for (size_t i = hex ? 2 : 0; i < e.text.size(); i++)
		if (!(hex ? isxdigit(static_cast<unsigned char>(e.text[i])) : isdigit(static_cast<unsigned char>(e.text[i]))))
			return false;
	try {
		v = std::stoull(e.text, nullptr, hex ? 16 : 10);
	} catch (const std::logic_error &) {
		return false;
	}
	return true;
}

static Bytes value_bytes(uint64_t x, unsigned bytes, ByteOrder order)
{
	Bytes b = u64_to_bytes_be(x, bytes);
	return order == ByteOrder::Host ? reversed(b) : b;
}

// The parser builds `a OP b OP c` over one field left-deep: the field and
// its operators in order. nft evaluates each operator on what the left
// side holds: & | ^ keep its type and length; a shift (nft's
// expr_evaluate_shift) makes it a host-order integer as long as the
// longer of it and the statement's target, and refuses shifting that far.
Linearizer::Chain Linearizer::chain_of(const Expr &e, unsigned stmt_bits)
{
	Chain c;
	const Expr *at = &e;
	while (at->kind == ExprKind::Binop) {
		c.steps.insert(c.steps.begin(), Chain::Step{at->text, at->items[1].get(), at, {}, 0});
		at = at->items[0].get();
	}
	c.base = at;
	c.parts.push_back(keypart_of_expr(*at));
	for (Chain::Step &st : c.steps) {
		KeyPart p = c.parts.back();
		if (st.op == "<<" || st.op == ">>") {
			uint64_t n;
			if (!number_value(*st.value, n))
				throw LangError(st.value->loc, "syntax error, unexpected " + st.value->text +
						", expecting number");
			const unsigned width = std::max(stmt_bits, p.bits);
			if (n >= width)
				throw LangError(st.value->loc, std::string(st.op == "<<" ? "Left" : "Right") +
						" shift of " + std::to_string(n) +
						" bits is undefined for type of " + std::to_string(width) +
						" bits width", st.node->items[0]->loc);
			st.amount = static_cast<unsigned>(n);
			p = KeyPart{&datatype(TYPE_INTEGER), width, ByteOrder::Host, (width + 7) / 8};
		} else {
			st.operand = flags_value(p, *st.value, 0);
		}
		c.parts.push_back(p);
	}
	return c;
}

// nft's netlink_gen_binop: the & | ^ in a row as one bitwise (mask, xor),
// each shift on its own, after turning a network-order value to host order.
void Linearizer::emit_chain(const Chain &c, size_t count)
{
	Bytes mask, x;
	bool run = false;
	auto flush = [&] {
		if (run)
			emit_bitwise(1, mask, x);
		run = false;
	};
	for (size_t i = 0; i < count; i++) {
		const Chain::Step &st = c.steps[i];
		const KeyPart &p = c.parts[i];
		if (st.op == "<<" || st.op == ">>") {
			flush();
			// nft sends a shift of 0 as no data: the kernel's EINVAL
			if (!st.amount)
				throw LangError(st.node->loc, "Could not process rule: Invalid argument");
			if (p.order == ByteOrder::Big && p.bytes > 1)
				emit_ntoh(1, p.bytes);
			emit_shift(1, c.parts[i + 1].bytes, st.op == "<<" ? NFT_BITWISE_LSHIFT : NFT_BITWISE_RSHIFT,
				   st.amount);
			continue;
		}
		if (!run) {
			mask.assign(p.bytes, 0xff);
			x.assign(p.bytes, 0);
			run = true;
		}
		for (size_t k = 0; k < p.bytes && k < st.operand.size(); k++) {
			const uint8_t v = st.operand[k];
			if (st.op == "&") {
				mask[k] &= v;
				x[k] &= v;
			} else if (st.op == "|") {
				mask[k] &= static_cast<uint8_t>(~v);
				x[k] |= v;
			} else {
				x[k] ^= v;
			}
		}
	}
	flush();
}

std::function<void(Bytes &)> Linearizer::transfer(Chain &c, Op op, const Expr &rhs, const Expr &lhs)
{
	if ((op != Op::Implicit && op != Op::Eq && op != Op::Neq) || c.steps.empty())
		return {};
	const Chain::Step last = c.steps.back();
	const KeyPart before = c.parts[c.parts.size() - 2], after = c.parts.back();
	if (last.op == "^") {
		c.steps.pop_back();
		c.parts.pop_back();
		const Bytes k = last.operand;
		return [k](Bytes &v) {
			for (size_t i = 0; i < v.size() && i < k.size(); i++)
				v[i] ^= k[i];
		};
	}
	if (last.op == ">>")
		throw LangError(last.node->loc, "xnft: comparing a value shifted right is not supported "
						"(nft 1.0.6 compares it with a value of the wrong length)");
	if (last.op != "<<")
		return {};
	// the value is the shift's integer; the field left of it keeps its type
	if (before.type->id != TYPE_INTEGER)
		throw LangError(rhs.loc, std::string("datatype mismatch, expected ") + before.type->desc +
				", expression has type integer", lhs.loc);
	if (before.order == ByteOrder::Big && before.bytes > 1)
		throw LangError(last.node->loc, "xnft: comparing a network-order field shifted left is not "
						"supported (nft 1.0.6 compares it in the wrong byte order)");
	c.steps.pop_back();
	c.parts.pop_back();
	const unsigned n = last.amount;
	const Location at = rhs.loc, outer = lhs.loc;
	return [n, before, after, at, outer](Bytes &v) {
		const uint64_t x = bytes_value(v, after.order);
		if (x && static_cast<unsigned>(__builtin_ctzll(x)) < n)
			throw LangError(at, "Comparison is always false", outer);
		v = value_bytes(x >> n, before.bytes, before.order);
	};
}

// `FIELD OPS... OP VALUE` for operators other than one `&` (match_masked):
// the operators emitted, nft's transfer of a last ^ or << to the value
// (`meta mark ^ 0x10 == 0x11` compares the mark with 0x01), the compare.
void Linearizer::match_chain(const Expr &lhs, Op op, const Expr &rhs)
{
	Chain c = chain_of(lhs, 0);
	const KeyPart full = c.parts.back();
	// a value, not a range or prefix (nft transfers to values only)
	const bool one_value = rhs.kind == ExprKind::Binop ||
			       (rhs.kind == ExprKind::Value && !encode_interval(full, rhs).range);
	std::function<void(Bytes &)> xf;
	Bytes v;
	if (one_value) {
		xf = transfer(c, op, rhs, lhs);
		if (xf) {
			v = flags_value(full, rhs, 0);
			xf(v);
		}
	} else if (!c.steps.empty() && c.steps.back().op == ">>") {
		transfer(c, Op::Eq, rhs, lhs);  // refused
	}
	dependency(*c.base);
	Load l = load(*c.base, 1);
	if (!l.mask.empty() || l.shift)
		throw LangError(lhs.loc, "xnft: only & is supported on a bit field");
	emit_chain(c, c.steps.size());
	Load cl;
	cl.part = c.parts.back();
	match_value(op, rhs, cl, xf ? &v : nullptr);
}

// `FIELD ! FLAGS` (`not`): nft's OP_NEG, none of the flags set.
void Linearizer::match_neg(const Expr &lhs, const Expr &rhs)
{
	if (lhs.kind == ExprKind::Binop)
		throw LangError(lhs.loc, "cannot combine negation with binary expression", rhs.loc);
	const Expr *v = &rhs;
	if (rhs.kind == ExprKind::SetLit && rhs.items.size() == 1 && !rhs.data[0])
		v = rhs.items[0].get();
	const KeyPart p = keypart_of_expr(lhs);
	if (!p.type->bitmask || v->kind == ExprKind::SetLit || v->kind == ExprKind::SetRef ||
	    v->kind == ExprKind::Range || v->kind == ExprKind::Prefix)
		throw LangError(lhs.loc, "negation can only be used with singleton bitmask values", rhs.loc);
	dependency(lhs);
	Load l = load(lhs, 1);
	if (!l.mask.empty())
		throw LangError(lhs.loc, "xnft: negation is not supported on a bit field");
	const Bytes m = flags_value(l.part, *v, l.shift);
	emit_bitwise(1, m, Bytes(m.size(), 0));
	emit_cmp(1, NFT_CMP_EQ, Bytes(m.size(), 0));
}

// One `&` on a field (not a chain of operators): match_masked's form.
static bool single_and(const Expr &lhs)
{
	return lhs.kind == ExprKind::Binop && lhs.text == "&" && lhs.items[0]->kind != ExprKind::Binop;
}

std::string Linearizer::anonymous_set(SetInfo &si, const Expr &lit)
{
	si.flags |= NFT_SET_ANONYMOUS | NFT_SET_CONSTANT;
	if (si.is_map)
		si.flags |= NFT_SET_MAP;
	if (si.objtype)
		si.flags |= NFT_SET_OBJECT;
	si.name = si.objtype ? "__objmap%d" : si.is_map ? "__map%d" : "__set%d";
	si.id = ++set_id_;
	std::vector<Element> elems = type_elements(si, lit, true, table_);
	if (key_transfer_) {
		if (si.flags & NFT_SET_INTERVAL)
			throw LangError(lit.loc, "xnft: moving an operator into a set of ranges is not supported");
		for (Element &e : elems)
			key_transfer_(e.key);
	}
	check_new_elements(si, elems);
	table_.use_objects(si, elems);
	uint32_t key_type = 0, key_len = 0;
	for (auto &k : si.key) {
		key_type = (key_type << 6) | k.type->id;
		key_len += si.key.size() > 1 ? (k.bytes + 3) / 4 * 4 : k.bytes;
	}
	nftnl_set *s = nftnl_set_alloc();
	nftnl_set_set_u32(s, NFTNL_SET_FAMILY, family_);
	nftnl_set_set_str(s, NFTNL_SET_TABLE, table_name_.c_str());
	nftnl_set_set_str(s, NFTNL_SET_NAME, si.name.c_str());
	nftnl_set_set_u32(s, NFTNL_SET_ID, si.id);
	nftnl_set_set_u32(s, NFTNL_SET_FLAGS, si.flags);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_TYPE, key_type);
	nftnl_set_set_u32(s, NFTNL_SET_KEY_LEN, key_len);
	if (si.is_map) {
		nftnl_set_set_u32(s, NFTNL_SET_DATA_TYPE, si.verdict_map ? uint32_t(NFT_DATA_VERDICT) : uint32_t(si.data.type->id));
		nftnl_set_set_u32(s, NFTNL_SET_DATA_LEN, si.verdict_map ? 0 : si.data.bytes);
	}
	if (si.objtype)
		nftnl_set_set_u32(s, NFTNL_SET_OBJ_TYPE, si.objtype);
	nftnl_set_set_u32(s, NFTNL_SET_DESC_SIZE, (si.flags & NFT_SET_INTERVAL) ?
			  interval_desc_size(elems) : static_cast<uint32_t>(elems.size()));
	set_concat_desc(s, si);
	if (si.objtype) {
		// nft's record for the implicit __objmap: the key's byte order
		// (a value of the key's type, no typeof) and the data's
		// interval note
		const Bytes ud = objmap_userdata(si.key.size() == 1 ? nft_byteorder(*si.key[0].type) : 0);
		nftnl_set_set_data(s, NFTNL_SET_USERDATA, ud.data(), static_cast<uint32_t>(ud.size()));
	}
	nftnl_set *es = nftnl_set_alloc();
	nftnl_set_set_u32(es, NFTNL_SET_FAMILY, family_);
	nftnl_set_set_str(es, NFTNL_SET_TABLE, table_name_.c_str());
	nftnl_set_set_str(es, NFTNL_SET_NAME, si.name.c_str());
	nftnl_set_set_u32(es, NFTNL_SET_ID, si.id);
	add_elements(es, elems);
	sink_(s, es);
	return si.name;
}

void Linearizer::lookup(const Expr &lhs, const Expr &set, unsigned dreg,
			bool invert, const KeyPart *data, bool verdict, uint32_t objtype)
{
	SetInfo si;
	si.objtype = objtype;
	si.is_map = data != nullptr || verdict;
	si.verdict_map = verdict;
	if (data)
		si.data = *data;
	std::vector<const Expr *> parts;
	if (lhs.kind == ExprKind::Concat)
		for (auto &i : lhs.items)
			parts.push_back(i.get());
	else
		parts.push_back(&lhs);
	// one field under a mask (`tcp flags & (syn|ack) == { ... }`)
	const bool masked = parts.size() == 1 && single_and(lhs);
	// one field under other operators (`meta mark | 0x10 { 1, 2 }`); a
	// last ^ or << moves to an anonymous set's keys (binop_transfer)
	const bool chained = parts.size() == 1 && lhs.kind == ExprKind::Binop && !masked;
	unsigned reg = 1;
	std::vector<size_t> load_end;  // the rule's expression count after each part's load
	if (chained) {
		Chain c = chain_of(lhs, 0);
		if (set.kind == ExprKind::SetLit)
			key_transfer_ = transfer(c, Op::Eq, set, lhs);
		else if (!c.steps.empty() && c.steps.back().op == ">>")
			transfer(c, Op::Eq, set, lhs);  // refused
		dependency(*c.base);
		Load l = load(*c.base, 1);
		if (!l.mask.empty() || l.shift)
			throw LangError(lhs.loc, "xnft: only & is supported on a bit field");
		emit_chain(c, c.steps.size());
		si.key.push_back(c.parts.back());
		load_end.push_back(expr_count());
		parts.clear();
	}
	for (auto *p : parts)
		dependency(masked ? *p->items[0] : *p);
	for (auto *p : parts) {
		if (p->kind == ExprKind::Concat || (p->kind == ExprKind::Binop && !masked))
			throw LangError(p->loc, "syntax error, unsupported expression in a set key");
		Load l = load(masked ? *p->items[0] : *p, reg);
		if (masked) {
			if (l.part.shift || !l.mask.empty())
				throw LangError(p->loc, "syntax error, unsupported expression in a set key");
			emit_bitwise(reg, flags_value(l.part, *p->items[1], 0), Bytes(l.part.bytes, 0));
		}
		// A named set holds a bit field's value as written: the packet's
		// is shifted down to it (an anonymous one is built shifted).
		if (set.kind == ExprKind::SetRef && l.shift) {
			emit_rshift(reg, l.part.bytes, l.shift);
			l.part.shift = 0;
		}
		si.key.push_back(l.part);
		reg += (l.part.bytes + 3) / 4;
		load_end.push_back(expr_count());
	}
	std::string name;
	uint32_t id = 0;
	if (set.kind == ExprKind::SetLit) {
		name = anonymous_set(si, set);
		key_transfer_ = nullptr;
		id = si.id;
	} else if (set.kind == ExprKind::SetRef) {
		auto it = table_.sets.find(set.text);
		if (it == table_.sets.end())
			throw LangError(set.loc, unknown_set(set.text));
		const SetInfo &ns = it->second;
		// nft compares the types, part by part, not their lengths.
		bool same = ns.key.size() == si.key.size();
		for (size_t i = 0; same && i < ns.key.size(); i++)
			same = ns.key[i].type->id == si.key[i].type->id;
		// an object map is no map to `map` and `vmap`; a statement's
		// object map may be of another object type (nft and the kernel
		// take it, the set's type decides)
		if (objtype && !ns.objtype)
			throw LangError(set.loc, "Expression is not a map with objects");
		if (objtype && !same)
			throw LangError(set.loc, "datatype mismatch, map expects " + type_text(ns.key) +
					", mapping expression has type " + type_text(si.key), lhs.loc);
		if ((data || verdict) && ns.objtype)
			throw LangError(set.loc, "Expression is not a map");
		if (!same)
			throw LangError(set.loc, "datatype mismatch, expected " + type_text(si.key) +
					", expression has type " + type_text(ns.key), lhs.loc);
		if (verdict && !ns.verdict_map)
			throw LangError(set.loc, "datatype mismatch, map @" + set.text + " is not a verdict map");
		if (!verdict && data && (!ns.is_map || ns.verdict_map))
			throw LangError(set.loc, "datatype mismatch, @" + set.text + " is not a data map");
		if (!verdict && !data && ns.is_map)
			throw LangError(set.loc, "datatype mismatch, @" + set.text + " is a map, not a set");
		name = ns.name;
		id = ns.id;
	} else {
		throw LangError(set.loc, "syntax error, expecting a set: { ... } or @name");
	}
	const uint32_t set_flags = set.kind == ExprKind::SetLit ? si.flags : table_.sets.at(set.text).flags;
	// an interval set holds host-order keys big-endian (a single field's
	// too): each such field turned after its load
	if (set_flags & NFT_SET_INTERVAL)
		hton_host_parts(si.key, load_end);
	if (objtype) {
		nftnl_expr *e = new_expr("objref");
		nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_SET_SREG, nft_reg(1));
		nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_SET_NAME, name.c_str());
		nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_SET_ID, id);
		nftnl_rule_add_expr(rule_, e);
		return;
	}
	nftnl_expr *e = new_expr("lookup");
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SREG, nft_reg(1));
	if (si.is_map)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_DREG, verdict ? static_cast<uint32_t>(NFT_REG_VERDICT) : nft_reg(dreg));
	nftnl_expr_set_str(e, NFTNL_EXPR_LOOKUP_SET, name.c_str());
	nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_SET_ID, id);
	if (invert)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LOOKUP_FLAGS, NFT_LOOKUP_F_INV);
	nftnl_rule_add_expr(rule_, e);
}

// `ct [DIR] saddr|daddr` without ip or ip6: nft reads its type from the
// network protocol the rule matched before (ct_gen_nh_dependency), and
// with none its type stays invalid.
bool Linearizer::ct_address_without_version(const Expr &e) const
{
	return e.kind == ExprKind::Ct && (e.text == "saddr" || e.text == "daddr") && e.chain.empty() &&
	       net_.empty();
}

// nft's complaint about such an address, queued without stopping.
static LangError ct_version_error(const Expr &ct)
{
	return LangError(ct.loc, "cannot determine ip protocol version, use \"ip " + ct.text + "\" or \"ip6 " +
				 ct.text + "\" instead");
}

// The first symbol of a value, where nft's evaluation meets it first.
static const Expr &first_symbol(const Expr &e)
{
	if (e.kind != ExprKind::Value && !e.items.empty())
		return first_symbol(*e.items[0]);
	return e;
}

// A match on such an address: nft queues its complaint about the version
// and goes on to the value, which it cannot type (an invalid type parses
// no symbol, and no set has invalid keys): two errors for one statement.
void Linearizer::ct_address_match(const Expr &lhs, const Expr &rhs)
{
	const LangError version = ct_version_error(lhs);
	if (rhs.kind == ExprKind::SetRef) {
		auto it = table_.sets.find(rhs.text);
		if (it == table_.sets.end())
			throw LangError(rhs.loc, unknown_set(rhs.text)).after(version);
		throw LangError(rhs.loc, "datatype mismatch, expected invalid, expression has type " +
				type_text(it->second.key), lhs.loc).after(version);
	}
	throw LangError(first_symbol(rhs).loc, "Can't parse symbolic invalid expressions").after(version);
}

// `exists` and `missing` are keywords of nft's scanner: a boolean value,
// whatever it is compared with. Against a field of another type, alone or
// as the one element of a set, that is a datatype mismatch (in a set of
// more, nft 1.0.6 takes it as the number 1).
void Linearizer::boolean_against_field(const Expr &lhs, const Expr &rhs)
{
	const Expr *value = &rhs;
	if (rhs.kind == ExprKind::SetLit && rhs.items.size() == 1)
		value = rhs.items[0].get();
	if (value->kind != ExprKind::Value || value->quoted ||
	    (value->text != "exists" && value->text != "missing"))
		return;
	if (lhs.kind == ExprKind::Binop || lhs.kind == ExprKind::Concat || lhs.kind == ExprKind::Value)
		return;
	const KeyPart p = keypart_of_expr(lhs);
	if (p.type->id == TYPE_BOOLEAN)
		return;
	throw LangError(value->loc, std::string("datatype mismatch, expected ") + p.type->desc +
			", expression has type boolean type", lhs.loc);
}

void Linearizer::match(const Stmt &s)
{
	// a symbol the match starts with has no type to be read by
	// (expr_evaluate_symbol); one within a concatenation no type at all
	if (s.lhs->kind == ExprKind::Value)
		throw LangError(s.lhs->loc, "No symbol type information");
	if (s.lhs->kind == ExprKind::Concat)
		for (const auto &item : s.lhs->items)
			if (item->kind == ExprKind::Value)
				throw LangError(item->loc, "Can't parse symbolic invalid expressions");
	const Expr &lhs = *s.lhs;
	const Expr &rhs = *s.rhs;
	// a routing header field nft has an empty template for (rt2's, an
	// index past the two it has): nothing to read the value with
	if (lhs.kind == ExprKind::Exthdr && lhs.exthdr_op == NFT_EXTHDR_OP_IPV6 && !lhs.exthdr_present &&
	    lhs.exthdr_bits == 0)
		throw LangError(first_symbol(rhs).loc, "No symbol type information");
	boolean_against_field(lhs, rhs);
	if (ct_address_without_version(lhs))
		ct_address_match(lhs, rhs);
	if (s.op == Op::Neg) {
		match_neg(lhs, rhs);
		return;
	}
	// nft types a value against an empty raw payload before it fails on
	// the load (`@th,16,0 1`: no value but 0 fits)
	if (lhs.kind == ExprKind::RawPayload && lhs.raw_bits == 0 && rhs.kind == ExprKind::Value)
		encode_value(datatype(TYPE_INTEGER), 0, ByteOrder::Big, rhs);
	if (rhs.kind == ExprKind::SetLit || rhs.kind == ExprKind::SetRef) {
		if (s.op != Op::Implicit && s.op != Op::Eq && s.op != Op::Neq)
			throw LangError(s.loc, "Relational expression with a set needs == or !=");
		if (rhs.kind == ExprKind::SetLit && rhs.items.size() == 1 &&
		    lhs.kind == ExprKind::Binop && rhs.items[0]->kind != ExprKind::Concat) {
			// a one-element set under a mask: the plain masked match
			if (single_and(lhs))
				match_masked(lhs, s.op == Op::Neq ? Op::Neq : Op::Eq, *rhs.items[0]);
			else
				match_chain(lhs, s.op == Op::Neq ? Op::Neq : Op::Eq, *rhs.items[0]);
			return;
		}
		if (rhs.kind == ExprKind::SetLit && rhs.items.size() == 1 &&
		    lhs.kind != ExprKind::Concat && rhs.items[0]->kind != ExprKind::Concat) {
			// nft turns a one-element anonymous set into a plain match
			dependency(lhs);
			Load l = load(lhs, 1);
			match_value(s.op, *rhs.items[0], l);
			return;
		}
		if (rhs.kind == ExprKind::SetLit && !rhs.items.empty() && lhs.kind == ExprKind::Ct &&
		    l4_.empty() && (lhs.text == "proto-src" || lhs.text == "proto-dst"))
			throw LangError(rhs.items[0]->loc, "Can't parse symbolic invalid expressions");
		lookup(lhs, rhs, 0, s.op == Op::Neq, nullptr, false);
		// nft notes the type a set of ICMP types ends with as the one
		// the rule matched (`icmp type { echo-request, echo-reply }`
		// allows `icmp id` without a dependency of its own)
		if (s.op != Op::Neq && rhs.kind == ExprKind::SetLit && lhs.kind == ExprKind::Payload &&
		    (lhs.proto == "icmp" || lhs.proto == "icmpv6") && lhs.text == "type" &&
		    !rhs.items.empty() && rhs.items.back()->kind == ExprKind::Value) {
			const KeyPart p = keypart_of_expr(lhs);
			icmp_type_ = encode_value(*p.type, p.bits, p.order, *rhs.items.back())[0];
		}
		return;
	}
	if (lhs.kind == ExprKind::Concat)
		throw LangError(rhs.loc, "syntax error, a concatenation is matched against a set");
	if (lhs.kind == ExprKind::Binop) {
		if (single_and(lhs))
			match_masked(lhs, s.op, rhs);
		else
			match_chain(lhs, s.op, rhs);
		return;
	}
	dependency(lhs);
	Load l = load(lhs, 1);
	match_value(s.op, *s.rhs, l);
}

// `KEY & MASK OP VALUE`: the mask folded into the field's own, then a compare.
void Linearizer::match_masked(const Expr &lhs, Op op, const Expr &rhs)
{
	const Expr &key = *lhs.items[0];
	dependency(key);
	Load l = load(key, 1);
	Bytes m = flags_value(l.part, *lhs.items[1], l.shift);
	if (lhs.text != "&")
		throw LangError(lhs.loc, "only & is supported in a match");
	if (!l.mask.empty())
		for (size_t i = 0; i < m.size(); i++)
			m[i] &= l.mask[i];
	// nft folds the field's own mask into the user's
	nftnl_expr *last = nullptr;
	if (!l.mask.empty()) {
		nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
		for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
			last = x;
		nftnl_expr_iter_destroy(it);
		nftnl_expr_set(last, NFTNL_EXPR_BITWISE_MASK, m.data(), static_cast<uint32_t>(m.size()));
	} else {
		emit_bitwise(1, m, Bytes(m.size(), 0));
	}
	if (l.mask.empty() && !l.shift && !l.part.type->bitmask) {
		// a whole value: ranges, and < > in network order, as unmasked
		Load cl;
		cl.part = l.part;
		match_value(op == Op::Implicit ? Op::Eq : op, rhs, cl);
		return;
	}
	Bytes v = flags_value(l.part, rhs, l.shift);
	emit_cmp(1, cmp_op(op), v);
}

// stmt_evaluate_ct of `ct secmark set VALUE`: the value typed as the key's
// (a 32-bit integer), then no constant, which would be a number the kernel
// takes for a security context id (nft wants `meta secmark set` to copy the
// packet's, or a secmark object).
void Linearizer::ct_secmark_value(const Stmt &s)
{
	const Expr &v = *s.rhs;
	const Expr *base = &v;
	while (base->kind == ExprKind::Binop)
		base = base->items[0].get();
	if (base->kind != ExprKind::Value) {
		if (base->kind == ExprKind::Payload || base->kind == ExprKind::Meta || base->kind == ExprKind::Ct) {
			const DataType &src = *keypart_of_expr(*base).type;
			if (src.id != TYPE_INTEGER)
				throw LangError(v.loc, std::string("datatype mismatch: expected integer, expression has type ") +
						src.desc, span(s.lhs->loc, v.loc));
		}
		return;
	}
	flags_value(KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4}, v, 0);
	throw LangError(span(s.lhs->loc, v.loc), "ct secmark must not be set to constant value");
}

void Linearizer::set_stmt(const Stmt &s)
{
	const Expr &target = *s.lhs;
	if (s.rhs->kind == ExprKind::Foreign) {
		foreign_value(*s.rhs);
		return;
	}
	KeyPart tp;
	uint32_t key;
	bool ct = s.kind == StmtKind::CtSet;
	if (ct && target.text == "secmark" && target.proto.empty())
		ct_secmark_value(s);
	if (ct) {
		const CtKey *k = find_ct(target.text, target.chain);
		if (!k || (k->key != NFT_CT_MARK && k->key != NFT_CT_ZONE && k->key != NFT_CT_EVENTMASK))
			throw LangError(target.loc, "ct " + target.text + " cannot be set (ct mark, ct zone)");
		tp = KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8};
		key = k->key;
	} else {
		const MetaKey *m = find_meta(target.text);
		if (!m || (m->key != NFT_META_MARK && m->key != NFT_META_PRIORITY &&
			   m->key != NFT_META_PKTTYPE && m->key != NFT_META_NFTRACE))
			throw LangError(target.loc, "meta " + target.text + " cannot be set");
		tp = KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8};
		key = m->key;
	}
	const Expr &v = *s.rhs;
	if (v.kind == ExprKind::Value && !v.quoted && (v.text == "exists" || v.text == "missing"))
		throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
				", expression has type boolean type", span(target.loc, v.loc));
	if (ct_address_without_version(v))
		throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
				", expression has type invalid", span(target.loc, v.loc))
			.after(ct_version_error(v));
	const Expr *base = &v;
	while (base->kind == ExprKind::Binop)
		base = base->items[0].get();
	if (v.kind == ExprKind::Binop && base->kind == ExprKind::Value) {
		// values with operators, folded (`meta mark set 1 | 2`)
		emit_immediate_data(1, flags_value(tp, v, 0));
	} else if (v.kind == ExprKind::Binop) {
		// a field with operators (`meta mark set meta mark | 0x10`):
		// typed as its field, whatever its length
		const DataType &src = *keypart_of_expr(*base).type;
		if (src.id != TYPE_INTEGER && tp.type->id != TYPE_INTEGER && src.id != tp.type->id)
			throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
					", expression has type " + src.desc, span(target.loc, v.loc));
		Chain c = chain_of(v, tp.bits);
		dependency(*c.base);
		Load l = load(*c.base, 1);
		if (!l.mask.empty() || l.shift)
			throw LangError(v.loc, "xnft: only & is supported on a bit field");
		emit_chain(c, c.steps.size());
	} else if (v.kind == ExprKind::Map) {
		lookup(*v.items[0], *v.items[1], 1, false, &tp, false);
	} else if (v.kind == ExprKind::RawPayload) {
		// nft's raw payload is an integer of its own length, which must
		// be the key's; a bit field is first masked and shifted down to
		// its lowest bits (expr_evaluate_bits), whatever its length
		const KeyPart p = keypart_of_expr(v);
		const bool bit_field = v.raw_offset % 8 || v.raw_bits % 8;
		if (!bit_field && v.raw_bits != tp.bits)
			throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
					", expression has type integer with length " + std::to_string(v.raw_bits),
					span(target.loc, v.loc));
		load(v, 1);
		if (p.shift)
			emit_rshift(1, p.bytes, p.shift);
	} else if (v.kind == ExprKind::Payload || v.kind == ExprKind::Meta || v.kind == ExprKind::Ct ||
		   v.kind == ExprKind::Numgen || v.kind == ExprKind::Hash || v.kind == ExprKind::Exthdr) {
		// stmt_evaluate_arg: a field of a type of its own must have the
		// key's (`meta priority set ct mark`); plain integers go anywhere
		if (v.kind == ExprKind::Payload || v.kind == ExprKind::Meta || v.kind == ExprKind::Ct) {
			const DataType &src = *keypart_of_expr(v).type;
			if (src.id != TYPE_INTEGER && tp.type->id != TYPE_INTEGER && src.id != tp.type->id)
				throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
						", expression has type " + src.desc, span(target.loc, v.loc));
		}
		dependency(v);
		Load l = load(v, 1);
		// numgen, the hashes and option fields are plain integers, which
		// nft sets into any integer-based key whatever its length
		const bool integer = v.kind == ExprKind::Numgen || v.kind == ExprKind::Hash ||
				     (v.kind == ExprKind::Exthdr && l.part.type->id == TYPE_INTEGER);
		if (!integer && l.part.bytes != tp.bytes)
			throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->name +
					", expression has type " + l.part.type->name);
	} else {
		emit_immediate_data(1, encode_part(tp, v));
	}
	nftnl_expr *e = new_expr(ct ? "ct" : "meta");
	if (ct) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CT_SREG, nft_reg(1));
		if (!target.proto.empty())
			nftnl_expr_set_u8(e, NFTNL_EXPR_CT_DIR, target.proto == "original" ? 0 : 1);
	} else {
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, key);
		nftnl_expr_set_u32(e, NFTNL_EXPR_META_SREG, nft_reg(1));
	}
	nftnl_rule_add_expr(rule_, e);
}

// `counter|quota|limit name EXPR map @m|{ KEY : "NAME", ... }`: nft's
// objref statement on an object map (netlink_gen_objref_stmt): the key
// into register 1, then the objref expression naming the map (SET_SREG,
// SET_NAME, SET_ID); an anonymous map is nft's __objmap%d of the
// statement's object type. A name given as an expression is nft's
// datatype mismatch.
void Linearizer::objref_map(const Stmt &s)
{
	const Expr &v = *s.rhs;
	if (v.kind != ExprKind::Map)
		throw LangError(v.loc, std::string("datatype mismatch: expected string, expression has type ") +
				keypart_of_expr(v).type->desc, span(s.loc, v.loc));
	const uint32_t type = s.kind == StmtKind::Counter ? NFT_OBJECT_COUNTER :
			      s.kind == StmtKind::Quota ? NFT_OBJECT_QUOTA : NFT_OBJECT_LIMIT;
	lookup(*v.items[0], *v.items[1], 1, false, nullptr, false, type);
}

// A counter, quota, limit or `ct count` statement's expression: the
// anonymous one (counter, quota, limit, connlimit), or an objref to the
// table's named object, which the kernel resolves (ENOENT at the name).
nftnl_expr *Linearizer::stateful_expr(const Stmt &s)
{
	if (!s.key.empty()) {
		const uint32_t type = s.kind == StmtKind::Counter ? NFT_OBJECT_COUNTER :
				      s.kind == StmtKind::Quota ? NFT_OBJECT_QUOTA : NFT_OBJECT_LIMIT;
		if (!table_.objects(type).count(s.key))
			throw LangError(s.name_loc, "Could not process rule: No such file or directory");
		nftnl_expr *e = new_expr("objref");
		nftnl_expr_set_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE, type);
		nftnl_expr_set_str(e, NFTNL_EXPR_OBJREF_IMM_NAME, s.key.c_str());
		return e;
	}
	const std::string err = stateful_kernel_error(s);
	if (!err.empty())
		throw LangError(s.loc, "Could not process rule: " + err);
	return anonymous_stateful_expr(s);
}

const char *stateful_name(const Stmt &s)
{
	switch (s.kind) {
	case StmtKind::Counter: return "counter";
	case StmtKind::Quota: return "quota";
	case StmtKind::Limit: return "limit";
	default: return "connlimit";
	}
}

// A limit's burst as nft sends it: a packet limit's default 5, a byte
// limit's 0 (not sent then).
static uint64_t limit_burst(const Stmt &s)
{
	return s.burst_given ? s.burst : (s.limit_bytes ? 0 : 5);
}

std::string stateful_kernel_error(const Stmt &s)
{
	if (s.kind != StmtKind::Limit)
		return "";
	return limit_kernel_error(s.rate, s.unit, limit_burst(s), s.limit_bytes);
}

nftnl_expr *anonymous_stateful_expr(const Stmt &s)
{
	if (s.kind == StmtKind::Counter) {
		// netlink_gen_counter_stmt: start values only when not 0
		nftnl_expr *e = new_expr("counter");
		if (s.counter_packets)
			nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_PACKETS, s.counter_packets);
		if (s.counter_bytes)
			nftnl_expr_set_u64(e, NFTNL_EXPR_CTR_BYTES, s.counter_bytes);
		return e;
	}
	if (s.kind == StmtKind::Connlimit) {
		// netlink_gen_connlimit_stmt: both attributes, the flags 0 too
		nftnl_expr *e = new_expr("connlimit");
		nftnl_expr_set_u32(e, NFTNL_EXPR_CONNLIMIT_COUNT, s.connlimit_count);
		nftnl_expr_set_u32(e, NFTNL_EXPR_CONNLIMIT_FLAGS, s.connlimit_flags);
		return e;
	}
	if (s.kind == StmtKind::Quota) {
		nftnl_expr *e = new_expr("quota");
		nftnl_expr_set_u64(e, NFTNL_EXPR_QUOTA_BYTES, s.quota_bytes);
		nftnl_expr_set_u64(e, NFTNL_EXPR_QUOTA_CONSUMED, s.quota_used);
		nftnl_expr_set_u32(e, NFTNL_EXPR_QUOTA_FLAGS, s.quota_flags);
		return e;
	}
	// netlink_gen_limit_stmt: the burst only when not 0
	const uint64_t burst = limit_burst(s);
	nftnl_expr *e = new_expr("limit");
	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_RATE, s.rate);
	nftnl_expr_set_u64(e, NFTNL_EXPR_LIMIT_UNIT, s.unit);
	if (burst)
		nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_BURST, static_cast<uint32_t>(burst));
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_TYPE, s.limit_bytes ? NFT_LIMIT_PKT_BYTES : NFT_LIMIT_PKTS);
	nftnl_expr_set_u32(e, NFTNL_EXPR_LIMIT_FLAGS, s.limit_over ? NFT_LIMIT_F_INV : 0);
	return e;
}

// nft_set_elem_expr_alloc: an expression that collects garbage itself
// (NFT_EXPR_GC: connlimit) is refused (EOPNOTSUPP) in a set with
// timeouts, whose elements the set's own gc removes. (Its other check, a
// set backend with gc_init, holds for every set a dynset takes: NFT_SET_EVAL
// is rhash's alone.)
static bool gc_expr_refused(const Stmt &st, const SetInfo &si)
{
	return st.kind == StmtKind::Connlimit && (si.flags & NFT_SET_TIMEOUT);
}

// nft's set and map statements (netlink_gen_set_stmt, _map_stmt): the
// dependencies of the key's and the data's fields first, the key from
// register 1 (a concatenation's fields one after another, a value as an
// immediate), the data in the register after the key's (a key that is no
// concatenation takes a whole 128-bit register), then dynset, its
// stateful statements one as NFTA_DYNSET_EXPR, more in
// NFTA_DYNSET_EXPRESSIONS (libnftnl adds NFT_DYNSET_F_EXPR then). What
// nf_tables' dynset init refuses is refused here with its error.
void Linearizer::dynset(const Stmt &s)
{
	auto it = table_.sets.find(s.key);
	if (it == table_.sets.end())
		throw LangError(s.name_loc, unknown_set(s.key));
	const SetInfo &si = it->second;
	const Expr &key = *s.lhs;
	std::vector<const Expr *> parts;
	if (key.kind == ExprKind::Concat)
		for (auto &i : key.items)
			parts.push_back(i.get());
	else
		parts.push_back(&key);
	// stmt_evaluate_arg: the key's types are the set's, part by part
	std::vector<KeyPart> types;
	for (size_t i = 0; i < parts.size(); i++)
		types.push_back(parts[i]->kind == ExprKind::Value
					? (i < si.key.size() ? si.key[i] : keypart_of_type(datatype(TYPE_INTEGER), key.loc))
					: keypart_of_expr(*parts[i]));
	bool same = types.size() == si.key.size();
	for (size_t i = 0; same && i < types.size(); i++)
		same = types[i].type->id == si.key[i].type->id;
	if (!same)
		throw LangError(key.loc, "datatype mismatch: expected " + type_text(si.key) +
				", expression has type " + type_text(types), s.loc);
	if (s.rhs && si.is_map && !si.verdict_map && s.rhs->kind != ExprKind::Value &&
	    keypart_of_expr(*s.rhs).type->id != si.data.type->id)
		throw LangError(s.rhs->loc, std::string("datatype mismatch: expected ") + si.data.type->desc +
				", expression has type " + keypart_of_expr(*s.rhs).type->desc, s.loc);
	// nft_dynset_init's checks, in its order
	auto kernel = [&](const char *err) {
		throw LangError(s.loc, std::string("Could not process rule: ") + err);
	};
	if (si.refused)
		kernel("No such file or directory");	// the kernel has no such set
	if (si.flags & NFT_SET_INTERVAL)
		kernel("Operation not supported");	// no backend with an update
	if (si.flags & NFT_SET_CONSTANT)
		kernel("Device or resource busy");
	if (s.set_timeout_ms && !(si.flags & NFT_SET_TIMEOUT))
		kernel("Operation not supported");
	if (s.set_timeout_ms >= kMaxTimeoutMs)
		kernel("Numerical result out of range");
	if (s.rhs && (!si.is_map || si.verdict_map))
		kernel("Operation not supported");
	if (!s.rhs && si.is_map)
		kernel("Invalid argument");
	if (!s.stateful.empty() && !(si.flags & NFT_SET_EVAL))
		kernel("Invalid argument");
	// each expression as nft_set_elem_expr_alloc takes it, the third
	// one not (NFT_SET_EXPR_MAX); when the set has statements of its
	// own, each of the kind of the set's at its place, as many
	// (nft_dynset_init: EINVAL for one beyond the set's, EOPNOTSUPP
	// otherwise)
	const size_t n = s.stateful.size();
	for (size_t i = 0; i < n; i++) {
		if (i == 2)
			kernel("Argument list too long");
		if (gc_expr_refused(s.stateful[i], si))
			kernel("Operation not supported");
		if (si.stmts.empty())
			continue;
		if (n == 1 && (si.stmts.size() > 1 || stateful_name(s.stateful[0]) != si.stmts[0]))
			kernel("Operation not supported");
		if (n > 1 && i >= si.stmts.size())
			kernel("Invalid argument");
		if (n > 1 && stateful_name(s.stateful[i]) != si.stmts[i])
			kernel("Operation not supported");
	}
	if (n > 1 && !si.stmts.empty() && si.stmts.size() != n)
		kernel("Operation not supported");
	emit_dynset(s, si, parts, s.set_op);
}

// A set, map or meter statement's expressions once checked: the
// dependencies, the key (and data) loads, dynset with operation OP.
void Linearizer::emit_dynset(const Stmt &s, const SetInfo &si, const std::vector<const Expr *> &parts,
			     uint32_t op)
{
	for (const Expr *p : parts)
		if (p->kind != ExprKind::Value)
			dependency(*p);
	if (s.rhs && s.rhs->kind != ExprKind::Value)
		dependency(*s.rhs);
	unsigned reg = 1;
	for (size_t i = 0; i < parts.size(); i++) {
		if (parts[i]->kind == ExprKind::Value) {
			emit_immediate_data(reg, encode_part(si.key[i], *parts[i]));
		} else {
			// the set holds a bit field's value as written, as a
			// lookup of a named set loads it
			const Load l = load(*parts[i], reg);
			if (l.shift)
				emit_rshift(reg, l.part.bytes, l.shift);
		}
		reg += (si.key[i].bytes + 3) / 4;
	}
	// nft 1.0.6 puts the data in the second 128-bit register whatever the
	// key's length: after a key longer than 16 bytes it fails an assertion
	const unsigned dreg = 5;
	if (s.rhs && reg > dreg)
		throw LangError(s.loc, "nft 1.0.6 cannot load a map statement's data after a key "
				       "longer than 16 bytes");
	if (s.rhs) {
		if (s.rhs->kind == ExprKind::Value)
			emit_immediate_data(dreg, encode_part(si.data, *s.rhs));
		else
			load(*s.rhs, dreg);
	}
	nftnl_expr *e = new_expr("dynset");
	nftnl_expr_set_u32(e, NFTNL_EXPR_DYNSET_SREG_KEY, nft_reg(1));
	if (s.rhs)
		nftnl_expr_set_u32(e, NFTNL_EXPR_DYNSET_SREG_DATA, nft_reg(dreg));
	if (s.set_timeout_ms)
		nftnl_expr_set_u64(e, NFTNL_EXPR_DYNSET_TIMEOUT, s.set_timeout_ms);
	nftnl_expr_set_u32(e, NFTNL_EXPR_DYNSET_OP, op);
	nftnl_expr_set_str(e, NFTNL_EXPR_DYNSET_SET_NAME, si.name.c_str());
	nftnl_expr_set_u32(e, NFTNL_EXPR_DYNSET_SET_ID, si.id);
	try {
		if (s.stateful.size() == 1) {
			nftnl_expr_set(e, NFTNL_EXPR_DYNSET_EXPR, stateful_expr(s.stateful[0]), 0);
		} else {
			for (const Stmt &st : s.stateful)
				nftnl_expr_add_expr(e, NFTNL_EXPR_DYNSET_EXPRESSIONS, stateful_expr(st));
		}
	} catch (const LangError &err) {
		// the kernel's complaint about a limit points at the statement
		nftnl_expr_free(e);
		throw LangError(s.loc, err.what());
	}
	nftnl_rule_add_expr(rule_, e);
}

// nft's meter statement (stmt_evaluate_meter, netlink_gen_meter_stmt):
// the key checked as nft evaluates it, the statement inside stateful, then
// an anonymous set of the meter's own name (nft's implicit declaration:
// NFT_SET_ANONYMOUS | NFT_SET_EVAL, NFT_SET_TIMEOUT with a timeout, the
// key's type and length, the size when given, USERDATA with the key's byte
// order only, an empty element batch) before the rule, and a dynset on it:
// update with the timeout, add without.
void Linearizer::meter(const Stmt &s)
{
	const Expr &key = *s.lhs;
	std::vector<const Expr *> parts;
	if (key.kind == ExprKind::Concat)
		for (auto &i : key.items)
			parts.push_back(i.get());
	else
		parts.push_back(&key);
	// a value has no type to be parsed by: nothing gives the key one
	if (key.kind == ExprKind::Value)
		throw LangError(key.loc, "No symbol type information");
	for (const Expr *p : parts)
		if (p->kind == ExprKind::Value)
			throw LangError(p->loc, "Can't parse symbolic invalid expressions");
	SetInfo si;
	for (const Expr *p : parts)
		si.key.push_back(keypart_of_expr(*p));
	if (s.key_comment_loc.valid())
		throw LangError(s.key_comment_loc, "Meter key expression can not contain comments");
	const Stmt &inner = s.stateful[0];
	const bool stateful = (inner.kind == StmtKind::Counter || inner.kind == StmtKind::Limit ||
			       inner.kind == StmtKind::Quota || inner.kind == StmtKind::Connlimit) &&
			      inner.key.empty();
	if (!stateful)
		throw LangError(s.inner_loc, "meter statement must be stateful", s.loc);
	// the kernel: a set of that name already (nf_tables_newset), a
	// timeout it cannot hold (nft_dynset_init)
	auto kernel = [&](const Location &loc, const char *err) {
		throw LangError(loc, std::string("Could not process rule: ") + err);
	};
	// (an anonymous set the kernel holds goes with its rule, which xnft
	// does not follow: only this input's meters are known to stay)
	auto old = table_.sets.find(s.key);
	if (old != table_.sets.end() && !(old->second.flags & NFT_SET_ANONYMOUS))
		kernel(key.loc, "File exists");
	if (old != table_.sets.end() && old->second.id)
		kernel(key.loc, "Operation not supported");
	if (s.set_timeout_ms >= kMaxTimeoutMs)
		kernel(s.loc, "Numerical result out of range");
	si.name = s.key;
	si.flags = NFT_SET_ANONYMOUS | NFT_SET_EVAL | (s.set_timeout_ms ? NFT_SET_TIMEOUT : 0);
	if (gc_expr_refused(inner, si))
		kernel(s.loc, "Operation not supported");
	si.id = ++set_id_;
	uint32_t key_type = 0, key_len = 0;
	for (auto &k : si.key) {
		key_type = (key_type << 6) | k.type->id;
		key_len += si.key.size() > 1 ? (k.bytes + 3) / 4 * 4 : k.bytes;
	}
	nftnl_set *st = nftnl_set_alloc();
	nftnl_set_set_u32(st, NFTNL_SET_FAMILY, family_);
	nftnl_set_set_str(st, NFTNL_SET_TABLE, table_name_.c_str());
	nftnl_set_set_str(st, NFTNL_SET_NAME, si.name.c_str());
	nftnl_set_set_u32(st, NFTNL_SET_ID, si.id);
	nftnl_set_set_u32(st, NFTNL_SET_FLAGS, si.flags);
	nftnl_set_set_u32(st, NFTNL_SET_KEY_TYPE, key_type);
	nftnl_set_set_u32(st, NFTNL_SET_KEY_LEN, key_len);
	if (s.meter_size)
		nftnl_set_set_u32(st, NFTNL_SET_DESC_SIZE, s.meter_size);
	// the key's byte order as nft parsed it: none for a concatenation
	const SetDecl none;
	const uint32_t order = si.key.size() > 1 ? 0 : si.key[0].order == ByteOrder::Big ? 2 : 1;
	const Bytes ud = build_set_userdata({&none, order, false, false, 0, false});
	nftnl_set_set_data(st, NFTNL_SET_USERDATA, ud.data(), static_cast<uint32_t>(ud.size()));
	nftnl_set *es = nftnl_set_alloc();
	nftnl_set_set_u32(es, NFTNL_SET_FAMILY, family_);
	nftnl_set_set_str(es, NFTNL_SET_TABLE, table_name_.c_str());
	nftnl_set_set_str(es, NFTNL_SET_NAME, si.name.c_str());
	nftnl_set_set_u32(es, NFTNL_SET_ID, si.id);
	sink_(st, es);
	table_.sets[si.name] = si;
	emit_dynset(s, si, parts, s.set_timeout_ms ? kDynsetUpdate : kDynsetAdd);
}

// nft merges consecutive equality matches on adjacent bytes of the same
// header into one load and one compare (payload_try_merge), after sorting
// them by offset: merge the rule's last two matches while they merge.
void Linearizer::merge_payloads()
{
	while (merge_last_payloads())
		;
}

bool Linearizer::merge_last_payloads()
{
	const size_t n = expr_count();
	return n >= 4 && merge_payloads_at(n - 4);
}

// A dependency put first in the rule merges with the match after it, as
// the last two do.
void Linearizer::merge_first_payloads()
{
	while (merge_payloads_at(0))
		;
}

// Merges the payload matches at expressions AT and AT + 2 (a load and an
// equality compare each) into one when they merge.
bool Linearizer::merge_payloads_at(size_t at)
{
	std::vector<nftnl_expr *> xs;
	nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
	for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
		xs.push_back(x);
	nftnl_expr_iter_destroy(it);
	auto name = [](nftnl_expr *x) { return std::string(nftnl_expr_get_str(x, NFTNL_EXPR_NAME)); };
	auto is_eq_pair = [&](size_t i) {
		return i + 1 < xs.size() && name(xs[i]) == "payload" && name(xs[i + 1]) == "cmp" &&
		       nftnl_expr_get_u32(xs[i + 1], NFTNL_EXPR_CMP_OP) == NFT_CMP_EQ;
	};
	if (at + 4 > xs.size() || !is_eq_pair(at) || !is_eq_pair(at + 2))
		return false;
	nftnl_expr *p1 = xs[at], *c1 = xs[at + 1];
	nftnl_expr *p2 = xs[at + 2], *c2 = xs[at + 3];
	uint32_t b1 = nftnl_expr_get_u32(p1, NFTNL_EXPR_PAYLOAD_BASE);
	uint32_t o1 = nftnl_expr_get_u32(p1, NFTNL_EXPR_PAYLOAD_OFFSET);
	uint32_t l1 = nftnl_expr_get_u32(p1, NFTNL_EXPR_PAYLOAD_LEN);
	uint32_t b2 = nftnl_expr_get_u32(p2, NFTNL_EXPR_PAYLOAD_BASE);
	uint32_t o2 = nftnl_expr_get_u32(p2, NFTNL_EXPR_PAYLOAD_OFFSET);
	uint32_t l2 = nftnl_expr_get_u32(p2, NFTNL_EXPR_PAYLOAD_LEN);
	// Loads of up to 32 bits above the link layer take the kernel's fast
	// path, so nft merges two of those only into a 32-bit load; a longer
	// one (`arp daddr ether`) merges up to a register (payload_can_merge).
	const uint32_t total = l1 + l2;
	const bool fits = total <= 16 &&
			  (total <= 4 || b1 == NFT_PAYLOAD_LL_HEADER || l1 > 4 || l2 > 4);
	// nft sorts a run of such matches by offset before it merges them,
	// so the later match may also be the lower bytes.
	const bool after = o1 + l1 == o2, before = o2 + l2 == o1;
	if (b1 != b2 || (!after && !before) || !fits)
		return false;
	uint32_t n1, n2;
	const uint8_t *d1 = static_cast<const uint8_t *>(nftnl_expr_get(c1, NFTNL_EXPR_CMP_DATA, &n1));
	const uint8_t *d2 = static_cast<const uint8_t *>(nftnl_expr_get(c2, NFTNL_EXPR_CMP_DATA, &n2));
	Bytes d = after ? Bytes(d1, d1 + n1) : Bytes(d2, d2 + n2);
	if (after)
		d.insert(d.end(), d2, d2 + n2);
	else
		d.insert(d.end(), d1, d1 + n1);
	if (before)
		nftnl_expr_set_u32(p1, NFTNL_EXPR_PAYLOAD_OFFSET, o2);
	nftnl_expr_set_u32(p1, NFTNL_EXPR_PAYLOAD_LEN, l1 + l2);
	nftnl_expr_set(c1, NFTNL_EXPR_CMP_DATA, d.data(), static_cast<uint32_t>(d.size()));
	nftnl_rule_del_expr(p2);
	nftnl_expr_free(p2);
	nftnl_rule_del_expr(c2);
	nftnl_expr_free(c2);
	return true;
}

// Emits what EMIT adds at the start of the rule, before everything the
// rule holds so far (nft puts a reject's dependency first, so that the
// statements before it only see what will be rejected).
void Linearizer::prepend(const std::function<void()> &emit)
{
	std::vector<nftnl_expr *> held;
	nftnl_expr_iter *it = nftnl_expr_iter_create(rule_);
	for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
		held.push_back(x);
	nftnl_expr_iter_destroy(it);
	for (nftnl_expr *x : held)
		nftnl_rule_del_expr(x);
	emit();
	for (nftnl_expr *x : held)
		nftnl_rule_add_expr(rule_, x);
}

// nft's reject for the bridge family (evaluate.c stmt_evaluate_reject):
// the kind and code it picks when none is given, the checks against the
// protocols matched so far, and the dependency it puts first in the rule.
void Linearizer::reject(const Stmt &s)
{
	uint32_t type;
	int code = -1;         // -1: no code sent
	std::string family;    // an ICMP reject's: "ip" or "ip6"
	if (s.reject_with.empty()) {
		if (net_.empty()) {
			type = NFT_REJECT_ICMPX_UNREACH;
			code = NFT_REJECT_ICMPX_PORT_UNREACH;
		} else {
			type = NFT_REJECT_ICMP_UNREACH;
			family = net_ == "ip" || net_ == "ip6" ? net_ : "";
			if (net_ == "ip")
				code = 3;	/* ICMP_PORT_UNREACH */
			else if (net_ == "ip6")
				code = 4;	/* ICMP6_DST_UNREACH_NOPORT */
		}
	} else if (s.reject_with == "tcp") {
		type = NFT_REJECT_TCP_RST;
		code = 0;
		if (!l4_.empty() && l4_ != "tcp" && l4_.rfind("other-", 0) != 0)
			throw LangError(s.loc, "you cannot use tcp reset with this protocol", l4_loc_);
	} else {
		const bool icmpx = s.reject_with == "icmpx";
		type = icmpx ? NFT_REJECT_ICMPX_UNREACH : NFT_REJECT_ICMP_UNREACH;
		if (!icmpx)
			family = s.reject_with == "icmp" ? "ip" : "ip6";
		const DataType &t = datatype(icmpx ? TYPE_ICMPX_CODE :
					     s.reject_with == "icmp" ? TYPE_ICMP_CODE : TYPE_ICMPV6_CODE);
		Bytes b;
		if (!try_encode(t, 64, ByteOrder::Big, s.key, false, b))
			throw LangError(s.name_loc, "Could not parse " + std::string(t.desc));
		// nft keeps the code in an int8_t, -1 meaning none: 300 is 44,
		// 255 no code at all
		code = static_cast<int>(bytes_value(b, ByteOrder::Big) & 0xff);
		if (code == 0xff)
			code = -1;
	}
	if (!net_.empty()) {
		const bool ip_family = net_ == "ip" || net_ == "ip6";
		if (type == NFT_REJECT_ICMP_UNREACH && ip_family && family != net_)
			throw LangError(s.name_loc, "conflicting protocols specified: ip vs ip6", net_loc_);
		if (!ip_family)
			throw LangError(s.loc, "cannot reject this network family", net_loc_);
	}
	if (type == NFT_REJECT_TCP_RST && l4_.empty()) {
		Expr tcp;
		tcp.kind = ExprKind::Payload;
		tcp.proto = "tcp";
		tcp.loc = s.loc;
		prepend([&] { dependency(tcp); });
	} else if (type == NFT_REJECT_ICMP_UNREACH && net_.empty()) {
		if (code < 0)
			throw LangError(s.loc, "missing icmp error type");
		Expr net;
		net.kind = ExprKind::Payload;
		net.proto = family;
		net.loc = s.loc;
		prepend([&] { dependency(net); });
	}
	nftnl_expr *e = new_expr("reject");
	nftnl_expr_set_u32(e, NFTNL_EXPR_REJECT_TYPE, type);
	if (code >= 0)
		nftnl_expr_set_u8(e, NFTNL_EXPR_REJECT_CODE, static_cast<uint8_t>(code));
	nftnl_rule_add_expr(rule_, e);
}

// `tcp option NAME FIELD set VALUE` (exthdr_stmt): the value in a
// register, written over the option's field (NFTA_EXTHDR_SREG). nft writes
// TCP options only, whole bytes; the kernel takes what it can rewrite.
// `sctp chunk NAME FIELD set VALUE` is sent alike, for the kernel to
// refuse (EOPNOTSUPP), as nft sends it.
void Linearizer::exthdr_set(const Stmt &s)
{
	const Expr &target = *s.lhs;
	if ((target.exthdr_op != NFT_EXTHDR_OP_TCPOPT && target.exthdr_op != NFT_EXTHDR_OP_SCTP) ||
	    target.exthdr_present)
		throw LangError(target.loc, "syntax error, only a tcp option's field can be set");
	if (s.rhs->kind == ExprKind::Foreign) {
		foreign_value(*s.rhs);
		return;
	}
	const KeyPart p = keypart_of_expr(target);
	if (p.shift || p.bits % 8)
		throw LangError(target.loc, "syntax error, only whole bytes of a tcp option can be set");
	if (s.rhs->kind == ExprKind::Exthdr) {
		if (keypart_of_expr(*s.rhs).type->id != p.type->id)
			throw LangError(s.rhs->loc, std::string("datatype mismatch: expected ") + p.type->name +
					", expression has type " + keypart_of_expr(*s.rhs).type->name);
		load(*s.rhs, 1);
	} else if (s.rhs->kind == ExprKind::Value) {
		emit_immediate_data(1, encode_part(p, *s.rhs));
	} else {
		throw LangError(s.rhs->loc, "syntax error, a tcp option is set to a value or another option");
	}
	nftnl_expr *e = new_expr("exthdr");
	nftnl_expr_set_u32(e, NFTNL_EXPR_EXTHDR_SREG, nft_reg(1));
	nftnl_expr_set_u8(e, NFTNL_EXPR_EXTHDR_TYPE, target.exthdr_type);
	nftnl_expr_set_u32(e, NFTNL_EXPR_EXTHDR_OFFSET, target.exthdr_offset / 8);
	nftnl_expr_set_u32(e, NFTNL_EXPR_EXTHDR_LEN, p.bytes);
	// (no flags: nf_tables' tcp_set_init refuses any, and nft sends none)
	nftnl_expr_set_u32(e, NFTNL_EXPR_EXTHDR_OP, target.exthdr_op);
	nftnl_rule_add_expr(rule_, e);
}

// ---- payload statement ----

// What the payload statement's value is computed into register 1 from,
// when the write takes the field as it is (no adjustment): a value as an
// immediate; a field, meta or ct key (with its operators) loaded, a bit
// field shifted down, a host-order value turned to network order; a map's
// lookup; numgen or a hash, turned to network order. nft's
// stmt_evaluate_arg checks: a source of a type of its own must be of the
// target's; a network-order integer must be as long as it.
void Linearizer::payload_set_value(const Stmt &s, const KeyPart &tp)
{
	const Expr &target = *s.lhs;
	const Expr &v = *s.rhs;
	const Expr *base = &v;
	while (base->kind == ExprKind::Binop)
		base = base->items[0].get();
	auto mismatch = [&](const std::string &has) {
		return LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
				 ", expression has type " + has, span(target.loc, v.loc));
	};
	if (base->kind == ExprKind::Value || base->kind == ExprKind::List) {
		emit_immediate_data(1, flags_value(tp, v, 0));
		return;
	}
	if (v.kind == ExprKind::Map) {
		lookup(*v.items[0], *v.items[1], 1, false, &tp, false);
		return;
	}
	// nf_tables reads the write's bytes from registers the value filled:
	// a shorter value leaves one unset, ENODATA (at the target)
	auto fills = [&](unsigned bytes) {
		if ((bytes + 3) / 4 < (tp.bytes + 3) / 4)
			throw LangError(target.loc, "Could not process rule: No data available");
	};
	if (v.kind == ExprKind::Numgen || v.kind == ExprKind::Hash) {
		dependency(v);
		load(v, 1);
		emit_hton(1, KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4});
		fills(4);
		return;
	}
	if (base->kind != ExprKind::Payload && base->kind != ExprKind::RawPayload &&
	    base->kind != ExprKind::Meta && base->kind != ExprKind::Ct && base->kind != ExprKind::Exthdr)
		throw LangError(v.loc, "syntax error, a payload is set to a value, a header field, meta, ct, "
				       "numgen, a hash or a map");
	// the source's dependency first: a protocol that conflicts with the
	// target's is nft's first complaint
	dependency(*base);
	const KeyPart src = keypart_of_expr(*base);
	if (src.type->id != TYPE_INTEGER && src.type->id != tp.type->id)
		throw mismatch(src.type->desc);
	// (an option's or extension header's integer goes anywhere, as nft
	// types it without a length of its own)
	const bool bit_field = src.shift || src.bits % 8;
	if (src.type->id == TYPE_INTEGER && src.order == ByteOrder::Big && !bit_field && src.bits != tp.bits &&
	    base->kind != ExprKind::Exthdr)
		throw mismatch("integer with length " + std::to_string(src.bits));
	if (v.kind == ExprKind::Binop) {
		Chain c = chain_of(v, tp.bits);
		Load l = load(*c.base, 1);
		if (!l.mask.empty() || l.shift)
			throw LangError(v.loc, "xnft: only & is supported on a bit field");
		emit_chain(c, c.steps.size());
		fills(std::max(l.part.bytes, c.parts.back().bytes));
		return;
	}
	Load l = load(v, 1);
	if (l.part.shift)
		emit_rshift(1, l.part.bytes, l.part.shift);
	if (l.part.order == ByteOrder::Host)
		emit_hton(1, l.part);
	fills(l.part.bytes);
}

// nft's payload statement (evaluate.c stmt_evaluate_payload,
// netlink_gen_payload_stmt): the field's dependency as a match's, then
// the value into register 1 and a payload write of it, with the
// protocol's checksum to fix (its type and offset) and the pseudo-header
// flag for fields the transport's checksum covers. A raw payload has no
// protocol: no dependency, no checksum. A write that is no whole bytes,
// or that a checksum needs 16-bit aligned and is not, is widened to the
// bytes around it (an odd number of bytes by one more: the one before
// when it starts at an odd byte, else the one after): those are loaded,
// the field's bits cleared and the value's set (one bitwise), and written
// back whole. nft takes only a constant value there.
void Linearizer::payload_set(const Stmt &s)
{
	const Expr &target = *s.lhs;
	const Expr &v = *s.rhs;
	if (v.kind == ExprKind::Foreign) {
		foreign_value(v);
		return;
	}
	KeyPart tp = keypart_of_expr(target);
	uint32_t base;
	unsigned offset, bits;
	PayloadChecksum csum;
	if (target.kind == ExprKind::RawPayload) {
		if (target.raw_offset / 8 > 0xffff)
			throw LangError(target.loc, "Could not process rule: Numerical result out of range");
		base = target.raw_base;
		offset = target.raw_offset;
		bits = target.raw_bits;
	} else {
		const PayloadField *f = find_payload(target.proto, target.text);
		base = f->base;
		offset = f->offset;
		bits = f->bits;
		csum = payload_checksum(*f);
	}
	dependency(target);
	tp.shift = 0;
	tp.bytes = (bits + 7) / 8;
	unsigned at = offset / 8;
	unsigned len = (offset % 8 + bits + 7) / 8;
	const bool need_csum = csum.type != NFT_PAYLOAD_CSUM_NONE;
	const bool adjust = offset % 8 || bits % 8 || (need_csum && (offset % 16 || bits % 16));
	if (!adjust) {
		payload_set_value(s, tp);
	} else {
		unsigned shift = len * 8 - offset % 8 - bits;
		if (need_csum && len % 2) {
			len++;
			if (at % 2)
				at--;
			else
				shift += 8;
		}
		const Expr *vbase = &v;
		while (vbase->kind == ExprKind::Binop)
			vbase = vbase->items[0].get();
		if (vbase->kind != ExprKind::Value && vbase->kind != ExprKind::List) {
			// nft shifts the value into place and xors it in, which it
			// cannot do with a value known only when the rule runs
			if (v.kind == ExprKind::Map)
				throw LangError(target.loc, shift ? "Value " + std::to_string(shift) +
									    " exceeds valid range 0-0"
								  : "Binary operation (^) is undefined for map expressions");
			dependency(*vbase);
			const KeyPart src = keypart_of_expr(*vbase);
			if (src.type->id != TYPE_INTEGER && src.type->id != tp.type->id)
				throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
						", expression has type " + src.type->desc, span(target.loc, v.loc));
			const bool src_bits = src.shift || src.bits % 8;
			if (src.type->id == TYPE_INTEGER && src.order == ByteOrder::Big && !src_bits &&
			    src.bits != bits && vbase->kind != ExprKind::Exthdr)
				throw LangError(v.loc, std::string("datatype mismatch: expected ") + tp.type->desc +
						", expression has type integer with length " +
						std::to_string(src.bits), span(target.loc, v.loc));
			if (vbase->kind == ExprKind::Numgen || vbase->kind == ExprKind::Hash ||
			    vbase->kind == ExprKind::Meta || vbase->kind == ExprKind::Ct)
				throw LangError(v.loc, "xnft: this value cannot be set into a part of a byte "
						       "(nft 1.0.6 fails an assertion on it)");
			// the source's shift down and the shift into place, as nft
			// 1.0.6 checks them against the source's length: not for a
			// bit field across bytes that starts inside one (`ip6 dscp`)
			const unsigned src_offset = vbase->kind == ExprKind::RawPayload ? vbase->raw_offset :
						    vbase->kind == ExprKind::Exthdr
							    ? vbase->exthdr_offset
							    : find_payload(vbase->proto, vbase->text)->offset;
			if (!(src_bits && src.bytes > 1 && src_offset % 8)) {
				if (src.shift >= src.bits)
					throw LangError(vbase->loc, "Right shift of " + std::to_string(src.shift) +
							" bits is undefined for type of " +
							std::to_string(src.bits) + " bits width");
				if (shift >= src.bits)
					throw LangError(target.loc, "Left shift of " + std::to_string(shift) +
							" bits is undefined for type of " +
							std::to_string(src.bits) + " bits width", v.loc);
			}
			throw LangError(shift ? target.loc : v.loc,
					"Right hand side of binary operation (^) must be constant", target.loc);
		}
		KeyPart wide = tp;
		wide.bytes = len;
		wide.shift = shift;
		// a whole-byte value comes back as long as the field: placed last
		Bytes x = flags_value(wide, v, shift);
		x.insert(x.begin(), len - std::min<size_t>(len, x.size()), 0);
		Bytes mask = bit_field_mask(bits, shift, len);
		for (auto &b : mask)
			b = static_cast<uint8_t>(~b);
		emit_payload_load(base, at, len, 1);
		emit_bitwise(1, mask, x);
		offset = at * 8;
		tp.bytes = len;
	}
	nftnl_expr *e = new_expr("payload");
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_SREG, nft_reg(1));
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE, base);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, offset / 8);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, tp.bytes);
	if (need_csum) {
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_CSUM_TYPE, csum.type);
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_CSUM_OFFSET, csum.offset_bytes);
	}
	if (csum.pseudohdr)
		nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_FLAGS, NFT_PAYLOAD_L4CSUM_PSEUDOHDR);
	nftnl_rule_add_expr(rule_, e);
}

std::string Linearizer::unknown_set(const std::string &name) const
{
	return all_tables ? set_not_found(CacheNames::of(*all_tables), name) : "No such file or directory";
}

void Linearizer::statement(const Stmt &s)
{
	stmt_loc_ = s.loc;
	if (terminal_)
		throw LangError(s.loc, "Statement after terminal statement has no effect", terminal_loc_);
	terminal_ = s.kind == StmtKind::Reject ||
		    (s.kind == StmtKind::Verdict && s.key != "continue");
	if (terminal_)
		terminal_loc_ = s.loc;
	bool after_match = merge_ok_;
	merge_ok_ = false;
	switch (s.kind) {
	case StmtKind::Match:
		if (s.lhs->kind == ExprKind::Foreign) {
			foreign_match(s);
			return;
		}
		match(s);
		if (after_match)
			merge_payloads();
		merge_ok_ = true;
		return;
	case StmtKind::Counter:
	case StmtKind::Quota:
	case StmtKind::Limit:
	case StmtKind::Connlimit:	// never an object map: no rhs
		if (s.rhs) {
			objref_map(s);
			break;
		}
		nftnl_rule_add_expr(rule_, stateful_expr(s));
		return;
	case StmtKind::Verdict:
		emit_verdict(s.key, s.chain, s.loc);
		return;
	case StmtKind::VerdictMap:
		// a map's key of invalid type (expr_evaluate_map)
		if (ct_address_without_version(*s.lhs))
			throw LangError(s.lhs->loc, "specify either ip or ip6 for address matching");
		lookup(*s.lhs, *s.rhs, 0, false, nullptr, true);
		return;
	case StmtKind::CtSet:
	case StmtKind::MetaSet:
		set_stmt(s);
		return;
	case StmtKind::FlowOffload: {
		if (!table_.flowtables.count(s.key))
			throw LangError(s.loc, "Could not process rule: No such file or directory");
		nftnl_expr *e = new_expr("flow_offload");
		nftnl_expr_set_str(e, NFTNL_EXPR_FLOW_TABLE_NAME, s.key.c_str());
		nftnl_rule_add_expr(rule_, e);
		return;
	}
	case StmtKind::Log: {
		nftnl_expr *e = new_expr("log");
		if (s.has_prefix)
			nftnl_expr_set_str(e, NFTNL_EXPR_LOG_PREFIX, s.prefix.c_str());
		if (s.log_group >= 0) {
			// a group's options; level and flags are not sent with one
			nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_GROUP, static_cast<uint16_t>(s.log_group));
			if (s.log_snaplen >= 0)
				nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_SNAPLEN, static_cast<uint32_t>(s.log_snaplen));
			if (s.log_qthreshold >= 0)
				nftnl_expr_set_u16(e, NFTNL_EXPR_LOG_QTHRESHOLD,
						   static_cast<uint16_t>(s.log_qthreshold));
		} else {
			if (s.log_level >= 0)
				nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_LEVEL, static_cast<uint32_t>(s.log_level));
			if (s.log_flags)
				nftnl_expr_set_u32(e, NFTNL_EXPR_LOG_FLAGS, s.log_flags);
		}
		nftnl_rule_add_expr(rule_, e);
		return;
	}
	case StmtKind::Notrack:
		nftnl_rule_add_expr(rule_, new_expr("notrack"));
		return;
	case StmtKind::Reject:
		reject(s);
		return;
	case StmtKind::ExthdrSet:
		exthdr_set(s);
		return;
	case StmtKind::ExthdrReset: {
		// nft's optstrip statement: the option's kind alone, no register
		nftnl_expr *e = new_expr("exthdr");
		nftnl_expr_set_u8(e, NFTNL_EXPR_EXTHDR_TYPE, s.lhs->exthdr_type);
		nftnl_expr_set_u32(e, NFTNL_EXPR_EXTHDR_OP, NFT_EXTHDR_OP_TCPOPT);
		nftnl_rule_add_expr(rule_, e);
		return;
	}
	case StmtKind::PayloadSet:
		payload_set(s);
		return;
	case StmtKind::SetElem:
		dynset(s);
		break;
	case StmtKind::Meter:
		meter(s);
		return;
	case StmtKind::Foreign:
		foreign_stmt(s);
		return;
	}
}

std::string limit_kernel_error(uint64_t rate, uint64_t unit, uint64_t burst, bool bytes)
{
	if (rate == 0)
		return "Invalid argument";
	if (!bytes && burst == 0)
		burst = 5;	// NFT_LIMIT_PKT_BURST_DEFAULT
	uint64_t nsecs, with_burst, tokens;
	bool overflow = __builtin_mul_overflow(unit, uint64_t(1000000000), &nsecs) ||
			__builtin_add_overflow(rate, burst, &with_burst);
	if (!overflow)
		overflow = bytes ? __builtin_mul_overflow(nsecs, with_burst, &tokens)
				 : __builtin_mul_overflow(nsecs / rate, burst, &tokens);
	return overflow ? "Value too large for defined data type" : "";
}

} // namespace xnft
