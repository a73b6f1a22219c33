// A worker's answer to a task, checked: the one shape the engine takes (wasm.mjs ANSWER),
// from either way a worker answers — the queue's `complete` and `fail` (queue.mjs) or a
// pushed worker's (push.mjs). Bad input is refused with a reason, never an exception.
import { ANSWER } from './wasm.mjs';

const CODE = /^[A-Za-z0-9_.-]{1,200}$/;

/** The size of a value as JSON text, in bytes (what Restate's journal and state hold). */
export function jsonBytes(value) {
  return Buffer.byteLength(JSON.stringify(value ?? null) ?? 'null');
}

/**
 * `complete`'s `{output}`: the answer. An output larger than `maxValueBytes` is the
 * attempt's failure (OUTPUT_TOO_LARGE, not retryable), never a value that would break the
 * execution's journal; `error` then says why, for the worker.
 * @returns {{answer: object, error?: string}}
 */
export function completed(req, maxValueBytes) {
  const bytes = jsonBytes(req?.output);
  if (bytes > maxValueBytes) {
    const error = `the worker's output is ${bytes} bytes of JSON, over the host's limit of ${maxValueBytes} (orbit-restate serve --max-value-bytes)`;
    return { answer: { kind: ANSWER.FAIL, code: 'OUTPUT_TOO_LARGE', message: error, retryable: false }, error };
  }
  return { answer: { kind: ANSWER.OUTPUT, output: req?.output ?? null } };
}

/**
 * `fail`'s `{code, message, retryable}`: the answer, or `{refused}` (a code that is not an
 * error code). The code is WORKER_ERROR unless given; the message at most 64 KiB.
 * @returns {{answer: object} | {refused: string}}
 */
export function failed(req) {
  if (req?.code !== undefined && (typeof req.code !== 'string' || !CODE.test(req.code)))
    return { refused: '"code" must be an error code: letters, digits, _ . - (at most 200)' };
  return {
    answer: {
      kind: ANSWER.FAIL,
      code: req?.code ?? 'WORKER_ERROR',
      message: String(req?.message ?? '').slice(0, 65536),
      retryable: req?.retryable !== false,
    },
  };
}
