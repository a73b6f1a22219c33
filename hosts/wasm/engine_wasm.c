/* The engine core for JavaScript hosts (engine_wasm.h, docs/engine.md, "In WebAssembly"),
 * compiled with the rest of the toolchain to WebAssembly by tools/playground_wasm.py (and
 * natively, so that the native build checks it). */
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "engine.h"
#include "engine_wasm.h"
#include "history.h"
#include "replay.h"
#include "timers.h"

enum { STACK_MAX = 4096 };

typedef struct WasmHost {
    OrbcModule module;
    Arena arena;
    bool loaded;              /* `module` holds a module to free */
    Engine *engine;
    Value stack[STACK_MAX];
    uint32_t depth;
    TextBuffer json;          /* the commands of the last event */
    History history;          /* writes nothing: its line is read back (zeroed until open) */
    History history_json;     /* the same records as `orbit-run --format json --show-values` */
    EngineField *plain;       /* a record's fields but those of `show_values` (record_json) */
    uint32_t plain_cap;
    const char *error;        /* why wasm_open failed */
    TimerQueue due;           /* the host's due things, in the core's tie order (wasm_due_*) */
} WasmHost;

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

void wasm_push_null(WasmHost *h) { push(h, value_null()); }
void wasm_push_bool(WasmHost *h, int b) { push(h, value_bool(b != 0)); }
void wasm_push_int(WasmHost *h, double i) { push(h, value_int((int64_t)i)); }
void wasm_push_number(WasmHost *h, double n) { push(h, value_number(n)); }

void wasm_push_string(WasmHost *h, const char *text)
{
    push(h, value_cstring(&h->arena, text));
}

void wasm_push_list(WasmHost *h, uint32_t count)
{
    count = count < h->depth ? count : h->depth;
    List *l = value_list_new(&h->arena, count);
    for (uint32_t i = count; i > 0; i--)
        l->items[i - 1] = pop(h);
    value_list_seal(&h->arena, l);
    push(h, (Value){.kind = ORBC_KIND_LIST, .list = l});
}

void wasm_push_record(WasmHost *h, uint32_t count)
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

WasmHost *wasm_new(void)
{
    WasmHost *h = xcalloc(1, sizeof *h);
    arena_init(&h->arena);
    return h;
}

int wasm_open(WasmHost *h, const uint8_t *bytes, uint32_t len,
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
    history_init(&h->history, NULL, HISTORY_TEXT);
    history_init(&h->history_json, NULL, HISTORY_JSON);
    /* Values are recorded for the JSON lines (`logs --format json`); the text lines leave
     * them out, as `orbit logs` without --show-values does. */
    EngineOptions options = {.http_adapter = true, .show_values = true};
    h->engine = engine_new(&h->module, index, checked, &options, &h->arena);
    return 1;
}

const char *wasm_workflows(WasmHost *h, const uint8_t *bytes, uint32_t len)
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

/* The JSON text of `j` (stolen) in the handle's buffer, or NULL with `err` as the error. */
static const char *json_out(WasmHost *h, json_t *j, const char *err)
{
    if (!j) {
        h->error = arena_strndup(&h->arena, err, strlen(err));
        return NULL;
    }
    char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(j);
    h->json.len = 0;
    text_append_str(&h->json, text ? text : "null");
    free(text);
    return h->json.data;
}

const char *wasm_replay(WasmHost *h, const uint8_t *bytes, uint32_t len, const char *history,
                        const char *workflow)
{
    OrbcError err;
    if (h->loaded || !orbc_load(bytes, len, &h->module, &err)) {
        h->error = h->loaded ? "the handle has a module" : arena_strndup(&h->arena, err.text, strlen(err.text));
        return NULL;
    }
    h->loaded = true;
    char problem[2048];
    ReplayHistory records;
    json_t *result = NULL;
    if (replay_read("-", history, strlen(history), &records, problem, sizeof problem)) {
        result = replay_run(&h->module, &records, "-", *workflow ? workflow : NULL, problem,
                            sizeof problem);
        replay_history_free(&records);
    }
    return json_out(h, result, problem);
}

const char *wasm_places(WasmHost *h, const char *history)
{
    char problem[2048];
    ReplayHistory records;
    json_t *places = NULL;
    if (replay_read("-", history, strlen(history), &records, problem, sizeof problem)) {
        places = replay_places(&records);
        replay_history_free(&records);
    }
    return json_out(h, places, problem);
}

const char *wasm_error(const WasmHost *h)
{
    return h->error;
}

void wasm_close(WasmHost *h)
{
    if (!h)
        return;
    engine_free(h->engine);
    history_free(&h->history);
    history_free(&h->history_json);
    free(h->plain);
    if (h->loaded)
        orbc_module_free(&h->module);
    text_free(&h->json);
    timers_free(&h->due);
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

static void json_text_field(TextBuffer *b, const char *key, const char *text)
{
    json_key(b, key);
    if (text)
        value_json_quote(b, text, strlen(text));
    else
        text_append_str(b, "null");
}

/* The line `history` just wrote, without its LF, as a JSON string after `key`. */
static void line_json(WasmHost *h, const char *key, const History *history)
{
    const TextBuffer *line = &history->line;
    json_key(&h->json, key);
    value_json_quote(&h->json, line->data, line->len ? line->len - 1 : 0);
}

/* A record as its `orbit logs` line (the fields of `show_values` left out) and as its
 * JSON line with them (`orbit-run --format json --show-values`). */
static void record_json(WasmHost *h, const EngineRecord *r)
{
    if (r->field_count > h->plain_cap) {
        h->plain_cap = r->field_count;
        h->plain = xrealloc(h->plain, h->plain_cap * sizeof *h->plain);
    }
    EngineRecord plain = *r;
    plain.fields = h->plain;
    plain.field_count = 0;
    for (uint32_t i = 0; i < r->field_count; i++)
        if (!r->fields[i].shown)
            h->plain[plain.field_count++] = r->fields[i];
    history_write(&h->history, &plain);
    history_write(&h->history_json, r);
    text_append_str(&h->json, "{\"kind\":\"record\",\"event\":");
    value_json_quote(&h->json, r->event, strlen(r->event));
    line_json(h, "text", &h->history);
    line_json(h, "json", &h->history_json);
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
        json_text_field(b, "task", h->module.strings[h->module.tasks[c->task.task].name].text);
        json_text_field(b, "step", c->task.label);
        json_key(b, "input");
        value_to_json(b, c->task.input);
        json_text_field(b, "idempotency_key", c->task.idempotency_key);
        text_append_str(b, "}");
        return;
    case ENGINE_CANCEL_ATTEMPT:
        text_printf(b, "{\"kind\":\"cancel\",\"attempt\":%u}", (unsigned)c->attempt);
        return;
    default: {
        text_append_str(b, "{\"kind\":\"finished\",\"status\":");
        const char *status = engine_status_name(c->result.status);
        value_json_quote(b, status, strlen(status));
        if (c->result.status == ENGINE_COMPLETED) {
            json_key(b, "output");
            value_to_json(b, c->result.output);
        }
        if (c->result.status == ENGINE_FAILED) {
            json_text_field(b, "error", c->result.error);
            json_text_field(b, "message", c->result.message);
            json_text_field(b, "step", c->result.step);
        }
        /* The closing line of `orbit-run --format json`, as runtime/run_scenario.c
         * writes it. */
        history_final(&h->history_json, status,
                      c->result.status == ENGINE_COMPLETED ? &c->result.output : NULL,
                      c->result.status == ENGINE_FAILED ? c->result.error : NULL,
                      c->result.message, c->result.step);
        line_json(h, "final", &h->history_json);
        text_append_str(b, "}");
        return;
    }
    }
}

const char *wasm_commands(WasmHost *h)
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

/* A host's time in milliseconds; a double may be out of int64's range (INT64_MAX itself
 * is not a double). */
static int64_t time_ms(double time)
{
    return time >= 9223372036854775807.0 ? INT64_MAX : time > 0 ? (int64_t)time : 0;
}

static int send(WasmHost *h, EngineEvent event, double time)
{
    if (!h->engine)
        return 0;
    event.time_ms = time_ms(time);
    return engine_handle(h->engine, &event);
}

int wasm_start(WasmHost *h)
{
    return send(h, (EngineEvent){.kind = ENGINE_START}, 0);
}

int wasm_timer_fired(WasmHost *h, double time, uint32_t timer)
{
    return send(h, (EngineEvent){.kind = ENGINE_TIMER_FIRED, .timer = timer}, time);
}

int wasm_picked_up(WasmHost *h, double time, uint32_t attempt,
                                        uint32_t delivery, const char *worker_id)
{
    const char *copy = arena_strndup(&h->arena, worker_id, strlen(worker_id));
    return send(h, (EngineEvent){.kind = ENGINE_PICKED_UP, .attempt = attempt,
                                 .delivery = delivery, .worker_id = copy}, time);
}

int wasm_answered(WasmHost *h, double time, uint32_t attempt,
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

int wasm_worker_lost(WasmHost *h, double time, uint32_t attempt,
                                          uint32_t delivery)
{
    return send(h, (EngineEvent){.kind = ENGINE_WORKER_LOST, .attempt = attempt,
                                 .delivery = delivery}, time);
}

int wasm_signal(WasmHost *h, double time, const char *name)
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

int wasm_idle(WasmHost *h, double time)
{
    return send(h, (EngineEvent){.kind = ENGINE_IDLE}, time);
}

/* ---- what the host has due, in the core's order ----
 * A host that waits in real time keeps what is due — the timers the engine started and
 * the events of its world, each with its time — in the handle's queue, so that the order
 * of a tie is the core's (engine/timers.c: by time, limits last, then the order added),
 * not written again in the host. `id` is the host's name for the thing (not 0). */

void wasm_due_add(WasmHost *h, double time, int limit, uint32_t id)
{
    timers_push(&h->due, time_ms(time), limit != 0, 0, id, 0);
}

/* The time of the first thing due, or -1 when nothing is. */
double wasm_due_first(const WasmHost *h)
{
    const Timer *first = timers_first(&h->due);
    return first ? (double)first->at : -1;
}

/* The first thing due at `up_to` or before, taken out of the queue; 0 if there is none. */
uint32_t wasm_due_take(WasmHost *h, double up_to)
{
    const Timer *first = timers_first(&h->due);
    Timer t;
    if (!first || first->at > time_ms(up_to) || !timers_pop(&h->due, &t))
        return 0;
    return t.id;
}
