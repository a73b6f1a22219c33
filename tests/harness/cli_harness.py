"""What the command-line tests (test_cli.py, test_cli_files.py) share: running orbitc,
registering tests, checking, and the main loop that ends with `N passed, N failed`."""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, 'examples', 'checkout.orbit')
ORBITC = None
RESULTS = []


def run(*args, cwd=None, env_extra=None, stdin=None, input=None, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=120, user=None):
    """Runs orbitc; returns (status, stdout text, stderr text). `stdout`/`stderr` may be
    open files (then their text is ''); a run longer than `timeout` fails the test."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    env['ASAN_OPTIONS'] = 'exitcode=86'
    env['UBSAN_OPTIONS'] = 'halt_on_error=1:exitcode=86'
    if env_extra:
        env.update(env_extra)
    try:
        p = subprocess.run([ORBITC] + list(args), cwd=cwd, env=env, stdin=stdin, input=input,
                           stdout=stdout, stderr=stderr, timeout=timeout, user=user)
    except subprocess.TimeoutExpired:
        raise AssertionError('%s: no answer within %d s (hangs)' % (list(args), timeout))
    text = lambda b: b.decode('utf-8', 'replace') if b is not None else ''
    return p.returncode, text(p.stdout), text(p.stderr)


def test(fn):
    RESULTS.append(fn)
    return fn


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def write(path, text):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def main():
    global ORBITC
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ORBITC = os.path.abspath(ap.parse_args().orbitc)
    passed = failed = 0
    for fn in RESULTS:
        try:
            fn()
            passed += 1
        except AssertionError as e:
            failed += 1
            print('FAIL %s: %s' % (fn.__name__, e))
        except Exception as e:  # a crash of the test itself is a failure too
            failed += 1
            print('FAIL %s: %s: %s' % (fn.__name__, type(e).__name__, e))
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)
