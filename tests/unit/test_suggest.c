/* Unit tests of did-you-mean: the edit distance and the choice of a suggestion. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
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

/* ---- The index against suggest_name ------------------------------------------------ */

static uint64_t rng_state;

static uint32_t rng(void)   /* xorshift64*: the same names on every machine */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

/* Pieces of names: few, so that names share prefixes and ties are common; ASCII of both
 * cases, multi-byte UTF-8 (é, 東), and bytes of a swap. */
static const char *const PIECES[] = { "a", "b", "A", "B", "_", "1", "ab", "ba", "\xc3\xa9",
                                      "\xe6\x9d\xb1", "field", "feild", "x" };

static char *random_name(char *buf, size_t cap)
{
    size_t len = 0, pieces = rng() % 6;
    if (rng() % 50 == 0)   /* now and then a name too long to be suggested */
        pieces = 40;
    buf[0] = '\0';
    for (size_t k = 0; k < pieces; k++) {
        const char *p = PIECES[rng() % COUNT(PIECES)];
        size_t n = strlen(p);
        if (len + n + 1 > cap)
            break;
        memcpy(buf + len, p, n + 1);
        len += n;
    }
    return buf;
}

/* A query: a candidate with a few random edits, or a fresh name. */
static size_t random_query(char *out, size_t cap, char **names, size_t count)
{
    if (count == 0 || rng() % 4 == 0)
        return strlen(random_name(out, cap));
    const char *from = names[rng() % count];
    if (!from)
        from = "";
    size_t len = strlen(from) < cap - 8 ? strlen(from) : cap - 8;
    memcpy(out, from, len);
    for (uint32_t e = rng() % 4; e > 0; e--) {
        size_t at = len ? rng() % len : 0;
        switch (rng() % 5) {
        case 0:   /* delete */
            if (len) {
                memmove(out + at, out + at + 1, len - at - 1);
                len--;
            }
            break;
        case 1:   /* insert */
            memmove(out + at + 1, out + at, len - at);
            out[at] = "aAb_\xc3"[rng() % 5];
            len++;
            break;
        case 2:   /* swap */
            if (at + 1 < len) {
                char c = out[at];
                out[at] = out[at + 1];
                out[at + 1] = c;
            }
            break;
        case 3:   /* change case */
            if (len && out[at] >= 'a' && out[at] <= 'z')
                out[at] = (char)(out[at] - 'a' + 'A');
            break;
        default:  /* substitute */
            if (len)
                out[at] = "ab1\xa9"[rng() % 4];
        }
    }
    out[len] = '\0';
    return len;
}

START_TEST(index_agrees)
{
    rng_state = 0x9e3779b97f4a7c15ull;
    char query[128];
    size_t compared = 0, found = 0;
    for (int round = 0; round < 300; round++) {
        Arena arena;
        arena_init(&arena);
        size_t count = rng() % 4 == 0 ? rng() % 4 : rng() % 200;
        char **names = arena_alloc(&arena, (count + 1) * sizeof *names);
        for (size_t i = 0; i < count; i++) {
            char buf[400];
            names[i] = rng() % 40 == 0 ? NULL : arena_strndup(&arena, random_name(buf, sizeof buf), strlen(buf));
            if (i && rng() % 10 == 0)   /* duplicates */
                names[i] = names[rng() % i];
        }
        const char *const *cands = (const char *const *)names;
        SuggestIndex *ix = suggest_index_new(&arena, cands, (uint32_t)count);
        ck_assert_ptr_nonnull(ix);
        for (int q = 0; q < 200; q++) {
            size_t len = random_query(query, sizeof query - 8, names, count);
            const char *want = suggest_name(query, len, cands, count);
            const char *got = suggest_index_find(ix, query, len);
            if (got != want)
                ck_abort_msg("round %d: \"%.*s\": index %s, suggest_name %s", round, (int)len,
                             query, got ? got : "(none)", want ? want : "(none)");
            compared++;
            found += want != NULL;
            for (size_t i = 0; i < count; i++)   /* the first exact match, as strcmp finds */
                if (names[i] && strlen(names[i]) <= SUGGEST_MAX_LEN &&
                    strlen(names[i]) == len && memcmp(names[i], query, len) == 0) {
                    ck_assert_ptr_eq(suggest_index_exact(ix, query, len), names[i]);
                    goto next;
                }
            ck_assert_ptr_null(suggest_index_exact(ix, query, len));
        next:;
        }
        arena_free(&arena);
    }
    /* the queries reach both answers often */
    ck_assert_uint_gt(found, compared / 4);
    ck_assert_uint_lt(found, compared * 3 / 4);
}
END_TEST

START_TEST(index_cases)
{
    Arena arena;
    arena_init(&arena);
    /* ties go to the first; a duplicate is found at its first place */
    static const char *const twins[] = { "car", "cat", "car" };
    SuggestIndex *ix = suggest_index_new(&arena, twins, 3);
    ck_assert_ptr_eq(suggest_index_find(ix, "caz", 3), twins[0]);
    ck_assert_ptr_eq(suggest_index_exact(ix, "car", 3), twins[0]);
    ck_assert_ptr_null(suggest_index_exact(ix, "ca", 2));
    ck_assert_ptr_null(suggest_index_find(ix, "", 0));
    /* a case-insensitive match wins over a closer one, the first of several */
    static const char *const cased[] = { "backof", "BackOff", "backOFF" };
    ix = suggest_index_new(&arena, cased, 3);
    ck_assert_ptr_eq(suggest_index_find(ix, "backoff", 7), cased[1]);
    /* empty names, NULL names, no names */
    static const char *const empty[] = { "", NULL, "ab" };
    ix = suggest_index_new(&arena, empty, 3);
    ck_assert_ptr_eq(suggest_index_find(ix, "abc", 3), empty[2]);
    ck_assert_ptr_eq(suggest_index_exact(ix, "", 0), empty[0]);
    ix = suggest_index_new(&arena, empty, 0);
    ck_assert_ptr_null(suggest_index_find(ix, "abc", 3));
    /* a swap of two bytes of one UTF-8 letter, and of two letters */
    static const char *const utf8[] = { "caf\xc3\xa9s", "\xe6\x9d\xb1\xe4\xba\xac" };
    ix = suggest_index_new(&arena, utf8, 2);
    ck_assert_ptr_eq(suggest_index_find(ix, "caf\xa9\xc3s", 6), utf8[0]);
    ck_assert_ptr_eq(suggest_index_find(ix, "\xe4\xba\xac\xe6\x9d\xb1", 6), NULL);
    ck_assert_ptr_eq(suggest_name("\xe4\xba\xac\xe6\x9d\xb1", 6, utf8, 2), NULL);
    arena_free(&arena);
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
    tcase_add_test(tc, index_agrees);
    tcase_add_test(tc, index_cases);
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
