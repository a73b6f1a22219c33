// The engine core in WebAssembly (hosts/wasm), loaded once per process: the module is
// compiled once and instantiated for each engine, so that a Restate invocation (which
// builds its engine again from the journal every time it resumes) pays no compilation.
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
 * A factory of engine modules: each call instantiates the compiled core again.
 * @param {string} [dir] the directory of orbit_engine.cjs and orbit_engine.wasm
 * @returns {() => Promise<object>}
 */
export function loadCore(dir = wasmDir()) {
  const cjs = path.join(dir, 'orbit_engine.cjs');
  if (!fs.existsSync(cjs)) throw new Error(`${cjs} is missing: run tools/install-restate.sh`);
  const factory = createRequire(import.meta.url)(cjs);
  const compiled = new WebAssembly.Module(fs.readFileSync(path.join(dir, 'orbit_engine.wasm')));
  return () => factory({
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
