// Pushed workers on a real restate-server (docs/restate.md, "Pushed workers"; the
// protocol: hosts/restate/lib/push.mjs) — each case what must hold when tasks are pushed
// to workers instead of polled:
//
//   push checkout               checkout's shape (load.orbit: a 2 s cool-off) with its
//                               scripted workers pushed its tasks (retries, children, a
//                               signal): orbit-run's history, and no attempt queued
//   push crash worker -9        a pushed worker killed mid-attempt: the execution's
//                               liveness check finds it lost, the attempt is redelivered
//                               (same attempt number) to the worker started again
//   push crash server -9        restate-server killed with -9 while a pushed attempt runs:
//                               the worker's answer reaches the execution once it is back,
//                               attempt for attempt as orbit-run
//   push protocol               serve's worker port and a pushed worker refuse calls
//                               without the workers' token, malformed ones, forged leases;
//                               with the token, a worker registered at a dead address is
//                               passed over and a real one takes every task; an output
//                               over the value limit fails its attempt (OUTPUT_TOO_LARGE)
//   push back-pressure          a full worker (429) sends the task to the queue, where a
//                               polling worker takes it; every execution completes once
//   push cancel                 a step's attempt 1 times out, its retry is pushed, then
//                               attempt 1's late answer completes the step: the worker of
//                               attempt 2 is told to stop (its task's signal aborted)
import fs from 'node:fs';
import path from 'node:path';
import * as h from './harness.mjs';
import { runWorker } from '../../hosts/restate/lib/worker.mjs';

const TOKEN = 'orbit-test-push-token-0123456789abcdef';

/** A POST with a JSON (or raw text) body: {status, body}; status 0 when nothing answered. */
async function post(url, body, headers = {}) {
  try {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(30000),
    });
    const text = await r.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: r.status, body: parsed };
  } catch (e) {
    return { status: 0, body: e.message };
  }
}

/** How many `enqueue` calls the server has seen (attempts that went to a queue shard). */
async function enqueued(server) {
  let n;
  await h.until(
    async () => {
      n = await h.sqlCount(server, "SELECT count(*) AS n FROM sys_invocation WHERE target_handler_name = 'enqueue'");
      return Number.isInteger(n);
    },
    30000,
    'the server counts its enqueue calls',
  );
  return n;
}

const dispatched = (history) => history.split('\n').filter((l) => l.includes('StepDispatched')).length;

/**
 * @param {object} o
 * @param {object} o.server     the group's restate-server
 * @param {Function} o.expectSame a scenario's comparison with orbit-run (restate-test.mjs)
 * @param {Function} o.serverCrash the case `crash server -9 …` (restate-test.mjs), with `push`
 * @param {Function} o.workerCrash the case `crash worker -9 mid-attempt`, with `push`
 */
export async function pushCases({ server, dir, compile, check, expectSame, serverCrash, workerCrash }) {
  let serial = 0;
  const id = (name) => `${name}-${process.pid}-${serial++}`;
  await check('push checkout', async () => {
    const before = await enqueued(server);
    const r = await expectSame({
      name: 'push-checkout',
      orbc: compile(path.join(h.HERE, 'load.orbit')),
      scenarioPath: path.join(h.HERE, 'checkout.scenario.json'),
      srv: server,
      timeScale: 3,
      toleranceRealMs: 2500,
      push: true,
    });
    const queued = (await enqueued(server)) - before;
    if (queued !== 0) throw new Error(`${queued} attempts went to a queue shard, not pushed`);
    return `${r.actual.trim().split('\n').length} events as orbit-run's, off by at most ${r.maxDelta} ms; ${dispatched(r.actual)} attempts pushed, none queued`;
  });

  const crash = compile(path.join(h.HERE, 'crash', 'crash.orbit'));
  await check('push crash worker -9 mid-attempt', () => workerCrash(server, crash, { push: true }));
  await check('push crash server -9 during an in-flight attempt', () =>
    serverCrash(server, crash, 'during an in-flight attempt', 'StepDispatched step=ship', 1000, { push: true }),
  );

  const secure = compile(path.join(h.HERE, 'security', 'secure.orbit'));
  const tokenFile = path.join(dir, 'push-token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const auth = { authorization: `Bearer ${TOKEN}` };

  /** `serve` of secure.orbit with a worker port and the token, and `fn(served)`. */
  const withServe = async (fn, options = {}) => {
    const served = await h.serve(server, secure, dir, {
      push: true,
      queueShards: 2,
      args: ['--worker-token-file', tokenFile],
      ...options,
    });
    try {
      return await fn(served);
    } finally {
      await served.kill('SIGTERM');
    }
  };
  /** Executions of `secure` with inputs `inputs`, each sent `go` once it has its answer: their results. */
  const runAll = async (inputs) => {
    const ids = inputs.map(() => id('push'));
    await Promise.all(ids.map((x, i) => h.startExecution(server, 'secure', x, { s: inputs[i] })));
    return Promise.all(
      ids.map(async (x) => {
        await h.until(
          async () => (await h.history(server, 'secure', x)).includes('SignalWaitStarted'),
          60000,
          `${x} waits for go`,
        );
        await h.signal(server, 'secure', x, 'go', null);
        return { id: x, result: await h.result(server, 'secure', x, 60000) };
      }),
    );
  };

  await check('push protocol', async () => {
    return withServe(async (served) => {
      const problems = [];
      const expect = (what, got, status) => {
        if (got.status !== status)
          problems.push(`${what}: HTTP ${got.status}, not ${status} (${JSON.stringify(got.body)})`);
      };
      const port = served.pushServe;
      const lease = `sign_1abc.${'0'.repeat(32)}`;
      expect(
        'register without the token',
        await post(`${port}/orbit/workers`, { task: 'echo', url: 'http://127.0.0.1:9' }),
        401,
      );
      expect(
        'complete with another token',
        await post(`${port}/orbit/complete`, { lease, output: {} }, { authorization: 'Bearer nope' }),
        401,
      );
      expect('fail without the token', await post(`${port}/orbit/fail`, { lease, code: 'X' }), 401);
      expect('a body that is not JSON', await post(`${port}/orbit/complete`, '{"lease":', auth), 400);
      expect(
        'complete with a lease that is not one',
        await post(`${port}/orbit/complete`, { lease: 'W:1|1|1', output: {} }, auth),
        400,
      );
      expect('fail with a bad code', await post(`${port}/orbit/fail`, { lease, code: 'no spaces' }, auth), 400);
      expect(
        'register a URL that is not one',
        await post(`${port}/orbit/workers`, { task: 'echo', url: 'file:///etc' }, auth),
        400,
      );
      expect('an unknown path', await post(`${port}/restate/awakeables/x/resolve`, {}, auth), 404);
      // The port binds loopback: it is not reachable on another address of the machine.
      if (!/^http:\/\/127\.0\.0\.1:/.test(port)) problems.push(`the worker port is ${port}, not on loopback`);
      // A worker registered at an address where nothing listens is passed over (and
      // forgotten); the real worker, with the token, takes every task; nothing is queued.
      expect(
        'register a dead worker',
        await post(`${port}/orbit/workers`, { task: 'echo', url: `http://127.0.0.1:${await h.freePort()}` }, auth),
        200,
      );
      const seen = [];
      const w = runWorker({
        ingress: server.ingress,
        program: served.program,
        task: 'echo',
        workerId: 'pushed-1',
        concurrency: 4,
        token: TOKEN,
        push: { serve: port },
        pollWaitMs: 1000, // stopped in a second, not 20
        handler: async (input) => {
          seen.push(input.s);
          return { s: input.s === 'big' ? 'x'.repeat(5 * 1000 * 1000) : `${input.s}!` };
        },
      });
      try {
        const { url } = await w.pushed;
        expect(
          'a task pushed to the worker without the token',
          await post(`${url}/orbit/task`, { lease, task: 'echo', input: { s: 'x' } }),
          401,
        );
        expect(
          'a task with a forged lease',
          await post(`${url}/orbit/task`, { lease: 'x', task: 'echo', input: { s: 'x' } }, auth),
          400,
        );
        expect('a liveness check without the token', await post(`${url}/orbit/alive`, { leases: [lease] }), 401);
        if (seen.length > 0) problems.push(`the worker ran ${seen.length} forged tasks`);
        const before = await enqueued(server);
        const results = await runAll(['a', 'b', 'c']);
        for (const { id: x, result } of results)
          if (result?.status !== 'COMPLETED' || !/!$/.test(result.output?.s ?? ''))
            problems.push(`${x}: ${JSON.stringify(result)}`);
        const queued = (await enqueued(server)) - before;
        if (queued !== 0) problems.push(`${queued} tasks went to the queue (the live worker had room)`);
        if (seen.length !== 3) problems.push(`the worker ran ${seen.length} tasks, not 3`);
        // An output over the value limit: serve refuses it (413), the worker fails the
        // attempt with OUTPUT_TOO_LARGE (not retryable), the execution fails with it.
        const big = id('big');
        await h.startExecution(server, 'secure', big, { s: 'big' });
        const r = await h.result(server, 'secure', big, 60000);
        if (r?.status !== 'FAILED' || r.error !== 'OUTPUT_TOO_LARGE')
          problems.push(`a 5 MB output: ${JSON.stringify(r).slice(0, 300)}, not FAILED with OUTPUT_TOO_LARGE`);
      } finally {
        await w.stop();
      }
      if (problems.length > 0) throw new Error(problems.join('; '));
      return '9 bad calls refused; a dead worker passed over; 3 executions pushed, none queued; a 5 MB output failed OUTPUT_TOO_LARGE';
    });
  });

  await check('push back-pressure', async () => {
    return withServe(async (served) => {
      const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
      let pushedRuns = 0;
      const w = runWorker({
        ingress: server.ingress,
        program: served.program,
        task: 'echo',
        workerId: 'slow-1',
        concurrency: 1,
        token: TOKEN,
        push: { serve: served.pushServe },
        pollWaitMs: 1000, // stopped in a second, not 20
        handler: async (input, t) => {
          if (typeof t.queue !== 'string') pushedRuns++;
          await sleep(1500);
          return { s: `${input.s}!` };
        },
      });
      try {
        await w.pushed;
        const before = await enqueued(server);
        const results = await runAll(['a', 'b', 'c', 'd']);
        const bad = results.filter((r) => r.result?.status !== 'COMPLETED');
        if (bad.length > 0) throw new Error(`not completed: ${JSON.stringify(bad)}`);
        const queued = (await enqueued(server)) - before;
        if (queued === 0 || pushedRuns === 0)
          throw new Error(`${pushedRuns} tasks pushed, ${queued} queued: a full worker should send some to the queue`);
        const histories = await Promise.all(results.map((r) => h.logs(server, r.id)));
        const twice = histories.filter((x) => (x.match(/StepCompleted step=one/g) ?? []).length !== 1);
        if (twice.length > 0) throw new Error(`a step completed other than once: ${twice[0]}`);
        return `4 executions, concurrency 1: ${pushedRuns} pushed, ${queued} queued and polled, each completed once`;
      } finally {
        await w.stop();
      }
    });
  });

  const cancelOrbc = path.join(dir, 'push-cancel.orbit');
  fs.writeFileSync(
    cancelOrbc,
    `worker "echo" {
  input { s: string }
  output { s: string }
}

workflow slow {
  input { s: string }
  output { s: string }
  step one {
    worker "echo"
    with { s: input.s }
    timeout 1s
    retry { attempts: 2, backoff: fixed, initial_delay: 100ms }
  }
  return { s: one.s }
}
`,
  );
  const slow = compile(cancelOrbc);
  await check('push cancel', async () => {
    const served = await h.serve(server, slow, dir, { push: true, args: ['--worker-token-file', tokenFile] });
    const aborted = [];
    let attempts = 0;
    const w = runWorker({
      ingress: server.ingress,
      program: served.program,
      task: 'echo',
      concurrency: 2,
      token: TOKEN,
      push: { serve: served.pushServe },
      pollWaitMs: 1000, // stopped in a second, not 20
      handler: (_input, t) =>
        new Promise((resolve) => {
          attempts++;
          if (t.attempt === 1) return setTimeout(() => resolve({ s: 'late' }), 1500);
          t.signal.addEventListener('abort', () => {
            aborted.push(t.attempt);
            resolve({ s: 'too late' });
          });
          setTimeout(() => resolve({ s: 'never told' }), 30000); // the worker stops, whatever happens
        }),
    });
    try {
      await w.pushed;
      const x = id('cancel');
      await h.startExecution(server, 'slow', x, { s: 'a' });
      const result = await h.result(server, 'slow', x, 60000);
      const history = await h.logs(server, x);
      if (result?.status !== 'COMPLETED' || result.output?.s !== 'late')
        throw new Error(`result ${JSON.stringify(result)}\n${history}`);
      await h.until(() => aborted.length > 0, 10000, "the worker's task aborted").catch(() => {});
      if (aborted.join() !== '2' || attempts !== 2)
        throw new Error(`${attempts} tasks run, signals aborted for attempts [${aborted}], not [2]\n${history}`);
      return "attempt 1's late answer completed the step; the worker of attempt 2 was told to stop";
    } finally {
      await w.stop();
      await served.kill('SIGTERM');
    }
  });
}
