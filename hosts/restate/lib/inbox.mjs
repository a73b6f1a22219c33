// `orbit_inbox_PROGRAM`, a virtual object per execution (key: names.mjs inboxKey): the events of
// the world that do not come through a delivery's own awakeables (queue.mjs: pickups,
// answers and lost workers do) — signals, moves, the answers of built-in tasks (http.mjs)
// — in arrival order, handed to the
// execution's `run` (execution.mjs) through the awakeables it gives, so that they come
// back to it as journaled results — what a replay feeds the engine again.
//
// State: `events`, the events not yet handed over; `waiters`, the awakeables the
// execution waits on, in order, `{id, seal}` each (resolved with one batch of events and
// the awakeable's seal, which the execution checks: docs/restate.md, "Security").
//
// Every handler is private to Restate (`ingressPrivate`): only the execution, its queue
// shards and the HTTP service call them; the ingress refuses them.
import * as restate from '@restatedev/restate-sdk';

const { TerminalError } = restate;
const internal = (fn) => restate.handlers.object.exclusive({ ingressPrivate: true }, fn);
const EVENT_TYPES = new Set(['picked_up', 'answered', 'lost', 'signal', 'move']);

/** The events kept go to the first awakeable waiting, if any. */
async function handOver(ctx, waiters, events) {
  if (events.length > 0 && waiters.length > 0) {
    const { id, seal } = waiters.shift();
    ctx.resolveAwakeable(id, { seal, value: events });
    events = [];
  }
  ctx.set('waiters', waiters);
  ctx.set('events', events);
}

/** The inbox service of a program (`names`: names.mjs programServices). */
export function inboxService({ INBOX }) {
  return restate.object({
    name: INBOX.name,
    handlers: {
      /** An event of the world; handed to the waiting execution at once, or kept. */
      push: internal(async (ctx, event) => {
        if (!EVENT_TYPES.has(event?.type) || typeof event.at !== 'number')
          throw new TerminalError('push needs an event {type, at, ...}', { errorCode: 400 });
        const events = (await ctx.get('events')) ?? [];
        events.push(event);
        await handOver(ctx, (await ctx.get('waiters')) ?? [], events);
      }),
      /**
       * The execution's next awakeables, `awakeables` (`{id, seal}` each), in the order it
       * waits on them: each is resolved with the events that arrive, one batch each (a
       * few at once save a call per event).
       */
      wait: internal(async (ctx, awakeables) => {
        if (
          !Array.isArray(awakeables) ||
          !awakeables.every((a) => typeof a?.id === 'string' && typeof a.seal === 'string')
        )
          throw new TerminalError('wait needs a list of awakeables {id, seal}', { errorCode: 400 });
        const waiters = (await ctx.get('waiters')) ?? [];
        await handOver(
          ctx,
          waiters.concat(awakeables.map(({ id, seal }) => ({ id, seal }))),
          (await ctx.get('events')) ?? [],
        );
      }),
      /** The execution is over: nothing is kept. */
      clear: internal(async (ctx) => {
        ctx.clearAll();
      }),
    },
  });
}
