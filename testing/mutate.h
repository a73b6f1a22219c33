/* `orbitc test --mutate` (docs/testing.md, "Mutation testing"): the policies the tests do
 * not pin down. Each program whose tests passed is mutated in its loaded module, the
 * bytecode the tests run (an `attempts` ±1, a `backoff` switched, a delay or a timeout
 * doubled or halved, a timeout or queue timeout removed, a `non_retryable` code dropped,
 * a `compensate` removed, a `when` negated), each mutant serialized and loaded again
 * through liborbc's verifier, in memory, and every test of the program run against it on
 * threads; a mutant is killed when a test fails. Each mutant is placed at the member of
 * the source that it changes. The results come in the order of the programs, workflows,
 * steps and members, whatever the number of threads. Nothing is written to disk. */
#ifndef ORBIT_TESTING_MUTATE_H
#define ORBIT_TESTING_MUTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "runner.h"
#include "textbuf.h"
#include "workspace.h"

typedef enum MutantStatus {
    MUTANT_KILLED,      /* a test failed against it */
    MUTANT_SURVIVED,    /* every test passed against it */
    MUTANT_EQUIVALENT,  /* proved to behave as the program: not run, not counted */
} MutantStatus;

typedef struct Mutant {
    const char *workflow;    /* the workflow whose member it changes */
    const char *file;        /* of the member changed, as diagnostics show it */
    uint32_t line, column;   /* 1-based, the column in characters */
    const char *member;      /* "step charge", "step charge: compensate", "workflow checkout" */
    const char *mutation;    /* its kind: "attempts_up", "backoff", "timeout_halve", … */
    const char *change;      /* "attempts 5 → 6", "timeout 10s removed" */
    MutantStatus status;
    const char *killed_by;   /* KILLED: the first test, in order, that failed */
    const char *reason;      /* EQUIVALENT: why it behaves as the program; else NULL */
    const char *hint;        /* SURVIVED: the test that would kill it; else NULL */
    uint32_t score;          /* its workflow's place in MutationRun.workflows */
} Mutant;

/* A workflow's score. */
typedef struct MutationScore {
    const char *workflow;
    const char *file;
    uint32_t line, column;
    uint32_t killed, survived, equivalent;
} MutationScore;

typedef struct MutationRun {
    Mutant *mutants;          /* in order: program, workflow, step, member */
    uint32_t count;
    MutationScore *workflows; /* every workflow of every program that has tests */
    uint32_t workflow_count;
    uint32_t tests;           /* the tests run against each mutant (all programs) */
    uint32_t killed, survived, equivalent;
    unsigned threads;
    double seconds;           /* the real time of the mutants' runs */
    Arena arena;
} MutationRun;

/* Mutates the programs of `w` whose tests `tests` ran (every one passed) and runs their
 * tests against every mutant, on options->jobs threads (options->filter: the same tests).
 * False when a program's bytecode cannot be made again (`why`). Free with
 * testing_mutate_free either way. */
bool testing_mutate(Workspace *w, const TestingOptions *options, MutationRun *out,
                    char *why, size_t why_size);
void testing_mutate_free(MutationRun *run);

/* The percentage of the mutants killed of those run (100 when none ran). */
double testing_mutation_score(uint32_t killed, uint32_t survived);

/* The report for people: each surviving mutant with its place, change and hint, then
 * each workflow's score and the total. */
void testing_mutate_report_human(const MutationRun *run, bool color, TextBuffer *out);
/* One JSON document (docs/testing.md, "Mutation testing": its shape). */
void testing_mutate_report_json(const MutationRun *run, TextBuffer *out);

#endif
