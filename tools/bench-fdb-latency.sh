#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-fdb-latency.sh - what a large FDB's housekeeping costs other traffic:
# xbridge.ko against the Linux bridge in one boot of the test kernel (issue 16).
# Per bridge: a flood port (pktgen, N frames from N distinct sources, so the
# FDB learns N entries) and two namespaces h1, h2 behind two more ports. In
# each phase, on vCPU 1, h1 pings h2 every 10 ms through the bridge and a
# second pktgen thread sends 100,000 frames from new sources into a second
# flood port (each one an entry created under the FDB lock), while on vCPU 0
#   idle     nothing else happens (the baseline)
#   dump     an FDB dump filtered to h1's port (`fdb show br BR dev P`: it
#            matches a few entries and walks all N) runs back to back
#   ageing   ageing_time drops to 1 s and the N learned entries expire
# and prints the pings' average and worst round-trip time and the rate at
# which the new sources were learned and forwarded.
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

source "$here/bench-lib.sh"
bench_guest bench-fdb-latency
bench_tool XB tools/xbridge/xbridge
T=$(mktemp -d)
err() { echo "BENCH error $*"; }
log() { echo "[$(date +%T)] $*"; }
cleanup() {
	echo stop > /proc/net/pktgen/pgctrl 2>/dev/null
	[[ -n ${dump_pid:-} ]] && kill "$dump_pid" 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	for t in x l; do
		ip link del dev ${t}gen 2>/dev/null
		ip link del dev ${t}gen2 2>/dev/null
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
	# `dev` before every name: ip takes a bare "lin" for its "link" keyword
	ip link add name ${t}gen type veth peer name ${t}in
	ip link set dev ${t}in master $br && ip link set dev ${t}in up &&
		ip link set dev ${t}gen up || err "${t}in master $br"
	ip link add name ${t}gen2 type veth peer name ${t}in2
	ip link set dev ${t}in2 master $br && ip link set dev ${t}in2 up &&
		ip link set dev ${t}gen2 up || err "${t}in2 master $br"
	for i in 1 2; do
		ip netns add ${t}h$i
		ip link add name ${t}p$i type veth peer name eth0 netns ${t}h$i
		ip -n ${t}h$i addr add 10.8.0.$i/24 dev eth0
		ip -n ${t}h$i link set eth0 up
		ip link set dev ${t}p$i master $br && ip link set dev ${t}p$i up
	done
	ip link set $br up
}

# pgidle TH - wait until pktgen thread TH has let go of its devices (its
# rem_device_all takes effect lazily).
pgidle() {
	local i
	for i in $(seq 50); do
		grep -q 'Running: *$' /proc/net/pktgen/kpktgend_$1 2>/dev/null &&
			! grep -q 'Stopped: *[a-z]' /proc/net/pktgen/kpktgend_$1 && return 0
		sleep 0.1
	done
}

# flood TH DEV COUNT SRC - COUNT frames from COUNT sequential source MACs
# (from SRC) out of DEV, on pktgen thread TH; waits for the end.
flood() {
	local th=$1 dev=$2 n=$3 src=$4 c
	pg rem_device_all kpktgend_$th
	pgidle $th
	pg "add_device $dev" kpktgend_$th
	for c in "count $n" "clone_skb 0" "burst 1" "pkt_size 60" "delay 0" \
		"dst 10.0.0.2" "src_min 10.0.0.1" "src_max 10.0.0.1" \
		"src_mac $src" "src_mac_count $n" "dst_mac 02:20:00:00:00:01"; do
		pg "$c" $dev
	done
	echo start > /proc/net/pktgen/pgctrl
	# `start` restarts every thread's devices: leave none behind (stopped
	# first, or pktgen warns of removing a running one)
	echo stop > /proc/net/pktgen/pgctrl
	pg rem_device_all kpktgend_$th
	pgidle $th
}

# count T - FDB entries of the bridge (xbridge's own count: a dump taken
# while the table still grows may repeat entries, as an rtnetlink one may).
count() {
	if [[ $1 == x ]]; then
		"$XB" -j link show dev xbr0 | jq '.[0].fdb_n_entries'
	else
		bridge fdb show br br0 | wc -l
	fi
}

# phase T NAME SECS CMD... - on vCPU 1, ping h1 -> h2 every 10 ms for SECS
# and a flood of 100,000 new sources (pktgen thread 1) into ?in2; on vCPU 0,
# CMD in a loop (none: idle). The RTT average and maximum, the new sources'
# frames/s.
NEW=100000
phase() {
	local t=$1 name=$2 secs=$3 line t0 t1 gen=$((++phase_no))
	shift 3
	dump_pid=""
	if (($#)); then
		( while :; do taskset -c 0 "$@" >/dev/null 2>&1; done ) &
		dump_pid=$!
		sleep 0.5
	fi
	ip netns exec ${t}h1 taskset -c 1 ping -q -i 0.01 -w "$secs" 10.8.0.2 >"$T/ping" &
	ping_pid=$!
	t0=$(date +%s%N)
	flood 1 ${t}gen2 $NEW "02:3$gen:00:00:00:00"
	t1=$(date +%s%N)
	wait "$ping_pid"
	line=$(tail -1 "$T/ping")
	[[ -n $dump_pid ]] && { kill "$dump_pid" 2>/dev/null; wait "$dump_pid" 2>/dev/null; }
	dump_pid=""
	# rtt min/avg/max/mdev = a/b/c/d ms
	echo "BENCH rtt $t $name $(awk -F'[/ =]+' '{ print $7, $8 }' <<<"$line")" \
		"$(awk -v n=$NEW -v d=$((t1 - t0)) 'BEGIN { printf "%.0f", n * 1e9 / d }')"
}
phase_no=0

for t in x l; do
	br=br0
	[[ $t == x ]] && br=xbr0
	log "$t: building"
	build $t $br
	ip netns exec ${t}h1 ping -c 2 -W 2 10.8.0.2 >/dev/null || err "$t: h1 cannot ping h2"
	log "$t: flooding $entries sources"
	flood 0 ${t}gen "$entries" 02:10:00:00:00:00
	echo "BENCH info $t: $(count $t) FDB entries after the flood"
	phase $t idle 4
	if [[ $t == x ]]; then
		phase $t dump 5 "$XB" fdb show br xbr0 dev xp1
		"$XB" link set dev xbr0 ageing_time 100 || err "xbr0 ageing_time"
	else
		phase $t dump 5 bridge fdb show br br0 dev lp1
		ip link set br0 type bridge ageing_time 100 || err "br0 ageing_time"
	fi
	phase $t ageing 8
	echo "BENCH info $t: $(count $t) FDB entries after ageing"
	ip link del dev $br
	ip link del dev ${t}gen 2>/dev/null
	ip link del dev ${t}gen2 2>/dev/null
done
log "done"
