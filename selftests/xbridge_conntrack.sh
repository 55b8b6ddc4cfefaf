#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_conntrack.sh [MODULE.ko] - the bridge's `conntrack` option in the
# test kernel (module loaded): the option set and shown; a real TCP
# connection through xbr0 shown by `xbridge ct show` as conntrack -L shows
# it (ESTABLISHED [ASSURED]), in JSON, counted, and removed by a flush; ICMP;
# IPv4 and IPv6 fragments reassembled for tracking and sent on as fragments;
# zones; new/destroy events on the ct group (`xbridge monitor ct`); the
# family's ct requests with bad attributes refused with an extack
# and nothing changed; switching conntrack off and on and deleting the
# bridge under traffic; the entries' kmem_cache (184-byte objects, one per
# connection, none left); and (given the module path) rmmod under traffic
# with conntrack on. The runner fails the run on any kernel WARNING/BUG/RCU stall.
# The tests run in ALL_TESTS' order on one bridge (TESTS= picks some).
set -u
source "$(dirname "$0")/lib.sh"
GENL="python3 $SELFTESTS_DIR/genl_raw.py"
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
	slowwait 10000 test -e "$TMPDIR/listening"
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
	slowwait 10000 test -e "$TMPDIR/exchanged"
	busywait 3000 tcp_settled	# the client's ACK of "pong"
}

# tcp_settled - the connection is tracked, ESTABLISHED and [ASSURED], and
# the client's last ACK is counted (4 packets h1 -> h2: SYN, ACK, "ping",
# the ACK of "pong").
tcp_settled() {
	xb -s ct show dev xbr0 2>/dev/null |
		grep -Eq 'ESTABLISHED .*sport=40000 dport=80 packets=([4-9]|[1-9][0-9]+) .*\[ASSURED\]'
}

# tcp_abort - end the connection now (its ends are killed; the kernel
# closes their sockets).
tcp_abort() {
	local pids
	pids=$(jobs -p)
	[[ -z $pids ]] || kill $pids 2>/dev/null
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

	err=0
	[[ $(xb -j -d link show dev xbr0 | jq '.[0].conntrack_max') == 65536 ]] || err=1
	xb link set dev xbr0 conntrack_max 1000 || err=1
	[[ $(xb -j -d link show dev xbr0 | jq '.[0].conntrack_max') == 1000 ]] || err=1
	xb ct stats dev xbr0 | grep -q 'max=1000' || err=1
	xb link set dev xbr0 conntrack_max 65536 || err=1
	xb ct stats dev xbr0 | grep -q 'max=65536' || err=1
	log_test "conntrack_max: nf_conntrack_max's default, set on the live table" $err \
		"$(xb ct stats dev xbr0)"
}

test_ping_tracked() {
	ip netns exec h1 ping -c 3 -i 0.2 -W 2 192.0.2.2 >/dev/null
	log_test "ping h1 -> h2 through xbr0 with conntrack on" $?
}

TCP_ROW='^tcp      6 43[0-9]{4} ESTABLISHED src=192\.0\.2\.1 dst=192\.0\.2\.2 sport=40000 dport=80 src=192\.0\.2\.2 dst=192\.0\.2\.1 sport=80 dport=40000 \[ASSURED\] mark=0 use=1$'

test_tcp_tracked() {
	local out err=0
	xb ct flush dev xbr0
	tcp_start 300	# held through the checks below, then aborted: a debug
			# kernel beside other guests took more than 20 s over them
	[[ -e $TMPDIR/exchanged ]] || err=1
	out=$(xb ct show dev xbr0 2>/dev/null)
	grep -Eq "$TCP_ROW" <<<"$out" || err=1
	log_test "ct show: the TCP connection is ESTABLISHED [ASSURED], as conntrack -L prints it" \
		$err "$out"

	err=0
	out=$(xb -s ct show dev xbr0 2>/dev/null | grep 'sport=40000')
	grep -Eq 'dport=80 packets=[0-9]+ bytes=[0-9]+ src=192\.0\.2\.2 .* dport=40000 packets=[0-9]+ bytes=[0-9]+ \[ASSURED\]' \
		<<<"$out" || err=1
	log_test "ct show -s: per-direction packets and bytes" $err "$out"

	err=0
	xb -j ct show | jq -e '.[] | select(.orig.sport == 40000) |
		.ifname == "xbr0" and .proto == "tcp" and .state == "ESTABLISHED" and
		.reply.sport == 80 and (.flags | index("ASSURED")) != null and .zone == 0' \
		>/dev/null || err=1
	log_test "ct show -j: the connection as JSON" $err "$(xb -j ct show)"

	err=0
	xb ct show dev xbr0 zone 0 2>/dev/null | grep -Eq "$TCP_ROW" || err=1
	[[ -z $(xb ct show dev xbr0 zone 1 2>/dev/null) ]] || err=1
	log_test "ct show zone: zone 0 has it, zone 1 is empty" $err

	err=0
	out=$(xb ct count dev xbr0)
	((out >= 1)) || err=1
	out=$(xb -s ct stats dev xbr0)
	grep -Eq 'insert=[1-9][0-9]* ' <<<"$out" || err=1
	grep -q 'insert_failed=0 drop=0 early_drop=0' <<<"$out" || err=1
	log_test "ct count and -s ct stats (conntrack -S's counters)" $err "$out"

	err=0
	out=$($GENL ct-get xbr0 l3 4 proto 6 src 192.0.2.1 dst 192.0.2.2 sport 40000 dport 80)
	[[ $out == *"tcp_state=3 "* && $out == *"reply_sport=80 "* ]] || err=1
	out=$($GENL ct-get xbr0 l3 4 proto 6 src 192.0.2.2 dst 192.0.2.1 sport 80 dport 40000)
	[[ $out == *"sport=40000 dport=80 "* ]] || err=1
	log_test "CT_GET by either direction's tuple" $err "$out"

	xb ct flush dev xbr0
	out=$(xb ct show dev xbr0 2>/dev/null)
	! grep -q 'sport=40000' <<<"$out"
	log_test "ct flush removes the connection" $? "$out"
	tcp_abort
}

test_icmp_tracked() {
	local out
	ip netns exec h1 ping -c 2 -i 0.2 -W 2 192.0.2.2 >/dev/null
	out=$(xb ct show dev xbr0 2>/dev/null)
	grep -Eq '^icmp     1 [0-9]+ src=192\.0\.2\.1 dst=192\.0\.2\.2 type=8 code=0 id=[0-9]+ src=192\.0\.2\.2 dst=192\.0\.2\.1 type=0 code=0 id=[0-9]+ mark=0 use=1$' \
		<<<"$out"
	log_test "ct show: ping is an icmp entry with the echo reply's tuple" $? "$out"
}

# frags_through PING_ARGS... - ping h1 -> h2 with 3,000-byte echoes (three
# fragments each at MTU 1500) and check what conntrack made of them: one
# echo entry matching ROW_RE, no packet counted invalid, and at least six
# frames (the fragments, sent on again) at h2. Without reassembly each
# later fragment is invalid; without refragmentation the reassembled
# packet is over the port's MTU and goes no further.
frags_through() {
	local what=$1 row_re=$2 out err=0 inv0 inv1 rx0 rx1
	shift 2
	xb ct flush dev xbr0
	inv0=$(xb -s ct stats dev xbr0 | grep -o ' invalid=[0-9]*')
	rx0=$(ip -n h2 -s -j link show eth0 | jq '.[0].stats64.rx.packets')
	ip netns exec h1 ping "$@" -c 2 -i 0.3 -W 3 -s 3000 >/dev/null || err=1
	rx1=$(ip -n h2 -s -j link show eth0 | jq '.[0].stats64.rx.packets')
	inv1=$(xb -s ct stats dev xbr0 | grep -o ' invalid=[0-9]*')
	out=$(xb ct show dev xbr0 2>/dev/null)
	grep -Eq "$row_re" <<<"$out" || err=1
	[[ $inv0 == "$inv1" ]] || err=1
	((rx1 - rx0 >= 6)) || err=1
	log_test "$what fragments: reassembled for conntrack (one entry, none invalid), sent on as fragments" \
		$err "ping: ${rx0}->${rx1} frames at h2,${inv0} ->${inv1}; $out"
}

test_fragments() {
	local ns
	frags_through IPv4 '^icmp +1 [0-9]+ src=192\.0\.2\.1 dst=192\.0\.2\.2 type=8 ' -M dont 192.0.2.2
	for ns in h1 h2; do
		ip netns exec $ns sysctl -qw net.ipv6.conf.eth0.disable_ipv6=0
	done
	ip -n h1 addr add 2001:db8:2::1/64 dev eth0 nodad
	ip -n h2 addr add 2001:db8:2::2/64 dev eth0 nodad
	frags_through IPv6 '^icmpv6 +58 [0-9]+ src=2001:db8:2::1 dst=2001:db8:2::2 type=128 ' \
		-6 2001:db8:2::2
}

# What the bridge device's own IP stack sends it has fragmented itself, after
# the IP layer's conntrack saw the datagram whole: every fragment belongs to
# that connection on Linux, and none may count as invalid here.
test_host_fragments() {
	local err=0 inv0 inv1 out
	ip addr add 192.0.2.254/24 dev xbr0
	xb ct flush dev xbr0
	inv0=$(xb -s ct stats dev xbr0 | grep -o ' invalid=[0-9]*')
	ping -c 2 -i 0.3 -W 3 -s 3000 -M dont 192.0.2.2 >/dev/null || err=1
	inv1=$(xb -s ct stats dev xbr0 | grep -o ' invalid=[0-9]*')
	out=$(xb ct show dev xbr0 2>/dev/null)
	grep -Eq '^icmp +1 [0-9]+ src=192\.0\.2\.254 dst=192\.0\.2\.2 type=8 ' <<<"$out" || err=1
	[[ $inv0 == "$inv1" ]] || err=1
	ip addr del 192.0.2.254/24 dev xbr0
	log_test "fragments the bridge device sends: their datagram's connection, none invalid" \
		$err "${inv0} ->${inv1}; $out"
}

# expect_err WHAT PATTERN CMD... - CMD fails with an error matching PATTERN.
expect_err() {
	local what=$1 pattern=$2 out
	shift 2
	out=$("$@" 2>&1)
	[[ $? != 0 && $out == *"$pattern"* ]]
	log_test "bad request refused: $what" $? "$out"
}

# The table without the ageing timeouts: equal while nothing is sent.
ct_table() {
	$GENL ct-dump xbr0 | sed 's/ timeout=[0-9]*//'
}

test_bad_requests() {
	local before after id
	xb ct flush dev xbr0
	# An established connection (5 days' timeout): the table must not
	# change under the bad requests however slowly they run (an icmp
	# entry's 30 s ran out under the debug kernel).
	tcp_start 600
	before=$(ct_table)
	expect_err "CT_DEL without a source" "EINVAL: missing the source address" \
		$GENL ct-del xbr0 l3 4 proto 6 dst 192.0.2.2 sport 40000 dport 80
	expect_err "CT_DEL with family 5" "EINVAL" \
		$GENL ct-del xbr0 l3 5 proto 6 src 192.0.2.1 dst 192.0.2.2 sport 40000 dport 80
	expect_err "CT_DEL of ESP (no ports) with ports" "EINVAL" \
		$GENL ct-del xbr0 l3 4 proto 50 src 192.0.2.1 dst 192.0.2.2 sport 1 dport 2048
	expect_err "CT_DEL of no such entry" "ENOENT: no such conntrack entry" \
		$GENL ct-del xbr0 l3 4 proto 6 src 192.0.2.1 dst 192.0.2.2 sport 40001 dport 80
	expect_err "CT_GET with a read-only attribute" "STATUS is read-only" \
		$GENL ct-get xbr0 l3 4 proto 6 src 192.0.2.1 dst 192.0.2.2 status 4
	expect_err "CT_FLUSH with a tuple attribute" "EINVAL" \
		$GENL ct-flush xbr0 proto 1
	expect_err "a dump filtered by protocol" "filters by zone only" \
		$GENL ct-dump xbr0 proto 1
	after=$(ct_table)
	[[ $before == *" proto=6 "* && $before == "$after" ]]
	log_test "bad requests changed nothing" $? "$before / $after"
	tcp_abort
	xb ct flush dev xbr0

	ip netns exec h1 ping -c 1 -W 2 192.0.2.2 >/dev/null	# one icmp entry, 30 s
	id=$($GENL ct-dump xbr0 | sed -n 's/.* proto=1 .* sport=\([0-9]*\) dport=2048 .*/\1/p')
	[[ -n $id ]] &&
		$GENL ct-del xbr0 l3 4 proto 1 src 192.0.2.1 dst 192.0.2.2 sport "$id" dport 2048 >/dev/null
	log_test "CT_DEL of the icmp entry by its tuple" $? "id ${id:-none}"
	[[ $($GENL ct-dump xbr0) == "count 0" ]]
	log_test "CT_DEL: the entry is gone" $? "$($GENL ct-dump xbr0)"
}

# conntrack -D --mark: `xbridge ct flush mark M/MASK` takes the connections
# whose mark under the mask is M, and only those; a mark names no single
# connection, so CT_GET/CT_DEL refuse one.
test_flush_by_mark() {
	local out err=0
	xb ct flush dev xbr0
	xnft -f - <<-'EOF' || err=1
	table bridge m {
		chain pre {
			type filter hook prerouting priority 0; policy accept;
			ip saddr 192.0.2.1 icmp type echo-request ct mark set 0x11
		}
	}
	EOF
	ip netns exec h1 ping -c 1 -W 2 192.0.2.2 >/dev/null || err=1
	ip netns exec h2 ping -c 1 -W 2 192.0.2.1 >/dev/null || err=1
	out=$(xb ct show dev xbr0 2>/dev/null)
	[[ $(grep -c 'mark=17 ' <<<"$out") == 1 && $(xb ct count dev xbr0) == 2 ]] || err=1
	expect_err "CT_DEL with a mark" "named by its tuple and zone" \
		$GENL ct-del xbr0 l3 4 proto 1 src 192.0.2.1 dst 192.0.2.2 mark 17
	expect_err "xbridge ct show mark" "" xb ct show dev xbr0 mark 17
	xb ct flush dev xbr0 mark 0x10/0xf0 || err=1
	out=$(xb ct show dev xbr0 2>/dev/null)
	[[ $(xb ct count dev xbr0) == 1 && $out == *"src=192.0.2.2 dst=192.0.2.1 "*"mark=0 "* ]] ||
		err=1
	xnft delete table bridge m || err=1
	log_test "ct flush mark 0x10/0xf0 takes the marked connection only" $err "$out"
}

test_events() {
	local out err=0 mon
	xb ct flush dev xbr0
	"$XB" monitor ct >"$TMPDIR/events" 2>&1 &	# the tool, so that $! is what to kill
	mon=$!
	sleep 1		# `xbridge monitor` gives no sign that it has joined the group
	ip netns exec h1 ping -c 1 -W 2 192.0.2.2 >/dev/null
	xb ct flush dev xbr0
	busywait 5000 grep -q '^\[DESTROY\] icmp ' "$TMPDIR/events"
	kill $mon 2>/dev/null
	wait $mon 2>/dev/null
	out=$(cat "$TMPDIR/events")
	grep -Eq '^    \[NEW\] icmp     1 [0-9]+ src=192\.0\.2\.1 dst=192\.0\.2\.2 type=8 code=0 id=[0-9]+ \[UNREPLIED\] src=192\.0\.2\.2 ' \
		<<<"$out" || err=1
	grep -Eq '^\[DESTROY\] icmp     1 src=192\.0\.2\.1 dst=192\.0\.2\.2 type=8 code=0 id=[0-9]+ src=192\.0\.2\.2 ' \
		<<<"$out" || err=1
	log_test "monitor ct: [NEW] at confirm, [DESTROY] at flush, as conntrack -E" $err "$out"
}

# Dumps and stats need no privilege; changes need CAP_NET_ADMIN.
test_unprivileged() {
	local out err=0
	if ! command -v setpriv >/dev/null; then
		log_test_skip "unprivileged ct requests" "no setpriv"
		return
	fi
	local nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
	ip netns exec h1 ping -c 1 -W 2 192.0.2.2 >/dev/null
	out=$($nobody /usr/bin/python3 "$SELFTESTS_DIR/genl_raw.py" ct-dump xbr0 2>&1)
	[[ $out == *"proto=1 "* ]] || err=1
	out+=" | "$($nobody /usr/bin/python3 "$SELFTESTS_DIR/genl_raw.py" ct-stats xbr0 2>&1)
	[[ $out == *"count="* ]] || err=1
	log_test "unprivileged ct dump and stats are allowed" $err "$out"
	# a fresh echo entry (30 s), so that it outlives the two slow
	# requests below on a debug kernel under TCG
	ip netns exec h1 ping -c 1 -W 2 192.0.2.2 >/dev/null
	out=$($nobody /usr/bin/python3 "$SELFTESTS_DIR/genl_raw.py" ct-flush xbr0 2>&1)
	[[ $out == "error EPERM"* && $($GENL ct-dump xbr0) == *"proto=1 "* ]]
	log_test "unprivileged ct flush: EPERM, nothing flushed" $? "$out"
}

test_off() {
	local err=0
	xb link set dev xbr0 conntrack off || err=1
	[[ -z $(xb ct show dev xbr0 2>/dev/null) ]] || err=1
	expect_err "ct stats while conntrack is off" "conntrack is off on this bridge" \
		xb ct stats dev xbr0
	xb link set dev xbr0 conntrack on || err=1
	[[ $(xb ct count dev xbr0) == 0 ]] || err=1
	log_test "conntrack off empties the table; on again starts empty" $err
}

test_toggle_under_traffic() {
	local err=0 i
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	# Traffic during each switch is the point: let it run between them.
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
	sleep 1		# traffic flowing during the deletion is the point
	ip link del xbr0
	local err=$?
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	log_test "bridge deletion with conntrack on under ping traffic" $err
}

# The entries' own kmem_cache (core/ct_table.h): objects of 184 bytes (no
# padding, no rounding up to kmalloc-192), one live per tracked
# connection, none once the table is flushed and the bridge deleted. 6.1
# has no SLAB_NO_MERGE: there the cache may be merged into another of its
# size, whose name /proc/slabinfo shows and whose objects it counts too.
SLAB=/sys/kernel/slab/xbridge_ct

# slab_active - xbridge_ct's objects in use: the active count of
# /proc/slabinfo, once the per-CPU slabs (counted whole) are flushed.
slab_active() {
	echo 1 >"$SLAB/shrink"
	awk '$1 == "xbridge_ct" { print $2 }' /proc/slabinfo
}

slab_empty() { [[ $(slab_active) == 0 ]]; }

test_slab_cache() {
	local err=0 size active n
	cleanup
	setup
	xb link set dev xbr0 conntrack on
	size=$(cat "$SLAB/object_size" 2>/dev/null)
	[[ $size == 184 ]]
	log_test "ct entries' kmem_cache: 184-byte objects" $? "object_size ${size:-none}"
	if ! grep -q '^xbridge_ct ' /proc/slabinfo; then
		log_test_skip "ct entries' kmem_cache counts" \
			"merged with the other caches of its size: $SLAB -> $(readlink "$SLAB")"
		return
	fi
	slowwait 5000 slab_empty || err=1
	# 32 UDP flows h1 -> h2 (the discard port): 32 entries.
	ip netns exec h1 python3 -c '
import socket
for port in range(20000, 20032):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("192.0.2.1", port))
    s.sendto(b"x", ("192.0.2.2", 9))
    s.close()
'
	n=$(xb ct count dev xbr0)
	active=$(slab_active)
	((n >= 32 && active == n)) || err=1
	xb ct flush dev xbr0
	ip link del xbr0
	slowwait 5000 slab_empty || err=1
	log_test "ct entries' kmem_cache: an object per connection, none after flush and delete" \
		$err "$n tracked, $active active, then $(slab_active)"
}

test_rmmod_under_traffic() {
	[[ -n "$MODULE" ]] || return 0
	cleanup
	setup
	xb link set dev xbr0 conntrack on
	ip netns exec h1 ping -i 0.01 -q 192.0.2.2 >/dev/null 2>&1 &
	local ping=$!
	sleep 1		# traffic flowing during the rmmod is the point
	rmmod xbridge
	local err=$?
	kill $ping 2>/dev/null
	wait $ping 2>/dev/null
	hosts_cleanup
	log_test "rmmod xbridge with conntrack on and traffic" $err
	insmod "$MODULE"
}

ALL_TESTS="
	test_option
	test_ping_tracked
	test_tcp_tracked
	test_icmp_tracked
	test_fragments
	test_host_fragments
	test_bad_requests
	test_flush_by_mark
	test_events
	test_unprivileged
	test_off
	test_toggle_under_traffic
	test_delete_under_traffic
	test_slab_cache
	test_rmmod_under_traffic
"

trap cleanup EXIT
setup
tests_run
summary
