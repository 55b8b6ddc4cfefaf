// test_nft_rename.cc - `rename chain`: xnft's request (a NEWCHAIN naming
// the chain by its handle, the new name in NFTA_CHAIN_NAME) and what the
// core's Ruleset does with it, as nf_tables_updchain and
// nft_chain_commit_update do: the name changes at the commit (the batch's
// other requests still find the chain by its old name), a name another
// chain has or another rename of the batch takes is EEXIST and changes
// nothing, a handle no chain has is ENOENT, and the commit notifies a
// NEWCHAIN with the new name. Jumps, gotos and verdict maps follow the
// chain itself, so they list its new name.
//
// Userspace test code.
#include <catch2/catch.hpp>

#include <memory>

#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>

#include "engine_fixture.h"
#include "engine_load.h"
#include "monitor.h"
#include "nft_dump.h"

namespace {

using xb::nft::CommitEvent;
using xb::nft::CommitSink;
using xb::nft::Ruleset;
using xnft::test::dump_into;

const char *const kRuleset = "table bridge t {\n"
			     "  chain b {\n"
			     "    counter\n"
			     "  }\n"
			     "  chain a { type filter hook forward priority 0; policy accept;\n"
			     "    jump b\n"
			     "    meta l4proto vmap { tcp : goto b, udp : jump b }\n"
			     "  }\n"
			     "  chain c {\n"
			     "  }\n"
			     "}\n";

/* A ruleset, and xnft's compiler with nft's cache of it: the chains'
 * handles come from the ruleset's dump, as xnft reads the kernel's. */
struct Renames {
	Ruleset rs;
	xnft::Batch scratch;
	xnft::Compiler compiler{scratch};
	std::vector<CommitEvent> events;
	std::string monitor;	/* what `xnft monitor` printed for the last load */
	xnft::PrintOptions plain;
	std::unique_ptr<xnft::Monitor> printer;	/* knows the ruleset before the load */

	Renames()
	{
		REQUIRE(rs.init(nullptr) == 0);
		REQUIRE(load(kRuleset) == 0);
	}
	~Renames() { rs.fini(); }

	static void record(void *ctx, const Ruleset &rs, const CommitEvent &ev)
	{
		auto *self = static_cast<Renames *>(ctx);
		std::vector<uint8_t> buf(1 << 16);
		xb::nft::AttrWriter w(buf.data(), buf.size());
		REQUIRE(xb::nft::fill_event(rs, ev, w, 4242, "nft"));
		if (ev.type != xb::nft::kMsgNewGen)
			self->monitor += self->printer->event(ev.type, NFPROTO_BRIDGE, buf.data(), w.len(),
							      ev.flags);
		self->events.push_back(ev);
	}

	int load(const std::string &text, std::string *msg = nullptr)
	{
		xnft::RulesetModel cache;
		dump_into(rs, cache);
		compiler.learn(cache);
		events.clear();
		monitor.clear();
		printer = std::make_unique<xnft::Monitor>(xnft::MonitorWhat{}, plain);
		dump_into(rs, printer->model());
		CommitSink sink{record, this};
		const xnft::LoadResult r = xnft::load_text(rs, compiler, text, &sink);
		INFO(r.lang_error << r.msg);
		if (msg)
			*msg = r.msg;
		return r.err;
	}

	std::string listing()
	{
		xnft::RulesetModel model;
		dump_into(rs, model);
		return xnft::print_ruleset(model, xnft::PrintOptions{});
	}
};

} // namespace

TEST_CASE("nft rename: a chain takes its new name, and its jumps, gotos and maps follow it",
	  "[nft][rename]")
{
	Renames r;
	REQUIRE(r.load("rename chain bridge t b renamed\n") == 0);
	CHECK(r.listing() == "table bridge t {\n"
			     "\tchain renamed {\n"
			     "\t\tcounter packets 0 bytes 0\n"
			     "\t}\n"
			     "\n"
			     "\tchain a {\n"
			     "\t\ttype filter hook forward priority 0; policy accept;\n"
			     "\t\tjump renamed\n"
			     "\t\tmeta l4proto vmap { tcp : goto renamed, udp : jump renamed }\n"
			     "\t}\n"
			     "\n"
			     "\tchain c {\n"
			     "\t}\n"
			     "}\n");
	// one NEWCHAIN with the new name, no NLM_F_CREATE (nft monitor: "add")
	REQUIRE(r.events.size() == 2);
	CHECK(r.events[0].type == xb::nft::kMsgNewChain);
	CHECK(r.events[0].flags == 0);
	CHECK(r.monitor == "add chain bridge t renamed\n");
	// the old name is free again
	CHECK(r.load("add chain bridge t b\n") == 0);
	CHECK(r.listing().find("\tchain b {\n") != std::string::npos);
}

TEST_CASE("nft rename: the batch's other requests find the chain by its old name",
	  "[nft][rename]")
{
	Renames r;
	// nf_tables renames at the commit: `b` is still `b` for the rule
	REQUIRE(r.load("rename chain bridge t b x\nadd rule bridge t b drop\n") == 0);
	const std::string l = r.listing();
	CHECK(l.find("\tchain x {\n\t\tcounter packets 0 bytes 0\n\t\tdrop\n\t}\n") != std::string::npos);
	CHECK(l.find("chain b ") == std::string::npos);
	// the monitor prints both with the names the commit left
	CHECK(r.monitor == "add chain bridge t x\nadd rule bridge t x drop\n");
}

TEST_CASE("nft rename: a name that is taken is EEXIST and changes nothing", "[nft][rename]")
{
	Renames r;
	const std::string before = r.listing();
	std::string msg;
	// another chain's name; the chain's own
	CHECK(r.load("rename chain bridge t b c\n", &msg) == -xb::kEEXIST);
	CHECK(r.load("rename chain bridge t b b\n") == -xb::kEEXIST);
	// a name another rename of the batch takes
	CHECK(r.load("rename chain bridge t b x\nrename chain bridge t c x\n", &msg) == -xb::kEEXIST);
	CHECK(msg == "another chain is renamed to that name in this batch");
	// a rename before a request that fails: aborted, the name kept
	CHECK(r.load("rename chain bridge t c y\ndelete chain bridge t b\n") == -xb::kEBUSY);
	CHECK(r.listing() == before);
	CHECK(r.events.empty());
}

TEST_CASE("nft rename: a handle no chain has is ENOENT", "[nft][rename]")
{
	Renames r;
	const std::string before = r.listing();
	// nft sends handle 0 for a chain its batch adds
	CHECK(r.load("add chain bridge t n\nrename chain bridge t n m\n") == -xb::kENOENT);
	// a chain another client deleted since the cache was read
	xnft::RulesetModel cache;
	dump_into(r.rs, cache);
	r.compiler.learn(cache);
	xnft::Batch batch;
	r.compiler.retarget(batch);
	xnft::Parser parser;
	for (auto &cmd : parser.parse_text("rename chain bridge t c gone\n"))
		r.compiler.compile(cmd);
	REQUIRE(r.load("delete chain bridge t c\n") == 0);
	const std::vector<xnft::WireMsg> wire = xnft::encode_batch(batch);
	REQUIRE(wire.size() == 1);
	xb::Extack ack;
	CHECK(r.rs.apply(wire[0].type, wire[0].flags, wire[0].family, wire[0].attrs.data(),
			 wire[0].attrs.size(), &ack) == -xb::kENOENT);
	r.rs.abort();
	CHECK(r.listing() != before);	/* c went, nothing else */
	CHECK(r.listing().find("gone") == std::string::npos);
}

TEST_CASE("nft rename: two renames of one chain in a batch end with the second name",
	  "[nft][rename]")
{
	Renames r;
	// nft's cache keeps the old name, so both name the chain `c`
	REQUIRE(r.load("rename chain bridge t c x\nrename chain bridge t c y\n") == 0);
	const std::string l = r.listing();
	CHECK(l.find("\tchain y {\n") != std::string::npos);
	CHECK(l.find("chain x") == std::string::npos);
	CHECK(l.find("chain c ") == std::string::npos);
	// a rename and a delete of the chain in one batch: the chain goes
	REQUIRE(r.load("rename chain bridge t y z\ndelete chain bridge t y\n") == 0);
	CHECK(r.listing().find("chain z") == std::string::npos);
	CHECK(r.listing().find("chain y") == std::string::npos);
}

TEST_CASE("nft rename: each rename is notified with its own name, in the batch's order",
	  "[nft][rename]")
{
	// nf_tables_commit renames a chain and notifies it transaction by
	// transaction: a rule added before the rename is notified in the
	// chain's old name, one after it in the new, and two renames of one
	// chain notify the first name, then the second.
	Renames r;
	REQUIRE(r.load("add rule bridge t c counter\n"
		       "rename chain bridge t c x\n"
		       "add rule bridge t c meta mark 1\n"
		       "rename chain bridge t c y\n") == 0);
	const std::string &m = r.monitor;
	INFO(m);
	const size_t first_rule = m.find("add rule bridge t c counter");
	const size_t first_name = m.find("add chain bridge t x");
	const size_t second_rule = m.find("add rule bridge t x meta mark 0x00000001");
	const size_t second_name = m.find("add chain bridge t y");
	CHECK(first_rule != std::string::npos);
	CHECK(first_name != std::string::npos);
	CHECK(second_rule != std::string::npos);
	CHECK(second_name != std::string::npos);
	CHECK(first_rule < first_name);
	CHECK(first_name < second_rule);
	CHECK(second_rule < second_name);
	CHECK(r.listing().find("\tchain y {\n") != std::string::npos);
}
