/* Unit tests of the lexer: every token kind, literal values, each lexical error, the
 * newline rule, bracket matching, NFC normalisation of identifiers. */
#include <check.h>

#include "front_fixture.h"

enum { MAX_TOKENS = 256 };

typedef struct Lexed {
    Fixture *f;
    int kinds[MAX_TOKENS];
    YYSTYPE values[MAX_TOKENS];
    Loc locs[MAX_TOKENS];
    bool bad[MAX_TOKENS];      /* a literal reported as unreadable */
    bool quiet[MAX_TOKENS];    /* a syntax error on it would not be reported */
    int count;
} Lexed;

/* The position of the lexed file's byte 0 (spans are positions, source.h). */
static uint32_t origin_of(Lexed *l)
{
    return source_file(&l->f->c.sources, l->f->file)->origin;
}

/* Lexes text to the end; the caller frees with lexed_free. */
static Lexed *lex_text(const char *text, size_t len)
{
    Lexed *l = calloc(1, sizeof *l);
    l->f = malloc(sizeof *l->f);
    fixture_open(l->f, text, len);
    Lexer *lx = malloc(sizeof *lx);
    lexer_init(lx, &l->f->c, l->f->file);
    for (;;) {
        YYSTYPE v;
        Loc loc;
        int kind = lexer_next(lx, &v, &loc);
        if (kind == END || l->count == MAX_TOKENS)
            break;
        l->kinds[l->count] = kind;
        l->values[l->count] = v;
        l->locs[l->count] = loc;
        l->bad[l->count] = lexer_literal_is_bad(lx, loc.start);
        l->quiet[l->count] = lexer_token_is_quiet(lx, kind, loc);
        l->count++;
    }
    lexer_free(lx);
    free(lx);
    return l;
}

static Lexed *lex(const char *text)
{
    return lex_text(text, strlen(text));
}

static void lexed_free(Lexed *l)
{
    fixture_free(l->f);
    free(l);
}

static void expect_kinds(Lexed *l, const int *kinds, int count)
{
    ck_assert_int_eq(l->count, count);
    for (int i = 0; i < count; i++)
        ck_assert_msg(l->kinds[i] == kinds[i], "token %d: kind %d, expected %d", i, l->kinds[i],
                      kinds[i]);
}

static const char *diagnostics(Lexed *l)
{
    return fixture_diagnostics(l->f);
}

START_TEST(punctuation)
{
    Lexed *l = lex("{ } [ ] ( ) , ; : . ? ?? || && == != < <= > >= + - * / % ! =");
    int kinds[] = { LBRACE, RBRACE, LBRACK, RBRACK, LPAREN, RPAREN, COMMA, SEMI, COLON, DOT,
                    QUESTION, QQ, OROR, ANDAND, EQ, NE, LT, LE, GT, GE, PLUS, MINUS, STAR,
                    SLASH, PERCENT, BANG, ASSIGN };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(keywords_and_identifiers)
{
    Lexed *l = lex("workflow worker type input output timeout step return using sleep await "
                   "compute with when for in idempotency_key retry queue_timeout compensate "
                   "true false null workflows _x1 Input");
    int kinds[] = { T_WORKFLOW, T_WORKER, T_TYPE, T_INPUT, T_OUTPUT, T_TIMEOUT, T_STEP,
                    T_RETURN, T_USING, T_SLEEP, T_AWAIT, T_COMPUTE, T_WITH, T_WHEN, T_FOR, T_IN,
                    T_IDEMPOTENCY_KEY, T_RETRY, T_QUEUE_TIMEOUT, T_COMPENSATE, T_TRUE, T_FALSE,
                    T_NULL, IDENT, IDENT, IDENT };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    ck_assert_str_eq(l->values[23].name->text, "workflows");
    ck_assert_str_eq(l->values[24].name->text, "_x1");
    ck_assert_int_eq(l->locs[23].start, 160);
    ck_assert_int_eq(l->locs[23].end, 169);
    lexed_free(l);
}
END_TEST

/* An identifier ends at the first byte that is not [a-zA-Z0-9_], whatever its length and
 * however near the end of the text it is: the lexer looks at 16 bytes at a time while 16
 * are left, then at one. The bytes just outside each range of identifier characters stop
 * it; a keyword followed by an identifier character is an identifier. */
START_TEST(identifiers_of_every_length_and_place)
{
    static const char first[] = "_aAzZ", rest[] = "azAZ09_mQ5";
    static const char *const stops[] = { "", " ", "/", ":", "@", "[", "`", "{", "-", ".",
                                         "\xc3\xa9", "\x7f", "\t" };
    char text[128];
    for (size_t len = 1; len <= 40; len++)
        for (size_t s = 0; s < sizeof stops / sizeof stops[0]; s++)
            for (size_t pad = 0; pad <= 17; pad += s == 0 ? 18 : 1) {
                for (size_t i = 0; i < len; i++)
                    text[i] = i == 0 ? first[len % 5] : rest[(i + len) % 10];
                size_t n = len + (size_t)snprintf(text + len, sizeof text - len, "%s%*s",
                                                  stops[s], (int)pad, "");
                Lexed *l = lex_text(text, n);
                size_t want = s == 10 ? len + 2 : len;   /* `é` continues the identifier */
                ck_assert_msg(l->count >= 1 && l->locs[0].end - l->locs[0].start == want,
                              "`%s`: the first token is %u bytes, expected %zu", text,
                              l->count ? l->locs[0].end - l->locs[0].start : 0, want);
                ck_assert_int_eq(l->kinds[0], IDENT);
                lexed_free(l);
            }
    static const char *const words[] = { "inputs", "in_", "step9", "trueX", "null_", "and_",
                                         "ifx", "workflowworkflow", "queue_timeouts",
                                         "idempotency_keys", "compensate0", "wit", "t" };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        Lexed *l = lex(words[w]);
        ck_assert_int_eq(l->count, 1);
        ck_assert_int_eq(l->kinds[0], IDENT);
        ck_assert_str_eq(l->values[0].name->text, words[w]);
        lexed_free(l);
    }
    Lexed *l = lex("null.in(step)input-when");
    int kinds[] = { T_NULL, DOT, T_IN, LPAREN, T_STEP, RPAREN, T_INPUT, MINUS, T_WHEN };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    lexed_free(l);
}
END_TEST

START_TEST(literals)
{
    Lexed *l = lex("42 1_000 1.5 2e3 1.5e-3 \"a\\n\\t\\r\\\"\\\\\\u{1F600}\" 500ms 1h30m");
    int kinds[] = { INT, INT, NUMBER, NUMBER, NUMBER, STRING, DURATION, DURATION };
    expect_kinds(l, kinds, 8);
    ck_assert_int_eq(l->values[0].integer, 42);
    ck_assert_int_eq(l->values[1].integer, 1000);
    ck_assert_double_eq(l->values[2].number, 1.5);
    ck_assert_double_eq(l->values[3].number, 2000.0);
    ck_assert_double_eq_tol(l->values[4].number, 0.0015, 1e-12);
    ck_assert_int_eq(l->values[5].string.len, 10);
    ck_assert(memcmp(l->values[5].string.text, "a\n\t\r\"\\\xF0\x9F\x98\x80", 10) == 0);
    ck_assert_int_eq(l->values[6].integer, 500);
    ck_assert_int_eq(l->values[7].integer, 5400000);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(l->bad[i], 0);
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

/* Numbers whose value is computed without strtod (an exact mantissa and power of ten)
 * and numbers left to it: every one is the double strtod gives, bit for bit. */
START_TEST(numbers_are_correctly_rounded)
{
    static const char *const numbers[] = {
        "0.1", "0.3", "2.675", "998.67", "1.0", "0.000001", "1_000.000_5", "00012.50",
        "123456789012345.6", "999999999999999.9", "9007199254740993.0", "1e22", "1e23",
        "12345e-22", "1.5e-3", "3E+5", "7e0000000000000000001", "4.9e-324",
        "1.7976931348623157e308", "0.0", "0e5", "123456789012345678901234567890.0",
    };
    enum { COUNT = sizeof numbers / sizeof numbers[0] };
    char text[1024] = "";
    for (int i = 0; i < COUNT; i++) {
        strcat(text, numbers[i]);
        strcat(text, " ");
    }
    Lexed *l = lex(text);
    ck_assert_int_eq(l->count, COUNT);
    for (int i = 0; i < COUNT; i++) {
        char clean[64];
        size_t n = 0;
        for (const char *p = numbers[i]; *p; p++)
            if (*p != '_')
                clean[n++] = *p;
        clean[n] = 0;
        double expected = strtod(clean, NULL);
        ck_assert_int_eq(l->kinds[i], NUMBER);
        ck_assert_msg(memcmp(&l->values[i].number, &expected, sizeof expected) == 0,
                      "%s: %.17g, expected %.17g", numbers[i], l->values[i].number, expected);
    }
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(durations)
{
    Lexed *l = lex("1ms 10s 2m 1h 7d 1h30m 1d1h1m1s1ms 1_000ms 0s "
                   "106751991167d 9223372036854775807ms");
    int64_t expected[] = { 1, 10000, 120000, 3600000, 604800000, 5400000, 90061001, 1000, 0,
                           INT64_C(9223372036828800000), INT64_MAX };
    ck_assert_int_eq(l->count, 11);
    for (int i = 0; i < 11; i++) {
        ck_assert_int_eq(l->kinds[i], DURATION);
        ck_assert_int_eq(l->values[i].integer, expected[i]);
    }
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(duration_overflow)
{
    Lexed *l = lex("106751991168d 9223372036854775808ms 106751991167d1d");
    ck_assert_int_eq(l->count, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(l->kinds[i], DURATION);
        ck_assert_int_eq(l->bad[i], 1);
    }
    ck_assert_str_eq(diagnostics(l),
                     "E0007@1:1 duration `106751991168d` is out of range\n"
                     "E0007@1:15 duration `9223372036854775808ms` is out of range\n"
                     "E0007@1:37 duration `106751991167d1d` is out of range\n");
    lexed_free(l);
}
END_TEST

START_TEST(integer_and_number_overflow)
{
    Lexed *l = lex("9223372036854775807 9223372036854775808 1e308 1e309");
    ck_assert_int_eq(l->values[0].integer, INT64_MAX);
    ck_assert_int_eq(l->bad[0], 0);
    ck_assert_int_eq(l->bad[1], 1);
    ck_assert_int_eq(l->bad[2], 0);
    ck_assert_int_eq(l->bad[3], 1);
    ck_assert_str_eq(diagnostics(l),
                     "E0007@1:21 integer `9223372036854775808` is out of range\n"
                     "E0007@1:47 number `1e309` is out of range\n");
    lexed_free(l);
}
END_TEST

static const char *fix_of(Lexed *l, uint32_t i)
{
    const DiagFix *fix = l->f->c.diags.items[i]->fixes;
    return fix ? fix->replacement : "(none)";
}

START_TEST(fractional_durations)
{
    Lexed *l = lex("1.5s 1.5h 0.5d 1.0s 2.25m 1.0001ms 1.5h30m");
    ck_assert_int_eq(l->count, 7);
    ck_assert_str_eq(diagnostics(l),
                     "E0006@1:1 duration `1.5s` has a fraction\n"
                     "E0006@1:6 duration `1.5h` has a fraction\n"
                     "E0006@1:11 duration `0.5d` has a fraction\n"
                     "E0006@1:16 duration `1.0s` has a fraction\n"
                     "E0006@1:21 duration `2.25m` has a fraction\n"
                     "E0006@1:27 duration `1.0001ms` has a fraction\n"
                     "E0006@1:36 duration `1.5h30m` has a fraction\n");
    ck_assert_str_eq(fix_of(l, 0), "1500ms");
    ck_assert_str_eq(fix_of(l, 1), "90m");
    ck_assert_str_eq(fix_of(l, 2), "12h");
    ck_assert_str_eq(fix_of(l, 3), "1s");
    ck_assert_str_eq(fix_of(l, 4), "135s");
    ck_assert_str_eq(fix_of(l, 5), "(none)");
    ck_assert_str_eq(fix_of(l, 6), "2h");
    ck_assert_int_eq(l->f->c.diags.items[0]->fixes->applicability, FIX_MACHINE_APPLICABLE);
    ck_assert_ptr_nonnull(l->f->c.diags.items[5]->helps);
    lexed_free(l);
}
END_TEST

START_TEST(malformed_numbers)
{
    Lexed *l = lex("5x 10sm 1__0 1_ 1h30 1.");
    ck_assert_int_eq(l->count, 6);
    ck_assert_str_eq(diagnostics(l),
                     "E0008@1:1 unknown duration unit `x` in `5x`\n"
                     "E0008@1:4 unknown duration unit `sm` in `10sm`\n"
                     "E0008@1:9 misplaced `_` in number literal `1__0`\n"
                     "E0008@1:14 misplaced `_` in number literal `1_`\n"
                     "E0008@1:17 missing unit after `30` in duration `1h30`\n"
                     "E0008@1:22 expected digits after `.` in `1.`\n");
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(l->bad[i], 1);
    lexed_free(l);
}
END_TEST

START_TEST(integer_then_name_is_not_a_duration)
{
    /* `5 s` is an error with a fix; the token keeps its value so it is still checked. */
    Lexed *l = lex("5 s");
    int kinds[] = { DURATION };
    expect_kinds(l, kinds, 1);
    ck_assert_int_eq(l->values[0].integer, 5000);
    ck_assert_str_eq(diagnostics(l), "E0008@1:1 space inside duration `5 s`\n");
    lexed_free(l);
    /* Followed by `:`, `.` or `(`, the word is a name. */
    l = lex("5 s: 1");
    int named[] = { INT, IDENT, COLON, INT };
    expect_kinds(l, named, 4);
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(units_written_another_way)
{
    Lexed *l = lex("5sec 500MS 1day 2 min 1h30min 5M");
    int kinds[] = { DURATION, DURATION, DURATION, DURATION, DURATION, DURATION };
    expect_kinds(l, kinds, 6);
    ck_assert_int_eq(l->values[0].integer, 5000);
    ck_assert_int_eq(l->values[1].integer, 500);
    ck_assert_int_eq(l->values[2].integer, 86400000);
    ck_assert_int_eq(l->values[3].integer, 120000);
    ck_assert_int_eq(l->values[4].integer, 5400000);
    ck_assert_int_eq(l->bad[5], 1);     /* `M` might be months: no value */
    ck_assert_str_eq(diagnostics(l),
                     "E0008@1:1 unknown duration unit `sec` in `5sec`\n"
                     "E0008@1:6 unknown duration unit `MS` in `500MS`\n"
                     "E0008@1:12 unknown duration unit `day` in `1day`\n"
                     "E0008@1:17 space inside duration `2 min`\n"
                     "E0008@1:23 unknown duration unit `min` in `1h30min`\n"
                     "E0008@1:31 unknown duration unit `M` in `5M`\n");
    lexed_free(l);
}
END_TEST

START_TEST(invalid_utf8)
{
    static const char text[] = "ab \xff\xfe cd \"x\xc3\" // \xe2\x82\n";
    Lexed *l = lex_text(text, sizeof text - 1);
    ck_assert_str_eq(diagnostics(l),
                     "E0001@1:4 invalid UTF-8: 2 bytes at offset 3\n"
                     "E0001@1:12 invalid UTF-8 byte 0xc3 at offset 11\n"
                     "E0001@1:18 invalid UTF-8: 2 bytes at offset 17\n");
    ck_assert_int_eq(l->f->c.diags.items[0]->span.end - origin_of(l), 5);   /* the run of two bad bytes */
    int kinds[] = { IDENT, STRAY, STRAY, IDENT, STRING, NEWLINE };
    expect_kinds(l, kinds, 6);
    lexed_free(l);
}
END_TEST

START_TEST(unexpected_characters)
{
    static const char text[] = "a @ b $$ \x01 \xe2\x80\x8b \xe2\x86\x92 \x00 c";
    Lexed *l = lex_text(text, sizeof text - 1);
    ck_assert_str_eq(diagnostics(l),
                     "E0002@1:3 unexpected character `@`\n"
                     "E0002@1:7 unexpected character `$`\n"
                     "E0002@1:10 unexpected character U+0001\n"
                     "E0002@1:12 unexpected character U+200B\n"
                     "E0002@1:16 unexpected character `→`\n"
                     "E0002@1:20 unexpected character U+0000\n");
    ck_assert_int_eq(l->f->c.diags.items[1]->span.end - origin_of(l), 8);   /* `$$` is one report */
    ck_assert_int_eq(l->kinds[1], STRAY);
    ck_assert_int_eq(l->quiet[1], 1);
    ck_assert_int_eq(l->kinds[l->count - 1], IDENT);
    lexed_free(l);
}
END_TEST

START_TEST(unterminated_strings)
{
    Lexed *l = lex("a: \"abc\nb: \"def");
    ck_assert_str_eq(diagnostics(l),
                     "E0003@1:4 unterminated string literal\n"
                     "E0003@2:4 unterminated string literal\n");
    int kinds[] = { IDENT, COLON, STRING, NEWLINE, IDENT, COLON, STRING };
    expect_kinds(l, kinds, 7);
    ck_assert_int_eq(l->bad[2], 1);
    lexed_free(l);
}
END_TEST

START_TEST(bad_escapes)
{
    Lexed *l = lex("\"\\q \\u{D800} \\u{110000} \\u{} \\u41 \\u{1234567} \\u{41\"");
    ck_assert_str_eq(diagnostics(l),
                     "E0004@1:2 unknown escape sequence `\\q`\n"
                     "E0004@1:5 invalid unicode escape `\\u{D800}`: a surrogate is not a character\n"
                     "E0004@1:14 invalid unicode escape `\\u{110000}`: beyond U+10FFFF\n"
                     "E0004@1:25 empty unicode escape `\\u{}`\n"
                     "E0004@1:30 invalid unicode escape `\\u`: expected `{` after `\\u`\n"
                     "E0004@1:35 invalid unicode escape `\\u{1234567}`: more than 6 hex digits\n"
                     "E0004@1:47 unterminated unicode escape `\\u{41`: expected `}`\n");
    ck_assert_int_eq(l->count, 1);
    ck_assert_int_eq(l->bad[0], 1);
    lexed_free(l);
}
END_TEST

START_TEST(comments)
{
    Lexed *l = lex("a // line\nb /* block */ c /* two\nlines */ d /* open");
    int kinds[] = { IDENT, NEWLINE, IDENT, IDENT, NEWLINE, IDENT };
    expect_kinds(l, kinds, 6);
    ck_assert_str_eq(diagnostics(l), "E0005@3:12 unterminated block comment\n");
    lexed_free(l);
}
END_TEST

START_TEST(hash_comment)
{
    Lexed *l = lex("a # not a comment\nb");
    int kinds[] = { IDENT, NEWLINE, IDENT };
    expect_kinds(l, kinds, 3);
    ck_assert_str_eq(diagnostics(l), "E0002@1:3 unexpected character `#`\n");
    lexed_free(l);
}
END_TEST

START_TEST(string_too_long)
{
    size_t len = 1024 * 1024 + 8;
    char *text = malloc(len + 1);
    memset(text, 'x', len);
    text[0] = '"';
    text[len - 1] = '"';
    text[len] = '\0';
    Lexed *l = lex_text(text, len);
    free(text);
    ck_assert_int_eq(l->count, 1);
    ck_assert_int_eq(l->values[0].string.len, len - 2);
    ck_assert_str_eq(diagnostics(l),
                     "E0011@1:1 string literal too long: 1048584 bytes, the limit is 1 MiB\n");
    lexed_free(l);
}
END_TEST

START_TEST(nfc_identifiers)
{
    Lexed *l = lex("caf\xc3\xa9 cafe\xcc\x81 \xce\xb1\xce\xb2 x\xe2\x80\xbf");
    ck_assert_int_eq(l->count, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(l->kinds[i], IDENT);
    ck_assert_ptr_eq(l->values[0].name, l->values[1].name);
    ck_assert_str_eq(l->values[0].name->text, "caf\xc3\xa9");
    ck_assert_int_eq(l->locs[1].end - l->locs[1].start, 6);
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(bom_and_crlf)
{
    Lexed *l = lex("\xef\xbb\xbf" "a\r\nb\r\n");
    int kinds[] = { IDENT, NEWLINE, IDENT, NEWLINE };
    expect_kinds(l, kinds, 4);
    ck_assert_int_eq(l->locs[0].start, 3);
    ck_assert_str_eq(diagnostics(l), "");
    lexed_free(l);
}
END_TEST

START_TEST(newline_rule)
{
    /* After operators, separators, `:`, `.` and openers a newline continues the line;
     * inside ( ) and [ ] it never counts; blank and comment lines make one newline. */
    Lexed *l = lex("\n\na +\nb ??\nc\n\n// note\n\nd: [1,\n2\n] (e\nf)\n{ g\nh }\nx.\ny,\nz");
    int kinds[] = { IDENT, PLUS, IDENT, QQ, IDENT, NEWLINE,
                    IDENT, COLON, LBRACK, INT, COMMA, INT, RBRACK, LPAREN, IDENT, IDENT, RPAREN,
                    NEWLINE,
                    LBRACE, IDENT, NEWLINE, IDENT, RBRACE, NEWLINE,
                    IDENT, DOT, IDENT, COMMA, IDENT };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    lexed_free(l);
}
END_TEST

START_TEST(word_after_block_implies_separator)
{
    Lexed *l = lex("{ input { a: int } output int }");
    int kinds[] = { LBRACE, T_INPUT, LBRACE, IDENT, COLON, IDENT, RBRACE, NEWLINE, T_OUTPUT,
                    IDENT, RBRACE };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    lexed_free(l);
}
END_TEST

START_TEST(stray_closers_are_one_run)
{
    Lexed *l = lex("{ }\n} }\n }\nx }");
    ck_assert_str_eq(diagnostics(l),
                     "E0102@2:1 3 unexpected closing delimiters `}`\n"
                     "E0102@4:3 unexpected closing delimiter `}`\n");
    lexed_free(l);
}
END_TEST

START_TEST(unclosed_and_stray_brackets)
{
    Lexed *l = lex("{ [ ( ) }\n) ]");
    /* `[` is closed by an invented `]` before the `}`; the stray `)` and `]` are dropped,
     * reported once as a run. */
    int kinds[] = { LBRACE, LBRACK, LPAREN, RPAREN, RBRACK, RBRACE, NEWLINE };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    ck_assert_int_eq(l->quiet[4], 1);
    ck_assert_str_eq(diagnostics(l),
                     "E0101@1:9 expected `]`, found `}`\n"
                     "E0102@2:1 2 unexpected closing delimiters\n");
    lexed_free(l);
}
END_TEST

START_TEST(unclosed_at_end_of_file)
{
    Lexed *l = lex("{ a: [1,\n");
    int kinds[] = { LBRACE, IDENT, COLON, LBRACK, INT, COMMA, RBRACK, RBRACE };
    expect_kinds(l, kinds, sizeof kinds / sizeof kinds[0]);
    ck_assert_str_eq(diagnostics(l), "E0101@2:1 expected `]`, found end of file\n");
    const DiagLabel *label = l->f->c.diags.items[0]->labels;
    ck_assert_str_eq(label->message, "unclosed `{`");
    ck_assert_str_eq(label->next->message, "unclosed `[`");
    lexed_free(l);
}
END_TEST

START_TEST(nesting_limit)
{
    size_t len = 200000;
    char *text = malloc(len + 1);
    memset(text, '[', len);
    text[len] = '\0';
    Lexed *l = lex_text(text, len);
    free(text);
    ck_assert_int_eq(l->count, AST_MAX_DEPTH);
    ck_assert_str_eq(diagnostics(l),
                     "E0009@1:257 nesting too deep: more than 256 levels of brackets\n");
    lexed_free(l);
}
END_TEST

START_TEST(file_too_large)
{
    Fixture *f = fixture_new("workflow a {}");
    /* Pretend the file is larger than the limit: the parser must not read it. */
    f->c.sources.files[f->file].len = SOURCE_MAX_FILE_SIZE + 1;
    SourceAst *ast = parse_source(&f->c, f->file);
    ck_assert(ast->fatal);
    ck_assert_int_eq(ast->count, 0);
    ck_assert_int_eq(fixture_count(f, "E0010"), 1);
    f->c.sources.files[f->file].len = 13;
    fixture_free(f);
}
END_TEST

static Suite *lexer_suite(void)
{
    Suite *s = suite_create("lexer");
    TCase *tc = tcase_create("lexer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, punctuation);
    tcase_add_test(tc, keywords_and_identifiers);
    tcase_add_test(tc, identifiers_of_every_length_and_place);
    tcase_add_test(tc, literals);
    tcase_add_test(tc, durations);
    tcase_add_test(tc, duration_overflow);
    tcase_add_test(tc, numbers_are_correctly_rounded);
    tcase_add_test(tc, integer_and_number_overflow);
    tcase_add_test(tc, fractional_durations);
    tcase_add_test(tc, malformed_numbers);
    tcase_add_test(tc, integer_then_name_is_not_a_duration);
    tcase_add_test(tc, units_written_another_way);
    tcase_add_test(tc, invalid_utf8);
    tcase_add_test(tc, unexpected_characters);
    tcase_add_test(tc, unterminated_strings);
    tcase_add_test(tc, bad_escapes);
    tcase_add_test(tc, comments);
    tcase_add_test(tc, hash_comment);
    tcase_add_test(tc, string_too_long);
    tcase_add_test(tc, nfc_identifiers);
    tcase_add_test(tc, bom_and_crlf);
    tcase_add_test(tc, newline_rule);
    tcase_add_test(tc, word_after_block_implies_separator);
    tcase_add_test(tc, unclosed_and_stray_brackets);
    tcase_add_test(tc, stray_closers_are_one_run);
    tcase_add_test(tc, unclosed_at_end_of_file);
    tcase_add_test(tc, nesting_limit);
    tcase_add_test(tc, file_too_large);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(lexer_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? 0 : 1;
}
