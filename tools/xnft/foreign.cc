// foreign.cc - see foreign.h. The Linearizer's part: foreign expressions
// matched or set, foreign statements, the refusal the rule gets.
#include "foreign.h"

#include <linux/netfilter/nf_tables.h>

#include "datatypes.h"
#include "linearize.h"

namespace xnft {

ForeignRefusal foreign_refusal(const std::string &kind)
{
	if (kind == "fib")
		return {"No such file or directory", true};
	if (kind == "socket")
		return {"Operation not supported", true};
	return {"Operation not supported", false};	// rt, osf, synproxy, queue
}

namespace {

// The type nft gives a foreign expression's values, where xnft's data
// types have it (null: the value is not typed here: a realm, an address
// type, a boolean).
struct ForeignType {
	TypeId id;
	unsigned bits;
	ByteOrder order;
};

bool foreign_type(const Expr &e, const std::string &net, ForeignType &t)
{
	const std::string &k = e.proto;
	if (e.text == "rt" && k == "mtu")
		t = {TYPE_INTEGER, 16, ByteOrder::Host};
	else if (e.text == "rt" && k == "nexthop")
		t = (e.chain.empty() ? net : e.chain) == "ip" ? ForeignType{TYPE_IPADDR, 32, ByteOrder::Big}
							       : ForeignType{TYPE_IP6ADDR, 128, ByteOrder::Big};
	else if (e.text == "fib" && k == "oif")
		t = {TYPE_IFINDEX, 32, ByteOrder::Host};
	else if (e.text == "fib" && k == "oifname")
		t = {TYPE_IFNAME, 128, ByteOrder::Host};
	else if (e.text == "osf")
		t = {TYPE_STRING, 128, ByteOrder::Host};	// NFT_OSF_MAXGENRELEN
	else if (e.text == "socket" && k == "mark")
		t = {TYPE_MARK, 32, ByteOrder::Host};
	else if (e.text == "socket")
		t = {TYPE_INTEGER, 1, ByteOrder::Host};	// transparent, wildcard
	else
		return false;
	return true;
}

// Types V's symbols (a value, a range's ends, a set's elements) as nft's
// evaluation does, throwing its complaint.
void type_values(const ForeignType &t, const Expr &v)
{
	switch (v.kind) {
	case ExprKind::Value:
		encode_value(datatype(t.id), t.bits, t.order, v);
		return;
	case ExprKind::Range:
	case ExprKind::SetLit:
	case ExprKind::List:
		for (const ExprPtr &i : v.items)
			type_values(t, *i);
		return;
	default:
		return;
	}
}

} // namespace

// What nft's evaluation refuses of foreign expression E wherever it
// stands: ipsec has no bridge family (expr_evaluate_xfrm); rt nexthop
// takes its type from the network protocol, given or matched before
// (expr_evaluate_rt).
void Linearizer::foreign_evaluation(const Expr &e)
{
	if (e.text == "ipsec")
		throw LangError(e.loc, "ipsec expression is only valid in ip/ip6/inet tables");
	if (e.text == "rt" && e.proto == "nexthop" && e.chain.empty() && net_ != "ip" && net_ != "ip6")
		throw LangError(e.loc, "cannot determine ip protocol version, use \"ip nexthop\" or "
				       "\"ip6 nexthop\" instead");
}

void Linearizer::foreign_refused(const std::string &kind, const Location &expr_loc)
{
	const ForeignRefusal r = foreign_refusal(kind);
	const std::string msg = std::string("Could not process rule: ") + r.err;
	// the kernel inits every expression before it validates the rule
	if (refusal_ && (refusal_at_expression_ || !r.at_expression))
		return;
	refusal_ = LangError(r.at_expression ? expr_loc : rule_loc, msg);
	refusal_at_expression_ = r.at_expression;
}

void Linearizer::foreign_match(const Stmt &s)
{
	const Expr &lhs = *s.lhs;
	foreign_evaluation(lhs);
	ForeignType t;
	if (s.rhs && foreign_type(lhs, net_, t))
		type_values(t, *s.rhs);
	foreign_refused(lhs.text, lhs.loc);
}

void Linearizer::foreign_value(const Expr &v)
{
	foreign_evaluation(v);
	foreign_refused(v.text, v.loc);
}

// dup and fwd: nft knows them for ip, ip6 and netdev (stmt_evaluate_dup,
// _fwd). queue: its number typed as nft types it (stmt_evaluate_queue).
// synproxy: nothing to evaluate.
void Linearizer::foreign_stmt(const Stmt &s)
{
	if (s.key == "dup" || s.key == "fwd")
		throw LangError(s.loc, "unsupported family");
	if (s.key == "queue" && s.rhs) {
		const Expr &q = *s.rhs;
		if (q.kind == ExprKind::Value || q.kind == ExprKind::Range)
			type_values({TYPE_INTEGER, 16, ByteOrder::Host}, q);
		if (q.kind == ExprKind::Range &&
		    bytes_value(encode_value(datatype(TYPE_INTEGER), 16, ByteOrder::Host, *q.items[0]),
				ByteOrder::Host) >=
			    bytes_value(encode_value(datatype(TYPE_INTEGER), 16, ByteOrder::Host, *q.items[1]),
					ByteOrder::Host))
			throw LangError(q.loc, "Range has zero or negative size");
		if ((s.queue_flags & NFT_QUEUE_FLAG_CPU_FANOUT) && q.kind != ExprKind::Range)
			throw LangError(q.loc, "fanout requires a range to be specified");
	}
	foreign_refused(s.key, s.loc);
}

} // namespace xnft
