// What the worker (src/worker.js) makes of the module's answers before they cross to the
// page: compact, so that the page's share of a check or of the tokens does not grow with
// the program (docs/playground.md, "Off the page's thread"). Pure functions, tested under
// Node (tests/test_playground_units.mjs).

export const SEVERITIES = ['error', 'warning', 'note', 'help'];

// The UTF-16 offset of each line's start in `text` (lines end at "\n": the editor's
// text has no other line end).
export function lineStarts(text) {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

// The offset of an LSP position {line, character} in a text of those lines, clamped to
// the text (as src/diagnostics.js's offsetOf does on the editor's document).
export function positionOffset(starts, length, position) {
  if (position.line + 1 > starts.length) return length;
  const line = Math.max(position.line, 0);
  const end = line + 1 < starts.length ? starts[line + 1] - 1 : length;
  return Math.min(starts[line] + position.character, end);
}

// A check's JSON Lines read once: where each line is (`bounds`: start and end in
// `jsonl`), each diagnostic's LSP range and severity (`ranges`: start line, start
// character, end line, end character, index in SEVERITIES; a start line of -1 for a
// diagnostic of another file or without a range), and how many are errors.
export function readCheck(jsonl, name) {
  const bounds = [];
  for (let at = 0; at < jsonl.length;) {
    const nl = jsonl.indexOf('\n', at);
    const end = nl < 0 ? jsonl.length : nl;
    if (end > at) bounds.push(at, end);
    at = end + 1;
  }
  const count = bounds.length / 2;
  const ranges = new Int32Array(count * 5);
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const d = JSON.parse(jsonl.slice(bounds[2 * i], bounds[2 * i + 1]));
    if (d.severity === 'error') errors++;
    const r = d.file === name && d.range ? d.range : null;
    ranges.set([r ? r.start.line : -1, r ? r.start.character : 0, r ? r.end.line : 0, r ? r.end.character : 0,
      Math.max(SEVERITIES.indexOf(d.severity), 0)], 5 * i);
  }
  return { count, errors, jsonl, bounds: Int32Array.from(bounds), ranges };
}

// Where the diagnostics of readCheck lie in `text`: `spans` (from, to and severity of
// each; -1, -1 for those without a range in the file) and their indexes in order of
// `from` (`order`).
export function placeCheck(text, { count, ranges }) {
  const starts = lineStarts(text);
  const spans = new Int32Array(count * 3);
  for (let i = 0; i < count; i++) {
    const r = 5 * i;
    let from = -1;
    let to = -1;
    if (ranges[r] >= 0) {
      from = positionOffset(starts, text.length, { line: ranges[r], character: ranges[r + 1] });
      to = Math.max(from, positionOffset(starts, text.length, { line: ranges[r + 2], character: ranges[r + 3] }));
    }
    spans[3 * i] = from;
    spans[3 * i + 1] = to;
    spans[3 * i + 2] = ranges[r + 4];
  }
  const order = Int32Array.from({ length: count }, (_, i) => i)
    .sort((a, b) => spans[3 * a] - spans[3 * b] || a - b);
  return { spans, order };
}

// The tokens of `tokens(source)` ([[start, end, "KIND"], ...]) as one array of
// numbers, start, end and the index of the kind in `kinds`, three a token.
export function tokenArrays(tokens) {
  const kinds = [];
  const index = new Map();
  const spans = new Int32Array(tokens.length * 3);
  tokens.forEach(([start, end, kind], i) => {
    if (!index.has(kind)) {
      index.set(kind, kinds.length);
      kinds.push(kind);
    }
    spans[3 * i] = start;
    spans[3 * i + 1] = end;
    spans[3 * i + 2] = index.get(kind);
  });
  return { spans, kinds };
}

// The scenario's text with "max_events": `max` added, unless it has its own (then its
// limit is the scenario's: `own`) or is not a JSON object (left for orbit-run to refuse).
// The key goes before the last `}`, so that every line and column orbit-run might report
// in the scenario stays where the user sees it.
export function withMaxEvents(text, max) {
  let scenario;
  try {
    scenario = JSON.parse(text);
  } catch {
    return { text, limit: null, own: false };
  }
  if (scenario === null || typeof scenario !== 'object' || Array.isArray(scenario))
    return { text, limit: null, own: false };
  if (Object.prototype.hasOwnProperty.call(scenario, 'max_events'))
    return { text, limit: scenario.max_events, own: true };
  const close = text.lastIndexOf('}');
  const comma = Object.keys(scenario).length ? ', ' : '';
  return { text: text.slice(0, close) + comma + '"max_events": ' + max + text.slice(close), limit: max, own: false };
}
