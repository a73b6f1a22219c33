/* Error recovery: after a syntax error the parser asks the lexer (lexer_recover) to skip
 * to the next member separator of the enclosing block, to that block's `}`, or, at top
 * level, to the next declaration; the token stream (lexer.re) then hands out RECOVERED
 * and the token where skipping stopped. Also what the parser asks about the last token
 * handed out: whether an error on it is quiet, and which block it sits in. */
#include "lexer_internal.h"

/* Where skipping stops: a separator of the block at skip_level or its `}`; at top level,
 * a declaration keyword or (when `starts_line`) a word at the start of a line. */
bool lexer_is_sync_point(const Lexer *lx, int kind, uint32_t pre_depth, bool starts_line)
{
    if (kind == END)
        return true;
    if (lx->recovery.skip_level == 0)
        return pre_depth == 0 &&
               (lexer_is_declaration_keyword(kind) || (starts_line && lexer_is_word(kind)));
    return pre_depth == lx->recovery.skip_level && (lexer_is_separator(kind) || kind == RBRACE);
}

/* Hands out RECOVERED, then the token kept in lx->recovery.replay. */
int lexer_recovered(Lexer *lx, int kind, const YYSTYPE *v, Loc loc, Loc *out)
{
    lx->recovery.replay.kind = kind;
    lx->recovery.replay.value = *v;
    lx->recovery.replay.loc = loc;
    lx->recovery.replay_pending = true;
    *out = lexer_quiet_at(loc.start);
    return RECOVERED;
}

/* The bracket depth before the last token handed out: brackets change the depth as they
 * are handed out, and nothing else does. */
static uint32_t last_token_depth(const Lexer *lx)
{
    if (lexer_is_opener(lx->stream.prev))
        return lx->brackets.depth - 1;
    if (lexer_is_closer(lx->stream.prev))
        return lx->brackets.depth + 1;
    return lx->brackets.depth;
}

void lexer_recover(Lexer *lx)
{
    uint32_t prev_depth = last_token_depth(lx);
    uint32_t level = 0;
    for (uint32_t i = prev_depth; i > 0; i--)
        if (lx->brackets.open_kind[i - 1] == LBRACE) {
            level = i;
            break;
        }
    lx->recovery.skip_level = level;
    if (lexer_is_sync_point(lx, lx->stream.prev, prev_depth, false)) {
        /* The parser drops the token it failed on; it comes back after RECOVERED. Its
         * value is still in the parser's lookahead, where the last call left it. */
        lx->recovery.replay.kind = lx->stream.prev;
        lx->recovery.replay.value = *lx->stream.value_out;
        lx->recovery.replay.loc = lx->stream.prev_loc;
        lx->recovery.recovered_pending = true;
    } else {
        lx->recovery.skipping = true;
    }
    lx->attention = true;
}

bool lexer_token_is_quiet(const Lexer *lx, int kind, Loc loc)
{
    if (kind == END)
        return lx->fatal;
    if (kind == STRAY || kind == RECOVERED || loc.start == loc.end)
        return true;
    unsigned char first = lx->base[loc.start];
    if (lexer_is_closer(kind))
        return first != (unsigned char)lexer_bracket_char(kind);
    if (kind == BANG || kind == ANDAND || kind == OROR)
        return (first >= 'a' && first <= 'z');
    return lexer_literal_is_bad(lx, loc.start);
}

bool lexer_at_top_level(const Lexer *lx)
{
    return last_token_depth(lx) == 0;
}

bool lexer_in_clause_block(const Lexer *lx)
{
    uint32_t top = last_token_depth(lx);
    return top > 0 && lx->brackets.open_kind[top - 1] == LBRACE &&
           lx->brackets.open_clauses[top - 1];
}
