#!/usr/bin/env python3
"""Replays the inputs that once crashed or hung a fuzz target (fuzz/regressions/), or with
--corpora the committed fuzz corpora (fuzz/corpus/), through orbitc, and fails if any of
them crashes it. With nothing to replay it exits 77 (meson's "skipped").

    replay.py --orbitc build/cli/orbitc [--timeout 10]
    replay.py --orbitc build/cli/orbitc --corpora --fmt-props build/tools/fmt_props

The default test suite replays the regressions (test `fuzz-regressions`); the corpora,
thousands of inputs, are the opt-in suite `fuzz` (`meson test -C build --suite fuzz`,
test `fuzz-corpus`), which tools/test.sh runs once.

regressions/check/*.orbit   `orbitc check` must exit 0 or 1: never 2, a signal or a hang
regressions/build/*.orbit   the same, and when the check is clean, `orbitc build` must
                            succeed and its output load (`orbitc dis` exits 0), or refuse
                            the program with E0601 diagnostics only (a limit of the
                            bytecode format, docs/limits.md)
regressions/loader/*.orbc   `orbitc dis` must exit 0, 1 or 2 (a clear error): never a
                            signal or a hang (once the command exists)
regressions/lsp/*.session   a language server session on the standard input of
                            `orbitc lsp --memory-only`: it must exit 0 or 1 (a broken
                            stream ends it), never by a signal, a hang or a sanitizer
                            report
regressions/test/*.orbit    `orbitc test --coverage` must exit 0, 1 or 2, never by a
                            signal, a hang or a sanitizer report; and `--format json`
                            the same, its output (when it writes one) a JSON document
                            whose summary counts its tests
(regressions/fmt/*.orbit are checked with tools/fmt_props by tests/cli/test_fmt.py.)

With --corpora:
corpus/fuzz_check/*         as regressions/check
corpus/fuzz_build/*         as regressions/build
corpus/fuzz_loader/*        as regressions/loader
corpus/fuzz_test/*          as regressions/test
corpus/fuzz_lsp/*           as regressions/lsp
corpus/fuzz_check/*, corpus/fuzz_build/*, corpus/fuzz_fmt/*
                            with --fmt-props, the formatter's guarantees
                            (tools/fmt_properties.h) on each, its line ends also made
                            CRLF: `fmt_props --crlf`
(corpus/fuzz_scenario is replayed by `fuzz/run.sh smoke` through its fuzz target.)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, timeout):
    """(exit status or None on timeout, stderr tail); a signal is a negative status."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %ss" % timeout
    return p.returncode, p.stderr.decode("utf-8", "replace")[-2000:]


def command_exists(orbitc, name):
    """Whether `orbitc NAME` is implemented (orbitc names an unknown command)."""
    status, err = run([orbitc, name], 10)
    return "unknown command" not in err


def describe(status):
    if status is None:
        return "hang"
    if status < 0:
        return "killed by signal %d" % -status
    return "exit status %d" % status


def refused_for_format_limits(err):
    """Whether a failed build reported E0601 diagnostics and nothing else."""
    codes = re.findall(r"^error\[(E\d{4})\]", err, re.M)
    return bool(codes) and all(c == "E0601" for c in codes) and "cannot build" not in err


def replay_sources(orbitc, files, timeout, build):
    failures = []
    can_build = build and command_exists(orbitc, "build")
    for path in files:
        status, err = run([orbitc, "check", "--color=never", path], timeout)
        if status not in (0, 1):
            failures.append((path, "check: " + describe(status), err))
            continue
        if can_build and status == 0:
            with tempfile.TemporaryDirectory() as tmp:
                out = os.path.join(tmp, "out.orbc")
                bstatus, berr = run([orbitc, "build", "--color=never", path, "-o", out],
                                    timeout)
                if bstatus == 1 and refused_for_format_limits(berr):
                    continue
                if bstatus != 0:
                    failures.append((path, "build of a clean program: " + describe(bstatus),
                                     berr))
                    continue
                dstatus, derr = run([orbitc, "dis", out], timeout)
                if dstatus != 0:
                    failures.append((path, "the built file does not load: "
                                     + describe(dstatus), derr))
    return failures


def replay_bytecode(orbitc, files, timeout):
    if not files or not command_exists(orbitc, "dis"):
        return []
    failures = []
    for path in files:
        status, err = run([orbitc, "dis", path], timeout)
        if status not in (0, 1, 2):
            failures.append((path, "dis: " + describe(status), err))
    return failures


SANITIZER_REPORT = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:")


def replay_sessions(orbitc, files, timeout):
    if not files or not command_exists(orbitc, "lsp"):
        return []
    failures = []
    for path in files:
        with open(path, "rb") as session:
            try:
                p = subprocess.run([orbitc, "lsp", "--memory-only"], stdin=session,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   timeout=timeout)
                status, err = p.returncode, p.stderr.decode("utf-8", "replace")[-2000:]
            except subprocess.TimeoutExpired:
                status, err = None, "timed out after %ss" % timeout
        if status not in (0, 1) or SANITIZER_REPORT.search(err):
            failures.append((path, "lsp: " + describe(status), err))
    return failures


def replay_tests(orbitc, files, timeout):
    """orbitc test over each file: its human report with coverage, then its JSON report."""
    if not files or not command_exists(orbitc, "test"):
        return []
    failures = []
    for path in files:
        status, err = run([orbitc, "test", "--coverage", "--color=never", path], timeout)
        if status not in (0, 1, 2) or SANITIZER_REPORT.search(err):
            failures.append((path, "test --coverage: " + describe(status), err))
            continue
        try:
            p = subprocess.run([orbitc, "test", "--format", "json", path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
            status, err = p.returncode, p.stderr.decode("utf-8", "replace")[-2000:]
        except subprocess.TimeoutExpired:
            failures.append((path, "test --format json: " + describe(None), ""))
            continue
        if status not in (0, 1, 2) or SANITIZER_REPORT.search(err):
            failures.append((path, "test --format json: " + describe(status), err))
            continue
        if not p.stdout:
            continue   # the program does not check: no report, its diagnostics
        try:
            report = json.loads(p.stdout.decode("utf-8"))
            counted = report["summary"]["total"] == len(report["tests"])
        except (ValueError, KeyError, TypeError) as e:
            failures.append((path, "test --format json: not a report: %s" % e, err))
            continue
        if not counted:
            failures.append((path, "test --format json: the summary miscounts", ""))
    return failures


def listing(folder, ext=""):
    d = os.path.join(HERE, folder)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(ext) and not f.startswith("."))


def replay_fmt_props(fmt_props, files, timeout):
    """fmt_props --crlf over the files, in batches; its FAIL lines are the failures."""
    failures = []
    for i in range(0, len(files), 500):
        batch = files[i:i + 500]
        status, out = run_output([fmt_props, "--crlf"] + batch, timeout * len(batch))
        for line in out.splitlines():
            if line.startswith("FAIL "):   # "FAIL PATH[ (crlf)]: why"
                where, _, why = line[len("FAIL "):].partition(": ")
                failures.append((where, "fmt_props: " + why, ""))
        if status not in (0, 1):
            failures.append((batch[0], "fmt_props: " + describe(status), out[-2000:]))
    return failures


def run_output(cmd, timeout):
    """(exit status or None on timeout, stdout and stderr together)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timed out after %ss" % timeout
    return p.returncode, p.stdout.decode("utf-8", "replace")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--orbitc", required=True)
    p.add_argument("--corpora", action="store_true",
                   help="replay the committed corpora instead of the regressions")
    p.add_argument("--fmt-props", help="with --corpora: check the formatter's guarantees too")
    p.add_argument("--timeout", type=float, default=10)
    args = p.parse_args()

    if args.corpora:
        check, build = listing("corpus/fuzz_check"), listing("corpus/fuzz_build")
        loader, sessions = listing("corpus/fuzz_loader"), listing("corpus/fuzz_lsp")
        tests = listing("corpus/fuzz_test")
    else:
        check = listing("regressions/check", ".orbit")
        build = listing("regressions/build", ".orbit")
        loader = listing("regressions/loader", ".orbc")
        sessions = listing("regressions/lsp", ".session")
        tests = listing("regressions/test", ".orbit")
    failures = replay_sources(args.orbitc, check, args.timeout, False)
    failures += replay_sources(args.orbitc, build, args.timeout, True)
    failures += replay_bytecode(args.orbitc, loader, args.timeout)
    failures += replay_sessions(args.orbitc, sessions, args.timeout)
    failures += replay_tests(args.orbitc, tests, args.timeout)
    total = len(check) + len(build) + len(loader) + len(sessions) + len(tests)
    if args.corpora and args.fmt_props:
        sources = check + build + listing("corpus/fuzz_fmt")
        failures += replay_fmt_props(args.fmt_props, sources, args.timeout)
        total += len(sources)
    for path, what, err in failures:
        print("FAIL %s: %s" % (os.path.relpath(path, HERE), what))
        if err.strip():
            print("  " + err.strip().replace("\n", "\n  "))
    if total == 0:
        print("nothing to replay: no regression inputs and no committed corpus")
        return 77
    print("%d passed, %d failed" % (total - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
