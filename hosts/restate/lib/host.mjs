// The Restate host of Orbit's engine core (docs/restate.md). Three kinds of Restate
// services, built for one `.orbc` program:
//
//   - one workflow service per Orbit workflow (named after it): `run` drives the engine
//     core (hosts/wasm) for one execution, keyed by the execution's ID; `signal` and
//     `history` are its shared handlers;
//   - `orbit_inbox`, a virtual object per execution: the events of the world (pickups,
//     answers, lost workers, signals) in arrival order, handed to `run` through an
//     awakeable, so that they come back to it as journaled results;
//   - `orbit_queue`, a virtual object per task name: the durable task queue that workers
//     poll (the worker protocol: poll, heartbeat, complete, fail), which detects lost
//     workers with a delayed call to itself;
//   - `orbit_http`, a service that carries out `orbit.http.request`, the built-in task.
//
// The engine decides everything Orbit decides (attempts, retries, timeouts, the order of
// steps); this file only carries its commands out with Restate's primitives and feeds it
// the events back. Replay: Restate runs `run` again from its journal after a crash or a
// suspension, and the engine, a pure function of its events, is rebuilt by feeding it the
// same journaled events in the same order (docs/engine.md, "Replay").
import './compat.mjs';
import * as restate from '@restatedev/restate-sdk';
import { ANSWER, OrbitEngine } from './wasm.mjs';

const { RestatePromise, TerminalError } = restate;

/** The inbox of one execution: `WORKFLOW:ID` (an Orbit name has no `:`). */
export function inboxKey(workflow, id) {
  return `${workflow}:${id}`;
}

/** A task's lease, what a worker holds while it works: `INBOX|ATTEMPT|DELIVERY`. */
function leaseOf(inbox, attempt, delivery) {
  return `${inbox}|${attempt}|${delivery}`;
}

// The longest sleep asked of Restate at once; a later due time is slept towards again.
const DEBUG = !!process.env.ORBIT_RESTATE_DEBUG;
const MAX_SLEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * The services of one program.
 * @param {object} o
 * @param {() => Promise<object>} o.core  the engine core's factory (wasm.mjs loadCore)
 * @param {Uint8Array} o.orbc             the program
 * @param {string[]} o.workflows          its workflows, each served as a workflow service
 * @param {number} [o.timeScale]          Orbit milliseconds per real millisecond (1)
 * @param {number} [o.heartbeatTimeoutMs] a claimed task whose worker is silent this long is lost
 */
export function services({ core, orbc, workflows, timeScale = 1, heartbeatTimeoutMs = 5000 }) {
  const inbox = restate.object({
    name: 'orbit_inbox',
    handlers: {
      /** An event of the world; handed to the waiting execution at once, or kept. */
      push: async (ctx, event) => {
        const events = (await ctx.get('events')) ?? [];
        events.push(event);
        const waiter = await ctx.get('waiter');
        if (waiter) {
          ctx.resolveAwakeable(waiter, events);
          ctx.clear('waiter');
          ctx.clear('events');
        } else {
          ctx.set('events', events);
        }
      },
      /** The execution waits for the next events: resolves the awakeable `id` with them. */
      wait: async (ctx, id) => {
        const events = (await ctx.get('events')) ?? [];
        if (events.length > 0) {
          ctx.resolveAwakeable(id, events);
          ctx.clear('events');
        } else {
          ctx.set('waiter', id);
        }
      },
      /** The execution is over: nothing is kept. */
      clear: async (ctx) => {
        ctx.clearAll();
      },
    },
  });

  const queue = restate.object({
    name: 'orbit_queue',
    handlers: {
      /** Attempts queued by one event of an execution, together: `{items: [...]}`. */
      enqueue: async (ctx, req) => {
        const items = (await ctx.get('items')) ?? [];
        const now = await ctx.date.now();
        for (const item of req.items) items.push({ ...item, enqueued_at: now });
        await handOut(ctx, items);
      },
      /** The engine no longer wants the attempt: unqueued, or on the cancellation list. */
      cancel: async (ctx, { inbox: key, attempt }) => {
        const items = (await ctx.get('items')) ?? [];
        ctx.set('items', items.filter((i) => !(i.inbox === key && i.attempt === attempt)));
        const claimed = (await ctx.get('claimed')) ?? {};
        const cancelled = new Set((await ctx.get('cancelled')) ?? []);
        for (const [lease, c] of Object.entries(claimed)) {
          if (c.inbox === key && c.attempt === attempt) cancelled.add(lease);
        }
        ctx.set('cancelled', [...cancelled]);
      },
      /**
       * A worker asks for up to `max` tasks (a long poll: it waits up to `wait_ms`, 20 s
       * by default, for one to be queued); `min_age_ms`: only tasks queued that long ago,
       * without waiting. Taking a task is its pickup.
       * @returns {{tasks: object[]}}
       */
      poll: restate.handlers.object.shared(async (ctx, req) => {
        const waitMs = Math.max(0, Math.min(60000, Number(req?.wait_ms ?? 20000) || 0));
        const { id, promise } = ctx.awakeable();
        ctx.objectSendClient(queueRef, ctx.key).claim({
          worker_id: String(req?.worker_id ?? 'worker'), max: Math.max(1, Math.min(100, Number(req?.max ?? 1) || 1)),
          min_age_ms: Number(req?.min_age_ms ?? 0) || 0, wait: waitMs > 0, awakeable: id });
        try {
          return { tasks: await promise.orTimeout(waitMs + 1000) };
        } catch (e) {
          if (!(e instanceof restate.TimeoutError)) throw e;
        }
        // Still waiting: withdrawn, unless a task was handed to it in the meantime.
        if (await ctx.objectClient(queueRef, ctx.key).unwait(id)) return { tasks: [] };
        return { tasks: await promise };
      }),
      /** The exclusive half of `poll`: tasks for the poller now, or it waits in line. */
      claim: async (ctx, req) => {
        const items = (await ctx.get('items')) ?? [];
        const now = await ctx.date.now();
        if (!req.wait || req.min_age_ms > 0 || items.some((i) => now - i.enqueued_at >= req.min_age_ms)) {
          const tasks = await take(ctx, items, req, now);
          ctx.set('items', items);
          ctx.resolveAwakeable(req.awakeable, tasks);
          return;
        }
        const waiters = (await ctx.get('waiters')) ?? [];
        waiters.push(req);
        ctx.set('waiters', waiters);
        ctx.objectSendClient(queueRef, ctx.key).unwait(req.awakeable,
                                                       restate.rpc.sendOpts({ delay: 60000 + 5000 }));
      },
      /** A poller gives up waiting: true if it was still in line (and is no longer). */
      unwait: async (ctx, id) => {
        const waiters = (await ctx.get('waiters')) ?? [];
        const left = waiters.filter((w) => w.awakeable !== id);
        if (left.length === waiters.length) return false;
        ctx.set('waiters', left);
        ctx.resolveAwakeable(id, []);
        return true;
      },
      /** A worker is alive: its leases' deadlines move on; answers which to stop. */
      heartbeat: async (ctx, req) => {
        const now = await ctx.date.now();
        const claimed = (await ctx.get('claimed')) ?? {};
        const cancelled = new Set((await ctx.get('cancelled')) ?? []);
        const cancel = [];
        for (const lease of req?.leases ?? []) {
          const c = claimed[lease];
          if (!c || cancelled.has(lease)) cancel.push(lease);
          else c.deadline = now + heartbeatTimeoutMs;
        }
        ctx.set('claimed', claimed);
        return { cancel };
      },
      complete: async (ctx, req) => answer(ctx, req?.lease, { kind: ANSWER.OUTPUT, output: req?.output ?? null }),
      fail: async (ctx, req) => answer(ctx, req?.lease, {
        kind: ANSWER.FAIL, code: String(req?.code ?? 'WORKER_ERROR'), message: String(req?.message ?? ''),
        retryable: req?.retryable !== false,
      }),
      /** The delayed call of a claim: a lease whose deadline passed is a lost worker. */
      check: async (ctx, lease) => {
        const claimed = (await ctx.get('claimed')) ?? {};
        const c = claimed[lease];
        if (!c) return;
        const now = await ctx.date.now();
        if (c.deadline > now) {
          ctx.objectSendClient(queueRef, ctx.key).check(lease, restate.rpc.sendOpts({ delay: c.deadline - now }));
          return;
        }
        delete claimed[lease];
        ctx.set('claimed', claimed);
        await dropCancelled(ctx, lease);
        ctx.objectSendClient(inbox, c.inbox).push({ type: 'lost', at: now, attempt: c.attempt, delivery: c.delivery });
      },
    },
  });
  const queueRef = { name: 'orbit_queue' };

  /** Hands queued tasks to the pollers waiting in line, in order. */
  async function handOut(ctx, items) {
    let waiters = (await ctx.get('waiters')) ?? [];
    const now = await ctx.date.now();
    while (waiters.length > 0 && items.length > 0) {
      const w = waiters.shift();
      ctx.resolveAwakeable(w.awakeable, await take(ctx, items, w, now));
    }
    ctx.set('items', items);
    ctx.set('waiters', waiters);
  }

  /** Takes up to `req.max` tasks out of `items` for worker `req.worker_id`: their pickup. */
  async function take(ctx, items, req, now) {
    const taken = [];
    for (let i = 0; i < items.length && taken.length < req.max;) {
      if (now - items[i].enqueued_at >= req.min_age_ms) taken.push(...items.splice(i, 1));
      else i++;
    }
    if (taken.length === 0) return [];
    const claimed = (await ctx.get('claimed')) ?? {};
    for (const item of taken) {
      const lease = leaseOf(item.inbox, item.attempt, item.delivery);
      claimed[lease] = { worker_id: req.worker_id, deadline: now + heartbeatTimeoutMs,
                         inbox: item.inbox, attempt: item.attempt, delivery: item.delivery };
      ctx.objectSendClient(inbox, item.inbox).push({ type: 'picked_up', at: now, attempt: item.attempt,
                                                       delivery: item.delivery, worker_id: req.worker_id });
      ctx.objectSendClient(queueRef, ctx.key).check(lease, restate.rpc.sendOpts({ delay: heartbeatTimeoutMs }));
    }
    ctx.set('claimed', claimed);
    return taken.map((i) => ({
      lease: leaseOf(i.inbox, i.attempt, i.delivery), task: ctx.key, step: i.step, attempt: i.number,
      input: i.input, idempotency_key: i.idempotency_key, heartbeat_timeout_ms: heartbeatTimeoutMs,
    }));
  }

  async function dropCancelled(ctx, lease) {
    const cancelled = (await ctx.get('cancelled')) ?? [];
    if (cancelled.includes(lease)) ctx.set('cancelled', cancelled.filter((l) => l !== lease));
  }

  /** A worker's answer for a lease it holds; a lease lost or unknown is refused. */
  async function answer(ctx, lease, result) {
    const claimed = (await ctx.get('claimed')) ?? {};
    const c = claimed[lease];
    if (!c) return { accepted: false };
    delete claimed[lease];
    ctx.set('claimed', claimed);
    await dropCancelled(ctx, lease);
    ctx.objectSendClient(inbox, c.inbox).push({ type: 'answered', at: await ctx.date.now(), attempt: c.attempt,
                                                 delivery: c.delivery, answer: result });
    return { accepted: true };
  }

  const http = restate.service({
    name: 'orbit_http',
    handlers: {
      /** `orbit.http.request` for one attempt; the answer goes to the execution's inbox. */
      request: async (ctx, req) => {
        // One journaled action, never retried by Restate: every failure is an answer.
        const result = await ctx.run('request', () => httpRequest(req.input), { maxRetryAttempts: 1 });
        ctx.objectSendClient(inbox, req.inbox).push({ type: 'answered', at: await ctx.date.now(),
                                                       attempt: req.attempt, delivery: req.delivery, answer: result });
      },
    },
  });

  const served = workflows.map((name) => restate.workflow({
    name,
    handlers: {
      run: async (ctx, input) => runExecution(ctx, name, input ?? {}),
      /** A signal for the execution: `{"name": "...", "payload": ...}`. */
      signal: async (ctx, req) => {
        if (typeof req?.name !== 'string') throw new TerminalError('a signal needs a "name"');
        ctx.objectSendClient(inbox, inboxKey(name, ctx.key)).push({
          type: 'signal', at: await ctx.date.now(), name: req.name, payload: req.payload ?? null });
      },
      /** The execution's history so far, as `orbit logs` lines. */
      history: async (ctx) => (await ctx.get('history')) ?? [],
      /** When the execution's clock started (real milliseconds since 1970), or null. */
      started: async (ctx) => (await ctx.get('started_at')) ?? null,
    },
  }));

  /** One execution of `workflow`: the engine's event loop. */
  async function runExecution(ctx, workflow, input) {
    const key = inboxKey(workflow, ctx.key);
    let engine;
    try {
      engine = await OrbitEngine.open(core, orbc, workflow, input);
    } catch (e) {
      throw new TerminalError(e.message);
    }
    try {
      return await loop(ctx, engine, key);
    } finally {
      engine.close();
    }
  }

  async function loop(ctx, engine, key) {
    const start = await ctx.date.now();
    ctx.set('started_at', start);
    const orbitTime = (real) => Math.max(0, Math.floor((real - start) * timeScale));
    const timers = [];            // the engine's: {timer, time, limit, seq}
    const pending = [];           // events not yet handed to the engine: {time, seq, ...}
    const tasks = new Map();      // attempt -> task name (to cancel it in its queue)
    const history = [];
    let seq = 0, now = 0, finished = null, saved = 0;

    const carryOut = () => {
      const queued = new Map();   // task -> the attempts this event queues for it
      for (const c of engine.commands()) {
        if (c.kind === 'record') history.push(c.text);
        else if (c.kind === 'timer') timers.push({ type: 'timer', timer: c.timer, time: c.at_ms, limit: c.limit, seq: seq++ });
        else if (c.kind === 'queue') queueAttempt(c, queued);
        else if (c.kind === 'cancel') {
          const task = tasks.get(c.attempt);
          flush(queued);
          if (task && !task.startsWith('orbit.')) ctx.objectSendClient(queue, task).cancel({ inbox: key, attempt: c.attempt });
        } else if (c.kind === 'finished') finished = c;
      }
      flush(queued);
    };
    // The attempts queued so far, one call per task (a cancel goes after them, in order).
    const flush = (queued) => {
      for (const [task, items] of queued) ctx.objectSendClient(queue, task).enqueue({ items });
      queued.clear();
    };
    const queueAttempt = (c, queued) => {
      tasks.set(c.attempt, c.task);
      if (c.task.startsWith('orbit.')) {
        // A built-in task is the host's own: picked up at once by `orbit-runtime`.
        pending.push({ type: 'picked_up', time: now, seq: seq++, attempt: c.attempt, delivery: c.delivery,
                       worker_id: 'orbit-runtime', builtin: c });
        return;
      }
      if (!queued.has(c.task)) queued.set(c.task, []);
      queued.get(c.task).push({ inbox: key, attempt: c.attempt, delivery: c.delivery, number: c.number,
                                step: c.step, input: c.input, idempotency_key: c.idempotency_key });
    };
    const handle = (e) => {
      if (DEBUG) ctx.console.log(`orbit ${key} handle ${JSON.stringify(e)}`);
      now = Math.max(now, e.time);
      if (e.type === 'timer') return engine.timerFired(e.time, e.timer);
      if (e.type === 'signal') return engine.signal(e.time, e.name, e.payload);
      if (e.type === 'lost') return engine.workerLost(e.time, e.attempt, e.delivery);
      if (e.type === 'answered') return engine.answered(e.time, e.attempt, e.delivery, e.answer);
      const accepted = engine.pickedUp(e.time, e.attempt, e.delivery, e.worker_id);
      if (accepted && e.builtin) {
        ctx.serviceSendClient(http).request({ inbox: key, attempt: e.attempt, delivery: e.delivery, input: e.builtin.input });
      }
      return accepted;
    };
    // The next thing due at `upTo` or before: timers by time, then limits last, then the
    // order set (docs/engine.md "Time"); the world's events take their place by time.
    const next = (upTo) => {
      let best = null, from = null;
      for (const list of [timers, pending]) {
        for (const t of list) {
          if (t.time > upTo) continue;
          const lim = !!t.limit, bl = best && !!best.limit;
          if (!best || t.time < best.time || (t.time === best.time && (lim !== bl ? !lim : t.seq < best.seq))) {
            best = t; from = list;
          }
        }
      }
      if (best) from.splice(from.indexOf(best), 1);
      return best;
    };
    const save = () => {
      if (history.length !== saved) {
        ctx.set('history', history);
        saved = history.length;
      }
    };

    engine.start();
    carryOut();
    let waiting = null;            // the awakeable the inbox resolves with the next events
    while (!finished) {
      const real = await ctx.date.now();
      if (DEBUG) ctx.console.log(`orbit ${key} at ${orbitTime(real)} timers ${JSON.stringify(timers)} pending ${pending.length}`);
      for (let e = next(orbitTime(real)); e && !finished; e = next(orbitTime(real))) {
        handle(e);
        carryOut();
      }
      save();
      if (finished) break;
      if (!waiting) {
        waiting = ctx.awakeable();
        ctx.objectSendClient(inbox, key).wait(waiting.id);
      }
      const due = Math.min(...timers.map((t) => t.time), ...pending.map((t) => t.time));
      let events;
      if (Number.isFinite(due)) {
        const delay = Math.min(MAX_SLEEP_MS, Math.max(1, Math.ceil(start + due / timeScale - real)));
        events = await RestatePromise.race([waiting.promise, ctx.sleep(delay)]);
      } else {
        events = await waiting.promise;
      }
      if (Array.isArray(events)) {
        waiting = null;
        for (const e of events) pending.push({ ...e, time: orbitTime(e.at), seq: seq++ });
      }
    }
    save();
    ctx.objectSendClient(inbox, key).clear();
    const { kind, ...result } = finished;
    ctx.set('result', result);
    return result;
  }

  return [inbox, queue, http, ...served];
}

/** `orbit.http.request` itself: an answer for the engine, never an exception. */
async function httpRequest(input) {
  try {
    const url = new URL(input.url);
    for (const [name, value] of Object.entries(input.query ?? {})) url.searchParams.append(name, String(value));
    const headers = { ...(input.headers ?? {}) };
    let body;
    if (input.body !== undefined && input.body !== null) {
      body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      if (typeof input.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    const response = await fetch(url, { method: input.method ?? 'GET', headers, body,
                                        signal: AbortSignal.timeout(60000) });
    const text = await response.text();
    let parsed = text.length ? text : null;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try { parsed = JSON.parse(text); } catch { /* the text itself */ }
    }
    const output = { status: response.status, headers: Object.fromEntries(response.headers), body: parsed };
    return { kind: ANSWER.HTTP_RESPONSE, status: response.status, output };
  } catch (e) {
    return { kind: ANSWER.NETWORK_ERROR, message: String(e?.cause?.message ?? e?.message ?? e) };
  }
}
