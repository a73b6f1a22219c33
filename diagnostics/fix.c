/* Selecting and applying machine-applicable fixes (fix.h). */
#include "fix.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"

static const DiagFix *first_fix(const Diagnostic *d, bool unsafe)
{
    for (const DiagFix *f = d->fixes; f; f = f->next)
        if (f->applicability == FIX_MACHINE_APPLICABLE || unsafe)
            return f;
    return NULL;
}

static int compare_edits(const void *pa, const void *pb)
{
    const FixEdit *a = pa, *b = pb;
    if (a->file != b->file)
        return a->file < b->file ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return strcmp(a->replacement, b->replacement);
}

/* Whether `next` (after `kept` in sorted order, same file) may be applied with it. */
static bool compatible(const FixEdit *kept, const FixEdit *next)
{
    if (next->start < kept->end)
        return false;   /* they overlap */
    bool both_insert = kept->start == kept->end && next->start == next->end;
    return !(both_insert && next->start == kept->start);   /* which text goes first? */
}

static bool same_edit(const FixEdit *a, const FixEdit *b)
{
    return a->file == b->file && a->start == b->start && a->end == b->end
        && strcmp(a->replacement, b->replacement) == 0;
}

FixEdit *fix_select(const DiagSink *sink, const SourceMap *sources, uint32_t *count)
{
    return fix_select_any(sink, sources, false, count);
}

FixEdit *fix_select_any(const DiagSink *sink, const SourceMap *sources, bool unsafe,
                        uint32_t *count)
{
    FixEdit *edits = xmalloc((sink->count + 1) * sizeof *edits);
    uint32_t n = 0;
    for (uint32_t i = 0; i < sink->count; i++) {
        const DiagFix *fix = first_fix(sink->items[i], unsafe);
        if (!fix || sources->count == 0 || fix->span.end < fix->span.start)
            continue;
        uint32_t index = source_file_at(sources, fix->span.start);
        const SourceFile *file = source_file(sources, index);
        uint32_t start = fix->span.start - file->origin, end = fix->span.end - file->origin;
        if (file->is_stdlib || fix->span.start < file->origin || end > file->len)
            continue;   /* not in one file of the user's */
        bool changes = strlen(fix->replacement) != end - start
            || memcmp(file->text + start, fix->replacement, end - start) != 0;
        if (changes)
            edits[n++] = (FixEdit){ index, start, end, fix->replacement, sink->items[i]->code,
                                    fix->message };
    }
    qsort(edits, n, sizeof *edits, compare_edits);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        const FixEdit *last = kept ? &edits[kept - 1] : NULL;
        if (last && last->file == edits[i].file
            && (same_edit(last, &edits[i]) || !compatible(last, &edits[i])))
            continue;
        edits[kept++] = edits[i];
    }
    *count = kept;
    return edits;
}

char *fix_apply(const SourceMap *sources, uint32_t file, const FixEdit *edits,
                uint32_t count, uint32_t *len)
{
    const SourceFile *source = source_file(sources, file);
    size_t size = source->len;
    for (uint32_t i = 0; i < count; i++)
        if (edits[i].file == file)
            size += strlen(edits[i].replacement);
    char *text = xmalloc(size + 1);
    size_t out = 0;
    uint32_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        const FixEdit *e = &edits[i];
        if (e->file != file)
            continue;
        memcpy(text + out, source->text + at, e->start - at);
        out += e->start - at;
        size_t r = strlen(e->replacement);
        memcpy(text + out, e->replacement, r);
        out += r;
        at = e->end;
    }
    memcpy(text + out, source->text + at, source->len - at);
    out += source->len - at;
    text[out] = '\0';
    *len = (uint32_t)out;
    return text;
}
