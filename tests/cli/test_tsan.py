#!/usr/bin/env python3
"""The front end and the simulator on several threads under ThreadSanitizer: builds
orbitc and orbit-run with -Db_sanitize=thread in a temporary directory, then runs two
`orbitc check --jobs 4` at once over generated program roots (with mistakes) and every
golden case made a root, sharing one empty cache, one over a single program of many
files (its files parsed by the 4 threads between them, its workflows checked by them)
and one without the cache (its files read ahead by the threads), then again over the
full cache (the single program without it); a program of many workflows with mistakes
(test_jobs.many_workflows) checked with --jobs 2 and 4, whose outputs must be the bytes
of --jobs 1;
and `orbit-run simulate` of the checkout example with --jobs 2 and 4, whose reports must
be the bytes of --jobs 1; and the unit test of the coverage of Orbit tests
(tests/unit/test_coverage.c: a Coverage per thread over one module, merged); and
`orbitc test --mutate` of the checkout example on 4 threads, the bytes of 1. Any report
of ThreadSanitizer fails the test. Bounded: the build of three executables (-j2) and a
few seconds of runs.

    test_tsan.py [--keep DIR]   (DIR: build there and keep it, to run it again faster)
"""
import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import gen_repo  # noqa: E402
import test_jobs  # noqa: E402

TSAN_EXIT = 66


def build(directory):
    if not os.path.exists(os.path.join(directory, 'build.ninja')):
        subprocess.run(['meson', 'setup', directory, ROOT, '-Db_sanitize=thread',
                        '-Db_lundef=false', '-Dbuildtype=debugoptimized'],
                       check=True, stdout=subprocess.DEVNULL, timeout=600)
    subprocess.run(['ninja', '-C', directory, '-j2', 'cli/orbitc', 'runtime/orbit-run',
                    'tests/unit/test_coverage'],
                   check=True, stdout=subprocess.DEVNULL, timeout=1500)
    return os.path.join(directory, 'cli', 'orbitc'), os.path.join(directory, 'runtime',
                                                                  'orbit-run')


def tsan_env(**more):
    return dict(os.environ, **more,
                TSAN_OPTIONS='halt_on_error=1:exitcode=%d:second_deadlock_stack=1' % TSAN_EXIT)


def check(orbitc, cache, cwd, fmt, targets, jobs=4):
    env = tsan_env(**({'ORBITC_CACHE_DIR': cache} if cache else {}))
    p = subprocess.run([orbitc, 'check', '--jobs', str(jobs), '--format', fmt, '--color=never']
                       + targets, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout, p.stderr


def simulate(orbitc, orbit_run, tmp):
    """The failures of orbit-run simulate with 1, 2 and 4 threads (their reports must agree)."""
    orbc = os.path.join(tmp, 'checkout.orbc')
    subprocess.run([orbitc, 'build', os.path.join(ROOT, 'examples', 'checkout.orbit'), '-o',
                    orbc], check=True, env=tsan_env(), timeout=600)
    reports, failed = {}, 0
    for jobs in (1, 2, 4):
        p = subprocess.run([orbit_run, 'simulate', orbc, '--model',
                            os.path.join(ROOT, 'examples', 'simulate', 'checkout.model.json'),
                            '--runs', '3000', '--jobs', str(jobs), '--format', 'json'],
                           env=tsan_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=600)
        if p.returncode != 0 or b'ThreadSanitizer' in p.stderr:
            failed += 1
            print('FAIL: simulate --jobs %d: exit status %d\n%s' % (
                jobs, p.returncode, p.stderr.decode(errors='replace')))
        reports[jobs] = p.stdout
    for jobs in (2, 4):
        if reports[jobs] != reports[1]:
            failed += 1
            print('FAIL: simulate --jobs %d reports other bytes than --jobs 1' % jobs)
    return failed


def coverage(directory):
    """The failures of the coverage's unit test (its Coverage objects on threads)."""
    p = subprocess.run([os.path.join(directory, 'tests', 'unit', 'test_coverage'), ROOT],
                       env=tsan_env(CK_FORK='no'), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0 or b'ThreadSanitizer' in p.stderr:
        print('FAIL: test_coverage: exit status %d\n%s%s' % (
            p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')))
        return 1
    return 0


def many_workflows(orbitc, tmp):
    """The failures of checking one program of many workflows with 2 and 4 threads (the
    checker's passes over the workflows spread over them: compiler/check/check.c)."""
    test_jobs.many_workflows(os.path.join(tmp, 'many'), files=12, per_file=10)
    failed, first = 0, None
    for jobs in (1, 2, 4):
        status, out, err = check(orbitc, None, tmp, 'json', ['--no-cache', 'many'], jobs)
        if status == TSAN_EXIT or b'ThreadSanitizer' in err:
            failed += 1
            print('FAIL: many workflows, --jobs %d:\n%s' % (jobs, err.decode(errors='replace')))
        elif status != 1 or (first is not None and (status, out, err) != first):
            failed += 1
            print('FAIL: many workflows, --jobs %d: exit status %d, or other bytes than '
                  '--jobs 1' % (jobs, status))
        first = first or (status, out, err)
    return failed


def mutate(orbitc):
    """`orbitc test --mutate` of the checkout example on 4 threads: the bytes of 1 thread."""
    reports, failed = {}, 0
    for jobs in (1, 4):
        p = subprocess.run([orbitc, 'test', '--mutate', '--jobs', str(jobs),
                            os.path.join(ROOT, 'examples')], capture_output=True, env=tsan_env())
        if p.returncode != 1 or b'ThreadSanitizer' in p.stderr:
            failed += 1
            print('FAIL: test --mutate --jobs %d: exit status %d\n%s' % (
                jobs, p.returncode, p.stderr.decode(errors='replace')))
        reports[jobs] = p.stdout
    if reports[4] != reports[1]:
        failed += 1
        print('FAIL: test --mutate --jobs 4 reports other bytes than --jobs 1')
    return failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--keep')
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = args.keep or os.path.join(tmp, 'build')
        orbitc, orbit_run = build(directory)
        gen_repo.make_roots(os.path.join(tmp, 'roots'), 16, 4000, errors_every=2)
        test_jobs.golden_roots(os.path.join(tmp, 'golden'))
        test_jobs.one_program(os.path.join(tmp, 'one'))   # its files parsed by 4 threads
        cache = os.path.join(tmp, 'cache')
        failed = 0
        for round_, what in enumerate(('an empty cache', 'a full cache')):
            with ThreadPoolExecutor(2) as pool:
                runs = list(pool.map(lambda fmt: check(orbitc, cache, tmp, fmt,
                                                       ['roots', 'golden']),
                                     ('human', 'json')))
            # the first time with the cache, the second without it: its files read ahead
            runs.append(check(orbitc, cache, tmp, 'human', ['one'] + (['--no-cache'] * round_)))
            runs.append(check(orbitc, cache, tmp, 'json', ['--no-cache', 'roots', 'golden']))
            for (status, out, err), fmt in zip(runs, ('human', 'json', 'human (one program)',
                                                      'json (--no-cache)')):
                if status == TSAN_EXIT or b'ThreadSanitizer' in err:
                    failed += 1
                    print('FAIL: --format %s with %s:\n%s' % (fmt, what,
                                                              err.decode(errors='replace')))
                elif status != 1:
                    failed += 1
                    print('FAIL: --format %s with %s: exit status %d' % (fmt, what, status))
        failed += many_workflows(orbitc, tmp)
        failed += simulate(orbitc, orbit_run, tmp)
        failed += coverage(directory)
        failed += mutate(orbitc)
        print('%d passed, %d failed' % (20 - failed, failed))
        return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
