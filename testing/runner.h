/* The runner of `orbitc test` (docs/testing.md): the tests of every checked program of a
 * workspace, each program lowered to bytecode once in memory and loaded with liborbc,
 * each test turned into its scenario (scenario_of_test.h) and run by the runtime's
 * run_scenario, as orbit-run runs a scenario, on threads; its history read back and its
 * expectations judged into a TestResult (results.h). The results are in the order of
 * the programs and of the tests in their sources, whatever the number of threads. */
#ifndef ORBIT_TESTING_RUNNER_H
#define ORBIT_TESTING_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "coverage.h"
#include "orbc.h"
#include "program.h"
#include "results.h"
#include "workspace.h"

typedef struct TestingOptions {
    const char *filter;     /* --filter: only the tests whose name holds it; NULL: all */
    unsigned jobs;          /* threads, at least 1 (no more than there are tests, nor 256) */
    bool coverage;          /* --coverage: count what the tests reach (coverage.h) */
} TestingOptions;

/* A run and what its texts live in. */
typedef struct TestingRun {
    TestRun run;
    Arena arena;            /* the results and the texts made on this thread */
    Arena *thread_arenas;   /* the texts each thread made */
    unsigned thread_count;
    /* --coverage: one per program that has tests, in the programs' order, over the
     * modules kept here until testing_run_free */
    Coverage **coverage;
    uint32_t coverage_count;
    OrbcModule *modules;
    uint32_t module_count;
} TestingRun;

/* Runs the tests of the programs of `w`, which workspace_check checked without errors.
 * False when a program cannot be lowered or loaded (`why` says so; nothing ran); else
 * every result is in out->run. Free with testing_run_free either way. */
bool testing_run(Workspace *w, const TestingOptions *options, TestingRun *out, char *why,
                 size_t why_size);
void testing_run_free(TestingRun *run);

/* The checked program of root `root` of `w` lowered and loaded into *out (free it with
 * orbc_module_free); false with `why` when it cannot be. */
bool testing_load_module(Workspace *w, uint32_t root, OrbcModule *out, char *why,
                         size_t why_size);

/* The workflow a test runs: its `workflow NAME`, else the program's only one; NULL with
 * *why when there is none to run. */
const Workflow *testing_workflow_of(Arena *arena, const Program *p, const Member *test,
                                    const char **why);

/* The 1-based line and column (in characters) of position `pos`. */
void testing_place(const SourceMap *map, uint32_t pos, uint32_t *line, uint32_t *column);

#endif
