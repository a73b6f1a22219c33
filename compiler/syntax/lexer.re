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
#include "source.h"
#include "utf8.h"

#include <utf8proc.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
    wordend = [^a-zA-Z0-9_];   /* what follows a keyword: no identifier character */
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
    Diagnostic *d = lx->scan.bad_utf8;
    lx->scan.bad_utf8 = NULL;
    if (!d)
        return;
    uint32_t start = d->span.start - lx->origin;
    uint32_t count = lx->scan.bad_utf8_end - start;
    if (count > 1)
        d->message = arena_printf(&lx->c->arena, "invalid UTF-8: %u bytes at offset %u",
                                  count, start);
}

/* Invalid UTF-8 at p: one E0001 per run of adjacent bad bytes. */
void lexer_bad_utf8(Lexer *lx, const unsigned char *p)
{
    uint32_t at = lexer_offset(lx, p);
    if (lx->scan.bad_utf8 && lx->scan.bad_utf8_end == at) {
        lx->scan.bad_utf8->span.end = lx->origin + at + 1;
        lx->scan.bad_utf8_end = at + 1;
        return;
    }
    end_bad_utf8_run(lx);
    lx->scan.bad_utf8 = lexer_report(lx, E0001, at, at + 1,
                                     "invalid UTF-8 byte 0x%02x at offset %u", *p, at);
    lx->scan.bad_utf8_end = at + 1;
    if (lx->scan.bad_utf8)
        diag_set_label(&lx->c->diags, lx->scan.bad_utf8, "not UTF-8");
}

/* A bidirectional text control, cp of n bytes at p, in a string or a comment (W0011;
 * base/utf8.h). In a string, the fix writes it as its escape, which is seen and means
 * the same string; in a comment, removing it is offered, for a person to decide. */
void lexer_bidi_control(Lexer *lx, const unsigned char *p, uint32_t n, int32_t cp,
                        bool in_string)
{
    uint32_t at = lexer_offset(lx, p);
    Diagnostic *d = lexer_report(lx, W0011, at, at + n, "bidirectional text control U+%04X "
                                 "(%s) in a %s", (unsigned)cp, utf8_bidi_control_name(cp),
                                 in_string ? "string" : "comment");
    if (!d)
        return;
    DiagSink *diags = &lx->c->diags;
    diag_set_label(diags, d, "this invisible character reorders how the line is shown");
    diag_add_note(diags, d, "editors and code review may show this line in an order that "
                            "differs from the one orbitc reads (Trojan Source, CVE-2021-42574)");
    Span span = lexer_span(lx, at, at + n);
    if (in_string) {
        const char *escape = arena_printf(&lx->c->arena, "\\u{%X}", (unsigned)cp);
        diag_add_fix(diags, d, span, escape, FIX_MACHINE_APPLICABLE,
                     "write it as the escape `%s`, which is seen", escape);
    } else {
        diag_add_fix(diags, d, span, "", FIX_MAYBE_INCORRECT, "remove it from the comment");
    }
}

/* Checks that text[start, end) is valid UTF-8, reporting what is not, and reports each
 * bidirectional text control in it (a comment or, `in_string`, a string). */
void lexer_check_utf8(Lexer *lx, const unsigned char *p, const unsigned char *end,
                      bool in_string)
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
            if (utf8_bidi_control_name(cp))
                lexer_bidi_control(lx, p, n, cp, in_string);
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
    if (lx->scan.comment_count == lx->scan.comment_cap) {
        lx->scan.comment_cap = lx->scan.comment_cap ? lx->scan.comment_cap * 2 : 64;
        lx->scan.comments = xrealloc(lx->scan.comments,
                                     lx->scan.comment_cap * sizeof *lx->scan.comments);
    }
    Comment *comment = &lx->scan.comments[lx->scan.comment_count++];
    comment->span = lexer_span(lx, lexer_offset(lx, tok), lexer_offset(lx, end));
    comment->text = (const char *)tok;
    comment->block = block;
}

/* After `//` (or `#`) at tok: to the end of the line (base/source.h: a lone CR ends it
 * too), which is left for the newline rule. */
static const unsigned char *skip_line_comment(Lexer *lx, const unsigned char *tok,
                                              const unsigned char *cur)
{
    const unsigned char *end = (const unsigned char *)source_find_eol((const char *)cur,
                                                                      (const char *)lx->lim);
    if (has_high_byte(cur, end))
        lexer_check_utf8(lx, cur, end, false);
    record_comment(lx, tok, end, false);
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
    *newline = source_find_eol((const char *)cur, (const char *)end) != (const char *)end;
    if (has_high_byte(cur, end))
        lexer_check_utf8(lx, cur, end, false);
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
    if (lx->scan.stray && lx->scan.stray_end == at) {
        lx->scan.stray->span.end = lx->origin + lexer_offset(lx, cur);
    } else if (cp == 0x201C || cp == 0x201D) {
        lx->scan.stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                      "unexpected character `%.*s`", (int)(cur - tok), tok);
        if (lx->scan.stray)
            diag_add_help(&lx->c->diags, lx->scan.stray,
                          "strings are written in straight quotes `\"`");
    } else if (cp < 0x80 && cp > 0x20 && cp != 0x7F) {
        lx->scan.stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                      "unexpected character `%c`", (char)cp);
    } else if (cp < 0x80 || utf8_is_invisible(cp)) {
        lx->scan.stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                      "unexpected character U+%04X", (unsigned)cp);
    } else {
        lx->scan.stray = lexer_report(lx, E0002, at, lexer_offset(lx, cur),
                                      "unexpected character `%.*s`", (int)(cur - tok), tok);
    }
    lx->scan.stray_end = lexer_offset(lx, cur);
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
    if (lx->brackets.depth == 0 || !ends_operand(lx->stream.prev))
        return false;
    if (lx->brackets.open_kind[lx->brackets.depth - 1] != LBRACE)
        return true;
    return lx->stream.prev2 != LBRACE && lx->stream.prev2 != NEWLINE && lx->stream.prev2 != COMMA &&
           lx->stream.prev2 != SEMI;
}

/* Whether an operand must come next (after an operator, `(`, `:`, `compute`…). */
static bool before_operand(const Lexer *lx)
{
    if (lx->brackets.depth == 0)
        return false;
    switch (lx->stream.prev) {
    case QQ: case OROR: case ANDAND: case EQ: case NE: case LT: case LE: case GT: case GE:
    case PLUS: case MINUS: case STAR: case SLASH: case PERCENT: case BANG:
    case LPAREN: case LBRACK: case COLON: case ASSIGN:
    case T_COMPUTE: case T_WHEN: case T_RETURN: case T_IDEMPOTENCY_KEY: case T_IN:
    case T_SLEEP:
        return true;
    case COMMA:
        return lx->brackets.open_kind[lx->brackets.depth - 1] != LBRACE;
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
    int prev = lx->stream.prev;
    const char *what = prev == T_STEP ? "step" : prev == T_WORKFLOW ? "workflow"
                     : prev == T_TYPE ? "type" : NULL;
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
    if (lx->scan.bad_literal_count == lx->scan.bad_literal_cap) {
        lx->scan.bad_literal_cap = lx->scan.bad_literal_cap ? lx->scan.bad_literal_cap * 2 : 16;
        lx->scan.bad_literals = xrealloc(lx->scan.bad_literals,
                                    lx->scan.bad_literal_cap * sizeof *lx->scan.bad_literals);
    }
    lx->scan.bad_literals[lx->scan.bad_literal_count++] = start;
}

bool lexer_literal_is_bad(const Lexer *lx, uint32_t start)
{
    uint32_t low = 0, high = lx->scan.bad_literal_count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (lx->scan.bad_literals[middle] < start)
            low = middle + 1;
        else
            high = middle;
    }
    return low < lx->scan.bad_literal_count && lx->scan.bad_literals[low] == start;
}

/* A literal from tok to cur: its decoder set lx->scan.literal_bad if it reported it. */
static int finish_literal(Lexer *lx, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, int kind)
{
    if (lx->scan.literal_bad) {
        lx->scan.literal_bad = false;
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

/* The end of the identifier characters ([a-zA-Z0-9_]) from p on. The DFA matches an
 * identifier's first character only (a keyword only when no identifier character follows
 * it): stepping through the rest byte by byte cost about 5 instructions a byte, and
 * identifiers are half of a program's bytes. Here 16 bytes are looked at together while
 * 16 are left before the end of the text, then one at a time up to the NUL at its end. */
static INLINE const unsigned char *word_end(const unsigned char *p, const unsigned char *lim)
{
#if defined(__SSE2__)
    const __m128i case_bit = _mm_set1_epi8(0x20), to_letters = _mm_set1_epi8((char)(0x80 - 'a'));
    const __m128i letters = _mm_set1_epi8((char)(0x80 + 26));
    const __m128i to_digits = _mm_set1_epi8((char)(0x80 - '0'));
    const __m128i digits = _mm_set1_epi8((char)(0x80 + 10)), underscore = _mm_set1_epi8('_');
    for (; lim - p >= 16; p += 16) {
        /* A byte shifted so that its range starts at -128 is in the range when it is
         * below -128 + the range's size (signed). Letters of either case: with bit 5 set. */
        __m128i bytes = _mm_loadu_si128((const __m128i *)p);
        __m128i letter = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(bytes, case_bit), to_letters),
                                        letters);
        __m128i digit = _mm_cmplt_epi8(_mm_add_epi8(bytes, to_digits), digits);
        __m128i word = _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(bytes, underscore));
        unsigned other = (unsigned)_mm_movemask_epi8(word) ^ 0xFFFFu;
        if (other)
            return p + __builtin_ctz(other);
    }
#else
    (void)lim;
#endif
    while (is_ascii_word_char(*p))
        p++;
    return p;
}

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
            [ \t\f\v]+      { continue; }
            "\n"            { return finish(lx, loc, tok, cur, NEWLINE); }
            "\r" "\n"?      { return finish(lx, loc, tok, cur, NEWLINE); }
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
            "'" [^'\n\r\x00]* "'"
                            {
                                if (common)
                                    return leave(lx, tok);
                                return finish_literal(lx, loc, tok, cur,
                                                      lexer_single_quoted(lx, v, loc, tok, cur));
                            }

            "workflow" / wordend  { return keyword(lx, v, loc, tok, cur, T_WORKFLOW, common); }
            "worker" / wordend    { return keyword(lx, v, loc, tok, cur, T_WORKER, common); }
            "type" / wordend      { return keyword(lx, v, loc, tok, cur, T_TYPE, common); }
            "input" / wordend     { return keyword(lx, v, loc, tok, cur, T_INPUT, common); }
            "output" / wordend    { return keyword(lx, v, loc, tok, cur, T_OUTPUT, common); }
            "timeout" / wordend   { return keyword(lx, v, loc, tok, cur, T_TIMEOUT, common); }
            "step" / wordend      { return keyword(lx, v, loc, tok, cur, T_STEP, common); }
            "return" / wordend    { return keyword(lx, v, loc, tok, cur, T_RETURN, common); }
            "using" / wordend     { return keyword(lx, v, loc, tok, cur, T_USING, common); }
            "sleep" / wordend     { return keyword(lx, v, loc, tok, cur, T_SLEEP, common); }
            "await" / wordend     { return keyword(lx, v, loc, tok, cur, T_AWAIT, common); }
            "compute" / wordend   { return keyword(lx, v, loc, tok, cur, T_COMPUTE, common); }
            "with" / wordend      { return keyword(lx, v, loc, tok, cur, T_WITH, common); }
            "when" / wordend      { return keyword(lx, v, loc, tok, cur, T_WHEN, common); }
            "for" / wordend       { return keyword(lx, v, loc, tok, cur, T_FOR, common); }
            "in" / wordend        { return keyword(lx, v, loc, tok, cur, T_IN, common); }
            "idempotency_key" / wordend
                            { return keyword(lx, v, loc, tok, cur, T_IDEMPOTENCY_KEY, common); }
            "retry" / wordend     { return keyword(lx, v, loc, tok, cur, T_RETRY, common); }
            "queue_timeout" / wordend
                            { return keyword(lx, v, loc, tok, cur, T_QUEUE_TIMEOUT, common); }
            "compensate" / wordend
                            { return keyword(lx, v, loc, tok, cur, T_COMPENSATE, common); }
            "true" / wordend      { return keyword(lx, v, loc, tok, cur, T_TRUE, common); }
            "false" / wordend     { return keyword(lx, v, loc, tok, cur, T_FALSE, common); }
            "null" / wordend      { return keyword(lx, v, loc, tok, cur, T_NULL, common); }
            ("and" | "or" | "not" | "if") / wordend
                            { return identifier(lx, v, loc, tok, cur, true, common); }
            [a-zA-Z_]       {
                                cur = word_end(cur, lx->lim);
                                return identifier(lx, v, loc, tok, cur, false, common);
                            }

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

/* ---- the token stream ---- */

/* Whether a newline after a token of this kind continues the line. */
static bool continues_line(int kind)
{
    return kind_traits[kind] & CONTINUES_LINE;
}

static bool newline_is_insignificant(const Lexer *lx)
{
    if (lx->brackets.depth > 0) {
        int top = lx->brackets.open_kind[lx->brackets.depth - 1];
        if (top == LPAREN || top == LBRACK)
            return true;
    }
    return continues_line(lx->stream.prev);
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
            *pre_depth = lx->brackets.depth;
            return END;
        }
        if (lx->stream.queue_len > 0) {
            QueuedToken *q = &lx->stream.queue[lx->stream.queue_head++];
            if (--lx->stream.queue_len == 0)
                lx->stream.queue_head = 0;
            *loc = q->loc;
            *v = q->value;
            *pre_depth = lx->brackets.depth;
            if (lexer_is_closer(q->kind))
                lx->brackets.depth--;
            return q->kind;
        }
        kind = scan_token(lx, v, loc);
    balance:
        if (lx->brackets.stray_closers && kind != NEWLINE && !lexer_is_closer(kind))
            lexer_end_stray_closers(lx);
        if (kind == NEWLINE) {
            lexer_note_line_end(lx);
            if (newline_is_insignificant(lx))
                continue;
        } else if ((kind == COMMA || kind == SEMI) && lx->brackets.depth > 0 &&
                   (lx->stream.prev == COMMA || lx->stream.prev == SEMI) &&
                   lexer_extra_separator(lx, kind, *loc)) {
            continue;
        } else if (lexer_reads_indentation(lx) &&
                   (lexer_close_by_indentation(lx, kind, v, *loc) ||
                    (lexer_is_closer(kind) && lexer_drop_by_indentation(lx, kind, *loc)))) {
            continue;
        } else if (lexer_is_opener(kind)) {
            if (!lexer_open_bracket(lx, kind, *loc))
                continue;
            *pre_depth = lx->brackets.depth - 1;
            return kind;
        } else if (lexer_is_closer(kind)) {
            lexer_close_bracket(lx, kind, *loc);
            continue;
        } else if (kind == END) {
            lexer_end_of_file(lx, *loc);
            continue;
        }
        *pre_depth = lx->brackets.depth;
        return kind;
    }
}


/* A token at top level: the first token of the current item (for E0104). */
static void note_top_level(Lexer *lx, int kind, Loc loc)
{
    if (lx->stream.item_start || lexer_is_declaration_keyword(kind)) {
        lx->stream.decl_kind = kind;
        lx->stream.decl_loc = loc;
        lx->stream.item_start = false;
    }
    if (lexer_is_separator(kind))
        lx->stream.item_start = true;
}

/* Keeps what the syntax error messages and error recovery read about the token just
 * handed out (its bracket depth is derived: last_token_depth): its kind and span and
 * the two tokens before it. */
static inline void remember(Lexer *lx, int kind, const Loc *loc)
{
    lx->stream.prev2_before = lx->stream.prev2;
    lx->stream.prev2 = lx->stream.prev;
    lx->stream.prev2_loc = lx->stream.prev_loc;
    lx->stream.prev = kind;
    lx->stream.prev_loc = *loc;
}

/* And where the current top-level item starts: a token at top level, or a closer that
 * returns there (pre_depth: the depth before the token). */
static inline void note_item(Lexer *lx, int kind, const Loc *loc, uint32_t pre_depth)
{
    if (pre_depth == 0)
        note_top_level(lx, kind, *loc);
    else if (pre_depth == 1 && lexer_is_closer(kind))
        lx->stream.item_start = true;
}

/* Counts a run of `!` and `-` tokens (the last token remembered is the one before this
 * one); E0009 past AST_MAX_DEPTH of them. */
static bool unary_run_too_long(Lexer *lx, int kind, Loc loc)
{
    if (kind != BANG && kind != MINUS)
        return false;
    bool after_unary = lx->stream.prev == BANG || lx->stream.prev == MINUS;
    lx->stream.unary_run = after_unary ? lx->stream.unary_run + 1 : 1;
    if (lx->stream.unary_run <= AST_MAX_DEPTH)
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
    bool in_block = lx->brackets.depth > 0 &&
                    lx->brackets.open_kind[lx->brackets.depth - 1] == LBRACE;
    if (!in_block || lx->recovery.skipping)
        return 0;
    if (lx->stream.prev2 == LBRACE || lx->stream.prev2 == 0 || lexer_is_separator(lx->stream.prev2))
        return 0;     /* the previous token starts its member: not a complete one */
    int after = next_char(lx, loc->end);
    bool attribute = lexer_is_word(kind) && after == ':';
    /* `input` is also the workflow's input in expressions: a clause only before `{`. */
    bool clause = kind >= T_WORKFLOW && kind <= T_COMPENSATE && kind != T_IN &&
                  kind != T_TYPE && (kind != T_INPUT || after == '{');
    if (!attribute && !clause)
        return 0;
    char separator = attribute ? ',' : ';';
    uint32_t at = lx->stream.prev_loc.end;
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
    if (lx->stream.queue_len != 0)
        return kind;
    if (!lexer_is_word(kind))
        return kind;
    bool after_block = lx->stream.prev == RBRACE && lx->brackets.depth > 0
                       && lx->brackets.open_kind[lx->brackets.depth - 1] == LBRACE;
    if (!after_block && !(ends_operand(lx->stream.prev) && missing_separator(lx, kind, loc)))
        return kind;
    QueuedToken *q = &lx->stream.queue[lx->stream.queue_head + lx->stream.queue_len++];
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
    return lx->fatal || lx->stream.queue_len > 0 || lx->recovery.recovered_pending ||
           lx->recovery.replay_pending || lx->recovery.skipping || lx->indent.pass ||
           lx->brackets.stray_closers;
}

/* The token loop for every case: replays, queued and invented tokens, recovery, the
 * indentation pass, mistakes. `scanned` is a token the common path scanned and passed
 * on, or NOT_SCANNED. */
COLD static int next_general(Lexer *lx, YYSTYPE *v, Loc *loc, int scanned)
{
    lx->stream.value_out = v;
    if (lx->recovery.recovered_pending) {
        lx->recovery.recovered_pending = false;
        lx->recovery.replay_pending = true;
        *loc = lexer_quiet_at(lx->recovery.replay.loc.start);
        return RECOVERED;
    }
    if (lx->recovery.replay_pending) {
        lx->recovery.replay_pending = false;
        lx->attention = needs_attention(lx);
        *v = lx->recovery.replay.value;
        *loc = lx->recovery.replay.loc;
        return lx->recovery.replay.kind;
    }
    for (;; scanned = NOT_SCANNED) {
        uint32_t pre_depth;
        int kind = next_balanced(lx, v, loc, &pre_depth, scanned);
        kind = implied_separator(lx, kind, v, loc);
        if (unary_run_too_long(lx, kind, *loc))
            continue;
        bool starts_line = lx->stream.item_start;
        remember(lx, kind, loc);
        note_item(lx, kind, loc, pre_depth);
        if (lx->recovery.skipping) {
            if (!lexer_is_sync_point(lx, kind, pre_depth, starts_line))
                continue;
            lx->recovery.skipping = false;
            kind = lexer_recovered(lx, kind, v, *loc, loc);
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
    if (lx->brackets.depth == 0)
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
    if (lx->brackets.depth == 0)
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
        uint32_t pre_depth = lx->brackets.depth;
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
            if (lx->brackets.depth > 0 && (lx->stream.prev == COMMA || lx->stream.prev == SEMI))
                return next_general(lx, v, loc, kind);
            break;
        case LBRACE: case LBRACK: case LPAREN:
            if (lx->brackets.depth == AST_MAX_DEPTH)
                return next_general(lx, v, loc, kind);
            lexer_push_bracket(lx, kind, *loc);
            lx->brackets.depth++;
            break;
        case RBRACE: case RBRACK: case RPAREN:
            if (lx->brackets.depth == 0 ||
                lx->brackets.open_kind[lx->brackets.depth - 1] != lexer_opener_of(kind))
                return next_general(lx, v, loc, kind);
            lx->brackets.depth--;
            remember(lx, kind, loc);
            if (lx->brackets.depth == 0)
                lx->stream.item_start = true;
            return kind;
        case BANG: case MINUS:
            return next_general(lx, v, loc, kind);
        case IDENT:
            if (ends_operand_or_block(lx->stream.prev))
                return identifier_after_operand(lx, v, loc);
            remember(lx, kind, loc);
            if (pre_depth == 0)
                note_top_level(lx, kind, *loc);
            return name_token(lx, v, loc);
        default:
            if (lexer_is_word(kind) && ends_operand_or_block(lx->stream.prev))
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
    lx->stream.item_start = true;
    lx->attention = true;     /* the first token takes the general path: lx->stream.value_out */
    lexer_set_line(lx, 0);
    lx->keyword_names = c->keyword_names;
}

void lexer_free(Lexer *lx)
{
    /* Runs still open at the end get their final messages. */
    end_bad_utf8_run(lx);
    lexer_end_stray_closers(lx);
    free(lx->scan.scratch);
    lx->scan.scratch = NULL;
    lx->scan.scratch_cap = 0;
    free(lx->scan.comments);
    lx->scan.comments = NULL;
    free(lx->scan.bad_literals);
    lx->scan.bad_literals = NULL;
    lx->scan.bad_literal_count = lx->scan.bad_literal_cap = 0;
    lx->scan.comment_count = lx->scan.comment_cap = 0;
}
