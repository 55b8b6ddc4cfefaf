#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_forwarding.sh [MODULE.ko] - xbridge.ko forwarding real frames
# between network namespaces (run inside the test kernel, module loaded):
# ping through the bridge, learning, unknown-unicast flooding, a VLAN-aware
# topology with access ports and a trunk, port removal and bridge deletion
# under traffic, and (given the module path) rmmod under traffic.
# TESTS="test_ping test_flood" runs some of them (lib.sh's tests_run); the
# flat tests run on the flat topology, test_vlan sets up its own.
set -u
source "$(dirname "$0")/lib.sh"
MODULE=${1:-}
TMPDIR=$(mktemp -d)

MAC1=02:00:00:00:01:01
MAC2=02:00:00:00:01:02
MAC3=02:00:00:00:01:03
MAC4=02:00:00:00:01:04

setup_flat() {
	ip link add xbr0 type xbridge
	ip link set xbr0 up
	host_add h1 xbr0 swp1 $MAC1 192.0.2.1/24
	host_add h2 xbr0 swp2 $MAC2 192.0.2.2/24
	host_add h3 xbr0 swp3 $MAC3
	host_add h4 xbr0 swp4 $MAC4
}

cleanup() {
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	ip link del swp1 2>/dev/null
}

test_ping() {
	ip netns exec h1 ping -c 3 -i 0.2 -W 2 192.0.2.2 >/dev/null
	log_test "ping h1 -> h2 through xbr0" $?
}

# Frames to the bridge's own address are for the host (PACKET_HOST), not
# other-host as the port saw them: IP answers (issue 17, router_bridge.sh).
test_ping_bridge() {
	ip addr add 192.0.2.100/24 dev xbr0
	ip netns exec h1 ping -c 2 -i 0.2 -W 2 192.0.2.100 >/dev/null
	log_test "ping h1 -> the bridge's own address" $? \
		"$(ip -s -s link show xbr0 | tr '\n' ' ')"
	ip addr del 192.0.2.100/24 dev xbr0
}

# A bridge stays in its ports' namespace (NETIF_F_NETNS_LOCAL, as br_dev_setup).
test_netns_local() {
	ip netns add xbr-other
	if ip link set xbr0 netns xbr-other 2>/dev/null; then
		log_test "the bridge cannot move to another namespace" 1
		ip -n xbr-other link set xbr0 netns 1	# the tests after this need it
	else
		[[ -e /sys/class/net/xbr0 ]]
		log_test "the bridge cannot move to another namespace" $?
	fi
	ip netns del xbr-other
}

# A bridge that is down disables its ports (br_dev_stop) and enables them
# again when it comes up (br_dev_open).
test_bridge_down() {
	local err=0
	ip link set xbr0 down
	ip netns exec h1 ping -c 2 -i 0.2 -W 1 192.0.2.2 >/dev/null && err=1
	ip link set xbr0 up
	ip netns exec h1 ping -c 2 -i 0.2 -W 2 192.0.2.2 >/dev/null || err=1
	log_test "a down bridge forwards nothing, and forwards again once up" $err
}

# A port enslaved while the bridge is down stays disabled (br_add_if enables
# it only on an up bridge), and forwards once the bridge comes up.
test_port_added_down() {
	RET=0
	ip link set xbr0 down
	host_add h5 xbr0 swp5 02:00:00:00:01:05 192.0.2.5/24
	xb link show dev swp5 | grep -q "state disabled"
	check_err $? "swp5 is not disabled: $(xb link show dev swp5)"
	ip netns exec h5 ping -c 1 -W 1 192.0.2.2 >/dev/null
	check_fail $? "swp5 forwarded on a down bridge"
	ip link set xbr0 up
	busywait 5000 bash -c "'$XB' link show dev swp5 | grep -q 'state forwarding'"
	check_err $? "swp5 not forwarding once the bridge is up: $(xb link show dev swp5)"
	ip netns exec h5 ping -c 2 -i 0.2 -W 2 192.0.2.2 >/dev/null
	check_err $? "no ping from swp5 once the bridge is up"
	log_test "a port added to a down bridge stays disabled until the bridge is up"
	ip netns del h5
}

# A link-local frame with a hardware tag of another TPID than the bridge's
# goes up the port as Linux's br_handle_frame sends it, before
# br_allowed_ingress: the tag still out of band, so the port's stack sees
# the inner EtherType (a socket for LLDP on swp1 gets it) and not the tag
# put back into the payload with skb->data at its TCI (issue 17).
test_link_local_foreign_tag() {
	RET=0
	xb link set dev xbr0 vlan_filtering 1
	rm -f "$TMPDIR/ll.ready" "$TMPDIR/ll.out"
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88cc))
s.bind(("swp1", 0x88cc))
s.settimeout(5)
open(sys.argv[1], "w").close()
try:
    f = s.recv(2048)
    print(f[12:14].hex(), f[14:18])
except socket.timeout:
    print("none")' "$TMPDIR/ll.ready" >"$TMPDIR/ll.out" &
	local rx=$!
	slowwait 5000 test -e "$TMPDIR/ll.ready"
	# LLDP's group, an 802.1ad tag (VID 100) on an 802.1Q bridge.
	ip netns exec h1 python3 -c 'import socket, struct
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
f = bytes.fromhex("0180c200000e020000000101") + struct.pack("!HHH", 0x88a8, 100, 0x88cc) + b"XBLL" + bytes(42)
for _ in range(3):
    s.send(f)'
	wait $rx
	local got
	got=$(<"$TMPDIR/ll.out")
	[[ $got == "88cc b'XBLL'" ]]
	check_err $? "the port's LLDP socket got: $got"
	log_test "a link-local frame with a foreign-TPID tag goes up the port with its tag out of band"
	xb link set dev xbr0 vlan_filtering 0
}

# A forwarded frame leaves without its receive timestamp (br_forward_finish's
# skb_clear_tstamp): fq would read a realtime stamp as a departure time far
# beyond its horizon and drop the frame. Any socket asking for timestamps
# turns receive stamping on for every device.
test_forward_clears_tstamp() {
	if ! modprobe sch_fq 2>/dev/null || ! tc qdisc add dev swp2 root fq 2>/dev/null; then
		log_test_skip "forwarded frames leave without their receive timestamp (fq egress)" \
			"no sch_fq"
		return 0
	fi
	python3 -c 'import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)	# SO_TIMESTAMP: Python has no name for it
time.sleep(60)' &
	local stamper=$!
	sleep 0.5	# net_enable_timestamp flips its static key from a work item
	ip netns exec h1 ping -c 3 -i 0.2 -W 2 192.0.2.2 >/dev/null
	log_test "forwarded frames leave without their receive timestamp (fq egress)" $? \
		"$(tc -s qdisc show dev swp2 | tr '\n' ' ')"
	kill $stamper
	wait $stamper 2>/dev/null
	tc qdisc del dev swp2 root
}

# A frame the bridge device sends leaves its port without the transmit
# time a packet socket gave it on the bridge (SO_TXTIME, CLOCK_REALTIME):
# Linux's br_forward_finish clears it for the bridge's own frames too, and
# fq would drop a realtime stamp as beyond its horizon.
test_host_xmit_clears_tstamp() {
	RET=0
	if ! modprobe sch_fq 2>/dev/null || ! tc qdisc add dev swp2 root fq 2>/dev/null; then
		log_test_skip "frames the bridge sends leave without their transmit time" "no sch_fq"
		return 0
	fi
	python3 -c 'import socket, struct, time
SO_TXTIME = 61
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("xbr0", 0))
s.setsockopt(socket.SOL_SOCKET, SO_TXTIME, struct.pack("iI", time.CLOCK_REALTIME, 0))
f = bytes.fromhex("'"${MAC2//:/}"'") + bytes.fromhex("020000000909") + struct.pack("!H", 0x88b5) + bytes(50)
for _ in range(3):
    t = struct.pack("Q", time.time_ns())
    s.sendmsg([f], [(socket.SOL_SOCKET, SO_TXTIME, t)])'
	check_err $? "sending with SO_TXTIME failed"
	local stats sent
	stats=$(tc -s qdisc show dev swp2 | tr '\n' ' ')
	sent=$(grep -oE 'Sent [0-9]+ bytes [0-9]+ pkt' <<<"$stats" | awk '{print $4}')
	# tc prints horizon_drops only when there are some.
	! grep -qE 'horizon_drops [1-9]' <<<"$stats" && ((${sent:-0} >= 3))
	check_err $? "fq on swp2: $stats"
	log_test "frames the bridge sends leave without their transmit time (fq egress)"
	tc qdisc del dev swp2 root
}

test_learning() {
	local err=0
	in_fdb xbr0 $MAC1 swp1 || err=1
	in_fdb xbr0 $MAC2 swp2 || err=1
	log_test "learning: h1 on swp1, h2 on swp2" $err "$(fdb_show xbr0 | tr '\n' ';')"

	# A source seen on another port roams.
	ip netns exec h3 $PKT send eth0 ff:ff:ff:ff:ff:ff $MAC1
	busywait 2000 in_fdb xbr0 $MAC1 swp3
	log_test "learning: h1's address roams to swp3" $?
	ip netns exec h1 $PKT send eth0 ff:ff:ff:ff:ff:ff $MAC1
	busywait 2000 in_fdb xbr0 $MAC1 swp1
}

test_flood() {
	local unknown=02:00:00:00:09:99 src=02:00:00:00:01:77 n3 n4 n2
	count_rx_start h2 $src 3
	count_rx_start h3 $src 3
	count_rx_start h4 $src 3
	ip netns exec h1 $PKT send eth0 $unknown $src --count 3
	count_rx_go
	n2=$(count_rx_result h2) n3=$(count_rx_result h3) n4=$(count_rx_result h4)
	[[ $n2 == 3 && $n3 == 3 && $n4 == 3 ]]
	log_test "unknown unicast floods to every other port" $? "h2=$n2 h3=$n3 h4=$n4"

	# Known unicast goes to one port only: $src is now learned on swp1.
	count_rx_start h1 $MAC3 3
	count_rx_start h4 $MAC3 0
	ip netns exec h3 $PKT send eth0 $src $MAC3 --count 3
	count_rx_go
	[[ $(count_rx_result h1) == 3 && $(count_rx_result h4) == 0 ]]
	log_test "known unicast reaches only its port" $? \
		"h1=$(count_rx_result h1) h4=$(count_rx_result h4)"
}

setup_vlan() {
	ip link add xbr0 type xbridge
	xb link set dev xbr0 vlan_filtering 1
	ip link set xbr0 up
	host_add h1 xbr0 swp1 $MAC1 198.51.100.1/24
	host_add h2 xbr0 swp2 $MAC2 198.51.100.2/24
	host_add h3 xbr0 swp3 $MAC3
	xb vlan del vid 1 dev swp1
	xb vlan del vid 1 dev swp2
	xb vlan add vid 10 dev swp1 pvid untagged
	xb vlan add vid 20 dev swp2 pvid untagged
	xb vlan add vid 10-20 dev swp3
	ip -n h3 link add link eth0 name eth0.10 type vlan id 10
	ip -n h3 link add link eth0 name eth0.20 type vlan id 20
	ip -n h3 addr add 198.51.100.3/24 dev eth0.10
	ip -n h3 addr add 198.51.101.3/24 dev eth0.20
	ip -n h2 addr add 198.51.101.2/24 dev eth0
	ip -n h3 link set eth0.10 up
	ip -n h3 link set eth0.20 up
}

test_vlan() {
	cleanup
	setup_vlan
	ip netns exec h1 ping -c 2 -i 0.2 -W 2 198.51.100.3 >/dev/null
	log_test "vlan: access vid 10 (untagged) reaches the trunk's vid 10" $?
	ip netns exec h2 ping -c 2 -i 0.2 -W 2 198.51.101.3 >/dev/null
	log_test "vlan: access vid 20 (untagged) reaches the trunk's vid 20" $?
	ip netns exec h1 ping -c 2 -i 0.2 -W 1 198.51.100.2 >/dev/null
	(($? != 0))
	log_test "vlan: hosts in different VLANs do not reach each other" $?
	in_fdb xbr0 $MAC1 swp1 10 && in_fdb xbr0 $MAC3 swp3 10
	log_test "vlan: learned with the VLAN" $? "$(fdb_show xbr0 | tr '\n' ';')"

	# Frames leave the trunk tagged and the access port untagged.
	local src=02:00:00:00:02:01
	count_rx_start h3 $src 2 10
	count_rx_start h2 $src 0
	ip netns exec h1 $PKT send eth0 ff:ff:ff:ff:ff:ff $src --count 2
	count_rx_go
	[[ $(count_rx_result h3) == 2 && $(count_rx_result h2) == 0 ]]
	log_test "vlan: broadcast in vid 10 leaves the trunk tagged 10, not vid 20" $? \
		"h3=$(count_rx_result h3) h2=$(count_rx_result h2)"
	count_rx_start h1 $MAC3 2 none
	ip netns exec h3 $PKT send eth0 ff:ff:ff:ff:ff:ff $MAC3 --vlan 10 --count 2
	count_rx_go
	[[ $(count_rx_result h1) == 2 ]]
	log_test "vlan: tagged 10 from the trunk leaves the access port untagged" $? \
		"h1=$(count_rx_result h1)"
	count_rx_start h1 $MAC3 0
	ip netns exec h3 $PKT send eth0 ff:ff:ff:ff:ff:ff $MAC3 --vlan 30 --count 2
	count_rx_go
	[[ $(count_rx_result h1) == 0 ]]
	log_test "vlan: a VID the trunk is not a member of is dropped" $?

	xb vlan del vid 10 dev swp3
	in_fdb xbr0 $MAC3 swp3 10
	(($? != 0))
	log_test "vlan: deleting vid 10 flushes its entries on the port" $?
	cleanup
}

test_removal_under_traffic() {
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 1		# traffic flowing during the removal is the point
	ip link set swp2 nomaster
	local err=$?
	ip link set swp2 master xbr0 && ip link set swp2 up || err=1
	sleep 0.5	# and through the re-added port before the deletion
	ip link del xbr0 || err=1
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	log_test "port removal and bridge deletion under ping traffic" $err
}

test_netdev() {
	local err=0 carrier mtu
	ip link add xbr1 type xbridge
	ip link set xbr1 up
	carrier=$(cat /sys/class/net/xbr1/carrier)
	[[ $carrier == 0 ]] || err=1
	ip link add swp9 type veth peer name swp9p
	ip link set swp9 mtu 1400
	ip link set swp9p up
	ip link set swp9 master xbr1
	ip link set swp9 up
	busywait 2000 grep -qx 1 /sys/class/net/xbr1/carrier
	carrier=$(cat /sys/class/net/xbr1/carrier)
	mtu=$(cat /sys/class/net/xbr1/mtu)
	[[ $carrier == 1 && $mtu == 1400 ]] || err=1
	ip link set swp9 mtu 1300
	[[ $(cat /sys/class/net/xbr1/mtu) == 1300 ]] || err=1
	ip link del swp9
	busywait 2000 grep -qx 0 /sys/class/net/xbr1/carrier
	[[ $(cat /sys/class/net/xbr1/carrier) == 0 ]] || err=1
	ip link del xbr1
	log_test "netdev: carrier follows the ports, MTU is the smallest port's" $err \
		"carrier=$carrier mtu=$mtu"
}

test_rmmod_under_traffic() {
	[[ -n "$MODULE" ]] || return 0
	setup_flat
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 1		# traffic flowing during the rmmod is the point
	rmmod xbridge
	local err=$?
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	hosts_cleanup
	log_test "rmmod xbridge with a bridge, ports and traffic" $err
	insmod "$MODULE"
}

ALL_TESTS="
	test_ping
	test_ping_bridge
	test_netns_local
	test_bridge_down
	test_port_added_down
	test_forward_clears_tstamp
	test_link_local_foreign_tag
	test_host_xmit_clears_tstamp
	test_learning
	test_flood
	test_removal_under_traffic
	test_vlan
	test_netdev
	test_rmmod_under_traffic
"

trap cleanup EXIT
setup_flat
tests_run
summary
