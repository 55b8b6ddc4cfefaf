#!/bin/bash
# build-debug-kernel.sh [--print-dir] - build (once) xbridge's debug test kernel.
#
# Builds Debian's own kernel source (/usr/src/linux-source-6.1.tar.xz, package
# linux-source-6.1: the version of the stock 6.1 test kernel) from
# `make tinyconfig` with tools/vm/debug.config merged on top (KASAN, lockdep
# with PROVE_RCU, DEBUG_ATOMIC_SLEEP, debug objects, kmemleak, UBSAN, list and
# refcount checks; everything the guest and the selftests need built in).
#
# The result is cached in $XBRIDGE_DEBUG_KERNEL_CACHE (default
# build-debug-kernel/ in the repo), in a directory keyed by the source
# package's version and a hash of the fragment, and reused:
#   DIR/bzImage       the kernel tools/vm/run.sh --kernel debug boots
#   DIR/release       its `uname -r` (6.1.N-xbdebug)
#   DIR/obj/          the build tree: KDIR for external modules
#                     (kmod-shim/build.sh OUTDIR debug builds xbridge.ko here)
#   DIR/modules/lib/modules/RELEASE/  modules.builtin, modules.dep, ... (the
#                     guest sees it as /lib/modules; the host's is untouched)
#   DIR/build.log, DIR/build-time
# --print-dir prints DIR when it is built and fails (status 1) when it is not.
#
# Build: nice -n ${NICE:-19} make -j${JOBS:-2}. Needs flex, bison, bc,
# libelf-dev, libssl-dev and linux-source-6.1 (tools/bootstrap.sh).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${XBRIDGE_DEBUG_KERNEL_CACHE:-$repo/build-debug-kernel}
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$here/debug.config

die() { echo "build-debug-kernel: $*" >&2; exit 2; }

[[ -r $tarball ]] || die "no $tarball (tools/bootstrap.sh installs linux-source-6.1)"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed (tools/bootstrap.sh)"
key=$(sha256sum <"$fragment" | cut -c1-12)
dir=$cache/$srcver-$key

if [[ ${1:-} == --print-dir ]]; then
	[[ -f $dir/done ]] || exit 1
	echo "$dir"
	exit 0
fi
[[ -z ${1:-} ]] || die "usage: build-debug-kernel.sh [--print-dir]"

if [[ -f $dir/done ]]; then
	echo "build-debug-kernel: cached: $dir ($(cat "$dir/release"))"
	exit 0
fi

for tool in flex bison bc make gcc; do
	command -v "$tool" >/dev/null || die "$tool missing (tools/bootstrap.sh)"
done

# The source, unpacked once per package version (the tarball holds linux-source-6.1/).
src=$cache/linux-source-$srcver
if [[ ! -f $src/Makefile ]]; then
	echo "build-debug-kernel: unpacking $tarball"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	nice -n "${NICE:-19}" tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mv "$src.tmp" "$src"
fi

rm -rf "$dir"
mkdir -p "$dir/obj"
log=$dir/build.log
mk=(nice -n "${NICE:-19}" make -C "$src" O="$dir/obj" -j"${JOBS:-2}")
t0=$(date +%s)
echo "build-debug-kernel: building in $dir (log $log; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
{
	"${mk[@]}" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$dir/obj" "$dir/obj/.config" "$fragment"
	"${mk[@]}" olddefconfig
} >"$log" 2>&1 || die "configuring failed (see $log)"

# Every option of the fragment must have landed (an unmet dependency drops it).
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	if [[ $want == "# "* ]]; then
		opt=${want#\# }; opt=${opt%% *}
		! grep -q "^$opt=" "$dir/obj/.config" && continue
	else
		grep -qxF "$want" "$dir/obj/.config" && continue
	fi
	echo "build-debug-kernel: $want did not land: $(grep -E "(^|# )${want#\# }" "$dir/obj/.config" | head -1)" >&2
	missing=1
done <"$fragment"
((missing == 0)) || die "the config fragment did not apply (see above)"

"${mk[@]}" bzImage modules >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "the build failed (see $log)"; }
"${mk[@]}" INSTALL_MOD_PATH="$dir/modules" modules_install >>"$log" 2>&1 ||
	die "modules_install failed (see $log)"
cp "$dir/obj/arch/x86/boot/bzImage" "$dir/bzImage"
"${mk[@]}" -s kernelrelease >"$dir/release"
t1=$(date +%s)
echo "$((t1 - t0)) s, $(nproc) CPUs, make -j${JOBS:-2} at nice ${NICE:-19}, load at end $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir/build-time"
touch "$dir/done"
# Older builds of the same source are superseded.
find "$cache" -mindepth 1 -maxdepth 1 -type d -name "$srcver-*" ! -path "$dir" -exec rm -rf {} +
echo "build-debug-kernel: built $dir ($(cat "$dir/release")) in $((t1 - t0)) s"
