// Orbit workers for the Restate host (docs/restate.md, "Workers"): the plain HTTP worker
// protocol as functions, and a worker loop over it.
//
//   import { runWorker, TaskError } from '.../hosts/restate/lib/worker.mjs';
//   const w = runWorker({ ingress: 'http://127.0.0.1:8080', program: 'checkout', task: 'payments.charge',
//     handler: async (input, t) => {   // t: {lease, queue, attempt, step, idempotency_key, signal}
//       if (declined) throw new TaskError('CARD_DECLINED', 'declined', false);
//       return { charge_id: 'ch_1' };
//     } });
//   ...; await w.stop();

import fs from 'node:fs';
import http from 'node:http';
import { programServices } from './names.mjs';
import {
  PATHS,
  REGISTER_EVERY_MS,
  authorized,
  hostPort,
  parsePushLease,
  post,
  readJson,
  reply,
  urlHost,
} from './push.mjs';

/** A failure a worker reports: an Orbit error code, a message, whether to retry. */
export class TaskError extends Error {
  constructor(code, message = '', retryable = true) {
    super(message);
    this.code = code;
    this.retryable = retryable;
  }
}

/** What a handler threw, as a `fail` answer's body: a TaskError's, or WORKER_ERROR (retryable). */
function failureOf(e) {
  const te = e instanceof TaskError ? e : new TaskError('WORKER_ERROR', String(e?.message ?? e), true);
  return { code: te.code, message: te.message, retryable: te.retryable };
}

/**
 * The workers' shared token (`orbit-restate serve --worker-token-file`), sent with every
 * call as `authorization: Bearer TOKEN`: ORBIT_WORKER_TOKEN, or the first line of the
 * file ORBIT_WORKER_TOKEN_FILE names; null when neither is set.
 */
export function workerToken(env = process.env) {
  if (env.ORBIT_WORKER_TOKEN) return env.ORBIT_WORKER_TOKEN;
  if (env.ORBIT_WORKER_TOKEN_FILE) return readToken(env.ORBIT_WORKER_TOKEN_FILE);
  return null;
}

/** The token in a file: its first line, trimmed. */
export function readToken(file) {
  const token = fs.readFileSync(file, 'utf8').split('\n')[0].trim();
  if (!token) throw new Error(`${file} holds no token`);
  return token;
}

/**
 * One call of the protocol: POST INGRESS/orbit_queue_PROGRAM/KEY/HANDLER with a JSON body
 * (`PROGRAM`: the program whose queues these are, as `orbit-restate serve` names it),
 * with the workers' token (`token`, by default workerToken()).
 */
export async function call(ingress, program, key, handler, body, token = workerToken()) {
  const url = `${ingress}/${programServices(program).QUEUE.name}/${encodeURIComponent(key)}/${handler}`;
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30000),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

// A task's queue is a few keys per version of the program (`TASK@VERSION~0`, …: its
// shards); `shards` names them: asked on `TASK`, those of every version served; on
// `TASK@VERSION`, one version's. Each task polled from a key is answered (heartbeat,
// complete, fail) on that key, its `queue`.
// `token`: the workers' shared token (by default workerToken()).
export const shards = (ingress, program, task, token) =>
  call(ingress, program, task, 'shards', {}, token).then((r) => r.keys);
/**
 * Up to `max` tasks; waits up to `waitMs` for one (a long poll). A task taken must be
 * heartbeated within the queue's pickup timeout (5 s by default), or it is lost again.
 */
export const poll = (ingress, program, queue, workerId, max = 1, minAgeMs = 0, waitMs = 20000, token) =>
  call(
    ingress,
    program,
    queue,
    'poll',
    { worker_id: workerId, max, min_age_ms: minAgeMs, wait_ms: waitMs },
    token,
  ).then((r) => r.tasks);
export const heartbeat = (ingress, program, queue, workerId, leases, token) =>
  call(ingress, program, queue, 'heartbeat', { worker_id: workerId, leases }, token).then((r) => r.cancel);
export const complete = (ingress, program, queue, lease, output, token) =>
  call(ingress, program, queue, 'complete', { lease, output }, token).then((r) => r.accepted);
export const fail = (ingress, program, queue, lease, code, message, retryable, token) =>
  call(ingress, program, queue, 'fail', { lease, code, message, retryable }, token).then((r) => r.accepted);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls every shard of `task`'s queue and runs `handler` on each task, `concurrency` at
 * a time (shared evenly between the shards), with heartbeats every third of the heartbeat
 * timeout; a task the engine cancels sees its `signal` aborted (its answer would be
 * ignored).
 * `task` may be `TASK@VERSION` to serve one version's queue only (names.mjs).
 * A task taken is heartbeated after a fifth of the queue's pickup timeout if it is still
 * running (a poll whose worker is gone gives its tasks back soon); each answer takes the
 * slot's next task of that shard in the same call (`next`), so that a busy worker rarely
 * polls. `token`: the workers' shared token (by default workerToken()). `pollWaitMs`: how
 * long a poll waits for a task (20 s): `stop` waits for the polls in flight to end.
 *
 * With `push` (`{serve, listen, advertise}`: serve's worker port, the HOST:PORT to take
 * tasks on, the URL serve reaches that at), it is also pushed tasks (pushWorker), within
 * the same `concurrency`; it still polls, for the tasks no pushed worker took.
 * @param {{ingress: string, program: string, task: string, handler: Function, workerId?: string,
 *          concurrency?: number, pollIntervalMs?: number, pollWaitMs?: number, shardsEveryMs?: number, token?: string,
 *          push?: {serve: string, listen?: string, advertise?: string}}} o
 * @returns {{stop: () => Promise<void>, pushed?: Promise<{url: string}>}}
 */
export function runWorker({
  ingress,
  program,
  task,
  handler,
  workerId = `worker-${process.pid}`,
  concurrency = 1,
  pollIntervalMs = 50,
  pollWaitMs = 20000,
  shardsEveryMs = 5000,
  token = workerToken(),
  push = null,
}) {
  const held = new Map(); // lease -> {controller, queue, beatFrom: when the periodic beat starts to name it}
  let running = true;
  const pushed = push ? pushWorker({ ...push, task, handler, workerId, concurrency, token }) : null;
  const busy = () => held.size + (pushed?.working() ?? 0) >= concurrency;
  let beatEvery = 1000;

  const beat = async () => {
    while (running || held.size > 0) {
      await sleep(beatEvery);
      const byQueue = new Map();
      const now = Date.now();
      for (const [lease, h] of held) {
        // A task younger than its first heartbeat's delay is beaten by that (firstBeat).
        if (now >= h.beatFrom) byQueue.set(h.queue, [...(byQueue.get(h.queue) ?? []), lease]);
      }
      for (const [queue, leases] of byQueue) {
        try {
          for (const lease of await heartbeat(ingress, program, queue, workerId, leases, token))
            held.get(lease)?.controller.abort();
        } catch {
          /* the server is away: the next beat tries again */
        }
      }
    }
  };

  // The first heartbeat of tasks just taken: after a fifth of the queue's pickup timeout
  // (`pickup_timeout_ms`; at once from a host that does not say it), for those still held
  // then. A task answered sooner needs none: its answer ends the claim.
  const firstDelay = (t) => Math.floor((t.pickup_timeout_ms ?? 0) / 5);
  const firstBeat = (queue, tasks) => {
    const delay = firstDelay(tasks[0]);
    const send = () => {
      const leases = tasks.map((t) => t.lease).filter((lease) => delay === 0 || held.has(lease));
      if (leases.length === 0) return;
      heartbeat(ingress, program, queue, workerId, leases, token)
        .then((cancel) => {
          for (const lease of cancel) held.get(lease)?.controller.abort();
        })
        .catch(() => {});
    };
    if (delay > 0) setTimeout(send, delay).unref();
    else send();
  };

  // A task's answer (`complete` or `fail`), which takes the slot's next task from the same
  // shard in the same call while the worker runs (`next`): the tasks it hands out.
  const answer = async (t, handler, body) => {
    const r = await call(
      ingress,
      program,
      t.queue,
      handler,
      { ...body, lease: t.lease, worker_id: workerId, next: running ? 1 : 0 },
      token,
    );
    return r.tasks ?? [];
  };

  // Runs task `first`, then each task its answer hands over, in one slot.
  const work = async (first) => {
    for (let t = first; t; ) {
      const controller = new AbortController();
      held.set(t.lease, { controller, queue: t.queue, beatFrom: Date.now() + firstDelay(t) });
      beatEvery = Math.max(10, Math.floor(t.heartbeat_timeout_ms / 3));
      let next = [];
      try {
        const output = await handler(t.input, { ...t, signal: controller.signal });
        if (!controller.signal.aborted) next = await answer(t, 'complete', { output: output ?? null });
      } catch (e) {
        if (!controller.signal.aborted) next = await answer(t, 'fail', failureOf(e)).catch(() => []);
      } finally {
        held.delete(t.lease);
      }
      if (next.length > 0) firstBeat(t.queue, next);
      t = next[0];
    }
  };

  const loop = async (queue, slots) => {
    const active = new Set();
    while (running) {
      let tasks = [];
      if (active.size < slots && !busy()) {
        try {
          tasks = await poll(ingress, program, queue, workerId, slots - active.size, 0, pollWaitMs, token);
        } catch {
          await sleep(500); // the server is away: poll again later
        }
      }
      // Taken: said soon, before the pickup timeout gives them to another worker.
      if (tasks.length > 0) firstBeat(queue, tasks);
      for (const t of tasks) {
        const p = work(t).finally(() => active.delete(p));
        active.add(p);
      }
      if (tasks.length === 0 && (active.size >= slots || busy())) await sleep(pollIntervalMs);
    }
    await Promise.all(active);
  };

  // The shards are asked for again every `shardsEveryMs`: a version served later (orbit-restate
  // serve with more versions) brings queue keys of its own, polled from then on.
  const loops = async () => {
    const polled = new Map(); // key -> its loop
    while (running) {
      const keys = await shards(ingress, program, task, token).catch(() => null);
      for (const key of keys ?? []) {
        if (!polled.has(key)) polled.set(key, loop(key, Math.max(1, Math.ceil(concurrency / keys.length))));
      }
      for (let waited = 0; running && waited < (keys ? shardsEveryMs : 500); waited += 100) await sleep(100);
    }
    await Promise.all(polled.values());
  };

  const done = Promise.all([loops(), beat()]);
  return {
    stop: async () => {
      running = false;
      await Promise.all([done, pushed?.stop()]);
    },
    ...(pushed ? { pushed: pushed.ready } : {}),
  };
}

/**
 * A worker pushed its tasks (push.mjs): it takes them on `listen` (HOST:PORT, port 0 for
 * any), registers `advertise` (by default the address bound) with serve's worker port
 * `serve` every REGISTER_EVERY_MS, runs `handler` on each task it takes, `concurrency`
 * at a time (a task offered beyond that is refused, 429: it goes to the queue), and
 * answers on `serve`, again and again until serve takes the answer. A task offered again
 * (the execution replayed its offer) is taken once: it is taken again without running.
 * A cancellation aborts the task's `signal`; its answer is not given.
 * @returns {{working: () => number, ready: Promise<{url: string}>, stop: () => Promise<void>}}
 */
export function pushWorker({ serve, listen = '127.0.0.1:0', advertise, task, handler, workerId, concurrency, token }) {
  const held = new Map(); // lease -> AbortController, while its task runs or its answer is given
  let working = 0; // the tasks whose handler runs (what `concurrency` bounds; not those answering)
  const done = new Set(); // the leases answered lately (an offer replayed is taken, not run again)
  const answering = new Set(); // the answers being given
  let serving = true;
  let registering = null;

  const answer = async (lease, path, body) => {
    for (let wait = 100; ; wait = Math.min(5000, wait * 2)) {
      try {
        const r = await post(`${serve}${path}`, { ...body, lease }, token, 30000);
        if (r.status === 413 && path === PATHS.complete) {
          // An output over serve's limit: the attempt's failure, as the queue makes it.
          path = PATHS.fail;
          body = {
            code: 'OUTPUT_TOO_LARGE',
            message: `the output is over serve's limit: ${r.body?.error ?? ''}`,
            retryable: false,
          };
          continue;
        }
        if (r.status === 200 || (r.status >= 400 && r.status < 500 && r.status !== 429)) return;
      } catch {
        /* serve or the ingress is away: again */
      }
      await sleep(wait);
    }
  };

  const run = async (t) => {
    const controller = held.get(t.lease);
    let path;
    let body;
    try {
      const output = await handler(t.input, { ...t, signal: controller.signal });
      path = PATHS.complete;
      body = { output: output ?? null };
    } catch (e) {
      path = PATHS.fail;
      body = failureOf(e);
    } finally {
      working--;
    }
    // A task cancelled is not answered (as a polled one: runWorker's `work`).
    if (!controller.signal.aborted) await answer(t.lease, path, body);
    held.delete(t.lease);
    done.add(t.lease);
    if (done.size > 10000) done.delete(done.values().next().value);
  };

  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST' || ![PATHS.task, PATHS.alive, PATHS.cancel].includes(req.url))
      return reply(res, 404, { error: 'not a call of serve' });
    if (!authorized(req, token)) return reply(res, 401, { error: "calls need the workers' token" });
    const { body, status, error } = await readJson(req, 64 * 1024 * 1024);
    if (error) return reply(res, status, { error });
    if (req.url === PATHS.task) {
      if (!parsePushLease(body?.lease) || body.task !== task) return reply(res, 400, { error: `not a task ${task}` });
      if (held.has(body.lease) || done.has(body.lease)) return reply(res, 202, { worker_id: workerId });
      if (!serving || working >= concurrency) return reply(res, 429, { error: 'busy' });
      held.set(body.lease, new AbortController());
      working++;
      const p = run(body).finally(() => answering.delete(p));
      answering.add(p);
      return reply(res, 202, { worker_id: workerId });
    }
    const leases = Array.isArray(body?.leases) ? body.leases.filter((l) => typeof l === 'string') : [];
    if (req.url === PATHS.alive)
      return reply(res, 200, { alive: leases.filter((l) => held.has(l)), answered: leases.filter((l) => done.has(l)) });
    for (const l of leases) held.get(l)?.abort();
    return reply(res, 200, {});
  });

  const ready = (async () => {
    const at = hostPort(listen);
    if (!at) throw new Error(`push.listen must be HOST:PORT, not "${listen}"`);
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(at.port, at.host, resolve);
    });
    const a = server.address();
    const url = advertise ?? `http://${urlHost(a.address)}:${a.port}`;
    const register = () =>
      post(`${serve}${PATHS.register}`, { task, url, worker_id: workerId }, token).then((r) => r.status === 200);
    // Registered once before it is ready (or it says why not), then again and again.
    for (let i = 0; !(await register().catch(() => false)); i++) {
      if (i >= 100) throw new Error(`serve's worker port ${serve} does not take the registration of ${url}`);
      await sleep(100);
    }
    registering = (async () => {
      while (serving) {
        for (let waited = 0; serving && waited < REGISTER_EVERY_MS; waited += 100) await sleep(100);
        if (serving) await register().catch(() => false);
      }
    })();
    return { url };
  })();

  return {
    working: () => working,
    ready,
    stop: async () => {
      serving = false;
      await registering;
      await Promise.all(answering);
      await new Promise((resolve) => {
        server.close(resolve);
        server.closeIdleConnections();
      });
    },
  };
}
