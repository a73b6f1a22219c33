/* Syntax tree constructors for the grammar actions of parser.y. Every node is allocated
 * in the compiler's arena and gets the exact byte span of the text it was parsed from.
 * Expression nodes record their height; a tree deeper than PARSE_MAX_EXPR_DEPTH is
 * reported once (E0009) and stops the parse of the file. */
#include "parse_build.h"

#include <stdlib.h>
#include <string.h>

#include "lexer.h"

/* ---- declarations and members ---- */

/* Members wait on Parser.members until their block closes (parse_build.h). */
static Member *members_copy(Parser *p, uint32_t base, uint32_t count)
{
    if (!count)
        return NULL;
    Member *copy = arena_bump(p->arena, count * sizeof *copy, 8);
    memcpy(copy, p->members + base, count * sizeof *copy);
    return copy;
}

void ast_add_decl(Parser *p, Member *decl)
{
    p->args_top = 0;   /* no list is open between declarations */
    ast_members_store(p, p->ast->count++, decl);
}

void ast_finish(Parser *p)
{
    p->ast->decls = members_copy(p, 0, p->ast->count);
    free(p->members);
    free(p->args);
}

void ast_members_grow(Parser *p)
{
    p->members_cap = p->members_cap ? p->members_cap * 2 : 64;
    p->members = xrealloc(p->members, p->members_cap * sizeof *p->members);
}

Member *ast_decl(Parser *p, Keyword kw, Loc kw_loc, const Name *name, Loc name_loc,
                 Block *body, uint32_t end)
{
    Member *m = ast_new_member(p, MEMBER_CLAUSE, kw, kw_loc, end);
    m->name = name;
    m->name_start = ast_pos(p, name_loc.start);
    m->name_end = ast_pos(p, name_loc.end);
    member_set_body(m, body);
    return m;
}

const Name *ast_string_name(Parser *p, const Expr *string)
{
    return intern(&p->c->names, string->text, string->len);
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* One allocation for the block and its members, which follow it. */
Block *ast_block(Parser *p, MemberList members, Loc open, Loc close)
{
    uint32_t count = members.pending.count;
    Block *b = arena_bump(p->arena, sizeof *b + count * sizeof(Member), 8);
    *b = (Block){ .span = ast_span_to(p, open, ast_pos(p, close.end)), .count = count,
                  .depth = members.height + 1 };
    if (count) {
        b->members = (Member *)(b + 1);
        memcpy(b->members, p->members + members.pending.base, count * sizeof(Member));
        p->members_top = members.pending.base;
    }
    return b;
}

/* In a block of clauses, `timeout = 10s` means the clause `timeout 10s`: the fix removes
 * the `=` (with a colon it would still be wrong, E0410). Elsewhere `=` stands for `:`. */
Member *ast_assign_attr(Parser *p, KeyName key, Loc key_loc, Loc assign_loc, Expr *value)
{
    Member *m = ast_attr(p, key, key_loc, assign_loc, value);
    m->assign = true;
    if (!lexer_count_error(p->lx))
        return m;
    Span span = ast_span(p, assign_loc);
    Diagnostic *d = diag_report(&p->c->diags, E0002, span, "unexpected character `=`");
    if (keyword_is_member(key.keyword) && lexer_in_clause_block(p->lx)) {
        Span up_to_value = span_make(span.start, value->span.start);
        diag_add_fix(&p->c->diags, d, up_to_value, "", FIX_MACHINE_APPLICABLE,
                     key.keyword == KW_RETRY ? "`retry` is followed directly by `{`: remove the `=`"
                                             : "`%s` is followed directly by its value: "
                                               "remove the `=`", keyword_text(key.keyword));
    } else {
        diag_add_fix(&p->c->diags, d, span, ":", FIX_MACHINE_APPLICABLE,
                     "use `:` to set a value");
    }
    return m;
}

Member *ast_named_clause(Parser *p, Keyword kw, Loc kw_loc, const Name *name,
                         Loc name_loc, Block *body)
{
    return ast_decl(p, kw, kw_loc, name, name_loc, body, body->span.end);
}

Member *ast_for(Parser *p, Loc kw_loc, const Name *var, Loc var_loc, Expr *iter)
{
    Member *m = ast_new_member(p, MEMBER_CLAUSE, KW_FOR, kw_loc, iter->span.end);
    m->name = var;
    m->name_start = ast_pos(p, var_loc.start);
    m->name_end = ast_pos(p, var_loc.end);
    member_set_value(m, iter);
    return m;
}

Member *ast_block_clause(Parser *p, Keyword kw, Loc kw_loc, Block *body)
{
    Member *m = ast_new_member(p, MEMBER_CLAUSE, kw, kw_loc, body->span.end);
    member_set_body(m, body);
    return m;
}


/* `retries { attempts: 3 }` is a word with a block; `timout 10s` a word with a value. An
 * object written in parentheses stays a value. */
Member *ast_unknown_clause(Parser *p, const Name *word, Loc word_loc, Expr *value)
{
    Member *m = ast_new_member(p, MEMBER_CLAUSE, KW_NONE, word_loc, value->span.end);
    m->key = word;
    if (value->kind == EXPR_OBJECT && p->lx->base[value->span.start - p->origin] == '{')
        member_set_body(m, value->block);
    else
        member_set_value(m, value);
    return m;
}

/* A word alone as a member (`workflow w { bogus }`). In a block of clauses it is an
 * unknown clause without a value, which the checker reports like `bogus: 1` (E0303, with
 * a did-you-mean); in an object or a type it is a field missing its `:` and value. */
Member *ast_bare_word(Parser *p, const Name *word, Loc word_loc, int next, Loc next_loc)
{
    if (lexer_in_clause_block(p->lx)) {
        Member *m = ast_new_member(p, MEMBER_CLAUSE, KW_NONE, word_loc, ast_pos(p, word_loc.end));
        m->key = word;
        return m;
    }
    report_missing_colon(p, word_loc, next, next_loc);
    return ast_error_member(p, word_loc);
}

/* `WORD NAME { … }` with an unknown WORD, at top level (`workfow checkout { … }`) or in
 * a block (`stp charge { … }`): the checker reports the word with a did-you-mean. */
Member *ast_unknown_named(Parser *p, const Name *word, Loc word_loc, const Name *name,
                          Loc name_loc, Block *body)
{
    Member *m = ast_decl(p, KW_NONE, word_loc, name, name_loc, body, body->span.end);
    m->key = word;
    return m;
}

Member *ast_error_member(Parser *p, Loc loc)
{
    return ast_new_member(p, MEMBER_ERROR, KW_NONE, loc, ast_pos(p, loc.end));
}

/* ---- expressions ---- */

/* A node above the limit keeps the limit + 1 as its height (the field is narrow). */
Expr *ast_too_deep(Parser *p, Expr *e)
{
    e->depth = PARSE_MAX_EXPR_DEPTH + 1;
    if (!p->lx->fatal) {
        diag_report(&p->c->diags, E0009, e->span,
                    "nesting too deep: expression has more than %d levels",
                    (int)PARSE_MAX_EXPR_DEPTH);
        lexer_stop(p->lx);
        p->lx->too_deep = true;
        p->ast->fatal = true;
    }
    return NULL;
}

Expr *ast_binary(Parser *p, Op op, Expr *left, Expr *right)
{
    Expr *e = ast_new_expr(p, EXPR_BINARY, span_join(left->span, right->span), 1);
    e->op = op;
    e->left = left;
    e->right = right;
    return ast_checked(p, e, max_u32(left->depth, right->depth) + 1);
}

Expr *ast_unary(Parser *p, Op op, Loc op_loc, Expr *operand)
{
    Expr *e = ast_new_expr(p, EXPR_UNARY, ast_span_to(p, op_loc, operand->span.end), 1);
    e->op = op;
    e->left = operand;
    return ast_checked(p, e, operand->depth + 1u);
}

Expr *ast_index(Parser *p, Expr *object, Expr *index, Loc close)
{
    Span span = span_make(object->span.start, ast_pos(p, close.end));
    Expr *e = ast_new_expr(p, EXPR_INDEX, span, 1);
    e->left = object;
    e->right = index;
    return ast_checked(p, e, max_u32(object->depth, index->depth) + 1);
}

/* Elements of lists and arguments of calls wait on Parser.args until their list closes.
 * A list's elements are contiguous there: each is stored right after the one before
 * (over whatever an abandoned inner list left behind), and a closed list takes its
 * elements off. */
static void args_store(Parser *p, uint32_t at, Expr *e)
{
    if (at >= p->args_cap) {
        p->args_cap = p->args_cap ? p->args_cap * 2 : 256;
        p->args = xrealloc(p->args, p->args_cap * sizeof *p->args);
    }
    p->args[at] = e;
    p->args_top = at + 1;
}

ExprList ast_args_first(Parser *p, Expr *e)
{
    ExprList list = { p->args_top, 1 };
    args_store(p, list.base, e);
    return list;
}

ExprList ast_args_add(Parser *p, ExprList list, Expr *e)
{
    args_store(p, list.base + list.count, e);
    list.count++;
    return list;
}

/* Moves a closed list's elements into the node; returns the height of the tallest. (One
 * loop copies them and finds it: most lists are too short for a call of memcpy.) */
static uint32_t take_list(Parser *p, Expr *e, ExprList list)
{
    uint32_t depth = 0;
    e->count = list.count;
    e->elems = NULL;
    if (list.count) {
        e->elems = arena_alloc_raw(p->arena, list.count * sizeof *e->elems);
        for (uint32_t i = 0; i < list.count; i++) {
            Expr *elem = p->args[list.base + i];
            e->elems[i] = elem;
            depth = max_u32(depth, elem->depth);
        }
        p->args_top = list.base;
    }
    return depth;
}

Expr *ast_call(Parser *p, Expr *callee, ExprList args, Loc close)
{
    Span span = span_make(callee->span.start, ast_pos(p, close.end));
    Expr *e = ast_new_expr(p, EXPR_CALL, span, 1);
    e->left = callee;
    return ast_checked(p, e, max_u32(callee->depth, take_list(p, e, args)) + 1);
}

Expr *ast_optional(Parser *p, Expr *type, Loc mark)
{
    Span span = span_make(type->span.start, ast_pos(p, mark.end));
    Expr *e = ast_new_expr(p, EXPR_OPTIONAL, span, 1);
    e->left = type;
    return ast_checked(p, e, type->depth + 1u);
}

Expr *ast_list(Parser *p, ExprList elems, Loc open, Loc close)
{
    Span span = ast_span_to(p, open, ast_pos(p, close.end));
    Expr *e = ast_new_expr(p, EXPR_LIST, span, 1);
    return ast_checked(p, e, take_list(p, e, elems) + 1);
}

/* Only integers, numbers, durations and strings can be unreadable (lexer_literals.c). */
bool ast_literal_is_bad(Parser *p, Loc loc)
{
    return lexer_literal_is_bad(p->lx, loc.start);
}

Expr *ast_number(Parser *p, double value, Loc loc)
{
    Expr *e = ast_new_expr(p, ast_literal_kind(p, EXPR_NUMBER, loc), ast_span(p, loc), 1);
    e->number = value;
    return e;
}

/* ---- errors found by grammar rules ---- */

void ast_colon_after_keyword(Parser *p, Keyword kw, Loc colon_loc)
{
    if (!lexer_count_error(p->lx))
        return;
    Span span = ast_span(p, colon_loc);
    Diagnostic *d = diag_report(&p->c->diags, E0103, span,
                                "unexpected `:` after keyword `%s`", keyword_text(kw));
    diag_set_label(&p->c->diags, d, "`%s` is followed by its name, not a colon",
                   keyword_text(kw));
    diag_add_fix(&p->c->diags, d, span, "", FIX_MACHINE_APPLICABLE, "remove the `:`");
}

void ast_report_exhausted(Parser *p, Loc loc, const char *message)
{
    if (p->lx->fatal)
        return;
    diag_report(&p->c->diags, E0009, ast_span(p, loc),
                "nesting too deep: the parser ran out of room (%s)", message);
    lexer_stop(p->lx);
    p->ast->fatal = true;
}
