#!/usr/bin/env python3
"""The cache of `orbitc check` (docs/cli.md, "Every core, and the cache") never changes an
answer, and trusts nothing it did not write itself:

- a property test: over random trees (program roots nested or not, `files` blocks, the
  same file name and text in several directories, symbolic links to directories and to
  files retargeted between runs), random working directories, paths, flags and standard
  input, a run with the cache prints what a run with `--no-cache` prints, byte for byte,
  with the exit status. Seeded and bounded for the default suite (a few seconds); more
  cases on demand: ORBITC_CACHE_PROPERTY_CASES=500 (and ORBITC_CACHE_PROPERTY_SEED=N to
  replay one seed: a failure prints it with the steps that led to it);
- what is not a regular file in the cache (a FIFO as an entry or as the file index) is
  refused without blocking;
- the cache is private: directories 0700, files 0600 whatever the umask, and an entry
  owned by another user or writable by others is refused, as is a cache directory that
  is not the user's or is writable by others (the run then goes without the cache);
- a relative ORBITC_CACHE_DIR is ignored, as the XDG specification has a relative
  XDG_CACHE_HOME ignored."""
import json
import os
import random
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as h  # noqa: E402
from support.cli import expect, test  # noqa: E402
from support import sanitizers  # noqa: E402

OTHER_UID = 54321   # a user that owns nothing here (the tests run as root: chown works)
FROM_ENV = object()  # run(cache=FROM_ENV): where the environment says


def run(args, cwd, cache=None, stdin=None, env_extra=None, umask=None, timeout=60):
    """`orbitc check ARGS` in `cwd`, with the cache at `cache` (None: --no-cache;
    FROM_ENV: where `env_extra` says); returns (status, stdout bytes, stderr bytes)."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE', 'ORBITC_CACHE_DIR',
                 'XDG_CACHE_HOME'):
        env.pop(name, None)
    extra = []
    if cache is None:
        extra = ['--no-cache']
    elif cache is not FROM_ENV:
        env['ORBITC_CACHE_DIR'] = cache
    if env_extra:
        env.update(env_extra)
    try:
        p = sanitizers.run([h.ORBITC, 'check', '--color=never'] + extra + list(args), cwd=cwd,
                           env=env, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout,
                           preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
    except subprocess.TimeoutExpired:
        raise AssertionError('check %s in %s: no answer within %d s (hangs)'
                             % (args, cwd, timeout))
    expect(p.returncode != 86, 'the sanitizers stopped orbitc: %r' % p.stderr[-2000:])
    return p.returncode, p.stdout, p.stderr


# --- the property: a run with the cache prints what a run without it prints -----------

# Sources: each makes a warning or an error that lint levels, `files` blocks and
# suppressions decide about, or nothing. {n} is a workflow's name (two files of one
# program with the same name make one more error, which is fine).
SOURCES = [
    'workflow {n} {{\n  timeout 1h\n  step charge {{ worker "p"; retry {{ attempts: 3, '
    'backoff: fixed, max_delay: 5s }} }}\n}}\n',
    'workflow {n} {{\n  step charge {{\n    worker "payments.charge"\n'
    '    retry {{ non_retryable: ["CARD_DECLINED"] }}\n  }}\n}}\n',
    'workflow {n} {{\n  timeout 1m\n  step charge {{\n    worker "payments.charge"\n'
    '    timeout 30s\n    retry {{ attempts: 5, backoff: exponential, initial_delay: 1s }}\n'
    '  }}\n}}\n',
    'workflow {n} {{\n  input {{ order_id: string }}\n  step charge {{\n'
    '    worker "payments.charge"\n    retry {{ attempts: 5 }}\n  }}\n}}\n',
    'workflow {n} {{\n  // orbit:allow(W0002)\n  step charge {{ worker "p"; retry {{ '
    'attempts: 3, backoff: fixed, max_delay: 5s }} }}\n}}\n',
    'workflow {n} {{\n  // orbit:allow(W0004)\n  step s {{ sleep 5s }}\n}}\n',
    'workflow {n} {{\n  step s {{ sleep 5s }}\n}}\n',
    'workflow {n} {{\n  step s {{ worker "x"; timeout nope }}\n}}\n',
    'workflow {n} {{\n  step s {{ sleep 5s }}\n',
]
NAMES = ['pay', 'ship', 'refund']
FILE_NAMES = ['pay.orbit', 'a.orbit', 'b.orbit']
CODES = ['W0001', 'W0002', 'W0006', 'W0007', 'W0009', 'W00']
LEVELS = ['allow', 'warn', 'deny']
PATTERNS = ['legacy/**', 'src/**', 'legacy/**', 'src/**', '*.orbit', '**/pay.orbit',
            'legacy/pay.orbit', 'lib/**', 'pay.orbit', 'other/**']


def random_lints(rng, codes=CODES):
    return 'lints { %s }' % ', '.join('%s: %s' % (rng.choice(codes), rng.choice(LEVELS))
                                      for _ in range(rng.randint(1, 2)))


def random_config(rng):
    """The text of an orbit.program: empty, levels, `files` blocks, or a mistake."""
    kind = rng.random()
    if kind < 0.1:
        return ''
    if kind < 0.15:
        return 'program shop { lints { W9999: deny } }\n'   # a mistake: E0701
    body = [random_lints(rng)] if rng.random() < 0.7 else []
    for block in range(rng.choice([0, 1, 1, 1, 2])):
        if block == 0 and rng.random() < 0.7:   # one directory's files apart, whatever
            body.append('files "%s/**" { lints { W00: %s } }'   # they report
                        % (rng.choice(['legacy', 'src', 'lib']), rng.choice(LEVELS)))
        else:
            body.append('files "%s" { %s }' % (rng.choice(PATTERNS),
                                               random_lints(rng, CODES + ['W00'] * 4)))
    return 'program %s {\n  %s\n}\n' % (rng.choice(['shop', 'legacy']), '\n  '.join(body))


class Tree:
    """A temporary tree: top/{repo/{legacy,src,lib/deep},other}, orbit.programs, sources,
    symbolic links; every change is logged, to replay a failure by reading it."""

    DIRS = ['repo', 'repo/legacy', 'repo/src', 'repo/lib/deep', 'other']
    MIRRORS = ['repo/legacy', 'repo/src', 'repo/lib/deep', 'other']
    CWDS = ['.'] + DIRS
    LINKS = {'repo/cur': ['legacy', 'src', 'lib/deep'],
             'link': ['repo/legacy', 'repo/src', 'other'],
             'repo/lib/ln.orbit': ['../legacy/pay.orbit', '../src/a.orbit', 'deep/pay.orbit']}

    def __init__(self, rng, top):
        self.rng, self.top, self.log = rng, top, []
        for d in self.DIRS:
            os.makedirs(self.path(d), exist_ok=True)
        if rng.random() < 0.85:
            self.write('repo/orbit.program', random_config(rng))
        if rng.random() < 0.15:
            self.write('repo/legacy/orbit.program', random_config(rng))
        # one file, the same name and text, in several directories (checked from each, or
        # through a link to each, its path as shown is the same: `./pay.orbit`)
        for name in rng.sample(FILE_NAMES, rng.randint(1, 2)):
            text = self.random_source()
            mirrors = (self.MIRRORS[:3] if rng.random() < 0.7
                       else rng.sample(self.MIRRORS, rng.randint(2, len(self.MIRRORS))))
            for d in mirrors:
                self.write(os.path.join(d, name), text)
        for d in self.DIRS:   # and some of their own
            if rng.random() < 0.1:
                self.write(os.path.join(d, rng.choice(FILE_NAMES)), self.random_source())
        for link in self.LINKS:
            self.retarget(link)

    def path(self, rel):
        return os.path.join(self.top, rel)

    def write(self, rel, text):
        self.log.append('write %s: %r' % (rel, text))
        path = self.path(rel)
        if os.path.islink(path):
            os.unlink(path)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)

    def random_source(self):
        return self.rng.choice(SOURCES).format(n=self.rng.choice(NAMES))

    def sources(self):
        """The regular source files, relative to top."""
        found = []
        for d in self.DIRS:
            for name in sorted(os.listdir(self.path(d))):
                rel = os.path.join(d, name)
                if name.endswith('.orbit') and not os.path.islink(self.path(rel)):
                    found.append(rel)
        return found

    def copy_across(self):
        """The same name and text in another directory: what the cache once confused."""
        files = self.sources()
        if files:
            source = self.rng.choice(files)
            target = os.path.join(self.rng.choice(self.DIRS), os.path.basename(source))
            if target != source:
                self.log.append('copy %s -> %s' % (source, target))
                shutil.copyfile(self.path(source), self.path(target))

    def retarget(self, link):
        target = self.rng.choice(self.LINKS[link])
        self.log.append('symlink %s -> %s' % (link, target))
        tmp = self.path(link) + '.new'
        os.symlink(target, tmp)
        os.replace(tmp, self.path(link))

    def mutate(self):
        rng = self.rng
        what = rng.random()
        files = self.sources()
        if what < 0.25:
            self.retarget(rng.choice(sorted(self.LINKS)))
        elif what < 0.45 and files:
            self.write(rng.choice(files), self.random_source())
        elif what < 0.6:
            self.copy_across()
        elif what < 0.8:
            config = rng.choice(['repo/orbit.program', 'repo/legacy/orbit.program'])
            if os.path.exists(self.path(config)) and rng.random() < 0.3:
                self.log.append('remove %s' % config)
                os.unlink(self.path(config))
            else:
                self.write(config, random_config(rng))
        elif files:
            gone = rng.choice(files)
            self.log.append('remove %s' % gone)
            os.unlink(self.path(gone))

    def random_command(self):
        """(cwd relative to top, arguments, standard input or None)."""
        rng = self.rng
        cwd = rng.choice(self.CWDS)
        targets = ['.'] * 6 + ['repo', 'repo/legacy', 'repo/src', 'repo/cur', 'repo/cur',
                   'link', 'link', 'other', 'repo/lib/ln.orbit'] + self.sources()
        args = []
        for target in rng.sample(targets, rng.choice([1, 1, 1, 2])):
            if target == '.':
                args.append('.')
            elif rng.random() < 0.15:
                args.append(self.path(target))   # absolute
            else:
                args.append(os.path.relpath(self.path(target), self.path(cwd)))
        stdin = None
        if rng.random() < 0.15:
            stdin = self.random_source().encode()
            args.append('-')
            name = rng.choice(self.sources() + ['repo/src/new.orbit', 'repo/legacy/new.orbit',
                                                 'repo/cur/pay.orbit', 'nowhere/x.orbit'])
            args += ['--stdin-filename', os.path.relpath(self.path(name), self.path(cwd))]
        flags = [['--warn', 'W0007'], ['--allow', 'W0002'], ['--select', 'W00'],
                 ['--ignore', 'W0002'], ['--deny-warnings'], ['--max-diagnostics', '1'],
                 ['--exclude', 'deep'], ['--no-ignore'], ['--jobs', '1'], ['--jobs', '3']]
        for flag in rng.sample(flags, rng.choice([0, 0, 1, 1, 2, 3])):
            args += flag
        args += ['--format', rng.choice(['human', 'concise', 'json', 'sarif', 'gitlab'])]
        return cwd, args, stdin


def age_indexes(cache):
    """Every record of every file index trusted, as it would be 2 s after the run that
    wrote it (without this, the files of a test are always too young: workspace/
    file_index.h, "racy git"). Sound here because a change of a file comes at least one
    tick of the file system's clock after the run that recorded it (the sleep below), so
    it always changes its modification time."""
    folder = os.path.join(cache, 'index')
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        with open(path, 'r+b') as f:
            head = f.read(32)
            if len(head) == 32 and head[:8] == b'orbitcFI':
                f.seek(24)
                f.write(struct.pack('<q', struct.unpack('<q', head[24:32])[0] + 3600 * 10**9))


def difference(cold, warm):
    """Where the run with the cache first differs from the run without it."""
    if cold[0] != warm[0]:
        lines = ['  exit status %d, with the cache %d' % (cold[0], warm[0])]
    else:
        lines = []
    for name, a, b in (('stdout', cold[1], warm[1]), ('stderr', cold[2], warm[2])):
        a, b = a.splitlines(), b.splitlines()
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b) or a[i] != b[i]:
                lines.append('  %s, line %d:\n    --no-cache: %r\n    cached:     %r'
                             % (name, i + 1, a[i] if i < len(a) else '(the end)',
                                b[i] if i < len(b) else '(the end)'))
                break
    return '\n'.join(lines)


def property_case(seed, steps):
    """One tree, `steps` times: a change or two (a link retargeted, a file rewritten or
    copied, a configuration changed), then one command run from two or three working
    directories, the same words each time (the same paths as shown, other files), or the
    command of the step before again; each run with the cache (written, then read with
    every file index record trusted) against the run without it."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as top:
        top = os.path.realpath(top)
        cache = os.path.join(top, 'cache')
        tree = Tree(rng, os.path.join(top, 't'))
        command = None
        for step in range(steps):
            if step:
                time.sleep(0.012)   # the next change is in another tick of the clock
                for _ in range(rng.randint(1, 2)):
                    tree.mutate()
            if command is None or rng.random() < 0.6:
                command = tree.random_command()
            first_cwd, args, stdin = command
            # and from each directory below the root that may hold the same files (the
            # orbit.program as shown, an absolute path, is the same there)
            for cwd in [first_cwd] + [d for d in Tree.MIRRORS[:3] if d != first_cwd]:
                tree.log.append('check in %s: %s' % (cwd, ' '.join(args)))
                where = tree.path(cwd)
                cold = run(args, where, stdin=stdin)
                for attempt in ('with the cache', 'warm, every file index record trusted'):
                    warm = run(args, where, cache=cache, stdin=stdin)
                    if warm != cold:
                        raise AssertionError(
                            'seed %d, step %d, %s: the output differs from --no-cache\n'
                            '  replay: ORBITC_CACHE_PROPERTY_SEED=%d '
                            'ORBITC_CACHE_PROPERTY_CASES=1\n  steps:\n    %s\n%s'
                            % (seed, step, attempt, seed, '\n    '.join(tree.log),
                               difference(cold, warm)))
                    age_indexes(cache)


@test
def cached_runs_print_what_uncached_runs_print():
    seed = int(os.environ.get('ORBITC_CACHE_PROPERTY_SEED', '20261206'))
    cases = int(os.environ.get('ORBITC_CACHE_PROPERTY_CASES', '6'))
    for case in range(cases):
        property_case(seed + case, steps=4)


@test
def same_path_from_another_directory_is_another_answer():
    """The case that the key once missed: `files` patterns match the path below the
    root, so `pay.orbit` checked from legacy/ (allowed there) and from src/ (denied) are
    two answers, whatever the text and the path as shown have in common."""
    with tempfile.TemporaryDirectory() as tmp:
        repo = os.path.join(tmp, 'repo')
        for d in ('legacy', 'src'):
            os.makedirs(os.path.join(repo, d))
        h.write(os.path.join(repo, 'orbit.program'),
                'program shop {\n  lints { W0002: deny }\n'
                '  files "legacy/**" { lints { W0002: allow } }\n}\n')
        for d in ('legacy', 'src'):
            h.write(os.path.join(repo, d, 'pay.orbit'), SOURCES[0].format(n='pay'))
        cache = os.path.join(tmp, 'cache')
        expect(run(['.'], os.path.join(repo, 'legacy'), cache=cache)[0] == 0,
               'W0002 is allowed in legacy/')
        cold = run(['.'], os.path.join(repo, 'src'))
        expect(cold[0] == 1 and b'error[W0002]' in cold[2], 'denied in src/: %r' % (cold,))
        expect(run(['.'], os.path.join(repo, 'src'), cache=cache) == cold,
               'src/pay.orbit got the answer of legacy/pay.orbit from the cache')
        # the same through a symbolic link whose target changes
        link = os.path.join(repo, 'cur')
        os.symlink('legacy', link)
        expect(run(['cur'], repo, cache=cache)[0] == 0, 'allowed through cur -> legacy')
        os.unlink(link)
        os.symlink('src', link)
        expect(run(['cur'], repo, cache=cache) == run(['cur'], repo),
               'cur -> src got the answer of cur -> legacy from the cache')


# --- what is in the cache directory: regular files only, never blocking ---------------

def small_program(tmp):
    """A program with a warning (its entry holds a diagnostic, so it is read)."""
    repo = os.path.join(tmp, 'repo')
    os.makedirs(repo)
    h.write(os.path.join(repo, 'orbit.program'), 'program shop {}\n')
    h.write(os.path.join(repo, 'pay.orbit'), SOURCES[0].format(n='pay'))
    return repo


def cache_files(cache, folder):
    path = os.path.join(cache, folder)
    return [os.path.join(path, n) for n in sorted(os.listdir(path))] if os.path.isdir(path) else []


@test
def fifo_in_the_cache_is_refused_without_blocking():
    for folder in ('index', 'check'):
        with tempfile.TemporaryDirectory() as tmp:
            repo, cache = small_program(tmp), os.path.join(tmp, 'cache')
            cold = run(['.'], repo)
            run(['.'], repo, cache=cache)
            made = cache_files(cache, folder)
            expect(made, 'nothing in %s/' % folder)
            for path in made:
                os.unlink(path)
                os.mkfifo(path)
            status, out, err = run(['.'], repo, cache=cache, timeout=10)
            expect((status, out) == cold[:2], 'a FIFO as %s changed the output' % folder)
            expect(b'could not be read and was ignored' in err,
                   'a FIFO as %s was not reported: %r' % (folder, err))
            expect(run(['.'], repo, cache=cache) == cold,
                   'the FIFO in %s/ was not replaced by a file' % folder)
            expect(all(stat.S_ISREG(os.lstat(p).st_mode) for p in cache_files(cache, folder)),
                   'a FIFO is left in %s/' % folder)


# --- a private cache ---------------------------------------------------------------

def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


@test
def cache_is_private_whatever_the_umask():
    with tempfile.TemporaryDirectory() as tmp:
        repo = small_program(tmp)
        cache = os.path.join(tmp, 'a', 'cache')   # its parent is made too
        run(['.'], repo, cache=cache, umask=0)
        for d in (os.path.join(tmp, 'a'), cache, os.path.join(cache, 'check'),
                  os.path.join(cache, 'index')):
            expect(mode(d) == 0o700, '%s is %o, not 700' % (d, mode(d)))
        files = cache_files(cache, 'check') + cache_files(cache, 'index')
        expect(len(files) == 2, 'an entry and a file index: %s' % files)
        for f in files:
            expect(mode(f) == 0o600, '%s is %o, not 600' % (f, mode(f)))


def poison(entry):
    """Replaces an entry (the same format and key) with one that reports nothing."""
    with open(entry, encoding='utf-8') as f:
        data = json.load(f)
    expect(data['diagnostics'], 'the entry held no diagnostic to hide')
    data['diagnostics'] = []
    os.unlink(entry)
    with open(entry, 'w', encoding='utf-8') as f:
        json.dump(data, f, separators=(',', ':'))


def poisoned_cache(tmp):
    """(the program, the cache of its run with its one entry poisoned, that entry's name
    in the cache, the run without the cache)."""
    repo, cache = small_program(tmp), os.path.join(tmp, 'poisoned')
    cold = run(['.'], repo)
    expect(cold[0] == 0 and b'warning[W0002]' in cold[2], 'no warning: %r' % (cold,))
    run(['.'], repo, cache=cache)
    [entry] = cache_files(cache, 'check')
    poison(entry)
    os.chmod(entry, 0o600)
    return repo, cache, os.path.relpath(entry, cache), cold


@test
def entry_of_another_user_or_writable_by_others_is_refused():
    with tempfile.TemporaryDirectory() as tmp:
        repo, poisoned, name, cold = poisoned_cache(tmp)
        for how in ('another owner', 'mode 0666', 'mode 0646', 'mode 0620', 'a symbolic link'):
            cache = os.path.join(tmp, how.replace(' ', '-'))
            shutil.copytree(poisoned, cache, symlinks=True)
            entry = os.path.join(cache, name)
            if how == 'another owner':
                os.chown(entry, OTHER_UID, OTHER_UID)
            elif how.startswith('mode'):
                os.chmod(entry, int(how[5:], 8))
            else:
                target = os.path.join(tmp, how + '.json')
                os.rename(entry, target)
                os.symlink(target, entry)
            status, out, err = run(['.'], repo, cache=cache)
            expect((status, out) == cold[:2] and b'warning[W0002]' in err,
                   'an entry with %s was trusted: %r' % (how, err))
            expect(b'1 entry of the cache could not be read' in err,
                   'the entry with %s was not reported: %r' % (how, err))
            expect(run(['.'], repo, cache=cache) == cold, 'not rewritten (%s)' % how)
            st = os.lstat(entry)
            expect(stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()
                   and mode(entry) == 0o600, 'the rewritten entry (%s) is not the user\'s '
                   '0600 file' % how)


@test
def cache_directory_of_another_user_or_writable_by_others_is_not_used():
    with tempfile.TemporaryDirectory() as tmp:
        repo, poisoned, name, cold = poisoned_cache(tmp)
        for folder in ('', 'check', 'index'):
            for how in ('another owner', 'mode 0770', 'mode 0757', 'mode 1777'):
                cache = os.path.join(tmp, '%s-%s' % (folder, how.replace(' ', '-')))
                shutil.copytree(poisoned, cache, symlinks=True)
                d = os.path.join(cache, folder) if folder else cache
                if how == 'another owner':
                    os.chown(d, OTHER_UID, OTHER_UID)
                else:
                    os.chmod(d, int(how[5:], 8))
                before = sorted(os.listdir(os.path.join(cache, 'check')))
                status, out, err = run(['.'], repo, cache=cache)
                what = '%s/ with %s' % (folder or 'the cache', how)
                expect((status, out) == cold[:2] and err.startswith(cold[2]),
                       '%s was used: %r' % (what, err))
                expect(b'orbitc: warning: the cache directory ' in err
                       and b'the cache was not used' in err, '%s: not said: %r' % (what, err))
                expect(sorted(os.listdir(os.path.join(cache, 'check'))) == before
                       and os.path.exists(os.path.join(cache, name)), '%s was written to' % what)
                st = os.stat(d)
                expect((st.st_uid, stat.S_IMODE(st.st_mode))
                       == ((OTHER_UID if how == 'another owner' else os.geteuid()),
                           (0o700 if how == 'another owner' else int(how[5:], 8))),
                       '%s was changed: orbitc never repairs a directory' % what)


@test
def relative_cache_dir_is_ignored():
    with tempfile.TemporaryDirectory() as tmp:
        repo = small_program(tmp)
        xdg = os.path.join(tmp, 'xdg')
        cold = run(['.'], repo)
        status, out, err = run(['.'], repo, cache=FROM_ENV,
                               env_extra={'ORBITC_CACHE_DIR': 'rel-cache', 'XDG_CACHE_HOME': xdg})
        expect(not os.path.exists(os.path.join(repo, 'rel-cache')),
               'a relative ORBITC_CACHE_DIR wrote the cache into the project')
        expect((status, out) == cold[:2], 'the output differs')
        expect(err == b'orbitc: warning: ORBITC_CACHE_DIR is not an absolute path '
                      b'(`rel-cache`): ignored\n' + cold[2], 'not said once: %r' % err)
        expect(cache_files(os.path.join(xdg, 'orbitc'), 'check'),
               'the cache was not where XDG_CACHE_HOME says')
        # a relative XDG_CACHE_HOME is ignored too (the specification says so), quietly
        home = os.path.join(tmp, 'home')
        run(['.'], repo, cache=FROM_ENV, env_extra={'XDG_CACHE_HOME': 'rel-xdg', 'HOME': home})
        expect(not os.path.exists(os.path.join(repo, 'rel-xdg'))
               and cache_files(os.path.join(home, '.cache', 'orbitc'), 'check'),
               'a relative XDG_CACHE_HOME was used')


if __name__ == '__main__':
    h.main()
