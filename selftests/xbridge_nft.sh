#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_nft.sh [MODULE.ko] - `xnft` against xbridge.ko's nft objects in
# the test kernel: rulesets applied as one batch and listed back as nft
# lists them (compared with real nft on the same ruleset where the Linux
# kernel accepts it), nf_tables' errors for bad batches with nothing
# changed, one ruleset per network namespace, and the seed's firewall
# (../shared/seeds/bridge-flowtable-thread.txt) typed verbatim.
# The tool: $XNFT, else build-test/, build/ or build-tool/ under the repo.
# The numbered sections are tests run in ALL_TESTS' order, each on the
# state the one before left (TESTS= picks some).
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)
MODULE=${1:-}

need_xnft

cleanup() {
	ip link del xbr0 2>/dev/null
	nft flush ruleset 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}
trap cleanup EXIT

# check NAME COMMAND... - PASS if COMMAND succeeds.

# check_fails NAME PATTERN COMMAND... - PASS if COMMAND fails with PATTERN on stderr.
check_fails() {
	local name=$1 pattern=$2 out status
	shift 2
	out=$("$@" 2>&1)
	status=$?
	[[ $status -ne 0 && $out == *$pattern* ]]
	log_test "$name" $? "status $status: $out"
}

# linux_twin_up MAC3 IP3 MAC4 IP4 - the Linux bridge br9 with hosts h3 and
# h4 (veth23, veth24): the twin of xbridge's h1 -> h2 for the sections
# that run one ruleset on both; linux_twin_down removes them.
linux_twin_up() {
	ip link add br9 type bridge
	ip link set br9 up
	host_add h3 br9 veth23 "$1" "$2"
	host_add h4 br9 veth24 "$3" "$4"
}

linux_twin_down() {
	ip link del br9
	ip netns del h3
	ip netns del h4
}

# twin_load NAME FILE - FILE on xbridge (xnft) and on the Linux bridge
# (nft), then the two listings compared before any traffic.
twin_load() {
	check "$1: the ruleset (xnft)" xnft -f "$2"
	check "$1: the ruleset (nft, the Linux bridge)" nft -f "$2"
	same "$1: listed as nft lists it, before traffic" "$(xnft list ruleset)" "$(nft list ruleset)"
}

# twin_pings - five pings h1 -> h2 over xbridge and h3 -> h4 over the
# Linux bridge, h1 and h2 without neighbours first (they talked before):
# sets xping and lping to ping's "N received".
twin_pings() {
	ip -n h1 neigh flush all
	ip -n h2 neigh flush all
	xping=$(ip netns exec h1 ping -c 5 -i 0.3 -W 1 10.0.0.8 2>&1 | grep -o '[0-9]* received')
	lping=$(ip netns exec h3 ping -c 5 -i 0.3 -W 1 10.0.0.8 2>&1 | grep -o '[0-9]* received')
}

# same NAME A B - PASS if the two texts are equal (a diff otherwise).
same() {		# (the guest has no /dev/fd: files, not <(...))
	local d
	printf '%s\n' "$2" > "$TMPDIR/a"
	printf '%s\n' "$3" > "$TMPDIR/b"
	d=$(diff "$TMPDIR/a" "$TMPDIR/b")
	log_test "$1" $? "$d"
}

nft_topology() {
	ip link add xbr0 type xbridge || { log_test "create xbr0" 1; summary; exit 1; }
	ip link set xbr0 up
	host_add h1 xbr0 veth21 02:00:00:00:21:01 10.0.0.7/24
	host_add h2 xbr0 veth22 02:00:00:00:21:02 10.0.0.8/24
}

# 1. An empty ruleset, then a table, listed back.
nft_empty() {
	check "list ruleset: empty" test -z "$(xnft list ruleset)"
	check "add table" xnft add table bridge t
	same "list ruleset shows the table" "$(xnft list ruleset)" "table bridge t {
}"
	check "delete table" xnft delete table bridge t
	check "list ruleset: empty again" test -z "$(xnft list ruleset)"
}

# 2. A ruleset through xnft and through nft (Linux's nf_tables, same
#    kernel): both list it the same way; nft's JSON of it loads back
#    through xnft -j -f.
nft_same_as_nft() {
	cat > "$TMPDIR/fw.nft" <<'EOF'
table bridge filter {
	set allowed {
		type ipv4_addr
		flags interval
		elements = { 10.0.0.0/24, 192.168.0.0/16 }
	}

	map marks {
		type inet_service : mark
		elements = { 22 : 0x00000001, 80 : 0x00000002 }
	}

	chain web {
		counter packets 0 bytes 0 accept
	}

	chain forward {
		type filter hook forward priority filter; policy drop;
		ct state established,related counter packets 0 bytes 0 accept
		ip saddr @allowed tcp dport { 22, 80, 443 } counter packets 0 bytes 0 accept comment "lan"
		tcp dport vmap { 23 : drop, 80 : jump web }
		meta mark set tcp dport map @marks
		vlan id 10 ether type ip accept
		meta iifname "veth21" meta oifname "veth22" accept
	}

	chain input {
		type filter hook input priority filter; policy accept;
		meta pkttype broadcast counter packets 0 bytes 0 accept
	}
}
EOF
	check "xnft -f ruleset" xnft -f "$TMPDIR/fw.nft"
	if nft -f "$TMPDIR/fw.nft" 2>"$TMPDIR/nft.err"; then
		same "xnft list ruleset = nft list ruleset" "$(xnft list ruleset)" "$(nft list ruleset)"
		# Handles: the tables' differ (nf_tables' table handle counter is not
		# this namespace's bridge tables alone, xbridge's is); the rest must be
		# equal.
		same "xnft -a list ruleset = nft -a list ruleset (handles)" \
			"$(xnft -a list ruleset | sed '1s/# handle [0-9]*/# handle T/')" \
			"$(nft -a list ruleset | sed '1s/# handle [0-9]*/# handle T/')"
		same "list chain = nft list chain" "$(xnft list chain bridge filter forward)" \
			"$(nft list chain bridge filter forward)"
		same "list set = nft list set" "$(xnft list set bridge filter allowed)" \
			"$(nft list set bridge filter allowed)"
		for what in tables chains sets maps flowtables; do
			same "list $what = nft list $what" "$(xnft list $what)" "$(nft list $what)"
		done
		same "-a list chains = nft -a list chains" "$(xnft -a list chains)" "$(nft -a list chains)"
		# JSON: the table's handle differs as above
		tablehandle='s/\("table": {"family": "bridge", "name": "filter", "handle": \)[0-9]*/\1T/'
		same "-j list ruleset = nft -j list ruleset" "$(xnft -j list ruleset | sed "$tablehandle")" \
			"$(nft -j list ruleset | sed "$tablehandle")"
		same "-j list chain = nft -j list chain" "$(xnft -j list chain bridge filter forward)" \
			"$(nft -j list chain bridge filter forward)"
		# JSON input: nft's JSON of the ruleset, loaded into an emptied
		# xbridge through xnft -j -f, lists as the text did.
		nft -j list ruleset > "$TMPDIR/fw.json"
		text=$(xnft list ruleset)
		check "flush before the JSON load" xnft flush ruleset
		check "xnft -j -f: nft's JSON of the ruleset" xnft -j -f "$TMPDIR/fw.json"
		same "loaded from JSON, listed as loaded from text" "$(xnft list ruleset)" "$text"
		nft flush ruleset
	else
		log_test "nft -f ruleset (Linux's nf_tables)" 1 "$(cat "$TMPDIR/nft.err")"
	fi
}

# 3. Later batches refer to what the kernel holds (xnft reads it first).
nft_existing() {
	check "add element to an existing set" xnft add element bridge filter allowed { 172.16.0.0/12 }
	check "the element is listed" grep -q "172.16.0.0/12" <<<"$(xnft list set bridge filter allowed)"
	check "insert rule into an existing chain" xnft insert rule bridge filter forward tcp dport 8080 accept
	check "the rule is first" \
		bash -c "'$XNFT' list chain bridge filter forward | sed -n 4p | grep -q 'tcp dport 8080 accept'"
}

# 4. Bad batches: nf_tables' error, nothing changed.
nft_bad_batches() {
	before=$(xnft -a list ruleset)
	# Linux 6.1 has no ELOOP: a loop a base chain reaches runs into
	# nft_chain_validate's depth (EMLINK); one no base chain reaches is taken
	printf 'add chain bridge filter a\nadd chain bridge filter b\nadd rule bridge filter a jump b\nadd rule bridge filter b jump a\nadd rule bridge filter forward jump a\n' > "$TMPDIR/loop.nft"
	check_fails "jump loop a base chain reaches: EMLINK" "Too many links" xnft -f "$TMPDIR/loop.nft"
	same "jump loop: ruleset unchanged" "$(xnft -a list ruleset)" "$before"
	check_fails "delete a chain in use: EBUSY" "Device or resource busy" \
		xnft delete chain bridge filter web
	check_fails "delete a set in use: EBUSY" "Device or resource busy" \
		xnft delete set bridge filter allowed
	printf 'add table bridge t2\nadd chain bridge t2 c { type filter hook forward priority 0; }\nadd rule bridge t2 c tcp dport 22 accept\ndelete chain bridge filter web\n' > "$TMPDIR/half.nft"
	check_fails "a batch with a failing message: EBUSY" "Device or resource busy" xnft -f "$TMPDIR/half.nft"
	same "the failed batch left nothing (no table t2)" "$(xnft -a list ruleset)" "$before"
	check_fails "unknown table: nft's message and caret" "No such file or directory" \
		xnft add chain bridge nosuch c
	check "flush ruleset" xnft flush ruleset
	check "empty after flush ruleset" test -z "$(xnft list ruleset)"
}

# 5. One ruleset per namespace.
nft_netns() {
	check "a table in the init namespace" xnft add table bridge mine
	check "not in another namespace" test -z "$(ip netns exec h1 "$XNFT" list ruleset)"
	check "a table in h1's namespace" ip netns exec h1 "$XNFT" add table bridge theirs
	same "h1 lists its own" "$(ip netns exec h1 "$XNFT" list ruleset)" "table bridge theirs {
}"
	same "the init namespace lists its own" "$(xnft list ruleset)" "table bridge mine {
}"
	xnft flush ruleset
}

# 5b. Refused batches reported as nft reports them: the same exit status
# and the same error lines, byte for byte, from nft on Linux's nf_tables
# and from xnft on xbridge, for each file of tools/xnft/tests/kernel-errors
# loaded on state.nft (every refusal of a batch, each at the attribute the
# kernel names: a name, a handle, one element); nothing changed after.
# Known differences: none now. A file listed in NFT_REFUSALS_PREFIX_ONLY
# must print the first of nft's lines; one in NFT_REFUSALS_REASON_ONLY the
# same status and reason.
NFT_REFUSALS_PREFIX_ONLY=""
NFT_REFUSALS_REASON_ONLY=""

# refusal_reason FILE - the first "Could not process rule: REASON" of FILE.
refusal_reason() {
	grep -o -m1 'Could not process rule: .*' "$1"
}
nft_refusals() {
	local dir=$SELFTESTS_DIR/../tools/xnft/tests/kernel-errors f name nrc xrc
	local nerr=$TMPDIR/refusal.nft.err xerr=$TMPDIR/refusal.xnft.err
	pushd "$dir" >/dev/null || return
	for f in *.nft; do
		[[ $f == state.nft ]] && continue
		name="refused batch ${f%.nft}"
		nft flush ruleset
		xnft flush ruleset
		if ! nft -f state.nft || ! xnft -f state.nft; then
			log_test "$name: the state loads" 1
			continue
		fi
		nft -f "$f" 2>"$nerr"
		nrc=$?
		xnft -f "$f" 2>"$xerr"
		xrc=$?
		if [[ " $NFT_REFUSALS_PREFIX_ONLY " == *" $f "* ]]; then
			head -c "$(stat -c %s "$xerr")" "$nerr" >"$nerr.head"
			[[ $nrc == "$xrc" && -s $xerr ]] && cmp -s "$xerr" "$nerr.head"
			log_test "$name: nft's first errors (known difference)" $? \
				"nft $nrc: $(cat "$nerr") / xnft $xrc: $(cat "$xerr")"
		elif [[ " $NFT_REFUSALS_REASON_ONLY " == *" $f "* ]]; then
			[[ $nrc == 1 && $xrc == 1 && -n $(refusal_reason "$nerr") &&
				$(refusal_reason "$nerr") == "$(refusal_reason "$xerr")" ]]
			log_test "$name: nft's reason (known difference: no place)" $? \
				"nft $nrc: $(cat "$nerr") / xnft $xrc: $(cat "$xerr")"
		else
			[[ $nrc == 1 && $xrc == 1 ]] && cmp -s "$nerr" "$xerr"
			log_test "$name: nft's errors, byte for byte" $? \
				"nft $nrc: $(cat "$nerr") / xnft $xrc: $(cat "$xerr")"
		fi
		same "$name: nothing changed" "$(xnft list ruleset)" "$(nft list ruleset)"
		# nft --check asks the kernel too: the same answer, nothing changed
		nft -c -f "$f" 2>"$nerr"
		nrc=$?
		xnft -c -f "$f" 2>"$xerr"
		xrc=$?
		if [[ " $NFT_REFUSALS_PREFIX_ONLY " == *" $f "* ]]; then
			head -c "$(stat -c %s "$xerr")" "$nerr" >"$nerr.head"
			[[ $nrc == "$xrc" && -s $xerr ]] && cmp -s "$xerr" "$nerr.head"
		elif [[ " $NFT_REFUSALS_REASON_ONLY " == *" $f "* ]]; then
			[[ $nrc == 1 && $xrc == 1 && -n $(refusal_reason "$nerr") &&
				$(refusal_reason "$nerr") == "$(refusal_reason "$xerr")" ]]
		else
			[[ $nrc == 1 && $xrc == 1 ]] && cmp -s "$nerr" "$xerr"
		fi
		log_test "$name: checked (-c) as nft checks it" $? \
			"nft $nrc: $(cat "$nerr") / xnft $xrc: $(cat "$xerr")"
		same "$name: nothing changed by the check" "$(xnft list ruleset)" "$(nft list ruleset)"
	done
	# a batch the kernel takes passes the check and changes nothing
	printf 'add chain bridge t e\nadd rule bridge t e meta mark 1 accept\n' >"$TMPDIR/fine.nft"
	check "a batch the kernel takes: checked (-c)" xnft -c -f "$TMPDIR/fine.nft"
	check "... nft checks it alike" nft -c -f "$TMPDIR/fine.nft"
	same "... nothing changed" "$(xnft list ruleset)" "$(nft list ruleset)"
	check "... and loads" xnft -f "$TMPDIR/fine.nft"
	popd >/dev/null
	nft flush ruleset
	xnft flush ruleset
}

# nft_events_normalised FILE - what `nft monitor` or `nft --echo` printed,
# set apart from what differs between the two kernels' runs: the process;
# an element's time left; the generation and the tables' handles, counted
# from the first (both count per boot, and the sections before differ:
# nf_tables replays a batch that loads a module, taking more table
# handles); and, as JSON, the body of a deleted rule (nft 1.0.6 drops its
# set lookups from its cache before it prints it: a known difference,
# Documentation/xnft.md).
nft_events_normalised() {
	python3 - "$1" <<'PY'
import json, re, sys
base = {}
def rel(kind, m):
    n = int(m.group(2))
    base.setdefault(kind, n)
    return m.group(1) + str(n - base[kind])
lines = []
for line in open(sys.argv[1]):
    # --echo -j prints one document: one of its objects a line here
    if line.startswith('{"nftables": ['):
        lines += [json.dumps(o) + '\n' for o in json.loads(line)['nftables']]
    else:
        lines.append(line)
for line in lines:
    line = re.sub(r'by process [0-9]+ \((nft|xnft)\)', 'by process PID (TOOL)', line)
    line = re.sub(r'"pid": [0-9]+, "name": "(nft|xnft)"', '"pid": PID, "name": "TOOL"', line)
    line = re.sub(r'expires [0-9hms]+', 'expires T', line)
    line = re.sub(r'"expires": [0-9]+', '"expires": T', line)
    line = re.sub(r'(# new generation )([0-9]+)', lambda m: rel('gen', m), line)
    line = re.sub(r'("id": )([0-9]+)(?=, "pid")', lambda m: rel('gen', m), line)
    if re.match(r'(add|create|delete) table ', line):
        line = re.sub(r'(# handle )([0-9]+)', lambda m: rel('table', m), line)
    if re.match(r'\{"(add|create|delete)": \{"table": ', line):
        line = re.sub(r'("handle": )([0-9]+)', lambda m: rel('table', m), line)
    sys.stdout.write(line)
PY
}

# nft_both_warm_up DIR - apply DIR's batches once with nft and xnft, then
# flush both: nf_tables loads the expressions' modules on first use and
# replays the batch, which uses up handles, and both tools then have made
# the same commits (the generations printed are compared).
nft_both_warm_up() {
	local f
	for f in "$1"/*.nft; do
		nft -f "$f" 2>/dev/null
		xnft -f "$f" 2>/dev/null
	done
	nft flush ruleset
	xnft flush ruleset
}

# 5b. The monitors: nft monitor on nf_tables and xnft monitor on xbridge
#     watch the batches of tools/xnft/tests/monitor applied to each; what
#     they print is equal byte for byte, plain, with handles and as JSON
#     (the process that made a generation named apart: nft or xnft).
nft_monitor() {
	local dir=$SELFTESTS_DIR/../tools/xnft/tests/monitor f mode pids=""
	nft_both_warm_up "$dir"
	for mode in plain a j; do
		local opt=""
		[[ $mode == a ]] && opt=-a
		[[ $mode == j ]] && opt=-j
		nft $opt monitor >"$TMPDIR/mon.nft.$mode" 2>&1 &
		pids+=" $!"
		xnft $opt monitor >"$TMPDIR/mon.xnft.$mode" 2>&1 &
		pids+=" $!"
	done
	sleep 1			# subscribed before the first batch
	for f in "$dir"/*.nft; do
		nft -f "$f" || log_test "monitor batch $(basename "$f") (nft)" 1
		xnft -f "$f" || log_test "monitor batch $(basename "$f") (xnft)" 1
	done
	sleep 1
	kill $pids 2>/dev/null
	wait $pids 2>/dev/null
	for mode in plain a j; do
		for f in nft xnft; do
			nft_events_normalised "$TMPDIR/mon.$f.$mode" >"$TMPDIR/mon.$f.$mode.n"
		done
		[[ -s $TMPDIR/mon.nft.$mode.n ]] &&
			cmp -s "$TMPDIR/mon.nft.$mode.n" "$TMPDIR/mon.xnft.$mode.n"
		log_test "monitor ($mode): xnft prints what nft prints" $? \
			"$(diff "$TMPDIR/mon.nft.$mode.n" "$TMPDIR/mon.xnft.$mode.n")"
	done
	nft flush ruleset
	xnft flush ruleset
}

# 5c. --echo: the batches of tools/xnft/tests/echo applied with nft -e on
#     nf_tables and xnft -e on xbridge, plain, with handles and as JSON;
#     what the two print (the objects each add, create, insert and replace
#     made, then the generation when the batch's first request asked) is
#     equal, set apart as the monitors' is.
nft_echo() {
	local dir=$SELFTESTS_DIR/../tools/xnft/tests/echo f mode tool
	nft_both_warm_up "$dir"
	for mode in plain a j; do
		local opt=""
		[[ $mode == a ]] && opt=-a
		[[ $mode == j ]] && opt=-j
		for tool in nft xnft; do
			: >"$TMPDIR/echo.$tool.$mode"
			for f in "$dir"/*.nft; do
				(cd "$dir" && $tool $opt -e -f "$(basename "$f")") \
					>>"$TMPDIR/echo.$tool.$mode" 2>&1 ||
					log_test "echo ($mode): $tool -e -f $(basename "$f")" 1 \
						"$(cat "$TMPDIR/echo.$tool.$mode")"
			done
			# a command line, and --check, which commits nothing
			# (a dormant table's JSON flags: see 07-objects.nft)
			if [[ $mode == j ]]; then
				$tool $opt -e add table bridge e
			else
				$tool $opt -e add table bridge e "{ flags dormant; }"
			fi >>"$TMPDIR/echo.$tool.$mode" 2>&1
			$tool $opt -e -c add chain bridge e c >>"$TMPDIR/echo.$tool.$mode" 2>&1
			$tool $opt -e delete table bridge e >>"$TMPDIR/echo.$tool.$mode" 2>&1
			nft_events_normalised "$TMPDIR/echo.$tool.$mode" >"$TMPDIR/echo.$tool.$mode.n"
		done
		[[ -s $TMPDIR/echo.nft.$mode.n ]] &&
			cmp -s "$TMPDIR/echo.nft.$mode.n" "$TMPDIR/echo.xnft.$mode.n"
		log_test "echo ($mode): xnft -e prints what nft -e prints" $? \
			"$(diff "$TMPDIR/echo.nft.$mode.n" "$TMPDIR/echo.xnft.$mode.n")"
	done
	nft flush ruleset
	xnft flush ruleset
}

# 6. The seed's firewall, typed verbatim (nft -> xnft).
nft_seed_listed() {
	out=$(PATH="$(dirname "$XNFT"):$PATH" bash -e "$SELFTESTS_DIR/seed_firewall.sh" 2>&1)
	log_test "the seed's nft commands, with xnft for nft" $? "$out"
	listed=$(xnft list ruleset)
	for want in "chain zones" "ct zone set iif map" "chain rule-200-ingress" \
		"ct zone 2 tcp dport 23 ct state new counter packets 0 bytes 0 accept" \
		"iif vmap { \"veth21\" : jump rule-200-egress, \"veth22\" : jump rule-200-ingress }" \
		"flowtable fb2" "flow add @fb2"; do
		[[ $listed == *"$want"* ]]
		log_test "seed listed: $want" $? "$listed"
	done
	check "flow offload outside forward is refused" \
		bash -c "! '$XNFT' add rule bridge firewall zones flow offload @fb2 2>/dev/null"
}

tcp_try() {		# tcp_try NS ADDR PORT - connect within 3 s?
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket()
s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[2])))
except OSError:
    sys.exit(1)
' "$2" "$3"
}
serve() {		# serve NS PORT - a TCP listener in the background
	ip netns exec "$1" python3 -c '
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(16)
end = time.time() + 900
s.settimeout(1)
while time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
    except OSError:
        pass
' "$2" &
	SERVERS+=" $!"
}
tcp_blocked() { ! tcp_try "$@"; }
wait_listen() {		# wait_listen NS PORT - until the listener accepts (python starts slowly under TCG)
	loopy_wait "sleep 0.5" 20000 tcp_try "$1" 127.0.0.1 "$2"
}

# 7. The seed's firewall filters (its policy chains are prerouting chains):
#    from veth21 (h1) new TCP to port 23 is dropped and other ports pass;
#    from veth22 (h2) only new TCP to 23 passes; return traffic of
#    established connections passes both ways. The ruleset uses ct, so it
#    turned the bridge's conntrack on; the connections are in zone 2.
nft_seed_filters() {
	SERVERS=""
	serve h2 22; serve h2 23; serve h1 23; serve h1 80
	for hp in "h2 22" "h2 23" "h1 23" "h1 80"; do
		check "listener $hp is up" wait_listen $hp
	done
	check "flush ruleset (seed, from section 6)" xnft flush ruleset
	check "no ruleset: h1 -> h2:23 connects" tcp_try h1 10.0.0.8 23
	check "no ruleset: h2 -> h1:80 connects" tcp_try h2 10.0.0.7 80
	out=$(PATH="$(dirname "$XNFT"):$PATH" bash -e "$SELFTESTS_DIR/seed_firewall.sh" 2>&1)
	log_test "the seed's firewall loaded" $? "$out"
	check "seed: ping h1 -> h2 passes" ip netns exec h1 ping -c 1 -W 2 10.0.0.8
	check "seed: new TCP h1 -> h2:23 (zone-2 side, veth21) is dropped" tcp_blocked h1 10.0.0.8 23
	check "seed: new TCP h1 -> h2:22 passes, and its replies (established)" tcp_try h1 10.0.0.8 22
	check "seed: new TCP h2 -> h1:80 (veth22) is dropped" tcp_blocked h2 10.0.0.7 80
	check "seed: new TCP h2 -> h1:23 passes, and its replies" tcp_try h2 10.0.0.7 23
	ctx=$(xb -j -d link show dev xbr0 2>&1)
	[[ $(jq '.[0].conntrack' <<<"$ctx") == 1 ]]
	log_test "the ruleset's ct rules turned the bridge's conntrack on" $? "$ctx"
	cts=$(xb ct show 2>&1)
	[[ $cts == *"dport=22"*"zone=2"* ]]
	log_test "the h1 -> h2:22 connection is tracked in zone 2" $? "$cts"
	listed=$(xnft list chain bridge firewall rule-200-egress)
	[[ $listed == *"tcp dport 23 ct state new counter packets "[1-9]* ]]
	log_test "the egress chain counted the dropped telnet SYNs" $? "$listed"
	check "flush ruleset (seed)" xnft flush ruleset
	check "after the flush, h1 -> h2:23 connects again" tcp_try h1 10.0.0.8 23
	kill $SERVERS 2>/dev/null
}

no_reply() { ! "$@" >/dev/null 2>&1; }

# 8. The later hooks on real traffic, each with the devices Linux's bridge
#    gives it: forward (in: the ingress port, out: the egress port), input
#    (frames up to xbr0, in: the ingress port), output (frames xbr0 sends,
#    out: the egress port) and postrouting (every copy that leaves; no
#    input device).
nft_hooks() {
	ip addr add 10.0.0.1/24 dev xbr0
	cat > "$TMPDIR/hooks.nft" <<'EOF'
table bridge t {
	chain forward {
		type filter hook forward priority filter; policy accept;
		iifname "veth21" oifname "veth22" icmp type echo-request counter drop
	}
	chain in {
		type filter hook input priority filter; policy accept;
		iifname "veth21" icmp type echo-request counter drop
	}
	chain out {
		type filter hook output priority filter; policy accept;
		oifname "veth22" icmp type echo-request counter drop
	}
	chain post {
		type filter hook postrouting priority filter; policy accept;
		iifname "veth21" counter drop
		oifname "veth22" icmp type echo-reply counter
	}
}
EOF
	check "a ruleset at forward, input, output and postrouting" xnft -f "$TMPDIR/hooks.nft"
	check "forward: h1 -> h2 echo request dropped" no_reply ip netns exec h1 ping -c 1 -W 1 10.0.0.8
	check "forward: h2 -> h1 passes (its reply too)" ip netns exec h2 ping -c 1 -W 2 10.0.0.7
	check "input: h1 -> xbr0 echo request dropped" no_reply ip netns exec h1 ping -c 1 -W 1 10.0.0.1
	check "input: h2 -> xbr0 passes" ip netns exec h2 ping -c 1 -W 2 10.0.0.1
	check "output: xbr0 -> h2 echo request dropped" no_reply ping -c 1 -W 1 10.0.0.8
	check "output: xbr0 -> h1 passes" ping -c 1 -W 2 10.0.0.7
	for c in forward in out; do
		listed=$(xnft list chain bridge t $c)
		[[ $listed == *"counter packets "[1-9]* ]]
		log_test "the $c chain counted its drops" $? "$listed"
	done
	listed=$(xnft list chain bridge t post)
	[[ $listed == *'iifname "veth21" counter packets 0 bytes 0 drop'* &&
	   $listed == *'echo-reply counter packets '[1-9]* ]]
	log_test "postrouting has no input device; it counted the echo replies to h2" $? "$listed"
	check "flush ruleset (hooks)" xnft flush ruleset
	check "after the flush, h1 -> h2 passes" ip netns exec h1 ping -c 1 -W 2 10.0.0.8
}

# 9. Conntrack for xbr0's own traffic. On Linux a bridge-family ct rule
#    also switches on the IP layer's conntrack, which tracks what the
#    bridge's IP stack sends before the bridge's output chains see it: its
#    pings are new at output, their replies established at input, and the
#    entry exists whatever the bridge's chains do.
nft_ct_host() {
	cat > "$TMPDIR/ct-host.nft" <<'EOF'
table bridge t {
	chain out {
		type filter hook output priority filter; policy accept;
		ether type ip ct state invalid counter drop
		ct state new icmp type echo-request counter
	}
	chain in {
		type filter hook input priority filter; policy drop;
		ct state established,related counter accept
		ether type arp accept
	}
}
EOF
	check "a ct ruleset at output and input" xnft -f "$TMPDIR/ct-host.nft"
	check "output/input: xbr0 -> h1 passes, replies established" ping -c 2 -W 2 10.0.0.7
	check "input: h1 -> xbr0 refused (new at input)" no_reply ip netns exec h1 ping -c 1 -W 1 10.0.0.1
	listed=$(xnft list chain bridge t out)
	[[ $listed == *"ether type ip ct state invalid counter packets 0 bytes 0 drop"* &&
	   $listed == *"ct state new icmp type echo-request counter packets "[1-9]* ]]
	log_test "output: xbr0's echo requests were tracked as new, none invalid" $? "$listed"
	listed=$(xnft list chain bridge t in)
	[[ $listed == *"ct state established,related counter packets "[1-9]* ]]
	log_test "input: their replies were established" $? "$listed"
	rows=$(xb ct show dev xbr0 2>&1)
	[[ $rows == *"icmp"*"src=10.0.0.1 dst=10.0.0.7"* ]]
	log_test "xbridge ct show lists xbr0's ping" $? "$rows"
	check "flush ruleset (ct-host)" xnft flush ruleset
}

# 10. Named counters (counter objects): listed as nft lists them, counted
#     by the rules that name them, reset, and busy while a rule names one.
nft_counters() {
	cat > "$TMPDIR/counters.nft" <<'EOF'
table bridge c {
	counter pings {
		comment "h1 to h2"
		packets 0 bytes 0
	}

	counter other {
		packets 5 bytes 500
	}

	chain forward {
		type filter hook forward priority filter; policy accept;
		iifname "veth21" icmp type echo-request counter name "pings"
		udp dport 9 counter name "other" drop
	}
}
EOF
	check "xnft -f: named counters" xnft -f "$TMPDIR/counters.nft"
	if nft -f "$TMPDIR/counters.nft" 2>"$TMPDIR/nft.err"; then
		same "counters: list ruleset = nft list ruleset" "$(xnft list ruleset)" "$(nft list ruleset)"
		same "counters: list counters = nft" "$(xnft list counters)" "$(nft list counters)"
		same "counters: -a list counter = nft" "$(xnft -a list counter bridge c pings)" \
			"$(nft -a list counter bridge c pings)"
		same "counters: -j list counters = nft" "$(xnft -j list counters)" "$(nft -j list counters)"
		same "counters: -s list counters table = nft" "$(xnft -s list counters table bridge c)" \
			"$(nft -s list counters table bridge c)"
		check_fails "counters: nft refuses to delete one in use: EBUSY" "Device or resource busy" \
			nft delete counter bridge c pings
		nft flush ruleset
	else
		log_test "nft -f counters (Linux's nf_tables)" 1 "$(cat "$TMPDIR/nft.err")"
	fi
	check "counters: h1 -> h2 three pings" ip netns exec h1 ping -c 3 -i 0.3 -W 2 10.0.0.8
	# three 84-byte IPv4 echo requests
	same "counters: list counter counted them" "$(xnft list counter bridge c pings)" "table bridge c {
	counter pings {
		comment \"h1 to h2\"
		packets 3 bytes 252
	}
}"
	same "counters: reset counter prints what it took" "$(xnft reset counter bridge c pings)" \
		"$(xnft list counter bridge c pings | sed 's/packets 0 bytes 0/packets 3 bytes 252/')"
	[[ $(xnft list counter bridge c pings) == *"packets 0 bytes 0"* ]]
	log_test "counters: zero after the reset" $? "$(xnft list counter bridge c pings)"
	same "counters: the other counter kept its values" \
		"$(xnft list counters | grep -A1 'counter other' | tail -1)" "		packets 5 bytes 500"
	before=$(xnft -a list ruleset)
	check_fails "counters: delete one in use: EBUSY" "Device or resource busy" \
		xnft delete counter bridge c pings
	printf 'add counter bridge c fresh\ndelete counter bridge c other\n' > "$TMPDIR/busy.nft"
	check_fails "counters: a batch deleting one in use fails whole" "Device or resource busy" \
		xnft -f "$TMPDIR/busy.nft"
	same "counters: nothing of it stayed" "$(xnft -a list ruleset)" "$before"
	check_fails "counters: a rule naming a missing counter" "No such file or directory" \
		xnft add rule bridge c forward counter name nope
	check "counters: flush the chain, then delete the counters" \
		bash -c "'$XNFT' flush chain bridge c forward && '$XNFT' delete counter bridge c pings && '$XNFT' delete counter bridge c other"
	check "counters: none left" test -z "$(xnft list counters)"
	check "flush ruleset (counters)" xnft flush ruleset
}

# 11. log: a forwarded frame logged by xbridge reads as the Linux bridge's
#     line for the same frame (nf_log_syslog through nf_log_packet, with
#     the hook's devices), field for field; a notrack rule loads.
nft_log() {
	local xline lline xkeys lkeys
	linux_twin_up 02:00:00:00:21:03 10.0.9.7/24 02:00:00:00:21:04 10.0.9.8/24
	printf '%s\n' 'table bridge t {' \
		'	chain forward {' \
		'		type filter hook forward priority filter; policy accept;' \
		'		icmp type echo-request log prefix "PFX: " flags ether' \
		'	}' \
		'	chain raw {' \
		'		type filter hook prerouting priority -300; policy accept;' \
		'		udp dport 9 notrack' \
		'	}' '}' > "$TMPDIR/log.nft"
	sed 's/PFX: /xblog: /' "$TMPDIR/log.nft" > "$TMPDIR/xlog.nft"
	sed 's/PFX: /brlog: /' "$TMPDIR/log.nft" > "$TMPDIR/llog.nft"
	check "log: a ruleset with log and notrack (xnft)" xnft -f "$TMPDIR/xlog.nft"
	check "log: the same ruleset (nft, the Linux bridge)" nft -f "$TMPDIR/llog.nft"
	same "log: listed as nft lists it" "$(xnft list ruleset)" "$(nft list ruleset | sed 's/brlog: /xblog: /')"
	check "log: an NFLOG group rule loads too" xnft add rule bridge t forward log group 3 snaplen 64
	ip netns exec h1 ping -c 1 -W 2 10.0.0.8 >/dev/null 2>&1
	ip netns exec h3 ping -c 1 -W 2 10.0.9.8 >/dev/null 2>&1
	xline=$(dmesg | grep -m1 'xblog: ')
	lline=$(dmesg | grep -m1 'brlog: ')
	[[ $xline == *"xblog: IN=veth21 OUT=veth22 MACSRC=02:00:00:00:21:01 MACDST=02:00:00:00:21:02 MACPROTO=0800 SRC=10.0.0.7 DST=10.0.0.8 "*"PROTO=ICMP TYPE=8 "* ]]
	log_test "log: xbridge's line names the devices, addresses and the echo request" $? "$xline"
	xkeys=$(grep -o '[A-Z]*=' <<<"$xline" | tr -d '\n')
	lkeys=$(grep -o '[A-Z]*=' <<<"$lline" | tr -d '\n')
	[[ -n $lkeys && $xkeys == "$lkeys" ]]
	log_test "log: the same fields as the Linux bridge's line" $? "xbridge: $xline
linux:   $lline"
	check "flush ruleset (log)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 12. reject, on xbridge (h1 -> h2) and on the Linux bridge (h3 -> h4)
#     with the same ruleset: the sender sees the same reply - a TCP reset
#     (connection refused), ICMP port unreachable for UDP (refused too), an
#     ICMP host unreachable for an echo request, from the address it sent
#     to - and both refuse a reject in a forward chain.
refused() {		# refused NS ADDR tcp|udp PORT - the peer refuses within 3 s?
	ip netns exec "$1" python3 -c '
import socket, sys
udp = sys.argv[2] == "udp"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
s.settimeout(3)
try:
    s.connect((sys.argv[1], int(sys.argv[3])))
    if udp:
        s.send(b"x")
        s.recv(16)
except ConnectionRefusedError:
    sys.exit(0)
except OSError:
    pass
sys.exit(1)
' "$2" "$3" "$4"
}
udp_sink() {		# udp_sink NS|- PORT - takes datagrams, answers none (-: this namespace)
	local run="ip netns exec $1"
	[[ $1 == - ]] && run=""
	$run python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.settimeout(1)
end = time.time() + 900
while time.time() < end:
    try:
        s.recv(64)
    except OSError:
        pass
' "$2" &
	SERVERS+=" $!"
}
nft_reject() {
	local out
	linux_twin_up 02:00:00:00:21:03 10.0.9.7/24 02:00:00:00:21:04 10.0.9.8/24
	SERVERS=""
	serve h2 23; serve h4 23; udp_sink h2 9; udp_sink h4 9
	check "reject: listener h2:23 is up" wait_listen h2 23
	check "reject: listener h4:23 is up" wait_listen h4 23
	check "reject: before the ruleset, UDP h1 -> h2:9 is not refused" no_reply refused h1 10.0.0.8 udp 9
	printf '%s\n' 'table bridge t {' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		tcp dport 23 reject with tcp reset' \
		'		udp dport 9 reject with icmpx type port-unreachable' \
		'		icmp type echo-request reject with icmp type host-unreachable' \
		'	}' \
		'	chain forward {' \
		'		type filter hook forward priority filter; policy accept;' \
		'	}' \
		'	chain input {' \
		'		type filter hook input priority filter; policy accept;' \
		'		udp dport 7 reject' \
		'	}' '}' > "$TMPDIR/reject.nft"
	check "reject: before the ruleset, h1 -> h2:23 connects" tcp_try h1 10.0.0.8 23
	check "reject: the ruleset (xnft)" xnft -f "$TMPDIR/reject.nft"
	check "reject: the ruleset (nft, the Linux bridge)" nft -f "$TMPDIR/reject.nft"
	same "reject: listed as nft lists it" "$(xnft list ruleset)" "$(nft list ruleset)"
	check "reject: xbridge: TCP to 23 refused (reset)" refused h1 10.0.0.8 tcp 23
	check "reject: Linux bridge: TCP to 23 refused (reset)" refused h3 10.0.9.8 tcp 23
	check "reject: xbridge: UDP to 9 refused (port unreachable)" refused h1 10.0.0.8 udp 9
	check "reject: Linux bridge: UDP to 9 refused (port unreachable)" refused h3 10.0.9.8 udp 9
	out=$(ip netns exec h1 ping -c 1 -W 2 10.0.0.8 2>&1)
	[[ $out == *"From 10.0.0.8 icmp_seq=1 Destination Host Unreachable"* ]]
	log_test "reject: xbridge: the echo request gets host unreachable from 10.0.0.8" $? "$out"
	out=$(ip netns exec h3 ping -c 1 -W 2 10.0.9.8 2>&1)
	[[ $out == *"From 10.0.9.8 icmp_seq=1 Destination Host Unreachable"* ]]
	log_test "reject: Linux bridge: the echo request gets host unreachable from 10.0.9.8" $? "$out"
	# input: a datagram to the bridge device's own address, where
	# something listens (the stack itself would refuse it otherwise)
	ip addr add 10.0.0.1/24 dev xbr0
	ip addr add 10.0.9.1/24 dev br9
	udp_sink - 7; udp_sink - 8
	loopy_wait "sleep 0.2" 20000 bash -c "ss -Hunl | grep -q ':7 ' && ss -Hunl | grep -q ':8 '"
	check "reject: xbridge: UDP to xbr0:8 (no rule) is taken" no_reply refused h1 10.0.0.1 udp 8
	check "reject: xbridge: at input, UDP to xbr0:7 is refused" refused h1 10.0.0.1 udp 7
	check "reject: Linux bridge: at input, UDP to br9:7 is refused" refused h3 10.0.9.1 udp 7
	ip addr del 10.0.0.1/24 dev xbr0
	check_fails "reject: xnft refuses reject in a forward chain" "Operation not supported" \
		xnft add rule bridge t forward reject
	check_fails "reject: nft refuses it too" "Operation not supported" \
		nft add rule bridge t forward reject
	same "reject: nothing changed on either" "$(xnft list ruleset)" "$(nft list ruleset)"
	check "flush ruleset (reject)" xnft flush ruleset
	check "reject: after the flush, h1 -> h2:23 connects again" tcp_try h1 10.0.0.8 23
	kill $SERVERS 2>/dev/null
	nft flush ruleset
	linux_twin_down
}

# 13. Stateful and computed expressions, on xbridge (h1 -> h2) and on the
#     Linux bridge (h3 -> h4, the same addresses on their own segment) with
#     the same ruleset and the same pings: numgen's counter, jhash's buckets
#     (the kernel's jhash), a quota statement dropping past its bound, a
#     named quota, today's meta day and hour. Both list the same counters
#     and quotas afterwards, and the same pings got through.
nft_stateful() {
	local xping lping
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	{
		echo 'table bridge s {'
		echo '	quota q { until 100 bytes }'
		echo '	chain pre {'
		echo '		type filter hook prerouting priority filter; policy accept;'
		echo '		ip protocol icmp numgen inc mod 2 vmap { 0 : jump n0, 1 : jump n1 }'
		echo '		ip protocol icmp jhash ip saddr . ip daddr mod 4 seed 0x1 vmap { 0 : jump j0, 1 : jump j1, 2 : jump j2, 3 : jump j3 }'
		echo '		icmp type echo-reply quota name "q" counter'
		echo '		icmp type echo-request quota over 200 bytes drop'
		echo '	}'
		for c in n0 n1 j0 j1 j2 j3; do echo "	chain $c { counter; }"; done
		echo '	chain days {'
		echo '		type filter hook forward priority filter; policy accept;'
		for d in Sunday Monday Tuesday Wednesday Thursday Friday Saturday; do
			echo "		ether type ip meta day \"$d\" counter"
		done
		echo '		ether type ip meta hour "00:00"-"23:59" counter'
		echo '	}'
		echo '}'
	} > "$TMPDIR/stateful.nft"
	twin_load stateful "$TMPDIR/stateful.nft"
	twin_pings
	[[ $xping == "2 received" && $lping == "2 received" ]]
	log_test "stateful: the quota let 2 of 5 pings through on both" $? "xbridge: $xping, linux: $lping"
	same "stateful: the same counters, quotas, buckets and days on both" \
		"$(xnft list ruleset)" "$(nft list ruleset)"
	check "flush ruleset (stateful)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 14. A set with timeouts and a named limit, on xbridge (h1 -> h2) and on
#     the Linux bridge (h3 -> h4) with the same ruleset: an address blocked
#     for 15 s is blocked, then expires and is gone from both listings (the
#     listings equal but for the time left); deleting the expired element
#     fails on both; the limit object passes the same pings on both.
nft_timeouts() {
	local strip='s/ expires [0-9dhms]*//g'
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	printf '%s\n' 'table bridge tt {' \
		'	set blocked {' \
		'		type ipv4_addr' \
		'		timeout 1h' \
		'	}' \
		'	limit lim {' \
		'		rate 1/minute burst 2 packets' \
		'	}' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		ip daddr @blocked counter drop' \
		'		icmp type echo-request limit name "lim" counter' \
		'	}' '}' > "$TMPDIR/timeouts.nft"
	check "timeouts: the ruleset (xnft)" xnft -f "$TMPDIR/timeouts.nft"
	check "timeouts: the ruleset (nft, the Linux bridge)" nft -f "$TMPDIR/timeouts.nft"
	# (15 s: the checks before it expires must fit under TCG with
	# another guest running, and on the debug kernel: they come right
	# after the adds, the listing after them. The wait counts from the
	# later of the two adds having returned: under TCG the nft add can
	# finish seconds after the xnft one, and its element lives that much
	# longer.)
	ip -n h1 neigh flush all
	ip -n h2 neigh flush all
	check "timeouts: block 10.0.0.8 for 15 s (xnft)" \
		xnft add element bridge tt blocked '{ 10.0.0.8 timeout 15s, 10.0.0.99 }'
	check "timeouts: the same (nft)" \
		nft add element bridge tt blocked '{ 10.0.0.8 timeout 15s, 10.0.0.99 }'
	local added=$SECONDS
	check "timeouts: xbridge: 10.0.0.8 is blocked" no_reply ip netns exec h1 ping -c 1 -W 1 10.0.0.8
	check "timeouts: Linux bridge: 10.0.0.8 is blocked" no_reply ip netns exec h3 ping -c 1 -W 1 10.0.0.8
	same "timeouts: listed as nft lists it (but the time left)" \
		"$(xnft list ruleset | sed "$strip")" "$(nft list ruleset | sed "$strip")"
	sleep $((added + 17 - SECONDS > 0 ? added + 17 - SECONDS : 0))
	check "timeouts: xbridge: after 15 s it passes" ip netns exec h1 ping -c 1 -W 2 10.0.0.8
	check "timeouts: Linux bridge: after 15 s it passes" ip netns exec h3 ping -c 1 -W 2 10.0.0.8
	ip netns exec h1 ping -c 3 -i 0.3 -W 1 10.0.0.8 >/dev/null 2>&1
	ip netns exec h3 ping -c 3 -i 0.3 -W 1 10.0.0.8 >/dev/null 2>&1
	same "timeouts: the expired element gone, the same counters and limit on both" \
		"$(xnft list ruleset | sed "$strip")" "$(nft list ruleset | sed "$strip")"
	check_fails "timeouts: xnft cannot delete the expired element" "No such file or directory" \
		xnft delete element bridge tt blocked '{ 10.0.0.8 }'
	check_fails "timeouts: nft cannot either" "No such file or directory" \
		nft delete element bridge tt blocked '{ 10.0.0.8 }'
	check "flush ruleset (timeouts)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 15. Set statements (nft_dynset) on xbridge (h1 -> h2) and on the Linux
#     bridge (h3 -> h4), same ruleset: frames add their addresses to a set
#     with timeouts and to a map, a per-source limit (nft's meter) lets the
#     burst of pings through and drops the rest, a counter goes with each
#     element, a reply deletes what its request added; the listings equal
#     (but for the time left) before and after, and deleting an element
#     frames added, then flushing the sets, works the same on both.
nft_dynset() {
	local strip='s/ expires [0-9dhms]*//g' xping lping
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	printf '%s\n' 'table bridge d {' \
		'	set seen {' \
		'		type ipv4_addr' \
		'		flags dynamic,timeout' \
		'		timeout 1h' \
		'	}' \
		'	set flood {' \
		'		type ipv4_addr' \
		'		size 1024' \
		'		flags dynamic' \
		'	}' \
		'	set pending {' \
		'		type ipv4_addr' \
		'		flags dynamic' \
		'	}' \
		'	set talkers {' \
		'		type ipv4_addr' \
		'		flags dynamic' \
		'	}' \
		'	map last {' \
		'		type ipv4_addr : mark' \
		'		flags dynamic' \
		'	}' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		ip protocol icmp add @seen { ip saddr }' \
		'		ip protocol icmp add @talkers { ip saddr counter }' \
		'		icmp type echo-request meter pingers size 128 { ip saddr counter }' \
		'		icmp type echo-request update @flood { ip saddr limit rate over 2/minute burst 3 packets } counter drop' \
		'		ip protocol icmp update @last { ip saddr : meta mark }' \
		'		icmp type echo-request add @pending { ip daddr counter }' \
		'		icmp type echo-reply ip saddr @pending counter' \
		'		icmp type echo-reply delete @pending { ip saddr }' \
		'	}' '}' > "$TMPDIR/dynset.nft"
	twin_load dynset "$TMPDIR/dynset.nft"
	twin_pings
	[[ $xping == "3 received" && $lping == "3 received" ]]
	log_test "dynset: the meter let the burst of 3 of 5 pings through on both" $? \
		"xbridge: $xping, linux: $lping"
	same "dynset: the same elements, expressions and counters on both (but the time left)" \
		"$(xnft list ruleset | sed "$strip")" "$(nft list ruleset | sed "$strip")"
	check "dynset: xnft deletes an element frames added" \
		xnft delete element bridge d seen '{ 10.0.0.8 }'
	check "dynset: nft the same" nft delete element bridge d seen '{ 10.0.0.8 }'
	check_fails "dynset: xnft: it is gone" "No such file or directory" \
		xnft delete element bridge d seen '{ 10.0.0.8 }'
	check_fails "dynset: nft: it is gone" "No such file or directory" \
		nft delete element bridge d seen '{ 10.0.0.8 }'
	check "dynset: xnft flushes a set frames filled" xnft flush set bridge d flood
	check "dynset: nft the same" nft flush set bridge d flood
	same "dynset: the same listing after the deletes" \
		"$(xnft list ruleset | sed "$strip")" "$(nft list ruleset | sed "$strip")"
	check_fails "dynset: xnft: a set in use by a set statement is busy" "Device or resource busy" \
		xnft delete set bridge d flood
	check_fails "dynset: nft: the same" "Device or resource busy" \
		nft delete set bridge d flood
	check "flush ruleset (dynset)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 16. Object maps on xbridge (h1 -> h2) and on the Linux bridge (h3 -> h4),
#     same ruleset: the counter, quota or limit an address maps to counts
#     its frames (a named map and an anonymous one), an object an element
#     names cannot be deleted, and the listings equal before and after.
nft_objmaps() {
	local xping lping
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	printf '%s\n' 'table bridge o {' \
		'	counter to7 {' \
		'	}' \
		'	counter to8 {' \
		'	}' \
		'	quota q8 {' \
		'		over 300 bytes' \
		'	}' \
		'	map counted {' \
		'		type ipv4_addr : counter' \
		'		elements = { 10.0.0.7 : "to7", 10.0.0.8 : "to8" }' \
		'	}' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		ip protocol icmp counter name ip daddr map @counted' \
		'		icmp type echo-request quota name ip daddr map { 10.0.0.8 : "q8" } drop' \
		'	}' '}' > "$TMPDIR/objmaps.nft"
	twin_load objmaps "$TMPDIR/objmaps.nft"
	# 84-byte echo requests: the quota is over at the fourth
	twin_pings
	[[ $xping == "3 received" && $lping == "3 received" ]]
	log_test "objmaps: the quota the address maps to let 3 of 5 pings through on both" $? \
		"xbridge: $xping, linux: $lping"
	same "objmaps: the same counters and quota on both" "$(xnft list ruleset)" "$(nft list ruleset)"
	check_fails "objmaps: xnft: a counter an element names is busy" "Device or resource busy" \
		xnft delete counter bridge o to7
	check_fails "objmaps: nft: the same" "Device or resource busy" \
		nft delete counter bridge o to7
	check "flush ruleset (objmaps)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 17. The skb fields a chain writes: `meta mark set` and `meta priority
#     set` reach the IP stack with the copy that goes up (an inet input
#     chain of real nft reads them) and the copies that leave (a tc u32
#     filter at veth22's egress matches the mark); `meta mark set 0`
#     clears a mark an earlier chain set, as nft_meta_set_eval writes
#     skb->mark whatever the value.
nft_skb_meta() {
	ip addr replace 10.0.0.1/24 dev xbr0
	printf '%s\n' 'table bridge m {' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		icmp type echo-request meta mark set 0x7 meta priority set 1:2' \
		'	}' \
		'	chain forward {' \
		'		type filter hook forward priority filter; policy accept;' \
		'		oifname "veth22" icmp type echo-request meta mark set 0x9' \
		'	}' \
		'	chain in {' \
		'		type filter hook input priority filter; policy accept;' \
		'		iifname "veth22" meta mark set 0 meta priority set none' \
		'	}' '}' > "$TMPDIR/meta.nft"
	printf '%s\n' 'table inet h {' \
		'	chain in {' \
		'		type filter hook input priority filter; policy accept;' \
		'		icmp type echo-request meta mark 0x7 meta priority 1:2 counter' \
		'		icmp type echo-request meta mark 0 meta priority none counter' \
		'	}' '}' > "$TMPDIR/inet.nft"
	check "skb meta: the bridge ruleset" xnft -f "$TMPDIR/meta.nft"
	check "skb meta: an inet input chain (real nft) that reads mark and priority" \
		nft -f "$TMPDIR/inet.nft"
	tc qdisc add dev veth22 clsact
	tc filter add dev veth22 egress protocol ip pref 1 u32 match mark 0x9 0xffffffff \
		action pass
	check "skb meta: h1 -> xbr0" ip netns exec h1 ping -c 2 -W 2 10.0.0.1
	local listed
	listed=$(nft list chain inet h in)
	[[ $listed == *'meta mark 0x00000007 meta priority 1:2 counter packets 2 '* &&
	   $listed == *'meta mark 0x00000000 meta priority none counter packets 0 '* ]]
	log_test "skb meta: mark and priority set at prerouting reach the IP stack" $? "$listed"
	check "skb meta: h2 -> xbr0" ip netns exec h2 ping -c 2 -W 2 10.0.0.1
	listed=$(nft list chain inet h in)
	[[ $listed == *'meta mark 0x00000007 meta priority 1:2 counter packets 2 '* &&
	   $listed == *'meta mark 0x00000000 meta priority none counter packets 2 '* ]]
	log_test "skb meta: meta mark set 0 and priority none at input clear them" $? "$listed"
	local before after
	before=$(tc -s filter show dev veth22 egress | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p')
	check "skb meta: h1 -> h2" ip netns exec h1 ping -c 2 -W 2 10.0.0.8
	listed=$(tc -s filter show dev veth22 egress)
	after=$(sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' <<< "$listed")
	(( after - before == 2 ))
	log_test "skb meta: the forwarded copies leave with the forward chain's mark" $? \
		"$before before the pings, $after after: $listed"
	tc qdisc del dev veth22 clsact
	nft delete table inet h
	check "flush ruleset (skb meta)" xnft flush ruleset
	# pkt_type: the IP stack drops what is not for this host (ip_rcv_core)
	printf '%s\n' 'table bridge p {' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		iifname "veth21" icmp type echo-request meta pkttype set other' \
		'	}' '}' > "$TMPDIR/pkttype.nft"
	check "skb meta: meta pkttype set other at prerouting" xnft -f "$TMPDIR/pkttype.nft"
	check "skb meta: h1 -> xbr0 now other-host, dropped by the IP stack" \
		no_reply ip netns exec h1 ping -c 1 -W 1 10.0.0.1
	check "skb meta: h2 -> xbr0 still passes" ip netns exec h2 ping -c 1 -W 2 10.0.0.1
	check "skb meta: h1 -> h2 forwarded as before" ip netns exec h1 ping -c 1 -W 2 10.0.0.8
	check "skb meta: a forward chain" \
		xnft add chain bridge p f '{ type filter hook forward priority 0; }'
	check_fails "skb meta: meta pkttype set in a forward chain is refused" \
		"Operation not supported" xnft add rule bridge p f meta pkttype set host
	check "flush ruleset (pkttype)" xnft flush ruleset
}

# 18. Set statements under a ping flood on xbridge (last: it unloads the
#     module): each request adds an element that expires in 5 s, its reply
#     deletes it and adds its own, a full set (size 1000) breaks the
#     statement until its elements expire and are collected; the set
#     stays within its size, flushing the ruleset under traffic and (given
#     the module path) rmmod under traffic are clean, elements still
#     waiting for their grace period included.
nft_dynset_churn() {
	printf '%s\n' 'table bridge c {' \
		'	set recent {' \
		'		typeof ip saddr . icmp sequence' \
		'		size 1000' \
		'		flags dynamic,timeout' \
		'		timeout 5s' \
		'	}' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		icmp type echo-request update @recent { ip saddr . icmp sequence limit rate 100/second } counter' \
		'		icmp type echo-reply delete @recent { ip daddr . icmp sequence }' \
		'		icmp type echo-reply add @recent { ip saddr . icmp sequence }' \
		'	}' '}' > "$TMPDIR/churn.nft"
	check "churn: the ruleset" xnft -f "$TMPDIR/churn.nft"
	ip netns exec h1 ping -f -q -w 2 10.0.0.8 >/dev/null 2>&1
	local n
	n=$(xnft list set bridge c recent | grep -o '10\.0\.0\.[78] \. [0-9]*' | wc -l)
	(( n > 0 && n <= 1000 ))
	log_test "churn: the set holds what frames added, within its size ($n elements)" $?
	sleep 5.5
	n=$(xnft list set bridge c recent | grep -o '10\.0\.0\.[78] \. [0-9]*' | wc -l)
	(( n == 0 ))
	log_test "churn: 5 s later every element has expired ($n listed)" $?
	ip netns exec h1 ping -f -q 10.0.0.8 >/dev/null 2>&1 &
	local ping=$!
	sleep 1
	check "churn: flush ruleset under traffic" xnft flush ruleset
	check "churn: the ruleset again under traffic" xnft -f "$TMPDIR/churn.nft"
	sleep 1
	if [[ -n "$MODULE" ]]; then
		rmmod xbridge
		log_test "churn: rmmod xbridge with set statements under traffic" $?
		kill $ping 2>/dev/null
		wait $ping 2>/dev/null
		insmod "$MODULE"
	else
		kill $ping 2>/dev/null
		wait $ping 2>/dev/null
	fi
}

# 19. Payload statements on real traffic: h2's own stack checks what the
#     bridge's rewrites leave (the IP header checksum, on the local sockets'
#     CHECKSUM_PARTIAL TCP segments too): a prerouting chain sets the TTL of
#     h1's packets, h2's copy of a forward chain their DSCP, and an ip-family
#     chain in h2 counts what arrives with both.
nft_payload_write() {
	SERVERS=""
	serve h2 22
	check "payload: listener h2:22 is up" wait_listen h2 22
	check "payload: flush ruleset" xnft flush ruleset
	printf '%s\n' 'table bridge pw {' \
		'	chain pre {' \
		'		type filter hook prerouting priority filter; policy accept;' \
		'		iifname "veth21" ip ttl set 33 counter' \
		'	}' \
		'	chain forward {' \
		'		type filter hook forward priority filter; policy accept;' \
		'		oifname "veth22" ip dscp set af41 counter' \
		'	}' '}' > "$TMPDIR/pw.nft"
	check "payload: the ruleset" xnft -f "$TMPDIR/pw.nft"
	check "payload: h2 counts what arrives rewritten (ip-family nft in h2)" \
		ip netns exec h2 nft add table ip seen
	ip netns exec h2 nft add chain ip seen in '{ type filter hook input priority 0 ; }'
	ip netns exec h2 nft add rule ip seen in ip dscp af41 ip ttl 33 counter
	check "payload: h1 -> h2 ping, rewritten both ways of the bridge" \
		ip netns exec h1 ping -c 3 -i 0.3 -W 2 10.0.0.8
	check "payload: h1 -> h2:22 TCP connects (segments from a local socket)" \
		tcp_try h1 10.0.0.8 22
	local seen
	seen=$(ip netns exec h2 nft list chain ip seen in)
	[[ $seen =~ counter\ packets\ ([0-9]+) ]] && (( BASH_REMATCH[1] >= 5 ))
	log_test "payload: h2's stack took them with DSCP af41 and TTL 33" $? "$seen"
	ip netns exec h2 nft delete table ip seen
	check "payload: flush ruleset" xnft flush ruleset
	kill $SERVERS 2>/dev/null
}

# 13. TCP option statements in the forward chain: MSS clamping (`tcp option
#     maxseg size set 1000`) and `reset tcp option sack-perm` rewrite the
#     handshake both ways. Checksums are computed in software (tx offload
#     off in h1 and h2), so the stacks at both ends check TCP's checksum:
#     they take the rewritten SYN and SYN-ACK, and see MSS 1000 and no
#     SACK-permitted. A clamp above the MSS leaves it (it is only lowered).
nft_tcp_options() {
	SERVERS=""
	serve h2 24
	check "tcp options: listener h2:24 is up" wait_listen h2 24
	check "tcp options: flush ruleset" xnft flush ruleset
	local ns seen mss
	for ns in h1 h2; do
		ip netns exec $ns ethtool -K eth0 tx off >/dev/null
		ip netns exec $ns nft add table ip seen
		ip netns exec $ns nft add chain ip seen in '{ type filter hook input priority 0 ; }'
		ip netns exec $ns nft add rule ip seen in tcp flags syn \
			tcp option maxseg size 1000 tcp option sack-perm missing counter
		ip netns exec $ns nft add rule ip seen in tcp flags syn \
			tcp option maxseg size 1460 counter
	done
	for mss in 1000 9000; do
		printf '%s\n' 'table bridge to {' \
			'	chain forward {' \
			'		type filter hook forward priority filter; policy accept;' \
			"		tcp flags syn tcp option maxseg size set $mss counter" \
			'		tcp flags syn reset tcp option sack-perm' \
			'	}' '}' > "$TMPDIR/to.nft"
		xnft delete table bridge to 2>/dev/null
		check "tcp options: the ruleset (set $mss)" xnft -f "$TMPDIR/to.nft"
		check "tcp options: h1 -> h2:24 connects (set $mss)" tcp_try h1 10.0.0.8 24
	done
	for ns in h2 h1; do
		seen=$(ip netns exec $ns nft list chain ip seen in)
		[[ $seen =~ size\ 1000\ .*counter\ packets\ 1\  &&
			$seen =~ size\ 1460\ counter\ packets\ 1\  ]]
		log_test "tcp options: $ns took one handshake segment clamped to 1000, one left at 1460" \
			$? "$seen"
		ip netns exec $ns nft delete table ip seen
		ip netns exec $ns ethtool -K eth0 tx on >/dev/null
	done
	check "tcp options: flush ruleset" xnft flush ruleset
	kill $SERVERS 2>/dev/null
}

# 14. The meta keys of a frame's socket and route: what xbr0's own stack
#     sends carries its socket (meta skuid, skgid, cgroup) and its route
#     (meta rtclassid: realm 0, "cosmos", without realms) into the output
#     chain; a forwarded frame has neither, and such a rule breaks whatever
#     it compares.
nft_sock_meta() {
	ip addr add 10.0.0.1/24 dev xbr0 2>/dev/null
	cat > "$TMPDIR/sock.nft" <<'EOF'
table bridge sm {
	chain out {
		type filter hook output priority filter; policy accept;
		oifname "veth22" udp dport 4000 meta skuid 0 meta skgid 0 counter
		oifname "veth22" udp dport 4000 meta skuid 1234 meta skgid 1235 counter
		oifname "veth22" udp dport 4000 meta cgroup 0 meta rtclassid cosmos counter
	}
	chain forward {
		type filter hook forward priority filter; policy accept;
		udp dport 4000 meta skuid 0 counter
		udp dport 4000 meta skuid != 0 counter
		udp dport 4000 counter
	}
}
EOF
	check "sock meta: flush ruleset" xnft flush ruleset
	check "sock meta: the ruleset" xnft -f "$TMPDIR/sock.nft"
	local send='import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(int(sys.argv[1])):
    s.sendto(b"x", ("10.0.0.8", 4000))'
	check "sock meta: xbr0's stack sends 3 datagrams as root" python3 -c "$send" 3
	check "sock meta: ... and 2 as uid 1234, gid 1235" \
		setpriv --reuid=1234 --regid=1235 --clear-groups /usr/bin/python3 -c "$send" 2
	check "sock meta: h1 sends 1 through the bridge" ip netns exec h1 python3 -c "$send" 1
	sleep 1
	local out fwd
	out=$(xnft list chain bridge sm out)
	fwd=$(xnft list chain bridge sm forward)
	[[ $out == *"meta skuid 0 meta skgid 0 counter packets 3 "* &&
	   $out == *"meta skuid 1234 meta skgid 1235 counter packets 2 "* &&
	   $out == *'meta rtclassid "cosmos" counter packets 5 '* ]]
	log_test "sock meta: output counted root's 3, uid 1234's 2, all 5 by cgroup and realm" $? "$out"
	[[ $fwd == *"meta skuid 0 counter packets 0 "* &&
	   $fwd == *"meta skuid != 0 counter packets 0 "* &&
	   $fwd == *"udp dport 4000 counter packets 1 "* ]]
	log_test "sock meta: the forwarded datagram has no socket: both skuid rules break" $? "$fwd"
	check "sock meta: flush ruleset" xnft flush ruleset
}

# 15. rename chain: the same batches through nft on nf_tables and xnft on
#     xbridge - a chain that a jump, a goto and a verdict map name, renamed;
#     a rule added by the old name in the renaming batch; two renames of
#     one chain in a batch - with --echo (nothing is echoed), then the
#     listings (plain, -a, -j) equal, and frames still reach the renamed
#     chain (its counter counts as the Linux bridge's does).
nft_rename() {
	local f=$TMPDIR/rename.nft b n=0 nout xout nrc xrc
	local tsed='1s/# handle [0-9]+$/# handle T/'
	local jsed='s/("table": \{"family": "bridge", "name": "t", "handle": )[0-9]+/\1T/'
	xnft flush ruleset
	nft flush ruleset
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	cat > "$f" <<'EOF'
table bridge t {
	chain b {
		counter
	}
	chain a {
		type filter hook forward priority filter; policy accept;
		ip protocol icmp jump b
		meta l4proto vmap { tcp : goto b, udp : jump b }
	}
	chain c {
	}
}
EOF
	twin_load "rename" "$f"
	for b in 'rename chain bridge t b renamed' \
		 'rename chain bridge t c x
add rule bridge t c counter' \
		 'rename chain bridge t x y
rename chain bridge t x z' \
		 'rename chain bridge t renamed b
add chain bridge t renamed'; do
		n=$((n + 1))
		printf '%s\n' "$b" > "$TMPDIR/rename$n.nft"
		nout=$(nft -e -f "$TMPDIR/rename$n.nft" 2>&1)
		nrc=$?
		xout=$(xnft -e -f "$TMPDIR/rename$n.nft" 2>&1)
		xrc=$?
		[[ $nrc == 0 && $xrc == 0 && $nout == "$xout" ]]
		log_test "rename batch $n: taken, echoed as nft echoes it" $? \
			"nft $nrc: $nout / xnft $xrc: $xout"
		same "rename batch $n: listed as nft lists it" "$(xnft list ruleset)" "$(nft list ruleset)"
		# (the table's handle apart: each kernel counts its own per boot)
		same "rename batch $n: -a as nft" "$(xnft -a list ruleset | sed -E "$tsed")" \
			"$(nft -a list ruleset | sed -E "$tsed")"
		same "rename batch $n: -j as nft" "$(xnft -j list ruleset | sed -E "$jsed")" \
			"$(nft -j list ruleset | sed -E "$jsed")"
	done
	twin_pings
	[[ $xping == "5 received" && $lping == "5 received" ]]
	log_test "rename: pings through both bridges" $? "xbridge: $xping, Linux: $lping"
	same "rename: the renamed chain counted as nft's" "$(xnft list chain bridge t b)" \
		"$(nft list chain bridge t b)"
	xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 16. IPv4 options (`ip option rr exists`, `ip option lsrr addr ...`), the
#     same ruleset on xbridge (h1 -> h2) and on the Linux bridge (h3 -> h4):
#     raw frames with record routes, source routes, router alerts, NOP and
#     END padding, malformed options (bad lengths and pointers, an option
#     past the header, options cut short by the frame), a later fragment
#     and a VLAN-tagged frame, each sent a different number of times; both
#     bridges count them alike, and drop the same ones.
nft_ip_options() {
	linux_twin_up 02:00:00:00:21:01 10.0.0.7/24 02:00:00:00:21:02 10.0.0.8/24
	cat > "$TMPDIR/ipo.nft" <<'EOF'
table bridge ipo {
	chain forward {
		type filter hook forward priority filter; policy accept;
		ip daddr 10.9.9.9 ip option rr exists counter
		ip daddr 10.9.9.9 ip option rr missing counter
		ip daddr 10.9.9.9 ip option rr ptr 8 counter
		ip daddr 10.9.9.9 ip option rr addr 3221225985 counter
		ip daddr 10.9.9.9 ip option rr length 7 counter
		ip daddr 10.9.9.9 ip option lsrr exists counter
		ip daddr 10.9.9.9 ip option ssrr exists counter
		ip daddr 10.9.9.9 ip option lsrr addr 3325256711 counter
		ip daddr 10.9.9.9 ip option ssrr length 11 counter
		ip daddr 10.9.9.9 ip option ra exists counter
		ip daddr 10.9.9.9 ip option ra value 0 counter
		ip daddr 10.9.9.9 ip option ra missing counter
		ip option rr exists counter
		vlan id 5 ip option rr exists counter
		vlan id 5 ip option rr ptr 8 counter
		ip daddr 10.9.9.9 ip option ssrr exists drop
		ip daddr 10.9.9.9 counter
		vlan id 5 counter
	}
}
EOF
	cat > "$TMPDIR/ipo_send.py" <<'EOF'
import socket, struct, sys
RR, LSRR, SSRR, RA, TS, CIPSO = 7, 0x83, 0x89, 0x94, 0x44, 0x86
rr7 = [RR, 7, 4, 0, 0, 0, 0]
def pad(o):
    return o + [0] * (-len(o) % 4)
# (options, fragment field, VLAN id, IHL over the options' own)
frames = [
    ([], 0, 0, 0),
    ([RR, 11, 8, 192, 0, 2, 1, 0, 0, 0, 0, 0], 0, 0, 0),
    ([RR, 7, 8, 192, 0, 2, 1, 0], 0, 0, 0),                # full
    ([RR, 7, 3, 0, 0, 0, 0, 0], 0, 0, 0),                  # pointer < 4
    ([RR, 9, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0, 0, 0),      # no room at it
    ([LSRR, 7, 4, 198, 51, 100, 7, 0], 0, 0, 0),
    ([SSRR, 11, 4, 1, 2, 3, 4, 5, 6, 7, 8, 1], 0, 0, 0),
    ([LSRR, 7, 8, 1, 1, 1, 1, 0], 0, 0, 0),                # pointer not 4
    (pad([LSRR, 7, 4, 1, 1, 1, 1, SSRR, 7, 4, 2, 2, 2, 2]), 0, 0, 0),  # two
    ([RA, 4, 0, 0], 0, 0, 0),
    (pad([RA, 4, 0, 1] + rr7), 0, 0, 0),
    (pad([1, 1] + rr7), 0, 0, 0),
    (pad([0] + rr7), 0, 0, 0),                              # after an END
    (rr7 + [0, TS, 1, 255, 255], 0, 0, 0),                  # garbage after END
    (rr7 + [1, TS, 1, 255, 255], 0, 0, 0),                  # ... without it
    (pad([TS, 4, 5, 0xf0] + rr7), 0, 0, 0),                 # overflow 15
    (pad([TS, 8, 5, 0, 0, 0, 0, 0] + rr7), 0, 0, 0),
    (pad([TS, 8, 5, 2, 0, 0, 0, 0] + rr7), 0, 0, 0),        # unknown flag
    (pad([CIPSO, 8, 0, 0, 0, 1, 0, 0] + rr7), 0, 0, 0),
    (pad([0x9e, 4, 0, 0] + rr7), 0, 0, 0),                  # unknown type
    (pad([0x82, 4, 0, 0] + rr7), 0, 0, 0),                  # SEC
    (pad(rr7 + rr7), 0, 0, 0),                              # two
    ([RA, 3, 0, 0], 0, 0, 0),                               # RA of 3 bytes
    ([1, RR, 7, 4], 0, 0, 0),                               # past the header
    ([RR, 11, 8, 192, 0, 2, 1, 0, 0, 0, 0, 0], 0x2000 | 100, 0, 0),  # fragment
    ([RR, 11, 8, 192, 0, 2, 1, 0, 0, 0, 0, 0], 0, 5, 0),   # VLAN 5
    ([RR, 7, 4, 0, 0, 0, 0, 0], 0, 5, 0),
    ([RR, 7, 4, 0, 0, 0, 0, 0], 0, 0, 3),                   # cut short
]
iface, dst, src = sys.argv[1:4]
mac = lambda t: bytes(int(b, 16) for b in t.split(":"))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
for n, (opts, frag, vid, more) in enumerate(frames, 1):
    ihl = 5 + len(opts) // 4 + more
    udp = struct.pack("!HHHH", 1234, 5678, 16, 0) + b"ipopt-st"
    total = 20 + len(opts) + len(udp)
    iph = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total, n, frag, 64, 17, 0,
                      bytes([10, 9, 9, 1]), bytes([10, 9, 9, 9])) + bytes(opts)
    eth = mac(dst) + mac(src)
    if vid:
        eth += struct.pack("!HH", 0x8100, vid)
    frame = eth + b"\x08\x00" + iph + (udp if not more else b"")
    for _ in range(n):
        s.send(frame)
EOF
	check "ip options: flush ruleset" xnft flush ruleset
	nft flush ruleset
	# Linux's bridge reassembles fragments only while a ct expression is
	# loaded (nf_conntrack_bridge's hooks), and so does xbridge: the
	# connection table a ct rule made outlives the rule (it ages), but
	# reassembles nothing once the rule is gone. Made here on purpose, so
	# that the later fragment (frame 25) must cross both bridges as it came.
	check "ip options: a ct rule makes xbridge's connection table" \
		xnft add table bridge ctmade '{ chain c { type filter hook forward priority 0; ct state new counter; }; }'
	check "ip options: ... which outlives the rule" xnft delete table bridge ctmade
	twin_load "ip options" "$TMPDIR/ipo.nft"
	check "ip options: h1 sends the frames through xbridge" ip netns exec h1 \
		python3 "$TMPDIR/ipo_send.py" eth0 02:00:00:00:21:02 02:00:00:00:21:01
	check "ip options: h3 sends them through the Linux bridge" ip netns exec h3 \
		python3 "$TMPDIR/ipo_send.py" eth0 02:00:00:00:21:02 02:00:00:00:21:01
	sleep 1
	local xl ll
	xl=$(xnft list ruleset)
	ll=$(nft list ruleset)
	same "ip options: the same counters on both bridges" "$xl" "$ll"
	# and xbridge's are the ones Linux's source gives (frame n sent n
	# times; `ip daddr` depends on meta protocol, which the VLAN-tagged
	# frames 26 and 27 have, a lone `ip option` on the ether type, which
	# they do not)
	[[ $xl == *"ip daddr 10.9.9.9 ip option rr exists counter packets 196 "* &&
	   $xl == *"ip daddr 10.9.9.9 ip option rr missing counter packets 210 "* &&
	   $xl == *"ip daddr 10.9.9.9 ip option rr ptr 8 counter packets 56 "* &&
	   $xl == *"ip daddr 10.9.9.9 ip option rr length 7 counter packets 143 "* &&
	   $xl == *"ip option lsrr exists counter packets 6 "* &&
	   $xl == *"ip option ssrr exists counter packets 7 "* &&
	   $xl == *"ip option ra exists counter packets 10 "* &&
	   $xl == *"ip option ra missing counter packets 396 "* &&
	   $xl == *"	ip option rr exists counter packets 143 "* &&
	   $xl == *"vlan id 5 ip option rr exists counter packets 53 "* &&
	   $xl == *"vlan id 5 ip option rr ptr 8 counter packets 26 "* &&
	   $xl == *"ip daddr 10.9.9.9 counter packets 399 "* ]]
	log_test "ip options: xbridge counted what nf_tables' code gives" $? "$xl"
	check "ip options: flush ruleset" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

# 17. SCTP chunks on xbridge (h1 -> h2) and on the Linux bridge (h3 -> h4),
#     same ruleset: `sctp chunk NAME exists|missing` and chunk fields over
#     crafted frames (several chunks, padding, a zero-length chunk, a chunk
#     cut short, one running past the frame, IPv6, UDP with the same bytes,
#     a later fragment, bytes after the IP packet in the Ethernet frame),
#     sent once from h1 and once from h3 to an address no host owns; the
#     counters of every rule equal on both.
nft_sctp_chunks() {
	linux_twin_up 02:00:00:00:21:03 10.0.0.7/24 02:00:00:00:21:04 10.0.0.8/24
	printf '%s\n' 'table bridge sc {' \
		'	chain forward {' \
		'		type filter hook forward priority filter; policy accept;' \
		'		ether daddr != 02:00:00:00:99:99 accept' \
		'		counter' \
		'		sctp chunk data exists counter' \
		'		sctp chunk data missing counter' \
		'		sctp chunk init exists counter' \
		'		sctp chunk init missing counter' \
		'		sctp chunk data tsn 5 counter' \
		'		sctp chunk data ppid 46 counter' \
		'		sctp chunk data stream 7 sctp chunk data ssn 9 counter' \
		'		sctp chunk data length 19 counter' \
		'		sctp chunk data flags & 0x3 == 0x3 counter' \
		'		sctp chunk data type 0 counter' \
		'		sctp chunk data tsn . sctp chunk data stream { 5 . 7 } counter' \
		'		sctp chunk init init-tag 0xdeadbeef counter' \
		'		sctp chunk init num-outbound-streams 10 sctp chunk init num-inbound-streams 11 counter' \
		'		sctp chunk init initial-tsn 100 counter' \
		'		sctp chunk sack cum-tsn-ack { 5, 6 } counter' \
		'		sctp chunk sack a-rwnd 1000-2000 counter' \
		'		sctp chunk heartbeat exists counter' \
		'		sctp chunk asconf exists counter' \
		'		sctp chunk asconf seqno 3 counter' \
		'		sctp chunk forward-tsn new-cum-tsn 9 counter' \
		'		sctp chunk shutdown-complete missing counter' \
		'		meta l4proto sctp sctp chunk cookie-echo missing counter' \
		'	}' '}' > "$TMPDIR/sctp.nft"
	twin_load "sctp chunks" "$TMPDIR/sctp.nft"
	# the frames: IPv4 (IPv6 where said) from 10.0.0.7 to 10.0.0.99,
	# SCTP 5000 -> 6000 (CRC left zero: no bridge checks it)
	local send='import socket, struct, sys
def ck(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return struct.pack("!H", ~s & 0xffff)
def chunk(t, body, flags=0, length=None):
    c = struct.pack("!BBH", t, flags, 4 + len(body) if length is None else length) + body
    return c + bytes(-len(c) % 4)
def data(tsn=5, stream=7, ssn=9, ppid=46, **kw):
    return chunk(0, struct.pack("!IHHI", tsn, stream, ssn, ppid) + b"abc", 3, **kw)
def init():
    return chunk(1, struct.pack("!IIHHI", 0xdeadbeef, 65536, 10, 11, 100))
def sctp(*chunks):
    return struct.pack("!HHII", 5000, 6000, 1, 0) + b"".join(chunks)
def v4(l4, proto=132, frag=0):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 1, frag, 64, proto, 0,
                    socket.inet_aton("10.0.0.7"), socket.inet_aton("10.0.0.99"))
    return b"\x08\x00" + h[:10] + ck(h) + h[12:] + l4
def v6(l4):
    return (b"\x86\xdd" + struct.pack("!IHBB", 6 << 28, len(l4), 132, 64) +
            socket.inet_pton(socket.AF_INET6, "fd00::7") +
            socket.inet_pton(socket.AF_INET6, "fd00::99") + l4)
frames = [
    v4(sctp(data(), chunk(3, struct.pack("!IIHH", 6, 1500, 0, 0)))),
    v4(sctp(init())),
    v4(sctp(chunk(4, b"\x01\x02\x03\x04\x05"), data())),
    v4(sctp(chunk(4, b"\x01\x02\x03\x04", length=0), data())),
    v4(sctp(data(length=8))),
    v4(sctp(data(length=200))),
    v4(sctp(chunk(4, b"\x01\x02\x03\x04")) + b"\x01\x00"),
    v4(sctp(data()), proto=17),
    v4(sctp(chunk(0xc1, struct.pack("!I", 3)), chunk(0xc0, struct.pack("!I", 9)))),
    v6(sctp(data(tsn=6), init())),
    v4(sctp(data(), init()), frag=0x2001),
    v4(sctp(chunk(4, b"\x01\x02\x03\x04"))) + b"\x01\x00\x00\x14" + bytes(16),
    v4(sctp(chunk(14, b""), chunk(10, b"\x00" * 8))),
    v4(sctp()),
]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
src = bytes.fromhex(sys.argv[1].replace(":", ""))
for f in frames:
    s.send(bytes.fromhex("020000009999") + src + f)
print(len(frames))'
	local n
	n=$(ip netns exec h1 python3 -c "$send" 02:00:00:00:21:01)
	check "sctp chunks: h1 sent the frames over xbridge" test "$n" = 14
	n=$(ip netns exec h3 python3 -c "$send" 02:00:00:00:21:03)
	check "sctp chunks: h3 sent the frames over the Linux bridge" test "$n" = 14
	sleep 1
	local xl ll
	xl=$(xnft list ruleset)
	ll=$(nft list ruleset)
	[[ $xl =~ [^a-z]counter\ packets\ 14\  ]]
	log_test "sctp chunks: xbridge's forward chain saw the 14 frames" $? "$xl"
	same "sctp chunks: every rule counted the same frames on both" "$xl" "$ll"
	check_fails "sctp chunks: xnft: a chunk's field set is refused" "Operation not supported" \
		xnft add rule bridge sc forward sctp chunk data tsn set 1
	check_fails "sctp chunks: nft: the same" "Operation not supported" \
		nft add rule bridge sc forward sctp chunk data tsn set 1
	check "flush ruleset (sctp chunks)" xnft flush ruleset
	nft flush ruleset
	linux_twin_down
}

ALL_TESTS="
	nft_empty
	nft_same_as_nft
	nft_existing
	nft_bad_batches
	nft_netns
	nft_refusals
	nft_monitor
	nft_echo
	nft_seed_listed
	nft_seed_filters
	nft_hooks
	nft_ct_host
	nft_counters
	nft_log
	nft_reject
	nft_stateful
	nft_timeouts
	nft_dynset
	nft_objmaps
	nft_skb_meta
	nft_payload_write
	nft_tcp_options
	nft_ip_options
	nft_sctp_chunks
	nft_sock_meta
	nft_rename
	nft_dynset_churn
"

nft_topology
tests_run
summary
