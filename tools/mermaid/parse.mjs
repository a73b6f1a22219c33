// Parses Mermaid files with the real Mermaid parser, headless: jsdom stands in for the
// browser's DOM that Mermaid's sanitiser asks for. Prints `ok PATH` or `FAIL PATH: WHY`
// for each file; exits 1 when one fails to parse.
//
//     node tools/mermaid/parse.mjs FILE.mmd...
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let failed = 0;
for (const path of process.argv.slice(2)) {
  try {
    const result = await mermaid.parse(readFileSync(path, 'utf8'));
    if (result.diagramType !== 'flowchart-v2')
      throw new Error('a ' + result.diagramType + ', not a flowchart');
    console.log('ok ' + path);
  } catch (e) {
    failed++;
    console.log('FAIL ' + path + ': ' + String(e.message || e).split('\n').join(' '));
  }
}
process.exit(failed ? 1 : 0);
