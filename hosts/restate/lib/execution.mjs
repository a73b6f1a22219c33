// One execution: the engine core's drive loop inside the workflow service's `run`
// handler (host.mjs). It carries out the engine's commands with Restate's primitives —
// a record into the history, a timer into the engine's due queue, an attempt into its
// task's queue shard (queue.mjs), a built-in attempt to `orbit_http` (http.mjs), a cancel
// — and hands the engine back what is due: its timers and the events of the world that
// the inbox (inbox.mjs) delivers. What is due first, ties included, is the engine's
// decision (`dueAdd`/`dueTake`, engine/timers.c); this file never orders events itself.
//
// Replay: Restate runs `run` again from its journal after a crash or a suspension, and
// the engine, a pure function of its events, is rebuilt by feeding it the same journaled
// events in the same order (docs/engine.md, "Replay").
import * as restate from '@restatedev/restate-sdk';
import { HTTP, INBOX, QUEUE, shardOf } from './names.mjs';

const { RestatePromise } = restate;

const DEBUG = !!process.env.ORBIT_RESTATE_DEBUG;
// The longest sleep asked of Restate at once; a later due time is slept towards again.
const MAX_SLEEP_MS = 7 * 24 * 3600 * 1000;
// The awakeables an execution gives its inbox at once (one `wait` call for that many batches).
const WAIT_AHEAD = 4;

export class Execution {
  /**
   * @param {object} ctx          the `run` handler's workflow context
   * @param {object} engine       the engine core (OrbitEngine of hosts/wasm/orbit-api.js), opened
   * @param {string} key          the execution's inbox (names.mjs inboxKey)
   * @param {object} o
   * @param {number} o.timeScale   Orbit milliseconds per real millisecond
   * @param {number} o.queueShards the keys each task's queue is sharded over
   */
  constructor(ctx, engine, key, { timeScale, queueShards }) {
    this.ctx = ctx;
    this.engine = engine;
    this.key = key;
    this.timeScale = timeScale;
    this.queueShards = queueShards;
    this.start = 0; // the real time of the execution's start (journaled)
    this.due = new Map(); // what is due, by the id the engine's due queue orders
    this.lastId = 0;
    this.tasks = new Map(); // attempt -> task name (to cancel it in its queue)
    // The queue timeouts of first deliveries, by timer and by attempt: {attempt, shard,
    // item, done (picked up or cancelled: nothing to settle), held (the timer, waiting
    // for the pickup that won the race)}.
    this.queueTimers = new Map();
    this.queueTimerOf = new Map();
    this.history = [];
    this.saved = 0;
    this.now = 0; // the time of the last event handed to the engine
    this.finished = null; // the engine's `finished` command
  }

  /** Runs the execution to its end: its result. */
  async run() {
    const { ctx, engine, key } = this;
    this.start = await ctx.date.now();
    ctx.set('started_at', this.start);
    engine.start();
    this.carryOut();
    const waiting = []; // the awakeables the inbox resolves with the next events, in order
    while (!this.finished) {
      const real = await ctx.date.now();
      if (DEBUG) ctx.console.log(`orbit ${key} at ${this.orbitTime(real)} due ${this.due.size}`);
      for (let e = this.next(this.orbitTime(real)); e && !this.finished; e = this.next(this.orbitTime(real))) {
        if (e.type === 'timer' && !(await this.settle(e))) continue;
        this.handle(e);
        this.carryOut();
      }
      this.save();
      if (this.finished) break;
      if (waiting.length === 0) {
        for (let i = 0; i < WAIT_AHEAD; i++) waiting.push(ctx.awakeable());
        ctx.objectSendClient(INBOX, key).wait(waiting.map((a) => a.id));
      }
      const first = engine.dueFirst();
      let events;
      if (first !== null) {
        const delay = Math.min(MAX_SLEEP_MS, Math.max(1, Math.ceil(this.start + first / this.timeScale - real)));
        events = await RestatePromise.race([waiting[0].promise, ctx.sleep(delay)]);
      } else {
        events = await waiting[0].promise;
      }
      if (Array.isArray(events)) {
        waiting.shift();
        for (const e of events) this.arrived({ ...e, time: this.orbitTime(e.at) });
      }
    }
    this.save();
    ctx.objectSendClient(INBOX, key).clear();
    const { kind, ...result } = this.finished;
    ctx.set('result', result);
    return result;
  }

  /** Orbit time (ms from the start) of a real time. */
  orbitTime(real) {
    return Math.max(0, Math.floor((real - this.start) * this.timeScale));
  }

  /** Something due at `e.time` (a `limit` timer after the rest of its millisecond). */
  add(e) {
    const id = ++this.lastId;
    this.due.set(id, e);
    this.engine.dueAdd(e.time, !!e.limit, id);
  }

  /** The next thing due at `upTo` or before, in the engine's order, taken out; or null. */
  next(upTo) {
    const id = this.engine.dueTake(upTo);
    if (!id) return null;
    const e = this.due.get(id);
    this.due.delete(id);
    return e;
  }

  /** Carries out the commands of the last event. */
  carryOut() {
    const queued = new Map(); // shard -> the attempts this event queues on it
    for (const c of this.engine.commands()) {
      if (c.kind === 'record') this.history.push(c.text);
      else if (c.kind === 'timer') this.startTimer(c);
      else if (c.kind === 'queue') this.queueAttempt(c, queued);
      else if (c.kind === 'cancel') this.cancelAttempt(c, queued);
      else if (c.kind === 'finished') this.finished = c;
    }
    this.flush(queued);
  }

  startTimer(c) {
    // A queue timeout (it follows its attempt's queue command): no claim may take the
    // task after its millisecond, the queue's `expires_at`, in real time.
    const q = this.queueTimers.get(c.timer);
    if (q?.item) q.item.expires_at = this.start + (c.at_ms + 1) / this.timeScale;
    this.add({ type: 'timer', timer: c.timer, time: c.at_ms, limit: c.limit });
  }

  queueAttempt(c, queued) {
    this.tasks.set(c.attempt, c.task);
    if (c.task.startsWith('orbit.')) {
      // A built-in task is the host's own: picked up at once by `orbit-runtime`.
      this.add({
        type: 'picked_up',
        time: this.now,
        attempt: c.attempt,
        delivery: c.delivery,
        worker_id: 'orbit-runtime',
        builtin: c,
      });
      return;
    }
    const shard = shardOf(c.task, this.key, this.queueShards);
    const item = {
      inbox: this.key,
      attempt: c.attempt,
      delivery: c.delivery,
      number: c.number,
      step: c.step,
      input: c.input,
      idempotency_key: c.idempotency_key,
    };
    if (!queued.has(shard)) queued.set(shard, []);
    queued.get(shard).push(item);
    if (c.queue_timer) {
      const q = { attempt: c.attempt, shard, item, done: false, held: null };
      this.queueTimers.set(c.queue_timer, q);
      this.queueTimerOf.set(c.attempt, q);
    }
  }

  cancelAttempt(c, queued) {
    const task = this.tasks.get(c.attempt);
    this.flush(queued); // the attempts queued before it go first
    const q = this.queueTimerOf.get(c.attempt);
    if (q) q.done = true;
    if (task && !task.startsWith('orbit.')) {
      this.ctx
        .objectSendClient(QUEUE, shardOf(task, this.key, this.queueShards))
        .cancel({ inbox: this.key, attempt: c.attempt });
    }
  }

  /** The attempts queued so far, one call per queue key. */
  flush(queued) {
    for (const [shard, items] of queued) this.ctx.objectSendClient(QUEUE, shard).enqueue({ items });
    queued.clear();
  }

  /**
   * A queue timeout is due and its attempt was not seen picked up: the queue settles the
   * race. Still queued: it is taken out, and the timeout fires (true). Claimed in time:
   * the timer waits for the pickup (on its way from the queue), which the engine gets
   * first (false).
   */
  async settle(e) {
    const q = this.queueTimers.get(e.timer);
    if (!q || q.done) return true;
    q.done = true;
    const { expired } = await this.ctx.objectClient(QUEUE, q.shard).expire({ inbox: this.key, attempt: q.attempt });
    if (expired) return true;
    q.held = e;
    return false;
  }

  /**
   * An event of the world, from the inbox: due at its time. A queue timeout held for this
   * pickup is due again after it (at its own time, never before the pickup's; stale by
   * then — the engine ignores a queue timeout once the attempt is picked up).
   */
  arrived(e) {
    this.add(e);
    const q = e.type === 'picked_up' && e.delivery === 1 ? this.queueTimerOf.get(e.attempt) : null;
    if (q) {
      q.done = true;
      if (q.held) this.add(q.held);
      q.held = null;
    }
  }

  /** Hands `e` to the engine. */
  handle(e) {
    const { ctx, engine } = this;
    if (DEBUG) ctx.console.log(`orbit ${this.key} handle ${JSON.stringify(e)}`);
    this.now = Math.max(this.now, e.time);
    if (e.type === 'timer') return engine.timerFired(e.time, e.timer);
    if (e.type === 'signal') return engine.signal(e.time, e.name, e.payload);
    if (e.type === 'lost') return engine.workerLost(e.time, e.attempt, e.delivery);
    if (e.type === 'answered') return engine.answered(e.time, e.attempt, e.delivery, e.answer);
    const accepted = engine.pickedUp(e.time, e.attempt, e.delivery, e.worker_id);
    if (accepted && e.builtin) {
      ctx
        .serviceSendClient(HTTP)
        .request({ inbox: this.key, attempt: e.attempt, delivery: e.delivery, input: e.builtin.input });
    }
    return accepted;
  }

  /** The history, into the workflow's state when it grew. */
  save() {
    if (this.history.length !== this.saved) {
      this.ctx.set('history', this.history);
      this.saved = this.history.length;
    }
  }
}
