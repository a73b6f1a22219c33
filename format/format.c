/* The formatter (format.h; the layout is docs/style.md). It walks the syntax tree and
 * writes each token's source text; only the space between tokens is its own. Comments
 * come from the tree's comment list and are written, as gofmt does, before the first
 * token that follows them in the source, on their own line or after the previous token
 * as they were.
 *
 * Whitespace is owed lazily: a printer asks for a space or a line break, and it is
 * written just before the next token or comment, so that a comment that trailed a token
 * in the source can still go on that token's line.
 *
 * Whether a block or list fits on one line is found by printing it flat in "measuring"
 * mode: the same code, writing nothing, that gives up as soon as a line break would be
 * needed (a comment, a block that must be broken) or the column passes FORMAT_WIDTH.
 * Each measure stops after at most FORMAT_WIDTH columns of tokens, so formatting stays
 * linear in the size of the source. */
#define _GNU_SOURCE   /* memmem, memrchr */
#include "format.h"

#include <stdlib.h>
#include <string.h>

#include <utf8proc.h>

#include "memory.h"
#include "parse.h"
#include "utf8.h"

/* What kind of line break is owed, which decides whether a blank line of the source
 * between the two tokens is kept (at most one). */
typedef enum Gap {
    GAP_TIGHT,     /* inside a member, or before a closing bracket: never a blank line */
    GAP_OPEN,      /* after an opening bracket: no blank line, but one after a comment */
    GAP_MEMBERS,   /* between members, declarations and comments: kept if written */
} Gap;

/* A line comment written after the end of a member (or declaration, or list element) on
 * its line: where the space before it is. */
typedef struct Trailing {
    size_t line_start;
    size_t at;
    uint32_t indent;
} Trailing;

/* The line of a suppression comment that follows code (`retry { attempts: 3 //
 * orbit:allow(W0002)`): from its first token (`first`, separators aside) to the comment.
 * The comment covers the first member that starts on its line (compiler/suppress.c), so
 * the formatter keeps that line as it is: a line break before `first`, none after it up
 * to the comment (docs/style.md, "Suppressions"). */
typedef struct Pin {
    uint32_t first, comment;    /* source offsets */
} Pin;

typedef enum PinPlace { PIN_NONE, PIN_FIRST, PIN_INSIDE } PinPlace;

typedef struct Printer {
    const char *src;            /* the file's text */
    uint32_t src_len;
    uint32_t origin;            /* the position of src[0] */
    const Comment *comments;
    uint32_t comment_count;
    uint32_t next_comment;      /* the first comment not written yet */
    const char *eol;            /* "\n", or "\r\n" or "\r" for a file whose first line ends so */
    uint32_t eol_len;
    uint32_t next_comment_start; /* where comment next_comment starts (UINT32_MAX: none) */

    char *out;
    size_t len, cap;
    bool started;               /* something (a token or comment) has been written */

    uint32_t indent;            /* indentation of a line started now */
    uint32_t line_indent;       /* indentation of the current line */
    size_t line_start;          /* where the current line starts in the output */
    uint32_t column;            /* cells of the current line up to out[counted] (measuring:
                                   all of it; otherwise counted when needed) */
    size_t counted;
    uint32_t prev_end;          /* source offset after the last token or comment written */

    bool owe_line;              /* a line break is owed before the next token or comment */
    uint32_t owed_indent;       /* its indentation */
    Gap owed_gap;
    bool owe_space;

    bool measuring;             /* write nothing; only find whether it fits */
    bool in_flat;               /* writing what was measured to fit on one line: what is
                                   inside it fits too, without measuring again */
    bool over;                  /* measuring: it does not fit on one line */
    bool failed;                /* the tree holds a part that failed to parse */

    Trailing *trailing;         /* the line comments that end members, to align */
    uint32_t trailing_count, trailing_cap;

    Pin *pins;                  /* the suppressions' lines, in source order */
    uint32_t pin_count;

    FormatDecls *decls;         /* where each declaration went, or NULL */
    bool mark_decl;             /* the next token starts a declaration */
} Printer;

static void print_expr(Printer *p, const Expr *e);
static void print_block(Printer *p, const Block *b, bool declaration);

/* ---- the source around tokens ---- */

static uint32_t offset_of(const Printer *p, uint32_t pos)
{
    return pos - p->origin;
}

/* The first comment that starts at or after `offset` (comment_count when none). */
static uint32_t comment_from(const Printer *p, uint32_t offset)
{
    uint32_t lo = 0, hi = p->comment_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (offset_of(p, p->comments[mid].span.start) < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t comment_start(const Printer *p, uint32_t i)
{
    return offset_of(p, p->comments[i].span.start);
}

static uint32_t comment_end(const Printer *p, uint32_t i)
{
    return offset_of(p, p->comments[i].span.end);
}

/* Whether a comment starts in [from, to). */
static bool comment_inside(const Printer *p, uint32_t from, uint32_t to)
{
    uint32_t i = comment_from(p, from);
    return i < p->comment_count && comment_start(p, i) < to;
}

/* Where the next token starts, at or after `offset`, past spaces and comments. */
static uint32_t next_token(const Printer *p, uint32_t offset)
{
    for (;;) {
        while (offset < p->src_len && source_is_space(p->src[offset]))
            offset++;
        if (p->src[offset] != '/' && p->src[offset] != '#')
            return offset;
        uint32_t i = comment_from(p, offset);
        if (i == p->comment_count || comment_start(p, i) != offset)
            return offset;
        offset = comment_end(p, i);
    }
}

/* Where the token before `offset` ends, past spaces and comments. A line comment's span
 * takes in the spaces at the end of its line, so going back over spaces can stop inside
 * it: that counts as reaching it. */
static uint32_t previous_token_end(const Printer *p, uint32_t offset)
{
    for (;;) {
        while (offset > 0 && source_is_space(p->src[offset - 1]))
            offset--;
        uint32_t i = comment_from(p, offset);   /* comments end in start order */
        if (i == 0 || comment_end(p, i - 1) < offset)
            return offset;
        offset = comment_start(p, i - 1);
    }
}

/* Line ends as base/source.h says: "\n", "\r\n" or a lone "\r". */
static bool newline_between(const Printer *p, uint32_t from, uint32_t to)
{
    return to > from && source_find_eol(p->src + from, p->src + to) != p->src + to;
}

/* Whether [from, to) holds a blank line: two line ends with only spaces between. */
static bool blank_line_between(const Printer *p, uint32_t from, uint32_t to)
{
    const char *end = p->src + to;
    const char *c = to > from ? source_find_eol(p->src + from, end) : end;
    while (c < end) {
        c += source_eol_len(c, end);
        while (c < end && !source_is_eol(*c) && source_is_space(*c))
            c++;
        if (c < end && source_is_eol(*c))
            return true;
        c = source_find_eol(c, end);
    }
    return false;
}

/* ---- the lines of suppressions ---- */

static bool is_pin_skipped(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == ',' || c == ';';
}

/* The pins of the file's comments that hold `orbit:` and follow code on their line. One
 * pass: a line's start is searched for back to the previous pinned comment only. */
static void find_pins(Printer *p)
{
    uint32_t cap = 0, floor = 0, line = 0;
    for (uint32_t i = 0; i < p->comment_count; i++) {
        const Comment *c = &p->comments[i];
        uint32_t start = comment_start(p, i);
        if (!memmem(c->text, c->span.end - c->span.start, "orbit:", 6))
            continue;
        for (uint32_t at = start; at > floor; at--) {
            if (source_starts_line(p->src, p->src_len, at)) {
                line = at;
                break;
            }
        }
        floor = start;
        uint32_t first = line;
        while (first < start && is_pin_skipped(p->src[first]))
            first++;
        if (first == start)
            continue;   /* alone on its line: it covers the member after it, wherever it goes */
        if (p->pin_count > 0 && p->pins[p->pin_count - 1].first == first) {
            p->pins[p->pin_count - 1].comment = start;   /* the line's last one holds the others */
            continue;
        }
        if (p->pin_count == cap) {
            cap = cap ? cap * 2 : 16;
            p->pins = xrealloc(p->pins, cap * sizeof *p->pins);
        }
        p->pins[p->pin_count++] = (Pin){ first, start };
    }
}

/* Where source offset `offset` is with respect to the suppressions' lines. */
static PinPlace pin_place(const Printer *p, uint32_t offset)
{
    uint32_t lo = 0, hi = p->pin_count;   /* the first pin whose line starts after offset */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->pins[mid].first <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return PIN_NONE;
    const Pin *pin = &p->pins[lo - 1];
    return offset == pin->first ? PIN_FIRST : offset < pin->comment ? PIN_INSIDE : PIN_NONE;
}

static bool on_pinned_line(const Printer *p, uint32_t offset)
{
    return pin_place(p, offset) == PIN_INSIDE;
}

/* ---- writing ---- */

static void grow(Printer *p, size_t more)
{
    if (p->len + more <= p->cap)
        return;
    size_t cap = p->cap ? p->cap : 4096;
    while (cap < p->len + more)
        cap *= 2;
    p->out = xrealloc(p->out, cap);
    p->cap = cap;
}

static void append(Printer *p, const char *text, size_t n)
{
    if (n == 0)   /* nothing printed yet: p->out may still be NULL */
        return;
    grow(p, n);
    memcpy(p->out + p->len, text, n);
    p->len += n;
}

/* Terminal cells of text without line ends (utf8proc's width; invalid bytes count 1). */
static uint32_t cells(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t ascii = 0;
    while (ascii < n && s[ascii] < 0x80)
        ascii++;
    if (ascii == n)
        return (uint32_t)n;
    uint32_t width = (uint32_t)ascii;
    for (size_t i = ascii; i < n;) {
        if (s[i] < 0x80) {
            width++;
            i++;
            continue;
        }
        int32_t cp;
        i += utf8_decode(s + i, n - i, &cp);
        int w = cp < 0 ? 1 : utf8proc_charwidth(cp);
        width += w > 0 ? (uint32_t)w : 0;
    }
    return width;
}

/* Text on the current line. */
static void put(Printer *p, const char *text, size_t n)
{
    if (p->measuring) {
        p->column += cells(text, n);
        if (p->column > FORMAT_WIDTH)
            p->over = true;
        return;
    }
    append(p, text, n);
    p->started = true;
}

/* The cells of the current line; counted only when asked, each byte once. */
static uint32_t current_column(Printer *p)
{
    if (!p->measuring && p->counted < p->len) {
        p->column += cells(p->out + p->counted, p->len - p->counted);
        p->counted = p->len;
    }
    return p->column;
}

/* A line starts at the end of the output, `indent` cells in. */
static void line_started(Printer *p, uint32_t indent)
{
    p->line_start = p->len - indent;
    p->column = indent;
    p->counted = p->len;
}

static void put_spaces(Printer *p, uint32_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        uint32_t chunk = n < sizeof spaces - 1 ? n : (uint32_t)sizeof spaces - 1;
        put(p, spaces, chunk);
        n -= chunk;
    }
}

/* Ends the current line (and leaves a blank line after it when `blank`), then indents
 * the next one. Never at the start of the output. */
static void start_line(Printer *p, uint32_t indent, bool blank)
{
    if (p->measuring) {
        p->over = true;
        return;
    }
    if (p->started) {
        append(p, p->eol, p->eol_len);
        if (blank)
            append(p, p->eol, p->eol_len);
    }
    p->line_indent = indent;
    put_spaces(p, indent);
    line_started(p, indent);
}

/* Owes a line break before the next token, indented by `indent`. */
static void owe_line(Printer *p, uint32_t indent, Gap gap)
{
    if (p->measuring) {
        p->over = true;
        return;
    }
    p->owe_line = true;
    p->owed_indent = indent;
    p->owed_gap = gap;
}

/* Owes a line break, indented as lines started now are. */
static void want_line(Printer *p, Gap gap)
{
    owe_line(p, p->indent, gap);
}

static void want_space(Printer *p)
{
    p->owe_space = true;
}

/* Pays the whitespace owed before something that starts at source offset `next`. On a
 * suppression's line, a line break is owed before its first token and none after it. */
static void pay_whitespace(Printer *p, uint32_t next)
{
    PinPlace place = pin_place(p, next);
    if (place == PIN_FIRST && !p->owe_line)
        owe_line(p, p->indent, GAP_TIGHT);   /* measuring: it does not fit on one line */
    else if (place == PIN_INSIDE && p->owe_line) {
        p->owe_line = false;
        p->owe_space = true;
    }
    if (p->owe_line) {
        bool blank = p->owed_gap == GAP_MEMBERS && blank_line_between(p, p->prev_end, next);
        start_line(p, p->owed_indent, blank);
    } else if (p->owe_space) {
        put(p, " ", 1);
    }
    p->owe_line = false;
    p->owe_space = false;
}

/* ---- comments ---- */

/* The source column of `offset` when only spaces precede it on its line (tabs make it
 * unknown: -1), else -1. */
static int32_t indentation_column(const Printer *p, uint32_t offset)
{
    uint32_t i = offset;
    while (i > 0 && p->src[i - 1] == ' ')
        i--;
    if (!source_starts_line(p->src, p->src_len, i))
        return -1;
    return (int32_t)(offset - i);
}

static uint32_t leading_spaces(const char *line, size_t n)
{
    uint32_t i = 0;
    while (i < n && line[i] == ' ')
        i++;
    return i;
}

static size_t trim_end(const char *text, size_t n)
{
    while (n > 0 && source_is_space(text[n - 1]))
        n--;
    return n;
}

/* Writes a block comment: each line without its trailing spaces, line ends in the
 * file's style, and the lines after the first moved by as many columns as the comment
 * moved when it starts its line (when every one of them has room to move left). */
static void put_block_comment(Printer *p, const char *text, size_t n, int32_t moved)
{
    if (moved < 0) {
        for (size_t i = 0; i < n;) {
            const char *line = text + i;
            const char *nl = source_find_eol(line, text + n);
            size_t len = (size_t)(nl - line);
            if (i > 0 && trim_end(line, len) > 0 && leading_spaces(line, len) < (uint32_t)-moved)
                moved = 0;
            i += len + (nl < text + n ? source_eol_len(nl, text + n) : 0);
        }
    }
    for (size_t i = 0; i < n;) {
        const char *line = text + i;
        const char *nl = source_find_eol(line, text + n);
        size_t len = (size_t)(nl - line);
        size_t kept = trim_end(line, len);
        if (i > 0) {
            append(p, p->eol, p->eol_len);
            line_started(p, 0);
            if (kept > 0 && moved > 0)
                put_spaces(p, (uint32_t)moved);
            else if (kept > 0 && moved < 0) {
                line += -moved;
                kept -= (size_t)-moved;
            }
        }
        put(p, line, kept);
        i += len + (nl < text + n ? source_eol_len(nl, text + n) : 0);
    }
}

static void remember_trailing(Printer *p)
{
    if (p->trailing_count == p->trailing_cap) {
        p->trailing_cap = p->trailing_cap ? p->trailing_cap * 2 : 64;
        p->trailing = xrealloc(p->trailing, p->trailing_cap * sizeof *p->trailing);
    }
    p->trailing[p->trailing_count++] = (Trailing){ p->line_start, p->len, p->line_indent };
}

/* Writes comment i, on its own line or after the previous token as in the source. */
static void write_comment(Printer *p, uint32_t i)
{
    const Comment *c = &p->comments[i];
    uint32_t start = comment_start(p, i), end = comment_end(p, i);
    bool own_line = !p->started || newline_between(p, p->prev_end, start);
    Gap after = GAP_TIGHT;
    if (own_line) {
        if (!p->owe_line)
            want_line(p, GAP_TIGHT);
        after = p->owed_gap == GAP_TIGHT ? GAP_TIGHT : GAP_MEMBERS;
        pay_whitespace(p, start);
    } else {
        if (!c->block && p->owe_line && p->owed_gap == GAP_MEMBERS)
            remember_trailing(p);   /* it ends a member: aligned with its neighbours' */
        put(p, " ", 1);
    }
    if (c->block) {
        int32_t from = own_line ? indentation_column(p, start) : -1;
        int32_t moved = from < 0 ? 0 : (int32_t)current_column(p) - from;
        put_block_comment(p, p->src + start, end - start, moved);
    } else {
        put(p, p->src + start, trim_end(p->src + start, end - start));
    }
    p->prev_end = end;
    /* What follows on the comment's line, past spaces and separators (the formatter
     * writes separators itself, so a `,` or `;` after a comment ends nothing). */
    uint32_t next = end;
    while (next < p->src_len && !source_is_eol(p->src[next]) &&
           (source_is_space(p->src[next]) || p->src[next] == ',' || p->src[next] == ';'))
        next++;
    bool line_follows = !c->block || next == p->src_len || source_is_eol(p->src[next]);
    if (!line_follows)
        want_space(p);
    else if (own_line)
        owe_line(p, p->line_indent, after);   /* what follows starts as the comment did */
    else if (!p->owe_line)
        want_line(p, GAP_TIGHT);
}

/* Writes the comments that start before source offset `offset`. While measuring, a
 * comment means the text cannot be on one line. */
static void flush_comments(Printer *p, uint32_t offset)
{
    while (p->next_comment_start < offset) {
        if (p->measuring) {
            p->over = true;
            return;
        }
        write_comment(p, p->next_comment++);
        p->next_comment_start = p->next_comment < p->comment_count
                                    ? comment_start(p, p->next_comment) : UINT32_MAX;
    }
}

/* ---- tokens ---- */

/* The token src[start, end), after the comments before it and the whitespace owed. */
static void token(Printer *p, uint32_t start, uint32_t end)
{
    if (p->over)
        return;
    flush_comments(p, start);
    pay_whitespace(p, start);
    if (p->mark_decl && !p->measuring) {
        p->decls->items[p->decls->count].out_start = p->len;
        p->mark_decl = false;
    }
    put(p, p->src + start, end - start);
    p->prev_end = end;
}

/* A separator the formatter writes itself (`,`, `;`): no comment is due before it. */
static void punctuation(Printer *p, const char *text)
{
    pay_whitespace(p, p->prev_end);
    put(p, text, strlen(text));
}

static void span_token(Printer *p, Span span)
{
    token(p, offset_of(p, span.start), offset_of(p, span.end));
}

/* ---- measuring ---- */

/* Starts measuring whether what follows fits on the current line; the state to restore
 * is returned. Comments before `start` are written first: they are not part of it. */
static Printer begin_measure(Printer *p, uint32_t start)
{
    flush_comments(p, start);
    current_column(p);
    Printer saved = *p;
    p->measuring = true;
    p->over = false;
    if (p->owe_line) {
        p->owe_line = false;
        p->owe_space = false;
        p->column = p->owed_indent;
    }
    return saved;
}

static bool end_measure(Printer *p, const Printer *saved)
{
    bool fits = !p->over;
    *p = *saved;
    return fits;
}

/* ---- lists and argument lists ---- */

typedef struct Sequence {
    Expr *const *elems;
    uint32_t count;
    uint32_t open, close;        /* source offsets of the brackets */
} Sequence;

static void print_sequence_flat(Printer *p, const Sequence *s)
{
    token(p, s->open, s->open + 1);
    for (uint32_t i = 0; i < s->count && !p->over; i++) {
        if (i > 0) {
            punctuation(p, ",");
            want_space(p);
        }
        print_expr(p, s->elems[i]);
    }
    token(p, s->close, s->close + 1);
}

/* One element per line, each followed by `,`, the closer on a line of its own. */
static void print_sequence_broken(Printer *p, const Sequence *s)
{
    token(p, s->open, s->open + 1);
    uint32_t saved = p->indent, outer = p->line_indent;
    p->indent = outer + FORMAT_INDENT;
    bool close_pinned = on_pinned_line(p, s->close);
    for (uint32_t i = 0; i < s->count; i++) {
        if (!on_pinned_line(p, offset_of(p, s->elems[i]->span.start)))
            want_line(p, i == 0 ? GAP_OPEN : GAP_MEMBERS);
        else if (i > 0)
            want_space(p);             /* on a suppression's line: kept on it */
        uint32_t element = p->indent;
        p->indent = element + FORMAT_CONTINUATION;
        print_expr(p, s->elems[i]);
        p->indent = element;
        if (i + 1 < s->count || !close_pinned)
            punctuation(p, ",");
    }
    if (!close_pinned)
        want_line(p, s->count ? GAP_MEMBERS : GAP_OPEN);
    flush_comments(p, s->close);
    p->indent = outer;
    if (!close_pinned)
        want_line(p, GAP_TIGHT);
    token(p, s->close, s->close + 1);
    p->indent = saved;
}

static void print_sequence(Printer *p, const Sequence *s)
{
    bool flat = !comment_inside(p, s->open, s->close);
    if (flat && !p->measuring && !p->in_flat) {
        Printer saved = begin_measure(p, s->open);
        print_sequence_flat(p, s);
        flat = end_measure(p, &saved);
    }
    if (flat) {
        bool was = p->in_flat;
        p->in_flat = true;
        print_sequence_flat(p, s);
        p->in_flat = was;
    } else if (p->measuring)
        p->over = true;
    else
        print_sequence_broken(p, s);
}

/* ---- expressions ---- */

static bool is_number(ExprKind kind)
{
    return kind == EXPR_INT || kind == EXPR_NUMBER || kind == EXPR_DURATION;
}

/* The expression without its parentheses, src[start, end). */
static void print_core(Printer *p, const Expr *e, uint32_t start, uint32_t end)
{
    const Expr *left = expr_has_left(e->kind) ? e->left : NULL;
    uint32_t left_end = left ? offset_of(p, left->span.end) : 0;
    switch (e->kind) {
    case EXPR_ERROR:
        p->failed = true;
        p->over = true;
        return;
    case EXPR_INT: case EXPR_NUMBER: case EXPR_STRING: case EXPR_DURATION:
    case EXPR_BOOL: case EXPR_NULL: case EXPR_NAME:
        token(p, start, end);
        return;
    case EXPR_LIST: {
        Sequence s = { e->elems, e->count, start, end - 1 };
        print_sequence(p, &s);
        return;
    }
    case EXPR_OBJECT:
        print_block(p, e->block, false);
        return;
    case EXPR_UNARY:
        token(p, start, start + 1);
        if (p->src[next_token(p, start + 1)] == p->src[start])
            want_space(p);             /* `- -x`, `! !x`: not `--x`, which reads as one */
        print_expr(p, left);
        return;
    case EXPR_BINARY: {
        uint32_t op = next_token(p, left_end);
        uint32_t right = offset_of(p, e->right->span.start);
        print_expr(p, left);
        want_space(p);
        token(p, op, op + (uint32_t)strlen(ast_op_text(e->op)));
        if (newline_between(p, left_end, right))
            want_line(p, GAP_TIGHT);   /* a line break the author made: kept, after it */
        else
            want_space(p);
        print_expr(p, e->right);
        return;
    }
    case EXPR_FIELD: {
        uint32_t dot = next_token(p, left_end);
        print_expr(p, left);
        if (is_number(left->kind) && p->src[left_end - 1] != ')')
            want_space(p);             /* `1 .x`: `1.x` would be one malformed number */
        token(p, dot, dot + 1);
        token(p, offset_of(p, e->field_start), end);
        return;
    }
    case EXPR_INDEX: {
        uint32_t open = next_token(p, left_end);
        print_expr(p, left);
        token(p, open, open + 1);
        print_expr(p, e->right);
        token(p, end - 1, end);
        return;
    }
    case EXPR_CALL: {
        Sequence s = { e->elems, e->count, next_token(p, left_end), end - 1 };
        print_expr(p, left);
        print_sequence(p, &s);
        return;
    }
    case EXPR_OPTIONAL:
        print_expr(p, left);
        if (p->src[left_end - 1] == '?')
            want_space(p);             /* `T? ?`: `T??` would be the operator `??` */
        token(p, end - 1, end);
        return;
    }
}

/* An expression with the parentheses written around it, each kept where it is. */
static void print_expr(Printer *p, const Expr *e)
{
    if (p->over)
        return;
    uint32_t start = offset_of(p, e->span.start), end = offset_of(p, e->span.end);
    bool has_left = e->kind == EXPR_BINARY || e->kind == EXPR_FIELD || e->kind == EXPR_INDEX ||
                    e->kind == EXPR_CALL || e->kind == EXPR_OPTIONAL;
    uint32_t stop = has_left ? offset_of(p, e->left->span.start) : end;
    uint32_t layers = 0;
    while (start < stop && p->src[start] == '(') {
        token(p, start, start + 1);
        start = next_token(p, start + 1);
        layers++;
    }
    uint32_t core_end = end;
    for (uint32_t i = 0; i < layers; i++)
        core_end = previous_token_end(p, core_end - 1);
    print_core(p, e, start, core_end);
    uint32_t at = core_end;
    for (uint32_t i = 0; i < layers; i++) {
        at = next_token(p, at);
        token(p, at, at + 1);
        at++;
    }
}

/* ---- members and blocks ---- */

static bool has_clause(const Block *b)
{
    for (const Member *m = block_first(b), *end = block_end(b); m != end; m++)
        if (m->kind != MEMBER_ATTR)
            return true;
    return false;
}

/* A member; `declaration`: a workflow or worker declaration, whose body is always
 * broken over lines. */
static void print_member(Printer *p, const Member *m, bool declaration)
{
    if (m->kind == MEMBER_ERROR) {
        p->failed = true;
        p->over = true;
        return;
    }
    uint32_t base = p->indent;
    p->indent = base + FORMAT_CONTINUATION;
    span_token(p, member_key_span(m));
    if (m->kind == MEMBER_ATTR) {
        span_token(p, member_colon_span(m));
        want_space(p);
        print_expr(p, member_value(m));
        p->indent = base;
        return;
    }
    if (m->name) {
        want_space(p);
        span_token(p, member_name_span(m));
    }
    if (m->keyword == KW_FOR) {
        uint32_t in = next_token(p, offset_of(p, m->name_end));
        want_space(p);
        token(p, in, in + 2);
    }
    if (member_value(m)) {
        want_space(p);
        print_expr(p, member_value(m));
    }
    if (member_body(m)) {
        want_space(p);
        print_block(p, member_body(m), declaration);
    }
    p->indent = base;
}


static void print_block_flat(Printer *p, const Block *b, uint32_t open, uint32_t close)
{
    const char *separator = has_clause(b) ? ";" : ",";
    token(p, open, open + 1);
    for (const Member *m = block_first(b), *end = block_end(b); m != end && !p->over; m++) {
        if (m != b->members)
            punctuation(p, separator);
        want_space(p);
        print_member(p, m, false);
    }
    want_space(p);
    token(p, close, close + 1);
}

/* One member per line, indented one level more than the line of the `{`; but the members
 * on a suppression's line stay on it, separated as on one line, and so does a `}`. */
static void print_block_broken(Printer *p, const Block *b, uint32_t open, uint32_t close)
{
    const char *separator = has_clause(b) ? ";" : ",";
    token(p, open, open + 1);
    uint32_t saved = p->indent, outer = p->line_indent;
    p->indent = outer + FORMAT_INDENT;
    for (const Member *m = block_first(b), *end = block_end(b); m != end && !p->failed; m++) {
        if (on_pinned_line(p, offset_of(p, m->span.start))) {
            if (m != b->members)
                punctuation(p, separator);
            want_space(p);
        } else {
            want_line(p, m == b->members ? GAP_OPEN : GAP_MEMBERS);
        }
        print_member(p, m, false);
    }
    bool close_pinned = on_pinned_line(p, close);
    if (!close_pinned)
        want_line(p, b->count ? GAP_MEMBERS : GAP_OPEN);
    flush_comments(p, close);
    p->indent = outer;
    if (close_pinned)
        want_space(p);
    else
        want_line(p, GAP_TIGHT);
    token(p, close, close + 1);
    p->indent = saved;
}

/* Whether the block may be written on one line (if it fits): no comment inside it, not
 * the body of a workflow or worker declaration, and for a block of clauses (a step, a
 * compensate block), its first member written on the line of its `{`. */
static bool may_be_flat(const Printer *p, const Block *b, bool declaration,
                        uint32_t open, uint32_t close)
{
    if (declaration || comment_inside(p, open, close))
        return false;
    if (!has_clause(b))
        return true;
    return !newline_between(p, open, offset_of(p, b->members[0].span.start));
}

static void print_block(Printer *p, const Block *b, bool declaration)
{
    if (p->over)
        return;
    uint32_t open = offset_of(p, b->span.start), close = offset_of(p, b->span.end) - 1;
    if (!b->count && !comment_inside(p, open, close)) {
        token(p, open, open + 1);
        token(p, close, close + 1);
        return;
    }
    bool flat = may_be_flat(p, b, declaration, open, close);
    if (flat && !p->measuring && !p->in_flat) {
        Printer saved = begin_measure(p, open);
        print_block_flat(p, b, open, close);
        flat = end_measure(p, &saved);
    }
    if (flat) {
        bool was = p->in_flat;
        p->in_flat = true;
        print_block_flat(p, b, open, close);
        p->in_flat = was;
    } else if (p->measuring)
        p->over = true;
    else
        print_block_broken(p, b, open, close);
}

/* ---- aligning trailing comments ---- */

/* Whether trailing comment b is on the line right after a's, indented alike. */
static bool same_run(const Printer *p, const Trailing *a, const Trailing *b)
{
    const char *eol = memchr(p->out + a->at, p->eol[0], p->len - a->at);   /* the output's own */
    return eol && b->line_start == (size_t)(eol - p->out) + p->eol_len && a->indent == b->indent;
}

/* The line comments that end members on consecutive lines indented alike start in one column,
 * one space after the longest code among those lines (as gofmt aligns them). Spaces are
 * inserted in one pass over the output; the declarations' offsets move with them. */
static void align_trailing_comments(Printer *p)
{
    uint32_t *pad = xcalloc(p->trailing_count + 1, sizeof *pad);
    size_t total = 0;
    for (uint32_t first = 0, end; first < p->trailing_count; first = end) {
        uint32_t widest = 0;
        for (end = first; end < p->trailing_count; end++) {
            const Trailing *t = &p->trailing[end];
            if (end > first && !same_run(p, &p->trailing[end - 1], t))
                break;
            uint32_t width = cells(p->out + t->line_start, t->at - t->line_start);
            widest = width > widest ? width : widest;
        }
        for (uint32_t i = first; i < end && end - first > 1; i++) {
            const Trailing *t = &p->trailing[i];
            pad[i] = widest - cells(p->out + t->line_start, t->at - t->line_start);
            total += pad[i];
        }
    }
    if (total > 0) {
        char *out = xmalloc(p->len + total + 1);
        size_t from = 0, to = 0, shift = 0;
        uint32_t decl = 0, decl_end = 0;
        for (uint32_t i = 0; i <= p->trailing_count; i++) {
            size_t at = i < p->trailing_count ? p->trailing[i].at : p->len;
            for (; p->decls && decl < p->decls->count && p->decls->items[decl].out_start <= at; decl++)
                p->decls->items[decl].out_start += shift;
            for (; p->decls && decl_end < p->decls->count && p->decls->items[decl_end].out_end <= at;
                 decl_end++)
                p->decls->items[decl_end].out_end += shift;
            memcpy(out + to, p->out + from, at - from);
            to += at - from;
            from = at;
            if (i < p->trailing_count) {
                memset(out + to, ' ', pad[i]);
                to += pad[i];
                shift += pad[i];
            }
        }
        free(p->out);
        p->out = out;
        p->len = to;
        p->cap = p->len + 1;
    }
    free(pad);
}

/* ---- files ---- */

static void print_file(Printer *p, const SourceAst *ast)
{
    if (p->src_len >= 3 && memcmp(p->src, "\xEF\xBB\xBF", 3) == 0) {
        append(p, p->src, 3);          /* a byte order mark stays */
        p->prev_end = 3;
    }
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end && !p->failed; m++) {
        want_line(p, GAP_MEMBERS);
        if (p->decls) {
            p->decls->items[p->decls->count].source_start = offset_of(p, m->span.start);
            p->decls->items[p->decls->count].source_end = offset_of(p, m->span.end);
            p->mark_decl = true;
        }
        print_member(p, m, m->keyword == KW_WORKFLOW || m->keyword == KW_WORKER);
        if (p->decls)
            p->decls->items[p->decls->count++].out_end = p->len;
    }
    want_line(p, GAP_MEMBERS);
    flush_comments(p, p->src_len + 1);
    if (p->started)
        append(p, p->eol, p->eol_len);
    align_trailing_comments(p);
    free(p->trailing);
    free(p->pins);
}

/* Whether the file could not be read whole (E0010, reported when it was added) or its
 * parse, whose reports are those from `first` on, found an error. */
static bool front_end_failed(const Compiler *c, uint32_t file, uint32_t first,
                             const SourceAst *ast)
{
    if (ast->fatal)
        return true;
    const SourceFile *source = source_file(&c->sources, file);
    for (uint32_t i = 0; i < c->diags.count; i++) {
        const Diagnostic *d = c->diags.items[i];
        bool in_file = d->span.start >= source->origin && d->span.start <= source->origin + source->len;
        if (d->severity == SEV_ERROR && (i >= first || (d->code == E0010 && in_file)))
            return true;
    }
    return false;
}

static uint32_t offset_of_comment(const SourceAst *ast, const SourceFile *source)
{
    return ast->comments[0].span.start - source->origin;
}

/* The file's first line end (base/source.h): "\n" when there is none. */
static const char *line_end_style(const char *text, uint32_t len)
{
    const char *eol = source_find_eol(text, text + len);
    if (eol == text + len || *eol == '\n')
        return "\n";
    return source_eol_len(eol, text + len) == 2 ? "\r\n" : "\r";
}

/* Formatting takes out space, so a text just under the share of control bytes that makes
 * it binary (E0012) can come out over it, and would then no longer be read as source: it
 * is left alone instead. */
static void report_binary_result(Compiler *c, uint32_t file, size_t binary, size_t sample)
{
    const SourceFile *source = source_file(&c->sources, file);
    size_t before, first, source_sample;
    parse_text_is_binary(source->text, source->len, &before, &first, &source_sample);
    Diagnostic *d = diag_report(&c->diags, E0012, source_span(&c->sources, file, (uint32_t)first,
                                                              (uint32_t)first + 1),
                                "this file is too near to binary to be formatted");
    diag_set_label(&c->diags, d, "not text");
    diag_add_note(&c->diags, d, "%zu of the first %zu bytes of its formatted text would be NUL "
                                "bytes, other control characters or invalid UTF-8, and it would "
                                "be taken for binary", binary, sample);
    diag_add_help(&c->diags, d, "remove the control characters (in comments or strings)");
}

/* A formatting that gives no text: what was made so far is dropped. Returns false. */
static bool drop_output(Printer *p, FormatDecls *decls)
{
    free(p->out);
    if (decls) {
        free(decls->items);
        decls->items = NULL;
        decls->count = 0;
    }
    return false;
}

bool format_file(Compiler *c, uint32_t file, FormatText *out, FormatDecls *decls)
{
    uint32_t first = c->diags.count;
    SourceAst *ast = parse_source(c, file);
    if (front_end_failed(c, file, first, ast))
        return false;
    const SourceFile *source = source_file(&c->sources, file);
    Printer p = {
        .src = source->text,
        .src_len = source->len,
        .origin = source->origin,
        .comments = ast->comments,
        .comment_count = ast->comment_count,
        .eol = line_end_style(source->text, source->len),
        .next_comment_start = ast->comment_count ? offset_of_comment(ast, source) : UINT32_MAX,
        .decls = decls,
    };
    p.eol_len = (uint32_t)strlen(p.eol);
    find_pins(&p);
    grow(&p, source->len + source->len / 8 + 64);
    if (decls) {
        decls->count = 0;
        decls->items = xcalloc(ast->count ? ast->count : 1, sizeof *decls->items);
    }
    print_file(&p, ast);
    if (p.failed) {   /* a tree without errors has no error nodes: never happens */
        return drop_output(&p, decls);
    }
    size_t binary, first_binary, sample;
    if (parse_text_is_binary(p.out, p.len, &binary, &first_binary, &sample)) {
        report_binary_result(c, file, binary, sample);
        return drop_output(&p, decls);
    }
    grow(&p, 1);
    p.out[p.len] = '\0';
    out->text = p.out;
    out->len = p.len;
    return true;
}

/* A compiler holding the text alone; false when it is too large to be a source. */
static bool load_text(Compiler *c, const char *path, const char *text, size_t len,
                      uint32_t *file)
{
    compiler_init(c);
    if (len > SOURCE_MAX_FILE_SIZE)
        return false;
    *file = compiler_add_source(c, path ? path : "<text>", xstrndup(text, len), (uint32_t)len);
    return true;
}

bool format_text(const char *path, const char *text, size_t len, FormatText *out)
{
    Compiler c;
    uint32_t file;
    bool ok = load_text(&c, path, text, len, &file) && format_file(&c, file, out, NULL);
    compiler_free(&c);
    return ok;
}

/* A text's first line end sets the style of all of them (docs/style.md). When an edit
 * covers it and its replacement has none, the first line end after the edit would set
 * the style of the edited text instead, and formatting it would not agree with
 * formatting the original (a mixed file, or a CRLF one without a final line end). The
 * edit then reaches over the rest of that line and ends it in the text's style. */
static void keep_line_end_style(const char *text, size_t len, FormatEdit *edit)
{
    const char *end = text + len;
    const char *first = source_find_eol(text, end);
    const char *r_text = edit->replacement.text;
    if (first == end || first < text + edit->start || first >= text + edit->end ||
        source_find_eol(r_text, r_text + edit->replacement.len) != r_text + edit->replacement.len)
        return;
    const char *eol = line_end_style(text, (uint32_t)len);
    size_t eol_len = strlen(eol);
    const char *nl = source_find_eol(text + edit->end, end);
    size_t rest_end = (size_t)(nl - text);
    size_t rest = rest_end - edit->end;
    FormatText *r = &edit->replacement;
    r->text = xrealloc(r->text, r->len + rest + eol_len + 1);
    memcpy(r->text + r->len, text + edit->end, rest);
    memcpy(r->text + r->len + rest, eol, eol_len);
    r->len += rest + eol_len;
    r->text[r->len] = '\0';
    edit->end = (uint32_t)(nl < end ? rest_end + source_eol_len(nl, end) : len);
}

/* Range formatting: the declarations [first, last] that the range touches, replaced by
 * their formatted text. */
bool format_range(const char *path, const char *text, size_t len, uint32_t start,
                  uint32_t end, FormatEdit *edit)
{
    memset(edit, 0, sizeof *edit);
    Compiler c;
    uint32_t file;
    FormatText formatted = { 0 };
    FormatDecls decls = { 0 };
    bool ok = load_text(&c, path, text, len, &file) && format_file(&c, file, &formatted, &decls);
    compiler_free(&c);
    if (!ok)
        return false;
    uint32_t first = decls.count, last = 0;
    for (uint32_t i = 0; i < decls.count; i++) {
        const FormatDecl *d = &decls.items[i];
        bool touched = d->source_start <= end && start <= d->source_end;
        if (touched && first == decls.count)
            first = i;
        if (touched)
            last = i;
    }
    if (first < decls.count) {
        uint32_t from = decls.items[first].source_start;
        while (from > 0 && (text[from - 1] == ' ' || text[from - 1] == '\t'))
            from--;
        if (!source_starts_line(text, (uint32_t)len, from))
            from = decls.items[first].source_start;   /* not alone on its line */
        size_t out_from = decls.items[first].out_start, out_to = decls.items[last].out_end;
        uint32_t to = decls.items[last].source_end;
        if (to - from != out_to - out_from || memcmp(text + from, formatted.text + out_from, to - from)) {
            edit->start = from;
            edit->end = to;
            edit->replacement.len = out_to - out_from;
            edit->replacement.text = xmalloc(edit->replacement.len + 1);
            memcpy(edit->replacement.text, formatted.text + out_from, edit->replacement.len);
            edit->replacement.text[edit->replacement.len] = '\0';
            keep_line_end_style(text, len, edit);
        }
    }
    format_text_free(&formatted);
    free(decls.items);
    return true;
}

void format_text_free(FormatText *text)
{
    free(text->text);
    text->text = NULL;
    text->len = 0;
}
