// The playground's pure modules under Node, on real outputs of this build's orbitc and
// orbit-run: #source= links (RFC 4648 §5 vectors, UTF-8, damaged fragments), durations
// and limits read from `orbitc dis`, the timeline's layout of real histories, and the
// step graph's labels and layout on real `orbitc graph` outputs.
//
//   node tests/playground/test_playground_units.mjs --orbitc PATH --orbit-run PATH
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeSource, decodeSource, shareFragment } from '../../playground/src/share.js';
import { codeSpans, plainText } from '../../playground/src/diagnostics.js';
import { parseDuration, limitsFromDisassembly } from '../../playground/src/policies.js';
import { boundLanes, layoutRun, timelineSvg, formatMs, MAX_ITEMS, MAX_LANES } from '../../playground/src/timeline.js';
import { DiagnosticSet, markedIndexes } from '../../playground/src/diagnostics.js';
import { byteOffsets, placeCheck, readCheck, tokenArrays, withMaxEvents } from '../../playground/src/worker-work.js';
import { graphProgram, LINK_132 } from './playground_hostile.mjs';
import {
  boundGraph,
  clusterLines,
  graphSvg,
  layoutGraph,
  MAX_DRAWN_NODES,
  nodeLines,
  parseGraph,
} from '../../playground/src/graph.js';

const FILE = 'playground.orbit';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
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
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.event);
  rmSync(dir, { recursive: true });
  return { dis, events, limits: limitsFromDisassembly(dis) };
}

test('base64url: the RFC 4648 vectors, without padding', () => {
  const vectors = [
    ['', ''],
    ['f', 'Zg'],
    ['fo', 'Zm8'],
    ['foo', 'Zm9v'],
    ['foob', 'Zm9vYg'],
    ['fooba', 'Zm9vYmE'],
    ['foobar', 'Zm9vYmFy'],
  ];
  for (const [text, encoded] of vectors) {
    assert.equal(encodeSource(text), encoded);
    assert.equal(decodeSource('#source=' + encoded), text);
  }
  // The URL-safe alphabet: "ÿþ" is c3 bf c3 be in UTF-8, "w7/Dvg==" in base64.
  assert.equal(encodeSource('\u00ff\u00fe'), 'w7_Dvg');
  assert.equal(decodeSource('#source=w7_Dvg'), '\u00ff\u00fe');
  assert.equal(decodeSource('#source=Zm9vYg=='), 'foob'); // padding from other encoders is accepted
  assert.equal(decodeSource('#source=-_8'), null); // not UTF-8: refused, not garbled
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

test('#source= keeps a leading byte order mark, as the CLI does', () => {
  for (const text of ['\ufeffworkflow w {}\n', '\ufeff', '\ufeff\ufeffx'])
    assert.equal(decodeSource(shareFragment(text)), text);
});

// The messages quote with backticks (`name`); a quoted name may hold a backtick itself.
test('backticks in messages: a code span for each balanced quote, literal text otherwise', () => {
  const spans = (text) =>
    codeSpans(text)
      .map(({ code, text: t }) => (code ? '[' + t + ']' : t))
      .join('');
  assert.equal(
    spans('unknown field `zz` in the input of worker `pay`x`'),
    'unknown field [zz] in the input of worker [pay`x]',
  );
  assert.equal(spans('unexpected character ```'), 'unexpected character [`]');
  assert.equal(spans('did you mean `backoff`?'), 'did you mean [backoff]?');
  assert.equal(spans('(`a`, `b`)'), '([a], [b])');
  assert.equal(spans('a lone ` backtick'), 'a lone ` backtick');
  assert.equal(spans('it`s `x'), 'it`s `x');
  assert.equal(spans('``'), '``');
  assert.equal(spans('use ``a `:` here`` now'), 'use [a `:` here] now');
  assert.equal(spans('`<b>&amp;`'), '[<b>&amp;]');
  assert.equal(spans(''), '');
  // Every character of the text is in exactly one span, in order, but the quotes.
  for (const text of ['`a`b`', '```', '`a` `b`', 'x`y`z', '`` ` ``', '` `'])
    assert.equal(
      codeSpans(text)
        .map((s) => s.text)
        .join('').length <= text.length,
      true,
    );
  assert.equal(plainText('did you mean `pay`x`?'), 'did you mean pay`x?');
  assert.equal(plainText('a lone ` backtick'), 'a lone ` backtick');
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
  const { limits } = nativeRun('examples/checkout.orbit', 'tests/golden/run/checkout.scenario.json');
  const checkout = limits.workflows.checkout;
  assert.equal(checkout.timeout_ms, 24 * 3600000);
  assert.deepEqual(checkout.steps.charge, { timeout_ms: 10000, queue_timeout_ms: 120000 });
  assert.equal(checkout.steps.approval.timeout_ms, 12 * 3600000);
  assert.equal(checkout.steps.notify.timeout_ms, 30000); // orbit.http.request's default
  assert.deepEqual(Object.keys(limits.workflows).sort(), ['checkout', 'pack_items']);
});

for (const [name, program, scenario] of [
  ['checkout', 'examples/checkout.orbit', 'tests/golden/run/checkout.scenario.json'],
  ['timeout', 'playground/examples/timeout.orbit', 'playground/examples/timeout.scenario.json'],
  ['compensation', 'playground/examples/compensation.orbit', 'playground/examples/compensation.scenario.json'],
]) {
  test(`the timeline of the ${name} run: a lane per step, a bar per attempt, every retry`, () => {
    const { events, limits } = nativeRun(program, scenario);
    const workflow = events[0].workflow;
    const layout = layoutRun(events, limits, workflow);
    const steps = [
      ...new Set(events.filter((e) => e.step !== undefined && e.event !== 'CompensationStarted').map((e) => e.step)),
    ];
    assert.deepEqual(
      layout.lanes.map((l) => l.step),
      steps,
    );
    const items = layout.lanes.flatMap((l) => l.items);
    const attempts = items.filter((i) => i.kind === 'attempt');
    assert.equal(attempts.length, events.filter((e) => e.event === 'StepDispatched').length);
    assert.ok(
      attempts.every((a) => a.outcome !== 'open' && a.end >= a.start),
      'every attempt ends',
    );
    const retries = items.filter((i) => i.kind === 'retry');
    assert.deepEqual(
      retries.map((r) => r.end - r.start),
      events.filter((e) => e.event === 'RetryScheduled').map((e) => e.delay_ms),
    );
    const timedOut = attempts.filter((a) => a.outcome === 'timeout');
    assert.equal(
      timedOut.length,
      events.filter((e) => e.event === 'StepAttemptFailed' && e.error === 'TIMEOUT').length,
    );
    for (const a of timedOut) assert.equal(a.end - a.start, a.timeout_ms); // ended exactly at the limit
    assert.equal(layout.deadline, limits.workflows[workflow].timeout_ms);
    const svg = timelineSvg(events, limits, workflow);
    assert.equal((svg.match(/<g class="lane"/g) || []).length, steps.length);
    assert.equal(svg, timelineSvg(events, limits, workflow)); // deterministic
  });
}

// ---- the Graph tab (src/graph.js) on real `orbitc graph` outputs ----

// The labels of a DOT graph as orbitc writes it: node id (or cluster_ID) → its lines.
function dotLabels(dot) {
  const labelLines = (text) =>
    text
      .replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c))
      .replace(/&amp;/g, '&')
      .split('\n');
  const labels = new Map();
  let cluster = null;
  for (const line of dot.split('\n')) {
    let m;
    if ((m = /^ {2}subgraph (cluster_\w+) \{$/.exec(line))) cluster = m[1];
    else if ((m = /^ {4}label="((?:[^"\\]|\\.)*)";$/.exec(line)) && cluster) labels.set(cluster, labelLines(m[1]));
    else if ((m = /^ {4}(w\d+_[sc]\d+) \[.*label="((?:[^"\\]|\\.)*)"\];$/.exec(line)))
      labels.set(m[1], labelLines(m[2]));
  }
  return labels;
}

// Every program of tests/golden/ that orbitc graph draws: the graph as JSON and as DOT.
// orbitc draws each once (two orbitc processes a program, under the sanitizers too): the
// tests below each parse the texts again, so that none sees what another changed.
let drawn;
function graphs() {
  if (!drawn) {
    drawn = [];
    const programs = [
      path.join('examples', 'checkout.orbit'),
      ...['graph', 'worst', 'run', 'steps'].flatMap((dir) => {
        const full = path.join(root, 'tests', 'golden', dir);
        return existsSync(full)
          ? readdirSync(full)
              .filter((f) => f.endsWith('.orbit'))
              .map((f) => path.join('tests', 'golden', dir, f))
          : [];
      }),
    ];
    for (const program of programs) {
      const orbitc = path.resolve(args.orbitc); // meson gives it relative to the build
      const json = spawnSync(orbitc, ['graph', '--format', 'json', program], { cwd: root, encoding: 'utf8' });
      assert.ok(!json.error, String(json.error));
      if (json.status !== 0) continue;
      const dot = spawnSync(orbitc, ['graph', '--format', 'dot', program], { cwd: root, encoding: 'utf8' }).stdout;
      drawn.push({ program, json: json.stdout, dot });
    }
  }
  return drawn.map(({ program, json, dot }) => ({ program, graph: parseGraph(json), dot }));
}

test('the Graph tab labels each step and workflow as orbitc graph does', () => {
  const all = graphs();
  assert.ok(all.length >= 20, `only ${all.length} programs drawn`);
  let compared = 0;
  for (const { program, graph, dot } of all) {
    const labels = dotLabels(dot);
    for (const workflow of graph.workflows) {
      if (workflow.nodes.length)
        assert.deepEqual(clusterLines(workflow), labels.get('cluster_' + workflow.id), program);
      for (const node of workflow.nodes) {
        assert.deepEqual(nodeLines(node), labels.get(node.id), `${program}: ${node.id}`);
        compared++;
      }
    }
  }
  assert.ok(compared >= 50, `only ${compared} nodes compared`);
  // parseGraph keeps the integers a number cannot hold as text, and nothing else.
  assert.deepEqual(
    parseGraph('{"a": [9223372036854775807, -9007199254740993, 12, 1.5, "9223372036854775807 \\"x\\""]}'),
    { a: ['9223372036854775807', '-9007199254740993', 12, 1.5, '9223372036854775807 "x"'] },
  );
});

test("the Graph tab's layout: every node once, steps in the order they run, no overlap, the critical path", () => {
  const all = graphs();
  assert.ok(all.length >= 20, `only ${all.length} programs drawn`);
  for (const { program, graph } of all) {
    const layout = layoutGraph(graph);
    const ids = graph.workflows.flatMap((w) => w.nodes.map((n) => n.id));
    assert.deepEqual([...layout.nodes.keys()].sort(), [...ids].sort(), program);
    const boxes = [...layout.nodes.values()];
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1))
        assert.ok(
          a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y,
          `${program}: ${a.node.id} and ${b.node.id} overlap`,
        );
    for (const workflow of graph.workflows) {
      const cluster = layout.clusters.find((c) => c.id === workflow.id);
      const steps = workflow.nodes.filter((n) => !n.compensation).map((n) => layout.nodes.get(n.id));
      for (let i = 1; i < steps.length; i++) assert.ok(steps[i].y > steps[i - 1].y, `${program}: program order`);
      for (const box of workflow.nodes.map((n) => layout.nodes.get(n.id)))
        assert.ok(
          box.x >= cluster.x &&
            box.x + box.width <= cluster.x + cluster.width &&
            box.y >= cluster.y &&
            box.y + box.height <= cluster.y + cluster.height,
          `${program}: ${box.node.id} outside its box`,
        );
      const critical = layout.edges
        .filter((e) => e.kind === 'critical' && layout.nodes.get(e.from).cluster === workflow.id)
        .map((e) => [e.from, e.to]);
      assert.deepEqual(
        critical,
        workflow.critical_path.slice(1).map((id, i) => [workflow.critical_path[i], id]),
        program,
      );
    }
    for (const e of graph.edges)
      assert.ok(layout.edges.some((d) => d.from === e.from && d.to === e.to && d.kind === e.kind));
    const svg = graphSvg(graph);
    assert.equal((svg.match(/<g class="node /g) || []).length, ids.length, program);
  }
});

// The Graph tab's layout is linear in the graph: every property of the graph that
// layoutGraph reads is counted (a Proxy over the parsed JSON), for a workflow of N
// steps and of 2N, each step reading the one before and undone by a compensate block.
// Scanning every edge for each step (or the critical path for each step) reads four to
// eight times as much for twice the steps; a linear layout, twice as much.
function countedReads(graph) {
  const count = { reads: 0 };
  const wrap = (value) =>
    value === null || typeof value !== 'object'
      ? value
      : new Proxy(value, {
          get(target, key, receiver) {
            count.reads++;
            return wrap(Reflect.get(target, key, receiver));
          },
        });
  return { graph: wrap(graph), count };
}

function compensatedChain(steps) {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-pg-units-'));
  writeFileSync(path.join(dir, 'chain.orbit'), graphProgram(steps));
  const json = run(path.resolve(args.orbitc), ['graph', '--format', 'json', path.join(dir, 'chain.orbit')]);
  rmSync(dir, { recursive: true });
  return parseGraph(json);
}

test("the Graph tab's layout reads the graph a linear number of times", () => {
  const reads = [150, 300].map((steps) => {
    const graph = compensatedChain(steps);
    assert.equal(graph.workflows[0].nodes.length, 2 * steps);
    assert.equal(graph.edges.filter((e) => e.kind === 'compensates').length, steps);
    const { graph: watched, count } = countedReads(graph);
    const layout = layoutGraph(watched);
    assert.equal(layout.nodes.size, 2 * steps);
    assert.equal(layout.compensationOf.size, steps);
    return count.reads;
  });
  assert.ok(reads[1] <= 2.3 * reads[0], `${reads[0]} reads for 150 steps, ${reads[1]} for 300: not linear`);
});

test('the Graph tab draws at most MAX_DRAWN_NODES nodes, and says how many it left out', () => {
  const graph = compensatedChain(300);
  const svg = graphSvg(graph, 101);
  // 101 nodes: the 51st step's compensate block stays with it.
  assert.equal((svg.match(/<g class="node /g) || []).length, 102);
  assert.match(svg, /102 of 600 nodes drawn/);
  assert.match(svg, /498 more nodes not drawn/);
  const bounded = boundGraph(graph, 101);
  assert.equal(bounded.omitted, 498);
  const kept = new Set(bounded.workflows[0].nodes.map((n) => n.id));
  assert.ok(bounded.edges.every((e) => kept.has(e.from) && kept.has(e.to)));
  assert.deepEqual(
    bounded.workflows[0].critical_path,
    graph.workflows[0].critical_path.filter((id) => kept.has(id)),
  );
  assert.ok(MAX_DRAWN_NODES <= 1000);
  assert.equal(boundGraph(graph, 600), graph); // what fits is drawn whole
});

// ---- what the worker makes of the module's answers (src/worker-work.js) and the page's
// share of them (src/diagnostics.js) ----

test('a check read once in the worker: each diagnostic where the editor puts it, from its bytes', () => {
  // A lone \r ends a line for orbitc but not in the editor, and é and 😀 are more bytes
  // than UTF-16 units: only the byte offsets place the diagnostics in the editor's text.
  const text = 'workflow w { // 😀\n  step s { compute 1 + "é" }\r  step t { compute 2 + "x" }\n}\n';
  const bytes = (offset) => Buffer.byteLength(text.slice(0, offset));
  const at = (needle) => {
    const from = text.indexOf(needle);
    return { from, to: from + needle.length };
  };
  const s = at('1 + "é"');
  const t = at('2 + "x"');
  const placed = (code, severity, { from, to }, file = FILE) => ({
    code,
    severity,
    file,
    byte_start: bytes(from),
    byte_end: bytes(to),
    range: { start: { line: 9, character: 0 }, end: { line: 9, character: 1 } },
  }); // the LSP range is not read
  const lines =
    [
      placed('E0506', 'error', t),
      placed('E0506', 'error', s),
      placed('W0001', 'warning', { from: 0, to: 1 }, 'other.orbit'),
      {
        code: 'E0001',
        severity: 'note',
        file: FILE,
        byte_start: bytes(text.length) + 7,
        byte_end: bytes(text.length) + 9,
      },
    ]
      .map((d) => JSON.stringify(d))
      .join('\n') + '\n';
  const read = readCheck(lines, FILE);
  assert.equal(read.count, 4);
  assert.equal(read.errors, 2);
  const { spans, order } = placeCheck(text, read);
  assert.deepEqual([...spans], [t.from, t.to, 0, s.from, s.to, 0, -1, -1, 1, text.length, text.length, 2]);
  assert.deepEqual([...order], [2, 1, 0, 3]);
  const set = new DiagnosticSet({ ...read, ...placeCheck(text, read) });
  assert.equal(set.get(1).byte_start, bytes(s.from));
  assert.equal(set.from(0), t.from);
  // Every diagnostic with a place is marked while they are few; the others by position.
  assert.deepEqual(markedIndexes(set, 0, 0, 10), [1, 0, 3]);
  assert.deepEqual(markedIndexes(set, t.from - 2, t.to, 2), [0]);
  assert.deepEqual(markedIndexes(set, 0, text.length + 1, 2), [1, 0]);
  // A byte inside a character moves past it; one beyond the text is its end.
  assert.deepEqual([...byteOffsets('é😀x', [1, 3, 4, 7, 99, 0])], [1, 3, 3, 4, 4, 0]);
});

test("the tokens cross as numbers; a scenario gets the page's max_events unless it has its own", () => {
  const { spans, kinds } = tokenArrays([
    [0, 8, 'T_WORKFLOW'],
    [9, 10, 'IDENT'],
    [11, 12, 'LBRACE'],
    [13, 14, 'IDENT'],
  ]);
  assert.deepEqual([...spans], [0, 8, 0, 9, 10, 1, 11, 12, 2, 13, 14, 1]);
  assert.deepEqual(kinds, ['T_WORKFLOW', 'IDENT', 'LBRACE']);
  const scenario = '{\n  "workflow": "a",\n  "input": {}\n}\n';
  const bounded = withMaxEvents(scenario, 10000);
  assert.deepEqual(JSON.parse(bounded.text), { workflow: 'a', input: {}, max_events: 10000 });
  assert.equal(bounded.text.slice(0, scenario.lastIndexOf('}')), scenario.slice(0, scenario.lastIndexOf('}'))); // nothing moves
  assert.deepEqual(withMaxEvents(' { } ', 5), { text: ' { "max_events": 5} ', limit: 5, own: false });
  assert.deepEqual(withMaxEvents('{"max_events": 3}', 5), { text: '{"max_events": 3}', limit: 3, own: true });
  for (const bad of ['[1]', 'null', '{', '"x"'])
    assert.deepEqual(withMaxEvents(bad, 5), { text: bad, limit: null, own: false });
});

test("the timeline of the 132-character link's first 3,000 events: at most MAX_LANES lanes and MAX_ITEMS bars, and a note", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-pg-units-'));
  writeFileSync(path.join(dir, 'a.orbit'), LINK_132);
  writeFileSync(path.join(dir, 's.json'), JSON.stringify({ max_events: 3000 }));
  const orbc = path.join(dir, 'a.orbc');
  run(args.orbitc, ['build', path.join(dir, 'a.orbit'), '-o', orbc]);
  const lines = run(args['orbit-run'], [orbc, '--scenario', path.join(dir, 's.json'), '--format', 'json'])
    .split('\n')
    .filter((l) => l);
  rmSync(dir, { recursive: true });
  assert.deepEqual(JSON.parse(lines[lines.length - 1]), { status: 'STOPPED' });
  const events = lines.map((l) => JSON.parse(l)).filter((e) => e.event);
  assert.equal(events.length, 3000);
  const limits = {
    workflows: { a: { timeout_ms: null, steps: { s: { timeout_ms: 3600000, queue_timeout_ms: null } } } },
  };
  const layout = layoutRun(events, limits, 'a');
  const items = layout.lanes.reduce((sum, l) => sum + l.items.length, 0);
  assert.ok(layout.lanes.length > MAX_LANES, `${layout.lanes.length} lanes`);
  const bounded = boundLanes(layout.lanes);
  assert.equal(bounded.lanes.length, MAX_LANES);
  assert.equal(bounded.omittedLanes, layout.lanes.length - MAX_LANES);
  const drawn = bounded.lanes.reduce((sum, l) => sum + l.items.length, 0);
  assert.ok(drawn <= MAX_ITEMS);
  assert.equal(drawn + bounded.omittedItems, items);
  const svg = timelineSvg(events, limits, 'a');
  assert.equal((svg.match(/<g class="lane"/g) || []).length, MAX_LANES);
  assert.match(
    svg,
    new RegExp(
      `Not drawn: ${bounded.omittedLanes.toLocaleString('en')} more lanes with ${bounded.omittedItems.toLocaleString('en')} more bars`,
    ),
  );
});
