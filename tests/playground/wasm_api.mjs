// The WebAssembly build of the playground's API under Node, for tests/playground/test_wasm.py and
// tools/playground_bench.mjs: loads DIR/orbit-api.js and DIR/orbit.wasm, then answers
// one request a line on standard input, {"fn": "check", "args": [...]}, with one line
// {"result": ...}: what the method of orbit-api.js returns (check: checkText, the exact
// JSON Lines), or {"error": "..."}. Run with `node --no-experimental-fetch`.
//
//   node --no-experimental-fetch tests/playground/wasm_api.mjs DIR < requests
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

const dir = resolve(process.argv[2]);
// emscripten's ES module, under Node, uses require and __dirname as if it were CommonJS.
globalThis.require = createRequire(import.meta.url);
globalThis.__dirname = dir;
const { loadOrbit } = await import(dir + '/orbit-api.js');
const orbit = await loadOrbit(dir + '/orbit.wasm');
const methods = { ...orbit, check: orbit.checkText };

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (line === '') continue;
  let answer;
  try {
    const request = JSON.parse(line);
    answer = { result: methods[request.fn](...request.args) };
  } catch (error) {
    answer = { error: String(error) };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
