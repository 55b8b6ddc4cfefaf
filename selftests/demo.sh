#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - run inside the test kernel with xbridge.ko loaded (tools/demo.sh):
# create xbr0, attach two network namespaces by veth, ping through the bridge
# and show the FDB it learned. Every command is printed before it runs
# ("$ COMMAND"), its output indented below it. Fails if the ping fails or the
# FDB did not learn both hosts.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
trap 'ip link del xbr0 2>/dev/null; hosts_cleanup' EXIT

# The tools under their installed names, so the commands read as a user types them.
xbridge() { xb "$@"; }
XNFT=${XNFT:-}
for _d in build build-test build-tool build-dev; do
	[[ -z "$XNFT" && -x "$SELFTESTS_DIR/../$_d/tools/xnft/xnft" ]] &&
		XNFT="$(cd "$SELFTESTS_DIR/.." && pwd)/$_d/tools/xnft/xnft"
done
xnft() { "$XNFT" "$@"; }

# run COMMAND... - print the command, run it, indent its output; its status is
# the command's.
run() {
	printf '$ %s\n' "$*"
	"$@" 2>&1 | sed 's/^/    /'
}

# host NS PORT MAC IP/PREFIX - a namespace whose eth0 is the veth peer of PORT,
# PORT enslaved to xbr0.
host() {
	local ns=$1 port=$2 mac=$3 ip=$4
	run ip netns add "$ns"
	run ip link add "$port" type veth peer name eth0 netns "$ns"
	run ip -n "$ns" link set eth0 address "$mac" up
	run ip -n "$ns" addr add "$ip" dev eth0
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	run ip link set "$port" master xbr0 up
}

echo "## the bridge: xbr0, an xbridge link (xbridge.ko)"
run ip link add xbr0 type xbridge
run ip link set xbr0 up
run ip -d link show xbr0
echo
echo "## two hosts, h1 and h2, each a namespace on a port of xbr0"
host h1 veth1 02:00:00:00:00:01 192.0.2.1/24
host h2 veth2 02:00:00:00:00:02 192.0.2.2/24
run xbridge link show
echo
echo "## h1 pings h2 through xbr0"
run ip netns exec h1 ping -c 3 -i 0.3 -W 2 192.0.2.2
echo
echo "## the FDB xbr0 learned from that traffic"
run xbridge fdb show br xbr0
fdb=$(xbridge fdb show br xbr0)
for want in "02:00:00:00:00:01 dev veth1" "02:00:00:00:00:02 dev veth2"; do
	if ! grep -q "^$want .*master xbr0" <<<"$fdb"; then
		echo "demo: FAIL: the FDB does not hold $want" >&2
		exit 1
	fi
done
echo
echo "## a bridge firewall in nft's language (xnft): h1 may not ping h2"
run xnft add table bridge filter
run xnft add chain bridge filter pre "{ type filter hook prerouting priority 0 ; }"
run xnft add rule bridge filter pre meta iifname veth1 icmp type echo-request counter drop
run xnft list ruleset
if run ip netns exec h1 ping -c 2 -i 0.3 -W 1 192.0.2.2; then
	echo "demo: FAIL: the firewall let the ping through" >&2
	exit 1
fi
echo "(dropped, as the rule says; its counter:)"
run xnft list chain bridge filter pre
run xnft flush ruleset
run ip netns exec h1 ping -c 1 -W 2 192.0.2.2
echo
echo "demo: xbr0 forwarded the ping, learned both hosts, and filtered with an nft ruleset"
