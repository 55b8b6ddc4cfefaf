#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bug-demo.sh - check that the conformance harness catches a forwarding bug.
#
# Applies bug-demo-isolated.patch (flooding ignores the `isolated` port
# flag) to a scratch worktree of HEAD under build-bugdemo/, builds that
# xbridge.ko, and runs the conformance suite (corpus + 20 generated
# scenarios) against it in the test kernel. Prints the FAIL lines; exits 0
# if the harness failed scenarios (the bug was caught), 1 if it did not.
# Run on the host, from anywhere in the repo; not part of test-all.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
dir=build-bugdemo
tree=$dir/tree
git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
mkdir -p "$dir"
git worktree add -q --detach "$tree" HEAD
git -C "$tree" apply "$repo/selftests/conformance/bug-demo-isolated.patch"
kver=$(tools/vm/run.sh --print-kernel)
bash "$tree/kmod-shim/build.sh" "$dir/kmod" "$kver" >"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log"; exit 2; }
tools/vm/run.sh -q --timeout 1200 --module "$dir/kmod/xbridge.ko" \
	--env CONFORMANCE_GENERATED=20 --log "$dir/vm.log" -- \
	selftests/xbridge_conformance.sh >/dev/null 2>&1 || true
git worktree remove --force "$tree"
grep -E '^FAIL:' "$dir/vm.log" || true
fails=$(grep -c '^FAIL:' "$dir/vm.log" || true)
echo "bug-demo: the harness failed $fails scenarios against the deliberately broken module"
((fails > 0))
