#!/usr/bin/env python3
"""Golden tests of `orbit-run replay` (run by tests/golden/golden.py): an OLD program, a
history of it, a NEW program in; the exact report out (docs/runtime.md, "Replay").

A case is a folder tests/golden/replay/NAME/ with:

  old.orbit        the program the history was recorded on
  new.orbit        (optional) the program it is replayed against; default old.orbit
  scenario.json    (optional) the scenario of the recording
  args             (optional) more arguments of the recording (`--workflow NAME`)
  cut              (optional) how many records of the recorded history to keep: a
                   history of an execution still in flight
  history          (optional) the history itself, committed instead of recorded (the
                   malformed ones, a history without values)
  expected         exact: the text report, then `--- json` and the JSON report, then
                   `--- stderr` and its standard error, then `--- exit N`

The history is recorded with `orbit-run OLD.orbc --format json --show-values` (the final
status line kept unless `cut` cuts it) and replayed as `history.jsonl` in a temporary
folder, so that the reports name it alike. --update rewrites `expected`: read it.
"""
import os
import shlex
import tempfile

from harness import runs

CASES = os.path.join(runs.GOLDEN, 'replay')


def read_opt(path):
    return runs.read(path) if os.path.exists(path) else None


def record(args, case, tmp):
    """The history of the case's OLD program: its lines, or a problem."""
    old = os.path.join(tmp, 'old.orbc')
    p = runs.run_program([args.orbitc, 'build', os.path.join(case, 'old.orbit'), '-o', old],
                         capture_output=True, timeout=120)
    if p.returncode:
        return None, 'orbitc build old.orbit failed:\n' + p.stderr.decode('utf-8', 'replace')
    cmd = [args.orbit_run, old, '--format', 'json', '--show-values']
    if os.path.exists(os.path.join(case, 'scenario.json')):
        cmd += ['--scenario', 'scenario.json']
    cmd += shlex.split(read_opt(os.path.join(case, 'args')) or '')
    p = runs.run_program(cmd, cwd=case, capture_output=True, timeout=120)
    if p.returncode not in (0, 1):
        return None, 'orbit-run failed:\n' + p.stderr.decode('utf-8', 'replace')
    lines = p.stdout.decode('utf-8').splitlines(True)
    cut = read_opt(os.path.join(case, 'cut'))
    return (lines[:int(cut)] if cut else lines), None


def run_case(name, args):
    case = os.path.join(CASES, name)
    with tempfile.TemporaryDirectory() as tmp:
        history = os.path.join(tmp, 'history.jsonl')
        committed = os.path.join(case, 'history')
        if os.path.exists(committed):
            with open(committed, 'rb') as f, open(history, 'wb') as out:
                out.write(f.read())
        else:
            lines, problem = record(args, case, tmp)
            if problem:
                return [problem]
            runs.write(history, ''.join(lines))
        new_src = os.path.join(case, 'new.orbit')
        if not os.path.exists(new_src):
            new_src = os.path.join(case, 'old.orbit')
        new = os.path.join(tmp, 'new.orbc')
        p = runs.run_program([args.orbitc, 'build', new_src, '-o', new], capture_output=True,
                             timeout=120)
        if p.returncode:
            return ['orbitc build failed:\n' + p.stderr.decode('utf-8', 'replace')]
        out = []
        status = None
        for fmt in ('text', 'json'):
            p = runs.run_program([args.orbit_run, 'replay', 'new.orbc', 'history.jsonl',
                                  '--format', fmt], cwd=tmp, capture_output=True,
                                 timeout=120)
            err = p.stderr.decode('utf-8', 'replace')
            if p.returncode == runs.SANITIZER_EXIT or p.returncode < 0 or 'Sanitizer' in err:
                return ['crashed or sanitizer report (exit %d):\n%s' % (p.returncode, err)]
            if status is not None and p.returncode != status:
                return ['exit %d with --format json, %d with text' % (p.returncode, status)]
            status = p.returncode
            out.append(p.stdout.decode('utf-8', 'replace'))
    actual = '%s--- json\n%s--- stderr\n%s--- exit %d\n' % (out[0], out[1], err, status)
    problems = []
    runs.compare(os.path.join(case, 'expected'), actual, args.update, problems)
    return problems


def run_all(orbitc, orbit_run, update, selected):
    """Runs the cases (all, or those named in `selected`); returns (passed, failed)."""
    args = runs.Options(orbitc, orbit_run, update)
    names = sorted(n for n in os.listdir(CASES) if os.path.isdir(os.path.join(CASES, n)))
    if selected:
        wanted = {os.path.basename(s.rstrip('/')) for s in selected}
        names = [n for n in names if n in wanted]
    passed = failed = 0
    for name in names:
        problems = run_case(name, args)
        if problems:
            failed += 1
            print('FAIL replay/%s' % name)
            for p in problems:
                print('  ' + p.replace('\n', '\n  '))
        else:
            passed += 1
    if not names:
        failed += 1
        print('FAIL no replay case found')
    return passed, failed
