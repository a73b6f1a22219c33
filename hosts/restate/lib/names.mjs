// The names of the host's Restate services and the keys of its objects (docs/restate.md,
// "Names"): a program's services, a version's hash, an execution's inbox, the shards of a
// task's queue, a claim and its lease. Written once, here; the services (host.mjs, inbox.mjs,
// queue.mjs, http.mjs, execution.mjs), the command and the worker library only call these.
//
// Every program has services of its own (`orbit_queue_PROGRAM`, …): two programs on one
// server never serve each other's queues, inboxes or HTTP calls. Every version of a
// program has queues of its own: a queue key carries the version (`TASK@VERSION~K`), so
// a worker deployed for one version's contract never takes another's task unless it asks
// for all versions. The inbox is an execution's, whichever version it runs on (an
// execution moved by `migrate` keeps it).
import crypto from 'node:crypto';

/** A program's name: a Restate service name's part (letters, digits, `_`). */
export const PROGRAM_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The hash of a version: SHA-256 of its `.orbc` bytes, in hex. */
export function versionOf(orbc) {
  return crypto.createHash('sha256').update(orbc).digest('hex');
}

/** A version as queue keys and people show it: the first 12 hex digits of its hash. */
export function shortVersion(hash) {
  return hash.slice(0, 12);
}

/** The services of program `program`, as the others address them (a name is all a client needs). */
export function programServices(program) {
  return {
    INBOX: { name: `orbit_inbox_${program}` },
    QUEUE: { name: `orbit_queue_${program}` },
    HTTP: { name: `orbit_http_${program}` },
    VERSIONS: { name: `orbit_versions_${program}` },
  };
}

/** The program of a `orbit_versions_PROGRAM` service name, or null. */
export function programOfService(name) {
  const m = /^orbit_versions_(.+)$/.exec(name);
  return m ? m[1] : null;
}

/** The inbox of one execution: `WORKFLOW:ID` (an Orbit name has no `:`). */
export function inboxKey(workflow, id) {
  return `${workflow}:${id}`;
}

/** The keys of a task's queue in one version, one per shard: `TASK@VERSION~0`, … */
export function shardKeys(task, version, shards) {
  return Array.from({ length: shards }, (_, k) => `${task}@${shortVersion(version)}~${k}`);
}

/** The task of a queue key (`TASK@VERSION~K`, or `TASK@VERSION`, or `TASK`). */
export function taskOf(key) {
  const tilde = key.lastIndexOf('~');
  const rest = tilde < 0 ? key : key.slice(0, tilde);
  const at = rest.lastIndexOf('@');
  return at < 0 ? rest : rest.slice(0, at);
}

/** The short version of a queue key (`TASK@VERSION…`), or null for a bare task. */
export function versionOfKey(key) {
  const tilde = key.lastIndexOf('~');
  const rest = tilde < 0 ? key : key.slice(0, tilde);
  const at = rest.lastIndexOf('@');
  return at < 0 ? null : rest.slice(at + 1);
}

/** The queue key of `task` in `version` for the execution whose inbox is `inbox` (FNV-1a of it). */
export function shardOf(task, version, inbox, shards) {
  let h = 0x811c9dc5;
  for (let i = 0; i < inbox.length; i++) h = Math.imul(h ^ inbox.charCodeAt(i), 0x01000193) >>> 0;
  return `${task}@${shortVersion(version)}~${h % shards}`;
}

/**
 * A claim of a task: `INBOX|ATTEMPT|DELIVERY`, the state key under which its queue shard
 * keeps it (one claim per delivery).
 */
export function claimOf(inbox, attempt, delivery) {
  return `${inbox}|${attempt}|${delivery}`;
}

/**
 * A task's lease, what a worker holds while it works: its claim and the claim's token,
 * `INBOX|ATTEMPT|DELIVERY|TOKEN` — 128 random bits drawn for that delivery, so that
 * knowing an execution's ID is not enough to answer its task (docs/restate.md, "Security").
 */
export function leaseOf(claim, token) {
  return `${claim}|${token}`;
}

/** The claim and the token of a lease (`{claim, token}`), or null when it is not one. */
export function parseLease(lease) {
  if (typeof lease !== 'string' || lease.length > 4096) return null;
  const bar = lease.lastIndexOf('|');
  if (bar <= 0) return null;
  const token = lease.slice(bar + 1);
  if (!/^[0-9a-f]{32}$/.test(token)) return null;
  return { claim: lease.slice(0, bar), token };
}

/** Whether two texts are equal, in a time that does not depend on where they differ. */
export function sameSecret(a, b) {
  const ha = crypto.createHash('sha256').update(String(a)).digest();
  const hb = crypto.createHash('sha256').update(String(b)).digest();
  return crypto.timingSafeEqual(ha, hb);
}

/**
 * The token of a claim's lease: 128 bits of HMAC-SHA-256 keyed by `seed`, a random token
 * drawn (and journaled) by the call that hands the claim out — one draw for every lease
 * of that call, each as unguessable as the seed.
 */
export function tokenOf(seed, claim) {
  // Also an awakeable's seal (execution.mjs `sealed`): tokenOf(the execution's secret, its ID).
  return crypto.createHmac('sha256', seed).update(claim).digest('hex').slice(0, 32);
}

/** A fresh random token (hex) of `bytes` random bytes: a lease's seed, an execution's secret. */
export function newToken(bytes = 16) {
  return crypto.randomBytes(bytes).toString('hex');
}
