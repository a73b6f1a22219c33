/* The virtual-time host: one timer queue holds the engine's timers and the scenario's
 * (a worker picks an attempt up, answers it or is lost; a signal arrives), so that ties
 * fall as docs/runtime.md ("Ties") says. Each timer that comes due is one event for the
 * engine; its commands are carried out at once, in order: a record is written to the
 * history, a timer joins the queue, a queued attempt takes the next scripted outcome and
 * waits for its pickup. When the queue is empty, the engine hears that nothing else can
 * happen (ENGINE_IDLE). */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

#include "contract.h"
#include "timers.h"

enum { DEFAULT_ANSWER_MS = 10 };

typedef enum SimTimerKind {
    T_ENGINE,    /* id: the engine's timer */
    T_PICKUP,    /* id: the attempt, gen: its delivery */
    T_ANSWER,
    T_LOST,
    T_SIGNAL,    /* id: the scenario's signal */
} SimTimerKind;

/* What the scenario says about the current delivery of an attempt. */
typedef struct SimAttempt {
    const Outcome *outcome;   /* NULL: the default outcome */
    const char *worker_id;
    uint32_t task;
} SimAttempt;

typedef struct Sim {
    const OrbcModule *module;
    Scenario *scenario;
    History *history;
    Arena *arena;
    Engine *engine;
    TimerQueue timers;
    int64_t now;
    SimAttempt *attempts;     /* by the engine's attempt id - 1 */
    size_t attempt_cap;
    uint32_t *unserved;       /* attempts queued where no worker runs, to tell the engine */
    size_t unserved_count, unserved_cap;
    bool finished;
    EngineResult result;
} Sim;

static bool is_builtin(const Sim *s, uint32_t task)
{
    return task < s->module->task_count && s->module->tasks[task].kind == ORBC_TASK_BUILTIN;
}

/* ---- the scripted workers ---- */

typedef struct Route {
    Script *script;           /* where outcomes come from (NULL: defaults only) */
    const char *worker_id;
    int64_t pickup_ms;
    bool no_worker;
} Route;

/* The script of a step (or its compensate block) wins over its task's. */
static Route route(const Sim *s, const EngineTask *t)
{
    Script **per_step = s->scenario->step_scripts[t->workflow];
    Script *step = per_step ? per_step[t->step] : NULL;
    if (t->compensation)
        step = step ? step->compensate : NULL;
    Script *task = t->task < s->module->task_count ? s->scenario->task_scripts[t->task] : NULL;
    Route r = {.worker_id = "worker-1"};
    r.script = step && step->has_outcomes ? step : task && task->has_outcomes ? task : NULL;
    if (is_builtin(s, t->task))
        r.worker_id = "orbit-runtime";
    else if (step && step->worker_id)
        r.worker_id = step->worker_id;
    else if (task && task->worker_id)
        r.worker_id = task->worker_id;
    r.pickup_ms = step && step->pickup_ms >= 0 ? step->pickup_ms
                : task && task->pickup_ms >= 0 ? task->pickup_ms : 0;
    r.no_worker = step && step->no_worker >= 0 ? step->no_worker
                : task && task->no_worker >= 0 ? task->no_worker : false;
    return r;
}

static SimAttempt *attempt(Sim *s, uint32_t id)
{
    while (id > s->attempt_cap) {
        size_t old = s->attempt_cap;
        s->attempt_cap = old ? old * 2 : 64;
        s->attempts = xrealloc(s->attempts, s->attempt_cap * sizeof *s->attempts);
        memset(s->attempts + old, 0, (s->attempt_cap - old) * sizeof *s->attempts);
    }
    return &s->attempts[id - 1];
}

static void queue_attempt(Sim *s, const EngineCommand *c)
{
    Route r = route(s, &c->task);
    SimAttempt *a = attempt(s, c->attempt);
    a->outcome = script_next(r.script);
    a->worker_id = r.worker_id;
    a->task = c->task.task;
    int64_t pickup = a->outcome && a->outcome->pickup_ms >= 0 ? a->outcome->pickup_ms : r.pickup_ms;
    if (!r.no_worker) {
        timers_push(&s->timers, engine_time_after(s->now, pickup), false, T_PICKUP, c->attempt,
                    c->delivery);
        return;
    }
    if (s->unserved_count == s->unserved_cap) {
        s->unserved_cap = s->unserved_cap ? s->unserved_cap * 2 : 16;
        s->unserved = xrealloc(s->unserved, s->unserved_cap * sizeof *s->unserved);
    }
    s->unserved[s->unserved_count++] = c->attempt;
}

/* After a pickup: the answer, or the loss of the worker, on the scripted schedule. */
static void schedule_answer(Sim *s, uint32_t id, uint32_t delivery)
{
    const Outcome *o = attempt(s, id)->outcome;
    if (!o)
        timers_push(&s->timers, engine_time_after(s->now, DEFAULT_ANSWER_MS), false, T_ANSWER, id,
                    delivery);
    else if (o->kind == OUT_LOST)
        timers_push(&s->timers, engine_time_after(s->now, o->after_ms), false, T_LOST, id, delivery);
    else if (o->kind != OUT_NEVER)
        timers_push(&s->timers, engine_time_after(s->now, o->after_ms), false, T_ANSWER, id,
                    delivery);
}

/* The output of a scripted worker that has no outcome left: a response of 200 for a
 * built-in task, else the simplest value of the task's output contract. */
static Value default_output(Sim *s, uint32_t task)
{
    if (is_builtin(s, task)) {
        Record *r = record_new(s->arena, 3);
        r->names[0] = str_new(s->arena, "status", 6);
        r->values[0] = value_int(200);
        r->names[1] = str_new(s->arena, "headers", 7);
        r->values[1].kind = ORBC_KIND_RECORD;
        r->values[1].rec = record_new(s->arena, 0);
        record_seal(s->arena, r->values[1].rec);
        r->names[2] = str_new(s->arena, "body", 4);
        r->values[2] = value_null();
        record_seal(s->arena, r);
        return (Value){.kind = ORBC_KIND_RECORD, .rec = r};
    }
    uint32_t type = task < s->module->task_count ? s->module->tasks[task].output_type : ORBC_NONE;
    return contract_default(s->module, s->arena, type);
}

static EngineAnswer answer(Sim *s, const SimAttempt *a)
{
    const Outcome *o = a->outcome;
    if (!o)
        return (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT, .output = default_output(s, a->task)};
    switch (o->kind) {
    case OUT_SUCCEED:
        return (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT, .output = o->output};
    case OUT_FAIL:
        return (EngineAnswer){.kind = ENGINE_ANSWER_FAIL, .code = o->code, .message = o->message,
                              .retryable = o->retryable};
    case OUT_HTTP_RESPONSE:
        return (EngineAnswer){.kind = ENGINE_ANSWER_HTTP_RESPONSE, .status = o->status,
                              .output = o->output};
    default:
        return (EngineAnswer){.kind = ENGINE_ANSWER_NETWORK_ERROR, .message = o->message};
    }
}

/* ---- the engine's commands ---- */

static void carry_out(Sim *s)
{
    size_t count;
    const EngineCommand *commands = engine_commands(s->engine, &count);
    for (size_t i = 0; i < count; i++) {
        const EngineCommand *c = &commands[i];
        switch (c->kind) {
        case ENGINE_RECORD: history_write(s->history, &c->record); break;
        case ENGINE_START_TIMER:
            timers_push(&s->timers, c->at_ms, c->limit, T_ENGINE, c->timer, 0);
            break;
        case ENGINE_QUEUE_ATTEMPT: queue_attempt(s, c); break;
        case ENGINE_FINISHED:
            s->finished = true;
            s->result = c->result;
            break;
        default: break;   /* CANCEL_ATTEMPT: a scripted worker answers as scripted */
        }
    }
}

/* Hands one event to the engine and carries out its commands, then tells it which of
 * the attempts it just queued no worker will take. Returns whether it was accepted. */
static bool send(Sim *s, EngineEvent *event)
{
    event->time_ms = s->now;
    bool accepted = engine_handle(s->engine, event);
    if (accepted && event->kind == ENGINE_PICKED_UP)
        schedule_answer(s, event->attempt, event->delivery);
    carry_out(s);
    for (size_t i = 0; i < s->unserved_count; i++) {
        EngineEvent none = {.kind = ENGINE_NO_WORKER, .time_ms = s->now, .attempt = s->unserved[i]};
        engine_handle(s->engine, &none);
    }
    s->unserved_count = 0;
    return accepted;
}

static void fire(Sim *s, const Timer *t)
{
    EngineEvent event = {.attempt = t->id, .delivery = t->gen};
    switch (t->kind) {
    case T_ENGINE:
        event = (EngineEvent){.kind = ENGINE_TIMER_FIRED, .timer = t->id};
        break;
    case T_PICKUP:
        event.kind = ENGINE_PICKED_UP;
        event.worker_id = attempt(s, t->id)->worker_id;
        break;
    case T_ANSWER:
        event.kind = ENGINE_ANSWERED;
        event.answer = answer(s, attempt(s, t->id));
        break;
    case T_LOST:
        event.kind = ENGINE_WORKER_LOST;
        break;
    default: {
        const Signal *signal = &s->scenario->signals[t->id];
        event = (EngineEvent){.kind = ENGINE_SIGNAL, .signal = signal->name_string,
                              .signal_name = signal->name, .payload = signal->payload};
        break;
    }
    }
    send(s, &event);
}

EngineResult sim_run(const OrbcModule *module, Scenario *scenario, Value input, History *history,
                     const RunOptions *options, Arena *arena)
{
    EngineOptions engine_options = {.show_values = options->show_values,
                                    .http_adapter = scenario->http_adapter};
    Sim s = {.module = module, .scenario = scenario, .history = history, .arena = arena,
             .result = {.status = ENGINE_BLOCKED}};
    s.engine = engine_new(module, scenario->workflow, input, &engine_options, arena);
    if (!s.engine)
        return s.result;
    for (uint32_t i = 0; i < scenario->signal_count; i++)
        timers_push(&s.timers, scenario->signals[i].at_ms, false, T_SIGNAL, i, 0);
    send(&s, &(EngineEvent){.kind = ENGINE_START});
    while (!s.finished) {
        Timer t;
        if (!timers_pop(&s.timers, &t)) {
            send(&s, &(EngineEvent){.kind = ENGINE_IDLE});
            continue;
        }
        s.now = t.at;
        fire(&s, &t);
    }
    engine_free(s.engine);
    timers_free(&s.timers);
    free(s.attempts);
    free(s.unserved);
    return s.result;
}
