/* Unit tests of the column helpers: characters, UTF-16 units and display cells. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "diag.h"


static void expect(const char *line, uint32_t at, uint32_t column, uint32_t utf16,
                   uint32_t cells)
{
    ck_assert_uint_eq(column_scalars(line, at), column);
    ck_assert_uint_eq(column_utf16(line, at), utf16);
    ck_assert_uint_eq(column_cells(line, at), cells);
}

START_TEST(ascii)
{
    expect("      backof: exponential", 0, 1, 0, 0);
    expect("      backof: exponential", 6, 7, 6, 6);
    expect("      backof: exponential", 12, 13, 12, 12);
}
END_TEST

START_TEST(tabs)
{
    expect("\tx", 1, 2, 1, 4);             /* a tab at cell 0 is 4 wide */
    expect("ab\tx", 3, 4, 3, 4);           /* at cell 2 it is 2 wide */
    expect("abcd\tx", 5, 6, 5, 8);         /* at cell 4 it is 4 wide */
    expect("\t\tx", 2, 3, 2, 8);
}
END_TEST

START_TEST(accents)
{
    expect("\xC3\xA9x", 2, 2, 1, 1);        /* é precomposed: 1 char, 1 unit, 1 cell */
    expect("e\xCC\x81x", 3, 3, 2, 1);       /* e + combining acute: 2 chars, 1 cell */
}
END_TEST

START_TEST(wide)
{
    expect("\xE6\x97\xA5\xE6\x9C\xAC: x", 6, 3, 2, 4);   /* 日本: 2 chars, 4 cells */
    expect("\xF0\x9F\x98\x80x", 4, 2, 2, 2);             /* emoji: surrogate pair, 2 cells */
}
END_TEST

START_TEST(invalid_bytes)
{
    expect("\xFFx", 1, 2, 1, 1);            /* each bad byte is one unit, shown as U+FFFD */
    expect("\xC3x", 1, 2, 1, 1);            /* truncated sequence */
    expect("\xE6\x97x", 2, 3, 2, 2);        /* truncated 3-byte sequence: 2 bad bytes */
    expect("\xC0\xAFx", 2, 3, 2, 2);        /* overlong */
    expect("\xED\xA0\x80x", 3, 4, 3, 3);    /* encoded surrogate */
    expect("\xF4\x90\x80\x80x", 4, 5, 4, 4);/* above U+10FFFF */
}
END_TEST

START_TEST(controls)
{
    expect("\x01x", 1, 2, 1, 1);            /* control: shown as U+FFFD, one cell */
    expect("a\rb", 2, 3, 2, 2);             /* a lone CR inside a line */
}
END_TEST

START_TEST(bidi_override_is_unprintable)
{
    int32_t cp;
    ck_assert_uint_eq(utf8_decode((const unsigned char *)"\xE2\x80\xAE", 3, &cp), 3);
    ck_assert(utf8_is_unprintable(cp));     /* U+202E RIGHT-TO-LEFT OVERRIDE */
}
END_TEST

/* Positions through the SourceMap: CRLF line ends, offsets past the end. */
START_TEST(positions)
{
    SourceMap map;
    source_map_init(&map);
    const char text[] = "ab\r\n\xE6\x97\xA5x\r\n";
    char *copy = malloc(sizeof text);
    memcpy(copy, text, sizeof text);
    uint32_t f = source_map_add(&map, "t.orbit", copy, sizeof text - 1, false);
    ColumnCache cache;
    column_cache_init(&cache);
    Position p = diag_position_at(&cache, &map, f, 2);     /* the CR */
    ck_assert_uint_eq(p.line, 0);
    ck_assert_uint_eq(p.at.scalars, 2);
    p = diag_position_at(&cache, &map, f, 3);              /* the LF: still end of line 0 */
    ck_assert_uint_eq(p.line, 0);
    ck_assert_uint_eq(p.at.scalars, 2);
    p = diag_position_at(&cache, &map, f, 7);              /* x after 日 */
    ck_assert_uint_eq(p.line, 1);
    ck_assert_uint_eq(p.at.scalars, 1);
    ck_assert_uint_eq(p.at.cells, 2);
    p = diag_position_at(&cache, &map, f, 1000);           /* past the end: the last line */
    ck_assert_uint_eq(p.line, 2);
    ck_assert_uint_eq(p.at.scalars, 0);
    source_map_free(&map);
}
END_TEST

/* The cache gives the same answers as a fresh scan, in any order. */
START_TEST(cache_agrees)
{
    const char *line = "a\t\xE6\x97\xA5 b\xF0\x9F\x98\x80 c\xC3\xA9\xFF d";
    uint32_t len = (uint32_t)strlen(line);
    ColumnCache cache;
    column_cache_init(&cache);
    uint32_t order[] = { 5, 0, 12, 3, 3, 17, 1, 9, 19, 2 };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        uint32_t at = order[i] <= len ? order[i] : len;
        if (at < len && ((unsigned char)line[at] & 0xC0) == 0x80)
            continue;   /* only character boundaries */
        ColumnCursor c = column_cache_at(&cache, 0, 0, line, at);
        ck_assert_uint_eq(c.scalars + 1, column_scalars(line, at));
        ck_assert_uint_eq(c.utf16, column_utf16(line, at));
        ck_assert_uint_eq(c.cells, column_cells(line, at));
    }
}
END_TEST

/* A long line is scanned once for many increasing positions (this would take minutes
 * if each position rescanned the line). */
START_TEST(long_line_is_linear)
{
    uint32_t len = 4u << 20;
    char *line = malloc(len + 1);
    memset(line, 'x', len);
    line[len] = '\0';
    ColumnCache cache;
    column_cache_init(&cache);
    for (uint32_t at = 0; at < len; at += 64) {
        ColumnCursor c = column_cache_at(&cache, 0, 0, line, at);
        ck_assert_uint_eq(c.cells, at);
    }
    free(line);
}
END_TEST

static Suite *columns_suite(void)
{
    Suite *s = suite_create("columns");
    TCase *tc = tcase_create("columns");
    tcase_add_test(tc, ascii);
    tcase_add_test(tc, tabs);
    tcase_add_test(tc, accents);
    tcase_add_test(tc, wide);
    tcase_add_test(tc, invalid_bytes);
    tcase_add_test(tc, controls);
    tcase_add_test(tc, bidi_override_is_unprintable);
    tcase_add_test(tc, positions);
    tcase_add_test(tc, cache_agrees);
    tcase_add_test(tc, long_line_is_linear);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(columns_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
