/* What the grammar actions call: the parser's state, the syntax tree constructors used by
 * parser.y (each gives a node its exact byte span), and the syntax error reporter. */
#ifndef ORBIT_PARSE_BUILD_H
#define ORBIT_PARSE_BUILD_H

#include <stdbool.h>
#include <string.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#endif

#include "compiler.h"
#include "parser.h"

typedef struct Lexer Lexer;

struct Parser {
    Compiler *c;
    Arena *arena;        /* &c->arena, where the nodes go */
    uint32_t file;
    uint32_t origin;     /* the position of the file's byte 0 (source.h) */
    Lexer *lx;
    const uint32_t *bad_literal_count;   /* the lexer's count of unreadable literals */
    const Name *const *keyword_names;    /* the lexer's names of the keywords */
    SourceAst *ast;
    Expr **args;         /* elements of the lists being parsed (parse_build.c) */
    YYSTYPE *lookahead;  /* where yylex puts the token it reads (parser.y) */
    YYSTYPE token;       /* where the lexer puts it (parser.y) */
    uint32_t args_top, args_cap;
    Member *members;     /* members of the blocks being parsed, and the file's
                            declarations (parse_build.c) */
    uint32_t members_top, members_cap;
};

enum {
    /* Deepest expression tree (operators, postfix chains, nested lists and objects) the
     * parser accepts; deeper is E0009, so later passes may recurse without fear. */
    PARSE_MAX_EXPR_DEPTH = 1024,
};

/* A parser location is a byte range of the file; nodes hold positions (source.h). */
static inline uint32_t ast_pos(Parser *p, uint32_t offset)
{
    return p->origin + offset;
}

static inline Span ast_span(Parser *p, Loc loc)
{
    return span_make(p->origin + loc.start, p->origin + loc.end);
}

/* From where a symbol starts to a position: a rule that ends with a node. */
static inline Span ast_span_to(Parser *p, Loc first, uint32_t end)
{
    return span_make(p->origin + first.start, end);
}

void ast_add_decl(Parser *p, Member *decl);
/* After the parse: the declarations move to the tree, and the parser's lists are freed. */
void ast_finish(Parser *p);
/* A declaration ends at `end`: its block's end, or its name's when it has no block. */
Member *ast_decl(Parser *p, Keyword kw, Loc kw_loc, const Name *name, Loc name_loc,
                 Block *body, uint32_t end);
/* A string literal (EXPR_STRING, as yylex makes it) as a name: `worker "a.b" { … }`. */
const Name *ast_string_name(Parser *p, const Expr *string);
static inline KeyName ast_keyword_name(Parser *p, Keyword kw)
{
    KeyName key = { kw, p->keyword_names[kw] };
    return key;
}

/* An identifier as the key of an attribute. */
static inline KeyName ast_ident_name(const Name *name)
{
    KeyName key = { KW_NONE, name };
    return key;
}

/* Members wait on Parser.members until their block closes, as list elements wait on
 * Parser.args: a block's members are contiguous there, each stored right after the one
 * before (over whatever an abandoned inner block left behind), and a closed block takes
 * its members off into an array of its own (ast_block). The file's declarations stay
 * at the bottom until the end (ast_finish). A member is built in the free slot above
 * the lists, and the grammar hands it to its list at once, before another member can be
 * built, so it is rarely moved. Inline: the parser calls these for every member. */
static inline void ast_members_store(Parser *p, uint32_t at, Member *m)
{
    if (at != p->members_top)   /* m is built at the top */
        p->members[at] = *m;
    p->members_top = at + 1;
}

/* The height of what a member holds: its value's or its body's, 0 when it has neither. */
static inline uint32_t ast_member_height(const Member *m)
{
    uint32_t height = member_value(m) ? member_value(m)->depth : 0;
    if (member_body(m) && member_body(m)->depth > height)
        height = member_body(m)->depth;
    return height;
}

static inline MemberList ast_members_first(Parser *p, Member *m)
{
    MemberList list = { ast_member_height(m), { p->members_top, 1 } };
    ast_members_store(p, list.pending.base, m);
    return list;
}

static inline MemberList ast_members_add(Parser *p, MemberList list, Member *m)
{
    uint32_t height = ast_member_height(m);
    if (height > list.height)
        list.height = height;
    ast_members_store(p, list.pending.base + list.pending.count, m);
    list.pending.count++;
    return list;
}

/* Members and nodes end where their last symbol ends: a token's place, or the end of the
 * node (block, expression) that ends them. */
Block *ast_block(Parser *p, MemberList members, Loc open, Loc close);

/* The slow path of ast_new_member: more room for pending members. */
void ast_members_grow(Parser *p);

/* The free slot above the pending members, where a member is built. Inline, with the
 * constructors of most members: a call costs more than the stores of a member. */
static inline Member *ast_member_slot(Parser *p)
{
    if (p->members_top >= p->members_cap)
        ast_members_grow(p);
    return &p->members[p->members_top];
}

/* A member from its key (which starts it) to `end`. (The positions are computed from a
 * copy of the origin: a store into the member could be a store into the parser.) */
static inline Member *ast_new_member(Parser *p, MemberKind kind, Keyword kw, Loc kw_loc,
                                     uint32_t end)
{
    uint32_t origin = p->origin;
    Member *m = ast_member_slot(p);
    *m = (Member){ .kind = kind, .keyword = kw, .span = span_make(origin + kw_loc.start, end),
                   .key_end = origin + kw_loc.end };
    return m;
}

static inline Member *ast_attr(Parser *p, KeyName key, Loc key_loc, Loc colon_loc,
                               Expr *value)
{
    uint32_t origin = p->origin;
    Member *m = ast_member_slot(p);
    *m = (Member){ .kind = MEMBER_ATTR, .keyword = key.keyword,
                   .span = span_make(origin + key_loc.start, value->span.end),
                   .key_end = origin + key_loc.end,
                   .name_start = origin + key_loc.start, .name_end = origin + key_loc.end,
                   .colon_start = origin + colon_loc.start, .colon_end = origin + colon_loc.end,
                   .name = key.name, .held.value = value };
    return m;
}

static inline Member *ast_value_clause(Parser *p, Keyword kw, Loc kw_loc, Expr *value)
{
    Member *m = ast_new_member(p, MEMBER_CLAUSE, kw, kw_loc, value->span.end);
    member_set_value(m, value);
    return m;
}

/* `name = value`: reported (E0002), then an attribute marked as written with `=`. */
Member *ast_assign_attr(Parser *p, KeyName key, Loc key_loc, Loc assign_loc, Expr *value);
Member *ast_named_clause(Parser *p, Keyword kw, Loc kw_loc, const Name *name,
                         Loc name_loc, Block *body);
Member *ast_for(Parser *p, Loc kw_loc, const Name *var, Loc var_loc, Expr *iter);
Member *ast_block_clause(Parser *p, Keyword kw, Loc kw_loc, Block *body);
Member *ast_unknown_clause(Parser *p, const Name *word, Loc word_loc, Expr *value);
Member *ast_unknown_named(Parser *p, const Name *word, Loc word_loc, const Name *name,
                          Loc name_loc, Block *body);
Member *ast_error_member(Parser *p, Loc loc);
/* A word alone as a member; `next` is the token after it (a separator or `}`). */
Member *ast_bare_word(Parser *p, const Name *word, Loc word_loc, int next, Loc next_loc);

/* ---- expressions ----
 * Expression constructors return NULL when the tree gets too deep (reported; the parse
 * then stops). The ones the parser calls for most tokens are inline: a call costs more
 * than the few stores of a node. */

/* A node of `kind` over `span`, of height `height`; the caller sets its payload. A leaf
 * is made without .left (ast.h); in the sanitizer build it has the field, but
 * unreadable, so that a walker that reads it is caught. */
static inline Expr *ast_new_expr(Parser *p, ExprKind kind, Span span, uint32_t height)
{
    Expr *e;
    if (expr_has_left(kind)) {
        e = arena_bump(p->arena, sizeof *e, 8);
        *e = (Expr){ .kind = kind, .depth = height, .span = span };
        return e;
    }
#ifdef __SANITIZE_ADDRESS__
    e = arena_bump(p->arena, sizeof *e, 8);
    ASAN_POISON_MEMORY_REGION(&e->left, sizeof e->left);
#else
    e = arena_bump(p->arena, EXPR_LEAF_SIZE, 8);
#endif
    memset(e, 0, EXPR_LEAF_SIZE);
    e->kind = kind;
    e->depth = height;
    e->span = span;
    return e;
}

/* The slow path of ast_checked: reports E0009 once and returns NULL. */
Expr *ast_too_deep(Parser *p, Expr *e);

/* Sets the height of a finished node; NULL (after one E0009) when it is too deep. */
static inline Expr *ast_checked(Parser *p, Expr *e, uint32_t height)
{
    if (height > PARSE_MAX_EXPR_DEPTH)
        return ast_too_deep(p, e);
    e->depth = height;
    return e;
}

static inline Expr *ast_field(Parser *p, Expr *object, const Name *field, Loc field_loc)
{
    Span span = span_make(object->span.start, ast_pos(p, field_loc.end));
    Expr *e = ast_new_expr(p, EXPR_FIELD, span, 1);
    e->left = object;
    e->field = field;
    e->field_start = ast_pos(p, field_loc.start);   /* the field name ends the expression */
    return ast_checked(p, e, object->depth + 1u);
}

static inline Expr *ast_object(Parser *p, Block *block)
{
    Expr *e = ast_new_expr(p, EXPR_OBJECT, block->span, 1);
    e->block = block;
    return ast_checked(p, e, block->depth + 1);
}

/* Names, `true`, `false` and `null` are never literals the lexer found unreadable. */
static inline Expr *ast_name(Parser *p, const Name *name, Loc loc)
{
    Expr *e = ast_new_expr(p, EXPR_NAME, ast_span(p, loc), 1);
    e->name = name;
    return e;
}

static inline Expr *ast_bool(Parser *p, bool value, Loc loc)
{
    Expr *e = ast_new_expr(p, EXPR_BOOL, ast_span(p, loc), 1);
    e->boolean = value;
    return e;
}

static inline Expr *ast_null(Parser *p, Loc loc)
{
    return ast_new_expr(p, EXPR_NULL, ast_span(p, loc), 1);
}

bool ast_literal_is_bad(Parser *p, Loc loc);

/* A literal the lexer could not read (already reported) becomes EXPR_ERROR. */
static inline ExprKind ast_literal_kind(Parser *p, ExprKind kind, Loc loc)
{
    if (*p->bad_literal_count && ast_literal_is_bad(p, loc))
        return EXPR_ERROR;
    return kind;
}

static inline Expr *ast_int(Parser *p, ExprKind kind, int64_t value, Loc loc)
{
    Expr *e = ast_new_expr(p, ast_literal_kind(p, kind, loc), ast_span(p, loc), 1);
    e->integer = value;
    return e;
}

static inline Expr *ast_string(Parser *p, String value, Loc loc)
{
    Expr *e = ast_new_expr(p, ast_literal_kind(p, EXPR_STRING, loc), ast_span(p, loc), 1);
    e->text = value.text;
    e->len = value.len;
    return e;
}

Expr *ast_binary(Parser *p, Op op, Expr *left, Expr *right);
Expr *ast_unary(Parser *p, Op op, Loc op_loc, Expr *operand);
Expr *ast_index(Parser *p, Expr *object, Expr *index, Loc close);
ExprList ast_args_first(Parser *p, Expr *e);
ExprList ast_args_add(Parser *p, ExprList list, Expr *e);
Expr *ast_call(Parser *p, Expr *callee, ExprList args, Loc close);
Expr *ast_optional(Parser *p, Expr *type, Loc mark);
Expr *ast_list(Parser *p, ExprList elems, Loc open, Loc close);
Expr *ast_number(Parser *p, double value, Loc loc);

/* Errors found by grammar rules rather than by the parser's tables. */
void ast_colon_after_keyword(Parser *p, Keyword kw, Loc colon_loc);
void ast_report_exhausted(Parser *p, Loc loc, const char *message);

/* A syntax error as the parser sees it: the token found, and the token kinds (indexes
 * below PARSER_TOKEN_LIMIT) that would have been accepted in its place. */
typedef struct SyntaxError {
    int found;
    Loc loc;
    const bool *want;
} SyntaxError;

void report_syntax_error(Parser *p, const SyntaxError *error);
/* "expected `:` after field name `amount`, found `}`": a field written without `:`. */
void report_missing_colon(Parser *p, Loc name_loc, int found, Loc found_loc);

#endif
