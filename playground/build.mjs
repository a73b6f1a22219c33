// Builds the playground's static site (docs/playground.md): the page bundled with esbuild
// (CodeMirror 6 and src/*.js into playground.js, the example programs as text; the
// worker, src/worker.js and what it draws with, into worker.js), with
// index.html and playground.css, and the WebAssembly build beside it (orbit.js,
// orbit.wasm, and its wrapper orbit-api.js with engine-enums.js, from tools/playground.sh's
// wasm part), and the language reference's pages (docs/reference/*.md into reference/,
// which the page's header links: the site stays whole offline). Prints each file's
// size, raw and gzipped, and the total.
//
//   node playground/build.mjs --out SITE_DIR --wasm WASM_DIR
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { out: { type: 'string' }, wasm: { type: 'string' } } });
if (!args.out || !args.wasm) {
  console.error('usage: node playground/build.mjs --out SITE_DIR --wasm WASM_DIR');
  process.exit(2);
}
const out = path.resolve(args.out);
const wasm = path.resolve(args.wasm);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

// The page (playground.js) and the worker that runs the WebAssembly module off the
// page's thread (worker.js, a module worker of the same origin: src/worker.js).
for (const [entry, file] of [
  ['main.js', 'playground.js'],
  ['worker.js', 'worker.js'],
]) {
  await build({
    entryPoints: [path.join(here, 'src', entry)],
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2020',
    loader: { '.orbit': 'text', '.json': 'text' },
    external: ['./orbit-api.js'], // loaded at run time, beside the bundles
    outfile: path.join(out, file),
    legalComments: 'linked',
    logLevel: 'warning',
  });
}

for (const file of ['index.html', 'playground.css', 'boot.js'])
  copyFileSync(path.join(here, file), path.join(out, file));
for (const file of ['orbit.js', 'orbit.wasm', 'orbit-api.js', 'engine-enums.js']) {
  if (!existsSync(path.join(wasm, file))) {
    console.error(`playground/build.mjs: ${path.join(wasm, file)} is missing (tools/playground.sh --wasm builds it)`);
    process.exit(1);
  }
  copyFileSync(path.join(wasm, file), path.join(out, file));
}

// The language reference, as the repository has it (Markdown, shown as text).
const reference = path.join(here, '..', 'docs', 'reference');
mkdirSync(path.join(out, 'reference'));
for (const file of readdirSync(reference).filter((name) => name.endsWith('.md')))
  copyFileSync(path.join(reference, file), path.join(out, 'reference', file));

// The sizes: what a browser transfers (uncompressed, and as gzip would send it).
let raw = 0;
let gzip = 0;
const rows = [];
for (const file of readdirSync(out).sort()) {
  if (!statSync(path.join(out, file)).isFile()) continue;
  const bytes = readFileSync(path.join(out, file));
  const zipped = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzip += zipped;
  rows.push(`  ${file.padEnd(28)} ${String(bytes.length).padStart(9)} ${String(zipped).padStart(9)}`);
}
console.log(`  ${'file'.padEnd(28)} ${'bytes'.padStart(9)} ${'gzip -9'.padStart(9)}`);
console.log(rows.join('\n'));
console.log(`  ${'total'.padEnd(28)} ${String(raw).padStart(9)} ${String(gzip).padStart(9)}`);
