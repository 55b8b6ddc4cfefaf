#!/usr/bin/env python3
"""xnft JSON input test: `xnft -j -f FILE` against `nft -j -f FILE`.

Round trip, for every tests/corpus/*.nft this kernel can load: nft loads
the file and prints `nft -j list ruleset` (the JSON). That JSON is then
loaded by nft (`nft -j -f JSON`, in a fresh namespace) and by xnft
(`xnft -j -f - --list-offline`, from stdin): both must accept it or both
refuse it; when both accept it, nft's `nft -j list ruleset` after the load
must equal xnft's listing byte for byte (elements' remaining `expires`
normalised, as corpus_test.py does; JSON because xnft's -j makes its
listing JSON too, and it holds all the text listing says). nft
1.0.6's JSON is not always loadable by nft itself (set types printed for
typeof sets are refused; map statements print as strings): those files
must be refused by both, with the same first error message. (A listed
rule's "handle" is no obstacle: nft 1.0.6 ignores it in an add, and
takes it as the rule to insert before only in an insert.)

Hand-written cases, tests/json/*.json: the first line is "# " + what
`nft -j -f` and `xnft -j -f --list-offline` are compared on, nothing in
the file: each case's JSON is on the lines after it:
  "# listing": both accept it; the JSON listings after it are equal.
  "# error": both refuse it (exit status 1) and xnft prints nothing on
  stdout; nft's first error message (its "Error: ..." line) must be in
  xnft's stderr.
Exit 77 (skip) without nft or without the right to make a namespace.
"""
import json
import os
import re
import shutil
import subprocess
import sys

SKIP = 77

# Where xnft is known to differ from nft 1.0.6, and why. Such a case is
# reported, not failed; once it no longer differs, it fails, so that this
# list stays true.
KNOWN = {
    # nft's JSON input can say what its language cannot, and xnft reads
    # JSON through its language (json_input.h):
    "meters.nft": "a meter's key that is an operation (ip dscp >> 2): nft's grammar has no "
                  "parentheses there",
    "payload-set.nft": "a keyword as a statement's value (ip protocol set tcp): nft's grammar "
                       "wants a field after `tcp`",
    "payload-set-expr.nft": "a raw payload operation as a value (ip id set (@nh,0,8 & 0xf0) >> 4): "
                            "nft's text evaluation refuses its type, its JSON evaluation does not",
    "set-stmts.nft": "a quota in a set element: nft's grammar has none there",
    # nft's JSON path differs from its text path:
    "object-maps.nft": "nft 1.0.6's JSON input drops a map's comment; xnft keeps it",
    "listing-flag-compare.nft": "elements of tcp_flag sets list in another order after nft's "
                                "JSON load than after its text load (not investigated)",
    "listing-masked-lookup.nft": "as listing-flag-compare.nft",
    "operator-words.nft": "both refuse it, in other words (xnft: the text path's "
                          "`expected mark, expression has type integer`)",
    "typeof-sets.nft": "both refuse it: nft says `unqualified type integer`, xnft's grammar "
                       "stops at `integer .` first",
}
EXPIRES_TEXT = re.compile(r"(?<= expires )(?:[0-9]+(?:ms|d|h|m|s))+(?=[ ,:\n}])")
EXPIRES_JSON = re.compile(r'(?<="expires": )[0-9]+(?=[,}])')
SEP = "=====xnft-separator====="


def normalise(listing):
    return EXPIRES_JSON.sub('"T"', EXPIRES_TEXT.sub("T", listing))


def netns(script, *args, stdin=None):
    """SCRIPT run by sh in a fresh network namespace holding veth21/veth22."""
    return subprocess.run(["unshare", "-n", "sh", "-c",
                           "ip link add veth21 type veth peer name veth22 && " + script, "sh"] + list(args),
                          capture_output=True, text=True, input=stdin)


def first_error(stderr):
    """The message of the first "Error: " line."""
    for line in stderr.splitlines():
        if "Error: " in line:
            return line.split("Error: ", 1)[1].strip()
    return None


def nft_load(json_text):
    """nft -j -f on JSON_TEXT: (rc, stderr, JSON listing, text listing)."""
    r = netns('printf "%s" "$1" > /tmp/xnft-json-in.$$ && nft -j -f /tmp/xnft-json-in.$$; rc=$?; '
              'rm -f /tmp/xnft-json-in.$$; [ $rc = 0 ] || exit $rc; nft -j list ruleset && echo ' + SEP +
              ' && nft list ruleset', json_text)
    if r.returncode != 0:
        return r.returncode, r.stderr, None, None
    js, text = r.stdout.split(SEP + "\n")
    return 0, r.stderr, js, text


def xnft_load(xnft, json_text):
    """xnft's load of JSON_TEXT in a namespace like nft's: interface names
    resolve alike (xnft evaluates every command, as nft does, so an
    interface it cannot find is an error even after a kernel refusal)."""
    return netns('"$1" -j -f - --list-offline', xnft, stdin=json_text)


def compare_load(xnft, name, json_text, out, counts, want_text=True):
    """Both loads of JSON_TEXT; returns 1 on a mismatch."""
    nrc, nerr, njson, ntext = nft_load(json_text)
    x = xnft_load(xnft, json_text)
    if nrc != 0:
        want = first_error(nerr)
        got = first_error(x.stderr)
        if x.returncode == 0:
            out.append(f"FAIL {name}: nft refuses it ({want}), xnft accepts it")
            return 1
        if want is not None and got != want:
            out.append(f"FAIL {name}: nft refuses it with {want!r}, xnft with {got!r}")
            return 1
        counts["refused"] += 1
        out.append(f"ok   {name}: both refuse it: {want}")
        return 0
    if x.returncode != 0:
        out.append(f"FAIL {name}: nft accepts it, xnft refuses it: {x.stderr[:400]}")
        return 1
    if normalise(x.stdout) != normalise(njson):
        out.append(f"FAIL {name}: JSON listings differ")
        import difflib
        try:
            wl = [json.dumps(o) for o in json.loads(njson)["nftables"]]
            gl = [json.dumps(o) for o in json.loads(x.stdout)["nftables"]]
        except ValueError:
            wl, gl = njson.splitlines(), x.stdout.splitlines()
        for line in difflib.unified_diff(wl, gl, "nft", "xnft", lineterm="", n=0):
            out.append(line)
        return 1
    counts["rules"] += sum(1 for o in json.loads(njson)["nftables"] if "rule" in o)
    counts["loaded"] += 1
    out.append(f"ok   {name}")
    return 0


def judge(name, bad, out, counts):
    """BAD (1: the case differs) as a failure, unless KNOWN says why."""
    if name not in KNOWN:
        return bad
    if bad:
        out.append(f"     (the FAIL above is known: {KNOWN[name]})")
        counts["known"] += 1
        return 0
    out.append(f"FAIL {name}: listed in KNOWN but no longer differs: take it out")
    return 1


def refusal_problems(x, want):
    """What is wrong with xnft's run X of an input it must refuse saying WANT."""
    problems = []
    if x.returncode != 1:
        problems.append(f"xnft exit status {x.returncode}")
    if x.stdout:
        problems.append("xnft printed: " + x.stdout[:200])
    if want is None or want not in x.stderr:
        problems.append(f"xnft's stderr lacks {want!r}: {x.stderr!r}")
    return problems


def report_refusal(name, problems, ok_text, out, counts):
    """One line for a refusal case; 1 if it failed."""
    if problems:
        out.append(f"FAIL json/{name}: " + "; ".join(problems))
        return 1
    out.append(f"ok   json/{name}: {ok_text}")
    counts["errors"] += 1
    return 0


def main():
    xnft, testdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if shutil.which("nft") is None:
        print("nft not installed: skipping")
        return SKIP
    if shutil.which("unshare") is None or os.geteuid() != 0:
        print("need root and unshare for a private netns: skipping")
        return SKIP
    failures = 0
    counts = {"loaded": 0, "refused": 0, "rules": 0, "not_loadable": 0, "cases": 0, "errors": 0,
              "known": 0}
    out = []
    corpus = sorted(n for n in os.listdir(os.path.join(testdir, "corpus")) if n.endswith(".nft"))
    for name in corpus:
        path = os.path.join(testdir, "corpus", name)
        r = netns('cd "$(dirname "$1")" && nft -f "$1" && nft -j list ruleset', path)
        if r.returncode != 0:
            counts["not_loadable"] += 1
            continue
        failures += judge(name, compare_load(xnft, name, r.stdout, out, counts), out, counts)
    jsondir = os.path.join(testdir, "json")
    for name in sorted(os.listdir(jsondir)) if os.path.isdir(jsondir) else []:
        if not name.endswith(".json"):
            continue
        with open(os.path.join(jsondir, name)) as f:
            kind = f.readline().strip()
            text = f.read()
        counts["cases"] += 1
        if kind == "# error":
            nrc, nerr, _, _ = nft_load(text)
            want = first_error(nerr)
            problems = ["nft accepts it: not an error case"] if nrc == 0 else []
            problems += refusal_problems(xnft_load(xnft, text), want)
            failures += judge("json/" + name, report_refusal(name, problems, want, out, counts),
                              out, counts)
        elif kind.startswith("# xnft refuses: "):
            # nft's JSON takes any string, xnft's text cannot say every one:
            # a string that would read as other words is refused, never
            # turned into another command (nft's answer does not matter)
            want = kind[len("# xnft refuses: "):]
            problems = refusal_problems(xnft_load(xnft, text), want)
            failures += judge("json/" + name,
                              report_refusal(name, problems, "refused: " + want, out, counts),
                              out, counts)
        else:
            failures += judge("json/" + name, compare_load(xnft, "json/" + name, text, out, counts),
                              out, counts)
    for line in out:
        print(line)
    print(f"{counts['loaded']} JSON inputs loaded alike ({counts['rules']} rules compared), "
          f"{counts['refused']} refused alike; {counts['cases']} hand-written cases "
          f"({counts['errors']} error cases matched); {counts['known']} known differences; "
          f"{counts['not_loadable']} corpus files not loadable by this kernel; {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
