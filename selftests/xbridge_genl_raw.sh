#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_genl_raw.sh - the xbridge generic netlink family through raw
# messages (selftests/genl_raw.py), in the test kernel with the module
# loaded: bridge options, FDB add/dump/get/del/flush, VLANs, port flags,
# strict validation and extended acks for input the xbridge tool cannot
# produce, CAP_NET_ADMIN on changes, and monitor notifications.
# The tests run in ALL_TESTS' order on one topology (TESTS= picks some).
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)
# The system python: the test also runs it as an unprivileged user.
PY=/usr/bin/python3
[[ -x $PY ]] || PY=python3
GENL="$PY $SELFTESTS_DIR/genl_raw.py"

MAC1=02:00:00:00:01:01
MAC2=02:00:00:00:01:02
MAC3=02:00:00:00:01:03
MACX=02:00:00:00:0a:01

setup() {
	ip link add xbr0 type xbridge
	ip link set xbr0 up
	host_add h1 xbr0 swp1 $MAC1
	host_add h2 xbr0 swp2 $MAC2
	ip link add xbr1 type xbridge
	ip link set xbr1 up
	host_add h3 xbr1 swp3 $MAC3
}

cleanup() {
	ip link del xbr0 2>/dev/null
	ip link del xbr1 2>/dev/null
	hosts_cleanup
}

# expect_ok NAME CMD... - the request succeeds.
expect_ok() {
	local name=$1 out
	shift
	out=$($GENL "$@" 2>&1)
	log_test "$name" $? "$out"
}

# expect_err NAME ERRNO_RE [MSG_RE] -- CMD... - fails with a matching errno
# name (and extack message).
expect_err() {
	local name=$1 errs=$2 msg= out
	shift 2
	if [[ $1 != -- ]]; then
		msg=$1
		shift
	fi
	shift	# --
	out=$($GENL "$@" 2>&1)
	[[ $out =~ ^error\ ($errs): ]] && { [[ -z $msg ]] || [[ $out =~ $msg ]]; }
	log_test "$name" $? "$out"
}

test_bridge() {
	local out
	expect_ok "bridge set vlan_filtering 1 ageing_time 1000" \
		bridge-set xbr0 vlan_filtering 1 ageing_time 1000
	out=$($GENL bridge-get xbr0)
	[[ $out == *" vlan_filtering=1 "* && $out == *" ageing_time=1000 "* ]]
	log_test "bridge get shows vlan_filtering=1 ageing_time=1000" $? "$out"
	expect_ok "bridge set vlan_filtering 0 ageing_time 30000" \
		bridge-set xbr0 vlan_filtering 0 ageing_time 30000
	out=$($GENL bridge-get xbr0)
	[[ $out == *" vlan_filtering=0 "* && $out == *" ageing_time=30000 "* ]]
	log_test "bridge get shows vlan_filtering=0 ageing_time=30000" $? "$out"
	# Nothing partially applied: a bad group_fwd_mask leaves ageing_time.
	expect_err "bridge set with a bad group_fwd_mask fails" EINVAL "group_fwd_mask" -- \
		bridge-set xbr0 ageing_time 500 group_fwd_mask 1
	out=$($GENL bridge-get xbr0)
	[[ $out == *" ageing_time=30000 "* ]]
	log_test "failed bridge set changed nothing" $? "$out"
	out=$($GENL raw BRIDGE_GET xbr0 "" 2>&1)
	[[ $out == *"ifname=xbr0"* ]]
	log_test "bridge get by ifindex" $? "$out"
}

test_fdb() {
	local out
	expect_ok "fdb add static" fdb-add xbr0 $MACX swp1 --state static --excl
	out=$($GENL fdb-dump xbr0)
	grep -q "mac=$MACX port=swp1 state=static" <<<"$out"
	log_test "fdb dump shows the static entry" $? "$out"
	expect_err "fdb add again with fdb mode create: EEXIST" EEXIST "already exists" -- \
		fdb-add xbr0 $MACX swp1 --state static --excl
	expect_ok "fdb add with fdb mode append: replaces" fdb-add xbr0 $MACX swp1 --state static \
		--mode append
	expect_ok "fdb replace (no fdb mode) succeeds" fdb-add xbr0 $MACX swp2 --state static
	out=$($GENL fdb-get xbr0 $MACX 2>&1)
	[[ $out == *"mac=$MACX port=swp2 state=static"* ]]
	log_test "fdb get shows the replaced entry on swp2" $? "$out"
	expect_ok "fdb del" fdb-del xbr0 $MACX swp2
	out=$($GENL fdb-dump xbr0)
	! grep -q "mac=$MACX" <<<"$out"
	log_test "fdb dump no longer shows the entry" $? "$out"
	expect_err "fdb get of a missing entry: ENOENT" ENOENT -- fdb-get xbr0 $MACX
	expect_err "fdb del of a missing entry: ENOENT" ENOENT -- fdb-del xbr0 $MACX swp2

	# Flush: only the dynamic ones go.
	$GENL fdb-add xbr0 02:00:00:00:0b:01 swp1 --state static >/dev/null
	$GENL fdb-add xbr0 02:00:00:00:0b:02 swp1 --state dynamic >/dev/null
	expect_ok "fdb flush dynamic on swp1" fdb-flush xbr0 --dev swp1 --state dynamic
	out=$($GENL fdb-dump xbr0)
	grep -q "mac=02:00:00:00:0b:01" <<<"$out" && ! grep -q "mac=02:00:00:00:0b:02" <<<"$out"
	log_test "flush removed the dynamic entry and kept the static one" $? "$out"
	expect_ok "fdb flush static" fdb-flush xbr0 --state static
	out=$($GENL fdb-dump xbr0)
	! grep -q "mac=02:00:00:00:0b:01" <<<"$out" && grep -q "state=permanent" <<<"$out"
	log_test "flush static removed it and kept the permanent ones" $? "$out"
}

test_fdb_many() {
	local n=3000 i out count
	# Enough entries that the dump takes many messages and resumes.
	for ((i = 0; i < n; i++)); do
		printf '02:00:%02x:%02x:%02x:01\n' $((i >> 16 & 255)) $((i >> 8 & 255)) $((i & 255))
	done >"$TMPDIR/macs"
	$PY - "$SELFTESTS_DIR" "$TMPDIR/macs" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import genl_raw as g
c = g.Genl()
for mac in open(sys.argv[2]).read().split():
    c.request(g.CMD["FDB_NEW"], g.br_attr("xbr0") +
              g.fdb_nest(mac, "swp2", 1, g.STATE["static"]))
EOF
	count=$($GENL fdb-dump xbr0 | grep -c "port=swp2 state=static")
	[[ $count == "$n" ]]
	log_test "fdb dump of $n entries (resumable dump) returns each once" $? "got $count"
	$GENL fdb-flush xbr0 --dev swp2 --state static >/dev/null
	count=$($GENL fdb-dump xbr0 | grep -c "port=swp2 state=static")
	[[ $count == 0 ]]
	log_test "fdb flush of $n entries" $? "left $count"
}

test_vlan_port() {
	local out
	expect_ok "vlan add 10-12 on swp1" vlan-add xbr0 swp1 10 --end 12
	expect_ok "vlan add 20 pvid untagged on swp2" vlan-add xbr0 swp2 20 --pvid --untagged
	out=$($GENL vlan-dump xbr0)
	grep -q "port=swp1 vid=11 flags=0" <<<"$out" &&
		grep -q "port=swp2 vid=20 flags=6" <<<"$out" &&
		grep -q "port=xbr0 vid=1 flags=6" <<<"$out"
	log_test "vlan dump shows ranges, pvid/untagged and self" $? "$(tr '\n' ';' <<<"$out")"
	expect_ok "vlan del 10-12 on swp1" vlan-del xbr0 swp1 10 --end 12
	out=$($GENL vlan-dump xbr0)
	! grep -q "port=swp1 vid=11" <<<"$out"
	log_test "vlan dump after delete" $? "$(tr '\n' ';' <<<"$out")"
	# As the Linux bridge: deleting a VID the port does not have succeeds
	# and changes nothing.
	expect_ok "vlan del of a missing VID succeeds" vlan-del xbr0 swp1 30
	[[ $($GENL vlan-dump xbr0) == "$out" ]]
	log_test "vlan del of a missing VID changes nothing" $?

	expect_ok "port set learning 0 flood 0 state 2" port-set xbr0 swp2 learning 0 flood 0 state 2
	out=$($GENL port-get xbr0 swp2)
	[[ $out == *"state=2 learning=0 flood=0 mcast_flood=1"* ]]
	log_test "port get shows the new flags and state" $? "$out"
	expect_err "port set mab without locked: EINVAL, nothing applied" EINVAL "MAB" -- \
		port-set xbr0 swp2 learning 1 mab 1
	out=$($GENL port-get xbr0 swp2)
	[[ $out == *"learning=0"* ]]
	log_test "failed port set changed nothing" $? "$out"
	expect_ok "port set back" port-set xbr0 swp2 learning 1 flood 1 state 3
}

test_bad_input() {
	expect_err "unknown top-level attribute: EINVAL" EINVAL -- bad unknown-attr xbr0
	expect_err "read-only attribute: EINVAL" EINVAL "read-only" -- bad readonly-attr xbr0
	expect_err "attribute of the wrong type: EINVAL/ERANGE" "EINVAL|ERANGE" -- \
		bad wrong-type xbr0
	expect_err "VLAN ID 4095: ERANGE/EINVAL" "ERANGE|EINVAL" -- bad vid-4095 xbr0 swp1
	expect_err "VLAN ID 0 where a VLAN is required: ERANGE/EINVAL" "ERANGE|EINVAL" -- \
		bad vid-0 xbr0 swp1
	expect_err "FDB VLAN 4095: ERANGE/EINVAL" "ERANGE|EINVAL" -- bad fdb-vid-4095 xbr0 swp1
	expect_err "MAC of the wrong length: EINVAL" EINVAL "6 bytes" -- bad mac-short xbr0 swp1
	expect_err "FDB VLAN 0 in an add (as rtnetlink): EINVAL" EINVAL "VLAN ID 0" -- \
		bad fdb-vid-0 xbr0 swp1
	# A multicast address is accepted, as br_fdb_add does (only zero is not).
	expect_ok "fdb add of a multicast MAC" fdb-add xbr0 01:00:5e:00:00:01 swp1 --state static
	expect_ok "fdb del of the multicast MAC" fdb-del xbr0 01:00:5e:00:00:01 swp1
	expect_err "all-zero MAC: EINVAL" EINVAL "zero" -- bad mac-zero xbr0 swp1
	expect_err "sticky + permanent: EINVAL" EINVAL "sticky" -- bad sticky-permanent xbr0 swp1
	expect_err "unknown FDB flag: EINVAL" EINVAL "flag" -- bad unknown-fdb-flag xbr0 swp1
	expect_err "VLAN range end before start: EINVAL" EINVAL "range" -- \
		bad range-reversed xbr0 swp1
	expect_err "missing bridge: EINVAL" EINVAL "missing" -- bad missing-bridge xbr0 swp1
	expect_err "a port of another bridge: EINVAL" EINVAL "another bridge" -- \
		bad port-other-bridge xbr0 swp3
	expect_err "a bridge that is not an xbridge: EINVAL" EINVAL "not an xbridge" -- \
		bridge-get swp1
	# Every command gets genetlink's strict header check (resv_start_op):
	# the legacy nlmsg flags of rtnetlink and the reserved field are refused.
	expect_err "FDB_NEW with NLM_F_CREATE|NLM_F_EXCL: EINVAL" EINVAL "reserved bits" -- \
		bad-header nlm-excl xbr0 swp1
	expect_err "VLAN_NEW with NLM_F_CREATE: EINVAL" EINVAL "reserved bits" -- \
		bad-header nlm-create xbr0 swp1
	expect_err "genetlink header reserved field set: EINVAL" EINVAL "reserved" -- \
		bad-header genl-reserved xbr0
	! $GENL fdb-get xbr0 02:00:00:00:aa:08 >/dev/null 2>&1 &&
		! $GENL vlan-dump xbr0 | grep -q "port=swp1 vid=300"
	log_test "refused headers changed nothing" $?
	expect_err "fdb mode on a delete: EINVAL" EINVAL "delete takes only" -- \
		bad fdb-del-mode xbr0 swp1
	expect_err "fdb mode 3: ERANGE/EINVAL" "ERANGE|EINVAL" -- bad fdb-mode-3 xbr0 swp1
}

test_unprivileged() {
	local out
	if ! command -v setpriv >/dev/null; then
		log_test_skip "unprivileged change: EPERM" "no setpriv"
		return
	fi
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$GENL bridge-set xbr0 ageing_time 2000 2>&1)
	[[ $out == "error EPERM"* ]]
	log_test "unprivileged bridge set: EPERM" $? "$out"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$GENL fdb-add xbr0 $MACX swp1 --state static 2>&1)
	[[ $out == "error EPERM"* ]]
	log_test "unprivileged fdb add: EPERM" $? "$out"
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$GENL bridge-get xbr0 2>&1)
	[[ $out == *"ifname=xbr0"* ]]
	log_test "unprivileged bridge get is allowed" $? "$out"
}

# monitor_start FILE COUNT MATCH - subscribe in the background; returns once
# the socket is in the group.
monitor_start() {
	rm -f "$TMPDIR/mon.ready"
	$GENL monitor --count "$2" --seconds 120 --match "$3" \
		--ready-file "$TMPDIR/mon.ready" >"$1" 2>/dev/null &
	MON_PID=$!
	slowwait 30000 test -e "$TMPDIR/mon.ready" || echo "monitor did not start" >&2
}

test_monitor() {
	local out
	monitor_start "$TMPDIR/mon.out" 2 "mac=$MACX"
	# A learn: h1 sends from MACX.
	ip netns exec h1 $PKT send eth0 ff:ff:ff:ff:ff:ff $MACX
	slowwait 30000 $GENL fdb-get xbr0 $MACX >/dev/null 2>&1
	$GENL fdb-del xbr0 $MACX swp1 >/dev/null
	wait $MON_PID
	out=$(cat "$TMPDIR/mon.out")
	grep -q "^FDB_GET mac=$MACX port=swp1 state=dynamic .*reason=learned" <<<"$out"
	log_test "monitor: learn notification (FDB_GET, reason learned)" $? "$(tr '\n' ';' <<<"$out")"
	grep -q "^FDB_DEL mac=$MACX port=swp1 .*reason=user" <<<"$out"
	log_test "monitor: delete notification (FDB_DEL, reason user)" $? "$(tr '\n' ';' <<<"$out")"

	monitor_start "$TMPDIR/mon.out" 2 "port=swp1 vid=40"
	$GENL vlan-add xbr0 swp1 40 >/dev/null
	$GENL vlan-del xbr0 swp1 40 >/dev/null
	wait $MON_PID
	out=$(cat "$TMPDIR/mon.out")
	grep -q "^VLAN_GET port=swp1 vid=40" <<<"$out" && grep -q "^VLAN_DEL port=swp1 vid=40" <<<"$out"
	log_test "monitor: VLAN add and delete notifications" $? "$(tr '\n' ';' <<<"$out")"

	# A range delete notifies the VIDs that existed, not every VID of the
	# range (br_vlan_info's deletes); VID 46's delete marks the end.
	$GENL vlan-add xbr0 swp1 42 >/dev/null
	monitor_start "$TMPDIR/mon.out" 2 "VLAN_DEL port=swp1"
	$GENL vlan-del xbr0 swp1 41 --end 45 >/dev/null
	$GENL vlan-add xbr0 swp1 46 >/dev/null
	$GENL vlan-del xbr0 swp1 46 >/dev/null
	wait $MON_PID
	out=$(cat "$TMPDIR/mon.out")
	[[ $(grep -o "vid=[0-9]*" <<<"$out" | tr '\n' ' ') == "vid=42 vid=46 " ]]
	log_test "monitor: a range VLAN delete notifies only the VIDs that existed" $? \
		"$(tr '\n' ';' <<<"$out")"

	monitor_start "$TMPDIR/mon.out" 1 "ifname=swp2"
	$GENL port-set xbr0 swp2 hairpin 1 >/dev/null
	wait $MON_PID
	out=$(cat "$TMPDIR/mon.out")
	grep -q "hairpin=1" <<<"$out"
	log_test "monitor: port change notification" $? "$out"
}

ALL_TESTS="
	test_bridge
	test_fdb
	test_fdb_many
	test_vlan_port
	test_bad_input
	test_unprivileged
	test_monitor
"

trap cleanup EXIT
setup
tests_run
cleanup
summary
