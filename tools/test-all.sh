#!/bin/bash
# test-all.sh - run every xbridge test; the one command CI and developers use.
#
#   1. tools/bootstrap.sh installs the Debian packages the build needs;
#   2. build-test/ (gcc, AddressSanitizer + UndefinedBehaviorSanitizer, any
#      UBSan report is fatal): `meson test` runs every registered test
#      (core unit tests, the kernel-safety check of the core sources, ...);
#   3. build-fuzz/ (clang, libFuzzer): the bounded fuzz smoke tests (~60 s each);
#   4. for each test kernel (6.1 and 6.12; $XBRIDGE_TEST_KERNELS chooses):
#      xbridge.ko built for it (build-kmod/, build-kmod-6.12/), then the
#      selftests/xbridge_*.sh run in that kernel under qemu (tools/vm/run.sh),
#      which also fails on any WARNING, BUG, oops, lockdep splat or RCU stall;
#      two VMs at a time ($XBRIDGE_TEST_LANES);
#   5. the host-side selftests, selftests/host_*.sh (e.g. the Debian packages).
# Build dirs are reconfigured when present, so the script is idempotent.
# Selftests follow selftests/lib.sh: PASS/FAIL/SKIP lines, exit 4 for a
# suite whose requirement is missing (counted as skipped, not failed).
# The last line is "N passed, N failed"; the exit status is non-zero if
# anything failed (a build or configure failure counts as one failure).
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:print_summary=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1}

source tools/vm/suites.sh
t_all=$SECONDS

# configure DIR [meson options...]: set up DIR, or reconfigure it if it exists.
configure() {
	local dir=$1
	shift
	if [[ -f $dir/meson-private/coredata.dat ]]; then
		meson setup --reconfigure "$dir" "$@"
	else
		rm -rf "$dir"
		meson setup "$dir" "$@"
	fi
}

# run_tests DIR [meson test options...]: build and run, then add meson's
# Ok/Fail/Timeout counts to the totals.
run_tests() {
	local dir=$1
	shift
	local log="$dir/test-all.log"
	# Build everything first: the selftests use the tool from build-test/,
	# which no meson test depends on.
	local t0=$SECONDS
	if ! meson compile -C "$dir"; then
		tally_fail "building $dir failed"
		return
	fi
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	local ok bad line
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	bad=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$log")
	if [[ -z $ok ]]; then
		tally_fail "no test summary from $dir (build failed?)"
		return
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	# meson's result lines: " 3/9 name   FAIL   1.2s   exit status 1"
	while IFS= read -r line; do
		tally_failures+=("[$dir] $line")
	done < <(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|UNEXPECTEDPASS) ' "$log" | sed 's/^ *//' | sort -u)
	tally_time "$dir: build and meson test" $((SECONDS - t0))
}

echo "== build-test: gcc, ASan + UBSan"
if configure build-test -Db_sanitize=address,undefined -Db_lundef=false \
	-Dcpp_args=-fno-sanitize-recover=all; then
	run_tests build-test
else
	tally_fail "configuring build-test failed"
fi

# The tools once more, without sanitizers (build-tools/), for the one suite
# whose subject is the kernel, not the tools: the conformance differential
# starts xnft or xbridge thousands of times, and under TCG an ASan build
# costs about a quarter of a second more a process (30 nft scenarios: 89 s
# with build-test's tools, 58 s with these). Every other suite keeps
# build-test's ASan tools.
echo "== build-tools: xnft and xbridge without sanitizers"
if configure build-tools --buildtype=release; then
	t0=$SECONDS
	if ninja -C build-tools tools/xnft/xnft tools/xbridge/xbridge; then
		release_tools=(--env "XNFT=$PWD/build-tools/tools/xnft/xnft"
			--env "XBRIDGE=$PWD/build-tools/tools/xbridge/xbridge")
	else
		tally_fail "building build-tools failed"
	fi
	tally_time "build-tools: xnft and xbridge" $((SECONDS - t0))
else
	tally_fail "configuring build-tools failed"
fi

echo "== build-fuzz: clang, libFuzzer smoke tests"
if CXX=clang++ CC=clang configure build-fuzz -Dfuzz=true; then
	run_tests build-fuzz --suite fuzz
else
	tally_fail "configuring build-fuzz failed"
fi

# The selftests in the test kernels: each of $XBRIDGE_TEST_KERNELS (series or
# full versions; default both supported kernels, 6.1 and 6.12) gets its own
# xbridge.ko (build-kmod/ for 6.1, build-kmod-SERIES/ for the others) and runs
# every selftests/xbridge_*.sh.
read -ra test_kernels <<<"${XBRIDGE_TEST_KERNELS:-6.1 6.12}"
# Linux's own forwarding selftests for xbridge_kernel_forwarding.sh, taken
# from the kernel source tarball once, here (the guest would take a minute).
bash selftests/kforwarding/extract.sh build-kforwarding ||
	echo "test-all: no Linux forwarding selftests (xbridge_kernel_forwarding.sh will skip)" >&2

# suite_profile SERIES SUITE: the run.sh options of SUITE on SERIES, in $profile.
# The conformance suite runs the tools of build-tools/ (above).
# The first kernel runs every suite whole. The others run every suite too,
# at a smaller size where the size is a knob: the conformance corpus whole
# but a fifth of its generated scenarios, and neither its tools pass (it
# checks the tools' words, not the kernel) nor its offload pass
# (xbridge_flowtable.sh tests the flowtable on every kernel; the offload
# differential is the first kernel's), 20,000 fuzzed messages, a flood of
# 200,000 sources, 20,000 FDB entries. This keeps CI inside its 90 minutes
# (measured: see Documentation/testing.md).
suite_profile() {
	profile=()
	[[ $2 == */xbridge_conformance.sh ]] && profile+=(${release_tools[@]+"${release_tools[@]}"})
	[[ $1 == "${test_kernels[0]}" ]] && return
	profile+=(--env CONFORMANCE_GENERATED=20 --env CONFORMANCE_NFT_GENERATED=20
		--env CONFORMANCE_CT_GENERATED=20 --env CONFORMANCE_CT_FRAG_GENERATED=5
		--env CONFORMANCE_NO_TOOLS=1
		--env CONFORMANCE_NO_OFFLOAD=1
		--env FUZZ_COUNT=20000 --env MACFLOOD_N=200000 --env FDB_SCALE_N=20000)
}

# Every kernel's module first, then the (kernel, suite) jobs, the slowest
# suites first so that no lane is left with a long one at the end.
slow_first=(xbridge_conformance xbridge_kernel_forwarding xbridge_fuzz
	xbridge_fdb_scale xbridge_stress)
jobs=()
for series in "${test_kernels[@]}"; do
	echo "== test kernel $series: xbridge.ko"
	if ! kver=$(tools/kernel-version.sh "$series"); then
		tally_fail "no test kernel $series (tools/bootstrap.sh)"
		continue
	fi
	kdir=build-kmod
	[[ $series == 6.1 ]] || kdir=build-kmod-$series
	if ! bash kmod-shim/build.sh "$kdir" "$kver" >"$kdir.log" 2>&1; then
		cat "$kdir.log" >&2
		tally_fail "building xbridge.ko for $kver failed"
		continue
	fi
	tail -1 "$kdir.log"
	for suite in selftests/xbridge_*.sh; do
		jobs+=("$series $kver $kdir $suite")
	done
done
ordered=()
for name in "${slow_first[@]}"; do
	for job in "${jobs[@]}"; do
		[[ $job == *"/$name.sh" ]] && ordered+=("$job")
	done
done
for job in "${jobs[@]}"; do
	[[ " ${ordered[*]} " == *" $job "* ]] || ordered+=("$job")
done

# $XBRIDGE_TEST_LANES VMs at once (default 2; run_in_lanes in
# tools/vm/suites.sh). A 2-vCPU TCG guest keeps more than one host core busy,
# so each suite runs about 1.6 times slower beside another, and two lanes on
# this 2-core machine save about a fifth of one lane's time
# (Documentation/testing.md, "CI's time"). A job only writes its suite's
# files in its kernel's build directory; the counting is done afterwards, in
# order.
echo "== the selftests in the test kernels: ${#ordered[@]} suites, ${XBRIDGE_TEST_LANES:-2} at once"
t_kernels=$SECONDS
run_job() {		# run_job INDEX LOCK
	local series kver kdir suite
	read -r series kver kdir suite <<<"${ordered[$1]}"
	suite_profile "$series" "$suite"
	XBRIDGE_VM_LOCK=$2 vm_suite "$series" "$kver" "$kdir" "$suite" --timeout 2400 \
		${profile[@]+"${profile[@]}"}
}
run_in_lanes "${XBRIDGE_TEST_LANES:-2}" "${#ordered[@]}" run_job
for job in "${jobs[@]}"; do
	read -r series kver kdir suite <<<"$job"
	tally_suite "$series" "$kdir" "$suite"
done
echo "test-all: the selftests in the test kernels took $((SECONDS - t_kernels)) s"

# Host-side selftests (selftests/host_*.sh): they run on the build host as
# root, boot the test kernels themselves, and print PASS/FAIL lines.
# First the test-kernel runner's own checks (tools/vm/selftest.sh): that
# its log scan catches each kind of report, that a WARN fails a run, that
# an int3 oops outside xbridge is run once more and then fails, and the
# timeout; every suite above trusts them.
echo "== the test-kernel runner's own checks: tools/vm/selftest.sh"
t_suite=$SECONDS
log=build-test/vm-selftest.log
bash tools/vm/selftest.sh >"$log" 2>&1	# the boots' consoles: the log only
status=$?
grep -E '^(PASS|FAIL|SKIP):' "$log"
tally_log host "$log"
if ((status != 0)) && ! grep -q '^FAIL:' "$log"; then
	tally_fail "[host] tools/vm/selftest.sh: exit status $status"
fi
tally_time "[host] tools/vm/selftest.sh" $((SECONDS - t_suite))
echo "test-all: tools/vm/selftest.sh took $((SECONDS - t_suite)) s"

for suite in selftests/host_*.sh; do
	[[ -e $suite ]] || continue
	echo "== host selftest $suite"
	t_suite=$SECONDS
	log="build-test/$(basename "$suite" .sh).log"
	bash "$suite" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	tally_log host "$log"
	if ((status != 0 && status != 4)) && ! grep -q '^FAIL:' "$log"; then
		tally_fail "[host] $suite: exit status $status"
	fi
	tally_time "[host] $suite" $((SECONDS - t_suite))
	echo "test-all: $suite took $((SECONDS - t_suite)) s"
done

echo "test-all: everything took $((SECONDS - t_all)) s"
tally_report
