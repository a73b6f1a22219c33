"""Golden tests of `orbitc fmt` (docs/style.md): tests/golden/fmt/NAME.orbit formatted is exactly
tests/golden/fmt/NAME.fmt, and NAME.fmt formatted is itself (run by tests/golden/golden.py).

--update rewrites the .fmt files from the formatter's output: read the diff before
committing it.
"""
import glob
import os
import subprocess

from harness.runs import run_program

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(GOLDEN, 'fmt')


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def write(path, data):
    with open(path, 'wb') as f:
        f.write(data)


def plain_env():
    """The environment without the variables that turn colour on or off."""
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    return env


def fmt_text(orbitc, data):
    """`orbitc fmt -` of `data`: (status, stdout bytes, stderr text)."""
    p = run_program([orbitc, 'fmt', '-'], input=data, env=plain_env(), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def case_problems(orbitc, case, update):
    expected_path = case[:-len('.orbit')] + '.fmt'
    status, out, err = fmt_text(orbitc, read(case))
    if status != 0:
        return ['exit %d: %s' % (status, err[-1000:])]
    if update:
        if not os.path.exists(expected_path) or read(expected_path) != out:
            write(expected_path, out)
        return []
    if not os.path.exists(expected_path):
        return ['%s: no expected file (run with --update, then read it)' % expected_path]
    if out != read(expected_path):
        return ['formatted text differs from %s' % expected_path]
    status, again, _ = fmt_text(orbitc, out)
    if status != 0 or again != out:
        return ['%s: the expected text does not format to itself' % expected_path]
    return []


def run_all(orbitc, update, selected):
    """Runs the cases (all, or those named in `selected`); prints each failure, returns
    (passed, failed)."""
    cases = sorted(glob.glob(os.path.join(CASES, '*.orbit')))
    if selected:
        wanted = {os.path.basename(n).split('.')[0] for n in selected}
        cases = [c for c in cases if os.path.basename(c)[:-len('.orbit')] in wanted]
    elif len(cases) < 10:
        print('FAIL tests/golden/fmt holds %d cases' % len(cases))
        return 0, 1
    passed = failed = 0
    for case in cases:
        problems = case_problems(orbitc, case, update)
        if problems:
            failed += 1
            print('FAIL fmt/%s' % os.path.basename(case))
            for p in problems:
                print('  ' + p.replace('\n', '\n  '))
        else:
            passed += 1
    return passed, failed
