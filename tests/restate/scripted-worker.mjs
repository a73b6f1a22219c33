// Scripted workers over the worker protocol: the workers of a scenario (docs/runtime.md,
// "Scenarios") as a real process that polls the Restate host's queues.
//
//   node scripted-worker.mjs SCENARIO.json INGRESS PROGRAM TIME_SCALE [STATE.json]
//
// For each task the scenario scripts (built-in tasks are the host's), one poll loop takes
// the next outcome of the task's list in pickup order: it waits `pickup_ms` (real time:
// the scenario's milliseconds divided by TIME_SCALE) before claiming, then answers after
// `after_ms`, or stops heartbeating (`lost_after_ms`: the queue finds it lost), or never
// answers but heartbeats (`never_answers`). STATE.json, if given, is where the outcomes used
// so far are kept, so that a worker started again (after kill -9) goes on with the script.
import fs from 'node:fs';
import { complete, fail, heartbeat, poll, shards } from '../../hosts/restate/lib/worker.mjs';

const [scenarioPath, ingress, program, scaleText, statePath] = process.argv.slice(2);
const scenario = JSON.parse(fs.readFileSync(scenarioPath, 'utf8'));
const scale = Number(scaleText);
const used = statePath && fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, 'utf8')) : {};
const held = new Map(); // lease -> its queue key (heartbeats)
const queueOf = {}; // task -> its queue key (served with one shard: the scripts are per task)
// Short long polls: a poll still waiting when the process is killed takes the next task
// queued for it (and that task is then redelivered); the tests wait this long after a kill.
export const POLL_WAIT_MS = 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function saveState() {
  if (!statePath) return;
  fs.writeFileSync(statePath + '.tmp', JSON.stringify(used));
  fs.renameSync(statePath + '.tmp', statePath);
}

function answerOf(outcome) {
  if ('fail' in outcome) {
    const f = outcome.fail;
    return { fail: [f.code, f.message ?? '', f.retryable ?? true] };
  }
  return { output: outcome.succeed ?? {} };
}

async function serve(task, script) {
  const list = script.attempts ?? [];
  const workerId = script.worker_id ?? 'worker-1';
  for (;;) {
    const next = list[used[task] ?? 0];
    if (!next) return; // the script is over: nothing more is taken
    const pickup = (next.pickup_ms ?? script.pickup_ms ?? 0) / scale;
    let tasks;
    try {
      // Several at once when they need no pickup delay: attempts queued together are
      // picked up together, as orbit-run's scripted workers (one per attempt) do.
      let max = 1;
      while (
        pickup === 0 &&
        (list[(used[task] ?? 0) + max]?.pickup_ms ?? script.pickup_ms ?? 0) === 0 &&
        (used[task] ?? 0) + max < list.length
      )
        max++;
      tasks = await poll(ingress, program, queueOf[task], workerId, max, pickup, POLL_WAIT_MS);
    } catch {
      await sleep(50);
      continue;
    }
    if (tasks.length === 0) {
      if (pickup > 0) await sleep(5); // a pickup delay is polled for, not waited on
      continue;
    }
    for (const t of tasks) take(task, t, list[used[task] ?? 0]);
  }
}

/** Task `t` gets the next outcome of its script, `next`. */
function take(task, t, next) {
  used[task] = (used[task] ?? 0) + 1;
  saveState();
  if (!next || 'lost_after_ms' in next) return; // no heartbeat, no answer: lost
  held.set(t.lease, t.queue);
  if (next.never_answers) return;
  (async () => {
    await sleep((next.after_ms ?? 0) / scale);
    held.delete(t.lease);
    const a = answerOf(next);
    for (let i = 0; i < 100; i++) {
      try {
        if (a.output !== undefined) await complete(ingress, program, t.queue, t.lease, a.output);
        else await fail(ingress, program, t.queue, t.lease, ...a.fail);
        return;
      } catch {
        await sleep(100); // the server is away: answer again
      }
    }
  })();
}

async function beat() {
  for (;;) {
    await sleep(300);
    const byTask = new Map();
    for (const [lease, queue] of held) byTask.set(queue, [...(byTask.get(queue) ?? []), lease]);
    for (const [queue, leases] of byTask) {
      try {
        for (const lease of await heartbeat(ingress, program, queue, 'scripted', leases)) held.delete(lease);
      } catch {
        /* the server is away */
      }
    }
  }
}

// Ready when every queue has answered once (an empty poll that takes nothing): the
// workers are there before the execution starts, as in orbit-run.
const tasks = Object.keys(scenario.workers ?? {}).filter((task) => !task.startsWith('orbit.'));
for (const task of tasks) {
  for (let i = 0; ; i++) {
    try {
      const keys = await shards(ingress, program, task);
      if (keys.length !== 1) throw new Error(`${task}: ${keys.length} queue shards (serve with --queue-shards 1)`);
      queueOf[task] = keys[0];
      await poll(ingress, program, queueOf[task], 'ready-check', 1, 24 * 3600 * 1000, 0);
      break;
    } catch (e) {
      if (i >= 200) throw e;
      await sleep(100);
    }
  }
}
console.log('ready');
beat();
await Promise.all(
  Object.entries(scenario.workers ?? {})
    .filter(([task]) => !task.startsWith('orbit.'))
    .map(([task, script]) => serve(task, script)),
);
// Every script is over: keep heartbeating for `never_answers` until killed.
await new Promise(() => {});
