"""`orbitc fix` in the golden tests (used by cases.py).

Every golden case whose JSON output offers a machine-applicable fix is also a case of
`fix`: it is copied into a temporary directory and fixed there, and

  NAME.fixed   is the exact text after `orbitc fix` (for a NAME.case directory: each
               file that changed, after a line `=== PATH`)
  NAME.fix     is the exact report of `fix` on standard error, its `orbitc:` lines

Then, as properties of every such case:
  - fixing is idempotent: a second `fix` reports nothing to fix and changes nothing;
  - `fix` introduces no diagnostic (by code and message, counted) that `check` did not
    report before, and every diagnostic that offered a machine-applicable fix is gone,
    but for those whose fix `fix` reports it left out (it would have brought one);
  - `fix --diff` changes no file, and prints a diff exactly when something changes;
  - `fix -` (a single file) prints the same fixed text.
And (checked by cases.py at the end): no golden output offers such a fix for a code not
in FIX_CODES (a new one must be added there, with a case), and, over all cases, every
code of FIX_CODES, the codes whose diagnostics offer a machine-applicable fix somewhere
in the sources, has been fixed in some case.
"""
import collections
import json
import os
import shutil
import tempfile

# The codes with a machine-applicable fix (FIX_MACHINE_APPLICABLE in diag_add_fix, and
# check_add_suggestion, in compiler/), and where:
FIX_CODES = {
    'E0002': 'syntax_error.c, parse_build.c: `=` for `:`, `timeout = 10s`',
    'E0006': 'lexer_literals.c: a duration with a fraction, `1.5s` is `1500ms`',
    'E0008': 'lexer_literals.c: units as written elsewhere, `5sec` is `5s`',
    'E0100': 'lexer.re: `and`/`or`/`not`, kebab-case names, a missing separator; '
             'check_types.c: a field without its `:`',
    'E0103': 'parse_build.c, check_steps.c: `:` after a keyword',
    'E0202': 'check_steps.c: unknown workflow, did you mean',
    'E0203': 'check_steps.c: unknown built-in task, did you mean',
    'E0204': 'check_types.c: unknown type, did you mean',
    'E0205': 'check_types.c: unknown name, did you mean',
    'E0208': 'check_decls.c: unknown declaration, did you mean',
    'E0209': 'check_types.c: unknown function, did you mean',
    'E0303': 'check_steps.c, check_decls.c: unknown member, did you mean',
    'E0306': 'check_steps.c: a target name with or without quotes',
    'E0410': 'check_policy.c, check_steps.c: retry and timeout settings, values, `:`',
    'E0503': 'check_types.c: unknown field in an object, did you mean',
    'E0504': 'check_types.c: no such field, did you mean',
    'E0701': 'program_config.c: orbit.program settings, codes and levels, did you mean',
    'E0801': 'check_tests.c: unknown member of a test, did you mean',
    'E0803': 'check_tests.c: a status word, a code in quotes, did you mean',
    'E0804': 'check_tests.c: unknown workflow, task, step or signal of a test, did you mean',
    'E0809': 'check_tests.c: unknown history event, did you mean',
    'E0812': 'check_tests.c: an unknown name or field in an invariant, did you mean',
    'W0003': 'check_lints.c: a runtime error code, did you mean',
    'W0008': 'suppress.c: unknown code or directive in a suppression, did you mean',
    'W0009': 'suppress.c: an unused suppression, removed',
    'W0011': 'lexer.re: a bidirectional text control in a string, written as its escape',
}
FIX_CODES_SEEN = set()       # codes named in some `fix` report
FIX_CODES_OFFERED = set()    # codes with a machine-applicable fix in some golden output


def machine_fixable(diags):
    return [d for d in diags
            if any(f['applicability'] == 'machine-applicable' for f in d['fixes'])]


def snapshot(root):
    """{relative path: bytes} of every file below root (or the file root)."""
    if os.path.isfile(root):
        with open(root, 'rb') as f:
            return {os.path.basename(root): f.read()}
    files = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, 'rb') as f:
                files[os.path.relpath(path, os.path.dirname(root))] = f.read()
    return files


def fixed_text(before, after, single):
    if single:
        (text,) = after.values()
        return text.decode('utf-8', 'replace')
    out = []
    for path in sorted(after):
        if after[path] != before.get(path):
            out.append('=== %s\n%s' % (path, after[path].decode('utf-8', 'replace')))
    return ''.join(out)


def report_lines(stderr):
    return ''.join(line + '\n' for line in stderr.splitlines() if line.startswith('orbitc:'))


def counted(diags):
    return collections.Counter((d['code'], d['message']) for d in diags)


def check_case(case, stem, run, args, target, diags, compare):
    """Runs `fix` on a copy of the case. `run(cmd, cwd, stdin=None)` runs orbitc and
    returns (status, stdout, stderr); `compare(path, actual)` compares with (or updates)
    an expected file. Returns the problems."""
    problems = []
    offered = machine_fixable(diags)
    FIX_CODES_OFFERED.update(d['code'] for d in offered)
    with tempfile.TemporaryDirectory(prefix='golden-fix-') as tmp:
        copy = os.path.join(tmp, target)
        if os.path.isdir(case):
            shutil.copytree(case, copy)
        else:
            shutil.copy(case, copy)
        before = snapshot(copy)

        status, out, err = run(['fix', '--diff', '--color=never'] + args + [target], tmp)
        if snapshot(copy) != before:
            problems.append('fix --diff changed a file')
        diff_printed = bool(out)

        status, out, err = run(['fix', '--color=never'] + args + [target], tmp)
        after = snapshot(copy)
        compare(stem + '.fixed', fixed_text(before, after, os.path.isfile(case)))
        report = report_lines(err)
        compare(stem + '.fix', report)
        for line in report.splitlines():
            if '(' in line and line.startswith('orbitc: fixed '):
                FIX_CODES_SEEN.update(part.split(':')[0].strip()
                                      for part in line[line.rindex('(') + 1:-1].split(','))
        if diff_printed != (after != before):
            problems.append('fix --diff printed %s, but fix changed %s'
                            % ('a diff' if diff_printed else 'nothing',
                               'files' if after != before else 'nothing'))

        status2, out2, err2 = run(['fix', '--color=never'] + args + [target], tmp)
        if snapshot(copy) != after or 'orbitc: nothing to fix' not in err2:
            problems.append('a second fix is not a no-op:\n' + report_lines(err2))

        status3, out3, err3 = run(['check', '--format=json'] + args + [target], tmp)
        remaining = [json.loads(line) for line in out3.splitlines()]
        introduced = counted(remaining) - counted(diags)
        if introduced:
            problems.append('fix introduced %s' % sorted(introduced))
        # of each (code, message), no more may remain than had no fix before, but for
        # the fixes `fix` reports it left out (they would bring a new diagnostic)
        unfixable = counted(diags) - counted(offered)
        left = counted(remaining) - unfixable
        left_out = collections.Counter(line.split('the fix of ')[1].split()[0]
                                       for line in report.splitlines()
                                       if line.startswith('orbitc: left '))
        left = {k: n for k, n in left.items() if k in counted(offered)}
        for key in sorted(left):
            taken = min(left[key], left_out[key[0]])
            left[key] -= taken
            left_out[key[0]] -= taken
        left = {k: n for k, n in left.items() if n > 0}
        if left:
            problems.append('fixable diagnostics remain: %s' % sorted(left))
        if status3 != status:
            problems.append('fix exits %d, check after it %d' % (status, status3))

        if os.path.isfile(case):
            with open(case, 'rb') as f:
                source = f.read()
            status4, out4, err4 = run(['fix', '--color=never', '--stdin-filename', target]
                                      + args + ['-'], tmp, source)
            if out4 != fixed_text(before, after, True):
                problems.append('fix - printed another text than fix wrote')
    return problems


def coverage_problems(all_cases):
    """What the cases run say about FIX_CODES: a code whose fix some case offers must be
    in it; over all cases, every code in it must have been fixed in some case."""
    problems = []
    missing = sorted((FIX_CODES_OFFERED | set(FIX_CODES)) - FIX_CODES_SEEN)
    if missing and all_cases:
        problems.append('these codes offer a machine-applicable fix, but no golden `fix` '
                        'applies one: %s' % ', '.join(missing))
    unlisted = sorted(FIX_CODES_OFFERED - set(FIX_CODES))
    if unlisted:
        problems.append('these codes offer a machine-applicable fix in a golden output but '
                        'are not in golden/harness/fix.py FIX_CODES: %s' % ', '.join(unlisted))
    return problems
