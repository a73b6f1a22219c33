// What a new build of a program does to the executions in flight on a Restate host, and
// what two programs on one server do to each other (docs/restate.md, "Versions"): a
// script that reports, not a test — it ran against the host before versions were served
// side by side, and runs against any host directory given.
//
//   node tests/restate/versions-repro.mjs [--host DIR] [--scale N] [--programs-only] [--keep]
//
// DIR: a copy of hosts/restate (default: this repository's) with its node_modules, and
// hosts/wasm beside it; ORBIT_ENGINE_WASM names its WebAssembly module. For each of the
// three changes — a step removed before the waiting point, the delays changed, the last
// step calling another worker — it starts three executions of versions/v1.orbit (waiting
// in a retry backoff, a 40 s sleep, for a signal), then serves the new build on the same
// address as a deploy does (the old host: the new build alone; this host: `serve v1 v2`,
// the new build beside the old), sends the signal, and prints what each execution did:
// its result and last history line, or its invocation's status and last failure. Then two
// programs on one server, one at 4 queue shards and then one at 2.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as h from './harness.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1];
};
const HOST = path.resolve(arg('--host', h.PACKAGE));
const SCALE = Number(arg('--scale', '4'));
const ORBITC = process.env.ORBITC ?? path.join(h.ROOT, 'build', 'cli', 'orbitc');
const BIN = path.join(HOST, 'bin', 'orbit-restate.mjs');
const { runWorker, TaskError } = await import(path.join(HOST, 'lib', 'worker.mjs'));
// The host of versions side by side says `serving program`; the old one does not.
const SIDE_BY_SIDE = fs.readFileSync(BIN, 'utf8').includes('migrate');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orbit-versions-repro-'));
const compile = (file) => {
  const out = path.join(dir, path.basename(file).replace(/\.orbit$/, '.orbc'));
  execFileSync(ORBITC, ['build', path.join(h.HERE, 'versions', file), '-o', out]);
  return out;
};

async function serve(server, files, port, program, shards) {
  const log = path.join(dir, `serve-${port}-${Date.now()}.log`);
  const args = [BIN, 'serve', ...files, '--port', String(port), '--admin', server.admin, '--time-scale', String(SCALE)];
  args.push('--queue-shards', String(shards));
  if (SIDE_BY_SIDE) args.push('--program', program);
  const p = h.startProcess(process.execPath, args, log, { RESTATE_LOGGING: 'WARN' });
  await h.until(() => fs.readFileSync(log, 'utf8').includes('registered with'), 30000, `serve registered (${log})`);
  return p;
}

function workers(server, program) {
  const answer = (task) => async (_input, t) => {
    if (task === 'v.flaky' && t.attempt === 1) throw new TaskError('FLAKY', 'first', true);
    return { n: task === 'v.b3' ? 3 : task === 'v.b' ? 2 : 1 };
  };
  return ['v.a', 'v.flaky', 'v.b', 'v.b3'].map((task) =>
    runWorker({
      ingress: server.ingress,
      program,
      task,
      handler: answer(task),
      workerId: 'worker-1',
      shardsEveryMs: 1000,
    }),
  );
}

async function report(server, workflow, id) {
  const url = `${server.ingress}/restate/workflow/${workflow}/${id}/output`;
  const r = await fetch(url).catch(() => null);
  const history = (await h.history(server, workflow, id).catch(() => '')).trim().split('\n');
  if (r?.ok) return `${JSON.stringify(await r.json())}; last line "${history.at(-1)}"`;
  const rows = await h.sqlRows(
    server,
    `SELECT status, retry_count, last_failure FROM sys_invocation WHERE target_service_name = '${workflow}'` +
      ` AND target_service_key = '${id}' AND target_handler_name = 'run'`,
  );
  const row = rows[0] ?? {};
  return `not finished: ${row.status}, ${row.retry_count ?? 0} retries, last failure ${JSON.stringify(String(row.last_failure ?? '').slice(0, 160))}; history ends "${history.at(-1)}"`;
}

const server = new h.RestateServer(path.join(dir, 'restate'));
fs.mkdirSync(server.dir);
const running = [];
try {
  await server.start();
  const v1 = compile('v1.orbit');
  console.log(`host ${HOST} (${SIDE_BY_SIDE ? 'versions side by side' : 'one build at a time'}), time scale ${SCALE}`);
  const ws = workers(server, 'vtest');
  for (const change of process.argv.includes('--programs-only') ? [] : ['removed', 'delays', 'after']) {
    const v2 = compile(`v2-${change}.orbit`);
    const port = await h.freePort();
    const old = await serve(server, [v1], port, 'vtest', 4);
    const ids = ['backoff', 'nap', 'approve'].map((w) => [w, `${change}-${w}-${process.pid}`]);
    for (const [w, id] of ids) await h.startExecution(server, w, id, { id });
    const waits = { backoff: 'RetryScheduled', nap: 'TimerStarted', approve: 'SignalWaitStarted' };
    await h.until(
      async () => {
        for (const [w, id] of ids) if (!(await h.history(server, w, id)).includes(waits[w])) return false;
        return true;
      },
      30000,
      'at their places',
    );
    await old.kill('SIGTERM');
    const fresh = await serve(server, SIDE_BY_SIDE ? [v1, v2] : [v2], port, 'vtest', 4);
    running.push(fresh);
    await h.signal(server, 'approve', ids[2][1], 'approved', { by: 'repro' });
    await h.sleep(40000 / SCALE + 15000);
    console.log(`v2 ${change}:`);
    for (const [w, id] of ids) console.log(`  ${w}: ${await report(server, w, id)}`);
    if (process.argv.includes('--keep'))
      for (const [w, id] of ids)
        fs.writeFileSync(path.join(dir, `${id}.history`), await h.history(server, w, id).catch(() => ''));
    await fresh.kill('SIGTERM');
  }
  for (const w of ws) w.stop();

  // Two programs on one server: side at 4 shards, then vtest at 2.
  const port1 = await h.freePort();
  const port2 = await h.freePort();
  const side = await serve(server, [compile('side.orbit')], port1, 'side', 4);
  const other = await serve(server, [v1], port2, 'vtest', 2);
  running.push(side, other);
  runWorker({
    ingress: server.ingress,
    program: 'side',
    task: 'v.a',
    handler: async () => ({ n: 7 }),
    shardsEveryMs: 1000,
  });
  const ids = Array.from({ length: 8 }, (_, i) => `side-${i}-${process.pid}`);
  for (const id of ids) await h.startExecution(server, 'side', id, { id });
  await h.sleep(20000);
  let done = 0;
  const stuck = [];
  for (const id of ids) {
    const r = await fetch(`${server.ingress}/restate/workflow/side/${id}/output`).catch(() => null);
    if (r?.ok) done++;
    else stuck.push(`${id}: ${(await h.history(server, 'side', id).catch(() => '')).trim().split('\n').at(-1)}`);
  }
  console.log(
    `two programs (side at 4 shards, then vtest at 2): ${done} of ${ids.length} executions of side completed in 20 s`,
  );
  for (const s of stuck) console.log(`  ${s}`);
} finally {
  for (const p of running) await p.kill('SIGKILL');
  await server.stop();
  if (!process.argv.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
process.exit(0);
