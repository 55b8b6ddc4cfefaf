#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_events.sh [MODULE.ko] - the family's event groups, watched as a
# user watches them: `xnft monitor` (the `nft` group: each committed batch's
# objects, then the new generation, as `nft monitor` prints nf_tables'
# events; nothing for a refused batch) and `xbridge monitor ct` (the `ct`
# group: [NEW], [UPDATE] and [DESTROY] as `conntrack -E` prints them, and
# an update when an offloaded connection's flow is torn down, with why).
# Both monitors run in the background while the suite changes the ruleset
# and sends a TCP connection through the bridge; then their output is
# checked line by line, and both must exit cleanly on SIGTERM.
# The tools: $XNFT / $XBRIDGE, else build-test/, build/ ... under the repo.
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)

need_xnft

cleanup() {
	[[ -n "${BG:-}" ]] && kill $BG 2>/dev/null
	xnft flush ruleset 2>/dev/null
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}
trap cleanup EXIT


# has FILE NAME LINE - PASS if FILE has LINE exactly (a whole line).
has() {
	grep -qxF -- "$3" "$1"
	log_test "$2" $? "not in $(basename "$1"): '$3'; got:
$(cat "$1")"
}
# has_re FILE NAME REGEX - PASS if some line of FILE matches REGEX.
has_re() {
	grep -qE -- "$3" "$1"
	log_test "$2" $? "no line of $(basename "$1") matches '$3'; got:
$(cat "$1")"
}
# line_of FILE REGEX - the number of the first line matching REGEX (or 0).
line_of() {
	local n
	n=$(grep -nE -- "$2" "$1" | head -1 | cut -d: -f1)
	echo "${n:-0}"
}
# settle FILE PATTERN - wait (up to 10 s) for a line matching PATTERN.
settle() {
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qE -- "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

ip link add xbr0 type xbridge || { log_test "create xbr0" 1; summary; exit 1; }
ip link set xbr0 up
host_add ns1 xbr0 veth1 02:00:00:00:e0:01 10.0.0.1/24
host_add ns2 xbr0 veth2 02:00:00:00:e0:02 10.0.0.2/24
xb link set dev xbr0 conntrack on

# The monitors, started before anything happens; a subscription is in
# place once the tool has read the ruleset, which a first commit shows.
# (The binaries themselves, not lib.sh's wrapper functions: $! is then
# the monitor's own pid, which the end of the suite signals.)
"$XNFT" monitor > "$TMPDIR/nft.out" 2> "$TMPDIR/nft.err" &
NFTMON=$!
"$XNFT" -a monitor new rules > "$TMPDIR/rules.out" 2>&1 &
RULESMON=$!
"$XNFT" monitor destroy > "$TMPDIR/destroy.out" 2>&1 &
DESTROYMON=$!
"$XB" monitor ct > "$TMPDIR/ct.out" 2> "$TMPDIR/ct.err" &
CTMON=$!
BG="$NFTMON $RULESMON $DESTROYMON $CTMON"
sleep 2

# ---- nft: one batch per command, then a refused one ----
check "add table" xnft add table bridge t
check "add chain" xnft add chain bridge t c '{ type filter hook forward priority 0; policy accept; }'
check "add rule" xnft add rule bridge t c ip saddr 10.0.0.1 counter accept
check "add set" xnft add set bridge t s '{ type ipv4_addr; }'
check "add elements" xnft add element bridge t s '{ 10.0.0.2, 10.0.0.3 }'
check "add flowtable" xnft add flowtable bridge t ft '{ hook ingress priority 0; devices = { veth1, veth2 }; }'
check "add the offload rule" xnft add rule bridge t c ip protocol tcp flow offload @ft
# A rule too big for one page (NLMSG_GOODSIZE; 121 of nf_tables' 128
# expressions, ~6 KiB): its event still arrives (the 64 KiB retry).
big="ip daddr != 10.9.0.1"
for i in $(seq 2 60); do big+=" ip daddr != 10.9.0.$i"; done
check "add a big rule" xnft add rule bridge t c $big counter
# Refused at commit: a jump loop the base chain c reaches (EMLINK) - the
# batch is not committed.
xnft add chain bridge t loopa \; add chain bridge t loopb \; \
	add rule bridge t loopa jump loopb \; add rule bridge t loopb jump loopa \; \
	add rule bridge t c jump loopa > "$TMPDIR/loop.err" 2>&1
st=$?
((st != 0))
log_test "a batch with a jump loop is refused" $? "$(cat "$TMPDIR/loop.err")"
gens_before_del=$(grep -c '^# new generation' "$TMPDIR/nft.out")
handle=$(xnft -a list chain bridge t c | sed -n 's/.*ip saddr 10.0.0.1 .* # handle \([0-9]*\)$/\1/p')
check "delete the first rule (handle $handle)" xnft delete rule bridge t c handle "$handle"
check "delete an element" xnft delete element bridge t s '{ 10.0.0.3 }'
settle "$TMPDIR/nft.out" "^delete element" ||
	log_test "xnft monitor printed the element's deletion" 1 "$(cat "$TMPDIR/nft.out" "$TMPDIR/nft.err")"

N="$TMPDIR/nft.out"
has "$N" "xnft monitor: add table" "add table bridge t"
has "$N" "xnft monitor: add chain (one line, as nft)" \
	"add chain bridge t c { type filter hook forward priority 0; policy accept; }"
has "$N" "xnft monitor: add rule" "add rule bridge t c ip saddr 10.0.0.1 counter packets 0 bytes 0 accept"
has "$N" "xnft monitor: add set" "add set bridge t s { type ipv4_addr; } "
has "$N" "xnft monitor: one element a line (1)" "add element bridge t s { 10.0.0.2 }"
has "$N" "xnft monitor: one element a line (2)" "add element bridge t s { 10.0.0.3 }"
has_re "$N" "xnft monitor: add flowtable" \
	'^add flowtable bridge t ft \{ hook ingress priority 0; devices = \{ veth[12], veth[12] \}; \}$'
# (nft lists `flow offload @ft` as `flow add @ft`, its monitor too)
has "$N" "xnft monitor: the offload rule" "add rule bridge t c ip protocol tcp flow add @ft"
has_re "$N" "xnft monitor: the big rule (past one page)" \
	'^add rule bridge t c ip daddr != 10\.9\.0\.1 .* ip daddr != 10\.9\.0\.60 counter packets 0 bytes 0$'
has_re "$N" "xnft monitor: the generation, by process (xnft)" \
	'^# new generation [0-9]+ by process [0-9]+ \(xnft\)$'
has "$N" "xnft monitor: delete rule by handle" "delete rule bridge t c handle $handle"
has "$N" "xnft monitor: delete element" "delete element bridge t s { 10.0.0.3 }"
! grep -q "loop" "$N"
log_test "xnft monitor: nothing from the refused batch" $? "$(cat "$N")"
# one generation line per committed batch: 8 before the deletes
((gens_before_del == 8))
log_test "xnft monitor: a generation per committed batch ($gens_before_del)" $? "$(cat "$N")"
# each generation line follows its batch's objects: the table's is second
[[ $(sed -n 2p "$N") == "# new generation "* ]]
log_test "xnft monitor: NEWGEN after the batch's objects" $? "$(head -3 "$N")"

R="$TMPDIR/rules.out"
has_re "$R" "xnft -a monitor new rules: the rule with its handle" \
	"^add rule bridge t c ip saddr 10\.0\.0\.1 counter packets 0 bytes 0 accept # handle $handle\$"
! grep -qvE '^add rule ' "$R"
log_test "xnft monitor new rules: rules only, no generation" $? "$(cat "$R")"
D="$TMPDIR/destroy.out"
[[ $(cat "$D") == "delete rule bridge t c handle $handle"$'\n'"delete element bridge t s { 10.0.0.3 }" ]]
log_test "xnft monitor destroy: the two deletions only" $? "$(cat "$D")"

# echo_server PORT - in ns2, echo one TCP connection on PORT back to its
# sender (in the background, killed at cleanup).
echo_server() {
	ip netns exec ns2 python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1)
c, _ = s.accept()
while True:
    b = c.recv(65536)
    if not b: break
    c.sendall(b)
c.close()
' "$1" &
	BG="$BG $!"
}

# ---- ct: a TCP connection, offloaded, its flow torn down twice ----
echo_server 7000
cat > "$TMPDIR/client.py" <<'EOF'
import os, socket, sys, time
tmp = sys.argv[1]
for _ in range(100):
    try:
        s = socket.create_connection(("10.0.0.2", 7000), timeout=5)
        break
    except OSError:
        time.sleep(0.2)
s.settimeout(10)
for n in range(3):
    for _ in range(20):
        s.sendall(b"x" * 1000)
        got = b""
        while len(got) < 1000:
            got += s.recv(65536)
    open(os.path.join(tmp, "done.%d" % n), "w").close()
    while not os.path.exists(os.path.join(tmp, "go.%d" % n)):
        time.sleep(0.05)
s.close()
time.sleep(0.5)
print("ok")
EOF
ip netns exec ns1 python3 "$TMPDIR/client.py" "$TMPDIR" > "$TMPDIR/client.out" 2>&1 &
CLIENT=$!
wait_file() {
	local i
	for ((i = 0; i < 300; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.1
	done
	return 1
}
check "round 0 of the TCP echo" wait_file "$TMPDIR/done.0"
ctl=$(xb ct show)
[[ $ctl == *"dport=7000"*"[OFFLOAD]"* ]]
log_test "the connection is offloaded" $? "$ctl"
# A ruleset commit: the flow goes stale (the next segment or the GC).
check "a ruleset commit" xnft add table bridge other
touch "$TMPDIR/go.0"
check "round 1 after the commit" wait_file "$TMPDIR/done.1"
touch "$TMPDIR/go.1"
check "round 2" wait_file "$TMPDIR/done.2"
touch "$TMPDIR/go.2"
wait $CLIENT
log_test "the client saw every echo" $? "$(cat "$TMPDIR/client.out")"
check "the TIME_WAIT connection is there" settle "$TMPDIR/ct.out" "TIME_WAIT src=10\.0\.0\.1 .*dport=7000"
check "ct flush" xb ct flush
settle "$TMPDIR/ct.out" "DESTROY.*dport=7000" ||
	log_test "xbridge monitor ct printed the flush" 1 "$(cat "$TMPDIR/ct.out" "$TMPDIR/ct.err")"

C="$TMPDIR/ct.out"
P='src=10\.0\.0\.1 dst=10\.0\.0\.2 sport=[0-9]+ dport=7000'
has_re "$C" "monitor ct: [NEW] SYN_SENT, unreplied" \
	"^    \[NEW\] tcp      6 [0-9]+ SYN_SENT $P \[UNREPLIED\] src=10\.0\.0\.2 "
has_re "$C" "monitor ct: [UPDATE] SYN_RECV (the SYN-ACK)" "^ \[UPDATE\] tcp      6 [0-9]+ SYN_RECV $P src="
has_re "$C" "monitor ct: [UPDATE] ESTABLISHED [ASSURED]" \
	"^ \[UPDATE\] tcp      6 [0-9]+ ESTABLISHED $P .*\[ASSURED\] mark=0 use=1\$"
new=$(line_of "$C" "NEW.*SYN_SENT $P")
recv=$(line_of "$C" "UPDATE.*SYN_RECV $P")
est=$(line_of "$C" "UPDATE.*ESTABLISHED $P")
((new > 0 && new < recv && recv < est))
log_test "monitor ct: NEW, then SYN_RECV, then ESTABLISHED ($new, $recv, $est)" $? "$(cat "$C")"
has_re "$C" "monitor ct: the flow torn down by the ruleset commit" \
	"^ \[UPDATE\] tcp      6 [0-9]+ ESTABLISHED $P .*\[ASSURED\] mark=0 use=1 flow-teardown=ruleset\$"
has_re "$C" "monitor ct: the flow torn down by the FIN" "^ \[UPDATE\] tcp .*$P .* flow-teardown=fin-rst\$"
! grep -E "flow-teardown" "$C" | grep -q OFFLOAD
log_test "monitor ct: a torn-down flow's update has no [OFFLOAD]" $? "$(cat "$C")"
# (CLOSE_WAIT only when the server's ACK of the FIN comes before its own
# FIN: here they travel together, FIN_WAIT -> LAST_ACK, as conntrack sees it)
for st in FIN_WAIT LAST_ACK TIME_WAIT; do
	has_re "$C" "monitor ct: [UPDATE] $st" "^ \[UPDATE\] tcp      6 [0-9]+ $st $P "
done
has_re "$C" "monitor ct: [DESTROY] at the flush" "^\[DESTROY\] tcp      6 $P "
# Data segments of an established connection change nothing: far fewer
# events than segments (60 round trips).
nev=$(grep -cE "$P" "$C")
((nev < 20))
log_test "monitor ct: no event for segments that change nothing ($nev events)" $? "$(cat "$C")"

# Bridge deletion: a flow still offloaded is reported torn down (flush).
echo_server 7001
ip netns exec ns1 python3 -c '
import socket, sys, time
for _ in range(100):
    try:
        s = socket.create_connection(("10.0.0.2", 7001), timeout=5); break
    except OSError:
        time.sleep(0.2)
for _ in range(10):
    s.sendall(b"y" * 100); s.recv(100)
open(sys.argv[1], "w").close()
time.sleep(60)
' "$TMPDIR/held" &
BG="$BG $!"
check "a second connection, held open" wait_file "$TMPDIR/held"
ctl=$(xb ct show)
[[ $ctl == *"dport=7001"*"[OFFLOAD]"* ]]
log_test "the second connection is offloaded" $? "$ctl"
check "delete the bridge" ip link del xbr0
settle "$C" "dport=7001 .*flow-teardown=flush"
has_re "$C" "monitor ct: the bridge deleted under an offloaded flow" \
	"^ \[UPDATE\] tcp .*dport=7001 .* flow-teardown=flush\$"

for p in $NFTMON $RULESMON $DESTROYMON; do
	kill -TERM "$p"
	wait "$p"
	log_test "xnft monitor ($p) exits with 0 on SIGTERM" $? "$(cat "$TMPDIR/nft.err")"
done
# (xbridge monitor, as bridge monitor, ends by the signal itself)
kill -TERM "$CTMON"
wait "$CTMON"
((st = $?, st == 0 || st == 143))
log_test "xbridge monitor ct ends on SIGTERM ($st)" $? "$(cat "$TMPDIR/ct.err")"
BG=""
summary
