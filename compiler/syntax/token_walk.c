/* The tokens and comments of a file, in source order (token_walk.h). */
#include "token_walk.h"

#include <stdlib.h>

#include "lexer.h"
#include "memory.h"

/* Visits the comments that start before `before` (file offsets), from *next on. */
static void visit_comments_before(const Lexer *lx, uint32_t *next, uint32_t before,
                                  TokenVisit visit, void *context)
{
    for (; *next < lx->scan.comment_count; (*next)++) {
        Span span = lx->scan.comments[*next].span;
        if (span.start - lx->origin >= before)
            return;
        visit(context, span.start - lx->origin, span.end - lx->origin, "COMMENT");
    }
}

void token_walk(Compiler *c, uint32_t file, TokenVisit visit, void *context)
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
        visit_comments_before(lx, &next_comment, loc.start, visit, context);
        visit(context, loc.start, loc.end, token_kind_name(kind));
    }
    visit_comments_before(lx, &next_comment, UINT32_MAX, visit, context);
    lexer_free(lx);
    free(lx);
}
