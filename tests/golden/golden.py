#!/usr/bin/env python3
"""The golden tests, every kind, through one entry point: source in, exact output out.

  golden/AREA/...  `orbitc check` and `build`: diagnostics (human, JSON and the CI
                   formats), `fix`, disassembly (golden/harness/cases.py, with fix.py
                   and formats.py)
  golden/run/      `orbitc build`, then `orbit-run` on a scenario: the exact history
                   (golden/harness/runs.py; needs --orbit-run)
  golden/fmt/      `orbitc fmt`: the exact formatted text (golden/harness/fmt.py)
  golden/replay/   `orbit-run replay`: an OLD program's history replayed against a NEW
                   program, the exact report (golden/harness/replays.py; needs
                   --orbit-run)
  golden/compat/   `orbitc compat`: two versions of a program, the exact report
                   (golden/harness/compat.py)

    golden/golden.py [--orbitc PATH] [--orbit-run PATH] [--update] [SELECTOR...]

--orbitc defaults to build/cli/orbitc and --orbit-run to build/runtime/orbit-run when
it exists (the build directory of `meson setup build`).

A SELECTOR is a path, or a path relative to golden/: an area (`e0410`, `run`, `fmt`) or
one case (`e0410/x.orbit`, `run/retries`, `fmt/steps`). Without one, every case runs
(golden/run/ only with an orbit-run). --update rewrites the expected files from the
actual output: read `git diff golden/` before committing it. Ends with the line
`N passed, N failed`.
"""
import argparse
import os
import sys

from harness import cases, compat, fmt, replays, runs

GOLDEN = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(os.path.dirname(GOLDEN), 'build')


def part_of(selector):
    """'run', 'fmt' or 'cases': which harness a selector belongs to."""
    here = os.path.abspath(selector)
    path = here if os.path.exists(here) else os.path.join(GOLDEN, selector)
    first = os.path.relpath(path, GOLDEN).split(os.sep)[0]
    return first if first in ('run', 'fmt', 'replay', 'compat') else 'cases'


def single_cases(selectors, area):
    """The selectors that name one case; none when one names the whole area."""
    if any(os.path.basename(s.rstrip('/')) == area for s in selectors):
        return []
    return selectors


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--orbitc', default=os.path.join(BUILD, 'cli', 'orbitc'))
    ap.add_argument('--orbit-run')
    ap.add_argument('--update', action='store_true')
    ap.add_argument('-j', '--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('selectors', nargs='*')
    opts = ap.parse_args()
    if not os.access(opts.orbitc, os.X_OK):
        ap.error('no executable %s: build first (meson setup build && ninja -C build) '
                 'or give --orbitc' % opts.orbitc)
    built_orbit_run = os.path.join(BUILD, 'runtime', 'orbit-run')
    if opts.orbit_run is None and os.access(built_orbit_run, os.X_OK):
        opts.orbit_run = built_orbit_run
    orbitc = os.path.abspath(opts.orbitc)
    selected = {'cases': [], 'run': [], 'fmt': [], 'replay': [], 'compat': []}
    for selector in opts.selectors:
        selected[part_of(selector)].append(selector)
    everything = not opts.selectors

    passed = failed = 0
    if everything or selected['cases']:
        p, f = cases.run_all(orbitc, opts.update, opts.jobs, selected['cases'])
        passed, failed = passed + p, failed + f
    if (everything and opts.orbit_run) or selected['run']:
        if not opts.orbit_run:
            ap.error('golden/run needs --orbit-run')
        p, f = runs.run_all(orbitc, os.path.abspath(opts.orbit_run), opts.update,
                            single_cases(selected['run'], 'run'))
        passed, failed = passed + p, failed + f
    if (everything and opts.orbit_run) or selected['replay']:
        if not opts.orbit_run:
            ap.error('golden/replay needs --orbit-run')
        p, f = replays.run_all(orbitc, os.path.abspath(opts.orbit_run), opts.update,
                               single_cases(selected['replay'], 'replay'))
        passed, failed = passed + p, failed + f
    if everything or selected['fmt']:
        p, f = fmt.run_all(orbitc, opts.update, single_cases(selected['fmt'], 'fmt'))
        passed, failed = passed + p, failed + f
    if everything or selected['compat']:
        p, f = compat.run_all(orbitc, opts.update, single_cases(selected['compat'], 'compat'))
        passed, failed = passed + p, failed + f
    if opts.update:
        print('golden: expected files updated: read `git diff golden/` before committing')
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
