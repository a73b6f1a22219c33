#!/usr/bin/env python3
"""The front end on several threads under ThreadSanitizer: builds orbitc with
-Db_sanitize=thread in a temporary directory, then runs two `orbitc check --jobs 4` at
once over generated program roots (with mistakes) and every golden case made a root,
sharing one empty cache, and one over a single program of many files (its files parsed
by the 4 threads between them), then again over the full cache. Any report of ThreadSanitizer
fails the test. Bounded: the build of one executable (-j2) and a few seconds of checks.

    test_tsan.py [--keep DIR]   (DIR: build there and keep it, to run it again faster)
"""
import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
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
    subprocess.run(['ninja', '-C', directory, '-j2', 'cli/orbitc'], check=True,
                   stdout=subprocess.DEVNULL, timeout=1500)
    return os.path.join(directory, 'cli', 'orbitc')


def check(orbitc, cache, cwd, fmt, targets):
    env = dict(os.environ, ORBITC_CACHE_DIR=cache,
               TSAN_OPTIONS='halt_on_error=1:exitcode=%d:second_deadlock_stack=1' % TSAN_EXIT)
    p = subprocess.run([orbitc, 'check', '--jobs', '4', '--format', fmt, '--color=never']
                       + targets, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--keep')
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        orbitc = build(args.keep or os.path.join(tmp, 'build'))
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
            runs.append(check(orbitc, cache, tmp, 'human', ['one']))
            for (status, out, err), fmt in zip(runs, ('human', 'json', 'human (one program)')):
                if status == TSAN_EXIT or b'ThreadSanitizer' in err:
                    failed += 1
                    print('FAIL: --format %s with %s:\n%s' % (fmt, what,
                                                              err.decode(errors='replace')))
                elif status != 1:
                    failed += 1
                    print('FAIL: --format %s with %s: exit status %d' % (fmt, what, status))
        print('%d passed, %d failed' % (6 - failed, failed))
        return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
