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
//
// With ORBIT_PUSH_SERVE (serve's worker port, `serve --worker-listen`) it is also a pushed
// worker (hosts/restate/lib/push.mjs): it registers each task and takes the tasks offered
// whose next outcome needs no pickup delay (the others it refuses, 429: they go to the
// queue, where its polls claim them after their delay); a `lost_after_ms` outcome is
// taken and then denied by its liveness checks, a `never_answers` one is confirmed by
// them for ever; answers go to serve's worker port.
import fs from 'node:fs';
import http from 'node:http';
import { complete, fail, heartbeat, poll, shards } from '../../hosts/restate/lib/worker.mjs';
import { PATHS, parsePushLease, post, readJson, reply } from '../../hosts/restate/lib/push.mjs';

const [scenarioPath, ingress, program, scaleText, statePath] = process.argv.slice(2);
const scenario = JSON.parse(fs.readFileSync(scenarioPath, 'utf8'));
const scale = Number(scaleText);
const used = statePath && fs.existsSync(statePath) ? JSON.parse(fs.readFileSync(statePath, 'utf8')) : {};
const held = new Map(); // lease -> its queue key (heartbeats)
const queueOf = {}; // task -> its queue key (served with one shard: the scripts are per task)
// Short long polls: a poll still waiting when the process is killed takes the next task
// queued for it (and that task is then redelivered); the tests wait this long after a kill.
export const POLL_WAIT_MS = 1000;
const pushServe = process.env.ORBIT_PUSH_SERVE || null;
const seen = new Set(); // the pushed leases taken (an offer replayed is taken, not scripted again)
const answered = new Set(); // the pushed leases answered (said to a liveness check)
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

/** Task `t` gets the next outcome of its script, `next` (`t.queue` null: pushed). */
function take(task, t, next) {
  used[task] = (used[task] ?? 0) + 1;
  saveState();
  if (!next || 'lost_after_ms' in next) return; // no heartbeat, no answer: lost
  held.set(t.lease, t.queue);
  if (next.never_answers) return;
  (async () => {
    await sleep((next.after_ms ?? 0) / scale);
    const a = answerOf(next);
    for (let i = 0; i < 100; i++) {
      try {
        if (t.queue === null) {
          const body =
            a.output !== undefined
              ? { output: a.output }
              : { code: a.fail[0], message: a.fail[1], retryable: a.fail[2] };
          const r = await post(
            `${pushServe}${a.output !== undefined ? PATHS.complete : PATHS.fail}`,
            { ...body, lease: t.lease },
            null,
            30000,
          );
          if (r.status !== 200) throw new Error(`answer: ${r.status}`);
        } else if (a.output !== undefined) await complete(ingress, program, t.queue, t.lease, a.output);
        else await fail(ingress, program, t.queue, t.lease, ...a.fail);
        if (t.queue === null) answered.add(t.lease);
        break;
      } catch {
        await sleep(100); // the server is away: answer again
      }
    }
    held.delete(t.lease);
  })();
}

/** Serve's worker port pushes tasks: taken when their next outcome needs no pickup delay. */
async function pushed(tasks) {
  const server = http.createServer(async (req, res) => {
    const { body, error, status } = await readJson(req, 64 * 1024 * 1024);
    if (error) return reply(res, status, { error });
    const leases = Array.isArray(body?.leases) ? body.leases : [];
    if (req.url === PATHS.alive)
      return reply(res, 200, {
        alive: leases.filter((l) => held.has(l)),
        answered: leases.filter((l) => answered.has(l)),
      });
    if (req.url === PATHS.cancel) {
      for (const l of leases) held.delete(l); // as a heartbeat's cancel list: no more heartbeats
      return reply(res, 200, {});
    }
    const script = scenario.workers?.[body?.task];
    if (req.url !== PATHS.task || !parsePushLease(body?.lease) || !script) return reply(res, 400, { error: 'no' });
    if (held.has(body.lease) || seen.has(body.lease))
      return reply(res, 202, { worker_id: script.worker_id ?? 'worker-1' });
    const next = (script.attempts ?? [])[used[body.task] ?? 0];
    if (!next || (next.pickup_ms ?? script.pickup_ms ?? 0) > 0) return reply(res, 429, { error: 'busy' });
    seen.add(body.lease);
    take(body.task, { lease: body.lease, queue: null }, next);
    return reply(res, 202, { worker_id: script.worker_id ?? 'worker-1' });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const register = async () => {
    for (const task of tasks) await post(`${pushServe}${PATHS.register}`, { task, url, worker_id: 'scripted' }, null);
  };
  await register();
  setInterval(() => register().catch(() => {}), 1000);
}

async function beat() {
  for (;;) {
    await sleep(300);
    const byTask = new Map();
    for (const [lease, queue] of held) if (queue !== null) byTask.set(queue, [...(byTask.get(queue) ?? []), lease]);
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
if (pushServe) await pushed(tasks);
console.log('ready');
beat();
await Promise.all(
  Object.entries(scenario.workers ?? {})
    .filter(([task]) => !task.startsWith('orbit.'))
    .map(([task, script]) => serve(task, script)),
);
// Every script is over: keep heartbeating for `never_answers` until killed.
await new Promise(() => {});
