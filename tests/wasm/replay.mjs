// orbit.replay and orbit.places (hosts/wasm/orbit-api.js, what the Restate host calls) in
// the one WebAssembly build say what `orbit-run replay --format json` says, natively.
//
//   node tests/wasm/replay.mjs WASM_DIR ORBIT_RUN
//
// For every conformance scenario (tests/conformance/runtime/NAME.*, its committed .orbc),
// the native orbit-run records the history (`--format json --show-values`); the whole
// history and its first half are replayed against the same module natively (`-`, from
// standard input) and through the wasm core; the two JSON objects must be equal, and
// orbit.places must give the native places. One line per scenario, then `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadOrbit } from '../../hosts/wasm/orbit-api.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const KIT = path.join(ROOT, 'tests', 'conformance', 'runtime');

const [wasmDir, orbitRunArg] = process.argv.slice(2);
const orbitRun = path.resolve(orbitRunArg);
const orbit = await loadOrbit(path.join(path.resolve(wasmDir), 'orbit.wasm'));
let passed = 0;
let failed = 0;
for (const file of fs
  .readdirSync(KIT)
  .filter((f) => f.endsWith('.orbc'))
  .sort()) {
  const name = file.slice(0, -'.orbc'.length);
  const orbc = path.join(KIT, file);
  const args = [orbc, '--format', 'json', '--show-values'];
  if (fs.existsSync(path.join(KIT, name + '.scenario.json'))) args.push('--scenario', name + '.scenario.json');
  const extra = path.join(KIT, name + '.args');
  if (fs.existsSync(extra)) args.push(...fs.readFileSync(extra, 'utf8').split(/\s+/).filter(Boolean));
  const run = spawnSync(orbitRun, args, { cwd: KIT, encoding: 'utf8' });
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('{"time_ms"'));
  if (lines.length === 0) continue;
  const problems = [];
  for (const cut of [lines.length, Math.ceil(lines.length / 2)]) {
    const history = lines.slice(0, cut).join('\n') + '\n';
    const native = spawnSync(orbitRun, ['replay', orbc, '-', '--format', 'json'], { input: history, encoding: 'utf8' });
    let wasm;
    try {
      wasm = orbit.replay(new Uint8Array(fs.readFileSync(orbc)), history);
    } catch (e) {
      wasm = { error: e.message };
    }
    const expected = native.status === 2 ? { error: native.stderr } : JSON.parse(native.stdout);
    if (!isDeepStrictEqual(wasm, expected))
      problems.push(`${cut} records: wasm ${JSON.stringify(wasm)}\n  native ${JSON.stringify(expected)}`);
    else if (expected.places && !isDeepStrictEqual(orbit.places(history), expected.places))
      problems.push(`${cut} records: places ${JSON.stringify(orbit.places(history))}`);
  }
  if (problems.length) {
    failed++;
    console.log(`FAIL ${name}\n  ${problems.join('\n  ')}`);
  } else {
    passed++;
    console.log(`ok   ${name}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || passed === 0 ? 1 : 0);
