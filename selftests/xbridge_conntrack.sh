#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_conntrack.sh [MODULE.ko] - the bridge's `conntrack` option in the
# test kernel (module loaded): the option set and shown, real TCP and ICMP
# through xbr0 tracked, switching conntrack off and on and deleting the
# bridge under traffic, and (given the module path) rmmod under traffic with
# conntrack on. The runner fails the run on any kernel WARNING/BUG/RCU stall.
set -u
source "$(dirname "$0")/lib.sh"
MODULE=${1:-}
TMPDIR=$(mktemp -d)

MAC1=02:00:00:00:02:01
MAC2=02:00:00:00:02:02

setup() {
	ip link add xbr0 type xbridge
	ip link set xbr0 up
	host_add h1 xbr0 swp1 $MAC1 192.0.2.1/24
	host_add h2 xbr0 swp2 $MAC2 192.0.2.2/24
}

cleanup() {
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	ip link del swp1 2>/dev/null
	ip link del swp2 2>/dev/null
}

# tcp_start HOLD - a TCP connection 192.0.2.1:40000 -> 192.0.2.2:80 that
# exchanges one message each way and then stays open, idle, for HOLD
# seconds. Returns once the exchange is done.
tcp_start() {
	local hold=$1
	rm -f "$TMPDIR/listening" "$TMPDIR/exchanged"
	ip netns exec h2 python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("192.0.2.2", 80))
s.listen(1)
open(sys.argv[1], "w").close()
c, _ = s.accept()
c.recv(16)
c.sendall(b"pong")
time.sleep(float(sys.argv[2]))
c.close()
' "$TMPDIR/listening" "$hold" &
	for _ in $(seq 100); do
		[[ -e $TMPDIR/listening ]] && break
		sleep 0.1
	done
	ip netns exec h1 python3 -c '
import socket, sys, time
c = socket.socket()
c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
c.bind(("192.0.2.1", 40000))
c.settimeout(5)
c.connect(("192.0.2.2", 80))
c.sendall(b"ping")
c.recv(16)
open(sys.argv[1], "w").close()
time.sleep(float(sys.argv[2]))
c.close()
' "$TMPDIR/exchanged" "$hold" &
	for _ in $(seq 100); do
		[[ -e $TMPDIR/exchanged ]] && break
		sleep 0.1
	done
	sleep 0.3	# the client's ACK of "pong"
}

tcp_stop() {
	wait
}

test_option() {
	local err=0
	[[ $(xb -j -d link show dev xbr0 | jq '.[0].conntrack') == 0 ]] || err=1
	xb link set dev xbr0 conntrack on || err=1
	[[ $(xb -j -d link show dev xbr0 | jq '.[0].conntrack') == 1 ]] || err=1
	xb -d link show dev xbr0 | grep -q ' conntrack 1 ' || err=1
	xb link set dev xbr0 conntrack maybe 2>/dev/null && err=1
	log_test "conntrack option: off by default, set on, shown in link show (-d, -j)" $err
}

test_ping_tracked() {
	ip netns exec h1 ping -c 3 -i 0.2 -W 2 192.0.2.2 >/dev/null
	log_test "ping h1 -> h2 through xbr0 with conntrack on" $?
}

test_tcp_tracked() {
	tcp_start 1
	[[ -e $TMPDIR/exchanged ]]
	log_test "a TCP connection through xbr0 with conntrack on" $?
	tcp_stop
}

test_toggle_under_traffic() {
	local err=0 i
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 0.5
	for i in 1 2 3 4 5; do
		xb link set dev xbr0 conntrack off || err=1
		sleep 0.2
		xb link set dev xbr0 conntrack on || err=1
		sleep 0.2
	done
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	ip netns exec h1 ping -c 2 -i 0.2 -W 2 192.0.2.2 >/dev/null || err=1
	log_test "conntrack off/on five times under ping traffic, still forwarding" $err
}

test_delete_under_traffic() {
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 1
	ip link del xbr0
	local err=$?
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	log_test "bridge deletion with conntrack on under ping traffic" $err
}

test_rmmod_under_traffic() {
	[[ -n "$MODULE" ]] || return 0
	setup
	xb link set dev xbr0 conntrack on
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 1
	rmmod xbridge
	local err=$?
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	hosts_cleanup
	log_test "rmmod xbridge with conntrack on and traffic" $err
	insmod "$MODULE"
}

trap cleanup EXIT
setup
test_option
test_ping_tracked
test_tcp_tracked
test_toggle_under_traffic
test_delete_under_traffic
cleanup
test_rmmod_under_traffic
summary
