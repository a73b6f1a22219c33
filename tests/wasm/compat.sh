#!/usr/bin/env bash
# orbit.compat in the one WebAssembly build against orbitc compat (tests/wasm/compat.mjs).
# Uses the module in ORBIT_PLAYGROUND_WASM when set, else builds it with
# tools/playground.sh --wasm; ORBITC is the orbitc under test. Needs emcc and node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wasm="${ORBIT_PLAYGROUND_WASM:-}"
if [ -z "$wasm" ]; then
  wasm=$("$root/tools/playground.sh" --wasm | tail -n 1)
fi
exec node "$here/compat.mjs" "$wasm" "${ORBITC:-$root/build/cli/orbitc}"
