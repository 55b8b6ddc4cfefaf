// main.cc - `xnft`: nft's command line for xbridge. Parses the options,
// reads the commands (argv words or -f FILE), compiles them to libnftnl
// objects, prints nft's --debug=netlink dump when asked, and with -c stops
// there. Kernel commands go to the xbridge family (not there yet: a clear
// error). No exception leaves main.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "batch.h"
#include "compiler.h"
#include "parser.h"
#include "printer.h"
#include "ruleset_model.h"

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
	"\n"
	"Options (ruleset list formatting):\n"
	"  -a, --handle                    Output rule handle.\n"
	"  -s, --stateless                 Omit stateful information of ruleset.\n"
	"  -n, --numeric                   Print fully numerical output.\n"
	"  -j, --json                      Format output in JSON\n"
	"\n"
	"  --list-offline                  Print the ruleset the input builds as `list ruleset`\n"
	"                                  does, from the compiled objects (no kernel).\n"
	"\n"
	"Options (debugging):\n"
	"  -d, --debug <level>             Specify debugging level (netlink)\n"
	"\n"
	"The language is nft's for the bridge family (see Documentation/xnft.md):\n"
	"tables, base and regular chains, rules with ether/vlan/ip/ip6/tcp/udp/icmp/\n"
	"icmpv6 fields, meta and ct keys, counter, limit, log, verdicts, ct/meta set,\n"
	"flow offload, anonymous and named sets, maps and verdict maps, intervals,\n"
	"concatenations, flowtables, define and include.\n";

struct Options {
	std::string file;
	bool check = false, debug_netlink = false, handle = false, json = false;
	bool numeric = false, stateless = false, list_offline = false;
	std::vector<std::string> include_dirs;
	std::vector<std::string> defines;
	std::vector<std::string> words;
};

static bool parse_options(int argc, char **argv, Options &o)
{
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		auto value = [&](const char *opt) -> std::string {
			if (i + 1 >= argc) {
				fprintf(stderr, "xnft: option requires an argument -- '%s'\n", opt);
				exit(1);
			}
			return argv[++i];
		};
		if (!o.words.empty()) {
			o.words.push_back(a);
			continue;
		}
		if (a == "-h" || a == "--help") {
			fputs(usage_text, stdout);
			exit(0);
		} else if (a == "-v" || a == "--version") {
			puts("xnft v0.1 (nftables v1.0.6 language subset, bridge family)");
			exit(0);
		} else if (a == "-f" || a == "--file") {
			o.file = value("f");
		} else if (a.rfind("--file=", 0) == 0) {
			o.file = a.substr(7);
		} else if (a == "--list-offline") {
			o.list_offline = true;
		} else if (a == "-c" || a == "--check") {
			o.check = true;
		} else if (a == "-a" || a == "--handle") {
			o.handle = true;
		} else if (a == "-j" || a == "--json") {
			o.json = true;
		} else if (a == "-n" || a == "--numeric") {
			o.numeric = true;
		} else if (a == "-s" || a == "--stateless") {
			o.stateless = true;
		} else if (a == "-I" || a == "--includepath") {
			o.include_dirs.push_back(value("I"));
		} else if (a == "-D" || a == "--define") {
			o.defines.push_back(value("D"));
		} else if (a == "-d" || a == "--debug") {
			std::string v = value("d");
			if (v != "netlink") {
				fprintf(stderr, "xnft: invalid debug level `%s' (xnft knows netlink)\n", v.c_str());
				return false;
			}
			o.debug_netlink = true;
		} else if (a.rfind("--debug=", 0) == 0) {
			std::string v = a.substr(8);
			if (v != "netlink") {
				fprintf(stderr, "xnft: invalid debug level `%s' (xnft knows netlink)\n", v.c_str());
				return false;
			}
			o.debug_netlink = true;
		} else if (a.size() > 1 && a[0] == '-' && a != "-") {
			fprintf(stderr, "xnft: unrecognized option '%s'\n", a.c_str());
			return false;
		} else {
			o.words.push_back(a);
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	Options o;
	if (!parse_options(argc, argv, o))
		return 1;
	if (o.file.empty() && o.words.empty()) {
		fputs(usage_text, stderr);
		return 1;
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
		if (!o.file.empty()) {
			cmds = parser.parse_file(o.file);
		} else {
			std::string text;
			for (auto &w : o.words)
				text += (text.empty() ? "" : " ") + w;
			cmds = parser.parse_text(text);
		}
	} catch (const LangError &e) {
		fputs(format_error(e).c_str(), stderr);
		return 1;
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
	int rc = 0;
	std::string errors;
	bool lists = false;
	for (auto &c : cmds) {
		if (c.verb == Verb::List || c.verb == Verb::Reset) {
			lists = true;
			continue;
		}
		try {
			compiler.compile(c);
		} catch (const LangError &e) {
			errors += format_error(e);
			rc = 1;
		}
	}
	if (mem) {
		fclose(mem);
		dump.assign(buf, len);
		free(buf);
	}
	if (rc != 0) {
		fputs(errors.c_str(), stderr);
		return rc;
	}
	fputs(dump.c_str(), stdout);
	fflush(stdout);
	if (o.list_offline) {
		RulesetModel model;
		model.apply(batch);
		PrintOptions po;
		po.handles = o.handle;
		po.stateless = o.stateless;
		po.numeric = o.numeric;
		fputs(print_ruleset(model, po).c_str(), stdout);
		return 0;
	}
	if (o.check && !lists)
		return 0;
	if (batch.items().empty() && !lists)
		return 0;
	fprintf(stderr, "Error: the xbridge family has no nft objects yet: the kernel side of "
			"xnft's commands (tables, chains, rules, sets, flowtables in the xbridge "
			"generic netlink family) does not exist; use -c to compile only\n");
	return 1;
}
