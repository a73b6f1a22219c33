#!/usr/bin/env bash
# Installs the npm packages of the editor tests from the committed lock file: the VS Code
# extension's (editors/vscode/package-lock.json: vscode-textmate and vscode-oniguruma for
# the grammar's test, and what type-checks, bundles and packages the extension) into
# editors/vscode/node_modules/ (git-ignored), with `npm ci`. Needs npm (installed with
# apt-get when missing) and Node.js 20 or later. Safe to run again: it does nothing when
# the installed packages are those of the lock file. Building and checking programs never
# needs them (tools/example.sh does not run this).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=editors/vscode
stamp=$dir/node_modules/.orbit-lock-sha256
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; then
    exit 0
fi
if ! command -v npm >/dev/null; then
    echo "install-npm: installing npm" >&2
    if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm >/dev/null
fi
echo "install-npm: installing $dir/package-lock.json into $dir/node_modules" >&2
npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
echo "$want" > "$stamp"
