// The page's side of src/worker.js's protocol: a worker that answers requests with
// promises, and that can be stopped in the middle of one.
//
//   const worker = new OrbitWorker(new URL('worker.js', import.meta.url));
//   await worker.ready;                       // the WebAssembly module is loaded
//   const diagnostics = await worker.request('check', { text, name }, 'check');
//   worker.cancel();                          // terminates it; a fresh one starts
//
// request(op, args, key) resolves to the handler's result, or to SUPERSEDED when a
// later request of the same key replaced it before it started; it rejects with an
// Error whose `cancelled` is true when cancel() stopped the worker first.

export const SUPERSEDED = Symbol('superseded');

export class OrbitWorker {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map(); // id → {resolve, reject}
    this.start();
  }

  start() {
    this.failed = null;
    this.worker = new Worker(this.url, { type: 'module' });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => {
        const message = event.data;
        if (message.ready) {
          resolve();
        } else if (message.failed) {
          const error = new Error(message.failed);
          reject(error);
          this.failAll(error);
          this.failed = error; // requests made later fail at once
        } else {
          this.answer(message);
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        const error = new Error(event.message || 'the worker failed');
        reject(error);
        this.failAll(error);
        this.failed = error;
      };
    });
    this.ready.catch(() => {}); // whoever awaits it sees the failure
  }

  answer({ id, result, error, superseded }) {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (superseded) pending.resolve(SUPERSEDED);
    else if (error !== undefined) pending.reject(new Error(error));
    else pending.resolve(result);
  }

  failAll(error) {
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }

  request(op, args, key) {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args, key });
    });
  }

  // Stops whatever the worker is doing (terminate() ends it even in the middle of a
  // WebAssembly call) and starts a fresh one; every request not answered is rejected.
  cancel() {
    this.worker.terminate();
    const error = new Error('cancelled');
    error.cancelled = true;
    this.failAll(error);
    this.start();
  }
}
