# SPDX-License-Identifier: GPL-2.0
"""known.py - the known, intended differences between xbridge and the Linux
bridge, in one place. Each is a normalisation applied to what one side
reports before the comparison, with the reason; everything not listed here
must be identical.

What the harness does not compare at all (so needs no entry here) is in
Documentation/conformance.md: features xbridge does not have - multicast
snooping (the Linux bridge runs with mcast_snooping 0), STP. mab, locked
entries and fdb_max_learned are compared on Linux 6.2+/6.8+ (the 6.12 test
kernel); older kernels skip the scenarios that need them.
"""

# (name, what differs, why) - printed by `conformance.py --known`.
KNOWN = [
    ("fdb-add-all-or-nothing",
     "`fdb add MAC dev P` without a VLAN that fails part-way (an entry for one "
     "of the port's VLANs already exists: EEXIST)",
     "Linux adds VID 0 and the port's VLANs one by one and stops at the first "
     "error, keeping what it added before it; xbridge checks every VID first "
     "and adds nothing (bad input changes nothing). Both report the error. "
     "The harness then undoes Linux's partial add, deleting the MAC from the "
     "port and putting its entries back, on both bridges alike (a locked entry "
     "comes back unlocked, a dynamic one on a port that does not learn not at "
     "all), and goes on."),
]


# Applied by the conntrack comparison (conformance.Runner.ct_compare).
KNOWN.append(
    ("ct-local-confirm",
     "a new connection whose frame went up to the bridge device as PACKET_HOST "
     "(to the bridge's or the ingress port's address): xbridge confirms it, "
     "Linux's table does not have it",
     "Linux's nf_conntrack_bridge leaves the confirmation of what it passes up "
     "to the IP stack (ipv4_confirm/ipv6_confirm at LOCAL_IN); in the harness "
     "lbr has no address, so IP drops the packet unconfirmed. xbridge cannot "
     "know what the IP stack will do and confirms at the bridge's local input, "
     "as IP does for a packet to one of its addresses. After such a step the "
     "harness deletes the rows only xbridge has (CT_DEL), counts it, and goes on."))


KNOWN.append(
    ("ct-udp-stream-moment",
     "a replied UDP or UDP-Lite connection [ASSURED] on one bridge and not yet "
     "on the other, at a step about two seconds after its first packet",
     "Linux assures a replied UDP flow with its first packet more than 2 s "
     "after the flow's first (nf_conntrack_udp_packet's stream_ts), and so "
     "does xbridge; the harness sends each step to the bridges one after the "
     "other, so a step landing on the two seconds can come before them on one "
     "bridge and after them on the other. Where the tables differ only in "
     "ASSURED on such rows, and each flow was first seen 1.5 to 4 s before "
     "(harness time), the difference is counted and passed over; a flow older "
     "or younger than that is still compared whole."))

STREAM_PROTOS = ("udp", "udplite")


def ct_flow_key(row):
    """A normalised row (ct_table.py) without its state, flags and mark."""
    return row[:5]


def ct_stream_moment(linux_rows, xbridge_rows, first_seen, now):
    """True if the tables differ only in ASSURED on UDP and UDP-Lite rows
    whose flows were first seen (@first_seen: ct_flow_key -> monotonic
    time) 1.5 to 4 s before @now (known difference ct-udp-stream-moment)."""
    only_linux = [r for r in linux_rows if r not in xbridge_rows]
    only_xbridge = {ct_flow_key(r): r for r in xbridge_rows if r not in linux_rows}
    if not only_linux or len(only_linux) != len(only_xbridge):
        return False
    for r in only_linux:
        x = only_xbridge.get(ct_flow_key(r))
        if x is None or r[1] not in STREAM_PROTOS:
            return False
        if set(r[6]) ^ set(x[6]) != {"ASSURED"} or r[5] != x[5] or r[7] != x[7]:
            return False
        t0 = first_seen.get(ct_flow_key(r))
        if t0 is None or not 1.5 <= now - t0 <= 4.0:
            return False
    return True


def ct_local_confirm_rows(step, delivered, linux_rows, xbridge_rows):
    """For a send @step delivered to @delivered ([(port, bytes)]): the rows
    xbridge has and Linux has not because xbridge confirmed a PACKET_HOST
    copy taken up (known difference ct-local-confirm), if that is the
    whole difference; else None."""
    if step is None or step.kind != "send" or not any(p == "br" for p, _ in delivered or []):
        return None
    if int(step.dst.split(":")[0], 16) & 1:
        return None             # broadcast or multicast: not PACKET_HOST
    if any(r not in xbridge_rows for r in linux_rows):
        return None
    extra = [r for r in xbridge_rows if r not in linux_rows]
    return extra or None


def normalise_state(label, state):
    return state


def normalise_frames(label, frames):
    return frames


def fdb_add_partial(step, before, linux_after, xbridge_after):
    """For a configuration @step that failed on both bridges: the FDB rows
    Linux added before failing (known difference fdb-add-all-or-nothing),
    if that is the whole difference; else None. @before is the common
    state before the step, the others (fdb, vlans) after it."""
    if step.kind not in ("fdb add", "fdb append", "fdb replace") or step.vlan is not None:
        return None
    if xbridge_after != before or linux_after[1] != before[1]:
        return None
    old = set(before[0])
    added = [r for r in linux_after[0] if r not in old]
    if not added or len(linux_after[0]) != len(old) + len(added):
        return None
    if any(r[0] != step.port or r[1] != step.mac for r in added):
        return None
    return added


# Scenarios that differ because of a known xbridge bug or gap, not by
# intent: the runner skips them (SKIP: ... known xbridge difference) unless
# --no-known-skip. Each stays in the corpus so that it runs again the day
# the entry goes. name (corpus file name or generated name) -> reason.
KNOWN_SCENARIOS = {}


# Of those, the ones whose difference cannot arise in offload mode (the
# harness's own table keeps a ct expression, so tracking never stops).
PLAIN_ONLY = set()


def skip_reason(name, offload=False):
    """Why the scenario @name is skipped (a known xbridge difference), or None."""
    if offload and name in PLAIN_ONLY:
        return None
    return KNOWN_SCENARIOS.get(name)
