// Tokenizes lines with a TextMate grammar through vscode-textmate and vscode-oniguruma,
// the tokenizer VS Code itself runs, for tests/editors/test_grammar.py.
//
//   node grammar_tokenize.cjs NODE_MODULES GRAMMAR < REQUEST > ANSWER
//
// REQUEST is JSON: a list of documents, each a list of lines (without their line ends).
// ANSWER is JSON: for each document, for each line, [tokens, initial, top], where tokens
// are [start, end, scopes] in UTF-16 code units, `initial` tells whether the rule stack
// at the line's end is the initial one, and `top` is the scope of the rule left open
// there (null when none).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [nodeModules, grammarPath] = process.argv.slice(2);
const textmate = require(path.join(nodeModules, 'vscode-textmate'));
const oniguruma = require(path.join(nodeModules, 'vscode-oniguruma'));

async function loadGrammar() {
  const wasm = fs.readFileSync(path.join(nodeModules, 'vscode-oniguruma', 'release', 'onig.wasm'));
  const onigLib = oniguruma.loadWASM(wasm.buffer).then(() => ({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (text) => new oniguruma.OnigString(text),
  }));
  const raw = fs.readFileSync(grammarPath, 'utf8');
  const registry = new textmate.Registry({
    onigLib,
    loadGrammar: async () => textmate.parseRawGrammar(raw, grammarPath),
  });
  return registry.loadGrammar(JSON.parse(raw).scopeName);
}

function tokenizeDocument(grammar, lines) {
  let stack = textmate.INITIAL;
  return lines.map((line) => {
    const result = grammar.tokenizeLine(line, stack);
    stack = result.ruleStack;
    const initial = stack.depth === textmate.INITIAL.depth;
    const top = initial ? null : (stack.nameScopesList?.scopeName ?? 'unnamed');
    return [result.tokens.map((t) => [t.startIndex, Math.min(t.endIndex, line.length), t.scopes]), initial, top];
  });
}

async function main() {
  const grammar = await loadGrammar();
  const documents = JSON.parse(fs.readFileSync(0, 'utf8'));
  process.stdout.write(JSON.stringify(documents.map((lines) => tokenizeDocument(grammar, lines))));
}

main().catch((error) => {
  process.stderr.write(`grammar_tokenize: ${error.stack || error}\n`);
  process.exit(1);
});
