/* The engine core: executions of workflows, their steps in order, `when` and `for`,
 * sleeps, signals, child workflows, aborting (a failed step or the workflow timeout),
 * compensations in reverse order of completion, and the events a host sends.
 *
 * Work that an event makes possible runs from a ready list of executions, never by
 * recursion, before engine_handle returns. */
#include "engine_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

int64_t engine_time_after(int64_t now, int64_t delay)
{
    if (delay < 0)
        delay = 0;
    return delay > INT64_MAX - now ? INT64_MAX : now + delay;
}

void *engine_grow(void *items, size_t *cap, size_t size)
{
    *cap = *cap ? *cap * 2 : 16;
    return xrealloc(items, *cap * size);
}

const char *engine_string(const Engine *e, uint32_t index)
{
    return index < e->module->string_count ? e->module->strings[index].text : "?";
}

void engine_ready_push(Engine *e, Exec *x)
{
    if (x->in_ready)
        return;
    x->in_ready = true;
    if (e->ready_head + e->ready_count == e->ready_cap) {
        if (e->ready_head > 0) {
            memmove(e->ready, e->ready + e->ready_head, e->ready_count * sizeof *e->ready);
            e->ready_head = 0;
        } else {
            e->ready = engine_grow(e->ready, &e->ready_cap, sizeof *e->ready);
        }
    }
    e->ready[e->ready_head + e->ready_count++] = x;
}

bool engine_exec_aborting(const Exec *x)
{
    return x->state != X_RUNNING;
}

static const char *wf_name(const Exec *x)
{
    return engine_string(x->engine, x->wf->name);
}

/* ---- expressions ---- */

bool engine_eval_code(Unit *u, uint32_t code, const char *what, Value *out, const char **err)
{
    Exec *x = u->exec;
    Engine *e = x->engine;
    EvalScope scope = {
        .input = x->input,
        .steps = x->results,
        .step_count = x->wf->step_count,
        .item = u->element >= 0 ? &u->item : NULL,
    };
    char text[1024];
    if (vm_eval(e->vm, code, &scope, out, text, sizeof text))
        return true;
    *err = arena_printf(e->arena, "`%s`: %s", what, text);
    return false;
}

const char *engine_wrong_result(Engine *e, uint32_t code, const char *what, const char *expected,
                         Value found)
{
    return arena_printf(e->arena, "`%s`: %s: expected %s, found %s", what,
                        vm_code_position(e->vm, code), expected, value_kind_name(found));
}

static bool eval_step_code(Exec *x, uint32_t code, const char *what, Value *out, const char **err)
{
    Unit probe = {.exec = x, .element = -1};
    return engine_eval_code(&probe, code, what, out, err);
}

/* ---- small event helpers ---- */

static void event_step(Engine *e, const char *event, const char *label)
{
    outbox_event(e, event);
    outbox_str(e, "step", label);
}

static void child_event(Exec *child, const char *event)
{
    Engine *e = child->engine;
    event_step(e, event, child->parent_unit->label);
    outbox_str(e, "workflow", wf_name(child));
}

/* ---- executions ---- */

static Exec *exec_new(Engine *e, uint32_t wf_index, Value input, Unit *parent_unit)
{
    Exec *x = arena_alloc(e->arena, sizeof *x);
    x->engine = e;
    x->wf_index = wf_index;
    x->wf = &e->module->workflows[wf_index];
    x->input = input;
    x->results = arena_alloc(e->arena, sizeof(Value) * (x->wf->step_count + 1));
    x->parent_unit = parent_unit;
    x->prefix = "";
    if (parent_unit) {
        x->parent = parent_unit->exec;
        x->depth = x->parent->depth + 1;
        x->prefix = arena_printf(e->arena, "%s/", parent_unit->label);
    }
    if (e->exec_count == e->exec_cap)
        e->execs = engine_grow(e->execs, &e->exec_cap, sizeof *e->execs);
    e->execs[e->exec_count++] = x;
    if (x->wf->timeout_ms > 0)
        outbox_timer(e, x->wf->timeout_ms, true, EV_DEADLINE, x, 0);
    engine_ready_push(e, x);
    return x;
}

static void exec_finish(Exec *x, uint8_t end, Value output);
static void exec_cancel(Exec *x);

static void exec_abort(Exec *x, uint8_t end, const char *code, const char *message,
                       const char *step);

/* ---- units ---- */

/* The `step=` of step `s` of execution `x`: its name after the execution's prefix
 * ("pack[0]/"); the name itself, with nothing to format, in a top execution. */
static const char *step_label(Engine *e, const Exec *x, const OrbcStep *s)
{
    const char *name = engine_string(e, s->name);
    return *x->prefix ? arena_printf(e->arena, "%s%s", x->prefix, name) : name;
}

static Unit *unit_new(Exec *x, uint32_t step_index, int64_t element)
{
    Engine *e = x->engine;
    Unit *u = arena_alloc(e->arena, sizeof *u);
    const OrbcStep *s = &x->wf->steps[step_index];
    u->exec = x;
    u->step = s;
    u->step_index = step_index;
    u->element = element;
    if (element >= 0)
        u->label = arena_printf(e->arena, "%s%s[%" PRId64 "]", x->prefix, engine_string(e, s->name), element);
    else
        u->label = step_label(e, x, s);
    return u;
}

static void step_complete(Exec *x)
{
    Engine *e = x->engine;
    const OrbcStep *s = x->active;
    Value result = x->units[0]->result;
    if (s->for_code != ORBC_NONE) {
        List *l = value_list_new(e->arena, x->unit_count);
        for (uint32_t i = 0; i < x->unit_count; i++)
            l->items[i] = x->units[i]->result;
        value_list_seal(e->arena, l);
        result.kind = ORBC_KIND_LIST;
        result.list = l;
        event_step(e, "StepCompleted", step_label(e, x, s));
        if (e->options.show_values)
            outbox_shown_value(e, "output", result);
    }
    x->results[x->active_index] = result;
    if (s->has_compensate) {
        if (x->completed_count == x->completed_cap) {
            size_t cap = x->completed_cap;
            x->completed = engine_grow(x->completed, &cap, sizeof *x->completed);
            x->completed_cap = (uint32_t)cap;
        }
        x->completed[x->completed_count++] = x->active_index;
    }
}

/* A unit of the running step reached an end (done, failed or cancelled). */
static void unit_resolved(Unit *u)
{
    Exec *x = u->exec;
    if (u->compensation) {
        x->compensating = NULL;
        engine_ready_push(x->engine, x);
        return;
    }
    x->pending--;
    if (u->state == U_DONE)
        x->done_count++;
    if (x->pending > 0)
        return;
    if (x->done_count == x->unit_count)
        step_complete(x);
    x->active = NULL;
    engine_ready_push(x->engine, x);
}

void engine_unit_completed(Unit *u, Value result, uint32_t attempt)
{
    Engine *e = u->exec->engine;
    u->state = U_DONE;
    u->gen++;
    u->result = result;
    event_step(e, u->compensation ? "CompensationCompleted" : "StepCompleted",
               u->compensation ? u->owner_label : u->label);
    if (attempt)
        outbox_int(e, "attempt", attempt);
    if (e->options.show_values && !u->compensation)
        outbox_shown_value(e, "output", result);
    unit_resolved(u);
}

void engine_unit_failed(Unit *u, const char *code, const char *message)
{
    Exec *x = u->exec;
    Engine *e = x->engine;
    u->state = U_FAILED;
    u->gen++;
    event_step(e, u->compensation ? "CompensationFailed" : "StepFailed",
               u->compensation ? u->owner_label : u->label);
    outbox_error(e, code, message);
    if (!u->compensation)
        exec_abort(x, END_FAILED, code, message, u->label);
    unit_resolved(u);
}

void engine_unit_cancelled(Unit *u, uint32_t attempt)
{
    Engine *e = u->exec->engine;
    u->state = U_CANCELLED;
    u->gen++;
    event_step(e, "StepCancelled", u->label);
    if (attempt)
        outbox_int(e, "attempt", attempt);
    unit_resolved(u);
}

/* ---- sleeps, signals, computations, children ---- */

static void sleep_start(Unit *u)
{
    Engine *e = u->exec->engine;
    Value d;
    const char *err;
    if (!engine_eval_code(u, u->step->value_code, "sleep", &d, &err)) {
        engine_unit_failed(u, "EXPRESSION_ERROR", err);
        return;
    }
    if ((d.kind != ORBC_KIND_DURATION && d.kind != ORBC_KIND_INT) || d.i < 0) {
        engine_unit_failed(u, "EXPRESSION_ERROR",
                    engine_wrong_result(e, u->step->value_code, "sleep", "a duration that is not negative",
                                 d));
        return;
    }
    u->state = U_ACTIVE;
    event_step(e, "TimerStarted", u->label);
    outbox_int(e, "duration_ms", d.i);
    outbox_timer(e, d.i, false, EV_SLEEP, u, u->gen);
}

static SignalBox *signal_box(Engine *e, uint32_t name)
{
    if (!e->boxes[name])
        e->boxes[name] = arena_alloc(e->arena, sizeof(SignalBox));
    return e->boxes[name];
}

static void await_start(Unit *u)
{
    Engine *e = u->exec->engine;
    uint32_t name = u->step->target < e->module->string_count ? u->step->target : 0;
    u->state = U_ACTIVE;
    event_step(e, "SignalWaitStarted", u->label);
    outbox_str(e, "signal", engine_string(e, u->step->target));
    if (u->step->timeout_ms > 0)
        outbox_int(e, "timeout_ms", u->step->timeout_ms);
    SignalBox *box = signal_box(e, name);
    if (box->head < box->count) {
        engine_unit_completed(u, box->payloads[box->head++], 0);
        return;
    }
    if (box->whead + box->wcount == box->wcap)
        box->waiters = engine_grow(box->waiters, &box->wcap, sizeof *box->waiters);
    box->waiters[box->whead + box->wcount++] = u;
    if (u->step->timeout_ms > 0)
        outbox_timer(e, u->step->timeout_ms, true, EV_AWAIT_TIMEOUT, u, u->gen);
}

static void on_signal(Engine *e, const EngineEvent *sig)
{
    uint32_t name = sig->signal < e->module->string_count ? sig->signal : 0;
    outbox_event(e, "SignalReceived");
    outbox_str(e, "signal", sig->signal_name ? sig->signal_name : engine_string(e, name));
    if (e->options.show_values)
        outbox_shown_value(e, "payload", sig->payload);
    SignalBox *box = signal_box(e, name);
    while (box->wcount > 0) {
        Unit *u = box->waiters[box->whead++];
        box->wcount--;
        if (u->state == U_ACTIVE && u->exec->state != X_DONE) {
            engine_unit_completed(u, sig->payload, 0);
            return;
        }
    }
    if (box->count == box->cap) {
        box->payloads = engine_grow(box->payloads, &box->cap, sizeof *box->payloads);
    }
    box->payloads[box->count++] = sig->payload;
}

static void compute_start(Unit *u)
{
    Value v;
    const char *err;
    if (!engine_eval_code(u, u->step->value_code, "compute", &v, &err)) {
        engine_unit_failed(u, "EXPRESSION_ERROR", err);
        return;
    }
    engine_unit_completed(u, v, 0);
}

/* ---- children the host answers (EngineOptions.host_children) ---- */

static const char *child_wf_name(const Unit *u)
{
    Engine *e = u->exec->engine;
    return engine_string(e, e->module->workflows[u->step->target].name);
}

static void host_child_event(const Unit *u, const char *event)
{
    Engine *e = u->exec->engine;
    event_step(e, event, u->label);
    outbox_str(e, "workflow", child_wf_name(u));
}

static bool host_answers(const Engine *e, const Unit *u)
{
    const uint8_t *const *hosted = e->options.host_children;
    return hosted && hosted[u->exec->wf_index] && hosted[u->exec->wf_index][u->step_index];
}

/* The step's usual events, ChildWorkflowStarted and then how the child ended, and no
 * events of the child's own: the host answers for it. */
static void host_child_start(Unit *u, uint32_t target, Value input)
{
    Engine *e = u->exec->engine;
    if (e->host_child_count == e->host_child_cap)
        e->host_children = engine_grow(e->host_children, &e->host_child_cap, sizeof *e->host_children);
    e->host_children[e->host_child_count++] = u;
    u->host_child = (uint32_t)e->host_child_count;
    u->state = U_ACTIVE;
    host_child_event(u, "ChildWorkflowStarted");
    outbox_start_child(e, u, target, input);
    if (u->step->timeout_ms > 0)
        outbox_timer(e, u->step->timeout_ms, true, EV_CHILD_TIMEOUT, u, u->gen);
}

/* The host's answer for a child: an output, checked against the child workflow's output
 * contract as its `return` value would be, or a failure. */
static bool on_child_answered(Engine *e, const EngineEvent *event)
{
    if (event->child == 0 || event->child > e->host_child_count)
        return false;
    Unit *u = e->host_children[event->child - 1];
    if (u->state != U_ACTIVE || u->exec->state == X_DONE)
        return false;
    const EngineAnswer *a = &event->answer;
    const char *code, *message;
    if (a->kind == ENGINE_ANSWER_OUTPUT) {
        const OrbcWorkflow *wf = &e->module->workflows[u->step->target];
        char why[512];
        Value checked;
        if (contract_conform(e->module, e->arena, wf->output_type, a->output, &checked, why, sizeof why)) {
            host_child_event(u, "ChildWorkflowCompleted");
            engine_unit_completed(u, checked, 0);
            return true;
        }
        code = "OUTPUT_CONTRACT_VIOLATION";
        message = arena_printf(e->arena, "output does not match the contract of workflow `%s`: %s",
                               child_wf_name(u), why);
    } else if (a->kind == ENGINE_ANSWER_FAIL) {
        code = a->code ? a->code : "";
        message = a->message ? a->message : "";
    } else {
        return false;
    }
    host_child_event(u, "ChildWorkflowFailed");
    outbox_error(e, code, message);
    engine_unit_failed(u, code, message);
    return true;
}

static void child_start(Unit *u)
{
    Exec *x = u->exec;
    Engine *e = x->engine;
    uint32_t target = u->step->target;
    const char *err;
    Value input = {.kind = ORBC_KIND_RECORD, .rec = value_record_new(e->arena, 0)};
    value_record_seal(e->arena, input.rec);
    if (u->step->with_code != ORBC_NONE &&
        !engine_eval_code(u, u->step->with_code, "with", &input, &err)) {
        engine_unit_failed(u, "EXPRESSION_ERROR", err);
        return;
    }
    if (target >= e->module->workflow_count) {
        engine_unit_failed(u, "EXPRESSION_ERROR", "the child workflow does not exist");
        return;
    }
    const OrbcWorkflow *wf = &e->module->workflows[target];
    char why[512];
    Value checked;
    if (!contract_conform(e->module, e->arena, wf->input_type, input, &checked, why, sizeof why)) {
        engine_unit_failed(u, "INPUT_CONTRACT_VIOLATION",
                    arena_printf(e->arena, "input does not match the contract of workflow `%s`: %s",
                                 engine_string(e, wf->name), why));
        return;
    }
    if (host_answers(e, u)) {
        host_child_start(u, target, checked);
        return;
    }
    if (x->depth + 1 > MAX_CHILD_DEPTH || e->exec_count >= MAX_EXECUTIONS) {
        engine_unit_failed(u, "WORKFLOW_LIMIT_EXCEEDED",
                    x->depth + 1 > MAX_CHILD_DEPTH
                        ? arena_printf(e->arena, "child workflows nest deeper than %d levels",
                                       MAX_CHILD_DEPTH)
                        : arena_printf(e->arena, "a run may start at most %d workflow executions",
                                       MAX_EXECUTIONS));
        return;
    }
    u->state = U_ACTIVE;
    u->child = exec_new(e, target, checked, u);
    child_event(u->child, "ChildWorkflowStarted");
    if (u->step->timeout_ms > 0)
        outbox_timer(e, u->step->timeout_ms, true, EV_CHILD_TIMEOUT, u, u->gen);
}

static void unit_start(Unit *u)
{
    switch (u->step->kind) {
    case ORBC_STEP_WORKER:
    case ORBC_STEP_BUILTIN: task_start(u); break;
    case ORBC_STEP_WORKFLOW: child_start(u); break;
    case ORBC_STEP_SLEEP: sleep_start(u); break;
    case ORBC_STEP_AWAIT: await_start(u); break;
    default: compute_start(u); break;
    }
}

/* ---- steps ---- */

static void step_fail_early(Exec *x, const char *label, const char *message)
{
    Engine *e = x->engine;
    event_step(e, "StepFailed", label);
    outbox_error(e, "EXPRESSION_ERROR", message);
    exec_abort(x, END_FAILED, "EXPRESSION_ERROR", message, label);
}

static void step_start(Exec *x, uint32_t index)
{
    Engine *e = x->engine;
    const OrbcStep *s = &x->wf->steps[index];
    const char *label = step_label(e, x, s);
    const char *err;
    Value v;
    if (s->when_code != ORBC_NONE) {
        if (!eval_step_code(x, s->when_code, "when", &v, &err))
            return step_fail_early(x, label, err);
        if (v.kind != ORBC_KIND_BOOL)
            return step_fail_early(x, label, engine_wrong_result(e, s->when_code, "when", "a bool", v));
        if (!v.b) {
            event_step(e, "StepSkipped", label);
            x->results[index] = value_null();
            return;
        }
    }
    uint32_t count = 1;
    List *items = NULL;
    if (s->for_code != ORBC_NONE) {
        if (!eval_step_code(x, s->for_code, "for", &v, &err))
            return step_fail_early(x, label, err);
        if (v.kind != ORBC_KIND_LIST)
            return step_fail_early(x, label, engine_wrong_result(e, s->for_code, "for", "a list", v));
        items = v.list;
        count = items->count;
    }
    x->active = s;
    x->active_index = index;
    x->unit_count = count;
    x->pending = count;
    x->done_count = 0;
    x->units = arena_alloc(e->arena, sizeof(Unit *) * (count + 1));
    for (uint32_t i = 0; i < count; i++) {
        x->units[i] = unit_new(x, index, items ? (int64_t)i : -1);
        if (items)
            x->units[i]->item = items->items[i];
    }
    if (count == 0) {
        event_step(e, "StepCompleted", label);
        x->results[index] = v;
        x->active = NULL;
        return;
    }
    for (uint32_t i = 0; i < count && x->state == X_RUNNING; i++)
        unit_start(x->units[i]);
}

/* ---- ending an execution ---- */

static void unit_stop(Unit *u, bool keep_dispatched)
{
    switch (u->state) {
    case U_NEW:
        u->state = U_CANCELLED;
        unit_resolved(u);
        return;
    case U_RETRY_WAIT:
    case U_ACTIVE:
        break;
    default:
        return;
    }
    uint32_t attempt = 0;
    if (u->compensation || u->step->kind <= ORBC_STEP_BUILTIN) {
        bool was_retry_wait = u->state == U_RETRY_WAIT;
        if (!task_cancel(u, keep_dispatched))
            return;
        attempt = was_retry_wait ? 0 : u->attempt;
    } else if (u->step->kind == ORBC_STEP_WORKFLOW && u->child) {
        exec_cancel(u->child);
        child_event(u->child, "ChildWorkflowCancelled");
    } else if (u->step->kind == ORBC_STEP_WORKFLOW && u->host_child) {
        host_child_event(u, "ChildWorkflowCancelled");
    }
    engine_unit_cancelled(u, attempt);
}

static void exec_abort(Exec *x, uint8_t end, const char *code, const char *message,
                       const char *step)
{
    if (x->state != X_RUNNING)
        return;
    x->state = X_ABORTING;
    x->end = end;
    x->err_code = code;
    x->err_message = message;
    x->err_step = step;
    if (x->active) {
        Unit **units = x->units;
        uint32_t count = x->unit_count;
        for (uint32_t i = 0; i < count; i++)
            unit_stop(units[i], true);
    }
    engine_ready_push(x->engine, x);
}

/* Hard cancellation of a child: nothing is waited for, nothing compensated. */
static void exec_cancel(Exec *x)
{
    x->state = X_DONE;
    x->end = END_CANCELLED;
    if (x->compensating)
        unit_stop(x->compensating, false);
    if (x->active) {
        Unit **units = x->units;
        uint32_t count = x->unit_count;
        for (uint32_t i = 0; i < count; i++)
            unit_stop(units[i], false);
    }
}

static void compensate_next(Exec *x)
{
    Engine *e = x->engine;
    while (!x->compensating && x->compensate_next > 0 && x->state == X_COMPENSATING) {
        uint32_t index = x->completed[--x->compensate_next];
        Unit *u = unit_new(x, index, -1);
        u->compensation = true;
        u->owner_label = u->label;
        u->label = arena_printf(e->arena, "%s.compensate", u->owner_label);
        event_step(e, "CompensationStarted", u->owner_label);
        x->compensating = u;
        task_start(u);
    }
    if (!x->compensating && x->compensate_next == 0 && x->state == X_COMPENSATING)
        exec_finish(x, x->end, value_null());
}

static void exec_return(Exec *x)
{
    Engine *e = x->engine;
    Value output = value_null(), checked;
    const char *err;
    if (x->wf->return_code != ORBC_NONE &&
        !eval_step_code(x, x->wf->return_code, "return", &output, &err)) {
        exec_abort(x, END_FAILED, "EXPRESSION_ERROR", err, NULL);
        return;
    }
    char why[512];
    if (!contract_conform(e->module, e->arena, x->wf->output_type, output, &checked, why, sizeof why)) {
        exec_abort(x, END_FAILED, "OUTPUT_CONTRACT_VIOLATION",
                   arena_printf(e->arena, "output does not match the contract of workflow `%s`: %s",
                                wf_name(x), why), NULL);
        return;
    }
    exec_finish(x, END_COMPLETED, checked);
}

static void finish_top(Exec *x, Value output)
{
    Engine *e = x->engine;
    static const char *const events[] = {"WorkflowCompleted", "WorkflowFailed", "WorkflowTimedOut"};
    outbox_event(e, events[x->end]);
    outbox_str(e, "workflow", wf_name(x));
    if (x->end == END_COMPLETED) {
        outbox_value(e, "output", output);
    } else if (x->end == END_TIMED_OUT) {
        outbox_int(e, "timeout_ms", x->wf->timeout_ms);
    } else {
        if (x->err_step)
            outbox_str(e, "step", x->err_step);
        outbox_error(e, x->err_code, x->err_message);
    }
}

static void finish_child(Exec *x, Value output)
{
    Engine *e = x->engine;
    Unit *u = x->parent_unit;
    if (u->state != U_ACTIVE || u->child != x)
        return;
    static const char *const events[] = {
        "ChildWorkflowCompleted", "ChildWorkflowFailed", "ChildWorkflowTimedOut",
    };
    child_event(x, events[x->end]);
    if (x->end == END_FAILED)
        outbox_error(e, x->err_code, x->err_message);
    if (x->end == END_COMPLETED) {
        engine_unit_completed(u, output, 0);
    } else if (x->end == END_FAILED) {
        engine_unit_failed(u, x->err_code, x->err_message);
    } else {
        char limit[ORBC_DURATION_TEXT_SIZE];
        orbc_format_duration(limit, x->wf->timeout_ms);
        engine_unit_failed(u, "TIMEOUT", arena_printf(e->arena, "the child workflow `%s` timed out after %s",
                                               wf_name(x), limit));
    }
}

static void exec_finish(Exec *x, uint8_t end, Value output)
{
    x->state = X_DONE;
    x->end = end;
    x->output = output;
    if (x->parent_unit)
        finish_child(x, output);
    else
        finish_top(x, output);
}

static void exec_advance(Exec *x)
{
    while (x->state == X_RUNNING && !x->active) {
        if (x->pc == x->wf->step_count) {
            exec_return(x);
            break;
        }
        step_start(x, x->pc++);
    }
    if (x->state == X_ABORTING && x->inflight == 0 && !x->active) {
        x->state = X_COMPENSATING;
        x->compensate_next = x->completed_count;
    }
    if (x->state == X_COMPENSATING)
        compensate_next(x);
}

/* ---- timers of units and executions ---- */

static void on_unit_timer(Engine *e, const EngineTimer *t)
{
    Unit *u = t->target;
    if (u->gen != t->gen || u->exec->state == X_DONE)
        return;
    char limit[ORBC_DURATION_TEXT_SIZE];
    switch (t->kind) {
    case EV_RETRY:
        if (u->state == U_RETRY_WAIT)
            task_retry(u);
        break;
    case EV_SLEEP:
        if (u->state != U_ACTIVE)
            break;
        event_step(e, "TimerFired", u->label);
        engine_unit_completed(u, value_null(), 0);
        break;
    case EV_AWAIT_TIMEOUT:
        if (u->state != U_ACTIVE)
            break;
        orbc_format_duration(limit, u->step->timeout_ms);
        engine_unit_failed(u, "SIGNAL_TIMEOUT",
                    arena_printf(e->arena, "no signal `%s` arrived within the timeout of %s",
                                 engine_string(e, u->step->target), limit));
        break;
    case EV_CHILD_TIMEOUT:
        if (u->state != U_ACTIVE)
            break;
        if (u->host_child) {
            host_child_event(u, "ChildWorkflowCancelled");
        } else {
            if (!u->child || u->child->state == X_DONE)
                break;
            exec_cancel(u->child);
            child_event(u->child, "ChildWorkflowCancelled");
        }
        orbc_format_duration(limit, u->step->timeout_ms);
        engine_unit_failed(u, "TIMEOUT",
                    arena_printf(e->arena, "the child workflow `%s` did not finish within the step "
                                 "timeout of %s", child_wf_name(u), limit));
        break;
    default:
        break;
    }
}

static void on_deadline(Engine *e, Exec *x)
{
    if (x->state != X_RUNNING)
        return;
    outbox_event(e, "WorkflowTimeoutReached");
    if (x->parent_unit)
        outbox_str(e, "step", x->parent_unit->label);
    outbox_str(e, "workflow", wf_name(x));
    outbox_int(e, "timeout_ms", x->wf->timeout_ms);
    char limit[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(limit, x->wf->timeout_ms);
    exec_abort(x, END_TIMED_OUT, "TIMEOUT",
               arena_printf(e->arena, "the workflow timeout of %s passed", limit), NULL);
}

static bool on_timer(Engine *e, uint32_t id)
{
    if (id == 0 || id > e->timer_count)
        return false;
    const EngineTimer *t = &e->timers[id - 1];
    switch (t->kind) {
    case EV_ATTEMPT_TIMEOUT:
    case EV_QUEUE_TIMEOUT: task_timer(e, t); break;
    case EV_DEADLINE: on_deadline(e, t->target); break;
    default: on_unit_timer(e, t); break;
    }
    return true;
}

/* ---- when nothing more can happen ---- */

/* In-flight attempts that will never answer (no timeout) cannot hold up an aborting
 * execution forever: they are abandoned. Returns true when any was. */
static bool abandon_hung_attempts(Engine *e)
{
    bool any = false;
    for (size_t i = 0; i < e->exec_count; i++) {
        Exec *x = e->execs[i];
        if (x->state != X_ABORTING || x->inflight == 0 || !x->active)
            continue;
        Unit **units = x->units;
        uint32_t count = x->unit_count;
        for (uint32_t k = 0; k < count; k++)
            unit_stop(units[k], false);
        any = true;
    }
    return any;
}

static const Unit *waiting_unit(const Exec *x)
{
    while (x) {
        const Unit *found = x->compensating;
        for (uint32_t i = 0; !found && x->active && i < x->unit_count; i++)
            if (x->units[i]->state == U_ACTIVE)
                found = x->units[i];
        if (!found || !found->child || found->child->state == X_DONE)
            return found;
        x = found->child;
    }
    return NULL;
}

static void report_blocked(Engine *e)
{
    const Unit *u = waiting_unit(e->top);
    outbox_event(e, "WorkflowBlocked");
    outbox_str(e, "workflow", wf_name(e->top));
    if (u) {
        outbox_str(e, "step", u->label);
        if (u->step->kind == ORBC_STEP_AWAIT)
            outbox_note(e, arena_printf(e->arena, "waiting for signal `%s`, and none is scripted",
                                            engine_string(e, u->step->target)));
        else if (u->step->kind <= ORBC_STEP_BUILTIN)
            outbox_note(e, task_waiting(u));
        else if (u->host_child)
            outbox_note(e, arena_printf(e->arena, "waiting for the child workflow `%s`, whose "
                                        "script never answers", child_wf_name(u)));
    }
}

/* ---- the events ---- */

static bool on_idle(Engine *e)
{
    if (abandon_hung_attempts(e))
        return true;
    report_blocked(e);
    EngineResult blocked = {.status = ENGINE_BLOCKED};
    outbox_finished(e, &blocked);
    e->finished = true;
    return true;
}

static void on_start(Engine *e)
{
    outbox_event(e, "WorkflowStarted");
    outbox_str(e, "workflow", engine_string(e, e->module->workflows[e->workflow].name));
    if (e->options.show_values)
        outbox_shown_value(e, "input", e->input);
    e->top = exec_new(e, e->workflow, e->input, NULL);
}

static bool dispatch(Engine *e, const EngineEvent *event)
{
    if (event->kind == ENGINE_START) {
        if (e->top)
            return false;
        on_start(e);
        return true;
    }
    if (!e->top)
        return false;
    switch (event->kind) {
    case ENGINE_TIMER_FIRED: return on_timer(e, event->timer);
    case ENGINE_SIGNAL: on_signal(e, event); return true;
    case ENGINE_IDLE: return on_idle(e);
    case ENGINE_CHILD_ANSWERED: return on_child_answered(e, event);
    default: return task_event(e, event);
    }
}

static void run_ready(Engine *e)
{
    while (e->ready_count > 0) {
        Exec *x = e->ready[e->ready_head++];
        e->ready_count--;
        if (e->ready_count == 0)
            e->ready_head = 0;
        x->in_ready = false;
        exec_advance(x);
    }
}

static void report_end(Engine *e)
{
    const Exec *top = e->top;
    EngineResult result = {
        .status = top->end == END_COMPLETED ? ENGINE_COMPLETED
                : top->end == END_TIMED_OUT ? ENGINE_TIMED_OUT : ENGINE_FAILED,
        .output = top->output,
        .error = top->err_code,
        .message = top->err_message,
        .step = top->err_step,
    };
    outbox_finished(e, &result);
    e->finished = true;
}

bool engine_handle(Engine *e, const EngineEvent *event)
{
    outbox_clear(e);
    if (e->finished)
        return false;
    if (event->time_ms > e->now)
        e->now = event->time_ms;
    bool accepted = dispatch(e, event);
    run_ready(e);
    if (!e->finished && e->top && e->top->state == X_DONE)
        report_end(e);
    outbox_seal(e);
    return accepted && (e->command_count > 0 || event->kind == ENGINE_NO_WORKER);
}

const EngineCommand *engine_commands(const Engine *e, size_t *count)
{
    *count = e->command_count;
    return e->commands;
}

Engine *engine_new(const OrbcModule *module, uint32_t workflow, Value input,
                   const EngineOptions *options, Arena *arena)
{
    if (workflow >= module->workflow_count)
        return NULL;
    Engine *e = xcalloc(1, sizeof *e);
    e->module = module;
    e->arena = arena;
    e->options = *options;
    e->workflow = workflow;
    e->input = input;
    e->vm = vm_new(module, arena);
    e->boxes = arena_alloc(arena, sizeof(SignalBox *) * (module->string_count + 1));
    return e;
}

const char *engine_status_name(EngineStatus status)
{
    static const char *const names[] = {"COMPLETED", "FAILED", "TIMED_OUT", "BLOCKED"};
    return status <= ENGINE_BLOCKED ? names[status] : "?";
}

void engine_free(Engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->exec_count; i++)
        free(e->execs[i]->completed);
    for (uint32_t i = 0; i < e->module->string_count; i++) {
        if (e->boxes[i]) {
            free(e->boxes[i]->payloads);
            free(e->boxes[i]->waiters);
        }
    }
    free(e->execs);
    free(e->ready);
    outbox_free(e);
    vm_free(e->vm);
    free(e);
}
