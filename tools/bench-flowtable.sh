#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-flowtable.sh - the bridge flowtable against the Linux bridge, in the
# test kernel (issue 15). One boot of tools/vm/run.sh; in it, interleaved
# rounds (after a warm-up round that is not counted) over the seed's topology
# (../shared/seeds/bridge-flowtable-thread.txt: namespaces ns21 and ns22 on
# veth, VLAN 200 PVID untagged on both ports, vlan_filtering on) through:
#   a   xbridge + the seed's ruleset (xnft) + flowtable fb2, offloading TCP
#       and UDP (`ct zone 2 ip protocol udp flow offload @fb2` beside tcp)
#   b   xbridge + the seed's ruleset, no flowtable
#   c   the Linux bridge + nf_conntrack_bridge + the seed's ruleset (nft)
#   dx  xbridge, no rules;  dl  the Linux bridge, no rules
#   e   no bridge: the veths joined by tc mirred redirect (the ideal forwarder)
#   dn  (only if asked for with --paths) xbridge with one empty forward chain:
#       no rules, no conntrack, but the shim linearizes paged skbs once any
#       chain exists - what that copy costs a TCP stream
# Traffic: 64-byte UDP frames over 1,000 flows from pktgen in ns21 (src
# ports 1000-1999: pktgen's udp_src_max is exclusive), counted at ns22's eth0 (rx_packets; a tc ingress rule
# drops them there), frames/s; and one iperf3 TCP stream ns21 -> ns22,
# Gbit/s. Prints medians, each path's cost over (e) per frame
# (1/rate - 1/rate_e, ns), the ratios the targets of issue 15 are about, and
# whether (a) really offloaded (`xbridge -s ct stats` hits).
#
#   tools/bench-flowtable.sh [--quick] [--rounds N] [--udp-secs S]
#                            [--tcp-secs S] [--paths "a b c dx dl e"]
#                            [--no-warmup] [--kernel SPEC] [--out FILE]
#   tools/bench-flowtable.sh --summarize FILE   # the table of a saved run
#
# Needs build-kmod/xbridge.ko (bash kmod-shim/build.sh build-kmod), the tools
# in build/ (meson setup build && meson compile -C build; or $XBRIDGE,
# $XNFT), iperf3 and nft on the host (tools/bootstrap.sh). The raw results go
# to --out (default build-vm/bench-flowtable.out). --quick: one short round,
# no warm-up, to check that it works. Not a test: it is not in CI.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

rounds=5 udp_secs=4 tcp_secs=10 warmup=1 quick="" kernel="" out="" guest=""
paths="a b c dx dl e"
while (($#)); do
	case $1 in
	--quick) quick=1; rounds=1; udp_secs=2; tcp_secs=3; warmup=0; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--udp-secs) udp_secs=$2; shift 2 ;;
	--tcp-secs) tcp_secs=$2; shift 2 ;;
	--no-warmup) warmup=0; shift ;;
	--paths) paths=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--guest) guest=1; shift ;;
	--summarize) summarize_only=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bench-flowtable: unknown argument $1" >&2; exit 2 ;;
	esac
done

# summarize FILE - the table, from the BENCH lines of a run.
summarize() {
	python3 - "$1" <<'EOF'
import statistics, sys
vals, hits, info = {}, [], []
for line in open(sys.argv[1], errors="replace"):
    line = line.strip().replace("\r", "")
    i = line.find("BENCH ")
    if i < 0:
        continue
    w = line[i:].split()
    if w[1] in ("udp", "tcp") and len(w) == 5:
        if int(w[3]) > 0:                       # round 0 is the warm-up
            vals.setdefault((w[1], w[2]), []).append(float(w[4]))
    elif w[1] == "hits":
        hits.append(" ".join(w[2:]))
    elif w[1] in ("info", "error"):
        info.append(" ".join(w[1:]))
names = [("a", "(a) xbridge + seed rules + flowtable"),
         ("b", "(b) xbridge + seed rules"),
         ("c", "(c) Linux bridge + nft + conntrack"),
         ("dx", "(d) xbridge, no rules"),
         ("dl", "(d) Linux bridge, no rules"),
         ("dn", "(dn) xbridge, one empty chain"),
         ("e", "(e) tc mirred (ideal)")]
def med(t, p):
    v = vals.get((t, p))
    return statistics.median(v) if v else None
def cost(p):
    r, e = med("udp", p), med("udp", "e")
    return (1e9 / r - 1e9 / e) if r and e else None
def f(x, fmt):
    return format(x, fmt) if x is not None else "-"
n = max((len(v) for v in vals.values()), default=0)
print("bench-flowtable: medians of %d round(s); UDP 64-byte frames over 1,000 flows (pktgen), "
      "TCP one iperf3 stream" % n)
print()
print("%-38s %12s %14s %10s   %s" % ("path", "UDP frames/s", "cost over (e)", "TCP Gbit/s", "rounds (UDP kfps | TCP Gbit/s)"))
for p, name in names:
    if ("udp", p) not in vals and ("tcp", p) not in vals:
        continue
    u, t = vals.get(("udp", p), []), vals.get(("tcp", p), [])
    print("%-38s %12s %11s ns %10s   %s | %s" % (
        name, f(med("udp", p), ",.0f"), f(cost(p), ".0f"), f(med("tcp", p), ".3f"),
        " ".join("%.1f" % (x / 1e3) for x in u), " ".join("%.2f" % x for x in t)))
print()
def ratio(x, y):
    return x / y if x is not None and y else None
def verdict(ok):
    return "-" if ok is None else ("met" if ok else "NOT met")
ca, cb, cc = cost("a"), cost("b"), cost("c")
rows = [
    ("UDP frames/s (a)/(c)", ratio(med("udp", "a"), med("udp", "c")), ">= 1.3", lambda x: x >= 1.3),
    ("UDP cost over (e) (a)/(c)", ratio(ca, cc), "<= 0.5", lambda x: x <= 0.5),
    ("UDP cost over (e) (a)/(b)", ratio(ca, cb), "<= 0.7", lambda x: x <= 0.7),
    ("UDP frames/s (a)/(b)", ratio(med("udp", "a"), med("udp", "b")), "", None),
    ("UDP frames/s (a)/(d-xbridge)", ratio(med("udp", "a"), med("udp", "dx")), "", None),
    ("TCP Gbit/s (a)/(c)", ratio(med("tcp", "a"), med("tcp", "c")), ">= 1.0", lambda x: x >= 1.0),
    ("TCP Gbit/s (a)/(b)", ratio(med("tcp", "a"), med("tcp", "b")), "", None),
    ("TCP Gbit/s (a)/(d-xbridge)", ratio(med("tcp", "a"), med("tcp", "dx")), ">= 0.95", lambda x: x >= 0.95),
]
print("%-30s %8s %10s  %s" % ("ratio", "measured", "target", ""))
for name, x, tgt, ok in rows:
    print("%-30s %8s %10s  %s" % (name, f(x, ".2f"), tgt, verdict(ok(x) if ok and x is not None else None) if tgt else ""))
if hits:
    print()
    print("flowtable in (a), xbridge -s ct stats dev xbr0:")
    for h in hits:
        print("  " + h)
for l in info:
    print(l)
EOF
}

if [[ -n ${summarize_only:-} ]]; then
	summarize "$summarize_only"
	exit
fi

# ------------------------------------------------------------------ host side
if [[ -z $guest ]]; then
	cd "$root" || exit 1
	ko=$root/build-kmod/xbridge.ko
	[[ -e $ko ]] || { echo "bench-flowtable: no $ko (bash kmod-shim/build.sh build-kmod)" >&2; exit 1; }
	for t in iperf3 nft python3; do
		command -v $t >/dev/null || { echo "bench-flowtable: no $t (tools/bootstrap.sh)" >&2; exit 1; }
	done
	out=${out:-$root/build-vm/bench-flowtable.out}
	mkdir -p "$(dirname "$out")"
	# boot + setup ~1 min; per round and path ~ udp+tcp+10 s; a short warm-up round.
	npaths=$(wc -w <<<"$paths")
	per_round=$((npaths * (udp_secs + tcp_secs + 12)))
	timeout=$((180 + (rounds + warmup) * per_round * 2))
	args=(--rounds "$rounds" --udp-secs "$udp_secs" --tcp-secs "$tcp_secs" --paths "$paths")
	((warmup)) || args+=(--no-warmup)
	start=$(date +%s)
	flock /tmp/xbridge-vm.lock "$root/tools/vm/run.sh" --output-only --smp 2 \
		--timeout "$timeout" ${kernel:+--kernel "$kernel"} \
		--env XBRIDGE="${XBRIDGE:-}" --env XNFT="${XNFT:-}" \
		--module "$ko" -- bash "$root/tools/bench-flowtable.sh" --guest "${args[@]}" |
		tee "$out"
	status=${PIPESTATUS[0]}
	echo
	summarize "$out"
	echo "wall time $(($(date +%s) - start)) s, vm status $status, raw results in $out"
	exit "$status"
fi

# ----------------------------------------------------------------- guest side
source "$here/bench-lib.sh"
bench_guest bench-flowtable
bench_tool XB tools/xbridge/xbridge
bench_tool XNFT tools/xnft/xnft
T=$(mktemp -d)
MAC21=02:00:00:00:21:07 MAC22=02:00:00:00:21:08

log() { echo "[$(date +%T)] $*"; }
err() { echo "BENCH error $*"; }

cleanup() {
	ip netns exec ns21 sh -c 'echo stop > /proc/net/pktgen/pgctrl' 2>/dev/null
	"$XNFT" flush ruleset 2>/dev/null
	nft flush ruleset 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	ip netns pids ns22 2>/dev/null | xargs -r kill 2>/dev/null
	ip netns del ns21 2>/dev/null
	ip netns del ns22 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# The seed's ruleset as an nft file, the same text for nft and xnft.
cat > "$T/seed.nft" <<'EOF'
add table bridge firewall
add chain bridge firewall zones { type filter hook prerouting priority - 300 ; }
add rule bridge firewall zones counter ct zone set iif map { "veth21" : 2, "veth22" : 2 }
add chain bridge firewall rule-200-ingress
add rule bridge firewall rule-200-ingress ct zone 2 ct state established,related counter accept
add rule bridge firewall rule-200-ingress ct zone 2 ct state invalid counter drop
add rule bridge firewall rule-200-ingress ct zone 2 tcp dport 23 ct state new counter accept
add rule bridge firewall rule-200-ingress counter drop
add chain bridge firewall rule-200-egress
add rule bridge firewall rule-200-egress ct zone 2 ct state established,related counter accept
add rule bridge firewall rule-200-egress ct zone 2 ct state invalid counter drop
add rule bridge firewall rule-200-egress ct zone 2 tcp dport 23 ct state new counter drop
add rule bridge firewall rule-200-egress counter accept
add chain bridge firewall rules-all { type filter hook prerouting priority - 150 ; }
add rule bridge firewall rules-all counter meta protocol ip iif vmap { "veth22" : jump rule-200-ingress, "veth21" : jump rule-200-egress }
EOF
{
	cat "$T/seed.nft"
	cat <<'EOF'
add flowtable bridge firewall fb2 { hook ingress priority 0 ; devices = { veth21, veth22 } ; }
add chain bridge firewall ftb-all { type filter hook forward priority 0 ; policy accept ; }
add rule bridge firewall ftb-all counter ct zone 2 ip protocol tcp flow offload @fb2
add rule bridge firewall ftb-all counter ct zone 2 ip protocol udp flow offload @fb2
EOF
} > "$T/seed-ft.nft"
printf '%s\n' 'add table bridge t' \
	'add chain bridge t forward { type filter hook forward priority 0 ; policy accept ; }' > "$T/empty.nft"

# The fixed part: the namespaces and their veths; the receiver drops the
# UDP frames at its tc ingress (after eth0 counted them); iperf3 server.
for m in veth bridge nf_tables nf_conntrack_bridge pktgen; do
	modprobe "$m" || err "modprobe $m failed"
done
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for n in 21 22; do
	ip netns add ns$n
	ip netns exec ns$n sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip link add veth$n type veth peer name eth0 netns ns$n
	ip link set veth$n up
	ip -n ns$n link set lo up
done
ip -n ns21 link set eth0 address $MAC21
ip -n ns22 link set eth0 address $MAC22
ip -n ns21 addr add 10.0.0.7/24 dev eth0
ip -n ns22 addr add 10.0.0.8/24 dev eth0
ip -n ns21 link set eth0 up
ip -n ns22 link set eth0 up
ip netns exec ns22 tc qdisc add dev eth0 clsact
ip netns exec ns22 tc filter add dev eth0 ingress protocol ip flower ip_proto udp dst_port 9 action drop ||
	err "tc flower drop in ns22 failed"
ip netns exec ns22 iperf3 -s -D --logfile "$T/iperf3-server.log" || err "iperf3 server failed"

pg() { ip netns exec ns21 sh -c "echo '$1' > /proc/net/pktgen/$2"; }
pg rem_device_all kpktgend_0
pg "add_device eth0" kpktgend_0
for c in "count 0" "clone_skb 0" "pkt_size 60" "delay 0" "dst 10.0.0.8" "src_min 10.0.0.7" \
	"src_max 10.0.0.7" "dst_mac $MAC22" "udp_src_min 1000" "udp_src_max 2000" \
	"udp_dst_min 9" "udp_dst_max 9"; do
	pg "$c" eth0 || err "pktgen: $c"
done

# teardown - back to bare veths: no bridge, no rules, no tc, no connections.
teardown() {
	tc qdisc del dev veth21 clsact 2>/dev/null
	tc qdisc del dev veth22 clsact 2>/dev/null
	"$XNFT" flush ruleset 2>/dev/null
	nft flush ruleset 2>/dev/null
	ip link del xbr0 2>/dev/null
	ip link del br0 2>/dev/null
	conntrack -F >/dev/null 2>&1
	ip link set veth21 up
	ip link set veth22 up
}

# setup PATH - a fresh bridge (or the mirred pair) and its rules.
setup() {
	local p=$1 i
	case $p in
	a | b | dx | dn)
		ip link add xbr0 type xbridge || { err "$p: ip link add xbr0 type xbridge"; return 1; }
		"$XB" link set dev xbr0 vlan_filtering 1
		ip link set xbr0 up
		ip link set veth21 master xbr0
		ip link set veth22 master xbr0
		"$XB" vlan add dev veth21 vid 200 pvid untagged
		"$XB" vlan add dev veth22 vid 200 pvid untagged
		case $p in
		a) "$XNFT" -f "$T/seed-ft.nft" || { err "$p: xnft -f seed-ft.nft"; return 1; } ;;
		b) "$XNFT" -f "$T/seed.nft" || { err "$p: xnft -f seed.nft"; return 1; } ;;
		dn) "$XNFT" -f "$T/empty.nft" || { err "$p: xnft -f empty.nft"; return 1; } ;;
		esac
		;;
	c | dl)
		ip link add br0 type bridge vlan_filtering 1 || { err "$p: ip link add br0"; return 1; }
		ip link set br0 up
		ip link set veth21 master br0
		ip link set veth22 master br0
		bridge vlan add dev veth21 vid 200 pvid untagged
		bridge vlan add dev veth22 vid 200 pvid untagged
		if [[ $p == c ]]; then
			nft -f "$T/seed.nft" || { err "$p: nft -f seed.nft"; return 1; }
		fi
		;;
	e)
		for i in 21:22 22:21; do
			tc qdisc add dev veth${i%:*} clsact
			tc filter add dev veth${i%:*} ingress matchall \
				action mirred egress redirect dev veth${i#*:} ||
				{ err "$p: tc mirred"; return 1; }
		done
		;;
	esac
	# Forwarding (and learning, ARP) both ways before measuring.
	for i in $(seq 30); do
		ip netns exec ns21 ping -c 1 -W 1 10.0.0.8 >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	err "$p: ns21 cannot ping ns22"
	return 1
}

rx22() { ip netns exec ns22 sh -c 'date +%s%N; cat /sys/class/net/eth0/statistics/rx_packets'; }

# udp PATH ROUND SECS - pktgen for 1 s of warm-up (creates and offloads the
# 1,000 flows), then SECS measured at ns22's eth0.
udp() {
	local p=$1 r=$2 s=$3 t0 r0 t1 r1 pid
	set -- $(rx22); UDP_TOTAL=$2
	ip netns exec ns21 sh -c 'echo start > /proc/net/pktgen/pgctrl' &
	pid=$!
	sleep 1
	set -- $(rx22); t0=$1 r0=$2
	sleep "$s"
	set -- $(rx22); t1=$1 r1=$2
	ip netns exec ns21 sh -c 'echo stop > /proc/net/pktgen/pgctrl'
	wait $pid
	set -- $(rx22); UDP_TOTAL=$(($2 - UDP_TOTAL))
	echo "BENCH udp $p $r $(awk -v n=$((r1 - r0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", n * 1e9 / t }')"
}

# tcp PATH ROUND SECS - one iperf3 stream ns21 -> ns22 (the first second
# omitted), the receiver's Gbit/s.
tcp() {
	local p=$1 r=$2 s=$3 g
	ip netns exec ns21 iperf3 -c 10.0.0.8 -t "$s" -O 1 -J > "$T/iperf.json" 2>&1
	g=$(jq -r '.end.sum_received.bits_per_second / 1e9' "$T/iperf.json" 2>/dev/null)
	if [[ -z $g || $g == null ]]; then
		err "$p: iperf3 round $r: $(head -c 300 "$T/iperf.json" | tr '\n' ' ')"
		return 1
	fi
	echo "BENCH tcp $p $r $(printf '%.4f' "$g")"
}

ftstat() { "$XB" -s ct stats dev xbr0 2>&1 | grep -o 'hits=[0-9]*' | head -1; }

# one PATH ROUND UDPSECS TCPSECS
one() {
	local p=$1 r=$2 h0 h1 h2
	UDP_TOTAL=0
	teardown
	setup "$p" || return 1
	[[ $p == a ]] && h0=$(ftstat)
	udp "$p" "$r" "$3"
	if [[ $p == a ]]; then
		sleep 1.2
		h1=$(ftstat)
	fi
	tcp "$p" "$r" "$4"
	if [[ $p == a ]]; then
		sleep 1.2
		h2=$(ftstat)
		h0=${h0#hits=} h1=${h1#hits=} h2=${h2#hits=}
		echo "BENCH hits round $r: UDP $((h1 - h0)) flowtable hits for $UDP_TOTAL frames received," \
			"TCP $((h2 - h1)) hits (segments and ACKs)"
		"$XB" -s ct stats dev xbr0
		"$XB" ct show | grep -c OFFLOAD | sed 's/^/offloaded connections after TCP: /'
	fi
}

read -ra paths <<<"$paths"
np=${#paths[@]}
echo "BENCH info test kernel $(uname -r), $(nproc) vCPUs (TCG); $rounds round(s) after ${warmup} warm-up round(s), UDP ${udp_secs} s + 1 s warm-up, TCP ${tcp_secs} s + 1 s omitted, per path and round"
if ((warmup)); then
	log "warm-up round (not counted)"
	for p in "${paths[@]}"; do one "$p" 0 1 2; done
fi
for ((r = 1; r <= rounds; r++)); do
	# rotate the order every round
	order=("${paths[@]:$(((r - 1) % np))}" "${paths[@]:0:$(((r - 1) % np))}")
	log "round $r: ${order[*]}"
	for p in "${order[@]}"; do one "$p" "$r" "$udp_secs" "$tcp_secs"; done
done
teardown
log "done"
