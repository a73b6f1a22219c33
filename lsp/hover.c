/* Hover (docs/editors.md, "Hover"): what a retry policy will actually do. On a step:
 * its resolved policy, every delay, the timeouts and the worst case measured against
 * the workflow timeout (the same figure as W0006); on a retry setting: its type,
 * default and meaning (compiler/check/policy.h, the table of diagnostics/explain/E0410.md);
 * on a name: its type; on a worker, built-in task, workflow or type: its contract, and on
 * a workflow its worst case (compiler/check/worst_path.h, the figures of W0010). */
#include "query.h"

#include <string.h>

#include "policy.h"
#include "textbuf.h"
#include "types.h"
#include "worst_path.h"

typedef struct Hover {
    Analysis *a;
    Arena *arena;      /* for type_text */
    TextBuffer out;
} Hover;

static const char *duration(int64_t ms, char *buf)
{
    return policy_duration_text(ms, buf, 32);
}

static const char *type_of(Hover *h, const Type *t)
{
    return t ? type_text(h->arena, t) : "?";
}

/* ---- The timeouts: what each limits (docs/runtime.md, "Semantics") ----------------- */

typedef struct TimeoutText {
    const char *limits;       /* what it limits */
    const char *unset;        /* the default */
    const char *expiry;       /* what happens when it expires */
} TimeoutText;

static const TimeoutText STEP_TIMEOUT = {
    "a single attempt, measured from the moment the task is dispatched to a worker until "
    "its result arrives",
    "no limit", "the attempt fails with `TIMEOUT`",
};
static const TimeoutText CHILD_TIMEOUT = {
    "how long the parent waits for the child",
    "no limit", "the step fails with `TIMEOUT` (workflow steps cannot retry) and the "
    "child execution is cancelled",
};
static const TimeoutText AWAIT_TIMEOUT = {
    "how long the step waits for its signal, from the moment it starts waiting",
    "no limit", "the step fails with `SIGNAL_TIMEOUT`",
};
static const TimeoutText QUEUE_TIMEOUT = {
    "how long an attempt may wait for a worker to pick it up, measured from the moment "
    "the attempt is scheduled (each retry starts a new wait)",
    "no limit: a task waits until a matching worker connects",
    "the step fails with `QUEUE_TIMEOUT`",
};
static const TimeoutText WORKFLOW_TIMEOUT = {
    "the whole execution, measured from its creation, across all steps, retries, sleeps "
    "and waits for signals",
    "no limit", "the runtime stops scheduling work, waits for in-flight attempts, runs "
    "compensations, and ends the execution as `TIMED_OUT`",
};

/* Whether the standard library's error code is retried ("yes", "no", "depends"). */
static const char *retryable_text(Retryable r)
{
    return r == RETRYABLE_YES ? "retryable" : r == RETRYABLE_DEPENDS
           ? "retryable or not, depending on the error" : "never retried";
}

static const ErrorCode *error_code(Analysis *a, const char *name)
{
    for (uint32_t i = 0; i < a->program->error_code_count; i++)
        if (strcmp(a->program->error_codes[i].name->text, name) == 0)
            return &a->program->error_codes[i];
    return NULL;
}

/* "the attempt fails with `TIMEOUT` (retryable)": the code's class from the stdlib. */
static void write_expiry(Hover *h, const char *expiry)
{
    text_printf(&h->out, "On expiry: %s", expiry);
    const char *tick = strchr(expiry, '`');
    const char *end = tick ? strchr(tick + 1, '`') : NULL;
    char code[64];
    if (end && (size_t)(end - tick - 1) < sizeof code) {
        memcpy(code, tick + 1, (size_t)(end - tick - 1));
        code[end - tick - 1] = '\0';
        const ErrorCode *e = error_code(h->a, code);
        if (e)
            text_printf(&h->out, ", which is %s", retryable_text(e->retryable));
    }
    text_printf(&h->out, ".\n");
}

static void write_timeout_text(Hover *h, const char *what, const TimeoutText *t,
                               int64_t effective_ms, bool effective_known)
{
    char d[32];
    text_printf(&h->out, "**`%s`** limits %s.\n\n", what, t->limits);
    text_printf(&h->out, "Default: %s.  \n", t->unset);
    write_expiry(h, t->expiry);
    if (effective_known)
        text_printf(&h->out, "\nHere: %s.\n", effective_ms > 0 ? duration(effective_ms, d)
                                                              : "no limit");
}

/* ---- Policies --------------------------------------------------------------------- */

static void write_policy(Hover *h, const RetryPolicy *p, const Block *retry)
{
    char d1[32], d2[32];
    const char *def = " (default)";
    text_printf(&h->out, "- `attempts`: %u%s%s\n", p->attempts,
                lsp_query_setting_written(retry, SET_ATTEMPTS) ? "" : def,
                p->attempts == 1 ? ": no retries" : "");
    if (p->attempts < 2)
        return;
    text_printf(&h->out, "- `backoff`: %s%s, `initial_delay` %s%s",
                BACKOFF_NAMES[p->backoff], lsp_query_setting_written(retry, SET_BACKOFF) ? "" : def,
                duration(p->initial_delay_ms, d1),
                lsp_query_setting_written(retry, SET_INITIAL_DELAY) ? "" : def);
    if (p->backoff == BACKOFF_EXPONENTIAL)
        text_printf(&h->out, ", `max_delay` %s%s", duration(p->max_delay_ms, d2),
                    lsp_query_setting_written(retry, SET_MAX_DELAY) ? "" : def);
    text_printf(&h->out, "\n- delays before attempts 2–%u: ", p->attempts);
    policy_write_delays(&h->out, p);
    text_printf(&h->out, "\n");
    if (p->non_retryable_count > 0) {
        text_printf(&h->out, "- `non_retryable`: ");
        for (uint32_t i = 0; i < p->non_retryable_count; i++)
            text_printf(&h->out, "%s\"%s\"", i ? ", " : "", p->non_retryable[i].text);
        text_printf(&h->out, "\n");
    }
}

/* The worst case of the attempts, as W0006 computes it, against the workflow timeout. */
static void write_worst_case(Hover *h, const RetryPolicy *p, int64_t timeout_ms,
                             int64_t queue_timeout_ms, const Workflow *wf)
{
    char d1[32];
    RetryBudget b = policy_retry_budget(p, timeout_ms, wf ? wf->timeout_ms : 0);
    text_printf(&h->out, "- worst case: ");
    policy_write_worst_case(&h->out, p, timeout_ms, "**");
    text_printf(&h->out, "\n");
    if (queue_timeout_ms > 0)
        text_printf(&h->out, "- each attempt may also wait up to %s for a worker "
                             "(`queue_timeout`, not counted above)\n",
                    duration(queue_timeout_ms, d1));
    if (!wf)
        return;
    if (wf->timeout_ms <= 0)
        text_printf(&h->out, "- workflow `%s` has no timeout\n", wf->name->text);
    else if (timeout_ms > 0 && b.total_ms <= wf->timeout_ms)
        text_printf(&h->out, "- fits in the workflow timeout of %s\n",
                    duration(wf->timeout_ms, d1));
    else if (b.first_late || (timeout_ms > 0 && b.total_ms > wf->timeout_ms)) {
        text_printf(&h->out, "- ⚠ does not fit in the workflow timeout of %s",
                    duration(wf->timeout_ms, d1));
        if (b.first_late)
            text_printf(&h->out, ": attempt %u and later can never run", b.first_late);
        text_printf(&h->out, "\n");
    } else {
        text_printf(&h->out, "- the workflow timeout is %s\n", duration(wf->timeout_ms, d1));
    }
}

/* The block of a step's declaration. */
static const Block *step_body(Hover *h, const Workflow *wf, const Step *s)
{
    const Member *decl = lsp_query_declaration_member(h->a, wf->span);
    const Block *body = decl ? member_body(decl) : NULL;
    for (const Member *m = block_first(body), *end = block_end(body); m != end; m++)
        if (m->span.start == s->span.start)
            return member_body(m);
    return NULL;
}

static const char *const STEP_KIND_TEXT[] = {
    [STEP_TASK_WORKER] = "task step", [STEP_TASK_BUILTIN] = "task step (built-in)",
    [STEP_WORKFLOW] = "workflow step", [STEP_SLEEP] = "sleep step",
    [STEP_AWAIT] = "await step", [STEP_COMPUTE] = "compute step",
};

static bool can_retry(StepKind kind)
{
    return kind == STEP_TASK_WORKER || kind == STEP_TASK_BUILTIN;
}

static void write_target(Hover *h, StepKind kind, const Name *target)
{
    if (!target)
        return;
    if (kind == STEP_TASK_WORKER)
        text_printf(&h->out, ", worker `\"%s\"`", target->text);
    else if (kind == STEP_TASK_BUILTIN)
        text_printf(&h->out, ", `using %s`", target->text);
    else if (kind == STEP_WORKFLOW)
        text_printf(&h->out, ", child workflow `%s`", target->text);
    else if (kind == STEP_AWAIT)
        text_printf(&h->out, ", signal `\"%s\"`", target->text);
}

static void write_step(Hover *h, uint32_t workflow, uint32_t index)
{
    const Workflow *wf = &h->a->program->workflows[workflow];
    const Step *s = &wf->steps[index];
    char d[32];
    text_printf(&h->out, "**step `%s`** — %s", s->name->text, STEP_KIND_TEXT[s->kind]);
    write_target(h, s->kind, s->target_name);
    text_printf(&h->out, "\n\nResult: `%s`\n", type_of(h, s->result));
    const Block *body = step_body(h, wf, s);
    if (can_retry(s->kind)) {
        text_printf(&h->out, "\n**Retry policy**\n");
        write_policy(h, &s->retry, lsp_query_retry_block(body));
    }
    if (s->kind == STEP_SLEEP || s->kind == STEP_COMPUTE) {
        if (s->kind == STEP_SLEEP && s->sleep && s->sleep->kind == EXPR_DURATION)
            text_printf(&h->out, "\nSleeps %s (a durable timer).\n",
                        duration(s->sleep->integer, d));
        return;
    }
    if (!can_retry(s->kind)) {
        text_printf(&h->out, "\n- `timeout`: %s\n",
                    s->timeout_ms > 0 ? duration(s->timeout_ms, d) : "no limit");
        return;
    }
    text_printf(&h->out, "- `timeout`: %s per attempt\n",
                s->timeout_ms > 0 ? duration(s->timeout_ms, d) : "no limit");
    if (s->queue_timeout_ms > 0)
        text_printf(&h->out, "- `queue_timeout`: %s\n", duration(s->queue_timeout_ms, d));
    write_worst_case(h, &s->retry, s->timeout_ms, s->queue_timeout_ms, wf);
    const Compensation *c = s->compensate;
    if (c) {
        text_printf(&h->out, "\n**Compensate**");
        write_target(h, c->kind, c->target_name);
        text_printf(&h->out, "\n");
        write_policy(h, &c->retry, lsp_query_retry_block(lsp_query_compensate_block(body)));
        text_printf(&h->out, "- `timeout`: %s per attempt\n",
                    c->timeout_ms > 0 ? duration(c->timeout_ms, d) : "no limit");
    }
}

/* The policy in force where an occurrence is: its step's, or its compensate block's. */
static const RetryPolicy *policy_here(Hover *h, const Occurrence *o, int64_t *timeout,
                                      int64_t *queue_timeout, const Block **retry)
{
    const Step *s = lsp_query_step(h->a, o->context.workflow, o->context.step);
    if (!s)
        return NULL;
    const Block *body = step_body(h, &h->a->program->workflows[o->context.workflow], s);
    if (o->context.in_compensate && s->compensate) {
        *timeout = s->compensate->timeout_ms;
        *queue_timeout = s->compensate->queue_timeout_ms;
        *retry = lsp_query_retry_block(lsp_query_compensate_block(body));
        return &s->compensate->retry;
    }
    *timeout = s->timeout_ms;
    *queue_timeout = s->queue_timeout_ms;
    *retry = lsp_query_retry_block(body);
    return &s->retry;
}

static void write_setting(Hover *h, const Occurrence *o)
{
    RetrySetting i = (RetrySetting)o->symbol.index;
    char def[96], d[32];
    text_printf(&h->out, "**`%s`** — retry setting\n\n%s\n\nType: %s  \nDefault: %s\n",
                RETRY_SETTING_NAMES[i], RETRY_SETTING_MEANINGS[i], RETRY_SETTING_TYPES[i],
                policy_setting_default(i, def, sizeof def));
    int64_t timeout = 0, queue = 0;
    const Block *retry = NULL;
    const RetryPolicy *p = policy_here(h, o, &timeout, &queue, &retry);
    if (!p)
        return;
    text_printf(&h->out, "\nHere: ");
    switch (i) {
    case SET_ATTEMPTS: text_printf(&h->out, "%u\n", p->attempts); break;
    case SET_BACKOFF: text_printf(&h->out, "%s\n", BACKOFF_NAMES[p->backoff]); break;
    case SET_INITIAL_DELAY:
        text_printf(&h->out, "%s\n", duration(p->initial_delay_ms, d));
        break;
    case SET_MAX_DELAY: text_printf(&h->out, "%s\n", duration(p->max_delay_ms, d)); break;
    default:
        text_printf(&h->out, "%u code%s\n", p->non_retryable_count,
                    p->non_retryable_count == 1 ? "" : "s");
        break;
    }
}

static void write_keyword(Hover *h, const Occurrence *o)
{
    Keyword kw = (Keyword)o->symbol.index;
    const Step *s = lsp_query_step(h->a, o->context.workflow, o->context.step);
    int64_t timeout = 0, queue = 0;
    const Block *retry = NULL;
    const RetryPolicy *p = policy_here(h, o, &timeout, &queue, &retry);
    if (kw == KW_RETRY) {
        text_printf(&h->out, "**`retry`** — the retry policy of this %s\n\n",
                    o->context.in_compensate ? "compensate block" : "step");
        if (p) {
            write_policy(h, p, retry);
            write_worst_case(h, p, timeout, queue, o->context.in_compensate ? NULL
                             : &h->a->program->workflows[o->context.workflow]);
        }
        return;
    }
    if (kw == KW_QUEUE_TIMEOUT) {
        write_timeout_text(h, "queue_timeout", &QUEUE_TIMEOUT, queue, p != NULL);
        return;
    }
    if (!s) {
        const Workflow *wf = o->context.workflow != NO_INDEX
            ? &h->a->program->workflows[o->context.workflow] : NULL;
        write_timeout_text(h, "timeout", &WORKFLOW_TIMEOUT, wf ? wf->timeout_ms : 0, wf != NULL);
        return;
    }
    const TimeoutText *t = s->kind == STEP_WORKFLOW ? &CHILD_TIMEOUT
                         : s->kind == STEP_AWAIT ? &AWAIT_TIMEOUT : &STEP_TIMEOUT;
    write_timeout_text(h, "timeout", t, timeout, true);
    if (s->kind == STEP_TASK_BUILTIN && s->target_index != NO_INDEX &&
        !o->context.in_compensate) {
        const Builtin *b = &h->a->program->builtins[s->target_index];
        char d[32];
        if (b->default_timeout_ms > 0)
            text_printf(&h->out, "\n`%s` uses %s when no timeout is set.\n", b->name->text,
                        duration(b->default_timeout_ms, d));
    }
}

/* ---- Names and declarations ------------------------------------------------------ */

static void write_record_fields(Hover *h, const Type *t)
{
    if (!t || t->kind != TYPE_RECORD) {
        text_printf(&h->out, "`%s`", type_of(h, t));
        return;
    }
    text_printf(&h->out, "`{ ");
    for (uint32_t i = 0; i < t->field_count; i++)
        text_printf(&h->out, "%s%s: %s", i ? ", " : "", t->fields[i].name->text,
                    type_of(h, t->fields[i].type));
    text_printf(&h->out, t->field_count ? " }`" : "}`");
}

static void write_contract(Hover *h, const Type *input, const Type *output)
{
    text_printf(&h->out, "\n\ninput: ");
    write_record_fields(h, input);
    text_printf(&h->out, "  \noutput: ");
    if (output)
        write_record_fields(h, output);
    else
        text_printf(&h->out, "none");
    text_printf(&h->out, "\n");
}

static void write_stdlib_comment(Hover *h, const Symbol *sym)
{
    const char *text;
    uint32_t len;
    if (lsp_stdlib_comment(h->a, sym, &text, &len))
        text_printf(&h->out, "\n\n%.*s\n", (int)len, text);
}

static void write_function(Hover *h, const Occurrence *o)
{
    const Function *f = &h->a->program->functions[o->symbol.index];
    text_printf(&h->out, "```orbit\nfunction %s(", f->name->text);
    for (uint32_t i = 0; i < f->param_count; i++)
        text_printf(&h->out, "%s%s", i ? ", " : "", type_of(h, f->params[i]));
    text_printf(&h->out, ") -> %s\n```", type_of(h, f->result));
    write_stdlib_comment(h, &o->symbol);
}

/* The worst case of a workflow (compiler/check/worst_path.h, the figures of W0010): its
 * steps one after another against its timeout, then with the compensations of a
 * failure. */
static void write_workflow_worst(Hover *h, const Workflow *wf)
{
    const WorkflowWorst *w = &wf->worst;
    char d[32];
    text_printf(&h->out, "\n**Worst case**\n");
    if (w->running.unbounded) {
        text_printf(&h->out, "- the steps: **unbounded**: ");
        worst_reason_text(&w->running, wf->name, &h->out);
        text_printf(&h->out, "\n");
    } else {
        text_printf(&h->out, "- the steps, one after another: **");
        worst_text(&w->running, wf->name, &h->out);
        text_printf(&h->out, "**");
        if (w->step_count > 0) {
            text_printf(&h->out, " (");
            worst_sum_text(wf, &h->out);
            text_printf(&h->out, ")");
        }
        text_printf(&h->out, "\n");
    }
    if (wf->timeout_ms > 0 && !w->running.unbounded && w->running.ms > wf->timeout_ms)
        text_printf(&h->out, "- ⚠ longer than the workflow timeout of %s (W0010)\n",
                    duration(wf->timeout_ms, d));
    else if (wf->timeout_ms > 0 && !w->running.unbounded)
        text_printf(&h->out, "- fits in the workflow timeout of %s\n",
                    duration(wf->timeout_ms, d));
    else if (wf->timeout_ms > 0)
        text_printf(&h->out, "- the workflow timeout of %s bounds them\n",
                    duration(wf->timeout_ms, d));
    const char *bold = w->total.unbounded ? "" : "**";
    text_printf(&h->out, "- the workflow at its worst (its timeout, then the compensations of "
                         "a failure): %s", bold);
    worst_text(&w->total, wf->name, &h->out);
    text_printf(&h->out, "%s\n", bold);
}

static void write_symbol(Hover *h, const Occurrence *o)
{
    const Program *p = h->a->program;
    const Symbol *sym = &o->symbol;
    char d[32];
    switch (sym->kind) {
    case SYM_STEP:
        write_step(h, sym->workflow, sym->index);
        break;
    case SYM_SETTING:
        write_setting(h, o);
        break;
    case SYM_KEYWORD:
        write_keyword(h, o);
        break;
    case SYM_WORKFLOW: {
        const Workflow *wf = &p->workflows[sym->index];
        text_printf(&h->out, "**workflow `%s`** — %u step%s, timeout %s", wf->name->text,
                    wf->step_count, wf->step_count == 1 ? "" : "s",
                    wf->timeout_ms > 0 ? duration(wf->timeout_ms, d) : "none");
        write_contract(h, wf->input, wf->output);
        write_workflow_worst(h, wf);
        break;
    }
    case SYM_WORKER:
        text_printf(&h->out, "**worker `\"%s\"`**", sym->name ? sym->name->text : "");
        if (sym->index == NO_INDEX)
            text_printf(&h->out, "\n\nNot declared: its input and output are "
                        "`any`. Declare it with `worker \"%s\" { input … output … }`.\n",
                        sym->name ? sym->name->text : "");
        else
            write_contract(h, p->workers[sym->index].input, p->workers[sym->index].output);
        break;
    case SYM_BUILTIN: {
        const Builtin *b = &p->builtins[sym->index];
        text_printf(&h->out, "**built-in task `%s`** — run by the runtime itself",
                    b->name->text);
        write_contract(h, b->input, b->output);
        if (b->default_timeout_ms > 0)
            text_printf(&h->out, "\nDefault timeout: %s\n",
                        duration(b->default_timeout_ms, d));
        break;
    }
    case SYM_TYPE:
        text_printf(&h->out, "**type `%s`**\n\n", p->types[sym->index].name->text);
        write_record_fields(h, p->types[sym->index].type);
        text_printf(&h->out, "\n");
        break;
    case SYM_FIELD:
        text_printf(&h->out, "**field `%s`**: `%s`%s", sym->field->name->text,
                    type_of(h, sym->field->type), sym->field->optional ? " (optional)" : "");
        if (sym->record && sym->record->name)
            text_printf(&h->out, " of `%s`", sym->record->name->text);
        text_printf(&h->out, "\n");
        break;
    case SYM_INPUT:
        text_printf(&h->out, "**`input`** — the input of workflow `%s`\n\n",
                    p->workflows[sym->workflow].name->text);
        write_record_fields(h, p->workflows[sym->workflow].input);
        text_printf(&h->out, "\n");
        break;
    case SYM_FOR_VAR: {
        const Step *s = lsp_query_step(h->a, sym->workflow, sym->index);
        const Type *t = o->expr && o->expr->type ? o->expr->type : NULL;
        if (!t && s && s->for_iterable && s->for_iterable->type &&
            s->for_iterable->type->kind == TYPE_LIST)
            t = s->for_iterable->type->elem;
        text_printf(&h->out, "**`%s`**: `%s` — each element of the `for` of step `%s`\n",
                    lsp_symbol_name(h->a, sym), type_of(h, t), s ? s->name->text : "?");
        break;
    }
    case SYM_FUNCTION:
        write_function(h, o);
        break;
    case SYM_SIGNAL: {
        uint32_t workflow, step;
        const char *name = sym->name ? sym->name->text : "";
        if (lsp_query_await(h->a, sym->name, &workflow, &step))
            text_printf(&h->out, "**signal `\"%s\"`** — awaited by step `%s` of workflow "
                                 "`%s`\n", name, p->workflows[workflow].steps[step].name->text,
                        p->workflows[workflow].name->text);
        else
            text_printf(&h->out, "**signal `\"%s\"`** — no step of the program awaits it\n",
                        name);
        break;
    }
    case SYM_ERROR_CODE: {
        const ErrorCode *e = &p->error_codes[sym->index];
        text_printf(&h->out, "**`%s`** — runtime error code, %s", e->name->text,
                    retryable_text(e->retryable));
        write_stdlib_comment(h, sym);
        text_printf(&h->out, "\n");
        break;
    }
    default:
        break;
    }
}

json_t *lsp_handle_hover(Server *s, json_t *params)
{
    json_t *code = lsp_code_hover(s, params);
    if (code)
        return code;
    Analysis *a;
    uint32_t file;
    Occurrence o;
    if (!lsp_query_request(s, params, &a, &file, &o))
        return a ? json_null() : NULL;
    Arena arena;
    arena_init(&arena);
    Hover h = { a, &arena, { 0 } };
    write_symbol(&h, &o);
    json_t *result = json_null();
    if (h.out.len > 0) {
        FileSpan at;
        diag_locate(&a->c.sources, o.span, &at);
        result = json_pack("{s:o, s:o}",
                           "contents", lsp_markup_json(s, h.out.data, h.out.len),
                           "range", lsp_range_json(s, a, file, at.start, at.end));
    }
    text_free(&h.out);
    arena_free(&arena);
    return result;
}
