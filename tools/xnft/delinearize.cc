// delinearize.cc - rule bytecode back to nft text (see delinearize.h).
#include "delinearize.h"

#include <algorithm>
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

namespace xnft {

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

// What a register holds.
struct RegVal {
	enum Kind { None, Payload, Meta, Ct, Imm, MapResult } kind = None;
	uint32_t base = 0, offset = 0, len = 0;
	uint32_t key = 0;
	int dir = -1;
	Bytes mask;
	bool hton = false;
	Bytes imm;
	std::string text;         // MapResult: "lhs map { ... }"
};

struct Printed {
	std::string text;
	int provides = 0;         // 1 network (value in proto), 2 transport, 3 vlan link
	std::string proto;
	bool killed = false;
};

class Delinearizer {
public:
	Delinearizer(const ModelTable &t, const PrintOptions &o) : table_(t), opt_(o) {}
	std::string run(nftnl_rule *r);

private:
	struct Field {
		std::string name;      // "tcp dport"
		KeyPart part;
		std::string proto;     // payload protocol or ""
		Layer layer = Layer::None;
	};
	std::vector<Field> fields_of(const RegVal &v, bool &prefix, unsigned &plen);
	Field field_exact(const RegVal &v);
	void relational(const RegVal &v, uint32_t op, const Bytes &data);
	void range(const RegVal &v, const Bytes &lo, const Bytes &hi, bool neq);
	void lookup(nftnl_expr *e);
	void consumed_by(const Field &f);
	void emit(const std::string &text, int provides = 0, const std::string &proto = "");
	std::string value_text(const KeyPart &p, const Bytes &b);
	nftnl_set *find_set(const std::string &name);

	const ModelTable &table_;
	const PrintOptions &opt_;
	std::map<unsigned, RegVal> regs_;
	std::vector<Printed> out_;
	std::string link_ = "ether", net_, l4_;
};

void Delinearizer::emit(const std::string &text, int provides, const std::string &proto)
{
	out_.push_back(Printed{text, provides, proto, false});
}

std::string Delinearizer::value_text(const KeyPart &p, const Bytes &b)
{
	Bytes v = b;
	if (p.shift) {
		uint64_t x = bytes_value(v, ByteOrder::Big) >> p.shift;
		v.assign(p.bytes, 0);
		for (unsigned i = 0; i < p.bytes; i++)
			v[p.bytes - 1 - i] = static_cast<uint8_t>(x >> (8 * i));
	}
	return format_value(*p.type, p.bits, p.order, v);
}

nftnl_set *Delinearizer::find_set(const std::string &name)
{
	for (auto *s : table_.sets)
		if (str(nftnl_set_get_str(s, NFTNL_SET_NAME)) == name)
			return s;
	return nullptr;
}

static std::string meta_name(uint32_t key, const MetaKey *m)
{
	static const uint32_t unqualified[] = {NFT_META_IIF, NFT_META_OIF, NFT_META_IIFNAME,
					       NFT_META_OIFNAME, NFT_META_IIFGROUP, NFT_META_OIFGROUP};
	std::string n = m ? m->name : "key" + std::to_string(key);
	for (uint32_t k : unqualified)
		if (k == key)
			return n;
	return "meta " + n;
}

// The payload protocol at BASE/OFFSET given what the rule matched so far.
static std::string proto_at(uint32_t base, uint32_t offset, const std::string &link,
			    const std::string &net, const std::string &l4)
{
	if (base == NFT_PAYLOAD_LL_HEADER)
		return offset >= 14 && link == "vlan" ? "vlan" : "ether";
	if (base == NFT_PAYLOAD_NETWORK_HEADER)
		return net.empty() ? "ip" : net;
	return l4.empty() ? "tcp" : l4;
}

Delinearizer::Field Delinearizer::field_exact(const RegVal &v)
{
	bool prefix;
	unsigned plen;
	auto fs = fields_of(v, prefix, plen);
	if (fs.size() == 1)
		return fs[0];
	Field f;
	f.name = "payload";
	f.part = KeyPart{&datatype(TYPE_INTEGER), v.len * 8, ByteOrder::Big, v.len};
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
		f.name = meta_name(v.key, m);
		f.part = m ? KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8}
			   : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
		out.push_back(f);
		return out;
	}
	if (v.kind == RegVal::Ct) {
		const CtKey *k = ct_by_key(v.key);
		Field f;
		std::string name = k ? k->name : "key" + std::to_string(v.key);
		if (v.key == NFT_CT_SRC_IP || v.key == NFT_CT_DST_IP)
			name = "ip " + name;
		if (v.key == NFT_CT_SRC_IP6 || v.key == NFT_CT_DST_IP6)
			name = "ip6 " + name;
		std::string dir = v.dir == 0 ? "original " : v.dir == 1 ? "reply " : "";
		f.name = "ct " + dir + name;
		f.part = k ? KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8}
			   : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
		out.push_back(f);
		return out;
	}
	if (v.kind != RegVal::Payload)
		return out;
	std::string proto = proto_at(v.base, v.offset, link_, net_, l4_);
	size_t n;
	const PayloadField *all = payload_fields_all(n);
	unsigned start = v.offset * 8, end = (v.offset + v.len) * 8;
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
			if (pos + f.bits <= end && (!best || f.bits > best->bits))
				best = &f;
			if (pos + f.bits > end && out.empty() && pos == start &&
			    (f.type == TYPE_IPADDR || f.type == TYPE_IP6ADDR || f.type == TYPE_ETHERADDR)) {
				// shortened load: a byte-aligned prefix
				prefix = true;
				plen = end - start;
				Field o;
				o.name = std::string(f.proto) + " " + f.name;
				o.part = KeyPart{&datatype(f.type), f.bits, ByteOrder::Big, f.bits / 8};
				o.proto = f.proto;
				o.layer = proto_layer(f.proto);
				out.push_back(o);
				return out;
			}
		}
		if (!best) {
			out.clear();
			Field o;
			o.name = "@" + std::string(v.base == NFT_PAYLOAD_LL_HEADER ? "ll" :
						   v.base == NFT_PAYLOAD_NETWORK_HEADER ? "nh" : "th") +
				 "," + std::to_string(start) + "," + std::to_string(end - start);
			o.part = KeyPart{&datatype(TYPE_INTEGER), end - start, ByteOrder::Big, v.len};
			out.push_back(o);
			return out;
		}
		Field o;
		o.name = std::string(best->proto) + " " + best->name;
		o.part = KeyPart{&datatype(best->type), best->bits, ByteOrder::Big, best->bits / 8};
		o.proto = best->proto;
		o.layer = proto_layer(best->proto);
		out.push_back(o);
		pos += best->bits;
	}
	return out;
}

// A payload of protocol P makes the matching dependency redundant.
void Delinearizer::consumed_by(const Field &f)
{
	if (f.proto.empty())
		return;
	auto kill_last = [&](int provides, const std::string &proto) {
		for (auto it = out_.rbegin(); it != out_.rend(); ++it)
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

void Delinearizer::relational(const RegVal &v, uint32_t op, const Bytes &data_in)
{
	Bytes data = data_in;
	if (v.hton)
		std::reverse(data.begin(), data.end());
	bool prefix;
	unsigned plen;
	auto fs = fields_of(v, prefix, plen);
	if (fs.empty()) {
		emit("# unknown expression");
		return;
	}
	if (prefix) {
		const Field &f = fs[0];
		consumed_by(f);
		Bytes full(f.part.bytes, 0);
		std::copy(data.begin(), data.end(), full.begin());
		emit(f.name + " " + op_text(op) + value_text(f.part, full) + "/" + std::to_string(plen));
		return;
	}
	if (fs.size() > 1) {
		size_t at = 0;
		for (auto &f : fs) {
			Bytes part(data.begin() + static_cast<long>(at), data.begin() + static_cast<long>(at + f.part.bytes));
			at += f.part.bytes;
			consumed_by(f);
			emit(f.name + " " + value_text(f.part, part));
		}
		return;
	}
	const Field &f = fs[0];
	const KeyPart &p = f.part;
	consumed_by(f);
	if (!v.mask.empty() && p.shift == 0 && !(f.proto.size() && p.bits % 8)) {
		// a mask on a whole field: flags, or a prefix on an address
		bool zero = std::all_of(data.begin(), data.end(), [](uint8_t x) { return x == 0; });
		if (p.type->bitmask || p.type->id == TYPE_INTEGER || p.type->id == TYPE_MARK) {
			if (zero && op == NFT_CMP_NEQ) {
				emit(f.name + " " + value_text(p, v.mask));
				return;
			}
			if (zero && op == NFT_CMP_EQ) {
				emit(f.name + " ! " + value_text(p, v.mask));
				return;
			}
			emit(f.name + " " + op_text(op) + value_text(p, data) + " / " + value_text(p, v.mask));
			return;
		}
		unsigned bits = 0;
		for (uint8_t m : v.mask) {
			for (int b = 7; b >= 0; b--) {
				if (!(m & (1 << b)))
					goto done;
				bits++;
			}
		}
	done:
		emit(f.name + " " + op_text(op) + value_text(p, data) + "/" + std::to_string(bits));
		return;
	}
	// a flag type compared whole says so: `tcp flags == syn`
	std::string op_str = (p.type->bitmask && op == NFT_CMP_EQ) ? "== " : op_text(op);
	std::string text = f.name + " " + op_str + value_text(p, data);
	int provides = 0;
	std::string proto;
	if (op == NFT_CMP_EQ) {
		uint64_t x = bytes_value(data, p.order);
		auto net_of = [](uint64_t t) -> std::string {
			return t == 0x0800 ? "ip" : t == 0x86dd ? "ip6" : t == 0x0806 ? "arp" : "";
		};
		auto l4_of = [](uint64_t t) -> std::string {
			return t == 6 ? "tcp" : t == 17 ? "udp" : t == 1 ? "icmp" : t == 58 ? "icmpv6" : "";
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
		} else if (f.name == "meta l4proto" || f.name == "ip protocol" || f.name == "ip6 nexthdr") {
			l4_ = l4_of(x);
			if (f.name == "meta l4proto") {
				provides = 2;
				proto = l4_;
			}
		}
	}
	emit(text, provides, proto);
}

void Delinearizer::range(const RegVal &v, const Bytes &lo_in, const Bytes &hi_in, bool neq)
{
	Bytes lo = lo_in, hi = hi_in;
	if (v.hton) {
		std::reverse(lo.begin(), lo.end());
		std::reverse(hi.begin(), hi.end());
	}
	Field f = field_exact(v);
	consumed_by(f);
	emit(f.name + " " + (neq ? "!= " : "") + value_text(f.part, lo) + "-" + value_text(f.part, hi));
}

void Delinearizer::lookup(nftnl_expr *e)
{
	std::string name = str(nftnl_expr_get_str(e, NFTNL_EXPR_LOOKUP_SET));
	nftnl_set *s = find_set(name);
	unsigned reg = internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_SREG));
	uint32_t key_len = s ? nftnl_set_get_u32(s, NFTNL_SET_KEY_LEN) : 4;
	std::vector<Field> parts;
	std::string lhs;
	unsigned covered = 0;
	bool concat = false;
	while (covered < key_len) {
		auto it = regs_.find(reg);
		if (it == regs_.end())
			break;
		Field f = field_exact(it->second);
		consumed_by(f);
		parts.push_back(f);
		unsigned slots = (f.part.bytes + 3) / 4;
		covered += parts.size() == 1 && f.part.bytes == key_len ? f.part.bytes : slots * 4;
		if (!lhs.empty()) {
			lhs += " . ";
			concat = true;
		}
		lhs += f.name;
		reg += slots;
	}
	(void)concat;
	bool inv = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_FLAGS) &&
		   (nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_FLAGS) & NFT_LOOKUP_F_INV);
	bool anon = s && (nftnl_set_get_u32(s, NFTNL_SET_FLAGS) & NFT_SET_ANONYMOUS);
	bool is_map = nftnl_expr_is_set(e, NFTNL_EXPR_LOOKUP_DREG);
	std::vector<KeyPart> keys;
	for (auto &p : parts)
		keys.push_back(p.part);
	std::string rhs;
	if (anon) {
		bool verdict = is_map && nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_DREG) == NFT_REG_VERDICT;
		KeyPart data{};
		bool has_data = false;
		if (is_map && !verdict) {
			auto dk = keyparts_of_set(s);  // key types unused; data from DATA_TYPE
			uint32_t dt = nftnl_set_get_u32(s, NFTNL_SET_DATA_TYPE);
			uint32_t dl = nftnl_set_get_u32(s, NFTNL_SET_DATA_LEN);
			data = KeyPart{&datatype(static_cast<TypeId>(dt)), dl * 8, datatype(static_cast<TypeId>(dt)).order, dl};
			has_data = true;
		}
		rhs = format_elements(s, keys, has_data ? &data : nullptr, verdict);
	} else {
		rhs = "@" + name;
	}
	if (is_map) {
		uint32_t dreg = nftnl_expr_get_u32(e, NFTNL_EXPR_LOOKUP_DREG);
		if (dreg == NFT_REG_VERDICT) {
			emit(lhs + " vmap " + rhs);
			return;
		}
		RegVal m;
		m.kind = RegVal::MapResult;
		m.text = lhs + " map " + rhs;
		regs_[internal_reg(dreg)] = m;
		return;
	}
	emit(lhs + " " + (inv ? "!= " : "") + rhs);
}

std::string Delinearizer::run(nftnl_rule *r)
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
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_PAYLOAD_DREG))] = v;
		} else if (n == "meta") {
			if (nftnl_expr_is_set(e, NFTNL_EXPR_META_SREG)) {
				const MetaKey *m = meta_by_key(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY));
				std::string target = meta_name(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY), m);
				if (target.rfind("meta ", 0) != 0)
					target = "meta " + target;
				const RegVal &src = regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_META_SREG))];
				KeyPart p = m ? KeyPart{&datatype(m->type), m->bits, m->order, (m->bits + 7) / 8}
					      : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
				std::string val = src.kind == RegVal::Imm ? value_text(p, src.imm) :
						  src.kind == RegVal::MapResult ? src.text : field_exact(src).name;
				emit(target + " set " + val);
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
				KeyPart p = k ? KeyPart{&datatype(k->type), k->bits, k->order, (k->bits + 7) / 8}
					      : KeyPart{&datatype(TYPE_INTEGER), 32, ByteOrder::Host, 4};
				std::string val = src.kind == RegVal::Imm ? value_text(p, src.imm) :
						  src.kind == RegVal::MapResult ? src.text : field_exact(src).name;
				emit("ct " + std::string(k ? k->name : "?") + " set " + val);
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
			v.mask = get_bytes(e, NFTNL_EXPR_BITWISE_MASK);
		} else if (n == "byteorder") {
			regs_[internal_reg(nftnl_expr_get_u32(e, NFTNL_EXPR_BYTEORDER_SREG))].hton = true;
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
		} else if (n == "immediate") {
			uint32_t dreg = nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_DREG);
			if (dreg == NFT_REG_VERDICT) {
				emit(verdict_text(static_cast<int32_t>(nftnl_expr_get_u32(e, NFTNL_EXPR_IMM_VERDICT)),
						  nftnl_expr_get_str(e, NFTNL_EXPR_IMM_CHAIN)));
			} else {
				RegVal v;
				v.kind = RegVal::Imm;
				v.imm = get_bytes(e, NFTNL_EXPR_IMM_DATA);
				regs_[internal_reg(dreg)] = v;
			}
		} else if (n == "counter") {
			if (opt_.stateless)
				emit("counter");
			else
				emit("counter packets " + std::to_string(nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS)) +
				     " bytes " + std::to_string(nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES)));
		} else if (n == "limit") {
			uint64_t rate = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_RATE);
			uint64_t unit = nftnl_expr_get_u64(e, NFTNL_EXPR_LIMIT_UNIT);
			uint32_t burst = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_BURST);
			bool bytes = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_TYPE) == NFT_LIMIT_PKT_BYTES;
			bool over = nftnl_expr_get_u32(e, NFTNL_EXPR_LIMIT_FLAGS) & NFT_LIMIT_F_INV;
			std::string u = unit == 1 ? "second" : unit == 60 ? "minute" : unit == 3600 ? "hour" :
					unit == 86400 ? "day" : "week";
			std::string t = std::string("limit rate ") + (over ? "over " : "");
			auto scaled = [](uint64_t v) {
				const char *units[] = {"bytes", "kbytes", "mbytes"};
				int i = 0;
				while (i < 2 && v >= 1024 && v % 1024 == 0) {
					v /= 1024;
					i++;
				}
				return std::to_string(v) + " " + units[i];
			};
			if (bytes) {
				t += scaled(rate) + "/" + u;
				if (burst)
					t += " burst " + scaled(burst);
			} else {
				t += std::to_string(rate) + "/" + u;
				if (burst != 5)
					t += " burst " + std::to_string(burst) + " packets";
			}
			emit(t);
		} else if (n == "log") {
			std::string t = "log";
			if (nftnl_expr_is_set(e, NFTNL_EXPR_LOG_PREFIX))
				t += " prefix \"" + str(nftnl_expr_get_str(e, NFTNL_EXPR_LOG_PREFIX)) + "\"";
			emit(t);
		} else if (n == "flow_offload") {
			emit("flow add @" + str(nftnl_expr_get_str(e, NFTNL_EXPR_FLOW_TABLE_NAME)));
		} else if (n == "notrack") {
			emit("notrack");
		} else {
			emit("# " + n);
		}
	}
	std::string text;
	for (auto &p : out_) {
		if (p.killed)
			continue;
		text += (text.empty() ? "" : " ") + p.text;
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
			if (type == 0 && len > 0)
				text += " comment \"" + std::string(reinterpret_cast<const char *>(u + at + 2), len - 1) + "\"";
			at += 2 + len;
		}
	}
	return text;
}

} // namespace

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
	for (uint32_t id : ids) {
		const DataType &t = datatype(static_cast<TypeId>(id));
		unsigned bytes = ids.size() == 1 ? kl : (t.bits + 7) / 8;
		parts.push_back(KeyPart{&t, ids.size() == 1 ? kl * 8 : t.bits, t.order, bytes});
	}
	return parts;
}

std::string format_elements(nftnl_set *s, const std::vector<KeyPart> &keys_in,
			    const KeyPart *data, bool verdict_map)
{
	std::vector<KeyPart> keys = keys_in.empty() ? keyparts_of_set(s) : keys_in;
	uint32_t flags = nftnl_set_get_u32(s, NFTNL_SET_FLAGS);
	bool interval = flags & NFT_SET_INTERVAL;
	struct El {
		Bytes key;
		uint32_t flags;
		std::string data;
		bool open;
	};
	std::vector<El> els;
	nftnl_set_elems_iter *it = nftnl_set_elems_iter_create(s);
	for (nftnl_set_elem *e = nftnl_set_elems_iter_next(it); e; e = nftnl_set_elems_iter_next(it)) {
		El el;
		uint32_t n = 0;
		const uint8_t *k = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_KEY, &n));
		el.key.assign(k, k + n);
		el.flags = nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_FLAGS) ?
			   nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_FLAGS) : 0;
		el.open = false;
		uint32_t ul = 0;
		const uint8_t *u = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_USERDATA, &ul));
		if (u && ul >= 6 && u[0] == 1)
			el.open = true;
		if (verdict_map && nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_VERDICT)) {
			el.data = verdict_text(static_cast<int32_t>(nftnl_set_elem_get_u32(e, NFTNL_SET_ELEM_VERDICT)),
					       nftnl_set_elem_get_str(e, NFTNL_SET_ELEM_CHAIN));
		} else if (data && nftnl_set_elem_is_set(e, NFTNL_SET_ELEM_DATA)) {
			uint32_t dl = 0;
			const uint8_t *d = static_cast<const uint8_t *>(nftnl_set_elem_get(e, NFTNL_SET_ELEM_DATA, &dl));
			el.data = format_value(*data->type, data->bits, data->order, Bytes(d, d + dl));
		}
		els.push_back(el);
	}
	nftnl_set_elems_iter_destroy(it);
	auto num_less = [&](const El &a, const El &b) {
		if (keys.size() == 1 && keys[0].order == ByteOrder::Host) {
			Bytes x = a.key, y = b.key;
			std::reverse(x.begin(), x.end());
			std::reverse(y.begin(), y.end());
			return x < y;
		}
		return a.key < b.key;
	};
	std::stable_sort(els.begin(), els.end(), num_less);
	auto one = [&](const Bytes &k) {
		if (keys.size() == 1 && keys[0].shift) {
			const KeyPart &p = keys[0];
			uint64_t x = bytes_value(k, ByteOrder::Big) >> p.shift;
			Bytes v(p.bytes, 0);
			for (unsigned i = 0; i < p.bytes; i++)
				v[p.bytes - 1 - i] = static_cast<uint8_t>(x >> (8 * i));
			return format_value(*p.type, p.bits, p.order, v);
		}
		if (keys.size() == 1)
			return format_value(*keys[0].type, keys[0].bits, keys[0].order, k);
		std::string t;
		size_t at = 0;
		for (auto &p : keys) {
			Bytes part(k.begin() + static_cast<long>(at), k.begin() + static_cast<long>(std::min(k.size(), at + p.bytes)));
			at += (p.bytes + 3) / 4 * 4;
			t += (t.empty() ? "" : " . ") + format_value(*p.type, p.bits, p.order, part);
		}
		return t;
	};
	std::vector<std::string> items;
	if (!interval) {
		for (auto &e : els)
			items.push_back(one(e.key) + (e.data.empty() ? "" : " : " + e.data));
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
			if (hi == e.key) {
				t = one(e.key);
			} else {
				// a prefix when [lo, hi] is aligned, for address types
				const KeyPart &p = keys[0];
				bool addr = p.type->id == TYPE_IPADDR || p.type->id == TYPE_IP6ADDR;
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
				if (is_prefix)
					t = one(e.key) + "/" + std::to_string(plen);
				else
					t = one(e.key) + "-" + one(hi);
			}
			items.push_back(t + (e.data.empty() ? "" : " : " + e.data));
		}
	}
	bool anonymous = flags & NFT_SET_ANONYMOUS;
	unsigned per_line = keys.size() == 1 ? elements_per_line(*keys[0].type) : 1;
	std::string out = "{ ";
	for (size_t i = 0; i < items.size(); i++) {
		if (i)
			out += (!anonymous && i % per_line == 0) ? ",\n\t\t\t     " : ", ";
		out += items[i];
	}
	return out + " }";
}

std::string delinearize_rule(nftnl_rule *r, const ModelTable &table, const PrintOptions &o)
{
	Delinearizer d(table, o);
	return d.run(r);
}

} // namespace xnft
