// The Restate host of Orbit's engine core (docs/restate.md). Three kinds of Restate
// services, built for one `.orbc` program:
//
//   - one workflow service per Orbit workflow (named after it): `run` drives the engine
//     core (hosts/wasm) for one execution, keyed by the execution's ID; `signal` and
//     `history` are its shared handlers;
//   - `orbit_inbox`, a virtual object per execution: the events of the world (pickups,
//     answers, lost workers, signals) in arrival order, handed to `run` through an
//     awakeable, so that they come back to it as journaled results;
//   - `orbit_queue`, the durable task queue of each task name that workers poll (the worker
//     protocol: poll, heartbeat, complete, fail), sharded over a few virtual object keys
//     (`TASK~0` …), each of which detects its lost workers with a delayed call to itself;
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

/** The keys of a task's queue, one per shard: `TASK~0`, `TASK~1`, … */
export function shardKeys(task, shards) {
  return Array.from({ length: shards }, (_, k) => `${task}~${k}`);
}

/** The task of a queue key (`TASK~K`). */
function taskOf(key) {
  const i = key.lastIndexOf('~');
  return i < 0 ? key : key.slice(0, i);
}

/** The queue key of `task` for the execution whose inbox is `inbox` (FNV-1a of it). */
export function shardOf(task, inbox, shards) {
  let h = 0x811c9dc5;
  for (let i = 0; i < inbox.length; i++) h = Math.imul(h ^ inbox.charCodeAt(i), 0x01000193) >>> 0;
  return `${task}~${h % shards}`;
}

/** A task's lease, what a worker holds while it works: `INBOX|ATTEMPT|DELIVERY`. */
function leaseOf(inbox, attempt, delivery) {
  return `${inbox}|${attempt}|${delivery}`;
}

// The longest sleep asked of Restate at once; a later due time is slept towards again.
const DEBUG = !!process.env.ORBIT_RESTATE_DEBUG;
const MAX_SLEEP_MS = 7 * 24 * 3600 * 1000;
// The awakeables an execution gives its inbox at once (one `wait` call for that many batches).
const WAIT_AHEAD = 4;

/**
 * The services of one program.
 * @param {object} o
 * @param {() => Promise<object>} o.core  the engine core's factory (wasm.mjs loadCore)
 * @param {Uint8Array} o.orbc             the program
 * @param {string[]} o.workflows          its workflows, each served as a workflow service
 * @param {number} [o.timeScale]          Orbit milliseconds per real millisecond (1)
 * @param {number} [o.heartbeatTimeoutMs] a claimed task whose worker is silent this long is lost
 * @param {number} [o.queueShards]        the keys each task's queue is sharded over (4)
 */
export function services({ core, orbc, workflows, timeScale = 1, heartbeatTimeoutMs = 5000, queueShards = 4 }) {
  const inbox = restate.object({
    name: 'orbit_inbox',
    handlers: {
      /** An event of the world; handed to the waiting execution at once, or kept. */
      push: async (ctx, event) => {
        const events = (await ctx.get('events')) ?? [];
        events.push(event);
        await handOver(ctx, (await ctx.get('waiters')) ?? [], events);
      },
      /**
       * The execution's next awakeables, `ids`, in the order it waits on them: each is
       * resolved with the events that arrive, one batch each (a few at once save a call
       * per event).
       */
      wait: async (ctx, ids) => {
        const waiters = (await ctx.get('waiters')) ?? [];
        await handOver(ctx, waiters.concat(ids), (await ctx.get('events')) ?? []);
      },
      /** The execution is over: nothing is kept. */
      clear: async (ctx) => {
        ctx.clearAll();
      },
    },
  });

  // A task's queue is sharded over `queueShards` keys (shardKeys): an execution's attempts
  // all go to one shard (shardOf), so they keep their order; a worker polls every shard.
  // Each queued item, claim and lease is its own state key, so that no call rewrites the
  // whole queue:
  //   head, tail        the positions of the queue; `q:N` the item at N (cleared when it
  //                     leaves), `at:INBOX|ATTEMPT` its position
  //   c:LEASE           a claimed task: {worker_id, deadline, inbox, attempt, delivery, cancelled}
  //   l:INBOX|ATTEMPT   the lease of an attempt's claim (to cancel it)
  //   waiters           the polls waiting in line; `sweep`: when the lost-worker sweep is due
  /** The events kept go to the first awakeable waiting, if any. */
  async function handOver(ctx, waiters, events) {
    if (events.length > 0 && waiters.length > 0) {
      ctx.resolveAwakeable(waiters.shift(), events);
      events = [];
    }
    ctx.set('waiters', waiters);
    ctx.set('events', events);
  }

  const queue = restate.object({
    name: 'orbit_queue',
    handlers: {
      /** Attempts queued by one event of an execution, together: `{items: [...]}`. */
      enqueue: async (ctx, req) => {
        const now = await ctx.date.now();
        let tail = (await ctx.get('tail')) ?? 0;
        for (const item of req.items) {
          ctx.set(`q:${tail}`, { ...item, enqueued_at: now });
          ctx.set(`at:${item.inbox}|${item.attempt}`, tail++);
        }
        ctx.set('tail', tail);
        await handOut(ctx, now);
      },
      /** The engine no longer wants the attempt: unqueued, or on the cancellation list. */
      cancel: async (ctx, { inbox: key, attempt }) => {
        await unqueue(ctx, key, attempt);
        const lease = await ctx.get(`l:${key}|${attempt}`);
        const c = lease && await ctx.get(`c:${lease}`);
        if (c) ctx.set(`c:${lease}`, { ...c, cancelled: true });
      },
      /**
       * The execution's queue timeout of a first delivery is due: the queue settles the
       * race with a claim. `{expired: true}`: it was still queued, and is no more (no claim
       * can take it now); `{expired: false}`: a worker claimed it in time, and its pickup
       * is on its way to the execution (which hands it to the engine before the timeout).
       */
      expire: async (ctx, { inbox: key, attempt }) => ({ expired: await unqueue(ctx, key, attempt) }),
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
      /** The keys of this queue's task, to poll in turn: `{keys: ["TASK~0", …]}`. */
      shards: restate.handlers.object.shared(async (ctx) => ({ keys: shardKeys(taskOf(ctx.key), queueShards) })),
      /** The exclusive half of `poll`: tasks for the poller now, or it waits in line. */
      claim: async (ctx, req) => {
        const now = await ctx.date.now();
        const tasks = await take(ctx, req, now);
        if (tasks.length > 0 || !req.wait || req.min_age_ms > 0) {
          ctx.resolveAwakeable(req.awakeable, tasks);
          return;
        }
        const waiters = (await ctx.get('waiters')) ?? [];
        waiters.push(req);
        ctx.set('waiters', waiters);
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
        const cancel = [];
        for (const lease of req?.leases ?? []) {
          const c = await ctx.get(`c:${lease}`);
          if (!c || c.cancelled) cancel.push(lease);
          else ctx.set(`c:${lease}`, { ...c, deadline: now + heartbeatTimeoutMs });
        }
        return { cancel };
      },
      complete: async (ctx, req) => answer(ctx, req?.lease, { kind: ANSWER.OUTPUT, output: req?.output ?? null }),
      fail: async (ctx, req) => answer(ctx, req?.lease, {
        kind: ANSWER.FAIL, code: String(req?.code ?? 'WORKER_ERROR'), message: String(req?.message ?? ''),
        retryable: req?.retryable !== false,
      }),
      /**
       * The delayed call that finds lost workers: a lease whose deadline passed is lost.
       * Due at the earliest deadline (not sooner than an eighth of the heartbeat timeout
       * after the last sweep); one per shard, whatever the number of claims.
       */
      sweep: async (ctx) => {
        const now = await ctx.date.now();
        let due = Infinity;
        for (const k of await ctx.stateKeys()) {
          if (!k.startsWith('c:')) continue;
          const c = await ctx.get(k);
          if (c.deadline > now) {
            due = Math.min(due, c.deadline);
            continue;
          }
          release(ctx, k.slice(2), c);
          ctx.objectSendClient(inbox, c.inbox).push({ type: 'lost', at: now, attempt: c.attempt, delivery: c.delivery });
        }
        ctx.clear('sweep');
        if (Number.isFinite(due)) sweepAt(ctx, Math.max(due, now + heartbeatTimeoutMs / 8), now);
      },
    },
  });
  const queueRef = { name: 'orbit_queue' };

  /** The next sweep for lost workers, at `at` (real ms). */
  function sweepAt(ctx, at, now) {
    ctx.set('sweep', at);
    ctx.objectSendClient(queueRef, ctx.key).sweep(restate.rpc.sendOpts({ delay: Math.max(1, Math.ceil(at - now)) }));
  }

  /** Takes attempt `attempt` of `key` out of the queue: true if it was there. */
  async function unqueue(ctx, key, attempt) {
    const n = await ctx.get(`at:${key}|${attempt}`);
    if (n === null || n === undefined) return false;
    ctx.clear(`q:${n}`);
    ctx.clear(`at:${key}|${attempt}`);
    return true;
  }

  /** A claim is over (answered or lost). */
  function release(ctx, lease, c) {
    ctx.clear(`c:${lease}`);
    ctx.clear(`l:${c.inbox}|${c.attempt}`);
  }

  /** Hands queued tasks to the pollers waiting in line, in order. */
  async function handOut(ctx, now) {
    const waiters = (await ctx.get('waiters')) ?? [];
    let served = 0;
    for (; served < waiters.length; served++) {
      const tasks = await take(ctx, waiters[served], now);
      if (tasks.length === 0) break;
      ctx.resolveAwakeable(waiters[served].awakeable, tasks);
    }
    if (served > 0) ctx.set('waiters', waiters.slice(served));
  }

  /**
   * Takes up to `req.max` tasks from the head of the queue for worker `req.worker_id`:
   * their pickup. An item whose queue timeout has passed (`expires_at`, real ms) is never
   * taken: it stays until the execution's `expire` takes it out.
   */
  async function take(ctx, req, now) {
    let head = (await ctx.get('head')) ?? 0;
    const tail = (await ctx.get('tail')) ?? 0;
    const taken = [];
    for (let n = head; n < tail && taken.length < req.max; n++) {
      const item = await ctx.get(`q:${n}`);
      if (item && item.expires_at !== undefined && now >= item.expires_at) continue;
      if (item && now - item.enqueued_at < req.min_age_ms) break;   // the rest are younger
      if (item) {
        ctx.clear(`q:${n}`);
        ctx.clear(`at:${item.inbox}|${item.attempt}`);
        taken.push(item);
      }
      if (n === head) head++;
    }
    ctx.set('head', head);
    if (taken.length === 0) return [];
    if (!(await ctx.get('sweep'))) sweepAt(ctx, now + heartbeatTimeoutMs, now);
    const task = taskOf(ctx.key);
    return taken.map((item) => {
      const lease = leaseOf(item.inbox, item.attempt, item.delivery);
      ctx.set(`c:${lease}`, { worker_id: req.worker_id, deadline: now + heartbeatTimeoutMs,
                              inbox: item.inbox, attempt: item.attempt, delivery: item.delivery });
      ctx.set(`l:${item.inbox}|${item.attempt}`, lease);
      ctx.objectSendClient(inbox, item.inbox).push({ type: 'picked_up', at: now, attempt: item.attempt,
                                                       delivery: item.delivery, worker_id: req.worker_id });
      return { lease, queue: ctx.key, task, step: item.step, attempt: item.number, input: item.input,
               idempotency_key: item.idempotency_key, heartbeat_timeout_ms: heartbeatTimeoutMs };
    });
  }

  /** A worker's answer for a lease it holds; a lease lost or unknown is refused. */
  async function answer(ctx, lease, result) {
    const c = await ctx.get(`c:${lease}`);
    if (!c) return { accepted: false };
    release(ctx, lease, c);
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
    // The queue timeouts of first deliveries, by timer and by attempt: {attempt, shard,
    // item, done (picked up or cancelled: nothing to settle), held (the timer, waiting
    // for the pickup that won the race)}.
    const queueTimers = new Map(), queueTimerOf = new Map();
    const history = [];
    let seq = 0, now = 0, finished = null, saved = 0;

    const carryOut = () => {
      const queued = new Map();   // task -> the attempts this event queues for it
      for (const c of engine.commands()) {
        if (c.kind === 'record') history.push(c.text);
        else if (c.kind === 'timer') {
          // A queue timeout (it follows its attempt's queue command): no claim may take
          // the task after its millisecond, the queue's `expires_at`, in real time.
          const q = queueTimers.get(c.timer);
          if (q?.item) q.item.expires_at = start + (c.at_ms + 1) / timeScale;
          timers.push({ type: 'timer', timer: c.timer, time: c.at_ms, limit: c.limit, seq: seq++ });
        } else if (c.kind === 'queue') queueAttempt(c, queued);
        else if (c.kind === 'cancel') {
          const task = tasks.get(c.attempt);
          flush(queued);
          const q = queueTimerOf.get(c.attempt);
          if (q) q.done = true;
          if (task && !task.startsWith('orbit.')) ctx.objectSendClient(queue, shardOf(task, key, queueShards)).cancel({ inbox: key, attempt: c.attempt });
        } else if (c.kind === 'finished') finished = c;
      }
      flush(queued);
    };
    // The attempts queued so far, one call per queue key (a cancel goes after them, in order).
    const flush = (queued) => {
      for (const [shard, items] of queued) ctx.objectSendClient(queue, shard).enqueue({ items });
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
      const shard = shardOf(c.task, key, queueShards);
      const item = { inbox: key, attempt: c.attempt, delivery: c.delivery, number: c.number,
                     step: c.step, input: c.input, idempotency_key: c.idempotency_key };
      if (!queued.has(shard)) queued.set(shard, []);
      queued.get(shard).push(item);
      if (c.queue_timer) {
        const q = { attempt: c.attempt, shard, item, done: false, held: null };
        queueTimers.set(c.queue_timer, q);
        queueTimerOf.set(c.attempt, q);
      }
    };
    // A queue timeout is due and its attempt was not seen picked up: the queue settles the
    // race. Still queued: it is taken out, and the timeout fires. Claimed in time: the
    // timer waits for the pickup (on its way from the queue), which the engine gets first.
    const settle = async (e) => {
      const q = queueTimers.get(e.timer);
      if (!q || q.done) return true;
      q.done = true;
      const { expired } = await ctx.objectClient(queue, q.shard).expire({ inbox: key, attempt: q.attempt });
      if (expired) return true;
      q.held = e;
      return false;
    };
    const arrived = (e) => {
      const q = e.type === 'picked_up' && e.delivery === 1 ? queueTimerOf.get(e.attempt) : null;
      if (q) {
        q.done = true;
        if (q.held) timers.push(q.held);
        q.held = null;
      }
      pending.push(e);
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
    const waiting = [];            // the awakeables the inbox resolves with the next events, in order
    while (!finished) {
      const real = await ctx.date.now();
      if (DEBUG) ctx.console.log(`orbit ${key} at ${orbitTime(real)} timers ${JSON.stringify(timers)} pending ${pending.length}`);
      for (let e = next(orbitTime(real)); e && !finished; e = next(orbitTime(real))) {
        if (e.type === 'timer' && !(await settle(e))) continue;
        handle(e);
        carryOut();
      }
      save();
      if (finished) break;
      if (waiting.length === 0) {
        for (let i = 0; i < WAIT_AHEAD; i++) waiting.push(ctx.awakeable());
        ctx.objectSendClient(inbox, key).wait(waiting.map((a) => a.id));
      }
      const due = Math.min(...timers.map((t) => t.time), ...pending.map((t) => t.time));
      let events;
      if (Number.isFinite(due)) {
        const delay = Math.min(MAX_SLEEP_MS, Math.max(1, Math.ceil(start + due / timeScale - real)));
        events = await RestatePromise.race([waiting[0].promise, ctx.sleep(delay)]);
      } else {
        events = await waiting[0].promise;
      }
      if (Array.isArray(events)) {
        waiting.shift();
        for (const e of events) arrived({ ...e, time: orbitTime(e.at), seq: seq++ });
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
