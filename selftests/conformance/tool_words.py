# SPDX-License-Identifier: GPL-2.0
"""tool_words.py - configuration steps through the command-line tools
(conformance.py --tools): the step's own words, with real device names, run
by iproute2 (`bridge`, `ip`) for the Linux bridge and by the `xbridge` tool
for xbridge. This checks the tool's grammar against iproute2's on the same
words; the default mode sends the equivalent netlink directly, which is
much faster under TCG.

Words iproute2 may not know. Debian 12's iproute2 is 6.1: `bridge link set
... mab on|off` arrived in iproute2 6.2 and `ip link set BR type bridge
fdb_max_learned N` in 6.8, so that iproute2 refuses both as garbage. For a
Linux-side step with such a word, argv() returns None and the harness sends
the step over rtnetlink instead (linux_side.py, the message a newer iproute2
sends), for that step only; the xbridge side still runs the `xbridge` tool,
which knows both words. Whether iproute2 knows a word is read once from its
own usage text (`bridge link help`, `ip link help bridge`), so a newer
iproute2 is used as is. netlink_steps counts the steps that took that path.

Ownership: stateless but for the usage-text cache and the counter; each
call spawns one process.
"""
import os
import re
import subprocess

# word -> the iproute2 command whose usage text lists it
NEWER_WORDS = {"mab": ["bridge", "link", "help"],
               "fdb_max_learned": ["ip", "link", "help", "bridge"]}
_usage = {}
netlink_steps = {}      # word -> Linux-side steps sent over rtnetlink instead


def iproute2_knows(word):
    """Does this iproute2 take @word (one of NEWER_WORDS)? Its usage text says."""
    if word not in _usage:
        r = subprocess.run(NEWER_WORDS[word], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        _usage[word] = re.search(r"\b%s\b" % re.escape(word), r.stdout + r.stderr) is not None
    return _usage[word]


def unknown_words(step):
    """The words of @step this iproute2 does not know."""
    words = step.line.split()
    return [w for w in NEWER_WORDS if w in words and not iproute2_knows(w)]

_SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def xbridge_tool():
    """The xbridge tool, found as selftests/lib.sh finds it."""
    if os.environ.get("XBRIDGE"):
        return os.environ["XBRIDGE"]
    for d in ("build-test", "build", "build-tool", "build-dev"):
        p = os.path.join(_SELFTESTS, "..", d, "tools", "xbridge", "xbridge")
        if os.access(p, os.X_OK):
            return os.path.abspath(p)
    raise RuntimeError("no xbridge tool (set XBRIDGE or build tools/xbridge)")


def argv(side, step):
    """The command for configuration @step on @side (a sides.BridgeSide);
    None when iproute2 lacks a word of it (the caller sends it over netlink)."""
    words = step.line.split()
    k = step.kind
    linux = side.label == "linux"
    if linux and unknown_words(step):
        return None

    def dev(p):
        return side.br if p == "br" else side.ports[p]

    def where(p):
        # A port is addressed through its master, the bridge itself as
        # "self" (sides.py / linux_side.py explain why).
        return [dev(p), "self" if p == "br" else "master"]

    if k == "br set":
        rest = words[2:]
        if linux:
            return ["ip", "link", "set", side.br, "type", "bridge"] + rest
        return [xbridge_tool(), "link", "set", "dev", side.br] + rest
    if k == "link updown":
        return ["ip", "link", "set", "dev", side.ports[step.port], "up" if step.up else "down"]
    if k in ("port add", "port del"):
        tail = ["master", side.br] if k == "port add" else ["nomaster"]
        return ["ip", "link", "set", side.ports[step.port]] + tail
    tool = ["bridge"] if linux else [xbridge_tool()]
    if k == "link set":
        return tool + ["link", "set", "dev", dev(step.port)] + words[4:]
    if k.startswith("fdb"):
        i = words.index("dev")
        rest = [w for w in words[i + 2:] if w != "master"]
        return tool + words[:i + 1] + where(step.port) + rest
    if k.startswith("vlan"):
        i = words.index("dev")
        rest = [w for w in words[i + 2:] if w not in ("self", "master")]
        target = [dev(step.port)] + (["self"] if step.port == "br" else [])
        return tool + words[:i + 1] + target + rest
    raise AssertionError(k)


def run(side, step, netlink):
    """Run @step through the tool; None, or the tool's error text. Where
    iproute2 lacks a word, netlink(side, step) runs it instead (None or the
    NlError)."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    cmd = argv(side, step)
    if cmd is None:
        for w in unknown_words(step):
            netlink_steps[w] = netlink_steps.get(w, 0) + 1
        e = netlink(side, step)
        return None if e is None else "rtnetlink (iproute2 lacks %s): %s" % (
            " ".join(unknown_words(step)), e)
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
    if r.returncode == 0:
        return None
    return "%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip() or r.stdout.strip())
