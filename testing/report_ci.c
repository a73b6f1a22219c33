/* The CI formats of `orbitc test`'s results (report_ci.h): JUnit XML, TAP version 14 and
 * GitHub Actions workflow commands. Every text goes through base/ci_text.c (textbuf.h),
 * which reads it as UTF-8 (a byte that is not becomes U+FFFD) and escapes it each
 * format's way: XML drops the characters XML 1.0 forbids, TAP and YAML escape control
 * characters, GitHub percent-encodes its separators. One pass over the run each: linear
 * in its size. */
#include "report_ci.h"

#include <inttypes.h>
#include <string.h>


/* ---- text ---- */

static const char *or_empty(const char *text)
{
    return text ? text : "";
}

/* The first failure of a test carries the divergence (the history around it). */
static const char *failure_divergence(const TestResult *r, uint32_t index)
{
    return index == 0 && r->divergence && *r->divergence ? r->divergence : NULL;
}

/* ---- JUnit XML ---- */

static void junit_failure(TextBuffer *out, const TestResult *r, uint32_t index)
{
    const TestFailure *f = &r->failures[index];
    TextBuffer message = {0};
    text_printf(&message, "%s: expected %s, actual %s", or_empty(f->what), or_empty(f->expected),
                or_empty(f->actual));
    text_append_str(out, "      <failure");
    text_xml_attribute(out, "message", message.data);
    text_xml_attribute(out, "type", "expectation");
    text_append_str(out, ">");
    text_free(&message);
    TextBuffer body = {0};
    text_printf(&body, "%s:%" PRIu32 ":%" PRIu32 ": %s\nexpected: %s\nactual:   %s\n", or_empty(r->file),
                f->line, f->column, or_empty(f->what), or_empty(f->expected), or_empty(f->actual));
    const char *divergence = failure_divergence(r, index);
    if (divergence)
        text_printf(&body, "\n%s", divergence);
    text_xml(out, body.data, false);
    text_free(&body);
    text_append_str(out, "</failure>\n");
}

static void junit_case(TextBuffer *out, const TestResult *r)
{
    text_append_str(out, "    <testcase");
    text_xml_attribute(out, "name", r->name);
    text_xml_attribute(out, "classname", r->workflow ? r->workflow : r->program);
    text_printf(out, " time=\"%.3f\"", r->seconds);
    text_xml_attribute(out, "file", r->file);
    text_printf(out, " line=\"%" PRIu32 "\"", r->line);
    if (r->status == TEST_PASSED) {
        text_append_str(out, "/>\n");
        return;
    }
    text_append_str(out, ">\n");
    if (r->status == TEST_ERROR) {
        text_append_str(out, "      <error");
        text_xml_attribute(out, "message", r->message);
        text_xml_attribute(out, "type", "error");
        text_append_str(out, ">");
        text_xml(out, r->message, false);
        text_append_str(out, "</error>\n");
    } else {
        for (uint32_t i = 0; i < r->failure_count; i++)
            junit_failure(out, r, i);
    }
    if (r->history && *r->history) {
        text_append_str(out, "      <system-out>");
        text_xml(out, r->history, false);
        text_append_str(out, "</system-out>\n");
    }
    text_append_str(out, "    </testcase>\n");
}

static bool same_program(const TestResult *a, const TestResult *b)
{
    return strcmp(or_empty(a->program), or_empty(b->program)) == 0;
}

/* <testsuites> of the run, a <testsuite> per program (the results come program by
 * program), a <testcase> per test with a <failure> per expectation that did not hold or
 * an <error>, and the history as its <system-out>. `file` and `line` on <testcase> are
 * the attributes GitLab and the JUnit reporters of GitHub Actions read. */
void testing_report_junit(const TestRun *run, TextBuffer *out)
{
    text_append_str(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    text_printf(out, "<testsuites name=\"orbitc test\" tests=\"%" PRIu32 "\" failures=\"%" PRIu32
                "\" errors=\"%" PRIu32 "\" time=\"%.3f\">\n",
                run->count, run->failed, run->errors, run->seconds);
    for (uint32_t first = 0, end; first < run->count; first = end) {
        uint32_t failed = 0, errors = 0;
        double seconds = 0;
        for (end = first; end < run->count && same_program(&run->results[first], &run->results[end]); end++) {
            failed += run->results[end].status == TEST_FAILED;
            errors += run->results[end].status == TEST_ERROR;
            seconds += run->results[end].seconds;
        }
        text_append_str(out, "  <testsuite");
        text_xml_attribute(out, "name", run->results[first].program);
        text_printf(out, " tests=\"%" PRIu32 "\" failures=\"%" PRIu32 "\" errors=\"%" PRIu32
                    "\" skipped=\"0\" time=\"%.3f\">\n", end - first, failed, errors, seconds);
        for (uint32_t i = first; i < end; i++)
            junit_case(out, &run->results[i]);
        text_append_str(out, "  </testsuite>\n");
    }
    text_append_str(out, "</testsuites>\n");
}

/* ---- TAP version 14 ---- */

static void yaml_key(TextBuffer *out, int indent, const char *key, const char *value)
{
    text_printf(out, "%*s%s: ", indent, "", key);
    text_yaml_string(out, value);
    text_append_str(out, "\n");
}

static void yaml_at(TextBuffer *out, int indent, const char *file, uint32_t line, uint32_t column)
{
    text_printf(out, "%*sat:\n", indent, "");
    yaml_key(out, indent + 2, "file", file);
    text_printf(out, "%*sline: %" PRIu32 "\n%*scolumn: %" PRIu32 "\n", indent + 2, "", line,
                indent + 2, "", column);
}

/* A test point per test; a failed or errored one with a YAML diagnostic block: where,
 * why, each failed expectation with its expected and actual value, the divergence. */
void testing_report_tap(const TestRun *run, TextBuffer *out)
{
    text_printf(out, "TAP version 14\n1..%" PRIu32 "\n", run->count);
    for (uint32_t i = 0; i < run->count; i++) {
        const TestResult *r = &run->results[i];
        text_printf(out, "%sok %" PRIu32 " - ", r->status == TEST_PASSED ? "" : "not ", i + 1);
        text_tap_description(out, r->name);
        text_append_str(out, "\n");
        if (r->status == TEST_PASSED)
            continue;
        text_append_str(out, "  ---\n");
        if (r->status == TEST_ERROR) {
            yaml_key(out, 2, "message", r->message);
            yaml_key(out, 2, "severity", "error");
        } else {
            TextBuffer message = {0};
            text_printf(&message, "%" PRIu32 " expectation%s failed", r->failure_count,
                        r->failure_count == 1 ? "" : "s");
            yaml_key(out, 2, "message", message.data);
            text_free(&message);
            yaml_key(out, 2, "severity", "fail");
        }
        yaml_at(out, 2, r->file, r->line, r->column);
        yaml_key(out, 2, "program", r->program);
        yaml_key(out, 2, "workflow", r->workflow);
        if (r->outcome)
            yaml_key(out, 2, "outcome", r->outcome);
        if (r->status == TEST_FAILED && r->failure_count > 0) {
            text_append_str(out, "  failures:\n");
            for (uint32_t k = 0; k < r->failure_count; k++) {
                const TestFailure *f = &r->failures[k];
                text_append_str(out, "    - what: ");
                text_yaml_string(out, f->what);
                text_append_str(out, "\n");
                yaml_key(out, 6, "expected", f->expected);
                yaml_key(out, 6, "actual", f->actual);
                yaml_at(out, 6, r->file, f->line, f->column);
            }
        }
        if (r->status == TEST_FAILED && r->divergence && *r->divergence)
            yaml_key(out, 2, "divergence", r->divergence);
        text_append_str(out, "  ...\n");
    }
}

/* ---- GitHub Actions workflow commands ---- */

static void github_error(TextBuffer *out, const TestResult *r, uint32_t line, uint32_t column,
                         const char *message)
{
    text_append_str(out, "::error file=");
    text_github(out, r->file, true);
    text_printf(out, ",line=%" PRIu32 ",col=%" PRIu32 ",title=", line, column);
    TextBuffer title = {0};
    text_printf(&title, "test \"%s\"", or_empty(r->name));
    text_github(out, title.data, true);
    text_free(&title);
    text_append_str(out, "::");
    text_github(out, message, false);
    text_append_str(out, "\n");
}

/* An `::error` annotation per expectation that did not hold, at its line, and one per
 * test that could not run, at the test's; nothing for a test that passed. */
void testing_report_github(const TestRun *run, TextBuffer *out)
{
    TextBuffer message = {0};
    for (uint32_t i = 0; i < run->count; i++) {
        const TestResult *r = &run->results[i];
        if (r->status == TEST_ERROR) {
            message.len = 0;
            text_printf(&message, "the test could not run: %s", or_empty(r->message));
            github_error(out, r, r->line, r->column, message.data);
            continue;
        }
        for (uint32_t k = 0; r->status == TEST_FAILED && k < r->failure_count; k++) {
            const TestFailure *f = &r->failures[k];
            message.len = 0;
            text_printf(&message, "%s: expected %s, actual %s", or_empty(f->what), or_empty(f->expected),
                        or_empty(f->actual));
            const char *divergence = failure_divergence(r, k);
            if (divergence)
                text_printf(&message, "\n\n%s", divergence);
            github_error(out, r, f->line, f->column, message.data);
        }
    }
    text_free(&message);
}
