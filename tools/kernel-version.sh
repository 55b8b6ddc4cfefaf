#!/bin/bash
# kernel-version.sh [SPEC] - print the version of a test kernel.
#
# SPEC is an installed kernel's full version (6.1.0-57-amd64), or a series
# (6.1, 6.12): the newest installed kernel of that series. The default is
# $XBRIDGE_KERNEL, else the 6.1 series (Debian 12's own kernel), else the
# newest installed kernel. A kernel counts when it has /boot/vmlinuz-VER and
# /lib/modules/VER; one that also has build headers is preferred.
# The test kernels the project supports: tools/bootstrap.sh installs both.
set -euo pipefail

spec=${1:-${XBRIDGE_KERNEL:-}}

# in_series VER SERIES: VER is SERIES itself or SERIES.N..., SERIES-..., SERIES+...
in_series() { [[ $1 == "$2" || $1 == "$2".* || $1 == "$2"-* || $1 == "$2"+* ]]; }

# newest SERIES: the newest matching kernel (any kernel when SERIES is empty).
newest() {
	local img v best="" best_hdr=""
	for img in /boot/vmlinuz-*; do
		[[ -r $img ]] || continue
		v=${img#/boot/vmlinuz-}
		[[ -f /lib/modules/$v/modules.dep || -d /lib/modules/$v/kernel ]] || continue
		[[ -z $1 ]] || in_series "$v" "$1" || continue
		if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
		if [[ -e /lib/modules/$v/build/Makefile ]] &&
			{ [[ -z $best_hdr ]] || dpkg --compare-versions "$v" gt "$best_hdr"; }; then
			best_hdr=$v
		fi
	done
	[[ -n ${best_hdr:-$best} ]] || return 1
	echo "${best_hdr:-$best}"
}

if [[ -n $spec ]]; then
	if [[ -r /boot/vmlinuz-$spec ]]; then
		echo "$spec"
		exit 0
	fi
	newest "$spec" && exit 0
	echo "kernel-version.sh: no installed kernel matches $spec" \
		"(tools/bootstrap.sh installs 6.1 and 6.12)" >&2
	exit 1
fi
newest 6.1 || newest "" || {
	echo "kernel-version.sh: no kernel with an image and modules (install linux-image-amd64)" >&2
	exit 1
}
