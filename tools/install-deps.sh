#!/usr/bin/env bash
# Installs, with apt-get, every Debian package that building and testing orbitc needs
# and that is not installed yet, and the packages named as arguments (the playground's:
# tools/install-playground-deps.sh). Safe to run again: it does nothing when all are
# present.
#
#   tools/install-deps.sh --build    only what building orbitc needs (tools/example.sh:
#                                    a newcomer does not wait for the test tools)
set -euo pipefail

build_only=false
if [ "${1:-}" = --build ]; then build_only=true; shift; fi

build_packages=(
  gcc meson ninja-build pkg-config    # build
  re2c bison                          # lexer and parser generators
  libutf8proc-dev                     # Unicode: XID, NFC, display width
  check                               # unit tests (meson setup looks for it)
  libjansson-dev                      # JSON
  python3 scdoc                       # generated sources; man pages (man/*.scd) to roff
)
packages=(
  "${build_packages[@]}"
  clang libclang-rt-dev               # clang builds the libFuzzer targets
  python3-jsonschema                  # golden harness, JSON Schema validation of output
  python3-pytest                      # the Python tests run under pytest (docs/test-suite.md)
  python3-yaml pre-commit patch git   # tests/cli/test_ci_doc.py: the jobs of docs/ci.md, the hooks
  neovim                              # a real editor for the language server's test
  groff-base man-db                   # the man-page test renders them (groff -ww -z, man -l)
  bash-completion zsh fish            # the completion tests run each shell
  emscripten nodejs                   # the engine core in WebAssembly, run by Node (hosts/wasm/)
  graphviz                            # `orbitc graph`'s test renders every golden graph (dot -Tsvg)
  librsvg2-bin                        # `orbit-run simulate`'s test renders its SVG plot (rsvg-convert)
  lcov                                # `orbitc test --coverage-format lcov` is rendered by genhtml
  libxml2-utils perl                  # `orbitc test`'s CI formats: xmllint --schema (JUnit), prove (TAP)
  debhelper dpkg-dev fakeroot lintian # the Debian packages (debian/), built and checked by tests/install/test_deb.py
  diffoscope-minimal                  # ... which explains a difference between two builds of them
  "$@"                                # what the caller adds
)

if $build_only; then packages=("${build_packages[@]}" "$@"); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
