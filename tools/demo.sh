#!/bin/bash
# demo.sh - the main job: install what is needed, build xbridge, run the
# core demo in userspace, then boot the test kernel (Debian's kernel under
# qemu), load xbridge.ko, and show two namespaces pinging through xbr0, the
# FDB the bridge learned, and an nft ruleset (xnft) filtering the ping.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh

if [[ -f build/meson-private/coredata.dat ]]; then
	meson setup --reconfigure build --buildtype=release -Db_sanitize=none >/dev/null
else
	rm -rf build
	meson setup build --buildtype=release -Db_sanitize=none >/dev/null
fi
meson compile -C build >/dev/null
echo "== the forwarding core in userspace"
build/tools/xbridge-demo

echo
echo "== xbridge.ko in the test kernel"
# The module builds for the default test kernel (Debian 12's 6.1; set
# XBRIDGE_KERNEL=6.12 for the other), which then boots under qemu; only the
# commands the guest runs and their output are shown (the boot and kernel log
# go to build-vm/last.log).
kver=$(tools/kernel-version.sh)
bash kmod-shim/build.sh build-kmod "$kver" >build-kmod.log 2>&1 || {
	cat build-kmod.log >&2
	exit 1
}
tail -1 build-kmod.log
exec flock /tmp/xbridge-vm.lock tools/vm/run.sh --kernel "$kver" --output-only \
	--module build-kmod/xbridge.ko -- selftests/demo.sh
