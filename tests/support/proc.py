"""Running a command with a bound on its time, its output captured as text."""
import os
import subprocess

from support import sanitizers

SANITIZER_EXIT = sanitizers.EXIT


def environment(extra=None, log_dir=None):
    """The environment of a run: no colour forced either way, a sanitizer's report an exit
    status of its own (SANITIZER_EXIT) written into `log_dir` (support/sanitizers.py), then
    `extra`."""
    env = sanitizers.environment(log_dir=log_dir)
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
    sanitizer's report ends the stderr text."""
    with sanitizers.Reports() as reports:
        if user is not None:
            os.chmod(reports.dir, 0o1777)   # the user the run becomes writes its report
        try:
            p = subprocess.run(list(argv), cwd=cwd, env=environment(env_extra, reports.dir),
                               stdin=stdin, input=input, stdout=stdout, stderr=stderr,
                               timeout=timeout, user=user)
        except subprocess.TimeoutExpired:
            raise Hang('%s: no answer within %d s (hangs)' % (list(argv)[1:], timeout))
        report = reports.text()
    text = lambda b: b.decode('utf-8', 'replace') if b is not None else ''
    return p.returncode, text(p.stdout), text(p.stderr) + report
