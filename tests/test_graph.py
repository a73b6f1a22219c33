#!/usr/bin/env python3
"""Tests of `orbitc graph` (docs/cli.md, "orbitc graph") against the real consumers:

- golden outputs: each case's DOT, Mermaid and JSON compared exactly with
  golden/graph/NAME.dot, .mmd and .json (--update rewrites them: read `git diff`);
- every JSON output valid against docs/graph.schema.json, keys in the documented order
  (tools/validate_json.py);
- Graphviz (`dot -Tsvg`) renders the graph of every golden program that checks without
  errors, with nothing on standard error (no warning) and a well-formed SVG;
- the real Mermaid parser (the `mermaid` npm package, headless in Node with jsdom:
  tools/mermaid/, installed by tools/install-npm.sh) reads the Mermaid output of
  every golden program that checks;
- the command line: --workflow, its did-you-mean, a program with errors, a bad --format;
- the rendered pictures of docs/ are current: docs/graph-checkout.svg (`dot -Tsvg`) and
  docs/graph-checkout-mermaid.svg (tools/render_mermaid.mjs) show exactly the label lines
  of the checkout example's graph as orbitc writes it today (golden/graph/checkout.dot
  and .mmd, themselves compared with orbitc above).

    test_graph.py --orbitc build/cli/orbitc [--update]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, 'golden', 'graph')
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import validate_json  # noqa: E402

# name -> the program it draws (paths relative to the repository)
CASES = {
    'checkout': 'examples/checkout.orbit',
    'escape': 'golden/graph/escape.orbit',
    'unbounded': 'golden/worst/unbounded.orbit',
    'fan_out_child': 'golden/worst/fan_out_child.orbit',
    'huge': 'golden/worst/huge.orbit',
}
FORMATS = {'dot': 'dot', 'mermaid': 'mmd', 'json': 'json'}
SCHEMA = os.path.join(ROOT, 'docs', 'graph.schema.json')

failures = []


def orbitc(opts, *args):
    p = subprocess.run([opts.orbitc] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode('utf-8'), p.stderr.decode('utf-8', 'replace')


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
    for name, program in sorted(CASES.items()):
        for fmt, ext in FORMATS.items():
            status, out, err = orbitc(opts, 'graph', '--format', fmt, program)
            if status != 0:
                fail('%s --format %s: status %d: %s' % (name, fmt, status, err))
                continue
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


def golden_programs():
    """Every golden program: its .orbit file, or its .case directory."""
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, 'golden', '**', '*'), recursive=True)):
        if path.endswith('.case') and os.path.isdir(path):
            found.append(path)
        elif path.endswith('.orbit') and '.case' + os.sep not in path:
            found.append(path)
    return found


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
    if drawn < 50:
        fail('only %d golden programs were drawn' % drawn)


MERMAID = os.path.join(ROOT, 'tools', 'mermaid')


def mermaid_parses(opts, tmp):
    """The real Mermaid parser (tools/mermaid/parse.mjs, headless in Node) reads the
    Mermaid output of every golden program that checks."""
    if not os.path.isdir(os.path.join(MERMAID, 'node_modules', 'mermaid')):
        if os.environ.get('ORBIT_REQUIRE_NPM_TOOLS'):
            fail('the Mermaid parser is not installed: run tools/install-npm.sh')
        else:
            print('note: Mermaid output not parsed: tools/install-npm.sh installs the '
                  'parser (tools/test.sh requires it)')
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
    p = subprocess.run(['node', os.path.join(MERMAID, 'parse.mjs')] + paths, cwd=MERMAID,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    lines = p.stdout.decode('utf-8', 'replace').splitlines()
    parsed = sum(1 for l in lines if l.startswith('ok '))
    for line in lines:
        if line.startswith('FAIL'):
            fail('mermaid: ' + line)
    if p.returncode != 0 and not failures:
        fail('mermaid: parse.mjs: status %d: %s' % (p.returncode, p.stderr.decode()[-2000:]))
    print('the Mermaid parser read %d graphs' % parsed)
    if parsed != len(paths):
        fail('mermaid: %d of %d graphs parsed' % (parsed, len(paths)))


MERMAID_ENTITIES = {'#quot;': '"', '#35;': '#', '#amp;': '&', '#lt;': '<', '#gt;': '>',
                    '#96;': '`'}


def dot_label_lines(dot):
    """The lines of every label of a DOT text as orbitc writes it (nodes, clusters,
    edges), unescaped."""
    lines = []
    for label in re.findall(r'label="((?:[^"\\]|\\.)*)"', dot):
        lines += [re.sub(r'\\(["\\])', r'\1', line) for line in label.split('\\n')]
    return lines


def mermaid_label_lines(mmd):
    """The lines of every label of a Mermaid text as orbitc writes it, entities decoded."""
    lines = []
    for label in re.findall(r'"([^"]*)"', mmd) + re.findall(r'-(?:-|\.) ([a-z ]+) (?:--|\.-)>', mmd):
        for line in label.split('<br>'):
            lines.append(re.sub(r'#(?:quot|35|amp|lt|gt|96);', lambda m: MERMAID_ENTITIES[m.group(0)], line))
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
    status, out, err = orbitc(opts, 'graph', '--color=never', 'golden/e0410/attempts.orbit')
    if status != 1 or out or 'error[E0410]' not in err:
        fail('a program with errors: status %d, stdout %r, stderr %r' % (status, out, err))
    status, out, err = orbitc(opts, 'graph')
    if status != 2:
        fail('graph without a path: status %d' % status)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--update', action='store_true')
    opts = ap.parse_args()
    opts.orbitc = os.path.abspath(opts.orbitc)
    golden(opts)
    renders(opts)
    with tempfile.TemporaryDirectory(prefix='orbitc-graph-') as tmp:
        mermaid_parses(opts, tmp)
    command_line(opts)
    docs_pictures()
    print('%d failures' % len(failures))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
