#!/bin/bash
# demo.sh - the main job: build xbridge (release, no sanitizers) into build/
# and run the demo, tools/xbridge-demo. Installs build dependencies first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tools/bootstrap.sh

if [[ -f build/meson-private/coredata.dat ]]; then
	meson setup --reconfigure build --buildtype=release -Db_sanitize=none
else
	rm -rf build
	meson setup build --buildtype=release -Db_sanitize=none
fi
meson compile -C build

if [[ -x build/tools/xbridge-demo ]]; then
	exec build/tools/xbridge-demo "$@"
fi
echo "demo.sh: build/tools/xbridge-demo is not built yet (tools/demo.cc does not exist)"
