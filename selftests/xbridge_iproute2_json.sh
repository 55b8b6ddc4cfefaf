#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_iproute2_json.sh [MODULE.ko] - `xbridge -j fdb show` and
# `xbridge -j vlan show` against iproute2's `bridge -j` for a Linux bridge
# configured identically in the same test kernel: the same bridge and port
# MACs, VLANs, static/permanent/sticky FDB entries, and entries learned from
# the same frames. The two sides are compared row by row and key by key
# after mapping the names (br0/xbr0 -> BR, lbr-pN/xbr-pN -> pN) and sorting;
# every row only one side has is a FAIL printing it.
# FDB rows without "master" (the ports' and bridge's own "self" addresses)
# are not the bridge's FDB and are left out on both sides.
# The tool: $XBRIDGE, else build-test/, build/, build-tool/ or build-dev/.
# Then the per-VLAN counters (vlan_stats_enabled) after the same frames, and
# the bridge devices' offload features (ethtool -k) with the same ports.
# setup runs first; TESTS= picks test_fdb, test_vlan, test_vlan_stats and/or
# test_features.
set -u
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)

need_xbridge

BRMAC=02:00:00:00:03:00
P1MAC=02:00:00:00:03:01
P2MAC=02:00:00:00:03:02
P3MAC=02:00:00:00:03:03
H1MAC=02:00:00:00:03:11
H2MAC=02:00:00:00:03:12
H3MAC=02:00:00:00:03:13
S1=02:00:00:00:0a:01	# static, no VLAN
S2=02:00:00:00:0a:02	# static, VLAN 20
S3=02:00:00:00:0a:03	# permanent (no state word), VLAN 10
S4=02:00:00:00:0a:04	# static sticky, VLAN 1

cleanup() {
	ip link del br0 2>/dev/null
	ip link del xbr0 2>/dev/null
	hosts_cleanup
	rm -rf "$TMPDIR"
}
trap cleanup EXIT

# port_add PREFIX BR N PORTMAC HOSTMAC - port PREFIX-pN of BR (MAC PORTMAC),
# a veth whose peer is eth0 (MAC HOSTMAC) in namespace PREFIX-hN.
port_add() {
	local pfx=$1 br=$2 n=$3 pmac=$4 hmac=$5
	local ns=$pfx-h$n port=$pfx-p$n
	ip netns add "$ns"
	ip link add "$port" address "$pmac" type veth peer name eth0 netns "$ns" address "$hmac"
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link set eth0 up
	ip link set "$port" master "$br"
	ip link set "$port" up
}

# configure TOOL PREFIX BR - the same VLANs and FDB entries through either
# `bridge` or `xbridge` (same grammar).
configure() {
	local t=$1 pfx=$2 br=$3 err=0
	$t vlan del vid 1 dev $pfx-p1 || err=1
	$t vlan add vid 10 dev $pfx-p1 pvid untagged || err=1
	$t vlan add vid 10 dev $pfx-p2 || err=1
	$t vlan add vid 20-22 dev $pfx-p2 || err=1
	$t vlan add vid 30 dev $pfx-p3 pvid || err=1
	$t vlan add vid 20 dev $pfx-p3 untagged || err=1
	$t fdb add $S1 dev $pfx-p1 master static || err=1
	$t fdb add $S2 dev $pfx-p2 vlan 20 master static || err=1
	$t fdb add $S3 dev $pfx-p1 vlan 10 master || err=1
	$t fdb add $S4 dev $pfx-p3 vlan 1 master static sticky || err=1
	return $err
}

# learn PREFIX - the same frames into either bridge: h1 untagged (PVID 10),
# h2 untagged (PVID 1) and tagged 20, h3 untagged (PVID 30) and tagged 20.
learn() {
	local pfx=$1
	ip netns exec $pfx-h1 $PKT send eth0 ff:ff:ff:ff:ff:ff $H1MAC --count 1
	ip netns exec $pfx-h2 $PKT send eth0 ff:ff:ff:ff:ff:ff $H2MAC --count 1
	ip netns exec $pfx-h2 $PKT send eth0 ff:ff:ff:ff:ff:ff $H2MAC --vlan 20 --count 1
	ip netns exec $pfx-h3 $PKT send eth0 ff:ff:ff:ff:ff:ff $H3MAC --count 1
	ip netns exec $pfx-h3 $PKT send eth0 ff:ff:ff:ff:ff:ff $H3MAC --vlan 20 --count 1
}

setup() {
	local err=0
	ip link add br0 address $BRMAC type bridge vlan_filtering 1 || err=1
	ip link set br0 up
	ip link add xbr0 type xbridge || err=1
	ip link set xbr0 address $BRMAC || err=1
	xb link set dev xbr0 vlan_filtering 1 || err=1
	ip link set xbr0 up
	for n in 1 2 3; do
		eval "pm=\$P${n}MAC hm=\$H${n}MAC"
		port_add lbr br0 $n $pm $hm || err=1
		port_add xbr xbr0 $n $pm $hm || err=1
	done
	configure bridge lbr br0 || err=1
	configure xb xbr xbr0 || err=1
	log_test "setup: the same configuration through bridge and xbridge" $err
	learn lbr
	learn xbr
	busywait 3000 all_learned
}

# all_learned - both bridges hold the five learned entries (h1 in VLAN 10,
# h2 in 1 and 20, h3 in 30 and 20).
all_learned() {
	(($(bridge fdb show br br0 | grep -c '^02:00:00:00:03:1[123] dev .* vlan .* master') >= 5 &&
	  $(xb fdb show br xbr0 | grep -c '^02:00:00:00:03:1[123] dev .* vlan .* master') >= 5))
}

# The name map, as a jq function.
NORM='def n: if . == "br0" or . == "xbr0" then "BR"
	elif type == "string" and test("^[lx]br-p[0-9]+$") then sub("^[lx]br-"; "")
	else . end;'

# compare WHAT LINUX_FILE XBRIDGE_FILE - both files hold a sorted JSON array
# of rows; a FAIL per row only one side has, one PASS if they are equal.
# (No process substitution: the test kernel's initramfs has no /dev/fd.)
compare() {
	local what=$1 l=$2 x=$3 row bad=0
	jq -c --slurpfile x "$x" '.[] | select(. as $r | $x[0] | index([$r]) | not)' \
		"$l" >"$TMPDIR/only.l" || bad=1
	jq -c --slurpfile l "$l" '.[] | select(. as $r | $l[0] | index([$r]) | not)' \
		"$x" >"$TMPDIR/only.x" || bad=1
	while IFS= read -r row; do
		[[ -n "$row" ]] || continue
		log_test "$what: row of bridge -j missing from xbridge -j" 1 "$row"
		bad=1
	done <"$TMPDIR/only.l"
	while IFS= read -r row; do
		[[ -n "$row" ]] || continue
		log_test "$what: row of xbridge -j that bridge -j does not print" 1 "$row"
		bad=1
	done <"$TMPDIR/only.x"
	if ((bad)); then
		echo "# bridge -j:  $(jq -c . "$l")"
		echo "# xbridge -j: $(jq -c . "$x")"
	fi
	log_test "$what: xbridge -j matches bridge -j key for key ($(jq length "$l") rows)" $bad
}

fdb_norm() {
	jq -S "$NORM"'[.[] | select(.master != null) | .ifname |= n | .master |= n]
		| sort_by(.mac, .ifname, (.vlan // 0), .state)'
}

test_fdb() {
	bridge -j fdb show br br0 | fdb_norm >"$TMPDIR/fdb.l"
	xb -j fdb show br xbr0 | fdb_norm >"$TMPDIR/fdb.x"
	[[ $(jq length "$TMPDIR/fdb.l") -gt 0 && $(jq length "$TMPDIR/fdb.x") -gt 0 ]]
	log_test "fdb: both sides print rows" $? \
		"bridge: $(jq -c . "$TMPDIR/fdb.l") xbridge: $(jq -c . "$TMPDIR/fdb.x")"
	echo "# bridge -j fdb show (normalised): $(jq -c . "$TMPDIR/fdb.l")"
	compare "fdb show" "$TMPDIR/fdb.l" "$TMPDIR/fdb.x"

	# The same with -s (used/updated), minus the timer values themselves.
	bridge -s -j fdb show br br0 | fdb_norm | jq -S 'map(if has("used") then .used = 0 | .updated = 0 else . end)' >"$TMPDIR/fdbs.l"
	xb -s -j fdb show br xbr0 | fdb_norm | jq -S 'map(if has("used") then .used = 0 | .updated = 0 else . end)' >"$TMPDIR/fdbs.x"
	compare "fdb show -s" "$TMPDIR/fdbs.l" "$TMPDIR/fdbs.x"
}

vlan_norm() {
	jq -S "$NORM"'[.[] | select(.ifname | test("^(br0|xbr0|[lx]br-p[0-9]+)$"))
		| .ifname |= n] | sort_by(.ifname)'
}

test_vlan() {
	bridge -j vlan show | vlan_norm >"$TMPDIR/vlan.l"
	xb -j vlan show | vlan_norm >"$TMPDIR/vlan.x"
	echo "# bridge -j vlan show (normalised): $(jq -c . "$TMPDIR/vlan.l")"
	compare "vlan show" "$TMPDIR/vlan.l" "$TMPDIR/vlan.x"
	# Per port, as `bridge vlan show dev PORT`.
	bridge -j vlan show dev lbr-p2 | vlan_norm >"$TMPDIR/vlan2.l"
	xb -j vlan show dev xbr-p2 | vlan_norm >"$TMPDIR/vlan2.x"
	compare "vlan show dev p2" "$TMPDIR/vlan2.l" "$TMPDIR/vlan2.x"
}

# Per-VLAN counters: vlan_stats_enabled on both, the same frames again (the
# learning broadcasts and a unicast to a learned host in VLAN 20), then
# `-s -j vlan show`: Linux's default vlan_stats_per_port 0 shares one set of
# counters per VID between every member, the bridge's own VLAN included.
stats_norm() {
	vlan_norm
}

test_vlan_stats() {
	local err=0 out
	# the bridge devices' own IPv6 (router solicitations, MLD) would count
	sysctl -qw net.ipv6.conf.br0.disable_ipv6=1 net.ipv6.conf.xbr0.disable_ipv6=1
	ip link set br0 type bridge vlan_stats_enabled 1 || err=1
	xb link set dev xbr0 vlan_stats_enabled 1 || err=1
	log_test "vlan_stats_enabled 1 on both" $err
	# per-port counters cannot be switched while ports have VLANs: EBUSY
	out=$(ip link set br0 type bridge vlan_stats_per_port 1 2>&1)
	[[ $? -ne 0 ]] || err=1
	echo "# ip link: $out"
	out=$(xb link set dev xbr0 vlan_stats_per_port 1 2>&1)
	[[ $? -ne 0 ]] || err=1
	echo "# xbridge: $out"
	[[ $(ip -d -j link show br0 | jq '.[0].linkinfo.info_data.vlan_stats_per_port') == 0 &&
	   $(xb -j link show dev xbr0 | jq '.[0].vlan_stats_per_port') == 0 ]] || err=1
	log_test "vlan_stats_per_port with port VLANs: refused by both, unchanged" $err
	for pfx in lbr xbr; do
		learn $pfx
		ip netns exec $pfx-h3 $PKT send eth0 $H2MAC $H3MAC --vlan 20 --count 3
	done
	sleep 1
	bridge -s -j vlan show | stats_norm >"$TMPDIR/stats.l"
	xb -s -j vlan show | stats_norm >"$TMPDIR/stats.x"
	echo "# bridge -s -j vlan show (normalised): $(jq -c . "$TMPDIR/stats.l")"
	compare "vlan show -s" "$TMPDIR/stats.l" "$TMPDIR/stats.x"
	ip link set br0 type bridge vlan_stats_enabled 0
	xb link set dev xbr0 vlan_stats_enabled 0
}

# The bridge device's offload features follow its ports as
# br_features_recompute has them: `ethtool -k` of both bridges, with the
# same ports, line for line; again after a port's checksum offload is
# turned off (NETDEV_FEAT_CHANGE) and back on.
features() {
	ethtool -k "$1" | grep -v '^Features for'
}

test_features() {
	local step out bad
	if ! command -v ethtool >/dev/null; then
		log_test_skip "features: no ethtool (tools/bootstrap.sh)"
		return
	fi
	for step in "as enslaved" "p1 tx off" "p1 tx on"; do
		case $step in
		"p1 tx off") ethtool -K lbr-p1 tx off >/dev/null; ethtool -K xbr-p1 tx off >/dev/null ;;
		"p1 tx on") ethtool -K lbr-p1 tx on >/dev/null; ethtool -K xbr-p1 tx on >/dev/null ;;
		esac
		features br0 >"$TMPDIR/feat.l"
		features xbr0 >"$TMPDIR/feat.x"
		out=$(diff "$TMPDIR/feat.l" "$TMPDIR/feat.x")
		bad=$?
		[[ -n $out ]] && echo "# br0 < > xbr0:" && sed 's/^/#   /' <<<"$out"
		log_test "features ($step): ethtool -k xbr0 matches br0 ($(grep -c ': on' "$TMPDIR/feat.x") on)" $bad
	done
	grep -q '^tcp-segmentation-offload: on' "$TMPDIR/feat.x"
	log_test "features: xbr0 offers TSO to its own stack" $?
}

ALL_TESTS="
	test_fdb
	test_vlan
	test_vlan_stats
	test_features
"

setup
tests_run
cleanup
trap - EXIT
summary
