#!/usr/bin/env bash
# Builds every release artefact into dist/, each one tested as it is built, with their
# SHA-256 checksums in dist/SHA256SUMS (docs/install.md, "Making a release"):
#   tools/release.sh
# - the Debian packages orbitc, liborbc1, liborbc-dev (and their -dbgsym .ddebs):
#   tests/install/test_deb.py builds them twice (the same bytes), runs lintian, installs
#   and purges them in a throwaway root, and keeps the first build's in dist/;
# - the static binary, orbitc and orbit-run in dist/orbitc-VERSION-ARCH-linux-static.tar.gz:
#   tests/install/test_static.py builds them (-Dstatic=true), runs them in an empty
#   chroot against build/'s, and packs them stripped with LICENSE and THIRD_PARTY_NOTICES
#   (a tarball of fixed dates and owners: the same bytes from the same commit);
# - the npm packages orbitc-VERSION.tgz and orbitc-cli-linux-x64-VERSION.tgz:
#   tests/install/test_npm.py packs them (tools/npm-pack.sh) and tests them.
# Needs root (chroot), the packages of tools/install-deps.sh and tools/install-npm.sh, and build/ (made if missing:
# the dynamic programs the static ones are compared with, and meson's project version).
set -euo pipefail
cd "$(dirname "$0")/.."

[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build cli/orbitc runtime/orbit-run >/dev/null
version=$(meson introspect --projectinfo build | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
arch=$(uname -m)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -STimestamp)}

rm -rf dist
mkdir -p dist
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- the Debian packages ----
/usr/bin/python3 tests/install/test_deb.py --meson meson --builddir build --keep dist

# ---- the static binary ----
# test_static.py packs the tarball it tested: the programs stripped, LICENSE and
# THIRD_PARTY_NOTICES (tools/notices.py: glibc, libgcc, jansson and utf8proc are inside).
/usr/bin/python3 tests/install/test_static.py --orbitc build/cli/orbitc \
    --orbit-run build/runtime/orbit-run --keep "$work/static"
mv "$work/static/orbitc-$version-$arch-linux-static.tar.gz" dist/

# ---- the npm packages ----
# orbitc (the launcher, the API, the one WebAssembly build, made or brought up to date
# here) and @orbitc/cli-linux-x64 (the static orbitc just tested): tools/npm-pack.sh packs
# them into dist/ from tests/install/test_npm.py, which installs them offline and compares
# them with build/'s orbitc, natively and in WebAssembly, and runs the pre-commit hooks and
# the GitHub Action on them.
wasm=$(tools/playground.sh --wasm | tail -n 1)
/usr/bin/python3 tests/install/test_npm.py --orbitc build/cli/orbitc --wasm "$wasm" \
    --native "$work/static/orbitc" --keep dist

# ---- the checksums, and what was made ----
(cd dist && sha256sum -- * >SHA256SUMS)
echo "dist/ (version $version):"
(cd dist && for f in *; do printf '  %-48s %10d bytes\n' "$f" "$(stat -c %s "$f")"; done)
