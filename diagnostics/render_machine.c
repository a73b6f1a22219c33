/* Shared by the formats for CI systems: span positions, whole messages, relative paths,
 * fingerprints (render_machine.h). JSON string text is json_text.c's. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "memory.h"
#include "render_machine.h"

SpanPosition render_span_position(ColumnCache *cache, const SourceMap *sources, Span span)
{
    SpanPosition pos;
    memset(&pos, 0, sizeof pos);
    if (!diag_locate(sources, span, &pos.where))
        return pos;
    pos.located = true;
    pos.file = source_file(sources, pos.where.file);
    Position start = diag_position_at(cache, sources, pos.where.file, pos.where.start);
    pos.line = start.line + 1;
    pos.column = start.at.scalars + 1;
    pos.utf16_column = start.at.utf16 + 1;
    Position end = diag_position_at(cache, sources, pos.where.file, pos.where.end);
    pos.end_line = end.line + 1;
    pos.end_column = end.at.scalars + 1;
    pos.end_utf16_column = end.at.utf16 + 1;
    return pos;
}

/* --- whole messages --- */

static void append_texts(TextBuffer *out, const char *prefix, const DiagText *text)
{
    for (const DiagText *t = text; t; t = t->next)
        text_printf(out, "\n%s: %s", prefix, t->text ? t->text : "");
}

void render_full_message(TextBuffer *out, ColumnCache *cache, const SourceMap *sources,
                         const Diagnostic *d, const char *labels_root)
{
    text_append_str(out, d->message ? d->message : "");
    for (const DiagLabel *l = labels_root ? d->labels : NULL; l; l = l->next) {
        SpanPosition pos = render_span_position(cache, sources, l->span);
        if (!pos.located)
            continue;
        char *relative = render_relative_path(labels_root, pos.file);
        text_printf(out, "\n%s:%u:%u: %s", relative ? relative : pos.file->path, pos.line,
                    pos.column, l->message ? l->message : "");
        free(relative);
    }
    append_texts(out, "note", d->notes);
    append_texts(out, "help", d->helps);
    for (const DiagFix *f = d->fixes; f; f = f->next)
        text_printf(out, "\nhelp: %s", f->message ? f->message : "");
}

/* --- paths --- */

char *render_source_root(void)
{
    char *dir = getcwd(NULL, 0);
    if (!dir)
        dir = strcpy(xmalloc(2), "/");
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    return dir;
}

/* Appends the segments of `path` to the segments already in `out` (an absolute path
 * without a trailing slash), resolving "." and ".." lexically. */
static void append_segments(TextBuffer *out, const char *path)
{
    while (*path) {
        while (*path == '/')
            path++;
        size_t len = strcspn(path, "/");
        if (len == 0)
            break;
        if (len == 2 && path[0] == '.' && path[1] == '.') {
            char *slash = strrchr(out->data, '/');
            out->len = slash ? (size_t)(slash - out->data) : 0;
            out->data[out->len] = '\0';
        } else if (!(len == 1 && path[0] == '.')) {
            text_append(out, "/", 1);
            text_append(out, path, len);
        }
        path += len;
    }
}

char *render_relative_path(const char *root, const SourceFile *file)
{
    if (file->is_stdlib)
        return NULL;
    TextBuffer absolute = { 0 };
    text_append(&absolute, "", 0);
    if (file->path[0] != '/')
        append_segments(&absolute, root);
    append_segments(&absolute, file->path);
    TextBuffer base = { 0 };
    text_append(&base, "", 0);
    append_segments(&base, root);
    char *relative = NULL;
    if (absolute.len > base.len && strncmp(absolute.data, base.data, base.len) == 0
        && absolute.data[base.len] == '/') {
        const char *rest = absolute.data + base.len + 1;
        relative = strcpy(xmalloc(strlen(rest) + 1), rest);
    }
    text_free(&absolute);
    text_free(&base);
    return relative;
}

/* --- fingerprints --- */

uint64_t render_hash_text(const char *text)
{
    return hash_fnv1a(HASH_FNV1A_START, text, strlen(text));
}

/* Each part followed by a NUL, so that ("ab", "c") and ("a", "bc") differ. FNV-1a's 64
 * bits are enough to tell diagnostics apart; the occurrence number separates the rare
 * equal ones. */
static uint64_t hash_part(uint64_t hash, const char *text, size_t len)
{
    return hash_fnv1a(hash_fnv1a(hash, text, len), "", 1);
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

static uint64_t diagnostic_hash(ColumnCache *cache, const SourceMap *sources, const char *root,
                                const Diagnostic *d)
{
    uint64_t hash = HASH_FNV1A_START;
    const DiagInfo *info = diag_info(d->code);
    hash = hash_part(hash, info->code, strlen(info->code));
    hash = hash_part(hash, d->message, strlen(d->message));
    SpanPosition pos = render_span_position(cache, sources, d->span);
    if (!pos.located)
        return hash;
    char *relative = render_relative_path(root, pos.file);
    const char *path = relative ? relative : pos.file->path;
    hash = hash_part(hash, path, strlen(path));
    free(relative);
    uint32_t len;
    const char *line = source_line_text(sources, pos.where.file, pos.line - 1, &len);
    while (len > 0 && is_blank(line[0])) {
        line++;
        len--;
    }
    while (len > 0 && is_blank(line[len - 1]))
        len--;
    return hash_part(hash, line, len);
}

typedef struct HashedIndex {
    uint64_t hash;
    uint32_t index;
} HashedIndex;

static int compare_hashed(const void *pa, const void *pb)
{
    const HashedIndex *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

char **render_fingerprints(const DiagSink *sink, const SourceMap *sources, const char *root)
{
    uint32_t count = sink->count;
    char **fingerprints = xcalloc(count ? count : 1, sizeof *fingerprints);
    HashedIndex *sorted = xcalloc(count ? count : 1, sizeof *sorted);
    ColumnCache cache;
    column_cache_init(&cache);
    for (uint32_t i = 0; i < count; i++)
        sorted[i] = (HashedIndex){ diagnostic_hash(&cache, sources, root, sink->items[i]), i };
    qsort(sorted, count, sizeof *sorted, compare_hashed);
    uint32_t occurrence = 0;
    for (uint32_t i = 0; i < count; i++) {
        occurrence = i > 0 && sorted[i].hash == sorted[i - 1].hash ? occurrence + 1 : 0;
        char text[40];
        snprintf(text, sizeof text, "%016llx:%u", (unsigned long long)sorted[i].hash, occurrence);
        fingerprints[sorted[i].index] = strcpy(xmalloc(strlen(text) + 1), text);
    }
    free(sorted);
    return fingerprints;
}

void render_fingerprints_free(char **fingerprints, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        free(fingerprints[i]);
    free(fingerprints);
}

