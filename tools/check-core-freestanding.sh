#!/bin/bash
# check-core-freestanding.sh - check that the core sources are kernel-safe.
#
# Compiles each given core source with g++ and the x86_64 code-generation
# flags of Debian's 6.1 kernel (taken from a `make V=1` module build with
# gcc 12), then fails on:
#   (a) any undefined symbol of their relocatable link (ld -r; references
#       between core files resolve there) other than: memcpy memset memmove memcmp, the xb_* functions
#       declared in core/platform.h, __stack_chk_fail, __fentry__,
#       __x86_indirect_thunk_*, __x86_return_thunk. Anything else (operator
#       new, __cxa_*, libc, libstdc++) would not resolve in the kernel;
#   (b) any .init_array/.ctors/.fini_array/.dtors section (global
#       constructors or destructors), .eh_frame/.gcc_except_table (unwind
#       tables, exceptions) or .tbss/.tdata (thread-local storage).
# and prints a one-line summary.
#
# Usage: tools/check-core-freestanding.sh [--headers DIR] FILE.cc...
#   --headers DIR  also compile every DIR/*.h on its own (except
#                  platform_user.h): headers must be self-contained and
#                  build with the kernel flags. DIR/platform.h is where the
#                  xb_* allowlist is read from (default: core/ beside this
#                  script).
# Example: tools/check-core-freestanding.sh --headers core \
#              $(ls core/*.cc | grep -v platform_user.cc)
# Environment: KERNEL_CXX (default g++) is the compiler used.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
core_dir="$here/../core"
headers=0
sources=()
while (($#)); do
	case "$1" in
	--headers) headers=1; core_dir=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) sources+=("$1"); shift ;;
	esac
done
if ((${#sources[@]} == 0 && headers == 0)); then
	echo "usage: $0 [--headers DIR] FILE.cc..." >&2
	exit 2
fi

cxx=${KERNEL_CXX:-g++}

# Debian 6.1 / gcc 12 KBUILD_CFLAGS for x86_64 modules, minus the C-only
# flags (-std=gnu11, C-only warnings), the include/-nostdinc plumbing and
# -g, plus what a C++ object needs (as kmod-shim's Kbuild rule uses).
kernel_flags=(
	-std=gnu++20 -ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics
	-O2 -m64 -mcmodel=kernel -mno-red-zone -fno-PIE -fno-common
	-mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387 -mno-fp-ret-in-387
	-mpreferred-stack-boundary=3 -mskip-rax-setup -mtune=generic
	-falign-jumps=1 -falign-loops=1 -fconserve-stack
	-fno-asynchronous-unwind-tables -fno-jump-tables -fcf-protection=none
	-fno-strict-aliasing -fno-strict-overflow -fno-delete-null-pointer-checks
	-fno-allow-store-data-races -fno-stack-check -fno-stack-clash-protection
	-fstack-protector-strong -ftrivial-auto-var-init=zero -fshort-wchar
	-mindirect-branch=thunk-extern -mindirect-branch-register
	-mindirect-branch-cs-prefix -mfunction-return=thunk-extern -mharden-sls=all
	-pg -mfentry -mrecord-mcount
	-Wall -Wundef -Wimplicit-fallthrough=5 -Werror=implicit-fallthrough
	-Werror=return-type -Werror=vla -Werror=date-time
	-Werror=frame-larger-than=2048
	-D__KERNEL_BUILD_CHECK__
	-I "$core_dir"
)

platform_h="$core_dir/platform.h"
if [[ ! -r $platform_h ]]; then
	echo "check-core-freestanding: cannot read $platform_h" >&2
	exit 2
fi
# Every function platform.h declares: "name(" directly after the return type.
mapfile -t platform_syms < <(grep -oE '\bxb_[a-z0-9_]+\(' "$platform_h" |
	tr -d '(' | sort -u)
allowed_exact=" memcpy memset memmove memcmp __stack_chk_fail __fentry__ __x86_return_thunk ${platform_syms[*]} "
is_allowed() {
	[[ $allowed_exact == *" $1 "* || $1 == __x86_indirect_thunk_* ]]
}
forbidden_sections='^(\.init_array|\.ctors|\.fini_array|\.dtors|\.eh_frame|\.gcc_except_table|\.tbss|\.tdata)($|\.)'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

inputs=("${sources[@]}")
if ((headers)); then
	for h in "$core_dir"/*.h; do
		[[ $(basename "$h") == platform_user.h ]] || inputs+=("$h")
	done
fi

status=0
objects=()
n_src=0 n_hdr=0
for src in "${inputs[@]}"; do
	obj="$tmp/$(basename "$src").${#objects[@]}.o"
	lang=()
	if [[ $src == *.h ]]; then
		lang=(-x c++)
		n_hdr=$((n_hdr + 1))
	else
		n_src=$((n_src + 1))
	fi
	if ! "$cxx" "${kernel_flags[@]}" "${lang[@]}" -c "$src" -o "$obj"; then
		echo "FAIL: $src does not compile with the kernel flags" >&2
		status=1
		continue
	fi
	objects+=("$obj")
	printf '%s\n' "$src" >"$obj.src"
done

bad_syms=0 bad_sects=0
for obj in "${objects[@]}"; do
	while read -r sect; do
		echo "FAIL: $(cat "$obj.src"): forbidden section $sect" >&2
		bad_sects=$((bad_sects + 1))
	done < <(readelf -SW "$obj" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p' |
		grep -E "$forbidden_sections" || true)
done

# Undefined symbols of the relocatable link: what the core as a whole needs
# from outside (references between core files resolve). ld -r also fails on
# a symbol defined in two files.
if ((${#objects[@]})); then
	if ld -r -o "$tmp/core-all.o" "${objects[@]}"; then
		while read -r sym; do
			is_allowed "$sym" && continue
			users=()
			for obj in "${objects[@]}"; do
				nm -u --format=just-symbols "$obj" | grep -qxF "$sym" &&
					users+=("$(cat "$obj.src")")
			done
			echo "FAIL: undefined symbol $(echo "$sym" | c++filt) [$sym]," \
				"used by ${users[*]}" >&2
			bad_syms=$((bad_syms + 1))
		done < <(nm -u --format=just-symbols "$tmp/core-all.o" | sort -u)
	else
		echo "FAIL: ld -r of the core objects failed" >&2
		status=1
	fi
fi

((bad_syms || bad_sects)) && status=1
verdict=$([[ $status == 0 ]] && echo OK || echo FAIL)
echo "core-freestanding: $verdict: ${#objects[@]} objects checked" \
	"($n_src sources, $n_hdr headers), $bad_syms forbidden symbols," \
	"$bad_sects forbidden sections"
exit $status
