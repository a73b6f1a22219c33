#!/usr/bin/env python3
"""`orbitc check --jobs` and the cache (docs/cli.md, "Every core, and the cache"): the
output is the same, byte for byte, for any number of threads, over every golden case
(each made a program root of its own, all checked in one run) and generated
repositories (tools/gen_repo.py); the cache is hit, missed, survives corrupt entries and
several processes at once, and never changes what is printed, in any format."""
import os
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'tools'))
import cli_harness as h  # noqa: E402
from cli_harness import expect, test  # noqa: E402
import gen_repo  # noqa: E402

GOLDEN = os.path.join(h.ROOT, 'golden')
FORMATS = ['human', 'json', 'github', 'gitlab', 'sarif']


def check(args, cache=None, cwd=None):
    """Runs `orbitc check ARGS` (with the cache at `cache`, or --no-cache); returns
    (status, stdout bytes, stderr bytes)."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    extra = []
    if cache:
        env['ORBITC_CACHE_DIR'] = cache
    else:
        env.pop('ORBITC_CACHE_DIR', None)
        extra = ['--no-cache']
    p = subprocess.run([h.ORBITC, 'check', '--color=never', '--max-diagnostics=0'] + extra
                       + list(args), cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr


def golden_roots(into):
    """Every golden case of `check` under `into`, each in a root of its own."""
    count = 0
    for area in sorted(os.listdir(GOLDEN)):
        folder = os.path.join(GOLDEN, area)
        if area in ('run', 'fmt', 'harness') or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            root = os.path.join(into, '%s-%s' % (area, name.replace('.', '_')))
            if name.endswith('.case') and os.path.isdir(path):
                shutil.copytree(path, root, symlinks=True)
            elif name.endswith('.orbit'):
                os.makedirs(root)
                shutil.copy(path, root)
            else:
                continue
            if not os.path.exists(os.path.join(root, 'orbit.program')):
                h.write(os.path.join(root, 'orbit.program'), '')
            count += 1
    return count


def same_for_every_jobs(directory, formats, jobs=(1, 2, 3), cwd=None):
    """Checks `directory` with each --jobs in each format; returns the first format's
    run."""
    runs = []
    for fmt in formats:
        first = check(['--jobs', '1', '--format', fmt, directory], cwd=cwd)
        for j in jobs[1:]:
            other = check(['--jobs', str(j), '--format', fmt, directory], cwd=cwd)
            expect(other == first, '--format %s: --jobs %d differs from --jobs 1 over %s'
                   % (fmt, j, directory))
        runs.append(first)
    return runs[0]


@test
def jobs_over_the_golden_tree():
    with tempfile.TemporaryDirectory() as tmp:
        count = golden_roots(os.path.join(tmp, 'g'))
        expect(count > 100, 'only %d golden cases found' % count)
        status, out, err = same_for_every_jobs('g', FORMATS, cwd=tmp)
        expect(status == 1 and err.count(b'error[') > 100 and err.count(b'warning[') > 20,
               'the golden cases report too little: %r' % err[-300:])
    # the golden tree as it is (its own roots, files below none)
    same_for_every_jobs(GOLDEN, ['human', 'json'], jobs=(1, 2))


@test
def jobs_over_generated_repositories():
    with tempfile.TemporaryDirectory() as tmp:
        gen_repo.make_roots(os.path.join(tmp, 'roots'), 24, 8000, errors_every=3)
        gen_repo.make_files(os.path.join(tmp, 'files'), 60, 1500)
        status, out, err = same_for_every_jobs('roots', ['human', 'json'], jobs=(1, 2, 4),
                                               cwd=tmp)
        expect(status == 1 and err.count(b'error[') >= 8,
               'the generated mistakes were not reported: %r' % err[-300:])
        status, out, err = same_for_every_jobs('files', ['human', 'json'], jobs=(1, 2),
                                               cwd=tmp)
        expect(status == 0, 'the split program does not check clean: %r' % err[-500:])
        # both kinds in one run, and a file below no root
        h.write(os.path.join(tmp, 'loose.orbit'), 'workflow w { step s { sleep 1x } }\n')
        same_for_every_jobs('.', ['human', 'sarif'], jobs=(1, 2), cwd=tmp)


def one_program(into):
    """Every golden file of `check` as a file of one program under `into` (no root), with
    a realistic program split into 40 files; returns how many golden files."""
    os.makedirs(into)
    count = 0
    for area in sorted(os.listdir(GOLDEN)):
        folder = os.path.join(GOLDEN, area)
        if area in ('run', 'fmt', 'harness') or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith('.orbit') and os.path.isfile(os.path.join(folder, name)):
                count += 1
                shutil.copy(os.path.join(folder, name),
                            os.path.join(into, '%04d-%s' % (count, name)))
    gen_repo.make_files(os.path.join(into, 'split'), 40, 1500)
    return count


@test
def jobs_over_one_program_of_many_files():
    """Fewer programs than threads: the threads parse the files of one program between
    them and one checks it (workspace/check_jobs.c, the sharing by file). Every golden
    file made a file of one program: lexical, syntax and checker mistakes in files parsed
    by different threads, names declared in one file and used in another, suppressions."""
    with tempfile.TemporaryDirectory() as tmp:
        count = one_program(os.path.join(tmp, 'one'))
        expect(count > 100, 'only %d golden files found' % count)
        status, out, err = same_for_every_jobs('one', FORMATS, jobs=(1, 2, 4), cwd=tmp)
        expect(status == 1 and err.count(b'error[') > 100 and err.count(b'warning[') > 20,
               'the one program reports too little: %r' % err[-300:])
        cache = os.path.join(tmp, 'cache')
        for _ in range(2):   # writing the cache, then reading it
            cached = check(['--jobs', '2', '--format', 'human', 'one'], cache=cache, cwd=tmp)
            expect(cached == (status, out, err), 'with the cache, --jobs 2 differs')


def entries(cache):
    folder = os.path.join(cache, 'check')
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def small_repo(tmp):
    gen_repo.make_roots(os.path.join(tmp, 'r'), 6, 3000, errors_every=2)
    return 'r'


@test
def cache_never_changes_the_output():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        for fmt in FORMATS:
            cold = check(['--format', fmt, repo], cwd=tmp)
            written = check(['--format', fmt, repo], cache=cache, cwd=tmp)
            warm = check(['--format', fmt, repo], cache=cache, cwd=tmp)
            expect(written == cold, '--format %s: the run that writes the cache differs' % fmt)
            expect(warm == cold, '--format %s: the run that reads the cache differs' % fmt)
        expect(len(entries(cache)) == 6, 'one entry per program: %s' % entries(cache))
        # the summary and --max-diagnostics are computed from cached diagnostics too
        cold = check(['--max-diagnostics', '2', repo], cwd=tmp)
        warm = check(['--max-diagnostics', '2', repo], cache=cache, cwd=tmp)
        expect(warm == cold, '--max-diagnostics differs with the cache')


@test
def cache_is_read():
    """A hit parses nothing: what the entry says is printed (here an edited message)."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check(['--format', 'json', repo], cache=cache, cwd=tmp)
        edited = 0
        for name in entries(cache):
            path = os.path.join(cache, 'check', name)
            text = open(path, encoding='utf-8').read()
            if '"message":"' in text:
                h.write(path, text.replace('"message":"', '"message":"CACHED ', 1))
                edited += 1
        expect(edited > 0, 'no entry holds a diagnostic')
        status, out, err = check(['--format', 'json', repo], cache=cache, cwd=tmp)
        expect(out.count(b'CACHED ') == edited, 'the edited entries were not read: %r'
               % out[:300])
        expect(err == b'', 'a valid entry was reported: %r' % err)


@test
def cache_is_missed_on_change():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check([repo], cache=cache, cwd=tmp)
        before = entries(cache)
        main = os.path.join(tmp, repo, 'p0000', 'main.orbit')
        with open(main, 'a', encoding='utf-8') as f:
            f.write('\nworkflow added_here { step s { sleep 5 } }\n')
        cold = check(['--format', 'json', repo], cwd=tmp)
        warm = check(['--format', 'json', repo], cache=cache, cwd=tmp)
        expect(warm == cold, 'a changed file was served from the cache')
        expect(b'added_here' in cold[1] or b'"E' in cold[1], 'the change made no diagnostic')
        expect(len(entries(cache)) == len(before) + 1, 'the changed program has no new entry')
        # a renamed file (its path is in the key, and in its diagnostics)
        os.rename(main, os.path.join(tmp, repo, 'p0000', 'renamed.orbit'))
        expect(check([repo], cache=cache, cwd=tmp) == check([repo], cwd=tmp),
               'a renamed file was served under its old name')
        # another lint level (or selection) is another key
        for args in (['--warn', 'W0007'], ['--allow', 'W0001'], ['--select', 'W00'],
                     ['--ignore', 'W0001']):
            expect(check(args + ['--format', 'json', repo], cache=cache, cwd=tmp)
                   == check(args + ['--format', 'json', repo], cwd=tmp),
                   '%s was served from the entries of another level' % args)


@test
def configuration_is_in_the_key():
    """orbit.program's levels, per file too, decide what is reported: a change of it is a
    miss."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        root = os.path.join(tmp, repo, 'p0001')
        check(['--format', 'json', repo], cache=cache, cwd=tmp)
        for config in ('program p0001 { lints { W0001: deny } }\n',
                       'program p0001 { files "main.orbit" { lints { W0001: allow } } }\n'):
            h.write(os.path.join(root, 'orbit.program'), config)
            expect(check(['--format', 'json', repo], cache=cache, cwd=tmp)
                   == check(['--format', 'json', repo], cwd=tmp),
                   'a changed orbit.program was served from the cache: %r' % config)


@test
def corrupt_entries_are_ignored_and_reported_once():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check([repo], cache=cache, cwd=tmp)
        names = entries(cache)
        damage = [b'', b'{"format":', b'\x00\xff garbage',
                  b'{"format":"orbitc check cache 1","key":"0","diagnostics":[]}']
        for name, bad in zip(names, damage):
            with open(os.path.join(cache, 'check', name), 'wb') as f:
                f.write(bad)
        for fmt in ('human', 'json'):
            cold = check(['--format', fmt, repo], cwd=tmp)
            status, out, err = check(['--format', fmt, repo], cache=cache, cwd=tmp)
            expect((status, out) == cold[:2], '--format %s: a corrupt entry changed stdout'
                   % fmt)
            lines = err.decode().splitlines(keepends=True)
            warnings = [l for l in lines if 'of the cache could not be read' in l]
            if fmt == 'human':
                expect(len(warnings) == 1 and '4 entries' in warnings[0],
                       'not reported once: %r' % warnings)
                expect(''.join(l for l in lines if l not in warnings) == cold[2].decode(),
                       'the diagnostics differ beside the report')
            else:   # the human run wrote them again
                expect(warnings == [] and err == b'',
                       'entries were rewritten, yet reported again: %r' % err)
        expect(check([repo], cache=cache, cwd=tmp) == check([repo], cwd=tmp),
               'the rewritten entries differ')


@test
def several_processes_share_the_cache():
    with tempfile.TemporaryDirectory() as tmp:
        gen_repo.make_roots(os.path.join(tmp, 'r'), 16, 3000, errors_every=2)
        cache = os.path.join(tmp, 'cache')
        cold = check(['--format', 'json', 'r'], cwd=tmp)
        for round_ in range(2):   # an empty cache, then a full one
            with ThreadPoolExecutor(4) as pool:
                runs = list(pool.map(lambda _: check(['--jobs', '2', '--format', 'json', 'r'],
                                                     cache=cache, cwd=tmp), range(4)))
            for run in runs:
                expect(run == cold, 'round %d: a concurrent run differs: %r'
                       % (round_, run[2][-300:]))
        left = [n for n in entries(cache) if not n.endswith('.json')]
        expect(left == [], 'temporary files left behind: %s' % left)
        expect(len(entries(cache)) == 16, 'entries: %d' % len(entries(cache)))


@test
def no_cache_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        env_cache = check([repo], cache=cache, cwd=tmp)
        shutil.rmtree(cache)
        env = dict(os.environ, ORBITC_CACHE_DIR=cache)
        p = subprocess.run([h.ORBITC, 'check', '--no-cache', '--color=never', repo], cwd=tmp,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        expect(not os.path.exists(cache), '--no-cache wrote the cache')
        expect((p.returncode, p.stdout, p.stderr) == env_cache, '--no-cache differs')
        # an unwritable cache directory costs nothing but time
        h.write(cache, 'a file, not a directory')
        expect(check([repo], cache=cache, cwd=tmp) == env_cache,
               'an unwritable cache changed the output')


@test
def jobs_is_validated():
    for bad in ('0', '-1', 'x', ''):
        status, out, err = h.run('check', '--jobs', bad, h.EXAMPLE)
        expect(status == 2 and 'invalid number' in err, '--jobs %r: %d %s' % (bad, status, err))
    status, out, err = h.run('build', '--jobs', '2', h.EXAMPLE, '-o', '/dev/null')
    expect(status == 2 and '--jobs' in err, 'build took --jobs: %s' % err)
    for args in (['-j', '1'], ['--jobs=64'], ['-j', '2']):
        status, out, err = h.run('check', *args, '--no-cache', h.EXAMPLE)
        expect(status == 0 and err == '', '%s: %d %s' % (args, status, err))


if __name__ == '__main__':
    h.main()
