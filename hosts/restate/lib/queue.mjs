// `orbit_queue_PROGRAM`, the durable task queue of each task name that workers poll (the worker
// protocol of docs/restate.md, "Workers": poll, heartbeat, complete, fail). A task's
// queue is sharded over a few virtual object keys per version of the program (names.mjs
// shardKeys: `TASK@VERSION~0` …): an
// execution's attempts all go to one shard (shardOf), so they keep their order; a worker
// polls every shard. Each shard finds its lost workers with a delayed call to itself
// (`sweep`). What happens to a task goes to its execution as an event of the world — its
// pickup, then its answer or its worker lost — by resolving the awakeables the execution
// queued with it (`pickup`, `outcome`): no call of the execution's inbox (inbox.mjs).
//
// Each delivery is one state key from its enqueue to its answer — queued, then claimed —
// so that no call rewrites another's, and a step costs the shard few state writes:
//   t:CLAIM           a delivery (CLAIM: names.mjs claimOf, `INBOX|ATTEMPT|DELIVERY`):
//                     queued, the item the execution sent and `enqueued_at`; claimed (taken
//                     by a poll), {claimed: true, worker_id, deadline, inbox, attempt,
//                     delivery, token, outcome, outcome_seal, cancelled} (no input)
//   order             the CLAIMs queued, oldest first
//   waiters           the polls waiting in line; `sweep`: when the lost-worker sweep is due
//
// Security (docs/restate.md, "Security"): the handlers only Restate calls (enqueue,
// cancel, expire, claim, unwait, sweep) are private to it (`ingressPrivate`: the ingress
// refuses them); those of the worker protocol (shards, poll, heartbeat, complete, fail)
// ask for the workers' shared token when `serve` has one (`authorization: Bearer TOKEN`,
// compared in constant time), and a task is answered only with its lease, which carries
// a random token drawn for its delivery. Bad input is a terminal error (400), never an
// exception Restate would retry while the shard waits behind it.
import * as restate from '@restatedev/restate-sdk';
import { completed, failed } from './answer.mjs';
import {
  claimOf,
  leaseOf,
  newToken,
  parseLease,
  sameSecret,
  shardKeys,
  shortVersion,
  taskOf,
  tokenOf,
  versionOfKey,
} from './names.mjs';

const { TerminalError } = restate;

/** A request the handler refuses: a terminal error with an HTTP status (400 unless told). */
export function refuse(message, errorCode = 400) {
  return new TerminalError(message, { errorCode });
}

/** A handler only Restate itself may call (the ingress refuses it). */
const internal = (fn) => restate.handlers.object.exclusive({ ingressPrivate: true }, fn);

const isIndex = (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32;

/** Refuses a call without the workers' token, when there is one (`serve --worker-token-file`). */
export function checkWorker(ctx, workerToken) {
  if (!workerToken) return;
  const given = ctx.request().headers.get('authorization') ?? '';
  if (!sameSecret(given, `Bearer ${workerToken}`))
    throw refuse("the worker protocol needs the workers' token (authorization: Bearer TOKEN)", 401);
}

/**
 * The queue service of a program.
 * @param {object} o
 * @param {object} o.names              the program's services (names.mjs programServices)
 * @param {string[]} o.versions         the hashes of the versions served, oldest first
 * @param {number} o.heartbeatTimeoutMs a claimed task whose worker is silent this long is lost
 * @param {number} [o.pickupTimeoutMs]  a task handed to a poll whose worker has not heartbeated
 *                                      it yet is lost after this long (a dead poll's)
 * @param {number} o.queueShards        the keys each task's queue is sharded over
 * @param {string} [o.workerToken]      the workers' shared token (none: the protocol is open)
 * @param {number} [o.maxValueBytes]    the largest output a worker may answer (JSON bytes)
 */
export function queueService({
  names,
  versions,
  heartbeatTimeoutMs,
  pickupTimeoutMs = heartbeatTimeoutMs,
  queueShards,
  workerToken = null,
  maxValueBytes = Infinity,
}) {
  const { INBOX, QUEUE } = names;
  const sweepAt = (ctx, at, now) => {
    ctx.set('sweep', at);
    ctx.objectSendClient(QUEUE, ctx.key).sweep(restate.rpc.sendOpts({ delay: Math.max(1, Math.ceil(at - now)) }));
  };
  // The claim a lease names, if the lease's token is the claim's: null for a lease that
  // is forged, answered already, or lost.
  const claimed = async (ctx, lease) => {
    const l = parseLease(lease);
    if (!l) throw refuse('"lease" must be a lease a poll handed out');
    const c = await ctx.get(`t:${l.claim}`);
    return c?.claimed && sameSecret(c.token ?? '', l.token) ? { claim: l.claim, c } : null;
  };
  const take = (ctx, req, clock, order) =>
    takeTasks(ctx, req, clock, { INBOX, heartbeatTimeoutMs, pickupTimeoutMs, sweepAt }, order);
  // A worker's answer (`complete`, `fail`), and with `next: N` up to N more tasks of this
  // shard for the slot it frees, in the same call: at saturation a worker's next tasks
  // cost no poll (a shared call and its exclusive claim) and no call of its own.
  const answer = async (ctx, req, result) => {
    const next = nextOf(req);
    const clock = next > 0 ? await clockOf(ctx) : { now: await ctx.date.now() };
    const found = await claimed(ctx, req?.lease);
    if (found) {
      release(ctx, found.claim);
      tell(ctx, INBOX, found.c, found.c.outcome, found.c.outcome_seal, {
        type: 'answered',
        at: clock.now,
        answer: result,
      });
    }
    if (next === 0) return { accepted: !!found };
    const tasks = await take(ctx, { worker_id: workerIdOf(req), max: next, min_age_ms: 0 }, clock);
    return { accepted: !!found, tasks };
  };
  return restate.object({
    name: QUEUE.name,
    handlers: {
      /** Attempts queued by one event of an execution, together: `{items: [...]}`. */
      enqueue: internal(async (ctx, req) => {
        if (
          !Array.isArray(req?.items) ||
          !req.items.every(
            (i) =>
              typeof i?.inbox === 'string' &&
              isIndex(i.attempt) &&
              typeof i.pickup === 'string' &&
              typeof i.outcome === 'string' &&
              typeof i.pickup_seal === 'string' &&
              typeof i.outcome_seal === 'string',
          )
        )
          throw refuse('enqueue needs {"items": [{inbox, attempt, pickup, outcome, pickup_seal, outcome_seal, ...}]}');
        const clock = await clockOf(ctx);
        const order = (await ctx.get('order')) ?? [];
        for (const item of req.items) {
          const claim = claimOf(item.inbox, item.attempt, item.delivery);
          ctx.set(`t:${claim}`, { ...item, enqueued_at: clock.now });
          order.push(claim);
        }
        await handOut(ctx, clock, take, order);
        ctx.set('order', order);
      }),
      /** The engine no longer wants the attempt: unqueued, or on the cancellation list. */
      cancel: internal(async (ctx, req) => {
        // Its last delivery (the execution says which delivery it queued last).
        const claim = deliveryOf(req);
        if (await unqueue(ctx, claim)) return;
        const c = await ctx.get(`t:${claim}`);
        if (c?.claimed) ctx.set(`t:${claim}`, { ...c, cancelled: true });
      }),
      /**
       * The execution's queue timeout of a first delivery is due: the queue settles the
       * race with a claim. `{expired: true}`: it was still queued, and is no more (no claim
       * can take it now); `{expired: false}`: a worker claimed it in time, and its pickup
       * is on its way to the execution (which hands it to the engine before the timeout).
       */
      expire: internal(async (ctx, req) => ({ expired: await unqueue(ctx, deliveryOf(req)) })),
      /**
       * A worker asks for up to `max` tasks (a long poll: it waits up to `wait_ms`, 20 s
       * by default, for one to be queued); `min_age_ms`: only tasks queued that long ago,
       * without waiting. Taking a task is its pickup.
       * @returns {{tasks: object[]}}
       */
      poll: restate.handlers.object.shared(async (ctx, req) => {
        checkWorker(ctx, workerToken);
        const workerId = workerIdOf(req);
        const waitMs = Math.max(0, Math.min(60000, Number(req?.wait_ms ?? 20000) || 0));
        const { id, promise } = ctx.awakeable();
        ctx.objectSendClient(QUEUE, ctx.key).claim({
          worker_id: workerId,
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
        checkWorker(ctx, workerToken);
        const only = versionOfKey(ctx.key);
        const chosen = only === null ? versions : versions.filter((v) => shortVersion(v) === only);
        return { keys: chosen.flatMap((v) => shardKeys(taskOf(ctx.key), v, queueShards)) };
      }),
      /** The exclusive half of `poll`: tasks for the poller now, or it waits in line. */
      claim: internal(async (ctx, req) => {
        if (typeof req?.awakeable !== 'string') throw refuse('claim needs an awakeable');
        const tasks = await take(ctx, req, await clockOf(ctx));
        if (tasks.length > 0 || !req.wait || req.min_age_ms > 0) {
          ctx.resolveAwakeable(req.awakeable, tasks);
          return;
        }
        const waiters = (await ctx.get('waiters')) ?? [];
        waiters.push(req);
        ctx.set('waiters', waiters);
      }),
      /** A poller gives up waiting: true if it was still in line (and is no longer). */
      unwait: internal(async (ctx, id) => {
        const waiters = (await ctx.get('waiters')) ?? [];
        const left = waiters.filter((w) => w.awakeable !== id);
        if (left.length === waiters.length) return false;
        ctx.set('waiters', left);
        ctx.resolveAwakeable(id, []);
        return true;
      }),
      /**
       * A worker is alive: its leases' deadlines move on; answers which to stop (those
       * cancelled, and those that are not its claims any more — or never were).
       */
      heartbeat: async (ctx, req) => {
        checkWorker(ctx, workerToken);
        const leases = req?.leases;
        if (!Array.isArray(leases) || leases.length > 10000 || !leases.every((l) => typeof l === 'string'))
          throw refuse('heartbeat needs {"leases": [LEASE, ...]}, the leases a poll handed out');
        const now = await ctx.date.now();
        const cancel = [];
        for (const lease of leases) {
          const found = parseLease(lease) ? await claimed(ctx, lease) : null;
          if (!found || found.c.cancelled) cancel.push(lease);
          else ctx.set(`t:${found.claim}`, { ...found.c, deadline: now + heartbeatTimeoutMs });
        }
        return { cancel };
      },
      /**
       * A task's output: `{lease, output}`. An output larger than `--max-value-bytes` is
       * the attempt's failure (OUTPUT_TOO_LARGE, not retryable), never a value that
       * would break the execution's journal (answer.mjs).
       */
      complete: async (ctx, req) => {
        checkWorker(ctx, workerToken);
        const { answer: a, error } = completed(req, maxValueBytes);
        const r = await answer(ctx, req, a);
        return error ? { ...r, error } : r;
      },
      fail: async (ctx, req) => {
        checkWorker(ctx, workerToken);
        const f = failed(req);
        if (f.refused) throw refuse(f.refused);
        return answer(ctx, req, f.answer);
      },
      /**
       * The delayed call that finds lost workers: a lease whose deadline passed is lost.
       * Due at the earliest deadline (not sooner than an eighth of the heartbeat timeout
       * after the last sweep); one per shard, whatever the number of claims.
       */
      sweep: internal(async (ctx) => {
        const now = await ctx.date.now();
        let due = Infinity;
        for (const k of await ctx.stateKeys()) {
          if (!k.startsWith('t:')) continue;
          const c = await ctx.get(k);
          if (!c.claimed) continue;
          if (c.deadline > now) {
            due = Math.min(due, c.deadline);
            continue;
          }
          release(ctx, k.slice(2));
          tell(ctx, INBOX, c, c.outcome, c.outcome_seal, { type: 'lost', at: now });
        }
        ctx.clear('sweep');
        if (Number.isFinite(due))
          sweepAt(ctx, Math.max(due, now + Math.min(heartbeatTimeoutMs / 8, pickupTimeoutMs / 2)), now);
      }),
    },
  });
}

/**
 * The time of an exclusive call that may hand out tasks, and the random seed of the
 * leases it hands out (names.mjs tokenOf), in one journaled action: one round trip to
 * the server where the time and the tokens took one each.
 */
function clockOf(ctx) {
  return ctx.run('clock', () => ({ now: Date.now(), seed: newToken() }));
}

/** The `worker_id` of a worker's call, checked ("worker" when it names none). */
function workerIdOf(req) {
  const id = req?.worker_id;
  if (id !== undefined && (typeof id !== 'string' || id.length > 200))
    throw refuse('"worker_id" must be a text of at most 200 characters');
  return id ?? 'worker';
}

/** The `next` of a worker's answer: how many more tasks it takes in the same call (0 to 100). */
function nextOf(req) {
  const next = req?.next ?? 0;
  if (!Number.isInteger(next) || next < 0 || next > 100)
    throw refuse('"next" must be a whole number of tasks from 0 to 100');
  return next;
}

/** The delivery `{inbox, attempt, delivery}` an internal call names, checked: its CLAIM. */
function deliveryOf(req) {
  if (typeof req?.inbox !== 'string' || !isIndex(req?.attempt) || !isIndex(req?.delivery))
    throw refuse('needs {"inbox": KEY, "attempt": N, "delivery": N}');
  return claimOf(req.inbox, req.attempt, req.delivery);
}

/** Takes delivery `claim` out of the queue: true if it was queued (not claimed, not gone). */
async function unqueue(ctx, claim) {
  const item = await ctx.get(`t:${claim}`);
  if (!item || item.claimed) return false;
  ctx.clear(`t:${claim}`);
  const order = (await ctx.get('order')) ?? [];
  ctx.set(
    'order',
    order.filter((c) => c !== claim),
  );
  return true;
}

/**
 * What became of a delivery (`d`: its item or claim), for its execution: the awakeable
 * the execution gave for it (`id`: its pickup's or its outcome's) resolved with `event`
 * and the awakeable's `seal`, which the execution checks (no worker ever sees a seal).
 * No call of the execution's inbox: the awakeable is resolved in this call's journal.
 */
function tell(ctx, INBOX, d, id, seal, event) {
  const e = { ...event, attempt: d.attempt, delivery: d.delivery };
  if (typeof id === 'string') ctx.resolveAwakeable(id, { seal, value: e });
  else ctx.objectSendClient(INBOX, d.inbox).push(e); // an item queued before the awakeables
}

/** A claim is over (answered or lost). */
function release(ctx, claim) {
  ctx.clear(`t:${claim}`);
}

/** Hands queued tasks (`order`, the queue read already) to the pollers waiting in line, in order. */
async function handOut(ctx, clock, take, order) {
  const waiters = (await ctx.get('waiters')) ?? [];
  let served = 0;
  for (; served < waiters.length; served++) {
    const tasks = await take(ctx, waiters[served], clock, order);
    if (tasks.length === 0) break;
    ctx.resolveAwakeable(waiters[served].awakeable, tasks);
  }
  if (served > 0) ctx.set('waiters', waiters.slice(served));
}

/**
 * Takes up to `req.max` tasks from the head of the queue for worker `req.worker_id`:
 * their pickup. An item whose queue timeout has passed (`expires_at`, real ms) is never
 * taken: it stays until the execution's `expire` takes it out. Each delivery gets a
 * lease with a token of its own (names.mjs tokenOf of the call's journaled random
 * seed); its claim is lost after
 * `pickupTimeoutMs` unless the worker heartbeats it first (a poll whose worker died
 * takes tasks nobody will do: they come back soon, not after the heartbeat timeout).
 * `given`: the queue's `order` read already by the caller, who saves it (else read and
 * saved here).
 */
async function takeTasks(ctx, req, { now, seed }, { INBOX, heartbeatTimeoutMs, pickupTimeoutMs, sweepAt }, given) {
  const order = given ?? (await ctx.get('order')) ?? [];
  const taken = [];
  const expired = []; // stay queued, in order, until the execution's `expire`
  let n = 0;
  for (; n < order.length && taken.length < req.max; n++) {
    const claim = order[n];
    const item = await ctx.get(`t:${claim}`);
    if (!item || item.claimed) continue; // gone: left out of the order
    if (item.expires_at !== undefined && now >= item.expires_at) expired.push(claim);
    else if (now - item.enqueued_at < req.min_age_ms)
      break; // the rest are younger
    else taken.push({ claim, item });
  }
  if (n > expired.length) {
    order.splice(0, n, ...expired);
    if (!given) ctx.set('order', order);
  }
  if (taken.length === 0) return [];
  const sweep = await ctx.get('sweep');
  if (!sweep || sweep > now + pickupTimeoutMs) sweepAt(ctx, now + pickupTimeoutMs, now);
  const task = taskOf(ctx.key);
  return taken.map(({ claim, item }) => {
    const token = tokenOf(seed, claim);
    const lease = leaseOf(claim, token);
    ctx.set(`t:${claim}`, {
      claimed: true,
      worker_id: req.worker_id,
      deadline: now + pickupTimeoutMs,
      inbox: item.inbox,
      attempt: item.attempt,
      delivery: item.delivery,
      token,
      outcome: item.outcome,
      outcome_seal: item.outcome_seal,
    });
    tell(ctx, INBOX, item, item.pickup, item.pickup_seal, { type: 'picked_up', at: now, worker_id: req.worker_id });
    return {
      lease,
      queue: ctx.key,
      task,
      step: item.step,
      attempt: item.number,
      input: item.input,
      idempotency_key: item.idempotency_key,
      heartbeat_timeout_ms: heartbeatTimeoutMs,
      pickup_timeout_ms: pickupTimeoutMs,
    };
  });
}
