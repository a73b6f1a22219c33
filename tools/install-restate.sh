#!/usr/bin/env bash
# Installs what the Restate host needs (docs/restate.md): the npm packages of
# hosts/restate/package-lock.json (@restatedev/restate-sdk, and @restatedev/restate-server,
# whose package carries the server binary: about 225 MB, Business Source License 1.1) into
# hosts/restate/node_modules, and the one WebAssembly build of the engine core and the
# toolchain, by tools/playground.sh --wasm into build-playground/wasm/ (needs emcc:
# tools/install-playground-deps.sh, which it runs).
# Safe to run again: it does nothing when both are up to date. Not part of the default
# set-up: tools/restate-test.sh and the meson suite `restate` run it.
set -euo pipefail
cd "$(dirname "$0")/.."

export SCARF_ANALYTICS=false    # the server package's install-time analytics (@scarf/scarf): off
tools/install-npm.sh hosts/restate

tools/playground.sh --wasm >/dev/null   # build-playground/wasm/: rebuilds only what changed
