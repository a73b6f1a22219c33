// The hand-written baseline of the benchmark (tools/restate_bench.mjs,
// docs/restate-performance.md): the benchmark's three workflows written as a Restate user
// would write them without Orbit — plain Restate workflows whose steps are done by
// external workers through Restate's documented pattern for them (docs.restate.dev,
// "Awakeables": create an awakeable, hand its ID to the external system inside `ctx.run`
// so that it is sent once, await it; the worker resolves it through the ingress,
// `POST /restate/awakeables/{id}/resolve`, or rejects it, `…/reject`).
//
// The same steps as the Orbit programs beside this file (one_step.orbit, checkout.orbit,
// nine_step.orbit), with what a user would hand-write of their policies: the charge's
// idempotency key, its 10 s timeout (`orTimeout`, a durable timer) and 5 attempts with an
// exponential backoff (500 ms doubling, at most 10 s; CARD_DECLINED and INSUFFICIENT_FUNDS
// not retried). What it has not: a history, a queue
// (a task is pushed to a worker, which must be up: Restate retries the `ctx.run` until
// one answers), a queue timeout, heartbeats and redelivery of a lost worker's task, and
// signals, versions and `migrate`. The picks of an order's items run one after another.
import '../../hosts/restate/lib/compat.mjs';
import * as restate from '../../hosts/restate/node_modules/@restatedev/restate-sdk/dist/index.js';

const { TerminalError, TimeoutError } = restate;

/** The worker a task is pushed to: one of `workers` (URLs), by a hash of the awakeable's ID. */
function workerFor(workers, id) {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return workers[h % workers.length];
}

/** Hands a task to a worker: it answers 202 at once and resolves the awakeable when done. */
async function dispatch(workers, body) {
  const url = `${workerFor(workers, body.awakeable)}/task`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10000),
  });
  if (response.status !== 202) throw new Error(`${url}: ${response.status}`);
  await response.arrayBuffer();
}

/**
 * One step done by an external worker, with its policy: an attempt is an awakeable handed
 * to a worker and awaited (at most `timeoutMs`); a failure or a timeout is retried after a
 * backoff, up to `attempts`, unless its code is `nonRetryable`.
 */
async function step(ctx, workers, task, input, o = {}) {
  const { key = null, timeoutMs = 0, attempts = 1, initialDelayMs = 500, maxDelayMs = 10000, nonRetryable = [] } = o;
  for (let attempt = 1; ; attempt++) {
    const { id, promise } = ctx.awakeable();
    await ctx.run(`${task} ${attempt}`, () =>
      dispatch(workers, { task, awakeable: id, input, idempotency_key: key, attempt }),
    );
    try {
      return await (timeoutMs > 0 ? promise.orTimeout(timeoutMs) : promise);
    } catch (e) {
      if (!(e instanceof TerminalError) && !(e instanceof TimeoutError)) throw e;
      const code = e instanceof TimeoutError ? 'TIMEOUT' : String(e.message).split(':')[0];
      if (attempt >= attempts || nonRetryable.includes(code)) throw new TerminalError(`${task}: ${e.message}`);
      await ctx.sleep(Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
    }
  }
}

/** The baseline's workflows, their tasks pushed to `workers` (the workers' URLs). */
export function baselineServices(workers) {
  return [
    restate.workflow({
      name: 'one_step',
      handlers: {
        run: async (ctx, input) => {
          const s1 = await step(ctx, workers, 'bench.step', { id: input.id, n: 1 });
          return { n: s1.n };
        },
      },
    }),
    restate.workflow({
      name: 'nine_step',
      handlers: {
        run: async (ctx, input) => {
          let s = { id: input.id, n: 0 };
          for (let n = 1; n <= 9; n++) s = await step(ctx, workers, 'bench.step', { id: s.id, n });
          return { n: s.n };
        },
      },
    }),
    restate.workflow({
      name: 'checkout',
      handlers: {
        run: async (ctx, input) => {
          const charge = await step(
            ctx,
            workers,
            'payments.charge',
            { order_id: input.order_id, amount: input.total.amount, currency: input.total.currency },
            {
              key: `charge-${input.order_id}`,
              timeoutMs: 10000,
              attempts: 5,
              nonRetryable: ['CARD_DECLINED', 'INSUFFICIENT_FUNDS'],
            },
          );
          // One after another (the benchmark's orders have one item; a parallel version
          // needs the SDK's RestatePromise combinators over the attempts, not async functions).
          for (const sku of input.items) await step(ctx, workers, 'warehouse.pick', { sku });
          return { charge_id: charge.charge_id };
        },
      },
    }),
  ];
}
