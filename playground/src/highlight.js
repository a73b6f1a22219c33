// Highlighting from the compiler's own lexer: `tokens(source)` of the WebAssembly API
// gives [start, end, kind] in UTF-16 units, comments included, `kind` being the name
// parser.y gives the token (`T_STEP`, `IDENT`, `DURATION`, `LBRACE`, ...) or `COMMENT`;
// each token becomes a mark with the class `tok-CLASS`, styled in playground.css.
//
// The tokens are made by the worker (src/worker.js, off the page's thread: a megabyte
// takes it a few hundred milliseconds) and arrive as one array of numbers
// (src/worker-work.js, tokenArrays); the page marks only the tokens of the visible part
// of the document, found by binary search, so its share does not grow with the
// program. Until the tokens of a new text arrive, the marks of the last ones move with
// the edits.
import { RangeSetBuilder, StateEffect } from '@codemirror/state';
import { Decoration, ViewPlugin } from '@codemirror/view';
import { SUPERSEDED } from './orbit-worker.js';

const CLASSES = {
  COMMENT: 'comment',
  STRING: 'string',
  INT: 'number',
  NUMBER: 'number',
  DURATION: 'duration',
  IDENT: 'identifier',
  T_TRUE: 'constant',
  T_FALSE: 'constant',
  T_NULL: 'constant',
  STRAY: 'error',
  RECOVERED: 'error',
};

export function tokenClass(kind) {
  if (CLASSES[kind]) return CLASSES[kind];
  return kind.startsWith('T_') ? 'keyword' : 'punctuation';
}

const marks = new Map();
function markFor(kind) {
  if (!marks.has(kind)) marks.set(kind, Decoration.mark({ class: 'tok-' + tokenClass(String(kind)) }));
  return marks.get(kind);
}

const tokensArrived = StateEffect.define();

// The marks of the tokens that overlap the visible ranges of the view.
export function visibleDecorations(view, tokens) {
  const builder = new RangeSetBuilder();
  const { spans, kinds } = tokens;
  const count = spans.length / 3;
  const length = view.state.doc.length;
  let last = 0;
  for (const { from, to } of view.visibleRanges) {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      // the first token that ends after `from`
      const mid = (lo + hi) >> 1;
      if (spans[3 * mid + 1] <= from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < count && spans[3 * i] < to; i++) {
      const start = spans[3 * i];
      const end = spans[3 * i + 1];
      // Tokens come in order and do not overlap; anything else is skipped, not trusted.
      if (start < last || end <= start || end > length) continue;
      builder.add(start, end, markFor(kinds[spans[3 * i + 2]]));
      last = end;
    }
  }
  return builder.finish();
}

// `requestTokens(text)` asks the worker: a promise of tokenArrays' {spans, kinds} (or
// SUPERSEDED). One request at a time; the newest text is asked about when it answers.
export function lexerHighlighting(requestTokens) {
  return ViewPlugin.fromClass(
    class {
      constructor(view) {
        this.view = view;
        this.tokens = null; // of the current document, or null until they arrive
        this.decorations = Decoration.none;
        this.busy = false;
        this.again = false;
        this.ask();
      }
      update(update) {
        if (update.docChanged) {
          this.tokens = null;
          this.decorations = this.decorations.map(update.changes);
          this.ask();
        } else if (
          this.tokens &&
          (update.viewportChanged || update.transactions.some((tr) => tr.effects.some((e) => e.is(tokensArrived))))
        ) {
          this.decorations = visibleDecorations(update.view, this.tokens);
        }
      }
      ask() {
        if (this.busy) {
          this.again = true;
          return;
        }
        this.busy = true;
        this.again = false;
        const doc = this.view.state.doc;
        requestTokens(doc.toString())
          .then(
            (tokens) => {
              if (this.destroyed || tokens === SUPERSEDED || this.view.state.doc !== doc) return;
              this.tokens = tokens;
              this.view.dispatch({ effects: tokensArrived.of(null) });
            },
            () => {},
          )
          .finally(() => {
            this.busy = false;
            if (!this.destroyed && (this.again || this.view.state.doc !== doc)) this.ask();
          });
      }
      destroy() {
        this.destroyed = true;
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}
