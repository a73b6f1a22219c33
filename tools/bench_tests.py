#!/usr/bin/env python3
"""How fast `orbitc test` runs tests: the tests of examples/ (examples/checkout.test.orbit
and any other *.test.orbit there), each copied COPIES times under new names into one
program in a temporary directory, run with --jobs 1 and with --jobs J; prints the tests
per second of each, per core, from the JSON report's own time (the runner's: the
programs lowered, the tests run and judged; not the check before) and the wall time of
the whole command. A measurement to read, never a timed unit test.

With --explore, the same program explored instead (`orbitc test --explore --budget B`,
docs/testing.md "Exploring"): the worlds per second, and per core, from the JSON report's
own count of worlds (shrinking's runs included) and time.

    bench_tests.py [--orbitc build/cli/orbitc] [--copies 200] [--jobs J] [--repeat 3]
    bench_tests.py --explore [--copies 4] [--budget 10000] [--jobs J] [--repeat 3]
"""
import argparse
import glob
import resource
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


def measure(orbitc, tmp, jobs, repeat, explore=None):
    """The best of `repeat` runs: (runner seconds, wall seconds, tests or worlds, failed
    tests or broken ones). `explore`: the budget of an --explore run."""
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        extra = ['--explore', '--budget', str(explore)] if explore else []
        p = subprocess.run([orbitc, 'test', '--format', 'json', '--jobs', str(jobs)] + extra
                           + [tmp], capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime
        if p.returncode not in (0, 1):
            sys.exit('orbitc test failed (%d): %s' % (p.returncode, p.stderr))
        summary = json.loads(p.stdout)['summary']
        if explore:
            run = (summary['seconds'], wall, summary['worlds'], summary['broken'], cpu)
        else:
            run = (summary['seconds'], wall, summary['total'], summary['failed'])
        best = run if best is None or run[0] < best[0] else best
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--orbitc', default=os.path.join(ROOT, 'build', 'cli', 'orbitc'))
    p.add_argument('--copies', type=int, default=None,
                   help='copies of each test file (default 200; 4 with --explore)')
    p.add_argument('--explore', action='store_true', help='worlds per second of --explore')
    p.add_argument('--budget', type=int, default=10000, help='--explore: worlds per test')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    p.add_argument('--repeat', type=int, default=3)
    args = p.parse_args()
    if args.copies is None:
        args.copies = 4 if args.explore else 200
    if args.explore:
        return bench_explore(args)
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


def bench_explore(args):
    with tempfile.TemporaryDirectory() as tmp:
        count = make_program(tmp, args.copies)
        print('%d tests (examples/*.test.orbit x %d) explored, --budget %d, best of %d runs'
              % (count, args.copies, args.budget, args.repeat))
        # worlds per CPU second: what a core does, whatever else the machine runs
        print('%-8s %10s %12s %14s %10s %14s' % ('jobs', 'runner s', 'worlds/s', 'worlds/s/core',
                                                 'wall s', 'worlds/cpu-s'))
        for jobs in sorted({1, args.jobs}):
            seconds, wall, worlds, broken, cpu = measure(args.orbitc, tmp, jobs, args.repeat,
                                                         explore=args.budget)
            if broken:
                print('warning: %d tests broke an invariant' % broken)
            rate = worlds / seconds if seconds else float('inf')
            print('%-8d %10.3f %12.0f %14.0f %10.3f %14.0f'
                  % (jobs, seconds, rate, rate / jobs, wall, worlds / cpu if cpu else 0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
