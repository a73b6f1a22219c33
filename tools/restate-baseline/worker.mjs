// A worker process of the benchmark (tools/restate_bench.mjs): the same tasks (tasks.mjs)
// on either side —
//   --side orbit      pulls them from the Orbit host's queues over the worker protocol
//                     (hosts/restate/lib/worker.mjs, 64 at a time per task); with
//                     --push-serve URL (serve's worker port) it is also pushed them
//                     (docs/restate.md, "Pushed workers");
//   --side baseline   is pushed them by the hand-written baseline (services.mjs) on
//                     http://127.0.0.1:PORT/task, answers 202 at once and resolves the
//                     task's awakeable through the ingress when done (Restate's documented
//                     pattern for an external worker).
// Appends one line per task it receives to LOG, `MS EXECUTION STEP`, and one per new
// idempotency key it charges, `charge KEY`; flushed when it is stopped with SIGTERM.
//
//   node worker.mjs --side orbit|baseline --ingress URL --log FILE
//        [--program NAME --tasks T1,T2 [--push-serve URL]] [--port N] [--id WORKER_ID]
import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { runWorker, TaskError } from '../../hosts/restate/lib/worker.mjs';
import { executionOf, stepOf, taskHandlers } from './tasks.mjs';

const { values: o } = parseArgs({
  options: {
    side: { type: 'string' },
    ingress: { type: 'string' },
    log: { type: 'string' },
    program: { type: 'string' },
    tasks: { type: 'string', default: '' },
    port: { type: 'string', default: '0' },
    id: { type: 'string', default: `bench-${process.pid}` },
    'push-serve': { type: 'string' },
  },
});
const out = fs.createWriteStream(o.log, { flags: 'a' });
const handlers = taskHandlers((key) => out.write(`charge ${key}\n`));
const received = (task, input) => out.write(`${Date.now()} ${executionOf(input)} ${stepOf(task, input)}\n`);

let stop = async () => {};
if (o.side === 'orbit') {
  const workers = o.tasks
    .split(',')
    .filter(Boolean)
    .map((task) =>
      runWorker({
        ingress: o.ingress,
        program: o.program,
        task,
        workerId: o.id,
        concurrency: 64,
        ...(o['push-serve'] ? { push: { serve: o['push-serve'] } } : {}),
        handler: async (input, t) => {
          received(task, input);
          return handlers[task](input, t.idempotency_key);
        },
      }),
    );
  stop = () => Promise.all(workers.map((w) => w.stop()));
  await Promise.all(workers.map((w) => w.pushed));
  console.log(`worker ${o.id}: polling ${o.tasks} of ${o.program}`);
} else if (o.side === 'baseline') {
  const settle = async (id, how, body, type) => {
    for (let tries = 0; tries < 20; tries++) {
      try {
        const r = await fetch(`${o.ingress}/restate/awakeables/${encodeURIComponent(id)}/${how}`, {
          method: 'POST',
          headers: { 'content-type': type },
          body,
          signal: AbortSignal.timeout(30000),
        });
        await r.arrayBuffer();
        if (r.ok) return;
      } catch {
        /* the ingress is busy or away: again */
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.error(`worker ${o.id}: could not ${how} ${id}`);
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let t;
      try {
        t = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (!handlers[t?.task]) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(202).end();
      received(t.task, t.input);
      let output;
      try {
        output = handlers[t.task](t.input, t.idempotency_key);
      } catch (e) {
        const code = e instanceof TaskError ? e.code : 'WORKER_ERROR';
        settle(t.awakeable, 'reject', `${code}: ${e.message}`, 'text/plain');
        return;
      }
      settle(t.awakeable, 'resolve', JSON.stringify(output), 'application/json');
    });
  });
  await new Promise((resolve) => server.listen(Number(o.port), '127.0.0.1', resolve));
  stop = () => new Promise((resolve) => server.close(resolve));
  console.log(`worker ${o.id}: listening on http://127.0.0.1:${server.address().port}`);
} else {
  console.error('usage: worker.mjs --side orbit|baseline --ingress URL --log FILE ...');
  process.exit(2);
}

process.on('SIGTERM', () => {
  // Not waiting for the long polls to end: the benchmark's run is over.
  void stop;
  out.end(() => process.exit(0));
});
