/* Shared between the parts of the lexer: lexer.re (the scanner and the token stream),
 * lexer_literals.c (numbers and durations) and lexer_strings.c (string literals). */
#ifndef ORBIT_LEXER_INTERNAL_H
#define ORBIT_LEXER_INTERNAL_H

#include "lexer.h"

enum {
    /* Longest string literal accepted (E0011), in bytes of source. */
    LEX_MAX_STRING = 1024 * 1024,
};

/* Reports a front-end diagnostic at [start, end); NULL once the file has too many. */
Diagnostic *lex_report(Lexer *lx, DiagCode code, uint32_t start, uint32_t end,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline uint32_t lex_offset(const Lexer *lx, const unsigned char *p)
{
    return (uint32_t)(p - lx->base);
}

void lex_bad_utf8(Lexer *lx, const unsigned char *p);
void lex_check_utf8(Lexer *lx, const unsigned char *p, const unsigned char *end);

/* Literals from tok to cur (what the DFA matched): each sets the value, sets
 * lx->literal_bad when it reported the literal as unreadable, and returns the token
 * kind. */
int lex_integer(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                const unsigned char *cur);
int lex_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
               const unsigned char *cur);
int lex_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                 const unsigned char *cur);
int lex_malformed_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                         const unsigned char *cur);
/* `2 min`: an integer from tok to cur followed by a spaced unit. Returns DURATION (after
 * reporting it, *end after the unit) or 0 for a plain integer. */
int lex_spaced_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                        const unsigned char *cur, const unsigned char **end);

/* A string from its opening quote at tok; *end gets the first byte after it. */
int lex_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
               const unsigned char **end);
/* A string the DFA matched whole from tok to cur, quotes included: no escape, nothing
 * but printable ASCII and tabs (what lex_string would copy as it is). */
int lex_plain_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                     const unsigned char *cur);
/* 'text': reported, then read as a string. */
int lex_single_quoted(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                      const unsigned char *cur);

#endif
