// The playground's API for JavaScript (docs/playground.md): loads the WebAssembly build
// of the toolchain (orbit.js and orbit.wasm, made by tools/playground.sh) and wraps the
// C functions of playground/api.h. Each method takes strings and returns the parsed JSON
// the C function returned; nothing touches a file or the network but the one fetch of
// orbit.wasm. Every string reaches C whole, as its exact UTF-8 bytes and their count: a
// NUL in a program is a character like any other, as it is to orbitc.
//
//   import { loadOrbit } from './orbit-api.js';
//   const orbit = await loadOrbit();          // or loadOrbit(new URL('orbit.wasm', ...))
//   orbit.check(source)   // [{code, severity, message, file, line, ..., fixes}, ...]
//
// check(source, name)  the diagnostics, as `orbitc check --format json NAME` prints them
//                      (checkText: its exact text, one JSON object a line); a name
//                      with a NUL throws a RangeError (no file has such a name)
// format(source)       {ok: true, text} as `orbitc fmt -`, or {ok: false, message}
// fix(source)          {text, fixed} as `orbitc fix -`
// build(source)        {ok, bytecode (base64), message when not ok} as `orbitc build`
// dis(source)          {ok, text} as `orbitc dis` of the build
// run(source, scenario) {ok, exit, logs (`orbit-run` text), history (its JSON events),
//                      message when not ok}; scenario: JSON text or an object
// tokens(source)       [[start, end, kind], ...]: the lexer's tokens and comments, in
//                      UTF-16 units (JavaScript string offsets); kind as parser.y names
//                      it (T_STEP, IDENT, STRING, DURATION, ...) or COMMENT
// scenario(source)     a scenario for the program: its first workflow, the simplest
//                      input, every worker answering after 100 ms, the signals it
//                      awaits arriving at 1 s ({} when it does not build; {ok: false,
//                      message} when its values nest deeper than orbit-run reads)
// graph(source, {workflow, format})  {ok: true, text} as `orbitc graph --format FORMAT
//                      [--workflow WORKFLOW]` (format: json (the default), dot or
//                      mermaid; workflow: all when absent), or {ok: false, message}
import createOrbit from './orbit.js';

const DEFAULT_NAME = 'playground.orbit';
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

export async function loadOrbit(wasmUrl) {
  const options = {};
  if (wasmUrl !== undefined)
    options.locateFile = (path, prefix) => (path.endsWith('.wasm') ? String(wasmUrl) : prefix + path);
  const module = await createOrbit(options);

  // Calls orbit_pg_NAME with each string as (pointer, length): its exact UTF-8 bytes
  // (TextEncoder's) copied into the module's heap, NUL bytes and all, and returns the
  // text it gives back (JSON, which holds no NUL byte, so the first NUL ends it), freed.
  function call(name, ...strings) {
    const pointers = [];
    try {
      const args = [];
      for (const s of strings) {
        const bytes = encoder.encode(s);
        const pointer = module._malloc(bytes.length || 1);
        if (!pointer) throw new RangeError('out of memory for a text of ' + bytes.length + ' bytes');
        pointers.push(pointer);
        module.HEAPU8.set(bytes, pointer);   // read HEAPU8 after malloc: the heap may have grown
        args.push(pointer, bytes.length);
      }
      const result = module['_orbit_pg_' + name](...args);
      if (!result) throw new RangeError(`orbit_pg_${name}: a name cannot hold a NUL character`);
      const heap = module.HEAPU8;
      const text = decoder.decode(heap.subarray(result, heap.indexOf(0, result)));
      module._orbit_pg_free(result);
      return text;
    } finally {
      for (const p of pointers) module._free(p);
    }
  }
  const json = (name, ...strings) => JSON.parse(call(name, ...strings));

  return {
    checkText: (source, name = DEFAULT_NAME) => call('check', source, name),
    check: (source, name = DEFAULT_NAME) =>
      call('check', source, name).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line)),
    format: (source) => json('format', source),
    fix: (source) => json('fix', source),
    build: (source) => json('build', source),
    dis: (source) => json('dis', source),
    run: (source, scenario) =>
      json('run', source, typeof scenario === 'string' ? scenario : JSON.stringify(scenario ?? {})),
    tokens: (source) => json('tokens', source),
    scenario: (source) => json('scenario', source),
    graph: (source, { workflow = '', format = 'json' } = {}) => json('graph', source, workflow, format),
  };
}
