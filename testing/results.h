/* The results of a run of `orbitc test` (docs/testing.md): what the runner
 * (testing/runner.c) produces and every report writer reads (human and JSON:
 * testing/report.c; JUnit XML, TAP and GitHub annotations: testing/report_ci.c). Plain
 * data: texts are NUL-terminated UTF-8 owned by the run (an arena), positions are
 * 1-based, columns in characters. */
#ifndef ORBIT_TESTING_RESULTS_H
#define ORBIT_TESTING_RESULTS_H

#include <stdint.h>

#include "textbuf.h"

typedef enum TestStatus {
    TEST_PASSED,
    TEST_FAILED,     /* an expectation did not hold */
    TEST_ERROR,      /* the test could not run (its world was refused by the runtime) */
} TestStatus;

/* One expectation that did not hold. */
typedef struct TestFailure {
    const char *what;        /* the expectation, as written: "status", "step charge: attempts",
                                "events[2]" */
    const char *expected;    /* as Orbit writes values: `failed`, `1`, `"CARD_DECLINED"`,
                                `{ charge_id: "ch_1" }`, or an event line */
    const char *actual;      /* the same, or "(none)" */
    uint32_t line, column;   /* of the expectation in the test's file */
} TestFailure;

typedef struct TestResult {
    const char *name;        /* the test's name, `test "NAME"` */
    const char *program;     /* the program's root directory, as shown in diagnostics */
    const char *file;        /* the test's source file, as shown in diagnostics */
    uint32_t line, column;   /* of the `test` keyword */
    const char *workflow;    /* the workflow under test */
    TestStatus status;
    const char *message;     /* TEST_ERROR: why it could not run; else NULL */
    TestFailure *failures;   /* TEST_FAILED: the expectations that failed, in source order */
    uint32_t failure_count;
    const char *outcome;     /* how the workflow ended: "completed", "failed CARD_DECLINED",
                                "timed_out", "blocked", "stopped" */
    int64_t virtual_ms;      /* the virtual time the workflow took */
    double seconds;          /* the real time the test took */
    const char *history;     /* the history, `orbit logs` text lines, '\n'-terminated */
    const char *divergence;  /* TEST_FAILED: the history around the first divergence, with
                                the scripted outcomes that led there (human text); or NULL */
} TestResult;

typedef struct TestRun {
    TestResult *results;     /* in order: program, file, position in the file */
    uint32_t count;
    uint32_t passed, failed, errors;
    double seconds;          /* the real time of the whole run */
} TestRun;

#endif
