#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# host_packages.sh - the Debian packages end to end, on the build host (root;
# run by tools/test-all.sh with the other host_*.sh selftests):
#   1. dpkg-buildpackage -us -uc -b builds xbridge and xbridge-dkms from a copy
#      of the tree (build-pkg/), and lintian finds no error or warning;
#   2. both packages install; DKMS builds and installs xbridge.ko for each test
#      kernel ($XBRIDGE_TEST_KERNELS, default 6.1 and 6.12);
#   3. each test kernel boots (tools/vm/run.sh shares the host root, so the
#      guest sees the DKMS-installed module) and plain `modprobe xbridge`
#      loads it; an xbridge link is created and removed; the module unloads;
#   4. the man pages render without warnings and the bash completion works;
#   5. dpkg --purge removes both packages and leaves no module, source tree,
#      DKMS state or tool behind.
# Prints a PASS/FAIL line per check and ends with "N passed, N failed".
set -uo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$SELFTESTS_DIR/.." && pwd)
cd "$repo" || exit 1
out=$repo/build-pkg
read -ra kernels <<<"${XBRIDGE_TEST_KERNELS:-6.1 6.12}"

if ((EUID != 0)); then
	echo "host_packages.sh: needs root (it installs packages)" >&2
	exit 1
fi
for tool in dpkg-buildpackage dh dh_dkms dkms lintian pandoc; do
	command -v "$tool" >/dev/null || {
		echo "host_packages.sh: $tool missing (tools/bootstrap.sh)" >&2
		exit 1
	}
done

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
purge() { dpkg --purge xbridge xbridge-dkms >"$out/purge.log" 2>&1; }

# Start clean: a previous run may have left the packages installed.
mkdir -p "$out"
installed xbridge || installed xbridge-dkms && purge

# 1. Build from a copy of the tree (the build writes ../*.deb next to it).
rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$out/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | grep -zv '^build' |
		tar --null -T - -cf - | tar -xf - -C "$out/src"
else
	tar --exclude='./build*' -cf - . | tar -xf - -C "$out/src"
fi
t0=$SECONDS
(cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/dpkg-buildpackage.log" 2>&1
status=$?
version=$(cd "$out/src" && dpkg-parsechangelog -SVersion)
deb_tools=$(ls "$out"/xbridge_"${version}"_*.deb 2>/dev/null)
deb_dkms=$(ls "$out"/xbridge-dkms_"${version}"_all.deb 2>/dev/null)
if ((status == 0)) && [[ -n $deb_tools && -n $deb_dkms ]]; then
	sizes="$(stat -c %s "$deb_tools") and $(stat -c %s "$deb_dkms") bytes"
	log_test "dpkg-buildpackage -us -uc -b builds xbridge and xbridge-dkms ($((SECONDS - t0)) s; $sizes)" 0
else
	tail -30 "$out/dpkg-buildpackage.log"
	log_test "dpkg-buildpackage -us -uc -b" 1 "status $status, see $out/dpkg-buildpackage.log"
	summary
	exit
fi

changes=$(ls "$out"/xbridge_"${version}"_*.changes)
lintian --fail-on error,warning --info "$changes" >"$out/lintian.log" 2>&1
status=$?
sed 's/^/    /' "$out/lintian.log"
log_test "lintian: no error or warning" "$status"

# The package contents.
check_contents() {
	local deb=$1 path missing="" listing
	listing=$(dpkg-deb -c "$deb")
	shift
	for path in "$@"; do
		grep -q " \./$path\$" <<<"$listing" || missing+=" $path"
	done
	log_test "${deb##*/} holds $*" "$([[ -z $missing ]]; echo $?)" "missing:$missing"
}
check_contents "$deb_tools" usr/sbin/xbridge usr/sbin/xnft usr/share/man/man8/xbridge.8.gz \
	usr/share/man/man8/xnft.8.gz usr/share/bash-completion/completions/xbridge
check_contents "$deb_dkms" "usr/src/xbridge-$version/dkms.conf" "usr/src/xbridge-$version/Kbuild" \
	"usr/src/xbridge-$version/xbridge_main.c" "usr/src/xbridge-$version/core/forward.cc"

# 2. Install; DKMS builds the module for every test kernel.
dpkg -i "$deb_tools" "$deb_dkms" >"$out/install.log" 2>&1
status=$?
((status == 0)) || tail -30 "$out/install.log"
log_test "dpkg -i xbridge xbridge-dkms" "$status"

kvers=()
for series in "${kernels[@]}"; do
	kver=$(tools/kernel-version.sh "$series") || { log_test "test kernel $series installed" 1; continue; }
	kvers+=("$kver")
	t0=$SECONDS
	# The postinst builds for the kernels DKMS picks; this makes sure of each.
	dkms install "xbridge/$version" -k "$kver" >"$out/dkms-$kver.log" 2>&1
	status=$?
	ko=$(modinfo -k "$kver" -n xbridge 2>/dev/null)
	if ((status != 0)); then
		tail -30 "$out/dkms-$kver.log"
		cat "/var/lib/dkms/xbridge/$version/build/make.log" 2>/dev/null | tail -30
	fi
	[[ $ko == */updates/dkms/xbridge.ko* ]] || status=1
	log_test "DKMS builds and installs xbridge.ko for $kver ($((SECONDS - t0)) s: ${ko:-none})" "$status"
done

# 3. Each kernel boots and loads the DKMS module with plain modprobe.
guest_check='set -e
modprobe xbridge
grep -q "^xbridge " /proc/modules
echo "guest: loaded $(modinfo -n xbridge)"
ip link add xbr0 type xbridge
ip link del xbr0
modprobe -r xbridge
! grep -q "^xbridge " /proc/modules
echo "guest: modprobe xbridge, link add/del, modprobe -r: ok"'
for kver in ${kvers[@]+"${kvers[@]}"}; do
	flock /tmp/xbridge-vm.lock tools/vm/run.sh -q --kernel "$kver" --log "$out/vm-$kver.log" \
		--timeout 600 -- bash -c "$guest_check"
	status=$?
	grep '^guest:' "$out/vm-$kver.log" | sed 's/^/    /'
	log_test "$kver boots and modprobe loads the DKMS xbridge.ko" "$status"
done

# 4. Man pages and completion, as installed.
for page in xbridge xnft; do
	warnings=$(man -l --warnings=w "/usr/share/man/man8/$page.8.gz" 2>&1 >/dev/null)
	rendered=$(MANWIDTH=80 man -l "/usr/share/man/man8/$page.8.gz" 2>/dev/null | head -5)
	status=0
	[[ -z $warnings && $rendered == *NAME* ]] || status=1
	log_test "man $page renders without warnings" "$status" "$warnings"
done
words=$(bash -c 'source /usr/share/bash-completion/completions/xbridge
	COMP_WORDS=(xbridge fdb ""); COMP_CWORD=2; _xbridge; echo "${COMPREPLY[*]}"')
log_test "bash completion: xbridge fdb <TAB> offers add ... flush" \
	"$([[ $words == *add*show*flush* ]]; echo $?)" "got: $words"

# 5. Purge: nothing left behind.
purge
status=$?
left=""
installed xbridge && left+=" xbridge(package)"
installed xbridge-dkms && left+=" xbridge-dkms(package)"
[[ -e /usr/sbin/xbridge ]] && left+=" /usr/sbin/xbridge"
compgen -G "/usr/src/xbridge-*" >/dev/null && left+=" /usr/src/xbridge-*"
[[ -e /var/lib/dkms/xbridge ]] && left+=" /var/lib/dkms/xbridge"
for kver in ${kvers[@]+"${kvers[@]}"}; do
	ko=$(find "/lib/modules/$kver" -name 'xbridge.ko*' 2>/dev/null)
	[[ -z $ko ]] || left+=" $ko"
done
[[ -z $left ]] || status=1
log_test "dpkg --purge leaves no package, module, source or DKMS state" "$status" "left:$left"

summary
