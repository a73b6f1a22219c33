#!/usr/bin/env node
// orbit-restate: Orbit programs on a Restate server (docs/restate.md).
//
//   orbit-restate serve PROGRAM.orbc [--port N] [--admin URL] [--time-scale N]
//                       [--heartbeat-timeout MS] [--queue-shards K] [--no-register]
//   orbit-restate logs ID [--workflow NAME] [--ingress URL] [--admin URL]
import fs from 'node:fs';
import * as restate from '@restatedev/restate-sdk';
import { services } from '../lib/host.mjs';
import { loadCore, workflowsOf } from '../lib/wasm.mjs';

const USAGE = `usage: orbit-restate serve PROGRAM.orbc [--port N] [--admin URL] [--time-scale N]
                           [--heartbeat-timeout MS] [--queue-shards K] [--no-register]
       orbit-restate logs ID [--workflow NAME] [--ingress URL] [--admin URL]`;

function fail(message) {
  console.error(`orbit-restate: ${message}`);
  process.exit(2);
}

/** `--name value` options after the positional arguments. */
function parse(args, names, flags = []) {
  const out = { positional: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (flags.includes(a)) out[a.slice(2)] = true;
    else if (names.includes(a)) {
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

async function serve(args) {
  const o = parse(
    args,
    ['--port', '--admin', '--time-scale', '--heartbeat-timeout', '--queue-shards'],
    ['--no-register'],
  );
  if (o.positional.length !== 1) fail(USAGE);
  const port = o.port ? positiveNumber(o.port, '--port') : 9080;
  const admin = o.admin ?? process.env.RESTATE_ADMIN_URL ?? 'http://127.0.0.1:9070';
  let orbc;
  try {
    orbc = fs.readFileSync(o.positional[0]);
  } catch (e) {
    fail(`cannot read ${o.positional[0]}: ${e.message}`);
  }
  const core = loadCore();
  let workflows;
  try {
    workflows = await workflowsOf(core, orbc);
  } catch (e) {
    fail(`${o.positional[0]}: ${e.message}`);
  }
  const list = services({
    core,
    orbc,
    workflows,
    timeScale: o['time-scale'] ? positiveNumber(o['time-scale'], '--time-scale') : 1,
    heartbeatTimeoutMs: o['heartbeat-timeout'] ? positiveNumber(o['heartbeat-timeout'], '--heartbeat-timeout') : 5000,
    queueShards: o['queue-shards'] ? shardCount(o['queue-shards']) : 4,
  });
  const endpoint = restate.endpoint();
  for (const s of list) endpoint.bind(s);
  await endpoint.listen(port);
  console.log(`orbit-restate: serving ${workflows.join(', ')} on http://127.0.0.1:${port}`);
  if (!o['no-register']) {
    const response = await fetch(`${admin}/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri: `http://127.0.0.1:${port}`, force: true }),
    }).catch((e) => fail(`cannot register with ${admin}: ${e.message}`));
    if (!response.ok) fail(`registering with ${admin}: ${response.status} ${await response.text()}`);
    const { id } = await response.json();
    console.log(`orbit-restate: registered with ${admin} as deployment ${id}`);
  }
}

/** The workflow an execution ID runs, from the server's introspection (SQL over invocations). */
async function workflowOf(admin, id) {
  const query =
    `SELECT target_service_name FROM sys_invocation WHERE target_service_key = '${id.replace(/'/g, "''")}'` +
    ` AND target_handler_name = 'run' AND target_service_ty = 'workflow'`;
  const response = await fetch(`${admin}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  }).catch((e) => fail(`cannot reach ${admin}: ${e.message}`));
  if (!response.ok) fail(`${admin}/query: ${response.status} ${await response.text()}`);
  const rows = (await response.json()).rows ?? [];
  const names = [...new Set(rows.map((r) => r.target_service_name))];
  if (names.length === 0) fail(`no execution "${id}" (give --workflow if it has finished long ago)`);
  if (names.length > 1) fail(`executions "${id}" of several workflows (${names.join(', ')}): give --workflow`);
  return names[0];
}

async function logs(args) {
  const o = parse(args, ['--workflow', '--ingress', '--admin']);
  if (o.positional.length !== 1) fail(USAGE);
  const id = o.positional[0];
  const ingress = o.ingress ?? process.env.RESTATE_INGRESS_URL ?? 'http://127.0.0.1:8080';
  const admin = o.admin ?? process.env.RESTATE_ADMIN_URL ?? 'http://127.0.0.1:9070';
  const workflow = o.workflow ?? (await workflowOf(admin, id));
  const url = `${ingress}/${encodeURIComponent(workflow)}/${encodeURIComponent(id)}/history`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: 'null',
  }).catch((e) => fail(`cannot reach ${ingress}: ${e.message}`));
  if (!response.ok) fail(`${url}: ${response.status} ${await response.text()}`);
  const lines = await response.json();
  process.stdout.write(lines.map((l) => l + '\n').join(''));
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'serve') await serve(rest);
else if (command === 'logs') await logs(rest);
else if (command === '--help' || command === '-h') console.log(USAGE);
else fail(USAGE);
