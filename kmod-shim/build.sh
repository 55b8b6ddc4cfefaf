#!/bin/bash
# build.sh OUTDIR [KERNEL] - build xbridge.ko against the installed Debian
# kernel headers of KERNEL: a full version or a series (6.1, 6.12). Copies
# the shim and the core into OUTDIR (Kbuild builds in place; use one OUTDIR per
# kernel), runs Kbuild, and fails on any compiler, objtool or modpost warning.
# KERNEL defaults to the default test kernel (tools/kernel-version.sh: the
# newest 6.1, or $XBRIDGE_KERNEL). KERNEL `debug` builds against the debug
# test kernel's build tree (tools/vm/build-debug-kernel.sh, which must have
# run): e.g. build.sh build-kmod-debug debug.
#
# build.sh --source DIR only lays out the module's source tree in DIR (what
# the xbridge-dkms package ships in /usr/src/xbridge-VERSION).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"

# layout DIR: the shim, the uAPI header and the core (less its userspace
# platform) as Kbuild wants them.
layout() {
	mkdir -p "$1/core"
	cp -u "$here"/Kbuild "$here"/*.c "$here"/*.h "$here"/*.cc "$1/"
	cp -u "$root"/netlink/xbridge.h "$1/"
	cp -u "$root"/core/*.cc "$root"/core/*.h "$1/core/"
	rm -f "$1/core/platform_user.cc" "$1/core/platform_user.h"
}

if [[ ${1:-} == --source ]]; then
	layout "${2:?usage: build.sh --source DIR}"
	exit 0
fi

out="${1:?usage: build.sh OUTDIR [KERNEL]}"
if [[ ${2:-} == debug ]]; then
	ddir=$("$root/tools/vm/build-debug-kernel.sh" --print-dir) ||
		{ echo "build.sh: the debug kernel is not built (tools/vm/build-debug-kernel.sh)" >&2; exit 1; }
	kver=$(cat "$ddir/release")
	kdir=$ddir/obj
else
	kver="$("$root/tools/kernel-version.sh" ${2:+"$2"})"
	kdir=/lib/modules/$kver/build
fi
[[ -e $kdir/Makefile ]] ||
	{ echo "build.sh: no headers for $kver (tools/bootstrap.sh installs them)" >&2; exit 1; }

layout "$out"

log="$out/build.log"
make -C "$kdir" M="$(cd "$out" && pwd)" CXX="${CXX:-g++}" modules 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if ((status)); then
	echo "build.sh: Kbuild failed ($status)" >&2
	exit "$status"
fi
if grep -Eiq '(^|[^_])warning:' "$log"; then
	echo "build.sh: the module build printed warnings (see $log)" >&2
	exit 1
fi
echo "build.sh: $out/xbridge.ko for $kver ($(stat -c %s "$out/xbridge.ko") bytes)"
