#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# demo.sh - run inside the test kernel with xbridge.ko loaded: two network
# namespaces ping each other through xbr0, then the FDB it learned is shown.
set -eu
source "$(dirname "$0")/lib.sh"
TMPDIR=$(mktemp -d)
trap 'ip link del xbr0 2>/dev/null; hosts_cleanup' EXIT

ip link add xbr0 type xbridge
ip link set xbr0 up
host_add h1 xbr0 veth1 02:00:00:00:00:01 192.0.2.1/24
host_add h2 xbr0 veth2 02:00:00:00:00:02 192.0.2.2/24

echo "# ip -d link show xbr0"
ip -d link show xbr0 | sed 's/^/  /'
echo "# ip netns exec h1 ping -c 3 192.0.2.2"
ip netns exec h1 ping -c 3 -i 0.3 192.0.2.2 | sed 's/^/  /'
echo "# xbridge fdb show br xbr0   (the learned FDB)"
fdb_show xbr0 | sed 's/^/  /'
