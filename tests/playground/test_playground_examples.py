#!/usr/bin/env python3
"""The playground's examples menu (playground/src/examples.js, read as the bundler reads
it: its imports and its EXAMPLES entries): every program checks clean (no diagnostic at
all), is formatted, builds, and runs with its scenario under orbit-run; and each example
shows what its title promises (a timeout fires, a compensation runs, retries happen).

    test_playground_examples.py --orbitc PATH --orbit-run PATH
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_JS = os.path.join(ROOT, 'playground', 'src', 'examples.js')

# What the history of each example must show (an event, or an error code).
PROMISES = {
    'checkout': ['RetryScheduled', 'WorkflowCompleted'],
    'retries': ['RetryScheduled', '(gave up after 3 attempts)'],
    'timeout': ['error=TIMEOUT', 'WorkflowTimeoutReached', 'WorkflowTimedOut'],
    'compensation': ['CompensationStarted', 'CompensationCompleted', 'WorkflowFailed'],
}


def examples():
    """[(id, program path, scenario path)] from examples.js."""
    text = open(EXAMPLES_JS, encoding='utf-8').read()
    imports = {name: os.path.normpath(os.path.join(os.path.dirname(EXAMPLES_JS), rel))
               for name, rel in re.findall(r"^import (\w+) from '([^']+)';$", text, re.M)}
    # One entry on a line or spread over several, as the formatter (biome.jsonc) lays it out.
    entries = re.findall(r"\{\s*id: '(\w+)',\s*title: '[^']*',\s*source: (\w+),\s*scenario: (\w+),?\s*\}",
                         text)
    return [(ident, imports[source], imports[scenario]) for ident, source, scenario in entries]


def run(argv, cwd=None):
    return subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, encoding='utf-8')


def check_example(args, ident, program, scenario, tmp):
    problems = []
    p = run([args.orbitc, 'check', program])
    if p.returncode != 0 or p.stdout or p.stderr:
        problems.append('orbitc check: status %d\n%s%s' % (p.returncode, p.stdout, p.stderr))
    p = run([args.orbitc, 'fmt', '--check', program])
    if p.returncode != 0:
        problems.append('not formatted (orbitc fmt --check): %s%s' % (p.stdout, p.stderr))
    out = os.path.join(tmp, ident + '.orbc')
    p = run([args.orbitc, 'build', program, '-o', out])
    if p.returncode != 0:
        return problems + ['orbitc build: status %d\n%s' % (p.returncode, p.stderr)]
    p = run([args.orbit_run, out, '--scenario', scenario])
    if p.returncode not in (0, 1) or p.stderr:
        return problems + ['orbit-run: status %d\n%s' % (p.returncode, p.stderr)]
    for promise in PROMISES.get(ident, ['?']):
        if promise not in p.stdout:
            problems.append('its history has no %r:\n%s' % (promise, p.stdout))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--orbit-run', required=True)
    args = ap.parse_args()
    found = examples()
    passed = failed = 0
    if sorted(ident for ident, _, _ in found) != sorted(PROMISES):
        print('FAIL: examples.js has %s; this test knows %s'
              % (sorted(i for i, _, _ in found), sorted(PROMISES)))
        failed += 1
    with tempfile.TemporaryDirectory() as tmp:
        for ident, program, scenario in found:
            problems = check_example(args, ident, program, scenario, tmp)
            for problem in problems:
                print('FAIL: %s (%s): %s' % (ident, os.path.relpath(program, ROOT), problem))
            if problems:
                failed += 1
            else:
                passed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
