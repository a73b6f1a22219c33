#!/usr/bin/env python3
"""Benchmarks `orbitc check` on generated repositories (tools/gen_repo.py): `--jobs 1`
against `--jobs 2`, and a cold run against a warm-cache re-check, with wall time, CPU time
(user + system of the orbitc process) and peak resident memory; instructions with
callgrind on a smaller repository (wall time is noisy on a shared machine; callgrind
counts the instructions of every thread). Beside `--jobs 2`, the machine's ceiling,
measured in the same run: two independent `--jobs 1` processes at once, each on half of
the program roots (or of the 10,000 files' folders: two programs of 5,000 files), against
one process on all; `--jobs 2` is reported as a share of that ceiling.

    tools/bench_repo.py [--orbitc build/cli/orbitc] [--roots 1000] [--root-size 20K]
                        [--files 10000] [--file-size 2K] [--runs 3] [--no-instructions]
                        [--no-cache-compare]

Repositories: ROOTS program roots of about ROOT-SIZE each (every tenth with a few
mistakes), and one program of FILES files of about FILE-SIZE each. Every figure is the
median of RUNS runs; the runs of the two settings compared alternate (1, 2, 1, 2, ...),
so that the load of the machine falls on both alike, and the ratio is computed from
medians of one invocation. Inputs go to a temporary directory. Not a test.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import gen_corpus  # noqa: E402
import gen_repo  # noqa: E402

TARGET_JOBS = 1.8     # --jobs 2 over --jobs 1 on a 2-core machine (docs/performance.md)
TARGET_CACHE = 20.0   # a warm-cache re-check over a cold run


def timed_together(cmds, cwd, env=None):
    """Commands started at once: (wall s until the last finishes, cpu s of them all, peak
    RSS MB of the largest, exit status of the first). The times are measured here to the
    microsecond (a warm re-check takes a few hundredths of a second, GNU time's
    resolution); the peak memory is GNU time's (the resource usage that os.wait4 reports
    after a fork from this process counts this process's own memory as the child's
    peak). The times include GNU time's own start, about a millisecond."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    procs = []
    for cmd in cmds:
        figures = tempfile.NamedTemporaryFile('r')
        procs.append((subprocess.Popen(['/usr/bin/time', '-f', '%M', '-o', figures.name] + cmd,
                                       cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL),
                      figures))
    rsss, status = [], None
    for p, figures in procs:
        p.wait()
        status = p.returncode if status is None else status
        rsss.append(int(figures.read().split()[-1]) / 1024)
        figures.close()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, max(rsss), status


def timed(cmd, cwd, env=None):
    """One command, as timed_together measures."""
    return timed_together([cmd], cwd, env)


def run(orbitc, args, cwd, cache=None):
    """One `orbitc check` (timed), with the cache in directory `cache` or without one."""
    env = dict(os.environ)
    if cache:
        env['ORBITC_CACHE_DIR'] = cache
    cmd = [orbitc, 'check', '--format', 'json'] + ([] if cache else ['--no-cache']) + args
    return timed(cmd, cwd, env)


def run_pair(orbitc, halves, cwd):
    """Two independent `orbitc check --jobs 1` processes at once, one on each half of the
    paths (timed_together)."""
    return timed_together([[orbitc, 'check', '--format', 'json', '--no-cache', '--jobs', '1']
                           + half for half in halves], cwd)


def halves_of(cwd, target):
    """The entries of directory `target` (program roots, or the files' folders) in two
    halves, as paths relative to `cwd`."""
    entries = sorted(os.listdir(os.path.join(cwd, target)))
    middle = len(entries) // 2
    return ([os.path.join(target, e) for e in entries[:middle]],
            [os.path.join(target, e) for e in entries[middle:]])


def compare_ceiling(orbitc, target, cwd, runs):
    """The machine's ceiling for 2 jobs, measured in the same run: one `--jobs 1` process
    on everything against two independent `--jobs 1` processes at once on two halves.
    Two processes share nothing, so their scaling is what this machine's 2 processors
    give to work that does not wait on each other (they slow each other down through the
    shared caches, memory bandwidth and the hypervisor)."""
    halves = halves_of(cwd, target)
    one, pair = [], []
    for _ in range(runs):
        one.append(run(orbitc, ['--jobs', '1', target], cwd))
        pair.append(run_pair(orbitc, halves, cwd))
    return median_runs(one), median_runs(pair)


def median_runs(samples):
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def compare_jobs(orbitc, target, cwd, runs):
    one, two = [], []
    for _ in range(runs):
        one.append(run(orbitc, ['--jobs', '1', target], cwd))
        two.append(run(orbitc, ['--jobs', '2', target], cwd))
    return median_runs(one), median_runs(two)


def git_copy(cwd, target, tmp):
    """A copy of directory `target` committed to a git repository of its own, its index
    fresh and older than its files by more than git's racy window: `git status` then
    looks at the stat of every file and opens none, as a warm re-check does."""
    copy = os.path.join(tmp, 'git-' + target)
    shutil.copytree(os.path.join(cwd, target), copy)
    git = ['git', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost']
    for args in (['init', '-q'], ['add', '-A'], ['commit', '-q', '-m', 'bench']):
        subprocess.run(git + args, cwd=copy, check=True, stdout=subprocess.DEVNULL)
    time.sleep(2.5)
    subprocess.run(git + ['status', '--porcelain'], cwd=copy, check=True,
                   stdout=subprocess.DEVNULL)
    return copy


def compare_cache(orbitc, target, cwd, runs, tmp):
    """A cold run (an empty cache, written) against a warm re-check, and beside them
    `git status` on a copy of the same tree: what looking at the stat of every file costs
    on this machine, the floor of a re-check that trusts no file it has not looked at."""
    git_dir = git_copy(cwd, target, tmp)
    cold, warm, git = [], [], []
    for i in range(runs):
        cache = os.path.join(tmp, 'cache-%s-%d' % (target, i))
        cold.append(run(orbitc, ['--jobs', '2', target], cwd, cache))
        warm.append(run(orbitc, ['--jobs', '2', target], cwd, cache))
        git.append(timed(['git', 'status', '--porcelain'], git_dir))
    shutil.rmtree(git_dir)
    return median_runs(cold), median_runs(warm), median_runs(git)


def instructions(orbitc, args, cwd, cache=None):
    """Instructions of every thread of one run, by callgrind (None when it fails)."""
    env = dict(os.environ)
    if cache:
        env['ORBITC_CACHE_DIR'] = cache
    out = os.path.join(cwd, 'callgrind.out')
    cmd = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + out, orbitc, 'check',
           '--format', 'json'] + ([] if cache else ['--no-cache']) + args
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=3600)
    m = re.search(rb'Collected : (\d+)', p.stderr)
    if os.path.exists(out):
        os.unlink(out)
    return int(m.group(1)) if m else None


def line(what, a, b, target=None):
    ratio = a[0] / b[0] if b[0] else float('inf')
    cpu_ratio = a[1] / b[1] if b[1] else float('inf')
    judged = '' if target is None else ('  (goal >= %.1fx: %s)'
                                        % (target, 'met' if ratio >= target else 'NOT met'))
    print('  %-40s %8.3f s wall %7.3f s cpu %5.0f MB | %8.3f s wall %7.3f s cpu %5.0f MB'
          '  wall ratio %.2fx, cpu ratio %.2fx%s' % ((what,) + a + b + (ratio, cpu_ratio, judged)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--orbitc', default=os.path.join(ROOT, 'build', 'cli', 'orbitc'))
    ap.add_argument('--roots', type=int, default=1000)
    ap.add_argument('--root-size', default='20K')
    ap.add_argument('--files', type=int, default=10000)
    ap.add_argument('--file-size', default='2K')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--instruction-roots', type=int, default=100,
                    help='program roots of the repository measured with callgrind')
    ap.add_argument('--no-instructions', action='store_true')
    ap.add_argument('--no-cache-compare', action='store_true',
                    help='only --jobs 1 against --jobs 2 and the ceiling')
    args = ap.parse_args()
    orbitc = os.path.abspath(args.orbitc)
    with tempfile.TemporaryDirectory() as tmp:
        gen_repo.make_roots(os.path.join(tmp, 'roots'), args.roots,
                            gen_corpus.parse_size(args.root_size))
        gen_repo.make_files(os.path.join(tmp, 'files'), args.files,
                            gen_corpus.parse_size(args.file_size))
        for name in ('roots', 'files'):
            size = sum(os.path.getsize(os.path.join(d, f))
                       for d, _, fs in os.walk(os.path.join(tmp, name)) for f in fs)
            print('%s: %.1f MB of source' % (name, size / 1e6))
        print('load average before: %.2f %.2f %.2f, %d processors'
              % (os.getloadavg() + (os.cpu_count(),)))
        print('median of %d runs; each line: first setting | second setting' % args.runs)
        for name, what in (('roots', '%d roots of %s' % (args.roots, args.root_size)),
                           ('files', 'one program of %d files' % args.files)):
            one, two = compare_jobs(orbitc, name, tmp, args.runs)
            line('%s: --jobs 1 | --jobs 2' % what, one, two, TARGET_JOBS)
            alone, pair = compare_ceiling(orbitc, name, tmp, args.runs)
            line('%s: ceiling: 1 process | 2 on halves' % what, alone, pair)
            print('  %-40s --jobs 2 reaches %.0f %% of the ceiling (%.2fx of %.2fx)'
                  % ('', 100 * (one[0] / two[0]) / (alone[0] / pair[0]),
                     one[0] / two[0], alone[0] / pair[0]))
            if args.no_cache_compare:
                continue
            cold, warm, git = compare_cache(orbitc, name, tmp, args.runs, tmp)
            line('%s: cold | warm cache' % what, cold, warm, TARGET_CACHE)
            line('%s: warm cache | git status' % what, warm, git)
            print('  %-40s the goal asks a warm re-check of %.3f s; git status takes %.3f s'
                  % ('', cold[0] / TARGET_CACHE, git[0]))
        print('load average after: %.2f %.2f %.2f' % os.getloadavg())
        if args.no_instructions:
            return
        small = os.path.join(tmp, 'small')
        gen_repo.make_roots(small, args.instruction_roots, gen_corpus.parse_size(args.root_size))
        cache = os.path.join(tmp, 'cache-ir')
        figures = {
            '--jobs 1': instructions(orbitc, ['--jobs', '1', 'small'], tmp),
            '--jobs 2': instructions(orbitc, ['--jobs', '2', 'small'], tmp),
            'cold, writing the cache': instructions(orbitc, ['--jobs', '1', 'small'], tmp, cache),
            'warm cache': instructions(orbitc, ['--jobs', '1', 'small'], tmp, cache),
        }
        print('instructions (callgrind, every thread), %d roots of %s:'
              % (args.instruction_roots, args.root_size))
        for what, count in figures.items():
            print('  %-26s %s' % (what, '{:,}'.format(count) if count else 'callgrind failed'))
        if figures['--jobs 1'] and figures['warm cache']:
            print('  cold (--no-cache) / warm: %.1fx fewer instructions'
                  % (figures['--jobs 1'] / figures['warm cache']))


if __name__ == '__main__':
    main()
