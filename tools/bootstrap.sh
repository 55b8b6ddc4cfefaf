#!/bin/bash
# Install, from Debian 12's packages, everything xbridge needs to build and test.
# Idempotent: only packages that are missing are installed. Needs root.
set -euo pipefail

packages=(
	build-essential g++ clang libclang-rt-14-dev lld
	meson ninja-build pkg-config
	catch2 libboost-dev liburcu-dev
	binutils python3 jq
	qemu-system-x86 busybox-static
	# the two test kernels: Debian 12's 6.1 and bookworm's 6.12 (from
	# bookworm-security); dwarves' pahole writes 6.12's module BTF
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64 dwarves
	kmod iproute2 iputils-ping cpio xz-utils zstd
	# the debug test kernel (tools/vm/build-debug-kernel.sh): Debian's 6.1
	# source and what building it takes
	linux-source-6.1 flex bison bc libelf-dev libssl-dev
	valgrind
	libnl-3-dev libnl-genl-3-dev libnl-utils
	libnftnl-dev libmnl-dev nftables conntrack
	# tools/bench-flowtable.sh's TCP stream (the guest runs the host's binary)
	iperf3
	# the bridge device's offload features (tools/bench-host-tcp.sh)
	ethtool
	# Debian packaging (debian/, selftests/host_packages.sh) and the man page
	dpkg-dev debhelper dh-dkms dkms lintian fakeroot pandoc bash-completion
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if ((${#missing[@]})); then
	echo "bootstrap: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
	echo "bootstrap: all packages present"
fi
