#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_fuzz.sh [MODULE.ko] - the netlink fuzzer (selftests/nlfuzz.py) against
# the xbridge family in the test kernel, while traffic flows through the
# bridge it targets (xbr0, ports fz1 fz2 with hosts h1 h2, pinging each
# other the whole time). A guard bridge xbrg with hosts g1 g2 lives in
# namespace guard (so no fuzzed nft rule of this namespace hooks it).
# Runs: as root (FUZZ_COUNT messages, default 100000; FUZZ_COUNT=1000000 for
# a soak; FUZZ_SEED, default 1), as an unprivileged user (setpriv: no
# admin operation may succeed, and the dumps must not change), and as root
# of a new user and network namespace (unshare -Urn). Then: every dump
# parses, the guard bridge still forwards, the traffic through xbr0 was
# forwarded during the run. The runner's kernel log scan covers crashes.
set -u
source "$(dirname "$0")/lib.sh"
COUNT=${FUZZ_COUNT:-100000}
SEED=${FUZZ_SEED:-1}
UNPRIV_COUNT=${FUZZ_UNPRIV_COUNT:-$((COUNT / 10))}
FUZZ="python3 $SELFTESTS_DIR/nlfuzz.py"
TMPDIR=$(mktemp -d)

cleanup() {
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip -n guard link del xbrg 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}

setup() {
	ip link add xbr0 type xbridge
	ip link set xbr0 up
	host_add h1 xbr0 fz1 02:00:00:00:f1:01 192.0.2.1/24
	host_add h2 xbr0 fz2 02:00:00:00:f1:02 192.0.2.2/24
	ip netns add guard
	ip -n guard link add xbrg type xbridge
	ip -n guard link set xbrg up
	for i in 1 2; do
		ip netns add g$i
		ip -n guard link add gp$i type veth peer name eth0 netns g$i
		ip -n g$i link set eth0 address 02:00:00:00:f2:0$i
		ip -n g$i addr add 198.51.100.$i/24 dev eth0
		ip -n g$i link set eth0 up
		ip -n guard link set gp$i master xbrg
		ip -n guard link set gp$i up
	done
	BR_IFX=$(cat /sys/class/net/xbr0/ifindex)
	P1_IFX=$(cat /sys/class/net/fz1/ifindex)
	P2_IFX=$(cat /sys/class/net/fz2/ifindex)
	xb vlan add vid 10 dev fz1
	xb fdb add 02:00:00:00:aa:01 dev fz1 master static
}

# The targets: the bridge, its ports, lo, a missing ifindex.
targets() {
	echo --ifindex "$BR_IFX" --ifindex "$P1_IFX" --ifindex "$P2_IFX" --ifindex 1 --ifindex 9999
}

snapshot() {
	{
		xb -d link show
		xb fdb show br xbr0 | sort
		xb vlan show
		xnft list ruleset 2>&1
	} >"$1" 2>&1
}

traffic_start() {
	ip netns exec h1 ping -q -i 0.01 192.0.2.2 >"$TMPDIR/ping.out" 2>&1 &
	PING_PID=$!
	TX0=$(cat /sys/class/net/fz2/statistics/tx_packets)
}

test_fuzz_root() {
	local out rc
	traffic_start
	$FUZZ --seed "$SEED" --count "$COUNT" --seconds "${FUZZ_SECONDS:-400}" $(targets) \
		>"$TMPDIR/root.out" 2>&1
	rc=$?
	cat "$TMPDIR/root.out"
	log_test "root: $COUNT fuzzed messages, every one answered by an ACK, an error or a parsable reply (seed $SEED)" \
		$rc "$(tail -3 "$TMPDIR/root.out")"
	out=$(grep -o '^nlfuzz: [0-9]* messages' "$TMPDIR/root.out" | awk '{print $2}')
	((${out:-0} >= COUNT))
	log_test "root: all $COUNT messages sent (not cut by the time bound)" $? "${out:-none}"
	kill "$PING_PID" 2>/dev/null
	wait "$PING_PID" 2>/dev/null
	TX1=$(cat /sys/class/net/fz2/statistics/tx_packets)
	echo "traffic: xbr0 forwarded $((TX1 - TX0)) frames to fz2 during the root run"
	((TX1 - TX0 > 0))
	log_test "traffic flowed through xbr0 during the run" $? "$((TX1 - TX0)) frames"
}

test_fuzz_unprivileged() {
	local rc
	xnft flush ruleset >/dev/null 2>&1
	snapshot "$TMPDIR/before"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		$FUZZ --seed "$((SEED + 1))" --count "$UNPRIV_COUNT" --expect-no-change $(targets) \
		>"$TMPDIR/unpriv.out" 2>&1
	rc=$?
	cat "$TMPDIR/unpriv.out"
	log_test "unprivileged (uid 65534, no capabilities): $UNPRIV_COUNT messages answered, no admin operation succeeded" \
		$rc "$(tail -3 "$TMPDIR/unpriv.out")"
	snapshot "$TMPDIR/after"
	diff "$TMPDIR/before" "$TMPDIR/after" >"$TMPDIR/diff"
	log_test "unprivileged: links, FDB, VLANs and ruleset unchanged" $? "$(head -5 "$TMPDIR/diff")"
}

test_fuzz_userns() {
	local rc
	if ! unshare -Ur true 2>/dev/null; then
		# The guest's root is a chroot: CLONE_NEWUSER is refused there.
		log_test_skip "root of a new user+net namespace" "unshare -U: $(unshare -Ur true 2>&1)"
		return
	fi
	unshare -Urn $FUZZ --seed "$((SEED + 2))" --count "$UNPRIV_COUNT" --ifindex 1 --ifindex 2 \
		>"$TMPDIR/userns.out" 2>&1
	rc=$?
	cat "$TMPDIR/userns.out"
	log_test "root of a new user+net namespace: $UNPRIV_COUNT messages answered" \
		$rc "$(tail -3 "$TMPDIR/userns.out")"
}

test_state() {
	$FUZZ --check "$BR_IFX" >"$TMPDIR/check.out" 2>&1
	log_test "every dump parses after the runs (bridges, ports, FDB, VLANs, nft objects)" \
		$? "$(grep -v '^check: .*objects' "$TMPDIR/check.out" | head -5)"
	xnft flush ruleset >/dev/null 2>&1
	# The guard bridge (another namespace, never a target) still forwards.
	ip netns exec g1 ping -q -c 3 -i 0.2 -W 2 198.51.100.2 >/dev/null
	log_test "the guard bridge still forwards" $?
	# xbr0 itself is reset to a known state and still forwards.
	xb link set dev xbr0 vlan_filtering 0 ageing_time 30000 fdb_max_learned 0 conntrack off >/dev/null 2>&1
	for p in fz1 fz2; do
		xb link set dev "$p" state 3 learning on flood on mcast_flood on bcast_flood on \
			isolated off locked off mab off >/dev/null 2>&1
	done
	ip link set xbr0 up
	busywait 5000 ip netns exec h1 ping -q -c 1 -W 1 192.0.2.2 >/dev/null
	log_test "xbr0 forwards again once its options are reset" $?
	ip link del xbr0
	log_test "the fuzzed bridge is deleted" $?
}

ALL_TESTS="
	test_fuzz_root
	test_fuzz_unprivileged
	test_fuzz_userns
	test_state
"

need_xbridge
need_xnft
require_command setpriv unshare
python3 -c 'import yaml' 2>/dev/null || skip_suite "no python3-yaml"
trap cleanup EXIT
t_start=$SECONDS
setup
tests_run
echo "time: xbridge_fuzz.sh $((SECONDS - t_start)) s"
summary
