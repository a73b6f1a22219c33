#!/usr/bin/env python3
"""The examples of `orbitc explain` are tested, as rustc tests its error-code docs.

Every registered code has diagnostics/explain/CODE.md. Each ```orbit block in it is an
example, and its fence says which kind (docs/diagnostics.md, "Explanations"):

  ```orbit erroneous   must produce CODE, and no other code (`check`, then `build`;
                       a limit of the bytecode format, E06xx, only in `build`)
  ```orbit corrected   must check clean and build clean: no diagnostic at all

Options after the kind make inputs that cannot be written out in a document:

  bytes          `\\xNN` stands for the byte NN (invalid UTF-8)
  fill=N*TEXT    the next `…` of the example stands for N copies of TEXT (one `fill`
                 per `…`, in order)
  size=N         the file is extended to N bytes (a sparse file, never read)
  program        the example is an `orbit.program` (a program's configuration): it is
                 written in a directory beside a clean source file, and the directory
                 is checked and built

A lint (LINT in codes.def) is enabled with `--warn CODE` for both kinds. A file without
an erroneous example, an unmarked or unknown fence, or a `…` without its `fill` fails.
Ends with `N passed, N failed`.

With --reference DIR, the same rules run over the Markdown pages of the language
reference (docs/reference/*.md) instead, where examples sit among other blocks:

  ```orbit                       a plain example: must check clean and build clean
  ```orbit erroneous code=CODE   must produce CODE, and no other code
  ```sh, ```text, ```            not examples (any fence but ```orbit)

and every example is also formatted as `orbitc fmt` writes it (`fmt --check`), but for
a lexical or syntax error (E00xx, E01xx), which fmt does not format.

    test_explain.py --orbitc PATH [--reference DIR]
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
from embed import without_test_markup  # noqa: E402  (what `orbitc explain` prints)
EXPLAIN = os.path.join(ROOT, 'diagnostics', 'explain')
ELLIPSIS = '\u2026'
KINDS = ('erroneous', 'corrected')


class Example:
    def __init__(self, code, number, line, kind, text, page=None):
        self.code = code          # the code it shows (None: a clean example of a page)
        self.page = page          # the reference page it is on (None: an explanation)
        self.number = number      # 1-based, in file order
        self.line = line          # line of the opening fence
        self.kind = kind
        self.text = text
        self.bytes = False
        self.fills = []           # (count, text) per `…`
        self.size = None
        self.program = False      # the example is an orbit.program

    def name(self):
        if self.page:
            return '%s:%d (%s)' % (self.page, self.line, self.code or 'clean')
        return '%s.md:%d (%s example %d)' % (self.code, self.line, self.kind, self.number)

    def stem(self):
        """The name of its file in the work directory."""
        if self.page:
            return '%s_%d' % (re.sub(r'\W', '_', self.page), self.number)
        return '%s_%d' % (self.code, self.number)

    def source(self):
        """The bytes of the file this example stands for."""
        parts = self.text.split(ELLIPSIS)
        text = parts[0] + ''.join(fill * count + part
                                  for (count, fill), part in zip(self.fills, parts[1:]))
        data = text.encode('utf-8')
        if self.bytes:
            data = re.sub(rb'\\x([0-9a-fA-F]{2})', lambda m: bytes([int(m.group(1), 16)]), data)
        return data


def parse_options(example, words):
    """Reads the words after the kind into example; returns a list of problems."""
    problems = []
    for word in words:
        key, _, value = word.partition('=')
        if word == 'bytes':
            example.bytes = True
        elif key == 'fill' and re.match(r'[0-9]+\*.', value, re.S):
            count, _, fill = value.partition('*')
            example.fills.append((int(count), fill))
        elif key == 'size' and value.isdigit():
            example.size = int(value)
        elif word == 'program':
            example.program = True
        elif key == 'code' and example.page and re.fullmatch(r'[EW][0-9]{4}', value):
            example.code = value
        else:
            problems.append('unknown option `%s`' % word)
    elisions = example.text.count(ELLIPSIS)
    if elisions != len(example.fills):
        problems.append('%d `%s` but %d `fill=` options: say what each `%s` stands for'
                        % (elisions, ELLIPSIS, len(example.fills), ELLIPSIS))
    return problems


def extract(code, text, page=None):
    """The examples of one explanation (or, with page, of a page of the reference), and
    the problems of its markup."""
    examples, problems = [], []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        fence = re.match(r'```(.*)$', lines[i])
        if not fence:
            i += 1
            continue
        start = i
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith('```')), None)
        if end is None:
            problems.append('line %d: fence never closed' % (start + 1))
            break
        i = end + 1
        try:
            words = shlex.split(fence.group(1))
        except ValueError as e:
            problems.append('line %d: cannot read the fence: %s' % (start + 1, e))
            continue
        if page and (not words or words[0] != 'orbit'):
            continue  # a page's other blocks (shell, history, grammar) are not examples
        if page and len(words) == 1:
            words.append('corrected')  # a plain example of a page checks clean
        if not words or words[0] != 'orbit':
            problems.append('line %d: a block in an explanation is an ```orbit example' % (start + 1))
            continue
        if len(words) < 2 or words[1] not in KINDS:
            problems.append('line %d: say whether the example is ```orbit erroneous or '
                            '```orbit corrected' % (start + 1))
            continue
        example = Example(code, len(examples) + 1, start + 1, words[1],
                          '\n'.join(lines[start + 1:end]) + '\n', page)
        problems += ['line %d: %s' % (start + 1, p) for p in parse_options(example, words[2:])]
        if page and (example.kind == 'erroneous') != (example.code is not None):
            problems.append('line %d: an example of the reference is ```orbit (clean) or '
                            '```orbit erroneous code=CODE' % (start + 1))
            continue
        examples.append(example)
    if not page and not any(e.kind == 'erroneous' for e in examples):
        problems.append('no ```orbit erroneous example')
    return examples, problems


def registered_codes():
    """[(code, severity)] from codes.def, in order."""
    with open(os.path.join(ROOT, 'diagnostics', 'codes.def'), encoding='utf-8') as f:
        return re.findall(r'^\s*DIAG\((\w+),\s*(\w+),', f.read(), re.M)


def run(orbitc, args):
    """(exit status, [codes]) of one orbitc command with JSON output."""
    proc = subprocess.run([orbitc] + args, capture_output=True)
    codes = [json.loads(line)['code'] for line in proc.stdout.decode('utf-8').splitlines()
             if line.strip()]
    return proc.returncode, codes, proc.stderr.decode('utf-8', 'replace')


def run_fmt_check(orbitc, path):
    """`orbitc fmt --check --diff`: exit status 0 when the file is formatted."""
    proc = subprocess.run([orbitc, 'fmt', '--check', '--diff', path], capture_output=True)
    return (proc.returncode, proc.stdout.decode('utf-8', 'replace'),
            proc.stderr.decode('utf-8', 'replace'))


def judge(orbitc, example, severity, workdir):
    """None if the example does what its fence says, else what went wrong."""
    path = os.path.join(workdir, example.stem() + '.orbit')
    output = path + 'c'
    if example.program:  # the configuration of a program whose source is clean
        path = os.path.join(workdir, example.stem())
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, 'main.orbit'), 'w', encoding='utf-8') as f:
            f.write('workflow main {\n  step wait { sleep 1h }\n}\n')
        path = os.path.join(path, 'orbit.program')
    with open(path, 'wb') as f:
        f.write(example.source())
        if example.size is not None:
            f.truncate(example.size)
    if os.path.exists(output):
        os.remove(output)
    if example.program:
        path = os.path.dirname(path)
    flags = ['--format=json'] + (['--warn', example.code] if severity == 'LINT' else [])
    check_status, check_codes, check_err = run(orbitc, ['check'] + flags + [path])
    build_status, build_codes, build_err = run(orbitc, ['build'] + flags + [path, '-o', output])
    seen = 'check gave %s (exit %d), build gave %s (exit %d)%s' % (
        check_codes or 'nothing', check_status, build_codes or 'nothing', build_status,
        (': ' + (check_err or build_err).strip()) if check_err or build_err else '')
    if example.page and not re.match(r'E0[01]', example.code or ''):
        status, out, err = run_fmt_check(orbitc, path)
        if status != 0:
            return 'is not formatted as `orbitc fmt` writes it:\n' + (out + err).rstrip()
    if example.kind == 'corrected':
        clean = (check_status == 0 and build_status == 0 and not check_codes and not build_codes
                 and os.path.exists(output))
        return None if clean else 'must check and build clean, but ' + seen
    error = severity == 'ERROR'
    found_by_build_only = example.code.startswith('E06')
    want_check = [] if found_by_build_only else [example.code]
    ok = (sorted(set(check_codes)) == want_check and sorted(set(build_codes)) == [example.code]
          and check_status == (1 if error and not found_by_build_only else 0)
          and build_status == (1 if error else 0))
    if ok:
        return None
    where = 'build only' if found_by_build_only else 'check and build'
    return 'must give %s and no other code (%s), but %s' % (example.code, where, seen)


def self_test():
    """The markup rules fail where they must. Returns the problems of the rules."""
    bad = {
        'no erroneous example': '# E9999\n\n```orbit corrected\nworkflow w {}\n```\n',
        'an unmarked block': '# E9999\n\n```orbit\nworkflow w {}\n```\n',
        'a `…` without fill': '# E9999\n\n```orbit erroneous\nworkflow w { … }\n```\n',
        'an unknown option': '# E9999\n\n```orbit erroneous frobnicate\nworkflow w {}\n```\n',
        'an unclosed fence': '# E9999\n\n```orbit erroneous\nworkflow w {}\n',
    }
    failures = ['the rules accept %s' % what for what, text in bad.items()
                if not extract('E9999', text)[1]]
    good = ('# E9999\n\n```orbit erroneous bytes fill=3*[ "fill=2*a, b" size=99 program\n'
            'w\\xe9 … …\n```\n')
    examples, problems = extract('E9999', good)
    if (problems or examples[0].source() != b'w\xe9 [[[ a, ba, b\n' or examples[0].size != 99
            or not examples[0].program):
        failures.append('the options are not read as documented: %r %r'
                        % (problems, examples and examples[0].source()))
    # A page of the reference: other blocks are not examples, a plain ```orbit is clean,
    # an erroneous one says its code.
    page = ('# 9\n\n```sh\norbitc check .\n```\n\n```orbit\nworkflow w {}\n```\n\n'
            '```orbit erroneous code=E0410\nworkflow w {}\n```\n')
    examples, problems = extract(None, page, 'page.md')
    if problems or [(e.kind, e.code) for e in examples] != [('corrected', None),
                                                            ('erroneous', 'E0410')]:
        failures.append('a page\'s examples are not read as documented: %r %r'
                        % (problems, [(e.kind, e.code) for e in examples]))
    for what, text in {'an erroneous example without its code':
                       '```orbit erroneous\nworkflow w {}\n```\n',
                       'a clean example with a code':
                       '```orbit corrected code=E0410\nworkflow w {}\n```\n'}.items():
        if not extract(None, text, 'page.md')[1]:
            failures.append('the rules of a page accept %s' % what)
    return failures


def reference_pages(directory):
    """[(name, text)] of the reference's pages, in order."""
    names = sorted(n for n in os.listdir(directory) if n.endswith('.md'))
    pages = []
    for name in names:
        with open(os.path.join(directory, name), encoding='utf-8') as f:
            pages.append((name, f.read()))
    return pages


def run_reference(orbitc, directory, workdir):
    """(passed, failed) over the examples of the reference's pages."""
    severities = dict(registered_codes())
    passed = failed = 0
    for name, text in reference_pages(directory):
        examples, problems = extract(None, text, name)
        for problem in problems:
            failed += 1
            print('FAIL %s: %s' % (name, problem))
        for example in examples:
            if example.code and example.code not in severities:
                wrong = 'shows %s, which diagnostics/codes.def does not register' % example.code
            else:
                wrong = judge(orbitc, example, severities.get(example.code), workdir)
            if wrong:
                failed += 1
                print('FAIL %s: %s' % (example.name(), wrong))
            else:
                passed += 1
                print('ok   %s' % example.name())
    if passed + failed == 0:
        failed += 1
        print('FAIL %s: no example found' % directory)
    return passed, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--orbitc', required=True)
    parser.add_argument('--reference', metavar='DIR',
                        help='the examples of the language reference\'s pages instead')
    args = parser.parse_args()
    passed = failed = 0
    for failure in self_test():
        failed += 1
        print('FAIL self-test: ' + failure)
    if args.reference:
        with tempfile.TemporaryDirectory(prefix='orbit-reference-') as workdir:
            more_passed, more_failed = run_reference(args.orbitc, args.reference, workdir)
        print('%d passed, %d failed' % (passed + more_passed, failed + more_failed))
        sys.exit(1 if failed + more_failed else 0)
    with tempfile.TemporaryDirectory(prefix='orbit-explain-') as workdir:
        for code, severity in registered_codes():
            with open(os.path.join(EXPLAIN, code + '.md'), encoding='utf-8') as f:
                text = f.read()
            examples, problems = extract(code, text)
            for problem in problems:
                failed += 1
                print('FAIL %s.md: %s' % (code, problem))
            for example in examples:
                wrong = judge(args.orbitc, example, severity, workdir)
                if wrong:
                    failed += 1
                    print('FAIL %s: %s' % (example.name(), wrong))
                else:
                    passed += 1
                    print('ok   %s' % example.name())
            shown = subprocess.run([args.orbitc, 'explain', code], capture_output=True).stdout
            if shown != without_test_markup(text.encode('utf-8')):
                failed += 1
                print('FAIL %s: `orbitc explain %s` does not print %s.md with plain ```orbit '
                      'fences' % (code, code, code))
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
