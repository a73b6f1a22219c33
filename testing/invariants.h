/* Invariants (docs/testing.md, "Invariants"): what must hold in every world, judged on a
 * run's history. The built-in ones, one function each, hold for every program the engine
 * runs correctly or that cannot hang:
 *
 *   never_blocks              an execution never blocks forever unless it awaits a signal
 *                             that never comes
 *   compensations_end         every compensation that starts, ends
 *   no_attempt_after_end      no attempt of a step starts after the workflow timed out or
 *                             failed (its compensations' attempts excepted)
 *   attempts_within_policy    no step runs more attempts than its retry policy
 *   idempotent_single_flight  a step with an idempotency key never has two attempts in
 *                             flight
 *
 * and the user's own, `invariant "NAME" { holds: CONDITION }` in a test: a condition over
 * the final state (`execution.status`, `.error`, `.output`; each step's status, attempts,
 * error, whether it was compensated and how its compensation ended), checked by the
 * checker (check_tests.c, E0812 and E0813) and evaluated here with liborbc's operators.
 * `orbitc test` judges them on each test's run, `orbitc test --explore` on every world
 * (explore.h). Internal to testing/. */
#ifndef ORBIT_TESTING_INVARIANTS_H
#define ORBIT_TESTING_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "ast.h"
#include "orbc.h"
#include "testing_internal.h"

/* An invariant that did not hold. */
typedef struct InvariantBreak {
    const char *name;        /* the built-in's name (`never_blocks`) or the user's */
    const char *says;        /* what it says, for people */
    const char *detail;      /* what broke it: "step charge: attempt 6 of at most 5" */
    const Member *member;    /* the user's `invariant`, or NULL for a built-in */
    uint32_t event;          /* the event where it broke (h->count: at the end) */
} InvariantBreak;

typedef struct InvariantRun {
    const OrbcModule *module;   /* the program's bytecode: the steps' policies */
    uint32_t workflow;          /* the module's index of the workflow under test */
    const Member *test;         /* its `invariant` members are the user's (NULL: none) */
    bool builtins;              /* judge the built-in ones too */
    bool allow_block;           /* the test expects `status: blocked`: never_blocks and
                                   compensations_end are its to judge */
} InvariantRun;

/* The first invariant that `h` breaks (the built-ins first, in the order above, then the
 * user's in source order) into *out; false when every one holds. A run stopped at its
 * `max_events` has no end: only the invariants of its events so far are judged
 * (no_attempt_after_end, attempts_within_policy, idempotent_single_flight). */
bool testing_invariants_check(Arena *arena, const InvariantRun *run, const TestHistory *h,
                              InvariantBreak *out);

/* Whether the test's expectations say `status: blocked`. */
bool testing_expects_blocked(const Member *test);

#endif
