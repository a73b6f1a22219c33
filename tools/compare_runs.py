#!/usr/bin/env python3
"""Records what orbit-run prints for every runtime case, to compare two builds of it byte
for byte (a refactoring of runtime/ or engine/ must change nothing).

  compare_runs.py --orbitc build/cli/orbitc --orbit-run OLD/orbit-run --record DIR
  compare_runs.py --orbitc build/cli/orbitc --orbit-run build/runtime/orbit-run --against DIR

The cases: every tests/golden/run/NAME.orbit (built once with --orbitc; the conformance
scenarios are among them) with its NAME.scenario.json and NAME.args, each run four ways:
as the golden runs it, with --format json, with --show-values, and with both. What is
recorded per run: the exit status, standard output and standard error. --against prints
each run that differs and exits 1 when any does; the last line counts the runs.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, 'tests', 'golden', 'run')
VARIANTS = {
    'plain': [],
    'json': ['--format', 'json'],
    'values': ['--show-values'],
    'json_values': ['--format', 'json', '--show-values'],
}


def case_names():
    return sorted(n[:-len('.orbit')] for n in os.listdir(CASES) if n.endswith('.orbit'))


def run_case(orbitc, orbit_run, name, tmp):
    """{variant: bytes} for one case, or None when the program does not build."""
    orbc = os.path.join(tmp, name + '.orbc')
    built = subprocess.run([orbitc, 'build', name + '.orbit', '-o', orbc], cwd=CASES,
                           capture_output=True, timeout=120)
    if built.returncode != 0:
        return None
    args = []
    args_file = os.path.join(CASES, name + '.args')
    if os.path.exists(args_file):
        with open(args_file, encoding='utf-8') as f:
            args = shlex.split(f.read())
    scenario = name + '.scenario.json'
    base = [orbit_run, orbc]
    if os.path.exists(os.path.join(CASES, scenario)):
        base += ['--scenario', scenario]
    results = {}
    for variant, extra in VARIANTS.items():
        run = subprocess.run(base + args + extra, cwd=CASES, capture_output=True, timeout=120)
        results[variant] = (b'exit %d\n--- stdout\n' % run.returncode + run.stdout +
                            b'--- stderr\n' + run.stderr)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--orbitc', required=True)
    parser.add_argument('--orbit-run', required=True)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument('--record', metavar='DIR')
    mode.add_argument('--against', metavar='DIR')
    args = parser.parse_args()
    orbitc = os.path.abspath(args.orbitc)
    orbit_run = os.path.abspath(args.orbit_run)
    runs = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in case_names():
            results = run_case(orbitc, orbit_run, name, tmp)
            if results is None:
                print('%s: does not build' % name)
                differ += 1
                continue
            for variant, output in results.items():
                runs += 1
                path = os.path.join(args.record or args.against, '%s.%s' % (name, variant))
                if args.record:
                    os.makedirs(args.record, exist_ok=True)
                    with open(path, 'wb') as f:
                        f.write(output)
                    continue
                expected = open(path, 'rb').read() if os.path.exists(path) else None
                if expected != output:
                    differ += 1
                    print('%s (%s): differs' % (name, variant))
    print('%d runs, %d differ' % (runs, differ))
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
