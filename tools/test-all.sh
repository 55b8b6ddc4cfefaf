#!/bin/bash
# test-all.sh - run every xbridge test; the one command CI and developers use.
#
#   1. tools/bootstrap.sh installs the Debian packages the build needs;
#   2. build-test/ (gcc, AddressSanitizer + UndefinedBehaviorSanitizer, any
#      UBSan report is fatal): `meson test` runs every registered test
#      (core unit tests, the kernel-safety check of the core sources, ...);
#   3. build-fuzz/ (clang, libFuzzer): the bounded fuzz smoke tests (~60 s each);
#   4. build-kmod/: xbridge.ko for the test kernel, then the selftests in
#      selftests/ run in that kernel under qemu (tools/vm/run.sh), which also
#      fails on any WARNING, BUG, oops, lockdep splat or RCU stall.
# Build dirs are reconfigured when present, so the script is idempotent.
# The last line is "N passed, N failed"; the exit status is non-zero if
# anything failed (a build or configure failure counts as one failure).
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh || exit 1

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:print_summary=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1:print_summary=1}

passed=0
failed=0

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

echo "== test kernel: xbridge.ko and the selftests"
kver=$(tools/vm/run.sh --print-kernel)
if bash kmod-shim/build.sh build-kmod "$kver" >build-kmod.log 2>&1; then
	tail -1 build-kmod.log
	for suite in selftests/xbridge_*.sh; do
		log="build-kmod/$(basename "$suite" .sh).log"
		tools/vm/run.sh -q --timeout 2400 --module build-kmod/xbridge.ko -- \
			"$suite" build-kmod/xbridge.ko 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
		grep -E '^(PASS|FAIL):' build-vm/last.log | tee -a "$log"
		ok=$(grep -c '^PASS:' build-vm/last.log)
		bad=$(grep -c '^FAIL:' build-vm/last.log)
		passed=$((passed + ok))
		failed=$((failed + bad))
		if ((status != 0 && bad == 0)); then
			echo "test-all: $suite failed in the test kernel (status $status)" >&2
			failed=$((failed + 1))
		fi
	done
else
	cat build-kmod.log >&2
	echo "test-all: building xbridge.ko failed" >&2
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
((failed == 0))
