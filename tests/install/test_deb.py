#!/usr/bin/env python3
"""The Debian packages of debian/ (docs/install.md), built, checked, installed and removed
as a user would, without touching this machine's own packages:

- a copy of the source tree (the files git knows or would add: never build/, never the
  tree itself) is built twice with `dpkg-buildpackage -us -uc -b`, in two directories of
  different names, SOURCE_DATE_EPOCH from debian/changelog (dpkg-buildpackage sets it);
- the version of debian/changelog is meson's project version;
- lintian on the first build's .changes says no E: and no W: (overrides only with a
  written reason, in debian/*.lintian-overrides);
- the two builds' packages are the same, byte for byte (diffoscope shows a difference);
- the packages are installed with `dpkg --root` into a throwaway root in a temporary
  directory: its dpkg database holds only the stanzas of the packages ours depend on,
  copied from this machine's, so that dpkg checks the Depends for real (nothing forced)
  while the files of those packages stay the host's; the programs run from the root
  with LD_LIBRARY_PATH naming its library directory (a chroot would need a whole system
  inside; the static binary's test, test_static.py, is the one in an empty chroot);
- the installed orbitc checks and builds examples/, the installed orbit-run runs the
  result as tests/golden/run/checkout.history says, the man pages and completions are
  where the shells look;
- examples/liborbc/print_policies.c is compiled with the flags of the installed orbc.pc
  (PKG_CONFIG_LIBDIR and PKG_CONFIG_SYSROOT_DIR into the root), linked with the
  installed liborbc.so.1 (not found anywhere else) and prints the retry policies that
  `orbitc dis` prints;
- the libraries the installed programs need (readelf's NEEDED) are of the Debian packages
  tools/notices.py's list says (the packages hold no one else's code: the static binary
  and the npm packages carry THIRD_PARTY_NOTICES), and the installed copyright file,
  debian/copyright, names each of them;
- `dpkg --root --purge` removes them: nothing is left in the root but dpkg's database.

    test_deb.py --meson MESON --builddir DIR [--keep DIR]
ends with `N passed, N failed`. --keep DIR leaves the packages of the first build in DIR
(tools/release.sh).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '..'))  # support
from support.checklist import check, finish  # noqa: E402
from support import notices  # noqa: E402

PACKAGES = ['orbitc', 'liborbc1', 'liborbc-dev']
EXAMPLE = os.path.join(ROOT, 'examples', 'liborbc', 'print_policies.c')
GOLDEN = os.path.join(ROOT, 'tests', 'golden', 'run', 'checkout')


def run(argv, timeout=600, **kwargs):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                       **kwargs)
    return p.returncode, p.stdout.decode('utf-8', 'replace')


def tree_files():
    """The files of the source tree as git would commit them: tracked, and new ones not
    ignored (the tree is read, never written)."""
    out = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z', '--cached', '--others',
                          '--exclude-standard'], stdout=subprocess.PIPE, check=True).stdout
    return [f for f in out.decode().split('\0') if f and os.path.lexists(os.path.join(ROOT, f))]


def copy_tree(files, dest):
    for f in files:
        src, dst = os.path.join(ROOT, f), os.path.join(dest, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)


def changelog_version():
    with open(os.path.join(ROOT, 'debian', 'changelog'), encoding='utf-8') as f:
        return re.match(r'^orbitc \(([^)]+)\)', f.readline()).group(1)


def copy_source(work, name, files, version):
    """The tree copied to WORK/NAME/orbitc-VERSION; that directory."""
    src = os.path.join(work, name, 'orbitc-' + version)
    copy_tree(files, src)
    return src


def build(src):
    """dpkg-buildpackage in SRC; the directory of its outputs (SRC's parent)."""
    top = os.path.dirname(src)
    start = time.monotonic()
    status, out = run(['dpkg-buildpackage', '-us', '-uc', '-b'], timeout=3000, cwd=src)
    print('dpkg-buildpackage in %s: status %d, %.0f s' % (src, status, time.monotonic() - start))
    check('dpkg-buildpackage -us -uc -b in %s' % src, status == 0, out[-6000:])
    return top


def debs(top):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(top, '*.deb'))
                  + glob.glob(os.path.join(top, '*.ddeb')))


def check_lintian(top):
    changes = glob.glob(os.path.join(top, '*.changes'))
    check('one .changes file', len(changes) == 1, changes)
    if not changes:
        return
    status, out = run(['lintian', '--fail-on', 'error,warning', '--tag-display-limit', '0',
                       '--display-info', changes[0]], timeout=1200)
    print('lintian:\n' + out)
    bad = [line for line in out.splitlines() if line.startswith(('E:', 'W:'))]
    check('lintian: no error and no warning', status == 0 and not bad, '\n'.join(bad) or out)


def check_reproducible(a, b):
    names = debs(a)
    check('both builds made the packages %s' % PACKAGES,
          names == debs(b) and all(any(n.startswith(p + '_') for n in names) for p in PACKAGES),
          '%s / %s' % (names, debs(b)))
    for name in names:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if not os.path.exists(pb):
            continue
        with open(pa, 'rb') as fa, open(pb, 'rb') as fb:
            same = fa.read() == fb.read()
        why = ''
        if not same and shutil.which('diffoscope'):
            _, why = run(['diffoscope', '--text', '-', '--max-text-report-size', '20000',
                          pa, pb], timeout=900)
        check('%s is byte-identical in two builds' % name, same, why)


def dependencies(deb):
    """The names of the packages a .deb's Depends lists (the first of alternatives)."""
    _, depends = run(['dpkg-deb', '-f', deb, 'Depends'])
    names = []
    for item in depends.split(','):
        first = item.split('|')[0].strip()
        if first:
            names.append(re.match(r'[^\s(:]+', first).group(0))
    return names


def make_root(root, deb_paths):
    """An empty root whose dpkg database says that the packages ours depend on are
    installed, as on this machine (their stanzas from the host's database, their file
    lists empty: their files are the host's)."""
    admin = os.path.join(root, 'var', 'lib', 'dpkg')
    for sub in ('info', 'updates', 'triggers'):
        os.makedirs(os.path.join(admin, sub))
    ours = {p for p in PACKAGES}
    needed = []
    for deb in deb_paths:
        for name in dependencies(deb):
            if name not in ours and name not in needed:
                needed.append(name)
    stanzas = []
    for name in needed:
        status, out = run(['dpkg-query', '-s', name])
        check('this machine has %s, which the packages depend on' % name, status == 0, out)
        if status == 0:
            stanzas.append(out.strip() + '\n')
            open(os.path.join(admin, 'info', name + '.list'), 'w').close()
    with open(os.path.join(admin, 'status'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(stanzas))
    open(os.path.join(admin, 'available'), 'w').close()
    return needed


def dpkg(root, *args):
    # A maintainer script would run chrooted into the root (never --force-script-chrootless:
    # it would run on this machine); the packages have none (dh makes none for them).
    return run(['dpkg', '--root=' + root, '--log=/dev/null'] + list(args))


def retry_lines(text):
    return sorted(line.strip() for line in text.splitlines() if line.strip().startswith('retry '))


def check_installed(root, work):
    bindir = os.path.join(root, 'usr', 'bin')
    multiarch = subprocess.run(['dpkg-architecture', '-qDEB_HOST_MULTIARCH'],
                               stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    libdir = os.path.join(root, 'usr', 'lib', multiarch)
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    orbitc, orbit_run = os.path.join(bindir, 'orbitc'), os.path.join(bindir, 'orbit-run')
    for program in (orbitc, orbit_run):
        linked = notices.owners(notices.needed_libraries(program))
        check('installed %s needs the libraries of the packages tools/notices.py names'
              % os.path.basename(program), linked == notices.expected_owners('deb'),
              'needs %s, the list says %s' % (linked, notices.expected_owners('deb')))
    copyright_path = os.path.join(root, 'usr', 'share', 'doc', 'orbitc', 'copyright')
    text = open(copyright_path, encoding='utf-8').read() if os.path.isfile(copyright_path) else ''
    unnamed = [c['name'] for c in notices.components('deb')
               if c['name'].split(' (')[0] not in text or c['linked_from']['deb'] not in text]
    check('the installed copyright names what the programs link: %s'
          % ', '.join(c['name'] for c in notices.components('deb')), text and not unnamed, unnamed)
    examples = os.path.join(ROOT, 'examples')
    status, out = run([orbitc, 'check', examples], env=env)
    check('installed orbitc: check examples/ exits 0', status == 0, out)
    orbc = os.path.join(work, 'examples.orbc')
    status, out = run([orbitc, 'build', examples, '-o', orbc], env=env)
    check('installed orbitc: build examples/ writes bytecode',
          status == 0 and os.path.isfile(orbc), out)
    p = subprocess.run([orbit_run, orbc, '--scenario', GOLDEN + '.scenario.json'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=120)
    with open(GOLDEN + '.history', 'rb') as f:
        check('installed orbit-run runs the example as its golden history says',
              p.returncode == 0 and p.stdout == f.read(), p.stderr.decode(errors='replace'))
    for path in ('usr/share/man/man1/orbitc.1.gz', 'usr/share/man/man1/orbit-run.1.gz',
                 'usr/share/man/man5/orbc.5.gz', 'usr/share/doc/orbitc/copyright', 'usr/share/doc/liborbc1/copyright',
                 'usr/include/orbc/orbc.h'):
        check('installed: /' + path, os.path.isfile(os.path.join(root, path)))
    # Each completion is where that shell, as Debian installs it, looks for it.
    for shell, path, where in (
            ('bash', 'usr/share/bash-completion/completions/orbitc',
             ['pkg-config', '--variable=completionsdir', 'bash-completion']),
            ('zsh', 'usr/share/zsh/vendor-completions/_orbitc',
             ['zsh', '-fc', 'print -l $fpath']),
            ('fish', 'usr/share/fish/vendor_completions.d/orbitc.fish',
             ['fish', '-c', 'printf "%s\\n" $fish_complete_path'])):
        _, dirs = run(where, env=dict(os.environ, HOME=work))
        check('installed: the %s completion, in a directory %s reads' % (shell, shell),
              os.path.isfile(os.path.join(root, path))
              and '/' + os.path.dirname(path) in dirs.split(), '/%s; %s reads %s'
              % (path, shell, dirs.split()))
    # orbitc(1) names the directory of the documents, which link each other by name.
    status, out = run(['sh', '-c', 'zcat "$1" | grep -o "/usr/share/doc/orbitc"', 'sh',
                       os.path.join(root, 'usr/share/man/man1/orbitc.1.gz')])
    docdir = os.path.join(root, 'usr/share/doc/orbitc')
    check('orbitc(1) names /usr/share/doc/orbitc, which is installed',
          status == 0 and os.path.isdir(docdir), out)
    # (A document the packages do not install, such as restate.md, is not their matter;
    # one installed under another name, compressed, is.)
    broken = []
    for name in sorted(os.listdir(docdir)) if os.path.isdir(docdir) else []:
        if name.endswith('.md'):
            with open(os.path.join(docdir, name), encoding='utf-8') as f:
                for link in re.findall(r'\]\(([\w.-]+\.(?:md|json))[#)]', f.read()):
                    target = os.path.join(docdir, link)
                    if not os.path.exists(target) and glob.glob(target + '.*'):
                        broken.append('%s -> %s (installed as %s)'
                                      % (name, link, glob.glob(target + '.*')))
    check('the installed documents link each other by the names they are installed by',
          not broken and os.path.isfile(os.path.join(docdir, 'cli.md')), broken)

    # The example program against the installed library, found through the root's orbc.pc.
    pc_env = dict(os.environ, PKG_CONFIG_SYSROOT_DIR=root,
                  PKG_CONFIG_LIBDIR=os.path.join(libdir, 'pkgconfig'))
    pc_env.pop('PKG_CONFIG_PATH', None)
    status, flags = run(['pkg-config', '--cflags', '--libs', 'orbc'], env=pc_env)
    check('pkg-config finds the installed orbc.pc', status == 0 and root in flags, flags)
    program = os.path.join(work, 'print_policies')
    status, out = run(['cc', '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic', EXAMPLE,
                       '-o', program] + flags.split())
    check('print_policies.c compiles with the installed orbc.pc', status == 0, flags + out)
    if status != 0:
        return
    _, dynamic = run(['readelf', '-d', program])
    check('print_policies needs liborbc.so.1', '[liborbc.so.1]' in dynamic, dynamic)
    status, out = run(['ldd', program], env=env)
    check('print_policies loads liborbc.so.1 from the root', libdir in out, out)
    _, dis = run([orbitc, 'dis', orbc], env=env)
    status, out = run([program, orbc], env=env)
    check('print_policies prints the retry policies that orbitc dis prints',
          status == 0 and retry_lines(dis) and retry_lines(out) == retry_lines(dis), out)


def check_install_and_purge(top, work):
    paths = [os.path.join(top, n) for n in debs(top) if n.split('_')[0] in PACKAGES]
    root = os.path.join(work, 'root')
    os.makedirs(root)
    needed = make_root(root, paths)
    print('the throwaway root depends on the host\'s %s' % ', '.join(needed))
    status, out = dpkg(root, '--install', *paths)
    check('dpkg --root --install of %s' % ', '.join(os.path.basename(p) for p in paths),
          status == 0, out)
    status, out = run(['dpkg-query', '--root=' + root, '-W', '-f', '${Package} ${Status}\n']
                      + PACKAGES)
    check('the root says the packages are installed',
          status == 0 and out.count('install ok installed') == len(PACKAGES), out)
    if status == 0:
        check_installed(root, work)
    status, out = dpkg(root, '--purge', *PACKAGES)
    check('dpkg --root --purge of the packages', status == 0, out)
    left = []
    for top_dir, dirs, files in os.walk(root):
        rel = os.path.relpath(top_dir, root)
        if rel == 'var/lib/dpkg' or rel.startswith('var/lib/dpkg/'):
            continue
        left += [os.path.join(rel, n) for n in files]
        if not dirs and not files and rel not in ('.', 'var', 'var/lib'):
            left.append(rel + '/')
    check('nothing is left in the root but dpkg\'s database', not left, left)
    status, out = run(['dpkg-query', '--root=' + root, '-W'] + PACKAGES)
    check('the root knows none of the packages after the purge',
          all(p + '\t' not in out for p in PACKAGES), out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--meson', required=True)
    ap.add_argument('--builddir', required=True)
    ap.add_argument('--keep', help='copy the first build\'s packages here')
    args = ap.parse_args()
    for tool in ('dpkg-buildpackage', 'dh', 'lintian'):
        if not shutil.which(tool):
            sys.exit('FAIL: %s is not installed (tools/install-deps.sh installs it)' % tool)
    info = json.loads(subprocess.run([args.meson, 'introspect', '--projectinfo', args.builddir],
                                     stdout=subprocess.PIPE, check=True).stdout)
    version = changelog_version()
    check('debian/changelog\'s version %s is meson\'s project version %s'
          % (version, info['version']), version == info['version'])
    files = tree_files()
    with tempfile.TemporaryDirectory(prefix='orbitc-deb-') as work:
        # Both copies first: the tree may change while the first build runs.
        sources = [copy_source(work, name, files, version) for name in ('a', 'second-build')]
        a, b = [build(src) for src in sources]
        print('packages: ' + ', '.join('%s (%d bytes)' % (n, os.path.getsize(os.path.join(a, n)))
                                       for n in debs(a)))
        check_lintian(a)
        check_reproducible(a, b)
        check_install_and_purge(a, work)
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for n in debs(a):
                shutil.copy2(os.path.join(a, n), args.keep)
    return finish()


if __name__ == '__main__':
    sys.exit(main())
