#!/usr/bin/env python3
"""`orbitc test --explore` (docs/testing.md, "Exploring") against the truth:

- each planted bug of tests/explore/ (a program whose own test passes) is found within the
  default budget (or the one its case gives), shrunk to the world its case states (the
  size, and the choices: why that size is the least is said beside each case), and the
  test printed for it, pasted beside the program, fails through the normal `orbitc test`
  with exactly that invariant;
- one of them is out of the enumeration's reach: the random worlds find it in a larger
  world than the least, which the shrinker reduces to the least, the same on any --jobs;
- on correct programs (the examples, and every golden runtime scenario written as a test
  by tools/scenario_to_test.py) nothing breaks, and the report says how many worlds it
  tried;
- the report is the same for any --jobs, and --budget bounds the worlds;
- the built-in invariants hold in `orbitc test` too: a world that blocks without awaiting
  a signal fails its test unless the test expects `status: blocked`;
- every JSON report these tests read fits docs/explore-report.schema.json (keys in their
  order, with the sizes and counts it cannot say checked here), and the schema refuses a
  report broken in each way a writer could break it.

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
SCHEMA = os.path.join(cli_harness.ROOT, 'docs', 'explore-report.schema.json')
sys.path.insert(0, os.path.join(cli_harness.ROOT, 'tools'))
import validate_json  # noqa: E402
BUDGET = 10000   # TESTING_EXPLORE_BUDGET: the default
RANDOM_BUDGET = 2000   # retries_exhausted: the enumeration's half ends before its bug
RANDOM_CASE = 'retries_exhausted'

# Each planted bug: its invariant, the shrunk world, a line per non-default choice, and the
# options of its search (none: the default budget). Why no smaller world breaks it:
PLANTED_CASES = {
    # The charge must start a moment before the deadline, which the test's signal (at 30m)
    # never lets it: one choice, the signal's arrival. Arriving *at* the await's timeout
    # breaks it too, and never arriving does not (the deadline then cancels the await):
    # "just before" is the earliest time that breaks it.
    'signal_race': ('a charge never completes in an order that timed out', [
        'signal "approved" 59m59s999ms after its await starts (just before its await\'s timeout)',
    ], []),
    # The order must time out (the charge never answers: one choice) and the release must
    # fail (one more; it has no retry): neither alone breaks it.
    'compensation_after_deadline': ('the stock of an order that timed out is released', [
        'attempt 1 of charge: never answers (its timeout fires)',
        'attempt 1 of reserve.compensate: fails with UNAVAILABLE (retryable)',
    ], []),
    # The order must fail (ship fails: one choice) and the refund must fail: with a
    # retryable error it would take five, with its non-retryable code one.
    'non_retryable_compensation': ('a charge that went through is refunded when the order fails', [
        'attempt 1 of ship: fails with UNAVAILABLE (retryable)',
        'attempt 1 of charge.compensate: fails with REFUND_WINDOW_CLOSED (non-retryable)',
    ], []),
    # One pickup a millisecond after the queue timeout; at the timeout itself the pickup
    # counts (the tie), and every failure that is retried leaves attempts to use.
    'queue_timeout_race': ('a charge that fails has used its retries', [
        'attempt 1 of charge: is picked up after 1m1ms (just after its queue timeout)',
    ], []),
    # Every step retries every failure (no non-retryable code, no queue timeout, no
    # deadline) and a lost worker uses no attempt: shipping fails only when its three
    # attempts fail, three choices, none of which can be smaller than the first failure of
    # the table (a retryable one), and no other step's choice helps. Under a budget of
    # 2,000 the enumeration's 1,000 worlds end among the worlds of two choices: the random
    # worlds find it (world 1,226 of seed 1), with a timeout where a failure does and two
    # choices beside; one of them, a retried failure of pack, the shrinker kept when it
    # kept choices by their place (the retry it took out slid ship's failures past ship).
    'retries_exhausted': ('an order whose shipping fails is refunded', [
        'attempt 1 of ship: fails with UNAVAILABLE (retryable)',
        'attempt 2 of ship: fails with UNAVAILABLE (retryable)',
        'attempt 3 of ship: fails with UNAVAILABLE (retryable)',
    ], ['--budget', str(RANDOM_BUDGET)]),
}


def report_problem(doc):
    """Why `doc` is not a report as docs/explore-report.schema.json says, or None: the
    schema (through tools/validate_json.py, keys in order), then what it cannot say."""
    schema, validator = validate_json.load_validator(SCHEMA)
    problem = validate_json.value_problem(doc, validator, schema)
    if problem:
        return problem
    for t in doc['tests']:
        if t['status'] == 'broken' and not (
                len(t['found']) == t['found_size'] >= t['shrunk_size'] == len(t['shrunk'])):
            return '%s: the sizes %s, %s and the choices %s, %s disagree' % (
                t['name'], t['found_size'], t['shrunk_size'], t['found'], t['shrunk'])
    summary, tests = doc['summary'], doc['tests']
    counts = {key: sum(t['status'] == status for t in tests)
              for key, status in [('clean', 'clean'), ('broken', 'broken'), ('errors', 'error')]}
    if summary['total'] != len(tests) or any(summary[k] != n for k, n in counts.items()):
        return 'the summary %s counts other tests than %d: %s' % (summary, len(tests), counts)
    if summary['worlds'] < sum(t['worlds'] + t['shrink_runs'] for t in tests):
        return 'the summary\'s %d worlds are fewer than the tests\'' % summary['worlds']
    return None


def explore(*args, cwd=None):
    status, out, err = run('test', '--explore', '--format', 'json', *args, cwd=cwd, timeout=600)
    expect(err == '', 'stderr: ' + err)
    doc = json.loads(out)
    problem = report_problem(doc)
    expect(problem is None, 'the report does not fit docs/explore-report.schema.json: %s' % problem)
    return status, doc


def without_times(doc):
    for t in doc['tests']:
        t['seconds'] = 0
    doc['summary']['seconds'] = 0
    return doc


@test
def planted_bugs_are_found_shrunk_and_pasted():
    expect(sorted(os.listdir(PLANTED)) == sorted(PLANTED_CASES),
           'tests/explore/ and the cases differ: %s' % sorted(os.listdir(PLANTED)))
    for name, (invariant, shrunk, options) in sorted(PLANTED_CASES.items()):
        with tempfile.TemporaryDirectory() as tmp:
            program = os.path.join(tmp, name)
            shutil.copytree(os.path.join(PLANTED, name), program)
            status, out, err = run('test', program)
            expect(status == 0, '%s: its own test passes: %s%s' % (name, out, err))
            status, doc = explore(*options, program)
            expect(status == 1, '%s: status %d, 1 expected (a broken invariant)' % (name, status))
            [t] = doc['tests']
            expect(t['status'] == 'broken' and t['invariant'] == invariant,
                   '%s: %s %s' % (name, t['status'], t['invariant']))
            budget = int(options[options.index('--budget') + 1]) if options else BUDGET
            expect(t['worlds'] <= budget, '%s: %d worlds' % (name, t['worlds']))
            expect(t['shrunk'] == shrunk and t['shrunk_size'] == len(shrunk),
                   '%s: shrunk to %s, expected %s' % (name, t['shrunk'], shrunk))
            expect(t['found_size'] >= t['shrunk_size'], '%s: shrinking grew' % name)
            if name == RANDOM_CASE:
                # Found by the random worlds (after the enumeration's half), in a larger
                # world than the least: the shrinker took the other choices out.
                expect(t['worlds'] > budget // 2 and t['found_size'] > t['shrunk_size'],
                       '%s: found in world %d with %d choices, shrunk to %d: %s' % (
                           name, t['worlds'], t['found_size'], t['shrunk_size'], t['found']))
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
def the_shrunk_world_is_the_same_for_any_jobs():
    # Every planted program in one run (each its own root), under the budget whose random
    # worlds find retries_exhausted: a seed gives the same worlds found and shrunk on 1
    # thread and on 3, and again; the shrinker works from the world found alone.
    with tempfile.TemporaryDirectory() as tmp:
        for name in PLANTED_CASES:
            shutil.copytree(os.path.join(PLANTED, name), os.path.join(tmp, name))
            write(os.path.join(tmp, name, 'orbit.program'), '')
        for seed in ['1', '3']:   # (seed 7 finds nothing in 2,000 worlds)
            args = ['--budget', str(RANDOM_BUDGET), '--seed', seed, tmp]
            one, three, again = (without_times(explore('--jobs', jobs, *args)[1])
                                 for jobs in ['1', '3', '3'])
            expect(one == three == again, 'seed %s: the reports of --jobs 1 and 3 differ' % seed)
            expect(len(one['tests']) == len(PLANTED_CASES), '%d tests' % len(one['tests']))
            [t] = [t for t in one['tests'] if t['program'].endswith(RANDOM_CASE)]
            expect(t['status'] == 'broken' and t['worlds'] > RANDOM_BUDGET // 2
                   and t['found'] != t['shrunk'] and t['shrunk_size'] == 3,
                   'seed %s: found in world %d, %s shrunk to %s' % (
                       seed, t['worlds'], t['found'], t['shrunk']))


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


@test
def the_schema_refuses_broken_reports():
    # A real report of each kind, clean and broken, fits; each break a writer could make
    # does not (a key renamed, missing, added or moved, a null where a broken test has a
    # value, a value where a clean one has null, a count off, a choice not a line).
    _, clean = explore('--budget', '3', EXAMPLES)
    _, broken = explore(os.path.join(PLANTED, 'compensation_after_deadline'))
    expect(clean['tests'] and broken['tests'][0]['status'] == 'broken', 'the reports')

    def renamed(t):
        t['invariants'] = t.pop('invariant')

    def moved(t):
        t['name'] = t.pop('name')   # name last: the keys out of their order

    breaks = {
        'a key renamed': (broken, renamed),
        'a key missing': (broken, lambda t: t.pop('detail')),
        'a key added': (clean, lambda t: t.update(seed=1)),
        'the keys out of order': (clean, moved),
        'a status unknown': (clean, lambda t: t.update(status='passed')),
        'a broken test without its test': (broken, lambda t: t.update(test=None)),
        'a broken test with a message': (broken, lambda t: t.update(message='why')),
        'a clean test with an invariant': (clean, lambda t: t.update(invariant='never_blocks')),
        'an error without a message': (clean, lambda t: t.update(status='error')),
        'a choice not a line': (broken, lambda t: t['shrunk'].__setitem__(0, 7)),
        'the sizes off': (broken, lambda t: t.update(shrunk_size=t['shrunk_size'] + 1)),
        'a line of 0': (clean, lambda t: t.update(line=0)),
        'worlds as text': (clean, lambda t: t.update(worlds='3')),
    }
    for what, (report, change) in breaks.items():
        doc = json.loads(json.dumps(report))
        change(doc['tests'][0])
        expect(report_problem(doc) is not None, 'the schema accepts %s' % what)
    for what, change in [('a count off', lambda s: s.update(broken=s['broken'] + 1)),
                         ('the seconds missing', lambda s: s.pop('seconds'))]:
        doc = json.loads(json.dumps(broken))
        change(doc['summary'])
        expect(report_problem(doc) is not None, 'the schema accepts %s' % what)
    doc = json.loads(json.dumps(clean))
    doc['version'] = 2
    expect(report_problem(doc) is not None, 'the schema accepts version 2')


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
