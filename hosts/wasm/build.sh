#!/usr/bin/env bash
# Compiles the engine core (engine/), liborbc (bytecode/), what they need of base/, and
# orbit-run's history writer, with the shim hosts/wasm/engine_wasm.c, to WebAssembly with
# Debian's emscripten: OUT_DIR/orbit_engine.cjs (a CommonJS module whose export is a factory) and
# OUT_DIR/orbit_engine.wasm. Usage: hosts/wasm/build.sh [OUT_DIR] (default: hosts/wasm/build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$here/build}"
mkdir -p "$out"
command -v emcc >/dev/null || { echo "build.sh: emcc not found (Debian package emscripten)" >&2; exit 2; }
# emscripten's own Node modules, for a Node that is not Debian's.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
exports='_malloc,_free'
for f in new open workflows error close commands start timer_fired picked_up answered worker_lost signal idle \
         due_add due_first due_take push_null push_bool push_int push_number push_string push_list push_record; do
    exports="$exports,_wasm_$f"
done
emcc -O2 -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
    -I"$root/engine" -I"$root/bytecode" -I"$root/base" -I"$root/runtime" \
    "$here/engine_wasm.c" "$root"/engine/*.c "$root"/bytecode/*.c \
    "$root/base/arena.c" "$root/base/memory.c" "$root/base/textbuf.c" "$root/runtime/history.c" \
    -sMODULARIZE=1 -sEXPORT_NAME=createOrbitEngine -sENVIRONMENT=node \
    -sALLOW_MEMORY_GROWTH=1 -sNODEJS_CATCH_EXIT=0 -sNODEJS_CATCH_REJECTION=0 -sEXPORTED_FUNCTIONS="$exports" \
    -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,UTF8ToString,HEAPU8 \
    -o "$out/orbit_engine.cjs"
echo "built $out/orbit_engine.cjs and orbit_engine.wasm"
