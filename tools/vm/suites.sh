# SPDX-License-Identifier: GPL-2.0
# suites.sh - the tally shared by tools/test-all.sh and tools/test-debug.sh
# (sourced, not run): one selftest suite in the test kernel, its PASS, FAIL
# and SKIP lines counted, its time kept, and at the end a list of every
# failure and of the slowest steps, printed last so that a log kept only by
# its tail (CI's) still says what failed.
#
# State: passed, failed, skipped (counts), tally_failures, tally_times and
# tally_retries (lines), all owned by the sourcing script, which runs one
# suite at a time.

passed=0
failed=0
skipped=0
tally_failures=()
tally_times=()
tally_retries=()

# tally_fail MSG: one failure that no FAIL: line reports (a build, a crash).
tally_fail() {
	failed=$((failed + 1))
	tally_failures+=("$1")
	echo "test: $1" >&2
}

# tally_time LABEL SECONDS: keep how long a step took.
tally_time() {
	tally_times+=("$(printf '%6d s  %s' "$2" "$1")")
}

# tally_log LABEL LOG: count the PASS/FAIL/SKIP lines of LOG and keep its
# FAIL lines, tagged with LABEL.
tally_log() {
	local label=$1 log=$2 line
	passed=$((passed + $(grep -c '^PASS:' "$log")))
	skipped=$((skipped + $(grep -c '^SKIP:' "$log")))
	while IFS= read -r line; do
		failed=$((failed + 1))
		tally_failures+=("[$label] ${line#FAIL: }")
	done < <(grep '^FAIL:' "$log")
}

# vm_suite LABEL KERNEL KDIR SUITE [run.sh options...]: run SUITE in KERNEL
# (a version, or "debug") with KDIR/xbridge.ko loaded, holding the VM lock
# (/tmp/xbridge-vm.lock, or $XBRIDGE_VM_LOCK). Writes KDIR/NAME.log (run.sh's
# output), KDIR/NAME.vm.log (the guest's console) and KDIR/NAME.status
# ("STATUS SECONDS"); counts nothing, so it may run in a background lane.
vm_suite() {
	local label=$1 kernel=$2 kdir=$3 suite=$4 name status t0=$SECONDS
	shift 4
	name=$(basename "$suite" .sh)
	local log=$kdir/$name.log vmlog=$kdir/$name.vm.log
	rm -f "$vmlog" "$kdir/$name.status"
	flock "${XBRIDGE_VM_LOCK:-/tmp/xbridge-vm.lock}" tools/vm/run.sh -q --kernel "$kernel" --log "$vmlog" "$@" \
		--module "$kdir/xbridge.ko" -- "$suite" "$kdir/xbridge.ko" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	touch "$vmlog"
	grep -E '^(PASS|FAIL|SKIP):' "$vmlog" | sed "s/^\(PASS\|FAIL\|SKIP\): /&[$label] /" | tee -a "$log"
	echo "$status $((SECONDS - t0))" >"$kdir/$name.status"
	echo "test: [$label] $name took $((SECONDS - t0)) s (status $status)"
}

# report_lines LOG VMLOG: the first kernel lines run.sh quoted as problems
# in LOG and the first RIP: line of the console log VMLOG, on one line, so that the failure list (all CI keeps) says what the
# kernel reported and where.
report_lines() {
	{
		sed -n '/^vm: FAIL: the kernel log shows problems/,/^vm: exit status/{/^    /p}' "$1" |
			head -n 4
		grep -m 1 -E 'RIP: [0-9]+:' "$2"
	} | tr -d '\r' | sed 's/^ *//' | paste -sd '|' -
}

# tally_suite LABEL KDIR SUITE: count what vm_suite left for SUITE.
# Exit 4 from the suite (lib.sh's $ksft_skip) is a skip, not a failure; a
# kernel report (run.sh's status 120, or its FAIL line when the command
# failed too) fails the suite even when every check passed.
tally_suite() {
	local label=$1 kdir=$2 name status secs line
	name=$(basename "$3" .sh)
	local log=$kdir/$name.log vmlog=$kdir/$name.vm.log
	if [[ ! -f $kdir/$name.status || ! -f $vmlog ]]; then
		tally_fail "[$label] $name: did not run"
		return
	fi
	read -r status secs <"$kdir/$name.status"
	tally_log "$label" "$vmlog"
	while IFS= read -r line; do
		tally_retries+=("[$label] $name: ${line#vm: RETRY: }")
	done < <(grep '^vm: RETRY:' "$log")
	if ((status == 120)) || grep -q '^vm: FAIL: the kernel log shows problems' "$log"; then
		tally_fail "[$label] $name: the kernel log shows a report (see $vmlog): $(report_lines "$log" "$vmlog")"
	elif ((status != 0 && status != 4)) && ! grep -q '^FAIL:' "$vmlog"; then
		tally_fail "[$label] $name: exit status $status (see $vmlog)"
	fi
	tally_time "[$label] $name" "$secs"
}

# run_in_lanes LANES COUNT FN: FN INDEX LOCK for each INDEX of 0..COUNT-1,
# LANES at a time. Each lane takes the next index not yet taken (mkdir in a
# scratch directory is the claim) and runs it under a VM lock of its own;
# one lane runs in order under $XBRIDGE_VM_LOCK (default
# /tmp/xbridge-vm.lock). FN must only write its own files (vm_suite does);
# the caller counts afterwards, in order.
run_in_lanes() {
	local lanes=$1 count=$2 fn=$3 claims l
	claims=$(mktemp -d)
	_lane() {	# _lane LOCK
		local i
		for ((i = 0; i < count; i++)); do
			mkdir "$claims/$i" 2>/dev/null || continue
			"$fn" "$i" "$1"
		done
	}
	if ((lanes > 1)); then
		for ((l = 0; l < lanes; l++)); do
			_lane "$claims/lane$l.lock" &
		done
		wait
	else
		_lane "${XBRIDGE_VM_LOCK:-/tmp/xbridge-vm.lock}"
	fi
	rm -rf "$claims"
}

# run_suite_in_vm LABEL KERNEL KDIR SUITE [run.sh options...]: vm_suite,
# then tally_suite.
run_suite_in_vm() {
	vm_suite "$@"
	tally_suite "$1" "$3" "$4"
}

# tally_report: the slowest steps, every failure, and the last line
# "N passed, N failed"; returns non-zero if anything failed.
tally_report() {
	local line
	echo "== times (slowest first)"
	printf '%s\n' "${tally_times[@]}" | sort -rn | head -20
	echo "== $skipped checks skipped (SKIP: lines; a suite that exits 4 skipped itself)"
	if ((${#tally_retries[@]})); then
		echo "== ${#tally_retries[@]} suites run twice (tools/vm/run.sh: TCG's int3 race, not a kernel report of xbridge)"
		printf 'RETRIED: %s\n' "${tally_retries[@]}"
	fi
	if ((${#tally_failures[@]})); then
		echo "== failures"
		for line in "${tally_failures[@]}"; do
			echo "FAILED: $line"
		done
	fi
	echo "$passed passed, $failed failed"
	((failed == 0))
}
