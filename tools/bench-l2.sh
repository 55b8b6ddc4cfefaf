#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-l2.sh - xbridge.ko against the Linux bridge, plain L2 forwarding in
# the test kernel (issue 16). One boot of tools/vm/run.sh; in it, three
# forwarders stand side by side, each on its own veths (so none is rebuilt
# between rounds):
#   x   xbridge xbr0, vlan_filtering 1, STP off
#   l   the Linux bridge br0, vlan_filtering 1, stp_state 0
#   e   no bridge: the ingress veth's tc ingress `mirred egress redirect` to
#       one egress veth (the ideal forwarder: no learning, no lookup)
# Each forwarder: a veth pair ?gen <-> ?in0 (pktgen sends on ?gen, ?in0 is the
# ingress port) and 8 pairs ?p1..8 <-> ?q1..8 (the egress ports; ?qN drop at
# tc ingress after the veth counted them). Ports carry VIDs 1..V tagged; the
# bridges hold N static FDB entries on VLAN 10, 02:00:00:xx:yy:zz for
# i = 0..N-1 on port p(i % 8 + 1) (installed with `bridge -batch` /
# `xbridge -batch`). pktgen (one thread, clone_skb 0) sends 64-byte 802.1Q
# frames (VID 10, 60 bytes + FCS) to a random one of those N destinations
# (dst_mac_count N, flag MACDST_RND) from one fixed source, so every frame
# refreshes the source's learned entry. Frames/s = the frames the egress
# peers received per second; each row also checks that no frame was flooded
# (received / sent by pktgen ~ 1).
# Per row (N:V), each path is warmed up once (not counted), then the rounds
# run interleaved, the order rotated each round. Prints medians per row:
# frames/s per path, x/l, and each bridge's cost per frame over (e),
# 1/rate - 1/rate_e in ns, with the ratio of those costs.
#
# With --two, every round also runs each path on both vCPUs: a second pktgen
# thread (kpktgend_1) sends the same kind of frames, from another fixed
# source, into a second ingress port ?in1 (its peer ?gen2); the paths x2, l2,
# e2 are printed beside x, l, e with each one's scaling (two-CPU rate over
# one-CPU rate).
#
#   tools/bench-l2.sh [--quick] [--rounds N] [--secs S] [--rows "N:V ..."]
#                     [--no-warmup] [--profile] [--two] [--kernel SPEC] [--out FILE]
#   tools/bench-l2.sh --summarize FILE     # the table of a saved run
#
# Default rows "4096:64 4096:1024 64:64 1048576:64", 5 rounds of 3 s (about
# 9 minutes in all under TCG). --quick: row 4096:64 only, one 2 s round, no
# warm-up (does it work). --profile: after the rounds, `perf record -e
# cpu-clock -a` for 3 s on each bridge in the first row, top symbols printed.
# Needs build-kmod/xbridge.ko (bash kmod-shim/build.sh build-kmod) and the
# xbridge tool in build/ (or $XBRIDGE). Raw results go to --out (default
# build-vm/bench-l2.out). Not a test: it is not in CI.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rounds=5 secs=3 warmup=1 kernel="" out="" guest="" profile=0 two=0
rows="4096:64 4096:1024 64:64 1048576:64"
while (($#)); do
	case $1 in
	--quick) rounds=1; secs=2; warmup=0; rows="4096:64"; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--rows) rows=$2; shift 2 ;;
	--no-warmup) warmup=0; shift ;;
	--profile) profile=1; shift ;;
	--two) two=1; shift ;;
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	--summarize) summarize_only=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-l2: unknown argument $1" >&2; exit 2 ;;
	esac
done

# summarize FILE - the table, from the BENCH lines of a run.
summarize() {
	python3 - "$1" <<'EOF'
import statistics, sys
vals, sent, info, order = {}, {}, [], []
for line in open(sys.argv[1], errors="replace"):
    line = line.strip().replace("\r", "")
    i = line.find("BENCH ")
    if i < 0:
        continue
    w = line[i:].split()
    if w[1] == "fps" and len(w) == 7:
        row, p, r, fps, ratio = w[2], w[3], int(w[4]), float(w[5]), float(w[6])
        if row not in order:
            order.append(row)
        if r > 0:                               # round 0 is the warm-up
            vals.setdefault((row, p), []).append(fps)
            sent.setdefault((row, p), []).append(ratio)
    elif w[1] in ("info", "error"):
        info.append(" ".join(w[1:]))
def med(row, p):
    v = vals.get((row, p))
    return statistics.median(v) if v else None
def spread(row, p):
    v = vals.get((row, p))
    if not v:
        return "-"
    m = statistics.median(v)
    return "%+.0f/%+.0f%%" % ((min(v) / m - 1) * 100, (max(v) / m - 1) * 100)
def cost(row, p):
    r, e = med(row, p), med(row, "e")
    return (1e9 / r - 1e9 / e) if r and e else None
def f(x, fmt):
    return format(x, fmt) if x is not None else "-"
def rowname(row):
    n, v = row.split(":")
    n = int(n)
    n = "%dM" % (n >> 20) if n >= 1 << 20 and n % (1 << 20) == 0 else str(n)
    return "%s FDB, %s VIDs" % (n, v)
n = max((len(v) for v in vals.values()), default=0)
print("bench-l2: medians of %d round(s); 64-byte 802.1Q frames from pktgen (1 thread), "
      "random static-FDB destinations over 8 ports, fixed source" % n)
print()
print("%-20s %-9s %12s %11s %8s   %s" % ("row", "path", "frames/s", "spread", "rx/sent", "rounds (kframes/s)"))
names = (("x", "xbridge"), ("l", "Linux"), ("e", "mirred"),
         ("x2", "xbridge*2"), ("l2", "Linux*2"), ("e2", "mirred*2"))
for row in order:
    for p, name in names:
        if (row, p) not in vals:
            continue
        s = sent[(row, p)]
        print("%-20s %-9s %12s %11s %8.3f   %s" % (
            rowname(row) if p == "x" else "", name, f(med(row, p), ",.0f"), spread(row, p),
            statistics.median(s), " ".join("%.1f" % (x / 1e3) for x in vals[(row, p)])))
print()
print("%-20s %8s %10s %10s %10s  %s" % ("row", "x/l fps", "x cost ns", "l cost ns", "cost x/l",
      "targets: x/l >= 1.15, cost x/l <= 0.7"))
for row in order:
    x, l = med(row, "x"), med(row, "l")
    cx, cl = cost(row, "x"), cost(row, "l")
    r1 = x / l if x and l else None
    r2 = cx / cl if cx is not None and cl else None
    ok = "-" if r1 is None or r2 is None else \
        ("met" if r1 >= 1.15 and r2 <= 0.7 else "NOT met")
    print("%-20s %8s %10s %10s %10s  %s" % (rowname(row), f(r1, ".2f"), f(cx, ".0f"),
          f(cl, ".0f"), f(r2, ".2f"), ok))
if any((row, "x2") in vals for row in order):
    print()
    print("%-20s %14s %14s %14s   two CPUs: rate with two pktgen threads / rate with one" % (
          "row", "xbridge x2/x1", "Linux x2/x1", "mirred x2/x1"))
    for row in order:
        def sc(p):
            a, b = med(row, p + "2"), med(row, p)
            return "%.2f" % (a / b) if a and b else "-"
        print("%-20s %14s %14s %14s" % (rowname(row), sc("x"), sc("l"), sc("e")))
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
	ko=$root/build-kmod/xbridge.ko
	[[ -e $ko ]] || { echo "bench-l2: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	command -v python3 >/dev/null || { echo "bench-l2: no python3" >&2; exit 1; }
	out=${out:-$root/build-vm/bench-l2.out}
	mkdir -p "$(dirname "$out")"
	nrows=$(wc -w <<<"$rows")
	# boot ~1 min; per row 3 paths x (warm-up + rounds) x (secs + ~2 s), the
	# installs (1M entries: minutes); generous, it is only a guard.
	npaths=3
	((two)) && npaths=6
	timeout=$((300 + nrows * (600 + npaths * (rounds + warmup) * (secs + 4) * 2)))
	args=(--rounds "$rounds" --secs "$secs" --rows "$rows")
	((warmup)) || args+=(--no-warmup)
	((profile)) && args+=(--profile)
	((two)) && args+=(--two)
	start=$(date +%s)
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 --mem 3072 \
		--timeout "$timeout" ${kernel:+--kernel "$kernel"} \
		--env XBRIDGE="${XBRIDGE:-}" --env XBRIDGE_VM_PIN_KEYS=0 \
		--module "$ko" -- bash "$root/tools/bench-l2.sh" --guest "${args[@]}" |
		tee "$out"
	status=${PIPESTATUS[0]}
	echo
	summarize "$out"
	echo "wall time $(($(date +%s) - start)) s, vm status $status, raw results in $out"
	exit "$status"
fi

# ----------------------------------------------------------------- guest side
source "$here/bench-lib.sh"
bench_guest bench-l2
bench_tool XB tools/xbridge/xbridge
T=$(mktemp -d)
SRC=02:00:01:00:00:01 SRC2=02:00:01:00:00:02 VID=10 NPORTS=8 INSTALL_MAX=150

log() { echo "[$(date +%T)] $*"; }
err() { echo "BENCH error $*"; }

pgctl() { echo "$1" > /proc/net/pktgen/pgctrl; }
pg() { echo "$1" > "/proc/net/pktgen/$2" || err "pktgen $2: $1"; }

cleanup() {
	pgctl stop 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	for t in x l e; do
		ip link del dev ${t}gen 2>/dev/null
		ip link del dev ${t}gen2 2>/dev/null
		for i in $(seq $NPORTS); do ip link del dev ${t}p$i 2>/dev/null; done
	done
	rm -rf "$T"
}
trap cleanup EXIT

for m in veth bridge pktgen sch_ingress act_mirred act_gact cls_matchall; do
	modprobe "$m" || err "modprobe $m failed"
done
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

# The veths of the three forwarders; the egress peers drop at tc ingress.
for t in x l e; do
	ip link add name ${t}gen type veth peer name ${t}in0
	ip link add name ${t}gen2 type veth peer name ${t}in1
	for i in $(seq $NPORTS); do
		ip link add name ${t}p$i type veth peer name ${t}q$i
		tc qdisc add dev ${t}q$i clsact
		tc filter add dev ${t}q$i ingress matchall action drop || err "tc drop on ${t}q$i"
	done
	for d in ${t}gen ${t}in0 ${t}gen2 ${t}in1 $(for i in $(seq $NPORTS); do echo ${t}p$i ${t}q$i; done); do
		ip link set dev $d up
	done
done
tc qdisc add dev ein0 clsact
tc filter add dev ein0 ingress matchall action mirred egress redirect dev ep1 ||
	err "tc mirred ein0 -> ep1"
tc qdisc add dev ein1 clsact
tc filter add dev ein1 ingress matchall action mirred egress redirect dev ep2 ||
	err "tc mirred ein1 -> ep2"

# fdbfile FILE N PREFIX - the static entries, as -batch lines.
fdbfile() {
	awk -v n="$2" -v t="$3" -v np=$NPORTS -v vid=$VID 'BEGIN {
		for (i = 0; i < n; i++)
			printf "fdb add 02:00:00:%02x:%02x:%02x dev %sp%d master static vlan %d\n",
				int(i / 65536) % 256, int(i / 256) % 256, i % 256, t, i % np + 1, vid
	}' > "$1"
}

# bridges N V - both bridges afresh: the ports, VIDs 1..V, N static entries.
bridges() {
	local n=$1 v=$2 t0 t1 i
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	ip link add br0 type bridge vlan_filtering 1 stp_state 0 || { err "ip link add br0"; return 1; }
	ip link add xbr0 type xbridge || { err "ip link add xbr0 type xbridge"; return 1; }
	"$XB" link set dev xbr0 vlan_filtering 1 || { err "xbr0 vlan_filtering 1"; return 1; }
	for t in x l; do
		local br=br0
		[[ $t == x ]] && br=xbr0
		for d in ${t}in0 ${t}in1 $(for i in $(seq $NPORTS); do echo ${t}p$i; done); do
			ip link set dev $d master $br || { err "$d master $br"; return 1; }
			echo "vlan add dev $d vid 1-$v"
		done > "$T/$t.batch"
		ip link set $br up
	done
	fdbfile "$T/fdb-x" "$n" x
	fdbfile "$T/fdb-l" "$n" l
	t0=$(date +%s%N)
	bridge -batch "$T/l.batch" && timeout "$INSTALL_MAX" bridge -batch "$T/fdb-l" || { err "bridge -batch ($n:$v)"; return 1; }
	t1=$(date +%s%N)
	echo "BENCH info $n:$v Linux: VIDs and $n static entries installed in $(((t1 - t0) / 1000000)) ms" \
		"($(bridge fdb show br br0 | grep -c static) static)"
	t0=$(date +%s%N)
	"$XB" -batch "$T/x.batch" && timeout "$INSTALL_MAX" "$XB" -batch "$T/fdb-x" || { err "xbridge -batch ($n:$v)"; return 1; }
	t1=$(date +%s%N)
	echo "BENCH info $n:$v xbridge: VIDs and $n static entries installed in $(((t1 - t0) / 1000000)) ms" \
		"($("$XB" fdb show br xbr0 | grep -c static) static)"
	rm -f "$T/fdb-x" "$T/fdb-l"
}

rxsum() {
	local t=$1 i
	for i in $(seq $NPORTS); do echo /sys/class/net/${t}q$i/statistics/rx_packets; done |
		xargs cat | awk '{ s += $1 } END { print s }'
}

# pgdev THREAD DEV SRC N - DEV on pktgen thread THREAD, frames from SRC to
# random ones of the N destinations.
pgdev() {
	local th=$1 dev=$2 src=$3 n=$4 c
	pg rem_device_all kpktgend_$th
	pg "add_device $dev" kpktgend_$th
	for c in "count 0" "clone_skb 0" "burst 1" "pkt_size 60" "delay 0" \
		"dst 10.0.0.2" "src_min 10.0.0.1" "src_max 10.0.0.1" "src_mac $src" \
		"dst_mac 02:00:00:00:00:00" "dst_mac_count $n" "flag MACDST_RND" \
		"vlan_id $VID" "udp_src_min 9" "udp_src_max 9" "udp_dst_min 9" "udp_dst_max 9"; do
		pg "$c" $dev
	done
}

# run PATH ROW ROUND SECS N - pktgen on ?gen for 0.5 s, then SECS measured.
# PATH x2, l2 or e2: ?gen on kpktgend_0 and ?gen2 on kpktgend_1 at once.
run() {
	local t=${1%2} p=$1 row=$2 r=$3 s=$4 n=$5 a0 t0 r0 t1 r1 a1 pid sent sent2
	pgdev 0 ${t}gen $SRC "$n"
	if [[ $p == *2 ]]; then
		pgdev 1 ${t}gen2 $SRC2 "$n"
	else
		pg rem_device_all kpktgend_1
	fi
	a0=$(rxsum $t)
	pgctl start &
	pid=$!
	sleep 0.5
	t0=$(date +%s%N) r0=$(rxsum $t)
	sleep "$s"
	t1=$(date +%s%N) r1=$(rxsum $t)
	pgctl stop
	wait $pid
	sleep 0.1
	a1=$(rxsum $t)
	sent=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' /proc/net/pktgen/${t}gen)
	if [[ $p == *2 ]]; then
		sent2=$(sed -n 's/.*pkts-sofar: \([0-9]*\).*/\1/p' /proc/net/pktgen/${t}gen2)
		sent=$((${sent:-0} + ${sent2:-0}))
	fi
	echo "BENCH fps $row $p $r $(awk -v n=$((r1 - r0)) -v d=$((t1 - t0)) -v a=$((a1 - a0)) -v s="${sent:-0}" \
		'BEGIN { printf "%.1f %.4f", n * 1e9 / d, s ? a / s : 0 }')"
}

# profile PATH ROW N - perf cpu-clock samples of the whole guest while
# pktgen runs on PATH; the top symbols.
profile() {
	local t=$1 n=$3
	command -v perf >/dev/null || { err "no perf in the guest"; return 1; }
	sysctl -qw kernel.perf_event_paranoid=-1 kernel.kptr_restrict=0
	# perf first (it takes seconds to start under TCG, over 9p), pktgen
	# inside its window; the window is longer than the run, so read the
	# shares against the idle share.
	perf record -q -e cpu-clock -a -o "$T/perf.data" -- sleep 12 >/dev/null 2>&1 &
	sleep 5
	run "$t" "$2" -1 4 "$n" >/dev/null
	wait
	echo "BENCH profile $t ($2):"
	perf report -q -i "$T/perf.data" --sort sym --stdio 2>/dev/null | grep -v '^$' | head -30 |
		sed 's/^/BENCH prof /'
}

read -ra rowlist <<<"$rows"
paths=(x l e)
((two)) && paths+=(x2 l2 e2)
echo "BENCH info test kernel $(uname -r), $(nproc) vCPUs (TCG); $rounds round(s) of $secs s after $warmup warm-up run(s) per path and row; rows N:V = FDB entries:VIDs per port"
for row in "${rowlist[@]}"; do
	n=${row%:*} v=${row#*:}
	log "row $row: installing"
	bridges "$n" "$v" || continue
	if ((warmup)); then
		log "row $row: warm-up"
		for p in "${paths[@]}"; do run "$p" "$row" 0 1 "$n"; done
	fi
	for ((r = 1; r <= rounds; r++)); do
		k=$(((r - 1) % ${#paths[@]}))
		order=("${paths[@]:$k}" "${paths[@]:0:$k}")
		log "row $row round $r: ${order[*]}"
		for p in "${order[@]}"; do run "$p" "$row" "$r" "$secs" "$n"; done
	done
	if ((profile)) && [[ $row == "${rowlist[0]}" ]]; then
		for p in x l; do profile "$p" "$row" "$n"; done
	fi
done
log "done"
