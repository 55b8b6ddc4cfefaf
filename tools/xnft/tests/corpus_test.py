#!/usr/bin/env python3
"""xnft corpus test.

For every tests/corpus/*.nft: `xnft --debug=netlink -c -f FILE` must print
byte-for-byte what `nft --debug=netlink -c -f FILE` prints (stdout; nft's
kernel-side complaints on stderr are not part of the comparison, the host
kernel lacks bridge conntrack and flowtables).

For every tests/errors/*.nft: xnft must exit non-zero, print nothing on
stdout, and print an nft-style error ("FILE:LINE:COL-COL: Error: ...", the
source line, carets) containing the text of the file's first-line comment
"# error: TEXT"; nft must reject the file too.

Both run inside one private network namespace (unshare -n) holding veth21
and veth22, so `iif "veth21"` resolves to the same ifindex for both.
Exit 77 (skip) without nft or without the right to make a namespace.
"""
import os
import shutil
import subprocess
import sys

SKIP = 77


def round_trip(xnft, path, name, counts):
    """xnft's --list-offline (with and without -a) equals what nft lists
    after loading the file into a fresh namespace, when this kernel can
    load it (handles start afresh in a new namespace)."""
    sep = "=====xnft-separator====="
    script = ("ip link add veth21 type veth peer name veth22 && nft -f \"$1\" && "
              "nft list ruleset && echo " + sep + " && nft -a list ruleset")
    load = subprocess.run(["unshare", "-n", "sh", "-c", script, "sh", path],
                          capture_output=True, text=True, cwd=os.path.dirname(path))
    if load.returncode != 0:
        counts["not_loadable"] += 1
        print(f"     {name}: kernel cannot load it, round trip not checked here")
        return 0
    wants = load.stdout.split(sep + "\n")
    bad = 0
    for extra, want in zip(([], ["-a"]), wants):
        got = subprocess.run([xnft] + extra + ["-f", path, "--list-offline"], capture_output=True,
                             text=True, cwd=os.path.dirname(path))
        if got.stdout != want:
            bad = 1
            print(f"FAIL {name}: list ruleset {' '.join(extra)} differs")
            import difflib
            for line in difflib.unified_diff(want.splitlines(), got.stdout.splitlines(),
                                             "nft", "xnft", lineterm="", n=1):
                print(line)
    if not bad:
        counts["round_trip"] += 1
        print(f"ok   {name} (list ruleset round trip)")
    return bad


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

    failures = 0
    counts = {"round_trip": 0, "not_loadable": 0}
    corpus = sorted(os.listdir(os.path.join(testdir, "corpus")))
    rules = 0
    for name in corpus:
        if not name.endswith(".nft"):
            continue
        path = os.path.join(testdir, "corpus", name)
        want = subprocess.run(["nft", "--debug=netlink", "-c", "-f", path],
                              capture_output=True, text=True, cwd=os.path.dirname(path))
        got = subprocess.run([xnft, "--debug=netlink", "-c", "-f", path],
                             capture_output=True, text=True, cwd=os.path.dirname(path))
        lines = want.stdout.splitlines()
        rules += sum(1 for i in range(len(lines) - 1)
                     if not lines[i].startswith((" ", "\t")) and lines[i + 1].startswith("  ["))
        if not want.stdout:
            print(f"FAIL {name}: nft printed no bytecode (stderr: {want.stderr.strip()[:300]})")
            failures += 1
            continue
        if got.returncode != 0 or got.stdout != want.stdout:
            failures += 1
            print(f"FAIL {name}: xnft rc={got.returncode}")
            print(got.stderr)
            import difflib
            for line in difflib.unified_diff(want.stdout.splitlines(), got.stdout.splitlines(),
                                             "nft", "xnft", lineterm="", n=2):
                print(line)
        else:
            print(f"ok   {name}")
        failures += round_trip(xnft, path, name, counts)

    for name in sorted(os.listdir(os.path.join(testdir, "errors"))):
        if not name.endswith(".nft"):
            continue
        path = os.path.join(testdir, "errors", name)
        with open(path) as f:
            first = f.readline()
        expect = first.split("# error:", 1)[1].strip() if "# error:" in first else "Error:"
        got = subprocess.run([xnft, "--debug=netlink", "-c", "-f", path],
                             capture_output=True, text=True)
        nft = subprocess.run(["nft", "-c", "-f", path], capture_output=True, text=True)
        problems = []
        if got.returncode == 0:
            problems.append("xnft exit status 0")
        if got.stdout:
            problems.append("xnft printed bytecode: " + got.stdout[:200])
        if "Error:" not in got.stderr or expect not in got.stderr:
            problems.append(f"stderr lacks {expect!r}: {got.stderr!r}")
        lines = got.stderr.splitlines()
        if len(lines) < 3 or "^" not in lines[2]:
            problems.append("no caret line")
        if nft.returncode == 0:
            problems.append("nft accepts this file: not an error case")
        if problems:
            failures += 1
            print(f"FAIL error/{name}: " + "; ".join(problems))
        else:
            print(f"ok   error/{name}")

    print(f"{rules} rules compared; {counts['round_trip']} files round-tripped through "
          f"`nft -f` + `nft list ruleset` ({counts['not_loadable']} not loadable by this "
          f"kernel); {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
