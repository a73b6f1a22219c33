#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine (docs/architecture.md, "Tests and
# tools"), in this order:
#  1. installs what is missing;
#  2. builds build/ with -Werror and runs every test (`--setup full`: with the committed
#     fuzz corpora through orbitc and ThreadSanitizer's test), then the suite `wasm` (the
#     core in WebAssembly) once its build is made;
#  3. the repository's own Orbit programs must be formatted (`orbitc fmt --check`);
#  4. the playground (tools/playground.sh, which installs emscripten and chromium) and its
#     suite `playground`, in the plain build: the API, native and WebAssembly, against
#     orbitc and orbit-run, and the page in headless chromium;
#  5. the suite `restate`: the Restate host on a real restate-server
#     (tools/restate-test.sh, which installs the server's 225 MB npm package), beside 6-7;
#     and the suite `packages` (the Debian packages and the static binary, which build the
#     project again), beside 6-7 too, at the lowest priority, and after 4 its test `npm`
#     (the npm packages, which carry the WebAssembly build of 4), the same way;
#  6. builds build-asan/ under AddressSanitizer and UndefinedBehaviorSanitizer and runs the
#     default suite there (`--setup sanitizers`: the fuzz regressions, not the corpora;
#     not the suite `plain-only`, tests that run no C code of ours that the others do not
#     run there: tests/meson.build);
#  7. builds the libFuzzer targets and runs each briefly from its committed corpus (which
#     libFuzzer runs first: the corpora under the sanitizers, in-process).
# What waits on the network or on timers runs beside what uses the processors: the npm
# packages download while build/ compiles, the WebAssembly build and the Restate server's
# package beside the full suite (and build-asan/ and build-fuzz/ of 6 and 7, niced,
# beside both), and the suite `restate` (a real server, its time spent in timers and
# round trips) runs beside 6 and 7, which are niced.
# Each phase is measured; the end prints a table `phase from to wall cpu idle result`: when
# it started and ended (seconds from the start), its wall and processor seconds (its
# processes and their children), and the share of the processors no process used while
# it ran (/proc/stat); then one closing
# line counting every meson run's tests once, the fmt check and the fuzz smoke.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
table=()       # one line per phase: name, wall seconds, result
meson_logs=()  # the JSON log of every meson test run, each counted once at the end
started=$EPOCHREALTIME

seconds_since() {  # seconds_since START [END]: wall seconds from START to END (now), $EPOCHREALTIME's
    awk -v a="$1" -v b="${2:-$EPOCHREALTIME}" 'BEGIN { printf "%.0f", b - a }'
}

cpu_ticks() {  # the machine's idle and total processor ticks so far (/proc/stat)
    awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t; exit }' /proc/stat
}
idle_between() {  # idle_between "IDLE TOTAL" "IDLE TOTAL": the share of the processors idle, in %
    awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
        d = y[2] - x[2]; printf "%.0f", (d > 0 ? 100 * (y[1] - x[1]) / d : 0) }'
}

started_ticks=$(cpu_ticks)

# Each phase runs in a subshell that writes, when its command ends, to a file: the time,
# the machine's processor ticks and the processor seconds the command and its children
# used (`times`). A background phase's line is thus its own, not the time it was waited for.
measured() {  # measured FILE COMMAND...: runs COMMAND, then writes FILE; COMMAND's status
    local file=$1 rc=0; shift
    "$@" || rc=$?
    { echo "$EPOCHREALTIME"; cpu_ticks; cpu_seconds; } > "$file"
    return $rc
}
cpu_seconds() {  # the processor seconds of this shell and its children so far (`times`,
    local file      # into a file: in a pipe or $(...) it would be a new process's, none)
    file=$(mktemp)
    times > "$file"
    awk '{ for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } }
         END { printf "%.0f\n", s }' "$file"
    rm -f "$file"
}

record() {  # record NAME START START_TICKS FILE RESULT: its line in the table
    local name=$1 start=$2 ticks=$3 file=$4 result=$5 end cpu end_ticks
    { read -r end; read -r end_ticks; read -r cpu; } < "$file" || { end=$EPOCHREALTIME; end_ticks=$(cpu_ticks); cpu=-; }
    rm -f "$file"
    table+=("$(printf '%-44s %5s %5s %6s %6s %5s%%  %s' "$name" "$(seconds_since "$started" "$start")" \
        "$(seconds_since "$started" "$end")" "$(seconds_since "$start" "$end")" "$cpu" \
        "$(idle_between "$ticks" "$end_ticks")" "$result")")
    [ "$result" = ok ] || status=1
}

phase() {  # phase NAME COMMAND...: runs COMMAND in the foreground, measured
    local name=$1 start=$EPOCHREALTIME ticks file; shift
    ticks=$(cpu_ticks)
    file=$(mktemp)
    echo "== $name"
    if (measured "$file" "$@"); then
        record "$name" "$start" "$ticks" "$file" ok
    else
        record "$name" "$start" "$ticks" "$file" FAILED
    fi
}

# A phase in the background: its output goes to a file, printed when it is waited for.
declare -A bg_pid bg_start bg_out bg_ticks bg_file
background() {  # background NAME COMMAND...
    local name=$1; shift
    bg_start[$name]=$EPOCHREALTIME
    bg_ticks[$name]=$(cpu_ticks)
    bg_out[$name]=$(mktemp)
    bg_file[$name]=$(mktemp)
    echo "== $name (in the background)"
    (measured "${bg_file[$name]}" "$@") >"${bg_out[$name]}" 2>&1 &
    bg_pid[$name]=$!
}
wait_for() {  # wait_for NAME: its output, then its line in the table
    local name=$1 result=ok
    wait "${bg_pid[$name]}" || result=FAILED
    echo "== $name (finished)"
    cat "${bg_out[$name]}"
    rm -f "${bg_out[$name]}"
    record "$name" "${bg_start[$name]}" "${bg_ticks[$name]}" "${bg_file[$name]}" "$result"
}

setup() {  # setup DIR [meson options...]
    local dir=$1; shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

meson_run() {  # meson_run DIR LOGBASE [meson test options...]
    # meson writes DIR/meson-logs/LOGBASE.json, or LOGBASE-SETUP.json with --setup SETUP
    # (meson_logs below names each); a run that stops early is not counted twice: the
    # file of an earlier run is removed first.
    local dir=$1 logbase=$2; shift 2
    local log=$logbase arg previous=
    for arg in "$@"; do
        [ "$previous" = --setup ] && log=$logbase-$arg
        previous=$arg
    done
    rm -f "$dir/meson-logs/$log.json"
    meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes "$(nproc)" \
        --logbase "$logbase" "$@"
}
# A missing log counts as a failure: its run did not run its tests.
meson_logs+=(build/meson-logs/testlog-full-full.json build/meson-logs/testlog-wasm-full.json
             build/meson-logs/testlog-playground.json
             build/meson-logs/testlog-restate.json build/meson-logs/testlog-packages.json
             build/meson-logs/testlog-npm.json
             build-asan/meson-logs/testlog-asan-sanitizers.json)

# ---- install ----
# In two parts, beside the build: what the full suite's tests need (a minute), then it
# starts; and what only the suite `wasm`, the playground and the Restate host need
# (emscripten, chromium, the server's 225 MB package, the WebAssembly build: five to
# seven minutes, most of it the WebAssembly build), which the full suite's other tests
# run beside.
tool_installs() {
    tools/install-sarif.sh &&     # the SARIF validators of the golden tests (build-tools/)
    tools/install-npm.sh          # the editor tests' and test_graph's Mermaid parser
}
wasm_installs() {
    tools/install-playground-deps.sh &&   # emscripten, chromium, the page's npm packages
    tools/install-restate.sh      # the Restate host's (the 225 MB server) and its wasm core
}
phase "install: Debian packages" tools/install-deps.sh
background "install: test tools (npm, SARIF; beside the build)" tool_installs
background "install: emscripten, chromium, Restate, wasm (beside)" wasm_installs
export ORBIT_REQUIRE_SARIF_TOOLS=1 ORBIT_REQUIRE_NPM_TOOLS=1

# ---- the plain build ----
last_ok() { [[ ${table[-1]} == *' ok' ]]; }   # the phase just recorded passed
phase "build: build/ (-Dwerror=true)" eval 'setup build -Dwerror=true && ninja -C build >/dev/null'
built=$(last_ok && echo yes || echo no)

# ---- the Debian packages and the static binary, beside everything that follows ----
# Their suite compiles the project three more times (two package builds, compared byte
# for byte, and the static binary) from copies of the tree: in the background from here
# on, at the lowest priority, so that it takes only what the other phases leave of the
# processors (the restate suite's waits, the last minutes of each suite).
lowest() { ( renice -n 19 -p "$BASHPID" >/dev/null && "$@" ); }    # a subshell, nice 19
[ "$built" = yes ] && \
    background "suite: packages (beside what follows)" lowest meson_run build testlog-packages --suite packages --no-suite npm
# ---- the sanitizers' and the fuzz targets' builds, beside the installs ----
# build-asan/ and build-fuzz/ compile beside the installs and the full suite, niced (the
# installs' own compiling and the full suite go first); their suites run after the
# playground.
beside() { ( renice -n 10 -p "$BASHPID" >/dev/null && "$@" ); }   # a subshell, niced
asan_build() {
    setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dbuildtype=debug && ninja -C build-asan >/dev/null
}
have_clang=$(command -v clang >/dev/null && echo yes || echo no)
background "build: build-asan/ (ASan + UBSan, beside the installs)" beside asan_build
[ "$have_clang" = yes ] && \
    background "build: build-fuzz/ (libFuzzer, clang, beside the installs)" beside fuzz/build.sh
wait_for "install: test tools (npm, SARIF; beside the build)"
[ "$built" = yes ] && \
    phase "suite: build/ --setup full but wasm (fuzz corpora)" meson_run build testlog-full --setup full --no-suite wasm
wait_for "install: emscripten, chromium, Restate, wasm (beside)"
export ORBIT_PLAYGROUND_WASM="$PWD/build-playground/wasm"   # the build just made
[ "$built" = yes ] && \
    phase "suite: build/ wasm" meson_run build testlog-wasm --setup full --suite wasm

fmt_passed=0 fmt_failed=1
phase "fmt --check examples/ stdlib/" build/cli/orbitc fmt --check examples/ stdlib/
last_ok && fmt_passed=1 fmt_failed=0

# ---- the playground ----
export ORBIT_REQUIRE_PLAYGROUND=1
phase "playground: tools/playground.sh" eval 'tools/playground.sh >/dev/null'
last_ok && phase "suite: playground" meson_run build testlog-playground --suite playground
# The npm packages (tests/install/test_npm.py) carry the WebAssembly build just made: their
# suite runs from here, beside what follows, at the lowest priority (it runs orbitc three
# ways on a sample of the goldens; its static orbitc is the one the suite packages built).
background "suite: npm (beside what follows)" lowest meson_run build testlog-npm --suite npm

# ---- the Restate host, beside the sanitizers and the fuzz targets ----
# Its suite waits on a real server's timers and round trips (about a quarter of one
# processor) and its cases compare times: it runs at the normal priority, what runs
# beside it (the builds, tests and fuzzing below, which use every processor) at a lower
# one (nice), so that it is not slowed by them; they take what it leaves.
# Four of its seven groups of cases at a time: two took about 600 s (most of it waits on
# timers, the two longest groups 250-290 s each), four about 390 s on a machine loaded
# twice over by other work, and all seven at once lost margins of its timing cases there
# (docs/restate-performance.md, "The suite's time").
export ORBIT_RESTATE_JOBS=4
background "suite: restate (beside what follows)" meson_run build testlog-restate --suite restate


# ---- the sanitizers ----
asan_suite() {
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        meson_run build-asan testlog-asan --setup sanitizers
}
wait_for "build: build-asan/ (ASan + UBSan, beside the installs)"
last_ok && phase "suite: build-asan/ --setup sanitizers" beside asan_suite

fuzz_passed=0 fuzz_failed=1
if [ "$have_clang" = yes ]; then
    wait_for "build: build-fuzz/ (libFuzzer, clang, beside the installs)"
    last_ok && phase "fuzz smoke: 6 s per target" beside env ORBITC="$PWD/build/cli/orbitc" fuzz/run.sh smoke 6
    [[ ${table[-1]} == 'fuzz smoke'*' ok' ]] && fuzz_passed=1 fuzz_failed=0
else
    table+=("$(printf '%-44s %5s %5s %6s %6s %6s  %s' 'fuzz: clang' - - 0 0 - 'FAILED (not installed)')")
    status=1
fi

wait_for "suite: restate (beside what follows)"
wait_for "suite: packages (beside what follows)"
wait_for "suite: npm (beside what follows)"

# ---- the table, then one closing line over every meson run, the fmt check and the fuzz smoke ----
echo
printf '%-44s %5s %5s %6s %6s %6s  %s\n' phase from to wall cpu idle result
printf '%s\n' "${table[@]}"
total_cpu=$(mktemp)
cpu_seconds > "$total_cpu"   # in this shell: every phase's subshell has been waited for
printf '%-44s %5s %5s %6s %6s %5s%%\n' "total" 0 "$(seconds_since "$started")" \
    "$(seconds_since "$started")" "$(cat "$total_cpu")" "$(idle_between "$started_ticks" "$(cpu_ticks)")"
rm -f "$total_cpu"
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
