/* Task steps and compensate blocks: the life of each attempt in virtual time.
 *
 *   StepScheduled  the attempt is queued (queue_timeout counts from here)
 *   StepDispatched a worker picked it up after the pickup delay (timeout counts from here)
 *   then the scripted outcome: an answer after `after_ms`, a lost worker (the task is
 *   redelivered: same attempt, no queue timeout), or nothing at all;
 *   StepAttemptFailed, then RetryScheduled or the unit fails (StepFailed).
 *
 * A timed-out attempt that later succeeds is accepted while its unit is unresolved. */
#include "engine_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "contract.h"
#include "http.h"

static const char *task_name(const Unit *u)
{
    const Engine *e = u->exec->engine;
    return u->task < e->module->task_count ? engine_string(e, e->module->tasks[u->task].name) : "?";
}

static bool is_builtin(const Unit *u)
{
    const Engine *e = u->exec->engine;
    return u->task < e->module->task_count && e->module->tasks[u->task].kind == ORBC_TASK_BUILTIN;
}

static bool is_http_request(const Unit *u)
{
    return is_builtin(u) && strcmp(task_name(u), "orbit.http.request") == 0;
}

/* ---- where outcomes come from ---- */

static void resolve_script(Unit *u)
{
    Engine *e = u->exec->engine;
    Script **per_step = e->scenario->step_scripts[u->exec->wf_index];
    Script *step = per_step ? per_step[u->step_index] : NULL;
    if (u->compensation)
        step = step ? step->compensate : NULL;
    Script *task = u->task < e->module->task_count ? e->scenario->task_scripts[u->task] : NULL;
    u->script = step && step->has_outcomes ? step : task && task->has_outcomes ? task : NULL;
    u->worker_id = "worker-1";
    if (is_builtin(u))
        u->worker_id = "orbit-runtime";
    else if (step && step->worker_id)
        u->worker_id = step->worker_id;
    else if (task && task->worker_id)
        u->worker_id = task->worker_id;
    u->pickup_ms = step && step->pickup_ms >= 0 ? step->pickup_ms
                 : task && task->pickup_ms >= 0 ? task->pickup_ms : 0;
    u->no_worker = step && step->no_worker >= 0 ? step->no_worker
                 : task && task->no_worker >= 0 ? task->no_worker : false;
}

/* ---- attempts ---- */

static void queue_delivery(Attempt *a, bool first)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    a->outcome = script_next(u->script);
    int64_t pickup = u->pickup_ms;
    if (a->outcome && a->outcome->pickup_ms >= 0)
        pickup = a->outcome->pickup_ms;
    if (!u->no_worker)
        timers_push(&e->timers, engine_time_after(e->now, pickup), EV_PICKUP, a, a->delivery);
    if (first && u->queue_timeout_ms > 0)
        timers_push_limit(&e->timers, engine_time_after(e->now, u->queue_timeout_ms),
                          EV_QUEUE_TIMEOUT, a, 1);
}

static void attempt_failed(Attempt *a, const char *code, const char *message, bool retryable);

static void schedule_attempt(Unit *u, uint32_t number)
{
    Engine *e = u->exec->engine;
    Attempt *a = arena_alloc(e->arena, sizeof *a);
    a->unit = u;
    a->number = number;
    a->state = A_QUEUED;
    a->delivery = 1;
    u->attempt = number;
    u->current = a;
    u->state = U_ACTIVE;
    history_begin(e->history, e->now, "StepScheduled");
    history_str(e->history, "step", u->label);
    history_int(e->history, "attempt", number);
    if (u->key)
        history_str(e->history, "idempotency_key", u->key);
    if (e->options.show_values)
        history_value(e->history, "input", u->input);
    history_end(e->history);
    if (is_builtin(u) && !e->scenario->http_adapter) {
        a->state = A_DONE;
        attempt_failed(a, "ADAPTER_DISABLED",
                       arena_printf(e->arena, "the `%s` adapter is not enabled on this server",
                                    task_name(u)), false);
        return;
    }
    const char *invalid = is_http_request(u) ? http_request_problem(e->arena, u->input) : NULL;
    if (invalid) {
        a->state = A_DONE;
        attempt_failed(a, "HTTP_ERROR", invalid, false);
        return;
    }
    queue_delivery(a, true);
}

static int64_t retry_delay(const OrbcPolicy *p, uint32_t next_attempt)
{
    if (p->backoff != ORBC_BACKOFF_EXPONENTIAL)
        return p->initial_delay_ms;
    int64_t delay = p->initial_delay_ms;
    for (uint32_t n = 2; n < next_attempt && delay > 0 && delay < p->max_delay_ms; n++)
        delay = delay > p->max_delay_ms / 2 ? p->max_delay_ms : delay * 2;
    return delay < p->max_delay_ms ? delay : p->max_delay_ms;
}

static bool listed_non_retryable(const Engine *e, const OrbcPolicy *p, const char *code)
{
    size_t len = strlen(code);
    for (uint32_t i = 0; i < p->non_retryable_count; i++) {
        uint32_t s = p->non_retryable[i];
        if (s < e->module->string_count && e->module->strings[s].len == len &&
            memcmp(e->module->strings[s].text, code, len) == 0)
            return true;
    }
    return false;
}

static void attempt_failed(Attempt *a, const char *code, const char *message, bool retryable)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    history_begin(e->history, e->now, "StepAttemptFailed");
    history_str(e->history, "step", u->label);
    history_int(e->history, "attempt", a->number);
    history_error(e->history, code, message);
    history_end(e->history);
    const OrbcPolicy *p = u->policy;
    bool aborting = !u->compensation && engine_exec_aborting(u->exec);
    if (retryable && !listed_non_retryable(e, p, code) && a->number < p->attempts && !aborting) {
        int64_t delay = retry_delay(p, a->number + 1);
        history_begin(e->history, e->now, "RetryScheduled");
        history_str(e->history, "step", u->label);
        history_int(e->history, "delay_ms", delay);
        history_end(e->history);
        u->state = U_RETRY_WAIT;
        u->gen++;
        timers_push(&e->timers, engine_time_after(e->now, delay), EV_RETRY, u, u->gen);
        return;
    }
    if (p->attempts > 1 && a->number == p->attempts)
        message = arena_printf(e->arena, "%s%s(gave up after %" PRIu32 " attempts)", message,
                               *message ? " " : "", p->attempts);
    engine_unit_failed(u, code, message);
}

/* ---- starting a task ---- */

void task_start(Unit *u)
{
    Engine *e = u->exec->engine;
    const OrbcStep *s = u->step;
    uint32_t with_code = u->compensation ? s->compensate.with_code : s->with_code;
    uint32_t key_code = u->compensation ? s->compensate.key_code : s->key_code;
    u->task = u->compensation ? s->compensate.task : s->target;
    u->policy = u->compensation ? &s->compensate.policy : &s->policy;
    u->timeout_ms = u->compensation ? s->compensate.timeout_ms : s->timeout_ms;
    if (u->timeout_ms == 0 && u->task < e->module->task_count)
        u->timeout_ms = e->module->tasks[u->task].default_timeout_ms;   /* 30s for HTTP */
    u->queue_timeout_ms = u->compensation ? s->compensate.queue_timeout_ms : s->queue_timeout_ms;
    const char *err;
    Value input = {.kind = ORBC_KIND_RECORD, .rec = record_new(e->arena, 0)};
    record_seal(e->arena, input.rec);
    if (with_code != ORBC_NONE && !engine_eval_code(u, with_code, "with", &input, &err)) {
        engine_unit_failed(u, "EXPRESSION_ERROR", err);
        return;
    }
    if (key_code != ORBC_NONE) {
        Value key;
        if (!engine_eval_code(u, key_code, "idempotency_key", &key, &err)) {
            engine_unit_failed(u, "EXPRESSION_ERROR", err);
            return;
        }
        if (key.kind != ORBC_KIND_STRING) {
            engine_unit_failed(u, "EXPRESSION_ERROR",
                        engine_wrong_result(e, key_code, "idempotency_key", "a string", key));
            return;
        }
        u->key = key.s->text;
    }
    char why[512];
    uint32_t type = u->task < e->module->task_count ? e->module->tasks[u->task].input_type : ORBC_NONE;
    if (!contract_conform(e->module, e->arena, type, input, &u->input, why, sizeof why)) {
        engine_unit_failed(u, "INPUT_CONTRACT_VIOLATION",
                    arena_printf(e->arena, "input does not match the contract of `%s`: %s",
                                 task_name(u), why));
        return;
    }
    resolve_script(u);
    schedule_attempt(u, 1);
}

void task_retry(Unit *u)
{
    schedule_attempt(u, u->attempt + 1);
}

/* ---- the timers of an attempt ---- */

static void on_pickup(Attempt *a)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    a->state = A_DISPATCHED;
    u->exec->inflight++;
    history_begin(e->history, e->now, "StepDispatched");
    history_str(e->history, "step", u->label);
    history_int(e->history, "attempt", a->number);
    history_str(e->history, "worker_id", u->worker_id);
    history_end(e->history);
    const Outcome *o = a->outcome;
    if (!o)
        timers_push(&e->timers, engine_time_after(e->now, DEFAULT_ANSWER_MS), EV_ANSWER, a, a->delivery);
    else if (o->kind == OUT_LOST)
        timers_push(&e->timers, engine_time_after(e->now, o->after_ms), EV_LOST, a, a->delivery);
    else if (o->kind != OUT_NEVER)
        timers_push(&e->timers, engine_time_after(e->now, o->after_ms), EV_ANSWER, a, a->delivery);
    if (u->timeout_ms > 0)
        timers_push_limit(&e->timers, engine_time_after(e->now, u->timeout_ms),
                          EV_ATTEMPT_TIMEOUT, a, a->delivery);
}

static void on_lost(Attempt *a)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    u->exec->inflight--;
    if (!u->compensation && engine_exec_aborting(u->exec)) {
        a->state = A_CANCELLED;
        engine_unit_cancelled(u, a->number);
        return;
    }
    history_begin(e->history, e->now, "StepRedelivered");
    history_str(e->history, "step", u->label);
    history_int(e->history, "attempt", a->number);
    history_end(e->history);
    a->state = A_QUEUED;
    a->delivery++;
    queue_delivery(a, false);
}

static Value default_output(Unit *u)
{
    Engine *e = u->exec->engine;
    if (is_builtin(u)) {
        Record *r = record_new(e->arena, 3);
        r->names[0] = str_new(e->arena, "status", 6);
        r->values[0] = value_int(200);
        r->names[1] = str_new(e->arena, "headers", 7);
        r->values[1].kind = ORBC_KIND_RECORD;
        r->values[1].rec = record_new(e->arena, 0);
        record_seal(e->arena, r->values[1].rec);
        r->names[2] = str_new(e->arena, "body", 4);
        r->values[2] = value_null();
        record_seal(e->arena, r);
        Value v = {.kind = ORBC_KIND_RECORD, .rec = r};
        return v;
    }
    uint32_t type = u->task < e->module->task_count ? e->module->tasks[u->task].output_type : ORBC_NONE;
    return contract_default(e->module, e->arena, type);
}

/* The output of a successful outcome; false for a failure. */
static bool succeeded(Unit *u, const Outcome *o, Value *output)
{
    if (!o) {
        *output = default_output(u);
        return true;
    }
    if (o->kind == OUT_SUCCEED || (o->kind == OUT_HTTP_RESPONSE && o->status < 400)) {
        *output = o->output;
        return true;
    }
    return false;
}

/* Checks the output contract; false (with `why` filled) on a violation. */
static bool output_conforms(Unit *u, Value output, Value *checked, char *why, size_t len)
{
    Engine *e = u->exec->engine;
    uint32_t type = u->task < e->module->task_count ? e->module->tasks[u->task].output_type : ORBC_NONE;
    return contract_conform(e->module, e->arena, type, output, checked, why, len);
}

static void fail_with_outcome(Attempt *a, const Outcome *o)
{
    Engine *e = a->unit->exec->engine;
    if (o->kind == OUT_FAIL) {
        attempt_failed(a, o->code, o->message, o->retryable);
    } else if (o->kind == OUT_NETWORK_ERROR) {
        attempt_failed(a, "HTTP_ERROR", arena_printf(e->arena, "request failed: %s", o->message), true);
    } else {
        bool retryable = o->status >= 500 || o->status == 429;
        attempt_failed(a, "HTTP_ERROR",
                       arena_printf(e->arena, "request failed: status %" PRId64, o->status), retryable);
    }
}

/* A timed-out attempt answered. Success counts while the unit is unresolved. */
static void on_late_answer(Attempt *a)
{
    Unit *u = a->unit;
    Value output, checked;
    char why[512];
    bool open = u->state == U_ACTIVE || u->state == U_RETRY_WAIT;
    if (!open || u->exec->state == X_DONE || !succeeded(u, a->outcome, &output) ||
        !output_conforms(u, output, &checked, why, sizeof why))
        return;
    Attempt *current = u->current;
    if (current && current != a && current->state == A_DISPATCHED)
        u->exec->inflight--;
    if (current && current != a && (current->state == A_QUEUED || current->state == A_DISPATCHED))
        current->state = A_CANCELLED;
    a->state = A_DONE;
    engine_unit_completed(u, checked, a->number);
}

static void on_answer(Attempt *a)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    u->exec->inflight--;
    a->state = A_DONE;
    Value output, checked;
    if (!succeeded(u, a->outcome, &output)) {
        fail_with_outcome(a, a->outcome);
        return;
    }
    char why[512];
    if (!output_conforms(u, output, &checked, why, sizeof why)) {
        attempt_failed(a, "OUTPUT_CONTRACT_VIOLATION",
                       arena_printf(e->arena, "output does not match the contract of `%s`: %s",
                                    task_name(u), why), false);
        return;
    }
    engine_unit_completed(u, checked, a->number);
}

static void on_attempt_timeout(Attempt *a)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    char limit[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(limit, u->timeout_ms);
    u->exec->inflight--;
    a->state = A_TIMED_OUT;
    attempt_failed(a, "TIMEOUT",
                   arena_printf(e->arena, "the attempt did not finish within the step timeout of %s",
                                limit), true);
}

static void on_queue_timeout(Attempt *a)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    char limit[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(limit, u->queue_timeout_ms);
    a->state = A_DONE;
    attempt_failed(a, "QUEUE_TIMEOUT",
                   arena_printf(e->arena, "no worker picked the task up within the queue timeout of %s",
                                limit), false);
}

void task_timer(Engine *e, const Timer *t)
{
    (void)e;
    Attempt *a = t->target;
    Unit *u = a->unit;
    bool current = a->delivery == t->gen;
    switch (t->kind) {
    case EV_PICKUP:
        if (current && a->state == A_QUEUED && u->current == a && u->state == U_ACTIVE)
            on_pickup(a);
        break;
    case EV_QUEUE_TIMEOUT:
        if (a->delivery == 1 && a->state == A_QUEUED && u->current == a && u->state == U_ACTIVE)
            on_queue_timeout(a);
        break;
    case EV_LOST:
        if (current && a->state == A_DISPATCHED)
            on_lost(a);
        break;
    case EV_ATTEMPT_TIMEOUT:
        if (current && a->state == A_DISPATCHED)
            on_attempt_timeout(a);
        break;
    case EV_ANSWER:
        if (current && a->state == A_DISPATCHED)
            on_answer(a);
        else if (current && a->state == A_TIMED_OUT)
            on_late_answer(a);
        break;
    default:
        break;
    }
}

/* Stops what has not reached a worker yet (and, unless `keep_dispatched`, what has).
 * Returns true when the unit is now cancelled. */
bool task_cancel(Unit *u, bool keep_dispatched)
{
    if (u->state == U_RETRY_WAIT) {
        u->gen++;
        return true;
    }
    Attempt *a = u->current;
    if (!a)
        return true;
    if (a->state == A_DISPATCHED) {
        if (keep_dispatched)
            return false;
        u->exec->inflight--;
    }
    if (a->state == A_QUEUED || a->state == A_DISPATCHED)
        a->state = A_CANCELLED;
    return true;
}

const char *task_waiting(const Unit *u)
{
    const Attempt *a = u->current;
    if (a && a->state == A_DISPATCHED)
        return "waiting for an answer that never comes";
    if (u->no_worker)
        return "waiting for a worker, and none is running";
    return "waiting for a worker";
}
