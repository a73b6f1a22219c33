#!/usr/bin/env python3
"""`orbitc check --jobs` and the cache (docs/cli.md, "Every core, and the cache"): the
output is the same, byte for byte, for any number of threads, over every golden case
(each made a program root of its own, all checked in one run) and generated
repositories (tools/gen_repo.py); the cache is hit, missed, survives corrupt entries and
several processes at once, and never changes what is printed, in any format."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                'tools'))
from support import cli as h  # noqa: E402
from support.cli import expect, test  # noqa: E402
from support import sanitizers  # noqa: E402
import gen_repo  # noqa: E402

GOLDEN = os.path.join(h.ROOT, 'tests', 'golden')
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


def golden_check_entries():
    """(area, name, path) of every entry of the golden areas that `check` reads, in order."""
    for area in sorted(os.listdir(GOLDEN)):
        folder = os.path.join(GOLDEN, area)
        if area in ('run', 'fmt', 'harness') or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            yield area, name, os.path.join(folder, name)


def golden_roots(into):
    """Every golden case of `check` under `into`, each in a root of its own."""
    count = 0
    for area, name, path in golden_check_entries():
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


def same_for_every_jobs(directory, formats, jobs=(1, 2, 3), cwd=None, extra=()):
    """Checks `directory` (with the options `extra`) with each --jobs in each format;
    returns the first format's run."""
    runs = []
    for fmt in formats:
        first = check(['--jobs', '1', '--format', fmt, directory] + list(extra), cwd=cwd)
        for j in jobs[1:]:
            other = check(['--jobs', str(j), '--format', fmt, directory] + list(extra),
                          cwd=cwd)
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
    for _, name, path in golden_check_entries():
        if name.endswith('.orbit') and os.path.isfile(path):
            count += 1
            shutil.copy(path, os.path.join(into, '%04d-%s' % (count, name)))
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


@test
def jobs_over_a_program_with_tests():
    """The tests of a program checked on threads: its workflows' steps are checked by
    several threads (more than one chunk of workflows), whose names of tasks and signals
    are their own, and a test that scripts them checks clean, as on one thread."""
    with tempfile.TemporaryDirectory() as tmp:
        into = os.path.join(tmp, 'p')
        os.makedirs(into)
        for i in range(40):
            h.write(os.path.join(into, 'w%02d.orbit' % i),
                    'workflow w%d {\n'
                    '  step call { using orbit.http.request; with { url: "https://x/%d" } }\n'
                    '  step work { worker "only.here.%d"; timeout 1s; retry { attempts: 2 } }\n'
                    '  step wait { await "go.%d"; timeout 1h }\n}\n' % (i, i, i, i))
        h.write(os.path.join(into, 'z.test.orbit'),
                'test "every name of a workflow checked on another thread" {\n'
                '  workflow w37\n'
                '  step call { attempts: [{ status: 503 }, { network_error: "reset" }] }\n'
                '  task "only.here.37" { attempts: [{ fail: { code: "BUSY" }, times: 2 }] }\n'
                '  signal "go.37" { at: 1s }\n'
                '  expect { status: failed, step work { attempts: 3 } }\n}\n')
        status, out, err = same_for_every_jobs('p', ['human', 'json'], jobs=(1, 2, 4), cwd=tmp)
        expect(status == 0 and err.count(b'warning[W0012]') == 1 and b'error[' not in err,
               'the test is checked as on one thread: %r' % err[-600:])


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
                  b'{"format":"orbitc check cache 2","key":"0","diagnostics":[]}']
        # without the file index, which vouches for the programs without diagnostics
        # (their entries are not read then)
        shutil.rmtree(os.path.join(cache, 'index'))
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
        left += [n for n in os.listdir(os.path.join(cache, 'index')) if len(n) != 16]
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


# --- the file index (workspace/file_index.h): stat -> content hash, racy records ---

HEADER = struct.Struct('<8sIIIIqQ')      # magic, version, files, clean, text, start, hash
RECORD = struct.Struct('<QqqQQQII')      # size, mtime, ctime, ino, dev, hash, path at, len


def index_file(cache):
    folder = os.path.join(cache, 'index')
    names = os.listdir(folder)
    expect(len(names) == 1, 'one file index per tree: %s' % names)
    return os.path.join(folder, names[0])


def hash_wide(data, seed=0xcbf29ce484222325):
    """base/hash.h's hash_wide, to sign a forged index."""
    k0, k1, mask = 0xa0761d6478bd642f, 0xe7037ed1a0b428db, (1 << 64) - 1

    def mix(a, b):
        p = a * b
        return (p ^ (p >> 64)) & mask
    n = len(data)
    h, at = seed ^ mix(n ^ k0, k1), 0
    while n - at >= 16:
        a, b = struct.unpack_from('<QQ', data, at)
        h = mix(a ^ k0 ^ h, b ^ k1)
        at += 16
    a, b = struct.unpack('<QQ', data[at:] + bytes(16 - (n - at)))
    h = mix(a ^ k0 ^ h, b ^ k1 ^ (n - at))
    return mix(h ^ k1, h ^ k0)


def read_index(path):
    data = open(path, 'rb').read()
    head = list(HEADER.unpack_from(data))
    records = [list(RECORD.unpack_from(data, HEADER.size + i * RECORD.size))
               for i in range(head[2])]
    tail = data[HEADER.size + head[2] * RECORD.size:]
    return head, records, tail


def write_index(path, head, records, tail):
    body = b''.join(RECORD.pack(*r) for r in records) + tail
    head[6] = hash_wide(body)
    with open(path, 'wb') as f:
        f.write(HEADER.pack(*head) + body)


def record_of(records, tail, clean_count, path):
    text = tail[clean_count * 8:]
    for r in records:
        if text[r[6]:r[6] + r[7]].decode() == path:
            return r
    raise AssertionError('no record of %s' % path)


def same_size_edit(path):
    """Puts a mistake into the file without changing its size or its mtime (touch -d)."""
    st = os.stat(path)
    text = open(path, encoding='utf-8').read()
    edited = text.replace('sleep ', 'sleeq ', 1)
    expect(edited != text and len(edited) == len(text), 'no `sleep ` to edit in %s' % path)
    with open(path, 'w', encoding='utf-8', newline='') as f:
        f.write(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    expect(os.stat(path).st_size == st.st_size
           and os.stat(path).st_mtime_ns == st.st_mtime_ns, 'touch -d did not hold')


@test
def file_index_python_hash_is_the_one_of_orbitc():
    """The forged indexes below are only read when this hash is base/hash.h's."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check([repo], cache=cache, cwd=tmp)
        data = open(index_file(cache), 'rb').read()
        expect(HEADER.unpack_from(data)[6] == hash_wide(data[HEADER.size:]),
               'the index is not signed with hash_wide')
        expect(HEADER.unpack_from(data)[:2] == (b'orbitcFI', 1), 'magic or version')


@test
def file_index_notices_a_same_size_same_mtime_change():
    """touch -d keeps the size and mtime, not the change time: the file is read again."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        main = os.path.join(tmp, repo, 'p0000', 'main.orbit')
        old = os.stat(main).st_mtime_ns - 60 * 10**9   # an old file: not racy
        os.utime(main, ns=(old, old))
        check(['--format', 'json', repo], cache=cache, cwd=tmp)
        path = index_file(cache)
        head, records, tail = read_index(path)
        head[5] += 3600 * 10**9   # the index written long after: every record trusted
        write_index(path, head, records, tail)
        same_size_edit(main)
        cold = check(['--format', 'json', repo], cwd=tmp)
        expect(b'sleeq' in cold[1] or cold[0] != 0, 'the edit made no diagnostic: %r'
               % (cold,))
        expect(check(['--format', 'json', repo], cache=cache, cwd=tmp) == cold,
               'a same-size, same-mtime change was served from the cache')


@test
def file_index_trusts_only_records_that_are_not_racy():
    """A record whose stat matches is trusted (the file is not read: a forged record with
    the stat of an edited file and the hash of its old text serves the old result), unless
    the file's times are within the file system's granularity of the run that wrote the
    index: then it is read and hashed again."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        main = os.path.join(tmp, repo, 'p0000', 'main.orbit')
        rel = os.path.join(repo, 'p0000', 'main.orbit')
        before = check(['--format', 'json', repo], cwd=tmp)
        check(['--format', 'json', repo], cache=cache, cwd=tmp)
        path = index_file(cache)
        head, records, tail = read_index(path)
        same_size_edit(main)
        after = check(['--format', 'json', repo], cwd=tmp)
        expect(after != before, 'the edit changed nothing')
        st = os.stat(main)
        r = record_of(records, tail, head[3], rel)
        r[0:5] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        # not racy: the index says it was written an hour after the file's times
        head[5] = max(st.st_mtime_ns, st.st_ctime_ns) + 3600 * 10**9
        write_index(path, head, records, tail)
        expect(check(['--format', 'json', repo], cache=cache, cwd=tmp) == before,
               'a trusted record was not trusted (the file was read)')
        # racy: written within the granularity (2 s) of the file's last change
        head, records, tail = read_index(path)
        r = record_of(records, tail, head[3], rel)
        r[0:5] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        r[5] = record_of(read_index(path)[1], tail, head[3], rel)[5]
        head[5] = max(st.st_mtime_ns, st.st_ctime_ns) + 10**9
        write_index(path, head, records, tail)
        expect(check(['--format', 'json', repo], cache=cache, cwd=tmp) == after,
               'a racy record was trusted')


def age_index(cache):
    """Makes every record of the file index trusted, as it would be 2 s after the run that
    wrote it (the files of a test are always younger than that)."""
    path = index_file(cache)
    head, records, tail = read_index(path)
    head[5] += 3600 * 10**9
    write_index(path, head, records, tail)


@test
def file_index_serves_every_format_as_a_cold_run():
    """With every record trusted (no source of a clean program is read, and the sources of
    the others only for the diagnostics they show), every format prints what a run
    without the cache prints."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check([repo], cache=cache, cwd=tmp)
        age_index(cache)
        for fmt in FORMATS + ['concise']:
            for jobs in ('1', '2'):
                args = ['--jobs', jobs, '--format', fmt, repo]
                expect(check(args, cache=cache, cwd=tmp) == check(args, cwd=tmp),
                       '--format %s --jobs %s differs when served from the file index'
                       % (fmt, jobs))
        head, records, tail = read_index(index_file(cache))
        # the 3 programs without diagnostics, and the 6 orbit.programs without mistakes
        expect(head[3] == 3 + 6, 'the index lists %d keys, not 9' % head[3])


@test
def file_index_unread_configuration_is_read_when_its_program_is_checked():
    """An orbit.program without mistakes is left unread while its program comes from the
    cache; when the program changes, its levels (here W0002 denied) still apply."""
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, 'w', 'q')
        os.makedirs(root)
        shutil.copy(os.path.join(GOLDEN, 'build', 'retry_defaults.orbit'),
                    os.path.join(root, 'main.orbit'))
        h.write(os.path.join(root, 'orbit.program'), 'program q { lints { W0002: deny } }\n')
        cache = os.path.join(tmp, 'cache')
        cold = check(['--format', 'concise', 'w'], cwd=tmp)
        expect(b'error[W0002]' in cold[1], 'W0002 is not denied: %r' % (cold,))
        check(['w'], cache=cache, cwd=tmp)
        age_index(cache)
        expect(check(['--format', 'concise', 'w'], cache=cache, cwd=tmp) == cold,
               'served from the cache, the output differs')
        with open(os.path.join(root, 'main.orbit'), 'a', encoding='utf-8') as f:
            f.write('// changed\n')
        expect(check(['--format', 'concise', 'w'], cache=cache, cwd=tmp)
               == check(['--format', 'concise', 'w'], cwd=tmp),
               'a program checked with its configuration unread lost its levels')


@test
def file_index_file_changed_before_it_was_shown_restarts_the_run():
    """A file left unread (its record matched) but read for a diagnostic it shows, whose
    content is not what the record said (it changed between the stat and the read, here
    a forged record): the run starts again without the index and prints what a run
    without the cache prints."""
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        main = os.path.join(tmp, repo, 'p0001', 'main.orbit')   # one with diagnostics
        rel = os.path.join(repo, 'p0001', 'main.orbit')
        check([repo], cache=cache, cwd=tmp)
        same_size_edit(main)
        st = os.stat(main)
        path = index_file(cache)
        head, records, tail = read_index(path)
        r = record_of(records, tail, head[3], rel)
        r[0:5] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        head[5] = max(st.st_mtime_ns, st.st_ctime_ns) + 3600 * 10**9
        write_index(path, head, records, tail)
        for fmt in ('human', 'json'):
            expect(check(['--format', fmt, repo], cache=cache, cwd=tmp)
                   == check(['--format', fmt, repo], cwd=tmp),
                   '--format %s: a file changed before it was shown was shown as recorded'
                   % fmt)


@test
def file_index_changed_file_is_checked_again():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        check([repo], cache=cache, cwd=tmp)
        check([repo], cache=cache, cwd=tmp)   # warm: from the index
        main = os.path.join(tmp, repo, 'p0002', 'main.orbit')
        with open(main, 'a', encoding='utf-8') as f:
            f.write('\nworkflow late { step s { sleep 1.5s } }\n')
        expect(check(['--format', 'json', repo], cache=cache, cwd=tmp)
               == check(['--format', 'json', repo], cwd=tmp),
               'a changed file was served from the file index')
        os.unlink(main)
        expect(check(['--format', 'json', repo], cache=cache, cwd=tmp)
               == check(['--format', 'json', repo], cwd=tmp), 'a deleted file was served')


@test
def file_index_corrupt_is_ignored_and_reported_once():
    with tempfile.TemporaryDirectory() as tmp:
        repo, cache = small_repo(tmp), os.path.join(tmp, 'cache')
        cold = check(['--format', 'json', repo], cwd=tmp)
        check(['--format', 'json', repo], cache=cache, cwd=tmp)
        path = index_file(cache)
        good = open(path, 'rb').read()
        flipped = bytearray(good)
        flipped[HEADER.size + 3] ^= 0x40   # a record's size: the hash no longer matches
        for bad in (b'', good[:20], good[:-1], bytes(flipped), b'orbitcFI' + bytes(200)):
            with open(path, 'wb') as f:
                f.write(bad)
            status, out, err = check(['--format', 'json', repo], cache=cache, cwd=tmp)
            expect((status, out) == cold[:2], 'a corrupt index changed stdout (%d bytes)'
                   % len(bad))
            warnings = [l for l in err.decode().splitlines() if 'could not be read' in l]
            expect(len(warnings) == 1 and '1 entry' in warnings[0] and path in warnings[0],
                   'a corrupt index (%d bytes) not reported once: %r' % (len(bad), err))
            expect(check(['--format', 'json', repo], cache=cache, cwd=tmp) == cold,
                   'the index was not written again')


MANY_DECLS = """worker "pay.charge" {
  input { amount: number, currency: string, note: string? }
  output { id: string, total: number }
}
type Money { amount: number, currency: string }
"""

# One workflow of many_workflows: errors and warnings of the signature pass (E0305 when
# it has no `return`) and of the body pass (unknown fields, members, workflows and
# built-in tasks with their did-you-means, types, a step used before it runs, W0002,
# W0006, W0007 when asked for), suppressions used (W0002) and unused (W0009), and W0010
# of a long sleep, of its own or of a child workflow (worst_resolve, after the bodies).
MANY_WORKFLOW = """workflow wf_{n} {{
  input {{ amount: number, money: Money }}
  output {{ id: string }}
  timeout {timeout}
  step charge {{
    worker "pay.charge"
    with {{ amount: input.amount, curency: input.money.currency }}
    retry {{ attempts: 3, max_delay: 30s }}
    timeout 10m
  }}
  // orbit:allow(W0002)
  step quiet {{ worker "pay.charge"; with {{ amount: 1, currency: "EUR" }}; retry {{ attempts: 3, max_delay: 30s }}; timeout 1s }}
  // orbit:allow(W0001)
  step later {{ compute charge.id + {n} }}
  step call {{ workflow wf_{next}x }}
  step child {{ workflow wf_{previous}; with {{ amount: 1, money: {{ amount: 1, currency: "EUR" }} }} }}
  stp typo {{ sleep {n}s }}
  step nap {{ sleep {nap} }}
  step field {{ compute input.money.amout }}
  step early {{ compute after.total }}
  step after {{ worker "pay.charge"; with {{ amount: "x{n}", currency: "EUR" }}; timeout 1s }}
  step task {{ using http.request; with {{ url: {n} }} }}
{ret}}}
"""


def many_workflows(into, files=40, per_file=10):
    """One program of files * per_file workflows, each with several kinds of error and
    warning, and suppressions (MANY_WORKFLOW); returns how many workflows."""
    os.makedirs(into)
    h.write(os.path.join(into, 'decls.orbit'), MANY_DECLS)
    count = files * per_file
    for f in range(files):
        text = ''
        for n in range(f * per_file, (f + 1) * per_file):
            text += MANY_WORKFLOW.format(n=n, next=(n + 1) % count,
                                         previous=(n + count - 1) % count,
                                         timeout='1h' if n % 5 else '1m',
                                         nap='2h' if n % 7 == 0 else '1s',
                                         ret='' if n % 3 == 0 else '  return { id: charge.id }\n')
        h.write(os.path.join(into, 'w%02d.orbit' % f), text)
    return count


@test
def jobs_over_one_program_of_many_workflows():
    """The checker's passes over the workflows of one program spread over the threads
    (compiler/check/check.c): every kind of diagnostic of a workflow, in every workflow,
    so that every chunk of workflows reports some, with the lint levels of the run."""
    with tempfile.TemporaryDirectory() as tmp:
        count = many_workflows(os.path.join(tmp, 'many'))
        status, out, err = same_for_every_jobs('many', FORMATS, jobs=(1, 2, 4), cwd=tmp)
        expect(status == 1, 'exit status %d' % status)
        codes = {}
        concise = b''.join(check(['--jobs', '1', '--format', 'concise', 'many'], cwd=tmp)[1:])
        for code in re.findall(r'\[([EW][0-9]{4})\]', concise.decode()):
            codes[code] = codes.get(code, 0) + 1
        for code, want in (('E0503', count), ('E0506', count), ('E0202', count),
                           ('E0303', count), ('E0504', count), ('E0206', count),
                           ('E0501', 2 * count), ('E0203', count), ('W0009', count),
                           ('E0305', (count + 2) // 3), ('W0002', count), ('W0006', count // 5)):
            expect(codes.get(code) == want, '%s: %r times, not %d' % (code, codes.get(code), want))
        expect(codes.get('W0010', 0) >= count // 7, 'W0010: %r times' % codes.get('W0010'))
        # the lint levels of the run reach every thread's sink
        status, out, err = same_for_every_jobs('many', ['concise'], jobs=(1, 2, 4), cwd=tmp,
                                               extra=['--warn', 'W0007', '--allow', 'W0002'])
        expect(b'[W0007]' in out and b'[W0002]' not in out, 'the levels were not applied')


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


def check_measured(args, cwd):
    """`orbitc check --no-cache ARGS`: (status, stdout, stderr, the most memory it held in
    KB, seconds)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen([h.ORBITC, 'check', '--no-cache', '--color=never'] + args,
                             cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read(), usage.ru_maxrss, seconds


@test
def jobs_is_capped_by_the_work():
    """--jobs starts no more threads than there is work for (docs/cli.md): -j 20000 on a
    program of three small files holds what -j 1 holds (it once started 20,000 threads,
    each with a compiler: half a gigabyte and tens of seconds), and prints the same."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in ('a', 'b', 'c'):
            h.write(os.path.join(tmp, name + '.orbit'),
                    'workflow %s {\n  step s { worker "p"; retry { attempts: 3, backoff: '
                    'fixed, max_delay: 5s } }\n}\n' % name)
        one = check_measured(['-j', '1', '.'], tmp)
        many = check_measured(['-j', '20000', '.'], tmp)
        expect(many[:3] == one[:3] and b'warning[W0002]' in one[2],
               '-j 20000 prints otherwise: %r' % (many[:3],))
        expect(many[3] < one[3] + 16 * 1024,
               '-j 20000 held %d KB, -j 1 %d KB (%.1f s)' % (many[3], one[3], many[4]))



GNU_TIME = '/usr/bin/time'


@test
def jobs_thread_holds_one_program_at_a_time():
    """A thread forgets each program before it takes the next (workspace/check_jobs.c,
    forget_held): 40 programs of 60 KB checked on one thread hold about what one does,
    besides their texts. A thread that forgot nothing held 6 times as much (19.7 MB
    against 3.1 MB). Measured by GNU time, which the suite's machines have: a child of
    this process would count this process's own memory (os.wait4). The sanitizers' build
    keeps no freed memory aside here, so that it is used again as in the other builds."""
    if not os.access(GNU_TIME, os.X_OK):
        print('jobs_thread_holds_one_program_at_a_time: no %s, not measured' % GNU_TIME)
        return
    with tempfile.TemporaryDirectory() as tmp:
        gen_repo.make_roots(os.path.join(tmp, 'many'), 40, 60000, errors_every=0)
        gen_repo.make_roots(os.path.join(tmp, 'one'), 1, 60000, errors_every=0)
        source = sum(os.path.getsize(os.path.join(d, f))
                     for d, _, files in os.walk(os.path.join(tmp, 'many')) for f in files)
        held = {}
        for name in ('one', 'many'):
            kb = os.path.join(tmp, name + '.kb')
            p = sanitizers.run([GNU_TIME, '-f', '%M', '-o', kb, h.ORBITC, 'check', '--no-cache',
                                '-j', '1', name], cwd=tmp, quarantine_size_mb=0,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            expect(p.returncode == 0, '%s: %d %r' % (name, p.returncode, p.stderr[-500:]))
            held[name] = int(open(kb).read().split()[-1])
        expect(held['many'] < held['one'] + 2 * source // 1024,
               '40 programs held %d KB, one %d KB, for %d KB of source'
               % (held['many'], held['one'], source // 1024))


if __name__ == '__main__':
    h.main()
