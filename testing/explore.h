/* `orbitc test --explore` (docs/testing.md, "Exploring"): for each test, the worlds around
 * the one it scripts, each run through the engine core in memory (runtime/sim.c's
 * sim_drive over a world of this file, no process, no file), judged by the invariants
 * (invariants.h). A world is the test's world with a sequence of choices, one per
 * decision the run meets: per signal awaited by the tested workflow when it arrives, per
 * delivery of an attempt of its own steps (and their compensations) the outcome it meets
 * (the script's, a retryable failure, each `non_retryable` code of its policy, a
 * timeout, a lost worker) or the time its answer or pickup comes (just before, at and
 * just after its timeout, queue timeout and the workflow's deadline). Choice 0 is always
 * the test's own; the others are ordered simplest and earliest first. The worlds are
 * enumerated by their number of non-default choices (0, 1, 2, …: exhaustive when that
 * ends within the budget), then drawn at random from the seed. A world that breaks an
 * invariant is shrunk (fewest non-default choices, each the smallest that still breaks
 * the same invariant) and written as an Orbit test that fails the same way. Each test is
 * explored on one thread, so the results depend on the seed and the budget only, never
 * on --jobs. */
#ifndef ORBIT_TESTING_EXPLORE_H
#define ORBIT_TESTING_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "orbc.h"
#include "textbuf.h"
#include "workspace.h"

/* The worlds tried per test when --budget and --time say nothing. */
#define TESTING_EXPLORE_BUDGET 10000

typedef struct ExploreOptions {
    const char *filter;     /* --filter, or NULL */
    unsigned jobs;          /* threads: tests explored at once */
    uint64_t budget;        /* worlds per test (0: TESTING_EXPLORE_BUDGET) */
    double seconds;         /* --time: per test, 0: none (then the count depends on speed) */
    uint64_t seed;          /* --seed */
} ExploreOptions;

typedef enum ExploreStatus {
    EXPLORE_CLEAN,          /* no world broke an invariant */
    EXPLORE_BROKEN,         /* one did: shrunk and written as a test */
    EXPLORE_ERROR,          /* the test could not run (its world refused) */
} ExploreStatus;

typedef struct ExploreResult {
    const char *name, *program, *file;
    uint32_t line, column;
    const char *workflow;
    ExploreStatus status;
    const char *message;        /* ERROR: why */
    uint64_t worlds;            /* worlds tried before the first break, or all */
    uint64_t shrink_runs;       /* the runs that shrinking took */
    bool exhaustive;            /* every world of the space was tried */
    double seconds;
    /* BROKEN */
    const char *invariant;      /* its name (`never_blocks`, or the user's) */
    const char *says;
    const char *detail;
    uint32_t found_size;        /* non-default choices of the world found */
    uint32_t shrunk_size;       /* … and after shrinking */
    const char *found;          /* each non-default choice, one per line: before… */
    const char *shrunk;         /* … and after shrinking */
    const char *outcome;        /* how the shrunk world ended: "failed CARD_DECLINED" */
    const char *test;           /* the Orbit test that fails the same way */
} ExploreResult;

typedef struct ExploreRun {
    ExploreResult *results;     /* in the order of the programs and their tests */
    uint32_t count, clean, broken, errors;
    uint64_t worlds;            /* every world tried, shrinking's runs included */
    uint64_t seed;
    double seconds;
    Arena arena;
    Arena *thread_arenas;
    unsigned thread_count;
    OrbcModule *modules;
    uint32_t module_count;
} ExploreRun;

/* Explores the tests of the programs of `w` (checked without errors). False when a
 * program cannot be lowered or loaded (`why`); free with testing_explore_free either way. */
bool testing_explore(Workspace *w, const ExploreOptions *options, ExploreRun *out, char *why,
                     size_t why_size);
void testing_explore_free(ExploreRun *run);

/* The report for people, and as one JSON document (docs/testing.md, "Exploring"). */
void testing_explore_report_human(const ExploreRun *run, TextBuffer *out);
void testing_explore_report_json(const ExploreRun *run, TextBuffer *out);

#endif
