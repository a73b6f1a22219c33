/* Unit tests of interned names (compiler/syntax/intern.c). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "intern.h"

START_TEST(intern_identity)
{
    Arena a;
    Interner in;
    arena_init(&a);
    interner_init(&in, &a);
    const Name *x = intern_cstr(&in, "attempts");
    const Name *y = intern(&in, "attempts_", 8);
    ck_assert_ptr_eq(x, y);
    ck_assert_uint_eq(x->len, 8);
    ck_assert_str_eq(x->text, "attempts");
    ck_assert_ptr_ne(intern_cstr(&in, "attempt"), x);
    ck_assert_ptr_eq(intern_lookup(&in, "attempts", 8), x);
    ck_assert_ptr_null(intern_lookup(&in, "backoff", 7));
    /* names with NUL bytes are distinct from their prefix */
    ck_assert_ptr_ne(intern(&in, "a\0b", 3), intern(&in, "a", 1));
    interner_free(&in);
    arena_free(&a);
}
END_TEST

START_TEST(intern_grows)
{
    Arena a;
    Interner in;
    arena_init(&a);
    interner_init(&in, &a);
    const Name *first[20000];
    char buf[32];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(buf, sizeof buf, "step_%d", i);
        first[i] = intern(&in, buf, (size_t)n);
    }
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(buf, sizeof buf, "step_%d", i);
        ck_assert_ptr_eq(intern(&in, buf, (size_t)n), first[i]);
    }
    ck_assert_uint_eq(in.count, 20000);
    interner_free(&in);
    arena_free(&a);
}
END_TEST

/* interner_reserve makes the room at once, keeping the names already there: interning up
 * to the number reserved moves the table no more. */
START_TEST(intern_reserve_makes_room_at_once)
{
    Arena a;
    Interner in;
    arena_init(&a);
    interner_init(&in, &a);
    const Name *before = intern_cstr(&in, "attempts");
    interner_reserve(&in, 5000);
    const InternSlot *slots = in.slots;
    ck_assert_uint_ge(in.mask, 2 * 5000);
    ck_assert_ptr_eq(intern_lookup(&in, "attempts", 8), before);
    char buf[32];
    for (int i = 1; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "step_%d", i);
        intern(&in, buf, (size_t)n);
    }
    ck_assert_uint_eq(in.count, 5000);
    ck_assert_ptr_eq(in.slots, slots);
    uint32_t mask = in.mask;
    interner_reserve(&in, 100);   /* less than there is: nothing to do */
    ck_assert_uint_eq(in.mask, mask);
    ck_assert_ptr_eq(intern_cstr(&in, "attempts"), before);
    ck_assert_ptr_eq(intern_cstr(&in, "step_4999"), intern_lookup(&in, "step_4999", 9));
    interner_free(&in);
    arena_free(&a);
}
END_TEST

START_TEST(intern_rewind_forgets_later_names)
{
    Arena a;
    Interner in;
    arena_init(&a);
    interner_init(&in, &a);
    const Name *kept = intern_cstr(&in, "workflow");
    interner_keep(&in);
    ArenaMark mark = arena_mark(&a);
    char buf[32];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 5000; i++) {           /* the table grows */
            int n = snprintf(buf, sizeof buf, "step_%d", i);
            intern(&in, buf, (size_t)n);
        }
        ck_assert_ptr_nonnull(intern_lookup(&in, "step_42", 7));
        uint32_t mask = in.mask;
        interner_rewind(&in);
        arena_rewind(&a, mark);
        ck_assert_uint_eq(in.mask, mask);          /* keeps its size */
        ck_assert_uint_eq(in.count, 1);
        ck_assert_ptr_null(intern_lookup(&in, "step_42", 7));
        ck_assert_ptr_eq(intern_cstr(&in, "workflow"), kept);
    }
    interner_free(&in);
    arena_free(&a);
}
END_TEST

static const Name *from_shared(void *context, const char *text, size_t len)
{
    Interner *shared = context;
    return intern(shared, text, len);
}

START_TEST(intern_share_gives_one_name_to_every_interner)
{
    Arena sa, a1, a2;
    Interner shared, one, two;
    arena_init(&sa);
    arena_init(&a1);
    arena_init(&a2);
    interner_init(&shared, &sa);
    interner_init(&one, &a1);
    interner_init(&two, &a2);
    interner_share(&one, from_shared, &shared);
    interner_share(&two, from_shared, &shared);
    const Name *x = intern_cstr(&one, "payment");
    ck_assert_ptr_eq(intern_cstr(&two, "payment"), x);   /* the same Name */
    ck_assert_ptr_eq(intern_lookup(&shared, "payment", 7), x);
    ck_assert_uint_eq(a1.total, 0);                      /* none made in their arenas */
    interner_keep(&one);
    intern_cstr(&one, "refund");
    interner_rewind(&one);                               /* a cache: nothing forgotten */
    ck_assert_ptr_eq(intern_lookup(&one, "refund", 6), intern_lookup(&shared, "refund", 6));
    interner_free(&two);
    interner_free(&one);
    interner_free(&shared);
    arena_free(&a2);
    arena_free(&a1);
    arena_free(&sa);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("intern");
    TCase *tc = tcase_create("intern");
    tcase_add_test(tc, intern_identity);
    tcase_add_test(tc, intern_grows);
    tcase_add_test(tc, intern_reserve_makes_room_at_once);
    tcase_add_test(tc, intern_rewind_forgets_later_names);
    tcase_add_test(tc, intern_share_gives_one_name_to_every_interner);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
