#!/usr/bin/env python3
"""`orbitc fix` as users meet it (docs/cli.md, "Fixing"), and its properties over the
generated corpus with mistakes (tools/gen_corpus.py --errors N): fix never brings a
diagnostic (by code and message, counted) that was not there, removes every one that
offered a machine-applicable fix but for those it reports it left out, and a second fix
changes nothing. The golden cases (tests/golden/harness/fix.py) pin the exact results.

    test_fix.py --orbitc PATH
    ORBIT_FIX_CORPUS_SCALE=25 test_fix.py --orbitc PATH    # a long corpus run, by hand
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test, write

GEN = os.path.join(cli_harness.ROOT, 'tools', 'gen_corpus.py')
TYPOS = ('workflow w {\n'
         '  step a { worker "x"; retry { attemps: 3, backof: exponential } }\n'
         '  step b { sleep 1h }\n'
         '}\n')
FIXED = ('workflow w {\n'
         '  step a { worker "x"; retry { attempts: 3, backoff: exponential } }\n'
         '  step b { sleep 1h }\n'
         '}\n')


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def diagnostics(path, cwd=None):
    status, out, _ = run('check', '--format=json', path, cwd=cwd)
    return status, [json.loads(line) for line in out.splitlines()]


def counted(diags):
    return collections.Counter((d['code'], d['message']) for d in diags)


@test
def fixes_in_place_and_touches_nothing_else():
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit')
        write(a, TYPOS)
        write(b, 'workflow clean { step s { sleep 1h } }\n')
        os.chmod(a, 0o640)
        os.utime(b, (1000000000, 1000000000))
        a_before, b_before = os.stat(a), os.stat(b)
        status, out, err = run('fix', tmp)
        expect(status == 0 and out == '', 'status %d, stdout %r' % (status, out))
        expect('fixed %s: 2 fixes (E0410: 2)' % a in err, 'report: %s' % err)
        expect(read(a) == FIXED, 'a.orbit: %r' % read(a))
        expect(os.stat(a).st_mode & 0o777 == 0o640, 'the permissions changed')
        # written atomically: a new file renamed over the old one
        expect(os.stat(a).st_ino != a_before.st_ino, 'a.orbit was rewritten in place')
        b_after = os.stat(b)
        expect((b_after.st_ino, b_after.st_mtime_ns, b_after.st_ctime_ns)
               == (b_before.st_ino, b_before.st_mtime_ns, b_before.st_ctime_ns),
               'b.orbit, unchanged, was written')
        expect(sorted(os.listdir(tmp)) == ['a.orbit', 'b.orbit'], 'left files: %s' % os.listdir(tmp))
        status, out, err = run('fix', tmp)
        expect(status == 0 and 'nothing to fix' in err and read(a) == FIXED, 'again: %s' % err)


@test
def no_path_is_the_current_directory():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'a.orbit'), TYPOS)
        status, out, err = run('fix', cwd=tmp)
        expect(status == 0 and read(os.path.join(tmp, 'a.orbit')) == FIXED, err)


@test
def diff_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, TYPOS)
        status, out, err = run('fix', '--diff', 'a.orbit', cwd=tmp)
        expect(read(a) == TYPOS, 'the file changed')
        expect(out.startswith('--- a.orbit\n+++ a.orbit\n@@ ') and '+  step a { worker "x"; '
               'retry { attempts: 3, backoff: exponential } }' in out, 'diff: %s' % out)
        expect('would fix a.orbit: 2 fixes' in err and status == 0, err)
        patched = subprocess.run(['patch', '-p0', '--dry-run'], cwd=tmp, input=out.encode(),
                                 capture_output=True)
        expect(patched.returncode == 0, 'patch -p0 rejects the diff: %s' % patched.stdout)


@test
def stdin_to_stdout():
    status, out, err = run('fix', '-', input=TYPOS.encode())
    expect(status == 0 and out == FIXED, 'got %d %r %s' % (status, out, err))
    status, out, err = run('fix', '-', input=b'workflow w { step a { sleep 1h } }\n')
    expect(status == 0 and out == 'workflow w { step a { sleep 1h } }\n', 'unchanged: %r' % out)
    status, out, err = run('fix', '--format=json', '-', input=TYPOS.encode())
    expect(status == 2 and 'human format' in err, 'json with -: %d %s' % (status, err))


@test
def errors_that_remain_fail_the_run():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, TYPOS.replace('step b { sleep 1h }', 'step b { sleep 1h; retry { attempts: 2 } }'))
        status, out, err = run('fix', '--color=never', a)
        expect(status == 1 and 'error[E0307]' in err and 'fixed' in err, '%d %s' % (status, err))
        status, out, err = run('fix', '--format=json', a)
        expect(status == 1 and json.loads(out.splitlines()[0])['code'] == 'E0307', out)


@test
def an_unreadable_path_writes_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, TYPOS)
        status, out, err = run('fix', a, os.path.join(tmp, 'missing.orbit'))
        expect(status == 2 and read(a) == TYPOS and 'nothing was written' in err, err)


@test
def a_syntax_error_without_a_fix_is_left_alone():
    """The file with the syntax error is not written; the other file of the program is
    fixed; the error remains, so the status is 1."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit')
        broken = 'workflow broken {\n  step a { sleep 1h ) }\n}\n'
        write(a, broken)
        write(b, TYPOS)
        before = os.stat(a)
        status, out, err = run('fix', '--color=never', tmp)
        after = os.stat(a)
        expect(status == 1 and 'error[E0102]' in err and 'fixed %s: 2 fixes' % b in err,
               '%d %s' % (status, err))
        expect(read(a) == broken and (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns),
               'a.orbit was touched')
        expect(read(b) == FIXED, 'b.orbit: %r' % read(b))


# `workflow nightly-report` for `nightly_reports`: the fix of the kebab-case name (E0100)
# and the did-you-mean (E0202) replace the same text; the first is applied, and the
# did-you-mean, offered again by the next check, in the second round.
TWO_ROUNDS = ('workflow nightly_reports { step a { sleep 1h } }\n'
              'workflow other { step b { workflow nightly-report } }\n')


@test
def overlapping_fixes_one_then_check_again():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, TWO_ROUNDS)
        status, out, err = run('fix', '--format=json', a)
        expect(out.splitlines() == [] and status == 0, '%d %s %s' % (status, out, err))
        expect('fixed %s: 2 fixes (E0100: 1, E0202: 1)' % a in err, err)
        expect(read(a) == TWO_ROUNDS.replace('nightly-report', 'nightly_reports'), read(a))
        # same text, but the did-you-mean sorts first: it alone is applied, and the
        # check after it finds nothing left to fix
        write(a, TWO_ROUNDS.replace('nightly_reports', 'nightly_rep'))
        status, out, err = run('fix', a)
        expect(status == 0 and 'fixed %s: 1 fix (E0202: 1)' % a in err, '%d %s' % (status, err))
        expect('workflow nightly_rep }' in read(a), read(a))


@test
def rounds_are_bounded():
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, TWO_ROUNDS)
        status, out, err = run('fix', '--max-rounds', '1', '--color=never', a)
        expect(status == 1 and 'fixed %s: 1 fix (E0100: 1)' % a in err
               and 'stopped after 1 round of fixing' in err
               and 'error[E0202]: unknown workflow `nightly_report`' in err, '%d %s' % (status, err))
        expect('workflow nightly_report }' in read(a), read(a))
        status, out, err = run('fix', '--max-rounds=1', a)
        expect(status == 0 and 'fixed %s: 1 fix (E0202: 1)' % a in err and 'stopped' not in err,
               '%d %s' % (status, err))
        for bad in ('0', '-1', 'x', ''):
            status, out, err = run('fix', '--max-rounds', bad, a)
            expect(status == 2 and 'invalid number' in err, '--max-rounds %r: %d %s' % (bad, status, err))
        status, out, err = run('check', '--max-rounds', '3', a)
        expect(status == 2 and 'takes no option' in err, err)


PARTLY_READ_USE = ('workflow main {\n  step a { workflow refund_order }\n}\n'
                   'workflow refund_orders {\n  step t { sleep 1s }\n}\n')
PARTLY_READ_NOISY = ('workflow noisy {\n'
                     + ''.join('  step s%d { sleep 1x }\n' % i for i in range(501))
                     + '}\nworkflow refund_order {\n  step t { sleep 2s }\n}\n')
PARTLY_READ_DEEP = ('workflow refund_orders {\n  step t { sleep 1s }\n}\n'
                    'workflow main {\n  step a { workflow refund_order }\n}\n'
                    'workflow deep {\n  step b { compute ' + '(' * 300 + '1' + ')' * 300
                    + ' }\n}\n'
                    'workflow refund_order {\n  step t { sleep 2s }\n}\n')


@test
def no_name_is_guessed_while_part_of_the_program_is_unread():
    """After the 500-error cap (E0100) or the nesting limit (E0009) the rest
    of a file is not read, and may declare the name a did-you-mean would replace: the
    fix is maybe-incorrect (JSON, the server), `fix` leaves it and the note says why."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, 'a.orbit'), os.path.join(tmp, 'b.orbit')
        write(a, PARTLY_READ_USE)
        write(b, PARTLY_READ_NOISY)
        status, out, err = run('fix', tmp)
        expect(read(a) == PARTLY_READ_USE, 'a.orbit was rewritten: %r' % read(a))
        expect('E0202' not in err.split('error[')[0] and 'was not read to its end' in err,
               'the report: %s' % err[:600])
        status, diags = diagnostics(tmp)
        unknown = [d for d in diags if d['code'] == 'E0202']
        expect(len(unknown) == 1 and unknown[0]['fixes']
               and all(f['applicability'] == 'maybe-incorrect' for f in unknown[0]['fixes']),
               'E0202: %s' % unknown)
        os.remove(b)
        deep = os.path.join(tmp, 'deep.orbit')
        write(a, PARTLY_READ_USE.replace('refund_orders', 'refund_ordrs'))
        write(deep, PARTLY_READ_DEEP)
        status, out, err = run('fix', deep)
        expect(read(deep) == PARTLY_READ_DEEP and 'E0009' in err and 'nothing to fix' in err,
               'one file, nesting: %d %s' % (status, err[:600]))
        # the same mistake in a program read whole is fixed as before
        status, out, err = run('fix', a)
        expect(status == 0 and 'fixed %s: 1 fix (E0202: 1)' % a in err, err)


def misspelt_queue_timeouts(n):
    return ('workflow w {\n'
            + ''.join('  step s%d { worker "x"; quue_timeout: 2m }\n' % i for i in range(n))
            + '}\n')


@test
def fixes_left_out_are_found_in_linear_time_and_capped():
    """Each `quue_timeout` fix would bring a new E0410, so each is left;
    finding them re-checked the program about 2n log n times (1,600 steps: 17.6 s) and
    printed a `left` line each, past --max-diagnostics."""
    import time
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, misspelt_queue_timeouts(3000))
        start = time.monotonic()
        status, out, err = run('fix', '--max-diagnostics', '5', a)
        took = time.monotonic() - start
        expect(took < 5, '3,000 fixes left out took %.1f s' % took)
        left = [line for line in err.splitlines() if line.startswith('orbitc: left ')]
        expect(len(left) == 5 and 'orbitc: ... and 2995 more fixes left' in err,
               '%d left lines: %s' % (len(left), err[:800]))
        expect(left[0] == 'orbitc: left %s:2:25: the fix of E0303 would bring a new E0410' % a,
               left[0])
        expect(read(a) == misspelt_queue_timeouts(3000), 'the file changed')


@test
def a_left_fix_is_placed_in_the_text_its_diagnostics_are_shown_in():
    """An earlier fix on the line moves the left one by a character; the
    `left` line gave its place in the original text, the diagnostics the fixed one."""
    with tempfile.TemporaryDirectory() as tmp:
        a = os.path.join(tmp, 'a.orbit')
        write(a, 'workflow w {\n  step a { worker "x"; retry { attempts: 3, '
                 'backof: exponential }; quue_timeout: 2m }\n}\n')
        status, out, err = run('fix', '--color=never', a)
        expect('orbitc: left %s:2:69: the fix of E0303' % a in err
               and '--> %s:2:69' % a in err, err)


@test
def a_second_fix_changes_nothing_after_fixes_were_left():
    """fuzz_fix (fuzz/regressions/fix/): a fix left out in one round was never
    tried again, though with the round's other fixes applied it brought nothing new; a
    second `fix` then applied it."""
    regressions = os.path.join(cli_harness.ROOT, 'fuzz', 'regressions', 'fix')
    for name in sorted(os.listdir(regressions)):
        with tempfile.TemporaryDirectory() as tmp:
            a = os.path.join(tmp, 'a.orbit')
            with open(os.path.join(regressions, name), 'rb') as f:
                data = f.read()
            with open(a, 'wb') as f:
                f.write(data.split(b'\n%%\n')[0])
            run('fix', a)
            status, out, err = run('fix', '--diff', a)
            expect(out == '' and 'nothing to fix' in err, '%s: %s' % (name, out[:500]))


@test
def each_program_root_on_its_own():
    with tempfile.TemporaryDirectory() as tmp:
        for name in ('one', 'two'):
            os.mkdir(os.path.join(tmp, name))
            write(os.path.join(tmp, name, 'orbit.program'), 'program %s {}\n' % name)
            write(os.path.join(tmp, name, 'w.orbit'), TYPOS)
        status, out, err = run('fix', tmp)
        expect(status == 0, err)
        for name in ('one', 'two'):
            expect(read(os.path.join(tmp, name, 'w.orbit')) == FIXED, name)


@test
def each_program_root_with_its_lint_levels():
    """An unused suppression is a warning (W0009) with a fix; a root that allows W0009
    has no such warning, so its file is not touched."""
    suppressed = ('workflow w {\n  // orbit:allow(W0004)\n  step a { sleep 1h }\n}\n')
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in (('quiet', 'program quiet { lints { W0009: allow } }\n'),
                             ('loud', 'program loud {}\n')):
            os.mkdir(os.path.join(tmp, name))
            write(os.path.join(tmp, name, 'orbit.program'), config)
            write(os.path.join(tmp, name, 'w.orbit'), suppressed)
        quiet = os.path.join(tmp, 'quiet', 'w.orbit')
        before = os.stat(quiet)
        status, out, err = run('fix', tmp)
        expect(status == 0 and 'loud/w.orbit: 1 fix (W0009: 1)' in err and 'quiet' not in err, err)
        expect(read(os.path.join(tmp, 'loud', 'w.orbit'))
               == 'workflow w {\n  step a { sleep 1h }\n}\n', read(os.path.join(tmp, 'loud', 'w.orbit')))
        expect(read(quiet) == suppressed and os.stat(quiet).st_mtime_ns == before.st_mtime_ns,
               'quiet/w.orbit was touched')


def corpus_diagnostics(tmp, names):
    """{program: its diagnostics} of one `orbitc check` of every program of the corpus."""
    status, out, err = run('check', '--format=json', '--max-diagnostics=0', *names, cwd=tmp)
    expect(status in (0, 1), 'check exited %d: %s' % (status, err[-2000:]))
    found = {name: [] for name in names}
    for d in map(json.loads, out.splitlines()):
        found[d['file'].split('/')[0]].append(d)
    return found


def corpus_problems(names, tmp, stats):
    """What went wrong when `fix` ran on the generated programs with mistakes, each a
    program of its own in tmp/NAME/ (an empty orbit.program), all in one run of each
    command (orbitc under the sanitizers costs a process start each): the promises of
    fix for each program. Adds to `stats` what it saw."""
    problems = []
    before = corpus_diagnostics(tmp, names)
    status, out, err = run('fix', *names, cwd=tmp)
    if status not in (0, 1):
        return ['fix exited %d: %s' % (status, err[-2000:])]
    after = corpus_diagnostics(tmp, names)
    # "orbitc: left NAME/corpus.orbit:7:7: the fix of E0410 would bring a new E0410"
    left_out = collections.Counter(line[len('orbitc: left '):].split('/')[0]
                                   for line in err.splitlines() if line.startswith('orbitc: left '))
    texts = {}
    for name in names:
        offered = [d for d in before[name]
                   if any(f['applicability'] == 'machine-applicable' for f in d['fixes'])]
        introduced = counted(after[name]) - counted(before[name])
        # of each (code, message), no more may remain than had no fix, but for the fixes
        # that fix reports it left out
        unfixable = counted(before[name]) - counted(offered)
        not_removed = sum((counted(after[name]) - unfixable).values())
        if introduced:
            problems.append('%s: fix introduced %s' % (name, sorted(introduced)))
        elif not_removed > left_out[name]:
            problems.append('%s: %d fixable diagnostics remain, %d reported left out: %s' % (
                name, not_removed, left_out[name], sorted(counted(after[name]) - unfixable)[:5]))
        texts[name] = read(os.path.join(tmp, name, 'corpus.orbit'))
        stats['programs'] += 1
        stats['diagnostics'] += len(before[name])
        stats['offered'] += len(offered)
        stats['left out'] += left_out[name]
        stats['remain'] += len(after[name])
    status2, out2, err2 = run('fix', *names, cwd=tmp)
    changed = [n for n in names if read(os.path.join(tmp, n, 'corpus.orbit')) != texts[n]]
    if changed or 'nothing to fix' not in err2:
        problems.append('a second fix changed %s: %s' % (changed, err2[-2000:]))
    return problems


def corpus_runs(scale):
    """(seed, size, mistakes, CRLF) of the corpus test; ORBIT_FIX_CORPUS_SCALE=N makes
    it N times longer (a run by hand)."""
    runs = [(seed, '20K', 12, seed % 4 == 0) for seed in range(1, 1 + 40 * scale)]
    runs += [(seed, '200K', 80, seed % 2 == 0) for seed in range(1000, 1000 + 4 * scale)]
    return runs


@test
def corpus_with_mistakes():
    stats = collections.Counter()
    scale = int(os.environ.get('ORBIT_FIX_CORPUS_SCALE', '1'))
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for seed, size, errors, crlf in corpus_runs(scale):
            name = 'seed%d' % seed
            os.mkdir(os.path.join(tmp, name))
            write(os.path.join(tmp, name, 'orbit.program'), '')
            subprocess.run([sys.executable, GEN, '--size', size, '--seed', str(seed), '--errors',
                            str(errors), '-o', os.path.join(tmp, name, 'corpus.orbit')]
                           + (['--crlf'] if crlf else []), check=True, stderr=subprocess.DEVNULL)
            names.append(name)
        problems = corpus_problems(names, tmp, stats)
    print('corpus: %s' % ', '.join('%s %d' % kv for kv in sorted(stats.items())))
    expect(stats['offered'] > 0, 'the corpus offered no fix: the test tests nothing')
    expect(not problems, '\n  '.join(problems))


if __name__ == '__main__':
    cli_harness.main()
