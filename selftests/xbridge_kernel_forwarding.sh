#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_kernel_forwarding.sh [MODULE.ko] - Linux 6.1's own bridge
# selftests (tools/testing/selftests/net/forwarding) run against xbridge.ko
# in the test kernel: router_bridge.sh and router_bridge_vlan.sh (IPv4/IPv6
# routed through an address on the bridge device: issue 17's "fix first"),
# and the bridge_*.sh tests that apply (selftests/kforwarding/scripts lists
# them with the tests each runs).
#
# The scripts are not kept in this tree. They come from Debian's
# linux-source-6.1 tarball: $KSELFTEST_FORWARDING if set (a directory
# holding them), else build-kforwarding/ under the repo, which
# `selftests/kforwarding/extract.sh build-kforwarding` fills on the host
# (tools/test-all.sh does before its VM runs), else they are extracted here
# into a temporary directory (about a minute more under TCG). No tarball:
# the suite skips (exit 4).
#
# They run unmodified, with selftests/kforwarding/bin first on PATH: its `ip`
# turns `type bridge` (and `type bridge_slave`) options into the xbridge
# tool's, its `bridge` is the xbridge tool (see those files). Each script
# gets NETIFS on its command line (veth pairs it creates itself), TESTS from
# the list and REQUIRE_MZ=no; every "TEST: ... [ OK ]" line it prints
# becomes a PASS here, [FAIL] a FAIL, and a script that prints no result
# fails. Its own output is shown indented.
#
# In CI they run in the 6.1 test kernel only (KFORWARDING_ALL_KERNELS=1 for
# the others).
#
# Left out, and why:
#   learning, flooding (bridge_vlan_aware/unaware.sh), extern_learn
#   (bridge_vlan_aware.sh: its roaming step), flooding
#   (bridge_port_isolation.sh), bridge_sticky_fdb.sh: need mausezahn
#	(netsniff-ng, not installed here);
#   bridge_igmp.sh, bridge_mld.sh, bridge_mdb*.sh, bridge_vlan_mcast.sh:
#	multicast snooping and the MDB, which xbridge does not implement.
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)
KBIN="$SELFTESTS_DIR/kforwarding/bin"
LIST="$SELFTESTS_DIR/kforwarding/scripts"
NETIF_NAMES="xk1 xk2 xk3 xk4 xk5 xk6 xk7 xk8"

need_xbridge

# The scripts are Linux 6.1's and take 9-10 minutes under TCG: CI runs them
# in the 6.1 test kernel only (its 90-minute budget); set
# KFORWARDING_ALL_KERNELS=1 to run them in any kernel.
if [[ $(uname -r) != 6.1.* && -z ${KFORWARDING_ALL_KERNELS:-} ]]; then
	skip_suite "Linux 6.1's scripts; run in the 6.1 test kernel (KFORWARDING_ALL_KERNELS=1 for $(uname -r))"
fi

kscripts_dir() {
	local d
	for d in "${KSELFTEST_FORWARDING:-}" "$SELFTESTS_DIR/../build-kforwarding"; do
		if [[ -n $d && -f $d/lib.sh ]]; then
			echo "$d"
			return 0
		fi
	done
	bash "$SELFTESTS_DIR/kforwarding/extract.sh" "$TMPDIR/kforwarding" >&2 || return
	echo "$TMPDIR/kforwarding"
}

cleanup() {
	cleanup_netifs
	rm -rf "$TMPDIR"
}

# run_kscript SCRIPT TEST... - one of the kernel's scripts, its results as
# PASS/FAIL lines.
run_kscript() {
	local script=$1 tests="${*:2}" out status line name n=0
	local -A seen=()
	shift
	out=$(cd "$KDIR" && env PATH="$KBIN:$PATH" XBRIDGE="$XB" REQUIRE_MZ=no \
		TESTS="$tests" timeout 600 bash "./$script" $NETIF_NAMES 2>&1)
	status=$?
	sed 's/^/    | /' <<<"$out"
	while IFS= read -r line; do
		[[ $line =~ ^TEST:\ (.*[^ ])\ +\[\ *(OK|FAIL|XFAIL|SKIP)\ *\]$ ]] || continue
		name="$script: ${BASH_REMATCH[1]}"
		n=$((n + 1))
		# A test may print another's line (vlan_deletion pings again).
		seen[$name]=$((${seen[$name]:-0} + 1))
		((${seen[$name]} == 1)) || name+=" (#${seen[$name]})"
		case ${BASH_REMATCH[2]} in
		OK) log_test "$name" 0 ;;
		SKIP) log_test_skip "$name" ;;
		*) log_test "$name" 1 ;;
		esac
	done <<<"$out"
	((n > 0)) || log_test "$script: $tests" 1 "no result (exit $status)"
	cleanup_netifs
}

cleanup_netifs() {
	local n
	for n in $NETIF_NAMES; do
		ip link del "$n" 2>/dev/null
	done
}

trap cleanup EXIT
KDIR=$(kscripts_dir)
status=$?
((status == 0)) || skip_suite "Linux's forwarding selftests not found (extract.sh: $status)"

while read -r script tests; do
	[[ -z $script || $script == \#* ]] && continue
	if [[ -n ${TESTS:-} ]] && ! grep -qw -- "${script%.sh}" <<<"$TESTS"; then
		continue
	fi
	run_kscript "$script" $tests
done <"$LIST"
summary
