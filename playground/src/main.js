// The Orbit playground: the editor, the panes and the buttons, over the WebAssembly
// build of orbitc and orbit-run (orbit-api.js, loaded beside this bundle).
import { EditorState } from '@codemirror/state';
import {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
  highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { lintGutter, lintKeymap, setDiagnostics } from '@codemirror/lint';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { lexerHighlighting } from './highlight.js';
import {
  DiagnosticSet,
  lintDiagnostic,
  markedIndexes,
  MAX_MARKS,
  renderDiagnostic,
  fixChanges,
  diagnosticRange,
  plainText,
} from './diagnostics.js';
import { decodeSource, shareFragment, MAX_LINK_LENGTH } from './share.js';
import { OrbitWorker, SUPERSEDED } from './orbit-worker.js';
import { EXAMPLES } from './examples.js';

// The name of the one file: what diagnostics, fixes and the disassembly call it.
const FILE_NAME = 'playground.orbit';
// The pause after a keystroke before the program is checked again (a burst of changes
// is checked once); checking the checkout example takes well under a millisecond.
const CHECK_DELAY_MS = 10;
// A run stops after this many history events unless its scenario says otherwise
// ("max_events", docs/runtime.md): a link of a few lines can start 100,000 executions.
const MAX_RUN_EVENTS = 10000;
// The Diagnostics tab lists this many diagnostics at a time, with buttons for the others.
const LIST_PAGE = 100;

const $ = (id) => document.getElementById(id);
// What to do when the module cannot be fetched (boot.js says the same for file:).
const SERVE_HINT =
  'The page must be served over HTTP: in its folder, run `python3 -m http.server 8000` ' +
  'and open http://localhost:8000/';
const state = {
  view: null,
  diagnostics: DiagnosticSet.empty,
  lastCount: 0,
  checks: 0,
  scenarioEdited: false,
  tab: 'diagnostics',
  listPage: 0,
};
window.playground = state; // for the browser tests and the curious

// The WebAssembly module runs in workers (src/worker.js, site/worker.js), never on this
// thread: one checks as you type (and fixes and formats), one makes what the tabs show
// and the highlighting's tokens, and one runs, so that a check never waits behind a run
// or a megabyte of tokens; Cancel stops the run's worker and starts a fresh one.
const WORKER_URL = new URL('worker.js', import.meta.url);
const workers = { check: null, background: null, run: null };

// The status line; a message about something just done fades back to "Ready." after a
// few seconds.
let statusTimer = null;
function setStatus(text, transient = true) {
  $('status').textContent = text;
  clearTimeout(statusTimer);
  if (transient && state.view)
    statusTimer = setTimeout(() => {
      $('status').textContent = 'Ready.';
    }, 4000);
}

function source() {
  return state.view.state.doc.toString();
}

// Replaces the document by `text`, changing only the part that differs (the cursor and
// the undo history stay useful).
function replaceSource(text) {
  const old = source();
  if (old === text) return;
  let start = 0;
  while (start < old.length && start < text.length && old[start] === text[start]) start++;
  let end = 0;
  while (
    end < old.length - start &&
    end < text.length - start &&
    old[old.length - 1 - end] === text[text.length - 1 - end]
  )
    end++;
  state.view.dispatch({ changes: { from: start, to: old.length - end, insert: text.slice(start, text.length - end) } });
}

// ---- checking: after each change (CHECK_DELAY_MS later), in the worker; the
// diagnostics, the list and the tab follow ----

// Asks a worker about the current document, one request at a time: changes made
// meanwhile are asked about when it answers (only the newest text is). `apply` gets the
// answer only while the document is still the one asked about.
class Follower {
  constructor(ask, apply) {
    this.ask = ask;
    this.apply = apply;
    this.busy = false;
    this.again = false;
  }

  poke() {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.again = false;
    const doc = state.view.state.doc;
    const text = doc.toString();
    const started = performance.now();
    this.ask(text)
      .then(
        (result) => {
          if (result !== SUPERSEDED && state.view.state.doc === doc) this.apply(result, text, started);
        },
        (error) => {
          if (!error.cancelled) setStatus(error.message);
        },
      )
      .finally(() => {
        this.busy = false;
        if (this.again || state.view.state.doc !== doc) this.poke();
      });
  }
}

const checker = new Follower(
  (text) => workers.check.request('check', { text, name: FILE_NAME, have: state.diagnostics.serial }, 'check'),
  (result, text, started) => {
    state.diagnostics = result.same ? state.diagnostics.placed(result) : new DiagnosticSet(result);
    state.lastCheckMs = performance.now() - started;
    state.lastCount = state.diagnostics.count;
    state.checkedText = text;
    state.checkedDoc = state.view.state.doc;
    if (!result.same) state.listPage = 0;
    markDiagnostics();
    state.checkedAt = performance.now();
    if (state.checks === 0) performance.mark('playground:first-check');
    state.checks++;
    renderDiagnosticList(state.view);
    refreshTab();
  },
);

let checkTimer = null;
function checkSoon() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(() => checker.poke(), CHECK_DELAY_MS);
}

// The editor's marks (underlines, gutter, hover, F8): every diagnostic of the last
// check, or, past MAX_MARKS, those of the visible part (again when it scrolls).
function markDiagnostics() {
  const view = state.view;
  const set = state.diagnostics;
  const { from, to } = view.viewport;
  const margin = to - from;
  const marked = markedIndexes(set, Math.max(0, from - margin), to + margin);
  state.marked = marked.length;
  const doc = view.state.doc;
  view.dispatch(
    setDiagnostics(
      view.state,
      marked.map((i) => lintDiagnostic(doc, set.get(i), set.from(i), set.to(i), FILE_NAME)),
    ),
  );
}

// Past MAX_MARKS, a scroll marks what came into view (once the view settles).
let remarkTimer = null;
function remarkAfterScroll(update) {
  if (!update.viewportChanged || update.docChanged || state.diagnostics.count <= MAX_MARKS) return;
  clearTimeout(remarkTimer);
  remarkTimer = setTimeout(() => {
    if (state.view.state.doc === state.checkedDoc) markDiagnostics();
  }, 50);
}

function location(d) {
  return d.line + ':' + d.column;
}

// The Diagnostics tab: LIST_PAGE diagnostics at a time, parsed as they are shown.
function renderDiagnosticList(view) {
  const list = $('diag-list');
  list.replaceChildren();
  const set = state.diagnostics;
  $('diag-count').textContent = set.count ? '(' + set.count.toLocaleString('en') + ')' : '';
  const pages = Math.ceil(set.count / LIST_PAGE);
  state.listPage = Math.min(state.listPage, Math.max(pages - 1, 0));
  const nav = $('diag-pages');
  nav.hidden = pages <= 1;
  if (set.count === 0) {
    const ok = document.createElement('li');
    ok.className = 'clean';
    ok.textContent = 'No problems: the program checks clean.';
    list.append(ok);
    return;
  }
  const first = state.listPage * LIST_PAGE;
  const last = Math.min(first + LIST_PAGE, set.count);
  if (pages > 1) {
    $('diag-range').textContent =
      `${(first + 1).toLocaleString('en')}–${last.toLocaleString('en')} of ${set.count.toLocaleString('en')}`;
    $('diag-previous').disabled = state.listPage === 0;
    $('diag-next').disabled = state.listPage === pages - 1;
  }
  const doc = view.state.doc;
  for (let i = first; i < last; i++) {
    const d = set.get(i);
    const item = document.createElement('li');
    item.className = 'diagnostic ' + d.severity;
    const where = document.createElement('a');
    where.href = '#';
    where.className = 'where';
    where.textContent = FILE_NAME + ':' + location(d);
    where.addEventListener('click', (event) => {
      event.preventDefault();
      const { from, to } = diagnosticRange(view.state.doc, d);
      view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
      view.focus();
    });
    item.append(where, renderDiagnostic(d));
    for (const fix of d.fixes || []) {
      if (fix.applicability !== 'machine-applicable') continue;
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'apply-fix';
      button.textContent = 'Apply: ' + plainText(fix.message);
      button.addEventListener('click', () => {
        if (view.state.doc !== doc) return; // stale: the list is redrawn after the next check
        view.dispatch({ changes: fixChanges(doc, fix, FILE_NAME) });
      });
      item.append(button);
    }
    list.append(item);
  }
}

function showListPage(step) {
  state.listPage += step;
  renderDiagnosticList(state.view);
  $('tab-diagnostics').scrollTop = 0;
}

// ---- the tabs ----

// What the open tab shows, made by the background worker for the current text. It is
// asked again after each check; an answer for an older text or another tab is dropped,
// and until the newest arrives the tab is marked stale (dimmed after a moment).
let tabRequests = 0;
function refreshTab() {
  const tab = state.tab;
  if (tab === 'diagnostics' || (tab === 'run' && state.scenarioEdited)) return;
  const doc = state.view.state.doc;
  const text = doc === state.checkedDoc ? state.checkedText : doc.toString();
  const serial = ++tabRequests;
  const pane = $('tab-' + tab);
  pane.classList.add('stale');
  const [op, args] =
    tab === 'formatted'
      ? ['format', { text }]
      : tab === 'disassembly'
        ? ['dis', { text }]
        : tab === 'graph'
          ? ['graph', { text, workflow: $('graph-workflow').value, view: $('graph-view').value }]
          : ['scenario', { text }];
  workers.background.request(op, args, 'tab').then(
    (result) => {
      if (result === SUPERSEDED || serial !== tabRequests || state.view.state.doc !== doc || state.tab !== tab) return;
      pane.classList.remove('stale');
      if (tab === 'formatted') {
        $('formatted').textContent = result.ok ? result.text : result.message;
        $('formatted').classList.toggle('error', !result.ok);
      } else if (tab === 'disassembly') {
        $('dis').textContent = result.ok ? result.text : result.message || 'The program has errors: see Diagnostics.';
        $('dis').classList.toggle('error', !result.ok);
      } else if (tab === 'graph') {
        showGraph(result);
      } else if (!state.scenarioEdited) {
        if (result && result.ok === false) {
          // no scenario can hold the program's values
          $('scenario').value = '';
          $('run-status').textContent = result.message;
        } else {
          $('scenario').value = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
        }
      }
    },
    (error) => {
      if (!error.cancelled) setStatus(error.message);
    },
  );
}

// The Graph tab: the workflows of the program in the selector (when there are several),
// then the chosen one's graph (`orbitc graph --workflow NAME`) as a picture (drawn by the
// worker: src/graph.js) or as text. A program with errors shows why, never the graph of
// an older text.
function showGraph(result) {
  const message = $('graph-message');
  const picture = $('graph');
  const textView = $('graph-text');
  if (!result.ok) {
    message.textContent = result.message;
    message.hidden = false;
    picture.replaceChildren();
    textView.textContent = '';
    textView.hidden = true;
    return;
  }
  message.hidden = true;
  const select = $('graph-workflow');
  const names = result.names;
  if ([...select.options].map((o) => o.value).join('\n') !== names.join('\n'))
    select.replaceChildren(...names.map((name) => new Option(name, name)));
  if (result.workflow) select.value = result.workflow;
  $('graph-workflow-label').hidden = names.length < 2;
  const picturing = result.svg !== undefined;
  textView.hidden = picturing;
  textView.textContent = picturing ? '' : result.text;
  if (picturing) picture.innerHTML = result.svg;
  else picture.replaceChildren();
}

function showTab(name) {
  state.tab = name;
  for (const button of document.querySelectorAll('[role=tab]'))
    button.setAttribute('aria-selected', String(button.dataset.tab === name));
  for (const panel of document.querySelectorAll('.tab')) panel.hidden = panel.id !== 'tab-' + name;
  refreshTab();
}

// ---- running: in a worker of its own, which Cancel stops ----

function prefillScenario() {
  state.scenarioEdited = false;
  if (state.tab === 'run') refreshTab();
}

function setRunning(running) {
  $('run').disabled = running;
  $('cancel-run').hidden = !running;
  state.running = running;
}

async function run() {
  const text = source();
  const scenario = $('scenario').value;
  try {
    JSON.parse(scenario);
  } catch (error) {
    $('run-status').textContent = 'The scenario is not valid JSON: ' + error.message;
    return;
  }
  if (!workers.run) workers.run = new OrbitWorker(WORKER_URL);
  setRunning(true);
  $('run-status').textContent = 'Running…';
  try {
    showRun(await workers.run.request('run', { text, scenario, maxEvents: MAX_RUN_EVENTS }));
  } catch (error) {
    $('run-status').textContent = error.cancelled ? 'Cancelled.' : 'The run failed: ' + error.message;
  } finally {
    setRunning(false);
  }
}

// The logs in blocks of LOG_BLOCK lines that the browser lays out only once they scroll
// into view (`content-visibility: auto`, playground.css): laying out the 10,000 lines of
// a stopped run at once took it most of a second. The text is all there (select, copy,
// find).
const LOG_BLOCK = 200;
function showLogs(logs) {
  const lines = logs.split(/(?<=\n)/);
  const blocks = [];
  for (let i = 0; i < lines.length; i += LOG_BLOCK) {
    const block = document.createElement('div');
    block.className = 'log-block';
    block.textContent = lines.slice(i, i + LOG_BLOCK).join('');
    blocks.push(block);
  }
  $('run-logs').replaceChildren(...blocks);
}

function showRun(result) {
  showLogs(result.logs || '');
  if (result.svg) $('timeline').innerHTML = result.svg;
  else $('timeline').replaceChildren();
  let status;
  if (!result.ok) status = result.message;
  else if (result.status === 'STOPPED')
    status =
      `Stopped after ${result.limit.toLocaleString('en')} events` +
      (result.ownLimit
        ? " (the scenario's max_events)."
        : ': the page stops a run there ("max_events" in the scenario changes it).');
  else status = result.status ? 'Status: ' + result.status : 'Completed.';
  $('run-status').textContent = status;
}

// ---- sharing and examples ----

// Share: the program in the address (#source=) and the link copied, or, when the link
// would be longer than a browser opens, a warning and the program as a file instead.
function share() {
  const text = source();
  const fragment = shareFragment(text);
  const base = window.location.href.replace(/#.*$/s, '');
  const warning = $('share-warning');
  if (base.length + fragment.length > MAX_LINK_LENGTH) {
    const size = (n) => (n / 1e6).toFixed(2) + ' MB';
    $('share-warning-text').textContent =
      `This program is too long for a link: its link would be ${size(base.length + fragment.length)}, ` +
      `and browsers open links of at most ${size(MAX_LINK_LENGTH)}. Download it instead: `;
    const download = $('share-download');
    URL.revokeObjectURL(download.href);
    download.href = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    download.download = FILE_NAME;
    warning.hidden = false;
    $('share-link').hidden = true;
    setStatus('Too long for a link: download the program instead.');
    return;
  }
  warning.hidden = true;
  window.history.replaceState(null, '', fragment);
  const link = $('share-link');
  link.hidden = false;
  link.value = window.location.href;
  link.select();
  if (navigator.clipboard)
    navigator.clipboard.writeText(link.value).then(
      () => setStatus('Link copied.'),
      () => setStatus('Link in the address bar.'),
    );
}

function loadExample(example) {
  replaceSource(example.source);
  $('scenario').value = example.scenario;
  state.scenarioEdited = true;
}

function startingSource() {
  const shared = decodeSource(window.location.hash);
  return shared !== null ? shared : EXAMPLES[0].source;
}

// Fix all and Format: the worker's answer replaces the text it was made from; if the
// text changed meanwhile, nothing is replaced. `state.actions` counts those under way.
async function whole(op, apply) {
  const doc = state.view.state.doc;
  state.actions = (state.actions || 0) + 1;
  try {
    const result = await workers.check.request(op, { text: doc.toString() });
    if (state.view.state.doc === doc) apply(result);
    else setStatus('The program changed meanwhile: try again.');
  } catch (error) {
    setStatus(error.message);
  } finally {
    state.actions--;
  }
}

function setUpControls() {
  const select = $('examples');
  const custom = new Option('(your program)', '');
  select.append(custom, ...EXAMPLES.map((e) => new Option(e.title, e.id)));
  select.addEventListener('change', () => {
    const example = EXAMPLES.find((e) => e.id === select.value);
    if (example) loadExample(example);
  });
  $('fix-all').addEventListener('click', () =>
    whole('fix', (result) => {
      replaceSource(result.text);
      setStatus(result.fixed === 1 ? '1 fix applied.' : result.fixed + ' fixes applied.');
    }),
  );
  $('format').addEventListener('click', () =>
    whole('format', (result) => {
      if (result.ok) replaceSource(result.text);
      setStatus(result.ok ? 'Formatted.' : result.message);
    }),
  );
  $('share').addEventListener('click', share);
  $('run').addEventListener('click', run);
  $('cancel-run').addEventListener('click', () => workers.run.cancel());
  $('reset-scenario').addEventListener('click', prefillScenario);
  $('diag-previous').addEventListener('click', () => showListPage(-1));
  $('diag-next').addEventListener('click', () => showListPage(1));
  $('scenario').addEventListener('input', () => {
    state.scenarioEdited = true;
  });
  for (const button of document.querySelectorAll('[role=tab]'))
    button.addEventListener('click', () => showTab(button.dataset.tab));
  $('graph-workflow').addEventListener('change', refreshTab);
  $('graph-view').addEventListener('change', refreshTab);
  window.addEventListener('hashchange', () => {
    const shared = decodeSource(window.location.hash);
    if (shared !== null) replaceSource(shared);
  });
}

function createEditor(text) {
  return new EditorView({
    parent: $('editor'),
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightActiveLine(),
        drawSelection(),
        history(),
        highlightSelectionMatches(),
        EditorState.tabSize.of(2),
        // Every character stays what it is: \n alone ends a line in the editor, so a \r
        // (of CRLF or alone) is a character, shown as ␍, and the text the buttons and the
        // API get is byte for byte the text loaded (CodeMirror would otherwise turn every
        // line end into \n). NUL, a byte order mark and the like show as marks too.
        EditorState.lineSeparator.of('\n'),
        highlightSpecialChars({
          render: (code, description, placeholder) => {
            if (code !== 13) return null;
            const mark = document.createElement('span');
            mark.className = 'cm-specialChar cm-cr';
            mark.textContent = placeholder;
            mark.title = description;
            return mark;
          },
        }),
        lexerHighlighting((text) => workers.background.request('tokens', { text }, 'tokens')),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap, indentWithTab]),
        EditorView.updateListener.of((update) => {
          remarkAfterScroll(update);
          if (!update.docChanged) return;
          checkSoon();
          const length = update.state.doc.length;
          $('examples').value = EXAMPLES.find((e) => e.source.length === length && e.source === source())?.id ?? '';
          setStatus('Ready.', false); // what was said was about the text before
        }),
      ],
    }),
  });
}

// A link longer than this is taken out of the address bar once read: Chromium takes
// seconds per megabyte of the page's address to start a worker (14 s for a link of 1.4
// MB, 7 s once it is taken out; a fetch takes 1.7 s), and this page starts three.
const LONG_LINK = 100000;

async function start() {
  // What the API answers to `op` (check, fix, format, ...) for the browser tests and the
  // curious, from the worker that checks: the page's buttons ask it the same.
  state.ask = (op, args) => workers.check.request(op, args);
  const text = startingSource();
  const longLink = window.location.hash.length > LONG_LINK;
  if (longLink) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  performance.mark('playground:source-read');
  try {
    workers.check = new OrbitWorker(WORKER_URL);
    workers.background = new OrbitWorker(WORKER_URL);
    await workers.check.ready;
    performance.mark('playground:worker-ready');
  } catch (error) {
    setStatus('Could not load the WebAssembly module: ' + (error.message || error) + '. ' + SERVE_HINT, false);
    throw error;
  }
  setUpControls();
  state.view = createEditor(text);
  performance.mark('playground:editor');
  const example = EXAMPLES.find((e) => e.source === text);
  $('examples').value = example ? example.id : '';
  if (example) loadExample(example);
  checker.poke();
  setStatus(
    longLink
      ? "Opened the link's program; the link, too long to keep, left the address bar (Share makes it again)."
      : 'Ready.',
    false,
  );
  document.body.dataset.ready = 'true';
}

start();
