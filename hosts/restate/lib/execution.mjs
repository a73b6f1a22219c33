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
//
// Versions: the execution runs on the version it started on (its hash, journaled by
// host.mjs). A `move` event from the inbox (orbit-restate migrate) asks it to go on with
// another version: it decides once, in a journaled step (versions.mjs canMove: its events
// replayed through a fresh engine of that version give its history exactly), and if so
// swaps its engine for the replayed one. The decision and the swap are in its own
// journal, so a crash at any moment leaves it on one version or the other, never between.
import * as restate from '@restatedev/restate-sdk';
import { shardOf, shortVersion } from './names.mjs';
import { canMove, feed, replay } from './versions.mjs';

const { RestatePromise, TerminalError } = restate;

const DEBUG = !!process.env.ORBIT_RESTATE_DEBUG;
// The longest sleep asked of Restate at once; a later due time is slept towards again.
const MAX_SLEEP_MS = 7 * 24 * 3600 * 1000;
// The awakeables an execution gives its inbox at once (one `wait` call for that many batches).
const WAIT_AHEAD = 4;
// The most bytes of JSON lines (or of journaled events) an execution's state may hold: a
// state value is one message to Restate, which refuses one over 32 MiB (and a line's
// JSON may double once it is quoted into the state). Past it the execution fails with
// that reason, instead of retrying a write Restate will never take.
export const MAX_STATE_BYTES = 12 * 1024 * 1024;

export class Execution {
  /**
   * @param {object} ctx          the `run` handler's workflow context
   * @param {object} engine       the engine core (OrbitEngine of hosts/wasm/orbit-api.js), opened
   * @param {string} key          the execution's inbox (names.mjs inboxKey)
   * @param {object} o
   * @param {object} o.orbit       the loaded engine core (to open another version's engine)
   * @param {object} o.names       the program's services (names.mjs programServices)
   * @param {Map<string, Uint8Array>} o.versions the versions served, by hash
   * @param {string} o.version     the hash of the version `engine` runs
   * @param {string} o.workflow    the workflow, and `o.input` its input (to replay it)
   * @param {number} o.timeScale   Orbit milliseconds per real millisecond
   * @param {number} o.queueShards the keys each task's queue is sharded over
   */
  constructor(
    ctx,
    engine,
    key,
    { orbit, names, versions, version, workflow, input, timeScale, queueShards, maxValueBytes },
  ) {
    this.ctx = ctx;
    this.engine = engine;
    this.key = key;
    this.orbit = orbit;
    this.names = names;
    this.versions = versions;
    this.version = version;
    this.workflow = workflow;
    this.input = input;
    this.timeScale = timeScale;
    this.queueShards = queueShards;
    this.events = []; // the events handed to the engine, in order (what a move replays)
    this.historyJson = []; // the records as JSON lines (`orbit-run --format json --show-values`)
    this.moves = [];
    this.start = 0; // the real time of the execution's start (journaled)
    this.due = new Map(); // what is due, by the id the engine's due queue orders
    this.lastId = 0;
    this.tasks = new Map(); // attempt -> its queue key, or null for a built-in task (to cancel it)
    // The queue timeouts of first deliveries, by timer and by attempt: {attempt, shard,
    // item, done (picked up or cancelled: nothing to settle), held (the timer, waiting
    // for the pickup that won the race)}.
    this.queueTimers = new Map();
    this.queueTimerOf = new Map();
    this.history = [];
    this.saved = 0;
    this.savedEvents = 0;
    this.now = 0; // the time of the last event handed to the engine
    this.finished = null; // the engine's `finished` command
    this.maxValueBytes = maxValueBytes;
    this.historyBytes = 0; // the bytes of `historyJson`'s lines, and of `events` as JSON
    this.eventBytes = 0;
  }

  /** Runs the execution to its end: its result. */
  async run() {
    const { ctx, key } = this; // not the engine: a move replaces it
    this.start = await ctx.date.now();
    ctx.set('started_at', this.start);
    ctx.set('version', this.version);
    ctx.set('input', this.input);
    this.engine.start();
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
        ctx.objectSendClient(this.names.INBOX, key).wait(waiting.map((a) => a.id));
      }
      const first = this.engine.dueFirst();
      let events;
      if (first !== null) {
        const delay = Math.min(MAX_SLEEP_MS, Math.max(1, Math.ceil(this.start + first / this.timeScale - real)));
        events = await RestatePromise.race([waiting[0].promise, ctx.sleep(delay)]);
      } else {
        events = await waiting[0].promise;
      }
      if (Array.isArray(events)) {
        waiting.shift();
        for (const e of events) {
          if (e.type === 'move') await this.move(e);
          else this.arrived({ ...e, time: this.orbitTime(e.at) });
        }
      }
    }
    this.save();
    ctx.set('final', this.finished.final);
    ctx.objectSendClient(this.names.INBOX, key).clear();
    const { kind, final, ...result } = this.finished;
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
      if (c.kind === 'record') {
        this.history.push(c.text);
        this.historyJson.push(c.json);
        this.historyBytes += Buffer.byteLength(c.json);
      } else if (c.kind === 'timer') this.startTimer(c);
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
    const builtin = c.task.startsWith('orbit.');
    const shard = builtin ? null : shardOf(c.task, this.version, this.key, this.queueShards);
    this.tasks.set(c.attempt, shard);
    if (builtin) {
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
    const shard = this.tasks.get(c.attempt);
    this.flush(queued); // the attempts queued before it go first
    const q = this.queueTimerOf.get(c.attempt);
    if (q) q.done = true;
    if (shard) this.ctx.objectSendClient(this.names.QUEUE, shard).cancel({ inbox: this.key, attempt: c.attempt });
  }

  /** The attempts queued so far, one call per queue key. */
  flush(queued) {
    for (const [shard, items] of queued) this.ctx.objectSendClient(this.names.QUEUE, shard).enqueue({ items });
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
    const { expired } = await this.ctx
      .objectClient(this.names.QUEUE, q.shard)
      .expire({ inbox: this.key, attempt: q.attempt });
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
    const { builtin, limit, ...event } = e;
    this.events.push(event);
    this.eventBytes += Buffer.byteLength(JSON.stringify(event));
    const accepted = feed(engine, event);
    if (accepted && builtin) {
      ctx
        .serviceSendClient(this.names.HTTP)
        .request({ inbox: this.key, attempt: e.attempt, delivery: e.delivery, input: e.builtin.input });
    }
    return accepted;
  }

  /**
   * The history (text and JSON lines) and the events handed to the engine, into the
   * workflow's state when they grew.
   */
  save() {
    const bytes = Math.max(this.historyBytes, this.eventBytes);
    if (bytes > MAX_STATE_BYTES) {
      this.ctx.objectSendClient(this.names.INBOX, this.key).clear();
      throw new TerminalError(
        `execution ${this.key} fails: its history holds ${bytes} bytes of values, over the ${MAX_STATE_BYTES} a Restate state value can take (values of at most ${this.maxValueBytes} bytes each: orbit-restate serve --max-value-bytes)`,
        { errorCode: 413 },
      );
    }
    if (this.history.length !== this.saved) {
      this.ctx.set('history', this.history);
      this.ctx.set('history_json', this.historyJson);
      this.saved = this.history.length;
    }
    if (this.events.length !== this.savedEvents) {
      this.ctx.set('events', this.events);
      this.savedEvents = this.events.length;
    }
  }

  /**
   * A move to version `e.to` asked by `migrate`: decided once, in a journaled step, by
   * canMove; if it can continue there, the engine is swapped for one of that version fed
   * the same events. The world's events due stay due; the old engine's timers are
   * replaced by the new one's that have not fired. The decision is kept in `moves`.
   */
  async move(e) {
    const { ctx } = this;
    const from = this.version;
    const to = e.to;
    const verdict = await ctx.run('move', () => {
      if (to === from) return { move: false, why: 'it runs on that version already' };
      const orbc = this.versions.get(to);
      if (!orbc) return { move: false, why: `version ${shortVersion(to)} is not served` };
      return canMove(this.orbit, {
        oldOrbc: this.versions.get(from),
        orbc,
        workflow: this.workflow,
        input: this.input,
        events: this.events,
        history: this.historyJson,
      });
    });
    if (verdict.move) {
      const orbc = this.versions.get(to);
      if (!orbc) throw new Error(`${this.key} moved to version ${to}, which this process does not serve: serve it`);
      this.swap(replay(this.orbit, { orbc, workflow: this.workflow, input: this.input, events: this.events }));
      this.version = to;
      ctx.set('version', to);
    }
    this.moves.push({ at: e.at, from, to, moved: verdict.move, why: verdict.why, seq: verdict.seq ?? null });
    ctx.set('moves', this.moves);
  }

  /** The engine replaced by `r.engine` (versions.mjs replay), with what is due carried over. */
  swap(r) {
    const old = this.engine;
    const kept = [...this.due].sort((a, b) => a[0] - b[0]);
    this.engine = r.engine;
    this.due = new Map();
    for (const [id, item] of kept) {
      if (item.type === 'timer') continue; // the old engine's
      this.due.set(id, item);
      this.engine.dueAdd(item.time, !!item.limit, id);
    }
    // The queue timeouts still to settle, by the new engine's timer of their attempt.
    this.queueTimers = new Map();
    for (const [attempt, q] of this.queueTimerOf) {
      const timer = r.queues.get(attempt)?.queue_timer;
      if (timer) this.queueTimers.set(timer, q);
    }
    for (const [timer, t] of [...r.timers].sort((a, b) => a[0] - b[0])) {
      const ev = { type: 'timer', timer, time: t.at_ms, limit: t.limit };
      const q = this.queueTimers.get(timer);
      if (q?.held) q.held = ev;
      else this.add(ev);
    }
    old.close();
  }
}
