/* Unit tests of the diagnostic engine: the sink (sort, dedup, counts, lint levels), the
 * registry, and both renderers, compared with the exact expected text.
 *
 * `test_diag --write-json FILE` writes the JSON of a few rich diagnostics to FILE
 * instead of testing; the build validates that file against the schema. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"

static const char CHECKOUT[] =
    "workflow checkout {\n"
    "  step charge {\n"
    "    worker \"payments.charge\"\n"
    "    retry {\n"
    "      attempts: 5\n"
    "      attempts: 3\n"
    "      backof: exponential\n"
    "    }\n"
    "  }\n"
    "}\n";

typedef struct Fixture {
    Arena arena;
    SourceMap map;
    DiagSink sink;
} Fixture;

static Fixture fx;

static uint32_t add_file(const char *path, const char *text, uint32_t len)
{
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    return source_map_add(&fx.map, path, copy, len, false);
}

static void setup(void)
{
    arena_init(&fx.arena);
    source_map_init(&fx.map);
    diag_sink_init(&fx.sink, &fx.arena);
    add_file("checkout.orbit", CHECKOUT, sizeof CHECKOUT - 1);   /* file 0 */
}

static void teardown(void)
{
    diag_sink_free(&fx.sink);
    source_map_free(&fx.map);
    arena_free(&fx.arena);
}

/* The span of bytes [start, end) of file `file`. */
static Span in_file(uint32_t file, uint32_t start, uint32_t end)
{
    return source_span(&fx.map, file, start, end);
}

/* The span of the `nth` (0-based) occurrence of `needle` in file 0. */
static Span find(const char *needle, int nth)
{
    const char *p = CHECKOUT;
    for (;;) {
        p = strstr(p, needle);
        if (!p)   /* a mistake in a test; no ck_assert: also used outside tests */
            abort();
        if (nth-- == 0)
            break;
        p++;
    }
    uint32_t start = (uint32_t)(p - CHECKOUT);
    return in_file(0, start, start + (uint32_t)strlen(needle));
}

static char *render(bool json, RenderOptions options)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (json)
        render_json(out, &fx.sink, &fx.map, &options);
    else
        render_human(out, &fx.sink, &fx.map, &options);
    fclose(out);
    return text;
}

static const RenderOptions PLAIN = { false, 0, false, false, NULL, 0 };

static void expect_human(RenderOptions options, const char *expected)
{
    diag_finish(&fx.sink);
    char *text = render(false, options);
    ck_assert_str_eq(text, expected);
    free(text);
}

static void expect_json(const char *expected)
{
    diag_finish(&fx.sink);
    char *text = render(true, PLAIN);
    ck_assert_str_eq(text, expected);
    free(text);
}

static void report_backof(void)
{
    Span backof = find("backof", 0);
    Diagnostic *d = diag_report(&fx.sink, E0410, backof, "unknown retry setting `%s`",
                                "backof");
    diag_set_label(&fx.sink, d, "unknown setting");
    diag_add_fix(&fx.sink, d, backof, "backoff", FIX_MACHINE_APPLICABLE,
                 "did you mean `%s`?", "backoff");
}

/* --- the human format --- */

START_TEST(human_design_example)
{
    report_backof();
    expect_human(PLAIN,
        "error[E0410]: unknown retry setting `backof`\n"
        "  --> checkout.orbit:7:7\n"
        "   |\n"
        " 7 |       backof: exponential\n"
        "   |       ^^^^^^ unknown setting\n"
        "   |\n"
        "   = help: did you mean `backoff`?\n"
        "\n");
}
END_TEST

START_TEST(human_label_on_previous_line)
{
    Diagnostic *d = diag_report(&fx.sink, E0410, find("attempts", 1),
                                "duplicate retry setting `attempts`");
    diag_set_label(&fx.sink, d, "set again here");
    diag_add_label(&fx.sink, d, find("attempts", 0), "first set here");
    diag_add_note(&fx.sink, d, "a setting may appear once in a retry block");
    expect_human(PLAIN,
        "error[E0410]: duplicate retry setting `attempts`\n"
        "  --> checkout.orbit:6:7\n"
        "   |\n"
        " 5 |       attempts: 5\n"
        "   |       -------- first set here\n"
        " 6 |       attempts: 3\n"
        "   |       ^^^^^^^^ set again here\n"
        "   |\n"
        "   = note: a setting may appear once in a retry block\n"
        "\n");
}
END_TEST

START_TEST(human_distant_and_near_lines)
{
    /* lines 1 and 7: "..." between; lines 2 and 4: line 3 is shown */
    Diagnostic *d = diag_report(&fx.sink, E0410, find("backof", 0), "far");
    diag_add_label(&fx.sink, d, find("checkout", 0), "workflow");
    Diagnostic *e = diag_report(&fx.sink, E0307, find("retry", 0), "near");
    diag_add_label(&fx.sink, e, find("step", 0), "in this step");
    expect_human(PLAIN,
        "error[E0307]: near\n"
        "  --> checkout.orbit:4:5\n"
        "   |\n"
        " 2 |   step charge {\n"
        "   |   ---- in this step\n"
        " 3 |     worker \"payments.charge\"\n"
        " 4 |     retry {\n"
        "   |     ^^^^^\n"
        "\n"
        "error[E0410]: far\n"
        "  --> checkout.orbit:7:7\n"
        "   |\n"
        " 1 | workflow checkout {\n"
        "   |          -------- workflow\n"
        "...\n"
        " 7 |       backof: exponential\n"
        "   |       ^^^^^^\n"
        "\n");
}
END_TEST

START_TEST(human_labels_on_one_line)
{
    Diagnostic *d = diag_report(&fx.sink, E0410, find("exponential", 0), "primary last");
    diag_set_label(&fx.sink, d, "this");
    diag_add_label(&fx.sink, d, find("backof", 0), "and that");
    diag_add_label(&fx.sink, d, find(":", 2), "%s", "");
    Diagnostic *e = diag_report(&fx.sink, E0410, find("backof", 0), "primary first");
    diag_set_label(&fx.sink, e, "this");
    diag_add_label(&fx.sink, e, find("exponential", 0), "and that");
    expect_human(PLAIN,
        "error[E0410]: primary first\n"
        "  --> checkout.orbit:7:7\n"
        "   |\n"
        " 7 |       backof: exponential\n"
        "   |       ^^^^^^  ----------- and that\n"
        "   |       |\n"
        "   |       this\n"
        "\n"
        "error[E0410]: primary last\n"
        "  --> checkout.orbit:7:15\n"
        "   |\n"
        " 7 |       backof: exponential\n"
        "   |       ------- ^^^^^^^^^^^ this\n"
        "   |       |\n"
        "   |       and that\n"
        "\n");
}
END_TEST

START_TEST(human_wide_characters_and_tabs)
{
    static const char text[] =
        "\tname: \"\xE6\x97\xA5\xE6\x9C\xAC\" x\n"            /* tab, CJK */
        "e\xCC\x81\xF0\x9F\x98\x80 y\n"                        /* combining, emoji */
        "bad\xFF\x01z\n";                                      /* invalid byte, control */
    uint32_t f = add_file("wide.orbit", text, sizeof text - 1);
    const char *x = strchr(text, 'x'), *y = strchr(text, 'y'), *z = strchr(text, 'z');
    diag_report(&fx.sink, E0002, in_file(f, (uint32_t)(x - text), (uint32_t)(x - text + 1)), "x");
    /* a span over the CJK string: 2 characters, 4 cells, 8 bytes with the quotes */
    uint32_t q = (uint32_t)(strchr(text, '"') - text);
    diag_report(&fx.sink, E0003, in_file(f, q, q + 8), "cjk");
    diag_report(&fx.sink, E0002, in_file(f, (uint32_t)(y - text), (uint32_t)(y - text + 1)), "y");
    uint32_t bad = (uint32_t)(z - text - 2);
    diag_report(&fx.sink, E0001, in_file(f, bad, bad + 1), "bad");
    expect_human(PLAIN,
        "error[E0003]: cjk\n"
        "  --> wide.orbit:1:8\n"
        "   |\n"
        " 1 |     name: \"\xE6\x97\xA5\xE6\x9C\xAC\" x\n"
        "   |           ^^^^^^\n"
        "\n"
        "error[E0002]: x\n"
        "  --> wide.orbit:1:13\n"
        "   |\n"
        " 1 |     name: \"\xE6\x97\xA5\xE6\x9C\xAC\" x\n"
        "   |                  ^\n"
        "\n"
        "error[E0002]: y\n"
        "  --> wide.orbit:2:5\n"
        "   |\n"
        " 2 | e\xCC\x81\xF0\x9F\x98\x80 y\n"
        "   |     ^\n"
        "\n"
        "error[E0001]: bad\n"
        "  --> wide.orbit:3:4\n"
        "   |\n"
        " 3 | bad\xEF\xBF\xBD\xEF\xBF\xBDz\n"
        "   |    ^\n"
        "\n");
}
END_TEST

START_TEST(human_empty_and_multiline_spans)
{
    uint32_t end = sizeof CHECKOUT - 1;
    uint32_t line7_end = find("exponential", 0).end;
    diag_report(&fx.sink, E0101, in_file(0, end, end), "at end of file");
    diag_report(&fx.sink, E0100, in_file(0, line7_end, line7_end), "at end of line");
    /* from `retry` to the end of the block: underlined to the end of its first line */
    diag_report(&fx.sink, E0307, span_join(find("retry", 0), find("}", 1)), "multi-line");
    expect_human(PLAIN,
        "error[E0307]: multi-line\n"
        "  --> checkout.orbit:4:5\n"
        "   |\n"
        " 4 |     retry {\n"
        "   |     ^^^^^^^\n"
        "\n"
        "error[E0100]: at end of line\n"
        "  --> checkout.orbit:7:26\n"
        "   |\n"
        " 7 |       backof: exponential\n"
        "   |                          ^\n"
        "\n"
        "error[E0101]: at end of file\n"
        "   --> checkout.orbit:10:2\n"
        "    |\n"
        " 10 | }\n"
        "    |  ^\n"
        "\n");
}
END_TEST

START_TEST(human_other_file)
{
    static const char other[] = "worker payments {\n  task charge\n}\n";
    uint32_t f = add_file("workers.orbit", other, sizeof other - 1);
    Diagnostic *d = diag_report(&fx.sink, E0410, find("payments.charge", 0),
                                "task `charge` is declared elsewhere");
    diag_set_label(&fx.sink, d, "used here");
    diag_add_label(&fx.sink, d, in_file(f, 20, 31), "declared here");
    expect_human(PLAIN,
        "error[E0410]: task `charge` is declared elsewhere\n"
        "  --> checkout.orbit:3:13\n"
        "   |\n"
        " 3 |     worker \"payments.charge\"\n"
        "   |             ^^^^^^^^^^^^^^^ used here\n"
        "   |\n"
        "  ::: workers.orbit:2:3\n"
        "   |\n"
        " 2 |   task charge\n"
        "   |   ----------- declared here\n"
        "\n");
}
END_TEST

START_TEST(human_color)
{
    report_backof();
    RenderOptions color = { true, 0, true, false, NULL, 0 };
    expect_human(color,
        "\x1b[1;31merror[E0410]\x1b[0m\x1b[1m: unknown retry setting `backof`\x1b[0m\n"
        "  \x1b[1;34m-->\x1b[0m checkout.orbit:7:7\n"
        "  \x1b[1;34m |\x1b[0m\n"
        "\x1b[1;34m 7 |\x1b[0m       backof: exponential\n"
        "  \x1b[1;34m |\x1b[0m       \x1b[1;31m^^^^^^ unknown setting\x1b[0m\n"
        "  \x1b[1;34m |\x1b[0m\n"
        "   \x1b[1;34m=\x1b[0m\x1b[1m help:\x1b[0m did you mean `backoff`?\n"
        "\n"
        "\x1b[1;31merror\x1b[0m\x1b[1m: 1 error emitted\x1b[0m\n"
        "\n"
        "\x1b[1mFor more information about this error, try `orbitc explain E0410`.\x1b[0m\n");
}
END_TEST

START_TEST(human_summary_and_max_shown)
{
    report_backof();
    diag_report(&fx.sink, E0307, find("retry", 0), "second");
    diag_report(&fx.sink, E0307, find("worker", 0), "first");
    RenderOptions options = { false, 1, true, false, NULL, 0 };
    expect_human(options,
        "error[E0307]: first\n"
        "  --> checkout.orbit:3:5\n"
        "   |\n"
        " 3 |     worker \"payments.charge\"\n"
        "   |     ^^^^^^\n"
        "\n"
        "note: 2 more diagnostics not shown\n"
        "\n"
        "error: 3 errors emitted\n"
        "\n"
        "Some errors have detailed explanations: E0307, E0410.\n"
        "For more information about an error, try `orbitc explain E0307`.\n");
}
END_TEST

START_TEST(human_nothing_to_say)
{
    RenderOptions options = { false, 0, true, false, NULL, 0 };
    expect_human(options, "");
}
END_TEST

START_TEST(human_safe_text)
{
    /* messages, labels and notes from user text: no escape sequences reach the terminal */
    Diagnostic *d = diag_report(&fx.sink, E0410, find("backof", 0), "bad \x1b[31m`%s`", "\xFF");
    diag_set_label(&fx.sink, d, "tab\there");
    diag_add_note(&fx.sink, d, "two\nlines");
    expect_human(PLAIN,
        "error[E0410]: bad \xEF\xBF\xBD[31m`\xEF\xBF\xBD`\n"
        "  --> checkout.orbit:7:7\n"
        "   |\n"
        " 7 |       backof: exponential\n"
        "   |       ^^^^^^ tab\there\n"
        "   |\n"
        "   = note: two\n"
        "           lines\n"
        "\n");
}
END_TEST

START_TEST(human_long_line_window)
{
    uint32_t len = 10u << 20;
    char *text = malloc(len + 1);
    memset(text, 'a', len);
    memcpy(text + len / 2, "NEEDLE", 6);
    text[len] = '\0';
    uint32_t f = source_map_add(&fx.map, "long.orbit", text, len, false);
    for (int i = 0; i < 1000; i++)
        diag_report(&fx.sink, E0002, in_file(f, len / 2 + (uint32_t)i, len / 2 + 6), "n%d", i);
    clock_t begin = clock();
    diag_finish(&fx.sink);
    char *out = render(false, PLAIN);
    double seconds = (double)(clock() - begin) / CLOCKS_PER_SEC;
    ck_assert_msg(seconds < 5.0, "rendering took %.1f s", seconds);
    /* the first diagnostic: a window with 40 bytes before the span, cut on both sides */
    char expected[1024];
    snprintf(expected, sizeof expected,
             "error[E0002]: n0\n"
             "  --> long.orbit:1:%u\n"
             "   |\n"
             " 1 | ...%.40sNEEDLE%.114s...\n"
             "   | %*s^^^^^^\n"
             "\n"
             "error[E0002]: n1\n",
             len / 2 + 1, text, text, 43, "");
    ck_assert_msg(strncmp(out, expected, strlen(expected)) == 0, "got:\n%.600s", out);
    ck_assert_uint_lt(strlen(out), 1000 * 600);
    free(out);
}
END_TEST

/* --- the JSON format --- */

START_TEST(json_design_example)
{
    report_backof();
    uint32_t start = find("backof", 0).start;
    char expected[2048];
    snprintf(expected, sizeof expected,
        "{\"code\":\"E0410\",\"severity\":\"error\",\"message\":\"unknown retry setting `backof`\","
        "\"file\":\"checkout.orbit\",\"line\":7,\"column\":7,\"end_line\":7,\"end_column\":13,"
        "\"range\":{\"start\":{\"line\":6,\"character\":6},\"end\":{\"line\":6,\"character\":12}},"
        "\"byte_start\":%u,\"byte_end\":%u,\"label\":\"unknown setting\",\"labels\":[],"
        "\"notes\":[],\"help\":[],\"fixes\":[{\"message\":\"did you mean `backoff`?\","
        "\"applicability\":\"machine-applicable\",\"edits\":[{\"file\":\"checkout.orbit\","
        "\"line\":7,\"column\":7,\"end_line\":7,\"end_column\":13,"
        "\"range\":{\"start\":{\"line\":6,\"character\":6},\"end\":{\"line\":6,\"character\":12}},"
        "\"byte_start\":%u,\"byte_end\":%u,\"replacement\":\"backoff\"}]}]}\n",
        start, start + 6, start, start + 6);
    expect_json(expected);
}
END_TEST

START_TEST(json_labels_notes_escapes)
{
    static const char text[] = "\xF0\x9F\x98\x80 \"x\"\r\nnext\n";
    uint32_t f = add_file("e\"moji\\.orbit", text, sizeof text - 1);
    Diagnostic *d = diag_report(&fx.sink, E0003, in_file(f, 5, 8),
                                "quote \" backslash \\ tab \t nl \n ctl \x01 bad \xFF ok \xC3\xA9");
    diag_add_label(&fx.sink, d, in_file(f, 0, 4), "emoji");
    diag_add_label(&fx.sink, d, in_file(f, 8, 14), "to next line");
    diag_add_note(&fx.sink, d, "n1");
    diag_add_note(&fx.sink, d, "n2");
    diag_add_help(&fx.sink, d, "h");
    diag_add_fix(&fx.sink, d, in_file(f, 5, 8), "'x'", FIX_MAYBE_INCORRECT, "use '");
    expect_json(
        "{\"code\":\"E0003\",\"severity\":\"error\","
        "\"message\":\"quote \\\" backslash \\\\ tab \\t nl \\n ctl \\u0001 "
        "bad \xEF\xBF\xBD ok \xC3\xA9\","
        "\"file\":\"e\\\"moji\\\\.orbit\",\"line\":1,\"column\":3,\"end_line\":1,\"end_column\":6,"
        "\"range\":{\"start\":{\"line\":0,\"character\":3},\"end\":{\"line\":0,\"character\":6}},"
        "\"byte_start\":5,\"byte_end\":8,\"label\":null,\"labels\":["
        "{\"file\":\"e\\\"moji\\\\.orbit\",\"line\":1,\"column\":1,\"end_line\":1,\"end_column\":2,"
        "\"range\":{\"start\":{\"line\":0,\"character\":0},\"end\":{\"line\":0,\"character\":2}},"
        "\"byte_start\":0,\"byte_end\":4,\"message\":\"emoji\"},"
        "{\"file\":\"e\\\"moji\\\\.orbit\",\"line\":1,\"column\":6,\"end_line\":2,\"end_column\":5,"
        "\"range\":{\"start\":{\"line\":0,\"character\":6},\"end\":{\"line\":1,\"character\":4}},"
        "\"byte_start\":8,\"byte_end\":14,\"message\":\"to next line\"}],"
        "\"notes\":[\"n1\",\"n2\"],\"help\":[\"h\"],\"fixes\":[{\"message\":\"use '\","
        "\"applicability\":\"maybe-incorrect\",\"edits\":[{\"file\":\"e\\\"moji\\\\.orbit\","
        "\"line\":1,\"column\":3,\"end_line\":1,\"end_column\":6,"
        "\"range\":{\"start\":{\"line\":0,\"character\":3},\"end\":{\"line\":0,\"character\":6}},"
        "\"byte_start\":5,\"byte_end\":8,\"replacement\":\"'x'\"}]}]}\n");
}
END_TEST

/* --- the sink --- */

START_TEST(sort_and_dedup)
{
    diag_report(&fx.sink, E0307, find("retry", 0), "c");             /* seq 0 */
    diag_report(&fx.sink, E0410, find("attempts", 0), "a");          /* seq 1 */
    diag_report(&fx.sink, E0307, find("retry", 0), "b");             /* seq 2: same start */
    diag_report(&fx.sink, E0410, find("attempts", 0), "a");          /* duplicate of 1 */
    diag_report(&fx.sink, E0307, find("retry", 0), "c");             /* duplicate of 0 */
    diag_report(&fx.sink, E0410, find("attempts", 0), "a2");         /* same span, other text */
    diag_report(&fx.sink, E0410, in_file(0, find("attempts", 0).start, 999), "a"); /* other end */
    uint32_t f = add_file("b.orbit", "x", 1);
    diag_report(&fx.sink, E0002, in_file(f, 0, 1), "in file 1");   /* later file */
    diag_finish(&fx.sink);
    const char *order[] = { "c", "b", "a", "a2", "a", "in file 1" };
    ck_assert_uint_eq(fx.sink.count, 6);
    for (uint32_t i = 0; i < fx.sink.count; i++)
        ck_assert_str_eq(fx.sink.items[i]->message, order[i]);
    ck_assert_uint_eq(fx.sink.items[0]->seq, 0);
    ck_assert_uint_eq(fx.sink.items[4]->span.end, 999);
    ck_assert_uint_eq(fx.sink.errors, 6);
    ck_assert_uint_eq(fx.sink.warnings, 0);
}
END_TEST

/* Reports at the same place stay in the order they were made, even after reports before
 * them were dropped (the parse pass that is not kept, the reports of a nesting too deep):
 * a report made afterwards must not take the sequence number of one still there, or
 * their order is qsort's (glibc's: by code and message, the identity sort's order). */
START_TEST(ties_keep_report_order_after_drops)
{
    Span at = find("retry", 0);
    diag_report(&fx.sink, E0101, at, "dropped by range");
    diag_report(&fx.sink, E0100, at, "z: kept, made first");
    diag_drop_range(&fx.sink, 0, 1);
    diag_report(&fx.sink, E0100, at, "a: made second");
    uint32_t first = fx.sink.count;
    diag_report(&fx.sink, E0100, at, "dropped since");
    diag_report(&fx.sink, E0002, at, "y: lexical, kept, made third");
    diag_drop_since(&fx.sink, first, diag_is_lexical);
    diag_report(&fx.sink, E0001, at, "b: made fourth");
    diag_finish(&fx.sink);
    const char *order[] = { "z: kept, made first", "a: made second",
                            "y: lexical, kept, made third", "b: made fourth" };
    ck_assert_uint_eq(fx.sink.count, 4);
    for (uint32_t i = 0; i < fx.sink.count; i++)
        ck_assert_str_eq(fx.sink.items[i]->message, order[i]);
}
END_TEST

START_TEST(lists_keep_order)
{
    Diagnostic *d = diag_report(&fx.sink, E0410, find("retry", 0), "m");
    for (int i = 0; i < 3; i++) {
        diag_add_label(&fx.sink, d, find("attempts", 0), "l%d", i);
        diag_add_note(&fx.sink, d, "n%d", i);
        diag_add_help(&fx.sink, d, "h%d", i);
        diag_add_fix(&fx.sink, d, find("retry", 0), "r", FIX_MACHINE_APPLICABLE, "f%d", i);
    }
    char text[16];
    int i = 0;
    for (DiagLabel *l = d->labels; l; l = l->next, i++) {
        snprintf(text, sizeof text, "l%d", i);
        ck_assert_str_eq(l->message, text);
    }
    ck_assert_int_eq(i, 3);
    i = 0;
    for (DiagText *t = d->notes; t; t = t->next, i++) {
        snprintf(text, sizeof text, "n%d", i);
        ck_assert_str_eq(t->text, text);
    }
    ck_assert_int_eq(i, 3);
    i = 0;
    for (DiagText *t = d->helps; t; t = t->next, i++) {
        snprintf(text, sizeof text, "h%d", i);
        ck_assert_str_eq(t->text, text);
    }
    ck_assert_int_eq(i, 3);
    i = 0;
    for (DiagFix *f = d->fixes; f; f = f->next, i++) {
        snprintf(text, sizeof text, "f%d", i);
        ck_assert_str_eq(f->message, text);
    }
    ck_assert_int_eq(i, 3);
}
END_TEST

START_TEST(lint_levels)
{
    /* errors are always kept, whatever the level says */
    fx.sink.level[E0410] = LINT_ALLOW;
    ck_assert(diag_enabled(&fx.sink, E0410));
    diag_report(&fx.sink, E0410, find("retry", 0), "kept");
    /* warnings: on by default unless LINT; --allow turns off, --warn turns on */
    int warnings = 0;
    for (int c = 0; c < DIAG_CODE_COUNT; c++) {
        const DiagInfo *info = diag_info((DiagCode)c);
        if (info->severity != SEV_WARNING)
            continue;
        warnings++;
        ck_assert(diag_enabled(&fx.sink, (DiagCode)c) == info->default_on);
        fx.sink.level[c] = LINT_WARN;
        ck_assert(diag_enabled(&fx.sink, (DiagCode)c));
        fx.sink.level[c] = LINT_ALLOW;
        ck_assert(!diag_enabled(&fx.sink, (DiagCode)c));
        Diagnostic *d = diag_report(&fx.sink, (DiagCode)c, find("retry", 0), "dropped");
        diag_set_label(&fx.sink, d, "x");
        diag_add_label(&fx.sink, d, find("retry", 0), "x");
        diag_add_note(&fx.sink, d, "x");
        diag_add_help(&fx.sink, d, "x");
        diag_add_fix(&fx.sink, d, find("retry", 0), "x", FIX_MACHINE_APPLICABLE, "x");
        ck_assert_ptr_null(d->labels);
    }
    diag_finish(&fx.sink);
    ck_assert_uint_eq(fx.sink.count, 1);
    ck_assert_uint_eq(fx.sink.errors, 1);
    if (warnings == 0)
        fprintf(stderr, "lint_levels: codes.def has no warning yet; only errors tested\n");
}
END_TEST

START_TEST(registry)
{
    ck_assert_int_eq(diag_code_from_string("E0410"), E0410);
    ck_assert_int_eq(diag_code_from_string("E0001"), E0001);
    ck_assert_int_eq(diag_code_from_string("E9999"), -1);
    ck_assert_int_eq(diag_code_from_string("e0410"), -1);
    ck_assert_int_eq(diag_code_from_string(""), -1);
    ck_assert_str_eq(diag_info(E0410)->code, "E0410");
    ck_assert_int_eq(diag_info(E0410)->severity, SEV_ERROR);
    ck_assert(diag_info(E0410)->default_on);
    ck_assert_ptr_null(diag_info(DIAG_CODE_COUNT));
    for (int c = 0; c < DIAG_CODE_COUNT; c++) {
        const char *text = diag_explanation((DiagCode)c);
        ck_assert_ptr_nonnull(text);
        ck_assert_int_eq(diag_code_from_string(diag_info((DiagCode)c)->code), c);
        char title[16];
        snprintf(title, sizeof title, "# %s", diag_info((DiagCode)c)->code);
        ck_assert_msg(strncmp(text, title, strlen(title)) == 0, "%s", title);
    }
}
END_TEST

/* 100,000 diagnostics in one file: sorting and both renderers stay fast. */
START_TEST(many_diagnostics)
{
    enum { N = 100000 };
    static char text[N * 8 + 1];
    for (int i = 0; i < N; i++)
        memcpy(text + i * 8, "x = 12;\n", 8);
    uint32_t f = add_file("many.orbit", text, N * 8);
    for (int i = N; i-- > 0;) {
        uint32_t at = (uint32_t)i * 8;
        Diagnostic *d = diag_report(&fx.sink, E0007, in_file(f, at + 4, at + 6), "number %d", i);
        diag_add_label(&fx.sink, d, in_file(f, at, at + 1), "x");
    }
    clock_t begin = clock();
    diag_finish(&fx.sink);
    FILE *null = fopen("/dev/null", "w");
    RenderOptions options = { false, 0, true, false, NULL, 0 };
    render_human(null, &fx.sink, &fx.map, &options);
    render_json(null, &fx.sink, &fx.map, &options);
    fclose(null);
    double seconds = (double)(clock() - begin) / CLOCKS_PER_SEC;
    ck_assert_msg(seconds < 10.0, "took %.1f s", seconds);
    ck_assert_str_eq(fx.sink.items[0]->message, "number 0");
    ck_assert_str_eq(fx.sink.items[N - 1]->message, "number 99999");
}
END_TEST

static Suite *diag_suite(void)
{
    Suite *s = suite_create("diag");
    TCase *tc = tcase_create("diag");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, human_design_example);
    tcase_add_test(tc, human_label_on_previous_line);
    tcase_add_test(tc, human_distant_and_near_lines);
    tcase_add_test(tc, human_labels_on_one_line);
    tcase_add_test(tc, human_wide_characters_and_tabs);
    tcase_add_test(tc, human_empty_and_multiline_spans);
    tcase_add_test(tc, human_other_file);
    tcase_add_test(tc, human_color);
    tcase_add_test(tc, human_summary_and_max_shown);
    tcase_add_test(tc, human_nothing_to_say);
    tcase_add_test(tc, human_safe_text);
    tcase_add_test(tc, human_long_line_window);
    tcase_add_test(tc, json_design_example);
    tcase_add_test(tc, json_labels_notes_escapes);
    tcase_add_test(tc, sort_and_dedup);
    tcase_add_test(tc, ties_keep_report_order_after_drops);
    tcase_add_test(tc, lists_keep_order);
    tcase_add_test(tc, lint_levels);
    tcase_add_test(tc, registry);
    tcase_add_test(tc, many_diagnostics);
    suite_add_tcase(s, tc);
    return s;
}

/* Rich diagnostics for the schema check: every field filled, several files, odd text. */
static int write_json_sample(const char *path)
{
    setup();
    static const char other[] = "\xF0\x9F\x98\x80 \"x\"\r\n\tnext \xFF\n";
    uint32_t f = add_file("other.orbit", other, sizeof other - 1);
    report_backof();
    Diagnostic *d = diag_report(&fx.sink, E0410, find("attempts", 1),
                                "duplicate retry setting `attempts`");
    diag_set_label(&fx.sink, d, "set again here");
    diag_add_label(&fx.sink, d, find("attempts", 0), "first set here");
    diag_add_label(&fx.sink, d, in_file(f, 5, 8), "elsewhere \x01 \xFF");
    diag_add_note(&fx.sink, d, "a note\nwith two lines");
    diag_add_help(&fx.sink, d, "remove one of them");
    diag_add_fix(&fx.sink, d, in_file(0, find("attempts", 1).start, find("attempts", 1).end + 4),
                 "", FIX_MAYBE_INCORRECT, "remove the second one");
    diag_report(&fx.sink, E0001, in_file(f, 16, 17), "invalid UTF-8 in source");
    diag_report(&fx.sink, E0101, in_file(0, sizeof CHECKOUT - 1, sizeof CHECKOUT - 1),
                "empty span at the end");
    diag_finish(&fx.sink);
    FILE *out = fopen(path, "w");
    if (!out) {
        perror(path);
        return EXIT_FAILURE;
    }
    render_json(out, &fx.sink, &fx.map, &PLAIN);
    int failed = fclose(out) != 0;
    teardown();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-json") == 0)
        return write_json_sample(argv[2]);
    SRunner *runner = srunner_create(diag_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
