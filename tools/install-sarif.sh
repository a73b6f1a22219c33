#!/usr/bin/env bash
# Installs the SARIF validators that the golden tests run on `orbitc check --format sarif`
# (tests/golden/golden.py): Microsoft's SARIF Multitool and the official SARIF 2.1.0 JSON schema
# it ships, from the npm package @microsoft/sarif-multitool-linux, pinned, into
# build-tools/sarif/ (git-ignored). Needs npm (installed with apt-get when missing).
# Safe to run again: it does nothing when the pinned version is there.
set -euo pipefail
cd "$(dirname "$0")/.."

package=@microsoft/sarif-multitool-linux
version=5.7.0
prefix=build-tools/sarif
dir=$prefix/node_modules/$package

installed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' \
    "$dir/package.json" 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
    if ! command -v npm >/dev/null; then
        echo "install-sarif: installing npm" >&2
        if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
    fi
    echo "install-sarif: installing $package@$version into $prefix" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error "$package@$version" >/dev/null
fi
# The package's postinstall script (which npm may skip) makes the tool executable.
chmod u+x "$dir/Sarif.Multitool"
test -f "$dir/sarif-2.1.0.json"
