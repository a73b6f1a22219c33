/* Task steps and compensate blocks: the life of each attempt.
 *
 *   StepScheduled  the attempt is queued: ENGINE_QUEUE_ATTEMPT (queue_timeout counts
 *                  from here)
 *   StepDispatched a worker picked it up: ENGINE_PICKED_UP (timeout counts from here)
 *   then what the host reports: an answer (ENGINE_ANSWERED), a lost worker
 *   (ENGINE_WORKER_LOST: the task is queued again, same attempt, no queue timeout), or
 *   nothing at all; StepAttemptFailed, then RetryScheduled or the unit fails (StepFailed).
 *
 * A timed-out attempt that later succeeds is accepted while its unit is unresolved. */
#include "engine_internal.h"

#include <inttypes.h>
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

/* ---- attempts ---- */

static void queue_delivery(Attempt *a, bool first)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    size_t queued = outbox_queue(e, a);
    if (first && u->queue_timeout_ms > 0)
        e->commands[queued].queue_timer =
            outbox_timer(e, u->queue_timeout_ms, true, EV_QUEUE_TIMEOUT, a, 1);
}

static void attempt_failed(Attempt *a, const char *code, const char *message, bool retryable);

static void schedule_attempt(Unit *u, uint32_t number)
{
    Engine *e = u->exec->engine;
    Attempt *a = arena_alloc(e->arena, sizeof *a);
    if (e->attempt_count == e->attempt_cap)
        e->attempts = engine_grow(e->attempts, &e->attempt_cap, sizeof *e->attempts);
    e->attempts[e->attempt_count++] = a;
    a->id = (uint32_t)e->attempt_count;
    a->unit = u;
    a->number = number;
    a->state = A_QUEUED;
    a->delivery = 1;
    u->attempt = number;
    u->current = a;
    u->state = U_ACTIVE;
    outbox_event(e, "StepScheduled");
    outbox_str(e, "step", u->label);
    outbox_int(e, "attempt", number);
    if (u->key)
        outbox_str(e, "idempotency_key", u->key);
    if (e->options.show_values)
        outbox_shown_value(e, "input", u->input);
    if (is_builtin(u) && !e->options.http_adapter) {
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
    return orbc_retry_delay((OrbcBackoff)p->backoff, p->initial_delay_ms, p->max_delay_ms,
                            next_attempt);
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
    outbox_event(e, "StepAttemptFailed");
    outbox_str(e, "step", u->label);
    outbox_int(e, "attempt", a->number);
    outbox_error(e, code, message);
    const OrbcPolicy *p = u->policy;
    bool aborting = !u->compensation && engine_exec_aborting(u->exec);
    if (retryable && !listed_non_retryable(e, p, code) && a->number < p->attempts && !aborting) {
        int64_t delay = retry_delay(p, a->number + 1);
        outbox_event(e, "RetryScheduled");
        outbox_str(e, "step", u->label);
        outbox_int(e, "delay_ms", delay);
        u->state = U_RETRY_WAIT;
        u->gen++;
        outbox_timer(e, delay, false, EV_RETRY, u, u->gen);
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
    Value input = {.kind = ORBC_KIND_RECORD, .rec = value_record_new(e->arena, 0)};
    value_record_seal(e->arena, input.rec);
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
    schedule_attempt(u, 1);
}

void task_retry(Unit *u)
{
    schedule_attempt(u, u->attempt + 1);
}

/* ---- the timers of an attempt ---- */

static void on_pickup(Attempt *a, const char *worker_id)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    a->state = A_DISPATCHED;
    u->exec->inflight++;
    outbox_event(e, "StepDispatched");
    outbox_str(e, "step", u->label);
    outbox_int(e, "attempt", a->number);
    outbox_str(e, "worker_id", worker_id);
    if (u->timeout_ms > 0)
        outbox_timer(e, u->timeout_ms, true, EV_ATTEMPT_TIMEOUT, a, a->delivery);
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
    outbox_event(e, "StepRedelivered");
    outbox_str(e, "step", u->label);
    outbox_int(e, "attempt", a->number);
    a->state = A_QUEUED;
    a->delivery++;
    queue_delivery(a, false);
}

/* The output of a successful answer; false for a failure. */
static bool succeeded(const EngineAnswer *answer, Value *output)
{
    if (answer->kind == ENGINE_ANSWER_OUTPUT ||
        (answer->kind == ENGINE_ANSWER_HTTP_RESPONSE && answer->status < 400)) {
        *output = answer->output;
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

static void fail_with_answer(Attempt *a, const EngineAnswer *o)
{
    Engine *e = a->unit->exec->engine;
    if (o->kind == ENGINE_ANSWER_FAIL) {
        attempt_failed(a, o->code, o->message, o->retryable);
    } else if (o->kind == ENGINE_ANSWER_NETWORK_ERROR) {
        attempt_failed(a, "HTTP_ERROR", arena_printf(e->arena, "request failed: %s", o->message), true);
    } else {
        bool retryable = o->status >= 500 || o->status == 429;
        attempt_failed(a, "HTTP_ERROR",
                       arena_printf(e->arena, "request failed: status %" PRId64, o->status), retryable);
    }
}

/* A timed-out attempt answered. Success counts while the unit is unresolved. */
static void on_late_answer(Attempt *a, const EngineAnswer *answer)
{
    Unit *u = a->unit;
    Value output, checked;
    char why[512];
    bool open = u->state == U_ACTIVE || u->state == U_RETRY_WAIT;
    if (!open || u->exec->state == X_DONE || !succeeded(answer, &output) ||
        !output_conforms(u, output, &checked, why, sizeof why))
        return;
    Attempt *current = u->current;
    if (current && current != a && current->state == A_DISPATCHED)
        u->exec->inflight--;
    if (current && current != a && (current->state == A_QUEUED || current->state == A_DISPATCHED)) {
        current->state = A_CANCELLED;
        outbox_cancel(u->exec->engine, current);
    }
    a->state = A_DONE;
    engine_unit_completed(u, checked, a->number);
}

static void on_answer(Attempt *a, const EngineAnswer *answer)
{
    Unit *u = a->unit;
    Engine *e = u->exec->engine;
    u->exec->inflight--;
    a->state = A_DONE;
    Value output, checked;
    if (!succeeded(answer, &output)) {
        fail_with_answer(a, answer);
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

void task_timer(Engine *e, const EngineTimer *t)
{
    (void)e;
    Attempt *a = t->target;
    Unit *u = a->unit;
    switch (t->kind) {
    case EV_QUEUE_TIMEOUT:
        if (a->delivery == 1 && a->state == A_QUEUED && u->current == a && u->state == U_ACTIVE)
            on_queue_timeout(a);
        break;
    case EV_ATTEMPT_TIMEOUT:
        if (a->delivery == t->gen && a->state == A_DISPATCHED)
            on_attempt_timeout(a);
        break;
    default:
        break;
    }
}

/* A pickup, an answer, a lost worker or "no worker" from the host. */
bool task_event(Engine *e, const EngineEvent *event)
{
    if (event->attempt == 0 || event->attempt > e->attempt_count)
        return false;
    Attempt *a = e->attempts[event->attempt - 1];
    Unit *u = a->unit;
    bool current = a->delivery == event->delivery;
    switch (event->kind) {
    case ENGINE_PICKED_UP:
        if (!current || a->state != A_QUEUED || u->current != a || u->state != U_ACTIVE)
            return false;
        on_pickup(a, event->worker_id ? event->worker_id : "");
        return true;
    case ENGINE_ANSWERED: {
        EngineAnswer answer = event->answer;   /* a missing text is empty */
        answer.code = answer.code ? answer.code : "";
        answer.message = answer.message ? answer.message : "";
        if (current && a->state == A_DISPATCHED)
            on_answer(a, &answer);
        else if (current && a->state == A_TIMED_OUT)
            on_late_answer(a, &answer);
        return true;
    }
    case ENGINE_WORKER_LOST:
        if (current && a->state == A_DISPATCHED)
            on_lost(a);
        return true;
    case ENGINE_NO_WORKER:
        u->no_worker = true;
        return true;
    default:
        return false;
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
    if (a->state == A_QUEUED || a->state == A_DISPATCHED) {
        a->state = A_CANCELLED;
        outbox_cancel(u->exec->engine, a);
    }
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
