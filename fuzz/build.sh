#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/meson.build) with clang, coverage
# instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer, in the meson build
# directory build-fuzz/ (or $FUZZ_BUILD). fuzz/run.sh runs them from there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${FUZZ_BUILD:-$root/build-fuzz}"
options=(-Dfuzz=true -Dbuildtype=plain -Db_sanitize=address,undefined -Db_lundef=false
         "-Dc_args=-g -O1 -fno-omit-frame-pointer")
if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "${options[@]}" >/dev/null
else
    CC=clang meson setup "$dir" "$root" "${options[@]}" >/dev/null
fi
ninja -C "$dir" fuzz/fuzz_check fuzz/fuzz_build fuzz/fuzz_graph fuzz/fuzz_loader \
    fuzz/fuzz_scenario fuzz/fuzz_model fuzz/fuzz_replay fuzz/fuzz_lsp fuzz/fuzz_fmt fuzz/fuzz_fix \
    fuzz/fuzz_playground fuzz/fuzz_test >/dev/null
echo "built the fuzz targets in $dir/fuzz/"
