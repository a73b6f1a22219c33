"""The formats for CI systems in the golden tests (used by cases.py).

For every golden case, `orbitc check --format=github|gitlab|sarif` must agree with
`--format=json`: the same diagnostics, in the same order, with the same code, severity
and position, and the same exit status. On top of that:

  github   one workflow command per diagnostic, escaped as GitHub asks
  gitlab   a JSON array of Code Quality issues with unique fingerprints
  sarif    valid against the official SARIF 2.1.0 schema (sarif-2.1.0.json of the npm
           package @microsoft/sarif-multitool-linux, Draft 2020-12), and then, all cases
           at once, accepted by the SARIF Multitool's `validate` with no error-level
           result (tools/install-sarif.sh installs both into build-tools/sarif/)

The exact output is compared with expected files for a representative set, the areas in
EXACT_AREAS (and any case that has the file): NAME.github, NAME.gitlab.json and
NAME.sarif-results.json (the `results` of the SARIF run without `ruleIndex`, which moves
when a code is registered; the rest of the log is the same for every case and depends on
the working directory).

Without the SARIF tools the schema and Multitool checks are skipped with a note, unless
ORBIT_REQUIRE_SARIF_TOOLS=1 (tools/test.sh sets it).
"""
import json
import os
import re
import subprocess
import tempfile

GOLDEN = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(GOLDEN))
SARIF_DIR = os.path.join(ROOT, 'build-tools', 'sarif', 'node_modules', '@microsoft',
                         'sarif-multitool-linux')
SARIF_SCHEMA = os.path.join(SARIF_DIR, 'sarif-2.1.0.json')
MULTITOOL = os.path.join(SARIF_DIR, 'Sarif.Multitool')
EXACT_AREAS = ('ci', 'lints', 'newuser')
CANARY = 'zz-canary-must-fail.sarif'

GITHUB_LINE = re.compile(
    r'^::(error|warning) (?:file=([^,]*),line=(\d+),col=(\d+),endLine=(\d+),endColumn=(\d+),)?'
    r'title=([^,:]*)::(.*)$')


def tools_required():
    return os.environ.get('ORBIT_REQUIRE_SARIF_TOOLS') == '1'


def load_sarif_validator():
    """A Draft 2020-12 validator of the official schema, or None when it is missing."""
    if not os.path.exists(SARIF_SCHEMA):
        return None
    import jsonschema
    with open(SARIF_SCHEMA, encoding='utf-8-sig') as f:
        schema = json.load(f)
    declared = schema.get('$schema', '')
    if '2020-12' not in declared:
        raise SystemExit('golden: %s declares %r, not Draft 2020-12' % (SARIF_SCHEMA, declared))
    validator = jsonschema.Draft202012Validator(schema)
    if validator.is_valid({'version': '2.1.0', 'runs': [{'tool': {}}]}):  # no tool.driver
        raise SystemExit('golden: the SARIF schema accepts an invalid log: is %s right?' % SARIF_SCHEMA)
    return validator


def multitool_available():
    return os.access(MULTITOOL, os.X_OK)


def unescape_github(text):
    return (text.replace('%0D', '\r').replace('%0A', '\n').replace('%3A', ':')
            .replace('%2C', ',').replace('%25', '%'))


def check_github(text, diags, problems):
    lines = text.splitlines()
    if len(lines) != len(diags):
        problems.append('github: %d lines for %d diagnostics' % (len(lines), len(diags)))
        return
    for n, (line, d) in enumerate(zip(lines, diags), 1):
        m = GITHUB_LINE.match(line)
        if not m:
            problems.append('github line %d is not a workflow command: %s' % (n, line[:200]))
            continue
        severity, path, l, c, el, ec, title, message = m.groups()
        if '\r' in message or any(ch in message for ch in '\n') or re.search(r'%(?!25|0A|0D)', message):
            problems.append('github line %d: message not escaped' % n)
        got = (severity, unescape_github(path or ''), int(l or 0), int(c or 0),
               int(el or 0), int(ec or 0), unescape_github(title))
        want = (d['severity'], d['file'], d['line'], d['column'], d['end_line'],
                d['end_column'], d['code'])
        if got != want:
            problems.append('github line %d: %r, json says %r' % (n, got, want))
        if not unescape_github(message).startswith(d['message']):
            problems.append('github line %d: message does not start with the JSON message' % n)


def check_fingerprints(fingerprints, what, problems):
    if len(set(fingerprints)) != len(fingerprints):
        problems.append('%s: fingerprints are not unique' % what)


def check_gitlab(text, diags, problems):
    try:
        issues = json.loads(text)
    except ValueError as e:
        problems.append('gitlab: not JSON: %s' % e)
        return
    if not isinstance(issues, list) or len(issues) != len(diags):
        problems.append('gitlab: not an array of %d issues' % len(diags))
        return
    for n, (issue, d) in enumerate(zip(issues, diags), 1):
        try:
            got = (issue['check_name'], issue['severity'], issue['location']['lines']['begin'],
                   issue['description'].split('\n')[0], issue['type'])
            path = issue['location']['path']
            fingerprint = issue['fingerprint']
        except (KeyError, TypeError, AttributeError) as e:
            problems.append('gitlab issue %d: missing %s' % (n, e))
            continue
        want = (d['code'], 'major' if d['severity'] == 'error' else 'minor', d['line'],
                d['message'].split('\n')[0], 'issue')
        if got != want:
            problems.append('gitlab issue %d: %r, json says %r' % (n, got, want))
        if not isinstance(path, str) or not isinstance(fingerprint, str) or not fingerprint:
            problems.append('gitlab issue %d: path or fingerprint is not a string' % n)
    check_fingerprints([i.get('fingerprint') for i in issues], 'gitlab', problems)


def check_sarif(text, diags, validator, problems):
    """Returns the `results` of the log (or None when it is not JSON)."""
    try:
        log = json.loads(text)
    except ValueError as e:
        problems.append('sarif: not JSON: %s' % e)
        return None
    if validator is not None:
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
        for e in errors[:3]:
            problems.append('sarif: schema: %s at %s' % (e.message[:300], list(e.absolute_path)))
        if errors:
            return None
    run = log['runs'][0]
    results = run.get('results', [])
    rules = run['tool']['driver']['rules']
    if len(results) != len(diags):
        problems.append('sarif: %d results for %d diagnostics' % (len(results), len(diags)))
        return results
    for n, (r, d) in enumerate(zip(results, diags), 1):
        region = r['locations'][0]['physicalLocation']['region'] if r.get('locations') else {}
        got = (r['ruleId'], rules[r['ruleIndex']]['id'], r['level'], region.get('startLine'),
               r['message']['text'].split('\n')[0])
        want = (d['code'], d['code'], d['severity'], d['line'], d['message'].split('\n')[0])
        if got != want:
            problems.append('sarif result %d: %r, json says %r' % (n, got, want))
        if len(r.get('fixes', [])) != len(d['fixes']):
            problems.append('sarif result %d: %d fixes, json has %d'
                            % (n, len(r.get('fixes', [])), len(d['fixes'])))
    check_fingerprints([r['partialFingerprints']['primaryLocationLineHash'] for r in results],
                       'sarif', problems)
    return results


def check_case(case, stem, run, cmd_args, target, json_status, diags, update, compare,
               sarif_validator, sarif_store):
    """Runs the three formats of one case; returns its problems. `run(cmd)` runs orbitc in
    the case's directory; `compare(path, actual)` compares with (or updates) a file."""
    problems = []
    outputs = {}
    for fmt in ('github', 'gitlab', 'sarif'):
        status, out, err = run(cmd_args + ['--format=' + fmt, target])
        if err:
            problems.append('%s mode wrote to stderr:\n%s' % (fmt, err[:2000]))
        if status != json_status:
            problems.append('%s: exit status %d, json gave %d' % (fmt, status, json_status))
        outputs[fmt] = out
    check_github(outputs['github'], diags, problems)
    check_gitlab(outputs['gitlab'], diags, problems)
    results = check_sarif(outputs['sarif'], diags, sarif_validator, problems)
    sarif_store(case, outputs['sarif'])

    area = os.path.relpath(case, GOLDEN).split(os.sep)[0]
    exact = area in EXACT_AREAS
    for suffix, text in (('.github', outputs['github']), ('.gitlab.json', outputs['gitlab'])):
        if exact or os.path.exists(stem + suffix):
            compare(stem + suffix, text)
    if results is not None and (area == 'ci' or os.path.exists(stem + '.sarif-results.json')):
        # ruleIndex left out: it moves whenever a code is registered (it is checked above)
        kept = [{k: v for k, v in r.items() if k != 'ruleIndex'} for r in results]
        compare(stem + '.sarif-results.json', json.dumps(kept, indent=2, ensure_ascii=False) + '\n')
    return problems


class SarifStore:
    """Keeps each case's SARIF log in a temporary directory for one Multitool run."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory(prefix='golden-sarif-')
        self.cases = {}

    def __call__(self, case, text):
        name = os.path.relpath(case, GOLDEN).replace(os.sep, '__') + '.sarif'
        with open(os.path.join(self.dir.name, name), 'w', encoding='utf-8') as f:
            f.write(text)
        self.cases[name] = os.path.relpath(case, GOLDEN)

    def validate(self):
        """Runs `Sarif.Multitool validate` over every stored log. Returns {case: [problems]}
        for results of level error, and the count of warnings (printed, not failed)."""
        out = os.path.join(self.dir.name, 'validation.sarif')
        env = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT='1',
                   DOTNET_CLI_TELEMETRY_OPTOUT='1')
        files = sorted(os.path.join(self.dir.name, n) for n in self.cases)
        files.append(self.write_canary())
        # The files first: an option after them would take a file name as its value.
        p = subprocess.run([MULTITOOL, 'validate'] + files + ['--output', out, '--level',
                           'Error;Warning', '--quiet'], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=1800)
        if p.returncode != 0 or not os.path.exists(out):
            return {'(multitool)': ['Sarif.Multitool validate failed (exit %d):\n%s'
                                    % (p.returncode, p.stdout.decode('utf-8', 'replace')[-3000:])]}, 0
        with open(out, encoding='utf-8-sig') as f:
            log = json.load(f)
        failures = {}
        warnings = 0
        canary_caught = False
        for result in log['runs'][0].get('results', []):
            level = result.get('level', 'warning')
            locations = result.get('locations') or [{}]
            uri = locations[0].get('physicalLocation', {}).get('artifactLocation', {}).get('uri', '')
            if os.path.basename(uri) == CANARY:
                canary_caught = canary_caught or (level == 'error' and result.get('ruleId') == 'SARIF1007')
                continue
            name = self.cases.get(os.path.basename(uri), uri)
            text = '%s %s: %s' % (result.get('ruleId'), level,
                                  json.dumps(result.get('message', {}))[:400])
            if level == 'error':
                failures.setdefault(name, []).append(text)
            else:
                warnings += 1
                print('golden: note: Sarif.Multitool %s: %s' % (name, text))
        if not canary_caught:
            failures['(multitool)'] = ['Sarif.Multitool found no SARIF1007 error in %s, a log '
                                       'made invalid on purpose: the validation does not work' % CANARY]
        return failures, warnings

    def write_canary(self):
        """A log the Multitool must reject (SARIF1007: a region that ends before it
        starts), to show that its silence about the others means something."""
        with open(os.path.join(self.dir.name, sorted(self.cases)[0]), encoding='utf-8') as f:
            log = json.load(f)
        region = {'startLine': 1, 'startColumn': 9, 'endLine': 1, 'endColumn': 3}
        location = {'physicalLocation': {'artifactLocation': {'uri': 'canary.orbit'},
                                         'region': region}}
        log['runs'][0]['results'] = [{'ruleId': 'E0001', 'ruleIndex': 0, 'level': 'error',
                                      'message': {'text': 'canary'}, 'locations': [location]}]
        path = os.path.join(self.dir.name, CANARY)
        with open(path, 'w', encoding='utf-8') as f:
            json.dump(log, f)
        return path
