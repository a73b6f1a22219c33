// Many executions at once on one restate-server and one `orbit-restate serve`, with
// sharded task queues and three worker processes (load-worker.mjs): what the small load
// case of restate-test.mjs and the benchmark tools/restate_bench.mjs both run
// (docs/restate.md, "Tests" and "Load").
import fs from 'node:fs';
import path from 'node:path';
import * as h from './harness.mjs';
import { inboxKey, programServices, shardOf, shortVersion, versionOf } from '../../hosts/restate/lib/names.mjs';

const START_BATCH = 25; // start requests in flight at a time

/**
 * Starts `n` executions of the program's `checkout` (an order each, its signal sent),
 * waits for every result and checks: all COMPLETED, one `run` invocation each (none
 * twice), every order charged (by its idempotency key, and only those), the charge
 * attempts spread over the queue shards their executions hash to.
 * @returns {Promise<{n, seconds, perSecond, p50, p99, runs, keys, charges, shardsUsed, shards, atOnce}>}
 *   seconds: the wall time; p50, p99: the end-to-end times (s), start request to result;
 *   atOnce: the most executions in flight at one moment, as the server saw them
 */
export async function runLoad({ server, orbc, dir, n, timeScale = 1, shards = 8, boundMs = 900000, last = false }) {
  const served = await h.serve(server, orbc, dir, { timeScale, heartbeatTimeoutMs: 10000, queueShards: shards });
  await h.pollsOver(server);
  const log = path.join(dir, 'charges.log');
  fs.writeFileSync(log, '');
  const procs = [1, 2, 3].map((i) =>
    h.startProcess(
      process.execPath,
      [path.join(h.HERE, 'load-worker.mjs'), server.ingress, served.program, `load-${i}`, log],
      path.join(dir, `load-worker-${i}.log`),
    ),
  );
  try {
    const input = (i) => ({ order_id: `L${i}`, total: { amount: 10 + i, currency: 'EUR' }, items: ['sku-1'] });
    const ids = Array.from({ length: n }, (_, i) => `load-${i}`);
    const startedAt = new Map();
    const t0 = Date.now();
    for (let i = 0; i < ids.length; i += START_BATCH) {
      await Promise.all(
        ids.slice(i, i + START_BATCH).map(async (id, j) => {
          startedAt.set(id, Date.now());
          await h.startExecution(server, 'checkout', id, input(i + j));
          await h.until(
            () => h.signal(server, 'checkout', id, 'manager_approved', { by: 'load' }).then(() => true),
            300000,
            `signal ${id}`,
          );
        }),
      );
    }
    const ends = new Map();
    const results = await Promise.all(
      ids.map(async (id) => {
        const r = await h.result(server, 'checkout', id, boundMs);
        ends.set(id, Date.now());
        return r;
      }),
    ).catch(async (e) => {
      throw new Error(`${e.message}; ${await stuck(server, served.program, ids, ends)}`);
    });
    const seconds = (Date.now() - t0) / 1000;
    const notCompleted = results.filter((r) => r.status !== 'COMPLETED').length;
    if (notCompleted)
      throw new Error(
        `${notCompleted} of ${n} did not complete: ${JSON.stringify(results.find((r) => r.status !== 'COMPLETED'))}`,
      );
    // None twice: one `run` invocation per execution, as the server counts them.
    const runs = await h.sqlCount(
      server,
      `SELECT count(*) AS n FROM sys_invocation WHERE target_service_name = 'checkout'` +
        ` AND target_handler_name = 'run' AND target_service_key LIKE 'load-%'`,
    );
    const keys = await h.sqlCount(
      server,
      `SELECT count(DISTINCT target_service_key) AS n FROM sys_invocation WHERE target_service_name = 'checkout'` +
        ` AND target_handler_name = 'run' AND target_service_key LIKE 'load-%'`,
    );
    if (runs !== n || keys !== n) throw new Error(`${runs} run invocations for ${keys} executions, not ${n} once each`);
    // Each worker process charges once per idempotency key it sees; a retried attempt
    // (a timeout) may reach another process, which charges it again with the same key —
    // what the payment provider dedupes. Every order's key is there, and only those.
    const charges = fs.readFileSync(log, 'utf8').trim().split('\n');
    const once = new Set(charges);
    const orderKeys = new Set(ids.map((_, i) => `charge-L${i}`));
    if (once.size !== n || [...once].some((k) => !orderKeys.has(k)))
      throw new Error(`${once.size} idempotency keys charged for ${n} orders`);
    // The charges went through the shards their executions hash to, and only those.
    const version = versionOf(fs.readFileSync(orbc));
    const want = new Set(ids.map((id) => shardOf('payments.charge', version, inboxKey('checkout', id), shards)));
    const used = await h.sqlRows(
      server,
      `SELECT DISTINCT service_key AS k FROM state WHERE service_name = '${programServices(served.program).QUEUE.name}'` +
        ` AND key = 'order' AND service_key LIKE 'payments.charge@${shortVersion(version)}~%'`,
    );
    const got = new Set(used.map((r) => r.k));
    if (got.size !== want.size || [...want].some((k) => !got.has(k))) {
      throw new Error(`the charges went to shards ${[...got].sort()}, not ${[...want].sort()}`);
    }
    // How many were in flight at once, as the server saw them: the most `run` invocations
    // created and not yet completed at one moment.
    const spans = await h.sqlRows(
      server,
      `SELECT created_at AS c, completed_at AS e FROM sys_invocation` +
        ` WHERE target_service_name = 'checkout' AND target_handler_name = 'run'` +
        ` AND target_service_key LIKE 'load-%'`,
    );
    const ms = (v) => (typeof v === 'number' ? v : Date.parse(v));
    const edges = spans
      .flatMap((r) => [
        [ms(r.c), 1],
        [ms(r.e), -1],
      ])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let inFlight = 0,
      atOnce = 0;
    for (const [, d] of edges) atOnce = Math.max(atOnce, (inFlight += d));
    const times = ids.map((id) => ends.get(id) - startedAt.get(id)).sort((a, b) => a - b);
    const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))] / 1000;
    return {
      n,
      seconds,
      perSecond: n / seconds,
      p50: pct(0.5),
      p99: pct(0.99),
      runs,
      keys: once.size,
      charges: charges.length,
      shardsUsed: got.size,
      shards,
      atOnce,
    };
  } finally {
    for (const p of procs) await p.kill();
    await served.kill('SIGTERM', { drain: !last });
  }
}

/** One line of figures. */
export function describeLoad(r) {
  return (
    `${r.n} completed, ${r.runs} run invocations; ${r.keys} idempotency keys charged (${r.charges} charges over 3 processes), ` +
    `through ${r.shardsUsed} of ${r.shards} shards; ${r.atOnce} in flight at once; ${r.perSecond.toFixed(1)} executions/s over ${r.seconds.toFixed(0)} s; ` +
    `end to end p50 ${r.p50.toFixed(1)} s, p99 ${r.p99.toFixed(1)} s`
  );
}

/**
 * Where the executions not ended yet are, for a failure's message: each one's `run`
 * invocation (status, journal, last failure), the last lines of its history, and what
 * the queue shards hold of it.
 */
async function stuck(server, program, ids, ends) {
  const left = ids.filter((id) => !ends.has(id));
  const parts = [`${left.length} of ${ids.length} not ended (${left.slice(0, 5).join(', ')}…)`];
  for (const id of left.slice(0, 3)) {
    try {
      const [run] = await h.sqlRows(
        server,
        `SELECT status, journal_size, retry_count, last_failure FROM sys_invocation WHERE target_service_name = 'checkout'` +
          ` AND target_handler_name = 'run' AND target_service_key = '${id}'`,
      );
      const history = await fetch(`${server.ingress}/checkout/${encodeURIComponent(id)}/history`, {
        method: 'POST',
        signal: AbortSignal.timeout(10000),
      }).then((r) => r.json());
      const queued = await h.sqlRows(
        server,
        `SELECT service_key, key, value_utf8 FROM state WHERE service_name = '${programServices(program).QUEUE.name}'` +
          ` AND value_utf8 LIKE '%checkout:${id}"%'`,
      );
      parts.push(
        `${id}: run ${JSON.stringify(run)}; history …${JSON.stringify(history.slice(-4))}; in the queues ${JSON.stringify(
          queued.map((q) => `${q.service_key} ${q.key} ${q.value_utf8.slice(0, 200)}`),
        )}`,
      );
    } catch (e) {
      parts.push(`${id}: (${e.message})`);
    }
  }
  return parts.join('; ');
}
