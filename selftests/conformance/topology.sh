#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# topology.sh up|down [NPORTS] - the two bridges the conformance harness
# compares, built once per run (the harness resets them between scenarios):
#
#   lbr: a Linux bridge (STP off, multicast snooping off: xbridge has none;
#        forward_delay 0, else the forward-delay timer Linux arms when a
#        port is enslaved moves a user-set listening/learning state on by
#        itself 15 s later - Documentation/conformance.md)
#   xbr: an xbridge
#   lpN / xpN (N = 1..NPORTS, default 8): veths, not yet enslaved; the peer
#   of each is eth0 in namespace lhN / xhN, where the harness captures.
#
# Both bridges have the same address, and lpN and xpN the same address, so
# their local FDB entries compare equal. IPv6 is off everywhere, so no
# device sends frames of its own.
set -eu
cmd=${1:?up|down}
n=${2:-8}
BR_MAC=02:00:00:00:0b:00

if [[ $cmd == down ]]; then
	ip link del lbr 2>/dev/null || true
	ip link del xbr 2>/dev/null || true
	for i in $(seq 1 "$n"); do
		ip link del "lp$i" 2>/dev/null || true
		ip link del "xp$i" 2>/dev/null || true
		ip netns del "lh$i" 2>/dev/null || true
		ip netns del "xh$i" 2>/dev/null || true
	done
	exit 0
fi

sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
modprobe bridge 2>/dev/null || true
# Bridge conntrack for the nft scenarios' ct rules (they would load it too).
modprobe nf_conntrack_bridge 2>/dev/null || true
ip link add lbr address $BR_MAC type bridge stp_state 0 mcast_snooping 0 \
	forward_delay 0
ip link add xbr address $BR_MAC type xbridge
for i in $(seq 1 "$n"); do
	for side in l x; do
		ns=${side}h$i
		ip netns add "$ns"
		ip link add "${side}p$i" address "02:00:00:00:0b:0$i" type veth \
			peer name eth0 netns "$ns" address "02:00:00:00:0c:0$i"
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "$ns" link set eth0 up
		ip link set "${side}p$i" up
	done
done
ip link set lbr up
ip link set xbr up
# What xbr passes up stops at its tc ingress: the IPv4 conntrack hooks of
# this namespace keep the table the harness reads as Linux's, and they
# would track xbridge's copies of a flow there a second time (a FIN sent
# to the broadcast MAC moved Linux's entry to LAST_ACK). The capture
# sockets on xbr still see every frame: taps run before tc ingress.
tc qdisc add dev xbr clsact
tc filter add dev xbr ingress matchall action drop
