// orbitc's diagnostics (the JSON of `orbitc check --format json`) as CodeMirror lint
// diagnostics: the exact range (the LSP range, in UTF-16 units, which is what CodeMirror
// counts in), the message with its code, and each fix as an action.

// The document offset of an LSP position, clamped to the document.
export function offsetOf(doc, position) {
  const lineNumber = Math.min(Math.max(position.line + 1, 1), doc.lines);
  const line = doc.line(lineNumber);
  if (position.line + 1 > doc.lines) return doc.length;
  return Math.min(line.from + position.character, line.to);
}

function rangeOffsets(doc, range) {
  const from = offsetOf(doc, range.start);
  return { from, to: Math.max(from, offsetOf(doc, range.end)) };
}

// The edits of a fix as CodeMirror changes (only edits of this file: the playground
// has one).
export function fixChanges(doc, fix, fileName) {
  return fix.edits
    .filter((edit) => edit.file === fileName)
    .map((edit) => ({ ...rangeOffsets(doc, edit.range), insert: edit.replacement }));
}

const SEVERITY = { error: 'error', warning: 'warning', note: 'info', help: 'hint' };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// Text with `code spans` as <code> elements.
export function richText(tag, className, text) {
  const node = element(tag, className);
  text.split(/(`[^`]*`)/).forEach((part) => {
    if (part.startsWith('`') && part.endsWith('`') && part.length >= 2) node.append(element('code', null, part.slice(1, -1)));
    else if (part) node.append(document.createTextNode(part));
  });
  return node;
}

// The details of a diagnostic, as rustc prints them: label, notes, help, suggestions.
export function renderDiagnostic(d) {
  const box = element('div', 'orbit-diagnostic');
  const head = element('div', 'head');
  head.append(element('span', 'severity ' + d.severity, d.severity + '[' + d.code + ']'), document.createTextNode(' '));
  head.append(richText('span', 'message', d.message));
  box.append(head);
  if (d.label) box.append(richText('div', 'label', d.label));
  for (const label of d.labels || []) box.append(richText('div', 'label', 'line ' + label.line + ': ' + label.message));
  for (const note of d.notes || []) box.append(richText('div', 'note', '= note: ' + note));
  for (const help of d.help || []) box.append(richText('div', 'help', '= help: ' + help));
  for (const fix of d.fixes || []) box.append(richText('div', 'help', '= help: ' + fix.message));
  return box;
}

// The CodeMirror diagnostic of `d` (a diagnostic of `orbitc check --format json`) at
// [from, to) of the document `doc` (where the worker placed its range).
export function lintDiagnostic(doc, d, from, to, fileName) {
  const fixes = (d.fixes || []).map((fix) => ({ fix, changes: fixChanges(doc, fix, fileName) }));
  return {
    from,
    to,
    severity: SEVERITY[d.severity] || 'error',
    source: d.code,
    message: d.code + ': ' + d.message,
    renderMessage: () => renderDiagnostic(d),
    actions: fixes.map(({ fix, changes }) => ({
      name: fix.message.replace(/`/g, ''),
      // The diagnostic may have moved since the check: shift the edits with it.
      apply(view, currentFrom) {
        const shift = currentFrom - from;
        view.dispatch({ changes: changes.map((c) => ({ from: c.from + shift, to: c.to + shift, insert: c.insert })) });
      },
    })),
  };
}

// The diagnostics of one check as the worker sends them (src/worker.js's `check`, from
// src/worker-work.js's readCheck and placeCheck): their JSON Lines, each parsed only when it is shown, and where each
// lies in the checked text. A program of 32,000 diagnostics costs the page what it
// shows of them, not what it has.
export class DiagnosticSet {
  constructor({ count, errors, jsonl, bounds, spans, order, serial }) {
    Object.assign(this, { count, errors, jsonl, bounds, spans, order, serial });
    this.parsed = new Map();
  }

  // Diagnostic `i` (in orbitc's order), parsed.
  get(i) {
    let d = this.parsed.get(i);
    if (!d) {
      d = JSON.parse(this.jsonl.slice(this.bounds[2 * i], this.bounds[2 * i + 1]));
      this.parsed.set(i, d);
    }
    return d;
  }

  from(i) { return this.spans[3 * i]; }
  to(i) { return this.spans[3 * i + 1]; }

  // The same diagnostics placed again in a text whose check gave the same JSON Lines.
  placed({ spans, order }) {
    const set = new DiagnosticSet({ ...this, spans, order });
    set.parsed = this.parsed;
    return set;
  }
}
DiagnosticSet.empty = new DiagnosticSet({ count: 0, errors: 0, jsonl: '', bounds: new Int32Array(0),
  spans: new Int32Array(0), order: new Int32Array(0) });

// At most this many diagnostics are marked in the editor at once (underline, gutter,
// hover, F8): beyond, those whose range starts in and near the visible part.
export const MAX_MARKS = 500;

// The indexes of the diagnostics to mark, in order of position: every one that has a
// range in the file when there are at most `max`; else at most `max` of those starting
// in [from, to).
export function markedIndexes(set, from, to, max = MAX_MARKS) {
  const { order, spans } = set;
  let lo = 0;
  let hi = order.length;
  const start = set.count <= max ? 0 : from;
  while (lo < hi) {   // the first diagnostic that starts at `start` or after
    const mid = (lo + hi) >> 1;
    if (spans[3 * order[mid]] < start) lo = mid + 1;
    else hi = mid;
  }
  const marked = [];
  for (let k = lo; k < order.length && marked.length < max; k++) {
    const i = order[k];
    if (set.count > max && spans[3 * i] >= to) break;
    if (spans[3 * i] >= 0) marked.push(i);
  }
  return marked;
}
