#!/usr/bin/env python3
"""Writes each golden runtime scenario as an Orbit test (docs/testing.md): the scenario's
world in Orbit (`task`, `step`, `child`, `signal`, durations in ms) and, as what must
happen, its status and every line of its recorded history, with its time:

    expect {
      status: failed
      events: ["+ 0ms WorkflowStarted workflow=checkout", "+ 0ms StepScheduled step=charge attempt=1 …", …]
    }

A case NAME (tests/golden/run/NAME.orbit with NAME.scenario.json and NAME.history, or
the same in tests/conformance/runtime/) becomes OUT/NAME/ holding `orbit.program`, a copy
of NAME.orbit and NAME.test.orbit: one program per case, so that `orbitc test OUT` runs
them all (from OUT: `orbitc test .`, the paths its messages name). tests/cli/test_test_truth.py runs them: orbitc test must agree with orbit-run
on every one. A case a test cannot express is skipped, with its reason:

- `refused`: orbit-run refuses the scenario (its status 2, an error on stderr);
- `stopped`: the scenario's max_events cuts the run (a test expects an end the workflow
  reached);
- `show-values`, `json`: the history was recorded with `--show-values` or
  `--format json`, not as orbitc test's `orbit logs` lines;
- `key`: a record of the scenario has a key that is not an Orbit name (`"x-id"`);
- `checked`: with `--orbitc`, the checker refuses the test (`orbitc check` reports an
  error): a world whose input or scripted output breaks its contract, which orbit-run
  refuses at run time and a test at check time (docs/testing.md, "Checked like code"),
  or an integer where the input contract says `duration` (JSON has no durations; Orbit
  writes `1500ms`).

    scenario_to_test.py OUT [--cases DIR]... [--orbitc PATH]

Prints `converted N` and a line per reason with its count and cases."""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE_DIRS = [os.path.join(ROOT, 'tests', 'golden', 'run'),
             os.path.join(ROOT, 'tests', 'conformance', 'runtime')]
NAME = re.compile(r'[A-Za-z_][A-Za-z0-9_]*\Z')
ENDS = {'WorkflowCompleted': 'completed', 'WorkflowFailed': 'failed',
        'WorkflowTimedOut': 'timed_out', 'WorkflowBlocked': 'blocked'}

# The scenario's keys of a script and an outcome, and the test's member for each (the
# inverse of the tables of docs/testing.md, "The world"); True: a duration in ms.
SCRIPT_KEYS = {'attempts': ('attempts', False), 'pickup_ms': ('pickup', True),
               'no_worker': ('no_worker', False), 'worker_id': ('worker_id', False)}
OUTCOME_KEYS = {'after_ms': ('after', True), 'pickup_ms': ('pickup', True),
                'lost_after_ms': ('lost_after', True)}


class Unexpressible(Exception):
    """A scenario a test cannot express; its argument is the reason's key."""


def string(text):
    """An Orbit string literal: the escapes \\n \\t \\r \\" \\\\ and \\u{…}."""
    out = []
    for c in text:
        if c in '"\\':
            out.append('\\' + c)
        elif c == '\n':
            out.append('\\n')
        elif c == '\t':
            out.append('\\t')
        elif c == '\r':
            out.append('\\r')
        elif ord(c) < 0x20 or ord(c) == 0x7f:
            out.append('\\u{%X}' % ord(c))
        else:
            out.append(c)
    return '"%s"' % ''.join(out)


def value(v):
    """A JSON value as an Orbit literal."""
    if v is None:
        return 'null'
    if v is True or v is False:
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        text = repr(v)
        if 'e' in text or 'inf' in text or 'nan' in text:
            raise Unexpressible('number')
        return text
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list):
        return '[%s]' % ', '.join(value(x) for x in v)
    if not v:
        return '{}'
    for key in v:
        if not NAME.match(key):
            raise Unexpressible('key')
    return '{ %s }' % ', '.join('%s: %s' % (k, value(x)) for k, x in v.items())


def duration(ms):
    return '%dms' % ms


def outcome(o):
    fields = []
    for key, v in o.items():
        member, is_duration = OUTCOME_KEYS.get(key, (key, False))
        fields.append('%s: %s' % (member, duration(v) if is_duration else value(v)))
    return '{ %s }' % ', '.join(fields)


def script(s, indent):
    lines = []
    for key, v in s.items():
        if key == 'compensate':
            lines.append('compensate {')
            lines += ['  ' + line for line in script(v, indent)]
            lines.append('}')
            continue
        member, is_duration = SCRIPT_KEYS[key]
        if key == 'attempts':
            lines.append('attempts: [%s]' % ', '.join(outcome(o) for o in v))
        else:
            lines.append('%s: %s' % (member, duration(v) if is_duration else value(v)))
    return lines


def block(head, lines):
    return ['%s {' % head] + ['  ' + line for line in lines] + ['}']


def test_text(name, scenario, history, workflow):
    """The test of one case."""
    if 'max_events' in scenario:
        raise Unexpressible('stopped')
    body = []
    workflow = workflow or scenario.get('workflow')
    if workflow:
        body.append('workflow %s' % workflow)
    if 'input' in scenario:
        body.append('input %s' % value(scenario['input']))
    if scenario.get('http_adapter') is False:
        body.append('http_adapter: false')
    for task, s in scenario.get('workers', {}).items():
        body += block('task %s' % string(task), script(s, 1))
    children = {}
    for key, s in scenario.get('steps', {}).items():
        if '.' in key:
            child, step = key.split('.', 1)
            children.setdefault(child, []).extend(block('step %s' % step, script(s, 1)))
        else:
            body += block('step %s' % key, script(s, 1))
    for child, lines in children.items():
        body += block('child %s' % child, lines)
    for signal in scenario.get('signals', []):
        fields = ['at: %s' % duration(signal['at_ms'])]
        if 'payload' in signal:
            fields.append('payload: %s' % value(signal['payload']))
        body.append('signal %s { %s }' % (string(signal['name']), ', '.join(fields)))
    lines = history.splitlines()
    end = lines[-1].split(' ')[3] if lines else ''
    if end not in ENDS:
        raise Unexpressible('stopped')
    events = [re.sub(r'^(\+ -?\d+ms) #\d+ ', r'\1 ', line) for line in lines]
    # An EXPRESSION_ERROR names the source as the run was given it: orbit-run's golden
    # `NAME.orbit`, orbitc test's `./NAME/NAME.orbit` (run as `orbitc test .` in OUT).
    events = [line.replace(': %s.orbit:' % name, ': ./%s/%s.orbit:' % (name, name))
              for line in events]
    expect = ['status: %s' % ENDS[end], 'events: [']
    expect += ['  %s,' % string(e) for e in events]
    expect.append(']')
    body += block('expect', expect)
    return '\n'.join(block('test %s' % string(name), body)) + '\n'


def read(path):
    with open(path, encoding='utf-8', newline='') as f:
        return f.read()


def cases(dirs):
    """{name: base path}, each name once (golden run cases link to the kit's)."""
    found = {}
    for d in dirs:
        for entry in sorted(os.listdir(d)):
            if entry.endswith('.scenario.json'):
                name = entry[:-len('.scenario.json')]
                base = os.path.join(d, name)
                if name not in found and os.path.exists(base + '.history') \
                        and os.path.exists(base + '.orbit'):
                    found[name] = base
    return found


def refused_by_check(orbitc, out, names):
    """The cases whose program `orbitc check` reports an error in: one check of them all
    (each OUT/NAME/ a program of its own; a process for all, which the sanitizers' run
    of tests/cli/test_test_truth.py starts once), each error by the case its path names."""
    if not names:
        return set()
    if os.sep in orbitc:   # a path: from OUT too
        orbitc = os.path.abspath(orbitc)
    p = subprocess.run([orbitc, 'check', '--format', 'concise', '--max-diagnostics=0'] + names,
                       cwd=out, capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1):
        raise SystemExit('orbitc check exited %d: %s' % (p.returncode, p.stderr[-2000:]))
    return {line.split('/')[0] for line in p.stdout.splitlines() if ': error[' in line}


def convert(name, base, out):
    """Writes OUT/NAME/; raises Unexpressible."""
    args = shlex.split(read(base + '.args')) if os.path.exists(base + '.args') else []
    status = int(read(base + '.status')) if os.path.exists(base + '.status') else None
    if status == 2:
        raise Unexpressible('refused')
    if '--show-values' in args:
        raise Unexpressible('show-values')
    if '--format' in args:
        raise Unexpressible('json')
    workflow = args[args.index('--workflow') + 1] if '--workflow' in args else None
    try:
        scenario = json.loads(read(base + '.scenario.json'))
    except ValueError:
        raise Unexpressible('refused')
    text = test_text(name, scenario, read(base + '.history'), workflow)
    target = os.path.join(out, name)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, 'orbit.program'), 'w', encoding='utf-8') as f:
        f.write('program case_%s {}\n' % name)
    shutil.copyfile(base + '.orbit', os.path.join(target, name + '.orbit'))
    with open(os.path.join(target, name + '.test.orbit'), 'w', encoding='utf-8') as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('out')
    p.add_argument('--cases', action='append', help='a folder of cases (default: both)')
    p.add_argument('--orbitc', help='skip the cases whose test this orbitc refuses')
    args = p.parse_args()
    converted, skipped = [], {}
    for name, base in sorted(cases(args.cases or CASE_DIRS).items()):
        try:
            convert(name, base, args.out)
            converted.append(name)
        except Unexpressible as e:
            skipped.setdefault(e.args[0], []).append(name)
    if args.orbitc:
        refused = refused_by_check(args.orbitc, args.out, converted)
        for name in sorted(refused):
            shutil.rmtree(os.path.join(args.out, name))
            skipped.setdefault('checked', []).append(name)
        converted = [name for name in converted if name not in refused]
    print('converted %d' % len(converted))
    for reason, names in sorted(skipped.items()):
        print('skipped %s %d: %s' % (reason, len(names), ' '.join(names)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
