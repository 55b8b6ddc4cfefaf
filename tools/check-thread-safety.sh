#!/bin/bash
# check-thread-safety.sh - the core's lock rules, checked by the compiler:
# compile each given core source with clang++ and -Wthread-safety
# -Werror=thread-safety (core/thread_safety.h: the writer lock is a
# capability, guarded fields, XB_REQUIRES), syntax only, and print a
# one-line summary. Exit 1 on any finding (printed), 77 (meson's skip)
# without clang++.
#
# Usage: tools/check-thread-safety.sh FILE.cc...
# Environment: TSA_CXX (default clang++) is the compiler used.
set -uo pipefail

cxx=${TSA_CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then
	echo "check-thread-safety: no $cxx, skipped"
	exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
flags=(-std=c++20 -fsyntax-only -fno-exceptions -fno-rtti
	-Wthread-safety -Wthread-safety-beta -Werror=thread-safety -I"$here/../core")

# First, that the check can fail: a guarded field written without its lock
# must be refused (else the macros expand to nothing and all passes).
probe='#include "compiler.h"
struct P { xb_lock *l; int v XB_GUARDED_BY(l); };
void f(P &p) { p.v = 1; }
void g(P &p) { xb::LockGuard guard(p.l); p.v = 2; }'
if "$cxx" "${flags[@]}" -x c++ - <<<"$probe" 2>/dev/null; then
	echo "check-thread-safety: an unlocked write of a guarded field compiled: the analysis is off"
	exit 1
fi
bad=0
for f in "$@"; do
	if ! "$cxx" "${flags[@]}" "$f"; then
		bad=$((bad + 1))
	fi
done
echo "check-thread-safety: $# sources, $bad with findings"
((bad == 0))
