#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lib.sh - helpers for the xbridge selftests, in the style of the kernel's
# tools/testing/selftests/net/forwarding/lib.sh: hosts are network
# namespaces h1..hN attached by veth pairs to bridge ports; every test
# prints a PASS or FAIL line, and the suite ends with "N passed, N failed".

PASSED=0
FAILED=0
SELFTESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PKT="python3 $SELFTESTS_DIR/pkt.py"

log_test() {		# log_test NAME STATUS [DETAIL]
	if (($2 == 0)); then
		printf 'PASS: %s\n' "$1"
		PASSED=$((PASSED + 1))
	else
		printf 'FAIL: %s%s\n' "$1" "${3:+: $3}"
		FAILED=$((FAILED + 1))
	fi
}

summary() {
	echo "$PASSED passed, $FAILED failed"
	((FAILED == 0))
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
	for _ in $(seq 100); do
		grep -q ready "$TMPDIR/ready.$ns" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "count_rx_start: counter in $ns did not start" >&2
}

count_rx_go() {
	touch "$TMPDIR/go"
	wait
}

count_rx_result() {
	cat "$TMPDIR/count.$1"
}
