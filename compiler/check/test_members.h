/* The members of each block of a test declaration (docs/testing.md, "A test" and "The
 * world"): the one table that the checker checks a test against (check_tests.c) and that
 * testing/scenario_of_test.c reads to write the test's world as a scenario's keys. */
#ifndef ORBIT_TEST_MEMBERS_H
#define ORBIT_TEST_MEMBERS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum TestBlock {
    TB_TEST,           /* test "NAME" { … } */
    TB_SCRIPT,         /* task "NAME" { … }, child W { step NAME { … } }, compensate { … } */
    TB_STEP_SCRIPT,    /* step NAME { … } of the tested workflow: a script, and `compensate` */
    TB_CHILD,          /* child WORKFLOW { … } */
    TB_SIGNAL,         /* signal "NAME" { … } */
    TB_EXPECT,         /* expect { … } */
    TB_EXPECT_STEP,    /* step NAME { … } in expect */
    TB_OUTCOME,        /* an element of `attempts` */
    TB_FAIL,           /* fail: { … } */
    TB_INVARIANT,      /* invariant "NAME" { … } */
    TB_COUNT
} TestBlock;

typedef enum TestValue {
    TV_WORKFLOW,       /* a workflow's name */
    TV_INPUT,          /* a record, against the tested workflow's input contract */
    TV_VALUE,          /* any constant */
    TV_RECORD,         /* a constant record */
    TV_SUCCEED,        /* a constant, against the output contract of what is scripted */
    TV_OUTPUT,         /* a constant, against the tested workflow's output contract */
    TV_DURATION,       /* a duration; in the scenario, its milliseconds */
    TV_BOOL,
    TV_TRUE,           /* `never_answers: true` */
    TV_POSITIVE,       /* an integer from 1 */
    TV_COUNT,          /* an integer from 0 */
    TV_STRING,
    TV_CODE,           /* an error code: a string spelt as a code */
    TV_OUTCOMES,       /* a list of outcomes (TB_OUTCOME) */
    TV_HTTP_STATUS,    /* an HTTP status, 100 to 599 */
    TV_STATUS,         /* a workflow's status (check_tests.c) */
    TV_STEP_STATUS,    /* a step's status */
    TV_COMPENSATION,   /* a compensation's status */
    TV_EVENTS,         /* a list of history events (bytecode/history_events.def) */
    TV_CONDITION,      /* an invariant's condition over the final state (check_tests.c) */
    TV_BLOCK,          /* a block of TestMember.block's members */
} TestValue;

typedef enum TestNamed {
    TN_NONE,           /* `expect { … }` */
    TN_WORD,           /* `step charge { … }` */
    TN_STRING,         /* `task "payments.charge" { … }` */
} TestNamed;

typedef struct TestMember {
    const char *name;
    TestValue value;
    TestBlock block;   /* TV_BLOCK: the block's members */
    TestNamed named;
    bool repeats;      /* may be given again, name and all (a signal arriving twice) */
    bool kind;         /* an outcome's kind: an outcome has exactly one */
    const char *scenario;  /* the scenario's key for its value (docs/runtime.md), or NULL:
                              not in the scenario, or written by its own code */
} TestMember;

/* The longest block's number of members. */
enum { TEST_MEMBERS_MAX = 11 };

/* The members of `block` (`*count` of them) and how a message names it ("a script"). */
const TestMember *check_test_members(TestBlock block, uint32_t *count, const char **what);

/* The member `word` of `block`, or NULL. */
const TestMember *check_test_member(TestBlock block, const char *word);

#endif
