/* compat: contracts compared as types (docs/bytecode.md §3.3, TYPES): equal, or one
 * within the other (every value the first accepts, the second accepts), and the
 * contract changes of workflows (their callers) and tasks (their deployed workers). */
#include <stdio.h>
#include <string.h>

#include "compat_internal.h"
#include "orbc_value.h"

enum { MAX_DEPTH = 64 };   /* deeper types are taken as different: conservative */

static const OrbcType *type_at(const OrbcModule *m, uint32_t t)
{
    static const OrbcType any = { .kind = ORBC_TYPE_ANY };
    return t < m->type_count ? &m->types[t] : &any;
}

static bool name_same(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b)
{
    if (a == ORBC_NONE || b == ORBC_NONE)
        return a == b;
    return strcmp(compat_str(ma, a), compat_str(mb, b)) == 0;
}

static bool equal(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b, int depth)
{
    const OrbcType *x = type_at(ma, a), *y = type_at(mb, b);
    if (x->kind != y->kind || depth > MAX_DEPTH)
        return false;
    if (x->kind == ORBC_TYPE_LIST || x->kind == ORBC_TYPE_OPTIONAL)
        return equal(ma, x->elem, mb, y->elem, depth + 1);
    if (x->kind != ORBC_TYPE_RECORD)
        return true;
    if (!name_same(ma, x->name, mb, y->name) || x->field_count != y->field_count)
        return false;
    for (uint32_t i = 0; i < x->field_count; i++) {
        const OrbcField *f = &x->fields[i], *g = &y->fields[i];
        if (f->optional != g->optional || !name_same(ma, f->name, mb, g->name)
            || !equal(ma, f->type, mb, g->type, depth + 1))
            return false;
    }
    return true;
}

bool compat_type_equal(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b)
{
    return equal(ma, a, mb, b, 0);
}

typedef struct Within {
    const OrbcModule *ma, *mb;
    bool extra_ok;
    char *why;
    size_t why_len;
    bool *missing;
    char path[256];
} Within;

static bool refuse(Within *w, const char *what)
{
    snprintf(w->why, w->why_len, "%s%s%s%s", what, *w->path ? " at `" : "", w->path,
             *w->path ? "`" : "");
    return false;
}

static const OrbcField *field_named(const OrbcModule *m, const OrbcType *t, const char *name)
{
    for (uint32_t i = 0; i < t->field_count; i++) {
        if (strcmp(compat_str(m, t->fields[i].name), name) == 0)
            return &t->fields[i];
    }
    return NULL;
}

static bool within(Within *w, uint32_t a, uint32_t b, int depth);

static bool record_within(Within *w, const OrbcType *x, const OrbcType *y, int depth)
{
    size_t mark = strlen(w->path);
    for (uint32_t i = 0; i < x->field_count; i++) {
        const OrbcField *f = &x->fields[i];
        const char *name = compat_str(w->ma, f->name);
        const OrbcField *g = field_named(w->mb, y, name);
        snprintf(w->path + mark, sizeof w->path - mark, "%s%s", mark ? "." : "", name);
        if (!g) {
            if (w->extra_ok)
                continue;
            w->path[mark] = '\0';
            char what[160];
            snprintf(what, sizeof what, "field `%.100s` is not accepted", name);
            return refuse(w, what);
        }
        if (f->optional && !g->optional)
            return refuse(w, "a field that may be absent is required");
        if (!within(w, f->type, g->type, depth + 1))
            return false;
    }
    w->path[mark] = '\0';
    for (uint32_t i = 0; i < y->field_count; i++) {
        const OrbcField *g = &y->fields[i];
        const char *name = compat_str(w->mb, g->name);
        if (!g->optional && !field_named(w->ma, x, name)) {
            *w->missing = true;
            char what[160];
            snprintf(what, sizeof what, "field `%.100s` is required", name);
            return refuse(w, what);
        }
    }
    return true;
}

static bool within(Within *w, uint32_t a, uint32_t b, int depth)
{
    const OrbcType *x = type_at(w->ma, a), *y = type_at(w->mb, b);
    if (depth > MAX_DEPTH)
        return refuse(w, "the types nest too deep to compare");
    if (y->kind == ORBC_TYPE_ANY)
        return true;
    if (y->kind == ORBC_TYPE_OPTIONAL) {
        if (x->kind == ORBC_TYPE_NULL)
            return true;
        return within(w, x->kind == ORBC_TYPE_OPTIONAL ? x->elem : a, y->elem, depth + 1);
    }
    if (x->kind == ORBC_TYPE_ANY || x->kind == ORBC_TYPE_OPTIONAL)
        return refuse(w, x->kind == ORBC_TYPE_ANY ? "any value is no longer accepted"
                                                  : "null is no longer accepted");
    if (x->kind == ORBC_TYPE_INT && y->kind == ORBC_TYPE_NUMBER)
        return true;
    if (x->kind != y->kind) {
        char what[96];
        snprintf(what, sizeof what, "%s became %s", compat_type_text(NULL, w->ma, a),
                 compat_type_text(NULL, w->mb, b));
        return refuse(w, what);
    }
    if (x->kind == ORBC_TYPE_LIST)
        return within(w, x->elem, y->elem, depth + 1);
    if (x->kind == ORBC_TYPE_RECORD)
        return record_within(w, x, y, depth);
    return true;
}

bool compat_type_within(const OrbcModule *ma, uint32_t a, const OrbcModule *mb, uint32_t b,
                        bool extra_ok, char *why, size_t why_len, bool *missing)
{
    Within w = { ma, mb, extra_ok, why, why_len, missing, "" };
    *missing = false;
    if (why_len)
        why[0] = '\0';
    return within(&w, a, b, 0);
}

/* A short name of a type's kind; a named record by its name. */
const char *compat_type_text(Arena *arena, const OrbcModule *m, uint32_t type)
{
    static const char *const kinds[] = { "any", "null", "bool", "int", "number", "string",
                                         "duration", "a list", "an optional", "a record" };
    (void)arena;
    const OrbcType *t = type_at(m, type);
    if (t->kind == ORBC_TYPE_RECORD && t->name != ORBC_NONE)
        return compat_str(m, t->name);
    return t->kind < 10 ? kinds[t->kind] : "?";
}

/* ---- workflows: their callers ---- */

static CompatLoc wf_loc(const OrbcModule *m, uint32_t wf)
{
    const OrbcWorkflow *w = &m->workflows[wf];
    return (CompatLoc){ compat_str(m, w->file), w->line, w->column };
}

static void input_contract(CompatRun *run, uint32_t i, uint32_t j, const char *name)
{
    const OrbcWorkflow *a = &run->old->workflows[i], *b = &run->new->workflows[j];
    if (compat_type_equal(run->old, a->input_type, run->new, b->input_type))
        return;
    CompatLoc lo = wf_loc(run->old, i), ln = wf_loc(run->new, j);
    char why[320];
    bool missing;
    uint32_t c;
    if (compat_type_within(run->old, a->input_type, run->new, b->input_type, false, why,
                           sizeof why, &missing))
        c = compat_add_change(run, COMPAT_WORKFLOW_INPUT_WIDENED, name, &lo, &ln,
                              "the input of workflow `%s` accepts more values", name);
    else
        c = compat_add_change(run, missing ? COMPAT_WORKFLOW_INPUT_REQUIRED_ADDED
                                           : COMPAT_WORKFLOW_INPUT_NARROWED, name, &lo, &ln,
                              "the input of workflow `%s` refuses what callers send: %s", name, why);
    compat_add_effect(run, c, i, ORBC_NONE, ASPECT_WORKFLOW, 0);
}

static void output_contract(CompatRun *run, uint32_t i, uint32_t j, const char *name)
{
    const OrbcWorkflow *a = &run->old->workflows[i], *b = &run->new->workflows[j];
    if (compat_type_equal(run->old, a->output_type, run->new, b->output_type))
        return;
    CompatLoc lo = wf_loc(run->old, i), ln = wf_loc(run->new, j);
    char why[320];
    bool missing;
    uint32_t c;
    if (compat_type_within(run->new, b->output_type, run->old, a->output_type, false, why,
                           sizeof why, &missing))
        c = compat_add_change(run, COMPAT_WORKFLOW_OUTPUT_NARROWED, name, &lo, &ln,
                              "the result of workflow `%s` holds fewer kinds of values", name);
    else
        c = compat_add_change(run, missing ? COMPAT_WORKFLOW_OUTPUT_FIELD_REMOVED
                                           : COMPAT_WORKFLOW_OUTPUT_WIDENED, name, &lo, &ln,
                              "the result of workflow `%s` is not what callers read: %s", name, why);
    compat_add_effect(run, c, i, ORBC_NONE, ASPECT_RESULT, 0);
}

void compat_workflow_contracts(CompatRun *run, uint32_t i, uint32_t j)
{
    const OrbcWorkflow *a = &run->old->workflows[i], *b = &run->new->workflows[j];
    const char *name = compat_str(run->old, a->name);
    input_contract(run, i, j, name);
    output_contract(run, i, j, name);
    CompatLoc lo = wf_loc(run->old, i), ln = wf_loc(run->new, j);
    if (a->timeout_ms != b->timeout_ms) {
        char x[ORBC_DURATION_TEXT_SIZE] = "none", y[ORBC_DURATION_TEXT_SIZE] = "none";
        if (a->timeout_ms)
            orbc_format_duration(x, a->timeout_ms);
        if (b->timeout_ms)
            orbc_format_duration(y, b->timeout_ms);
        uint32_t c = compat_add_change(run, COMPAT_WORKFLOW_TIMEOUT_CHANGED, name, &lo, &ln,
                                       "the timeout of workflow `%s` changed from %s to %s",
                                       name, x, y);
        compat_add_effect(run, c, i, ORBC_NONE, ASPECT_WORKFLOW, 0);
    }
    if (strcmp(compat_str(run->old, a->file), compat_str(run->new, b->file)) != 0) {
        uint32_t c = compat_add_change(run, COMPAT_CODE_MOVED, name, &lo, &ln,
                                       "workflow `%s` is in another file (`%s`, not `%s`), "
                                       "which its expressions' errors name", name,
                                       compat_str(run->new, b->file), compat_str(run->old, a->file));
        compat_add_effect(run, c, i, ORBC_NONE, ASPECT_FAILURE, 0);
    }
    if (!compat_code_same(run, a, a->return_code, b, b->return_code)) {
        CompatLoc co = compat_code_loc(run->old, a->return_code);
        CompatLoc cn = compat_code_loc(run->new, b->return_code);
        uint32_t c = compat_add_change(run, COMPAT_WORKFLOW_RESULT_CHANGED, name,
                                       co.file ? &co : &lo, cn.file ? &cn : &ln,
                                       "the `return` of workflow `%s` changed", name);
        compat_add_effect(run, c, i, ORBC_NONE, ASPECT_RESULT, 0);
    }
}

/* ---- tasks: their deployed workers ---- */

/* Where each task of a module is first run (its first step or compensate block; file
 * NULL for none), in one pass over the steps. */
static CompatLoc *first_runs(CompatRun *run, const OrbcModule *m)
{
    CompatLoc *at = arena_alloc(run->arena, (m->task_count + 1) * sizeof *at);
    for (uint32_t w = 0; w < m->workflow_count; w++) {
        const OrbcWorkflow *wf = &m->workflows[w];
        for (uint32_t s = 0; s < wf->step_count; s++) {
            const OrbcStep *st = &wf->steps[s];
            if (st->kind <= ORBC_STEP_BUILTIN && st->target < m->task_count && !at[st->target].file)
                at[st->target] = (CompatLoc){ compat_str(m, wf->file), st->line, st->column };
            uint32_t c = st->compensate.task;
            if (st->has_compensate && c < m->task_count && !at[c].file)
                at[c] = (CompatLoc){ compat_str(m, wf->file), st->compensate.line,
                                     st->compensate.column };
        }
    }
    return at;
}

/* A step or compensate block of OLD that runs a task. */
typedef struct TaskUse {
    uint32_t wf, step;
    bool compensate;
} TaskUse;

/* OLD's uses of each task, grouped by task (uses[first[t]..first[t + 1]]), in one pass. */
typedef struct TaskUses {
    TaskUse *uses;
    uint32_t *first;
} TaskUses;

static void task_uses(CompatRun *run, TaskUses *out)
{
    const OrbcModule *m = run->old;
    out->first = arena_alloc(run->arena, (m->task_count + 2) * sizeof *out->first);
    uint32_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t w = 0; w < m->workflow_count; w++) {
            const OrbcWorkflow *wf = &m->workflows[w];
            for (uint32_t s = 0; s < wf->step_count; s++) {
                const OrbcStep *st = &wf->steps[s];
                uint32_t tasks[2] = { st->kind <= ORBC_STEP_BUILTIN ? st->target : ORBC_NONE,
                                      st->has_compensate ? st->compensate.task : ORBC_NONE };
                for (int k = 0; k < 2; k++) {
                    if (tasks[k] >= m->task_count)
                        continue;
                    if (pass == 0)
                        out->first[tasks[k] + 1]++;
                    else
                        out->uses[out->first[tasks[k]]++] = (TaskUse){ w, s, k == 1 };
                }
            }
        }
        if (pass == 0) {
            for (uint32_t t = 0; t < m->task_count; t++)
                out->first[t + 1] += out->first[t];
            total = out->first[m->task_count];
            out->uses = arena_alloc(run->arena, (total + 1) * sizeof *out->uses);
        }
    }
    /* the second pass moved each first[t] to the end of its group: shift back */
    for (uint32_t t = m->task_count; t > 0; t--)
        out->first[t] = out->first[t - 1];
    out->first[0] = 0;
}

/* Every step and compensate block of OLD that runs task `task` is stopped by change `c`. */
static void task_effects(CompatRun *run, const TaskUses *uses, uint32_t task, uint32_t c)
{
    for (uint32_t k = uses->first[task]; k < uses->first[task + 1]; k++) {
        const TaskUse *u = &uses->uses[k];
        compat_add_effect(run, c, u->wf, u->step,
                          u->compensate ? ASPECT_COMPENSATE : ASPECT_IDENTITY, 0);
    }
}

typedef struct Tasks {
    TaskUses uses;
    CompatLoc *old_at, *new_at;     /* where each task is first run */
} Tasks;

static void task_contract(CompatRun *run, const Tasks *tasks, uint32_t i, uint32_t j)
{
    const OrbcTask *a = &run->old->tasks[i], *b = &run->new->tasks[j];
    const char *name = compat_str(run->old, a->name);
    const CompatLoc *plo = tasks->old_at[i].file ? &tasks->old_at[i] : NULL;
    const CompatLoc *pln = tasks->new_at[j].file ? &tasks->new_at[j] : NULL;
    char why[320];
    bool missing, changed = false, broken = false;
    if (!compat_type_equal(run->old, a->input_type, run->new, b->input_type)) {
        changed = true;
        broken = !compat_type_within(run->new, b->input_type, run->old, a->input_type, true,
                                     why, sizeof why, &missing);
        if (broken)
            task_effects(run, &tasks->uses, i, compat_add_change(
                run, COMPAT_TASK_INPUT_CONTRACT_BROKEN, NULL, plo, pln,
                "the input of task `%s` is not what its deployed workers read: %s", name, why));
    }
    if (!compat_type_equal(run->old, a->output_type, run->new, b->output_type)) {
        changed = true;
        bool narrowed = !compat_type_within(run->old, a->output_type, run->new, b->output_type,
                                            false, why, sizeof why, &missing);
        broken = broken || narrowed;
        if (narrowed)
            task_effects(run, &tasks->uses, i, compat_add_change(
                run, COMPAT_TASK_OUTPUT_CONTRACT_NARROWED, NULL, plo, pln,
                "the output of task `%s` needs what its deployed workers do not return: %s",
                name, why));
    }
    if (changed && !broken)
        task_effects(run, &tasks->uses, i, compat_add_change(run, COMPAT_TASK_CONTRACT_CHANGED, NULL, plo, pln,
                                               "the contract of task `%s` changed; its deployed "
                                               "workers accept it", name));
}

void compat_task_contracts(CompatRun *run)
{
    const OrbcModule *old = run->old;
    Tasks tasks = { .old_at = first_runs(run, old), .new_at = first_runs(run, run->new) };
    task_uses(run, &tasks.uses);
    for (uint32_t i = 0; i < old->task_count; i++) {
        if (tasks.uses.first[i] == tasks.uses.first[i + 1])
            continue;   /* no step runs it: a task of the standard library unused */
        const char *name = compat_str(old, old->tasks[i].name);
        uint32_t j = compat_lookup(&run->new_tasks, name);
        if (j != ORBC_NONE) {
            task_contract(run, &tasks, i, j);
            continue;
        }
        const CompatLoc *lo = tasks.old_at[i].file ? &tasks.old_at[i] : NULL;
        compat_add_change(run, COMPAT_TASK_REMOVED, NULL, lo, NULL,
                          "no step runs task `%s` any more: its workers can be retired once "
                          "no execution waits for them", name);
    }
}
