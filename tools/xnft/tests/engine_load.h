// engine_load.h - nft text into the core's rule engine, the way the kernel
// gets it: compiled by xnft, encoded by libnftnl (wire.h), applied to an
// xb::nft::Ruleset as one batch and committed. Shared by the engine's tests
// and xnft-bench. Userspace only.
//
// Ownership: the caller owns the Ruleset and the Compiler (one compiler
// across loads knows what earlier loads declared, as nft's cache does).
#pragma once
#include <string>

#include "compiler.h"
#include "diagnostics.h"
#include "nft_ruleset.h"
#include "parser.h"
#include "printer.h"
#include "ruleset_model.h"
#include "wire.h"

namespace xnft {

struct LoadResult {
	int err = 0;               // 0, or the failing request's / commit's -errno
	std::string msg;           // the core's extack message
	std::string lang_error;    // xnft refused the text (nothing was applied)
};

// Compile @text with @compiler (retargeted at a fresh batch) and apply it to
// @rs as one batch: abort on the first refused request, else commit (with
// @events notified, if given).
inline LoadResult load_text(xb::nft::Ruleset &rs, Compiler &compiler, const std::string &text,
			    const xb::nft::CommitSink *events = nullptr)
{
	LoadResult r;
	Parser parser;
	Batch batch;
	compiler.retarget(batch);
	try {
		for (auto &cmd : parser.parse_text(text))
			compiler.compile(cmd);
	} catch (const LangError &e) {
		r.lang_error = format_error(e);
		r.err = -1;
		return r;
	}
	for (const WireMsg &m : encode_batch(batch)) {
		xb::Extack ack;
		r.err = rs.apply(m.type, m.flags, m.family, m.attrs.data(), m.attrs.size(), &ack);
		if (r.err) {
			rs.abort();
			r.msg = ack.msg ? ack.msg : "";
			return r;
		}
	}
	xb::Extack ack;
	r.err = rs.commit(&ack, events);
	if (r.err)
		r.msg = ack.msg ? ack.msg : "";
	return r;
}

// The same with a compiler of its own (a one-shot load).
inline LoadResult load_text(xb::nft::Ruleset &rs, const std::string &text)
{
	Batch scratch;
	Compiler compiler(scratch);
	return load_text(rs, compiler, text);
}

// What `xnft --list-offline` prints for @text: the batch xnft builds,
// applied to an empty ruleset model and listed.
inline std::string offline_listing(const std::string &text, const PrintOptions &po = {})
{
	Parser parser;
	Batch batch;
	Compiler compiler(batch);
	for (auto &cmd : parser.parse_text(text))
		compiler.compile(cmd);
	RulesetModel offline;
	offline.apply(batch);
	return print_ruleset(offline, po);
}

} // namespace xnft
