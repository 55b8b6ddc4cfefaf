#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-smoke: run xbridge-bench on a tiny configuration and check that
its JSON parses, has every expected row and mode, and that the benchmark's
own verification (every forwarded frame reached the port its FDB entry was
installed on, in both modes and both entry points) passed. Correctness
only: no figure is compared with a target."""
import json
import subprocess
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: bench-smoke.py XBRIDGE_BENCH", file=sys.stderr)
        return 2
    cmd = [sys.argv[1], "--json", "--frames", "4096", "--passes", "1",
           "--pool", "1024", "--vids", "4,64", "--ports", "3/2,4/4",
           "--entries", "512", "--scale", "1024", "--ct", "256"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    if proc.returncode != 0:
        print(f"bench exited {proc.returncode}\n{proc.stderr}", file=sys.stderr)
        return 1
    doc = json.loads(proc.stdout)
    errors = []
    if doc.get("verified") is not True or doc.get("failures") != 0:
        errors.append(f"verification failed: {doc.get('failures')}")
    machine = doc.get("machine", {})
    if not machine.get("cpu_model") or not machine.get("tsc_hz", 0) > 0:
        errors.append(f"machine not described: {machine}")
    rows = doc.get("rows", [])
    matrix = [r for r in rows if r["group"] == "matrix"]
    scale = [r for r in rows if r["group"] == "scale"]
    if len(matrix) != 4 or len(scale) != 1:
        errors.append(f"expected 4 matrix rows and 1 scale row, got {len(matrix)}/{len(scale)}")
    for r in rows:
        for key in ("single_lookup", "single_tagged", "batch_lookup", "batch_tagged"):
            m = r.get(key)
            if not m or not m["cycles_per_frame"] > 0 or not m["mpps"] > 0:
                errors.append(f"row {r}: bad {key}")
        if r["fdb_count"] < r["entries"]:
            errors.append(f"row {r}: FDB holds fewer entries than installed")
        if not r["bytes_per_entry"] >= 64:
            errors.append(f"row {r}: bytes_per_entry {r['bytes_per_entry']} below an entry's size")
    ct_rows = doc.get("ct_rows", [])
    if len(ct_rows) != 1:
        errors.append(f"expected 1 conntrack row, got {len(ct_rows)}")
    for r in ct_rows:
        if (r["failures"] != 0 or not r["frames_timed"] > 0 or
                not r["single"]["cycles_per_frame"] > 0 or not r["batch"]["cycles_per_frame"] > 0):
            errors.append(f"conntrack row {r}: failed or no figure")
        if not r["bytes_per_connection"] >= 100:
            errors.append(f"conntrack row {r}: bytes_per_connection below an entry's size")
    for e in errors:
        print("bench-smoke:", e, file=sys.stderr)
    if not errors:
        print(f"bench-smoke: ok ({len(rows)} rows verified)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
