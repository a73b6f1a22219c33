#!/usr/bin/env bash
# orbit-run replay through the one WebAssembly build (tests/wasm/replay.mjs) against the
# native ORBIT_RUN (the first argument). Uses the module in ORBIT_PLAYGROUND_WASM when set,
# else builds it with tools/playground.sh --wasm. Needs emcc and node.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
wasm="${ORBIT_PLAYGROUND_WASM:-}"
if [ -z "$wasm" ]; then
  wasm=$("$root/tools/playground.sh" --wasm | tail -n 1)
fi
exec node "$here/replay.mjs" "$wasm" "$1"
