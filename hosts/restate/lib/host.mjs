// The Restate host of Orbit's engine core (docs/restate.md): the services of one `.orbc`
// program, one module per role —
//
//   - one workflow service per Orbit workflow (named after it), here: `run` drives the
//     engine core (hosts/wasm) for one execution, keyed by the execution's ID — the drive
//     loop is execution.mjs; `signal`, `history` and `started` are its shared handlers;
//   - `orbit_inbox_PROGRAM` (inbox.mjs), a virtual object per execution: the events of
//     the world in arrival order, handed to `run` as journaled results;
//   - `orbit_queue_PROGRAM` (queue.mjs), the durable task queue of each task name and
//     version that workers poll, sharded over a few virtual object keys (names.mjs);
//   - `orbit_http_PROGRAM` (http.mjs), which carries out `orbit.http.request`;
//   - `orbit_versions_PROGRAM`: the versions this process serves (`list`).
//
// One process serves every version of the program given to it, in one Restate
// deployment: each execution runs on the version it started on (its hash, journaled at
// its start) until `migrate` moves it (execution.mjs, `move`; versions.mjs, `canMove`).
//
// The engine decides everything Orbit decides (attempts, retries, timeouts, the order of
// steps and of ties); the host only carries its commands out with Restate's primitives
// and feeds it the events back.
import './compat.mjs';
import * as restate from '@restatedev/restate-sdk';
import { EngineFault, OrbitEngine } from './wasm.mjs';
import { Execution, INBOX_PROMISE } from './execution.mjs';
import { httpService } from './http.mjs';
import { inboxService } from './inbox.mjs';
import { inboxKey, newToken, programServices } from './names.mjs';
import { WorkerRegistry } from './push.mjs';
import { jsonBytes } from './answer.mjs';
import { queueService, refuse } from './queue.mjs';

export { inboxKey, shardKeys, shardOf } from './names.mjs';

const { TerminalError } = restate;

/**
 * The largest value (an execution's input, a worker's output, a signal's payload, an HTTP
 * response's body) the host takes, as JSON bytes: 4 MiB. A value is kept several times
 * over in an execution's journal and state (its event, its history's JSON lines), and
 * Restate refuses a message over 32 MiB; what is over the limit is refused at the door,
 * as that one execution's error (docs/restate.md, "Large values").
 */
export const MAX_VALUE_BYTES = 4 * 1024 * 1024;

/**
 * The services of one program, with every version of it that this process serves.
 * @param {object} o
 * @param {() => Promise<object>} o.core  the engine core's factory (wasm.mjs loadCore)
 * @param {string} o.program              the program's name (names.mjs PROGRAM_NAME)
 * @param {{hash: string, orbc: Uint8Array, workflows: string[]}[]} o.versions
 *                                        the versions served, oldest first: new executions
 *                                        start on the newest that has their workflow
 * @param {number} [o.timeScale]          Orbit milliseconds per real millisecond (1)
 * @param {number} [o.heartbeatTimeoutMs] a claimed task whose worker is silent this long is lost
 * @param {number} [o.queueShards]        the keys each task's queue is sharded over (4)
 * @param {number} [o.pickupTimeoutMs]    a task a poll took is lost if not heartbeated this soon
 * @param {string} [o.workerToken]        the workers' shared token (null: the protocol is open)
 * @param {number} [o.maxValueBytes]      the largest input, output or payload (JSON bytes)
 * @param {object} [o.registry]           the pushed workers registered with this process
 *                                        (push.mjs WorkerRegistry; none: tasks are only queued)
 */
export function services({
  core,
  program,
  versions,
  timeScale = 1,
  heartbeatTimeoutMs = 5000,
  queueShards = 4,
  pickupTimeoutMs = Math.min(heartbeatTimeoutMs, 5000),
  workerToken = null,
  maxValueBytes = MAX_VALUE_BYTES,
  registry = null,
}) {
  const names = programServices(program);
  // Pushed workers' settings, for every execution that started with them — also one this
  // process replays without a worker port of its own (an empty registry: its offers are
  // queued, its pushed deliveries still checked with the workers' token).
  const push = {
    registry: registry ?? new WorkerRegistry(),
    token: workerToken,
    heartbeatTimeoutMs,
    offers: !!registry,
  };
  const byHash = new Map(versions.map((v) => [v.hash, v.orbc]));
  const workflows = [...new Set(versions.flatMap((v) => v.workflows))];
  const served = workflows.map((name) =>
    workflowService(name, { core, names, versions, byHash, timeScale, queueShards, maxValueBytes, push }),
  );
  return [
    inboxService(names),
    queueService({
      names,
      versions: versions.map((v) => v.hash),
      heartbeatTimeoutMs,
      pickupTimeoutMs,
      queueShards,
      workerToken,
      maxValueBytes,
    }),
    httpService(names, { maxValueBytes }),
    versionsService(names, { program, versions, queueShards }),
    ...served,
  ];
}

/**
 * A trap in the engine core (orbit-api.js EngineFault): the execution whose call trapped
 * fails, with the trap as its reason (its replay would trap again); one whose engine was
 * in the failed instance is retried by Restate, on a fresh instance.
 */
function engineFault(workflow, id, e) {
  if (!e.here) return new Error(`${workflow}/${id}: ${e.message} (retried on a fresh instance)`);
  return new TerminalError(`execution ${workflow}/${id} fails: ${e.message}`, { errorCode: 500 });
}

/**
 * Tells the execution that its inbox holds something (execution.mjs INBOX_PROMISE): the
 * first time resolves the promise; later, it is resolved already (and that is all).
 */
async function inboxUsed(ctx) {
  await ctx
    .promise(INBOX_PROMISE)
    .resolve(true)
    .catch((e) => {
      if (!(e instanceof TerminalError)) throw e;
    });
}

/**
 * The parts of an execution's history saved so far, in order (execution.mjs `save`: each
 * wake-up that grew it adds one, `part:N` from 0): `{history, history_json, events}` each,
 * and the first `input`.
 */
async function parts(ctx) {
  const numbers = (await ctx.stateKeys())
    .filter((k) => /^part:\d+$/.test(k))
    .map((k) => Number(k.slice(5)))
    .sort((a, b) => a - b);
  const saved = [];
  for (const n of numbers) saved.push(await ctx.get(`part:${n}`));
  return saved;
}

/** `orbit_versions_PROGRAM`: what this process serves (orbit-restate versions, migrate). */
function versionsService({ VERSIONS }, { program, versions, queueShards }) {
  const list = versions.map((v, i) => ({ hash: v.hash, workflows: v.workflows, newest: i === versions.length - 1 }));
  return restate.service({
    name: VERSIONS.name,
    handlers: {
      list: async () => ({ program, queue_shards: queueShards, versions: list }),
    },
  });
}

/** The workflow service of Orbit workflow `name`. */
function workflowService(name, { core, names, versions, byHash, timeScale, queueShards, maxValueBytes, push }) {
  const { INBOX } = names;
  const newest = versions.filter((v) => v.workflows.includes(name)).at(-1).hash;
  return restate.workflow({
    name,
    handlers: {
      /** One execution of the workflow, to its end: the engine's event loop. */
      run: async (ctx, input) => {
        const inputBytes = jsonBytes(input);
        if (inputBytes > maxValueBytes)
          throw refuse(
            `the input of ${name}/${ctx.key} is ${inputBytes} bytes of JSON, over the host's limit of ${maxValueBytes} (orbit-restate serve --max-value-bytes)`,
            413,
          );
        // The version it starts on, the start's time, the secret of its awakeables'
        // seals and whether it offers its tasks to pushed workers (execution.mjs), in one
        // journaled action: a replay (after a crash, or in a process serving newer
        // versions, or with another worker port) goes on with the same four; not ctx.rand,
        // whose seed derives from the invocation ID.
        const start = await ctx.run('start', () => ({
          version: newest,
          now: Date.now(),
          secret: newToken(32),
          ...(push.offers ? { push: true } : {}),
        }));
        const version = start.version;
        const orbc = byHash.get(version);
        if (!orbc)
          throw new Error(
            `execution ${name}/${ctx.key} runs on version ${version}, which this process does not serve: serve it again`,
          );
        const orbit = await core();
        let engine;
        try {
          engine = await OrbitEngine.open(orbit, orbc, name, input ?? {});
        } catch (e) {
          throw e instanceof EngineFault ? engineFault(name, ctx.key, e) : new TerminalError(e.message);
        }
        const execution = new Execution(ctx, engine, inboxKey(name, ctx.key), {
          maxValueBytes,
          orbit,
          names,
          versions: byHash,
          version,
          workflow: name,
          input: input ?? {},
          start,
          timeScale,
          queueShards,
          // Started with pushed workers: offered to those registered here (maybe none now).
          push: start.push ? push : null,
        });
        try {
          return await execution.run();
        } catch (e) {
          throw e instanceof EngineFault ? engineFault(name, ctx.key, e) : e;
        } finally {
          execution.engine.close();
        }
      },
      /** A signal for the execution: `{"name": "...", "payload": ...}`. */
      signal: async (ctx, req) => {
        if (typeof req?.name !== 'string' || req.name === '' || req.name.length > 1000)
          throw refuse('a signal needs a "name" (a text), and may have a "payload": {"name": …, "payload": …}');
        const bytes = jsonBytes(req.payload);
        if (bytes > maxValueBytes)
          throw refuse(
            `the payload of signal ${req.name} is ${bytes} bytes of JSON, over the host's limit of ${maxValueBytes} (orbit-restate serve --max-value-bytes)`,
            413,
          );
        // An execution that never started has no inbox to keep it in (a signal to a
        // mistyped ID would be kept forever).
        if ((await ctx.get('started_at')) == null)
          throw refuse(`no execution ${name}/${ctx.key} has started (a signal goes to an execution once it runs)`, 404);
        ctx.objectSendClient(INBOX, inboxKey(name, ctx.key)).push({
          type: 'signal',
          at: await ctx.date.now(),
          name: req.name,
          payload: req.payload ?? null,
        });
        await inboxUsed(ctx);
      },
      /**
       * Moves the execution to version `to` (a hash) if it can continue there
       * (versions.mjs canMove): `{"to": HASH}`. The execution decides, once, in its own
       * journal; its `moves` say what it decided.
       */
      move: async (ctx, req) => {
        if (typeof req?.to !== 'string' || !/^[0-9a-f]{64}$/.test(req.to))
          throw refuse('a move needs "to", a version\'s hash (64 hex digits)');
        ctx
          .objectSendClient(INBOX, inboxKey(name, ctx.key))
          .push({ type: 'move', at: await ctx.date.now(), to: req.to });
        await inboxUsed(ctx);
      },
      /** The execution's history so far, as `orbit logs` lines. */
      history: async (ctx) => (await parts(ctx)).flatMap((p) => p.history),
      /**
       * What the execution keeps: its version, input, the events handed to its engine,
       * its history as `orbit-run --format json --show-values` lines (with the closing
       * line once it ended), its moves.
       */
      state: async (ctx) => {
        const saved = await parts(ctx);
        return {
          version: (await ctx.get('version')) ?? null,
          input: saved[0]?.input ?? (await ctx.get('input')) ?? null, // or its own key, as earlier hosts kept it
          events: saved.flatMap((p) => p.events),
          history_json: saved.flatMap((p) => p.history_json),
          final: (await ctx.get('final')) ?? null,
          moves: (await ctx.get('moves')) ?? [],
        };
      },
      /** When the execution's clock started (real milliseconds since 1970), or null. */
      started: async (ctx) => (await ctx.get('started_at')) ?? null,
    },
  });
}
