/* Unit tests of the formatter's interface for editors (format/format.h): a buffer to a
 * buffer, range formatting, and the unified diff of `orbitc fmt --diff`. The layout itself
 * is tested by tests/golden/fmt (tests/golden/golden.py) and tests/cli/test_fmt.py. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static char *formatted(const char *text)
{
    FormatText out = { 0 };
    if (!format_text("t.orbit", text, strlen(text), &out))
        return NULL;
    return out.text;
}

START_TEST(buffer_to_buffer)
{
    char *out = formatted("workflow w {step a {sleep 1s}}");
    ck_assert_str_eq(out, "workflow w {\n  step a { sleep 1s }\n}\n");
    free(out);
    out = formatted("");
    ck_assert_str_eq(out, "");
    free(out);
    ck_assert_ptr_null(formatted("workflow w { step a { sleep 1s }"));    /* unclosed */
    ck_assert_ptr_null(formatted("workflow w { a: = }"));                 /* syntax error */
    ck_assert_ptr_null(formatted("workflow w { a: \"\\q\" }"));           /* lexical error */
    out = formatted("workflow w { step a { sleep 1s; retry { attempts: 2 } } }");  /* E0307 */
    ck_assert_ptr_nonnull(out);
    free(out);
}
END_TEST

static const char THREE[] =
    "type A {a:int}\n"             /* 0..15 */
    "\n"
    "type B {b:int}   // b\n"      /* 16.. */
    "  type C { c: int }\n";

/* The text after applying an edit. */
static char *apply(const char *text, const FormatEdit *edit)
{
    size_t len = strlen(text), rlen = edit->replacement.len;
    char *out = malloc(len - (edit->end - edit->start) + rlen + 1);
    memcpy(out, text, edit->start);
    if (rlen)
        memcpy(out + edit->start, edit->replacement.text, rlen);
    strcpy(out + edit->start + rlen, text + edit->end);
    return out;
}

static char *range(const char *text, uint32_t start, uint32_t end)
{
    FormatEdit edit;
    ck_assert(format_range("t.orbit", text, strlen(text), start, end, &edit));
    char *out = apply(text, &edit);
    format_text_free(&edit.replacement);
    return out;
}

START_TEST(range_formats_the_declarations_it_touches)
{
    const char *b = strstr(THREE, "type B");
    uint32_t at = (uint32_t)(b - THREE);
    char *out = range(THREE, at + 5, at + 6);             /* inside B */
    ck_assert_str_eq(out, "type A {a:int}\n\ntype B { b: int }   // b\n  type C { c: int }\n");
    free(out);
    out = range(THREE, 0, (uint32_t)strlen(THREE));       /* all three */
    ck_assert_str_eq(out, "type A { a: int }\n\ntype B { b: int } // b\ntype C { c: int }\n");
    free(out);
    out = range(THREE, 15, 15);                           /* the blank line: none touched */
    ck_assert_str_eq(out, THREE);
    free(out);
    const char *c = strstr(THREE, "type C");
    out = range(THREE, (uint32_t)(c - THREE), (uint32_t)(c - THREE));   /* its indentation goes */
    ck_assert_str_eq(out, "type A {a:int}\n\ntype B {b:int}   // b\ntype C { c: int }\n");
    free(out);
}
END_TEST

START_TEST(range_already_formatted_is_no_edit)
{
    const char *text = "type A { a: int }\r\ntype B {b:int}\r\n";
    FormatEdit edit;
    ck_assert(format_range(NULL, text, strlen(text), 0, 3, &edit));
    ck_assert_uint_eq(edit.start, edit.end);
    ck_assert_ptr_null(edit.replacement.text);
    ck_assert(format_range(NULL, text, strlen(text), 20, 21, &edit));
    ck_assert_str_eq(edit.replacement.text, "type B { b: int }");   /* CRLF file, one line */
    format_text_free(&edit.replacement);
    ck_assert(!format_range(NULL, "type A {", 8, 0, 1, &edit));
}
END_TEST

/* The first line end sets the style of all of them: an edit that joins the first line
 * keeps it, whatever the line ends after the edit are. */
START_TEST(range_keeps_the_line_end_style)
{
    const char *crlf = "workflow w {\r\n}";            /* CRLF, no final line end */
    FormatEdit edit;
    ck_assert(format_range(NULL, crlf, strlen(crlf), 0, 3, &edit));
    ck_assert_uint_eq(edit.start, 0);
    ck_assert_uint_eq(edit.end, strlen(crlf));
    ck_assert_str_eq(edit.replacement.text, "workflow w {}\r\n");
    format_text_free(&edit.replacement);

    const char *mixed = "workflow w {\r\n} // end\n\ntype A {a:int}\n";
    char *out = range(mixed, 0, 3);
    ck_assert_str_eq(out, "workflow w {} // end\r\n\ntype A {a:int}\n");
    FormatText again = { 0 }, whole = { 0 };
    ck_assert(format_text(NULL, out, strlen(out), &again));
    ck_assert(format_text(NULL, mixed, strlen(mixed), &whole));
    ck_assert_str_eq(again.text, whole.text);
    format_text_free(&again);
    format_text_free(&whole);
    free(out);

    const char *lf = "workflow w {\n}\r\n";            /* LF first: the CRLF becomes LF */
    out = range(lf, 0, 3);
    ck_assert_str_eq(out, "workflow w {}\n");
    free(out);
}
END_TEST

static char *diff(const char *old, const char *new_text)
{
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    format_write_diff(out, "f.orbit", old, strlen(old), new_text, strlen(new_text), false);
    fclose(out);
    return buffer;
}

START_TEST(unified_diff)
{
    char *d = diff("a\nb\n", "a\nb\n");
    ck_assert_str_eq(d, "");
    free(d);
    d = diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n");
    ck_assert_str_eq(d, "--- f.orbit\n+++ f.orbit\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
    free(d);
    d = diff("x", "x\n");
    ck_assert_str_eq(d, "--- f.orbit\n+++ f.orbit\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+x\n");
    free(d);
    d = diff("", "a\n");
    ck_assert_str_eq(d, "--- f.orbit\n+++ f.orbit\n@@ -0,0 +1,1 @@\n+a\n");
    free(d);
    /* two changes far apart: two hunks */
    d = diff("a\n1\n2\n3\n4\n5\n6\n7\n8\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\n8\nB\n");
    ck_assert_str_eq(d, "--- f.orbit\n+++ f.orbit\n@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n"
                        "@@ -7,4 +7,4 @@\n 6\n 7\n 8\n-b\n+B\n");
    free(d);
}
END_TEST

/* Every line the same ("}"): no unique line anchors the diff, which must still be right
 * and quick (no quadratic search). */
START_TEST(diff_without_anchors)
{
    size_t n = 200000;
    char *old = malloc(2 * n + 1), *new_text = malloc(2 * n + 3);
    for (size_t i = 0; i < n; i++)
        memcpy(old + 2 * i, "}\n", 2);
    old[2 * n] = '\0';
    memcpy(new_text, "{\n", 2);
    memcpy(new_text + 2, old, 2 * n + 1);
    char *d = diff(old, new_text);
    ck_assert(strncmp(d, "--- f.orbit\n+++ f.orbit\n@@ -1,", 29) == 0);
    ck_assert_ptr_nonnull(strstr(d, "\n+{\n"));
    free(d);
    free(old);
    free(new_text);
}
END_TEST

static Suite *format_suite(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("format");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, buffer_to_buffer);
    tcase_add_test(tc, range_formats_the_declarations_it_touches);
    tcase_add_test(tc, range_already_formatted_is_no_edit);
    tcase_add_test(tc, range_keeps_the_line_end_style);
    tcase_add_test(tc, unified_diff);
    tcase_add_test(tc, diff_without_anchors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(format_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? 1 : 0;
}
