#!/usr/bin/env python3
"""Writes THIRD_PARTY_NOTICES, the notices of the work of others that an artefact of
orbitc carries (docs/install.md, "Third-party notices"), from the one list below:

    notices.py --artefact static|wasm [--out FILE]    the notices (standard output: -)
    notices.py --list                                 the list, as JSON (for the tests)

- `static`: the static orbitc and orbit-run (the release's static tarball, and
  @orbitc/cli-linux-x64's orbitc): the GNU C Library, libgcc, jansson and utf8proc linked in;
- `wasm`: the npm package orbitc, whose wasm/orbit.wasm and wasm/orbit.js are emscripten's
  output: jansson and utf8proc compiled from Debian's sources, emscripten's C library
  (musl with emscripten's own parts), its allocator (dlmalloc), compiler-rt's builtins and
  its JavaScript runtime.

The Debian packages carry none: they link jansson, utf8proc and the C library
dynamically, as the dependencies libjansson4, libutf8proc2 and libc6, whose own packages
install their notices; debian/copyright names them (tests/install/test_deb.py checks it
against what the installed orbitc needs, readelf's NEEDED).

Each text is read from this machine, the one that builds the artefact: the copyright
files of the Debian packages (/usr/share/doc/PACKAGE/copyright), whose versions are the
ones linked or compiled in (dpkg-query), and emscripten's sources under /usr/share/emscripten.
A missing file is an error: an artefact is never made without its notices.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMSCRIPTEN = '/usr/share/emscripten'

# The one list. Each component: its name, what it is, its licence (SPDX), the artefacts
# that contain it and how, the Debian package whose version is the one in them, and its
# texts: a file, or the named paragraphs of a Debian copyright file (DEP-5). `linked_from`:
# per artefact, the Debian package whose files the link reads (tests/install/test_static.py
# and test_deb.py find the same set from the link itself); `wasm_from`: the inputs of the
# WebAssembly link that are of it, emscripten's libraries by name and the objects of
# build-playground/wasm by their prefix (test_npm.py links it again with --trace).
COMPONENTS = [
    {'name': 'jansson', 'what': 'the JSON library', 'licence': 'MIT',
     'package': 'libjansson4', 'linked_from': {'static': 'libjansson-dev', 'deb': 'libjansson4'},
     'in': {'static': 'linked statically (libjansson.a of libjansson-dev)',
            'wasm': 'compiled into wasm/orbit.wasm from Debian\'s source package jansson',
            'deb': 'linked dynamically: the dependency libjansson4'},
     'wasm_from': ['third-party_jansson-'],
     'texts': [{'file': '/usr/share/doc/libjansson4/copyright'}]},
    {'name': 'utf8proc', 'what': 'the Unicode library, with its tables of Unicode data',
     'licence': 'MIT AND Unicode-DFS-2015', 'package': 'libutf8proc2',
     'linked_from': {'static': 'libutf8proc-dev', 'deb': 'libutf8proc2'},
     'in': {'static': 'linked statically (libutf8proc.a of libutf8proc-dev)',
            'wasm': 'compiled into wasm/orbit.wasm from Debian\'s source package utf8proc',
            'deb': 'linked dynamically: the dependency libutf8proc2'},
     'wasm_from': ['third-party_utf8proc-'],
     'texts': [{'file': '/usr/share/doc/libutf8proc2/copyright'}]},
    {'name': 'GNU C Library (glibc)', 'what': 'the C library', 'licence': 'LGPL-2.1-or-later',
     'package': 'libc6', 'linked_from': {'static': 'libc6-dev', 'deb': 'libc6'},
     'in': {'static': 'linked statically (libc.a of libc6-dev)',
            'deb': 'linked dynamically: the dependency libc6'},
     'relink': True,
     'texts': [{'file': '/usr/share/doc/libc6/copyright'},
               {'file': '/usr/share/common-licenses/LGPL-2.1'}]},
    {'name': 'libgcc', 'what': 'GCC\'s runtime library', 'licence': 'GPL-3.0-or-later WITH GCC-exception-3.1',
     'package': 'libgcc-12-dev', 'linked_from': {'static': 'libgcc-12-dev'},
     'in': {'static': 'linked statically (libgcc.a, libgcc_eh.a): the GCC Runtime Library '
                      'Exception puts no condition on programs compiled with GCC'},
     'texts': []},
    {'name': 'emscripten', 'what': 'the WebAssembly toolchain: its JavaScript runtime '
                                   '(wasm/orbit.js) and its parts of the C library',
     'licence': 'MIT OR NCSA', 'package': 'emscripten',
     'in': {'wasm': 'its runtime is wasm/orbit.js, its C library is compiled into wasm/orbit.wasm'},
     'wasm_from': ['libc.a', 'libsockets.a', 'libstubs.a', 'libcompiler_rt.a'],
     'texts': [{'file': '/usr/share/doc/emscripten/copyright', 'paragraphs': ['Expat', 'NCSA~Mozilla'],
                'header': 'Copyright 2010-2022 The Emscripten Authors. Emscripten is available under '
                          'two separate licenses, the MIT license and the University of '
                          'Illinois/NCSA Open Source License:'}]},
    {'name': 'musl', 'part': True, 'what': 'the C library that emscripten\'s is made from',
     'licence': 'MIT', 'package': 'emscripten',
     'in': {'wasm': 'compiled into wasm/orbit.wasm (emscripten\'s libc)'},
     'wasm_from': ['libc.a', 'libsockets.a'],
     'texts': [{'file': EMSCRIPTEN + '/system/lib/libc/musl/COPYRIGHT'}]},
    {'name': 'dlmalloc', 'part': True, 'what': 'the memory allocator of emscripten\'s C library',
     'licence': 'CC0-1.0', 'package': 'emscripten',
     'in': {'wasm': 'compiled into wasm/orbit.wasm: released to the public domain by Doug Lea'},
     'wasm_from': ['libdlmalloc.a'],
     'texts': []},
    {'name': 'compiler-rt', 'part': True, 'what': 'LLVM\'s builtins of the compiler',
     'licence': 'Apache-2.0 WITH LLVM-exception', 'package': 'emscripten',
     'in': {'wasm': 'compiled into wasm/orbit.wasm: the LLVM exception lets object code that '
                    'embeds it go without its notice'},
     'wasm_from': ['libcompiler_rt.a'],
     'texts': []},
]

ARTEFACTS = {
    'static': 'the static orbitc and orbit-run (Linux x86-64): the release\'s static tarball, '
              'and the npm package @orbitc/cli-linux-x64',
    'wasm': 'the npm package orbitc: its WebAssembly build, wasm/orbit.wasm and wasm/orbit.js',
}

RELINK = '''The GNU C Library is linked into orbitc and orbit-run statically. Under the GNU Lesser
General Public License (below, section 6) you may relink them with a modified C library.
Everything that needs is free: orbitc's complete source, under the MIT licence, is the
tag v{version} of its repository, and the programs were made from it, on Debian 12
amd64 with the packages of tools/install-deps.sh, by

    meson setup build-static -Dstatic=true -Dtests=false -Dbuildtype=release
    ninja -C build-static cli/orbitc runtime/orbit-run
    strip build-static/cli/orbitc build-static/runtime/orbit-run

To link with another C library, give meson its compiler or its link arguments (for
instance `-Dc_link_args=-L/path/to/your/libc`). The C library's source, the version
linked here, is Debian's source package glibc {source_version}
(`apt-get source glibc={source_version}`, or https://snapshot.debian.org/package/glibc/{source_version}/).'''


def version_of(package):
    """The installed version of a Debian package, or exits."""
    p = subprocess.run(['dpkg-query', '-W', '-f', '${Version}', package],
                       capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout:
        sys.exit('notices.py: the Debian package %s is not installed' % package)
    return p.stdout


def label(component):
    """`jansson 2.14-2`; a part of another package: `musl (of emscripten 3.1.6~dfsg-5)`."""
    version = version_of(component['package'])
    if component['package'] == component['name']:
        return '%s %s' % (component['name'], version)
    if component.get('part'):
        return '%s (of %s %s)' % (component['name'], component['package'], version)
    return '%s %s' % (component['name'], version)


def project_version():
    text = open(os.path.join(ROOT, 'meson.build'), encoding='utf-8').read()
    return re.search(r"version:\s*'([^']+)'", text).group(1)


def paragraphs(text, names):
    """The stand-alone `License: NAME` paragraphs of a DEP-5 copyright file, unfolded."""
    out = []
    for name in names:
        found = re.search(r'^License: %s\n((?: .*\n?)+)' % re.escape(name), text, re.M)
        if not found:
            sys.exit('notices.py: no paragraph "License: %s"' % name)
        body = [line[1:] for line in found.group(1).splitlines()]
        out.append('\n'.join('' if line == '.' else line for line in body))
    return '\n\n'.join(out)


def text_of(spec):
    path = spec['file']
    try:
        text = open(path, encoding='utf-8').read()
    except OSError as e:
        sys.exit('notices.py: %s (the artefact needs its notice)' % e)
    if 'paragraphs' in spec:
        text = spec['header'] + '\n\n' + paragraphs(text, spec['paragraphs']) + '\n'
    return text


def notices(artefact):
    version = project_version()
    parts = [c for c in COMPONENTS if artefact in c['in']]
    rule = '=' * 78
    out = ['THIRD-PARTY NOTICES of orbitc %s' % version, '',
           'In %s.' % ARTEFACTS[artefact], '',
           'orbitc itself is under the MIT licence (the file LICENSE). This artefact also holds the',
           'work of others, each under its own licence:', '']
    for c in parts:
        out.append('- %s (%s), %s: %s.' % (label(c), c['licence'], c['what'], c['in'][artefact]))
    out += ['', 'Their copyright notices and licences follow, as the Debian packages they came from',
            'state them.']
    for c in parts:
        out += ['', rule, label(c), rule, '']
        if c.get('relink'):
            out += [RELINK.format(version=version, source_version=version_of(c['package'])), '']
        if not c['texts']:
            out.append('(%s: %s.)' % (c['licence'], c['in'][artefact]))
        for spec in c['texts']:
            out.append(text_of(spec).rstrip('\n'))
            out.append('')
    return '\n'.join(out).rstrip('\n') + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--artefact', choices=sorted(ARTEFACTS))
    ap.add_argument('--out', default='-')
    ap.add_argument('--list', action='store_true', help='the list, as JSON')
    args = ap.parse_args()
    if args.list:
        json.dump(COMPONENTS, sys.stdout, indent=1)
        sys.stdout.write('\n')
        return
    if not args.artefact:
        ap.error('--artefact or --list')
    text = notices(args.artefact)
    if args.out == '-':
        sys.stdout.write(text)
    else:
        with open(args.out, 'w', encoding='utf-8') as f:
            f.write(text)


if __name__ == '__main__':
    main()
