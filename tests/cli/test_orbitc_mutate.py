#!/usr/bin/env python3
"""`orbitc test --mutate` (docs/testing.md, "Mutation testing") as a user meets it: on the
checkout example's tests every surviving mutant listed, exactly
(tests/cli/mutate/checkout.expected), and the tests that were missing
(tests/cli/mutate/checkout.more.test.orbit) killing every one; a mutant that breaks a
test reported killed by that test; a `when` negated and a compensation removed killed
where a test sees them (the verifier accepting the mutants); the equivalent mutants
and why; no file written; --jobs 1 and 4 alike; the JSON against
docs/mutation-report.schema.json; the exit status; and over orbit-run's recorded
histories written as tests (tools/scenario_to_test.py, as test_test_truth.py makes them),
every mutant made is a module liborbc's verifier accepts and each kind of mutation is
killed by some history. Each case works in a temporary directory.

    test_orbitc_mutate.py --orbitc PATH
"""
import json
import os
import shutil
import subprocess
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test
from support.retrying import TESTS, project

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(cli_harness.ROOT, 'examples')
SCHEMA = os.path.join(cli_harness.ROOT, 'docs', 'mutation-report.schema.json')
EXPECTED = os.path.join(HERE, 'mutate', 'checkout.expected')
MORE_TESTS = os.path.join(HERE, 'mutate', 'checkout.more.test.orbit')
sys.path.insert(0, os.path.join(cli_harness.ROOT, 'tools'))
import validate_json  # noqa: E402


def examples(tmp, more=False):
    """A copy of examples/ in `tmp` (with the missing tests when `more`); its path."""
    shutil.copytree(EXAMPLES, os.path.join(tmp, 'examples'))
    if more:
        shutil.copy(MORE_TESTS, os.path.join(tmp, 'examples'))
    return 'examples'


def valid(report):
    """The JSON report, checked against docs/mutation-report.schema.json (keys in order)."""
    doc = json.loads(report)
    with open(SCHEMA, encoding='utf-8') as f:
        schema = json.load(f)
    try:
        validate_json.jsonschema.validate(doc, schema)
    except validate_json.jsonschema.ValidationError as e:
        raise AssertionError('the report does not fit the schema: %s' % e.message)
    problem = validate_json.key_order_problem(doc, schema, schema.get('$defs', {}), '')
    expect(problem is None, 'the report\'s keys: %s' % problem)
    return doc


def mutate_json(*args, cwd=None):
    status, out, err = run('test', '--mutate', '--format', 'json', *args, cwd=cwd)
    expect(status in (0, 1) and err == '', 'got %d %s' % (status, err))
    return status, valid(out)


def by_change(doc):
    """Each mutant's (member, change) → (status, killed_by)."""
    return {(m['member'], m['change']): (m['status'], m['killed_by']) for m in doc['mutants']}


@test
def the_examples_survivors_are_listed():
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = run('test', '--mutate', examples(tmp), cwd=tmp)
        with open(EXPECTED, encoding='utf-8') as f:
            expected = f.read()
        expect(status == 1, 'status %d (1: a mutant survived) %s' % (status, err))
        expect(err == '', 'nothing on standard error: ' + err)
        expect(out == expected, 'the report differs:\n%s\n--- expected:\n%s' % (out, expected))


@test
def the_missing_tests_kill_every_survivor():
    with tempfile.TemporaryDirectory() as tmp:
        path = examples(tmp)
        _, before = mutate_json(path, cwd=tmp)
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = run('test', '--mutate', examples(tmp, more=True), cwd=tmp)
        expect(status == 0 and err == '', 'got %d %s%s' % (status, out, err))
        expect('SURVIVED' not in out and 'total: 30 of 30 mutants killed (100.0%) by 20 tests'
               in out, 'every mutant killed:\n' + out)
        _, after = mutate_json('examples', cwd=tmp)
    with open(MORE_TESTS, encoding='utf-8') as f:
        added = f.read()
    survivors = [key for key, (status, _) in by_change(before).items() if status == 'survived']
    expect(len(survivors) == before['summary']['survived'] == 11,
           'the example lets 11 mutants survive: %s' % survivors)
    killed = by_change(after)
    for key in survivors:
        status, test_name = killed[key]
        expect(status == 'killed' and 'test "%s"' % test_name in added,
               '%s: %s by %r, not by an added test' % (key, status, test_name))
    expect(after['summary']['score'] == 100.0 and before['summary']['score'] == 63.3,
           'the scores: %s then %s' % (before['summary']['score'], after['summary']['score']))


@test
def a_mutant_that_breaks_a_test_is_killed_by_it():
    with tempfile.TemporaryDirectory() as tmp:
        status, doc = mutate_json('.', cwd=project(tmp))
        got = by_change(doc)
        want = {
            # the third attempt succeeds: the test never uses up the attempts
            ('step call', 'attempts 3 → 4'): ('survived', None),
            ('step call', 'attempts 3 → 2'): ('killed', 'retries twice'),
            # the test sees attempt 2 at 105 ms, which an exponential backoff keeps
            ('step call', 'backoff fixed → exponential'): ('survived', None),
            ('step call', 'initial_delay 100ms → 200ms'): ('killed', 'retries twice'),
            ('step call', 'initial_delay 100ms → 50ms'): ('killed', 'retries twice'),
        }
        expect(got == want, 'the mutants:\n%s\n--- expected:\n%s' % (got, want))
        expect(status == 1, 'status %d (1: a mutant survived)' % status)
        survivor = [m for m in doc['mutants'] if m['status'] == 'survived'][1]
        expect((survivor['file'], survivor['line'], survivor['column']) == ('./one.orbit', 8, 26)
               and survivor['hint'] == 'reach attempt 3 of step call (fail the 2 before it with '
               'a retryable code) and expect `events: ["RetryScheduled step=call delay_ms=100", '
               '"RetryScheduled step=call delay_ms=100"]`: the mutant waits 200 ms before '
               'attempt 3', 'placed and hinted: %s' % survivor)


WHEN_PROGRAM = '''worker "w.pay" {
  output { id: string }
}
worker "w.undo" {
  input { id: string }
}
worker "w.ship" {}

workflow order {
  input { a: bool, b: bool }
  step pay {
    worker "w.pay"
    compensate {
      worker "w.undo"
      with { id: pay.id }
    }
  }
  step ship {
    worker "w.ship"
    when input.a && input.b
  }
}
'''

WHEN_TESTS = '''test "both ship" {
  input { a: true, b: true }
  expect { step ship { status: completed } }
}

test "one does not ship" {
  input { a: false, b: true }
  expect { step ship { status: skipped } }
}

test "a failed shipment is paid back" {
  input { a: true, b: true }
  task "w.ship" { attempts: [{ fail: { code: "LOST", retryable: false } }] }
  expect {
    status: failed
    step pay { compensated: true }
  }
}
'''


@test
def a_negated_when_and_a_removed_compensation_are_killed():
    with tempfile.TemporaryDirectory() as tmp:
        status, doc = mutate_json('.', cwd=project(tmp, WHEN_TESTS, WHEN_PROGRAM))
        got = by_change(doc)
        want = {
            ('step pay', 'compensate removed'): ('killed', 'a failed shipment is paid back'),
            ('step ship', 'when negated'): ('killed', 'both ship'),
        }
        expect(status == 0 and got == want, 'got %d %s' % (status, got))
    # With only the test where the condition is false, the negated block must give true
    # where `a && b` jumps to its end with `a` false: the jump must land on the `not`
    # before the `return` (skipped there becomes completed, and the test fails).
    only_false = WHEN_TESTS.split('test "a failed')[0].split('test "one')[1]
    with tempfile.TemporaryDirectory() as tmp:
        _, doc = mutate_json('.', cwd=project(tmp, 'test "one' + only_false, WHEN_PROGRAM))
        expect(by_change(doc)[('step ship', 'when negated')] == ('killed', 'one does not ship'),
               'the negated `&&`: %s' % by_change(doc))


EQUIVALENT_PROGRAM = '''worker "w.call" {}

workflow one {
  timeout 1h
  step call {
    worker "w.call"
    retry { attempts: 2, backoff: exponential, initial_delay: 1s, max_delay: 10s }
    timeout 1m
  }
  step hook {
    using orbit.http.request
    with { url: "https://example.invalid/" }
    retry { attempts: 1, initial_delay: 2s }
    timeout 30s
  }
}
'''

EQUIVALENT_TESTS = '''test "runs" {
  expect { status: completed }
}
'''


@test
def equivalent_mutants_are_not_run():
    with tempfile.TemporaryDirectory() as tmp:
        _, doc = mutate_json('.', cwd=project(tmp, EQUIVALENT_TESTS, EQUIVALENT_PROGRAM))
        reasons = {(m['member'], m['change']): m['reason'] for m in doc['mutants']
                   if m['status'] == 'equivalent'}
        want = {
            # two attempts wait initial_delay whatever the backoff, and never reach max_delay
            ('step call', 'backoff exponential → fixed'): 'the same delays before each attempt (1s)',
            ('step call', 'max_delay 10s → 20s'): 'the same delays before each attempt (1s)',
            ('step call', 'max_delay 10s → 5s'): 'the same delays before each attempt (1s)',
            # the steps take at most 2 × 1m + 1s + 30s: a 1h limit, or 2h, or none never fires
            ('workflow one', 'timeout 1h → 2h'): 'its steps take at most 2m31s: the timeout never fires',
            ('workflow one', 'timeout 1h → 30m'): 'its steps take at most 2m31s: the timeout never fires',
            ('workflow one', 'timeout 1h removed'): 'its steps take at most 2m31s: the timeout never fires',
            # one attempt waits no delay
            ('step hook', 'initial_delay 2s → 4s'): 'the same delays before each attempt (one attempt: none)',
            ('step hook', 'initial_delay 2s → 1s'): 'the same delays before each attempt (one attempt: none)',
            # orbit.http.request's own default
            ('step hook', 'timeout 30s removed'):
                "`timeout 30s` is the built-in task's default: the same bytecode",
        }
        expect(reasons == want, 'the equivalent mutants:\n%s\n--- expected:\n%s' % (reasons, want))
        expect(doc['summary']['equivalent'] == len(want)
               and doc['summary']['mutants'] == len(doc['mutants']) - len(want),
               'the equivalent mutants are not counted: %s' % doc['summary'])


def snapshot(root):
    """Every file and directory under `root`, with its bytes and modification time."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            data = None
            if os.path.isfile(path):
                with open(path, 'rb') as f:
                    data = f.read()
            seen[os.path.relpath(path, root)] = (st.st_mtime_ns, data)
    return seen


@test
def no_file_is_written():
    with tempfile.TemporaryDirectory() as tmp:
        path = examples(tmp)
        before = snapshot(tmp)
        status, _, _ = run('test', '--mutate', path, cwd=tmp)
        expect(status == 1, 'status %d' % status)
        after = snapshot(tmp)
        expect(before == after, 'files changed: %s' % sorted(set(after) ^ set(before)
               or [k for k in after if after[k] != before[k]]))


@test
def jobs_do_not_change_the_report():
    with tempfile.TemporaryDirectory() as tmp:
        path = examples(tmp)
        human = {jobs: run('test', '--mutate', '--jobs', str(jobs), path, cwd=tmp)
                 for jobs in (1, 4)}
        expect(human[1] == human[4], '--jobs 1 and 4 differ:\n%s\n%s' % (human[1][1], human[4][1]))
        docs = [mutate_json('-j', str(jobs), path, cwd=tmp)[1] for jobs in (1, 4)]
        for doc in docs:
            doc['summary']['seconds'] = 0
        expect(docs[0] == docs[1], 'the JSON of --jobs 1 and 4 differ')


@test
def exit_status():
    with tempfile.TemporaryDirectory() as tmp:
        path = examples(tmp)
        status, _, err = run('test', '--mutate', '--fail-under', '60', path, cwd=tmp)
        expect(status == 0 and err == '', '63.3 %% is over 60: %d %s' % (status, err))
        status, _, err = run('test', '--mutate', '--fail-under', '70', path, cwd=tmp)
        expect(status == 1 and 'the tests kill 63.3 % of the mutants (19 of 30), under '
               '--fail-under 70' in err, 'under 70: %d %s' % (status, err))
        for args in (['--fail-under', '50'], ['--mutate', '--coverage'],
                     ['--mutate', '--format', 'junit'], ['--mutate', '--fail-under', '101']):
            status, out, err = run('test', *args, path, cwd=tmp)
            expect(status == 2 and out == '' and err, '%s: %d %s' % (args, status, err))
    with tempfile.TemporaryDirectory() as tmp:
        failing = TESTS.replace('attempts: 3 }', 'attempts: 2 }')
        status, out, err = run('test', '--mutate', '.', cwd=project(tmp, failing))
        expect(status == 1 and out.startswith('FAIL ') and 'SURVIVED' not in out
               and '--mutate needs every test to pass first: 1 failed' in err,
               'a failing test first: %d %s%s' % (status, out, err))


MUTATIONS = {'attempts_up', 'attempts_down', 'backoff', 'initial_delay_double',
             'initial_delay_halve', 'max_delay_double', 'max_delay_halve', 'non_retryable_drop',
             'timeout_double', 'timeout_halve', 'timeout_remove', 'queue_timeout_double',
             'queue_timeout_halve', 'queue_timeout_remove', 'compensate_remove', 'when_negate'}


@test
def every_kind_of_mutant_is_killed_by_a_recorded_history():
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, os.path.join(cli_harness.ROOT, 'tools', 'scenario_to_test.py'),
                        out, '--orbitc', cli_harness.ORBITC], capture_output=True, check=True)
        status, doc = mutate_json('.', cwd=out)
    expect(status == 1 and doc['summary']['tests'] >= 40, 'got %d %s' % (status, doc['summary']))
    kinds = {m['mutation'] for m in doc['mutants'] if m['status'] == 'killed'}
    expect(kinds == MUTATIONS, 'never killed: %s' % sorted(MUTATIONS - kinds))


if __name__ == '__main__':
    cli_harness.main()
