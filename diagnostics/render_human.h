/* Internal to the human renderer: colors, safe text output, and the marks (primary span
 * and labels) drawn under a source line by snippet.c. */
#ifndef ORBIT_RENDER_HUMAN_H
#define ORBIT_RENDER_HUMAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "columns.h"
#include "diag.h"

#define COLOR_RESET "\x1b[0m"
#define COLOR_BOLD "\x1b[1m"
#define COLOR_RED "\x1b[1;31m"
#define COLOR_YELLOW "\x1b[1;33m"
#define COLOR_BLUE "\x1b[1;34m"

typedef struct Painter {
    FILE *out;
    bool color;
    Severity severity;   /* of the diagnostic being written: colors its primary marks */
} Painter;

/* Writes the escape sequence when color is on. */
void render_human_paint(const Painter *painter, const char *escape);
const char *render_human_severity_color(Severity severity);

/* Writes text with invalid UTF-8 and control characters (newline and tab included)
 * replaced by U+FFFD. */
void render_human_write_safe(FILE *out, const char *text, size_t len);
void render_human_write_spaces(FILE *out, uint32_t count);
/* The gutter of a line without a number: `width + 1` spaces and " |". */
void render_human_blank_gutter(const Painter *painter, uint32_t width);

/* A span to underline in one line: `^` for the primary span, `-` for a label. */
typedef struct Mark {
    uint32_t file;
    uint32_t line;       /* 0-based */
    uint32_t start;      /* bytes in the line's text */
    uint32_t end;        /* >= start; at most the end of the line's text */
    uint32_t column;     /* 1-based column of start, in characters */
    const char *label;   /* NULL when none */
    bool primary;
    uint32_t rank;       /* 0 for the primary span's file; orders the files */
    uint32_t order;      /* order of adding, to keep the sort stable */
} Mark;

typedef struct SnippetContext {
    const SourceMap *sources;
    ColumnCache *cache;
    uint32_t gutter;     /* digits of the largest line number shown */
} SnippetContext;

enum {
    /* A line is shown whole when it has at most this many bytes and cells; a longer one
     * is shown as a window of at most WINDOW_CELLS cells (and WINDOW_BYTES bytes),
     * starting up to CONTEXT_BYTES before its first mark, cut with "...". */
    LONG_LINE_BYTES = 1024,
    LONG_LINE_CELLS = 200,
    WINDOW_CELLS = 160,
    WINDOW_BYTES = 1024,
    CONTEXT_BYTES = 40,
};

/* Writes line `line` (0-based) of `file` with the gutter, then rows that underline and
 * label `marks` (all on that line, sorted by start; count may be 0). */
void render_human_write_snippet_line(const Painter *painter, SnippetContext *context,
                              uint32_t file, uint32_t line, const Mark *marks,
                              uint32_t count);

#endif
