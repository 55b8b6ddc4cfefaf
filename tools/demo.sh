#!/bin/bash
# demo.sh - the main job: install what is needed, build xbridge, run the
# core demo in userspace, then boot the test kernel (Debian's kernel under
# qemu), load xbridge.ko, and show two namespaces pinging through xbr0 with
# the FDB the bridge learned.
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
kver=$(tools/vm/run.sh --print-kernel)
bash kmod-shim/build.sh build-kmod "$kver" >build-kmod.log 2>&1 || {
	cat build-kmod.log >&2
	exit 1
}
tail -1 build-kmod.log
exec tools/vm/run.sh -q --module build-kmod/xbridge.ko -- selftests/demo.sh
