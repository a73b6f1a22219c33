/* A test declaration (`test "NAME" { … }`, docs/testing.md) read as the world it scripts:
 * the scenario's JSON (docs/runtime.md, "Scenario format") that the runner hands to
 * run_scenario exactly as orbit-run would read it from a file. The mapping is the tables
 * of docs/testing.md, "The world", written once here (SCRIPT_KEYS, OUTCOME_KEYS, …):
 * durations become milliseconds, `task` becomes `workers`, `step` `steps`, `child W {
 * step S }` `steps."W.S"`, `signal` `signals[]`. What the world means is the runtime's:
 * nothing here checks a name or a value beyond its shape. */
#ifndef ORBIT_TESTING_SCENARIO_OF_TEST_H
#define ORBIT_TESTING_SCENARIO_OF_TEST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "ast.h"

/* Why a test could not be read: a message and the position it concerns. */
typedef struct TestingProblem {
    char message[256];
    uint32_t pos;
} TestingProblem;

/* The word that starts a member: an attribute's name, a clause's keyword, or the unknown
 * word of a clause (`task`, `expect`); "" for a member that failed to parse. */
const char *testing_member_word(const Member *m);

/* The block a member holds: its body (`step S { … }`), or the block of the object that
 * is its value (`expect { … }`, `input { … }`); NULL when it holds neither. */
const Block *testing_member_block(const Member *m);

/* An Orbit literal as JSON: numbers, strings, booleans, null, lists, records, a minus
 * before a number, and durations as whole milliseconds (as a scenario takes them). NULL
 * when `e` is not such a literal (*problem says where). */
json_t *testing_value_json(const Expr *e, TestingProblem *problem);

/* The `max_events` of a test that says none: a test's run ends in bounded time, as the
 * playground's does (a lost task redelivered `times: 2000000000`, or a workflow that
 * starts itself twice per run, would otherwise run for hours). */
#define TESTING_MAX_EVENTS 10000

/* The scenario of `test` (a generic clause with a body: Program.tests), as compact JSON
 * text (malloc'd, NUL-terminated), or NULL (*problem says why); its `max_events`
 * TESTING_MAX_EVENTS unless the test says otherwise. The members the world does not
 * hold (`expect`) are left to the runner. */
char *testing_scenario_of_test(const Member *test, TestingProblem *problem);

#endif
