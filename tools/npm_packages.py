#!/usr/bin/env python3
"""Writes the npm packages of orbitc (docs/install.md, "npm") into a staging directory,
each a folder `npm pack` packs; tools/npm-pack.sh runs it, then packs them.

    npm_packages.py --wasm DIR --native ORBITC --out DIR
    npm_packages.py --root-manifest [--check]

Each carries LICENSE and THIRD_PARTY_NOTICES (tools/notices.py: what it holds of others').

- `orbitc`: the launcher npm/orbitc/bin/orbitc, the JavaScript API (npm/orbitc/index.mjs,
  typed by index.d.ts), and in wasm/ the one WebAssembly build (DIR's orbit.js,
  orbit.wasm, and its wrapper orbit-api.js with engine-enums.js: what tools/playground.sh
  --wasm makes); @orbitc/cli-linux-x64 its optional dependency, at the same version;
- `@orbitc/cli-linux-x64`: ORBITC, the static orbitc (-Dstatic=true, stripped), as
  `orbitc`; os linux, cpu x64 and no libc: static, it runs on glibc and musl systems alike.

Every package.json is written here, its version meson's project version (meson.build: the
one version, which base/version.h has too), never copied by hand. --root-manifest writes
the repository's own package.json, which pre-commit installs (.pre-commit-hooks.yaml);
with --check it fails when the committed one differs (the test npm).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import notices  # noqa: E402  (tools/notices.py: THIRD_PARTY_NOTICES)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCOPE = '@orbitc'
# The per-platform packages: their folder name, npm's os and cpu, and the launcher's key
# (process.platform-process.arch, npm/orbitc/bin/orbitc's NATIVE).
PLATFORMS = [{'name': 'cli-linux-x64', 'os': ['linux'], 'cpu': ['x64']}]
WASM_FILES = ['orbit.js', 'orbit.wasm', 'orbit-api.js', 'engine-enums.js']


def project():
    """meson.build's project: its version (meson introspect) and licence."""
    meson_build = os.path.join(ROOT, 'meson.build')
    out = subprocess.run(['meson', 'introspect', '--projectinfo', meson_build],
                         check=True, capture_output=True, text=True).stdout
    found = re.search(r"^\s*license:\s*'([^']+)'", open(meson_build, encoding='utf-8').read(), re.M)
    return json.loads(out)['version'], found.group(1) if found else 'UNLICENSED'


def common(version, license_):
    return {'version': version, 'license': license_,
            'description': 'orbitc, the compiler and linter of the Orbit workflow language',
            'engines': {'node': '>=18'}}


def orbitc_manifest(version, license_):
    manifest = {'name': 'orbitc', **common(version, license_),
                'bin': {'orbitc': 'bin/orbitc'},
                'exports': {'.': {'types': './index.d.ts', 'import': './index.mjs'},
                            './bin/orbitc': './bin/orbitc', './package.json': './package.json'},
                'types': './index.d.ts',
                'files': ['bin/', 'wasm/', 'index.mjs', 'index.d.ts', 'THIRD_PARTY_NOTICES'],
                'optionalDependencies': {'%s/%s' % (SCOPE, p['name']): version for p in PLATFORMS}}
    return manifest


def platform_manifest(platform, version, license_):
    return {'name': '%s/%s' % (SCOPE, platform['name']), **common(version, license_),
            'description': 'the native orbitc for %s %s (static), run by the package orbitc'
                           % (platform['os'][0], platform['cpu'][0]),
            'os': platform['os'], 'cpu': platform['cpu'],
            'files': ['orbitc', 'THIRD_PARTY_NOTICES'], 'preferUnplugged': True}


def root_manifest(version, license_):
    """The repository's package.json: what pre-commit's node language installs
    (.pre-commit-hooks.yaml): no dependency (it installs without a registry), and the hooks'
    entry npm/pre-commit/orbitc-hook.cjs, which runs the orbitc package installed beside it
    (the hook's additional_dependencies)."""
    return {'name': 'orbitc-pre-commit-hooks', **common(version, license_), 'private': True,
            'description': "orbitc's pre-commit hooks: they run the npm package orbitc given as "
                           "additional_dependencies (docs/install.md, \"pre-commit\")",
            # ES modules, as every .js file of the repository is (hosts/wasm, playground/)
            'type': 'module',
            'bin': {'orbitc-hook': 'npm/pre-commit/orbitc-hook.cjs'},
            'files': ['npm/pre-commit/']}


def dump(manifest):
    return json.dumps(manifest, indent=2, ensure_ascii=False) + '\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def stage(args, version, license_):
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    # orbitc
    pkg = os.path.join(out, 'orbitc')
    src = os.path.join(ROOT, 'npm', 'orbitc')
    for rel in ['bin/orbitc', 'index.mjs', 'index.d.ts', 'README.md']:
        os.makedirs(os.path.dirname(os.path.join(pkg, rel)), exist_ok=True)
        shutil.copyfile(os.path.join(src, rel), os.path.join(pkg, rel))
    os.chmod(os.path.join(pkg, 'bin', 'orbitc'), 0o755)
    # the licence's notice travels with every copy (npm packs LICENSE whatever `files` says)
    shutil.copyfile(os.path.join(ROOT, 'LICENSE'), os.path.join(pkg, 'LICENSE'))
    # ... and the notices of what the WebAssembly build holds of others' (tools/notices.py)
    write(os.path.join(pkg, 'THIRD_PARTY_NOTICES'), notices.notices('wasm'))
    for name in WASM_FILES:
        source = os.path.join(args.wasm, name)
        if not os.path.isfile(source):
            sys.exit('npm_packages.py: no %s (tools/playground.sh --wasm makes it)' % source)
        os.makedirs(os.path.join(pkg, 'wasm'), exist_ok=True)
        shutil.copyfile(source, os.path.join(pkg, 'wasm', name))
    # emscripten's orbit.js and the wrapper are ES modules
    write(os.path.join(pkg, 'wasm', 'package.json'), dump({'type': 'module'}))
    write(os.path.join(pkg, 'package.json'), dump(orbitc_manifest(version, license_)))
    # the native packages
    for platform in PLATFORMS:
        pdir = os.path.join(out, platform['name'])
        os.makedirs(pdir)
        shutil.copyfile(args.native, os.path.join(pdir, 'orbitc'))
        os.chmod(os.path.join(pdir, 'orbitc'), 0o755)
        shutil.copyfile(os.path.join(ROOT, 'LICENSE'), os.path.join(pdir, 'LICENSE'))
        write(os.path.join(pdir, 'THIRD_PARTY_NOTICES'), notices.notices('static'))
        write(os.path.join(pdir, 'package.json'), dump(platform_manifest(platform, version, license_)))
        write(os.path.join(pdir, 'README.md'),
              'The native `orbitc` of the npm package `orbitc` for %s %s, which runs it: '
              'install `orbitc`, not this.\n' % (platform['os'][0], platform['cpu'][0]))
    print(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--wasm', help="the WebAssembly build's folder (build-playground/wasm)")
    ap.add_argument('--native', help='the static orbitc of @orbitc/cli-linux-x64')
    ap.add_argument('--out', help='the staging directory (made anew)')
    ap.add_argument('--root-manifest', action='store_true',
                    help="write the repository's package.json (for pre-commit)")
    ap.add_argument('--check', action='store_true',
                    help='with --root-manifest: fail when the committed one differs')
    args = ap.parse_args()
    version, license_ = project()
    if args.root_manifest:
        path = os.path.join(ROOT, 'package.json')
        want = dump(root_manifest(version, license_))
        if args.check:
            have = open(path, encoding='utf-8').read() if os.path.exists(path) else ''
            if have != want:
                sys.exit('package.json is not what tools/npm_packages.py --root-manifest writes '
                         '(meson.build\'s version is %s): run it' % version)
            return
        write(path, want)
        return
    if not (args.wasm and args.native and args.out):
        ap.error('--wasm, --native and --out are needed')
    stage(args, version, license_)


if __name__ == '__main__':
    main()
