#!/usr/bin/env python3
"""How `orbitc fmt` and `orbitc fix` rewrite users' files (docs/cli.md,
"How fmt and fix write files"): owner, group, mode and extended attributes kept or the
file refused; read-only files and directories refused, the directory blamed when it is
the cause; hard links written through; a private file never world-readable, even
for a moment; FIFOs, pipes and devices refused before they are opened for writing; `fix`
says `fixed` only for the files it wrote. (A file that changes between the read and the
rename is tested on replace_file itself, in tests/unit/test_base.c.)

Everything happens inside a temporary directory: FIFOs, devices (copies of /dev/null's
numbers), chowned files, read-only directories. Runs that need a user other than root
run as nobody (65534) when the test runs as root.

    test_rewrite.py --orbitc PATH        ends with `N passed, N failed`
"""
import os
import resource
import stat
import subprocess
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, main, run, test, write

UNFORMATTED = 'workflow w {\n  step s {   sleep 1h }\n}\n'
FORMATTED = 'workflow w {\n  step s { sleep 1h }\n}\n'
TYPO = 'workflow w {\n  step a { worker "x"; retry { attemps: 3 } }\n}\n'   # one E0410 fix
FIXED = 'workflow w {\n  step a { worker "x"; retry { attempts: 3 } }\n}\n'
TIMEOUT = 20
NOBODY = 65534


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def as_user():
    """The user a permission test runs as: nobody when we are root (root writes anything)."""
    return NOBODY if os.geteuid() == 0 else None


# (command, a source it rewrites, the source rewritten)
COMMANDS = [('fmt', UNFORMATTED, FORMATTED), ('fix', TYPO, FIXED)]


def public_tmp():
    """A temporary directory that nobody may enter (the default one is 0700)."""
    tmp = tempfile.TemporaryDirectory()
    os.chmod(tmp.name, 0o755)
    return tmp


# --- item 4: owner, group, mode, extended attributes ---

@test
def owner_group_mode_and_xattrs_are_kept():
    for command, source, result in COMMANDS:
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, 'f.orbit')
            write(f, source)
            if os.geteuid() == 0:
                os.chown(f, 1234, 5678)
            os.chmod(f, 0o640)
            os.setxattr(f, 'user.orbit.test', b'kept')
            status, _, err = run(command, f, timeout=TIMEOUT)
            expect(status == 0 and read(f) == result, '%s: %d %s' % (command, status, err))
            st = os.stat(f)
            if os.geteuid() == 0:
                expect((st.st_uid, st.st_gid) == (1234, 5678),
                       '%s: owner %d:%d' % (command, st.st_uid, st.st_gid))
            expect(stat.S_IMODE(st.st_mode) == 0o640, '%s: mode %o' % (command, st.st_mode))
            expect(os.getxattr(f, 'user.orbit.test') == b'kept',
                   '%s: xattrs %s' % (command, os.listxattr(f)))
            expect(sorted(os.listdir(tmp)) == ['f.orbit'], 'left: %s' % os.listdir(tmp))


@test
def an_owner_that_cannot_be_kept_is_refused():
    if os.geteuid() != 0:
        return   # needs a file of another user that this user may write
    for command, source, _ in COMMANDS:
        with public_tmp() as tmp:
            shared = os.path.join(tmp, 'shared')
            os.mkdir(shared)
            os.chmod(shared, 0o777)
            f = os.path.join(shared, 'f.orbit')
            write(f, source)
            os.chmod(f, 0o666)   # root's, writable by nobody, who could not chown a copy
            status, _, err = run(command, f, timeout=TIMEOUT, user=NOBODY)
            st = os.stat(f)
            expect(status == 2 and 'owner and group (0:0) cannot be kept' in err,
                   '%s: %d %s' % (command, status, err))
            expect(read(f) == source and (st.st_uid, st.st_gid) == (0, 0),
                   '%s: replaced, owner %d:%d' % (command, st.st_uid, st.st_gid))
            expect('fixed' not in err, '%s: says fixed: %s' % (command, err))


# --- item 5: read-only files ---

@test
def read_only_files_are_refused():
    for command, source, _ in COMMANDS:
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, 'f.orbit')
            write(f, source)
            os.chmod(f, 0o444)
            status, _, err = run(command, f, timeout=TIMEOUT)
            expect(status == 2 and read(f) == source, '%s: %d %s' % (command, status, err))
            expect('cannot write `%s`: the file is read-only (mode 0444)' % f in err,
                   '%s: message %s' % (command, err))
            expect('orbitc: fixed' not in err, '%s: says fixed: %s' % (command, err))


@test
def files_not_writable_for_the_user_are_refused():
    if os.geteuid() != 0:
        return
    for command, source, _ in COMMANDS:
        with public_tmp() as tmp:
            os.chmod(tmp, 0o777)
            f = os.path.join(tmp, 'f.orbit')
            write(f, source)
            os.chmod(f, 0o644)   # root's: nobody may read it, not write it
            status, _, err = run(command, f, timeout=TIMEOUT, user=NOBODY)
            expect(status == 2 and read(f) == source and 'the file is not writable' in err,
                   '%s: %d %s' % (command, status, err))


# --- item 6: hard links ---

@test
def hard_links_are_written_through():
    for command, source, result in COMMANDS:
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit')
            write(a, source)
            os.link(a, b)
            status, _, err = run(command, '.', cwd=tmp, timeout=TIMEOUT)
            expect(status == 0 and read(a) == result and read(b) == result,
                   '%s: %d %s / b: %r' % (command, status, err, read(b)))
            sa, sb = os.stat(a), os.stat(b)
            expect(sa.st_ino == sb.st_ino and sa.st_nlink == 2, '%s: the link broke' % command)
            status, out, err = run('fmt', '--check', '.', cwd=tmp, timeout=TIMEOUT)
            expect(status == 0 and out == '', '%s, then fmt --check: %d %s' % (command, status, out))


# --- item 8: a private file's temporary file ---

def killed_while_writing(command, tmp, f):
    """Runs orbitc with a file-size limit of one byte: the first write of the temporary
    file kills it (SIGXFSZ), leaving that file as it was when its bytes began."""
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (1, 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    p = subprocess.run([cli_harness.ORBITC, command, f], cwd=tmp, preexec_fn=limit,
                       capture_output=True, timeout=TIMEOUT)
    return p.returncode


@test
def a_private_file_is_never_world_readable():
    for command, source, _ in COMMANDS:
        with tempfile.TemporaryDirectory() as tmp:
            f = os.path.join(tmp, 'f.orbit')
            write(f, source + '// ' + 'x' * 4000 + '\n')
            os.chmod(f, 0o600)
            old = os.umask(0o022)
            try:
                status = killed_while_writing(command, tmp, f)
            finally:
                os.umask(old)
            temps = [n for n in os.listdir(tmp) if n != 'f.orbit']
            expect(status < 0 and len(temps) == 1,
                   '%s: status %d, files %s' % (command, status, temps))
            mode = stat.S_IMODE(os.stat(os.path.join(tmp, temps[0])).st_mode)
            expect(mode == 0o600, '%s: the temporary file was %04o when written' % (command, mode))
            expect(stat.S_IMODE(os.stat(f).st_mode) == 0o600 and read(f).startswith(source),
                   '%s: the file changed' % command)


# --- item 9: FIFOs, pipes, devices ---

@test
def a_fifo_is_refused_without_blocking():
    for command, _, _ in COMMANDS:
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, 'p.orbit')
            os.mkfifo(fifo)
            status, _, err = run(command, fifo, timeout=TIMEOUT)
            expect(status == 2 and 'it is a FIFO, not a regular file' in err and '`-`' in err,
                   '%s: %d %s' % (command, status, err))


@test
def process_substitution_is_refused():
    for command, source, _ in COMMANDS:
        r, w = os.pipe()
        os.write(w, source.encode())
        os.close(w)
        try:
            p = subprocess.run([cli_harness.ORBITC, command, '/dev/fd/%d' % r], pass_fds=(r,),
                               capture_output=True, timeout=TIMEOUT)
        finally:
            os.close(r)
        err = p.stderr.decode()
        expect(p.returncode == 2 and 'it is a FIFO, not a regular file' in err and '`-`' in err,
               '%s: %d %s' % (command, p.returncode, err))
        expect('fixed' not in err, '%s: says fixed: %s' % (command, err))


@test
def a_character_device_is_refused():
    if os.geteuid() != 0:
        return
    for command in ('fmt', 'fix'):   # even when there would be nothing to change
        with tempfile.TemporaryDirectory() as tmp:
            null = os.path.join(tmp, 'null.orbit')
            os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            status, _, err = run(command, null, timeout=TIMEOUT)
            expect(status == 2 and 'it is a character device, not a regular file' in err,
                   '%s: %d %s' % (command, status, err))


# --- item 10: who is to blame, and what `fix` says it did ---

@test
def a_read_only_directory_is_blamed():
    for command, source, _ in COMMANDS:
        for user in (None, as_user()):
            with public_tmp() as tmp:
                rod = os.path.join(tmp, 'rod')
                os.mkdir(rod)
                f = os.path.join(rod, 'f.orbit')
                write(f, source)
                os.chmod(f, 0o666)
                if user is not None:
                    os.chown(f, user, user)
                os.chmod(rod, 0o555)
                try:
                    status, _, err = run(command, 'rod/f.orbit', cwd=tmp, user=user,
                                         timeout=TIMEOUT)
                finally:
                    os.chmod(rod, 0o755)
                expect(status == 2 and read(f) == source, '%s as %s: %d %s' % (command, user, status, err))
                expect('cannot write `rod/f.orbit`: the directory `rod` is ' in err,
                       '%s as %s: blame %s' % (command, user, err))
                expect('orbitc: fixed' not in err, '%s as %s: says fixed: %s' % (command, user, err))


@test
def fix_with_an_unreadable_path_says_would_fix():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'c.orbit'), TYPO)
        status, _, err = run('fix', 'c.orbit', 'nonexist.orbit', cwd=tmp, timeout=TIMEOUT)
        expect(status == 2 and read(os.path.join(tmp, 'c.orbit')) == TYPO, '%d %s' % (status, err))
        expect('orbitc: fixed' not in err and 'would fix c.orbit: 1 fix (E0410: 1)' in err
               and 'nothing was written' in err, err)


@test
def fix_writes_all_files_or_none():
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit')
        write(a, TYPO)
        write(b, TYPO.replace('workflow w', 'workflow v'))
        os.chmod(b, 0o444)
        status, _, err = run('fix', 'a.orbit', 'b.orbit', cwd=tmp, timeout=TIMEOUT)
        expect(status == 2 and read(a) == TYPO and read(b) != FIXED, '%d %s' % (status, err))
        expect('cannot write `b.orbit`: the file is read-only' in err
               and 'orbitc: fixed' not in err and 'would fix a.orbit' in err
               and 'nothing was written' in err, err)


@test
def fix_of_standard_input_writes_no_file():
    with tempfile.TemporaryDirectory() as tmp:
        sf = os.path.join(tmp, 'sf')
        os.mkdir(sf)
        write(os.path.join(sf, 'a.orbit'), 'workflow a { step s { sleep 1h } }\n')
        b = os.path.join(sf, 'b.orbit')
        write(b, TYPO)
        status, out, err = run('fix', '--stdin-filename', 'sf/a.orbit', '-', 'sf/', cwd=tmp,
                               input=TYPO.replace('workflow w', 'workflow a').encode(),
                               timeout=TIMEOUT)
        expect(status == 0 and out == FIXED.replace('workflow w', 'workflow a'),
               'stdout: %d %r %s' % (status, out, err))
        expect(read(b) == TYPO, 'sf/b.orbit was written: %s' % err)
        expect('would fix sf/b.orbit: 1 fix (E0410: 1)' in err
               and 'only its fixed text is written, to standard output; no file was written' in err and 'orbitc: fixed sf/b.orbit' not in err, err)


if __name__ == '__main__':
    main()
