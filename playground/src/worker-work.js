// What the worker (src/worker.js) makes of the module's answers before they cross to the
// page: compact, so that the page's share of a check or of the tokens does not grow with
// the program (docs/playground.md, "Off the page's thread"). Pure functions, tested under
// Node (tests/playground/test_playground_units.mjs).

export const SEVERITIES = ['error', 'warning', 'note', 'help'];

// A check's JSON Lines read once: where each line is (`bounds`: start and end in
// `jsonl`), each diagnostic's place and severity (`ranges`: its byte_start and byte_end
// in the UTF-8 text, and its index in SEVERITIES; a byte_start of -1 for a diagnostic of
// another file or without a place), and how many are errors. The bytes, not the LSP
// line and character: orbitc ends a line at a lone \r too, the editor does not, so only
// the bytes are where the editor's text has them.
export function readCheck(jsonl, name) {
  const bounds = [];
  for (let at = 0; at < jsonl.length; ) {
    const nl = jsonl.indexOf('\n', at);
    const end = nl < 0 ? jsonl.length : nl;
    if (end > at) bounds.push(at, end);
    at = end + 1;
  }
  const count = bounds.length / 2;
  const ranges = new Float64Array(count * 3);
  let errors = 0;
  for (let i = 0; i < count; i++) {
    const d = JSON.parse(jsonl.slice(bounds[2 * i], bounds[2 * i + 1]));
    if (d.severity === 'error') errors++;
    const placed = d.file === name && typeof d.byte_start === 'number' && typeof d.byte_end === 'number';
    ranges.set(
      [placed ? d.byte_start : -1, placed ? d.byte_end : -1, Math.max(SEVERITIES.indexOf(d.severity), 0)],
      3 * i,
    );
  }
  return { count, errors, jsonl, bounds: Int32Array.from(bounds), ranges };
}

// The UTF-16 offsets in `text` of the UTF-8 byte offsets `bytes` (as TextEncoder encodes
// the text for the module: a lone surrogate is three bytes), each clamped to the text and
// moved past a character it would fall inside (as src/diagnostics.js's offsetOfByte): one
// pass over the text for all of them.
export function byteOffsets(text, bytes) {
  const order = Int32Array.from({ length: bytes.length }, (_, i) => i).sort((a, b) => bytes[a] - bytes[b]);
  const offsets = new Int32Array(bytes.length);
  let i = 0;
  let at = 0;
  for (const k of order) {
    while (i < text.length && at < bytes[k]) {
      const u = text.charCodeAt(i);
      if (u < 0x80) at += 1;
      else if (u < 0x800) at += 2;
      else if ((u & 0xfc00) === 0xd800 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        at += 4;
        i++;
      } else at += 3;
      i++;
    }
    offsets[k] = i;
  }
  return offsets;
}

// Where the diagnostics of readCheck lie in `text`: `spans` (from, to and severity of
// each; -1, -1 for those without a place in the file) and their indexes in order of
// `from` (`order`).
export function placeCheck(text, { count, ranges }) {
  const wanted = [];
  for (let i = 0; i < count; i++) if (ranges[3 * i] >= 0) wanted.push(ranges[3 * i], ranges[3 * i + 1]);
  const offsets = byteOffsets(text, wanted);
  const spans = new Int32Array(count * 3);
  for (let i = 0, w = 0; i < count; i++) {
    let from = -1;
    let to = -1;
    if (ranges[3 * i] >= 0) {
      from = offsets[w++];
      to = Math.max(from, offsets[w++]);
    }
    spans[3 * i] = from;
    spans[3 * i + 1] = to;
    spans[3 * i + 2] = ranges[3 * i + 2];
  }
  const order = Int32Array.from({ length: count }, (_, i) => i).sort((a, b) => spans[3 * a] - spans[3 * b] || a - b);
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
  if (Object.hasOwn(scenario, 'max_events')) return { text, limit: scenario.max_events, own: true };
  const close = text.lastIndexOf('}');
  const comma = Object.keys(scenario).length ? ', ' : '';
  return { text: text.slice(0, close) + comma + '"max_events": ' + max + text.slice(close), limit: max, own: false };
}
