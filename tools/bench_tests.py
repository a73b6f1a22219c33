#!/usr/bin/env python3
"""How fast `orbitc test` runs tests: the tests of examples/ (examples/checkout.test.orbit
and any other *.test.orbit there), each copied COPIES times under new names into one
program in a temporary directory, run with --jobs 1 and with --jobs J; prints the tests
per second of each, per core, from the JSON report's own time (the runner's: the
programs lowered, the tests run and judged; not the check before) and the wall time of
the whole command. A measurement to read, never a timed unit test.

    bench_tests.py [--orbitc build/cli/orbitc] [--copies 200] [--jobs J] [--repeat 3]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, 'examples')


def make_program(tmp, copies):
    """The example's sources with each test file copied `copies` times; returns how many
    tests the program holds."""
    count = 0
    for source in glob.glob(os.path.join(EXAMPLES, '*.orbit')):
        if source.endswith('.test.orbit'):
            continue
        shutil.copy(source, tmp)
    for source in glob.glob(os.path.join(EXAMPLES, '*.test.orbit')):
        with open(source, encoding='utf-8') as f:
            text = f.read()
        base = os.path.basename(source)[:-len('.test.orbit')]
        for i in range(copies):
            copy = re.sub(r'^test "([^"]*)"', lambda m: 'test "%s #%d"' % (m.group(1), i), text,
                          flags=re.M)
            count += len(re.findall(r'^test "', copy, flags=re.M))
            with open(os.path.join(tmp, '%s_%d.test.orbit' % (base, i)), 'w',
                      encoding='utf-8') as f:
                f.write(copy)
    return count


def measure(orbitc, tmp, jobs, repeat):
    """The best of `repeat` runs: (runner seconds, wall seconds, tests, failed)."""
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        p = subprocess.run([orbitc, 'test', '--format', 'json', '--jobs', str(jobs), tmp],
                           capture_output=True, text=True)
        wall = time.perf_counter() - start
        if p.returncode not in (0, 1):
            sys.exit('orbitc test failed (%d): %s' % (p.returncode, p.stderr))
        summary = json.loads(p.stdout)['summary']
        run = (summary['seconds'], wall, summary['total'], summary['failed'])
        best = run if best is None or run[0] < best[0] else best
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--orbitc', default=os.path.join(ROOT, 'build', 'cli', 'orbitc'))
    p.add_argument('--copies', type=int, default=200)
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    p.add_argument('--repeat', type=int, default=3)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        count = make_program(tmp, args.copies)
        print('%d tests (examples/*.test.orbit x %d), best of %d runs'
              % (count, args.copies, args.repeat))
        print('%-8s %10s %12s %14s %10s' % ('jobs', 'runner s', 'tests/s', 'tests/s/core',
                                            'wall s'))
        for jobs in sorted({1, args.jobs}):
            seconds, wall, total, failed = measure(args.orbitc, tmp, jobs, args.repeat)
            if failed:
                print('warning: %d tests failed' % failed)
            rate = total / seconds if seconds else float('inf')
            print('%-8d %10.3f %12.0f %14.0f %10.3f' % (jobs, seconds, rate, rate / jobs, wall))
    return 0


if __name__ == '__main__':
    sys.exit(main())
