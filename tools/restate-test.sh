#!/usr/bin/env bash
# The Restate host against a real restate-server (docs/restate.md, "Tests"): installs what
# it needs (tools/install-restate.sh), builds orbitc and orbit-run in build/ if they are
# missing, then runs tests/restate/restate-test.mjs, which starts and stops its own
# restate-server on free loopback ports in a temporary directory (telemetry off), bounds
# every wait, prints one line per case and `N passed, N failed` last.
#   tools/restate-test.sh [--only NAME]...
# ORBITC and ORBIT_RUN name other binaries (the meson suite `restate` passes its build's).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-restate.sh
if [ -z "${ORBITC:-}" ] || [ -z "${ORBIT_RUN:-}" ]; then
    if [ ! -x build/cli/orbitc ] || [ ! -x build/runtime/orbit-run ]; then
        [ -f build/build.ninja ] || meson setup build >/dev/null
        ninja -C build -j2 cli/orbitc runtime/orbit-run >/dev/null
    fi
fi
exec node tests/restate/restate-test.mjs "$@"
