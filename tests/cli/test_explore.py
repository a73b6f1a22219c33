#!/usr/bin/env python3
"""`orbitc test --explore` (docs/testing.md, "Exploring") against the truth:

- each planted bug of tests/explore/ (a program whose own test passes) is found within the
  default budget, shrunk to the world its case states (the size, and the choices: why that
  size is the least is said beside each case), and the test printed for it, pasted beside
  the program, fails through the normal `orbitc test` with exactly that invariant;
- on correct programs (the examples, and every golden runtime scenario written as a test
  by tools/scenario_to_test.py) nothing breaks, and the report says how many worlds it
  tried;
- the report is the same for any --jobs, and --budget bounds the worlds;
- the built-in invariants hold in `orbitc test` too: a world that blocks without awaiting
  a signal fails its test unless the test expects `status: blocked`.

    test_explore.py --orbitc PATH
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test, write

EXAMPLES = os.path.join(cli_harness.ROOT, 'examples')
PLANTED = os.path.join(cli_harness.ROOT, 'tests', 'explore')
TOOL = os.path.join(cli_harness.ROOT, 'tools', 'scenario_to_test.py')
BUDGET = 10000   # TESTING_EXPLORE_BUDGET: the default

# Each planted bug: its invariant, and the shrunk world, a line per non-default choice.
# Why no smaller world breaks it:
PLANTED_CASES = {
    # The charge must start a moment before the deadline, which the test's signal (at 30m)
    # never lets it: one choice, the signal's arrival. Arriving *at* the await's timeout
    # breaks it too, and never arriving does not (the deadline then cancels the await):
    # "just before" is the earliest time that breaks it.
    'signal_race': ('a charge never completes in an order that timed out', [
        'signal "approved" 59m59s999ms after its await starts (just before its await\'s timeout)',
    ]),
    # The order must time out (the charge never answers: one choice) and the release must
    # fail (one more; it has no retry): neither alone breaks it.
    'compensation_after_deadline': ('the stock of an order that timed out is released', [
        'attempt 1 of charge: never answers (its timeout fires)',
        'attempt 1 of reserve.compensate: fails with UNAVAILABLE (retryable)',
    ]),
    # The order must fail (ship fails: one choice) and the refund must fail: with a
    # retryable error it would take five, with its non-retryable code one.
    'non_retryable_compensation': ('a charge that went through is refunded when the order fails', [
        'attempt 1 of ship: fails with UNAVAILABLE (retryable)',
        'attempt 1 of charge.compensate: fails with REFUND_WINDOW_CLOSED (non-retryable)',
    ]),
    # One pickup a millisecond after the queue timeout; at the timeout itself the pickup
    # counts (the tie), and every failure that is retried leaves attempts to use.
    'queue_timeout_race': ('a charge that fails has used its retries', [
        'attempt 1 of charge: is picked up after 1m1ms (just after its queue timeout)',
    ]),
}


def explore(*args, cwd=None):
    status, out, err = run('test', '--explore', '--format', 'json', *args, cwd=cwd, timeout=600)
    expect(err == '', 'stderr: ' + err)
    return status, json.loads(out)


def without_times(doc):
    for t in doc['tests']:
        t['seconds'] = 0
    doc['summary']['seconds'] = 0
    return doc


@test
def planted_bugs_are_found_shrunk_and_pasted():
    expect(sorted(os.listdir(PLANTED)) == sorted(PLANTED_CASES),
           'tests/explore/ and the cases differ: %s' % sorted(os.listdir(PLANTED)))
    for name, (invariant, shrunk) in sorted(PLANTED_CASES.items()):
        with tempfile.TemporaryDirectory() as tmp:
            program = os.path.join(tmp, name)
            shutil.copytree(os.path.join(PLANTED, name), program)
            status, out, err = run('test', program)
            expect(status == 0, '%s: its own test passes: %s%s' % (name, out, err))
            status, doc = explore(program)
            expect(status == 1, '%s: status %d, 1 expected (a broken invariant)' % (name, status))
            [t] = doc['tests']
            expect(t['status'] == 'broken' and t['invariant'] == invariant,
                   '%s: %s %s' % (name, t['status'], t['invariant']))
            expect(t['worlds'] <= BUDGET, '%s: %d worlds' % (name, t['worlds']))
            expect(t['shrunk'] == shrunk and t['shrunk_size'] == len(shrunk),
                   '%s: shrunk to %s, expected %s' % (name, t['shrunk'], shrunk))
            expect(t['found_size'] >= t['shrunk_size'], '%s: shrinking grew' % name)
            # The printed test, pasted beside the program, fails the same way.
            write(os.path.join(program, 'pasted.test.orbit'), t['test'])
            status, out, err = run('test', '--format', 'json', program)
            expect(status == 1, '%s: the pasted test: status %d %s' % (name, status, err))
            results = {r['name']: r for r in json.loads(out)['tests']}
            pasted = results['%s, explored: %s' % (t['name'], invariant)]
            expect([f['expectation'] for f in pasted['failures']] == ['invariant "%s"' % invariant],
                   '%s: the pasted test fails otherwise: %s' % (name, pasted['failures']))
            expect(pasted['outcome'].split()[0] == t['outcome'].split()[0],
                   '%s: ended %s, explored %s' % (name, pasted['outcome'], t['outcome']))


@test
def correct_programs_break_nothing():
    status, out, err = run('test', '--explore', EXAMPLES, timeout=600)
    expect(status == 0 and err == '', 'examples: %d %s%s' % (status, out, err))
    lines = out.splitlines()
    expect(all(line.startswith('ok ') for line in lines[:-1]), out)
    expect(' 0 broken, ' in lines[-1] and ' worlds tried (seed 1)' in lines[-1], lines[-1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, TOOL, tmp, '--orbitc', cli_harness.ORBITC],
                       capture_output=True, text=True, check=True)
        status, doc = explore('.', cwd=tmp)
        broken = [(t['name'], t['invariant'], t['shrunk']) for t in doc['tests']
                  if t['status'] != 'clean']
        expect(status == 0 and not broken, 'golden scenarios: %s' % broken)
        expect(len(doc['tests']) >= 40 and all(t['worlds'] >= 1 for t in doc['tests']),
               '%d tests' % len(doc['tests']))


@test
def the_same_report_for_any_jobs():
    for path in [EXAMPLES] + [os.path.join(PLANTED, name) for name in sorted(PLANTED_CASES)]:
        one = without_times(explore('--jobs', '1', '--seed', '7', path)[1])
        three = without_times(explore('--jobs', '3', '--seed', '7', path)[1])
        expect(one == three, '%s: the reports of --jobs 1 and 3 differ' % path)
        expect(one['seed'] == 7, 'the seed is reported')


@test
def the_budget_bounds_the_worlds():
    status, doc = explore('--budget', '5', EXAMPLES)
    expect(status == 0, 'status %d' % status)
    expect(all(1 <= t['worlds'] <= 5 for t in doc['tests']),
           [t['worlds'] for t in doc['tests']])
    expect(doc['summary']['worlds'] == sum(t['worlds'] for t in doc['tests']),
           'the summary counts every world')


@test
def the_time_cuts_the_search_short():
    # A search cut short by --time has not tried every world, whatever it reached.
    status, doc = explore('--time', '0.000001', EXAMPLES)
    expect(status == 0, 'status %d' % status)
    expect(not any(t['exhaustive'] for t in doc['tests']) and all(
        1 <= t['worlds'] < BUDGET for t in doc['tests']),
           [(t['worlds'], t['exhaustive']) for t in doc['tests']])


BLOCKING = '''worker "w.call" {
  output { id: string }
}

workflow one {
  step call { worker "w.call" }
}

test "a worker that never answers" {
  task "w.call" { attempts: [{ never_answers: true }] }
  expect { status: %s }
}
'''


@test
def a_block_breaks_never_blocks_unless_expected():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'one.orbit'), BLOCKING % 'failed')
        status, out, err = run('test', '--format', 'json', '.', cwd=tmp)
        [t] = json.loads(out)['tests']
        expect(status == 1 and 'invariant "never_blocks"' in [f['expectation'] for f in t['failures']],
               'never_blocks: %s' % t['failures'])
        write(os.path.join(tmp, 'one.orbit'), BLOCKING % 'blocked')
        status, out, err = run('test', '.', cwd=tmp)
        expect(status == 0, 'a test that expects the block passes: %s' % out)


if __name__ == '__main__':
    cli_harness.main()
