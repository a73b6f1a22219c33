// One execution: the engine core's drive loop inside the workflow service's `run`
// handler (host.mjs). It carries out the engine's commands with Restate's primitives —
// a record into the history, a timer into the engine's due queue, an attempt into its
// task's queue shard (queue.mjs), a built-in attempt to `orbit_http` (http.mjs), a cancel
// — and hands the engine back what is due: its timers and the events of the world: a
// delivery's pickup and outcome, from the awakeables its queue shard resolves (two per
// delivery, their IDs in the queued item), and the rest (signals, moves, the answers of
// built-in tasks) from the inbox (inbox.mjs). What is due first, ties included, is the engine's
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
//
// Seals: Restate's ingress resolves any awakeable whose ID it is given, and an awakeable's
// ID derives from the invocation ID, which the client that started the execution is told.
// So each execution draws a secret at its start (journaled, with the start's time), and
// hands every awakeable out with its seal, tokenOf(secret, ID), to the one that resolves
// it (the queue shard, the inbox), which resolves it with `{seal, value}`. A resolution
// without its seal is forged: the execution fails at once (FORGED_EVENT), and the engine
// never sees it. The check is a pure function of journaled values: a replay decides alike.
//
// Pushed workers (push.mjs): when `serve` has a worker port and did at the execution's
// start (journaled), each attempt is first offered to the workers registered for its
// task, in a journaled action (`push`) whose result is its pickup — or, if none took it,
// the attempt goes to its queue shard as above. A pushed delivery's outcome is one sealed
// awakeable, which serve resolves with the worker's answer; its liveness is checked by the
// execution itself (`alive`, a journaled action due a heartbeat timeout after the last
// sign of life, in the engine's due queue with the rest), and a failed check is its loss.
import * as restate from '@restatedev/restate-sdk';
import { sameSecret, shardOf, shortVersion, tokenOf } from './names.mjs';
import { cancelPushed, checkAlive, offer, pushLeaseOf } from './push.mjs';
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
// The workflow's durable promise that says its inbox holds something (a signal's or a
// move's handler resolves it, host.mjs): only then does the execution ask its inbox for
// events (`wait`) — one that never gets a signal, a move or a built-in task's answer
// never calls its inbox at all.
export const INBOX_PROMISE = 'inbox';

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
   * @param {{now: number, secret: string}} o.start the real time of its start and the
   *                               secret of its seals, journaled (host.mjs)
   * @param {number} o.timeScale   Orbit milliseconds per real millisecond
   * @param {number} o.queueShards the keys each task's queue is sharded over
   * @param {object} [o.push]      pushed workers, if the execution started with them
   *                               (`{registry, token, heartbeatTimeoutMs}`, push.mjs)
   */
  constructor(
    ctx,
    engine,
    key,
    { orbit, names, versions, version, workflow, input, start, timeScale, queueShards, maxValueBytes, push = null },
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
    this.push = push;
    this.offers = []; // attempts to offer to pushed workers, after the event that queued them
    this.cancels = []; // pushed deliveries to tell their worker to stop, likewise
    this.pushed = new Map(); // `ATTEMPT|DELIVERY` -> {url, lease} of a delivery a worker took
    this.events = []; // the events handed to the engine, in order (what a move replays)
    this.historyJson = []; // the records as JSON lines (`orbit-run --format json --show-values`)
    this.moves = [];
    this.start = start.now; // the real time of the execution's start (journaled by host.mjs)
    this.secret = start.secret; // the key of its awakeables' seals (journaled with the start)
    this.due = new Map(); // what is due, by the id the engine's due queue orders
    this.lastId = 0;
    this.tasks = new Map(); // attempt -> its queue key, or null for a built-in task (to cancel it)
    this.lastDelivery = new Map(); // attempt -> its last delivery queued (to cancel it)
    // The deliveries queued to a worker, by `ATTEMPT|DELIVERY`: the awakeable their queue
    // shard resolves next — the pickup's, then the outcome's (answered or lost).
    this.deliveries = new Map();
    // The queue timeouts of first deliveries, by timer and by attempt: {attempt, shard,
    // item, done (picked up or cancelled: nothing to settle), held (the timer, waiting
    // for the pickup that won the race)}.
    this.queueTimers = new Map();
    this.queueTimerOf = new Map();
    this.history = [];
    this.saved = 0;
    this.savedEvents = 0;
    this.parts = 0; // the parts of the history saved so far (save)
    this.inboxOpen = false; // the inbox is asked for events (INBOX_PROMISE, or a built-in task)
    this.now = 0; // the time of the last event handed to the engine
    this.finished = null; // the engine's `finished` command
    this.maxValueBytes = maxValueBytes;
    this.historyBytes = 0; // the bytes of `historyJson`'s lines, and of `events` as JSON
    this.eventBytes = 0;
  }

  /** Runs the execution to its end: its result. */
  async run() {
    const { ctx, key } = this; // not the engine: a move replaces it
    ctx.set('started_at', this.start);
    ctx.set('version', this.version);
    this.engine.start();
    this.carryOut();
    const offered = await this.dispatch();
    const waiting = []; // the awakeables the inbox resolves with the next events, in order
    const inboxUsed = ctx
      .promise(INBOX_PROMISE)
      .get()
      .map(() => ({ inbox: true }));
    // The real time up to which what is due is handed over: the clock read at the start,
    // then the latest time an event or a timer woke the execution at (every event carries
    // its time, journaled) — the clock (`ctx.date.now()`, a journaled action, one round
    // trip) is read again only to start a new sleep. `fresh`: `real` was read, not inferred.
    let real = Math.max(this.start, offered);
    let fresh = true;
    let sleeping = null; // {first, promise}: the sleep until what is due first
    while (!this.finished) {
      if (DEBUG) ctx.console.log(`orbit ${key} at ${this.orbitTime(real)} due ${this.due.size}`);
      for (let e = this.next(this.orbitTime(real)); e && !this.finished; e = this.next(this.orbitTime(real))) {
        // A liveness check, and an event's pushed pickups, read the clock (journaled):
        // `real` is fresh again, and the next sleep needs no reading of its own.
        const read = e.type === 'alive' ? await this.alive(e) : await this.step(e);
        if (read > 0) {
          real = Math.max(real, read);
          fresh = true;
        }
      }
      this.save();
      if (this.finished) break;
      if (this.inboxOpen && waiting.length === 0) {
        for (let i = 0; i < WAIT_AHEAD; i++) waiting.push(this.sealed((events) => ({ events })));
        ctx.objectSendClient(this.names.INBOX, key).wait(waiting.map(({ id, seal }) => ({ id, seal })));
      }
      // Whichever comes first — a batch of the inbox, a delivery's pickup or outcome
      // (resolved by its queue shard), what is due next — is journaled as the winner, so
      // a replay takes the same one.
      const racers = [this.inboxOpen ? waiting[0].promise : inboxUsed];
      for (const d of this.deliveries.values()) racers.push(d.next);
      const first = this.engine.dueFirst();
      if (first !== null && sleeping?.first !== first) {
        // A sleep of its own for what is due first, from the clock read now (what is due
        // by then first handed over); the same sleep stays in the race while it is first.
        if (!fresh) {
          real = Math.max(real, await ctx.date.now());
          fresh = true;
          continue;
        }
        const delay = Math.min(MAX_SLEEP_MS, Math.max(1, Math.ceil(this.start + first / this.timeScale - real)));
        const slept = real + delay;
        sleeping = { first, promise: ctx.sleep(delay).map(() => ({ slept })) };
      }
      if (first !== null) racers.push(sleeping.promise);
      const won = await RestatePromise.race(racers);
      fresh = false;
      if (won.forged) {
        this.save();
        this.ctx.objectSendClient(this.names.INBOX, key).clear();
        throw new TerminalError(
          `execution ${key} fails: FORGED_EVENT: an event of this execution was resolved through Restate's ingress by someone other than the host (awakeable ${won.forged}): block /restate/awakeables/ in front of the ingress`,
          { errorCode: 403 },
        );
      }
      if (won.inbox) {
        this.inboxOpen = true; // a signal or a move waits in the inbox: ask for it
      } else if (won.events) {
        waiting.shift();
        for (const e of won.events) {
          real = Math.max(real, e.at);
          if (e.type === 'move') await this.move(e);
          else this.arrived({ ...e, time: this.orbitTime(e.at) });
        }
      } else if (won.delivery) {
        real = Math.max(real, won.event.at);
        this.delivered(won.delivery, won.event);
      } else {
        real = Math.max(real, won.slept); // it slept that long at least
        sleeping = null;
      }
    }
    this.save();
    ctx.set('final', this.finished.final);
    // The inbox keeps nothing once the execution is over (it kept something only if it
    // was used: a signal or a move resolved the promise, maybe after the last wake-up).
    if (this.inboxOpen || (await ctx.promise(INBOX_PROMISE).peek()) !== undefined)
      ctx.objectSendClient(this.names.INBOX, key).clear();
    const { kind, final, ...result } = this.finished;
    return result; // kept by Restate as the output of `run`
  }

  /**
   * Hands `e` (not a liveness check) to the engine and carries out what it says: the real
   * time its pushed pickups were taken at (0 if none), an event of the world as the
   * inbox's are.
   */
  async step(e) {
    if (e.type === 'timer' && !(await this.settle(e))) return 0;
    this.handle(e);
    this.carryOut();
    return this.dispatch();
  }

  /**
   * A new awakeable of the execution and its seal: `{id, seal, promise}`, where `promise`
   * gives `tag(value)` of a resolution `{seal, value}` with the right seal (compared in
   * constant time), and `{forged: id}` of any other (another seal or none, a text that
   * is not JSON, a rejection): only the host's resolutions reach the engine.
   */
  sealed(tag) {
    const a = this.ctx.awakeable(restate.serde.binary);
    const seal = tokenOf(this.secret, a.id);
    const promise = a.promise.map((bytes, failure) => {
      let r = null;
      try {
        r = failure ? null : JSON.parse(Buffer.from(bytes).toString('utf8'));
      } catch {}
      const ok = r !== null && typeof r === 'object' && typeof r.seal === 'string' && sameSecret(r.seal, seal);
      return ok ? tag(r.value) : { forged: a.id };
    });
    return { id: a.id, seal, promise };
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
    this.lastDelivery.set(c.attempt, c.delivery);
    if (c.queue_timer) {
      const q = { attempt: c.attempt, shard, item, done: false, held: null };
      this.queueTimers.set(c.queue_timer, q);
      this.queueTimerOf.set(c.attempt, q);
    }
    if (this.push) this.offers.push({ task: c.task, shard, item });
    else this.enqueue(shard, item, queued);
  }

  /** A delivery into its queue shard (sent with the others of `queued`), with its two awakeables. */
  enqueue(shard, item, queued) {
    const d = `${item.attempt}|${item.delivery}`;
    const tag = (event) => ({ delivery: d, event });
    const pickup = this.sealed(tag);
    const outcome = this.sealed(tag);
    Object.assign(item, {
      pickup: pickup.id,
      outcome: outcome.id,
      pickup_seal: pickup.seal,
      outcome_seal: outcome.seal,
    });
    this.deliveries.set(d, { next: pickup.promise, outcome: outcome.promise });
    if (!queued.has(shard)) queued.set(shard, []);
    queued.get(shard).push(item);
  }

  /**
   * The attempts of the last event offered to pushed workers, in order, and its
   * cancellations told, in one journaled action: a delivery a worker took is picked up
   * at the time it took it, and its liveness checked a heartbeat timeout later; one
   * nobody took goes to its queue shard. The latest real time of a pickup (0 if none).
   */
  async dispatch() {
    if (this.offers.length === 0 && this.cancels.length === 0) return 0;
    const { ctx, push } = this;
    const offers = this.offers.splice(0);
    const cancels = this.cancels.splice(0);
    const short = shortVersion(this.version);
    const made = offers.map((o) => {
      const d = `${o.item.attempt}|${o.item.delivery}`;
      const outcome = this.sealed((event) => ({ delivery: d, event }));
      const lease = pushLeaseOf(outcome.id, outcome.seal);
      const body = {
        lease,
        task: o.task,
        step: o.item.step,
        attempt: o.item.number,
        input: o.item.input,
        idempotency_key: o.item.idempotency_key,
        heartbeat_timeout_ms: push.heartbeatTimeoutMs,
      };
      return { ...o, d, outcome, lease, body };
    });
    // In order, one after another: the attempts of one event reach the workers in the
    // engine's order, as a queue shard hands them out.
    const results = await ctx.run('push', async () => {
      const taken = [];
      for (const m of made)
        taken.push(
          await offer(push.registry, {
            task: m.task,
            short,
            body: m.body,
            token: push.token,
            expiresAt: m.item.expires_at,
          }),
        );
      for (const c of cancels) await cancelPushed(c.url, c.lease, push.token);
      return taken;
    });
    // The deliveries taken are picked up together, at the time the last was taken: as
    // a queue shard hands out the attempts of one event in one call, and the engine
    // orders their pickups.
    const latest = results.reduce((t, r) => (r.url ? Math.max(t, r.at) : t), 0);
    const queued = new Map();
    made.forEach((m, i) => {
      const r = results[i];
      if (!r.url) {
        if (DEBUG) ctx.console.log(`orbit ${this.key} ${m.d} queued: ${r.refused}`);
        this.enqueue(m.shard, m.item, queued);
        return;
      }
      this.tasks.set(m.item.attempt, null); // no shard to cancel it in
      this.pushed.set(m.d, { url: r.url, lease: m.lease });
      this.deliveries.set(m.d, { next: m.outcome.promise, outcome: null });
      this.arrived({
        type: 'picked_up',
        at: latest,
        attempt: m.item.attempt,
        delivery: m.item.delivery,
        worker_id: r.worker_id,
        time: this.orbitTime(latest),
      });
      this.checkAt(m.d, latest);
    });
    this.flush(queued);
    return latest;
  }

  /** The liveness check of pushed delivery `d`, due a heartbeat timeout after `at` (real ms). */
  checkAt(d, at) {
    this.add({ type: 'alive', d, time: this.orbitTime(at + this.push.heartbeatTimeoutMs) });
  }

  /**
   * A pushed delivery's liveness check is due: its worker is asked (a journaled action)
   * whether it still works on it — yes, and the next check is due a heartbeat timeout
   * later; no (or no answer), and the delivery is lost, as a queue shard's sweep finds a
   * silent worker. Nothing for a delivery answered or lost already. The real time of the
   * check (0 if none).
   */
  async alive(e) {
    const p = this.pushed.get(e.d);
    if (!p) return 0;
    const r = await this.ctx.run('alive', () => checkAlive(p.url, p.lease, this.push.token));
    if (r.alive) this.checkAt(e.d, r.at);
    else this.delivered(e.d, { type: 'lost', at: r.at });
    return r.at;
  }

  cancelAttempt(c, queued) {
    const shard = this.tasks.get(c.attempt);
    this.flush(queued); // the attempts queued before it go first
    const q = this.queueTimerOf.get(c.attempt);
    if (q) q.done = true;
    // Not offered yet (queued by the same event): never offered.
    const offered = this.offers.findIndex((o) => o.item.attempt === c.attempt);
    if (offered >= 0) {
      this.offers.splice(offered, 1);
      return;
    }
    const pushed = this.pushed.get(`${c.attempt}|${this.lastDelivery.get(c.attempt)}`);
    if (pushed) this.cancels.push(pushed);
    if (DEBUG)
      this.ctx.console.log(
        `orbit ${this.key} cancel ${c.attempt}: ${pushed ? `pushed to ${pushed.url}` : `shard ${shard}`}`,
      );
    if (shard)
      this.ctx
        .objectSendClient(this.names.QUEUE, shard)
        .cancel({ inbox: this.key, attempt: c.attempt, delivery: this.lastDelivery.get(c.attempt) });
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
      .expire({ inbox: this.key, attempt: q.attempt, delivery: q.item.delivery });
    if (expired) {
      this.deliveries.delete(`${q.attempt}|${q.item.delivery}`); // never picked up now: nothing will come
      return true;
    }
    q.held = e;
    return false;
  }

  /**
   * What a delivery's queue shard resolved: its pickup (then the outcome is awaited), or
   * its outcome, the answer or the worker lost (then nothing more comes of it). An event
   * of the world, as from the inbox.
   */
  delivered(d, e) {
    const w = this.deliveries.get(d);
    if (e.type === 'picked_up' && w?.outcome) {
      w.next = w.outcome;
      w.outcome = null;
    } else {
      this.deliveries.delete(d);
      this.pushed.delete(d);
    }
    const [attempt, delivery] = d.split('|').map(Number);
    this.arrived({ ...e, attempt, delivery, time: this.orbitTime(e.at) });
  }

  /**
   * An event of the world, from the inbox or a delivery's awakeables: due at its time. A queue timeout held for this
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
      this.inboxOpen = true; // its answer comes through the inbox
      ctx
        .serviceSendClient(this.names.HTTP)
        .request({ inbox: this.key, attempt: e.attempt, delivery: e.delivery, input: e.builtin.input });
    }
    return accepted;
  }

  /**
   * The history (text and JSON lines) and the events handed to the engine, into the
   * workflow's state when they grew: what they gained since the last save, as one more
   * part (`part:N`, N from 0; host.mjs `parts` reads them back; the first also holds the
   * execution's input), so that a wake-up writes one small value, never the whole
   * history again.
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
    if (this.history.length === this.saved && this.events.length === this.savedEvents) return;
    this.ctx.set(`part:${this.parts}`, {
      ...(this.parts === 0 ? { input: this.input } : {}),
      history: this.history.slice(this.saved),
      history_json: this.historyJson.slice(this.saved),
      events: this.events.slice(this.savedEvents),
    });
    this.parts++;
    this.saved = this.history.length;
    this.savedEvents = this.events.length;
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
