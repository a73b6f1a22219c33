#!/usr/bin/env python3
"""The VS Code extension (editors/vscode/), built and packaged as a user would get it.

  manifest   package.json: its version is orbitc's, every setting the code reads is
             declared, every file it names exists
  typecheck  `tsc --noEmit` against @types/vscode (the API of the `engines.vscode` version)
  bundle     esbuild bundles src/extension.ts with vscode-languageclient into one file
  vsix       `vsce package` makes orbit-VERSION.vsix (in the build directory): it holds the
             manifest, the bundle, the grammar, the language configuration, the snippets
             and the README, and nothing else (no sources, no node_modules)
  server     src/server.ts under Node: orbitc is found on PATH or by path, and when it is
             not, the message says what to do; the initializationOptions it makes, sent
             to the real `orbitc lsp`, turn a lint on (W0007) and another off (W0002)
  snippets   each snippet, expanded with its defaults where it belongs, checks clean

    test_vscode_extension.py --orbitc PATH --version VERSION --node-modules DIR --out DIR

Without DIR/@vscode/vsce (tools/install-npm.sh installs it) the test is skipped (77), or
fails when ORBIT_REQUIRE_NPM_TOOLS=1 (tools/test.sh sets it). Ends with
`N passed, N failed`.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cli'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tools'))
from test_fmt import ROOT  # noqa: E402
from test_grammar import check, npm_package_missing, results  # noqa: E402
from lsp_client import Client, file_uri  # noqa: E402

EDITOR = os.path.join(ROOT, 'editors', 'vscode')
PACKAGED = {'extension/package.json', 'extension/dist/extension.js', 'extension/readme.md',
            'extension/syntaxes/orbit.tmLanguage.json', 'extension/language-configuration.json',
            'extension/snippets/orbit.json', 'extension.vsixmanifest', '[Content_Types].xml'}

def run(args, cwd, name):
    """Runs a tool; its failure (with its output) is the test's problem list."""
    done = subprocess.run(args, cwd=cwd, capture_output=True, timeout=600)
    if done.returncode != 0:
        out = (done.stdout + done.stderr).decode(errors='replace').strip().splitlines()
        return [f'{name} exited with {done.returncode}'] + out[-25:]
    return []


def copy_extension(tmp, node_modules):
    """The extension's sources in a directory of their own, so that building writes
    nothing into the source tree."""
    work = os.path.join(tmp, 'orbit')
    shutil.copytree(EDITOR, work, ignore=shutil.ignore_patterns('node_modules', 'dist', '*.vsix'))
    os.symlink(node_modules, os.path.join(work, 'node_modules'))
    return work


def test_manifest(manifest, version):
    problems = []
    if manifest['version'] != version:
        problems.append(f'version {manifest["version"]}, orbitc is {version} (meson.build)')
    contributes = manifest['contributes']
    declared = set(contributes['configuration']['properties'])
    with open(os.path.join(EDITOR, 'src', 'extension.ts'), encoding='utf-8') as f:
        source = f.read()
    read = {'orbit.' + key for key in re.findall(r"config\.get<[^>]*>\('([^']+)'", source)}
    if not read:
        problems.append('no setting read by src/extension.ts was found')
    for key in sorted(read - declared):
        problems.append(f'src/extension.ts reads {key}, which package.json does not declare')
    for command in contributes['commands']:
        if f"'{command['command']}'" not in source:
            problems.append(f'command {command["command"]} is declared but not registered')
    files = [contributes['grammars'][0]['path'], contributes['languages'][0]['configuration'],
             contributes['snippets'][0]['path']]
    for path in files:
        if not os.path.isfile(os.path.join(EDITOR, path)):
            problems.append(f'{path} does not exist')
    language = contributes['languages'][0]
    if language['extensions'] != ['.orbit'] or language['filenames'] != ['orbit.program']:
        problems.append(f'language files: {language["extensions"]} {language["filenames"]}')
    publisher_id = f'{manifest["publisher"]}.{manifest["name"]}'
    formatter = contributes['configurationDefaults']['[orbit]']['editor.defaultFormatter']
    if formatter != publisher_id:
        problems.append(f'editor.defaultFormatter {formatter} is not this extension ({publisher_id})')
    check('manifest: version, settings, commands and files', problems)


def test_build(work, out_dir, version):
    bin_dir = os.path.join(work, 'node_modules', '.bin')
    check('typecheck: tsc --noEmit against @types/vscode',
          run([os.path.join(bin_dir, 'tsc'), '--noEmit', '-p', '.'], work, 'tsc'))
    problems = run([os.path.join(bin_dir, 'esbuild'), 'src/extension.ts', '--bundle',
                    '--platform=node', '--format=cjs', '--target=node20', '--external:vscode',
                    '--minify', '--outfile=dist/extension.js', '--log-level=warning'],
                   work, 'esbuild')
    bundle = os.path.join(work, 'dist', 'extension.js')
    if not problems:
        with open(bundle, encoding='utf-8') as f:
            text = f.read()
        if 'require("vscode")' not in text or 'orbit.restartServer' not in text:
            problems.append('the bundle does not require vscode or lacks the extension')
        if 'require("vscode-languageclient' in text:
            problems.append('vscode-languageclient is not bundled')
    check('bundle: esbuild, vscode-languageclient inside', problems)
    vsix = os.path.join(out_dir, f'orbit-{version}.vsix')
    if os.path.exists(vsix):
        os.unlink(vsix)
    problems = run([os.path.join(bin_dir, 'vsce'), 'package', '--no-dependencies',
                    '--skip-license', '--allow-missing-repository', '-o', vsix], work, 'vsce')
    if not problems:
        with zipfile.ZipFile(vsix) as z:
            names = set(z.namelist())
            manifest = json.loads(z.read('extension/package.json'))
            vsixmanifest = z.read('extension.vsixmanifest').decode()
        if names != PACKAGED:
            problems.append(f'unexpected: {sorted(names - PACKAGED)}, missing: {sorted(PACKAGED - names)}')
        if manifest['version'] != version or f'Version="{version}"' not in vsixmanifest:
            problems.append('the package does not carry the version')
    check(f'vsix: vsce package makes {os.path.relpath(vsix)}', problems)
    return problems == []


def server_module(work):
    """src/server.ts bundled alone, for Node."""
    out = os.path.join(work, 'dist', 'server.js')
    problems = run([os.path.join(work, 'node_modules', '.bin', 'esbuild'), 'src/server.ts',
                    '--bundle', '--platform=node', '--format=cjs', '--outfile=' + out,
                    '--log-level=warning'], work, 'esbuild')
    return out, problems


def node_call(module, function, *args):
    script = (f'const m = require({json.dumps(module)});'
              f'process.stdout.write(JSON.stringify(m.{function}(...JSON.parse(process.argv[1]))));')
    done = subprocess.run(['node', '-e', script, json.dumps(list(args))], capture_output=True,
                          check=True)
    return json.loads(done.stdout)


def test_server(work, orbitc, tmp):
    module, problems = server_module(work)
    if problems:
        check('server: finding orbitc, its options', problems)
        return
    orbitc = os.path.abspath(orbitc)
    bin_dir = os.path.dirname(orbitc)
    home = os.path.join(tmp, 'home')
    os.makedirs(home)
    cases = [
        (('orbitc', '/nonexistent:' + bin_dir, home, None), orbitc),
        (('', bin_dir, home, None), orbitc),
        (('  orbitc ', bin_dir, home, None), orbitc),
        ((orbitc, '', home, None), orbitc),
        ((os.path.relpath(orbitc, tmp), '', home, tmp), orbitc),
    ]
    os.symlink(orbitc, os.path.join(home, 'orbitc'))
    cases.append((('~/orbitc', '', home, None), os.path.join(home, 'orbitc')))
    for args, want in cases:
        got = node_call(module, 'resolveServer', *args)
        if got != {'found': True, 'command': want}:
            problems.append(f'resolveServer{args}: {got}, expected {want}')
    missing = node_call(module, 'resolveServer', 'orbitc', '/nonexistent', home, None)
    expected = ('Orbit: the language server cannot start: `orbitc` was not found on PATH. '
                'Install orbitc (docs/editors.md) or set "orbit.server.path" to its full path.')
    if missing.get('found') is not False or not missing['message'].startswith(expected):
        problems.append(f'orbitc not on PATH: {missing}')
    directory = node_call(module, 'resolveServer', bin_dir, '', home, None)
    if directory.get('found') is not False or 'is not an executable file' not in directory['message']:
        problems.append(f'a directory as the path: {directory}')
    options = node_call(module, 'initializationOptions',
                        {'serverPath': 'orbitc', 'warn': ['W0007', ' '], 'allow': [' W0002 ']})
    with_baseline = node_call(module, 'initializationOptions',
                              {'serverPath': 'orbitc', 'warn': [], 'allow': [],
                               'baseline': ' orbit-baseline.json '})
    if with_baseline != {'warn': [], 'allow': [], 'baseline': 'orbit-baseline.json'}:
        problems.append(f'initializationOptions with orbit.baseline: {with_baseline}')
    if options != {'warn': ['W0007'], 'allow': ['W0002']}:
        problems.append(f'initializationOptions: {options}')
    else:
        problems += server_takes_options(orbitc, options, tmp)
    check('server: finding orbitc, its options taken by orbitc lsp', problems)


def server_takes_options(orbitc, options, tmp):
    """The options, as the client sends them, change the server's diagnostics: W0007 (a
    retried task without idempotency_key, off by default) on, W0002 off."""
    folder = os.path.join(tmp, 'ws')
    os.makedirs(folder)
    path = os.path.join(folder, 'a.orbit')
    text = ('workflow w {\n  step s {\n    worker "x"\n'
            '    retry { attempts: 3, max_delay: 5s }\n  }\n}\n')
    with open(path, 'w') as f:
        f.write(text)
    codes = {}
    for name, init in (('default', None), ('options', options)):
        client = Client([orbitc, 'lsp'])
        try:
            client.initialize(file_uri(folder), folders=[{'uri': file_uri(folder), 'name': 'ws'}],
                              options=init)
            client.open(file_uri(path), text)
            codes[name] = sorted(d['code'] for d in client.wait_diagnostics(file_uri(path)))
        finally:
            client.stop()
    if 'W0002' not in codes['default'] or 'W0007' in codes['default']:
        return [f'without options the server reports {codes["default"]}: the test program is wrong']
    if codes['options'] != ['W0007']:
        return [f'with {options} the server reports {codes["options"]}, expected W0007 alone']
    return []


def expand(body):
    """A snippet's text with each placeholder's default (a choice's first)."""
    text = '\n'.join(body)
    text = re.sub(r'\$\{\d+\|([^,|]*)[^}]*\}', r'\1', text)
    while re.search(r'\$\{\d+:([^{}]*)\}', text):
        text = re.sub(r'\$\{\d+:([^{}]*)\}', r'\1', text)
    return re.sub(r'\$\d+', '', text)


def indent(text, by):
    return '\n'.join(' ' * by + line if line else line for line in text.split('\n'))


def test_snippets(orbitc, tmp):
    with open(os.path.join(EDITOR, 'snippets', 'orbit.json'), encoding='utf-8') as f:
        snippets = json.load(f)
    worker = 'worker "team.task" {}\nworker "team.undo" {}\n'
    inside_step = ('workflow w {{\n  input {{ order_id: string }}\n  step s {{\n    worker "team.task"\n'
                   '{}\n  }}\n}}\n')
    programs = {
        'workflow': worker + expand(snippets['workflow']['body']) + '\n',
        'step': worker + 'workflow w {\n  input { order_id: string }\n'
                + indent(expand(snippets['step']['body']), 2) + '\n}\n',
        'retry': worker + inside_step.format(indent(expand(snippets['retry']['body']), 4)),
        'compensate': worker + inside_step.format(indent(expand(snippets['compensate']['body']), 4)),
    }
    problems = []
    if sorted(snippets) != sorted(programs):
        problems.append(f'snippets {sorted(snippets)}, tested {sorted(programs)}')
    for name, program in programs.items():
        path = os.path.join(tmp, f'snippet_{name}.orbit')
        with open(path, 'w') as f:
            f.write(program)
        done = subprocess.run([orbitc, 'check', '--deny-warnings', path], capture_output=True)
        if done.returncode != 0:
            problems.append(f'{name}: orbitc check: {done.stderr.decode()[:800]}')
    check('snippets: each checks clean where it belongs', problems)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--orbitc', required=True)
    parser.add_argument('--version', required=True)
    parser.add_argument('--node-modules', required=True)
    parser.add_argument('--out', required=True)
    args = parser.parse_args()
    node_modules = os.path.abspath(args.node_modules)
    missing = npm_package_missing(node_modules, '@vscode/vsce')
    if missing is not None:
        return missing
    with open(os.path.join(EDITOR, 'package.json'), encoding='utf-8') as f:
        manifest = json.load(f)
    test_manifest(manifest, args.version)
    with tempfile.TemporaryDirectory() as tmp:
        work = copy_extension(tmp, node_modules)
        test_build(work, os.path.abspath(args.out), args.version)
        test_server(work, args.orbitc, tmp)
        test_snippets(args.orbitc, tmp)
    print(f'{results["passed"]} passed, {results["failed"]} failed')
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
