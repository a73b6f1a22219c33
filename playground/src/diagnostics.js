// orbitc's diagnostics (the JSON of `orbitc check --format json`) as CodeMirror lint
// diagnostics: the exact range (the LSP range, in UTF-16 units, which is what CodeMirror
// counts in), the message with its code, and each fix as an action.

// A check result may be the list itself or an object that holds it.
export function diagnosticList(result) {
  if (Array.isArray(result)) return result;
  if (result && Array.isArray(result.diagnostics)) return result.diagnostics;
  return [];
}

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

// CodeMirror diagnostics for a check result of the document `doc`.
export function lintDiagnostics(doc, result, fileName) {
  return diagnosticList(result)
    .filter((d) => d.file === fileName && d.range)
    .map((d) => {
      const { from, to } = rangeOffsets(doc, d.range);
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
    });
}
