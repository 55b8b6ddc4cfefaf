#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness.sh [CONFORMANCE.PY ARGS...] - the harness alone, without the
# suite's passes: topology.sh up, conformance.py with the arguments given,
# topology.sh down; exits with conformance.py's status. For replaying a
# scenario or running a few seeds in the test kernel, e.g.
#   tools/vm/run.sh --module build-kmod/xbridge.ko -- \
#       selftests/conformance/harness.sh --replay FILE
#   ... harness.sh --quiet --generate-ct 100 --ct-seed 1
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/topology.sh" up >/dev/null || { echo "harness.sh: topology up failed" >&2; exit 1; }
python3 "$here/conformance.py" "$@"
rc=$?
bash "$here/topology.sh" down >/dev/null 2>&1
exit $rc
