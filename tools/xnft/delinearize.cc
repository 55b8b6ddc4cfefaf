// delinearize.cc - rule bytecode back to nft text (see delinearize.h).
#include "delinearize.h"
#include "set_userdata.h"

#include <algorithm>
#include <iterator>
#include <cstring>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/udata.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <map>

#include "compiler.h"
#include "protocols.h"
#include "raw_payload.h"

namespace xnft {

static std::string time_text(uint64_t ms, bool numeric);

namespace {

std::string str(const char *s) { return s ? s : ""; }

Bytes get_bytes(nftnl_expr *e, uint16_t attr)
{
	uint32_t n = 0;
	const void *d = nftnl_expr_get(e, attr, &n);
	if (!d)
		return {};
	const uint8_t *p = static_cast<const uint8_t *>(d);
	return Bytes(p, p + n);
}

// nft's register numbers back to 32-bit units (1 = first).
unsigned internal_reg(uint32_t r)
{
	if (r >= NFT_REG32_00)
		return r - NFT_REG32_00 + 1;
	return (r - NFT_REG_1) * 4 + 1;
}

Json verdict_json(int32_t code, const char *chain)
{
	switch (code) {
	case NF_ACCEPT: return Json::wrap("accept", Json());
	case NF_DROP: return Json::wrap("drop", Json());
	case NFT_CONTINUE: return Json::wrap("continue", Json());
	case NFT_RETURN: return Json::wrap("return", Json());
	case NFT_BREAK: return Json::wrap("break", Json());
	case NFT_JUMP: return Json::wrap("jump", Json::wrap("target", Json::string(str(chain))));
	case NFT_GOTO: return Json::wrap("goto", Json::wrap("target", Json::string(str(chain))));
	default: return Json::wrap("verdict", Json::integer(code));
	}
}

Json payload_json(const std::string &proto, const std::string &field)
{
	Json p = Json::object();
	p.set("protocol", Json::string(proto));
	p.set("field", Json::string(field));
	return Json::wrap("payload", std::move(p));
}

// {"match": {"op": OP, "left": L, "right": R}}
Json match_json(const std::string &op, Json left, Json right)
{
	Json m = Json::object();
	m.set("op", Json::string(op));
	m.set("left", std::move(left));
	m.set("right", std::move(right));
	return Json::wrap("match", std::move(m));
}

Json mangle_json(Json key, Json value)
{
	Json m = Json::object();
	m.set("key", std::move(key));
	m.set("value", std::move(value));
	return Json::wrap("mangle", std::move(m));
}

std::string verdict_text(int32_t code, const char *chain)
{
	switch (code) {
	case NF_ACCEPT: return "accept";
	case NF_DROP: return "drop";
	case NFT_CONTINUE: return "continue";
	case NFT_RETURN: return "return";
	case NFT_JUMP: return std::string("jump ") + str(chain);
	case NFT_GOTO: return std::string("goto ") + str(chain);
	default: return "verdict " + std::to_string(code);
	}
}

} // namespace

void stateful_print(nftnl_expr *e, bool stateless, std::string &text, Json &json)
{
	const std::string n = str(nftnl_expr_get_str(e, NFTNL_EXPR_NAME));
	if (n == "connlimit") {
		// `ct count [over] N`; JSON {"ct count": {"val": N, "inv": true}},
		// "inv" only with NFT_CONNLIMIT_F_INV, the count a signed int
		// (json_pack's "i": 4294967295 is -1), as nft 1.0.6 prints them
		const uint32_t count = nftnl_expr_get_u32(e, NFTNL_EXPR_CONNLIMIT_COUNT);
		const bool inv = nftnl_expr_get_u32(e, NFTNL_EXPR_CONNLIMIT_FLAGS) & NFT_CONNLIMIT_F_INV;
		text = "ct count " + std::string(inv ? "over " : "") + std::to_string(count);
		Json c = Json::object();
		c.set("val", Json::integer(static_cast<int32_t>(count)));
		if (inv)
			c.set("inv", Json::boolean(true));
		json = Json::wrap("ct count", std::move(c));
		return;
	}
	if (n == "counter") {
		if (stateless) {
			text = "counter";
			json = Json::wrap("counter", Json());
			return;
		}
		uint64_t pk = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
		uint64_t by = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
		Json c = Json::object();
		c.set("packets", Json::uinteger(pk));
		c.set("bytes", Json::uinteger(by));
		text = "counter packets " + std::to_string(pk) + " bytes " + std::to_string(by);
		json = Json::wrap("counter", std::move(c));
		return;
	}
	if (n == "quota") {
		const uint64_t bytes = nftnl_expr_get_u64(e, NFTNL_EXPR_QUOTA_BYTES);
		const uint64_t used = nftnl_expr_get_u64(e, NFTNL_EXPR_QUOTA_CONSUMED);
		const bool inv = nftnl_expr_get_u32(e, NFTNL_EXPR_QUOTA_FLAGS) & NFT_QUOTA_F_INV;
		std::string unit, used_unit;
		const uint64_t val = data_rate(bytes, unit);
		std::string t = "quota " + std::string(inv ? "over " : "") + std::to_string(val) + " " + unit;
		Json q = Json::object();
		q.set("val", Json::uinteger(val));
		q.set("val_unit", Json::string(unit));
		if (inv)
			q.set("inv", Json::boolean(true));
		if (used && !stateless) {
			const uint64_t u = data_rate(used, used_unit);
			t += " used " + std::to_string(u) + " " + used_unit;
			q.set("used", Json::uinteger(u));
			q.set("used_unit", Json::string(used_unit));
		}
		text = t;
		json = Json::wrap("quota", std::move(q));
		return;
	}
	uint64_t rate = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_RATE);
	uint64_t unit = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_UNIT);
	uint32_t burst = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_BURST);
	bool bytes = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_TYPE) == NFT_LIMIT_PKT_BYTES;
	bool over = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_FLAGS) & NFT_LIMIT_F_INV;
	std::string u = time_unit_name(unit);
	std::string t = std::string("limit rate ") + (over ? "over " : "");
	auto rate_of = data_rate;
	auto scaled = [&](uint64_t v) {
		std::string unit;
		uint64_t n = rate_of(v, unit);
		return std::to_string(n) + " " + unit;
	};
	Json lj = Json::object();
	std::string rate_unit, burst_unit;
	uint64_t jrate = bytes ? rate_of(rate, rate_unit) : rate;
	uint64_t jburst = bytes ? rate_of(burst, burst_unit) : burst;
	lj.set("rate", Json::uinteger(jrate));
	lj.set("burst", Json::uinteger(jburst));
	lj.set("per", Json::string(u));
	if (over)
		lj.set("inv", Json::boolean(true));
	if (bytes) {
		lj.set("rate_unit", Json::string(rate_unit));
		lj.set("burst_unit", Json::string(burst_unit));
	}
	if (bytes) {
		t += scaled(rate) + "/" + u;
		if (burst)
			t += " burst " + scaled(burst);
	} else {
		t += std::to_string(rate) + "/" + u;
		if (burst != 5)
			t += " burst " + std::to_string(burst) + " packets";
	}
	text = t;
	json = Json::wrap("limit", std::move(lj));
}

namespace {

// What a register holds.
struct RegVal {
	enum Kind { None, Payload, Meta, Ct, Imm, MapResult, Generated, Exthdr } kind = None;
	uint32_t base = 0, offset = 0, len = 0;  // Exthdr: base the NFT_EXTHDR_OP_*, key the type
	bool present = false;     // Exthdr: NFT_EXTHDR_F_PRESENT
	uint32_t key = 0;
	int dir = -1;
	Bytes mask;
	uint32_t rshift = 0;      // shifted down to a named set's value
	bool hton = false;
	// every bitwise and ntoh on the value, in order: a bit field's mask,
	// or a user's operators (`meta mark | 0x10`, `meta mark << 1`)
	struct Step {
		uint32_t op;          // NFT_BITWISE_BOOL, _LSHIFT, _RSHIFT, or kNtoh
		Bytes mask, x;        // BOOL
		uint32_t n = 0;       // shifts
	};
	static constexpr uint32_t kNtoh = 0x100;
	std::vector<Step> steps;
	Bytes imm;
	std::string text;         // MapResult: "lhs map { ... }"; Generated: "numgen inc mod 2"
	Json json;                // MapResult: {"map": {...}}; Generated: {"numgen": {...}}
};

struct Printed {
	std::string text;
	Json json;
	int provides = 0;         // 1 network (value in proto), 2 transport, 3 vlan link,
				  // 5 an ICMP type (proto "icmp 3")
	std::string proto;
	bool killed = false;
};

class Delinearizer {
public:
	Delinearizer(const ModelTable &t, const PrintOptions &o) : table_(t), opt_(o) {}
	DelinearizedRule run(nftnl_rule *r);

private:
	struct Field {
		std::string name;      // "tcp dport"
		Json json;             // {"payload": {"protocol": "tcp", "field": "dport"}}
		KeyPart part;
		std::string proto;     // payload protocol or ""
		Layer layer = Layer::None;
		int exthdr_op = -1;    // an extension header's or option's NFT_EXTHDR_OP_*
	};
	Field exthdr_field(const RegVal &v);
	std::vector<Field> fields_of(const RegVal &v, bool &prefix, unsigned &plen);
	Field field_exact(const RegVal &v);
	Field raw_field(uint32_t base, unsigned offset, unsigned bits, unsigned bytes);
	// Whether V's steps are operators nft prints (`meta mark | 0x10`),
	// not a bit field's mask (nor, with MASK_TOO false, one `&`).
	bool has_ops(const RegVal &v, bool mask_too);
	// The field under V's operators as nft's netlink_parse_bitwise
	// rebuilds them: text, JSON, the field, the part of the result;
	// false when no operator shows (a mask of all ones).
	bool ops_expr(const RegVal &v, std::string &text, Json &json, Field &base, KeyPart &part);
	// A set statement's source with its operators, when it has any
	// (its field then makes its dependency redundant).
	void source_ops(const RegVal &src, std::string &text, Json &json);
	std::string ops_value_text(const KeyPart &p, const Bytes &b);
	Json ops_value_json(const KeyPart &p, const Bytes &b);
	void relational(const RegVal &v, uint32_t op, const Bytes &data);
	void range(const RegVal &v, const Bytes &lo, const Bytes &hi, bool neq);
	void set_key(nftnl_set *s, unsigned reg, std::vector<Field> &parts, std::string &lhs, Json &lhs_json);
	void lookup(nftnl_expr *e);
	void learn_icmp_echo(nftnl_set *s, const std::string &proto);
	void objref_map(nftnl_expr *e);
	void dynset(nftnl_expr *e);
	void reject(nftnl_expr *e);
	void payload_write(nftnl_expr *e);
	bool widened_field(const RegVal &t, const Bytes &mask, Field &f, unsigned &shift);
	RegVal numgen(nftnl_expr *e);
	RegVal hash(nftnl_expr *e);
	void consumed_by(const Field &f);
	void emit(const std::string &text, Json json, int provides = 0, const std::string &proto = "");
	std::string value_text(const KeyPart &p, const Bytes &b);
	Json value_js(const KeyPart &p, const Bytes &b);
	// range ends print protocols as numbers (json.c range_expr_json)
	Json range_value_json(const KeyPart &p, const Bytes &b);
	Bytes unshifted(const KeyPart &p, const Bytes &b);
	nftnl_set *find_set(const std::string &name);

	const ModelTable &table_;
	const PrintOptions &opt_;
	std::map<unsigned, RegVal> regs_;
	std::vector<Printed> out_;
	std::string link_ = "ether", net_, l4_;
	int icmp_type_ = -1;      // the ICMP/ICMPv6 type matched so far (-1: none)
};

void Delinearizer::emit(const std::string &text, Json json, int provides, const std::string &proto)
{
	out_.push_back(Printed{text, std::move(json), provides, proto, false});
}

Bytes Delinearizer::unshifted(const KeyPart &p, const Bytes &b)
{
	Bytes v = b;
	if (p.shift) {
		uint64_t x = bytes_value(v, ByteOrder::Big) >> p.shift;
		v.assign(p.bytes, 0);
		for (unsigned i = 0; i < p.bytes; i++)
			v[p.bytes - 1 - i] = static_cast<uint8_t>(x >> (8 * i));
	}
	return v;
}

std::string Delinearizer::value_text(const KeyPart &p, const Bytes &b)
{
	return format_value(*p.type, p.bits, p.order, unshifted(p, b), opt_.numeric);
}

Json Delinearizer::value_js(const KeyPart &p, const Bytes &b)
{
	return value_json(*p.type, p.bits, p.order, unshifted(p, b), opt_.numeric);
}

Json Delinearizer::range_value_json(const KeyPart &p, const Bytes &b)
{
	// json.c range_expr_json: protocols numeric, no service names (-S)
	if (p.type->id == TYPE_INET_PROTOCOL || p.type->id == TYPE_INET_SERVICE)
		return Json::uinteger(bytes_value(unshifted(p, b), p.order));
	return value_js(p, b);
}

nftnl_set *Delinearizer::find_set(const std::string &name)
{
	for (auto *s : table_.sets)
		if (str(nftnl_set_get_str(s, NFTNL_SET_NAME)) == name)
			return s;
	return nullptr;
}

// How many leading bits of the value MASK keeps (a host-order value's
// leading bits are its last bytes), if MASK is such a prefix; else 0.
static unsigned leading_ones(const Bytes &b)
{
	unsigned n = 0;
	for (uint8_t x : b) {
		for (int bit = 7; bit >= 0; bit--) {
			if (!(x & (1 << bit)))
				return n;
			n++;
		}
	}
	return n;
}

static unsigned popcount(const Bytes &b)
{
	unsigned n = 0;
	for (uint8_t x : b)
		n += static_cast<unsigned>(__builtin_popcount(x));
	return n;
}

static unsigned value_prefix_len(const KeyPart &p, Bytes mask)
{
	if (p.order == ByteOrder::Host)
		std::reverse(mask.begin(), mask.end());
	const unsigned ones = leading_ones(mask);
	return ones == popcount(mask) ? ones : 0;
}

// The payload protocol at BASE/OFFSET given what the rule matched so far.
static std::string proto_at(uint32_t base, uint32_t offset, const std::string &link,
			    const std::string &net, const std::string &l4)
{
	if (base == NFT_PAYLOAD_LL_HEADER)
		return offset >= 14 && link == "vlan" ? "vlan" : "ether";
	if (base == NFT_PAYLOAD_NETWORK_HEADER)
		return net;
	if (base != NFT_PAYLOAD_TRANSPORT_HEADER)
		return "";
	return l4.empty() ? "th" : l4;
}

Delinearizer::Field Delinearizer::field_exact(const RegVal &v)
{
	bool prefix;
	unsigned plen;
	auto fs = fields_of(v, prefix, plen);
	if (fs.size() == 1)
		return fs[0];
	return raw_field(v.base, v.offset * 8, v.len * 8, v.len);
}

// A load no header field covers, as nft prints a raw payload:
// @BASE,OFFSET,LENGTH in bits, its values in hexadecimal.
Delinearizer::Field Delinearizer::raw_field(uint32_t base, unsigned offset, unsigned bits, unsigned bytes)
{
	Field f;
	const char *name = raw_payload_base_name(base);
	f.name = "@" + std::string(name) + "," + std::to_string(offset) + "," + std::to_string(bits);
	Json raw = Json::object();
	raw.set("base", Json::string(name));
	raw.set("offset", Json::integer(offset));
	raw.set("len", Json::integer(bits));
	f.json = Json::wrap("payload", std::move(raw));
	f.part = KeyPart{&xinteger_type(), bits, ByteOrder::Big, bytes};
	return f;
}

std::vector<Delinearizer::Field> Delinearizer::fields_of(const RegVal &v, bool &prefix, unsigned &plen)
{
	prefix = false;
	plen = 0;
	std::vector<Field> out;
	if (v.kind == RegVal::Meta) {
		const MetaKey *m = meta_by_key(v.key);
		Field f;
		f.name = meta_expr_text(v.key);
		f.json = Json::wrap("meta", Json::wrap("key", Json::string(m ? m->name : "key" + std::to_string(v.key))));
		f.part = m ? KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8}
			   : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
		out.push_back(f);
		return out;
	}
	if (v.kind == RegVal::Ct) {
		const CtKey *k = ct_by_key(v.key);
		Field f;
		const std::string name = ct_key_text(v.key);
		f.name = ct_expr_text(v.key, v.dir);
		Json ct = Json::object();
		ct.set("key", Json::string(name));
		if (v.dir == 0 || v.dir == 1)
			ct.set("dir", Json::string(v.dir == 0 ? "original" : "reply"));
		f.json = Json::wrap("ct", std::move(ct));
		f.part = k ? KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8}
			   : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
		out.push_back(f);
		return out;
	}
	if (v.kind == RegVal::Generated) {
		Field f;
		f.name = v.text;
		f.json = v.json;
		f.part = KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
		out.push_back(f);
		return out;
	}
	if (v.kind == RegVal::Exthdr) {
		out.push_back(exthdr_field(v));
		return out;
	}
	if (v.kind != RegVal::Payload)
		return out;
	std::string proto = proto_at(v.base, v.offset, link_, net_, l4_);
	size_t n;
	const PayloadField *all = payload_fields_all(n);
	unsigned start = v.offset * 8, end = (v.offset + v.len) * 8;
	// nft names a load by the protocol the rule matched at its base
	// (payload_expr_complete): none at the network header, the inner
	// header, or the transport header but for th's own two ports, loaded
	// exactly, leaves it raw
	if (proto.empty() || (proto == "th" && (v.len != 2 || (v.offset != 0 && v.offset != 2)))) {
		out.push_back(raw_field(v.base, start, end - start, v.len));
		return out;
	}
	// bit field under a mask
	if (!v.mask.empty()) {
		for (size_t i = 0; i < n; i++) {
			const PayloadField &f = all[i];
			if (proto != f.proto || f.base != v.base)
				continue;
			if (f.offset / 8 != v.offset || (f.offset % 8 + f.bits + 7) / 8 != v.len)
				continue;
			unsigned shift = v.len * 8 - f.offset % 8 - f.bits;
			uint64_t m = ((f.bits >= 64 ? ~0ull : (1ull << f.bits) - 1)) << shift;
			Bytes mb(v.len);
			for (unsigned k = 0; k < v.len; k++)
				mb[v.len - 1 - k] = static_cast<uint8_t>(m >> (8 * k));
			if (mb == v.mask && (f.offset % 8 || f.bits % 8)) {
				Field o;
				o.name = std::string(f.proto) + " " + f.name;
				o.json = payload_json(f.proto, f.name);
				o.part = KeyPart{&datatype(f.type), f.bits, ByteOrder::Big, v.len, shift};
				o.proto = f.proto;
				o.layer = proto_layer(f.proto);
				out.push_back(o);
				return out;
			}
		}
	}
	for (unsigned pos = start; pos < end;) {
		const PayloadField *best = nullptr;
		for (size_t i = 0; i < n; i++) {
			const PayloadField &f = all[i];
			if (proto != f.proto || f.base != v.base || f.offset != pos || f.bits % 8)
				continue;
			// nft's payload_expr_complete: an ICMP field of another
			// type than the one the rule matched is not this one
			if (!icmp_dep_allows(icmp_field_dep(f.proto, f.name), icmp_type_))
				continue;
			if (pos + f.bits <= end && (!best || f.bits > best->bits))
				best = &f;
			if (pos + f.bits > end && out.empty() && pos == start && v.mask.empty() &&
			    f.type != TYPE_ETHERTYPE) {
				// shortened load: a byte-aligned prefix of the field,
				// whatever its type (`tcp dport 0/8`, `tcp sequence
				// 16777216/8`); nft 1.0.6 crashes listing an ether type's
				// (`ether type 0x800/8`)
				prefix = true;
				plen = end - start;
				Field o;
				o.name = std::string(f.proto) + " " + f.name;
				o.json = payload_json(f.proto, f.name);
				o.part = KeyPart{&datatype(f.type), f.bits, ByteOrder::Big, f.bits / 8};
				o.proto = f.proto;
				o.layer = proto_layer(f.proto);
				out.push_back(o);
				return out;
			}
		}
		if (!best) {
			out.clear();
			out.push_back(raw_field(v.base, start, end - start, v.len));
			return out;
		}
		Field o;
		o.name = std::string(best->proto) + " " + best->name;
		o.json = payload_json(best->proto, best->name);
		o.part = KeyPart{&datatype(best->type), best->bits, ByteOrder::Big, best->bits / 8};
		o.proto = best->proto;
		o.layer = proto_layer(best->proto);
		out.push_back(o);
		pos += best->bits;
	}
	return out;
}

// An exthdr load as nft names it (exthdr_expr_print, exthdr_expr_json):
// the field whose template covers the load (under a bit field's mask),
// else "unknown" and an integer; a presence is a boolean. A TCP option
// nft has no name for is written raw; the sack blocks after the first are
// sack1..sack3. An SCTP chunk type nft has no name for (nft 1.0.6 fails
// its assertion on one) is "unknown-exthdr".
Delinearizer::Field Delinearizer::exthdr_field(const RegVal &v)
{
	Field o;
	o.exthdr_op = static_cast<int>(v.base);
	const uint8_t type = static_cast<uint8_t>(v.key);
	const char *name = exthdr_name(v.base, type);
	const ExthdrField *t = nullptr;
	unsigned shift = 0, bits = v.len * 8;
	bool masked_unknown = false;
	t = exthdr_at(v.base, type, v.offset * 8, v.len * 8);
	if (!v.mask.empty() && v.base != NFT_EXTHDR_OP_SCTP) {
		// the bit field whose mask this is (nft 1.0.6's
		// exthdr_find_template; an SCTP chunk keeps its whole field under
		// the mask). Found: the field replaces the load. Not found: an IP
		// or TCP option keeps the field it loaded, an IPv6 header's load
		// was made over again from the mask and is "unknown" (its type
		// stays the field's: the compared value prints as before).
		const ExthdrField *bit_field = nullptr;
		for (unsigned off = v.offset * 8; off < (v.offset + v.len) * 8 && !bit_field; off++)
			for (unsigned b = 1; off + b <= (v.offset + v.len) * 8 && !bit_field; b++) {
				const ExthdrField *f = exthdr_at(v.base, type, off, b);
				if (!f)
					continue;
				const unsigned sh = (v.offset + v.len) * 8 - off - b;
				const uint64_t m = ((b >= 64 ? ~0ull : (1ull << b) - 1)) << sh;
				if (bytes_value(v.mask, ByteOrder::Big) == m) {
					bit_field = f;
					shift = sh;
					bits = b;
				}
			}
		if (bit_field)
			t = bit_field;
		else if (v.base == NFT_EXTHDR_OP_IPV6)
			masked_unknown = true;
	}
	const char *token = t && !masked_unknown ? t->field : "unknown";
	const unsigned offset = t ? t->offset : v.offset * 8;
	if (v.present)
		o.part = KeyPart{&datatype(TYPE_BOOLEAN), 8, ByteOrder::Big, 1};
	else
		o.part = KeyPart{&datatype(t ? t->type_id : TYPE_INTEGER), bits, ByteOrder::Big, v.len, shift};
	Json j = Json::object();
	if (v.base == NFT_EXTHDR_OP_TCPOPT) {
		if (!name) {
			if (v.offset == 0 && v.present)
				o.name = "tcp option " + std::to_string(type);
			else
				o.name = "tcp option @" + std::to_string(type) + "," + std::to_string(v.offset * 8) +
					 "," + std::to_string(v.len * 8);
			j.set("base", Json::integer(type));
			j.set("offset", Json::integer(v.offset * 8));
			j.set("len", Json::integer(v.len * 8));
			o.json = Json::wrap("tcp option", std::move(j));
			return o;
		}
		const unsigned block = offset / 64;
		const std::string full = std::string(name) + (block && block < 4 ? std::to_string(block) : "");
		o.name = "tcp option " + (v.present ? std::string(name) : full + " " + token);
		j.set("name", Json::string(full));
		if (!v.present)
			j.set("field", Json::string(token));
		o.json = Json::wrap("tcp option", std::move(j));
		return o;
	}
	// an IPv6 header's load names the header whose template it matched
	// (a routing header's srh or rt0 fields)
	const std::string n = v.base == NFT_EXTHDR_OP_IPV6 && t && !masked_unknown ? t->name :
			      name ? name : "unknown-exthdr";
	j.set("name", Json::string(n));
	if (!v.present)
		j.set("field", Json::string(token));
	if (v.base == NFT_EXTHDR_OP_IPV4) {
		o.name = "ip option " + n + (v.present ? "" : std::string(" ") + token);
		o.json = Json::wrap("ip option", std::move(j));
	} else if (v.base == NFT_EXTHDR_OP_SCTP) {
		o.name = "sctp chunk " + n + (v.present ? "" : std::string(" ") + token);
		o.json = Json::wrap("sctp chunk", std::move(j));
	} else {
		o.name = v.present ? "exthdr " + n : n + " " + token;
		o.json = Json::wrap("exthdr", std::move(j));
	}
	return o;
}

// A payload of protocol P makes the matching dependency redundant, as
// long as only matches stand between them: nft's rule_parse_postprocess
// forgets the dependencies it has seen at every other statement
// (rule_maybe_reset_payload_deps), so `meta protocol ip counter ip saddr
// 1.2.3.4` and `meta protocol ip meta mark set 1 ip ttl set 9` keep theirs.
void Delinearizer::consumed_by(const Field &f)
{
	if (f.exthdr_op >= 0) {
		// nft's exthdr_dependency_kill: a TCP option drops the match that
		// named the transport protocol (whichever it named), an IP option
		// or IPv6 header the one that named the network protocol
		// (not across a statement other than a match); an SCTP chunk
		// keeps both (nft adds no dependency for one)
		if (f.exthdr_op == NFT_EXTHDR_OP_SCTP)
			return;
		const bool tcpopt = f.exthdr_op == NFT_EXTHDR_OP_TCPOPT;
		for (auto it = out_.rbegin(); it != out_.rend() && it->json.get("match"); ++it)
			if (!it->killed && (tcpopt ? it->provides == 2 || it->provides == 4 : it->provides == 1)) {
				it->killed = true;
				it->provides = 0;
				break;
			}
		return;
	}
	if (f.proto.empty())
		return;
	auto kill_last = [&](int provides, const std::string &proto) {
		for (auto it = out_.rbegin(); it != out_.rend() && it->json.get("match"); ++it)
			if (!it->killed && it->provides == provides && it->proto == proto) {
				it->killed = true;
				it->provides = 0;
				return;
			}
	};
	if (f.proto == "vlan") {
		kill_last(3, "vlan");
	} else if (f.proto == "ip" || f.proto == "ip6" || f.proto == "arp") {
		kill_last(1, f.proto);
	} else if (f.proto == "icmp" || f.proto == "icmpv6") {
		// a field of one ICMP type drops the match on that type
		// (an echo field's set of two types stays)
		const int dep = icmp_field_dep(f.proto, f.name.substr(f.proto.size() + 1));
		if (dep >= 0 && dep != kIcmpDepEcho && dep != kIcmp6DepEcho)
			kill_last(5, f.proto + " " + std::to_string(dep));
		kill_last(2, f.proto);
		kill_last(1, f.proto == "icmp" ? "ip" : "ip6");
	} else if (f.layer == Layer::Transport) {
		kill_last(2, f.proto);
	}
}

static std::string op_text(uint32_t op)
{
	switch (op) {
	case NFT_CMP_NEQ: return "!= ";
	case NFT_CMP_LT: return "< ";
	case NFT_CMP_LTE: return "<= ";
	case NFT_CMP_GT: return "> ";
	case NFT_CMP_GTE: return ">= ";
	default: return "";
	}
}

static std::string op_json(uint32_t op)
{
	switch (op) {
	case NFT_CMP_NEQ: return "!=";
	case NFT_CMP_LT: return "<";
	case NFT_CMP_LTE: return "<=";
	case NFT_CMP_GT: return ">";
	case NFT_CMP_GTE: return ">=";
	default: return "==";
	}
}


// The flags of @data one by one, lowest bit first, each as a value of
// @data's size and byte order.
static std::vector<Bytes> flag_bits(const Bytes &data, ByteOrder order)
{
	std::vector<Bytes> bits;
	uint64_t x = bytes_value(data, order);
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(x & (1ull << bit)))
			continue;
		Bytes one(data.size(), 0);
		for (size_t i = 0; i < one.size() && i < 8; i++) {
			size_t at = order == ByteOrder::Big ? one.size() - 1 - i : i;
			one[at] = static_cast<uint8_t>((1ull << bit) >> (8 * i));
		}
		bits.push_back(std::move(one));
	}
	return bits;
}

// Several flags (@data, a value of @p as a whole field) as nft writes them
// joined: `syn | ack`; in JSON a left-nested `|` of the flags.
static std::string flags_or_text(const KeyPart &p, const Bytes &data, bool numeric)
{
	std::string t;
	for (const Bytes &b : flag_bits(data, p.order))
		t += (t.empty() ? "" : " | ") + format_value(*p.type, p.bits, p.order, b, numeric);
	return t;
}

static Json flags_or_json(const KeyPart &p, const Bytes &data, bool numeric)
{
	Json acc;
	for (const Bytes &b : flag_bits(data, p.order)) {
		Json v = value_json(*p.type, p.bits, p.order, b, numeric);
		if (acc.is_null()) {
			acc = std::move(v);
			continue;
		}
		Json pair = Json::array();
		pair.push(std::move(acc));
		pair.push(std::move(v));
		acc = Json::wrap("|", std::move(pair));
	}
	return acc;
}

/*
 * Several flags compared whole (relational_expr_print): a payload field's
 * print as a number (`tcp flags == 0x12`), the others' (ct) as
 * `established | related`. One flag or none leaves @value and @right.
 */
static void whole_flags(const KeyPart &p, bool payload, const Bytes &data, bool numeric,
			std::string &value, Json &right)
{
	if (!p.type->bitmask || popcount(data) <= 1)
		return;
	if (payload) {
		const uint64_t x = bytes_value(data, p.order);
		char buf[32];
		snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(x));
		value = buf;
		right = Json::uinteger(x);
	} else {
		value = flags_or_text(p, data, numeric);
		right = Json::wrap("|", flags_json(*p.type, p.order, data, numeric));
	}
}

static bool all_ones(const Bytes &b)
{
	return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0xff; });
}

static bool all_zero(const Bytes &b)
{
	return std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
}

bool Delinearizer::has_ops(const RegVal &v, bool mask_too)
{
	if (v.steps.empty())
		return false;
	const RegVal::Step &first = v.steps[0];
	if ((v.kind == RegVal::Payload || v.kind == RegVal::Exthdr) && first.op == NFT_BITWISE_BOOL &&
	    all_zero(first.x)) {
		// a bit field's own mask (and its shift down to a named set's
		// value) is the field
		RegVal m = v;
		m.steps.resize(1);
		const Field f = field_exact(m);
		if (f.part.shift || f.part.bits % 8)
			return false;
	}
	if (v.steps.size() > 1 || first.op != NFT_BITWISE_BOOL)
		return true;
	return mask_too || !all_zero(first.x) || all_ones(first.mask);
}

std::string Delinearizer::ops_value_text(const KeyPart &p, const Bytes &b)
{
	if (p.type->bitmask && popcount(b) > 1)
		return "(" + flags_or_text(p, b, opt_.numeric) + ")";
	return value_text(p, b);
}

Json Delinearizer::ops_value_json(const KeyPart &p, const Bytes &b)
{
	if (p.type->bitmask && popcount(b) > 1)
		return flags_or_json(p, b, opt_.numeric);
	return value_js(p, b);
}

bool Delinearizer::ops_expr(const RegVal &v, std::string &text, Json &json, Field &base, KeyPart &part)
{
	RegVal plain = v;
	plain.steps.clear();
	plain.mask.clear();
	plain.rshift = 0;
	base = field_exact(plain);
	part = base.part;
	text = base.name;
	json = base.json;
	// binop_arg_print: a left side that binds more loosely is in
	// parentheses (`(meta mark & 0xff) << 2`)
	int prec = 5;
	bool any = false;
	auto apply = [&](const char *op, int op_prec, const std::string &rt, Json rj) {
		if (prec < op_prec)
			text = "(" + text + ")";
		text += std::string(" ") + op + " " + rt;
		Json args = Json::array();
		args.push(std::move(json));
		args.push(std::move(rj));
		json = Json::wrap(op, std::move(args));
		prec = op_prec;
		any = true;
	};
	for (const RegVal::Step &st : v.steps) {
		if (st.op == RegVal::kNtoh)
			continue;
		if (st.op != NFT_BITWISE_BOOL) {
			apply(st.op == NFT_BITWISE_LSHIFT ? "<<" : ">>", 4, std::to_string(st.n), Json::integer(st.n));
			continue;
		}
		// netlink_parse_bitwise_bool: (x & m) ^ x' | o
		Bytes m = st.mask, x = st.x, o(m.size(), 0);
		x.resize(m.size(), 0);
		if (!all_ones(m) || !all_zero(x)) {
			for (size_t i = 0; i < m.size(); i++) {
				o[i] = static_cast<uint8_t>((m[i] & x[i]) ^ x[i]);
				x[i] &= m[i];
				m[i] |= o[i];
			}
		}
		KeyPart p = part;
		if (m.size() != p.bytes)
			p = KeyPart{p.type, static_cast<unsigned>(m.size() * 8), ByteOrder::Host,
				    static_cast<unsigned>(m.size())};
		if (!all_ones(m))
			apply("&", 3, ops_value_text(p, m), ops_value_json(p, m));
		if (!all_zero(x))
			apply("^", 2, ops_value_text(p, x), ops_value_json(p, x));
		if (!all_zero(o))
			apply("|", 1, ops_value_text(p, o), ops_value_json(p, o));
	}
	return any;
}

void Delinearizer::source_ops(const RegVal &src, std::string &text, Json &json)
{
	if (src.kind == RegVal::Imm || src.kind == RegVal::MapResult || !has_ops(src, true))
		return;
	Field f;
	KeyPart p;
	std::string t;
	Json j;
	ops_expr(src, t, j, f, p);
	consumed_by(f);
	text = t;
	json = std::move(j);
}

void Delinearizer::relational(const RegVal &v, uint32_t op, const Bytes &data_in)
{
	Bytes data = data_in;
	if (v.hton)
		std::reverse(data.begin(), data.end());
	if (has_ops(v, false)) {
		std::string text;
		Json left;
		Field f;
		KeyPart p;
		RegVal plain = v;
		plain.steps.clear();
		plain.mask.clear();
		if (!ops_expr(v, text, left, f, p)) {
			// nothing shows (`meta mark | 0`): the field alone
			relational(plain, op, data_in);
			return;
		}
		consumed_by(f);
		// relational_expr_print: `==` written after an operator
		std::string value = value_text(p, data);
		Json right = value_js(p, data);
		whole_flags(p, !f.proto.empty(), data, opt_.numeric, value, right);
		emit(text + " " + op_json(op) + " " + value, match_json(op_json(op), std::move(left), std::move(right)));
		return;
	}
	bool prefix;
	unsigned plen;
	auto fs = fields_of(v, prefix, plen);
	if (fs.empty()) {
		emit("# unknown expression", Json::string("# unknown expression"));
		return;
	}
	const TypeId type = fs[0].part.type->id;
	if (!prefix && fs.size() == 1 && v.mask.empty() && data.size() < fs[0].part.bytes &&
	    type != TYPE_STRING && type != TYPE_IFNAME) {
		// a compare of the value's first bytes (netlink_parse_cmp): a
		// prefix of them (`ct original ip saddr 10.0.0.0/8`)
		prefix = true;
		plen = static_cast<unsigned>(data.size() * 8);
	}
	if (prefix) {
		const Field &f = fs[0];
		consumed_by(f);
		Bytes full(f.part.bytes, 0);
		std::copy(data.begin(), data.end(), full.begin());
		Json pj = Json::object();
		pj.set("addr", value_js(f.part, full));
		pj.set("len", Json::integer(plen));
		emit(f.name + " " + op_text(op) + value_text(f.part, full) + "/" + std::to_string(plen),
		     match_json(op_json(op), f.json, Json::wrap("prefix", std::move(pj))));
		return;
	}
	if (fs.size() > 1) {
		size_t at = 0;
		for (auto &f : fs) {
			Bytes part(data.begin() + static_cast<long>(at), data.begin() + static_cast<long>(at + f.part.bytes));
			at += f.part.bytes;
			consumed_by(f);
			// a protocol field split out of a merged load is a dependency
			// as one matched alone (an exthdr drops it)
			const uint64_t x = bytes_value(part, ByteOrder::Big);
			int provides = 0;
			std::string proto;
			if ((f.name == "ether type" || f.name == "vlan type") && x != 0x8100) {
				net_ = x == 0x0800 ? "ip" : x == 0x86dd ? "ip6" : x == 0x0806 ? "arp" : "";
				provides = 1;
				proto = net_;
			} else if (f.name == "icmp type" || f.name == "icmpv6 type") {
				icmp_type_ = static_cast<int>(x);
				provides = 5;
				proto = f.proto + " " + std::to_string(x);
			}
			emit(f.name + " " + value_text(f.part, part), match_json("==", f.json, value_js(f.part, part)),
			     provides, proto);
		}
		return;
	}
	const Field &f = fs[0];
	const KeyPart &p = f.part;
	// a match on the vlan's own type leaves `ether type 8021q` listed
	// (nft: `ether type 8021q vlan type ip`); a set lookup on it, or any
	// other vlan field, drops it
	if (f.name != "vlan type")
		consumed_by(f);
	const bool numeric = opt_.numeric;
	if (!v.mask.empty() && p.shift == 0 && !((f.proto.size() || f.exthdr_op >= 0) && p.bits % 8)) {
		// a mask on a whole field: flags, or a prefix on an address
		bool zero = std::all_of(data.begin(), data.end(), [](uint8_t x) { return x == 0; });
		if (p.type->bitmask && zero && (op == NFT_CMP_NEQ || op == NFT_CMP_EQ)) {
			// `ct state established,related` / `tcp flags ! syn,ack`
			bool implicit = op == NFT_CMP_NEQ;
			emit(f.name + (implicit ? " " : " ! ") + value_text(p, v.mask),
			     match_json(implicit ? "in" : "!", f.json, flags_json(*p.type, p.order, v.mask, numeric)));
			return;
		}
		// nft lists a mark under a mask of the value's leading bits as
		// a prefix (mark_type is DTYPE_F_PREFIX): `meta mark 0x00010000/16`
		auto emit_prefix = [&](unsigned bits) {
			Json pj = Json::object();
			pj.set("addr", value_js(p, data));
			pj.set("len", Json::integer(bits));
			emit(f.name + " " + op_text(op) + value_text(p, data) + "/" + std::to_string(bits),
			     match_json(op_json(op), f.json, Json::wrap("prefix", std::move(pj))));
		};
		const unsigned mark_prefix = p.type->id == TYPE_MARK ? value_prefix_len(p, v.mask) : 0;
		if (mark_prefix && (op == NFT_CMP_EQ || op == NFT_CMP_NEQ)) {
			emit_prefix(mark_prefix);
			return;
		}
		// nft makes a prefix of a mask only on types that have one
		// (DTYPE_F_PREFIX: addresses, a mark as above); others keep the `&`
		if (p.type->id != TYPE_IPADDR && p.type->id != TYPE_IP6ADDR && p.type->id != TYPE_ETHERADDR) {
			Json and_args = Json::array();
			and_args.push(f.json);
			and_args.push(p.type->bitmask ? flags_json(*p.type, p.order, v.mask, numeric)
						      : value_js(p, v.mask));
			Json left = Json::wrap("&", std::move(and_args));
			Json m = match_json(op_json(op), std::move(left),
					    p.type->bitmask ? flags_json(*p.type, p.order, data, numeric)
							    : value_js(p, data));
			if (p.type->bitmask && (op == NFT_CMP_EQ || op == NFT_CMP_NEQ) && popcount(v.mask) > 1)
				// nft prints flags under a mask of several as
				// `[!= ]value / mask`, and one flag as `& syn != syn`
				emit(f.name + (op == NFT_CMP_NEQ ? " != " : " ") + value_text(p, data) + " / " +
				     value_text(p, v.mask), std::move(m));
			else
				emit(f.name + " & " + value_text(p, v.mask) + " " + op_json(op) + " " +
				     value_text(p, data), std::move(m));
			return;
		}
		emit_prefix(leading_ones(v.mask));
		return;
	}
	// a flag type compared whole says so: `tcp flags == syn`
	std::string op_str = (p.type->bitmask && op == NFT_CMP_EQ) ? "== " : op_text(op);
	std::string value = value_text(p, data);
	Json right = value_js(p, data);
	whole_flags(p, !f.proto.empty(), data, numeric, value, right);
	std::string text = f.name + " " + op_str + value;
	Json json = match_json(op_json(op), f.json, std::move(right));
	int provides = 0;
	std::string proto;
	if (op == NFT_CMP_EQ) {
		uint64_t x = bytes_value(data, p.order);
		auto net_of = [](uint64_t t) -> std::string {
			return t == 0x0800 ? "ip" : t == 0x86dd ? "ip6" : t == 0x0806 ? "arp" : "";
		};
		auto l4_of = [](uint64_t t) -> std::string {
			if (t == 6 || t == 17 || t == 1 || t == 58)
				return t == 6 ? "tcp" : t == 17 ? "udp" : t == 1 ? "icmp" : "icmpv6";
			const char *other = t <= 255 ? other_transport_name(uint8_t(t)) : nullptr;
			return other ? other : "";
		};
		if (f.name == "meta protocol" || f.name == "vlan type" ||
		    (f.name == "ether type" && x != 0x8100)) {
			net_ = net_of(x);
			provides = 1;
			proto = net_;
		} else if (f.name == "ether type" && x == 0x8100) {
			link_ = "vlan";
			provides = 3;
			proto = "vlan";
		} else if (f.name == "icmp type" || f.name == "icmpv6 type") {
			icmp_type_ = static_cast<int>(x);
			provides = 5;
			proto = f.proto + " " + std::to_string(x);
		} else if (f.name == "meta l4proto" || f.name == "ip protocol" || f.name == "ip6 nexthdr") {
			if (f.name == "meta l4proto" && (x == 1 || x == 58)) {
				// nft's meta_may_dependency_kill: `meta l4proto icmp`
				// (icmpv6) drops the network protocol matched before it
				// (across matches only), unless that is the other IP
				// version: `meta protocol ip meta l4proto icmp` lists
				// as `meta l4proto icmp`
				for (auto it = out_.rbegin(); it != out_.rend() && it->json.get("match"); ++it) {
					if (it->killed || it->provides != 1)
						continue;
					if (!(it->proto == "ip6" && x == 1) && !(it->proto == "ip" && x == 58)) {
						it->killed = true;
						it->provides = 0;
					}
					break;
				}
			}
			l4_ = l4_of(x);
			// a network header's protocol field only a TCP option drops
			provides = f.name == "meta l4proto" ? 2 : 4;
			proto = l4_;
		}
	}
	emit(text, std::move(json), provides, proto);
}

void Delinearizer::range(const RegVal &v, const Bytes &lo_in, const Bytes &hi_in, bool neq)
{
	Bytes lo = lo_in, hi = hi_in;
	if (v.hton) {
		std::reverse(lo.begin(), lo.end());
		std::reverse(hi.begin(), hi.end());
	}
	Field f = field_exact(v);
	std::string lhs = f.name;
	Json lhs_json = f.json;
	if (has_ops(v, true)) {
		// `meta mark & 0xff 1-5`, `meta mark ^ 0x10 1-5`: no `==`
		KeyPart p;
		RegVal plain = v;
		plain.steps.clear();
		plain.mask.clear();
		f = field_exact(plain);
		lhs = f.name;
		lhs_json = f.json;
		ops_expr(v, lhs, lhs_json, f, p);
		f.part = p;
	}
	consumed_by(f);
	Json r = Json::array();
	r.push(range_value_json(f.part, lo));
	r.push(range_value_json(f.part, hi));
	// a range prints its ends numerically (expression.c range_expr_print
	// lists them with NFT_CTX_OUTPUT_NUMERIC_ALL): `icmp type 1-5`, `ether
	// type 0x0800-0x0806`, as `-n` prints them
	auto end_text = [&](const Bytes &b) {
		return format_range_end(*f.part.type, f.part.bits, f.part.order, unshifted(f.part, b));
	};
	// nft writes `==` before a raw payload's masked range
	// (`@th,8,8 & 0x7 == 0x1-0x5`), which it does not for a field's
	const bool raw_ops = lhs.rfind("@", 0) == 0 && lhs != f.name;
	emit(lhs + " " + (neq ? "!= " : raw_ops ? "== " : "") + end_text(lo) + "-" + end_text(hi),
	     match_json(neq ? "!=" : "==", std::move(lhs_json), Json::wrap("range", std::move(r))));
}

// The key a lookup or an objref reads from REG on: the fields loaded
// there, as many as S's key holds, as text (a concatenation's bit fields
// with their shift: `ip version >> 4 . ip dscp >> 2`) and JSON.
void Delinearizer::set_key(nftnl_set *s, unsigned reg, std::vector<Field> &parts, std::string &lhs,
			   Json &lhs_json)
{
	uint32_t key_len = s ? nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN) : 4;
	std::vector<uint32_t> shifts;
	unsigned covered = 0;
	while (covered < key_len) {
		auto it = regs_.find(reg);
		if (it == regs_.end())
			break;
		Field f = field_exact(it->second);
		consumed_by(f);
		parts.push_back(f);
		shifts.push_back(it->second.rshift);
		unsigned slots = (f.part.bytes + 3) / 4;
		covered += parts.size() == 1 && f.part.bytes == key_len ? f.part.bytes : slots * 4;
		reg += slots;
	}
	// nft shows the shift of a bit field inside a concatenation (not of
	// a field alone): `ip version >> 4 . ip dscp >> 2 @s`.
	Json parts_json = Json::array();
	for (size_t i = 0; i < parts.size(); i++) {
		lhs += (i ? " . " : "") + parts[i].name;
		Json j = parts[i].json;
		if (parts.size() > 1 && shifts[i]) {
			lhs += " >> " + std::to_string(shifts[i]);
			Json op = Json::array();
			op.push(std::move(j));
			op.push(Json::integer(shifts[i]));
			j = Json::wrap(">>", std::move(op));
		}
		parts_json.push(std::move(j));
	}
	lhs_json = parts_json.size() == 1 ? parts_json.items()[0] : Json::wrap("concat", parts_json);
}

// nft's echo dependency, `icmp type { echo-reply, echo-request }`, tells
// the fields after it (payload_expr_complete): a load at the id is the id
// and sequence, not the gateway.
void Delinearizer::learn_icmp_echo(nftnl_set *s, const std::string &proto)
{
	const bool v6 = proto == "icmpv6";
	const uint8_t request = v6 ? 128 : 8, reply = v6 ? 129 : 0;
	unsigned seen = 0, other = 0;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *el = nftnl_set_elems_iter_next(it); el; el = nftnl_set_elems_iter_next(it)) {
		uint32_t n = 0;
		const uint8_t *k = static_cast<const uint8_t *>(nftnl_set_elem_get(el, NFTNL_SET_ELEM_KEY, &n));
		if (n == 1 && k[0] == request)
			seen |= 1;
		else if (n == 1 && k[0] == reply)
			seen |= 2;
		else
			other++;
	}
	nftnl_set_elems_iter_destroy(it);
	if (seen == 3 && !other && icmp_type_ < 0)
		icmp_type_ = v6 ? kIcmp6DepEcho : kIcmpDepEcho;
}

void Delinearizer::lookup(nftnl_expr *e)
{
	std::string name = str(nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET));
	nftnl_set *s = find_set(name);
	if (!s && opt_.unknown_set_lookups_dropped)
		return;
	std::vector<Field> parts;
	std::string lhs;
	Json lhs_json;
	set_key(s, internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG)), parts, lhs, lhs_json);
	// A whole field under a mask (`tcp flags & (syn | ack) == { syn, ack }`):
	// nft writes the `&` and the operator; a flag mask of several flags
	// in parentheses, and in JSON as `|` of its flags.
	bool masked = false;
	if (parts.size() == 1 && has_ops(regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG))], false)) {
		// other operators (`meta mark | 0x10 == { 1, 2 }`)
		const RegVal &kv = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG))];
		Field f;
		KeyPart p;
		std::string t;
		Json j;
		if (ops_expr(kv, t, j, f, p)) {
			lhs = t;
			lhs_json = std::move(j);
			masked = true;
		}
	} else if (parts.size() == 1) {
		const RegVal &kv = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG))];
		const KeyPart &p = parts[0].part;
		if (!kv.mask.empty() && !p.shift && p.bits == p.bytes * 8 && kv.mask.size() == p.bytes &&
		    !std::all_of(kv.mask.begin(), kv.mask.end(), [](uint8_t b) { return b == 0xff; })) {
			std::string mtext;
			Json mjson;
			if (p.type->bitmask && popcount(kv.mask) > 1) {
				mtext = "(" + flags_or_text(p, kv.mask, opt_.numeric) + ")";
				mjson = flags_or_json(p, kv.mask, opt_.numeric);
			} else {
				mtext = value_text(p, kv.mask);
				mjson = value_js(p, kv.mask);
			}
			lhs += " & " + mtext;
			Json and_args = Json::array();
			and_args.push(std::move(lhs_json));
			and_args.push(std::move(mjson));
			lhs_json = Json::wrap("&", std::move(and_args));
			masked = true;
		}
	}
	bool inv = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_FLAGS) &&
		   (nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_FLAGS) & NFT_LOOKUP_F_INV);
	bool anon = s && (nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS);
	bool is_map = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_DREG);
	if (anon && !inv && !is_map && !masked && parts.size() == 1 &&
	    (parts[0].name == "icmp type" || parts[0].name == "icmpv6 type"))
		learn_icmp_echo(s, parts[0].proto);
	std::vector<KeyPart> keys;
	for (auto &p : parts)
		keys.push_back(p.part);
	// a raw payload's values print in hexadecimal where nft types them
	// by it, but a map's (or a masked) key alone takes the set's integer
	if (keys.size() == 1 && (is_map || masked) && keys[0].type->hex)
		keys[0].type = &datatype(TYPE_INTEGER);
	std::string rhs;
	Json rhs_json;
	if (anon) {
		bool verdict = is_map && nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_DREG) == NFT_REG_VERDICT;
		KeyPart data{};
		bool has_data = false;
		if (is_map && !verdict) {
			data = datapart_of_set(s);
			has_data = true;
		}
		rhs = format_elements(s, keys, has_data ? &data : nullptr, verdict, opt_.numeric, opt_.stateless);
		rhs_json = Json::wrap("set", elements_json(s, keys, has_data ? &data : nullptr, verdict, opt_.numeric,
							   opt_.stateless));
	} else {
		rhs = "@" + name;
		rhs_json = Json::string(rhs);
	}
	auto map_json = [&](const char *kind) {
		Json m = Json::object();
		m.set("key", lhs_json);
		m.set("data", rhs_json);
		return Json::wrap(kind, std::move(m));
	};
	if (is_map) {
		uint32_t dreg = nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_DREG);
		if (dreg == NFT_REG_VERDICT) {
			emit(lhs + " vmap " + rhs, map_json("vmap"));
			return;
		}
		RegVal m;
		m.kind = RegVal::MapResult;
		m.text = lhs + " map " + rhs;
		m.json = map_json("map");
		regs_[internal_reg(dreg)] = m;
		return;
	}
	emit(lhs + " " + (inv ? "!= " : masked ? "== " : "") + rhs,
	     match_json(inv ? "!=" : "==", lhs_json, rhs_json));
}

// objref_stmt_print of an object map (nft 1.0.6): `counter|quota|limit
// name KEY map @m|{ KEY : "NAME", ... }`, the word the map's object type
// (a statement may name a map of another type); JSON {"counter": {"map":
// {"key": KEY, "data": "@m"|{"set": [...]}}}}.
void Delinearizer::objref_map(nftnl_expr *e)
{
	const std::string name = str(nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_SET_NAME));
	nftnl_set *s = find_set(name);
	std::vector<Field> parts;
	std::string lhs;
	Json lhs_json;
	set_key(s, internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_SET_SREG)), parts, lhs, lhs_json);
	const uint32_t type = s && nftnl_set_is_set(s, NFTNL_SET_OBJ_TYPE) ? nftnl_set_get_u32(s, NFTNL_SET_OBJ_TYPE) : 0;
	const char *word = type == NFT_OBJECT_COUNTER ? "counter" : type == NFT_OBJECT_QUOTA ? "quota" :
			   type == NFT_OBJECT_LIMIT ? "limit" : "unknown";
	std::string rhs;
	Json rhs_json;
	if (s && (nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS)) {
		std::vector<KeyPart> keys;
		for (auto &p : parts)
			keys.push_back(p.part);
		rhs = format_elements(s, keys, nullptr, false, opt_.numeric, opt_.stateless);
		rhs_json = Json::wrap("set", elements_json(s, keys, nullptr, false, opt_.numeric, opt_.stateless));
	} else {
		rhs = "@" + name;
		rhs_json = Json::string(rhs);
	}
	Json m = Json::object();
	m.set("key", std::move(lhs_json));
	m.set("data", std::move(rhs_json));
	emit(std::string(word) + " name " + lhs + " map " + rhs, Json::wrap(word, Json::wrap("map", std::move(m))));
}

// set_stmt_print, map_stmt_print and meter_stmt_print (nft 1.0.6): `OP @SET { KEY [timeout
// T] [STATEFUL ...] [: DATA] }`, the key's fields (or values, typed by the
// set's key) as a lookup prints them, the stateful statements as -s
// prints them. JSON: {"set": {"op", "elem", "set", "stmt"}}, the key in
// {"elem": {"val", "timeout"}} (seconds) when it has a timeout; a map
// statement as its text, as nft 1.0.6 has no JSON for it.
void Delinearizer::dynset(nftnl_expr *e)
{
	static const char *const op_names[] = {"add", "update", "delete"};
	const uint32_t op = nftnl_expr_get_u32(e, NFTNL_EXPR_DYNSET_OP);
	const std::string op_name = op < 3 ? op_names[op] : "op" + std::to_string(op);
	const std::string name = str(nftnl_expr_get_str(e, NFTNL_EXPR_DYNSET_SET_NAME));
	nftnl_set *s = find_set(name);
	const std::vector<KeyPart> keys = s ? keyparts_of_set(s) : std::vector<KeyPart>{};
	const uint32_t key_len = s ? nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN) : 4;
	unsigned reg = internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_DYNSET_SREG_KEY));
	std::string key;
	Json parts_json = Json::array();
	unsigned covered = 0;
	for (size_t i = 0; covered < key_len; i++) {
		auto it = regs_.find(reg);
		if (it == regs_.end())
			break;
		unsigned bytes;
		if (it->second.kind == RegVal::Imm) {
			const Bytes &imm = it->second.imm;
			const unsigned n = static_cast<unsigned>(imm.size());
			const KeyPart p = i < keys.size() ? keys[i]
							  : KeyPart{&datatype(TYPE_INTEGER), n * 8, ByteOrder::Big, n};
			key += (i ? " . " : "") + value_text(p, Bytes(imm.begin(), imm.begin() + std::min(n, p.bytes)));
			parts_json.push(value_js(p, Bytes(imm.begin(), imm.begin() + std::min(n, p.bytes))));
			bytes = p.bytes;
		} else {
			// a bit field brought down to the set's value shows
			// its shift, alone or in a concatenation
			const Field f = field_exact(it->second);
			consumed_by(f);
			key += (i ? " . " : "") + f.name;
			Json j = f.json;
			if (it->second.rshift) {
				key += " >> " + std::to_string(it->second.rshift);
				Json sh = Json::array();
				sh.push(std::move(j));
				sh.push(Json::integer(it->second.rshift));
				j = Json::wrap(">>", std::move(sh));
			}
			parts_json.push(std::move(j));
			bytes = f.part.bytes;
		}
		const unsigned slots = (bytes + 3) / 4;
		covered += i == 0 && bytes == key_len ? bytes : slots * 4;
		reg += slots;
	}
	Json key_json = parts_json.size() == 1 ? parts_json.items()[0] : Json::wrap("concat", parts_json);
	const uint64_t timeout = nftnl_expr_is_set(e, NFTNL_EXPR_DYNSET_TIMEOUT)
					 ? nftnl_expr_get_u64(e, NFTNL_EXPR_DYNSET_TIMEOUT) : 0;
	if (timeout) {
		key += " timeout " + time_text(timeout, opt_.numeric);
		Json el = Json::object();
		el.set("val", std::move(key_json));
		el.set("timeout", Json::uinteger(timeout / 1000));
		key_json = Json::wrap("elem", std::move(el));
	}
	struct Stateful {
		std::string text;
		Json json;
	};
	std::vector<Stateful> stmts;
	nftnl_expr_expr_foreach(e, [](nftnl_expr *x, void *data) {
		Stateful st;
		stateful_print(x, true, st.text, st.json);
		static_cast<std::vector<Stateful> *>(data)->push_back(std::move(st));
		return 0;
	}, &stmts);
	// nft_dynset_dump: the statements only of a set that has none of its
	// own (the set's are what the kernel gave the dynset then)
	bool set_stmts = false;
	if (s)
		nftnl_set_expr_foreach(s, [](nftnl_expr *, void *has) {
			*static_cast<bool *>(has) = true;
			return 0;
		}, &set_stmts);
	if (set_stmts)
		stmts.clear();
	if (s && !nftnl_expr_is_set(e, NFTNL_EXPR_DYNSET_SREG_DATA) && !stmts.empty() &&
	    (nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS)) {
		// netlink_parse_dynset: a set statement with a statement on an
		// anonymous set is a meter, listed with its first statement and
		// the set's size (meter_stmt_print; JSON's size an int)
		const uint32_t size = nftnl_set_is_set(s, NFTNL_SET_DESC_SIZE)
					      ? nftnl_set_get_u32(s, NFTNL_SET_DESC_SIZE) : 0;
		Json j = Json::object();
		j.set("key", std::move(key_json));
		j.set("stmt", std::move(stmts[0].json));
		j.set("size", Json::integer(static_cast<int32_t>(size)));
		j.set("name", Json::string(name));
		emit("meter " + name + " size " + std::to_string(size) + " { " + key + " " + stmts[0].text + " }",
		     Json::wrap("meter", std::move(j)));
		return;
	}
	std::string text = op_name + " @" + name + " { " + key;
	Json stmt_json = Json::array();
	for (Stateful &st : stmts) {
		text += " " + st.text;
		stmt_json.push(std::move(st.json));
	}
	if (nftnl_expr_is_set(e, NFTNL_EXPR_DYNSET_SREG_DATA)) {
		const RegVal &d = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_DYNSET_SREG_DATA))];
		std::string data;
		if (d.kind == RegVal::Imm) {
			const KeyPart p = s ? datapart_of_set(s)
					    : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Big, 4};
			data = value_text(p, Bytes(d.imm.begin(), d.imm.begin() + std::min<size_t>(d.imm.size(), p.bytes)));
		} else {
			const Field f = field_exact(d);
			consumed_by(f);
			data = f.name;
		}
		text += " : " + data + " }";
		emit(text, Json::string(text));
		return;
	}
	text += " }";
	Json j = Json::object();
	j.set("op", Json::string(op_name));
	j.set("elem", std::move(key_json));
	j.set("set", Json::string("@" + name));
	if (stmt_json.size())
		j.set("stmt", std::move(stmt_json));
	emit(text, Json::wrap("set", std::move(j)));
}

// reject_stmt_print as nft 1.0.6 lists a bridge rule's reject: an ICMP
// reject always with its code, named for the network protocol matched
// (which drops the match nft put first for it, unless a statement other
// than a match stands between); icmpx port-unreachable as plain `reject`.
// JSON names the type and code of every ICMP kind.
void Delinearizer::reject(nftnl_expr *e)
{
	const uint32_t type = nftnl_expr_get_u32(e, NFTNL_EXPR_REJECT_TYPE);
	const Bytes code{nftnl_expr_is_set(e, NFTNL_EXPR_REJECT_CODE) ? nftnl_expr_get_u8(e, NFTNL_EXPR_REJECT_CODE)
								       : uint8_t(0)};
	std::string text = "reject";
	Json j = Json::object();
	auto with = [&](const char *kind, TypeId t, bool print) {
		const KeyPart p{&datatype(t), 8, ByteOrder::Big, 1};
		if (print)
			text += std::string(" with ") + kind + " " + value_text(p, code);
		j.set("type", Json::string(kind));
		j.set("expr", value_js(p, code));
	};
	if (type == NFT_REJECT_TCP_RST) {
		text += " with tcp reset";
		j.set("type", Json::string("tcp reset"));
	} else if (type == NFT_REJECT_ICMPX_UNREACH) {
		with("icmpx", TYPE_ICMPX_CODE, code[0] != NFT_REJECT_ICMPX_PORT_UNREACH);
	} else if (net_ == "ip" || net_ == "ip6") {
		with(net_ == "ip" ? "icmp" : "icmpv6", net_ == "ip" ? TYPE_ICMP_CODE : TYPE_ICMPV6_CODE, true);
		for (auto it = out_.rbegin(); it != out_.rend() && it->json.get("match"); ++it)
			if (!it->killed && it->provides == 1) {
				it->killed = true;
				it->provides = 0;
				break;
			}
	}
	emit(text, Json::wrap("reject", j.size() ? std::move(j) : Json()));
}

// The header field a widened write (nft's load, bitwise, write of the
// bytes around a field) sets: the bits MASK clears, when they are one
// field of the protocol the rule matched at T's base; its part and where
// its value sits in the bytes (SHIFT).
bool Delinearizer::widened_field(const RegVal &t, const Bytes &mask, Field &f, unsigned &shift)
{
	const unsigned n = t.len * 8;
	int first = -1, last = -1;  // bit numbers from the first byte's top
	for (unsigned i = 0; i < n && i / 8 < mask.size(); i++)
		if (!(mask[i / 8] & (0x80u >> (i % 8)))) {
			if (first < 0)
				first = static_cast<int>(i);
			else if (last != static_cast<int>(i) - 1)
				return false;
			last = static_cast<int>(i);
		}
	if (first < 0)
		return false;
	const unsigned offset = t.offset * 8 + static_cast<unsigned>(first);
	const unsigned bits = static_cast<unsigned>(last - first + 1);
	const std::string proto = proto_at(t.base, t.offset, link_, net_, l4_);
	// nft 1.0.6 does not find an ICMP or ICMPv6 type or code there
	if (proto == "icmp" || proto == "icmpv6")
		return false;
	size_t count;
	const PayloadField *all = payload_fields_all(count);
	for (size_t i = 0; i < count; i++) {
		const PayloadField &p = all[i];
		if (proto != p.proto || p.base != t.base || p.offset != offset || p.bits != bits)
			continue;
		f.name = std::string(p.proto) + " " + p.name;
		f.json = payload_json(p.proto, p.name);
		f.part = KeyPart{&datatype(p.type), p.bits, ByteOrder::Big, (p.bits + 7) / 8};
		f.proto = p.proto;
		f.layer = proto_layer(p.proto);
		shift = n - 1 - static_cast<unsigned>(last);
		return true;
	}
	return false;
}

// payload_stmt_print / payload_stmt_json (nft 1.0.6): `FIELD set VALUE`,
// {"mangle": {"key": FIELD, "value": VALUE}}. The field is named as a
// load at its place is, after the rule's protocol context (a raw payload
// then becomes the field there: `tcp dport set 22`); its dependency, and
// a source field's, are dropped. A widened write (the bytes around a bit
// field loaded, the field's bits cleared and the value's set) prints the
// field and its value when the bits are one field nft knows there; else
// nft's stmt_payload_binop_postprocess leaves the bytes' raw payload set
// to itself under the operators (`@th,0,8 set @th,0,8 & 0x1f | 0x10`; a
// value of 0 as the mask it keeps, inverted: `@th,0,8 & 0xf0`).
void Delinearizer::payload_write(nftnl_expr *e)
{
	RegVal t;
	t.kind = RegVal::Payload;
	t.base = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_BASE);
	t.offset = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET);
	t.len = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_LEN);
	const RegVal &src = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_SREG))];
	// (a field written whole with operators on itself, `ip id set ip id
	// | 1`, is no widened write)
	const Field whole = field_exact(t);
	const bool widened = src.kind == RegVal::Payload && src.base == t.base && src.offset == t.offset &&
			     src.len == t.len && src.steps.size() == 1 &&
			     src.steps[0].op == NFT_BITWISE_BOOL && src.steps[0].mask.size() == t.len &&
			     (whole.proto.empty() || whole.part.bits != t.len * 8);
	if (widened) {
		const Bytes &mask = src.steps[0].mask;
		Bytes x = src.steps[0].x;
		x.resize(t.len, 0);
		Field f;
		unsigned shift = 0;
		if (widened_field(t, mask, f, shift)) {
			// the value's bits down to the field's own bytes
			Bytes v(f.part.bytes, 0);
			for (unsigned i = 0; i < f.part.bits; i++) {
				const unsigned from = i + shift;
				if (x[t.len - 1 - from / 8] & (1u << (from % 8)))
					v[f.part.bytes - 1 - i / 8] |= static_cast<uint8_t>(1u << (i % 8));
			}
			consumed_by(f);
			std::string val = value_text(f.part, v);
			Json jval = value_js(f.part, v);
			if (f.part.type->bitmask && popcount(v) > 1) {
				val = flags_or_text(f.part, v, opt_.numeric);
				jval = flags_or_json(f.part, v, opt_.numeric);
			}
			emit(f.name + " set " + val, mangle_json(f.json, std::move(jval)));
			return;
		}
		// the bytes as a load of them prints (an ICMP type's and code's
		// as th sport, their dependencies dropped), else raw
		Field raw = raw_field(t.base, t.offset * 8, t.len * 8, t.len);
		const std::string keep_l4 = l4_;
		const std::string proto = proto_at(t.base, t.offset, link_, net_, l4_);
		if (proto == "icmp" || proto == "icmpv6") {
			Field dep;
			dep.proto = proto;
			dep.name = proto + " type";
			dep.layer = Layer::Transport;
			consumed_by(dep);
			l4_ = "th";
			raw = field_exact(t);
		}
		std::string val;
		Json jval;
		if (all_zero(x)) {
			// a raw payload's mask as the bits it clears, th sport's
			// as the kernel's
			Bytes keep = mask;
			if (raw.proto.empty())
				for (auto &b : keep)
					b = static_cast<uint8_t>(~b);
			Json args = Json::array();
			args.push(raw.json);
			args.push(value_js(raw.part, keep));
			val = raw.name + " & " + value_text(raw.part, keep);
			jval = Json::wrap("&", std::move(args));
		} else {
			Field base;
			KeyPart part;
			ops_expr(src, val, jval, base, part);
		}
		l4_ = keep_l4;
		emit(raw.name + " set " + val, mangle_json(raw.json, std::move(jval)));
		return;
	}
	const Field &f = whole;
	consumed_by(f);
	if ((src.kind == RegVal::Payload && src.steps.empty()) || src.kind == RegVal::Exthdr)
		consumed_by(field_exact(src));
	std::string val;
	Json jval;
	if (src.kind == RegVal::Payload && !src.steps.empty()) {
		// the loaded bytes under their operators, a bit field's mask
		// and shift too (`(@nh,0,8 & 0xf0) >> 4`)
		Field base;
		KeyPart part;
		ops_expr(src, val, jval, base, part);
		consumed_by(base);
	} else if (src.kind == RegVal::Imm) {
		Bytes v = src.imm;
		v.resize(f.part.bytes, 0);
		val = value_text(f.part, v);
		jval = value_js(f.part, v);
		if (f.part.type->bitmask && popcount(v) > 1) {
			val = flags_or_text(f.part, v, opt_.numeric);
			jval = flags_or_json(f.part, v, opt_.numeric);
		}
	} else if (src.kind == RegVal::MapResult) {
		val = src.text;
		jval = src.json;
	} else {
		const Field sf = field_exact(src);
		val = sf.name;
		jval = sf.json;
		source_ops(src, val, jval);
	}
	emit(f.name + " set " + val, mangle_json(f.json, std::move(jval)));
}

// numgen_expr_print / numgen_expr_json: the offset in text only when
// there is one.
RegVal Delinearizer::numgen(nftnl_expr *e)
{
	RegVal v;
	v.kind = RegVal::Generated;
	const bool inc = nftnl_expr_get_u32(e, NFTNL_EXPR_NG_TYPE) == NFT_NG_INCREMENTAL;
	const uint32_t mod = nftnl_expr_get_u32(e, NFTNL_EXPR_NG_MODULUS);
	const uint32_t offset = nftnl_expr_is_set(e, NFTNL_EXPR_NG_OFFSET) ? nftnl_expr_get_u32(e, NFTNL_EXPR_NG_OFFSET) : 0;
	v.text = std::string("numgen ") + (inc ? "inc" : "random") + " mod " + std::to_string(mod);
	if (offset)
		v.text += " offset " + std::to_string(offset);
	Json j = Json::object();
	j.set("mode", Json::string(inc ? "inc" : "random"));
	j.set("mod", Json::uinteger(mod));
	j.set("offset", Json::uinteger(offset));
	v.json = Json::wrap("numgen", std::move(j));
	return v;
}

// hash_expr_print / hash_expr_json: jhash names what it hashes (the fields
// loaded into its source registers, which drop their dependencies), a
// seed only when one was given, an offset when not 0.
RegVal Delinearizer::hash(nftnl_expr *e)
{
	RegVal v;
	v.kind = RegVal::Generated;
	const bool sym = nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_TYPE) == NFT_HASH_SYM;
	const uint32_t mod = nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_MODULUS);
	const uint32_t offset = nftnl_expr_is_set(e, NFTNL_EXPR_HASH_OFFSET) ? nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_OFFSET) : 0;
	std::string key;
	Json key_json;
	if (!sym && nftnl_expr_is_set(e, NFTNL_EXPR_HASH_SREG)) {
		unsigned reg = internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_SREG));
		const uint32_t len = nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_LEN);
		Json parts = Json::array();
		for (unsigned covered = 0; covered < len;) {
			auto it = regs_.find(reg);
			if (it == regs_.end())
				break;
			Field f = field_exact(it->second);
			consumed_by(f);
			key += (key.empty() ? "" : " . ") + f.name;
			parts.push(f.json);
			const unsigned slots = (f.part.bytes + 3) / 4;
			covered += parts.size() == 1 && f.part.bytes == len ? f.part.bytes : slots * 4;
			reg += slots;
		}
		key_json = parts.size() == 1 ? parts.items()[0] : Json::wrap("concat", std::move(parts));
	}
	v.text = sym ? "symhash" : "jhash " + key;
	v.text += " mod " + std::to_string(mod);
	Json j = Json::object();
	j.set("mod", Json::uinteger(mod));
	if (!sym && nftnl_expr_is_set(e, NFTNL_EXPR_HASH_SEED)) {
		char buf[16];
		const uint32_t seed = nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_SEED);
		snprintf(buf, sizeof buf, "0x%x", seed);
		v.text += std::string(" seed ") + buf;
		j.set("seed", Json::uinteger(seed));
	}
	if (offset) {
		v.text += " offset " + std::to_string(offset);
		j.set("offset", Json::uinteger(offset));
	}
	if (!sym)
		j.set("expr", std::move(key_json));
	v.json = Json::wrap(sym ? "symhash" : "jhash", std::move(j));
	return v;
}

DelinearizedRule Delinearizer::run(nftnl_rule *r)
{
	std::vector<nftnl_expr *> xs;
	nftnl_expr_iter *it = nftnl_expr_iter_create(r);
	for (nftnl_expr *x = nftnl_expr_iter_next(it); x; x = nftnl_expr_iter_next(it))
		xs.push_back(x);
	nftnl_expr_iter_destroy(it);
	for (size_t i = 0; i < xs.size(); i++) {
		nftnl_expr *e = xs[i];
		std::string n = str(nftnl_expr_get_str(e, NFTNL_EXPR_NAME));
		if (n == "payload") {
			RegVal v;
			v.kind = RegVal::Payload;
			v.base = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_BASE);
			v.offset = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET);
			v.len = nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_LEN);
			if (nftnl_expr_is_set(e, NFTNL_EXPR_PAYLOAD_SREG)) {
				payload_write(e);
				continue;
			}
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_DREG))] = v;
		} else if (n == "exthdr") {
			RegVal v;
			v.kind = RegVal::Exthdr;
			v.base = nftnl_expr_is_set(e, NFTNL_EXPR_EXTHDR_OP) ? nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_OP) : 0;
			v.key = nftnl_expr_get_u8(e, NFTNL_EXPR_EXTHDR_TYPE);
			v.offset = nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_OFFSET);
			v.len = nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_LEN);
			v.present = nftnl_expr_is_set(e, NFTNL_EXPR_EXTHDR_FLAGS) &&
				    (nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_FLAGS) & NFT_EXTHDR_F_PRESENT);
			if (v.base == NFT_EXTHDR_OP_TCPOPT && !nftnl_expr_is_set(e, NFTNL_EXPR_EXTHDR_SREG) &&
			    !nftnl_expr_is_set(e, NFTNL_EXPR_EXTHDR_DREG)) {
				// optstrip_stmt_print: `reset tcp option NAME|KIND`
				const uint8_t kind = static_cast<uint8_t>(v.key);
				const char *name = exthdr_name(NFT_EXTHDR_OP_TCPOPT, kind);
				Json j = Json::object();
				if (name) {
					j.set("name", Json::string(name));
				} else {
					j.set("base", Json::integer(kind));
					j.set("offset", Json::integer(0));
					j.set("len", Json::integer(0));
				}
				emit(std::string("reset tcp option ") + (name ? name : std::to_string(kind)),
				     Json::wrap("reset", Json::wrap("tcp option", std::move(j))));
				continue;
			}
			if (nftnl_expr_is_set(e, NFTNL_EXPR_EXTHDR_SREG)) {
				// exthdr_stmt_print: the field set to the register's value
				const RegVal &src = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_SREG))];
				const Field f = exthdr_field(v);
				std::string val = src.kind == RegVal::Imm ? value_text(f.part, src.imm) : field_exact(src).name;
				Json jval = src.kind == RegVal::Imm ? value_js(f.part, src.imm) : field_exact(src).json;
				emit(f.name + " set " + val, mangle_json(f.json, std::move(jval)));
				continue;
			}
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_EXTHDR_DREG))] = v;
		} else if (n == "meta") {
			if (nftnl_expr_is_set(e, NFTNL_EXPR_META_SREG)) {
				const MetaKey *m = meta_by_key(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY));
				std::string target = meta_expr_text(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY));
				if (target.rfind("meta ", 0) != 0)
					target = "meta " + target;
				const RegVal &src = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_META_SREG))];
				// a field in the value drops its dependency (expr_postprocess)
				if (src.kind == RegVal::Exthdr || src.kind == RegVal::Payload)
					consumed_by(field_exact(src));
				KeyPart p = m ? KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8}
					      : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
				std::string val = src.kind == RegVal::Imm ? value_text(p, src.imm) :
						  src.kind == RegVal::MapResult ? src.text : field_exact(src).name;
				Json jval = src.kind == RegVal::Imm ? value_js(p, src.imm) :
					    src.kind == RegVal::MapResult ? src.json : field_exact(src).json;
				source_ops(src, val, jval);
				Json key = Json::wrap("meta", Json::wrap("key", Json::string(
					m ? m->name : "key" + std::to_string(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY)))));
				emit(target + " set " + val, mangle_json(std::move(key), std::move(jval)));
				continue;
			}
			RegVal v;
			v.kind = RegVal::Meta;
			v.key = nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY);
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_META_DREG))] = v;
		} else if (n == "ct") {
			if (nftnl_expr_is_set(e, NFTNL_EXPR_CT_SREG)) {
				uint32_t key = nftnl_expr_get_u32(e, NFTNL_EXPR_CT_KEY);
				const CtKey *k = ct_by_key(key);
				const RegVal &src = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_CT_SREG))];
				// a field in the value drops its dependency (expr_postprocess)
				if (src.kind == RegVal::Exthdr || src.kind == RegVal::Payload)
					consumed_by(field_exact(src));
				KeyPart p = k ? KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8}
					      : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
				std::string val = src.kind == RegVal::Imm ? value_text(p, src.imm) :
						  src.kind == RegVal::MapResult ? src.text : field_exact(src).name;
				Json jval = src.kind == RegVal::Imm ? value_js(p, src.imm) :
					    src.kind == RegVal::MapResult ? src.json : field_exact(src).json;
				source_ops(src, val, jval);
				Json target = Json::wrap("ct", Json::wrap("key", Json::string(k ? k->name : "?")));
				emit("ct " + std::string(k ? k->name : "?") + " set " + val,
				     mangle_json(std::move(target), std::move(jval)));
				continue;
			}
			RegVal v;
			v.kind = RegVal::Ct;
			v.key = nftnl_expr_get_u32(e, NFTNL_EXPR_CT_KEY);
			if (nftnl_expr_is_set(e, NFTNL_EXPR_CT_DIR))
				v.dir = nftnl_expr_get_u8(e, NFTNL_EXPR_CT_DIR);
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_CT_DREG))] = v;
		} else if (n == "bitwise") {
			RegVal &v = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_SREG))];
			// A shift after the mask only brings a bit field down to
			// a named set's value: the field is the masked one.
			const uint32_t op = nftnl_expr_is_set(e, NFTNL_EXPR_BITWISE_OP)
						    ? nftnl_expr_get_u32(e, NFTNL_EXPR_BITWISE_OP)
						    : uint32_t(NFT_BITWISE_BOOL);
			RegVal::Step st;
			st.op = op;
			if (op == NFT_BITWISE_BOOL) {
				v.mask = get_bytes(e, NFTNL_EXPR_BITWISE_MASK);
				st.mask = v.mask;
				st.x = get_bytes(e, NFTNL_EXPR_BITWISE_XOR);
			} else {
				const Bytes d = get_bytes(e, NFTNL_EXPR_BITWISE_DATA);
				uint32_t n = 0;
				if (d.size() == 4)
					memcpy(&n, d.data(), 4);
				if (op == NFT_BITWISE_RSHIFT)
					v.rshift = n;
				st.n = n;
			}
			v.steps.push_back(std::move(st));
		} else if (n == "byteorder") {
			RegVal &v = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_SREG))];
			if (nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_OP) == NFT_BYTEORDER_NTOH)
				v.steps.push_back(RegVal::Step{RegVal::kNtoh, {}, {}, 0});
			else
				v.hton = true;
		} else if (n == "cmp") {
			unsigned reg = internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_SREG));
			uint32_t op = nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP);
			Bytes d = get_bytes(e, NFTNL_EXPR_CMP_DATA);
			if (op == NFT_CMP_GTE && i + 1 < xs.size() &&
			    str(nftnl_expr_get_str(xs[i + 1], NFTNL_EXPR_NAME)) == "cmp" &&
			    nftnl_expr_get_u32(xs[i + 1], NFTNL_EXPR_CMP_OP) == NFT_CMP_LTE &&
			    internal_reg(nftnl_expr_get_u32(xs[i + 1], NFTNL_EXPR_CMP_SREG)) == reg) {
				range(regs_[reg], d, get_bytes(xs[i + 1], NFTNL_EXPR_CMP_DATA), false);
				i++;
				continue;
			}
			relational(regs_[reg], op, d);
		} else if (n == "range") {
			unsigned reg = internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_RANGE_SREG));
			range(regs_[reg], get_bytes(e, NFTNL_EXPR_RANGE_FROM_DATA),
			      get_bytes(e, NFTNL_EXPR_RANGE_TO_DATA),
			      nftnl_expr_get_u32(e, NFTNL_EXPR_RANGE_OP) == NFT_RANGE_NEQ);
		} else if (n == "lookup") {
			lookup(e);
		} else if (n == "dynset") {
			dynset(e);
		} else if (n == "immediate") {
			uint32_t dreg = nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_DREG);
			if (dreg == NFT_REG_VERDICT) {
				int32_t code = static_cast<int32_t>(nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT));
				const char *chain = nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN);
				emit(verdict_text(code, chain), verdict_json(code, chain));
			} else {
				RegVal v;
				v.kind = RegVal::Imm;
				v.imm = get_bytes(e, NFTNL_EXPR_IMM_DATA);
				regs_[internal_reg(dreg)] = v;
			}
		} else if (n == "counter" || n == "quota" || n == "limit" || n == "connlimit") {
			std::string t;
			Json j;
			stateful_print(e, opt_.stateless, t, j);
			emit(t, std::move(j));
		} else if (n == "objref" && nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_SET_NAME)) {
			objref_map(e);
		} else if (n == "objref" &&
			   nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_IMM_NAME) &&
			   nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE) == NFT_OBJECT_COUNTER) {
			// objref_stmt_print: the name always quoted; JSON the bare name
			const std::string name = nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_IMM_NAME);
			emit("counter name \"" + name + "\"", Json::wrap("counter", Json::string(name)));
		} else if (n == "objref" &&
			   nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_IMM_NAME) &&
			   nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE) == NFT_OBJECT_QUOTA) {
			const std::string name = nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_IMM_NAME);
			emit("quota name \"" + name + "\"", Json::wrap("quota", Json::string(name)));
		} else if (n == "objref" &&
			   nftnl_expr_is_set(e, NFTNL_EXPR_OBJREF_IMM_NAME) &&
			   nftnl_expr_get_u32(e, NFTNL_EXPR_OBJREF_IMM_TYPE) == NFT_OBJECT_LIMIT) {
			const std::string name = nftnl_expr_get_str(e, NFTNL_EXPR_OBJREF_IMM_NAME);
			emit("limit name \"" + name + "\"", Json::wrap("limit", Json::string(name)));
		} else if (n == "log") {
			std::string t = "log";
			Json lj;
			Json o = Json::object();
			bool any = false;
			if (nftnl_expr_is_set(e, NFTNL_EXPR_LOG_PREFIX)) {
				t += " prefix \"" + str(nftnl_expr_get_str(e, NFTNL_EXPR_LOG_PREFIX)) + "\"";
				o.set("prefix", Json::string(str(nftnl_expr_get_str(e, NFTNL_EXPR_LOG_PREFIX))));
				any = true;
			}
			// nft's log_stmt_print: group's options, then a level other
			// than warn, then the flags
			const struct { uint32_t attr; const char *name; bool u16; } group_opts[] = {
				{NFTNL_EXPR_LOG_GROUP, "group", true},
				{NFTNL_EXPR_LOG_SNAPLEN, "snaplen", false},
				{NFTNL_EXPR_LOG_QTHRESHOLD, "queue-threshold", true},
			};
			for (auto &g : group_opts) {
				if (!nftnl_expr_is_set(e, g.attr))
					continue;
				uint32_t v = g.u16 ? nftnl_expr_get_u16(e, g.attr) : nftnl_expr_get_u32(e, g.attr);
				t += std::string(" ") + g.name + " " + std::to_string(v);
				o.set(g.name, Json::uinteger(v));
				any = true;
			}
			if (nftnl_expr_is_set(e, NFTNL_EXPR_LOG_LEVEL)) {
				uint32_t l = nftnl_expr_get_u32(e, NFTNL_EXPR_LOG_LEVEL);
				if (l != kLogLevelWarn) {
					std::string name = l < std::size(kLogLevelNames) ? kLogLevelNames[l]
											 : std::to_string(l);
					t += " level " + name;
					o.set("level", Json::string(name));
					any = true;
				}
			}
			uint32_t fl = nftnl_expr_is_set(e, NFTNL_EXPR_LOG_FLAGS) ?
				      nftnl_expr_get_u32(e, NFTNL_EXPR_LOG_FLAGS) : 0;
			std::vector<std::string> fj;
			if ((fl & kLogAll) == kLogAll) {
				t += " flags all";
				fj.push_back("all");
			} else {
				if (fl & (kLogTcpSeq | kLogTcpOpt)) {
					t += " flags tcp";
					const char *delim = " ";
					if (fl & kLogTcpSeq) {
						t += " sequence";
						delim = ",";
						fj.push_back("tcp sequence");
					}
					if (fl & kLogTcpOpt) {
						t += std::string(delim) + "options";
						fj.push_back("tcp options");
					}
				}
				if (fl & kLogIpOpt) {
					t += " flags ip options";
					fj.push_back("ip options");
				}
				if (fl & kLogUid) {
					t += " flags skuid";
					fj.push_back("skuid");
				}
				if (fl & kLogMacDecode) {
					t += " flags ether";
					fj.push_back("ether");
				}
			}
			if (fj.size() == 1) {
				o.set("flags", Json::string(fj[0]));
				any = true;
			} else if (fj.size() > 1) {
				Json a = Json::array();
				for (auto &f : fj)
					a.push(Json::string(f));
				o.set("flags", std::move(a));
				any = true;
			}
			emit(t, Json::wrap("log", any ? std::move(o) : Json()));
		} else if (n == "flow_offload") {
			std::string ft = str(nftnl_expr_get_str(e, NFTNL_EXPR_FLOW_TABLE_NAME));
			Json fj = Json::object();
			fj.set("op", Json::string("add"));
			fj.set("flowtable", Json::string("@" + ft));
			emit("flow add @" + ft, Json::wrap("flow", std::move(fj)));
		} else if (n == "notrack") {
			emit("notrack", Json::wrap("notrack", Json()));
		} else if (n == "reject") {
			reject(e);
		} else if (n == "numgen") {
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_NG_DREG))] = numgen(e);
		} else if (n == "hash") {
			RegVal v = hash(e);
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_HASH_DREG))] = std::move(v);
		} else {
			emit("# " + n, Json::string("# " + n));
		}
	}
	DelinearizedRule res;
	res.expr = Json::array();
	std::string &text = res.text;
	for (auto &p : out_) {
		if (p.killed)
			continue;
		text += (text.empty() ? "" : " ") + p.text;
		res.expr.push(std::move(p.json));
	}
	uint32_t ulen = 0;
	const void *ud = nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &ulen);
	if (ud && ulen > 2) {
		const uint8_t *u = static_cast<const uint8_t *>(ud);
		// TLV: type 0 = comment
		size_t at = 0;
		while (at + 2 <= ulen) {
			uint8_t type = u[at], len = u[at + 1];
			if (at + 2 + len > ulen)
				break;
			if (type == 0 && len > 0) {
				res.comment = std::string(reinterpret_cast<const char *>(u + at + 2), len - 1);
				res.has_comment = true;
				text += " comment \"" + res.comment + "\"";
			}
			at += 2 + len;
		}
	}
	return res;
}

} // namespace

const char *time_unit_name(uint64_t seconds)
{
	switch (seconds) {
	case 1: return "second";
	case 60: return "minute";
	case 3600: return "hour";
	case 86400: return "day";
	case 604800: return "week";
	default: return "error";
	}
}

uint64_t data_rate(uint64_t v, std::string &unit)
{
	const char *units[] = {"bytes", "kbytes", "mbytes"};
	int i = 0;
	while (i < 2 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	unit = units[i];
	return v;
}

static SetUserdataOut userdata_of(nftnl_set *s)
{
	uint32_t len = 0;
	const void *ud = nftnl_set_is_set(s, NFTNL_SET_USERDATA) ? nftnl_set_get_data(s, NFTNL_SET_USERDATA, &len) : nullptr;
	return parse_set_userdata(ud, len);
}

// A part of type @t, @bytes long: its bits and byte order from the typeof
// expression (@tp) or the byte order nft recorded, else the type's.
static KeyPart part_of(const DataType &t, unsigned bytes, const TypeofPart *tp, int byteorder)
{
	if (tp)
		return KeyPart{tp->hex ? &xinteger_type() : &t, tp->bits, tp->order, (tp->bits + 7) / 8};
	const ByteOrder order = byteorder == 2 ? ByteOrder::Big : byteorder == 1 ? ByteOrder::Host : t.order;
	return KeyPart{&t, bytes * 8, order, bytes};
}

std::vector<KeyPart> keyparts_of_set(nftnl_set *s)
{
	uint32_t kt = nftnl_set_get_u32(s, NFTNL_SET_KEY_TYPE);
	uint32_t kl = nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN);
	std::vector<KeyPart> parts;
	std::vector<uint32_t> ids;
	if (kt < 64) {
		ids.push_back(kt);
	} else {
		while (kt) {
			ids.insert(ids.begin(), kt & 63);
			kt >>= 6;
		}
	}
	const SetUserdataOut ud = userdata_of(s);
	const bool typed = ud.key_parts.size() == ids.size();
	for (size_t i = 0; i < ids.size(); i++) {
		const DataType &t = datatype(static_cast<TypeId>(ids[i]));
		if (ids.size() == 1)
			parts.push_back(part_of(t, kl, typed ? &ud.key_parts[0] : nullptr, ud.key_byteorder));
		else
			parts.push_back(typed ? part_of(t, 0, &ud.key_parts[i], -1)
					      : KeyPart{&t, t.bits, t.order, (t.bits + 7) / 8});
	}
	return parts;
}

KeyPart datapart_of_set(nftnl_set *s)
{
	const DataType &t = datatype(static_cast<TypeId>(nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE)));
	const SetUserdataOut ud = userdata_of(s);
	return part_of(t, nftnl_set_get_u32(s, NFTNL_SET_DATA_LEN),
		       ud.data_parts.size() == 1 ? &ud.data_parts[0] : nullptr, ud.data_byteorder);
}

// The length of the prefix [lo, hi] spans, or -1 when it is no prefix.
static int prefix_len_of(const Bytes &lo, const Bytes &hi)
{
	const size_t nbits = lo.size() * 8;
	size_t k = 0;
	auto bit = [](const Bytes &b, size_t i) { return (b[i / 8] >> (7 - i % 8)) & 1; };
	while (k < nbits && bit(lo, k) == bit(hi, k))
		k++;
	for (size_t i = k; i < nbits; i++)
		if (bit(lo, i) || !bit(hi, i))
			return -1;
	return static_cast<int>(k);
}

// One element of a concatenated interval set, as nft 1.0.6 lists it
// (segtree.c, concat_range_aggregate): each field on its own, a single
// value when its start and end agree, a/len when they span a prefix and the
// type prints prefixes (IPv4 and IPv6 addresses), else a-b.
static ElementItem concat_range_item(const std::vector<KeyPart> &keys, const Bytes &lo, const Bytes &hi,
				     bool numeric, const std::string &data, const Json &data_json)
{
	std::string text;
	Json parts = Json::array();
	size_t at = 0;
	for (const KeyPart &p : keys) {
		auto field = [&](const Bytes &k) {
			const size_t end = std::min(k.size(), at + p.bytes);
			return Bytes(k.begin() + static_cast<long>(std::min(at, end)), k.begin() + static_cast<long>(end));
		};
		Bytes a = field(lo), b = field(hi);
		at += (p.bytes + 3) / 4 * 4;
		if (p.order == ByteOrder::Host && p.bytes > 1) {
			// held big-endian in such sets (nft converts them)
			std::reverse(a.begin(), a.end());
			std::reverse(b.begin(), b.end());
		}
		std::string t;
		Json j;
		const bool addr = p.type->id == TYPE_IPADDR || p.type->id == TYPE_IP6ADDR;
		const int plen = addr && a != b ? prefix_len_of(a, b) : -1;
		if (a == b) {
			t = format_value(*p.type, p.bits, p.order, a, numeric);
			j = value_json(*p.type, p.bits, p.order, a, numeric);
		} else if (plen >= 0) {
			t = format_value(*p.type, p.bits, p.order, a, numeric) + "/" + std::to_string(plen);
			Json pj = Json::object();
			pj.set("addr", value_json(*p.type, p.bits, p.order, a, numeric));
			pj.set("len", Json::integer(plen));
			j = Json::wrap("prefix", std::move(pj));
		} else {
			// numerically, as a range's ends print (range_expr_print)
			auto end_text = [&](const Bytes &v) {
				return format_range_end(*p.type, p.bits, p.order, v);
			};
			auto end_json = [&](const Bytes &v) {
				if (p.type->id == TYPE_INET_PROTOCOL || p.type->id == TYPE_INET_SERVICE)
					return Json::uinteger(bytes_value(v, p.order));
				return value_json(*p.type, p.bits, p.order, v, numeric);
			};
			t = end_text(a) + "-" + end_text(b);
			Json r = Json::array();
			r.push(end_json(a));
			r.push(end_json(b));
			j = Json::wrap("range", std::move(r));
		}
		text += (text.empty() ? "" : " . ") + t;
		parts.push(std::move(j));
	}
	Json key = Json::wrap("concat", std::move(parts));
	if (data.empty())
		return {text, std::move(key)};
	Json pair = Json::array();
	pair.push(std::move(key));
	pair.push(data_json);
	return {text + " : " + data, std::move(pair)};
}

// nft's time_print: 1d2h3m4s5ms, whole seconds with -n.
static std::string time_text(uint64_t ms, bool numeric)
{
	Bytes b(8);
	for (int i = 0; i < 8; i++)
		b[i] = static_cast<uint8_t>(ms >> (8 * i));
	return format_value(datatype(TYPE_TIME), 64, ByteOrder::Host, b, numeric);
}

std::vector<ElementItem> element_items(nftnl_set *s, const std::vector<KeyPart> &keys, const KeyPart *data,
				       bool verdict_map, bool numeric, bool stateless)
{
	std::vector<nftnl_set_elem *> all;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it))
		all.push_back(e);
	nftnl_set_elems_iter_destroy(it);
	return element_items(s, all, nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_INTERVAL, keys, data,
			     verdict_map, numeric, stateless);
}

std::vector<ElementItem> element_items(nftnl_set *s, const std::vector<nftnl_set_elem *> &elems, bool interval,
				       const std::vector<KeyPart> &keys, const KeyPart *data, bool verdict_map,
				       bool numeric, bool stateless, bool singles, ElemShow show)
{
	(void)s;
	struct El {
		Bytes key;
		Bytes key_end;	// concatenated intervals (NFTA_SET_ELEM_KEY_END)
		uint32_t flags;
		std::string data;
		Json data_json;
		bool open;
		Bytes sort_key;	// concatenations: nft's order
		uint64_t timeout, expiration;	// ms as dumped (0: none)
		std::optional<std::string> comment;	// from its USERDATA
		// its stateful expressions (NFTA_SET_ELEM_EXPR[ESSIONS]):
		// each as text, the first as JSON (nft 1.0.6 shows one)
		std::string stmts;
		Json stmt_json;		// {"counter": {...}}
		std::string stmt_name;	// "counter": its JSON member's name
		bool stateless;	// the counters' values and quotas' use not shown
	};
	std::vector<El> els;
	for (nftnl_set_elem *e : elems) {
		El el;
		uint32_t n = 0;
		const uint8_t *k = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &n));
		el.key.assign(k, k + n);
		if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_KEY_END)) {
			uint32_t en = 0;
			const uint8_t *ke = static_cast<const uint8_t *>(
				nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY_END, &en));
			el.key_end.assign(ke, ke + en);
		}
		el.flags = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS) ?
			   nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS) : 0;
		el.open = false;
		el.timeout = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_TIMEOUT) ?
			     nftnl_set_elem_get_u64(e, NFTNL_SET_ELEM_TIMEOUT) : 0;
		el.expiration = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_EXPIRATION) ?
				nftnl_set_elem_get_u64(e, NFTNL_SET_ELEM_EXPIRATION) : 0;
		el.stateless = stateless;
		auto add_stmt = [](nftnl_expr *x, void *data) {
			El &to = *static_cast<El *>(data);
			std::string t;
			Json j;
			stateful_print(x, to.stateless, t, j);
			to.stmts += " " + t;
			if (to.stmt_name.empty()) {
				// its JSON member: the expression's name, a connlimit's "ct count"
				to.stmt_name = str(nftnl_expr_get_str(x, NFTNL_EXPR_NAME));
				if (to.stmt_name == "connlimit")
					to.stmt_name = "ct count";
				to.stmt_json = std::move(j);
			}
			return 0;
		};
		uint32_t ul = 0;
		const void *u = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_USERDATA) ?
				nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ul) : nullptr;
		const ElemUserdataOut ud = parse_elem_userdata(u, ul);
		el.open = ud.flags & NFTNL_SET_ELEM_F_INTERVAL_OPEN;
		el.comment = ud.comment;
		if (show == ElemShow::KeyOnly) {
			el.timeout = el.expiration = 0;
			el.comment.reset();
		}
		if (show == ElemShow::All || (show == ElemShow::RangeCache && el.open))
			nftnl_set_elem_expr_foreach(e, add_stmt, &el);
		if (verdict_map && nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT)) {
			el.data = verdict_text(static_cast<int32_t>(nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT)),
					       nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
			el.data_json = verdict_json(static_cast<int32_t>(nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT)),
						    nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
		} else if (nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_OBJREF)) {
			// an object map's element: the object's name, quoted
			const std::string name = str(nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_OBJREF));
			el.data = "\"" + name + "\"";
			el.data_json = Json::string(name);
		} else if (data && nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_DATA)) {
			uint32_t dl = 0;
			const uint8_t *d = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_DATA, &dl));
			el.data = format_value(*data->type, data->bits, data->order, Bytes(d, d + dl), numeric);
			el.data_json = value_json(*data->type, data->bits, data->order, Bytes(d, d + dl), numeric);
		}
		els.push_back(el);
	}
	// An interval set holds a single host-order field big-endian.
	const bool be_host = interval && keys.size() == 1 && keys[0].order == ByteOrder::Host && keys[0].bytes > 1;
	auto host = [&](Bytes k) {
		if (be_host)
			std::reverse(k.begin(), k.end());
		return k;
	};
	// nft sorts a concatenation (concat_expr_msort_value) by the number its
	// fields' bytes make, without their padding to 4 bytes, read as one
	// little-endian integer: the last byte of the last field weighs most.
	const bool concat_order = keys.size() > 1 && !interval;
	if (concat_order)
		for (El &el : els) {
			Bytes packed;
			size_t at = 0;
			for (auto &p : keys) {
				for (size_t i = 0; i < p.bytes && at + i < el.key.size(); i++)
					packed.push_back(el.key[at + i]);
				at += (p.bytes + 3) / 4 * 4;
			}
			std::reverse(packed.begin(), packed.end());
			el.sort_key = std::move(packed);
		}
	// A set of flags lists an element of several as `syn | ack`, which nft
	// sorts (expr_msort_value) by its first flag; equal ones come larger
	// value first, as nft's stable sort leaves Linux's bitmap dump.
	const bool flag_elements = keys.size() == 1 && keys[0].type->bitmask && !keys[0].shift && !interval;
	auto flag_order = [&](const El &e) {
		auto bits = flag_bits(e.key, keys[0].order);
		return bits.size() > 1 ? bytes_value(bits[0], keys[0].order) : bytes_value(e.key, keys[0].order);
	};
	auto num_less = [&](const El &a, const El &b) {
		if (concat_order)
			return a.sort_key < b.sort_key;
		if (flag_elements) {
			uint64_t x = flag_order(a), y = flag_order(b);
			if (x != y)
				return x < y;
			return bytes_value(a.key, keys[0].order) > bytes_value(b.key, keys[0].order);
		}
		if (keys.size() == 1 && keys[0].order == ByteOrder::Host && !be_host) {
			Bytes x = a.key, y = b.key;
			std::reverse(x.begin(), x.end());
			std::reverse(y.begin(), y.end());
			return x < y;
		}
		return a.key < b.key;
	};
	// Concatenated intervals list in the kernel's order (nft 1.0.6's
	// concat_range_aggregate keeps it; pipapo dumps in insertion order).
	const bool concat_ranges = keys.size() > 1 && interval;
	if (!concat_ranges)
		std::stable_sort(els.begin(), els.end(), num_less);
	// RANGE_END: a range's end, which nft prints numerically
	auto one = [&](const Bytes &k, bool range_end = false) {
		const bool num = range_end || numeric;
		if (range_end && keys.size() == 1 && !keys[0].shift)
			return format_range_end(*keys[0].type, keys[0].bits, keys[0].order, host(k));
		if (flag_elements && popcount(k) > 1)
			return flags_or_text(keys[0], k, num);
		if (keys.size() == 1 && keys[0].shift) {
			const KeyPart &p = keys[0];
			uint64_t x = bytes_value(k, ByteOrder::Big) >> p.shift;
			Bytes v(p.bytes, 0);
			for (unsigned i = 0; i < p.bytes; i++)
				v[p.bytes - 1 - i] = static_cast<uint8_t>(x >> (8 * i));
			return format_value(*p.type, p.bits, p.order, v, num);
		}
		if (keys.size() == 1)
			return format_value(*keys[0].type, keys[0].bits, keys[0].order, host(k), num);
		std::string t;
		size_t at = 0;
		for (auto &p : keys) {
			Bytes part(k.begin() + static_cast<long>(at), k.begin() + static_cast<long>(std::min(k.size(), at + p.bytes)));
			at += (p.bytes + 3) / 4 * 4;
			t += (t.empty() ? "" : " . ") + format_value(*p.type, p.bits, p.order, part, num);
		}
		return t;
	};
	auto unshift = [&](const KeyPart &p, const Bytes &k) {
		if (!p.shift)
			return k;
		uint64_t x = bytes_value(k, ByteOrder::Big) >> p.shift;
		Bytes v(p.bytes, 0);
		for (unsigned i = 0; i < p.bytes; i++)
			v[p.bytes - 1 - i] = static_cast<uint8_t>(x >> (8 * i));
		return v;
	};
	// RANGE_END: an end of a range (protocols print as numbers there)
	auto one_json = [&](const Bytes &k, bool range_end) {
		auto part_json = [&](const KeyPart &p, const Bytes &b) {
			if (range_end && (p.type->id == TYPE_INET_PROTOCOL || p.type->id == TYPE_INET_SERVICE))
				return Json::uinteger(bytes_value(b, p.order));
			return value_json(*p.type, p.bits, p.order, b, numeric);
		};
		if (flag_elements && popcount(k) > 1)
			return flags_or_json(keys[0], k, numeric);
		if (keys.size() == 1)
			return part_json(keys[0], unshift(keys[0], host(k)));
		Json c = Json::array();
		size_t at = 0;
		for (auto &p : keys) {
			Bytes part(k.begin() + static_cast<long>(at), k.begin() + static_cast<long>(std::min(k.size(), at + p.bytes)));
			at += (p.bytes + 3) / 4 * 4;
			c.push(part_json(p, part));
		}
		return Json::wrap("concat", std::move(c));
	};
	// set_elem_expr_print: the key, its stateful statements (counter,
	// limit, quota as a rule's, the values not with -s), `timeout T` when
	// the element has its own, `expires T` (not with -s), `comment "C"`
	// (as it is, nft's scanner has no escapes); JSON wraps such a key in
	// {"elem": {"val": KEY, "timeout": S, "expires": S, "comment": C}},
	// whole seconds, and adds the first statement's member ("counter":
	// ...), as nft 1.0.6's set_elem_expr_json shows only one.
	auto with_options = [&](Json key, const El &e) {
		if (!e.timeout && !e.expiration && !e.comment && e.stmts.empty())
			return key;
		Json o = Json::object();
		o.set("val", std::move(key));
		if (e.timeout)
			o.set("timeout", Json::uinteger(e.timeout / 1000));
		if (e.expiration)
			o.set("expires", Json::uinteger(e.expiration / 1000));
		if (e.comment)
			o.set("comment", Json::string(*e.comment));
		if (const Json *v = e.stmt_name.empty() ? nullptr : e.stmt_json.get(e.stmt_name))
			o.set(e.stmt_name, *v);
		return Json::wrap("elem", std::move(o));
	};
	auto options_text = [&](const El &e) {
		std::string t = e.stmts;
		if (e.timeout)
			t += " timeout " + time_text(e.timeout, numeric);
		if (e.expiration && !stateless)
			t += " expires " + time_text(e.expiration, numeric);
		if (e.comment)
			t += " comment \"" + *e.comment + "\"";
		return t;
	};
	auto with_data = [&](Json key, const El &e) {
		key = with_options(std::move(key), e);
		if (e.data.empty())
			return key;
		Json pair = Json::array();
		pair.push(std::move(key));
		pair.push(e.data_json);
		return pair;
	};
	std::vector<ElementItem> items;
	if (concat_ranges) {
		for (const El &e : els) {
			ElementItem key = concat_range_item(keys, e.key, e.key_end.empty() ? e.key : e.key_end,
							    numeric, "", Json());
			items.push_back({key.text + options_text(e) + (e.data.empty() ? "" : " : " + e.data),
					 with_data(std::move(key.json), e)});
		}
		return items;
	}
	if (!interval || singles) {
		for (auto &e : els)
			if (!(e.flags & NFT_SET_ELEM_INTERVAL_END))
				items.push_back({one(e.key) + options_text(e) + (e.data.empty() ? "" : " : " + e.data),
						 with_data(one_json(e.key, false), e)});
	} else {
		for (size_t i = 0; i < els.size(); i++) {
			const El &e = els[i];
			if (e.flags & NFT_SET_ELEM_INTERVAL_END)
				continue;
			Bytes hi;
			if (i + 1 < els.size()) {
				hi = els[i + 1].key;
				// end is exclusive: hi - 1
				for (size_t b = hi.size(); b-- > 0;) {
					if (hi[b]-- != 0)
						break;
				}
			} else {
				hi.assign(e.key.size(), 0xff);
			}
			std::string t;
			Json j;
			if (hi == e.key) {
				t = one(e.key);
				j = one_json(e.key, false);
			} else {
				// a prefix when [lo, hi] is aligned, for nft's
				// DTYPE_F_PREFIX types: addresses and marks
				const KeyPart &p = keys[0];
				bool addr = p.type->id == TYPE_IPADDR || p.type->id == TYPE_IP6ADDR ||
					    p.type->id == TYPE_MARK;
				unsigned plen = 0;
				bool is_prefix = addr;
				if (addr) {
					size_t nbits = e.key.size() * 8;
					size_t k = 0;
					for (; k < nbits; k++) {
						uint8_t bit = static_cast<uint8_t>(0x80 >> (k % 8));
						if ((e.key[k / 8] & bit) != (hi[k / 8] & bit))
							break;
					}
					plen = static_cast<unsigned>(k);
					for (; k < nbits; k++) {
						uint8_t bit = static_cast<uint8_t>(0x80 >> (k % 8));
						if ((e.key[k / 8] & bit) || !(hi[k / 8] & bit))
							is_prefix = false;
					}
				}
				if (is_prefix) {
					t = one(e.key) + "/" + std::to_string(plen);
					Json pj = Json::object();
					pj.set("addr", one_json(e.key, false));
					pj.set("len", Json::integer(plen));
					j = Json::wrap("prefix", std::move(pj));
				} else {
					auto end_text = [&](const Bytes &b) { return one(b, true); };
					t = end_text(e.key) + "-" + end_text(hi);
					Json r = Json::array();
					r.push(one_json(e.key, true));
					r.push(one_json(hi, true));
					j = Json::wrap("range", std::move(r));
				}
			}
			items.push_back({t + options_text(e) + (e.data.empty() ? "" : " : " + e.data),
					 with_data(std::move(j), e)});
		}
	}
	return items;
}

std::string format_elements(nftnl_set *s, const std::vector<KeyPart> &keys_in,
			    const KeyPart *data, bool verdict_map, bool numeric, bool stateless)
{
	std::vector<KeyPart> keys = keys_in.empty() ? keyparts_of_set(s) : keys_in;
	uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	auto items = element_items(s, keys, data, verdict_map, numeric, stateless);
	bool anonymous = flags & NFT_SET_ANONYMOUS;
	unsigned per_line = keys.size() == 1 ? elements_per_line(*keys[0].type) : 1;
	std::string out = "{ ";
	for (size_t i = 0; i < items.size(); i++) {
		if (i)
			out += (!anonymous && i % per_line == 0) ? ",\n\t\t\t     " : ", ";
		out += items[i].text;
	}
	return out + " }";
}

Json elements_json(nftnl_set *s, const std::vector<KeyPart> &keys_in, const KeyPart *data, bool verdict_map,
		   bool numeric, bool stateless)
{
	std::vector<KeyPart> keys = keys_in.empty() ? keyparts_of_set(s) : keys_in;
	Json out = Json::array();
	for (auto &i : element_items(s, keys, data, verdict_map, numeric, stateless))
		out.push(std::move(i.json));
	return out;
}

std::string delinearize_rule(nftnl_rule *r, const ModelTable &table, const PrintOptions &o)
{
	Delinearizer d(table, o);
	return d.run(r).text;
}

DelinearizedRule delinearize(nftnl_rule *r, const ModelTable &table, const PrintOptions &o)
{
	Delinearizer d(table, o);
	return d.run(r);
}

} // namespace xnft
