#!/usr/bin/env python3
"""xnft corpus test.

For every tests/corpus/*.nft: `xnft --debug=netlink -c -f FILE` must print
byte-for-byte what `nft --debug=netlink -c -f FILE` prints (stdout; nft's
kernel-side complaints on stderr are not part of the comparison, the host
kernel lacks bridge conntrack and flowtables).

Every file this kernel can load is also listed back: nft's `list ruleset`,
`list tables|chains|sets|maps|flowtables`, `list counters|quotas|limits`
(with -a, -n, -s where they apply) and `-j` JSON must equal xnft's
--list-offline output byte for byte (see LISTINGS), but for one thing: the
time a set element has left depends on when it is listed (the kernel counts
it down in jiffies from the load on, xnft lists the whole of it), so in
listings only, on both sides, the value of an element's `expires TIME` in
text and of its "expires": N in JSON is replaced by a placeholder before
comparing (see normalise_expires). Everything else, the element's `timeout`
included, is compared exactly: the kernel keeps timeouts in jiffies, so the
corpus writes them in multiples of 20ms, which every HZ keeps as they are.

A corpus file may ask for more listings with comment lines "# list: [OPTIONS]
COMMAND" (`# list: -t -y list ruleset`): once nft has loaded the file, the
output, error and exit status of `nft OPTIONS COMMAND` must equal xnft's
OPTIONS --list-offline=COMMAND (expires normalised as in listings).

A corpus file may ask for `get element` answers with comment lines
"# get: get element bridge TABLE SET { ... }": once nft has loaded the
file, each such command's output, error and exit status from nft must
equal xnft's --list-offline=COMMAND (expires normalised as in listings).

For every tests/errors/*.nft: `xnft -c -f FILE` must print on stderr byte
for byte what `nft -c -f FILE` prints (both run in the errors directory with
the same relative name, so the errors name the file alike), exit with nft's
status and print nothing on stdout. nft reports several errors per file:
every syntax error it recovers from and every command whose evaluation
fails, up to ten. The error files whose errors cannot agree are listed in
KNOWN_ERROR_DIFFERENCES with the reason; for them xnft must still exit
non-zero and print an nft-style error containing the text of the file's
first-line comment "# error: TEXT", and nft must reject the file. A listed
file that agrees after all is a failure too (the list must stay true).

For every tests/load-errors/*.nft (what the kernel, or nft's own rule
cache, refuses when the file is loaded: handles and positions of rules
that are not there): `nft -f FILE` in a fresh namespace must fail, and
`xnft -f FILE --list-offline` must fail with the same exit status, print
nothing on stdout and print on stderr byte for byte what nft prints.

Both run inside one private network namespace (unshare -n) holding veth21
and veth22, so `iif "veth21"` resolves to the same ifindex for both.
Exit 77 (skip) without nft or without the right to make a namespace.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


# What the round trip compares: (name, nft's arguments, xnft's extra
# arguments). xnft answers with --list-offline=COMMAND from the batch it
# compiled; nft lists what the kernel took.
LISTINGS = [
    ("list ruleset", ["list", "ruleset"], []),
    ("-a list ruleset", ["-a", "list", "ruleset"], ["-a"]),
    ("list tables", ["list", "tables"], []),
    ("list chains", ["list", "chains"], []),
    ("-a list chains", ["-a", "list", "chains"], ["-a"]),
    ("-n list chains", ["-n", "list", "chains"], ["-n"]),
    ("list sets", ["list", "sets"], []),
    ("list maps", ["list", "maps"], []),
    ("list flowtables", ["list", "flowtables"], []),
    ("-n list ruleset", ["-n", "list", "ruleset"], ["-n"]),
    ("-s list ruleset", ["-s", "list", "ruleset"], ["-s"]),
    ("-j list ruleset", ["-j", "list", "ruleset"], ["-j"]),
    ("-j -n list ruleset", ["-j", "-n", "list", "ruleset"], ["-j", "-n"]),
    ("-j -s list ruleset", ["-j", "-s", "list", "ruleset"], ["-j", "-s"]),
    ("-j list tables", ["-j", "list", "tables"], ["-j"]),
    ("-j list chains", ["-j", "list", "chains"], ["-j"]),
    ("-j list sets", ["-j", "list", "sets"], ["-j"]),
    ("-j list maps", ["-j", "list", "maps"], ["-j"]),
    ("list counters", ["list", "counters"], []),
    ("list quotas", ["list", "quotas"], []),
    ("list limits", ["list", "limits"], []),
    ("-a list limits", ["-a", "list", "limits"], ["-a"]),
    ("-j list counters", ["-j", "list", "counters"], ["-j"]),
    ("-j list quotas", ["-j", "list", "quotas"], ["-j"]),
    ("-j list limits", ["-j", "list", "limits"], ["-j"]),
]


# An element's remaining time: `expires 4s984ms` (`expires 4s` with -n) in
# text, "expires": 4 in JSON.
EXPIRES_TEXT = re.compile(r"(?<= expires )(?:[0-9]+(?:ms|d|h|m|s))+(?=[ ,:\n}])")
EXPIRES_JSON = re.compile(r'(?<="expires": )[0-9]+(?=[,}])')


# tests/errors files whose errors xnft cannot print as nft 1.0.6 on this
# host does, and why.
KNOWN_ERROR_DIFFERENCES = {
    "ct-count-meter-timeout.nft": "this kernel, without bridge conntrack, answers EPROTO; xnft models "
                                  "the refusal of a kernel with it (EOPNOTSUPP)",
    "ct-count-set-stmt-timeout.nft": "as ct-count-meter-timeout.nft",
    "set-decl-stmt-ct-count-timeout.nft": "as ct-count-meter-timeout.nft",
    "meter-twice.nft": "the kernel refuses two messages of the one rule (the meter's set and the "
                       "rule); xnft models one refusal per rule",
    "meter-set-name-taken.nft": "as meter-twice.nft",
    "raw-payload-bit-field-too-long.nft": "nft 1.0.6 fails an assertion and aborts "
                                          "(expr_evaluate_bits); xnft refuses the rule",
    "raw-payload-zero-length.nft": "nft 1.0.6 fails an assertion and aborts (netlink_gen_raw_data); "
                                   "xnft refuses the rule",
    "set-decl-stmt-named.nft": "nft 1.0.6 fails an assertion and aborts "
                               "(netlink_gen_stmt_stateful); xnft refuses the set",
    "set-decl-stmt-missing-dynamic-later.nft": "nft's cache holds a set whose declaration fails "
                                               "evaluation, so the rules after it find it; xnft's "
                                               "does not, and reports them too",
}


def check_error_file(xnft, errdir, name):
    """The problems of tests/errors/NAME: [] when xnft answers as nft does."""
    path = os.path.join(errdir, name)
    with open(path) as f:
        first = f.readline()
    expect = first.split("# error:", 1)[1].strip() if "# error:" in first else "Error:"
    got = subprocess.run([xnft, "--debug=netlink", "-c", "-f", name], capture_output=True, text=True,
                         cwd=errdir)
    nft = subprocess.run(["nft", "-c", "-f", name], capture_output=True, text=True, cwd=errdir)
    problems = []
    if got.returncode == 0:
        problems.append("xnft exit status 0")
    if got.stdout:
        problems.append("xnft printed bytecode: " + got.stdout[:200])
    if nft.returncode == 0:
        problems.append("nft accepts this file: not an error case")
    same = got.stderr == nft.stderr and got.returncode == nft.returncode
    if name in KNOWN_ERROR_DIFFERENCES:
        if same:
            problems.append("listed in KNOWN_ERROR_DIFFERENCES but xnft agrees with nft: "
                            "take it off the list")
        if "Error:" not in got.stderr or expect not in got.stderr:
            problems.append(f"stderr lacks {expect!r}: {got.stderr!r}")
        lines = got.stderr.splitlines()
        if len(lines) < 3 or "^" not in lines[2]:
            problems.append("no caret line")
    elif not same:
        problems.append(f"stderr or exit status differ:\n--- nft ({nft.returncode})\n{nft.stderr}"
                        f"--- xnft ({got.returncode})\n{got.stderr}")
    return problems


def normalise_expires(listing):
    """LISTING with the value of every element's `expires` (text) or
    "expires" (JSON) replaced by T ("T" in JSON, which stays JSON), the
    rest untouched."""
    return EXPIRES_JSON.sub('"T"', EXPIRES_TEXT.sub("T", listing))


def get_commands(path):
    """The file's "# get: COMMAND" lines' commands."""
    with open(path) as f:
        return [line.split("# get:", 1)[1].strip() for line in f if line.startswith("# get:")]


def list_commands(path):
    """The file's "# list: [OPTIONS] COMMAND" lines, as (options, command)."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("# list:"):
                words = line.split("# list:", 1)[1].split()
                opts = [w for w in words if w.startswith("-")]
                out.append((opts, " ".join(words[len(opts):])))
    return out


def round_trip(xnft, path, name, counts, out):
    """Every listing in LISTINGS that xnft prints from --list-offline equals,
    byte for byte, what nft prints after loading the file into a fresh
    namespace, when this kernel can load it (handles start afresh in a new
    namespace). JSON is compared as printed: both are nft's one-line
    format; only elements' remaining times are normalised, in both."""
    sep = "=====xnft-separator====="
    script = "ip link add veth21 type veth peer name veth22 && nft -f \"$1\""
    for _, nft_args, _ in LISTINGS:
        script += " && echo " + sep + " && nft " + " ".join(nft_args)
    gets = get_commands(path)
    lists = list_commands(path)
    # each get's and list's output, error and status, whatever it is
    # (after the listings, whose failure is the file's)
    script += " && { true"
    for i in range(len(gets)):
        script += f"; echo {sep}; nft \"$(sed -n '{i + 1}p' \"$2\")\" 2>&1; echo rc=$?"
    for opts, command in lists:
        script += f"; echo {sep}; nft {' '.join(opts)} {command} 2>&1; echo rc=$?"
    script += "; }"
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".gets") as f:
        f.write("".join(g + "\n" for g in gets))
        f.flush()
        load = subprocess.run(["unshare", "-n", "sh", "-c", script, "sh", path, f.name],
                              capture_output=True, text=True, cwd=os.path.dirname(path))
    if load.returncode != 0:
        counts["not_loadable"] += 1
        out.append(f"     {name}: kernel cannot load it, round trip not checked here")
        return 0
    wants = load.stdout.split(sep + "\n")[1:]
    list_wants = wants[len(LISTINGS) + len(gets):]
    get_wants = wants[len(LISTINGS):len(LISTINGS) + len(gets)]
    wants = wants[:len(LISTINGS)]
    bad = 0
    for (what, _, extra), want in zip(LISTINGS, wants):
        command = what.split(" list ", 1)[-1] if " list " in what else what[len("list "):]
        got = subprocess.run([xnft] + extra + ["-f", path, "--list-offline=list " + command],
                             capture_output=True, text=True, cwd=os.path.dirname(path))
        counts["listings"] += 1
        want, got.stdout = normalise_expires(want), normalise_expires(got.stdout)
        if got.stdout != want or got.returncode != 0:
            bad = 1
            out.append(f"FAIL {name}: {what} differs (xnft rc={got.returncode}) {got.stderr[:300]}")
            import difflib
            wl, gl = want.splitlines(), got.stdout.splitlines()
            if what.startswith("-j"):
                # one line each: show the differing items
                import json
                try:
                    wl = [json.dumps(o) for o in json.loads(want)["nftables"]]
                    gl = [json.dumps(o) for o in json.loads(got.stdout)["nftables"]]
                except ValueError:
                    pass
            for line in difflib.unified_diff(wl, gl, "nft", "xnft", lineterm="", n=1):
                out.append(line)
    def offline_answer_differs(opts, command, want):
        """xnft's --list-offline=COMMAND answer (stdout, stderr, status) against nft's."""
        got = subprocess.run([xnft] + opts + ["-f", path, "--list-offline=" + command],
                             capture_output=True, text=True, cwd=os.path.dirname(path))
        got_all = normalise_expires(got.stdout + got.stderr + f"rc={got.returncode}\n")
        if got_all == normalise_expires(want):
            return False
        import difflib
        out.append(f"FAIL {name}: {' '.join(opts + [command])} differs")
        out.extend(difflib.unified_diff(want.splitlines(), got_all.splitlines(), "nft", "xnft",
                                        lineterm="", n=1))
        return True
    for command, want in zip(gets, get_wants):
        counts["gets"] += 1
        bad |= offline_answer_differs([], command, want)
    for (opts, command), want in zip(lists, list_wants):
        counts["listings"] += 1
        bad |= offline_answer_differs(opts, command, want)
    if not bad:
        counts["round_trip"] += 1
        out.append(f"ok   {name} ({len(LISTINGS)} listings" + (f", {len(gets)} gets" if gets else "") +
              " round trip)")
    return bad


def check_file(xnft, testdir, name):
    """One corpus file: its bytecode against nft's, then its round trip.
    Returns (failures, rules compared, counts, the lines to print)."""
    out = []
    counts = {"round_trip": 0, "not_loadable": 0, "listings": 0, "gets": 0}
    path = os.path.join(testdir, "corpus", name)
    want = subprocess.run(["nft", "--debug=netlink", "-c", "-f", path],
                          capture_output=True, text=True, cwd=os.path.dirname(path))
    got = subprocess.run([xnft, "--debug=netlink", "-c", "-f", path],
                         capture_output=True, text=True, cwd=os.path.dirname(path))
    lines = want.stdout.splitlines()
    rules = sum(1 for i in range(len(lines) - 1)
                if not lines[i].startswith((" ", "\t")) and lines[i + 1].startswith("  ["))
    if not want.stdout:
        out.append(f"FAIL {name}: nft printed no bytecode (stderr: {want.stderr.strip()[:300]})")
        return 1, rules, counts, out
    failures = 0
    if got.returncode != 0 or got.stdout != want.stdout:
        failures += 1
        out.append(f"FAIL {name}: xnft rc={got.returncode}")
        out.append(got.stderr)
        import difflib
        for line in difflib.unified_diff(want.stdout.splitlines(), got.stdout.splitlines(),
                                         "nft", "xnft", lineterm="", n=2):
            out.append(line)
    else:
        out.append(f"ok   {name}")
    failures += round_trip(xnft, path, name, counts, out)
    return failures, rules, counts, out


def main():
    xnft, testdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.environ.get("XNFT_IN_NETNS") != "1":
        if shutil.which("nft") is None:
            print("nft not installed: skipping")
            return SKIP
        if shutil.which("unshare") is None or os.geteuid() != 0:
            print("need root and unshare for a private netns: skipping")
            return SKIP
        env = dict(os.environ, XNFT_IN_NETNS="1")
        r = subprocess.run(["unshare", "-n", sys.executable] + sys.argv, env=env)
        return r.returncode
    r = subprocess.run(["ip", "link", "add", "veth21", "type", "veth", "peer", "name", "veth22"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("cannot create veths in the netns: skipping:", r.stderr)
        return SKIP

    counts = {"round_trip": 0, "not_loadable": 0, "listings": 0, "gets": 0}
    corpus = [n for n in sorted(os.listdir(os.path.join(testdir, "corpus"))) if n.endswith(".nft")]
    # The files are independent (each round trip loads into a namespace of
    # its own), so they run on every CPU; each file's lines print together,
    # in the corpus's order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda name: check_file(xnft, testdir, name), corpus))
    failures = rules = 0
    for bad, n, file_counts, out in results:
        failures += bad
        rules += n
        for k, v in file_counts.items():
            counts[k] += v
        for line in out:
            print(line)
    sys.stdout.flush()

    errdir = os.path.join(testdir, "errors")
    errors_alike = errors_known = 0
    for name in sorted(os.listdir(errdir)):
        if not name.endswith(".nft"):
            continue
        problems = check_error_file(xnft, errdir, name)
        if problems:
            failures += 1
            print(f"FAIL error/{name}: " + "; ".join(problems))
        elif name in KNOWN_ERROR_DIFFERENCES:
            errors_known += 1
            print(f"ok   error/{name} (known difference: {KNOWN_ERROR_DIFFERENCES[name]})")
        else:
            errors_alike += 1
            print(f"ok   error/{name}")

    load_errors = 0
    loaddir = os.path.join(testdir, "load-errors")
    for name in sorted(os.listdir(loaddir)) if os.path.isdir(loaddir) else []:
        if not name.endswith(".nft"):
            continue
        nft = subprocess.run(["unshare", "-n", "nft", "-f", name], capture_output=True, text=True,
                             cwd=loaddir)
        got = subprocess.run([xnft, "-f", name, "--list-offline"], capture_output=True, text=True,
                             cwd=loaddir)
        problems = []
        if nft.returncode == 0:
            problems.append("nft loads this file: not an error case")
        if got.returncode != nft.returncode:
            problems.append(f"xnft exit status {got.returncode}, nft's {nft.returncode}")
        if got.stdout:
            problems.append("xnft printed: " + got.stdout[:200])
        if got.stderr != nft.stderr:
            problems.append(f"stderr differs:\n--- nft\n{nft.stderr}--- xnft\n{got.stderr}")
        if problems:
            failures += 1
            print(f"FAIL load-errors/{name}: " + "; ".join(problems))
        else:
            load_errors += 1
            print(f"ok   load-errors/{name}")

    print(f"{rules} rules compared; {counts['round_trip']} files round-tripped through "
          f"`nft -f` + {len(LISTINGS)} listings ({counts['listings']} listings compared; "
          f"{counts['not_loadable']} files not loadable by this kernel; {counts['gets']} get element "
          f"answers compared); {errors_alike} error files alike byte for byte, {errors_known} known "
          f"differences; {load_errors} load errors compared; {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
