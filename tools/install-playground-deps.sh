#!/usr/bin/env bash
# Installs, with apt-get, what building the playground's WebAssembly needs and is not
# installed yet: Debian's emscripten (emcc, with its Node modules under /usr/share/nodejs)
# and dpkg-dev (apt-get source unpacks utf8proc's and jansson's Debian sources with it;
# tools/playground.sh fetches them). Safe to run again: it does nothing when all are present.
set -euo pipefail

packages=(
  emscripten                          # emcc 3.1.6: C to WebAssembly
  dpkg-dev                            # dpkg-source, for apt-get source
  gzip                                # the size report (gzip -9)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-playground-deps: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
