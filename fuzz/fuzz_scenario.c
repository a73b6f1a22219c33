/* libFuzzer target: raw bytes -> scenario parser of the reference runtime, and, when the
 * scenario is accepted, a whole run of it in virtual time (history written to a
 * discarded stream). The module is built once (fuzz_module.c): a worker with contracts,
 * the built-in HTTP task, a signal, a child workflow, a compensation.
 *
 * Bytes that start with `!` drive the engine core directly instead, as a careless or
 * hostile host would (run_events): each 4 bytes are an event of any kind, at a time that
 * only moves forward, for a timer or attempt the engine announced or any other id, with
 * any delivery and answer; with the flag 4, the host answers every child workflow itself
 * (EngineOptions.host_children) and events may answer those children. The engine must
 * survive every sequence.
 *
 * Built by meson with -Dfuzz=true (fuzz/build.sh); run with fuzz/run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "fuzz_module.h"
#include "sim.h"
#include "orbc.h"
#include "scenario.h"

static OrbcModule module;
static FILE *sink;

/* ---- events straight into the core ---- */

enum { KNOWN_MAX = 64 };

typedef struct Known {
    uint32_t timers[KNOWN_MAX], attempts[KNOWN_MAX], deliveries[KNOWN_MAX], children[KNOWN_MAX];
    uint32_t timer_count, attempt_count, child_count;
    bool finished;
} Known;

/* Remembers the ids the engine's commands announce (the last KNOWN_MAX of each). */
static void note_commands(const Engine *e, Known *k)
{
    size_t count;
    const EngineCommand *c = engine_commands(e, &count);
    for (size_t i = 0; i < count; i++, c++) {
        if (c->kind == ENGINE_START_TIMER)
            k->timers[k->timer_count++ % KNOWN_MAX] = c->timer;
        if (c->kind == ENGINE_QUEUE_ATTEMPT) {
            k->attempts[k->attempt_count % KNOWN_MAX] = c->attempt;
            k->deliveries[k->attempt_count++ % KNOWN_MAX] = c->delivery;
        }
        if (c->kind == ENGINE_START_CHILD)
            k->children[k->child_count++ % KNOWN_MAX] = c->child.id;
        if (c->kind == ENGINE_FINISHED)
            k->finished = true;
    }
}

static EngineAnswer fuzz_answer(Arena *a, uint8_t b)
{
    static const int64_t statuses[] = {200, 302, 404, 429, 500, 503};
    EngineAnswer answer = {.kind = b % 4, .retryable = (b & 4) != 0,
                           .status = statuses[(b >> 3) % 6],
                           .code = (b & 8) ? "DECLINED" : NULL, .message = (b & 16) ? "no" : NULL};
    Record *r = value_record_new(a, 1);
    r->names[0] = value_str_new(a, "charge_id", 9);
    r->values[0] = (b & 32) ? value_cstring(a, "ch_1") : value_int(b);
    value_record_seal(a, r);
    answer.output = (b & 64) ? value_null() : (Value){.kind = ORBC_KIND_RECORD, .rec = r};
    return answer;
}

static void run_events(const uint8_t *data, size_t size)
{
    Arena arena;
    arena_init(&arena);
    Record *r = value_record_new(&arena, 2);
    r->names[0] = value_str_new(&arena, "order_id", 8);
    r->values[0] = value_cstring(&arena, "A1");
    r->names[1] = value_str_new(&arena, "url", 3);
    r->values[1] = value_cstring(&arena, "http://localhost/");
    value_record_seal(&arena, r);
    uint8_t flags = size > 1 ? data[1] : 0;
    EngineOptions options = {.show_values = flags & 1, .http_adapter = !(flags & 2)};
    const uint8_t **hosted = NULL;
    if (flags & 4) {   /* every step hosted: only child-workflow steps heed it */
        hosted = arena_alloc(&arena, sizeof *hosted * (module.workflow_count + 1));
        for (uint32_t w = 0; w < module.workflow_count; w++) {
            uint8_t *steps = arena_alloc(&arena, module.workflows[w].step_count + 1);
            memset(steps, 1, module.workflows[w].step_count + 1);
            hosted[w] = steps;
        }
        options.host_children = hosted;
    }
    Engine *e = engine_new(&module, 0, (Value){.kind = ORBC_KIND_RECORD, .rec = r}, &options,
                           &arena);
    Known known = {0};
    engine_handle(e, &(EngineEvent){.kind = ENGINE_START});
    note_commands(e, &known);
    int64_t now = 0;
    for (size_t i = 2; i + 4 <= size && !known.finished; i += 4) {
        const uint8_t *b = data + i;
        now += b[1] < 200 ? b[1] : (int64_t)(b[1] - 199) * 1000;
        EngineEvent event = {.kind = b[0] % 8, .time_ms = now, .timer = b[2],
                             .attempt = b[2] % 8, .delivery = b[3] % 3, .worker_id = "w"};
        if (known.timer_count && b[0] & 8)
            event.timer = known.timers[b[2] % (known.timer_count < KNOWN_MAX ? known.timer_count : KNOWN_MAX)];
        if (known.attempt_count && b[0] & 16) {
            uint32_t k = b[2] % (known.attempt_count < KNOWN_MAX ? known.attempt_count : KNOWN_MAX);
            event.attempt = known.attempts[k];
            event.delivery = known.deliveries[k];
        }
        if (hosted && (b[0] & 64)) {
            event.kind = ENGINE_CHILD_ANSWERED;
            event.child = known.child_count && (b[0] & 128)
                              ? known.children[b[2] % (known.child_count < KNOWN_MAX ? known.child_count : KNOWN_MAX)]
                              : b[2] % 4;
        }
        event.answer = fuzz_answer(&arena, b[3]);
        event.signal = b[2];
        event.signal_name = (b[0] & 32) ? NULL : "approved";
        event.payload = value_int(b[3]);
        engine_handle(e, &event);
        note_commands(e, &known);
    }
    engine_free(e);
    arena_free(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!sink) {
        fuzz_runtime_module(&module);
        sink = fopen("/dev/null", "w");
    }
    if (size > 0 && data[0] == '!') {
        run_events(data, size);
        return 0;
    }
    Arena arena;
    arena_init(&arena);
    Scenario scenario;
    char err[2048];
    Value input;
    if (scenario_load("fuzz.json", (const char *)data, size, &module, "main", &arena, &scenario,
                      err, sizeof err) &&
        contract_conform(&module, &arena, module.workflows[0].input_type, scenario.input, &input,
                         err, sizeof err)) {
        History history;
        history_init(&history, sink, (size & 1) ? HISTORY_JSON : HISTORY_TEXT);
        RunOptions options = {.show_values = true};
        sim_run(&module, &scenario, input, &history, &options, &arena, NULL);
        history_free(&history);
    }
    arena_free(&arena);
    return 0;
}
