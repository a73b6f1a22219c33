#!/usr/bin/env python3
"""The style of the JavaScript and TypeScript, checked by a machine (docs/code-style.md,
"JavaScript and TypeScript"): Biome, from tools/style/package-lock.json, with the one
configuration of the repository, `biome.jsonc`.

  biome     `biome ci --error-on-warnings` over the source tree: fails on a file the
            formatter would change or on a lint finding (tools/style/format.sh fixes the
            first; the message names the rule of the second)
  coverage  every JavaScript or TypeScript file that git tracks is one Biome checked, so
            that a new folder cannot fall outside the check (skipped outside a git checkout)

    test_style.py SOURCE_ROOT

Without tools/style/node_modules (tools/install-npm.sh installs it) the test is skipped
(77), or fails when ORBIT_REQUIRE_NPM_TOOLS=1 (tools/test.sh sets it). Ends with
`N passed, N failed`.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
from support.paths import npm_tool_missing  # noqa: E402

# What Biome reads: the extensions of biome.jsonc's "files.includes".
SUFFIXES = ('.js', '.mjs', '.cjs', '.ts', '.mts', '.cts')
# Tracked files that are data, not code: the fuzz corpora.
DATA = ('fuzz/corpus/',)

results = {'passed': 0, 'failed': 0}


def report(name, problems):
    if problems:
        results['failed'] += 1
        print(f'FAIL {name}')
        for line in problems:
            print('  ' + line)
    else:
        results['passed'] += 1
        print(f'ok   {name}')


def processed_files(output):
    """The files of `biome ci --verbose`'s "Files processed" list."""
    files = set()
    listing = False
    for line in output.splitlines():
        text = line.strip()
        if 'Files processed' in text:
            listing = True
        elif listing and text.startswith('- '):
            files.add(text[2:])
        elif listing and text and not text.startswith('- '):
            listing = False
    return files


def tracked_code(root):
    """The JavaScript and TypeScript files git tracks, or None outside a git checkout."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files', '-z'], capture_output=True,
                             check=True).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {name for name in out.split('\0')
            if name.endswith(SUFFIXES) and not name.startswith(DATA)}


def main():
    root = os.path.abspath(sys.argv[1])
    biome = os.path.join(root, 'tools', 'style', 'node_modules', '.bin', 'biome')
    missing = npm_tool_missing(biome)
    if missing is not None:
        return missing
    run = subprocess.run([biome, 'ci', '--error-on-warnings', '--colors=off', '--verbose',
                          '--max-diagnostics=100', '.'],
                         cwd=root, capture_output=True, text=True)
    output = run.stdout + run.stderr
    problems = []
    if run.returncode != 0:
        problems = [line for line in output.splitlines()
                    if not line.startswith('  - ')]   # the list of files processed
        problems.append('(tools/style/format.sh formats every file; lint findings name their rule)')
    report('biome', problems)

    tracked = tracked_code(root)
    if tracked is None:
        print('skip coverage: not a git checkout')
    else:
        checked = processed_files(output)
        report('coverage', [f'{name}: not checked by Biome (add its folder to biome.jsonc)'
                            for name in sorted(tracked - checked)])

    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results['failed'] else 0


if __name__ == '__main__':
    sys.exit(main())
