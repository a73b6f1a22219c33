// The playground in a real browser: Debian's chromium, headless, driven by
// puppeteer-core, on the site tools/playground.sh builds, served by python3's
// http.server on a free loopback port. Every expected text comes from the native
// tools of this build (orbitc check/fmt/build/dis, orbit-run), never from a copy.
//
//   node tests/playground/test_playground.mjs --site DIR --orbitc PATH --orbit-run PATH
//        [--screenshot FILE] [--chromium PATH]
//
// --screenshot FILE also writes FILE-graph.png (FILE without .png), the Graph tab.
//
// Skipped (exit 77) when the site is missing, unless ORBIT_REQUIRE_PLAYGROUND is set
// (tools/test.sh sets it). Ends with a benchmark line (keystroke to updated diagnostics on the checkout
// example), which is measured and printed, not asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { graphProgram, link, LINK_132, manyDiagnostics, PROGRAM_586 } from './playground_hostile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    site: { type: 'string', default: path.join(root, 'build-playground', 'site') },
    orbitc: { type: 'string' },
    'orbit-run': { type: 'string' },
    screenshot: { type: 'string' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
  },
});
for (const key of ['site', 'orbitc', 'orbit-run', 'screenshot']) if (args[key]) args[key] = path.resolve(args[key]);
if (!existsSync(path.join(args.site, 'index.html')) && !process.env.ORBIT_REQUIRE_PLAYGROUND) {
  console.log(
    `SKIP: no site in ${args.site} (tools/playground.sh builds it; ORBIT_REQUIRE_PLAYGROUND=1 makes this a failure)`,
  );
  process.exit(77);
}
const require = createRequire(path.join(root, 'playground', 'package.json'));
const puppeteer = require('puppeteer-core');

const WAIT_MS = 20000; // the longest any one thing may take in the page
const FILE = 'playground.orbit'; // the page's name for its one file

const TYPED_PROGRAM = [
  'worker "payments.charge" {',
  'input { order_id: string }',
  '}',
  'workflow pay {',
  'input { order_id: string }',
  'step charge {',
  'worker "payments.charge"',
  'with { order_id: input.order_id }',
  'retry {',
  'attempts: 3',
  'backof: exponential',
  '}',
  '}',
  '}',
].join('\n');

// ---- the native tools ----

function native(program, argv, input, cwd) {
  const r = spawnSync(program, argv, { input, cwd, encoding: 'utf8', timeout: 60000, maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return r;
}

function nativeCheck(source) {
  const r = native(args.orbitc, ['check', '--format', 'json', '--stdin-filename', FILE, '-'], source);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

function nativeFormat(source) {
  const r = native(args.orbitc, ['fmt', '-'], source);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

// `orbitc check --format json`'s exact text for the source.
function nativeCheckText(source) {
  return native(args.orbitc, ['check', '--format', 'json', '--stdin-filename', FILE, '-'], source).stdout;
}

// Builds the source as `playground.orbit` in a fresh directory; returns the directory.
function nativeBuild(source) {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-playground-'));
  writeFileSync(path.join(dir, FILE), source);
  const r = native(args.orbitc, ['build', FILE, '-o', 'program.orbc'], '', dir);
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

// ---- the server and the browser ----

let server;
let baseUrl;
let browser;
let page;

function startServer(site) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', site], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => reject(new Error('http.server did not start in time')), 10000);
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${m[1]}/` });
      }
    });
    child.on('exit', (code) => reject(new Error('http.server exited with ' + code)));
  });
}

async function openPage(fragment = '') {
  const p = await browser.newPage();
  p.setDefaultTimeout(WAIT_MS);
  const problems = [];
  p.on('pageerror', (error) => problems.push(error.message));
  p.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  p.problems = problems;
  // Every Content-Security-Policy violation, from before the page's first script.
  await p.evaluateOnNewDocument(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  await p.setViewport({ width: 1400, height: 900 });
  await p.goto(baseUrl + fragment, { waitUntil: 'load' });
  await p.waitForSelector('body[data-ready=true]');
  return p;
}

const docText = (p) => p.evaluate(() => window.playground.view.state.doc.toString());

async function setDoc(p, text) {
  await p.evaluate((t) => {
    const view = window.playground.view;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
  }, text);
}

// Waits until the page has checked the current text (the diagnostics are up to date)
// and no Fix all or Format is under way (their text comes from the worker).
async function settled(p) {
  await p.waitForFunction(() => {
    const s = window.playground;
    return !s.actions && s.checkedText === s.view.state.doc.toString();
  });
}

before(async () => {
  for (const [name, file] of [
    ['--site', path.join(args.site, 'index.html')],
    ['--orbitc', args.orbitc],
    ['--orbit-run', args['orbit-run']],
    ['chromium', args.chromium],
  ])
    if (!file || !existsSync(file))
      throw new Error(
        `${name}: ${file} not found (tools/playground.sh builds the site; tools/install-playground-deps.sh installs chromium)`,
      );
  ({ child: server, url: baseUrl } = await startServer(args.site));
  browser = await puppeteer.launch({
    executablePath: args.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: WAIT_MS,
  });
  page = await openPage();
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
});

test('the page loads without an error', async () => {
  assert.deepEqual(page.problems, []);
  assert.match(await page.$eval('#status', (e) => e.textContent), /Ready/);
});

test('the header links the language reference, whose pages the site serves as docs/reference/ has them', async () => {
  const href = await page.$eval('header a#reference', (a) => a.href);
  assert.equal(href, baseUrl + 'reference/README.md');
  const pages = readdirSync(path.join(root, 'docs', 'reference')).filter((name) => name.endsWith('.md'));
  assert.ok(pages.includes('README.md') && pages.length > 1, pages.join(' '));
  for (const name of pages) {
    const response = await fetch(new URL(name, href));
    assert.equal(response.status, 200, name);
    assert.equal(await response.text(), readFileSync(path.join(root, 'docs', 'reference', name), 'utf8'), name);
  }
});

test('a typed `backof` shows E0410, underlined at its columns, with `backoff` on hover', async () => {
  await setDoc(page, '');
  await page.click('.cm-content');
  await page.keyboard.type(TYPED_PROGRAM);
  await settled(page);
  const text = await docText(page);
  const expected = nativeCheck(text);
  assert.equal(expected.length, 1);
  assert.equal(expected[0].code, 'E0410');
  await page.waitForSelector('.cm-lintRange-error');
  const marks = await page.$$eval('.cm-lintRange-error', (spans) =>
    spans.map((span) => {
      const view = window.playground.view;
      const from = view.posAtDOM(span, 0);
      const line = view.state.doc.lineAt(from);
      return { text: span.textContent, line: line.number, column: from - line.from + 1 };
    }),
  );
  assert.deepEqual(marks, [{ text: 'backof', line: expected[0].line, column: expected[0].column }]);
  assert.equal(expected[0].end_column - expected[0].column, 'backof'.length);

  await page.hover('.cm-lintRange-error');
  const tooltip = await page.waitForSelector('.cm-tooltip-lint');
  const tip = await tooltip.evaluate((e) => e.textContent);
  assert.match(tip, /E0410/);
  assert.match(tip, /unknown retry setting backof/);
  assert.match(tip, /did you mean backoff\?/);
  const list = await page.$eval('#diag-list', (e) => e.textContent);
  assert.match(list, /E0410/);
  assert.match(list, new RegExp(`${FILE}:${expected[0].line}:${expected[0].column}`));
});

test('the quick fix applies and the diagnostic goes', async () => {
  await page.click('.cm-tooltip-lint .cm-diagnosticAction');
  await settled(page);
  await page.waitForFunction(() => !document.querySelector('.cm-lintRange-error'));
  const text = await docText(page);
  assert.equal(text, TYPED_PROGRAM.replace('backof:', 'backoff:'));
  assert.deepEqual(nativeCheck(text), []);
  assert.match(await page.$eval('#diag-list', (e) => e.textContent), /checks clean/);
});

test("Format gives `orbitc fmt -`'s exact text", async () => {
  const before = await docText(page);
  const expected = nativeFormat(before);
  assert.notEqual(expected, before);
  await page.click('[data-tab=formatted]');
  await page.waitForFunction((t) => document.getElementById('formatted').textContent === t, {}, expected);
  await page.click('#format');
  await settled(page);
  assert.equal(await docText(page), expected);
});

test('Fix all applies what `orbitc fix -` applies', async () => {
  const broken = TYPED_PROGRAM.replace('attempts: 3', 'atempts: 3');
  await setDoc(page, broken);
  await settled(page);
  const fixed = native(args.orbitc, ['fix', '-'], broken).stdout;
  await page.click('#fix-all');
  await settled(page);
  assert.equal(await docText(page), fixed);
});

test("the disassembly is `orbitc dis`'s exact text", async () => {
  await page.select('#examples', 'checkout');
  await settled(page);
  const source = await docText(page);
  assert.equal(source, readFileSync(path.join(root, 'examples', 'checkout.orbit'), 'utf8'));
  const dir = nativeBuild(source);
  const expected = native(args.orbitc, ['dis', 'program.orbc'], '', dir).stdout;
  rmSync(dir, { recursive: true });
  await page.click('[data-tab=disassembly]');
  await page.waitForFunction((t) => document.getElementById('dis').textContent === t, {}, expected);
});

test("the checkout run is native orbit-run's history, byte for byte, and its timeline", async () => {
  await page.click('[data-tab=run]');
  const scenario = await page.$eval('#scenario', (e) => e.value);
  assert.equal(scenario, readFileSync(path.join(root, 'tests', 'golden', 'run', 'checkout.scenario.json'), 'utf8'));
  const dir = nativeBuild(await docText(page));
  writeFileSync(path.join(dir, 'scenario.json'), scenario);
  const expected = native(args['orbit-run'], ['program.orbc', '--scenario', 'scenario.json'], '', dir).stdout;
  const expectedEvents = native(
    args['orbit-run'],
    ['program.orbc', '--scenario', 'scenario.json', '--format', 'json'],
    '',
    dir,
  )
    .stdout.split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.event);
  rmSync(dir, { recursive: true });
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('run-logs').textContent !== '');
  assert.equal(await page.$eval('#run-logs', (e) => e.textContent), expected);

  // One lane per step of the history, one bar per dispatched attempt, the deadline.
  const lanes = await page.$$eval('#timeline g.lane', (gs) => gs.map((g) => g.dataset.step));
  assert.deepEqual(lanes, [
    ...new Set(
      expectedEvents.filter((e) => e.step !== undefined && e.event !== 'CompensationStarted').map((e) => e.step),
    ),
  ]);
  const bars = await page.$$eval('#timeline g.lane rect.attempt', (rs) => rs.length);
  assert.equal(bars, expectedEvents.filter((e) => e.event === 'StepDispatched').length);
  assert.equal(
    await page.$$eval('#timeline g.lane g.retry', (gs) => gs.length),
    expectedEvents.filter((e) => e.event === 'RetryScheduled').length,
  );
  assert.match(await page.$eval('#timeline .deadline', (g) => g.textContent), /deadline 1d/);
});

test('a screenshot of the page with the run is not blank', async () => {
  const png = await page.screenshot({ type: 'png' });
  if (args.screenshot) writeFileSync(args.screenshot, png);
  // Decoded by the browser itself: the colours of a sample of its pixels.
  const colours = await page.evaluate(async (dataUrl) => {
    const image = new Image();
    image.src = dataUrl;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = image.width;
    canvas.height = image.height;
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const data = context.getImageData(0, 0, image.width, image.height).data;
    const seen = new Set();
    for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return { width: image.width, height: image.height, distinct: seen.size };
  }, 'data:image/png;base64,' + png.toString('base64'));
  assert.equal(colours.width, 1400);
  assert.equal(colours.height, 900);
  assert.ok(colours.distinct >= 50, `only ${colours.distinct} colours in the screenshot`);
});

// `orbitc graph --format FORMAT [--workflow NAME]` of the source, natively.
function nativeGraph(source, format, workflow) {
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-playground-'));
  writeFileSync(path.join(dir, FILE), source);
  const r = native(
    args.orbitc,
    ['graph', '--format', format, ...(workflow ? ['--workflow', workflow] : []), FILE],
    '',
    dir,
  );
  rmSync(dir, { recursive: true });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

// What the Graph tab draws: its nodes and its edges, from the SVG's own attributes.
function drawnGraph(p) {
  return p.evaluate(() => {
    const svg = document.querySelector('#graph svg.graph');
    if (!svg) return null;
    return {
      nodes: [...svg.querySelectorAll('g.node')].map((g) => ({
        id: g.dataset.id,
        name: g.dataset.name,
        compensation: g.dataset.compensation === 'true',
        critical: g.dataset.critical === 'true',
        red: getComputedStyle(g.querySelector('rect, polygon')).stroke,
      })),
      critical: [...svg.querySelectorAll('g.edge.critical[data-from]')].map((g) => [g.dataset.from, g.dataset.to]),
      starts: [...svg.querySelectorAll('g.edge.starts')].map((g) => [g.dataset.from, g.dataset.to]),
      compensates: [...svg.querySelectorAll('g.edge.compensates[data-from]')].map((g) => [
        g.dataset.from,
        g.dataset.to,
      ]),
      clusters: [...svg.querySelectorAll('g.cluster')].map((g) => g.dataset.workflow),
    };
  });
}

test("the Graph tab draws the checkout example's step graph, its critical path marked", async () => {
  await page.select('#examples', 'checkout');
  await settled(page);
  const source = await docText(page);
  await page.click('[data-tab=graph]');
  await page.waitForSelector('#graph svg.graph g.node');
  // Two workflows (checkout starts pack_items): the selector shows, on the first.
  assert.equal(await page.$eval('#graph-workflow-label', (e) => e.hidden), false);
  assert.deepEqual(await page.$$eval('#graph-workflow option', (os) => os.map((o) => o.value)), [
    'checkout',
    'pack_items',
  ]);
  const expected = JSON.parse(nativeGraph(source, 'json', 'checkout'));
  const drawn = await drawnGraph(page);
  const nodes = expected.workflows.flatMap((w) => w.nodes);
  assert.deepEqual(
    drawn.nodes
      .map(({ id, name, compensation, critical }) => ({ id, name, compensation, critical }))
      .sort((a, b) => a.id.localeCompare(b.id)),
    nodes
      .map(({ id, name, compensation, critical }) => ({ id, name, compensation, critical }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  );
  assert.ok(nodes.length >= 7, 'every step and the compensate block');
  // The critical path: red borders on its steps only, red arrows from each to the next.
  for (const node of drawn.nodes) {
    const red = node.red.replace(/\s/g, '') === 'rgb(192,57,43)';
    assert.equal(red, node.critical, `${node.id}: red border ${node.red}, critical ${node.critical}`);
  }
  const pairs = expected.workflows.flatMap((w) => w.critical_path.slice(1).map((id, i) => [w.critical_path[i], id]));
  assert.ok(pairs.length >= 4);
  assert.deepEqual(drawn.critical, pairs);
  assert.deepEqual(
    drawn.starts,
    expected.edges.filter((e) => e.kind === 'starts').map((e) => [e.from, e.to]),
  );
  assert.deepEqual(
    drawn.compensates,
    expected.edges.filter((e) => e.kind === 'compensates').map((e) => [e.from, e.to]),
  );
  assert.deepEqual(drawn.clusters, ['checkout', 'pack_items']);
  if (args.screenshot)
    writeFileSync(args.screenshot.replace(/\.png$/, '') + '-graph.png', await page.screenshot({ type: 'png' }));

  // The other workflow alone, and the graph as DOT and Mermaid text: orbitc graph's bytes.
  await page.select('#graph-workflow', 'pack_items');
  await page.waitForFunction(() => document.querySelectorAll('#graph g.cluster').length === 1);
  const alone = JSON.parse(nativeGraph(source, 'json', 'pack_items'));
  assert.deepEqual(
    (await drawnGraph(page)).nodes.map((n) => n.name),
    alone.workflows[0].nodes.map((n) => n.name),
  );
  await page.select('#graph-workflow', 'checkout');
  for (const format of ['dot', 'mermaid']) {
    await page.select('#graph-view', format);
    await page.waitForFunction(
      (t) => document.getElementById('graph-text').textContent === t,
      {},
      nativeGraph(source, format, 'checkout'),
    );
    assert.equal(await page.$('#graph svg'), null);
  }
  await page.select('#graph-view', 'picture');
  await page.waitForSelector('#graph svg.graph g.node');
});

test('a program with errors shows why in the Graph tab, not the last graph', async () => {
  assert.ok(await page.$('#graph svg.graph'), 'a graph is drawn before');
  const broken = (await docText(page)).replace('retry {', 'retry { backof: exponential');
  await setDoc(page, broken);
  await settled(page);
  await page.waitForFunction(() => !document.querySelector('#graph svg'));
  const message = await page.$eval('#graph-message', (e) => (e.hidden ? '' : e.textContent));
  assert.match(message, /the program has 1 error: its graph is drawn once it is fixed/);
  assert.equal(nativeCheck(broken).filter((d) => d.severity === 'error').length, 1);
  await page.select('#graph-view', 'dot');
  assert.equal(await page.$eval('#graph-text', (e) => e.hidden || e.textContent === ''), true);
  await page.select('#graph-view', 'picture');
  await page.select('#examples', 'checkout');
  await settled(page);
  await page.waitForSelector('#graph svg.graph g.node');
  assert.equal(await page.$eval('#graph-message', (e) => e.hidden), true);
  assert.deepEqual(page.problems, []);
  await page.click('[data-tab=run]'); // the benchmarks below measure the page as before
});

test('a #source= link opens with its program and its diagnostics', async () => {
  const source = 'workflow w {\n  step s {\n    worker "a.b"\n    retry { backof: exponential }\n  }\n}\n';
  const fragment = '#source=' + Buffer.from(source, 'utf8').toString('base64url');
  assert.doesNotMatch(fragment.slice('#source='.length), /[=+/]/);
  const linked = await openPage(fragment);
  await settled(linked);
  assert.equal(await docText(linked), source);
  await linked.waitForSelector('.cm-lintRange-error');
  // biome-ignore lint/performance/useDomNodeTextContent: what the page shows, not the text of hidden tabs
  const body = await linked.evaluate(() => document.body.innerText);
  assert.match(body, /E0410/);
  assert.match(body, /backoff/);
  // Share writes the same kind of link for what is in the editor.
  await setDoc(linked, source + '// é ☃ 𝄞\n');
  await linked.click('#share');
  const hash = await linked.evaluate(() => window.location.hash);
  assert.equal(Buffer.from(hash.slice('#source='.length), 'base64url').toString('utf8'), source + '// é ☃ 𝄞\n');
  assert.doesNotMatch(hash.slice('#source='.length), /[=+/]/);
  assert.deepEqual(linked.problems, []);
  await linked.close();
});

// ---- the page never loses a character (NUL, CR, a byte order mark) ----

// The audit's link: a NUL between two workflows, the second with an unknown name.
const NUL_LINK =
  '#source=d29ya2Zsb3cgdyB7CiAgc3RlcCBzIHsgc2xlZXAgMXMgfQp9CgAKd29ya2Zsb3cgICB4IHsKICBzdGVwIHQgeyBjb21wdXRlIG5vcGUgfQp9Cg';

test('a link with a NUL: every character kept, the diagnostics, Format and Fix all of the CLI', async () => {
  const source = Buffer.from(NUL_LINK.slice('#source='.length), 'base64url').toString('utf8');
  assert.ok(source.includes('\0') && source.includes('nope'));
  const linked = await openPage(NUL_LINK);
  await settled(linked);
  assert.equal(await docText(linked), source);
  const expected = nativeCheckText(source);
  assert.deepEqual(
    expected
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l).code),
    ['E0002', 'E0205'],
  );
  assert.equal(await linked.evaluate(() => window.playground.diagnostics.jsonl), expected); // the API's check text
  const list = await linked.$eval('#diag-list', (e) => e.textContent);
  assert.match(list, /E0002/);
  assert.match(list, /E0205/);
  // Format: fmt refuses a text with lexical errors, so the text stays as it is.
  assert.notEqual(native(args.orbitc, ['fmt', '-'], source).status, 0);
  await linked.click('#format');
  await settled(linked);
  assert.equal(await docText(linked), source);
  assert.match(await linked.$eval('#status', (e) => e.textContent), /lexical or syntax errors/);
  // Fix all: what `orbitc fix -` writes (nothing to fix here: the same text).
  await linked.click('#fix-all');
  await settled(linked);
  assert.equal(await docText(linked), native(args.orbitc, ['fix', '-'], source).stdout);
  assert.equal(await docText(linked), source);
  await linked.close();
});

test('a CRLF link loaded into an open page keeps the text exactly', async () => {
  const source = 'workflow w {\r\n  step s { sleep 1s }\r\n}\r\n';
  const p = await openPage();
  await p.evaluate((f) => {
    window.location.hash = f;
  }, '#source=' + Buffer.from(source).toString('base64url'));
  await p
    .waitForFunction((t) => window.playground.view.state.doc.toString() === t, { timeout: 5000 }, source)
    .catch(() => {});
  assert.equal(await docText(p), source);
  await p.close();
});

test('a leading byte order mark is kept, as the CLI keeps it', async () => {
  const source = readFileSync(path.join(root, 'tests', 'golden', 'fmt', 'bom.orbit'), 'utf8');
  assert.ok(source.startsWith('\ufeff'));
  const p = await openPage('#source=' + Buffer.from(source).toString('base64url'));
  await settled(p);
  assert.equal(await docText(p), source);
  assert.equal(await p.evaluate(() => window.playground.diagnostics.jsonl), nativeCheckText(source));
  await p.click('#format');
  await settled(p);
  assert.equal(await docText(p), nativeFormat(source));
  assert.ok((await docText(p)).startsWith('\ufeff'));
  await p.click('#share');
  const hash = await p.evaluate(() => window.location.hash);
  assert.equal(Buffer.from(hash.slice('#source='.length), 'base64url').toString('utf8'), nativeFormat(source));
  await p.close();
});

// Every golden source (and example) through the page's own buttons. The API equals
// `orbitc fix -` and `orbitc fmt -` on every golden byte for byte (test_wasm.py); here,
// on every golden, the editor keeps the text it is given, and Fix all and Format put
// exactly the API's text in it, so the page equals the CLI. The sources whose characters
// an editor is tempted to change (CR, NUL, a byte order mark: CodeMirror turned every
// line end into LF) are also compared with the CLI itself, on a copy of the same bytes.
test('Fix all and Format equal `orbitc fix -` and `orbitc fmt -` on every golden source', async () => {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.orbit')) files.push(full);
    }
  };
  walk(path.join(root, 'tests', 'golden'));
  walk(path.join(root, 'examples'));
  const cases = [];
  for (const file of files.sort()) {
    // The editor's part, on the sources an editor holds (the 1 MB one of tests/golden/lex
    // costs seconds; test_wasm.py takes it through the API).
    if (statSync(file).size > 65536) continue;
    let text;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(readFileSync(file));
    } catch {
      continue; // not UTF-8: the page holds JavaScript strings
    }
    cases.push({ file: path.relative(root, file), text });
  }
  assert.ok(cases.length > 200, `only ${cases.length} sources`);
  const p = await openPage();
  const got = await p.evaluate(async (all) => {
    const s = window.playground;
    const { view } = s;
    const set = (t) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    // The buttons' answers come from the checking worker: wait until none is under way.
    const idle = () =>
      new Promise((resolve) => {
        const poll = () => (s.actions ? setTimeout(poll, 1) : resolve());
        poll();
      });
    const out = [];
    for (const { text } of all) {
      set(text);
      const loaded = view.state.doc.toString();
      document.getElementById('fix-all').click();
      await idle();
      const fixed = view.state.doc.toString();
      const apiFix = await s.ask('fix', { text });
      set(text);
      document.getElementById('format').click();
      await idle();
      const format = await s.ask('format', { text });
      out.push({
        loaded,
        fixed,
        apiFixed: apiFix.text,
        formatted: view.state.doc.toString(),
        apiFormatted: format.ok ? format.text : text,
      });
    }
    return out;
  }, cases);
  const differ = [];
  let withCli = 0;
  cases.forEach(({ file, text }, i) => {
    const g = got[i];
    if (g.loaded !== text) differ.push(`${file}: the editor changed the text`);
    if (g.fixed !== g.apiFixed) differ.push(`${file}: Fix all differs from the API's fix`);
    if (g.formatted !== g.apiFormatted) differ.push(`${file}: Format differs from the API's format`);
    if (!/[\r\0\ufeff]/.test(text)) return;
    withCli++;
    if (g.fixed !== native(args.orbitc, ['fix', '-'], text).stdout)
      differ.push(`${file}: Fix all differs from orbitc fix -`);
    const fmt = native(args.orbitc, ['fmt', '-'], text);
    if (g.formatted !== (fmt.status === 0 ? fmt.stdout : text))
      differ.push(`${file}: Format differs from orbitc fmt -`);
  });
  assert.deepEqual(differ, []);
  assert.ok(withCli >= 8, `only ${withCli} sources with CR, NUL or a byte order mark`);
  assert.deepEqual(p.problems, []);
  await p.close();
});

test('backticks in a message: code spans for balanced quotes, literal text otherwise, never HTML', async () => {
  const source =
    'worker "pay`x<img src=x>" {\n  input { a: string }\n}\nworkflow w {\n' +
    '  step s { worker "pay`x<img src=x>"\n  with { a: "x", zz: "y" } }\n  step t { compute a`b }\n}\n';
  const expected = nativeCheck(source);
  assert.deepEqual(expected.map((d) => d.code).sort(), ['E0002', 'E0503']);
  const p = await openPage();
  await setDoc(p, source);
  await settled(p);
  const rendered = await p.$$eval('#diag-list .orbit-diagnostic', (ds) =>
    ds.map((d) => ({
      head: d.querySelector('.severity').textContent,
      code: [...d.querySelectorAll('.message code')].map((c) => c.textContent),
    })),
  );
  const codes = Object.fromEntries(rendered.map((r) => [r.head, r.code]));
  assert.deepEqual(codes['error[E0503]'], ['zz', 'pay`x<img src=x>']);
  assert.deepEqual(codes['error[E0002]'], ['`']);
  assert.match(expected.find((d) => d.code === 'E0503').message, /`pay`x<img src=x>`/);
  assert.equal(await p.$$eval('#diag-list img', (is) => is.length), 0);
  await p.close();
});

test('Share of a program too long for a link warns and offers the .orbit file', async () => {
  // 1.7 MB of source: its link (4/3 of it in base64url) is over Chromium's 2 MB.
  const line = '// ' + 'a'.repeat(96) + '\n';
  const source = 'workflow w {\n  step s { sleep 1s }\n}\n' + line.repeat(17000);
  const p = await openPage();
  const before = await p.evaluate(() => window.location.href);
  await setDoc(p, source);
  await p.click('#share');
  await p.waitForFunction(() => !document.getElementById('share-warning')?.hidden, { timeout: 5000 });
  assert.match(await p.$eval('#share-warning', (e) => e.textContent), /too long for a link/);
  assert.equal(await p.evaluate(() => window.location.href), before, 'the address is left alone');
  const dir = mkdtempSync(path.join(tmpdir(), 'orbit-playground-download-'));
  const cdp = await p.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir });
  await p.click('#share-download');
  const file = path.join(dir, FILE);
  const deadline = Date.now() + WAIT_MS;
  while (!(existsSync(file) && readFileSync(file).length === Buffer.byteLength(source)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));
  assert.equal(readFileSync(file, 'utf8'), source);
  rmSync(dir, { recursive: true });
  await p.close();
});

test('opened from file://, the page says how to serve it instead of waiting forever', async () => {
  const p = await browser.newPage();
  await p.goto('file://' + path.join(args.site, 'index.html'), { waitUntil: 'load' });
  await p
    .waitForFunction(() => /python3 -m http\.server/.test(document.getElementById('status').textContent), {
      timeout: 5000,
    })
    .catch(() => {});
  assert.match(await p.$eval('#status', (e) => e.textContent), /file:.*python3 -m http\.server/s);
  await p.close();
});

test('the Content-Security-Policy: nothing blocked in use, an injected inline script blocked', async () => {
  const p = await openPage();
  for (const tab of ['formatted', 'disassembly', 'graph', 'run', 'diagnostics']) {
    await p.click(`[data-tab=${tab}]`);
    if (tab === 'run') {
      await p.click('#run');
      await p.waitForFunction(() => document.getElementById('run-logs').textContent !== '');
    }
    if (tab === 'graph') await p.waitForSelector('#graph svg.graph g.node');
  }
  await p.hover('.cm-content');
  assert.deepEqual(await p.evaluate(() => window.cspViolations), []);
  assert.deepEqual(await page.evaluate(() => window.cspViolations), [], 'the main page, after every test above');
  const csp = await p.$eval('meta[http-equiv=Content-Security-Policy]', (m) => m.content).catch(() => '');
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval'/);
  await p.evaluate(() => {
    const script = document.createElement('script');
    script.textContent = 'window.injected = true;';
    document.body.append(script);
  });
  await p.waitForFunction(() => window.cspViolations.length > 0, { timeout: 5000 }).catch(() => {});
  assert.equal(await p.evaluate(() => window.injected), undefined);
  assert.match((await p.evaluate(() => window.cspViolations)).join('\n'), /^script-src/m);
  await p.close();
});

// ---- hostile programs (tests/playground/playground_hostile.mjs): the page's thread stays free ----

// The scenario editor once the page has filled it in for the program.
async function prefilledScenario(p) {
  await p.click('[data-tab=run]');
  await p.waitForFunction(() => {
    try {
      return JSON.parse(document.getElementById('scenario').value).workflow !== undefined;
    } catch {
      return false;
    }
  });
  return p.$eval('#scenario', (e) => e.value);
}

test('Run on the 132-character link leaves the page free, and stops at the event limit', async () => {
  const linked = await openPage(link(LINK_132));
  await prefilledScenario(linked);
  // The click returns at once (the run is in a worker), and a timer of the page keeps
  // firing while it runs.
  const clicked = await linked.evaluate(() => {
    window.ticks = 0;
    window.ticker = setInterval(() => {
      window.ticks++;
    }, 5);
    document.getElementById('run').click();
    return {
      status: document.getElementById('run-status').textContent,
      cancel: document.getElementById('cancel-run')?.hidden === false,
    };
  });
  assert.deepEqual(clicked, { status: 'Running…', cancel: true });
  await linked.waitForFunction(() => !/^Running/.test(document.getElementById('run-status').textContent));
  assert.ok((await linked.evaluate(() => window.ticks)) >= 1, 'no timer fired during the run');
  assert.equal(
    await linked.$eval('#run-status', (e) => e.textContent),
    'Stopped after 10,000 events: the page stops a run there ("max_events" in the scenario changes it).',
  );
  // The logs have the 10,000 events; the timeline draws what fits and says what it left out.
  const logs = await linked.$eval('#run-logs', (e) => e.textContent);
  assert.equal(logs.split('\n').length - 1, 10000);
  assert.match(logs, /^\+ 0ms #1 WorkflowStarted workflow=a\n/);
  assert.match(logs, / #10000 [A-Za-z]+ .*\n$/);
  const timeline = await linked.evaluate(() => ({
    lanes: document.querySelectorAll('#timeline g.lane').length,
    bars: document.querySelectorAll('#timeline g.lane g').length,
    note: document.querySelector('#timeline .omitted-note')?.textContent ?? '',
  }));
  assert.ok(timeline.lanes > 0 && timeline.lanes <= 60, `${timeline.lanes} lanes`);
  assert.ok(timeline.bars <= 1000, `${timeline.bars} bars`);
  assert.match(
    timeline.note,
    /^Not drawn: [\d,]+ more lanes with [\d,]+ more bars; the logs below have every event\.$/,
  );
  assert.equal(await linked.$eval('#cancel-run', (e) => e.hidden), true);
  assert.deepEqual(linked.problems, []);
  await linked.close();
});

test('Cancel stops a run of minutes, and the next run works', async () => {
  const linked = await openPage(link(PROGRAM_586));
  assert.ok(await linked.$('#cancel-run'), 'a Cancel button');
  const scenario = JSON.parse(await prefilledScenario(linked));
  const setScenario = (value) =>
    linked.$eval(
      '#scenario',
      (e, text) => {
        e.value = text;
        e.dispatchEvent(new Event('input'));
      },
      JSON.stringify(value, null, 2),
    );
  await setScenario({ ...scenario, max_events: 100000000 }); // the user's own limit: 1.8 million events
  await linked.click('#run');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(await linked.$eval('#run-status', (e) => e.textContent), 'Running…');
  await linked.click('#cancel-run');
  await linked.waitForFunction(() => document.getElementById('run-status').textContent === 'Cancelled.');
  assert.equal(await linked.$eval('#run', (e) => e.disabled), false);
  assert.equal(await linked.$eval('#cancel-run', (e) => e.hidden), true);
  // A fresh worker runs the next one; the scenario's own limit is reported as such.
  await setScenario({ ...scenario, max_events: 20 });
  await linked.click('#run');
  await linked.waitForFunction(() => !/^Running/.test(document.getElementById('run-status').textContent));
  assert.equal(
    await linked.$eval('#run-status', (e) => e.textContent),
    "Stopped after 20 events (the scenario's max_events).",
  );
  assert.equal((await linked.$eval('#run-logs', (e) => e.textContent)).split('\n').length - 1, 20);
  assert.deepEqual(linked.problems, []);
  await linked.close();
});

test('32,000 diagnostics: the list shows a page of them, the editor marks those in view', async () => {
  const many = await openPage();
  const source = manyDiagnostics(32000);
  await setDoc(many, source);
  await settled(many);
  assert.equal(await many.$eval('#diag-count', (e) => e.textContent), '(32,000)');
  const shown = () =>
    many.evaluate(() => ({
      items: document.querySelectorAll('#diag-list li').length,
      first: document.querySelector('#diag-list .where').textContent,
      range: document.getElementById('diag-range').textContent,
      marked: window.playground.marked,
    }));
  const first = await shown();
  assert.deepEqual(
    { ...first, marked: undefined },
    { items: 100, first: `${FILE}:2:21`, range: '1–100 of 32,000', marked: undefined },
  );
  assert.ok(first.marked > 0 && first.marked <= 500, `${first.marked} diagnostics marked`);
  await many.click('#diag-next');
  assert.deepEqual(
    { ...(await shown()), marked: undefined },
    { items: 100, first: `${FILE}:102:23`, range: '101–200 of 32,000', marked: undefined },
  ); // step s100
  // Scrolled to the end, the editor marks the diagnostics there.
  await many.evaluate(() => {
    const view = window.playground.view;
    view.dispatch({ selection: { anchor: view.state.doc.length }, scrollIntoView: true });
  });
  await many.waitForFunction(() =>
    [...document.querySelectorAll('.cm-lintRange-error')].some(
      (span) => window.playground.view.state.doc.lineAt(window.playground.view.posAtDOM(span, 0)).number > 31900,
    ),
  );
  assert.deepEqual(many.problems, []);
  await many.close();
});

test('the Graph tab of 1,000 steps draws 200 of their 2,000 nodes and says so', async () => {
  const big = await openPage();
  await setDoc(big, graphProgram(1000));
  await settled(big);
  await big.click('[data-tab=graph]');
  await big.waitForSelector('#graph svg.graph g.node');
  assert.equal(await big.$$eval('#graph g.node', (g) => g.length), 200);
  assert.equal(
    await big.$eval('#graph .omitted-note', (e) => e.textContent),
    '200 of 2,000 nodes drawn (Show: DOT, Mermaid or JSON for all)',
  );
  await big.select('#graph-view', 'dot');
  await big.waitForFunction(() => document.getElementById('graph-text').textContent.includes('w0_c999'));
  assert.deepEqual(big.problems, []);
  await big.close();
});

test('benchmark: keystroke to updated diagnostics on the checkout example', async () => {
  await page.bringToFront(); // a background tab gets no animation frames
  await page.select('#examples', 'checkout');
  await settled(page);
  const samples = [];
  for (let i = 0; i < 30; i++) {
    // Alternately break and mend `timeout 24h` (a diagnostic appears, then goes).
    await page.evaluate(() => {
      const view = window.playground.view;
      const at = view.state.doc.toString().indexOf('timeout 24h') + 'timeout 24'.length;
      view.dispatch({ selection: { anchor: at } });
      view.focus();
      window.playground.keyAt = null;
      window.addEventListener(
        'keydown',
        (e) => {
          window.playground.keyAt = e.timeStamp;
        },
        { once: true, capture: true },
      );
    });
    const checks = await page.evaluate(() => window.playground.checks);
    await page.keyboard.press(i % 2 === 0 ? 'Backspace' : 'h');
    const sample = await page.evaluate(async (before) => {
      const s = window.playground;
      const deadline = performance.now() + 5000;
      while (s.checks === before && performance.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      await Promise.race([
        new Promise((r) => requestAnimationFrame(() => r())),
        new Promise((r) => setTimeout(r, 1000)),
      ]);
      return { checked: s.checkedAt - s.keyAt, painted: performance.now() - s.keyAt, check: s.lastCheckMs };
    }, checks);
    samples.push(sample);
  }
  const stats = (key) => {
    const values = samples.map((x) => x[key]).sort((a, b) => a - b);
    return `median ${values[values.length >> 1].toFixed(1)} ms, p90 ${values[Math.floor(values.length * 0.9)].toFixed(1)} ms`;
  };
  console.log(
    `# benchmark: keystroke to updated diagnostics, checkout.orbit, ${samples.length} keystrokes ` +
      `(goal <= 50 ms; the 10 ms pause before a check included): diagnostics computed ${stats('checked')}; ` +
      `next frame painted ${stats('painted')}; one check alone ${stats('check')}`,
  );
  assert.ok(samples.length === 30);
});

// The budget: checking the 1 MB generated program in the browser is within 3× of
// the native check measured in this same run. Printed, not asserted (a timing).
test('benchmark: the 1 MB generated program, checked in the browser and natively', async () => {
  const gen = spawnSync('python3', [path.join(root, 'tools', 'gen_corpus.py'), '--size', '1M', '--seed', '1'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
    timeout: 60000,
  });
  assert.equal(gen.status, 0, gen.stderr);
  const source = gen.stdout;
  const median = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const nativeMs = [];
  let nativeText = null;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const r = spawnSync(args.orbitc, ['check', '--format', 'json', '--stdin-filename', FILE, '-'], {
      input: source,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      timeout: 60000,
    });
    nativeMs.push(performance.now() - start);
    nativeText = r.stdout;
  }
  // The module loaded in the page itself (the page's own checks run in its worker).
  const browser = await page.evaluate(async (text) => {
    const { loadOrbit } = await import('./orbit-api.js');
    const orbit = await loadOrbit();
    const times = [];
    let out = null;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      out = orbit.checkText(text, 'playground.orbit');
      times.push(performance.now() - start);
    }
    return { times, out };
  }, source);
  assert.equal(browser.out, nativeText, 'the browser and orbitc report the same diagnostics');
  const b = median(browser.times),
    n = median(nativeMs);
  console.log(
    `# benchmark: check of the 1 MB generated program (${source.length} bytes), median of 5: ` +
      `browser ${b.toFixed(1)} ms, native orbitc process ${n.toFixed(1)} ms, ratio ${(b / n).toFixed(2)} (goal <= 3)`,
  );
});
