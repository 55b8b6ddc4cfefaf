#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-host-tcp.sh - traffic the host itself sends through a bridge: one
# iperf3 TCP stream from the bridge device's address (the guest's root
# namespace) to a namespace behind one port, xbridge.ko against the Linux
# bridge in one boot of the test kernel (issue 16). What it shows is whether
# the bridge device offers scatter-gather, checksum offload and GSO to its
# own stack (br_features_recompute): without them every segment is built
# and checksummed in software before the bridge sees it.
#   x   xbr0 (10.9.1.1) -- xp1 <-> eth0 in namespace xh (10.9.1.2)
#   l   br0  (10.9.2.1) -- lp1 <-> eth0 in namespace lh (10.9.2.2)
# Rounds alternate the two; prints each round's Gbit/s (the receiver's
# figure), the medians, the ratio, and each bridge device's offload
# features as ethtool -k shows them.
#
#   tools/bench-host-tcp.sh [--rounds N] [--secs S] [--module KO] [--kernel SPEC]
#
# Needs build-kmod/xbridge.ko (or --module), iperf3 and ethtool on the host
# (tools/bootstrap.sh). Not a test: not in CI. About 2 minutes of VM.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rounds=5 secs=4 kernel="" guest="" ko=""
while (($#)); do
	case $1 in
	--rounds) rounds=$2; shift 2 ;;
	--secs) secs=$2; shift 2 ;;
	--module) ko=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-host-tcp: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [[ -z $guest ]]; then
	cd "$root" || exit 1
	ko=${ko:-$root/build-kmod/xbridge.ko}
	[[ -e $ko ]] || { echo "bench-host-tcp: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	for t in iperf3 ethtool; do
		command -v $t >/dev/null || { echo "bench-host-tcp: no $t (tools/bootstrap.sh)" >&2; exit 1; }
	done
	out=$(mktemp)
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 --mem 2048 \
		--timeout $((300 + rounds * 2 * (secs + 10))) ${kernel:+--kernel "$kernel"} \
		--module "$ko" -- bash "$root/tools/bench-host-tcp.sh" --guest --rounds "$rounds" \
		--secs "$secs" | tee "$out"
	status=${PIPESTATUS[0]}
	python3 - "$out" <<'EOF'
import statistics, sys
v = {}
for line in open(sys.argv[1], errors="replace"):
    w = line.split()
    if len(w) == 5 and w[0] == "BENCH" and w[1] == "tcp":
        v.setdefault(w[2], []).append(float(w[4]))
if "x" in v and "l" in v:
    x, l = statistics.median(v["x"]), statistics.median(v["l"])
    print("bench-host-tcp: host -> bridge -> namespace, one TCP stream, medians of %d rounds:"
          " xbridge %.2f Gbit/s, Linux %.2f Gbit/s, x/l %.2f" % (len(v["x"]), x, l, x / l))
EOF
	rm -f "$out"
	exit "$status"
fi

source "$here/bench-lib.sh"
bench_guest bench-host-tcp
err() { echo "BENCH error $*"; }
cleanup() {
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	ip netns del xh 2>/dev/null
	ip netns del lh 2>/dev/null
}
trap cleanup EXIT
modprobe veth && modprobe bridge || err "modprobe"

# side T BRCMD N - bridge, port, namespace with an iperf3 server.
side() {
	local t=$1 br=$2 n=$3
	ip netns add ${t}h
	ip link add ${t}p1 type veth peer name eth0 netns ${t}h
	ip -n ${t}h addr add 10.9.$n.2/24 dev eth0
	ip -n ${t}h link set eth0 up
	ip -n ${t}h link set lo up
	ip link set ${t}p1 master $br && ip link set ${t}p1 up || err "${t}p1 master $br"
	ip addr add 10.9.$n.1/24 dev $br
	ip link set $br up
	ip netns exec ${t}h iperf3 -s -D -1 >/dev/null 2>&1 || err "iperf3 -s in ${t}h"
}

ip link add xbr0 type xbridge || err "ip link add xbr0 type xbridge"
ip link add br0 type bridge stp_state 0 || err "ip link add br0"
side x xbr0 1
side l br0 2
sleep 2
for b in xbr0 br0; do
	echo "BENCH info $b: $(ethtool -k $b 2>/dev/null | grep -E '^(scatter-gather|tx-checksumming|tcp-segmentation-offload|generic-segmentation-offload):' | tr -s ' \n' ' ')"
done
ping -c 1 -W 2 10.9.1.2 >/dev/null || err "xbr0 -> xh: no ping"
ping -c 1 -W 2 10.9.2.2 >/dev/null || err "br0 -> lh: no ping"

# run T N ROUND - one iperf3 client run; the receiver's Gbit/s.
run() {
	local t=$1 n=$2 r=$3 g
	ip netns exec ${t}h pkill iperf3 2>/dev/null
	ip netns exec ${t}h iperf3 -s -D -1 >/dev/null 2>&1
	sleep 0.5
	g=$(iperf3 -c 10.9.$n.2 -t "$secs" -J 2>/dev/null | jq -r '.end.sum_received.bits_per_second // empty' 2>/dev/null)
	echo "BENCH tcp $t $r $(awk -v b="${g:-0}" 'BEGIN { printf "%.3f", b / 1e9 }')"
}
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then order="x l"; else order="l x"; fi
	for t in $order; do
		if [[ $t == x ]]; then n=1; else n=2; fi
		run "$t" "$n" "$r"
	done
done
