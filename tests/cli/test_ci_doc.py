#!/usr/bin/env python3
"""The CI jobs of docs/ci.md, run as written against a copy of examples/ (and the same
with a mistake in it), as a new user's CI would run them:

  - the GitHub Actions job: its `run:` steps in order (checks, SARIF, formatting), in `bash -eo pipefail` as GitHub
    does, `if: always()` honoured, $GITHUB_PATH applied between steps; the checkouts are
    the copy (and a link to this repository as .orbitc-src); the SARIF upload is replaced
    by validating the file against the SARIF schema when tools/install-sarif.sh has
    installed it;
  - the GitLab job: its `script:` lines in one shell that stops at the first failure,
    and the Code Quality report it leaves;
  - every `run:` or `script:` command of the document is one of those (none untested);
  - the hooks of the repository's .pre-commit-hooks.yaml are the document's table (the
    hooks themselves run through the real `pre-commit` on the npm packages in
    tests/install/test_npm.py, the suite `packages`: they install the npm package).

The package installation step (apt-get) is not run: the test must not change the
machine, and tools/install-deps.sh has installed those packages. The build steps run
as written when ORBIT_CI_DOC_BUILD=1 (a full build of orbitc, minutes); otherwise the
orbitc under test stands in for their result.

    test_ci_doc.py --orbitc PATH
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import yaml

import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import cli as cli_harness
from support.cli import expect, test

ROOT = cli_harness.ROOT
DOC = os.path.join(ROOT, 'docs', 'ci.md')
SARIF_SCHEMA = os.path.join(ROOT, 'build-tools', 'sarif', 'node_modules', '@microsoft',
                            'sarif-multitool-linux', 'sarif-2.1.0.json')
BUILD = os.environ.get('ORBIT_CI_DOC_BUILD') == '1'


def yaml_blocks():
    with open(DOC, encoding='utf-8') as f:
        text = f.read()
    return [yaml.safe_load(block) for block in re.findall(r'```yaml\n(.*?)```', text, re.S)]


def commands(node):
    """Every `run:` and `script:` command below a parsed YAML block."""
    if isinstance(node, dict):
        found = []
        for key, value in node.items():
            if key == 'run' and isinstance(value, str):
                found.append(value)
            elif key == 'script' and isinstance(value, list):
                found += value
            else:
                found += commands(value)
        return found
    if isinstance(node, list):
        return [c for item in node for c in commands(item)]
    return []


def github_job(name='orbitc'):
    """The job `name` of the document's GitHub workflows: `orbitc` (checks, SARIF,
    formatting) or `compat` (orbitc compat against origin/main)."""
    (job,) = [b['jobs'][name] for b in yaml_blocks()
              if isinstance(b, dict) and name in b.get('jobs', {})]
    return job


def gitlab_job():
    (config,) = [b for b in yaml_blocks() if isinstance(b, dict) and 'orbitc' in b
                 and 'script' in b['orbitc']]
    return config['orbitc']


def is_install(command):
    return 'apt-get' in command


def is_build(command):
    return 'meson' in command or 'GITHUB_PATH' in command or '.orbitc-build' in command


def workspace(tmp, mistake):
    """A copy of examples/ as the repository, with orbitc's source beside it."""
    ws = os.path.join(tmp, 'repo')
    shutil.copytree(os.path.join(ROOT, 'examples'), ws,
                    ignore=shutil.ignore_patterns('liborbc'))
    if mistake:
        path = os.path.join(ws, 'checkout.orbit')
        with open(path, encoding='utf-8') as f:
            text = f.read()
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text.replace('backoff: exponential', 'backof: exponential', 1))
    os.symlink(ROOT, os.path.join(ws, '.orbitc-src'))
    return ws


def unformatted(path):
    """Spoils the layout of a file: one more space after each `:` of the first lines."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    lines = [line.replace(': ', ':  ') if i < 20 else line for i, line in enumerate(lines)]
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines))


def environment(tmp):
    env = dict(os.environ)
    for name in ('NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'):
        env.pop(name, None)
    env['HOME'] = tmp
    if not BUILD:   # the orbitc under test stands in for the build steps
        env['PATH'] = os.path.dirname(cli_harness.ORBITC) + os.pathsep + env['PATH']
    return env


def run_github(ws, env, job=None):
    """Runs the job's steps; returns {step name: (status, stdout, stderr)} and whether
    the job passed."""
    job = job or github_job()
    github_path = os.path.join(ws, '..', 'github_path')
    open(github_path, 'w').close()
    env = dict(env, GITHUB_PATH=github_path, GITHUB_WORKSPACE=ws, CI='true')
    results, failed = {}, False
    for step in job['steps']:
        name = step.get('name') or step.get('uses')
        if 'uses' in step:
            results[name] = None
            continue
        command = step['run']
        if is_install(command) or (is_build(command) and not BUILD):
            continue
        if failed and step.get('if') != 'always()':
            continue
        p = subprocess.run(['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c', command],
                           cwd=ws, env=env, capture_output=True, text=True, timeout=1800)
        results[name] = (p.returncode, p.stdout, p.stderr)
        failed = failed or p.returncode != 0
        with open(github_path) as f:
            for line in f.read().splitlines():
                if line and line not in env['PATH'].split(os.pathsep):
                    env['PATH'] = line + os.pathsep + env['PATH']
    return results, not failed


def run_gitlab(ws, env):
    lines = [line for line in gitlab_job()['script']
             if not is_install(line) and (BUILD or not is_build(line) or 'export PATH' in line)]
    p = subprocess.run(['bash', '-ec', '\n'.join(lines)], cwd=ws, env=env,
                       capture_output=True, text=True, timeout=1800)
    return p


def sarif_problems(path):
    with open(path, encoding='utf-8') as f:
        log = json.load(f)
    problems = []
    if os.path.exists(SARIF_SCHEMA):
        import jsonschema
        with open(SARIF_SCHEMA, encoding='utf-8-sig') as f:
            validator = jsonschema.Draft202012Validator(json.load(f))
        problems += [e.message for e in validator.iter_errors(log)][:3]
    return log, problems


def check_github(mistake):
    with tempfile.TemporaryDirectory() as tmp:
        ws = workspace(tmp, mistake)
        results, passed = run_github(ws, environment(tmp))
        status, out, err = results['Check (annotations)']
        sarif = results['Check (SARIF for code scanning)']
        fmt = results['Orbit formatting']
        expect(fmt is not None and fmt[:2] == (0, ''), 'the formatting step: %r' % (fmt,))
        expect(sarif is not None and sarif[0] == 0, 'the SARIF step failed: %r' % (sarif,))
        log, problems = sarif_problems(os.path.join(ws, 'orbitc.sarif'))
        expect(not problems, 'orbitc.sarif: %s' % problems)
        results_ = log['runs'][0]['results']
        if mistake:
            expect(status == 1 and not passed, 'annotations step: %d, job passed: %s' % (status, passed))
            expect(out.startswith('::error file=checkout.orbit,line='), 'annotations: %s' % out)
            expect(len(results_) == 1 and results_[0]['ruleId'] == 'E0410', 'SARIF: %s' % results_)
        else:
            expect((status, out) == (0, '') and passed, 'clean examples: %d %r %s' % (status, out, err))
            expect(results_ == [], 'SARIF results of a clean program: %s' % results_)


@test
def github_job_on_examples():
    check_github(False)


@test
def github_job_on_a_mistake():
    check_github(True)


def ci_git(ws, *args):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM='1', HOME=ws, GIT_AUTHOR_NAME='ci',
               GIT_AUTHOR_EMAIL='ci@example.org', GIT_COMMITTER_NAME='ci',
               GIT_COMMITTER_EMAIL='ci@example.org')
    subprocess.run(['git'] + list(args), cwd=ws, env=env, check=True, capture_output=True)


@test
def compat_job_on_a_pull_request():
    """The compat job in a clone whose origin/main is the examples: a pull request that
    changes nothing passes; one that removes a step before a waiting point fails with an
    annotation on the old line."""
    for breaking in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            ws = workspace(tmp, False)
            ci_git(ws, 'init', '-q', '-b', 'main')
            ci_git(ws, 'add', '--', '.', ':!.orbitc-src')
            ci_git(ws, 'commit', '-q', '-m', 'main')
            ci_git(ws, 'update-ref', 'refs/remotes/origin/main', 'HEAD')
            if breaking:
                path = os.path.join(ws, 'checkout.orbit')
                with open(path, encoding='utf-8') as f:
                    text = f.read()
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(re.sub(r'\n  step cool_off \{[^\n]*\}', '', text, count=1))
            results, passed = run_github(ws, dict(environment(tmp), TMPDIR=tmp),
                                         github_job('compat'))
            status, out, err = results['Compatibility with main (annotations)']
            if breaking:
                expect(status == 1 and not passed
                       and '::error file=./checkout.orbit,line=' in out
                       and 'title=step-removed::step `cool_off` was removed' in out, (status, out, err))
            else:
                expect(status == 0 and passed and '::error' not in out, (status, out, err))


@test
def every_command_of_the_document_is_run():
    """No `run:` or `script:` line of docs/ci.md escapes the jobs run above."""
    run = commands(github_job()) + commands(github_job('compat')) + commands(gitlab_job())
    documented = [c for block in yaml_blocks() for c in commands(block)]
    expect(sorted(documented) == sorted(run), 'commands outside the jobs: %s'
           % [c for c in documented if c not in run])
    expect(any(c.startswith('orbitc fmt --check') for c in commands(github_job()))
           and any(c.startswith('orbitc fmt --check') for c in commands(gitlab_job())),
           'a job without the formatting check')


@test
def every_hook_is_documented():
    """The hooks of .pre-commit-hooks.yaml are the rows of the document's table, each
    with its entry."""
    with open(os.path.join(ROOT, '.pre-commit-hooks.yaml'), encoding='utf-8') as f:
        hooks = yaml.safe_load(f)
    with open(DOC, encoding='utf-8') as f:
        rows = re.findall(r'^\| `(orbitc-[a-z-]+)` \| `([^`]+)`', f.read(), re.M)
    expect(sorted((h['id'], h['entry']) for h in hooks)
           == sorted((name, entry.rstrip(':')) for name, entry in rows),
           'hooks %s, documented %s' % ([(h['id'], h['entry']) for h in hooks], rows))


@test
def gitlab_job_on_examples_and_a_mistake():
    for mistake in (False, True):
        with tempfile.TemporaryDirectory() as tmp:
            ws = workspace(tmp, mistake)
            p = run_gitlab(ws, environment(tmp))
            with open(os.path.join(ws, 'gl-code-quality-report.json'), encoding='utf-8') as f:
                report = json.load(f)
            if mistake:
                expect(p.returncode == 1 and 'error[E0410]' in p.stderr, 'job: %d %s' % (p.returncode, p.stderr))
                expect(len(report) == 1 and report[0]['check_name'] == 'E0410'
                       and report[0]['location']['path'] == 'checkout.orbit', 'report: %s' % report)
            else:
                expect(p.returncode == 0 and report == [], 'clean: %d %s %s' % (p.returncode, report, p.stderr))


if __name__ == '__main__':
    cli_harness.main()
