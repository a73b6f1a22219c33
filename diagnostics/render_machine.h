/* What the formats for CI systems (render_github.c, render_gitlab.c, render_sarif.c)
 * share: where a span is (SpanPosition), the whole text of a diagnostic as one message,
 * paths relative to the source root, fingerprints that survive lines added above; and
 * JSON string text (json_text.h). Internal to the diagnostics layer. */
#ifndef ORBIT_RENDER_MACHINE_H
#define ORBIT_RENDER_MACHINE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "columns.h"
#include "diag.h"
#include "json_text.h"
#include "textbuf.h"

/* A span as lines and columns, all 1-based. Columns are given in two units: Unicode
 * scalar values (as in the human and JSON formats) and UTF-16 code units. The end is
 * exclusive: end_column is the column just past the last character. */
typedef struct SpanPosition {
    bool located;             /* false when there are no sources: everything below is 0 */
    const SourceFile *file;
    FileSpan where;
    uint32_t line, end_line;
    uint32_t column, end_column;
    uint32_t utf16_column, end_utf16_column;
} SpanPosition;

SpanPosition render_span_position(ColumnCache *cache, const SourceMap *sources, Span span);

/* The message of a diagnostic as one text: its message, then one line for each secondary
 * label when `labels_root` is not NULL ("path:line:column: label", the path relative
 * to that root when below it, as the reports' own paths are), each note ("note: …"), each help
 * ("help: …") and each fix ("help: …", its message), in that order, as the human format
 * shows them. */
void render_full_message(TextBuffer *out, ColumnCache *cache, const SourceMap *sources,
                         const Diagnostic *d, const char *labels_root);

/* The directory that paths in the output are relative to: the current directory.
 * Malloc'd, without a trailing slash (except "/"). */
char *render_source_root(void);

/* The path of a file relative to `root` ("dir/a.orbit"), with "." and ".." resolved
 * lexically; NULL when the file is not below the root (or is the standard library).
 * Malloc'd. */
char *render_relative_path(const char *root, const SourceFile *file);

/* One fingerprint per diagnostic of the sink, in its order: 16 hex digits of a hash of
 * the code, the file's relative path, the message and the text of the primary span's
 * first line (trimmed), then ":" and the number of earlier diagnostics with the same
 * hash. Line numbers are not part of it, so it survives lines added above. Free with
 * render_fingerprints_free. */
char **render_fingerprints(const DiagSink *sink, const SourceMap *sources, const char *root);
void render_fingerprints_free(char **fingerprints, uint32_t count);

/* The fingerprints' hash (FNV-1a, 64 bits) of a text, for what is not a diagnostic. */
uint64_t render_hash_text(const char *text);

#endif
