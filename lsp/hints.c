/* Inlay hints (docs/editors.md, "Inlay hints"): what each retry policy resolves to,
 * written into the code. After a retry block, its delays and its worst case
 * (`⟶ 500ms, 1s, 2s, 4s · worst case 57s500ms`); inside it, the defaults of the settings
 * it omits (`initial_delay: 1s`); on a task step or compensate block without one,
 * `1 attempt`. Every text is the hover's and W0006's (compiler/check/policy.c). */
#include "query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "textbuf.h"

enum {
    HINT_KIND_TYPE = 1,         /* InlayHintKind.Type: what a policy resolves to */
    HINT_KIND_PARAMETER = 2,    /* InlayHintKind.Parameter: a setting at its default */
};

typedef struct Hint {
    uint32_t offset;            /* in the file */
    uint32_t order;             /* of making: hints at one offset keep it */
    json_t *json;
} Hint;

typedef struct Hints {
    Server *s;
    Analysis *a;
    uint32_t file, origin;
    uint32_t from, to;          /* the requested range, offsets in the file */
    Hint *items;
    uint32_t count, cap;
} Hints;

static void add_hint(Hints *h, uint32_t position, const char *label, const char *tooltip,
                     int kind, bool pad_left, bool pad_right)
{
    uint32_t offset = position - h->origin;
    if (offset < h->from || offset > h->to)
        return;
    if (h->count == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 16;
        h->items = xrealloc(h->items, h->cap * sizeof *h->items);
    }
    LspPosition at = lsp_line_index_position(lsp_analysis_lines(h->a, h->file), offset,
                                             h->s->encoding);
    json_t *json = json_pack("{s:{s:I, s:I}, s:o, s:i, s:b, s:b, s:o}",
                             "position", "line", (json_int_t)at.line,
                             "character", (json_int_t)at.character,
                             "label", diag_json_text(label, strlen(label)), "kind", kind,
                             "paddingLeft", pad_left, "paddingRight", pad_right,
                             "tooltip", lsp_markup_json(h->s, tooltip, strlen(tooltip)));
    h->items[h->count] = (Hint){ offset, h->count, json };
    h->count++;
}

static bool can_retry(StepKind kind)
{
    return kind == STEP_TASK_WORKER || kind == STEP_TASK_BUILTIN;
}

/* `1 attempt` where a task has no retry block. */
static void one_attempt(Hints *h, uint32_t position, bool before)
{
    add_hint(h, position, "1 attempt", "No `retry` block: the task is tried once. "
             "`retry { attempts: N }` retries it (`orbitc explain E0410`).",
             HINT_KIND_TYPE, !before, before);
}

/* The defaults of the settings that `retry` omits and that change its schedule: after
 * its last setting (or its `{` when it has none). `non_retryable` is left out: its
 * default, no code, excludes nothing. */
static void omitted_settings(Hints *h, const Block *retry, const RetryPolicy *p)
{
    uint32_t at = retry->count ? retry->members[retry->count - 1].span.end
                               : retry->span.start + 1;
    for (RetrySetting i = SET_ATTEMPTS; i < SET_NON_RETRYABLE; i++) {
        bool shown = i == SET_ATTEMPTS || (p->attempts > 1 &&
                     (i != SET_MAX_DELAY || p->backoff == BACKOFF_EXPONENTIAL));
        if (!shown || lsp_query_setting_written(retry, i))
            continue;
        char value[32], def[96];
        switch (i) {
        case SET_ATTEMPTS: snprintf(value, sizeof value, "%u", p->attempts); break;
        case SET_BACKOFF: snprintf(value, sizeof value, "%s", BACKOFF_NAMES[p->backoff]); break;
        case SET_INITIAL_DELAY: policy_duration_text(p->initial_delay_ms, value, sizeof value); break;
        default: policy_duration_text(p->max_delay_ms, value, sizeof value); break;
        }
        TextBuffer label = { 0 }, tip = { 0 };
        text_printf(&label, "%s: %s", RETRY_SETTING_NAMES[i], value);
        text_printf(&tip, "`%s` is not written: its default applies (%s).\n\n%s",
                    RETRY_SETTING_NAMES[i], policy_setting_default(i, def, sizeof def),
                    RETRY_SETTING_MEANINGS[i]);
        add_hint(h, at, label.data, tip.data, HINT_KIND_PARAMETER, true, false);
        text_free(&label);
        text_free(&tip);
    }
}

/* The end of a block: after its `}`, or after its last member when the parser closed it
 * at a line that is not its own (a missing `}`: the parser ends a block where the indentation says). */
static uint32_t after_block(const Hints *h, const Block *b)
{
    const char *text = source_file(&h->a->c.sources, h->file)->text;
    if (b->span.end > b->span.start && text[b->span.end - 1 - h->origin] == '}')
        return b->span.end;
    return b->count ? b->members[b->count - 1].span.end : b->span.start + 1;
}

/* After the retry block: `⟶ 500ms, 1s, 2s, 4s · worst case 57s500ms`. */
static void schedule(Hints *h, const Block *retry, const RetryPolicy *p, int64_t timeout_ms)
{
    TextBuffer label = { 0 }, tip = { 0 };
    char d[32];
    text_printf(&label, "⟶ ");
    if (p->attempts > 1) {
        policy_write_delays(&label, p);
        text_printf(&tip, "delays before attempts 2–%u: ", p->attempts);
        policy_write_delays(&tip, p);
        text_printf(&tip, "\n");
    } else {
        text_printf(&label, "1 attempt");
        text_printf(&tip, "attempts: 1: no retries\n");
    }
    RetryBudget b = policy_retry_budget(p, timeout_ms, 0);
    if (timeout_ms > 0)
        text_printf(&label, " · worst case %s", policy_duration_text(b.total_ms, d, sizeof d));
    else
        text_printf(&label, " · worst case unbounded: no timeout");
    text_printf(&tip, "worst case: ");
    policy_write_worst_case(&tip, p, timeout_ms, "");
    add_hint(h, after_block(h, retry), label.data, tip.data, HINT_KIND_TYPE, true, false);
    text_free(&label);
    text_free(&tip);
}

/* The hints of one policy: a step's (`name_end`: after its name) or a compensate
 * block's (`name_end` 0: before its block). */
static void policy_hints(Hints *h, const Block *body, const RetryPolicy *p,
                         int64_t timeout_ms, uint32_t name_end)
{
    const Block *retry = lsp_query_retry_block(body);
    if (!retry) {
        one_attempt(h, name_end ? name_end : body->span.start, name_end == 0);
        return;
    }
    omitted_settings(h, retry, p);
    schedule(h, retry, p, timeout_ms);
}

static void step_hints(Hints *h, const Step *step, const Block *body)
{
    if (!body || !can_retry(step->kind))
        return;
    policy_hints(h, body, &step->retry, step->timeout_ms, step->name_span.end);
    const Block *compensate = lsp_query_compensate_block(body);
    if (compensate && step->compensate)
        policy_hints(h, compensate, &step->compensate->retry, step->compensate->timeout_ms, 0);
}

static bool outside(const Hints *h, Span span)
{
    return span.end - h->origin < h->from || span.start - h->origin > h->to;
}

/* The steps of a workflow's declaration, matched to the checked program's by position
 * (both in source order). */
static void workflow_hints(Hints *h, const Workflow *wf, const Member *decl)
{
    uint32_t k = 0;
    for (const Member *m = block_first(member_body(decl)), *end = block_end(member_body(decl));
         m != end; m++) {
        if (m->kind != MEMBER_CLAUSE || m->keyword != KW_STEP || outside(h, m->span))
            continue;
        while (k < wf->step_count && wf->steps[k].span.start < m->span.start)
            k++;
        if (k < wf->step_count && wf->steps[k].span.start == m->span.start)
            step_hints(h, &wf->steps[k], member_body(m));
    }
}

static int by_position(const void *x, const void *y)
{
    const Hint *a = x, *b = y;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

json_t *lsp_handle_inlay_hint(Server *s, json_t *params)
{
    uint32_t file, from, to;
    Analysis *a = lsp_source_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a || !lsp_range_offsets(s, a, file, params, &from, &to))
        return NULL;
    if (!lsp_analysis_select(a, file))
        return json_array();          /* a program's configuration has no policies */
    Hints h = { s, a, file, source_file(&a->c.sources, file)->origin, from, to, NULL, 0, 0 };
    const Program *p = a->program;
    const SourceAst *ast = file < a->c.ast_count ? a->c.asts[file] : NULL;
    uint32_t w = 0;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        if (m->kind != MEMBER_CLAUSE || m->keyword != KW_WORKFLOW)
            continue;
        while (w < p->workflow_count && p->workflows[w].span.start < m->span.start)
            w++;
        if (w < p->workflow_count && p->workflows[w].span.start == m->span.start &&
            !outside(&h, m->span))
            workflow_hints(&h, &p->workflows[w], m);
    }
    if (h.count > 1)
        qsort(h.items, h.count, sizeof *h.items, by_position);
    json_t *out = json_array();
    for (uint32_t i = 0; i < h.count; i++)
        json_array_append_new(out, h.items[i].json);
    free(h.items);
    return out;
}
