#!/usr/bin/env bash
# Installs what the Restate host needs (docs/restate.md): the npm packages of
# hosts/restate/package-lock.json (@restatedev/restate-sdk, and @restatedev/restate-server,
# whose package carries the server binary: about 225 MB, Business Source License 1.1) into
# hosts/restate/node_modules, and the engine core compiled to WebAssembly by
# hosts/wasm/build.sh into hosts/restate/build/ (needs emcc: tools/install-deps.sh).
# Safe to run again: it does nothing when both are up to date. Not part of the default
# set-up: tools/restate-test.sh and the meson suite `restate` run it.
set -euo pipefail
cd "$(dirname "$0")/.."

export SCARF_ANALYTICS=false    # the server package's install-time analytics (@scarf/scarf): off
tools/install-npm.sh hosts/restate

out=hosts/restate/build
stamp=$out/.orbit-sources-sha256
want=$(cat hosts/wasm/build.sh hosts/wasm/engine_wasm.c engine/*.[ch] bytecode/*.[ch] bytecode/*.def base/*.[ch] \
           runtime/history.[ch] | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
    hosts/wasm/build.sh "$out" >/dev/null
    echo "$want" > "$stamp"
fi
