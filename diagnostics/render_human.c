/* Human output, in the style of rustc:
 *
 *     error[E0410]: unknown retry setting `backof`
 *       --> checkout.orbit:7:7
 *        |
 *      7 |       backof: exponential
 *        |       ^^^^^^ unknown setting
 *        |
 *        = help: did you mean `backoff`?
 *
 * A diagnostic shows the lines of its primary span and of its labels, file by file; the
 * snippet of a line is drawn by snippet.c. Text from the user (messages, paths, source
 * lines) never reaches the terminal as invalid UTF-8 or control characters. */
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "diag.h"
#include "render_human.h"


/* --- colors and safe text --- */

void render_human_paint(const Painter *painter, const char *escape)
{
    if (painter->color)
        fputs(escape, painter->out);
}

const char *render_human_severity_color(Severity severity)
{
    return severity == SEV_ERROR ? COLOR_RED : COLOR_YELLOW;
}

void render_human_write_safe(FILE *out, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        uint32_t left = len - i > UINT32_MAX ? UINT32_MAX : (uint32_t)(len - i);
        int32_t cp;
        uint32_t n = utf8_decode(s + i, left, &cp);
        if (utf8_is_unprintable(cp))
            fputs("\xEF\xBF\xBD", out);
        else
            fwrite(s + i, 1, n, out);
        i += n;
    }
}

static void write_safe_string(FILE *out, const char *text)
{
    if (text)
        render_human_write_safe(out, text, strlen(text));
}

void render_human_write_spaces(FILE *out, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        fputc(' ', out);
}

/* "   |" : the gutter of a line without a line number. */
void render_human_blank_gutter(const Painter *painter, uint32_t width)
{
    render_human_write_spaces(painter->out, width + 1);
    render_human_paint(painter, COLOR_BLUE);
    fputs(" |", painter->out);
    render_human_paint(painter, COLOR_RESET);
}

/* A message may have several lines; later lines are indented by `indent` spaces. */
static void write_lines(FILE *out, const char *text, uint32_t indent)
{
    if (!text)
        return;
    const char *line = text;
    for (;;) {
        const char *newline = strchr(line, '\n');
        size_t len = newline ? (size_t)(newline - line) : strlen(line);
        render_human_write_safe(out, line, len);
        if (!newline)
            return;
        fputc('\n', out);
        line = newline + 1;
        if (*line != '\n' && *line != '\0')
            render_human_write_spaces(out, indent);   /* no trailing blanks on an empty line */
    }
}

/* --- the parts of one diagnostic --- */

static void write_header(const Painter *painter, const Diagnostic *d)
{
    const DiagInfo *info = diag_info(d->code);
    const char *severity = d->severity == SEV_ERROR ? "error" : "warning";
    const char *code = info ? info->code : "?";
    render_human_paint(painter, render_human_severity_color(d->severity));
    fprintf(painter->out, "%s[%s]", severity, code);
    render_human_paint(painter, COLOR_RESET);
    render_human_paint(painter, COLOR_BOLD);
    fputs(": ", painter->out);
    /* later lines (a newline in a quoted error code) go under the message's first */
    write_lines(painter->out, d->message, (uint32_t)(strlen(severity) + strlen(code) + 4));
    render_human_paint(painter, COLOR_RESET);
    fputc('\n', painter->out);
}

static void write_sub(const Painter *painter, uint32_t width, const char *kind,
                      const char *text)
{
    render_human_write_spaces(painter->out, width + 2);
    render_human_paint(painter, COLOR_BLUE);
    fputc('=', painter->out);
    render_human_paint(painter, COLOR_RESET);
    render_human_paint(painter, COLOR_BOLD);
    fprintf(painter->out, " %s:", kind);
    render_human_paint(painter, COLOR_RESET);
    fputc(' ', painter->out);
    write_lines(painter->out, text, width + 2 + 2 + (uint32_t)strlen(kind) + 2);
    fputc('\n', painter->out);
}

static bool has_subs(const Diagnostic *d)
{
    return d->notes || d->helps || d->fixes;
}

static void write_subs(const Painter *painter, uint32_t width, const Diagnostic *d)
{
    for (const DiagText *t = d->notes; t; t = t->next)
        write_sub(painter, width, "note", t->text);
    for (const DiagText *t = d->helps; t; t = t->next)
        write_sub(painter, width, "help", t->text);
    for (const DiagFix *f = d->fixes; f; f = f->next) {
        if (f->message && f->message[0])
            write_sub(painter, width, "help", f->message);
    }
}

/* The marks of a diagnostic, sorted: the primary span's file first, then other files by
 * index; within a file by line, then start, then the order they were added. */
static int compare_marks(const void *pa, const void *pb)
{
    const Mark *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static bool make_mark(Mark *m, ColumnCache *cache, const SourceMap *sources, Span whole,
                      const char *label, bool primary, uint32_t order)
{
    FileSpan where;
    if (!diag_locate(sources, whole, &where))
        return false;
    const SourceFile *file = source_file(sources, where.file);
    if (where.start == file->len && where.end == file->len && file->len > 0
        && source_is_eol(file->text[file->len - 1])) {
        /* At the end of a file that ends with a line end (base/source.h): show it after
         * the last character of the last line, not on the empty line after it. */
        where.start = where.end = file->len - 1;
    }
    Position start = diag_position_at(cache, sources, where.file, where.start);
    m->file = where.file;
    m->line = start.line;
    m->start = start.at.byte;
    m->column = start.at.scalars + 1;
    /* A span over several lines is underlined to the end of its first line. */
    uint32_t line_end_offset = where.start - start.at.byte + start.len;
    uint32_t end = where.end < line_end_offset ? where.end : line_end_offset;
    m->end = start.at.byte + (end - where.start);
    if (m->end > start.len)
        m->end = start.len;
    if (m->end < m->start)
        m->end = m->start;
    m->label = label && label[0] ? label : NULL;
    m->primary = primary;
    m->order = order;
    m->rank = 0;
    return true;
}

static uint32_t collect_marks(Mark *marks, ColumnCache *cache, const SourceMap *sources,
                              const Diagnostic *d)
{
    uint32_t n = 0;
    if (make_mark(&marks[n], cache, sources, d->span, d->label, true, n))
        n++;
    for (const DiagLabel *l = d->labels; l; l = l->next) {
        if (make_mark(&marks[n], cache, sources, l->span, l->message, false, n))
            n++;
    }
    uint32_t primary_file = n ? source_file_at(sources, d->span.start) : 0;
    for (uint32_t i = 0; i < n; i++)
        marks[i].rank = marks[i].file == primary_file ? 0 : marks[i].file + 1;
    qsort(marks, n, sizeof *marks, compare_marks);
    return n;
}

static uint32_t digits(uint32_t n)
{
    uint32_t count = 1;
    while (n >= 10) {
        n /= 10;
        count++;
    }
    return count;
}

static void write_location(const Painter *painter, uint32_t width, const char *arrow,
                           const SourceMap *sources, const Mark *m)
{
    render_human_write_spaces(painter->out, width + 1);
    render_human_paint(painter, COLOR_BLUE);
    fputs(arrow, painter->out);
    render_human_paint(painter, COLOR_RESET);
    fputc(' ', painter->out);
    write_safe_string(painter->out, source_file(sources, m->file)->path);
    fprintf(painter->out, ":%u:%u\n", m->line + 1, m->column);
}

/* The lines of one file: each marked line, the line between two marked lines one apart,
 * and "..." for a longer gap. */
static void write_file_lines(const Painter *painter, SnippetContext *context,
                             const Mark *marks, uint32_t count)
{
    uint32_t i = 0;
    bool first = true;
    uint32_t previous = 0;
    while (i < count) {
        uint32_t line = marks[i].line, j = i;
        while (j < count && marks[j].line == line)
            j++;
        if (!first && line == previous + 2) {
            render_human_write_snippet_line(painter, context, marks[i].file, previous + 1, NULL,
                                     0);
        } else if (!first && line > previous + 2) {
            render_human_paint(painter, COLOR_BLUE);
            fputs("...", painter->out);
            render_human_paint(painter, COLOR_RESET);
            fputc('\n', painter->out);
        }
        render_human_write_snippet_line(painter, context, marks[i].file, line, marks + i, j - i);
        previous = line;
        first = false;
        i = j;
    }
}

static void write_snippets(const Painter *painter, SnippetContext *context, Mark *marks,
                           uint32_t count)
{
    uint32_t i = 0;
    while (i < count) {
        uint32_t j = i;
        while (j < count && marks[j].file == marks[i].file)
            j++;
        if (i == 0) {
            /* The primary span's location, even when it is not the first line shown. */
            const Mark *primary = &marks[0];
            for (uint32_t k = i; k < j; k++) {
                if (marks[k].primary)
                    primary = &marks[k];
            }
            write_location(painter, context->gutter, "-->", context->sources, primary);
        } else {
            render_human_blank_gutter(painter, context->gutter);
            fputc('\n', painter->out);
            write_location(painter, context->gutter, ":::", context->sources, &marks[i]);
        }
        render_human_blank_gutter(painter, context->gutter);
        fputc('\n', painter->out);
        write_file_lines(painter, context, marks + i, j - i);
        i = j;
    }
}

static void write_diagnostic(const Painter *painter, ColumnCache *cache,
                             const SourceMap *sources, const Diagnostic *d)
{
    uint32_t label_count = 1;
    for (const DiagLabel *l = d->labels; l; l = l->next)
        label_count++;
    Mark *marks = xmalloc(label_count * sizeof *marks);
    uint32_t count = collect_marks(marks, cache, sources, d);
    uint32_t widest = 1;
    for (uint32_t i = 0; i < count; i++) {
        if (marks[i].line + 1 > widest)
            widest = marks[i].line + 1;
    }
    Painter p = *painter;
    p.severity = d->severity;
    SnippetContext context = { sources, cache, digits(widest) };
    write_header(&p, d);
    if (count > 0)
        write_snippets(&p, &context, marks, count);
    if (has_subs(d)) {
        if (count > 0) {
            render_human_blank_gutter(&p, context.gutter);
            fputc('\n', p.out);
        }
        write_subs(&p, context.gutter, d);
    }
    fputc('\n', p.out);
    free(marks);
}

/* --- after the diagnostics --- */

static const char *plural(uint32_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

static void write_summary(const Painter *painter, const DiagSink *sink, bool warnings_denied)
{
    FILE *out = painter->out;
    bool denied = warnings_denied && sink->warnings > 0;
    if (sink->errors > 0 || denied) {
        render_human_paint(painter, COLOR_RED);
        fputs("error", out);
        render_human_paint(painter, COLOR_RESET);
        render_human_paint(painter, COLOR_BOLD);
        fputs(":", out);
        if (sink->errors > 0)
            fprintf(out, " %u %s%s", sink->errors, plural(sink->errors, "error", "errors"),
                    sink->warnings > 0 ? "," : "");
        if (sink->warnings > 0)
            fprintf(out, " %u %s", sink->warnings, plural(sink->warnings, "warning", "warnings"));
        fputs(" emitted", out);
        if (denied)
            fputs(" (warnings denied by `--deny-warnings`)", out);
    } else if (sink->warnings > 0) {
        render_human_paint(painter, COLOR_YELLOW);
        fputs("warning", out);
        render_human_paint(painter, COLOR_RESET);
        render_human_paint(painter, COLOR_BOLD);
        fprintf(out, ": %u %s emitted", sink->warnings,
                plural(sink->warnings, "warning", "warnings"));
    } else {
        return;
    }
    render_human_paint(painter, COLOR_RESET);
    fputc('\n', out);
}

/* "For more information about this error, try `orbitc explain E0410`.", as rustc does. */
static void write_explain_hint(const Painter *painter, const DiagSink *sink)
{
    bool seen[DIAG_CODE_COUNT] = { false };
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < sink->count; i++) {
        const Diagnostic *d = sink->items[i];
        if (d->severity == SEV_ERROR && (unsigned)d->code < DIAG_CODE_COUNT
            && !seen[d->code] && diag_explanation(d->code)) {
            seen[d->code] = true;
            distinct++;
        }
    }
    if (distinct == 0)
        return;
    FILE *out = painter->out;
    fputc('\n', out);
    render_human_paint(painter, COLOR_BOLD);
    int first = -1;
    if (distinct > 1) {
        fputs("Some errors have detailed explanations: ", out);
        uint32_t written = 0;
        for (int c = 0; c < DIAG_CODE_COUNT; c++) {
            if (!seen[c])
                continue;
            fprintf(out, "%s%s", written ? ", " : "", diag_info((DiagCode)c)->code);
            written++;
        }
        fputs(".\n", out);
    }
    for (int c = 0; c < DIAG_CODE_COUNT && first < 0; c++) {
        if (seen[c])
            first = c;
    }
    fprintf(out, "For more information about %s, try `orbitc explain %s`.",
            distinct > 1 ? "an error" : "this error", diag_info((DiagCode)first)->code);
    render_human_paint(painter, COLOR_RESET);
    fputc('\n', out);
}

void render_human(FILE *out, const DiagSink *sink, const SourceMap *sources,
                  const RenderOptions *options)
{
    Painter painter = { out, options && options->color, SEV_ERROR };
    ColumnCache cache;
    column_cache_init(&cache);
    uint32_t shown = sink->count;
    if (options && options->max_shown > 0 && options->max_shown < shown)
        shown = options->max_shown;
    for (uint32_t i = 0; i < shown; i++)
        write_diagnostic(&painter, &cache, sources, sink->items[i]);
    if (shown < sink->count) {
        uint32_t hidden = sink->count - shown;
        render_human_paint(&painter, COLOR_BOLD);
        fprintf(out, "note: %u more %s not shown", hidden,
                plural(hidden, "diagnostic", "diagnostics"));
        render_human_paint(&painter, COLOR_RESET);
        fputs("\n\n", out);
    }
    if (options && options->summary && sink->count > 0) {
        write_summary(&painter, sink, options->warnings_denied);
        write_explain_hint(&painter, sink);
    }
}
