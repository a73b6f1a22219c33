/* compat: every place an execution of OLD can be waiting (docs/compat.md, "Places"), in
 * OLD's order, each with the changes that stop it. A place is a stack of frames: the top
 * workflow at step k, and for a place inside a child workflow, the child at its step,
 * and so on. An execution there has passed steps 0..k-1 of each frame and the part of
 * step k its state says; the effects of the changes (compat_internal.h) say which of
 * those parts a change touches. Conservative: a `for` step's elements may be anywhere
 * in it, so every change to such a step stops its places; a compensating execution may
 * have failed anywhere, so every change to its workflow stops it; a child-workflow step's
 * own place, every change to the child's workflows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat_internal.h"
#include "memory.h"
#include "textbuf.h"

enum { MAX_FRAMES = 64 };

typedef struct List {
    uint32_t *items;
    uint32_t count, cap;
} List;

typedef struct Frame {
    uint32_t wf, step;
} Frame;

typedef struct Places {
    CompatRun *run;
    List *by_wf;            /* OLD workflow → its effects */
    List *reach_done;       /* → effects of the workflows it may start, that change a
                               completed execution's records */
    List *reach_any;        /* → every effect of those workflows */
    List *children;         /* → its child-workflow steps, ascending */
    uint32_t *seen;         /* per effect: the place that last took it */
    uint32_t *on_stack;     /* per workflow: nonzero while its places are being listed */
    uint32_t cap;
    List found;
    Frame frames[MAX_FRAMES];
    uint32_t depth;
    const char *top;
} Places;

static void push(List *l, uint32_t v)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4;
        l->items = xrealloc(l->items, l->cap * sizeof *l->items);
    }
    l->items[l->count++] = v;
}

/* Whether an effect in a child workflow that completed changes the records it left (its
 * result too, which its parent records). */
static bool changes_done(const CompatEffect *e)
{
    return e->aspect != ASPECT_COMPENSATE && e->aspect != ASPECT_FAILURE;
}

/* ---- what each workflow may start ---- */

static uint32_t child_target(const OrbcModule *m, const OrbcStep *s)
{
    return s->kind == ORBC_STEP_WORKFLOW && s->target < m->workflow_count ? s->target : ORBC_NONE;
}

/* For each workflow u with effects, every workflow that may start u (through children,
 * walking the edges backwards) gets u's effects: (workflows + steps) per such u. */
static void reach(Places *p)
{
    const OrbcModule *m = p->run->old;
    uint32_t n = m->workflow_count;
    List *parents = xcalloc(n + 1, sizeof *parents);
    for (uint32_t w = 0; w < n; w++) {
        for (uint32_t s = 0; s < m->workflows[w].step_count; s++) {
            uint32_t t = child_target(m, &m->workflows[w].steps[s]);
            if (t != ORBC_NONE) {
                push(&parents[t], w);
                push(&p->children[w], s);
            }
        }
    }
    uint32_t *mark = xcalloc(n + 1, sizeof *mark), *queue = xmalloc((n + 1) * sizeof *queue);
    for (uint32_t u = 0; u < n; u++) {
        if (p->by_wf[u].count == 0)
            continue;
        uint32_t head = 0, tail = 0;
        queue[tail++] = u;
        mark[u] = u + 1;
        while (head < tail) {
            uint32_t w = queue[head++];
            for (uint32_t k = 0; k < p->by_wf[u].count; k++) {
                uint32_t e = p->by_wf[u].items[k];
                push(&p->reach_any[w], e);
                if (changes_done(&p->run->effects[e]))
                    push(&p->reach_done[w], e);
            }
            for (uint32_t k = 0; k < parents[w].count; k++) {
                uint32_t v = parents[w].items[k];
                if (mark[v] != u + 1) {
                    mark[v] = u + 1;
                    queue[tail++] = v;
                }
            }
        }
    }
    for (uint32_t w = 0; w < n; w++)
        free(parents[w].items);
    free(parents);
    free(mark);
    free(queue);
}

/* ---- which effects stop a place ---- */

static bool is_for(const Places *p, Frame f)
{
    return p->run->old->workflows[f.wf].steps[f.step].for_code != ORBC_NONE;
}

/* Whether an effect at a step an execution has completed changes its records. */
static bool stops_completed(const CompatEffect *e)
{
    return e->aspect != ASPECT_COMPENSATE && e->aspect != ASPECT_FAILURE
        && e->aspect != ASPECT_RESULT;
}

/* Effect `e` of the frame's workflow, the frame at step k in `state`. A compensating
 * execution completed steps 0..k and failed at a later step or at its `return`: anything
 * after step k may have made its records, and the compensations of the steps after k ran
 * before step k's. */
static bool stops(const Places *p, const CompatEffect *e, Frame f, uint8_t state,
                  uint32_t attempt)
{
    uint32_t k = f.step;
    if (e->aspect == ASPECT_WORKFLOW)
        return true;
    if (state == COMPAT_COMPENSATING) {
        if (e->aspect == ASPECT_RESULT || e->step > k)
            return true;
        return e->step == k && e->aspect == ASPECT_COMPENSATE ? true : stops_completed(e);
    }
    if (e->aspect == ASPECT_RESULT || e->aspect == ASPECT_COMPENSATE)
        return false;
    if (e->aspect == ASPECT_FAILURE)
        return e->step == k && is_for(p, f);
    if (e->step != k)
        return e->step < k;
    if (e->aspect == ASPECT_IDENTITY || is_for(p, f))
        return true;
    if (state != COMPAT_QUEUED && state != COMPAT_BACKOFF)
        return false;
    switch (e->aspect) {
    case ASPECT_ATTEMPTS: return attempt > e->param;
    case ASPECT_DELAY: return attempt >= e->param;
    case ASPECT_RETRY_CODES: return attempt >= 2;
    default: return true;
    }
}

static void take(Places *p, const List *effects, uint32_t place)
{
    for (uint32_t k = 0; k < effects->count; k++) {
        uint32_t e = effects->items[k];
        if (p->seen[e] != place) {
            p->seen[e] = place;
            push(&p->found, e);
        }
    }
}

/* The effects of a child that is running, not compensating: an expression's error there
 * would have ended it (a step of a child does not retry it) and made it compensate, which
 * its own places, listed beside this one, say; so a message that names a moved line
 * (ASPECT_FAILURE) is not yet in its records. */
static void take_running(Places *p, const List *effects, uint32_t place)
{
    for (uint32_t k = 0; k < effects->count; k++) {
        uint32_t e = effects->items[k];
        if (p->run->effects[e].aspect != ASPECT_FAILURE && p->seen[e] != place) {
            p->seen[e] = place;
            push(&p->found, e);
        }
    }
}

static void take_one(Places *p, uint32_t e, uint32_t place)
{
    List one = { &e, 1, 1 };
    take(p, &one, place);
}

static void frame_effects(Places *p, Frame f, uint8_t state, uint32_t attempt, bool last,
                          uint32_t place)
{
    const OrbcModule *m = p->run->old;
    const List *mine = &p->by_wf[f.wf];
    for (uint32_t k = 0; k < mine->count; k++) {
        if (stops(p, &p->run->effects[mine->items[k]], f, state, attempt))
            take_one(p, mine->items[k], place);
    }
    const List *children = &p->children[f.wf];
    for (uint32_t k = 0; k < children->count; k++) {
        uint32_t s = children->items[k];
        uint32_t t = child_target(m, &m->workflows[f.wf].steps[s]);
        bool compensating = state == COMPAT_COMPENSATING;
        if (s < f.step || (compensating && s == f.step))
            take(p, &p->reach_done[t], place);
        else if (compensating || (s == f.step && is_for(p, f)))
            take(p, &p->reach_any[t], place);
        else if (s == f.step && last)
            take_running(p, &p->reach_any[t], place);
    }
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- the places ---- */

static void add_place(Places *p, uint8_t state, uint32_t attempt)
{
    CompatRun *run = p->run;
    CompatReport *r = run->report;
    const OrbcModule *m = run->old;
    if (r->place_count == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        r->places = xrealloc(r->places, p->cap * sizeof *r->places);
    }
    uint32_t index = r->place_count++;
    CompatPlace *place = &r->places[index];
    TextBuffer path = { 0 };
    for (uint32_t i = 0; i <= p->depth; i++) {
        Frame f = p->frames[i];
        text_printf(&path, "%s%s", i ? "/" : "", compat_str(m, m->workflows[f.wf].steps[f.step].name));
    }
    place->workflow = p->top;
    place->step = arena_strndup(run->arena, path.data, path.len);
    place->state = state;
    place->attempt = attempt;
    place->id = attempt ? arena_printf(run->arena, "%s/%s#%s:%u", p->top, place->step,
                                       compat_state_name(state), attempt)
                        : arena_printf(run->arena, "%s/%s#%s", p->top, place->step,
                                       compat_state_name(state));
    text_free(&path);
    p->found.count = 0;
    for (uint32_t i = 0; i <= p->depth; i++)
        frame_effects(p, p->frames[i], i == p->depth ? state : COMPAT_CHILD, attempt,
                      i == p->depth, index + 1);
    /* the changes of the effects, each once */
    uint32_t *changes = arena_alloc(run->arena, (p->found.count + 1) * sizeof *changes);
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->found.count; k++)
        changes[n++] = run->effects[p->found.items[k]].change;
    qsort(changes, n, sizeof *changes, compare_u32);
    uint32_t unique = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (unique == 0 || changes[unique - 1] != changes[k]) {
            changes[unique++] = changes[k];
            r->changes[changes[k]].blocks++;
        }
    }
    place->changes = changes;
    place->change_count = unique;
    place->can_continue = unique == 0;
}

static void workflow_places(Places *p, uint32_t wf);

static void step_places(Places *p, uint32_t wf, uint32_t s)
{
    const OrbcModule *m = p->run->old;
    const OrbcStep *st = &m->workflows[wf].steps[s];
    p->frames[p->depth] = (Frame){ wf, s };
    switch (st->kind) {
    case ORBC_STEP_WORKER:
    case ORBC_STEP_BUILTIN:
        for (uint32_t n = 1; n <= st->policy.attempts; n++) {
            if (n > 1)
                add_place(p, COMPAT_BACKOFF, n);
            add_place(p, COMPAT_QUEUED, n);
        }
        break;
    case ORBC_STEP_SLEEP: add_place(p, COMPAT_SLEEP, 0); break;
    case ORBC_STEP_AWAIT: add_place(p, COMPAT_SIGNAL, 0); break;
    case ORBC_STEP_WORKFLOW: {
        add_place(p, COMPAT_CHILD, 0);
        uint32_t t = child_target(m, st);
        if (t != ORBC_NONE && !p->on_stack[t] && p->depth + 1 < MAX_FRAMES) {
            p->depth++;
            workflow_places(p, t);
            p->depth--;
            p->frames[p->depth] = (Frame){ wf, s };
        }
        break;
    }
    default: break;
    }
    if (st->has_compensate) {
        for (uint32_t n = 1; n <= st->compensate.policy.attempts; n++)
            add_place(p, COMPAT_COMPENSATING, n);
    }
}

static void workflow_places(Places *p, uint32_t wf)
{
    p->on_stack[wf]++;
    for (uint32_t s = 0; s < p->run->old->workflows[wf].step_count; s++)
        step_places(p, wf, s);
    p->on_stack[wf]--;
}

void compat_places(CompatRun *run)
{
    const OrbcModule *m = run->old;
    uint32_t n = m->workflow_count;
    Places p = { .run = run };
    p.by_wf = xcalloc(n + 1, sizeof *p.by_wf);
    p.reach_done = xcalloc(n + 1, sizeof *p.reach_done);
    p.reach_any = xcalloc(n + 1, sizeof *p.reach_any);
    p.children = xcalloc(n + 1, sizeof *p.children);
    p.on_stack = xcalloc(n + 1, sizeof *p.on_stack);
    p.seen = xcalloc(run->effect_count + 1, sizeof *p.seen);
    for (uint32_t e = 0; e < run->effect_count; e++) {
        if (run->effects[e].wf < n)
            push(&p.by_wf[run->effects[e].wf], e);
    }
    reach(&p);
    for (uint32_t w = 0; w < n; w++) {
        p.top = compat_str(m, m->workflows[w].name);
        if (compat_selected(run, p.top))
            workflow_places(&p, w);
    }
    for (uint32_t w = 0; w < n; w++) {
        free(p.by_wf[w].items);
        free(p.reach_done[w].items);
        free(p.reach_any[w].items);
        free(p.children[w].items);
    }
    free(p.by_wf);
    free(p.reach_done);
    free(p.reach_any);
    free(p.children);
    free(p.on_stack);
    free(p.seen);
    free(p.found.items);
}
