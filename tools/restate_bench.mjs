// Orbit on Restate against the same workflows written by hand (docs/restate-performance.md):
// for each workflow — one step (tools/restate-baseline/one_step.orbit), a checkout without
// its approval and cool-off (checkout.orbit: a charge with its policies, then a child
// workflow per item) and nine steps (nine_step.orbit) — and for each side:
//
//   orbit     `orbit-restate serve` of the program (queues of 8 shards), three worker
//             processes pulling over the worker protocol (tools/restate-baseline/worker.mjs);
//   baseline  the same workflows as plain Restate workflows (tools/restate-baseline/services.mjs):
//             each step an awakeable handed to one of three worker processes, which
//             resolve it through the ingress (Restate's documented external-worker pattern);
//
// each side on a fresh restate-server of its own (loopback, the test suite's settings),
// the same worker code (tasks.mjs, answering at once). A side runs a few executions to
// warm up, then N at once (`--in-flight` start requests at a time: saturation), then new
// executions at a fixed rate for `--seconds` (by default half the Orbit side's saturation
// rate of that workflow in this run, for both sides). It prints, per workflow and side:
// executions/s, the p50 and p99 of the end-to-end time (the server's `created_at` to
// `completed_at` of the `run` invocation) and of one step (a task reaching its worker to
// the next task reaching its worker, or the execution's end), the CPU of the server, the
// host and the workers per execution (/proc/PID/stat), the `run` journal's entries per
// execution and the invocations the server ran per execution (its `/metrics`); then the
// ratios Orbit / baseline. Every execution must complete with its output, once (one `run`
// each), and every order be charged (by its idempotency key).
//
//   tools/install-restate.sh && node tools/restate_bench.mjs [--workflows one_step,checkout,nine_step]
//        [--sides orbit,orbit-push,baseline] [--executions N] [--in-flight C] [--rate R] [--seconds S]
//        [--shards K] [--profile DIR] [--host NAME=PATH[,SERVE-OPTION...]]...
//
// `--profile DIR`: the Orbit host runs under `node --cpu-prof` (one .cpuprofile per side
// and workflow in DIR) and the benchmark prints where its time went. Timings on a shared
// machine are only comparable within one run: the table says the load average.
// `--host NAME=PATH[,SERVE-OPTION...]`: one more side, `orbit-NAME`, served by the
// orbit-restate.mjs at PATH (a patched copy of hosts/restate; empty: this tree's) with
// more options of `serve` (after the benchmark's, so they win: `--host s32=,--queue-shards,32`):
// a change to the host or a setting measured against this tree's host in one run.
// The side `orbit-push` is this tree's host with its workers pushed their tasks (`serve
// --worker-listen`, the workers' `push`: docs/restate.md, "Pushed workers").
//
// `--load` runs the former benchmark instead: N executions of examples/checkout.orbit
// itself (1000 by default, its 10-minute cool-off, about 11 minutes) with the checks of
// the suite's small load case (tests/restate/load.mjs), and prints its row of the "Load"
// table in docs/restate.md ([--executions N] [--time-scale S] [--shards K] [--bound SECONDS]).
//
// On demand, never in CI. ORBITC names orbitc (default: build/cli/orbitc).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import * as h from '../tests/restate/harness.mjs';
import { describeLoad, runLoad } from '../tests/restate/load.mjs';

const { values: args } = parseArgs({
  options: {
    workflows: { type: 'string', default: 'one_step,checkout,nine_step' },
    sides: { type: 'string', default: 'orbit,baseline' },
    executions: { type: 'string' },
    'in-flight': { type: 'string', default: '50' },
    rate: { type: 'string' },
    seconds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '20' },
    shards: { type: 'string', default: '8' },
    profile: { type: 'string' },
    host: { type: 'string', multiple: true, default: [] },
    load: { type: 'boolean', default: false },
    'time-scale': { type: 'string', default: '1' },
    bound: { type: 'string', default: '900' },
  },
});
const ORBITC = process.env.ORBITC ?? path.join(h.ROOT, 'build', 'cli', 'orbitc');
const BASELINE = path.join(h.ROOT, 'tools', 'restate-baseline');
const WORKERS = 3;
// The tasks of each workflow, and the steps (tasks) one execution runs.
const WORKFLOWS = {
  one_step: { tasks: ['bench.step'], steps: 1 },
  checkout: { tasks: ['payments.charge', 'warehouse.pick'], steps: 2 },
  nine_step: { tasks: ['bench.step'], steps: 9 },
};
const top = fs.mkdtempSync(path.join(os.tmpdir(), 'orbit-restate-bench-'));
const running = []; // servers and processes to stop, whatever happens
const inputOf = (workflow, id) =>
  workflow === 'checkout' ? { order_id: id, total: { amount: 42.5, currency: 'EUR' }, items: [id] } : { id };

/** The CPU time of a process so far, in ms (utime + stime of /proc/PID/stat). */
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

/** The server's counters (`/metrics` of its node port), name{labels} -> value. */
async function metrics(server) {
  const text = await (await fetch(`http://127.0.0.1:${server.ports.fabric}/metrics`)).text();
  const m = new Map();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN);

/** A process started with its output in `log`, stopped with SIGTERM (then SIGKILL). */
function start(cmd, argv, log, env = {}) {
  const p = h.startProcess(cmd, argv, log, env);
  const stopper = {
    pid: p.proc.pid,
    stop: async () => {
      if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
      const exited = new Promise((resolve) => p.proc.once('exit', resolve));
      p.proc.kill('SIGTERM');
      const t = setTimeout(() => p.proc.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(t);
    },
  };
  running.push(stopper);
  return stopper;
}

async function waitFor(log, text, what) {
  await h.until(() => fs.readFileSync(log, 'utf8').includes(text), 60000, `${what} (${log})`);
}

/** Starts the executions `ids` of `workflow`, `inFlight` start requests at a time. */
async function startAll(server, workflow, ids, inFlight) {
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: Math.min(inFlight, ids.length) }, async () => {
      while (queue.length) {
        const id = queue.shift();
        await h.startExecution(server, workflow, id, inputOf(workflow, id));
      }
    }),
  );
}

/** Starts `count` executions at `rate` per second (each on time, not waiting for the one before). */
async function startAtRate(server, workflow, prefix, count, rate) {
  const t0 = Date.now();
  const started = [];
  for (let i = 0; i < count; i++) {
    const wait = t0 + (i * 1000) / rate - Date.now();
    if (wait > 0) await h.sleep(wait);
    const id = `${prefix}-${i}`;
    started.push(h.startExecution(server, workflow, id, inputOf(workflow, id)));
  }
  await Promise.all(started);
}

/** Waits until every `run` of `workflow` whose key starts with `prefix` completed: their spans. */
async function completed(server, workflow, prefix, n, boundMs) {
  const q =
    `SELECT target_service_key AS k, created_at AS c, completed_at AS e FROM sys_invocation` +
    ` WHERE target_service_name = '${workflow}' AND target_handler_name = 'run' AND status = 'completed'` +
    ` AND target_service_key LIKE '${prefix}-%'`;
  const count = q.replace(/SELECT .* FROM/, 'SELECT count(*) AS n FROM');
  await h.until(
    async () => (await h.sqlCount(server, count)) >= n,
    boundMs,
    `${n} ${prefix} executions of ${workflow}`,
  );
  const ms = (v) => (typeof v === 'number' ? v : Date.parse(v));
  return new Map((await h.sqlRows(server, q)).map((r) => [r.k, { start: ms(r.c), end: ms(r.e) }]));
}

/** Every execution's output, checked; throws on the first that is not what its workflow returns. */
async function checkOutputs(server, side, workflow, ids) {
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (queue.length) {
        const id = queue.shift();
        const r = await fetch(`${server.ingress}/restate/workflow/${workflow}/${id}/output`);
        const out = await r.json();
        const value = side.startsWith('orbit') ? (out.status === 'COMPLETED' ? out.output : null) : out;
        const ok = workflow === 'checkout' ? value?.charge_id === `ch_${id}` : value?.n === WORKFLOWS[workflow].steps;
        if (!ok) throw new Error(`${side} ${workflow}/${id}: ${JSON.stringify(out)}`);
      }
    }),
  );
}

/** The workers' records: arrivals by execution (sorted times), and the keys charged. */
function readWorkerLogs(logs) {
  const arrivals = new Map();
  const charges = [];
  for (const log of logs) {
    for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
      const parts = line.split(' ');
      if (parts[0] === 'charge') charges.push(parts[1]);
      else if (parts.length === 3 && /^\d+$/.test(parts[0])) {
        if (!arrivals.has(parts[1])) arrivals.set(parts[1], []);
        arrivals.get(parts[1]).push(Number(parts[0]));
      }
    }
  }
  for (const a of arrivals.values()) a.sort((x, y) => x - y);
  return { arrivals, charges };
}

/** End-to-end and per-step times (ms) of the executions `spans`, with the workers' arrivals. */
function latencies(spans, arrivals, steps) {
  const e2e = [],
    perStep = [],
    first = [];
  let extra = 0;
  for (const [id, { start, end }] of spans) {
    e2e.push(end - start);
    const a = arrivals.get(id) ?? [];
    if (a.length > steps) extra += a.length - steps;
    if (a.length === 0) continue;
    first.push(a[0] - start);
    for (let i = 0; i < a.length; i++) perStep.push((i + 1 < a.length ? a[i + 1] : end) - a[i]);
  }
  const sort = (x) => x.sort((p, q) => p - q);
  return { e2e: sort(e2e), perStep: sort(perStep), first: sort(first), extra };
}

/**
 * The `orbit-restate` of a side: this tree's, or for a side `orbit-NAME` the one given by
 * `--host NAME=PATH` (a patched copy of hosts/restate, to measure a change against this
 * tree's host in one run).
 */
function hostOf(side) {
  if (side === 'orbit' || side === 'orbit-push')
    return { bin: path.join(h.PACKAGE, 'bin', 'orbit-restate.mjs'), extra: [] };
  const name = side.slice('orbit-'.length);
  const given = args.host.find((v) => v.split('=')[0] === name);
  if (!given) throw new Error(`no --host ${name}=PATH`);
  const [bin, ...extra] = given.slice(name.length + 1).split(',');
  return { bin: bin ? path.resolve(bin) : path.join(h.PACKAGE, 'bin', 'orbit-restate.mjs'), extra };
}

let sideRuns = 0;

/** One side of one workflow: warm-up, saturation, fixed rate. */
async function runSide(side, workflow, { n, inFlight, rate, seconds, warmup, shards, profile }) {
  const dir = path.join(top, `${workflow}-${side}-${++sideRuns}`); // a side may run twice (--sides orbit,orbit-x,orbit)
  fs.mkdirSync(dir);
  const server = new h.RestateServer(path.join(dir, 'restate'));
  fs.mkdirSync(server.dir);
  running.push(server);
  await server.start();
  const { tasks, steps } = WORKFLOWS[workflow];
  const workerLogs = Array.from({ length: WORKERS }, (_, i) => path.join(dir, `worker-${i}.records`));
  const workers = [];
  let host;
  if (side === 'orbit' || side.startsWith('orbit-')) {
    const orbc = path.join(dir, `${workflow}.orbc`);
    execFileSync(ORBITC, ['build', path.join(BASELINE, `${workflow}.orbit`), '-o', orbc], { stdio: 'pipe' });
    const port = await h.freePort();
    const log = path.join(dir, 'serve.log');
    // Side `orbit-push`: this tree's host with pushed workers (docs/restate.md, "Pushed workers").
    const pushServe = side === 'orbit-push' ? `http://127.0.0.1:${await h.freePort()}` : null;
    const pushArgs = pushServe
      ? ['--worker-listen', pushServe.slice('http://'.length), '--ingress', server.ingress]
      : [];
    const node = [];
    if (profile) {
      fs.mkdirSync(profile, { recursive: true });
      // A profile is written when the process exits, not when a signal kills it.
      node.push(
        '--cpu-prof',
        '--cpu-prof-dir',
        profile,
        '--cpu-prof-name',
        `${workflow}-${side}-${sideRuns}-host.cpuprofile`,
      );
      node.push('--import', `data:text/javascript,process.on('SIGTERM',()=>process.exit(0))`);
    }
    host = start(
      process.execPath,
      [
        ...node,
        hostOf(side).bin,
        'serve',
        orbc,
        '--port',
        String(port),
        '--admin',
        server.admin,
        '--queue-shards',
        String(shards),
        '--heartbeat-timeout',
        '10000',
        ...pushArgs,
        ...hostOf(side).extra,
      ],
      log,
      // A patched copy of the host (--host) loads this tree's engine core.
      {
        RESTATE_LOGGING: 'WARN',
        ORBIT_ENGINE_WASM: process.env.ORBIT_ENGINE_WASM ?? path.join(h.ROOT, 'build-playground', 'wasm'),
      },
    );
    await waitFor(log, 'registered with', 'orbit-restate serve registered');
    for (let i = 0; i < WORKERS; i++) {
      const wlog = path.join(dir, `worker-${i}.log`);
      workers.push(
        start(
          process.execPath,
          [
            path.join(BASELINE, 'worker.mjs'),
            ...['--side', 'orbit', '--ingress', server.ingress, '--log', workerLogs[i]],
            ...['--program', workflow, '--tasks', tasks.join(','), '--id', `w${i}`],
            ...(pushServe ? ['--push-serve', pushServe] : []),
          ],
          wlog,
        ),
      );
      await waitFor(wlog, 'polling', 'worker started');
    }
  } else {
    const urls = [];
    for (let i = 0; i < WORKERS; i++) {
      const wlog = path.join(dir, `worker-${i}.log`);
      const port = await h.freePort();
      workers.push(
        start(
          process.execPath,
          [
            path.join(BASELINE, 'worker.mjs'),
            ...['--side', 'baseline', '--ingress', server.ingress, '--log', workerLogs[i]],
            ...['--port', String(port), '--id', `w${i}`],
          ],
          wlog,
        ),
      );
      await waitFor(wlog, 'listening', 'worker started');
      urls.push(`http://127.0.0.1:${port}`);
    }
    const port = await h.freePort();
    const log = path.join(dir, 'serve.log');
    host = start(process.execPath, [path.join(BASELINE, 'serve.mjs'), String(port), server.admin, ...urls], log);
    await waitFor(log, 'registered with', 'the baseline registered');
  }
  const cpu = () => ({
    server: cpuMs(server.proc.pid),
    host: cpuMs(host.pid),
    workers: workers.reduce((s, w) => s + cpuMs(w.pid), 0),
  });
  const bound = 600000;

  // Warm-up (the JIT, the server's caches), not measured.
  const warm = Array.from({ length: warmup }, (_, i) => `warm-${i}`);
  await startAll(server, workflow, warm, inFlight);
  await completed(server, workflow, 'warm', warm.length, bound);

  // Saturation: N at once.
  const m0 = await metrics(server);
  const c0 = cpu();
  const t0 = Date.now();
  const sat = Array.from({ length: n }, (_, i) => `sat-${i}`);
  await startAll(server, workflow, sat, inFlight);
  const satSpans = await completed(server, workflow, 'sat', n, bound);
  const c1 = cpu();
  const m1 = await metrics(server);
  const first = Math.min(...[...satSpans.values()].map((s) => s.start));
  const last = Math.max(...[...satSpans.values()].map((s) => s.end));
  const perSecond = n / ((last - first) / 1000);
  const loadAverage = os.loadavg()[0]; // the machine's, over the last minute of the saturation
  const wall = (Date.now() - t0) / 1000;

  // A fixed rate: `rate` per second for `seconds` (the rate the caller chose, or half this saturation).
  const r = rate ?? perSecond / 2;
  const count = Math.max(10, Math.round(r * seconds));
  await startAtRate(server, workflow, 'rate', count, r);
  const rateSpans = await completed(server, workflow, 'rate', count, bound);
  const c2 = cpu();

  const all = [...warm, ...sat, ...Array.from({ length: count }, (_, i) => `rate-${i}`)];
  await checkOutputs(server, side, workflow, all);
  const runs = await h.sqlCount(
    server,
    `SELECT count(*) AS n FROM sys_invocation WHERE target_service_name = '${workflow}' AND target_handler_name = 'run'`,
  );
  if (runs !== all.length) throw new Error(`${side} ${workflow}: ${runs} run invocations for ${all.length} executions`);
  const journal = await h.sqlRows(
    server,
    `SELECT avg(journal_size) AS j FROM sys_invocation WHERE target_service_name = '${workflow}'` +
      ` AND target_handler_name = 'run' AND target_service_key LIKE 'sat-%'`,
  );
  for (const w of workers) await w.stop();
  await host.stop();
  await server.stop();
  const { arrivals, charges } = readWorkerLogs(workerLogs);
  if (workflow === 'checkout') {
    const keys = new Set(charges);
    const missing = all.filter((id) => !keys.has(`charge-${id}`));
    if (missing.length) throw new Error(`${side}: ${missing.length} orders not charged (${missing[0]} …)`);
  }
  // The server's work per execution at saturation: invocations it ran (by its counters).
  const delta = (re) => {
    let s = 0;
    for (const [k, v] of m1) if (re.test(k)) s += v - (m0.get(k) ?? 0);
    return s;
  };
  fs.writeFileSync(
    path.join(dir, 'metrics-delta.txt'),
    [...m1]
      .filter(([k, v]) => v !== (m0.get(k) ?? 0) && !/_bucket|rocksdb|jemalloc|tokio/.test(k))
      .map(([k, v]) => `${k} ${v - (m0.get(k) ?? 0)}`)
      .join('\n'),
  );
  const sat_ = latencies(satSpans, arrivals, steps);
  const rate_ = latencies(rateSpans, arrivals, steps);
  return {
    side,
    workflow,
    n,
    perSecond,
    loadAverage,
    wall,
    sat: sat_,
    rate: r,
    count,
    atRate: rate_,
    cpuSat: {
      server: (c1.server - c0.server) / n,
      host: (c1.host - c0.host) / n,
      workers: (c1.workers - c0.workers) / n,
    },
    cpuRate: {
      server: (c2.server - c1.server) / count,
      host: (c2.host - c1.host) / count,
      workers: (c2.workers - c1.workers) / count,
    },
    journal: Number(journal[0]?.j ?? NaN),
    invocations: delta(/^restate_usage_leader_action_count_total\{.*action="Invoke"/) / n,
    requests: delta(/^restate_invoker_client_requests_total/) / n,
    entries: journalEntries(m0, m1, n),
    redelivered: sat_.extra + rate_.extra,
    metricsFile: path.join(dir, 'metrics-delta.txt'),
  };
}

/** The journal entries the server wrote per execution between two counters, by kind. */
function journalEntries(m0, m1, n) {
  const by = new Map();
  for (const [k, v] of m1) {
    const m = /^restate_usage_leader_journal_entry_count_total\{.*entry="([^"]+)"/.exec(k);
    if (m) by.set(m[1], (by.get(m[1]) ?? 0) + (v - (m0.get(k) ?? 0)) / n);
  }
  return by;
}

/** Where a CPU profile's time went: self time by category and the top functions. */
function summarizeProfile(file) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of p.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  // A WebAssembly function is the engine core's or the Restate SDK's own VM (it has one
  // too): a module is the engine's when JavaScript of hosts/wasm (orbit-api.js, orbit.js)
  // calls into it, past the glue frames (no URL) between them.
  const isWasm = (f) => f.url.startsWith('wasm://');
  const caller = (id) => {
    for (let n = parent.get(id); n !== undefined; n = parent.get(n)) {
      const f = byId.get(n).callFrame;
      if (!isWasm(f) && f.url) return f.url;
    }
    return '';
  };
  const ENGINE_JS = /\/hosts\/wasm\/|\/wasm\/orbit\.js$/;
  const engineModules = new Set(
    p.nodes
      .filter((node) => isWasm(node.callFrame) && ENGINE_JS.test(caller(node.id)))
      .map((node) => node.callFrame.url),
  );
  const self = new Map();
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + dt);
  }
  const cats = new Map(),
    fns = new Map();
  let total = 0;
  for (const [id, us] of self) {
    const { functionName: fn, url } = byId.get(id).callFrame;
    let cat;
    if (fn === '(idle)') cat = 'idle';
    else if (fn === '(garbage collector)') cat = 'garbage collector';
    else if (fn === '(program)') cat = 'native (program)';
    else if (isWasm(byId.get(id).callFrame))
      cat = engineModules.has(url) ? 'engine core (wasm)' : 'Restate SDK core (wasm VM)';
    else if (ENGINE_JS.test(url)) cat = 'engine wrapper (orbit-api.js, orbit.js)';
    else if (url.includes('/hosts/restate/lib/')) cat = `host: ${path.basename(url)}`;
    else if (url.includes('restate-sdk-core')) cat = 'Restate SDK core (its JavaScript)';
    else if (url.includes('restate-sdk')) cat = 'Restate SDK';
    else if (url.startsWith('node:')) cat = `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
    else cat = url ? path.basename(url) : fn || '(anonymous)';
    cats.set(cat, (cats.get(cat) ?? 0) + us);
    const key = `${fn || '(anonymous)'} ${url ? path.basename(url) : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    if (cat !== 'idle') total += us;
  }
  const share = (us) => `${((100 * us) / total).toFixed(1)}%`;
  const lines = [`busy ${(total / 1e6).toFixed(1)} s of CPU in the host (idle left out):`];
  for (const [c, us] of [...cats]
    .filter(([c]) => c !== 'idle')
    .sort((a, b) => b[1] - a[1])
    .slice(0, 14))
    lines.push(`  ${share(us).padStart(6)}  ${c}`);
  lines.push('  top functions (self time):');
  for (const [f, us] of [...fns]
    .filter(([f]) => !f.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12))
    lines.push(`  ${share(us).padStart(6)}  ${f}`);
  return lines.join('\n');
}

async function compare() {
  const workflows = args.workflows.split(',').filter(Boolean);
  const sides = args.sides.split(',').filter(Boolean);
  // A --host side not named in --sides runs after them.
  for (const v of args.host) if (!sides.includes(`orbit-${v.split('=')[0]}`)) sides.push(`orbit-${v.split('=')[0]}`);
  for (const w of workflows) if (!WORKFLOWS[w]) throw new Error(`no workflow ${w} (${Object.keys(WORKFLOWS)})`);
  const o = {
    inFlight: Number(args['in-flight']),
    seconds: Number(args.seconds),
    warmup: Number(args.warmup),
    shards: Number(args.shards),
    profile: args.profile ? path.resolve(args.profile) : null,
  };
  const loadAtStart = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const started = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const results = [];
  for (const workflow of workflows) {
    // N: about 15 s of the Orbit host's saturation by the issue's figures (35 checkouts/s).
    const n = Number(args.executions ?? (workflow === 'nine_step' ? 150 : 400));
    let rate = args.rate ? Number(args.rate) : null;
    for (const side of sides) {
      const r = await runSide(side, workflow, { ...o, n, rate });
      rate ??= r.rate; // the other side at the same fixed rate
      results.push(r);
      console.log(
        `${workflow} ${side}: ${r.perSecond.toFixed(1)} executions/s at saturation (${n} at once, ${r.wall.toFixed(0)} s); ` +
          `at ${r.rate.toFixed(1)}/s end to end p50 ${r.atRate.e2e.length ? pct(r.atRate.e2e, 0.5) : '-'} ms (load average ${os.loadavg()[0].toFixed(1)})`,
      );
      if (o.profile && side.startsWith('orbit'))
        console.log(summarizeProfile(path.join(o.profile, `${workflow}-${side}-${sideRuns}-host.cpuprofile`)));
    }
  }
  printTable(results, { started, loadAtStart });
}

function printTable(results, { started, loadAtStart }) {
  const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)}` : '-');
  const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
  console.log(
    `\n${started} UTC, load average at the start ${loadAtStart} (${os.cpus().length} cores); ` +
      `saturation: N at once; fixed rate: the same for both sides; times in ms; CPU in ms per execution`,
  );
  console.log(
    '| workflow | side | exec/s (sat.) | e2e p50 / p99 (sat.) | step p50 / p99 (sat.) | rate/s | e2e p50 / p99 (rate) | step p50 / p99 (rate) | CPU server / host / workers (sat.) | journal entries of `run` | invocations | load average (sat.) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.workflow} | ${r.side} | ${f1(r.perSecond)} | ${ms(pct(r.sat.e2e, 0.5))} / ${ms(pct(r.sat.e2e, 0.99))} ` +
        `| ${ms(pct(r.sat.perStep, 0.5))} / ${ms(pct(r.sat.perStep, 0.99))} | ${f1(r.rate)} ` +
        `| ${ms(pct(r.atRate.e2e, 0.5))} / ${ms(pct(r.atRate.e2e, 0.99))} | ${ms(pct(r.atRate.perStep, 0.5))} / ${ms(pct(r.atRate.perStep, 0.99))} ` +
        `| ${f1(r.cpuSat.server)} / ${f1(r.cpuSat.host)} / ${f1(r.cpuSat.workers)} | ${f1(r.journal)} | ${f1(r.invocations)} | ${f1(r.loadAverage)} |`,
    );
  }
  // What Restate did per execution at saturation (its counters): invocations started (each
  // `run`, queue, inbox call …), requests to the deployment (an invocation resumed after
  // a suspension is one more), journal entries by kind.
  const kinds = [...new Set(results.flatMap((r) => [...r.entries.keys()]))].sort(
    (a, b) =>
      Math.max(...results.map((r) => r.entries.get(b) ?? 0)) - Math.max(...results.map((r) => r.entries.get(a) ?? 0)),
  );
  console.log('\nRestate per execution at saturation (its /metrics):');
  console.log(`| | ${results.map((r) => `${r.workflow} ${r.side}`).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}`);
  console.log(`| invocations | ${results.map((r) => f1(r.invocations)).join(' | ')} |`);
  console.log(`| requests to the deployment | ${results.map((r) => f1(r.requests)).join(' | ')} |`);
  for (const k of kinds) console.log(`| ${k} | ${results.map((r) => f1(r.entries.get(k) ?? 0)).join(' | ')} |`);
  const byKey = new Map(results.map((r) => [`${r.workflow} ${r.side}`, r]));
  const ratios = [];
  for (const r of results.filter((x) => x.side.startsWith('orbit'))) {
    const b = byKey.get(`${r.workflow} baseline`);
    if (!b) continue;
    const cpuTotal = (c) => c.server + c.host + c.workers;
    ratios.push(
      `| ${r.workflow}${r.side === 'orbit' ? '' : ` (${r.side})`} | ${(r.perSecond / b.perSecond).toFixed(2)} | ${(pct(r.atRate.e2e, 0.5) / pct(b.atRate.e2e, 0.5)).toFixed(2)} ` +
        `| ${(pct(r.atRate.perStep, 0.5) / pct(b.atRate.perStep, 0.5)).toFixed(2)} | ${(cpuTotal(r.cpuSat) / cpuTotal(b.cpuSat)).toFixed(2)} ` +
        `| ${(r.cpuSat.server / b.cpuSat.server).toFixed(2)} | ${(r.invocations / b.invocations).toFixed(2)} |`,
    );
  }
  if (ratios.length) {
    console.log('\nOrbit / baseline (goals: throughput ≥ 0.5, e2e p50 at the same rate ≤ 2):');
    console.log(
      '| workflow | throughput | e2e p50 (rate) | step p50 (rate) | CPU per execution | server CPU | invocations |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const l of ratios) console.log(l);
  }
  const extra = results.filter((r) => r.redelivered > 0);
  for (const r of extra) console.log(`note: ${r.workflow} ${r.side}: ${r.redelivered} tasks delivered more than once`);
}

/** The former benchmark: N executions of checkout.orbit itself, with the small load case's checks. */
async function legacyLoad() {
  const n = Number(args.executions ?? 1000),
    timeScale = Number(args['time-scale']),
    shards = Number(args.shards);
  const server = new h.RestateServer(path.join(top, 'restate'));
  fs.mkdirSync(server.dir);
  running.push(server);
  const orbc = path.join(top, 'checkout.orbc');
  execFileSync(ORBITC, ['build', path.join(h.ROOT, 'examples', 'checkout.orbit'), '-o', orbc], {
    stdio: 'pipe',
    timeout: 30000,
  });
  await server.start();
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  const r = await runLoad({
    server,
    orbc,
    dir: top,
    n,
    timeScale,
    shards,
    boundMs: Number(args.bound) * 1000,
    last: true,
  });
  console.log(describeLoad(r));
  console.log(`load average at the start: ${load}`);
  console.log(
    `| ${new Date().toISOString().slice(0, 16).replace('T', ' ')} | ${n} | ${timeScale} | ${shards} | ${r.n}, one \`run\` each ` +
      `| ${r.keys} / ${r.charges} | ${r.seconds.toFixed(0)} s | ${r.perSecond.toFixed(1)} | ${r.p50.toFixed(1)} s | ${r.p99.toFixed(1)} s |`,
  );
}

let status = 0;
// Stopped from outside (Ctrl-C, kill): its servers and processes stop with it.
for (const sig of ['SIGINT', 'SIGTERM'])
  process.once(sig, async () => {
    for (const r of running.reverse()) await r.stop().catch(() => {});
    fs.rmSync(top, { recursive: true, force: true });
    process.exit(130);
  });
try {
  if (args.load) await legacyLoad();
  else await compare();
} catch (e) {
  console.error(`restate_bench: ${e.stack ?? e.message}`);
  status = 1;
} finally {
  for (const r of running.reverse()) await r.stop().catch(() => {});
  if (!process.env.ORBIT_RESTATE_KEEP) fs.rmSync(top, { recursive: true, force: true });
  else console.log(`kept ${top}`);
}
process.exit(status);
