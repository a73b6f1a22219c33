/* The structure of a file (docs/editors.md, "Folding and selection ranges"), from its
 * syntax tree (a program's configuration, orbit.program, too): folding ranges (declarations and every block, lists over several lines,
 * runs of comment lines, `// region` … `// endregion`) and selection ranges (token →
 * expression → member → block → declaration → file). */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "memory.h"

/* ---- Folding ranges --------------------------------------------------------------- */

typedef enum FoldKind { FOLD_CODE, FOLD_COMMENT, FOLD_REGION } FoldKind;

typedef struct Fold {
    LspPosition start, end;
    FoldKind kind;
} Fold;

typedef struct Folds {
    Server *s;
    LineIndex *lines;
    const char *text;          /* the file's */
    uint32_t len, origin;
    Fold *items;
    uint32_t count, cap;
} Folds;

static LspPosition position(Folds *f, uint32_t offset)
{
    return lsp_line_index_position(f->lines, offset, f->s->encoding);
}

static void add_fold(Folds *f, LspPosition start, LspPosition end, FoldKind kind)
{
    if (end.line <= start.line)
        return;
    if (f->count == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 32;
        f->items = xrealloc(f->items, f->cap * sizeof *f->items);
    }
    f->items[f->count++] = (Fold){ start, end, kind };
}

/* Whether only blanks precede byte `at` on its line. */
static bool first_on_line(const Folds *f, uint32_t at)
{
    while (at > 0 && (f->text[at - 1] == ' ' || f->text[at - 1] == '\t'))
        at--;
    return at == 0 || f->text[at - 1] == '\n' || f->text[at - 1] == '\r';
}

/* Brackets `open` … `close` (file offsets of the two bytes): what lies between them
 * folds. A client that folds whole lines keeps the line of a closing bracket that starts
 * its line visible, as editors fold braces. */
static void fold_brackets(Folds *f, uint32_t open, uint32_t close)
{
    LspPosition start = position(f, open + 1), end = position(f, close);
    if (f->s->client_line_folding_only && first_on_line(f, close))
        end.line = end.line ? end.line - 1 : 0;
    add_fold(f, start, end, FOLD_CODE);
}

/* A span whose last byte is `bracket`: its brackets fold (a block the parser closed for a
 * missing `}` folds up to its end). */
static void fold_span(Folds *f, Span span, char bracket)
{
    uint32_t open = span.start - f->origin, end = span.end - f->origin;
    if (end <= open + 1 || end > f->len)
        return;
    fold_brackets(f, open, f->text[end - 1] == bracket ? end - 1 : end);
}

static void fold_block(Folds *f, const Block *b);

static void fold_expr(Folds *f, const Expr *e)
{
    if (!e)
        return;
    if (e->kind == EXPR_OBJECT) {
        fold_block(f, e->block);
        return;
    }
    if (e->kind == EXPR_LIST)
        fold_span(f, e->span, ']');
    for (uint32_t i = 0, n = expr_child_count(e); i < n; i++)
        fold_expr(f, expr_child(e, i));
}

static void fold_member(Folds *f, const Member *m)
{
    if (m->kind == MEMBER_ERROR)
        return;
    if (member_body(m))
        fold_block(f, member_body(m));
    else
        fold_expr(f, member_value(m));
}

static void fold_block(Folds *f, const Block *b)
{
    if (!b)
        return;
    fold_span(f, b->span, '}');
    for (const Member *m = block_first(b), *end = block_end(b); m != end; m++)
        fold_member(f, m);
}

/* "region" or "endregion" after `//` and blanks (and an optional `#`), as a word. */
static bool is_marker(const Comment *c, const char *word)
{
    const char *p = c->text + 2, *end = c->text + (c->span.end - c->span.start);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && *p == '#')
        p++;
    size_t n = strlen(word);
    if ((size_t)(end - p) < n || memcmp(p, word, n) != 0)
        return false;
    p += n;
    return p == end || !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                         (*p >= '0' && *p <= '9') || *p == '_');
}

enum {
    /* Regions open at once at most; a deeper `// region` is an ordinary comment. */
    REGION_DEPTH = 64,
};

/* Block comments over several lines; runs of two or more line comments, each alone on
 * its line, on consecutive lines; `// region` … `// endregion` (nested). */
static void fold_comments(Folds *f, const SourceAst *ast)
{
    uint32_t regions[REGION_DEPTH], open_regions = 0;
    bool in_run = false;
    LspPosition run_start = { 0, 0 }, run_end = { 0, 0 };
    for (uint32_t i = 0; ast && i < ast->comment_count; i++) {
        const Comment *c = &ast->comments[i];
        uint32_t at = c->span.start - f->origin;
        LspPosition start = position(f, at), end = position(f, c->span.end - f->origin);
        if (c->block) {
            add_fold(f, start, end, FOLD_COMMENT);
            continue;
        }
        bool alone = first_on_line(f, at);
        bool marker = alone && (is_marker(c, "region") || is_marker(c, "endregion"));
        bool continues = in_run && alone && !marker && start.line == run_end.line + 1;
        if (in_run && !continues)
            add_fold(f, run_start, run_end, FOLD_COMMENT);
        in_run = alone && !marker;
        if (in_run && !continues)
            run_start = start;
        run_end = start;
        if (marker && is_marker(c, "region") && open_regions < REGION_DEPTH)
            regions[open_regions++] = start.line;
        else if (marker && is_marker(c, "endregion") && open_regions > 0)
            add_fold(f, (LspPosition){ regions[--open_regions], 0 }, start, FOLD_REGION);
    }
    if (in_run)
        add_fold(f, run_start, run_end, FOLD_COMMENT);
}

static int by_start(const void *x, const void *y)
{
    const Fold *a = x, *b = y;
    if (a->start.line != b->start.line)
        return a->start.line < b->start.line ? -1 : 1;
    if (a->end.line != b->end.line)
        return a->end.line > b->end.line ? -1 : 1;     /* the outer one first */
    return a->start.character < b->start.character ? -1 : a->start.character > b->start.character;
}

static json_t *fold_json(const Server *s, const Fold *fold)
{
    static const char *const KINDS[] = { [FOLD_COMMENT] = "comment", [FOLD_REGION] = "region" };
    json_t *j = json_pack("{s:I, s:I}", "startLine", (json_int_t)fold->start.line,
                          "endLine", (json_int_t)fold->end.line);
    if (fold->kind == FOLD_CODE && !s->client_line_folding_only) {
        json_object_set_new(j, "startCharacter", json_integer(fold->start.character));
        json_object_set_new(j, "endCharacter", json_integer(fold->end.character));
    }
    if (fold->kind != FOLD_CODE)
        json_object_set_new(j, "kind", json_string(KINDS[fold->kind]));
    return j;
}

json_t *lsp_handle_folding_range(Server *s, json_t *params)
{
    uint32_t file;
    Analysis *a = lsp_source_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a)
        return NULL;
    const SourceFile *src = source_file(&a->c.sources, file);
    Folds f = { s, lsp_analysis_lines(a, file), src->text, src->len, src->origin, NULL, 0, 0 };
    const SourceAst *ast = file < a->c.ast_count ? a->c.asts[file] : NULL;
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++)
        fold_member(&f, m);
    fold_comments(&f, ast);
    if (f.count > 1)
        qsort(f.items, f.count, sizeof *f.items, by_start);
    json_t *out = json_array();
    uint32_t limit = s->folding_range_limit ? s->folding_range_limit : UINT32_MAX;
    for (uint32_t i = 0, sent = 0; i < f.count && sent < limit; i++) {
        /* folding whole lines, one range per first line: the outermost */
        if (s->client_line_folding_only && i > 0 &&
            f.items[i].start.line == f.items[i - 1].start.line)
            continue;
        json_array_append_new(out, fold_json(s, &f.items[i]));
        sent++;
    }
    free(f.items);
    return out;
}

/* ---- Selection ranges ------------------------------------------------------------- */

enum {
    /* Ranges of one chain at most: the file, two per level of nesting (AST_MAX_DEPTH), a
     * token and a comment. */
    CHAIN_MAX = 2 * AST_MAX_DEPTH + 8,
};

/* The spans around an offset, outermost first, each inside the one before. */
typedef struct Chain {
    uint32_t offset;
    Span spans[CHAIN_MAX];
    uint32_t count;
} Chain;

static void push(Chain *c, Span span)
{
    const Span *last = c->count ? &c->spans[c->count - 1] : NULL;
    if (span.end < span.start || c->count == CHAIN_MAX ||
        (last && (span.start < last->start || span.end > last->end ||
                  (span.start == last->start && span.end == last->end))))
        return;
    c->spans[c->count++] = span;
}

/* Whether the offset is in the span, or just after it (`touching`: a caret after a
 * word selects the word). */
static bool holds(const Chain *c, Span span, bool touching)
{
    return span.start <= c->offset && (c->offset < span.end ||
                                       (touching && c->offset == span.end));
}

static void select_block(Chain *c, const Block *b);

static void select_expr(Chain *c, const Expr *e)
{
    push(c, e->span);
    if (e->kind == EXPR_OBJECT) {
        if (e->block && holds(c, e->block->span, true))
            select_block(c, e->block);
        return;
    }
    if (e->kind == EXPR_FIELD && holds(c, expr_field_span(e), true)) {
        push(c, expr_field_span(e));
        return;
    }
    uint32_t n = expr_child_count(e);
    for (int touching = 0; touching < 2; touching++)
        for (uint32_t i = 0; i < n; i++) {
            const Expr *child = expr_child(e, i);
            if (child && holds(c, child->span, touching)) {
                select_expr(c, child);
                return;
            }
        }
}

static void select_member(Chain *c, const Member *m)
{
    push(c, m->span);
    const Expr *value = member_value(m);
    const Block *body = member_body(m);
    if (body && holds(c, body->span, true))
        select_block(c, body);
    else if (value && holds(c, value->span, true))
        select_expr(c, value);
    else if (holds(c, member_key_span(m), true))
        push(c, member_key_span(m));
    else if (m->name_end > m->name_start && holds(c, member_name_span(m), true))
        push(c, member_name_span(m));
}

/* The member that holds the offset (or that it touches), among an array. */
static const Member *member_at(const Chain *c, const Member *first, const Member *end)
{
    for (int touching = 0; touching < 2; touching++)
        for (const Member *m = first; m != end; m++)
            if (holds(c, m->span, touching))
                return m;
    return NULL;
}

static void select_block(Chain *c, const Block *b)
{
    if (!b)
        return;
    push(c, b->span);
    const Member *m = member_at(c, block_first(b), block_end(b));
    if (m)
        select_member(c, m);
}

static void select_comment(Chain *c, const SourceAst *ast)
{
    for (uint32_t i = 0; ast && i < ast->comment_count; i++)
        if (holds(c, ast->comments[i].span, false)) {
            push(c, ast->comments[i].span);
            return;
        }
}

static json_t *chain_json(Server *s, LineIndex *lines, const Chain *c, uint32_t origin)
{
    json_t *parent = NULL;
    for (uint32_t i = 0; i < c->count; i++) {
        json_t *range = json_pack("{s:o}", "range",
                                  lsp_line_range_json(s, lines, c->spans[i].start - origin,
                                                      c->spans[i].end - origin));
        if (parent)
            json_object_set_new(range, "parent", parent);
        parent = range;
    }
    return parent;
}

json_t *lsp_handle_selection_range(Server *s, json_t *params)
{
    uint32_t file;
    Analysis *a = lsp_source_for_uri(s, lsp_params_uri(s, params), &file);
    if (!a)
        return NULL;
    json_t *positions = lsp_json_object_member(params, "positions");
    if (!json_is_array(positions))
        return lsp_request_error(s, RPC_INVALID_PARAMS, "selectionRange needs positions");
    const SourceFile *src = source_file(&a->c.sources, file);
    const SourceAst *ast = file < a->c.ast_count ? a->c.asts[file] : NULL;
    LineIndex *lines = lsp_analysis_lines(a, file);
    json_t *out = json_array();
    size_t i;
    json_t *p;
    json_array_foreach(positions, i, p) {
        int64_t line, character;
        if (!lsp_json_integer_member(p, "line", &line) ||
            !lsp_json_integer_member(p, "character", &character) || line < 0 || character < 0) {
            json_decref(out);
            return lsp_request_error(s, RPC_INVALID_PARAMS, "positions[%zu] is not a position", i);
        }
        LspPosition at = { line > UINT32_MAX ? UINT32_MAX : (uint32_t)line,
                           character > UINT32_MAX ? UINT32_MAX : (uint32_t)character };
        Chain *c = xcalloc(1, sizeof *c);
        c->offset = src->origin + lsp_line_index_offset(lines, at, s->encoding);
        push(c, span_make(src->origin, src->origin + src->len));
        const Member *decl = member_at(c, ast_first(ast), ast_end(ast));
        if (decl)
            select_member(c, decl);
        select_comment(c, ast);
        json_array_append_new(out, chain_json(s, lines, c, src->origin));
        free(c);
    }
    return out;
}
