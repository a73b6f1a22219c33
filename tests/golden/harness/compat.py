"""Golden tests of `orbitc compat` (docs/compat.md): each tests/golden/compat/NAME/ holds
old.orbit and new.orbit; both are built (each as NAME.orbit in a directory of its own, so
that the two sides name the same file), then `orbitc compat old.orbc new.orbc` must print
exactly NAME/report (the human report, then `exit N`) and, with --format json,
NAME/report.json. A case named after a rule must report that rule, and every rule of
compat/rules.def has its case (run by tests/golden/golden.py).

--update rewrites the expected files from the output: read the diff before committing.
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness.fmt import plain_env, read, write
from harness.runs import run_program

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(GOLDEN, 'compat')
RULES_DEF = os.path.join(os.path.dirname(os.path.dirname(GOLDEN)), 'compat', 'rules.def')


def rules():
    """The rules' names, from compat/rules.def (its one table)."""
    text = open(RULES_DEF, encoding='utf-8').read()
    return re.findall(r'^COMPAT_RULE\(\w+, "([a-z-]+)"', text, re.M)


def run(args, cwd):
    return run_program(args, cwd=cwd, env=plain_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)


def outputs(orbitc, case):
    """(human report + exit line, JSON report) of the case, or a problem (str)."""
    name = os.path.basename(case)
    tmp = tempfile.mkdtemp(prefix='orbit-compat-golden-')
    try:
        for side in ('old', 'new'):
            os.mkdir(os.path.join(tmp, side))
            shutil.copy(os.path.join(case, side + '.orbit'), os.path.join(tmp, side, name + '.orbit'))
            p = run([orbitc, 'build', name + '.orbit', '-o', '../%s.orbc' % side],
                    os.path.join(tmp, side))
            if p.returncode != 0:
                return '%s.orbit does not build: %s' % (side, p.stderr.decode()[-1000:])
        human = run([orbitc, 'compat', 'old.orbc', 'new.orbc', '--color', 'never'], tmp)
        js = run([orbitc, 'compat', 'old.orbc', 'new.orbc', '--format', 'json'], tmp)
        if human.returncode not in (0, 1) or js.returncode != human.returncode:
            return 'exit %d: %s' % (human.returncode, human.stderr.decode()[-1000:])
        return human.stdout + b'exit %d\n' % human.returncode, js.stdout
    finally:
        shutil.rmtree(tmp)


def case_problems(orbitc, case, update):
    got = outputs(orbitc, case)
    if isinstance(got, str):
        return [got]
    name = os.path.basename(case)
    if name in rules() and ('[%s]' % name).encode() not in got[0]:
        return ['the report does not name rule %s, which the case is named after' % name]
    problems = []
    for filename, out in zip(('report', 'report.json'), got):
        path = os.path.join(case, filename)
        if update:
            if not os.path.exists(path) or read(path) != out:
                write(path, out)
        elif not os.path.exists(path):
            problems.append('%s: no expected file (run with --update, then read it)' % path)
        elif read(path) != out:
            problems.append('output differs from %s:\n%s' % (path, out.decode()[:3000]))
    return problems


def find_cases(selected):
    found = sorted(os.path.join(CASES, d) for d in os.listdir(CASES)
                   if os.path.isfile(os.path.join(CASES, d, 'old.orbit')))
    if selected:
        wanted = {os.path.basename(s.rstrip('/')) for s in selected}
        found = [c for c in found if os.path.basename(c) in wanted]
    return found


def run_all(orbitc, update, selected):
    """Runs the cases (all, or those named in `selected`); prints each failure, returns
    (passed, failed). Over all cases, a rule without its case fails too."""
    cases = find_cases(selected)
    passed = failed = 0
    if not selected:
        missing = sorted(set(rules()) - {os.path.basename(c) for c in cases})
        for rule in missing:
            print('FAIL compat: rule %s has no golden case tests/golden/compat/%s/' % (rule, rule))
        failed += len(missing)
    for case in cases:
        problems = case_problems(orbitc, case, update)
        if problems:
            failed += 1
            print('FAIL compat/%s' % os.path.basename(case))
            for p in problems:
                print('  ' + p.replace('\n', '\n  '))
        else:
            passed += 1
    return passed, failed
