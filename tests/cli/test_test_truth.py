#!/usr/bin/env python3
"""The truth of `orbitc test`: orbit-run's recorded histories, as tests. Each golden
runtime scenario that a test can express (tests/golden/run, tests/conformance/runtime) is
written by tools/scenario_to_test.py as an Orbit test whose `expect { events: […] }` is
its whole history, every line with its time; orbitc test must pass every one of them, and
fail each one whose expectation is mutated (one event's time moved by 1 ms) with a
failure naming that event.

    test_test_truth.py --orbitc PATH
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test

TOOL = os.path.join(cli_harness.ROOT, 'tools', 'scenario_to_test.py')
# Why a scenario may be left out (the tool's docstring says what each means).
REASONS = {'refused', 'stopped', 'show-values', 'json', 'key', 'number', 'checked'}


def convert(out):
    """The tool's summary: (converted names, {reason: names})."""
    p = subprocess.run([sys.executable, TOOL, out, '--orbitc', cli_harness.ORBITC],
                       capture_output=True, text=True, check=True)
    lines = p.stdout.splitlines()
    skipped = {}
    for line in lines[1:]:
        reason, _, names = re.match(r'skipped (\S+) (\d+): (.*)', line).groups()
        skipped[reason] = names.split()
    return sorted(os.listdir(out)), skipped


def report(out, *args):
    status, stdout, err = run('test', '--format', 'json', *args, '.', cwd=out, timeout=600)
    expect(err == '', 'stderr: ' + err)
    return status, json.loads(stdout)


def entries(test_file):
    """The event entries of a converted test, with the line each is on."""
    with open(test_file, encoding='utf-8') as f:
        lines = f.read().split('\n')
    return [(i, line) for i, line in enumerate(lines) if re.match(r'\s+"\+ \d+ms ', line)]


@test
def every_converted_history_is_a_passing_test():
    with tempfile.TemporaryDirectory() as out:
        converted, skipped = convert(out)
        expect(set(skipped) <= REASONS, 'a reason the tool does not document: %s' % skipped)
        expect(len(converted) >= 40, 'only %d scenarios converted' % len(converted))
        for name in converted:
            history = os.path.join(cli_harness.ROOT, 'tests', 'conformance', 'runtime',
                                   name + '.history')
            if not os.path.exists(history):
                history = os.path.join(cli_harness.ROOT, 'tests', 'golden', 'run',
                                       name + '.history')
            with open(history, encoding='utf-8') as f:
                count = len(f.read().splitlines())
            got = len(entries(os.path.join(out, name, name + '.test.orbit')))
            expect(got == count, '%s: %d events expected of %d lines' % (name, got, count))
        status, doc = report(out)
        failed = [(t['name'], t['failures'], t['message']) for t in doc['tests']
                  if t['status'] != 'passed']
        expect(status == 0 and not failed, 'orbitc test disagrees with orbit-run: %s' % failed)
        expect(sorted(t['name'] for t in doc['tests']) == converted,
               'tests run: %d of %d' % (len(doc['tests']), len(converted)))


@test
def a_moved_event_fails_naming_it():
    with tempfile.TemporaryDirectory() as out:
        converted, _ = convert(out)
        moved = {}
        for name in converted:
            path = os.path.join(out, name, name + '.test.orbit')
            found = entries(path)
            index, line = found[len(found) // 2]
            ms = int(re.search(r'"\+ (\d+)ms', line).group(1))
            mutated = line.replace('"+ %dms ' % ms, '"+ %dms ' % (ms + 1), 1)
            with open(path, encoding='utf-8') as f:
                lines = f.read().split('\n')
            lines[index] = mutated
            with open(path, 'w', encoding='utf-8') as f:
                f.write('\n'.join(lines))
            moved[name] = (len(found) // 2, mutated.strip().rstrip(','))
        status, doc = report(out, '--jobs', '3')
        expect(status == 1, 'status %d, 1 expected' % status)
        for t in doc['tests']:
            k, entry = moved[t['name']]
            first = t['failures'][0] if t['failures'] else {}
            expect(t['status'] == 'failed' and len(t['failures']) == 1
                   and first['expectation'] == 'events[%d]' % k and first['expected'] == entry,
                   '%s: the failure does not name events[%d] %s: %s' % (t['name'], k, entry,
                                                                        t['failures']))
            expect(t['divergence'] and '\n> + ' in '\n' + t['divergence'].replace('\n  >', '\n>'),
                   '%s: no divergence marked' % t['name'])


if __name__ == '__main__':
    cli_harness.main()
