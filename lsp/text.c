/* LSP positions <-> byte offsets. */
#include "text.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"
#include "source.h"
#include "utf8.h"

static void add_line_start(LineIndex *index, uint32_t *cap, uint32_t start)
{
    if (index->count == *cap) {
        *cap *= 2;
        index->starts = xrealloc(index->starts, *cap * sizeof *index->starts);
    }
    index->starts[index->count++] = start;
}

void lsp_line_index_build(LineIndex *index, const char *text, uint32_t len)
{
    uint32_t cap = 64;
    index->text = text;
    index->len = len;
    index->starts = xmalloc(cap * sizeof *index->starts);
    index->count = 0;
    add_line_start(index, &cap, 0);
    if (!memchr(text, '\r', len)) {          /* the usual case: memchr finds each "\n" */
        for (const char *p = text; (p = memchr(p, '\n', len - (uint32_t)(p - text)));)
            add_line_start(index, &cap, (uint32_t)(++p - text));
    } else {
        for (uint32_t i = 0; i < len; i++) {
            uint32_t eol = source_eol_len(text + i, text + len);
            if (!eol)
                continue;
            i += eol - 1;
            add_line_start(index, &cap, i + 1);
        }
    }
    column_cache_init(&index->columns);
}

void lsp_line_index_free(LineIndex *index)
{
    free(index->starts);
    index->starts = NULL;
    index->count = 0;
}

/* The line that holds `offset`: the last line starting at or before it. */
static uint32_t line_of(const LineIndex *index, uint32_t offset)
{
    uint32_t lo = 0, hi = index->count;   /* starts[lo] <= offset < starts[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (index->starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Bytes of line `line` without its line end. */
static uint32_t line_length(const LineIndex *index, uint32_t line)
{
    uint32_t start = index->starts[line];
    uint32_t end = line + 1 < index->count ? index->starts[line + 1] : index->len;
    if (end > start && index->text[end - 1] == '\n')
        end--;
    if (end > start && index->text[end - 1] == '\r')
        end--;
    return end - start;
}

LspPosition lsp_line_index_position(LineIndex *index, uint32_t offset, PositionEncoding encoding)
{
    if (offset > index->len)
        offset = index->len;
    uint32_t line = line_of(index, offset);
    uint32_t in_line = offset - index->starts[line];
    uint32_t length = line_length(index, line);
    if (in_line > length)
        in_line = length;
    LspPosition pos = { line, in_line };
    if (encoding == ENCODING_UTF16) {
        ColumnCursor at = column_cache_at(&index->columns, 0, line,
                                          index->text + index->starts[line], in_line);
        pos.character = at.utf16;
    }
    return pos;
}

void lsp_line_cursor_init(LineCursor *cursor, const LineIndex *index,
                          PositionEncoding encoding)
{
    *cursor = (LineCursor){ index, encoding, 0, 0, 0 };
}

/* UTF-16 code units of text[from, to): an invalid byte counts one (as columns.h counts
 * it), a character above U+FFFF two. */
static uint32_t utf16_units(const unsigned char *text, uint32_t from, uint32_t to)
{
    uint32_t units = 0;
    while (from < to) {
        if (text[from] < 0x80) {
            units++;
            from++;
            continue;
        }
        int32_t cp;
        uint32_t n = utf8_decode(text + from, to - from, &cp);
        units += cp >= 0x10000 ? 2 : 1;
        from += n;
    }
    return units;
}

LspPosition lsp_line_cursor_position(LineCursor *cursor, uint32_t offset)
{
    const LineIndex *index = cursor->index;
    if (offset > index->len)
        offset = index->len;
    if (offset < cursor->offset)
        offset = cursor->offset;
    while (cursor->line + 1 < index->count && index->starts[cursor->line + 1] <= offset) {
        cursor->line++;
        cursor->offset = index->starts[cursor->line];
        cursor->character = 0;
    }
    uint32_t line_end = index->starts[cursor->line] + line_length(index, cursor->line);
    if (offset > line_end)
        offset = line_end;
    if (offset > cursor->offset) {
        cursor->character += cursor->encoding == ENCODING_UTF8
            ? offset - cursor->offset
            : utf16_units((const unsigned char *)index->text, cursor->offset, offset);
        cursor->offset = offset;
    }
    return (LspPosition){ cursor->line, cursor->character };
}

uint32_t lsp_line_index_offset(const LineIndex *index, LspPosition position,
                               PositionEncoding encoding)
{
    if (position.line >= index->count)
        return index->len;
    uint32_t start = index->starts[position.line];
    uint32_t length = line_length(index, position.line);
    const unsigned char *line = (const unsigned char *)index->text + start;
    uint32_t byte = 0, units = 0;
    while (byte < length) {
        int32_t cp;
        uint32_t n = utf8_decode(line + byte, length - byte, &cp);
        uint32_t width = encoding == ENCODING_UTF8 ? n : cp >= 0x10000 ? 2 : 1;
        if (units + width > position.character)
            break;
        units += width;
        byte += n;
    }
    return start + byte;
}
