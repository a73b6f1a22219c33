// The engine core in WebAssembly (hosts/wasm), loaded once per process: the module is
// compiled and instantiated once, and every engine of the process is a handle in that one
// instance (each with its own arena, freed by close), so that a Restate invocation (which
// builds its engine again from the journal every time it resumes) pays neither a
// compilation nor a fresh 16 MB memory — hundreds of executions in flight would otherwise
// keep as many WebAssembly memories alive, and the garbage collector busy.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { OrbitEngine } from '../../wasm/engine.mjs';

export { ANSWER, OrbitEngine } from '../../wasm/engine.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);

/** Where tools/install-restate.sh builds the core: hosts/restate/build/ (or ORBIT_ENGINE_WASM). */
export function wasmDir() {
  return process.env.ORBIT_ENGINE_WASM ?? path.resolve(HERE, '..', 'build');
}

/**
 * The engine module's factory: every call gives the one instance of the core.
 * @param {string} [dir] the directory of orbit_engine.cjs and orbit_engine.wasm
 * @returns {() => Promise<object>}
 */
export function loadCore(dir = wasmDir()) {
  const cjs = path.join(dir, 'orbit_engine.cjs');
  if (!fs.existsSync(cjs)) throw new Error(`${cjs} is missing: run tools/install-restate.sh`);
  const factory = createRequire(import.meta.url)(cjs);
  const compiled = new WebAssembly.Module(fs.readFileSync(path.join(dir, 'orbit_engine.wasm')));
  let instance = null;
  return () => instance ??= factory({
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(compiled, imports).then((instance) => done(instance, compiled));
      return {};
    },
  });
}

/**
 * The workflows of a module, in the order of the module.
 * @param {() => Promise<object>} core @param {Uint8Array} orbc @returns {Promise<string[]>}
 */
export function workflowsOf(core, orbc) {
  return OrbitEngine.workflows(core, orbc);
}
