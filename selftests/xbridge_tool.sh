#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_tool.sh [MODULE.ko] - the `xbridge` command (tools/xbridge) against
# xbridge.ko in the test kernel: every fdb/vlan/link verb through the tool,
# the resulting state checked with `xbridge -j ... show | jq`, exit codes
# and messages of bad input, -batch, -n NETNS, and `xbridge monitor fdb`
# printing learn and flush events. The family missing is a FAIL.
# The tool: $XBRIDGE, else build-test/, build/ or build-tool/ under the repo.
# The tests run in ALL_TESTS' order on one bridge (TESTS= picks some).
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)

need_xbridge

MAC1=02:00:00:00:02:01
MAC2=02:00:00:00:02:02
M=02:00:00:00:0a:01

cleanup() {
	[[ -n "${MON:-}" ]] && kill "$MON" 2>/dev/null
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}
trap cleanup EXIT

# check NAME COMMAND... - PASS if COMMAND succeeds.

# fails NAME EXPECTED_RC PATTERN COMMAND... - the command fails with
# EXPECTED_RC and its stderr matches PATTERN.
fails() {
	local name=$1 rc=$2 pat=$3
	shift 3
	local out got
	out=$("$@" 2>&1)
	got=$?
	[[ $got -eq $rc ]] && grep -qE -- "$pat" <<<"$out"
	log_test "$name" $? "rc=$got out=$out"
}

fdb_json() { "$XB" -j fdb show br xbr0; }
# fdb_has MAC DEV VLAN STATE - one master entry with these fields.
fdb_has() {
	local vlan=$3
	[[ "$vlan" == 0 ]] && vlan=null
	fdb_json | jq -e --arg m "$1" --arg d "$2" --argjson v "$vlan" --arg s "$4" \
		'[.[] | select(.mac == $m and .ifname == $d and .vlan == $v and .state == $s and .master == "xbr0")] | length == 1' >/dev/null
}
fdb_absent() {
	fdb_json | jq -e --arg m "$1" '[.[] | select(.mac == $m)] | length == 0' >/dev/null
}

setup() {
	ip link add xbr0 type xbridge || return 1
	ip link set xbr0 up
	host_add h1 xbr0 swp1 $MAC1
	host_add h2 xbr0 swp2 $MAC2
}

test_family() {
	"$XB" fdb show br xbr0 >/dev/null
	log_test "the xbridge family answers (fdb show)" $?
}

test_fdb() {
	check "fdb add (default permanent)" "$XB" fdb add $M dev swp1
	fdb_has $M swp1 0 permanent
	log_test "fdb add: -j shows permanent, no vlan key, master xbr0" $?
	fails "fdb add again: EEXIST" 255 "Error|RTNETLINK" "$XB" fdb add $M dev swp1
	check "fdb replace ... static sticky" "$XB" fdb replace $M dev swp2 static sticky
	fdb_has $M swp2 0 static && fdb_json | jq -e --arg m $M \
		'.[] | select(.mac == $m) | .flags == ["sticky"]' >/dev/null
	log_test "fdb replace: static, sticky, moved to swp2" $?
	check "fdb append dynamic" "$XB" fdb append 02:00:00:00:0a:02 dev swp1 dynamic
	fdb_has 02:00:00:00:0a:02 swp1 0 ""
	log_test "fdb append: dynamic state is \"\"" $?
	"$XB" fdb show br xbr0 | grep -qx "02:00:00:00:0a:02 dev swp1 master xbr0 "
	log_test "fdb show text: iproute2 line for a dynamic entry" $?
	"$XB" fdb show brport swp2 | grep -qx "$M sticky master xbr0 static"
	log_test "fdb show brport: no dev word" $?
	check "fdb get" "$XB" fdb get $M br xbr0
	check "fdb del" "$XB" fdb del $M dev swp2
	fdb_absent $M
	log_test "fdb del: gone" $?
	fails "fdb del again fails" 255 "Error|RTNETLINK" "$XB" fdb del $M dev swp2
	# As br_fdb_add: only the zero address is refused, not a multicast one.
	check "fdb add multicast MAC static: accepted" \
		"$XB" fdb add 01:00:5e:00:00:01 dev swp1 static
	check "fdb del multicast MAC" "$XB" fdb del 01:00:5e:00:00:01 dev swp1
	fails "fdb add zero MAC: refused" 255 "Error" "$XB" fdb add 00:00:00:00:00:00 dev swp1
	fails "fdb add vlan 4095: refused by the tool" 255 "VLAN" "$XB" fdb add $M dev swp1 vlan 4095
	fails "fdb add garbage word" 255 "bogus" "$XB" fdb add $M dev swp1 bogus
	fails "fdb add unknown dev" 255 "Cannot find device" "$XB" fdb add $M dev nosuch
	fdb_absent $M
	log_test "bad input changed nothing" $?
	"$XB" fdb add 02:00:00:00:0b:01 dev swp1 static
	"$XB" fdb add 02:00:00:00:0b:02 dev swp1 dynamic
	check "fdb flush dev swp1 dynamic" "$XB" fdb flush dev swp1 dynamic
	fdb_absent 02:00:00:00:0b:02 && fdb_has 02:00:00:00:0b:01 swp1 0 static
	log_test "fdb flush dynamic: static entry kept" $?
	check "fdb flush dev xbr0" "$XB" fdb flush dev xbr0 static
	fdb_absent 02:00:00:00:0b:01
	log_test "fdb flush static: gone" $?
}

test_vlan() {
	check "link set vlan_filtering 1" "$XB" link set dev xbr0 vlan_filtering 1 ageing_time 1000
	"$XB" -j link show dev xbr0 | jq -e '.[0].vlan_filtering == 1 and .[0].ageing_time == 1000' >/dev/null
	log_test "link show dev BR: options set" $?
	check "vlan add range" "$XB" vlan add vid 10-12 dev swp1
	check "vlan add pvid untagged" "$XB" vlan add vid 20 dev swp1 pvid untagged
	"$XB" -j vlan show dev swp1 | jq -e '.[0].ifname == "swp1" and
		([.[0].vlans[].vlan] | contains([10,11,12,20])) and
		(.[0].vlans[] | select(.vlan == 20) | .flags == ["PVID","Egress Untagged"])' >/dev/null
	log_test "vlan show -j: range expanded, PVID Egress Untagged" $?
	"$XB" vlan show dev swp1 | head -1 | grep -q "^port              vlan-id"
	log_test "vlan show header" $?
	check "vlan set state" "$XB" vlan set dev swp1 vid 11 state blocking
	check "vlan del" "$XB" vlan del vid 10-12 dev swp1
	"$XB" -j vlan show dev swp1 | jq -e '[.[0].vlans[].vlan] | index(11) == null' >/dev/null
	log_test "vlan del: range gone" $?
	fails "vlan add vid 0 refused" 255 "VLAN" "$XB" vlan add vid 0 dev swp1
	fails "vlan add range end<start refused" 255 "range" "$XB" vlan add vid 20-10 dev swp1
	check "fdb add vlan 20" "$XB" fdb add $M dev swp1 vlan 20
	fdb_has $M swp1 20 permanent
	log_test "fdb with vlan: \"vlan\":20" $?
	"$XB" fdb del $M dev swp1 vlan 20
	"$XB" link set dev xbr0 vlan_filtering 0
}

test_link() {
	check "link set port flags" "$XB" link set dev swp2 learning off flood off hairpin on
	"$XB" -j -d link show dev swp2 | jq -e '.[0].learning == false and .[0].flood == false and .[0].hairpin == true and .[0].master == "xbr0"' >/dev/null
	log_test "link show -d: flags as set" $?
	check "link set state" "$XB" link set dev swp2 state learning
	"$XB" link show dev swp2 | grep -q "master xbr0 state learning"
	log_test "link show text: state learning" $?
	# With no STP a blocking port is made forwarding at once, as Linux's
	# br_port_state_selection does.
	check "link set state blocking" "$XB" link set dev swp2 state blocking
	"$XB" link show dev swp2 | grep -q "master xbr0 state forwarding"
	log_test "link show text: blocking reads back as forwarding" $?
	"$XB" link set dev swp2 learning on flood on hairpin off state forwarding
	fails "link set bad value" 255 "on.*off" "$XB" link set dev swp2 learning maybe
	fails "bridge options on a port" 255 "port" "$XB" link set dev swp2 vlan_filtering 1
}

test_batch_netns() {
	printf 'fdb add 02:00:00:00:0c:01 dev swp1\nfdb add 02:00:00:00:0c:02 dev swp1\n' >"$TMPDIR/b"
	check "-batch FILE" "$XB" -batch "$TMPDIR/b"
	fdb_has 02:00:00:00:0c:02 swp1 0 permanent
	log_test "-batch: entries added" $?
	printf 'fdb del 02:00:00:00:0c:01 dev swp1\nfdb bogus\nfdb del 02:00:00:00:0c:02 dev swp1\n' >"$TMPDIR/b"
	fails "-batch stops at the first error with its line" 1 "Command failed .*:2" "$XB" -batch "$TMPDIR/b"
	fdb_absent 02:00:00:00:0c:01 && fdb_has 02:00:00:00:0c:02 swp1 0 permanent
	log_test "-batch: lines after the error not run" $?
	"$XB" fdb del 02:00:00:00:0c:02 dev swp1
	ip netns add xbt_ns
	"$XB" -n xbt_ns fdb show >/dev/null && ! "$XB" -n xbt_ns fdb show br xbr0 2>/dev/null
	log_test "-n NETNS: xbr0 is not visible in another namespace" $?
	ip netns del xbt_ns
}

mac_of() { cat "/sys/class/net/$1/address"; }

# lro_of DEV - 1 if LRO is on (ethtool's ETHTOOL_GFLAGS, ETH_FLAG_LRO).
lro_of() {
	python3 - "$1" <<'PYEOF'
import ctypes, fcntl, socket, struct, sys
buf = ctypes.create_string_buffer(struct.pack("II", 0x25, 0), 8)
fcntl.ioctl(socket.socket(), 0x8946, struct.pack("16sP", sys.argv[1].encode(), ctypes.addressof(buf)))
print((struct.unpack("II", buf.raw)[1] >> 15) & 1)
PYEOF
}

# port_life KIND BR - a bridge of KIND (xbridge, or bridge for Linux's own)
# through port address changes, releases and a user-set address; prints the
# bridge's address after each step, one word each, then the outcome of a
# bond port taking a non-Ethernet slave and the bond's LRO before and after
# it became a port.
port_life() {
	local kind=$1 br=$2 seq=() lro_before
	ip link add "$br" type "$kind" || return 1
	ip link add "${br}a" type veth peer name "${br}A"
	ip link add "${br}b" type veth peer name "${br}B"
	ip link set "${br}a" address 02:00:00:00:00:30
	ip link set "${br}b" address 02:00:00:00:00:20
	ip link set "${br}a" master "$br"; seq+=("$(mac_of "$br")")
	ip link set "${br}b" master "$br"; seq+=("$(mac_of "$br")")
	ip link set "${br}b" address 02:00:00:00:00:40; seq+=("$(mac_of "$br")")
	ip link set "${br}a" address 02:00:00:00:00:05; seq+=("$(mac_of "$br")")
	ip link set "${br}a" nomaster; seq+=("$(mac_of "$br")")
	ip link set "${br}b" nomaster; seq+=("$(mac_of "$br")")
	ip link set "$br" address 02:00:00:00:00:99
	ip link set "${br}a" master "$br"; seq+=("$(mac_of "$br")")
	ip link set "${br}a" nomaster
	# A bond port may not become non-Ethernet (NETDEV_PRE_TYPE_CHANGE).
	ip link add "${br}bond" type bond mode active-backup
	lro_before=$(lro_of "${br}bond")
	ip link set "${br}bond" master "$br"
	ip link add "${br}nl" type nlmon
	if ip link set "${br}nl" master "${br}bond" 2>/dev/null; then
		seq+=(type-change-allowed)
	else
		seq+=(type-change-refused)
	fi
	seq+=("$(cat "/sys/class/net/${br}bond/type")" "lro:$lro_before:$(lro_of "${br}bond")")
	ip link del "${br}nl"
	ip link del "${br}bond"
	ip link del "${br}a"
	ip link del "${br}b"
	ip link del "$br"
	echo "${seq[*]}"
}

# As br_add_if/br_device_event: a port's address change moves its local
# entries; the bridge's address is its smallest port's until the user sets
# one, with its local entry following; a port keeps its type; LRO is off on
# a port. Checked against the Linux bridge doing the same. (LRO is off on
# main's module too: linking under an upper device without LRO already
# clears it, netdev_sync_upper_features; dev_disable_lro is belt and braces.)
test_port_lifecycle() {
	local old new xb_seq lx_seq want
	old=$(mac_of swp1)
	new=02:00:00:00:0e:01
	check "port address change" ip link set swp1 address $new
	fdb_has $new swp1 0 permanent && fdb_absent "$old"
	log_test "port MAC change: the new address is swp1's local entry, the old one gone" $? \
		"$(fdb_show xbr0 | tr '\n' ';')"
	ip link set swp1 address "$old"
	fdb_has "$old" swp1 0 permanent && fdb_absent $new
	log_test "port MAC changed back: local entry back" $?

	modprobe bridge 2>/dev/null
	modprobe bonding 2>/dev/null
	modprobe nlmon 2>/dev/null
	xb_seq=$(port_life xbridge xbl9)
	lx_seq=$(port_life bridge lbl9)
	want="02:00:00:00:00:30 02:00:00:00:00:20 02:00:00:00:00:30 02:00:00:00:00:05 02:00:00:00:00:40"
	[[ $lx_seq == "$want "* ]]
	log_test "reference: the Linux bridge follows its smallest port address" $? "linux: $lx_seq"
	[[ -n $xb_seq && $xb_seq == "$lx_seq" ]]
	log_test "bridge address, type-change veto, port LRO as the Linux bridge's" $? \
		"xbridge: $xb_seq; linux: $lx_seq"
	[[ $lx_seq == *"type-change-refused 1 "* ]]
	log_test "reference: Linux refuses a port's type change" $? "linux: $lx_seq"

	# The bridge's local entry follows its address. The port has the same
	# address, and its local entry stands for both (fdb_add_local keeps an
	# existing local entry, on Linux too): the bridge's old one must go.
	local rnd
	ip link add xbl8 type xbridge
	rnd=$(mac_of xbl8)
	ip link add xbl8a type veth peer name xbl8A
	ip link set xbl8a address 02:00:00:00:00:31
	ip link set xbl8a master xbl8
	"$XB" fdb show br xbl8 | grep -q "^02:00:00:00:00:31 dev .* permanent" &&
		! "$XB" fdb show br xbl8 | grep -q "^$rnd "
	log_test "the bridge's local entry moves from its old address to its new one" $? \
		"$("$XB" fdb show br xbl8 | tr '\n' ';')"
	ip link set xbl8a address 02:00:00:00:00:32
	[[ $(mac_of xbl8) == 02:00:00:00:00:32 ]] &&
		"$XB" fdb show br xbl8 | grep -q "^02:00:00:00:00:32 dev .* permanent" &&
		! "$XB" fdb show br xbl8 | grep -q "^02:00:00:00:00:31 "
	log_test "bridge and local entries follow the port's address change" $? \
		"$(mac_of xbl8) $("$XB" fdb show br xbl8 | tr '\n' ';')"
	ip link del xbl8a
	ip link del xbl8
}

test_monitor() {
	"$XB" monitor fdb >"$TMPDIR/mon" 2>&1 &
	MON=$!
	sleep 0.5	# `xbridge monitor` gives no sign that it has joined the group
	ip netns exec h1 $PKT send eth0 ff:ff:ff:ff:ff:ff 02:00:00:00:0d:01
	busywait 3000 grep -q "^02:00:00:00:0d:01 dev swp1 master xbr0" "$TMPDIR/mon"
	"$XB" fdb flush dev swp1 dynamic
	busywait 3000 grep -q "^Deleted 02:00:00:00:0d:01 dev swp1 master xbr0" "$TMPDIR/mon"
	kill $MON 2>/dev/null
	wait $MON 2>/dev/null
	MON=
	grep -q "^02:00:00:00:0d:01 dev swp1 master xbr0" "$TMPDIR/mon"
	log_test "monitor fdb: learn event" $? "$(tr '\n' ';' <"$TMPDIR/mon")"
	grep -q "^Deleted 02:00:00:00:0d:01 dev swp1 master xbr0" "$TMPDIR/mon"
	log_test "monitor fdb: flush event" $? "$(tr '\n' ';' <"$TMPDIR/mon")"

	# Ageing: with ageing_time 1 s, a learned entry is deleted by the
	# bridge's ageing work and the monitor sees it, with no flush asked.
	local ageing
	ageing=$("$XB" -j link show dev xbr0 | jq '.[0].ageing_time // empty' 2>/dev/null)
	"$XB" link set dev xbr0 ageing_time 100
	"$XB" monitor fdb >"$TMPDIR/mon-age" 2>&1 &
	MON=$!
	sleep 0.5	# as above: no sign of the subscription
	ip netns exec h1 $PKT send eth0 ff:ff:ff:ff:ff:ff 02:00:00:00:0d:02
	local aged=1
	slowwait 10000 grep -q "^Deleted 02:00:00:00:0d:02 dev swp1 master xbr0" "$TMPDIR/mon-age" &&
		aged=0
	kill $MON 2>/dev/null
	wait $MON 2>/dev/null
	MON=
	"$XB" link set dev xbr0 ageing_time "${ageing:-30000}"
	grep -q "^02:00:00:00:0d:02 dev swp1 master xbr0" "$TMPDIR/mon-age" && ((aged == 0))
	log_test "monitor fdb: learn then ageing delete events" $? "$(tr '\n' ';' <"$TMPDIR/mon-age")"
}

ALL_TESTS="
	test_family
	test_fdb
	test_vlan
	test_link
	test_batch_netns
	test_port_lifecycle
	test_monitor
"

if setup; then
	tests_run
else
	log_test "create xbr0" 1
fi
summary
