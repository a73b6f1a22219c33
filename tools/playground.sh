#!/usr/bin/env bash
# Builds the Orbit playground (docs/playground.md): the toolchain compiled to WebAssembly
# with its API (playground/api.c, playground/orbit-api.js) and the static page, into
# build-playground/site/ (PLAYGROUND_DIR overrides build-playground/). Prints the site's
# folder on its last line. Installs what is missing first
# (tools/install-playground-deps.sh, with tools/install-deps.sh). Safe to run again:
# only what changed is rebuilt.
#
#   tools/playground.sh            everything
#   tools/playground.sh --wasm     the WebAssembly module and its API only
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${PLAYGROUND_DIR:-$root/build-playground}" && cd "${PLAYGROUND_DIR:-$root/build-playground}" && pwd)
only_wasm=false
[ "${1:-}" = "--wasm" ] && only_wasm=true

"$root/tools/install-playground-deps.sh"   # and tools/install-deps.sh's packages

# ---- wasm ----
# The WebAssembly module: orbit.js (emscripten's ES module) and orbit.wasm, with the API
# of playground/api.h, in $out/wasm/. Debian's emscripten finds its Node modules under
# /usr/share/nodejs; its libraries come built (a frozen cache). Build output goes to
# standard error: standard output's last line is the folder.
export NODE_PATH=/usr/share/nodejs

# 1. The generated C sources (re2c's lexer, bison's parser, the embedded standard
#    library) from a native build of our own.
native="$out/native"
if [ ! -f "$native/build.ninja" ]; then
  meson setup "$native" "$root" --buildtype=release >&2
fi
mapfile -t generated < <(python3 "$root/tools/playground_wasm.py" --native "$native" --generated)
ninja -C "$native" "${generated[@]}" >&2

# 2. utf8proc and jansson from Debian's own sources (apt-get source), fetched once with
#    a deb-src list of our own, so the system's apt configuration is not touched.
third_party="$out/third-party"
if ! compgen -G "$third_party/utf8proc-*/utf8proc.c" >/dev/null \
   || ! compgen -G "$third_party/jansson-*/src/jansson.h" >/dev/null; then
  apt_dir="$out/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$third_party"
  codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $codename main" \
    > "$apt_dir/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
               -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
               -o APT::Sandbox::User=root -qq)
  apt-get "${apt_options[@]}" update >&2
  (cd "$third_party" && apt-get "${apt_options[@]}" source utf8proc jansson >&2)
fi

# 3. Every C file compiled with emcc and linked (tools/playground_wasm.py writes the
#    ninja file from the native build's own lists of sources and flags).
python3 "$root/tools/playground_wasm.py" --native "$native" --third-party "$third_party" \
  --out "$out/wasm" --opt="${PLAYGROUND_OPT:--Os}"
ninja -C "$out/wasm" >&2
cp "$root/playground/orbit-api.js" "$out/wasm/orbit-api.js"

if $only_wasm; then
  echo "$out/wasm"
  exit 0
fi

# ---- page ----
# The page (playground/: index.html, playground.css, src/*.js on CodeMirror 6), bundled
# with esbuild by playground/build.mjs into $out/site, with orbit.js, orbit.wasm and
# orbit-api.js copied beside it; the size of each file (raw, gzip -9) on stderr.
site="$out/site"
node "$root/playground/build.mjs" --out "$site" --wasm "$out/wasm" >&2

echo "$site"
