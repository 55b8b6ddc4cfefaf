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
        chain to_ft {           # forward, the last priority
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
import random
import re

import generator
import genl_raw as xb_raw
import nlsock as nl
import scenario as sc

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
    (r"\b(ether|vlan|ip|ip6|tcp|udp|udplite|sctp|dccp|icmp|icmpv6|arp|th) [a-z-]+ set\b",
     "a payload statement: an offloaded flow's frames skip the chains that write them"),
]

# Scenarios whose difference in offload mode is the flowtable's definition
# (name -> reason), found by running them.
EXCLUDED = {
    "214-ct-tcp-window-scale-sack.scn":
        "drops what window tracking finds INVALID after both directions were "
        "established: an offloaded flow skips window tracking (nf_flow_table "
        "tracks no window), so the out-of-window segment leaves",
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


# What xbridge's flowtable offloads, as nf_flow_table does (core/bridge_flow.cc).
_OFFLOADED = ("tcp", "udp")


def has_conversation(scen):
    """@scen sends a TCP or UDP packet and later one of the reply direction
    (addresses and ports swapped): without that no connection becomes
    established, the harness's table never offloads one, and the rerun
    would repeat the first pass with nothing offloaded."""
    seen = set()
    for st in scen.steps:
        if st.kind != "send" or st.payload not in ("ipv4", "ipv6") or not st.addrs:
            continue
        # a send without a transport word carries UDP 4000 -> 4001 (scenario.py)
        kind, sport, dport = st.l4[:3] if st.l4 else ("udp", 4000, 4001)
        if kind not in _OFFLOADED:
            continue
        src, dst = st.addrs
        if (kind, dst, src, dport, sport) in seen:
            return True
        seen.add((kind, src, dst, sport, dport))
    return False


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
            "add chain %s to_ft { type filter hook forward priority %d ; policy accept ; }"
            % (t, LAST),
            "add rule %s to_ft ct mark %d flow add @ft" % (t, e + 3),
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
        """A listing without counters' packets and bytes (nft -s): a rule's
        counter keeps its word, a named counter's block its other lines."""
        listing = re.sub(r"(?m)^\s*packets \d+ bytes \d+\n", "", listing)
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


# --- generated scenarios with connections to offload ------------------------------
#
# The generated nft scenarios (generator.nft_scenario) send random frames:
# a connection seldom sees the four established frames, two each way, it
# takes to be offloaded here, so they rarely have a flow hit. These take
# the same random setup and ruleset, then hold one to three TCP and UDP
# conversations between host pairs (a handshake, then data both ways, each
# side in one VLAN: untagged on its PVID, else tagged), interleaved with
# the generator's configuration changes, late rules and chain flushes, and
# a little of its random traffic. Named gen-flow-seed-N.

def _vlan_words(g, port, vid):
    """The tag words for a frame of VLAN @vid from @port."""
    if not g.filtering:
        return ""
    pvid, tagged = g.port_vids.get(port, (1, []))
    return "" if vid == pvid and vid not in tagged else " tag 8100:%d" % vid


def _conversation(g, i, j, kind, rng):
    pa, pb = g.ports[i], g.ports[j]
    ha, hb = generator.HOSTS[i], generator.HOSTS[j]
    ia, ib = generator._ip(i), generator._ip(j)
    vid = 1
    if g.filtering:
        va = {g.port_vids.get(pa, (1, []))[0]} | set(g.port_vids.get(pa, (1, []))[1])
        vb = {g.port_vids.get(pb, (1, []))[0]} | set(g.port_vids.get(pb, (1, []))[1])
        common = sorted(va & vb) or sorted(va)
        vid = rng.choice(common)
    ta, tb = _vlan_words(g, pa, vid), _vlan_words(g, pb, vid)
    if kind == "tcp":
        sp, dp = rng.choice([40000, 40001]), rng.choice(generator.TCP_PORTS)
        fwd = lambda fl: "send %s %s %s%s ipv4 %s %s tcp %d %d %s" % (pa, ha, hb, ta, ia, ib, sp, dp, fl)
        back = lambda fl: "send %s %s %s%s ipv4 %s %s tcp %d %d %s" % (pb, hb, ha, tb, ib, ia, dp, sp, fl)
        lines = [fwd("S"), back("SA"), fwd("A")]
        for _ in range(rng.randint(3, 6)):
            lines += [back("PA"), fwd("PA")] if rng.random() < 0.5 else [fwd("PA"), back("PA")]
        if rng.random() < 0.3:
            lines += [fwd("FA"), back("FA"), fwd("A")]
    else:
        sp, dp = rng.sample(generator.UDP_PORTS, 2)
        fwd = lambda: "send %s %s %s%s ipv4 %s %s udp %d %d" % (pa, ha, hb, ta, ia, ib, sp, dp)
        back = lambda: "send %s %s %s%s ipv4 %s %s udp %d %d" % (pb, hb, ha, tb, ib, ia, dp, sp)
        lines = [fwd()]
        for _ in range(rng.randint(4, 8)):
            lines += [back(), fwd()] if rng.random() < 0.5 else [fwd(), back()]
    return [(pa, l) for l in lines]


def flow_scenario(seed, nsteps=40):
    """The offload scenario of @seed (gen-flow-seed-N)."""
    name = "gen-flow-seed-%d" % seed
    g = generator._NftGen(seed, nsteps, writes=False)
    rng = random.Random(seed * 7919 + 1)
    g.setup()
    g.ruleset()
    talks = []
    for _ in range(rng.randint(1, 3)):
        i, j = rng.sample(range(g.nports), 2)
        talks.append(_conversation(g, i, j, rng.choice(["tcp", "udp"]), rng))
    deleted = set()
    steps = 0
    while any(talks) and steps < nsteps * 2:
        steps += 1
        k = generator._w(rng, [(80, "talk"), (6, "config"), (3, "rule"), (1, "flush"), (6, "noise")])
        if k == "talk":
            t = rng.choice([t for t in talks if t])
            port, line = t.pop(0)
            if port not in deleted:
                g.lines.append(line)
        elif k == "config":
            line = g.config()
            if line.startswith("port del"):
                deleted.add(line.split()[2])
            g.lines.append(line)
        elif k == "rule":
            g.lines.append(g.late_rule())
        elif k == "flush":
            g.lines.append("nft flush chain bridge t %s" % rng.choice(g.chains)[0])
        else:
            line = g.frame()
            if line.split()[1] not in deleted:
                g.lines.append(line)
    text = "# %s\n" % name + "\n".join(g.lines) + "\n"
    return sc.parse(text, name)
