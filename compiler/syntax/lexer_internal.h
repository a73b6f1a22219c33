/* Shared between the parts of the lexer: lexer.re (the scanner and the token stream),
 * lexer_literals.c (numbers and durations) and lexer_strings.c (string literals). */
#ifndef ORBIT_LEXER_INTERNAL_H
#define ORBIT_LEXER_INTERNAL_H

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

void lexer_bad_utf8(Lexer *lx, const unsigned char *p);
void lexer_check_utf8(Lexer *lx, const unsigned char *p, const unsigned char *end);

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
 * lx->literal_bad when it reported the literal as unreadable, and returns the token
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

#endif
