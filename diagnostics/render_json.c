/* JSON output: one object per diagnostic, one per line, keys always in the same order.
 * The format is documented in docs/diagnostics.md; its schema is
 * docs/diagnostics.schema.json. Written by hand; strings by diag_json_write_text
 * (json_text.h), so the output is always valid UTF-8. */
#include <string.h>

#include "columns.h"
#include "diag.h"
#include "json_text.h"

static void write_string(FILE *out, const char *s)
{
    if (s)
        diag_json_write_text(out, s, strlen(s));
    else
        fputs("null", out);
}


/* "file", "line" … "byte_end" of a span, without braces. */
static void write_position_fields(FILE *out, ColumnCache *cache, const SourceMap *sources,
                                  Span span)
{
    uint32_t line = 0, column = 1, end_line = 0, end_column = 1;
    uint32_t character = 0, end_character = 0;
    FileSpan where = { 0, 0, 0 };
    const char *path = "";
    if (diag_locate(sources, span, &where)) {
        path = source_file(sources, where.file)->path;
        Position start = diag_position_at(cache, sources, where.file, where.start);
        Position end = diag_position_at(cache, sources, where.file, where.end);
        line = start.line;
        column = start.at.scalars + 1;
        character = start.at.utf16;
        end_line = end.line;
        end_column = end.at.scalars + 1;
        end_character = end.at.utf16;
    }
    fputs("\"file\":", out);
    write_string(out, path);
    fprintf(out, ",\"line\":%u,\"column\":%u,\"end_line\":%u,\"end_column\":%u,",
            line + 1, column, end_line + 1, end_column);
    fprintf(out, "\"range\":{\"start\":{\"line\":%u,\"character\":%u},"
                 "\"end\":{\"line\":%u,\"character\":%u}},",
            line, character, end_line, end_character);
    fprintf(out, "\"byte_start\":%u,\"byte_end\":%u", where.start, where.end);
}

static void write_labels(FILE *out, ColumnCache *cache, const SourceMap *sources,
                         const DiagLabel *label)
{
    fputs("\"labels\":[", out);
    for (const DiagLabel *l = label; l; l = l->next) {
        fputc('{', out);
        write_position_fields(out, cache, sources, l->span);
        fputs(",\"message\":", out);
        write_string(out, l->message ? l->message : "");
        fputc('}', out);
        if (l->next)
            fputc(',', out);
    }
    fputc(']', out);
}

static void write_texts(FILE *out, const char *key, const DiagText *text)
{
    fprintf(out, "\"%s\":[", key);
    for (const DiagText *t = text; t; t = t->next) {
        write_string(out, t->text ? t->text : "");
        if (t->next)
            fputc(',', out);
    }
    fputc(']', out);
}

static const char *applicability_name(Applicability applicability)
{
    return applicability == FIX_MACHINE_APPLICABLE ? "machine-applicable" : "maybe-incorrect";
}

static void write_fixes(FILE *out, ColumnCache *cache, const SourceMap *sources,
                        const DiagFix *fix)
{
    fputs("\"fixes\":[", out);
    for (const DiagFix *f = fix; f; f = f->next) {
        fputs("{\"message\":", out);
        write_string(out, f->message ? f->message : "");
        fputs(",\"applicability\":", out);
        write_string(out, applicability_name(f->applicability));
        fputs(",\"edits\":[{", out);
        write_position_fields(out, cache, sources, f->span);
        fputs(",\"replacement\":", out);
        write_string(out, f->replacement ? f->replacement : "");
        fputs("}]}", out);
        if (f->next)
            fputc(',', out);
    }
    fputc(']', out);
}

static void write_diagnostic(FILE *out, ColumnCache *cache, const SourceMap *sources,
                             const Diagnostic *d)
{
    const DiagInfo *info = diag_info(d->code);
    fputs("{\"code\":", out);
    write_string(out, info ? info->code : "");
    fputs(",\"severity\":", out);
    write_string(out, d->severity == SEV_ERROR ? "error" : "warning");
    fputs(",\"message\":", out);
    write_string(out, d->message ? d->message : "");
    fputc(',', out);
    write_position_fields(out, cache, sources, d->span);
    fputs(",\"label\":", out);
    write_string(out, d->label);
    fputc(',', out);
    write_labels(out, cache, sources, d->labels);
    fputc(',', out);
    write_texts(out, "notes", d->notes);
    fputc(',', out);
    write_texts(out, "help", d->helps);
    fputc(',', out);
    write_fixes(out, cache, sources, d->fixes);
    fputs("}\n", out);
}

/* Every diagnostic is written: max_shown and summary are for people, not machines. */
void render_json(FILE *out, const DiagSink *sink, const SourceMap *sources,
                 const RenderOptions *options)
{
    (void)options;
    ColumnCache cache;
    column_cache_init(&cache);
    for (uint32_t i = 0; i < sink->count; i++)
        write_diagnostic(out, &cache, sources, sink->items[i]);
}
