"""The static programs (docs/install.md, "The static binary"), built once for the tests
that need them: test_static.py runs them in an empty chroot, test_npm.py packs orbitc into
@orbitc/cli-linux-x64. Both build into the same directory (the meson build's
`build-static/`, which meson passes them), one at a time (a lock beside it), and ninja
rebuilds only what the sources changed: the binary is never built twice for one tree."""
import fcntl
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = {'orbitc': 'cli/orbitc', 'orbit-run': 'runtime/orbit-run'}


def build_static(builddir):
    """Builds orbitc and orbit-run with -Dstatic=true in `builddir` (set up on first use)
    and returns {name: path}; exits with FAIL and the build's output when it fails."""
    start = time.monotonic()
    os.makedirs(os.path.dirname(os.path.abspath(builddir)), exist_ok=True)
    with open(os.path.abspath(builddir) + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        steps = [['ninja', '-C', builddir] + list(PROGRAMS.values())]
        if not os.path.isfile(os.path.join(builddir, 'build.ninja')):
            steps.insert(0, ['meson', 'setup', builddir, ROOT, '-Dstatic=true', '-Dtests=false',
                             '-Dbuildtype=release'])
        for argv in steps:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=3000)
            if p.returncode != 0:
                sys.exit('FAIL: %s\n%s' % (' '.join(argv), p.stdout.decode(errors='replace')[-6000:]))
    print('static build: %.0f s' % (time.monotonic() - start))
    return {name: os.path.join(builddir, rel) for name, rel in PROGRAMS.items()}
