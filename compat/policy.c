/* compat: retry policies and timeouts of a step on both sides, and the new worst case of
 * the workflow they are in. What each changes in a running execution's records: the
 * attempts it already made (a count lowered under them), the delays it already waited
 * (RetryScheduled's delay_ms), the codes it already retried, the timers already started
 * (an attempt's timeout, the queue timeout, an await's timeout_ms). A policy change is
 * information, or a warning when the workflow's steps no longer fit in its timeout. */
#include <stdio.h>
#include <string.h>

#include "compat_internal.h"
#include "orbc_value.h"

/* The delay before attempt n >= 2 (docs/bytecode.md §3.6, the formula the engine core's
 * task.c evaluates): initial (fixed), or min(initial × 2^(n−2), max) (exponential),
 * saturating. */
static int64_t delay_before(const OrbcPolicy *p, uint32_t n)
{
    if (p->backoff != ORBC_BACKOFF_EXPONENTIAL)
        return p->initial_delay_ms;
    int64_t delay = p->initial_delay_ms;
    for (uint32_t k = 2; k < n && delay > 0 && delay < p->max_delay_ms; k++)
        delay = delay > p->max_delay_ms / 2 ? p->max_delay_ms : delay * 2;
    return delay < p->max_delay_ms ? delay : p->max_delay_ms;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int64_t mul_sat(int64_t a, uint32_t n)
{
    return n && a > INT64_MAX / n ? INT64_MAX : a * n;
}

static int64_t effective_timeout(const OrbcModule *m, const OrbcStep *s)
{
    if (s->timeout_ms == 0 && s->kind <= ORBC_STEP_BUILTIN && s->target < m->task_count)
        return m->tasks[s->target].default_timeout_ms;
    return s->timeout_ms;
}

/* ---- the worst case (as the checker's worst_path.c counts a workflow's steps) ---- */

enum { MAX_NESTING = 64, WORST_UNSEEN = -2, WORST_IN_PROGRESS = -3 };

static int64_t workflow_worst(const OrbcModule *m, uint32_t wf, int depth, int64_t *memo);

static int64_t step_worst(const OrbcModule *m, const OrbcStep *s, int depth, int64_t *memo)
{
    switch (s->kind) {
    case ORBC_STEP_WORKER:
    case ORBC_STEP_BUILTIN: {
        int64_t timeout = effective_timeout(m, s);
        if (timeout <= 0)
            return -1;
        int64_t total = mul_sat(add_sat(timeout, s->queue_timeout_ms), s->policy.attempts);
        for (uint32_t n = 2; n <= s->policy.attempts; n++)
            total = add_sat(total, delay_before(&s->policy, n));
        return total;
    }
    case ORBC_STEP_AWAIT:
        return s->timeout_ms > 0 ? s->timeout_ms : -1;
    case ORBC_STEP_SLEEP: {
        const OrbcCode *c = s->value_code < m->code_count ? &m->codes[s->value_code] : NULL;
        if (c && c->len == 6 && c->code[0] == ORBC_OP_CONST && c->code[5] == ORBC_OP_RETURN) {
            uint32_t k = orbc_u32(c->code + 1);
            if (k < m->const_count && m->consts[k].kind == ORBC_CONST_DURATION)
                return m->consts[k].integer;
        }
        return -1;
    }
    case ORBC_STEP_WORKFLOW: {
        int64_t child = depth < MAX_NESTING ? workflow_worst(m, s->target, depth + 1, memo) : -1;
        if (s->timeout_ms > 0 && (child < 0 || child > s->timeout_ms))
            return s->timeout_ms;
        return child;
    }
    default:
        return 0;
    }
}

/* Each workflow once (memo[wf]); a workflow that starts itself again is unbounded. */
static int64_t workflow_worst(const OrbcModule *m, uint32_t wf, int depth, int64_t *memo)
{
    if (wf >= m->workflow_count || memo[wf] == WORST_IN_PROGRESS)
        return -1;
    if (memo[wf] != WORST_UNSEEN)
        return memo[wf];
    memo[wf] = WORST_IN_PROGRESS;
    const OrbcWorkflow *w = &m->workflows[wf];
    int64_t total = 0;
    for (uint32_t s = 0; s < w->step_count && total >= 0; s++) {
        int64_t one = step_worst(m, &w->steps[s], depth, memo);
        total = one < 0 ? -1 : add_sat(total, one);
    }
    memo[wf] = total;
    return total;
}

int64_t compat_worst_case(CompatRun *run, uint32_t wf)
{
    const OrbcModule *m = run->new;
    if (!run->worst) {
        run->worst = arena_alloc(run->arena, (m->workflow_count + 1) * sizeof *run->worst);
        for (uint32_t i = 0; i < m->workflow_count; i++)
            run->worst[i] = WORST_UNSEEN;
    }
    return workflow_worst(m, wf, 0, run->worst);
}

/* ---- the changes ---- */

typedef struct Side {
    CompatRun *run;
    uint32_t wi, s, wj, t;
    const OrbcStep *x, *y;
    const char *name, *workflow;
    char worst[320];        /* "; the worst case of `w` is now 3m (its timeout: 2m)" */
    bool over;              /* the new worst case exceeds the workflow timeout */
} Side;

static uint32_t policy_change(Side *d, CompatRule rule, CompatAspect aspect, uint32_t param,
                              const char *what)
{
    const OrbcWorkflow *a = &d->run->old->workflows[d->wi], *b = &d->run->new->workflows[d->wj];
    CompatLoc lo = { compat_str(d->run->old, a->file), d->x->line, d->x->column };
    CompatLoc ln = { compat_str(d->run->new, b->file), d->y->line, d->y->column };
    uint32_t c = compat_add_change(d->run, rule, d->workflow, &lo, &ln, "%s%s", what, d->worst);
    if (d->over)
        d->run->report->changes[c].level = COMPAT_WARNING;
    compat_add_effect(d->run, c, d->wi, d->s, aspect, param);
    return c;
}

static bool listed(const OrbcModule *m, const OrbcPolicy *p, const char *code)
{
    for (uint32_t k = 0; k < p->non_retryable_count; k++) {
        if (strcmp(compat_str(m, p->non_retryable[k]), code) == 0)
            return true;
    }
    return false;
}

static void retry_codes(Side *d)
{
    const OrbcModule *old = d->run->old, *new = d->run->new;
    const OrbcPolicy *pa = &d->x->policy, *pb = &d->y->policy;
    Arena *arena = d->run->arena;
    for (uint32_t k = 0; k < pb->non_retryable_count; k++) {
        const char *code = compat_str(new, pb->non_retryable[k]);
        if (!listed(old, pa, code))
            policy_change(d, COMPAT_NON_RETRYABLE_ADDED, ASPECT_RETRY_CODES, 0,
                          arena_printf(arena, "step `%s` no longer retries error `%s`", d->name, code));
    }
    for (uint32_t k = 0; k < pa->non_retryable_count; k++) {
        const char *code = compat_str(old, pa->non_retryable[k]);
        if (!listed(new, pb, code))
            policy_change(d, COMPAT_NON_RETRYABLE_REMOVED, ASPECT_FAILURE, 0,
                          arena_printf(arena, "step `%s` retries error `%s` now", d->name, code));
    }
}

static void attempts(Side *d)
{
    const OrbcPolicy *pa = &d->x->policy, *pb = &d->y->policy;
    Arena *arena = d->run->arena;
    if (pb->attempts < pa->attempts)
        policy_change(d, COMPAT_ATTEMPTS_LOWERED, ASPECT_ATTEMPTS, pb->attempts,
                      arena_printf(arena, "step `%s` tries at most %u times, not %u", d->name,
                                   pb->attempts, pa->attempts));
    else if (pb->attempts > pa->attempts)
        policy_change(d, COMPAT_ATTEMPTS_RAISED, ASPECT_FAILURE, 0,
                      arena_printf(arena, "step `%s` tries up to %u times, not %u", d->name,
                                   pb->attempts, pa->attempts));
    uint32_t both = pa->attempts < pb->attempts ? pa->attempts : pb->attempts;
    for (uint32_t n = 2; n <= both; n++) {
        int64_t before = delay_before(pa, n), after = delay_before(pb, n);
        if (before == after)
            continue;
        char x[ORBC_DURATION_TEXT_SIZE], y[ORBC_DURATION_TEXT_SIZE];
        orbc_format_duration(x, before);
        orbc_format_duration(y, after);
        policy_change(d, COMPAT_RETRY_DELAY_CHANGED, ASPECT_DELAY, n,
                      arena_printf(arena, "step `%s` waits %s before attempt %u, not %s",
                                   d->name, y, n, x));
        break;
    }
}

static void timeouts(Side *d)
{
    Arena *arena = d->run->arena;
    int64_t a = effective_timeout(d->run->old, d->x), b = effective_timeout(d->run->new, d->y);
    char x[ORBC_DURATION_TEXT_SIZE] = "none", y[ORBC_DURATION_TEXT_SIZE] = "none";
    if (a != b) {
        if (a)
            orbc_format_duration(x, a);
        if (b)
            orbc_format_duration(y, b);
        policy_change(d, COMPAT_STEP_TIMEOUT_CHANGED, ASPECT_IDENTITY, 0,
                      arena_printf(arena, "the timeout of step `%s` changed from %s to %s",
                                   d->name, x, y));
    }
    a = d->x->queue_timeout_ms;
    b = d->y->queue_timeout_ms;
    if (a != b) {
        strcpy(x, "none");
        strcpy(y, "none");
        if (a)
            orbc_format_duration(x, a);
        if (b)
            orbc_format_duration(y, b);
        policy_change(d, COMPAT_QUEUE_TIMEOUT_CHANGED, ASPECT_IDENTITY, 0,
                      arena_printf(arena, "the queue timeout of step `%s` changed from %s to %s",
                                   d->name, x, y));
    }
}

/* "; the steps of `w` may now take 3m (its timeout: 2m)" when the new worst case is over
 * the workflow timeout, else "". */
static void worst_note(Side *d)
{
    const OrbcWorkflow *b = &d->run->new->workflows[d->wj];
    int64_t worst = compat_worst_case(d->run, d->wj);
    d->worst[0] = '\0';
    if (b->timeout_ms <= 0 || (worst >= 0 && worst <= b->timeout_ms))
        return;
    char w[ORBC_DURATION_TEXT_SIZE] = "unbounded", t[ORBC_DURATION_TEXT_SIZE];
    if (worst >= 0)
        orbc_format_duration(w, worst);
    orbc_format_duration(t, b->timeout_ms);
    snprintf(d->worst, sizeof d->worst, "; the steps of `%.60s` may now take %s, over its "
             "timeout of %s", d->workflow, w, t);
    d->over = true;
}

void compat_compare_policy(CompatRun *run, uint32_t wi, uint32_t s, uint32_t wj, uint32_t t)
{
    Side d = { run, wi, s, wj, t, &run->old->workflows[wi].steps[s],
               &run->new->workflows[wj].steps[t], NULL, NULL, "", false };
    d.name = compat_str(run->old, d.x->name);
    d.workflow = compat_str(run->old, run->old->workflows[wi].name);
    worst_note(&d);
    attempts(&d);
    retry_codes(&d);
    timeouts(&d);
}
