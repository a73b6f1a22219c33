// orbitc's diagnostics (the JSON of `orbitc check --format json`) as CodeMirror lint
// diagnostics: the exact range (from the JSON's byte offsets, turned into the UTF-16
// units CodeMirror counts in), the message with its code, and each fix as an action.

// The document offset of an LSP position, clamped to the document.
export function offsetOf(doc, position) {
  const lineNumber = Math.min(Math.max(position.line + 1, 1), doc.lines);
  const line = doc.line(lineNumber);
  if (position.line + 1 > doc.lines) return doc.length;
  return Math.min(line.from + position.character, line.to);
}

// The UTF-8 length of a JavaScript string, as TextEncoder (orbit-api.js) encodes it: a
// lone surrogate becomes U+FFFD, three bytes.
function utf8Length(text, from = 0, to = text.length) {
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const u = text.charCodeAt(i);
    if (u < 0x80) bytes += 1;
    else if (u < 0x800) bytes += 2;
    else if (u >= 0xd800 && u < 0xdc00 && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

// Where each line of a document starts in its UTF-8 bytes (the editor's only line
// separator is \n, one byte: a \r is a character of its line), once per document.
const lineBytes = new WeakMap();
function lineStarts(doc) {
  let starts = lineBytes.get(doc);
  if (!starts) {
    starts = new Float64Array(doc.lines);
    let bytes = 0;
    for (let n = 1; n <= doc.lines; n++) {
      starts[n - 1] = bytes;
      bytes += utf8Length(doc.line(n).text) + 1;
    }
    lineBytes.set(doc, starts);
  }
  return starts;
}

// The document offset (UTF-16 units) of a byte offset of its UTF-8 text, clamped to the
// document. Exact whatever the line ends: orbitc ends a line at a lone \r too, the
// editor does not, so the JSON's line and character are not the editor's.
export function offsetOfByte(doc, byte) {
  const starts = lineStarts(doc);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= byte) lo = mid;
    else hi = mid - 1;
  }
  const line = doc.line(lo + 1);
  let bytes = starts[lo];
  let i = 0;
  while (i < line.text.length && bytes < byte) {
    const pair = (line.text.charCodeAt(i) & 0xfc00) === 0xd800 && (line.text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    bytes += utf8Length(line.text, i, i + (pair ? 2 : 1));
    i += pair ? 2 : 1;
  }
  return line.from + i;
}

// The document offsets of something with byte_start and byte_end (a diagnostic, an
// edit of a fix); the LSP range where the bytes are missing.
export function diagnosticRange(doc, d) {
  if (typeof d.byte_start === 'number' && typeof d.byte_end === 'number') {
    const from = offsetOfByte(doc, d.byte_start);
    return { from, to: Math.max(from, offsetOfByte(doc, d.byte_end)) };
  }
  const from = offsetOf(doc, d.range.start);
  return { from, to: Math.max(from, offsetOf(doc, d.range.end)) };
}

// The edits of a fix as CodeMirror changes (only edits of this file: the playground
// has one).
export function fixChanges(doc, fix, fileName) {
  return fix.edits
    .filter((edit) => edit.file === fileName)
    .map((edit) => ({ ...diagnosticRange(doc, edit), insert: edit.replacement }));
}

const SEVERITY = { error: 'error', warning: 'warning', note: 'info', help: 'hint' };

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// The code spans of a message, [{code, text}], as orbitc writes them (its human output
// shows the backticks): `name` quotes a name, which may itself hold backticks (worker
// `pay`x` is the worker pay`x), so a span opens at a backtick after a space, a bracket or
// the start, and closes at the first backtick after it that is followed by a space,
// punctuation or the end; ``text`` (Markdown's) holds a backtick between runs of two. A
// backtick that opens nothing that closes is text. Nothing here is HTML: the caller
// puts each text in the page as text.
const OPENS = /[\s([{"'=,;:]/;
const CLOSES = /[\s)\]}"',.;:?!]/;
export function codeSpans(text) {
  const spans = [];
  let plain = '';
  let i = 0;
  const code = (content, next) => {
    if (plain) spans.push({ code: false, text: plain });
    plain = '';
    spans.push({ code: true, text: content });
    i = next;
  };
  while (i < text.length) {
    if (text[i] !== '`' || (i > 0 && !OPENS.test(text[i - 1]))) {
      plain += text[i++];
      continue;
    }
    let run = 1;
    while (text[i + run] === '`') run++;
    if (run >= 2) {
      // Markdown: the next run of exactly as many backticks
      const fence = '`'.repeat(run);
      let j = text.indexOf(fence, i + run);
      while (j >= 0 && text[j + run] === '`') j = text.indexOf(fence, j + run + 1);
      if (j > i + run) {
        let content = text.slice(i + run, j);
        if (content.length > 2 && content.startsWith(' ') && content.endsWith(' ')) content = content.slice(1, -1);
        code(content, j + run);
        continue;
      }
    }
    let end = -1;
    for (let j = i + 2; j < text.length && end < 0; j++)
      if (text[j] === '`' && (j + 1 === text.length || CLOSES.test(text[j + 1]))) end = j;
    if (end < 0) plain += text[i++];
    else code(text.slice(i + 1, end), end + 1);
  }
  if (plain) spans.push({ code: false, text: plain });
  return spans;
}

// A message without its quotes, for where only text goes (a button's label).
export function plainText(text) {
  return codeSpans(text)
    .map((span) => span.text)
    .join('');
}

// Text with `code spans` as <code> elements.
export function richText(tag, className, text) {
  const node = element(tag, className);
  for (const span of codeSpans(text))
    node.append(span.code ? element('code', null, span.text) : document.createTextNode(span.text));
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
      name: plainText(fix.message),
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

  from(i) {
    return this.spans[3 * i];
  }
  to(i) {
    return this.spans[3 * i + 1];
  }

  // The same diagnostics placed again in a text whose check gave the same JSON Lines.
  placed({ spans, order }) {
    const set = new DiagnosticSet({ ...this, spans, order });
    set.parsed = this.parsed;
    return set;
  }
}
DiagnosticSet.empty = new DiagnosticSet({
  count: 0,
  errors: 0,
  jsonl: '',
  bounds: new Int32Array(0),
  spans: new Int32Array(0),
  order: new Int32Array(0),
});

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
  while (lo < hi) {
    // the first diagnostic that starts at `start` or after
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
