// Renders Mermaid files to SVG with the real Mermaid (tools/mermaid/: the `mermaid` npm
// package, installed by tools/install-npm.sh) in headless Chromium (Debian's `chromium`,
// driven by the playground's puppeteer-core: tools/install-playground-deps.sh), with
// Mermaid's defaults, as GitHub renders a ```mermaid block: the labels are HTML in SVG
// foreignObjects (a browser shows them, in a page or an <img>; librsvg does not), and the
// SVG is serialised as XML (XMLSerializer: Mermaid's own text has HTML's <br>). One
// setting differs: room under each workflow's title (subGraphTitleMargin), whose three
// lines Mermaid would otherwise draw over the first step. Nothing is fetched: the page is
// blank and Mermaid's bundle is read from node_modules. Each SVG is written atomically
// (a temporary file, then a rename).
//
//   node tools/render_mermaid.mjs IN.mmd OUT.svg [IN.mmd OUT.svg ...] [--chromium PATH]
//
// Used for docs/graph-checkout-mermaid.svg:
//   orbitc graph --format mermaid examples/ > checkout.mmd
//   node tools/render_mermaid.mjs checkout.mmd docs/graph-checkout-mermaid.svg
import { createRequire } from 'node:module';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: options, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { chromium: { type: 'string', default: process.env.CHROMIUM || '/usr/bin/chromium' } },
});
if (files.length === 0 || files.length % 2 !== 0) {
  console.error('usage: node tools/render_mermaid.mjs IN.mmd OUT.svg [IN.mmd OUT.svg ...] [--chromium PATH]');
  process.exit(2);
}
const bundle = path.join(root, 'tools', 'mermaid', 'node_modules', 'mermaid', 'dist', 'mermaid.min.js');
const puppeteer = createRequire(path.join(root, 'playground', 'package.json'))('puppeteer-core');

const browser = await puppeteer.launch({
  executablePath: options.chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
let failed = 0;
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: bundle });
  await page.evaluate(() =>
    window.mermaid.initialize({
      startOnLoad: false,
      securityLevel: 'strict',
      theme: 'default',
      handDrawnSeed: 1, // the shapes roughjs draws: the same SVG every time
      flowchart: { subGraphTitleMargin: { top: 0, bottom: 46 } },
    }),
  );
  for (let i = 0; i < files.length; i += 2) {
    const [input, output] = [files[i], files[i + 1]];
    try {
      const svg = await page.evaluate(
        async (text) => {
          const { svg: markup } = await window.mermaid.render('graph', text);
          const holder = document.createElement('div');
          holder.innerHTML = markup; // HTML's parser: Mermaid's labels are HTML (<br>)
          return new XMLSerializer().serializeToString(holder.firstElementChild);
        },
        readFileSync(input, 'utf8'),
      );
      const temporary = output + '.tmp';
      writeFileSync(temporary, '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + '\n');
      renameSync(temporary, output);
      console.log(`${input} -> ${output} (${svg.length} bytes)`);
    } catch (error) {
      failed++;
      console.error(`render_mermaid: ${input}: ${String(error.message || error).split('\n')[0]}`);
    }
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
