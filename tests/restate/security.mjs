// The Restate host, safe to expose (docs/restate.md, "Security" and "Large values"): each
// case an attack or a fault on a real restate-server, and what must hold —
//
//   security large values       a 20 MB worker output (which Restate took and then retried
//                               for ever), a 5 MB input and signal payload each fail only
//                               their own execution (or request), at once, with a clear
//                               error; a bystander completes
//   security worker protocol    a worker without the workers' token, or with another, is
//                               refused; a forged lease, the internal handlers through the
//                               ingress and a malformed heartbeat are refused, and the
//                               shard is not wedged; a nameless signal is a 400, a signal
//                               to an unknown ID a 404 that leaves no state; `logs` of an
//                               unknown ID exits non-zero
//   security forged events      an event resolved through the ingress's awakeables (a
//                               held task's outcome with a forged answer and a wrong
//                               seal, an inbox batch with a forged signal and none) ends
//                               that execution failed with FORGED_EVENT, never with the
//                               forged output; a bystander completes
//   security dead polls         a worker killed with -9: tasks queued after it are done by
//                               the live worker well before the heartbeat timeout
//   security stuck is visible   an execution Restate cannot run (its version not served)
//                               is reported by `logs`, which exits 1
//   security engine fault       a trap inside the engine core's one instance fails the
//                               call that trapped, refuses every later call into it (the
//                               other executions' engines: Restate retries them), and the
//                               loader gives a fresh instance
//   security listen and identity `serve` listens on loopback only, and with the server's
//                               request identity key refuses unsigned requests while the
//                               server's own go through
import crypto from 'node:crypto';
import fs from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import * as h from './harness.mjs';
import { runWorker } from '../../hosts/restate/lib/worker.mjs';
import * as core from '../../hosts/restate/lib/wasm.mjs';
import { ANSWER } from '../../hosts/wasm/engine-enums.js';

const TOKEN = 'orbit-test-worker-token-0123456789';
// Under Restate's 32 MiB body limit and over the host's value limit; its history (the
// value twice, quoted) over Restate's 32 MiB message limit, which the old host hit.
const BIG = 20 * 1000 * 1000;
const LARGE = 5 * 1000 * 1000; // over the host's value limit (4 MiB), cheaper to carry

/** A POST with a JSON text body: {status, text}; status 0 when no answer came within `ms`. */
async function post(url, body, headers = {}, ms = 60000) {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body ?? null),
      signal: AbortSignal.timeout(ms),
    });
    return { status: response.status, text: await response.text() };
  } catch (e) {
    return { status: 0, text: `no answer from ${url.replace(/^http:\/\/[^/]+/, '')} within ${ms} ms (${e.message})` };
  }
}

/** The JSON of an answer, or null. */
const json = (r) => {
  try {
    return JSON.parse(r.text);
  } catch {
    return null;
  }
};

/** The result of an execution, or a description of why there is none within `ms`. */
async function outcome(server, id, ms) {
  try {
    return await h.result(server, 'secure', id, ms);
  } catch (e) {
    return { error: e.message.slice(0, 300) };
  }
}

/** `orbit-restate logs ID ...`: {code, stdout, stderr}. */
const logsOf = (server, id, args = []) =>
  cli(['logs', id, '--ingress', server.ingress, '--admin', server.admin, ...args]);

/** `orbit-restate ARGS...`: {code, stdout, stderr}. */
async function cli(args) {
  try {
    const r = await promisify(execFile)(process.execPath, [path.join(h.PACKAGE, 'bin', 'orbit-restate.mjs'), ...args], {
      encoding: 'utf8',
      timeout: 60000,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? String(e.message) };
  }
}

/** Base58 (Bitcoin's alphabet), for a request identity public key. */
function base58(bytes) {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/** An ed25519 key pair as Restate takes it: the private key's PEM file, `publickeyv1_…`. */
function identityKeyPair(dir) {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const pem = path.join(dir, 'identity.pem');
  fs.writeFileSync(pem, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  return { pem, publicKey: `publickeyv1_${base58(raw)}` };
}

/** An HTTP/2 POST straight to a deployment (not through Restate): its status. */
function direct(port, pathName) {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on('error', reject);
    const req = client.request({ ':method': 'POST', ':path': pathName, 'content-type': 'application/json' });
    req.setTimeout(10000, () => reject(new Error('no answer in 10 s')));
    req.on('response', (headers) => {
      req.resume();
      req.on('end', () => {
        client.close();
        resolve(headers[':status']);
      });
    });
    req.on('error', reject);
    req.end('{}');
  });
}

/** Whether a TCP connection to host:port is accepted (2 s at most). */
function connects(host, port) {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 2000 });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

/**
 * The security cases on `server` (and one more server of their own for the identity key).
 * @param {{server: object, dir: string, compile: (source: string) => string, check: Function, startServer: Function}} o
 */
export async function securityCases({ server, dir, compile, check, startServer }) {
  const orbc = compile(path.join(h.HERE, 'security', 'secure.orbit'));
  const tokenFile = path.join(dir, 'worker-token');
  fs.writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const auth = { authorization: `Bearer ${TOKEN}` };
  const serveArgs = ['--worker-token-file', tokenFile];
  let serial = 0;
  const id = (name) => `${name}-${process.pid}-${serial++}`;

  await check('security engine fault', async () => {
    const load = core.loadCore();
    const orbit = await load();
    const bytes = fs.readFileSync(orbc);
    const bystander = orbit.open(bytes, 'secure', { s: 'a' });
    bystander.start();
    bystander.commands();
    // A handle no engine has: the call reads far outside the module's memory, and traps.
    const trap = await (async () => {
      try {
        new core.OrbitEngine(bystander.heap, 0x7ffffff0).dueFirst();
        return null;
      } catch (e) {
        return e;
      }
    })();
    const problems = [];
    if (!(trap instanceof core.EngineFault) || !trap.here)
      problems.push(`the trapping call threw ${trap}, not an EngineFault of its own`);
    let after = null;
    try {
      bystander.dueFirst();
    } catch (e) {
      after = e;
    }
    if (!(after instanceof core.EngineFault) || after.here !== false)
      problems.push(`a bystander's engine in the failed instance: ${after ?? 'went on using its memory'}`);
    bystander.close();
    const fresh = await load();
    if (fresh === orbit) problems.push('the loader gave the failed instance again');
    const e = fresh.open(bytes, 'secure', { s: 'a' });
    e.start();
    if (!e.commands().some((c) => c.kind === 'queue')) problems.push('the fresh instance does not run an engine');
    e.close();
    if (problems.length > 0) throw new Error(problems.join('; '));
    return `trap: "${trap.message}"; the bystander refused; a fresh instance runs`;
  });

  await check('security large values', async () => {
    const served = await h.serve(server, orbc, dir, { args: serveArgs });
    const big = 'y'.repeat(BIG);
    const large = 'y'.repeat(LARGE);
    const w = runWorker({
      ingress: server.ingress,
      program: served.program,
      task: 'echo',
      token: TOKEN,
      concurrency: 4,
      handler: async (input) => ({ s: input.s === 'big' ? big : input.s }),
    });
    try {
      const [out, bystander, input, signal] = [id('out'), id('bystander'), id('input'), id('signal')];
      await h.startExecution(server, 'secure', out, { s: 'big' });
      await h.startExecution(server, 'secure', bystander, { s: 'small' });
      await h.startExecution(server, 'secure', signal, { s: 'small' });
      const started = await post(`${server.ingress}/secure/${input}/run/send`, { s: large });
      await h.started(server, 'secure', signal, 30000);
      const sent = await post(`${server.ingress}/secure/${signal}/signal`, { name: 'go', payload: large });
      await h.started(server, 'secure', bystander, 30000);
      await h.until(() => h.signal(server, 'secure', bystander, 'go', null).then(() => true), 30000, 'signal sent');
      const results = {
        out: await outcome(server, out, 120000),
        input: started.status === 202 ? await outcome(server, input, 30000) : { refused: started.status },
        bystander: await outcome(server, bystander, 60000),
      };
      const problems = [];
      if (results.out.status !== 'FAILED' || results.out.error !== 'OUTPUT_TOO_LARGE')
        problems.push(
          `the 20 MB output: ${JSON.stringify(results.out).slice(0, 300)}, not FAILED with OUTPUT_TOO_LARGE`,
        );
      if (!results.input.refused && !/over the host's limit/.test(results.input.error ?? ''))
        problems.push(
          `the 5 MB input: ${JSON.stringify(results.input).slice(0, 300)}, not refused with the host's limit`,
        );
      if (sent.status !== 413)
        problems.push(`the 5 MB signal payload: HTTP ${sent.status} ${sent.text.slice(0, 200)}, not 413`);
      if (results.bystander.status !== 'COMPLETED')
        problems.push(`the bystander: ${JSON.stringify(results.bystander)}`);
      if (problems.length > 0) throw new Error(problems.join('; '));
      return `output FAILED ${results.out.error} (${results.out.message?.slice(0, 80)}…); input refused; signal 413; bystander completed`;
    } finally {
      await w.stop();
      await served.kill('SIGTERM');
    }
  });

  await check('security worker protocol', async () => {
    const served = await h.serve(server, orbc, dir, { args: serveArgs });
    const program = served.program;
    const queueUrl = (key, handler) => `${server.ingress}/orbit_queue_${program}/${encodeURIComponent(key)}/${handler}`;
    const problems = [];
    try {
      const shardsAnswer = await post(queueUrl('echo', 'shards'), {}, auth, 30000);
      const keys = json(shardsAnswer)?.keys;
      if (!keys) throw new Error(`shards: HTTP ${shardsAnswer.status} ${shardsAnswer.text.slice(0, 200)}`);
      const queue = keys[0];
      // A worker without the token, or with another.
      const anonymous = await post(queueUrl(queue, 'poll'), { worker_id: 'mallory', wait_ms: 0 });
      const wrong = await post(
        queueUrl(queue, 'poll'),
        { worker_id: 'mallory', wait_ms: 0 },
        { authorization: 'Bearer nope' },
      );
      if (anonymous.status !== 401) problems.push(`a poll without the token: HTTP ${anonymous.status}, not 401`);
      if (wrong.status !== 401) problems.push(`a poll with a wrong token: HTTP ${wrong.status}, not 401`);

      const x = id('forge');
      await h.startExecution(server, 'secure', x, { s: 'real' });
      let task = null;
      await h.until(
        async () => {
          const r = await post(queueUrl(queue, 'poll'), { worker_id: 'honest', max: 1, wait_ms: 2000 }, auth);
          task = json(r)?.tasks?.[0] ?? null;
          return task !== null;
        },
        30000,
        'the task polled',
      );
      await post(queueUrl(queue, 'heartbeat'), { worker_id: 'honest', leases: [task.lease] }, auth);
      // Forged leases: the old guessable form, and the claim with another token.
      // `WORKFLOW:ID|ATTEMPT|DELIVERY`: what anyone who knows the execution's ID can write
      // (the attempt and delivery are small numbers).
      const claim = task.lease.split('|').slice(0, 3).join('|');
      for (const lease of [claim, `${claim}|${'0'.repeat(32)}`]) {
        const r = await post(queueUrl(queue, 'complete'), { lease, output: { s: 'forged' } }, auth);
        if (r.status === 200 && json(r)?.accepted !== false)
          problems.push(`a forged lease ${lease.slice(-40)}: accepted (${r.text})`);
      }
      // The internal handlers, through the ingress.
      const inbox = `secure:${x}`;
      const internal = {
        'inbox push': [
          `orbit_inbox_${program}/${encodeURIComponent(inbox)}/push`,
          { type: 'answered', at: Date.now(), attempt: 1, delivery: 1, answer: { kind: 0, output: { s: 'forged' } } },
        ],
        'inbox clear': [`orbit_inbox_${program}/${encodeURIComponent(inbox)}/clear`, null],
        'queue enqueue': [
          `orbit_queue_${program}/${encodeURIComponent(queue)}/enqueue`,
          {
            items: [
              { inbox, attempt: 99, delivery: 1, number: 1, step: 'one', input: { s: 'evil' }, idempotency_key: 'k' },
            ],
          },
        ],
        'queue sweep': [`orbit_queue_${program}/${encodeURIComponent(queue)}/sweep`, null],
        'http request': [
          `orbit_http_${program}/request`,
          { inbox, attempt: 1, delivery: 1, input: { url: server.admin + '/deployments' } },
        ],
      };
      for (const [what, [url, body]] of Object.entries(internal)) {
        const r = await post(`${server.ingress}/${url}`, body, auth, 10000);
        if (r.status < 400 || r.status >= 500)
          problems.push(`${what} through the ingress: HTTP ${r.status} ${r.text.slice(0, 100)}`);
      }
      // A malformed heartbeat is a 400 at once, and the shard goes on.
      const bad = await post(queueUrl(queue, 'heartbeat'), { worker_id: 'honest', leases: 5 }, auth, 10000);
      if (bad.status !== 400)
        problems.push(`heartbeat {"leases":5}: HTTP ${bad.status} ${bad.text.slice(0, 100)}, not 400`);
      // An answer that takes the next task in the same call (`next`): a malformed one is a
      // 400 (the task stays claimed); the real one hands over y's task, queued meanwhile.
      for (const next of [-1, 101, 1.5, '1']) {
        const r = await post(queueUrl(queue, 'complete'), { lease: task.lease, output: { s: 'x' }, next }, auth, 10000);
        if (r.status !== 400) problems.push(`complete with "next": ${JSON.stringify(next)}: HTTP ${r.status}, not 400`);
      }
      const y = id('next');
      await h.startExecution(server, 'secure', y, { s: 'second' });
      const queued = `SELECT count(*) AS n FROM state WHERE service_name = 'orbit_queue_${program}' AND key LIKE 't:%' AND value_utf8 NOT LIKE '%"claimed":true%'`;
      await h.until(async () => (await h.sqlCount(server, queued)) > 0, 30000, "y's task queued");
      await post(queueUrl(queue, 'heartbeat'), { worker_id: 'honest', leases: [task.lease] }, auth);
      const t = Date.now();
      const real = await post(
        queueUrl(queue, 'complete'),
        { lease: task.lease, output: { s: 'real' }, worker_id: 'honest', next: 1 },
        auth,
        10000,
      );
      if (real.status !== 200 || json(real)?.accepted !== true)
        problems.push(
          `the real worker's answer after them: HTTP ${real.status} ${real.text.slice(0, 100)} after ${Date.now() - t} ms`,
        );
      const handed = json(real)?.tasks ?? [];
      if (handed.length !== 1 || handed[0].input?.s !== 'second' || typeof handed[0].lease !== 'string')
        problems.push(`the answer with "next": 1 handed over ${JSON.stringify(handed).slice(0, 200)}, not y's task`);
      else {
        const done = await post(queueUrl(queue, 'complete'), { lease: handed[0].lease, output: { s: 'second' } }, auth);
        if (json(done)?.accepted !== true) problems.push(`y's task handed over by "next": ${done.text.slice(0, 100)}`);
        await h.signal(server, 'secure', y, 'go', null);
        const ry = await outcome(server, y, 30000);
        if (ry.status !== 'COMPLETED' || ry.output?.s !== 'second')
          problems.push(`y, its task handed over by "next": ${JSON.stringify(ry)}`);
      }
      // Signals: nameless; to an unknown ID (no state left behind).
      const nameless = await post(`${server.ingress}/secure/${x}/signal`, { payload: 1 });
      if (nameless.status < 400 || nameless.status >= 500)
        problems.push(`a nameless signal: HTTP ${nameless.status}, not 4xx`);
      const ghost = id('ghost');
      const unknown = await post(`${server.ingress}/secure/${ghost}/signal`, { name: 'go' });
      if (unknown.status !== 404) problems.push(`a signal to an unknown ID: HTTP ${unknown.status}, not 404`);
      await h.sleep(1000);
      const rows = await h.sqlCount(server, `SELECT count(*) AS n FROM state WHERE service_key LIKE '%${ghost}%'`);
      if (rows !== 0) problems.push(`a signal to an unknown ID left ${rows} state rows`);
      const logs = await logsOf(server, ghost, ['--workflow', 'secure']);
      if (logs.code === 0) problems.push(`logs of an unknown ID exited 0 (${logs.stderr.trim()})`);
      await h.signal(server, 'secure', x, 'go', null);
      const r = await outcome(server, x, 30000);
      if (r.status !== 'COMPLETED' || r.output?.s !== 'real')
        problems.push(`the execution: ${JSON.stringify(r)}, not the real worker's output`);
      // Started again: with its own input, nothing; with another, an error.
      const same = await cli(['start', 'secure', x, '--input', '{"s": "real"}', '--ingress', server.ingress]);
      const other = await cli(['start', 'secure', x, '--input', '{"s": "other"}', '--ingress', server.ingress]);
      if (same.code !== 0) problems.push(`start again with the same input: exit ${same.code} ${same.stderr.trim()}`);
      if (other.code !== 1 || !/another input/.test(other.stderr))
        problems.push(
          `start again with another input: exit ${other.code} ${(other.stderr + other.stdout).trim().slice(0, 200)}`,
        );
      if (problems.length > 0) throw new Error(problems.join('; '));
      return 'token refused/missing: 401; forged leases and 5 internal handlers refused; bad heartbeat 400, shard not wedged; a bad "next" 400, "next": 1 hands the next task over; nameless signal 400, unknown ID 404 and no state; logs of it exit non-zero; start with another input exit 1';
    } finally {
      await served.kill('SIGTERM');
    }
  });

  await check('security forged events', async () => {
    const served = await h.serve(server, orbc, dir, { args: serveArgs });
    const program = served.program;
    const queueUrl = (key, handler) => `${server.ingress}/orbit_queue_${program}/${encodeURIComponent(key)}/${handler}`;
    // An attacker's resolution of an awakeable of the execution through the ingress.
    const forge = (awakeable, value) =>
      post(`${server.ingress}/restate/awakeables/${encodeURIComponent(awakeable)}/resolve`, value, {}, 10000);
    // What a service keeps (the admin query API, as the host keeps it: what an attacker
    // who derives an awakeable's ID from the invocation ID the start answered, and the
    // awakeable's index in the journal, which the program fixes, writes the same).
    const stateOf = async (service, key, like) => {
      const rows = await h.sqlRows(
        server,
        `SELECT key, value_utf8 FROM state WHERE service_name = '${service}' AND service_key = '${key}' AND key LIKE '${like}'`,
      );
      return rows.map((r) => JSON.parse(r.value_utf8));
    };
    const problems = [];
    let w = null;
    try {
      const keys = json(await post(queueUrl('echo', 'shards'), {}, auth, 30000))?.keys;
      if (!keys) throw new Error('shards: no keys');
      // A task a worker holds (polled, not answered yet): its outcome is forged.
      const held = id('held');
      await h.startExecution(server, 'secure', held, { s: 'real' });
      let task = null;
      let shard = null;
      await h.until(
        async () => {
          for (const k of keys) {
            const r = await post(queueUrl(k, 'poll'), { worker_id: 'honest', max: 1, wait_ms: 300 }, auth);
            task = json(r)?.tasks?.[0] ?? null;
            shard = k;
            if (task) return true;
          }
          return false;
        },
        30000,
        'the task polled',
      );
      const claims = (await stateOf(`orbit_queue_${program}`, shard, 't:%')).filter((c) => c.claimed);
      const outcomeId = claims.find((c) => c.inbox === `secure:${held}`)?.outcome;
      if (typeof outcomeId !== 'string')
        throw new Error(`no outcome awakeable in the shard: ${JSON.stringify(claims)}`);
      // The answer as the queue shard resolved it before seals, and a seal of its own.
      const answered = {
        type: 'answered',
        at: Date.now(),
        attempt: 1,
        delivery: 1,
        answer: { kind: ANSWER.OUTPUT, output: { s: 'forged' } },
      };
      const sent = await forge(outcomeId, { ...answered, seal: '0'.repeat(32), value: answered });
      if (sent.status >= 300) throw new Error(`the forged resolution: HTTP ${sent.status} ${sent.text.slice(0, 200)}`);

      // An execution that reads its inbox (a signal it does not await yet opened it): a
      // batch of a signal nobody sent.
      w = runWorker({
        ingress: server.ingress,
        program,
        task: 'echo',
        token: TOKEN,
        handler: async (input) => input,
      });
      const batch = id('batch');
      await h.startExecution(server, 'secure', batch, { s: 'real' });
      await h.until(
        async () => (await h.history(server, 'secure', batch)).includes('SignalWaitStarted'),
        30000,
        'waiting for the signal',
      );
      await h.signal(server, 'secure', batch, 'early', null);
      let waiters = [];
      await h.until(
        async () =>
          (waiters = (await stateOf(`orbit_inbox_${program}`, `secure:${batch}`, 'waiters'))[0] ?? []).length > 0,
        30000,
        "the inbox holding the execution's awakeables",
      );
      const next = typeof waiters[0] === 'string' ? waiters[0] : waiters[0].id;
      const forgedBatch = await forge(next, [{ type: 'signal', at: Date.now(), name: 'go', payload: null }]);
      if (forgedBatch.status >= 300)
        throw new Error(`the forged batch: HTTP ${forgedBatch.status} ${forgedBatch.text.slice(0, 200)}`);

      const bystander = id('bystander');
      await h.startExecution(server, 'secure', bystander, { s: 'real' });
      await h.started(server, 'secure', bystander, 30000);
      await h.until(() => h.signal(server, 'secure', bystander, 'go', null).then(() => true), 30000, 'signal sent');
      // What the forged answer could reach: the signal the held execution awaits next.
      await h.until(() => h.signal(server, 'secure', held, 'go', null).then(() => true), 30000, 'signal sent');
      const results = {
        held: await outcome(server, held, 60000),
        batch: await outcome(server, batch, 60000),
        bystander: await outcome(server, bystander, 60000),
      };
      for (const what of ['held', 'batch']) {
        const r = results[what];
        if (r.status === 'COMPLETED' || !/FORGED_EVENT/.test(r.error ?? ''))
          problems.push(`the ${what} execution: ${JSON.stringify(r).slice(0, 300)}, not failed with FORGED_EVENT`);
      }
      if (results.bystander.status !== 'COMPLETED' || results.bystander.output?.s !== 'real')
        problems.push(`the bystander: ${JSON.stringify(results.bystander)}`);
      if (problems.length > 0) throw new Error(problems.join('; '));
      return `forged outcome and forged inbox batch: both executions failed with FORGED_EVENT (${results.held.error.replace(/^.*?FORGED_EVENT/s, 'FORGED_EVENT').slice(0, 90)}…); bystander completed`;
    } finally {
      await w?.stop();
      await served.kill('SIGTERM');
    }
  });

  await check('security dead polls', async () => {
    const heartbeatTimeoutMs = 20000;
    const served = await h.serve(server, orbc, dir, {
      heartbeatTimeoutMs,
      args: ['--pickup-timeout', '5000', ...serveArgs],
    });
    const start = (name, concurrency) => {
      const logPath = path.join(dir, `echo-${name}-${serial++}.log`);
      const p = h.startProcess(
        process.execPath,
        [path.join(h.HERE, 'echo-worker.mjs'), server.ingress, served.program, name, String(concurrency)],
        logPath,
        { ORBIT_WORKER_TOKEN: TOKEN },
      );
      p.ready = () => h.until(() => fs.readFileSync(logPath, 'utf8').includes('ready'), 30000, `${name} ready`);
      return p;
    };
    const dead = start('dying', 4);
    const live = start('living', 4);
    try {
      await Promise.all([dead.ready(), live.ready()]);
      await h.sleep(1500); // both long polls in line
      await dead.kill();
      const killedAt = Date.now();
      const ids = Array.from({ length: 6 }, () => id('after'));
      for (const x of ids) await h.startExecution(server, 'secure', x, { s: 'x' });
      await Promise.all(
        ids.map((x) =>
          h
            .started(server, 'secure', x, 30000)
            .then(() => h.until(() => h.signal(server, 'secure', x, 'go', null).then(() => true), 30000, 'signal')),
        ),
      );
      const results = await Promise.all(ids.map((x) => outcome(server, x, heartbeatTimeoutMs + 20000)));
      const took = Date.now() - killedAt;
      const late = results.filter((r) => r.status !== 'COMPLETED' || !r.output.s.endsWith('by living'));
      if (late.length > 0)
        throw new Error(`${late.length} of ${ids.length} not done by the live worker: ${JSON.stringify(late[0])}`);
      if (took >= heartbeatTimeoutMs * 0.75)
        throw new Error(
          `the ${ids.length} executions queued after the kill took ${took} ms: the dead worker's polls held their tasks (heartbeat timeout ${heartbeatTimeoutMs} ms)`,
        );
      return `${ids.length} executions queued after the kill done by the live worker in ${took} ms (heartbeat timeout ${heartbeatTimeoutMs} ms)`;
    } finally {
      await Promise.all([dead.kill(), live.kill()]);
      await served.kill('SIGTERM');
    }
  });

  await check('security stuck is visible', async () => {
    // Another build of the program (a step timeout changed): a version of its own.
    const source = path.join(dir, 'secure-v2.orbit');
    fs.writeFileSync(
      source,
      fs.readFileSync(path.join(h.HERE, 'security', 'secure.orbit'), 'utf8').replace('timeout 2m', 'timeout 3m'),
    );
    const other = compile(source);
    const served = await h.serve(server, orbc, dir, { args: serveArgs });
    const w = runWorker({
      ingress: server.ingress,
      program: served.program,
      task: 'echo',
      token: TOKEN,
      handler: async (input) => input,
    });
    const x = id('stuck');
    let again = null;
    try {
      await h.startExecution(server, 'secure', x, { s: 'a' });
      await h.until(
        async () => (await h.history(server, 'secure', x)).includes('SignalWaitStarted'),
        30000,
        'waiting for the signal',
      );
      await w.stop();
      await served.kill('SIGTERM', { drain: false });
      // The same address now serves another program only: the execution's version is gone.
      again = await h.serve(server, [other], dir, {
        port: served.port,
        program: served.program,
        args: ['--force', ...serveArgs],
      });
      await post(`${server.ingress}/secure/${x}/signal`, { name: 'go' }).catch(() => {});
      let logs = null;
      await h.until(
        async () => (logs = await logsOf(server, x)).stderr.includes('is stuck'),
        30000,
        'logs saying it is stuck',
      );
      if (logs.code !== 1) throw new Error(`logs exited ${logs.code}, not 1: ${logs.stderr}`);
      return logs.stderr
        .split('\n')
        .find((l) => l.includes('is stuck'))
        .slice(0, 160);
    } finally {
      await w.stop();
      await again?.kill('SIGTERM', { drain: false });
      await served.kill('SIGTERM', { drain: false });
    }
  });

  await check('security listen and identity', async () => {
    const idDir = path.join(dir, 'restate-identity');
    fs.mkdirSync(idDir);
    const keys = identityKeyPair(idDir);
    const signed = new h.RestateServer(idDir, {
      env: { RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE: keys.pem },
    });
    try {
      await startServer(signed);
      const served = await h.serve(signed, orbc, dir, { args: ['--identity-key', keys.publicKey, ...serveArgs] });
      const w = runWorker({
        ingress: signed.ingress,
        program: served.program,
        task: 'echo',
        token: TOKEN,
        handler: async (input) => input,
      });
      try {
        const problems = [];
        const outside = Object.values(os.networkInterfaces())
          .flat()
          .find((a) => a.family === 'IPv4' && !a.internal)?.address;
        if (outside && (await connects(outside, served.port)))
          problems.push(`serve accepts connections on ${outside}:${served.port}, not only on loopback`);
        const status = await direct(served.port, '/discover').catch((e) => `error ${e.message}`);
        if (status !== 401) problems.push(`an unsigned request straight to the endpoint: ${status}, not 401`);
        const x = id('signed');
        await h.startExecution(signed, 'secure', x, { s: 'a' });
        await h.started(signed, 'secure', x, 30000);
        await h.until(() => h.signal(signed, 'secure', x, 'go', null).then(() => true), 30000, 'signal');
        const r = await outcome(signed, x, 60000);
        if (r.status !== 'COMPLETED') problems.push(`an execution through the signing server: ${JSON.stringify(r)}`);
        if (problems.length > 0) throw new Error(problems.join('; '));
        return `loopback only${outside ? ` (${outside} refused)` : ' (no other interface to try)'}; unsigned request 401; signed execution completed`;
      } finally {
        await w.stop();
        await served.kill('SIGTERM', { drain: false });
      }
    } finally {
      await signed.stop();
    }
  });
}
