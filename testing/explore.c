/* `orbitc test --explore` (explore.h). */
#include "explore.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "contract.h"
#include "invariants.h"
#include "json_text.h"
#include "memory.h"
#include "orbc_value.h"
#include "rng.h"
#include "runner.h"
#include "scenario.h"
#include "scenario_of_test.h"
#include "sim.h"
#include "testing_internal.h"

enum {
    TAPE_MAX = 4096,             /* the decisions of a world that the explorer steers */
    MENU_MAX = 64,               /* choices of one decision */
    DEFAULT_ANSWER_MS = 10,      /* the runtime's default outcome answers after 10 ms */
    RANDOM_PERCENT = 20,         /* a random world leaves 4 decisions in 5 at the test's */
    EXPLORE_MAX_THREADS = 256,
};

static const char RETRYABLE_CODE[] = "UNAVAILABLE";

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- choices ------------------------------------------------------------------------- */

typedef enum ChoiceKind {
    C_BASE,              /* the test's own */
    C_FAIL,              /* a retryable failure with RETRYABLE_CODE */
    C_FAIL_CODE,         /* arg: the index of a `non_retryable` code */
    C_NETWORK_ERROR,     /* orbit.http.request */
    C_NEVER,             /* never answers: its timeout fires */
    C_LOST,              /* its worker is lost at once */
    C_ANSWER,            /* arg: a success after arg ms */
    C_PICKUP,            /* arg: picked up after arg ms */
    C_SIGNAL_NEVER,      /* a signal the test sends does not come */
    C_SIGNAL_WAIT,       /* arg: it comes arg ms after its await starts */
} ChoiceKind;

typedef struct Choice {
    uint8_t kind;        /* ChoiceKind */
    int64_t arg;
    const char *why;     /* C_ANSWER, C_PICKUP, C_SIGNAL_WAIT: "before the timeout" */
} Choice;

/* One delivery of an attempt as the world served it. */
typedef struct Delivery {
    uint32_t step;               /* of the tested workflow */
    bool compensation;
    bool decided;                /* a decision of the world (not a child's, not no_worker) */
    uint32_t decision;           /* its index among the run's decisions */
    Choice choice;
    const Outcome *outcome;      /* what it met (NULL: the default outcome) */
    int64_t pickup_ms;
    uint32_t task;
    uint32_t number;             /* the attempt's number */
} Delivery;

/* What a decision is about, whatever the decisions before it: a slot, or one delivery of
 * an attempt of a step (or of its compensate block). The shrinker keeps a choice on its
 * key, so that a choice taken out, which takes out the deliveries it caused (a retry),
 * leaves the others on the attempts they were made for. */
typedef struct Key {
    uint8_t kind;                /* KEY_SLOT, KEY_STEP, KEY_COMPENSATION */
    uint32_t index;              /* the slot, or the step */
    uint32_t number;             /* the attempt's number */
    uint32_t nth;                /* the deliveries of that attempt before this one */
} Key;

enum { KEY_SLOT, KEY_STEP, KEY_COMPENSATION };

/* A signal the tested workflow awaits at a top-level step. */
typedef struct Slot {
    uint32_t step;               /* the await step */
    uint32_t name_string;
    const char *name;
    int base;                    /* the test's signal it stands for, or -1 */
    int64_t timeout_ms;          /* the await's, 0: none */
} Slot;

typedef struct Explorer {
    const OrbcModule *module;
    const Program *program;
    const SourceMap *sources;
    uint32_t workflow;
    const Member *test;
    Scenario scenario;           /* the test's world (its scripts rewound per world) */
    Value input;
    Arena *arena;                /* a world's: rewound to `mark` before each */
    ArenaMark mark;
    SimBuffers buffers;
    InvariantRun invariants;
    bool needs_output;           /* a user invariant may read execution.output */
    int64_t deadline_ms;         /* the workflow's timeout, 0: none */
    Slot *slots;
    uint32_t slot_count;
    bool *slot_of_signal;        /* [scenario.signal_count]: the signal is a slot's */
    /* the world being run */
    const uint16_t *tape;        /* the choices to make, then 0 (or random) */
    uint32_t tape_len;
    Rng *rng;                    /* beyond the tape: random choices; NULL: the test's */
    uint16_t *choices;           /* the choices made, and the size of each menu */
    uint16_t *sizes;
    Key *keys;                   /* what each decision was about */
    uint32_t decisions, decisions_cap;
    const Key *want_keys;        /* keyed: the choices to make, by key (then 0) */
    const uint16_t *want_choices;
    uint32_t want_count;
    bool keyed;
    bool counting;               /* shrinking: keys count the deliveries of an attempt */
    Delivery *deliveries;
    uint32_t delivery_count, delivery_cap;
    Choice *slot_choices;        /* [slot_count] */
    TestEvent *events;
    uint32_t event_count, event_cap;
    int64_t now;
    bool stopped;
} Explorer;

static bool same_key(const Key *a, const Key *b)
{
    return a->kind == b->kind && a->index == b->index && a->number == b->number
        && a->nth == b->nth;
}

/* The next decision, about `key`, among `size` choices. */
static uint16_t decide(Explorer *ex, uint32_t size, Key key)
{
    uint32_t i = ex->decisions;
    uint16_t c = 0;
    if (ex->keyed) {
        for (uint32_t j = 0; j < ex->want_count; j++)
            if (same_key(&ex->want_keys[j], &key))
                c = ex->want_choices[j];
    } else if (i < ex->tape_len) {
        c = ex->tape[i];
    } else if (ex->rng && size > 1 && rng_next(ex->rng) % 100 < RANDOM_PERCENT) {
        c = (uint16_t)(1 + rng_next(ex->rng) % (size - 1));
    }
    if (c >= size)
        c = (uint16_t)(size - 1);
    if (ex->decisions == ex->decisions_cap) {
        ex->decisions_cap = ex->decisions_cap ? 2 * ex->decisions_cap : 64;
        ex->choices = xrealloc(ex->choices, ex->decisions_cap * sizeof *ex->choices);
        ex->sizes = xrealloc(ex->sizes, ex->decisions_cap * sizeof *ex->sizes);
        ex->keys = xrealloc(ex->keys, ex->decisions_cap * sizeof *ex->keys);
    }
    ex->keys[i] = key;
    ex->choices[i] = c;
    ex->sizes[i] = (uint16_t)size;
    ex->decisions++;
    return c;
}

static void add_choice(Choice *menu, uint32_t *n, ChoiceKind kind, int64_t arg, const char *why)
{
    if (*n < MENU_MAX && arg >= 0)
        menu[(*n)++] = (Choice){ (uint8_t)kind, arg, why };
}

/* The choices of one delivery, simplest and earliest first. */
static uint32_t delivery_menu(const Explorer *ex, const EngineCommand *queued,
                              const SimServe *serve, Choice *menu)
{
    const OrbcModule *m = ex->module;
    const OrbcStep *s = &m->workflows[queued->task.workflow].steps[queued->task.step];
    bool comp = queued->task.compensation;
    const OrbcPolicy *policy = comp ? &s->compensate.policy : &s->policy;
    int64_t timeout = comp ? s->compensate.timeout_ms : s->timeout_ms;
    int64_t queue_timeout = comp ? s->compensate.queue_timeout_ms : s->queue_timeout_ms;
    bool builtin = queued->task.task < m->task_count
        && m->tasks[queued->task.task].kind == ORBC_TASK_BUILTIN;
    uint32_t n = 0;
    add_choice(menu, &n, C_BASE, 0, NULL);
    if (builtin) {
        add_choice(menu, &n, C_NETWORK_ERROR, 0, NULL);
    } else {
        add_choice(menu, &n, C_FAIL, 0, NULL);
        for (uint32_t i = 0; i < policy->non_retryable_count; i++)
            add_choice(menu, &n, C_FAIL_CODE, i, NULL);
    }
    if (timeout > 0)
        add_choice(menu, &n, C_NEVER, 0, NULL);
    if (builtin)
        return n;
    add_choice(menu, &n, C_LOST, 0, NULL);
    if (timeout > 0) {
        add_choice(menu, &n, C_ANSWER, timeout - 1, "just before its timeout");
        add_choice(menu, &n, C_ANSWER, timeout, "at its timeout");
        add_choice(menu, &n, C_ANSWER, timeout + 1, "just after its timeout");
    }
    if (queue_timeout > 0) {
        add_choice(menu, &n, C_PICKUP, queue_timeout - 1, "just before its queue timeout");
        add_choice(menu, &n, C_PICKUP, queue_timeout, "at its queue timeout");
        add_choice(menu, &n, C_PICKUP, queue_timeout + 1, "just after its queue timeout");
    }
    int64_t rest = ex->deadline_ms - ex->now - serve->pickup_ms;
    if (ex->deadline_ms > 0 && !comp && rest > 1) {
        add_choice(menu, &n, C_ANSWER, rest - 1, "just before the workflow's deadline");
        add_choice(menu, &n, C_ANSWER, rest, "at the workflow's deadline");
        add_choice(menu, &n, C_ANSWER, rest + 1, "just after the workflow's deadline");
    }
    return n;
}

static Outcome *new_outcome(Explorer *ex, OutcomeKind kind, int64_t after_ms)
{
    Outcome *o = arena_alloc(ex->arena, sizeof *o);
    *o = (Outcome){ .kind = (uint8_t)kind, .after_ms = after_ms, .pickup_ms = -1, .times = 1,
                    .retryable = true, .message = "" };
    return o;
}

/* The outcome a choice makes of the test's `base` for task `task`. */
static const Outcome *apply(Explorer *ex, const Choice *c, const Outcome *base, uint32_t task,
                            const OrbcPolicy *policy)
{
    int64_t after = base ? base->after_ms : DEFAULT_ANSWER_MS;
    Outcome *o;
    switch (c->kind) {
    case C_FAIL:
        o = new_outcome(ex, OUT_FAIL, after);
        o->code = RETRYABLE_CODE;
        return o;
    case C_FAIL_CODE:
        o = new_outcome(ex, OUT_FAIL, after);
        o->code = ex->module->strings[policy->non_retryable[c->arg]].text;
        return o;
    case C_NETWORK_ERROR:
        o = new_outcome(ex, OUT_NETWORK_ERROR, after);
        o->message = "connection refused";
        return o;
    case C_NEVER:
        return new_outcome(ex, OUT_NEVER, 0);
    case C_LOST:
        return new_outcome(ex, OUT_LOST, 0);
    case C_ANSWER:
        o = new_outcome(ex, OUT_SUCCEED, c->arg);
        if (base && base->kind == OUT_SUCCEED)
            o->output = base->output;
        else
            o->output = contract_default(ex->module, ex->arena, task < ex->module->task_count
                                             ? ex->module->tasks[task].output_type : ORBC_NONE);
        return o;
    default:
        return base;
    }
}

static Delivery *new_delivery(Explorer *ex)
{
    if (ex->delivery_count == ex->delivery_cap) {
        ex->delivery_cap = ex->delivery_cap ? 2 * ex->delivery_cap : 32;
        ex->deliveries = xrealloc(ex->deliveries, ex->delivery_cap * sizeof *ex->deliveries);
    }
    Delivery *d = &ex->deliveries[ex->delivery_count++];
    memset(d, 0, sizeof *d);
    return d;
}

static SimServe serve(void *ctx, const EngineCommand *queued)
{
    Explorer *ex = ctx;
    SimServe served = sim_serve_scenario(ex->module, &ex->scenario, queued);
    const EngineTask *t = &queued->task;
    bool own = t->workflow == ex->workflow && t->label && !strchr(t->label, '/');
    if (!own)
        return served;
    Key key = { t->compensation ? KEY_COMPENSATION : KEY_STEP, t->step, t->number, 0 };
    for (uint32_t i = 0; ex->counting && i < ex->delivery_count; i++) {
        const Delivery *e = &ex->deliveries[i];
        key.nth += e->decided && e->step == t->step && e->compensation == t->compensation
            && e->number == t->number;
    }
    Delivery *d = new_delivery(ex);
    d->step = t->step;
    d->compensation = t->compensation;
    d->task = t->task;
    d->number = t->number;
    d->outcome = served.outcome;
    d->pickup_ms = served.pickup_ms;
    if (served.no_worker)
        return served;   /* as the test says: no worker comes */
    Choice menu[MENU_MAX];
    uint32_t n = delivery_menu(ex, queued, &served, menu);
    d->decided = true;
    d->decision = ex->decisions;
    d->choice = menu[decide(ex, n, key)];
    const OrbcStep *s = &ex->module->workflows[t->workflow].steps[t->step];
    if (d->choice.kind == C_PICKUP)
        served.pickup_ms = d->choice.arg;
    else
        served.outcome = apply(ex, &d->choice, served.outcome, t->task,
                               t->compensation ? &s->compensate.policy : &s->policy);
    d->outcome = served.outcome;
    d->pickup_ms = served.pickup_ms;
    return served;
}

static const Outcome *serve_child(void *ctx, const EngineChild *child)
{
    Explorer *ex = ctx;
    return sim_serve_scenario_child(&ex->scenario, child);
}

static bool record(void *ctx, const EngineRecord *r)
{
    Explorer *ex = ctx;
    if (ex->scenario.max_events && ex->event_count >= ex->scenario.max_events) {
        ex->stopped = true;
        return false;
    }
    if (ex->event_count == ex->event_cap) {
        ex->event_cap = ex->event_cap ? 2 * ex->event_cap : 64;
        ex->events = xrealloc(ex->events, ex->event_cap * sizeof *ex->events);
    }
    TestEvent *e = &ex->events[ex->event_count++];
    memset(e, 0, sizeof *e);
    e->time_ms = r->time_ms;
    e->event = r->event;
    for (uint32_t i = 0; i < r->field_count; i++) {
        const EngineField *f = &r->fields[i];
        if (f->kind == ENGINE_FIELD_ERROR)
            e->error = arena_strndup(ex->arena, f->text, strlen(f->text));
        else if (f->kind == ENGINE_FIELD_INT && strcmp(f->key, "attempt") == 0)
            e->attempt = f->number;
        else if (f->kind == ENGINE_FIELD_STR && strcmp(f->key, "step") == 0)
            e->step = arena_strndup(ex->arena, f->text, strlen(f->text));
        else if (f->kind == ENGINE_FIELD_STR && strcmp(f->key, "workflow") == 0)
            e->workflow = arena_strndup(ex->arena, f->text, strlen(f->text));
    }
    ex->now = r->time_ms;
    return true;
}

/* ---- one world ------------------------------------------------------------------------ */

/* Every script back at its first outcome. */
static void rewind_scripts(Explorer *ex)
{
    const OrbcModule *m = ex->module;
    Scenario *sc = &ex->scenario;
    for (uint32_t t = 0; t < m->task_count; t++)
        if (sc->task_scripts[t])
            sc->task_scripts[t]->next = sc->task_scripts[t]->used = 0;
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        for (uint32_t s = 0; sc->step_scripts[w] && s < m->workflows[w].step_count; s++) {
            Script *script = sc->step_scripts[w][s];
            if (!script)
                continue;
            script->next = script->used = 0;
            if (script->compensate)
                script->compensate->next = script->compensate->used = 0;
        }
    }
}

typedef struct World {
    const char *status;      /* completed, failed, timed_out, blocked, stopped */
    const char *error;
    bool broken;
    InvariantBreak why;
} World;

static EngineResult drive(Explorer *ex, const Signal *signals, uint32_t signal_count)
{
    rewind_scripts(ex);
    ex->decisions = ex->slot_count;   /* the slots' decisions come first, made already */
    ex->delivery_count = 0;
    ex->event_count = 0;
    ex->now = 0;
    ex->stopped = false;
    SimWorld world = { .ctx = ex, .serve = serve, .record = record,
                       .signals = signals, .signal_count = signal_count,
                       .http_adapter = ex->scenario.http_adapter,
                       .host_children = (const uint8_t *const *)ex->scenario.host_children,
                       .serve_child = serve_child };
    return sim_drive(ex->module, ex->workflow, ex->input, &world, &ex->buffers, ex->arena, NULL);
}

/* When the await of slot `k` started in the last drive, or -1. */
static int64_t wait_started(const Explorer *ex, uint32_t k)
{
    const char *label = ex->module->strings[ex->module->workflows[ex->workflow]
                                                .steps[ex->slots[k].step].name].text;
    for (uint32_t i = 0; i < ex->event_count; i++) {
        const TestEvent *e = &ex->events[i];
        if (strcmp(e->event, "SignalWaitStarted") == 0 && e->step && strcmp(e->step, label) == 0)
            return e->time_ms;
    }
    return -1;
}

static uint32_t slot_menu(const Explorer *ex, uint32_t k, Choice *menu)
{
    const Slot *s = &ex->slots[k];
    uint32_t n = 0;
    add_choice(menu, &n, C_BASE, 0, NULL);
    if (s->base >= 0)
        add_choice(menu, &n, C_SIGNAL_NEVER, 0, NULL);
    else
        add_choice(menu, &n, C_SIGNAL_WAIT, 0, "as its await starts");
    if (s->timeout_ms > 0) {
        add_choice(menu, &n, C_SIGNAL_WAIT, s->timeout_ms - 1, "just before its await's timeout");
        add_choice(menu, &n, C_SIGNAL_WAIT, s->timeout_ms, "at its await's timeout");
        add_choice(menu, &n, C_SIGNAL_WAIT, s->timeout_ms + 1, "just after its await's timeout");
    }
    return n;
}

/* Runs the world of the tape (then the test's choices, or random ones from `rng`). */
static World run_world(Explorer *ex, const uint16_t *tape, uint32_t tape_len, Rng *rng)
{
    arena_rewind(ex->arena, ex->mark);
    ex->tape = tape;
    ex->tape_len = tape_len;
    ex->rng = rng;
    ex->decisions = 0;
    bool relative = false;
    for (uint32_t k = 0; k < ex->slot_count; k++) {
        Choice menu[MENU_MAX];
        uint32_t n = slot_menu(ex, k, menu);
        ex->slot_choices[k] = menu[decide(ex, n, (Key){ KEY_SLOT, k, 0, 0 })];
        relative |= ex->slot_choices[k].kind == C_SIGNAL_WAIT;
    }
    Scenario *sc = &ex->scenario;
    Signal *signals = arena_alloc(ex->arena, (sc->signal_count + ex->slot_count + 1)
                                                 * sizeof *signals);
    uint32_t count = 0;
    for (uint32_t i = 0; i < sc->signal_count; i++)
        if (!ex->slot_of_signal[i])
            signals[count++] = sc->signals[i];
    uint32_t fixed = count;
    for (uint32_t k = 0; k < ex->slot_count; k++) {
        const Slot *s = &ex->slots[k];
        const Choice *c = &ex->slot_choices[k];
        if (c->kind == C_BASE && s->base >= 0)
            signals[count++] = sc->signals[s->base];
    }
    if (relative) {
        /* When each await starts, in the world where those signals do not come. */
        uint32_t saved = ex->decisions;
        Rng copy;
        if (rng)
            copy = *rng;
        drive(ex, signals, count);
        if (rng)
            *rng = copy;
        ex->decisions = saved;
        for (uint32_t k = 0; k < ex->slot_count; k++) {
            const Slot *s = &ex->slots[k];
            const Choice *c = &ex->slot_choices[k];
            int64_t at = c->kind == C_SIGNAL_WAIT ? wait_started(ex, k) : -1;
            if (at < 0)
                continue;
            Value payload = s->base >= 0 ? sc->signals[s->base].payload : value_null();
            signals[count++] = (Signal){ s->name, s->name_string, at + c->arg, payload };
        }
    }
    (void)fixed;
    EngineResult r = drive(ex, signals, count);
    World w = { 0 };
    static const char *const STATUS[] = { "completed", "failed", "timed_out", "blocked" };
    w.status = ex->stopped ? "stopped" : STATUS[r.status];
    w.error = r.status == ENGINE_FAILED ? r.error : NULL;
    TestHistory h = { ex->events, ex->event_count, w.status, w.error, NULL, NULL };
    if (ex->needs_output && r.status == ENGINE_COMPLETED && !ex->stopped) {
        TextBuffer text = { 0 };
        value_to_json(&text, r.output);
        h.output = json_loadb(text.data, text.len, JSON_DECODE_ANY, NULL);
        text_free(&text);
    }
    w.broken = testing_invariants_check(ex->arena, &ex->invariants, &h, &w.why);
    json_decref(h.output);
    return w;
}

/* ---- exploring ------------------------------------------------------------------------ */

static uint32_t nonzero(const uint16_t *tape, uint32_t len)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < len; i++)
        n += tape[i] != 0;
    return n;
}

/* The last world's choices, without its trailing zeros, into *tape. */
static uint32_t take_choices(const Explorer *ex, uint16_t *tape)
{
    uint32_t len = ex->decisions < TAPE_MAX ? ex->decisions : TAPE_MAX;
    while (len > 0 && ex->choices[len - 1] == 0)
        len--;
    if (len > 0)   /* no decision yet: choices may be NULL */
        memcpy(tape, ex->choices, len * sizeof *tape);
    return len;
}

/* The next world with at most `most` non-default choices after the last one run, in the
 * order of a depth-first walk; false when there is none. */
static bool next_world(const Explorer *ex, uint16_t *tape, uint32_t *len, uint32_t most)
{
    uint32_t n = ex->decisions < TAPE_MAX ? ex->decisions : TAPE_MAX;
    if (n > 0)
        memcpy(tape, ex->choices, n * sizeof *tape);
    for (uint32_t i = n; i-- > 0;) {
        uint32_t before = nonzero(tape, i);
        if (tape[i] + 1 < ex->sizes[i] && (tape[i] > 0 || before < most)) {
            tape[i]++;
            *len = i + 1;
            return true;
        }
    }
    return false;
}

typedef struct Found {
    bool broken;
    World world;
    uint16_t *tape;
    uint32_t len;
} Found;

/* The non-default choices of the last world run (its first `cap` decisions), by key. */
static uint32_t take_keyed(const Explorer *ex, Key *keys, uint16_t *choices, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ex->decisions && i < cap; i++) {
        if (ex->choices[i]) {
            keys[n] = ex->keys[i];
            choices[n++] = ex->choices[i];
        }
    }
    return n;
}

/* Runs the world of these choices by key, every other decision the test's. */
static World run_keyed(Explorer *ex, const Key *keys, const uint16_t *choices, uint32_t n)
{
    ex->keyed = true;
    ex->want_keys = keys;
    ex->want_choices = choices;
    ex->want_count = n;
    World w = run_world(ex, NULL, 0, NULL);
    ex->keyed = false;
    return w;
}

/* Shrinks the world of `found`: each non-default choice, last first, made default, then
 * smaller, kept when the same invariant still breaks; until nothing changes. A choice is
 * kept on its key, not its place among the decisions (Key). */
static void shrink(Explorer *ex, Found *found, uint64_t *runs, uint32_t cap)
{
    Key *keys = xcalloc(cap + 1, sizeof *keys);
    uint16_t *choices = xcalloc(cap + 1, sizeof *choices);
    uint16_t *trial = xcalloc(cap + 1, sizeof *trial);
    ex->counting = true;
    run_world(ex, found->tape, found->len, NULL);
    uint32_t n = take_keyed(ex, keys, choices, cap);
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t j = n; j-- > 0;) {
            if (j >= n)
                continue;
            for (uint16_t c = 0; c < choices[j]; c++) {
                memcpy(trial, choices, n * sizeof *trial);
                trial[j] = c;
                World w = run_keyed(ex, keys, trial, n);
                ++*runs;
                if (!w.broken || strcmp(w.why.name, found->world.why.name) != 0)
                    continue;
                found->world = w;
                found->len = take_choices(ex, found->tape);
                n = take_keyed(ex, keys, choices, cap);
                changed = true;
                break;
            }
        }
    }
    ex->counting = false;
    free(keys);
    free(choices);
    free(trial);
}

/* ---- describing a world --------------------------------------------------------------- */

static const char *step_name(const Explorer *ex, uint32_t step)
{
    return ex->module->strings[ex->module->workflows[ex->workflow].steps[step].name].text;
}

static void duration_text(TextBuffer *out, int64_t ms)
{
    char text[ORBC_DURATION_TEXT_SIZE];
    orbc_format_duration(text, ms);
    text_append_str(out, text);
}

static void describe_choice(const Explorer *ex, TextBuffer *out, const Choice *c)
{
    switch (c->kind) {
    case C_FAIL: text_printf(out, "fails with %s (retryable)", RETRYABLE_CODE); break;
    case C_FAIL_CODE: text_append_str(out, "fails with its non-retryable code"); break;
    case C_NETWORK_ERROR: text_append_str(out, "a network error"); break;
    case C_NEVER: text_append_str(out, "never answers (its timeout fires)"); break;
    case C_LOST: text_append_str(out, "its worker is lost"); break;
    case C_ANSWER: text_append_str(out, "succeeds after "); duration_text(out, c->arg); break;
    case C_PICKUP: text_append_str(out, "is picked up after "); duration_text(out, c->arg); break;
    case C_SIGNAL_NEVER: text_append_str(out, "never comes"); break;
    case C_SIGNAL_WAIT:
        duration_text(out, c->arg);
        text_append_str(out, " after its await starts");
        break;
    default: text_append_str(out, "as the test says"); break;
    }
    if (c->why)
        text_printf(out, " (%s)", c->why);
    (void)ex;
}

/* Each non-default choice of the last world run, one per line. */
static const char *describe_world(const Explorer *ex, Arena *arena)
{
    TextBuffer out = { 0 };
    for (uint32_t k = 0; k < ex->slot_count; k++) {
        if (ex->slot_choices[k].kind == C_BASE)
            continue;
        text_printf(&out, "signal \"%s\" ", ex->slots[k].name);
        describe_choice(ex, &out, &ex->slot_choices[k]);
        text_append_str(&out, "\n");
    }
    for (uint32_t i = 0; i < ex->delivery_count; i++) {
        const Delivery *d = &ex->deliveries[i];
        if (!d->decided || d->choice.kind == C_BASE)
            continue;
        text_printf(&out, "attempt %u of %s%s: ", d->number, step_name(ex, d->step),
                    d->compensation ? ".compensate" : "");
        if (d->choice.kind == C_FAIL_CODE)
            text_printf(&out, "fails with %s (non-retryable)", d->outcome->code);
        else
            describe_choice(ex, &out, &d->choice);
        text_append_str(&out, "\n");
    }
    const char *text = arena_strndup(arena, out.data ? out.data : "", out.len);
    text_free(&out);
    return text;
}

/* ---- the world as an Orbit test ------------------------------------------------------- */

static void source_text(const Explorer *ex, TextBuffer *out, Span span)
{
    uint32_t file = source_file_at(ex->sources, span.start);
    const SourceFile *f = source_file(ex->sources, file);
    text_append(out, f->text + (span.start - f->origin), span.end - span.start);
}

static void value_text(TextBuffer *out, Arena *arena, Value v)
{
    TextBuffer json = { 0 };
    value_to_json(&json, v);
    json_t *parsed = json_loadb(json.data, json.len, JSON_DECODE_ANY, NULL);
    text_append_str(out, parsed ? testing_value_text(arena, parsed) : "null");
    json_decref(parsed);
    text_free(&json);
}

static void outcome_text(const Explorer *ex, TextBuffer *out, Arena *arena, const Delivery *d)
{
    const Outcome *o = d->outcome;
    bool builtin = d->task < ex->module->task_count
        && ex->module->tasks[d->task].kind == ORBC_TASK_BUILTIN;
    int64_t after = o ? o->after_ms : DEFAULT_ANSWER_MS;
    text_append_str(out, "{ ");
    if (!o && builtin) {
        text_append_str(out, "status: 200");
    } else if (!o) {
        text_append_str(out, "succeed: ");
        value_text(out, arena, contract_default(ex->module, arena,
                                                ex->module->tasks[d->task].output_type));
    } else {
        switch (o->kind) {
        case OUT_SUCCEED:
            text_append_str(out, "succeed: ");
            value_text(out, arena, o->output);
            break;
        case OUT_FAIL: {
            json_t *code = json_string(o->code ? o->code : "");
            text_printf(out, "fail: { code: %s", testing_value_text(arena, code));
            json_decref(code);
            if (o->message && o->message[0]) {
                json_t *message = json_string(o->message);
                text_printf(out, ", message: %s", testing_value_text(arena, message));
                json_decref(message);
            }
            text_append_str(out, o->retryable ? " }" : ", retryable: false }");
            break;
        }
        case OUT_NEVER: text_append_str(out, "never_answers: true"); break;
        case OUT_LOST:
            text_append_str(out, "lost_after: ");
            duration_text(out, o->after_ms);
            break;
        case OUT_HTTP_RESPONSE: {
            text_printf(out, "status: %lld", (long long)o->status);
            const Value *body = o->output.kind == ORBC_KIND_RECORD
                ? value_record_get(o->output.rec, "body") : NULL;
            const Value *headers = o->output.kind == ORBC_KIND_RECORD
                ? value_record_get(o->output.rec, "headers") : NULL;
            if (body && body->kind != ORBC_KIND_NULL) {
                text_append_str(out, ", body: ");
                value_text(out, arena, *body);
            }
            if (headers && headers->kind == ORBC_KIND_RECORD && headers->rec->count) {
                text_append_str(out, ", headers: ");
                value_text(out, arena, *headers);
            }
            break;
        }
        default: {
            json_t *message = json_string(o->message ? o->message : "");
            text_printf(out, "network_error: %s", testing_value_text(arena, message));
            json_decref(message);
            break;
        }
        }
    }
    if (!o || (o->kind != OUT_NEVER && o->kind != OUT_LOST)) {
        text_append_str(out, ", after: ");
        duration_text(out, after);
    }
    if (d->pickup_ms) {
        text_append_str(out, ", pickup: ");
        duration_text(out, d->pickup_ms);
    }
    text_append_str(out, " }");
}

/* Whether step `step`'s own attempts (or its compensation's) met a non-default choice. */
static bool step_changed(const Explorer *ex, uint32_t step, bool compensation)
{
    for (uint32_t i = 0; i < ex->delivery_count; i++) {
        const Delivery *d = &ex->deliveries[i];
        if (d->step == step && d->compensation == compensation && d->decided
            && d->choice.kind != C_BASE)
            return true;
    }
    return false;
}

static void attempts_text(const Explorer *ex, TextBuffer *out, Arena *arena, uint32_t step,
                          bool compensation, const char *indent)
{
    text_printf(out, "%sattempts: [\n", indent);
    for (uint32_t i = 0; i < ex->delivery_count; i++) {
        const Delivery *d = &ex->deliveries[i];
        if (d->step != step || d->compensation != compensation)
            continue;
        text_printf(out, "%s  ", indent);
        outcome_text(ex, out, arena, d);
        text_append_str(out, ",\n");
    }
    text_printf(out, "%s]\n", indent);
}

/* The test's `step NAME { … }` script, or NULL. */
static const Member *test_step(const Explorer *ex, const char *name)
{
    const Block *b = member_body(ex->test);
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        if (m->kind == MEMBER_CLAUSE && m->keyword == KW_STEP && m->name
            && strcmp(m->name->text, name) == 0)
            return m;
    }
    return NULL;
}

static void step_script_text(const Explorer *ex, TextBuffer *out, Arena *arena, uint32_t step)
{
    const char *name = step_name(ex, step);
    const Member *given = test_step(ex, name);
    const Block *body = given ? member_body(given) : NULL;
    text_printf(out, "  step %s {\n", name);
    bool own = step_changed(ex, step, false), comp = step_changed(ex, step, true);
    if (own)
        attempts_text(ex, out, arena, step, false, "    ");
    for (uint32_t i = 0; body && i < body->count; i++) {
        const Member *m = &body->members[i];
        bool is_comp = m->kind == MEMBER_CLAUSE && m->keyword == KW_COMPENSATE;
        if (m->kind == MEMBER_ERROR || (is_comp ? comp : own))
            continue;
        text_append_str(out, "    ");
        source_text(ex, out, m->span);
        text_append_str(out, "\n");
    }
    if (comp) {
        text_append_str(out, "    compensate {\n");
        attempts_text(ex, out, arena, step, true, "      ");
        text_append_str(out, "    }\n");
    }
    text_append_str(out, "  }\n");
}

/* The last world run as a test: the test's members but its `expect`, its signals and the
 * scripts of the steps whose attempts the world changed, which are written out whole;
 * then what the world ended with. */
static const char *world_test(const Explorer *ex, Arena *arena, const World *w,
                              const Signal *signals, uint32_t signal_count)
{
    TextBuffer out = { 0 };
    json_t *name = json_string(arena_printf(arena, "%s, explored: %s", ex->test->name->text,
                                            w->why.name));
    text_printf(&out, "test %s {\n", testing_value_text(arena, name));
    json_decref(name);
    const OrbcWorkflow *wf = &ex->module->workflows[ex->workflow];
    bool *changed = arena_alloc(arena, (wf->step_count + 1) * sizeof *changed);
    for (uint32_t s = 0; s < wf->step_count; s++)
        changed[s] = step_changed(ex, s, false) || step_changed(ex, s, true);
    const Block *b = member_body(ex->test);
    for (uint32_t i = 0; b && i < b->count; i++) {
        const Member *m = &b->members[i];
        const char *word = testing_member_word(m);
        if (m->kind == MEMBER_ERROR || strcmp(word, "expect") == 0
            || (strcmp(word, "signal") == 0 && m->kind == MEMBER_CLAUSE))
            continue;
        if (m->kind == MEMBER_CLAUSE && m->keyword == KW_STEP && m->name) {
            bool skip = false;
            for (uint32_t s = 0; s < wf->step_count; s++)
                skip |= changed[s] && strcmp(step_name(ex, s), m->name->text) == 0;
            if (skip)
                continue;
        }
        text_append_str(&out, "  ");
        source_text(ex, &out, m->span);
        text_append_str(&out, "\n");
    }
    for (uint32_t s = 0; s < wf->step_count; s++)
        if (changed[s])
            step_script_text(ex, &out, arena, s);
    for (uint32_t i = 0; i < signal_count; i++) {
        json_t *signal = json_string(signals[i].name);
        text_printf(&out, "  signal %s { at: ", testing_value_text(arena, signal));
        json_decref(signal);
        duration_text(&out, signals[i].at_ms);
        if (signals[i].payload.kind != ORBC_KIND_NULL) {
            text_append_str(&out, ", payload: ");
            value_text(&out, arena, signals[i].payload);
        }
        text_append_str(&out, " }\n");
    }
    /* What the world ended with, so that only the invariant fails; a world that blocks
       breaks an invariant that `status: blocked` would waive: it expects none. */
    bool blocked = strcmp(w->status, "blocked") == 0;
    if (!blocked && strcmp(w->status, "stopped") != 0) {
        text_printf(&out, "  expect {\n    status: %s\n", w->status);
        if (w->error) {
            json_t *code = json_string(w->error);
            text_printf(&out, "    error: %s\n", testing_value_text(arena, code));
            json_decref(code);
        }
        text_append_str(&out, "  }\n");
    }
    text_append_str(&out, "}\n");
    const char *text = arena_strndup(arena, out.data, out.len);
    text_free(&out);
    return text;
}

/* The signals of the last world run, as it resolved them (the fixed ones first). */
static uint32_t world_signals(Explorer *ex, Signal *out)
{
    Scenario *sc = &ex->scenario;
    uint32_t count = 0;
    for (uint32_t i = 0; i < sc->signal_count; i++)
        if (!ex->slot_of_signal[i])
            out[count++] = sc->signals[i];
    for (uint32_t k = 0; k < ex->slot_count; k++) {
        const Slot *s = &ex->slots[k];
        const Choice *c = &ex->slot_choices[k];
        if (c->kind == C_BASE && s->base >= 0) {
            out[count++] = sc->signals[s->base];
        } else if (c->kind == C_SIGNAL_WAIT) {
            int64_t at = wait_started(ex, k);
            if (at >= 0)
                out[count++] = (Signal){ s->name, s->name_string, at + c->arg,
                                         s->base >= 0 ? sc->signals[s->base].payload
                                                      : value_null() };
        }
    }
    return count;
}

/* ---- a test --------------------------------------------------------------------------- */

typedef struct Job {
    const Program *program;
    const OrbcModule *module;
    const SourceMap *sources;
    const Member *test;
    uint32_t workflow;
    ExploreResult *result;
    bool runnable;
} Job;

static bool user_invariants_read_output(const Member *test)
{
    const Block *b = member_body(test);
    for (uint32_t i = 0; b && i < b->count; i++)
        if (strcmp(testing_member_word(&b->members[i]), "invariant") == 0)
            return true;
    return false;
}

/* The slots: one per top-level await step of the workflow, each standing for the first
 * of the test's signals of its name that no earlier slot took. */
static void find_slots(Explorer *ex)
{
    const OrbcWorkflow *wf = &ex->module->workflows[ex->workflow];
    Scenario *sc = &ex->scenario;
    ex->slots = arena_alloc(ex->arena, (wf->step_count + 1) * sizeof *ex->slots);
    ex->slot_of_signal = arena_alloc(ex->arena, (sc->signal_count + 1) * sizeof(bool));
    for (uint32_t s = 0; s < wf->step_count; s++) {
        const OrbcStep *step = &wf->steps[s];
        if (step->kind != ORBC_STEP_AWAIT)
            continue;
        Slot *slot = &ex->slots[ex->slot_count++];
        *slot = (Slot){ s, step->target, ex->module->strings[step->target].text, -1,
                        step->timeout_ms };
        for (uint32_t i = 0; i < sc->signal_count; i++) {
            if (!ex->slot_of_signal[i] && sc->signals[i].name_string == step->target) {
                ex->slot_of_signal[i] = true;
                slot->base = (int)i;
                break;
            }
        }
    }
    ex->slot_choices = arena_alloc(ex->arena, (ex->slot_count + 1) * sizeof *ex->slot_choices);
}

static void explore_test(Job *job, Arena *arena, const ExploreOptions *options)
{
    ExploreResult *r = job->result;
    double start = now_seconds();
    TestingProblem problem = { "", UINT32_MAX };
    char *scenario = testing_scenario_of_test(job->test, &problem);
    Arena world_arena;
    arena_init(&world_arena);
    Explorer ex = { .module = job->module, .program = job->program, .sources = job->sources,
                    .workflow = job->workflow, .test = job->test, .arena = &world_arena };
    char err[1024];
    Value input;
    if (!scenario || !scenario_load("test", scenario, strlen(scenario), job->module,
                                    NULL, &world_arena, &ex.scenario, err, sizeof err)
        || !contract_conform(job->module, &world_arena,
                             job->module->workflows[ex.scenario.workflow].input_type,
                             ex.scenario.input, &input, err, sizeof err)) {
        r->status = EXPLORE_ERROR;
        r->message = arena_printf(arena, "the test's world cannot run: %s",
                                  scenario ? err : problem.message);
        free(scenario);
        arena_free(&world_arena);
        return;
    }
    free(scenario);
    ex.workflow = ex.scenario.workflow;
    ex.input = input;
    ex.deadline_ms = job->module->workflows[ex.workflow].timeout_ms;
    ex.needs_output = user_invariants_read_output(job->test);
    ex.invariants = (InvariantRun){ job->module, ex.workflow, job->test, true,
                                    testing_expects_blocked(job->test) };
    find_slots(&ex);
    ex.mark = arena_mark(&world_arena);

    uint64_t budget = options->budget ? options->budget : TESTING_EXPLORE_BUDGET;
    uint32_t cap = TAPE_MAX;
    uint16_t *tape = xcalloc(cap + 1, sizeof *tape);
    uint32_t len = 0;
    Found found = { .tape = xcalloc(cap + 1, sizeof(uint16_t)) };
    uint64_t worlds = 0;
    /* Exhaustive by the number of non-default choices, on half the budget. */
    bool exhausted = false, cut = false;   /* cut: by the budget, the time or the tape */
    for (uint32_t most = 0; !found.broken && !exhausted && !cut; most++) {
        len = 0;
        bool deeper = false;   /* a world with `most` non-default choices was run */
        for (;;) {
            World w = run_world(&ex, tape, len, NULL);
            worlds++;
            deeper |= nonzero(ex.choices, ex.decisions) == most;
            if (w.broken) {
                found = (Found){ true, w, found.tape, take_choices(&ex, found.tape) };
                break;
            }
            cut = ex.decisions > cap || worlds >= (budget + 1) / 2
                || (options->seconds > 0 && now_seconds() - start > options->seconds);
            if (cut)
                break;
            if (!next_world(&ex, tape, &len, most)) {
                exhausted = !deeper;   /* no world has `most` non-default choices: none more */
                break;
            }
        }
    }
    /* Then at random from the seed: world N's choices depend on the seed and N only. */
    for (uint64_t n = 0; !found.broken && !exhausted && worlds < budget; n++) {
        if (options->seconds > 0 && now_seconds() - start > options->seconds)
            break;
        Rng rng;
        rng_seed(&rng, options->seed, n);
        World w = run_world(&ex, NULL, 0, &rng);
        worlds++;
        if (w.broken)
            found = (Found){ true, w, found.tape, take_choices(&ex, found.tape) };
    }
    r->worlds = worlds;
    r->exhaustive = exhausted;
    if (found.broken) {
        found.len = found.len > cap ? cap : found.len;
        run_world(&ex, found.tape, found.len, NULL);
        r->found_size = nonzero(found.tape, found.len);
        r->found = describe_world(&ex, arena);
        shrink(&ex, &found, &r->shrink_runs, cap);
        World w = run_world(&ex, found.tape, found.len, NULL);
        r->status = EXPLORE_BROKEN;
        r->invariant = arena_strndup(arena, w.why.name, strlen(w.why.name));
        r->says = arena_strndup(arena, w.why.says, strlen(w.why.says));
        r->detail = arena_strndup(arena, w.why.detail, strlen(w.why.detail));
        r->shrunk_size = nonzero(found.tape, found.len);
        r->shrunk = describe_world(&ex, arena);
        r->outcome = w.error ? arena_printf(arena, "%s %s", w.status, w.error)
                             : arena_strndup(arena, w.status, strlen(w.status));
        Signal *signals = arena_alloc(&world_arena, (ex.scenario.signal_count + ex.slot_count + 1)
                                                        * sizeof *signals);
        uint32_t count = world_signals(&ex, signals);
        r->test = world_test(&ex, arena, &w, signals, count);
    }
    free(tape);
    free(found.tape);
    free(ex.choices);
    free(ex.sizes);
    free(ex.keys);
    free(ex.deliveries);
    free(ex.events);
    sim_buffers_free(&ex.buffers);
    arena_free(&world_arena);
    r->seconds = now_seconds() - start;
}

/* ---- the run -------------------------------------------------------------------------- */

typedef struct Pool {
    Job *jobs;
    uint32_t count;
    _Atomic uint32_t next;
    const ExploreOptions *options;
} Pool;

typedef struct Thread {
    Pool *pool;
    Arena *arena;
} Thread;

static void *thread_main(void *arg)
{
    Thread *t = arg;
    for (;;) {
        uint32_t i = atomic_fetch_add(&t->pool->next, 1);
        if (i >= t->pool->count)
            return NULL;
        if (t->pool->jobs[i].runnable)
            explore_test(&t->pool->jobs[i], t->arena, t->pool->options);
    }
}

bool testing_explore(Workspace *w, const ExploreOptions *options, ExploreRun *out, char *why,
                     size_t why_size)
{
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    out->seed = options->seed;
    double start = now_seconds();
    out->modules = xcalloc(w->roots.count + 1, sizeof *out->modules);
    out->module_count = w->roots.count;
    Job *jobs = NULL;
    uint32_t count = 0, capacity = 0;
    for (uint32_t i = 0; i < w->roots.count; i++) {
        const Program *p = w->checked[i];
        if (!p || p->test_count == 0)
            continue;
        if (!testing_load_module(w, i, &out->modules[i], why, why_size)) {
            free(jobs);
            return false;
        }
        for (uint32_t k = 0; k < p->test_count; k++) {
            const Member *test = p->tests[k];
            if (options->filter && !strstr(test->name->text, options->filter))
                continue;
            if (count == capacity) {
                capacity = capacity ? 2 * capacity : 16;
                jobs = xrealloc(jobs, capacity * sizeof *jobs);
            }
            Job *job = &jobs[count++];
            ExploreResult *r = arena_alloc(&out->arena, sizeof *r);
            memset(r, 0, sizeof *r);
            *job = (Job){ p, &out->modules[i], &w->c->sources, test, 0, r, false };
            r->name = test->name->text;
            r->program = w->roots.items[i].dir ? w->roots.items[i].dir : "";
            r->file = source_file(&w->c->sources, source_file_at(&w->c->sources,
                                                                 test->span.start))->path;
            testing_place(&w->c->sources, test->span.start, &r->line, &r->column);
            const char *no = NULL;
            const Workflow *wf = testing_workflow_of(&out->arena, p, test, &no);
            r->workflow = wf ? wf->name->text : "";
            if (!wf) {
                r->status = EXPLORE_ERROR;
                r->message = no;
                continue;
            }
            job->workflow = (uint32_t)(wf - p->workflows);
            job->runnable = true;
        }
    }
    unsigned threads = options->jobs ? options->jobs : 1;
    if (threads > EXPLORE_MAX_THREADS)
        threads = EXPLORE_MAX_THREADS;
    if (threads > count)
        threads = count ? count : 1;
    Pool pool = { jobs, count, 0, options };
    out->thread_count = threads;
    out->thread_arenas = xcalloc(threads, sizeof *out->thread_arenas);
    Thread *workers = xcalloc(threads, sizeof *workers);
    for (unsigned t = 0; t < threads; t++) {
        arena_init(&out->thread_arenas[t]);
        workers[t] = (Thread){ &pool, &out->thread_arenas[t] };
    }
    testing_threads_run(thread_main, workers, sizeof *workers, threads);
    free(workers);
    out->results = arena_alloc(&out->arena, (count + 1) * sizeof *out->results);
    out->count = count;
    for (uint32_t i = 0; i < count; i++) {
        ExploreResult *r = &out->results[i];
        *r = *jobs[i].result;
        out->clean += r->status == EXPLORE_CLEAN;
        out->broken += r->status == EXPLORE_BROKEN;
        out->errors += r->status == EXPLORE_ERROR;
        out->worlds += r->worlds + r->shrink_runs;
    }
    free(jobs);
    out->seconds = now_seconds() - start;
    return true;
}

void testing_explore_free(ExploreRun *run)
{
    for (uint32_t i = 0; i < run->module_count; i++)
        orbc_module_free(&run->modules[i]);
    free(run->modules);
    for (unsigned t = 0; t < run->thread_count; t++)
        arena_free(&run->thread_arenas[t]);
    free(run->thread_arenas);
    arena_free(&run->arena);
}

/* ---- reports -------------------------------------------------------------------------- */

static void indented(TextBuffer *out, const char *text, const char *indent)
{
    while (text && *text) {
        size_t line = strcspn(text, "\n");
        text_printf(out, "%s%.*s\n", indent, (int)line, text);
        text += line + (text[line] == '\n');
    }
}

void testing_explore_report_human(const ExploreRun *run, TextBuffer *out)
{
    for (uint32_t i = 0; i < run->count; i++) {
        const ExploreResult *r = &run->results[i];
        const char *tag = r->status == EXPLORE_CLEAN ? "ok    "
                        : r->status == EXPLORE_BROKEN ? "BROKEN" : "ERROR ";
        text_printf(out, "%s %s:%u:%u: %s", tag, r->file, r->line, r->column, r->name);
        if (r->status == EXPLORE_ERROR) {
            text_printf(out, ": %s\n", r->message);
            continue;
        }
        text_printf(out, " (%llu world%s%s)\n", (unsigned long long)r->worlds,
                    r->worlds == 1 ? "" : "s", r->exhaustive ? ", every one" : "");
        if (r->status != EXPLORE_BROKEN)
            continue;
        if (strcmp(r->invariant, r->says) != 0)
            text_printf(out, "  invariant \"%s\" broke: %s\n", r->invariant, r->says);
        else
            text_printf(out, "  invariant \"%s\" broke\n", r->invariant);
        text_printf(out, "    %s (the world ended %s)\n", r->detail, r->outcome);
        text_printf(out, "  the world found had %u non-default choice%s:\n", r->found_size,
                    r->found_size == 1 ? "" : "s");
        indented(out, r->found, "    ");
        text_printf(out, "  shrunk to %u (%llu runs):\n", r->shrunk_size,
                    (unsigned long long)r->shrink_runs);
        indented(out, r->shrunk, "    ");
        text_append_str(out, "  a test that fails the same way:\n\n");
        indented(out, r->test, "  ");
        text_append_str(out, "\n");
    }
    text_printf(out, "%u test%s explored: %u clean, %u broken, %u could not run; %llu worlds "
                     "tried (seed %llu)\n", run->count, run->count == 1 ? "" : "s", run->clean,
                run->broken, run->errors, (unsigned long long)run->worlds,
                (unsigned long long)run->seed);
}

static json_t *json_text(const char *text)
{
    return text ? diag_json_text0(text) : json_null();
}

static json_t *json_lines(const char *text)
{
    if (!text)
        return json_null();
    json_t *lines = json_array();
    while (*text) {
        size_t len = strcspn(text, "\n");
        json_array_append_new(lines, diag_json_text(text, len));
        text += len + (text[len] == '\n');
    }
    return lines;
}

static json_t *json_size(const ExploreResult *r, uint32_t size)
{
    return r->status == EXPLORE_BROKEN ? json_integer(size) : json_null();
}

void testing_explore_report_json(const ExploreRun *run, TextBuffer *out)
{
    static const char *const STATUS[] = { "clean", "broken", "error" };
    json_t *tests = json_array();
    for (uint32_t i = 0; i < run->count; i++) {
        const ExploreResult *r = &run->results[i];
        json_t *test = json_pack(
            "{s:o, s:o, s:o, s:I, s:I, s:o, s:s, s:o, s:I, s:b, s:I}",
            "name", json_text(r->name), "program", json_text(r->program),
            "file", json_text(r->file), "line", (json_int_t)r->line,
            "column", (json_int_t)r->column, "workflow", json_text(r->workflow),
            "status", STATUS[r->status], "message", json_text(r->message),
            "worlds", (json_int_t)r->worlds, "exhaustive", r->exhaustive,
            "shrink_runs", (json_int_t)r->shrink_runs);
        json_object_set_new(test, "invariant", json_text(r->invariant));
        json_object_set_new(test, "says", json_text(r->says));
        json_object_set_new(test, "detail", json_text(r->detail));
        json_object_set_new(test, "found_size", json_size(r, r->found_size));
        json_object_set_new(test, "shrunk_size", json_size(r, r->shrunk_size));
        json_object_set_new(test, "found", json_lines(r->found));
        json_object_set_new(test, "shrunk", json_lines(r->shrunk));
        json_object_set_new(test, "outcome", json_text(r->outcome));
        json_object_set_new(test, "test", json_text(r->test));
        json_object_set_new(test, "seconds", json_real(r->seconds));
        json_array_append_new(tests, test);
    }
    json_t *doc = json_pack("{s:i, s:I, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:f}}", "version", 1,
                            "seed", (json_int_t)run->seed, "tests", tests, "summary",
                            "total", (json_int_t)run->count, "clean", (json_int_t)run->clean,
                            "broken", (json_int_t)run->broken, "errors",
                            (json_int_t)run->errors, "worlds", (json_int_t)run->worlds,
                            "seconds", run->seconds);
    testing_append_json(out, doc);
}
