/* String literals: "…" with the escapes \n \t \r \" \\ and \u{1F600}. A string without
 * escapes or invalid bytes is copied straight into the arena; otherwise it is decoded
 * through the lexer's scratch buffer. Problems are reported at the opening quote
 * (unterminated, E0003; too long, E0011) or at the escape (E0004). */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "lexer_internal.h"
#include "source.h"
#include "utf8.h"

/* Bytes that can be copied as they are: printable ASCII and tab, except `"` and `\`. */
static bool is_plain(unsigned char c)
{
    return (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') || c == '\t';
}

static void reserve(Lexer *lx, uint32_t len, uint32_t more)
{
    if (len + more <= lx->scan.scratch_cap)
        return;
    uint32_t cap = lx->scan.scratch_cap ? lx->scan.scratch_cap : 256;
    while (cap < len + more)
        cap *= 2;
    lx->scan.scratch = xrealloc(lx->scan.scratch, cap);
    lx->scan.scratch_cap = cap;
}

static void append(Lexer *lx, uint32_t *len, const void *bytes, uint32_t count)
{
    reserve(lx, *len, count);
    memcpy(lx->scan.scratch + *len, bytes, count);
    *len += count;
}

static String arena_string(Lexer *lx, const void *bytes, uint32_t len)
{
    String s = { arena_strndup(&lx->c->arena, bytes, len), len };
    return s;
}

static void report_escape(Lexer *lx, const unsigned char *start, const unsigned char *end,
                          const char *message, const char *help)
{
    Diagnostic *d = lexer_report(lx, E0004, lexer_offset(lx, start), lexer_offset(lx, end),
                                 message, (int)(end - start), start);
    if (d && help)
        diag_add_help(&lx->c->diags, d, "%s", help);
}

static bool is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hex_value(unsigned char c)
{
    if (c <= '9')
        return c - '0';
    return (c | 0x20) - 'a' + 10;
}

/* \u{…} at p (the backslash); returns the first byte after what it consumed. */
static const unsigned char *unicode_escape(Lexer *lx, const unsigned char *p, uint32_t *len,
                                           bool *bad)
{
    const char *form = "write a character by its code point as `\\u{1F600}`";
    const unsigned char *q = p + 2;
    *bad = true;
    if (*q != '{') {
        report_escape(lx, p, q, "invalid unicode escape `%.*s`: expected `{` after `\\u`", form);
        return q;
    }
    q++;
    uint32_t digits = 0;
    int32_t value = 0;
    for (; is_hex(*q); q++, digits++)
        if (digits < 7)
            value = value * 16 + hex_value(*q);
    if (*q != '}') {
        report_escape(lx, p, q, "unterminated unicode escape `%.*s`: expected `}`", form);
        return q;
    }
    q++;
    if (digits == 0)
        report_escape(lx, p, q, "empty unicode escape `%.*s`", form);
    else if (digits > 6)
        report_escape(lx, p, q, "invalid unicode escape `%.*s`: more than 6 hex digits", form);
    else if (value > 0x10FFFF)
        report_escape(lx, p, q, "invalid unicode escape `%.*s`: beyond U+10FFFF",
                      "the largest code point is `\\u{10FFFF}`");
    else if (value >= 0xD800 && value <= 0xDFFF)
        report_escape(lx, p, q, "invalid unicode escape `%.*s`: a surrogate is not a character",
                      "write the character itself, not its UTF-16 surrogates");
    else {
        char bytes[4];
        append(lx, len, bytes, utf8_write(value, bytes));
        *bad = false;
    }
    return q;
}

/* The escape at p (a backslash); returns the first byte after it. */
static const unsigned char *escape(Lexer *lx, const unsigned char *p, uint32_t *len, bool *bad)
{
    char c;
    switch (p[1]) {
    case 'n': c = '\n'; break;
    case 't': c = '\t'; break;
    case 'r': c = '\r'; break;
    case '"': c = '"'; break;
    case '\\': c = '\\'; break;
    case 'u': {
        bool escape_bad;
        const unsigned char *after = unicode_escape(lx, p, len, &escape_bad);
        *bad |= escape_bad;
        return after;
    }
    case '\n':
    case '\r':
        return p + 1;   /* the line end: the string is unterminated, reported as such */
    case '\0':
        if (p + 1 == lx->lim)
            return p + 1;
        /* fall through */
    default: {
        int32_t cp;
        uint32_t n = utf8_read(p + 1, &cp);
        report_escape(lx, p, p + 1 + (n ? n : 1), "unknown escape sequence `%.*s`",
                      "the escapes are `\\n`, `\\t`, `\\r`, `\\\"`, `\\\\` and `\\u{…}`");
        *bad = true;
        return p + 1 + (n ? n : 1);
    }
    }
    append(lx, len, &c, 1);
    return p + 2;
}

static void check_length(Lexer *lx, Loc *loc, const unsigned char *tok, const unsigned char *end)
{
    if (end - tok <= LEXER_MAX_STRING)
        return;
    Diagnostic *d = lexer_report(lx, E0011, lexer_offset(lx, tok), lexer_offset(lx, tok) + 1,
                                 "string literal too long: %u bytes, the limit is 1 MiB",
                                 (unsigned)(end - tok));
    if (d)
        diag_set_label(&lx->c->diags, d, "this string");
    lx->scan.literal_bad = true;
}

/* Where an unterminated string most likely ends: before the closing brackets, `,` and
 * `;` that end its line (`worker "a.b }` misses its quote before the `}`). */
static const unsigned char *likely_end(const unsigned char *content, const unsigned char *p)
{
    const unsigned char *end = p;
    while (end > content && strchr(" \t\r}])),;", end[-1]) != NULL)
        end--;
    while (end < p && (*end == ' ' || *end == '\t' || *end == '\r'))
        end++;
    return end;
}

/* Reports the string from tok that runs into the end of its line at p; returns where it
 * is taken to end, so that the code after it on the line is still read. */
static const unsigned char *unterminated(Lexer *lx, const unsigned char *tok,
                                         const unsigned char *p)
{
    uint32_t at = lexer_offset(lx, tok);
    const unsigned char *end = likely_end(tok + 1, p);
    Diagnostic *d = lexer_report(lx, E0003, at, at + 1, "unterminated string literal");
    if (!d)
        return end;
    if (end != p) {
        uint32_t quote_at = lexer_offset(lx, end);
        while (quote_at > at + 1 && lx->base[quote_at - 1] == ' ')
            quote_at--;
        diag_set_label(&lx->c->diags, d, "this string is not closed before the end of the line");
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, quote_at, quote_at), "\"",
                     FIX_MAYBE_INCORRECT, "add the missing `\"`");
        return end;
    }
    if (p == lx->lim) {
        diag_set_label(&lx->c->diags, d, "this string is not closed before the end of the file");
    } else {
        diag_set_label(&lx->c->diags, d, "this string is not closed before the end of the line");
        diag_add_help(&lx->c->diags, d, "a string cannot span lines: write `\\n` for a line break");
    }
    return end;
}

static int slow_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                       const unsigned char **end)
{
    const unsigned char *p = tok + 1;
    uint32_t len = 0;
    bool bad = false;
    for (;;) {
        unsigned char c = *p;
        if (c == '"') {
            p++;
            break;
        }
        if (source_is_eol((char)c) || (c == 0 && p == lx->lim)) {
            p = unterminated(lx, tok, p);
            bad = true;
            break;
        }
        if (c == '\\') {
            p = escape(lx, p, &len, &bad);
        } else if (c < 0x80) {
            append(lx, &len, p, 1);
            p++;
        } else {
            int32_t cp;
            uint32_t n = utf8_read(p, &cp);
            if (n == 0) {
                lexer_bad_utf8(lx, p);
                n = 1;
            } else {
                if (utf8_bidi_control_name(cp))
                    lexer_bidi_control(lx, p, n, cp, true);
                append(lx, &len, p, n);
            }
            p += n;
        }
    }
    v->string = arena_string(lx, lx->scan.scratch ? lx->scan.scratch : "", len);
    lx->scan.literal_bad = bad;
    check_length(lx, loc, tok, p);
    *end = p;
    return STRING;
}

int lexer_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                 const unsigned char **end)
{
    const unsigned char *p = tok + 1;
    while (is_plain(*p))
        p++;
    if (*p != '"')
        return slow_string(lx, v, loc, tok, end);
    v->string = arena_string(lx, tok + 1, (uint32_t)(p - tok - 1));
    *end = p + 1;
    check_length(lx, loc, tok, *end);
    return STRING;
}

int lexer_plain_string(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                       const unsigned char *cur)
{
    v->string = arena_string(lx, tok + 1, (uint32_t)(cur - tok - 2));
    check_length(lx, loc, tok, cur);
    return STRING;
}

int lexer_single_quoted(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                        const unsigned char *cur)
{
    uint32_t start = lexer_offset(lx, tok);
    uint32_t end = lexer_offset(lx, cur);
    Diagnostic *d = lexer_report(lx, E0002, start, start + 1, "unexpected character `'`");
    if (d) {
        uint32_t len = end - start - 2;
        const char *text = arena_printf(&lx->c->arena, "\"%.*s\"", (int)len, (const char *)tok + 1);
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, end), text,
                     FIX_MAYBE_INCORRECT, "strings are written in double quotes: `%s`", text);
    }
    lexer_check_utf8(lx, tok + 1, cur - 1, true);
    v->string = arena_string(lx, tok + 1, (uint32_t)(cur - tok - 2));
    lx->scan.literal_bad = true;
    return STRING;
}
