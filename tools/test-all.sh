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

passed=0
failed=0
skipped=0

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
	if ! meson compile -C "$dir"; then
		echo "test-all: building $dir failed" >&2
		failed=$((failed + 1))
		return
	fi
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	local ok bad
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	bad=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {n += $NF} END {print n + 0}' "$log")
	if [[ -z $ok ]]; then
		echo "test-all: no test summary from $dir (build failed?)" >&2
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
}

echo "== build-test: gcc, ASan + UBSan"
if configure build-test -Db_sanitize=address,undefined -Db_lundef=false \
	-Dcpp_args=-fno-sanitize-recover=all; then
	run_tests build-test
else
	echo "test-all: configuring build-test failed" >&2
	failed=$((failed + 1))
fi

echo "== build-fuzz: clang, libFuzzer smoke tests"
if CXX=clang++ CC=clang configure build-fuzz -Dfuzz=true; then
	run_tests build-fuzz --suite fuzz
else
	echo "test-all: configuring build-fuzz failed" >&2
	failed=$((failed + 1))
fi

# The selftests in the test kernels: each of $XBRIDGE_TEST_KERNELS (series or
# full versions; default both supported kernels, 6.1 and 6.12) gets its own
# xbridge.ko (build-kmod/ for 6.1, build-kmod-SERIES/ for the others) and runs
# every selftests/xbridge_*.sh. The time each kernel takes is printed. Each VM
# run holds /tmp/xbridge-vm.lock (one VM at a time on a shared machine).
read -ra test_kernels <<<"${XBRIDGE_TEST_KERNELS:-6.1 6.12}"
# Linux's own forwarding selftests for xbridge_kernel_forwarding.sh, taken
# from the kernel source tarball once, here (the guest would take a minute).
bash selftests/kforwarding/extract.sh build-kforwarding ||
	echo "test-all: no Linux forwarding selftests (xbridge_kernel_forwarding.sh will skip)" >&2
for series in "${test_kernels[@]}"; do
	echo "== test kernel $series: xbridge.ko and the selftests"
	t_kernel=$SECONDS
	if ! kver=$(tools/kernel-version.sh "$series"); then
		echo "test-all: no test kernel $series (tools/bootstrap.sh)" >&2
		failed=$((failed + 1))
		continue
	fi
	kdir=build-kmod
	[[ $series == 6.1 ]] || kdir=build-kmod-$series
	if ! bash kmod-shim/build.sh "$kdir" "$kver" >"$kdir.log" 2>&1; then
		cat "$kdir.log" >&2
		echo "test-all: building xbridge.ko for $kver failed" >&2
		failed=$((failed + 1))
		continue
	fi
	tail -1 "$kdir.log"
	for suite in selftests/xbridge_*.sh; do
		log="$kdir/$(basename "$suite" .sh).log"
		vmlog="$kdir/$(basename "$suite" .sh).vm.log"
		flock /tmp/xbridge-vm.lock tools/vm/run.sh -q --kernel "$kver" --log "$vmlog" --timeout 2400 \
			--module "$kdir/xbridge.ko" -- "$suite" "$kdir/xbridge.ko" 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
		grep -E '^(PASS|FAIL|SKIP):' "$vmlog" | sed "s/^\(PASS\|FAIL\|SKIP\): /&[$series] /" | tee -a "$log"
		ok=$(grep -c '^PASS:' "$vmlog")
		bad=$(grep -c '^FAIL:' "$vmlog")
		passed=$((passed + ok))
		failed=$((failed + bad))
		skipped=$((skipped + $(grep -c '^SKIP:' "$vmlog")))
		# Exit 4 (lib.sh's $ksft_skip): the suite's requirement is missing
		# in this kernel; its SKIP line is counted above, not a failure.
		if ((status != 0 && status != 4 && bad == 0)); then
			echo "test-all: $suite failed in the test kernel $kver (status $status)" >&2
			failed=$((failed + 1))
		fi
	done
	echo "test-all: the selftests on $kver took $((SECONDS - t_kernel)) s"
done

# Host-side selftests (selftests/host_*.sh): they run on the build host as
# root, boot the test kernels themselves, and print PASS/FAIL lines.
for suite in selftests/host_*.sh; do
	[[ -e $suite ]] || continue
	echo "== host selftest $suite"
	t_suite=$SECONDS
	log="build-test/$(basename "$suite" .sh).log"
	bash "$suite" 2>&1 | tee "$log"
	status=${PIPESTATUS[0]}
	ok=$(grep -c '^PASS:' "$log")
	bad=$(grep -c '^FAIL:' "$log")
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + $(grep -c '^SKIP:' "$log")))
	if ((status != 0 && status != 4 && bad == 0)); then
		echo "test-all: $suite failed (status $status)" >&2
		failed=$((failed + 1))
	fi
	echo "test-all: $suite took $((SECONDS - t_suite)) s"
done

echo "test-all: $skipped checks skipped (SKIP: lines; a suite that exits 4 skipped itself)"
echo "$passed passed, $failed failed"
((failed == 0))
