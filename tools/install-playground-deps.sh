#!/usr/bin/env bash
# Installs what the playground (docs/playground.md) needs to be built and tested and
# that is not installed yet. Safe to run again: it does nothing when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {  # apt_install PACKAGE... : the Debian packages that are missing, with
    tools/install-deps.sh "$@"   # tools/install-deps.sh's own (the playground builds on them)
}

# ---- wasm ----
# Debian's emscripten (emcc 3.1.6, with its Node modules under /usr/share/nodejs), and
# dpkg-dev: apt-get source unpacks utf8proc's and jansson's Debian sources with it
# (tools/playground.sh fetches them).
apt_install emscripten dpkg-dev

# ---- page ----
# The page's npm packages (CodeMirror 6, esbuild; puppeteer-core for the browser tests)
# from the committed playground/package-lock.json into playground/node_modules/
# (git-ignored), and Debian's chromium, the browser the tests drive.
apt_install chromium
command -v npm >/dev/null || apt_install npm   # NodeSource's nodejs brings its own npm
if ! (cd playground && npm ls --omit=optional >/dev/null 2>&1); then
    echo "install-playground-deps: npm ci in playground/" >&2
    (cd playground && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
