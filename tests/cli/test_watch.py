#!/usr/bin/env python3
"""`orbitc check --watch` (docs/cli.md, "Watching"), driven as a user drives it: the
files are edited, made invalid, renamed, deleted and created again while it runs, and
after each change the test waits (at most WAIT seconds) for the next check's report;
then SIGINT stops it with status 0. The diagnostics are read in the concise format on
standard output, the reports on standard error.

    test_watch.py --orbitc PATH        ends with `N passed, N failed`
"""
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, main, test, write

WAIT = 30            # seconds for one check after a change, on a loaded machine
GOOD = 'workflow w { step s { sleep 1s } }\n'
BAD = 'workflow w { step s { slep 1s } }\n'


class Watch:
    """orbitc check --watch running in `cwd`; its output read line by line."""

    def __init__(self, cwd, *args, prefix=(), preexec_fn=None):
        env = dict(os.environ)
        for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
            env.pop(name, None)
        self.p = subprocess.Popen(list(prefix) + [cli_harness.ORBITC, 'check', '--watch',
                                                  '--format', 'concise'] + list(args),
                                  cwd=cwd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, preexec_fn=preexec_fn)
        self.out, self.err = [], []
        self.seen = 0   # the lines of stdout that wait_check has returned
        self.lock = threading.Lock()
        self.readers = [threading.Thread(target=self.read, args=(stream, lines), daemon=True)
                        for stream, lines in ((self.p.stdout, self.out),
                                              (self.p.stderr, self.err))]
        for reader in self.readers:
            reader.start()

    def read(self, stream, lines):
        for line in stream:
            with self.lock:
                lines.append(line.decode('utf-8', 'replace').rstrip('\n'))

    def reports(self):
        with self.lock:
            return [l for l in self.err if 'watching for changes' in l]

    def wait_report(self, count, what):
        """Waits until `count` checks have been reported; returns the diagnostics of the
        last one (the concise lines since the report before it)."""
        deadline = time.monotonic() + WAIT
        while len(self.reports()) < count:
            expect(time.monotonic() < deadline, '%s: no check within %d s; stderr %r'
                   % (what, WAIT, self.err))
            expect(self.p.poll() is None, '%s: it exited with %s' % (what, self.p.returncode))
            time.sleep(0.05)
        time.sleep(0.3)   # the diagnostics are flushed before the report; let the reader catch up
        with self.lock:
            return list(self.out)

    def wait_check(self, count, what):
        """As wait_report, but returns only the diagnostics printed since the last call:
        those of the checks in between ([] when they were clean)."""
        out = self.wait_report(count, what)
        new, self.seen = out[self.seen:], len(out)
        return new

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        try:
            status = self.p.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise AssertionError('SIGINT did not stop it within %d s' % WAIT)
        for reader in self.readers:   # its last lines: read to the end of its output
            reader.join(timeout=WAIT)
        return status

    def stop_ok(self):
        """Stops it; it must end with status 0 (and not have ended before)."""
        status = self.stop()
        expect(status == 0, 'stopped with status %s; stderr %r' % (status, self.err[-3:]))


@test
def edits_renames_deletions_and_invalid_files_are_checked_again():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), GOOD)
        w = Watch(tmp)
        try:
            expect(w.wait_report(1, 'start') == [], 'clean at first: %r' % w.out)
            write(os.path.join(tmp, 'a.orbit'), BAD)                       # an edit
            out = w.wait_report(2, 'edit')
            expect(out == ['./a.orbit:1:23: error[E0303]: unknown step member `slep`'],
                   'after the edit: %r' % out)
            os.rename(os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit'))   # a rename
            out = w.wait_report(3, 'rename')
            expect(out[-1] == './b.orbit:1:23: error[E0303]: unknown step member `slep`',
                   'after the rename: %r' % out)
            with open(os.path.join(tmp, 'b.orbit'), 'wb') as f:           # invalid UTF-8
                f.write(b'workflow w { step s { sleep 1s } } \xff\n')
            out = w.wait_report(4, 'invalid')
            expect('E0001' in out[-1], 'an invalid file: %r' % out)
            os.unlink(os.path.join(tmp, 'b.orbit'))                       # a deletion
            w.wait_report(5, 'deletion')
            expect(any('no .orbit files in directory' in l for l in w.err), 'empty: %r' % w.err)
            os.mkdir(os.path.join(tmp, 'new'))                             # a new directory...
            w.wait_report(6, 'new directory')
            write(os.path.join(tmp, 'new', 'c.orbit'), BAD)               # ...is watched too
            out = w.wait_report(7, 'file in the new directory')
            expect(out[-1] == './new/c.orbit:1:23: error[E0303]: unknown step member `slep`',
                   'new directory: %r' % out)
            write(os.path.join(tmp, 'notes.txt'), 'not a source file')   # not relevant
            time.sleep(1.5)
            expect(len(w.reports()) == 7, 'a .txt file changes nothing: %r' % w.reports())
        finally:
            status = w.stop()
        expect(status == 0, 'SIGINT: status %s' % status)
        expect(w.err[-1] == 'orbitc: stopped watching', 'last line: %r' % w.err[-1:])


@test
def a_burst_of_changes_is_one_check():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), GOOD)
        w = Watch(tmp)
        try:
            w.wait_report(1, 'start')
            for i in range(20):                    # as `git checkout` of 20 files
                write(os.path.join(tmp, 'f%d.orbit' % i), 'workflow w%d { step s { sleep 1s } }\n' % i)
            w.wait_report(2, 'burst')
            time.sleep(1.5)
            expect(len(w.reports()) <= 3, 'debounced: %d checks' % len(w.reports()))
        finally:
            expect(w.stop() == 0, 'SIGINT')


@test
def a_watched_file_replaced_by_an_editor_save():
    """A file named on the command line, saved as editors do: a temporary file renamed
    over it. Its directory is watched, so the new file is seen."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'a.orbit')
        write(path, GOOD)
        w = Watch(tmp, 'a.orbit')
        try:
            w.wait_report(1, 'start')
            write(os.path.join(tmp, '.a.orbit.swp'), BAD)
            os.rename(os.path.join(tmp, '.a.orbit.swp'), path)
            out = w.wait_report(2, 'save')
            expect(out == ['a.orbit:1:23: error[E0303]: unknown step member `slep`'], repr(out))
        finally:
            expect(w.stop() == 0, 'SIGINT')


def put(path, text):
    """Writes `path`, making its directories."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write(path, text)


def error_at(path):
    return '%s:1:23: error[E0303]: unknown step member `slep`' % path


@test
def the_configuration_of_a_root_above_the_path_is_watched():
    """The program's orbit.program lies above the path watched: edited, deleted and
    created again, each time the check says what a cold one says."""
    with tempfile.TemporaryDirectory() as tmp:
        put(os.path.join(tmp, 'src', 'a.orbit'), GOOD)
        config = os.path.join(tmp, 'orbit.program')
        write(config, 'program app { }\n')
        w = Watch(tmp, 'src')
        try:
            expect(w.wait_check(1, 'start') == [], 'clean at first: %r' % w.out)
            write(config, 'program app { lints { W0001: sometimes } }\n')   # edited
            out = w.wait_check(2, 'orbit.program edited')
            expect(len(out) == 1 and 'orbit.program:1:30: error[E0701]' in out[0],
                   'after the edit: %r' % out)
            os.unlink(config)                                               # deleted
            out = w.wait_check(3, 'orbit.program deleted')
            expect(out == [], 'after the deletion: %r' % out)
            write(config, 'program app { lints { W0001: never } }\n')      # created again
            out = w.wait_check(4, 'orbit.program created')
            expect(len(out) == 1 and 'orbit.program:1:30: error[E0701]' in out[0],
                   'after the creation: %r' % out)
        finally:
            w.stop_ok()


@test
def the_target_of_a_symbolic_link_is_watched():
    """src/link.orbit -> ../other/current.orbit -> v1.orbit, outside the path watched:
    the target edited, a link of the chain retargeted, the new target saved as editors
    save (a temporary file renamed over it), the source's link itself retargeted and its
    new target edited."""
    with tempfile.TemporaryDirectory() as tmp:
        other = os.path.join(tmp, 'other')
        put(os.path.join(other, 'v1.orbit'), GOOD)
        write(os.path.join(other, 'v2.orbit'), GOOD)
        os.symlink('v1.orbit', os.path.join(other, 'current.orbit'))
        os.mkdir(os.path.join(tmp, 'src'))
        os.symlink('../other/current.orbit', os.path.join(tmp, 'src', 'link.orbit'))
        w = Watch(tmp, 'src')
        try:
            expect(w.wait_check(1, 'start') == [], 'clean at first: %r' % w.out)
            write(os.path.join(other, 'v1.orbit'), BAD)                     # target edited
            out = w.wait_check(2, 'target edited')
            expect(out == [error_at('src/link.orbit')], 'after the edit: %r' % out)
            os.symlink('v2.orbit', os.path.join(other, '.new'))             # link retargeted
            os.rename(os.path.join(other, '.new'), os.path.join(other, 'current.orbit'))
            out = w.wait_check(3, 'link retargeted')
            expect(out == [], 'after the retargeting: %r' % out)
            write(os.path.join(other, '.v2.swp'), BAD)                      # saved by rename
            os.rename(os.path.join(other, '.v2.swp'), os.path.join(other, 'v2.orbit'))
            out = w.wait_check(4, 'new target saved')
            expect(out == [error_at('src/link.orbit')], 'after the save: %r' % out)
            put(os.path.join(tmp, 'third', 'v3.orbit'), GOOD)              # the link itself
            os.symlink('../third/v3.orbit', os.path.join(tmp, 'src', '.new'))   # retargeted
            os.rename(os.path.join(tmp, 'src', '.new'), os.path.join(tmp, 'src', 'link.orbit'))
            out = w.wait_check(5, 'link retargeted')
            expect(out == [], 'after the retargeting: %r' % out)
            write(os.path.join(tmp, 'third', 'v3.orbit'), BAD)               # its new target
            out = w.wait_check(6, 'new target edited')
            expect(out == [error_at('src/link.orbit')], 'after the edit: %r' % out)
        finally:
            w.stop_ok()


@test
def the_gitignore_files_up_to_the_top_of_the_repository_are_watched():
    """Watching a directory two levels below the top of a repository: the .gitignore at
    the top, and one that does not exist yet in between, decide what is checked."""
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, '.git'))
        write(os.path.join(tmp, '.gitignore'), '')
        here = os.path.join(tmp, 'a', 'b')
        put(os.path.join(here, 'x.orbit'), BAD)
        w = Watch(here, '.')
        try:
            expect(w.wait_check(1, 'start') == [error_at('./x.orbit')], 'at first: %r' % w.out)
            write(os.path.join(tmp, '.gitignore'), 'x.orbit\n')             # the top's edited
            w.wait_check(2, 'top .gitignore edited')
            expect(any('no .orbit files in directory' in l for l in w.err[-3:]),
                   'x.orbit ignored: %r' % w.err)
            write(os.path.join(tmp, 'a', '.gitignore'), '!x.orbit\n')       # one created
            out = w.wait_check(3, 'middle .gitignore created')
            expect(out == [error_at('./x.orbit')], 'x.orbit included again: %r' % out)
        finally:
            w.stop_ok()


@test
def a_watched_directory_removed_and_made_again():
    """The directory watched, and the one holding it, removed while it runs: the check
    says the path cannot be read and the watch goes on; made again, it is checked."""
    with tempfile.TemporaryDirectory() as tmp:
        put(os.path.join(tmp, 'proj', 'src', 'a.orbit'), GOOD)
        w = Watch(tmp, 'proj/src')
        try:
            expect(w.wait_check(1, 'start') == [], 'clean at first: %r' % w.out)
            shutil.rmtree(os.path.join(tmp, 'proj'))
            w.wait_check(2, 'removed')
            expect(any('cannot read `proj/src`' in l for l in w.err), 'removed: %r' % w.err)
            count = len(w.reports())
            put(os.path.join(tmp, 'proj', 'src', 'a.orbit'), BAD)
            out = []
            while not out:   # made in steps (directories, then the file): checks 1 or more
                count += 1
                out = w.wait_check(count, 'made again')
            expect(out == [error_at('proj/src/a.orbit')], 'made again: %r' % out)
        finally:
            w.stop_ok()


@test
def a_file_1100_directories_deep_with_1024_descriptors():
    """check reads a file 1,100 directories deep with 1,024 file descriptors (no
    directory stays open while the walk goes down): the watch sees it changed too."""
    with tempfile.TemporaryDirectory() as tmp:
        deep = os.path.join(tmp, 'top')
        os.mkdir(deep)
        for _ in range(1100):   # (os.makedirs recurses once per level)
            deep = os.path.join(deep, 'd')
            os.mkdir(deep)
        write(os.path.join(deep, 'x.orbit'), GOOD)
        limit = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))
        w = Watch(tmp, 'top', preexec_fn=limit)
        try:
            expect(w.wait_check(1, 'start') == [], 'clean at first: %r' % w.err)
            write(os.path.join(deep, 'x.orbit'), BAD)
            out = w.wait_check(2, 'deep edit')
            expect(len(out) == 1 and out[0].endswith('error[E0303]: unknown step member `slep`'),
                   'the deep file: %r' % out)
        finally:
            try:
                w.stop_ok()
            finally:   # too deep for shutil.rmtree, which recurses once per level
                subprocess.run(['rm', '-rf', os.path.join(tmp, 'top')], check=True)


@test
def the_baseline_file_is_watched():
    """check --baseline reads the baseline: when it changes, so does the report."""
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), 'workflow w {\n  step s {\n    worker "x"\n'
              '    retry { non_retryable: ["E"] }\n  }\n}\n')
        status, _, err = cli_harness.run('check', '--write-baseline', 'b.json', '.', cwd=tmp)
        expect(status == 0, 'baseline written: %d %r' % (status, err))
        w = Watch(tmp, '--baseline', 'b.json', '.')
        try:
            expect(w.wait_check(1, 'start') == [], 'the warning in the baseline: %r' % w.out)
            os.unlink(os.path.join(tmp, 'b.json'))
            w.wait_check(2, 'baseline deleted')
            expect(any('b.json' in l for l in w.err[-3:]), 'no baseline: %r' % w.err)
        finally:
            w.stop_ok()


def limited_watches(count):
    """A command prefix that runs orbitc in a user namespace of its own where one user
    may have `count` inotify watches (the host's limit untouched); None where user
    namespaces are not allowed."""
    prefix = ['unshare', '--user', '--map-root-user', 'sh', '-c',
              'echo %d > /proc/sys/user/max_inotify_watches && exec "$@"' % count, 'sh']
    try:
        probe = subprocess.run(prefix + ['true'], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


@test
def the_limit_of_inotify_watches_is_said():
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(20):
            put(os.path.join(tmp, 'd%d' % i, 'a.orbit'), 'workflow w%d { step s { sleep 1s } }\n' % i)
        prefix = limited_watches(8)
        if prefix is None:
            print('skipped the_limit_of_inotify_watches_is_said: no user namespace here')
            return
        w = Watch(tmp, '.', prefix=prefix)
        try:
            w.wait_check(1, 'start')
            warning = [l for l in w.err if 'max_user_watches' in l]
            expect(len(warning) == 1 and warning[0].startswith('orbitc: warning: '),
                   'the limit said: %r' % w.err)
        finally:
            w.stop_ok()


@test
def refused_with_standard_input():
    status, _, err = cli_harness.run('check', '--watch', '-', input=b'')
    expect(status == 2 and 'cannot be watched' in err, '%d %r' % (status, err))
    status, _, err = cli_harness.run('check', '--watch', '/nonexistent/dir/x.orbit', timeout=30)
    expect(status == 2 and 'cannot watch' in err, '%d %r' % (status, err))


if __name__ == '__main__':
    main()
