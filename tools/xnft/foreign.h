// foreign.h - what nft 1.0.6 and the kernel answer to the parts of
// nf_tables a bridge has no use for, or xbridge no counterpart of: the rt,
// fib, osf, socket and ipsec expressions and the synproxy, queue, dup and
// fwd statements (ExprKind::Foreign, StmtKind::Foreign; parsed as nft's
// grammar reads them, Parser::parse_foreign_expr and _stmt).
//
// None of them reaches xbridge. nft refuses some while it evaluates the
// rule (ipsec, dup and fwd have no bridge family; rt nexthop wants its
// protocol), and types the values the others are matched against, as it
// does any; the rest it sends, and nf_tables in a bridge table answers:
//
//   rt, osf, synproxy  EOPNOTSUPP when it validates the rule (their
//                      families are ip, ip6 and inet): the whole rule
//   fib                ENOENT: it has no fib for the bridge family, at
//                      the expression
//   socket             EOPNOTSUPP from its init, at the expression
//
// and queue, which nf_tables takes in every bridge hook, xbridge refuses
// as EOPNOTSUPP for the whole rule: it hands no frame to nfnetlink_queue
// (Documentation/xnft.md lists this among the known differences), as
// it does rt, osf and synproxy in a regular chain no base chain jumps to,
// which nf_tables takes, validating a rule only for the hooks reaching it.
//
// The Linearizer notes these refusals (Linearizer::refusal()) and goes on
// with the rule, as nft's evaluation does: an evaluation error further on
// is what nft reports then, having sent nothing. Of its refusals, the
// kernel's init of each expression comes first (the first refusal at an
// expression), its validation of the rule after (the whole rule), which
// it does only when nothing else in the batch is refused: its commit then
// replays the batch validating the table as each rule is added, refusing
// every rule added to the table after the invalid one too (main.cc's
// print_kernel_refusals, EvaluationErrors::KernelRefusal::validated_table).
//
// Ownership: stateless tables. Thread-safe.
#pragma once
#include <string>

#include "ast.h"

namespace xnft {

// The kernel's answer to a foreign expression or statement in a bridge
// table: strerror's words, and whether it points at the expression (its
// init refuses it) or at the whole rule (its validation does).
struct ForeignRefusal {
	const char *err;
	bool at_expression;
};

// For an expression's kind (rt, fib, osf, socket) or a statement's
// (synproxy, queue).
ForeignRefusal foreign_refusal(const std::string &kind);

} // namespace xnft
