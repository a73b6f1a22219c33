#!/usr/bin/env node
// orbit-restate: Orbit programs on a Restate server (docs/restate.md).
//
//   orbit-restate serve VERSION.orbc... [--program NAME] [--listen HOST:PORT | --port N]
//                       [--admin URL] [--time-scale N] [--heartbeat-timeout MS]
//                       [--pickup-timeout MS] [--queue-shards K] [--worker-token-file FILE]
//                       [--identity-key KEY]... [--max-value-bytes N] [--no-register] [--force]
//                       [--worker-listen HOST:PORT [--ingress URL]]
//   orbit-restate versions [--program NAME] [--admin URL] [--ingress URL] [--format text|json]
//   orbit-restate migrate --to NEW.orbc [ID...] [--dry-run] [--program NAME] [--admin URL]
//                         [--ingress URL] [--format text|json]
//   orbit-restate logs ID [--workflow NAME] [--ingress URL] [--admin URL] [--format text|json]
//   orbit-restate start WORKFLOW ID [--input JSON | --input-file FILE] [--ingress URL]
import fs from 'node:fs';
import http2 from 'node:http2';
import * as restate from '@restatedev/restate-sdk';
import { MAX_VALUE_BYTES, services } from '../lib/host.mjs';
import { readToken } from '../lib/worker.mjs';
import { WorkerRegistry, hostPort, urlHost, workerPort } from '../lib/push.mjs';
import { PROGRAM_NAME, programOfService, programServices, shortVersion, versionOf } from '../lib/names.mjs';
import { canMove } from '../lib/versions.mjs';
import { loadCore, workflowsOf } from '../lib/wasm.mjs';

const USAGE = `usage: orbit-restate serve VERSION.orbc... [--program NAME] [--listen HOST:PORT | --port N]
                           [--admin URL] [--time-scale N] [--heartbeat-timeout MS]
                           [--pickup-timeout MS] [--queue-shards K] [--worker-token-file FILE]
                           [--identity-key KEY]... [--max-value-bytes N] [--no-register] [--force]
                           [--worker-listen HOST:PORT [--ingress URL]]
       orbit-restate versions [--program NAME] [--admin URL] [--ingress URL] [--format text|json]
       orbit-restate migrate --to NEW.orbc [ID...] [--dry-run] [--program NAME] [--admin URL]
                             [--ingress URL] [--format text|json]
       orbit-restate logs ID [--workflow NAME] [--ingress URL] [--admin URL] [--format text|json]
       orbit-restate start WORKFLOW ID [--input JSON | --input-file FILE] [--ingress URL]`;

function fail(message) {
  console.error(`orbit-restate: ${message}`);
  process.exit(2);
}

/** `--name value` options after the positional arguments (those of `lists`: every value, in a list). */
function parse(args, names, flags = [], lists = []) {
  const out = { positional: [] };
  for (const l of lists) out[l.slice(2)] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (flags.includes(a)) out[a.slice(2)] = true;
    else if (lists.includes(a)) {
      if (i + 1 >= args.length) fail(`${a} needs a value`);
      out[a.slice(2)].push(args[++i]);
    } else if (names.includes(a)) {
      if (i + 1 >= args.length) fail(`${a} needs a value`);
      out[a.slice(2)] = args[++i];
    } else if (a.startsWith('--')) fail(`unknown option ${a}\n${USAGE}`);
    else out.positional.push(a);
  }
  return out;
}

function positiveNumber(text, what) {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) fail(`${what} must be a positive number, not "${text}"`);
  return n;
}

function shardCount(text) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 256) fail(`--queue-shards must be an integer from 1 to 256, not "${text}"`);
  return n;
}

/**
 * A POST with a JSON body to `url`: its parsed answer (null for an empty one). A server
 * that has just started may not answer for a while (its partitions replay their logs):
 * asked again on a timeout, a refused connection or a 5xx, for at most two minutes.
 */
async function post(url, body) {
  const end = Date.now() + 120000;
  for (;;) {
    let response = null;
    let why;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? null),
        signal: AbortSignal.timeout(30000),
      });
    } catch (e) {
      why = e.message;
    }
    if (response && response.status < 500) {
      const text = await response.text();
      if (!response.ok) fail(`${url}: ${response.status} ${text}`);
      return text ? JSON.parse(text) : null;
    }
    if (response) why = `${response.status} ${await response.text()}`;
    if (Date.now() > end) fail(`cannot reach ${url}: ${why}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * The rows of a SQL query over the server's introspection tables (admin API). A server
 * that has just started answers 500 for a few seconds (its partitions are not yet
 * placed): asked again, for at most 30 s.
 */
async function sql(admin, query) {
  for (let tries = 0; ; tries++) {
    const response = await fetch(`${admin}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    }).catch((e) => (tries < 60 ? null : fail(`cannot reach ${admin}: ${e.message}`)));
    if (response?.ok) return (await response.json()).rows ?? [];
    if (response && (response.status < 500 || tries >= 60))
      fail(`${admin}/query: ${response.status} ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const quote = (text) => `'${String(text).replace(/'/g, "''")}'`;

/**
 * The executions of `workflows` in flight (their `run` not completed), in the order of
 * their workflow then ID: `{workflow, id, version}` (version: the hash in its state, or
 * null before it started).
 */
async function inFlight(admin, workflows) {
  if (workflows.length === 0) return [];
  const list = workflows.map(quote).join(', ');
  const runs = await sql(
    admin,
    `SELECT target_service_name AS workflow, target_service_key AS id FROM sys_invocation` +
      ` WHERE target_handler_name = 'run' AND target_service_ty = 'workflow' AND status != 'completed'` +
      ` AND target_service_name IN (${list})`,
  );
  const states = await sql(
    admin,
    `SELECT service_name AS workflow, service_key AS id, value_utf8 AS v FROM state` +
      ` WHERE key = 'version' AND service_name IN (${list})`,
  );
  const versionOfRun = new Map(states.map((r) => [`${r.workflow}/${r.id}`, JSON.parse(r.v)]));
  return runs
    .map((r) => ({ workflow: r.workflow, id: r.id, version: versionOfRun.get(`${r.workflow}/${r.id}`) ?? null }))
    .sort((a, b) =>
      a.workflow === b.workflow ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.workflow < b.workflow ? -1 : 1,
    );
}

/** The program to look at: `given`, or the one program registered with the server. */
async function programOf(admin, given) {
  const response = await fetch(`${admin}/services`).catch((e) => fail(`cannot reach ${admin}: ${e.message}`));
  if (!response.ok) fail(`${admin}/services: ${response.status} ${await response.text()}`);
  const programs = ((await response.json()).services ?? [])
    .map((s) => programOfService(s.name))
    .filter(Boolean)
    .sort();
  if (given) {
    if (!programs.includes(given))
      fail(`no program "${given}" is registered with ${admin} (${programs.join(', ') || 'none'})`);
    return given;
  }
  if (programs.length === 0) fail(`no Orbit program is registered with ${admin}`);
  if (programs.length > 1)
    fail(`several programs are registered with ${admin} (${programs.join(', ')}): give --program`);
  return programs[0];
}

/** What `orbit-restate serve` of `program` serves: `{program, queue_shards, versions: [{hash, workflows, newest}]}`. */
function servedVersions(ingress, program) {
  return post(`${ingress}/${programServices(program).VERSIONS.name}/list`, null);
}

function urls(o) {
  return {
    ingress: o.ingress ?? process.env.RESTATE_INGRESS_URL ?? 'http://127.0.0.1:8080',
    admin: o.admin ?? process.env.RESTATE_ADMIN_URL ?? 'http://127.0.0.1:9070',
  };
}

function format(o) {
  const f = o.format ?? 'text';
  if (f !== 'text' && f !== 'json') fail(`--format must be text or json, not "${f}"`);
  return f;
}

/** `HOST:PORT` (`[V6]:PORT`) of --listen (or `option`): {host, port}; port 0 for --worker-listen. */
function listenAddress(text, option = '--listen') {
  const a = hostPort(text);
  if (!a || (option === '--listen' && a.port === 0))
    fail(`${option} must be HOST:PORT (e.g. 127.0.0.1:9080), not "${text}"`);
  return a;
}

/**
 * Restate's request identity keys (`publickeyv1_…`, docs/restate.md "Security"): those of
 * --identity-key, and ORBIT_RESTATE_IDENTITY_KEYS (comma-separated). With any, the endpoint
 * answers only requests the server signed with a matching private key.
 */
function identityKeys(given) {
  const keys = [...given, ...(process.env.ORBIT_RESTATE_IDENTITY_KEYS ?? '').split(',')]
    .map((k) => k.trim())
    .filter(Boolean);
  for (const k of keys)
    if (!/^publickeyv1_[1-9A-HJ-NP-Za-km-z]+$/.test(k))
      fail(`an identity key is a public key "publickeyv1_…" (restate's request identity), not "${k}"`);
  return keys;
}

async function serve(args) {
  const o = parse(
    args,
    [
      '--port',
      '--listen',
      '--admin',
      '--time-scale',
      '--heartbeat-timeout',
      '--pickup-timeout',
      '--queue-shards',
      '--program',
      '--worker-token-file',
      '--max-value-bytes',
      '--worker-listen',
      '--ingress',
    ],
    ['--no-register', '--force'],
    ['--identity-key'],
  );
  if (o.positional.length < 1) fail(USAGE);
  if (o.port && o.listen) fail('give --listen HOST:PORT or --port N, not both');
  // Loopback unless told: the endpoint runs every handler for whoever reaches it.
  const { host, port } = o.listen
    ? listenAddress(o.listen)
    : { host: '127.0.0.1', port: o.port ? positiveNumber(o.port, '--port') : 9080 };
  const keys = identityKeys(o['identity-key']);
  let workerToken = process.env.ORBIT_WORKER_TOKEN || null;
  const tokenFile = o['worker-token-file'] ?? process.env.ORBIT_WORKER_TOKEN_FILE;
  if (tokenFile) {
    try {
      workerToken = readToken(tokenFile);
    } catch (e) {
      fail(`--worker-token-file: ${e.message}`);
    }
  }
  const admin = o.admin ?? process.env.RESTATE_ADMIN_URL ?? 'http://127.0.0.1:9070';
  const core = loadCore();
  const versions = [];
  for (const file of o.positional) {
    let orbc;
    try {
      orbc = fs.readFileSync(file);
    } catch (e) {
      fail(`cannot read ${file}: ${e.message}`);
    }
    let workflows;
    try {
      workflows = await workflowsOf(core, orbc);
    } catch (e) {
      fail(`${file}: ${e.message}`);
    }
    const hash = versionOf(orbc);
    const same = versions.find((v) => v.hash === hash);
    if (same) fail(`${file} is the same version as ${same.file}`);
    versions.push({ file, hash, orbc, workflows });
  }
  const program = o.program ?? versions[0].workflows[0];
  if (!program || !PROGRAM_NAME.test(program))
    fail(`the program's name must be a letter then letters, digits or _, not "${program ?? ''}" (--program)`);
  if (!o['no-register'] && !o.force) {
    // Registering replaces the deployment at this address: an execution in flight on a
    // version left out would stop (it waits, retried, until its version is served again).
    const hashes = new Set(versions.map((v) => v.hash));
    const workflows = [...new Set(versions.flatMap((v) => v.workflows))];
    const left = (await inFlight(admin, workflows)).filter((f) => f.version !== null && !hashes.has(f.version));
    if (left.length > 0) {
      const shown = left.slice(0, 5).map((f) => `${f.workflow}/${f.id} on ${shortVersion(f.version)}`);
      fail(
        `${left.length} execution${left.length > 1 ? 's' : ''} in flight run${left.length > 1 ? '' : 's'} on versions not given ` +
          `(${shown.join(', ')}${left.length > 5 ? ', …' : ''}): serve their versions too, or --force`,
      );
    }
  }
  const heartbeatTimeoutMs = o['heartbeat-timeout']
    ? positiveNumber(o['heartbeat-timeout'], '--heartbeat-timeout')
    : 5000;
  // Pushed workers register and answer on a port of serve's own (docs/restate.md, "Pushed
  // workers"); their answers reach the executions through the ingress's private address.
  const maxValueBytes = o['max-value-bytes']
    ? positiveNumber(o['max-value-bytes'], '--max-value-bytes')
    : MAX_VALUE_BYTES;
  let registry = null;
  let workerUrl = null;
  if (o.ingress && !o['worker-listen']) fail("--ingress is where pushed workers' answers go: give --worker-listen too");
  if (o['worker-listen']) {
    const w = listenAddress(o['worker-listen'], '--worker-listen');
    const ingress = (o.ingress ?? process.env.RESTATE_INGRESS_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
    if (!/^https?:\/\/[^/]+$/.test(ingress)) fail(`--ingress must be http://HOST:PORT, not "${ingress}"`);
    registry = new WorkerRegistry();
    const port = await workerPort({
      host: w.host,
      port: w.port,
      registry,
      token: workerToken,
      ingress,
      maxValueBytes,
    }).catch((e) => fail(`cannot listen on ${urlHost(w.host)}:${w.port} (--worker-listen): ${e.message}`));
    const a = port.address();
    workerUrl = `http://${urlHost(a.address)}:${a.port}`;
  }
  const list = services({
    core,
    program,
    versions,
    timeScale: o['time-scale'] ? positiveNumber(o['time-scale'], '--time-scale') : 1,
    heartbeatTimeoutMs,
    pickupTimeoutMs: o['pickup-timeout']
      ? Math.min(heartbeatTimeoutMs, positiveNumber(o['pickup-timeout'], '--pickup-timeout'))
      : Math.min(heartbeatTimeoutMs, 5000),
    queueShards: o['queue-shards'] ? shardCount(o['queue-shards']) : 4,
    workerToken,
    maxValueBytes,
    registry,
  });
  const endpoint = restate.endpoint();
  for (const s of list) endpoint.bind(s);
  if (keys.length > 0) endpoint.withIdentityV1(...keys);
  const server = http2.createServer(endpoint.http2Handler());
  await new Promise((resolve) => {
    server.once('error', (e) => fail(`cannot listen on ${urlHost(host)}:${port}: ${e.message}`));
    server.listen(port, host, resolve);
  });
  const bound = server.address();
  const url = `http://${urlHost(bound.address)}:${bound.port}`;
  const shown = versions.map(
    (v, i) => `${shortVersion(v.hash)} (${v.file}${i === versions.length - 1 ? ', newest' : ''})`,
  );
  console.log(`orbit-restate: serving program ${program}, versions ${shown.join(', ')}`);
  console.log(`orbit-restate: serving ${[...new Set(versions.flatMap((v) => v.workflows))].join(', ')} on ${url}`);
  console.log(
    keys.length > 0
      ? `orbit-restate: requests must carry Restate's signature (${keys.length} identity key${keys.length > 1 ? 's' : ''})`
      : 'orbit-restate: requests are not signed (no --identity-key): whoever reaches this address runs every handler',
  );
  if (workerUrl) console.log(`orbit-restate: pushed workers register and answer on ${workerUrl}`);
  if (!workerToken)
    console.log(
      'orbit-restate: the worker protocol is open (no --worker-token-file): whoever reaches the ingress can take and answer tasks',
    );
  if (!o['no-register']) {
    // `force`: a deployment already at this address is replaced — safe, as every version
    // its executions run on is served here (checked above), each pinned by its hash.
    const response = await fetch(`${admin}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        uri: ['0.0.0.0', '::'].includes(bound.address) ? `http://127.0.0.1:${bound.port}` : url,
        force: true,
      }),
    }).catch((e) => fail(`cannot register with ${admin}: ${e.message}`));
    if (!response.ok) fail(`registering with ${admin}: ${response.status} ${await response.text()}`);
    const { id } = await response.json();
    console.log(`orbit-restate: registered with ${admin} as deployment ${id}`);
  }
}

/** `orbit-restate versions`: each version with its executions in flight, and which can be retired. */
async function versions(args) {
  const o = parse(args, ['--program', '--admin', '--ingress', '--format']);
  if (o.positional.length !== 0) fail(USAGE);
  const { ingress, admin } = urls(o);
  const fmt = format(o);
  const program = await programOf(admin, o.program);
  const served = await servedVersions(ingress, program);
  const workflows = [...new Set(served.versions.flatMap((v) => v.workflows))];
  const flights = await inFlight(admin, workflows);
  const row = (hash, newest, isServed) => {
    const executions = flights.filter((f) => f.version === hash).map((f) => `${f.workflow}/${f.id}`);
    return {
      hash,
      newest,
      served: isServed,
      in_flight: executions.length,
      executions,
      retire: !newest && executions.length === 0,
    };
  };
  const rows = served.versions.map((v) => ({ ...row(v.hash, v.newest, true), workflows: v.workflows }));
  const known = new Set(rows.map((r) => r.hash));
  for (const hash of [...new Set(flights.map((f) => f.version).filter((v) => v && !known.has(v)))].sort())
    rows.push({ ...row(hash, false, false), workflows: null });
  const starting = flights.filter((f) => f.version === null).map((f) => `${f.workflow}/${f.id}`);
  if (fmt === 'json') {
    console.log(JSON.stringify({ program, versions: rows, starting }));
    return;
  }
  console.log(`program ${program}: ${rows.length} version${rows.length === 1 ? '' : 's'}`);
  for (const r of rows) {
    const first = r.executions.slice(0, 5).join(', ') + (r.executions.length > 5 ? ', …' : '');
    console.log(
      `${shortVersion(r.hash)}${r.newest ? ' newest' : ''}${r.served ? '' : ' NOT SERVED'}: ${r.in_flight} in flight` +
        `${first ? ` (${first})` : ''}${r.retire ? '; can be retired' : ''}`,
    );
  }
  if (starting.length > 0) console.log(`starting, no version yet: ${starting.join(', ')}`);
}

const sleepMs = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `orbit-restate migrate --to NEW.orbc`: each execution in flight (or each ID given) that
 * can continue on NEW is moved there (versions.mjs canMove); the others stay. The
 * execution decides again itself, in its journal, when the move reaches it.
 */
async function migrate(args) {
  const o = parse(args, ['--to', '--program', '--admin', '--ingress', '--format'], ['--dry-run']);
  if (!o.to) fail(USAGE);
  const { ingress, admin } = urls(o);
  const fmt = format(o);
  let orbc;
  try {
    orbc = fs.readFileSync(o.to);
  } catch (e) {
    fail(`cannot read ${o.to}: ${e.message}`);
  }
  const to = versionOf(orbc);
  const program = await programOf(admin, o.program);
  const served = await servedVersions(ingress, program);
  if (!served.versions.some((v) => v.hash === to))
    fail(`${o.to} (version ${shortVersion(to)}) is not served by program ${program}: serve it beside the others first`);
  const orbit = await loadCore()();
  const workflows = [...new Set(served.versions.flatMap((v) => v.workflows))];
  let flights = await inFlight(admin, workflows);
  if (o.positional.length > 0) {
    const wanted = new Set(o.positional);
    flights = flights.filter((f) => wanted.has(f.id) || wanted.has(`${f.workflow}/${f.id}`));
  }
  const results = [];
  let disagreed = 0;
  for (const f of flights) {
    const base = `${ingress}/${encodeURIComponent(f.workflow)}/${encodeURIComponent(f.id)}`;
    const state = await post(`${base}/state`, null);
    const r = { workflow: f.workflow, id: f.id, from: state.version, to };
    if (state.version === null) Object.assign(r, { verdict: 'stays', why: 'it has not started yet' });
    else if (state.version === to) Object.assign(r, { verdict: 'already', why: 'it runs on that version already' });
    else {
      const v = canMove(orbit, {
        orbc,
        workflow: f.workflow,
        input: state.input,
        events: state.events,
        history: state.history_json,
      });
      Object.assign(r, {
        verdict: v.move ? 'moves' : 'stays',
        why: v.why,
        divergence: v.move ? null : { seq: v.seq ?? null, expected: v.expected ?? null, actual: v.actual ?? null },
      });
      if (v.move && !o['dry-run']) {
        const before = state.moves.length;
        await post(`${base}/move`, { to });
        let decided = null;
        for (const end = Date.now() + 60000; !decided && Date.now() < end; ) {
          const now = await post(`${base}/state`, null);
          decided =
            now.moves.slice(before).find((m) => m.to === to) ??
            (now.final ? { moved: false, why: 'it ended first' } : null);
          if (!decided) await sleepMs(200);
        }
        if (!decided)
          Object.assign(r, { verdict: 'asked', why: 'the execution has not decided yet (it will, when it wakes up)' });
        else if (!decided.moved) {
          disagreed++;
          Object.assign(r, { verdict: 'stays', why: `the execution refused: ${decided.why}` });
        } else Object.assign(r, { verdict: 'moved' });
      }
    }
    results.push(r);
    if (fmt === 'text')
      console.log(
        `${r.workflow}/${r.id}: ${r.verdict}${r.from ? ` (${shortVersion(r.from)} -> ${shortVersion(to)})` : ''}: ${r.why}`,
      );
  }
  const count = (v) => results.filter((r) => r.verdict === v).length;
  const summary = {
    executions: results.length,
    moved: count('moved'),
    moves: count('moves'),
    stays: count('stays'),
    already: count('already'),
    asked: count('asked'),
  };
  if (fmt === 'json')
    console.log(JSON.stringify({ program, to, dry_run: !!o['dry-run'], executions: results, summary }));
  else
    console.log(
      `${summary.executions} in flight: ${o['dry-run'] ? `${summary.moves} can move` : `${summary.moved} moved`}, ${summary.stays} stay, ${summary.already} already on ${shortVersion(to)}` +
        (summary.asked ? `, ${summary.asked} asked` : ''),
    );
  if (disagreed > 0 || summary.asked > 0) process.exit(1);
}

/** The workflow an execution ID runs, from the server's introspection (SQL over invocations). */
async function workflowOf(admin, id) {
  const rows = await sql(
    admin,
    `SELECT target_service_name FROM sys_invocation WHERE target_service_key = ${quote(id)}` +
      ` AND target_handler_name = 'run' AND target_service_ty = 'workflow'`,
  );
  const names = [...new Set(rows.map((r) => r.target_service_name))];
  if (names.length === 0) fail(`no execution "${id}" (give --workflow if it has finished long ago)`);
  if (names.length > 1) fail(`executions "${id}" of several workflows (${names.join(', ')}): give --workflow`);
  return names[0];
}

/**
 * Why the `run` of `workflow`/`id` is not making progress (Restate retries it, or paused
 * it: a journal mismatch, a version not served, a failing write), or null; null too when
 * the admin API cannot be asked.
 */
async function stuck(admin, workflow, id) {
  let rows;
  try {
    const response = await fetch(`${admin}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query:
          `SELECT status, retry_count, last_failure, last_failure_error_code FROM sys_invocation` +
          ` WHERE target_service_name = ${quote(workflow)} AND target_service_key = ${quote(id)}` +
          ` AND target_handler_name = 'run'`,
      }),
      signal: AbortSignal.timeout(10000),
    });
    if (!response.ok) return null;
    rows = (await response.json()).rows ?? [];
  } catch {
    return null;
  }
  const r = rows.find((row) => row.status !== 'completed' && (row.last_failure || row.status === 'paused'));
  if (!r) return null;
  const code = r.last_failure_error_code ? `[${r.last_failure_error_code}] ` : '';
  return `${r.status}${r.retry_count ? `, retried ${r.retry_count} times` : ''}: ${code}${r.last_failure ?? 'paused'}`;
}

async function logs(args) {
  const o = parse(args, ['--workflow', '--ingress', '--admin', '--format']);
  if (o.positional.length !== 1) fail(USAGE);
  const id = o.positional[0];
  const { ingress, admin } = urls(o);
  const fmt = format(o);
  const workflow = o.workflow ?? (await workflowOf(admin, id));
  const base = `${ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}`;
  const state = await post(`${base}/state`, null);
  const why = await stuck(admin, workflow, id);
  if (state.version === null && state.history_json.length === 0 && !why)
    fail(`no execution ${workflow}/${id} (it never started, or its state is gone)`);
  if (state.version) console.error(`orbit-restate: ${workflow}/${id} runs on version ${state.version}`);
  for (const m of state.moves) {
    console.error(`orbit-restate: asked to move to ${shortVersion(m.to)}: ${m.moved ? 'moved' : 'stayed'} (${m.why})`);
  }
  // An execution Restate cannot run on (it retries it, or paused it) is not healthy,
  // whatever its history says so far.
  if (why) console.error(`orbit-restate: ${workflow}/${id} is stuck: ${why}`);
  if (fmt === 'json') {
    const lines = state.final ? [...state.history_json, state.final] : state.history_json;
    process.stdout.write(lines.map((l) => l + '\n').join(''));
  } else {
    const lines = await post(`${base}/history`, null);
    process.stdout.write(lines.map((l) => l + '\n').join(''));
  }
  if (why) process.exitCode = 1;
}

/** JSON text with every object's keys sorted: two values are equal when their texts are. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value ?? null);
}

/**
 * `orbit-restate start WORKFLOW ID`: starts an execution. Restate answers a second start of
 * an ID `PreviouslyAccepted` and drops its input; here that is an error when the input
 * differs from the one the execution started with (exit 1), and nothing when it is the
 * same (a start sent again).
 */
async function start(args) {
  const o = parse(args, ['--input', '--input-file', '--ingress']);
  if (o.positional.length !== 2 || (o.input && o['input-file'])) fail(USAGE);
  const [workflow, id] = o.positional;
  const { ingress } = urls(o);
  let input;
  try {
    input = JSON.parse(o['input-file'] ? fs.readFileSync(o['input-file'], 'utf8') : (o.input ?? '{}'));
  } catch (e) {
    fail(`the input is not JSON: ${e.message}`);
  }
  const base = `${ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}`;
  const answer = await post(`${base}/run/send`, input);
  if (answer?.status !== 'PreviouslyAccepted') {
    console.log(`orbit-restate: started ${workflow}/${id} (${answer?.invocationId ?? 'accepted'})`);
    return;
  }
  // The execution keeps the input it started with (its state `input`, set as it starts).
  let state = null;
  for (const end = Date.now() + 30000; Date.now() < end; await sleepMs(200)) {
    state = await post(`${base}/state`, null);
    if (state.input !== null) break;
  }
  if (state?.input === null) fail(`${workflow}/${id} was started already, and has not started running yet`);
  if (canonical(state.input) !== canonical(input)) {
    console.error(
      `orbit-restate: execution ${workflow}/${id} exists already, started with another input (Restate ignores this one): ${canonical(state.input).slice(0, 200)}`,
    );
    process.exit(1);
  }
  console.log(`orbit-restate: ${workflow}/${id} was started already, with this input`);
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') await serve(rest);
else if (command === 'versions') await versions(rest);
else if (command === 'migrate') await migrate(rest);
else if (command === 'logs') await logs(rest);
else if (command === 'start') await start(rest);
else if (command === '--help' || command === '-h') console.log(USAGE);
else fail(USAGE);
