/* Unit tests of JSON string text (diagnostics/json_text.h): the bytes that the written
 * string (render_json.c) and the jansson string (the CI formats, the language server,
 * `dis --format json`) hold for valid UTF-8, invalid bytes at the start, in the middle
 * and as the last byte, truncated sequences, overlong forms, surrogates, code points
 * above U+10FFFF, control characters, DEL, U+2028 and U+2029. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

#define FFFD "\xEF\xBF\xBD"

/* What diag_json_write_text writes of text[0, len). */
static char *written(const char *text, size_t len)
{
    char *data = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&data, &size);
    diag_json_write_text(out, text, len);
    fclose(out);
    return data;
}

/* Both forms of one text: `write` is what is written, quotes included; `value` the
 * jansson string's bytes (escapes are jansson's business when it dumps). */
static void expect(const char *text, size_t len, const char *write, const char *value,
                   size_t value_len)
{
    char *w = written(text, len);
    ck_assert_str_eq(w, write);
    free(w);
    json_t *s = diag_json_text(text, len);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(json_string_length(s), value_len);
    ck_assert_mem_eq(json_string_value(s), value, value_len);
    json_decref(s);
}

#define EXPECT(text, write, value) \
    expect(text, sizeof text - 1, write, value, sizeof value - 1)

START_TEST(valid_text_is_kept)
{
    EXPECT("", "\"\"", "");
    EXPECT("plain ascii", "\"plain ascii\"", "plain ascii");
    EXPECT("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"",
           "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
    EXPECT("\xF4\x8F\xBF\xBF", "\"\xF4\x8F\xBF\xBF\"", "\xF4\x8F\xBF\xBF");   /* U+10FFFF */
    EXPECT("\xEF\xBF\xBD", "\"" FFFD "\"", FFFD);
}
END_TEST

START_TEST(invalid_bytes_become_replacement_characters)
{
    EXPECT("\xFF" "ab", "\"" FFFD "ab\"", FFFD "ab");          /* at the start */
    EXPECT("a\x80" "b", "\"a" FFFD "b\"", "a" FFFD "b");       /* in the middle */
    EXPECT("ab\xC3", "\"ab" FFFD "\"", "ab" FFFD);             /* the last byte */
    EXPECT("\xFE\xFF", "\"" FFFD FFFD "\"", FFFD FFFD);
}
END_TEST

START_TEST(each_byte_of_a_bad_sequence_is_replaced)
{
    /* Truncated: a lead byte without its continuations, at the end and before text. */
    EXPECT("a\xE2\x82", "\"a" FFFD FFFD "\"", "a" FFFD FFFD);
    EXPECT("\xF0\x9F\x98z", "\"" FFFD FFFD FFFD "z\"", FFFD FFFD FFFD "z");
    /* Overlong forms of `/` and of U+0000, and of U+20AC in four bytes. */
    EXPECT("\xC0\xAF", "\"" FFFD FFFD "\"", FFFD FFFD);
    EXPECT("\xC1\x80", "\"" FFFD FFFD "\"", FFFD FFFD);
    EXPECT("\xE0\x80\x80", "\"" FFFD FFFD FFFD "\"", FFFD FFFD FFFD);
    EXPECT("\xF0\x82\x82\xAC", "\"" FFFD FFFD FFFD FFFD "\"", FFFD FFFD FFFD FFFD);
    /* Surrogates U+D800 and U+DFFF, and above U+10FFFF. */
    EXPECT("\xED\xA0\x80", "\"" FFFD FFFD FFFD "\"", FFFD FFFD FFFD);
    EXPECT("\xED\xBF\xBF", "\"" FFFD FFFD FFFD "\"", FFFD FFFD FFFD);
    EXPECT("\xF4\x90\x80\x80", "\"" FFFD FFFD FFFD FFFD "\"", FFFD FFFD FFFD FFFD);
}
END_TEST

START_TEST(escapes)
{
    EXPECT("a\"b\\c/d", "\"a\\\"b\\\\c/d\"", "a\"b\\c/d");
    EXPECT("\n\r\t", "\"\\n\\r\\t\"", "\n\r\t");
    EXPECT("\x01\x1F\x7F", "\"\\u0001\\u001f\\u007f\"", "\x01\x1F\x7F");
    EXPECT("\xE2\x80\xA8\xE2\x80\xA9", "\"\\u2028\\u2029\"", "\xE2\x80\xA8\xE2\x80\xA9");
    EXPECT("\xC2\x85", "\"\xC2\x85\"", "\xC2\x85");   /* NEL: not a JSON control */
}
END_TEST

START_TEST(nul_bytes_and_null_text)
{
    EXPECT("a\0b", "\"a\\u0000b\"", "a\0b");
    json_t *s = diag_json_text0(NULL);
    ck_assert_str_eq(json_string_value(s), "");
    json_decref(s);
    s = diag_json_text0("x\xFF");
    ck_assert_str_eq(json_string_value(s), "x" FFFD);
    json_decref(s);
}
END_TEST

/* What jansson then writes of a replaced text is valid JSON that reads back the same. */
START_TEST(dumped_strings_read_back)
{
    json_t *s = diag_json_text("\xFF\"\n\xE2\x80\xA8", 6);
    char *dumped = json_dumps(s, JSON_ENCODE_ANY);
    ck_assert_str_eq(dumped, "\"" FFFD "\\\"\\n\xE2\x80\xA8\"");
    json_t *back = json_loads(dumped, JSON_DECODE_ANY, NULL);
    ck_assert(json_equal(s, back));
    json_decref(back);
    free(dumped);
    json_decref(s);
}
END_TEST

static Suite *json_text_suite(void)
{
    Suite *s = suite_create("json_text");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, valid_text_is_kept);
    tcase_add_test(tc, invalid_bytes_become_replacement_characters);
    tcase_add_test(tc, each_byte_of_a_bad_sequence_is_replaced);
    tcase_add_test(tc, escapes);
    tcase_add_test(tc, nul_bytes_and_null_text);
    tcase_add_test(tc, dumped_strings_read_back);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(json_text_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
