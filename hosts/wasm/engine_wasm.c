/* The engine core for JavaScript hosts (docs/engine.md, "In WebAssembly"), compiled
 * with emscripten by hosts/wasm/build.sh. A host opens a `.orbc` module, builds values
 * on a small stack (wasm_push_*), sends events (wasm_start, wasm_picked_up, …) and reads
 * the commands of each as one JSON array (wasm_commands). A record is given as its
 * `orbit logs` line, written by orbit-run's own history writer (runtime/history.c).
 *
 * Times are milliseconds as doubles (exact up to 2^53), ids are 32-bit. Everything a
 * handle owns is freed by wasm_close. */
#include <emscripten.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "engine.h"
#include "history.h"

enum { STACK_MAX = 4096 };

typedef struct WasmHost {
    OrbcModule module;
    Arena arena;
    bool loaded;              /* `module` holds a module to free */
    Engine *engine;
    Value stack[STACK_MAX];
    uint32_t depth;
    TextBuffer json;          /* the commands of the last event */
    FILE *sink;               /* /dev/null: the history writer's line is read back */
    History history;
    const char *error;        /* why wasm_open failed */
} WasmHost;

static const char *const status_names[] = {"COMPLETED", "FAILED", "TIMED_OUT", "BLOCKED"};

/* ---- values, built by the host on a stack ---- */

static void push(WasmHost *h, Value v)
{
    if (h->depth < STACK_MAX)
        h->stack[h->depth++] = v;
}

static Value pop(WasmHost *h)
{
    return h->depth ? h->stack[--h->depth] : value_null();
}

EMSCRIPTEN_KEEPALIVE void wasm_push_null(WasmHost *h) { push(h, value_null()); }
EMSCRIPTEN_KEEPALIVE void wasm_push_bool(WasmHost *h, int b) { push(h, value_bool(b != 0)); }
EMSCRIPTEN_KEEPALIVE void wasm_push_int(WasmHost *h, double i) { push(h, value_int((int64_t)i)); }
EMSCRIPTEN_KEEPALIVE void wasm_push_number(WasmHost *h, double n) { push(h, value_number(n)); }

EMSCRIPTEN_KEEPALIVE void wasm_push_string(WasmHost *h, const char *text)
{
    push(h, value_cstring(&h->arena, text));
}

/* The last `count` values become a list. */
EMSCRIPTEN_KEEPALIVE void wasm_push_list(WasmHost *h, uint32_t count)
{
    count = count < h->depth ? count : h->depth;
    List *l = value_list_new(&h->arena, count);
    for (uint32_t i = count; i > 0; i--)
        l->items[i - 1] = pop(h);
    value_list_seal(&h->arena, l);
    push(h, (Value){.kind = ORBC_KIND_LIST, .list = l});
}

/* The last `count` pairs (a name, pushed as a string, then its value) become a record. */
EMSCRIPTEN_KEEPALIVE void wasm_push_record(WasmHost *h, uint32_t count)
{
    count = 2 * count < h->depth ? count : h->depth / 2;
    Record *r = value_record_new(&h->arena, count);
    for (uint32_t i = count; i > 0; i--) {
        r->values[i - 1] = pop(h);
        Value name = pop(h);
        r->names[i - 1] = name.kind == ORBC_KIND_STRING ? name.s : value_str_new(&h->arena, "", 0);
    }
    value_record_seal(&h->arena, r);
    push(h, (Value){.kind = ORBC_KIND_RECORD, .rec = r});
}

/* ---- opening and closing ---- */

static uint32_t find_workflow(const OrbcModule *m, const char *name)
{
    for (uint32_t i = 0; i < m->workflow_count; i++)
        if (strcmp(m->strings[m->workflows[i].name].text, name) == 0)
            return i;
    return m->workflow_count;
}

/* A new handle: push the workflow's input, then wasm_open. */
EMSCRIPTEN_KEEPALIVE WasmHost *wasm_new(void)
{
    WasmHost *h = xcalloc(1, sizeof *h);
    arena_init(&h->arena);
    return h;
}

/* Opens workflow `workflow` of the module in `bytes`, its input the value on the stack,
 * checked against the workflow's contract. Returns 0 (wasm_error says why) or 1. */
EMSCRIPTEN_KEEPALIVE int wasm_open(WasmHost *h, const uint8_t *bytes, uint32_t len,
                                   const char *workflow)
{
    if (h->loaded)
        return 0;
    OrbcError err;
    if (!orbc_load(bytes, len, &h->module, &err)) {
        h->error = arena_strndup(&h->arena, err.text, strlen(err.text));
        return 0;
    }
    h->loaded = true;
    uint32_t index = find_workflow(&h->module, workflow);
    if (index == h->module.workflow_count) {
        h->error = arena_printf(&h->arena, "the module has no workflow `%s`", workflow);
        return 0;
    }
    Value input, checked;
    input = h->depth ? pop(h) : value_null();
    char why[1024];
    if (!contract_conform(&h->module, &h->arena, h->module.workflows[index].input_type, input,
                          &checked, why, sizeof why)) {
        h->error = arena_printf(&h->arena, "the input does not match the contract of workflow "
                                "`%s`: %s", workflow, why);
        return 0;
    }
    h->sink = fopen("/dev/null", "w");
    if (!h->sink) {
        h->error = "cannot open /dev/null";
        return 0;
    }
    history_init(&h->history, h->sink, HISTORY_TEXT);
    EngineOptions options = {.http_adapter = true};
    h->engine = engine_new(&h->module, index, checked, &options, &h->arena);
    return 1;
}

/* The names of the workflows of the module in `bytes`, as a JSON array of strings (what a
 * host may start), on a handle of its own that nothing else uses; NULL (wasm_error says
 * why) if the module does not load. */
EMSCRIPTEN_KEEPALIVE const char *wasm_workflows(WasmHost *h, const uint8_t *bytes, uint32_t len)
{
    OrbcError err;
    if (h->loaded || !orbc_load(bytes, len, &h->module, &err)) {
        h->error = h->loaded ? "the handle has a module" : arena_strndup(&h->arena, err.text, strlen(err.text));
        return NULL;
    }
    h->loaded = true;
    h->json.len = 0;
    text_append_str(&h->json, "[");
    for (uint32_t i = 0; i < h->module.workflow_count; i++) {
        const char *name = h->module.strings[h->module.workflows[i].name].text;
        text_append_str(&h->json, i ? "," : "");
        value_json_quote(&h->json, name, strlen(name));
    }
    text_append_str(&h->json, "]");
    return h->json.data;
}

EMSCRIPTEN_KEEPALIVE const char *wasm_error(const WasmHost *h)
{
    return h->error;
}

EMSCRIPTEN_KEEPALIVE void wasm_close(WasmHost *h)
{
    if (!h)
        return;
    engine_free(h->engine);
    if (h->sink) {
        history_free(&h->history);
        fclose(h->sink);
    }
    if (h->loaded)
        orbc_module_free(&h->module);
    text_free(&h->json);
    arena_free(&h->arena);
    free(h);
}

/* ---- commands, as JSON ---- */

static void json_key(TextBuffer *b, const char *key)
{
    text_append_str(b, ",");
    value_json_quote(b, key, strlen(key));
    text_append_str(b, ":");
}

static void json_string(TextBuffer *b, const char *key, const char *text)
{
    json_key(b, key);
    if (text)
        value_json_quote(b, text, strlen(text));
    else
        text_append_str(b, "null");
}

static void record_json(WasmHost *h, const EngineRecord *r)
{
    history_write(&h->history, r);
    const TextBuffer *line = &h->history.line;   /* the line just written, with its LF */
    size_t len = line->len ? line->len - 1 : 0;
    text_append_str(&h->json, "{\"kind\":\"record\",\"event\":");
    value_json_quote(&h->json, r->event, strlen(r->event));
    json_key(&h->json, "text");
    value_json_quote(&h->json, line->data, len);
    text_append_str(&h->json, "}");
}

static void command_json(WasmHost *h, const EngineCommand *c)
{
    TextBuffer *b = &h->json;
    switch (c->kind) {
    case ENGINE_RECORD: record_json(h, &c->record); return;
    case ENGINE_START_TIMER:
        text_printf(b, "{\"kind\":\"timer\",\"timer\":%u,\"at_ms\":%lld,\"limit\":%s}",
                    (unsigned)c->timer, (long long)c->at_ms, c->limit ? "true" : "false");
        return;
    case ENGINE_QUEUE_ATTEMPT:
        text_printf(b, "{\"kind\":\"queue\",\"attempt\":%u,\"delivery\":%u,\"number\":%u,\"queue_timer\":%u",
                    (unsigned)c->attempt, (unsigned)c->delivery, (unsigned)c->task.number,
                    (unsigned)c->queue_timer);
        json_string(b, "task", h->module.strings[h->module.tasks[c->task.task].name].text);
        json_string(b, "step", c->task.label);
        json_key(b, "input");
        value_to_json(b, c->task.input);
        json_string(b, "idempotency_key", c->task.idempotency_key);
        text_append_str(b, "}");
        return;
    case ENGINE_CANCEL_ATTEMPT:
        text_printf(b, "{\"kind\":\"cancel\",\"attempt\":%u}", (unsigned)c->attempt);
        return;
    default:
        text_append_str(b, "{\"kind\":\"finished\",\"status\":");
        value_json_quote(b, status_names[c->result.status], strlen(status_names[c->result.status]));
        if (c->result.status == ENGINE_COMPLETED) {
            json_key(b, "output");
            value_to_json(b, c->result.output);
        }
        if (c->result.status == ENGINE_FAILED) {
            json_string(b, "error", c->result.error);
            json_string(b, "message", c->result.message);
            json_string(b, "step", c->result.step);
        }
        text_append_str(b, "}");
        return;
    }
}

/* The commands of the last event: a JSON array, valid until the next event. */
EMSCRIPTEN_KEEPALIVE const char *wasm_commands(WasmHost *h)
{
    size_t count = 0;
    const EngineCommand *commands = h->engine ? engine_commands(h->engine, &count) : NULL;
    h->json.len = 0;
    text_append_str(&h->json, "[");
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            text_append_str(&h->json, ",");
        command_json(h, &commands[i]);
    }
    text_append_str(&h->json, "]");
    return h->json.data;
}

/* ---- events ---- */

static int send(WasmHost *h, EngineEvent event, double time)
{
    if (!h->engine)
        return 0;
    /* A double may be out of int64's range (INT64_MAX itself is not a double). */
    event.time_ms = time >= 9223372036854775807.0 ? INT64_MAX : time > 0 ? (int64_t)time : 0;
    return engine_handle(h->engine, &event);
}

EMSCRIPTEN_KEEPALIVE int wasm_start(WasmHost *h)
{
    return send(h, (EngineEvent){.kind = ENGINE_START}, 0);
}

EMSCRIPTEN_KEEPALIVE int wasm_timer_fired(WasmHost *h, double time, uint32_t timer)
{
    return send(h, (EngineEvent){.kind = ENGINE_TIMER_FIRED, .timer = timer}, time);
}

EMSCRIPTEN_KEEPALIVE int wasm_picked_up(WasmHost *h, double time, uint32_t attempt,
                                        uint32_t delivery, const char *worker_id)
{
    const char *copy = arena_strndup(&h->arena, worker_id, strlen(worker_id));
    return send(h, (EngineEvent){.kind = ENGINE_PICKED_UP, .attempt = attempt,
                                 .delivery = delivery, .worker_id = copy}, time);
}

/* An answer: kind 0 an output (the value on the stack), 1 a failure, 2 an HTTP response
 * (`status`, the response record on the stack), 3 a network error (`message`). */
EMSCRIPTEN_KEEPALIVE int wasm_answered(WasmHost *h, double time, uint32_t attempt,
                                       uint32_t delivery, int kind, const char *code,
                                       const char *message, int retryable, int status)
{
    EngineAnswer answer = {
        .kind = (uint8_t)kind, .retryable = retryable != 0, .status = status,
        .code = arena_strndup(&h->arena, code, strlen(code)),
        .message = arena_strndup(&h->arena, message, strlen(message)),
    };
    if (kind == ENGINE_ANSWER_OUTPUT || kind == ENGINE_ANSWER_HTTP_RESPONSE)
        answer.output = pop(h);
    return send(h, (EngineEvent){.kind = ENGINE_ANSWERED, .attempt = attempt,
                                 .delivery = delivery, .answer = answer}, time);
}

EMSCRIPTEN_KEEPALIVE int wasm_worker_lost(WasmHost *h, double time, uint32_t attempt,
                                          uint32_t delivery)
{
    return send(h, (EngineEvent){.kind = ENGINE_WORKER_LOST, .attempt = attempt,
                                 .delivery = delivery}, time);
}

/* A signal; its payload is the value on the stack. */
EMSCRIPTEN_KEEPALIVE int wasm_signal(WasmHost *h, double time, const char *name)
{
    uint32_t index = 0;
    for (uint32_t i = 0; h->engine && i < h->module.string_count; i++)
        if (strcmp(h->module.strings[i].text, name) == 0)
            index = i;
    Value payload = pop(h);
    return send(h, (EngineEvent){.kind = ENGINE_SIGNAL, .signal = index,
                                 .signal_name = arena_strndup(&h->arena, name, strlen(name)),
                                 .payload = payload}, time);
}

EMSCRIPTEN_KEEPALIVE int wasm_idle(WasmHost *h, double time)
{
    return send(h, (EngineEvent){.kind = ENGINE_IDLE}, time);
}
