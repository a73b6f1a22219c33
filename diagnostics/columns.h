/* Columns of a byte offset in a line: Unicode scalar values, UTF-16 code units and
 * terminal cells, computed in one left-to-right pass by a cursor that can be resumed.
 * The rules for showing a character on a terminal (utf8_is_unprintable, utf8_cells) and
 * the UTF-8 decoder are base/utf8.h's, shared with orbit-run's tables. Internal to the
 * diagnostics layer. */
#ifndef ORBIT_COLUMNS_H
#define ORBIT_COLUMNS_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"
#include "utf8.h"

enum {
    TAB_WIDTH = 4,                 /* tabs expand to the next multiple of 4 cells */
    REPLACEMENT_CHARACTER = 0xFFFD,
};

/* Cells of a tab that starts at display column `cells`. */
static inline uint32_t tab_cells(uint32_t cells)
{
    return TAB_WIDTH - cells % TAB_WIDTH;
}

typedef struct ColumnCursor {
    const char *line;   /* the line's first byte */
    uint32_t byte;      /* bytes of the line consumed so far */
    uint32_t scalars;   /* characters before `byte` (each invalid byte counts 1) */
    uint32_t utf16;     /* UTF-16 code units before `byte` (invalid byte: 1) */
    uint32_t cells;     /* terminal cells before `byte`, tabs expanded */
} ColumnCursor;

void column_cursor_init(ColumnCursor *cursor, const char *line);

/* Moves the cursor forward to `target` (>= cursor->byte), never reading at or past it.
 * A character cut by `target` counts as invalid bytes. */
void column_cursor_advance(ColumnCursor *cursor, uint32_t target);

/* A few cursors into one line, so that many positions in a long line (say 100,000
 * diagnostics in a minified 10 MB line) cost one pass over it, not one pass each. */
enum { COLUMN_CACHE_SLOTS = 4 };

typedef struct ColumnCache {
    uint32_t file;
    uint32_t line;
    bool valid;
    uint32_t next_victim;
    ColumnCursor slots[COLUMN_CACHE_SLOTS];
} ColumnCache;

void column_cache_init(ColumnCache *cache);

/* The cursor at `byte_in_line` of line `line` (0-based) of `file`, whose text starts at
 * `text`. Resumes from the nearest cached cursor at or before it. */
ColumnCursor column_cache_at(ColumnCache *cache, uint32_t file, uint32_t line,
                             const char *text, uint32_t byte_in_line);

/* Where a byte offset of a file is: its line and columns. Offsets past the end of the
 * file are taken as its end; an offset in a line end ("\r\n") as the end of the line. */
typedef struct Position {
    uint32_t line;          /* 0-based */
    const char *text;       /* the line's text, without its line end */
    uint32_t len;           /* bytes of `text` */
    ColumnCursor at;        /* columns at the offset; at.byte is the byte in the line */
} Position;

Position diag_position_at(ColumnCache *cache, const SourceMap *sources, uint32_t file,
                          uint32_t offset);

/* A span as its file and byte offsets in that file (what the renderers print). */
typedef struct FileSpan {
    uint32_t file;
    uint32_t start;
    uint32_t end;
} FileSpan;

/* The file of a span and its offsets there, clamped to the file; false when there are no
 * sources to point into. */
bool diag_locate(const SourceMap *sources, Span span, FileSpan *out);

#endif
