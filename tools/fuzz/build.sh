#!/usr/bin/env bash
# Builds the libFuzzer targets into tools/fuzz/out/:
#   fuzz_check   bytes -> lex, parse, check, render human + JSON
#   fuzz_build   bytes -> check -> (if clean) lower, load, disassemble  (when it exists)
#   fuzz_loader  bytes -> bytecode loader + verifier + disassembler    (when it exists)
#   fuzz_scenario bytes -> runtime scenario parser, then a run          (when it exists)
# The project's libraries are compiled by meson (which also runs re2c and bison) in
# tools/fuzz/out/meson with clang, coverage instrumentation and ASan + UBSan; each target
# is then linked against them with -fsanitize=fuzzer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/out"
meson_dir="$out/meson"
mkdir -p "$out"

flags="-g -O1 -fno-omit-frame-pointer"
if [ ! -f "$meson_dir/build.ninja" ]; then
    CC=clang meson setup "$meson_dir" "$root" \
        -Dbuildtype=plain -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args="$flags -fsanitize=fuzzer-no-link" >/dev/null
fi

# Libraries, highest layer first, and the fuzz targets that exist.
libs=(compiler/liborbit_lower.a compiler/liborbit_check.a compiler/liborbit_front.a
      diagnostics/liborbit_diag.a liborbit_core.a runtime/liborbit_runtime.a bytecode/liborbc.a)
targets=(fuzz_check)
[ -f "$here/fuzz_build.c" ] && [ -f "$root/compiler/lower.h" ] && targets+=(fuzz_build)
[ -f "$here/fuzz_loader.c" ] && targets+=(fuzz_loader)
[ -f "$here/fuzz_scenario.c" ] && targets+=(fuzz_scenario)

if ! ninja -C "$meson_dir" "${libs[@]}" >"$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    echo "build.sh: building the libraries failed (log: $out/build.log)" >&2
    exit 1
fi

# The scenario target links only the runtime and the bytecode library, as orbit-run does
# (the runtime has its own small arena, whose names would clash with the compiler's).
target_libs() {  # target_libs TARGET -> library paths
    local lib
    if [ "$1" = fuzz_scenario ]; then
        echo "$meson_dir/runtime/liborbit_runtime.a $meson_dir/bytecode/liborbc.a"
        return
    fi
    for lib in "${libs[@]}"; do
        [ "$lib" = runtime/liborbit_runtime.a ] || echo -n "$meson_dir/$lib "
    done
}
includes=(-I"$root/compiler" -I"$root/diagnostics" -I"$root/bytecode"
          -I"$root/runtime" -I"$root" -I"$meson_dir/compiler")
system_libs=$(pkg-config --libs libutf8proc jansson)

status=0
for target in "${targets[@]}"; do
    if clang $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        "${includes[@]}" "$here/$target.c" \
        -Wl,--start-group $(target_libs "$target") -Wl,--end-group $system_libs -lm \
        -o "$out/$target" >"$out/$target.build.log" 2>&1; then
        echo "built $out/$target"
    else
        # A target whose layer is still a placeholder does not link yet: say so, go on.
        rm -f "$out/$target"
        echo "FAILED $target (log: $out/$target.build.log)" >&2
        grep -m3 -E "error" "$out/$target.build.log" >&2 || true
        status=1
    fi
done
exit $status
