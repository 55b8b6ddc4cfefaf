#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_stress.sh MODULE.ko - control-plane churn under traffic from both
# vCPUs, for STRESS_SECONDS (default 60), then checks and rmmod.
#
# Traffic: pktgen threads kpktgend_0 and kpktgend_1 send on the peers of
# ports tA and tB of xbr0 (vlan_filtering 1) to a static address on port
# tC (STRESS_PKT_DELAY_NS between frames of a thread, default 200000).
# Churn, all at once: two FDB/VLAN streams (selftests/stress_churn.py, one
# `xbridge -batch` chunk after another: add/replace/del/flush of static
# entries, VLAN add/del under entries) on ports sA1/sA2 and sB1/sB2; a port
# sE enslaved, given a VLAN and an entry, and released; bridges xbrC
# created with a port, options and an entry, and deleted; xbr0's options
# (ageing_time, group_fwd_mask, fdb_max_learned) and sA1's learning
# toggled; `xbridge monitor fdb` listeners started and killed; FDB and
# VLAN dumps running.
# Then: the FDB and VLAN dumps match the streams' models; nothing is left
# of sE or the xbrC bridges; fdb_n_entries matches the dump; every frame
# pktgen sent was forwarded once to tC (sent by tC's veth, or dropped there
# when its peer's backlog queue was full, as a slow kernel makes it) and
# no xbridge port counted a drop; xbr0
# is deleted and the module unloads (it is loaded again for the runner).
# Figures: control operations per second, frames forwarded.
set -u
source "$(dirname "$0")/lib.sh"
MODULE=${1:-}
SECS=${STRESS_SECONDS:-60}
DELAY=${STRESS_PKT_DELAY_NS:-200000}
DST=02:00:00:00:cc:01
TMPDIR=$(mktemp -d)

cleanup() {
	pktgen_stop
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del xbrC 2>/dev/null
	for d in tA tB tC sA1 sA2 sB1 sB2 sE cP; do
		ip link del "$d" 2>/dev/null
	done
	rm -rf "$TMPDIR"
}

veth() {
	ip link add "$1" type veth peer name "$1p"
	ip link set "$1p" up
}

setup() {
	# No IPv6 on the veths: their router and listener reports would be
	# flooded to tC and spoil the count of forwarded frames.
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	sysctl -qw net.core.netdev_max_backlog=10000
	ip link add xbr0 type xbridge
	xb link set dev xbr0 vlan_filtering 1 || return 1
	ip link set xbr0 up
	for p in tA tB tC sA1 sA2 sB1 sB2; do
		veth "$p"
		ip link set "$p" master xbr0
		ip link set "$p" up
	done
	for p in sA1 sA2 sB1 sB2; do
		xb vlan add vid 10 dev "$p" || return 1
	done
	veth sE
	veth cP
	xb fdb add $DST dev tC vlan 1 master static || return 1
	busywait 5000 port_forwarding tA && busywait 5000 port_forwarding tB &&
		busywait 5000 port_forwarding tC
}

# pktgen_setup THREAD DEV SRCMAC - endless frames from SRCMAC to $DST.
pktgen_setup() { pktgen_dev "$1" "$2" "count 0" "delay $DELAY" "dst_mac $DST" "src_mac $3"; }

rx() { dev_stat "$1" rx_packets; }
tx() { dev_stat "$1" tx_packets; }
txdrop() { dev_stat "$1" tx_dropped; }

# port_drops BR PORT - the sum of PORT's drop counters (XBRIDGE_PORT_DROPS).
port_drops() {
	python3 -c '
import socket, struct, sys
sys.path.insert(0, sys.argv[1])
import nlsock
br, port = socket.if_nametoindex(sys.argv[2]), socket.if_nametoindex(sys.argv[3])
g = nlsock.Genl("xbridge")
msgs = g.do(3, nlsock.u32(1, br) + nlsock.nest(3, nlsock.u32(1, port)))
p = nlsock.parse(nlsock.parse(msgs[0])[3])
print(sum(struct.unpack_from("=Q", v)[0] for t, v in nlsock.iterate(p.get(13, b"")) if len(v) == 8))
' "$SELFTESTS_DIR" "$1" "$2"
}

# loop NAME CMD... - run CMD until $END, counting the rounds in $TMPDIR/NAME
# (and the failed ones in $TMPDIR/NAME.fail).
loop() {
	local name=$1 n=0 bad=0
	shift
	while ((SECONDS < END)); do
		"$@" >/dev/null 2>>"$TMPDIR/$name.err" || bad=$((bad + 1))
		n=$((n + 1))
	done
	echo "$n" >"$TMPDIR/$name"
	echo "$bad" >"$TMPDIR/$name.fail"
}

enslave_round() {
	ip link set sE master xbr0 &&
		ip link set sE up &&
		xb vlan add vid 20 dev sE &&
		xb fdb add 02:e0:00:00:00:01 dev sE vlan 20 master static &&
		ip link set sE nomaster
}

bridge_round() {
	ip link add xbrC type xbridge &&
		ip link set cP master xbrC &&
		xb link set dev xbrC vlan_filtering 1 ageing_time 1000 &&
		xb vlan add vid 5 dev cP &&
		xb fdb add 02:c0:00:00:00:01 dev cP vlan 5 master static &&
		ip link set xbrC up &&
		ip link del xbrC
}

options_round() {
	xb link set dev xbr0 ageing_time 20000 group_fwd_mask 8 fdb_max_learned 100000 &&
		xb link set dev sA1 learning off &&
		xb link set dev xbr0 ageing_time 30000 group_fwd_mask 0 fdb_max_learned 0 &&
		xb link set dev sA1 learning on
}

monitor_round() {
	# The tool itself, not the xb function: `xb ... &` backgrounds a
	# subshell, and killing that left the listener running (and, with
	# ASan's quarantine, growing: 37 of them ran the guest out of memory).
	"$XB" monitor fdb >/dev/null 2>&1 &
	local pid=$!
	sleep 0.3	# the listener runs while the churn goes on
	kill "$pid" && wait "$pid"
	return 0
}

dump_round() {
	xb fdb show br xbr0 >/dev/null && xb vlan show >/dev/null && xb -d link show >/dev/null
}

# The churn stream's rate alone (no traffic, no other churn): one chunk of
# 2000 lines on sA1/sA2, then its entries and VLANs are removed again.
test_churn_alone() {
	local v
	python3 "$SELFTESTS_DIR/stress_churn.py" --xbridge "$XB" --br xbr0 --port sA1 --port2 sA2 \
		--prefix 02:a9 --seconds 0.01 --seed 9 --chunk 2000 --out "$TMPDIR/expect.alone" \
		>"$TMPDIR/churn.alone" 2>&1
	local st=$?	# before the $(...) below, which sets $? again
	log_test "churn stream alone: $(<"$TMPDIR/churn.alone")" $st
	for v in $(cat "$TMPDIR/expect.alone.vlans"); do
		xb vlan del vid "$v" dev sA1
	done
	xb fdb flush dev xbr0 brport sA1 static && xb fdb flush dev xbr0 brport sA2 static
	! xb fdb show br xbr0 | grep -q "^02:a9:"
	log_test "its entries flushed again" $?
}

test_churn() {
	local t0 rxC0 txC0 txdC0 rc=0 s st
	RET=0
	pktgen_setup 0 tAp 02:00:00:00:0a:01 || { log_test "pktgen set up" 1; return; }
	pktgen_setup 1 tBp 02:00:00:00:0b:01 || { log_test "pktgen set up" 1; return; }
	rxC0=$(rx tCp)
	txC0=$(tx tC)
	txdC0=$(txdrop tC)
	rxA0=$(rx tA)
	rxB0=$(rx tB)
	echo start >$PG/pgctrl &
	PG_PID=$!
	t0=$SECONDS
	END=$((SECONDS + SECS))
	python3 "$SELFTESTS_DIR/stress_churn.py" --xbridge "$XB" --br xbr0 --port sA1 --port2 sA2 \
		--prefix 02:a1 --seconds "$SECS" --seed 1 --chunk 500 --out "$TMPDIR/expect.A" >"$TMPDIR/churn.A" 2>&1 &
	local pa=$!
	python3 "$SELFTESTS_DIR/stress_churn.py" --xbridge "$XB" --br xbr0 --port sB1 --port2 sB2 \
		--prefix 02:b1 --seconds "$SECS" --seed 2 --chunk 500 --out "$TMPDIR/expect.B" >"$TMPDIR/churn.B" 2>&1 &
	local pb=$!
	loop enslave enslave_round &
	loop bridges bridge_round &
	loop options options_round &
	loop monitors monitor_round &
	loop dumps dump_round &
	wait $pa || rc=1
	wait $pb || rc=$((rc | 2))
	# The loops end at END too.
	while (($(jobs -rp | wc -l) > 1)); do
		sleep 0.2
	done
	echo stop >$PG/pgctrl
	wait "$PG_PID" 2>/dev/null
	ELAPSED=$((SECONDS - t0))
	cat "$TMPDIR/churn.A" "$TMPDIR/churn.B"
	((rc == 0))
	log_test "FDB/VLAN churn streams: every batch line succeeded" $? \
		"$(tail -n 2 "$TMPDIR/churn.A" "$TMPDIR/churn.B")"
	for s in enslave bridges options dumps; do
		(($(<"$TMPDIR/$s.fail") == 0 && $(<"$TMPDIR/$s") > 0))
		st=$?
		log_test "churn: $s rounds all succeeded ($(<"$TMPDIR/$s") rounds)" $st \
			"$(cat "$TMPDIR/$s.fail") failed: $(sort "$TMPDIR/$s.err" | uniq -c | head -3)"
	done
	echo "monitor listeners started and killed: $(cat "$TMPDIR/monitors")"
	SENT_A=$(pktgen_sent tAp)
	SENT_B=$(pktgen_sent tBp)
	FWD=$(($(rx tCp) - rxC0))
	TXC=$(($(tx tC) - txC0))
	# What xbr0 handed to tC that tC's veth dropped (tCp's backlog full).
	TXDC=$(($(txdrop tC) - txdC0))
	# What reached the bridge: every frame pktgen counts as sent (veth
	# returns NET_XMIT_DROP for one its peer's full backlog queue refused,
	# which pktgen counts as an error and veth as tx_dropped).
	RXAB=$(($(rx tA) - rxA0 + $(rx tB) - rxB0))
	VDROP=$(($(txdrop tAp) + $(txdrop tBp)))
	PGERR=$(($(pktgen_errors tAp) + $(pktgen_errors tBp)))
	local ops
	ops=$(cat "$TMPDIR/churn.A" "$TMPDIR/churn.B" | awk '/^churn:/ {n += $2} END {print n + 0}')
	ops=$((ops + 5 * $(cat "$TMPDIR/enslave") + 7 * $(cat "$TMPDIR/bridges") + 4 * $(cat "$TMPDIR/options")))
	echo "figures: $ops control operations in $ELAPSED s ($((ops / (ELAPSED > 0 ? ELAPSED : 1))) ops/s);" \
		"pktgen sent $SENT_A + $SENT_B frames ($VDROP dropped by veth), $RXAB reached xbr0, $FWD forwarded to tC ($TXDC dropped by tC's veth)" \
		"($(((SENT_A + SENT_B) / (ELAPSED > 0 ? ELAPSED : 1))) frames/s)"
}

test_state() {
	local s want got n_dump n_attr st
	RET=0
	for s in A B; do
		# (Files, not <(...): the guest has no /dev/fd.)
		xb fdb show br xbr0 >"$TMPDIR/fdb.$s"
		# Both sides in one byte order: the model lists its entries by
		# (MAC, VID), the dump's lines have the port before the VID.
		grep "^02:${s,,}1:" "$TMPDIR/fdb.$s" | LC_ALL=C sort >"$TMPDIR/got.$s"
		LC_ALL=C sort "$TMPDIR/expect.$s" >"$TMPDIR/want.$s"
		diff "$TMPDIR/want.$s" "$TMPDIR/got.$s" >"$TMPDIR/diff.$s"
		st=$?
		log_test "stream $s: the FDB dump is the model's $(wc -l <"$TMPDIR/expect.$s") entries" $st \
			"$(head -6 "$TMPDIR/diff.$s")"
		want=$(cat "$TMPDIR/expect.$s.vlans")
		got=$(xb -j vlan show dev s${s}1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(str(v["vlan"]) for e in d for v in e["vlans"] if 100 <= v["vlan"] <= 131))')
		[[ "$want" == "$got" ]]
		log_test "stream $s: the VLANs of s${s}1 are the model's" $? "want '$want' got '$got'"
	done
	! xb fdb show br xbr0 | grep -q " dev sE "
	log_test "the released port sE has no FDB entry left" $?
	[[ ! -e /sys/class/net/sE/master ]]
	log_test "sE is released" $?
	! ip link show xbrC >/dev/null 2>&1
	log_test "no churn bridge xbrC is left" $?
	n_dump=$(xb fdb show br xbr0 | wc -l)
	n_attr=$(xb -j link show dev xbr0 | python3 -c '
import json, sys
print(json.load(sys.stdin)[0]["fdb_n_entries"])')
	((n_dump == n_attr))
	log_test "fdb_n_entries ($n_attr) matches the dump ($n_dump entries)" $?
	((SENT_A > 0 && SENT_B > 0 && RXAB == SENT_A + SENT_B && VDROP == PGERR))
	log_test "pktgen's frames reached tA and tB, its errors are veth's drops ($RXAB of $((SENT_A + SENT_B)); $PGERR errors, $VDROP drops)" $?
	((RXAB > 0 && TXC + TXDC == RXAB && FWD == TXC))
	log_test "every frame that reached tA/tB forwarded once to tC (received $RXAB, tC tx $TXC + dropped $TXDC, its peer rx $FWD)" $?
	for p in tA tB tC; do
		n_dump=$(port_drops xbr0 $p)
		((n_dump == 0))
		log_test "port $p counted no drop" $? "$n_dump drops"
	done
}

test_rmmod() {
	local rc
	ip link del xbr0
	log_test "xbr0 deleted after the churn" $?
	[[ -n "$MODULE" ]] || { log_test_skip "rmmod and insmod again" "no MODULE.ko argument"; return; }
	rmmod xbridge
	rc=$?
	log_test "rmmod xbridge after the churn" $rc
	insmod "$MODULE"
	log_test "insmod again (for the runner's own rmmod)" $?
}

ALL_TESTS="
	test_churn_alone
	test_churn
	test_state
	test_rmmod
"

need_xbridge
pktgen_need
trap cleanup EXIT
t_start=$SECONDS
setup
log_test "setup: xbr0 with ports tA tB tC sA1 sA2 sB1 sB2" $?
tests_run
echo "time: xbridge_stress.sh $((SECONDS - t_start)) s"
summary
