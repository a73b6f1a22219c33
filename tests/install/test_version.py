#!/usr/bin/env python3
"""One version: `orbitc --version` and `orbit-run --version` print meson's project version
(as `meson introspect --projectinfo` reports it, not as any file of the repository spells
it) and the same bytecode format version.

    test_version.py --meson MESON --builddir DIR --orbitc PATH --orbit-run PATH
"""
import argparse
import json
import re
import subprocess
import sys


def version_line(program):
    p = subprocess.run([program, '--version'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    out = p.stdout.decode('utf-8', 'replace')
    if p.returncode != 0 or p.stderr:
        sys.exit('FAIL: %s --version: status %d, stderr %r' % (program, p.returncode, p.stderr))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True)
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--orbit-run', required=True)
    args = ap.parse_args()

    info = json.loads(subprocess.run([args.meson, 'introspect', '--projectinfo', args.builddir],
                                     stdout=subprocess.PIPE, check=True, timeout=60).stdout)
    project = info['version']
    shape = re.compile(r'^(orbitc|orbit-run) (\S+) \(bytecode (\d+\.\d+)\)\n$')
    failed = 0
    formats = set()
    for name, program in (('orbitc', args.orbitc), ('orbit-run', args.orbit_run)):
        out = version_line(program)
        m = shape.match(out)
        if not m or m.group(1) != name or m.group(2) != project:
            print('FAIL: %s --version printed %r; expected "%s %s (bytecode MAJOR.MINOR)"'
                  % (name, out, name, project))
            failed += 1
            continue
        formats.add(m.group(3))
    if len(formats) > 1:
        print('FAIL: the two programs name different bytecode versions: %s' % sorted(formats))
        failed += 1
    print('%d passed, %d failed' % (3 - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
