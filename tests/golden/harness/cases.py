#!/usr/bin/env python3
"""Golden ("UI") tests of `orbitc check` and `build`: source in, exact output out (run by
tests/golden/golden.py).

A case is tests/golden/AREA/NAME.orbit (tests/golden/run/ holds runtime cases, see runs.py;
tests/golden/fmt/ the formatter's, see fmt.py) (or a directory tests/golden/AREA/NAME.case/ holding
several .orbit files, checked together). Beside it:

  NAME.human   exact stderr of `orbitc check --color=never NAME.orbit`
  NAME.jsonl   exact stdout of `orbitc check --format=json NAME.orbit`
  NAME.dis     (optional) exact `orbitc dis` of `orbitc build NAME.orbit -o TMP`;
               the build is done twice and must give identical bytes; the file's
               `orbitc dis --format json` must match docs/orbc.schema.json and encode
               back to the same bytes (tools/orbc_json.py)
  NAME.github, NAME.gitlab.json, NAME.sarif-results.json
               the formats for CI systems, checked for every case against the JSON
               output and compared exactly for a representative set
               (formats.py); every SARIF log is validated with the official
               schema and the SARIF Multitool
  NAME.fixed, NAME.fix
               for a case that offers a machine-applicable fix: the text after
               `orbitc fix` and its report (fix.py, which also checks
               that fixing is idempotent and introduces nothing)
  NAME.build.human, NAME.build.jsonl
               (optional, for programs that check clean but cannot be built: the
               limits of the bytecode format, E06xx) exact stderr of
               `orbitc build --color=never` and stdout of `orbitc build --format=json`;
               the build must fail with exit status 1 and write nothing

Commands run with tests/golden/AREA as the working directory. A first line
`// golden-args: ARGS` adds arguments to check and build. The exit status must be 1 when
there are errors (or warnings under --deny-warnings) and 0 otherwise; JSON lines must
validate against docs/diagnostics.schema.json; nothing may mention a sanitizer.
--update rewrites the expected files from the actual output: read the diff before
committing it.
"""
import concurrent.futures
import difflib
import json
import os
import shlex
import subprocess
import sys
import tempfile

from harness import fix as golden_fix
from harness import formats as golden_formats

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(GOLDEN))
SCHEMA = os.path.join(ROOT, 'docs', 'diagnostics.schema.json')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import orbc_json  # noqa: E402
ORBC_SCHEMA = orbc_json.load_schema()
from harness.runs import SANITIZER_EXIT, run_program  # noqa: E402

ENV = dict(os.environ)
ENV.pop('NO_COLOR', None)


def load_validator():
    try:
        import jsonschema
    except ImportError:
        return None
    if not os.path.exists(SCHEMA):
        return None
    with open(SCHEMA, encoding='utf-8') as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def find_cases(selectors):
    cases = []
    for dirpath, dirnames, filenames in os.walk(GOLDEN):
        if dirpath == GOLDEN and 'run' in dirnames:
            dirnames.remove('run')  # runtime cases: runs.py
        if dirpath == GOLDEN and 'fmt' in dirnames:
            dirnames.remove('fmt')  # formatter cases: fmt.py
        if dirpath == GOLDEN and 'compat' in dirnames:
            dirnames.remove('compat')  # orbitc compat's cases: compat.py
        if dirpath == GOLDEN and 'replay' in dirnames:
            dirnames.remove('replay')  # replay cases: replays.py
        dirnames.sort()
        for d in list(dirnames):
            if d.endswith('.case'):
                cases.append(os.path.join(dirpath, d))
                dirnames.remove(d)
        for name in sorted(filenames):
            if name.endswith('.orbit'):
                cases.append(os.path.join(dirpath, name))
    if selectors:
        wanted = []
        for sel in selectors:  # a path, or a path relative to tests/golden/ ("e0410", "e0410/x.orbit")
            under = os.path.join(GOLDEN, sel)
            path = under if os.path.exists(under) else os.path.abspath(sel)
            wanted.append(path.rstrip('/'))
        cases = [c for c in cases
                 if any(c == w or c.startswith(w + '/') or os.path.splitext(c)[0] == w
                        for w in wanted)]
    return cases


def case_args(case):
    first = case
    if os.path.isdir(case):
        files = sorted(f for f in os.listdir(case) if f.endswith('.orbit'))
        if not files:
            return []
        first = os.path.join(case, files[0])
    with open(first, 'rb') as f:
        line = f.readline().decode('utf-8', 'replace').strip()
    prefix = '// golden-args:'
    return shlex.split(line[len(prefix):]) if line.startswith(prefix) else []


def run(cmd, cwd, stdin=None):
    p = run_program(cmd, cwd=cwd, env=ENV, input=stdin if stdin is not None else b'',
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def compare(path, actual, update, problems):
    if update:
        if not os.path.exists(path) or open(path, encoding='utf-8', newline='').read() != actual:
            with open(path, 'w', encoding='utf-8', newline='') as f:
                f.write(actual)
        return
    if not os.path.exists(path):
        problems.append('missing expected file %s (run with --update, then read it)'
                        % os.path.relpath(path, ROOT))
        return
    with open(path, encoding='utf-8', newline='') as f:
        expected = f.read()
    if expected != actual:
        diff = difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                    'expected ' + os.path.relpath(path, ROOT), 'actual')
        problems.append(''.join(diff))


def sanitizer_problem(status, *texts):
    if status == SANITIZER_EXIT or status < 0:
        return 'crashed or sanitizer report (exit %d)' % status
    for t in texts:
        if 'Sanitizer' in t or 'runtime error:' in t:
            return 'sanitizer report'
    return None


def expected_exit(json_lines, args):
    severities = [d.get('severity') for d in json_lines]
    if 'error' in severities:
        return 1
    if '--deny-warnings' in args and 'warning' in severities:
        return 1
    return 0


def parse_jsonl(text, validator, what, problems):
    """The objects of JSON-lines output; each line must parse and match the schema."""
    parsed = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            obj = json.loads(line)
        except ValueError as e:
            problems.append('%s line %d is not JSON: %s' % (what, n, e))
            continue
        parsed.append(obj)
        if validator is not None:
            errors = sorted(validator.iter_errors(obj), key=lambda e: list(e.path))
            if errors:
                problems.append('%s line %d does not match the schema: %s at %s'
                                % (what, n, errors[0].message, list(errors[0].path)))
    return parsed


# Under the sanitizers' setup (tests/meson.build: ORBIT_CORPUS_SAMPLE=3) the CI formats
# (GitHub, GitLab, SARIF) of every third case only, and of every case of golden/ci/: the
# same renderers run on every case's diagnostics, which the human and JSON outputs of
# every case already take through the checker under the sanitizers; the plain run checks
# every format of every case.
FORMAT_SAMPLE = max(1, int(os.environ.get('ORBIT_CORPUS_SAMPLE') or 1))


def with_formats(index, case):
    return index % FORMAT_SAMPLE == 0 or os.path.relpath(case, GOLDEN).split(os.sep)[0] == 'ci'


def run_case(case, orbitc, update, validator, sarif_validator, sarif_store, formats=True):
    problems = []
    cwd = os.path.dirname(case)
    target = os.path.basename(case)
    stem = os.path.splitext(case)[0]
    args = case_args(case)

    status_h, out_h, err_h = run([orbitc, 'check', '--color=never'] + args + [target], cwd)
    status_j, out_j, err_j = run([orbitc, 'check', '--format=json'] + args + [target], cwd)
    for status, texts in ((status_h, (out_h, err_h)), (status_j, (out_j, err_j))):
        bad = sanitizer_problem(status, *texts)
        if bad:
            return [bad + ':\n' + texts[1][-4000:]]
    if out_h:
        problems.append('human mode wrote to stdout:\n' + out_h[:2000])
    if err_j:
        problems.append('json mode wrote to stderr:\n' + err_j[:2000])

    parsed = parse_jsonl(out_j, validator, 'jsonl', problems)
    want = expected_exit(parsed, args)
    if status_h != want or status_j != want:
        problems.append('exit status %d (human) / %d (json), expected %d'
                        % (status_h, status_j, want))

    compare(stem + '.human', err_h, update, problems)
    compare(stem + '.jsonl', out_j, update, problems)

    def run_format(format_args):
        status, out, err = run([orbitc, 'check'] + format_args, cwd)
        bad = sanitizer_problem(status, out, err)
        if bad:
            problems.append(bad + ':\n' + err[-4000:])
        return status, out, err
    if formats:
        problems += golden_formats.check_case(
            case, stem, run_format, args, target, status_j, parsed, update,
            lambda path, actual: compare(path, actual, update, problems),
            sarif_validator, sarif_store)

    if golden_fix.machine_fixable(parsed) or os.path.exists(stem + '.fixed'):
        def run_fix(fix_args, fix_cwd, stdin=None):
            status, out, err = run([orbitc] + fix_args, fix_cwd, stdin)
            bad = sanitizer_problem(status, out, err)
            if bad:
                problems.append(bad + ':\n' + err[-4000:])
            return status, out, err
        problems += golden_fix.check_case(
            case, stem, run_fix, args, target, parsed,
            lambda path, actual: compare(path, actual, update, problems))

    if os.path.exists(stem + '.build.human'):
        problems += build_fails(orbitc, cwd, target, args, stem, update, validator)
    elif os.path.exists(stem + '.dis') or (update and '/build/' in case and want == 0):
        problems += build_and_dis(orbitc, cwd, target, args, stem, update)
    return problems


def build_fails(orbitc, cwd, target, args, stem, update, validator):
    """A program that checks clean but exceeds a limit of the bytecode format."""
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'a.orbc')
        status_h, so_h, se_h = run([orbitc, 'build', '--color=never'] + args + [target, '-o', out], cwd)
        status_j, so_j, se_j = run([orbitc, 'build', '--format=json'] + args + [target, '-o', out], cwd)
        for status, texts in ((status_h, (so_h, se_h)), (status_j, (so_j, se_j))):
            bad = sanitizer_problem(status, *texts)
            if bad:
                return [bad + ':\n' + texts[1][-4000:]]
        if status_h != 1 or status_j != 1:
            problems.append('build exit status %d (human) / %d (json), expected 1'
                            % (status_h, status_j))
        if os.path.exists(out):
            problems.append('a failed build wrote its output file')
        parse_jsonl(so_j, validator, 'build jsonl', problems)
        compare(stem + '.build.human', se_h, update, problems)
        compare(stem + '.build.jsonl', so_j, update, problems)
    return problems


def build_and_dis(orbitc, cwd, target, args, stem, update):
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        outs = [os.path.join(tmp, 'a.orbc'), os.path.join(tmp, 'b.orbc')]
        for out in outs:
            status, so, se = run([orbitc, 'build'] + args + [target, '-o', out], cwd)
            bad = sanitizer_problem(status, so, se)
            if bad or status != 0:
                return ['build failed (exit %d): %s' % (status, (bad or '') + se[-3000:])]
        with open(outs[0], 'rb') as a, open(outs[1], 'rb') as b:
            if a.read() != b.read():
                problems.append('two builds of the same source differ')
        status, so, se = run([orbitc, 'dis', outs[0]], cwd)
        bad = sanitizer_problem(status, so, se)
        if bad or status != 0:
            return problems + ['dis failed (exit %d): %s' % (status, (bad or '') + se[-3000:])]
        compare(stem + '.dis', so, update, problems)
        problems += orbc_json.check_dump(orbitc, outs[0], ORBC_SCHEMA, cwd)[1]
    return problems


def run_all(orbitc, update, jobs, selectors):
    """Runs the cases (all, or those the selectors name); prints each failure, returns
    (passed, failed)."""
    validator = load_validator()
    if validator is None:
        print('golden: note: JSON Schema validation skipped (python3-jsonschema or schema missing)')

    sarif_validator = golden_formats.load_sarif_validator()
    use_multitool = golden_formats.multitool_available()
    if sarif_validator is None or not use_multitool:
        if golden_formats.tools_required():
            print('golden: the SARIF tools are missing: run tools/install-sarif.sh')
            sys.exit(1)
        print('golden: note: SARIF schema and Multitool checks skipped (run tools/install-sarif.sh)')
    sarif_store = golden_formats.SarifStore()

    cases = find_cases(selectors)
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [(c, pool.submit(run_case, c, orbitc, update, validator, sarif_validator,
                                   sarif_store, update or with_formats(i, c)))
                   for i, c in enumerate(cases)]
        for case, fut in futures:
            try:
                problems = fut.result()
            except subprocess.TimeoutExpired:
                problems = ['timed out']
            name = os.path.relpath(case, GOLDEN)
            if problems:
                failed += 1
                print('FAIL %s' % name)
                for p in problems:
                    print('  ' + p.replace('\n', '\n  ').rstrip())
            else:
                passed += 1
    for p in golden_fix.coverage_problems(all_cases=not selectors):
        failed += 1
        print('FAIL (fix coverage)\n  ' + p)
    if use_multitool and cases:
        failures, warnings = sarif_store.validate()
        for name, problems in sorted(failures.items()):
            failed += 1
            print('FAIL %s (Sarif.Multitool validate)' % name)
            for p in problems:
                print('  ' + p.replace('\n', '\n  ').rstrip())
        print('golden: Sarif.Multitool validate: %d logs, %d error-level results, %d warnings'
              % (len(sarif_store.cases), sum(len(p) for p in failures.values()), warnings))
    if not cases:
        failed += 1
        print('FAIL no golden case found')
    return passed, failed
