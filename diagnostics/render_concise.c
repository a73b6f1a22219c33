/* The concise format (docs/diagnostics.md): one line per diagnostic, for grep and the
 * quickfix lists of editors, as rustc's `--error-format=short`, ruff's `concise` and
 * eslint's `compact` write them:
 *
 *   path:line:column: severity[CODE]: message
 *
 * The path is the file's as the human format shows it; the line and column are 1-based
 * (columns in Unicode scalar values). A diagnostic without a place (none has one today)
 * would be written without `path:line:column: `. The message is the diagnostic's first
 * line only: a line break in it, invalid UTF-8 and other control characters are written
 * as U+FFFD, so that one diagnostic is always one line. */
#include <string.h>

#include "render_machine.h"

static void write_one_line(FILE *out, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    for (size_t i = 0; i < len;) {
        int32_t cp;
        uint32_t n = utf8_decode(p + i, len - i, &cp);
        if (cp == '\t')
            fputc(' ', out);
        else if (utf8_is_unprintable(cp))
            fputs("\xEF\xBF\xBD", out);
        else
            fwrite(p + i, 1, n, out);
        i += n;
    }
}

void render_concise(FILE *out, const DiagSink *sink, const SourceMap *sources,
                    const RenderOptions *options)
{
    (void)options;
    ColumnCache cache;
    column_cache_init(&cache);
    for (uint32_t i = 0; i < sink->count; i++) {
        const Diagnostic *d = sink->items[i];
        SpanPosition pos = render_span_position(&cache, sources, d->span);
        if (pos.located) {
            write_one_line(out, pos.file->path);
            fprintf(out, ":%u:%u: ", pos.line, pos.column);
        }
        fprintf(out, "%s[%s]: ", d->severity == SEV_ERROR ? "error" : "warning",
                diag_info(d->code)->code);
        write_one_line(out, d->message ? d->message : "");
        fputc('\n', out);
    }
}
