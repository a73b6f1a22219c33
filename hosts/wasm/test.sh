#!/usr/bin/env bash
# Builds the engine core to WebAssembly in a temporary directory and runs test.mjs: the
# conformance scenarios through the wasm core, driven from Node. Prints one line per
# scenario, then `N passed, N failed, N skipped`. Needs emcc and node (tools/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
"$here/build.sh" "$dir" >/dev/null
node "$here/test.mjs" "$dir"
