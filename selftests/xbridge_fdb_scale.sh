#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_fdb_scale.sh [MODULE.ko] - 100k static FDB entries (run inside the
# test kernel, module loaded): add them with a batch file, dump them and
# flush them, on xbr0 (`xbridge -batch`, `xbridge fdb show`, `xbridge fdb
# flush`) and on a Linux bridge br0 (`bridge ...`) side by side. PASS/FAIL
# only on the entry counts (every entry added, dumped exactly once, flushed);
# the times are printed as figures ("time: ..." lines), never checked.
# FDB_SCALE_N overrides the entry count (default 100000); TESTS= picks
# some of test_add, test_dump, test_flush and test_dump_while_growing (run
# in that order).
set -u
source "$(dirname "$0")/lib.sh"
N=${FDB_SCALE_N:-100000}
TMPDIR=$(mktemp -d)

cleanup() {
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	ip link del xswp1 2>/dev/null
	ip link del lswp1 2>/dev/null
	rm -rf "$TMPDIR"
}

setup() {
	ip link add xbr0 type xbridge
	ip link add br0 type bridge
	ip link add xswp1 type veth peer name xswp1p
	ip link add lswp1 type veth peer name lswp1p
	ip link set xswp1 master xbr0
	ip link set lswp1 master br0
	for d in xbr0 br0 xswp1 xswp1p lswp1 lswp1p; do
		ip link set "$d" up
	done
}

# batch_file PORT FILE - N lines "fdb add MAC dev PORT vlan 1 master static"
# with distinct locally administered unicast MACs. With no VID both bridges
# add each MAC twice (VID 0 and every VLAN of the port: the default PVID 1);
# "vlan 1" makes it one entry per line, N in all.
batch_file() {
	awk -v n="$N" -v port="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "fdb add 02:5a:%02x:%02x:%02x:%02x dev %s vlan 1 master static\n",
				int(i / 16777216) % 256, int(i / 65536) % 256,
				int(i / 256) % 256, i % 256, port
	}' >"$2"
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f s", b - a }'; }

# timed VAR CMD... - run CMD (output to $TMPDIR/out), time in VAR.
timed() {
	local var=$1 t0 t1 rc
	shift
	t0=$(now)
	"$@" >"$TMPDIR/out" 2>"$TMPDIR/err"
	rc=$?
	t1=$(now)
	printf -v "$var" '%s' "$(elapsed "$t0" "$t1")"
	return $rc
}

lbr_count() { bridge fdb show br br0 | wc -l; }
xbr_count() { xb fdb show br xbr0 | wc -l; }

test_add() {
	timed t_ladd bridge -batch "$TMPDIR/linux.batch"
	log_test "linux: bridge -batch adds $N static entries" $? "$(head -3 "$TMPDIR/err")"
	timed t_xadd xb -batch "$TMPDIR/xbridge.batch"
	log_test "xbridge: xbridge -batch adds $N static entries" $? "$(head -3 "$TMPDIR/err")"
}

test_dump() {
	local l_n x_n dups n_static
	timed t_ldump bash -c 'bridge fdb show br br0 | wc -l'
	l_n=$(<"$TMPDIR/out")
	timed t_xdump bash -c "'$XB' fdb show br xbr0 | wc -l"
	x_n=$(<"$TMPDIR/out")
	((l_n >= N))
	log_test "linux: dump shows >= $N entries" $? "$l_n (base $l_base)"
	((x_n >= N && x_n == x_base + N))
	log_test "xbridge: dump shows each of $N entries once (+$x_base local)" $? "$x_n"
	dups=$(xb fdb show br xbr0 | sort | uniq -d | wc -l)
	((dups == 0))
	log_test "xbridge: no entry dumped twice" $? "$dups duplicates"
	n_static=$(xb fdb show br xbr0 | grep -c '^02:5a:.* dev xswp1 vlan 1 master xbr0 static$')
	((n_static == N))
	log_test "xbridge: $N static entries on xswp1" $? "$n_static"
}

# Flush (iproute2 6.1: bridge fdb flush dev BR brport PORT static).
test_flush() {
	local l_after x_after
	timed t_lflush bridge fdb flush dev br0 brport lswp1 static
	log_test "linux: flush static entries of the port" $? "$(head -3 "$TMPDIR/err")"
	timed t_xflush xb fdb flush dev xbr0 brport xswp1 static
	log_test "xbridge: flush static entries of the port" $? "$(head -3 "$TMPDIR/err")"
	l_after=$(lbr_count)
	x_after=$(xbr_count)
	((l_after == l_base))
	log_test "linux: only the local entries remain" $? "$l_after, base $l_base"
	((x_after == x_base))
	log_test "xbridge: only the local entries remain" $? "$x_after, base $x_base"
}

# Dumps taken while a batch of N/2 entries goes in, so that the table is
# resized under them: no entry in any dump twice, and the entries that were
# there before the batch in every dump (a dump's position survives a
# resize; a dump of a growing table used to repeat entries).
test_dump_while_growing() {
	local n=0 bad=0 dups stay pid
	awk 'BEGIN { for (i = 0; i < 500; i++)
		printf "fdb add 02:5c:00:00:%02x:%02x dev xswp1 vlan 1 master static\n", int(i / 256), i % 256 }' \
		>"$TMPDIR/stay.batch"
	xb -batch "$TMPDIR/stay.batch"
	head -n $((N / 2)) "$TMPDIR/xbridge.batch" >"$TMPDIR/half.batch"
	xb -batch "$TMPDIR/half.batch" &
	pid=$!
	# At most 8 dumps (CI's time): each takes seconds beside the batch.
	while { kill -0 $pid 2>/dev/null && ((n < 8)); } || ((n == 0)); do
		xb fdb show br xbr0 >"$TMPDIR/dump"
		dups=$(sort "$TMPDIR/dump" | uniq -d | wc -l)
		stay=$(grep -c '^02:5c:' "$TMPDIR/dump")
		((dups == 0 && stay == 500)) || bad=$((bad + 1))
		n=$((n + 1))
	done
	wait $pid
	log_test "xbridge: $n dumps while $((N / 2)) entries went in: none repeats an entry or misses one that stayed" \
		$bad "$bad bad (last: $dups repeated, $stay of 500 present)"
	xb fdb flush dev xbr0 brport xswp1 static
}

ALL_TESTS="
	test_add
	test_dump
	test_flush
	test_dump_while_growing
"

trap cleanup EXIT
setup
batch_file lswp1 "$TMPDIR/linux.batch"
batch_file xswp1 "$TMPDIR/xbridge.batch"
l_base=$(lbr_count)
x_base=$(xbr_count)
t_ladd=- t_xadd=- t_ldump=- t_xdump=- t_lflush=- t_xflush=-
tests_run
echo "time: add $N: linux $t_ladd, xbridge $t_xadd"
echo "time: dump $N: linux $t_ldump, xbridge $t_xdump"
echo "time: flush $N: linux $t_lflush, xbridge $t_xflush"
summary
