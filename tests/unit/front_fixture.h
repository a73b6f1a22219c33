/* Shared by the front end's unit tests: a compiler holding one source file, the tokens
 * or the tree of that file, the diagnostics it produced, and a compact S-expression
 * dump of a syntax tree that tests compare with expected text. */
#ifndef ORBIT_TESTS_FRONT_FIXTURE_H
#define ORBIT_TESTS_FRONT_FIXTURE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "lexer.h"
#include "parse.h"

typedef struct Fixture {
    Compiler c;
    uint32_t file;
    char out[65536];     /* dump output */
    size_t used;
} Fixture;

static inline void fixture_open(Fixture *f, const char *text, size_t len)
{
    memset(f, 0, sizeof *f);
    arena_init(&f->c.arena);
    interner_init(&f->c.names, &f->c.arena);
    compiler_intern_keywords(&f->c);
    source_map_init(&f->c.sources);
    diag_sink_init(&f->c.diags, &f->c.arena);
    source_map_add(&f->c.sources, "<stdlib>/orbit.orbit", (char *)"", 0, true);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    f->file = source_map_add(&f->c.sources, "test.orbit", copy, (uint32_t)len, false);
}

static inline void fixture_close(Fixture *f)
{
    diag_sink_free(&f->c.diags);
    source_map_free(&f->c.sources);
    interner_free(&f->c.names);
    arena_free(&f->c.arena);
}

static inline Fixture *fixture_new(const char *text)
{
    Fixture *f = malloc(sizeof *f);
    fixture_open(f, text, strlen(text));
    return f;
}

static inline void fixture_free(Fixture *f)
{
    fixture_close(f);
    free(f);
}

static inline void out(Fixture *f, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(f->out + f->used, sizeof f->out - f->used, fmt, args);
    va_end(args);
    if (n > 0)
        f->used += (size_t)n;
    if (f->used >= sizeof f->out)
        f->used = sizeof f->out - 1;
}

/* "E0100@1:5 message" for each diagnostic, one per line, in report order. */
static inline const char *fixture_diagnostics(Fixture *f)
{
    f->used = 0;
    f->out[0] = '\0';
    for (uint32_t i = 0; i < f->c.diags.count; i++) {
        const Diagnostic *d = f->c.diags.items[i];
        uint32_t at = d->span.start - source_file(&f->c.sources, f->file)->origin;
        uint32_t line = source_line_of(&f->c.sources, f->file, at);
        uint32_t col = at - source_line_start(&f->c.sources, f->file, line);
        out(f, "%s@%u:%u %s\n", diag_info(d->code)->code, line + 1, col + 1, d->message);
    }
    return f->out;
}

static inline uint32_t fixture_count(Fixture *f, const char *code)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->c.diags.count; i++)
        if (strcmp(diag_info(f->c.diags.items[i]->code)->code, code) == 0)
            n++;
    return n;
}

static inline void dump_expr(Fixture *f, const Expr *e);

static inline void dump_block(Fixture *f, const Block *b);

static inline void dump_member(Fixture *f, const Member *m)
{
    switch (m->kind) {
    case MEMBER_ERROR:
        out(f, "ERROR");
        return;
    case MEMBER_ATTR:
        out(f, "(%s: ", m->name->text);
        dump_expr(f, member_value(m));
        out(f, ")");
        return;
    case MEMBER_CLAUSE:
        out(f, "(%s", m->keyword != KW_NONE ? keyword_text(m->keyword) : m->key->text);
        if (m->name)
            out(f, " %s", m->name->text);
        if (member_value(m)) {
            out(f, " ");
            dump_expr(f, member_value(m));
        }
        if (member_body(m)) {
            out(f, " ");
            dump_block(f, member_body(m));
        }
        out(f, ")");
        return;
    }
}

static inline void dump_block(Fixture *f, const Block *b)
{
    out(f, "{");
    for (const Member *m = block_first(b), *end = block_end(b); m != end; m++) {
        dump_member(f, m);
        if (m + 1 != block_end(b))
            out(f, " ");
    }
    out(f, "}");
}

static inline void dump_list(Fixture *f, const Expr *list)
{
    for (uint32_t i = 0; i < list->count; i++) {
        dump_expr(f, list->elems[i]);
        if (i + 1 < list->count)
            out(f, " ");
    }
}

static inline void dump_expr(Fixture *f, const Expr *e)
{
    switch (e->kind) {
    case EXPR_ERROR: out(f, "ERR"); break;
    case EXPR_INT: out(f, "%lld", (long long)e->integer); break;
    case EXPR_DURATION: out(f, "%lldms", (long long)e->integer); break;
    case EXPR_NUMBER: out(f, "%g", e->number); break;
    case EXPR_STRING: out(f, "\"%.*s\"", (int)e->len, e->text); break;
    case EXPR_BOOL: out(f, e->boolean ? "true" : "false"); break;
    case EXPR_NULL: out(f, "null"); break;
    case EXPR_NAME: out(f, "%s", e->name->text); break;
    case EXPR_LIST: out(f, "["); dump_list(f, e); out(f, "]"); break;
    case EXPR_OBJECT: dump_block(f, e->block); break;
    case EXPR_UNARY: out(f, "(%s ", ast_op_text(e->op)); dump_expr(f, e->left); out(f, ")"); break;
    case EXPR_BINARY:
        out(f, "(%s ", ast_op_text(e->op));
        dump_expr(f, e->left);
        out(f, " ");
        dump_expr(f, e->right);
        out(f, ")");
        break;
    case EXPR_FIELD: out(f, "(. "); dump_expr(f, e->left); out(f, " %s)", e->field->text); break;
    case EXPR_INDEX:
        out(f, "(index ");
        dump_expr(f, e->left);
        out(f, " ");
        dump_expr(f, e->right);
        out(f, ")");
        break;
    case EXPR_CALL:
        out(f, "(call ");
        dump_expr(f, e->left);
        if (e->count)
            out(f, " ");
        dump_list(f, e);
        out(f, ")");
        break;
    case EXPR_OPTIONAL: out(f, "(? "); dump_expr(f, e->left); out(f, ")"); break;
    }
}

/* Parses the fixture's file and returns the dump of its declarations, one per line. */
static inline const char *fixture_parse(Fixture *f, SourceAst **ast_out)
{
    SourceAst *ast = parse_source(&f->c, f->file);
    if (ast_out)
        *ast_out = ast;
    f->used = 0;
    f->out[0] = '\0';
    for (const Member *m = ast_first(ast), *end = ast_end(ast); m != end; m++) {
        dump_member(f, m);
        out(f, "\n");
    }
    return f->out;
}

#endif
