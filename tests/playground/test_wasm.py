#!/usr/bin/env python3
"""The playground's API against the command line (docs/playground.md, "Tests"): for every
golden source (tests/golden/**/*.orbit) and the examples, the API's diagnostics JSON, formatted
text, fixed text and count, bytecode (base64-decoded, byte for byte) and disassembly
equal what `orbitc check --format json`, `orbitc fmt -`, `orbitc fix -`, `orbitc build`
and `orbitc dis` give for the same file alone; its step graph in each format equals
`orbitc graph --format dot|mermaid|json`'s byte for byte (and `--workflow NAME`'s for the
first workflow of a program with several), or fails where orbitc graph fails; its tokens
equal `lex_dump`'s (in UTF-16 units); and for every run case of tests/golden/run/ without extra arguments (the conformance
kit's scenarios among them) the run's text history and exit status equal `orbit-run`'s
byte for byte, and its JSON events equal `orbit-run --format json`'s; and the scenario it
proposes for examples/checkout.orbit runs to completion.

    test_wasm.py --orbitc ORBITC --orbit-run ORBIT_RUN --lex-dump LEX_DUMP
                 --pg-api PG_API [--wasm DIR] [--root DIR]

Two builds of the API are compared: the native one (PG_API, tests/playground/pg_api.c), always, and
the WebAssembly one (DIR/orbit.wasm, made by tools/playground.sh; DIR from --wasm or
ORBIT_PLAYGROUND_WASM) under Node through tests/playground/wasm_api.mjs, when it is there. Without
it the test says so, and fails when ORBIT_REQUIRE_PLAYGROUND=1 (tools/test.sh sets it).
Each source is copied alone to a temporary directory as `playground.orbit` (the API's
name for it), so no `orbit.program` of the repository applies.
"""
import argparse
import base64
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

NAME = 'playground.orbit'
SCENARIO = 'scenario.json'
GRAPH_FORMATS = ('dot', 'mermaid', 'json')


class NativeApi:
    """The API built natively: one process a call."""

    def __init__(self, path):
        self.path = path
        self.label = 'native API'

    def call(self, fn, source_path, extra=None, workflow=None):
        args = [self.path, fn, source_path] + ([extra] if extra else []) + ([workflow] if workflow else [])
        out = subprocess.run(args, capture_output=True, check=True).stdout.decode('utf-8')
        return out if fn == 'check' else json.loads(out)

    def close(self):
        pass


class WasmApi:
    """The WebAssembly build under Node: one process, one request a line."""

    def __init__(self, directory, root):
        env = dict(os.environ, NODE_PATH='/usr/share/nodejs')
        self.process = subprocess.Popen(
            ['node', '--no-experimental-fetch', os.path.join(root, 'tests', 'playground', 'wasm_api.mjs'),
             directory], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        self.label = 'WebAssembly API'

    def call(self, fn, source_path, extra=None, workflow=None):
        with open(source_path, encoding='utf-8', newline='') as f:
            args = [f.read()]
        if fn == 'check':
            args.append(NAME)
        if fn == 'graph':   # orbit-api.js: graph(source, {workflow, format})
            args.append({'workflow': workflow or '', 'format': extra})
        elif extra:
            with open(extra, encoding='utf-8', newline='') as f:
                args.append(f.read())
        self.process.stdin.write((json.dumps({'fn': fn, 'args': args}) + '\n').encode())
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError('the Node process ended')
        answer = json.loads(line)
        if 'error' in answer:
            raise RuntimeError(answer['error'])
        return answer['result']

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


def run(args, cwd, stdin=None):
    done = subprocess.run(args, cwd=cwd, input=stdin, capture_output=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


FIXED = re.compile(rb'^orbitc: fixed <stdin>: (\d+) fix', re.M)


def native(tools, work, text):
    """What the command line gives for the source `text` (bytes) in `work`."""
    source = os.path.join(work, NAME)
    with open(source, 'wb') as f:
        f.write(text)
    expected = {}
    _, out, _ = run([tools.orbitc, 'check', '--format', 'json', NAME], work)
    expected['check'] = out.decode('utf-8')
    status, out, _ = run([tools.orbitc, 'fmt', '-'], work, text)
    expected['format'] = {'ok': True, 'text': out.decode('utf-8')} if status == 0 else {'ok': False}
    status, out, err = run([tools.orbitc, 'fix', '-'], work, text)
    match = FIXED.search(err)
    expected['fix'] = {'text': out.decode('utf-8'), 'fixed': int(match.group(1)) if match else 0}
    status, _, _ = run([tools.orbitc, 'build', NAME, '-o', 'out.orbc'], work)
    if status == 0:
        with open(os.path.join(work, 'out.orbc'), 'rb') as f:
            expected['build'] = {'ok': True, 'bytes': f.read()}
        _, out, _ = run([tools.orbitc, 'dis', 'out.orbc'], work)
        expected['dis'] = {'ok': True, 'text': out.decode('utf-8')}
    else:
        expected['build'] = {'ok': False}
        expected['dis'] = {'ok': False}
    _, out, _ = run([tools.lex_dump, NAME], work)
    expected['tokens'] = utf16_tokens(text, out)
    for fmt in GRAPH_FORMATS:
        expected['graph', fmt, None] = graph(tools, work, fmt)
    workflows = expected['graph', 'json', None].get('text')
    names = [w['name'] for w in json.loads(workflows)['workflows']] if workflows else []
    if len(names) > 1:
        expected['graph', 'json', names[0]] = graph(tools, work, 'json', names[0])
    return source, expected


def graph(tools, work, fmt, workflow=None):
    """`orbitc graph` of the source in `fmt`: {'ok': True, 'text'} or {'ok': False}."""
    status, out, _ = run([tools.orbitc, 'graph', '--format', fmt, NAME]
                         + (['--workflow', workflow] if workflow else []), work)
    return {'ok': True, 'text': out.decode('utf-8')} if status == 0 else {'ok': False}


def utf16_tokens(text, lex_dump_out):
    """lex_dump's tokens with byte offsets turned into UTF-16 units, as [start, end, kind]."""
    units, count = [], 0
    for byte in text:
        units.append(count)
        if byte & 0xC0 != 0x80:
            count += 2 if byte >= 0xF0 else 1
    units.append(count)
    tokens = []
    for line in lex_dump_out.decode('utf-8').splitlines():
        t = json.loads(line)
        tokens.append([units[t['start']], units[t['end']], t['kind']])
    return tokens


def outcome(fn, got):
    """What a result of the API says, in the form native() gives the command line's:
    whether it worked, and then its text (build: its bytes)."""
    if fn in ('check', 'fix', 'tokens'):
        return got
    if not got.get('ok'):
        return {'ok': False}
    if fn == 'build':
        return {'ok': True, 'bytes': base64.b64decode(got['bytecode'])}
    return {'ok': True, 'text': got['text']}


def differences(api, source, expected):
    """The functions whose result differs from the command line's."""
    found = [fn for fn in ('check', 'format', 'fix', 'build', 'dis', 'tokens')
             if outcome(fn, api.call(fn, source)) != expected[fn]]
    for key in expected:
        if isinstance(key, tuple):
            _, fmt, workflow = key
            if outcome('graph', api.call('graph', source, fmt, workflow)) != expected[key]:
                found.append('graph --format %s%s' % (fmt, ' --workflow ' + workflow if workflow else ''))
    return found


def run_cases(root):
    """tests/golden/run cases with a scenario and no extra orbit-run arguments."""
    cases = []
    for scenario in sorted(glob.glob(os.path.join(root, 'tests', 'golden', 'run', '*.scenario.json'))):
        stem = scenario[:-len('.scenario.json')]
        if os.path.exists(stem + '.orbit') and not os.path.exists(stem + '.args'):
            cases.append((stem + '.orbit', scenario))
    return cases


def as_javascript(value):
    """`value` with every integer beyond 2^53 as JavaScript holds it (a double): the
    WebAssembly build's events went through JSON.parse (virtual time can reach the end
    of the clock, 2^63 - 1 ms)."""
    if isinstance(value, dict):
        return {k: as_javascript(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_javascript(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2 ** 53:
        return float(value)
    return value


def check_runs(tools, apis, root, work):
    failures, count = [], 0
    for program, scenario in run_cases(root):
        shutil.copyfile(program, os.path.join(work, NAME))
        shutil.copyfile(scenario, os.path.join(work, SCENARIO))
        if run([tools.orbitc, 'build', NAME, '-o', 'out.orbc'], work)[0] != 0:
            continue
        status, text, _ = run([tools.orbit_run, 'out.orbc', '--scenario', SCENARIO], work)
        _, lines, _ = run([tools.orbit_run, 'out.orbc', '--scenario', SCENARIO, '--format', 'json'], work)
        events = [json.loads(line) for line in lines.decode('utf-8').splitlines()]
        count += 1
        for api in apis:
            got = api.call('run', os.path.join(work, NAME), os.path.join(work, SCENARIO))
            if status == 2:
                same = not got['ok']
            else:
                same = got['ok'] and got['exit'] == status and got['logs'] == text.decode('utf-8') \
                    and as_javascript(got['history']) == as_javascript(events)
            if not same:
                failures.append('%s: run of %s differs from orbit-run' % (api.label, os.path.relpath(program, root)))
    return failures, count


def check_proposed_scenario(apis, root, work):
    """The scenario the API proposes for the checkout example is valid and its run
    completes (every worker answers, every awaited signal arrives)."""
    failures = []
    example = os.path.join(root, 'examples', 'checkout.orbit')
    for api in apis:
        with open(os.path.join(work, SCENARIO), 'w', encoding='utf-8') as f:
            f.write(json.dumps(api.call('scenario', example)))
        got = api.call('run', example, os.path.join(work, SCENARIO))
        if not got.get('ok') or got['exit'] != 0 or 'WorkflowCompleted' not in got['logs']:
            failures.append('%s: the proposed scenario of examples/checkout.orbit does not '
                            'complete: %s' % (api.label, got.get('message', got.get('logs'))))
    return failures


# Sources with a NUL byte (valid UTF-8: the page can hold them): the API must see every
# byte, as orbitc does, never the text before the first NUL. The first is the audit's
# link: a NUL between two workflows, the second with an unknown name.
NUL_SOURCES = [
    ('NUL between two workflows', b'workflow w {\n  step s { sleep 1s }\n}\n\0\n'
     b'workflow   x {\n  step t { compute nope }\n}\n'),
    ('NUL first', b'\0workflow w {\n  step s { sleep 1s }\n}\n'),
    ('NUL last', b'workflow w {\n  step s { sleep 1s }\n}\n\0'),
    ('NUL in a string and a comment', b'// a \0 here\nworker "a\0b" {\n}\nworkflow w {\n'
     b'  step s { worker "a\0b" }\n  step t { retry { backof: exponential } sleep 1s }\n}\n'),
]


def check_nul_scenario(tools, apis, work):
    """A scenario with bytes after a NUL: orbit-run reads them all (and refuses the text),
    so the API must too, not run the valid JSON before the NUL."""
    failures = []
    program = b'workflow w {\n  step s { sleep 1s }\n}\n'
    with open(os.path.join(work, NAME), 'wb') as f:
        f.write(program)
    with open(os.path.join(work, SCENARIO), 'wb') as f:
        f.write(b'{"workflow": "w"}\0{"workflow": "nope"}')
    run([tools.orbitc, 'build', NAME, '-o', 'out.orbc'], work)
    status, _, _ = run([tools.orbit_run, 'out.orbc', '--scenario', SCENARIO], work)
    assert status == 2, 'orbit-run refuses a scenario with bytes after its JSON'
    for api in apis:
        got = api.call('run', os.path.join(work, NAME), os.path.join(work, SCENARIO))
        if got.get('ok') or 'scenario.json' not in got.get('message', ''):
            failures.append('%s: a scenario with a NUL runs: %s' % (api.label, got))
    return failures


def nested_program(levels):
    """A program whose workflow's input nests `levels` record types deep."""
    types = ['type T%d { f: T%d }' % (i, i + 1) for i in range(levels)]
    return '\n'.join(types + ['type T%d { s: string }' % levels,
                               'workflow w {\n  input T0\n  step s { sleep 1s }\n}\n'])


def check_nested_scenarios(apis, work):
    """The proposed scenario of a program whose input nests records deeply runs, as deep
    as orbit-run reads JSON; deeper, the API says why instead of proposing a scenario the
    runtime refuses."""
    failures = []
    path = os.path.join(work, NAME)
    for levels in (60, 64, 65, 500):
        with open(path, 'w', encoding='utf-8') as f:
            f.write(nested_program(levels))
        for api in apis:
            with open(os.path.join(work, SCENARIO), 'w', encoding='utf-8') as f:
                f.write(json.dumps(api.call('scenario', path)))
            got = api.call('run', path, os.path.join(work, SCENARIO))
            if not got.get('ok') or got['exit'] != 0:
                failures.append('%s: the proposed scenario of a %d-level input does not run: %s'
                                % (api.label, levels, got.get('message', got.get('logs'))))
    with open(path, 'w', encoding='utf-8') as f:
        f.write(nested_program(2100))
    for api in apis:
        got = api.call('scenario', path)
        if got.get('ok') is not False or 'deeper than orbit-run reads' not in got.get('message', ''):
            failures.append('%s: a 2100-level input gets no clear message: %.200s' % (api.label, json.dumps(got)))
    return failures


def sources(root):
    found = sorted(glob.glob(os.path.join(root, 'tests', 'golden', '**', '*.orbit'), recursive=True))
    return found + sorted(glob.glob(os.path.join(root, 'examples', '*.orbit')))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--orbitc', required=True)
    parser.add_argument('--orbit-run', required=True)
    parser.add_argument('--lex-dump', required=True)
    parser.add_argument('--pg-api', required=True)
    parser.add_argument('--wasm', default=os.environ.get('ORBIT_PLAYGROUND_WASM'))
    parser.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    tools = parser.parse_args()
    for name in ('orbitc', 'orbit_run', 'lex_dump', 'pg_api'):
        setattr(tools, name, os.path.abspath(getattr(tools, name)))
    root = os.path.abspath(tools.root)
    apis = [NativeApi(tools.pg_api)]
    if tools.wasm and os.path.exists(os.path.join(tools.wasm, 'orbit.wasm')):
        apis.append(WasmApi(os.path.abspath(tools.wasm), root))
    elif os.environ.get('ORBIT_REQUIRE_PLAYGROUND') == '1':
        print('test_wasm: no WebAssembly build (tools/playground.sh --wasm, then '
              'ORBIT_PLAYGROUND_WASM=build-playground/wasm)', file=sys.stderr)
        return 1
    else:
        print('test_wasm: no WebAssembly build: the native API only (tools/playground.sh '
              '--wasm, then ORBIT_PLAYGROUND_WASM=build-playground/wasm)')
    failures = []
    with tempfile.TemporaryDirectory() as work:
        files = sources(root)
        cases = []
        for path in files:
            with open(path, 'rb') as f:
                cases.append((os.path.relpath(path, root), f.read()))
        cases += NUL_SOURCES
        for label, text in cases:
            try:
                text.decode('utf-8')
            except UnicodeDecodeError:
                continue   # the page gives the API JavaScript strings: always UTF-8
            source, expected = native(tools, work, text)
            for api in apis:
                for fn in differences(api, source, expected):
                    failures.append('%s: %s of %s differs from the command line'
                                    % (api.label, fn, label))
        run_failures, runs = check_runs(tools, apis, root, work)
        failures += run_failures
        failures += check_proposed_scenario(apis, root, work)
        failures += check_nul_scenario(tools, apis, work)
        failures += check_nested_scenarios(apis, work)
    for api in apis:
        api.close()
    for line in failures:
        print(line)
    print('test_wasm: %d sources, %d runs, %s: %d differences'
          % (len(cases), runs, ' and '.join(api.label for api in apis), len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
