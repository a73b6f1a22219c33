// Pushed workers (docs/restate.md, "Pushed workers"): the wire protocol between `serve`
// and the workers it pushes tasks to, written once for both sides (the execution and
// serve's worker port here; the worker in worker.mjs).
//
// A worker started with a port of its own registers it with serve's worker port
// (`serve --worker-listen`), and registers again every REGISTER_EVERY_MS (a worker not
// heard from for three times that is forgotten). An execution offers each task, in a
// journaled action, to the workers registered for it, one after another, until one takes
// it (202: its pickup); a worker that is full (429) or away is passed over, and a task
// nobody takes goes to its queue shard, where polling workers find it (queue.mjs): the
// same task, the same guarantees, only slower. The worker answers on serve's worker
// port with the task's lease (the outcome awakeable's ID and seal); serve resolves the
// awakeable through the ingress at its private address. A worker is alive while it
// answers the execution's liveness checks (`alive`, one after each heartbeat timeout of
// silence); a check it fails is its loss. A cancellation is a call to the worker.
//
//   worker -> serve   POST /orbit/workers   {task, url, worker_id}          register
//                     POST /orbit/complete  {lease, output}                 an answer (413: the
//                                                                           output is over the
//                                                                           limit: fail instead)
//                     POST /orbit/fail      {lease, code, message, retryable}
//   serve -> worker   POST /orbit/task      {lease, task, step, attempt, input,
//                                            idempotency_key, heartbeat_timeout_ms}
//                     POST /orbit/alive     {leases}  -> {alive: [...], answered: [...]}
//                     POST /orbit/cancel    {leases}
//
// Every call carries the workers' token when serve has one (`authorization: Bearer`),
// both ways: a worker takes tasks only from serve, serve answers only from workers.
import http from 'node:http';
import https from 'node:https';
import { completed, failed } from './answer.mjs';
import { sameSecret } from './names.mjs';

export const PATHS = {
  register: '/orbit/workers',
  complete: '/orbit/complete',
  fail: '/orbit/fail',
  task: '/orbit/task',
  alive: '/orbit/alive',
  cancel: '/orbit/cancel',
};
/** How often a worker registers again; serve forgets one after three times that. */
export const REGISTER_EVERY_MS = 5000;
/** How long serve waits for a worker to take a task, answer a check or a cancellation. */
export const CALL_TIMEOUT_MS = 2000;
/** The largest body of a call that carries no value (a registration, a check). */
const SMALL_BODY = 64 * 1024;

/** `HOST:PORT` (`[V6]:PORT`, port 0 to 65535): `{host, port}`, or null when it is not one. */
export function hostPort(text) {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  return m && port <= 65535 ? { host: m[1] ?? m[2], port } : null;
}

/** A host as a URL writes it (an IPv6 address in brackets). */
export const urlHost = (host) => (host.includes(':') ? `[${host}]` : host);

/** A pushed task's lease: its outcome awakeable's ID and seal, `ID.SEAL`. */
export function pushLeaseOf(id, seal) {
  return `${id}.${seal}`;
}

/** The awakeable and seal of a pushed lease (`{id, seal}`), or null when it is not one. */
export function parsePushLease(lease) {
  const m = typeof lease === 'string' ? /^([A-Za-z0-9_-]{1,256})\.([0-9a-f]{32})$/.exec(lease) : null;
  return m ? { id: m[1], seal: m[2] } : null;
}

/** The `authorization` header of the workers' token, or none. */
export const authorization = (token) => (token ? { authorization: `Bearer ${token}` } : {});

/** Whether an HTTP request carries the workers' token (always, when there is none). */
export function authorized(req, token) {
  return !token || sameSecret(req.headers.authorization ?? '', `Bearer ${token}`);
}

/**
 * A request's JSON body, at most `limit` bytes: `{body}`, or `{status, error}` (413 over
 * the limit, 400 not JSON).
 */
export async function readJson(req, limit) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk); // past it, read to its end (the answer is read then), kept not
  }
  if (size > limit) return { status: 413, error: `the body is over ${limit} bytes` };
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    return { status: 400, error: 'the body is not JSON' };
  }
}

/** Answers `res` with a JSON body. */
export function reply(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

// Kept-alive connections, and node:http rather than fetch: a step costs a few of these
// calls, and fetch's streams and abort signals cost the host more than the call itself
// (docs/restate-performance.md, "Pushed workers").
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/**
 * A POST of `body` (JSON) to `url` with the token: `{status, body}` (the answer's JSON,
 * or null); throws if nothing answers within `timeoutMs`. A connection kept alive that
 * the other side closed meanwhile is tried once more on a new one.
 */
export async function post(url, body, token, timeoutMs = CALL_TIMEOUT_MS) {
  const data = Buffer.from(JSON.stringify(body));
  try {
    return await postOnce(url, data, token, timeoutMs);
  } catch (e) {
    if (!e.reused || !['ECONNRESET', 'EPIPE'].includes(e.code)) throw e;
    return postOnce(url, data, token, timeoutMs);
  }
}

function postOnce(url, data, token, timeoutMs) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const request = u.protocol === 'https:' ? https.request : http.request;
    const req = request(
      u,
      {
        method: 'POST',
        agent: agents[u.protocol],
        headers: { 'content-type': 'application/json', 'content-length': data.length, ...authorization(token) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          let parsed = null;
          try {
            const text = Buffer.concat(chunks).toString('utf8');
            parsed = text ? JSON.parse(text) : null;
          } catch {}
          resolve({ status: res.statusCode, body: parsed });
        });
      },
    );
    function fail(e) {
      clearTimeout(timer);
      e.reused = req.reusedSocket;
      reject(e);
    }
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer from ${u.origin} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    req.on('error', fail);
    req.end(data);
  });
}

/**
 * The workers registered with this process, by task: those of `TASK` take its tasks of
 * every version, those of `TASK@VERSION` (12 hex digits) one version's.
 */
export class WorkerRegistry {
  constructor() {
    this.byTask = new Map(); // task -> Map(url -> {worker_id, until})
    this.turn = 0; // where the next offer starts (turns spread tasks over the workers)
  }

  register(task, url, workerId) {
    if (!this.byTask.has(task)) this.byTask.set(task, new Map());
    this.byTask.get(task).set(url, { worker_id: workerId, until: Date.now() + 3 * REGISTER_EVERY_MS });
  }

  forget(task, url) {
    this.byTask.get(task)?.delete(url);
  }

  /** The URLs of the workers of `task` in version `short` still registered, from the next turn on. */
  urlsOf(task, short) {
    const now = Date.now();
    const urls = [];
    for (const key of [task, `${task}@${short}`]) {
      const workers = this.byTask.get(key);
      if (!workers) continue;
      for (const [url, w] of workers) {
        if (w.until > now) urls.push({ key, url });
        else workers.delete(url);
      }
    }
    if (urls.length === 0) return urls;
    const start = this.turn++ % urls.length;
    return [...urls.slice(start), ...urls.slice(0, start)];
  }
}

/**
 * Offers a task to the workers of `task` (registry.urlsOf), one after another: `{url,
 * worker_id, at}` of the first that takes it (202), or `{refused, at}` saying why none did.
 * A worker that does not answer is forgotten (it registers again if it is alive). The task
 * is not offered once `expiresAt` (its queue timeout, real ms) has passed, and a worker
 * that took it too late is told to drop it: the queue decides those races (queue.mjs).
 */
export async function offer(registry, { task, short, body, token, expiresAt = Infinity }) {
  const refused = [];
  for (const { key, url } of registry.urlsOf(task, short)) {
    if (Date.now() >= expiresAt) return { refused: 'its queue timeout passed', at: Date.now() };
    try {
      const r = await post(`${url}${PATHS.task}`, body, token);
      const at = Date.now();
      if (r.status === 202 && at < expiresAt)
        return { url, worker_id: String(r.body?.worker_id ?? url).slice(0, 200), at };
      if (r.status === 202) await cancelPushed(url, body.lease, token);
      refused.push(`${url}: ${r.status}`);
    } catch (e) {
      registry.forget(key, url);
      refused.push(`${url}: ${e.message}`);
    }
  }
  return { refused: refused.length > 0 ? refused.join('; ') : 'no worker registered', at: Date.now() };
}

/**
 * Whether the worker at `url` still works on `lease` — or has answered it (serve took
 * the answer: it is on its way to the execution, which must not call the worker lost
 * before it arrives): `{alive, at}`.
 */
export async function checkAlive(url, lease, token) {
  try {
    const r = await post(`${url}${PATHS.alive}`, { leases: [lease] }, token);
    const has = (list) => Array.isArray(list) && list.includes(lease);
    return { alive: r.status === 200 && (has(r.body?.alive) || has(r.body?.answered)), at: Date.now() };
  } catch {
    return { alive: false, at: Date.now() };
  }
}

/** Tells the worker at `url` to stop working on `lease` (best effort: true if it heard). */
export async function cancelPushed(url, lease, token) {
  try {
    return (await post(`${url}${PATHS.cancel}`, { leases: [lease] }, token)).status === 200;
  } catch {
    return false;
  }
}

/**
 * serve's worker port: registrations and pushed workers' answers. An answer resolves
 * its lease's awakeable through the ingress (`ingress`, a private address) with the
 * lease's seal — `{seal, value: {type: 'answered', at, answer}}`, what a queue shard
 * resolves it with. 200 `{accepted}` when the ingress took it (false: the awakeable was
 * resolved already or is unknown), 503 when the ingress cannot be reached (answer again).
 * @returns {Promise<http.Server>} listening
 */
export async function workerPort({ host, port, registry, token, ingress, maxValueBytes }) {
  const server = http.createServer(async (req, res) => {
    try {
      await workerCall(req, res, { registry, token, ingress, maxValueBytes });
    } catch (e) {
      if (!res.headersSent) reply(res, 500, { error: String(e?.message ?? e) });
    }
  });
  server.keepAliveTimeout = 30000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

async function workerCall(req, res, { registry, token, ingress, maxValueBytes }) {
  const path = req.url;
  if (req.method !== 'POST' || ![PATHS.register, PATHS.complete, PATHS.fail].includes(path))
    return reply(res, 404, { error: `POST ${PATHS.register}, ${PATHS.complete} or ${PATHS.fail}` });
  if (!authorized(req, token))
    return reply(res, 401, { error: "the worker protocol needs the workers' token (authorization: Bearer TOKEN)" });
  const limit = path === PATHS.register ? SMALL_BODY : maxValueBytes + SMALL_BODY;
  const { body, status, error } = await readJson(req, limit);
  if (status === 413)
    return reply(res, 413, {
      error: `the answer is over ${limit} bytes: the host takes values of at most ${maxValueBytes} bytes of JSON (orbit-restate serve --max-value-bytes); fail the task instead (OUTPUT_TOO_LARGE)`,
    });
  if (error) return reply(res, status, { error });
  if (path === PATHS.register) {
    if (typeof body?.task !== 'string' || body.task === '' || body.task.length > 1000)
      return reply(res, 400, { error: 'a registration needs "task", the task this worker takes' });
    let url;
    try {
      url = new URL(body.url);
    } catch {}
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash)
      return reply(res, 400, { error: 'a registration needs "url", where the worker takes tasks (http://HOST:PORT)' });
    registry.register(
      body.task,
      url.origin + url.pathname.replace(/\/$/, ''),
      String(body.worker_id ?? '').slice(0, 200),
    );
    return reply(res, 200, { every_ms: REGISTER_EVERY_MS });
  }
  const lease = parsePushLease(body?.lease);
  if (!lease) return reply(res, 400, { error: '"lease" must be the lease of a task pushed to this worker' });
  const made = path === PATHS.complete ? completed(body, maxValueBytes) : failed(body);
  if (made.refused) return reply(res, 400, { error: made.refused });
  const value = { type: 'answered', at: Date.now(), answer: made.answer };
  let r;
  try {
    const url = `${ingress}/restate/awakeables/${encodeURIComponent(lease.id)}/resolve`;
    r = await post(url, { seal: lease.seal, value }, null, 30000);
  } catch (e) {
    return reply(res, 503, { error: `the ingress ${ingress} did not answer: ${e.message}` });
  }
  if (r.status >= 500) return reply(res, 503, { error: `the ingress answered ${r.status}` });
  const accepted = r.status >= 200 && r.status < 300;
  return reply(res, 200, { accepted, ...(made.error ? { error: made.error } : {}) });
}
