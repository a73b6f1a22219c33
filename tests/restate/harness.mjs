// What the Restate tests share: a restate-server on loopback ports in a temporary
// directory (telemetry off), `orbit-restate serve` processes, scripted worker processes,
// executions started over the ingress, and histories compared with orbit-run's. Every wait
// is bounded.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { spawn, execFile, execFileSync } from 'node:child_process';

export const HERE = path.dirname(new URL(import.meta.url).pathname);
export const ROOT = path.resolve(HERE, '..', '..');
export const PACKAGE = path.join(ROOT, 'hosts', 'restate');
const SERVER_BIN = path.join(
  PACKAGE,
  'node_modules',
  '@restatedev',
  'restate-server-linux-x64',
  'bin',
  'restate-server',
);

// How long a server may take to answer its health checks: three nodes starting at once
// beside the sanitizer suite take tens of seconds.
const START_MS = 120000;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Ports are taken below the kernel's ephemeral range (32768 and up on Linux): a port the
// kernel chose (`listen(0)`) and that was closed again for a child process to bind can
// meanwhile become the source port of one of the many loopback connections the tests
// open, and the child then fails to bind it. No port is handed out twice in a process.
const PORT_LOW = 10000;
const PORT_HIGH = 32000;
const handedOut = new Set();

function tryListen(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free loopback port below the ephemeral range, never the same one twice. */
export async function freePort() {
  for (let tries = 0; tries < 1000; tries++) {
    const port = PORT_LOW + Math.floor(Math.random() * (PORT_HIGH - PORT_LOW));
    if (handedOut.has(port) || !(await tryListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free loopback port between ${PORT_LOW} and ${PORT_HIGH}`);
}

/** The last `n` lines of a log file, indented, for an error message. */
export function logTail(file, n = 15) {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return `  (no log at ${file})`;
  }
  if (text.trim() === '') return `  (${file} is empty)`;
  const lines = text.trimEnd().split('\n').slice(-n);
  return lines.map((l) => `  | ${l}`).join('\n');
}

/** Waits until `probe()` is true, at most `ms`; throws `what` then. */
export async function until(probe, ms, what) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if (await probe()) return;
    } catch {
      /* not yet */
    }
    await sleep(200);
  }
  throw new Error(`timed out after ${ms} ms: ${what}`);
}

async function post(url, body, ms = 10000) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? null),
    signal: AbortSignal.timeout(ms),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** One restate-server node, data in `dir`; `env`: more of its settings (a cluster's). */
export class RestateServer {
  constructor(dir, { nodeName = 'orbit-test', env = {} } = {}) {
    this.dir = dir;
    this.nodeName = nodeName;
    this.env = env;
    this.proc = null;
  }

  async start() {
    if (!this.ports) this.ports = { admin: await freePort(), ingress: await freePort(), fabric: await freePort() };
    const { admin, ingress, fabric } = this.ports;
    const env = {
      ...process.env,
      RESTATE_DISABLE_TELEMETRY: 'true',
      RESTATE_NODE_NAME: this.nodeName,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
      RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '256MiB',
      RESTATE_DEFAULT_NUM_PARTITIONS: '4',
      RESTATE_LOG_FORMAT: 'compact',
      RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
      RESTATE_ADMIN__DISABLE_WEB_UI: 'true',
      // A process killed with -9 loses nothing the kernel has; fsync guards against power loss only.
      RESTATE_LOG_SERVER__ROCKSDB_DISABLE_WAL_FSYNC: 'true',
      ...this.env,
    };
    const logPath = path.join(this.dir, 'server.log');
    const log = fs.openSync(logPath, 'a');
    const proc = spawn(SERVER_BIN, ['--base-dir', this.dir], { env, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.proc = proc;
    // A server that cannot start (not installed, a port taken, a bad setting) ends the wait
    // at once, with why; one that is still starting after the wait, with its log.
    let failure = null;
    proc.once('error', (e) => {
      failure = e.code === 'ENOENT' ? `${SERVER_BIN} is not installed (tools/install-restate.sh)` : e.message;
    });
    proc.once('exit', (code, signal) => {
      failure ??= `restate-server ${this.nodeName} exited (${signal ?? code}) while starting`;
    });
    const end = Date.now() + START_MS;
    for (;;) {
      if (failure && this.proc === proc) {
        this.proc = null;
        throw new Error(`${failure}:\n${logTail(logPath)}`);
      }
      if (this.proc !== proc) throw new Error(`restate-server ${this.nodeName} was stopped while starting`);
      try {
        const ok = async (url) => (await fetch(url, { signal: AbortSignal.timeout(5000) })).ok;
        if ((await ok(`${this.admin}/health`)) && (await ok(`${this.ingress}/restate/health`))) return;
      } catch {
        /* not yet */
      }
      if (Date.now() > end)
        throw new Error(
          `timed out after ${START_MS} ms: restate-server ${this.nodeName} healthy; its log ends:\n${logTail(logPath)}`,
        );
      await sleep(200);
    }
  }

  get admin() {
    return `http://127.0.0.1:${this.ports.admin}`;
  }
  get ingress() {
    return `http://127.0.0.1:${this.ports.ingress}`;
  }

  /** kill -9: no shutdown at all. */
  async kill9() {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((resolve) => p.once('exit', resolve));
    p.kill('SIGKILL');
    await exited;
  }

  async stop() {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((resolve) => p.once('exit', resolve));
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 15000);
    await exited;
    clearTimeout(t);
  }
}

/**
 * A cluster of `n` nodes on loopback ports (docs/restate.md, "A cluster"): each runs every
 * role; the first provisions the cluster; logs and partitions are replicated on 2 nodes,
 * so that one node may be lost. Start them together (`Promise.all`).
 */
export async function cluster(dir, n = 3) {
  const ports = [];
  for (let i = 0; i < n; i++)
    ports.push({ admin: await freePort(), ingress: await freePort(), fabric: await freePort() });
  const peers = JSON.stringify(ports.map((p) => `http://127.0.0.1:${p.fabric}`));
  return ports.map((p, i) => {
    const node = new RestateServer(path.join(dir, `node-${i + 1}`), {
      nodeName: `node-${i + 1}`,
      env: {
        RESTATE_CLUSTER_NAME: 'orbit-test-cluster',
        RESTATE_FORCE_NODE_ID: String(i + 1),
        RESTATE_AUTO_PROVISION: i === 0 ? 'true' : 'false',
        RESTATE_DEFAULT_REPLICATION: '2',
        RESTATE_METADATA_CLIENT__ADDRESSES: peers,
        RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE: '128MiB',
      },
    });
    node.ports = p;
    fs.mkdirSync(node.dir, { recursive: true });
    return node;
  });
}

/** A child process with its output in `logPath`, stopped with SIGKILL or SIGTERM. */
export function startProcess(cmd, args, logPath, env = {}) {
  const log = fs.openSync(logPath, 'a');
  const proc = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  proc.on('exit', (code, signal) => fs.appendFileSync(logPath, `[exited: ${signal ?? code}]\n`));
  return {
    proc,
    async kill(signal = 'SIGKILL') {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill(signal);
      await exited;
    },
  };
}

/**
 * `orbit-restate serve ORBC` (or every version of `orbc`, an array, oldest first) on a
 * free port (or `port`), registered with `server`; one queue shard unless told (the
 * scripted workers follow a script per task: scripted-worker.mjs). The process has
 * `program`, the program's name as serve named it, and `deployment`.
 */
export async function serve(
  server,
  orbc,
  dir,
  {
    timeScale = 1,
    heartbeatTimeoutMs = 2000,
    queueShards = 1,
    port = null,
    program = null,
    args = [],
    push = false,
  } = {},
) {
  port ??= await freePort();
  // Pushed workers (docs/restate.md, "Pushed workers"): a worker port of its own.
  const workerPort = push ? await freePort() : null;
  if (push) args = [...args, '--worker-listen', `127.0.0.1:${workerPort}`, '--ingress', server.ingress];
  const logPath = path.join(dir, `serve-${port}-${serial++}.log`);
  const p = startProcess(
    process.execPath,
    [
      path.join(PACKAGE, 'bin', 'orbit-restate.mjs'),
      'serve',
      ...[orbc].flat(),
      ...(program ? ['--program', program] : []),
      '--port',
      String(port),
      '--admin',
      server.admin,
      '--time-scale',
      String(timeScale),
      '--heartbeat-timeout',
      String(heartbeatTimeoutMs),
      '--queue-shards',
      String(queueShards),
      // A pickup's own timeout as long as the heartbeat timeout (as before there was one):
      // the crash cases' heartbeat timeout is long so that a server killed and started
      // again loses no claim; the security cases set theirs.
      '--pickup-timeout',
      String(heartbeatTimeoutMs),
      ...args,
    ],
    logPath,
    { RESTATE_LOGGING: process.env.ORBIT_RESTATE_DEBUG ? 'INFO' : 'WARN' },
  );
  await until(
    () => fs.readFileSync(logPath, 'utf8').includes('registered with'),
    30000,
    `orbit-restate serve ${orbc} registered (${logPath})`,
  ).catch(async (e) => {
    await p.kill();
    throw e;
  });
  const deployment = /as deployment (\S+)/.exec(fs.readFileSync(logPath, 'utf8'))?.[1];
  p.program = /serving program (\S+),/.exec(fs.readFileSync(logPath, 'utf8'))?.[1];
  p.deployment = deployment;
  p.port = port;
  p.logPath = logPath;
  p.pushServe = push ? `http://127.0.0.1:${workerPort}` : null;
  const kill = p.kill;
  // Stopped only once no invocation is running on it any more (Restate retries a pinned
  // invocation on its deployment until that answers: it would block its virtual object);
  // `drain: false` when nothing else will run on the server (it is stopped next).
  p.kill = async (signal, { drain = true } = {}) => {
    if (drain)
      await until(
        async () =>
          (await sqlCount(
            server,
            `SELECT count(*) AS n FROM sys_invocation WHERE pinned_deployment_id = '${deployment}'` +
              ` AND status NOT IN ('completed', 'scheduled')`,
          )) === 0,
        30000,
        `deployment ${deployment} drained`,
      ).catch(() => {});
    await kill(signal);
  };
  return p;
}

/** The rows of an admin SQL query (the server's introspection tables). */
export async function sqlRows(server, query) {
  const r = await fetch(`${server.admin}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(10000),
  });
  return (await r.json()).rows;
}

/** The first column of the first row of an admin SQL query. */
export async function sqlCount(server, query) {
  return Object.values((await sqlRows(server, query))[0])[0];
}

/** The scripted workers of a scenario, for the queues of `program`, as a process. */
export function workers(server, program, scenarioPath, dir, timeScale, statePath, pushServe = null) {
  const args = [path.join(HERE, 'scripted-worker.mjs'), scenarioPath, server.ingress, program, String(timeScale)];
  if (statePath) args.push(statePath);
  const logPath = path.join(dir, `workers-${path.basename(scenarioPath)}-${serial++}.log`);
  const p = startProcess(process.execPath, args, logPath, pushServe ? { ORBIT_PUSH_SERVE: pushServe } : {});
  const kill = p.kill;
  p.kill = async () => {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
    await kill();
    server.pollsOverAt = Date.now() + POLLS_OVER_MS;
  };
  p.ready = () => until(() => fs.readFileSync(logPath, 'utf8').includes('ready'), 30000, `workers ready (${logPath})`);
  return p;
}
let serial = 0;
// How long the polls of a killed worker process may still take a task
// (scripted-worker.mjs, POLL_WAIT_MS).
const POLLS_OVER_MS = 1500;

/**
 * Waits until no poll of a worker process killed on `server` can take a task any more:
 * before anything is queued for the next workers (an execution started, workers started
 * again). The wait overlaps whatever came between the kill and this call.
 */
export async function pollsOver(server) {
  const left = (server.pollsOverAt ?? 0) - Date.now();
  if (left > 0) await sleep(left);
}

/** Starts execution `id` of `workflow` with `input`; returns the real time it started. */
export async function startExecution(server, workflow, id, input) {
  const t = Date.now();
  // Sent again if the server is too busy to answer: a workflow's `run` starts once per key
  // (Restate answers the second `PreviouslyAccepted`).
  await until(
    () =>
      post(`${server.ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/run/send`, input, 30000).then(
        () => true,
      ),
    300000,
    `execution ${workflow}/${id} started`,
  );
  return t;
}

export function signal(server, workflow, id, name, payload) {
  return post(
    `${server.ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/signal`,
    { name, payload },
    30000,
  );
}

/** When execution `id`'s clock started (real ms), waiting for it at most `ms`. */
export async function started(server, workflow, id, ms) {
  const url = `${server.ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/started`;
  let at = null;
  await until(async () => (at = await post(url, null)) !== null, ms, `execution ${workflow}/${id} started`);
  return at;
}

/** The result of an execution, waiting for it at most `ms`. */
export async function result(server, workflow, id, ms) {
  const url = `${server.ingress}/restate/workflow/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/attach`;
  const end = Date.now() + ms;
  for (;;) {
    const left = end - Date.now();
    if (left <= 0) throw new Error(`timed out after ${ms} ms: the result of ${workflow}/${id}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(Math.ceil(Math.min(left, 20000))) });
      if (response.ok) return response.json();
      if (response.status >= 400 && response.status < 500 && response.status !== 404) {
        throw new Error(`${url}: ${response.status} ${await response.text()}`);
      }
    } catch (e) {
      if (
        !(
          e.name === 'TimeoutError' ||
          e.cause?.code === 'ECONNREFUSED' ||
          e.cause?.code === 'ECONNRESET' ||
          e.message?.includes('fetch failed') ||
          e.message?.includes('terminated')
        )
      )
        throw e;
    }
    await sleep(100);
  }
}

/** The history so far, straight from the workflow's shared handler (cheap, for polling). */
export async function history(server, workflow, id) {
  const lines = await post(`${server.ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/history`, null);
  return lines.map((l) => l + '\n').join('');
}

/** `orbit-restate logs` itself, as a user runs it (a process, not waited on in this one). */
export async function logs(server, id, workflow) {
  const args = [
    path.join(PACKAGE, 'bin', 'orbit-restate.mjs'),
    'logs',
    id,
    '--ingress',
    server.ingress,
    '--admin',
    server.admin,
  ];
  if (workflow) args.push('--workflow', workflow);
  return (await promisify(execFile)(process.execPath, args, { encoding: 'utf8', timeout: 30000 })).stdout;
}

/** orbit-run's history of a scenario. */
export function orbitRun(orbitRunBin, orbc, scenarioPath, extraArgs = []) {
  try {
    return execFileSync(orbitRunBin, [orbc, '--scenario', scenarioPath, ...extraArgs], {
      encoding: 'utf8',
      timeout: 30000,
    });
  } catch (e) {
    if (typeof e.stdout === 'string' && e.status === 1) return e.stdout; // failed, timed out, blocked
    throw e;
  }
}

function parseHistory(text) {
  return text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((line) => {
      const m = /^\+ (\d+)ms #(\d+) (.*)$/.exec(line);
      return m ? { time: Number(m[1]), rest: `#${m[2]} ${m[3]}` } : { time: 0, rest: line };
    });
}

/**
 * Compares two `orbit logs` histories: the same events, steps, attempts, errors and
 * order (everything but the time, line for line); and each time within `tolerance` ms
 * of orbit-run's, either absolutely or counted from the event before (a timer the engine
 * set fires at its exact time; what the world does — pickups, answers, signals — comes
 * late by the latency of the Restate round trips, which adds up over a history).
 * `maxDelta`: the largest difference counted from the event before; `drift`: the
 * largest absolute difference (reported, not bounded).
 * @returns {{ok: boolean, why?: string, maxDelta: number, drift: number}}
 */
export function compareHistories(expected, actual, tolerance) {
  const e = parseHistory(expected),
    a = parseHistory(actual);
  let maxDelta = 0,
    drift = 0;
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (!e[i] || !a[i] || e[i].rest !== a[i].rest) {
      return {
        ok: false,
        maxDelta,
        drift,
        why: `line ${i + 1}: expected "${e[i]?.rest ?? '(end)'}", got "${a[i]?.rest ?? '(end)'}"`,
      };
    }
    const absolute = Math.abs(e[i].time - a[i].time);
    drift = Math.max(drift, absolute);
    if (i === 0) continue;
    const delta = Math.abs(e[i].time - e[i - 1].time - (a[i].time - a[i - 1].time));
    maxDelta = Math.max(maxDelta, Math.min(delta, absolute));
    if (delta > tolerance && absolute > tolerance) {
      return {
        ok: false,
        maxDelta,
        drift,
        why: `line ${i + 1} (${e[i].rest}): at ${a[i].time} ms, ${a[i].time - a[i - 1].time} ms after the line before; orbit-run ${e[i].time} ms, ${e[i].time - e[i - 1].time} ms (tolerance ${tolerance} ms)`,
      };
    }
  }
  return { ok: true, maxDelta, drift };
}
