// `orbit_http_PROGRAM`, the service that carries out `orbit.http.request`, the built-in task: one
// journaled action per attempt, whose result — a response or a network error, never an
// exception — goes to the execution's inbox as the attempt's answer (the engine maps it,
// docs/engine.md). The execution (execution.mjs) sends it the attempt once the engine has
// accepted its pickup by `orbit-runtime`.
import * as restate from '@restatedev/restate-sdk';
import { ANSWER } from './wasm.mjs';

/**
 * The HTTP service of a program (`names`: names.mjs programServices). Private to Restate
 * (`ingressPrivate`): only an execution asks it for a request — through the ingress it
 * would fetch any URL for anyone. `maxValueBytes`: the largest response body kept.
 */
export function httpService({ HTTP, INBOX }, { maxValueBytes = Infinity } = {}) {
  return restate.service({
    name: HTTP.name,
    options: { ingressPrivate: true },
    handlers: {
      /** `orbit.http.request` for one attempt; the answer goes to the execution's inbox. */
      request: async (ctx, req) => {
        if (typeof req?.inbox !== 'string' || typeof req?.input !== 'object' || req.input === null)
          throw new restate.TerminalError('request needs {inbox, attempt, delivery, input}', { errorCode: 400 });
        // One journaled action, never retried by Restate: every failure is an answer.
        const result = await ctx.run('request', () => httpRequest(req.input, maxValueBytes), { maxRetryAttempts: 1 });
        ctx.objectSendClient(INBOX, req.inbox).push({
          type: 'answered',
          at: await ctx.date.now(),
          attempt: req.attempt,
          delivery: req.delivery,
          answer: result,
        });
      },
    },
  });
}

/** `orbit.http.request` itself: an answer for the engine, never an exception. */
async function httpRequest(input, maxValueBytes) {
  try {
    const url = new URL(input.url);
    for (const [name, value] of Object.entries(input.query ?? {})) url.searchParams.append(name, String(value));
    const headers = { ...(input.headers ?? {}) };
    let body;
    if (input.body !== undefined && input.body !== null) {
      body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
      if (typeof input.body !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json';
      }
    }
    const response = await fetch(url, {
      method: input.method ?? 'GET',
      headers,
      body,
      signal: AbortSignal.timeout(60000),
    });
    const text = await response.text();
    if (Buffer.byteLength(text) > maxValueBytes)
      return {
        kind: ANSWER.NETWORK_ERROR,
        message: `the response body is over the host's limit of ${maxValueBytes} bytes (orbit-restate serve --max-value-bytes)`,
      };
    let parsed = text.length ? text : null;
    if ((response.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        /* the text itself */
      }
    }
    const output = { status: response.status, headers: Object.fromEntries(response.headers), body: parsed };
    return { kind: ANSWER.HTTP_RESPONSE, status: response.status, output };
  } catch (e) {
    return { kind: ANSWER.NETWORK_ERROR, message: String(e?.cause?.message ?? e?.message ?? e) };
  }
}
