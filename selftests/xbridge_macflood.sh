#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_macflood.sh [MODULE.ko] - a MAC flood: MACFLOOD_N (default 1000000)
# frames with distinct source addresses (pktgen src_mac_count, one new
# address a frame) through port fA of xbr0, while pktgen's second thread
# sends known-destination traffic kA -> kB (KNOWN_DELAY_NS between frames,
# default 100000).
# Checks: every frame pktgen sent reached fA (veth's drops when its peer's
# backlog is full are pktgen's errors, not sent) and every source is
# learned (fdb_n_learned; ageing_time is an hour, so a slow kernel does not
# age the first sources out); the memory the entries take (Slab +
# VmallocUsed growth) is at most MACFLOOD_MAX_BPE bytes an entry (default
# 512; the figure is printed); every known-destination frame is forwarded
# during the flood (to kB's peer, or dropped by kB's veth), at no less than
# a quarter of the rate without it (both printed); ageing (ageing_time 1 s)
# removes every learned entry and gives back at least 75 % of the memory
# (slab pages partly in use stay with their caches). On a KASAN kernel the
# memory and rate checks are skipped (redzones, quarantine and
# instrumentation change both; the figures are still printed). With
# fdb_max_learned M (MACFLOOD_MAX, default 50000) a flood of 2M new sources
# learns exactly M.
set -u
source "$(dirname "$0")/lib.sh"
N=${MACFLOOD_N:-1000000}
M=${MACFLOOD_MAX:-50000}
MAX_BPE=${MACFLOOD_MAX_BPE:-512}
KDELAY=${KNOWN_DELAY_NS:-100000}
AGEING=360000			# centiseconds: an hour
DST_S=02:00:00:00:5e:01		# the flood's destination, static on fS
DST_K=02:00:00:00:6e:01		# the known traffic's destination, static on kB
TMPDIR=$(mktemp -d)

cleanup() {
	pktgen_stop
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip link del xbr0 2>/dev/null
	for d in fA fS kA kB; do
		ip link del "$d" 2>/dev/null
	done
	rm -rf "$TMPDIR"
}

setup() {
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	# Room in the backlog queue for pktgen's bursts (veth drops the rest).
	sysctl -qw net.core.netdev_max_backlog=10000
	ip link add xbr0 type xbridge
	ip link set xbr0 up
	for p in fA fS kA kB; do
		ip link add "$p" type veth peer name "${p}p"
		ip link set "${p}p" up
		ip link set "$p" master xbr0
		ip link set "$p" up
	done
	xb link set dev kA learning off || return 1
	xb link set dev xbr0 ageing_time $AGEING || return 1
	xb fdb add $DST_S dev fS master static || return 1
	xb fdb add $DST_K dev kB master static || return 1
	for p in fA fS kA kB; do
		busywait 5000 port_forwarding "$p" || return 1
	done
}

rx() { dev_stat "$1" rx_packets; }
txdrop() { dev_stat "$1" tx_dropped; }
learned() {
	xb -j link show dev xbr0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["fdb_n_learned"])'
}
# mem_kb - kernel memory the FDB can take: Slab + VmallocUsed (kB).
mem_kb() { awk '/^(Slab|VmallocUsed):/ {n += $2} END {print n}' /proc/meminfo; }

known_dev() { pktgen_dev 1 kAp "count 0" "delay $KDELAY" "dst_mac $DST_K" "src_mac 02:00:00:00:6a:01"; }

# known_alone SECONDS - the known traffic alone: frames/s to kB.
known_alone() {
	local r0 t0 r1 t1
	echo rem_device_all >"$PG/kpktgend_0"
	known_dev || return 1
	echo start >$PG/pgctrl &
	sleep "$1"	# traffic runs for the measured time
	r0=$(rx kBp)
	t0=$EPOCHREALTIME
	sleep "$1"
	r1=$(rx kBp)
	t1=$EPOCHREALTIME
	echo stop >$PG/pgctrl
	wait
	awk -v n=$((r1 - r0)) -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", n / (b - a) }'
}

# flood FIRST_MAC COUNT - COUNT frames from COUNT sources from FIRST_MAC on
# thread 0 while the known traffic runs on thread 1; sets KNOWN_SENT,
# KNOWN_RX and KNOWN_RATE, FLOOD_SECS.
flood() {
	local k0 kd0 t0 t1 s
	pktgen_dev 0 fAp "count $2" "delay 0" "dst_mac $DST_S" "src_mac $1" "src_mac_count $2" || return 1
	known_dev || return 1
	k0=$(rx kBp)
	kd0=$(txdrop kB)
	t0=$EPOCHREALTIME
	echo start >$PG/pgctrl &
	# The flood thread stops at COUNT; then stop the known traffic.
	slowwait 600000 bash -c "(( \$(awk '/pkts-sofar:/ {print \$2}' $PG/fAp) >= $2 ))"
	s=$?
	t1=$EPOCHREALTIME
	echo stop >$PG/pgctrl
	wait
	# What pktgen sent last may still sit in a backlog queue (seconds of
	# it on a slow kernel): count once kB's receive counter stops moving.
	local last=-1 i
	for ((i = 0; i < 50; i++)); do
		[[ $last == $(rx kBp) ]] && break
		last=$(rx kBp)
		sleep 0.2
	done
	KNOWN_SENT=$(pktgen_sent kAp)
	KNOWN_RX=$(($(rx kBp) - k0))
	KNOWN_DROP=$(($(txdrop kB) - kd0))	# kB's veth: kBp's backlog full
	FLOOD_SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	KNOWN_RATE=$(awk -v n="$KNOWN_RX" -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", n / (b - a) }')
	return $s
}

test_flood() {
	local base m0 m1 bpe n
	base=$(known_alone 3)
	m0=$(mem_kb)
	local a0
	a0=$(rx fA)
	flood 02:10:00:00:00:00 "$N"
	log_test "pktgen sent $N frames from $N sources through fA" $? "$(pktgen_sent fAp) sent"
	n=$(learned)
	sleep 1	# RCU callbacks of the learning path settle before measuring
	m1=$(mem_kb)
	a0=$(($(rx fA) - a0))
	# veth drops what its peer's backlog queue has no room for (counted as
	# its tx_dropped and as pktgen's errors; pktgen sends others instead).
	echo "figures: $a0 flood frames reached fA ($(txdrop fAp) dropped by veth)"
	((a0 == $(pktgen_sent fAp) && $(txdrop fAp) == $(pktgen_errors fAp)))
	log_test "every flood frame pktgen sent reached fA, its errors are veth's drops" $?
	# A frame veth drops takes its source with it: pktgen builds the next
	# one from the next address and, counting only what went out, wraps
	# round to resend the first few. So each drop may cost one source.
	local lost
	lost=$(pktgen_errors fAp)
	((n <= a0 && n >= a0 - lost))
	log_test "every source that reached fA learned: fdb_n_learned $n of $a0 ($lost dropped by veth)" $?
	bpe=$(((m1 - m0) * 1024 / (n > 0 ? n : 1)))
	echo "figures: flood of $N sources in $FLOOD_SECS s; kernel memory +$((m1 - m0)) kB," \
		"$bpe bytes an entry; known traffic $base frames/s alone, $KNOWN_RATE frames/s during the flood"
	if kernel_has_kasan; then
		log_test_skip "memory an entry: $bpe bytes" "KASAN's redzones count"
	else
		((bpe > 0 && bpe <= MAX_BPE))
		log_test "memory an entry: $bpe bytes (<= $MAX_BPE)" $?
	fi
	((KNOWN_SENT > 0 && KNOWN_RX + KNOWN_DROP == KNOWN_SENT))
	log_test "every known-destination frame forwarded during the flood ($KNOWN_RX + $KNOWN_DROP dropped by kB's veth of $KNOWN_SENT)" $?
	if kernel_has_kasan; then
		log_test_skip "known traffic during the flood: $KNOWN_RATE vs $base frames/s alone" \
			"KASAN's instrumentation weighs on the learning path"
	else
		((KNOWN_RATE * 4 >= base))
		log_test "known traffic during the flood at >= 1/4 of its rate alone ($KNOWN_RATE vs $base frames/s)" $?
	fi
	GROWTH=$((m1 - m0))
	M0=$m0
}

test_ageing() {
	local m2 back
	xb link set dev xbr0 ageing_time 100
	slowwait 300000 bash -c "(( \$('$XB' -j link show dev xbr0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0][\"fdb_n_learned\"])') == 0 ))"
	log_test "ageing (1 s) removes every learned entry" $? "$(learned) left"
	sleep 2	# deferred frees (RCU) complete
	m2=$(mem_kb)
	back=$(((M0 + GROWTH - m2) * 100 / (GROWTH > 0 ? GROWTH : 1)))
	echo "figures: after ageing, $back % of the flood's $GROWTH kB given back"
	if kernel_has_kasan; then
		log_test_skip "ageing gives back $back % of the memory" "KASAN's quarantine holds freed objects"
	else
		((back >= 75))
		log_test "ageing gives back >= 75 % of the memory ($back %)" $?
	fi
	xb link set dev xbr0 ageing_time $AGEING
}

test_max_learned() {
	local n
	xb link set dev xbr0 fdb_max_learned "$M"
	log_test "fdb_max_learned $M set" $?
	flood 02:20:00:00:00:00 $((2 * M))
	log_test "pktgen sent $((2 * M)) frames from new sources" $?
	n=$(learned)
	((n == M))
	log_test "fdb_max_learned $M bounds the learned entries exactly ($n)" $?
	((KNOWN_SENT > 0 && KNOWN_RX + KNOWN_DROP == KNOWN_SENT))
	log_test "known-destination traffic forwarded at the bound ($KNOWN_RX + $KNOWN_DROP dropped by kB's veth of $KNOWN_SENT)" $?
	xb link set dev xbr0 fdb_max_learned 0
	xb fdb flush dev xbr0 dynamic
	log_test "flush of the dynamic entries" $?
}

ALL_TESTS="
	test_flood
	test_ageing
	test_max_learned
"

need_xbridge
pktgen_need
trap cleanup EXIT
t_start=$SECONDS
setup
log_test "setup: xbr0 with ports fA fS kA kB" $?
tests_run
echo "time: xbridge_macflood.sh $((SECONDS - t_start)) s"
summary
