#!/usr/bin/env python3
"""`orbitc check --watch` (docs/cli.md, "Watching"), driven as a user drives it: the
files are edited, made invalid, renamed, deleted and created again while it runs, and
after each change the test waits (at most WAIT seconds) for the next check's report;
then SIGINT stops it with status 0. The diagnostics are read in the concise format on
standard output, the reports on standard error.

    test_watch.py --orbitc PATH        ends with `N passed, N failed`
"""
import os
import signal
import subprocess
import tempfile
import threading
import time

import cli_harness
from cli_harness import expect, main, test, write

WAIT = 30            # seconds for one check after a change, on a loaded machine
GOOD = 'workflow w { step s { sleep 1s } }\n'
BAD = 'workflow w { step s { slep 1s } }\n'


class Watch:
    """orbitc check --watch running in `cwd`; its output read line by line."""

    def __init__(self, cwd, *args):
        env = dict(os.environ)
        for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
            env.pop(name, None)
        self.p = subprocess.Popen([cli_harness.ORBITC, 'check', '--watch', '--format', 'concise']
                                  + list(args), cwd=cwd, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.out, self.err = [], []
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
                write(os.path.join(tmp, 'f%d.orbit' % i), GOOD.replace('w ', 'w%d ' % i))
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


@test
def refused_with_standard_input():
    status, _, err = cli_harness.run('check', '--watch', '-', input=b'')
    expect(status == 2 and 'cannot be watched' in err, '%d %r' % (status, err))
    status, _, err = cli_harness.run('check', '--watch', '/nonexistent/dir/x.orbit', timeout=30)
    expect(status == 2 and 'cannot watch' in err, '%d %r' % (status, err))


if __name__ == '__main__':
    main()
