#!/usr/bin/env python3
"""`orbitc test` (docs/testing.md, "`orbitc test`") as a user meets it: a passing run, a
failing one with its report exact (the expectations, expected against actual, the history
around the divergence and the scripted outcomes), tests that could not run, --filter,
--jobs (the same report for 1 and 4 threads), the exit status, the human and JSON
reports (docs/test-report.schema.json), the CI formats as their consumers read them, and
coverage. Each case works in a temporary directory.

    test_orbitc_test.py --orbitc PATH
"""
import json
import os
import shutil
import tempfile

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support import retrying
from support.cli import expect, run, test, write
from support.retrying import PROGRAM

EXAMPLES = os.path.join(cli_harness.ROOT, 'examples')
SCHEMA = os.path.join(cli_harness.ROOT, 'docs', 'test-report.schema.json')
sys.path.insert(0, os.path.join(cli_harness.ROOT, 'tools'))
import validate_json  # noqa: E402

# The shared project's test, and one that expects too little of the same run.
TESTS = retrying.TESTS + '''
test "expects too little" {
  task "w.call" { attempts: [{ fail: { code: "BUSY" }, after: 5ms }] }
  expect {
    step call { attempts: 1 }
    events: ["+ 5ms RetryScheduled step=call", "+ 106ms StepScheduled step=call attempt=2"]
  }
}
'''

# The report of TESTS, exactly: the second test expects one attempt where there were two,
# and an attempt at 106 ms where it came at 105 ms.
FAILING_REPORT = '''PASS  one.test.orbit:1:1: retries twice (one: completed at 205ms)
FAIL  one.test.orbit:12:1: expects too little (one: completed at 115ms)
  one.test.orbit:15:17: step call: attempts
    expected: 1
    actual:   2
  one.test.orbit:16:48: events[1]
    expected: "+ 106ms StepScheduled step=call attempt=2"
    actual:   "+ 105ms #6 StepScheduled step=call attempt=2"
  history around the divergence (event 6 of 9):
    …
    + 0ms #3 StepDispatched step=call attempt=1 worker_id=worker-1
    + 5ms #4 StepAttemptFailed step=call attempt=1 error=BUSY
    + 5ms #5 RetryScheduled step=call delay_ms=100
  > + 105ms #6 StepScheduled step=call attempt=2
    + 105ms #7 StepDispatched step=call attempt=2 worker_id=worker-1
    + 115ms #8 StepCompleted step=call attempt=2
    …
  scripted outcomes that led there:
    attempt 1 of call: scripted fail BUSY (task "w.call", attempts[0])
    attempt 2 of call: the default outcome (task "w.call": its attempts are used up)

2 tests: 1 passed, 1 failed
'''


def project(tmp, tests=TESTS, program=PROGRAM):
    return retrying.project(tmp, tests, program)


def valid(report):
    """The JSON report, checked against docs/test-report.schema.json (keys in order)."""
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


def without_times(report):
    """The JSON report without the real times, the one thing that differs between runs."""
    doc = valid(report)
    for result in doc['tests']:
        result['seconds'] = 0
    doc['summary']['seconds'] = 0
    return doc


@test
def examples_pass():
    status, out, err = run('test', EXAMPLES)
    expect(status == 0 and err == '', 'got %d %s%s' % (status, out, err))
    lines = out.splitlines()
    expect(all(line.startswith('PASS ') for line in lines[:-2]) and len(lines) > 3,
           'a line per test, each PASS:\n' + out)
    expect(lines[-1].endswith('passed, 0 failed'), 'the counts: ' + lines[-1])


@test
def a_failure_is_reported_with_its_divergence():
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = run('test', '.', cwd=project(tmp))
        expect(status == 1, 'status %d (1: a test failed)' % status)
        expect(err == '', 'nothing on standard error: ' + err)
        expect(out.replace('./', '') == FAILING_REPORT,
               'the report differs:\n%s\n--- expected:\n%s' % (out, FAILING_REPORT))


@test
def no_path_is_the_current_directory():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp)
        expect(run('test', cwd=tmp)[1] == run('test', '.', cwd=tmp)[1], 'no PATH is `.`')


@test
def filter_keeps_the_tests_whose_name_holds_it():
    with tempfile.TemporaryDirectory() as tmp:
        status, out, _ = run('test', '--filter', 'twice', cwd=project(tmp))
        expect(status == 0 and 'retries twice' in out and 'too little' not in out
               and out.endswith('1 test: 1 passed, 0 failed\n'), 'got %d %s' % (status, out))
        status, out, _ = run('test', '--filter', 'nothing like it', cwd=tmp)
        expect(status == 0 and out == 'no tests ran\n', 'got %d %r' % (status, out))


@test
def jobs_do_not_change_the_report():
    for args in ([EXAMPLES], ['--filter', 'a', EXAMPLES]):
        human = {jobs: run('test', '--jobs', str(jobs), *args) for jobs in (1, 4)}
        expect(human[1] == human[4], '--jobs 1 and 4 differ:\n%s\n%s' % (human[1][1], human[4][1]))
        docs = [without_times(run('test', '--format', 'json', '-j', str(jobs), *args)[1])
                for jobs in (1, 4)]
        expect(docs[0] == docs[1], 'the JSON of --jobs 1 and 4 differ')
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp)
        outs = {jobs: run('test', '-j', str(jobs), cwd=tmp) for jobs in (1, 2, 3)}
        expect(outs[1] == outs[2] == outs[3], 'the failing report depends on --jobs')


@test
def json_report():
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = run('test', '--format', 'json', '.', cwd=project(tmp))
        expect(status == 1 and err == '', 'got %d %s' % (status, err))
        doc = valid(out)
        expect(list(doc) == ['version', 'tests', 'summary'] and doc['version'] == 1,
               'the document: %s' % list(doc))
        passed, failed = doc['tests']
        expect(list(passed) == ['name', 'program', 'file', 'line', 'column', 'workflow',
                                'status', 'message', 'outcome', 'virtual_ms', 'seconds',
                                'failures', 'divergence', 'history'],
               'the fields of a result: %s' % list(passed))
        expect((passed['name'], passed['status'], passed['failures'], passed['divergence'],
                passed['outcome'], passed['virtual_ms'], passed['workflow'])
               == ('retries twice', 'passed', [], None, 'completed', 205, 'one'),
               'the passing test: %s' % passed)
        expect(passed['history'][0] == '+ 0ms #1 WorkflowStarted workflow=one'
               and len(passed['history']) == 13, 'its history: %s' % passed['history'])
        expect(failed['status'] == 'failed' and failed['failures'][0] == {
            'expectation': 'step call: attempts', 'expected': '1', 'actual': '2',
            'line': 15, 'column': 17}, 'the failure: %s' % failed['failures'])
        expect(failed['divergence'] in FAILING_REPORT.replace('\n  ', '\n'),
               'the divergence: %r' % failed['divergence'])
        expect(doc['summary']['total'] == 2 and doc['summary']['passed'] == 1
               and doc['summary']['failed'] == 1 and doc['summary']['errors'] == 0
               and isinstance(doc['summary']['seconds'], float), 'summary %s' % doc['summary'])


@test
def a_program_with_errors_runs_no_test():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp, program=PROGRAM.replace('call.id', 'cal.id'))
        status, out, err = run('test', '--format', 'json', '.', cwd=tmp)
        expect(status == 2 and out == '' and 'error[' in err and 'cal' in err,
               'got %d %r %s' % (status, out, err))


@test
def a_test_the_checker_refuses_runs_nothing():
    """A misnamed task, a computed value, no workflow to run: errors of `orbitc check`
    (E0804 with its did-you-mean, E0803, E0805), printed before anything runs, status 2."""
    cases = [
        ('test "misnamed" {\n  task "w.cal" { attempts: [] }\n}\n', PROGRAM,
         ['error[E0804]: unknown task `w.cal`', 'did you mean `"w.call"`?']),
        ('test "computed" {\n  task "w.call" { pickup: 1 + 2 }\n}\n', PROGRAM,
         ['error[E0803]', 'one.test.orbit:2:27']),
        ('test "which" {\n  expect { status: completed }\n}\n',
         PROGRAM + '\nworkflow two {\n  step s { sleep 1s }\n}\n', ['error[E0805]']),
    ]
    for tests, program, wanted in cases:
        with tempfile.TemporaryDirectory() as tmp:
            project(tmp, tests=tests, program=program)
            status, out, err = run('test', '.', cwd=tmp)
            expect(status == 2 and out == '' and all(w in err for w in wanted),
                   'got %d %s%s, wanted %r' % (status, out, err, wanted))


@test
def the_default_status_is_completed():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp, tests='test "fails" {\n  task "w.call" {\n    attempts: [{ fail: { code: '
                           '"NO", retryable: false } }]\n  }\n}\n')
        status, out, _ = run('test', '.', cwd=tmp)
        expect(status == 1 and '  ./one.test.orbit:1:1: status\n    expected: completed\n'
               '    actual:   failed\n' in out, 'got %d %s' % (status, out))


@test
def a_test_without_max_events_stops_at_ten_thousand_events():
    # A task lost two billion times would be redelivered for hours; the test stops at
    # 10,000 history events unless it says `max_events`.
    lost = 'test "lost" {\n  task "w.call" { attempts: [{ lost_after: 0ms, times: 2000000000 }] }\n%s}\n'
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp, tests=lost % '')
        status, out, _ = run('test', '--format', 'json', '.', cwd=tmp, timeout=60)
        result = valid(out)['tests'][0]
        expect(status == 1 and result['outcome'] == 'stopped'
               and len(result['history']) == 10000, 'got %d %s' % (status, out[:2000]))
        project(tmp, tests=lost % '  max_events: 12345\n')
        status, out, _ = run('test', '--format', 'json', '.', cwd=tmp, timeout=60)
        result = valid(out)['tests'][0]
        expect(status == 1 and len(result['history']) == 12345, 'got %d' % status)


@test
def an_attempt_failed_before_any_worker_takes_no_outcome():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp, program='workflow hook {\n  step call {\n    using orbit.http.request\n'
                             '    with { url: "::bad::" }\n  }\n}\n',
                tests='test "bad url" {\n  task "orbit.http.request" { attempts: [{ status: 200 }] }\n}\n')
        status, out, _ = run('test', '.', cwd=tmp)
        expect(status == 1 and out.endswith(
            '  scripted outcomes that led there:\n    attempt 1 of call: no outcome (the runtime '
            'failed it before any worker: HTTP_ERROR)\n\n1 test: 0 passed, 1 failed\n'), out)


@test
def bad_usage():
    status, _, err = run('test', '--format', 'sarif', EXAMPLES)
    expect(status == 2 and 'invalid value `sarif` for --format' in err, err)
    status, _, err = run('check', '--filter', 'x', EXAMPLES)
    expect(status == 2 and 'takes no option `--filter`' in err, err)
    status, _, err = run('test', '--jobs', '0', EXAMPLES)
    expect(status == 2 and 'invalid number' in err, err)


@test
def ci_formats_of_a_failing_run_as_their_consumers_read_them():
    """JUnit through xmllint against junit-10.xsd, TAP through prove, GitHub annotations
    one per failed expectation, each with the exit status of the run (1)."""
    sys.path.insert(0, os.path.join(cli_harness.ROOT, 'tests', 'unit'))
    import test_report_ci_tools as consumers
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp)
        status, junit, err = run('test', '--format', 'junit', '.', cwd=tmp)
        expect(status == 1 and err == '', 'junit: %d %s' % (status, err))
        stripped, places = consumers.without_file_and_line(junit)
        expect(places == [('./one.test.orbit', '1'), ('./one.test.orbit', '12')], repr(places))
        lint = consumers.xmllint(stripped)
        expect(lint.returncode == 0, 'xmllint:\n' + lint.stderr)
        status, tap, _ = run('test', '--format', 'tap', '.', cwd=tmp)
        result = consumers.prove(tap)
        expect(status == 1 and result.returncode != 0 and 'Failed test:  2' in result.stdout,
               'prove: %d\n%s%s' % (status, result.stdout, result.stderr))
        status, github, _ = run('test', '--format', 'github', '.', cwd=tmp)
        lines = github.splitlines()
        expect(status == 1 and len(lines) == 2 and all(l.startswith('::error file=./one.test.orbit,line=')
                                                    for l in lines), github)


@test
def color_only_when_asked():
    status, out, _ = run('test', '--color', 'always', '--filter', 'declined', EXAMPLES)
    expect(status == 0 and '\x1b[1;32mPASS \x1b[0m' in out, repr(out))
    expect('\x1b[' not in run('test', '--filter', 'declined', EXAMPLES)[1], 'colour in a pipe')


@test
def a_missing_path_could_not_run():
    with tempfile.TemporaryDirectory() as tmp:
        status, _, err = run('test', os.path.join(tmp, 'nowhere'))
        expect(status == 2 and 'nowhere' in err, 'got %d %s' % (status, err))


# The coverage of TESTS' first test alone: the step reached, attempts 2 and 3 of its
# policy, never giving up.
COVERAGE_OF_FIRST = '''workflow one (one.orbit:5), 1 run
    line  item                      hits  covered
       6  step call                    1  yes
       6  step call: attempt 2         1  yes
       6  step call: attempt 3         1  yes
       6  step call: gave up           0  no
  one: 3 of 4 items covered (75.0%)

total: 3 of 4 items covered (75.0%)
'''


@test
def coverage_after_the_report():
    with tempfile.TemporaryDirectory() as tmp:
        status, out, err = run('test', '--coverage', '--filter', 'twice', '.', cwd=project(tmp))
        expect(status == 0 and err == '', 'got %d %s' % (status, err))
        report, _, coverage = out.partition('\n\n1 test: 1 passed, 0 failed\n\n')
        expect(coverage.replace('./', '') == COVERAGE_OF_FIRST,
               'the coverage differs:\n%s\n--- expected:\n%s' % (out, COVERAGE_OF_FIRST))


@test
def coverage_threshold_fails_the_run_under_it():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp)
        status, _, err = run('test', '--coverage-threshold', '75', '--filter', 'twice', '.', cwd=tmp)
        expect(status == 0 and err == '', 'at the threshold: %d %s' % (status, err))
        status, _, err = run('test', '--coverage-threshold', '75.1', '--filter', 'twice', '.', cwd=tmp)
        expect(status == 1, 'under the threshold: status %d' % status)
        expect('the tests cover 75.0 % of the items (3 of 4), under --coverage-threshold 75.1' in err,
               err)
        for bad in ('101', '-1', 'x', '', '1e2'):
            status, _, err = run('test', '--coverage-threshold', bad, '.', cwd=tmp)
            expect(status == 2 and 'invalid percentage' in err, '%r: %d %s' % (bad, status, err))


@test
def coverage_to_a_file_in_each_format():
    with tempfile.TemporaryDirectory() as tmp:
        project(tmp)
        for fmt, starts in (('text', 'workflow one'), ('json', '{'), ('lcov', 'TN:')):
            path = os.path.join(tmp, 'cov.' + fmt)
            status, out, err = run('test', '--format', 'json', '--coverage-format', fmt,
                                   '--coverage-output', path, '--filter', 'twice', '.', cwd=tmp)
            expect(status == 0 and err == '', '%s: %d %s' % (fmt, status, err))
            valid(out)   # standard output is the report alone
            with open(path, encoding='utf-8') as f:
                text = f.read()
            expect(text.startswith(starts), '%s: %s' % (fmt, text[:200]))
        doc = json.loads(open(os.path.join(tmp, 'cov.json'), encoding='utf-8').read())
        expect((doc['covered'], doc['total']) == (3, 4), 'the JSON counts: %r' % doc)
        status, out, err = run('test', '--format', 'json', '--coverage', '.', cwd=tmp)
        expect(status == 2 and out == '' and 'needs `--coverage-output FILE`' in err,
               'coverage beside a JSON report: %d %s' % (status, err))


@test
def coverage_of_two_programs_is_one_report():
    with tempfile.TemporaryDirectory() as tmp:
        for name in ('a', 'b'):
            os.makedirs(os.path.join(tmp, name))
            write(os.path.join(tmp, name, 'orbit.program'), '')
            project(os.path.join(tmp, name))
        status, out, err = run('test', '--coverage-format', 'json', '--coverage-output', 'c.json',
                               '--filter', 'twice', 'a', 'b', cwd=tmp)
        expect(status == 0 and err == '', 'got %d %s' % (status, err))
        doc = json.loads(open(os.path.join(tmp, 'c.json'), encoding='utf-8').read())
        files = [w['file'] for w in doc['workflows']]
        expect(files == ['a/one.orbit', 'b/one.orbit'] and (doc['covered'], doc['total']) == (6, 8),
               'both programs\' workflows, counted together: %r' % doc)


@test
def the_examples_cover_every_item():
    status, out, err = run('test', '--coverage-threshold', '100', EXAMPLES)
    expect(status == 0 and err == '', 'got %d %s%s' % (status, out, err))
    expect(out.endswith('total: 28 of 28 items covered (100.0%)\n'), out[-300:])


@test
def the_readme_shows_the_coverage_of_the_examples_as_it_is():
    with open(os.path.join(cli_harness.ROOT, 'README.md'), encoding='utf-8') as f:
        readme = f.read()
    start = readme.index('$ orbitc test --coverage examples/\n') + len('$ orbitc test --coverage examples/\n')
    shown = readme[start:readme.index('```', start)]
    status, out, err = run('test', '--coverage', 'examples/', cwd=cli_harness.ROOT)
    expect(status == 0 and out == shown,
           'README.md shows another output than `orbitc test --coverage examples/`:\n' + out)


# Changes to examples/checkout.orbit that its tests must catch, and the step a failure
# then names (an expectation of the step, or an expected event of it).
MUTATIONS = [
    ('attempts: 5', 'attempts: 4', 'charge'),
    ('backoff: exponential\n      initial_delay: 500ms', 'backoff: fixed\n      initial_delay: 500ms',
     'charge'),
    ("""    compensate {
      worker "payments.refund"
      with { charge_id: charge.charge_id }
      retry { attempts: 10, backoff: exponential }
    }
""", '', 'charge'),
]


@test
def the_examples_catch_a_changed_policy():
    for old, new, step in MUTATIONS:
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(EXAMPLES, os.path.join(tmp, 'examples'))
            path = os.path.join(tmp, 'examples', 'checkout.orbit')
            with open(path, encoding='utf-8') as f:
                text = f.read()
            expect(text.count(old) == 1, 'examples/checkout.orbit has %r once' % old)
            write(path, text.replace(old, new))
            status, out, err = run('test', 'examples', cwd=tmp)
            expect(status == 1, '%r -> %r: status %d (1: a test failed) %s' % (old, new, status, err))
            failures = [line for line in out.splitlines() if line.startswith('    expected: ')
                        or (line.startswith('  ') and ': step ' in line)]
            expect(any(': step %s: ' % step in line or 'step=%s ' % step in line for line in failures),
                   '%r -> %r: no failure names step %s:\n%s' % (old, new, step, out))


if __name__ == '__main__':
    cli_harness.main()
