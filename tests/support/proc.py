"""Running a command with a bound on its time, its output captured as text."""
import os
import subprocess

SANITIZER_EXIT = 86


def environment(extra=None):
    """The environment of a run: no colour forced either way, a sanitizer's report an exit
    status of its own (SANITIZER_EXIT), then `extra`."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    env['ASAN_OPTIONS'] = 'exitcode=%d' % SANITIZER_EXIT
    env['UBSAN_OPTIONS'] = 'halt_on_error=1:exitcode=%d' % SANITIZER_EXIT
    if extra:
        env.update(extra)
    return env


class Hang(AssertionError):
    """The command gave no answer within its time."""


def run(argv, cwd=None, env_extra=None, stdin=None, input=None, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=120, user=None):
    """Runs `argv`; returns (status, stdout text, stderr text). `stdout`/`stderr` may be
    open files (then their text is ''); a run longer than `timeout` seconds raises Hang."""
    try:
        p = subprocess.run(list(argv), cwd=cwd, env=environment(env_extra), stdin=stdin,
                           input=input, stdout=stdout, stderr=stderr, timeout=timeout,
                           user=user)
    except subprocess.TimeoutExpired:
        raise Hang('%s: no answer within %d s (hangs)' % (list(argv)[1:], timeout))
    text = lambda b: b.decode('utf-8', 'replace') if b is not None else ''
    return p.returncode, text(p.stdout), text(p.stderr)
