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
import { OrbitEngine } from './wasm.mjs';
import { Execution } from './execution.mjs';
import { httpService } from './http.mjs';
import { inboxService } from './inbox.mjs';
import { inboxKey, programServices } from './names.mjs';
import { queueService } from './queue.mjs';

export { inboxKey, shardKeys, shardOf } from './names.mjs';

const { TerminalError } = restate;

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
 */
export function services({ core, program, versions, timeScale = 1, heartbeatTimeoutMs = 5000, queueShards = 4 }) {
  const names = programServices(program);
  const byHash = new Map(versions.map((v) => [v.hash, v.orbc]));
  const workflows = [...new Set(versions.flatMap((v) => v.workflows))];
  const served = workflows.map((name) =>
    workflowService(name, { core, names, versions, byHash, timeScale, queueShards }),
  );
  return [
    inboxService(names),
    queueService({ names, versions: versions.map((v) => v.hash), heartbeatTimeoutMs, queueShards }),
    httpService(names),
    versionsService(names, { program, versions, queueShards }),
    ...served,
  ];
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
function workflowService(name, { core, names, versions, byHash, timeScale, queueShards }) {
  const { INBOX } = names;
  const newest = versions.filter((v) => v.workflows.includes(name)).at(-1).hash;
  return restate.workflow({
    name,
    handlers: {
      /** One execution of the workflow, to its end: the engine's event loop. */
      run: async (ctx, input) => {
        // The version it starts on, journaled: a replay (after a crash, or in a process
        // serving newer versions) goes on with the same one.
        const version = await ctx.run('version', () => newest);
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
          throw new TerminalError(e.message);
        }
        const execution = new Execution(ctx, engine, inboxKey(name, ctx.key), {
          orbit,
          names,
          versions: byHash,
          version,
          workflow: name,
          input: input ?? {},
          timeScale,
          queueShards,
        });
        try {
          return await execution.run();
        } finally {
          execution.engine.close();
        }
      },
      /** A signal for the execution: `{"name": "...", "payload": ...}`. */
      signal: async (ctx, req) => {
        if (typeof req?.name !== 'string') throw new TerminalError('a signal needs a "name"');
        ctx.objectSendClient(INBOX, inboxKey(name, ctx.key)).push({
          type: 'signal',
          at: await ctx.date.now(),
          name: req.name,
          payload: req.payload ?? null,
        });
      },
      /**
       * Moves the execution to version `to` (a hash) if it can continue there
       * (versions.mjs canMove): `{"to": HASH}`. The execution decides, once, in its own
       * journal; its `moves` say what it decided.
       */
      move: async (ctx, req) => {
        if (typeof req?.to !== 'string') throw new TerminalError('a move needs "to", a version\'s hash');
        ctx
          .objectSendClient(INBOX, inboxKey(name, ctx.key))
          .push({ type: 'move', at: await ctx.date.now(), to: req.to });
      },
      /** The execution's history so far, as `orbit logs` lines. */
      history: async (ctx) => (await ctx.get('history')) ?? [],
      /**
       * What the execution keeps: its version, input, the events handed to its engine,
       * its history as `orbit-run --format json --show-values` lines (with the closing
       * line once it ended), its moves.
       */
      state: async (ctx) => ({
        version: (await ctx.get('version')) ?? null,
        input: (await ctx.get('input')) ?? null,
        events: (await ctx.get('events')) ?? [],
        history_json: (await ctx.get('history_json')) ?? [],
        final: (await ctx.get('final')) ?? null,
        moves: (await ctx.get('moves')) ?? [],
      }),
      /** When the execution's clock started (real milliseconds since 1970), or null. */
      started: async (ctx) => (await ctx.get('started_at')) ?? null,
    },
  });
}
