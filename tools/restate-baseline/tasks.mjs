// The work of the benchmark's tasks (tools/restate_bench.mjs), the same on both sides:
// the Orbit host's workers (worker.mjs --side orbit, over the worker protocol) and the
// hand-written baseline's (worker.mjs --side baseline, awakeables). Each answers at once:
// what is measured is the orchestration, not the work.

/** The execution a task belongs to: its input carries the execution's ID. */
export function executionOf(input) {
  return String(input?.id ?? input?.order_id ?? input?.sku ?? '');
}

/** The step of a task within its execution, for the per-step times: `bench.step#3`, `payments.charge`. */
export function stepOf(task, input) {
  return input?.n === undefined ? task : `${task}#${input.n}`;
}

/**
 * A worker process's tasks. `charged`: the idempotency keys it charged (a redelivered or
 * retried charge with a key already charged gets the same charge, as a payment provider
 * dedupes); `onCharge(key)` is told each new one.
 */
export function taskHandlers(onCharge) {
  const charged = new Map();
  return {
    'bench.step': (input) => ({ id: input.id, n: input.n }),
    'payments.charge': (input, key) => {
      if (!charged.has(key)) {
        charged.set(key, `ch_${input.order_id}`);
        onCharge(key);
      }
      return { charge_id: charged.get(key) };
    },
    'warehouse.pick': () => ({}),
  };
}
