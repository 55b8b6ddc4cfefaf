#!/bin/bash
# kernel-version.sh - print the version of the test kernel: the newest
# installed kernel that has an image in /boot, modules and build headers.
set -euo pipefail
best=""
for img in /boot/vmlinuz-*; do
	v="${img#/boot/vmlinuz-}"
	[[ -d "/lib/modules/$v/kernel" && -e "/lib/modules/$v/build/Makefile" ]] || continue
	if [[ -z "$best" ]] || dpkg --compare-versions "$v" gt "$best"; then
		best="$v"
	fi
done
[[ -n "$best" ]] || { echo "kernel-version.sh: no kernel with image, modules and headers" >&2; exit 1; }
echo "$best"
