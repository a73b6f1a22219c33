// The playground's worker (docs/playground.md, "Off the page's thread"): the WebAssembly
// build of the toolchain (orbit-api.js) runs here, in a module Web Worker of the same
// origin (site/worker.js), never on the page's thread, so that nothing a program asks of
// it (a run of a million events, the check of a megabyte, the graph of thousands of
// steps) keeps the page from answering a key or a click. The page talks to it through
// src/orbit-worker.js, in one small protocol:
//
//   page → worker  {id, op, args, key}     op: one of HANDLERS below
//   worker → page  {ready: true} once the module is loaded, or {failed: MESSAGE}
//                  {id, result} | {id, error: MESSAGE} | {id, superseded: true}
//
// Requests are served one at a time, in order. A request with a `key` replaces an
// earlier one of the same key that has not started (it answers `superseded`): only the
// newest text is worth checking. The page stops a request by terminating the worker and
// starting another (src/orbit-worker.js, cancel()).
import { loadOrbit } from './orbit-api.js'; // beside worker.js in the site, not bundled
import { graphSvg, parseGraph } from './graph.js';
import { timelineSvg } from './timeline.js';
import { limitsFromDisassembly } from './policies.js';
import { placeCheck, readCheck, tokenArrays, withMaxEvents } from './worker-work.js';

let orbit = null;
let lastCheck = null; // readCheck of the last check this worker answered

const HANDLERS = {
  // The diagnostics of `text` (the JSON Lines of `orbitc check --format json`, with
  // where each lies in `text`, and a serial number), or, when they are byte for byte
  // those of the answer the page has (`have`, its serial), only where they lie now
  // ({same: true, spans, order}): the page keeps what it parsed.
  check({ text, name, have }) {
    const jsonl = orbit.checkText(text, name);
    if (lastCheck && lastCheck.serial === have && lastCheck.jsonl === jsonl && lastCheck.name === name)
      return { same: true, ...placeCheck(text, lastCheck) };
    lastCheck = { ...readCheck(jsonl, name), name, serial: (lastCheck ? lastCheck.serial : 0) + 1 };
    const { count, errors, bounds, serial } = lastCheck;
    return { count, errors, jsonl, bounds: bounds.slice(), serial, ...placeCheck(text, lastCheck) };
  },
  tokens({ text }) {
    return tokenArrays(orbit.tokens(text));
  },
  format: ({ text }) => orbit.format(text),
  fix: ({ text }) => orbit.fix(text),
  dis: ({ text }) => orbit.dis(text),
  scenario: ({ text }) => orbit.scenario(text),
  // The Graph tab: the workflows' names, then the graph of `workflow` (all when there is
  // one) as a picture (SVG, at most MAX_DRAWN_NODES nodes) or as text in `view`.
  graph({ text, workflow, view }) {
    const all = orbit.graph(text);
    if (!all.ok) return { ok: false, message: all.message };
    const names = parseGraph(all.text).workflows.map((w) => w.name);
    const chosen = names.length > 1 ? (names.includes(workflow) ? workflow : names[0]) : '';
    const format = view === 'picture' ? 'json' : view;
    const result = chosen || format !== 'json' ? orbit.graph(text, { workflow: chosen, format }) : all;
    if (!result.ok) return { ok: false, message: result.message, names };
    return view === 'picture'
      ? { ok: true, names, workflow: chosen, svg: graphSvg(parseGraph(result.text)) }
      : { ok: true, names, workflow: chosen, text: result.text };
  },
  // A run, stopped after `maxEvents` history events unless the scenario says otherwise
  // (its own "max_events"), with its timeline drawn here.
  run({ text, scenario, maxEvents }) {
    const { text: bounded, limit, own } = withMaxEvents(scenario, maxEvents);
    const result = orbit.run(text, bounded);
    if (!result.ok) return { ok: false, message: result.message };
    const history = result.history || [];
    const events = history.filter((e) => e?.event);
    const end = history.find((e) => e?.status);
    const started = events.find((e) => e.event === 'WorkflowStarted');
    let svg = '';
    if (events.length && started) {
      const dis = orbit.dis(text);
      svg = timelineSvg(events, limitsFromDisassembly(dis.ok ? dis.text : ''), started.workflow);
    }
    return {
      ok: true,
      exit: result.exit,
      logs: result.logs || '',
      svg,
      events: events.length,
      status: end ? end.status : null,
      limit,
      ownLimit: own,
    };
  },
};

const queue = [];
let scheduled = false;

function serveOne() {
  scheduled = false;
  const request = queue.shift();
  if (!request) return;
  try {
    const result = HANDLERS[request.op](request.args || {});
    // Typed arrays move to the page rather than being copied.
    const moved = Object.values(result || {})
      .filter(ArrayBuffer.isView)
      .map((a) => a.buffer);
    postMessage({ id: request.id, result }, moved);
  } catch (error) {
    postMessage({ id: request.id, error: String(error?.message ? error.message : error) });
  }
  schedule();
}

// One request per task: requests that arrived meanwhile are queued (and may supersede
// queued ones) before the next starts.
function schedule() {
  if (scheduled || !orbit || queue.length === 0) return;
  scheduled = true;
  setTimeout(serveOne, 0);
}

self.onmessage = (event) => {
  const request = event.data;
  if (!HANDLERS[request.op]) {
    postMessage({ id: request.id, error: 'no such request: ' + request.op });
    return;
  }
  if (request.key !== undefined) {
    for (let i = queue.length - 1; i >= 0; i--) {
      if (queue[i].key !== request.key) continue;
      postMessage({ id: queue[i].id, superseded: true });
      queue.splice(i, 1);
    }
  }
  queue.push(request);
  schedule();
};

loadOrbit().then(
  (module) => {
    orbit = module;
    postMessage({ ready: true });
    schedule();
  },
  (error) => postMessage({ failed: String(error?.message ? error.message : error) }),
);
