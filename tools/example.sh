#!/usr/bin/env bash
# The main job on the bundled example, from a fresh Debian machine: installs what is
# missing, builds orbitc, checks examples/, runs its tests with their coverage, builds it to
# bytecode and disassembles it.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh --build     # only what the build needs; tools/test.sh installs the rest
if [ -f build/build.ninja ]; then meson setup --reconfigure build >/dev/null; else meson setup build >/dev/null; fi
ninja -C build >/dev/null

set -x
build/cli/orbitc check examples/
build/cli/orbitc test --coverage examples/
build/cli/orbitc build examples/ -o build/checkout.orbc
build/cli/orbitc dis build/checkout.orbc
