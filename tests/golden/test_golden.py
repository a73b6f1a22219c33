"""Every golden case as a pytest test of its own, named by its path under tests/golden/
without `.orbit` (`e0410/attempts`, `run/retries`, `fmt/steps`):

    pytest tests/golden -k 'e0410/attempts'     (or: tests/run e0410/attempts)

Each runs what golden.py runs for that case (harness/cases.py, runs.py, fmt.py, replays.py), with the
orbitc and orbit-run of support.paths. The meson test `golden` runs golden.py itself: every
case on every core, and the checks over all cases at once (the fix codes' coverage)."""
import os
import sys

import pytest

GOLDEN = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, GOLDEN)
sys.path.insert(0, os.path.dirname(GOLDEN))
from harness import cases, compat, fmt, replays, runs  # noqa: E402
from support import paths  # noqa: E402


def names():
    found = [os.path.splitext(os.path.relpath(c, GOLDEN))[0] for c in cases.find_cases([])]
    found += ['run/' + f[:-len('.orbit')] for f in sorted(os.listdir(runs.CASES))
              if f.endswith('.orbit')]
    found += ['fmt/' + f[:-len('.orbit')] for f in sorted(os.listdir(fmt.CASES))
              if f.endswith('.orbit')]
    found += ['replay/' + d for d in sorted(os.listdir(replays.CASES))
              if os.path.isdir(os.path.join(replays.CASES, d))]
    found += ['compat/' + os.path.basename(c) for c in compat.find_cases([])]
    return found


@pytest.mark.parametrize('case', names())
def test_golden(case):
    orbitc = paths.program('ORBITC')
    area = case.split('/')[0]
    if area == 'run':
        passed, failed = runs.run_all(orbitc, paths.program('ORBIT_RUN'), False, [case])
    elif area == 'replay':
        passed, failed = replays.run_all(orbitc, paths.program('ORBIT_RUN'), False, [case])
    elif area == 'fmt':
        passed, failed = fmt.run_all(orbitc, False, [case])
    elif area == 'compat':
        passed, failed = compat.run_all(orbitc, False, [case])
    else:
        target = case + ('.case' if os.path.isdir(os.path.join(GOLDEN, case + '.case'))
                         else '.orbit')
        passed, failed = cases.run_all(orbitc, False, 1, [target])
    assert (passed, failed) == (1, 0), 'golden case %s: its captured output says what differs' % case
