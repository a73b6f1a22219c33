// The Restate host against a real restate-server (docs/restate.md, "Tests"):
//
//   node hosts/restate/test/restate-test.mjs [--only NAME]...
//
// Needs hosts/restate/node_modules and build/ (tools/install-restate.sh) and orbitc and
// orbit-run (ORBITC, ORBIT_RUN; default: build/ of the repository). Prints one line per
// case and `N passed, N failed` last.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as h from './harness.mjs';

const ORBITC = process.env.ORBITC ?? path.join(h.ROOT, 'build', 'cli', 'orbitc');
const ORBIT_RUN = process.env.ORBIT_RUN ?? path.join(h.ROOT, 'build', 'runtime', 'orbit-run');
const only = process.argv.slice(2).filter((_a, i, all) => all[i - 1] === '--only');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orbit-restate-test-'));
const server = new h.RestateServer(path.join(dir, 'restate'));
fs.mkdirSync(server.dir);
const results = [];
let serial = 0;

function compile(source) {
  const out = path.join(dir, path.basename(source).replace(/\.orbit$/, '') + `-${serial++}.orbc`);
  execFileSync(ORBITC, ['build', source, '-o', out], { stdio: 'pipe', timeout: 30000 });
  return out;
}

const lastTime = (history) => Math.max(0, ...history.split('\n').map((l) => Number(/^\+ (\d+)ms/.exec(l)?.[1] ?? 0)));

/**
 * One scenario on Restate with scripted workers, compared with orbit-run's history.
 * @returns {Promise<{ok: boolean, why?: string, maxDelta: number, actual: string}>}
 */
export async function runScenario({ name, orbc, scenarioPath, workflow, timeScale, toleranceRealMs,
                                    expected, during, workerScenarioPath = scenarioPath,
                                    heartbeatTimeoutMs = 2000, boundMs = 60000, srv = server }) {
  const scenario = JSON.parse(fs.readFileSync(scenarioPath, 'utf8'));
  expected ??= h.orbitRun(ORBIT_RUN, orbc, scenarioPath, workflow ? ['--workflow', workflow] : []);
  workflow ??= scenario.workflow;
  const served = await h.serve(srv, orbc, dir, { timeScale, heartbeatTimeoutMs });
  const workerState = path.join(dir, `${name}-workers.json`);
  let w = h.workers(srv, workerScenarioPath, dir, timeScale, workerState);
  await w.ready();
  const restartWorkers = async () => {
    await w.kill();
    w = h.workers(srv, workerScenarioPath, dir, timeScale, workerState);
    await w.ready();
  };
  const killWorkers = () => w.kill();
  const id = `${name}-${process.pid}-${serial++}`;
  const timers = [];
  try {
    await h.startExecution(srv, workflow, id, scenario.input ?? {});
    const t0 = await h.started(srv, workflow, id, 30000);
    for (const s of scenario.signals ?? []) {
      timers.push(setTimeout(() => h.until(() => h.signal(srv, workflow, id, s.name, s.payload ?? null).then(() => true),
                                           60000, `signal ${s.name} sent`).catch(() => {}),
                             Math.max(0, t0 + s.at_ms / timeScale - Date.now())));
    }
    if (during) await during({ t0, id, workflow, restartWorkers, killWorkers });
    const bound = lastTime(expected) / timeScale + boundMs;
    await h.result(srv, workflow, id, bound);
    const actual = h.logs(srv, id);
    const c = h.compareHistories(expected, actual, toleranceRealMs * timeScale);
    return { ...c, actual, expected };
  } finally {
    timers.forEach(clearTimeout);
    await w.kill();
    await served.kill('SIGTERM');
  }
}

async function check(name, fn) {
  if (only.length && !only.some((o) => name.startsWith(o))) return;
  const t = Date.now();
  try {
    const detail = await fn();
    console.log(`passed  ${name}${detail ? ` (${detail})` : ''} [${((Date.now() - t) / 1000).toFixed(1)} s]`);
    results.push(true);
  } catch (e) {
    console.log(`FAILED  ${name}: ${e.message}`);
    results.push(false);
  }
}

/** A scenario's comparison as a case: throws what differs. */
async function expectSame(options) {
  const r = await runScenario(options);
  if (!r.ok) throw new Error(`${r.why}\n--- orbit-run\n${r.expected}--- restate\n${r.actual}`);
  return r;
}

// Case 1: the checkout example, end to end, at 3 Orbit milliseconds per real millisecond
// (its cool-off sleep is 10 minutes).
const CHECKOUT = { timeScale: 3, toleranceRealMs: 2500 };

async function main() {
  await server.start();
  const checkout = compile(path.join(h.ROOT, 'examples', 'checkout.orbit'));
  const checkoutScenario = path.join(h.HERE, 'checkout.scenario.json');

  await check('e2e checkout', async () => {
    const r = await expectSame({ name: 'checkout', orbc: checkout, scenarioPath: checkoutScenario, ...CHECKOUT });
    return `${r.actual.trim().split('\n').length} events as orbit-run's; time between events off by at most ${r.maxDelta} ms `
      + `(tolerance ${CHECKOUT.toleranceRealMs * CHECKOUT.timeScale} = ${CHECKOUT.toleranceRealMs} ms real x ${CHECKOUT.timeScale}), drift ${r.drift} ms`;
  });

  // Case 2: the conformance runtime scenarios, with scripted workers over the protocol.
  await conformance();

  // Case 3: crashes. The server killed with -9 at a moment of the execution, started again
  // 2 s later on its data; the history must be orbit-run's, attempt for attempt.
  const crash = compile(path.join(h.HERE, 'crash', 'crash.orbit'));
  const crashScenario = path.join(h.HERE, 'crash', 'crash.scenario.json');
  const crashAt = async (label, line, afterMs) => {
    await check(`crash server -9 ${label}`, async () => {
      let killedAt = null;
      const r = await expectSame({
        name: `crash-${label.replace(/\W+/g, '-')}`, orbc: crash, scenarioPath: crashScenario, timeScale: 1,
        toleranceRealMs: 15000, heartbeatTimeoutMs: 15000,
        during: async ({ id, workflow }) => {
          await h.until(async () => (await h.history(server, workflow, id)).includes(line), 120000, `"${line}" in the history`);
          await h.sleep(afterMs);
          const before = (await h.history(server, workflow, id)).trim().split('\n');
          await server.kill9();
          killedAt = before.length;
          await h.sleep(2000);
          await server.start();
          // The kill must hit the moment: the trigger was still the last event.
          if (!before[before.length - 1].includes(line)) throw new Error(`missed the moment: the history went on to "${before[before.length - 1]}"`);
        },
      });
      // The backoff is measured from its schedule, across the crash: exactly 8 s.
      const at = (re) => Number(/^\+ (\d+)ms/.exec(r.actual.split('\n').find((l) => re.test(l)))?.[1]);
      const backoff = at(/StepScheduled step=pay attempt=2/) - at(/RetryScheduled step=pay/);
      if (backoff !== 8000) throw new Error(`the retry came ${backoff} ms after RetryScheduled, not 8000`);
      return `killed after event #${killedAt} (${line}); backoff exactly ${backoff} ms; ${attemptsOf(r.actual)}, as orbit-run; ${r.actual.trim().split('\n').length} events`;
    });
  };
  await crashAt('during a retry backoff', 'RetryScheduled step=pay', 500);
  await crashAt('during an in-flight attempt', 'StepDispatched step=ship', 1000);
  await crashAt('while waiting for a signal', 'SignalWaitStarted step=approval', 1000);

  // A worker killed with -9 mid-attempt: the queue finds it lost (no heartbeat), the
  // attempt is redelivered (same attempt number) to the worker started again.
  await check('crash worker -9 mid-attempt', async () => {
    const r = await expectSame({
      name: 'crash-worker', orbc: crash, scenarioPath: path.join(h.HERE, 'crash', 'lost.scenario.json'),
      workerScenarioPath: path.join(h.HERE, 'crash', 'lost.workers.json'), timeScale: 1, toleranceRealMs: 15000,
      heartbeatTimeoutMs: 2000,
      during: async ({ id, workflow, killWorkers, restartWorkers }) => {
        await h.until(async () => (await h.history(server, workflow, id)).includes('StepDispatched step=pay attempt=1'), 120000, 'dispatched');
        await h.sleep(500);
        await killWorkers();
        await restartWorkers();
      },
    });
    return `${attemptsOf(r.actual)}, as orbit-run`;
  });

  // Case 3b: a cluster of three nodes on loopback (docs/restate.md, "A cluster"), the
  // execution's server node-2; node-1 (which provisioned the cluster) killed with -9
  // during an in-flight attempt, and not started again: the two left finish the execution
  // with orbit-run's attempts.
  await check('crash cluster node -9 during an in-flight attempt', async () => {
    const nodes = await h.cluster(path.join(dir, 'cluster'));
    const [victim, front] = nodes;
    const line = 'StepDispatched step=ship';
    try {
      await Promise.all(nodes.map((n) => n.start()));
      let killedAt = null;
      const r = await expectSame({
        name: 'crash-cluster', orbc: crash, scenarioPath: crashScenario, timeScale: 1, toleranceRealMs: 15000,
        heartbeatTimeoutMs: 15000, srv: front,
        during: async ({ id, workflow }) => {
          await h.until(async () => (await h.history(front, workflow, id)).includes(line), 120000, `"${line}" in the history`);
          await h.sleep(1000);
          const before = (await h.history(front, workflow, id)).trim().split('\n');
          await victim.kill9();
          killedAt = before.length;
          if (!before[before.length - 1].includes(line)) throw new Error(`missed the moment: the history went on to "${before[before.length - 1]}"`);
        },
      });
      return `${nodes.length} nodes, ${victim.nodeName} killed after event #${killedAt} (${line}) and left dead; `
        + `${attemptsOf(r.actual)}, as orbit-run; ${r.actual.trim().split('\n').length} events`;
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
    }
  });

  // Case 4: load. LOAD executions of checkout at once (time scale LOAD_SCALE, 1: the
  // program's own timeouts, and its cool-off takes 10 minutes), queues of LOAD_SHARDS
  // shards, three worker processes; every execution completes once, each order is
  // charged (idempotency keys), and the end-to-end times are measured.
  await check(`load ${LOAD} checkouts`, () => load(checkout));
}

const KIT = path.join(h.ROOT, 'conformance', 'runtime');
const SCENARIO_BUDGET_MS = 20000;   // the longest a scenario may take in real time
export const scenarioSummary = { run: 0, passed: 0, total: 0, skipped: [] };

// Scenarios whose outcome hangs on a margin between what the world does and a timer
// that is below the latency of a Restate round trip on a loaded machine (hundreds of
// milliseconds): in real time the other side of the margin wins.
const MARGINS = {
  tie_answer_at_timeout: 'an answer at the very millisecond of the step timeout',
  tie_pickup_at_queue_timeout: 'a pickup at the very millisecond of the queue timeout',
  tie_retry_at_deadline: 'a retry at the very millisecond of the workflow deadline',
  deadline_while_compensating: 'a 1 s workflow deadline against three worker round trips',
  redelivery: 'a 700 ms pickup delay against a 1 s queue timeout (300 ms margin)',
  timeout_late_success: 'a late answer 400 ms after the timeout, 600 ms before the retry',
  workflow_timeout: 'a retry whose answer comes 500 ms after the 10 s deadline (the latency of 13 steps adds up past it)',
};

/** Why a conformance scenario cannot run on Restate, or null. */
function skipReason(name, scenario, text, expected, args) {
  // `0.0` is a number for Orbit and the integer 0 once JSON.parse has read it (hosts/wasm/test.mjs).
  const outsideStrings = text.replace(/"(?:\\.|[^"\\])*"/g, '""');
  if ((outsideStrings.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).some((t) => /[.eE]/.test(t) && Number.isInteger(Number(t)))) {
    return 'an integral number with a fraction or exponent (JSON.parse makes `0.0` the integer 0)';
  }
  if (MARGINS[name]) return `${MARGINS[name]}: a margin under the real latency`;
  if (args.includes('--show-values')) return '--show-values (orbit-restate logs prints plain `orbit logs` lines)';
  if (args.includes('--format')) return '--format json (orbit-restate logs prints text lines)';
  if (scenario.steps) return 'step scripts (workers are scripted by task name only, as real workers are)';
  if (scenario.http_adapter === false) return 'a disabled HTTP adapter (the host always does orbit.http.request)';
  if (scenario.workers?.['orbit.http.request']) return 'scripted HTTP responses (the host makes real requests)';
  if (expected.includes('worker_id=orbit-runtime')) return 'an HTTP request sent (orbit-run answers 200 without sending it; the host sends it)';
  if (Object.values(scenario.workers ?? {}).some((w) => w.no_worker)) return 'no_worker (a real queue never knows no worker will come)';
  if (expected.includes('WorkflowBlocked')) return 'ends BLOCKED (needs ENGINE_IDLE: a real host never knows nothing else can happen)';
  const last = Math.max(0, ...expected.split('\n').map((l) => Number(/^\+ (\d+)ms/.exec(l)?.[1] ?? 0)));
  if (last > Number.MAX_SAFE_INTEGER / 2) return 'times beyond 2^53 ms';
  if (last > SCENARIO_BUDGET_MS * 60) return `${last} ms long (over 60x the ${SCENARIO_BUDGET_MS} ms budget: its step timeouts would be shorter than the latency)`;
  return null;
}

async function conformance() {
  const names = fs.readdirSync(KIT).filter((f) => f.endsWith('.scenario.json'))
    .map((f) => f.slice(0, -'.scenario.json'.length)).sort();
  for (const name of names) {
    if (only.length && !only.some((o) => `scenario ${name}`.startsWith(o))) continue;
    scenarioSummary.total++;
    const scenarioPath = path.join(KIT, name + '.scenario.json');
    const text = fs.readFileSync(scenarioPath, 'utf8');
    const scenario = JSON.parse(text);
    const args = fs.existsSync(path.join(KIT, name + '.args'))
      ? fs.readFileSync(path.join(KIT, name + '.args'), 'utf8').trim().split(/\s+/) : [];
    const expected = fs.readFileSync(path.join(KIT, name + '.history'), 'utf8');
    const why = skipReason(name, scenario, text, expected, args);
    if (why) {
      console.log(`skipped scenario ${name}: ${why}`);
      scenarioSummary.skipped.push(name);
      continue;
    }
    let workflow = args.includes('--workflow') ? args[args.indexOf('--workflow') + 1] : scenario.workflow;
    if (!workflow) workflow = [...fs.readFileSync(path.join(KIT, name + '.orbit'), 'utf8').matchAll(/^workflow\s+(\w+)/gm)][0][1];
    const last = Math.max(0, ...expected.split('\n').map((l) => Number(/^\+ (\d+)ms/.exec(l)?.[1] ?? 0)));
    const timeScale = Math.max(1, Math.ceil(last / SCENARIO_BUDGET_MS));
    scenarioSummary.run++;
    const before = results.length;
    await check(`scenario ${name}`, async () => {
      const r = await expectSame({ name, orbc: path.join(KIT, name + '.orbc'), scenarioPath, workflow, expected,
                                   timeScale, toleranceRealMs: 2500 });
      return `scale ${timeScale}, time between events off by at most ${r.maxDelta} ms`;
    });
    if (results[before]) scenarioSummary.passed++;
  }
  if (scenarioSummary.total > 0) console.log(`conformance scenarios on Restate: ${scenarioSummary.passed} passed of ${scenarioSummary.run} run, `
    + `${scenarioSummary.total} in the kit (${scenarioSummary.skipped.length} skipped)`);

}

const LOAD = Number(process.env.ORBIT_RESTATE_LOAD ?? 1000);
const LOAD_SCALE = Number(process.env.ORBIT_RESTATE_LOAD_SCALE ?? 1);
const LOAD_SHARDS = Number(process.env.ORBIT_RESTATE_LOAD_SHARDS ?? 8);

async function load(orbc) {
  const timeScale = LOAD_SCALE;
  const served = await h.serve(server, orbc, dir, { timeScale, heartbeatTimeoutMs: 10000, queueShards: LOAD_SHARDS });
  const log = path.join(dir, 'charges.log');
  fs.writeFileSync(log, '');
  const procs = [1, 2, 3].map((i) => h.startProcess(process.execPath,
    [path.join(h.HERE, 'load-worker.mjs'), server.ingress, `load-${i}`, log], path.join(dir, `load-worker-${i}.log`)));
  try {
    const input = (i) => ({ order_id: `L${i}`, total: { amount: 10 + i, currency: 'EUR' }, items: ['sku-1'] });
    const ids = Array.from({ length: LOAD }, (_, i) => `load-${process.pid}-${i}`);
    const startedAt = new Map();
    const t0 = Date.now();
    for (let i = 0; i < ids.length; i += 25) {         // 25 requests in flight at a time
      await Promise.all(ids.slice(i, i + 25).map(async (id, j) => {
        startedAt.set(id, Date.now());
        await h.startExecution(server, 'checkout', id, input(i + j));
        await h.until(() => h.signal(server, 'checkout', id, 'manager_approved', { by: 'load' }).then(() => true),
                      300000, `signal ${id}`);
      }));
    }
    const ends = new Map();
    const results = await Promise.all(ids.map(async (id) => {
      const r = await h.result(server, 'checkout', id, 900000);
      ends.set(id, Date.now());
      return r;
    }));
    const seconds = (Date.now() - t0) / 1000;
    const notCompleted = results.filter((r) => r.status !== 'COMPLETED').length;
    if (notCompleted) throw new Error(`${notCompleted} of ${LOAD} did not complete: ${JSON.stringify(results.find((r) => r.status !== 'COMPLETED'))}`);
    // None twice: one `run` invocation per execution, as the server counts them.
    const prefix = `load-${process.pid}-`;
    const runs = await h.sqlCount(server, `SELECT count(*) AS n FROM sys_invocation WHERE target_service_name = 'checkout'`
                                          + ` AND target_handler_name = 'run' AND target_service_key LIKE '${prefix}%'`);
    const keys = await h.sqlCount(server, `SELECT count(DISTINCT target_service_key) AS n FROM sys_invocation WHERE target_service_name = 'checkout'`
                                          + ` AND target_handler_name = 'run' AND target_service_key LIKE '${prefix}%'`);
    if (runs !== LOAD || keys !== LOAD) throw new Error(`${runs} run invocations for ${keys} executions, not ${LOAD} once each`);
    // Each worker process charges once per idempotency key it sees; a retried attempt
    // (a timeout) may reach another process, which charges it again with the same key —
    // what the payment provider dedupes. Every order's key is there, and only those.
    const charges = fs.readFileSync(log, 'utf8').trim().split('\n');
    const once = new Set(charges);
    const orderKeys = new Set(ids.map((_, i) => `charge-L${i}`));
    if (once.size !== LOAD || [...once].some((k) => !orderKeys.has(k))) throw new Error(`${once.size} idempotency keys charged for ${LOAD} orders`);
    const times = ids.map((id) => ends.get(id) - startedAt.get(id)).sort((a, b) => a - b);
    const pct = (p) => (times[Math.min(times.length - 1, Math.floor(p * times.length))] / 1000).toFixed(1);
    return `${LOAD} completed, ${runs} run invocations; ${once.size} idempotency keys charged (${charges.length} charges over 3 processes); ${(LOAD / seconds).toFixed(1)} executions/s `
      + `over ${seconds.toFixed(0)} s; end to end p50 ${pct(0.5)} s, p99 ${pct(0.99)} s (the ${600 / timeScale} s cool-off included)`;
  } finally {
    for (const p of procs) await p.kill();
    await served.kill('SIGTERM');
  }
}

/** The attempts of each step of a history: `pay: 2 attempts, 1 redelivery`. */
function attemptsOf(history) {
  const steps = new Map();
  for (const line of history.split('\n')) {
    const m = /(StepScheduled|StepRedelivered|StepCompleted) step=(\S+)/.exec(line);
    if (!m) continue;
    const s = steps.get(m[2]) ?? { scheduled: 0, redelivered: 0, completed: 0 };
    if (m[1] === 'StepScheduled') s.scheduled++;
    else if (m[1] === 'StepRedelivered') s.redelivered++;
    else s.completed++;
    steps.set(m[2], s);
  }
  return [...steps].filter(([, s]) => s.scheduled > 0)
    .map(([step, s]) => `${step}: ${s.scheduled} attempt${s.scheduled > 1 ? 's' : ''}`
      + `${s.redelivered ? `, ${s.redelivered} redelivery` : ''}, completed ${s.completed}x`).join('; ');
}

try {
  await main();
} catch (e) {
  console.log(`FAILED  setup: ${e.stack ?? e.message}`);
  results.push(false);
} finally {
  await server.stop();
  if (!process.env.ORBIT_RESTATE_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
const passed = results.filter(Boolean).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed > 0 || passed === 0 ? 1 : 0);
