/* What the runner's files share (testing/): a run's history read back, and the judge of
 * a test's expectations over it. Internal to testing/. */
#ifndef ORBIT_TESTING_INTERNAL_H
#define ORBIT_TESTING_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "namemap.h"
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

/* What happened to a step: its status, attempts, error and compensation. */
typedef struct StepFacts {
    const char *status;         /* completed, failed, skipped, cancelled, not_reached, running */
    uint32_t attempts;
    const char *error;
    bool compensated;
    const char *compensation;   /* completed, failed, or NULL */
    uint32_t last_event;        /* h->count: none */
} StepFacts;

/* The facts of every step of the workflow under test, in one pass over the history:
 * `map` takes a step's name to its index in `facts`. An event counts for step S when its
 * label is S or one of S's `for` elements (`S[2]`); a child's steps (`S[0]/pick`) and
 * compensation attempts (`S.compensate`) do not, S's Compensation* events do. */
typedef struct StepIndex {
    NameMap map;
    StepFacts *facts;
    uint32_t count;
} StepIndex;

/* The facts of every step of `h` into *index (its strings in `arena`), and those of
 * step `name` (indexed when first asked: `index` zeroed before). */
void testing_step_index(Arena *arena, const TestHistory *h, StepIndex *index);
StepFacts testing_step_facts(Arena *arena, const TestHistory *h, StepIndex *index,
                             const char *name);

/* What the judge needs of the test beside the history. */
typedef struct TestCase {
    const Member *test;        /* the declaration */
    const Program *program;    /* its checked program */
    const Workflow *workflow;  /* the workflow under test */
    const OrbcModule *module;  /* the program's bytecode (the invariants read its
                                  policies), or NULL: no built-in invariant is judged */
    uint32_t workflow_index;   /* the workflow's index in the module */
} TestCase;

/* Judges every expectation of `tc` over `h` into r->status, r->failures (in source
 * order; `positions` gets each failure's source position, for its line and column) and
 * r->divergence. */
void testing_judge(Arena *arena, const TestCase *tc, const TestHistory *h, TestResult *r,
                   uint32_t **positions);

/* Equality of values as Orbit compares them: numbers by their value (an integer equals
 * the same real), lists and records by their contents. */
bool testing_values_equal(const json_t *a, const json_t *b);

/* A JSON value as Orbit writes it: `{ charge_id: "ch_1" }`, `[1, 2.5]`, `null`. */
char *testing_value_text(Arena *arena, const json_t *value);

/* The runner's own (runner.c), for mutate.c: the history of one run of `scenario` in
 * `format` (malloc'd, *len bytes; *status is run_scenario's). Where a position is and
 * the workflow a test runs: runner.h. */
char *testing_run_history(const OrbcModule *module, const char *name, const char *scenario,
                          HistoryFormat format, int *status, size_t *len, char *err,
                          size_t errlen);

/* Runs `work` on each of `count` items of `item_size` bytes: items 1.. on threads of
 * their own, item 0 on the calling thread (which is all there is when a thread cannot
 * start: the work is shared through the items, so fewer threads only take longer);
 * returns when every one has returned. The runner, the explorer and the mutants. */
void testing_threads_run(void *(*work)(void *), void *items, size_t item_size, unsigned count);
/* `doc` (taken) as indented JSON, keys in order, then a newline (report.c). */
void testing_append_json(TextBuffer *out, json_t *doc);
#endif
