"""The cases of a test file, and the two ways to run them.

A case is a function without arguments marked with `@test`; it fails by raising (an
`AssertionError` from `expect`, or any other exception). Under pytest (tests/conftest.py)
each case is one pytest test of the file's name, so `pytest tests/cli/test_cli.py -k NAME`
runs one. Run as a script, the file's `main()` runs them all (or those whose name contains
-k's text) and ends with the line `N passed, N failed`."""
import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
import traceback

from . import paths

MARK = 'orbit_case'
_CASES = {}       # module name -> its cases, in the file's order


def test(fn):
    """Marks `fn` as a case of its file."""
    setattr(fn, MARK, True)
    _CASES.setdefault(fn.__module__, []).append(fn)
    return fn


def cases(module='__main__'):
    return list(_CASES.get(module, []))


def fill_globals(make_tmp):
    """Sets, in every test module loaded, the globals it leaves None that a script's main
    used to set: ORBITC, ORBIT_RUN, LEX_DUMP, FMT_PROPS (the programs of support.paths)
    and TMP (`make_tmp(module name)`, a temporary directory)."""
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    for module in list(sys.modules.values()):
        if not (getattr(module, '__file__', None) or '').startswith(tests):
            continue
        for variable in paths.PROGRAMS:
            if getattr(module, variable, 0) is None:
                try:
                    setattr(module, variable, paths.program(variable))
                except FileNotFoundError:  # not built: the case that runs it says so
                    pass
        if getattr(module, 'TMP', 0) is None:
            setattr(module, 'TMP', make_tmp(module.__name__))


def _script_tmp(name):
    tmp = tempfile.mkdtemp(prefix='orbit-test-%s-' % name)
    atexit.register(shutil.rmtree, tmp, True)
    return tmp


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def main(programs=('ORBITC',), module='__main__'):
    """Runs the cases of `module` as a script. Each of `programs` (keys of paths.PROGRAMS)
    is an option, `--orbitc PATH` for ORBITC, that sets the environment variable that
    support.paths reads; then fill_globals. Exits 1 when a case failed or none ran."""
    ap = argparse.ArgumentParser()
    for variable in programs:
        ap.add_argument(paths.flag(variable), dest=variable)
    ap.add_argument('-k', default=None, help='run only the cases whose name contains this')
    args, _ = ap.parse_known_args()
    for variable in programs:
        value = getattr(args, variable)
        if value:
            os.environ[variable] = os.path.abspath(value)
    fill_globals(_script_tmp)
    passed = failed = 0
    for fn in cases(module):
        if args.k and args.k not in fn.__name__:
            continue
        start = time.monotonic()
        try:
            fn()
            passed += 1
            print('ok   %-60s %.2fs' % (fn.__name__, time.monotonic() - start))
        except AssertionError as e:
            failed += 1
            print('FAIL %s: %s' % (fn.__name__, e))
        except Exception as e:  # a crash of the test itself is a failure too
            failed += 1
            print('FAIL %s: %s: %s' % (fn.__name__, type(e).__name__, e))
            traceback.print_exc()
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed or not passed else 0)


CORPUS_SAMPLE = max(1, int(os.environ.get('ORBIT_CORPUS_SAMPLE') or 1))


def corpus_sample(items):
    """A corpus-wide loop's items: all of them, or under the sanitizers' setup
    (tests/meson.build sets ORBIT_CORPUS_SAMPLE=N) every Nth, the same ones each run. Those
    loops run a property over every golden source; the plain build's run checks each, the
    sanitizers' run a third of them, which reaches the same code for a third of the time
    (the fuzz targets run under the sanitizers on everything)."""
    return list(items)[::CORPUS_SAMPLE]
