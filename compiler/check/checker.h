/* The semantic checker: every pass after parsing. (Named checker.h, not check.h: that
 * name belongs to the Check unit-test framework, whose <check.h> the tests include.) */
#ifndef ORBIT_CHECKER_H
#define ORBIT_CHECKER_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

typedef struct Program Program;   /* the checked program model: program.h */

/* One thread's part of a pass spread over several threads: `thread` is its number in
 * [0, Threads.count), `c` the compiler of that thread (thread 0 is the caller, with its
 * own compiler; the others have compilers of their own over the same sources, whose
 * names are the caller's: compiler_init_view with a share). */
typedef void (*ThreadTask)(void *arg, uint32_t thread, Compiler *c);

/* Threads that a pass over one program may use (the checker's workflows: check.c).
 * run(context, task, arg) calls task on each of the `count` threads at once, returning
 * when every call has returned; what a task makes in its thread's compiler's arena stays
 * valid until the caller's check of the program is over. `count` < 2: no threads, every
 * pass serial. `orbitc check` lends them in the
 * sharing by file (workspace/check_jobs.c), with the threads that parsed the files. */
typedef struct Threads {
    uint32_t count;
    void (*run)(void *context, ThreadTask task, void *arg);
    void *context;
} Threads;

/* How a program is checked: what the caller asks of the checker (all zero: the
 * defaults, every step kept, suppressions applied, no threads). */
typedef struct CheckOptions {
    bool check_only;      /* the checked Program is not read after the check (`orbitc
                             check`): the checker keeps a workflow's steps only while it
                             checks that workflow, so Workflow.steps is NULL and
                             step_count 0 afterwards (except in a program with tests:
                             their pass reads the steps, check_tests.c). Lowering and the
                             LSP read every step: they leave it false. */
    bool ignore_suppressions;   /* `// orbit:allow(...)` comments are not applied: every
                                   diagnostic is kept and none is made about the comments
                                   (tools/fmt_properties.c compares the diagnostics before
                                   and after suppressions) */
    Threads threads;      /* none unless the caller lends its threads */
} CheckOptions;

/* Checks one program: the standard library and the given sources (parsed, by index),
 * applying their inline suppressions (suppress.h). The lint levels are those of c->diags
 * when it is called; the sink is not finished. The checker's entry for the workspace's
 * pipeline (workspace/workspace.h), which calls it once for each program. */
Program *check_files(Compiler *c, const uint32_t *files, uint32_t count,
                     const CheckOptions *options);

#endif
