#!/usr/bin/env bash
# Builds orbitc's npm packages (docs/install.md, "npm") as tarballs into OUT:
#   tools/npm-pack.sh OUT [--native STATIC_ORBITC] [--wasm DIR]
# - orbitc-VERSION.tgz: the launcher, the JavaScript API and the one WebAssembly build
#   (DIR, else tools/playground.sh --wasm makes it in build-playground/wasm);
# - orbitc-cli-linux-x64-VERSION.tgz: the static orbitc, stripped (STATIC_ORBITC, else
#   built here in build-static/ with -Dstatic=true, as docs/install.md says).
# Each carries LICENSE and THIRD_PARTY_NOTICES (tools/notices.py: what it holds of
# others'). The package.json files are tools/npm_packages.py's, at meson.build's version. Prints
# each tarball's path and size. Needs npm, and what tools/install-deps.sh installs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

[ $# -ge 1 ] || { echo "usage: tools/npm-pack.sh OUT [--native STATIC_ORBITC] [--wasm DIR]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd); shift
native= wasm=
while [ $# -gt 0 ]; do
    case $1 in
        --native) native=$(realpath "$2"); shift 2 ;;
        --wasm) wasm=$(realpath "$2"); shift 2 ;;
        *) echo "tools/npm-pack.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ -z "$wasm" ]; then
    wasm=$("$root/tools/playground.sh" --wasm | tail -n 1)
fi
if [ -z "$native" ]; then
    static=$root/build-static
    [ -f "$static/build.ninja" ] || \
        meson setup "$static" "$root" -Dstatic=true -Dtests=false -Dbuildtype=release >&2
    ninja -C "$static" cli/orbitc >&2
    native=$static/cli/orbitc
fi
strip -o "$work/orbitc" "$native"

python3 "$root/tools/npm_packages.py" --wasm "$wasm" --native "$work/orbitc" --out "$work/stage" >/dev/null
for package in "$work"/stage/*/; do
    # npm pack: the files' dates fixed (1985-10-26), so the same files give the same bytes
    (cd "$package" && npm pack --silent --pack-destination "$out" >/dev/null)
done
for tarball in "$out"/*.tgz; do
    printf '%s %d\n' "$tarball" "$(stat -c %s "$tarball")"
done
