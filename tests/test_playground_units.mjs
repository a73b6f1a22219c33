// The playground's pure modules under Node, on real outputs of this build's orbitc and
// orbit-run: #source= links (RFC 4648 §5 vectors, UTF-8, damaged fragments), durations
// and limits read from `orbitc dis`, and the timeline's layout of real histories.
//
//   node tests/test_playground_units.mjs --orbitc PATH --orbit-run PATH
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeSource, decodeSource, shareFragment } from '../playground/src/share.js';
import { parseDuration, limitsFromDisassembly } from '../playground/src/policies.js';
import { layoutRun, timelineSvg, formatMs } from '../playground/src/timeline.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { orbitc: { type: 'string' }, 'orbit-run': { type: 'string' } } });

function run(program, argv) {
  const r = spawnSync(program, argv, { encoding: 'utf8', timeout: 60000 });
  assert.ok(r.status === 0 || r.status === 1, `${program} ${argv.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// The disassembly and the JSON history of a program run with a scenario.
function nativeRun(program, scenario) {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-pg-units-'));
  const orbc = path.join(dir, 'p.orbc');
  run(args.orbitc, ['build', path.join(root, program), '-o', orbc]);
  const dis = run(args.orbitc, ['dis', orbc]);
  const events = run(args['orbit-run'], [orbc, '--scenario', path.join(root, scenario), '--format', 'json'])
    .split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((e) => e.event);
  rmSync(dir, { recursive: true });
  return { dis, events, limits: limitsFromDisassembly(dis) };
}

test('base64url: the RFC 4648 vectors, without padding', () => {
  const vectors = [['', ''], ['f', 'Zg'], ['fo', 'Zm8'], ['foo', 'Zm9v'], ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'], ['foobar', 'Zm9vYmFy']];
  for (const [text, encoded] of vectors) {
    assert.equal(encodeSource(text), encoded);
    assert.equal(decodeSource('#source=' + encoded), text);
  }
  // The URL-safe alphabet: "ÿþ" is c3 bf c3 be in UTF-8, "w7/Dvg==" in base64.
  assert.equal(encodeSource('\u00ff\u00fe'), 'w7_Dvg');
  assert.equal(decodeSource('#source=w7_Dvg'), '\u00ff\u00fe');
  assert.equal(decodeSource('#source=Zm9vYg=='), 'foob');   // padding from other encoders is accepted
  assert.equal(decodeSource('#source=-_8'), null);   // not UTF-8: refused, not garbled
});

test('#source= round-trips any text as UTF-8, and refuses what is not a link', () => {
  for (const text of ['workflow w {}\n', 'é ☃ 𝄞 \u0000 \r\n', 'x'.repeat(70000)]) {
    const fragment = shareFragment(text);
    assert.match(fragment, /^#source=[A-Za-z0-9_-]*$/);
    assert.equal(decodeSource(fragment), text);
    assert.equal(Buffer.from(fragment.slice(8), 'base64url').toString('utf8'), text);
  }
  for (const bad of ['', '#', '#src=Zm9v', '#source=Zm9v===', '#source=Z', '#source=Zm+v', '#source=_w'])
    assert.equal(decodeSource(bad), null, bad);
});

test('durations as orbitc dis writes them', () => {
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('10s'), 10000);
  assert.equal(parseDuration('2m'), 120000);
  assert.equal(parseDuration('1d'), 86400000);
  assert.equal(parseDuration('1h30m'), 5400000);
  assert.equal(parseDuration('none'), null);
  assert.equal(formatMs(4200000), '1h10m');
  assert.equal(formatMs(1137), '1.14s');
});

test('the limits of examples/checkout.orbit, from its real disassembly', () => {
  const { limits } = nativeRun('examples/checkout.orbit', 'golden/run/checkout.scenario.json');
  const checkout = limits.workflows.checkout;
  assert.equal(checkout.timeout_ms, 24 * 3600000);
  assert.deepEqual(checkout.steps.charge, { timeout_ms: 10000, queue_timeout_ms: 120000 });
  assert.equal(checkout.steps.approval.timeout_ms, 12 * 3600000);
  assert.equal(checkout.steps.notify.timeout_ms, 30000);   // orbit.http.request's default
  assert.deepEqual(Object.keys(limits.workflows).sort(), ['checkout', 'pack_items']);
});

for (const [name, program, scenario] of [
  ['checkout', 'examples/checkout.orbit', 'golden/run/checkout.scenario.json'],
  ['timeout', 'playground/examples/timeout.orbit', 'playground/examples/timeout.scenario.json'],
  ['compensation', 'playground/examples/compensation.orbit', 'playground/examples/compensation.scenario.json'],
]) {
  test(`the timeline of the ${name} run: a lane per step, a bar per attempt, every retry`, () => {
    const { events, limits } = nativeRun(program, scenario);
    const workflow = events[0].workflow;
    const layout = layoutRun(events, limits, workflow);
    const steps = [...new Set(events.filter((e) => e.step !== undefined && e.event !== 'CompensationStarted').map((e) => e.step))];
    assert.deepEqual(layout.lanes.map((l) => l.step), steps);
    const items = layout.lanes.flatMap((l) => l.items);
    const attempts = items.filter((i) => i.kind === 'attempt');
    assert.equal(attempts.length, events.filter((e) => e.event === 'StepDispatched').length);
    assert.ok(attempts.every((a) => a.outcome !== 'open' && a.end >= a.start), 'every attempt ends');
    const retries = items.filter((i) => i.kind === 'retry');
    assert.deepEqual(retries.map((r) => r.end - r.start),
      events.filter((e) => e.event === 'RetryScheduled').map((e) => e.delay_ms));
    const timedOut = attempts.filter((a) => a.outcome === 'timeout');
    assert.equal(timedOut.length, events.filter((e) => e.event === 'StepAttemptFailed' && e.error === 'TIMEOUT').length);
    for (const a of timedOut) assert.equal(a.end - a.start, a.timeout_ms);   // ended exactly at the limit
    assert.equal(layout.deadline, limits.workflows[workflow].timeout_ms);
    const svg = timelineSvg(events, limits, workflow);
    assert.equal((svg.match(/<g class="lane"/g) || []).length, steps.length);
    assert.equal(svg, timelineSvg(events, limits, workflow));   // deterministic
  });
}
