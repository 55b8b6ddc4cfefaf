#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""conformance.py - xbridge against the Linux bridge, frame for frame.

Runs scenarios (scenario.py) on two bridges built by topology.sh in the same
kernel - lbr (the Linux bridge) and xbr (xbridge) - and fails a scenario at
the first step where they differ:
  - a configuration step succeeds on one bridge and fails on the other;
  - a frame step delivers different frames (port and bytes, tags included)
    to the hosts and the bridge device;
  - after any step, the FDB (port, mac, vid, kind, flags) or the VLAN table
    (vid, pvid/untagged, per-VLAN state) differ;
  - an nft step succeeds on one bridge only (nft on lbr, xnft on xbr,
    nft_words.py), or the two `list ruleset` outputs (names mapped back,
    every counter included) differ at `expect counters` or at the end of a
    scenario with nft steps.
`expect` steps of the hand-written corpus also check the outcome itself.
--offload runs the scenarios with nft steps again with xbridge's flowtable
offloading every connection it may (offload.py says what is compared then).

  conformance.py [--corpus DIR] [--generate N] [--seed S] [--steps K]
                 [--generate-nft N] [--nft-seed S] [--nft-steps K]
                 [--generate-ct N] [--ct-seed S] [--ct-steps K]
                 [--nft-every-frame] [--soak SECONDS] [--replay FILE]
                 [--tools] [--quiet] [--record FILE] [--known]
                 [--no-known-skip] [--no-mab]
                 [--offload [--generate-flows N] [--min-flow-hits N]]

Every scenario prints one PASS or FAIL line (a FAIL prints the step, both
sides and the scenario text, which --replay runs again); the last line gives
the totals. Known, intended differences are in known.py, not here; so are
the scenarios skipped because of a known xbridge bug (SKIP: lines).

Ownership: single process, single thread; the two bridges are reset (not
rebuilt) before each scenario.
"""
import argparse
import difflib
import errno
import glob
import json
import os
import platform
import re
import subprocess
import sys
import time
import traceback

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.dirname(_HERE)]   # and selftests/, for nlsock

import capture                          # noqa: E402
import ct_table                         # noqa: E402
import generator                        # noqa: E402
import known                            # noqa: E402
import nft_words                        # noqa: E402
import nlsock as nl                     # noqa: E402
import offload                          # noqa: E402
import scenario as sc                   # noqa: E402
import tool_words                       # noqa: E402
from linux_side import LinuxBridge      # noqa: E402
from xbridge_side import XBridge        # noqa: E402

BR_MAC = "02:00:00:00:0b:00"
AGE_SETTLE = 1.6        # xbridge's ageing work runs every second
RECHECK_DELAY = 0.3     # one more look before calling a difference real


class Difference(Exception):
    def __init__(self, step, what, left, right):
        super().__init__(what)
        self.step, self.what, self.left, self.right = step, what, left, right


def _indent(text):
    return "\n".join("    " + l for l in text.splitlines()) or "    (empty)"


class Totals:
    def __init__(self):
        self.scenarios = self.passed = self.skipped = self.steps = self.sent = self.arrivals = 0
        self.config_ops = self.nft_ops = self.nft_compares = self.known_skipped = 0
        self.ct_compares = self.ct_rows = 0
        self.groups = {}        # kind of scenario -> (scenarios run, seconds)
        self.offload_skipped = self.flow_hits = self.offloaded_scenarios = 0
        self.offload_no_conversation = 0
        self.flow_stats = {}    # offload mode: xbridge's flowtable counters, summed
        self.known = {}         # known difference name -> times it applied


def apply(side, step):
    """Run configuration @step on @side; None, or the NlError it raised."""
    k = step.kind
    try:
        if k == "br set":
            side.bridge_set(step.opts)
        elif k == "link set":
            side.link_set(step.port, step.flags, step.state)
        elif k in ("fdb add", "fdb append", "fdb replace"):
            side.fdb_change(k[4:], step.mac, step.port, step.vlan, step.fkind,
                            step.sticky, step.extern_learn)
        elif k == "fdb del":
            side.fdb_del(step.port, step.mac, step.vlan)
        elif k == "fdb flush":
            side.fdb_flush(step.port, step.vlan, step.fkind)
        elif k == "vlan add":
            side.vlan_add(step.port, step.vid, step.end, step.pvid, step.untagged)
        elif k == "vlan del":
            side.vlan_del(step.port, step.vid, step.end)
        elif k == "vlan set":
            side.vlan_set_state(step.port, step.vid, step.end, step.state)
        elif k == "link updown":
            side.link_updown(step.port, step.up)
        elif k == "port add":
            side.port_add(step.port)
        elif k == "port del":
            side.port_del(step.port)
        else:
            raise AssertionError(k)
    except nl.NlError as e:
        return e
    return None


def fmt_frames(frames):
    if not frames:
        return "(nothing)"
    return "\n".join("    %-3s %s" % (p, b.hex()) for p, b in frames)


def fmt_state(st):
    fdb, vlans = st
    lines = ["    fdb:"] + ["      %s %s vid %d %s %s" % (p, m, v, k, ",".join(f))
                            for p, m, v, k, f in fdb]
    lines.append("    vlans:")
    for port in sorted(vlans):
        lines.append("      %s: %s" % (port, " ".join(
            "%d%s%s" % (vid, ("/" + fl) if fl else "", "" if s == 3 else "(state %d)" % s)
            for vid, fl, s in vlans[port])))
    return "\n".join(lines)


def kernel_version():
    """The running kernel's (major, minor)."""
    m = re.match(r"(\d+)\.(\d+)", platform.release())
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


class Runner:
    def __init__(self, args):
        self.args = args
        n = sc.MAX_PORTS
        self.linux = LinuxBridge("lbr", {"p%d" % i: "lp%d" % i for i in range(1, n + 1)}, BR_MAC)
        self.xb = XBridge("xbr", {"p%d" % i: "xp%d" % i for i in range(1, n + 1)}, BR_MAC)
        self.cap = {"linux": capture.Capture("lh", n, "lbr"),
                    "xbridge": capture.Capture("xh", n, "xbr")}
        self.sides = (self.linux, self.xb)
        self.seq = 0
        self.t = Totals()
        self.scenario = None
        self.trace = open(args.record, "w") if args.record else None
        self.nft = {"linux": nft_words.Side("nft", self._names("l")),
                    "xbridge": None}
        self.nft_dirty = self.ct_dirty = True     # flush both at the first reset
        self.xnft_flush_pending = False
        self.nft_used = False
        self.ct = ct_table.CtTables(self.xb)
        self.ct_on = False      # conntrack may be on: compare the tables after every step
        self.ct_first_seen = {}  # ct_flow_key -> when the harness first saw it
        # --offload: xbridge's flowtable on every connection (offload.py)
        self.offload = offload.Offload(self.xb.genl, self.xb.br_ifindex) if args.offload else None

    @staticmethod
    def _names(prefix):
        names = {"p%d" % i: "%sp%d" % (prefix, i) for i in range(1, sc.MAX_PORTS + 1)}
        names["br"] = prefix + "br"
        return names

    def xnft(self):
        if not self.nft["xbridge"]:
            self.nft["xbridge"] = nft_words.Side(nft_words.xnft_tool(), self._names("x"))
        return self.nft["xbridge"]

    def nft_reset(self):
        """Flush both rulesets (and conntrack tables, if a ct rule may have
        filled them) after a scenario that had nft steps. xnft's flush
        waits for the next scenario's first nft batch when it has one (a
        process less: about a second under TCG)."""
        if self.nft_dirty:
            self.nft["linux"].flush()
            self.xnft_flush_pending = True
            self.nft_dirty = False
        if self.ct_dirty:
            # conntrack -F and `xbridge ct flush dev xbr`, over netlink.
            self.ct.flush()
            self.ct_dirty = False
        self.nft_used = False
        self.ct_on = False

    def listings(self):
        """Both `list ruleset` outputs as compared, and Linux's as it is.
        In offload mode without counters and the harness's own table."""
        a, b = self.nft["linux"].listing(), self.xnft().listing()
        if not self.offload:
            return a, b, a
        return (offload.Offload.stateless(a),
                offload.Offload.stateless(offload.Offload.hide(b)), a)

    def compare_rulesets(self, step, contains=None):
        a, b, raw = self.listings()
        if a != b:
            # Counters of a late frame: one more look.
            time.sleep(RECHECK_DELAY)
            capture.settle(self.cap.values())
            a, b, raw = self.listings()
        if a != b:
            diff = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(),
                                                  "linux", "xbridge", lineterm="", n=2))
            raise Difference(step, "list ruleset differs",
                             _indent(a), _indent(b) + "\n  diff:\n" + _indent(diff))
        if contains and nft_words.squash(contains) not in nft_words.squash(raw):
            raise Difference(step, "expected the listing to contain %r" % contains,
                             _indent(a), "    (same on both)")
        self.t.nft_compares += 1

    def nft_steps(self, steps):
        """Consecutive nft @steps: each on Linux (libnftables, in-process),
        all of them as one xnft batch (a process costs about a second under
        TCG). When the batch fails, or a step failed on Linux, xnft runs
        them again one by one (a failed batch applies nothing), so each step
        still must succeed on both bridges or fail on both."""
        self.nft_dirty = self.nft_used = True
        uses_ct = any(re.search(r"\bct\b", st.cmd) for st in steps)
        if self.offload or uses_ct:
            self.ct_dirty = True
        # The tables are compared where both bridges track by the rules'
        # will: in offload mode the harness's own table turns xbridge's
        # conntrack on (and marks its entries) where Linux's stays off.
        if uses_ct and not self.offload:
            self.ct_on = True
        self.t.nft_ops += len(steps)
        errs = [self.nft["linux"].run(st.cmd) for st in steps]
        flush, self.xnft_flush_pending = self.xnft_flush_pending, False
        # Offload mode: the harness's table rides on the same batch.
        extra = self.offload.commands() if self.offload else []
        if all(e is None for e in errs):
            if self.xnft().run_batch([st.cmd for st in steps] + extra, flush_first=flush) is None:
                return
        elif flush:
            self.xnft().flush()
        for st, ea in zip(steps, errs):
            eb = self.xnft().run(st.cmd)
            if (ea is None) != (eb is None):
                raise Difference(st, "the nft step succeeds on one bridge only",
                                 "    %s" % (ea or "ok"), "    %s" % (eb or "ok"))
        if extra:
            err = self.xnft().run_batch(extra)
            if err:
                raise Difference(steps[-1], "offload mode: the harness's table was refused",
                                 "    (not installed there)", "    " + err)

    def time_group(self, name, secs):
        """Seconds spent per kind of scenario (printed at the end)."""
        group = ("generated ct" if name.startswith("gen-ct-") else
                 "corpus ct" if re.match(r"\d+-ct-", name) else
                 "generated nft" if name.startswith("gen-nft-") else
                 "generated" if name.startswith("gen-") else
                 "corpus nft" if "-nft-" in name else "corpus")
        n, t = self.t.groups.get(group, (0, 0.0))
        self.t.groups[group] = (n + 1, t + secs)

    # --- the conntrack differential (ct_table.py) -------------------------------
    def ct_compare(self, step, delivered=None):
        """The two normalised conntrack tables are equal (one more look
        0.3 s later before calling it a difference); returns the rows.
        @delivered: what a send step delivered (known ct-local-confirm)."""
        a, b = self.ct.rows()
        # when each flow was first seen (known ct-udp-stream-moment)
        now = time.monotonic()
        keys = {known.ct_flow_key(r) for r in a}
        self.ct_first_seen = {k: t for k, t in self.ct_first_seen.items() if k in keys}
        for k in keys:
            self.ct_first_seen.setdefault(k, now)
        if a != b:
            extra = known.ct_local_confirm_rows(step, delivered, a, b)
            if extra:
                for row in extra:
                    self.ct.delete_xbridge(row)
                self.t.known["ct-local-confirm"] = self.t.known.get("ct-local-confirm", 0) + 1
                a, b = self.ct.rows()
        if a != b:
            time.sleep(RECHECK_DELAY)
            capture.settle(self.cap.values())
            a, b = self.ct.rows()
        if a != b and known.ct_stream_moment(a, b, self.ct_first_seen, time.monotonic()):
            self.t.known["ct-udp-stream-moment"] = self.t.known.get("ct-udp-stream-moment", 0) + 1
            a = b
        if a != b:
            only = ["    only on linux:  " + ct_table.fmt_row(r) for r in a if r not in b] + \
                   ["    only on xbridge: " + ct_table.fmt_row(r) for r in b if r not in a]
            raise Difference(step, "conntrack tables differ",
                             ct_table.fmt_table(a),
                             ct_table.fmt_table(b) + "\n  diff:\n" + "\n".join(only))
        self.t.ct_compares += 1
        self.t.ct_rows += len(a)
        return a

    def ct_flush(self):
        self.ct_dirty = True
        self.ct_on = not self.offload   # see nft_steps: no table comparison in offload mode
        self.ct.flush()

    def ct_expect(self, step):
        if self.offload:
            return      # xbridge's table carries the harness's marks and [OFFLOAD] there
        rows = self.ct_compare(step)
        if step.count is not None and len(rows) != step.count:
            raise Difference(step, "expected %d conntrack entries, not %d" % (step.count, len(rows)),
                             ct_table.fmt_table(rows), "    (same on both)")
        if step.text is not None:
            want = ct_table.squash(step.text)
            if not any(want in ct_table.fmt_row(r) for r in rows):
                raise Difference(step, "expected a conntrack entry with %r" % step.text,
                                 ct_table.fmt_table(rows), "    (same on both)")

    def record(self, step, **what):
        """One JSON line of the trace (--record): the step and what both
        bridges agreed on after it - deliveries, or FDB and VLAN table."""
        if not self.trace:
            return
        row = {"scenario": self.scenario, "line": step.lineno if step else 0,
               "step": step.line if step else "reset"}
        if "frames" in what:
            row["frames"] = [[p, b.hex()] for p, b in what["frames"]]
        if "state" in what:
            fdb, vlans = what["state"]
            row["fdb"] = [{"port": p, "mac": m, "vlan": v, "kind": k, "flags": list(f)}
                          for p, m, v, k, f in fdb]
            row["vlans"] = {port: [{"vlan": vid, "flags": fl, "state": s} for vid, fl, s in rows]
                            for port, rows in vlans.items()}
        self.trace.write(json.dumps(row, sort_keys=True) + "\n")

    def state(self, side):
        return known.normalise_state(side.label, (side.fdb_dump(), side.vlan_dump()))

    def compare_state(self, step, both_failed=False):
        a, b = self.state(self.linux), self.state(self.xb)
        if a != b and both_failed:
            undo = known.fdb_add_partial(step, self.before, a, b)
            if undo:
                # Undo Linux's partial add. Neither bridge can delete the
                # VID-0 entry alone: delete the MAC from the port (VID 0 and
                # every port VLAN), then put back what the port had before.
                # Not exactly what it had: a locked entry (MAB) comes back
                # unlocked, as no request can lock one, and a port that
                # does not learn refuses a dynamic one (EPERM). So both
                # bridges go through the same undo, and end up alike
                # unless they treat it differently.
                for side in (self.linux, self.xb):
                    try:
                        side.fdb_del(step.port, step.mac, None)
                    except nl.NlError as e:
                        # xbridge added nothing: the port may hold no
                        # entry for the MAC at all
                        if e.err != errno.ENOENT:
                            raise
                    for port, mac, vid, kind, flags in self.before[0]:
                        if (port, mac) != (step.port, step.mac):
                            continue
                        try:
                            side.fdb_change("replace", mac, port, vid, kind,
                                            "sticky" in flags, "extern_learn" in flags)
                        except nl.NlError:
                            pass
                self.t.known["fdb-add-all-or-nothing"] = \
                    self.t.known.get("fdb-add-all-or-nothing", 0) + 1
                a, b = self.state(self.linux), self.state(self.xb)
        if a != b:
            time.sleep(RECHECK_DELAY)
            capture.settle(self.cap.values())
            a, b = self.state(self.linux), self.state(self.xb)
        if a != b:
            raise Difference(step, "FDB or VLAN table differs", fmt_state(a), fmt_state(b))
        self.before = a
        self.record(step, state=a)

    def frames(self, seq):
        return (known.normalise_frames("linux", self.cap["linux"].frames(seq)),
                known.normalise_frames("xbridge", self.cap["xbridge"].frames(seq)))

    def send(self, step):
        self.seq += 1
        frames = sc.build_frames(step, capture.marker(self.seq))
        frame = frames[0]
        for c in self.cap.values():
            for f in frames:
                c.send(step.port, f)
        self.t.sent += 1
        capture.settle(self.cap.values())
        a, b = self.frames(self.seq)
        if a != b:
            time.sleep(RECHECK_DELAY)
            capture.settle(self.cap.values())
            a, b = self.frames(self.seq)
        if a != b:
            raise Difference(step, "delivered frames differ (frame %s)" % frame.hex(),
                             fmt_frames(a), fmt_frames(b))
        self.t.arrivals += len(a)
        self.record(step, frames=a)
        return a

    def age(self, ageing):
        for s in self.sides:
            s.bridge_set({"ageing_time": 10})
        time.sleep(AGE_SETTLE)
        for s in self.sides:
            s.bridge_set({"ageing_time": ageing})

    def expect(self, step, last_rx):
        if step.kind == "expect rx":
            got = sorted({p for p, _ in last_rx or []})
            if got != step.ports:
                raise Difference(step, "expected the frame on %s" % (" ".join(step.ports) or "none"),
                                 "    got: %s" % (" ".join(got) or "none"), "    (same on both)")
        else:
            for s in self.sides:
                rows = [r for r in s.fdb_dump() if r[1] == step.mac and r[2] == step.vid]
                port = rows[0][0] if rows else None
                if port != step.port:
                    raise Difference(step, "expected %s vlan %d on %s" % (step.mac, step.vid, step.port),
                                     "    %s has it on %s" % (s.label, port), "")

    def run(self, scen):
        self.nft_reset()
        if self.xnft_flush_pending and not any(st.kind == "nft" for st in scen.steps):
            self.xnft().flush()
            self.xnft_flush_pending = False
        for s in self.sides:
            s.reset(scen.nports)
        capture.settle(self.cap.values(), quiet=0.01)
        for c in self.cap.values():
            c.forget()
        ageing = 30000
        last_rx = None
        first_seq = self.seq + 1
        self.compare_state(None)
        flow_before = self.offload.stats() if self.offload else None
        steps = scen.steps
        for i, step in enumerate(steps):
            self.t.steps += 1
            if step.kind == "nft" and i and steps[i - 1].kind == "nft":
                continue        # ran with the group it belongs to
            if step.kind == "send":
                last_rx = self.send(step)
                if self.nft_used and self.args.nft_every_frame:
                    self.compare_rulesets(step)
            elif step.kind == "age":
                self.age(ageing)
            elif step.kind in ("expect counters", "expect listed"):
                self.compare_rulesets(step, getattr(step, "text", None))
                continue
            elif step.kind == "expect ct":
                self.ct_expect(step)
                continue
            elif step.kind == "ct flush":
                self.ct_flush()
            elif step.kind.startswith("expect"):
                self.expect(step, last_rx)
                continue
            elif step.kind == "nft":
                group = [step]
                while i + len(group) < len(steps) and steps[i + len(group)].kind == "nft":
                    group.append(steps[i + len(group)])
                self.nft_steps(group)
            else:
                self.t.config_ops += 1
                if self.args.tools:
                    ea = tool_words.run(self.linux, step, apply)
                    eb = tool_words.run(self.xb, step, apply)
                else:
                    ea, eb = apply(self.linux, step), apply(self.xb, step)
                if (ea is None) != (eb is None):
                    raise Difference(step, "the step succeeds on one bridge only",
                                     "    %s" % (ea or "ok"), "    %s" % (eb or "ok"))
                if step.kind == "br set" and "ageing_time" in step.opts and ea is None:
                    ageing = step.opts["ageing_time"]
                self.compare_state(step, both_failed=ea is not None)
                if self.ct_on:
                    self.ct_compare(step)
                continue
            self.compare_state(step)
            if self.ct_on:
                self.ct_compare(step, last_rx if step.kind == "send" else None)
        # A late frame is charged to the step that sent it.
        capture.settle(self.cap.values())
        for seq in range(first_seq, self.seq + 1):
            a, b = self.frames(seq)
            if a != b:
                raise Difference(None, "late frames of send #%d differ" % (seq - first_seq + 1),
                                 fmt_frames(a), fmt_frames(b))
        if self.nft_used:
            self.compare_rulesets(None)
        if self.ct_on:
            self.ct_compare(None)
        if self.offload:
            self.count_flows(flow_before, self.offload.stats())

    def count_flows(self, before, after):
        """Offload mode: add what xbridge's flowtable counted during the
        scenario (its counters restart when conntrack is switched off)."""
        self.scenario_hits = 0
        for k, v in after.items():
            d = v if k == "flows" else (v - before.get(k, 0) if v >= before.get(k, 0) else v)
            if k != "flows":
                self.t.flow_stats[k] = self.t.flow_stats.get(k, 0) + d
            if k == "hits":
                self.scenario_hits = d
        self.t.flow_hits += self.scenario_hits
        self.t.offloaded_scenarios += self.scenario_hits > 0

    def run_one(self, scen):
        if self.offload and not offload.has_nft(scen):
            return True     # no ruleset, no conntrack on Linux: nothing to offload
        if self.offload and not offload.has_conversation(scen):
            self.t.offload_no_conversation += 1
            return True     # no connection both ways: nothing to offload either
        if scen.requires and kernel_version() < scen.requires:
            self.t.skipped += 1
            print("SKIP: conformance %s (the Linux bridge behaviour it compares needs %d.%d; "
                  "this kernel is %s)" % (scen.name, scen.requires[0], scen.requires[1],
                                         platform.release()))
            return True
        if self.args.tools and any(st.kind == "nft" for st in scen.steps):
            return True     # its nft steps run the tools already; its config is not the point
        why = known.skip_reason(scen.name, offload=bool(self.offload))
        if why and not self.args.no_known_skip:
            self.t.known_skipped += 1
            print("SKIP: conformance %s (known xbridge difference: %s)" % (scen.name, why))
            return True
        name = scen.name
        if self.offload:
            why = offload.exclusion(scen)
            if why:
                self.t.offload_skipped += 1
                print("SKIP: conformance %s offload (%s)" % (name, why))
                return True
            name += " offload"
        self.t.scenarios += 1
        self.scenario = name
        self.scenario_hits = 0
        self.ct_first_seen = {}
        t0 = time.monotonic()
        try:
            self.run(scen)
        except Difference as d:
            where = "step %s" % d.step if d.step else "after the last step"
            print("FAIL: conformance %s: %s: %s" % (name, where, d.what))
            print("  linux:\n%s\n  xbridge:\n%s" % (d.left, d.right))
            print("  scenario (--replay it):")
            print("\n".join("    | " + l for l in scen.text.rstrip().splitlines()))
            sys.stdout.flush()
            return False
        except Exception as e:
            # A tool that crashed, a listing that did not parse: this
            # scenario fails by name, and the next one starts afresh.
            print("FAIL: conformance %s: the harness stopped: %s: %s"
                  % (name, type(e).__name__, str(e).strip()[:600]))
            traceback.print_exc(file=sys.stdout)
            sys.stdout.flush()
            return False
        finally:
            self.time_group(scen.name, time.monotonic() - t0)
        self.t.passed += 1
        if not self.args.quiet:
            hits = ", %d flow hits" % self.scenario_hits if self.offload else ""
            print("PASS: conformance %s (%d steps%s)" % (name, len(scen.steps), hits))
            sys.stdout.flush()
        return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", help="directory of hand-written *.scn scenarios")
    ap.add_argument("--generate", type=int, default=0, help="generated scenarios to run")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first generated scenario")
    ap.add_argument("--steps", type=int, default=24, help="steps per generated scenario")
    ap.add_argument("--soak", type=float, default=0,
                    help="keep generating scenarios for this many seconds")
    ap.add_argument("--replay", action="append", default=[], help="a scenario file to run")
    ap.add_argument("--no-mab", action="store_true",
                    help="generate without MAB even on Linux 6.2+ (the scenarios 6.1 runs)")
    ap.add_argument("--quiet", action="store_true", help="print only FAIL lines and totals")
    ap.add_argument("--tools", action="store_true",
                    help="configure through `bridge`/`ip` and the `xbridge` tool (one process a step)")
    ap.add_argument("--name-suffix", default="", help="appended to every scenario's name")
    ap.add_argument("--record", metavar="FILE",
                    help="write every step's agreed outcome (deliveries, normalised FDB "
                         "and VLAN table) to FILE as JSON lines")
    ap.add_argument("--known", action="store_true", help="list the known differences and exit")
    ap.add_argument("--no-known-skip", action="store_true",
                    help="run the scenarios known.py skips (known xbridge bugs) too")
    ap.add_argument("--generate-nft", type=int, default=0,
                    help="generated nft scenarios to run (seeds from --nft-seed)")
    ap.add_argument("--nft-seed", type=int, default=1, help="seed of the first generated nft scenario")
    ap.add_argument("--nft-steps", type=int, default=20, help="steps per generated nft scenario")
    ap.add_argument("--generate-ct", type=int, default=0,
                    help="generated conntrack scenarios to run (seeds from --ct-seed)")
    ap.add_argument("--ct-seed", type=int, default=1, help="seed of the first generated ct scenario")
    ap.add_argument("--ct-steps", type=int, default=16, help="steps per generated ct scenario")
    ap.add_argument("--ct-frags", action="store_true",
                    help="generated ct scenarios send some IPv4 packets as fragments "
                         "(gen-ct-seed-N-frag)")
    ap.add_argument("--generate-ct-frags", type=int, default=0,
                    help="generated ct scenarios with fragments to run besides "
                         "(gen-ct-seed-N-frag, seeds from --ct-seed)")
    ap.add_argument("--nft-every-frame", action="store_true",
                    help="compare the rulesets' listings after every frame, not only at "
                         "`expect counters` and the scenario's end")
    ap.add_argument("--offload", action="store_true",
                    help="xbridge offloads every connection it may to a flowtable of the "
                         "harness's own (offload.py); only scenarios with nft steps run")
    ap.add_argument("--generate-flows", type=int, default=0,
                    help="generated scenarios with connections to offload (offload.flow_scenario, "
                         "seeds from --nft-seed)")
    ap.add_argument("--min-flow-hits", type=int, default=0,
                    help="offload mode: fail unless xbridge's flowtable forwarded at least "
                         "this many frames over the run")
    args = ap.parse_args()
    if args.known:
        for name, what, why in known.KNOWN:
            print("%s: %s\n    %s" % (name, what, why))
        for name, why in sorted(known.KNOWN_SCENARIOS.items()):
            print("skipped %s: %s" % (name, why))
        return 0

    scenarios = []
    for path in args.replay + (sorted(glob.glob(os.path.join(args.corpus, "*.scn")))
                               if args.corpus else []):
        with open(path) as f:
            scenarios.append(sc.parse(f.read(), os.path.basename(path) + args.name_suffix))
    r = Runner(args)
    start = time.monotonic()
    ok = True
    for s in scenarios:
        ok &= r.run_one(s)
    seed = args.seed
    # MAB in generated scenarios where the Linux bridge has it (6.2+).
    mab = not args.no_mab and kernel_version() >= (6, 2)
    for _ in range(args.generate):
        ok &= r.run_one(generator.scenario(seed, args.steps, mab))
        seed += 1
    for seed in range(args.nft_seed, args.nft_seed + args.generate_nft):
        ok &= r.run_one(generator.nft_scenario(seed, args.nft_steps, writes=not args.offload))
    for seed in range(args.ct_seed, args.ct_seed + args.generate_ct):
        ok &= r.run_one(generator.ct_scenario(seed, args.ct_steps, args.ct_frags))
    for seed in range(args.ct_seed, args.ct_seed + args.generate_ct_frags):
        ok &= r.run_one(generator.ct_scenario(seed, args.ct_steps, True))
    for seed in range(args.nft_seed, args.nft_seed + args.generate_flows):
        ok &= r.run_one(offload.flow_scenario(seed, 2 * args.nft_steps))
    if args.soak:
        end = time.monotonic() + args.soak
        while time.monotonic() < end:
            ok &= r.run_one(generator.scenario(seed, args.steps, mab))
            seed += 1
    t = r.t
    print("conformance: %d scenarios (%d passed, %d skipped on this kernel), %d steps, %d config ops, "
          "%d frames sent to both bridges, %d deliveries compared, %.0f s"
          % (t.scenarios, t.passed, t.skipped, t.steps, t.config_ops, t.sent, t.arrivals,
             time.monotonic() - start))
    if t.nft_ops or t.known_skipped:
        print("conformance: %d nft steps on both sides, %d ruleset listings compared, "
              "%d scenarios skipped as known xbridge differences (known.py)"
              % (t.nft_ops, t.nft_compares, t.known_skipped))
    for group, (n, secs) in sorted(t.groups.items()):
        print("conformance: %s: %d scenarios in %.0f s (%.1f s each)" % (group, n, secs, secs / n))
    if t.ct_compares:
        print("conformance: %d conntrack table comparisons (%d rows equal on both)"
              % (t.ct_compares, t.ct_rows))
    if r.offload:
        print("conformance: offload: %d scenarios had flow hits; flowtable %s; "
              "%d scenarios skipped (offload.py), %d not rerun (no TCP or UDP conversation)"
              % (t.offloaded_scenarios,
                 " ".join("%s=%d" % kv for kv in sorted(t.flow_stats.items())) or "(no counters)",
                 t.offload_skipped, t.offload_no_conversation))
        if t.flow_hits < args.min_flow_hits:
            print("FAIL: conformance offload: %d flow hits over the run, fewer than %d: "
                  "the differential proves nothing" % (t.flow_hits, args.min_flow_hits))
            ok = False
    for name, n in sorted(t.known.items()):
        print("conformance: known difference %s applied %d times (--known)" % (name, n))
    for word, n in sorted(tool_words.netlink_steps.items()):
        print("conformance: --tools: %d Linux steps with `%s` sent over rtnetlink "
              "(this iproute2 does not know the word)" % (n, word))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
