#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs what is missing, builds
# with -Werror, runs every test (with the opt-in suite `fuzz`: the committed fuzz corpora
# through orbitc, once), then builds again under AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the default suite there (the fuzz regressions, not
# the corpora), then builds the libFuzzer targets and runs each briefly from its committed
# corpus (which libFuzzer runs first: the corpora under the sanitizers, in-process).
# Between the two builds, the repository's own Orbit programs must be formatted
# (`orbitc fmt --check`). Then the playground (tools/playground.sh, which installs
# emscripten and chromium) and its suite `playground`, in the plain build: the API, native
# and WebAssembly, against orbitc and orbit-run, and the page in headless chromium. Then the
# suite `restate`: the Restate host on a real restate-server (tools/restate-test.sh, which
# installs the server's 225 MB npm package).
set -euo pipefail
cd "$(dirname "$0")/.."

tools/install-deps.sh
tools/install-sarif.sh    # the SARIF validators of the golden tests (npm, into build-tools/)
export ORBIT_REQUIRE_SARIF_TOOLS=1
tools/install-npm.sh      # the npm packages of the editor tests and of test_graph's Mermaid parser
export ORBIT_REQUIRE_NPM_TOOLS=1

setup() {  # setup DIR [meson options...]
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

run_suite() {  # run_suite DIR [meson test options...]
    local dir=$1; shift
    ninja -C "$dir" >/dev/null
    meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" "$@" || return 1
}

status=0
echo "== build (warnings are errors), every test and the fuzz corpora (--setup full)"
setup build -Dwerror=true
run_suite build --setup full || status=1

echo "== fmt --check examples/ stdlib/ (the repository's own Orbit programs are formatted)"
fmt_passed=0 fmt_failed=0
if build/cli/orbitc fmt --check examples/ stdlib/; then
    fmt_passed=1
else
    fmt_failed=1
    status=1
fi

echo "== the playground (tools/playground.sh) and its suite"
export ORBIT_PLAYGROUND_WASM="$PWD/build-playground/wasm" ORBIT_REQUIRE_PLAYGROUND=1
if tools/playground.sh >/dev/null; then
    meson test -C build --print-errorlogs --suite playground --logbase testlog-playground || status=1
else
    status=1
fi

echo "== the Restate host (docs/restate.md): its suite, on a real restate-server"
meson test -C build --print-errorlogs --suite restate --logbase testlog-restate || status=1

echo "== build-asan (AddressSanitizer + UndefinedBehaviorSanitizer)"
setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_suite build-asan || status=1

echo "== fuzz smoke (libFuzzer, ASan + UBSan): 20 s per target from its committed corpus"
fuzz_passed=0 fuzz_failed=0
if command -v clang >/dev/null && fuzz/build.sh && ORBITC="$PWD/build/cli/orbitc" fuzz/run.sh smoke 20; then
    fuzz_passed=1
else
    fuzz_failed=1
    status=1
fi

# One closing line over both runs, the fmt check and the fuzz smoke, from meson's own logs.
FUZZ_PASSED=$((fuzz_passed + fmt_passed)) FUZZ_FAILED=$((fuzz_failed + fmt_failed)) python3 - <<'PY'
import json, os
passed = int(os.environ['FUZZ_PASSED'])   # the fuzz smoke and the fmt check, one each
failed = int(os.environ['FUZZ_FAILED'])
skipped = 0
for log in ('build/meson-logs/testlog.json', 'build/meson-logs/testlog-playground.json',
            'build/meson-logs/testlog-restate.json',
            'build-asan/meson-logs/testlog.json'):
    try:
        lines = open(log).read().splitlines()
    except OSError:
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
