#!/usr/bin/env python3
"""The coverage's machine formats (testing/coverage.c, `orbitc test --coverage-format
json|lcov`, docs/testing.md "Coverage") are what their readers take:

- lcov: a tracefile that lcov's own tools read without a warning: genhtml renders it to
  HTML, with branches and functions, and `lcov --summary` reads it; the same check run on
  a tracefile that genhtml warns about must fail, or the check proves nothing.
- JSON: a document that docs/coverage.schema.json accepts, keys in its order
  (tools/validate_json.py), and whose kinds of items are exactly the schema's.

Both are those of examples/checkout.orbit over the three scenarios of tests/unit/coverage/,
written by the unit test's writer (`test_coverage ROOT --write DIR --source-root ROOT`;
$TEST_COVERAGE, else build/tests/unit/test_coverage).

  test_coverage_formats.py [-k NAME]   (genhtml and lcov: Debian's lcov, tools/install-deps.sh)
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support import paths  # noqa: E402
from support.cases import expect, main as run_cases, test  # noqa: E402

TMP = None


def writer():
    path = os.environ.get('TEST_COVERAGE') or os.path.join(paths.build_dir(), 'tests', 'unit',
                                                           'test_coverage')
    expect(os.path.exists(path), '%s does not exist (build first, or set TEST_COVERAGE)' % path)
    return path


def tool(name):
    path = shutil.which(name)
    expect(path is not None, '%s is not installed: tools/install-deps.sh installs lcov' % name)
    return path


def problems(argv):
    """What the lcov tool says that is not its ordinary progress: a failure, an ERROR or a
    WARNING anywhere in its output."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    found = [line for line in (p.stdout + p.stderr).splitlines()
             if 'WARNING' in line or 'ERROR' in line]
    if p.returncode != 0:
        found.append('%s exited with %d: %s' % (os.path.basename(argv[0]), p.returncode,
                                                p.stderr.strip()))
    return found


def check_tracefile(tracefile, out):
    """genhtml (branches and functions on) and lcov --summary over the tracefile."""
    found = problems([tool('genhtml'), '--branch-coverage', '--function-coverage', '--quiet',
                      '--output-directory', out, tracefile])
    found += problems([tool('lcov'), '--summary', tracefile, '--rc', 'lcov_branch_coverage=1'])
    return found


def checkout_files(name):
    """The directory where the writer wrote checkout.txt, .json and .lcov."""
    directory = os.path.join(TMP, name)
    os.makedirs(directory, exist_ok=True)
    p = subprocess.run([writer(), paths.ROOT, '--write', directory, '--source-root', paths.ROOT],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    expect(p.returncode == 0, 'test_coverage --write failed:\n%s' % p.stdout)
    return directory


def checkout_tracefile(name):
    return os.path.join(checkout_files(name), 'checkout.lcov')


@test
def genhtml_renders_the_checkout_coverage_without_a_warning():
    tracefile = checkout_tracefile('checkout')
    html = os.path.join(TMP, 'html')
    found = check_tracefile(tracefile, html)
    expect(not found, 'lcov tools complained:\n' + '\n'.join(found))
    page = os.path.join(html, 'examples', 'checkout.orbit.gcov.html')
    expect(os.path.exists(page), 'genhtml wrote no page for examples/checkout.orbit')
    with open(page, encoding='utf-8', errors='replace') as f:
        text = f.read()
    # The source is shown with its counts: the workflow's name, and a branch's hits.
    expect('workflow checkout' in text, 'the page does not show the source')
    expect('Branch' in text and 'taken' in text, 'the page shows no branches')


@test
def the_check_fails_on_a_tracefile_genhtml_warns_about():
    tracefile = checkout_tracefile('broken')
    with open(tracefile, encoding='utf-8') as f:
        text = f.read()
    expect(text.startswith('TN:\n'), 'the tracefile does not start with TN:')
    with open(tracefile, 'w', encoding='utf-8') as f:
        f.write('TN:two words\n' + text[len('TN:\n'):])   # an invalid test name: a warning
    found = check_tracefile(tracefile, os.path.join(TMP, 'html-broken'))
    expect(any('WARNING' in line for line in found),
           'no warning found for an invalid test name: %s' % found)


@test
def the_json_matches_its_schema():
    document = os.path.join(checkout_files('json'), 'checkout.json')
    schema = os.path.join(paths.ROOT, 'docs', 'coverage.schema.json')
    p = subprocess.run([sys.executable, os.path.join(paths.ROOT, 'tools', 'validate_json.py'),
                        '--document', schema, document],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    expect(p.returncode == 0, 'docs/coverage.schema.json refuses the JSON:\n%s' % p.stdout)
    # The checkout program has an item of every kind: the schema names exactly those.
    with open(schema, encoding='utf-8') as f:
        kinds = json.load(f)['$defs']['item']['properties']['item']['enum']
    with open(document, encoding='utf-8') as f:
        seen = {item['item'] for w in json.load(f)['workflows'] for item in w['items']}
    expect(set(kinds) == seen, 'the schema names %s, the JSON has %s'
           % (sorted(set(kinds) - seen), sorted(seen - set(kinds))))


if __name__ == '__main__':
    sys.exit(run_cases(programs=()))
