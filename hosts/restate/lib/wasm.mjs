// The engine core in WebAssembly (the one build, tools/playground.sh --wasm, through its
// wrapper hosts/wasm/orbit-api.js), loaded once per process: the module is compiled and
// instantiated once, and every engine of the process is a handle in that one instance
// (each with its own arena, freed by close), so that a Restate invocation (which builds
// its engine again from the journal every time it resumes) pays neither a compilation
// nor a fresh memory — hundreds of executions in flight would otherwise keep as many
// WebAssembly memories alive, and the garbage collector busy.
import fs from 'node:fs';
import path from 'node:path';
import { loadOrbit } from '../../wasm/orbit-api.js';

export { ANSWER, OrbitEngine } from '../../wasm/orbit-api.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);

/** Where tools/install-restate.sh builds the module: build-playground/wasm/ (or ORBIT_ENGINE_WASM). */
export function wasmDir() {
  return process.env.ORBIT_ENGINE_WASM ?? path.resolve(HERE, '..', '..', '..', 'build-playground', 'wasm');
}

/**
 * The module's loader: every call gives (a promise of) the one instance.
 * @param {string} [dir] the directory of orbit.js and orbit.wasm
 * @returns {() => Promise<object>}
 */
export function loadCore(dir = wasmDir()) {
  const wasm = path.join(dir, 'orbit.wasm');
  if (!fs.existsSync(wasm)) throw new Error(`${wasm} is missing: run tools/install-restate.sh`);
  let orbit = null;
  return () => (orbit ??= loadOrbit(wasm));
}

/**
 * The workflows of a module, in the order of the module.
 * @param {() => Promise<object>} core @param {Uint8Array} orbc @returns {Promise<string[]>}
 */
export async function workflowsOf(core, orbc) {
  return (await core()).workflows(orbc);
}
