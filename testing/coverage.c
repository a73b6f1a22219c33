/* The coverage of Orbit tests (coverage.h; docs/testing.md, "Coverage").
 *
 * The items are made once from the module, in source order: per workflow its timeout,
 * then per step "reached" and the step's other items. Each step keeps the index of the
 * first item of each of its groups, so that an event finds its item in constant time.
 * A run's events name steps by their label (docs/runtime.md): `charge`, a unit of a `for`
 * step `fan[1]`, a compensate block's attempts `charge.compensate`, a step of a child
 * workflow after its parent's label, `pack[0]/pick`. A label without its last unit index
 * names one execution of a step (an instance), kept for the run in a map: its first event
 * says whether `when` held, the units seen and its completion how many items `for` had. */
#include "coverage.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "memory.h"
#include "namemap.h"
#include "utf8.h"

/* The kinds of items, in the order a step lists them: the one table of their names (JSON),
 * their text (the text table) and their group (a block of lcov branches; 0: a line, not a
 * branch). */
#define COVERAGE_KINDS(X)                                                         \
    X(WORKFLOW_TIMEOUT, "workflow_timeout", "workflow timeout", 1)                \
    X(STEP, "step", "reached", 0)                                                 \
    X(WHEN_TRUE, "when_true", "when true", 2)                                     \
    X(WHEN_FALSE, "when_false", "when false", 2)                                  \
    X(FOR_EMPTY, "for_empty", "for over 0 items", 3)                              \
    X(FOR_ONE, "for_one", "for over 1 item", 3)                                   \
    X(FOR_MANY, "for_many", "for over 2 or more items", 3)                        \
    X(ATTEMPT, "attempt", "attempt", 4)                                           \
    X(GAVE_UP, "gave_up", "gave up", 4)                                           \
    X(NON_RETRYABLE, "non_retryable", "non-retryable", 5)                         \
    X(TIMEOUT, "timeout", "timeout", 6)                                           \
    X(QUEUE_TIMEOUT, "queue_timeout", "queue timeout", 6)                         \
    X(AWAIT_TIMEOUT, "await_timeout", "await timeout", 6)                         \
    X(COMPENSATION_RAN, "compensation_ran", "compensation ran", 7)                \
    X(COMPENSATION_FAILED, "compensation_failed", "compensation failed", 7)

typedef enum ItemKind {
#define KIND_ENUM(name, json, text, group) KIND_##name,
    COVERAGE_KINDS(KIND_ENUM)
#undef KIND_ENUM
} ItemKind;

static const struct {
    const char *json;
    const char *text;
    uint8_t group;
} KINDS[] = {
#define KIND_ROW(name, json, text, group) {json, text, group},
    COVERAGE_KINDS(KIND_ROW)
#undef KIND_ROW
};

/* What an item is: its kind, where, and its argument (the attempt number, or the string
 * index of a non-retryable code). */
typedef struct Item {
    uint8_t kind;
    uint32_t workflow;
    uint32_t step;          /* ORBC_NONE: the workflow's own item */
    uint32_t arg;
} Item;

/* The index of the first item of each group of a step, or ORBC_NONE. */
typedef struct StepItems {
    uint32_t reached;
    uint32_t when;          /* true, then false */
    uint32_t for_items;     /* 0, 1, many */
    uint32_t attempt;       /* attempt 2, 3, …, N */
    uint32_t gave_up;
    uint32_t non_retryable; /* one per code of the policy, in its order */
    uint32_t timeout;       /* TIMEOUT (task and workflow steps) or AWAIT_TIMEOUT */
    uint32_t queue_timeout;
    uint32_t compensation;  /* ran, then failed */
} StepItems;

typedef struct WorkflowItems {
    uint32_t first, end;    /* its items */
    uint32_t timeout;       /* its workflow timeout item, or ORBC_NONE */
    StepItems *steps;
    NameMap by_name;        /* step name -> index */
} WorkflowItems;

/* One execution of a step in the run being added. */
typedef struct Instance {
    uint32_t workflow, step;
    uint32_t units;         /* 1 + the highest unit index seen */
    bool excluded;          /* skipped, or `when`/`for` failed: no `for` item */
    bool completed_whole;   /* StepCompleted of the step itself (not of a unit) */
} Instance;

struct Coverage {
    const OrbcModule *module;
    char *source_root;
    Arena arena;            /* the items and the maps of names */
    Item *items;
    uint32_t item_count;
    uint64_t *hits;         /* per item */
    char **unreachable;     /* per item: why no run can reach it (shown, not counted), or
                               NULL */
    uint64_t *runs;         /* per workflow: its executions, top and child */
    WorkflowItems *workflows;
    NameMap workflow_by_name;
    /* The run being added: */
    Arena run_arena;
    NameMap instances;      /* label of an instance -> index in `inst` */
    Instance *inst;
    size_t inst_count, inst_cap;
    char *prev_event, *prev_label;   /* the event before, for a workflow step's timeout */
};

static const char *module_string(const OrbcModule *m, uint32_t index)
{
    return index < m->string_count ? m->strings[index].text : "";
}

static uint32_t text_hash(const char *text)
{
    return orbc_hash(text, strlen(text));
}

static uint32_t add_items(Coverage *c, uint32_t *cap, ItemKind kind, uint32_t count,
                          uint32_t workflow, uint32_t step)
{
    if (count == 0)
        return ORBC_NONE;
    while (c->item_count + count > *cap) {
        *cap = *cap ? *cap * 2 : 64;
        c->items = xrealloc(c->items, *cap * sizeof *c->items);
    }
    uint32_t first = c->item_count;
    for (uint32_t i = 0; i < count; i++)
        c->items[c->item_count++] = (Item){.kind = (uint8_t)kind, .workflow = workflow,
                                           .step = step, .arg = i};
    return first;
}

static bool is_task(const OrbcStep *s)
{
    return s->kind == ORBC_STEP_WORKER || s->kind == ORBC_STEP_BUILTIN;
}

/* A timeout clause written on the step: the module keeps the effective timeout, and a
 * built-in task's default (orbit.http.request: 30 s) is taken as not written. */
static bool timeout_written(const OrbcModule *m, const OrbcStep *s)
{
    if (s->timeout_ms <= 0)
        return false;
    if (s->kind == ORBC_STEP_BUILTIN && s->target < m->task_count)
        return s->timeout_ms != m->tasks[s->target].default_timeout_ms;
    return s->kind != ORBC_STEP_SLEEP && s->kind != ORBC_STEP_COMPUTE;
}

static void make_step_items(Coverage *c, uint32_t *cap, uint32_t w, uint32_t k)
{
    const OrbcModule *m = c->module;
    const OrbcStep *s = &m->workflows[w].steps[k];
    StepItems *si = &c->workflows[w].steps[k];
    si->reached = add_items(c, cap, KIND_STEP, 1, w, k);
    si->when = ORBC_NONE;
    if (s->when_code != ORBC_NONE) {
        si->when = add_items(c, cap, KIND_WHEN_TRUE, 1, w, k);
        add_items(c, cap, KIND_WHEN_FALSE, 1, w, k);
    }
    si->for_items = ORBC_NONE;
    if (s->for_code != ORBC_NONE) {
        si->for_items = add_items(c, cap, KIND_FOR_EMPTY, 1, w, k);
        add_items(c, cap, KIND_FOR_ONE, 1, w, k);
        add_items(c, cap, KIND_FOR_MANY, 1, w, k);
    }
    uint32_t attempts = is_task(s) ? s->policy.attempts : 1;
    si->attempt = add_items(c, cap, KIND_ATTEMPT, attempts - 1, w, k);
    for (uint32_t i = 0; i + 1 < attempts; i++)
        c->items[si->attempt + i].arg = i + 2;
    si->gave_up = attempts > 1 ? add_items(c, cap, KIND_GAVE_UP, 1, w, k) : ORBC_NONE;
    uint32_t codes = is_task(s) ? s->policy.non_retryable_count : 0;
    si->non_retryable = add_items(c, cap, KIND_NON_RETRYABLE, codes, w, k);
    for (uint32_t i = 0; i < codes; i++)
        c->items[si->non_retryable + i].arg = s->policy.non_retryable[i];
    si->timeout = ORBC_NONE;
    if (timeout_written(m, s))
        si->timeout = add_items(c, cap, s->kind == ORBC_STEP_AWAIT ? KIND_AWAIT_TIMEOUT : KIND_TIMEOUT,
                                1, w, k);
    si->queue_timeout = is_task(s) && s->queue_timeout_ms > 0
                            ? add_items(c, cap, KIND_QUEUE_TIMEOUT, 1, w, k) : ORBC_NONE;
    si->compensation = ORBC_NONE;
    if (s->has_compensate) {
        si->compensation = add_items(c, cap, KIND_COMPENSATION_RAN, 1, w, k);
        add_items(c, cap, KIND_COMPENSATION_FAILED, 1, w, k);
    }
}

Coverage *coverage_new(const OrbcModule *module, const char *source_root)
{
    Coverage *c = xcalloc(1, sizeof *c);
    c->module = module;
    c->source_root = xstrdup(source_root ? source_root : "");
    arena_init(&c->arena);
    arena_init(&c->run_arena);
    c->workflows = xcalloc(module->workflow_count ? module->workflow_count : 1, sizeof *c->workflows);
    c->runs = xcalloc(module->workflow_count ? module->workflow_count : 1, sizeof *c->runs);
    namemap_init_text(&c->workflow_by_name, &c->arena, module->workflow_count);
    uint32_t cap = 0;
    for (uint32_t w = 0; w < module->workflow_count; w++) {
        const OrbcWorkflow *wf = &module->workflows[w];
        WorkflowItems *wi = &c->workflows[w];
        namemap_add(&c->workflow_by_name, &c->arena, module_string(module, wf->name),
                    text_hash(module_string(module, wf->name)), w);
        wi->first = c->item_count;
        wi->timeout = wf->timeout_ms > 0 ? add_items(c, &cap, KIND_WORKFLOW_TIMEOUT, 1, w, ORBC_NONE)
                                         : ORBC_NONE;
        wi->steps = arena_alloc(&c->arena, (wf->step_count ? wf->step_count : 1) * sizeof *wi->steps);
        namemap_init_text(&wi->by_name, &c->arena, wf->step_count);
        for (uint32_t k = 0; k < wf->step_count; k++) {
            const char *name = module_string(module, wf->steps[k].name);
            namemap_add(&wi->by_name, &c->arena, name, text_hash(name), k);
            make_step_items(c, &cap, w, k);
        }
        wi->end = c->item_count;
    }
    c->hits = xcalloc(c->item_count ? c->item_count : 1, sizeof *c->hits);
    c->unreachable = xcalloc(c->item_count ? c->item_count : 1, sizeof *c->unreachable);
    return c;
}

void coverage_timeout_unreachable(Coverage *c, uint32_t workflow, const char *why)
{
    if (workflow >= c->module->workflow_count || c->workflows[workflow].timeout == ORBC_NONE)
        return;
    char **slot = &c->unreachable[c->workflows[workflow].timeout];
    free(*slot);
    *slot = xstrdup(why);
}

void coverage_free(Coverage *c)
{
    if (!c)
        return;
    arena_free(&c->arena);
    arena_free(&c->run_arena);
    free(c->items);
    for (uint32_t i = 0; i < c->item_count; i++)
        free(c->unreachable[i]);
    free(c->unreachable);
    free(c->hits);
    free(c->runs);
    free(c->workflows);
    free(c->inst);
    free(c->source_root);
    free(c);
}

/* ---- reading a run ---- */

/* Where a label points: the step, the length of the instance's label (without the last
 * unit index and `.compensate`), the unit or -1, and whether it is a compensate block's. */
typedef struct Target {
    uint32_t workflow, step;
    size_t key_len;
    int64_t unit;
    bool compensate;
} Target;

static bool find_step(Coverage *c, uint32_t workflow, const char *name, size_t len, uint32_t *step)
{
    char small[128];
    char *key = len < sizeof small ? small : xmalloc(len + 1);
    memcpy(key, name, len);
    key[len] = '\0';
    bool found = namemap_get(&c->workflows[workflow].by_name, key, orbc_hash(key, len), step);
    if (key != small)
        free(key);
    return found;
}

static bool resolve(Coverage *c, uint32_t top, const char *label, Target *t)
{
    const OrbcModule *m = c->module;
    uint32_t w = top;
    const char *p = label;
    for (;;) {
        size_t name_len = strcspn(p, "[./");
        uint32_t step;
        if (name_len == 0 || !find_step(c, w, p, name_len, &step))
            return false;
        const char *q = p + name_len;
        int64_t unit = -1;
        if (*q == '[') {
            char *end;
            unsigned long long n = strtoull(q + 1, &end, 10);
            if (end == q + 1 || *end != ']' || n > INT64_MAX)
                return false;
            unit = (int64_t)n;
            q = end + 1;
        }
        if (*q == '/') {
            const OrbcStep *s = &m->workflows[w].steps[step];
            if (s->kind != ORBC_STEP_WORKFLOW || s->target >= m->workflow_count)
                return false;
            w = s->target;
            p = q + 1;
            continue;
        }
        bool compensate = strcmp(q, ".compensate") == 0;
        if (*q != '\0' && !compensate)
            return false;
        *t = (Target){.workflow = w, .step = step, .key_len = (size_t)(p + name_len - label),
                      .unit = unit, .compensate = compensate};
        return true;
    }
}

static const char *str_field(json_t *ev, const char *key)
{
    const char *s = json_string_value(json_object_get(ev, key));
    return s ? s : "";
}

/* The step's first event is its failure evaluating `what` (`when`, `for`). */
static bool failed_evaluating(const char *event, const char *error, const char *message,
                              const char *what)
{
    return strcmp(event, "StepFailed") == 0 && strcmp(error, "EXPRESSION_ERROR") == 0 &&
           strncmp(message, what, strlen(what)) == 0;
}

/* The instance a label names; made at its first event, which counts "reached" and `when`. */
static Instance *instance(Coverage *c, const char *label, const Target *t, const char *event,
                          const char *error, const char *message)
{
    char *key = arena_strndup(&c->run_arena, label, t->key_len);
    uint32_t hash = orbc_hash(key, t->key_len), index;
    if (namemap_get(&c->instances, key, hash, &index))
        return &c->inst[index];
    if (c->inst_count == c->inst_cap) {
        c->inst_cap = c->inst_cap ? c->inst_cap * 2 : 64;
        c->inst = xrealloc(c->inst, c->inst_cap * sizeof *c->inst);
    }
    index = (uint32_t)c->inst_count++;
    namemap_put(&c->instances, &c->run_arena, key, hash, index);
    Instance *in = &c->inst[index];
    *in = (Instance){.workflow = t->workflow, .step = t->step};
    const StepItems *si = &c->workflows[t->workflow].steps[t->step];
    c->hits[si->reached]++;
    bool skipped = strcmp(event, "StepSkipped") == 0;
    bool when_failed = failed_evaluating(event, error, message, "`when`");
    if (si->when != ORBC_NONE && !when_failed)
        c->hits[si->when + (skipped ? 1 : 0)]++;
    in->excluded = skipped || when_failed || failed_evaluating(event, error, message, "`for`");
    return in;
}

static bool is_code(const OrbcModule *m, uint32_t string, const char *code)
{
    return string < m->string_count && strcmp(m->strings[string].text, code) == 0 &&
           strlen(code) == m->strings[string].len;
}

static bool gave_up(const char *message, uint32_t attempts)
{
    char suffix[64];
    int n = snprintf(suffix, sizeof suffix, "(gave up after %" PRIu32 " attempts)", attempts);
    size_t len = strlen(message);
    return n > 0 && len >= (size_t)n && strcmp(message + len - (size_t)n, suffix) == 0;
}

static void count_step_event(Coverage *c, Instance *in, const Target *t, const char *label,
                             const char *event, json_t *ev)
{
    const OrbcModule *m = c->module;
    const OrbcStep *s = &m->workflows[t->workflow].steps[t->step];
    const StepItems *si = &c->workflows[t->workflow].steps[t->step];
    const char *error = str_field(ev, "error");
    if (t->unit >= (int64_t)in->units)
        in->units = t->unit >= UINT32_MAX ? UINT32_MAX : (uint32_t)t->unit + 1;
    if (strcmp(event, "StepCompleted") == 0) {
        if (t->unit < 0)
            in->completed_whole = true;
    } else if (strcmp(event, "StepScheduled") == 0) {
        json_int_t attempt = json_integer_value(json_object_get(ev, "attempt"));
        if (si->attempt != ORBC_NONE && attempt >= 2 && attempt <= (json_int_t)s->policy.attempts)
            c->hits[si->attempt + (uint32_t)(attempt - 2)]++;
    } else if (strcmp(event, "StepAttemptFailed") == 0) {
        for (uint32_t i = 0; si->non_retryable != ORBC_NONE && i < s->policy.non_retryable_count; i++)
            if (is_code(m, s->policy.non_retryable[i], error))
                c->hits[si->non_retryable + i]++;
        if (si->timeout != ORBC_NONE && is_task(s) && strcmp(error, "TIMEOUT") == 0)
            c->hits[si->timeout]++;
        if (si->queue_timeout != ORBC_NONE && strcmp(error, "QUEUE_TIMEOUT") == 0)
            c->hits[si->queue_timeout]++;
    } else if (strcmp(event, "StepFailed") == 0) {
        if (si->gave_up != ORBC_NONE && gave_up(str_field(ev, "message"), s->policy.attempts))
            c->hits[si->gave_up]++;
        if (si->timeout != ORBC_NONE && s->kind == ORBC_STEP_AWAIT &&
            strcmp(error, "SIGNAL_TIMEOUT") == 0)
            c->hits[si->timeout]++;
        /* A workflow step's timeout cancels its child, then fails the step (a child that
         * timed out by its own timeout fails it with TIMEOUT too, after
         * ChildWorkflowTimedOut). */
        if (si->timeout != ORBC_NONE && s->kind == ORBC_STEP_WORKFLOW &&
            strcmp(error, "TIMEOUT") == 0 && c->prev_event &&
            strcmp(c->prev_event, "ChildWorkflowCancelled") == 0 && strcmp(c->prev_label, label) == 0)
            c->hits[si->timeout]++;
    } else if (strcmp(event, "CompensationStarted") == 0) {
        if (si->compensation != ORBC_NONE)
            c->hits[si->compensation]++;
    } else if (strcmp(event, "CompensationFailed") == 0) {
        if (si->compensation != ORBC_NONE)
            c->hits[si->compensation + 1]++;
    }
}

static void add_event(Coverage *c, uint32_t top, json_t *ev)
{
    const char *event = json_string_value(json_object_get(ev, "event"));
    if (!event)
        return;
    const char *label = json_string_value(json_object_get(ev, "step"));
    uint32_t w;
    if (strcmp(event, "WorkflowStarted") == 0) {
        c->runs[top]++;
    } else if (strcmp(event, "WorkflowTimeoutReached") == 0) {
        const char *name = str_field(ev, "workflow");
        if (namemap_get(&c->workflow_by_name, name, text_hash(name), &w) &&
            c->workflows[w].timeout != ORBC_NONE)
            c->hits[c->workflows[w].timeout]++;
    } else if (label && strncmp(event, "Workflow", 8) != 0) {
        Target t;
        if (resolve(c, top, label, &t) && !t.compensate) {
            if (strcmp(event, "ChildWorkflowStarted") == 0) {
                const char *name = str_field(ev, "workflow");
                if (namemap_get(&c->workflow_by_name, name, text_hash(name), &w))
                    c->runs[w]++;
            }
            Instance *in = instance(c, label, &t, event, str_field(ev, "error"),
                                    str_field(ev, "message"));
            count_step_event(c, in, &t, label, event, ev);
        }
    }
    c->prev_event = arena_strndup(&c->run_arena, event, strlen(event));
    c->prev_label = label ? arena_strndup(&c->run_arena, label, strlen(label)) : NULL;
}

/* The `for` items of the run's instances, now that every unit was seen. */
static void finish_run(Coverage *c)
{
    for (size_t i = 0; i < c->inst_count; i++) {
        const Instance *in = &c->inst[i];
        const StepItems *si = &c->workflows[in->workflow].steps[in->step];
        if (si->for_items == ORBC_NONE || in->excluded)
            continue;
        if (in->units >= 2)
            c->hits[si->for_items + 2]++;
        else if (in->units == 1)
            c->hits[si->for_items + 1]++;
        else if (in->completed_whole)
            c->hits[si->for_items]++;
    }
}

void coverage_add_run(Coverage *c, uint32_t workflow, const char *history_json, size_t len)
{
    if (workflow >= c->module->workflow_count)
        return;
    arena_reset(&c->run_arena);
    namemap_init_text(&c->instances, &c->run_arena, 64);
    c->inst_count = 0;
    c->prev_event = c->prev_label = NULL;
    size_t at = 0;
    while (at < len) {
        const char *line = history_json + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t line_len = nl ? (size_t)(nl - line) : len - at;
        at += line_len + (nl ? 1 : 0);
        if (line_len == 0)
            continue;
        json_t *ev = json_loadb(line, line_len, 0, NULL);
        if (json_is_object(ev))
            add_event(c, workflow, ev);
        json_decref(ev);
    }
    finish_run(c);
}

void coverage_merge(Coverage *into, const Coverage *from)
{
    if (into->module != from->module || into->item_count != from->item_count)
        fatal("coverage_merge: the two coverages are of different modules");
    for (uint32_t i = 0; i < into->item_count; i++)
        into->hits[i] += from->hits[i];
    for (uint32_t w = 0; w < into->module->workflow_count; w++)
        into->runs[w] += from->runs[w];
}

/* ---- counts ---- */

static void count_range(const Coverage *c, uint32_t first, uint32_t end, uint64_t *covered,
                        uint64_t *total)
{
    *covered = *total = 0;
    for (uint32_t i = first; i < end; i++) {
        if (c->unreachable[i])
            continue;
        *total += 1;
        *covered += c->hits[i] > 0;
    }
}

void coverage_counts(const Coverage *const *list, uint32_t count, uint64_t *covered,
                     uint64_t *total)
{
    *covered = *total = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t c, t;
        count_range(list[i], 0, list[i]->item_count, &c, &t);
        *covered += c;
        *total += t;
    }
}

static double percent_of(uint64_t covered, uint64_t total)
{
    return total == 0 ? 100.0 : 100.0 * (double)covered / (double)total;
}

double coverage_percent(const Coverage *const *list, uint32_t count)
{
    uint64_t covered, total;
    coverage_counts(list, count, &covered, &total);
    return percent_of(covered, total);
}

bool coverage_meets(const Coverage *const *list, uint32_t count, double threshold)
{
    return coverage_percent(list, count) >= threshold;
}

/* ---- what an item is called and where it is ---- */

static uint32_t item_line(const Coverage *c, const Item *it)
{
    const OrbcWorkflow *wf = &c->module->workflows[it->workflow];
    return it->step == ORBC_NONE ? wf->line : wf->steps[it->step].line;
}

/* "step charge: attempt 2", "workflow timeout" */
static void item_text(const Coverage *c, const Item *it, TextBuffer *out)
{
    const OrbcModule *m = c->module;
    if (it->step == ORBC_NONE) {
        text_append_str(out, KINDS[it->kind].text);
        return;
    }
    text_printf(out, "step %s", module_string(m, m->workflows[it->workflow].steps[it->step].name));
    if (it->kind == KIND_STEP)
        return;
    text_printf(out, ": %s", KINDS[it->kind].text);
    if (it->kind == KIND_ATTEMPT)
        text_printf(out, " %" PRIu32, it->arg);
    else if (it->kind == KIND_NON_RETRYABLE)
        text_printf(out, " \"%s\"", module_string(m, it->arg));
}

/* The percentage as text, rounded down to a tenth (so 100.0 means every item). */
static void percent_text(TextBuffer *out, uint64_t covered, uint64_t total)
{
    double p = floor(percent_of(covered, total) * 10.0) / 10.0;
    text_printf(out, "%" PRIu64 " of %" PRIu64 " items covered (%.1f%%)", covered, total, p);
}

/* ---- text ---- */

/* The terminal cells of UTF-8 text (names may be any identifier: `step café`). */
static size_t text_cells(const char *text, size_t len)
{
    size_t cells = 0;
    for (size_t i = 0; i < len;) {
        int32_t cp;
        i += utf8_decode((const unsigned char *)text + i, len - i, &cp);
        cells += utf8_cells(cp);
    }
    return cells;
}

/* `text` and spaces up to `width` cells. */
static void append_padded(TextBuffer *out, const char *text, size_t len, size_t width)
{
    text_append(out, text, len);
    for (size_t cells = text_cells(text, len); cells < width; cells++)
        text_append(out, " ", 1);
}

/* The table of each workflow of `c`. */
static void write_text_workflows(const Coverage *c, TextBuffer *out)
{
    const OrbcModule *m = c->module;
    TextBuffer name = {0};
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        const OrbcWorkflow *wf = &m->workflows[w];
        const WorkflowItems *wi = &c->workflows[w];
        text_printf(out, "workflow %s (%s:%" PRIu32 "), %" PRIu64 " run%s\n",
                    module_string(m, wf->name), module_string(m, wf->file), wf->line, c->runs[w],
                    c->runs[w] == 1 ? "" : "s");
        size_t width = 4;
        for (uint32_t i = wi->first; i < wi->end; i++) {
            name.len = 0;
            item_text(c, &c->items[i], &name);
            size_t cells = text_cells(name.data, name.len);
            if (cells > width)
                width = cells;
        }
        text_printf(out, "  %6s  ", "line");
        append_padded(out, "item", 4, width);
        text_printf(out, "  %8s  %s\n", "hits", "covered");
        for (uint32_t i = wi->first; i < wi->end; i++) {
            name.len = 0;
            item_text(c, &c->items[i], &name);
            text_printf(out, "  %6" PRIu32 "  ", item_line(c, &c->items[i]));
            append_padded(out, name.data, name.len, width);
            if (c->unreachable[i])
                text_printf(out, "  %8" PRIu64 "  unreachable: %s\n", c->hits[i], c->unreachable[i]);
            else
                text_printf(out, "  %8" PRIu64 "  %s\n", c->hits[i], c->hits[i] ? "yes" : "no");
        }
        uint64_t covered, total;
        count_range(c, wi->first, wi->end, &covered, &total);
        text_printf(out, "  %s: ", module_string(m, wf->name));
        percent_text(out, covered, total);
        text_append_str(out, "\n\n");
    }
    text_free(&name);
}

void coverage_write_text(const Coverage *const *list, uint32_t count, TextBuffer *out)
{
    for (uint32_t i = 0; i < count; i++)
        write_text_workflows(list[i], out);
    uint64_t covered, total;
    coverage_counts(list, count, &covered, &total);
    text_append_str(out, "total: ");
    percent_text(out, covered, total);
    text_append_str(out, "\n");
}

/* ---- JSON ---- */

/* A string of the module as JSON (the loader checked that it is UTF-8). */
static json_t *json_module_string(const OrbcModule *m, uint32_t index)
{
    return index < m->string_count ? json_stringn(m->strings[index].text, m->strings[index].len)
                                   : json_string("");
}

static void set_counts(json_t *obj, uint64_t covered, uint64_t total)
{
    json_object_set_new(obj, "covered", json_integer((json_int_t)covered));
    json_object_set_new(obj, "total", json_integer((json_int_t)total));
    json_object_set_new(obj, "percent", json_real(percent_of(covered, total)));
}

/* Each workflow of `c` as an object of `workflows`. */
static void json_workflows(const Coverage *c, json_t *workflows)
{
    const OrbcModule *m = c->module;
    uint64_t covered, total;
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        const OrbcWorkflow *wf = &m->workflows[w];
        const WorkflowItems *wi = &c->workflows[w];
        json_t *o = json_object();
        json_object_set_new(o, "workflow", json_module_string(m, wf->name));
        json_object_set_new(o, "file", json_module_string(m, wf->file));
        json_object_set_new(o, "line", json_integer(wf->line));
        json_object_set_new(o, "runs", json_integer((json_int_t)c->runs[w]));
        count_range(c, wi->first, wi->end, &covered, &total);
        set_counts(o, covered, total);
        json_t *items = json_array();
        for (uint32_t i = wi->first; i < wi->end; i++) {
            const Item *it = &c->items[i];
            json_t *item = json_object();
            json_object_set_new(item, "item", json_string(KINDS[it->kind].json));
            /* Every item has every key, null where it does not apply. */
            json_object_set_new(item, "step", it->step == ORBC_NONE
                                                  ? json_null()
                                                  : json_module_string(m, wf->steps[it->step].name));
            json_object_set_new(item, "attempt",
                                it->kind == KIND_ATTEMPT ? json_integer(it->arg) : json_null());
            json_object_set_new(item, "code", it->kind == KIND_NON_RETRYABLE
                                                  ? json_module_string(m, it->arg)
                                                  : json_null());
            json_object_set_new(item, "line", json_integer(item_line(c, it)));
            json_object_set_new(item, "hits", json_integer((json_int_t)c->hits[i]));
            json_object_set_new(item, "covered", json_boolean(c->hits[i] > 0));
            json_object_set_new(item, "unreachable", c->unreachable[i]
                                                         ? json_string(c->unreachable[i])
                                                         : json_null());
            json_array_append_new(items, item);
        }
        json_object_set_new(o, "items", items);
        json_array_append_new(workflows, o);
    }
}

void coverage_write_json(const Coverage *const *list, uint32_t count, TextBuffer *out)
{
    json_t *root = json_object();
    uint64_t covered, total;
    coverage_counts(list, count, &covered, &total);
    set_counts(root, covered, total);
    json_t *workflows = json_array();
    for (uint32_t i = 0; i < count; i++)
        json_workflows(list[i], workflows);
    json_object_set_new(root, "workflows", workflows);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    if (!text)
        out_of_memory();
    text_append_str(out, text);
    text_append_str(out, "\n");
    free(text);
    json_decref(root);
}

/* ---- lcov ---- */

typedef struct Branch {
    uint32_t line;
    uint32_t group;         /* the step's group: unique in the workflow, in item order */
    uint32_t order;         /* the item's index: the order of branches on a line */
    uint64_t taken;
    bool reached;
} Branch;

typedef struct LineHits {
    uint32_t line;
    uint64_t hits;
} LineHits;

static int branch_cmp(const void *a, const void *b)
{
    const Branch *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int line_cmp(const void *a, const void *b)
{
    const LineHits *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void write_source_name(const Coverage *c, TextBuffer *out, const char *file)
{
    text_append_str(out, "SF:");
    size_t root_len = strlen(c->source_root);
    if (root_len > 0 && file[0] != '/') {
        text_append_str(out, c->source_root);
        if (c->source_root[root_len - 1] != '/')
            text_append_str(out, "/");
    }
    text_append_str(out, file);
    text_append_str(out, "\n");
}

/* The record of one source file: `count` workflows whose file it is, in module order. */
static void write_lcov_file(const Coverage *c, TextBuffer *out, const uint32_t *wfs, uint32_t count)
{
    const OrbcModule *m = c->module;
    text_append_str(out, "TN:\n");
    write_source_name(c, out, module_string(m, m->workflows[wfs[0]].file));
    uint32_t functions_hit = 0;
    for (uint32_t k = 0; k < count; k++)
        text_printf(out, "FN:%" PRIu32 ",%s\n", m->workflows[wfs[k]].line,
                    module_string(m, m->workflows[wfs[k]].name));
    for (uint32_t k = 0; k < count; k++) {
        uint32_t w = wfs[k];
        text_printf(out, "FNDA:%" PRIu64 ",%s\n", c->runs[w], module_string(m, m->workflows[w].name));
        functions_hit += c->runs[w] > 0;
    }
    text_printf(out, "FNF:%" PRIu32 "\nFNH:%" PRIu32 "\n", count, functions_hit);

    Branch *branches = NULL;
    LineHits *lines = NULL;
    size_t nb = 0, nl = 0, cap_b = 0, cap_l = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t w = wfs[k];
        const WorkflowItems *wi = &c->workflows[w];
        uint32_t group = 0;
        uint8_t last_group = 0;
        uint32_t last_step = ORBC_NONE;
        for (uint32_t i = wi->first; i < wi->end; i++) {
            const Item *it = &c->items[i];
            uint32_t line = item_line(c, it);
            if (it->kind == KIND_STEP) {
                if (nl == cap_l) {
                    cap_l = cap_l ? cap_l * 2 : 32;
                    lines = xrealloc(lines, cap_l * sizeof *lines);
                }
                lines[nl++] = (LineHits){line, c->hits[i]};
                continue;
            }
            if (c->unreachable[i])
                continue;   /* no run can take it: not a branch */
            if (KINDS[it->kind].group != last_group || it->step != last_step)
                group++;
            last_group = KINDS[it->kind].group;
            last_step = it->step;
            bool reached = it->step == ORBC_NONE ? c->runs[w] > 0
                                                 : c->hits[wi->steps[it->step].reached] > 0;
            if (nb == cap_b) {
                cap_b = cap_b ? cap_b * 2 : 32;
                branches = xrealloc(branches, cap_b * sizeof *branches);
            }
            branches[nb++] = (Branch){line, group, i, c->hits[i], reached};
        }
    }
    if (nl)
        qsort(lines, nl, sizeof *lines, line_cmp);
    if (nb)
        qsort(branches, nb, sizeof *branches, branch_cmp);

    /* Blocks are numbered on each line from 0, one per group of a step. */
    uint32_t branches_hit = 0, block = 0, branch = 0;
    for (size_t i = 0; i < nb; i++) {
        const Branch *b = &branches[i];
        if (i == 0 || b->line != branches[i - 1].line) {
            block = 0;
            branch = 0;
        } else if (b->group != branches[i - 1].group) {
            block++;
            branch = 0;
        }
        if (b->reached)
            text_printf(out, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 "\n", b->line,
                        block, branch, b->taken);
        else
            text_printf(out, "BRDA:%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",-\n", b->line, block, branch);
        branch++;
        branches_hit += b->taken > 0;
    }
    text_printf(out, "BRF:%zu\nBRH:%" PRIu32 "\n", nb, branches_hit);

    uint32_t lines_found = 0, lines_hit = 0;
    for (size_t i = 0; i < nl;) {
        uint32_t line = lines[i].line;
        uint64_t hits = 0;
        for (; i < nl && lines[i].line == line; i++)
            hits += lines[i].hits;
        text_printf(out, "DA:%" PRIu32 ",%" PRIu64 "\n", line, hits);
        lines_found++;
        lines_hit += hits > 0;
    }
    text_printf(out, "LF:%" PRIu32 "\nLH:%" PRIu32 "\nend_of_record\n", lines_found, lines_hit);
    free(branches);
    free(lines);
}

/* The records of the source files of `c`. */
static void write_lcov_records(const Coverage *c, TextBuffer *out)
{
    const OrbcModule *m = c->module;
    uint32_t n = m->workflow_count;
    if (n == 0)
        return;
    /* One record per file, in the order the workflows first name them: each workflow's
     * file numbered by a map of the files' names, then the workflows bucketed by it. */
    Arena a;
    arena_init(&a);
    NameMap files;
    namemap_init_text(&files, &a, n);
    uint32_t *file_of = xcalloc(n, sizeof *file_of);
    uint32_t *start = xcalloc(n + 1, sizeof *start);
    uint32_t *order = xcalloc(n, sizeof *order);
    uint32_t file_count = 0;
    for (uint32_t w = 0; w < n; w++) {
        const char *file = module_string(m, m->workflows[w].file);
        uint32_t hash = text_hash(file);
        if (!namemap_get(&files, file, hash, &file_of[w])) {
            file_of[w] = file_count++;
            namemap_put(&files, &a, file, hash, file_of[w]);
        }
        start[file_of[w] + 1]++;
    }
    for (uint32_t f = 0; f < file_count; f++)
        start[f + 1] += start[f];
    uint32_t *next = xcalloc(file_count, sizeof *next);
    for (uint32_t w = 0; w < n; w++)
        order[start[file_of[w]] + next[file_of[w]]++] = w;
    for (uint32_t f = 0; f < file_count; f++)
        write_lcov_file(c, out, order + start[f], start[f + 1] - start[f]);
    free(next);
    free(order);
    free(start);
    free(file_of);
    arena_free(&a);
}

void coverage_write_lcov(const Coverage *const *list, uint32_t count, TextBuffer *out)
{
    for (uint32_t i = 0; i < count; i++)
        write_lcov_records(list[i], out);
}
