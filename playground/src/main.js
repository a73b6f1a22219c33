// The Orbit playground: the editor, the panes and the buttons, over the WebAssembly
// build of orbitc and orbit-run (orbit-api.js, loaded beside this bundle).
import { EditorState } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  highlightSpecialChars,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { linter, lintGutter, lintKeymap } from '@codemirror/lint';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { lexerHighlighting } from './highlight.js';
import { lintDiagnostics, diagnosticList, renderDiagnostic, fixChanges, diagnosticRange, plainText } from './diagnostics.js';
import { decodeSource, shareFragment, MAX_LINK_LENGTH } from './share.js';
import { timelineSvg } from './timeline.js';
import { graphSvg, parseGraph } from './graph.js';
import { limitsFromDisassembly } from './policies.js';
import { EXAMPLES } from './examples.js';

// The name of the one file: what diagnostics, fixes and the disassembly call it.
const FILE_NAME = 'playground.orbit';
// The pause after a keystroke before the program is checked again (a burst of changes
// is checked once); checking the checkout example takes well under a millisecond.
const CHECK_DELAY_MS = 10;

const $ = (id) => document.getElementById(id);
// What to do when the module cannot be fetched (boot.js says the same for file:).
const SERVE_HINT = 'The page must be served over HTTP: in its folder, run `python3 -m http.server 8000` '
  + 'and open http://localhost:8000/';
const state = { orbit: null, view: null, lastCheck: [], checks: 0, scenarioEdited: false, tab: 'diagnostics' };
window.playground = state;   // for the browser tests and the curious

// The status line; a message about something just done fades back to "Ready." after a
// few seconds.
let statusTimer = null;
function setStatus(text, transient = true) {
  $('status').textContent = text;
  clearTimeout(statusTimer);
  if (transient && state.view) statusTimer = setTimeout(() => { $('status').textContent = 'Ready.'; }, 4000);
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
  while (end < old.length - start && end < text.length - start && old[old.length - 1 - end] === text[text.length - 1 - end]) end++;
  state.view.dispatch({ changes: { from: start, to: old.length - end, insert: text.slice(start, text.length - end) } });
}

// ---- checking: the linter runs it after each change, and the panes follow ----

function checkNow(view) {
  const text = view.state.doc.toString();
  const started = performance.now();
  const result = state.orbit.check(text, FILE_NAME);
  state.lastCheckMs = performance.now() - started;
  state.lastCheck = diagnosticList(result);
  state.checkedText = text;
  state.checkedAt = performance.now();
  state.checks++;
  renderDiagnosticList(view);
  refreshTab();
  return lintDiagnostics(view.state.doc, result, FILE_NAME);
}

function location(d) {
  return d.line + ':' + d.column;
}

function renderDiagnosticList(view) {
  const list = $('diag-list');
  list.replaceChildren();
  const diagnostics = state.lastCheck;
  $('diag-count').textContent = diagnostics.length ? '(' + diagnostics.length + ')' : '';
  if (diagnostics.length === 0) {
    const ok = document.createElement('li');
    ok.className = 'clean';
    ok.textContent = 'No problems: the program checks clean.';
    list.append(ok);
    return;
  }
  const doc = view.state.doc;
  for (const d of diagnostics) {
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
      const changes = fixChanges(doc, fix, FILE_NAME);
      button.addEventListener('click', () => {
        if (view.state.doc !== doc) return;   // stale: the list is redrawn after the next check
        view.dispatch({ changes });
      });
      item.append(button);
    }
    list.append(item);
  }
}

// ---- the tabs ----

function refreshTab() {
  const text = source();
  if (state.tab === 'formatted') {
    const result = state.orbit.format(text);
    $('formatted').textContent = result.ok ? result.text : result.message;
    $('formatted').classList.toggle('error', !result.ok);
  } else if (state.tab === 'disassembly') {
    const result = state.orbit.dis(text);
    $('dis').textContent = result.ok ? result.text : (result.message || 'The program has errors: see Diagnostics.');
    $('dis').classList.toggle('error', !result.ok);
  } else if (state.tab === 'graph') {
    showGraph(text);
  } else if (state.tab === 'run' && !state.scenarioEdited) {
    prefillScenario();
  }
}

// The Graph tab: the workflows of the program in the selector (when there are several),
// then the chosen one's graph (`orbitc graph --workflow NAME`) as a picture or as text.
// A program with errors shows why, never the graph of an older text.
function showGraph(text) {
  const all = state.orbit.graph(text);
  const message = $('graph-message');
  const picture = $('graph');
  const textView = $('graph-text');
  if (!all.ok) {
    message.textContent = all.message;
    message.hidden = false;
    picture.replaceChildren();
    textView.textContent = '';
    textView.hidden = true;
    return;
  }
  message.hidden = true;
  const select = $('graph-workflow');
  const names = parseGraph(all.text).workflows.map((w) => w.name);
  if ([...select.options].map((o) => o.value).join('\n') !== names.join('\n')) {
    const chosen = select.value;
    select.replaceChildren(...names.map((name) => new Option(name, name)));
    if (names.includes(chosen)) select.value = chosen;
  }
  $('graph-workflow-label').hidden = names.length < 2;
  const workflow = names.length > 1 ? select.value : '';
  const view = $('graph-view').value;
  const format = view === 'picture' ? 'json' : view;
  const result = workflow || format !== 'json' ? state.orbit.graph(text, { workflow, format }) : all;
  if (!result.ok) {   // not expected: the name came from this very text
    message.textContent = result.message;
    message.hidden = false;
    picture.replaceChildren();
    return;
  }
  textView.hidden = view === 'picture';
  textView.textContent = view === 'picture' ? '' : result.text;
  if (view === 'picture') picture.innerHTML = graphSvg(parseGraph(result.text));
  else picture.replaceChildren();
}

function showTab(name) {
  state.tab = name;
  for (const button of document.querySelectorAll('[role=tab]'))
    button.setAttribute('aria-selected', String(button.dataset.tab === name));
  for (const panel of document.querySelectorAll('.tab')) panel.hidden = panel.id !== 'tab-' + name;
  refreshTab();
}

// ---- running ----

function prefillScenario() {
  const result = state.orbit.scenario(source());
  if (result && result.ok === false) {   // no scenario can hold the program's values
    $('scenario').value = '';
    $('run-status').textContent = result.message;
    return;
  }
  $('scenario').value = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
}

function run() {
  const text = source();
  const scenario = $('scenario').value;
  try {
    JSON.parse(scenario);
  } catch (error) {
    $('run-status').textContent = 'The scenario is not valid JSON: ' + error.message;
    return;
  }
  const result = state.orbit.run(text, scenario);
  $('run-logs').textContent = result.logs || '';
  const events = (result.history || []).filter((e) => e && e.event);
  const started = events.find((e) => e.event === 'WorkflowStarted');
  if (events.length && started) {
    const dis = state.orbit.dis(text);
    const limits = limitsFromDisassembly(dis.ok ? dis.text : '');
    $('timeline').innerHTML = timelineSvg(events, limits, started.workflow);
  } else {
    $('timeline').replaceChildren();
  }
  const end = (result.history || []).find((e) => e && e.status);
  $('run-status').textContent = result.message
    ? result.message
    : end ? 'Status: ' + end.status : result.ok ? 'Completed.' : 'The workflow did not complete.';
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
    $('share-warning-text').textContent = `This program is too long for a link: its link would be ${size(base.length + fragment.length)}, `
      + `and browsers open links of at most ${size(MAX_LINK_LENGTH)}. Download it instead: `;
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
  if (navigator.clipboard) navigator.clipboard.writeText(link.value).then(
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

function setUpControls() {
  const select = $('examples');
  const custom = new Option('(your program)', '');
  select.append(custom, ...EXAMPLES.map((e) => new Option(e.title, e.id)));
  select.addEventListener('change', () => {
    const example = EXAMPLES.find((e) => e.id === select.value);
    if (example) loadExample(example);
  });
  $('fix-all').addEventListener('click', () => {
    const result = state.orbit.fix(source());
    replaceSource(result.text);
    setStatus(result.fixed === 1 ? '1 fix applied.' : result.fixed + ' fixes applied.');
  });
  $('format').addEventListener('click', () => {
    const result = state.orbit.format(source());
    if (result.ok) replaceSource(result.text);
    setStatus(result.ok ? 'Formatted.' : result.message);
  });
  $('share').addEventListener('click', share);
  $('run').addEventListener('click', run);
  $('reset-scenario').addEventListener('click', () => {
    state.scenarioEdited = false;
    prefillScenario();
  });
  $('scenario').addEventListener('input', () => { state.scenarioEdited = true; });
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
        lexerHighlighting(state.orbit),
        linter(checkNow, { delay: CHECK_DELAY_MS }),
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, ...lintKeymap, indentWithTab]),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          $('examples').value = EXAMPLES.find((e) => e.source === source())?.id ?? '';
          setStatus('Ready.', false);   // what was said was about the text before
        }),
      ],
    }),
  });
}

async function start() {
  try {
    const { loadOrbit } = await import('./orbit-api.js');
    state.orbit = await loadOrbit();
  } catch (error) {
    setStatus('Could not load the WebAssembly module: ' + (error.message || error) + '. ' + SERVE_HINT, false);
    throw error;
  }
  setUpControls();
  const text = startingSource();
  state.view = createEditor(text);
  const example = EXAMPLES.find((e) => e.source === text);
  $('examples').value = example ? example.id : '';
  if (example) loadExample(example);
  setStatus('Ready.', false);
  document.body.dataset.ready = 'true';
}

start();
