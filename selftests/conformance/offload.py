# SPDX-License-Identifier: GPL-2.0
"""offload.py - the conformance harness's offload mode (conformance.py
--offload): the same scenarios again with xbridge's flowtable offloading
every connection it may, against the Linux bridge without one (Linux has
no bridge flowtable). The flowtable must be invisible: the delivered
frames, the FDB and the VLAN table must not change.

What the harness adds, on the xbridge side only, after each group of the
scenario's nft steps and in the same xnft batch (so no commit of its own:
a configuration change between two frames is never followed by a ruleset
commit that would hide a missed teardown), is one table:

    table bridge xbr_offload {
        flowtable ft { hook ingress priority 0; devices = { p1 ... p8 }; counter }
        chain offload {         # forward, the last priority
            ct mark E+3 flow add @ft
        }
        chain seen {            # postrouting, the last priority
            (a frame past every chain of the scenario, ct state established,
             sets its direction's bit: original E+1, reply E+2, both E+3)
        }
    }

so a connection is offloaded (both directions at once, as nf_flow_table
does) only once a frame of each direction has passed every forward and
postrouting chain of the scenario as `ct state established` under the
current ruleset: E is an epoch the harness moves on with each ruleset it
installs, so a new ruleset must see both directions again. Without the
`seen` bits a reply direction the scenario's rules drop would be offloaded
with the original one, a difference the flowtable owes to its definition,
not to a bug.

Invisible then means: every frame after that is delivered as the slow path
would deliver it, as long as the ruleset's verdict is a function of what a
flow is keyed by (ports, MACs, outer VLAN, the tuple) and of `ct state
established`. What legitimately differs, and how the harness treats it:
  - counters: an offloaded frame skips every chain, so packets/bytes of
    `counter` differ - `list ruleset` is compared without them (and
    without the harness's table); `expect listed` still reads Linux's;
  - rules on what varies between frames of one flow (length, TCP flags,
    TTL, PCP, limit, quota, ...): the scenario is skipped in offload mode
    (exclusion() below, with the word that excludes it);
  - scenarios listed in EXCLUDED, each with its reason.
Offloading must really happen: the run counts xbridge's flow hits
(CT_STATS_GET) per scenario and in all, and a --min-flow-hits floor fails
a run where it did not.

Ownership: one Offload per Runner; single thread.
"""
import re

import genl_raw as xb_raw
import nlsock as nl

TABLE = "xbr_offload"
LAST = 2147483647       # the last priority a chain can have
PORTS = ["p%d" % i for i in range(1, 9)]

# CT_STATS_GET's flowtable counters (netlink/xbridge.h, XBRIDGE_CT_STATS_*)
FLOW_STATS = {15: "flows", 16: "hits", 17: "adds", 18: "add_failed", 19: "teardown_stale",
              20: "teardown_fin_rst", 21: "teardown_timeout", 22: "teardown_conntrack"}

# Matches on what differs between frames of one direction of one flow: a
# ruleset with one of them may give a later frame of an offloaded flow
# another verdict than the frame that had it offloaded.
_VARYING = [
    (r"\bmeta length\b|\blength\b", "meta length: frames of one flow differ in length"),
    (r"\btcp flags\b", "tcp flags: segments of one connection carry different flags"),
    (r"\b(ip|ip6) (length|ttl|hoplimit|id|dscp|ecn|checksum)\b",
     "an IP header field that varies within a flow"),
    (r"\b(tcp (sequence|ackseq|window|checksum|urgptr)|udp (length|checksum))\b",
     "an L4 header field that varies within a flow"),
    (r"\bvlan (pcp|dei)\b", "vlan pcp/dei: not part of a flow's key"),
    (r"\blimit\b|\bquota\b|\bnumgen\b", "a stateful per-frame match (limit, quota)"),
    (r"\bct (packets|bytes|avgpkt)\b", "ct packets/bytes: counted per frame"),
    (r"@(ll|nh|th)\b", "a raw payload match"),
]

# Scenarios whose difference in offload mode is the flowtable's definition
# (name -> reason), found by running them.
EXCLUDED = {
}


def exclusion(scen):
    """Why @scen does not run in offload mode, or None."""
    if scen.name in EXCLUDED:
        return EXCLUDED[scen.name]
    for st in scen.steps:
        if st.kind != "nft":
            continue
        for pattern, why in _VARYING:
            if re.search(pattern, st.cmd):
                return "%s (line %d)" % (why, st.lineno)
    return None


def has_nft(scen):
    return any(st.kind == "nft" for st in scen.steps)


class Offload:
    """The harness's flowtable on the xbridge side, and what it counted."""

    def __init__(self, genl, br_ifindex):
        self.genl = genl
        self.br_ifindex = br_ifindex
        self.epoch = 0

    def commands(self):
        """xnft commands (logical names) that (re)install the table with a
        new epoch, whatever is there before: the add-then-delete idiom."""
        self.epoch += 4
        e = self.epoch
        t = "bridge " + TABLE
        seen = "add rule %s seen ct state established ct direction " % t
        return [
            "add table " + t, "delete table " + t, "add table " + t,
            "add flowtable %s ft { hook ingress priority 0 ; devices = { %s } ; counter ; }"
            % (t, ", ".join(PORTS)),
            "add chain %s offload { type filter hook forward priority %d ; policy accept ; }"
            % (t, LAST),
            "add rule %s offload ct mark %d flow add @ft" % (t, e + 3),
            "add chain %s seen { type filter hook postrouting priority %d ; policy accept ; }"
            % (t, LAST),
            seen + "original ct mark %d ct mark set %d" % (e + 2, e + 3),
            seen + "reply ct mark %d ct mark set %d" % (e + 1, e + 3),
            seen + "original ct mark != %d ct mark != %d ct mark set %d" % (e + 1, e + 3, e + 1),
            seen + "reply ct mark != %d ct mark != %d ct mark set %d" % (e + 2, e + 3, e + 2),
        ]

    @staticmethod
    def hide(listing):
        """xnft's `list ruleset` without the harness's table."""
        return re.sub(r"(?ms)^table bridge %s \{\n.*?^\}\n?" % TABLE, "", listing).strip("\n")

    @staticmethod
    def stateless(listing):
        """A listing without counters' packets and bytes (nft -s)."""
        return re.sub(r"\bcounter packets \d+ bytes \d+", "counter", listing)

    def stats(self):
        """xbridge's flowtable counters (zeros while conntrack is off)."""
        try:
            msgs = self.genl.do(xb_raw.CMD["CT_STATS_GET"], nl.u32(xb_raw.A_IFINDEX, self.br_ifindex))
        except nl.NlError:
            return {}
        out = {}
        for body in msgs or []:
            top = nl.parse(body)
            if xb_raw.A_CT_STATS not in top:
                continue
            for atype, payload in nl.parse(top[xb_raw.A_CT_STATS]).items():
                if atype in FLOW_STATS:
                    out[FLOW_STATS[atype]] = int.from_bytes(payload[:8], "little")
        return out
