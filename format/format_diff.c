/* `orbitc fmt --diff`: a unified diff between a file and its formatted text, computed as
 * Go's internal/diff does ("anchored diff"): the lines that occur exactly once in each
 * text are matched in their longest common order (Szymanski's algorithm, a longest
 * increasing subsequence), the matches are extended over equal neighbouring lines, and
 * what lies between is a change. The result is not always the shortest diff, but it is
 * found in O(n log n) time and O(n) memory whatever the input, where a shortest diff can
 * cost O(n²). */
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "format.h"
#include "intern.h"
#include "memory.h"
#include "source.h"

enum { CONTEXT = 3 };

/* A line with its line end ("\n", "\r\n" or a lone "\r", base/source.h; the last line
 * may have none): the bytes are kept exactly. */
typedef struct Line {
    const char *text;
    uint32_t len;
} Line;

typedef struct Lines {
    Line *items;
    uint32_t count;
} Lines;

typedef struct Pair {
    uint32_t x, y;
} Pair;

/* The end of the line that starts at p, its line end included. */
static const char *line_after(const char *p, const char *end)
{
    const char *eol = source_find_eol(p, end);
    return eol < end ? eol + source_eol_len(eol, end) : end;
}

static Lines split_lines(const char *text, size_t len)
{
    uint32_t count = 0;
    for (const char *p = text; p < text + len; p = line_after(p, text + len))
        count++;
    Lines lines = { xmalloc((count ? count : 1) * sizeof(Line)), 0 };
    for (const char *p = text, *next; p < text + len; p = next) {
        next = line_after(p, text + len);
        lines.items[lines.count++] = (Line){ p, (uint32_t)(next - p) };
    }
    return lines;
}

static bool same_line(Line a, Line b)
{
    return a.len == b.len && memcmp(a.text, b.text, a.len) == 0;
}

/* The distinct-line number of each line of x and y, and for each distinct line whether
 * it occurs once in x and once in y. */
typedef struct LineIds {
    uint32_t *x, *y;
    uint8_t *x_count, *y_count;   /* 0, 1 or 2 (two or more) */
    uint32_t distinct;
} LineIds;

/* Lines are interned (equal lines become one name), then numbered. */
static uint32_t line_id(Interner *lines, NameMap *ids, Line line, uint32_t *distinct)
{
    const Name *name = intern(lines, line.text, line.len);
    uint32_t id;
    if (names_get(ids, name, &id))
        return id;
    names_put(ids, lines->arena, name, *distinct);
    return (*distinct)++;
}

static LineIds number_lines(const Lines *x, const Lines *y)
{
    Arena arena;
    arena_init(&arena);
    Interner lines;
    interner_init(&lines, &arena);
    NameMap map = { 0 };
    LineIds ids = { xmalloc((x->count + 1) * sizeof(uint32_t)),
                    xmalloc((y->count + 1) * sizeof(uint32_t)), NULL, NULL, 0 };
    for (uint32_t i = 0; i < x->count; i++)
        ids.x[i] = line_id(&lines, &map, x->items[i], &ids.distinct);
    for (uint32_t i = 0; i < y->count; i++)
        ids.y[i] = line_id(&lines, &map, y->items[i], &ids.distinct);
    interner_free(&lines);
    arena_free(&arena);
    ids.x_count = xcalloc(ids.distinct + 1, 1);
    ids.y_count = xcalloc(ids.distinct + 1, 1);
    for (uint32_t i = 0; i < x->count; i++)
        if (ids.x_count[ids.x[i]] < 2)
            ids.x_count[ids.x[i]]++;
    for (uint32_t i = 0; i < y->count; i++)
        if (ids.y_count[ids.y[i]] < 2)
            ids.y_count[ids.y[i]]++;
    return ids;
}

static void free_ids(LineIds *ids)
{
    free(ids->x);
    free(ids->y);
    free(ids->x_count);
    free(ids->y_count);
}

/* The anchors: the longest common subsequence of the lines unique in both texts, with
 * the sentinels (0, 0) first and (x->count, y->count) last. *count gets its length. */
static Pair *anchors(const Lines *x, const Lines *y, uint32_t *count)
{
    LineIds ids = number_lines(x, y);
    uint32_t *y_at = xmalloc((ids.distinct + 1) * sizeof(uint32_t));   /* id -> its y index */
    uint32_t *yi = xmalloc((y->count + 1) * sizeof(uint32_t));
    uint32_t *xi = xmalloc((x->count + 1) * sizeof(uint32_t));
    uint32_t *J = xmalloc((x->count + 1) * sizeof(uint32_t));         /* rank in yi */
    uint32_t ny = 0, n = 0;
    for (uint32_t i = 0; i < y->count; i++) {
        uint32_t id = ids.y[i];
        if (ids.x_count[id] == 1 && ids.y_count[id] == 1) {
            y_at[id] = ny;
            yi[ny++] = i;
        }
    }
    for (uint32_t i = 0; i < x->count; i++) {
        uint32_t id = ids.x[i];
        if (ids.x_count[id] == 1 && ids.y_count[id] == 1) {
            xi[n] = i;
            J[n++] = y_at[id];
        }
    }
    /* Longest increasing subsequence of J: T[k] is the smallest end of one of length
     * k + 1, L[i] the length of the longest ending at J[i]. */
    uint32_t *T = xmalloc((n + 1) * sizeof(uint32_t));
    uint32_t *L = xmalloc((n + 1) * sizeof(uint32_t));
    uint32_t longest = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = 0, hi = longest;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (T[mid] < J[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        T[lo] = J[i];
        if (lo == longest)
            longest++;
        L[i] = lo + 1;
    }
    Pair *seq = xmalloc((longest + 2) * sizeof(Pair));
    seq[0] = (Pair){ 0, 0 };
    seq[longest + 1] = (Pair){ x->count, y->count };
    uint32_t k = longest, last = UINT32_MAX;
    for (uint32_t i = n; i-- > 0 && k > 0;) {
        if (L[i] == k && J[i] < last) {
            seq[k--] = (Pair){ xi[i], yi[J[i]] };
            last = J[i];
        }
    }
    *count = longest + 2;
    free(T);
    free(L);
    free(J);
    free(xi);
    free(yi);
    free(y_at);
    free_ids(&ids);
    return seq;
}

/* The lines of the hunk being built. */
typedef struct Hunk {
    char *kinds;              /* ' ', '-' or '+' */
    const Line **lines;
    uint32_t count, cap;
    Pair start;               /* 0-based first line of each side */
    Pair size;                /* lines of each side */
} Hunk;

static void hunk_add(Hunk *h, char kind, const Line *line)
{
    if (h->count == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->kinds = xrealloc(h->kinds, h->cap);
        h->lines = xrealloc(h->lines, h->cap * sizeof *h->lines);
    }
    h->kinds[h->count] = kind;
    h->lines[h->count++] = line;
    h->size.x += kind != '+';
    h->size.y += kind != '-';
}

static void hunk_add_range(Hunk *h, char kind, const Lines *lines, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        hunk_add(h, kind, &lines->items[i]);
}

/* git's colours: bold headers, cyan hunk lines, red and green lines removed and added. */
static const char *const BOLD = "\x1b[1m", *const CYAN = "\x1b[36m", *const RED = "\x1b[31m",
                        *const GREEN = "\x1b[32m", *const RESET = "\x1b[m";

static void hunk_write(FILE *out, Hunk *h, bool color)
{
    fprintf(out, "%s@@ -%u,%u +%u,%u @@%s\n", color ? CYAN : "", h->start.x + (h->size.x > 0),
            h->size.x, h->start.y + (h->size.y > 0), h->size.y, color ? RESET : "");
    for (uint32_t i = 0; i < h->count; i++) {
        const Line *line = h->lines[i];
        char kind = h->kinds[i];
        bool painted = color && kind != ' ';
        size_t len = line->len;
        bool newline = len > 0 && line->text[len - 1] == '\n';
        if (painted)
            fputs(kind == '-' ? RED : GREEN, out);
        fputc(kind, out);
        fwrite(line->text, 1, len - newline, out);
        if (painted)
            fputs(RESET, out);
        fputc('\n', out);
        if (!newline)
            fputs("\\ No newline at end of file\n", out);
    }
    h->count = 0;
    h->size = (Pair){ 0, 0 };
}

void format_write_diff(FILE *out, const char *name, const char *old, size_t old_len,
                       const char *new_text, size_t new_len, bool color)
{
    if (old_len == new_len && memcmp(old, new_text, old_len) == 0)
        return;
    Lines x = split_lines(old, old_len), y = split_lines(new_text, new_len);
    uint32_t count;
    Pair *seq = anchors(&x, &y, &count);
    fprintf(out, "%s--- %s\n+++ %s%s\n", color ? BOLD : "", name, name, color ? RESET : "");
    Hunk h = { 0 };
    Pair done = { 0, 0 };
    for (uint32_t i = 0; i < count; i++) {
        Pair m = seq[i];
        if (m.x < done.x)
            continue;   /* inside the extension of an earlier anchor */
        Pair start = m, end = m;
        while (start.x > done.x && start.y > done.y &&
               same_line(x.items[start.x - 1], y.items[start.y - 1])) {
            start.x--;
            start.y--;
        }
        while (end.x < x.count && end.y < y.count && same_line(x.items[end.x], y.items[end.y])) {
            end.x++;
            end.y++;
        }
        hunk_add_range(&h, '-', &x, done.x, start.x);
        hunk_add_range(&h, '+', &y, done.y, start.y);
        uint32_t equal = end.x - start.x;
        bool at_end = end.x >= x.count && end.y >= y.count;
        if (!at_end && (equal < CONTEXT || (h.count > 0 && equal < 2 * CONTEXT))) {
            hunk_add_range(&h, ' ', &x, start.x, end.x);   /* too few to split the hunk */
            done = end;
            continue;
        }
        if (h.count > 0) {
            uint32_t context = equal < CONTEXT ? equal : CONTEXT;
            hunk_add_range(&h, ' ', &x, start.x, start.x + context);
            done = (Pair){ start.x + context, start.y + context };
            hunk_write(out, &h, color);
        }
        if (at_end)
            break;
        h.start = (Pair){ end.x - CONTEXT, end.y - CONTEXT };
        hunk_add_range(&h, ' ', &x, h.start.x, end.x);
        done = end;
    }
    free(h.kinds);
    free(h.lines);
    free(seq);
    free(x.items);
    free(y.items);
}
