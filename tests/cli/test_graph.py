#!/usr/bin/env python3
"""Tests of `orbitc graph` (docs/cli.md, "orbitc graph") against the real consumers:

- golden outputs: each case's DOT, Mermaid and JSON compared exactly with
  tests/golden/graph/NAME.dot, .mmd and .json (--update rewrites them: read `git diff`);
- every JSON output valid against docs/graph.schema.json, keys in the documented order
  (tools/validate_json.py);
- Graphviz (`dot -Tsvg`) renders the graph of every golden program that checks without
  errors, with nothing on standard error (no warning) and a well-formed SVG;
- the real Mermaid parser (the `mermaid` npm package, headless in Node with jsdom:
  tools/mermaid/, installed by tools/install-npm.sh) reads the Mermaid output of
  every golden program that checks, and no text in it sets Mermaid's configuration;
- every label shows exactly its text (docs/cli.md, "orbitc graph"): the graphs of
  tests/golden/graph/adversarial.orbit and escape.orbit, drawn by Mermaid (tools/mermaid/parse.mjs --render) and by Graphviz,
  show the same lines, each name and string exactly as the JSON gives it (a string as
  its Orbit literal), and no markup; tests/golden/graph/adversarial.orbit holds the inputs
  that once changed the renderer;
- the same for random programs whose names and strings are drawn from a dictionary of
  dangerous characters: a few in every run (--fuzz-cases, --fuzz-seed), and as many as
  --fuzz-seconds allows with --fuzz-only (docs/fuzzing.md);
- the command line: --workflow, its did-you-mean, a program with errors, a bad --format;
- the rendered pictures of docs/ are current: docs/graph-checkout.svg (`dot -Tsvg`) and
  docs/graph-checkout-mermaid.svg (tools/render_mermaid.mjs) show exactly the label lines
  of the checkout example's graph as orbitc writes it today (tests/golden/graph/checkout.dot
  and .mmd, themselves compared with orbitc above).

    test_graph.py --orbitc build/cli/orbitc [--update] [--fuzz-cases N] [--fuzz-seed S]
                  [--fuzz-only --fuzz-seconds N]
"""
import argparse
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, 'tests', 'golden', 'graph')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import validate_json  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, 'tests'))
from support.cases import CORPUS_SAMPLE, corpus_sample  # noqa: E402

# name -> the program it draws (paths relative to the repository)
CASES = {
    'adversarial': 'tests/golden/graph/adversarial.orbit',
    'checkout': 'examples/checkout.orbit',
    'escape': 'tests/golden/graph/escape.orbit',
    'unbounded': 'tests/golden/worst/unbounded.orbit',
    'fan_out_child': 'tests/golden/worst/fan_out_child.orbit',
    'huge': 'tests/golden/worst/huge.orbit',
}
FORMATS = {'dot': 'dot', 'mermaid': 'mmd', 'json': 'json'}
SCHEMA = os.path.join(ROOT, 'docs', 'graph.schema.json')

failures = []


def orbitc(opts, *args):
    p = subprocess.run([opts.orbitc] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    try:
        out = p.stdout.decode('utf-8')
    except UnicodeDecodeError as e:
        return 99, '', 'the output is not UTF-8: %s' % e
    return p.returncode, out, p.stderr.decode('utf-8', 'replace')


def fail(message):
    failures.append(message)
    print('FAIL ' + message)


def schema_problem(text):
    schema = json.load(open(SCHEMA, encoding='utf-8'))
    doc = json.loads(text)
    try:
        validate_json.jsonschema.validate(doc, schema)
    except validate_json.jsonschema.ValidationError as e:
        return e.message
    return validate_json.key_order_problem(doc, schema, schema.get('$defs', {}), '')


def golden(opts):
    """Returns {program: {format: output}} of the cases, for labelled_programs."""
    outputs = {}
    for name, program in sorted(CASES.items()):
        for fmt, ext in FORMATS.items():
            status, out, err = orbitc(opts, 'graph', '--format', fmt, program)
            if status != 0:
                fail('%s --format %s: status %d: %s' % (name, fmt, status, err))
                continue
            outputs.setdefault(program, {})[fmt] = out
            again = orbitc(opts, 'graph', '--format', fmt, program)[1]
            if again != out:
                fail('%s --format %s: two runs differ' % (name, fmt))
            if fmt == 'json':
                problem = schema_problem(out)
                if problem:
                    fail('%s: the JSON does not match docs/graph.schema.json: %s'
                         % (name, problem))
            path = os.path.join(GOLDEN, '%s.%s' % (name, ext))
            if opts.update:
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(out)
                continue
            expected = open(path, encoding='utf-8').read() if os.path.exists(path) else None
            if out != expected:
                fail('%s --format %s differs from %s' % (name, fmt, os.path.relpath(path, ROOT)))
    return outputs


def golden_programs():
    """Every golden program: its .orbit file, or its .case directory (corpus_sample)."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', '**', '*'), recursive=True)):
        if path.endswith('.case') and os.path.isdir(path):
            found.append(path)
        elif path.endswith('.orbit') and '.case' + os.sep not in path:
            found.append(path)
    return corpus_sample(found)


def renders(opts):
    """dot -Tsvg renders the graph of every golden program that checks, without a
    warning."""
    if not shutil.which('dot'):
        fail('dot (Debian graphviz) is not installed: tools/install-deps.sh installs it')
        return
    drawn = 0
    for program in golden_programs():
        status, out, err = orbitc(opts, 'graph', program)
        if status == 1 or (status == 2 and 'draws one program' in err):
            continue   # errors, or several programs (roots): nothing to draw
        if status != 0:
            fail('%s: status %d: %s' % (program, status, err))
            continue
        p = subprocess.run(['dot', '-Tsvg'], input=out.encode('utf-8'),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if p.returncode != 0 or p.stderr:
            fail('%s: dot -Tsvg: status %d: %s' % (os.path.relpath(program, ROOT), p.returncode,
                                                  p.stderr.decode('utf-8', 'replace')))
            continue
        try:
            ET.fromstring(p.stdout)
        except ET.ParseError as e:
            fail('%s: dot -Tsvg wrote an SVG that is not well-formed: %s' % (program, e))
            continue
        drawn += 1
    print('dot -Tsvg rendered %d golden programs without a warning' % drawn)
    if drawn < 50 // CORPUS_SAMPLE:
        fail('only %d golden programs were drawn' % drawn)


MERMAID = os.path.join(ROOT, 'tools', 'mermaid')


def mermaid_installed(what):
    if os.path.isdir(os.path.join(MERMAID, 'node_modules', 'mermaid')):
        return True
    if os.environ.get('ORBIT_REQUIRE_NPM_TOOLS'):
        fail('the Mermaid parser is not installed: run tools/install-npm.sh')
    else:
        print('note: %s: tools/install-npm.sh installs the Mermaid parser (tools/test.sh '
              'requires it)' % what)
    return False


def run_mermaid(parse_paths, render_paths, what):
    """One Node process (tools/mermaid/parse.mjs): parses parse_paths, parses and draws
    render_paths. Reports each failure; returns the number of parse_paths parsed and
    {path: labels} of those drawn."""
    p = subprocess.run(['node', os.path.join(MERMAID, 'parse.mjs')] + parse_paths +
                       ['--render'] + render_paths, cwd=MERMAID, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=3600)
    parsed, drawn, reported = 0, {}, 0
    for line in p.stdout.decode('utf-8').split('\n'):   # not splitlines: U+2028
        if line.startswith('ok '):
            path, _, labels = line[3:].partition(' ')
            if labels:
                drawn[path] = json.loads(labels)
            else:
                parsed += 1
        elif line:
            fail('%s: mermaid: %s' % (what, line[:2000]))
        reported += bool(line)
    if reported != len(parse_paths) + len(render_paths) or (p.returncode != 0) != (
            parsed + len(drawn) < reported):
        fail('%s: parse.mjs: status %d, %d of %d files reported: %s' % (
            what, p.returncode, reported, len(parse_paths) + len(render_paths),
            p.stderr.decode()[-2000:]))
    return parsed, drawn


def mermaid_parses(opts, tmp, labelled):
    """The real Mermaid parser (tools/mermaid/parse.mjs, headless in Node) reads the
    Mermaid output of every golden program that checks, and no text in it sets Mermaid's
    configuration (a %%{init: ...}%% directive); the same process draws the graphs of
    `labelled` (prepare_labels), whose labels it then checks (verify_labels)."""
    if not mermaid_installed('Mermaid output not parsed'):
        verify_labels(labelled, {}, 'labels', False)
        return
    paths = [os.path.join(GOLDEN, name + '.mmd') for name in sorted(CASES)]
    for k, program in enumerate(golden_programs()):
        status, out, err = orbitc(opts, 'graph', '--format', 'mermaid', program)
        if status != 0:
            continue
        path = os.path.join(tmp, '%d.mmd' % k)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(out)
        paths.append(path)
    parsed, drawn = run_mermaid(paths, [path for _, _, path in labelled], 'mermaid')
    print('the Mermaid parser read %d graphs' % parsed)
    if parsed != len(paths):
        fail('mermaid: %d of %d graphs parsed' % (parsed, len(paths)))
    verify_labels(labelled, drawn, 'labels', True)
    print('the labels of %d graphs are exact in Graphviz and Mermaid' % len(labelled))


# ---- Every label shows exactly its text -------------------------------------------------

def shown_escaped(ch):
    """Whether a string's label shows the character as its escape (docs/cli.md: the
    characters that are not seen; utf8_is_unseen in base/utf8.c)."""
    category = unicodedata.category(ch)
    return category in ('Cc', 'Cf', 'Cs', 'Co', 'Cn', 'Zl', 'Zp') or \
        (category == 'Zs' and ch != ' ')


def orbit_literal(text):
    """A string as its label shows it: the Orbit string literal that writes it."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ch in '\n\r\t':
            out.append({'\n': '\\n', '\r': '\\r', '\t': '\\t'}[ch])
        elif shown_escaped(ch):
            out.append('\\u{%X}' % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def dot_svg_labels(svg):
    """{'nodes': {ID: [LINE]}, 'clusters': {ID: [LINE]}, 'edges': [[LINE]]} of the SVG
    that `dot -Tsvg` drew: the lines of each <text>, as a reader sees them. Graphviz
    writes the second of two spaces as U+00A0 (so that SVG keeps both): a space here
    (a label never holds U+00A0 itself: it is shown as its escape)."""
    out = {'nodes': {}, 'clusters': {}, 'edges': []}
    for g in ET.fromstring(svg).iter('{http://www.w3.org/2000/svg}g'):
        kind = g.get('class')
        if kind not in ('node', 'cluster', 'edge'):
            continue
        title = g.find('{http://www.w3.org/2000/svg}title').text
        lines = [(t.text or '').replace('\xa0', ' ')
                 for t in g.iter('{http://www.w3.org/2000/svg}text')]
        if kind == 'node':
            out['nodes'][title] = lines
        elif kind == 'cluster':
            out['clusters'][title[len('cluster_'):]] = lines
        elif lines:
            out['edges'].append(lines)
    return out


def expected_label_problems(graph, drawn):
    """What is wrong with the labels of one drawing (Mermaid's or Graphviz's) against the
    JSON of the same graph: each node's first line is its name, its second what it runs
    with the target exactly (a string as its Orbit literal), each workflow's title its
    name; no line holds a character that is not seen."""
    problems = []
    if sorted(w['id'] for w in graph['workflows']) != sorted(drawn['clusters']):
        problems.append('workflows %s in the JSON, %s drawn' % (
            sorted(w['id'] for w in graph['workflows']), sorted(drawn['clusters'])))
    names = {'timeout'} | {w['name'] for w in graph['workflows']} | \
        {n['name'] for w in graph['workflows'] for n in w['nodes']}
    for wf in graph['workflows']:
        worsts = [wf['steps_worst_case'], wf['worst_case']] + [n['worst_case'] for n in wf['nodes']]
        for worst in worsts:
            reason = worst['unbounded'] or ''
            quoted = re.findall('`([^`]*)`', reason)
            if reason.count('`') % 2 or any(q not in names for q in quoted):
                problems.append('workflow %s: a name is cut or changed in %r' % (wf['id'], reason))
        title = drawn['clusters'].get(wf['id'])
        want = 'workflow ' + wf['name']
        if not title or not (title[0] == want or title[0].startswith(want + ', timeout ')):
            problems.append('workflow %s: title %r, expected %r' % (wf['id'], title, want))
        for node in wf['nodes']:
            lines = drawn['nodes'].get(node['id'])
            name = node['name'] + ('.compensate' if node['compensation'] else '')
            runs = node['kind']
            if node['target'] is not None:
                quoted = node['kind'] in ('worker', 'await')
                runs += ' ' + (orbit_literal(node['target']) if quoted else node['target'])
            if node['for'] is not None:
                runs += ', for each `%s` at once' % node['for']
            if node['when']:
                runs += ', when its condition holds'
            sleep = node['kind'] == 'sleep'   # "sleep 10m": the duration follows
            if not lines or lines[0] != name or len(lines) < 2 or \
                    not (lines[1] == runs or (sleep and lines[1].startswith(runs))):
                problems.append('node %s: %r, expected %r then %r' % (
                    node['id'], lines, name, runs))
            reason = node['worst_case']['unbounded']
            if reason and lines and lines[-1] != 'worst case unbounded: ' + reason:
                problems.append('node %s: last line %r, expected the reason of the JSON %r' % (
                    node['id'], lines[-1], reason))
    everything = [l for ls in drawn['nodes'].values() for l in ls] + \
        [l for ls in drawn['clusters'].values() for l in ls]
    for line in everything:
        if any(shown_escaped(ch) for ch in line):
            problems.append('a label line holds a character that is not seen: %r' % line)
    return problems


def prepare_labels(opts, tmp, programs, what, known=None):
    """Each program's graph in the three formats, its Mermaid text in a file: [(program,
    {format: output}, path)]. `known`: {program: {format: output}} already written."""
    graphs = []
    for k, program in enumerate(programs):
        outs = dict((known or {}).get(program, {}))
        for fmt in FORMATS if len(outs) < len(FORMATS) else []:
            status, out, err = orbitc(opts, 'graph', '--format', fmt, program)
            if status != 0:
                fail('%s: %s --format %s: status %d: %s' % (
                    what, program, fmt, status, err[-2000:]))
                break
            outs[fmt] = out
        else:
            path = os.path.join(tmp, 'labels-%d.mmd' % k)
            with open(path, 'w', encoding='utf-8') as f:
                f.write(outs['mermaid'])
            graphs.append((program, outs, path))
    return graphs


def verify_labels(graphs, drawn, what, render):
    """Draws each graph (prepare_labels) with Graphviz, and checks that Graphviz and
    Mermaid (`drawn`: run_mermaid's, when `render`) show exactly the same label lines, and
    the right ones (expected_label_problems)."""
    for program, outs, path in graphs:
        graph = json.loads(outs['json'])
        p = subprocess.run(['dot', '-Tsvg'], input=outs['dot'].encode('utf-8'),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if p.returncode != 0 or p.stderr:
            fail('%s: %s: dot -Tsvg: status %d: %s' % (
                what, program, p.returncode, p.stderr.decode('utf-8', 'replace')[:2000]))
            continue
        try:
            dot = dot_svg_labels(p.stdout)
        except ET.ParseError as e:
            fail('%s: %s: dot -Tsvg wrote an SVG that is not well-formed: %s' % (what, program, e))
            continue
        for problem in expected_label_problems(graph, dot):
            fail('%s: %s: Graphviz: %s' % (what, program, problem))
        mmd = drawn.get(path)
        if not render or mmd is None:   # not drawn: run_mermaid reported why
            continue
        for problem in expected_label_problems(graph, mmd):
            fail('%s: %s: Mermaid: %s' % (what, program, problem))
        if mmd['markup']:
            fail('%s: %s: Mermaid drew markup in a label: %s' % (what, program, mmd['markup'][:3]))
        for kind in ('nodes', 'clusters'):
            for key in sorted(set(dot[kind]) | set(mmd[kind])):
                if dot[kind].get(key) != mmd[kind].get(key):
                    fail('%s: %s: %s %s: Graphviz shows %r, Mermaid %r' % (
                        what, program, kind, key, dot[kind].get(key), mmd[kind].get(key)))
        if sorted(dot['edges']) != sorted(mmd['edges'].values()):
            fail('%s: %s: edge labels: Graphviz %r, Mermaid %r' % (
                what, program, sorted(dot['edges']), sorted(mmd['edges'].values())))


# ---- Random programs with dangerous names and strings ------------------------------------

# Pieces of strings: what Mermaid, Graphviz, HTML, Markdown or a terminal read as more than
# text, and characters that are not seen.
STRING_PIECES = [
    "%%{init: {'theme':'forest'}}%%", '%%{init: {"flowchart": {"htmlLabels": false}}}%%',
    '%%', '%', '%% comment', '#', '#35;', '#quot;', '#amp;', '#60;', '#x3C;', '&', '&amp;',
    '&lt;', '&#60;', '&#x3c;', '&nbsp;', '"', '\\', '`', '``', '```md```', '<', '>', '<br>',
    '<br/>', '<BR >', '<b>b</b>', '<i>', '<script>alert(1)</script>', '<img src=x onerror=x>',
    ']', '[', '}', '{', '{{', '}}', ')', '(', '|', ';', ':', '::', '-->', '---', '==>', '~~~',
    '-. x .->', 'end', 'subgraph', 'style x fill:#f00;', 'classDef c stroke:#f00;',
    'click x call alert()', 'linkStyle 0', 'fa:fa-car', 'fab:fa-github', 'fa:fa-', '$$',
    '$$x^2$$', '$', '*em*', '_u_', '**b**', 'ﬂ°°', 'ﬂ°', '¶ß', 'ﬂ°°60¶ß',
    'ﬂ°lt¶ß',
    '\\N', '\\G', '\\E', '\\T', '\\H', '\\L', '\\l', '\\n', '\\r', "'", 'style', 'A', 'z',
    '0', ' ', '  ', '\n', '\r', '\r\n', '\t', '\x00', '\x01', '\x07', '\x1b[31m', '\x1f',
    '\x7f', '\x80', '\x85', '\x9f', '\u00a0', '\u00ad', '\u034f', '\u061c', '\u180e',
    '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2028', '\u2029', '\u202a', '\u202b',
    '\u202c', '\u202d', '\u202e', '\u2060', '\u2066', '\u2067', '\u2068', '\u2069', '\u3000',
    '\ufeff', '\ufffd', '\ufffe', '\uffff', '\ue000', '\U000f0000', '\U0001f600', '\u0301',
    'é', 'ß', '等待', 'Ω', '\U0001d400', '\u0627\u0644', '\u05d0',
]
# Characters of names: Orbit identifiers (letters, digits, `_`, marks, connector
# punctuation), among them Mermaid's entity markers' letters and right-to-left letters.
NAME_START = list('abcxyzAZ_') + ['é', 'ß', 'ﬂ', 'Ω', '等', 'ж', '\u05d0', '\u0627', 'ǅ',
                                  'ℵ']
NAME_MORE = NAME_START + list('0189') + ['\u0301', '\u0308', '\u203f', '\u2040', '٣']
DURATIONS = ['1ms', '999ms', '1s', '90s', '1m', '59m', '1h', '1h30m', '24h', '7d', '365d']


def random_string(rng, longest):
    if rng.random() < 0.05:   # a long one
        return ''.join(rng.choice(STRING_PIECES) for _ in range(rng.randint(100, 400)))
    text = []
    for _ in range(rng.randint(0, longest)):
        r = rng.random()
        if r < 0.75:
            text.append(rng.choice(STRING_PIECES))
        elif r < 0.9:
            text.append(chr(rng.randint(0x20, 0x7e)))
        else:   # any character Python's Unicode knows (orbitc's may be newer)
            while True:
                ch = chr(rng.choice([rng.randint(0, 0x2fff), rng.randint(0, 0x10ffff)]))
                if unicodedata.category(ch) not in ('Cn', 'Cs'):
                    break
            text.append(ch)
    return ''.join(text)


def orbit_source_string(rng, text):
    """`text` as an Orbit string literal, each character written as it is or as an escape."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append('\\' + ch)
        elif ch == '\n':
            out.append('\\n')
        elif ord(ch) < 0x20 or ord(ch) == 0x7f or rng.random() < 0.3:
            out.append(rng.choice(['\\u{%X}', '\\u{%x}', '\\u{%06X}']) % ord(ch))
        else:
            out.append(ch)
    return '"' + ''.join(out) + '"'


def random_name(rng, k):
    length = rng.choice([1, 2, 4, 8, 8, 12, 300]) if rng.random() < 0.05 else rng.randint(1, 10)
    name = rng.choice(NAME_START) + ''.join(rng.choice(NAME_MORE) for _ in range(length - 1))
    return '%s_%d' % (name, k)   # unique, and never a keyword


def random_program(rng):
    """An Orbit program of two workflows whose names and strings are random: every kind
    of step, compensations, a `for`, a `when`, retries, steps without a timeout (their
    names in the worst case's reason)."""
    names = iter(random_name(rng, k) for k in range(1000))
    strings = [random_string(rng, 8) for _ in range(4)]
    lit = lambda s: orbit_source_string(rng, s)
    dur = lambda: rng.choice(DURATIONS)
    maybe = lambda: '; timeout ' + dur() if rng.random() < 0.7 else ''   # or unbounded
    parent, child = next(names), next(names)
    lines = ['worker %s {}' % lit(s) for s in sorted(set(strings[:2]))]
    lines += ['workflow %s {' % parent, '  input { items: [string], flag: bool }']
    if rng.random() < 0.7:
        lines.append('  timeout %s' % dur())
    lines += [
        '  step %s {' % next(names),
        '    worker %s' % lit(strings[0]),
        '    retry { attempts: %d, backoff: %s }' % (rng.randint(1, 6),
                                                 rng.choice(['fixed', 'exponential'])),
        '    timeout %s' % dur() if rng.random() < 0.8 else '',
        '    compensate { worker %s%s }' % (lit(strings[1]), maybe()),
        '  }',
        '  step %s { await %s%s }' % (next(names), lit(strings[2]), maybe()),
        '  step %s { workflow %s; for %s in input.items; with { x: %s }%s }' % (
            next(names), child, next(names), lit(strings[3]), maybe()),
        '  step %s { using orbit.http.request; with { url: %s }; when input.flag; timeout %s }' % (
            next(names), lit(strings[3]), dur()),
        '  step %s { sleep %s }' % (next(names), dur()),
        '  step %s { compute %s }' % (next(names), lit(strings[3])),
        '}',
        'workflow %s {' % child,
        '  input { x: string }',
        '  step %s { await %s }' % (next(names), lit(strings[3])),
        '  step %s { worker %s; timeout %s }' % (next(names), lit(strings[1]), dur()),
        '}',
    ]
    return '\n'.join(lines) + '\n'


def write_random_programs(rng, count, tmp):
    paths = []
    for k in range(count):
        path = os.path.join(tmp, 'fuzz-%d.orbit' % k)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(random_program(rng))
        paths.append(path)
    return paths


# The golden cases whose labels are checked in both renderers (drawing is slow: the
# others hold no name or string that these do not).
LABEL_CASES = ['adversarial', 'escape']


def labelled_programs(opts, tmp, outputs):
    """The graphs whose labels are checked in every run (prepare_labels): the golden
    cases of LABEL_CASES (`outputs`: golden's) and --fuzz-cases random programs (seed
    --fuzz-seed)."""
    programs = [CASES[name] for name in LABEL_CASES]
    programs += write_random_programs(random.Random(opts.fuzz_seed), opts.fuzz_cases, tmp)
    return prepare_labels(opts, tmp, programs, 'labels (random programs of seed %d)'
                          % opts.fuzz_seed, outputs)


def fuzz(opts, tmp):
    """The long run: random programs (seed --fuzz-seed) in batches of 50, each batch drawn
    by one Node process, for --fuzz-seconds; it stops at the first batch that fails
    (its programs copied to --fuzz-keep)."""
    rng = random.Random(opts.fuzz_seed)
    start, cases, batch = time.monotonic(), 0, 0
    while time.monotonic() - start < opts.fuzz_seconds:
        programs = write_random_programs(rng, 50, tmp)
        before = len(failures)
        what = 'fuzz (seed %d, batch %d)' % (opts.fuzz_seed, batch)
        graphs = prepare_labels(opts, tmp, programs, what)
        verify_labels(graphs, run_mermaid([], [path for _, _, path in graphs], what)[1], what,
                      True)
        if len(failures) > before:
            for path in programs if opts.fuzz_keep else []:
                shutil.copy(path, os.path.join(opts.fuzz_keep, 'batch%d-%s' % (
                    batch, os.path.basename(path))))
            break
        cases += len(programs)
        batch += 1
    print('fuzz: %d random programs (seed %d) drawn without a failure in %.0f s'
          % (cases, opts.fuzz_seed, time.monotonic() - start))


def dot_label_lines(dot):
    """The lines of every label of a DOT text as orbitc writes it (nodes, clusters,
    edges), unescaped."""
    lines = []
    for label in re.findall(r'label="((?:[^"\\]|\\.)*)"', dot):
        text = re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else m.group(1), label)
        lines += text.replace('&amp;', '&').split('\n')
    return lines


def mermaid_label_lines(mmd):
    """The lines of every label of a Mermaid text as orbitc writes it, entity codes
    decoded and separators (<span></span>) dropped."""
    lines = []
    for label in re.findall(r'"([^"]*)"', mmd) + re.findall(r'-(?:-|\.) ([a-z ]+) (?:--|\.-)>', mmd):
        for line in label.replace('<span></span>', '').split('<br>'):
            lines.append(re.sub(r'#(\d+);', lambda m: chr(int(m.group(1))), line))
    return lines


def svg_text_lines(path, tag):
    """The text lines of the SVG's `tag` elements (text: Graphviz's; p: the HTML
    paragraphs of Mermaid's labels, a line per <br>)."""
    lines = []
    for el in ET.parse(path).iter():
        if el.tag.rsplit('}', 1)[-1] != tag:
            continue
        line = el.text or ''
        for child in el:   # Mermaid: <p>line<br/>line</p>
            lines.append(line)
            line = child.tail or ''
        lines.append(line)
    return lines


def docs_pictures():
    """docs/graph-checkout.svg and docs/graph-checkout-mermaid.svg show the label lines
    of today's graph of the checkout example, no more, no less."""
    with open(os.path.join(GOLDEN, 'checkout.dot'), encoding='utf-8') as f:
        want = sorted(dot_label_lines(f.read()))
    got = sorted(svg_text_lines(os.path.join(ROOT, 'docs', 'graph-checkout.svg'), 'text'))
    if got != want:
        fail('docs/graph-checkout.svg is not the checkout example\'s graph of today: render it '
             'again (docs/cli.md, "orbitc graph"): %s' % sorted(set(got) ^ set(want))[:6])
    with open(os.path.join(GOLDEN, 'checkout.mmd'), encoding='utf-8') as f:
        want = sorted(mermaid_label_lines(f.read()))
    got = sorted(svg_text_lines(os.path.join(ROOT, 'docs', 'graph-checkout-mermaid.svg'), 'p'))
    if got != want:
        fail('docs/graph-checkout-mermaid.svg is not the checkout example\'s graph of today: '
             'render it again (tools/render_mermaid.mjs): %s' % sorted(set(got) ^ set(want))[:6])


def command_line(opts):
    program = CASES['checkout']
    status, out, err = orbitc(opts, 'graph', '--workflow', 'pack_items', '--format', 'json',
                              program)
    names = [w['name'] for w in json.loads(out)['workflows']] if status == 0 else None
    if names != ['pack_items']:
        fail('--workflow pack_items: status %d, workflows %s' % (status, names))
    status, out, err = orbitc(opts, 'graph', '--workflow', 'checkout', '--format', 'json',
                              program)
    names = [w['name'] for w in json.loads(out)['workflows']] if status == 0 else None
    if names != ['checkout', 'pack_items']:
        fail('--workflow checkout (and the workflow it starts): %s' % names)
    status, out, err = orbitc(opts, 'graph', '--workflow', 'chekout', program)
    if status != 2 or 'no workflow `chekout`' not in err or 'did you mean `checkout`?' not in err:
        fail('--workflow chekout: status %d, %r' % (status, err))
    status, out, err = orbitc(opts, 'graph', '--format', 'svg', program)
    if status != 2 or 'expected `dot`, `mermaid` or `json`' not in err:
        fail('--format svg: status %d, %r' % (status, err))
    status, out, err = orbitc(opts, 'graph', '--color=never', 'tests/golden/e0410/attempts.orbit')
    if status != 1 or out or 'error[E0410]' not in err:
        fail('a program with errors: status %d, stdout %r, stderr %r' % (status, out, err))
    status, out, err = orbitc(opts, 'graph')
    if status != 2:
        fail('graph without a path: status %d' % status)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--update', action='store_true')
    ap.add_argument('--fuzz-cases', type=int, default=4,
                    help='random programs drawn with the golden ones (default 4)')
    ap.add_argument('--fuzz-seed', type=int, default=1)
    ap.add_argument('--fuzz-only', action='store_true',
                    help='only random programs, for --fuzz-seconds (the long run)')
    ap.add_argument('--fuzz-seconds', type=float, default=60)
    ap.add_argument('--fuzz-keep', help='a directory where the programs of a failing batch go')
    opts = ap.parse_args()
    opts.orbitc = os.path.abspath(opts.orbitc)
    with tempfile.TemporaryDirectory(prefix='orbitc-graph-') as tmp:
        if opts.fuzz_only:
            fuzz(opts, tmp)
        else:
            outputs = golden(opts)
            renders(opts)
            mermaid_parses(opts, tmp, labelled_programs(opts, tmp, outputs))
    if not opts.fuzz_only:
        command_line(opts)
        docs_pictures()
    print('%d failures' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
