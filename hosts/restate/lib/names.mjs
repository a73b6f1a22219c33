// The keys of the host's Restate objects (docs/restate.md, "Workers"): an execution's
// inbox, the shards of a task's queue, a claim's lease. Written once, here; the
// services (host.mjs, inbox.mjs, queue.mjs, execution.mjs) only call these.

/** The inbox of one execution: `WORKFLOW:ID` (an Orbit name has no `:`). */
export function inboxKey(workflow, id) {
  return `${workflow}:${id}`;
}

/** The keys of a task's queue, one per shard: `TASK~0`, `TASK~1`, … */
export function shardKeys(task, shards) {
  return Array.from({ length: shards }, (_, k) => `${task}~${k}`);
}

/** The task of a queue key (`TASK~K`). */
export function taskOf(key) {
  const i = key.lastIndexOf('~');
  return i < 0 ? key : key.slice(0, i);
}

/** The queue key of `task` for the execution whose inbox is `inbox` (FNV-1a of it). */
export function shardOf(task, inbox, shards) {
  let h = 0x811c9dc5;
  for (let i = 0; i < inbox.length; i++) h = Math.imul(h ^ inbox.charCodeAt(i), 0x01000193) >>> 0;
  return `${task}~${h % shards}`;
}

/** A task's lease, what a worker holds while it works: `INBOX|ATTEMPT|DELIVERY`. */
export function leaseOf(inbox, attempt, delivery) {
  return `${inbox}|${attempt}|${delivery}`;
}

/** The services as the others address them (a definition's name is all a client needs). */
export const INBOX = { name: 'orbit_inbox' };
export const QUEUE = { name: 'orbit_queue' };
export const HTTP = { name: 'orbit_http' };
