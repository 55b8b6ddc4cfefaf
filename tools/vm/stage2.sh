# shellcheck shell=sh
# Stage 2 of the xbridge test-kernel guest, run by /init as PID 1 with busybox sh,
# chrooted into the host's root (read-only 9p; tmpfs on /tmp /run /var/tmp).
#
# Reads the job written by tools/vm/run.sh from /run/vm/job:
#   nonce    marker suffix, so command output cannot fake the markers
#   cwd      directory to run the command in
#   modules  one .ko path per line (host paths; the guest sees the same files)
#   cmd      the command, as a bash script
# insmods the modules, runs the command, rmmods the modules (reverse order),
# then prints the exit status and the kernel log between markers and powers off.
# On a kernel with kmemleak (the debug kernel), what boot left is scanned and
# cleared before the modules load, and at the end two scans (with a pause, as
# Documentation/dev-tools/kmemleak.rst advises) report what leaked since; the
# report ("unreferenced object ...") goes into the kernel-log dump, where
# tools/vm/run.sh fails on it.
# Everything but the command itself is busybox, so the host's tools are only
# needed for what the command uses (plus kmod's insmod/rmmod for the modules).
bb=/run/vm/busybox
job=/run/vm/job
nonce=$($bb cat $job/nonce)

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TERM=dumb LANG=C.UTF-8 LC_ALL=C.UTF-8 XBRIDGE_VM=1
[ -f $job/env ] && . $job/env

kmemleak=/sys/kernel/debug/kmemleak
finish() {
	leaks=""
	if [ -w $kmemleak ]; then
		echo "vm: kmemleak: scanning"
		echo scan >$kmemleak 2>/dev/null
		$bb sleep 5
		echo scan >$kmemleak 2>/dev/null
		leaks=$($bb cat $kmemleak 2>&1)
		echo "vm: kmemleak: $(echo "$leaks" | $bb grep -c '^unreferenced object') unreferenced objects"
	fi
	echo "XBRIDGE-VM-EXIT-$nonce: $1"
	echo "XBRIDGE-VM-DMESG-BEGIN-$nonce"
	$bb dmesg
	[ -z "$leaks" ] || echo "$leaks"
	echo "XBRIDGE-VM-DMESG-END-$nonce"
	$bb sync
	$bb poweroff -f
	$bb sleep 30
}

insmod_() { if [ -x /sbin/insmod ]; then /sbin/insmod "$@"; else $bb insmod "$@"; fi; }
rmmod_() { if [ -x /sbin/rmmod ]; then /sbin/rmmod "$@"; else $bb rmmod "$@"; fi; }

if [ -w $kmemleak ]; then
	echo "vm: kmemleak: baseline scan"
	echo scan >$kmemleak 2>/dev/null
	echo clear >$kmemleak 2>/dev/null
fi

loaded=""
while IFS= read -r ko; do
	[ -n "$ko" ] || continue
	# Dependencies of the module (other modules it uses) come from the host's
	# /lib/modules, as modprobe would load them.
	for dep in $(/sbin/modinfo -F depends "$ko" 2>/dev/null | $bb tr , ' '); do
		/sbin/modprobe "$dep" || echo "vm: warning: modprobe $dep failed"
	done
	echo "vm: insmod $ko"
	if ! insmod_ "$ko"; then
		echo "vm: FAILED: insmod $ko"
		finish 125
	fi
	name=$($bb basename "$ko"); name=${name%%.ko*}
	loaded="$name $loaded"
done < $job/modules

# One TCP connection on lo before the command: the first TCP handshake of
# a boot flips net_get_random_once's static keys (net_secret, ts_secret),
# and under TCG a vCPU may run the patched site while the other patches it
# (an "Oops: int3" in secure_tcp_seq_and_ts_off, seen once in CI). Here
# nothing else runs yet.
$bb ip link set lo up 2>/dev/null
$bb nc -l -p 7 </dev/null >/dev/null 2>&1 &
warm=$!
i=0
until echo | $bb nc -w 1 127.0.0.1 7 >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 20 ] || { echo "vm: warning: the TCP warm-up on lo failed"; break; }
	$bb usleep 50000
done
kill $warm 2>/dev/null

# Two static keys sit at the top of __netif_receive_skb_core, the hottest
# code a bridge test runs: netstamp_needed_key, which every ping (iputils
# sets SO_TIMESTAMP) flips on when it starts and off when it exits, and
# ingress_needed_key, which the first clsact qdisc flips. A flip while
# frames arrive on the other vCPU is where TCG's int3 race bites (an
# "Oops: int3" at __netif_receive_skb_core+0x3f in CI, 6.12, during
# xbridge_conntrack's pings). Both are pinned on for the whole run: a
# socket with SO_TIMESTAMP held open and a clsact qdisc on lo, so later
# users only move the keys' counts. As on any host running chronyd or a
# tc program. XBRIDGE_VM_PIN_KEYS=0 (tools/bench-l2.sh) leaves them off,
# so forwarded frames are not stamped on receive.
if [ "${XBRIDGE_VM_PIN_KEYS:-1}" != 0 ]; then
	/sbin/modprobe sch_ingress
	/usr/sbin/tc qdisc add dev lo clsact ||
		echo "vm: warning: no clsact qdisc on lo"
	python3 -c 'import os, socket, signal
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)	# SO_TIMESTAMP; Python has no name for it
open("/run/vm/netstamp", "w").close()
signal.pause()' &
	i=0
	until [ -e /run/vm/netstamp ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "vm: warning: no SO_TIMESTAMP socket"; break; }
		$bb usleep 50000
	done
	$bb usleep 200000	# net_enable_timestamp flips the key from a work item
fi

cd "$($bb cat $job/cwd)" || { echo "vm: FAILED: cd $($bb cat $job/cwd)"; finish 125; }
echo "vm: running the command in $PWD"
start=$($bb cut -d' ' -f1 /proc/uptime)
/bin/bash $job/cmd </dev/null
status=$?
echo "vm: command exited with status $status (guest uptime $start s at start)"

for name in $loaded; do
	echo "vm: rmmod $name"
	if ! rmmod_ "$name"; then
		echo "vm: FAILED: rmmod $name"
		[ $status -ne 0 ] || status=126
	fi
done
finish $status
