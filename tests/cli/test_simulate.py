#!/usr/bin/env python3
"""`orbit-run simulate` tested against the truth (docs/runtime.md, "Simulation").

- Analytic cases: each model has an expectation computed by hand (the derivation is in
  the comment above the test); the simulated probability must lie within 4 binomial
  standard errors of it, sqrt(p(1-p)/N), and a mean within 4 standard errors of the mean,
  sd/sqrt(N) with sd computed exactly from the same distribution. Runs are seeded, so a
  test that passes once passes always; the tolerances say the seed was not chosen.
- Agreement with orbit-run: every conformance runtime scenario whose world a model can
  express (no randomness: rates 0 or 1, fixed times) is turned into a model, and one
  simulated run must end exactly as orbit-run's history does: same status, same final
  error, same duration.
- Reproducibility (any --jobs, the same bytes), the model's errors (each with its JSON
  path, exit 2, never a crash), and the SVG (well-formed, rendered to a non-blank PNG by
  rsvg-convert when it is installed).

  test_simulate.py --orbitc build/cli/orbitc --orbit-run build/runtime/orbit-run [-k NAME]
"""
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import unicodedata
import xml.dom.minidom

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONFORMANCE = os.path.join(ROOT, 'tests', 'conformance', 'runtime')
ORBITC = ORBIT_RUN = TMP = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import main as run_cases, test  # noqa: E402,F401
from support import sanitizers  # noqa: E402
RUNS = 20000



def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def run(argv, timeout=120, text=True):
    try:
        p = sanitizers.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError('%s: no answer within %d s (hangs)' % (argv, timeout))
    out = p.stdout.decode('utf-8', 'replace') if text else p.stdout
    return p.returncode, out, p.stderr.decode('utf-8', 'replace')


_built = {}


def build(source):
    """Compiles an Orbit program (text) once; returns the .orbc path."""
    if source not in _built:
        n = len(_built)
        src = os.path.join(TMP, 'p%d.orbit' % n)
        with open(src, 'w') as f:
            f.write(source)
        out = os.path.join(TMP, 'p%d.orbc' % n)
        status, _, err = run([ORBITC, 'build', src, '-o', out])
        expect(status == 0, 'orbitc build failed: %s' % err)
        _built[source] = out
    return _built[source]


def write_model(model):
    path = os.path.join(TMP, 'model.json')
    with open(path, 'w') as f:
        f.write(model if isinstance(model, str) else json.dumps(model))
    return path


def simulate(orbc, model, *args, status=0):
    path = write_model(model)
    code, out, err = run([ORBIT_RUN, 'simulate', orbc, '--model', path] + list(args))
    expect(code == status, 'exit %d (expected %d): %s' % (code, status, err.strip()))
    return out, err


def report(orbc, model, runs=RUNS, seed=7, *args):
    out, _ = simulate(orbc, model, '--runs', str(runs), '--seed', str(seed), '--format', 'json',
                      *args)
    return json.loads(out)


def near(got, want, runs, what):
    """A simulated probability within 4 binomial standard errors of the expected one."""
    se = math.sqrt(want * (1 - want) / runs)
    expect(abs(got - want) <= 4 * se + 1e-12,
           '%s: %.6f, expected %.6f ± %.6f (4σ)' % (what, got, want, 4 * se))


def near_mean(got, dist, runs, what):
    """A simulated mean within 4 standard errors of the mean of `dist`, [(p, x)]."""
    mean = sum(p * x for p, x in dist)
    sd = math.sqrt(sum(p * (x - mean) ** 2 for p, x in dist))
    expect(abs(got - mean) <= 4 * sd / math.sqrt(runs) + 1e-9,
           '%s: %.4f, expected %.4f ± %.4f (4σ)' % (what, got, mean, 4 * sd / math.sqrt(runs)))


def one_step(retry, limits=''):
    return '''worker "w.call" { input { n: int } output { ok: bool } }
workflow one {
  input { n: int }
  %s
  step call {
    worker "w.call"
    with { n: input.n }
    retry { %s }
  }
}
''' % (limits, retry)


def worker_model(**worker):
    return {'input': {'n': 1}, 'workers': {'w.call': worker}}


# ---- analytic cases ----

# One step, latency 100 ms, a retryable failure with rate 0.5, attempts: 5, fixed 1s.
# The run stops at the first success, or after attempt 5: attempt k is the last with
# probability 0.5^k for k < 5, and 0.5^4 for k = 5 (success or failure). It then took
# 100k ms of work and (k-1) delays of 1000 ms. failed = 0.5^5 = 0.03125; the mean is
# 0.5·100 + 0.25·1200 + 0.125·2300 + 0.0625·3400 + 0.0625·4500 = 1131.25 ms; the mean
# number of attempts is 1 + 0.5 + 0.25 + 0.125 + 0.0625 = 1.9375, the mean backoff
# 1000·(0.5 + 0.25 + 0.125 + 0.0625) = 937.5 ms.
@test
def fixed_delays():
    orbc = build(one_step('attempts: 5, backoff: fixed, initial_delay: 1s'))
    r = report(orbc, worker_model(latency_ms=100, failures=[
        {'rate': 0.5, 'code': 'BUSY', 'retryable': True}]))
    expect(set(r) == {'workflow', 'runs', 'seed', 'outcomes', 'errors', 'duration_ms', 'steps'}
           and set(r['outcomes']) == {'completed', 'failed', 'timed_out', 'blocked'}
           and set(r['duration_ms']) == {'mean', 'p50', 'p90', 'p99', 'max'}
           and set(r['steps']['call']) == {'attempts_mean', 'gave_up', 'timed_out',
                                           'backoff_ms_mean'}
           and r['runs'] == RUNS and r['seed'] == 7, 'the JSON contract: %s' % r)
    near(r['outcomes']['failed'], 0.5 ** 5, RUNS, 'failed')
    near(r['errors'].get('BUSY', 0), 0.5 ** 5, RUNS, 'errors.BUSY')
    last = [(0.5 ** k, k) for k in range(1, 5)] + [(0.5 ** 4, 5)]
    near_mean(r['duration_ms']['mean'], [(p, 1100 * k - 1000) for p, k in last], RUNS,
              'mean duration')
    expect(abs(sum(1100 * k * p - 1000 * p for p, k in last) - 1131.25) < 1e-9, 'arithmetic')
    near_mean(r['steps']['call']['attempts_mean'], last, RUNS, 'attempts_mean')
    near_mean(r['steps']['call']['backoff_ms_mean'], [(p, 1000 * (k - 1)) for p, k in last],
              RUNS, 'backoff_ms_mean')
    near(r['steps']['call']['gave_up'], 0.5 ** 5, RUNS, 'gave_up')
    expect(r['duration_ms']['max'] == 4500, 'max %s, expected 4500' % r['duration_ms']['max'])


# The same with exponential backoff from 1s with max_delay 3s: the delay before attempt
# n is min(1000·2^(n-2), 3000): 1000, 2000, 3000, 3000, so attempt k ends at
# 100k + (0, 1000, 3000, 6000, 9000)[k-1] ms; failed is still 0.5^5.
@test
def exponential_backoff_with_max_delay():
    orbc = build(one_step('attempts: 5, backoff: exponential, initial_delay: 1s, max_delay: 3s'))
    r = report(orbc, worker_model(latency_ms=100, failures=[{'rate': 0.5, 'code': 'BUSY'}]))
    waits = [0, 1000, 3000, 6000, 9000]
    last = [(0.5 ** k, k) for k in range(1, 5)] + [(0.5 ** 4, 5)]
    near(r['outcomes']['failed'], 0.5 ** 5, RUNS, 'failed')
    near_mean(r['duration_ms']['mean'], [(p, 100 * k + waits[k - 1]) for p, k in last], RUNS,
              'mean duration')
    expect(r['duration_ms']['max'] == 9500, 'max %s, expected 9500' % r['duration_ms']['max'])


# A failure whose code is in non_retryable ends the step at once. Per attempt: DECLINED
# (non-retryable) 0.3, BUSY (retryable) 0.2, success 0.5; attempts: 3. The step fails
# with DECLINED when some attempt k declines after k-1 BUSY: 0.3·(1 + 0.2 + 0.04) = 0.372,
# and with BUSY when all three are BUSY: 0.2^3 = 0.008; failed = 0.38.
@test
def non_retryable_failure():
    orbc = build(one_step('attempts: 3, initial_delay: 1s, non_retryable: ["DECLINED"]'))
    r = report(orbc, worker_model(latency_ms=10, failures=[
        {'rate': 0.3, 'code': 'DECLINED', 'retryable': True},
        {'rate': 0.2, 'code': 'BUSY'}]))
    near(r['outcomes']['failed'], 0.38, RUNS, 'failed')
    near(r['errors'].get('DECLINED', 0), 0.372, RUNS, 'errors.DECLINED')
    near(r['errors'].get('BUSY', 0), 0.008, RUNS, 'errors.BUSY')


# A queue timeout that always fires: the worker takes 5 s to pick the task up, the queue
# timeout is 1 s, and QUEUE_TIMEOUT is never retried. Every run fails after exactly
# 1000 ms with one attempt, and the step's limit passed in every run.
@test
def queue_timeout_always_fires():
    orbc = build(one_step('attempts: 3, initial_delay: 1s', '').replace(
        'retry {', 'queue_timeout 1s\n    retry {'))
    r = report(orbc, worker_model(latency_ms=10, pickup_ms=5000), runs=500)
    expect(r['outcomes']['failed'] == 1.0, 'failed %s' % r['outcomes'])
    expect(r['errors'] == {'QUEUE_TIMEOUT': 1.0}, 'errors %s' % r['errors'])
    expect(r['duration_ms'] == {'mean': 1000.0, 'p50': 1000, 'p90': 1000, 'p99': 1000,
                                'max': 1000}, 'durations %s' % r['duration_ms'])
    step = r['steps']['call']
    expect(step['attempts_mean'] == 1.0 and step['timed_out'] == 1.0 and step['gave_up'] == 1.0,
           'step %s' % step)


# A workflow timeout that cuts the schedule: timeout 2500ms, latency 100 ms, rate 0.5,
# attempts: 5, fixed 1s. Attempts start at 0, 1100, 2200 (ending at 100, 1200, 2300);
# after a third failure the next attempt would start at 3300, past the deadline, which
# fires at 2500 while the retry waits. timed_out = 0.5^3 = 0.125, each after 2500 ms;
# nothing fails. Mean: 0.5·100 + 0.25·1200 + 0.125·2300 + 0.125·2500 = 950 ms.
@test
def workflow_timeout_cuts_the_schedule():
    orbc = build(one_step('attempts: 5, backoff: fixed, initial_delay: 1s', 'timeout 2500ms'))
    r = report(orbc, worker_model(latency_ms=100, failures=[{'rate': 0.5, 'code': 'BUSY'}]))
    near(r['outcomes']['timed_out'], 0.125, RUNS, 'timed_out')
    expect(r['outcomes']['failed'] == 0, 'failed %s' % r['outcomes'])
    near_mean(r['duration_ms']['mean'], [(0.5, 100), (0.25, 1200), (0.125, 2300),
                                         (0.125, 2500)], RUNS, 'mean duration')
    expect(r['duration_ms']['max'] == 2500, 'max %s' % r['duration_ms']['max'])


# A step timeout: latency uniform on the whole ms 0 … 1999 and `timeout 1s`, one
# attempt. An answer at exactly 1000 ms counts (a limit fires after everything else due
# at its millisecond, docs/runtime.md "Ties"), so the attempt times out when the latency
# is 1001 … 1999: 999/2000 = 0.4995. A timed-out run ends at 1000 ms; the others at
# their latency, mean (0 + 1000)/2 = 500: the mean duration is 0.5005·500 + 0.4995·1000.
@test
def step_timeout_and_its_tie():
    orbc = build(one_step('attempts: 1').replace('retry {', 'timeout 1s\n    retry {'))
    r = report(orbc, worker_model(latency_ms={'min': 0, 'max': 1999}))
    near(r['outcomes']['failed'], 999 / 2000, RUNS, 'failed')
    near(r['errors'].get('TIMEOUT', 0), 999 / 2000, RUNS, 'errors.TIMEOUT')
    near(r['steps']['call']['timed_out'], 999 / 2000, RUNS, 'timed_out')
    near_mean(r['duration_ms']['mean'], [(1 / 2000, ms) for ms in range(0, 1001)] +
              [(999 / 2000, 1000)], RUNS, 'mean duration')
    expect(r['duration_ms']['max'] == 1000, 'max %s' % r['duration_ms']['max'])


# A `for` fan-out of k = 4 independent elements, each failing (not retryable) with
# probability 0.1: the workflow completes only when all do, 0.9^4 = 0.6561 (the product
# rule); every element is attempted (they start at the same instant), so the step's
# mean attempts per run is 4.
@test
def for_fan_out_product_rule():
    orbc = build('''worker "w.item" { input { sku: string } }
workflow fan {
  input { items: [string] }
  step each { worker "w.item"; for sku in input.items; with { sku: sku } }
}
''')
    r = report(orbc, {'input': {'items': ['a', 'b', 'c', 'd']}, 'workers': {'w.item': {
        'latency_ms': 20, 'failures': [{'rate': 0.1, 'code': 'GONE', 'retryable': False}]}}})
    near(r['outcomes']['completed'], 0.9 ** 4, RUNS, 'completed')
    expect(r['steps']['each']['attempts_mean'] == 4.0, 'attempts %s' % r['steps']['each'])


# A signal that arrives with probability 0.7, at a uniform whole ms in [0, 9999], and an
# await with timeout 5s. It is received when it arrives by 5000 ms inclusive (a signal at
# the timeout's millisecond wins, docs/runtime.md "Ties"): 0.7 · 5001/10000 = 0.35007.
@test
def signal_probability_and_tie():
    orbc = build('''workflow wait {
  step approval { await "approved"; timeout 5s }
}
''')
    r = report(orbc, {'signals': {'approved': {'probability': 0.7,
                                               'after_ms': {'min': 0, 'max': 9999}}}})
    near(r['outcomes']['completed'], 0.7 * 5001 / 10000, RUNS, 'completed')
    near(r['errors'].get('SIGNAL_TIMEOUT', 0), 1 - 0.7 * 5001 / 10000, RUNS, 'SIGNAL_TIMEOUT')
    near(r['steps']['approval']['timed_out'], 1 - 0.7 * 5001 / 10000, RUNS, 'timed_out')


# A lost worker: each delivery is lost with probability 0.5 (after its latency, 100 ms)
# and redelivered; redeliveries use no attempt. Every run completes with 1 attempt after
# a geometric number of deliveries (mean 2): the mean duration is 200 ms, and P(more than
# 4 deliveries) = 0.5^4.
@test
def lost_worker_redelivers():
    orbc = build(one_step('attempts: 1'))
    r = report(orbc, worker_model(latency_ms=100, lost_rate=0.5))
    expect(r['outcomes']['completed'] == 1.0, 'outcomes %s' % r['outcomes'])
    expect(r['steps']['call']['attempts_mean'] == 1.0, 'attempts %s' % r['steps']['call'])
    near_mean(r['duration_ms']['mean'], [(0.5 ** k, 100 * k) for k in range(1, 60)], RUNS,
              'mean duration')


# Log-normal latency {p50: 100, p99: 900}: the one step's duration is its latency, so the
# simulated median and 99th percentile are near 100 and 900 (rounded to whole ms). For
# N = 20000 the p-quantile's standard error is sqrt(p(1-p)/N)/f(x_p): about 0.9 ms at the
# median and 40 ms at p99 for this distribution (sigma = ln 9 / 2.326 = 0.944); the bands
# are 4 of them.
@test
def log_normal_quantiles():
    orbc = build(one_step('attempts: 1'))
    r = report(orbc, worker_model(latency_ms={'p50': 100, 'p99': 900}))
    d = r['duration_ms']
    expect(96 <= d['p50'] <= 104, 'p50 %s' % d['p50'])
    expect(740 <= d['p99'] <= 1060, 'p99 %s' % d['p99'])


# The HTTP built-in: each request fails with 503 (retryable HTTP_ERROR) with probability
# 0.5; attempts: 3 (the retry example of the documentation page): failed = 0.125.
@test
def http_builtin_failures():
    orbc = build('''workflow hook {
  step post {
    using orbit.http.request
    with { url: "https://hooks.example/x", method: "POST" }
    retry { attempts: 3, backoff: exponential, initial_delay: 100ms }
  }
}
''')
    r = report(orbc, {'workers': {'orbit.http.request': {
        'latency_ms': 5, 'failures': [{'rate': 0.5, 'status': 503}]}}})
    near(r['outcomes']['failed'], 0.125, RUNS, 'failed')
    near(r['errors'].get('HTTP_ERROR', 0), 0.125, RUNS, 'HTTP_ERROR')
    r = report(orbc, {'http_adapter': False}, runs=100)
    expect(r['errors'] == {'ADAPTER_DISABLED': 1.0}, 'adapter %s' % r['errors'])
    for worker, message in [({'pickup_ms': 1}, 'is a built-in task'),
                            ({'failures': [{'rate': 0.1, 'status': 200}]}, 'from 400 to 599'),
                            ({'failures': [{'rate': 0.1, 'code': 'X'}]}, 'unknown key `code`')]:
        _, err = simulate(orbc, {'workers': {'orbit.http.request': worker}}, status=2)
        expect(message in err, 'expected %r in: %s' % (message, err.strip()))


# ---- reproducibility ----

@test
def same_result_for_any_jobs():
    orbc = build(os.path.join(ROOT, 'examples', 'checkout.orbit') and
                 open(os.path.join(ROOT, 'examples', 'checkout.orbit')).read())
    model = open(os.path.join(ROOT, 'examples', 'simulate', 'checkout.model.json')).read()
    outputs = set()
    for fmt in ('json', 'text', 'svg'):
        one, _ = simulate(orbc, model, '--runs', '3000', '--format', fmt)
        two, _ = simulate(orbc, model, '--runs', '3000', '--format', fmt, '--jobs', '2')
        three, _ = simulate(orbc, model, '--runs', '3000', '--format', fmt, '--jobs', '3')
        expect(one == two == three, '--format %s differs with --jobs' % fmt)
        outputs.add(one)
    other, _ = simulate(orbc, model, '--runs', '3000', '--format', 'json', '--seed', '2')
    expect(other not in outputs, 'another seed gave the same result')
    r = json.loads(other)
    expect(abs(sum(r['outcomes'].values()) - 1) < 1e-9, 'outcomes do not sum to 1')
    expect(abs(sum(r['errors'].values()) - r['outcomes']['failed']) < 1e-9,
           'errors do not sum to failed')


# ---- the text report with names that are not ASCII ----

def cells(text):
    """Terminal cells, as a terminal shows the characters of these tests: 2 for East
    Asian wide ones, 0 for combining marks, else 1."""
    return sum(0 if unicodedata.combining(ch) else
               2 if unicodedata.east_asian_width(ch) in 'WF' else 1 for ch in text)


LONG_NAMES = [
    'überprüfung_der_zahlungsfähigkeit_äöü',                       # 37 cells, 43 bytes
    '支払い確認のための非常に長いステップの名前です一二三四五六七八九十',  # 66 cells
    'q\u0307' * 45,                                                 # 45 cells, 135 bytes
    'ab' + '\u5b57' * 20,                       # 42 cells: a wide one straddles the 40th
]
STEP = '''  step %s {
    worker "w.call"
    with { n: input.n }
    retry { attempts: 2 }
  }
'''


@test
def text_columns_by_display_width():
    """--format text cuts a name to the column's 40 cells at a character boundary (a
    combining mark stays with its letter, a wide character that would straddle the edge
    is left out) and pads by display width: the output is UTF-8 and the columns line up
    for CJK names, combining marks and umlauts alike (error codes from the model too; a
    control character in one is shown as U+FFFD, so a row stays one line)."""
    orbc = build('worker "w.call" { input { n: int } output { ok: bool } }\n'
                 'workflow one {\n  input { n: int }\n'
                 + ''.join(STEP % name for name in LONG_NAMES) + '}\n')
    codes = ['支払いエラー' * 5, 'A\u0308\u0301x', 'bad\tcode\nnext']
    model = worker_model(failures=[{'rate': 0.2, 'code': c, 'retryable': False} for c in codes])
    code, raw, err = run([ORBIT_RUN, 'simulate', orbc, '--model', write_model(model),
                          '--runs', '500', '--format', 'text'], text=False)
    expect(code == 0, 'exit %d: %s' % (code, err))
    try:
        out = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        raise AssertionError('not UTF-8: %s: %r' % (e, raw[max(0, e.start - 20):e.end + 20]))
    tables = [t.splitlines() for t in out.split('\n\n')]
    outcome = next(t for t in tables if t[0].startswith('outcome'))
    errors = next(t for t in tables if t[0].startswith('final error'))
    step_rows = next(t for t in tables if t[0].startswith('step'))[1:]
    width = 40
    share = cells(outcome[1]) - width   # " 12.345% [ 1.234, 12.345]"
    expect(len(errors) == 1 + len(codes) and len(step_rows) == len(LONG_NAMES),
           'a name broke a line:\n%s' % out)
    expect(all(cells(row) == width + share for row in outcome[1:] + errors[1:]),
           'shares not aligned:\n%s' % '\n'.join(outcome + errors))
    expect(len({cells(row) for row in step_rows}) == 1,
           'step rows not aligned:\n%s' % '\n'.join(step_rows))
    for row, name in zip(step_rows, LONG_NAMES):
        shown, left = '', cells(row) - width   # the name's cell is the row less the rest
        for ch in row:
            if cells(shown + ch) > width:
                break
            shown += ch
        shown = shown.rstrip(' ')
        expect(name.startswith(shown) and cells(row[len(shown):]) == left + width - cells(shown),
               '%r is not a prefix of %r' % (shown, name))
        if shown != name:
            cut = name[len(shown)]
            expect(not unicodedata.combining(cut) and cells(shown + cut) > width,
                   '%r cut too early or before a combining mark (next %r)' % (shown, cut))
    expect(any(row.startswith('bad\ufffdcode\ufffdnext ') for row in errors[1:]),
           'a control character in an error code:\n%s' % '\n'.join(errors))


# ---- agreement with orbit-run ----

def fixed_model(scenario):
    """The model of a scenario whose every worker answers the same way each time, or
    None when a model cannot express it."""
    if 'steps' in scenario:
        return None
    model = {k: scenario[k] for k in ('workflow', 'input', 'http_adapter') if k in scenario}
    workers = {}
    for name, script in scenario.get('workers', {}).items():
        outcomes = script.get('attempts', [])
        if any(o != outcomes[0] for o in outcomes):
            return None
        worker = {}
        if 'pickup_ms' in script:
            worker['pickup_ms'] = script['pickup_ms']
        if script.get('no_worker'):
            worker['no_worker'] = True
        if outcomes:
            o = dict(outcomes[0])
            if 'pickup_ms' in o:
                worker['pickup_ms'] = o.pop('pickup_ms')
            worker['latency_ms'] = o.pop('after_ms', 0)
            if 'succeed' in o:
                worker['output'] = o.pop('succeed')
            elif 'fail' in o:
                f = o.pop('fail')
                worker['failures'] = [dict(f, rate=1)]
            elif 'network_error' in o:
                worker['failures'] = [{'rate': 1, 'network_error': o.pop('network_error')}]
            elif 'status' in o and o['status'] >= 400 and not o.get('body') and not o.get('headers'):
                worker['failures'] = [{'rate': 1, 'status': o.pop('status')}]
                o.pop('body', None), o.pop('headers', None)
            if o:
                return None    # never_answers, lost_after_ms, a response with a body …
        else:
            worker['latency_ms'] = 10    # orbit-run's default outcome
        workers[name] = worker
    if workers:
        model['workers'] = workers
    signals = {}
    for s in scenario.get('signals', []):
        if s['name'] in signals:
            return None
        signals[s['name']] = {'after_ms': s['at_ms'], 'payload': s.get('payload')}
    if signals:
        model['signals'] = signals
    return model


def reference(case, extra):
    code, out, err = run([ORBIT_RUN, case + '.orbc', '--scenario', case + '.scenario.json',
                          '--format', 'json'] + extra)
    lines = [json.loads(l) for l in out.splitlines() if l.strip()]
    expect(lines, '%s: orbit-run printed nothing: %s' % (case, err))
    events = [l for l in lines if 'event' in l]
    return lines[-1], events[-1]['time_ms'] if events else 0


@test
def agrees_with_orbit_run():
    compared = skipped = 0
    for scenario_path in sorted(glob.glob(os.path.join(CONFORMANCE, '*.scenario.json'))):
        case = scenario_path[:-len('.scenario.json')]
        args = open(case + '.args').read().split() if os.path.exists(case + '.args') else []
        extra = args[args.index('--workflow'):args.index('--workflow') + 2] \
            if '--workflow' in args else []
        scenario = json.load(open(scenario_path))
        model = fixed_model(scenario)
        if model is None:
            skipped += 1
            continue
        final, end = reference(case, extra)
        path = os.path.join(TMP, 'model.json')
        with open(path, 'w') as f:
            json.dump(model, f)
        code, out, err = run([ORBIT_RUN, 'simulate', case + '.orbc', '--model', path, '--runs',
                              '1', '--format', 'json'] + extra)
        if code == 2 and 'does not match the output contract' in err:
            skipped += 1    # a model's output must match its contract; a scenario's need not
            continue
        expect(code == 0, '%s: exit %d: %s' % (case, code, err))
        r = json.loads(out)
        status = {'COMPLETED': 'completed', 'FAILED': 'failed', 'TIMED_OUT': 'timed_out',
                  'BLOCKED': 'blocked'}[final['status']]
        name = os.path.basename(case)
        expect(r['outcomes'][status] == 1.0, '%s: %s, orbit-run %s' % (name, r['outcomes'],
                                                                        final['status']))
        expect(r['duration_ms']['max'] == end, '%s: %s ms, orbit-run %s ms' % (
            name, r['duration_ms']['max'], end))
        if status == 'failed':
            expect(r['errors'] == {final['error']: 1.0}, '%s: %s, orbit-run %s' % (
                name, r['errors'], final['error']))
        compared += 1
    print('agreement with orbit-run: %d conformance scenarios compared, %d not expressible '
          'as a model' % (compared, skipped))
    expect(compared >= 20, 'only %d scenarios compared' % compared)


# ---- the model's errors ----

@test
def model_errors():
    orbc = build(one_step('attempts: 3'))
    cases = [
        ('{"workers": ', 'model.json:1:'),
        ('[]', 'expected a JSON object'),
        ({'wokers': {}}, 'unknown key `wokers` (did you mean `workers`?)'),
        ({'workers': {'w.cal': {}}}, 'workers: unknown worker or built-in task `w.cal` '
                                     '(did you mean `w.call`?)'),
        ({'workers': {'w.call': {'lost_rate': -0.1}}},
         'workers["w.call"].lost_rate: expected a probability from 0 to 1'),
        ({'workers': {'w.call': {'failures': [{'rate': 0.7, 'code': 'A'},
                                              {'rate': 0.5, 'code': 'B'}]}}},
         'workers["w.call"]: the rates of `failures` and `lost_rate` sum to 1.2, more than 1'),
        ({'workers': {'w.call': {'failures': [{'code': 'A'}]}}},
         'workers["w.call"].failures[0]: missing `rate`'),
        ({'workers': {'w.call': {'failures': [{'rate': 0.1, 'status': 503}]}}},
         'workers["w.call"].failures[0]: unknown key `status`'),
        ({'workers': {'w.call': {'latency_ms': -5}}},
         'workers["w.call"].latency_ms: expected a number of milliseconds'),
        ({'workers': {'w.call': {'latency_ms': {'min': 9, 'max': 3}}}},
         'workers["w.call"].latency_ms: `min` (9) is greater than `max` (3)'),
        ({'workers': {'w.call': {'latency_ms': {'p50': 0, 'p99': 3}}}},
         'workers["w.call"].latency_ms.p50: expected a number of milliseconds greater than 0'),
        ({'workers': {'w.call': {'latency_ms': {'p50': 9, 'max': 3}}}},
         'cannot be combined'),
        ({'workers': {'w.call': {'output': {'ok': 3}}}},
         'workers["w.call"].output: does not match the output contract of `w.call`'),
        ({'input': {'n': 'x'}}, 'input: does not match the input contract of workflow `one`'),
        ({'signals': {'go': {'after_ms': 1}}}, 'signals: unknown signal `go`: no step of the '
                                               'program awaits a signal'),
    ]
    for model, message in cases:
        if isinstance(model, dict) and 'input' not in model:
            model = dict(model, input={'n': 1})
        _, err = simulate(orbc, model, status=2)
        expect(message in err, 'expected %r in: %s' % (message, err.strip()))
    for args, message in [(['--runs', '0'], '--runs takes'), (['--jobs', 'x'], '--jobs takes'),
                          (['--format', 'png'], 'unknown format'), (['--bogus', '1'], 'unknown option'),
                          (['--seed', '9223372036854775808'], '--seed takes')]:
        _, err = simulate(orbc, {'input': {'n': 1}}, *args, status=2)
        expect(message in err, 'expected %r in: %s' % (message, err.strip()))


# ---- the picture ----

@test
def svg_plot():
    orbc = build(open(os.path.join(ROOT, 'examples', 'checkout.orbit')).read())
    model = open(os.path.join(ROOT, 'examples', 'simulate', 'checkout.model.json')).read()
    out, _ = simulate(orbc, model, '--runs', '2000', '--format', 'svg')
    doc = xml.dom.minidom.parseString(out.encode())
    expect(doc.documentElement.tagName == 'svg', 'not an SVG')
    expect(len(doc.getElementsByTagName('polyline')) >= 2, 'no curves')
    expect('workflow timeout 1d' in out, 'the deadline is not marked')
    rsvg = shutil.which('rsvg-convert')
    if not rsvg:
        print('note: rsvg-convert is not installed (tools/install-deps.sh): PNG not checked')
        return
    svg = os.path.join(TMP, 'plot.svg')
    png = os.path.join(TMP, 'plot.png')
    with open(svg, 'w') as f:
        f.write(out)
    code, _, err = run([rsvg, svg, '-o', png])
    expect(code == 0 and not err.strip(), 'rsvg-convert: %s' % err)
    expect(png_has_colour(png), 'the PNG is blank')


def png_has_colour(path):
    """True when some pixel of the PNG is neither white nor grey (a curve was drawn)."""
    import struct
    import zlib
    data = open(path, 'rb').read()
    expect(data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG')
    pos, idat, width, height, ctype = 8, b'', 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    channels = {2: 3, 6: 4}.get(ctype)
    expect(channels, 'unexpected PNG colour type %d' % ctype)
    raw = zlib.decompress(idat)
    stride = width * channels
    prev = bytearray(stride)
    coloured = 0
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        for x in range(0, stride, channels):
            r, g, bl = line[x], line[x + 1], line[x + 2]
            if max(r, g, bl) - min(r, g, bl) > 60:
                coloured += 1
        prev = line
    return coloured > 100


def main():
    run_cases(('ORBITC', 'ORBIT_RUN'))


if __name__ == '__main__':
    main()
