/* Unit tests of the engine core (engine/, docs/engine.md) alone: no clock, no scenario,
 * no history writer. Each test drives one execution with hand-made events and compares
 * the commands of each event, written one per line:
 *
 *   + TIME Event key=value … [error=CODE message]     ENGINE_RECORD
 *   timer ID at TIME [limit]                          ENGINE_START_TIMER
 *   queue ATTEMPT.DELIVERY LABEL#NUMBER task=T        ENGINE_QUEUE_ATTEMPT
 *   cancel ATTEMPT                                    ENGINE_CANCEL_ATTEMPT
 *   child ID workflow=W LABEL input=JSON              ENGINE_START_CHILD
 *   finished STATUS [ERROR]                           ENGINE_FINISHED
 *
 * The modules are made with liborbc's builder (tests/unit/test_runtime_fixture.h). */
#define _GNU_SOURCE
#include <check.h>
#include <inttypes.h>

#include "engine.h"
#include "test_runtime_fixture.h"
#include "timers.h"

/* ---- one module for every test ---- */

enum { WF_RETRY, WF_QUEUE, WF_LOST, WF_SIGNAL, WF_INNER, WF_CHILD, WF_DEADLINE };

static OrbcModule module;
static const char *const status_names[] = {"COMPLETED", "FAILED", "TIMED_OUT", "BLOCKED"};

static void setup(void)
{
    Fx *f = fx_new();
    uint32_t empty = fx_record(f, "");
    uint32_t charge = fx_task(f, "payments.charge", false, fx_record(f, "order_id:string"),
                              fx_record(f, "charge_id:string"), 0);

    OrbcStep *s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A1 rec:order_id");
    fx_retry(s, 3, ORBC_BACKOFF_EXPONENTIAL, 100, 60000);
    fx_workflow(f, "retry", empty, 0, fx_code(f, "step:0 field:charge_id"));

    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A1 rec:order_id");
    fx_retry(s, 3, ORBC_BACKOFF_FIXED, 1000, 60000);
    s->queue_timeout_ms = 2000;
    fx_workflow(f, "queue", empty, 0, ORBC_NONE);

    s = fx_step(f, "charge", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "s:A1 rec:order_id");
    s->timeout_ms = 500;
    fx_workflow(f, "lost", empty, 0, ORBC_NONE);

    s = fx_step(f, "approval", ORBC_STEP_AWAIT, fx_str(f, "approved"));
    s->timeout_ms = 1000;
    fx_workflow(f, "signal", empty, 0, fx_code(f, "step:0"));

    s = fx_step(f, "pick", ORBC_STEP_WORKER, charge);
    s->with_code = fx_code(f, "input field:sku rec:order_id");
    fx_workflow(f, "inner", fx_record(f, "sku:string"), 0, fx_code(f, "step:0 field:charge_id"));

    s = fx_step(f, "pack", ORBC_STEP_WORKFLOW, WF_INNER);
    s->with_code = fx_code(f, "s:X rec:sku");
    s->timeout_ms = 3000;
    fx_workflow(f, "child", empty, 0, fx_code(f, "step:0"));

    s = fx_step(f, "nap", ORBC_STEP_SLEEP, ORBC_NONE);
    s->value_code = fx_code(f, "d:5000");
    fx_workflow(f, "deadline", empty, 1000, ORBC_NONE);

    fx_load(f, &module);
    free(f);
}

static void teardown(void)
{
    orbc_module_free(&module);
}

/* ---- a driver that writes the commands as text ---- */

typedef struct Driver {
    Arena arena;
    Engine *engine;
    TextBuffer text;
    bool accepted;
} Driver;

static void start_with(Driver *d, uint32_t workflow, const EngineOptions *options)
{
    arena_init(&d->arena);
    memset(&d->text, 0, sizeof d->text);
    Value input = {.kind = ORBC_KIND_RECORD, .rec = value_record_new(&d->arena, 0)};
    value_record_seal(&d->arena, input.rec);
    d->engine = engine_new(&module, workflow, input, options, &d->arena);
    ck_assert_ptr_nonnull(d->engine);
}

static void start(Driver *d, uint32_t workflow)
{
    start_with(d, workflow, &(EngineOptions){.http_adapter = true});
}

static void stop(Driver *d)
{
    engine_free(d->engine);
    text_free(&d->text);
    arena_free(&d->arena);
}

static void write_record(TextBuffer *out, const EngineRecord *r)
{
    text_printf(out, "+ %" PRId64 " %s", r->time_ms, r->event);
    for (uint32_t i = 0; i < r->field_count; i++) {
        const EngineField *f = &r->fields[i];
        switch (f->kind) {
        case ENGINE_FIELD_STR: text_printf(out, " %s=%s", f->key, f->text); break;
        case ENGINE_FIELD_INT: text_printf(out, " %s=%" PRId64, f->key, f->number); break;
        case ENGINE_FIELD_VALUE:
            text_printf(out, " %s=", f->key);
            value_to_json(out, f->value);
            break;
        case ENGINE_FIELD_ERROR: text_printf(out, " error=%s %s", f->text, f->message); break;
        default: text_printf(out, " %s", f->text); break;
        }
    }
}

/* Handles `event` at `time` and returns its commands as text (valid until the next). */
static const char *send(Driver *d, int64_t time, EngineEvent event)
{
    event.time_ms = time;
    d->accepted = engine_handle(d->engine, &event);
    size_t count;
    const EngineCommand *c = engine_commands(d->engine, &count);
    d->text.len = 0;
    text_append(&d->text, "", 0);
    for (size_t i = 0; i < count; i++, c++) {
        if (i > 0)
            text_append(&d->text, "\n", 1);
        switch (c->kind) {
        case ENGINE_RECORD: write_record(&d->text, &c->record); break;
        case ENGINE_START_TIMER:
            text_printf(&d->text, "timer %" PRIu32 " at %" PRId64 "%s", c->timer, c->at_ms,
                        c->limit ? " limit" : "");
            break;
        case ENGINE_QUEUE_ATTEMPT:
            text_printf(&d->text, "queue %" PRIu32 ".%" PRIu32 " %s#%" PRIu32 " task=%" PRIu32,
                        c->attempt, c->delivery, c->task.label, c->task.number, c->task.task);
            break;
        case ENGINE_CANCEL_ATTEMPT: text_printf(&d->text, "cancel %" PRIu32, c->attempt); break;
        case ENGINE_START_CHILD:
            text_printf(&d->text, "child %" PRIu32 " workflow=%" PRIu32 " %s input=", c->child.id,
                        c->child.workflow, c->child.label);
            value_to_json(&d->text, c->child.input);
            break;
        default:
            text_printf(&d->text, "finished %s", status_names[c->result.status]);
            if (c->result.error)
                text_printf(&d->text, " %s", c->result.error);
            break;
        }
    }
    return d->text.data;
}

static EngineEvent timer(uint32_t id)
{
    return (EngineEvent){.kind = ENGINE_TIMER_FIRED, .timer = id};
}

static EngineEvent pickup(uint32_t attempt, uint32_t delivery)
{
    return (EngineEvent){.kind = ENGINE_PICKED_UP, .attempt = attempt, .delivery = delivery,
                         .worker_id = "w1"};
}

static EngineEvent failure(uint32_t attempt, const char *code, bool retryable)
{
    return (EngineEvent){.kind = ENGINE_ANSWERED, .attempt = attempt, .delivery = 1,
                         .answer = {.kind = ENGINE_ANSWER_FAIL, .code = code,
                                    .message = "card declined", .retryable = retryable}};
}

static EngineEvent success(Driver *d, uint32_t attempt, uint32_t delivery, const char *id)
{
    Record *r = value_record_new(&d->arena, 1);
    r->names[0] = value_str_new(&d->arena, "charge_id", 9);
    r->values[0] = value_cstring(&d->arena, id);
    value_record_seal(&d->arena, r);
    return (EngineEvent){.kind = ENGINE_ANSWERED, .attempt = attempt, .delivery = delivery,
                         .answer = {.kind = ENGINE_ANSWER_OUTPUT,
                                    .output = {.kind = ORBC_KIND_RECORD, .rec = r}}};
}

static const EngineEvent start_event = {.kind = ENGINE_START};

/* ---- the tests ---- */

/* Two retryable failures, exponential backoff from 100 ms (100, then 200), then success. */
START_TEST(retry_schedule)
{
    Driver d;
    start(&d, WF_RETRY);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=retry\n"
        "+ 0 StepScheduled step=charge attempt=1\n"
        "queue 1.1 charge#1 task=0");
    ck_assert_str_eq(send(&d, 0, pickup(1, 1)),
        "+ 0 StepDispatched step=charge attempt=1 worker_id=w1");
    ck_assert(d.accepted);
    ck_assert_str_eq(send(&d, 7, failure(1, "BUSY", true)),
        "+ 7 StepAttemptFailed step=charge attempt=1 error=BUSY card declined\n"
        "+ 7 RetryScheduled step=charge delay_ms=100\n"
        "timer 1 at 107");
    ck_assert_str_eq(send(&d, 107, timer(1)),
        "+ 107 StepScheduled step=charge attempt=2\n"
        "queue 2.1 charge#2 task=0");
    send(&d, 110, pickup(2, 1));
    ck_assert_str_eq(send(&d, 111, failure(2, "BUSY", true)),
        "+ 111 StepAttemptFailed step=charge attempt=2 error=BUSY card declined\n"
        "+ 111 RetryScheduled step=charge delay_ms=200\n"
        "timer 2 at 311");
    /* An answer for an attempt that is over changes nothing. */
    ck_assert_str_eq(send(&d, 200, failure(1, "BUSY", true)), "");
    ck_assert(!d.accepted);
    send(&d, 311, timer(2));
    send(&d, 311, pickup(3, 1));
    ck_assert_str_eq(send(&d, 320, success(&d, 3, 1, "ch_1")),
        "+ 320 StepCompleted step=charge attempt=3\n"
        "+ 320 WorkflowCompleted workflow=retry output=\"ch_1\"\n"
        "finished COMPLETED");
    ck_assert_str_eq(send(&d, 400, timer(1)), "");
    ck_assert(!d.accepted);
    stop(&d);
}
END_TEST

/* A non-retryable failure ends the step at once: no RetryScheduled, no suffix. */
START_TEST(not_retryable)
{
    Driver d;
    start(&d, WF_RETRY);
    send(&d, 0, start_event);
    send(&d, 0, pickup(1, 1));
    ck_assert_str_eq(send(&d, 5, failure(1, "DECLINED", false)),
        "+ 5 StepAttemptFailed step=charge attempt=1 error=DECLINED card declined\n"
        "+ 5 StepFailed step=charge error=DECLINED card declined\n"
        "+ 5 WorkflowFailed workflow=retry step=charge error=DECLINED card declined\n"
        "finished FAILED DECLINED");
    stop(&d);
}
END_TEST

/* No worker within the queue timeout: QUEUE_TIMEOUT, never retried; a pickup after it
 * is stale. */
START_TEST(queue_timeout)
{
    Driver d;
    start(&d, WF_QUEUE);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=queue\n"
        "+ 0 StepScheduled step=charge attempt=1\n"
        "queue 1.1 charge#1 task=0\n"
        "timer 1 at 2000 limit");
    ck_assert_str_eq(send(&d, 2000, timer(1)),
        "+ 2000 StepAttemptFailed step=charge attempt=1 error=QUEUE_TIMEOUT no worker picked "
        "the task up within the queue timeout of 2s\n"
        "+ 2000 StepFailed step=charge error=QUEUE_TIMEOUT no worker picked the task up within "
        "the queue timeout of 2s\n"
        "+ 2000 WorkflowFailed workflow=queue step=charge error=QUEUE_TIMEOUT no worker picked "
        "the task up within the queue timeout of 2s\n"
        "finished FAILED QUEUE_TIMEOUT");
    ck_assert_str_eq(send(&d, 2001, pickup(1, 1)), "");
    ck_assert(!d.accepted);
    stop(&d);
}
END_TEST

/* A lost worker: the same attempt is queued again (delivery 2), with a fresh timeout from
 * its new dispatch; the old delivery's answer and timeout are stale. */
START_TEST(lost_worker_redelivered)
{
    Driver d;
    start(&d, WF_LOST);
    send(&d, 0, start_event);
    ck_assert_str_eq(send(&d, 10, pickup(1, 1)),
        "+ 10 StepDispatched step=charge attempt=1 worker_id=w1\n"
        "timer 1 at 510 limit");
    ck_assert_str_eq(send(&d, 100, (EngineEvent){.kind = ENGINE_WORKER_LOST, .attempt = 1,
                                                 .delivery = 1}),
        "+ 100 StepRedelivered step=charge attempt=1\n"
        "queue 1.2 charge#1 task=0");
    ck_assert_str_eq(send(&d, 120, success(&d, 1, 1, "old")), "");
    ck_assert_str_eq(send(&d, 130, pickup(1, 2)),
        "+ 130 StepDispatched step=charge attempt=1 worker_id=w1\n"
        "timer 2 at 630 limit");
    ck_assert_str_eq(send(&d, 510, timer(1)), "");
    ck_assert(!d.accepted);
    ck_assert_str_eq(send(&d, 600, success(&d, 1, 2, "ch_2")),
        "+ 600 StepCompleted step=charge attempt=1\n"
        "+ 600 WorkflowCompleted workflow=lost output=null\n"
        "finished COMPLETED");
    stop(&d);
}
END_TEST

/* A signal completes the await step with its payload; one that comes first is kept. */
START_TEST(signal_received)
{
    Driver d;
    start(&d, WF_SIGNAL);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=signal\n"
        "+ 0 SignalWaitStarted step=approval signal=approved timeout_ms=1000\n"
        "timer 1 at 1000 limit");
    uint32_t name = 0;
    for (uint32_t i = 0; i < module.string_count; i++)
        if (strcmp(module.strings[i].text, "approved") == 0)
            name = i;
    EngineEvent signal = {.kind = ENGINE_SIGNAL, .signal = name, .signal_name = "approved",
                          .payload = value_int(42)};
    ck_assert_str_eq(send(&d, 400, signal),
        "+ 400 SignalReceived signal=approved\n"
        "+ 400 StepCompleted step=approval\n"
        "+ 400 WorkflowCompleted workflow=signal output=42\n"
        "finished COMPLETED");
    stop(&d);

    start(&d, WF_SIGNAL);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=signal\n"
        "+ 0 SignalWaitStarted step=approval signal=approved timeout_ms=1000\n"
        "timer 1 at 1000 limit");
    ck_assert_str_eq(send(&d, 1000, timer(1)),
        "+ 1000 StepFailed step=approval error=SIGNAL_TIMEOUT no signal `approved` arrived "
        "within the timeout of 1s\n"
        "+ 1000 WorkflowFailed workflow=signal step=approval error=SIGNAL_TIMEOUT no signal "
        "`approved` arrived within the timeout of 1s\n"
        "finished FAILED SIGNAL_TIMEOUT");
    stop(&d);
}
END_TEST

/* A child workflow runs inside its parent's engine: its attempts carry the parent step's
 * prefix, and its result completes the parent step. */
START_TEST(child_workflow)
{
    Driver d;
    start(&d, WF_CHILD);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=child\n"
        "+ 0 ChildWorkflowStarted step=pack workflow=inner\n"
        "timer 1 at 3000 limit\n"
        "+ 0 StepScheduled step=pack/pick attempt=1\n"
        "queue 1.1 pack/pick#1 task=0");
    send(&d, 5, pickup(1, 1));
    ck_assert_str_eq(send(&d, 20, success(&d, 1, 1, "ch_X")),
        "+ 20 StepCompleted step=pack/pick attempt=1\n"
        "+ 20 ChildWorkflowCompleted step=pack workflow=inner\n"
        "+ 20 StepCompleted step=pack\n"
        "+ 20 WorkflowCompleted workflow=child output=\"ch_X\"\n"
        "finished COMPLETED");
    stop(&d);

    /* The step timeout cancels the child and its queued attempt. */
    start(&d, WF_CHILD);
    send(&d, 0, start_event);
    ck_assert_str_eq(send(&d, 3000, timer(1)),
        "cancel 1\n"
        "+ 3000 StepCancelled step=pack/pick attempt=1\n"
        "+ 3000 ChildWorkflowCancelled step=pack workflow=inner\n"
        "+ 3000 StepFailed step=pack error=TIMEOUT the child workflow `inner` did not finish "
        "within the step timeout of 3s\n"
        "+ 3000 WorkflowFailed workflow=child step=pack error=TIMEOUT the child workflow "
        "`inner` did not finish within the step timeout of 3s\n"
        "finished FAILED TIMEOUT");
    ck_assert_str_eq(send(&d, 3001, pickup(1, 1)), "");
    stop(&d);
}
END_TEST

/* A child the host answers (EngineOptions.host_children): the step's events and no
 * events of the child's own, its output or failure from the host, a stale answer, and
 * the step timeout. */
START_TEST(host_child)
{
    static const uint8_t pack[] = {1};
    const uint8_t *hosted[WF_DEADLINE + 1] = {[WF_CHILD] = pack};
    EngineOptions options = {.http_adapter = true, .host_children = hosted};
    Driver d;
    start_with(&d, WF_CHILD, &options);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=child\n"
        "+ 0 ChildWorkflowStarted step=pack workflow=inner\n"
        "child 1 workflow=4 pack input={\"sku\":\"X\"}\n"
        "timer 1 at 3000 limit");
    EngineEvent done = {.kind = ENGINE_CHILD_ANSWERED, .child = 1,
                        .answer = {.kind = ENGINE_ANSWER_OUTPUT, .output = value_cstring(&d.arena, "B-1")}};
    ck_assert_str_eq(send(&d, 40, (EngineEvent){.kind = ENGINE_CHILD_ANSWERED, .child = 2}), "");
    ck_assert(!d.accepted);
    ck_assert_str_eq(send(&d, 40, done),
        "+ 40 ChildWorkflowCompleted step=pack workflow=inner\n"
        "+ 40 StepCompleted step=pack\n"
        "+ 40 WorkflowCompleted workflow=child output=\"B-1\"\n"
        "finished COMPLETED");
    stop(&d);

    start_with(&d, WF_CHILD, &options);
    send(&d, 0, start_event);
    EngineEvent failed = {.kind = ENGINE_CHILD_ANSWERED, .child = 1,
                          .answer = {.kind = ENGINE_ANSWER_FAIL, .code = "OUT_OF_STOCK", .message = "none left"}};
    ck_assert_str_eq(send(&d, 7, failed),
        "+ 7 ChildWorkflowFailed step=pack workflow=inner error=OUT_OF_STOCK none left\n"
        "+ 7 StepFailed step=pack error=OUT_OF_STOCK none left\n"
        "+ 7 WorkflowFailed workflow=child step=pack error=OUT_OF_STOCK none left\n"
        "finished FAILED OUT_OF_STOCK");
    stop(&d);

    /* The step timeout cancels it; its answer after that is stale. */
    start_with(&d, WF_CHILD, &options);
    send(&d, 0, start_event);
    ck_assert_str_eq(send(&d, 3000, timer(1)),
        "+ 3000 ChildWorkflowCancelled step=pack workflow=inner\n"
        "+ 3000 StepFailed step=pack error=TIMEOUT the child workflow `inner` did not finish "
        "within the step timeout of 3s\n"
        "+ 3000 WorkflowFailed workflow=child step=pack error=TIMEOUT the child workflow "
        "`inner` did not finish within the step timeout of 3s\n"
        "finished FAILED TIMEOUT");
    stop(&d);

    /* Nothing else can happen while it has not answered: blocked, waiting for it. */
    start_with(&d, WF_CHILD, &options);
    send(&d, 0, start_event);
    ck_assert_str_eq(send(&d, 0, (EngineEvent){.kind = ENGINE_IDLE}),
        "+ 0 WorkflowBlocked workflow=child step=pack waiting for the child workflow `inner`, "
        "whose script never answers\n"
        "finished BLOCKED");
    stop(&d);
}
END_TEST

/* The workflow deadline cancels a sleep; nothing else can happen, and no event is
 * accepted after the end. */
START_TEST(deadline_and_idle)
{
    Driver d;
    start(&d, WF_DEADLINE);
    ck_assert_str_eq(send(&d, 0, start_event),
        "+ 0 WorkflowStarted workflow=deadline\n"
        "timer 1 at 1000 limit\n"
        "+ 0 TimerStarted step=nap duration_ms=5000\n"
        "timer 2 at 5000");
    ck_assert_str_eq(send(&d, 1000, timer(1)),
        "+ 1000 WorkflowTimeoutReached workflow=deadline timeout_ms=1000\n"
        "+ 1000 StepCancelled step=nap\n"
        "+ 1000 WorkflowTimedOut workflow=deadline timeout_ms=1000\n"
        "finished TIMED_OUT TIMEOUT");
    ck_assert_str_eq(send(&d, 5000, timer(2)), "");
    ck_assert_str_eq(send(&d, 5000, (EngineEvent){.kind = ENGINE_IDLE}), "");
    ck_assert(!d.accepted);
    stop(&d);
}
END_TEST

/* An attempt no worker takes: when nothing else can happen, the run is blocked, and the
 * reason says why. */
START_TEST(blocked_without_worker)
{
    Driver d;
    start(&d, WF_RETRY);
    send(&d, 0, start_event);
    ck_assert_str_eq(send(&d, 0, (EngineEvent){.kind = ENGINE_NO_WORKER, .attempt = 1}), "");
    ck_assert(d.accepted);
    ck_assert_str_eq(send(&d, 0, (EngineEvent){.kind = ENGINE_IDLE}),
        "+ 0 WorkflowBlocked workflow=retry step=charge waiting for a worker, and none is running\n"
        "finished BLOCKED");
    stop(&d);
}
END_TEST

/* The same events give the same commands: nothing depends on a clock or on an earlier
 * engine. */
START_TEST(deterministic)
{
    char *runs[2];
    for (int run = 0; run < 2; run++) {
        Driver d;
        start(&d, WF_RETRY);
        TextBuffer all = {0};
        const char *step;
        step = send(&d, 0, start_event);
        text_append_str(&all, step);
        step = send(&d, 3, pickup(1, 1));
        text_append_str(&all, step);
        step = send(&d, 9, failure(1, "BUSY", true));
        text_append_str(&all, step);
        step = send(&d, 109, timer(1));
        text_append_str(&all, step);
        runs[run] = strdup(all.data);
        text_free(&all);
        stop(&d);
    }
    ck_assert_str_eq(runs[0], runs[1]);
    free(runs[0]);
    free(runs[1]);
}
END_TEST

/* The tie order of what a host has due (engine/timers.c), the one rule orbit-run and the
 * Restate host (through hosts/wasm's wasm_due_*) both follow: by time; at one
 * millisecond, every limit after everything else; then in the order added — an event of
 * the world (never a limit) takes its place among the timers by time and arrival. */
START_TEST(due_order)
{
    enum { WORLD, TIMER };
    TimerQueue q = {0};
    ck_assert_ptr_null(timers_first(&q));
    timers_push(&q, 5, true, TIMER, 1, 0);     /* a timeout at 5, set first */
    timers_push(&q, 5, false, WORLD, 2, 0);    /* a pickup stamped 5 */
    timers_push(&q, 7, false, TIMER, 3, 0);    /* a later sleep */
    timers_push(&q, 5, false, TIMER, 4, 0);    /* a backoff at 5, set after the pickup */
    timers_push(&q, 3, false, WORLD, 5, 0);    /* an answer stamped 3, arrived last */
    timers_push(&q, 5, true, TIMER, 6, 0);     /* a second limit at 5 */
    const uint32_t order[] = {5, 2, 4, 1, 6, 3};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        const Timer *first = timers_first(&q);
        ck_assert_ptr_nonnull(first);
        uint32_t id = first->id;
        Timer t;
        ck_assert(timers_pop(&q, &t));
        ck_assert_uint_eq(t.id, id);
        ck_assert_uint_eq(t.id, order[i]);
    }
    ck_assert_ptr_null(timers_first(&q));
    timers_free(&q);
}
END_TEST

static Suite *engine_suite(void)
{
    Suite *s = suite_create("engine");
    TCase *tc = tcase_create("events");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_add_test(tc, retry_schedule);
    tcase_add_test(tc, not_retryable);
    tcase_add_test(tc, queue_timeout);
    tcase_add_test(tc, lost_worker_redelivered);
    tcase_add_test(tc, signal_received);
    tcase_add_test(tc, child_workflow);
    tcase_add_test(tc, host_child);
    tcase_add_test(tc, deadline_and_idle);
    tcase_add_test(tc, blocked_without_worker);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, due_order);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(engine_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
