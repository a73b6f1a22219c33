#!/usr/bin/env python3
"""Golden tests of the reference runtime: program + scenario in, exact history out (run by
tests/golden/golden.py).

A case is tests/golden/run/NAME.orbit with, beside it (for the runs of the conformance kit,
every case but `scenario_*`, these are symbolic links to tests/conformance/runtime/NAME.*, the
one copy, tools/conformance.py):

  NAME.scenario.json   the scenario (docs/runtime.md)
  NAME.history         exact stdout of `orbit-run NAME.orbc --scenario NAME.scenario.json`
  NAME.args            (optional) extra orbit-run arguments, e.g. `--workflow checkout`
  NAME.stderr          (optional) exact stderr; when absent, stderr must be empty
  NAME.status          (optional) expected exit status; default 0 when the history ends
                       with WorkflowCompleted, else 1

The program is built with `orbitc build NAME.orbit -o TMP.orbc`; commands run with
tests/golden/run as the working directory. The file's `orbitc dis --format json` must match
docs/orbc.schema.json and encode back to the same bytes (tools/orbc_json.py).

--update rewrites .history (and an existing .stderr) from the actual output: read every
written file before committing it.
"""
import difflib
import os
import shlex
import sys
import tempfile

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(GOLDEN))
CASES = os.path.join(GOLDEN, 'run')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
sys.path.insert(0, os.path.join(ROOT, 'tests'))
import orbc_json  # noqa: E402
from support import sanitizers  # noqa: E402
ORBC_SCHEMA = orbc_json.load_schema()
SANITIZER_EXIT = sanitizers.EXIT
run_program = sanitizers.run   # subprocess.run under the sanitizers, their reports in stderr


def read(path):
    with open(path, encoding='utf-8', newline='') as f:
        return f.read()


def write(path, text):
    with open(path, 'w', encoding='utf-8', newline='') as f:
        f.write(text)


def compare(path, actual, update, problems, must_exist=True):
    if update and (must_exist or os.path.exists(path)):
        if not os.path.exists(path) or read(path) != actual:
            write(path, actual)
        return
    if not os.path.exists(path):
        if must_exist:
            problems.append('missing %s (run with --update, then read it)'
                            % os.path.relpath(path, ROOT))
        elif actual:
            problems.append('unexpected stderr:\n' + actual)
        return
    expected = read(path)
    if expected != actual:
        diff = difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                    'expected ' + os.path.relpath(path, ROOT), 'actual')
        problems.append(''.join(diff))


def run_case(name, args):
    base = os.path.join(CASES, name)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        orbc = os.path.join(tmp, name + '.orbc')
        build = run_program([args.orbitc, 'build', name + '.orbit', '-o', orbc],
                              cwd=CASES, capture_output=True, timeout=120)
        if build.returncode != 0:
            return ['orbitc build failed (exit %d):\n%s' % (build.returncode,
                                                            build.stderr.decode('utf-8', 'replace'))]
        problems += orbc_json.check_dump(args.orbitc, orbc, ORBC_SCHEMA)[1]
        extra = shlex.split(read(base + '.args')) if os.path.exists(base + '.args') else []
        cmd = [args.orbit_run, orbc, '--scenario', name + '.scenario.json'] + extra
        p = run_program(cmd, cwd=CASES, capture_output=True, timeout=120)
    out = p.stdout.decode('utf-8', 'replace')
    err = p.stderr.decode('utf-8', 'replace').replace(orbc, name + '.orbc')
    if p.returncode == SANITIZER_EXIT or p.returncode < 0 or 'Sanitizer' in err:
        return ['crashed or sanitizer report (exit %d):\n%s' % (p.returncode, err)]
    compare(base + '.history', out, args.update, problems)
    compare(base + '.stderr', err, args.update, problems, must_exist=False)
    if os.path.exists(base + '.status'):
        want = int(read(base + '.status').strip())
    else:
        want = 0 if (' WorkflowCompleted ' in out or '"status":"COMPLETED"' in out) else 1
    if p.returncode != want:
        problems.append('exit status %d, expected %d' % (p.returncode, want))
    return problems


def run_all(orbitc, orbit_run, update, selected):
    """Runs the cases (all, or those named in `selected`); prints each failure, returns
    (passed, failed)."""
    args = Options(orbitc, orbit_run, update)
    names = sorted(f[:-len('.orbit')] for f in os.listdir(CASES) if f.endswith('.orbit'))
    if selected:
        wanted = {os.path.basename(n).split('.')[0] for n in selected}
        names = [n for n in names if n in wanted]
    passed = failed = 0
    for name in names:
        problems = run_case(name, args)
        if problems:
            failed += 1
            print('FAIL run/%s' % name)
            for p in problems:
                print('  ' + p.replace('\n', '\n  '))
        else:
            passed += 1
    if not names:
        failed += 1
        print('FAIL no runtime case found')
    return passed, failed


class Options:
    """What run_case reads: the two programs and whether to rewrite expected files."""
    def __init__(self, orbitc, orbit_run, update):
        self.orbitc, self.orbit_run, self.update = orbitc, orbit_run, update
