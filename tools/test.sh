#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs what is missing, builds
# with -Werror, runs every test (with the opt-in suite `fuzz`: the committed fuzz corpora
# through orbitc, once), then builds again under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the default suite there (the fuzz regressions, not
# the corpora; not the suite `plain-only`, tests that run no C code of ours the plain
# build has not run: tests/meson.build), then builds the libFuzzer targets and runs each
# briefly from its committed corpus (which libFuzzer runs first: the corpora under the
# sanitizers, in-process).
# Between the two builds, the repository's own Orbit programs must be formatted
# (`orbitc fmt --check`). Then the playground (tools/playground.sh, which installs
# emscripten and chromium) and its suite `playground`, in the plain build: the API, native
# and WebAssembly, against orbitc and orbit-run, and the page in headless chromium. Then the
# suite `restate`: the Restate host on a real restate-server (tools/restate-test.sh, which
# installs the server's 225 MB npm package).
#
# What waits on the network or on timers runs beside what uses the processors: the npm
# packages download while build/ compiles, and the suite `restate` (a real server, its
# time spent in timers and round trips) runs beside the fuzz targets' build and smoke.
# Each phase is timed; the end prints a table `phase seconds result`, then one closing
# line counting every meson run's tests once, the fmt check and the fuzz smoke.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
table=()       # one line per phase: name, wall seconds, result
meson_logs=()  # the JSON log of every meson test run, each counted once at the end
started=$EPOCHREALTIME

seconds_since() {  # seconds_since START: wall seconds from START ($EPOCHREALTIME) to now
    awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }'
}

record() {  # record NAME START RESULT
    table+=("$(printf '%-44s %7s  %s' "$1" "$(seconds_since "$2")" "$3")")
    [ "$3" = ok ] || status=1
}

phase() {  # phase NAME COMMAND...: runs COMMAND in the foreground, timed
    local name=$1 start=$EPOCHREALTIME; shift
    echo "== $name"
    if "$@"; then record "$name" "$start" ok; else record "$name" "$start" FAILED; fi
}

# A phase in the background: its output goes to a file, printed when it is waited for.
declare -A bg_pid bg_start bg_out
background() {  # background NAME COMMAND...
    local name=$1; shift
    bg_start[$name]=$EPOCHREALTIME
    bg_out[$name]=$(mktemp)
    echo "== $name (in the background)"
    "$@" >"${bg_out[$name]}" 2>&1 &
    bg_pid[$name]=$!
}
wait_for() {  # wait_for NAME: its output, then its line in the table
    local name=$1 result=ok
    wait "${bg_pid[$name]}" || result=FAILED
    echo "== $name (finished)"
    cat "${bg_out[$name]}"
    rm -f "${bg_out[$name]}"
    record "$name" "${bg_start[$name]}" "$result"
}

setup() {  # setup DIR [meson options...]
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

meson_run() {  # meson_run DIR LOGBASE [meson test options...]: the log DIR/meson-logs/LOGBASE.json
    local dir=$1 logbase=$2; shift 2
    rm -f "$dir/meson-logs/$logbase.json"   # a run that stops early is not counted twice
    meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes "$(nproc)" \
        --logbase "$logbase" "$@"
}
meson_logs+=(build/meson-logs/testlog-full.json build/meson-logs/testlog-playground.json
             build/meson-logs/testlog-restate.json build-asan/meson-logs/testlog-asan.json)

# ---- install ----
npm_installs() {
    tools/install-sarif.sh &&     # the SARIF validators of the golden tests (build-tools/)
    tools/install-npm.sh &&       # the editor tests' and test_graph's Mermaid parser
    tools/install-playground-deps.sh &&   # emscripten, chromium, the page's npm packages
    tools/install-restate.sh      # the Restate host's (the 225 MB server) and its wasm core
}
phase "install: Debian packages" tools/install-deps.sh
background "install: npm packages, chromium (beside the build)" npm_installs
export ORBIT_REQUIRE_SARIF_TOOLS=1 ORBIT_REQUIRE_NPM_TOOLS=1

# ---- the plain build ----
last_ok() { [[ ${table[-1]} == *' ok' ]]; }   # the phase just recorded passed
phase "build: build/ (-Dwerror=true)" eval 'setup build -Dwerror=true && ninja -C build >/dev/null'
built=$(last_ok && echo yes || echo no)
wait_for "install: npm packages, chromium (beside the build)"
[ "$built" = yes ] && \
    phase "suite: build/ --setup full (every test, fuzz corpora)" meson_run build testlog-full --setup full

fmt_passed=0 fmt_failed=1
phase "fmt --check examples/ stdlib/" build/cli/orbitc fmt --check examples/ stdlib/
last_ok && fmt_passed=1 fmt_failed=0

# ---- the playground ----
export ORBIT_PLAYGROUND_WASM="$PWD/build-playground/wasm" ORBIT_REQUIRE_PLAYGROUND=1
phase "playground: tools/playground.sh" eval 'tools/playground.sh >/dev/null'
last_ok && phase "suite: playground" meson_run build testlog-playground --suite playground

# ---- the sanitizers ----
phase "build: build-asan/ (ASan + UBSan)" eval 'setup build-asan -Dwerror=true \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug && ninja -C build-asan >/dev/null'
last_ok && phase "suite: build-asan/ --setup sanitizers" env ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    meson_run build-asan testlog-asan --setup sanitizers

# ---- the Restate host, beside the fuzz targets ----
background "suite: restate (beside the fuzz phases)" meson_run build testlog-restate --suite restate

fuzz_passed=0 fuzz_failed=1
if command -v clang >/dev/null; then
    phase "build: build-fuzz/ (libFuzzer, clang)" fuzz/build.sh
    last_ok && phase "fuzz smoke: 20 s per target" env ORBITC="$PWD/build/cli/orbitc" fuzz/run.sh smoke 20
    [[ ${table[-1]} == 'fuzz smoke'*' ok' ]] && fuzz_passed=1 fuzz_failed=0
else
    table+=("$(printf '%-44s %7s  %s' 'fuzz: clang' 0 'FAILED (not installed)')")
    status=1
fi

wait_for "suite: restate (beside the fuzz phases)"

# ---- the table, then one closing line over every meson run, the fmt check and the fuzz smoke ----
echo
printf '%-44s %7s  %s\n' phase seconds result
printf '%s\n' "${table[@]}"
printf '%-44s %7s\n' "total (wall)" "$(seconds_since "$started")"
FUZZ_PASSED=$((fuzz_passed + fmt_passed)) FUZZ_FAILED=$((fuzz_failed + fmt_failed)) \
    python3 - "${meson_logs[@]}" <<'PY'
import json, os, sys
passed = int(os.environ['FUZZ_PASSED'])   # the fuzz smoke and the fmt check, one each
failed = int(os.environ['FUZZ_FAILED'])
skipped = 0
for log in sys.argv[1:]:
    try:
        lines = open(log).read().splitlines()
    except OSError:
        failed += 1   # a meson run that wrote no log did not run its tests
        print('%s: missing' % log)
        continue
    for line in lines:
        r = json.loads(line).get('result')
        if r in ('OK', 'EXPECTEDFAIL'):
            passed += 1
        elif r == 'SKIP':
            skipped += 1
        else:
            failed += 1
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
PY
exit $status
