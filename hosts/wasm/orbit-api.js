// The one JavaScript wrapper of Orbit's WebAssembly build (orbit.js and orbit.wasm, made
// by tools/playground.sh --wasm from tools/playground_wasm.py): the playground's page
// (docs/playground.md, in its Web Workers), the Restate host (hosts/restate/lib/wasm.mjs,
// docs/restate.md) and Node programs load the module through it. It is the one place
// that loads the module and copies bytes in and out of its heap; the functions it calls
// are those the C marks WASM_EXPORT (playground/api.h, hosts/wasm/engine_wasm.h), and the
// numbers it passes are engine.h's, generated into ./engine-enums.js. Every text reaches
// C as its exact UTF-8 bytes (TextEncoder's), and comes back decoded by TextDecoder.
//
//   import { loadOrbit } from './orbit-api.js';
//   const orbit = await loadOrbit();        // orbit.wasm and orbit.js beside this file, or
//                                           // loadOrbit(URL or path of orbit.wasm)
//
// In Node, runOrbitc(args) runs orbitc's command line itself in an instance of its own,
// over Node's file system (the npm package's fallback; docs/install.md, "npm").
//
// The toolchain (playground/api.h): each method takes strings and returns the parsed JSON
// the C function returned; nothing touches a file or the network but the one fetch of
// orbit.wasm (in Node: the one read of it).
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
//
// The engine core (hosts/wasm/engine_wasm.h, docs/engine.md "In WebAssembly"), for hosts
// that drive an execution themselves:
//
// workflows(orbc)      the names of the workflows of the module `orbc` (its bytes)
// open(orbc, workflow, input)  an OrbitEngine: the execution of `workflow` with `input`
//                      (a plain JSON value: an integral number is an int, any other
//                      number a number); throws when the module does not load or the
//                      input does not match the workflow's contract
//
// replay(orbc, history, workflow)  a history (JSON lines of `orbit-run --format json
//                      --show-values` or `orbit-restate logs --format json`) replayed
//                      against the module `orbc`: {history, verdict, places, records,
//                      divergence}, as `orbit-run replay --format json` (docs/runtime.md,
//                      "Replay"); `workflow` (optional) NEW's workflow; throws when the
//                      module does not load or the history is malformed or has no values
// places(history)      the places a history waits at: [{id, workflow, step, state, attempt}]
//
// Each engine's event returns whether the engine accepted it; commands() then gives its
// commands as objects:
//   {kind: "record", event, text, json}  the event as an `orbit logs` line (`text`) and
//                                   as `orbit-run --format json --show-values` writes
//                                   it (`json`: one JSON object, values included)
//   {kind: "timer", timer, at_ms, limit}
//   {kind: "queue", attempt, delivery, number, queue_timer, task, step, input, idempotency_key}
//                                   queue_timer: the timer of its queue timeout (0: none)
//   {kind: "cancel", attempt}
//   {kind: "finished", status, output | error, message, step, final}
//                                   final: the closing `{"status":…}` line of the JSON history
// Every engine of a loaded module is a handle in its one instance: close() frees it.
//
// A trap inside the module (a WebAssembly RuntimeError: memory out of bounds, unreachable,
// emscripten's abort) leaves its memory in a state nobody knows: the call that trapped
// throws an EngineFault with `here` true, the instance is marked failed (fault()), and
// every later call into it throws an EngineFault with `here` false, never touching that
// memory again — load the module again for a fresh instance (hosts/restate/lib/wasm.mjs).
import { ANSWER } from './engine-enums.js';

export { ANSWER, EVENT } from './engine-enums.js';

const DEFAULT_NAME = 'playground.orbit';
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const IN_NODE = typeof process === 'object' && typeof process.versions?.node === 'string';

// A call into a loaded module that trapped (`here`: this call; else an earlier one, and
// the instance is not used any more).
export class EngineFault extends Error {
  constructor(message, here) {
    super(message);
    this.name = 'EngineFault';
    this.here = here;
  }
}

// What frees memory: nothing to do once the instance failed (its memory is left alone).
const RELEASE = /^_(free|wasm_close|orbit_pg_free)$/;

// Loads the module: orbit.wasm at `wasm` (a URL, or in Node a path; by default beside
// this file), with emscripten's orbit.js beside it.
export async function loadOrbit(wasm) {
  return api(new Heap(await instantiate(wasm, {})));
}

// orbitc's command line (cli_main, cli/main.c) in Node, in an instance of the module of
// its own, as a process runs main once: `args` as they follow `orbitc`; resolves to its
// exit status. Its file system is Node's: every directory at the top of the machine's
// (but /dev and /proc, emscripten's own) is mounted at the same path (NODEFS), and its
// working directory is `cwd`, so paths are read, and printed, as the native orbitc reads
// and prints them. Its standard input, output and error are the process's descriptors
// 0, 1 and 2, byte for byte; its environment is `env` (process.env) but the check's
// cache (ORBITC_CACHE_DIR, XDG_CACHE_HOME, HOME: none, docs/install.md, "npm").
export async function runOrbitc(args, { wasm, cwd, env } = {}) {
  if (!IN_NODE) throw new Error("runOrbitc needs Node: its files are Node's");
  const fs = await import('node:fs');
  const module = await instantiate(wasm, {
    preRun: [(m) => mountNode(m, fs, cwd ?? process.cwd(), env ?? process.env)],
  });
  const heap = new Heap(module);
  const argv = ['orbitc', ...args].map((arg) => heap.copyIn(encoder.encode(arg)));
  const table = module._malloc(4 * (argv.length + 1));
  const view = new DataView(module.HEAPU8.buffer);
  for (const [i, pointer] of argv.entries()) view.setUint32(table + 4 * i, pointer, true);
  view.setUint32(table + 4 * argv.length, 0, true);
  try {
    return module._cli_main(argv.length, table);
  } catch (error) {
    // exit() (out of memory: `orbitc: out of memory`, status 2) ends the instance with
    // emscripten's ExitStatus
    if (error && error.name === 'ExitStatus') return error.status;
    throw error;
  }
}

// Makes the module's file system Node's (runOrbitc), before the module starts.
function mountNode(module, fs, cwd, env) {
  const { FS, ENV } = module;
  const { NODEFS } = FS.filesystems;
  // the machine's top directories at their own paths, over emscripten's /tmp and /home
  FS.rmdir('/home/web_user');
  FS.rmdir('/home');
  FS.rmdir('/tmp');
  for (const name of fs.readdirSync('/')) {
    if (name === 'dev' || name === 'proc') continue;
    let stat;
    try {
      stat = fs.statSync('/' + name);
    } catch {
      continue; // a dangling link
    }
    if (!stat.isDirectory()) continue;
    FS.mkdir('/' + name);
    FS.mount(NODEFS, { root: '/' + name }, '/' + name);
  }
  FS.chdir(cwd);
  // the process's descriptors, byte for byte (emscripten's terminal writes lines)
  const device = (fd) => ({
    open() {},
    close() {},
    read(_stream, buffer, offset, length) {
      for (;;) {
        try {
          return fs.readSync(fd, new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length));
        } catch (error) {
          if (error.code === 'EAGAIN') continue;
          if (error.code === 'EOF') return 0;
          throw new FS.ErrnoError(29 /* EIO */);
        }
      }
    },
    write(_stream, buffer, offset, length) {
      const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length);
      let done = 0;
      while (done < length) {
        try {
          done += fs.writeSync(fd, bytes, done, length - done);
        } catch (error) {
          if (error.code === 'EAGAIN') continue;
          throw new FS.ErrnoError(error.code === 'EPIPE' ? 64 /* EPIPE */ : 29 /* EIO */);
        }
      }
      return length;
    },
  });
  for (const fd of [0, 1, 2]) FS.registerDevice(FS.makedev(64, fd), device(fd));
  FS.mkdir('/dev/node');
  for (const fd of [0, 1, 2]) FS.mkdev('/dev/node/' + fd, FS.makedev(64, fd));
  // emscripten opens 0, 1 and 2 on these once it starts (FS.init: Module.stdin...); the
  // devices replace its terminal
  module.stdin = module.stdout = module.stderr = undefined;
  FS.init.initialized = true;
  FS.ensureErrnoError();
  FS.open('/dev/node/0', 0 /* O_RDONLY */);
  FS.open('/dev/node/1', 1 /* O_WRONLY */);
  FS.open('/dev/node/2', 1 /* O_WRONLY */);
  // the environment, without emscripten's defaults (HOME=/home/web_user...)
  for (const name of ['USER', 'LOGNAME', 'PATH', 'PWD', 'HOME', 'LANG', '_']) ENV[name] = undefined;
  for (const [name, value] of Object.entries(env)) {
    if (!NO_CACHE.includes(name) && value !== undefined) ENV[name] = String(value);
  }
}

// What says where the check's cache is: the WebAssembly orbitc has none (its key would
// be the version alone, without the native executable's build ID).
const NO_CACHE = ['ORBITC_CACHE_DIR', 'XDG_CACHE_HOME', 'HOME'];

// The module's instance (emscripten's Module, with `options`: wasmBinary, preRun, ...).
async function instantiate(wasm, options) {
  const wasmUrl = await moduleUrl(wasm);
  const script = new URL('orbit.js', wasmUrl);
  if (IN_NODE) {
    // emscripten's ES module, under Node, uses require and __dirname as if it were
    // CommonJS; the bytes are given, not fetched (Node's fetch does not read files).
    const { createRequire } = await import('node:module');
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    const { dirname } = await import('node:path');
    globalThis.require ??= createRequire(script);
    globalThis.__dirname ??= dirname(fileURLToPath(script));
    options.wasmBinary = await readFile(wasmUrl);
  } else {
    options.locateFile = (path, prefix) => (path.endsWith('.wasm') ? wasmUrl.href : prefix + path);
  }
  const { default: createOrbit } = await import(script.href);
  return createOrbit(options);
}

async function moduleUrl(wasm) {
  if (wasm === undefined) return new URL('orbit.wasm', import.meta.url);
  if (wasm instanceof URL) return wasm;
  if (IN_NODE && !/^[a-z][a-z0-9+.-]*:/i.test(String(wasm))) {
    const { pathToFileURL } = await import('node:url');
    return pathToFileURL(String(wasm));
  }
  return new URL(String(wasm), import.meta.url);
}

// The loaded module (`module`: emscripten's, with what the C exports): its heap, and the
// copies in and out of it.
class Heap {
  constructor(module) {
    this.raw = module;
    this.fault = null; // the trap that failed the instance
    const wrapped = new Map();
    // The module with each exported function (`_name`) guarded by enter().
    this.module = new Proxy(module, {
      get: (target, name) => {
        const value = target[name];
        if (typeof value !== 'function' || typeof name !== 'string' || name[0] !== '_') return value;
        let f = wrapped.get(name);
        if (!f) {
          f = RELEASE.test(name)
            ? (...args) => (this.fault ? 0 : this.enter(() => value(...args)))
            : (...args) => this.enter(() => value(...args));
          wrapped.set(name, f);
        }
        return f;
      },
    });
  }

  // Runs `fn`, a call into the module: a trap fails the instance (see EngineFault).
  enter(fn) {
    if (this.fault)
      throw new EngineFault(
        `the engine core's instance failed earlier (${this.fault.message}) and is not used any more: load it again`,
        false,
      );
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof WebAssembly.RuntimeError)) throw e;
      this.fault = e;
      throw new EngineFault(`the engine core failed: ${e.message}`, true);
    }
  }

  // Copies `bytes` (a Uint8Array) into the heap with a NUL after them (for the functions
  // that read a NUL-terminated text); returns the pointer, which the caller frees.
  copyIn(bytes) {
    const pointer = this.module._malloc(bytes.length + 1);
    if (!pointer) throw new RangeError('out of memory for a text of ' + bytes.length + ' bytes');
    const heap = this.module.HEAPU8; // read HEAPU8 after malloc: the heap may have grown
    heap.set(bytes, pointer);
    heap[pointer + bytes.length] = 0;
    return pointer;
  }

  // The NUL-terminated text at `pointer` (JSON and names hold no NUL byte).
  textAt(pointer) {
    const heap = this.module.HEAPU8;
    return decoder.decode(heap.subarray(pointer, heap.indexOf(0, pointer)));
  }

  // Calls the exported C function `name` with `args`, where each string or Uint8Array
  // is copied in (strings as their UTF-8 bytes) and passed as its pointer, followed by
  // its length: always for bytes, for a string when `withLengths` (else C reads it to
  // its NUL); the copies are freed after the call.
  call(name, withLengths, ...args) {
    const pointers = [];
    try {
      const values = [];
      for (const arg of args) {
        if (typeof arg !== 'string' && !(arg instanceof Uint8Array)) {
          values.push(arg);
          continue;
        }
        const bytes = typeof arg === 'string' ? encoder.encode(arg) : arg;
        const pointer = this.copyIn(bytes);
        pointers.push(pointer);
        values.push(pointer);
        if (withLengths || typeof arg !== 'string') values.push(bytes.length);
      }
      return this.module['_' + name](...values);
    } finally {
      for (const p of pointers) this.module._free(p);
    }
  }
}

// What loadOrbit gives: the toolchain's functions and the engine core's, as a plain object
// (its functions may be taken apart from it).
function api(heap) {
  // orbit_pg_NAME with each string as (pointer, length), NUL bytes and all; its text,
  // freed (playground/api.h).
  const toolchain = (name, ...strings) => {
    const result = heap.call('orbit_pg_' + name, true, ...strings);
    if (!result) throw new RangeError(`orbit_pg_${name}: a name cannot hold a NUL character`);
    try {
      return heap.textAt(result);
    } finally {
      heap.module._orbit_pg_free(result);
    }
  };
  const json = (name, ...strings) => JSON.parse(toolchain(name, ...strings));
  const checkText = (source, name = DEFAULT_NAME) => toolchain('check', source, name);
  return Object.freeze({
    // The trap that failed this instance (every call now throws EngineFault), or null.
    fault: () => heap.fault,
    checkText,
    check: (source, name = DEFAULT_NAME) =>
      checkText(source, name)
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
    format: (source) => json('format', source),
    fix: (source) => json('fix', source),
    build: (source) => json('build', source),
    dis: (source) => json('dis', source),
    run: (source, scenario) =>
      json('run', source, typeof scenario === 'string' ? scenario : JSON.stringify(scenario ?? {})),
    tokens: (source) => json('tokens', source),
    scenario: (source) => json('scenario', source),
    graph: (source, { workflow = '', format = 'json' } = {}) => json('graph', source, workflow, format),

    // ---- orbitc compat (compat/compat.h): two .orbc files' bytes (Uint8Array) in, the
    // report of docs/compat.md out (its JSON, parsed); a side that does not load throws.
    compat(oldOrbc, newOrbc) {
      const result = heap.call('compat_orbc_json', false, oldOrbc, newOrbc);
      if (!result) throw new RangeError('compat_orbc_json: out of memory');
      let report;
      try {
        report = JSON.parse(heap.textAt(result));
      } finally {
        heap.module._free(result);
      }
      if (report.error) throw new Error(`the ${report.side} module does not load: ${report.error}`);
      return report;
    },

    // ---- the engine core (hosts/wasm/engine_wasm.h) ----
    workflows(orbc) {
      const handle = heap.module._wasm_new();
      try {
        const list = heap.call('wasm_workflows', false, handle, orbc);
        const text = heap.textAt(list || heap.module._wasm_error(handle));
        if (!list) throw new Error(text);
        return JSON.parse(text);
      } finally {
        heap.module._wasm_close(handle);
      }
    },
    replay(orbc, history, workflow = '') {
      const handle = heap.module._wasm_new();
      try {
        const result = heap.call('wasm_replay', false, handle, orbc, history, workflow);
        const text = heap.textAt(result || heap.module._wasm_error(handle));
        if (!result) throw new Error(text);
        return JSON.parse(text);
      } finally {
        heap.module._wasm_close(handle);
      }
    },
    places(history) {
      const handle = heap.module._wasm_new();
      try {
        const result = heap.call('wasm_places', false, handle, history);
        const text = heap.textAt(result || heap.module._wasm_error(handle));
        if (!result) throw new Error(text);
        return JSON.parse(text);
      } finally {
        heap.module._wasm_close(handle);
      }
    },
    open(orbc, workflow, input) {
      const engine = new OrbitEngine(heap, heap.module._wasm_new());
      engine.push(input);
      if (!heap.call('wasm_open', false, engine.handle, orbc, workflow)) {
        const text = heap.textAt(heap.module._wasm_error(engine.handle));
        engine.close();
        throw new Error(text);
      }
      return engine;
    },
  });
}

// One execution in the engine core: a handle (`handle`, a WasmHost pointer) in a loaded
// module's heap (`heap`).
export class OrbitEngine {
  // `orbit`: a loaded module (loadOrbit), or a function that gives one (or a promise of
  // one); `orbc`: the module's bytes.
  static async open(orbit, orbc, workflow, input) {
    return (await (typeof orbit === 'function' ? orbit() : orbit)).open(orbc, workflow, input);
  }

  constructor(heap, handle) {
    this.heap = heap;
    this.handle = handle;
  }

  close() {
    if (this.handle) this.heap.module._wasm_close(this.handle);
    this.handle = 0;
  }

  // A value onto the handle's stack (wasm_push_*).
  push(value) {
    const { heap, handle } = this;
    const c = heap.module;
    if (value === null || value === undefined) {
      c._wasm_push_null(handle);
    } else if (typeof value === 'boolean') {
      c._wasm_push_bool(handle, value ? 1 : 0);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value)) c._wasm_push_int(handle, value);
      else c._wasm_push_number(handle, value);
    } else if (typeof value === 'string') {
      heap.call('wasm_push_string', false, handle, value);
    } else if (Array.isArray(value)) {
      for (const item of value) this.push(item);
      c._wasm_push_list(handle, value.length);
    } else {
      const names = Object.keys(value);
      for (const name of names) {
        this.push(name);
        this.push(value[name]);
      }
      c._wasm_push_record(handle, names.length);
    }
  }

  commands() {
    return JSON.parse(this.heap.textAt(this.heap.module._wasm_commands(this.handle)));
  }

  // Each event returns whether the engine accepted it; its commands: commands().
  start() {
    return this.event('wasm_start');
  }
  timerFired(time, timer) {
    return this.event('wasm_timer_fired', time, timer);
  }
  pickedUp(time, attempt, delivery, workerId) {
    return this.event('wasm_picked_up', time, attempt, delivery, String(workerId));
  }
  // answer: {kind: ANSWER.*, output, code, message, retryable, status}
  answered(time, attempt, delivery, answer) {
    if (answer.kind === ANSWER.OUTPUT || answer.kind === ANSWER.HTTP_RESPONSE) this.push(answer.output);
    return this.event(
      'wasm_answered',
      time,
      attempt,
      delivery,
      answer.kind,
      answer.code ?? '',
      answer.message ?? '',
      answer.retryable ? 1 : 0,
      answer.status ?? 0,
    );
  }
  workerLost(time, attempt, delivery) {
    return this.event('wasm_worker_lost', time, attempt, delivery);
  }
  signal(time, name, payload) {
    this.push(payload);
    return this.event('wasm_signal', time, String(name));
  }
  idle(time) {
    return this.event('wasm_idle', time);
  }

  // What the host has due (the engine's timers, the world's events), in the core's tie
  // order (engine/timers.c): by time, at one millisecond every limit last, then the order
  // added. `id` is the host's name for the thing (an integer, not 0).
  dueAdd(time, limit, id) {
    this.heap.module._wasm_due_add(this.handle, time, limit ? 1 : 0, id);
  }
  // The time of the first thing due, or null when nothing is.
  dueFirst() {
    const at = this.heap.module._wasm_due_first(this.handle);
    return at < 0 ? null : at;
  }
  // The id of the first thing due at `upTo` or before, taken out; 0 when there is none.
  dueTake(upTo) {
    return this.heap.module._wasm_due_take(this.handle, upTo) >>> 0;
  }

  event(name, ...args) {
    return this.heap.call(name, false, this.handle, ...args) !== 0;
  }
}
