// A worker process of the load test: serves `payments.charge` and `warehouse.pick` with
// the worker library, answering at once, and charges once per idempotency key (a
// redelivered or retried attempt with a key already charged gets the same charge id).
// Appends one line per charge it made, `KEY`, to LOG.
//   node load-worker.mjs INGRESS PROGRAM WORKER_ID LOG
import fs from 'node:fs';
import { runWorker } from '../../hosts/restate/lib/worker.mjs';

const [ingress, program, workerId, log] = process.argv.slice(2);
process.on('uncaughtException', (e) => console.error(`uncaught: ${e.stack ?? e}`));
process.on('unhandledRejection', (e) => console.error(`unhandled: ${e?.stack ?? e}`));
const charged = new Map();
runWorker({
  ingress,
  program,
  task: 'payments.charge',
  workerId,
  concurrency: 64,
  handler: async (input, t) => {
    if (!charged.has(t.idempotency_key)) {
      charged.set(t.idempotency_key, `ch_${input.order_id}`);
      fs.appendFileSync(log, t.idempotency_key + '\n');
    }
    return { charge_id: charged.get(t.idempotency_key) };
  },
});
runWorker({ ingress, program, task: 'warehouse.pick', workerId, concurrency: 64, handler: async () => ({}) });
