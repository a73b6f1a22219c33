// The playground's check against orbitc's, in the same run (docs/performance.md,
// "The playground"): the 1 MB generated program (tools/gen_corpus.py --size 1M --seed 1)
// checked by the WebAssembly build under Node (orbit-api.js's checkText, the whole
// JSON text) and by the native `orbitc check --format json`, each REPEAT times; the
// fastest of each, and their ratio (the goal: at most 3). Also the sizes of
// what the page loads: orbit.wasm, orbit.js and orbit-api.js, raw and gzip -9.
//
//   node --no-experimental-fetch tools/playground_bench.mjs WASM_DIR ORBITC [REPEAT]
//
// WASM_DIR is tools/playground.sh --wasm's folder (build-playground/wasm), ORBITC a
// release build's orbitc (the native time counts the process: start, read, check,
// print, as a user runs it). A benchmark, not a test: it prints, it does not judge.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const [dirArg, orbitcArg, repeatArg] = process.argv.slice(2);
if (!dirArg || !orbitcArg) {
  console.error('usage: playground_bench.mjs WASM_DIR ORBITC [REPEAT]');
  process.exit(2);
}
const dir = resolve(dirArg);
const orbitc = resolve(orbitcArg);
const repeat = Number(repeatArg ?? 5);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// emscripten's ES module, under Node, uses require and __dirname as if it were CommonJS.
globalThis.require = createRequire(import.meta.url);
globalThis.__dirname = dir;
const { loadOrbit } = await import(join(dir, 'orbit-api.js'));
const orbit = await loadOrbit(join(dir, 'orbit.wasm'));

const work = mkdtempSync(join(tmpdir(), 'playground-bench-'));
const program = join(work, 'playground.orbit');
execFileSync('python3', [join(root, 'tools', 'gen_corpus.py'), '--size', '1M', '--seed', '1', '-o', program]);
const source = readFileSync(program, 'utf8');

// The fastest of `repeat` runs, in wall-clock milliseconds and in CPU milliseconds (user +
// system): on a loaded machine the CPU time is the steadier figure. `run` returns
// [result, cpu ms] (the CPU time of a child process, which this one cannot see) or
// [result] (this process's CPU time is measured).
function fastest(run) {
  let wall = Infinity,
    cpu = Infinity,
    result;
  for (let i = 0; i < repeat; i++) {
    const start = process.hrtime.bigint();
    const before = process.cpuUsage();
    const [value, childCpu] = run();
    const used = process.cpuUsage(before);
    wall = Math.min(wall, Number(process.hrtime.bigint() - start) / 1e6);
    cpu = Math.min(cpu, childCpu ?? (used.user + used.system) / 1e3);
    result = value;
  }
  return { wall, cpu, result };
}

// orbitc's output, and its CPU time from bash's `time` (TIMEFORMAT: user + system, s).
function nativeCheck() {
  const out = execFileSync(
    'bash',
    [
      '-c',
      'TIMEFORMAT="%3U %3S"; { time "$0" check --format json ' + 'playground.orbit > out.jsonl; } 2> time.txt',
      orbitc,
    ],
    { cwd: work },
  );
  const [user, system] = readFileSync(join(work, 'time.txt'), 'utf8').trim().split(/\s+/).map(Number);
  return [readFileSync(join(work, 'out.jsonl'), 'utf8') + out.toString(), (user + system) * 1e3];
}

const wasm = fastest(() => [orbit.checkText(source, 'playground.orbit')]);
const native = fastest(nativeCheck);
rmSync(work, { recursive: true });
if (wasm.result !== native.result) {
  console.error('playground_bench: the two checks differ');
  process.exit(1);
}
console.log(`check of the 1 MB program (${source.length} bytes, ${repeat} runs, fastest):`);
const figures = (r) => `${r.wall.toFixed(1)} ms wall, ${r.cpu.toFixed(1)} ms CPU`;
console.log(`  WebAssembly under Node ${process.version}: ${figures(wasm)}`);
console.log(`  native orbitc (the whole process): ${figures(native)}`);
console.log(`  ratio: ${(wasm.wall / native.wall).toFixed(2)}x wall, ${(wasm.cpu / native.cpu).toFixed(2)}x CPU`);
let total = 0,
  totalGzip = 0;
for (const name of ['orbit.wasm', 'orbit.js', 'orbit-api.js']) {
  const bytes = readFileSync(join(dir, name));
  const gzip = gzipSync(bytes, { level: 9 }).length;
  total += statSync(join(dir, name)).size;
  totalGzip += gzip;
  console.log(`  ${name.padEnd(13)} ${String(bytes.length).padStart(8)} bytes, gzip -9 ${String(gzip).padStart(7)}`);
}
console.log(`  ${'together'.padEnd(13)} ${String(total).padStart(8)} bytes, gzip -9 ${String(totalGzip).padStart(7)}`);
