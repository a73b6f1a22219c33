// The engine core in WebAssembly (the one build, tools/playground.sh --wasm, through its
// wrapper hosts/wasm/orbit-api.js), loaded once per process: the module is compiled and
// instantiated once, and every engine of the process is a handle in that one instance
// (each with its own arena, freed by close), so that a Restate invocation (which builds
// its engine again from the journal every time it resumes) pays neither a compilation
// nor a fresh memory — hundreds of executions in flight would otherwise keep as many
// WebAssembly memories alive, and the garbage collector busy.
//
// One instance for all, but a trap inside it (orbit-api.js EngineFault) is not shared: the
// instance is dropped, the next call of the loader instantiates the module again, the
// execution whose call trapped fails (host.mjs), and the others, whose engines were in the
// failed instance, fail their invocation with a retryable error: Restate replays them from
// their journals on the fresh instance. Measured 2026-12-06 on this machine: a fresh
// instance of the module costs 120 ms (6.6 ms from a compiled WebAssembly.Module) against
// 1.1 ms to open, start and close an engine in the shared one — an instance per
// execution would cost more than the engine itself, and a memory each.
import fs from 'node:fs';
import path from 'node:path';
import { loadOrbit } from '../../wasm/orbit-api.js';

export { ANSWER, EngineFault, OrbitEngine } from '../../wasm/orbit-api.js';

const HERE = path.dirname(new URL(import.meta.url).pathname);

/** Where tools/install-restate.sh builds the module: build-playground/wasm/ (or ORBIT_ENGINE_WASM). */
export function wasmDir() {
  return process.env.ORBIT_ENGINE_WASM ?? path.resolve(HERE, '..', '..', '..', 'build-playground', 'wasm');
}

/**
 * The module's loader: every call gives (a promise of) the one instance — a fresh one
 * once the last has failed (its `fault()`).
 * @param {string} [dir] the directory of orbit.js and orbit.wasm
 * @returns {() => Promise<object>}
 */
export function loadCore(dir = wasmDir()) {
  const wasm = path.join(dir, 'orbit.wasm');
  if (!fs.existsSync(wasm)) throw new Error(`${wasm} is missing: run tools/install-restate.sh`);
  let orbit = null;
  let loaded = null;
  return async () => {
    if (loaded?.fault()) {
      orbit = null;
      loaded = null;
    }
    orbit ??= loadOrbit(wasm).then((o) => (loaded = o));
    return orbit;
  };
}

/**
 * The workflows of a module, in the order of the module.
 * @param {() => Promise<object>} core @param {Uint8Array} orbc @returns {Promise<string[]>}
 */
export async function workflowsOf(core, orbc) {
  return (await core()).workflows(orbc);
}
