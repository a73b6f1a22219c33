/* The human and JSON reports of `orbitc test` (report.h). */
#include "report.h"
#include "testing_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"
#include "memory.h"
#include "orbc_value.h"

/* ANSI colours of the human report. */
#define PAINT_RESET "\x1b[0m"
#define PAINT_BOLD "\x1b[1m"
#define PAINT_PASS "\x1b[1;32m"
#define PAINT_FAIL "\x1b[1;31m"
#define PAINT_ERROR "\x1b[1;33m"

/* What the reports call each status: the JSON's word, and the human report's mark. */
static const char *const STATUS_WORDS[] = {
    [TEST_PASSED] = "passed", [TEST_FAILED] = "failed", [TEST_ERROR] = "error",
};
static const char *const STATUS_MARKS[] = {
    [TEST_PASSED] = "PASS ", [TEST_FAILED] = "FAIL ", [TEST_ERROR] = "ERROR",
};
static const char *const STATUS_PAINTS[] = {
    [TEST_PASSED] = PAINT_PASS, [TEST_FAILED] = PAINT_FAIL, [TEST_ERROR] = PAINT_ERROR,
};

static void paint(TextBuffer *out, bool color, const char *escape)
{
    if (color)
        text_append_str(out, escape);
}

/* Each line of `text` indented by `indent`. */
static void indented(TextBuffer *out, const char *indent, const char *text)
{
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        text_append_str(out, indent);
        text_append(out, p, len);
        text_append_str(out, "\n");
        p += len + (p[len] == '\n');
    }
}

void testing_report_human(const TestRun *run, bool color, TextBuffer *out)
{
    for (uint32_t i = 0; i < run->count; i++) {
        const TestResult *r = &run->results[i];
        paint(out, color, STATUS_PAINTS[r->status]);
        text_append_str(out, STATUS_MARKS[r->status]);
        paint(out, color, PAINT_RESET);
        text_printf(out, " %s:%u:%u: ", r->file, r->line, r->column);
        paint(out, color, PAINT_BOLD);
        text_append_str(out, r->name);
        paint(out, color, PAINT_RESET);
        if (r->status != TEST_ERROR) {
            char at[ORBC_DURATION_TEXT_SIZE];
            orbc_format_duration(at, r->virtual_ms);
            text_printf(out, " (%s: %s at %s)", r->workflow, r->outcome, at);
        }
        text_append_str(out, "\n");
        if (r->status == TEST_ERROR)
            text_printf(out, "  %s\n", r->message);
        for (uint32_t f = 0; f < r->failure_count; f++) {
            const TestFailure *failure = &r->failures[f];
            text_printf(out, "  %s:%u:%u: %s\n", r->file, failure->line,
                        failure->column, failure->what);
            text_printf(out, "    expected: %s\n", failure->expected);
            text_printf(out, "    actual:   %s\n", failure->actual);
        }
        if (r->divergence)
            indented(out, "  ", r->divergence);
    }
    if (run->count == 0) {
        text_append_str(out, "no tests ran\n");
        return;
    }
    text_printf(out, "\n%u %s: %u passed, %u failed", run->count,
                run->count == 1 ? "test" : "tests", run->passed, run->failed);
    if (run->errors)
        text_printf(out, ", %u could not run", run->errors);
    text_append_str(out, "\n");
}

/* A text of the results (NULL: JSON null). */
static json_t *json_text(const char *text)
{
    return text ? diag_json_text0(text) : json_null();
}

/* The lines of a history as an array of strings. */
static json_t *json_lines(const char *text)
{
    json_t *lines = json_array();
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn(p, "\n");
        json_array_append_new(lines, diag_json_text(p, len));
        p += len + (p[len] == '\n');
    }
    return lines;
}

static json_t *json_result(const TestResult *r)
{
    json_t *failures = json_array();
    for (uint32_t f = 0; f < r->failure_count; f++) {
        const TestFailure *failure = &r->failures[f];
        json_array_append_new(failures, json_pack(
            "{s:o, s:o, s:o, s:I, s:I}", "expectation", json_text(failure->what),
            "expected", json_text(failure->expected), "actual", json_text(failure->actual),
            "line", (json_int_t)failure->line, "column", (json_int_t)failure->column));
    }
    return json_pack("{s:o, s:o, s:o, s:I, s:I, s:o, s:s, s:o, s:o, s:I, s:f, s:o, s:o, s:o}",
                     "name", json_text(r->name), "program", json_text(r->program),
                     "file", json_text(r->file), "line", (json_int_t)r->line,
                     "column", (json_int_t)r->column, "workflow", json_text(r->workflow),
                     "status", STATUS_WORDS[r->status], "message", json_text(r->message),
                     "outcome", json_text(r->outcome), "virtual_ms", (json_int_t)r->virtual_ms,
                     "seconds", r->seconds, "failures", failures,
                     "divergence", json_text(r->divergence), "history", json_lines(r->history));
}

/* `doc` (taken) as indented JSON with its keys in order, and a newline, into `out`: every
 * JSON report of orbitc test. */
void testing_append_json(TextBuffer *out, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    if (!text)
        out_of_memory();
    text_append_str(out, text);
    text_append_str(out, "\n");
    free(text);
}

void testing_report_json(const TestRun *run, TextBuffer *out)
{
    json_t *tests = json_array();
    for (uint32_t i = 0; i < run->count; i++)
        json_array_append_new(tests, json_result(&run->results[i]));
    json_t *doc = json_pack("{s:i, s:o, s:{s:I, s:I, s:I, s:I, s:f}}", "version", 1,
                            "tests", tests, "summary", "total", (json_int_t)run->count,
                            "passed", (json_int_t)run->passed, "failed",
                            (json_int_t)run->failed, "errors", (json_int_t)run->errors,
                            "seconds", run->seconds);
    testing_append_json(out, doc);
}
