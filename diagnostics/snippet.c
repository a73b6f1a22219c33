/* One source line of a human diagnostic and the rows under it:
 *
 *      3 |     attempts: 3, attempts: 4
 *        |     --------     ^^^^^^^^ duplicate setting
 *        |     |
 *        |     first set here
 *
 * The line is shown with tabs expanded and unprintable characters as U+FFFD; marks are
 * placed by display cells. A long line is shown as a window around its first mark (the
 * primary one if it is on this line), cut with "..." on either side. */
#include <stdlib.h>
#include <string.h>

#include "render_human.h"

typedef struct Window {
    const char *text;
    uint32_t len;
    uint32_t from, to;        /* the bytes shown */
    uint32_t from_cells;      /* display cells before `from` */
    bool cut_left, cut_right;
} Window;

enum { STYLE_NONE, STYLE_PRIMARY, STYLE_SECONDARY };

static const char ELLIPSIS[] = "...";
enum { ELLIPSIS_CELLS = 3 };

static ColumnCursor cursor_at(SnippetContext *context, uint32_t file, uint32_t line,
                              const Window *w, uint32_t byte)
{
    return column_cache_at(context->cache, file, line, w->text, byte);
}

static uint32_t anchor_byte(const Mark *marks, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        if (marks[i].primary)
            return marks[i].start;
    }
    return count > 0 ? marks[0].start : 0;
}

static Window choose_window(SnippetContext *context, uint32_t file, uint32_t line,
                            const Mark *marks, uint32_t count)
{
    Window w;
    memset(&w, 0, sizeof w);
    w.text = source_line_text(context->sources, file, line, &w.len);
    w.to = w.len;
    if (w.len <= LONG_LINE_BYTES
        && cursor_at(context, file, line, &w, w.len).cells <= LONG_LINE_CELLS)
        return w;
    uint32_t anchor = anchor_byte(marks, count);
    if (anchor > w.len)
        anchor = w.len;
    uint32_t from = anchor - (anchor < CONTEXT_BYTES ? anchor : CONTEXT_BYTES);
    while (from < anchor && ((unsigned char)w.text[from] & 0xC0) == 0x80)
        from++;   /* start on a character, not in the middle of one */
    ColumnCursor c = cursor_at(context, file, line, &w, from);
    w.from = from;
    w.from_cells = c.cells;
    while (c.byte < w.len && c.cells - w.from_cells < WINDOW_CELLS
           && c.byte - from < WINDOW_BYTES) {
        int32_t cp;
        const unsigned char *at = (const unsigned char *)w.text + c.byte;
        uint32_t n = utf8_decode(at, w.len - c.byte, &cp);
        column_cursor_advance(&c, c.byte + n);
    }
    w.to = c.byte;
    w.cut_left = w.from > 0;
    w.cut_right = w.to < w.len;
    return w;
}

/* The end of what is written of the line: trailing blanks are not. */
static uint32_t visible_end(const Window *w)
{
    uint32_t end = w->to;
    if (!w->cut_right) {
        while (end > w->from && (w->text[end - 1] == ' ' || w->text[end - 1] == '\t'))
            end--;
    }
    return end;
}

/* The cell, counted from the start of what is shown, where a byte of the line is drawn;
 * bytes outside the window are drawn at its edges. */
static uint32_t cell_of(SnippetContext *context, uint32_t file, uint32_t line,
                        const Window *w, uint32_t byte)
{
    if (byte < w->from)
        byte = w->from;
    if (byte > w->to)
        byte = w->to;
    uint32_t cells = cursor_at(context, file, line, w, byte).cells - w->from_cells;
    return cells + (w->cut_left ? ELLIPSIS_CELLS : 0);
}

static void write_line_number(const Painter *painter, uint32_t width, uint32_t number)
{
    render_human_paint(painter, COLOR_BLUE);
    fprintf(painter->out, " %*u |", (int)width, number);
    render_human_paint(painter, COLOR_RESET);
}

static void write_window_text(FILE *out, const Window *w)
{
    const unsigned char *s = (const unsigned char *)w->text;
    uint32_t cells = w->from_cells, end = visible_end(w);
    for (uint32_t i = w->from; i < end;) {
        int32_t cp;
        uint32_t n = utf8_decode(s + i, end - i, &cp);
        if (cp == '\t') {
            render_human_write_spaces(out, tab_cells(cells));
            cells += tab_cells(cells);
        } else {
            render_human_write_safe(out, w->text + i, n);
            cells += utf8_cells(cp);
        }
        i += n;
    }
}

static void write_source(const Painter *painter, uint32_t width, uint32_t number,
                         const Window *w)
{
    write_line_number(painter, width, number);
    if (w->from < visible_end(w) || w->cut_left || w->cut_right) {
        fputc(' ', painter->out);
        if (w->cut_left)
            fputs(ELLIPSIS, painter->out);
        write_window_text(painter->out, w);
        if (w->cut_right)
            fputs(ELLIPSIS, painter->out);
    }
    fputc('\n', painter->out);
}

/* --- the rows of marks --- */

typedef struct Placed {
    const Mark *mark;
    uint32_t start;   /* first cell */
    uint32_t end;     /* one past the last cell; > start */
} Placed;

typedef struct Row {
    char *cells;
    uint8_t *styles;
    uint32_t width;
} Row;

static uint8_t style_of(const Mark *m)
{
    return m->primary ? STYLE_PRIMARY : STYLE_SECONDARY;
}

static void style_color(const Painter *painter, uint8_t style)
{
    if (style == STYLE_PRIMARY)
        render_human_paint(painter, render_human_severity_color(painter->severity));
    else if (style == STYLE_SECONDARY)
        render_human_paint(painter, COLOR_BLUE);
}

static void row_clear(Row *row)
{
    memset(row->cells, ' ', row->width);
    memset(row->styles, STYLE_NONE, row->width);
}

static void row_put(Row *row, uint32_t cell, char c, uint8_t style)
{
    if (cell < row->width) {
        row->cells[cell] = c;
        row->styles[cell] = style;
    }
}

/* Writes the gutter, then the row's cells up to `limit` (trailing blanks dropped when
 * nothing follows), then the label when there is one. */
static void write_row(const Painter *painter, uint32_t gutter, const Row *row,
                      uint32_t limit, const Mark *label_of)
{
    if (limit > row->width)
        limit = row->width;
    uint32_t used = limit;
    if (!label_of) {
        while (used > 0 && row->cells[used - 1] == ' ')
            used--;
    }
    render_human_blank_gutter(painter, gutter);
    if (used > 0 || label_of)
        fputc(' ', painter->out);
    uint8_t current = STYLE_NONE;
    for (uint32_t i = 0; i < used; i++) {
        uint8_t style = row->cells[i] == ' ' ? current : row->styles[i];
        if (style != current) {
            if (current != STYLE_NONE)
                render_human_paint(painter, COLOR_RESET);
            style_color(painter, style);
            current = style;
        }
        fputc(row->cells[i], painter->out);
    }
    if (label_of && current != style_of(label_of)) {
        if (current != STYLE_NONE)
            render_human_paint(painter, COLOR_RESET);
        current = style_of(label_of);
        style_color(painter, current);
    }
    if (label_of)
        render_human_write_safe(painter->out, label_of->label, strlen(label_of->label));
    if (current != STYLE_NONE)
        render_human_paint(painter, COLOR_RESET);
    fputc('\n', painter->out);
}

/* The labelled mark whose label goes on the underline row itself: the one that ends
 * last, if no other mark ends after it. Returns its index or -1. */
static int inline_label(const Placed *placed, uint32_t count)
{
    int best = -1;
    uint32_t last_end = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (placed[i].end > last_end)
            last_end = placed[i].end;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (placed[i].mark->label && placed[i].end == last_end)
            best = (int)i;
    }
    return best;
}

static void write_underlines(const Painter *painter, uint32_t gutter, Row *row,
                             const Placed *placed, uint32_t count, int inline_index)
{
    row_clear(row);
    for (int pass = 0; pass < 2; pass++) {   /* labels first, the primary span on top */
        for (uint32_t i = 0; i < count; i++) {
            const Mark *m = placed[i].mark;
            if (m->primary != (pass == 1))
                continue;
            for (uint32_t c = placed[i].start; c < placed[i].end; c++)
                row_put(row, c, m->primary ? '^' : '-', style_of(m));
        }
    }
    if (inline_index < 0) {
        write_row(painter, gutter, row, row->width, NULL);
        return;
    }
    uint32_t end = placed[inline_index].end;
    row_put(row, end, ' ', STYLE_NONE);
    write_row(painter, gutter, row, end + 1, placed[inline_index].mark);
}

/* Labels that do not fit on the underline row hang below it, rightmost first:
 *      |     |
 *      |     first set here */
static void write_hanging_labels(const Painter *painter, uint32_t gutter, Row *row,
                                 const Placed *placed, uint32_t count, int inline_index)
{
    uint32_t hanging = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (placed[i].mark->label && (int)i != inline_index)
            hanging++;
    }
    if (hanging == 0)
        return;
    row_clear(row);
    for (uint32_t i = 0; i < count; i++) {
        if (placed[i].mark->label && (int)i != inline_index)
            row_put(row, placed[i].start, '|', style_of(placed[i].mark));
    }
    write_row(painter, gutter, row, row->width, NULL);
    for (uint32_t k = count; k-- > 0;) {
        if (!placed[k].mark->label || (int)k == inline_index)
            continue;
        row_clear(row);
        for (uint32_t i = 0; i < k; i++) {
            if (placed[i].mark->label && (int)i != inline_index)
                row_put(row, placed[i].start, '|', style_of(placed[i].mark));
        }
        write_row(painter, gutter, row, placed[k].start, placed[k].mark);
    }
}

static void write_marks(const Painter *painter, SnippetContext *context, uint32_t file,
                        uint32_t line, const Window *w, const Mark *marks, uint32_t count)
{
    Placed *placed = xmalloc(count * sizeof *placed);
    uint32_t width = 1;
    for (uint32_t i = 0; i < count; i++) {
        placed[i].mark = &marks[i];
        placed[i].start = cell_of(context, file, line, w, marks[i].start);
        placed[i].end = cell_of(context, file, line, w, marks[i].end);
        if (placed[i].end <= placed[i].start)
            placed[i].end = placed[i].start + 1;
        if (placed[i].end + 1 > width)
            width = placed[i].end + 1;
    }
    Row row = { xmalloc(width), xmalloc(width), width };
    int inline_index = inline_label(placed, count);
    write_underlines(painter, context->gutter, &row, placed, count, inline_index);
    write_hanging_labels(painter, context->gutter, &row, placed, count, inline_index);
    free(row.cells);
    free(row.styles);
    free(placed);
}

void render_human_write_snippet_line(const Painter *painter, SnippetContext *context,
                              uint32_t file, uint32_t line, const Mark *marks,
                              uint32_t count)
{
    Window w = choose_window(context, file, line, marks, count);
    write_source(painter, context->gutter, line + 1, &w);
    if (count > 0)
        write_marks(painter, context, file, line, &w, marks, count);
}
