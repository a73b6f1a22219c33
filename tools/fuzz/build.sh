#!/usr/bin/env bash
# Builds the libFuzzer targets (tools/fuzz/meson.build) with clang, coverage
# instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer, in the meson build
# directory build-fuzz/ (or $FUZZ_BUILD). tools/fuzz/run.sh runs them from there.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${FUZZ_BUILD:-$root/build-fuzz}"
options=(-Dfuzz=true -Dbuildtype=plain -Db_sanitize=address,undefined -Db_lundef=false
         "-Dc_args=-g -O1 -fno-omit-frame-pointer")
if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "${options[@]}" >/dev/null
else
    CC=clang meson setup "$dir" "$root" "${options[@]}" >/dev/null
fi
ninja -C "$dir" tools/fuzz/fuzz_check tools/fuzz/fuzz_build tools/fuzz/fuzz_loader \
    tools/fuzz/fuzz_scenario tools/fuzz/fuzz_lsp tools/fuzz/fuzz_fmt tools/fuzz/fuzz_fix >/dev/null
echo "built the fuzz targets in $dir/tools/fuzz/"
