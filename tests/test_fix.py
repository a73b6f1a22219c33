#!/usr/bin/env python3
"""`orbitc fix` as users meet it (docs/cli.md, "Fixing"), and its properties over the
generated corpus with mistakes (tools/gen_corpus.py --errors N): fix never brings a
diagnostic (by code and message, counted) that was not there, removes every one that
offered a machine-applicable fix but for those it reports it left out, and a second fix
changes nothing. The golden cases (tools/golden_fix.py) pin the exact results.

    test_fix.py --orbitc PATH
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import cli_harness
from cli_harness import expect, run, test, write

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
        status, out, err = run('fix', tmp)
        expect(status == 0 and out == '', 'status %d, stdout %r' % (status, out))
        expect('fixed %s: 2 fixes (E0410: 2)' % a in err, 'report: %s' % err)
        expect(read(a) == FIXED, 'a.orbit: %r' % read(a))
        expect(os.stat(a).st_mode & 0o777 == 0o640, 'the permissions changed')
        expect(os.stat(b).st_mtime == 1000000000, 'b.orbit, unchanged, was written')
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


def corpus_property(seed, size, errors, tmp):
    path = os.path.join(tmp, 'corpus_%d.orbit' % seed)
    subprocess.run([sys.executable, GEN, '--size', size, '--seed', str(seed), '--errors',
                    str(errors), '-o', path], check=True)
    _, before = diagnostics(path)
    offered = [d for d in before
               if any(f['applicability'] == 'machine-applicable' for f in d['fixes'])]
    status, out, err = run('fix', path)
    if status not in (0, 1):
        return 'seed %d: fix exited %d: %s' % (seed, status, err[-2000:])
    _, after = diagnostics(path)
    introduced = counted(after) - counted(before)
    if introduced:
        return 'seed %d: fix introduced %s' % (seed, sorted(introduced))
    left_out = sum(line.startswith('orbitc: left ') for line in err.splitlines())
    remaining = counted(after) & counted(offered)
    unfixable = counted(before) - counted(offered)
    not_removed = sum((counted(after) - unfixable).values()) if remaining else 0
    if not_removed > left_out:
        return 'seed %d: %d fixable diagnostics remain, %d reported left out: %s' % (
            seed, not_removed, left_out, sorted(counted(after) - unfixable)[:5])
    text = read(path)
    status2, out2, err2 = run('fix', path)
    if read(path) != text or 'nothing to fix' not in err2:
        return 'seed %d: a second fix changed the file' % seed
    return None


@test
def corpus_with_mistakes():
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = [(seed, '20K', 12) for seed in range(1, 41)]
        runs += [(seed, '200K', 80) for seed in range(100, 104)]
        for seed, size, errors in runs:
            problem = corpus_property(seed, size, errors, tmp)
            if problem:
                problems.append(problem)
    expect(not problems, '\n  '.join(problems))


if __name__ == '__main__':
    cli_harness.main()
