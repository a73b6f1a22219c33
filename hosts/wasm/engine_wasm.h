/* The engine core for JavaScript hosts (docs/engine.md, "In WebAssembly"): the functions
 * of engine_wasm.c that the WebAssembly build exports (WASM_EXPORT; the build reads this
 * file's marks into its export list), called by hosts/wasm/orbit-api.js. A host opens a
 * `.orbc` module, builds values on a small stack (wasm_push_*), sends events
 * (wasm_start, wasm_picked_up, …) and reads the commands of each as one JSON array
 * (wasm_commands). A record is given as its `orbit logs` line and as its JSON line of
 * `orbit-run --format json --show-values`, both written by orbit-run's own history writer
 * (runtime/history.c): the engine records values, which the text line leaves out.
 *
 * Texts in are NUL-terminated UTF-8; texts out belong to the handle. Times are
 * milliseconds as doubles (exact up to 2^53), ids are 32-bit. Everything a handle owns is
 * freed by wasm_close. */
#ifndef ORBIT_ENGINE_WASM_H
#define ORBIT_ENGINE_WASM_H

#include <stdint.h>

#include "attributes.h"

typedef struct WasmHost WasmHost;

/* ---- values, built by the host on a stack ---- */
WASM_EXPORT void wasm_push_null(WasmHost *h);
WASM_EXPORT void wasm_push_bool(WasmHost *h, int b);
WASM_EXPORT void wasm_push_int(WasmHost *h, double i);
WASM_EXPORT void wasm_push_number(WasmHost *h, double n);
WASM_EXPORT void wasm_push_string(WasmHost *h, const char *text);
/* The last `count` values become a list. */
WASM_EXPORT void wasm_push_list(WasmHost *h, uint32_t count);
/* The last `count` pairs (a name, pushed as a string, then its value) become a record. */
WASM_EXPORT void wasm_push_record(WasmHost *h, uint32_t count);

/* ---- opening and closing ---- */
/* A new handle: push the workflow's input, then wasm_open. */
WASM_EXPORT WasmHost *wasm_new(void);
/* Opens workflow `workflow` of the module in `bytes`, its input the value on the stack,
 * checked against the workflow's contract. Returns 0 (wasm_error says why) or 1. */
WASM_EXPORT int wasm_open(WasmHost *h, const uint8_t *bytes, uint32_t len, const char *workflow);
/* The names of the workflows of the module in `bytes`, as a JSON array of strings (what a
 * host may start), on a handle of its own that nothing else uses; NULL (wasm_error says
 * why) if the module does not load. */
WASM_EXPORT const char *wasm_workflows(WasmHost *h, const uint8_t *bytes, uint32_t len);
/* Replays a history (its JSON lines, runtime/replay.h) against the module in `bytes`, on a
 * handle of its own that nothing else uses: the JSON object of `orbit-run replay --format
 * json` for it (`history` named "-"), its `workflow` NEW's workflow to replay against ("":
 * the one the history names); NULL (wasm_error says why) when the module does not load or
 * the history is malformed or has no values. */
WASM_EXPORT const char *wasm_replay(WasmHost *h, const uint8_t *bytes, uint32_t len,
                                    const char *history, const char *workflow);
/* The places of a history (its JSON lines): a JSON array of place objects, sorted by id;
 * NULL (wasm_error says why) when the history is malformed. */
WASM_EXPORT const char *wasm_places(WasmHost *h, const char *history);
WASM_EXPORT const char *wasm_error(const WasmHost *h);
WASM_EXPORT void wasm_close(WasmHost *h);

/* ---- commands and events ---- */
/* The commands of the last event: a JSON array, valid until the next event. */
WASM_EXPORT const char *wasm_commands(WasmHost *h);
/* Each event returns 1 when the engine accepted it, else 0. */
WASM_EXPORT int wasm_start(WasmHost *h);
WASM_EXPORT int wasm_timer_fired(WasmHost *h, double time, uint32_t timer);
WASM_EXPORT int wasm_picked_up(WasmHost *h, double time, uint32_t attempt, uint32_t delivery,
                               const char *worker_id);
/* An answer of kind `kind`, an EngineAnswerKind (engine.h; in JavaScript the generated
 * hosts/wasm/engine-enums.js): an output (the value on the stack), a failure (`code`,
 * `message`, `retryable`), an HTTP response (`status`, the response record on the stack),
 * a network error (`message`). */
WASM_EXPORT int wasm_answered(WasmHost *h, double time, uint32_t attempt, uint32_t delivery,
                              int kind, const char *code, const char *message, int retryable,
                              int status);
WASM_EXPORT int wasm_worker_lost(WasmHost *h, double time, uint32_t attempt, uint32_t delivery);
/* A signal; its payload is the value on the stack. */
WASM_EXPORT int wasm_signal(WasmHost *h, double time, const char *name);
WASM_EXPORT int wasm_idle(WasmHost *h, double time);

/* ---- what the host has due, in the core's order ----
 * A host that waits in real time keeps what is due (the timers the engine started and the
 * events of its world, each with its time) in the handle's queue, so that the order of a
 * tie is the core's (engine/timers.c: by time, limits last, then the order added), never
 * written again in the host. `id` is the host's name for the thing (not 0). */
WASM_EXPORT void wasm_due_add(WasmHost *h, double time, int limit, uint32_t id);
/* The time of the first thing due, or -1 when nothing is. */
WASM_EXPORT double wasm_due_first(const WasmHost *h);
/* The first thing due at `up_to` or before, taken out of the queue; 0 if there is none. */
WASM_EXPORT uint32_t wasm_due_take(WasmHost *h, double up_to);

#endif
