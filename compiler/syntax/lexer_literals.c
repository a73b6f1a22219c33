/* Numeric literals: integers (`42`, `1_000`), numbers (`1.5`, `2e3`) and durations
 * (`500ms`, `1h30m`, kept in whole milliseconds). The DFA has already matched the shape;
 * here the value is computed with overflow checks (E0007), and a literal of no valid
 * shape is taken apart to say exactly what is wrong with it (E0006, E0008). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lexer_internal.h"

/* The units are liborbc's (orbc_duration_units: name and milliseconds, largest first). */
typedef OrbcDurationUnit Unit;
static const Unit *const units = orbc_duration_units;
enum { UNIT_COUNT = ORBC_DURATION_UNIT_COUNT };

static const char *const valid_units = "the units are `ms`, `s`, `m`, `h` and `d`";

/* Units as people write them elsewhere (`5sec`, `1day`, `2 min`), read as Orbit's. Case is
 * ignored for these words and for Orbit's own units (`500MS`, `5S`), except that `M`
 * alone may mean months: it is only offered as minutes. */
static const struct {
    const char *word;
    const char *unit;
} unit_words[] = {
    { "msec", "ms" }, { "msecs", "ms" }, { "millis", "ms" },
    { "millisecond", "ms" }, { "milliseconds", "ms" },
    { "sec", "s" }, { "secs", "s" }, { "second", "s" }, { "seconds", "s" },
    { "min", "m" }, { "mins", "m" }, { "minute", "m" }, { "minutes", "m" },
    { "hr", "h" }, { "hrs", "h" }, { "hour", "h" }, { "hours", "h" },
    { "day", "d" }, { "days", "d" },
};

static bool same_letters(const unsigned char *text, uint32_t len, const char *word)
{
    return strlen(word) == len && strncasecmp((const char *)text, word, len) == 0;
}

/* The unit that a misspelt unit stands for, or NULL; *guess is set when it is not
 * certain (`M`). */
static const Unit *unit_alias(const unsigned char *text, uint32_t len, bool *guess)
{
    *guess = len == 1 && text[0] == 'M';
    for (int i = 0; i < UNIT_COUNT; i++)
        if (same_letters(text, len, units[i].name))
            return &units[i];
    for (size_t i = 0; i < sizeof unit_words / sizeof unit_words[0]; i++)
        if (same_letters(text, len, unit_words[i].word))
            return lexer_find_unit((const unsigned char *)unit_words[i].unit,
                                   (uint32_t)strlen(unit_words[i].unit));
    return NULL;
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_letter(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Reads digits and separating underscores at *p into *value; false on overflow. */
static bool read_digits(const unsigned char **p, const unsigned char *end, uint64_t *value)
{
    bool ok = true;
    uint64_t v = 0;
    const unsigned char *q = *p;
    for (; q < end && (is_digit(*q) || *q == '_'); q++) {
        if (*q == '_')
            continue;
        unsigned d = (unsigned)(*q - '0');
        if (v > (UINT64_MAX - d) / 10)
            ok = false;
        else
            v = v * 10 + d;
    }
    *p = q;
    *value = v;
    return ok;
}

static void too_large(Lexer *lx, Loc *loc, const unsigned char *tok, const unsigned char *cur,
                      const char *what, const char *help)
{
    Diagnostic *d = lexer_report(lx, E0007, lexer_offset(lx, tok), lexer_offset(lx, cur),
                                 "%s `%.*s` is out of range", what, (int)(cur - tok), tok);
    if (d)
        diag_add_help(&lx->c->diags, d, "%s", help);
    lx->scan.literal_bad = true;
}

int lexer_integer(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                  const unsigned char *cur)
{
    if (cur - tok <= LEXER_SAFE_DIGITS) {
        v->integer = (int64_t)lexer_short_decimal(tok, cur);
        return INT;
    }
    uint64_t value;
    const unsigned char *p = tok;
    if (!read_digits(&p, cur, &value) || value > INT64_MAX) {
        too_large(lx, loc, tok, cur, "integer",
                  "the largest integer is 9223372036854775807");
        value = 0;
    }
    v->integer = (int64_t)value;
    return INT;
}

/* The powers of ten that a double holds exactly. */
static const double exact_powers_of_ten[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
enum { MAX_EXACT_POWER = 22 };

/* The value of a number the DFA matched (`12.5`, `2e3`, `1_000.25e-2`) when it can be
 * computed exactly without strtod: its digits as an integer below 2^53 and a power of ten
 * a double holds exactly; one multiplication or division of two exact doubles is then
 * correctly rounded, as strtod's result is (Clinger's fast path). False otherwise. */
static bool exact_number(const unsigned char *p, const unsigned char *end, double *out)
{
    uint64_t digits = 0;
    int scale = 0;              /* digits after the point */
    uint32_t count = 0;         /* significant digits read (a bound for `digits`) */
    bool point = false;
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '_')
            continue;
        if (*p == '.') {
            point = true;
            continue;
        }
        if (digits != 0 || *p != '0')
            count++;
        digits = digits * 10 + (uint64_t)(*p - '0');
        scale += point;
        if (count > 15)         /* 10^16 > 2^53: leave it to strtod */
            return false;
    }
    int exponent = 0;
    if (p < end) {
        bool negative = *++p == '-';
        if (*p == '-' || *p == '+')
            p++;
        for (; p < end; p++) {
            exponent = exponent * 10 + (*p - '0');
            if (exponent > 2 * MAX_EXACT_POWER)
                return false;
        }
        if (negative)
            exponent = -exponent;
    }
    exponent -= scale;
    if (exponent < -MAX_EXACT_POWER || exponent > MAX_EXACT_POWER)
        return false;
    *out = exponent < 0 ? (double)digits / exact_powers_of_ten[-exponent]
                        : (double)digits * exact_powers_of_ten[exponent];
    return true;
}

int lexer_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                 const unsigned char *cur)
{
    if (exact_number(tok, cur, &v->number))
        return NUMBER;
    char small[128];
    size_t len = (size_t)(cur - tok);
    char *clean = len < sizeof small ? small : xmalloc(len + 1);
    size_t n = 0;
    for (const unsigned char *p = tok; p < cur; p++)
        if (*p != '_')
            clean[n++] = (char)*p;
    clean[n] = '\0';
    double value = strtod(clean, NULL);
    if (clean != small)
        free(clean);
    if (isinf(value)) {
        too_large(lx, loc, tok, cur, "number", "the largest number is about 1.8e308");
        value = 0;
    }
    v->number = value;
    return NUMBER;
}

static void duration_too_long(Lexer *lx, Loc *loc, const unsigned char *tok,
                              const unsigned char *cur)
{
    too_large(lx, loc, tok, cur, "duration",
              "the longest duration is 9223372036854775807ms, about 292 million years");
}

int lexer_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                   const unsigned char *cur)
{
    if (lexer_simple_duration(tok, cur, &v->integer))
        return DURATION;
    int64_t total = 0;
    const unsigned char *p = tok;
    v->integer = 0;
    while (p < cur) {
        uint64_t count;
        bool ok = read_digits(&p, cur, &count);
        const unsigned char *unit_start = p;
        while (p < cur && is_letter(*p))
            p++;
        const Unit *unit = lexer_find_unit(unit_start, (uint32_t)(p - unit_start));
        int64_t part;
        if (!ok || !unit || count > (uint64_t)INT64_MAX
            || __builtin_mul_overflow((int64_t)count, unit->ms, &part)
            || __builtin_add_overflow(total, part, &total)) {
            duration_too_long(lx, loc, tok, cur);
            return DURATION;
        }
    }
    v->integer = total;
    return DURATION;
}

/* ---- malformed literals ---- */

/* One `digits[.digits]unit` part of a literal being taken apart. */
typedef struct Part {
    uint64_t whole;
    uint64_t fraction;      /* the digits after the point, as an integer */
    uint32_t fraction_digits;
    bool overflow;
    const Unit *unit;
    const unsigned char *unit_start, *end;   /* where its unit is written */
    bool alias;             /* the unit was written another way (`sec`, `MS`) */
    bool guess;             /* ... and which unit it means is not certain */
} Part;

static const unsigned char *underscore_problem(const unsigned char *tok, const unsigned char *cur)
{
    for (const unsigned char *p = tok; p < cur; p++) {
        if (*p != '_')
            continue;
        bool digit_before = p > tok && is_digit(p[-1]);
        bool digit_after = p + 1 < cur && is_digit(p[1]);
        if (!digit_before || !digit_after)
            return p;
    }
    return NULL;
}

static uint64_t power_of_ten(uint32_t n)
{
    uint64_t v = 1;
    while (n--)
        v *= 10;
    return v;
}

/* The exact value of the parts in milliseconds, if it is a whole number that fits. */
static bool exact_milliseconds(const Part *parts, int count, int64_t *out)
{
    uint32_t scale_digits = 0;
    for (int i = 0; i < count; i++)
        if (parts[i].fraction_digits > scale_digits)
            scale_digits = parts[i].fraction_digits;
    if (scale_digits > 9)
        return false;
    __int128 scaled = 0;
    __int128 scale = (__int128)power_of_ten(scale_digits);
    for (int i = 0; i < count; i++) {
        if (parts[i].overflow || parts[i].whole > (uint64_t)INT64_MAX)
            return false;
        __int128 value = (__int128)parts[i].whole * scale
                         + (__int128)parts[i].fraction
                               * (__int128)power_of_ten(scale_digits - parts[i].fraction_digits);
        scaled += value * parts[i].unit->ms;
    }
    if (scaled % scale != 0 || scaled / scale > INT64_MAX)
        return false;
    *out = (int64_t)(scaled / scale);
    return true;
}

/* The shortest spelling of a whole number of milliseconds: the largest exact unit. */
static const char *spell_duration(Lexer *lx, int64_t ms, const Unit *fallback)
{
    const Unit *unit = fallback;
    if (ms != 0)
        for (int i = 0; i < UNIT_COUNT; i++)
            if (ms % units[i].ms == 0) {
                unit = &units[i];
                break;
            }
    return arena_printf(&lx->c->arena, "%lld%s", (long long)(ms / unit->ms), unit->name);
}

/* The parts rounded to whole milliseconds, spelt as a duration. */
static const char *rounded(Lexer *lx, const Part *parts, int count)
{
    long double ms = 0;
    for (int i = 0; i < count; i++) {
        long double fraction = (long double)parts[i].fraction;
        for (uint32_t d = 0; d < parts[i].fraction_digits; d++)
            fraction /= 10;
        ms += ((long double)parts[i].whole + fraction) * (long double)parts[i].unit->ms;
    }
    ms += 0.5L;
    if (ms >= 9.2e18L)
        return "9223372036854775807ms";
    return spell_duration(lx, (int64_t)ms, &units[UNIT_COUNT - 1]);
}

/* `1.5s`: E0006, with a fix writing it in whole units when it is a whole number of
 * milliseconds; the literal then keeps that value, so that it is still checked (as
 * misspelt_units does). */
static void fractional_duration(Lexer *lx, YYSTYPE *v, const unsigned char *tok,
                                const unsigned char *cur, const Part *parts, int count)
{
    uint32_t start = lexer_offset(lx, tok), end = lexer_offset(lx, cur);
    Diagnostic *d = lexer_report(lx, E0006, start, end, "duration `%.*s` has a fraction",
                                 (int)(cur - tok), tok);
    if (!d)
        return;
    int64_t ms;
    if (exact_milliseconds(parts, count, &ms)) {
        const char *whole = spell_duration(lx, ms, parts[count - 1].unit);
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, end), whole,
                     FIX_MACHINE_APPLICABLE, "write it as `%s`", whole);
        lx->scan.literal_bad = false;
        v->integer = ms;
    } else {
        diag_set_label(&lx->c->diags, d, "not a whole number of milliseconds");
        diag_add_help(&lx->c->diags, d, "durations are whole numbers of milliseconds: "
                      "round it, for example to `%s`", rounded(lx, parts, count));
    }
}

/* Reads one part at *p; returns a message when the part is malformed (already formatted
 * into the arena), NULL when it is fine. */
static const char *read_part(Lexer *lx, const unsigned char **p, const unsigned char *cur,
                             const unsigned char *tok, Part *part)
{
    memset(part, 0, sizeof *part);
    const unsigned char *start = *p;
    part->overflow = !read_digits(p, cur, &part->whole);
    if (*p == start)
        return arena_printf(&lx->c->arena, "malformed literal `%.*s`", (int)(cur - tok), tok);
    if (*p < cur && **p == '.') {
        (*p)++;
        const unsigned char *digits = *p;
        while (*p < cur && is_digit(**p)) {
            if (part->fraction_digits < 18) {
                part->fraction = part->fraction * 10 + (uint64_t)(**p - '0');
                part->fraction_digits++;
            }
            (*p)++;
        }
        if (*p == digits)
            return arena_printf(&lx->c->arena, "expected digits after `.` in `%.*s`",
                                (int)(cur - tok), tok);
        while (part->fraction_digits > 0 && part->fraction % 10 == 0) {
            part->fraction /= 10;
            part->fraction_digits--;
        }
    }
    const unsigned char *unit_start = *p;
    while (*p < cur && (is_letter(**p) || **p == '_' || **p == '.'))
        (*p)++;
    if (*p == unit_start)
        return arena_printf(&lx->c->arena, "missing unit after `%.*s` in duration `%.*s`",
                            (int)(*p - start), start, (int)(cur - tok), tok);
    uint32_t unit_len = (uint32_t)(*p - unit_start);
    part->unit_start = unit_start;
    part->end = *p;
    part->unit = lexer_find_unit(unit_start, unit_len);
    if (!part->unit) {
        part->unit = unit_alias(unit_start, unit_len, &part->guess);
        part->alias = true;
    }
    if (!part->unit)
        return arena_printf(&lx->c->arena, "unknown duration unit `%.*s` in `%.*s`",
                            (int)unit_len, unit_start, (int)(cur - tok), tok);
    return NULL;
}

/* The literal from `tok` with each part's unit spelt as Orbit spells it: `1h30min` ->
 * `1h30m`, `2 min` -> `2m` (what lies between a part's digits and its unit is dropped). */
static const char *respelt(Lexer *lx, const unsigned char *tok, const Part *parts, int count,
                           const unsigned char **digits_end)
{
    const char *text = "";
    const unsigned char *from = tok;
    for (int i = 0; i < count; i++) {
        text = arena_printf(&lx->c->arena, "%s%.*s%s", text, (int)(digits_end[i] - from), from,
                            parts[i].unit->name);
        from = parts[i].end;
    }
    return text;
}

/* Units written another way (`5sec`, `500MS`, `1h30min`, `2 min`): E0008 with a fix
 * spelling them as Orbit does. When the fix is certain the literal keeps its value, so
 * that it is still checked; otherwise it is an error expression. */
static int misspelt_units(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, const Part *parts, int count,
                          const unsigned char **digits_end, bool spaced)
{
    uint32_t start = lexer_offset(lx, tok), end = lexer_offset(lx, cur);
    const Part *first = parts;
    bool guess = false;
    for (int i = count - 1; i >= 0; i--) {
        if (parts[i].alias)
            first = &parts[i];
        guess |= parts[i].guess;
    }
    const char *spelling = respelt(lx, tok, parts, count, digits_end);
    Diagnostic *d = spaced
        ? lexer_report(lx, E0008, start, end, "space inside duration `%.*s`", (int)(cur - tok), tok)
        : lexer_report(lx, E0008, start, end, "unknown duration unit `%.*s` in `%.*s`",
                       (int)(first->end - first->unit_start), first->unit_start,
                       (int)(cur - tok), tok);
    if (d && guess)
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, end), spelling,
                     FIX_MAYBE_INCORRECT, "if `M` means minutes, write it as `%s`", spelling);
    else if (d)
        diag_add_fix(&lx->c->diags, d, lexer_span(lx, start, end), spelling,
                     FIX_MACHINE_APPLICABLE, "write it as `%s`", spelling);
    int64_t ms;
    if (!guess && exact_milliseconds(parts, count, &ms)) {
        lx->scan.literal_bad = false;
        v->integer = ms;
    }
    return DURATION;
}

/* `2 min`, `5 s`: an integer, spaces, then a unit (or a unit written another way) as a
 * whole word that is not followed by `:`, `.`, `(` or `[` (then it is a name). Reported
 * as one duration token with a fix; returns DURATION and sets *end, or 0. */
int lexer_spaced_duration(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                          const unsigned char *cur, const unsigned char **end)
{
    const unsigned char *p = cur;
    while (p < lx->lim && (*p == ' ' || *p == '\t'))
        p++;
    const unsigned char *word = p;
    while (p < lx->lim && is_letter(*p))
        p++;
    if (p == word || (p < lx->lim && (is_digit(*p) || *p == '_' || *p >= 0x80)))
        return 0;
    const unsigned char *after = p;
    while (after < lx->lim && (*after == ' ' || *after == '\t'))
        after++;
    if (after < lx->lim && (*after == ':' || *after == '.' || *after == '(' || *after == '['))
        return 0;
    Part part = { 0 };
    const unsigned char *digits = tok;
    part.overflow = !read_digits(&digits, cur, &part.whole);
    part.unit_start = word;
    part.end = p;
    part.unit = lexer_find_unit(word, (uint32_t)(p - word));
    if (!part.unit)
        part.unit = unit_alias(word, (uint32_t)(p - word), &part.guess);
    if (!part.unit)
        return 0;
    *end = p;
    lx->scan.literal_bad = true;
    v->integer = 0;
    return misspelt_units(lx, v, loc, tok, p, &part, 1, &cur, true);
}

int lexer_malformed_number(Lexer *lx, YYSTYPE *v, Loc *loc, const unsigned char *tok,
                           const unsigned char *cur)
{
    uint32_t start = lexer_offset(lx, tok), end = lexer_offset(lx, cur);
    lx->scan.literal_bad = true;
    v->integer = 0;
    const unsigned char *underscore = underscore_problem(tok, cur);
    if (underscore) {
        Diagnostic *d = lexer_report(lx, E0008, start, end,
                                     "misplaced `_` in number literal `%.*s`",
                                     (int)(cur - tok), tok);
        if (d)
            diag_add_help(&lx->c->diags, d, "`_` may only separate two digits, as in `1_000`");
        return INT;
    }
    Part parts[16];
    const unsigned char *digits_end[16];
    int count = 0;
    bool fraction = false, alias = false;
    for (const unsigned char *q = tok; q < cur; q++)
        fraction |= *q == '.';
    const unsigned char *p = tok;
    while (p < cur) {
        Part part;
        const char *problem = read_part(lx, &p, cur, tok, &part);
        if (problem) {
            Diagnostic *d = lexer_report(lx, E0008, start, end, "%s", problem);
            if (d && strstr(problem, "unit"))
                diag_add_help(&lx->c->diags, d, "%s", valid_units);
            return DURATION;
        }
        alias |= part.alias;
        if (count < 16) {
            digits_end[count] = part.unit_start;
            parts[count++] = part;
        }
    }
    if (fraction)
        fractional_duration(lx, v, tok, cur, parts, count);
    else if (alias && count < 16)
        return misspelt_units(lx, v, loc, tok, cur, parts, count, digits_end, false);
    else
        lexer_report(lx, E0008, start, end, "malformed duration `%.*s`", (int)(cur - tok), tok);
    return DURATION;
}
