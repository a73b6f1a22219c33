// Highlighting from the compiler's own lexer: `tokens(source)` of the WebAssembly API
// gives [start, end, kind] in UTF-16 units, comments included, `kind` being the name
// parser.y gives the token (`T_STEP`, `IDENT`, `DURATION`, `LBRACE`, ...) or `COMMENT`;
// each token becomes a mark with the class `tok-CLASS`, styled in playground.css.
import { RangeSetBuilder } from '@codemirror/state';
import { Decoration, ViewPlugin } from '@codemirror/view';

const CLASSES = {
  COMMENT: 'comment', STRING: 'string', INT: 'number', NUMBER: 'number', DURATION: 'duration',
  IDENT: 'identifier', T_TRUE: 'constant', T_FALSE: 'constant', T_NULL: 'constant',
  STRAY: 'error', RECOVERED: 'error',
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

function decorations(orbit, doc) {
  const builder = new RangeSetBuilder();
  let last = 0;
  for (const [start, end, kind] of orbit.tokens(doc.toString())) {
    // Tokens come in order and do not overlap; anything else is skipped, not trusted.
    if (start < last || end <= start || end > doc.length) continue;
    builder.add(start, end, markFor(kind));
    last = end;
  }
  return builder.finish();
}

export function lexerHighlighting(orbit) {
  return ViewPlugin.fromClass(
    class {
      constructor(view) {
        this.decorations = decorations(orbit, view.state.doc);
      }
      update(update) {
        if (update.docChanged) this.decorations = decorations(orbit, update.state.doc);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}
