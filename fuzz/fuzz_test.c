/* libFuzzer target: arbitrary bytes as one source file, checked as `orbitc test` checks
 * it; when the program has no errors and holds tests, they run as `orbitc test
 * --coverage` runs them (testing/runner.h: each test turned into its scenario, run in
 * virtual time, judged), on 1 thread, and one input in eight a second time on 2 threads;
 * then every report (human with and without colour, JSON, JUnit, TAP, GitHub) and the
 * three coverage formats are written into memory. Any crash, hang, sanitizer report or
 * leak is a bug, and so is output that breaks the promises of docs/testing.md: every
 * output valid UTF-8; the JSON report a document whose counts are the run's; the JUnit
 * document well-formed XML (checked here without a parser: tags balanced, attributes
 * quoted, `&` only in an entity, no character XML 1.0 forbids); the coverage's covered
 * items no more than its total; the reports of 1 and 2 threads the same (the human one
 * and the coverage, which hold no real time). A test that raises its `max_events` over
 * the default (TESTING_MAX_EVENTS) is not run: it may ask for a run of hours. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "coverage.h"
#include "program.h"
#include "fuzz_source.h"
#include "report.h"
#include "report_ci.h"
#include "runner.h"
#include "scenario_of_test.h"
#include "utf8.h"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_test: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void check_utf8(const char *format, const TextBuffer *out)
{
    for (size_t i = 0; i < out->len;) {
        int32_t cp;
        uint32_t n = utf8_decode((const unsigned char *)out->data + i, out->len - i, &cp);
        if (cp < 0)
            fail("an output is not UTF-8", format);
        i += n;
    }
}

static void check_count(const json_t *summary, const char *key, uint32_t want)
{
    json_t *value = json_object_get(summary, key);
    if (!json_is_integer(value) || json_integer_value(value) != (json_int_t)want)
        fail("the JSON report's summary does not hold the run's count", key);
}

/* One document; `tests` one entry per result with its status; `summary` the counts. */
static void check_json(const TestRun *run, const TextBuffer *out)
{
    json_error_t error;
    json_t *doc = json_loadb(out->data, out->len, 0, &error);
    if (!doc)
        fail("the JSON report does not parse", error.text);
    json_t *tests = json_object_get(doc, "tests");
    if (!json_is_array(tests) || json_array_size(tests) != run->count)
        fail("the JSON report's tests are not the run's", NULL);
    uint32_t passed = 0, failed = 0, errors = 0;
    for (size_t i = 0; i < json_array_size(tests); i++) {
        const char *status = json_string_value(json_object_get(json_array_get(tests, i), "status"));
        if (!status)
            fail("a test of the JSON report has no status", NULL);
        passed += strcmp(status, "passed") == 0;
        failed += strcmp(status, "failed") == 0;
        errors += strcmp(status, "error") == 0;
    }
    if (passed != run->passed || failed != run->failed || errors != run->errors
        || passed + failed + errors != run->count)
        fail("the JSON report's statuses are not the run's counts", NULL);
    json_t *summary = json_object_get(doc, "summary");
    check_count(summary, "total", run->count);
    check_count(summary, "passed", run->passed);
    check_count(summary, "failed", run->failed);
    check_count(summary, "errors", run->errors);
    json_decref(doc);
}

/* XML 1.0's Char production, minus what utf8_decode already refuses. */
static bool xml_char(int32_t cp)
{
    if (cp < 0x20)
        return cp == '\t' || cp == '\n' || cp == '\r';
    return !(cp == 0xFFFE || cp == 0xFFFF);
}

/* `&` starts one of the five named entities or a character reference. */
static size_t entity_length(const char *s, size_t len)
{
    static const char *const named[] = { "&lt;", "&gt;", "&amp;", "&quot;", "&apos;" };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        size_t n = strlen(named[i]);
        if (n <= len && memcmp(s, named[i], n) == 0)
            return n;
    }
    size_t i = 1;
    if (i < len && s[i] == '#') {
        i++;
        bool hex = i < len && s[i] == 'x';
        i += hex;
        size_t digits = i;
        while (i < len && (hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i])))
            i++;
        if (i > digits && i < len && s[i] == ';')
            return i + 1;
    }
    return 0;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '_' || c == '-' || c == ':' || c == '.';
}

/* Well-formed enough to be read by any XML parser: a declaration, then one root element
 * whose tags nest; attributes quoted, without `<`; `&` only in entities; only XML
 * characters. The stack of open names is bounded by the report's depth. */
static void check_xml(const TextBuffer *out)
{
    const char *s = out->data;
    size_t len = out->len;
    for (size_t i = 0; i < len;) {
        int32_t cp;
        i += utf8_decode((const unsigned char *)s + i, len - i, &cp);
        if (!xml_char(cp))
            fail("the JUnit report holds a character XML forbids", NULL);
    }
    enum { DEPTH = 16 };
    const char *open[DEPTH];
    size_t open_len[DEPTH];
    unsigned depth = 0, roots = 0;
    size_t i = 0;
    if (len < 5 || memcmp(s, "<?xml", 5) != 0)
        fail("the JUnit report has no XML declaration", NULL);
    const char *end = strstr(s, "?>");
    if (!end)
        fail("the JUnit report's declaration is not closed", NULL);
    i = (size_t)(end - s) + 2;
    while (i < len) {
        if (s[i] == '&') {
            size_t n = entity_length(s + i, len - i);
            if (!n)
                fail("the JUnit report has a `&` that starts no entity", s + i);
            i += n;
            continue;
        }
        if (s[i] != '<') {
            if (depth == 0 && s[i] != '\n' && s[i] != ' ')
                fail("the JUnit report has text outside its root", NULL);
            i++;
            continue;
        }
        if (strncmp(s + i, "<!--", 4) == 0) {
            const char *close = strstr(s + i + 4, "-->");
            if (!close)
                fail("the JUnit report has a comment that is not closed", NULL);
            i = (size_t)(close - s) + 3;
            continue;
        }
        if (strncmp(s + i, "<![CDATA[", 9) == 0) {
            const char *close = strstr(s + i + 9, "]]>");
            if (!close || depth == 0)
                fail("the JUnit report has a CDATA section out of place", NULL);
            i = (size_t)(close - s) + 3;
            continue;
        }
        bool closing = i + 1 < len && s[i + 1] == '/';
        size_t name = i + 1 + closing, n = name;
        while (n < len && name_char(s[n]))
            n++;
        if (n == name)
            fail("the JUnit report has a `<` that starts no tag", s + i);
        if (closing) {
            if (depth == 0 || open_len[depth - 1] != n - name
                || memcmp(open[depth - 1], s + name, n - name) != 0)
                fail("the JUnit report closes a tag it did not open", s + i);
            if (n >= len || s[n] != '>')
                fail("the JUnit report has a closing tag with more than a name", s + i);
            depth--;
            i = n + 1;
            continue;
        }
        /* attributes: name="value" or name='value' */
        size_t j = n;
        for (;;) {
            while (j < len && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t' || s[j] == '\r'))
                j++;
            if (j >= len)
                fail("the JUnit report has a tag that is not closed", s + i);
            if (s[j] == '>' || (s[j] == '/' && j + 1 < len && s[j + 1] == '>'))
                break;
            size_t attr = j;
            while (j < len && name_char(s[j]))
                j++;
            if (j == attr || j + 1 >= len || s[j] != '=' || (s[j + 1] != '"' && s[j + 1] != '\''))
                fail("the JUnit report has an attribute that is not name=\"value\"", s + attr);
            char quote = s[j + 1];
            j += 2;
            while (j < len && s[j] != quote) {
                if (s[j] == '<')
                    fail("the JUnit report has a `<` in an attribute", s + attr);
                if (s[j] == '&') {
                    size_t e = entity_length(s + j, len - j);
                    if (!e)
                        fail("the JUnit report has a `&` that starts no entity", s + j);
                    j += e;
                } else {
                    j++;
                }
            }
            if (j >= len)
                fail("the JUnit report has an attribute that is not closed", s + attr);
            j++;
            if (j < len && s[j] != ' ' && s[j] != '>' && s[j] != '/' && s[j] != '\n')
                fail("the JUnit report has attributes not apart", s + attr);
        }
        if (depth == 0 && roots++)
            fail("the JUnit report has more than one root element", s + i);
        if (s[j] == '/') {
            i = j + 2;
            continue;
        }
        if (depth == DEPTH)
            fail("the JUnit report nests deeper than it can", NULL);
        open[depth] = s + name;
        open_len[depth] = n - name;
        depth++;
        i = j + 1;
    }
    if (depth)
        fail("the JUnit report leaves a tag open", NULL);
    if (roots != 1)
        fail("the JUnit report has no root element", NULL);
}

/* The human report without colour and the three coverage formats: no real time in
 * them, so the same for any number of threads. */
static void write_steady(const TestingRun *tests, TextBuffer *out)
{
    testing_report_human(&tests->run, false, out);
    const Coverage *const *list = (const Coverage *const *)tests->coverage;
    coverage_write_text(list, tests->coverage_count, out);
    coverage_write_json(list, tests->coverage_count, out);
    coverage_write_lcov(list, tests->coverage_count, out);
}

static void write_reports(const TestingRun *tests, TextBuffer *steady)
{
    const TestRun *run = &tests->run;
    if (run->passed + run->failed + run->errors != run->count)
        fail("the run's counts do not add up", NULL);
    TextBuffer out = { 0 };

    testing_report_human(run, true, &out);
    check_utf8("human (colour)", &out);
    text_free(&out);
    write_steady(tests, steady);
    check_utf8("human, coverage", steady);

    testing_report_json(run, &out);
    check_utf8("json", &out);
    check_json(run, &out);
    text_free(&out);

    testing_report_junit(run, &out);
    check_utf8("junit", &out);
    check_xml(&out);
    text_free(&out);

    testing_report_tap(run, &out);
    check_utf8("tap", &out);
    text_free(&out);

    testing_report_github(run, &out);
    check_utf8("github", &out);
    text_free(&out);

    const Coverage *const *list = (const Coverage *const *)tests->coverage;
    uint64_t covered, total;
    coverage_counts(list, tests->coverage_count, &covered, &total);
    if (covered > total)
        fail("the coverage counts more covered items than there are", NULL);
}

/* The runs of one input; `steady` receives the first run's steady reports. False when the
 * program could not be lowered or loaded (a limit of the format: `orbitc test` says so
 * and runs nothing). */
static bool run_tests(Workspace *w, unsigned jobs, TextBuffer *steady)
{
    TestingOptions options = { .filter = NULL, .jobs = jobs, .coverage = true };
    TestingRun tests;
    char why[256] = "";
    bool ran = testing_run(w, &options, &tests, why, sizeof why);
    if (ran)
        write_reports(&tests, steady);
    testing_run_free(&tests);
    return ran;
}

/* One input in eight, by its bytes, is run on 2 threads too. */
static bool twice(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return (h >> 13) % 8 == 0;
}

typedef struct FuzzInput {
    const uint8_t *data;
    size_t size;
} FuzzInput;

/* Whether every test keeps the default bound on its run: one that raises `max_events`
 * over TESTING_MAX_EVENTS may ask for hours of redeliveries (`lost_after: 0ms, times:
 * 2000000000`), which is what it says; such an input is checked, not run. */
static bool bounded(const Program *program)
{
    for (uint32_t t = 0; t < program->test_count; t++) {
        const Block *b = member_body(program->tests[t]);
        for (uint32_t i = 0; b && i < b->count; i++) {
            const Member *m = &b->members[i];
            if (strcmp(testing_member_word(m), "max_events") != 0 || m->kind != MEMBER_ATTR
                || !member_value(m))
                continue;
            TestingProblem problem;
            json_t *value = testing_value_json(member_value(m), &problem);
            bool over = json_is_integer(value) && json_integer_value(value) > TESTING_MAX_EVENTS;
            json_decref(value);
            if (over)
                return false;
        }
    }
    return true;
}

static void test_if_clean(Workspace *w, void *context)
{
    const FuzzInput *input = context;
    const Program *program = w->checked[0];
    if (!program || w->c->diags.errors > 0 || program->test_count == 0 || !bounded(program))
        return;
    TextBuffer one = { 0 };
    if (run_tests(w, 1, &one) && twice(input->data, input->size)) {
        TextBuffer two = { 0 };
        if (!run_tests(w, 2, &two))
            fail("the program ran on 1 thread and not on 2", NULL);
        if (one.len != two.len || memcmp(one.data, two.data, one.len) != 0)
            fail("the reports of 1 and 2 threads differ", NULL);
        text_free(&two);
    }
    text_free(&one);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzInput input = { data, size };
    fuzz_check_workspace(data, size, false, test_if_clean, &input);   /* as `orbitc test` */
    return 0;
}
