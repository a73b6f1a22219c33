/* Unit tests of did-you-mean: the edit distance and the choice of a suggestion. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

static size_t distance(const char *a, const char *b)
{
    return suggest_edit_distance(a, strlen(a), b, strlen(b));
}

static const char *check_suggest(const char *word, const char *const *candidates, size_t count)
{
    return suggest_name(word, strlen(word), candidates, count);
}

static const char *const retry_settings[] = {
    "attempts", "backoff", "initial_delay", "max_delay", "non_retryable",
};
static const char *const strategies[] = { "fixed", "exponential" };

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

START_TEST(distances)
{
    ck_assert_uint_eq(distance("", ""), 0);
    ck_assert_uint_eq(distance("", "abc"), 3);
    ck_assert_uint_eq(distance("abc", ""), 3);
    ck_assert_uint_eq(distance("backof", "backoff"), 1);
    ck_assert_uint_eq(distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(distance("exponentail", "exponential"), 1);  /* one swap */
    ck_assert_uint_eq(distance("ca", "abc"), 3);   /* OSA, not unrestricted (2) */
    ck_assert_uint_eq(distance("abc", "abc"), 0);
}
END_TEST

START_TEST(long_strings)
{
    /* Longer than the stack rows: must still be right (and clean under ASan). */
    size_t n = 300;
    char *a = malloc(n), *b = malloc(n);
    memset(a, 'a', n);
    memset(b, 'a', n);
    b[n - 1] = 'b';
    ck_assert_uint_eq(suggest_edit_distance(a, n, b, n), 1);
    ck_assert_uint_eq(suggest_edit_distance(a, n, b, 10), n - 10);
    ck_assert_uint_eq(suggest_edit_distance(a, 10, b, n), n - 10);
    free(a);
    free(b);
}
END_TEST

START_TEST(suggestions)
{
    ck_assert_str_eq(check_suggest("backof", retry_settings, COUNT(retry_settings)), "backoff");
    ck_assert_str_eq(check_suggest("attemps", retry_settings, COUNT(retry_settings)), "attempts");
    ck_assert_str_eq(check_suggest("Attempts", retry_settings, COUNT(retry_settings)), "attempts");
    ck_assert_str_eq(check_suggest("MAX_DELAY", retry_settings, COUNT(retry_settings)), "max_delay");
    ck_assert_str_eq(check_suggest("exponentail", strategies, COUNT(strategies)), "exponential");
    ck_assert_str_eq(check_suggest("fixd", strategies, COUNT(strategies)), "fixed");
    ck_assert_ptr_null(check_suggest("linear", strategies, COUNT(strategies)));
    ck_assert_ptr_null(check_suggest("x", retry_settings, COUNT(retry_settings)));
    ck_assert_ptr_null(check_suggest("timeout", retry_settings, COUNT(retry_settings)));
}
END_TEST

START_TEST(limits)
{
    /* max(len, 3) / 3: a 3-letter word allows 1 edit, a 6-letter word 2. */
    static const char *const names[] = { "abc", "abcdef" };
    ck_assert_str_eq(check_suggest("abd", names, 2), "abc");
    ck_assert_ptr_null(check_suggest("add", names, 2));
    ck_assert_str_eq(check_suggest("abcxyf", names, 2), "abcdef");   /* 2 edits of 6 */
    ck_assert_ptr_null(check_suggest("axcxyf", names, 2));            /* 3 edits of 6 */
    /* ties go to the first candidate */
    static const char *const twins[] = { "cat", "car" };
    ck_assert_str_eq(check_suggest("caz", twins, 2), "cat");
    /* a case-insensitive match wins over a closer exact-case one */
    static const char *const cased[] = { "Backof", "backoff" };
    ck_assert_str_eq(check_suggest("backoF", cased, 2), "Backof");
    /* empty word, no candidates, NULL candidates */
    ck_assert_ptr_null(check_suggest("", names, 2));
    ck_assert_ptr_null(check_suggest("abc", names, 0));
    static const char *const holes[] = { NULL, "abc" };
    ck_assert_str_eq(check_suggest("abd", holes, 2), "abc");
}
END_TEST

START_TEST(too_long)
{
    char word[100];
    memset(word, 'a', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    const char *const candidates[] = { word };
    /* longer than 64 bytes: no suggestion, not even for an exact match */
    ck_assert_ptr_null(suggest_name(word, strlen(word), candidates, 1));
    ck_assert_ptr_null(suggest_name(word, 65, candidates, 1));
    /* 64 bytes is still allowed */
    char near[65];
    memset(near, 'a', 64);
    near[0] = 'b';
    near[64] = '\0';
    const char *const near_candidates[] = { near };
    ck_assert_ptr_eq(suggest_name(word, 64, near_candidates, 1), near);
}
END_TEST

static Suite *suggest_suite(void)
{
    Suite *s = suite_create("suggest");
    TCase *tc = tcase_create("suggest");
    tcase_add_test(tc, distances);
    tcase_add_test(tc, long_strings);
    tcase_add_test(tc, suggestions);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, too_long);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(suggest_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
