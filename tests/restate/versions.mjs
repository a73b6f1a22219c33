// The version cases of the Restate host's tests (docs/restate.md, "Versions" and
// "Tests"), on one server: executions of v1 (versions/v1.orbit) wait in a retry backoff,
// a 40 s sleep, for a signal and in a child workflow's backoff; then the program is
// deployed again on the same address with four later versions beside v1 — a step removed
// before those places, the delays changed, a step reordered, the last step calling
// another worker with another contract — and `orbit-restate migrate` moves exactly the
// executions that can continue (the server killed with -9 in the middle of the last
// migration, and started again). Every execution must end with orbit-run's history of
// the version it ends on (every record, values included, but the times; the delays
// exact): v1's for those that stay, the new version's for those moved. Beside it, a
// second program served at 2 queue shards next to this one's 1 (every version's queues
// are polled by the workers of all versions: one shard keeps the polls few): all its
// executions complete.
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import * as h from './harness.mjs';
import { TaskError, runWorker } from '../../hosts/restate/lib/worker.mjs';
import { versionOf } from '../../hosts/restate/lib/names.mjs';

const BIN = path.join(h.PACKAGE, 'bin', 'orbit-restate.mjs');
const WORKFLOWS = ['backoff', 'nap', 'approve', 'parent'];
// Where each workflow of v1 waits: the line of its history that says it is there.
const WAITS = {
  backoff: 'RetryScheduled step=flaky',
  nap: 'TimerStarted step=rest',
  approve: 'SignalWaitStarted step=approval',
  parent: 'RetryScheduled step=kid/pick',
};
// The later versions, and which of v1's executions can continue on each (the cases'
// expectations: "can continue" of docs/compat.md worked out by hand for these programs).
const CHANGES = [
  { name: 'removed', file: 'v2-removed.orbit', moves: [] },
  { name: 'delays', file: 'v2-delays.orbit', moves: ['approve'] },
  { name: 'reordered', file: 'v2-reordered.orbit', moves: [] },
  { name: 'after', file: 'v2-after.orbit', moves: WORKFLOWS },
];
const PROGRAM = 'vtest';
const SIDE = 'side';
const SIDE_RUNS = 8;
// Orbit milliseconds per real millisecond: the 40 s delays last 200 s, time for the
// deploy, the four migrations and the server's restart while every execution still
// waits (on a machine at a load average of 25 to 30 on 2 cores they took 140 s): nothing
// is in flight when the server is killed.
const SCALE = 0.2;
// A worker is lost after this long without a heartbeat: long, as no case here loses one
// and an answer on a busy machine can take seconds to reach the queue.
const HEARTBEAT_MS = 60000;

/** The workers' answers, as the scenarios script them for orbit-run. */
const SCRIPT = {
  'v.a': { attempts: [{ succeed: { n: 1 } }] },
  'v.flaky': {
    attempts: [{ fail: { code: 'FLAKY', message: 'first', retryable: true } }, { succeed: { n: 1 } }],
  },
  'v.b': { attempts: [{ succeed: { n: 2 } }] },
  'v.b3': { attempts: [{ succeed: { n: 3 } }] },
};

/** orbit-run's scenario of execution `id` of `workflow` (`tasks`: the version's tasks). */
function scenario(workflow, id, tasks) {
  return {
    workflow,
    input: { id },
    workers: Object.fromEntries(tasks.map((t) => [t, SCRIPT[t]])),
    signals: workflow === 'approve' ? [{ name: 'approved', at_ms: 1000, payload: { by: 'test' } }] : [],
  };
}

/** Every worker of the version program, of every version (the shards asked again as versions come). */
function startWorkers(ingress, program) {
  const answer = (task) => async (_input, t) => {
    if (task === 'v.flaky' && t.attempt === 1) throw new TaskError('FLAKY', 'first', true);
    return SCRIPT[task].attempts.at(-1).succeed;
  };
  return Object.keys(SCRIPT).map((task) =>
    runWorker({
      ingress,
      program,
      task,
      handler: answer(task),
      workerId: 'worker-1',
      concurrency: 8,
      shardsEveryMs: 1000,
    }),
  );
}

/** `orbit-restate ARGS` against `server`: its standard output (JSON when asked). */
async function cli(server, args, { json = true } = {}) {
  const all = [BIN, ...args, '--admin', server.admin, '--ingress', server.ingress];
  if (json) all.push('--format', 'json');
  const { stdout } = await promisify(execFile)(process.execPath, all, { encoding: 'utf8', timeout: 120000 }).catch(
    (e) => {
      if (typeof e.stdout === 'string' && e.code === 1) return e; // some execution refused: reported
      throw new Error(`orbit-restate ${args.join(' ')}: ${e.message}\n${e.stderr ?? ''}`);
    },
  );
  return json ? JSON.parse(stdout) : stdout;
}

/**
 * A history's JSON lines without their times and numbers (what orbit-run and Restate must
 * share), and without redeliveries: on a busy machine a claim's answer can be lost with
 * its poll (the worker never saw the task), and the queue delivers the attempt again
 * (StepRedelivered, then StepDispatched of the same attempt) — the world's doing, not the
 * version's. `redelivered` counts them.
 */
function timeless(text) {
  const records = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const out = [];
  let redelivered = 0;
  for (let i = 0; i < records.length; i++) {
    const { time_ms, seq, ...rest } = records[i];
    if (rest.event === 'StepRedelivered') {
      const next = records[i + 1];
      if (next?.event === 'StepDispatched' && next.step === rest.step && next.attempt === rest.attempt) i++;
      redelivered++;
      continue;
    }
    out.push(JSON.stringify(rest));
  }
  out.redelivered = redelivered;
  return out;
}

/** The time between a history's line matching `from` and the next matching `to`, in ms. */
function gap(text, from, to) {
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const i = lines.findIndex(from);
  const j = lines.findIndex((l, k) => k > i && to(l));
  return i < 0 || j < 0 ? null : lines[j].time_ms - lines[i].time_ms;
}

/**
 * The version cases on `server` (a server of their own: one of them kills it), each
 * reported through `check(name, fn)`.
 */
export async function versionCases({ server, dir, compile, orbitRunBin, check }) {
  const vdir = path.join(h.HERE, 'versions');
  // Each version built from one path, as a program deployed again keeps its file's name:
  // the bytecode names its file (an expression's error does), so versions built from
  // files of other names would differ there too (orbitc compat: code-moved).
  const built = path.join(dir, 'version', 'program.orbit');
  fs.mkdirSync(path.dirname(built), { recursive: true });
  const compileVersion = (file) => {
    fs.copyFileSync(path.join(vdir, file), built);
    return compile(built);
  };
  const v1 = compileVersion('v1.orbit');
  const later = CHANGES.map((c) => ({ ...c, orbc: compileVersion(c.file) }));
  const hashOf = (orbc) => versionOf(fs.readFileSync(orbc));
  const sourceOf = new Map([[v1, path.join(vdir, 'v1.orbit')], ...later.map((c) => [c.orbc, path.join(vdir, c.file)])]);
  const ids = {}; // change -> workflow -> id
  for (const c of CHANGES) {
    ids[c.name] = {};
    for (const w of WORKFLOWS) ids[c.name][w] = `${c.name}-${w}-${process.pid}`;
  }
  const expectedVersion = new Map(); // id -> the orbc it must end on
  const procs = [];
  let workers = [];
  let sideWorkers = [];
  try {
    const port = await h.freePort();
    const first = await h.serve(server, v1, dir, {
      port,
      program: PROGRAM,
      queueShards: 1,
      heartbeatTimeoutMs: HEARTBEAT_MS,
      timeScale: SCALE,
    });
    procs.push(first);
    workers = startWorkers(server.ingress, PROGRAM);
    for (const c of CHANGES)
      for (const w of WORKFLOWS) await h.startExecution(server, w, ids[c.name][w], { id: ids[c.name][w] });

    // Every execution of v1 at its place.
    await h.until(
      async () => {
        for (const c of CHANGES)
          for (const w of WORKFLOWS) if (!(await h.history(server, w, ids[c.name][w])).includes(WAITS[w])) return false;
        return true;
      },
      30000,
      'every execution of v1 waiting at its place',
    );

    // The deploy: the same address, v1 and the later versions (the last, newest).
    await first.kill('SIGTERM', { drain: false });
    const all = await h.serve(server, [v1, ...later.map((c) => c.orbc)], dir, {
      port,
      program: PROGRAM,
      queueShards: 1,
      heartbeatTimeoutMs: HEARTBEAT_MS,
      timeScale: SCALE,
    });
    procs.push(all);

    // The second program beside it, at 2 shards: its own queues, inbox and HTTP service.
    const side = await h.serve(server, compile(path.join(vdir, 'side.orbit')), dir, { program: SIDE, queueShards: 2 });
    procs.push(side);
    sideWorkers = [
      runWorker({
        ingress: server.ingress,
        program: SIDE,
        task: 'v.a',
        handler: async () => ({ n: 7 }),
        concurrency: 4,
      }),
    ];
    const sideIds = Array.from({ length: SIDE_RUNS }, (_, i) => `side-${i}-${process.pid}`);
    for (const id of sideIds) await h.startExecution(server, 'side', id, { id });

    let killed = '';
    const migrateTo = (c) =>
      check(`versions migrate to v2 ${c.name}`, async () => {
        const list = WORKFLOWS.map((w) => ids[c.name][w]);
        for (const w of WORKFLOWS) {
          const last = (await h.history(server, w, ids[c.name][w])).trim().split('\n').at(-1);
          if (!last.includes(WAITS[w]))
            throw new Error(
              `${ids[c.name][w]} went on before its migration ("${last}"): the machine is too slow for SCALE`,
            );
        }
        // A dry run first on one change (on the others, the verdict `migrate` prints is the
        // dry verdict: `moved` and `stays` say that it and the execution agreed).
        const dry =
          c.name === 'delays'
            ? await cli(server, ['migrate', '--program', PROGRAM, '--to', c.orbc, '--dry-run', ...list])
            : null;
        let report;
        if (c.name === 'after') {
          // The server killed with -9 while migrate runs, then started again; migrate run
          // again: the executions moved stay moved, the others move now.
          const args = [BIN, 'migrate', '--program', PROGRAM, '--to', c.orbc, ...list];
          args.push('--admin', server.admin, '--ingress', server.ingress);
          const m = h.startProcess(process.execPath, args, path.join(dir, 'migrate-killed.log'));
          await h.until(
            () => fs.readFileSync(path.join(dir, 'migrate-killed.log'), 'utf8').includes(': moved'),
            60000,
            'a first move',
          );
          await server.kill9();
          await m.kill();
          const before = fs.readFileSync(path.join(dir, 'migrate-killed.log'), 'utf8');
          killed = `server killed after ${(before.match(/: moved/g) ?? []).length} of ${list.length} moves`;
          await h.sleep(1000);
          await server.start();
        }
        report = await cli(server, ['migrate', '--program', PROGRAM, '--to', c.orbc, ...list]);
        const verdicts = Object.fromEntries(report.executions.map((e) => [e.workflow, e.verdict]));
        const dryVerdicts = dry && Object.fromEntries(dry.executions.map((e) => [e.workflow, e.verdict]));
        for (const w of WORKFLOWS) {
          const moves = c.moves.includes(w);
          const ok = moves ? ['moved', 'already'].includes(verdicts[w]) : verdicts[w] === 'stays';
          if (!ok || (dryVerdicts && dryVerdicts[w] !== (moves ? 'moves' : 'stays')))
            throw new Error(
              `${w}: ${verdicts[w]} (dry run: ${dryVerdicts?.[w]}), expected it to ${moves ? 'move' : 'stay'}: ${JSON.stringify(report.executions)}`,
            );
          expectedVersion.set(ids[c.name][w], moves ? c.orbc : v1);
        }
        const why = report.executions.find((e) => e.verdict === 'stays')?.why;
        return `${c.moves.length} of ${WORKFLOWS.length} moved${why ? `; e.g. "${why}"` : ''}${c.name === 'after' ? `; ${killed}` : ''}`;
      });
    // The quick ones first, then `versions` while everything waits, then the last with the kill.
    await Promise.all(later.slice(0, -1).map(migrateTo));
    await check('versions lists the executions in flight', async () => {
      const v = await cli(server, ['versions', '--program', PROGRAM]);
      const by = new Map(v.versions.map((r) => [r.hash, r]));
      // Where each execution is now (all still wait): those of the last change on v1.
      const where = new Map();
      for (const c of CHANGES)
        for (const w of WORKFLOWS) where.set(`${w}/${ids[c.name][w]}`, expectedVersion.get(ids[c.name][w]) ?? v1);
      for (const orbc of [v1, ...later.map((c) => c.orbc)]) {
        const r = by.get(hashOf(orbc));
        const mine = [...where].filter(([, o]) => o === orbc).map(([id]) => id);
        const wrong = r?.executions.filter((id) => !mine.includes(id)) ?? [];
        if (!r || wrong.length > 0 || r.in_flight !== r.executions.length || r.in_flight !== mine.length)
          throw new Error(`${path.basename(orbc)}: ${JSON.stringify(r)}, expected ${JSON.stringify(mine)}`);
        if (r.retire !== (r.in_flight === 0 && !r.newest))
          throw new Error(`${path.basename(orbc)}: retire ${r.retire}`);
      }
      if (v.versions.filter((r) => r.retire).length !== 2)
        throw new Error(`not two to retire: ${JSON.stringify(v.versions)}`);
      return v.versions.map((r) => `${r.hash.slice(0, 8)}: ${r.in_flight}${r.retire ? ' (retire)' : ''}`).join(', ');
    });

    await migrateTo(later.at(-1));

    for (const c of CHANGES)
      await h.until(
        () => h.signal(server, 'approve', ids[c.name].approve, 'approved', { by: 'test' }).then(() => true),
        120000,
        'the signal sent',
      );

    await check("versions: each execution ends with its version's history", async () => {
      const lines = [];
      let redeliveries = 0;
      // Every result first: nothing below blocks the workers' heartbeats while an
      // execution still runs (they share this process).
      await Promise.all(CHANGES.flatMap((c) => WORKFLOWS.map((w) => h.result(server, w, ids[c.name][w], 300000))));
      for (const c of CHANGES) {
        for (const w of WORKFLOWS) {
          const id = ids[c.name][w];
          const actual = execFileSync(
            process.execPath,
            [
              BIN,
              'logs',
              id,
              '--workflow',
              w,
              '--format',
              'json',
              '--ingress',
              server.ingress,
              '--admin',
              server.admin,
            ],
            { encoding: 'utf8', timeout: 30000, stdio: ['ignore', 'pipe', 'pipe'] },
          );
          const orbc = expectedVersion.get(id) ?? v1; // v1 where a migration failed
          const scenarioPath = path.join(dir, `${id}.scenario.json`);
          const source = fs.readFileSync(sourceOf.get(orbc), 'utf8');
          const tasks = Object.keys(SCRIPT).filter((t) => source.includes(`worker "${t}" {`));
          fs.writeFileSync(scenarioPath, JSON.stringify(scenario(w, id, tasks)));
          const expected = h.orbitRun(orbitRunBin, orbc, scenarioPath, ['--format', 'json', '--show-values']);
          const e = timeless(expected),
            a = timeless(actual);
          const i = e.findIndex((l, k) => l !== a[k]);
          if (i >= 0 || e.length !== a.length)
            throw new Error(
              `${id} (${path.basename(orbc)}): record ${i + 1}: expected ${e[i]}, got ${a[i]}\n${actual}`,
            );
          // The delays the version decided come out exact: v1's 40 s where it stayed.
          const delay = (l) => l.event === 'RetryScheduled' || l.event === 'TimerStarted';
          const resumed = (l) => (l.event === 'StepScheduled' && l.attempt === 2) || l.event === 'TimerFired';
          const want = gap(expected, delay, resumed);
          if (want !== null && gap(actual, delay, resumed) !== want)
            throw new Error(
              `${id}: resumed ${gap(actual, delay, resumed)} ms after the delay began, orbit-run ${want}`,
            );
          lines.push(`${c.name}/${w} ${path.basename(orbc) === path.basename(v1) ? 'v1' : 'v2'}`);
          redeliveries += a.redelivered;
        }
      }
      return (
        `${lines.length} executions as orbit-run (${lines.filter((l) => l.endsWith('v2')).length} on a later version)` +
        `${redeliveries ? `, ${redeliveries} redelivery(ies) left out` : ''}`
      );
    });

    await check('versions: a second program beside, at 2 shards against 1', async () => {
      for (const id of sideIds) {
        const r = await h.result(server, 'side', id, 60000);
        if (r.status !== 'COMPLETED') throw new Error(`${id}: ${JSON.stringify(r)}`);
      }
      return `${SIDE_RUNS} of ${SIDE_RUNS} completed`;
    });
  } finally {
    // Not waited for: their long polls end with the server, stopped next.
    for (const w of [...workers, ...sideWorkers]) w.stop();
    for (const p of procs) await p.kill('SIGTERM', { drain: false });
  }
}
