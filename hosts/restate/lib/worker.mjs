// Orbit workers for the Restate host (docs/restate.md, "Workers"): the plain HTTP worker
// protocol as functions, and a worker loop over it.
//
//   import { runWorker, TaskError } from '.../hosts/restate/lib/worker.mjs';
//   const w = runWorker({ ingress: 'http://127.0.0.1:8080', task: 'payments.charge',
//     handler: async (input, t) => {          // t: {lease, attempt, step, idempotency_key, signal}
//       if (declined) throw new TaskError('CARD_DECLINED', 'declined', false);
//       return { charge_id: 'ch_1' };
//     } });
//   ...; await w.stop();

/** A failure a worker reports: an Orbit error code, a message, whether to retry. */
export class TaskError extends Error {
  constructor(code, message = '', retryable = true) {
    super(message);
    this.code = code;
    this.retryable = retryable;
  }
}

/** One call of the protocol: POST INGRESS/orbit_queue/TASK/HANDLER with a JSON body. */
export async function call(ingress, task, handler, body) {
  const url = `${ingress}/orbit_queue/${encodeURIComponent(task)}/${handler}`;
  const response = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    signal: AbortSignal.timeout(30000),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Up to `max` tasks; waits up to `waitMs` for one (a long poll). */
export const poll = (ingress, task, workerId, max = 1, minAgeMs = 0, waitMs = 20000) =>
  call(ingress, task, 'poll', { worker_id: workerId, max, min_age_ms: minAgeMs, wait_ms: waitMs })
    .then((r) => r.tasks);
export const heartbeat = (ingress, task, workerId, leases) =>
  call(ingress, task, 'heartbeat', { worker_id: workerId, leases }).then((r) => r.cancel);
export const complete = (ingress, task, lease, output) =>
  call(ingress, task, 'complete', { lease, output }).then((r) => r.accepted);
export const fail = (ingress, task, lease, code, message, retryable) =>
  call(ingress, task, 'fail', { lease, code, message, retryable }).then((r) => r.accepted);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `task`'s queue and runs `handler` on each task, `concurrency` at a time, with
 * heartbeats every third of the heartbeat timeout; a task the engine cancels sees its
 * `signal` aborted (its answer would be ignored).
 * @param {{ingress: string, task: string, handler: Function, workerId?: string,
 *          concurrency?: number, pollIntervalMs?: number}} o
 * @returns {{stop: () => Promise<void>}}
 */
export function runWorker({ ingress, task, handler, workerId = `worker-${process.pid}`, concurrency = 1,
                            pollIntervalMs = 50 }) {
  const held = new Map();          // lease -> AbortController
  let running = true;
  let beatEvery = 1000;

  const beat = async () => {
    while (running || held.size > 0) {
      await sleep(beatEvery);
      if (held.size === 0) continue;
      try {
        for (const lease of await heartbeat(ingress, task, workerId, [...held.keys()])) held.get(lease)?.abort();
      } catch { /* the server is away: the next beat tries again */ }
    }
  };

  const work = async (t) => {
    const controller = new AbortController();
    held.set(t.lease, controller);
    beatEvery = Math.max(10, Math.floor(t.heartbeat_timeout_ms / 3));
    try {
      const output = await handler(t.input, { ...t, signal: controller.signal });
      if (!controller.signal.aborted) await complete(ingress, task, t.lease, output ?? null);
    } catch (e) {
      if (!controller.signal.aborted) {
        const te = e instanceof TaskError ? e : new TaskError('WORKER_ERROR', String(e?.message ?? e), true);
        await fail(ingress, task, t.lease, te.code, te.message, te.retryable).catch(() => {});
      }
    } finally {
      held.delete(t.lease);
    }
  };

  const loop = async () => {
    const active = new Set();
    while (running) {
      let tasks = [];
      if (active.size < concurrency) {
        try {
          tasks = await poll(ingress, task, workerId, concurrency - active.size);
        } catch {
          await sleep(500);                    // the server is away: poll again later
        }
      }
      for (const t of tasks) {
        const p = work(t).finally(() => active.delete(p));
        active.add(p);
      }
      if (tasks.length === 0 && active.size >= concurrency) await sleep(pollIntervalMs);
    }
    await Promise.all(active);
  };

  const done = Promise.all([loop(), beat()]);
  return { stop: async () => { running = false; await done; } };
}
