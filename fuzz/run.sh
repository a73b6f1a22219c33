#!/usr/bin/env bash
# Runs every fuzz target built by build.sh (in build-fuzz/, or $FUZZ_BUILD), and reports
# what each found.
#
#   fuzz/run.sh MINUTES [TARGET...]   fuzz each target (all by default) for MINUTES,
#                                     one after another
#   fuzz/run.sh smoke [SECONDS]       CI: every target replays every third input of its
#                                     committed corpus (FUZZ_SMOKE_SAMPLE=1: all of it),
#                                     then fuzzes SECONDS (default 30); exit 1 if any
#                                     crash, timeout or leak is found
#   fuzz/run.sh merge                 minimise each working corpus (its inputs of
#                                     at most 16 KiB) into the committed one,
#                                     fuzz/corpus/TARGET/
#   fuzz/run.sh minimize TARGET FILE [NAME]
#                                     minimise a crashing input and store it as
#                                     fuzz/regressions/TARGET/NAME (replayed by
#                                     the test suite from then on)
#
# Working corpora live in fuzz/out/corpus/TARGET (kept between runs, git-ignored),
# seeded from the committed corpus fuzz/corpus/TARGET, tests/golden/**/*.orbit, examples/
# and small generated programs; the loader's from the .orbc files that `orbitc build`
# makes of the golden programs; the scenario target's from tests/golden/run/*.scenario.json;
# the language server's from sessions over the golden programs (lsp_seeds.py); the
# tests' (fuzz_test) also from examples/checkout.orbit and its tests joined in one file.
# Crashes, timeouts and out-of-memory inputs go to fuzz/out/artifacts/TARGET/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
out="$here/out"
bin="${FUZZ_BUILD:-$root/build-fuzz}/fuzz"
orbitc="${ORBITC:-$root/build/cli/orbitc}"

minimize() {  # minimize TARGET FILE [NAME]   (TARGET: check, build, loader or fuzz_...)
    local target=${1#fuzz_} file=$2 name=${3:-}
    [ -n "$name" ] || name="$(basename "$file" | sed -E 's/^(crash|timeout|oom|leak|slow-unit)-//' | cut -c1-16)"
    local ext=orbit
    [ "$target" = loader ] && ext=orbc
    [ "$target" = lsp ] && ext=session
    local dest="$here/regressions/$target"
    mkdir -p "$dest"
    local min="$out/minimized-$(basename "$file")"
    rm -f "$min"
    "$bin/fuzz_$target" -minimize_crash=1 -runs=20000 -timeout=10 \
        -exact_artifact_path="$min" "$file" >"$out/minimize.log" 2>&1 || true
    [ -s "$min" ] || cp "$file" "$min"   # not reproducible as a crash: keep it whole
    cp "$min" "$dest/$name.$ext"
    echo "stored $dest/$name.$ext ($(wc -c <"$min") bytes)"
}

seed_corpus() {  # seed_corpus TARGET DIR [STEP]: the committed corpus (every STEP-th input)
    local target=$1 dir=$2 step=${3:-1}
    mkdir -p "$dir"
    if [ -d "$here/corpus/$target" ]; then
        (cd "$here/corpus/$target" && ls -A | LC_ALL=C sort | awk -v s="$step" 'NR % s == 1 || s == 1' |
             xargs -r cp -t "$dir/") 2>/dev/null || true
    fi
    if [ "$target" = fuzz_loader ]; then
        local f
        for f in "$root"/examples/*.orbit "$root"/tests/golden/build/*.orbit "$root"/tests/golden/run/*.orbit; do
            "$orbitc" build "$f" -o "$dir/$(basename "$f" .orbit).orbc" >/dev/null 2>&1 || true
        done
        return
    fi
    if [ "$target" = fuzz_scenario ]; then
        cp "$root"/tests/golden/run/*.scenario.json "$dir/" 2>/dev/null || true
        return
    fi
    if [ "$target" = fuzz_lsp ]; then
        python3 "$here/lsp_seeds.py" --out "$dir"
        return
    fi
    if [ "$target" = fuzz_replay ]; then   # each module's own history, behind its byte
        local i=0 name kit="$root/tests/conformance/runtime"
        for name in checkout child_ok failure_compensation http_statuses await_signal \
                    redelivery queue_timeout sleep timeout_late_success workflow_timeout \
                    retries_in_the_history tie_retry_at_deadline; do
            { printf "\\$(printf %03o "$i")"
              (cd "$kit" && "${ORBIT_RUN:-$root/build/runtime/orbit-run}" "$name.orbc" \
                   --scenario "$name.scenario.json" $(cat "$name.args" 2>/dev/null) \
                   --format json --show-values 2>/dev/null) || true
            } | head -c 4096 >"$dir/$name.history"
            i=$((i + 1))
        done
        return
    fi
    find "$root/tests/golden" "$root/examples" -name '*.orbit' | while read -r f; do
        cp "$f" "$dir/$(echo "$f" | sed "s|$root/||; s|/|_|g")"
    done
    if [ "$target" = fuzz_test ]; then   # a program and its tests, one file
        cat "$root/examples/checkout.orbit" "$root/examples/checkout.test.orbit" \
            >"$dir/examples_checkout_with_tests.orbit"
    fi
    if [ "$target" = fuzz_fix ]; then   # programs of several files, split at `%%` lines
        local previous="" f
        for f in "$root"/tests/golden/fix/*.orbit "$root"/tests/golden/names/*.orbit; do
            [ -n "$previous" ] && { cat "$previous"; echo '%%'; cat "$f"; } \
                >"$dir/pair-$(basename "$previous" .orbit)-$(basename "$f")"
            previous=$f
        done
    fi
    local seed
    for seed in 1 2 3 4 5 6 7 8; do
        python3 "$root/tools/gen_corpus.py" --size 3K --seed "$seed" -o "$dir/gen-$seed.orbit"
        python3 "$root/tools/gen_corpus.py" --size 3K --seed "$seed" --errors 3 \
            -o "$dir/gen-errors-$seed.orbit" 2>/dev/null
    done
    if [ "$target" = fuzz_test ]; then   # every other program with a test of its own:
        local f                          # mutation seldom writes one
        for f in "$dir"/*.orbit; do
            grep -q '^test "' "$f" || printf '\ntest "t" { expect { status: completed } }\n' >>"$f"
        done
    fi
}

fuzz() {  # fuzz TARGET SECONDS
    local target=$1 seconds=$2
    local corpus="$out/corpus/$target" artifacts="$out/artifacts/$target"
    local log="$out/$target.log"
    mkdir -p "$artifacts"
    [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ] || seed_corpus "$target" "$corpus"
    local before_files before_artifacts
    before_files=$(ls "$corpus" | wc -l)
    before_artifacts=$(ls "$artifacts" | sort)
    local dict=()
    case $target in fuzz_check|fuzz_build|fuzz_graph|fuzz_fmt|fuzz_fix|fuzz_playground|fuzz_test) dict=(-dict="$here/orbit.dict") ;;
                    fuzz_model) dict=(-dict="$here/model.dict") ;; esac
    # Fork mode keeps fuzzing after a crash, timeout or OOM, so one bug does not end the run.
    "$bin/$target" "$corpus" "${dict[@]}" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -max_total_time="$seconds" -artifact_prefix="$artifacts/" -print_final_stats=1 \
        >"$log" 2>&1 || true
    local after_files
    after_files=$(ls "$corpus" | wc -l)
    # The last status line: "#N: cov: C ft: F corp: ..." (fork mode) or "#N ... cov: C ft: F".
    local status execs cov ft
    status=$(grep -E '^#[0-9]+:? .*cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    execs=$(echo "$status" | sed -E 's/^#([0-9]+).*/\1/')
    cov=$(echo "$status" | sed -E 's/.*cov: ([0-9]+).*/\1/')
    ft=$(echo "$status" | sed -E 's/.*ft: ([0-9]+).*/\1/')
    echo "== $target: ${seconds}s"
    echo "   executions: ${execs:-?}   coverage: cov ${cov:-?} ft ${ft:-?}"
    echo "   corpus: $before_files -> $after_files files ($((after_files - before_files)) new)"
    local new
    new=$(comm -13 <(echo "$before_artifacts") <(ls "$artifacts" | sort) | sed '/^$/d' || true)
    if [ -n "$new" ]; then
        echo "   crashes / timeouts / OOMs:"
        echo "$new" | sed "s|^|     $artifacts/|"
        echo "   store each with: fuzz/run.sh minimize $target FILE NAME"
    else
        echo "   crashes: none"
    fi
    echo "   log: $log"
}

all_targets=(fuzz_check fuzz_build fuzz_graph fuzz_loader fuzz_scenario fuzz_model fuzz_replay fuzz_lsp fuzz_fmt
             fuzz_fix fuzz_playground fuzz_test)

# CI: replay the committed corpus and fuzz briefly, on throw-away copies; any new
# artifact (crash, timeout, leak, OOM) fails the run. The targets run $(nproc) at a time
# (FUZZ_JOBS overrides): each is one process, on one processor, for SECONDS of wall time
# after its corpus (which it replays whole first, however long that takes); their reports
# are printed in the order of all_targets.
smoke_one() {  # smoke_one TARGET SECONDS TMP: its report on stdout; fails when it failed
    local target=$1 seconds=$2 tmp=$3
    [ -x "$bin/$target" ] || { echo "smoke: $target is not built"; return 1; }
    mkdir -p "$tmp/$target/corpus" "$tmp/$target/artifacts"
    # Every third committed input (FUZZ_SMOKE_SAMPLE): replaying the whole corpora under the
    # sanitizers was most of the smoke's time, and the suite's fuzz-corpus test replays
    # every committed input through orbitc anyway.
    seed_corpus "$target" "$tmp/$target/corpus" "${FUZZ_SMOKE_SAMPLE:-3}"
    local dict=()
    case $target in fuzz_check|fuzz_build|fuzz_graph|fuzz_fmt|fuzz_fix|fuzz_playground|fuzz_test) dict=(-dict="$here/orbit.dict") ;;
                    fuzz_model) dict=(-dict="$here/model.dict") ;; esac
    if "$bin/$target" "$tmp/$target/corpus" "${dict[@]}" -max_len=65536 -timeout=10 \
           -rss_limit_mb=2048 -max_total_time="$seconds" -print_final_stats=1 \
           -artifact_prefix="$tmp/$target/artifacts/" >"$tmp/$target.log" 2>&1; then
        echo "smoke: $target: $(grep -E '^stat::number_of_executed_units' "$tmp/$target.log" | awk '{print $2}') executions, no crash"
    else
        echo "smoke: $target FAILED:"
        # fuzz_fmt aborts with its own line ("fuzz_fmt: a guarantee ... fails: why").
        grep -E "ERROR|SUMMARY|runtime error|Test unit written|^fuzz_[a-z]+: " \
            "$tmp/$target.log" | head -20 || true
        ls "$tmp/$target/artifacts"
        # Keep the inputs and the log: the temporary directory goes below.
        mkdir -p "$out/smoke/$target"
        cp "$tmp/$target/artifacts"/* "$tmp/$target.log" "$out/smoke/$target/" 2>/dev/null || true
        echo "smoke: kept in $out/smoke/$target/"
        return 1
    fi
}

smoke() {  # smoke SECONDS
    local seconds=$1 failed=0 target tmp running=0 jobs=${FUZZ_JOBS:-$(nproc)}
    tmp=$(mktemp -d)
    declare -A pid
    for target in "${all_targets[@]}"; do
        if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
        smoke_one "$target" "$seconds" "$tmp" >"$tmp/$target.report" 2>&1 &
        pid[$target]=$!
        running=$((running + 1))
    done
    for target in "${all_targets[@]}"; do
        if wait "${pid[$target]}"; then
            cat "$tmp/$target.report"
        else
            failed=1
            cat "$tmp/$target.report" >&2
        fi
    done
    rm -rf "$tmp"
    return $failed
}

# Minimise each working corpus into the committed corpus (libFuzzer -merge=1 keeps only
# inputs that add coverage). Only inputs of at most 16 KiB are committed: the language
# server's sessions grow long while fuzzing, and a few hundred of them would make the
# repository tens of megabytes heavier for little coverage.
merge() {
    local target
    for target in "${all_targets[@]}"; do
        [ -x "$bin/$target" ] && [ -d "$out/corpus/$target" ] || continue
        local dest="$here/corpus/$target" fresh="$out/merged-$target" small="$out/small-$target"
        rm -rf "$fresh" "$small"
        mkdir -p "$fresh" "$dest" "$small"
        find "$out/corpus/$target" -maxdepth 1 -type f -size -16385c -exec cp -t "$small" {} +
        "$bin/$target" -merge=1 -max_len=16384 -timeout=10 -rss_limit_mb=2048 "$fresh" \
            "$dest" "$small" >"$out/$target.merge.log" 2>&1
        rm -rf "$dest" "$small"
        mv "$fresh" "$dest"
        echo "merge: $target: $(ls "$dest" | wc -l) files, $(du -sh "$dest" | cut -f1)"
    done
}

case "${1:-}" in
    minimize)
        [ $# -ge 3 ] || { echo "usage: run.sh minimize TARGET FILE [NAME]" >&2; exit 2; }
        minimize "$2" "$3" "${4:-}"
        exit 0 ;;
    smoke)
        smoke "${2:-30}"
        exit $? ;;
    merge)
        merge
        exit 0 ;;
esac
minutes=${1:-}
[[ "$minutes" =~ ^[0-9]+$ ]] || { echo "usage: run.sh MINUTES [TARGET...] | smoke [SECONDS] | merge | minimize TARGET FILE [NAME]" >&2; exit 2; }
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
found=0
for target in "${targets[@]}"; do
    [ -x "$bin/$target" ] || continue
    found=1
    fuzz "$target" $((minutes * 60))
done
[ $found = 1 ] || { echo "no fuzz targets in $bin: run fuzz/build.sh first" >&2; exit 2; }
