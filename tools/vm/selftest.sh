#!/bin/bash
# selftest.sh - prove that the test-kernel runner (tools/vm/run.sh) works.
#
#   tools/vm/selftest.sh            run every check (about 1-2 minutes, 3 boots)
#
# Checks:
#   scan-clean   --scan-log passes a clean canned log, even with "WARNING:" in
#                command output (only kernel lines are scanned)
#   scan-splat   --scan-log fails canned logs with a WARNING, BUG, RCU stall, ...
#   ping         in the guest: two network namespaces joined by veth pairs to a
#                *Linux* bridge (br0) ping each other; the command's status
#                comes back and a clean kernel log passes
#   warning      a run that loads warn-test/warn_test.ko (built here against the
#                test kernel's headers; it WARN()s on load) must fail with 120,
#                and the module must still be unloaded
#   timeout      a run longer than --timeout is killed and fails with 124
#   debug-kasan, debug-ubsan, debug-kmemleak
#                on the debug kernel (tools/vm/build-debug-kernel.sh; SKIP when
#                it is not built): warn_test.ko mode=kasan / ubsan / leak makes
#                a real KASAN report, UBSAN report and kmemleak leak, and each
#                run must fail with 120 naming it
# Prints PASS/FAIL per check and ends with 'N passed, N failed'; exit 0 if all pass.
#
# Internal: selftest.sh --guest-ping is the ping check's command inside the guest.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XBRIDGE_VM_CACHE:-$repo/build-vm}

if [[ ${1:-} == --guest-ping ]]; then
	set -ex
	[[ ${XBRIDGE_VM:-} == 1 ]]
	ip link add br0 type bridge
	ip link set br0 up
	for h in h1 h2; do
		ip netns add $h
		ip link add v$h type veth peer name eth0 netns $h
		ip link set v$h master br0 up
		ip -n $h link set lo up
	done
	ip -n h1 addr add 10.0.0.1/24 dev eth0
	ip -n h2 addr add 10.0.0.2/24 dev eth0
	ip -n h1 link set eth0 up
	ip -n h2 link set eth0 up
	ip netns exec h1 ping -c 3 -i 0.2 -W 2 10.0.0.2
	ip netns exec h2 ping -c 1 -W 2 10.0.0.1
	bridge fdb show br br0 dynamic
	echo "WARNING: command output like this must not fail the run"
	ip link del br0
	ip netns del h1
	ip netns del h2
	exit 0
fi

cd "$repo" || exit 1
passed=0 failed=0
pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1${2:+ ($2)}"; failed=$((failed + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- the log scanner on canned logs -------------------------------------------
cat >"$tmp/clean.log" <<'EOF'
[    3.133640] Run /init as init process
[    1.425361] rcu: 	RCU lockdep checking is enabled.
vm: running the command in /work/main
WARNING: user output, not a kernel line
BUG: neither is this
XBRIDGE-VM-EXIT-0011: 0
XBRIDGE-VM-DMESG-BEGIN-0011
[    3.133640] Run /init as init process
[    5.000000] xbridge: loading out-of-tree module taints kernel.
XBRIDGE-VM-DMESG-END-0011
EOF
if out=$("$here/run.sh" --scan-log "$tmp/clean.log" 2>&1); then
	pass "scan-clean"
else
	fail "scan-clean" "$out"
fi

splats=(
	'[   12.345678] WARNING: CPU: 1 PID: 42 at net/core/dev.c:10 foo+0x1/0x2'
	'[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000008'
	'[   12.345678] Oops: 0000 [#1] PREEMPT SMP NOPTI'
	'[   12.345678] rcu: INFO: rcu_preempt self-detected stall on CPU'
	'[   12.345678] unregister_netdevice: waiting for veth1 to become free. Usage count = 2'
	'[   12.345678] refcount_t: underflow; use-after-free.'
	'[   12.345678] BUG: KASAN: slab-out-of-bounds in xbr_fdb_add+0x42/0x100 [xbridge]'
	'[   12.345678] UBSAN: array-index-out-of-bounds in net/xbridge/fdb.c:12:3'
	'[   12.345678] WARNING: possible circular locking dependency detected'
	'unreferenced object 0xffff888003a1b2c0 (size 64):'
)
ok=1
for s in "${splats[@]}"; do
	printf 'XBRIDGE-VM-DMESG-BEGIN-aa\n%s\nXBRIDGE-VM-DMESG-END-aa\n' "$s" >"$tmp/splat.log"
	"$here/run.sh" --scan-log "$tmp/splat.log" >/dev/null 2>&1
	rc=$?
	((rc == 120)) || { ok=""; fail "scan-splat" "status $rc for: $s"; }
done
# A timestamped console line outside the dmesg dump counts too (crash before the dump).
printf '%s\n' "${splats[2]}" >"$tmp/splat.log"
"$here/run.sh" --scan-log "$tmp/splat.log" >/dev/null 2>&1
rc=$?
((rc == 120)) || { ok=""; fail "scan-splat" "status $rc for a console-only oops"; }
[[ -z $ok ]] || pass "scan-splat"

# --- ping through the Linux bridge in the guest -------------------------------
start=$EPOCHREALTIME
"$here/run.sh" --log "$tmp/ping.log" -- "$here/selftest.sh" --guest-ping
rc=$?
secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
if ((rc != 0)); then
	fail "ping" "status $rc"
elif ! grep -q '3 packets transmitted, 3 received' "$tmp/ping.log"; then
	fail "ping" "no ping replies in the log"
else
	pass "ping (${secs} s)"
fi

# --- a kernel WARNING fails the run -------------------------------------------
ver=$("$here/run.sh" --print-kernel)
wdir=$cache/warn-test-$ver
if [[ ! -e /lib/modules/$ver/build/Makefile ]]; then
	fail "warning" "no headers for $ver (linux-headers-amd64)"
elif ! { mkdir -p "$wdir" && cp "$here/warn-test/warn_test.c" "$here/warn-test/Kbuild" "$wdir/" &&
	make -s -C "/lib/modules/$ver/build" M="$wdir" modules >"$tmp/kbuild.log" 2>&1; }; then
	fail "warning" "building warn_test.ko failed: $(tail -n 5 "$tmp/kbuild.log")"
else
	"$here/run.sh" --kernel "$ver" --log "$tmp/warn.log" --module "$wdir/warn_test.ko" -- true
	rc=$?
	if ((rc != 120)); then
		fail "warning" "status $rc, expected 120"
	elif ! grep -q 'vm: rmmod warn_test' "$tmp/warn.log"; then
		fail "warning" "the module was not unloaded"
	else
		pass "warning"
	fi
	# An int3 oops outside xbridge during the command is run once more
	# (TCG's text-patching race), and fails when it comes back.
	"$here/run.sh" -q --kernel "$ver" --log "$tmp/int3.log" -- \
		bash -c "insmod $wdir/warn_test.ko mode=int3" 2>"$tmp/int3.err"
	rc=$?
	if ((rc == 0)); then
		fail "int3 retry" "status 0, expected a failure"
	elif (($(grep -c '^vm: RETRY: a TCG int3 oops' "$tmp/int3.err") != 1)); then
		fail "int3 retry" "expected one RETRY line: $(tr '\n' ' ' <"$tmp/int3.err")"
	elif ! grep -q 'int3: 0000' "$tmp/int3.log" || ! grep -q 'int3: 0000' "$tmp/int3.log.int3"; then
		fail "int3 retry" "no int3 oops in both runs' logs"
	else
		pass "int3 retry (status $rc)"
	fi
fi

# --- the wall-clock timeout ---------------------------------------------------
"$here/run.sh" --timeout 20 -q -- sleep 600
rc=$?
if ((rc == 124)); then pass "timeout"; else fail "timeout" "status $rc, expected 124"; fi

# --- a boot that hangs before the command ------------------------------------
# The watchdog kills a boot that has not started the command in time, boots
# once more, and fails the run when the second boot hangs too.
XBRIDGE_VM_BOOT_LIMIT=3 "$here/run.sh" -q --log "$tmp/hang.log" -- true 2>"$tmp/hang.err"
rc=$?
if ((rc != 124)); then
	fail "boot watchdog" "status $rc, expected 124"
elif (($(grep -c '^vm: the boot did not reach the command in 3s and printed no kernel report' "$tmp/hang.err") != 1)) ||
	! grep -q '^vm: FAIL: the boot did not reach the command in 3s' "$tmp/hang.err"; then
	fail "boot watchdog" "expected one reboot and a FAIL: $(tr '\n' ' ' <"$tmp/hang.err")"
elif [[ ! -s $tmp/hang.log.hung ]]; then
	fail "boot watchdog" "the hung boot's log was not kept"
else
	pass "boot watchdog (status $rc)"
fi

# --- the debug kernel's checkers fail the run ----------------------------------
if ! ddir=$("$here/build-debug-kernel.sh" --print-dir); then
	echo "SKIP: debug-kasan, debug-ubsan, debug-kmemleak (the debug kernel is not built: tools/vm/build-debug-kernel.sh)"
else
	dver=$(cat "$ddir/release")
	ddw=$cache/warn-test-$dver
	if ! { mkdir -p "$ddw" && cp "$here/warn-test/warn_test.c" "$here/warn-test/Kbuild" "$ddw/" &&
		make -s -C "$ddir/obj" M="$ddw" modules >"$tmp/kbuild-debug.log" 2>&1; }; then
		fail "debug" "building warn_test.ko for $dver failed: $(tail -n 5 "$tmp/kbuild-debug.log")"
	else
		for check in kasan:'BUG: KASAN: slab-out-of-bounds' ubsan:'UBSAN: array-index-out-of-bounds' \
			leak:'unreferenced object'; do
			m=${check%%:*} want=${check#*:}
			"$here/run.sh" -q --kernel debug --log "$tmp/debug-$m.log" --timeout 900 -- \
				bash -c "insmod $ddw/warn_test.ko mode=$m && rmmod warn_test"
			rc=$?
			name=debug-$m; [[ $m != leak ]] || name=debug-kmemleak
			if ((rc != 120)); then
				fail "$name" "status $rc, expected 120"
			elif ! grep -q "$want" "$tmp/debug-$m.log"; then
				fail "$name" "no '$want' in the log"
			else
				pass "$name"
			fi
		done
	fi
fi

echo "$passed passed, $failed failed"
((failed == 0))
