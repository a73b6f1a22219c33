// Orbit on Restate under load (docs/restate.md, "Load"; docs/performance.md): N
// executions of examples/checkout.orbit started at once (25 start requests in flight,
// each execution sent its `manager_approved` signal) on one restate-server node and one
// `orbit-restate serve` with sharded task queues, three worker processes of
// tests/restate/load-worker.mjs; every execution must complete once and every order be
// charged once (tests/restate/load.mjs, which the small load case of the `restate` suite
// runs too). Prints executions per second and the p50 and p99 of the end-to-end time
// (start request to result, the 10-minute cool-off included: 600 s / SCALE).
//
//   tools/install-restate.sh && node tools/restate_bench.mjs [--executions N] [--time-scale S]
//        [--shards K] [--bound SECONDS]
//
// Defaults: 1000 executions, scale 1, 8 shards, 900 s bound on each result. ORBITC names
// orbitc (default: build/cli/orbitc). A benchmark, run on demand, not in CI: it takes
// about 11 minutes at the defaults, and prints its figures as a row of the table in
// docs/restate.md.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import * as h from '../tests/restate/harness.mjs';
import { describeLoad, runLoad } from '../tests/restate/load.mjs';

const { values: args } = parseArgs({
  options: {
    executions: { type: 'string', default: '1000' },
    'time-scale': { type: 'string', default: '1' },
    shards: { type: 'string', default: '8' },
    bound: { type: 'string', default: '900' },
  },
});
const n = Number(args.executions),
  timeScale = Number(args['time-scale']),
  shards = Number(args.shards);
const ORBITC = process.env.ORBITC ?? path.join(h.ROOT, 'build', 'cli', 'orbitc');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orbit-restate-bench-'));
const server = new h.RestateServer(path.join(dir, 'restate'));
fs.mkdirSync(server.dir);
let status = 0;
try {
  const orbc = path.join(dir, 'checkout.orbc');
  execFileSync(ORBITC, ['build', path.join(h.ROOT, 'examples', 'checkout.orbit'), '-o', orbc], {
    stdio: 'pipe',
    timeout: 30000,
  });
  await server.start();
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const r = await runLoad({ server, orbc, dir, n, timeScale, shards, boundMs: Number(args.bound) * 1000, last: true });
  console.log(describeLoad(r));
  console.log(`load average at the start: ${load}`);
  console.log(
    `| ${new Date().toISOString().slice(0, 16).replace('T', ' ')} | ${n} | ${timeScale} | ${shards} | ${r.n}, one \`run\` each ` +
      `| ${r.keys} / ${r.charges} | ${r.seconds.toFixed(0)} s | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(1)} s | ${r.p99.toFixed(1)} s |`,
  );
} catch (e) {
  console.error(`restate_bench: ${e.stack ?? e.message}`);
  status = 1;
} finally {
  await server.stop();
  if (!process.env.ORBIT_RESTATE_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
process.exit(status);
