/* Positions as LSP counts them: 0-based lines, and a character offset in the line in
 * the negotiated encoding (UTF-16 code units by default, or UTF-8 bytes). Lines end at
 * "\n", "\r\n" or "\r", as the protocol says and as the compiler's own line table does
 * (base/source.h); this index is over an editor's text, which need not be in a SourceMap.
 * Columns are counted by the diagnostics
 * layer's column cursor (columns.h): an invalid UTF-8 byte counts as one unit. */
#ifndef ORBIT_LSP_TEXT_H
#define ORBIT_LSP_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "columns.h"

typedef enum PositionEncoding { ENCODING_UTF16, ENCODING_UTF8 } PositionEncoding;

typedef struct LspPosition {
    uint32_t line;
    uint32_t character;
} LspPosition;

/* The start of every line of a text. */
typedef struct LineIndex {
    const char *text;
    uint32_t len;
    uint32_t *starts;
    uint32_t count;          /* at least 1 */
    ColumnCache columns;     /* resumes column counting within a line */
} LineIndex;

void lsp_line_index_build(LineIndex *index, const char *text, uint32_t len);
void lsp_line_index_free(LineIndex *index);

/* The position of a byte offset (clamped to the text). An offset inside a line end is
 * the end of that line. */
LspPosition lsp_line_index_position(LineIndex *index, uint32_t offset, PositionEncoding encoding);

/* Positions of offsets that never decrease, in one pass over the text (semantic tokens:
 * a position per token of a whole file): no search for the line, no cursor cache.
 * Columns are counted as lsp_line_index_position counts them. */
typedef struct LineCursor {
    const LineIndex *index;
    PositionEncoding encoding;
    uint32_t line;           /* the line of the last offset asked */
    uint32_t offset;         /* the last offset asked, clamped to its line's end */
    uint32_t character;      /* and its column */
} LineCursor;

void lsp_line_cursor_init(LineCursor *cursor, const LineIndex *index,
                          PositionEncoding encoding);
/* The position of `offset`, at or after the last one asked. */
LspPosition lsp_line_cursor_position(LineCursor *cursor, uint32_t offset);

/* The byte offset of a position. A line past the end is the end of the text; a
 * character past the end of its line is the end of the line (as the protocol asks); a
 * character inside a UTF-16 surrogate pair or a UTF-8 sequence is the start of it. */
uint32_t lsp_line_index_offset(const LineIndex *index, LspPosition position,
                               PositionEncoding encoding);

#endif
