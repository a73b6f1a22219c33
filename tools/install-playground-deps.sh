#!/usr/bin/env bash
# Installs what the playground (docs/playground.md) needs to be built and tested and
# that is not installed yet. Safe to run again: it does nothing when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
apt_install() {  # apt_install PACKAGE... : the Debian packages that are missing
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "install-playground-deps: installing ${missing[*]}" >&2
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

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
