#!/usr/bin/env bash
# The engine core in the one WebAssembly build, driven from Node through the conformance
# scenarios (tests/wasm/engine_conformance.mjs). Uses the module in ORBIT_PLAYGROUND_WASM
# when set, else builds it with tools/playground.sh --wasm (build-playground/wasm/: only
# what changed is rebuilt). Prints one line per scenario, then `N passed, N failed, N
# skipped`. Needs emcc and node (tools/install-playground-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wasm="${ORBIT_PLAYGROUND_WASM:-}"
if [ -z "$wasm" ]; then
  wasm=$("$root/tools/playground.sh" --wasm | tail -n 1)
fi
exec node "$here/engine_conformance.mjs" "$wasm"
