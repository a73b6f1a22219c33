/* Bracket matching and closing by indentation: the stack of open brackets, the reports
 * of brackets that do not balance (stray, mistyped, never closed) with the closers
 * invented in their place, and the second pass over a file whose brackets do not
 * balance, which reads the indentation to say where a block was meant to end (lexer.h).
 * The token stream (lexer.re) calls these for each bracket on its general path; the
 * common path pushes and pops brackets itself (lexer_push_bracket, lexer_internal.h). */
#define _GNU_SOURCE
#include <string.h>

#include "attributes.h"
#include "lexer_internal.h"
#include "source.h"

static void enqueue(Lexer *lx, int kind, Loc loc)
{
    QueuedToken *q = &lx->stream.queue[lx->stream.queue_head + lx->stream.queue_len++];
    q->kind = kind;
    q->loc = loc;
}

static void label_unclosed(Lexer *lx, Diagnostic *d, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        diag_add_label(&lx->c->diags, d,
                       lexer_span(lx, lx->brackets.open_at[i], lx->brackets.open_at[i] + 1),
                       "unclosed `%c`", lexer_bracket_char(lx->brackets.open_kind[i]));
}

static bool only_spaces(const unsigned char *p, const unsigned char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return false;
    return true;
}

/* Gives the run of stray closers that just ended its final message. */
COLD void lexer_end_stray_closers(Lexer *lx)
{
    Diagnostic *d = lx->brackets.stray_closers;
    lx->brackets.stray_closers = NULL;
    if (!d || lx->brackets.stray_closer_count < 2)
        return;
    Arena *arena = &lx->c->arena;
    int kind = lx->brackets.stray_closer_kind;
    if (kind) {
        d->message = arena_printf(arena, "%u unexpected closing delimiters `%c`",
                                  lx->brackets.stray_closer_count, lexer_bracket_char(kind));
        d->label = arena_printf(arena, "no `%c` is open for any of these",
                                lexer_bracket_char(lexer_opener_of(kind)));
    } else {
        d->message = arena_printf(arena, "%u unexpected closing delimiters",
                                  lx->brackets.stray_closer_count);
        d->label = "no bracket is open for any of these";
    }
}

/* A closing bracket with nothing open for it: one E0102 for a run of them separated
 * only by spaces and line ends (10,000 `}` are one mistake). */
COLD static void stray_closer(Lexer *lx, int kind, Loc loc)
{
    lx->brackets.stray_closer_total++;
    if (lx->brackets.stray_closers && lx->brackets.stray_closers_end <= loc.start &&
        only_spaces(lx->base + lx->brackets.stray_closers_end, lx->base + loc.start)) {
        lx->brackets.stray_closers->span.end = lx->origin + loc.end;
        lx->brackets.stray_closers_end = loc.end;
        lx->brackets.stray_closer_count++;
        if (lx->brackets.stray_closer_kind != kind)
            lx->brackets.stray_closer_kind = 0;
        return;
    }
    lexer_end_stray_closers(lx);
    lx->brackets.bracket_reports++;
    Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                 "unexpected closing delimiter `%c`", lexer_bracket_char(kind));
    if (!d)
        return;
    diag_set_label(&lx->c->diags, d, "no `%c` is open here",
                   lexer_bracket_char(lexer_opener_of(kind)));
    lx->brackets.stray_closers = d;
    lx->brackets.stray_closers_end = loc.end;
    lx->brackets.stray_closer_count = 1;
    lx->brackets.stray_closer_kind = kind;
}

/* A closing bracket: queue it, with invented closers before it when it closes an outer
 * bracket, in place of the expected one when it is mistyped, or not at all when stray. */
void lexer_close_bracket(Lexer *lx, int kind, Loc loc)
{
    int top = lx->brackets.depth ? lx->brackets.open_kind[lx->brackets.depth - 1] : 0;
    if (top == lexer_opener_of(kind)) {
        enqueue(lx, kind, loc);
        return;
    }
    int match = -1;
    for (int i = (int)lx->brackets.depth - 1; i >= 0; i--)
        if (lx->brackets.open_kind[i] == lexer_opener_of(kind)) {
            match = i;
            break;
        }
    if (match >= 0) {
        Diagnostic *d = lexer_report(lx, E0101, loc.start, loc.end, "expected `%c`, found `%c`",
                                     lexer_bracket_char(lexer_closer_of(top)),
                                     lexer_bracket_char(kind));
        if (d) {
            diag_set_label(&lx->c->diags, d, "`%c` expected before this",
                           lexer_bracket_char(lexer_closer_of(top)));
            label_unclosed(lx, d, (uint32_t)match + 1, lx->brackets.depth);
        }
        for (int i = (int)lx->brackets.depth - 1; i > match; i--)
            enqueue(lx, lexer_closer_of(lx->brackets.open_kind[i]), lexer_quiet_at(loc.start));
        enqueue(lx, kind, loc);
        return;
    }
    if (top == LPAREN || top == LBRACK) {
        Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                     "mismatched closing delimiter `%c`", lexer_bracket_char(kind));
        if (d) {
            diag_set_label(&lx->c->diags, d, "expected `%c`",
                           lexer_bracket_char(lexer_closer_of(top)));
            label_unclosed(lx, d, lx->brackets.depth - 1, lx->brackets.depth);
            char replacement[2] = { lexer_bracket_char(lexer_closer_of(top)), 0 };
            diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), replacement,
                         FIX_MAYBE_INCORRECT, "use `%c` to close the `%c`",
                         replacement[0], lexer_bracket_char(top));
        }
        enqueue(lx, lexer_closer_of(top), loc);    /* quiet: its text is another closer */
        return;
    }
    stray_closer(lx, kind, loc);
}

/* End of file: report what is still open, close it quietly, then END. */
void lexer_end_of_file(Lexer *lx, Loc loc)
{
    lx->brackets.unclosed_at_end = lx->brackets.depth;
    if (lx->brackets.depth > 0) {
        lx->brackets.bracket_reports++;
        int top = lx->brackets.open_kind[lx->brackets.depth - 1];
        Diagnostic *d = lexer_report(lx, E0101, loc.start, loc.end,
                                     "expected `%c`, found end of file",
                                     lexer_bracket_char(lexer_closer_of(top)));
        if (d) {
            diag_set_label(&lx->c->diags, d, "the file ends here");
            label_unclosed(lx, d, 0, lx->brackets.depth);
        }
        for (int i = (int)lx->brackets.depth - 1; i >= 0; i--)
            enqueue(lx, lexer_closer_of(lx->brackets.open_kind[i]), lexer_quiet_at(loc.start));
    }
    enqueue(lx, END, loc);
}

/* Makes the line that starts at `start` the tracked line. */
void lexer_set_line(Lexer *lx, uint32_t start)
{
    const unsigned char *p = lx->base + start;
    uint32_t width = 0;
    for (; p < lx->lim && (*p == ' ' || *p == '\t'); p++)
        width = *p == '\t' ? (width / 4 + 1) * 4 : width + 1;
    lx->indent.line_start = start;
    lx->indent.line_indent_end = lexer_offset(lx, p);
    lx->indent.line_indent = width;
}

/* Moves the line tracker to the line holding `offset`. Offsets only grow, so every
 * byte is looked at once. */
static void track_line(Lexer *lx, uint32_t offset)
{
    if (offset <= lx->indent.line_scanned)
        return;
    const unsigned char *from = lx->base + lx->indent.line_scanned;
    const unsigned char *to = lx->base + offset;
    const unsigned char *nl = memrchr(from, '\n', (size_t)(to - from));
    const unsigned char *after = nl ? nl + 1 : from;
    const unsigned char *cr = memrchr(after, '\r', (size_t)(to - after));
    lx->indent.line_scanned = offset;
    if (cr)   /* a lone CR, or the CR of a "\r\n" whose LF is at `to` (base/source.h) */
        lexer_set_line(lx, lexer_offset(lx, cr) + (cr[1] == '\n' ? 2 : 1));
    else if (nl)
        lexer_set_line(lx, lexer_offset(lx, nl) + 1);
}

/* The line end that ends the line before the one starting at `start` (base/source.h),
 * the file's own, for the lines a fix adds there. */
static const char *line_end_before(const Lexer *lx, uint32_t start)
{
    const unsigned char *p = lx->base + start;
    if (start >= 2 && p[-2] == '\r' && p[-1] == '\n')
        return "\r\n";
    return start >= 1 && p[-1] == '\r' ? "\r" : "\n";
}

/* `}` and `{` closed by indentation: the innermost bracket left open, the others closed
 * at the same place, and a fix that adds the closers, each on its own line indented like
 * the line of its opener, before the line of `at`. */
static void report_unclosed(Lexer *lx, uint32_t keep, Loc at, bool closer)
{
    uint32_t top = lx->brackets.depth - 1;
    char bracket = lexer_bracket_char(lx->brackets.open_kind[top]);
    uint32_t opener = lx->brackets.open_at[top];
    Diagnostic *d = lexer_report(lx, E0101, opener, opener + 1, "unclosed `%c`", bracket);
    if (!d)
        return;
    DiagSink *diags = &lx->c->diags;
    diag_set_label(diags, d, "this `%c` is never closed", bracket);
    label_unclosed(lx, d, keep, top);
    diag_add_label(diags, d, lexer_span(lx, at.start, at.end),
                   closer ? "going by its indentation, this closes an outer block"
                          : "going by its indentation, this line is outside the block");
    char *text = arena_alloc(&lx->c->arena, 1);
    text[0] = 0;
    const char *eol = line_end_before(lx, lx->indent.line_start);
    for (uint32_t i = top + 1; i-- > keep;) {
        const unsigned char *line = lx->base + lx->indent.open_line[i];
        const unsigned char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        text = arena_printf(&lx->c->arena, "%s%.*s%c%s", text, (int)(p - line), line,
                            lexer_bracket_char(lexer_closer_of(lx->brackets.open_kind[i])), eol);
    }
    diag_add_fix(diags, d, lexer_span(lx, lx->indent.line_start, lx->indent.line_start), text,
                 FIX_MAYBE_INCORRECT, "close %s where the indentation says %s",
                 top > keep ? "them" : "it", top > keep ? "they end" : "it ends");
}

void lexer_read_indentation(Lexer *lx, uint32_t close_budget, uint32_t drop_budget)
{
    lx->indent.pass = close_budget > 0 || drop_budget > 0;
    if (lx->indent.pass)
        lx->attention = true;
    lx->indent.close_budget = close_budget;
    lx->indent.drop_budget = drop_budget;
}

/* A newline right after a `{`: the bracket opens a block laid out on lines of its own. */
void lexer_note_line_end(Lexer *lx)
{
    if (lexer_reads_indentation(lx) && lx->stream.prev == LBRACE && lx->brackets.depth > 0 &&
        lx->brackets.open_at[lx->brackets.depth - 1] == lx->stream.prev_loc.start)
        lx->indent.open_ends_line[lx->brackets.depth - 1] = true;
}

/* Second pass only (drop_budget > 0): `step a { worker "x" } }`. A `}` that would close a
 * block laid out on lines of its own (its `{` ends a line above), on a line indented more
 * than the `{`'s line, closes nothing: reported (E0102) and dropped. */
COLD bool lexer_drop_by_indentation(Lexer *lx, int kind, Loc loc)
{
    if (lx->indent.drop_budget == 0 || lx->brackets.depth == 0)
        return false;
    uint32_t top = lx->brackets.depth - 1;
    if (lx->brackets.open_kind[top] != lexer_opener_of(kind) || !lx->indent.open_ends_line[top])
        return false;
    track_line(lx, loc.start);
    if (lx->indent.open_line[top] == lx->indent.line_start ||
        lx->indent.line_indent <= lx->indent.open_indent[top])
        return false;
    lx->indent.drop_budget--;
    lx->brackets.bracket_reports++;
    Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                 "unexpected closing delimiter `%c`", lexer_bracket_char(kind));
    if (d) {
        diag_set_label(&lx->c->diags, d, "going by its indentation, this closes nothing");
        diag_add_label(&lx->c->diags, d,
                       lexer_span(lx, lx->brackets.open_at[top], lx->brackets.open_at[top] + 1),
                       "this `%c` is closed further down",
                       lexer_bracket_char(lx->brackets.open_kind[top]));
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), "",
                     FIX_MAYBE_INCORRECT, "remove it");
    }
    return true;
}

/* Second pass only (close_budget > 0): a word or a closer that starts a line, less
 * indented than the line of the open bracket, closes it (and any other bracket opened on
 * a more indented line), as rustc guesses: a `}` closes the bracket whose line is
 * indented like it, a word belongs to the innermost bracket whose line is indented less.
 * Queues the invented closers and the token; false when the indentation agrees. */
COLD bool lexer_close_by_indentation(Lexer *lx, int kind, const YYSTYPE *v, Loc loc)
{
    bool closer = lexer_is_closer(kind);
    if (lx->indent.close_budget == 0 || lx->brackets.depth == 0 ||
        (!closer && !lexer_is_word(kind)))
        return false;
    track_line(lx, loc.start);
    if (loc.start != lx->indent.line_indent_end)
        return false;                    /* not the first token of its line */
    uint32_t indent = lx->indent.line_indent;
    int keep = (int)lx->brackets.depth - 1;       /* the innermost bracket that stays open */
    if (closer) {
        while (keep >= 0 && lx->indent.open_indent[keep] > indent)
            keep--;
        if (keep < 0 || lx->indent.open_indent[keep] != indent ||
            lx->brackets.open_kind[keep] != lexer_opener_of(kind))
            return false;
    } else {
        while (keep >= 0 && lx->indent.open_indent[keep] >= indent)
            keep--;
    }
    uint32_t count = (uint32_t)((int)lx->brackets.depth - 1 - keep);
    if (count == 0 || count > lx->indent.close_budget)
        return false;
    lx->indent.close_budget -= count;
    lx->brackets.bracket_reports++;
    report_unclosed(lx, (uint32_t)(keep + 1), loc, closer);
    for (int i = (int)lx->brackets.depth - 1; i > keep; i--)
        enqueue(lx, lexer_closer_of(lx->brackets.open_kind[i]), lexer_quiet_at(loc.start));
    enqueue(lx, kind, loc);
    lx->stream.queue[lx->stream.queue_head + lx->stream.queue_len - 1].value = *v;
    return true;
}

/* An opening bracket; false (after E0009, fatal) when it is one too deep. */
bool lexer_open_bracket(Lexer *lx, int kind, Loc loc)
{
    if (lx->brackets.depth == AST_MAX_DEPTH) {
        diag_report(&lx->c->diags, E0009, lexer_span(lx, loc.start, loc.end),
                    "nesting too deep: more than %d levels of brackets", (int)AST_MAX_DEPTH);
        lexer_stop(lx);
        lx->too_deep = true;
        return false;
    }
    lexer_push_bracket(lx, kind, loc);
    if (lexer_reads_indentation(lx)) {
        track_line(lx, loc.start);
        lx->indent.open_indent[lx->brackets.depth] = lx->indent.line_indent;
        lx->indent.open_line[lx->brackets.depth] = lx->indent.line_start;
        lx->indent.open_ends_line[lx->brackets.depth] = false;
    }
    lx->brackets.depth++;
    return true;
}

/* `{ a: 1,, b: 2 }`: a `,` or `;` right after another one in a block leaves an empty
 * member, an error as in JSON. Reported once per run, with a fix removing the extra
 * separators; the parser never sees them. Returns whether the token is dropped. */
COLD bool lexer_extra_separator(Lexer *lx, int kind, Loc loc)
{
    bool after_separator = lx->stream.prev == COMMA || lx->stream.prev == SEMI;
    if ((kind != COMMA && kind != SEMI) || !after_separator || lx->recovery.skipping ||
        lx->brackets.depth == 0 || lx->brackets.open_kind[lx->brackets.depth - 1] != LBRACE)
        return false;
    Diagnostic *d = lx->brackets.extra_separator;
    if (d && lx->brackets.extra_separator_end <= loc.start &&
        only_spaces(lx->base + lx->brackets.extra_separator_end, lx->base + loc.start)) {
        d->span.end = lx->origin + loc.end;
        d->fixes->span.end = d->span.end;
        lx->brackets.extra_separator_end = loc.end;
        return true;
    }
    d = lexer_report(lx, E0100, loc.start, loc.end, "expected a member, found `%c`",
                     kind == COMMA ? ',' : ';');
    lx->brackets.extra_separator = d;
    lx->brackets.extra_separator_end = loc.end;
    if (d) {
        diag_set_label(&lx->c->diags, d, "nothing between this and the previous separator");
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), "",
                     FIX_MAYBE_INCORRECT, "remove the extra separator");
    }
    return true;
}
