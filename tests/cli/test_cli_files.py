#!/usr/bin/env python3
"""The files orbitc reads and writes: `-o` onto a device, FIFO,
socket, directory, symbolic link or one of the inputs; output lost on a full device;
reading pipes, devices and standard input (`--stdin-filename`); directory walks that meet
FIFOs, dangling links, unlistable directories and paths longer than PATH_MAX.

Devices are made with mknod inside a temporary directory (copies of /dev/null's, /dev/zero's
and /dev/full's numbers); the real /dev is never touched. Every run has a time limit, so a
hang fails the test.

    test_cli_files.py --orbitc PATH        ends with `N passed, N failed`
"""
import json
import os
import socket
import stat
import tempfile
import threading

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cli import EXAMPLE, expect, main, run, test, write

BAD = 'workflow x { step s { sleep 1s; retry { attempts: 2 } } }\n'   # one E0307
TIMEOUT = 20


def device(tmp, name, minor):
    """A character device like /dev/null (3), /dev/zero (5) or /dev/full (7), in `tmp`."""
    path = os.path.join(tmp, name)
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return path


def example_bytes(tmp):
    """What `orbitc build` writes for the example, as a regular file."""
    out = os.path.join(tmp, 'reference.orbc')
    status, _, err = run('build', EXAMPLE, '-o', out)
    expect(status == 0, 'reference build: %r' % err)
    with open(out, 'rb') as f:
        data = f.read()
    os.unlink(out)
    return data


def codes(out):
    return [json.loads(line)['code'] for line in out.splitlines()]


class Reader(threading.Thread):
    """Reads everything from a FIFO (or accepts one connection on a listening socket)."""

    def __init__(self, fifo=None, listener=None):
        super().__init__(daemon=True)
        self.fifo, self.listener, self.data = fifo, listener, None

    def run(self):
        if self.fifo:
            with open(self.fifo, 'rb') as f:
                self.data = f.read()
        else:
            conn, _ = self.listener.accept()
            chunks = []
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
            conn.close()
            self.data = b''.join(chunks)


class Writer(threading.Thread):
    """Writes `data` into a FIFO once a reader opens it."""

    def __init__(self, fifo, data):
        super().__init__(daemon=True)
        self.fifo, self.data = fifo, data

    def run(self):
        with open(self.fifo, 'wb') as f:
            f.write(self.data)


def leftovers(directory, expected):
    extra = sorted(set(os.listdir(directory)) - set(expected))
    expect(not extra, 'files left behind in %s: %r' % (directory, extra))


# --- item 1: -o onto something that is not a regular file ---

@test
def output_onto_a_device_writes_to_it():
    with tempfile.TemporaryDirectory() as tmp:
        null = device(tmp, 'null', 3)
        status, _, err = run('build', EXAMPLE, '-o', null, timeout=TIMEOUT)
        expect(status == 0 and err == '', 'build -o null: %d %r' % (status, err))
        expect(stat.S_ISCHR(os.lstat(null).st_mode), 'the device was replaced by a file')
        full = device(tmp, 'full', 7)
        status, _, err = run('build', EXAMPLE, '-o', full, timeout=TIMEOUT)
        expect(status == 2 and 'cannot write `%s`: No space left on device' % full in err,
               'build -o full: %d %r' % (status, err))
        expect(stat.S_ISCHR(os.lstat(full).st_mode), 'the full device was replaced by a file')
        leftovers(tmp, ['null', 'full'])


@test
def output_onto_a_fifo_or_socket_writes_to_it():
    with tempfile.TemporaryDirectory() as tmp:
        expected = example_bytes(tmp)
        fifo = os.path.join(tmp, 'pipe')
        os.mkfifo(fifo)
        reader = Reader(fifo=fifo)
        reader.start()
        status, _, err = run('build', EXAMPLE, '-o', fifo, timeout=TIMEOUT)
        reader.join(TIMEOUT)
        expect(status == 0 and reader.data == expected, 'FIFO: %d %r' % (status, err))
        expect(stat.S_ISFIFO(os.lstat(fifo).st_mode), 'the FIFO was replaced')
        sock_path = os.path.join(tmp, 'sock')
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(sock_path)
        listener.listen(1)
        listener.settimeout(TIMEOUT)
        reader = Reader(listener=listener)
        reader.start()
        status, _, err = run('build', EXAMPLE, '-o', sock_path, timeout=TIMEOUT)
        reader.join(TIMEOUT)
        listener.close()
        expect(status == 0 and reader.data == expected, 'socket: %d %r' % (status, err))
        expect(stat.S_ISSOCK(os.lstat(sock_path).st_mode), 'the socket was replaced')
        leftovers(tmp, ['pipe', 'sock'])


@test
def output_onto_a_directory_is_an_error():
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, 'dir')
        os.mkdir(target)
        status, _, err = run('build', EXAMPLE, '-o', target)
        expect(status == 2 and 'cannot write `%s`: is a directory' % target in err,
               '%d %r' % (status, err))
        expect(os.path.isdir(target) and os.listdir(target) == [], 'the directory is intact')
        leftovers(tmp, ['dir'])


# --- item 2: -o onto an input ---

@test
def output_that_is_an_input_is_refused():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'co.orbit')
        with open(EXAMPLE) as f:
            text = f.read()
        write(src, text)
        os.link(src, os.path.join(tmp, 'hard.orbit'))
        os.symlink('co.orbit', os.path.join(tmp, 'soft.orbc'))
        os.mkdir(os.path.join(tmp, 'sub'))
        for inputs, output in ((['co.orbit'], 'co.orbit'),
                               (['co.orbit'], './co.orbit'),
                               (['./sub/../co.orbit'], 'co.orbit'),
                               (['co.orbit'], 'hard.orbit'),
                               (['co.orbit'], 'soft.orbc'),
                               (['.'], 'co.orbit')):
            status, _, err = run('build', *inputs, '-o', output, cwd=tmp)
            expect(status == 2 and 'the output `%s` is the input' % output in err,
                   '%s -o %s: %d %r' % (inputs, output, status, err))
            with open(src) as f:
                expect(f.read() == text, '%s -o %s: the input was changed' % (inputs, output))
        with open(src, 'rb') as stdin:
            status, _, err = run('build', '-', '-o', src, stdin=stdin)
        expect(status == 2 and 'is the input' in err, 'stdin redirected from the output: %r' % err)
        leftovers(tmp, ['co.orbit', 'hard.orbit', 'soft.orbc', 'sub'])


# --- item 3: -o onto a symbolic link ---

@test
def output_through_a_symlink_replaces_its_target():
    with tempfile.TemporaryDirectory() as tmp:
        expected = example_bytes(tmp)
        out_dir = os.path.join(tmp, 'out')
        os.mkdir(out_dir)
        target = os.path.join(out_dir, 'real.orbc')
        write(target, 'old')
        os.chmod(target, 0o640)
        old_inode = os.stat(target).st_ino
        link = os.path.join(tmp, 'link.orbc')
        os.symlink('out/real.orbc', link)
        chain = os.path.join(tmp, 'chain.orbc')
        os.symlink('link.orbc', chain)
        status, _, err = run('build', EXAMPLE, '-o', chain)
        expect(status == 0, 'build through two links: %d %r' % (status, err))
        expect(os.path.islink(chain) and os.path.islink(link), 'the links are still links')
        with open(target, 'rb') as f:
            expect(f.read() == expected, 'the target holds the bytecode')
        expect(os.stat(target).st_ino != old_inode, 'the target was replaced (rename), not rewritten')
        expect(stat.S_IMODE(os.stat(target).st_mode) == 0o640, 'the target keeps its permissions')
        dangling = os.path.join(tmp, 'dangling.orbc')
        os.symlink('out/new.orbc', dangling)
        status, _, err = run('build', EXAMPLE, '-o', dangling)
        expect(status == 0 and os.path.islink(dangling), 'dangling link: %d %r' % (status, err))
        with open(os.path.join(out_dir, 'new.orbc'), 'rb') as f:
            expect(f.read() == expected, 'a dangling link names the file to create')
        leftovers(tmp, ['out', 'link.orbc', 'chain.orbc', 'dangling.orbc'])
        leftovers(out_dir, ['real.orbc', 'new.orbc'])
        loop = os.path.join(tmp, 'loop.orbc')
        os.symlink('loop.orbc', loop)
        status, _, err = run('build', EXAMPLE, '-o', loop, timeout=TIMEOUT)
        expect(status == 2 and 'Too many levels of symbolic links' in err, 'loop: %r' % err)


# --- item 4: output that cannot be written ---

@test
def lost_output_exits_2():
    with tempfile.TemporaryDirectory() as tmp:
        full = device(tmp, 'full', 7)
        bad = os.path.join(tmp, 'bad.orbit')
        write(bad, BAD)
        bytecode = os.path.join(tmp, 'x.orbc')
        status, _, _ = run('build', EXAMPLE, '-o', bytecode)
        expect(status == 0, 'build')
        for args in (['check', '--format', 'json', bad], ['explain'], ['explain', 'E0410'],
                     ['--help'], ['--version'], ['dis', bytecode]):
            with open(full, 'wb') as out:
                status, _, err = run(*args, stdout=out, timeout=TIMEOUT)
            expect(status == 2 and 'cannot write standard output: No space left on device' in err,
                   '%s >full: %d %r' % (args, status, err))
        with open(full, 'wb') as errors:    # the diagnostics themselves are lost
            status, _, _ = run('check', bad, stderr=errors, timeout=TIMEOUT)
        expect(status == 2, 'check 2>full: %d' % status)
        with open(full, 'wb') as out:        # a clean program prints nothing: nothing is lost
            status, _, _ = run('check', '--format', 'json', EXAMPLE, stdout=out, timeout=TIMEOUT)
        expect(status == 0, 'clean check >full: %d' % status)


@test
def write_errors_name_no_temporary_file():
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        locked = os.path.join(tmp, 'locked')
        os.mkdir(locked)
        os.chmod(locked, 0o555)
        out = os.path.join(locked, 'x.orbc')
        status, _, err = run('build', EXAMPLE, '-o', out, user=65534 if os.getuid() == 0 else None)
        expect(status == 2 and err == 'orbitc: error: cannot write `%s`: Permission denied\n' % out,
               'read-only directory: %d %r' % (status, err))
        missing = os.path.join(tmp, 'no', 'x.orbc')
        status, _, err = run('build', EXAMPLE, '-o', missing)
        expect(status == 2 and err == 'orbitc: error: cannot write `%s`: No such file or '
                                      'directory\n' % missing, 'missing directory: %r' % err)


# --- item 5: reading ---

@test
def explicit_pipes_and_devices_are_read():
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, 'src.orbit')
        os.mkfifo(fifo)
        writer = Writer(fifo, BAD.encode())
        writer.start()
        status, out, err = run('check', '--format=json', fifo, timeout=TIMEOUT)
        writer.join(TIMEOUT)
        expect(status == 1 and codes(out) == ['E0307'], 'FIFO: %d %r %r' % (status, out, err))
        status, out, err = run('check', '--format=json', '/dev/stdin', input=BAD.encode(),
                               timeout=TIMEOUT)
        expect(status == 1 and codes(out) == ['E0307'], '/dev/stdin: %d %r' % (status, err))
        expect(json.loads(out)['file'] == '/dev/stdin', 'named as given: %r' % out)
        null = device(tmp, 'null', 3)
        status, out, err = run('check', '--format=json', null, timeout=TIMEOUT)
        expect(status == 0 and out == '' and err == '', 'empty device: %d %r' % (status, err))
        zero = device(tmp, 'zero', 5)       # endless: read up to the limit, then E0010
        status, out, err = run('check', '--format=json', zero, timeout=120)
        expect(status == 1 and codes(out) == ['E0010'] and 'more than the limit' in out,
               'endless device: %d %r %r' % (status, out[:300], err))


@test
def dash_reads_standard_input():
    status, out, err = run('check', '--format=json', '-', input=BAD.encode(), timeout=TIMEOUT)
    expect(status == 1 and [json.loads(l)['file'] for l in out.splitlines()] == ['<stdin>'],
           '-: %d %r %r' % (status, out, err))
    status, out, err = run('check', '--format=json', '--stdin-filename', 'src/x.orbit', '-',
                           input=BAD.encode(), timeout=TIMEOUT)
    expect(status == 1 and json.loads(out)['file'] == 'src/x.orbit', 'named: %r %r' % (out, err))
    status, _, err = run('check', '-', '-', input=b'', timeout=TIMEOUT)
    expect(status == 2 and 'more than once' in err, 'twice: %r' % err)
    with tempfile.TemporaryDirectory() as tmp:
        bytecode = os.path.join(tmp, 'x.orbc')
        run('build', EXAMPLE, '-o', bytecode)
        _, from_file, _ = run('dis', bytecode)
        with open(bytecode, 'rb') as f:
            status, from_stdin, err = run('dis', '-', input=f.read(), timeout=TIMEOUT)
        expect(status == 0 and from_stdin == from_file and 'workflow' in from_file,
               'dis -: %d %r' % (status, err))


@test
def stdin_filename_replaces_the_file_on_disk():
    """An editor's unsaved buffer: the project is checked with the buffer in place of the
    file, which keeps its place in the order; the file on disk is not read."""
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), 'workflow a { step s { sleep 1s } }\n')
        edited = os.path.join(tmp, 'b.orbit')
        write(edited, 'workflow b { step s { sleep 1s } }\n')
        write(os.path.join(tmp, 'c.orbit'), 'workflow b { step s { sleep 1s } }\n')  # duplicate of b
        buffer = 'workflow b { step s { sleep 1s; retry { attempts: 2 } } }\n'
        status, out, err = run('check', '--format=json', '--stdin-filename', 'b.orbit', '-', '.',
                               cwd=tmp, input=buffer.encode(), timeout=TIMEOUT)
        diags = [json.loads(l) for l in out.splitlines()]
        expect(status == 1 and sorted(d['code'] for d in diags) == ['E0201', 'E0307'],
               'buffer replaces b.orbit: %d %r %r' % (status, out, err))
        expect(all(d['file'] in ('b.orbit', './c.orbit') for d in diags), 'names: %r' % diags)
        e0201 = [d for d in diags if d['code'] == 'E0201'][0]
        expect(e0201['file'] == './c.orbit', 'the buffer keeps b.orbit\'s place before c: %r' % e0201)
        status, out, _ = run('check', '--format=json', '--stdin-filename', edited, '-', tmp,
                             input=b'workflow b { step s { sleep 1s } }\n', timeout=TIMEOUT)
        expect(codes(out) == ['E0201'], 'a clean buffer: only the real duplicate: %r' % out)


@test
def walks_read_regular_files_and_never_block():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), BAD)
        os.mkfifo(os.path.join(tmp, 'fifo.orbit'))
        os.symlink('fifo.orbit', os.path.join(tmp, 'to_fifo.orbit'))
        os.symlink('a.orbit', os.path.join(tmp, 'to_a.orbit'))      # a link: read once
        device(tmp, 'null.orbit', 3)
        status, out, err = run('check', '--format=json', tmp, timeout=TIMEOUT)
        expect(status == 1 and codes(out) == ['E0307'] and err == '',
               'walk: %d %r %r' % (status, out, err))


# --- item 6: walks that used to skip silently ---

def check_with_problem(tmp, args, needle, user=None):
    """The problem is reported, naming the path; a.orbit's E0307 is reported too; exit 2."""
    status, out, err = run('check', '--format=json', *args, timeout=TIMEOUT, user=user)
    expect(status == 2, '%s: exit %d, expected 2: %r' % (args, status, err))
    expect(needle in err, '%s: %r does not say %r' % (args, err, needle))
    expect(codes(out) == ['E0307'], '%s: the rest is checked: %r' % (args, out))
    expect('could not be read; the program was checked without them' in err, err)
    return err


@test
def dangling_links_and_missing_paths_are_reported():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), BAD)
        dangling = os.path.join(tmp, 'gone.orbit')
        os.symlink('nowhere.orbit', dangling)
        check_with_problem(tmp, [tmp], 'cannot read `%s`: a symbolic link to a file that does '
                                       'not exist' % dangling)
        missing = os.path.join(tmp, 'missing.orbit')
        err = check_with_problem(tmp, [os.path.join(tmp, 'a.orbit'), missing, dangling],
                                 'cannot read `%s`: No such file or directory' % missing)
        expect('2 paths could not be read' in err, err)
        status, _, err = run('check', missing)       # nothing read: nothing to repeat
        expect(status == 2 and err == 'orbitc: error: cannot read `%s`: No such file or '
                                      'directory\n' % missing, 'only a missing path: %r' % err)
        empty = os.path.join(tmp, 'empty')
        os.mkdir(empty)
        os.unlink(dangling)
        check_with_problem(tmp, [tmp, empty], 'no .orbit files in directory `%s`' % empty)
        status, _, err = run('build', tmp, empty, '-o', os.path.join(tmp, 'x.orbc'))
        expect(status == 2 and 'nothing was written' in err
               and not os.path.exists(os.path.join(tmp, 'x.orbc')), 'build: %r' % err)


@test
def unlistable_directories_are_reported():
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        write(os.path.join(tmp, 'a.orbit'), BAD)
        locked = os.path.join(tmp, 'locked')
        os.mkdir(locked)
        write(os.path.join(locked, 'hidden.orbit'), BAD)
        os.chmod(locked, 0)
        try:   # root reads any directory: run as nobody then
            check_with_problem(tmp, [tmp], 'cannot read directory `%s`: Permission denied' % locked,
                               user=65534 if os.getuid() == 0 else None)
        finally:
            os.chmod(locked, 0o755)


@test
def paths_longer_than_path_max_are_reported():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), BAD)
        name = 'd' * 200
        fd = os.open(tmp, os.O_RDONLY)
        for _ in range(25):                     # 5,000 bytes of path below tmp
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        deep = os.open('deep.orbit', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(deep, BAD.encode())
        os.close(deep)
        os.close(fd)
        err = check_with_problem(tmp, [tmp], ': File name too long')
        line = [l for l in err.splitlines() if 'File name too long' in l][0]
        expect(line.startswith('orbitc: error: cannot read `%s/%s/' % (tmp, name)) and
               len(line) > 4096, 'names the path: %r' % line[:200])


if __name__ == '__main__':
    main()
