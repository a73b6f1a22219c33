#!/usr/bin/env bash
# Installs, with apt-get (through tools/install-deps.sh, with everything it installs),
# what building the playground needs and is not installed yet: Debian's emscripten
# (emcc, with its Node modules under /usr/share/nodejs) and dpkg-dev (apt-get source
# unpacks utf8proc's and jansson's Debian sources with it; tools/playground.sh fetches
# them). Safe to run again: it does nothing when all are present.
set -euo pipefail

packages=(
  emscripten                          # emcc 3.1.6: C to WebAssembly
  dpkg-dev                            # dpkg-source, for apt-get source
)
"$(dirname "$0")/install-deps.sh" "${packages[@]}"
