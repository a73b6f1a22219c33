// A worker process of the security cases (tests/restate/security.mjs): serves `echo` with
// the worker library, `CONCURRENCY` tasks at a time, answering its input at once, or after
// `MS` milliseconds for an input `slow:MS`. Prints `ready` once it has asked for the
// queue's shards. The workers' token comes from ORBIT_WORKER_TOKEN (the library's default).
//   node echo-worker.mjs INGRESS PROGRAM WORKER_ID [CONCURRENCY]
import { runWorker, shards } from '../../hosts/restate/lib/worker.mjs';

const [ingress, program, workerId, concurrency = '1'] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (let i = 0; ; i++) {
  try {
    await shards(ingress, program, 'echo');
    break;
  } catch (e) {
    if (i >= 100) throw e;
    await sleep(100);
  }
}
runWorker({
  ingress,
  program,
  task: 'echo',
  workerId,
  concurrency: Number(concurrency),
  handler: async (input) => {
    const m = /^slow:(\d+)$/.exec(input.s);
    if (m) await sleep(Number(m[1]));
    return { s: `${input.s} by ${workerId}` };
  },
});
console.log('ready');
