// The playground's page under hostile input, in Debian's chromium (headless, driven by
// puppeteer-core as tests/playground/test_playground.mjs drives it; docs/performance.md, "The
// playground's page"): how long the page's thread is blocked and how long each thing
// takes.
//
//   node tools/playground_page_bench.mjs [--site DIR] [--only NAME,...] [--cap SECONDS]
//        [--keys N] [--chromium PATH]
//
// NAME: run (Run on the 132-character link and on the 586-byte program, and Cancel),
// graph (the Graph tab on 2,000 and 4,000 steps), keys (keystroke to diagnostics on the
// 1 MB program and on 32,000 diagnostics), open (opening a link of 1 MB). DIR is
// tools/playground.sh's site (build-playground/site); any site can be measured, an
// older build's too, which is how the figures before a change are made. What does not
// end within --cap seconds (default 150) is reported as "> CAP s" and its browser
// killed. "Blocked" is the longest gap between two ticks of a 10 ms timer of the page:
// while it lasts, the page does not answer a click or a key.
//
// A benchmark, run on demand, not a test: it prints, it does not judge.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { graphProgram, link, LINK_132, manyDiagnostics, PROGRAM_586 } from '../tests/playground/playground_hostile.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    site: { type: 'string', default: path.join(root, 'build-playground', 'site') },
    only: { type: 'string', default: 'run,graph,keys,open' },
    cap: { type: 'string', default: '150' },
    keys: { type: 'string', default: '21' },
    chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' },
  },
});
const require = createRequire(path.join(root, 'playground', 'package.json'));
const puppeteer = require('puppeteer-core');
const CAP_MS = Number(args.cap) * 1000;
const only = new Set(args.only.split(','));

// ---- the programs (tests/playground/playground_hostile.mjs: LINK_132, PROGRAM_586, graphProgram,
// manyDiagnostics) ----

function realistic1M() {
  const r = spawnSync('python3', [path.join(root, 'tools', 'gen_corpus.py'), '--size', '1M', '--seed', '1'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout;
}

// ---- the server and the browser ----

function startServer(site) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', site], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /port (\d+)/.exec(out);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/` });
    });
    child.on('exit', (code) => reject(new Error('http.server exited with ' + code)));
  });
}

let browser = null;
async function launch() {
  browser = await puppeteer.launch({
    executablePath: args.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    protocolTimeout: CAP_MS * 3,
  });
}
// A browser whose page is stuck is killed, not closed (closing waits for the page).
async function relaunch() {
  browser.process()?.kill('SIGKILL');
  await launch();
}

// Resolves to what `promise` gives, or to null after `ms`.
function within(promise, ms) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), ms);
    }),
  ]);
}

let baseUrl;
async function openPage(fragment = '') {
  const page = await browser.newPage();
  page.setDefaultTimeout(CAP_MS);
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(baseUrl + fragment, { waitUntil: 'load' });
  await page.waitForSelector('body[data-ready=true]');
  await settled(page);
  return page;
}

const settled = (page) =>
  page.waitForFunction(
    () => {
      const s = window.playground;
      return s.view && s.checkedText === s.view.state.doc.toString();
    },
    { polling: 50 },
  );

// A 10 ms timer in the page; its longest gap is how long the page's thread was blocked.
const HEARTBEAT = `(() => {
  const h = window.heartbeat = { last: performance.now(), max: 0, ticks: 0 };
  h.reset = () => { h.last = performance.now(); h.max = 0; h.ticks = 0; };
  setInterval(() => { const now = performance.now(); h.max = Math.max(h.max, now - h.last); h.last = now; h.ticks++; }, 10);
})()`;
const blocked = (page) =>
  page.evaluate(() => Math.max(window.heartbeat.max, performance.now() - window.heartbeat.last));

async function setDoc(page, text) {
  await page.evaluate((t) => {
    const view = window.playground.view;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
  }, text);
}

const ms = (x) =>
  x === null ? `> ${CAP_MS / 1000} s` : x >= 10000 ? (x / 1000).toFixed(1) + ' s' : x.toFixed(0) + ' ms';
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

// ---- item: Run ----

const hasCancel = (page) => page.evaluate(() => !!document.getElementById('cancel-run'));

async function benchRun(name, source, scenario) {
  const page = await openPage(link(source));
  await page.click('[data-tab=run]');
  await page.waitForFunction(() => document.getElementById('scenario').value.trim() !== '');
  if (scenario)
    await page.$eval(
      '#scenario',
      (e, s) => {
        e.value = s;
        e.dispatchEvent(new Event('input'));
      },
      scenario,
    );
  await page.evaluate(HEARTBEAT);
  const started = Date.now();
  const done = (async () => {
    await page.evaluate(() => {
      window.heartbeat.reset();
      document.getElementById('run-status').textContent = '';
      document.getElementById('run').click();
    });
    await page.waitForFunction(
      () => {
        const t = document.getElementById('run-status').textContent;
        return t !== '' && !/^Running/.test(t);
      },
      { polling: 100, timeout: CAP_MS },
    );
    return {
      took: Date.now() - started,
      blocked: await blocked(page),
      status: await page.$eval('#run-status', (e) => e.textContent),
      lines: await page.$eval('#run-logs', (e) => e.textContent.split('\n').length - 1),
      svg: await page.$eval('#timeline', (e) => e.innerHTML.length),
    };
  })();
  const r = await within(
    done.catch(() => null),
    CAP_MS,
  );
  if (!r) {
    console.log(`run ${name}: no result within ${CAP_MS / 1000} s (the page's thread blocked all along)`);
    await relaunch();
    return;
  }
  console.log(
    `run ${name}: result after ${ms(r.took)}, page blocked at most ${ms(r.blocked)}; ` +
      `${r.lines} lines of logs, timeline ${(r.svg / 1e6).toFixed(2)} MB of SVG; status: ${r.status}`,
  );
  await page.close();
}

async function benchCancel() {
  const page = await openPage(link(PROGRAM_586));
  if (!(await hasCancel(page))) {
    console.log('cancel: the page has no Cancel button');
    await page.close();
    return;
  }
  await page.click('[data-tab=run]');
  await page.waitForFunction(() => document.getElementById('scenario').value.trim() !== '');
  // The user's own scenario may raise the limit: a run of minutes.
  await page.$eval('#scenario', (e) => {
    const s = JSON.parse(e.value);
    s.max_events = 100000000;
    e.value = JSON.stringify(s, null, 2);
    e.dispatchEvent(new Event('input'));
  });
  await page.evaluate(HEARTBEAT);
  await page.click('#run');
  await new Promise((r) => setTimeout(r, 2000));
  const running = await page.$eval('#run-status', (e) => e.textContent);
  const before = await blocked(page);
  const t0 = Date.now();
  await page.click('#cancel-run');
  await page.waitForFunction(() => /Cancelled/.test(document.getElementById('run-status').textContent), {
    polling: 20,
  });
  const took = Date.now() - t0;
  // The fresh worker runs the next one.
  await page.$eval('#scenario', (e) => {
    const s = JSON.parse(e.value);
    s.max_events = 50;
    e.value = JSON.stringify(s, null, 2);
    e.dispatchEvent(new Event('input'));
  });
  const t1 = Date.now();
  await page.click('#run');
  await page.waitForFunction(() => /Stopped after 50 events/.test(document.getElementById('run-status').textContent), {
    polling: 20,
  });
  console.log(
    `cancel: after 2 s of running ("${running}", page blocked at most ${ms(before)}), Cancel took ${ms(took)}; ` +
      `the next run (50 events) ${ms(Date.now() - t1)}`,
  );
  await page.close();
}

// ---- item: the Graph tab ----

async function benchGraph(steps) {
  const page = await openPage();
  await setDoc(page, graphProgram(steps));
  await settled(page);
  await page.evaluate(HEARTBEAT);
  const first = await within(
    page
      .evaluate(async () => {
        window.heartbeat.reset();
        const t0 = performance.now();
        document.querySelector('[data-tab=graph]').click();
        while (!document.querySelector('#graph svg.graph')) await new Promise((r) => setTimeout(r, 5));
        return performance.now() - t0;
      })
      .catch(() => null),
    CAP_MS,
  );
  if (first === null) {
    console.log(`graph ${steps} steps: the tab did not open within ${CAP_MS / 1000} s`);
    await relaunch();
    return;
  }
  const firstBlocked = await blocked(page);
  // A keystroke at the end of the program: checked again, the graph drawn again.
  const keys = [];
  for (let i = 0; i < 3; i++) {
    await page.evaluate(() => {
      document.querySelector('#graph svg.graph').dataset.old = 'yes';
      const view = window.playground.view;
      view.dispatch({ selection: { anchor: view.state.doc.length } });
      view.focus();
      window.heartbeat.reset();
    });
    const t0 = Date.now();
    await page.keyboard.press(i % 2 ? 'Backspace' : 'Enter');
    const ok = await within(
      page
        .waitForFunction(() => document.querySelector('#graph svg.graph:not([data-old])'), { polling: 20 })
        .then(
          () => true,
          () => null,
        ),
      CAP_MS,
    );
    if (!ok) {
      console.log(`graph ${steps} steps: opened in ${ms(first)}; a keystroke did not redraw within ${CAP_MS / 1000} s`);
      await relaunch();
      return;
    }
    keys.push({ took: Date.now() - t0, blocked: await blocked(page) });
  }
  const nodes = await page.$$eval('#graph g.node', (g) => g.length);
  console.log(
    `graph ${steps} steps: tab opened in ${ms(first)} (blocked ${ms(firstBlocked)}); keystroke to redrawn graph ` +
      keys.map((k) => `${ms(k.took)} (blocked ${ms(k.blocked)})`).join(', ') +
      `; ${nodes} nodes drawn`,
  );
  await page.close();
}

// ---- item: keystroke to diagnostics ----

async function benchKeys(name, source) {
  const page = await openPage();
  const loaded = await within(
    setDoc(page, source)
      .then(() => settled(page))
      .then(
        () => true,
        () => null,
      ),
    CAP_MS,
  );
  if (!loaded) {
    console.log(`keys ${name}: the program was not checked within ${CAP_MS / 1000} s`);
    await relaunch();
    return;
  }
  await page.bringToFront();
  await page.evaluate(HEARTBEAT);
  const count = await page.evaluate(() => window.playground.lastCount ?? window.playground.lastCheck?.length);
  const samples = [];
  const deadline = Date.now() + CAP_MS;
  for (let i = 0; i < Number(args.keys) && Date.now() < deadline; i++) {
    await page.evaluate(() => {
      const view = window.playground.view;
      view.dispatch({ selection: { anchor: view.state.doc.length } });
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
    await page.evaluate(() => window.heartbeat.reset());
    await page.keyboard.press(i % 2 === 0 ? 'x' : 'Backspace');
    const sample = await within(
      page
        .evaluate(async (before) => {
          const s = window.playground;
          while (s.checks === before) await new Promise((r) => setTimeout(r, 1));
          await new Promise((r) => requestAnimationFrame(() => r()));
          return { checked: s.checkedAt - s.keyAt, painted: performance.now() - s.keyAt };
        }, checks)
        .catch(() => null),
      CAP_MS,
    );
    if (!sample) break;
    sample.blocked = await blocked(page);
    samples.push(sample);
  }
  if (samples.length === 0) {
    console.log(`keys ${name}: no keystroke was checked within ${CAP_MS / 1000} s`);
    await relaunch();
    return;
  }
  const q = (key) =>
    `${ms(
      quantile(
        samples.map((s) => s[key]),
        0.5,
      ),
    )} / ${ms(
      quantile(
        samples.map((s) => s[key]),
        0.95,
      ),
    )}`;
  console.log(
    `keys ${name} (${source.length} characters, ${count} diagnostics), ${samples.length} keystrokes, p50 / p95: ` +
      `to diagnostics ${q('checked')}, to the next frame ${q('painted')}, page blocked ${q('blocked')}`,
  );
  await page.close();
}

// ---- item: opening a link ----

async function benchOpen(name, source) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const t0 = Date.now();
  const ok = await within(
    (async () => {
      await page.goto(baseUrl + link(source), { waitUntil: 'load', timeout: CAP_MS });
      await page.waitForSelector('body[data-ready=true]', { timeout: CAP_MS });
      await settled(page);
      return true;
    })().catch(() => null),
    CAP_MS,
  );
  if (!ok) {
    console.log(`open ${name}: not open within ${CAP_MS / 1000} s`);
    await relaunch();
    return;
  }
  const took = Date.now() - t0;
  const inPage = await page.evaluate(() => window.playground.checkedAt);
  console.log(
    `open ${name} (a link of ${link(source).length} characters): diagnostics shown ${ms(took)} after the navigation ` +
      `(${ms(inPage)} after the page's start)`,
  );
  await page.close();
}

// ---- main ----

const { child: server, url } = await startServer(path.resolve(args.site));
baseUrl = url;
await launch();
console.log(
  `# ${path.resolve(args.site)}, ${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
);
try {
  if (only.has('run')) {
    await benchRun('132-character link', LINK_132);
    await benchRun(`${Buffer.byteLength(PROGRAM_586)}-byte program`, PROGRAM_586);
    await benchCancel();
  }
  if (only.has('graph')) for (const steps of [2000, 4000]) await benchGraph(steps);
  if (only.has('keys')) {
    await benchKeys('1 MB realistic', realistic1M());
    await benchKeys('32,000 diagnostics', manyDiagnostics(32000));
  }
  if (only.has('open')) await benchOpen('1 MB realistic', realistic1M());
} finally {
  browser.process()?.kill('SIGKILL');
  server.kill();
}
