#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-config.sh - how long configuration holds RTNL: xbridge.ko against the
# Linux bridge in one boot of the test kernel (issue 16). Per round and
# bridge, each step timed as one `ip -batch` / `bridge -batch` /
# `xbridge -batch` (one process, one netlink request per line, each under
# RTNL):
#   ports+    256 veths enslaved one by one (`link set dev vN master BR`)
#   ports-    the 256 released one by one (`link set dev vN nomaster`)
#   vlans+    4,094 VLANs added to one port one VID per request
#   vlans-    the 4,094 deleted one by one
#   pvid      the bridge's default_pvid moved 64 times over 16 ports (each
#             move deletes and adds a VLAN on every port)
#   destroy   `ip link del` of the bridge with 256 ports and 64 VIDs each
# and the memory of 16 ports x 4,094 VIDs (VIDs 1-4094 added to 16 ports, the
# growth of Percpu and of Slab+VmallocUsed in /proc/meminfo).
# Meanwhile a probe measures what that costs everyone else: `ip link show dev
# lo` (it takes RTNL) run back to back, its worst and median latency.
# The rounds alternate the two bridges; medians are printed, per step: ms for
# each bridge, x/l, and the probe's worst latency during each.
#
#   tools/bench-config.sh [--rounds N] [--module KO] [--kernel SPEC] [--out FILE]
#   tools/bench-config.sh --summarize FILE
#
# Needs build-kmod/xbridge.ko (or --module) and the xbridge tool in build/.
# Not a test: not in CI. About 10 minutes of VM for 3 rounds under TCG.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rounds=3 kernel="" out="" guest="" ko=""
while (($#)); do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--module) ko=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	--summarize) summarize_only=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-config: unknown argument $1" >&2; exit 2 ;;
	esac
done

summarize() {
	python3 - "$1" <<'EOF'
import statistics, sys
ms, probe, order, info, mem = {}, {}, [], [], {}
for line in open(sys.argv[1], errors="replace"):
    line = line.strip().replace("\r", "")
    i = line.find("BENCH ")
    if i < 0:
        continue
    w = line[i:].split()
    if w[1] == "step" and len(w) == 8:
        step, br, r, t, pmax, pmed = w[2], w[3], int(w[4]), float(w[5]), float(w[6]), float(w[7])
        if step not in order:
            order.append(step)
        ms.setdefault((step, br), []).append(t)
        probe.setdefault((step, br), []).append((pmax, pmed))
    elif w[1] == "mem" and len(w) == 6:
        mem.setdefault(w[2], []).append((float(w[4]), float(w[5])))
    elif w[1] in ("info", "error"):
        info.append(" ".join(w[1:]))
def med(v):
    return statistics.median(v) if v else None
n = max((len(v) for v in ms.values()), default=0)
print("bench-config: medians of %d round(s); ms per step (one batch of netlink requests), and the"
      " worst / median latency of `ip link show dev lo` meanwhile" % n)
print()
print("%-9s %10s %10s %7s   %17s %17s" % ("step", "xbridge ms", "Linux ms", "x/l",
      "probe x max/med", "probe l max/med"))
for step in order:
    x, l = med(ms.get((step, "x"), [])), med(ms.get((step, "l"), []))
    def p(br):
        v = probe.get((step, br), [])
        if not v:
            return "-"
        return "%.0f / %.0f ms" % (med([a for a, _ in v]), med([b for _, b in v]))
    print("%-9s %10s %10s %7s   %17s %17s" % (step, "%.0f" % x if x else "-", "%.0f" % l if l else "-",
          "%.2f" % (x / l) if x and l else "-", p("x"), p("l")))
if mem:
    print()
    print("memory of 16 ports x 4,094 VIDs (KiB, medians): %s" % ", ".join(
        "%s per-CPU %.0f, slab+vmalloc %.0f" % ({"x": "xbridge", "l": "Linux"}[b],
        med([a for a, _ in v]), med([c for _, c in v])) for b, v in sorted(mem.items(), reverse=True)))
for l in info:
    print(l)
EOF
}

if [[ -n ${summarize_only:-} ]]; then
	summarize "$summarize_only"
	exit
fi

# ------------------------------------------------------------------ host side
if [[ -z $guest ]]; then
	cd "$root" || exit 1
	ko=${ko:-$root/build-kmod/xbridge.ko}
	[[ -e $ko ]] || { echo "bench-config: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	out=${out:-$root/build-vm/bench-config.out}
	mkdir -p "$(dirname "$out")"
	start=$(date +%s)
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 --mem 2048 \
		--timeout $((600 + rounds * 900)) ${kernel:+--kernel "$kernel"} \
		--env XBRIDGE="${XBRIDGE:-}" \
		--module "$ko" -- bash "$root/tools/bench-config.sh" --guest --rounds "$rounds" |
		tee "$out"
	status=${PIPESTATUS[0]}
	echo
	summarize "$out"
	echo "wall time $(($(date +%s) - start)) s, vm status $status, module $ko, raw results in $out"
	exit "$status"
fi

# ----------------------------------------------------------------- guest side
source "$here/bench-lib.sh"
bench_guest bench-config
bench_tool XB tools/xbridge/xbridge
T=$(mktemp -d)
NPORTS=256 NVIDS=4094 PVID_MOVES=64 PVID_PORTS=16 DESTROY_VIDS=64

log() { echo "[$(date +%T)] $*"; }
err() { echo "BENCH error $*"; }

cleanup() {
	[[ -n ${probe_pid:-} ]] && kill "$probe_pid" 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

modprobe veth && modprobe bridge || err "modprobe veth bridge"
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

log "creating $NPORTS veth pairs"
for i in $(seq $NPORTS); do
	echo "link add name v$i type veth peer name w$i"
done > "$T/veths"
ip -batch "$T/veths" || err "veths"
for i in $(seq $NPORTS); do echo "link set dev v$i up"; done > "$T/up"
ip -batch "$T/up" || err "veths up"

# probe_start / probe_stop - `ip link show dev lo` back to back in the
# background; probe_stop prints "max median" in ms.
probe_start() {
	rm -f "$T/probe"
	(
		while :; do
			t0=$(date +%s%N)
			ip link show dev lo >/dev/null
			echo $((($(date +%s%N) - t0) / 1000)) >> "$T/probe"
		done
	) &
	probe_pid=$!
	sleep 0.2
}
probe_stop() {
	kill "$probe_pid" 2>/dev/null
	wait "$probe_pid" 2>/dev/null
	probe_pid=""
	sort -n "$T/probe" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 0"; exit }
		printf "%.1f %.1f", v[NR] / 1000, v[int((NR + 1) / 2)] / 1000 }'
}

# step NAME BR ROUND CMD... - time CMD with the probe running.
step() {
	local name=$1 br=$2 r=$3 t0 t1 p
	shift 3
	probe_start
	t0=$(date +%s%N)
	"$@" >/dev/null || err "$name $br round $r: $*"
	t1=$(date +%s%N)
	p=$(probe_stop)
	echo "BENCH step $name $br $r $(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", d / 1e6 }') $p"
}

mkbridge() {
	if [[ $1 == x ]]; then
		ip link add xbr0 type xbridge && "$XB" link set dev xbr0 vlan_filtering 1
	else
		ip link add br0 type bridge vlan_filtering 1 stp_state 0
	fi
}

# tool X|L - the bridge command of each.
tool() { if [[ $1 == x ]]; then echo "$XB"; else echo bridge; fi; }

one_round() {
	local t=$1 r=$2 br=br0 tl i
	[[ $t == x ]] && br=xbr0
	tl=$(tool "$t")
	mkbridge "$t" || { err "create $br"; return 1; }
	ip link set dev "$br" up

	for i in $(seq $NPORTS); do echo "link set dev v$i master $br"; done > "$T/add"
	for i in $(seq $NPORTS); do echo "link set dev v$i nomaster"; done > "$T/del"
	step ports+ "$t" "$r" ip -batch "$T/add"
	step ports- "$t" "$r" ip -batch "$T/del"

	ip link set dev v1 master "$br" || err "v1 master $br"
	for i in $(seq $NVIDS); do echo "vlan add dev v1 vid $i"; done > "$T/vadd"
	for i in $(seq $NVIDS); do echo "vlan del dev v1 vid $i"; done > "$T/vdel"
	step vlans+ "$t" "$r" "$tl" -batch "$T/vadd"
	step vlans- "$t" "$r" "$tl" -batch "$T/vdel"

	for i in $(seq 2 $PVID_PORTS); do ip link set dev v$i master "$br" || err "v$i master $br"; done
	for i in $(seq $PVID_MOVES); do
		if [[ $t == x ]]; then
			echo "link set dev $br vlan_default_pvid $((i % 2 + 2))"
		else
			echo "link set dev $br type bridge vlan_default_pvid $((i % 2 + 2))"
		fi
	done > "$T/pvid"
	if [[ $t == x ]]; then
		step pvid "$t" "$r" "$XB" -batch "$T/pvid"
	else
		step pvid "$t" "$r" ip -batch "$T/pvid"
	fi

	for i in $(seq $((PVID_PORTS + 1)) $NPORTS); do echo "link set dev v$i master $br"; done > "$T/add2"
	ip -batch "$T/add2" || err "re-enslave for destroy"
	for i in $(seq $NPORTS); do echo "vlan add dev v$i vid 100-$((99 + DESTROY_VIDS))"; done > "$T/dv"
	"$tl" -batch "$T/dv" >/dev/null || err "VLANs for destroy"
	step destroy "$t" "$r" ip link del dev "$br"
}

meminfo() { awk '/^Percpu:/ { p = $2 } /^Slab:/ { s = $2 } /^VmallocUsed:/ { v = $2 }
	END { print p, s + v }' /proc/meminfo; }

# memory BR ROUND - what VIDs 1-4094 on 16 ports cost.
memory() {
	local t=$1 r=$2 br=br0 tl i m p0 s0 p1 s1
	[[ $t == x ]] && br=xbr0
	tl=$(tool "$t")
	mkbridge "$t" || { err "create $br"; return 1; }
	for i in $(seq 16); do ip link set dev v$i master "$br" || err "v$i master $br"; done
	for i in $(seq 16); do echo "vlan add dev v$i vid 1-4094"; done > "$T/mem"
	sleep 1
	m=$(meminfo) p0=${m% *} s0=${m#* }
	"$tl" -batch "$T/mem" >/dev/null || err "memory VIDs $br"
	sleep 1
	m=$(meminfo) p1=${m% *} s1=${m#* }
	echo "BENCH mem $t $r $((p1 - p0)) $((s1 - s0))"
	ip link del dev "$br"
}

echo "BENCH info test kernel $(uname -r), $(nproc) vCPUs (TCG); $rounds round(s) per bridge, alternating"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order=(x l); else order=(l x); fi
	for t in "${order[@]}"; do
		log "round $r: $t"
		one_round "$t" "$r"
		memory "$t" "$r"
	done
done
log "done"
