/* The diagnostic sink: passes report into it while they run; diag_finish then sorts the
 * reports into source order, drops exact duplicates and counts what is left. All text is
 * copied into the compiler's arena. */
#include <stdlib.h>
#include <string.h>

#include "diag.h"

/* A report of a warning that is turned off goes to a scratch diagnostic, marked by this
 * sequence number; what is added to it afterwards is dropped without formatting. */
enum { SCRATCH_SEQ = UINT32_MAX };

void diag_sink_init(DiagSink *sink, Arena *arena)
{
    memset(sink, 0, sizeof *sink);
    sink->arena = arena;
}

void diag_sink_free(DiagSink *sink)
{
    free(sink->items);
    sink->items = NULL;
    sink->count = sink->cap = 0;
}

bool diag_enabled(const DiagSink *sink, DiagCode code)
{
    const DiagInfo *info = diag_info(code);
    if (!info)
        return false;
    if (info->severity == SEV_ERROR)
        return true;
    switch ((LintLevel)sink->level[code]) {
    case LINT_ALLOW:
        return false;
    case LINT_WARN:
    case LINT_DENY:
        return true;
    case LINT_DEFAULT:
        break;
    }
    return info->default_on;
}

void diag_drop_since(DiagSink *sink, uint32_t first, bool (*keep)(DiagCode code))
{
    uint32_t kept = first;
    for (uint32_t i = first; i < sink->count; i++)
        if (keep(sink->items[i]->code))
            sink->items[kept++] = sink->items[i];
    sink->count = kept;
}

void diag_drop_range(DiagSink *sink, uint32_t from, uint32_t to)
{
    if (from == to)   /* nothing to drop; items may still be NULL */
        return;
    memmove(sink->items + from, sink->items + to, (sink->count - to) * sizeof *sink->items);
    sink->count -= to - from;
}

static bool is_scratch(const Diagnostic *d)
{
    return d->seq == SCRATCH_SEQ;
}

static void push(DiagSink *sink, Diagnostic *d)
{
    if (sink->count == sink->cap) {
        sink->cap = sink->cap ? sink->cap * 2 : 64;
        sink->items = xrealloc(sink->items, sink->cap * sizeof *sink->items);
    }
    d->seq = sink->next_seq++;
    sink->items[sink->count++] = d;
}

Diagnostic *diag_report(DiagSink *sink, DiagCode code, Span span, const char *fmt, ...)
{
    Diagnostic *d = arena_alloc(sink->arena, sizeof *d);
    const DiagInfo *info = diag_info(code);
    d->code = code;
    d->severity = !info || sink->level[code] == LINT_DENY ? SEV_ERROR : info->severity;
    d->span = span;
    if (!diag_enabled(sink, code)) {
        d->seq = SCRATCH_SEQ;
        d->message = "";
        return d;
    }
    va_list args;
    va_start(args, fmt);
    d->message = arena_vprintf(sink->arena, fmt, args);
    va_end(args);
    push(sink, d);
    return d;
}

Diagnostic *diag_report_as(DiagSink *sink, DiagCode code, Severity severity, Span span,
                           const char *message)
{
    Diagnostic *d = arena_alloc(sink->arena, sizeof *d);
    d->code = code;
    d->severity = severity;
    d->span = span;
    d->message = arena_strndup(sink->arena, message, strlen(message));
    push(sink, d);
    return d;
}

Diagnostic *diag_copy(DiagSink *sink, const Diagnostic *from)
{
    Diagnostic *d = diag_report_as(sink, from->code, from->severity, from->span,
                                   from->message);
    if (from->label)
        diag_set_label(sink, d, "%s", from->label);
    for (const DiagLabel *l = from->labels; l; l = l->next)
        diag_add_label(sink, d, l->span, "%s", l->message);
    for (const DiagText *t = from->notes; t; t = t->next)
        diag_add_note(sink, d, "%s", t->text);
    for (const DiagText *t = from->helps; t; t = t->next)
        diag_add_help(sink, d, "%s", t->text);
    for (const DiagFix *f = from->fixes; f; f = f->next)
        diag_add_fix(sink, d, f->span, f->replacement, f->applicability, "%s", f->message);
    return d;
}

void diag_set_label(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
{
    if (is_scratch(d))
        return;
    va_list args;
    va_start(args, fmt);
    d->label = arena_vprintf(sink->arena, fmt, args);
    va_end(args);
}

void diag_add_label(DiagSink *sink, Diagnostic *d, Span span, const char *fmt, ...)
{
    if (is_scratch(d))
        return;
    DiagLabel *label = arena_alloc(sink->arena, sizeof *label);
    label->span = span;
    va_list args;
    va_start(args, fmt);
    label->message = arena_vprintf(sink->arena, fmt, args);
    va_end(args);
    if (d->last_label)
        d->last_label->next = label;
    else
        d->labels = label;
    d->last_label = label;
}

static DiagText *new_text(DiagSink *sink, const char *fmt, va_list args)
{
    DiagText *text = arena_alloc(sink->arena, sizeof *text);
    text->text = arena_vprintf(sink->arena, fmt, args);
    return text;
}

/* Appends to a list kept with a pointer to its last element, so adding stays O(1). */
static void append_text(DiagText **first, DiagText **last, DiagText *text)
{
    if (*last)
        (*last)->next = text;
    else
        *first = text;
    *last = text;
}

void diag_add_note(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
{
    if (is_scratch(d))
        return;
    va_list args;
    va_start(args, fmt);
    append_text(&d->notes, &d->last_note, new_text(sink, fmt, args));
    va_end(args);
}

void diag_add_help(DiagSink *sink, Diagnostic *d, const char *fmt, ...)
{
    if (is_scratch(d))
        return;
    va_list args;
    va_start(args, fmt);
    append_text(&d->helps, &d->last_help, new_text(sink, fmt, args));
    va_end(args);
}

void diag_add_fix(DiagSink *sink, Diagnostic *d, Span span, const char *replacement,
                  Applicability applicability, const char *fmt, ...)
{
    if (is_scratch(d))
        return;
    DiagFix *fix = arena_alloc(sink->arena, sizeof *fix);
    fix->span = span;
    fix->replacement = arena_strndup(sink->arena, replacement ? replacement : "",
                                     replacement ? strlen(replacement) : 0);
    fix->applicability = applicability;
    va_list args;
    va_start(args, fmt);
    fix->message = arena_vprintf(sink->arena, fmt, args);
    va_end(args);
    if (d->last_fix)
        d->last_fix->next = fix;
    else
        d->fixes = fix;
    d->last_fix = fix;
}

/* Ordering by value, so that the result does not depend on qsort's stability. */
static int compare_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

static int compare_source_order(const void *pa, const void *pb)
{
    const Diagnostic *a = *(const Diagnostic *const *)pa;
    const Diagnostic *b = *(const Diagnostic *const *)pb;
    int c = compare_u32(a->span.start, b->span.start);   /* files are in order too */
    if (!c)
        c = compare_u32(a->seq, b->seq);
    return c;
}

/* Equal under this ordering means "exact duplicate"; seq last keeps the first report. */
static int compare_identity(const void *pa, const void *pb)
{
    const Diagnostic *a = *(const Diagnostic *const *)pa;
    const Diagnostic *b = *(const Diagnostic *const *)pb;
    int c = compare_u32(a->span.start, b->span.start);
    if (!c)
        c = compare_u32(a->span.end, b->span.end);
    if (!c)
        c = compare_u32((uint32_t)a->code, (uint32_t)b->code);
    if (!c)
        c = strcmp(a->message, b->message);
    if (!c)
        c = compare_u32(a->seq, b->seq);
    return c;
}

static bool same_report(const Diagnostic *a, const Diagnostic *b)
{
    return a->code == b->code && a->span.start == b->span.start && a->span.end == b->span.end
        && strcmp(a->message, b->message) == 0;
}

void diag_finish(DiagSink *sink)
{
    Diagnostic **items = sink->items;
    uint32_t count = sink->count;
    if (count > 1) {
        qsort(items, count, sizeof *items, compare_identity);
        uint32_t kept = 1;
        for (uint32_t i = 1; i < count; i++) {
            if (!same_report(items[kept - 1], items[i]))
                items[kept++] = items[i];
        }
        count = kept;
        qsort(items, count, sizeof *items, compare_source_order);
    }
    sink->count = count;
    sink->errors = sink->warnings = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (items[i]->severity == SEV_ERROR)
            sink->errors++;
        else
            sink->warnings++;
    }
}
