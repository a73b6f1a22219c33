#!/usr/bin/env python3
"""Every global symbol that a static library of the product defines carries one of its
folder's prefixes, from the table "Names" of docs/architecture.md (each folder a row, its
prefixes in backticks; the library's folder from the table "The layers"). liborbc's are
`orbc_` and `ORBC_`, so that a runtime embedding it cannot clash with it. Lists each
library's defined global symbols with `nm` and prints each one without a prefix of its
folder, and each prefix that two folders share; exits 1 when there is one.

    test_symbols.py --nm NM --root SOURCE_ROOT LIBRARY.a...
"""
import argparse
import os
import re
import subprocess
import sys


def tables(root):
    """(library name -> folder, folder -> prefixes) from docs/architecture.md."""
    text = open(os.path.join(root, 'docs', 'architecture.md'), encoding='utf-8').read()
    folders, prefixes = {}, {}
    section = None
    for line in text.splitlines():
        if line.startswith('#'):
            section = line.strip('# ').strip()
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        folder = re.fullmatch(r'`([\w/]+)/`', cells[0]) if len(cells) >= 2 else None
        if not folder:
            continue
        if section == 'The layers' and len(cells) >= 4:
            library = re.match(r'`(\w+)`', cells[1])
            if library:
                folders[library.group(1)] = folder.group(1)
        elif section == 'Names':
            prefixes[folder.group(1)] = tuple(re.findall(r'`(\w+)`', cells[1]))
    return folders, prefixes


def shared_prefixes(prefixes):
    """A prefix of one folder that another folder's prefix starts with (or equals)."""
    return sorted('%s of %s/ and %s of %s/' % (a, fa, b, fb)
                  for fa, pa in prefixes.items() for fb, pb in prefixes.items() if fa < fb
                  for a in pa for b in pb if a.startswith(b) or b.startswith(a))


def defined_symbols(nm, library):
    out = subprocess.run([nm, '-g', '--defined-only', library], check=True,
                         capture_output=True, text=True).stdout
    # "ADDRESS TYPE NAME"; "FILE.o:" and blanks skipped. Names starting with "__" are the
    # implementation's (a sanitizer's __odr_asan.NAME).
    return [parts[2] for parts in (line.split() for line in out.splitlines())
            if len(parts) == 3 and not parts[2].startswith('__')]


def debian_symbols_agree(nm, symbols_file, library):
    """The package's symbols file lists exactly liborbc's exports (its build fails on a
    difference, dpkg-gensymbols; this finds it in seconds instead of a package build)."""
    listed = set(re.findall(r'^ (\w+)@Base ', open(symbols_file).read(), re.M))
    out = subprocess.run([nm, '-D', '--defined-only', library], check=True,
                         capture_output=True, text=True).stdout
    exported = {parts[2] for parts in (line.split() for line in out.splitlines())
                if len(parts) == 3 and parts[2].startswith('orbc_')}
    for s in sorted(exported - listed):
        print('%s: liborbc exports %s, which it does not list' % (symbols_file, s))
    for s in sorted(listed - exported):
        print('%s: lists %s, which liborbc does not export' % (symbols_file, s))
    print('%s: %d symbols, %d exported' % (symbols_file, len(listed), len(exported)))
    return listed == exported


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--nm', default='nm')
    p.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
    p.add_argument('--debian-symbols', nargs=2, metavar=('FILE', 'LIBRARY'),
                   help='debian/liborbc1.symbols and liborbc.so: the same symbols')
    p.add_argument('libraries', nargs='+')
    args = p.parse_args()
    folders, prefixes = tables(args.root)
    failed = False
    if args.debian_symbols:
        failed = not debian_symbols_agree(args.nm, *args.debian_symbols)
    for shared in shared_prefixes(prefixes):
        print('a prefix in two folders (docs/architecture.md, "Names"): %s' % shared)
        failed = True
    for library in args.libraries:
        name = re.sub(r'^lib|\.a$', '', os.path.basename(library))
        folder = folders.get(name)
        allowed = prefixes.get(folder)
        if not allowed:
            print('%s: no prefixes for its folder (%s) in docs/architecture.md, "Names"'
                  % (library, folder or 'no row in "The layers"'))
            failed = True
            continue
        symbols = defined_symbols(args.nm, library)
        bad = sorted(s for s in symbols if not s.startswith(allowed))
        for s in bad:
            print('%s: global symbol without a prefix of %s/: %s' % (name, folder, s))
        print('%s: %d global symbols, %d without a prefix of %s/'
              % (name, len(symbols), len(bad), folder))
        if not symbols:
            print('no symbols found: is %s the library?' % library)
        failed = failed or bool(bad) or not symbols
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
