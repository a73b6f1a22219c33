/* The worst case of a whole workflow, and W0010 where its steps do not fit in the
 * workflow timeout (worst_path.h; docs/diagnostics.md, "The worst case of a workflow").
 *
 * worst_collect keeps, after each workflow body is checked, what the analysis needs of
 * each step (Workflow.steps may be dropped: checker.h, check_only); worst_resolve then
 * computes every workflow once, children before their parents, with an explicit stack:
 * linear in workflows + steps, whatever the nesting. */
#include "worst_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "memory.h"
#include "textbuf.h"

enum { WORST_UNSEEN, WORST_IN_PROGRESS, WORST_DONE };

/* W0010's notes list at most this many steps. */
enum { LISTED_STEPS = 8 };

/* ---- Durations that may be unbounded ------------------------------------------------ */

static Worst bounded(int64_t ms)
{
    return (Worst){ .ms = ms };
}

static Worst unbounded(Unbounded why, const Name *workflow, const Name *step)
{
    return (Worst){ .unbounded = why, .workflow = workflow, .step = step };
}

/* a + b: the first unbounded one wins. */
static Worst worst_add(Worst a, Worst b)
{
    if (a.unbounded)
        return a;
    if (b.unbounded)
        return b;
    return bounded(policy_add_saturating(a.ms, b.ms));
}

static Worst worst_min(Worst a, Worst b)
{
    if (a.unbounded)
        return b;
    if (b.unbounded)
        return a;
    return a.ms <= b.ms ? a : b;
}

static Worst worst_max(Worst a, Worst b)
{
    if (a.unbounded)
        return a;
    if (b.unbounded)
        return b;
    return a.ms >= b.ms ? a : b;
}

/* ---- One step ------------------------------------------------------------------------ */

/* A task (a step's or a compensate block's): every attempt waits its whole queue
 * timeout, then runs its whole timeout, and fails; every backoff delay is waited. */
static Worst task_worst(const RetryPolicy *policy, int64_t timeout_ms, int64_t queue_ms,
                        int64_t *delays_ms, Unbounded why, const Name *wf, const Name *step)
{
    int64_t attempt = policy_add_saturating(timeout_ms, queue_ms);
    RetryBudget budget = policy_retry_budget(policy, attempt, 0);
    *delays_ms = budget.delays_ms;
    if (timeout_ms <= 0)
        return unbounded(why, wf, step);
    return bounded(budget.total_ms);
}

static bool is_task(StepKind kind)
{
    return kind == STEP_TASK_WORKER || kind == STEP_TASK_BUILTIN;
}

/* The step alone; a workflow step is worked out in finish_workflow, once its child is. */
static Worst step_own(const Workflow *wf, const Step *s, int64_t *delays_ms)
{
    *delays_ms = 0;
    switch (s->kind) {
    case STEP_TASK_WORKER:
    case STEP_TASK_BUILTIN:
        return task_worst(&s->retry, s->timeout_ms, s->queue_timeout_ms, delays_ms,
                          UNBOUNDED_TASK_TIMEOUT, wf->name, s->name);
    case STEP_AWAIT:
        return s->timeout_ms > 0 ? bounded(s->timeout_ms)
                                 : unbounded(UNBOUNDED_AWAIT_TIMEOUT, wf->name, s->name);
    case STEP_SLEEP:
        if (s->sleep && s->sleep->kind == EXPR_DURATION && s->sleep->integer >= 0)
            return bounded(s->sleep->integer);
        return unbounded(UNBOUNDED_SLEEP_COMPUTED, wf->name, s->name);
    case STEP_WORKFLOW:
    case STEP_COMPUTE:
        break;
    }
    return bounded(0);
}

void worst_collect(Checker *ck, Workflow *wf)
{
    WorkflowWorst *w = &wf->worst;
    w->step_count = wf->step_count;
    w->steps = arena_alloc(ck->arena, (wf->step_count ? wf->step_count : 1) * sizeof *w->steps);
    for (uint32_t i = 0; i < wf->step_count; i++) {
        const Step *s = &wf->steps[i];
        StepWorst *out = &w->steps[i];
        *out = (StepWorst){
            .name = s->name,
            .kind = s->kind,
            .attempts = s->retry.attempts,
            .timeout_ms = s->timeout_ms,
            .queue_timeout_ms = s->queue_timeout_ms,
            .child = s->kind == STEP_WORKFLOW ? s->target_index : NO_INDEX,
            .fan_out = s->for_iterable != NULL,
        };
        out->own = step_own(wf, s, &out->delays_ms);
        const Compensation *c = s->compensate;
        int64_t ignored;
        if (c)
            out->compensation = task_worst(&c->retry, c->timeout_ms, c->queue_timeout_ms,
                                           &ignored, UNBOUNDED_COMPENSATE_TIMEOUT,
                                           wf->name, s->name);
    }
}

/* ---- Workflows, children first -------------------------------------------------------- */

/* A workflow step: its child's worst case, cut at the step's `timeout` (which cancels
 * the child at once); a child still being worked out starts itself again. */
static Worst child_worst(const Program *p, const Workflow *wf, const StepWorst *s)
{
    if (s->child == NO_INDEX)   /* an unknown workflow, already an error */
        return bounded(s->timeout_ms);
    const WorkflowWorst *child = &p->workflows[s->child].worst;
    Worst w = child->state == WORST_DONE ? child->total
                                         : unbounded(UNBOUNDED_RECURSION, wf->name, s->name);
    if (s->timeout_ms > 0 && (w.unbounded || w.ms > s->timeout_ms))
        return bounded(s->timeout_ms);
    return w;
}

static void finish_workflow(const Program *p, Workflow *wf)
{
    WorkflowWorst *w = &wf->worst;
    w->running = w->compensations = w->in_flight = bounded(0);
    for (uint32_t i = 0; i < w->step_count; i++) {
        StepWorst *s = &w->steps[i];
        if (s->kind == STEP_WORKFLOW)
            s->own = child_worst(p, wf, s);
        w->running = worst_add(w->running, s->own);
        w->compensations = worst_add(w->compensations, s->compensation);
        if (is_task(s->kind))
            w->in_flight = worst_max(w->in_flight, s->timeout_ms > 0
                                     ? bounded(s->timeout_ms)
                                     : unbounded(UNBOUNDED_TASK_TIMEOUT, wf->name, s->name));
    }
    /* The workflow timeout stops the steps, but an attempt already dispatched is
     * waited for (docs/runtime.md, "Failure and the workflow timeout"). */
    Worst steps = w->running;
    if (wf->timeout_ms > 0)
        steps = worst_min(steps, worst_add(bounded(wf->timeout_ms), w->in_flight));
    w->total = worst_add(steps, w->compensations);
    w->state = WORST_DONE;
}

/* The first step of `wf`, from `*next` on, whose child is not worked out yet. */
static bool unseen_child(const Program *p, const Workflow *wf, uint32_t *next)
{
    for (; *next < wf->worst.step_count; (*next)++) {
        uint32_t c = wf->worst.steps[*next].child;
        if (c != NO_INDEX && p->workflows[c].worst.state == WORST_UNSEEN)
            return true;
    }
    return false;
}

static void resolve_from(Program *p, uint32_t root, uint32_t *stack, uint32_t *next)
{
    uint32_t depth = 0;
    stack[depth] = root;
    next[depth++] = 0;
    p->workflows[root].worst.state = WORST_IN_PROGRESS;
    while (depth > 0) {
        Workflow *wf = &p->workflows[stack[depth - 1]];
        if (unseen_child(p, wf, &next[depth - 1])) {
            uint32_t c = wf->worst.steps[next[depth - 1]].child;
            p->workflows[c].worst.state = WORST_IN_PROGRESS;
            stack[depth] = c;
            next[depth++] = 0;
            continue;
        }
        finish_workflow(p, wf);
        depth--;
    }
}

/* ---- Texts ---------------------------------------------------------------------------- */

static const char *duration(int64_t ms, char *buf, size_t size)
{
    return policy_duration_text(ms, buf, size);
}

void worst_reason_text(const Worst *w, const Name *from, TextBuffer *out)
{
    const char *step = w->step ? w->step->text : "";
    switch (w->unbounded) {
    case UNBOUNDED_TASK_TIMEOUT:
        text_printf(out, "step `%s` has no `timeout`", step);
        break;
    case UNBOUNDED_AWAIT_TIMEOUT:
        text_printf(out, "await step `%s` has no `timeout`", step);
        break;
    case UNBOUNDED_SLEEP_COMPUTED:
        text_printf(out, "the duration of sleep step `%s` is computed at run time", step);
        break;
    case UNBOUNDED_RECURSION:
        text_printf(out, "step `%s` starts a workflow that is already running, without a "
                         "`timeout`", step);
        break;
    case UNBOUNDED_COMPENSATE_TIMEOUT:
        text_printf(out, "the compensate block of step `%s` has no `timeout`", step);
        break;
    default:
        text_append_str(out, "bounded");
        break;
    }
    if (w->workflow && w->workflow != from)
        text_printf(out, " (workflow `%s`)", w->workflow->text);
}

void worst_text(const Worst *w, const Name *from, TextBuffer *out)
{
    char d[32];
    if (!w->unbounded) {
        text_append_str(out, duration(w->ms, d, sizeof d));
        return;
    }
    text_append_str(out, "unbounded: ");
    worst_reason_text(w, from, out);
}

static void task_text(const StepWorst *s, TextBuffer *out)
{
    char timeout[32], queue[32], delays[32], total[32];
    duration(s->timeout_ms, timeout, sizeof timeout);
    duration(s->queue_timeout_ms, queue, sizeof queue);
    duration(s->delays_ms, delays, sizeof delays);
    duration(s->own.ms, total, sizeof total);
    if (s->attempts <= 1 && s->queue_timeout_ms)
        text_printf(out, "%s queue timeout + %s timeout = %s", queue, timeout, total);
    else if (s->attempts <= 1)
        text_printf(out, "%s timeout", timeout);
    else if (s->queue_timeout_ms)
        text_printf(out, "%u attempts × (%s queue timeout + %s timeout) + %s of backoff "
                    "delays = %s", s->attempts, queue, timeout, delays, total);
    else
        text_printf(out, "%u attempts × %s timeout + %s of backoff delays = %s",
                    s->attempts, timeout, delays, total);
}

static void child_text(const Program *p, const Workflow *wf, const StepWorst *s,
                       TextBuffer *out)
{
    char d[32];
    if (s->child == NO_INDEX) {
        text_append_str(out, duration(s->own.ms, d, sizeof d));
        return;
    }
    const Workflow *child = &p->workflows[s->child];
    const Worst *total = &child->worst.total;
    if (s->timeout_ms > 0 && (total->unbounded || total->ms > s->timeout_ms)) {
        text_printf(out, "the step `timeout` %s (workflow `%s` may take longer: ",
                    duration(s->timeout_ms, d, sizeof d), child->name->text);
        worst_text(total, wf->name, out);
        text_append_str(out, ")");
    } else {
        text_printf(out, "workflow `%s` at its worst: ", child->name->text);
        worst_text(&s->own, wf->name, out);
    }
}

void worst_step_text(const Program *p, const Workflow *wf, const StepWorst *s,
                     TextBuffer *out)
{
    char d[32];
    if (s->own.unbounded && s->kind != STEP_WORKFLOW) {
        worst_text(&s->own, wf->name, out);
        return;
    }
    switch (s->kind) {
    case STEP_TASK_WORKER:
    case STEP_TASK_BUILTIN:
        task_text(s, out);
        break;
    case STEP_WORKFLOW:
        child_text(p, wf, s, out);
        break;
    case STEP_AWAIT:
        text_printf(out, "await `timeout` %s", duration(s->own.ms, d, sizeof d));
        break;
    case STEP_SLEEP:
        text_printf(out, "sleep %s", duration(s->own.ms, d, sizeof d));
        break;
    case STEP_COMPUTE:
        text_append_str(out, "0s: evaluated at once");
        break;
    }
    if (s->fan_out)
        text_append_str(out, ", for each element at once");
}

bool worst_step_counts(const StepWorst *s)
{
    return s->own.unbounded || s->own.ms > 0;
}

/* ---- W0010 ------------------------------------------------------------------------------ */

void worst_sum_text(const Workflow *wf, TextBuffer *out)
{
    const WorkflowWorst *w = &wf->worst;
    uint32_t listed = 0, more = 0;
    int64_t rest = 0;
    char text[32];
    for (uint32_t i = 0; i < w->step_count; i++) {
        const StepWorst *s = &w->steps[i];
        if (!worst_step_counts(s))
            continue;
        if (listed == LISTED_STEPS) {
            more++;
            rest = policy_add_saturating(rest, s->own.ms);
            continue;
        }
        text_printf(out, "%s`%s` %s", listed ? " + " : "", s->name->text,
                    duration(s->own.ms, text, sizeof text));
        listed++;
    }
    if (more)
        text_printf(out, " + %u more step%s (%s)", more, more == 1 ? "" : "s",
                    duration(rest, text, sizeof text));
    text_printf(out, " = %s%s", duration(w->running.ms, text, sizeof text),
                w->running.ms == INT64_MAX ? " or more (the largest duration)" : "");
}

/* The first step that would start at or after the workflow timeout, or NULL. */
static const StepWorst *first_late_step(const Workflow *wf)
{
    int64_t start = 0;
    for (uint32_t i = 0; i < wf->worst.step_count; i++) {
        const StepWorst *s = &wf->worst.steps[i];
        if (start >= wf->timeout_ms && worst_step_counts(s))
            return s;
        start = policy_add_saturating(start, s->own.ms);
    }
    return NULL;
}

static void lint_workflow_worst(Checker *ck, const Workflow *wf)
{
    const WorkflowWorst *w = &wf->worst;
    if (wf->timeout_ms <= 0 || w->running.unbounded || w->running.ms <= wf->timeout_ms ||
        w->retries_reported || !diag_enabled(ck->diags, W0010))
        return;
    Diagnostic *d = diag_report(ck->diags, W0010, wf->timeout_span,
                                "the steps of workflow `%s` may take longer than its timeout",
                                wf->name->text);
    diag_set_label(ck->diags, d, "worst case %s, workflow timeout %s",
                   check_duration_text(ck, w->running.ms),
                   check_duration_text(ck, wf->timeout_ms));
    TextBuffer sum = { 0 };
    worst_sum_text(wf, &sum);
    diag_add_note(ck->diags, d, "worst case, the steps one after another: %s", sum.data);
    text_free(&sum);
    uint32_t listed = 0;
    for (uint32_t i = 0; i < w->step_count && listed < LISTED_STEPS; i++) {
        const StepWorst *s = &w->steps[i];
        if (!worst_step_counts(s))
            continue;
        TextBuffer text = { 0 };
        worst_step_text(ck->program, wf, s, &text);
        diag_add_note(ck->diags, d, "`%s`: %s", s->name->text, text.data);
        text_free(&text);
        listed++;
    }
    const StepWorst *late = first_late_step(wf);
    if (late)
        diag_add_note(ck->diags, d, "step `%s` and the steps after it may never start: the "
                      "workflow timeout of %s has passed by then", late->name->text,
                      check_duration_text(ck, wf->timeout_ms));
    diag_add_help(ck->diags, d, "raise the workflow `timeout`, or lower the steps' timeouts, "
                                "attempts or delays");
}

void worst_resolve(Checker *ck)
{
    Program *p = ck->program;
    uint32_t n = p->workflow_count;
    if (n == 0)
        return;
    uint32_t *stack = xmalloc(n * sizeof *stack);
    uint32_t *next = xmalloc(n * sizeof *next);
    for (uint32_t i = 0; i < n; i++)
        if (p->workflows[i].worst.state == WORST_UNSEEN)
            resolve_from(p, i, stack, next);
    free(stack);
    free(next);
    for (uint32_t i = 0; i < n; i++)
        lint_workflow_worst(ck, &p->workflows[i]);
}
