/* What the grammar actions call: the parser's state, the syntax tree constructors used by
 * parser.y (each gives a node its exact byte span), and the syntax error reporter. */
#ifndef ORBIT_PARSE_BUILD_H
#define ORBIT_PARSE_BUILD_H

#include <stdbool.h>

#include "compiler.h"
#include "parser.h"

typedef struct Lexer Lexer;

struct Parser {
    Compiler *c;
    uint32_t file;
    uint32_t origin;     /* the position of the file's byte 0 (source.h) */
    Lexer *lx;
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
static inline uint32_t build_pos(Parser *p, uint32_t offset)
{
    return p->origin + offset;
}

static inline Span build_span(Parser *p, Loc loc)
{
    return span_make(p->origin + loc.start, p->origin + loc.end);
}

/* From where a symbol starts to a position: a rule that ends with a node. */
static inline Span build_span_to(Parser *p, Loc first, uint32_t end)
{
    return span_make(p->origin + first.start, end);
}

void build_add_decl(Parser *p, Member *decl);
/* After the parse: the declarations move to the tree, and the parser's lists are freed. */
void build_finish(Parser *p);
/* A declaration ends at `end`: its block's end, or its name's when it has no block. */
Member *build_decl(Parser *p, Keyword kw, Loc kw_loc, const Name *name, Loc name_loc,
                   Block *body, uint32_t end);
/* A string literal (EXPR_STRING, as yylex makes it) as a name: `worker "a.b" { … }`. */
const Name *build_string_name(Parser *p, const Expr *string);
KeyName build_keyword_name(Parser *p, Keyword kw);

/* An identifier as the key of an attribute. */
static inline KeyName build_ident_name(const Name *name)
{
    KeyName key = { KW_NONE, name };
    return key;
}

/* Members wait on Parser.members until their block closes, as list elements wait on
 * Parser.args: a block's members are contiguous there, each stored right after the one
 * before (over whatever an abandoned inner block left behind), and a closed block takes
 * its members off into an array of its own (build_block). The file's declarations stay
 * at the bottom until the end (build_finish). A member is built in the free slot above
 * the lists, and the grammar hands it to its list at once, before another member can be
 * built, so it is rarely moved. Inline: the parser calls these for every member. */
static inline void build_members_store(Parser *p, uint32_t at, Member *m)
{
    if (at != p->members_top)   /* m is built at the top */
        p->members[at] = *m;
    p->members_top = at + 1;
}

static inline PendingMembers build_members_first(Parser *p, Member *m)
{
    PendingMembers list = { p->members_top, 1 };
    build_members_store(p, list.base, m);
    return list;
}

static inline PendingMembers build_members_add(Parser *p, PendingMembers list, Member *m)
{
    build_members_store(p, list.base + list.count, m);
    list.count++;
    return list;
}

/* Members and nodes end where their last symbol ends: a token's place, or the end of the
 * node (block, expression) that ends them. */
Block *build_block(Parser *p, PendingMembers members, Loc open, Loc close);
Member *build_attr(Parser *p, KeyName key, Loc key_loc, Loc colon_loc, Expr *value);
/* `name = value`: reported (E0002), then an attribute marked as written with `=`. */
Member *build_assign_attr(Parser *p, KeyName key, Loc key_loc, Loc assign_loc, Expr *value);
Member *build_named_clause(Parser *p, Keyword kw, Loc kw_loc, const Name *name,
                           Loc name_loc, Block *body);
Member *build_for(Parser *p, Loc kw_loc, const Name *var, Loc var_loc, Expr *iter);
Member *build_block_clause(Parser *p, Keyword kw, Loc kw_loc, Block *body);
Member *build_value_clause(Parser *p, Keyword kw, Loc kw_loc, Expr *value);
Member *build_unknown_clause(Parser *p, const Name *word, Loc word_loc, Expr *value);
Member *build_unknown_named(Parser *p, const Name *word, Loc word_loc, const Name *name,
                            Loc name_loc, Block *body);
Member *build_error_member(Parser *p, Loc loc);
/* A word alone as a member; `next` is the token after it (a separator or `}`). */
Member *build_bare_word(Parser *p, const Name *word, Loc word_loc, int next, Loc next_loc);

/* Expression constructors return NULL when the tree gets too deep (reported; the parse
 * then stops). */
Expr *build_binary(Parser *p, Op op, Expr *left, Expr *right);
Expr *build_unary(Parser *p, Op op, Loc op_loc, Expr *operand);
Expr *build_field(Parser *p, Expr *object, const Name *field, Loc field_loc);
Expr *build_index(Parser *p, Expr *object, Expr *index, Loc close);
ExprList build_args_first(Parser *p, Expr *e);
ExprList build_args_add(Parser *p, ExprList list, Expr *e);
Expr *build_call(Parser *p, Expr *callee, ExprList args, Loc close);
Expr *build_optional(Parser *p, Expr *type, Loc mark);
Expr *build_list(Parser *p, ExprList elems, Loc open, Loc close);
Expr *build_object(Parser *p, Block *block);
Expr *build_int(Parser *p, ExprKind kind, int64_t value, Loc loc);
Expr *build_number(Parser *p, double value, Loc loc);
Expr *build_string(Parser *p, String value, Loc loc);
Expr *build_bool(Parser *p, bool value, Loc loc);
Expr *build_null(Parser *p, Loc loc);
Expr *build_name(Parser *p, const Name *name, Loc loc);

/* Errors found by grammar rules rather than by the parser's tables. */
void build_colon_after_keyword(Parser *p, Keyword kw, Loc colon_loc);
void build_report_exhausted(Parser *p, Loc loc, const char *message);

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
