#!/usr/bin/env python3
"""The static binary (docs/install.md): orbitc and orbit-run built with `-Dstatic=true`
(the C library, jansson and utf8proc linked in), then run in an empty chroot, a
temporary directory holding only the two programs and the inputs (no /proc, no /dev, no
/etc, no locale, no time zone, no library, an empty environment), where they must print
byte for byte what the dynamic build prints outside it:

- they are static: no program interpreter, no shared library needed (readelf);
- `--version`, `orbitc explain` (the embedded explanations);
- `orbitc check --format json` of every golden source (tests/golden/**.orbit, with the
  case's `// golden-args:`), output and exit status;
- `orbitc check --format json` of the whole golden tree on 1 thread, on 4 and on the
  default number (`--jobs`: the threads work without /proc or /sys), and with the cache
  (ORBITC_CACHE_DIR in the chroot, cold and warm);
- `orbitc build` of every runtime golden case (tests/golden/run/), the .orbc bytes, and
  `orbit-run` on its scenario (with the case's .args): the history;
- `orbitc fmt` of a golden source to standard output;
- the release's tarball, orbitc-VERSION-ARCH-linux-static.tar.gz (fixed dates and owners),
  holds the two programs stripped, LICENSE and THIRD_PARTY_NOTICES, the notices of
  tools/notices.py --artefact static; and that list is true to the link: the Debian
  packages whose files the link of each program reads (-Wl,--trace) are the ones it names.

    test_static.py --orbitc DYNAMIC_ORBITC --orbit-run DYNAMIC_ORBIT_RUN
                   [--static-builddir DIR] [--keep DIR]
builds the static programs in a temporary directory (or in DIR, set up with -Dstatic=true
on first use and rebuilt by ninja after: tests/support/static_build.py), and needs root for chroot (else `unshare --map-root-user`). Ends with
`N passed, N failed`. --keep DIR leaves the two static programs and the tarball there
(tools/release.sh).
"""
import argparse
import glob
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '..'))  # support
from support.checklist import check, finish  # noqa: E402
from support.static_build import PROGRAMS, build_static  # noqa: E402
from support import notices  # noqa: E402

GOLDEN = os.path.join(ROOT, 'tests', 'golden')


class Runner:
    """The same command run by the dynamic programs in the chroot's directory, and by the
    static ones chrooted into it; both see the inputs as in/..., in an empty environment."""

    def __init__(self, chroot, dynamic):
        self.chroot = chroot
        self.dynamic = dynamic
        # Named by their paths: the environment of the runs is empty, PATH too.
        if os.geteuid() == 0:
            self.prefix = [shutil.which('chroot'), chroot]
        else:
            self.prefix = [shutil.which('unshare'), '--map-root-user', shutil.which('chroot'),
                           chroot]

    def both(self, program, *args):
        dyn = subprocess.run([self.dynamic[program]] + list(args), cwd=self.chroot, env={},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        sta = subprocess.run(self.prefix + ['/' + program] + list(args), env={},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        return ((dyn.returncode, dyn.stdout, dyn.stderr), (sta.returncode, sta.stdout, sta.stderr))

    def same(self, what, program, *args):
        dyn, sta = self.both(program, *args)
        check('%s: the same in the chroot' % what, dyn == sta,
              'dynamic: %r\nstatic in the chroot: %r' % (shorten(dyn), shorten(sta)))
        return dyn, sta


def shorten(result):
    status, out, err = result
    return (status, out[:600], err[:600])


def golden_args(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        first = f.readline()
    marker = '// golden-args:'
    return shlex.split(first[len(marker):]) if first.startswith(marker) else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--orbitc', required=True)
    ap.add_argument('--orbit-run', required=True)
    ap.add_argument('--static-builddir')
    ap.add_argument('--keep')
    args = ap.parse_args()
    dynamic = {'orbitc': os.path.abspath(args.orbitc),
               'orbit-run': os.path.abspath(args.orbit_run)}
    with tempfile.TemporaryDirectory(prefix='orbitc-static-') as work:
        builddir = args.static_builddir or os.path.join(work, 'build-static')
        build_static(builddir)
        chroot = os.path.join(work, 'chroot')
        os.makedirs(chroot)
        for name, rel in PROGRAMS.items():
            program = os.path.join(builddir, rel)
            p = subprocess.run(['readelf', '-l', '-d', program], stdout=subprocess.PIPE)
            text = p.stdout.decode()
            check('%s is static: no program interpreter, no shared library' % name,
                  p.returncode == 0 and 'INTERP' not in text and '(NEEDED)' not in text, text)
            shutil.copy2(program, os.path.join(chroot, name))
            print('%s: %d bytes (%d stripped)' % (name, os.path.getsize(program),
                                                  stripped_size(program, work)))
            if args.keep:
                os.makedirs(args.keep, exist_ok=True)
                shutil.copy2(program, args.keep)
        for name, rel in PROGRAMS.items():
            try:
                linked = notices.owners(notices.static_link_inputs(builddir, rel))
            except RuntimeError as e:
                linked = str(e)
            check('the link of %s reads the packages tools/notices.py names for it' % name,
                  linked == notices.expected_owners('static'),
                  'linked from %s, the list says %s' % (linked, notices.expected_owners('static')))
        tarball = pack(builddir, work)
        with tarfile.open(tarball) as t:
            top = os.path.basename(tarball)[:-len('.tar.gz')]
            names = sorted(m.name for m in t.getmembers())
            check('%s holds the programs, LICENSE and THIRD_PARTY_NOTICES' % os.path.basename(tarball),
                  names == sorted([top] + ['%s/%s' % (top, n) for n in
                                           ['LICENSE', 'THIRD_PARTY_NOTICES', 'orbit-run', 'orbitc']]),
                  names)
            member = '%s/THIRD_PARTY_NOTICES' % top
            text = t.extractfile(member).read().decode() if member in names else None
            problem = notices.notices_problem(text, 'static')
            check('its THIRD_PARTY_NOTICES: %s' % (problem or 'the notices of what is linked in'),
                  problem is None)
            with open(os.path.join(ROOT, 'LICENSE'), 'rb') as f:
                licence = f.read()
            member = '%s/LICENSE' % top
            check('its LICENSE is the repository\'s',
                  member in names and t.extractfile(member).read() == licence)
        print('%s: %d bytes' % (os.path.basename(tarball), os.path.getsize(tarball)))
        if args.keep:
            shutil.copy2(tarball, args.keep)
        shutil.copytree(GOLDEN, os.path.join(chroot, 'in'), symlinks=False,
                        ignore=shutil.ignore_patterns('*.py', '__pycache__', 'harness'))
        os.makedirs(os.path.join(chroot, 'out-dynamic'))
        os.makedirs(os.path.join(chroot, 'out-static'))
        check('the chroot holds only the two programs, the inputs and the outputs',
              sorted(os.listdir(chroot)) == ['in', 'orbit-run', 'orbitc', 'out-dynamic',
                                             'out-static'], os.listdir(chroot))
        r = Runner(chroot, dynamic)

        for program in PROGRAMS:
            dyn, _ = r.same('%s --version' % program, program, '--version')
            check('%s --version prints a version' % program, dyn[0] == 0 and dyn[1], dyn)
        dyn, _ = r.same('orbitc explain E0410', 'orbitc', 'explain', 'E0410')
        check('orbitc explain E0410 prints the explanation', dyn[0] == 0 and b'E0410' in dyn[1])

        sources = sorted(glob.glob(os.path.join(chroot, 'in', '**', '*.orbit'), recursive=True))
        check('the golden sources are in the chroot', len(sources) > 100, len(sources))
        differ = []
        for path in sources:
            rel = os.path.relpath(path, chroot)
            dyn, sta = r.both('orbitc', 'check', '--format', 'json', *golden_args(path), rel)
            if dyn != sta:
                differ.append('%s: %r / %r' % (rel, shorten(dyn), shorten(sta)))
        check('orbitc check --format json of each of %d golden sources: the same in the chroot'
              % len(sources), not differ, '\n'.join(differ[:5]))

        results = []
        for jobs in ('1', '4', None):
            argv = ['check', '--format', 'json'] + (['--jobs', jobs] if jobs else []) + ['in']
            dyn, sta = r.same('orbitc check --format json in/ --jobs %s' % (jobs or 'default'),
                              'orbitc', *argv)
            results.append(sta)
        check('orbitc check of the golden tree found diagnostics', results[0][1].count(b'"code"') > 100,
              shorten(results[0]))
        check('in the chroot, the same output on 1 thread, on 4 and on the default number',
              results[0] == results[1] == results[2], [shorten(x) for x in results])
        # The cache, keyed by the executable's build ID (no /proc/self/exe to read): a cold
        # run and a warm one print what a run without it prints.
        for run in ('cold', 'warm'):
            p = subprocess.run(r.prefix + ['/orbitc', 'check', '--format', 'json', 'in'],
                               env={'ORBITC_CACHE_DIR': '/cache'}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=300)
            check('in the chroot, a %s cache: the same output' % run,
                  (p.returncode, p.stdout, p.stderr) == results[0], shorten(results[0]))
        check('the cache was written in the chroot',
              os.path.isdir(os.path.join(chroot, 'cache', 'check')))

        scenarios = sorted(glob.glob(os.path.join(chroot, 'in', 'run', '*.scenario.json')))
        check('the runtime golden cases are in the chroot', len(scenarios) > 20, len(scenarios))
        differ, ran = [], 0
        for scenario in scenarios:
            name = os.path.basename(scenario)[:-len('.scenario.json')]
            source = os.path.join('in', 'run', name + '.orbit')
            if not os.path.exists(os.path.join(chroot, source)):
                continue
            dyn, sta = r.both('orbitc', 'build', source, '-o', 'out-dynamic/%s.orbc' % name)
            sta = r.both('orbitc', 'build', source, '-o', 'out-static/%s.orbc' % name)[1]
            built = [os.path.join(chroot, d, name + '.orbc') for d in ('out-dynamic', 'out-static')]
            if dyn != sta or not all(os.path.exists(b) for b in built):
                differ.append('build %s: %r / %r' % (name, shorten(dyn), shorten(sta)))
                continue
            with open(built[0], 'rb') as a, open(built[1], 'rb') as b:
                if a.read() != b.read():
                    differ.append('build %s: the .orbc bytes differ' % name)
                    continue
            extra = []
            args_file = os.path.join(chroot, 'in', 'run', name + '.args')
            if os.path.exists(args_file):
                with open(args_file, encoding='utf-8') as f:
                    extra = shlex.split(f.read())
            dyn, sta = r.both('orbit-run', 'out-static/%s.orbc' % name, '--scenario',
                              os.path.relpath(scenario, chroot), *extra)
            ran += dyn[0] == 0   # some cases are scenarios refused on purpose (status 2)
            if dyn != sta:
                differ.append('orbit-run %s: %r / %r' % (name, shorten(dyn), shorten(sta)))
        check('orbitc build and orbit-run of the runtime golden cases (%d histories): the same '
              'bytes and output in the chroot' % ran, ran > 20 and not differ, '\n'.join(differ[:5]))

        fmt_source = os.path.relpath(sources[0], chroot)
        r.same('orbitc fmt --diff %s' % fmt_source, 'orbitc', 'fmt', '--diff', fmt_source)
    return finish()


def pack(builddir, work):
    """The release's tarball in `work`: orbitc-VERSION-ARCH-linux-static/ with the programs
    stripped, LICENSE and THIRD_PARTY_NOTICES, of fixed dates (SOURCE_DATE_EPOCH, else
    debian/changelog's) and owners: the same bytes from the same commit."""
    info = subprocess.run(['meson', 'introspect', '--projectinfo', os.path.join(ROOT, 'meson.build')],
                          capture_output=True, text=True, check=True).stdout
    version = json.loads(info)['version']
    name = 'orbitc-%s-%s-linux-static' % (version, os.uname().machine)
    top = os.path.join(work, 'pack', name)
    os.makedirs(top)
    for program, rel in PROGRAMS.items():
        subprocess.run(['strip', '-o', os.path.join(top, program), os.path.join(builddir, rel)],
                       check=True)
    shutil.copyfile(os.path.join(ROOT, 'LICENSE'), os.path.join(top, 'LICENSE'))
    subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'notices.py'), '--artefact',
                    'static', '--out', os.path.join(top, 'THIRD_PARTY_NOTICES')], check=True)
    epoch = os.environ.get('SOURCE_DATE_EPOCH') or subprocess.run(
        ['dpkg-parsechangelog', '-l', os.path.join(ROOT, 'debian', 'changelog'), '-STimestamp'],
        capture_output=True, text=True, check=True).stdout.strip()
    tarball = os.path.join(work, name + '.tar.gz')
    subprocess.run('tar --sort=name --mtime=@%s --owner=0 --group=0 --numeric-owner '
                   '--mode=u+rwX,go=rX -C %s -cf - %s | gzip -9n >%s'
                   % (shlex.quote(epoch), shlex.quote(os.path.dirname(top)), shlex.quote(name),
                      shlex.quote(tarball)), shell=True, check=True)
    return tarball


def stripped_size(program, work):
    copy = os.path.join(work, 'stripped')
    shutil.copy2(program, copy)
    subprocess.run(['strip', copy], check=True)
    size = os.path.getsize(copy)
    os.remove(copy)
    return size


if __name__ == '__main__':
    sys.exit(main())
