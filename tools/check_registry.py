#!/usr/bin/env python3
"""The registry is complete: every code in diagnostics/codes.def has an explanation
(diagnostics/explain/CODE.md with a title, an ```orbit example and some prose) and at
least one golden test whose expected JSON output contains it; and every code that a
golden test expects is registered. Ends with `N passed, N failed`."""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# Codes that no golden file can show, each with the test that covers it instead. The
# test file must mention the code.
COVERED_ELSEWHERE = {
    'E0010': 'tests/cli/test_cli.py',   # needs a file over 256 MiB: a sparse file made at test time
}


def registered_codes():
    codes = []
    with open(os.path.join(ROOT, 'diagnostics', 'codes.def'), encoding='utf-8') as f:
        for line in f:
            m = re.match(r'\s*DIAG\((\w+),\s*(\w+),', line)
            if m:
                codes.append(m.group(1))
    return codes


def expected_codes():
    """code -> first golden file that expects it."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, 'tests', 'golden', '**', '*.jsonl'), recursive=True)):
        with open(path, encoding='utf-8') as f:
            for line in f:
                if line.strip():
                    found.setdefault(json.loads(line)['code'], path)
    return found


def explanation_problem(code):
    path = os.path.join(ROOT, 'diagnostics', 'explain', code + '.md')
    try:
        text = open(path, encoding='utf-8').read()
    except OSError:
        return 'no explanation file %s' % os.path.relpath(path, ROOT)
    if not text.startswith('# ' + code):
        return 'explanation does not start with "# %s"' % code
    if '```orbit' not in text:
        return 'explanation has no ```orbit example'
    if len(text) < 300:
        return 'explanation is too short to explain anything (%d bytes)' % len(text)
    return None


def main():
    codes = registered_codes()
    expected = expected_codes()
    passed = failed = 0
    for code in codes:
        problems = []
        bad = explanation_problem(code)
        if bad:
            problems.append(bad)
        elsewhere = COVERED_ELSEWHERE.get(code)
        if elsewhere:
            if code not in open(os.path.join(ROOT, elsewhere), encoding='utf-8').read():
                problems.append('%s does not test it' % elsewhere)
        elif code not in expected:
            problems.append('no golden test expects it (tests/golden/**/*.jsonl)')
        if problems:
            failed += 1
            print('FAIL %s: %s' % (code, '; '.join(problems)))
        else:
            passed += 1
    for code, path in sorted(expected.items()):
        if code not in codes:
            failed += 1
            print('FAIL %s: expected by %s but not registered' % (code, os.path.relpath(path, ROOT)))
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
