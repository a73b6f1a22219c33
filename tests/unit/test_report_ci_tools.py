#!/usr/bin/env python3
"""The CI formats of `orbitc test` read by the tools CI systems use.

tests/unit/test_report_ci.c checks the exact text of each writer; this checks that the
tools accept it and give the verdict the run deserves. Its documents are the ones that
`test_report_ci --write DIR` writes (REPORT_CI_SAMPLES names DIR: meson builds them),
for a run where every test passed and one where tests failed, one could not run, and
names and values hold markup characters, a newline, control characters and invalid
UTF-8:

- JUnit XML: `xmllint --schema` against Jenkins' JUnit schema
  (tests/support/schemas/junit-10.xsd, the upstream text). That schema predates the
  `file` and `line` of <testcase> that GitLab and GitHub's JUnit reporters read, so the
  document is validated without those two attributes, which are checked on their own.
- TAP: `prove` (Perl's Test::Harness) passes the passing run and fails the failing one,
  naming tests 2 to 4, with no parse error. Debian's Test::Harness (3.44) knows TAP up to
  version 13 and reports any `TAP version 14` line as a parse error; the writers use
  nothing of version 14 beyond that line (TAP 14 is TAP 13's syntax with that header), so
  prove reads the document with the header said as 13.
- TAP: node-tap's parser (tap-parser, the reference implementation of TAP 14; tools/tap/,
  installed by tools/install-npm.sh) reads the document as written, in strict mode: the
  version, the plan, each test point's name (escapes undone) and its YAML diagnostic.

Each check is also run on a broken copy of a document, which the tool must refuse: a
check that could not fail would prove nothing.

    test_report_ci_tools.py   (REPORT_CI_SAMPLES=DIR)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import expect, main, test  # noqa: E402
from support.paths import ROOT  # noqa: E402

SCHEMA = os.path.join(ROOT, 'tests', 'support', 'schemas', 'junit-10.xsd')
TAP_PARSER = os.path.join(ROOT, 'tools', 'tap')


def sample(name):
    directory = os.environ.get('REPORT_CI_SAMPLES') or os.path.join(ROOT, 'build', 'tests')
    return os.path.join(directory, 'report_ci_' + name)


def read(name):
    with open(sample(name), encoding='utf-8') as f:
        return f.read()


def tool(name):
    path = shutil.which(name)
    expect(path, '%s is not installed: tools/install-deps.sh installs it' % name)
    return path


def in_temp(name, text):
    fd, path = tempfile.mkstemp(suffix='-' + name)
    with os.fdopen(fd, 'w', encoding='utf-8') as f:
        f.write(text)
    return path


# ---- JUnit XML ----

def without_file_and_line(text):
    """The document with <testcase>'s `file` and `line` taken out, and [(file, line)] of
    each test case: the extension junit-10.xsd does not know."""
    root = ET.fromstring(text.encode('utf-8'))
    places = []
    for case in root.iter('testcase'):
        places.append((case.attrib.pop('file', None), case.attrib.pop('line', None)))
    return ET.tostring(root, encoding='unicode'), places


def xmllint(text):
    path = in_temp('junit.xml', text)
    try:
        return subprocess.run([tool('xmllint'), '--noout', '--schema', SCHEMA, path],
                              capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)


def expect_valid_junit(name, places):
    raw = read(name)
    lint = subprocess.run([tool('xmllint'), '--noout', sample(name)], capture_output=True,
                          text=True, timeout=60)
    expect(lint.returncode == 0, '%s is not well-formed XML:\n%s' % (name, lint.stderr))
    stripped, found = without_file_and_line(raw)
    expect(found == places, '%s: file and line of the test cases: %r, expected %r'
           % (name, found, places))
    result = xmllint(stripped)
    expect(result.returncode == 0, '%s does not validate against junit-10.xsd:\n%s'
           % (name, result.stderr))
    return stripped


@test
def junit_of_a_passing_run_validates():
    expect_valid_junit('passing.xml', [('shop/checkout.test.orbit', '2'),
                                       ('shop/checkout.test.orbit', '20')])


@test
def junit_of_a_failing_run_validates():
    stripped = expect_valid_junit('failing.xml', [
        ('shop/checkout.test.orbit', '2'), ('shop/checkout.test.orbit', '20'),
        ('shop/refund.test.orbit', '4'), ('billing/invoice.test.orbit', '1')])
    root = ET.fromstring(stripped)
    suites = root.findall('testsuite')
    expect([s.get('name') for s in suites] == ['shop', 'billing'], 'a testsuite per program')
    cases = root.findall('testsuite/testcase')
    expect([len(c.findall('failure')) for c in cases] == [0, 2, 0, 1], 'a failure per expectation')
    expect(cases[2].find('error') is not None, 'an error for the test that could not run')
    expect(cases[2].get('name') == 'refund <&"\'> runs', 'the name read back: %r' % cases[2].get('name'))
    expect(cases[3].get('name') == 'line one\nline two \ufffd#1\\',
           'the name read back: %r' % cases[3].get('name'))


@test
def a_broken_junit_document_is_refused():
    stripped, _ = without_file_and_line(read('failing.xml'))
    # A <failure> outside its <testcase>, and a test case without its name.
    broken = stripped.replace('<testsuite name="billing"', '<failure/><testsuite name="billing"', 1)
    expect(broken != stripped, 'the document was not broken')
    expect(xmllint(broken).returncode != 0, 'xmllint accepted a <failure> outside a <testcase>')
    nameless = stripped.replace('<testcase name="a declined card is charged once"', '<testcase', 1)
    expect(xmllint(nameless).returncode != 0, 'xmllint accepted a test case without a name')
    # The file and line kept: the schema refuses them, which is why they are taken out.
    expect(xmllint(read('failing.xml')).returncode != 0,
           'junit-10.xsd now allows file and line on <testcase>: validate the document whole')


# ---- TAP ----

def prove(text):
    lines = text.split('\n')
    expect(lines[0] == 'TAP version 14', 'the first line is %r' % lines[0])
    path = in_temp('report.tap', '\n'.join(['TAP version 13'] + lines[1:]))
    try:
        return subprocess.run([tool('prove'), '--exec', 'cat', path], capture_output=True,
                              text=True, timeout=60, cwd=os.path.dirname(path))
    finally:
        os.unlink(path)


@test
def prove_passes_a_passing_run():
    result = prove(read('passing.tap'))
    expect(result.returncode == 0, 'prove failed a passing run:\n%s%s' % (result.stdout, result.stderr))
    expect('Result: PASS' in result.stdout, result.stdout)


@test
def prove_fails_a_failing_run():
    result = prove(read('failing.tap'))
    expect(result.returncode != 0, 'prove passed a failing run:\n%s' % result.stdout)
    expect('Tests: 4 Failed: 3' in result.stdout, result.stdout)
    expect('Failed tests:  2-4' in result.stdout, result.stdout)
    expect('Parse errors' not in result.stdout, 'prove could not read it:\n%s' % result.stdout)


@test
def a_broken_tap_document_is_refused():
    text = read('passing.tap')
    # One test point missing: the plan says 2.
    broken = text.replace('ok 2 - a good card\n', '')
    expect(broken != text, 'the document was not broken')
    result = prove(broken)
    expect(result.returncode != 0 and 'Bad plan' in result.stdout,
           'prove passed a run with a test missing:\n%s' % result.stdout)
    # A YAML block that is not YAML.
    failing = read('failing.tap')
    bad_yaml = failing.replace('  message: "2 expectations failed"', '  message: "2 expectations', 1)
    expect(bad_yaml != failing, 'the YAML was not broken')
    result = prove(bad_yaml)
    expect('Parse errors' in result.stdout or 'YAML' in result.stdout + result.stderr,
           'prove read a broken YAML block:\n%s%s' % (result.stdout, result.stderr))


def tap_parser(text):
    """What tools/tap/parse.mjs makes of `text`, or None when tap-parser is not installed
    (a failure under ORBIT_REQUIRE_NPM_TOOLS, which tools/test.sh sets)."""
    if not os.path.isdir(os.path.join(TAP_PARSER, 'node_modules', 'tap-parser')):
        expect(not os.environ.get('ORBIT_REQUIRE_NPM_TOOLS'),
               'tap-parser is not installed: run tools/install-npm.sh')
        print('note: tools/install-npm.sh installs tap-parser (tools/test.sh requires it)')
        return None
    path = in_temp('report.tap', text)
    try:
        run = subprocess.run([tool('node'), os.path.join(TAP_PARSER, 'parse.mjs'), path],
                             capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)
    expect(run.returncode == 0, 'tools/tap/parse.mjs failed:\n%s' % run.stderr)
    return json.loads(run.stdout)


@test
def tap_parser_reads_version_14():
    passing = tap_parser(read('passing.tap'))
    if passing is None:
        return
    expect(passing['version'] == 14 and passing['ok'] and not passing['errors'],
           'passing run: %r' % passing)
    expect(passing['plan'] == {'start': 1, 'end': 2} and passing['pass'] == 2, repr(passing))
    failing = tap_parser(read('failing.tap'))
    expect(failing['version'] == 14 and not failing['ok'] and not failing['errors'],
           'failing run: %r' % failing)
    expect([t['ok'] for t in failing['tests']] == [True, False, False, False], repr(failing['tests']))
    names = [t['name'] for t in failing['tests']]
    expect(names[2:] == ['refund <&"\'> runs', 'line one line two \ufffd#1\\'], repr(names))
    diag = failing['tests'][1]['diag']
    expect(diag['severity'] == 'fail' and diag['at'] == {'file': 'shop/checkout.test.orbit',
                                                         'line': 20, 'column': 1}, repr(diag))
    expect([(f['what'], f['expected'], f['actual'], f['at']['line']) for f in diag['failures']]
           == [('status', 'failed', 'completed', 27), ('step charge: attempts', '3', '1', 28)],
           repr(diag['failures']))
    expect(diag['divergence'].startswith('+ 10ms #4 StepCompleted'), repr(diag))
    odd = failing['tests'][3]['diag']['failures'][0]
    expect(odd['actual'] == '"bad\x01\ufffd%"', 'read back: %r' % odd['actual'])
    error = failing['tests'][2]['diag']
    expect(error['severity'] == 'error' and 'unknown step' in error['message'], repr(error))


@test
def tap_parser_refuses_a_broken_document():
    text = read('passing.tap')
    missing = tap_parser(text.replace('ok 2 - a good card\n', ''))
    if missing is None:
        return
    expect(not missing['ok'], 'a run with a test missing passed: %r' % missing)
    stray = tap_parser(text + 'a line that is not TAP\n')
    expect(not stray['ok'] and stray['errors'], 'a line that is not TAP passed: %r' % stray)


if __name__ == '__main__':
    main(programs=())
