/* Columns of byte offsets in a line: UTF-8 decoding, UTF-16 units, terminal cells with
 * tabs expanded and wide or zero-width characters measured by utf8proc (utf8_cells). */
#include "columns.h"

#include "diag.h"

void column_cursor_init(ColumnCursor *cursor, const char *line)
{
    cursor->line = line;
    cursor->byte = 0;
    cursor->scalars = 0;
    cursor->utf16 = 0;
    cursor->cells = 0;
}

void column_cursor_advance(ColumnCursor *cursor, uint32_t target)
{
    const unsigned char *s = (const unsigned char *)cursor->line;
    uint32_t i = cursor->byte;
    uint32_t scalars = cursor->scalars, utf16 = cursor->utf16, cells = cursor->cells;
    while (i < target) {
        int32_t cp;
        uint32_t n = utf8_decode(s + i, target - i, &cp);
        i += n;
        scalars++;
        utf16 += cp >= 0x10000 ? 2 : 1;
        cells += cp == '\t' ? tab_cells(cells) : utf8_cells(cp);
    }
    cursor->byte = i;
    cursor->scalars = scalars;
    cursor->utf16 = utf16;
    cursor->cells = cells;
}

void column_cache_init(ColumnCache *cache)
{
    cache->valid = false;
    cache->next_victim = 0;
}

ColumnCursor column_cache_at(ColumnCache *cache, uint32_t file, uint32_t line,
                             const char *text, uint32_t byte_in_line)
{
    if (!cache->valid || cache->file != file || cache->line != line) {
        for (int i = 0; i < COLUMN_CACHE_SLOTS; i++)
            column_cursor_init(&cache->slots[i], text);
        cache->file = file;
        cache->line = line;
        cache->valid = true;
        cache->next_victim = 0;
    }
    int best = -1;
    for (int i = 0; i < COLUMN_CACHE_SLOTS; i++) {
        uint32_t at = cache->slots[i].byte;
        if (at <= byte_in_line && (best < 0 || at > cache->slots[best].byte))
            best = i;
    }
    ColumnCursor cursor;
    if (best < 0) {
        column_cursor_init(&cursor, text);
        best = (int)cache->next_victim;
        cache->next_victim = (cache->next_victim + 1) % COLUMN_CACHE_SLOTS;
    } else {
        cursor = cache->slots[best];
    }
    column_cursor_advance(&cursor, byte_in_line);
    cache->slots[best] = cursor;
    return cursor;
}

/* The helpers declared in diag.h. */

uint32_t column_scalars(const char *line, uint32_t byte_in_line)
{
    ColumnCursor cursor;
    column_cursor_init(&cursor, line);
    column_cursor_advance(&cursor, byte_in_line);
    return cursor.scalars + 1;
}

uint32_t column_utf16(const char *line, uint32_t byte_in_line)
{
    ColumnCursor cursor;
    column_cursor_init(&cursor, line);
    column_cursor_advance(&cursor, byte_in_line);
    return cursor.utf16;
}

uint32_t column_cells(const char *line, uint32_t byte_in_line)
{
    ColumnCursor cursor;
    column_cursor_init(&cursor, line);
    column_cursor_advance(&cursor, byte_in_line);
    return cursor.cells;
}

/* Positions of byte offsets in files. */

bool diag_locate(const SourceMap *sources, Span span, FileSpan *out)
{
    if (!sources || sources->count == 0)
        return false;
    uint32_t file = source_file_at(sources, span.start);
    const SourceFile *f = source_file(sources, file);
    uint32_t start = span.start > f->origin ? span.start - f->origin : 0;
    uint32_t end = span.end > f->origin ? span.end - f->origin : 0;
    if (start > f->len)
        start = f->len;
    if (end > f->len)
        end = f->len;
    if (end < start)
        end = start;
    out->file = file;
    out->start = start;
    out->end = end;
    return true;
}

Position diag_position_at(ColumnCache *cache, const SourceMap *sources, uint32_t file,
                          uint32_t offset)
{
    Position pos;
    uint32_t len = source_file(sources, file)->len;
    if (offset > len)
        offset = len;
    pos.line = source_line_of(sources, file, offset);
    pos.text = source_line_text(sources, file, pos.line, &pos.len);
    uint32_t in_line = offset - source_line_start(sources, file, pos.line);
    if (in_line > pos.len)
        in_line = pos.len;
    pos.at = column_cache_at(cache, file, pos.line, pos.text, in_line);
    return pos;
}
