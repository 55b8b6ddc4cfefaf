// main.cc - `xbridge`: global options, -batch, and the object dispatch,
// as iproute2's bridge/bridge.c. No exception leaves main.
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "args.h"
#include "cmd_ct.h"
#include "cmd_fdb.h"
#include "cmd_link.h"
#include "cmd_monitor.h"
#include "cmd_vlan.h"
#include "context.h"
#include "errors.h"

using namespace xbridge;

static const char usage_text[] =
	"Usage: xbridge [ OPTIONS ] OBJECT { COMMAND | help }\n"
	"       xbridge [ -force ] -batch filename\n"
	"where  OBJECT := { link | fdb | vlan | ct | monitor }\n"
	"       OPTIONS := { -V[ersion] | -s[tatistics] | -d[etails] |\n"
	"                    -j[son] | -p[retty] | -c[ompressvlans] |\n"
	"                    -n[etns] name | -b[atch] filename | -force }\n";

static int dispatch(Context &c, std::vector<std::string> words)
{
	if (words.empty())
		throw UsageError(usage_text);
	std::string obj = words[0];
	Args a(std::vector<std::string>(words.begin() + 1, words.end()));
	if (matches(obj, "fdb"))
		return do_fdb(c, a);
	if (matches(obj, "vlan"))
		return do_vlan(c, a);
	if (matches(obj, "link"))
		return do_link(c, a);
	if (matches(obj, "monitor"))
		return do_monitor(c, a);
	if (obj == "ct" || matches(obj, "conntrack"))
		return do_ct(c, a);
	if (matches(obj, "help"))
		throw UsageError(usage_text);
	throw UsageError("Object \"" + obj + "\" is unknown, try \"xbridge help\".");
}

// Print an error as iproute2 does (one line) and return its exit code.
static int report(const Error &e)
{
	std::string m = e.what();
	if (!m.empty() && m.back() == '\n')
		m.pop_back();
	fprintf(stderr, "%s\n", m.c_str());
	return e.code();
}

// Run one command, reporting its error; returns the exit code.
static int run_one(Context &c, const std::vector<std::string> &words)
{
	try {
		return dispatch(c, words);
	} catch (const Error &e) {
		return report(e);
	}
}

static int batch(Context &c, const std::string &name)
{
	std::ifstream file;
	std::istream *in = &std::cin;
	if (name != "-") {
		file.open(name);
		if (!file) {
			fprintf(stderr, "Cannot open file \"%s\" for reading: %s\n", name.c_str(),
				strerror(errno));
			return EXIT_DUMP;
		}
		in = &file;
	}
	std::string line;
	int lineno = 0, ret = 0;
	while (std::getline(*in, line)) {
		lineno++;
		std::vector<std::string> words;
		try {
			words = split_line(line);
		} catch (const Error &e) {
			fprintf(stderr, "%s\n", e.what());
			fprintf(stderr, "Command failed %s:%d\n", name.c_str(), lineno);
			ret = EXIT_DUMP;
			if (!c.opt.force)
				break;
			continue;
		}
		if (words.empty())
			continue;
		if (run_one(c, words) != 0) {
			fprintf(stderr, "Command failed %s:%d\n", name.c_str(), lineno);
			ret = EXIT_DUMP;
			if (!c.opt.force)
				break;
		}
	}
	return ret;
}

static void enter_netns(const std::string &ns)
{
	std::string path = ns.find('/') == std::string::npos ? "/run/netns/" + ns : ns;
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		throw Error("Cannot open network namespace \"" + ns + "\": " + strerror(errno));
	if (setns(fd, CLONE_NEWNET) < 0) {
		int e = errno;
		close(fd);
		throw Error("setting the network namespace \"" + ns + "\" failed: " + strerror(e));
	}
	close(fd);
}

static int real_main(int argc, char **argv)
{
	Context c;
	int i = 1;
	for (; i < argc; i++) {
		std::string o = argv[i];
		if (o.size() < 2 || o[0] != '-')
			break;
		if (o == "--")
			{ i++; break; }
		std::string w = o.substr(o[1] == '-' ? 2 : 1);
		auto need = [&](const char *what) -> std::string {
			if (i + 1 >= argc)
				throw UsageError(std::string("Option \"") + o + "\" needs " + what + ".");
			return argv[++i];
		};
		if (matches(w, "help"))
			throw UsageError(usage_text);
		else if (matches(w, "Version"))
			{ printf("xbridge utility, 0.1\n"); return 0; }
		else if (matches(w, "stats") || matches(w, "statistics"))
			c.opt.stats++;
		else if (matches(w, "details"))
			c.opt.details = true;
		else if (matches(w, "json"))
			c.opt.json = true;
		else if (matches(w, "pretty"))
			c.opt.pretty = true;
		else if (matches(w, "compressvlans"))
			c.opt.compress = true;
		else if (matches(w, "netns"))
			c.opt.netns = need("a namespace name");
		else if (matches(w, "batch"))
			c.opt.batch = need("a file name");
		else if (matches(w, "force"))
			c.opt.force = true;
		else if (w == "o" || matches(w, "oneline") || w == "t" || matches(w, "timestamp"))
			;  // accepted for compatibility; rows are one line already
		else
			throw UsageError("Option \"" + o + "\" is unknown, try \"xbridge help\".");
	}
	if (!c.opt.netns.empty())
		enter_netns(c.opt.netns);
	if (!c.opt.batch.empty())
		return batch(c, c.opt.batch);
	if (i >= argc)
		throw UsageError(usage_text);
	return run_one(c, std::vector<std::string>(argv + i, argv + argc));
}

int main(int argc, char **argv)
{
	try {
		return real_main(argc, argv);
	} catch (const Error &e) {
		return report(e);
	} catch (const std::exception &e) {
		fprintf(stderr, "xbridge: %s\n", e.what());
		return EXIT_ERROR;
	} catch (...) {
		fprintf(stderr, "xbridge: unexpected error\n");
		return EXIT_ERROR;
	}
}
