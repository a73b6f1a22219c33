/* GitHub Actions workflow commands, one line per diagnostic (docs/diagnostics.md):
 *
 *   ::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=E0410::message
 *
 * `::warning` for a warning. The file is relative to the current directory (the root
 * of the repository), "." and ".." resolved, when it lies below it. The message is the whole text of the diagnostic (labels,
 * notes and help on further lines). GitHub's escaping: in the message `%`, CR and LF
 * become %25, %0D and %0A; in a property also `:` and `,` (%3A, %2C). Invalid UTF-8 and
 * other control characters are written as U+FFFD, as the human format does. */
#include <stdlib.h>
#include <string.h>

#include "render_machine.h"

static void write_escaped(FILE *out, const char *text, bool property)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode(p + i, len - i, &cp);
        if (cp == '%')
            fputs("%25", out);
        else if (cp == '\r')
            fputs("%0D", out);
        else if (cp == '\n')
            fputs("%0A", out);
        else if (property && cp == ':')
            fputs("%3A", out);
        else if (property && cp == ',')
            fputs("%2C", out);
        else if (cp != '\t' && utf8_is_unprintable(cp))
            fputs("\xEF\xBF\xBD", out);
        else
            fwrite(p + i, 1, n, out);
        i += n;
    }
}

static void write_properties(FILE *out, const SpanPosition *pos, const char *code,
                             const char *root)
{
    if (pos->located) {
        /* relative to the repository's root (the current directory), as GitHub wants */
        char *relative = render_relative_path(root, pos->file);
        fputs("file=", out);
        write_escaped(out, relative ? relative : pos->file->path, true);
        free(relative);
        fprintf(out, ",line=%u,col=%u,endLine=%u,endColumn=%u,", pos->line, pos->column,
                pos->end_line, pos->end_column);
    }
    fputs("title=", out);
    write_escaped(out, code, true);
}

void render_github(FILE *out, const DiagSink *sink, const SourceMap *sources,
                   const RenderOptions *options)
{
    (void)options;
    char *root = render_source_root();
    ColumnCache cache;
    column_cache_init(&cache);
    TextBuffer message = { 0 };
    for (uint32_t i = 0; i < sink->count; i++) {
        const Diagnostic *d = sink->items[i];
        SpanPosition pos = render_span_position(&cache, sources, d->span);
        fputs(d->severity == SEV_ERROR ? "::error " : "::warning ", out);
        write_properties(out, &pos, diag_info(d->code)->code, root);
        fputs("::", out);
        message.len = 0;
        render_full_message(&message, &cache, sources, d, root);
        write_escaped(out, message.data, false);
        fputc('\n', out);
    }
    text_free(&message);
    free(root);
}
