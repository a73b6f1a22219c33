#!/usr/bin/env python3
"""`meson install` into a temporary --destdir (never the real prefix), then the installed
toolchain is used as a user would use it:

- every file meson says it installs is there, and the list is printed;
- the installed orbitc checks and builds examples/, disassembles what it built, and
  the installed orbit-run runs it (the history of tests/golden/run/checkout);
- the installed man pages render with `groff -ww -z` without a warning and with `man -l`;
- the language reference: every page of docs/reference/ is installed under
  share/doc/orbitc/reference/, the same bytes, and every link between the installed
  documents resolves (the links into the sources, `../../diagnostics/explain/CODE.md`
  and `../../stdlib/`, are the repository's: `orbitc explain CODE` shows the first);
- the installed bash completion registers itself and completes `orbitc ex` and
  `orbitc explain E04`;
- liborbc: no header is installed but the public ones; the shared library has the
  soname of its version and exports exactly what the public headers declare; the
  example program examples/liborbc/print_policies.c compiles with the flags of the
  installed orbc.pc (PKG_CONFIG_PATH into the destdir, its prefix moved there), against
  the shared library and against the static one, and prints for each step the retry
  policy that `orbitc dis` prints.

    test_install.py --meson MESON --builddir DIR --cc CC [--cflags FLAGS]
ends with `N passed, N failed`.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))  # support
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import gen_orbc_exports  # noqa: E402
from support.checklist import check, finish  # noqa: E402
import test_completions  # noqa: E402
import test_manpages  # noqa: E402

# The headers an installed liborbc offers; every other header of the tree stays private.
PUBLIC_HEADERS = {'orbc.h', 'orbc_value.h', 'ops.def'}
EXAMPLE = os.path.join(ROOT, 'examples', 'liborbc', 'print_policies.c')


def run(argv, **kwargs):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                       **kwargs)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def install(meson, builddir, destdir):
    status, out, err = run([meson, 'install', '-C', builddir, '--no-rebuild', '--quiet',
                            '--destdir', destdir])
    if status != 0:
        sys.exit('FAIL: meson install --destdir: status %d\n%s%s' % (status, out, err))
    status, out, err = run([meson, 'introspect', '--installed', builddir])
    installed = json.loads(out)
    return sorted(installed.values())


def staged(destdir, path):
    return os.path.join(destdir, path.lstrip('/'))


def find_installed(paths, suffix):
    found = [p for p in paths if p.endswith(suffix)]
    if len(found) != 1:
        sys.exit('FAIL: expected one installed file ending in %s, found %s' % (suffix, found))
    return found[0]


def check_files(destdir, paths):
    actual = set()
    for top, dirs, files in os.walk(destdir):
        for name in files:
            actual.add('/' + os.path.relpath(os.path.join(top, name), destdir))
    missing = [p for p in paths if p not in actual]
    check('every file meson installs is in the destdir', not missing, 'missing %s' % missing)
    print('installed files (%d):' % len(actual))
    for path in sorted(actual):
        print('  ' + path)
    return sorted(actual)


def check_toolchain(destdir, paths, work):
    orbitc = staged(destdir, find_installed(paths, '/bin/orbitc'))
    orbit_run = staged(destdir, find_installed(paths, '/bin/orbit-run'))
    examples = os.path.join(ROOT, 'examples')
    status, _, err = run([orbitc, 'check', examples])
    check('installed orbitc: check examples/ exits 0', status == 0, err)
    orbc = os.path.join(work, 'examples.orbc')
    status, _, err = run([orbitc, 'build', examples, '-o', orbc])
    check('installed orbitc: build examples/ writes bytecode', status == 0 and os.path.isfile(orbc),
          err)
    status, out, err = run([orbitc, 'dis', orbc])
    check('installed orbitc: dis shows the workflows', status == 0 and 'workflow' in out, err)
    # The golden run of the example (tests/golden/run/checkout.*): the same history.
    golden = os.path.join(ROOT, 'tests', 'golden', 'run', 'checkout')
    status, out, err = run([orbit_run, orbc, '--scenario', golden + '.scenario.json'])
    with open(golden + '.history', encoding='utf-8') as f:
        expected = f.read()
    check('installed orbit-run runs the built example as its golden history says',
          status == 0 and out == expected, 'status %d %s' % (status, err))
    return orbitc, orbc


def check_man_pages(destdir, paths):
    pages = [p for p in paths if '/man/man' in p]
    check('three man pages are installed', sorted(os.path.basename(p) for p in pages)
          == ['orbc.5', 'orbit-run.1', 'orbitc.1'], pages)
    for page in pages:
        test_manpages.render_checks(staged(destdir, page))


def check_reference(destdir, paths):
    source = os.path.join(ROOT, 'docs', 'reference')
    pages = sorted(n for n in os.listdir(source) if n.endswith('.md'))
    installed = {os.path.basename(p): staged(destdir, p) for p in paths
                 if os.path.basename(os.path.dirname(p)) == 'reference'
                 and '/doc/' in p}
    check('every page of docs/reference/ is installed in the reference folder of the docs',
          sorted(installed) == pages, 'installed %s, pages %s' % (sorted(installed), pages))
    broken = []
    for name, path in sorted(installed.items()):
        with open(path, 'rb') as f, open(os.path.join(source, name), 'rb') as g:
            if f.read() != g.read():
                broken.append('%s differs from docs/reference/%s' % (path, name))
        with open(path, encoding='utf-8') as f:
            text = re.sub(r'^```.*?^```[^\n]*$', '', f.read(), flags=re.M | re.S)
        for target in re.findall(r'\]\(([^)\s#]+)(?:#[^)]*)?\)', text):
            if re.match(r'[a-z]+:', target) or target.startswith('../../'):
                continue
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                broken.append('%s links %s, which is not installed' % (name, target))
    check('the installed reference is the source\'s, and its links resolve among the '
          'installed documents', installed and not broken, '\n'.join(broken))


def check_bash_completion(destdir, paths, work):
    script = staged(destdir, find_installed(paths, '/bash-completion/completions/orbitc'))
    registered, found, err = test_completions.bash_complete(script, ['orbitc', 'ex'], work)
    check('installed bash completion: `complete -p orbitc`',
          registered == 'complete -F _orbitc orbitc', registered + err)
    check('installed bash completion: `orbitc ex<TAB>` is explain', found == {'explain'},
          sorted(found))
    codes = test_completions.read_codes(os.path.join(ROOT, 'diagnostics', 'codes.def'))
    _, found, err = test_completions.bash_complete(script, ['orbitc', 'explain', 'E04'], work)
    check('installed bash completion: `orbitc explain E04<TAB>` is every E04 code',
          found == {c for c, _, _ in codes if c.startswith('E04')}, sorted(found))


def check_headers(files):
    headers = {f for f in files if f.endswith(('.h', '.def'))}
    names = {os.path.basename(h) for h in headers}
    check('only the public headers are installed (%s)' % sorted(PUBLIC_HEADERS),
          names == PUBLIC_HEADERS and len(headers) == len(names), 'installed: %s' % sorted(headers))
    return sorted(headers)


def pkg_config(destdir, pc, *args):
    """pkg-config on the installed orbc.pc, its prefix moved into the destdir."""
    with open(staged(destdir, pc), encoding='utf-8') as f:
        prefix = re.search(r'^prefix=(.*)$', f.read(), re.M).group(1)
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(staged(destdir, pc)))
    env.pop('PKG_CONFIG_LIBDIR', None)
    status, out, err = run(['pkg-config', '--define-variable=prefix=' + staged(destdir, prefix)]
                           + list(args) + ['orbc'], env=env)
    if status != 0:
        sys.exit('FAIL: pkg-config %s orbc: %s' % (' '.join(args), err))
    return shlex.split(out)


def retry_lines(text):
    return sorted(line.strip() for line in text.splitlines() if line.strip().startswith('retry '))


def check_liborbc(destdir, files, headers, orbitc, orbc, work, cc, cflags):
    pc = find_installed(files, '/pkgconfig/orbc.pc')
    shared = find_installed(files, '/liborbc.so.' + pkg_config(destdir, pc, '--modversion')[0])
    libdir = os.path.dirname(staged(destdir, shared))
    soname = 'liborbc.so.' + pkg_config(destdir, pc, '--modversion')[0].split('.')[0]
    status, out, _ = run(['readelf', '-d', staged(destdir, shared)])
    check('the shared liborbc has the soname %s' % soname, '[%s]' % soname in out, out)
    for link in (soname, 'liborbc.so'):
        check('%s is installed as a link to the library' % link,
              os.path.realpath(os.path.join(libdir, link)) == staged(destdir, shared))
    status, out, _ = run(['nm', '-D', '--defined-only', staged(destdir, shared)])
    exported = sorted(line.split()[2] for line in out.splitlines() if len(line.split()) == 3)
    declared = gen_orbc_exports.public_names([staged(destdir, h) for h in headers
                                              if h.endswith('.h')])
    check('the shared liborbc exports exactly what the installed headers declare',
          exported == declared, 'exported, not declared: %s; declared, not exported: %s'
          % (sorted(set(exported) - set(declared)), sorted(set(declared) - set(exported))))

    _, dis, _ = run([orbitc, 'dis', orbc])
    expected = retry_lines(dis)
    flags = pkg_config(destdir, pc, '--cflags', '--libs')
    static_flags = [('-l:liborbc.a' if f == '-lorbc' else f)
                    for f in pkg_config(destdir, pc, '--cflags', '--libs', '--static')]
    for how, link_flags, env in (
            ('the shared library', flags, dict(os.environ, LD_LIBRARY_PATH=libdir)),
            ('the static library', static_flags, None)):
        program = os.path.join(work, 'print_policies_' + how.split()[1])
        status, _, err = run([cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic']
                             + cflags + [EXAMPLE, '-o', program] + link_flags)
        check('the example compiles with the flags of orbc.pc, with %s' % how, status == 0,
              ' '.join(link_flags) + '\n' + err)
        if status != 0:
            continue
        status, out, err = run([program, orbc], env=env)
        check('the example, with %s, prints the retry policies that orbitc dis prints' % how,
              status == 0 and expected and retry_lines(out) == expected,
              'status %d %s\n%s' % (status, err, out))
        if how == 'the shared library':
            _, dynamic, _ = run(['readelf', '-d', program])
            check('the example linked with the shared library needs %s' % soname,
                  '[%s]' % soname in dynamic, dynamic)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True)
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--cc', required=True, help='the C compiler of the build')
    ap.add_argument('--cflags', default='', help='flags the library was built with that a '
                    'program linking it needs too (-fsanitize=...)')
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        destdir = os.path.join(work, 'destdir')
        paths = install(args.meson, args.builddir, destdir)
        files = check_files(destdir, paths)
        orbitc, orbc = check_toolchain(destdir, paths, work)
        check_man_pages(destdir, paths)
        check_reference(destdir, paths)
        check_bash_completion(destdir, paths, work)
        headers = check_headers(files)
        check_liborbc(destdir, files, headers, orbitc, orbc, work, args.cc,
                      shlex.split(args.cflags))
    return finish()


if __name__ == '__main__':
    sys.exit(main())
