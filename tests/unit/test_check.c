/* Unit tests of the checker's type rules (types.c): which type is accepted where another
 * is expected, and how types are shown in messages. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "workspace.h"
#include "intern.h"
#include "types.h"

static Arena arena;
static Interner names;
static Types types;

static void setup(void)
{
    arena_init(&arena);
    interner_init(&names, &arena);
    types_init(&types, &arena);
}

static void teardown(void)
{
    interner_free(&names);
    arena_free(&arena);
}

static const Type *record2(const char *a, const Type *ta, const char *b, const Type *tb)
{
    Field *f = arena_alloc(&arena, 2 * sizeof *f);
    f[0].name = intern_cstr(&names, a);
    f[0].type = ta;
    f[0].optional = ta->kind == TYPE_OPTIONAL;
    f[1].name = intern_cstr(&names, b);
    f[1].type = tb;
    f[1].optional = tb->kind == TYPE_OPTIONAL;
    return type_record(&types, f, 2);
}

START_TEST(int_is_accepted_as_number_not_back)
{
    ck_assert(type_accepts(types.number, types.integer));
    ck_assert(!type_accepts(types.integer, types.number));
    ck_assert(!type_accepts(types.string, types.integer));
}
END_TEST

START_TEST(any_and_error_switch_checking_off)
{
    ck_assert(type_accepts(types.any, types.string));
    ck_assert(type_accepts(types.string, types.any));
    ck_assert(type_accepts(types.boolean, types.error));
    ck_assert(type_accepts(types.error, types.boolean));
}
END_TEST

START_TEST(optional_accepts_null_and_value_but_not_back)
{
    const Type *opt = type_optional(&types, types.string);
    ck_assert(type_accepts(opt, types.null));
    ck_assert(type_accepts(opt, types.string));
    ck_assert(!type_accepts(types.string, opt));
    ck_assert(!type_accepts(types.string, types.null));
    ck_assert_ptr_eq(type_optional(&types, opt), opt);
}
END_TEST

START_TEST(records_are_closed_and_optional_fields_may_be_absent)
{
    const Type *want = record2("id", types.string, "note", type_optional(&types, types.string));
    const Type *only_id = record2("id", types.string, "id2", types.string);
    ck_assert(!type_accepts(want, only_id));              /* id2 is unknown */
    Field *f = arena_alloc(&arena, sizeof *f);
    f->name = intern_cstr(&names, "id");
    f->type = types.string;
    ck_assert(type_accepts(want, type_record(&types, f, 1)));   /* note may be absent */
    ck_assert(!type_accepts(type_record(&types, f, 1), want));  /* note is unknown there */
}
END_TEST

START_TEST(lists_compare_elements)
{
    ck_assert(type_accepts(type_list(&types, types.number), type_list(&types, types.integer)));
    ck_assert(!type_accepts(type_list(&types, types.string), type_list(&types, types.integer)));
    ck_assert(type_accepts(type_list(&types, types.string), types.any_list));
}
END_TEST

START_TEST(types_print_as_written)
{
    const Type *r = record2("a", types.integer, "b", type_optional(&types, types.string));
    ck_assert_str_eq(type_text(&arena, r), "{ a: int, b: string? }");
    ck_assert_str_eq(type_text(&arena, type_list(&types, types.duration)), "[duration]");
    ck_assert_str_eq(type_text(&arena, types.empty_record), "{}");
    Type *named = arena_alloc(&arena, sizeof *named);
    *named = *r;
    named->name = intern_cstr(&names, "Money");
    ck_assert_str_eq(type_text(&arena, type_optional(&types, named)), "Money?");
}
END_TEST

START_TEST(recursive_types_terminate)
{
    Type *a = arena_alloc(&arena, sizeof *a), *b = arena_alloc(&arena, sizeof *b);
    Field *fa = arena_alloc(&arena, sizeof *fa), *fb = arena_alloc(&arena, sizeof *fb);
    a->kind = b->kind = TYPE_RECORD;
    a->name = intern_cstr(&names, "A");
    b->name = intern_cstr(&names, "B");
    fa->name = fb->name = intern_cstr(&names, "next");
    fa->type = type_optional(&types, a);
    fb->type = type_optional(&types, b);
    a->fields = fa;
    b->fields = fb;
    a->field_count = b->field_count = 1;
    ck_assert(type_accepts(a, b));
    ck_assert_str_eq(type_text(&arena, a->fields[0].type), "A?");
}
END_TEST

/* The files of one run share a 32-bit position space: a file that does not fit beside
 * the ones before it is E0010 and read as empty, not a wrapped-around position. */
START_TEST(sources_too_large_together_is_e0010)
{
    char path[] = "/tmp/orbit-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "workflow w {}\n", 14), 14);
    close(fd);
    Compiler c;
    compiler_init(&c);
    c.sources.next_origin = SOURCE_MAX_TOTAL_SIZE - 10;   /* as if 3 GiB were read */
    const char *error = NULL;
    ck_assert(workspace_add_file(&c, path, &error));
    unlink(path);
    ck_assert_uint_eq(c.diags.count, 1);
    ck_assert_str_eq(diag_info(c.diags.items[0]->code)->code, "E0010");
    ck_assert_str_eq(c.diags.items[0]->message,
                     "source files are too large together: this one (14 bytes) would take "
                     "them over 3072 MiB");
    ck_assert_uint_eq(source_file(&c.sources, c.sources.count - 1)->len, 0);
    compiler_free(&c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("check");
    TCase *tc = tcase_create("types");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, int_is_accepted_as_number_not_back);
    tcase_add_test(tc, any_and_error_switch_checking_off);
    tcase_add_test(tc, optional_accepts_null_and_value_but_not_back);
    tcase_add_test(tc, records_are_closed_and_optional_fields_may_be_absent);
    tcase_add_test(tc, lists_compare_elements);
    tcase_add_test(tc, types_print_as_written);
    tcase_add_test(tc, recursive_types_terminate);
    tcase_add_test(tc, sources_too_large_together_is_e0010);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
