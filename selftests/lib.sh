#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for the xbridge selftests, in the style of the kernel's
# tools/testing/selftests/net/forwarding/lib.sh: hosts are network
# namespaces h1..hN attached by veth pairs to bridge ports; every check
# prints a PASS, FAIL or SKIP line, and the suite ends with
# "N passed, N failed" (", N skipped" added when something was skipped).
#
# A suite defines its tests as functions, lists them in ALL_TESTS and calls
# tests_run; `TESTS="test_a test_b" ./xbridge_X.sh` runs only those (in the
# order given; a test may rely on the state its predecessors in ALL_TESTS
# leave, as in the kernel's suites). Inside a test either pass a status to
# log_test directly, or collect it kernel-style:
#	RET=0
#	cmd1; check_err $? "cmd1 failed"
#	cmd2; check_fail $? "cmd2 should have failed"
#	log_test "what the test shows"
# Waiting for a condition is busywait/slowwait TIMEOUT_MS CMD..., never a
# fixed sleep; a fixed sleep stays only where time passing is the point
# (traffic running during a change, ageing), with a comment saying so.
# Exit status (summary): 0 all passed, 1 something failed, $ksft_skip (4)
# when the suite skipped everything (a missing requirement: skip_suite).

PASSED=0
FAILED=0
SKIPPED=0
RET=0
retmsg=
ksft_skip=4
SELFTESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PKT="python3 $SELFTESTS_DIR/pkt.py"

# check_err ERR [MSG] - note the first failure of a test: ERR != 0.
check_err() {
	if ((RET == 0 && $1 != 0)); then
		RET=$1
		retmsg=${2:-}
	fi
}

# check_fail ERR [MSG] - note the first failure of a test: ERR == 0 (the
# command should have failed).
check_fail() {
	if ((RET == 0 && $1 == 0)); then
		RET=1
		retmsg=${2:-}
	fi
}

# log_test NAME [STATUS [DETAIL]] - one PASS or FAIL line. With no STATUS,
# the test's $RET and $retmsg (check_err/check_fail) decide, and RET and
# retmsg are reset for the next test.
log_test() {
	local name=$1 status detail
	if (($# >= 2)); then
		status=$2
		detail=${3:-}
	else
		status=$RET
		detail=$retmsg
		RET=0
		retmsg=
	fi
	if ((status == 0)); then
		printf 'PASS: %s\n' "$name"
		PASSED=$((PASSED + 1))
	else
		printf 'FAIL: %s%s\n' "$name" "${detail:+: $detail}"
		FAILED=$((FAILED + 1))
	fi
}

# check NAME COMMAND... - PASS if COMMAND succeeds; its output is the
# detail of a FAIL.
check() {
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	log_test "$name" $? "$out"
}

# log_test_skip NAME [REASON] - a check that cannot run here (a missing
# command, module or kernel feature): a SKIP line, neither pass nor fail.
log_test_skip() {
	printf 'SKIP: %s%s\n' "$1" "${2:+ ($2)}"
	SKIPPED=$((SKIPPED + 1))
}

summary() {
	local skipped=
	((SKIPPED == 0)) || skipped=", $SKIPPED skipped"
	echo "$PASSED passed, $FAILED failed$skipped"
	if ((FAILED > 0)); then
		return 1
	elif ((PASSED == 0 && SKIPPED > 0)); then
		return $ksft_skip
	fi
	return 0
}

# skip_suite REASON - a requirement of the whole suite is missing: one SKIP
# line, the summary, and exit $ksft_skip (the runner counts it as skipped).
skip_suite() {
	log_test_skip "${0##*/}" "$1"
	summary
	exit $ksft_skip
}

# require_command CMD... - skip the suite unless every CMD is on PATH.
require_command() {
	local cmd
	for cmd in "$@"; do
		command -v "$cmd" >/dev/null || skip_suite "no $cmd"
	done
}

# tests_run - run each test function named in $TESTS, else in $ALL_TESTS.
# An unknown name is a FAIL (a typo must not pass as an empty run).
tests_run() {
	local current_test
	for current_test in ${TESTS:-$ALL_TESTS}; do
		if [[ $(type -t "$current_test") != function ]]; then
			log_test "$current_test: no such test in ${0##*/}" 1 "ALL_TESTS: $ALL_TESTS"
			continue
		fi
		RET=0
		retmsg=
		"$current_test"
	done
}

# loopy_wait SLEEP_CMD TIMEOUT_MS CMD... - run CMD until it succeeds or
# TIMEOUT_MS have passed, running SLEEP_CMD between tries. Returns CMD's
# last status (its output is passed through).
loopy_wait() {
	local sleep_cmd=$1 timeout_ms=$2 start now status
	shift 2
	start=$(_now_ms)
	while true; do
		"$@"
		status=$?
		((status == 0)) && return 0
		now=$(_now_ms)
		((now - start > timeout_ms)) && return $status
		$sleep_cmd
	done
}

_now_ms() {
	local t=${EPOCHREALTIME/./}
	echo $((t / 1000))
}

# busywait TIMEOUT_MS CMD... - poll CMD until it succeeds, or time out
# (CMD's last status). For conditions that settle fast (a learned address,
# a carrier, a counter).
busywait() {
	loopy_wait "sleep 0.02" "$@"
}

# slowwait TIMEOUT_MS CMD... - as busywait, trying every 0.1 s: for slow
# starters (a python helper under TCG, a listener, a monitor's ready file).
slowwait() {
	loopy_wait "sleep 0.1" "$@"
}

# The xbridge tool (tools/xbridge): $XBRIDGE, else the first build of it
# under the repo (build-test/ is tools/test-all.sh's ASan build).
XB=${XBRIDGE:-}
if [[ -z "$XB" ]]; then
	for _d in build-test build build-tool build-dev; do
		if [[ -x "$SELFTESTS_DIR/../$_d/tools/xbridge/xbridge" ]]; then
			XB="$(cd "$SELFTESTS_DIR/.." && pwd)/$_d/tools/xbridge/xbridge"
			break
		fi
	done
	unset _d
fi
# An ASan build's leak check is noise for a short-lived command here.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}

# xb ARGS... - run the xbridge tool; a missing tool is an error.
xb() {
	if [[ -z "$XB" || ! -x "$XB" ]]; then
		echo "lib.sh: no xbridge tool (set XBRIDGE or build tools/xbridge)" >&2
		return 127
	fi
	"$XB" "$@"
}

# The xnft tool (tools/xnft): $XNFT, else the first build of it under the
# repo, as for the xbridge tool. xnft ARGS... runs it; a missing tool is an
# error (and need_xnft, at a suite's start, logs it and ends the suite).
XNFT=${XNFT:-}
if [[ -z "$XNFT" ]]; then
	for _d in build-test build build-tool build-dev; do
		if [[ -x "$SELFTESTS_DIR/../$_d/tools/xnft/xnft" ]]; then
			XNFT="$(cd "$SELFTESTS_DIR/.." && pwd)/$_d/tools/xnft/xnft"
			break
		fi
	done
	unset _d
fi
xnft() {
	if [[ -z "$XNFT" || ! -x "$XNFT" ]]; then
		echo "lib.sh: no xnft tool (set XNFT or build tools/xnft)" >&2
		return 127
	fi
	"$XNFT" "$@"
}
need_xnft() {
	if [[ -z "$XNFT" || ! -x "$XNFT" ]]; then
		log_test "xnft binary found" 1 "set XNFT or build tools/xnft"
		summary
		exit 1
	fi
}

# need_xbridge - as need_xnft, for the xbridge tool (a FAIL, not a skip:
# CI builds the tools, so a missing one is a broken run).
need_xbridge() {
	if [[ -z "$XB" || ! -x "$XB" ]]; then
		log_test "xbridge tool binary found" 1 "set XBRIDGE or build tools/xbridge"
		summary
		exit 1
	fi
}

# fdb_show BR - the bridge's FDB in iproute2's `bridge fdb show` format.
fdb_show() {
	xb fdb show br "$1"
}

# host_add NAME BR PORT MAC [IP/PREFIX] - namespace NAME with eth0, whose
# peer PORT is enslaved to bridge BR.
host_add() {
	local ns=$1 br=$2 port=$3 mac=$4 ip=${5:-}
	ip netns add "$ns"
	ip link add "$port" type veth peer name eth0 netns "$ns"
	ip -n "$ns" link set eth0 address "$mac"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	if [[ -n "$ip" ]]; then
		ip -n "$ns" addr add "$ip" dev eth0 nodad 2>/dev/null ||
			ip -n "$ns" addr add "$ip" dev eth0
	fi
	ip link set "$port" master "$br"
	ip link set "$port" up
}

hosts_cleanup() {
	local ns
	for ns in $(ip netns list | awk '{print $1}'); do
		ip netns del "$ns"
	done
}

# in_fdb BR MAC PORT [VID] - is MAC learned on PORT (in VLAN VID)?
in_fdb() {
	local pattern="^$2 dev $3"
	[[ -n "${4:-}" ]] && pattern+=" vlan $4"
	fdb_show "$1" | grep -q "$pattern master"
}

# count_rx_start NS SRC EXPECT [VLAN] - count test frames from SRC on NS's
# eth0 in the background, into $TMPDIR/count.NS. Returns once the counter's
# socket is bound; frames queue there until count_rx_go, after which the
# counter waits COUNT_WINDOW seconds for stragglers (or stops at EXPECT+1).
# Usage: count_rx_start ...; send frames; count_rx_go; count_rx_result NS.
COUNT_WINDOW=${COUNT_WINDOW:-1.5}
count_rx_start() {
	local ns=$1 src=$2 expect=$3 vlan=${4:-}
	rm -f "$TMPDIR/ready.$ns" "$TMPDIR/go"
	ip netns exec "$ns" $PKT count eth0 --src "$src" --seconds "$COUNT_WINDOW" \
		--start-file "$TMPDIR/go" \
		--until "$((expect + 1))" ${vlan:+--vlan "$vlan"} \
		>"$TMPDIR/count.$ns" 2>"$TMPDIR/ready.$ns" &
	slowwait 10000 grep -q ready "$TMPDIR/ready.$ns" 2>/dev/null ||
		echo "count_rx_start: counter in $ns did not start" >&2
}

count_rx_go() {
	touch "$TMPDIR/go"
	wait
}

count_rx_result() {
	cat "$TMPDIR/count.$1"
}

# kernel_has_kasan - the running kernel is built with KASAN (the debug
# test kernel, tools/vm/debug.config).
kernel_has_kasan() { grep -q ' kasan_report$' /proc/kallsyms 2>/dev/null; }

# port_forwarding DEV - DEV is an xbridge port in the forwarding state.
port_forwarding() { xb link show dev "$1" | grep -q "state forwarding"; }

# dev_stat DEV COUNTER - one of DEV's /sys/class/net/DEV/statistics counters.
dev_stat() { cat "/sys/class/net/$1/statistics/$2"; }

# pktgen (the kernel's packet generator, /proc/net/pktgen): traffic from
# kernel threads kpktgend_N, one per CPU.
PG=/proc/net/pktgen

# pktgen_need - load pktgen, or skip the suite.
pktgen_need() {
	modprobe pktgen 2>/dev/null
	[[ -w $PG/pgctrl ]] || skip_suite "no pktgen"
}

# pktgen_dev THREAD DEV CMD... - DEV alone on thread kpktgend_THREAD,
# sending 64-byte IPv4 frames 192.0.2.1 -> 192.0.2.99 (one skb each), then
# pktgen's commands CMD... (e.g. "count 0" "dst_mac M" "delay NS").
pktgen_dev() {
	local t=$1 d=$2 c
	shift 2
	echo rem_device_all >"$PG/kpktgend_$t"
	echo "add_device $d" >"$PG/kpktgend_$t"
	for c in "clone_skb 0" "pkt_size 64" "dst 192.0.2.99" "src_min 192.0.2.1" \
		"src_max 192.0.2.1" "$@"; do
		echo "$c" >"$PG/$d" || return 1
	done
}

# pktgen_sent DEV - frames DEV's driver took from pktgen (NETDEV_TX_OK).
pktgen_sent() { awk '/pkts-sofar:/ {print $2}' "$PG/$1"; }

# pktgen_errors DEV - frames DEV's driver refused or dropped (veth's
# NET_XMIT_DROP for a full backlog queue); not in pktgen_sent.
pktgen_errors() { awk '/pkts-sofar:/ {print $4}' "$PG/$1"; }

# pktgen_stop - stop every pktgen thread (safe when pktgen is not loaded).
pktgen_stop() { [[ -w $PG/pgctrl ]] && echo stop >"$PG/pgctrl" 2>/dev/null; }
