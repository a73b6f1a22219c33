#!/usr/bin/env python3
"""`orbitc compat OLD NEW` (docs/compat.md) from the command line: the three kinds of
side (.orbc, sources, git:REV[:PATH] of a repository made in a temporary directory) give
the same report; git's failures (not a repository, an unknown revision) and a side that
does not check are status 2; status 0 compatible, 1 breaking, --fail-on; every format:
JSON against docs/compat.schema.json, SARIF 2.1.0 (against the official schema when
tools/install-sarif.sh has installed it), JUnit well-formed and valid against
junit-10.xsd, GitHub annotations; --workflow; and docs/compat.md lists every rule of
compat/rules.def with an example.

    test_compat.py --orbitc build/cli/orbitc [-k NAME]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, run, test
from support.text import write as write_file

ROOT = cli_harness.ROOT
SCHEMA = os.path.join(ROOT, 'docs', 'compat.schema.json')
SARIF_SCHEMA = os.path.join(ROOT, 'build-tools', 'sarif', 'node_modules', '@microsoft',
                            'sarif-multitool-linux', 'sarif-2.1.0.json')
JUNIT_XSD = os.path.join(ROOT, 'tests', 'support', 'schemas', 'junit-10.xsd')
RULES_DEF = os.path.join(ROOT, 'compat', 'rules.def')
DOC = os.path.join(ROOT, 'docs', 'compat.md')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import validate_json  # noqa: E402

OLD = '''workflow checkout {
  input { order_id: string }
  step flaky { worker "pay.flaky"; retry { attempts: 3, backoff: fixed, initial_delay: 40s } }
  step nap { sleep 40s }
  step charge { worker "pay.charge"; with { order_id: input.order_id } }
  step approval { await "approve" }
}

workflow ping {
  step hello { worker "ops.ping" }
}
'''
REMOVED = OLD.replace('  step nap { sleep 40s }\n', '')
RAISED = OLD.replace('attempts: 3,', 'attempts: 5,')


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_file(path, text)


def rules():
    return re.findall(r'^COMPAT_RULE\(\w+, "([a-z-]+)"', open(RULES_DEF).read(), re.M)


def git(*args, cwd):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', GIT_CONFIG_GLOBAL=os.path.join(cwd, '.no-gitconfig'),
               GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.org', GIT_COMMITTER_NAME='t',
               GIT_COMMITTER_EMAIL='t@example.org')
    subprocess.run(['git'] + list(args), cwd=cwd, env=env, check=True, capture_output=True)


def repo(tmp, text=OLD):
    """A repository with flows/checkout.orbit committed as `text` (and a README)."""
    root = os.path.join(tmp, 'repo')
    write(os.path.join(root, 'flows', 'checkout.orbit'), text)
    write(os.path.join(root, 'README'), 'not Orbit\n')
    git('init', '-q', '-b', 'main', cwd=root)
    git('add', '.', cwd=root)
    git('commit', '-q', '-m', 'v1', cwd=root)
    return root


def env(tmp):
    return {'TMPDIR': tmp, 'HOME': tmp, 'GIT_CONFIG_NOSYSTEM': '1',
            'GIT_CONFIG_GLOBAL': os.path.join(tmp, '.no-gitconfig')}


def compat_json(*args, cwd, tmp):
    status, out, err = run('compat', *args, '--format', 'json', cwd=cwd, env_extra=env(tmp))
    expect(status in (0, 1), 'compat %s: %d %s' % (args, status, err))
    return status, json.loads(out)


def verdicts(report):
    return ([(c['rule'], c['level']) for c in report['changes']],
            [(p['id'], p['continue'], p['changes']) for p in report['places']])


@test
def the_three_kinds_of_side_give_the_same_report():
    with tempfile.TemporaryDirectory() as tmp:
        root = repo(tmp)
        write(os.path.join(root, 'flows', 'checkout.orbit'), REMOVED)
        flows = os.path.join(root, 'flows')
        status, out, err = run('build', 'checkout.orbit', '-o', os.path.join(tmp, 'new.orbc'), cwd=flows)
        expect(status == 0, err)
        git('show', 'HEAD:flows/checkout.orbit', cwd=root)
        write(os.path.join(tmp, 'old', 'checkout.orbit'), OLD)
        status, out, err = run('build', 'checkout.orbit', '-o', os.path.join(tmp, 'old.orbc'),
                               cwd=os.path.join(tmp, 'old'))
        expect(status == 0, err)
        reports = []
        for old, new, cwd in [('git:HEAD', 'checkout.orbit', flows),          # file, from its folder
                              ('git:HEAD', '.', flows),                       # directory
                              ('git:HEAD:flows', 'flows', root),              # PATH given
                              ('git:main', 'flows/checkout.orbit', root),
                              (os.path.join(tmp, 'old.orbc'), os.path.join(tmp, 'new.orbc'), tmp)]:
            status, report = compat_json(old, new, cwd=cwd, tmp=tmp)
            expect(status == 1, '%s %s: status %d' % (old, new, status))
            expect(report['old']['label'] == old and report['new']['label'] == new, report['old'])
            reports.append(verdicts(report))
        for r in reports[1:]:
            expect(r == reports[0], 'the sides disagree:\n%s\n%s' % (r, reports[0]))
        changes, places = reports[0]
        expect(('step-removed', 'error') in changes, changes)
        blocked = [p for p, ok, _ in places if not ok]
        expect('checkout/nap#sleep' in blocked and 'checkout/approval#signal' in blocked
               and 'checkout/flaky#backoff:2' not in blocked, blocked)
        # nothing was checked out over the user's files
        expect(open(os.path.join(flows, 'checkout.orbit')).read() == REMOVED, 'the work tree changed')


@test
def git_failures_are_status_2_with_what_git_said():
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, 'plain'))
        write(os.path.join(tmp, 'plain', 'a.orbit'), OLD)
        status, out, err = run('compat', 'git:HEAD', 'a.orbit', cwd=os.path.join(tmp, 'plain'),
                               env_extra=dict(env(tmp), GIT_CEILING_DIRECTORIES=tmp))
        expect(status == 2 and 'git:HEAD' in err and 'not in a git repository' in err, err)
        root = repo(tmp)
        status, out, err = run('compat', 'git:no-such-branch', 'flows', cwd=root, env_extra=env(tmp))
        expect(status == 2 and 'unknown revision `no-such-branch`' in err, err)
        status, out, err = run('compat', 'git:HEAD:nowhere', 'flows', cwd=root, env_extra=env(tmp))
        expect(status == 2 and 'no .orbit file at `nowhere`' in err, err)


@test
def exit_status_and_fail_on():
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in [('old', OLD), ('removed', REMOVED), ('raised', RAISED)]:
            write(os.path.join(tmp, name, 'p.orbit'), text)
        same = run('compat', 'old', 'old', cwd=tmp)
        expect(same[0] == 0 and '0 errors' in same[1], same)
        breaking = run('compat', 'old', 'removed', cwd=tmp)
        expect(breaking[0] == 1 and 'error[step-removed]: step `nap` was removed' in breaking[1]
               and '--> old/p.orbit:' in breaking[1] and 'blocks ' in breaking[1], breaking)
        info = run('compat', 'old', 'raised', cwd=tmp)
        expect(info[0] == 0 and 'info[attempts-raised]' in info[1], info)
        expect(run('compat', 'old', 'raised', '--fail-on', 'info', cwd=tmp)[0] == 1, 'fail-on info')
        expect(run('compat', 'old', 'raised', '--fail-on', 'warning', cwd=tmp)[0] == 0, 'fail-on warning')
        expect(run('compat', 'old', 'removed', '--fail-on', 'bad', cwd=tmp)[0] == 2, 'bad --fail-on')
        expect(run('compat', 'old', cwd=tmp)[0] == 2, 'one side')
        write(os.path.join(tmp, 'broken', 'p.orbit'), 'workflow w {\n  step a { worker }\n}\n')
        status, out, err = run('compat', 'old', 'broken', cwd=tmp)
        expect(status == 2 and 'error[' in err and 'does not check' in err, err)
        write(os.path.join(tmp, 'junk.orbc'), 'not bytecode')
        status, out, err = run('compat', 'junk.orbc', 'old', cwd=tmp)
        expect(status == 2 and 'junk.orbc' in err, err)


@test
def json_follows_its_schema_and_workflow_selects():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'old', 'p.orbit'), OLD)
        write(os.path.join(tmp, 'new', 'p.orbit'), REMOVED.replace('ops.ping', 'ops.pong'))
        status, out, err = run('compat', 'old', 'new', '--format', 'json', cwd=tmp)
        schema, validator = validate_json.load_validator(SCHEMA)
        doc = json.loads(out)
        errors = [e.message for e in validator.iter_errors(doc)]
        expect(status == 1 and not errors, errors[:3])
        s = doc['summary']
        expect(s['places'] == len(doc['places'])
               and s['places_blocked'] == sum(not p['continue'] for p in doc['places'])
               and s['errors'] == sum(c['level'] == 'error' for c in doc['changes']), s)
        for p in doc['places']:
            expect(p['continue'] == (p['changes'] == []), p)
            expect(all(0 <= i < len(doc['changes']) for i in p['changes']), p)
        status, out, err = run('compat', 'old', 'new', '--format', 'json', '--workflow', 'ping', cwd=tmp)
        only = json.loads(out)
        expect({p['workflow'] for p in only['places']} == {'ping'}, only['places'])
        expect(all(c['workflow'] in ('ping', None) for c in only['changes']), only['changes'])
        expect(any(c['rule'] == 'step-target-changed' for c in only['changes']), only['changes'])
        status, out, err = run('compat', 'old', 'new', '--workflow', 'pong', cwd=tmp)
        expect(status == 2 and 'neither side has a workflow `pong`' in err, (status, err))


def sarif_problems(log):
    problems = []
    if os.path.exists(SARIF_SCHEMA):
        import jsonschema
        with open(SARIF_SCHEMA, encoding='utf-8-sig') as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        problems += [e.message for e in validator.iter_errors(log)][:3]
    run0 = log['runs'][0]
    ids = [r['id'] for r in run0['tool']['driver']['rules']]
    if log.get('version') != '2.1.0' or ids != rules():
        problems.append('version %s, rules %s' % (log.get('version'), ids))
    for r in run0['results']:
        if ids[r['ruleIndex']] != r['ruleId'] or r['level'] not in ('error', 'warning', 'note'):
            problems.append('result %s' % r)
    return problems


def xmllint():
    return shutil.which('xmllint')


@test
def ci_formats():
    with tempfile.TemporaryDirectory() as tmp:
        write(os.path.join(tmp, 'old', 'p.orbit'), OLD)
        write(os.path.join(tmp, 'new', 'p.orbit'), REMOVED)
        status, out, err = run('compat', 'old', 'new', '--format', 'sarif', cwd=tmp)
        log = json.loads(out)
        expect(status == 1 and not sarif_problems(log), sarif_problems(log))
        results = log['runs'][0]['results']
        expect(any(r['ruleId'] == 'step-removed' and r['level'] == 'error'
                   and r['locations'][0]['physicalLocation']['artifactLocation']['uri'] == 'old/p.orbit'
                   for r in results), results)
        status, out, err = run('compat', 'old', 'new', '--format', 'github', cwd=tmp)
        expect(status == 1 and any(line.startswith('::error file=old/p.orbit,line=4,col=3,title=step-removed::')
                                   for line in out.splitlines()), out)
        status, out, err = run('compat', 'old', 'new', '--format', 'junit', cwd=tmp)
        root = ET.fromstring(out)
        suites = root.findall('testsuite')
        expect(status == 1 and len(suites) == 2, out[:500])
        failed = [c.get('name') for c in root.iter('testcase') if c.find('failure') is not None]
        expect('checkout/nap#sleep' in failed and 'step `nap` was removed' in failed, failed)
        expect(int(root.get('failures')) == len(failed), root.attrib)
        if xmllint():
            for case in root.iter('testcase'):
                case.attrib.pop('file', None)
                case.attrib.pop('line', None)
            path = os.path.join(tmp, 'junit.xml')
            write(path, ET.tostring(root, encoding='unicode'))
            p = subprocess.run([xmllint(), '--noout', '--schema', JUNIT_XSD, path],
                               capture_output=True, text=True, timeout=60)
            expect(p.returncode == 0, p.stderr)


@test
def the_docs_show_every_rule():
    text = open(DOC, encoding='utf-8').read()
    for rule in rules():
        m = re.search(r'^#### `%s`\n(.*?)(?=^#|\Z)' % re.escape(rule), text, re.M | re.S)
        expect(m, 'docs/compat.md has no section `#### `%s``' % rule)
        expect('→' in m.group(1), 'docs/compat.md: rule %s has no example (old → new → verdict)' % rule)


if __name__ == '__main__':
    cli_harness.main()
