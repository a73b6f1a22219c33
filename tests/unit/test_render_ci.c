/* Unit tests of the formats for CI systems (render_github.c, render_gitlab.c,
 * render_sarif.c) and what they share (render_machine.c): GitHub's escaping, relative
 * paths and URIs, fingerprints that survive lines added above, and the shape of the
 * GitLab and SARIF documents (read back with jansson). The golden tests check every
 * golden case in these formats; these pin the cases a source file cannot reach. */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "render_machine.h"

static const char TEXT[] =
    "workflow w {\n"
    "  step a { worker \"x\" }\n"
    "  step a { worker \"x\" }\n"
    "}\n";

typedef struct Fixture {
    Arena arena;
    SourceMap map;
    DiagSink sink;
} Fixture;

static Fixture fx;

static uint32_t add_file(const char *path, const char *text)
{
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    memcpy(copy, text, len + 1);
    return source_map_add(&fx.map, path, copy, (uint32_t)len, false);
}

static void setup(void)
{
    arena_init(&fx.arena);
    source_map_init(&fx.map);
    diag_sink_init(&fx.sink, &fx.arena);
}

static void teardown(void)
{
    diag_sink_free(&fx.sink);
    source_map_free(&fx.map);
    arena_free(&fx.arena);
}

/* The span of the `nth` (0-based) `needle` in file `file`. */
static Span find(uint32_t file, const char *needle, int nth)
{
    const char *text = source_file(&fx.map, file)->text;
    const char *p = text;
    for (;;) {
        p = strstr(p, needle);
        ck_assert_ptr_nonnull(p);
        if (nth-- == 0)
            break;
        p++;
    }
    uint32_t start = (uint32_t)(p - text);
    return source_span(&fx.map, file, start, start + (uint32_t)strlen(needle));
}

typedef void Renderer(FILE *, const DiagSink *, const SourceMap *, const RenderOptions *);

static char *render(Renderer *renderer)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    RenderOptions options;
    memset(&options, 0, sizeof options);
    renderer(out, &fx.sink, &fx.map, &options);
    fclose(out);
    return text;
}

static json_t *render_json_value(Renderer *renderer)
{
    char *text = render(renderer);
    json_error_t error;
    json_t *value = json_loads(text, 0, &error);
    ck_assert_msg(value != NULL, "not JSON: %s\n%s", error.text, text);
    free(text);
    return value;
}

START_TEST(github_escapes_message_and_properties)
{
    uint32_t f = add_file("dir:one/a,b%.orbit", TEXT);
    Diagnostic *d = diag_report(&fx.sink, E0201, find(f, "a", 1),
                                "100%% of `a`: twice, \r\nreally");
    diag_add_label(&fx.sink, d, find(f, "a", 0), "first: here, once");
    diag_add_note(&fx.sink, d, "n%%1");
    diag_add_help(&fx.sink, d, "h\x1b[31m");
    diag_add_fix(&fx.sink, d, find(f, "a", 1), "b", FIX_MACHINE_APPLICABLE, "rename");
    diag_finish(&fx.sink);
    char *text = render(render_github);
    ck_assert_str_eq(text,
        "::error file=dir%3Aone/a%2Cb%25.orbit,line=3,col=8,endLine=3,endColumn=9,title=E0201"
        "::100%25 of `a`: twice, %0D%0Areally"
        "%0Adir:one/a,b%25.orbit:2:8: first: here, once"
        "%0Anote: n%251%0Ahelp: h\xEF\xBF\xBD[31m%0Ahelp: rename\n");
    free(text);
}
END_TEST

START_TEST(github_warning_without_sources)
{
    diag_report(&fx.sink, W0004, span_make(0, 0), "no file");
    diag_finish(&fx.sink);
    char *text = render(render_github);
    ck_assert_str_eq(text, "::warning title=W0004::no file\n");
    free(text);
}
END_TEST

static char *relative(const char *root, const char *path)
{
    SourceFile file;
    memset(&file, 0, sizeof file);
    file.path = (char *)path;
    return render_relative_path(root, &file);
}

static void expect_relative(const char *root, const char *path, const char *expected)
{
    char *got = relative(root, path);
    if (expected)
        ck_assert_str_eq(got ? got : "(null)", expected);
    else
        ck_assert_msg(got == NULL, "%s under %s gave %s, expected none", path, root, got);
    free(got);
}

START_TEST(relative_paths)
{
    expect_relative("/src", "a.orbit", "a.orbit");
    expect_relative("/src", "./dir/../b/./a.orbit", "b/a.orbit");
    expect_relative("/src", "/src/x/a.orbit", "x/a.orbit");
    expect_relative("/src", "/srcx/a.orbit", NULL);
    expect_relative("/src", "../a.orbit", NULL);
    expect_relative("/src/", "sub//a.orbit", "sub/a.orbit");
    expect_relative("/", "/etc/a.orbit", "etc/a.orbit");
    expect_relative("/src", "../../../../a.orbit", NULL);
}
END_TEST

/* Two copies of one diagnostic, in a file and in the same file with lines added above:
 * the fingerprints are the same, and differ between two equal reports on equal lines. */
START_TEST(fingerprints_survive_lines_added_above)
{
    uint32_t f = add_file("a.orbit", TEXT);
    diag_report(&fx.sink, E0201, find(f, "a", 1), "duplicate step `a`");
    diag_finish(&fx.sink);
    char *root = render_source_root();
    char **before = render_fingerprints(&fx.sink, &fx.map, root);
    char *kept = strcpy(malloc(strlen(before[0]) + 1), before[0]);
    render_fingerprints_free(before, fx.sink.count);
    teardown();

    setup();
    uint32_t g = add_file("a.orbit", "// a comment\n\nworkflow w {\n  step a { worker \"x\" }\n"
                                     "  step a { worker \"x\" }\n  step a { worker \"x\" }\n}\n");
    diag_report(&fx.sink, E0201, find(g, "a", 2), "duplicate step `a`");
    diag_report(&fx.sink, E0201, find(g, "a", 3), "duplicate step `a`");
    diag_report(&fx.sink, E0201, find(g, "a", 3), "another message");
    diag_finish(&fx.sink);
    char **after = render_fingerprints(&fx.sink, &fx.map, root);
    ck_assert_str_eq(after[0], kept);
    ck_assert_str_ne(after[1], kept);
    ck_assert_int_eq(strncmp(after[0], after[1], 16), 0);   /* same hash, next occurrence */
    ck_assert_str_eq(after[1] + 16, ":1");
    ck_assert_int_ne(strncmp(after[2], after[0], 16), 0);
    render_fingerprints_free(after, fx.sink.count);
    free(kept);
    free(root);
}
END_TEST

START_TEST(gitlab_report)
{
    char *cwd = getcwd(NULL, 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/sub/a.orbit", cwd);
    uint32_t f = add_file(path, TEXT);
    diag_report(&fx.sink, E0201, find(f, "a", 1), "duplicate step `a`");
    diag_report(&fx.sink, W0004, find(f, "x", 0), "bad \xFF byte");
    diag_finish(&fx.sink);
    json_t *issues = render_json_value(render_gitlab);
    ck_assert_int_eq(json_array_size(issues), 2);
    json_t *first = json_array_get(issues, 0);
    ck_assert_str_eq(json_string_value(json_object_get(first, "check_name")), "W0004");
    ck_assert_str_eq(json_string_value(json_object_get(first, "severity")), "minor");
    ck_assert_str_eq(json_string_value(json_object_get(first, "description")), "bad \xEF\xBF\xBD byte");
    json_t *second = json_array_get(issues, 1);
    ck_assert_str_eq(json_string_value(json_object_get(second, "severity")), "major");
    json_t *location = json_object_get(second, "location");
    ck_assert_str_eq(json_string_value(json_object_get(location, "path")), "sub/a.orbit");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(location, "lines"), "begin")), 3);
    ck_assert_str_ne(json_string_value(json_object_get(first, "fingerprint")),
                     json_string_value(json_object_get(second, "fingerprint")));
    json_decref(issues);
    free(cwd);
}
END_TEST

static json_t *sarif_run(void)
{
    json_t *log = render_json_value(render_sarif);
    ck_assert_str_eq(json_string_value(json_object_get(log, "version")), "2.1.0");
    json_t *run = json_incref(json_array_get(json_object_get(log, "runs"), 0));
    json_decref(log);
    return run;
}

static const char *artifact_uri(json_t *location)
{
    json_t *artifact = json_object_get(json_object_get(location, "physicalLocation"),
                                       "artifactLocation");
    return json_string_value(json_object_get(artifact, "uri"));
}

START_TEST(sarif_log)
{
    uint32_t f = add_file("dir/a b\xC3\xA9.orbit", "x \xF0\x9F\x9A\x80 y\n");
    uint32_t g = add_file("/elsewhere/b.orbit", TEXT);
    Diagnostic *d = diag_report(&fx.sink, E0002, find(f, "y", 0), "unexpected `y`");
    diag_set_label(&fx.sink, d, "here");
    diag_add_label(&fx.sink, d, find(g, "a", 0), "there");
    diag_add_fix(&fx.sink, d, find(f, "y", 0), "z", FIX_MAYBE_INCORRECT, "use z");
    diag_finish(&fx.sink);
    json_t *run = sarif_run();
    ck_assert_str_eq(json_string_value(json_object_get(run, "columnKind")), "utf16CodeUnits");
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    ck_assert_int_eq(json_array_size(json_object_get(driver, "rules")), DIAG_CODE_COUNT);
    json_t *rule = json_array_get(json_object_get(driver, "rules"), E0002);
    ck_assert_str_eq(json_string_value(json_object_get(rule, "id")), "E0002");
    ck_assert_str_eq(json_string_value(json_object_get(rule, "name")), "UnexpectedCharacter");

    json_t *result = json_array_get(json_object_get(run, "results"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(result, "ruleIndex")), E0002);
    json_t *location = json_array_get(json_object_get(result, "locations"), 0);
    ck_assert_str_eq(artifact_uri(location), "dir/a%20b%C3%A9.orbit");
    json_t *region = json_object_get(json_object_get(location, "physicalLocation"), "region");
    ck_assert_int_eq(json_integer_value(json_object_get(region, "startColumn")), 6);  /* UTF-16 */
    ck_assert_int_eq(json_integer_value(json_object_get(region, "endColumn")), 7);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(location, "message"), "text")),
                     "here");
    json_t *related = json_array_get(json_object_get(result, "relatedLocations"), 0);
    ck_assert_str_eq(artifact_uri(related), "file:///elsewhere/b.orbit");
    ck_assert_int_eq(json_integer_value(json_object_get(related, "id")), 1);
    json_t *fix = json_array_get(json_object_get(result, "fixes"), 0);
    json_t *change = json_array_get(json_object_get(fix, "artifactChanges"), 0);
    json_t *replacement = json_array_get(json_object_get(change, "replacements"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(replacement, "insertedContent"),
                                                       "text")), "z");
    json_t *bases = json_object_get(run, "originalUriBaseIds");
    const char *base = json_string_value(json_object_get(json_object_get(bases, "%SRCROOT%"), "uri"));
    ck_assert_int_eq(strncmp(base, "file:///", 8), 0);
    ck_assert_int_eq(base[strlen(base) - 1], '/');
    json_decref(run);
}
END_TEST

static Suite *render_ci_suite(void)
{
    Suite *s = suite_create("render_ci");
    TCase *tc = tcase_create("render_ci");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, github_escapes_message_and_properties);
    tcase_add_test(tc, github_warning_without_sources);
    tcase_add_test(tc, relative_paths);
    tcase_add_test(tc, fingerprints_survive_lines_added_above);
    tcase_add_test(tc, gitlab_report);
    tcase_add_test(tc, sarif_log);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *runner = srunner_create(render_ci_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
