// orbitc's JavaScript API (docs/install.md, "npm"): the toolchain of the one WebAssembly
// build (wasm/orbit.wasm, through its one wrapper wasm/orbit-api.js), loaded once, on
// import, on every platform: in-process, without a file system and without the native
// binary. Typed by index.d.ts.
//
//   import { check, format } from 'orbitc';
//   check(source, 'src/orders.orbit')   // the diagnostics `orbitc check --format json` prints
//   format(source)                     // {ok: true, text} as `orbitc fmt -`, or {ok: false, message}
import { loadOrbit } from './wasm/orbit-api.js';

const orbit = await loadOrbit();

export const { check, checkText, format, fix } = orbit;
