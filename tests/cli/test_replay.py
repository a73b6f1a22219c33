#!/usr/bin/env python3
"""`orbit-run replay` reproduces every history the runtime itself writes (docs/runtime.md,
"Replay"): what makes a replay's verdict trustworthy.

- Every golden run scenario (tests/golden/run/) and conformance scenario
  (tests/conformance/runtime/) is run with `--format json --show-values`; the whole history
  and every prefix of it are replayed against the same program, and each must continue
  (or, the whole history, finish). The scenarios it cannot replay are listed in
  UNREPLAYABLE with the reason, and must still diverge (so that the list stays true).
- The places of each prefix are checked against the records themselves: a history cut
  right after StepScheduled of attempt N waits at `…#queued:N`, right after RetryScheduled
  at `…#backoff:N+1`, after TimerStarted at `…#sleep`, after SignalWaitStarted at
  `…#signal`; a history that ended waits nowhere.
- `-` reads standard input; usage errors exit 2.

  test_replay.py --orbitc build/cli/orbitc --orbit-run build/runtime/orbit-run [-k NAME]
"""
import glob
import json
import os
import re
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORBITC = ORBIT_RUN = TMP = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import CORPUS_SAMPLE, corpus_sample, main as run_cases, test  # noqa: E402,F401
from support import sanitizers  # noqa: E402

# Histories no replay can reproduce, and why.
UNREPLAYABLE = {
    # A scripted child (docs/runtime.md, "A scripted child") is answered by the scenario:
    # the history shows none of its steps, and a replay runs every child for real.
    'scenario_child': 'a scripted child',
    'scenario_child_fail': 'a scripted child',
    'scenario_child_for': 'a scripted child',
    'scenario_child_never': 'a scripted child',
    'scenario_child_refused': 'a scripted child',
    # A number whose value is whole (0.0) is written as `0`: read back it is an integer,
    # and 1 / 0 fails where 1 / 0.0 gave Infinity.
    'number_text': 'a whole number written as an integer',
}

END = ('WorkflowCompleted', 'WorkflowFailed', 'WorkflowTimedOut', 'WorkflowBlocked')


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def run(argv, cwd=None, stdin=None):
    p = sanitizers.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300)
    expect(p.returncode not in (sanitizers.EXIT, 134) and p.returncode >= 0,
           '%s crashed (exit %d):\n%s' % (argv[:3], p.returncode, p.stderr))
    return p.returncode, p.stdout, p.stderr


def scenarios():
    """Every golden and conformance scenario's program (under the sanitizers' setup, every
    third: support.cases.corpus_sample)."""
    sources = []
    for folder in ('tests/golden/run', 'tests/conformance/runtime'):
        sources += sorted(glob.glob(os.path.join(ROOT, folder, '*.orbit')))
    return corpus_sample(sources)


def record(source):
    """The program built and its history as JSON lines (records only), or None when the
    scenario is one that does not run (an error case)."""
    base = source[:-len('.orbit')]
    name = os.path.basename(base)
    orbc = os.path.join(TMP, '%s-%s.orbc' % (os.path.basename(os.path.dirname(source)), name))
    status, _, _ = run([ORBITC, 'build', source, '-o', orbc])
    if status:
        return None, None
    extra = shlex.split(open(base + '.args').read()) if os.path.exists(base + '.args') else []
    extra = [a for a in extra if a != '--show-values']
    if '--format' in extra:
        del extra[extra.index('--format'):extra.index('--format') + 2]
    if os.path.exists(base + '.scenario.json'):
        extra += ['--scenario', base + '.scenario.json']
    status, out, _ = run([ORBIT_RUN, orbc, '--format', 'json', '--show-values'] + extra,
                         cwd=os.path.dirname(source))
    lines = [line for line in out.splitlines() if line.startswith('{"time_ms"')]
    return orbc, lines or None


def expected_place(record):
    """The place a history cut right after `record` must list, or None."""
    step = re.sub(r'\[\d+\]', '', record.get('step', ''))
    event = record['event']
    if step.endswith('.compensate'):
        return None
    if event == 'StepScheduled':
        return '%s#queued:%d' % (step, record['attempt'])
    if event == 'TimerStarted':
        return step + '#sleep'
    if event == 'SignalWaitStarted':
        return step + '#signal'
    return None


@test
def every_history_and_prefix_replays():
    histories = prefixes = 0
    skipped = []
    for source in scenarios():
        name = os.path.basename(source)[:-len('.orbit')]
        orbc, lines = record(source)
        if not lines:
            continue
        files = []
        for k in range(1, len(lines) + 1):
            path = os.path.join(TMP, '%s.%d.jsonl' % (name, k))
            with open(path, 'w') as f:
                f.write('\n'.join(lines[:k]) + '\n')
            files.append(path)
        status, out, err = run([ORBIT_RUN, 'replay', orbc, '--format', 'json'] + files)
        results = [json.loads(line) for line in out.splitlines()]
        expect(len(results) == len(files), '%s: %d results for %d histories:\n%s'
               % (name, len(results), len(files), err))
        diverged = [r for r in results if r['verdict'] == 'diverges']
        if name in UNREPLAYABLE:
            expect(diverged, '%s is listed as unreplayable (%s) but replays: take it off the list'
                   % (name, UNREPLAYABLE[name]))
            skipped.append(name)
            continue
        expect(status == 0 and not diverged, '%s: %s' % (name, json.dumps(diverged[:1]) or err))
        records = [json.loads(line) for line in lines]
        for k, result in enumerate(results, 1):
            ended = records[k - 1]['event'] in END
            expect(result['verdict'] == ('finished' if ended else 'continues'),
                   '%s prefix %d: %s' % (name, k, result['verdict']))
            expect(result['records'] == k, '%s prefix %d: %d records' % (name, k, result['records']))
            ids = [p['id'] for p in result['places']]
            expect(ids == sorted(set(ids)), '%s prefix %d: places not sorted once' % (name, k))
            if ended:
                expect(ids == [], '%s: a history that ended waits at %s' % (name, ids))
            place = expected_place(records[k - 1])
            if place and not ended:
                want = '%s/%s' % (records[0]['workflow'], place)
                expect(want in ids, '%s prefix %d: %s not among the places %s'
                       % (name, k, want, ids))
        histories += 1
        prefixes += len(files)
    print('replayed %d histories, %d prefixes; not replayable: %s' % (histories, prefixes,
          ', '.join('%s (%s)' % (n, UNREPLAYABLE[n]) for n in skipped)))
    expect(histories >= 80 // CORPUS_SAMPLE and prefixes >= 1000 // CORPUS_SAMPLE,
           'too few histories: %d' % histories)


@test
def standard_input_and_usage():
    orbc, lines = record(os.path.join(ROOT, 'tests', 'golden', 'run', 'await_signal.orbit'))
    status, out, _ = run([ORBIT_RUN, 'replay', orbc, '-'], stdin='\n'.join(lines[:2]) + '\n')
    expect(status == 0 and out.startswith('-: continues (1 place: approve/approval#signal)'), out)
    status, _, err = run([ORBIT_RUN, 'replay', orbc])
    expect(status == 2 and 'no history given' in err, err)
    status, _, err = run([ORBIT_RUN, 'replay', orbc, '-', '--format', 'xml'], stdin='')
    expect(status == 2 and 'unknown format' in err, err)
    status, _, err = run([ORBIT_RUN, 'replay', os.path.join(TMP, 'none.orbc'), '-'], stdin='')
    expect(status == 2 and 'cannot read' in err, err)


def main():
    run_cases(('ORBITC', 'ORBIT_RUN'))


if __name__ == '__main__':
    main()
