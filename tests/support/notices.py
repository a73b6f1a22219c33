"""What the release tests (tests/install/test_static.py, test_npm.py, test_deb.py) check of
the third-party notices (tools/notices.py, docs/install.md, "Third-party notices"): the
THIRD_PARTY_NOTICES an artefact carries is the one the list writes and names each
component with its licence, and the list is true to the link: the Debian packages whose
files a link reads (its `-Wl,--trace`, or a program's NEEDED libraries) are exactly the
ones the list says."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tools'))
import notices  # noqa: E402  (tools/notices.py)


def components(artefact):
    """The components of the list that `artefact` (static, wasm, deb) holds or links."""
    return [c for c in notices.COMPONENTS if artefact in c['in']]


def notices_problem(text, artefact):
    """Why `text` (an artefact's THIRD_PARTY_NOTICES, or None) is not its notices, or None."""
    if text is None:
        return 'no THIRD_PARTY_NOTICES'
    missing = [c['name'] for c in components(artefact)
               if not re.search(r'^- %s .*\(%s\)' % (re.escape(c['name']), re.escape(c['licence'])),
                                text, re.M)]
    if missing:
        return 'THIRD_PARTY_NOTICES does not name %s with its licence' % ', '.join(missing)
    if text != notices.notices(artefact):
        return 'THIRD_PARTY_NOTICES is not what tools/notices.py --artefact %s writes' % artefact
    return None


def owners(paths):
    """The Debian packages that own `paths` (dpkg -S, on their real paths); a path of no
    package is reported as itself."""
    found = set()
    for path in sorted({os.path.realpath(p) for p in paths}):
        p = subprocess.run(['dpkg', '-S', path], capture_output=True, text=True)
        if p.returncode != 0:
            # merged /usr: dpkg knows some files by their path below /lib
            alt = re.sub(r'^/usr/lib/', '/lib/', path)
            p = subprocess.run(['dpkg', '-S', alt], capture_output=True, text=True)
        found.add(p.stdout.split(':')[0] if p.returncode == 0 else path)
    return found


def static_link_inputs(builddir, target):
    """The files outside `builddir` that the link of `target` (cli/orbitc) reads: its
    command again (ninja -t commands) with -Wl,--trace, into a file of its own."""
    commands = subprocess.run(['ninja', '-C', builddir, '-t', 'commands', target],
                              capture_output=True, text=True, check=True).stdout.splitlines()
    link = commands[-1]
    out = os.path.join(builddir, 'notices-trace.out')
    link = link.replace(' -o %s ' % target, ' -o %s ' % out, 1)
    p = subprocess.run(link + ' -Wl,--trace', shell=True, cwd=builddir, capture_output=True,
                       text=True)
    if os.path.exists(out):
        os.unlink(out)
    if p.returncode != 0:
        raise RuntimeError('the link of %s again: %s' % (target, p.stderr[-2000:]))
    files = set()
    build = os.path.realpath(builddir)
    for line in p.stdout.splitlines():
        # a file read whole, `/path/file.o`, or a member of an archive, `(/path/lib.a)member.o`
        found = re.match(r'^\((/[^)]+)\)|^(/\S+)$', line.strip())
        if not found:
            continue
        path = os.path.realpath(found.group(1) or found.group(2))
        if not path.startswith(build + os.sep):
            files.add(path)
    return files


def needed_libraries(program):
    """The shared libraries `program` needs (readelf -d), as paths on this machine
    (ldconfig -p)."""
    dynamic = subprocess.run(['readelf', '-d', program], capture_output=True, text=True,
                             check=True).stdout
    names = re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', dynamic)
    cache = subprocess.run(['ldconfig', '-p'], capture_output=True, text=True, check=True).stdout
    paths = []
    for name in names:
        found = re.search(r'^\s*%s \(libc6,x86-64[^)]*\) => (\S+)$' % re.escape(name), cache, re.M)
        paths.append(found.group(1) if found else name)
    return paths


def expected_owners(artefact):
    """The Debian packages the list says a link for `artefact` reads."""
    return {c['linked_from'][artefact] for c in notices.COMPONENTS
            if artefact in c.get('linked_from', {})}


def wasm_link_problem(wasm_dir):
    """Why the list does not name what the WebAssembly link of `wasm_dir` (the build of
    tools/playground_wasm.py: its build.ninja) reads of others', or None: the link again,
    into a temporary directory, with wasm-ld's --trace; every input that is not orbitc's
    own object must be a component's (`wasm_from`), and every component of the list must
    be read."""
    ninja = os.path.join(wasm_dir, 'build.ninja')
    if not os.path.isfile(ninja):
        return 'no %s to link again' % ninja
    text = open(ninja, encoding='utf-8').read()
    flags = re.search(r'^rule link\n  command = emcc \$in -o \$out (.*)$', text, re.M)
    inputs = re.search(r'^build orbit\.js \| orbit\.wasm: link (.*)$', text, re.M)
    if not flags or not inputs:
        return 'no link in %s' % ninja
    with tempfile.TemporaryDirectory(prefix='orbitc-notices-') as tmp:
        argv = (['emcc'] + inputs.group(1).split() + ['-o', os.path.join(tmp, 'orbit.js')]
                + shlex.split(flags.group(1)) + ['-Wl,--trace'])
        p = subprocess.run(argv, cwd=wasm_dir, capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, NODE_PATH='/usr/share/nodejs'))
    if p.returncode != 0:
        return 'the link again: %s' % p.stderr[-2000:]
    read = set()
    for line in p.stdout.splitlines():
        line = line.strip()
        if line.startswith('obj/'):
            if line.startswith('obj/third-party_'):
                read.add(line[len('obj/'):])
        elif line.startswith('/'):
            read.add(os.path.basename(line.split('(')[0]))
    parts = components('wasm')
    unnamed = sorted(r for r in read if not any(r.startswith(m) for c in parts for m in c['wasm_from']))
    unread = [c['name'] for c in parts if not any(r.startswith(m) for r in read for m in c['wasm_from'])]
    if unnamed or unread or not read:
        return 'the link reads %s that the list does not name; the list names %s that it does not read' % (
            unnamed, unread)
    return None
