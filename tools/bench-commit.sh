#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-commit.sh - commit speed of big rulesets and sets (issue 13): `xnft -f`
# into xbridge against `nft -f` into the Linux side (nf_tables), in one boot
# of the test kernel (tools/vm/run.sh). Generated inputs, the same file for
# both tools:
#   rules   a 10,000-rule bridge table: two base chains (forward,
#           prerouting) and eight regular chains the forward chain jumps to
#           (each ends in `return`); rules mix ip saddr/daddr (addresses and
#           prefixes), tcp/udp ports, iifname/oifname, ether saddr, vlan id,
#           ct-free matches, anonymous sets `tcp dport { 22, 80, 443 }`,
#           counters, accept/drop
#   set     a 100,000-element `ipv4_addr` set (and a rule looking it up)
#   concat  a 100,000-element `ipv4_addr . inet_service` set (and a rule)
# Per round and file, for each side in turn (the order alternates by round):
#   load   TOOL -f FILE                 (parse, compile, one batch, commit)
#   list   TOOL list ruleset >/dev/null (the dumps, parsed and printed)
#   flush  TOOL flush ruleset           (delete everything)
# wall time of each command (bash $EPOCHREALTIME). Prints the medians, the
# xnft/nft ratios (the target: xnft + xbridge no slower than nft -f), whether
# both listings are the same text, and the kernel memory each loaded file
# takes (MemTotal - MemFree - Buffers - Cached, after dropping caches,
# before and after the load; Slab, Percpu and VmallocUsed deltas beside it).
#
#   tools/bench-commit.sh [--quick] [--rounds N] [--files "rules set concat"]
#                         [--rules N] [--elements N] [--no-mem]
#                         [--kernel SPEC] [--out FILE]
#   tools/bench-commit.sh --summarize FILE   # the table of a saved run
#   tools/bench-commit.sh --generate DIR     # only write the inputs to DIR
#
# Needs build-kmod/xbridge.ko (bash kmod-shim/build.sh build-kmod), the tools
# in build/ (or $XBRIDGE, $XNFT) and nft on the host (tools/bootstrap.sh).
# Raw results go to --out (default build-vm/bench-commit.out). --quick: one
# round, no memory pass. Not a test: it is not in CI.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rounds=5 files="rules set concat" nrules=10000 nelems=100000 mem=1 kernel="" out="" guest=""
while (($#)); do
	case $1 in
	--quick) rounds=1; mem=0; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--files) files=$2; shift 2 ;;
	--rules) nrules=$2; shift 2 ;;
	--elements) nelems=$2; shift 2 ;;
	--no-mem) mem=0; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	--summarize) summarize_only=$2; shift 2 ;;
	--generate) generate_only=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-commit: unknown argument $1" >&2; exit 2 ;;
	esac
done

# summarize FILE - the table, from the BENCH lines of a run.
summarize() {
	python3 - "$1" <<'EOF'
import statistics, sys
t, mem, same, info = {}, {}, {}, []
for line in open(sys.argv[1], errors="replace"):
    line = line.strip().replace("\r", "")
    i = line.find("BENCH ")
    if i < 0:
        continue
    w = line[i:].split()
    if w[1] == "time" and len(w) == 7:          # time SIDE FILE OP ROUND MS
        t.setdefault((w[2], w[3], w[4]), []).append(float(w[6]))
    elif w[1] == "mem" and len(w) >= 8:         # mem SIDE FILE used slab percpu vmalloc (kB)
        mem.setdefault((w[2], w[3]), []).append([int(x) for x in w[4:8]])
    elif w[1] == "same":                        # same FILE yes|no LINES
        same[w[2]] = " ".join(w[3:])
    elif w[1] in ("info", "error"):
        info.append(" ".join(w[1:]))
names = {"rules": "10k rules", "set": "100k ipv4_addr", "concat": "100k addr . port"}
files = [f for f in ("rules", "set", "concat") if any(k[1] == f for k in t)]
def med(side, f, op):
    v = t.get((side, f, op))
    return statistics.median(v) if v else None
def fmt(x):
    return "%.0f" % x if x is not None else "-"
n = max((len(v) for v in t.values()), default=0)
print("bench-commit: medians of %d round(s), wall ms per command (xnft + xbridge | nft + nf_tables)" % n)
print()
print("%-17s %-6s %9s %9s %7s   %s" % ("input", "op", "xnft ms", "nft ms", "ratio", "rounds (xnft | nft)"))
verdicts = []
for f in files:
    for op in ("load", "list", "flush"):
        x, y = med("xnft", f, op), med("nft", f, op)
        r = x / y if x is not None and y else None
        print("%-17s %-6s %9s %9s %7s   %s | %s" % (
            names.get(f, f), op, fmt(x), fmt(y), "%.2f" % r if r is not None else "-",
            " ".join("%.0f" % v for v in t.get(("xnft", f, op), [])),
            " ".join("%.0f" % v for v in t.get(("nft", f, op), []))))
        if op == "load" and r is not None:
            verdicts.append((names.get(f, f), r))
print()
for name, r in verdicts:
    print("target: xnft -f no slower than nft -f, %-16s %.2f  %s" % (name, r, "met" if r <= 1.0 else "NOT met"))
if same:
    print()
    for f in files:
        if f in same:
            print("listings of %-16s xnft and nft print the same text: %s" % (names.get(f, f), same[f]))
if mem:
    print()
    print("kernel memory of the loaded input, kB (used = MemTotal-MemFree-Buffers-Cached delta; samples)")
    print("%-17s %-5s %9s %9s %9s %9s" % ("input", "side", "used", "slab", "percpu", "vmalloc"))
    for f in files:
        for side in ("xnft", "nft"):
            v = mem.get((side, f))
            if not v:
                continue
            cols = [statistics.median(c[i] for c in v) for i in range(4)]
            print("%-17s %-5s %9.0f %9.0f %9.0f %9.0f   (used: %s)" % (
                names.get(f, f), side, *cols, " ".join(str(c[0]) for c in v)))
for l in info:
    print(l)
EOF
}

# gen_inputs DIR - the inputs, DIR/{rules,set,concat}.nft: nft's language,
# accepted by both nft 1.0.6 and xnft.
gen_inputs() {
	python3 - "$1" "$nrules" "$nelems" <<'EOF'
import sys
d, nrules, nelems = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def rule(i):
    a, b = (i // 250) % 250, i % 250
    k = i % 8
    if k == 0:
        return "ip saddr 10.%d.%d.1 ip daddr 192.168.%d.%d tcp dport %d counter accept" % (
            a, b, b, a + 1, 1000 + i % 50000)
    if k == 1:
        return 'iifname "veth%d" ip saddr 10.%d.%d.0/24 counter drop' % (i % 64, a, b)
    if k == 2:
        return "ip daddr 172.16.%d.%d udp dport %d counter accept" % (a, b, 2000 + i % 40000)
    if k == 3:
        return "ip protocol tcp tcp sport %d tcp dport %d counter drop" % (1024 + i % 60000, 1 + i % 1000)
    if k == 4:
        return "ether saddr 02:00:%02x:%02x:00:01 ip saddr 10.%d.%d.7 counter accept" % (a, b, a, b)
    if k == 5:
        return 'oifname "veth%d" ip daddr 10.%d.%d.0/24 tcp dport { 22, 80, 443 } counter accept' % (
            i % 64, a, b)
    if k == 6:
        return "ip saddr 10.%d.0.0/16 ip daddr 10.%d.%d.9 counter" % (a, a, b)
    return "vlan id %d ip saddr 10.%d.%d.3 counter drop" % (1 + i % 4094, a, b)

# 10 parts: 8 regular chains, the forward chain (8 jumps), the prerouting chain
nchains = 8
fixed = 2 * nchains                      # the jumps and the returns
per = (nrules - fixed) // (nchains + 2)
out, k = ["table bridge fw {"], 0
for c in range(nchains):
    out.append(" chain c%d {" % c)
    for _ in range(per):
        out.append("  " + rule(k)); k += 1
    out += ["  return", " }"]
out += [" chain forward_filter {", "  type filter hook forward priority 0; policy accept;"]
out += ["  ip saddr 10.%d.0.0/13 jump c%d" % (8 * c, c) for c in range(nchains)]
for _ in range(per):
    out.append("  " + rule(k)); k += 1
out += [" }", " chain prerouting_filter {", "  type filter hook prerouting priority -100; policy accept;"]
while k + fixed < nrules:
    out.append("  " + rule(k)); k += 1
out += [" }", "}"]
open(d + "/rules.nft", "w").write("\n".join(out) + "\n")

def set_file(path, table, typ, elem, match):
    out = ["table bridge %s {" % table, " set s {", "  type %s" % typ, "  elements = {"]
    for i in range(0, nelems, 8):
        out.append("   " + ", ".join(elem(j) for j in range(i, min(i + 8, nelems))) + ",")
    out += ["  }", " }", " chain forward_filter {",
            "  type filter hook forward priority 0; policy accept;",
            "  %s @s counter accept" % match, " }", "}"]
    open(path, "w").write("\n".join(out) + "\n")

addr = lambda i: "10.%d.%d.%d" % (i >> 16, (i >> 8) & 255, i & 255)
set_file(d + "/set.nft", "st", "ipv4_addr", addr, "ip saddr")
set_file(d + "/concat.nft", "sc", "ipv4_addr . inet_service",
         lambda i: "%s . %d" % (addr(i), 1 + (i * 7) % 65535), "ip saddr . tcp dport")
EOF
}

if [[ -n ${summarize_only:-} ]]; then
	summarize "$summarize_only"
	exit
fi
if [[ -n ${generate_only:-} ]]; then
	mkdir -p "$generate_only" && gen_inputs "$generate_only"
	exit
fi

# ------------------------------------------------------------------ host side
if [[ -z $guest ]]; then
	cd "$root" || exit 1
	ko=$root/build-kmod/xbridge.ko
	[[ -e $ko ]] || { echo "bench-commit: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	for t in nft python3; do
		command -v $t >/dev/null || { echo "bench-commit: no $t (tools/bootstrap.sh)" >&2; exit 1; }
	done
	out=${out:-$root/build-vm/bench-commit.out}
	mkdir -p "$(dirname "$out")"
	nfiles=$(wc -w <<<"$files")
	timeout=$((300 + (rounds + 2 * mem) * nfiles * 120))
	args=(--rounds "$rounds" --files "$files" --rules "$nrules" --elements "$nelems")
	((mem)) || args+=(--no-mem)
	start=$(date +%s)
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 \
		--timeout "$timeout" ${kernel:+--kernel "$kernel"} \
		--env XBRIDGE="${XBRIDGE:-}" --env XNFT="${XNFT:-}" \
		--module "$ko" -- bash "$root/tools/bench-commit.sh" --guest "${args[@]}" |
		tee "$out"
	status=${PIPESTATUS[0]}
	echo
	summarize "$out"
	echo "wall time $(($(date +%s) - start)) s, vm status $status, raw results in $out"
	exit "$status"
fi

# ----------------------------------------------------------------- guest side
source "$here/bench-lib.sh"
bench_guest bench-commit
bench_tool XNFT tools/xnft/xnft
T=$(mktemp -d)

log() { echo "[$(date +%T)] $*"; }
err() { echo "BENCH error $*"; }

cleanup() {
	"$XNFT" flush ruleset 2>/dev/null
	nft flush ruleset 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

gen_inputs "$T" || { err "generating the inputs failed"; exit 1; }

for m in bridge nf_tables; do
	modprobe "$m" || err "modprobe $m failed"
done
ip link add br0 type bridge || err "ip link add br0 type bridge"
ip link add xbr0 type xbridge || err "ip link add xbr0 type xbridge"
ip link set br0 up
ip link set xbr0 up

now() { echo "${EPOCHREALTIME/./}"; }	# microseconds
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# tool SIDE - the command of a side
tool() { [[ $1 == xnft ]] && echo "$XNFT" || echo nft; }

# one SIDE FILE ROUND - load, list, flush; BENCH time lines.
one() {
	local side=$1 f=$2 r=$3 cmd t0 t1 t2 t3
	cmd=$(tool "$side")
	t0=$(now)
	$cmd -f "$T/$f.nft" || { err "$side -f $f.nft failed (round $r)"; $cmd flush ruleset; return 1; }
	t1=$(now)
	$cmd list ruleset > "$T/$side-$f.list" || err "$side list ruleset failed (round $r)"
	t2=$(now)
	$cmd flush ruleset || err "$side flush ruleset failed (round $r)"
	t3=$(now)
	echo "BENCH time $side $f load $r $(ms "$t0" "$t1")"
	echo "BENCH time $side $f list $r $(ms "$t1" "$t2")"
	echo "BENCH time $side $f flush $r $(ms "$t2" "$t3")"
	[[ -n $($cmd list ruleset) ]] && err "$side: ruleset not empty after flush ruleset"
	return 0
}

# meminfo - used, slab, percpu, vmalloc (kB) after dropping caches
meminfo() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	awk '/^MemTotal:/ { t = $2 } /^MemFree:/ { f = $2 } /^Buffers:/ { b = $2 }
	     /^Cached:/ { c = $2 } /^Slab:/ { s = $2 } /^Percpu:/ { p = $2 }
	     /^VmallocUsed:/ { v = $2 }
	     END { print t - f - b - c, s, p, v }' /proc/meminfo
}

# memory SIDE FILE - what the loaded file takes in the kernel
memory() {
	local side=$1 f=$2 cmd a b
	cmd=$(tool "$side")
	$cmd flush ruleset
	read -ra a <<<"$(meminfo)"
	$cmd -f "$T/$f.nft" || { err "$side -f $f.nft failed (memory)"; return 1; }
	read -ra b <<<"$(meminfo)"
	$cmd flush ruleset
	echo "BENCH mem $side $f $((b[0] - a[0])) $((b[1] - a[1])) $((b[2] - a[2])) $((b[3] - a[3]))"
}

echo "BENCH info test kernel $(uname -r), $(nproc) vCPUs (TCG), $(awk '/^MemTotal/ { print $2 }' /proc/meminfo) kB;" \
	"$rounds round(s) after a warm-up load of each file per side; $(grep -c 'counter' "$T/rules.nft") counter rules of" \
	"$nrules, $nelems elements; xnft $XNFT"
read -ra files <<<"$files"
log "warm-up (not counted)"
for f in "${files[@]}"; do
	for side in nft xnft; do one "$side" "$f" 0 >/dev/null; done
done
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order=(xnft nft); else order=(nft xnft); fi
	log "round $r: ${order[*]}"
	for f in "${files[@]}"; do
		for side in "${order[@]}"; do one "$side" "$f" "$r"; done
	done
done
for f in "${files[@]}"; do
	if [[ ! -e $T/xnft-$f.list || ! -e $T/nft-$f.list ]]; then
		echo "BENCH same $f no listing to compare (a load failed)"
	elif cmp -s "$T/xnft-$f.list" "$T/nft-$f.list"; then
		echo "BENCH same $f yes $(wc -l < "$T/nft-$f.list") lines"
	else
		echo "BENCH same $f no: $(diff "$T/nft-$f.list" "$T/xnft-$f.list" | grep -c '^[<>]') lines differ of $(wc -l < "$T/nft-$f.list")"
		diff "$T/nft-$f.list" "$T/xnft-$f.list" | head -20
	fi
done
if ((mem)); then
	log "memory"
	for i in 1 2 3; do
		for f in "${files[@]}"; do
			for side in nft xnft; do memory "$side" "$f"; done
		done
	done
fi
log "done"
