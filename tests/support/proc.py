"""Running a command with a bound on its time, its output captured as text."""
import os
import subprocess

from support import sanitizers

SANITIZER_EXIT = sanitizers.EXIT


def environment(extra=None):
    """The environment of a run, before the sanitizers' options (support/sanitizers.py):
    no colour forced either way, then `extra`."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    if extra:
        env.update(extra)
    return env


class Hang(AssertionError):
    """The command gave no answer within its time."""


def run(argv, cwd=None, env_extra=None, stdin=None, input=None, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=120, user=None):
    """Runs `argv`; returns (status, stdout text, stderr text). `stdout`/`stderr` may be
    open files (then their text is ''); a run longer than `timeout` seconds raises Hang. A
    sanitizer's report ends the stderr text (sanitizers.run)."""
    try:
        p = sanitizers.run(list(argv), env=environment(env_extra), cwd=cwd, stdin=stdin,
                           input=input, stdout=stdout, stderr=stderr, timeout=timeout,
                           user=user)
    except subprocess.TimeoutExpired:
        raise Hang('%s: no answer within %d s (hangs)' % (list(argv)[1:], timeout))
    text = lambda b: b.decode('utf-8', 'replace') if b is not None else ''
    return p.returncode, text(p.stdout), text(p.stderr)
