/* compat: the steps of a workflow on both sides, matched by name: removed, added,
 * reordered (the steps outside the longest run kept in order), and each pair compared
 * part by part. Steps run in the order written, so a change at a step stops the places
 * at it and after it (places.c reads the effects). */
#include <stdlib.h>
#include <string.h>

#include "compat_internal.h"
#include "memory.h"

typedef struct Pair {
    CompatRun *run;
    uint32_t wi, wj;                /* the workflows */
    const OrbcWorkflow *a, *b;
    const char *name;               /* the workflow's */
    bool moved;                     /* some expression moved: the first one's places */
    CompatLoc moved_old, moved_new;
    uint32_t moved_last;            /* the last step whose expressions moved (the
                                       return: step_count) */
} Pair;

static CompatLoc step_loc(const OrbcModule *m, const OrbcWorkflow *wf, uint32_t s)
{
    return (CompatLoc){ compat_str(m, wf->file), wf->steps[s].line, wf->steps[s].column };
}

static uint32_t add_step_change(Pair *p, CompatRule rule, uint32_t s, uint32_t t,
                                CompatAspect aspect, uint32_t at, const char *what)
{
    CompatLoc lo = s != ORBC_NONE ? step_loc(p->run->old, p->a, s) : (CompatLoc){ 0 };
    CompatLoc ln = t != ORBC_NONE ? step_loc(p->run->new, p->b, t) : (CompatLoc){ 0 };
    uint32_t c = compat_add_change(p->run, rule, p->name, s != ORBC_NONE ? &lo : NULL,
                                   t != ORBC_NONE ? &ln : NULL, "%s", what);
    compat_add_effect(p->run, c, p->wi, at, aspect, 0);
    return c;
}

static const char *step_name(const OrbcModule *m, const OrbcWorkflow *wf, uint32_t s)
{
    return compat_str(m, wf->steps[s].name);
}

/* An expression of step `s` (or the return, s = step_count) moved: the first one's
 * places are shown, the last step is the one its effect starts after. */
static void moved(Pair *p, uint32_t s, uint32_t ca, uint32_t cb)
{
    if (!p->moved) {
        p->moved_old = compat_code_loc(p->run->old, ca);
        p->moved_new = compat_code_loc(p->run->new, cb);
    }
    p->moved = true;
    p->moved_last = s;
}

/* A code block of the step: changed (its rule), or moved (code-moved). */
static void compare_code(Pair *p, uint32_t s, uint32_t t, uint32_t ca, uint32_t cb,
                         CompatRule rule, const char *part)
{
    CompatRun *run = p->run;
    const char *name = step_name(run->old, p->a, s);
    if (!compat_code_same(run, p->a, ca, p->b, cb)) {
        add_step_change(p, rule, s, t, ASPECT_IDENTITY, s,
                        arena_printf(run->arena, "the %s of step `%s` changed", part, name));
    } else if (!compat_code_same_place(run, ca, cb)) {
        moved(p, s, ca, cb);
    }
}

static const char *target_name(const OrbcModule *m, const OrbcStep *st)
{
    if (st->kind <= ORBC_STEP_BUILTIN)
        return st->target < m->task_count ? compat_str(m, m->tasks[st->target].name) : "";
    if (st->kind == ORBC_STEP_WORKFLOW)
        return st->target < m->workflow_count ? compat_str(m, m->workflows[st->target].name) : "";
    if (st->kind == ORBC_STEP_AWAIT)
        return compat_str(m, st->target);
    return "";
}

static bool compensate_same(Pair *p, const OrbcStep *x, const OrbcStep *y)
{
    const OrbcCompensate *a = &x->compensate, *b = &y->compensate;
    CompatRun *run = p->run;
    const OrbcPolicy *pa = &a->policy, *pb = &b->policy;
    bool codes = pa->non_retryable_count == pb->non_retryable_count;
    for (uint32_t k = 0; codes && k < pa->non_retryable_count; k++)
        codes = strcmp(compat_str(run->old, pa->non_retryable[k]),
                       compat_str(run->new, pb->non_retryable[k])) == 0;
    return codes
        && strcmp(compat_str(run->old, run->old->tasks[a->task].name),
                  compat_str(run->new, run->new->tasks[b->task].name)) == 0
        && compat_code_same(run, p->a, a->with_code, p->b, b->with_code)
        && compat_code_same(run, p->a, a->key_code, p->b, b->key_code)
        && pa->attempts == pb->attempts && pa->backoff == pb->backoff
        && pa->initial_delay_ms == pb->initial_delay_ms && pa->max_delay_ms == pb->max_delay_ms
        && a->timeout_ms == b->timeout_ms && a->queue_timeout_ms == b->queue_timeout_ms;
}

static void compare_compensate(Pair *p, uint32_t s, uint32_t t)
{
    const OrbcStep *x = &p->a->steps[s], *y = &p->b->steps[t];
    const char *name = step_name(p->run->old, p->a, s);
    Arena *arena = p->run->arena;
    if (x->has_compensate != y->has_compensate)
        add_step_change(p, x->has_compensate ? COMPAT_COMPENSATE_REMOVED : COMPAT_COMPENSATE_ADDED,
                        s, t, ASPECT_COMPENSATE, s,
                        arena_printf(arena, "step `%s` %s", name,
                                     x->has_compensate ? "no longer compensates"
                                                       : "compensates now"));
    else if (x->has_compensate && !compensate_same(p, x, y))
        add_step_change(p, COMPAT_COMPENSATE_CHANGED, s, t, ASPECT_COMPENSATE, s,
                        arena_printf(arena, "the compensate block of step `%s` changed", name));
}

static void compare_step(Pair *p, uint32_t s, uint32_t t)
{
    CompatRun *run = p->run;
    const OrbcStep *x = &p->a->steps[s], *y = &p->b->steps[t];
    const char *name = step_name(run->old, p->a, s);
    if (x->kind != y->kind) {
        add_step_change(p, COMPAT_STEP_KIND_CHANGED, s, t, ASPECT_IDENTITY, s,
                        arena_printf(run->arena, "step `%s` does another kind of thing", name));
        return;
    }
    const char *ta = target_name(run->old, x), *tb = target_name(run->new, y);
    if (strcmp(ta, tb) != 0)
        add_step_change(p, COMPAT_STEP_TARGET_CHANGED, s, t, ASPECT_IDENTITY, s,
                        arena_printf(run->arena, "step `%s` %s `%s`, not `%s`", name,
                                     x->kind == ORBC_STEP_WORKFLOW ? "starts workflow"
                                     : x->kind == ORBC_STEP_AWAIT ? "awaits signal" : "runs task",
                                     tb, ta));
    compare_code(p, s, t, x->when_code, y->when_code, COMPAT_STEP_CONDITION_CHANGED, "`when` condition");
    compare_code(p, s, t, x->for_code, y->for_code, COMPAT_STEP_FOR_CHANGED, "`for` list");
    compare_code(p, s, t, x->with_code, y->with_code, COMPAT_STEP_INPUT_CHANGED, "input (`with`)");
    compare_code(p, s, t, x->key_code, y->key_code, COMPAT_STEP_IDEMPOTENCY_KEY_CHANGED,
                 "idempotency key");
    compare_code(p, s, t, x->value_code, y->value_code, COMPAT_STEP_VALUE_CHANGED,
                 x->kind == ORBC_STEP_SLEEP ? "duration" : "value");
    compat_compare_policy(run, p->wi, s, p->wj, t);
    compare_compensate(p, s, t);
    if (x->has_compensate && y->has_compensate) {
        const OrbcCompensate *a = &x->compensate, *b = &y->compensate;
        if (!compat_code_same_place(run, a->with_code, b->with_code))
            moved(p, s, a->with_code, b->with_code);
        if (!compat_code_same_place(run, a->key_code, b->key_code))
            moved(p, s, a->key_code, b->key_code);
    }
}

/* The steps of `b` that are not in the longest run of `old_index` (OLD's index of each
 * common step, in NEW's order) kept increasing: moved[k] for the k-th. O(n log n). */
static void moved_steps(const uint32_t *old_index, uint32_t n, bool *moved)
{
    uint32_t *tail = xmalloc((n + 1) * sizeof *tail);   /* positions of the run's ends */
    uint32_t *prev = xmalloc((n + 1) * sizeof *prev);
    uint32_t len = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t lo = 0, hi = len;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (old_index[tail[mid]] < old_index[k])
                lo = mid + 1;
            else
                hi = mid;
        }
        prev[k] = lo > 0 ? tail[lo - 1] : ORBC_NONE;
        tail[lo] = k;
        if (lo == len)
            len++;
        moved[k] = true;
    }
    for (uint32_t k = len ? tail[len - 1] : ORBC_NONE; k != ORBC_NONE; k = prev[k])
        moved[k] = false;
    free(tail);
    free(prev);
}

static void map_steps(NameMap *map, Arena *arena, const OrbcModule *m, const OrbcWorkflow *wf)
{
    namemap_init_text(map, arena, wf->step_count);
    for (uint32_t s = 0; s < wf->step_count; s++) {
        const char *name = step_name(m, wf, s);
        namemap_put(map, arena, name, orbc_hash(name, strlen(name)), s);
    }
}

static void reordered(Pair *p, const NameMap *in_old)
{
    CompatRun *run = p->run;
    uint32_t n = 0, count = p->b->step_count;
    uint32_t *old_index = xmalloc((count + 1) * sizeof *old_index);
    uint32_t *new_index = xmalloc((count + 1) * sizeof *new_index);
    bool *moved = xmalloc(count + 1);
    for (uint32_t t = 0; t < count; t++) {
        uint32_t s = compat_lookup(in_old, step_name(run->new, p->b, t));
        if (s != ORBC_NONE) {
            old_index[n] = s;
            new_index[n++] = t;
        }
    }
    moved_steps(old_index, n, moved);
    for (uint32_t k = 0; k < n; k++) {
        if (!moved[k])
            continue;
        uint32_t s = old_index[k], t = new_index[k];
        add_step_change(p, COMPAT_STEP_REORDERED, s, t, ASPECT_IDENTITY, s < t ? s : t,
                        arena_printf(run->arena, "step `%s` moved: it was step %u of the "
                                     "workflow, it is now step %u", step_name(run->old, p->a, s),
                                     s + 1, t + 1));
    }
    free(old_index);
    free(new_index);
    free(moved);
}

void compat_compare_steps(CompatRun *run, uint32_t wi, uint32_t wj)
{
    Pair p = { .run = run, .wi = wi, .wj = wj, .a = &run->old->workflows[wi],
               .b = &run->new->workflows[wj] };
    p.name = compat_str(run->old, p.a->name);
    NameMap in_new, in_old;
    map_steps(&in_new, run->arena, run->new, p.b);
    map_steps(&in_old, run->arena, run->old, p.a);
    uint32_t *new_of_old = xmalloc((p.a->step_count + 1) * sizeof *new_of_old);
    for (uint32_t s = 0; s < p.a->step_count; s++) {
        new_of_old[s] = compat_lookup(&in_new, step_name(run->old, p.a, s));
        if (new_of_old[s] == ORBC_NONE)
            add_step_change(&p, COMPAT_STEP_REMOVED, s, ORBC_NONE, ASPECT_IDENTITY, s,
                            arena_printf(run->arena, "step `%s` was removed",
                                         step_name(run->old, p.a, s)));
    }
    for (uint32_t t = 0; t < p.b->step_count; t++) {
        if (compat_lookup(&in_old, step_name(run->new, p.b, t)) == ORBC_NONE)
            add_step_change(&p, COMPAT_STEP_ADDED, ORBC_NONE, t, ASPECT_IDENTITY, t,
                            arena_printf(run->arena, "step `%s` was added",
                                         step_name(run->new, p.b, t)));
    }
    reordered(&p, &in_old);
    for (uint32_t s = 0; s < p.a->step_count; s++) {
        if (new_of_old[s] != ORBC_NONE)
            compare_step(&p, s, new_of_old[s]);
    }
    if (compat_code_same(run, p.a, p.a->return_code, p.b, p.b->return_code)
        && !compat_code_same_place(run, p.a->return_code, p.b->return_code))
        moved(&p, p.a->step_count, p.a->return_code, p.b->return_code);
    if (p.moved) {   /* once per workflow: the first expression that moved */
        uint32_t c = compat_add_change(run, COMPAT_CODE_MOVED, p.name, &p.moved_old, &p.moved_new,
                                       "expressions of workflow `%s` moved in their file "
                                       "(their errors name their lines)", p.name);
        compat_add_effect(run, c, wi, p.moved_last, ASPECT_FAILURE, 0);
    }
    free(new_of_old);
}
