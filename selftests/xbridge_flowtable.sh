#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_flowtable.sh [MODULE.ko] - the seed's bridge flowtable end to end
# (../shared/seeds/bridge-flowtable-thread.txt): its topology (two
# namespaces, VLAN 200 PVID untagged, vlan_filtering on) and its ruleset
# typed verbatim with xnft, the flowtable offloading UDP too. A TCP and a
# UDP connection appear offloaded ([OFFLOAD] in `xbridge ct show`, hits in
# `xbridge -s ct stats`), keep working across every teardown cause we can
# cause from outside - an FDB flush, a port going down and up, a VLAN
# change, a ruleset commit, conntrack flushing the connection, and the
# FIN that ends it - and each cause is counted. The steps are tests run
# in ALL_TESTS' order, each on the state the one before left.
# The tools: $XNFT / $XBRIDGE, else build-test/, build/ ... under the repo.
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)

need_xnft

cleanup() {
	[[ -n "${PEERS:-}" ]] && kill $PEERS 2>/dev/null
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}
trap cleanup EXIT


# stat NAME - one counter of `xbridge -s ct stats` (the flowtable's line).
stat() {
	xb -s ct stats dev xbr0 | tr ' ' '\n' | sed -n "s/^$1=//p"
}

# The seed's topology; xbridge for the bridge.
topology() {
	ip link add xbr0 type xbridge || { log_test "create xbr0" 1; summary; exit 1; }
	xb link set dev xbr0 vlan_filtering 1
	ip link set xbr0 up
	host_add ns21 xbr0 veth21 02:00:00:00:21:07 10.0.0.7/24
	host_add ns22 xbr0 veth22 02:00:00:00:21:08 10.0.0.8/24
	xb vlan add dev veth21 vid 200 pvid untagged
	xb vlan add dev veth22 vid 200 pvid untagged
}

# The seed's ruleset, verbatim with xnft for nft; then its flowtable and
# forward chain, offloading UDP as well as TCP.
ft_ruleset() {
	local out
	{
		cat "$SELFTESTS_DIR/seed_firewall.sh"
		echo 'xnft add rule bridge firewall ftb-all counter ct zone 2 ip protocol udp flow offload @fb2'
	} > "$TMPDIR/seed.sh"
	out=$(PATH="$(dirname "$XNFT"):$PATH" bash -e "$TMPDIR/seed.sh" 2>&1)
	log_test "the seed's ruleset and flowtable, with xnft for nft" $? "$out"
	check "ping ns21 -> ns22 through the firewall" ip netns exec ns21 ping -c 1 -W 2 10.0.0.8
}

# An echo server in ns22 (TCP and UDP, port 22 and 5000), and a TCP client
# in ns21 that sends a block, reads it back, and waits for $TMPDIR/go.N
# before its round N+1 (the shell acts between rounds).
ROUNDS=6
peers_start() {
	ip netns exec ns22 python3 -c '
import socket, threading
def tcp():
    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 22)); s.listen(4)
    while True:
        c, _ = s.accept()
        while True:
            b = c.recv(65536)
            if not b: break
            c.sendall(b)
        c.close()
def udp():
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("0.0.0.0", 5000))
    while True:
        b, a = u.recvfrom(2048); u.sendto(b, a)
threading.Thread(target=udp, daemon=True).start()
tcp()
' &
	PEERS="$!"
	cat > "$TMPDIR/client.py" <<'EOF'
import os, socket, sys, time
rounds, tmp = int(sys.argv[1]), sys.argv[2]
for _ in range(100):
    try:
        s = socket.create_connection(("10.0.0.8", 22), timeout=5)
        break
    except OSError:
        time.sleep(0.2)
s.settimeout(10)
for n in range(rounds):
    block = bytes([n % 256]) * 32768
    s.sendall(block)
    got = b""
    while len(got) < len(block):
        got += s.recv(65536)
    if got != block:
        print("round %d: echo differs" % n); sys.exit(1)
    open(os.path.join(tmp, "done.%d" % n), "w").close()
    while not os.path.exists(os.path.join(tmp, "go.%d" % n)):
        time.sleep(0.05)
s.close()
print("ok")
EOF
	ip netns exec ns21 python3 "$TMPDIR/client.py" $ROUNDS "$TMPDIR" > "$TMPDIR/client.out" 2>&1 &
	CLIENT=$!
}

round_done() {		# round_done N - wait for the client's round N
	slowwait 30000 test -e "$TMPDIR/done.$1"
}
offloaded() { xb ct show | grep -q "dport=22 .*\[OFFLOAD\]"; }
# cause N DESC COUNTER COMMAND... - after round N, make the flow stale with
# COMMAND; the teardown is counted as COUNTER (by the next hit or the GC,
# whichever comes first), round N+1 works, and the connection is
# offloaded again.
cause() {
	local n=$1 desc=$2 counter=$3 before after
	shift 3
	before=$(stat "$counter")
	"$@"
	touch "$TMPDIR/go.$n"
	check "round $((n + 1)) after $desc: the echo comes back" round_done $((n + 1))
	after=$(stat "$counter")
	((after > before))
	log_test "$desc counted as $counter ($before -> $after)" $? "$(xb -s ct stats dev xbr0)"
	check "offloaded again after $desc" offloaded
}
port_bounce() {		# port_bounce PORT - down, up, and forwarding again
	ip link set "$1" down
	ip link set "$1" up
	slowwait 5000 port_forwarding "$1"
}

ft_tcp_offload() {
	local ctl hits
	peers_start
	check "round 0: the TCP connection works" round_done 0
	ctl=$(xb ct show)
	[[ $ctl == *"tcp "*"ESTABLISHED"*"dport=22"*"[OFFLOAD]"*"zone=2"* ]]
	log_test "the connection is offloaded, in zone 2 (xbridge ct show)" $? "$ctl"
	hits=$(stat hits)
	((hits > 0))
	log_test "the flowtable forwarded its segments (hits=$hits)" $? "$(xb -s ct stats dev xbr0)"
}

ft_teardown_causes() {
	cause 0 "an FDB flush of ns22's port" teardown_stale xb fdb flush dev veth22
	cause 1 "veth22 down and up" teardown_stale port_bounce veth22
	cause 2 "a VLAN added to veth22" teardown_stale xb vlan add dev veth22 vid 300
	cause 3 "a ruleset commit" teardown_stale xnft add table bridge other
	cause 4 "conntrack's flush" teardown_conntrack xb ct flush
}

fin_counted() { (($(stat teardown_fin_rst) > $1)); }
ft_fin() {
	local fin_before fin_after ctl
	fin_before=$(stat teardown_fin_rst)
	touch "$TMPDIR/go.5"
	wait $CLIENT
	log_test "the client saw every echo" $? "$(cat "$TMPDIR/client.out")"
	busywait 3000 fin_counted "$fin_before"
	fin_after=$(stat teardown_fin_rst)
	((fin_after > fin_before))
	log_test "the FIN handed the connection back to conntrack" $? "$(xb -s ct stats dev xbr0)"
	ctl=$(xb ct show)
	[[ $ctl != *"dport=22 "*"[OFFLOAD]"* ]]
	log_test "the closed connection is no longer offloaded" $? "$ctl"
}

# UDP: the first datagram creates the connection, the next (confirmed) is
# offloaded; the replies hit too.
ft_udp() {
	local out ctl
	out=$(ip netns exec ns21 python3 -c '
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
for i in range(20):
    u.sendto(b"x%d" % i, ("10.0.0.8", 5000))
    b, _ = u.recvfrom(2048)
    assert b == b"x%d" % i
print("ok")
' 2>&1)
	log_test "UDP echo through the flowtable" $? "$out"
	ctl=$(xb ct show)
	[[ $ctl == *"udp "*"dport=5000"*"[OFFLOAD]"* ]]
	log_test "the UDP flow is offloaded" $? "$ctl"
}

# The denied traffic stays denied: new TCP to port 23 from ns21.
ft_denied() {
	local out
	out=$(ip netns exec ns21 python3 -c '
import socket
s = socket.socket(); s.settimeout(2)
try:
    s.connect(("10.0.0.8", 23)); print("connected")
except OSError as e:
    print("blocked", e)
' 2>&1)
	[[ $out == blocked* ]]
	log_test "new TCP to port 23 from ns21 is still dropped" $? "$out"
}

ft_flush() {
	check "flush ruleset" xnft flush ruleset
	check "ping after the flush" ip netns exec ns21 ping -c 1 -W 2 10.0.0.8
}

ALL_TESTS="
	ft_ruleset
	ft_tcp_offload
	ft_teardown_causes
	ft_fin
	ft_udp
	ft_denied
	ft_flush
"

topology
tests_run
summary
