#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-fdb-latency.sh - what a large FDB's housekeeping costs other traffic:
# xbridge.ko against the Linux bridge in one boot of the test kernel (issue 16).
# Per bridge: a flood port (pktgen, N frames from N distinct sources, so the
# FDB learns N entries) and two namespaces h1, h2 behind two more ports that
# ping each other every 10 ms through the bridge while
#   idle     nothing else happens (the baseline)
#   dump     an FDB dump filtered to h1's port (`fdb show br BR dev P`: it
#            matches a few entries and walks all N) runs back to back
#   ageing   ageing_time drops to 1 s and the N learned entries expire
# and prints the pings' average and worst round-trip time in each phase.
#
#   tools/bench-fdb-latency.sh [--entries N] [--module KO] [--kernel SPEC]
#
# Default N = 1048576. Needs build-kmod/xbridge.ko (or --module) and the
# xbridge tool in build/. Not a test: not in CI. About 5 minutes of VM.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

entries=1048576 kernel="" guest="" ko=""
while (($#)); do
	case $1 in
	--entries) entries=$2; shift 2 ;;
	--module) ko=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-fdb-latency: unknown argument $1" >&2; exit 2 ;;
	esac
done

if [[ -z $guest ]]; then
	cd "$root" || exit 1
	ko=${ko:-$root/build-kmod/xbridge.ko}
	[[ -e $ko ]] || { echo "bench-fdb-latency: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 --mem 3072 \
		--timeout 1800 ${kernel:+--kernel "$kernel"} --env XBRIDGE="${XBRIDGE:-}" \
		--module "$ko" -- bash "$root/tools/bench-fdb-latency.sh" --guest --entries "$entries"
	status=$?
	echo "module $ko"
	exit "$status"
fi

[[ -n ${XBRIDGE_VM:-} ]] || { echo "bench-fdb-latency: --guest runs in the test kernel only" >&2; exit 2; }
XB=${XBRIDGE:-}
for d in build build-test build-tool build-dev; do
	[[ -z $XB && -x $root/$d/tools/xbridge/xbridge ]] && XB=$root/$d/tools/xbridge/xbridge
done
[[ -x $XB ]] || { echo "BENCH error no xbridge tool in build/"; exit 1; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
T=$(mktemp -d)
err() { echo "BENCH error $*"; }
log() { echo "[$(date +%T)] $*"; }
cleanup() {
	echo stop > /proc/net/pktgen/pgctrl 2>/dev/null
	[[ -n ${dump_pid:-} ]] && kill "$dump_pid" 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	for t in x l; do
		ip link del ${t}gen 2>/dev/null
		ip netns del ${t}h1 2>/dev/null
		ip netns del ${t}h2 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
for m in veth bridge pktgen; do modprobe $m || err "modprobe $m"; done
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

pg() { echo "$1" > "/proc/net/pktgen/$2" || err "pktgen $2: $1"; }

# build T BR - the bridge, its flood port and the two pinging namespaces.
build() {
	local t=$1 br=$2 i
	if [[ $t == x ]]; then
		ip link add xbr0 type xbridge || err "xbr0"
	else
		ip link add br0 type bridge stp_state 0 || err "br0"
	fi
	ip link add ${t}gen type veth peer name ${t}in
	ip link set ${t}in master $br && ip link set ${t}in up && ip link set ${t}gen up
	for i in 1 2; do
		ip netns add ${t}h$i
		ip link add ${t}p$i type veth peer name eth0 netns ${t}h$i
		ip -n ${t}h$i addr add 10.8.0.$i/24 dev eth0
		ip -n ${t}h$i link set eth0 up
		ip link set ${t}p$i master $br && ip link set ${t}p$i up
	done
	ip link set $br up
}

# flood T - N frames from N sequential source MACs into ?in.
flood() {
	local t=$1 c
	pg rem_device_all kpktgend_0
	pg "add_device ${t}gen" kpktgend_0
	for c in "count $entries" "clone_skb 0" "burst 1" "pkt_size 60" "delay 0" \
		"dst 10.0.0.2" "src_min 10.0.0.1" "src_max 10.0.0.1" \
		"src_mac 02:10:00:00:00:00" "src_mac_count $entries" \
		"dst_mac 02:20:00:00:00:01"; do
		pg "$c" ${t}gen
	done
	echo start > /proc/net/pktgen/pgctrl
}

# count T BR - FDB entries of the bridge.
count() {
	if [[ $1 == x ]]; then
		"$XB" fdb show br xbr0 | wc -l
	else
		bridge fdb show br br0 | wc -l
	fi
}

# phase T NAME SECS CMD... - ping h1 -> h2 every 10 ms for SECS while CMD
# runs in a loop (none: idle); the RTT average and maximum.
phase() {
	local t=$1 name=$2 secs=$3 line
	shift 3
	dump_pid=""
	if (($#)); then
		( while :; do "$@" >/dev/null 2>&1; done ) &
		dump_pid=$!
	fi
	line=$(ip netns exec ${t}h1 ping -q -i 0.01 -w "$secs" 10.8.0.2 | tail -1)
	[[ -n $dump_pid ]] && { kill "$dump_pid" 2>/dev/null; wait "$dump_pid" 2>/dev/null; }
	dump_pid=""
	# rtt min/avg/max/mdev = a/b/c/d ms
	echo "BENCH rtt $t $name $(awk -F'[/ =]+' '{ print $7, $8 }' <<<"$line")"
}

for t in x l; do
	br=br0
	[[ $t == x ]] && br=xbr0
	log "$t: building"
	build $t $br
	ip netns exec ${t}h1 ping -c 2 -W 2 10.8.0.2 >/dev/null || err "$t: h1 cannot ping h2"
	log "$t: flooding $entries sources"
	flood $t
	echo "BENCH info $t: $(count $t) FDB entries after the flood"
	phase $t idle 3
	if [[ $t == x ]]; then
		phase $t dump 5 "$XB" fdb show br xbr0 dev xp1
		"$XB" link set dev xbr0 ageing_time 100 || err "xbr0 ageing_time"
	else
		phase $t dump 5 bridge fdb show br br0 dev lp1
		ip link set br0 type bridge ageing_time 100 || err "br0 ageing_time"
	fi
	phase $t ageing 8
	echo "BENCH info $t: $(count $t) FDB entries after ageing"
	ip link del $br
	ip link del ${t}gen 2>/dev/null
done
log "done"
