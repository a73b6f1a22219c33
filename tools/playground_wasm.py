#!/usr/bin/env python3
"""Writes the ninja file that compiles the playground's WebAssembly with emcc (run by
tools/playground.sh; docs/playground.md, "How it is built").

    playground_wasm.py --native BUILD --third-party DIR --out DIR [--opt -Os]

The C sources, their include directories and definitions are those of the native meson
build BUILD (meson introspect): each library the playground's API stands on, its
generated sources (re2c's lexer, bison's parser, the embedded standard library) taken
from BUILD, which must have made them (the script prints their paths for ninja with
--generated). utf8proc and jansson are compiled from Debian's own sources in DIR
(utf8proc-*/, jansson-*/). The output: DIR/orbit.js (an ES module, MODULARIZE with EXPORT_ES6,
whose default export is createOrbit) and DIR/orbit.wasm. This is the one WebAssembly
build: the toolchain with the playground's API (playground/api.h) and the engine core
with its shim for JavaScript hosts (hosts/wasm/engine_wasm.h), which
hosts/wasm/orbit-api.js wraps for the playground, the Restate host and Node, and orbitc's
command line (cli/ but its main: cli_main, which the npm package runs where it has no
native binary, over Node's file system: emscripten's file system with NODEFS, used only
there; docs/install.md, "npm"). It exports the functions marked WASM_EXPORT in the C
(tools/wasm_exports.py reads them), with malloc and free for the texts.
"""
import argparse
import glob
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wasm_exports import marked  # noqa: E402

# The libraries of the native build the API stands on (meson target names), bottom up.
LIBRARIES = ['orbit_base', 'orbc', 'orbit_diag', 'orbit_syntax', 'orbit_check',
             'orbit_lower', 'orbit_format', 'orbit_workspace', 'orbit_engine', 'orbit_runtime',
             'orbit_playground', 'orbit_engine_wasm', 'orbit_compat', 'orbit_testing',
             'orbit_lsp']
# And the executable orbitc's sources but the one that holds main (cli/orbitc.c): its
# command line, cli_main, for the npm package's fallback.
EXECUTABLE = 'orbitc'
EXECUTABLE_MAIN = 'orbitc.c'
# Besides the functions marked WASM_EXPORT: the heap's, for the texts and bytes copied in.
ALLOCATOR = ['malloc', 'free']
# orbit-api.js copies texts in and out of the heap itself (TextEncoder, TextDecoder).
RUNTIME_METHODS = ['HEAPU8']
# ... and the command line's file system (runOrbitc: Node's, mounted with NODEFS) and
# environment.
RUNTIME_METHODS += ['FS', 'ENV']
# jansson's configuration (jansson_config.h.in), as Debian's build sets it.
JANSSON_CONFIG = {'json_inline': 'inline', 'json_have_long_long': '1',
                  'json_have_localeconv': '1', 'json_have_atomic_builtins': '1',
                  'json_have_sync_builtins': '1'}
# Its private configuration (jansson_private_config.h, made by its configure script).
JANSSON_PRIVATE_CONFIG = ['HAVE_STDINT_H 1', 'HAVE_UNISTD_H 1', 'HAVE_SYS_TYPES_H 1',
                          'HAVE_SYS_TIME_H 1', 'HAVE_LOCALE_H 1', 'HAVE_SETLOCALE 1',
                          'HAVE_INTTYPES_H 1', 'HAVE_STRTOLL 1', 'HAVE_LOCALECONV 1',
                          'HAVE_ATOMIC_BUILTINS 1', 'HAVE_SYNC_BUILTINS 1',
                          'INITIAL_HASHTABLE_ORDER 3']


def introspect(native):
    out = subprocess.run(['meson', 'introspect', '--targets', native], check=True,
                         capture_output=True, text=True).stdout
    targets = {}
    for t in json.loads(out):
        if t['type'] == 'static library' and t['name'] in LIBRARIES:
            targets[t['name']] = t
        elif t['type'] == 'executable' and t['name'] == EXECUTABLE:
            targets[EXECUTABLE] = t
    missing = [name for name in LIBRARIES + [EXECUTABLE] if name not in targets]
    if missing:
        sys.exit('playground_wasm.py: the native build has no ' + ', '.join(missing))
    return [targets[name] for name in LIBRARIES + [EXECUTABLE]]


def portable_flags(parameters):
    """The include directories and definitions of a native compile, and its C standard."""
    keep = [p for p in parameters if p.startswith(('-I', '-D', '-std='))]
    return [p for p in keep if not p.endswith('.a.p') and p != '-D_FILE_OFFSET_BITS=64']


def units(native):
    """(source, flags) of every C file of the libraries, generated ones included."""
    result = []
    for target in introspect(native):
        for ts in target['target_sources']:
            if ts.get('language') not in (None, 'c'):
                continue
            flags = portable_flags(ts['parameters'])
            for source in ts['sources'] + ts.get('generated_sources', []):
                if target['name'] == EXECUTABLE and os.path.basename(source) == EXECUTABLE_MAIN:
                    continue
                if source.endswith('.c'):
                    result.append((source, flags))
    return result


def third_party(directory, include):
    """(source, flags) of utf8proc and jansson from Debian's sources."""
    directory = os.path.abspath(directory)
    utf8proc = sorted(glob.glob(os.path.join(directory, 'utf8proc-*')))
    jansson = sorted(glob.glob(os.path.join(directory, 'jansson-*')))
    if not utf8proc or not jansson:
        sys.exit('playground_wasm.py: no utf8proc-*/ or jansson-*/ in ' + directory)
    jansson_src = os.path.join(jansson[-1], 'src')
    with open(os.path.join(jansson_src, 'jansson_config.h.in'), encoding='utf-8') as f:
        config = f.read()
    for key, value in JANSSON_CONFIG.items():
        config = config.replace('@%s@' % key, value)
    os.makedirs(include, exist_ok=True)
    write_if_changed(os.path.join(include, 'jansson_config.h'), config)
    write_if_changed(os.path.join(include, 'jansson_private_config.h'),
                     ''.join('#define %s\n' % d for d in JANSSON_PRIVATE_CONFIG))
    for header in ('jansson.h',):
        write_if_changed(os.path.join(include, header),
                         open(os.path.join(jansson_src, header), encoding='utf-8').read())
    write_if_changed(os.path.join(include, 'utf8proc.h'),
                     open(os.path.join(utf8proc[-1], 'utf8proc.h'), encoding='utf-8').read())
    result = [(os.path.join(utf8proc[-1], 'utf8proc.c'), ['-DUTF8PROC_STATIC'])]
    for source in sorted(glob.glob(os.path.join(jansson_src, '*.c'))):
        result.append((source, ['-DHAVE_CONFIG_H', '-I' + jansson_src]))
    return result


def write_if_changed(path, text):
    if os.path.exists(path) and open(path, encoding='utf-8').read() == text:
        return
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def object_name(source, native):
    """A readable object path, unique per source."""
    for root in (os.path.abspath(native), os.path.dirname(os.path.abspath(native))):
        if source.startswith(root + os.sep):
            return source[len(root) + 1:].replace(os.sep, '_') + '.o'
    return os.path.basename(os.path.dirname(source)) + '_' + os.path.basename(source) + '.o'


def exports(compile_units):
    """The functions marked WASM_EXPORT in the folders of the libraries' own sources."""
    folders = sorted({os.path.dirname(source) for source, _ in compile_units})
    return marked(folders) + ALLOCATOR


def link_flags(opt, names):
    return [opt, '-sMODULARIZE=1', '-sEXPORT_ES6=1', '-sEXPORT_NAME=createOrbit',
            # emscripten's file system, with NODEFS, for runOrbitc in Node; the toolchain's
            # functions for the page read and write no file.
            '-sFILESYSTEM=1', '-lnodefs.js', '-sALLOW_MEMORY_GROWTH=1', '-sTOTAL_STACK=8MB',
            '-sENVIRONMENT=web,worker,node',
            # A Node process that loads the module (the Restate host) keeps its own
            # handlers of exceptions and rejections.
            '-sNODEJS_CATCH_EXIT=0', '-sNODEJS_CATCH_REJECTION=0',
            '-sEXPORTED_FUNCTIONS=' + ','.join('_' + name for name in names),
            '-sEXPORTED_RUNTIME_METHODS=' + ','.join(RUNTIME_METHODS)]


def write_ninja(args):
    out = os.path.abspath(args.out)
    include = os.path.join(out, 'include')
    own = units(args.native)
    compile_units = own + third_party(args.third_party, include)
    lines = ['# Generated by tools/playground_wasm.py: do not edit.',
             'rule cc',
             '  command = emcc %s -MD -MF $out.d -c $in -o $out $flags' % args.opt,
             '  depfile = $out.d',
             '  deps = gcc',
             '  description = emcc $in',
             'rule link',
             '  command = emcc $in -o $out %s' % ' '.join(shlex.quote(f) for f in link_flags(args.opt, exports(own))),
             '  description = emcc -o $out', '']
    objects = []
    for source, flags in compile_units:
        obj = os.path.join('obj', object_name(source, args.native))
        objects.append(obj)
        lines.append('build %s: cc %s' % (obj, source))
        lines.append('  flags = %s' % ' '.join(shlex.quote(f) for f in flags + ['-I' + include]))
    lines.append('build orbit.js | orbit.wasm: link %s' % ' '.join(objects))
    lines.append('default orbit.js')
    write_if_changed(os.path.join(out, 'build.ninja'), '\n'.join(lines) + '\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--native', required=True, help='the native meson build directory')
    parser.add_argument('--third-party', help="Debian's sources of utf8proc and jansson")
    parser.add_argument('--out', help='where build.ninja, the objects and orbit.js go')
    parser.add_argument('--opt', default='-Os', help='the optimisation level (default -Os)')
    parser.add_argument('--generated', action='store_true',
                        help='print the generated sources (relative to --native) and exit')
    args = parser.parse_args()
    if args.generated:
        native = os.path.abspath(args.native)
        for target in introspect(args.native):
            for ts in target['target_sources']:
                for source in ts.get('generated_sources', []):
                    print(os.path.relpath(source, native))
        return
    if not args.third_party or not args.out:
        parser.error('--third-party and --out are needed')
    os.makedirs(os.path.join(args.out, 'obj'), exist_ok=True)
    write_ninja(args)


if __name__ == '__main__':
    main()
