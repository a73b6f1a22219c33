// Versions of a program side by side (docs/restate.md, "Versions"): an execution's
// journaled events replayed through a fresh engine of another version, and the one
// verdict of whether the execution can move there, `canMove` — what the execution itself
// decides when `migrate` asks it to move (execution.mjs) and what `orbit-restate migrate
// --dry-run` prints.
//
// "Can continue" (docs/compat.md): replaying the execution's events through the engine
// core with NEW's bytecode gives exactly its history so far, record for record, fields
// and values included (the records as `orbit-run --format json --show-values` writes
// them). Records NEW would write after that are not compared — but a move also needs
// NEW to write nothing more in answer to the events the execution already had: the
// host never carried out the commands that went with them.

/** Hands the event `e` (as the execution journaled it) to `engine`: whether it accepted it. */
export function feed(engine, e) {
  if (e.type === 'timer') return engine.timerFired(e.time, e.timer);
  if (e.type === 'signal') return engine.signal(e.time, e.name, e.payload);
  if (e.type === 'lost') return engine.workerLost(e.time, e.attempt, e.delivery);
  if (e.type === 'answered') return engine.answered(e.time, e.attempt, e.delivery, e.answer);
  return engine.pickedUp(e.time, e.attempt, e.delivery, e.worker_id);
}

/**
 * A fresh engine of `orbc` for `workflow` with `input`, started and fed `events`: the
 * engine, the records it wrote (JSON lines), the timers it started that have not fired
 * (timer -> {at_ms, limit}), its last queue command of each attempt, whether it ended.
 * Throws when the module does not load or the input does not match its contract.
 */
export function replay(orbit, { orbc, workflow, input, events }) {
  const engine = orbit.open(orbc, workflow, input);
  const records = [];
  const timers = new Map();
  const queues = new Map();
  let finished = null;
  const take = () => {
    for (const c of engine.commands()) {
      if (c.kind === 'record') records.push(c.json);
      else if (c.kind === 'timer') timers.set(c.timer, { at_ms: c.at_ms, limit: c.limit });
      else if (c.kind === 'queue') queues.set(c.attempt, c);
      else if (c.kind === 'finished') finished = c;
    }
  };
  engine.start();
  take();
  for (const e of events) {
    if (e.type === 'timer') timers.delete(e.timer);
    feed(engine, e);
    take();
  }
  return { engine, records, timers, queues, finished };
}

/**
 * Why `orbitc compat OLD NEW` says an execution with `history` (JSON lines) cannot
 * continue — a place it waits at is stopped by a change, or compat does not list it — or
 * null when every place can.
 */
function compatBlocks(orbit, oldOrbc, orbc, history) {
  let report;
  try {
    report = orbit.compat(oldOrbc, orbc);
  } catch (e) {
    return `orbitc compat cannot compare the versions: ${e.message}`;
  }
  const byId = new Map(report.places.map((p) => [p.id, p]));
  for (const place of orbit.places(history.join('\n'))) {
    const judged = byId.get(place.id);
    if (!judged) return `orbitc compat does not know the place ${place.id}`;
    if (!judged.continue) {
      const rules = judged.changes.map((i) => report.changes[i].rule).join(', ');
      return `orbitc compat: at ${place.id} it cannot continue (${rules})`;
    }
  }
  return null;
}

/**
 * Whether an execution whose journaled `events` gave the records `history` (JSON lines)
 * can move to `orbc`: NEW's replay of the events writes exactly `history`. `{move: true,
 * why}`, or `{move: false, why, seq, expected, actual}` with the first record that
 * differs (`actual` null: NEW wrote fewer records; `expected` null: it wrote more).
 * With `oldOrbc`, the bytes of the version it runs on, `orbitc compat`'s verdict must
 * agree too: every place the history waits at (orbit.places) can continue under NEW
 * (orbit.compat; docs/compat.md) — the static rule says yes before the replay is asked.
 * The one verdict of a move (execution.mjs, bin/orbit-restate.mjs migrate).
 * @param {object} orbit the loaded engine core (hosts/wasm/orbit-api.js loadOrbit)
 * @param {{oldOrbc?: Uint8Array, orbc: Uint8Array, workflow: string, input: any, events: object[], history: string[]}} execution
 */
export function canMove(orbit, { oldOrbc, orbc, workflow, input, events, history }) {
  if (oldOrbc) {
    const blocked = compatBlocks(orbit, oldOrbc, orbc, history);
    if (blocked) return { move: false, why: blocked };
  }
  let r;
  try {
    r = replay(orbit, { orbc, workflow, input, events });
  } catch (e) {
    return { move: false, why: `the new version does not start it: ${e.message}` };
  }
  try {
    for (let i = 0; i < history.length; i++) {
      if (r.records[i] === history[i]) continue;
      const expected = JSON.parse(history[i]);
      const actual = r.records[i] === undefined ? null : JSON.parse(r.records[i]);
      const name = (x) => `${x.event}${x.step ? ` step=${x.step}` : ''}`;
      let why;
      if (!actual) why = `the new version writes only ${r.records.length} records, the history ${history.length}`;
      else if (name(actual) !== name(expected))
        why = `record #${i + 1} would be ${name(actual)}, not ${name(expected)}`;
      else {
        const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
        const differ = keys.filter((k) => JSON.stringify(expected[k]) !== JSON.stringify(actual[k]));
        why = `record #${i + 1} ${name(expected)} would differ in ${differ.map((k) => `${k} (${JSON.stringify(actual[k])}, not ${JSON.stringify(expected[k])})`).join(', ')}`;
      }
      return {
        move: false,
        why,
        seq: i + 1,
        expected,
        actual,
      };
    }
    if (r.records.length > history.length) {
      // What NEW does in answer to events the execution already had, beyond its history:
      // its commands were never carried out, and would come late.
      const next = JSON.parse(r.records[history.length]);
      return {
        move: false,
        why: `the new version writes ${r.records.length - history.length} more record(s) in answer to the events it had, from #${history.length + 1} ${next.event}${next.step ? ` step=${next.step}` : ''}`,
        seq: history.length + 1,
        expected: null,
        actual: next,
      };
    }
    return { move: true, why: `the new version replays its ${history.length} records exactly` };
  } finally {
    r.engine.close();
  }
}
