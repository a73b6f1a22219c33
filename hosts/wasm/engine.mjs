// The engine core in WebAssembly for JavaScript hosts (docs/engine.md, "In WebAssembly"):
// a thin wrapper over hosts/wasm/engine_wasm.c. Values go in as plain JSON values (an
// integral number is an int, any other number a number); commands come out as objects:
//   {kind: "record", event, text}   the event as an `orbit logs` line
//   {kind: "timer", timer, at_ms, limit}
//   {kind: "queue", attempt, delivery, number, queue_timer, task, step, input, idempotency_key}
//                                   queue_timer: the timer of its queue timeout (0: none)
//   {kind: "cancel", attempt}
//   {kind: "finished", status, output | error, message, step}
// Build the module first with hosts/wasm/build.sh.

export const ANSWER = { OUTPUT: 0, FAIL: 1, HTTP_RESPONSE: 2, NETWORK_ERROR: 3 };

export class OrbitEngine {
  // `createModule`: the factory orbit_engine.cjs exports; `orbc`: the module's bytes.
  static async open(createModule, orbc, workflow, input) {
    const m = await createModule();
    const engine = new OrbitEngine(m);
    engine.h = m.ccall('wasm_new', 'number', [], []);
    engine.push(input);
    const bytes = m._malloc(orbc.length);
    m.HEAPU8.set(orbc, bytes);
    const opened = m.ccall('wasm_open', 'number', ['number', 'number', 'number', 'string'],
                           [engine.h, bytes, orbc.length, workflow]);
    m._free(bytes);
    if (!opened) {
      const text = m.UTF8ToString(m.ccall('wasm_error', 'number', ['number'], [engine.h]));
      engine.close();
      throw new Error(text);
    }
    return engine;
  }

  // The names of the workflows of the module `orbc` (its bytes): what a host may start.
  static async workflows(createModule, orbc) {
    const m = await createModule();
    const engine = new OrbitEngine(m);
    engine.h = m.ccall('wasm_new', 'number', [], []);
    const bytes = m._malloc(orbc.length);
    m.HEAPU8.set(orbc, bytes);
    const json = m.ccall('wasm_workflows', 'number', ['number', 'number', 'number'], [engine.h, bytes, orbc.length]);
    m._free(bytes);
    const text = m.UTF8ToString(json ? json : m.ccall('wasm_error', 'number', ['number'], [engine.h]));
    engine.close();
    if (!json) throw new Error(text);
    return JSON.parse(text);
  }

  constructor(m) {
    this.m = m;
    this.h = 0;
  }

  close() {
    if (this.h) this.m.ccall('wasm_close', null, ['number'], [this.h]);
    this.h = 0;
  }

  push(value) {
    const { m, h } = this;
    if (value === null || value === undefined) {
      m.ccall('wasm_push_null', null, ['number'], [h]);
    } else if (typeof value === 'boolean') {
      m.ccall('wasm_push_bool', null, ['number', 'number'], [h, value ? 1 : 0]);
    } else if (typeof value === 'number') {
      const f = Number.isInteger(value) ? 'wasm_push_int' : 'wasm_push_number';
      m.ccall(f, null, ['number', 'number'], [h, value]);
    } else if (typeof value === 'string') {
      m.ccall('wasm_push_string', null, ['number', 'string'], [h, value]);
    } else if (Array.isArray(value)) {
      for (const item of value) this.push(item);
      m.ccall('wasm_push_list', null, ['number', 'number'], [h, value.length]);
    } else {
      const names = Object.keys(value);
      for (const name of names) {
        this.push(name);
        this.push(value[name]);
      }
      m.ccall('wasm_push_record', null, ['number', 'number'], [h, names.length]);
    }
  }

  commands() {
    const text = this.m.UTF8ToString(this.m.ccall('wasm_commands', 'number', ['number'], [this.h]));
    return JSON.parse(text);
  }

  // Each event returns whether the engine accepted it; its commands: commands().
  start() { return this.call('wasm_start', [], []); }
  timerFired(time, timer) { return this.call('wasm_timer_fired', ['number', 'number'], [time, timer]); }
  pickedUp(time, attempt, delivery, workerId) {
    return this.call('wasm_picked_up', ['number', 'number', 'number', 'string'],
                     [time, attempt, delivery, workerId]);
  }
  // answer: {kind: ANSWER.*, output, code, message, retryable, status}
  answered(time, attempt, delivery, answer) {
    if (answer.kind === ANSWER.OUTPUT || answer.kind === ANSWER.HTTP_RESPONSE) this.push(answer.output);
    return this.call('wasm_answered',
                     ['number', 'number', 'number', 'number', 'string', 'string', 'number', 'number'],
                     [time, attempt, delivery, answer.kind, answer.code ?? '', answer.message ?? '',
                      answer.retryable ? 1 : 0, answer.status ?? 0]);
  }
  workerLost(time, attempt, delivery) {
    return this.call('wasm_worker_lost', ['number', 'number', 'number'], [time, attempt, delivery]);
  }
  signal(time, name, payload) {
    this.push(payload);
    return this.call('wasm_signal', ['number', 'string'], [time, name]);
  }
  idle(time) { return this.call('wasm_idle', ['number'], [time]); }

  call(name, types, args) {
    return this.m.ccall(name, 'number', ['number', ...types], [this.h, ...args]) !== 0;
  }
}
