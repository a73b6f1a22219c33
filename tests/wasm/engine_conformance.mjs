// The engine core compiled to WebAssembly gives the conformance histories byte for byte.
//
//   node tests/wasm/engine_conformance.mjs WASM_DIR
//
// WASM_DIR: where tools/playground.sh --wasm wrote orbit.js and orbit.wasm (the one
// WebAssembly build), loaded through the one wrapper, hosts/wasm/orbit-api.js.
//
// A small virtual-time host in JavaScript drives the wasm core through each conformance
// scenario (tests/conformance/runtime/NAME.*): what is due kept in the core's due queue (its
// ties: docs/runtime.md), scripted workers that pick an attempt up
// after their pickup delay and answer (or are lost) after `after_ms`, and the scenario's
// signals. The records' lines must be the committed NAME.history, line for line.
// Scenarios that use what this small host does not script (the runtime's placeholder
// outputs when a script runs out, step scripts, --show-values, --format json, a disabled
// HTTP adapter, no_worker; numbers JavaScript cannot tell apart or hold: `0.0` read as the
// integer 0, times beyond 2^53 ms) are skipped and named. One line per scenario, then `N passed, N failed, N skipped`.
import fs from 'node:fs';
import path from 'node:path';
import { ANSWER, loadOrbit } from '../../hosts/wasm/orbit-api.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
// The conformance kit's runtime scenarios (the one place that names where they are).
const KIT = path.join(ROOT, 'tests', 'conformance', 'runtime');

class Unsupported extends Error {}

// A number written with a fraction or an exponent but integral (`0.0`, `1e20`) is a
// number for the runtime and an integer for JSON.parse: such a scenario is skipped.
function hasAmbiguousNumber(text) {
  const outsideStrings = text.replace(/"(?:\\.|[^"\\])*"/g, '""');
  return (outsideStrings.match(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g) ?? []).some(
    (token) => /[.eE]/.test(token) && Number.isInteger(Number(token)),
  );
}

// What is due, in the engine core's tie order (its due queue, engine/timers.c), as the
// Restate host keeps it: this file never orders events itself.
class DueQueue {
  constructor(engine) {
    this.engine = engine;
    this.items = new Map(); // id -> {at, ...thing}
    this.lastId = 0;
  }
  push(at, limit, thing) {
    const id = ++this.lastId;
    this.items.set(id, { at, ...thing });
    this.engine.dueAdd(at, limit, id);
  }
  pop() {
    const first = this.engine.dueFirst();
    if (first === null) return null;
    const id = this.engine.dueTake(first);
    const thing = this.items.get(id);
    this.items.delete(id);
    return thing;
  }
}

function answerOf(outcome) {
  if ('succeed' in outcome) return { kind: ANSWER.OUTPUT, output: outcome.succeed };
  if ('fail' in outcome) {
    const f = outcome.fail;
    return { kind: ANSWER.FAIL, code: f.code, message: f.message ?? '', retryable: f.retryable ?? true };
  }
  if ('network_error' in outcome) return { kind: ANSWER.NETWORK_ERROR, message: outcome.network_error };
  const output = { status: outcome.status, headers: outcome.headers ?? {}, body: outcome.body ?? null };
  return { kind: ANSWER.HTTP_RESPONSE, status: outcome.status, output };
}

async function runScenario(orbit, name) {
  const args = fs.existsSync(path.join(KIT, name + '.args'))
    ? fs
        .readFileSync(path.join(KIT, name + '.args'), 'utf8')
        .trim()
        .split(/\s+/)
    : [];
  const text = fs.readFileSync(path.join(KIT, name + '.scenario.json'), 'utf8');
  const scenario = JSON.parse(text);
  if (args.includes('--show-values')) throw new Unsupported('--show-values');
  if (args.includes('--format')) throw new Unsupported('--format json');
  if (hasAmbiguousNumber(text)) throw new Unsupported('an integral number with a fraction or exponent');
  if (scenario.steps) throw new Unsupported('step scripts');
  if (scenario.http_adapter === false) throw new Unsupported('a disabled HTTP adapter');
  const orbc = fs.readFileSync(path.join(KIT, name + '.orbc'));
  let workflow = args.includes('--workflow') ? args[args.indexOf('--workflow') + 1] : scenario.workflow;
  if (!workflow) {
    const source = fs.readFileSync(path.join(KIT, name + '.orbit'), 'utf8');
    const names = [...source.matchAll(/^workflow\s+(\w+)/gm)].map((m) => m[1]);
    if (names.length !== 1) throw new Unsupported('no --workflow and several workflows');
    workflow = names[0];
  }
  const engine = orbit.open(orbc, workflow, scenario.input ?? {});
  const workers = scenario.workers ?? {};
  const used = {};
  const attempts = new Map(); // attempt id -> {outcome, workerId}
  const timers = new DueQueue(engine);
  for (const s of scenario.signals ?? []) timers.push(s.at_ms, false, { type: 'signal', signal: s });
  const lines = [];
  let now = 0,
    finished = null;

  const carryOut = () => {
    for (const c of engine.commands()) {
      if (c.kind === 'record') lines.push(c.text);
      else if (c.kind === 'timer') {
        if (c.at_ms > Number.MAX_SAFE_INTEGER) throw new Unsupported('a time beyond 2^53 ms');
        timers.push(c.at_ms, c.limit, { type: 'engine', id: c.timer });
      } else if (c.kind === 'finished') finished = c;
      else if (c.kind === 'queue') {
        const script = workers[c.task] ?? {};
        if (script.no_worker) throw new Unsupported('no_worker');
        const list = script.attempts ?? [];
        used[c.task] = used[c.task] ?? 0;
        if (used[c.task] >= list.length) throw new Unsupported('a script that runs out');
        const outcome = list[used[c.task]++];
        const builtin = c.task.startsWith('orbit.');
        attempts.set(c.attempt, { outcome, workerId: builtin ? 'orbit-runtime' : (script.worker_id ?? 'worker-1') });
        const pickup = outcome.pickup_ms ?? script.pickup_ms ?? 0;
        timers.push(now + pickup, false, { type: 'pickup', attempt: c.attempt, delivery: c.delivery });
      }
    }
  };

  engine.start();
  carryOut();
  for (let steps = 0; !finished; steps++) {
    if (steps > 100000) throw new Error('more than 100000 events');
    const t = timers.pop();
    if (!t) {
      engine.idle(now);
      carryOut();
      continue;
    }
    now = t.at;
    if (t.type === 'engine') engine.timerFired(now, t.id);
    else if (t.type === 'signal') engine.signal(now, t.signal.name, t.signal.payload ?? null);
    else {
      const a = attempts.get(t.attempt);
      if (t.type === 'pickup') {
        if (engine.pickedUp(now, t.attempt, t.delivery, a.workerId)) {
          const o = a.outcome;
          const of = { attempt: t.attempt, delivery: t.delivery };
          if ('lost_after_ms' in o) timers.push(now + o.lost_after_ms, false, { ...of, type: 'lost' });
          else if (!o.never_answers) timers.push(now + (o.after_ms ?? 0), false, { ...of, type: 'answer' });
        }
      } else if (t.type === 'lost') {
        engine.workerLost(now, t.attempt, t.delivery);
      } else {
        engine.answered(now, t.attempt, t.delivery, answerOf(a.outcome));
      }
    }
    carryOut();
  }
  engine.close();
  return lines.join('\n') + '\n';
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node tests/wasm/engine_conformance.mjs WASM_DIR');
    process.exit(2);
  }
  // One instance for every scenario: each execution is a handle in it, as in the Restate host.
  const orbit = await loadOrbit(path.resolve(dir, 'orbit.wasm'));
  const names = fs
    .readdirSync(KIT)
    .filter((f) => f.endsWith('.scenario.json'))
    .map((f) => f.slice(0, -'.scenario.json'.length))
    .sort();
  let passed = 0,
    failed = 0,
    skipped = 0;
  for (const name of names) {
    let actual;
    try {
      actual = await runScenario(orbit, name);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      console.log(`skipped ${name}: ${e.message}`);
      skipped++;
      continue;
    }
    const expected = fs.readFileSync(path.join(KIT, name + '.history'), 'utf8');
    if (actual === expected) {
      console.log(`passed  ${name}`);
      passed++;
    } else {
      console.log(`FAILED  ${name}\n--- expected\n${expected}--- actual\n${actual}`);
      failed++;
    }
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
