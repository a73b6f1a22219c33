// The timeline of a run, as SVG: one lane per step (child steps and compensations get
// lanes of their own), each attempt a bar (queued, then running, coloured by how it
// ended), retry delays as dashed spans, sleeps and signal waits as grey bars, a step
// limit that ended an attempt as a marker, and the workflow deadline as a red line.
//
// Runs spread over milliseconds and hours at once (a retry after 100 ms, a signal after
// an hour), so the time axis is not linear: each gap between two moments where something
// happens is drawn by the logarithm of its length. The labels give the real times.

import { UNIT_MS } from './policies.js';
import { escapeXml } from './xml.js';

const LANE_HEIGHT = 26;
const LABEL_WIDTH = 120;
const PLOT_WIDTH = 520;
const TOP = 28;
const BAR_HEIGHT = 14;

// A time or a length of time, short: "1.14s", "1h10m" (two units at most).
export function formatMs(ms) {
  if (ms < UNIT_MS.s) return ms + 'ms';
  const units = ['d', 'h', 'm', 's'].map((unit) => [unit, UNIT_MS[unit]]);
  if (ms < UNIT_MS.m && ms % UNIT_MS.s !== 0)
    return (ms / UNIT_MS.s).toFixed(ms < 10 * UNIT_MS.s ? 2 : 1).replace(/\.?0+$/, '') + 's';
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0 && text.split(/[a-z]+/).length <= 2) text += count + unit;
    rest -= count * size;
  }
  return text || '0ms';
}

// The limits of the step named by a history `step` field: "pack[0]/pick" is step `pick`
// of the child workflow; "charge.compensate" is the compensate block (no limits here).
function stepLimits(limits, workflowName, stepField) {
  const last = stepField
    .split('/')
    .pop()
    .replace(/\[\d+\]$/, '');
  const own = limits.workflows[workflowName];
  if (!stepField.includes('/') && own && own.steps[last]) return own.steps[last];
  for (const workflow of Object.values(limits.workflows)) if (workflow.steps[last]) return workflow.steps[last];
  return { timeout_ms: null, queue_timeout_ms: null };
}

// Lanes and the shapes on them, from the history's events.
export function layoutRun(events, limits, workflowName) {
  const lanes = [];
  const laneOf = new Map();
  const lane = (step) => {
    if (!laneOf.has(step)) {
      laneOf.set(step, lanes.length);
      lanes.push({ step, items: [] });
    }
    return lanes[laneOf.get(step)];
  };
  const open = new Map(); // "step#attempt" or "step" → the item still running
  const lastTime = events.length ? events[events.length - 1].time_ms : 0;
  const start = (key, item, step) => {
    lane(step).items.push(item);
    open.set(key, item);
  };
  const finish = (key, time, outcome, detail) => {
    const item = open.get(key);
    if (!item) return null;
    item.end = time;
    item.outcome = outcome;
    if (detail) item.detail = detail;
    open.delete(key);
    return item;
  };
  const marks = []; // whole-run vertical lines
  let status = null;

  for (const e of events) {
    const t = e.time_ms;
    const key = e.step + '#' + e.attempt;
    const error = e.error ? e.error + (e.message ? ' ' + e.message : '') : '';
    switch (e.event) {
      case 'StepScheduled':
        start(key, { kind: 'queued', step: e.step, attempt: e.attempt, start: t }, e.step);
        break;
      case 'StepDispatched': {
        finish(key, t, 'dispatched');
        const limit = stepLimits(limits, workflowName, e.step).timeout_ms;
        start(key, { kind: 'attempt', step: e.step, attempt: e.attempt, start: t, timeout_ms: limit }, e.step);
        break;
      }
      case 'StepRedelivered':
        finish(key, t, 'lost');
        start(key, { kind: 'queued', step: e.step, attempt: e.attempt, start: t }, e.step);
        break;
      case 'StepAttemptFailed':
        finish(key, t, e.error === 'TIMEOUT' ? 'timeout' : 'failed', error);
        break;
      case 'StepCompleted':
        if (e.attempt !== undefined) finish(key, t, 'ok');
        else if (!finish(e.step, t, 'ok'))
          lane(e.step).items.push({ kind: 'point', step: e.step, start: t, end: t, outcome: 'ok' });
        break;
      case 'StepCancelled':
        if (!finish(e.attempt !== undefined ? key : e.step, t, 'cancelled'))
          lane(e.step).items.push({ kind: 'point', step: e.step, start: t, end: t, outcome: 'cancelled' });
        break;
      case 'StepFailed':
        if (!finish(e.step, t, 'failed', error))
          lane(e.step).items.push({ kind: 'point', step: e.step, start: t, end: t, outcome: 'failed', detail: error });
        break;
      case 'StepSkipped':
        lane(e.step).items.push({ kind: 'point', step: e.step, start: t, end: t, outcome: 'skipped' });
        break;
      case 'RetryScheduled':
        lane(e.step).items.push({ kind: 'retry', step: e.step, start: t, end: t + e.delay_ms, outcome: 'retry' });
        break;
      case 'CompensationCompleted':
        finish(e.step + '.compensate#' + e.attempt, t, 'ok');
        break;
      case 'TimerStarted':
        start(e.step, { kind: 'sleep', step: e.step, start: t }, e.step);
        break;
      case 'TimerFired':
        finish(e.step, t, 'ok');
        break;
      case 'SignalWaitStarted':
        start(
          e.step,
          { kind: 'wait', step: e.step, start: t, timeout_ms: e.timeout_ms ?? null, detail: 'signal ' + e.signal },
          e.step,
        );
        break;
      case 'ChildWorkflowStarted':
        start(e.step, { kind: 'child', step: e.step, start: t, detail: 'workflow ' + e.workflow }, e.step);
        break;
      case 'ChildWorkflowCompleted':
        finish(e.step, t, 'ok');
        break;
      case 'ChildWorkflowFailed':
        finish(e.step, t, 'failed', error);
        break;
      case 'ChildWorkflowTimedOut':
        finish(e.step, t, 'timeout', 'workflow timeout');
        break;
      case 'ChildWorkflowCancelled':
        finish(e.step, t, 'cancelled');
        break;
      case 'WorkflowTimeoutReached':
        if (e.step === undefined) marks.push({ kind: 'deadline-reached', time: t });
        break;
      case 'WorkflowCompleted':
      case 'WorkflowFailed':
      case 'WorkflowTimedOut':
      case 'WorkflowBlocked':
        if (e.workflow === workflowName || status === null) {
          status = { event: e.event, time: t, detail: error };
        }
        break;
      default:
        break;
    }
  }
  for (const item of open.values()) {
    item.end = lastTime;
    item.outcome = 'open';
  }
  const own = limits.workflows[workflowName];
  const deadline = own && own.timeout_ms !== null ? own.timeout_ms : null;
  return { lanes, marks, status, deadline, lastTime };
}

// x positions for every moment that matters: gaps drawn by the logarithm of their length.
function timeScale(times) {
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const raw = [0];
  for (let i = 1; i < sorted.length; i++) raw.push(raw[i - 1] + 4 + 30 * Math.log10(1 + (sorted[i] - sorted[i - 1])));
  const span = raw[raw.length - 1] || 1;
  const position = new Map(sorted.map((t, i) => [t, LABEL_WIDTH + (raw[i] / span) * PLOT_WIDTH]));
  const x = (t) => {
    if (position.has(t)) return position.get(t);
    const i = sorted.findIndex((s) => s > t);
    if (i <= 0) return i === 0 ? LABEL_WIDTH : LABEL_WIDTH + PLOT_WIDTH;
    const a = sorted[i - 1],
      b = sorted[i];
    return position.get(a) + ((t - a) / (b - a)) * (position.get(b) - position.get(a));
  };
  return { x, sorted };
}

const OUTCOME_TEXT = {
  ok: 'completed',
  failed: 'failed',
  timeout: 'timed out',
  cancelled: 'cancelled',
  lost: 'worker lost (redelivered)',
  dispatched: 'dispatched',
  open: 'still running at the end',
  retry: 'retry delay',
  skipped: 'skipped',
};

function itemTitle(item) {
  const what = {
    queued: 'queued',
    attempt: 'attempt',
    retry: 'retry delay',
    sleep: 'sleep',
    wait: 'waiting for a signal',
    child: 'child workflow',
    point: '',
  }[item.kind];
  let text = item.step + (item.attempt !== undefined ? ' attempt ' + item.attempt : '') + ': ' + what;
  text +=
    ' ' +
    formatMs(item.start) +
    (item.end !== item.start ? ' → ' + formatMs(item.end) + ' (' + formatMs(item.end - item.start) + ')' : '');
  if (item.kind !== 'retry') text += ', ' + (OUTCOME_TEXT[item.outcome] || item.outcome);
  if (item.detail) text += ' — ' + item.detail;
  if (item.timeout_ms) text += ' (limit ' + formatMs(item.timeout_ms) + ')';
  return text;
}

function drawItem(item, y, x) {
  const x0 = x(item.start);
  const x1 = Math.max(x(item.end), x0 + 2);
  const title = '<title>' + escapeXml(itemTitle(item)) + '</title>';
  const mid = y + LANE_HEIGHT / 2;
  const top = mid - BAR_HEIGHT / 2;
  switch (item.kind) {
    case 'retry':
      return (
        `<g class="retry">${title}<line x1="${x0}" y1="${mid}" x2="${x1}" y2="${mid}"/>` +
        `<text x="${(x0 + x1) / 2}" y="${top - 1}">+${escapeXml(formatMs(item.end - item.start))}</text></g>`
      );
    case 'point':
      return `<g class="point ${item.outcome}">${title}<circle cx="${x0}" cy="${mid}" r="4"/></g>`;
    default: {
      let shape = `<rect class="${item.kind} ${item.outcome}" x="${x0}" y="${top}" width="${x1 - x0}" height="${BAR_HEIGHT}" rx="2"/>`;
      if (item.kind === 'attempt' && x1 - x0 >= 12)
        shape += `<text class="attempt-number" x="${(x0 + x1) / 2}" y="${mid + 4}">${item.attempt}</text>`;
      if (item.outcome === 'timeout')
        shape += `<line class="limit" x1="${x1}" y1="${top - 3}" x2="${x1}" y2="${top + BAR_HEIGHT + 3}"/>`;
      return `<g>${title}${shape}</g>`;
    }
  }
}

const LEGEND = [
  ['queued', 'queued'],
  ['attempt ok', 'completed'],
  ['attempt failed', 'failed'],
  ['attempt timeout', 'timed out'],
  ['retry', 'retry delay'],
  ['sleep', 'sleep, signal wait'],
  ['deadline', 'workflow deadline'],
];

function legend(y) {
  let x = 6;
  const parts = ['<g class="legend">'];
  for (const [kind, text] of LEGEND) {
    if (kind === 'retry')
      parts.push(`<g class="retry"><line x1="${x}" y1="${y - 4}" x2="${x + 16}" y2="${y - 4}"/></g>`);
    else if (kind === 'deadline')
      parts.push(`<g class="deadline"><line x1="${x + 8}" y1="${y - 10}" x2="${x + 8}" y2="${y + 2}"/></g>`);
    else parts.push(`<rect class="${kind}" x="${x}" y="${y - 9}" width="16" height="10" rx="2"/>`);
    parts.push(`<text class="legend-text" x="${x + 20}" y="${y}">${text}</text>`);
    x += 28 + text.length * 5.6;
  }
  parts.push('</g>');
  return parts.join('');
}

// At most this many lanes and bars are drawn: a run of thousands of executions would
// make megabytes of SVG that the browser takes seconds to lay out, and nobody reads; the
// logs beside it have every event.
export const MAX_LANES = 60;
export const MAX_ITEMS = 1000;

// The lanes of layoutRun to draw: the first `maxLanes` lanes, in them the first
// `maxItems` items in all; `omittedLanes` and `omittedItems` count what is left out.
export function boundLanes(lanes, maxLanes = MAX_LANES, maxItems = MAX_ITEMS) {
  const kept = [];
  let budget = maxItems;
  let omittedLanes = 0;
  let omittedItems = 0;
  for (const lane of lanes) {
    if (kept.length >= maxLanes || budget <= 0) {
      omittedLanes++;
      omittedItems += lane.items.length;
      continue;
    }
    const items = lane.items.length <= budget ? lane.items : lane.items.slice(0, budget);
    budget -= items.length;
    omittedItems += lane.items.length - items.length;
    kept.push(items === lane.items ? lane : { ...lane, items });
  }
  return { lanes: kept, omittedLanes, omittedItems };
}

// The SVG of a run (a string). events: the history's JSON events; limits: from
// limitsFromDisassembly; workflowName: the workflow that ran. At most MAX_LANES lanes
// and MAX_ITEMS bars, with a note of how many were left out.
export function timelineSvg(events, limits, workflowName, maxLanes = MAX_LANES, maxItems = MAX_ITEMS) {
  const run = layoutRun(events, limits, workflowName);
  const { lanes, omittedLanes, omittedItems } = boundLanes(run.lanes, maxLanes, maxItems);
  const times = [0, run.lastTime];
  for (const laneItem of lanes) for (const item of laneItem.items) times.push(item.start, item.end);
  if (run.deadline !== null) times.push(run.deadline);
  const { x, sorted } = timeScale(times);
  const noted = omittedLanes || omittedItems ? 18 : 0;
  const height = TOP + lanes.length * LANE_HEIGHT + 64 + noted;
  const width = LABEL_WIDTH + PLOT_WIDTH + 60;
  const parts = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="timeline of the run">`,
  );
  // The axis: a label at each moment, unless it would overlap the previous one.
  let lastLabel = -Infinity;
  const bottom = TOP + lanes.length * LANE_HEIGHT;
  for (const t of sorted) {
    const tx = x(t);
    parts.push(`<line class="grid" x1="${tx}" y1="${TOP - 4}" x2="${tx}" y2="${bottom}"/>`);
    if (tx - lastLabel >= 46) {
      parts.push(`<text class="axis" x="${tx}" y="${TOP - 8}">${escapeXml(formatMs(t))}</text>`);
      lastLabel = tx;
    }
  }
  lanes.forEach((laneItem, i) => {
    const y = TOP + i * LANE_HEIGHT;
    parts.push(`<g class="lane" data-step="${escapeXml(laneItem.step)}">`);
    parts.push(`<rect class="lane-bg${i % 2 ? ' odd' : ''}" x="0" y="${y}" width="${width}" height="${LANE_HEIGHT}"/>`);
    parts.push(`<text class="lane-label" x="6" y="${y + LANE_HEIGHT / 2 + 4}">${escapeXml(laneItem.step)}</text>`);
    for (const item of laneItem.items) parts.push(drawItem(item, y, x));
    parts.push('</g>');
  });
  if (run.deadline !== null) {
    const dx = x(run.deadline);
    parts.push(
      `<g class="deadline"><title>workflow timeout ${escapeXml(formatMs(run.deadline))}</title>` +
        `<line x1="${dx}" y1="${TOP - 4}" x2="${dx}" y2="${bottom + 4}"/>` +
        `<text x="${dx}" y="${bottom + 16}">deadline ${escapeXml(formatMs(run.deadline))}</text></g>`,
    );
  }
  if (run.status) {
    const sx = x(run.status.time);
    const label = {
      WorkflowCompleted: 'completed',
      WorkflowFailed: 'failed',
      WorkflowTimedOut: 'timed out',
      WorkflowBlocked: 'blocked',
    }[run.status.event];
    parts.push(
      `<g class="end ${run.status.event}"><title>${escapeXml(run.status.event + ' at ' + formatMs(run.status.time) + (run.status.detail ? ': ' + run.status.detail : ''))}</title>` +
        `<line x1="${sx}" y1="${TOP - 4}" x2="${sx}" y2="${bottom + 4}"/>` +
        `<text x="${sx}" y="${bottom + 30}">${escapeXml(label)} at ${escapeXml(formatMs(run.status.time))}</text></g>`,
    );
  }
  parts.push(legend(bottom + 46));
  if (noted) {
    const what = [];
    if (omittedLanes) what.push(`${omittedLanes.toLocaleString('en')} more ${omittedLanes === 1 ? 'lane' : 'lanes'}`);
    what.push(`${omittedItems.toLocaleString('en')} more ${omittedItems === 1 ? 'bar' : 'bars'}`);
    parts.push(
      `<text class="omitted-note" x="6" y="${bottom + 64}">Not drawn: ${what.join(' with ')}; the logs below have every event.</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
