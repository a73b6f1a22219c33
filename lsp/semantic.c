/* Semantic tokens (textDocument/semanticTokens/full, /full/delta and /range): every token
 * of the compiler's own lexer (compiler/syntax/lexer.h, lexer_tokens) coloured by what
 * the checked program says its names mean (query.c, the occurrences that hover and
 * go-to-definition use). The legend is docs/editors.md's table, "Semantic tokens".
 *
 * One pass: the occurrences of the file are collected and sorted by start, the lexer's
 * tokens arrive in source order and each is matched to the occurrence that covers it;
 * comments are split per line, with the codes of an `orbit:allow(…)` directive cut out
 * of them. The tokens are then encoded as the protocol's relative five-number groups in
 * the negotiated position encoding. The last result of each document is kept with its
 * resultId for /full/delta, which sends one edit: what lies between the common prefix
 * and the common suffix of the old and new data. */
#include "server.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "policy.h"
#include "query.h"
#include "suppress.h"
#include "types.h"

/* The legend: token types and modifiers, in the order of their numbers. */
typedef enum TokenType {
    TT_KEYWORD,
    TT_FUNCTION,          /* a workflow; a function of the standard library */
    TT_VARIABLE,          /* a step (its result, readonly) */
    TT_PARAMETER,         /* `input`, a `for` variable (readonly) */
    TT_TYPE,
    TT_PROPERTY,          /* a field, a key, a retry setting */
    TT_ENUM_MEMBER,       /* a backoff (`exponential`), a runtime error code */
    TT_STRING,            /* a string; a worker's name (modifier `worker`) */
    TT_NUMBER,            /* a number; a duration (modifier `duration`) */
    TT_OPERATOR,
    TT_COMMENT,
    TT_DIAGNOSTIC_CODE,   /* a code in an `orbit:allow(…)` comment */
    TT_COUNT,
    TT_NONE = TT_COUNT,   /* punctuation and stray characters get no token */
} TokenType;

static const char *const TOKEN_TYPES[TT_COUNT] = {
    "keyword", "function", "variable", "parameter", "type", "property", "enumMember",
    "string", "number", "operator", "comment", "diagnosticCode",
};

enum {
    MOD_DECLARATION = 1 << 0,
    MOD_READONLY = 1 << 1,
    MOD_DEFAULT_LIBRARY = 1 << 2,
    MOD_WORKER = 1 << 3,          /* names a task: a worker's string, a built-in task */
    MOD_DURATION = 1 << 4,        /* a number that is a duration */
    MOD_COUNT = 5,
};

static const char *const TOKEN_MODIFIERS[MOD_COUNT] = {
    "declaration", "readonly", "defaultLibrary", "worker", "duration",
};

json_t *lsp_semantic_legend(void)
{
    json_t *types = json_array(), *modifiers = json_array();
    for (int i = 0; i < TT_COUNT; i++)
        json_array_append_new(types, json_string(TOKEN_TYPES[i]));
    for (int i = 0; i < MOD_COUNT; i++)
        json_array_append_new(modifiers, json_string(TOKEN_MODIFIERS[i]));
    return json_pack("{s:{s:o, s:o}, s:b, s:{s:b}}", "legend", "tokenTypes", types,
                     "tokenModifiers", modifiers, "range", 1, "full", "delta", 1);
}

/* A coloured piece of the text: bytes [start, end), on one line. */
typedef struct Piece {
    uint32_t start, end;
    uint16_t type;
    uint16_t modifiers;
} Piece;

/* What an occurrence of a name colours: its file bytes, type and modifiers. */
typedef struct Colour {
    uint32_t start, end;
    uint16_t type;
    uint16_t modifiers;
} Colour;

typedef struct Painter {
    Analysis *a;                 /* NULL: the lexer's tokens alone */
    uint32_t origin;             /* of the file's byte 0 in the analysis */
    const char *text;
    uint32_t len;
    uint32_t range_start, range_end;   /* pieces kept: those starting in this range */

    Colour *colours;             /* the occurrences, sorted by start */
    uint32_t colour_count, colour_cap;
    uint32_t next_colour;        /* the first not yet looked at */
    uint32_t covering;           /* the last one looked at that covers the current token */

    int prev_kind, prev2_kind;   /* the two tokens before (for a backoff's value) */
    uint32_t prev_start, prev_end, prev2_start, prev2_end;

    Piece *pieces;
    uint32_t piece_count, piece_cap;
} Painter;

/* ---- The occurrences of names --------------------------------------------------- */

static bool declared_in_stdlib(Analysis *a, const Symbol *symbol)
{
    Span at;
    return !lsp_symbol_declaration(a, symbol, &at) ||
           source_file_at(&a->c.sources, at.start) == 0;
}

/* The colour of an occurrence, TT_NONE for one that keeps the token's own (a keyword). */
static Colour colour_of(Analysis *a, const Occurrence *o)
{
    Colour c = { 0, 0, TT_NONE, o->declaration ? MOD_DECLARATION : 0 };
    switch (o->symbol.kind) {
    case SYM_WORKFLOW: c.type = TT_FUNCTION; break;
    case SYM_STEP: c.type = TT_VARIABLE; c.modifiers |= MOD_READONLY; break;
    case SYM_FOR_VAR:
    case SYM_INPUT: c.type = TT_PARAMETER; c.modifiers |= MOD_READONLY; break;
    case SYM_WORKER: c.type = TT_STRING; c.modifiers |= MOD_WORKER; break;
    case SYM_BUILTIN: c.type = TT_STRING; c.modifiers |= MOD_WORKER | MOD_DEFAULT_LIBRARY; break;
    case SYM_TYPE:
        c.type = TT_TYPE;
        if (declared_in_stdlib(a, &o->symbol))
            c.modifiers |= MOD_DEFAULT_LIBRARY;
        break;
    case SYM_FIELD:
    case SYM_SETTING: c.type = TT_PROPERTY; break;
    case SYM_FUNCTION: c.type = TT_FUNCTION; c.modifiers |= MOD_DEFAULT_LIBRARY; break;
    case SYM_ERROR_CODE: c.type = TT_ENUM_MEMBER; c.modifiers |= MOD_DEFAULT_LIBRARY; break;
    case SYM_SIGNAL: c.type = TT_STRING; break;
    case SYM_NONE:
    case SYM_KEYWORD: break;
    }
    return c;
}

static bool collect_colour(void *user, const Occurrence *o)
{
    Painter *p = user;
    Colour c = colour_of(p->a, o);
    if (c.type == TT_NONE)
        return true;
    c.start = o->span.start - p->origin;
    c.end = o->span.end - p->origin;
    if (p->colour_count == p->colour_cap) {
        p->colour_cap = p->colour_cap ? p->colour_cap * 2 : 256;
        p->colours = xrealloc(p->colours, p->colour_cap * sizeof *p->colours);
    }
    p->colours[p->colour_count++] = c;
    return true;
}

static int colour_order(const void *x, const void *y)
{
    const Colour *a = x, *b = y;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->end > b->end ? -1 : a->end < b->end;   /* the enclosing one first */
}

static void collect_colours(Painter *p, uint32_t file)
{
    if (!p->a)
        return;
    lsp_query_walk_file(p->a, file, collect_colour, p);
    if (p->colour_count > 1)         /* qsort's array may not be NULL, even when empty */
        qsort(p->colours, p->colour_count, sizeof *p->colours, colour_order);
    p->covering = NO_INDEX;
}

/* The occurrence that covers bytes [start, end) (tokens arrive in source order), or
 * NULL. */
static const Colour *colour_covering(Painter *p, uint32_t start, uint32_t end)
{
    for (; p->next_colour < p->colour_count && p->colours[p->next_colour].start <= start;
         p->next_colour++)
        if (p->colours[p->next_colour].end >= end)
            p->covering = p->next_colour;
    if (p->covering == NO_INDEX)
        return NULL;
    const Colour *c = &p->colours[p->covering];
    return c->start <= start && end <= c->end ? c : NULL;
}

/* ---- Pieces --------------------------------------------------------------------- */

static void add_piece(Painter *p, uint32_t start, uint32_t end, TokenType type,
                      unsigned modifiers)
{
    if (type == TT_NONE || start >= end || start < p->range_start || start >= p->range_end)
        return;
    if (p->piece_count == p->piece_cap) {
        p->piece_cap = p->piece_cap ? p->piece_cap * 2 : 1024;
        p->pieces = xrealloc(p->pieces, p->piece_cap * sizeof *p->pieces);
    }
    p->pieces[p->piece_count++] = (Piece){ start, end, (uint16_t)type, (uint16_t)modifiers };
}

/* A token that may span lines (a block comment): one piece per line, line ends left
 * out (base/source.h: LF, CRLF or a lone CR). */
static void add_lines(Painter *p, uint32_t start, uint32_t end, TokenType type,
                      unsigned modifiers)
{
    while (start < end) {
        const char *eol = source_find_eol(p->text + start, p->text + end);
        uint32_t line_end = (uint32_t)(eol - p->text);
        add_piece(p, start, line_end, type, modifiers);
        start = line_end < end ? line_end + source_eol_len(eol, p->text + end) : end;
    }
}

static bool is_code_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* A comment: the codes of an `orbit:allow(…)` directive (docs/diagnostics.md, "Inline
 * suppressions") that name a diagnostic are cut out as diagnosticCode pieces. */
static void add_comment(Painter *p, uint32_t start, uint32_t end)
{
    uint32_t list, list_end;
    if (!suppress_directive_list(p->text + start, end - start, p->text[start] == '/' &&
                                 end - start > 1 && p->text[start + 1] == '*', &list,
                                 &list_end)) {
        add_lines(p, start, end, TT_COMMENT, 0);
        return;
    }
    uint32_t at = start + list;
    uint32_t from = start;
    uint32_t stop = start + list_end;    /* the `)`, or the comment's end */
    for (; at < stop && p->text[at] != '\n' && p->text[at] != '\r'; at++) {
        uint32_t word = at;
        while (at < stop && is_code_char(p->text[at]))
            at++;
        char code[8] = "";
        if (at - word < sizeof code) {
            memcpy(code, p->text + word, at - word);
            code[at - word] = '\0';
        }
        if (at > word && diag_code_from_string(code) >= 0) {
            add_lines(p, from, word, TT_COMMENT, 0);
            add_piece(p, word, at, TT_DIAGNOSTIC_CODE, 0);
            from = at;
        }
        if (at == stop)
            break;
    }
    add_lines(p, from, end, TT_COMMENT, 0);
}

static bool is_operator(int kind)
{
    switch (kind) {
    case QUESTION: case QQ: case OROR: case ANDAND: case EQ: case NE: case LT: case LE:
    case GT: case GE: case PLUS: case MINUS: case STAR: case SLASH: case PERCENT: case BANG:
    case ASSIGN:
        return true;
    default:
        return false;
    }
}

static bool is_keyword(int kind)
{
    return kind >= T_WORKFLOW && kind <= T_NULL;
}

/* `backoff: exponential`: the value is one of the backoffs. */
static bool is_backoff_value(const Painter *p, uint32_t start, uint32_t end)
{
    if (p->prev_kind != COLON || p->prev2_kind != IDENT ||
        p->prev2_end - p->prev2_start != strlen(RETRY_SETTING_NAMES[SET_BACKOFF]) ||
        memcmp(p->text + p->prev2_start, RETRY_SETTING_NAMES[SET_BACKOFF],
               p->prev2_end - p->prev2_start) != 0)
        return false;
    for (size_t i = 0; i < sizeof BACKOFF_NAMES / sizeof BACKOFF_NAMES[0]; i++)
        if (strlen(BACKOFF_NAMES[i]) == end - start &&
            memcmp(p->text + start, BACKOFF_NAMES[i], end - start) == 0)
            return true;
    return false;
}

/* `string`, `int` …: the built-in types are no declaration's, so no occurrence's. */
static bool is_builtin_type(const char *text, uint32_t len)
{
    for (int i = 0; i < BUILTIN_TYPE_COUNT; i++)
        if (strlen(BUILTIN_TYPE_NAMES[i]) == len && memcmp(BUILTIN_TYPE_NAMES[i], text, len) == 0)
            return true;
    return false;
}

/* The colour of a token the program says nothing about. */
static TokenType own_type(const Painter *p, int kind, uint32_t start, uint32_t end,
                          unsigned *modifiers)
{
    if (is_keyword(kind))
        return TT_KEYWORD;
    if (is_operator(kind))
        return TT_OPERATOR;
    switch (kind) {
    case STRING: return TT_STRING;
    case INT:
    case NUMBER: return TT_NUMBER;
    case DURATION: *modifiers |= MOD_DURATION; return TT_NUMBER;
    case IDENT:
        if (is_backoff_value(p, start, end))
            return TT_ENUM_MEMBER;
        return TT_VARIABLE;      /* a name the program does not know (an error) */
    default: return TT_NONE;     /* punctuation, stray characters */
    }
}

static void paint_token(void *user, uint32_t start, uint32_t end, int kind)
{
    Painter *p = user;
    if (kind == LEXER_COMMENT) {
        add_comment(p, start, end);
        return;
    }
    unsigned modifiers = 0;
    TokenType type = own_type(p, kind, start, end, &modifiers);
    const Colour *c = type != TT_NONE && type != TT_OPERATOR ? colour_covering(p, start, end)
                                                            : NULL;
    if (c && c->modifiers & MOD_WORKER) {
        /* a task's name: a string (`worker "payments.charge"`), or words, a habit of
         * other languages the checker reports (`using orbit.http.request`) */
        if (kind == STRING || kind == IDENT) {
            type = kind == STRING ? TT_STRING : TT_FUNCTION;
            modifiers = c->modifiers;
        }
    } else if (c) {
        type = (TokenType)c->type;
        modifiers = c->modifiers;
    } else if (kind == IDENT && type == TT_VARIABLE && p->prev_kind != DOT) {
        /* a key the program does not know (`name:`), a built-in type */
        const char *q = p->text + end;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == ':')
            type = TT_PROPERTY;
        else if (is_builtin_type(p->text + start, end - start)) {
            type = TT_TYPE;
            modifiers = MOD_DEFAULT_LIBRARY;
        }
    }
    add_lines(p, start, end, type, modifiers);   /* a string never closed runs to its line end */
    p->prev2_kind = p->prev_kind;
    p->prev2_start = p->prev_start;
    p->prev2_end = p->prev_end;
    p->prev_kind = kind;
    p->prev_start = start;
    p->prev_end = end;
}

/* ---- A document's tokens -------------------------------------------------------- */

/* The pieces of bytes [range_start, range_end) of a document: of its file in the
 * analysis, or (a == NULL) of a text no program holds, by the lexer alone. */
static void paint(Painter *p, uint32_t file)
{
    collect_colours(p, file);
    lexer_tokens(p->text, p->len, paint_token, p);
}

static void painter_free(Painter *p)
{
    free(p->colours);
    free(p->pieces);
}

/* The protocol's encoding of the pieces: five numbers each (line and start relative to
 * the piece before, length, type, modifiers), appended to *data. */
typedef struct TokenData {
    uint32_t *items;
    uint32_t count;
} TokenData;

static TokenData encode(Server *s, const Painter *p, LineIndex *lines)
{
    TokenData data = { xmalloc(((size_t)p->piece_count * 5 + 1) * sizeof *data.items), 0 };
    LspPosition last = { 0, 0 };
    LineCursor cursor;
    lsp_line_cursor_init(&cursor, lines, s->encoding);
    for (uint32_t i = 0; i < p->piece_count; i++) {
        const Piece *piece = &p->pieces[i];
        LspPosition from = lsp_line_cursor_position(&cursor, piece->start);
        LspPosition to = lsp_line_cursor_position(&cursor, piece->end);
        if (to.line != from.line || to.character <= from.character)
            continue;   /* cannot happen: pieces lie on one line */
        uint32_t *out = data.items + data.count;
        out[0] = from.line - last.line;
        out[1] = from.line == last.line ? from.character - last.character : from.character;
        out[2] = to.character - from.character;
        out[3] = piece->type;
        out[4] = piece->modifiers;
        data.count += 5;
        last = from;
    }
    return data;
}

/* The tokens of a request's document, in bytes [start, end) when `range` is given (else
 * the whole text). False after lsp_request_error. */
static bool document_tokens(Server *s, const json_t *params, bool range, TokenData *out)
{
    const char *uri = lsp_params_uri(s, params);
    Document *d = lsp_document_find(s, uri);
    Painter p = { 0 };
    LineIndex own_lines = { 0 };
    LineIndex *lines;
    uint32_t file = 0;
    if (d && d->open && lsp_is_stdlib_copy(s, d->path)) {
        /* the read-only copy of the standard library: never checked, the lexer alone */
        p.text = d->text;
        p.len = d->len;
        lsp_line_index_build(&own_lines, d->text, d->len);
        lines = &own_lines;
    } else {
        p.a = lsp_analysis_for_uri(s, uri, &file);
        if (!p.a)
            return false;
        const SourceFile *source = source_file(&p.a->c.sources, file);
        p.origin = source->origin;
        p.text = source->text;
        p.len = source->len;
        lines = lsp_analysis_lines(p.a, file);
    }
    p.range_end = UINT32_MAX;
    if (range) {
        LspPosition from, to;
        if (!lsp_read_range(lsp_json_object_member(params, "range"), &from, &to)) {
            lsp_line_index_free(&own_lines);
            lsp_request_error(s, RPC_INVALID_PARAMS, "semanticTokens/range needs a range");
            return false;
        }
        p.range_start = lsp_line_index_offset(lines, from, s->encoding);
        p.range_end = lsp_line_index_offset(lines, to, s->encoding);
    }
    paint(&p, file);
    *out = encode(s, &p, lines);
    painter_free(&p);
    lsp_line_index_free(&own_lines);
    return true;
}

/* Keeps `data` as the document's last result (when the document is open) and makes it
 * the answer's last array; returns its resultId. */
static json_t *remember(Server *s, const json_t *params, TokenData data)
{
    Document *d = lsp_document_find(s, lsp_params_uri(s, params));
    char id[24];
    snprintf(id, sizeof id, "%llu", (unsigned long long)++s->semantic_results);
    if (!d || !d->open) {
        lsp_answer_integers(s, data.items, data.count, data.items);
        return json_string(id);
    }
    free(d->semantic.items);
    d->semantic.items = data.items;
    d->semantic.count = data.count;
    d->semantic.result_id = s->semantic_results;
    lsp_answer_integers(s, data.items, data.count, NULL);
    return json_string(id);
}

json_t *lsp_handle_semantic_tokens_full(Server *s, json_t *params)
{
    TokenData data;
    if (!document_tokens(s, params, false, &data))
        return NULL;
    return json_pack("{s:o, s:[]}", "resultId", remember(s, params, data), "data");
}

json_t *lsp_handle_semantic_tokens_range(Server *s, json_t *params)
{
    TokenData data;
    if (!document_tokens(s, params, true, &data))
        return NULL;
    lsp_answer_integers(s, data.items, data.count, data.items);
    return json_pack("{s:[]}", "data");
}

/* The one edit that turns the previous data into the new: what lies between their
 * common prefix and common suffix. */
typedef struct TokenEdit {
    uint32_t start, delete_count, insert_count;
} TokenEdit;

static TokenEdit delta_edit(const SemanticResult *old, const TokenData *new)
{
    uint32_t prefix = 0;
    while (prefix < old->count && prefix < new->count &&
           old->items[prefix] == new->items[prefix])
        prefix++;
    uint32_t suffix = 0;
    while (suffix < old->count - prefix && suffix < new->count - prefix &&
           old->items[old->count - 1 - suffix] == new->items[new->count - 1 - suffix])
        suffix++;
    return (TokenEdit){ prefix, old->count - prefix - suffix, new->count - prefix - suffix };
}

json_t *lsp_handle_semantic_tokens_delta(Server *s, json_t *params)
{
    const char *previous = lsp_json_string_member(params, "previousResultId");
    TokenData data;
    if (!document_tokens(s, params, false, &data))
        return NULL;
    Document *d = lsp_document_find(s, lsp_params_uri(s, params));
    char id[24] = "";
    if (d && d->open && d->semantic.items)
        snprintf(id, sizeof id, "%llu", (unsigned long long)d->semantic.result_id);
    if (!previous || !id[0] || strcmp(previous, id) != 0) {
        /* a result this server no longer has: the whole data */
        return json_pack("{s:o, s:[]}", "resultId", remember(s, params, data), "data");
    }
    TokenEdit edit = delta_edit(&d->semantic, &data);
    json_t *result_id = remember(s, params, data);   /* the document keeps data.items */
    if (edit.delete_count == 0 && edit.insert_count == 0) {
        lsp_answer_integers(s, NULL, 0, NULL);
        return json_pack("{s:o, s:[]}", "resultId", result_id, "edits");
    }
    lsp_answer_integers(s, data.items + edit.start, edit.insert_count, NULL);
    return json_pack("{s:o, s:[{s:I, s:I, s:[]}]}", "resultId", result_id, "edits",
                     "start", (json_int_t)edit.start,
                     "deleteCount", (json_int_t)edit.delete_count, "data");
}

void lsp_semantic_forget(Document *d)
{
    free(d->semantic.items);
    d->semantic = (SemanticResult){ 0 };
}
