// main.cc - `xnft`: nft's command line for xbridge. Parses the options,
// reads the commands (argv words or -f FILE), compiles them to libnftnl
// objects, prints nft's --debug=netlink dump when asked, and with -c stops
// there. Otherwise, as nft does, it first reads the kernel's ruleset (the
// xbridge family's NFT_GET dumps) so that commands may name existing
// objects, sends every change as one batch (NFT_BATCH: all or nothing), and
// prints `list` commands from what the kernel returns. No exception leaves
// main.
#include <libnftnl/chain.h>
#include <libnftnl/flowtable.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <linux/netfilter/nf_tables.h>

#include <algorithm>
#include <csignal>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <getopt.h>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "batch.h"
#include "compiler.h"
#include "family.h"
#include "json.h"
#include "json_input.h"
#include "monitor.h"
#include "parser.h"
#include "printer.h"
#include "refusal.h"
#include "ruleset_model.h"
#include "wire.h"

using namespace xnft;

static const char usage_text[] =
	"Usage: xnft [ options ] [ cmds... ]\n"
	"\n"
	"Options (general):\n"
	"  -h, --help                      Show this help\n"
	"  -v, --version                   Show version information\n"
	"\n"
	"Options (ruleset input handling):\n"
	"  -f, --file <filename>           Read input from <filename>\n"
	"  -D, --define <name=value>       Define variable, e.g. --define foo=1.2.3.4\n"
	"  -I, --includepath <directory>   Add <directory> to the paths searched for include files.\n"
	"  -c, --check                     Check commands validity without actually applying the changes.\n"
	"  -e, --echo                      Echo what has been added, inserted or replaced.\n"
	"\n"
	"Options (ruleset list formatting):\n"
	"  -a, --handle                    Output rule handle.\n"
	"  -s, --stateless                 Omit stateful information of ruleset.\n"
	"  -t, --terse                     Omit contents of sets.\n"
	"  -S, --service                   Translate ports to service names as described in /etc/services.\n"
	"  -N, --reversedns                Translate IP addresses to names.\n"
	"  -u, --guid                      Print UID/GID as defined in /etc/passwd and /etc/group.\n"
	"  -n, --numeric                   Print fully numerical output.\n"
	"  -y, --numeric-priority          Print chain priority numerically.\n"
	"  -p, --numeric-protocol          Print layer 4 protocols numerically.\n"
	"  -T, --numeric-time              Print time values numerically.\n"
	"  -j, --json                      Format output in JSON; with -f, read JSON input too\n"
	"                                  (nft 1.0.6's schema, libnftables-json(5))\n"
	"\n"
	"  --list-offline[=COMMAND]        Answer the input's `list` commands, then COMMAND\n"
	"                                  (default: `list ruleset`), from the ruleset the input\n"
	"                                  builds, without a kernel:\n"
	"                                  xnft -j -f fw.nft --list-offline='list chains'\n"
	"\n"
	"Options (debugging):\n"
	"  -d, --debug <level>             Specify debugging level (netlink)\n"
	"\n"
	"The language is nft's for the bridge family (see Documentation/xnft.md):\n"
	"tables, base and regular chains, rules with ether/vlan/ip/ip6/tcp/udp/icmp/\n"
	"icmpv6 fields, meta (time, day, hour too) and ct keys, numgen, jhash, symhash,\n"
	"counter, quota and limit (also named), ct count, log, reject, verdicts,\n"
	"ct/meta set, flow offload, anonymous and named sets, maps and verdict maps,\n"
	"intervals, concatenations, flowtables, define and include. Listings as\n"
	"nft 1.0.6's:\n"
	"list ruleset|tables|chains|sets|maps|flowtables [bridge], list table|chain|\n"
	"set|map|flowtable bridge NAME..., in text or (-j) JSON; -j -f FILE|- reads JSON input;\n"
	"get element bridge TABLE SET { ELEMENT, ... }.\n"
	"\n"
	"xnft monitor [new|destroy] [tables|chains|rules|sets|elements|flowtables|ruleset]\n"
	"prints the changes each committed batch makes, as nft monitor does (-a handles,\n"
	"-j JSON), until interrupted.\n";

struct Options {
	std::string file;
	std::string offline_list;  // --list-offline=COMMAND
	bool check = false, debug_netlink = false, handle = false, json = false;
	bool numeric = false, stateless = false, list_offline = false;
	bool terse = false, numeric_prio = false, echo = false;
	std::vector<std::string> include_dirs;
	std::vector<std::string> defines;
	std::vector<std::string> words;
};

// The kernel's ruleset, as nft's cache reads it: every kind of object for
// a listing; with @objects_only the tables, chains, sets and flowtables
// alone, which is all the compiler learns (Compiler::learn): not the rules
// and set elements, the bulk of a large ruleset (nft's cache leaves them
// out for such commands too).
static void load_kernel(Family &fam, RulesetModel &model, bool objects_only = false)
{
	static const uint16_t kinds[] = {NFT_MSG_GETTABLE, NFT_MSG_GETCHAIN, NFT_MSG_GETSET,
					 NFT_MSG_GETSETELEM, NFT_MSG_GETFLOWTABLE, NFT_MSG_GETOBJ,
					 NFT_MSG_GETRULE};
	for (uint16_t k : kinds) {
		if (objects_only && (k == NFT_MSG_GETSETELEM || k == NFT_MSG_GETRULE))
			continue;
		fam.dump(k, "", [&](uint16_t type, uint32_t family, const uint8_t *attrs, size_t len) {
			model.load_dump(type, family, attrs, len);
		});
	}
}

// Does any command compile to a batch item that may name existing
// objects? Not `list`/`reset`, which read the kernel afresh after the
// batch. And none when the input flushes the ruleset anywhere in it:
// nft then fetches no cache at all (NFT_CACHE_FLUSHED), so its other
// commands see only what the input itself adds.
static bool needs_cache(const std::vector<Command> &cmds)
{
	bool names_objects = false;
	for (const Command &c : cmds) {
		if (c.verb == Verb::Flush && c.obj == Obj::Ruleset)
			return false;
		if (c.verb != Verb::List && c.verb != Verb::Reset && c.verb != Verb::Get)
			names_objects = true;
	}
	return names_objects;
}

// nft --echo: the requests that add (add, create, insert, replace: every
// NEW* message, the anonymous sets of their rules too) ask nf_tables for
// their notifications (NLM_F_ECHO); deletes, flushes and renames (a
// NEWCHAIN naming its chain by handle) do not. @wire is @batch's items'.
static void mark_echo(std::vector<WireMsg> &wire, const Batch &batch)
{
	for (size_t n = 0; n < wire.size(); n++) {
		WireMsg &m = wire[n];
		switch (m.type) {
		case NFT_MSG_NEWCHAIN:
			if (n < batch.items().size() && batch.items()[n].chain &&
			    nftnl_chain_is_set(batch.items()[n].chain, NFTNL_CHAIN_HANDLE))
				break;
			m.flags |= NLM_F_ECHO;
			break;
		case NFT_MSG_NEWTABLE:
		case NFT_MSG_NEWRULE:
		case NFT_MSG_NEWSET:
		case NFT_MSG_NEWSETELEM:
		case NFT_MSG_NEWFLOWTABLE:
		case NFT_MSG_NEWOBJ:
			m.flags |= NLM_F_ECHO;
			break;
		}
	}
}

// What --echo prints: the monitor's lines, or with -j one document of
// their objects ({"nftables": [{"add": ...}, ...]}, no generation), as
// nft's json_print_echo; nothing when nothing came back.
static std::string echo_output(const std::string &lines, bool json)
{
	if (!json || lines.empty())
		return lines;
	std::string out = "{\"nftables\": [";
	size_t start = 0;
	bool first = true;
	while (start < lines.size()) {
		size_t end = lines.find('\n', start);
		if (end == std::string::npos)
			end = lines.size();
		if (end > start) {
			out += (first ? "" : ", ") + lines.substr(start, end - start);
			first = false;
		}
		start = end + 1;
	}
	return out + "]}\n";
}

// `xnft monitor ...`: the family's commit notifications, printed as nft
// monitor prints nf_tables' until SIGINT or SIGTERM.
static volatile sig_atomic_t monitor_stop = 0;

static void monitor_signal(int)
{
	monitor_stop = 1;
}

static int run_monitor(const Options &o)
{
	MonitorWhat what;
	try {
		what = parse_monitor_words(std::vector<std::string>(o.words.begin() + 1, o.words.end()));
	} catch (const std::invalid_argument &e) {
		fprintf(stderr, "Error: %s\n", e.what());
		return 1;
	}
	PrintOptions po;
	po.handles = o.handle;
	po.stateless = o.stateless;
	po.numeric = o.numeric;
	po.json = o.json;
	po.terse = o.terse;
	po.numeric_prio = o.numeric_prio;
	Monitor mon(what, po);
	struct sigaction sa = {};
	sa.sa_handler = monitor_signal;	/* no SA_RESTART: the wait returns */
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);
	try {
		// Join first, then read the ruleset (on a second socket: a dump's
		// replies and the notifications do not mix), so that nothing
		// committed in between is missed.
		Family events;
		events.subscribe();
		{
			Family dumper;
			load_kernel(dumper, mon.model());
		}
		setvbuf(stdout, nullptr, _IOLBF, 0);
		events.listen([&](uint16_t type, uint16_t flags, uint32_t family, const uint8_t *attrs,
				  size_t len) {
			const std::string out = mon.event(type, family, attrs, len, flags);
			fputs(mon.take_warnings().c_str(), stderr);
			fputs(out.c_str(), stdout);
			fflush(stdout);
		}, monitor_stop);
	} catch (const KernelError &e) {
		fprintf(stderr, "Error: %s\n", e.what());
		return 1;
	}
	fputs(mon.flush().c_str(), stdout);
	return 0;
}

// The input of -f PATH ("-": stdin); false when it cannot be read.
static bool read_input(const std::string &path, std::string &text)
{
	if (path == "-") {
		text.assign(std::istreambuf_iterator<char>(std::cin), {});
		return true;
	}
	std::ifstream in(path);
	if (!in)
		return false;
	text.assign(std::istreambuf_iterator<char>(in), {});
	return true;
}

// nft -j -f reads JSON when the input is JSON: when jansson cannot read
// it, nft hands the input to its own language's parser instead (whose
// syntax error then names it). Each JSON command becomes a line of nft
// text, parsed on its own so that its errors name the command.
static bool parse_json_input(Parser &parser, const std::string &path, const std::string &text,
			     std::vector<Command> &cmds)
{
	Json root;
	try {
		root = Json::parse(text);
	} catch (const JsonSyntaxError &) {
		return false;
	}
	for (auto &line : json_to_nft_text(root)) {
		// a newline after the line, as after a command line: a classid
		// (`1:2`) is a word only before one of the characters nft wants
		auto more = parser.parse_named_text(path + " (JSON command " + std::to_string(line.index) + ")",
						    line.text + "\n");
		for (auto &c : more)
			cmds.push_back(std::move(c));
	}
	return true;
}

// nft_options_check: an option after the first command word is nft's
// error, its caret line on stdout (nft prints it there); words after a
// '{' are the command's (`priority -10`), and the argument of -d, -I and
// -f is skipped.
static bool options_before_commands(int argc, char **argv)
{
	bool skip = false, nonoption = false;
	int pos = 0;
	for (int i = 1; i < argc; i++) {
		pos += static_cast<int>(strlen(argv[i - 1])) + 1;
		if (argv[i][0] == '{')
			break;
		if (skip) {
			skip = false;
			continue;
		}
		if (argv[i][0] == '-') {
			if (nonoption) {
				fprintf(stderr, "Error: syntax error, options must be specified before commands\n");
				for (int j = 0; j < argc; j++)
					fprintf(stderr, "%s ", argv[j]);
				printf("\n%4c%*s\n", '^', pos - 2, "~~");
				return false;
			}
			if (argv[i][1] == 'd' || argv[i][1] == 'I' || argv[i][1] == 'f' ||
			    !strcmp(argv[i], "--debug") || !strcmp(argv[i], "--includepath") ||
			    !strcmp(argv[i], "--file"))
				skip = true;
		} else {
			nonoption = true;
		}
	}
	return true;
}

// nft's debug levels (its debug_param); xnft prints only netlink's.
static bool debug_levels(const char *arg, Options &o)
{
	static const char *const known[] = {"scanner", "parser", "eval", "netlink", "mnl",
					    "proto-ctx", "segtree", "all"};
	std::string list = arg;
	size_t at = 0;
	while (at <= list.size()) {
		size_t comma = list.find(',', at);
		std::string level = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
		bool valid = false;
		for (const char *k : known)
			valid |= level == k;
		if (!valid) {
			fprintf(stderr, "invalid debug parameter `%s'\n", level.c_str());
			return false;
		}
		if (level != "netlink") {
			fprintf(stderr, "xnft: debug level `%s' is not supported (xnft knows netlink)\n",
				level.c_str());
			return false;
		}
		o.debug_netlink = true;
		if (comma == std::string::npos)
			break;
		at = comma + 1;
	}
	return true;
}

// nft's command line (getopt_long with nft 1.0.6's options, in its
// order, stopping at the first command word), and xnft's --list-offline.
// Exits as nft does for -h, -v and what getopt refuses.
static bool parse_options(int argc, char **argv, Options &o)
{
	if (!options_before_commands(argc, argv))
		exit(1);
	enum { OPT_LIST_OFFLINE = 256 };
	static const struct option longopts[] = {
		{"help", no_argument, nullptr, 'h'},
		{"version", no_argument, nullptr, 'v'},
		{"file", required_argument, nullptr, 'f'},
		{"define", required_argument, nullptr, 'D'},
		{"interactive", no_argument, nullptr, 'i'},
		{"includepath", required_argument, nullptr, 'I'},
		{"check", no_argument, nullptr, 'c'},
		{"optimize", no_argument, nullptr, 'o'},
		{"handle", no_argument, nullptr, 'a'},
		{"stateless", no_argument, nullptr, 's'},
		{"terse", no_argument, nullptr, 't'},
		{"service", no_argument, nullptr, 'S'},
		{"reversedns", no_argument, nullptr, 'N'},
		{"guid", no_argument, nullptr, 'u'},
		{"numeric", no_argument, nullptr, 'n'},
		{"numeric-priority", no_argument, nullptr, 'y'},
		{"numeric-protocol", no_argument, nullptr, 'p'},
		{"numeric-time", no_argument, nullptr, 'T'},
		{"echo", no_argument, nullptr, 'e'},
		{"json", no_argument, nullptr, 'j'},
		{"debug", required_argument, nullptr, 'd'},
		{"list-offline", optional_argument, nullptr, OPT_LIST_OFFLINE},
		{nullptr, 0, nullptr, 0},
	};
	bool interactive = false;
	int c;
	while ((c = getopt_long(argc, argv, "+hvVf:D:iI:coastSNunypTejd:", longopts, nullptr)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'v':
		case 'V':
			puts("xnft v0.1 (nftables v1.0.6 language subset, bridge family)");
			exit(0);
		case 'f': o.file = optarg; break;
		case 'D': o.defines.push_back(optarg); break;
		case 'I': o.include_dirs.push_back(optarg); break;
		case 'c': o.check = true; break;
		case 'a': o.handle = true; break;
		case 's': o.stateless = true; break;
		case 't': o.terse = true; break;
		case 'S': output_flags().service = true; break;
		case 'N': output_flags().reversedns = true; break;
		case 'u': output_flags().guid = true; break;
		case 'n':
			// NFT_CTX_OUTPUT_NUMERIC_ALL: symbols, protocols,
			// priorities and times
			o.numeric = true;
			break;
		case 'y': o.numeric_prio = true; break;
		case 'p': output_flags().numeric_proto = true; break;
		case 'T': output_flags().numeric_time = true; break;
		case 'j': o.json = true; break;
		case 'd':
			if (!debug_levels(optarg, o))
				exit(1);
			break;
		case 'i': interactive = true; break;
		case 'o':
			fprintf(stderr, "xnft: -o (--optimize) is not supported\n");
			exit(1);
		case 'e': o.echo = true; break;
		case OPT_LIST_OFFLINE:
			o.list_offline = true;
			if (optarg)
				o.offline_list = optarg;
			break;
		default:	/* getopt said why */
			exit(1);
		}
	}
	for (int i = optind; i < argc; i++)
		o.words.push_back(argv[i]);
	// nft runs the command words, else the file, else the interactive
	// prompt (which xnft has not)
	if (!o.words.empty())
		o.file.clear();
	else if (o.file.empty() && interactive) {
		fprintf(stderr, "xnft: -i (--interactive) is not supported\n");
		exit(1);
	} else if (o.file.empty()) {
		fprintf(stderr, "%s: no command specified\n", argv[0]);
		exit(1);
	}
	return true;
}

// The kernel's refusals of a batch, in batch order: those xnft found
// (@found, each before the item it came before) and the others (@others,
// at their item). nf_tables validates a table's rules only when nothing
// else is refused (KernelRefusal::validated_table): then the first rule
// it finds invalid and every rule added to that table after it are
// refused, whole.
static void print_kernel_refusals(const std::vector<EvaluationErrors::KernelRefusal> &found,
				  const std::vector<std::pair<size_t, std::string>> &others,
				  const Batch &batch, const CacheNames &names)
{
	bool validating = others.empty();
	for (const EvaluationErrors::KernelRefusal &e : found)
		validating = validating && !e.validated_table.empty();
	// (place, report): a refusal xnft found at 2 * its item, the item's
	// own at 2 * item + 1, so the rule before the item comes first
	std::vector<std::pair<size_t, std::string>> all;
	for (const auto &[item, report] : others)
		all.emplace_back(item == SIZE_MAX ? SIZE_MAX : 2 * item + 1, report);
	std::map<std::string, size_t> invalid_from;  // table -> its first invalid rule's item
	for (const EvaluationErrors::KernelRefusal &e : found) {
		if (!e.validated_table.empty() && !validating)
			continue;
		all.emplace_back(2 * e.at_item, format_error(e.error));
		if (validating)
			invalid_from.emplace(e.validated_table, e.at_item);
	}
	const std::vector<BatchItem> &items = batch.items();
	for (size_t i = 0; i < items.size(); i++) {
		if (items[i].kind != ItemKind::NewRule)
			continue;
		const std::string table = family_name(items[i].family) + " " +
					  nftnl_rule_get_str(items[i].rule, NFTNL_RULE_TABLE);
		auto from = invalid_from.find(table);
		if (from != invalid_from.end() && from->second <= i)
			all.emplace_back(2 * i + 1, report_item_refusal(items[i], EOPNOTSUPP, items[i].cmd_loc, "",
									 &names));
	}
	std::stable_sort(all.begin(), all.end(),
			 [](const auto &a, const auto &b) { return a.first < b.first; });
	for (const auto &[place, report] : all)
		fputs(report.c_str(), stderr);
}

int main(int argc, char **argv)
{
	Options o;
	if (!parse_options(argc, argv, o))
		return 1;
	if (o.file.empty() && o.words[0] == "monitor")
		return run_monitor(o);
	if (!o.file.empty() && o.file != "-") {
		// nft's error for a file it cannot open, at its internal location
		FILE *f = fopen(o.file.c_str(), "r");
		if (!f) {
			const int err = errno;
			fprintf(stderr, "internal:0:0-0: Error: Could not open file \"%s\": %s\n\n\n", o.file.c_str(),
				strerror(err));
			return 1;
		}
		fclose(f);
	}
	Parser parser;
	parser.include_dirs = o.include_dirs;
	parser.include_dirs.push_back("/etc/nftables");
	std::vector<Command> cmds;

	try {
		std::string prelude;
		for (auto &d : o.defines) {
			size_t eq = d.find('=');
			if (eq == std::string::npos) {
				fprintf(stderr, "Error: invalid define: %s\n", d.c_str());
				return 1;
			}
			prelude += "define " + d.substr(0, eq) + " = " + d.substr(eq + 1) + "\n";
		}
		if (!prelude.empty())
			parser.parse_text(prelude);
		std::string text;
		// nft reports every syntax error it recovers from, then evaluates
		// the commands read whole all the same (reporting their errors
		// too), and applies nothing; its JSON parser stops at the first
		if (!o.file.empty() && o.json && read_input(o.file, text)) {
			if (!parse_json_input(parser, o.file, text, cmds)) {
				parser.keep_errors = true;
				cmds = parser.parse_named_text(o.file, text);
			}
		} else if (!o.file.empty()) {
			parser.keep_errors = true;
			cmds = parser.parse_file(o.file);
		} else {
			std::string text;
			for (auto &w : o.words)
				text += (text.empty() ? "" : " ") + w;
			parser.keep_errors = true;
			// nft's command line is scanned with a newline after it
			cmds = parser.parse_text(text + "\n");
		}
	} catch (const LangError &e) {
		fputs(format_error(e).c_str(), stderr);
		return 1;
	} catch (const JsonInputError &e) {
		fputs(format_json_error(e).c_str(), stderr);
		return 1;
	}
	// Kernel mode reads the kernel's ruleset first, as nft fills its cache.
	// So does --check when the module is loaded: nft --check has the
	// kernel validate its batch (and abort it); without the module only
	// the input itself is checked.
	std::unique_ptr<Family> fam;
	if (o.check && !o.list_offline) {
		try {
			fam = std::make_unique<Family>();
		} catch (const KernelError &) {
		}
	}
	const bool kernel = !o.list_offline && (!o.check || fam);
	RulesetModel cache;
	if (kernel) {
		try {
			if (!fam)
				fam = std::make_unique<Family>();
			// the rules too when nft's cache holds them (RuleReferences)
			if (needs_cache(cmds))
				load_kernel(*fam, cache, !references_rules(cmds));
		} catch (const KernelError &e) {
			fprintf(stderr, "Error: %s\n", e.what());
			return 1;
		}
	}
	// Compile everything first: on any error nothing is printed as bytecode
	// beyond what came before it, and nothing is sent.
	Batch batch;
	std::string dump;
	char *buf = nullptr;
	size_t len = 0;
	FILE *mem = nullptr;
	if (o.debug_netlink) {
		mem = open_memstream(&buf, &len);
		batch.debug = mem;
	}
	Compiler compiler(batch);
	compiler.learn(cache);
	compiler.prepare(cmds);
	// nft's error count goes on from the parser's (nft_evaluate)
	EvaluationErrors evaluation;
	evaluation.count = parser.recovered_errors();
	evaluation.limit = Parser::kMaxErrors;
	std::vector<const Command *> lists;
	for (auto &c : cmds) {
		if (c.verb == Verb::List || c.verb == Verb::Reset || c.verb == Verb::Get) {
			lists.push_back(&c);
			continue;
		}
		if (!compiler.compile(c, evaluation))
			break;
	}
	if (mem) {
		fclose(mem);
		dump.assign(buf, len);
		free(buf);
	}
	if (!parser.syntax_errors().empty() || !evaluation.errors.empty()) {
		// the parser's errors first, as nft queues them; nothing is sent
		for (const LangError &e : parser.syntax_errors())
			fputs(format_error(e).c_str(), stderr);
		for (const LangError &e : evaluation.errors)
			fputs(format_error(e).c_str(), stderr);
		return 1;
	}
	if (!evaluation.kernel_refusals.empty()) {
		// nft finds these only in the kernel's answer to its batch, with
		// the kernel's other refusals. With the module, the rest of the
		// batch goes to it to be checked (never committed); offline, to
		// the ruleset model; and the two are printed in batch order.
		std::vector<std::pair<size_t, std::string>> others;  // item, report
		const CacheNames names = CacheNames::of(compiler.tables());
		if (fam && !batch.items().empty()) {
			std::vector<WireMsg> wire;
			try {
				wire = encode_batch(batch);
				fam->batch(wire, true);
			} catch (const KernelError &e) {
				for (const Refusal &r : e.refusals)
					others.emplace_back(r.index >= 0 && size_t(r.index) < wire.size()
								    ? size_t(r.index) : SIZE_MAX,
							    report_refusal(r, batch, wire, &names));
			}
		} else if (o.list_offline) {
			RulesetModel model;
			for (const RefusedItem &r : model.commit(batch))
				others.emplace_back(r.item, report_item_refusal(batch.items()[r.item], r.err,
										r.where, "", &names));
		}
		print_kernel_refusals(evaluation.kernel_refusals, others, batch, names);
		return 1;
	}
	fputs(dump.c_str(), stdout);
	fflush(stdout);
	PrintOptions po;
	po.handles = o.handle;
	po.stateless = o.stateless;
	po.numeric = o.numeric;
	po.json = o.json;
	po.terse = o.terse;
	po.numeric_prio = o.numeric_prio;
	if (o.list_offline) {
		RulesetModel model;
		// what the kernel would refuse, reported as nft reports it: every
		// refused item, and nothing listed (nothing was committed)
		const std::vector<RefusedItem> refused = model.commit(batch);
		const CacheNames names = CacheNames::of(compiler.tables());
		for (const RefusedItem &r : refused)
			fputs(report_item_refusal(batch.items()[r.item], r.err, r.where, "", &names).c_str(),
			      stderr);
		if (!refused.empty())
			return 1;
		// The input's `reset counter|quota` and `get element`: nft asks
		// the kernel as it meets them, before it sends its batch (last),
		// here an empty ruleset: what the input adds is not there yet,
		// the kernel's ENOENT at the command, which stops nft before its
		// batch. (A plural reset prints nft's cache, as a list does; a
		// table or set nobody adds is nft's evaluation error,
		// print_list's.)
		for (const Command *c : lists) {
			if ((c->verb != Verb::Reset && c->verb != Verb::Get) || c->table.empty())
				continue;
			auto t = compiler.tables().find((c->family.empty() ? "ip" : c->family) + " " + c->table);
			if (t == compiler.tables().end() || c->obj == Obj::Counters || c->obj == Obj::Quotas ||
			    (c->verb == Verb::Get && !t->second.sets.count(c->set)))
				continue;
			fflush(stdout);
			fputs(format_error(LangError(c->verb == Verb::Get ? c->loc : c->whole_loc,
						     "Could not process rule: No such file or directory")).c_str(),
			      stderr);
			return 1;
		}
		// the input's own list commands, then --list-offline=COMMAND;
		// `list ruleset` when there are none
		std::vector<Command> extra;
		Parser p2;  // owns the locations errors point into
		try {
			if (!o.offline_list.empty())
				// a command line, scanned with a newline after it
				extra = p2.parse_text(o.offline_list + "\n");
			else if (lists.empty())
				extra = p2.parse_text("list ruleset");
			for (auto &c : extra)
				lists.push_back(&c);
			for (const Command *c : lists)
				fputs(print_list(model, *c, po).c_str(), stdout);
		} catch (const LangError &e) {
			fputs(format_error(e).c_str(), stderr);
			return 1;
		}
		return 0;
	}
	if (o.check && (!fam || batch.items().empty()))
		return 0;
	try {
		if (!batch.items().empty()) {
			std::vector<WireMsg> wire = encode_batch(batch);
			// --echo: what each add, create, insert and replace
			// changed comes back, printed as the monitor prints it
			std::unique_ptr<Monitor> echo;
			std::string echoed;
			const Family::EventFn print_echo = [&](uint16_t type, uint16_t flags,
							       uint32_t family, const uint8_t *attrs,
							       size_t len) {
				echoed += echo->event(type, family, attrs, len, flags);
			};
			if (o.echo && !o.check) {
				mark_echo(wire, batch);
				echo = std::make_unique<Monitor>(MonitorWhat{}, po);
				load_kernel(*fam, echo->model());
			}
			try {
				fam->batch(wire, o.check, echo ? &print_echo : nullptr);
				if (o.check)
					return 0;
				if (echo)
					fputs(echo_output(echoed + echo->flush(), o.json).c_str(), stdout);
			} catch (const KernelError &e) {
				if (e.refusals.empty())
					throw;
				// As nft reports a refused batch: each refused
				// command at the attribute the kernel named.
				const CacheNames names = CacheNames::of(compiler.tables());
				for (const Refusal &r : e.refusals)
					fputs(report_refusal(r, batch, wire, &names).c_str(), stderr);
				return 1;
			}
		}
		for (const Command *c : lists) {
			RulesetModel model;
			if (c->verb == Verb::Reset &&
			    (c->obj == Obj::Counter || c->obj == Obj::Counters ||
			     c->obj == Obj::Quota || c->obj == Obj::Quotas)) {
				// The tables, then the counters read and reset in one
				// GETOBJ_RESET dump (of the table and name asked for):
				// what is printed is what was taken away.
				fam->dump(NFT_MSG_GETTABLE, "", [&](uint16_t type, uint32_t family,
								    const uint8_t *attrs, size_t len) {
					model.load_dump(type, family, attrs, len);
				});
				bool table_known = c->table.empty();
				for (auto &t : model.tables)
					table_known |= t.name == c->table &&
						       family_name(t.family) == (c->family.empty() ? "ip" : c->family);
				if (table_known)
					fam->dump(NFT_MSG_GETOBJ_RESET, c->table,
						  [&](uint16_t type, uint32_t family, const uint8_t *attrs,
						      size_t len) { model.load_dump(type, family, attrs, len); },
						  c->obj == Obj::Counter || c->obj == Obj::Quota ? c->object : "",
						  c->obj == Obj::Counter || c->obj == Obj::Counters
							  ? NFT_OBJECT_COUNTER : NFT_OBJECT_QUOTA);
			} else if (c->verb == Verb::Reset) {
				fflush(stdout);
				fputs(format_error(LangError(c->loc, "xnft resets counters and quotas only "
						"(reset counter|counters|quota|quotas)")).c_str(), stderr);
				return 1;
			} else {
				load_kernel(*fam, model);
			}
			try {
				fputs(print_list(model, *c, po).c_str(), stdout);
			} catch (const LangError &e) {
				fflush(stdout);
				fputs(format_error(e).c_str(), stderr);
				return 1;
			}
		}
	} catch (const KernelError &e) {
		// As nft reports a refused batch; the kernel's extack says why.
		fprintf(stderr, "Error: Could not process rule: %s\n", strerror(e.err));
		if (*e.what())
			fprintf(stderr, "  %s\n", e.what());
		return 1;
	}
	return 0;
}
