/* The formatter's guarantees, checked on one text (fmt_properties.h). */
#include "fmt_properties.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "format.h"
#include "lexer.h"
#include "memory.h"
#include "parse.h"
#include "source.h"
#include "workspace.h"

typedef struct Check {
    Compiler c;
    uint32_t a, b;              /* the original and the formatted file */
    char *why;
    size_t why_size;
    bool broken;
} Check;

static bool fail(Check *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(Check *k, const char *fmt, ...)
{
    if (!k->broken) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(k->why, k->why_size, fmt, args);
        va_end(args);
    }
    k->broken = true;
    return false;
}

static const SourceFile *file_of(Check *k, uint32_t file)
{
    return source_file(&k->c.sources, file);
}

/* ---- the same tokens ---- */

typedef struct Tokens {
    int *kinds;
    Loc *locs;
    uint32_t count, cap;
} Tokens;

/* Every token of the file but separators (`,` `;` and significant line ends). */
static Tokens lex_tokens(Check *k, uint32_t file)
{
    Tokens t = { 0 };
    Lexer *lx = xmalloc(sizeof *lx);
    lexer_init(lx, &k->c, file);
    YYSTYPE value;
    Loc loc;
    int kind;
    while ((kind = lexer_next(lx, &value, &loc)) != END) {
        if (kind == NEWLINE || kind == COMMA || kind == SEMI)
            continue;
        if (t.count == t.cap) {
            t.cap = t.cap ? t.cap * 2 : 256;
            t.kinds = xrealloc(t.kinds, t.cap * sizeof *t.kinds);
            t.locs = xrealloc(t.locs, t.cap * sizeof *t.locs);
        }
        t.kinds[t.count] = kind;
        t.locs[t.count++] = loc;
    }
    lexer_free(lx);
    free(lx);
    return t;
}

static bool same_tokens(Check *k)
{
    Tokens x = lex_tokens(k, k->a), y = lex_tokens(k, k->b);
    const char *tx = file_of(k, k->a)->text, *ty = file_of(k, k->b)->text;
    bool same = true;
    for (uint32_t i = 0; same && i < x.count && i < y.count; i++) {
        uint32_t lx = x.locs[i].end - x.locs[i].start, ly = y.locs[i].end - y.locs[i].start;
        if (x.kinds[i] != y.kinds[i] || lx != ly ||
            memcmp(tx + x.locs[i].start, ty + y.locs[i].start, lx) != 0)
            same = fail(k, "token %u differs: `%.*s` at byte %u became `%.*s` at byte %u", i,
                        (int)lx, tx + x.locs[i].start, x.locs[i].start, (int)ly,
                        ty + y.locs[i].start, y.locs[i].start);
    }
    if (same && x.count != y.count)
        same = fail(k, "%u tokens became %u", x.count, y.count);
    free(x.kinds);
    free(x.locs);
    free(y.kinds);
    free(y.locs);
    return same;
}

/* ---- the same tree ---- */

static bool same_block(const Block *x, const Block *y);

/* The payloads of two nodes of one kind, their children aside. */
static bool same_node(const Expr *x, const Expr *y)
{
    switch (x->kind) {
    case EXPR_INT: case EXPR_DURATION:
        return x->integer == y->integer;
    case EXPR_NUMBER:
        return memcmp(&x->number, &y->number, sizeof x->number) == 0;
    case EXPR_STRING:
        return x->len == y->len && memcmp(x->text, y->text, x->len) == 0;
    case EXPR_BOOL:
        return x->boolean == y->boolean;
    case EXPR_NAME:
        return x->name == y->name;
    case EXPR_FIELD:
        return x->field == y->field;
    case EXPR_OBJECT:
        return same_block(x->block, y->block);
    default:
        return true;
    }
}

static bool same_expr(const Expr *x, const Expr *y)
{
    if (!x || !y)
        return x == y;
    if (x->kind != y->kind || x->op != y->op || !same_node(x, y))
        return false;
    uint32_t n = expr_child_count(x);
    if (n != expr_child_count(y))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!same_expr(expr_child(x, i), expr_child(y, i)))
            return false;
    return true;
}

static bool same_member(const Member *x, const Member *y)
{
    if (x->kind != y->kind || x->keyword != y->keyword || x->assign != y->assign ||
        x->name != y->name || !same_expr(member_value(x), member_value(y)))
        return false;
    if (x->kind == MEMBER_CLAUSE && x->keyword == KW_NONE && x->key != y->key)
        return false;
    if (!member_body(x) || !member_body(y))
        return member_body(x) == member_body(y);
    return same_block(member_body(x), member_body(y));
}

static bool same_members(const Member *x, const Member *y, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (!same_member(&x[i], &y[i]))
            return false;
    return true;
}

static bool same_block(const Block *x, const Block *y)
{
    return x->count == y->count && same_members(x->members, y->members, x->count);
}

/* ---- the same comments ---- */

/* Spaces within a line (line ends: base/source.h). */
static bool blank_char(char c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

/* A comment's text with each line's leading and trailing spaces and its line end left
 * out (the formatter re-indents a block comment's lines and trims their ends). */
static size_t normal_comment(const Comment *c, char *out)
{
    size_t n = 0, len = c->span.end - c->span.start;
    const char *text = c->text;
    for (size_t i = 0; i < len;) {
        const char *eol = source_find_eol(text + i, text + len);
        size_t end = (size_t)(eol - text);
        size_t from = i, to = end;
        while (from < to && blank_char(text[from]))
            from++;
        while (to > from && blank_char(text[to - 1]))
            to--;
        if (i > 0)
            out[n++] = '\n';
        memcpy(out + n, text + from, to - from);
        n += to - from;
        i = end + (end < len ? source_eol_len(eol, text + len) : 1);
    }
    return n;
}

static bool same_comments(Check *k, const SourceAst *x, const SourceAst *y)
{
    if (x->comment_count != y->comment_count)
        return fail(k, "%u comments became %u", x->comment_count, y->comment_count);
    for (uint32_t i = 0; i < x->comment_count; i++) {
        const Comment *cx = &x->comments[i], *cy = &y->comments[i];
        char *nx = xmalloc(cx->span.end - cx->span.start + 1);
        char *ny = xmalloc(cy->span.end - cy->span.start + 1);
        size_t lx = normal_comment(cx, nx), ly = normal_comment(cy, ny);
        bool same = lx == ly && memcmp(nx, ny, lx) == 0 && cx->block == cy->block;
        if (!same)
            fail(k, "comment %u changed: `%.*s` became `%.*s`", i, (int)lx, nx, (int)ly, ny);
        free(nx);
        free(ny);
        if (!same)
            return false;
    }
    return true;
}

/* ---- the layout ---- */

/* Whether the line starting at byte `line` of `text` lies inside one of the file's block
 * comments, after its first line: its text is the comment's, which the formatter keeps
 * (blank lines included). `*next` walks the comments, which are in source order, as the
 * lines do. */
static bool inside_block_comment(const SourceAst *ast, const char *text, size_t line,
                                 uint32_t *next)
{
    while (*next < ast->comment_count) {
        const Comment *c = &ast->comments[*next];
        size_t start = (size_t)(c->text - text), end = start + (c->span.end - c->span.start);
        if (end > line)
            return c->block && start < line;
        (*next)++;
    }
    return false;
}

static bool laid_out(Check *k, const SourceAst *ast)
{
    const SourceFile *file = file_of(k, k->b);
    const char *text = file->text;
    size_t len = file->len;
    size_t start = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    if (len == start)
        return true;
    if (!source_is_eol(text[len - 1]))
        return fail(k, "the formatted text does not end with a line end");
    int style = -1;                  /* 0: "\n", 1: a lone "\r", 2: "\r\n" */
    uint32_t line = 1, comment = 0;
    bool previous_blank = true;      /* no blank line at the start */
    for (size_t i = start; i < len; line++) {
        const char *eol = source_find_eol(text + i, text + len);
        size_t content = (size_t)(eol - text);
        uint32_t eol_len = source_eol_len(eol, text + len);
        int kind = eol_len == 2 ? 2 : *eol == '\r';
        if (style < 0)
            style = kind;
        if (kind != style)
            return fail(k, "line %u: line ends of two styles", line);
        if (content > i && blank_char(text[content - 1]))
            return fail(k, "line %u ends with a space", line);
        /* A blank line inside a block comment is the comment's text, not layout. */
        bool blank = content == i && !inside_block_comment(ast, text, i, &comment);
        if (blank && previous_blank)
            return fail(k, "line %u: a blank line %s", line, line == 1 ? "at the start" : "after another");
        previous_blank = blank;
        i = content + eol_len;
    }
    if (previous_blank)
        return fail(k, "a blank line at the end");
    return true;
}

/* ---- range formatting ---- */

/* Formatting the declarations that the middle third of the text touches, then the whole
 * result, gives the whole text formatted. */
static bool range_agrees(Check *k, const char *text, size_t len, const FormatText *whole)
{
    FormatEdit edit;
    uint32_t start = (uint32_t)(len / 3), end = (uint32_t)(2 * len / 3);
    if (!format_range(NULL, text, len, start, end, &edit))
        return fail(k, "range formatting refuses a text that parses");
    size_t removed = edit.end - edit.start, n = len - removed + edit.replacement.len;
    char *edited = xmalloc(n + 1);
    memcpy(edited, text, edit.start);
    if (edit.replacement.len)
        memcpy(edited + edit.start, edit.replacement.text, edit.replacement.len);
    memcpy(edited + edit.start + edit.replacement.len, text + edit.end, len - edit.end);
    FormatText again = { 0 };
    bool same = format_text(NULL, edited, n, &again) && again.len == whole->len &&
                memcmp(again.text, whole->text, whole->len) == 0;
    format_text_free(&again);
    format_text_free(&edit.replacement);
    free(edited);
    return same || fail(k, "range formatting of bytes %u-%u, then the whole, differs from the whole",
                        start, end);
}

/* ---- the same diagnostics ---- */

/* What `check` reports, positions aside: each diagnostic's code and message, before the
 * inline suppressions and after them (so which ones are silenced, and the problems of
 * the suppressions themselves), each list sorted so that positions do not order it.
 *
 * A message is compared without its spaces, line ends and separators `,` `;`, and only
 * those: a message may quote a short expression's source text (E0504, `source_text` in
 * compiler/check/check_types.c), which is quoted or not whatever the layout but keeps
 * the spacing and separators it is written with, and those are what fmt changes (the
 * tokens are compared without separators above, too). */
typedef struct Reports {
    char **before, **after;
    uint32_t before_count, after_count;
} Reports;

static int compare_texts(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "CODE:MESSAGE" with the message's layout and separators left out. */
static char *report_text(const Diagnostic *d)
{
    const char *code = diag_info(d->code)->code;
    size_t n = strlen(code);
    char *text = xmalloc(n + strlen(d->message) + 2);
    memcpy(text, code, n);
    text[n++] = ':';
    for (const char *m = d->message; *m; m++)
        if (!blank_char(*m) && *m != '\n' && *m != ',' && *m != ';')
            text[n++] = *m;
    text[n] = '\0';
    return text;
}

static char **report_texts(const DiagSink *sink, uint32_t *count)
{
    char **texts = xmalloc((sink->count + 1) * sizeof *texts);
    for (uint32_t i = 0; i < sink->count; i++)
        texts[i] = report_text(sink->items[i]);
    *count = sink->count;
    if (*count > 1)
        qsort(texts, *count, sizeof *texts, compare_texts);
    return texts;
}

/* The diagnostics of the text alone as a program (with the standard library), under one
 * file name whatever the text, through the pipeline `orbitc check` runs
 * (workspace_check); with `suppressions` false, before `// orbit:allow` is applied. */
static char **pipeline_texts(const char *text, size_t len, bool suppressions, uint32_t *count)
{
    Compiler c;
    compiler_init(&c);
    Workspace w;
    workspace_init(&w, &c, false);
    w.check.check_only = true;
    w.check.ignore_suppressions = !suppressions;
    workspace_add_text(&w, "input.orbit", xstrndup(text, len), len);
    workspace_check(&w);
    char **texts = report_texts(&c.diags, count);
    workspace_free(&w);
    compiler_free(&c);
    return texts;
}

static Reports check_reports(const char *text, size_t len)
{
    Reports r = { 0 };
    r.before = pipeline_texts(text, len, false, &r.before_count);
    r.after = pipeline_texts(text, len, true, &r.after_count);
    return r;
}

static void free_texts(char **texts, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        free(texts[i]);
    free(texts);
}

/* The first text of one list that the other lacks, or NULL when they are the same. */
static const char *first_difference(char **x, uint32_t nx, char **y, uint32_t ny,
                                    const char **gained)
{
    uint32_t i = 0, j = 0;
    *gained = NULL;
    while (i < nx || j < ny) {
        int order = i == nx ? 1 : j == ny ? -1 : strcmp(x[i], y[j]);
        if (order == 0) {
            i++;
            j++;
        } else if (order < 0) {
            return x[i];
        } else {
            *gained = y[j];
            return y[j];
        }
    }
    return NULL;
}

static bool same_list(Check *k, const char *when, char **x, uint32_t nx, char **y, uint32_t ny)
{
    const char *gained;
    const char *text = first_difference(x, nx, y, ny, &gained);
    if (!text)
        return true;
    return fail(k, "the diagnostics %s differ: formatting %s `%s`", when,
                gained ? "brings" : "loses", text);
}

static bool same_diagnostics(Check *k, const char *text, size_t len, const FormatText *formatted)
{
    Reports x = check_reports(text, len), y = check_reports(formatted->text, formatted->len);
    bool same = same_list(k, "before the suppressions", x.before, x.before_count, y.before,
                          y.before_count) &&
                same_list(k, "after the suppressions", x.after, x.after_count, y.after,
                          y.after_count);
    free_texts(x.before, x.before_count);
    free_texts(x.after, x.after_count);
    free_texts(y.before, y.before_count);
    free_texts(y.after, y.after_count);
    return same;
}

/* ---- all together ---- */

static uint32_t add_copy(Check *k, const char *name, const char *text, size_t len)
{
    return compiler_add_source(&k->c, name, xstrndup(text, len), (uint32_t)len);
}

FmtVerdict fmt_check_properties(const char *text, size_t len, char *why, size_t why_size)
{
    if (len > SOURCE_MAX_FILE_SIZE)
        return FMT_NOT_PARSED;
    Check k = { .why = why, .why_size = why_size };
    compiler_init(&k.c);
    k.a = add_copy(&k, "original.orbit", text, len);
    FormatText once = { 0 }, twice = { 0 };
    FmtVerdict verdict = FMT_HOLDS;
    if (!format_file(&k.c, k.a, &once, NULL)) {
        verdict = FMT_NOT_PARSED;
    } else {
        k.b = add_copy(&k, "formatted.orbit", once.text, once.len);
        if (!format_file(&k.c, k.b, &twice, NULL))
            fail(&k, "the formatted text does not parse");
        else if (twice.len != once.len || memcmp(twice.text, once.text, once.len) != 0)
            fail(&k, "formatting the formatted text changes it (not idempotent)");
        else if (same_tokens(&k)) {
            const SourceAst *x = parse_source(&k.c, k.a), *y = parse_source(&k.c, k.b);
            if (x->count != y->count || !same_members(x->decls, y->decls, x->count))
                fail(&k, "the syntax tree changed");
            else if (laid_out(&k, y) && same_comments(&k, x, y) &&
                     range_agrees(&k, text, len, &once))
                same_diagnostics(&k, text, len, &once);
        }
        if (k.broken)
            verdict = FMT_BROKEN;
    }
    format_text_free(&once);
    format_text_free(&twice);
    compiler_free(&k.c);
    return verdict;
}
