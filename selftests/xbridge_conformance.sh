#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xbridge_conformance.sh [MODULE.ko] - differential conformance: xbridge and
# the Linux bridge, configured identically in the same kernel, must do the
# same to every frame and end every step with the same FDB and VLAN table
# (selftests/conformance/, Documentation/conformance.md).
#
# Runs the hand-written corpus (selftests/conformance/corpus/*.scn, one
# scenario per rule of the Linux bridge behaviour xbridge mirrors) and
# $CONFORMANCE_GENERATED (default 100) generated scenarios of
# $CONFORMANCE_STEPS (default 24) steps from seed $CONFORMANCE_SEED
# (default 1), and $CONFORMANCE_NFT_GENERATED (default 100) generated nft
# scenarios (random small rulesets, compared through nft and xnft) of
# $CONFORMANCE_NFT_STEPS (default 20) steps from seed $CONFORMANCE_NFT_SEED
# (default 1), and $CONFORMANCE_CT_GENERATED (default 100) generated
# conntrack scenarios (flows through both bridges' connection tracking,
# the tables compared after every step) of $CONFORMANCE_CT_STEPS (default
# 16) steps from seed $CONFORMANCE_CT_SEED (default 1), and
# $CONFORMANCE_CT_FRAG_GENERATED (default 20) more with some IPv4 packets
# sent as fragments (gen-ct-seed-N-frag).
# CONFORMANCE_SOAK=SECONDS keeps generating for that long.
# Then the corpus again through the tools (`bridge`/`ip` and `xbridge`
# with the same words; CONFORMANCE_NO_TOOLS=1 skips it). Then offload mode
# (CONFORMANCE_NO_OFFLOAD=1 skips it): the corpus scenarios with nft steps,
# $CONFORMANCE_OFFLOAD_GENERATED (default 10) generated nft scenarios (of
# both, those with a TCP or UDP conversation: offload.has_conversation) and
# $CONFORMANCE_OFFLOAD_FLOWS (default 15) generated scenarios of
# conversations (offload.flow_scenario), seeds from
# $CONFORMANCE_OFFLOAD_SEED (default 1), again, xbridge's flowtable
# offloading every connection it may, against the Linux bridge without
# one; at least $CONFORMANCE_MIN_FLOW_HITS (default 250) frames must have
# been forwarded by flows. One PASS/FAIL line per scenario.
# TESTS=conformance_scenarios, TESTS=conformance_tools or
# TESTS=conformance_offload runs one of the three passes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

cleanup() {
	bash "$here/conformance/topology.sh" down >/dev/null 2>&1
}
trap cleanup EXIT

if ! bash "$here/conformance/topology.sh" up; then
	log_test "conformance topology (lbr, xbr, 2 x 8 hosts)" 1
	summary
	exit 1
fi

args=(--corpus "$here/conformance/corpus"
	--generate "${CONFORMANCE_GENERATED:-100}"
	--seed "${CONFORMANCE_SEED:-1}"
	--steps "${CONFORMANCE_STEPS:-24}"
	--generate-nft "${CONFORMANCE_NFT_GENERATED:-100}"
	--nft-seed "${CONFORMANCE_NFT_SEED:-1}"
	--nft-steps "${CONFORMANCE_NFT_STEPS:-20}"
	--generate-ct "${CONFORMANCE_CT_GENERATED:-100}"
	--ct-seed "${CONFORMANCE_CT_SEED:-1}"
	--ct-steps "${CONFORMANCE_CT_STEPS:-16}"
	--generate-ct-frags "${CONFORMANCE_CT_FRAG_GENERATED:-20}")
[[ -n ${CONFORMANCE_SOAK:-} ]] && args+=(--soak "$CONFORMANCE_SOAK")

# conformance.py prints its own PASS/FAIL lines; a crash of the harness
# itself (status other than 0/1) is one more failure.
run() {
	python3 "$here/conformance/conformance.py" "$@"
	local status=$?
	if ((status > 1)); then
		log_test "conformance harness ran to the end ($*)" 1 "exit status $status"
		return 1
	fi
	return $status
}

# The generated and hand-written scenarios through the harness's netlink.
conformance_scenarios() {
	run "${args[@]}" || status=1
}

# The corpus once more, configured through the command-line tools with the
# scenario's own words: iproute2 for the Linux bridge, xbridge's tool for
# xbridge (one process a step, so only the corpus).
conformance_tools() {
	[[ -z ${CONFORMANCE_NO_TOOLS:-} ]] || return 0
	run --tools --corpus "$here/conformance/corpus" --name-suffix " via tools" ||
		status=1
}

# The flowtable must be invisible (Documentation/conformance.md, offload
# mode): the nft scenarios once more with xbridge offloading.
conformance_offload() {
	[[ -z ${CONFORMANCE_NO_OFFLOAD:-} ]] || return 0
	run --offload --corpus "$here/conformance/corpus" \
		--generate-nft "${CONFORMANCE_OFFLOAD_GENERATED:-10}" \
		--generate-flows "${CONFORMANCE_OFFLOAD_FLOWS:-15}" \
		--nft-seed "${CONFORMANCE_OFFLOAD_SEED:-1}" \
		--nft-steps "${CONFORMANCE_NFT_STEPS:-20}" \
		--min-flow-hits "${CONFORMANCE_MIN_FLOW_HITS:-250}" || status=1
}

ALL_TESTS="
	conformance_scenarios
	conformance_tools
	conformance_offload
"

status=0
tests_run
((FAILED == 0)) || status=1
exit $status
