# SPDX-License-Identifier: GPL-2.0
# seed_firewall.sh - the seed's nft commands (../shared/seeds/
# bridge-flowtable-thread.txt), typed verbatim with xnft for nft: its zones,
# its per-direction policy chains, its flowtable fb2 and the forward chain
# that offloads zone-2 TCP. Run by the selftests with `bash -e` and xnft
# on PATH (xbridge_nft.sh, xbridge_flowtable.sh).
xnft add table bridge firewall
xnft add chain bridge firewall zones { type filter hook prerouting priority - 300 \; }
xnft add rule bridge firewall zones counter ct zone set iif map { "veth21" : 2, "veth22" : 2 }
xnft add chain bridge firewall rule-200-ingress
xnft add rule bridge firewall rule-200-ingress ct zone 2 ct state established,related counter accept
xnft add rule bridge firewall rule-200-ingress ct zone 2 ct state invalid counter drop
xnft add rule bridge firewall rule-200-ingress ct zone 2 tcp dport 23 ct state new counter accept
xnft add rule bridge firewall rule-200-ingress counter drop
xnft add chain bridge firewall rule-200-egress
xnft add rule bridge firewall rule-200-egress ct zone 2 ct state established,related counter accept
xnft add rule bridge firewall rule-200-egress ct zone 2 ct state invalid counter drop
xnft add rule bridge firewall rule-200-egress ct zone 2 tcp dport 23 ct state new counter drop
xnft add rule bridge firewall rule-200-egress counter accept
xnft add chain bridge firewall rules-all { type filter hook prerouting priority - 150 \; }
xnft add rule bridge firewall rules-all counter meta protocol ip iif vmap { "veth22" : jump rule-200-ingress, "veth21" : jump rule-200-egress }
xnft add flowtable bridge firewall fb2 { hook ingress priority 0 \; devices = { veth21, veth22 } \; }
xnft add chain bridge firewall ftb-all {type filter hook forward priority 0 \; policy accept \; }
xnft add rule bridge firewall ftb-all counter ct zone 2 ip protocol tcp flow offload @fb2
