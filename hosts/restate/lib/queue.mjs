// `orbit_queue_PROGRAM`, the durable task queue of each task name that workers poll (the worker
// protocol of docs/restate.md, "Workers": poll, heartbeat, complete, fail). A task's
// queue is sharded over a few virtual object keys per version of the program (names.mjs
// shardKeys: `TASK@VERSION~0` …): an
// execution's attempts all go to one shard (shardOf), so they keep their order; a worker
// polls every shard. Each shard finds its lost workers with a delayed call to itself
// (`sweep`). What happens to a task goes to its execution's inbox (inbox.mjs) as an event
// of the world: its pickup, its answer, its worker lost.
//
// Each queued item, claim and lease is its own state key, so that no call rewrites the
// whole queue:
//   head, tail        the positions of the queue; `q:N` the item at N (cleared when it
//                     leaves), `at:INBOX|ATTEMPT` its position
//   c:LEASE           a claimed task: {worker_id, deadline, inbox, attempt, delivery, cancelled}
//   l:INBOX|ATTEMPT   the lease of an attempt's claim (to cancel it)
//   waiters           the polls waiting in line; `sweep`: when the lost-worker sweep is due
import * as restate from '@restatedev/restate-sdk';
import { ANSWER } from './wasm.mjs';
import { leaseOf, shardKeys, shortVersion, taskOf, versionOfKey } from './names.mjs';

/**
 * The queue service of a program.
 * @param {object} o
 * @param {object} o.names              the program's services (names.mjs programServices)
 * @param {string[]} o.versions         the hashes of the versions served, oldest first
 * @param {number} o.heartbeatTimeoutMs a claimed task whose worker is silent this long is lost
 * @param {number} o.queueShards        the keys each task's queue is sharded over
 */
export function queueService({ names, versions, heartbeatTimeoutMs, queueShards }) {
  const { INBOX, QUEUE } = names;
  const sweepAt = (ctx, at, now) => {
    ctx.set('sweep', at);
    ctx.objectSendClient(QUEUE, ctx.key).sweep(restate.rpc.sendOpts({ delay: Math.max(1, Math.ceil(at - now)) }));
  };
  const answer = async (ctx, lease, result) => {
    const c = await ctx.get(`c:${lease}`);
    if (!c) return { accepted: false };
    release(ctx, lease, c);
    ctx
      .objectSendClient(INBOX, c.inbox)
      .push({ type: 'answered', at: await ctx.date.now(), attempt: c.attempt, delivery: c.delivery, answer: result });
    return { accepted: true };
  };
  const take = (ctx, req, now) => takeTasks(ctx, req, now, { INBOX, heartbeatTimeoutMs, sweepAt });
  return restate.object({
    name: QUEUE.name,
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
        await handOut(ctx, now, take);
      },
      /** The engine no longer wants the attempt: unqueued, or on the cancellation list. */
      cancel: async (ctx, { inbox: key, attempt }) => {
        await unqueue(ctx, key, attempt);
        const lease = await ctx.get(`l:${key}|${attempt}`);
        const c = lease && (await ctx.get(`c:${lease}`));
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
        ctx.objectSendClient(QUEUE, ctx.key).claim({
          worker_id: String(req?.worker_id ?? 'worker'),
          max: Math.max(1, Math.min(100, Number(req?.max ?? 1) || 1)),
          min_age_ms: Number(req?.min_age_ms ?? 0) || 0,
          wait: waitMs > 0,
          awakeable: id,
        });
        try {
          return { tasks: await promise.orTimeout(waitMs + 1000) };
        } catch (e) {
          if (!(e instanceof restate.TimeoutError)) throw e;
        }
        // Still waiting: withdrawn, unless a task was handed to it in the meantime.
        if (await ctx.objectClient(QUEUE, ctx.key).unwait(id)) return { tasks: [] };
        return { tasks: await promise };
      }),
      /**
       * The keys of this queue's task, to poll in turn: `{keys: ["TASK@VERSION~0", …]}` —
       * of every version served when asked on `TASK`, of one when asked on `TASK@VERSION`.
       */
      shards: restate.handlers.object.shared(async (ctx) => {
        const only = versionOfKey(ctx.key);
        const chosen = only === null ? versions : versions.filter((v) => shortVersion(v) === only);
        return { keys: chosen.flatMap((v) => shardKeys(taskOf(ctx.key), v, queueShards)) };
      }),
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
      fail: async (ctx, req) =>
        answer(ctx, req?.lease, {
          kind: ANSWER.FAIL,
          code: String(req?.code ?? 'WORKER_ERROR'),
          message: String(req?.message ?? ''),
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
          ctx
            .objectSendClient(INBOX, c.inbox)
            .push({ type: 'lost', at: now, attempt: c.attempt, delivery: c.delivery });
        }
        ctx.clear('sweep');
        if (Number.isFinite(due)) sweepAt(ctx, Math.max(due, now + heartbeatTimeoutMs / 8), now);
      },
    },
  });
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
async function handOut(ctx, now, take) {
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
async function takeTasks(ctx, req, now, { INBOX, heartbeatTimeoutMs, sweepAt }) {
  let head = (await ctx.get('head')) ?? 0;
  const tail = (await ctx.get('tail')) ?? 0;
  const taken = [];
  for (let n = head; n < tail && taken.length < req.max; n++) {
    const item = await ctx.get(`q:${n}`);
    if (item && item.expires_at !== undefined && now >= item.expires_at) continue;
    if (item && now - item.enqueued_at < req.min_age_ms) break; // the rest are younger
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
    ctx.set(`c:${lease}`, {
      worker_id: req.worker_id,
      deadline: now + heartbeatTimeoutMs,
      inbox: item.inbox,
      attempt: item.attempt,
      delivery: item.delivery,
    });
    ctx.set(`l:${item.inbox}|${item.attempt}`, lease);
    ctx
      .objectSendClient(INBOX, item.inbox)
      .push({ type: 'picked_up', at: now, attempt: item.attempt, delivery: item.delivery, worker_id: req.worker_id });
    return {
      lease,
      queue: ctx.key,
      task,
      step: item.step,
      attempt: item.number,
      input: item.input,
      idempotency_key: item.idempotency_key,
      heartbeat_timeout_ms: heartbeatTimeoutMs,
    };
  });
}
