// The playground's API for JavaScript (docs/playground.md): loads the WebAssembly build
// of the toolchain (orbit.js and orbit.wasm, made by tools/playground.sh) and wraps the
// C functions of playground/api.h. Each method takes strings and returns the parsed JSON
// the C function returned; nothing touches a file or the network but the one fetch of
// orbit.wasm.
//
//   import { loadOrbit } from './orbit-api.js';
//   const orbit = await loadOrbit();          // or loadOrbit(new URL('orbit.wasm', ...))
//   orbit.check(source)   // [{code, severity, message, file, line, ..., fixes}, ...]
//
// check(source, name)  the diagnostics, as `orbitc check --format json NAME` prints them
//                      (checkText: its exact text, one JSON object a line)
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
//                      awaits arriving at 1 s ({} when it does not build)
// graph(source, {workflow, format})  {ok: true, text} as `orbitc graph --format FORMAT
//                      [--workflow WORKFLOW]` (format: json (the default), dot or
//                      mermaid; workflow: all when absent), or {ok: false, message}
import createOrbit from './orbit.js';

const DEFAULT_NAME = 'playground.orbit';

export async function loadOrbit(wasmUrl) {
  const options = {};
  if (wasmUrl !== undefined)
    options.locateFile = (path, prefix) => (path.endsWith('.wasm') ? String(wasmUrl) : prefix + path);
  const module = await createOrbit(options);

  // Calls orbit_pg_NAME with the strings as UTF-8 copies in the module's memory and
  // returns the text it gives back, freed.
  function call(name, ...strings) {
    const pointers = strings.map((s) => {
      const size = module.lengthBytesUTF8(s) + 1;
      const pointer = module._malloc(size);
      module.stringToUTF8(s, pointer, size);
      return pointer;
    });
    try {
      const result = module['_orbit_pg_' + name](...pointers);
      const text = module.UTF8ToString(result);
      module._orbit_pg_free(result);
      return text;
    } finally {
      pointers.forEach((p) => module._free(p));
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
