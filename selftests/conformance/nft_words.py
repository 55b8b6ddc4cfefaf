# SPDX-License-Identifier: GPL-2.0
"""nft_words.py - the nft steps of the conformance harness: one nft command
line, with the scenario's logical names rewritten to one side's devices,
run by nft on the Linux side and by xnft on the xbridge side; and the two
`list ruleset` outputs with the names mapped back, so they compare with ==.

The Linux side runs the command through libnftables (ctypes), which is what
the nft tool itself runs (nft joins its argument words with spaces and calls
nft_run_cmd_from_buffer), without a process per step; NFT_SUBPROCESS=1 runs
the nft tool instead. The xbridge side runs the xnft tool (XNFT, else the
first build under the repository, as selftests/xbridge_nft.sh finds it).

Names: the whole words p1..p8 and br - also inside quotes, anonymous sets
and maps ("p1", {p1,p2}, p1 : drop) - become lpN / lbr or xpN / xbr;
`@br` and `$br` (set and variable references) are left alone.

Ownership: a Side per bridge; the libnftables context lives for the run.
"""
import ctypes
import os
import re
import subprocess

_SELFTESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LOGICAL = re.compile(r"(?<![\w.$@-])(p[1-8]|br)(?![\w.-])")


def xnft_tool():
    if os.environ.get("XNFT"):
        return os.environ["XNFT"]
    for d in ("build-test", "build", "build-tool", "build-dev"):
        p = os.path.join(_SELFTESTS, "..", d, "tools", "xnft", "xnft")
        if os.access(p, os.X_OK):
            return os.path.abspath(p)
    raise RuntimeError("no xnft tool (set XNFT or build tools/xnft)")


# The environment of an xnft process. LeakSanitizer's scan at exit is most of
# an ASan-built xnft's cost under TCG (measured in the 6.1 guest: 478 ms a
# process with it, 297 ms without, 106 ms for a plain build), and the harness
# runs a thousand of them; xnft's leaks are checked where each process does
# more (selftests/xbridge_nft.sh, the meson tests), as tool_words.py does for
# the xbridge tool.
_XNFT_ENV = dict(os.environ)
_XNFT_ENV.setdefault("ASAN_OPTIONS", "detect_leaks=0")


class NftError(Exception):
    pass


class _LibNftables:
    """The Linux side's nft: libnftables.so.1, output and errors buffered."""

    def __init__(self):
        lib = ctypes.CDLL("libnftables.so.1")
        lib.nft_ctx_new.restype = ctypes.c_void_p
        lib.nft_ctx_new.argtypes = [ctypes.c_uint32]
        for f in ("nft_ctx_buffer_output", "nft_ctx_buffer_error"):
            getattr(lib, f).argtypes = [ctypes.c_void_p]
        for f in ("nft_ctx_get_output_buffer", "nft_ctx_get_error_buffer"):
            getattr(lib, f).argtypes = [ctypes.c_void_p]
            getattr(lib, f).restype = ctypes.c_char_p
        lib.nft_run_cmd_from_buffer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self.lib = lib
        self.ctx = lib.nft_ctx_new(0)
        lib.nft_ctx_buffer_output(self.ctx)
        lib.nft_ctx_buffer_error(self.ctx)

    def run(self, cmd):
        rc = self.lib.nft_run_cmd_from_buffer(self.ctx, cmd.encode())
        out = (self.lib.nft_ctx_get_output_buffer(self.ctx) or b"").decode()
        err = (self.lib.nft_ctx_get_error_buffer(self.ctx) or b"").decode()
        return rc, out, err


class Side:
    """One bridge's nft: @tool 'nft' (libnftables) or the xnft path;
    @names {'p1': 'lp1', ..., 'br': 'lbr'}."""

    def __init__(self, tool, names):
        self.names = dict(names)
        self.back = {v: k for k, v in names.items()}
        self.back_re = re.compile(r"(?<![\w.$@-])(%s)(?![\w.-])"
                                  % "|".join(re.escape(v) for v in
                                             sorted(self.back, key=len, reverse=True)))
        self.argv0 = tool
        self.lib = None
        if tool == "nft" and not os.environ.get("NFT_SUBPROCESS"):
            try:
                self.lib = _LibNftables()
            except OSError:
                self.lib = None
        self.processes = 0

    def words(self, cmd):
        """@cmd with the logical names rewritten to this side's devices."""
        return _LOGICAL.sub(lambda m: self.names[m.group(1)], cmd)

    def logical(self, text):
        return self.back_re.sub(lambda m: self.back[m.group(1)], text)

    def _run(self, cmd):
        if self.lib:
            return self.lib.run(cmd)
        self.processes += 1
        r = subprocess.run([self.argv0, cmd], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120, env=_XNFT_ENV)
        return r.returncode, r.stdout, r.stderr

    def run(self, cmd):
        """Run the scenario's nft @cmd (logical names); None or the error text."""
        rc, _, err = self._run(self.words(cmd))
        return None if rc == 0 else (err.strip() or "exit status %d" % rc)

    def run_batch(self, cmds, flush_first=False):
        """Run @cmds (logical names) as one `-f` batch, one process: None,
        or the error text (nf_tables then applied none of them). With
        @flush_first the batch starts with `flush ruleset`."""
        lines = (["flush ruleset"] if flush_first else []) + [self.words(c) for c in cmds]
        if self.lib:
            rc, _, err = self.lib.run("\n".join(lines) + "\n")
        else:
            path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "conformance-%d.nft" % os.getpid())
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            self.processes += 1
            r = subprocess.run([self.argv0, "-f", path], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120, env=_XNFT_ENV)
            rc, err = r.returncode, r.stderr
        return None if rc == 0 else (err.strip() or "exit status %d" % rc)

    def listing(self):
        """`list ruleset`, names mapped back to p1..p8 / br."""
        rc, out, err = self._run("list ruleset")
        if rc != 0:
            raise NftError("list ruleset: %s" % err.strip())
        return self.logical(out).rstrip("\n")

    def flush(self):
        rc, _, err = self._run("flush ruleset")
        if rc != 0:
            raise NftError("flush ruleset: %s" % err.strip())


# Conntrack flushes, in-process (a process costs about a second under TCG).
NFNL_SUBSYS_CTNETLINK = 1
IPCTNL_MSG_CT_DELETE = 2


def flush_linux_conntrack(sock):
    """`conntrack -F` over @sock (an nlsock.NlSocket(NETLINK_NETFILTER)):
    CT_DELETE without a tuple flushes every family and zone."""
    import struct
    body = struct.pack("=BBH", 0, 0, 0)     # nfgenmsg: AF_UNSPEC, version 0
    sock.request((NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE, body)


def squash(text):
    """@text with every whitespace run one space (for `expect listed`)."""
    return " ".join(text.split())
