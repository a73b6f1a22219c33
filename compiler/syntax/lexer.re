/* The lexer (re2c). Cuts the file into tokens with a DFA over bytes; non-ASCII text is
 * validated as UTF-8 on the side paths that meet it (strings, comments, identifiers).
 * Literal values are decoded here: integers, numbers, durations in milliseconds, strings
 * with their escapes. See lexer.h for the newline rule, bracket matching and recovery;
 * lexer_literals.c reads the numeric literals and lexer_strings.c the strings. */
#define _GNU_SOURCE
#include "lexer.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "attributes.h"
#include "lexer_internal.h"
#include "utf8.h"

#include <utf8proc.h>

/* Rare paths (mistakes, the second pass) are COLD (attributes.h), kept out of the token
 * loop so that the loop stays small. The scanner and the identifier path are inlined
 * into the token loop, even where the compiler would not: the call cost about 38
 * instructions an identifier. */
#define INLINE inline __attribute__((always_inline))

/* Returned inside the scanner for a character that was reported and is skipped; and
 * what the token loop passes on when no token has been scanned yet. */
enum { SKIPPED = -1, NOT_SCANNED = -2 };

/* What the scanner returns on the common path (lexer_next) for a token it does not read
 * itself, so that the common path calls nothing it must come back from: LEAVE for one it
 * left unread (the general path scans it again), and for a literal the DFA matched (loc
 * spans it) the decoder that reads it (literal_token). */
enum {
    LEAVE = -3, SCAN_STRING = -4, SCAN_PLAIN_STRING = -5, SCAN_INTEGER = -6, SCAN_NUMBER = -7,
    SCAN_DURATION = -8,
};

/*!re2c
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYCURSOR = cur;
    re2c:define:YYMARKER = mar;
    re2c:yyfill:enable = 0;
    re2c:indent:string = "    ";

    dec = [0-9]+ ("_" [0-9]+)*;
    exp = [eE] [+-]? [0-9]+;
    unit = "ms" | "s" | "m" | "h" | "d";
    plain = [\t\x20-\x21\x23-\x5b\x5d-\x7e];   /* in a string: copied as it is */
    utf8 = [\xc2-\xdf] [\x80-\xbf]
         | "\xe0" [\xa0-\xbf] [\x80-\xbf]
         | [\xe1-\xec\xee\xef] [\x80-\xbf] [\x80-\xbf]
         | "\xed" [\x80-\x9f] [\x80-\xbf]
         | "\xf0" [\x90-\xbf] [\x80-\xbf] [\x80-\xbf]
         | [\xf1-\xf3] [\x80-\xbf] [\x80-\xbf] [\x80-\xbf]
         | "\xf4" [\x80-\x8f] [\x80-\xbf] [\x80-\xbf];
*/

/* ---- reporting ---- */

void lexer_stop(Lexer *lx)
{
    lx->fatal = true;
    lx->attention = true;
}

bool lexer_count_error(Lexer *lx)
{
    if (lx->fatal)
        return false;
    lx->errors++;
    if (lx->errors <= LEXER_MAX_ERRORS)
        return true;
    uint32_t at = (uint32_t)(lx->cur - lx->base);
    diag_report(&lx->c->diags, E0100, lexer_span(lx, at, at),
                "too many errors in this file: stopped after %d", (int)LEXER_MAX_ERRORS);
    lexer_stop(lx);
    return false;
}

Diagnostic *lexer_report(Lexer *lx, DiagCode code, uint32_t start, uint32_t end,
                         const char *fmt, ...)
{
    if (!lexer_count_error(lx))
        return NULL;
    va_list args;
    va_start(args, fmt);
    char *message = arena_vprintf(&lx->c->arena, fmt, args);
    va_end(args);
    return diag_report(&lx->c->diags, code, lexer_span(lx, start, end), "%s", message);
}

/* Gives the run of invalid bytes that just ended its final message. */
static void end_bad_utf8_run(Lexer *lx)
{
    Diagnostic *d = lx->bad_utf8;
    lx->bad_utf8 = NULL;
    if (!d)
        return;
    uint32_t start = d->span.start - lx->origin;
    uint32_t count = lx->bad_utf8_end - start;
    if (count > 1)
        d->message = arena_printf(&lx->c->arena, "invalid UTF-8: %u bytes at offset %u",
                                  count, start);
}

/* Invalid UTF-8 at p: one E0001 per run of adjacent bad bytes. */
void lexer_bad_utf8(Lexer *lx, const unsigned char *p)
{
    uint32_t at = lexer_offset(lx, p);
    if (lx->bad_utf8 && lx->bad_utf8_end == at) {
        lx->bad_utf8->span.end = lx->origin + at + 1;
        lx->bad_utf8_end = at + 1;
        return;
    }
    end_bad_utf8_run(lx);
    lx->bad_utf8 = lexer_report(lx, E0001, at, at + 1, "invalid UTF-8 byte 0x%02x at offset %u",
                                *p, at);
    lx->bad_utf8_end = at + 1;
    if (lx->bad_utf8)
        diag_set_label(&lx->c->diags, lx->bad_utf8, "not UTF-8");
}

/* Checks that text[start, end) is valid UTF-8, reporting what is not. */
void lexer_check_utf8(Lexer *lx, const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        int32_t cp;
        uint32_t n = utf8_read(p, &cp);
        if (n == 0 || p + n > end) {
            lexer_bad_utf8(lx, p);
            p++;
        } else {
            p += n;
        }
    }
}

/* ---- comments ---- */

static bool has_high_byte(const unsigned char *p, const unsigned char *end)
{
    unsigned char any = 0;
    for (; p < end; p++)
        any |= *p;
    return any & 0x80;
}

/* Keeps the comment tok[0, end - tok) for the syntax tree's list. */
static void record_comment(Lexer *lx, const unsigned char *tok, const unsigned char *end,
                           bool block)
{
    if (lx->comment_count == lx->comment_cap) {
        lx->comment_cap = lx->comment_cap ? lx->comment_cap * 2 : 64;
        lx->comments = xrealloc(lx->comments, lx->comment_cap * sizeof *lx->comments);
    }
    Comment *comment = &lx->comments[lx->comment_count++];
    comment->span = lexer_span(lx, lexer_offset(lx, tok), lexer_offset(lx, end));
    comment->text = (const char *)tok;
    comment->block = block;
}

/* After `//` (or `#`) at tok: to the end of the line, which is left for the newline
 * rule. */
static const unsigned char *skip_line_comment(Lexer *lx, const unsigned char *tok,
                                              const unsigned char *cur)
{
    const unsigned char *end = memchr(cur, '\n', (size_t)(lx->lim - cur));
    if (!end)
        end = lx->lim;
    if (has_high_byte(cur, end))
        lexer_check_utf8(lx, cur, end);
    record_comment(lx, tok, end > cur && end[-1] == '\r' ? end - 1 : end, false);
    return end;
}

static const unsigned char *hash_comment(Lexer *lx, const unsigned char *tok,
                                         const unsigned char *cur)
{
    Diagnostic *d = lexer_report(lx, E0002, lexer_offset(lx, tok), lexer_offset(lx, cur),
                                 "unexpected character `#`");
    if (d)
        diag_add_help(&lx->c->diags, d, "comments start with `//`");
    return skip_line_comment(lx, tok, cur);
}

/* After the opening of a block comment: to its end. Sets *newline when it spans lines. */
static const unsigned char *skip_block_comment(Lexer *lx, const unsigned char *tok,
                                               const unsigned char *cur, bool *newline)
{
    const unsigned char *end = memmem(cur, (size_t)(lx->lim - cur), "*/", 2);
    const unsigned char *after = end ? end + 2 : lx->lim;
    if (!end) {
        end = lx->lim;
        Diagnostic *d = lexer_report(lx, E0005, lexer_offset(lx, tok), lexer_offset(lx, tok) + 2,
                                     "unterminated block comment");
        if (d)
            diag_set_label(&lx->c->diags, d, "this comment is never closed with `*/`");
    }
    *newline = memchr(cur, '\n', (size_t)(end - cur)) != NULL;
    if (has_high_byte(cur, end))
        lexer_check_utf8(lx, cur, end);
    record_comment(lx, tok, after, true);
    return after;
}

/* ---- identifiers and stray characters ---- */

static int finish(Lexer *lx, Loc *loc, const unsigned char *tok, const unsigned char *cur,
                  int kind)
{
    lx->cur = cur;
    loc->start = lexer_offset(lx, tok);
    loc->end = lexer_offset(lx, cur);
    return kind;
}

/* The token at tok is left to the general path, which scans it again. */
static int leave(Lexer *lx, const unsigned char *tok)
{
    lx->cur = tok;
    return LEAVE;
}

/* Spaces that are not ASCII (no-break, ideographic, zero-width...): reported, then
 * skipped like a space, so that they do not break the code around them. */
static bool is_foreign_space(int32_t cp)
{
    if (cp == 0x200B || cp == 0x2060 || cp == 0xFEFF)
        return true;
    utf8proc_category_t category = utf8proc_category(cp);
    return cp >= 0x80 && (category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL
                          || category == UTF8PROC_CATEGORY_ZP);
}

/* One E0002 per run of unexpected characters; the parser gets a quiet STRAY token. */
static int stray(Lexer *lx, Loc *loc, const unsigned char *tok, const unsigned char *cur,
                 int32_t cp)
{
    uint32_t at = lexer_offset(lx, tok);
    if (lx->stray && lx->stray_end == at) {
        lx->stray->span.end = lx->origin + lexer_offset(lx, cur);
    } else if (cp == 0x201C || cp == 0x201D) {
        lx->stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                 "unexpected character `%.*s`", (int)(cur - tok), tok);
        if (lx->stray)
            diag_add_help(&lx->c->diags, lx->stray, "strings are written in straight quotes `\"`");
    } else if (cp < 0x80 && cp > 0x20 && cp != 0x7F) {
        lx->stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                 "unexpected character `%c`", (char)cp);
    } else if (cp < 0x80 || utf8_is_invisible(cp)) {
        lx->stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                 "unexpected character U+%04X", (unsigned)cp);
    } else {
        lx->stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                 "unexpected character `%.*s`", (int)(cur - tok), tok);
    }
    lx->stray_end = lexer_offset(lx, cur);
    return finish(lx, loc, tok, cur, STRAY);
}

/* `&` and `|` alone: reported, then read as `&&` and `||`. */
static int single_operator(Lexer *lx, Loc *loc, const unsigned char *tok,
                           const unsigned char *cur, int kind)
{
    uint32_t at = lexer_offset(lx, tok);
    const char *twice = kind == ANDAND ? "&&" : "||";
    Diagnostic *d = lexer_report(lx, E0002, at, at + 1, "unexpected character `%c`", *tok);
    if (d)
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, at, at + 1), twice,
                     FIX_MAYBE_INCORRECT, "did you mean `%s`?", twice);
    return finish(lx, loc, tok, cur, kind);
}

static const int keyword_tokens[KW_COUNT] = {
    [KW_WORKFLOW] = T_WORKFLOW, [KW_WORKER] = T_WORKER, [KW_TYPE] = T_TYPE,
    [KW_INPUT] = T_INPUT, [KW_OUTPUT] = T_OUTPUT, [KW_TIMEOUT] = T_TIMEOUT,
    [KW_STEP] = T_STEP, [KW_RETURN] = T_RETURN, [KW_USING] = T_USING,
    [KW_SLEEP] = T_SLEEP, [KW_AWAIT] = T_AWAIT, [KW_COMPUTE] = T_COMPUTE,
    [KW_WITH] = T_WITH, [KW_WHEN] = T_WHEN, [KW_FOR] = T_FOR, [KW_IN] = T_IN,
    [KW_IDEMPOTENCY_KEY] = T_IDEMPOTENCY_KEY, [KW_RETRY] = T_RETRY,
    [KW_QUEUE_TIMEOUT] = T_QUEUE_TIMEOUT, [KW_COMPENSATE] = T_COMPENSATE,
    [KW_TRUE] = T_TRUE, [KW_FALSE] = T_FALSE, [KW_NULL] = T_NULL,
};

Keyword lexer_keyword_lookup(const char *text, uint32_t len)
{
    for (int kw = KW_NONE + 1; kw < KW_COUNT; kw++) {
        const char *spelling = keyword_text((Keyword)kw);
        if (strlen(spelling) == len && memcmp(spelling, text, len) == 0)
            return (Keyword)kw;
    }
    return KW_NONE;
}

/* An identifier with non-ASCII characters, from tok; cur is where the ASCII fast path
 * stopped (tok when the first character is not ASCII). */
static int unicode_identifier(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                              const unsigned char *cur)
{
    if (cur == tok) {
        int32_t cp;
        uint32_t n = utf8_read(cur, &cp);
        if (n == 0) {
            lexer_bad_utf8(lx, cur);
            return finish(lx, loc, tok, cur + 1, STRAY);
        }
        if (is_foreign_space(cp)) {
            lexer_report(lx, E0002, lexer_offset(lx, tok), lexer_offset(lx, cur + n),
                         "unexpected character U+%04X", (unsigned)cp);
            return SKIPPED;
        }
        if (!utf8_is_id_start(cp))
            return stray(lx, loc, tok, cur + n, cp);
        cur += n;
    }
    for (;;) {
        int32_t cp;
        uint32_t n = utf8_read(cur, &cp);
        if (n == 0 || !utf8_is_id_continue(cp))
            break;
        cur += n;
    }
    uint32_t len;
    const char *nfc = utf8_nfc(&lx->c->arena, (const char *)tok, (uint32_t)(cur - tok), &len);
    Keyword kw = lexer_keyword_lookup(nfc, len);
    if (kw != KW_NONE)
        return finish(lx, loc, tok, cur, keyword_tokens[kw]);
    v->name = intern(&lx->c->names, nfc, len);
    return finish(lx, loc, tok, cur, IDENT);
}

/* ---- words from other languages: `and`, `or`, `not`, `if … then … else` ---- */

/* What the token stream asks of the kind of the last token, as bits of one table,
 * because the common path asks it before every word and every newline: whether the
 * token ends an operand, is the `}` that ends a block (a word after either may start a
 * member whose separator is missing: implied_separator), or lets a newline after it
 * continue the line (0: the start of the file). */
enum { ENDS_OPERAND = 1, ENDS_BLOCK = 2, CONTINUES_LINE = 4 };

static const unsigned char kind_traits[PARSER_TOKEN_LIMIT] = {
    [IDENT] = ENDS_OPERAND, [INT] = ENDS_OPERAND, [NUMBER] = ENDS_OPERAND,
    [STRING] = ENDS_OPERAND, [DURATION] = ENDS_OPERAND, [T_TRUE] = ENDS_OPERAND,
    [T_FALSE] = ENDS_OPERAND, [T_NULL] = ENDS_OPERAND, [T_INPUT] = ENDS_OPERAND,
    [RPAREN] = ENDS_OPERAND, [RBRACK] = ENDS_OPERAND, [QUESTION] = ENDS_OPERAND,
    [RBRACE] = ENDS_BLOCK,
    [0] = CONTINUES_LINE,
    [NEWLINE] = CONTINUES_LINE, [COMMA] = CONTINUES_LINE, [SEMI] = CONTINUES_LINE,
    [COLON] = CONTINUES_LINE, [DOT] = CONTINUES_LINE, [LBRACE] = CONTINUES_LINE,
    [LBRACK] = CONTINUES_LINE, [LPAREN] = CONTINUES_LINE, [QQ] = CONTINUES_LINE,
    [OROR] = CONTINUES_LINE, [ANDAND] = CONTINUES_LINE, [EQ] = CONTINUES_LINE,
    [NE] = CONTINUES_LINE, [LT] = CONTINUES_LINE, [LE] = CONTINUES_LINE,
    [GT] = CONTINUES_LINE, [GE] = CONTINUES_LINE, [PLUS] = CONTINUES_LINE,
    [MINUS] = CONTINUES_LINE, [STAR] = CONTINUES_LINE, [SLASH] = CONTINUES_LINE,
    [PERCENT] = CONTINUES_LINE, [BANG] = CONTINUES_LINE, [ASSIGN] = CONTINUES_LINE,
};

static bool ends_operand(int kind)
{
    return kind_traits[kind] & ENDS_OPERAND;
}

/* Whether a word after a token of this kind may start a member (implied_separator). */
static bool ends_operand_or_block(int kind)
{
    return kind_traits[kind] & (ENDS_OPERAND | ENDS_BLOCK);
}

/* Whether the last token handed out ends an operand inside an expression, so that a
 * binary operator may follow (`x` in `compute x`, not the key of `{ x y }`). */
static bool after_operand(const Lexer *lx)
{
    if (lx->depth == 0 || !ends_operand(lx->prev))
        return false;
    if (lx->open_kind[lx->depth - 1] != LBRACE)
        return true;
    return lx->prev2 != LBRACE && lx->prev2 != NEWLINE && lx->prev2 != COMMA &&
           lx->prev2 != SEMI;
}

/* Whether an operand must come next (after an operator, `(`, `:`, `compute`…). */
static bool before_operand(const Lexer *lx)
{
    if (lx->depth == 0)
        return false;
    switch (lx->prev) {
    case QQ: case OROR: case ANDAND: case EQ: case NE: case LT: case LE: case GT: case GE:
    case PLUS: case MINUS: case STAR: case SLASH: case PERCENT: case BANG:
    case LPAREN: case LBRACK: case COLON: case ASSIGN:
    case T_COMPUTE: case T_WHEN: case T_RETURN: case T_IDEMPOTENCY_KEY: case T_IN:
    case T_SLEEP:
        return true;
    case COMMA:
        return lx->open_kind[lx->depth - 1] != LBRACE;
    default:
        return false;
    }
}

/* Whether an operand starts at p, after spaces and tabs on the same line; *start gets
 * where it starts. */
static bool operand_follows(const Lexer *lx, const unsigned char *p,
                            const unsigned char **start)
{
    while (p < lx->lim && (*p == ' ' || *p == '\t'))
        p++;
    *start = p;
    if (p == lx->lim)
        return false;
    unsigned char ch = *p;
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '"' || ch == '(' || ch == '[' || ch == '!' || ch == '-' ||
           ch >= 0x80;
}

static bool word_is(const unsigned char *tok, const unsigned char *cur, const char *word)
{
    size_t len = strlen(word);
    return (size_t)(cur - tok) == len && memcmp(tok, word, len) == 0;
}

/* `a and b`, `a or b`, `not a`: reported with a fix, then read as `&&`, `||`, `!` so
 * that the expression is still checked. Returns the token kind, or 0 for a plain word. */
COLD static int word_operator(Lexer *lx, Loc *loc, const unsigned char *tok,
                         const unsigned char *cur)
{
    const unsigned char *next;
    bool binary = word_is(tok, cur, "and") || word_is(tok, cur, "or");
    bool unary = word_is(tok, cur, "not");
    if (!(binary && after_operand(lx)) && !(unary && before_operand(lx)))
        return 0;
    if (!operand_follows(lx, cur, &next))
        return 0;
    const char *spelling = unary ? "!" : *tok == 'a' ? "&&" : "||";
    uint32_t start = lexer_offset(lx, tok);
    /* `not x` becomes `!x`: the fix also takes the spaces after the word. */
    uint32_t end = lexer_offset(lx, unary ? next : cur);
    Diagnostic *d = lexer_report(lx, E0100, start, lexer_offset(lx, cur),
                                 "`%.*s` is not an operator in Orbit", (int)(cur - tok), tok);
    if (d) {
        diag_set_label(&lx->c->diags, d, "not an operator");
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, end), spelling,
                     FIX_MACHINE_APPLICABLE, "use `%s`", spelling);
    }
    return unary ? BANG : *tok == 'a' ? ANDAND : OROR;
}

/* `if c then a else b` where an operand is expected: reported once; the parser gets a
 * quiet stray token, so that it skips the rest of the member without a second report. */
COLD static bool conditional_expression(Lexer *lx, const unsigned char *tok,
                                   const unsigned char *cur)
{
    const unsigned char *next;
    if (!word_is(tok, cur, "if") || !before_operand(lx) || !operand_follows(lx, cur, &next))
        return false;
    Diagnostic *d = lexer_report(lx, E0100, lexer_offset(lx, tok), lexer_offset(lx, cur),
                                 "Orbit has no `if … then … else` expression");
    if (d) {
        diag_set_label(&lx->c->diags, d, "not an expression");
        diag_add_help(&lx->c->diags, d, "to run a step only when a condition holds, give it "
                                        "`when CONDITION`");
        diag_add_help(&lx->c->diags, d, "to choose between two values, compute each in a "
                                        "step with `when` (one with the condition, one with "
                                        "its negation) and take `first ?? second`");
    }
    return true;
}

static bool is_ascii_word_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

/* `step send-email`: a name after `step`, `workflow` or `type` written with `-` (kebab
 * case, as in YAML files). Reported with a fix using `_`, and read as that identifier so
 * that the declaration is kept. Returns the end of the name, or NULL. */
COLD static const unsigned char *kebab_name(Lexer *lx, YYSTYPE *v, const unsigned char *tok,
                                       const unsigned char *cur)
{
    const char *what = lx->prev == T_STEP ? "step" : lx->prev == T_WORKFLOW ? "workflow"
                     : lx->prev == T_TYPE ? "type" : NULL;
    if (!what || *cur != '-' || !is_ascii_word_char(cur[1]))
        return NULL;
    const unsigned char *end = cur;
    while (*end == '-' && is_ascii_word_char(end[1]))
        for (end++; is_ascii_word_char(*end); end++)
            ;
    if (*end >= 0x80)
        return NULL;
    uint32_t len = (uint32_t)(end - tok);
    char *name = arena_printf(&lx->c->arena, "%.*s", (int)len, tok);
    for (char *p = name; *p; p++)
        if (*p == '-')
            *p = '_';
    uint32_t start = lexer_offset(lx, tok);
    Diagnostic *d = lexer_report(lx, E0100, start, start + len, "%s names cannot contain `-`",
                                 what);
    if (d)
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, start + len), name,
                     FIX_MACHINE_APPLICABLE, "names are identifiers (letters, digits and `_`): "
                     "write `%s`", name);
    v->name = intern(&lx->c->names, name, len);
    return end;
}

/* An ASCII identifier; `foreign` when it is `and`, `or`, `not` or `if` (the DFA tells
 * them apart). On the common path only a plain one is read (and interned by lexer_next
 * once it is handed out). */
static INLINE int identifier(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                             const unsigned char *cur, bool foreign, bool common)
{
    if (common) {
        if (*cur >= 0x80 || *cur == '-' || foreign)
            return leave(lx, tok);
        return finish(lx, loc, tok, cur, IDENT);
    }
    if (*cur >= 0x80)
        return unicode_identifier(lx, v, loc, tok, cur);
    if (*cur == '-') {
        const unsigned char *kebab_end = kebab_name(lx, v, tok, cur);
        if (kebab_end)
            return finish(lx, loc, tok, kebab_end, IDENT);
    }
    size_t len = (size_t)(cur - tok);
    if (foreign) {
        int kind = word_operator(lx, loc, tok, cur);
        if (kind)
            return finish(lx, loc, tok, cur, kind);
        if (conditional_expression(lx, tok, cur))
            return finish(lx, loc, tok, cur, STRAY);
    }
    v->name = intern_inline(&lx->c->names, (const char *)tok, len);
    return finish(lx, loc, tok, cur, IDENT);
}

static INLINE int keyword(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, int kind, bool common)
{
    if (*cur >= 0x80)
        return common ? leave(lx, tok) : unicode_identifier(lx, v, loc, tok, cur);
    return finish(lx, loc, tok, cur, kind);
}

/* Literals the lexer reported as unreadable (they become EXPR_ERROR, and a syntax
 * error on one is not reported again) are kept by their start offset, in file order. */
COLD static void note_bad_literal(Lexer *lx, uint32_t start)
{
    if (lx->bad_literal_count == lx->bad_literal_cap) {
        lx->bad_literal_cap = lx->bad_literal_cap ? lx->bad_literal_cap * 2 : 16;
        lx->bad_literals = xrealloc(lx->bad_literals,
                                    lx->bad_literal_cap * sizeof *lx->bad_literals);
    }
    lx->bad_literals[lx->bad_literal_count++] = start;
}

bool lexer_literal_is_bad(const Lexer *lx, uint32_t start)
{
    uint32_t low = 0, high = lx->bad_literal_count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (lx->bad_literals[middle] < start)
            low = middle + 1;
        else
            high = middle;
    }
    return low < lx->bad_literal_count && lx->bad_literals[low] == start;
}

/* A literal from tok to cur: its decoder set lx->literal_bad if it reported it. */
static int finish_literal(Lexer *lx, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, int kind)
{
    if (lx->literal_bad) {
        lx->literal_bad = false;
        note_bad_literal(lx, lexer_offset(lx, tok));
    }
    return finish(lx, loc, tok, cur, kind);
}

/* Whether a letter follows p after spaces and tabs: only then can an integer be a
 * duration written with a space, which most integers are not (tested here, before the
 * call that would find out). The text ends with a NUL. */
static bool letter_follows(const unsigned char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
}

/* An integer, or a duration written with a space (`2 min`, reported). */
static int integer(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                   const unsigned char *cur)
{
    const unsigned char *end;
    int kind = letter_follows(cur) ? lexer_spaced_duration(lx, v, loc, tok, cur, &end) : 0;
    if (kind)
        return finish_literal(lx, loc, tok, end, kind);
    kind = lexer_integer(lx, v, loc, tok, cur);
    return finish_literal(lx, loc, tok, cur, kind);
}

/* A NUL byte: the end of the file, or a stray character inside it. */
static int nul_byte(Lexer *lx, Loc *loc, const unsigned char *tok, const unsigned char *cur)
{
    if (tok == lx->lim)
        return finish(lx, loc, tok, tok, END);
    return stray(lx, loc, tok, cur, 0);
}

/* ---- the scanner ---- */

/* The next raw token: no newline rule, no bracket matching. Inlined into the token
 * loop's common path (lexer_next, `common`), which reads only what needs no call (words,
 * punctuation, spaces); the general path calls scan_token, which reads everything. */
static INLINE int scan(Lexer *lx, YYSTYPE *v, Loc *loc, bool common)
{
    const unsigned char *cur = lx->cur;
    const unsigned char *mar;
    for (;;) {
        const unsigned char *tok = cur;
        bool newline;
        /*!re2c
            [ \t\r\f\v]+    { continue; }
            "\n"            { return finish(lx, loc, tok, cur, NEWLINE); }
            "//"            {
                                if (common)
                                    return leave(lx, tok);
                                cur = skip_line_comment(lx, tok, cur);
                                continue;
                            }
            "#"             {
                                if (common)
                                    return leave(lx, tok);
                                cur = hash_comment(lx, tok, cur);
                                continue;
                            }
            "/*"            {
                                if (common)
                                    return leave(lx, tok);
                                cur = skip_block_comment(lx, tok, cur, &newline);
                                if (newline)
                                    return finish(lx, loc, tok, cur, NEWLINE);
                                continue;
                            }

            "{"             { return finish(lx, loc, tok, cur, LBRACE); }
            "}"             { return finish(lx, loc, tok, cur, RBRACE); }
            "["             { return finish(lx, loc, tok, cur, LBRACK); }
            "]"             { return finish(lx, loc, tok, cur, RBRACK); }
            "("             { return finish(lx, loc, tok, cur, LPAREN); }
            ")"             { return finish(lx, loc, tok, cur, RPAREN); }
            ","             { return finish(lx, loc, tok, cur, COMMA); }
            ";"             { return finish(lx, loc, tok, cur, SEMI); }
            ":"             { return finish(lx, loc, tok, cur, COLON); }
            "."             { return finish(lx, loc, tok, cur, DOT); }
            "??"            { return finish(lx, loc, tok, cur, QQ); }
            "?"             { return finish(lx, loc, tok, cur, QUESTION); }
            "||"            { return finish(lx, loc, tok, cur, OROR); }
            "&&"            { return finish(lx, loc, tok, cur, ANDAND); }
            "=="            { return finish(lx, loc, tok, cur, EQ); }
            "!="            { return finish(lx, loc, tok, cur, NE); }
            "<="            { return finish(lx, loc, tok, cur, LE); }
            ">="            { return finish(lx, loc, tok, cur, GE); }
            "<"             { return finish(lx, loc, tok, cur, LT); }
            ">"             { return finish(lx, loc, tok, cur, GT); }
            "+"             { return finish(lx, loc, tok, cur, PLUS); }
            "-"             { return finish(lx, loc, tok, cur, MINUS); }
            "*"             { return finish(lx, loc, tok, cur, STAR); }
            "/"             { return finish(lx, loc, tok, cur, SLASH); }
            "%"             { return finish(lx, loc, tok, cur, PERCENT); }
            "!"             { return finish(lx, loc, tok, cur, BANG); }
            "="             { return finish(lx, loc, tok, cur, ASSIGN); }
            "&"             {
                                if (common)
                                    return leave(lx, tok);
                                return single_operator(lx, loc, tok, cur, ANDAND);
                            }
            "|"             {
                                if (common)
                                    return leave(lx, tok);
                                return single_operator(lx, loc, tok, cur, OROR);
                            }

            "\""            {
                                /* Not &cur: a scanner variable whose address is taken
                                 * lives in memory, and every byte scanned stores it. */
                                if (common)
                                    return finish(lx, loc, tok, cur, SCAN_STRING);
                                const unsigned char *end;
                                int kind = lexer_string(lx, v, loc, tok, &end);
                                return finish_literal(lx, loc, tok, end, kind);
                            }
            "\"" plain* "\""
                            {
                                if (common)
                                    return finish(lx, loc, tok, cur, SCAN_PLAIN_STRING);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_plain_string(lx, v, loc, tok, cur));
                            }
            "'" [^'\n\x00]* "'"
                            {
                                if (common)
                                    return leave(lx, tok);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_single_quoted(lx, v, loc, tok, cur));
                            }

            "workflow"      { return keyword(lx, v, loc, tok, cur, T_WORKFLOW, common); }
            "worker"        { return keyword(lx, v, loc, tok, cur, T_WORKER, common); }
            "type"          { return keyword(lx, v, loc, tok, cur, T_TYPE, common); }
            "input"         { return keyword(lx, v, loc, tok, cur, T_INPUT, common); }
            "output"        { return keyword(lx, v, loc, tok, cur, T_OUTPUT, common); }
            "timeout"       { return keyword(lx, v, loc, tok, cur, T_TIMEOUT, common); }
            "step"          { return keyword(lx, v, loc, tok, cur, T_STEP, common); }
            "return"        { return keyword(lx, v, loc, tok, cur, T_RETURN, common); }
            "using"         { return keyword(lx, v, loc, tok, cur, T_USING, common); }
            "sleep"         { return keyword(lx, v, loc, tok, cur, T_SLEEP, common); }
            "await"         { return keyword(lx, v, loc, tok, cur, T_AWAIT, common); }
            "compute"       { return keyword(lx, v, loc, tok, cur, T_COMPUTE, common); }
            "with"          { return keyword(lx, v, loc, tok, cur, T_WITH, common); }
            "when"          { return keyword(lx, v, loc, tok, cur, T_WHEN, common); }
            "for"           { return keyword(lx, v, loc, tok, cur, T_FOR, common); }
            "in"            { return keyword(lx, v, loc, tok, cur, T_IN, common); }
            "idempotency_key" { return keyword(lx, v, loc, tok, cur, T_IDEMPOTENCY_KEY, common); }
            "retry"         { return keyword(lx, v, loc, tok, cur, T_RETRY, common); }
            "queue_timeout" { return keyword(lx, v, loc, tok, cur, T_QUEUE_TIMEOUT, common); }
            "compensate"    { return keyword(lx, v, loc, tok, cur, T_COMPENSATE, common); }
            "true"          { return keyword(lx, v, loc, tok, cur, T_TRUE, common); }
            "false"         { return keyword(lx, v, loc, tok, cur, T_FALSE, common); }
            "null"          { return keyword(lx, v, loc, tok, cur, T_NULL, common); }
            "and" | "or" | "not" | "if"
                            { return identifier(lx, v, loc, tok, cur, true, common); }
            [a-zA-Z_] [a-zA-Z0-9_]*
                            { return identifier(lx, v, loc, tok, cur, false, common); }

            dec             {
                                if (common)
                                    return finish(lx, loc, tok, cur, SCAN_INTEGER);
                                return integer(lx, v, loc, tok, cur);
                            }
            dec "." [0-9]+ ("_" [0-9]+)* exp? | dec exp
                            {
                                if (common)
                                    return finish(lx, loc, tok, cur, SCAN_NUMBER);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_number(lx, v, loc, tok, cur));
                            }
            (dec unit)+     {
                                if (common)
                                    return finish(lx, loc, tok, cur, SCAN_DURATION);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_duration(lx, v, loc, tok, cur));
                            }
            [0-9] [0-9a-zA-Z_]* ("." [0-9a-zA-Z_]*)?
                            {
                                if (common)
                                    return leave(lx, tok);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_malformed_number(lx, v, loc, tok, cur));
                            }

            [\x80-\xff]     {
                                if (common)
                                    return leave(lx, tok);
                                int kind = unicode_identifier(lx, v, loc, tok, tok);
                                if (kind != SKIPPED)
                                    return kind;
                                int32_t cp;
                                cur = tok + utf8_read(tok, &cp);
                                continue;
                            }
            "\x00"          {
                                if (common)
                                    return leave(lx, tok);
                                return nul_byte(lx, loc, tok, cur);
                            }
            *               {
                                if (common)
                                    return leave(lx, tok);
                                return stray(lx, loc, tok, cur, *tok);
                            }
        */
    }
}

/* ---- brackets ---- */

static bool is_opener(int kind)
{
    return kind == LBRACE || kind == LBRACK || kind == LPAREN;
}

static bool is_closer(int kind)
{
    return kind == RBRACE || kind == RBRACK || kind == RPAREN;
}

static bool is_separator(int kind)
{
    return kind == NEWLINE || kind == COMMA || kind == SEMI;
}

static bool is_declaration_keyword(int kind)
{
    return kind == T_WORKFLOW || kind == T_WORKER || kind == T_TYPE;
}

static bool is_word(int kind)
{
    return kind == IDENT || (kind >= T_WORKFLOW && kind <= T_NULL);
}

static int closer_of(int opener)
{
    return opener == LBRACE ? RBRACE : opener == LBRACK ? RBRACK : RPAREN;
}

static int opener_of(int closer)
{
    return closer == RBRACE ? LBRACE : closer == RBRACK ? LBRACK : LPAREN;
}

static char bracket_char(int kind)
{
    switch (kind) {
    case LBRACE: return '{';
    case RBRACE: return '}';
    case LBRACK: return '[';
    case RBRACK: return ']';
    case LPAREN: return '(';
    default: return ')';
    }
}

static void enqueue(Lexer *lx, int kind, Loc loc)
{
    QueuedToken *q = &lx->queue[lx->queue_head + lx->queue_len++];
    q->kind = kind;
    q->loc = loc;
}

/* An invented token: of zero width, so quiet (lexer_token_is_quiet). */
static Loc quiet_at(uint32_t offset)
{
    Loc loc = { offset, offset };
    return loc;
}

static void label_unclosed(Lexer *lx, Diagnostic *d, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        diag_add_label(&lx->c->diags, d, lexer_span(lx, lx->open_at[i], lx->open_at[i] + 1),
                       "unclosed `%c`", bracket_char(lx->open_kind[i]));
}

static bool only_spaces(const unsigned char *p, const unsigned char *end)
{
    for (; p < end; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            return false;
    return true;
}

/* Gives the run of stray closers that just ended its final message. */
COLD static void end_stray_closers(Lexer *lx)
{
    Diagnostic *d = lx->stray_closers;
    lx->stray_closers = NULL;
    if (!d || lx->stray_closer_count < 2)
        return;
    Arena *arena = &lx->c->arena;
    int kind = lx->stray_closer_kind;
    if (kind) {
        d->message = arena_printf(arena, "%u unexpected closing delimiters `%c`",
                                  lx->stray_closer_count, bracket_char(kind));
        d->label = arena_printf(arena, "no `%c` is open for any of these",
                                bracket_char(opener_of(kind)));
    } else {
        d->message = arena_printf(arena, "%u unexpected closing delimiters",
                                  lx->stray_closer_count);
        d->label = "no bracket is open for any of these";
    }
}

/* A closing bracket with nothing open for it: one E0102 for a run of them separated
 * only by spaces and line ends (10,000 `}` are one mistake). */
COLD static void stray_closer(Lexer *lx, int kind, Loc loc)
{
    lx->stray_closer_total++;
    if (lx->stray_closers && lx->stray_closers_end <= loc.start &&
        only_spaces(lx->base + lx->stray_closers_end, lx->base + loc.start)) {
        lx->stray_closers->span.end = lx->origin + loc.end;
        lx->stray_closers_end = loc.end;
        lx->stray_closer_count++;
        if (lx->stray_closer_kind != kind)
            lx->stray_closer_kind = 0;
        return;
    }
    end_stray_closers(lx);
    lx->bracket_reports++;
    Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                 "unexpected closing delimiter `%c`", bracket_char(kind));
    if (!d)
        return;
    diag_set_label(&lx->c->diags, d, "no `%c` is open here", bracket_char(opener_of(kind)));
    lx->stray_closers = d;
    lx->stray_closers_end = loc.end;
    lx->stray_closer_count = 1;
    lx->stray_closer_kind = kind;
}

/* A closing bracket: queue it, with invented closers before it when it closes an outer
 * bracket, in place of the expected one when it is mistyped, or not at all when stray. */
static void close_bracket(Lexer *lx, int kind, Loc loc)
{
    int top = lx->depth ? lx->open_kind[lx->depth - 1] : 0;
    if (top == opener_of(kind)) {
        enqueue(lx, kind, loc);
        return;
    }
    int match = -1;
    for (int i = (int)lx->depth - 1; i >= 0; i--)
        if (lx->open_kind[i] == opener_of(kind)) {
            match = i;
            break;
        }
    if (match >= 0) {
        Diagnostic *d = lexer_report(lx, E0101, loc.start, loc.end, "expected `%c`, found `%c`",
                                     bracket_char(closer_of(top)), bracket_char(kind));
        if (d) {
            diag_set_label(&lx->c->diags, d, "`%c` expected before this",
                           bracket_char(closer_of(top)));
            label_unclosed(lx, d, (uint32_t)match + 1, lx->depth);
        }
        for (int i = (int)lx->depth - 1; i > match; i--)
            enqueue(lx, closer_of(lx->open_kind[i]), quiet_at(loc.start));
        enqueue(lx, kind, loc);
        return;
    }
    if (top == LPAREN || top == LBRACK) {
        Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                     "mismatched closing delimiter `%c`", bracket_char(kind));
        if (d) {
            diag_set_label(&lx->c->diags, d, "expected `%c`", bracket_char(closer_of(top)));
            label_unclosed(lx, d, lx->depth - 1, lx->depth);
            char replacement[2] = { bracket_char(closer_of(top)), 0 };
            diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), replacement,
                         FIX_MAYBE_INCORRECT, "use `%c` to close the `%c`",
                         replacement[0], bracket_char(top));
        }
        enqueue(lx, closer_of(top), loc);    /* quiet: its text is another closer */
        return;
    }
    stray_closer(lx, kind, loc);
}

/* End of file: report what is still open, close it quietly, then END. */
static void end_of_file(Lexer *lx, Loc loc)
{
    lx->unclosed_at_end = lx->depth;
    if (lx->depth > 0) {
        lx->bracket_reports++;
        int top = lx->open_kind[lx->depth - 1];
        Diagnostic *d = lexer_report(lx, E0101, loc.start, loc.end,
                                     "expected `%c`, found end of file",
                                     bracket_char(closer_of(top)));
        if (d) {
            diag_set_label(&lx->c->diags, d, "the file ends here");
            label_unclosed(lx, d, 0, lx->depth);
        }
        for (int i = (int)lx->depth - 1; i >= 0; i--)
            enqueue(lx, closer_of(lx->open_kind[i]), quiet_at(loc.start));
    }
    enqueue(lx, END, loc);
}

/* ---- closing by indentation ---- */

/* Makes the line that starts at `start` the tracked line. */
static void set_line(Lexer *lx, uint32_t start)
{
    const unsigned char *p = lx->base + start;
    uint32_t width = 0;
    for (; p < lx->lim && (*p == ' ' || *p == '\t'); p++)
        width = *p == '\t' ? (width / 4 + 1) * 4 : width + 1;
    lx->line_start = start;
    lx->line_indent_end = lexer_offset(lx, p);
    lx->line_indent = width;
}

/* Moves the line tracker to the line holding `offset`. Offsets only grow, so every
 * byte is looked at once. */
static void track_line(Lexer *lx, uint32_t offset)
{
    if (offset <= lx->line_scanned)
        return;
    const unsigned char *from = lx->base + lx->line_scanned;
    const unsigned char *nl = memrchr(from, '\n', offset - lx->line_scanned);
    lx->line_scanned = offset;
    if (nl)
        set_line(lx, lexer_offset(lx, nl) + 1);
}

/* `}` and `{` closed by indentation: the innermost bracket left open, the others closed
 * at the same place, and a fix that adds the closers, each on its own line indented like
 * the line of its opener, before the line of `at`. */
static void report_unclosed(Lexer *lx, uint32_t keep, Loc at, bool closer)
{
    uint32_t top = lx->depth - 1;
    char bracket = bracket_char(lx->open_kind[top]);
    Diagnostic *d = lexer_report(lx, E0101, lx->open_at[top], lx->open_at[top] + 1,
                                 "unclosed `%c`", bracket);
    if (!d)
        return;
    DiagSink *diags = &lx->c->diags;
    diag_set_label(diags, d, "this `%c` is never closed", bracket);
    label_unclosed(lx, d, keep, top);
    diag_add_label(diags, d, lexer_span(lx, at.start, at.end),
                   closer ? "going by its indentation, this closes an outer block"
                          : "going by its indentation, this line is outside the block");
    char *text = arena_alloc(&lx->c->arena, 1);
    text[0] = 0;
    for (uint32_t i = top + 1; i-- > keep;) {
        const unsigned char *line = lx->base + lx->open_line[i];
        const unsigned char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        text = arena_printf(&lx->c->arena, "%s%.*s%c\n", text, (int)(p - line), line,
                            bracket_char(closer_of(lx->open_kind[i])));
    }
    diag_add_fix(diags, d, lexer_span(lx, lx->line_start, lx->line_start), text,
                 FIX_MAYBE_INCORRECT, "close %s where the indentation says %s",
                 top > keep ? "them" : "it", top > keep ? "they end" : "it ends");
}

static bool reads_indentation(const Lexer *lx)
{
    return lx->indentation_pass;
}

void lexer_read_indentation(Lexer *lx, uint32_t close_budget, uint32_t drop_budget)
{
    lx->indentation_pass = close_budget > 0 || drop_budget > 0;
    if (lx->indentation_pass)
        lx->attention = true;
    lx->close_budget = close_budget;
    lx->drop_budget = drop_budget;
}

/* A newline right after a `{`: the bracket opens a block laid out on lines of its own. */
static void note_line_end(Lexer *lx)
{
    if (reads_indentation(lx) && lx->prev == LBRACE && lx->depth > 0 &&
        lx->open_at[lx->depth - 1] == lx->prev_loc.start)
        lx->open_ends_line[lx->depth - 1] = true;
}

/* Second pass only (drop_budget > 0): `step a { worker "x" } }`. A `}` that would close a
 * block laid out on lines of its own (its `{` ends a line above), on a line indented more
 * than the `{`'s line, closes nothing: reported (E0102) and dropped. */
COLD static bool drop_by_indentation(Lexer *lx, int kind, Loc loc)
{
    if (lx->drop_budget == 0 || lx->depth == 0)
        return false;
    uint32_t top = lx->depth - 1;
    if (lx->open_kind[top] != opener_of(kind) || !lx->open_ends_line[top])
        return false;
    track_line(lx, loc.start);
    if (lx->open_line[top] == lx->line_start || lx->line_indent <= lx->open_indent[top])
        return false;
    lx->drop_budget--;
    lx->bracket_reports++;
    Diagnostic *d = lexer_report(lx, E0102, loc.start, loc.end,
                                 "unexpected closing delimiter `%c`", bracket_char(kind));
    if (d) {
        diag_set_label(&lx->c->diags, d, "going by its indentation, this closes nothing");
        diag_add_label(&lx->c->diags, d, lexer_span(lx, lx->open_at[top], lx->open_at[top] + 1),
                       "this `%c` is closed further down", bracket_char(lx->open_kind[top]));
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), "",
                     FIX_MAYBE_INCORRECT, "remove it");
    }
    return true;
}

/* Second pass only (close_budget > 0): a word or a closer that starts a line, less
 * indented than the line of the open bracket, closes it (and any other bracket opened on
 * a more indented line), as rustc guesses: a `}` closes the bracket whose line is
 * indented like it, a word belongs to the innermost bracket whose line is indented less.
 * Queues the invented closers and the token; false when the indentation agrees. */
COLD static bool close_by_indentation(Lexer *lx, int kind, const YYSTYPE *v, Loc loc)
{
    bool closer = is_closer(kind);
    if (lx->close_budget == 0 || lx->depth == 0 || (!closer && !is_word(kind)))
        return false;
    track_line(lx, loc.start);
    if (loc.start != lx->line_indent_end)
        return false;                    /* not the first token of its line */
    uint32_t indent = lx->line_indent;
    int keep = (int)lx->depth - 1;       /* the innermost bracket that stays open */
    if (closer) {
        while (keep >= 0 && lx->open_indent[keep] > indent)
            keep--;
        if (keep < 0 || lx->open_indent[keep] != indent || lx->open_kind[keep] != opener_of(kind))
            return false;
    } else {
        while (keep >= 0 && lx->open_indent[keep] >= indent)
            keep--;
    }
    uint32_t count = (uint32_t)((int)lx->depth - 1 - keep);
    if (count == 0 || count > lx->close_budget)
        return false;
    lx->close_budget -= count;
    lx->bracket_reports++;
    report_unclosed(lx, (uint32_t)(keep + 1), loc, closer);
    for (int i = (int)lx->depth - 1; i > keep; i--)
        enqueue(lx, closer_of(lx->open_kind[i]), quiet_at(loc.start));
    enqueue(lx, kind, loc);
    lx->queue[lx->queue_head + lx->queue_len - 1].value = *v;
    return true;
}

/* Whether a `{` about to open holds clauses: it follows the name of a workflow, step or
 * worker (`workflow w {`, `worker "x" {`, a misspelt `workfow w {`), or `retry` or
 * `compensate`. A type's body and every `{` inside an expression hold attributes. */
static bool opens_clause_block(const Lexer *lx)
{
    if (lx->prev == T_RETRY || lx->prev == T_COMPENSATE || lx->prev == STRING)
        return true;
    return lx->prev == IDENT && lx->prev2 != T_TYPE;
}

/* An opening bracket, below the nesting limit, on the stack. */
static INLINE void push_bracket(Lexer *lx, int kind, Loc loc)
{
    lx->open_kind[lx->depth] = kind;
    lx->open_at[lx->depth] = loc.start;
    lx->open_clauses[lx->depth] = kind == LBRACE && opens_clause_block(lx);
}

/* An opening bracket; false (after E0009, fatal) when it is one too deep. */
static bool open_bracket(Lexer *lx, int kind, Loc loc)
{
    if (lx->depth == AST_MAX_DEPTH) {
        diag_report(&lx->c->diags, E0009, lexer_span(lx, loc.start, loc.end),
                    "nesting too deep: more than %d levels of brackets", (int)AST_MAX_DEPTH);
        lexer_stop(lx);
        lx->too_deep = true;
        return false;
    }
    push_bracket(lx, kind, loc);
    if (reads_indentation(lx)) {
        track_line(lx, loc.start);
        lx->open_indent[lx->depth] = lx->line_indent;
        lx->open_line[lx->depth] = lx->line_start;
        lx->open_ends_line[lx->depth] = false;
    }
    lx->depth++;
    return true;
}

/* `{ a: 1,, b: 2 }`: a `,` or `;` right after another one in a block leaves an empty
 * member, an error as in JSON. Reported once per run, with a fix removing the extra
 * separators; the parser never sees them. Returns whether the token is dropped. */
COLD static bool extra_separator(Lexer *lx, int kind, Loc loc)
{
    bool after_separator = lx->prev == COMMA || lx->prev == SEMI;
    if ((kind != COMMA && kind != SEMI) || !after_separator || lx->skipping ||
        lx->depth == 0 || lx->open_kind[lx->depth - 1] != LBRACE)
        return false;
    Diagnostic *d = lx->extra_separator;
    if (d && lx->extra_separator_end <= loc.start &&
        only_spaces(lx->base + lx->extra_separator_end, lx->base + loc.start)) {
        d->span.end = lx->origin + loc.end;
        d->fixes->span.end = d->span.end;
        lx->extra_separator_end = loc.end;
        return true;
    }
    d = lexer_report(lx, E0100, loc.start, loc.end, "expected a member, found `%c`",
                     kind == COMMA ? ',' : ';');
    lx->extra_separator = d;
    lx->extra_separator_end = loc.end;
    if (d) {
        diag_set_label(&lx->c->diags, d, "nothing between this and the previous separator");
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, loc.start, loc.end), "",
                     FIX_MAYBE_INCORRECT, "remove the extra separator");
    }
    return true;
}

/* Whether a newline after a token of this kind continues the line. */
static bool continues_line(int kind)
{
    return kind_traits[kind] & CONTINUES_LINE;
}

static bool newline_is_insignificant(const Lexer *lx)
{
    if (lx->depth > 0) {
        int top = lx->open_kind[lx->depth - 1];
        if (top == LPAREN || top == LBRACK)
            return true;
    }
    return continues_line(lx->prev);
}

static __attribute__((noinline)) int scan_token(Lexer *lx, YYSTYPE *v, Loc *loc)
{
    return scan(lx, v, loc, false);
}

/* The next token with brackets balanced and the newline rule applied; *pre_depth gets
 * the bracket depth before the token. `scanned` is a token already scanned (the common
 * path hands over those it does not handle itself), or NOT_SCANNED. */
static int next_balanced(Lexer *lx, YYSTYPE *v, Loc *loc, uint32_t *pre_depth, int scanned)
{
    for (;; scanned = NOT_SCANNED) {
        int kind = scanned;
        if (kind != NOT_SCANNED)
            goto balance;
        if (lx->fatal) {
            loc->start = loc->end = lexer_offset(lx, lx->lim);
            *pre_depth = lx->depth;
            return END;
        }
        if (lx->queue_len > 0) {
            QueuedToken *q = &lx->queue[lx->queue_head++];
            if (--lx->queue_len == 0)
                lx->queue_head = 0;
            *loc = q->loc;
            *v = q->value;
            *pre_depth = lx->depth;
            if (is_closer(q->kind))
                lx->depth--;
            return q->kind;
        }
        kind = scan_token(lx, v, loc);
    balance:
        if (lx->stray_closers && kind != NEWLINE && !is_closer(kind))
            end_stray_closers(lx);
        if (kind == NEWLINE) {
            note_line_end(lx);
            if (newline_is_insignificant(lx))
                continue;
        } else if ((kind == COMMA || kind == SEMI) && lx->depth > 0 &&
                   (lx->prev == COMMA || lx->prev == SEMI) && extra_separator(lx, kind, *loc)) {
            continue;
        } else if (reads_indentation(lx) && (close_by_indentation(lx, kind, v, *loc) ||
                                              (is_closer(kind) && drop_by_indentation(lx, kind, *loc)))) {
            continue;
        } else if (is_opener(kind)) {
            if (!open_bracket(lx, kind, *loc))
                continue;
            *pre_depth = lx->depth - 1;
            return kind;
        } else if (is_closer(kind)) {
            close_bracket(lx, kind, *loc);
            continue;
        } else if (kind == END) {
            end_of_file(lx, *loc);
            continue;
        }
        *pre_depth = lx->depth;
        return kind;
    }
}

/* ---- recovery ---- */

/* Where skipping stops: a separator of the block at skip_level or its `}`; at top level,
 * a declaration keyword or (when `starts_line`) a word at the start of a line. */
static bool is_sync_point(const Lexer *lx, int kind, uint32_t pre_depth, bool starts_line)
{
    if (kind == END)
        return true;
    if (lx->skip_level == 0)
        return pre_depth == 0 && (is_declaration_keyword(kind) || (starts_line && is_word(kind)));
    return pre_depth == lx->skip_level && (is_separator(kind) || kind == RBRACE);
}

/* Hands out RECOVERED, then the token kept in lx->replay. */
static int recovered(Lexer *lx, int kind, const YYSTYPE *v, Loc loc, Loc *out)
{
    lx->replay.kind = kind;
    lx->replay.value = *v;
    lx->replay.loc = loc;
    lx->replay_pending = true;
    *out = quiet_at(loc.start);
    return RECOVERED;
}

/* The bracket depth before the last token handed out: brackets change the depth as they
 * are handed out, and nothing else does. */
static uint32_t last_token_depth(const Lexer *lx)
{
    if (is_opener(lx->prev))
        return lx->depth - 1;
    if (is_closer(lx->prev))
        return lx->depth + 1;
    return lx->depth;
}

void lexer_recover(Lexer *lx)
{
    uint32_t prev_depth = last_token_depth(lx);
    uint32_t level = 0;
    for (uint32_t i = prev_depth; i > 0; i--)
        if (lx->open_kind[i - 1] == LBRACE) {
            level = i;
            break;
        }
    lx->skip_level = level;
    if (is_sync_point(lx, lx->prev, prev_depth, false)) {
        /* The parser drops the token it failed on; it comes back after RECOVERED. Its
         * value is still in the parser's lookahead, where the last call left it. */
        lx->replay.kind = lx->prev;
        lx->replay.value = *lx->value_out;
        lx->replay.loc = lx->prev_loc;
        lx->recovered_pending = true;
    } else {
        lx->skipping = true;
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
    if (is_closer(kind))
        return first != (unsigned char)bracket_char(kind);
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
    return top > 0 && lx->open_kind[top - 1] == LBRACE && lx->open_clauses[top - 1];
}

/* ---- the token stream ---- */

/* A token at top level: the first token of the current item (for E0104). */
static void note_top_level(Lexer *lx, int kind, Loc loc)
{
    if (lx->item_start || is_declaration_keyword(kind)) {
        lx->decl_kind = kind;
        lx->decl_loc = loc;
        lx->item_start = false;
    }
    if (is_separator(kind))
        lx->item_start = true;
}

/* Keeps what the syntax error messages and error recovery read about the token just
 * handed out (its bracket depth is derived: last_token_depth): its kind and span and
 * the two tokens before it. */
static inline void remember(Lexer *lx, int kind, const Loc *loc)
{
    lx->prev2_before = lx->prev2;
    lx->prev2 = lx->prev;
    lx->prev2_loc = lx->prev_loc;
    lx->prev = kind;
    lx->prev_loc = *loc;
}

/* And where the current top-level item starts: a token at top level, or a closer that
 * returns there (pre_depth: the depth before the token). */
static inline void note_item(Lexer *lx, int kind, const Loc *loc, uint32_t pre_depth)
{
    if (pre_depth == 0)
        note_top_level(lx, kind, *loc);
    else if (pre_depth == 1 && is_closer(kind))
        lx->item_start = true;
}

/* Counts a run of `!` and `-` tokens (the last token remembered is the one before this
 * one); E0009 past AST_MAX_DEPTH of them. */
static bool unary_run_too_long(Lexer *lx, int kind, Loc loc)
{
    if (kind != BANG && kind != MINUS)
        return false;
    lx->unary_run = lx->prev == BANG || lx->prev == MINUS ? lx->unary_run + 1 : 1;
    if (lx->unary_run <= AST_MAX_DEPTH)
        return false;
    diag_report(&lx->c->diags, E0009, lexer_span(lx, loc.start, loc.end),
                "nesting too deep: more than %d operators in a row", (int)AST_MAX_DEPTH);
    lexer_stop(lx);
    lx->too_deep = true;
    return true;
}

/* The next character after `end` on the same line, past spaces and tabs (0 if none). */
static int next_char(const Lexer *lx, uint32_t end)
{
    const unsigned char *p = lx->base + end;
    while (p < lx->lim && (*p == ' ' || *p == '\t'))
        p++;
    return p < lx->lim ? *p : 0;
}

/* `with { a: 1 b: 2 }`, `await "done" timeout 1h`: a member that starts on the line of
 * the previous one, right after a complete operand, with no separator between them. No
 * expression continues with a member keyword or with `name:`, so the separator is
 * certainly missing: reported (E0100) with a fix adding `,` before an attribute or `;`
 * before a clause. Returns the separator to insert, or 0. */
COLD static char missing_separator(Lexer *lx, int kind, const Loc *loc)
{
    bool in_block = lx->depth > 0 && lx->open_kind[lx->depth - 1] == LBRACE;
    if (!in_block || lx->skipping)
        return 0;
    if (lx->prev2 == LBRACE || lx->prev2 == 0 || is_separator(lx->prev2))
        return 0;     /* the previous token starts its member: not a complete one */
    int after = next_char(lx, loc->end);
    bool attribute = is_word(kind) && after == ':';
    /* `input` is also the workflow's input in expressions: a clause only before `{`. */
    bool clause = kind >= T_WORKFLOW && kind <= T_COMPENSATE && kind != T_IN &&
                  kind != T_TYPE && (kind != T_INPUT || after == '{');
    if (!attribute && !clause)
        return 0;
    char separator = attribute ? ',' : ';';
    uint32_t at = lx->prev_loc.end;
    Diagnostic *d = lexer_report(lx, E0100, loc->start, loc->end, "missing `%c` before `%.*s`",
                                 separator, (int)(loc->end - loc->start), lx->base + loc->start);
    if (d) {
        diag_set_label(&lx->c->diags, d, "a new member starts here");
        char text[2] = { separator, 0 };
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, at, at), text, FIX_MACHINE_APPLICABLE,
                     "add `%c` between the members", separator);
    }
    return separator;
}

/* A word right after the `}` that closes a block inside a block starts a new member, as
 * if a newline separated them (`input { a: int } output int`: no expression can continue
 * with a word); so does a member that follows another on its line with its separator
 * missing (reported). Returns the invented newline and queues the word. */
static int implied_separator(Lexer *lx, int kind, YYSTYPE *v, Loc *loc)
{
    if (lx->queue_len != 0)
        return kind;
    if (!is_word(kind))
        return kind;
    bool after_block = lx->prev == RBRACE && lx->depth > 0
                       && lx->open_kind[lx->depth - 1] == LBRACE;
    if (!after_block && !(ends_operand(lx->prev) && missing_separator(lx, kind, loc)))
        return kind;
    QueuedToken *q = &lx->queue[lx->queue_head + lx->queue_len++];
    q->kind = kind;
    q->loc = *loc;
    q->value = *v;
    loc->end = loc->start;    /* zero width: quiet */
    return NEWLINE;
}

/* Whether the next token needs the general path: something is queued or pending,
 * the file is abandoned, recovery is skipping, this is the indentation pass, or a run
 * of stray closers is open. */
static bool needs_attention(const Lexer *lx)
{
    return lx->fatal || lx->queue_len > 0 || lx->recovered_pending || lx->replay_pending ||
           lx->skipping || lx->indentation_pass || lx->stray_closers;
}

/* The token loop for every case: replays, queued and invented tokens, recovery, the
 * indentation pass, mistakes. `scanned` is a token the common path scanned and passed
 * on, or NOT_SCANNED. */
COLD static int next_general(Lexer *lx, YYSTYPE *v, Loc *loc, int scanned)
{
    lx->value_out = v;
    if (lx->recovered_pending) {
        lx->recovered_pending = false;
        lx->replay_pending = true;
        *loc = quiet_at(lx->replay.loc.start);
        return RECOVERED;
    }
    if (lx->replay_pending) {
        lx->replay_pending = false;
        lx->attention = needs_attention(lx);
        *v = lx->replay.value;
        *loc = lx->replay.loc;
        return lx->replay.kind;
    }
    for (;; scanned = NOT_SCANNED) {
        uint32_t pre_depth;
        int kind = next_balanced(lx, v, loc, &pre_depth, scanned);
        kind = implied_separator(lx, kind, v, loc);
        if (unary_run_too_long(lx, kind, *loc))
            continue;
        bool starts_line = lx->item_start;
        remember(lx, kind, loc);
        note_item(lx, kind, loc, pre_depth);
        if (lx->skipping) {
            if (!is_sync_point(lx, kind, pre_depth, starts_line))
                continue;
            lx->skipping = false;
            kind = recovered(lx, kind, v, *loc, loc);
        }
        lx->attention = needs_attention(lx);
        return kind;
    }
}

/* A literal the common path's scanner matched (SCAN_STRING…, loc spans it), read by
 * its decoder and handed out. */
COLD static int decoded_literal(Lexer *lx, YYSTYPE *v, Loc *loc, int scanned)
{
    const unsigned char *tok = lx->base + loc->start;
    const unsigned char *cur = lx->cur;
    const unsigned char *end;
    int kind;
    switch (scanned) {
    case SCAN_PLAIN_STRING:
        kind = finish_literal(lx, loc, tok, cur, lexer_plain_string(lx, v, loc, tok, cur));
        break;
    case SCAN_STRING:
        kind = lexer_string(lx, v, loc, tok, &end);
        kind = finish_literal(lx, loc, tok, end, kind);
        break;
    case SCAN_INTEGER:
        kind = integer(lx, v, loc, tok, cur);
        break;
    case SCAN_NUMBER:
        kind = finish_literal(lx, loc, tok, cur, lexer_number(lx, v, loc, tok, cur));
        break;
    default:
        kind = finish_literal(lx, loc, tok, cur, lexer_duration(lx, v, loc, tok, cur));
        break;
    }
    remember(lx, kind, loc);
    if (lx->depth == 0)
        note_top_level(lx, kind, *loc);
    return kind;
}

/* A literal the common path's scanner matched (SCAN_STRING…, loc spans it), handed out.
 * The common ones, a short integer, a duration of one unit and a plain string that is
 * not too long, are read here with no call to come back from (the string's copy into
 * the arena is a call in tail position); the others by decoded_literal. */
static __attribute__((noinline)) int literal_token(Lexer *lx, YYSTYPE *v, Loc *loc,
                                                   int scanned)
{
    const unsigned char *tok = lx->base + loc->start;
    const unsigned char *cur = lx->cur;
    int kind;
    switch (scanned) {
    case SCAN_INTEGER:
        if (cur - tok > LEXER_SAFE_DIGITS || letter_follows(cur))
            return decoded_literal(lx, v, loc, scanned);
        v->integer = (int64_t)lexer_short_decimal(tok, cur);
        kind = INT;
        break;
    case SCAN_DURATION:
        if (!lexer_simple_duration(tok, cur, &v->integer))
            return decoded_literal(lx, v, loc, scanned);
        kind = DURATION;
        break;
    case SCAN_PLAIN_STRING:
        if (cur - tok > LEXER_MAX_STRING)
            return decoded_literal(lx, v, loc, scanned);
        kind = STRING;
        break;
    default:
        return decoded_literal(lx, v, loc, scanned);
    }
    remember(lx, kind, loc);
    if (lx->depth == 0)
        note_top_level(lx, kind, *loc);
    if (kind == STRING)
        return lexer_plain_string(lx, v, loc, tok, cur);   /* short enough: nothing to report */
    return kind;
}

/* A name met for the first time goes into the free slot the lookup found. */
COLD static int new_name(Interner *names, YYSTYPE *v, uint32_t slot, const char *text,
                         uint32_t len, uint32_t hash)
{
    v->name = intern_add(names, slot, text, len, hash);
    return IDENT;
}

/* The value of the identifier just handed out (loc): its interned name. A new name is
 * added by a call in tail position, so that the common path keeps no register across
 * it. */
static __attribute__((noinline)) int name_token(Lexer *lx, YYSTYPE *v, const Loc *loc)
{
    Interner *names = &lx->c->names;
    const char *text = (const char *)lx->base + loc->start;
    uint32_t len = loc->end - loc->start;
    uint32_t hash = intern_hash(text, len);
    uint32_t slot = intern_find_slot(names, text, len, hash);
    if (!names->slots[slot].name)
        return new_name(names, v, slot, text, len, hash);
    v->name = names->slots[slot].name;
    return IDENT;
}

/* An identifier right after an operand goes on to the general path (it may start a
 * member whose separator is missing), with its value. */
COLD static int identifier_after_operand(Lexer *lx, YYSTYPE *v, Loc *loc)
{
    name_token(lx, v, loc);
    return next_general(lx, v, loc, IDENT);
}

/* The common path: while nothing is pending, tokens that need no more than the newline
 * rule, a bracket that opens or closes what is open, or nothing at all are handled
 * here; every other token goes on to next_general, as scanned or (LEAVE) to be scanned
 * again. Nothing here calls a function it must come back from: the loop keeps no
 * register across a call. */
int lexer_next(Lexer *lx, YYSTYPE *v, Loc *loc)
{
    if (lx->attention)
        return next_general(lx, v, loc, NOT_SCANNED);
    for (;;) {
        int kind = scan(lx, v, loc, true);
        uint32_t pre_depth = lx->depth;
        switch (kind) {
        case LEAVE:
            return next_general(lx, v, loc, NOT_SCANNED);
        case SCAN_STRING: case SCAN_PLAIN_STRING: case SCAN_INTEGER: case SCAN_NUMBER:
        case SCAN_DURATION:
            return literal_token(lx, v, loc, kind);
        case NEWLINE:
            if (newline_is_insignificant(lx))
                continue;
            break;
        case COMMA: case SEMI:
            if (lx->depth > 0 && (lx->prev == COMMA || lx->prev == SEMI))
                return next_general(lx, v, loc, kind);
            break;
        case LBRACE: case LBRACK: case LPAREN:
            if (lx->depth == AST_MAX_DEPTH)
                return next_general(lx, v, loc, kind);
            push_bracket(lx, kind, *loc);
            lx->depth++;
            break;
        case RBRACE: case RBRACK: case RPAREN:
            if (lx->depth == 0 || lx->open_kind[lx->depth - 1] != opener_of(kind))
                return next_general(lx, v, loc, kind);
            lx->depth--;
            remember(lx, kind, loc);
            if (lx->depth == 0)
                lx->item_start = true;
            return kind;
        case BANG: case MINUS:
            return next_general(lx, v, loc, kind);
        case IDENT:
            if (ends_operand_or_block(lx->prev))
                return identifier_after_operand(lx, v, loc);
            remember(lx, kind, loc);
            if (pre_depth == 0)
                note_top_level(lx, kind, *loc);
            return name_token(lx, v, loc);
        default:
            if (is_word(kind) && ends_operand_or_block(lx->prev))
                return next_general(lx, v, loc, kind);
            break;
        }
        remember(lx, kind, loc);
        if (pre_depth == 0)
            note_top_level(lx, kind, *loc);
        return kind;
    }
}

/* ---- setup ---- */

void lexer_init(Lexer *lx, Compiler *c, uint32_t file)
{
    memset(lx, 0, sizeof *lx);
    const SourceFile *source = source_file(&c->sources, file);
    lx->c = c;
    lx->file = file;
    lx->origin = source->origin;
    lx->base = (const unsigned char *)source->text;
    lx->lim = lx->base + source->len;
    lx->cur = lx->base;
    if (source->len >= 3 && memcmp(lx->base, "\xEF\xBB\xBF", 3) == 0)
        lx->cur += 3;
    lx->item_start = true;
    lx->attention = true;     /* the first token takes the general path: lx->value_out */
    set_line(lx, 0);
    for (int kw = 0; kw < KW_COUNT; kw++)
        lx->keyword_names[kw] = intern_cstr(&c->names, keyword_text((Keyword)kw));
}

void lexer_free(Lexer *lx)
{
    /* Runs still open at the end get their final messages. */
    end_bad_utf8_run(lx);
    end_stray_closers(lx);
    free(lx->scratch);
    lx->scratch = NULL;
    lx->scratch_cap = 0;
    free(lx->comments);
    lx->comments = NULL;
    free(lx->bad_literals);
    lx->bad_literals = NULL;
    lx->bad_literal_count = lx->bad_literal_cap = 0;
    lx->comment_count = lx->comment_cap = 0;
}
