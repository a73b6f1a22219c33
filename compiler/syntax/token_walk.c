/* The tokens and comments of a file, in source order (token_walk.h). */
#include "token_walk.h"

#include "lexer.h"

/* The kind's name for the visitor of token_walk. */
typedef struct NamedWalk {
    TokenVisit visit;
    void *context;
} NamedWalk;

static void visit_named(void *user, uint32_t start, uint32_t end, int kind)
{
    NamedWalk *walk = user;
    walk->visit(walk->context, start, end,
                kind == LEXER_COMMENT ? "COMMENT" : token_kind_name(kind));
}

void token_walk(Compiler *c, uint32_t file, TokenVisit visit, void *context)
{
    NamedWalk walk = { visit, context };
    lexer_tokens_of(c, file, visit_named, &walk);
}
