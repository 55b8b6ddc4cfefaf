#!/bin/bash
# mkinitramfs.sh KERNEL_VERSION OUTPUT.cpio
#
# Build the busybox initramfs that tools/vm/run.sh boots the test kernel with:
# the static busybox, tools/vm/init as /init, tools/vm/stage2.sh, and the
# modules needed to mount the host root over virtio-9p, taken from
# /lib/modules/KERNEL_VERSION (or $MODDIR: the debug kernel's staged modules
# directory, see tools/vm/build-debug-kernel.sh) with their dependencies resolved from
# modules.dep (compressed modules are decompressed so busybox insmod can load
# them; built-in ones are skipped). The archive is uncompressed newc cpio, so
# run.sh can append the per-run job as a second archive.
set -euo pipefail

ver=${1:?usage: mkinitramfs.sh KERNEL_VERSION OUTPUT.cpio}
out=${2:?usage: mkinitramfs.sh KERNEL_VERSION OUTPUT.cpio}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
moddir=${MODDIR:-/lib/modules/$ver}
busybox=${BUSYBOX:-/bin/busybox}

[[ -f $moddir/modules.dep ]] || { echo "mkinitramfs: no $moddir/modules.dep" >&2; exit 1; }
[[ $(LC_ALL=C ldd "$busybox" 2>&1) == *"not a dynamic"* ]] ||
	{ echo "mkinitramfs: $busybox is not a static busybox (install busybox-static)" >&2; exit 1; }

# What the guest needs before it can see the host root. The transport modules
# (virtio_pci, 9pnet_virtio) may be built in on other kernels: that is fine.
wanted=(virtio_pci 9pnet_virtio 9p)

declare -A dep_of=() path_of=() seen=()
while IFS= read -r line; do
	mod=${line%%:*}
	name=${mod##*/}; name=${name%%.ko*}; name=${name//-/_}
	path_of[$name]=$mod
	dep_of[$name]=${line#*:}
done <"$moddir/modules.dep"

order=()
resolve() { # depth first: dependencies before the module itself
	local name=${1//-/_} d
	[[ -z ${seen[$name]:-} ]] || return 0
	seen[$name]=1
	if [[ -z ${path_of[$name]:-} ]]; then
		if grep -q "/${name//_/[-_]}\.ko" "$moddir/modules.builtin" 2>/dev/null; then
			return 0
		fi
		echo "mkinitramfs: module $name not found for $ver" >&2
		exit 1
	fi
	for d in ${dep_of[$name]}; do
		d=${d##*/}; resolve "${d%%.ko*}"
	done
	order+=("$name")
}
for m in "${wanted[@]}"; do resolve "$m"; done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,modules,newroot}
cp "$busybox" "$stage/bin/busybox"
install -m 755 "$here/init" "$stage/init"
install -m 644 "$here/stage2.sh" "$stage/stage2.sh"
for name in "${order[@]}"; do
	src=$moddir/${path_of[$name]}
	case $src in
	*.ko) cp "$src" "$stage/modules/$name.ko" ;;
	*.ko.xz) xz -dc "$src" >"$stage/modules/$name.ko" ;;
	*.ko.zst) zstd -qdc "$src" >"$stage/modules/$name.ko" ;;
	*.ko.gz) gzip -dc "$src" >"$stage/modules/$name.ko" ;;
	*) echo "mkinitramfs: unknown module format $src" >&2; exit 1 ;;
	esac
	echo "$name.ko" >>"$stage/modules.order"
done
touch "$stage/modules.order"

(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet --owner=0:0) >"$out.tmp.$$"
mv "$out.tmp.$$" "$out"
echo "mkinitramfs: $out for $ver: modules ${order[*]:-(none)}" >&2
