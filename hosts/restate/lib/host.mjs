// The Restate host of Orbit's engine core (docs/restate.md): the services of one `.orbc`
// program, one module per role —
//
//   - one workflow service per Orbit workflow (named after it), here: `run` drives the
//     engine core (hosts/wasm) for one execution, keyed by the execution's ID — the drive
//     loop is execution.mjs; `signal`, `history` and `started` are its shared handlers;
//   - `orbit_inbox` (inbox.mjs), a virtual object per execution: the events of the world
//     in arrival order, handed to `run` as journaled results;
//   - `orbit_queue` (queue.mjs), the durable task queue of each task name that workers
//     poll, sharded over a few virtual object keys (names.mjs);
//   - `orbit_http` (http.mjs), which carries out `orbit.http.request`, the built-in task.
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
import { INBOX, inboxKey } from './names.mjs';
import { queueService } from './queue.mjs';

export { inboxKey, shardKeys, shardOf } from './names.mjs';

const { TerminalError } = restate;

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
  const served = workflows.map((name) => workflowService(name, { core, orbc, timeScale, queueShards }));
  return [inboxService(), queueService({ heartbeatTimeoutMs, queueShards }), httpService(), ...served];
}

/** The workflow service of Orbit workflow `name`. */
function workflowService(name, { core, orbc, timeScale, queueShards }) {
  return restate.workflow({
    name,
    handlers: {
      /** One execution of the workflow, to its end: the engine's event loop. */
      run: async (ctx, input) => {
        let engine;
        try {
          engine = await OrbitEngine.open(core, orbc, name, input ?? {});
        } catch (e) {
          throw new TerminalError(e.message);
        }
        try {
          return await new Execution(ctx, engine, inboxKey(name, ctx.key), { timeScale, queueShards }).run();
        } finally {
          engine.close();
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
      /** The execution's history so far, as `orbit logs` lines. */
      history: async (ctx) => (await ctx.get('history')) ?? [],
      /** When the execution's clock started (real milliseconds since 1970), or null. */
      started: async (ctx) => (await ctx.get('started_at')) ?? null,
    },
  });
}
