/* The tokens of a text as the parser receives them, with its comments, for the tools
 * that colour or compare source (the language server's semantic tokens, tools/lex_dump):
 * the lexer of the compiler, run alone over a copy of the text. */
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "memory.h"

/* Calls `visit` for the comments that start before `before` (file offsets), from *next
 * on. */
static void visit_comments_before(const Lexer *lx, uint32_t *next, uint32_t before,
                                  LexerTokenVisitor visit, void *user)
{
    for (; *next < lx->scan.comment_count; (*next)++) {
        Span span = lx->scan.comments[*next].span;
        if (span.start - lx->origin >= before)
            return;
        visit(user, span.start - lx->origin, span.end - lx->origin, LEXER_COMMENT);
    }
}

void lexer_tokens_of(Compiler *c, uint32_t file, LexerTokenVisitor visit, void *user)
{
    Lexer *lx = xmalloc(sizeof *lx);
    lexer_init(lx, c, file);
    uint32_t next_comment = 0;
    YYSTYPE value;
    Loc loc;
    int kind;
    while ((kind = lexer_next(lx, &value, &loc)) != END) {
        if (kind == NEWLINE || loc.start == loc.end)
            continue;
        visit_comments_before(lx, &next_comment, loc.start, visit, user);
        visit(user, loc.start, loc.end, kind);
    }
    visit_comments_before(lx, &next_comment, UINT32_MAX, visit, user);
    lexer_free(lx);
    free(lx);
}

void lexer_tokens(const char *text, uint32_t len, LexerTokenVisitor visit, void *user)
{
    Compiler c;
    compiler_init(&c);
    uint32_t file;
    if (compiler_fits(&c, len)) {
        char *copy = xmalloc((size_t)len + 1);
        memcpy(copy, text, len);
        copy[len] = '\0';
        file = compiler_add_source(&c, "<tokens>", copy, len);
    } else {
        file = compiler_add_too_large(&c, "<tokens>", len, false);   /* read as empty */
    }
    lexer_tokens_of(&c, file, visit, user);
    compiler_free(&c);
}
