# SPDX-License-Identifier: GPL-2.0
"""tool_words.py - configuration steps through the command-line tools
(conformance.py --tools): the step's own words, with real device names, run
by iproute2 (`bridge`, `ip`) for the Linux bridge and by the `xbridge` tool
for xbridge. This checks the tool's grammar against iproute2's on the same
words; the default mode sends the equivalent netlink directly, which is
much faster under TCG.

Ownership: stateless; each call spawns one process.
"""
import os
import subprocess

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
    """The command for configuration @step on @side (a sides.BridgeSide)."""
    words = step.line.split()
    k = step.kind
    linux = side.label == "linux"

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


def run(side, step):
    """Run @step through the tool; None, or the tool's error text."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    cmd = argv(side, step)
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
    if r.returncode == 0:
        return None
    return "%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip() or r.stdout.strip())
