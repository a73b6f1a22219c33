// orbit.compat(oldBytes, newBytes), the WebAssembly build's compat_orbc_json through the one
// wrapper (hosts/wasm/orbit-api.js), gives the report `orbitc compat --format json` gives:
// every golden case of tests/golden/compat/ built with orbitc, compared both ways, and a
// module that does not load is an error that names its side.
//
//   node tests/wasm/compat.mjs WASM_DIR ORBITC
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadOrbit } from '../../hosts/wasm/orbit-api.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const CASES = path.join(ROOT, 'tests', 'golden', 'compat');
const [wasm, orbitcArg] = process.argv.slice(2);
const orbitc = path.resolve(orbitcArg);
const orbit = await loadOrbit(path.resolve(wasm, 'orbit.wasm'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orbit-compat-wasm-'));
let passed = 0;
let failed = 0;

function build(source, side, name) {
  const dir = path.join(tmp, name, side);
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(source, path.join(dir, 'p.orbit'));
  execFileSync(orbitc, ['build', 'p.orbit', '-o', '../' + side + '.orbc'], { cwd: dir, stdio: 'pipe' });
  return path.join(tmp, name, side + '.orbc');
}

function cli(oldPath, newPath) {
  try {
    return JSON.parse(execFileSync(orbitc, ['compat', oldPath, newPath, '--format', 'json']));
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout);
    throw e;
  }
}

const strip = (report) => JSON.stringify({ ...report, old: null, new: null });

try {
  for (const name of fs.readdirSync(CASES).sort()) {
    const oldOrbc = build(path.join(CASES, name, 'old.orbit'), 'old', name);
    const newOrbc = build(path.join(CASES, name, 'new.orbit'), 'new', name);
    const want = cli(oldOrbc, newOrbc);
    const got = orbit.compat(fs.readFileSync(oldOrbc), fs.readFileSync(newOrbc));
    if (strip(got) === strip(want) && got.old.label === 'old' && got.new.label === 'new') {
      passed++;
    } else {
      failed++;
      console.log(`FAIL ${name}: orbit.compat differs from orbitc compat --format json`);
    }
  }
  let threw = '';
  try {
    orbit.compat(new Uint8Array([1, 2, 3]), new Uint8Array([4]));
  } catch (e) {
    threw = e.message;
  }
  if (threw.startsWith('the old module does not load')) passed++;
  else {
    failed++;
    console.log(`FAIL a module that does not load: ${threw || 'no error'}`);
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
