#!/usr/bin/env python3
"""Every global symbol that liborbc defines carries its prefix (`orbc_` or `ORBC_`), so
that a runtime embedding it cannot clash with it. Lists the library's defined
global symbols with `nm` and prints each unprefixed one; exits 1 when there is one.

    test_symbols.py --nm NM LIBRARY.a
"""
import argparse
import subprocess
import sys

PREFIXES = ('orbc_', 'ORBC_')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--nm', default='nm')
    p.add_argument('library')
    args = p.parse_args()
    out = subprocess.run([args.nm, '-g', '--defined-only', args.library], check=True,
                         capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:               # "ADDRESS TYPE NAME"; "FILE.o:" and blanks skipped
            symbols.append((parts[2], parts[1]))
    # Names starting with "__" are the implementation's (a sanitizer's __odr_asan.NAME).
    bad = sorted(name for name, kind in symbols
                 if not name.startswith(PREFIXES) and not name.startswith('__'))
    for name in bad:
        print('unprefixed global symbol in %s: %s' % (args.library, name))
    print('%d global symbols, %d without the prefix' % (len(symbols), len(bad)))
    if not symbols:
        print('no symbols found: is %s the library?' % args.library)
        return 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
