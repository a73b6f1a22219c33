// `orbit_inbox_PROGRAM`, a virtual object per execution (key: names.mjs inboxKey): the events of
// the world (pickups, answers, lost workers, signals) in arrival order, handed to the
// execution's `run` (execution.mjs) through the awakeables it gives, so that they come
// back to it as journaled results — what a replay feeds the engine again.
//
// State: `events`, the events not yet handed over; `waiters`, the awakeables the
// execution waits on, in order (each is resolved with one batch of events).
import * as restate from '@restatedev/restate-sdk';

/** The events kept go to the first awakeable waiting, if any. */
async function handOver(ctx, waiters, events) {
  if (events.length > 0 && waiters.length > 0) {
    ctx.resolveAwakeable(waiters.shift(), events);
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
}
