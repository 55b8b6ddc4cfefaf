# SPDX-License-Identifier: GPL-2.0
"""known.py - the known, intended differences between xbridge and the Linux
bridge, in one place. Each is a normalisation applied to what one side
reports before the comparison, with the reason; everything not listed here
must be identical.

What the harness does not compare at all (so needs no entry here) is in
Documentation/conformance.md: features the test kernel's bridge (Linux 6.1)
lacks - fdb_max_learned, mab - and features xbridge does not have -
multicast snooping (the Linux bridge runs with mcast_snooping 0), STP.
"""

# (side, what, reason) - printed by `conformance.py --known`.
KNOWN = []


def normalise_state(label, state):
    return state


def normalise_frames(label, frames):
    return frames
