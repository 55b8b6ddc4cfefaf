#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stress_churn.py - one FDB/VLAN churn stream for xbridge_stress.sh.

  stress_churn.py --xbridge TOOL --br BR --port P1 --port2 P2 --prefix 02:a1
                  --seconds S --out FILE [--seed N] [--chunk N]

At least once, and until S seconds have passed, generates a chunk of `xbridge -batch` lines
(FDB add, replace moving an entry between P1 and P2, del, a flush of P1's
static entries now and then; VLAN add/del of VIDs 100-131 on P1 with FDB
entries under them), runs it, and advances a model of what the bridge
must hold. Every line is valid in the model's state, so any failing line
is a failure. FDB entries use VID 10 (on both ports for good) or a VID of
100-131 present on P1 at the time; a static entry survives the deletion
of its VLAN (Linux: nbp_vlan_delete removes only the local entry).

Writes to FILE the expected `xbridge fdb show` lines of the stream's
MACs (sorted) and P1's churn VIDs; prints "churn: N ops in T s (R ops/s)".
Exits 1 if a batch failed or nothing ran.
Ownership: single-threaded; the stream owns its MACs (its prefix) and the
churn VIDs of P1.
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--xbridge", required=True)
    p.add_argument("--br", required=True)
    p.add_argument("--port", required=True)
    p.add_argument("--port2", required=True)
    p.add_argument("--prefix", required=True)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--chunk", type=int, default=2000)
    p.add_argument("--macs", type=int, default=4096)
    a = p.parse_args()
    r = random.Random(a.seed)
    fdb = {}          # (mac, vid) -> port
    vlans = set()     # churn VIDs present on port
    churn_vids = list(range(100, 132))
    ops = 0
    t0 = time.monotonic()
    fd, batch = tempfile.mkstemp(prefix="churn.")
    os.close(fd)
    failed = 0
    # At least one chunk, however short S (a slow guest may spend it all
    # starting up).
    while ops == 0 or time.monotonic() - t0 < a.seconds:
        lines = []
        for _ in range(a.chunk):
            x = r.random()
            keys = list(fdb) if x >= 0.45 else None
            if x < 0.45 or not fdb:
                i = r.randrange(a.macs)
                mac = "%s:00:%02x:%02x:%02x" % (a.prefix, i >> 16, (i >> 8) & 255, i & 255)
                usable = [10] + sorted(vlans)
                vid = r.choice(usable)
                port = a.port if vid != 10 else r.choice([a.port, a.port2])
                lines.append("fdb replace %s dev %s vlan %d master static" % (mac, port, vid))
                fdb[(mac, vid)] = port
            elif x < 0.65:
                mac, vid = r.choice(keys)
                if vid == 10:
                    port = a.port2 if fdb[(mac, vid)] == a.port else a.port
                    lines.append("fdb replace %s dev %s vlan %d master static" % (mac, port, vid))
                    fdb[(mac, vid)] = port
                else:
                    lines.append("fdb del %s dev %s vlan %d master" % (mac, fdb[(mac, vid)], vid))
                    del fdb[(mac, vid)]
            elif x < 0.85:
                mac, vid = r.choice(keys)
                lines.append("fdb del %s dev %s vlan %d master" % (mac, fdb[(mac, vid)], vid))
                del fdb[(mac, vid)]
            elif x < 0.9995:
                vid = r.choice(churn_vids)
                if vid in vlans:
                    lines.append("vlan del vid %d dev %s" % (vid, a.port))
                    vlans.discard(vid)
                else:
                    lines.append("vlan add vid %d dev %s" % (vid, a.port))
                    vlans.add(vid)
            else:
                lines.append("fdb flush dev %s brport %s static" % (a.br, a.port))
                fdb = {k: v for k, v in fdb.items() if v != a.port}
        with open(batch, "w") as f:
            f.write("\n".join(lines) + "\n")
        res = subprocess.run([a.xbridge, "-batch", batch], capture_output=True, text=True)
        if res.returncode != 0:
            print("churn: xbridge -batch failed (%d): %s" % (res.returncode, res.stderr[:400]),
                  file=sys.stderr)
            failed = 1
            break
        ops += len(lines)
    if ops == 0:
        failed = 1
    dt = time.monotonic() - t0
    os.unlink(batch)
    with open(a.out, "w") as f:
        for (mac, vid), port in sorted(fdb.items()):
            f.write("%s dev %s vlan %d master %s static\n" % (mac, port, vid, a.br))
    with open(a.out + ".vlans", "w") as f:
        f.write(" ".join(str(v) for v in sorted(vlans)) + "\n")
    print("churn: %d ops in %.1f s (%.0f ops/s), %d entries left, %d churn VLANs left"
          % (ops, dt, ops / dt, len(fdb), len(vlans)))
    sys.exit(failed)


if __name__ == "__main__":
    main()
