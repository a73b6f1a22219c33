/* Shared between the parts of the lexer: lexer.re (the scanner and the token stream),
 * lexer_literals.c (numbers and durations), lexer_strings.c (string literals),
 * lexer_brackets.c (bracket matching and closing by indentation) and lexer_recovery.c
 * (error recovery). */
#ifndef ORBIT_LEXER_INTERNAL_H
#define ORBIT_LEXER_INTERNAL_H

#include "attributes.h"
#include "lexer.h"
#include "orbc_value.h"

enum {
    /* Longest string literal accepted (E0011), in bytes of source. */
    LEXER_MAX_STRING = 1024 * 1024,
};

/* Reports a front-end diagnostic at [start, end); NULL once the file has too many. */
Diagnostic *lexer_report(Lexer *lx, DiagCode code, uint32_t start, uint32_t end,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline uint32_t lexer_offset(const Lexer *lx, const unsigned char *p)
{
    return (uint32_t)(p - lx->base);
}

/* ---- token kinds and the bracket stack, asked on the hot paths of every part ---- */

static inline bool lexer_is_opener(int kind)
{
    return kind == LBRACE || kind == LBRACK || kind == LPAREN;
}

static inline bool lexer_is_closer(int kind)
{
    return kind == RBRACE || kind == RBRACK || kind == RPAREN;
}

static inline bool lexer_is_separator(int kind)
{
    return kind == NEWLINE || kind == COMMA || kind == SEMI;
}

static inline bool lexer_is_declaration_keyword(int kind)
{
    return kind == T_WORKFLOW || kind == T_WORKER || kind == T_TYPE;
}

static inline bool lexer_is_word(int kind)
{
    return kind == IDENT || (kind >= T_WORKFLOW && kind <= T_NULL);
}

static inline int lexer_closer_of(int opener)
{
    return opener == LBRACE ? RBRACE : opener == LBRACK ? RBRACK : RPAREN;
}

static inline int lexer_opener_of(int closer)
{
    return closer == RBRACE ? LBRACE : closer == RBRACK ? LBRACK : LPAREN;
}

static inline char lexer_bracket_char(int kind)
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

/* An invented token: of zero width, so quiet (lexer_token_is_quiet). */
static inline Loc lexer_quiet_at(uint32_t offset)
{
    Loc loc = { offset, offset };
    return loc;
}

static inline bool lexer_reads_indentation(const Lexer *lx)
{
    return lx->indent.pass;
}

/* Whether a `{` about to open holds clauses: it follows the name of a workflow, step or
 * worker (`workflow w {`, `worker "x" {`, a misspelt `workfow w {`), or `retry` or
 * `compensate`. A type's body and every `{` inside an expression hold attributes. */
static inline bool lexer_opens_clause_block(const Lexer *lx)
{
    if (lx->stream.prev == T_RETRY || lx->stream.prev == T_COMPENSATE || lx->stream.prev == STRING)
        return true;
    return lx->stream.prev == IDENT && lx->stream.prev2 != T_TYPE;
}

/* An opening bracket, below the nesting limit, on the stack. */
static inline __attribute__((always_inline)) void lexer_push_bracket(Lexer *lx, int kind, Loc loc)
{
    lx->brackets.open_kind[lx->brackets.depth] = kind;
    lx->brackets.open_at[lx->brackets.depth] = loc.start;
    lx->brackets.open_clauses[lx->brackets.depth] = kind == LBRACE && lexer_opens_clause_block(lx);
}

void lexer_bad_utf8(Lexer *lx, const unsigned char *p);
void lexer_check_utf8(Lexer *lx, const unsigned char *p, const unsigned char *end,
                      bool in_string);
void lexer_bidi_control(Lexer *lx, const unsigned char *p, uint32_t n, int32_t cp,
                        bool in_string);

/* ---- the common literals, read inline by the common path (lexer.re's literal_token)
 * without a call; the decoders below read every literal, these among them ---- */

/* Up to this many digits and `_` a value cannot overflow 64 bits: such a literal is read
 * without the overflow test of each digit. */
enum { LEXER_SAFE_DIGITS = 18 };

/* The value of the digits and `_` from p to end, at most LEXER_SAFE_DIGITS of them. */
static inline uint64_t lexer_short_decimal(const unsigned char *p, const unsigned char *end)
{
    uint64_t value = 0;
    for (; p < end; p++)
        if (*p != '_')
            value = value * 10 + (uint64_t)(*p - '0');
    return value;
}

/* The duration unit spelt text[0, len) (liborbc's table), or NULL. Units are one or two
 * letters: compared here, byte by byte, without strlen and memcmp. */
static inline const OrbcDurationUnit *lexer_find_unit(const unsigned char *text, uint32_t len)
{
    for (int i = 0; i < ORBC_DURATION_UNIT_COUNT; i++) {
        const char *name = orbc_duration_units[i].name;
        if (len == 1 ? name[0] == text[0] && name[1] == '\0'
                     : len == 2 && name[0] == text[0] && name[1] == text[1] && name[2] == '\0')
            return &orbc_duration_units[i];
    }
    return NULL;
}

/* The common duration the DFA matched, one count and one unit (`30s`, `500ms`), in
 * milliseconds; false for any other (several parts, a long count, an overflow). */
static inline bool lexer_simple_duration(const unsigned char *tok, const unsigned char *cur,
                                         int64_t *ms)
{
    const unsigned char *p = tok;
    while ((*p >= '0' && *p <= '9') || *p == '_')
        p++;
    const OrbcDurationUnit *unit = p - tok <= LEXER_SAFE_DIGITS
                                       ? lexer_find_unit(p, (uint32_t)(cur - p)) : NULL;
    return unit && !__builtin_mul_overflow((int64_t)lexer_short_decimal(tok, p), unit->ms, ms);
}

/* Literals from tok to cur (what the DFA matched): each sets the value, sets
 * lx->scan.literal_bad when it reported the literal as unreadable, and returns the token
 * kind. */
int lexer_integer(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                  const unsigned char *cur);
int lexer_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                 const unsigned char *cur);
int lexer_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                   const unsigned char *cur);
int lexer_malformed_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                           const unsigned char *cur);
/* `2 min`: an integer from tok to cur followed by a spaced unit. Returns DURATION (after
 * reporting it, *end after the unit) or 0 for a plain integer. */
int lexer_spaced_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, const unsigned char **end);

/* A string from its opening quote at tok; *end gets the first byte after it. */
int lexer_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                 const unsigned char **end);
/* A string the DFA matched whole from tok to cur, quotes included: no escape, nothing
 * but printable ASCII and tabs (what lexer_string would copy as it is). */
int lexer_plain_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                       const unsigned char *cur);
/* 'text': reported, then read as a string. */
int lexer_single_quoted(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                        const unsigned char *cur);

/* ---- bracket matching and closing by indentation (lexer_brackets.c) ---- */

/* The bracket token kinds at each step of next_balanced (lexer.re), on its general path:
 * an opener (false after E0009, fatal, when it is one too deep), a closer (queued with
 * any closers invented before it, or reported), the end of the file. */
bool lexer_open_bracket(Lexer *lx, int kind, Loc loc);
void lexer_close_bracket(Lexer *lx, int kind, Loc loc);
void lexer_end_of_file(Lexer *lx, Loc loc);
/* Gives the run of stray closers that just ended its final message. */
COLD void lexer_end_stray_closers(Lexer *lx);
/* `,` or `;` right after another one in a block: reported once a run; whether dropped. */
COLD bool lexer_extra_separator(Lexer *lx, int kind, Loc loc);
/* Makes the line that starts at `start` the tracked line (closing by indentation). */
void lexer_set_line(Lexer *lx, uint32_t start);
/* A newline right after a `{`: the bracket opens a block laid out on lines of its own. */
void lexer_note_line_end(Lexer *lx);
/* The second pass only: a closer dropped, or brackets closed (the invented closers and
 * the token queued), by the indentation; false when the indentation agrees. */
COLD bool lexer_drop_by_indentation(Lexer *lx, int kind, Loc loc);
COLD bool lexer_close_by_indentation(Lexer *lx, int kind, const YYSTYPE *v, Loc loc);

/* ---- error recovery (lexer_recovery.c) ---- */

/* Whether skipping stops at this token (pre_depth: the depth before it). */
bool lexer_is_sync_point(const Lexer *lx, int kind, uint32_t pre_depth, bool starts_line);
/* Hands out RECOVERED (in *out), then the token kept in lx->recovery.replay. */
int lexer_recovered(Lexer *lx, int kind, const YYSTYPE *v, Loc loc, Loc *out);

#endif
