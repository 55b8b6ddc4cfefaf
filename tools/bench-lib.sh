# SPDX-License-Identifier: GPL-2.0
# bench-lib.sh - what the guest side of the kernel benchmarks (tools/bench-*.sh)
# shares. Sourced, after $root is set to the repository.
#
#   bench_guest NAME       refuse to run outside the test kernel; export the
#                          sanitizer options the tools need there
#   bench_tool VAR PATH    VAR (XB, XNFT) from $XBRIDGE / $XNFT or the first
#                          build directory holding PATH (build/, build-test/,
#                          build-tool/, build-dev/); a BENCH error and exit 1
#                          when there is none

bench_guest() {
	[[ -n ${XBRIDGE_VM:-} ]] || { echo "$1: --guest runs in the test kernel only" >&2; exit 2; }
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
}

bench_tool() {
	local var=$1 rel=$2 env d
	case $var in
	XB) env=${XBRIDGE:-} ;;
	XNFT) env=${XNFT:-} ;;
	esac
	for d in build build-test build-tool build-dev; do
		[[ -z $env && -x $root/$d/$rel ]] && env=$root/$d/$rel
	done
	[[ -x $env ]] || { echo "BENCH error no $rel in build/"; exit 1; }
	printf -v "$var" '%s' "$env"
}
