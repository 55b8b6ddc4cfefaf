#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# extract.sh OUTDIR [TARBALL] - lay out Linux's own forwarding selftests
# (tools/testing/selftests/net/forwarding of Debian's linux-source-6.1,
# /usr/src/linux-source-6.1.tar.xz by default) in OUTDIR, for
# selftests/xbridge_kernel_forwarding.sh. Only the scripts it runs and their
# lib.sh are taken; nothing of the kernel's is kept in this tree. Does nothing
# when OUTDIR already holds them from the same tarball. Exit 4 without the
# tarball (apt-get install linux-source-6.1).
set -euo pipefail
out=${1:?usage: extract.sh OUTDIR [TARBALL]}
tarball=${2:-/usr/src/linux-source-6.1.tar.xz}
here="$(cd "$(dirname "$0")" && pwd)"
[[ -r $tarball ]] || { echo "extract.sh: no $tarball (apt-get install linux-source-6.1)" >&2; exit 4; }
stamp="$(stat -c '%s %Y' "$tarball") $(md5sum <"$here/scripts" | cut -c1-32)"
[[ -f $out/.stamp && $(<"$out/.stamp") == "$stamp" ]] && exit 0
top=$(basename "$tarball" .tar.xz)	# Debian's tarball has one top directory of its name
dir=$top/tools/testing/selftests/net/forwarding
mkdir -p "$out"
tmp=$(mktemp -d "$out/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mapfile -t names < <(grep -v '^#' "$here/scripts" | awk 'NF {print $1}')
tar -xJf "$tarball" -C "$tmp" "$dir/lib.sh" "${names[@]/#/$dir/}"
cp "$tmp/$dir"/*.sh "$out/"
echo "$stamp" >"$out/.stamp"
