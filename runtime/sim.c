/* The virtual-time host: one timer queue holds the engine's timers and the world's (a
 * worker picks an attempt up, answers it or is lost; a signal arrives), so that ties
 * fall as docs/runtime.md ("Ties") says. Each timer that comes due is one event for the
 * engine; its commands are carried out at once, in order: a record goes to the world
 * (orbit-run writes it to the history), a timer joins the queue, a queued attempt takes
 * the outcome the world serves (the scenario's next scripted one, or a sampled one for
 * `orbit-run simulate`) and waits for its pickup; a child the world answers (a scripted
 * child of a scenario) takes its next outcome and answers after it. When the queue is empty, the engine
 * hears that nothing else can happen (ENGINE_IDLE). */
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
    T_CHILD,     /* id: the child the world answers */
} SimTimerKind;

typedef struct Sim {
    const OrbcModule *module;
    const SimWorld *world;
    Arena *arena;
    Engine *engine;
    SimBuffers *buf;
    int64_t now;
    bool finished;
    bool stopped;             /* the world refused a record: the run ends unfinished */
    EngineResult result;
} Sim;

static bool is_builtin(const Sim *s, uint32_t task)
{
    return task < s->module->task_count && s->module->tasks[task].kind == ORBC_TASK_BUILTIN;
}

/* ---- the scripted workers of a scenario ---- */

typedef struct Route {
    Script *script;           /* where outcomes come from (NULL: defaults only) */
    const char *worker_id;
    int64_t pickup_ms;
    bool no_worker;
} Route;

/* The script of a step (or its compensate block) wins over its task's. */
static Route route(const OrbcModule *module, const Scenario *scenario, const EngineTask *t)
{
    Script **per_step = scenario->step_scripts[t->workflow];
    Script *step = per_step ? per_step[t->step] : NULL;
    if (t->compensation)
        step = step ? step->compensate : NULL;
    Script *task = t->task < module->task_count ? scenario->task_scripts[t->task] : NULL;
    Route r = {.worker_id = "worker-1"};
    r.script = step && step->has_outcomes ? step : task && task->has_outcomes ? task : NULL;
    if (t->task < module->task_count && module->tasks[t->task].kind == ORBC_TASK_BUILTIN)
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

typedef struct ScriptedWorld {
    const OrbcModule *module;
    Scenario *scenario;
    History *history;
    bool stopped;             /* a record beyond the scenario's max_events was refused */
} ScriptedWorld;

SimServe sim_serve_scenario(const OrbcModule *module, Scenario *scenario,
                            const EngineCommand *queued)
{
    Route r = route(module, scenario, &queued->task);
    SimServe serve = {.outcome = script_next(r.script), .worker_id = r.worker_id,
                      .pickup_ms = r.pickup_ms, .no_worker = r.no_worker};
    if (serve.outcome && serve.outcome->pickup_ms >= 0)
        serve.pickup_ms = serve.outcome->pickup_ms;
    return serve;
}

static SimServe serve_scripted(void *ctx, const EngineCommand *queued)
{
    ScriptedWorld *w = ctx;
    return sim_serve_scenario(w->module, w->scenario, queued);
}

const Outcome *sim_serve_scenario_child(Scenario *scenario, const EngineChild *child)
{
    return script_next(scenario->step_scripts[child->parent_workflow][child->parent_step]);
}

static const Outcome *serve_child_scripted(void *ctx, const EngineChild *child)
{
    ScriptedWorld *w = ctx;
    return sim_serve_scenario_child(w->scenario, child);
}

static bool write_record(void *ctx, const EngineRecord *record)
{
    ScriptedWorld *w = ctx;
    if (w->scenario->max_events && w->history->seq >= w->scenario->max_events) {
        w->stopped = true;
        return false;
    }
    history_write(w->history, record);
    return true;
}

/* ---- attempts ---- */

/* Entry `id` of a table by id - 1, grown (zeroed) as needed. */
static SimAttempt *entry(SimAttempt **table, size_t *cap, uint32_t id)
{
    while (id > *cap) {
        size_t old = *cap;
        *cap = old ? old * 2 : 64;
        *table = xrealloc(*table, *cap * sizeof **table);
        memset(*table + old, 0, (*cap - old) * sizeof **table);
    }
    return &(*table)[id - 1];
}

static SimAttempt *attempt(Sim *s, uint32_t id)
{
    return entry(&s->buf->attempts, &s->buf->attempt_cap, id);
}

static SimAttempt *child(Sim *s, uint32_t id)
{
    return entry(&s->buf->children, &s->buf->child_cap, id);
}

/* A child the world answers: its outcome after `after_ms` from its start (the default
 * outcome after 10 ms; never for never_answers). */
static void start_child(Sim *s, const EngineChild *c)
{
    SimAttempt *a = child(s, c->id);
    a->outcome = s->world->serve_child ? s->world->serve_child(s->world->ctx, c) : NULL;
    a->task = c->workflow;
    if (a->outcome && a->outcome->kind == OUT_NEVER)
        return;
    timers_push(&s->buf->timers,
                engine_time_after(s->now, a->outcome ? a->outcome->after_ms : DEFAULT_ANSWER_MS),
                false, T_CHILD, c->id, 0);
}

static void queue_attempt(Sim *s, const EngineCommand *c)
{
    SimServe serve = s->world->serve(s->world->ctx, c);
    SimAttempt *a = attempt(s, c->attempt);
    a->outcome = serve.outcome;
    a->worker_id = serve.worker_id;
    a->task = c->task.task;
    SimBuffers *b = s->buf;
    if (!serve.no_worker) {
        timers_push(&b->timers, engine_time_after(s->now, serve.pickup_ms), false, T_PICKUP,
                    c->attempt, c->delivery);
        return;
    }
    if (b->unserved_count == b->unserved_cap) {
        b->unserved_cap = b->unserved_cap ? b->unserved_cap * 2 : 16;
        b->unserved = xrealloc(b->unserved, b->unserved_cap * sizeof *b->unserved);
    }
    b->unserved[b->unserved_count++] = c->attempt;
}

/* After a pickup: the answer, or the loss of the worker, on the scripted schedule. */
static void schedule_answer(Sim *s, uint32_t id, uint32_t delivery)
{
    const Outcome *o = attempt(s, id)->outcome;
    if (!o)
        timers_push(&s->buf->timers, engine_time_after(s->now, DEFAULT_ANSWER_MS), false, T_ANSWER, id,
                    delivery);
    else if (o->kind == OUT_LOST)
        timers_push(&s->buf->timers, engine_time_after(s->now, o->after_ms), false, T_LOST, id, delivery);
    else if (o->kind != OUT_NEVER)
        timers_push(&s->buf->timers, engine_time_after(s->now, o->after_ms), false, T_ANSWER, id,
                    delivery);
}

/* The output of a scripted worker that has no outcome left: a response of 200 for a
 * built-in task, else the simplest value of the task's output contract. */
static Value default_output(Sim *s, uint32_t task)
{
    if (is_builtin(s, task)) {
        Record *r = value_record_new(s->arena, 3);
        r->names[0] = value_str_new(s->arena, "status", 6);
        r->values[0] = value_int(200);
        r->names[1] = value_str_new(s->arena, "headers", 7);
        r->values[1].kind = ORBC_KIND_RECORD;
        r->values[1].rec = value_record_new(s->arena, 0);
        value_record_seal(s->arena, r->values[1].rec);
        r->names[2] = value_str_new(s->arena, "body", 4);
        r->values[2] = value_null();
        value_record_seal(s->arena, r);
        return (Value){.kind = ORBC_KIND_RECORD, .rec = r};
    }
    uint32_t type = task < s->module->task_count ? s->module->tasks[task].output_type : ORBC_NONE;
    return contract_default(s->module, s->arena, type);
}

static EngineAnswer child_answer(Sim *s, const SimAttempt *c)
{
    const Outcome *o = c->outcome;
    if (o && o->kind == OUT_FAIL)
        return (EngineAnswer){.kind = ENGINE_ANSWER_FAIL, .code = o->code, .message = o->message,
                              .retryable = o->retryable};
    if (o)
        return (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT, .output = o->output};
    uint32_t type = c->task < s->module->workflow_count ? s->module->workflows[c->task].output_type
                                                         : ORBC_NONE;
    return (EngineAnswer){.kind = ENGINE_ANSWER_OUTPUT,
                          .output = contract_default(s->module, s->arena, type)};
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
        case ENGINE_RECORD:
            if (!s->world->record(s->world->ctx, &c->record)) {
                s->stopped = true;
                return;
            }
            break;
        case ENGINE_START_TIMER:
            timers_push(&s->buf->timers, c->at_ms, c->limit, T_ENGINE, c->timer, 0);
            break;
        case ENGINE_QUEUE_ATTEMPT: queue_attempt(s, c); break;
        case ENGINE_START_CHILD: start_child(s, &c->child); break;
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
    SimBuffers *b = s->buf;
    for (size_t i = 0; i < b->unserved_count; i++) {
        EngineEvent none = {.kind = ENGINE_NO_WORKER, .time_ms = s->now, .attempt = b->unserved[i]};
        engine_handle(s->engine, &none);
    }
    b->unserved_count = 0;
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
    case T_CHILD:
        event = (EngineEvent){.kind = ENGINE_CHILD_ANSWERED, .child = t->id,
                              .answer = child_answer(s, child(s, t->id))};
        break;
    default: {
        const Signal *signal = &s->world->signals[t->id];
        event = (EngineEvent){.kind = ENGINE_SIGNAL, .signal = signal->name_string,
                              .signal_name = signal->name, .payload = signal->payload};
        break;
    }
    }
    send(s, &event);
}

EngineResult sim_drive(const OrbcModule *module, uint32_t workflow, Value input,
                       const SimWorld *world, SimBuffers *buffers, Arena *arena, int64_t *end_ms)
{
    EngineOptions engine_options = {.show_values = world->show_values,
                                    .http_adapter = world->http_adapter,
                                    .host_children = world->host_children};
    Sim s = {.module = module, .world = world, .arena = arena, .buf = buffers,
             .result = {.status = ENGINE_BLOCKED}};
    buffers->timers.count = 0;
    buffers->unserved_count = 0;
    s.engine = engine_new(module, workflow, input, &engine_options, arena);
    if (!s.engine)
        return s.result;
    for (uint32_t i = 0; i < world->signal_count; i++)
        if (world->signals[i].at_ms >= 0)
            timers_push(&buffers->timers, world->signals[i].at_ms, false, T_SIGNAL, i, 0);
    send(&s, &(EngineEvent){.kind = ENGINE_START});
    while (!s.finished && !s.stopped) {
        Timer t;
        if (!timers_pop(&buffers->timers, &t)) {
            send(&s, &(EngineEvent){.kind = ENGINE_IDLE});
            continue;
        }
        s.now = t.at;
        fire(&s, &t);
    }
    engine_free(s.engine);
    if (end_ms)
        *end_ms = s.now;
    return s.result;
}

void sim_buffers_free(SimBuffers *buffers)
{
    timers_free(&buffers->timers);
    free(buffers->attempts);
    free(buffers->unserved);
    free(buffers->children);
    memset(buffers, 0, sizeof *buffers);
}

EngineResult sim_run(const OrbcModule *module, Scenario *scenario, Value input, History *history,
                     const RunOptions *options, Arena *arena, bool *stopped)
{
    ScriptedWorld scripted = {.module = module, .scenario = scenario, .history = history};
    SimWorld world = {.ctx = &scripted, .serve = serve_scripted, .record = write_record,
                      .signals = scenario->signals, .signal_count = scenario->signal_count,
                      .http_adapter = scenario->http_adapter,
                      .host_children = (const uint8_t *const *)scenario->host_children,
                      .serve_child = serve_child_scripted,
                      .show_values = options->show_values};
    SimBuffers buffers = {0};
    EngineResult r = sim_drive(module, scenario->workflow, input, &world, &buffers, arena, NULL);
    sim_buffers_free(&buffers);
    if (stopped)
        *stopped = scripted.stopped;
    return r;
}
