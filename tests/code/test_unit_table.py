#!/usr/bin/env python3
"""Every Check unit test of tests/unit/ (a `test_*.c`) is a row of the one table of
tests/unit/meson.build, and every row names a file that is there: a test added beside
the table, or set up apart from it, is found here.

    pytest tests/code/test_unit_table.py      (or the script: ends with `N passed, N failed`)
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.cases import expect, main, test  # noqa: E402
from support.paths import ROOT  # noqa: E402

UNIT = os.path.join(ROOT, 'tests', 'unit')


def rows():
    """The names of the table's rows: `['test_x', [deps], [args], timeout]`."""
    with open(os.path.join(UNIT, 'meson.build'), encoding='utf-8') as f:
        text = f.read()
    return re.findall(r"^\s*\['(test_\w+)',", text, re.M)


def files():
    return sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(UNIT, 'test_*.c')))


@test
def every_unit_test_file_is_a_row():
    missing = sorted(set(files()) - set(rows()))
    expect(not missing, 'tests/unit/%s not in the table of tests/unit/meson.build'
           % ', '.join(m + '.c' for m in missing))


@test
def every_row_is_a_file_once():
    names = rows()
    expect(len(names) >= 17, 'the table has %d rows: is its form still `[\'test_x\', ...]`?'
           % len(names))
    expect(len(names) == len(set(names)), 'a row twice: %s' % names)
    gone = sorted(set(names) - set(files()))
    expect(not gone, 'rows without their file: %s' % gone)


@test
def no_unit_test_is_set_up_apart():
    with open(os.path.join(ROOT, 'tests', 'meson.build'), encoding='utf-8') as f:
        text = f.read()
    # Rows of the table that tests/meson.build also builds as a second program, which
    # writes sample documents for a validation by other tools (`--write-json`, `--write`).
    samples = {'test_diag', 'test_report_ci'}
    apart = sorted(set(re.findall(r"unit/(test_\w+)\.c", text)) - samples)
    expect(not apart, 'set up in tests/meson.build, not in the table: %s' % apart)


if __name__ == '__main__':
    main()
