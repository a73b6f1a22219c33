/* Unit tests of the CI formats of `orbitc test` (testing/report_ci.c): runs filled by
 * hand (every test passing; one passing, one failing two expectations, one that could
 * not run, and one whose name and values hold `<&"'>`, a newline, control characters
 * and invalid UTF-8), and the exact JUnit XML, TAP and GitHub annotations of each.
 *
 * `test_report_ci --write DIR` writes those documents to DIR instead of testing
 * (report_ci_passing.xml, _failing.xml, _passing.tap, _failing.tap); the build validates them with
 * xmllint against Jenkins' JUnit schema and with prove (test_report_ci_tools.py). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_ci.h"

/* ---- the runs ---- */

static TestResult passing_results[] = {
    {.name = "a declined card is charged once", .program = "shop", .file = "shop/checkout.test.orbit",
     .line = 2, .column = 1, .workflow = "checkout", .status = TEST_PASSED,
     .outcome = "failed CARD_DECLINED", .virtual_ms = 120, .seconds = 0.012,
     .history = "+ 0ms #1 WorkflowStarted workflow=checkout\n"},
    {.name = "a good card", .program = "shop", .file = "shop/checkout.test.orbit", .line = 20,
     .column = 1, .workflow = "checkout", .status = TEST_PASSED, .outcome = "completed",
     .virtual_ms = 10, .seconds = 0.004, .history = "+ 0ms #1 WorkflowStarted workflow=checkout\n"},
};

static TestRun passing_run = {
    .results = passing_results, .count = 2, .passed = 2, .seconds = 0.02,
};

static TestFailure two_failures[] = {
    {.what = "status", .expected = "failed", .actual = "completed", .line = 27, .column = 5},
    {.what = "step charge: attempts", .expected = "3", .actual = "1", .line = 28, .column = 5},
};

static TestFailure odd_failure[] = {
    {.what = "output", .expected = "{ id: \"I-1\" }", .actual = "\"bad\x01\xfe%\"", .line = 9,
     .column = 3},
};

static TestResult failing_results[] = {
    {.name = "a declined card is charged once", .program = "shop", .file = "shop/checkout.test.orbit",
     .line = 2, .column = 1, .workflow = "checkout", .status = TEST_PASSED,
     .outcome = "failed CARD_DECLINED", .seconds = 0.01,
     .history = "+ 0ms #1 WorkflowStarted workflow=checkout\n"},
    {.name = "the gateway is retried twice", .program = "shop", .file = "shop/checkout.test.orbit",
     .line = 20, .column = 1, .workflow = "checkout", .status = TEST_FAILED,
     .failures = two_failures, .failure_count = 2, .outcome = "completed", .virtual_ms = 10,
     .seconds = 0.25,
     .history = "+ 0ms #1 WorkflowStarted workflow=checkout\n"
                "+ 10ms #4 StepCompleted step=charge attempt=1\n",
     .divergence = "+ 10ms #4 StepCompleted step=charge attempt=1\n"
                   "  ^ attempt 1 succeeded: the script gave no outcome for it\n"},
    {.name = "refund <&\"'> runs", .program = "shop", .file = "shop/refund.test.orbit", .line = 4,
     .column = 1, .workflow = "refund", .status = TEST_ERROR,
     .message = "the world was refused: steps[\"refund\"]: unknown step", .seconds = 0.001},
    {.name = "line one\nline two \xff#1\\", .program = "billing", .file = "billing/invoice.test.orbit",
     .line = 1, .column = 1, .workflow = "invoice", .status = TEST_FAILED,
     .failures = odd_failure, .failure_count = 1, .outcome = "completed", .seconds = 0.125,
     .history = "+ 0ms #1 WorkflowStarted workflow=invoice\x02\n"},
};

static TestRun failing_run = {
    .results = failing_results, .count = 4, .passed = 1, .failed = 2, .errors = 1, .seconds = 0.5,
};

typedef void (*Writer)(const TestRun *run, TextBuffer *out);

static char *written(Writer writer, const TestRun *run)
{
    TextBuffer out = {0};
    text_append(&out, "", 0);
    writer(run, &out);
    return out.data;
}

/* ---- JUnit XML ---- */

START_TEST(junit_passing)
{
    char *text = written(testing_report_junit, &passing_run);
    ck_assert_str_eq(text,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"orbitc test\" tests=\"2\" failures=\"0\" errors=\"0\" time=\"0.020\">\n"
        "  <testsuite name=\"shop\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\"0.016\">\n"
        "    <testcase name=\"a declined card is charged once\" classname=\"checkout\" time=\"0.012\" "
        "file=\"shop/checkout.test.orbit\" line=\"2\"/>\n"
        "    <testcase name=\"a good card\" classname=\"checkout\" time=\"0.004\" "
        "file=\"shop/checkout.test.orbit\" line=\"20\"/>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
    free(text);
}
END_TEST

START_TEST(junit_failing)
{
    char *text = written(testing_report_junit, &failing_run);
    ck_assert_str_eq(text,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"orbitc test\" tests=\"4\" failures=\"2\" errors=\"1\" time=\"0.500\">\n"
        "  <testsuite name=\"shop\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"0.261\">\n"
        "    <testcase name=\"a declined card is charged once\" classname=\"checkout\" time=\"0.010\" "
        "file=\"shop/checkout.test.orbit\" line=\"2\"/>\n"
        "    <testcase name=\"the gateway is retried twice\" classname=\"checkout\" time=\"0.250\" "
        "file=\"shop/checkout.test.orbit\" line=\"20\">\n"
        "      <failure message=\"status: expected failed, actual completed\" type=\"expectation\">"
        "shop/checkout.test.orbit:27:5: status\n"
        "expected: failed\n"
        "actual:   completed\n"
        "\n"
        "+ 10ms #4 StepCompleted step=charge attempt=1\n"
        "  ^ attempt 1 succeeded: the script gave no outcome for it\n"
        "</failure>\n"
        "      <failure message=\"step charge: attempts: expected 3, actual 1\" type=\"expectation\">"
        "shop/checkout.test.orbit:28:5: step charge: attempts\n"
        "expected: 3\n"
        "actual:   1\n"
        "</failure>\n"
        "      <system-out>+ 0ms #1 WorkflowStarted workflow=checkout\n"
        "+ 10ms #4 StepCompleted step=charge attempt=1\n"
        "</system-out>\n"
        "    </testcase>\n"
        "    <testcase name=\"refund &lt;&amp;&quot;&apos;&gt; runs\" classname=\"refund\" time=\"0.001\" "
        "file=\"shop/refund.test.orbit\" line=\"4\">\n"
        "      <error message=\"the world was refused: steps[&quot;refund&quot;]: unknown step\" "
        "type=\"error\">the world was refused: steps[&quot;refund&quot;]: unknown step</error>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "  <testsuite name=\"billing\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.125\">\n"
        "    <testcase name=\"line one&#10;line two \xef\xbf\xbd#1\\\" classname=\"invoice\" time=\"0.125\" "
        "file=\"billing/invoice.test.orbit\" line=\"1\">\n"
        "      <failure message=\"output: expected { id: &quot;I-1&quot; }, actual &quot;bad\xef\xbf\xbd%&quot;\" "
        "type=\"expectation\">billing/invoice.test.orbit:9:3: output\n"
        "expected: { id: &quot;I-1&quot; }\n"
        "actual:   &quot;bad\xef\xbf\xbd%&quot;\n"
        "</failure>\n"
        "      <system-out>+ 0ms #1 WorkflowStarted workflow=invoice\n"
        "</system-out>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
    free(text);
}
END_TEST

/* ---- TAP ---- */

START_TEST(tap_passing)
{
    char *text = written(testing_report_tap, &passing_run);
    ck_assert_str_eq(text,
        "TAP version 14\n"
        "1..2\n"
        "ok 1 - a declined card is charged once\n"
        "ok 2 - a good card\n");
    free(text);
}
END_TEST

START_TEST(tap_failing)
{
    char *text = written(testing_report_tap, &failing_run);
    ck_assert_str_eq(text,
        "TAP version 14\n"
        "1..4\n"
        "ok 1 - a declined card is charged once\n"
        "not ok 2 - the gateway is retried twice\n"
        "  ---\n"
        "  message: \"2 expectations failed\"\n"
        "  severity: \"fail\"\n"
        "  at:\n"
        "    file: \"shop/checkout.test.orbit\"\n"
        "    line: 20\n"
        "    column: 1\n"
        "  program: \"shop\"\n"
        "  workflow: \"checkout\"\n"
        "  outcome: \"completed\"\n"
        "  failures:\n"
        "    - what: \"status\"\n"
        "      expected: \"failed\"\n"
        "      actual: \"completed\"\n"
        "      at:\n"
        "        file: \"shop/checkout.test.orbit\"\n"
        "        line: 27\n"
        "        column: 5\n"
        "    - what: \"step charge: attempts\"\n"
        "      expected: \"3\"\n"
        "      actual: \"1\"\n"
        "      at:\n"
        "        file: \"shop/checkout.test.orbit\"\n"
        "        line: 28\n"
        "        column: 5\n"
        "  divergence: \"+ 10ms #4 StepCompleted step=charge attempt=1\\n"
        "  ^ attempt 1 succeeded: the script gave no outcome for it\\n\"\n"
        "  ...\n"
        "not ok 3 - refund <&\"'> runs\n"
        "  ---\n"
        "  message: \"the world was refused: steps[\\\"refund\\\"]: unknown step\"\n"
        "  severity: \"error\"\n"
        "  at:\n"
        "    file: \"shop/refund.test.orbit\"\n"
        "    line: 4\n"
        "    column: 1\n"
        "  program: \"shop\"\n"
        "  workflow: \"refund\"\n"
        "  ...\n"
        "not ok 4 - line one line two \xef\xbf\xbd\\#1\\\\\n"
        "  ---\n"
        "  message: \"1 expectation failed\"\n"
        "  severity: \"fail\"\n"
        "  at:\n"
        "    file: \"billing/invoice.test.orbit\"\n"
        "    line: 1\n"
        "    column: 1\n"
        "  program: \"billing\"\n"
        "  workflow: \"invoice\"\n"
        "  outcome: \"completed\"\n"
        "  failures:\n"
        "    - what: \"output\"\n"
        "      expected: \"{ id: \\\"I-1\\\" }\"\n"
        "      actual: \"\\\"bad\\x01\xef\xbf\xbd%\\\"\"\n"
        "      at:\n"
        "        file: \"billing/invoice.test.orbit\"\n"
        "        line: 9\n"
        "        column: 3\n"
        "  ...\n");
    free(text);
}
END_TEST

/* ---- GitHub annotations ---- */

START_TEST(github_passing)
{
    char *text = written(testing_report_github, &passing_run);
    ck_assert_str_eq(text, "");
    free(text);
}
END_TEST

START_TEST(github_failing)
{
    char *text = written(testing_report_github, &failing_run);
    ck_assert_str_eq(text,
        "::error file=shop/checkout.test.orbit,line=27,col=5,title=test \"the gateway is retried twice\"::"
        "status: expected failed, actual completed%0A%0A"
        "+ 10ms #4 StepCompleted step=charge attempt=1%0A"
        "  ^ attempt 1 succeeded: the script gave no outcome for it%0A\n"
        "::error file=shop/checkout.test.orbit,line=28,col=5,title=test \"the gateway is retried twice\"::"
        "step charge: attempts: expected 3, actual 1\n"
        "::error file=shop/refund.test.orbit,line=4,col=1,title=test \"refund <&\"'> runs\"::"
        "the test could not run: the world was refused: steps[\"refund\"]: unknown step\n"
        "::error file=billing/invoice.test.orbit,line=9,col=3,"
        "title=test \"line one%0Aline two \xef\xbf\xbd#1\\\"::"
        "output: expected { id: \"I-1\" }, actual \"bad\x01\xef\xbf\xbd%25\"\n");
    free(text);
}
END_TEST

/* ---- the documents for the build's validation ---- */

static int write_file(const char *dir, const char *name, Writer writer, const TestRun *run)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = written(writer, run);
    FILE *f = fopen(path, "wb");
    int ok = f && fputs(text, f) >= 0;
    ok = f && fclose(f) == 0 && ok;
    free(text);
    if (!ok)
        fprintf(stderr, "test_report_ci: cannot write %s\n", path);
    return ok ? 0 : 1;
}

static int write_samples(const char *dir)
{
    return write_file(dir, "report_ci_passing.xml", testing_report_junit, &passing_run) |
           write_file(dir, "report_ci_failing.xml", testing_report_junit, &failing_run) |
           write_file(dir, "report_ci_passing.tap", testing_report_tap, &passing_run) |
           write_file(dir, "report_ci_failing.tap", testing_report_tap, &failing_run);
}

static Suite *report_ci_suite(void)
{
    Suite *s = suite_create("report_ci");
    TCase *tc = tcase_create("formats");
    tcase_add_test(tc, junit_passing);
    tcase_add_test(tc, junit_failing);
    tcase_add_test(tc, tap_passing);
    tcase_add_test(tc, tap_failing);
    tcase_add_test(tc, github_passing);
    tcase_add_test(tc, github_failing);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_samples(argv[2]);
    SRunner *runner = srunner_create(report_ci_suite());
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
