/* What the runner's files share (testing/): a run's history read back, and the judge of
 * a test's expectations over it. Internal to testing/. */
#ifndef ORBIT_TESTING_INTERNAL_H
#define ORBIT_TESTING_INTERNAL_H

#include <jansson.h>
#include <stdint.h>

#include "arena.h"
#include "history.h"
#include "orbc.h"
#include "program.h"
#include "results.h"
#include "source.h"

/* One history event: its JSON object (history --format json) and its `orbit logs`
 * line. */
typedef struct TestEvent {
    int64_t time_ms;
    const char *event;     /* "StepScheduled" */
    const char *step;      /* the `step` field, or NULL */
    int64_t attempt;       /* the `attempt` field, or 0 */
    const char *error;     /* the `error` code, or NULL */
    const char *workflow;  /* the `workflow` field, or NULL */
    const char *line;      /* the text line, without its newline */
    const char *body;      /* the line after its time and number: "StepScheduled step=…" */
} TestEvent;

/* A run read back (history_read.c). Strings live in the arena given. */
typedef struct TestHistory {
    TestEvent *events;
    uint32_t count;
    const char *status;    /* "completed", "failed", "timed_out", "blocked", "stopped" */
    const char *error;     /* the workflow's error code, or NULL */
    json_t *output;        /* the workflow's output (a reference held), or NULL */
    const char *text;      /* every line, '\n'-terminated */
} TestHistory;

/* Reads the JSON lines and the text lines of one run (the same events, in order) into
 * *h. False when they do not agree or a line is not what run_scenario writes. */
bool testing_history_read(Arena *arena, const char *json_lines, size_t json_len,
                          const char *text, size_t text_len, TestHistory *h);
void testing_history_free(TestHistory *h);

/* What the judge needs of the test beside the history. */
typedef struct TestCase {
    const Member *test;        /* the declaration */
    const Program *program;    /* its checked program */
    const Workflow *workflow;  /* the workflow under test */
} TestCase;

/* Judges every expectation of `tc` over `h` into r->status, r->failures (in source
 * order; `positions` gets each failure's source position, for its line and column) and
 * r->divergence. */
void testing_judge(Arena *arena, const TestCase *tc, const TestHistory *h, TestResult *r,
                   uint32_t **positions);

/* A JSON value as Orbit writes it: `{ charge_id: "ch_1" }`, `[1, 2.5]`, `null`. */
char *testing_value_text(Arena *arena, const json_t *value);

/* The runner's own (runner.c), for mutate.c: the history of one run of `scenario` in
 * `format` (malloc'd, *len bytes; *status is run_scenario's), the 1-based line and
 * column (in characters) of a position, and the workflow a test runs (NULL with *why
 * when there is none). */
char *testing_run_history(const OrbcModule *module, const char *name, const char *scenario,
                          HistoryFormat format, int *status, size_t *len, char *err,
                          size_t errlen);
void testing_place(const SourceMap *map, uint32_t pos, uint32_t *line, uint32_t *column);
const Workflow *testing_workflow_of(Arena *arena, const Program *p, const Member *test,
                                    const char **why);

#endif
